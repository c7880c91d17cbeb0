//! Opening an animation papa on its own, as Planetary Annihilation ships
//! every animation (`<unit>_anim_<name>.papa`, `notes/papa.md` §12): find the
//! model it animates and play it there, or show the animated skeleton alone.
//!
//! The model is `<unit>.papa` beside the animation; else the first model
//! papa (by name) in the animation's folder, then in its parent, whose
//! skeleton has every bone the animation names.

use super::resolver::DiskResolver;
use super::{LoadError, Loaded, Raw, load_bytes_inner, remove_clip};
use crate::formats::papa::{self, Papa};
use crate::scene::{self, Added, Detail, RestBones, Scene, SourceInfo};
use glam::Mat4;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The model found for an animation, and how.
struct FoundModel {
    path: PathBuf,
    bytes: Vec<u8>,
    how: String,
}

/// The bone names every animation of the file names.
fn bone_names(p: &Papa) -> BTreeSet<&str> {
    p.animations
        .iter()
        .flat_map(|a| a.bones.iter().map(String::as_str))
        .collect()
}

/// The header says "a model with a skeleton": counts at 8..26 are strings,
/// textures, vertex buffers, index buffers, materials, meshes, skeletons,
/// models, animations (u16 each).
fn is_model_header(h: &[u8]) -> bool {
    let count = |k: usize| {
        h.get(8 + 2 * k..10 + 2 * k)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]))
    };
    h.starts_with(papa::MAGIC) && count(6) > 0 && count(7) > 0
}

fn read_model_candidate(path: &Path) -> Option<Vec<u8>> {
    super::resolver::read_if(path, 26, &is_model_header)
}

/// How many of `names` the model's skeletons lack (`None`: not a model).
fn missing_bones(bytes: &[u8], names: &BTreeSet<&str>) -> Option<usize> {
    let m = papa::decode(bytes).ok()?;
    let have: BTreeSet<&str> = m
        .skeletons
        .iter()
        .flat_map(|s| s.bones.iter().map(|b| b.name.as_str()))
        .collect();
    (!have.is_empty()).then(|| names.iter().filter(|n| !have.contains(*n)).count())
}

fn find_model(anim_path: &Path, names: &BTreeSet<&str>) -> Result<FoundModel, Vec<PathBuf>> {
    let mut looked = Vec::new();
    let Some(dir) = anim_path.parent() else {
        return Err(looked);
    };
    let file = anim_path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    // 1. `<unit>.papa` beside `<unit>_anim_<name>.papa`.
    if let Some((unit, _)) = file.split_once("_anim_") {
        let path = dir.join(format!("{unit}.papa"));
        looked.push(path.clone());
        if let Some(bytes) = read_model_candidate(&path)
            && let Some(missing) = missing_bones(&bytes, names)
        {
            let how = if missing == 0 {
                "beside the animation, by its name".to_string()
            } else {
                format!(
                    "beside the animation, by its name; {missing} of the animation's {} \
                     bones are not in its skeleton and do not move",
                    names.len()
                )
            };
            return Ok(FoundModel { path, bytes, how });
        }
    }
    // 2. Any model papa whose skeleton has every bone: this folder, then its parent.
    for (folder, where_) in [
        (Some(dir), "in the animation's folder"),
        (dir.parent(), "in the folder above"),
    ] {
        let Some(folder) = folder else { continue };
        looked.push(folder.to_path_buf());
        let Ok(entries) = std::fs::read_dir(folder) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "papa") && p != anim_path)
            .collect();
        paths.sort();
        for path in paths {
            if let Some(bytes) = read_model_candidate(&path)
                && missing_bones(&bytes, names) == Some(0)
            {
                let how = format!(
                    "{where_}: its skeleton has all {} bones the animation names",
                    names.len()
                );
                return Ok(FoundModel { path, bytes, how });
            }
        }
    }
    Err(looked)
}

/// The clip names of an animation file: `<name>` from `<unit>_anim_<name>`
/// (numbered when the file holds several).
fn clip_names(file: &str, p: &Papa) -> Vec<String> {
    let stem = file.trim_end_matches(".papa");
    let base = stem.split_once("_anim_").map_or(stem, |(_, n)| n);
    let n = p.animations.len();
    (0..n)
        .map(|i| {
            if n > 1 {
                format!("{base} {i}")
            } else {
                base.to_string()
            }
        })
        .collect()
}

/// Opens an animation-only papa: on its model when one is found, else as
/// the animated skeleton alone.
pub(super) fn open(
    file: &str,
    p: Papa,
    source: SourceInfo,
    companions: &DiskResolver,
) -> Result<Loaded, LoadError> {
    let names = bone_names(&p);
    let found = match companions.model_path() {
        Some(path) => find_model(path, &names),
        None => Err(Vec::new()),
    };
    let clip_names = clip_names(file, &p);
    let mut source = source;
    source.format = "Papa".into();
    let a0 = &p.animations[0];
    source.details.extend([
        ("animation bones".into(), names.len().into()),
        ("frames".into(), Detail::Count(a0.frames as u64, "")),
        (
            "frame rate".into(),
            format!("{}/{} fps", a0.fps_num, a0.fps_den).into(),
        ),
    ]);
    let mut scene = match found {
        Ok(model) => on_model(file, &p, &clip_names, model, companions)?,
        Err(looked) => {
            let mut s = skeleton_alone(&p, &clip_names);
            let looked: Vec<String> = looked.iter().map(|p| p.display().to_string()).collect();
            s.provenance = Some(if looked.is_empty() {
                "no model found (the file's folder is unknown): showing the animated skeleton \
                 alone"
                    .into()
            } else {
                format!(
                    "no model found (looked for {}): showing the animated skeleton alone, \
                     without its hierarchy (an animation papa stores none)",
                    looked.join(", ")
                )
            });
            s
        }
    };
    scene.source = source;
    Ok(Loaded {
        scene,
        raw: Raw::Papa(Box::new(p)),
    })
}

fn on_model(
    file: &str,
    p: &Papa,
    clip_names: &[String],
    model: FoundModel,
    companions: &DiskResolver,
) -> Result<Scene, LoadError> {
    let model_file = model
        .path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let loaded = load_bytes_inner(
        &model_file,
        &model.bytes,
        &companions.for_model(&model.path),
        &|_| {},
    )?;
    let mut scene = loaded.scene;
    // Everything but this file's own clips comes from the model.
    let from = format!("from the model {model_file}");
    scene.added = Added {
        meshes: (0..scene.meshes.len())
            .map(|i| (i, from.clone().into()))
            .collect(),
        materials: (0..scene.materials.len())
            .map(|i| (i, from.clone().into()))
            .collect(),
        textures: (0..scene.textures.len())
            .map(|i| (i, from.clone().into()))
            .collect(),
        clips: scene.added.clips,
        skeleton: Some(from.clone()),
        file_bones: bone_names(p).len(),
    };
    // The model's sibling scan may have listed this very file already.
    let stem = model_file.trim_end_matches(".papa");
    for (i, _) in p.animations.iter().enumerate() {
        let sibling_name = file
            .strip_prefix(&format!("{stem}_anim_"))
            .unwrap_or(file)
            .trim_end_matches(".papa");
        let sibling_name = if p.animations.len() > 1 {
            format!("{sibling_name} {i}")
        } else {
            sibling_name.to_string()
        };
        remove_clip(&mut scene, &sibling_name);
        remove_clip(&mut scene, &clip_names[i]);
    }
    let mut first = None;
    for (a, name) in p.animations.iter().zip(clip_names) {
        if let Some(c) = scene::from_papa::animation_clip(a, name, &scene.skeleton) {
            scene.clips.push(c);
            first.get_or_insert(scene.clips.len() - 1);
        }
    }
    scene.start_clip = first;
    scene.provenance = Some(format!("model {model_file} found {}", model.how));
    Ok(scene)
}

/// The animation's bones alone: each a root placed by its frame-0
/// transform (an animation papa has no hierarchy; roots are in model space).
fn skeleton_alone(p: &Papa, clip_names: &[String]) -> Scene {
    let a = &p.animations[0];
    let n = a.bones.len();
    let world: Vec<Mat4> = (0..n)
        .map(|k| match a.transforms.get(k) {
            Some((t, q)) => Mat4::from_rotation_translation(
                scene::from_papa::quat_to_scene(*q).normalize(),
                scene::from_papa::to_scene(*t),
            ),
            None => Mat4::IDENTITY,
        })
        .collect();
    let parents = vec![None; n];
    let extent = world
        .iter()
        .map(|m| m.w_axis.truncate().length())
        .fold(0.0f32, f32::max);
    let step = (extent * 0.1).max(0.05);
    let mut scene = Scene::default();
    let rest = RestBones::new(&parents, &world, step);
    scene.skeleton.bones = (0..n).map(|i| rest.bone(i, &a.bones[i])).collect();
    scene.added.skeleton =
        Some("the animation's bones, each placed by its own transform (no model was found)".into());
    for (anim, name) in p.animations.iter().zip(clip_names) {
        if let Some(c) = scene::from_papa::animation_clip(anim, name, &scene.skeleton) {
            scene.clips.push(c);
        }
    }
    scene.start_clip = (!scene.clips.is_empty()).then_some(0);
    scene
}
