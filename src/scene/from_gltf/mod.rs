//! glTF 2.0 (`.glb`, `.gltf`) -> [`Scene`]: the viewer's fifth model
//! format, read with the `gltf` crate (JSON and structure); every byte range
//! is checked here before it is read, so a hostile file gives an error, not
//! a panic.
//!
//! glTF space is the scene's (right-handed, Y up, metres). Parts are the
//! primitives of every node with a mesh in the default scene (else every
//! root), placed by their node's global transform; skinned parts stay in
//! bind space, or go where the default pose puts them when that is one
//! transform of the bind pose (`skeleton::ToRig`). The skeleton is every
//! skin's joints and every animated node, with their ancestors (so the
//! hierarchy is whole), one bone a node: a joint's rest is the inverse of
//! its inverse bind matrix (its node's default global transform where the
//! parts moved), any other node's its default global transform. Unskinned
//! parts an animation moves ride rigidly on their nearest bone
//! (`skeleton::rigid_bindings`).
//! Animations become clips of local translation, rotation (slerp) and scale
//! tracks; STEP keys hold, CUBICSPLINE curves become linear keys on the
//! curve at most 1/120 s apart (`animation::cubic_to_linear`).
//!
//! In stages: `accessors.rs` (buffers, every range checked),
//! `materials.rs` (materials and images), `skeleton.rs` (the node tree and
//! the bones), `parts.rs` (meshes), `animation.rs` (clips).

mod accessors;
mod animation;
mod draco;
mod materials;
mod parts;
mod skeleton;

use super::companions::Companions;
use super::*;

/// A glTF file as a scene, or why it cannot be read.
pub fn convert(
    bytes: &[u8],
    mut source: SourceInfo,
    companions: &dyn Companions,
) -> Result<Scene, String> {
    // gltf 1.4.1's GLB reader takes the header's 12 bytes from the length
    // the header states before it checks it (binary.rs:252), which panics
    // in a build with overflow checks on a length under 12.
    if let Some(length) = bytes
        .strip_prefix(b"glTF")
        .and_then(|b| b.get(4..8))
        .map(|l| u32::from_le_bytes([l[0], l[1], l[2], l[3]]))
        .filter(|&l| l < 12)
    {
        return Err(format!(
            "GLB header at offset 0x8: length {length} is shorter than the header itself (12 bytes)"
        ));
    }
    let g = gltf::Gltf::from_slice_without_validation(bytes)
        .map_err(|e| format!("not a glTF file this viewer can read: {e}"))?;
    let doc = g.document;
    let mut warnings = Vec::new();
    accessors::check_references(&doc)?;
    let buffers = accessors::Buffers::load(&doc, g.blob, companions)?;
    let mut textures = materials::Textures::new(doc.images().count());
    let mut materials =
        materials::materials(&doc, &mut textures, &buffers, companions, &mut warnings);
    let plain = materials.len();
    let tree = skeleton::tree(&doc)?;
    let rig = skeleton::rig(&doc, &tree, &buffers, &mut warnings)?;
    let meshes = parts::parts(&doc, &tree, &rig, &buffers, plain, &mut warnings)?;
    let mut added = Added::default();
    if meshes.iter().any(|m| m.material == Some(plain)) {
        added
            .materials
            .push((plain, "for parts that name no material".into()));
        materials.push(Material {
            name: "(no material)".into(),
            ..Material::default()
        });
    }
    let clips = animation::clips(&doc, &rig, &buffers, &mut warnings)?;

    source.format = "glTF".into();
    let a = doc.as_json().asset.clone();
    source
        .details
        .push(("glTF version".into(), a.version.into()));
    if let Some(generator) = a.generator {
        source.details.push(("generator".into(), generator.into()));
    }
    // What the file is stored with (Draco, meshopt, quantization...).
    let used: Vec<&str> = doc.extensions_used().collect();
    if !used.is_empty() {
        source
            .details
            .push(("extensions".into(), used.join(", ").into()));
    }
    Ok(Scene {
        source,
        meshes,
        materials,
        textures: textures.list,
        skeleton: Skeleton {
            bones: rig.bones,
            ..Skeleton::default()
        },
        clips,
        warnings,
        added,
        // glTF 2.0 §3.4: "The units for all linear distances are meters."
        metres_per_unit: Some(1.0),
        ..Scene::default()
    })
}

/// A document and its buffers from `json` and a binary chunk, as a GLB
/// (glTF 2.0 §4.4: header, JSON chunk, BIN chunk, each chunk padded to 4
/// bytes), for the stages' unit tests.
#[cfg(test)]
fn test_document(json: &serde_json::Value, bin: &[u8]) -> (gltf::Document, accessors::Buffers) {
    let mut text = serde_json::to_vec(json).unwrap();
    text.resize(text.len().next_multiple_of(4), b' ');
    let mut bin = bin.to_vec();
    bin.resize(bin.len().next_multiple_of(4), 0);
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend(((12 + 8 + text.len() + 8 + bin.len()) as u32).to_le_bytes());
    for (chunk, kind) in [(&text, b"JSON"), (&bin, b"BIN\0")] {
        glb.extend((chunk.len() as u32).to_le_bytes());
        glb.extend(kind);
        glb.extend(chunk.iter());
    }
    let g = gltf::Gltf::from_slice_without_validation(&glb).unwrap();
    let buffers = accessors::Buffers::load(&g.document, g.blob, &companions::NoCompanions).unwrap();
    (g.document, buffers)
}
