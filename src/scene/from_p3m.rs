//! P3M -> [`Scene`].
//!
//! P3M is Y-up but mirrored (the exporter swaps Blender's Y and Z), so the
//! scene takes `(x, y, -z)`: a second mirror that restores right-handed space
//! and keeps the exporter's counter-clockwise front faces. UVs are Blender's
//! (origin bottom left) and become `(u, 1 - v)`. See `docs/formats.md`.

use super::companions::{Companions, Found, Lookup};
use super::material_anim::{MatInterp, MatKey, MatLoop, MatTrack};
use super::*;
use crate::formats::ptf::Texels;
use crate::formats::{p3m, ptf};
use glam::Mat3;

pub fn to_scene_space(v: [f32; 3]) -> Vec3 {
    Vec3::new(v[0], v[1], -v[2])
}

fn color(c: &[u8]) -> Vec<f32> {
    c.iter().map(|&b| b as f32 / 255.0).collect()
}

/// Builds the scene. External textures come through `companions`
/// (the engine's resource-path rules); one that cannot be loaded becomes a
/// checkerboard and a warning listing every path tried.
pub fn convert(m: &p3m::P3m, source: SourceInfo, companions: &dyn Companions) -> Scene {
    let mut warnings = Vec::new();
    let bones = bones_of(m, &mut warnings);
    let textures = textures_of(m, companions, &mut warnings);
    let materials = materials_of(m, &mut warnings);
    let meshes = meshes_of(m, &bones, &mut warnings);
    let clips = build_clips(m, &bones, MAX_CLIP_KEYS, &mut warnings);
    Scene {
        source: source_of(m, source),
        meshes,
        materials,
        textures,
        skeleton: Skeleton {
            root_space: Vec::new(),
            bones,
            tails_from_file: true,
        },
        clips,
        user_fields: user_fields_of(m),
        warnings,
        ..Default::default()
    }
}

/// The bones in scene space, each with its rest frame; a warning for each
/// tail the exporter's known bug wrote.
fn bones_of(m: &p3m::P3m, warnings: &mut Vec<String>) -> Vec<Bone> {
    for b in &m.bones {
        // The exporter writes a tail as (tail.x, head.z, head.y): only the
        // X part of the direction survives (`notes/platinumsrc.md`).
        if b.tail[1] == b.head[1] && b.tail[2] == b.head[2] && b.tail[0] != b.head[0] {
            warnings.push(format!(
                "bone {:?}: tail shares the head's Y and Z — a known exporter bug; \
                 the bone points along X only",
                b.name
            ));
        }
    }
    m.bones
        .iter()
        .map(|b| Bone {
            name: b.name.clone(),
            parent: b.parent,
            head: to_scene_space(b.head),
            tail: to_scene_space(b.tail),
            rest: rest_frame(to_scene_space(b.head), to_scene_space(b.tail)),
        })
        .collect()
}

/// The textures, embedded PTFs decoded and external ones found through
/// `companions`; a checkerboard (and a warning) for each that fails.
fn textures_of(
    m: &p3m::P3m,
    companions: &dyn Companions,
    warnings: &mut Vec<String>,
) -> Vec<Texture> {
    m.textures
        .iter()
        .enumerate()
        .map(|(i, t)| match t {
            p3m::Texture::Embedded { ptf: Ok(p), .. } => {
                let name = format!("embedded {i}");
                if p.reduced_from.is_some() {
                    warnings.push(reduced_note(&name, p));
                }
                ptf_texture(&name, p)
            }
            p3m::Texture::Embedded { ptf: Err(e), .. } => {
                let why = e.to_string();
                warnings.push(format!("texture {i}: {why}; showing a checkerboard"));
                Texture::checkerboard(&format!("embedded {i}"), why)
            }
            p3m::Texture::External {
                path,
                written_as_embedded,
            } => {
                if *written_as_embedded {
                    warnings.push(format!(
                        "texture {i} {path:?}: written with the EMBEDDED type byte but holding \
                         a resource path — a known exporter bug; read as an external texture"
                    ));
                }
                load_external(path, companions, warnings).unwrap_or_else(|why| {
                    warnings.push(format!(
                        "texture {i} {path:?}: {why}; showing a checkerboard"
                    ));
                    Texture::checkerboard(path, why)
                })
            }
        })
        .collect()
}

/// The materials: colours, maps, blend mode and keyframe animation.
fn materials_of(m: &p3m::P3m, warnings: &mut Vec<String>) -> Vec<Material> {
    m.materials
        .iter()
        .enumerate()
        .map(|(i, mat)| {
            let c = color(&mat.data.color);
            let e = color(&mat.data.emission);
            Material {
                maps: Default::default(),
                sampling: Default::default(),
                name: format!("material {i}"),
                base_color: [c[0], c[1], c[2], c[3]],
                emission: [e[0], e[1], e[2]],
                shading: mat.data.shading as f32 / 255.0,
                texture: mat.data.texture.map(usize::from),
                matcap: mat.data.matcap.map(usize::from),
                alpha_cutoff: None,
                blend: match mat.render_mode {
                    p3m::RenderMode::Normal => BlendMode::Opaque,
                    p3m::RenderMode::Add => BlendMode::Additive,
                },
                animation: mat
                    .animation
                    .as_ref()
                    .map(|a| build_material_anim(i, a, warnings)),
                properties: Vec::new(),
            }
        })
        .collect()
}

/// A mesh a part: positions and normals in scene space (smooth normals
/// where the part has none), UVs flipped to a top-left origin, the skin
/// and the part's material overrides.
fn meshes_of(m: &p3m::P3m, bones: &[Bone], warnings: &mut Vec<String>) -> Vec<Mesh> {
    m.parts
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
            let skin = build_skin(p, bones, warnings);
            Mesh {
                primitive: Default::default(),
                closed: false,
                facing: Vec::new(),
                faceted: false,
                tangents: None,
                extra_uvs: Vec::new(),
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
                colors: None,
                material_overrides: p
                    .material_overrides
                    .iter()
                    .map(|o| (o.animation.clone(), o.priority, o.material as usize))
                    .collect(),
            }
        })
        .collect()
}

/// The user-defined fields, each value as text.
fn user_fields_of(m: &p3m::P3m) -> Vec<UserField> {
    m.user_fields
        .iter()
        .map(|f| UserField {
            name: f.name.clone(),
            ty: format!("{}{}", f.ty.name(), if f.is_array { "[]" } else { "" }),
            value: f.value_string(),
        })
        .collect()
}

/// `source` with the format and the file's facts (layout, version,
/// actions, animated materials, string table).
fn source_of(m: &p3m::P3m, mut source: SourceInfo) -> SourceInfo {
    source.format = "P3M".into();
    source.details.extend([
        (
            "layout".into(),
            format!("{} ({})", m.layout.name(), m.layout.spec()).into(),
        ),
        (
            "version".into(),
            format!("{}.0 (flags {:#04X})", m.version, m.flags).into(),
        ),
        ("actions".into(), m.actions.len().into()),
        (
            "animated materials".into(),
            m.materials
                .iter()
                .filter(|x| x.animation.is_some())
                .count()
                .into(),
        ),
        (
            "string table".into(),
            format!("{} bytes at {:#X}", m.string_table.1, m.string_table.0).into(),
        ),
    ]);
    source
}

/// Blender's bone frame for a head and tail given in scene space: local +Y
/// along head -> tail, roll 0 (`vec_roll_to_mat3` in Blender's Z-up space,
/// then rotated into the scene's Y-up space).
pub fn rest_frame(head: Vec3, tail: Vec3) -> Mat4 {
    // Scene (x, y, z) is Blender (x, -z, y) rotated: B->S maps X->X, Y->-Z, Z->Y.
    let to_scene = Mat3::from_cols(Vec3::X, -Vec3::Z, Vec3::Y);
    let v = to_scene.transpose() * (tail - head);
    let nor = v.try_normalize().unwrap_or(Vec3::Y);
    let (x, y, z) = (nor.x, nor.y, nor.z);
    // armature.cc: SAFE_THRESHOLD, and CRITICAL_THRESHOLD (2.5e-4) squared,
    // since theta_alt is a squared distance.
    const SAFE: f32 = 6.1e-3;
    const CRITICAL_SQUARED: f32 = 2.5e-4 * 2.5e-4;
    let mut theta = 1.0 + y;
    let theta_alt = x * x + z * z;
    let b = if theta > SAFE || theta_alt > CRITICAL_SQUARED {
        if theta <= SAFE {
            theta = theta_alt * 0.5 + theta_alt * theta_alt * 0.125;
        }
        Mat3::from_cols(
            Vec3::new(1.0 - x * x / theta, -x, -x * z / theta),
            Vec3::new(x, y, z),
            Vec3::new(-x * z / theta, -z, 1.0 - z * z / theta),
        )
    } else {
        // Pointing down -Y: a half turn around Z.
        Mat3::from_diagonal(Vec3::new(-1.0, -1.0, 1.0))
    };
    Mat4::from_mat3_translation(to_scene * b, head)
}

/// One P3M track sampled at frame `f` with P3M rules: a key's interpolation
/// applies to the stretch from the previous key to it; before the first and
/// after the last key their values hold.
fn sample_p3m(
    keys: &[p3m::Key<[f32; 3], p3m::Interp>],
    frames: &[u32],
    f: f32,
    default: Vec3,
) -> Vec3 {
    let Some(first) = keys.first() else {
        return default;
    };
    if f <= frames[0] as f32 {
        return Vec3::from(first.value);
    }
    for k in 1..keys.len() {
        if f < frames[k] as f32 {
            let (a, b) = (Vec3::from(keys[k - 1].value), Vec3::from(keys[k].value));
            return match keys[k].interp {
                p3m::Interp::None => a,
                p3m::Interp::Linear => {
                    let t = (f - frames[k - 1] as f32) / (frames[k] - frames[k - 1]) as f32;
                    a.lerp(b, t)
                }
            };
        }
    }
    Vec3::from(keys[keys.len() - 1].value)
}

/// Keys of one P3M track inside one segment, in clip time: the sampled value
/// at the segment's start, every key strictly inside, the sampled value at
/// its end. Later segments win at shared boundary times.
fn segment_keys(
    keys: &[p3m::Key<[f32; 3], p3m::Interp>],
    (start, end): (u32, u32),
    (t0, spf): (f32, f32),
    default: Vec3,
    out: &mut Vec<clip::Key<Vec3>>,
) {
    let frames: Vec<u32> = p3m::key_frames(keys.iter().map(|k| k.skip)).collect();
    let at = |f: u32| t0 + (f - start) as f32 * spf;
    out.push(clip::Key {
        time: t0,
        value: sample_p3m(keys, &frames, start as f32, default),
        interp: clip::Interp::Step,
    });
    for (k, &f) in frames.iter().enumerate() {
        if f > start && f < end {
            let interp = match keys[k].interp {
                p3m::Interp::None => clip::Interp::Step,
                p3m::Interp::Linear => clip::Interp::Linear,
            };
            out.push(clip::Key {
                time: at(f),
                value: Vec3::from(keys[k].value),
                interp,
            });
        }
    }
    if end > start {
        let interp = match frames.iter().position(|&f| f >= end) {
            Some(k) if k > 0 && keys[k].interp == p3m::Interp::None => clip::Interp::Step,
            _ => clip::Interp::Linear,
        };
        out.push(clip::Key {
            time: at(end),
            value: sample_p3m(keys, &frames, end as f32, default),
            interp,
        });
    }
}

/// What an action's names resolve to in the model, found once for the
/// whole file (255 animations may reference an action 255 times each).
struct ActionNames {
    /// Per bone: the index of the action's first track set for it.
    of_bone: Vec<Option<usize>>,
    /// The parts its part list names.
    parts: Vec<usize>,
    /// Its keys, every track together.
    keys: usize,
}

/// Every action's [`ActionNames`]; the bones and parts it names that the
/// model lacks are ignored, each with a warning.
fn action_names(m: &p3m::P3m, bones: &[Bone], warnings: &mut Vec<String>) -> Vec<ActionNames> {
    let bone_index = |name: &str| bones.iter().position(|b| b.name == name);
    m.actions
        .iter()
        .enumerate()
        .map(|(k, action)| {
            let mut of_bone = vec![None; bones.len()];
            for (j, ab) in action.bones.iter().enumerate() {
                match bone_index(&ab.bone) {
                    Some(i) => {
                        of_bone[i].get_or_insert(j);
                    }
                    None => warnings.push(format!(
                        "action {k} animates unknown bone {:?}; ignored",
                        ab.bone
                    )),
                }
            }
            let parts = action
                .parts
                .iter()
                .filter_map(|n| {
                    let i = m.parts.iter().position(|p| &p.name == n);
                    if i.is_none() {
                        warnings.push(format!("action {k} lists unknown part {n:?}; ignored"));
                    }
                    i
                })
                .collect();
            let keys = action
                .bones
                .iter()
                .map(|b| b.translation.len() + b.rotation.len() + b.scale.len())
                .sum();
            ActionNames {
                of_bone,
                parts,
                keys,
            }
        })
        .collect()
}

/// Every animation as a clip, all of them holding at most `keys_left` keys.
fn build_clips(
    m: &p3m::P3m,
    bones: &[Bone],
    mut keys_left: usize,
    warnings: &mut Vec<String>,
) -> Vec<Clip> {
    let names = action_names(m, bones, warnings);
    m.animations
        .iter()
        .map(|a| build_clip(m, a, bones, &names, &mut keys_left, warnings))
        .collect()
}

/// The most keys a file's clips hold, all animations together (about 0.4
/// GB): each action reference copies the keys of its action's span, and 255
/// animations of 255 references can name one action 65,025 times.
const MAX_CLIP_KEYS: usize = 1 << 24;

/// A P3M animation (a sequence of action references) as one clip, its keys
/// taken from `keys_left` (references past it are left out, with a warning).
fn build_clip(
    m: &p3m::P3m,
    a: &p3m::Animation,
    bones: &[Bone],
    names: &[ActionNames],
    keys_left: &mut usize,
    warnings: &mut Vec<String>,
) -> Clip {
    let mut channels = animated_channels(a, bones.len(), names);
    let mut segments = Vec::new();
    let (mut t0, mut frame0) = (0.0f32, 0u32);
    for (si, r) in a.actions.iter().enumerate() {
        let Some(action) = m.actions.get(r.action as usize) else {
            continue;
        };
        // A speed so near zero that a frame (or the clip so far) lasts
        // longer than an f32 holds cannot play either: its times would be
        // infinite, and 0 frames of it NaN.
        let spf = action.us_per_frame as f32 / 1e6 / r.speed;
        let frames = u32::from(r.end).saturating_sub(u32::from(r.start));
        if !(r.speed.is_finite() && r.speed > 0.0)
            || r.end < r.start
            || !(t0 + frames as f32 * spf).is_finite()
        {
            warnings.push(format!(
                "animation {:?}: action reference {si} (speed {}, frames {}..{}) cannot play; skipped",
                a.name, r.speed, r.start, r.end
            ));
            continue;
        }
        let names = &names[r.action as usize];
        // The most keys this reference adds: its action's keys, and each
        // track's two at the span's ends.
        let most = 6 * channels.len() + names.keys;
        if most > *keys_left {
            warnings.push(format!(
                "animation {:?}: action references from {si} on are left out: the file's clips \
                 would hold more keys than the {} left of {MAX_CLIP_KEYS}",
                a.name, *keys_left
            ));
            break;
        }
        *keys_left -= most;
        let span = (r.start as u32, r.end as u32);
        reference_keys(&mut channels, action, names, span, (t0, spf));
        segments.push(clip::Segment {
            name: format!("action {}", r.action),
            start_s: t0,
            duration_s: frames as f32 * spf,
            frame_s: spf,
            first_frame: frame0,
            frames,
            part_list: Some(clip::PartList {
                mode: part_list_mode(action.part_list_mode),
                parts: names.parts.clone(),
            }),
        });
        t0 += frames as f32 * spf;
        frame0 += frames;
    }
    if segments.is_empty() {
        segments.push(clip::Segment {
            name: "empty".into(),
            start_s: 0.0,
            duration_s: 0.0,
            frame_s: 0.0,
            first_frame: 0,
            frames: 0,
            part_list: None,
        });
    }
    Clip {
        name: a.name.clone(),
        duration_s: t0,
        frames: frame0,
        space: clip::ChannelSpace::RestRelative,
        channels,
        sequence: None,
        segments,
    }
}

/// A channel, empty, for every bone that any action `a` refers to
/// animates, in the bones' order.
fn animated_channels(
    a: &p3m::Animation,
    bones: usize,
    names: &[ActionNames],
) -> Vec<clip::Channel> {
    let mut is_animated = vec![false; bones];
    for n in a
        .actions
        .iter()
        .filter_map(|r| names.get(r.action as usize))
    {
        for (i, ab) in n.of_bone.iter().enumerate() {
            is_animated[i] |= ab.is_some();
        }
    }
    (0..bones)
        .filter(|&i| is_animated[i])
        .map(|bone| clip::Channel {
            bone,
            translation: clip::Track::default(),
            rotation: clip::RotationTrack::EulerZxy(clip::Track::default()),
            scale: clip::Track::default(),
        })
        .collect()
}

/// Adds to each channel the keys of one action reference: `action`'s
/// frames `span` of the channel's bone (rest values where the action does
/// not animate it), placed from `t0`, `spf` seconds a frame.
fn reference_keys(
    channels: &mut [clip::Channel],
    action: &p3m::Action,
    names: &ActionNames,
    span: (u32, u32),
    (t0, spf): (f32, f32),
) {
    for ch in channels {
        let ab = names.of_bone[ch.bone].map(|j| &action.bones[j]);
        let empty = Vec::new();
        let (t, rot, sc) = ab.map_or((&empty, &empty, &empty), |b| {
            (&b.translation, &b.rotation, &b.scale)
        });
        segment_keys(t, span, (t0, spf), Vec3::ZERO, &mut ch.translation.keys);
        if let clip::RotationTrack::EulerZxy(tr) = &mut ch.rotation {
            segment_keys(rot, span, (t0, spf), Vec3::ZERO, &mut tr.keys);
        }
        segment_keys(sc, span, (t0, spf), Vec3::ONE, &mut ch.scale.keys);
    }
}

fn part_list_mode(mode: p3m::PartListMode) -> clip::PartListMode {
    match mode {
        p3m::PartListMode::DefaultWhite => clip::PartListMode::DefaultWhite,
        p3m::PartListMode::DefaultBlack => clip::PartListMode::DefaultBlack,
        p3m::PartListMode::White => clip::PartListMode::White,
        p3m::PartListMode::Black => clip::PartListMode::Black,
    }
}

/// Keeps the four largest influences of each vertex and renormalises them.
fn build_skin(p: &p3m::Part, bones: &[Bone], warnings: &mut Vec<String>) -> Option<Skin> {
    if p.weight_groups.is_empty() {
        return None;
    }
    // Influences as integer shares, weight byte + 1 (the weight is
    // (b + 1) / 256): the four largest of a vertex, ties in group order,
    // each its share of their sum in exact integers.
    let n = p.positions.len();
    let mut infl: Vec<[(u16, u16); 4]> = vec![[(0, 0); 4]; n];
    for g in &p.weight_groups {
        let Some(bone) = bones.iter().position(|b| b.name == g.bone) else {
            warnings.push(format!(
                "part {:?}: weight group names unknown bone {:?}; ignored",
                p.name, g.bone
            ));
            continue;
        };
        for (v, b) in g.bytes() {
            let Some(list) = infl.get_mut(v) else {
                continue;
            };
            super::insert_influence(list, bone as u16, b as u16 + 1);
        }
    }
    let (joints, weights) = infl
        .iter()
        .map(|list| (list.map(|x| x.0), super::share_weights(list.map(|x| x.1))))
        .unzip();
    Some(Skin { joints, weights })
}

fn load_external(
    path: &str,
    companions: &dyn Companions,
    warnings: &mut Vec<String>,
) -> Result<Texture, String> {
    let Found { path: found, bytes } = companions
        .find(Lookup::PlatinumResource(path))
        .map_err(|m| m.to_string())?;
    let mut t = super::companions::decode_texels(
        companions,
        |texels| texture_from_bytes(path, &bytes, texels, warnings),
        Texture::rgba8_len,
    )
    .map_err(|e| format!("{}: {e}", found.display()))?;
    t.source = TextureSource::External(found);
    Ok(t)
}

/// A decoded PTF as a scene texture (sRGB; the format names the generation).
pub fn ptf_texture(name: &str, p: &ptf::Ptf) -> Texture {
    ptf_texture_with(name, p, p.to_rgba8())
}

/// As [`ptf_texture`] with the texels taken from `pixels` (moved, not
/// copied, when they are RGBA already).
pub fn ptf_texture_from(name: &str, p: &ptf::Ptf, pixels: Vec<u8>) -> Texture {
    let rgba8 = if p.format == ptf::PtfFormat::Rgba {
        pixels
    } else {
        ptf::expand_rgba8(p.format, &pixels)
    };
    ptf_texture_with(name, p, rgba8)
}

fn ptf_texture_with(name: &str, p: &ptf::Ptf, rgba8: Vec<u8>) -> Texture {
    Texture {
        name: name.into(),
        width: p.width,
        height: p.height,
        rgba8,
        source: TextureSource::Embedded,
        format: format!(
            "PTF {} {}x{} ({} generation){}",
            p.format.name(),
            p.width,
            p.height,
            p.layout.generation(),
            p.reduced_from
                .map_or(String::new(), |(w, h)| format!(", declared {w}x{h}"))
        ),
        srgb: true,
        compressed: None,
    }
}

/// The warning for a PTF decoded smaller than it declares.
pub fn reduced_note(name: &str, p: &ptf::Ptf) -> String {
    let declared = p.reduced_from.unwrap_or((p.width, p.height));
    let what = format!("PTF {}", p.format.name());
    super::images::reduced_warning(name, &what, declared, (p.width, p.height))
}

/// A texture file the engine can load: PTF (any generation), else PNG, JPEG,
/// TGA or BMP by their contents (`image`'s decoders), decoded as `texels`
/// says; one decoded smaller than it declares adds a warning.
pub fn texture_from_bytes(
    name: &str,
    bytes: &[u8],
    texels: Texels,
    warnings: &mut Vec<String>,
) -> Result<Texture, String> {
    if bytes.starts_with(b"PTF") {
        let mut p = ptf::decode_with(bytes, texels).map_err(|e| e.to_string())?;
        if p.reduced_from.is_some() {
            warnings.push(reduced_note(name, &p));
        }
        let pixels = std::mem::take(&mut p.pixels);
        return Ok(ptf_texture_from(name, &p, pixels));
    }
    // TGA has no magic: guess the others by contents, TGA last.
    let format = image::guess_format(bytes).unwrap_or(image::ImageFormat::Tga);
    let img = decode_image(bytes, format, texels)?;
    if let Some(declared) = img.declared {
        let what = format!("{format:?}");
        warnings.push(super::images::reduced_warning(
            name,
            &what,
            declared,
            (img.width, img.height),
        ));
    }
    Ok(Texture {
        name: name.into(),
        width: img.width,
        height: img.height,
        format: format!(
            "{} {}x{}{}",
            format
                .extensions_str()
                .first()
                .unwrap_or(&"image")
                .to_uppercase(),
            img.width,
            img.height,
            img.declared_note()
        ),
        rgba8: img.rgba8,
        source: TextureSource::Embedded,
        srgb: true,
        compressed: None,
    })
}

fn mat_interp(i: p3m::ColorInterp) -> MatInterp {
    match i {
        p3m::ColorInterp::None => MatInterp::Step,
        p3m::ColorInterp::LinearRgb => MatInterp::Linear,
        p3m::ColorInterp::LinearHsv => MatInterp::Hsv,
        p3m::ColorInterp::LinearOklch => MatInterp::Oklch,
    }
}

/// One track: frames from the skips, values converted by `f`. Keys after the
/// last frame can never show and are dropped with a warning.
fn mat_track<T, I: Copy, U>(
    what: &str,
    material: usize,
    last_frame: u32,
    keys: &[p3m::Key<T, I>],
    interp: impl Fn(I) -> MatInterp,
    f: impl Fn(&T) -> U,
    warnings: &mut Vec<String>,
) -> MatTrack<U> {
    let frames: Vec<u32> = p3m::key_frames(keys.iter().map(|k| k.skip)).collect();
    let shown = frames.iter().take_while(|&&f| f <= last_frame).count();
    if shown < keys.len() {
        warnings.push(format!(
            "material {material}: {} of {} {what} keyframes lie after the last frame ({last_frame}) and never show",
            keys.len() - shown,
            keys.len()
        ));
    }
    MatTrack {
        keys: keys[..shown]
            .iter()
            .zip(frames)
            .map(|(k, frame)| MatKey {
                frame,
                interp: interp(k.interp),
                value: f(&k.value),
            })
            .collect(),
    }
}

/// P3M material keyframes in scene terms; see `docs/formats.md`.
fn build_material_anim(
    i: usize,
    a: &p3m::MaterialAnimation,
    warnings: &mut Vec<String>,
) -> MaterialAnim {
    let lf = a.last_frame as u32;
    if a.us_per_frame == 0 {
        warnings.push(format!(
            "material {i}: 0 microseconds per frame; the animation stays at frame 0"
        ));
    }
    let index = |t: &u8| (*t != p3m::NONE_INDEX).then_some(*t as usize);
    let stepped = |_: ()| MatInterp::Step;
    // File UVs have V up; scene UVs have V down. A scroll that is not a
    // finite number would smear NaN over the texture: it does not scroll.
    let mut flip = |what: &str, [u, v]: [f32; 2]| {
        if u.is_finite() && v.is_finite() {
            [u, 0.0 - v] // (not -v: no -0 for 0)
        } else {
            warnings.push(format!(
                "material {i}: {what} scroll ({u}, {v}) is not a finite number; not scrolling"
            ));
            [0.0; 2]
        }
    };
    let texture_scroll = flip("texture", a.texture_scroll);
    let matcap_scroll = flip("matcap", a.matcap_scroll);
    MaterialAnim {
        seconds_per_frame: a.us_per_frame as f32 * 1e-6,
        last_frame: lf,
        loop_mode: match a.loop_mode {
            p3m::MatLoop::None => MatLoop::Hold,
            p3m::MatLoop::Loop => MatLoop::Loop,
            p3m::MatLoop::Cont => MatLoop::Continue,
        },
        preserve_scroll: a.preserve_texture_scroll,
        texture_scroll,
        matcap_scroll,
        color: mat_track(
            "color",
            i,
            lf,
            &a.color,
            mat_interp,
            |c| {
                let c = color(c);
                [c[0], c[1], c[2], c[3]]
            },
            warnings,
        ),
        emission: mat_track(
            "emission",
            i,
            lf,
            &a.emission,
            mat_interp,
            |c| {
                let c = color(c);
                [c[0], c[1], c[2]]
            },
            warnings,
        ),
        shading: mat_track(
            "shading",
            i,
            lf,
            &a.shading,
            |m| match m {
                p3m::Interp::None => MatInterp::Step,
                p3m::Interp::Linear => MatInterp::Linear,
            },
            |s| *s as f32 / 255.0,
            warnings,
        ),
        texture: mat_track("texture", i, lf, &a.texture, stepped, index, warnings),
        matcap: mat_track("matcap", i, lf, &a.matcap, stepped, index, warnings),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each action reference copies its action's span of keys, and 255
    /// animations of 255 references can name one action 65,025 times. One
    /// action of 10 keys a track on one bone, referenced 4 times by each of
    /// 3 animations: a reference takes at most 10 x 3 + 6 = 36 keys. With
    /// 100 keys left, the first two references fit and the third does not;
    /// the later animations get none, each saying so.
    #[test]
    fn action_references_stop_at_the_key_budget() {
        let mut m = p3m::decode(include_bytes!("../../assets/demo.p3m")).unwrap();
        let key = |v: f32| p3m::Key {
            skip: 1,
            interp: p3m::Interp::Linear,
            value: [v; 3],
        };
        let track: Vec<_> = (0..10).map(|k| key(k as f32)).collect();
        m.actions.truncate(1);
        m.actions[0].bones = vec![p3m::ActionBone {
            bone: "root".into(),
            translation: track.clone(),
            rotation: track.clone(),
            scale: track,
        }];
        let reference = p3m::AnimationAction {
            action: 0,
            speed: 1.0,
            start: 0,
            end: 10,
        };
        m.animations = (0..3)
            .map(|i| p3m::Animation {
                name: format!("a{i}"),
                actions: vec![reference; 4],
            })
            .collect();
        let bones = vec![Bone {
            name: "root".into(),
            parent: None,
            head: Vec3::ZERO,
            tail: Vec3::Y,
            rest: Mat4::IDENTITY,
        }];
        let mut warnings = Vec::new();
        let clips = build_clips(&m, &bones, 100, &mut warnings);
        assert_eq!(clips[0].segments.len(), 2);
        assert_eq!(clips[1].segments[0].name, "empty");
        assert_eq!(
            warnings,
            [
                "animation \"a0\": action references from 2 on are left out: the file's clips would hold more keys than the 28 left of 16777216",
                "animation \"a1\": action references from 0 on are left out: the file's clips would hold more keys than the 28 left of 16777216",
                "animation \"a2\": action references from 0 on are left out: the file's clips would hold more keys than the 28 left of 16777216",
            ]
        );
        let keys: usize = clips
            .iter()
            .flat_map(|c| &c.channels)
            .map(|ch| match &ch.rotation {
                clip::RotationTrack::EulerZxy(r) => {
                    ch.translation.keys.len() + r.keys.len() + ch.scale.keys.len()
                }
                clip::RotationTrack::Quat(r) => {
                    ch.translation.keys.len() + r.keys.len() + ch.scale.keys.len()
                }
            })
            .sum();
        assert!(keys <= 100 - 28, "{keys} keys");
    }
}
