//! Papa reading details (issue #20), each on a real fixture changed at
//! byte offsets worked out here from `../shared/notes/papa.md` (header §2,
//! vertex buffers §5, meshes and groups §8, models and bindings §10), or on
//! a file structure written out in the test: the expected results come
//! from the notes' rules, not from the reader or the writer.

mod common;

use facet::formats::papa::{self, Papa};
use facet::scene::companions::NoCompanions;
use facet::scene::{Primitive, from_papa};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(common::shared().join("fixtures/papa").join(name)).unwrap()
}

fn u16_at(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes([b[at], b[at + 1]]) as usize
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

fn i64_at(b: &[u8], at: usize) -> usize {
    i64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

/// §2: table offsets, i64 x 9 at 32, in the order strings, textures,
/// vertex buffers, index buffers, materials, meshes, skeletons, models,
/// animations.
fn table(b: &[u8], k: usize) -> usize {
    i64_at(b, 32 + 8 * k)
}

fn scene(bytes: &[u8]) -> facet::scene::Scene {
    let p = papa::decode(bytes).unwrap();
    from_papa::convert(&p, Default::default(), &NoCompanions)
}

#[test]
fn a_bone_index_past_the_bone_map_is_an_error_at_the_vertex() {
    let mut b = fixture("bot_sun.papa");
    // §5: vertex buffer 0: format u8 @0, count u32 @4, data offset i64 @16.
    let vb = table(&b, 2);
    assert_eq!(b[vb], 8, "Position3Weights4bBones4bNormal3TexCoord2");
    let data = i64_at(&b, vb + 16);
    // §10: model 0's binding 0: bone mapping count u16 @4 of the binding.
    let bindings = i64_at(&b, table(&b, 7) + 72);
    let map_len = u16_at(&b, bindings + 4);
    assert_eq!(map_len, 14);
    // Format 8 (stride 40): weights u8 x4 @12, bones u8 x4 @16. Vertex 5's
    // first influence (weights sorted descending, so weight 0 > 0) now
    // names bone 200.
    let v = 5;
    assert!(b[data + v * 40 + 12] > 0);
    let at = data + v * 40 + 16;
    b[at] = 200;
    let err = papa::decode(&b).unwrap_err().to_string();
    assert!(
        err.contains("vertex 5 bone 0")
            && err.contains(&format!("offset {at:#X}"))
            && err.contains("index 200")
            && err.contains("(14 entries)"),
        "{err}"
    );
    // With no weight on that slot the index is never used: not an error
    // (the notes: unused slots have weight 0).
    let mut b = fixture("bot_sun.papa");
    let slot3 = data + v * 40 + 16 + 3;
    assert_eq!(
        b[data + v * 40 + 12 + 3],
        0,
        "vertex 5 has no fourth weight"
    );
    b[slot3] = 200;
    papa::decode(&b).unwrap();
}

/// §8: mesh 0's group 0 (the mesh entry's groups offset i64 @8; a group:
/// first index u32 @4, primitives u32 @8, primitive type u8 @12).
fn group0(b: &[u8]) -> usize {
    i64_at(b, table(b, 5) + 8)
}

#[test]
fn points_and_lines_groups_are_kept_as_points_and_lines() {
    let original = fixture("basic_cube.papa");
    let g = group0(&original);
    assert_eq!((u32_at(&original, g + 8), original[g + 12]), (12, 2));
    // The same 36 indices read as 18 lines, then as 36 points.
    for (kind, count, primitive) in [(1u8, 18u32, Primitive::Lines), (0, 36, Primitive::Points)] {
        let mut b = original.clone();
        b[g + 8..g + 12].copy_from_slice(&count.to_le_bytes());
        b[g + 12] = kind;
        let s = scene(&b);
        assert_eq!(s.meshes.len(), 1);
        let m = &s.meshes[0];
        assert_eq!(m.primitive, primitive, "type {kind}");
        assert_eq!(m.indices.len(), 36, "type {kind}: every index kept");
        assert_eq!(m.triangle_count(), 0, "type {kind}: no triangles");
        assert!(
            s.warnings.iter().all(|w| !w.contains("not drawn")),
            "{:?}",
            s.warnings
        );
    }
    // The triangles as they are.
    let s = scene(&original);
    assert_eq!(s.meshes[0].primitive, Primitive::Triangles);
    assert_eq!(s.meshes[0].triangle_count(), 12);
}

#[test]
fn vertices_without_positions_are_listed_not_drawn() {
    let mut b = fixture("basic_cube.papa");
    // §5: format 10 (stride 64) -> 14 (Matrix, stride 64): the same bytes,
    // read as matrices; nothing to place at the origin.
    let vb = table(&b, 2);
    assert_eq!(b[vb], 10);
    b[vb] = 14;
    let s = scene(&b);
    assert!(s.meshes.is_empty(), "{} meshes drawn", s.meshes.len());
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("Matrix") && w.contains("listed, not drawn")),
        "{:?}",
        s.warnings
    );
    assert!(
        s.source
            .details
            .iter()
            .any(|(k, v)| k == "vertex buffers" && v.to_string().contains("Matrix")),
        "the buffer is listed"
    );
}

#[test]
fn the_files_tangent_frame_reaches_the_scene() {
    let b = fixture("basic_cube.papa");
    let p = papa::decode(&b).unwrap();
    let identity: [f32; 16] = glam::Mat4::IDENTITY.to_cols_array();
    assert_eq!(p.models[0].model2scene, identity);
    assert_eq!(p.models[0].bindings[0].mesh2model, identity);
    let s = from_papa::convert(&p, Default::default(), &NoCompanions);
    let m = &s.meshes[0];
    let t = m.tangents.as_ref().expect("format 10 carries Tan3/Bin3");
    // §5 format 10: tangent @24, binormal @36 (stride 64); §6 Z-up, so the
    // scene's (x, y, z) is the file's (x, z, -y).
    let data = i64_at(&b, table(&b, 2) + 16);
    let f = |at: usize| f32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let p3 = |at: usize| glam::Vec3::new(f(at), f(at + 8), -f(at + 4));
    let v3 = |at: usize| p3(at).normalize();
    // Every scene vertex is a file vertex with the same position, normal
    // and UV, and its tangent and binormal.
    for (i, pos) in m.positions.iter().enumerate() {
        let found = (0..24).any(|k| {
            let at = data + k * 64;
            p3(at).distance(*pos) < 1e-6
                && v3(at + 12).distance(m.normals[i]) < 1e-5
                && glam::Vec2::new(f(at + 48), f(at + 52)).distance(m.uvs[i]) < 1e-6
                && v3(at + 24).distance(t[i][0]) < 1e-5
                && v3(at + 36).distance(t[i][1]) < 1e-5
        });
        assert!(
            found,
            "scene vertex {i}: no file vertex with its position, normal, UV, tangent and binormal"
        );
    }
    // And the second UV set (the shadow-map set) is kept.
    assert_eq!(m.extra_uvs.len(), 1);
    assert_eq!(m.extra_uvs[0].len(), m.positions.len());
}

#[test]
fn an_animated_root_keeps_the_models_model2scene() {
    // bot_sun with model2scene scaled by 2 (§10: model2scene f32[16] at
    // @8 of the model entry, column-major: elements 0, 5, 10).
    let original = fixture("bot_sun.papa");
    let model = table(&original, 7);
    let mut b = original.clone();
    for k in [0, 5, 10] {
        let at = model + 8 + 4 * k;
        assert_eq!(f32::from_le_bytes(b[at..at + 4].try_into().unwrap()), 1.0);
        b[at..at + 4].copy_from_slice(&2.0f32.to_le_bytes());
    }
    let idle = fixture("bot_sun_anim_idle.papa");
    let anim = papa::decode(&idle).unwrap().animations.remove(0);
    let posed = |bytes: &[u8], t: f32| -> Vec<glam::Vec3> {
        let s = scene(bytes);
        let clip = from_papa::animation_clip(&anim, "idle", &s.skeleton).unwrap();
        let mut pose = facet::anim::Pose::new(&s.skeleton);
        pose.evaluate(&s.skeleton, Some(&clip), t);
        pose.world.iter().map(|w| w.w_axis.truncate()).collect()
    };
    // A uniform scale about the origin scales every posed bone's origin.
    for t in [0.0, 0.7, 1.9] {
        let (a, b2) = (posed(&original, t), posed(&b, t));
        for (i, (p, q)) in a.iter().zip(&b2).enumerate() {
            assert!(
                (*p * 2.0).distance(*q) < 1e-4 * (1.0 + p.length()),
                "t {t} bone {i}: {q} is not twice {p}"
            );
        }
    }
}

/// Format 8 vertices (§5: pos @0, weights u8 x4 @12, bones u8 x4 @16,
/// normal @20, uv @32; stride 40), each fully weighted to `bone`.
fn skinned_vertices(positions: &[[f32; 3]], bone: u8) -> Vec<u8> {
    let mut out = Vec::new();
    for p in positions {
        let mut v = [0u8; 40];
        for (k, x) in p.iter().enumerate() {
            v[4 * k..4 * k + 4].copy_from_slice(&x.to_le_bytes());
        }
        v[12] = 255;
        v[16] = bone;
        v[28..32].copy_from_slice(&1.0f32.to_le_bytes());
        out.extend_from_slice(&v);
    }
    out
}

#[test]
fn every_model_is_skinned_with_its_own_skeleton() {
    use papa::{
        Bone, IndexBuffer, MaterialGroup, Mesh, MeshBinding, Model, Skeleton, VertexBuffer,
    };
    let identity = glam::Mat4::IDENTITY.to_cols_array();
    let bone = |name: &str, parent: Option<u16>| Bone {
        name: name.into(),
        parent,
        translation: [0.0, 0.0, 1.0],
        rotation: [0.0, 0.0, 0.0, 1.0],
        shear_scale: glam::Mat3::IDENTITY.to_cols_array(),
        bind2bone: identity,
    };
    let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let mesh = |vb: u16| Mesh {
        vertex_buffer: vb,
        index_buffer: 0,
        groups: vec![MaterialGroup {
            name: String::new(),
            material: 0,
            first_index: 0,
            primitives: 1,
            primitive_type: 2,
        }],
    };
    let model = |name: &str, skeleton: u16, mesh: u16| Model {
        name: name.into(),
        skeleton: Some(skeleton),
        model2scene: identity,
        bindings: vec![MeshBinding {
            name: String::new(),
            mesh,
            mesh2model: identity,
            // Vertex bone 1 is skeleton bone 1 ("arm" / "leg").
            bone_map: vec![0, 1],
        }],
    };
    let p = Papa {
        vertex_buffers: vec![
            VertexBuffer {
                format: 8,
                count: 3,
                data: skinned_vertices(&tri, 1),
            },
            VertexBuffer {
                format: 8,
                count: 3,
                data: skinned_vertices(&tri, 1),
            },
        ],
        index_buffers: vec![IndexBuffer {
            format: 0,
            indices: vec![0, 1, 2],
        }],
        materials: vec![papa::Material {
            shader: "solid".into(),
            vectors: vec![],
            textures: vec![],
            matrices: vec![],
        }],
        meshes: vec![mesh(0), mesh(1)],
        skeletons: vec![
            Skeleton {
                bones: vec![bone("root", None), bone("arm", Some(0))],
            },
            Skeleton {
                bones: vec![bone("hips", None), bone("leg", Some(0))],
            },
        ],
        models: vec![model("a", 0, 0), model("b", 1, 1)],
        ..Default::default()
    };
    let s = from_papa::convert(&p, Default::default(), &NoCompanions);
    let names: Vec<&str> = s.skeleton.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["root", "arm", "hips", "leg"]);
    assert_eq!(s.skeleton.bones[3].parent, Some(2), "leg's parent is hips");
    assert_eq!(s.meshes.len(), 2);
    let joints = |m: usize| s.meshes[m].skin.as_ref().expect("skinned").joints[0][0];
    assert_eq!(joints(0), 1, "model a: arm");
    assert_eq!(joints(1), 3, "model b: leg, not arm");
}

/// The scene's vertices of model 0's binding 0 (one group of triangles),
/// each worked out here from the stored bytes: stored vertex `list[j]` of
/// the mesh's vertex buffer (§5 layouts) for output index `j`, moved by
/// model2scene x mesh2model (§10, column-major floats, notes §9), normals
/// by its inverse transpose, tangent and binormal by the matrix itself,
/// then Z-up to Y-up, `(x, y, z) -> (x, z, -y)` (§5's note). Returns whether
/// the binding's matrices were the identity.
fn vertices_match_the_stored_ones(file: &str) -> bool {
    let b = fixture(file);
    let f = |at: usize| f32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let v3 = |at: usize| [f(at), f(at + 4), f(at + 8)];
    let up = |v: [f32; 3]| glam::Vec3::new(v[0], v[2], -v[1]);
    let mat = |at: usize| -> [f32; 16] { std::array::from_fn(|k| f(at + 4 * k)) };
    // m x (v, w): column c of a column-major matrix is m[4c..4c + 4].
    let mul = |m: &[f32; 16], v: [f32; 3], w: f32| -> [f32; 3] {
        std::array::from_fn(|r| m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r] * w)
    };
    let model = table(&b, 7);
    let binding = i64_at(&b, model + 72);
    let (m2s, m2m) = (mat(model + 8), mat(binding + 8));
    let identity: [f32; 16] = std::array::from_fn(|k| if k % 5 == 0 { 1.0 } else { 0.0 });
    let place = |v: [f32; 3], w: f32| mul(&m2s, mul(&m2m, v, w), w);
    // The normals' matrix: the inverse transpose of the placement's 3x3.
    let column = |k: usize| {
        let mut e = [0.0; 3];
        e[k] = 1.0;
        glam::Vec3::from(place(e, 0.0))
    };
    let normal_m = glam::Mat3::from_cols(column(0), column(1), column(2))
        .inverse()
        .transpose();

    // §8: mesh 0 names vertex buffer 0 and index buffer 0 here.
    let mesh = table(&b, 5);
    assert_eq!((u16_at(&b, mesh), u16_at(&b, mesh + 2)), (0, 0));
    let vb = table(&b, 2);
    let (stride, tangents) = match b[vb] {
        5 => (32, false), // Position3Normal3TexCoord2
        10 => (64, true), // Position3Normal3Tan3Bin3TexCoord4
        other => panic!("{file}: vertex format {other}"),
    };
    let data = i64_at(&b, vb + 16);
    // §6: u8 format (0: u16) @0, u32 count @4, i64 data offset @16.
    let ib = table(&b, 3);
    assert_eq!(b[ib], 0);
    let list: Vec<usize> = (0..u32_at(&b, ib + 4))
        .map(|j| u16_at(&b, i64_at(&b, ib + 16) + 2 * j))
        .collect();

    let s = scene(&b);
    let out = &s.meshes[0];
    assert_eq!(out.indices.len(), list.len(), "{file}");
    let close = |a: glam::Vec3, e: glam::Vec3, what: &str, j: usize| {
        assert!(
            (a - e).length() <= 1e-5 * e.length().max(1.0),
            "{file}: {what} of index {j}: {a} against {e} worked out here"
        );
    };
    for (j, (&o, &stored)) in out.indices.iter().zip(&list).enumerate() {
        let (o, at) = (o as usize, data + stored * stride);
        close(out.positions[o], up(place(v3(at), 1.0)), "position", j);
        let n = normal_m * glam::Vec3::from(v3(at + 12));
        close(out.normals[o], up(n.to_array()).normalize(), "normal", j);
        if tangents {
            let [t, bt] = out.tangents.as_ref().unwrap()[o];
            let t_e = up(place(v3(at + 24), 0.0)).normalize();
            let b_e = up(place(v3(at + 36), 0.0)).normalize();
            close(t, t_e, "tangent", j);
            close(bt, b_e, "binormal", j);
        }
    }
    m2s == identity && m2m == identity
}

#[test]
fn vertices_are_placed_by_their_binding_or_kept_where_it_is_the_identity() {
    // basic_cube's binding is the identity (the converter's path that skips
    // the multiplications); transport's mesh2model is not.
    assert!(vertices_match_the_stored_ones("basic_cube.papa"));
    assert!(!vertices_match_the_stored_ones("transport.papa"));
}

#[test]
fn the_inspectors_buffer_lists_and_models_rows_name_what_the_file_holds() {
    let b = fixture("basic_cube.papa");
    // §5: format 10 is Position3Normal3Tan3Bin3TexCoord4; u32 count @4.
    let vb = table(&b, 2);
    assert_eq!(b[vb], 10);
    let vertices = u32_at(&b, vb + 4);
    // §6: format 0 is u16; u32 count @4.
    let ib = table(&b, 3);
    assert_eq!(b[ib], 0);
    let indices = u32_at(&b, ib + 4);
    // §10: the model's name (a string index, §3: the strings table's
    // entries are u32 length, u32 padding, i64 offset), skeleton @2 (-1:
    // none), binding count @4; its one binding's mesh @2, map length @4.
    let model = table(&b, 7);
    let string = table(&b, 0) + 16 * u16_at(&b, model);
    let at = i64_at(&b, string + 8);
    let name = std::str::from_utf8(&b[at..at + u32_at(&b, string)]).unwrap();
    assert_eq!(i16::from_le_bytes([b[model + 2], b[model + 3]]), -1);
    assert_eq!(u16_at(&b, model + 4), 1);
    let binding = i64_at(&b, model + 72);
    let (mesh, map) = (u16_at(&b, binding + 2), u16_at(&b, binding + 4));

    let s = scene(&b);
    let detail = |key: &str| {
        s.source
            .details
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.to_string())
    };
    assert_eq!(
        detail("vertex buffers").as_deref(),
        Some(&*format!("Position3Normal3Tan3Bin3TexCoord4 x{vertices}"))
    );
    assert_eq!(
        detail("index buffers").as_deref(),
        Some(&*format!("u16 x{indices}"))
    );
    let (title, rows) = &s.tables[0];
    assert_eq!(title, "Models");
    assert_eq!(
        rows,
        &[(
            format!("0: {name}"),
            format!("skeleton none, 1 binding(s): mesh {mesh} ({map} bone mappings)")
        )]
    );
}
