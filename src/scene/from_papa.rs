//! Planetary Annihilation papa -> [`Scene`].
//!
//! Papa is Z-up; the scene is Y-up. Every position, normal, matrix and
//! animation key goes through the rotation `C` of -90 degrees about X,
//! `(x, y, z) -> (x, z, -y)` (a rotation: handedness and winding are kept),
//! and matrices become `C M C^-1`. Each model's mesh bindings are placed at
//! `model2scene * mesh2model`; each material group becomes a mesh. See
//! `docs/formats.md`.

use super::clip::{Channel, ChannelSpace, Interp, Key, RotationTrack, Segment, Track};
use super::companions::{Companions, Found, Lookup, decode_texels};
use super::*;
use crate::formats::papa::{self, Papa, TexFormat, TextureData};
use crate::formats::ptf::Texels;
use glam::{Mat3, Quat, Vec4};
use std::fmt::Write as _;

/// The most bones the models' skeletons make, all placements together (a
/// skeleton holds at most 65,535): each model that places a skeleton under
/// another model2scene copies it.
const MAX_PLACED_BONES: usize = 1 << 16;

/// Papa's Z-up -> the scene's Y-up: `C`, the rotation of -90 degrees about
/// X, written out. Its entries are exactly 0 and +-1, as [`to_scene`] moves
/// a point's coordinates; `Mat4::from_rotation_x` gives cosines of -4.4e-8
/// where they are 0, which mixed a converted matrix's y into its z by that
/// much.
pub const AXIS: Mat4 = Mat4::from_cols(Vec4::X, Vec4::NEG_Z, Vec4::Y, Vec4::W);
/// `C^-1`, which is `C` transposed: `(x, y, z) -> (x, -z, y)`.
const AXIS_INVERSE: Mat4 = Mat4::from_cols(Vec4::X, Vec4::Z, Vec4::NEG_Y, Vec4::W);
const AXIS3: Mat3 = Mat3::from_cols(Vec3::X, Vec3::NEG_Z, Vec3::Y);
const AXIS3_INVERSE: Mat3 = Mat3::from_cols(Vec3::X, Vec3::Z, Vec3::NEG_Y);

pub fn to_scene(v: [f32; 3]) -> Vec3 {
    Vec3::new(v[0], v[2], -v[1])
}

pub fn quat_to_scene(q: [f32; 4]) -> Quat {
    // C R C^-1 for a rotation R: rotate the quaternion's axis by C.
    let v = to_scene([q[0], q[1], q[2]]);
    Quat::from_xyzw(v.x, v.y, v.z, q[3])
}

fn mat_to_scene(m: &[f32; 16]) -> Mat4 {
    AXIS * Mat4::from_cols_array(m) * AXIS_INVERSE
}

/// A texture's base level as RGBA8 (DXT through bcdec_rs), or why not.
pub fn decode_rgba(t: &papa::Texture) -> Result<Vec<u8>, String> {
    decode_level(t, 0).map(|(_, _, px)| px)
}

/// Stored level `level` of `t` decoded to RGBA8: (width, height, texels).
pub fn decode_level(t: &papa::Texture, level: usize) -> Result<(u32, u32, Vec<u8>), String> {
    // Reserved at the first row, once the level is known to decode.
    let rows = t.level_dims(level as u32).1 as usize;
    let mut out = Vec::new();
    let (w, h) = level_rows(t, level, &mut |row| {
        if out.is_empty() {
            out.reserve_exact(row.len() * rows);
        }
        out.extend_from_slice(row)
    })?;
    Ok((w as u32, h as u32, out))
}

/// The BC format of a DXT texture with texels in the file.
pub fn bc_format(t: &papa::Texture) -> Option<BcFormat> {
    match (t.format?, &t.data) {
        (TexFormat::Dxt1, TextureData::Embedded(_)) => Some(BcFormat::Bc1),
        (TexFormat::Dxt3, TextureData::Embedded(_)) => Some(BcFormat::Bc2),
        (TexFormat::Dxt5, TextureData::Embedded(_)) => Some(BcFormat::Bc3),
        _ => None,
    }
}

/// Where stored level `level` lies in the texture's data.
fn level_range(t: &papa::Texture, level: usize) -> Result<std::ops::Range<usize>, String> {
    t.levels()
        .get(level)
        .cloned()
        .ok_or_else(|| format!("no mip level {level} (of {})", t.mips))
}

/// Stored level `level` of a DXT texture as its blocks, once they are known
/// to cover the level (`Texture::pixels` decodes them later).
pub fn bc_level(t: &papa::Texture, level: usize) -> Result<&[u8], String> {
    let (Some(format), TextureData::Embedded(data)) = (bc_format(t), &t.data) else {
        return Err(format!("{:?} holds no BC blocks", t.name));
    };
    let range = level_range(t, level)?;
    let (w, h) = t.level_dims(level as u32);
    let block = if format == BcFormat::Bc1 { 8 } else { 16 };
    let short = || {
        format!(
            "mip level {level} data is short for {w}x{h} {}",
            t.format.map_or("?".into(), |f| f.name())
        )
    };
    if range.len() < w.div_ceil(4) as usize * h.div_ceil(4) as usize * block {
        return Err(short());
    }
    data.get(range).ok_or_else(short)
}

/// Stored level `level` of `t`, box-filtered by `f` as its rows decode
/// (memory: a strip of four rows and the output): (width, height, texels).
pub fn decode_level_reduced(
    t: &papa::Texture,
    level: usize,
    f: u32,
) -> Result<(u32, u32, Vec<u8>), String> {
    let (w, h) = t.level_dims(level as u32);
    let (w, h) = (w as usize, h as usize);
    let mut reducer = crate::formats::reduce::BoxReducer::new(w, h, 4, f as usize, usize::MAX);
    level_rows(t, level, &mut |row| reducer.push_row(row))?;
    let (ow, oh) = reducer.output_size();
    Ok((ow as u32, oh as u32, reducer.finish()))
}

/// Decodes stored level `level` of `t` to RGBA8 rows, top first, handing
/// each to `row` (block formats decode a strip of four rows at a time).
/// Returns the level's size.
fn level_rows(
    t: &papa::Texture,
    level: usize,
    row: &mut dyn FnMut(&[u8]),
) -> Result<(usize, usize), String> {
    let (Some(f), TextureData::Embedded(data)) = (t.format, &t.data) else {
        return Err(format!("linked to {:?}", t.name));
    };
    let range = level_range(t, level)?;
    let (w, h) = t.level_dims(level as u32);
    let (w, h) = (w as usize, h as usize);
    let level = data
        .get(range)
        .ok_or_else(|| format!("mip level data is short for {w}x{h} {}", f.name()))?;
    if let Some(bc) = bc_format(t) {
        decode_bc_rows(bc, w, h, level, row)
            .ok_or_else(|| format!("mip level data is short for {w}x{h} {}", f.name()))?;
        return Ok((w, h));
    }
    // A float channel clamped to 0..1 as a byte.
    fn b(c: &[u8]) -> u8 {
        (f32::from_le_bytes([c[0], c[1], c[2], c[3]]).clamp(0.0, 1.0) * 255.0).round() as u8
    }
    type Texel = fn(&[u8]) -> [u8; 4];
    let (size, texel): (usize, Texel) = match f {
        TexFormat::R8G8B8A8 => (4, |i| [i[0], i[1], i[2], i[3]]),
        TexFormat::R8G8B8X8 => (4, |i| [i[0], i[1], i[2], 255]),
        TexFormat::B8G8R8A8 => (4, |i| [i[2], i[1], i[0], i[3]]),
        TexFormat::R8 => (1, |i| [i[0], i[0], i[0], 255]),
        TexFormat::Rg8 => (2, |i| [i[0], i[1], 0, 255]),
        TexFormat::R32F => (4, |i| [b(i), b(i), b(i), 255]),
        TexFormat::Rg32F => (8, |i| [b(&i[..4]), b(&i[4..]), 0, 255]),
        TexFormat::Rgba32F => (16, |i| [b(&i[..4]), b(&i[4..8]), b(&i[8..12]), b(&i[12..])]),
        other => {
            return Err(format!(
                "{} is not shown (depth, half-float or integer data)",
                other.name()
            ));
        }
    };
    if level.len() < w * h * size {
        return Err(format!("mip level data is short for {w}x{h} {}", f.name()));
    }
    let mut out = vec![0u8; w * 4];
    for src in level.chunks_exact(w * size).take(h) {
        for (o, i) in out.chunks_exact_mut(4).zip(src.chunks_exact(size)) {
            o.copy_from_slice(&texel(i));
        }
        row(&out);
    }
    Ok((w, h))
}

/// Which channels the texture viewer shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewChannel {
    #[default]
    Rgba,
    Rgb,
    R,
    G,
    B,
    A,
}

impl ViewChannel {
    pub const ALL: [ViewChannel; 6] = [
        ViewChannel::Rgba,
        ViewChannel::Rgb,
        ViewChannel::R,
        ViewChannel::G,
        ViewChannel::B,
        ViewChannel::A,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ViewChannel::Rgba => "RGBA",
            ViewChannel::Rgb => "RGB",
            ViewChannel::R => "R",
            ViewChannel::G => "G",
            ViewChannel::B => "B",
            ViewChannel::A => "A",
        }
    }

    /// Shows only this channel (single channels as grey, opaque).
    pub fn apply(self, rgba: &mut [u8]) {
        for p in rgba.chunks_exact_mut(4) {
            let v = match self {
                ViewChannel::Rgba => continue,
                ViewChannel::Rgb => {
                    p[3] = 255;
                    continue;
                }
                ViewChannel::R => p[0],
                ViewChannel::G => p[1],
                ViewChannel::B => p[2],
                ViewChannel::A => p[3],
            };
            p.copy_from_slice(&[v, v, v, 255]);
        }
    }
}

/// A texture-table entry as a scene texture, decoded as `texels` says: the
/// first stored level whose RGBA fits the budget (block-compressed levels
/// kept as stored for the GPU), else the smallest box-filtered as it
/// decodes; a reduction to fit the budget adds a warning.
pub fn scene_texture(
    t: &papa::Texture,
    label: &str,
    texels: Texels,
    warnings: &mut Vec<String>,
) -> Result<Texture, String> {
    let name = if t.name.is_empty() {
        label.to_string()
    } else {
        t.name.clone()
    };
    if t.format.is_none() || !matches!(t.data, TextureData::Embedded(_)) {
        // A linked entry names another file: it has no texels of its own.
        return Err(format!("linked to {:?}", t.name));
    }
    let budget = match texels {
        Texels::HeadersOnly => {
            let size = (t.width as u32, t.height as u32);
            return Ok(embedded(t, name, size, Vec::new(), None, ""));
        }
        Texels::Within(b) => b,
    };
    let levels = t.levels().len().max(1);
    let rgba_of = |l: usize| {
        let (w, h) = t.level_dims(l as u32);
        w as u64 * h as u64 * 4
    };
    match (0..levels).find(|&l| rgba_of(l) <= budget as u64) {
        Some(base) => stored_level(t, name, base..levels, warnings),
        None => smallest_reduced(t, name, levels, budget, warnings),
    }
}

/// Texture `t` from its stored levels `kept`, the first of which fits the
/// texel budget (a warning where that is not the first level).
fn stored_level(
    t: &papa::Texture,
    name: String,
    kept: std::ops::Range<usize>,
    warnings: &mut Vec<String>,
) -> Result<Texture, String> {
    let base = kept.start;
    // Block-compressed levels are kept as stored (the GPU samples them;
    // `Texture::pixels` decodes them where something needs RGBA8), once
    // each kept level is known to hold its blocks.
    let (w, h) = t.level_dims(base as u32);
    let (rgba8, compressed) = match bc_format(t) {
        Some(format) => {
            let levels = kept
                .map(|l| bc_level(t, l).map(<[u8]>::to_vec))
                .collect::<Result<_, _>>()?;
            (Vec::new(), Some(Compressed { format, levels }))
        }
        None => (decode_level(t, base)?.2, None),
    };
    if base == 0 {
        return Ok(embedded(t, name, (w, h), rgba8, compressed, ""));
    }
    warnings.push(reduced_warning(
        t,
        &name,
        &format!("; stored level {base} used"),
        (w, h),
    ));
    let how = format!(", from stored level {base} ({w}x{h}) to stay within the texel budget");
    Ok(embedded(t, name, (w, h), rgba8, compressed, &how))
}

/// Texture `t` when none of its `levels` stored levels fits `budget` bytes
/// of RGBA: its smallest level box-filtered as it decodes, with a warning.
fn smallest_reduced(
    t: &papa::Texture,
    name: String,
    levels: usize,
    budget: usize,
    warnings: &mut Vec<String>,
) -> Result<Texture, String> {
    let last = levels - 1;
    let (lw, lh) = t.level_dims(last as u32);
    let f = super::images::factor_to_fit(lw, lh, 4, budget, u32::MAX)
        .ok_or_else(|| format!("does not fit the {budget}-byte texel budget even as one texel"))?;
    let (w, h, rgba8) = decode_level_reduced(t, last, f)?;
    let how = format!(" in {levels} stored level(s)");
    warnings.push(reduced_warning(t, &name, &how, (w, h)));
    let how = format!(
        ", stored level {last} ({lw}x{lh}) box-filtered to {w}x{h} to stay within the texel budget"
    );
    Ok(embedded(t, name, (w, h), rgba8, None, &how))
}

/// The warning that texture `name` was reduced (`how`) to `to`.
fn reduced_warning(t: &papa::Texture, name: &str, how: &str, to: (u32, u32)) -> String {
    let format_name = t.format.map_or("?".into(), |f| f.name());
    let declared = (t.width as u32, t.height as u32);
    super::images::reduced_warning(name, &format!("{format_name}{how}"), declared, to)
}

/// An embedded texture of `t`'s format and colour space, `size` texels,
/// described as stored with `extra` after.
fn embedded(
    t: &papa::Texture,
    name: String,
    (width, height): (u32, u32),
    rgba8: Vec<u8>,
    compressed: Option<Compressed>,
    extra: &str,
) -> Texture {
    let format = format!(
        "{} {}x{}, {} mip level{}, {}{extra}",
        t.format.map_or("linked".into(), |f| f.name()),
        t.width,
        t.height,
        t.mips,
        if t.mips == 1 { "" } else { "s" },
        if t.srgb { "sRGB" } else { "linear" },
    );
    Texture {
        name,
        width,
        height,
        rgba8,
        source: TextureSource::Embedded,
        format,
        srgb: t.srgb,
        compressed,
    }
}

/// Loads a texture papa the model names (a media path or a file name) or
/// one found by convention; its first texture.
fn load_linked_texture(
    companions: &dyn Companions,
    lookup: Lookup<'_>,
    warnings: &mut Vec<String>,
) -> Result<Texture, String> {
    texture_papa(
        companions.find(lookup).map_err(|m| m.to_string())?,
        companions,
        warnings,
    )
}

/// The first texture of a texture papa that was found, within the load's
/// texel budget.
fn texture_papa(
    Found { path, bytes }: Found,
    companions: &dyn Companions,
    warnings: &mut Vec<String>,
) -> Result<Texture, String> {
    let file = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let p = papa::decode(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let t = p
        .textures
        .first()
        .ok_or_else(|| format!("{} holds no texture", path.display()))?;
    let mut tex = decode_texels(
        companions,
        |texels| scene_texture(t, &file, texels, warnings),
        Texture::rgba8_len,
    )?;
    tex.source = TextureSource::External(path);
    Ok(tex)
}

/// The animation clips of `anim` for `skeleton` (bones bound by name;
/// names the skeleton lacks are ignored, bones the clip lacks keep their
/// bind pose). `None` when no bone matches.
pub fn animation_clip(anim: &papa::Animation, name: &str, skeleton: &Skeleton) -> Option<Clip> {
    let fps = if anim.fps_num > 0 && anim.fps_den > 0 {
        anim.fps_num as f32 / anim.fps_den as f32
    } else {
        60.0
    };
    let bone_named = bones_by_name(skeleton, anim.bones.len());
    let root_space = root_spaces(skeleton);
    let channels: Vec<Channel> = anim
        .bones
        .iter()
        .enumerate()
        .filter_map(|(k, bname)| {
            let bone = bone_named(bname)?;
            Some(bone_channel(anim, k, bone, root_space[bone], fps))
        })
        .collect();
    if channels.is_empty() {
        return None;
    }
    let frames = anim.frames.saturating_sub(1);
    let duration_s = frames as f32 / fps;
    Some(Clip {
        name: name.to_string(),
        duration_s,
        frames,
        space: ChannelSpace::Local,
        channels,
        sequence: None,
        segments: vec![Segment {
            name: name.to_string(),
            start_s: 0.0,
            duration_s,
            frame_s: 1.0 / fps,
            first_frame: 0,
            frames,
            part_list: None,
        }],
    })
}

/// The skeleton's bone of a name (the first of it), for an animation of
/// `animated` bones: a scan for a few, a table where names and bones would
/// make millions of comparisons (a file may name 65,535 bones).
fn bones_by_name(skeleton: &Skeleton, animated: usize) -> impl Fn(&str) -> Option<usize> + '_ {
    let by_name: Option<std::collections::HashMap<&str, usize>> =
        (animated.saturating_mul(skeleton.bones.len()) > 4096).then(|| {
            let mut by_name = std::collections::HashMap::new();
            for (i, b) in skeleton.bones.iter().enumerate() {
                by_name.entry(b.name.as_str()).or_insert(i);
            }
            by_name
        });
    move |name: &str| match &by_name {
        Some(by_name) => by_name.get(name).copied(),
        None => skeleton.bones.iter().position(|b| b.name == name),
    }
}

/// Each bone's model2scene where it is a root under one (the first given
/// for a bone), else `None`.
fn root_spaces(skeleton: &Skeleton) -> Vec<Option<Mat4>> {
    let mut root_space: Vec<Option<Mat4>> = vec![None; skeleton.bones.len()];
    for &(b, m) in skeleton.root_space.iter().rev() {
        if let Some(slot) = root_space.get_mut(b) {
            *slot = Some(m);
        }
    }
    root_space
}

/// The channel of the animation's bone `k`, the skeleton's `bone`: a key
/// a frame, linear. A root bone under the model's model2scene (`space`)
/// keeps it: its keys are that transform times the file's (the rest pose
/// does the same, see `convert`), scale included.
fn bone_channel(
    anim: &papa::Animation,
    k: usize,
    bone: usize,
    space: Option<Mat4>,
    fps: f32,
) -> Channel {
    let nb = anim.bones.len();
    let trs = |fr: usize| {
        let (t, r) = anim.transforms[fr * nb + k];
        let (t, r) = (to_scene(t), quat_to_scene(r).normalize());
        match space {
            Some(m) => {
                let (s, r, t) =
                    (m * Mat4::from_rotation_translation(r, t)).to_scale_rotation_translation();
                (t, r.normalize(), s)
            }
            None => (t, r, Vec3::ONE),
        }
    };
    let track = |value: &dyn Fn(usize) -> Vec3| Track {
        keys: (0..anim.frames as usize)
            .map(|fr| Key {
                time: fr as f32 / fps,
                value: value(fr),
                interp: Interp::Linear,
            })
            .collect(),
    };
    let rotation = Track {
        keys: (0..anim.frames as usize)
            .map(|fr| Key {
                time: fr as f32 / fps,
                value: trs(fr).1,
                interp: Interp::Linear,
            })
            .collect(),
    };
    Channel {
        bone,
        translation: track(&|fr| trs(fr).0),
        rotation: RotationTrack::Quat(rotation),
        scale: if space.is_some() {
            track(&|fr| trs(fr).2)
        } else {
            Track::default()
        },
    }
}

/// Animation papas next to the model (`<stem>_anim_<name>.papa`, or any
/// `*.papa` holding only animations) whose bones match `skeleton`: each
/// clip with the file it came from.
pub fn sibling_animations(
    companions: &dyn Companions,
    skeleton: &Skeleton,
    warnings: &mut Vec<String>,
) -> Vec<(Clip, String)> {
    let Some(stem) = companions.model_stem() else {
        return Vec::new();
    };
    // The header's counts of textures .. models (bytes 10..24) all zero
    // mean "animations only"; other files are never read whole.
    let animations_only = |h: &[u8]| {
        h.starts_with(papa::MAGIC) && h.get(10..24).is_some_and(|c| c.iter().all(|&b| b == 0))
    };
    let mut clips = Vec::new();
    for sib in companions.siblings(".papa", 26, &animations_only) {
        let file = sib.file_name;
        let Ok(p) = papa::decode(&sib.bytes) else {
            if file.contains("_anim_") {
                warnings.push(format!("{file}: not a valid animation papa; skipped"));
            }
            continue;
        };
        let own = file.starts_with(&format!("{stem}_anim_"));
        for (i, a) in p.animations.iter().enumerate() {
            // "Its bones match": at least 80% of the animation's bones are
            // in the skeleton (real animations name a few sockets a model
            // lacks; another unit's share only generic names like bone_root).
            let matched = a
                .bones
                .iter()
                .filter(|n| skeleton.bones.iter().any(|b| &b.name == *n))
                .count();
            if a.bones.is_empty() || matched * 5 < a.bones.len() * 4 {
                if own {
                    warnings.push(format!(
                        "{file}: only {matched} of its {} bones are in the skeleton; not listed",
                        a.bones.len()
                    ));
                }
                continue;
            }
            let name = file
                .strip_prefix(&format!("{stem}_anim_"))
                .unwrap_or(&file)
                .trim_end_matches(".papa")
                .to_string();
            let name = if p.animations.len() > 1 {
                format!("{name} {i}")
            } else {
                name
            };
            if let Some(c) = animation_clip(a, &name, skeleton) {
                clips.push((c, file.clone()));
            }
        }
    }
    clips
}

/// Every skinned model's skeleton in `skeleton`, one after the other
/// (models that share a skeleton and a placement share its bones): for
/// each model, where its bones start, or `None` (no skeleton, or one left
/// at rest past [`MAX_PLACED_BONES`], with a warning).
fn place_skeletons(
    p: &Papa,
    skeleton: &mut Skeleton,
    warnings: &mut Vec<String>,
) -> Vec<Option<usize>> {
    let mut bone_base: Vec<Option<usize>> = vec![None; p.models.len()];
    let mut placed: std::collections::HashMap<(u16, [u32; 16]), usize> = Default::default();
    let mut unplaced = 0usize;
    for (mi, model) in p.models.iter().enumerate() {
        let Some(si) = model.skeleton else { continue };
        let key = model.model2scene.map(f32::to_bits);
        if let Some(&base) = placed.get(&(si, key)) {
            bone_base[mi] = Some(base);
            continue;
        }
        let base = skeleton.bones.len();
        let sk = &p.skeletons[si as usize];
        // Each placement copies the skeleton: a few bytes of models can
        // name one large skeleton at thousands of placements.
        if base + sk.bones.len() > MAX_PLACED_BONES {
            unplaced += 1;
            continue;
        }
        placed.insert((si, key), base);
        bone_base[mi] = Some(base);
        let m2s = mat_to_scene(&model.model2scene);
        let mut world: Vec<Mat4> = Vec::with_capacity(sk.bones.len());
        for b in &sk.bones {
            let s = Mat3::from_cols_array(&b.shear_scale);
            let local = Mat4::from_rotation_translation(
                quat_to_scene(b.rotation).normalize(),
                to_scene(b.translation),
            ) * Mat4::from_mat3(AXIS3 * s * AXIS3_INVERSE);
            let w = match b.parent {
                Some(pa) => world[pa as usize] * local,
                None => m2s * local,
            };
            world.push(w);
        }
        let parents: Vec<Option<usize>> = sk
            .bones
            .iter()
            .map(|b| b.parent.map(|p| p as usize))
            .collect();
        let rest = RestBones::new(&parents, &world, 0.2);
        for (i, b) in sk.bones.iter().enumerate() {
            let mut bone = rest.bone(i, &b.name);
            bone.parent = bone.parent.map(|p| p + base);
            if bone.parent.is_none() && m2s != Mat4::IDENTITY {
                skeleton.root_space.push((base + i, m2s));
            }
            skeleton.bones.push(bone);
        }
    }
    if unplaced > 0 {
        warnings.push(format!(
            "{unplaced} models' skeletons are not placed: with them the scene would hold more \
             than {MAX_PLACED_BONES} bones; their meshes are drawn at rest"
        ));
    }
    bone_base
}

/// The inspector's File section: version, counts, the vertex and index
/// buffers by layout and width, the header's signature, and the tables.
fn described(p: &Papa, mut source: SourceInfo) -> SourceInfo {
    source.format = "Papa".into();
    source.details.extend([
        ("version".into(), "3.0".into()),
        ("models".into(), p.models.len().into()),
        (
            "vertex buffers".into(),
            Detail::Tally(
                p.vertex_buffers
                    .iter()
                    .map(|v| (v.layout().name, v.count as u64))
                    .collect(),
            ),
        ),
        (
            "index buffers".into(),
            Detail::Tally(
                p.index_buffers
                    .iter()
                    .map(|b| {
                        let width = if b.format == 0 { "u16" } else { "u32" };
                        (width, b.indices.len() as u64)
                    })
                    .collect(),
            ),
        ),
        ("animations".into(), p.animations.len().into()),
    ]);
    if p.signature.iter().any(|&b| b != 0) {
        source.details.push((
            "header signature".into(),
            String::from_utf8_lossy(&p.signature)
                .trim_end_matches('\0')
                .to_string()
                .into(),
        ));
    }
    source.chunks = p
        .tables
        .iter()
        .map(|t| ChunkRow {
            magic: t.name.into(),
            offset: t.offset.unwrap_or(0) as usize,
            size: t.bytes,
            // The entry count is written by whoever shows the row: a
            // string per table was a tenth of a small file's conversion.
            note: if t.offset.is_some() {
                ""
            } else {
                "absent (-1)"
            }
            .into(),
            entries: t.offset.is_some().then_some(t.count as u32),
        })
        .collect();
    source
}

/// The inspector's Models table: each model's skeleton and bindings.
fn models_table(p: &Papa) -> Vec<InfoTable> {
    vec![(
        "Models".into(),
        p.models
            .iter()
            .enumerate()
            .map(|(i, m)| {
                // One string a row, sized up front, its numbers written by
                // itoa: through `write!` this one-row table was 7% of a
                // small file's load.
                let mut row = String::with_capacity(40 + 32 * m.bindings.len());
                match m.skeleton {
                    Some(s) => {
                        row.push_str("skeleton ");
                        text::push_int(&mut row, s);
                    }
                    None => row.push_str("skeleton none"),
                }
                row.push_str(", ");
                text::push_int(&mut row, m.bindings.len());
                row.push_str(" binding(s): ");
                for (k, b) in m.bindings.iter().enumerate() {
                    row.push_str(if k > 0 { ", mesh " } else { "mesh " });
                    text::push_int(&mut row, b.mesh);
                    row.push_str(" (");
                    text::push_int(&mut row, b.bone_map.len());
                    row.push_str(" bone mappings)");
                }
                let mut key = String::with_capacity(8 + m.name.len());
                text::push_int(&mut key, i);
                key.push_str(": ");
                key.push_str(&m.name);
                (key, row)
            })
            .collect(),
    )]
}

/// The meshes: one per material group of every binding of every model,
/// each with the vertices its indices use, in first-use order; skinned
/// where its model's skeleton starts at `bone_base`.
fn meshes_of(p: &Papa, bone_base: &[Option<usize>], warnings: &mut Vec<String>) -> Vec<Mesh> {
    let mut meshes = Vec::new();
    for (mi, model) in p.models.iter().enumerate() {
        let m2s = mat_to_scene(&model.model2scene);
        for (bi, binding) in model.bindings.iter().enumerate() {
            let mesh = &p.meshes[binding.mesh as usize];
            let vb = &p.vertex_buffers[mesh.vertex_buffer as usize];
            let ib = &p.index_buffers[mesh.index_buffer as usize];
            let layout = vb.layout();
            if !layout.has_position {
                // Formats 12 (TexCoord4) and 14 (Matrix) hold no position:
                // listed in the inspector, never drawn at the origin.
                warnings.push(format!(
                    "model {mi} binding {bi}: vertex buffer {} ({}) has no positions; listed, not drawn",
                    mesh.vertex_buffer, layout.name
                ));
                continue;
            }
            let vertices = BoundVertices::new(
                vb,
                binding,
                m2s * mat_to_scene(&binding.mesh2model),
                bone_base[mi].filter(|_| layout.skin.is_some()),
            );
            // Output index per stored vertex for the group being built,
            // valid where its stamp is the group's (no clearing between
            // groups, no hashing).
            let mut slot: Vec<(u32, u32)> = vec![(u32::MAX, 0); vb.count as usize];
            for (gi, g) in mesh.groups.iter().enumerate() {
                let (primitive, per) = match g.primitive_type {
                    0 => (Primitive::Points, 1),
                    1 => (Primitive::Lines, 2),
                    _ => (Primitive::Triangles, 3),
                };
                if g.primitives == 0 {
                    continue;
                }
                let range =
                    g.first_index as usize..g.first_index as usize + per * g.primitives as usize;
                let (order, indices) = first_use_order(&ib.indices[range], &mut slot, gi as u32);
                let mut out = vertices.mesh(&order);
                out.name = group_name(model, mi, g, gi);
                out.material = Some(g.material as usize);
                out.primitive = primitive;
                out.indices = indices;
                if layout.normal.is_none() {
                    out.normals = smooth_normals(&out.positions, &out.indices);
                }
                meshes.push(out);
            }
        }
    }
    meshes
}

/// A group's name: its model's (or "model N"), then its own (or "group N").
fn group_name(model: &papa::Model, mi: usize, g: &papa::MaterialGroup, gi: usize) -> String {
    let mut name = String::with_capacity(model.name.len() + g.name.len() + 16);
    match model.name.as_str() {
        "" => _ = write!(name, "model {mi}"),
        named => name.push_str(named),
    }
    match g.name.as_str() {
        "" => _ = write!(name, " / group {gi}"),
        named => {
            name.push_str(" / ");
            name.push_str(named);
        }
    }
    name
}

/// Numbers a group's vertices in first-use order: the stored vertices its
/// `indices` use (`order`), and its indices into them. `slot` holds each
/// stored vertex's number where its stamp is this group's (`stamp`).
fn first_use_order(indices: &[u32], slot: &mut [(u32, u32)], stamp: u32) -> (Vec<u32>, Vec<u32>) {
    let mut order: Vec<u32> = Vec::with_capacity(indices.len().min(slot.len()));
    let mut out_indices = Vec::with_capacity(indices.len());
    for &i in indices {
        let (seen, at) = slot[i as usize];
        out_indices.push(if seen == stamp {
            at
        } else {
            let next = order.len() as u32;
            slot[i as usize] = (stamp, next);
            order.push(i);
            next
        });
    }
    (order, out_indices)
}

/// A binding's vertex buffer as its groups' meshes read it: placed in the
/// scene by `place`, skinned from bone `skinned` on where its model has a
/// skeleton and the buffer weights.
struct BoundVertices<'a> {
    vb: &'a papa::VertexBuffer,
    layout: &'static papa::VertexLayout,
    binding: &'a papa::MeshBinding,
    place: Mat4,
    normal_m: Mat3,
    tangent_m: Mat3,
    /// A binding placed where its mesh is (the identity, as in most of
    /// PA's files) skips the multiplications, a vertex's largest cost; a
    /// placed one goes through them. One loop for each case: a test per
    /// vertex cost more than it saved.
    moved: bool,
    skinned: Option<usize>,
}

impl<'a> BoundVertices<'a> {
    fn new(
        vb: &'a papa::VertexBuffer,
        binding: &'a papa::MeshBinding,
        place: Mat4,
        skinned: Option<usize>,
    ) -> Self {
        BoundVertices {
            vb,
            layout: vb.layout(),
            binding,
            place,
            normal_m: Mat3::from_mat4(place).inverse().transpose(),
            tangent_m: Mat3::from_mat4(place),
            moved: place != Mat4::IDENTITY,
            skinned,
        }
    }

    /// Stored vertex `i`'s bytes.
    fn vertex(&self, i: u32) -> &[u8] {
        let stride = self.layout.stride;
        &self.vb.data[i as usize * stride..][..stride]
    }

    /// The mesh of the stored vertices `order` (the group's, in first-use
    /// order): each attribute filled in its own loop over them, one layout
    /// test per attribute, not per vertex, and no vertex struct built and
    /// read back. Its name, material, primitive and indices are the
    /// caller's.
    fn mesh(&self, order: &[u32]) -> Mesh {
        let layout = self.layout;
        let mut out = Mesh {
            visible: true,
            has_file_normals: layout.normal.is_some(),
            has_file_uvs: layout.uv.is_some(),
            positions: self.positions(order),
            normals: layout
                .normal
                .map_or_else(Vec::new, |at| self.normals(order, at)),
            uvs: self.uvs(order, layout.uv),
            // The UV sets after the first, 8 bytes apart after it.
            extra_uvs: (1..=layout.extra_uvs as usize)
                .map(|k| self.uvs(order, layout.uv.map(|at| at + 8 * k)))
                .collect(),
            ..Mesh::default()
        };
        let colors = self.colors(order);
        if let Some(at) = layout.tangents {
            out.tangents = Some(self.tangents(order, at));
        }
        if let (Some(base), Some(at)) = (self.skinned, layout.skin) {
            out.skin = Some(self.skin(order, base, at));
        }
        out.colors = colors.filter(|c| c.iter().any(|c| *c != [0; 4] && *c != [255; 4]));
        out
    }

    fn positions(&self, order: &[u32]) -> Vec<Vec3> {
        if self.moved {
            each(order, |i| {
                self.place.transform_point3(to_scene(v3(self.vertex(i), 0)))
            })
        } else {
            each(order, |i| to_scene(v3(self.vertex(i), 0)))
        }
    }

    /// The normals at byte `at` of each vertex, made unit length.
    fn normals(&self, order: &[u32], at: usize) -> Vec<Vec3> {
        let mut normals = if self.moved {
            each(order, |i| self.normal_m * to_scene(v3(self.vertex(i), at)))
        } else {
            each(order, |i| to_scene(v3(self.vertex(i), at)))
        };
        vectors::normalize_each(&mut normals, Vec3::Y);
        normals
    }

    /// The UVs at byte `at` of each vertex; zeros where the buffer has none.
    fn uvs(&self, order: &[u32], at: Option<usize>) -> Vec<Vec2> {
        match at {
            Some(at) => each(order, |i| {
                let b = self.vertex(i);
                Vec2::new(f32_at(b, at), f32_at(b, at + 4))
            }),
            None => vec![Vec2::ZERO; order.len()],
        }
    }

    /// The vertex colours: RGBA bytes, or format 13's eight colour floats,
    /// the first four read as RGBA in 0..1 (no file shows what the other
    /// four are; they stay in the file).
    fn colors(&self, order: &[u32]) -> Option<Vec<[u8; 4]>> {
        match (self.layout.color, self.layout.color8f) {
            (Some(at), _) => Some(each(order, |i| {
                self.vertex(i)[at..at + 4].try_into().unwrap()
            })),
            (None, Some(at)) => Some(each(order, |i| {
                let b = self.vertex(i);
                [0, 1, 2, 3].map(|k| (f32_at(b, at + 4 * k).clamp(0.0, 1.0) * 255.0).round() as u8)
            })),
            (None, None) => None,
        }
    }

    /// Tangent and binormal at byte `at` of each vertex, made unit length.
    fn tangents(&self, order: &[u32], at: usize) -> Vec<[Vec3; 2]> {
        let pair = |b: &[u8]| [to_scene(v3(b, at)), to_scene(v3(b, at + 12))];
        let mut tangents = if self.moved {
            each(order, |i| pair(self.vertex(i)).map(|t| self.tangent_m * t))
        } else {
            each(order, |i| pair(self.vertex(i)))
        };
        vectors::normalize_each(tangents.as_flattened_mut(), Vec3::ZERO);
        tangents
    }

    /// Joints (the binding's bone map, from the skeleton's first bone
    /// `base`) and weights at bytes `(w_at, j_at)` of each vertex. Decode
    /// refused influences past the bone map; weightless slots point at the
    /// first bone.
    fn skin(&self, order: &[u32], base: usize, (w_at, j_at): (usize, usize)) -> Skin {
        let (joints, weights) = order
            .iter()
            .map(|&i| {
                let b = self.vertex(i);
                let w: [u8; 4] = b[w_at..w_at + 4].try_into().unwrap();
                let j: [u8; 4] = b[j_at..j_at + 4].try_into().unwrap();
                let map = |k: usize| {
                    let bone = if w[k] > 0 {
                        self.binding
                            .bone_map
                            .get(j[k] as usize)
                            .copied()
                            .unwrap_or(0)
                    } else {
                        0
                    };
                    (base + bone as usize) as u16
                };
                ([map(0), map(1), map(2), map(3)], byte_weights(w))
            })
            .unzip();
        Skin { joints, weights }
    }
}

/// The little-endian f32 at byte `at` of `b`.
fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The three little-endian f32s from byte `at` of `b`.
fn v3(b: &[u8], at: usize) -> [f32; 3] {
    [f32_at(b, at), f32_at(b, at + 4), f32_at(b, at + 8)]
}

pub fn convert(p: &Papa, source: SourceInfo, companions: &dyn Companions) -> Scene {
    let mut warnings = p.warnings.clone();
    let mut scene = Scene::default();
    let table = TextureTable::new(p);
    scene.textures = table_textures(p, &table, companions, &mut warnings);
    let unit = UnitTextures::find(p, companions, &mut scene, &mut warnings);
    scene.materials = p
        .materials
        .iter()
        .map(|m| material_of(p, m, &table, &unit, &scene.textures))
        .collect();
    // Table entries no material names are listed all the same, marked.
    for (i, tex) in scene.textures.iter_mut().enumerate().take(p.textures.len()) {
        let used = p
            .materials
            .iter()
            .any(|m| m.textures.iter().any(|(_, t)| *t as usize == i));
        if !used {
            tex.format = format!("{} · unused (no material names it)", tex.format);
        }
    }
    let bone_base = place_skeletons(p, &mut scene.skeleton, &mut warnings);
    scene.meshes = meshes_of(p, &bone_base, &mut warnings);
    clips(p, companions, &mut scene, &mut warnings);
    scene.tables = models_table(p);
    scene.source = described(p, source);
    scene.warnings = warnings;
    scene
}

/// The file's texture table as the scene lists it: scene texture i is
/// entry i, and a linked path listed again binds its first entry.
struct TextureTable<'a> {
    p: &'a Papa,
    /// Each entry's first entry linking the same path (itself if none), in
    /// a long table (a file may list 65,535 entries); a short one is
    /// scanned back instead (a model's few make no table).
    first: Option<Vec<usize>>,
}

fn linked(t: &papa::Texture) -> bool {
    matches!(t.data, TextureData::Linked)
}

impl<'a> TextureTable<'a> {
    fn new(p: &'a Papa) -> TextureTable<'a> {
        let first = (p.textures.len() > 32).then(|| {
            let mut first: std::collections::HashMap<&str, usize> = Default::default();
            (p.textures.iter().enumerate())
                .map(|(i, t)| match linked(t) {
                    true => *first.entry(t.name.as_str()).or_insert(i),
                    false => i,
                })
                .collect()
        });
        TextureTable { p, first }
    }

    /// Entry `i`'s first entry linking the same path (itself if none).
    fn canonical(&self, i: usize) -> usize {
        let t = &self.p.textures;
        match &self.first {
            Some(first) => first[i],
            None if linked(&t[i]) => t[..i]
                .iter()
                .position(|e| linked(e) && e.name == t[i].name)
                .unwrap_or(i),
            None => i,
        }
    }

    /// Scene texture of table entry `t`, if materials may bind it: a
    /// repeated linked path binds its first entry, which holds the texels;
    /// `NO_TEXTURE` binds nothing.
    fn texture_of(&self, t: u16) -> Option<usize> {
        self.p
            .textures
            .get(t as usize)
            .filter(|e| !(linked(e) && e.name == "NO_TEXTURE"))
            .map(|_| self.canonical(t as usize))
    }
}

/// Every entry of the texture table, in order: linked ones through the
/// resolver (media paths), a repeated linked path once, `NO_TEXTURE` as a
/// marked placeholder materials never bind; one that does not load a
/// checkerboard, with a warning.
fn table_textures(
    p: &Papa,
    table: &TextureTable,
    companions: &dyn Companions,
    warnings: &mut Vec<String>,
) -> Vec<Texture> {
    let mut textures: Vec<Texture> = Vec::with_capacity(p.textures.len());
    for (i, t) in p.textures.iter().enumerate() {
        let earlier = Some(table.canonical(i)).filter(|&k| k != i);
        let tex = match (&t.data, earlier) {
            (TextureData::Linked, _) if t.name == "NO_TEXTURE" => Texture {
                name: "NO_TEXTURE".into(),
                width: 1,
                height: 1,
                rgba8: vec![255; 4],
                source: TextureSource::Embedded,
                format: "the file's \"no texture\" entry".into(),
                srgb: true,
                compressed: None,
            },
            // Listed, its texels not copied: its materials bind entry k.
            (TextureData::Linked, Some(k)) => Texture {
                name: t.name.clone(),
                width: 1,
                height: 1,
                rgba8: vec![255; 4],
                source: textures[k].source.clone(),
                format: format!("{} · duplicate of texture {k}", textures[k].format),
                srgb: textures[k].srgb,
                compressed: None,
            },
            (TextureData::Linked, None) => {
                load_linked_texture(companions, Lookup::PaMedia(&t.name), warnings).unwrap_or_else(
                    |why| {
                        warnings.push(checkerboard_warning(i, &t.name, &why));
                        Texture::checkerboard(&t.name, why)
                    },
                )
            }
            _ => decode_texels(
                companions,
                |texels| scene_texture(t, &format!("texture {i}"), texels, warnings),
                Texture::rgba8_len,
            )
            .unwrap_or_else(|why| {
                warnings.push(checkerboard_warning(i, &t.name, &why));
                Texture::checkerboard(&t.name, why)
            }),
        };
        textures.push(tex);
    }
    textures
}

/// A unit's textures found by PA's naming convention: unit models name no
/// texture, and the engine finds `<unit>_diffuse.papa`, `<unit>_mask.papa`
/// (team colours, glow) and `<unit>_material.papa` (specular, gloss)
/// beside the model. Each is optional: its absence is a note on the
/// material, a file that is there but does not load a warning. Each is its
/// scene texture, or why there is none (empty for a model that is no
/// unit's).
struct UnitTextures {
    diffuse: Result<usize, String>,
    mask: Result<usize, String>,
    material: Result<usize, String>,
}

impl UnitTextures {
    fn find(
        p: &Papa,
        companions: &dyn Companions,
        scene: &mut Scene,
        warnings: &mut Vec<String>,
    ) -> UnitTextures {
        let unit = p.materials.iter().any(|m| m.shader == "solid");
        let mut unit_texture = |kind: &str, purpose: &str| -> Result<usize, String> {
            if !unit {
                return Err(String::new());
            }
            let Some(stem) = companions.model_stem() else {
                return Err(format!("no {kind} texture (the model has no file name)"));
            };
            let file = format!("{stem}_{kind}.papa");
            let found = companions
                .find(Lookup::Beside(&file))
                .map_err(|missing| format!("{file} {missing}"))?;
            match texture_papa(found, companions, warnings) {
                Ok(t) => {
                    scene.textures.push(t);
                    let i = scene.textures.len() - 1;
                    scene.added.textures.push((
                        i,
                        format!("{file}: PA's naming convention for a unit's {purpose}").into(),
                    ));
                    Ok(i)
                }
                Err(why) => {
                    warnings.push(why.clone());
                    Err(why)
                }
            }
        };
        UnitTextures {
            diffuse: unit_texture("diffuse", "diffuse texture"),
            mask: unit_texture("mask", "team-colour mask"),
            material: unit_texture("material", "material map"),
        }
    }
}

/// Material `m` of the file: its texture (a unit's by the naming
/// convention where it names none), its maps, and every parameter as a
/// property.
fn material_of(
    p: &Papa,
    m: &papa::Material,
    table: &TextureTable,
    unit: &UnitTextures,
    textures: &[Texture],
) -> Material {
    let color = m
        .vectors
        .iter()
        .find(|(n, _)| n == "DiffuseColor")
        .map(|(_, v)| *v);
    let diffuse = texture_param(m, table, "DiffuseTexture");
    let solid = m.shader == "solid";
    let texture = diffuse.or(if solid {
        unit.diffuse.as_ref().ok().copied()
    } else {
        None
    });
    let maps = if solid {
        unit_maps(unit, diffuse.is_some())
    } else {
        named_maps(m, table, textures)
    };
    Material {
        name: m.shader.clone(),
        // A textured unit shows its texture; the grey DiffuseColor of unit
        // materials would only darken it.
        base_color: match (texture, color) {
            (None, Some(c)) => [c[0], c[1], c[2], 1.0],
            _ => [1.0; 4],
        },
        texture,
        properties: properties_of(p, m, table),
        maps,
        ..Material::default()
    }
}

/// The scene texture of material `m`'s texture parameter `name`.
fn texture_param(m: &papa::Material, table: &TextureTable, name: &str) -> Option<usize> {
    m.textures
        .iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, t)| table.texture_of(*t))
}

/// A unit's maps (the `solid` shader): its team mask and material texture,
/// found by convention, with a note for each that was not found (the
/// diffuse's only where the material names none).
fn unit_maps(unit: &UnitTextures, names_diffuse: bool) -> Maps {
    let mut maps = Maps::default();
    let mut note = |r: &Result<usize, String>, what: &str| match r {
        Ok(_) => {}
        Err(why) => maps.notes.push(format!("{what}: {why}")),
    };
    if !names_diffuse {
        note(&unit.diffuse, "no diffuse texture");
    }
    note(&unit.mask, "no team colours or glow");
    note(&unit.material, "no specular or gloss");
    maps.team_mask = unit.mask.as_ref().ok().copied();
    maps.material = unit.material.as_ref().ok().map(|&t| (t, MaterialMap::Unit));
    maps
}

/// The normal and material maps a material names, each only where it
/// loaded (a checkerboard is a fine stand-in for colour, not for data),
/// with a note for each that did not.
fn named_maps(m: &papa::Material, table: &TextureTable, textures: &[Texture]) -> Maps {
    let loaded = |t: &usize| !matches!(textures[*t].source, TextureSource::Missing(_));
    let mut maps = Maps {
        normal: texture_param(m, table, "NormalTexture")
            .filter(loaded)
            .map(|t| (t, NormalMap::TwoChannel)),
        material: texture_param(m, table, "MaterialTexture")
            .filter(loaded)
            .map(|t| (t, MaterialMap::Csg)),
        ..Maps::default()
    };
    for (name, bound) in [
        ("NormalTexture", maps.normal.is_some()),
        ("MaterialTexture", maps.material.is_some()),
    ] {
        if !bound && m.textures.iter().any(|(n, _)| n == name) {
            maps.notes
                .push(format!("{name} not loaded: drawn without it"));
        }
    }
    maps
}

/// Material `m`'s shader, vectors, textures (by name) and matrices, as the
/// inspector lists them.
fn properties_of(p: &Papa, m: &papa::Material, table: &TextureTable) -> Vec<Property> {
    let property = |name: &str, value, texture| Property {
        name: name.to_string().into(),
        code: None,
        value,
        texture,
    };
    let mut properties =
        Vec::with_capacity(1 + m.vectors.len() + m.textures.len() + m.matrices.len());
    properties.push(Property {
        name: "shader".into(),
        code: None,
        value: PropertyValue::Text(m.shader.clone()),
        texture: None,
    });
    properties.extend(
        m.vectors
            .iter()
            .map(|(n, v)| property(n, PropertyValue::Vector(*v), None)),
    );
    properties.extend(m.textures.iter().map(|(n, t)| {
        let name = p
            .textures
            .get(*t as usize)
            .map_or_else(|| format!("texture {t}"), |x| x.name.clone());
        property(n, PropertyValue::Text(name), table.texture_of(*t))
    }));
    properties.extend(
        m.matrices
            .iter()
            .map(|(n, x)| property(n, PropertyValue::Matrix(*x), None)),
    );
    properties
}

/// The clips: the file's animations, then those of the animation files
/// beside it.
fn clips(p: &Papa, companions: &dyn Companions, scene: &mut Scene, warnings: &mut Vec<String>) {
    for (i, a) in p.animations.iter().enumerate() {
        let name = if a.name.is_empty() {
            format!("animation {i}")
        } else {
            a.name.clone()
        };
        match animation_clip(a, &name, &scene.skeleton) {
            Some(c) => scene.clips.push(c),
            None if !scene.skeleton.bones.is_empty() => {
                warnings.push(format!("animation {i}: no bone matches the skeleton"))
            }
            None => {}
        }
    }
    if !scene.skeleton.bones.is_empty() {
        for (clip, file) in sibling_animations(companions, &scene.skeleton, warnings) {
            scene.clips.push(clip);
            scene.added.clips.push((
                scene.clips.len() - 1,
                format!("from {file} beside the model").into(),
            ));
        }
    }
}

/// `texture {i} {name:?}: {why}; showing a checkerboard`, written piece by
/// piece: through `format!` this one line was a sixteenth of a small
/// file's load, most of it `{:?}` looking at each character of the name.
fn checkerboard_warning(i: usize, name: &str, why: &str) -> String {
    let mut w = String::with_capacity(name.len() + why.len() + 48);
    w.push_str("texture ");
    text::push_int(&mut w, i);
    w.push(' ');
    text::push_quoted(&mut w, name);
    w.push_str(": ");
    w.push_str(why);
    w.push_str("; showing a checkerboard");
    w
}

/// `f` of each stored vertex of `order`, in order.
fn each<T>(order: &[u32], f: impl Fn(u32) -> T) -> Vec<T> {
    order.iter().map(|&i| f(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checkerboard_warning_reads_as_format_writes_it() {
        // std's `{:?}` is the reference for how a name is quoted
        // (text.rs checks the quoting for names that need escapes).
        for name in [
            "/pa/terrain/earth_csg/textures/moon_tile_diffuse.papa",
            "new\nline",
        ] {
            let why = "not found (no folder to look in)";
            assert_eq!(
                checkerboard_warning(7, name, why),
                format!("texture 7 {name:?}: {why}; showing a checkerboard")
            );
        }
    }

    #[test]
    fn the_axis_change_is_the_rotation_of_minus_90_degrees_about_x() {
        let r = Mat4::from_rotation_x(-std::f32::consts::FRAC_PI_2);
        assert!(AXIS.abs_diff_eq(r, 1e-7), "{AXIS}");
        assert_eq!(AXIS * AXIS_INVERSE, Mat4::IDENTITY);
        assert_eq!(Mat4::from_mat3(AXIS3), AXIS);
        assert_eq!(Mat4::from_mat3(AXIS3_INVERSE), AXIS_INVERSE);
        // As `to_scene` moves a point, exactly.
        let v = [1.5, -2.25, 3.125];
        assert_eq!(
            AXIS.transform_point3(Vec3::from(v)),
            Vec3::new(1.5, 3.125, 2.25)
        );
        assert_eq!(to_scene(v), Vec3::new(1.5, 3.125, 2.25));
    }
}
