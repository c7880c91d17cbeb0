//! Files of a chosen size for the scaling benchmark (`cargo bench --bench
//! scaling`): the same wavy height-field, tiled as square patches of at
//! most 180 x 180 cells (two triangles each), written as M3D and Papa by
//! the project's writers; P3M, whose parts hold at most 65,535 indices and
//! whose files at most 255 parts, gets 104 x 104-cell patches and stops at
//! [`P3M_MAX_TRIANGLES`].

use crate::formats::m3d::{self, FacePoint, M3d};
use crate::formats::papa::{self, Papa};
use crate::formats::{m3d_write, p3m, p3m_write, papa_write};

const PATCH: usize = 180;
/// Cells per side of a P3M patch: 2 x 104² = 21,632 triangles, 64,896
/// indices.
const P3M_PATCH: usize = 104;
/// The most triangles a P3M can hold in these patches (255 parts).
pub const P3M_MAX_TRIANGLES: usize = 255 * 2 * P3M_PATCH * P3M_PATCH;

/// One patch: positions, UVs, normals and 16-bit-safe indices of a `w` x
/// `h`-cell grid placed at patch `k` of a row of patches.
struct Patch {
    positions: Vec<[f32; 3]>,
    uvs: Vec<[f32; 2]>,
    normals: Vec<[f32; 3]>,
    indices: Vec<u32>,
}

fn patch(k: usize, w: usize, h: usize) -> Patch {
    let (ox, oz) = (
        (k % 64) as f32 * PATCH as f32,
        (k / 64) as f32 * PATCH as f32,
    );
    let mut p = Patch {
        positions: Vec::with_capacity((w + 1) * (h + 1)),
        uvs: Vec::with_capacity((w + 1) * (h + 1)),
        normals: Vec::with_capacity((w + 1) * (h + 1)),
        indices: Vec::with_capacity(6 * w * h),
    };
    for z in 0..=h {
        for x in 0..=w {
            let (fx, fz) = (ox + x as f32, oz + z as f32);
            let y = (fx * 0.21).sin() * (fz * 0.17).cos() * 2.0;
            p.positions.push([fx * 0.1, y * 0.1, fz * 0.1]);
            p.uvs.push([x as f32 / w as f32, z as f32 / h as f32]);
            p.normals.push([0.0, 1.0, 0.0]);
        }
    }
    for z in 0..h {
        for x in 0..w {
            let i = (z * (w + 1) + x) as u32;
            let j = i + w as u32 + 1;
            p.indices.extend_from_slice(&[i, j, i + 1, i + 1, j, j + 1]);
        }
    }
    p
}

/// Patches of at most `side` x `side` cells covering about `triangles`
/// triangles (at least one).
fn patches(triangles: usize, side: usize) -> Vec<Patch> {
    let full = 2 * side * side;
    let n = triangles / full;
    let rest = triangles - n * full;
    let mut out: Vec<Patch> = (0..n).map(|k| patch(k, side, side)).collect();
    if rest > 0 || out.is_empty() {
        let cells = (rest / 2).max(1);
        let w = cells.min(side);
        out.push(patch(n, w, cells.div_ceil(w)));
    }
    out
}

/// A P3M of about `triangles` triangles (at most [`P3M_MAX_TRIANGLES`]):
/// one part per patch.
pub fn p3m_bytes(triangles: usize) -> Vec<u8> {
    let mut m = super::p3m::demo_model();
    m.parts = patches(triangles.min(P3M_MAX_TRIANGLES), P3M_PATCH)
        .into_iter()
        .enumerate()
        .map(|(i, p)| p3m::Part {
            name: format!("patch {i}"),
            visible: true,
            material: 0,
            material_overrides: Vec::new(),
            positions: p.positions,
            uvs: Some(p.uvs),
            normals: Some(p.normals),
            indices: p.indices.into_iter().map(|i| i as u16).collect(),
            weight_groups: Vec::new(),
        })
        .collect();
    m.bones.clear();
    m.animations.clear();
    m.actions.clear();
    p3m_write::encode(&m).expect("the patches fit P3M")
}

/// An uncompressed M3D of about `triangles` triangles: float coordinates,
/// 32-bit vertex indices, one material-less mesh.
pub fn m3d_bytes(triangles: usize) -> Vec<u8> {
    // Float coordinates, 32-bit vertex indices, 8-bit string offsets;
    // no colours, UVs, bones, skins or voxels.
    let t = m3d::Types {
        vc: 4,
        vi: 4,
        si: 1,
        nb: 1,
        ..m3d::Types::default()
    };
    let mut m = M3d {
        scale: 1.0,
        types: t,
        name: "scaling".into(),
        ..M3d::default()
    };
    for p in patches(triangles, PATCH) {
        let base = m.vertices.len() as u32;
        m.vertices.extend(p.positions.iter().map(|q| m3d::Vertex {
            pos: [q[0], q[1], q[2], 1.0],
            color: 0,
            skin: u32::MAX,
        }));
        for c in p.indices.chunks_exact(3) {
            m.faces.push(
                None,
                &[c[0], c[1], c[2]].map(|i| FacePoint::vertex(base + i)),
            );
        }
    }
    m3d_write::encode(&m, false).expect("the grid fits M3D")
}

/// A Papa of about `triangles` triangles: one vertex buffer (format 5,
/// position, normal, UV), 32-bit indices, one `solid` material.
pub fn papa_bytes(triangles: usize) -> Vec<u8> {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for p in patches(triangles, PATCH) {
        let base = vertices.len() as u32;
        vertices.extend((0..p.positions.len()).map(|i| papa::Vertex {
            pos: p.positions[i],
            normal: Some(p.normals[i]),
            uv: Some(p.uvs[i]),
            ..papa::Vertex::default()
        }));
        indices.extend(p.indices.iter().map(|i| base + i));
    }
    let identity = glam::Mat4::IDENTITY.to_cols_array();
    let prims = (indices.len() / 3) as u32;
    let p = Papa {
        vertex_buffers: vec![papa::VertexBuffer {
            format: 5,
            count: vertices.len() as u32,
            data: papa_write::encode_vertices(5, &vertices),
        }],
        index_buffers: vec![papa::IndexBuffer { format: 1, indices }],
        materials: vec![papa::Material {
            shader: "solid".into(),
            vectors: vec![("DiffuseColor".into(), [0.6, 0.6, 0.6, 1.0])],
            textures: Vec::new(),
            matrices: Vec::new(),
        }],
        meshes: vec![papa::Mesh {
            vertex_buffer: 0,
            index_buffer: 0,
            groups: vec![papa::MaterialGroup {
                name: String::new(),
                material: 0,
                first_index: 0,
                primitives: prims,
                primitive_type: 2,
            }],
        }],
        models: vec![papa::Model {
            name: "scaling".into(),
            skeleton: None,
            model2scene: identity,
            bindings: vec![papa::MeshBinding {
                name: String::new(),
                mesh: 0,
                mesh2model: identity,
                bone_map: Vec::new(),
            }],
        }],
        ..Papa::default()
    };
    papa_write::encode(&p).expect("the grid fits Papa")
}
