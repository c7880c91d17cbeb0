//! Scene -> glTF 2.0 binary (`.glb`): what the viewer shows, in a form
//! Blender, Godot and three.js open.
//!
//! - One node per part (its name kept), one mesh of one primitive each
//!   (triangles, lines or points as drawn); parts hidden by default are
//!   exported with `"extras": {"hidden": true}`.
//! - Materials as metallic-roughness (metallic 0, roughness 1): base colour
//!   and emission converted from the scene's sRGB to glTF's linear factors,
//!   the diffuse texture, an RGB normal map and an emission map; `BLEND`
//!   for alpha-blended and additive materials; double-sided, as the viewer
//!   draws. Textures as PNG, named as in the source.
//! - Vertex colours as linear `COLOR_0` (unsigned short), normals, UVs.
//! - The skeleton as joint nodes (rest transforms relative to the parent),
//!   a skin whose inverse bind matrices are the inverse rest matrices;
//!   vertices no bone moves are bound to one extra static joint.
//! - Every clip as an animation: each bone's local translation, rotation
//!   and scale sampled at the clip's own frames (`Clip::time_of_frame`), or
//!   at 30 per second where a clip has no frames, and interpolated
//!   linearly; a bone whose samples all equal its rest transform gets no
//!   channel.
//!
//! What cannot go is listed in [`Export::dropped`] (maps glTF has no slot
//! for, material animation, per-action part visibility...).

use crate::anim::Pose;
use crate::anim::color::srgb_to_linear;
use crate::scene::clip::{Channel, ChannelSpace, Interp, Key, RotationTrack};
use crate::scene::{BlendMode, Clip, NormalMap, Primitive, Scene, Texture};
use glam::{Mat4, Quat, Vec3};
use serde_json::{Value, json};

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_INT: u32 = 5125;
const UNSIGNED_SHORT: u32 = 5123;

/// Samples per clip at most (a clip of more frames is sampled evenly).
const MAX_SAMPLES: usize = 100_000;

/// A finished export, written as one `.glb` ([`Export::glb`]) or as a
/// `.gltf` with its `.bin` and PNG images beside it
/// ([`Export::gltf_files`]).
pub struct Export {
    /// Every top-level property but the buffer, its views and accessors.
    root: Value,
    blob: Blob,
    /// Each image's PNG bytes, in `images` order.
    pngs: Vec<Vec<u8>>,
    /// What the scene holds that the file does not, one line each.
    pub dropped: Vec<String>,
}

/// The binary buffer with its views and accessors.
#[derive(Default, Clone)]
struct Blob {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Blob {
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut v = json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    /// An accessor over `bytes` in a view of its own.
    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &mut self,
        bytes: &[u8],
        target: Option<u32>,
        component: u32,
        count: usize,
        ty: &str,
        normalized: bool,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> usize {
        let view = self.view(bytes, target);
        let mut a =
            json!({"bufferView": view, "componentType": component, "count": count, "type": ty});
        if normalized {
            a["normalized"] = json!(true);
        }
        if let Some((min, max)) = bounds {
            a["min"] = json!(min);
            a["max"] = json!(max);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    fn vec3(&mut self, v: &[Vec3], with_bounds: bool) -> usize {
        let bounds = with_bounds.then(|| {
            let (lo, hi) = v.iter().fold(
                (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
                |(lo, hi), p| (lo.min(*p), hi.max(*p)),
            );
            (lo.to_array().to_vec(), hi.to_array().to_vec())
        });
        self.accessor(
            bytemuck::cast_slice(v),
            Some(ARRAY_BUFFER),
            FLOAT,
            v.len(),
            "VEC3",
            false,
            bounds,
        )
    }

    fn floats(&mut self, v: &[f32], with_bounds: bool) -> usize {
        let bounds = with_bounds.then(|| {
            let lo = v.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (vec![lo], vec![hi])
        });
        self.accessor(
            bytemuck::cast_slice(v),
            None,
            FLOAT,
            v.len(),
            "SCALAR",
            false,
            bounds,
        )
    }
}

/// sRGB to linear, clamped into 0..=1.
fn linear(c: f32) -> f32 {
    srgb_to_linear(c.clamp(0.0, 1.0))
}

fn png(t: &Texture) -> Result<Vec<u8>, String> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(&t.rgba8, t.width, t.height, image::ExtendedColorType::Rgba8)
        .map_err(|e| format!("texture {:?}: PNG encoding: {e}", t.name))?;
    Ok(out)
}

/// Samples a second between the keys of an M3D frame sequence: m3d.h
/// blends rotations with its own approximation of slerp, which glTF's
/// slerp between keys alone would miss by up to about 1e-3 of a model.
const SEQUENCE_RATE: f32 = 120.0;

/// A sample: the time written to the file, and the time the pose is
/// evaluated at.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Sample {
    at: f32,
    eval: f32,
}

/// How long before each key of an M3D frame sequence a sample holds the
/// pose reached just before it (m3d.h may jump at a key: after the last
/// one it holds a pose the blend towards it never reached).
const BEFORE_KEY: f32 = 5e-5;

/// The times a clip is sampled at: its frames, else 30 a second; for an
/// M3D frame sequence its keys (each also just before), and
/// `SEQUENCE_RATE` a second between them.
fn sample_times(clip: &Clip) -> Vec<Sample> {
    let d = clip.duration_s.max(0.0);
    let uniform = |rate: f32| {
        let n = ((d * rate).ceil() as usize).clamp(1, MAX_SAMPLES);
        (0..=n).map(move |k| d * k as f32 / n as f32)
    };
    let Some(seq) = &clip.sequence else {
        let mut times: Vec<f32> = if clip.frames > 0 {
            let n = (clip.frames as usize).min(MAX_SAMPLES);
            (0..=n)
                .map(|k| clip.time_of_frame((k as u64 * clip.frames as u64 / n as u64) as u32))
                .collect()
        } else {
            uniform(30.0).collect()
        };
        // glTF wants strictly increasing times; times a tenth of a
        // millisecond apart are one (f32 sums of frame lengths drift).
        times.dedup_by(|b, a| *b <= *a + 1e-4);
        if let Some(last) = times.last_mut()
            && (*last - d).abs() <= 1e-4
        {
            *last = d;
        }
        return times
            .into_iter()
            .map(|t| Sample { at: t, eval: t })
            .collect();
    };
    // A frame sequence is evaluated two microseconds after each time: at a
    // key's exact millisecond m3d.h builds the matrix from the quaternion
    // as stored (not unit length: it shears), just after it from its
    // unit-length blend. It loops: its end is where it starts again, so the
    // last sample is the pose just before.
    let after = |t: f32| (t + 2e-6).min(d - 1e-5).max(0.0);
    let keys: Vec<f32> = seq
        .frames
        .iter()
        .map(|f| f.msec as f32 / 1000.0)
        .filter(|&k| k > 0.0 && k < d)
        .take(MAX_SAMPLES / 2)
        .collect();
    let near_key = |t: f32| keys.iter().any(|&k| (t - k).abs() < 4.0 * BEFORE_KEY);
    let mut samples: Vec<Sample> = uniform(SEQUENCE_RATE)
        .filter(|&t| !near_key(t))
        .map(|t| Sample {
            at: t,
            eval: after(t),
        })
        .collect();
    for &k in &keys {
        samples.push(Sample {
            at: k - BEFORE_KEY,
            eval: k - BEFORE_KEY,
        });
        samples.push(Sample {
            at: k,
            eval: after(k),
        });
    }
    samples.sort_by(|a, b| a.at.total_cmp(&b.at));
    samples.dedup_by(|b, a| b.at <= a.at);
    samples
}

/// A node property an animation channel drives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Path {
    Translation,
    Rotation,
    Scale,
}

impl Path {
    fn name(self) -> &'static str {
        match self {
            Path::Translation => "translation",
            Path::Rotation => "rotation",
            Path::Scale => "scale",
        }
    }
}

/// A channel's keys as glTF writes them.
struct OwnKeys {
    times: Vec<f32>,
    /// 3 or 4 floats a key.
    values: Vec<f32>,
    interpolation: &'static str,
}

/// One track of `ch` as its own keys, when glTF's sampler reproduces the
/// viewer between them: keys in increasing time, all reached the same way
/// (linear or step), rotations as quaternions (Euler angles are blended
/// per angle, which no quaternion sampler does), and the node's value a
/// fixed map of the key: the key itself for local channels; for channels
/// inside the rest frame (`rest_local * T * R * S`) the rest transform
/// applied, which keeps linear blends linear when the rest has no
/// non-uniform scale. Else `None`: the track is sampled.
fn own_keys(space: ChannelSpace, ch: &Channel, rest_local: Mat4, path: Path) -> Option<OwnKeys> {
    fn interpolation<T>(keys: &[Key<T>]) -> Option<&'static str> {
        if keys.is_empty()
            || keys
                .windows(2)
                .any(|w| w[1].time.partial_cmp(&w[0].time) != Some(std::cmp::Ordering::Greater))
        {
            return None;
        }
        let first = keys.get(1).map_or(Interp::Linear, |k| k.interp);
        if keys.iter().skip(1).any(|k| k.interp != first) {
            return None;
        }
        Some(match first {
            Interp::Linear => "LINEAR",
            Interp::Step => "STEP",
        })
    }
    let (rs, rr, _) = rest_local.to_scale_rotation_translation();
    let uniform = (rs.x - rs.y).abs() < 1e-5 && (rs.y - rs.z).abs() < 1e-5;
    let rest_relative = space == ChannelSpace::RestRelative;
    if rest_relative && !uniform && path != Path::Translation {
        return None;
    }
    let vec3 = |keys: &[Key<Vec3>], map: &dyn Fn(Vec3) -> Vec3| -> Option<OwnKeys> {
        Some(OwnKeys {
            interpolation: interpolation(keys)?,
            times: keys.iter().map(|k| k.time).collect(),
            values: keys.iter().flat_map(|k| map(k.value).to_array()).collect(),
        })
    };
    match path {
        Path::Translation if rest_relative => {
            vec3(&ch.translation.keys, &|t| rest_local.transform_point3(t))
        }
        Path::Translation => vec3(&ch.translation.keys, &|t| t),
        Path::Scale if rest_relative => vec3(&ch.scale.keys, &|s| rs * s),
        Path::Scale => vec3(&ch.scale.keys, &|s| s),
        Path::Rotation => {
            let RotationTrack::Quat(track) = &ch.rotation else {
                return None;
            };
            let keys = &track.keys;
            let interpolation = interpolation(keys)?;
            let mut values = Vec::with_capacity(keys.len() * 4);
            let mut prev: Option<Quat> = None;
            for k in keys {
                let mut q = if rest_relative { rr * k.value } else { k.value }.normalize();
                // Successive keys in one hemisphere: the same rotations,
                // and the short way round in every reading of slerp.
                if prev.is_some_and(|p| p.dot(q) < 0.0) {
                    q = -q;
                }
                prev = Some(q);
                values.extend(q.to_array());
            }
            Some(OwnKeys {
                times: keys.iter().map(|k| k.time).collect(),
                values,
                interpolation,
            })
        }
    }
}

/// A map part's material: its lightmap as the emissive texture on the
/// second UV set, base colour black, so any glTF viewer shows the light the
/// map baked, whatever lights it has of its own.
fn map_material(lightmap: &str, texture: usize) -> Value {
    json!({
        "name": format!("lightmap {lightmap}"),
        "pbrMetallicRoughness": {
            "baseColorFactor": [0.0, 0.0, 0.0, 1.0],
            "metallicFactor": 0.0,
            "roughnessFactor": 1.0,
        },
        "emissiveTexture": {"index": texture, "texCoord": 1},
        "emissiveFactor": [1.0, 1.0, 1.0],
        "doubleSided": true,
    })
}

/// How far `m` is from the transform its decomposition rebuilds (0 for a
/// translation-rotation-scale; more where it shears).
fn trs_error(m: Mat4, s: Vec3, r: Quat, t: Vec3) -> f32 {
    let back = Mat4::from_scale_rotation_translation(s, r.normalize(), t);
    m.to_cols_array()
        .iter()
        .zip(back.to_cols_array())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max)
}

/// Choices an export leaves to its user.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Material colour and emission animation as `KHR_animation_pointer`
    /// channels. Off by default: readers that do not know the extension
    /// refuse the whole file (a channel without a target node; the `gltf`
    /// crate, and so Bevy, among them); the sampled values are always in
    /// the material's `extras.facet_material_animation`.
    pub animation_pointer: bool,
}

/// The scene as glTF, with the default [`Options`].
pub fn export(scene: &Scene) -> Result<Export, String> {
    export_with(scene, Options::default())
}

/// `scene` in metres: every length times `s` (positions, bone rests and
/// heads, animated translations, labels). A uniform scale commutes with
/// rotations and scales, so each local transform `T R S` becomes
/// `(s T) R S` and poses stay the same shapes, `s` times larger.
pub fn in_metres(scene: &Scene, s: f32) -> Scene {
    let mut out = scene.clone();
    let scale_m = |m: &mut Mat4| m.w_axis = (m.w_axis.truncate() * s).extend(m.w_axis.w);
    for mesh in &mut out.meshes {
        for p in &mut mesh.positions {
            *p *= s;
        }
    }
    for b in &mut out.skeleton.bones {
        b.head *= s;
        b.tail *= s;
        scale_m(&mut b.rest);
    }
    for (_, m) in &mut out.skeleton.root_space {
        scale_m(m);
    }
    for clip in &mut out.clips {
        for ch in &mut clip.channels {
            for k in &mut ch.translation.keys {
                k.value *= s;
            }
        }
        if let Some(seq) = &mut clip.sequence {
            for b in &mut seq.bind {
                b.pos *= s;
            }
            for f in &mut seq.frames {
                for (_, b) in &mut f.bones {
                    b.pos *= s;
                }
            }
        }
    }
    for l in &mut out.labels {
        l.position *= s;
    }
    out.metres_per_unit = Some(1.0);
    out
}

/// The scene as glTF (in metres where the scene knows its unit).
pub fn export_with(scene: &Scene, options: Options) -> Result<Export, String> {
    match scene.metres_per_unit {
        Some(s) if s.is_finite() && s > 0.0 && s != 1.0 => {
            export_scene(&in_metres(scene, s), options)
        }
        _ => export_scene(scene, options),
    }
}

fn export_scene(scene: &Scene, options: Options) -> Result<Export, String> {
    let mut blob = Blob::default();
    let mut dropped = Vec::new();
    let skeleton = &scene.skeleton;
    let bones = skeleton.bones.len();

    // Textures: one PNG image per scene texture a material uses.
    let mut images: Vec<Value> = Vec::new();
    let mut pngs: Vec<Vec<u8>> = Vec::new();
    let mut textures: Vec<Value> = Vec::new();
    let mut texture_of: Vec<Option<usize>> = vec![None; scene.textures.len()];
    let mut texture = |i: usize, dropped: &mut Vec<String>| -> Option<usize> {
        if let Some(t) = texture_of.get(i).copied().flatten() {
            return Some(t);
        }
        let t = scene.textures.get(i)?;
        if t.rgba8.len() != (t.width as usize) * (t.height as usize) * 4 || t.width == 0 {
            dropped.push(format!("texture {:?}: no decoded texels to write", t.name));
            return None;
        }
        let bytes = match png(t) {
            Ok(b) => b,
            Err(e) => {
                dropped.push(e);
                return None;
            }
        };
        pngs.push(bytes);
        images.push(json!({"name": t.name, "mimeType": "image/png"}));
        textures.push(json!({"source": images.len() - 1, "sampler": 0, "name": t.name}));
        texture_of[i] = Some(textures.len() - 1);
        Some(textures.len() - 1)
    };

    // Materials, one per scene material.
    let mut materials = Vec::new();
    let mut material_anims: Vec<usize> = Vec::new();
    for m in &scene.materials {
        let c = m.base_color;
        let mut pbr = json!({
            "baseColorFactor": [linear(c[0]), linear(c[1]), linear(c[2]), c[3].clamp(0.0, 1.0)],
            "metallicFactor": 0.0,
            "roughnessFactor": 1.0,
        });
        if let Some(t) = m.texture.and_then(|t| texture(t, &mut dropped)) {
            pbr["baseColorTexture"] = json!({"index": t});
        }
        let mut out = json!({
            "name": m.name,
            "pbrMetallicRoughness": pbr,
            "doubleSided": true,
        });
        let e = m.emission;
        if e.iter().any(|&x| x > 0.0) {
            out["emissiveFactor"] = json!([linear(e[0]), linear(e[1]), linear(e[2])]);
        }
        if let Some(t) = m.maps.emission.and_then(|t| texture(t, &mut dropped)) {
            out["emissiveTexture"] = json!({"index": t});
            if e.iter().all(|&x| x <= 0.0) {
                out["emissiveFactor"] = json!([1.0, 1.0, 1.0]);
            }
        }
        match m.maps.normal {
            Some((t, NormalMap::Rgb)) => {
                if let Some(t) = texture(t, &mut dropped) {
                    out["normalTexture"] = json!({"index": t});
                }
            }
            Some((_, kind)) => dropped.push(format!(
                "material {:?}: its {kind:?} normal map (glTF takes RGB tangent-space normals)",
                m.name
            )),
            None => {}
        }
        match m.blend {
            BlendMode::Opaque => {}
            BlendMode::Alpha => out["alphaMode"] = json!("BLEND"),
            BlendMode::Additive => {
                out["alphaMode"] = json!("BLEND");
                dropped.push(format!(
                    "material {:?}: additive blending (exported as alpha blending)",
                    m.name
                ));
            }
        }
        if m.maps.team_mask.is_some() || m.maps.material.is_some() {
            dropped.push(format!(
                "material {:?}: team-colour mask and material (specular, gloss, glow) maps",
                m.name
            ));
        }
        if m.matcap.is_some() {
            dropped.push(format!("material {:?}: matcap", m.name));
        }
        if let Some(a) = &m.animation {
            // Colour and emission go out as KHR_animation_pointer channels
            // (below); the rest of the animation as a documented extra.
            let texture_keys: Vec<Value> = a
                .texture
                .keys
                .iter()
                .map(|k| json!({"frame": k.frame, "texture": k.value.and_then(|t| texture(t, &mut dropped))}))
                .collect();
            out["extras"] = json!({"facet_material_animation": {
                "seconds_per_frame": a.seconds_per_frame,
                "last_frame": a.last_frame,
                "loop": format!("{:?}", a.loop_mode),
                "texture_scroll_uv_per_s": a.texture_scroll,
                "texture_keys": texture_keys,
            }});
            material_anims.push(materials.len());
            if !a.texture.keys.is_empty() || a.texture_scroll != [0.0; 2] {
                dropped.push(format!(
                    "material {:?}: texture switches and scrolling (kept in extras.facet_material_animation)",
                    m.name
                ));
            }
        }
        materials.push(out);
    }

    // Joint nodes first (node i is bone i), then one node per part.
    let mut nodes: Vec<Value> = Vec::new();
    for (i, b) in skeleton.bones.iter().enumerate() {
        let (s, r, t) = skeleton.rest_local(i).to_scale_rotation_translation();
        let children: Vec<usize> = (0..bones)
            .filter(|&c| skeleton.bones[c].parent == Some(i))
            .collect();
        let mut n = json!({
            "name": b.name,
            "translation": t.to_array(),
            "rotation": r.normalize().to_array(),
            "scale": s.to_array(),
        });
        if !children.is_empty() {
            n["children"] = json!(children);
        }
        nodes.push(n);
    }
    // One root node above the root bones: a skin's joints need a common
    // root, and a file may have several root bones.
    let skeleton_roots: Vec<usize> = (0..bones)
        .filter(|&i| skeleton.bones[i].parent.is_none_or(|p| p >= i))
        .collect();
    let mut roots = Vec::new();
    let armature = (bones > 0).then(|| {
        nodes.push(json!({"name": "skeleton", "children": skeleton_roots}));
        roots.push(nodes.len() - 1);
        nodes.len() - 1
    });

    // Meshes. Skinned ones share one skin; vertices without weight are
    // bound to a static joint added at the end.
    let mut meshes = Vec::new();
    let mut static_joint: Option<usize> = None;
    // A map's parts: each a node under its sector's node, its lightmap the
    // emissive texture on a second UV set (see `map_material`).
    let map = scene.map.as_deref();
    let mut sector_parts: Vec<Vec<usize>> =
        vec![Vec::new(); map.map_or(0, |m| m.map.sectors.len())];
    let mut lightmap_material: Vec<(usize, usize)> = Vec::new();
    let mut node_of_mesh: Vec<Option<usize>> = vec![None; scene.meshes.len()];
    let mut skinned_nodes = Vec::new();
    for (mi, mesh) in scene.meshes.iter().enumerate() {
        if mesh.positions.is_empty() {
            dropped.push(format!("part {:?}: no vertices", mesh.name));
            continue;
        }
        let map_part = map.and_then(|m| m.mesh_source.get(mi)).copied();
        let mut attributes = serde_json::Map::new();
        attributes.insert("POSITION".into(), json!(blob.vec3(&mesh.positions, true)));
        if mesh.normals.len() == mesh.positions.len() {
            let unit: Vec<Vec3> = mesh
                .normals
                .iter()
                .map(|n| n.normalize_or(Vec3::Y))
                .collect();
            attributes.insert("NORMAL".into(), json!(blob.vec3(&unit, false)));
        }
        if mesh.uvs.len() == mesh.positions.len() {
            let a = blob.accessor(
                bytemuck::cast_slice(&mesh.uvs),
                Some(ARRAY_BUFFER),
                FLOAT,
                mesh.uvs.len(),
                "VEC2",
                false,
                None,
            );
            attributes.insert("TEXCOORD_0".into(), json!(a));
            if map_part.is_some() {
                // A map's UVs are its lightmap's: the second set, as glTF
                // viewers expect of baked light.
                attributes.insert("TEXCOORD_1".into(), json!(a));
            }
        }
        if let Some(colors) = mesh
            .colors
            .as_ref()
            .filter(|c| c.len() == mesh.positions.len() && map_part.is_none())
        {
            let linear16: Vec<u16> = colors
                .iter()
                .flat_map(|c| {
                    let ch = |k: usize, lin: bool| {
                        let v = c[k] as f32 / 255.0;
                        ((if lin { linear(v) } else { v }) * 65535.0).round() as u16
                    };
                    [ch(0, true), ch(1, true), ch(2, true), ch(3, false)]
                })
                .collect();
            let a = blob.accessor(
                bytemuck::cast_slice(&linear16),
                Some(ARRAY_BUFFER),
                UNSIGNED_SHORT,
                colors.len(),
                "VEC4",
                true,
                None,
            );
            attributes.insert("COLOR_0".into(), json!(a));
        }
        if !mesh.extra_uvs.is_empty() {
            dropped.push(format!(
                "part {:?}: {} further UV sets",
                mesh.name,
                mesh.extra_uvs.len()
            ));
        }
        let skin = mesh
            .skin
            .as_ref()
            .filter(|s| bones > 0 && s.joints.len() == mesh.positions.len());
        if let Some(s) = skin {
            let mut joints = Vec::with_capacity(s.joints.len());
            let mut weights = Vec::with_capacity(s.weights.len());
            for (j, w) in s.joints.iter().zip(&s.weights) {
                let sum: f32 = w.iter().sum();
                if sum <= 0.0 || j.iter().any(|&b| b as usize >= bones) {
                    let k = *static_joint.get_or_insert(bones);
                    joints.push([k as u16, 0, 0, 0]);
                    weights.push([1.0f32, 0.0, 0.0, 0.0]);
                } else {
                    // Unused slots point at joint 0 with weight 0.
                    joints.push(std::array::from_fn::<u16, 4, _>(|k| {
                        if w[k] > 0.0 { j[k] } else { 0 }
                    }));
                    weights.push(w.map(|x| x / sum));
                }
            }
            let a = blob.accessor(
                bytemuck::cast_slice(&joints),
                Some(ARRAY_BUFFER),
                UNSIGNED_SHORT,
                joints.len(),
                "VEC4",
                false,
                None,
            );
            attributes.insert("JOINTS_0".into(), json!(a));
            let a = blob.accessor(
                bytemuck::cast_slice(&weights),
                Some(ARRAY_BUFFER),
                FLOAT,
                weights.len(),
                "VEC4",
                false,
                None,
            );
            attributes.insert("WEIGHTS_0".into(), json!(a));
        }
        let mut primitive = json!({"attributes": attributes});
        if !mesh.indices.is_empty() {
            let a = blob.accessor(
                bytemuck::cast_slice(&mesh.indices),
                Some(ELEMENT_ARRAY_BUFFER),
                UNSIGNED_INT,
                mesh.indices.len(),
                "SCALAR",
                false,
                None,
            );
            primitive["indices"] = json!(a);
        }
        primitive["mode"] = json!(match mesh.primitive {
            Primitive::Points => 0,
            Primitive::Lines => 1,
            Primitive::Triangles => 4,
        });
        let lightmap = map_part
            .and(mesh.material)
            .and_then(|m| scene.materials.get(m))
            .and_then(|m| m.texture);
        if let Some(lm) = lightmap {
            let m = match lightmap_material.iter().find(|(t, _)| *t == lm) {
                Some(&(_, m)) => Some(m),
                None => texture(lm, &mut dropped).map(|t| {
                    materials.push(map_material(&scene.textures[lm].name, t));
                    lightmap_material.push((lm, materials.len() - 1));
                    materials.len() - 1
                }),
            };
            if let Some(m) = m {
                primitive["material"] = json!(m);
            }
        } else if let Some(m) = mesh.material.filter(|&m| m < materials.len()) {
            primitive["material"] = json!(m);
        }
        meshes.push(json!({"name": mesh.name, "primitives": [primitive]}));
        let mut node = json!({"name": mesh.name, "mesh": meshes.len() - 1});
        if !mesh.visible {
            node["extras"] = json!({"hidden": true});
        }
        if skin.is_some() {
            node["skin"] = json!(0);
            skinned_nodes.push(mi);
        }
        if !mesh.material_overrides.is_empty() {
            let overrides: Vec<Value> = mesh
                .material_overrides
                .iter()
                .map(|(clip, priority, m)| json!({"clip": clip, "priority": priority, "material": m}))
                .collect();
            if node.get("extras").is_none() {
                node["extras"] = json!({});
            }
            node["extras"]["material_overrides"] = json!(overrides);
        }
        node_of_mesh[mi] = Some(nodes.len());
        nodes.push(node);
        match map_part {
            Some((sector, _)) if sector < sector_parts.len() => {
                sector_parts[sector].push(nodes.len() - 1)
            }
            _ => roots.push(nodes.len() - 1),
        }
    }
    if let Some(info) = map {
        for (i, parts) in sector_parts.into_iter().enumerate() {
            if parts.is_empty() {
                continue;
            }
            let [x, y, z] = info.map.sector_coords(i);
            nodes.push(json!({"name": format!("sector {i} ({x}, {y}, {z})"), "children": parts}));
            roots.push(nodes.len() - 1);
        }
        // Entities: named empty nodes, their fields in extras (the scene
        // keeps them as text, with no place of their own).
        let entities: Vec<usize> = info
            .map
            .entities
            .iter()
            .map(|e| {
                let fields: serde_json::Map<String, Value> = e
                    .fields
                    .iter()
                    .map(|(k, v)| (k.clone(), json!(v)))
                    .collect();
                nodes.push(json!({
                    "name": e.name,
                    "extras": {
                        "kind": e.kind,
                        "difficulties": e.difficulties,
                        "gamemodes": e.gamemodes,
                        "fields": fields,
                    },
                }));
                nodes.len() - 1
            })
            .collect();
        if !entities.is_empty() {
            nodes.push(json!({"name": "entities", "children": entities}));
            roots.push(nodes.len() - 1);
        }
        dropped.push(
            "map: the material tints (a viewer aid; the lightmaps are the emissive textures)"
                .into(),
        );
    }

    // The skin: every bone (and the static joint when used).
    let mut skins = Vec::new();
    if !skinned_nodes.is_empty() {
        // Inverse bind matrices from the joints' own rest transforms as
        // written (translation, rotation, scale), so the rest pose skins to
        // the mesh exactly even where a bone's matrix shears (below).
        let mut global = vec![Mat4::IDENTITY; bones];
        for (i, b) in skeleton.bones.iter().enumerate() {
            let (s, r, t) = skeleton.rest_local(i).to_scale_rotation_translation();
            let local = Mat4::from_scale_rotation_translation(s, r.normalize(), t);
            global[i] = match b.parent {
                Some(p) if p < i => global[p] * local,
                _ => local,
            };
        }
        // glTF requires the last row exactly (0, 0, 0, 1).
        let affine = |mut m: Mat4| {
            m.x_axis.w = 0.0;
            m.y_axis.w = 0.0;
            m.z_axis.w = 0.0;
            m.w_axis.w = 1.0;
            m
        };
        let mut inverse: Vec<Mat4> = global.iter().map(|g| affine(g.inverse())).collect();
        let mut joints: Vec<usize> = (0..bones).collect();
        if let (Some(_), Some(armature)) = (static_joint, armature) {
            // Joint index `bones` of the skin, under the skeleton's root.
            nodes.push(json!({"name": "(vertices no bone moves)"}));
            let i = nodes.len() - 1;
            if let Some(children) = nodes[armature]["children"].as_array_mut() {
                children.push(json!(i));
            }
            joints.push(i);
            inverse.push(Mat4::IDENTITY);
        }
        let ibm = blob.accessor(
            bytemuck::cast_slice(&inverse),
            None,
            FLOAT,
            inverse.len(),
            "MAT4",
            false,
            None,
        );
        skins.push(json!({"joints": joints, "inverseBindMatrices": ibm}));
    }

    // Animations: each bone's local TRS sampled at the clip's frames.
    let mut animations = Vec::new();
    let mut shear = (0..bones)
        .map(|i| {
            let m = skeleton.rest_local(i);
            let (s, r, t) = m.to_scale_rotation_translation();
            trs_error(m, s, r, t)
        })
        .fold(0.0f32, f32::max);
    if bones > 0 {
        let mut pose = Pose::new(skeleton);
        for clip in &scene.clips {
            let times = sample_times(clip);
            let n = times.len();
            let mut trs = vec![
                (
                    Vec::with_capacity(n),
                    Vec::with_capacity(n),
                    Vec::with_capacity(n)
                );
                bones
            ];
            for s in &times {
                pose.evaluate(skeleton, Some(clip), s.eval);
                for (i, out) in trs.iter_mut().enumerate() {
                    let (s, r, p) = pose.local[i].to_scale_rotation_translation();
                    shear = shear.max(trs_error(pose.local[i], s, r, p));
                    let mut r = r.normalize();
                    // Keep successive rotations in one hemisphere.
                    if let Some(prev) = out.1.last()
                        && Quat::dot(*prev, r) < 0.0
                    {
                        r = -r;
                    }
                    out.0.push(p);
                    out.1.push(r);
                    out.2.push(s);
                }
            }
            let at: Vec<f32> = times.iter().map(|s| s.at).collect();
            let input = blob.floats(&at, true);
            let mut samplers = Vec::new();
            let mut channels = Vec::new();
            for (i, (ts, rs, ss)) in trs.iter().enumerate() {
                let rest_local = skeleton.rest_local(i);
                let (rest_s, rest_r, rest_t) = rest_local.to_scale_rotation_translation();
                // The source's own keys where glTF's interpolation gives
                // what the viewer does between them.
                let source = clip.channels.iter().find(|c| c.bone == i);
                let mut own = |path: Path, blob: &mut Blob| -> bool {
                    let Some(k) = source.and_then(|c| own_keys(clip.space, c, rest_local, path))
                    else {
                        return false;
                    };
                    let input = blob.floats(&k.times, true);
                    let (ty, comps) = if path == Path::Rotation {
                        ("VEC4", 4)
                    } else {
                        ("VEC3", 3)
                    };
                    let output = blob.accessor(
                        bytemuck::cast_slice(&k.values),
                        None,
                        FLOAT,
                        k.values.len() / comps,
                        ty,
                        false,
                        None,
                    );
                    samplers.push(
                        json!({"input": input, "output": output, "interpolation": k.interpolation}),
                    );
                    channels.push(json!({"sampler": samplers.len() - 1, "target": {"node": i, "path": path.name()}}));
                    true
                };
                let keyed =
                    [Path::Translation, Path::Rotation, Path::Scale].map(|p| own(p, &mut blob));
                let still_v = |v: &[Vec3], rest: Vec3| v.iter().all(|x| x.abs_diff_eq(rest, 1e-6));
                let still_q = |v: &[Quat], rest: Quat| {
                    v.iter().all(|x| x.dot(rest.normalize()).abs() > 1.0 - 1e-7)
                };
                let mut add = |path: &str, bytes: &[u8], ty: &str, blob: &mut Blob| {
                    let output = blob.accessor(bytes, None, FLOAT, n, ty, false, None);
                    samplers
                        .push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
                    channels.push(
                        json!({"sampler": samplers.len() - 1, "target": {"node": i, "path": path}}),
                    );
                };
                if !keyed[0] && !still_v(ts, rest_t) {
                    add("translation", bytemuck::cast_slice(ts), "VEC3", &mut blob);
                }
                if !keyed[1] && !still_q(rs, rest_r) {
                    add("rotation", bytemuck::cast_slice(rs), "VEC4", &mut blob);
                }
                if !keyed[2] && !still_v(ss, rest_s) {
                    add("scale", bytemuck::cast_slice(ss), "VEC3", &mut blob);
                }
            }
            let part_lists: Vec<Value> = clip
                .segments
                .iter()
                .filter_map(|s| {
                    let l = s.part_list.as_ref()?;
                    Some(json!({
                        "segment": s.name,
                        "start_s": s.start_s,
                        "duration_s": s.duration_s,
                        "mode": format!("{:?}", l.mode),
                        "nodes": l.parts.iter().filter_map(|&p| node_of_mesh.get(p).copied().flatten()).collect::<Vec<_>>(),
                    }))
                })
                .collect();
            if channels.is_empty() {
                dropped.push(format!("clip {:?}: moves no bone", clip.name));
                continue;
            }
            let mut animation =
                json!({"name": clip.name, "samplers": samplers, "channels": channels});
            if !part_lists.is_empty() {
                animation["extras"] = json!({"part_lists": part_lists});
            }
            animations.push(animation);
        }
    } else if !scene.clips.is_empty() {
        dropped.push(format!(
            "{} clips: the file has no skeleton",
            scene.clips.len()
        ));
    }
    if shear > 1e-5 {
        dropped.push(format!(
            "skeleton: bone matrices that shear (m3d.h builds them from unnormalised quaternions as stored); \
             glTF holds the nearest translation, rotation and scale (largest difference {shear:.1e})"
        ));
    }
    if !scene.labels.is_empty() {
        dropped.push(format!("{} labels", scene.labels.len()));
    }

    let mut extensions_used: Vec<&str> = Vec::new();
    let mut root = json!({
        "asset": {"version": "2.0", "generator": concat!("Facet ", env!("CARGO_PKG_VERSION"))},
        "scene": 0,
        "scenes": [{"name": scene.source.file_name}],
        "nodes": nodes,
        "meshes": meshes,
        "materials": materials,
    });
    if !textures.is_empty() {
        root["textures"] = json!(textures);
        root["images"] = json!(images);
        root["samplers"] =
            json!([{"magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497}]);
    }
    if !skins.is_empty() {
        root["skins"] = json!(skins);
    }
    // Material colour and emission animations, sampled at their frames
    // (one cycle), through KHR_animation_pointer.
    for &mi in &material_anims {
        let m = &scene.materials[mi];
        let Some(a) = &m.animation else { continue };
        let frames = a.last_frame.min(MAX_SAMPLES as u32);
        if a.seconds_per_frame <= 0.0 || frames == 0 {
            continue;
        }
        let end = frames as f32 * a.seconds_per_frame;
        let times: Vec<f32> = (0..=frames)
            .map(|f| f as f32 * a.seconds_per_frame)
            .collect();
        let states: Vec<_> = times
            .iter()
            .map(|&t| crate::anim::material::evaluate(m, t.min(end - 1e-4).max(0.0)))
            .collect();
        // Baked into the material's extras always.
        let baked = &mut root["materials"][mi]["extras"]["facet_material_animation"];
        baked["times_s"] = json!(times);
        if !a.color.keys.is_empty() {
            baked["base_color_linear"] = json!(
                states
                    .iter()
                    .map(|s| [
                        linear(s.color[0]),
                        linear(s.color[1]),
                        linear(s.color[2]),
                        s.color[3].clamp(0.0, 1.0)
                    ])
                    .collect::<Vec<_>>()
            );
        }
        if !a.emission.keys.is_empty() {
            baked["emission_linear"] = json!(
                states
                    .iter()
                    .map(|s| [
                        linear(s.emission[0]),
                        linear(s.emission[1]),
                        linear(s.emission[2])
                    ])
                    .collect::<Vec<_>>()
            );
        }
        if !options.animation_pointer {
            dropped.push(format!(
                "material {:?}: colour animation as channels (baked into extras.facet_material_animation; \
                 convert --animation-pointer writes KHR_animation_pointer channels)",
                m.name
            ));
            continue;
        }
        let input = blob.floats(&times, true);
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        let mut pointer = |path: String, values: Vec<f32>, ty: &str, blob: &mut Blob| {
            let output = blob.accessor(
                bytemuck::cast_slice(&values),
                None,
                FLOAT,
                times.len(),
                ty,
                false,
                None,
            );
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
            channels.push(json!({
                "sampler": samplers.len() - 1,
                "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": path}}},
            }));
        };
        if !a.color.keys.is_empty() {
            let v = states
                .iter()
                .flat_map(|s| {
                    [
                        linear(s.color[0]),
                        linear(s.color[1]),
                        linear(s.color[2]),
                        s.color[3].clamp(0.0, 1.0),
                    ]
                })
                .collect();
            pointer(
                format!("/materials/{mi}/pbrMetallicRoughness/baseColorFactor"),
                v,
                "VEC4",
                &mut blob,
            );
        }
        if !a.emission.keys.is_empty() {
            let v = states
                .iter()
                .flat_map(|s| {
                    [
                        linear(s.emission[0]),
                        linear(s.emission[1]),
                        linear(s.emission[2]),
                    ]
                })
                .collect();
            pointer(
                format!("/materials/{mi}/emissiveFactor"),
                v,
                "VEC3",
                &mut blob,
            );
            if root["materials"][mi].get("emissiveFactor").is_none() {
                root["materials"][mi]["emissiveFactor"] = json!([0.0, 0.0, 0.0]);
            }
        }
        if !channels.is_empty() {
            animations.push(json!({"name": format!("material {}", m.name), "samplers": samplers, "channels": channels}));
            extensions_used.push("KHR_animation_pointer");
        }
    }
    if !animations.is_empty() {
        root["animations"] = json!(animations);
    }
    extensions_used.dedup();
    if !extensions_used.is_empty() {
        root["extensionsUsed"] = json!(extensions_used);
    }
    if roots.is_empty() {
        // Nothing to show (an M3D of curves only): a scene needs nodes.
        let o = root.as_object_mut().expect("an object");
        o.remove("scene");
        o.remove("scenes");
    } else {
        root["scenes"][0]["nodes"] = json!(roots);
    }
    for key in ["nodes", "meshes", "materials"] {
        if root[key].as_array().is_some_and(|a| a.is_empty()) {
            root.as_object_mut().map(|o| o.remove(key));
        }
    }
    Ok(Export {
        root,
        blob,
        pngs,
        dropped,
    })
}

impl Export {
    /// The root with the buffer, its views and accessors; `uri` names the
    /// buffer's file (none: the GLB's own BIN chunk).
    fn finish(mut root: Value, blob: Blob, uri: Option<&str>) -> (Value, Vec<u8>) {
        if !blob.bin.is_empty() {
            let mut buffer = json!({"byteLength": blob.bin.len()});
            if let Some(uri) = uri {
                buffer["uri"] = json!(uri);
            }
            root["buffers"] = json!([buffer]);
            root["bufferViews"] = json!(blob.views);
            root["accessors"] = json!(blob.accessors);
        }
        (root, blob.bin)
    }

    /// The `.glb` file: images in the binary chunk.
    pub fn glb(&self) -> Vec<u8> {
        let mut root = self.root.clone();
        let mut blob = self.blob.clone();
        for (i, png) in self.pngs.iter().enumerate() {
            root["images"][i]["bufferView"] = json!(blob.view(png, None));
        }
        let (root, bin) = Self::finish(root, blob, None);
        glb(&root, &bin)
    }

    /// Writes the export to `path`: a `.glb`, or a `.gltf` with its `.bin`
    /// and PNGs beside it. Returns the files written.
    pub fn write(&self, path: &std::path::Path) -> Result<Vec<std::path::PathBuf>, String> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let files = match ext.as_deref() {
            Some("glb") => vec![(path.to_path_buf(), self.glb())],
            Some("gltf") => {
                let dir = path.parent().unwrap_or(std::path::Path::new(""));
                let stem = path
                    .file_stem()
                    .map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
                self.gltf_files(&stem)
                    .into_iter()
                    .map(|(name, bytes)| (dir.join(name), bytes))
                    .collect()
            }
            _ => {
                return Err(format!(
                    "{}: the name must end in .glb (binary) or .gltf (with .bin and PNGs beside it)",
                    path.display()
                ));
            }
        };
        for (p, bytes) in &files {
            std::fs::write(p, bytes).map_err(|e| format!("{}: cannot write: {e}", p.display()))?;
        }
        Ok(files.into_iter().map(|(p, _)| p).collect())
    }

    /// `STEM.gltf`, `STEM.bin` and one PNG per image (`STEM_N_NAME.png`),
    /// as (file name, bytes).
    pub fn gltf_files(&self, stem: &str) -> Vec<(String, Vec<u8>)> {
        let mut root = self.root.clone();
        let mut files = Vec::new();
        for (i, png) in self.pngs.iter().enumerate() {
            let name: String = root["images"][i]["name"]
                .as_str()
                .unwrap_or("")
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(48)
                .collect();
            let file = format!("{stem}_{i}_{name}.png");
            root["images"][i]["uri"] = json!(file);
            files.push((file, png.clone()));
        }
        let bin_name = format!("{stem}.bin");
        let (root, bin) = Self::finish(root, self.blob.clone(), Some(&bin_name));
        let text = serde_json::to_vec_pretty(&root).expect("JSON values serialise");
        files.insert(0, (format!("{stem}.gltf"), text));
        if !bin.is_empty() {
            files.insert(1, (bin_name, bin));
        }
        files
    }
}

/// The GLB container: a 12-byte header, the JSON chunk (padded with
/// spaces) and the BIN chunk (padded with zeros), each 4-byte aligned.
fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).expect("JSON values serialise");
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + text.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let mut out = Vec::with_capacity(total);
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((text.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(text);
    if !bin.is_empty() {
        out.extend((bin.len() as u32).to_le_bytes());
        out.extend(b"BIN\0");
        out.extend(bin);
    }
    out
}
