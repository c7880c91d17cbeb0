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
//! for, a material animation's texture switches...).
//!
//! The file is put together by a `Writer` in rooms: `materials.rs`
//! (materials and PNG textures), `nodes.rs` (skeleton, parts, a map's
//! sectors and entities, the skin), `animation.rs` (clips and material
//! animations), `blob.rs` (the binary buffer and its accessors).

mod animation;
mod blob;
mod materials;
mod nodes;

use crate::scene::{Sampling, Scene, Wrap};
use blob::Blob;
use glam::Mat4;
use serde_json::{Value, json};

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
            for (_, b) in &mut seq.bones {
                b.pos *= s;
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
    match scene.unit_in_metres() {
        Some(s) if s != 1.0 => export_scene(&in_metres(scene, s), options),
        _ => export_scene(scene, options),
    }
}

/// An export being put together: the scene, the binary buffer, and the
/// glTF arrays as they grow.
struct Writer<'a> {
    scene: &'a Scene,
    options: Options,
    blob: Blob,
    dropped: Vec<String>,
    images: Vec<Value>,
    /// Each image's PNG bytes, in `images` order.
    pngs: Vec<Vec<u8>>,
    textures: Vec<Value>,
    /// Scene texture -> glTF image, once written.
    image_of: Vec<Option<usize>>,
    /// (Scene texture, how it is sampled) -> glTF texture, once written.
    texture_of: Vec<((usize, Sampling), usize)>,
    /// Each glTF sampler's way of sampling, in `samplers` order.
    samplers: Vec<Sampling>,
    materials: Vec<Value>,
    /// Scene materials with keyframe animation.
    material_anims: Vec<usize>,
    /// Scene lightmap texture -> its map material.
    lightmap_materials: Vec<(usize, usize)>,
    nodes: Vec<Value>,
    /// The scene's root nodes.
    roots: Vec<usize>,
    meshes: Vec<Value>,
    /// Scene part -> its node.
    node_of_mesh: Vec<Option<usize>>,
    skins: Vec<Value>,
    animations: Vec<Value>,
    extensions_used: Vec<&'static str>,
    /// How far the worst bone matrix is from a translation-rotation-scale.
    shear: f32,
}

fn export_scene(scene: &Scene, options: Options) -> Result<Export, String> {
    let mut w = Writer {
        scene,
        options,
        blob: Blob::default(),
        dropped: Vec::new(),
        images: Vec::new(),
        pngs: Vec::new(),
        textures: Vec::new(),
        image_of: vec![None; scene.textures.len()],
        texture_of: Vec::new(),
        samplers: Vec::new(),
        materials: Vec::new(),
        material_anims: Vec::new(),
        lightmap_materials: Vec::new(),
        nodes: Vec::new(),
        roots: Vec::new(),
        meshes: Vec::new(),
        node_of_mesh: vec![None; scene.meshes.len()],
        skins: Vec::new(),
        animations: Vec::new(),
        extensions_used: Vec::new(),
        shear: 0.0,
    };
    w.materials();
    let armature = w.skeleton_nodes();
    let parts = w.parts();
    w.skin(armature, &parts);
    w.clip_animations();
    w.material_animations();
    Ok(w.finish())
}

impl Writer<'_> {
    /// The top-level properties (all but the buffer, its views and
    /// accessors, which [`Export`] adds as it is written).
    fn finish(mut self) -> Export {
        if self.shear > 1e-5 {
            self.dropped.push(format!(
                "skeleton: bone matrices that shear (m3d.h builds them from unnormalised quaternions as stored); \
                 glTF holds the nearest translation, rotation and scale (largest difference {:.1e})",
                self.shear
            ));
        }
        if !self.scene.labels.is_empty() {
            self.dropped
                .push(format!("{} labels", self.scene.labels.len()));
        }
        let mut root = json!({
            "asset": {"version": "2.0", "generator": concat!("Facet ", env!("CARGO_PKG_VERSION"))},
            "scene": 0,
            "scenes": [{"name": self.scene.source.file_name}],
            "nodes": self.nodes,
            "meshes": self.meshes,
            "materials": self.materials,
        });
        if !self.textures.is_empty() {
            root["textures"] = json!(self.textures);
            root["images"] = json!(self.images);
            root["samplers"] = self.samplers.iter().map(|s| sampler_json(*s)).collect();
        }
        if !self.skins.is_empty() {
            root["skins"] = json!(self.skins);
        }
        if !self.animations.is_empty() {
            root["animations"] = json!(self.animations);
        }
        self.extensions_used.sort_unstable();
        self.extensions_used.dedup();
        if !self.extensions_used.is_empty() {
            root["extensionsUsed"] = json!(self.extensions_used);
        }
        if self.roots.is_empty() {
            // Nothing to show (an M3D of curves only): a scene needs nodes.
            let o = root.as_object_mut().expect("an object");
            o.remove("scene");
            o.remove("scenes");
        } else {
            root["scenes"][0]["nodes"] = json!(self.roots);
        }
        for key in ["nodes", "meshes", "materials"] {
            if root[key].as_array().is_some_and(|a| a.is_empty()) {
                root.as_object_mut().map(|o| o.remove(key));
            }
        }
        let not_finite = self.blob.not_finite + zero_non_finite(&mut root);
        if not_finite > 0 {
            self.dropped.push(format!(
                "{not_finite} values that are not finite numbers (NaN or infinite: a damaged file's), written as 0 (a rotation as the identity)"
            ));
        }
        Export {
            root,
            blob: self.blob,
            pngs: self.pngs,
            dropped: self.dropped,
        }
    }
}

/// Every null in `v` set to 0, and how many there were: `json!` writes a
/// NaN or infinite float as null, where glTF wants a number (a material
/// factor of a damaged file). The export writes no null of its own.
fn zero_non_finite(v: &mut Value) -> usize {
    match v {
        Value::Null => {
            *v = json!(0.0);
            1
        }
        Value::Array(a) => a.iter_mut().map(zero_non_finite).sum(),
        Value::Object(o) => o.values_mut().map(zero_non_finite).sum(),
        _ => 0,
    }
}

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
            // None where the buffer holds only images: glTF allows no
            // empty arrays.
            if !blob.accessors.is_empty() {
                root["accessors"] = json!(blob.accessors);
            }
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

/// A glTF sampler (§5.26) for a way of sampling: linear filtering with
/// linear mips, or nearest; REPEAT, CLAMP_TO_EDGE or MIRRORED_REPEAT.
fn sampler_json(s: Sampling) -> Value {
    let wrap = |w: Wrap| match w {
        Wrap::Repeat => 10497,
        Wrap::Clamp => 33071,
        Wrap::Mirror => 33648,
    };
    json!({
        "magFilter": if s.nearest_mag { 9728 } else { 9729 },
        "minFilter": if s.nearest_min { 9728 } else { 9987 },
        "wrapS": wrap(s.wrap[0]),
        "wrapT": wrap(s.wrap[1]),
    })
}
