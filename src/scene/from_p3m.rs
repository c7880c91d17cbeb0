//! P3M -> [`Scene`].
//!
//! P3M is Y-up but mirrored (the exporter swaps Blender's Y and Z), so the
//! scene takes `(x, y, -z)`: a second mirror that restores right-handed space
//! and keeps the exporter's counter-clockwise front faces. UVs are Blender's
//! (origin bottom left) and become `(u, 1 - v)`. See `docs/formats.md`.

use super::*;
use crate::formats::{p3m, ptf};
use std::path::Path;

pub fn to_scene_space(v: [f32; 3]) -> Vec3 {
    Vec3::new(v[0], v[1], -v[2])
}

fn color(c: &[u8]) -> Vec<f32> {
    c.iter().map(|&b| b as f32 / 255.0).collect()
}

/// Builds the scene. External textures are looked up relative to `base_dir`;
/// one that cannot be loaded becomes a checkerboard and a warning.
pub fn convert(m: &p3m::P3m, source: SourceInfo, base_dir: Option<&Path>) -> Scene {
    let mut warnings = Vec::new();

    let bones: Vec<Bone> = m
        .bones
        .iter()
        .map(|b| Bone {
            name: b.name.clone(),
            parent: b.parent,
            head: to_scene_space(b.head),
            tail: to_scene_space(b.tail),
        })
        .collect();

    let textures: Vec<Texture> = m
        .textures
        .iter()
        .enumerate()
        .map(|(i, t)| match t {
            p3m::Texture::Embedded { ptf: Ok(p), .. } => Texture {
                name: format!("embedded {i}"),
                width: p.width,
                height: p.height,
                rgba8: p.to_rgba8(),
                source: TextureSource::Embedded,
                format: format!("PTF {} {}x{}", p.format.name(), p.width, p.height),
            },
            p3m::Texture::Embedded { ptf: Err(e), .. } => {
                let why = e.to_string();
                warnings.push(format!("texture {i}: {why}; showing a checkerboard"));
                Texture::checkerboard(&format!("embedded {i}"), why)
            }
            p3m::Texture::External { path } => match load_external(path, base_dir) {
                Ok(t) => t,
                Err(why) => {
                    warnings.push(format!(
                        "texture {i} {path:?}: {why}; showing a checkerboard"
                    ));
                    Texture::checkerboard(path, why)
                }
            },
        })
        .collect();

    let materials: Vec<Material> = m
        .materials
        .iter()
        .enumerate()
        .map(|(i, mat)| {
            let c = color(&mat.data.color);
            let e = color(&mat.data.emission);
            Material {
                name: format!("material {i}"),
                base_color: [c[0], c[1], c[2], c[3]],
                emission: [e[0], e[1], e[2]],
                shading: mat.data.shading as f32 / 255.0,
                texture: mat.data.texture.map(usize::from),
                matcap: mat.data.matcap.map(usize::from),
                blend: match mat.render_mode {
                    p3m::RenderMode::Normal => BlendMode::Opaque,
                    p3m::RenderMode::Add => BlendMode::Additive,
                },
                animated: mat.animation.is_some(),
            }
        })
        .collect();

    let meshes = m
        .parts
        .iter()
        .map(|p| {
            let positions: Vec<Vec3> = p.positions.iter().map(|&v| to_scene_space(v)).collect();
            let indices: Vec<u32> = p.indices.iter().map(|&i| i as u32).collect();
            let normals = match &p.normals {
                Some(n) => n
                    .iter()
                    .map(|&v| to_scene_space(v).try_normalize().unwrap_or(Vec3::Y))
                    .collect(),
                None => smooth_normals(&positions, &indices),
            };
            let uvs = match &p.uvs {
                Some(uv) => uv.iter().map(|&[u, v]| Vec2::new(u, 1.0 - v)).collect(),
                None => vec![Vec2::ZERO; positions.len()],
            };
            let skin = build_skin(p, &bones, &mut warnings);
            Mesh {
                name: p.name.clone(),
                positions,
                normals,
                uvs,
                indices,
                material: (p.material != p3m::NONE_INDEX).then_some(p.material as usize),
                visible: p.visible,
                has_file_normals: p.normals.is_some(),
                has_file_uvs: p.uvs.is_some(),
                skin,
                material_overrides: p
                    .material_overrides
                    .iter()
                    .map(|o| (o.animation.clone(), o.priority, o.material as usize))
                    .collect(),
            }
        })
        .collect();

    let clips = m
        .animations
        .iter()
        .map(|a| {
            let mut frames = 0u32;
            let mut duration_s = 0.0f32;
            for r in &a.actions {
                let n = r.end.saturating_sub(r.start) as u32;
                let us = m
                    .actions
                    .get(r.action as usize)
                    .map_or(0, |x| x.us_per_frame);
                frames += n;
                if r.speed > 0.0 {
                    duration_s += n as f32 * us as f32 / 1e6 / r.speed;
                }
            }
            Clip {
                name: a.name.clone(),
                duration_s,
                frames,
            }
        })
        .collect();

    let user_fields = m
        .user_fields
        .iter()
        .map(|f| UserField {
            name: f.name.clone(),
            ty: format!("{}{}", f.ty.name(), if f.is_array { "[]" } else { "" }),
            value: f.value_string(),
        })
        .collect();

    let mut source = source;
    source.format = "P3M".into();
    source.details.extend([
        (
            "version".into(),
            format!("{}.0 (flags {:#04X})", m.version, m.flags),
        ),
        ("actions".into(), m.actions.len().to_string()),
        (
            "animated materials".into(),
            m.materials
                .iter()
                .filter(|x| x.animation.is_some())
                .count()
                .to_string(),
        ),
        (
            "string table".into(),
            format!("{} bytes at {:#X}", m.string_table.1, m.string_table.0),
        ),
    ]);

    Scene {
        source,
        meshes,
        materials,
        textures,
        skeleton: Skeleton { bones },
        clips,
        user_fields,
        warnings,
    }
}

/// Keeps the four largest influences of each vertex and renormalises them.
fn build_skin(p: &p3m::Part, bones: &[Bone], warnings: &mut Vec<String>) -> Option<Skin> {
    if p.weight_groups.is_empty() {
        return None;
    }
    let n = p.positions.len();
    let mut infl: Vec<Vec<(u16, f32)>> = vec![Vec::new(); n];
    for g in &p.weight_groups {
        let Some(bone) = bones.iter().position(|b| b.name == g.bone) else {
            warnings.push(format!(
                "part {:?}: weight group names unknown bone {:?}; ignored",
                p.name, g.bone
            ));
            continue;
        };
        for (v, w) in g.iter() {
            if v < n {
                infl[v].push((bone as u16, w));
            }
        }
    }
    let mut skin = Skin {
        joints: Vec::with_capacity(n),
        weights: Vec::with_capacity(n),
    };
    for mut list in infl {
        list.sort_by(|a, b| b.1.total_cmp(&a.1));
        list.truncate(4);
        let sum: f32 = list.iter().map(|x| x.1).sum();
        let mut j = [0u16; 4];
        let mut w = [0f32; 4];
        for (k, &(b, wt)) in list.iter().enumerate() {
            j[k] = b;
            w[k] = if sum > 0.0 { wt / sum } else { 0.0 };
        }
        skin.joints.push(j);
        skin.weights.push(w);
    }
    Some(skin)
}

fn load_external(path: &str, base_dir: Option<&Path>) -> Result<Texture, String> {
    let base = base_dir.ok_or("no folder to resolve it in")?;
    let rel = Path::new(path);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        // Still allowed, but resolved as written.
    }
    let candidates = [
        base.join(rel),
        base.join(format!("{path}.ptf")),
        base.join(format!("{path}.png")),
    ];
    let Some(found) = candidates.iter().find(|p| p.is_file()) else {
        return Err(format!(
            "not found next to the model (looked for {})",
            candidates[0].display()
        ));
    };
    let bytes = std::fs::read(found).map_err(|e| format!("{}: {e}", found.display()))?;
    if bytes.starts_with(b"PTF") {
        let p = ptf::decode(&bytes).map_err(|e| format!("{}: {e}", found.display()))?;
        return Ok(Texture {
            name: path.into(),
            width: p.width,
            height: p.height,
            rgba8: p.to_rgba8(),
            source: TextureSource::External(found.clone()),
            format: format!("PTF {} {}x{}", p.format.name(), p.width, p.height),
        });
    }
    let img = image::load_from_memory(&bytes).map_err(|e| format!("{}: {e}", found.display()))?;
    let rgba = img.to_rgba8();
    Ok(Texture {
        name: path.into(),
        width: rgba.width(),
        height: rgba.height(),
        format: format!("image {}x{}", rgba.width(), rgba.height()),
        rgba8: rgba.into_raw(),
        source: TextureSource::External(found.clone()),
    })
}
