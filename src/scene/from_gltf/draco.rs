//! `KHR_draco_mesh_compression`: a primitive whose attributes and indices
//! are one Draco stream in a buffer view (Blender's "Compression" option,
//! gltf-transform's `draco`, Cesium's and Sketchfab's assets). The stream
//! is decoded by `draco-core` (a pure-Rust port of Google's decoder) and
//! each accessor it stands for is written out in the accessor's own
//! component type, tightly packed, so that the rest of the importer reads
//! it as it reads any other accessor.
//!
//! The extension's text: the primitive's `attributes` and `indices` still
//! name accessors (their type, component type and count), which have no
//! buffer view when the extension is required; the extension's
//! `attributes` maps each semantic to the Draco attribute's unique id. A
//! decoded point is a vertex, a decoded face a triangle.

use super::accessors::Buffers;

pub(super) const NAME: &str = "KHR_draco_mesh_compression";

/// The most decoded attribute bytes a stream may stand for per compressed
/// byte, and a floor for small streams: refused before `draco-core`
/// allocates them. Meshes compress 5-30x; a stream past 1024x is a
/// constant attribute over a huge count, which no exporter writes.
const MAX_RATIO: u64 = 1024;
const FLOOR: u64 = 1 << 20;

/// Every Draco-compressed primitive's accessors, decoded: per accessor
/// index, its elements' bytes where a Draco stream stands for it.
pub(super) fn decode_all(
    doc: &gltf::Document,
    buffers: &Buffers,
) -> Result<Vec<Option<Vec<u8>>>, String> {
    let mut out: Vec<Option<Vec<u8>>> = Vec::new();
    for mesh in doc.meshes() {
        for p in mesh.primitives() {
            let Some(ext) = p.extension_value(NAME) else {
                continue;
            };
            if out.is_empty() {
                out = vec![None; doc.accessors().len()];
            }
            let at = format!(
                "meshes[{}].primitives[{}].extensions.{NAME}",
                mesh.index(),
                p.index()
            );
            decode(doc, buffers, &p, ext, &mut out).map_err(|e| format!("{at}: {e}"))?;
        }
    }
    Ok(out)
}

/// Primitive `p`'s stream, decoded, written into `out` for each accessor
/// it stands for: its attributes' and its indices'.
fn decode(
    doc: &gltf::Document,
    buffers: &Buffers,
    p: &gltf::Primitive,
    ext: &serde_json::Value,
    out: &mut [Option<Vec<u8>>],
) -> Result<(), String> {
    if p.mode() != gltf::mesh::Mode::Triangles {
        return Err(format!(
            "a Draco stream of {:?}, not triangles, is not read",
            p.mode()
        ));
    }
    let view = ext
        .get("bufferView")
        .and_then(|v| v.as_u64())
        .ok_or("bufferView: not a view index")?;
    let view = doc
        .views()
        .nth(view as usize)
        .ok_or_else(|| format!("bufferView: no view {view}"))?;
    let bytes = buffers.view(&view)?;
    let ids = ext
        .get("attributes")
        .and_then(|a| a.as_object())
        .ok_or("attributes: not an object")?;
    let mesh = stream_mesh(bytes)
        .map_err(|e| format!("the Draco stream in buffer view {}: {e}", view.index()))?;
    attributes(p, ids, &mesh, out)?;
    indices(p, &mesh, out)
}

/// The mesh a stream holds, decoded within limits set by its size
/// ([`MAX_RATIO`], [`FLOOR`]).
fn stream_mesh(bytes: &[u8]) -> Result<draco_core::Mesh, draco_core::DracoError> {
    use draco_core::{DecodeLimits, DecoderBuffer, Mesh, MeshDecoder};
    let most = (bytes.len() as u64).saturating_mul(MAX_RATIO).max(FLOOR);
    let limits = DecodeLimits::default()
        .with_max_decoded_bytes(most)
        .with_max_points(most / 4)
        .with_max_faces(most / 12);
    let mut stream = DecoderBuffer::new(bytes).with_limits(limits);
    let mut mesh = Mesh::new();
    MeshDecoder::new().decode(&mut stream, &mut mesh)?;
    Ok(mesh)
}

/// Each of `p`'s attributes that the extension's `ids` map to one of the
/// stream's, packed in its accessor's component type.
fn attributes(
    p: &gltf::Primitive,
    ids: &serde_json::Map<String, serde_json::Value>,
    mesh: &draco_core::Mesh,
    out: &mut [Option<Vec<u8>>],
) -> Result<(), String> {
    let points = mesh.num_points();
    for (semantic, accessor) in p.attributes() {
        let name = semantic.to_string();
        // An attribute the stream does not hold keeps its accessor's
        // own bytes (the extension allows it).
        let Some(id) = ids.get(&name) else {
            continue;
        };
        let id = id
            .as_u64()
            .and_then(|i| u32::try_from(i).ok())
            .ok_or_else(|| format!("attributes.{name}: not an attribute id"))?;
        let attribute = mesh
            .attribute_by_unique_id(id)
            .ok_or_else(|| format!("attributes.{name}: the stream has no attribute {id}"))?;
        if accessor.count() != points {
            return Err(format!(
                "accessor {} ({name}) counts {} elements, the stream {points} points",
                accessor.index(),
                accessor.count()
            ));
        }
        let comps = accessor.dimensions().multiplicity();
        if attribute.num_components() as usize != comps {
            return Err(format!(
                "attributes.{name}: attribute {id} has {} components, accessor {} {comps}",
                attribute.num_components(),
                accessor.index()
            ));
        }
        // Integer values are whole and exact in f32 up to 2^24, past every
        // index, joint and normalized colour glTF stores in an attribute.
        let values = attribute.read_f32s(points, comps);
        let packed = pack(&accessor, &values)
            .map_err(|e| format!("attributes.{name}: attribute {id}: {e}"))?;
        out[accessor.index()] = Some(packed);
    }
    Ok(())
}

/// The stream's faces as `p`'s indices, or checked to be the points in
/// order where `p` has none.
fn indices(
    p: &gltf::Primitive,
    mesh: &draco_core::Mesh,
    out: &mut [Option<Vec<u8>>],
) -> Result<(), String> {
    let points = mesh.num_points();
    let corners = mesh.faces().as_flattened();
    if let Some(bad) = corners.iter().find(|c| c.0 as usize >= points) {
        return Err(format!(
            "a face names point {}, past the stream's {points}",
            bad.0
        ));
    }
    match p.indices() {
        Some(accessor) => {
            if accessor.count() != corners.len() {
                return Err(format!(
                    "indices: accessor {} counts {} indices, the stream {} faces",
                    accessor.index(),
                    accessor.count(),
                    corners.len() / 3
                ));
            }
            // Indices past 2^24 are not exact in f32: written from the
            // integers themselves.
            let packed = match accessor.data_type() {
                gltf::accessor::DataType::U32 => {
                    corners.iter().flat_map(|c| c.0.to_le_bytes()).collect()
                }
                _ => {
                    let values: Vec<f32> = corners.iter().map(|c| c.0 as f32).collect();
                    pack(&accessor, &values).map_err(|e| format!("indices: {e}"))?
                }
            };
            out[accessor.index()] = Some(packed);
        }
        // Without indices the points are the corners, three a triangle.
        None if corners.iter().enumerate().all(|(i, c)| c.0 as usize == i) => {}
        None => {
            return Err("the stream's faces share points, and the primitive has no indices".into());
        }
    }
    Ok(())
}

/// `values` (raw, not normalized) as `accessor`'s components, little-endian
/// and tightly packed; an integer accessor takes whole values in its range.
fn pack(accessor: &gltf::Accessor, values: &[f32]) -> Result<Vec<u8>, String> {
    use gltf::accessor::DataType;
    let data_type = accessor.data_type();
    let (size, lo, hi) = match data_type {
        DataType::I8 => (1, i8::MIN as f32, i8::MAX as f32),
        DataType::U8 => (1, 0.0, u8::MAX as f32),
        DataType::I16 => (2, i16::MIN as f32, i16::MAX as f32),
        DataType::U16 => (2, 0.0, u16::MAX as f32),
        DataType::U32 => (4, 0.0, u32::MAX as f32),
        DataType::F32 => (4, f32::MIN, f32::MAX),
    };
    let mut out = Vec::with_capacity(values.len() * size);
    for &v in values {
        if data_type != DataType::F32 && !(v.fract() == 0.0 && (lo..=hi).contains(&v)) {
            return Err(format!(
                "value {v} does not fit accessor {}'s {data_type:?} components",
                accessor.index()
            ));
        }
        match data_type {
            DataType::I8 => out.push(v as i8 as u8),
            DataType::U8 => out.push(v as u8),
            DataType::I16 => out.extend((v as i16).to_le_bytes()),
            DataType::U16 => out.extend((v as u16).to_le_bytes()),
            DataType::U32 => out.extend((v as u32).to_le_bytes()),
            DataType::F32 => out.extend(v.to_le_bytes()),
        }
    }
    Ok(out)
}
