//! Fitting what a file asks for into what the device allows, before any GPU
//! resource is created: a texture wider or taller than the device's largest
//! 2D texture is downscaled (a smaller stored mip level where the file has
//! one, else a 2x2 box filter, halving until it fits) with a note saying from
//! what to what. A file is never allowed to make wgpu refuse a resource.

use crate::scene::{Compressed, Texture};

/// How a texture was fitted, for the load warnings.
pub fn note(name: &str, from: (u32, u32), to: (u32, u32), max: u32, how: &str) -> String {
    format!(
        "texture {name:?}: {}x{} is over this device's {max}-texel limit; {how} {}x{}",
        from.0, from.1, to.0, to.1
    )
}

/// Reduces RGBA8 texels by the smallest power of two that brings both
/// sides to at most `max`, each output texel the mean of the block it
/// covers (edge blocks average the texels they have).
pub fn fit_rgba(width: u32, height: u32, rgba8: &[u8], max: u32) -> (u32, u32, Vec<u8>) {
    let f = crate::scene::images::factor_to_fit(width, height, 4, usize::MAX, max.max(1))
        .unwrap_or(1) as usize;
    if f == 1 {
        return (width, height, rgba8.to_vec());
    }
    let row = width as usize * 4;
    let mut reducer =
        crate::scene::images::BoxReducer::new(width as usize, height as usize, 4, f, usize::MAX);
    for r in rgba8.chunks_exact(row).take(height as usize) {
        reducer.push_row(r);
    }
    // Texels the caller did not have read as transparent black.
    let missing = vec![0u8; row];
    while reducer.rows_seen() < height as usize {
        reducer.push_row(&missing);
    }
    let (w, h) = reducer.output_size();
    (w as u32, h as u32, reducer.finish())
}

/// The first stored mip level whose sides fit `max`: its index, or `None`.
pub fn fitting_level(width: u32, height: u32, levels: usize, max: u32) -> Option<usize> {
    (0..levels).find(|&l| (width >> l).max(1) <= max && (height >> l).max(1) <= max)
}

/// `t` at another size: its description copied, its texels replaced (never
/// cloned first: they may be a gigabyte).
fn resized(t: &Texture, w: u32, h: u32, rgba8: Vec<u8>, compressed: Option<Compressed>) -> Texture {
    Texture {
        name: t.name.clone(),
        width: w,
        height: h,
        rgba8,
        source: t.source.clone(),
        format: t.format.clone(),
        srgb: t.srgb,
        compressed,
    }
}

/// `t` fitted to `max` texels a side, or `None` when it fits as it is.
/// Block-compressed textures keep their stored levels from the first that
/// fits (`Texture::pixels` decodes the new base level where needed); without
/// one, the decoded base level is box-filtered and uploaded uncompressed.
pub fn fit_texture(t: &Texture, max: u32) -> Option<(Texture, String)> {
    if t.width <= max && t.height <= max {
        return None;
    }
    if let Some(c) = &t.compressed
        && let Some(l) = fitting_level(t.width, t.height, c.levels.len(), max)
    {
        let (w, h) = ((t.width >> l).max(1), (t.height >> l).max(1));
        // The base level decodes from the kept blocks if something needs it.
        let rgba8 = Vec::new();
        let compressed = Some(Compressed {
            format: c.format,
            levels: c.levels[l..].to_vec(),
        });
        let fitted = resized(t, w, h, rgba8, compressed);
        let why = note(
            &t.name,
            (t.width, t.height),
            (w, h),
            max,
            &format!("using its stored mip level {l},"),
        );
        return Some((fitted, why));
    }
    let (w, h, rgba8) = fit_rgba(t.width, t.height, &t.pixels(), max);
    let fitted = resized(t, w, h, rgba8, None);
    let why = note(&t.name, (t.width, t.height), (w, h), max, "downscaled to");
    Some((fitted, why))
}

/// Checks that every buffer the scene needs fits the device: each mesh's
/// two vertex streams (position and normal, 16 B a vertex; UV, colour and
/// tangent frame, 20 B), its indices (4 B each: the upload stores them in
/// 2 where every index fits, so this is the most they take) and its
/// wireframe edges (at most two indices per index), and the skinning input
/// of all skinned meshes together (28 B a vertex). The error names the
/// mesh and both sizes.
pub fn check_buffers(scene: &crate::scene::Scene, limits: &wgpu::Limits) -> Result<(), String> {
    let max = limits.max_buffer_size;
    let mut skinned = 0u64;
    for (i, m) in scene.meshes.iter().enumerate() {
        let n = m.positions.len() as u64;
        let checks = [
            (
                "vertices",
                n,
                std::mem::size_of::<super::skinning::PosNormal>() as u64,
            ),
            (
                "vertices",
                n,
                std::mem::size_of::<super::vertex::UvColor>() as u64,
            ),
            ("indices", m.indices.len() as u64, 4u64),
            ("wireframe edge indices", 2 * m.indices.len() as u64, 4u64),
        ];
        for (what, n, stride) in checks {
            let bytes = n.saturating_mul(stride);
            if bytes > max {
                return Err(format!(
                    "part {i} {:?}: {n} {what} need a {bytes}-byte buffer, over this device's \
                     {max}-byte limit",
                    m.name
                ));
            }
        }
        if m.skin.is_some() {
            skinned += m.positions.len() as u64;
        }
    }
    let bytes = skinned.saturating_mul(std::mem::size_of::<super::skinning::SkinVertex>() as u64);
    if bytes > max {
        return Err(format!(
            "{skinned} skinned vertices need a {bytes}-byte skinning buffer, over this device's \
             {max}-byte limit"
        ));
    }
    Ok(())
}
