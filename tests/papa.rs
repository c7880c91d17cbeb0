//! Planetary Annihilation papa: the fixtures against SOURCES.md, writer
//! round trips for every vertex, index and texture format, truncation and
//! hostile tables, the scene (axes, skeleton, animations) and images.

mod common;
use facet::formats::papa::{self, *};
use facet::formats::papa_write;
use facet::scene::from_papa::decode_rgba;

fn path(name: &str) -> std::path::PathBuf {
    common::shared().join("fixtures/papa").join(name)
}

fn fixture(name: &str) -> Papa {
    papa::decode(&std::fs::read(path(name)).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Vertex buffer 0 and index buffer 0 as one group of `primitives`
/// triangles drawn with material 0.
fn triangle_mesh(primitives: u32) -> papa::Mesh {
    papa::Mesh {
        vertex_buffer: 0,
        index_buffer: 0,
        groups: vec![MaterialGroup {
            name: String::new(),
            material: 0,
            first_index: 0,
            primitives,
            primitive_type: 2,
        }],
    }
}

fn counts(p: &Papa) -> [usize; 8] {
    [
        p.textures.len(),
        p.vertex_buffers.len(),
        p.index_buffers.len(),
        p.materials.len(),
        p.meshes.len(),
        p.skeletons.len(),
        p.models.len(),
        p.animations.len(),
    ]
}

#[test]
fn fixtures_match_sources_md() {
    // T/VB/IB/Mat/Mesh/Sk/Mod/An and the contents column of SOURCES.md.
    let cases: &[(&str, [usize; 8])] = &[
        ("bot_sun.papa", [0, 1, 1, 2, 1, 1, 1, 0]),
        ("bot_sun_anim_idle.papa", [0, 0, 0, 0, 0, 0, 0, 1]),
        ("bot_sun_diffuse.papa", [1, 0, 0, 0, 0, 0, 0, 0]),
        ("bot_sun_mask.papa", [1, 0, 0, 0, 0, 0, 0, 0]),
        ("artillery_comet_anim_aimUp.papa", [0, 0, 0, 0, 0, 0, 0, 1]),
        ("basic_cube.papa", [1, 1, 1, 1, 1, 0, 1, 0]),
        ("gray_diffuse.papa", [1, 0, 0, 0, 0, 0, 0, 0]),
        ("flower_03.papa", [3, 1, 1, 3, 1, 0, 1, 0]),
        ("flower_04_normal.papa", [1, 0, 0, 0, 0, 0, 0, 0]),
        ("transport.papa", [0, 1, 1, 1, 1, 0, 1, 0]),
        ("radar_jammer_anim_bind.papa", [0, 0, 0, 0, 0, 0, 0, 1]),
        ("radar_jammer.papa", [0, 1, 1, 1, 1, 1, 1, 0]),
    ];
    for (file, want) in cases {
        assert_eq!(counts(&fixture(file)), *want, "{file}");
    }
    let p = fixture("bot_sun.papa");
    assert_eq!(
        (p.vertex_buffers[0].format, p.vertex_buffers[0].count),
        (8, 946)
    );
    assert_eq!(p.index_buffers[0].indices.len(), 1542);
    assert_eq!(p.skeletons[0].bones.len(), 14);
    assert_eq!(
        (
            p.models[0].name.as_str(),
            p.models[0].skeleton,
            p.models[0].bindings.len()
        ),
        ("bot_aa_mesh", Some(0), 1)
    );
    assert!(p.materials.iter().all(|m| m.shader == "solid"));
    let a = &fixture("bot_sun_anim_idle.papa").animations[0];
    assert_eq!(
        (
            a.bones.len(),
            a.frames,
            a.fps_num,
            a.fps_den,
            a.name.as_str()
        ),
        (14, 160, 60, 1, "")
    );
    let a = &fixture("artillery_comet_anim_aimUp.papa").animations[0];
    assert_eq!((a.bones.len(), a.frames), (8, 9));
    let a = &fixture("radar_jammer_anim_bind.papa");
    assert_eq!(
        (a.animations[0].bones.len(), a.animations[0].frames),
        (16, 4)
    );
    assert_eq!(&a.signature, b"Luther");
    let t = &fixture("bot_sun_diffuse.papa").textures[0];
    assert_eq!(
        (t.format, t.width, t.height, t.mips, t.srgb),
        (Some(TexFormat::Dxt5), 128, 128, 7, true)
    );
    let t = &fixture("bot_sun_mask.papa").textures[0];
    assert_eq!(
        (t.format, t.width, t.mips, t.srgb),
        (Some(TexFormat::Dxt1), 128, 7, false)
    );
    let t = &fixture("gray_diffuse.papa").textures[0];
    assert_eq!(
        (t.format, t.width, t.height, t.mips, t.srgb),
        (Some(TexFormat::Dxt1), 256, 256, 8, true)
    );
    let t = &fixture("flower_04_normal.papa").textures[0];
    assert_eq!(
        (t.format, t.width, t.mips, t.srgb),
        (Some(TexFormat::Dxt5), 256, 8, false)
    );
    let p = fixture("basic_cube.papa");
    assert_eq!(p.textures[0].data, TextureData::Linked);
    assert_eq!(
        p.textures[0].name,
        "/pa/terrain/earth_csg/textures/moon_tile_diffuse.papa"
    );
    assert_eq!(
        (
            p.vertex_buffers[0].format,
            p.vertex_buffers[0].count,
            p.index_buffers[0].indices.len()
        ),
        (10, 24, 36)
    );
    assert_eq!(
        (
            p.materials[0].shader.as_str(),
            p.models[0].name.as_str(),
            p.models[0].skeleton
        ),
        ("textured", "Cube", None)
    );
    let p = fixture("flower_03.papa");
    assert_eq!(
        (p.vertex_buffers[0].count, p.index_buffers[0].indices.len()),
        (1120, 2208)
    );
    let p = fixture("transport.papa");
    assert_eq!(
        (
            p.vertex_buffers[0].format,
            p.vertex_buffers[0].count,
            p.index_buffers[0].indices.len()
        ),
        (5, 1499, 2814)
    );
    // The exporter wrote the name's length in characters: read to the NUL.
    assert_eq!(p.models[0].name, "平面");
    assert!(p.warnings.iter().any(|w| w.contains("not its byte length")));
    let p = fixture("radar_jammer.papa");
    assert_eq!(
        (
            p.vertex_buffers[0].count,
            p.index_buffers[0].indices.len(),
            p.skeletons[0].bones.len()
        ),
        (15947, 34110, 17)
    );
    assert_eq!(p.models[0].name, "radar_jammer.001");
}

#[test]
fn fixtures_survive_the_writer() {
    for file in [
        "bot_sun.papa",
        "bot_sun_anim_idle.papa",
        "bot_sun_diffuse.papa",
        "basic_cube.papa",
        "flower_03.papa",
        "transport.papa",
        "radar_jammer_anim_bind.papa",
    ] {
        let p = fixture(file);
        let mut back = papa::decode(&papa_write::encode(&p).unwrap()).unwrap();
        let mut want = p.clone();
        back.tables.clear();
        back.warnings.clear();
        want.tables.clear();
        want.warnings.clear();
        assert_eq!(back, want, "{file}");
    }
}

fn identity() -> [f32; 16] {
    glam::Mat4::IDENTITY.to_cols_array()
}

fn vertex(i: usize) -> Vertex {
    let f = i as f32;
    Vertex {
        pos: [f, f * 0.5, -f],
        normal: Some([0.0, 0.0, 1.0]),
        uv: Some([f / 8.0, 1.0 - f / 8.0]),
        color: Some([i as u8 * 20, 100, 200, 255]),
        weights: Some([200, 55, 0, 0]),
        bones: Some([1, 0, 0, 0]),
        ..Vertex::default()
    }
}

/// A file with one model over `vertices` in `format`, one texture of each
/// listed format, a skeleton of two bones and an animation.
fn built(format: u8, index_format: u8, textures: Vec<papa::Texture>) -> Papa {
    let vs: Vec<Vertex> = (0..6).map(vertex).collect();
    let bone = |name: &str, parent: Option<u16>| papa::Bone {
        name: name.into(),
        parent,
        translation: [0.0, 0.0, 1.0],
        rotation: [0.0, 0.0, 0.0, 1.0],
        shear_scale: glam::Mat3::IDENTITY.to_cols_array(),
        bind2bone: identity(),
    };
    Papa {
        signature: *b"facet\0",
        textures,
        vertex_buffers: vec![VertexBuffer {
            format,
            count: 6,
            data: papa_write::encode_vertices(format, &vs),
        }],
        index_buffers: vec![IndexBuffer {
            format: index_format,
            indices: vec![0, 1, 2, 3, 4, 5],
        }],
        materials: vec![papa::Material {
            shader: "textured".into(),
            vectors: vec![("DiffuseColor".into(), [0.5, 0.25, 1.0, 0.0])],
            textures: vec![("DiffuseTexture".into(), 0)],
            matrices: vec![("Offset".into(), identity())],
        }],
        meshes: vec![triangle_mesh(2)],
        skeletons: vec![Skeleton {
            bones: vec![bone("root", None), bone("arm", Some(0))],
        }],
        models: vec![papa::Model {
            name: "thing".into(),
            skeleton: Some(0),
            model2scene: identity(),
            bindings: vec![MeshBinding {
                name: "binding".into(),
                mesh: 0,
                mesh2model: identity(),
                bone_map: vec![1, 0],
            }],
        }],
        animations: vec![Animation {
            name: "wave".into(),
            bones: vec!["arm".into(), "root".into()],
            frames: 2,
            fps_num: 30,
            fps_den: 1,
            transforms: vec![([0.0; 3], [0.0, 0.0, 0.0, 1.0]); 4],
        }],
        ..Default::default()
    }
}

fn texture(format: TexFormat, w: u16, h: u16, mips: u8, data: Vec<u8>) -> papa::Texture {
    papa::Texture {
        name: format!("{}.png", format.name()),
        format: Some(format),
        mips,
        srgb: true,
        width: w,
        height: h,
        data: TextureData::Embedded(data),
    }
}

fn round_trip(p: &Papa) -> Papa {
    let mut back = papa::decode(&papa_write::encode(p).unwrap()).unwrap_or_else(|e| panic!("{e}"));
    back.tables.clear();
    back
}

#[test]
fn every_vertex_and_index_format_round_trips() {
    // Writer and reader agree (the values are checked against the notes'
    // layouts in `every_vertex_format_decodes_as_the_notes_lay_it_out`).
    for format in 0..15u8 {
        for index_format in [0, 1] {
            let p = built(
                format,
                index_format,
                vec![texture(TexFormat::R8, 1, 1, 1, vec![7])],
            );
            assert_eq!(
                round_trip(&p),
                p,
                "vertex format {format}, index format {index_format}"
            );
        }
    }
}

/// A vertex field as `notes/papa.md` §5 names it.
#[derive(Clone, Copy, PartialEq)]
enum F {
    Pos,
    Normal,
    Tangent,
    Binormal,
    Color4b,
    Color8f,
    Uv(u8),
    Weights4b,
    Bones4b,
    Matrix,
}

#[test]
fn every_vertex_format_decodes_as_the_notes_lay_it_out() {
    use F::*;
    // notes/papa.md §5 (specs/papa.txt gives formats 0, 6, 8 and 10): id,
    // stride, and every field with its byte offset, written out here.
    type Layout = (u8, usize, &'static [(F, usize)]);
    let formats: [Layout; 15] = [
        (0, 12, &[(Pos, 0)]),
        (1, 24, &[(Pos, 0), (Color4b, 12), (Uv(0), 16)]),
        (2, 32, &[(Pos, 0), (Color4b, 12), (Uv(0), 16), (Uv(1), 24)]),
        (
            3,
            40,
            &[
                (Pos, 0),
                (Color4b, 12),
                (Uv(0), 16),
                (Uv(1), 24),
                (Uv(2), 32),
            ],
        ),
        (4, 24, &[(Pos, 0), (Normal, 12)]),
        (5, 32, &[(Pos, 0), (Normal, 12), (Uv(0), 24)]),
        (6, 36, &[(Pos, 0), (Normal, 12), (Color4b, 24), (Uv(0), 28)]),
        (
            7,
            44,
            &[
                (Pos, 0),
                (Normal, 12),
                (Color4b, 24),
                (Uv(0), 28),
                (Uv(1), 36),
            ],
        ),
        (
            8,
            40,
            &[
                (Pos, 0),
                (Weights4b, 12),
                (Bones4b, 16),
                (Normal, 20),
                (Uv(0), 32),
            ],
        ),
        (
            9,
            56,
            &[
                (Pos, 0),
                (Normal, 12),
                (Tangent, 24),
                (Binormal, 36),
                (Uv(0), 48),
            ],
        ),
        (
            10,
            64,
            &[
                (Pos, 0),
                (Normal, 12),
                (Tangent, 24),
                (Binormal, 36),
                (Uv(0), 48),
                (Uv(1), 56),
            ],
        ),
        (
            11,
            68,
            &[
                (Pos, 0),
                (Normal, 12),
                (Tangent, 24),
                (Binormal, 36),
                (Color4b, 48),
                (Uv(0), 52),
                (Uv(1), 60),
            ],
        ),
        (12, 16, &[(Uv(0), 0), (Uv(1), 8)]),
        (
            13,
            68,
            &[
                (Pos, 0),
                (Color8f, 12),
                (Uv(0), 44),
                (Uv(1), 52),
                (Uv(2), 60),
            ],
        ),
        (14, 64, &[(Matrix, 0)]),
    ];
    // Distinct values per vertex and field, so a wrong offset reads wrong.
    let pos = |v: usize| [1.0 + v as f32, 2.0, 3.5];
    let normal = |v: usize| [0.0, -1.0, 0.25 * v as f32];
    let uv = |v: usize, k: u8| [0.125 * (k + 1) as f32, 0.5 + v as f32];
    let color = |v: usize| [10 + v as u8, 20, 30, 40];
    let weights = |v: usize| [200 - v as u8, 55 + v as u8, 0, 0];
    let bones = |v: usize| [3, 1 + v as u8, 0, 0];
    let tangent = |v: usize| [9.0, v as f32, 1.0];
    let binormal = |v: usize| [-9.0, v as f32, 2.0];
    let color8f = |v: usize| -> [f32; 8] { std::array::from_fn(|k| 0.125 * k as f32 + v as f32) };
    for (id, stride, fields) in formats {
        let n = 3;
        let mut data = vec![0u8; stride * n];
        for v in 0..n {
            let b = &mut data[v * stride..(v + 1) * stride];
            for &(f, at) in fields {
                let bytes: Vec<u8> = match f {
                    Color4b => color(v).to_vec(),
                    Weights4b => weights(v).to_vec(),
                    Bones4b => bones(v).to_vec(),
                    _ => {
                        let xs: Vec<f32> = match f {
                            Pos => pos(v).to_vec(),
                            Normal => normal(v).to_vec(),
                            Tangent => tangent(v).to_vec(),
                            Binormal => binormal(v).to_vec(),
                            Color8f => color8f(v).to_vec(),
                            Uv(k) => uv(v, k).to_vec(),
                            _ => vec![7.0; 16], // Matrix
                        };
                        xs.iter().flat_map(|x| x.to_le_bytes()).collect()
                    }
                };
                b[at..at + bytes.len()].copy_from_slice(&bytes);
            }
        }
        let vb = VertexBuffer {
            format: id,
            count: n as u32,
            data,
        };
        let got = vb.vertices();
        assert_eq!(got.len(), n, "format {id}: stride {stride}");
        let has = |f: F| fields.iter().any(|&(g, _)| g == f);
        for (v, g) in got.iter().enumerate() {
            let want_pos = if has(Pos) { pos(v) } else { [0.0; 3] };
            assert_eq!(g.pos, want_pos, "format {id} vertex {v}: position");
            assert_eq!(
                g.normal,
                has(Normal).then(|| normal(v)),
                "format {id}: normal"
            );
            assert_eq!(g.uv, has(Uv(0)).then(|| uv(v, 0)), "format {id}: first UV");
            assert_eq!(
                g.color,
                has(Color4b).then(|| color(v)),
                "format {id}: colour"
            );
            assert_eq!(
                g.weights,
                has(Weights4b).then(|| weights(v)),
                "format {id}: weights"
            );
            assert_eq!(
                g.bones,
                has(Bones4b).then(|| bones(v)),
                "format {id}: bones"
            );
            assert_eq!(
                g.tangent,
                has(Tangent).then(|| [tangent(v), binormal(v)]),
                "format {id}: tangent and binormal"
            );
            assert_eq!(
                g.extra_uvs,
                [1, 2].map(|k| has(Uv(k)).then(|| uv(v, k))),
                "format {id}: second and third UV sets"
            );
            assert_eq!(
                g.color8f,
                has(Color8f).then(|| color8f(v)),
                "format {id}: eight colour floats"
            );
        }
        if has(Pos) {
            scene_attributes_match_the_layout(id, vb, &has);
        }
    }
}

/// The scene converter reads the stored bytes itself (a column at a time),
/// not through `VertexBuffer::vertex`: the same three vertices of format
/// `id` (values as `every_vertex_format_decodes_as_the_notes_lay_it_out` lays
/// them out) drawn as one triangle must reach the scene as the notes say:
/// Z-up to Y-up `(x, z, -y)`, normals and the tangent frame unit length,
/// the second and third UV sets kept, format 13's first four colour floats
/// as RGBA bytes, and u8 weights as shares of 65535 (`w * 257`: the bytes
/// of these vertices sum to 255).
fn scene_attributes_match_the_layout(id: u8, vb: VertexBuffer, has: &dyn Fn(F) -> bool) {
    use F::*;
    use glam::{Vec2, Vec3};
    let identity = glam::Mat4::IDENTITY.to_cols_array();
    let skinned = has(Weights4b);
    let bone = |i: usize| Bone {
        name: format!("b{i}"),
        parent: None,
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        shear_scale: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        bind2bone: identity,
    };
    let p = Papa {
        vertex_buffers: vec![vb],
        index_buffers: vec![IndexBuffer {
            format: 0,
            indices: vec![0, 1, 2],
        }],
        materials: vec![papa::Material {
            shader: "test".into(),
            vectors: Vec::new(),
            textures: Vec::new(),
            matrices: Vec::new(),
        }],
        meshes: vec![triangle_mesh(1)],
        skeletons: if skinned {
            vec![Skeleton {
                bones: (0..4).map(bone).collect(),
            }]
        } else {
            Vec::new()
        },
        models: vec![Model {
            name: String::new(),
            skeleton: skinned.then_some(0),
            model2scene: identity,
            bindings: vec![MeshBinding {
                name: String::new(),
                mesh: 0,
                mesh2model: identity,
                bone_map: if skinned {
                    vec![0, 1, 2, 3]
                } else {
                    Vec::new()
                },
            }],
        }],
        ..Default::default()
    };
    let s = facet::scene::from_papa::convert(
        &p,
        Default::default(),
        &facet::scene::companions::NoCompanions,
    );
    let m = &s.meshes[0];
    let up = |a: [f32; 3]| Vec3::new(a[0], a[2], -a[1]);
    let near = |a: Vec3, b: Vec3| (a - b).length() < 1e-6;
    let extra: Vec<u8> = [1, 2].into_iter().filter(|&k| has(Uv(k))).collect();
    assert_eq!(m.extra_uvs.len(), extra.len(), "format {id}: UV sets");
    for v in 0..3 {
        let what = format!("format {id} vertex {v}");
        let p = [1.0 + v as f32, 2.0, 3.5];
        assert_eq!(m.positions[v], Vec3::new(p[0], p[2], -p[1]), "{what}");
        if has(Normal) {
            let n = Vec3::new(0.0, 0.25 * v as f32, 1.0).normalize();
            assert!(near(m.normals[v], n), "{what}: normal {}", m.normals[v]);
        }
        let uv = |k: u8| Vec2::new(0.125 * (k + 1) as f32, 0.5 + v as f32);
        let want = if has(Uv(0)) { uv(0) } else { Vec2::ZERO };
        assert_eq!(m.uvs[v], want, "{what}: UV");
        for (set, &k) in m.extra_uvs.iter().zip(&extra) {
            assert_eq!(set[v], uv(k), "{what}: UV set {k}");
        }
        let colour = if has(Color4b) {
            Some([10 + v as u8, 20, 30, 40])
        } else if has(Color8f) {
            // 0.125 k + v, clamped to 0..1: v = 0 gives 0, 0.125, 0.25,
            // 0.375 (0, 32, 64, 96 in bytes); from v = 1 all are 1 (255).
            Some(match v {
                0 => [0, 32, 64, 96],
                _ => [255; 4],
            })
        } else {
            None
        };
        assert_eq!(m.colors.as_ref().map(|c| c[v]), colour, "{what}: colour");
        if has(Tangent) {
            let t = m.tangents.as_ref().expect("a tangent frame")[v];
            assert!(
                near(t[0], up([9.0, v as f32, 1.0]).normalize()),
                "{what}: tangent"
            );
            assert!(
                near(t[1], up([-9.0, v as f32, 2.0]).normalize()),
                "{what}: binormal"
            );
        }
        if skinned {
            let skin = m.skin.as_ref().expect("skinned");
            assert_eq!(skin.joints[v], [3, 1 + v as u16, 0, 0], "{what}: joints");
            let (a, b) = (200 - v as u16, 55 + v as u16);
            assert_eq!(skin.weights[v], [a * 257, b * 257, 0, 0], "{what}: weights");
        }
    }
}

#[test]
fn every_texture_format_round_trips_and_decodes() {
    // One pixel of known colour (or 4x4 for DXT), plus mip chains.
    let red_bc1 = {
        // color0 = color1 = pure red (RGB565 0xF800), all indices 0.
        let mut b = vec![0x00, 0xF8, 0x00, 0xF8];
        b.extend([0; 4]);
        b
    };
    let mut bc3 = vec![255, 255, 0, 0, 0, 0, 0, 0]; // alpha 255
    bc3.extend(&red_bc1);
    let mut bc2 = vec![0xFF; 8]; // explicit alpha 15 everywhere
    bc2.extend(&red_bc1);
    let f = |x: f32| x.to_le_bytes();
    let cases: Vec<(papa::Texture, [u8; 4])> = vec![
        (
            texture(TexFormat::R8G8B8A8, 1, 1, 1, vec![10, 20, 30, 40]),
            [10, 20, 30, 40],
        ),
        (
            texture(TexFormat::R8G8B8X8, 1, 1, 1, vec![10, 20, 30, 0]),
            [10, 20, 30, 255],
        ),
        (
            texture(TexFormat::B8G8R8A8, 1, 1, 1, vec![30, 20, 10, 40]),
            [10, 20, 30, 40],
        ),
        (texture(TexFormat::R8, 1, 1, 1, vec![77]), [77, 77, 77, 255]),
        (texture(TexFormat::Rg8, 1, 1, 1, vec![1, 2]), [1, 2, 0, 255]),
        (
            texture(TexFormat::R32F, 1, 1, 1, f(0.5).to_vec()),
            [128, 128, 128, 255],
        ),
        (
            texture(
                TexFormat::Rgba32F,
                1,
                1,
                1,
                [f(1.0), f(0.0), f(0.5), f(1.0)].concat(),
            ),
            [255, 0, 128, 255],
        ),
        (
            texture(TexFormat::Dxt1, 4, 4, 1, red_bc1.clone()),
            [255, 0, 0, 255],
        ),
        (texture(TexFormat::Dxt3, 4, 4, 1, bc2), [255, 0, 0, 255]),
        (texture(TexFormat::Dxt5, 4, 4, 1, bc3), [255, 0, 0, 255]),
        // An 8x8 DXT1 with its 4x4 and 2x2 levels (one block each).
        (
            texture(
                TexFormat::Dxt1,
                8,
                8,
                3,
                [red_bc1.repeat(4), red_bc1.clone(), red_bc1.clone()].concat(),
            ),
            [255, 0, 0, 255],
        ),
    ];
    for (t, first) in cases {
        let p = built(5, 0, vec![t.clone()]);
        let back = round_trip(&p);
        assert_eq!(back.textures[0], t, "{}", t.name);
        let rgba = decode_rgba(&back.textures[0]).unwrap();
        assert_eq!(rgba.len(), t.width as usize * t.height as usize * 4);
        assert_eq!(&rgba[..4], &first, "{}", t.name);
    }
    // Depth formats are sized and kept, not shown.
    let d = texture(TexFormat::Other(16), 2, 2, 1, vec![0; 8]);
    let back = round_trip(&built(5, 0, vec![d]));
    assert!(
        decode_rgba(&back.textures[0])
            .unwrap_err()
            .contains("not shown")
    );
}

/// Every cut is an error, except one that only drops the zero padding
/// after the last blob (files are padded to 8 bytes), which must decode to
/// the same thing.
fn truncations(bytes: &[u8]) {
    let full = papa::decode(bytes).unwrap();
    for len in 0..bytes.len() {
        let r = std::panic::catch_unwind(|| papa::decode(&bytes[..len]))
            .unwrap_or_else(|_| panic!("decoder panicked on a file cut to {len} bytes"));
        if let Ok(p) = r {
            let padding = bytes[len..].iter().all(|&b| b == 0) && bytes.len() - len < 8;
            assert!(
                padding && p == full,
                "cut to {len} of {} bytes but decoded",
                bytes.len()
            );
        }
    }
}

#[test]
fn truncation_at_every_byte_is_an_error() {
    truncations(
        &papa_write::encode(&built(
            8,
            1,
            vec![texture(TexFormat::R8, 2, 2, 2, vec![1, 2, 3, 4, 5])],
        ))
        .unwrap(),
    );
    truncations(&std::fs::read(path("artillery_comet_anim_aimUp.papa")).unwrap());
    truncations(&std::fs::read(path("basic_cube.papa")).unwrap());
}

fn err(bytes: &[u8]) -> String {
    papa::decode(bytes).unwrap_err().to_string()
}

fn set_i64(b: &mut [u8], at: usize, v: i64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Two index buffers whose data share bytes, the offsets set by the
/// spec's layout (papa.txt: the header's table offsets from byte 32, an
/// index buffer entry 24 bytes with its data_offset at +16): refused
/// whichever of the two comes first in the file and whichever was read
/// first, the error naming both. The shifted data are still valid indices,
/// so only the overlap check can refuse them.
#[test]
fn blobs_that_share_bytes_name_both() {
    let mut p = built(8, 0, vec![]);
    p.index_buffers.push(IndexBuffer {
        format: 0,
        indices: vec![0, 1, 2, 3, 4, 5, 0, 1, 2],
    });
    let good = papa_write::encode(&p).unwrap();
    assert!(papa::decode(&good).is_ok());
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let table = u64_at(&good, 32 + 3 * 8) as usize;
    let (first, second) = (table + 16, table + 24 + 16);
    let (x, y) = (u64_at(&good, first), u64_at(&good, second));
    // (field moved, where to, the buffer moved, the one it overlaps and
    // that one's range). Buffer 1 one index into buffer 0's 12 bytes: it
    // starts later. Buffer 0 one index into buffer 1's 18 bytes: read
    // first, it now lies after the start of the one it overlaps.
    for (field, to, moved, under, range) in [
        (second, x + 2, 1, 0, (x, x + 12)),
        (first, y + 2, 0, 1, (y, y + 18)),
    ] {
        let mut b = good.clone();
        set_i64(&mut b, field, to as i64);
        let e = err(&b);
        let overlap = format!(
            "overlaps index buffer {under} ({:#X}..{:#X})",
            range.0, range.1
        );
        assert!(
            e.contains(&format!("offset {to:#X}"))
                && e.contains(&format!("index buffer {moved}"))
                && e.contains(&overlap),
            "{e}"
        );
    }
}

#[test]
fn hostile_tables_give_clear_errors() {
    let good =
        papa_write::encode(&built(8, 0, vec![texture(TexFormat::R8, 1, 1, 1, vec![9])])).unwrap();
    // The vertex buffer table points past the end.
    let mut b = good.clone();
    set_i64(&mut b, 32 + 2 * 8, good.len() as i64 - 8);
    let e = err(&b);
    assert!(
        e.starts_with("vertex buffers table: data at offset")
            && e.contains("runs past the end of the file (size"),
        "{e}"
    );
    // Two strings whose characters share bytes.
    let mut b = good.clone();
    let table = i64::from_le_bytes(b[32..40].try_into().unwrap()) as usize;
    let first_chars = b[table + 8..table + 16].to_vec();
    b[table + 16 + 8..table + 32].copy_from_slice(&first_chars);
    let e = err(&b);
    assert!(
        e.contains("string 1") && e.contains("overlaps string 0"),
        "{e}"
    );
    // The materials table laid over the meshes table.
    let mut b = good.clone();
    let meshes = i64::from_le_bytes(b[32 + 5 * 8..32 + 6 * 8].try_into().unwrap());
    set_i64(&mut b, 32 + 4 * 8, meshes);
    let e = err(&b);
    assert!(e.contains("material"), "{e}");
    // 65,535 textures from a 200-byte table.
    let mut b = good.clone();
    b[10..12].copy_from_slice(&u16::MAX.to_le_bytes());
    assert!(
        err(&b).contains("textures table: data at offset"),
        "{}",
        err(&b)
    );
    // A negative offset with a count.
    let mut b = good.clone();
    set_i64(&mut b, 32 + 7 * 8, -1);
    assert!(
        err(&b).contains("models table") && err(&b).contains("offset -1"),
        "{}",
        err(&b)
    );
    // Another version.
    let mut b = good.clone();
    b[6] = 4;
    assert!(err(&b).contains("only 0x00030000"));
    // A bone whose parent comes after it, an index past the vertices, a
    // group past the indices, a bone mapping past the skeleton.
    let mut p = built(8, 0, vec![]);
    p.materials[0].textures.clear();
    p.skeletons[0].bones[0].parent = Some(1);
    // Each named within its table's blob, the name formatted only for the
    // error.
    let e = err(&papa_write::encode(&p).unwrap());
    assert!(e.contains("skeleton 0 bones: bone 0 parent"), "{e}");
    let mut p = built(8, 0, vec![]);
    p.materials[0].textures.clear();
    p.index_buffers[0].indices[2] = 99;
    assert!(
        err(&papa_write::encode(&p).unwrap())
            .contains("index 99 is past its vertex buffer's 6 vertices")
    );
    let mut p = built(8, 0, vec![]);
    p.materials[0].textures.clear();
    p.meshes[0].groups[0].primitives = 3;
    let e = err(&papa_write::encode(&p).unwrap());
    assert!(
        e.contains("mesh 0 material groups: group 0") && e.contains("out of range (6 indices"),
        "{e}"
    );
    let mut p = built(8, 0, vec![]);
    p.materials[0].textures.clear();
    p.models[0].bindings[0].bone_map = vec![5];
    let e = err(&papa_write::encode(&p).unwrap());
    assert!(
        e.contains("model 0 mesh bindings: binding 0 bone mapping")
            && e.contains("bone 5 out of range (2 bones)"),
        "{e}"
    );
    // A DXT texture whose size does not add up to its mip chain.
    let p = built(5, 0, vec![texture(TexFormat::Dxt1, 8, 8, 3, vec![0; 40])]);
    let e = err(&papa_write::encode(&p).unwrap());
    assert!(
        e.contains("40 bytes, but 8x8 DXT1 with 3 levels needs 48"),
        "{e}"
    );
}

#[test]
fn skeleton_rest_matches_bind2bone_in_scene_space() {
    // notes §9: bind2bone = inverse(world); both sides turned into Y-up.
    // Every skinned model shipped in the fixtures: bot_sun's 14 bones and
    // radar_jammer's 17, each bone's stored bind2bone (written by the
    // game's tools) against the rest the viewer builds from t and q.
    // C: -90 degrees about X (Z-up to Y-up), from notes §9, not the
    // converter's constant.
    let c = glam::Mat4::from_rotation_x(-std::f32::consts::FRAC_PI_2);
    for (name, bones) in [("bot_sun.papa", 14), ("radar_jammer.papa", 17)] {
        let loaded = facet::load::load_file(&path(name)).unwrap();
        let facet::load::Raw::Papa(raw) = &loaded.raw else {
            panic!()
        };
        let scene_bones = &loaded.scene.skeleton.bones;
        assert_eq!(scene_bones.len(), bones, "{name}");
        assert_eq!(raw.skeletons[0].bones.len(), bones, "{name}");
        for (b, pb) in scene_bones.iter().zip(&raw.skeletons[0].bones) {
            let bind2bone = c * glam::Mat4::from_cols_array(&pb.bind2bone) * c.inverse();
            let product = bind2bone * b.rest;
            assert!(
                product.abs_diff_eq(glam::Mat4::IDENTITY, 2e-4),
                "{name}: {}: {product}",
                b.name
            );
        }
        // Y up: the unit stands on the ground, most of it above (bot_sun
        // from 0 to 3.7, radar_jammer from -2 to 15.1).
        let bounds = loaded.scene.bounds(None);
        assert!(
            bounds.max.y > 1.0 && bounds.max.y > 5.0 * -bounds.min.y,
            "{name}: {bounds:?}"
        );
    }
}

#[test]
fn sibling_animations_and_render_anim() {
    let s = facet::load::load_file(&path("bot_sun.papa")).unwrap().scene;
    let names: Vec<&str> = s.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["idle"], "only the animation whose bones match");
    assert_eq!(s.clips[0].frames, 159);
    assert!((s.clips[0].duration_s - 159.0 / 60.0).abs() < 1e-6);
    assert_eq!(
        s.textures
            .iter()
            .map(|t| match &t.source {
                facet::scene::TextureSource::External(p) => {
                    p.file_name().unwrap().to_string_lossy().into_owned()
                }
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>(),
        ["bot_sun_diffuse.papa", "bot_sun_mask.papa"],
        "the diffuse and the team-colour mask by the naming convention"
    );
    let solid = &s.materials[0];
    assert_eq!(solid.maps.team_mask, Some(1));
    assert!(
        solid
            .maps
            .notes
            .iter()
            .any(|n| n.contains("bot_sun_material.papa")),
        "{:?}",
        solid.maps.notes
    );
    let s = facet::load::load_file(&path("radar_jammer.papa"))
        .unwrap()
        .scene;
    assert_eq!(
        s.clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["bind"]
    );

    // render --anim with a file from elsewhere.
    let out = common::output_dir().join("papa_anim.png");
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_facet"))
        .env("FACET_ADAPTER", common::SOFTWARE_ADAPTER)
        .args(["render"])
        .arg(path("bot_sun.papa"))
        .arg("--anim")
        .arg(path("bot_sun_anim_idle.papa"))
        .args(["--time", "1.2", "--size", "160x120", "-o"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let mut s = facet::load::load_file(&path("transport.papa"))
        .unwrap()
        .scene;
    let e = facet::load::add_animation_file(&mut s, &path("bot_sun_anim_idle.papa"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("none of its bones is in transport.papa's skeleton"),
        "{e}"
    );
}

#[test]
fn papa_renders_like_the_references() {
    let gpu = common::gpu();
    let req = |clip: Option<&str>, time: f32| facet::cli::headless::RenderRequest {
        width: 200,
        height: 150,
        clip: clip.map(str::to_string),
        time,
        camera: Some((30.0, 20.0, 1.0)),
        ..Default::default()
    };
    for (file, clip, time, name) in [
        ("transport.papa", None, 0.0, "papa_transport"),
        ("bot_sun.papa", None, 0.0, "papa_bot_sun"),
        ("bot_sun.papa", Some("idle"), 1.2, "papa_bot_sun_idle_1.2s"),
        ("bot_sun_diffuse.papa", None, 0.0, "papa_bot_sun_diffuse"),
    ] {
        let scene = facet::load::load_file(&path(file)).unwrap().scene;
        let (img, _) = facet::cli::headless::render(&gpu, &scene, &req(clip, time)).unwrap();
        common::assert_matches_reference(name, &img);
    }
}

#[test]
fn texture_files_keep_every_mip_level_for_the_viewer() {
    let s = facet::load::load_file(&path("bot_sun_diffuse.papa"))
        .unwrap()
        .scene;
    let sizes: Vec<(u32, u32)> = s.mip_levels.iter().map(|t| (t.width, t.height)).collect();
    assert_eq!(
        sizes,
        [
            (128, 128),
            (64, 64),
            (32, 32),
            (16, 16),
            (8, 8),
            (4, 4),
            (2, 2)
        ]
    );
    assert_eq!(s.mip_levels[0].rgba8, s.textures[0].rgba8);
    assert!(s.textures[0].srgb);
    let mask = facet::load::load_file(&path("bot_sun_mask.papa"))
        .unwrap()
        .scene;
    assert!(!mask.textures[0].srgb, "masks sample as stored");
    // Channels: one as grey, RGB opaque.
    use facet::scene::from_papa::ViewChannel;
    let mut px = vec![10, 20, 30, 40];
    ViewChannel::G.apply(&mut px);
    assert_eq!(px, [20, 20, 20, 255]);
    let mut px = vec![10, 20, 30, 40];
    ViewChannel::Rgb.apply(&mut px);
    assert_eq!(px, [10, 20, 30, 255]);
}

#[test]
fn bc_textures_render_like_their_cpu_decode() {
    // The same DXT5 texture, magnified on a quad: uploaded as BC3 (where
    // the adapter samples BC) and decoded by bcdec_rs on the CPU.
    let scene = facet::load::load_file(&path("bot_sun_diffuse.papa"))
        .unwrap()
        .scene;
    assert!(scene.textures[0].compressed.is_some());
    let req = facet::cli::headless::RenderRequest {
        width: 256,
        height: 256,
        camera: Some((0.0, 0.0, 1.4)),
        ..Default::default()
    };
    let mut gpu = common::gpu();
    if !gpu.supports_bc() {
        panic!("this adapter samples no BC textures: the CPU path is the only one tested here");
    }
    let (bc, _) = facet::cli::headless::render(&gpu, &scene, &req).unwrap();
    gpu.use_bc = false;
    let (cpu, _) = facet::cli::headless::render(&gpu, &scene, &req).unwrap();
    let differing = bc
        .pixels()
        .zip(cpu.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 10))
        .count();
    assert!(
        differing * 200 < (256 * 256),
        "{differing} pixels differ between BC and CPU decoding"
    );
}

#[test]
fn info_json_describes_papa_files() {
    let v = facet::cli::info::to_json(&facet::load::load_file(&path("bot_sun.papa")).unwrap());
    assert_eq!(v["summary"]["format"], "Papa");
    assert_eq!(v["summary"]["bones"], 14);
    // The file holds no animation; the sibling idle papa is added.
    assert_eq!(v["summary"]["clips"], 0);
    assert_eq!(v["summary"]["added"]["clips"], 1);
    let p = &v["papa"];
    assert_eq!(
        p["vertex_buffers"][0]["layout"],
        "Position3Weights4bBones4bNormal3TexCoord2"
    );
    assert_eq!(p["vertex_buffers"][0]["vertices"], 946);
    assert_eq!(p["materials"][0]["shader"], "solid");
    assert_eq!(p["materials"][0]["vectors"][0]["name"], "DiffuseColor");
    assert_eq!(
        p["skeletons"][0]["bones"][0]["bind2bone"]
            .as_array()
            .unwrap()
            .len(),
        16
    );
    assert_eq!(
        p["models"][0]["bindings"][0]["bone_map"]
            .as_array()
            .unwrap()
            .len(),
        14
    );
    assert_eq!(p["tables"][8]["table"], "animations");
    let t = facet::cli::info::to_json(&facet::load::load_file(&path("gray_diffuse.papa")).unwrap());
    assert_eq!(t["papa"]["textures"][0]["format"], "DXT1");
    assert_eq!(t["papa"]["textures"][0]["mips"], 8);
}

#[test]
fn mip_levels_halve_down_to_one_texel_and_stay_there() {
    // Found by fuzzing: a 7-bit mip count of 40 on a small texture shifted
    // a u32 by 32 and more. Level n is max(1, side >> n), by hand:
    use facet::formats::papa::level_dims;
    assert_eq!(level_dims(256, 64, 0), (256, 64));
    assert_eq!(level_dims(256, 64, 6), (4, 1));
    assert_eq!(level_dims(256, 64, 8), (1, 1));
    assert_eq!(level_dims(256, 64, 31), (1, 1));
    assert_eq!(level_dims(256, 64, 32), (1, 1));
    assert_eq!(level_dims(u16::MAX, 3, 127), (1, 1));
}

#[test]
fn table_rows_give_each_table_bytes_from_the_spec_layouts() {
    // Entry sizes summed from the field lists of specs/papa.txt:
    // String u32+u32+u64; Texture u16+u8+u8+u16+u16+u64+u64; Vertex and
    // Index Buffer u8+u8[3]+u32+u64+u64; Material 4 x u16 + 3 x u64; Mesh
    // 4 x u16 + u64; Skeleton u16+u16[3]+u64; Model (notes/papa.md) u16
    // name, i16 skeleton, u16 count, u16 padding, 64-byte matrix, u64
    // offset; Animation (notes/papa.md) i16 name, u16 bones, u32 frames,
    // u32 fps numerator and denominator, two i64 offsets.
    let entry = [
        4 + 4 + 8,
        2 + 1 + 1 + 2 + 2 + 8 + 8,
        1 + 3 + 4 + 8 + 8,
        1 + 3 + 4 + 8 + 8,
        2 * 4 + 8 * 3,
        2 * 4 + 8,
        2 + 2 * 3 + 8,
        2 + 2 + 2 + 2 + 64 + 8,
        2 + 2 + 4 + 4 + 4 + 8 + 8,
    ];
    for name in ["basic_cube.papa", "bot_sun.papa", "bot_sun_anim_idle.papa"] {
        let bytes = std::fs::read(path(name)).unwrap();
        let scene = facet::scene::from_papa::convert(
            &papa::decode(&bytes).unwrap(),
            Default::default(),
            &facet::scene::companions::NoCompanions,
        );
        let rows = &scene.source.chunks;
        assert_eq!(rows.len(), 9, "{name}");
        for (i, row) in rows.iter().enumerate() {
            // The header: magic, version, then nine u16 counts.
            let count = u16::from_le_bytes([bytes[8 + 2 * i], bytes[9 + 2 * i]]) as u64;
            // ... three u16 of padding, then nine i64 offsets.
            let at = 32 + 8 * i;
            let offset = i64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
            assert_eq!(row.size, count * entry[i], "{name} {}", row.magic);
            if offset >= 0 {
                assert_eq!(row.offset as i64, offset, "{name} {}", row.magic);
                assert_eq!(row.entries, Some(count as u32), "{name} {}", row.magic);
            } else {
                assert_eq!(row.entries, None, "{name} {}", row.magic);
                assert_eq!(row.note, "absent (-1)", "{name} {}", row.magic);
            }
        }
    }
}

/// The most strings a file can hold (the count is a u16), assembled here
/// field by field from the spec's header and string record: every one
/// decodes, and each string's extent (to the next string's characters)
/// is found by a binary search, not a scan of every string per string.
#[test]
fn the_largest_string_table_decodes() {
    let n = u16::MAX as usize;
    let table = 104; // 8 (magic, version) + 24 (counts) + 72 (offsets)
    let chars = table + 16 * n;
    let mut b = Vec::with_capacity(chars + 2 * n);
    b.extend_from_slice(b"apaP");
    b.extend_from_slice(&0x0003_0000u32.to_le_bytes());
    b.extend_from_slice(&(n as u16).to_le_bytes());
    b.extend_from_slice(&[0; 22]); // the other counts and the padding
    b.extend_from_slice(&(table as i64).to_le_bytes());
    for _ in 1..9 {
        b.extend_from_slice(&(-1i64).to_le_bytes());
    }
    assert_eq!(b.len(), table);
    for i in 0..n {
        b.extend_from_slice(&1u32.to_le_bytes()); // length
        b.extend_from_slice(&0u32.to_le_bytes()); // padding
        b.extend_from_slice(&((chars + 2 * i) as u64).to_le_bytes());
    }
    for i in 0..n {
        b.extend_from_slice(&[b'a' + (i % 26) as u8, 0]);
    }
    let p = papa::decode(&b).unwrap();
    assert_eq!(p.tables[0].count as usize, n);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

/// A name keeps at most 1,024 bytes (`papa::MAX_NAME`): items naming one
/// long string copy it each time (a 64 KB fuzz input's 272 bones named one
/// 60 KB string and took 87 MB). Three strings assembled here field by
/// field from the spec's header and string record: 2,000 ASCII bytes
/// (shortened), exactly 1,024 (kept), and 1,500 bytes of 0xFF, which is
/// not UTF-8 (read to its NUL, each byte U+FFFD: 4,500 bytes, shortened).
#[test]
fn long_strings_are_shortened_to_the_name_limit() {
    assert_eq!(papa::MAX_NAME, 1024);
    let table = 104; // 8 (magic, version) + 24 (counts) + 72 (offsets)
    let lens = [2000usize, 1024, 1500];
    let mut b = Vec::new();
    b.extend_from_slice(b"apaP");
    b.extend_from_slice(&0x0003_0000u32.to_le_bytes());
    b.extend_from_slice(&3u16.to_le_bytes());
    b.extend_from_slice(&[0; 22]); // the other counts and the padding
    b.extend_from_slice(&(table as i64).to_le_bytes());
    for _ in 1..9 {
        b.extend_from_slice(&(-1i64).to_le_bytes());
    }
    let mut at = table + 16 * lens.len();
    for len in lens {
        b.extend_from_slice(&(len as u32).to_le_bytes()); // length
        b.extend_from_slice(&0u32.to_le_bytes()); // padding
        b.extend_from_slice(&(at as u64).to_le_bytes());
        at += len + 1;
    }
    b.extend(std::iter::repeat_n(b'a', 2000));
    b.push(0);
    b.extend(std::iter::repeat_n(b'b', 1024));
    b.push(0);
    b.extend(std::iter::repeat_n(0xFF, 1500));
    b.push(0);
    let p = papa::decode(&b).unwrap();
    assert_eq!(
        p.warnings,
        [
            "string 0: 2000 bytes, longer than the 1024 a name keeps; shortened",
            "string 2: length 1500 is not its byte length; read up to its NUL",
            "string 2: 4500 bytes, longer than the 1024 a name keeps; shortened",
        ]
    );
}

/// Each model that places a skeleton under another model2scene copies its
/// bones: a file of 2,000 bones and 2,000 such models (513 KB) made 4
/// million bones and a gigabyte. The models' skeletons stop at 65,536 bones
/// in all, the first placements kept, and a warning says how many models
/// were not placed.
#[test]
fn skeleton_placements_stop_at_the_bone_budget() {
    let mut p = fixture("bot_sun.papa");
    let bone = p.skeletons[0].bones[0].clone();
    p.skeletons.truncate(1);
    p.skeletons[0].bones = (0..2000)
        .map(|i| papa::Bone {
            name: format!("b{i}"),
            parent: None,
            ..bone.clone()
        })
        .collect();
    let model = p.models[0].clone();
    p.models = (0..2000)
        .map(|i| {
            let mut m = model.clone();
            m.skeleton = Some(0);
            m.model2scene[12] = i as f32;
            m.bindings.clear();
            m
        })
        .collect();
    let bytes = papa_write::encode(&p).unwrap();
    let scene = facet::load::load_bytes("placements.papa", &bytes, None)
        .unwrap()
        .scene;
    // 32 placements of 2,000 fit under 65,536.
    assert_eq!(scene.skeleton.bones.len(), 32 * 2000);
    assert!(
        scene.warnings.contains(
            &"1968 models' skeletons are not placed: with them the scene would hold more than 65536 bones; their meshes are drawn at rest".to_string()
        ),
        "{:?}",
        scene.warnings
    );
}

/// notes §11: an animation's transforms are frame-major (frame x bones +
/// bone), VERIFIED there by the rotations' continuity over the 274
/// animations its authors had. The same on a shipped file, through the
/// viewer: bot_sun's idle clip (14 bones, 160 frames) posed at every frame
/// turns no bone far between one frame and the next, where the file's
/// keys read bone-major jump (computed here from the decoded list, so
/// that the data is shown to tell the two orders apart).
#[test]
fn animation_keys_are_frame_major_by_their_continuity() {
    let scene = facet::load::load_file(&path("bot_sun.papa")).unwrap().scene;
    let clip = &scene.clips[0];
    let mut pose = facet::anim::Pose::new(&scene.skeleton);
    let rotations = |pose: &facet::anim::Pose| -> Vec<glam::Quat> {
        pose.local
            .iter()
            .map(|m| m.to_scale_rotation_translation().1)
            .collect()
    };
    let mut before: Option<Vec<glam::Quat>> = None;
    let mut viewer_step = 0.0f32;
    for f in 0..=clip.frames {
        pose.evaluate(&scene.skeleton, Some(clip), f as f32 / 60.0);
        let now = rotations(&pose);
        if let Some(b) = &before {
            for (q0, q1) in b.iter().zip(&now) {
                viewer_step = viewer_step.max(q0.angle_between(*q1));
            }
        }
        before = Some(now);
    }
    let a = &fixture("bot_sun_anim_idle.papa").animations[0];
    let (bones, frames) = (a.bones.len(), a.frames as usize);
    let key = |i: usize| glam::Quat::from_array(a.transforms[i].1);
    let step = |at: &dyn Fn(usize, usize) -> usize| {
        (0..bones)
            .flat_map(|b| (1..frames).map(move |f| (b, f)))
            .map(|(b, f)| key(at(b, f - 1)).angle_between(key(at(b, f))))
            .fold(0.0f32, f32::max)
    };
    let frame_major = step(&|b, f| f * bones + b);
    let bone_major = step(&|b, f| b * frames + f);
    // Measured: 0.0131 rad at most through the viewer and in the keys
    // read frame-major, 2.97 read bone-major.
    assert!(
        viewer_step < 0.05 && (viewer_step - frame_major).abs() < 1e-4,
        "the idle turns a bone {viewer_step} rad in a frame (keys: {frame_major})"
    );
    // notes §11: unit quaternions, within 1e-5.
    for (i, (_, q)) in a.transforms.iter().enumerate() {
        let len = glam::Quat::from_array(*q).length();
        assert!((len - 1.0).abs() < 1e-5, "key {i}: |q| = {len}");
    }
    assert!(bone_major > 0.5, "bone-major reading: {bone_major} rad");
}
