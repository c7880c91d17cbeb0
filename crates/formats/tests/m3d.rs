//! Model 3D: every fixture against the reference SDK's counts
//! (`../shared/notes/m3d.md`), writer round trips for every width and record
//! kind, truncation and hostile input.

mod common;
use facet_formats::m3d::{self, *};
use facet_formats::m3d_write;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(common::shared().join("fixtures/m3d").join(name)).unwrap()
}

fn decode_fixture(name: &str) -> M3d {
    m3d::decode(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn triangles(m: &M3d) -> usize {
    m.faces.iter().map(|f| f.len().saturating_sub(2)).sum()
}

/// m3d.h's `numvertex` after loading: the VRTS list, doubled when it had to
/// generate normals (it appends one per vertex).
fn reference_vertices(m: &M3d) -> usize {
    let generated = m
        .faces
        .iter()
        .any(|f| f.points().any(|p| p.normal().is_none()));
    m.vertices.len() * if generated { 2 } else { 1 }
}

/// (file, verts, faces, materials, bones, skins, actions, voxel types,
/// shapes, inlined assets)
type Counts = (
    &'static str,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
);

#[test]
fn fixtures_match_the_reference_sdk_counts() {
    // (file, verts, faces, materials, bones, skins, actions, voxel types,
    // shapes, inlined assets), from notes/m3d.md.
    let cases: &[Counts] = &[
        ("WusonBlitz0.m3d", 3846, 3732, 0, 0, 0, 0, 0, 0, 0),
        ("WusonBlitz2.m3d", 4234, 3732, 0, 0, 0, 0, 0, 0, 0),
        ("aliveai_character.m3d", 220, 84, 1, 6, 6, 1, 0, 0, 0),
        ("cube_normals.m3d", 11, 12, 0, 0, 0, 0, 0, 0, 0),
        ("cube_usemtl.m3d", 11, 12, 3, 0, 0, 0, 0, 0, 0),
        ("cube_with_vertexcolors.m3d", 11, 12, 0, 0, 0, 0, 0, 0, 0),
        ("suzanne.m3d", 1012, 968, 0, 0, 0, 0, 0, 0, 0),
        ("suzanne_uncompressed.m3d", 1012, 968, 0, 0, 0, 0, 0, 0, 0),
        ("viper.m3d", 2323, 2185, 2, 0, 0, 0, 0, 0, 1),
        ("CesiumMan.m3d", 6189, 4672, 1, 19, 926, 1, 0, 0, 0),
        (
            "CesiumMan_uncompressed.m3d",
            6189,
            4672,
            1,
            19,
            926,
            1,
            0,
            0,
            0,
        ),
        ("voxel.m3d", 0, 0, 0, 0, 0, 0, 3, 0, 0),
        ("lantea.m3d", 0, 0, 0, 0, 0, 0, 23, 0, 0),
        ("bezier.m3d", 13, 0, 0, 0, 0, 0, 0, 1, 0),
        ("nurbs.m3d", 9, 0, 0, 0, 0, 0, 0, 1, 0),
        ("cube.m3d", 16, 12, 0, 0, 0, 0, 0, 0, 0),
        ("cube_uncompressed.m3d", 16, 12, 0, 0, 0, 0, 0, 0, 0),
    ];
    for &(file, verts, faces, mats, bones, skins, actions, voxt, shapes, inlined) in cases {
        let m = decode_fixture(file);
        let got = (
            reference_vertices(&m),
            triangles(&m),
            m.materials.len(),
            m.bones.len(),
            m.skins.len(),
            m.actions.len(),
            m.voxel_types.len(),
            m.shapes.len(),
            m.assets.len(),
        );
        assert_eq!(
            got,
            (
                verts, faces, mats, bones, skins, actions, voxt, shapes, inlined
            ),
            "{file}: (verts, faces, materials, bones, skins, actions, voxel types, shapes, inlined)"
        );
        assert!(m.warnings.is_empty(), "{file}: {:?}", m.warnings);
    }
    let a = &decode_fixture("aliveai_character.m3d").actions[0];
    assert_eq!(
        (a.name.as_str(), a.frames.len(), a.duration_ms),
        ("Global", 102, 10250)
    );
    let a = &decode_fixture("CesiumMan.m3d").actions[0];
    assert_eq!(
        (a.name.as_str(), a.frames.len(), a.duration_ms),
        ("Anim", 48, 1920)
    );
    // SOURCES.md: CesiumMan has 4 weights per vertex; the chunk sizes.
    let m = decode_fixture("CesiumMan.m3d");
    assert_eq!(m.types.nb, 4);
    let sizes: Vec<(&str, u32)> = m.chunks.iter().map(|c| (&*c.magic, c.size)).collect();
    assert_eq!(
        sizes,
        [
            ("HEAD", 422),
            ("CMAP", 16),
            ("TMAP", 5232),
            ("VRTS", 43331),
            ("BONE", 6813),
            ("MTRL", 34),
            ("MESH", 88779),
            ("ACTN", 4816)
        ]
    );
    assert_eq!(m.name, "Cesium_Man");
}

#[test]
fn compressed_and_plain_fixtures_decode_the_same() {
    for (a, b) in [
        ("cube.m3d", "cube_uncompressed.m3d"),
        ("suzanne.m3d", "suzanne_uncompressed.m3d"),
        ("CesiumMan.m3d", "CesiumMan_uncompressed.m3d"),
    ] {
        let (x, mut y) = (decode_fixture(a), decode_fixture(b));
        assert!(x.compressed && !y.compressed);
        y.compressed = true;
        assert_eq!(x, y, "{a} vs {b}");
    }
}

/// `fuzz::m3d_plain` (the seeds of the fuzzer and the sweeps) stores a
/// compressed file's chunks plain as the M3D tools do: the fixtures'
/// `_uncompressed` twins, made by those tools, are its output byte for
/// byte. A file stored plain already gives `None`.
#[test]
fn m3d_plain_gives_the_tools_uncompressed_files() {
    for (a, b) in [
        ("cube.m3d", "cube_uncompressed.m3d"),
        ("suzanne.m3d", "suzanne_uncompressed.m3d"),
        ("CesiumMan.m3d", "CesiumMan_uncompressed.m3d"),
    ] {
        let plain = facet_formats::fuzz::m3d_plain(&fixture(a)).unwrap();
        assert!(plain == fixture(b), "{a} stored plain is not {b}");
        assert_eq!(facet_formats::fuzz::m3d_plain(&fixture(b)), None);
    }
}

/// Inlined asset bytes: the decoder keeps them as they are (PNG decoding
/// is the scene's), so any bytes will do; a PNG signature and a size tag.
fn png(w: u32, h: u32) -> Vec<u8> {
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    out.extend(w.to_be_bytes());
    out.extend(h.to_be_bytes());
    out
}

/// Every record kind, with values exact in `t` (coordinates k/127, colours
/// in the map, indices small enough for 1-byte types).
fn everything(t: Types) -> M3d {
    // Coordinates exact in the chosen type: steps of 1/127 or 1/32767.
    let q = if t.vc == 2 { 32767.0 } else { 127.0 };
    let c = |x: i32| x as f32 / q;
    let full = [0xFF00_00FFu32, 0xFF00_FF00, 0x80FF_0000, 0xFFFF_FFFF];
    // Without a colour type every colour reads as 0 (as in m3d.h).
    let cmap: Vec<u32> = full
        .iter()
        .map(|&c| if t.ci == 0 { 0 } else { c })
        .collect();
    let color = |i: usize| if t.ci != 0 { cmap[i % cmap.len()] } else { 0 };
    let mut vertices: Vec<Vertex> = (0..12)
        .map(|i| Vertex {
            pos: [c(i * 7 - 40), c(100 - i * 9), c(i * 3), c(127)],
            color: color(i as usize),
            skin: if t.sk == 0 { NONE } else { (i % 3) as u32 },
        })
        .collect();
    // A quaternion record and a normal.
    vertices.push(Vertex {
        pos: [0.0, c(90), 0.0, c(90)],
        color: color(0),
        skin: if t.sk == 0 { NONE } else { QUATERNION },
    });
    vertices.push(Vertex {
        pos: [0.0, c(127), 0.0, c(127)],
        color: color(1),
        skin: NONE,
    });
    let uv = |x: u32| x as f32 / 255.0;
    let tmap = if t.ti == 0 {
        vec![]
    } else {
        (0..6).map(|i| [uv(i * 40), uv(255 - i * 30)]).collect()
    };
    let with_uv = |i: u32| (t.ti != 0).then_some(i % 6);
    let point = FacePoint::new;
    let materials = vec![
        Material {
            name: "paint".into(),
            props: vec![
                Property {
                    ty: 0,
                    value: PropValue::Color(cmap[0]),
                },
                Property {
                    ty: 3,
                    value: PropValue::Float(32.5),
                },
                Property {
                    ty: 8,
                    value: PropValue::Int(2),
                },
                Property {
                    ty: 64,
                    value: PropValue::Float(0.25),
                },
                Property {
                    ty: 128,
                    value: PropValue::Map("skin_tex".into()),
                },
                Property {
                    ty: 136,
                    value: PropValue::Map("normals".into()),
                },
            ],
        },
        Material {
            name: "glass".into(),
            props: vec![
                Property {
                    ty: 4,
                    value: PropValue::Color(cmap[2]),
                },
                Property {
                    ty: 7,
                    value: PropValue::Float(0.5),
                },
            ],
        },
    ];
    let mut faces = Faces::default();
    faces.push(
        None,
        &(0..3)
            .map(|v| point(v, None, None, None))
            .collect::<Vec<_>>(),
    );
    faces.push(
        Some(0),
        &(1..4)
            .map(|v| point(v, with_uv(v), None, None))
            .collect::<Vec<_>>(),
    );
    faces.push(
        Some(0),
        &(3..6)
            .map(|v| point(v, None, Some(13), None))
            .collect::<Vec<_>>(),
    );
    faces.push(
        Some(1),
        &(4..8)
            .map(|v| point(v, with_uv(v), Some(13), None))
            .collect::<Vec<_>>(),
    );
    faces.push(
        Some(1),
        &(6..11)
            .map(|v| point(v, None, None, Some(v + 1)))
            .collect::<Vec<_>>(),
    );
    faces.push(
        None,
        &(0..15)
            .map(|v| point(v % 12, None, None, None))
            .collect::<Vec<_>>(),
    );
    let bones = vec![
        Bone {
            parent: None,
            name: "root".into(),
            pos: 0,
            ori: 12,
        },
        Bone {
            parent: Some(0),
            name: "arm".into(),
            pos: 1,
            ori: 12,
        },
        Bone {
            parent: Some(1),
            name: String::new(),
            pos: 2,
            ori: 12,
        },
    ];
    let skins = if t.sk == 0 {
        vec![]
    } else {
        vec![
            Skin::new(&[(0, 255)]),
            Skin::new(if t.nb == 1 {
                &[(1, 255)]
            } else {
                &[(1, 127), (2, 128)]
            }),
            Skin::new(if t.nb >= 4 {
                &[(0, 100), (1, 100), (2, 55)]
            } else {
                &[(2, 255)]
            }),
        ]
    };
    let voxel_types = vec![
        VoxelType {
            color: cmap[1],
            name: "dirt".into(),
            rotation: 0x05,
            shape: 0,
            skin: if t.sk == 0 { NONE } else { 1 },
            items: vec![],
        },
        VoxelType {
            color: cmap[3],
            name: String::new(),
            rotation: 0x80,
            shape: 300,
            skin: NONE,
            items: vec![(3, "gold".into()), (1, "key".into())],
        },
    ];
    let block = VoxelBlock {
        name: "ground".into(),
        pos: [-2, 0, -1],
        size: [3, 2, 2],
        uncertainty: 10,
        group: 1,
        data: vec![0, 0, 0, 1, VOXEL_UNSET, 1, 0, VOXEL_CLEAR, 0, 1, 1, 1],
    };
    M3d {
        compressed: false,
        ascii: false,
        payload_len: 0,
        preview: Some(png(4, 4)),
        scale: 2.5,
        types: t,
        name: "test model".into(),
        license: "MIT".into(),
        author: "facet tests".into(),
        description: "META\nGENERATOR=facet-0".into(),
        cmap: if t.ci == 1 || t.ci == 2 {
            full.to_vec()
        } else {
            vec![]
        },
        tmap,
        vertices,
        bones,
        skins,
        materials,
        faces,
        parameters: vec!["open".into()],
        voxel_types,
        voxel_blocks: vec![block],
        labels: vec![
            Label {
                group: "parts".into(),
                lang: "en_GB".into(),
                color: cmap[0],
                vertex: 3,
                text: "handle".into(),
            },
            Label {
                group: "parts".into(),
                lang: "en_GB".into(),
                color: cmap[0],
                vertex: 5,
                text: "blade".into(),
            },
            Label {
                group: String::new(),
                lang: String::new(),
                color: cmap[1],
                vertex: 0,
                text: "origin".into(),
            },
        ],
        actions: vec![Action::from_frames(
            "wave",
            1000,
            [
                (
                    0,
                    vec![Transform {
                        bone: 1,
                        pos: 1,
                        ori: 12,
                    }],
                ),
                (
                    500,
                    vec![
                        Transform {
                            bone: 1,
                            pos: 4,
                            ori: 13,
                        },
                        Transform {
                            bone: 2,
                            pos: 5,
                            ori: 13,
                        },
                    ],
                ),
            ],
        )],
        assets: vec![Asset {
            name: "skin_tex".into(),
            data: png(2, 2),
        }],
        shapes: vec![("sphere".into(), 0)],
        procedures: vec!["terrain.lua".into()],
        chunks: vec![],
        warnings: vec![],
    }
}

/// Types from sizes [vc, vi, si, ci, ti, bi, nb, sk, fc, vd, vp].
fn types(s: [u8; 11]) -> Types {
    let [vc, vi, si, ci, ti, bi, nb, sk, fc, vd, vp] = s;
    Types {
        vc,
        vi,
        si,
        ci,
        ti,
        bi,
        nb,
        sk,
        fc,
        hi: 0,
        fi: 0,
        vd,
        vp,
    }
}

/// `decode(encode(m)) == m`, up to what the decoder adds (chunk list, sizes).
fn round_trip(m: &M3d, compress: bool) -> M3d {
    let bytes = m3d_write::encode(m, compress).unwrap();
    let mut back = m3d::decode(&bytes).unwrap_or_else(|e| panic!("{:?}: {e}", m.types));
    assert_eq!(back.compressed, compress);
    back.compressed = false;
    back.payload_len = 0;
    back.chunks.clear();
    for (n, s) in &mut back.shapes {
        assert!(*s > 0, "shape {n}");
        *s = 0;
    }
    back
}

#[test]
fn every_width_round_trips() {
    let base = types([1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1]);
    let mut variants = vec![base];
    for vc in [2, 4, 8] {
        variants.push(Types { vc, ..base });
    }
    for vi in [2, 4] {
        variants.push(Types { vi, ..base });
    }
    for si in [2, 4] {
        variants.push(Types { si, ..base });
    }
    for ci in [0, 2, 4] {
        variants.push(Types { ci, ..base });
    }
    for ti in [0, 2, 4] {
        variants.push(Types { ti, ..base });
    }
    for bi in [2, 4] {
        variants.push(Types { bi, ..base });
    }
    for nb in [1, 4, 8] {
        variants.push(Types { nb, ..base });
    }
    for sk in [0, 2, 4] {
        variants.push(Types { sk, ..base });
    }
    for fc in [2, 4] {
        variants.push(Types { fc, ..base });
    }
    for vd in [2, 4] {
        variants.push(Types { vd, ..base });
    }
    variants.push(Types { vp: 2, ..base });
    variants.push(types([4, 4, 4, 4, 4, 4, 8, 4, 4, 4, 2]));
    variants.push(types([8, 2, 2, 2, 2, 2, 4, 2, 2, 2, 2]));
    for t in variants {
        let m = everything(t);
        for compress in [false, true] {
            let back = round_trip(&m, compress);
            // Field by field, so a failure names the part that differs.
            let fields = |x: &M3d| {
                let d = format!("{x:#?}");
                d.lines().map(str::to_string).collect::<Vec<_>>()
            };
            let (a, b) = (fields(&back), fields(&m));
            if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
                panic!(
                    "types {t:?}, compressed {compress}: line {i}: decoded {:?}, written {:?}",
                    a.get(i),
                    b.get(i)
                );
            }
            assert_eq!(back, m);
        }
    }
}

#[test]
fn indices_sign_extend_like_the_reference() {
    // 255 (1 byte) and 65535 (2 bytes) are -1; 254 / 65534 are -2.
    let mut m = everything(types([1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1]));
    m.vertices[0].skin = QUATERNION;
    m.vertices[1].skin = NONE;
    let bytes = m3d_write::encode(&m, false).unwrap();
    let back = m3d::decode(&bytes).unwrap();
    assert_eq!(
        (back.vertices[0].skin, back.vertices[1].skin),
        (QUATERNION, NONE)
    );
    assert_eq!(back.bones[0].parent, None);
}

fn truncations(bytes: &[u8]) {
    for len in 0..bytes.len() {
        let r = std::panic::catch_unwind(|| m3d::decode(&bytes[..len]))
            .unwrap_or_else(|_| panic!("decoder panicked on a file cut to {len} bytes"));
        assert!(
            r.is_err(),
            "cut to {len} of {} bytes but decoded",
            bytes.len()
        );
    }
}

#[test]
fn truncation_at_every_byte_is_an_error() {
    let m = everything(types([2, 2, 2, 1, 2, 1, 4, 1, 1, 1, 1]));
    truncations(&m3d_write::encode(&m, false).unwrap());
    truncations(&m3d_write::encode(&m, true).unwrap());
    truncations(&fixture("cube_with_vertexcolors.m3d"));
    truncations(&fixture("voxel.m3d"));
}

fn err(bytes: &[u8]) -> String {
    m3d::decode(bytes).unwrap_err().to_string()
}

#[test]
fn hostile_files_give_clear_errors() {
    let t = types([1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1]);
    // A face pointing past the vertex list.
    let mut m = everything(t);
    m.faces.set_vertex(1, 200);
    let e = err(&m3d_write::encode(&m, false).unwrap());
    assert!(
        e.contains("face 0 point 1 vertex")
            && e.contains("200 is out of range (14 entries)")
            && e.contains("MESH chunk at 0x"),
        "{e}"
    );

    // A voxel block of a billion voxels from a few bytes.
    let mut m = everything(Types { vd: 2, ..t });
    m.voxel_blocks[0].size = [1000, 1000, 1000];
    m.voxel_blocks[0].data = vec![0; 4];
    let e = err(&m3d_write::encode(&m, false).unwrap());
    assert!(e.contains("VOXD chunk") && e.contains("voxel limit"), "{e}");

    // A zlib bomb: the cap stops it (a 1 KiB cap here, 256 MiB by default).
    let m = everything(t);
    let bytes = m3d_write::encode(&m, true).unwrap();
    let e = m3d::decode_with_limit(&bytes, 256).unwrap_err().to_string();
    assert!(
        e.contains("zlib payload at offset 0x") && e.contains("inflates past the 256-byte limit"),
        "{e}"
    );

    // Not zlib, not HEAD.
    let mut bad = b"3DMO\x10\x00\x00\x00garbage!".to_vec();
    bad.truncate(16);
    let e = err(&bad);
    assert!(e.contains("decompression failed"), "{e}");

    // A chunk whose length runs past the payload.
    let m = everything(t);
    let mut bytes = m3d_write::encode(&m, false).unwrap();
    let vrts = bytes.windows(4).position(|w| w == b"VRTS").unwrap();
    bytes[vrts + 4..vrts + 8].copy_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    let e = err(&bytes);
    assert!(
        e.contains("VRTS chunk length") && e.contains("does not fit"),
        "{e}"
    );

    // No OMD3 at the end.
    let mut bytes = m3d_write::encode(&m, false).unwrap();
    let n = bytes.len();
    bytes[n - 1] = b'X';
    assert!(err(&bytes).contains("does not end with OMD3"));

    // A bone whose parent comes after it.
    let mut m = everything(t);
    m.bones[0].parent = Some(2);
    let e = err(&m3d_write::encode(&m, false).unwrap());
    assert!(
        e.contains("bone 0 parent") && e.contains("must come before"),
        "{e}"
    );

    // Errors inside an inflated payload say so.
    let mut m = everything(t);
    m.faces.set_vertex(0, 99);
    let e = err(&m3d_write::encode(&m, true).unwrap());
    assert!(
        e.contains("inflated payload") && e.contains("offsets are in it"),
        "{e}"
    );
}

#[test]
fn undefined_materials_and_unknown_chunks_are_warnings() {
    let t = types([1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1]);
    let mut m = everything(t);
    m.materials.remove(1);
    let faces = std::mem::take(&mut m.faces);
    for f in faces.iter() {
        let points: Vec<_> = f.points().collect();
        let material = f.material.map(|x| if x == 1 { 0 } else { x });
        m.faces.push(material, &points);
    }
    let mut bytes = m3d_write::encode(&m, false).unwrap();
    // Turn the MTRL chunk into an application chunk ("mtrl"): the faces now
    // name a material the file does not define.
    let at = bytes.windows(4).position(|w| w == b"MTRL").unwrap();
    bytes[at..at + 4].copy_from_slice(b"mtrl");
    // An application chunk before OMD3.
    let n = bytes.len();
    let mut tail = b"blnd\x0C\x00\x00\x00abcd".to_vec();
    tail.extend(b"OMD3");
    bytes.splice(n - 4.., tail);
    let size = bytes.len() as u32;
    bytes[4..8].copy_from_slice(&size.to_le_bytes());
    let back = m3d::decode(&bytes).unwrap();
    assert!(
        back.warnings
            .iter()
            .any(|w| w.contains("material \"paint\"") && w.contains("not defined")),
        "{:?}",
        back.warnings
    );
    assert!(back.faces.iter().all(|f| f.material.is_none()));
    assert!(
        back.chunks
            .iter()
            .any(|c| c.magic == "blnd" && c.size == 12)
    );
    assert!(back.chunks.iter().any(|c| c.magic == "mtrl"));
    assert!(back.materials.is_empty());
}

/// The columnar face store hands back every face as pushed: triangles
/// before and after the first polygon, UV and normal columns that appear
/// part way (earlier corners read as absent), material runs.
#[test]
fn faces_hand_back_what_was_pushed() {
    let p = FacePoint::new;
    let faces_in: Vec<(Option<u32>, Vec<FacePoint>)> = vec![
        (
            None,
            vec![
                p(0, None, None, None),
                p(1, None, None, None),
                p(2, None, None, None),
            ],
        ),
        (
            Some(2),
            vec![
                p(3, None, None, None),
                p(4, None, None, None),
                p(5, None, None, None),
            ],
        ),
        (
            Some(2),
            vec![
                p(6, Some(1), None, None),
                p(7, Some(2), None, None),
                p(8, None, None, None),
                p(9, Some(3), None, None),
            ],
        ),
        (
            Some(0),
            vec![
                p(1, None, Some(7), None),
                p(2, None, Some(8), Some(9)),
                p(3, None, None, None),
            ],
        ),
        (None, vec![p(4, None, None, None)]),
    ];
    let faces: Faces = faces_in.iter().cloned().collect();
    assert_eq!(faces.len(), 5);
    assert_eq!(faces.corners(), 3 + 3 + 4 + 3 + 1);
    // Fan triangles: 1 + 1 + 2 + 1 + 0.
    assert_eq!(faces.triangles(), 5);
    assert!(faces.has_uvs() && faces.has_normals());
    let out: Vec<(Option<u32>, Vec<FacePoint>)> = faces
        .iter()
        .map(|f| (f.material, f.points().collect()))
        .collect();
    assert_eq!(out, faces_in);
    for (i, (material, points)) in faces_in.iter().enumerate() {
        let f = faces.get(i).unwrap();
        assert_eq!(f.material, *material, "face {i}");
        assert_eq!(f.points().collect::<Vec<_>>(), *points, "face {i}");
    }
    assert!(faces.get(5).is_none());
    // Triangles only: no UV or normal column at all.
    let plain: Faces = [(
        None,
        [
            p(0, None, None, None),
            p(1, None, None, None),
            p(2, None, None, None),
        ],
    )]
    .into_iter()
    .collect();
    assert!(!plain.has_uvs() && !plain.has_normals());
    assert_eq!(plain.get(0).unwrap().point(2).vertex, 2);
}

/// A chunk as `specs/m3d.md` lays every chunk out: its magic, its length
/// (header included) and its body.
fn chunk(magic: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut c = magic.to_vec();
    c.extend((8 + body.len() as u32).to_le_bytes());
    c.extend(body);
    c
}

/// A HEAD chunk: scale 1.0, the variable types `types`, and a string table
/// of the four empty strings (name, license, author, description).
fn head(types: u32) -> Vec<u8> {
    let mut body = 1.0f32.to_le_bytes().to_vec();
    body.extend(types.to_le_bytes());
    body.extend([0, 0, 0, 0]);
    chunk(b"HEAD", &body)
}

/// An uncompressed file: "3DMO", the file's length, the chunks and the
/// closing "OMD3".
fn plain_file(chunks: &[Vec<u8>]) -> Vec<u8> {
    let payload: Vec<u8> = chunks.concat().into_iter().chain(*b"OMD3").collect();
    let mut file = b"3DMO".to_vec();
    file.extend((8 + payload.len() as u32).to_le_bytes());
    file.extend(payload);
    file
}

/// A run of three triangle records whose third has a vertex index past
/// VRTS, bytes laid out by hand from `specs/m3d.md`: the error names that
/// face, that point and the byte it sits at.
#[test]
fn a_bad_index_late_in_a_run_of_faces_names_its_face_and_byte() {
    // Types: int8 coordinates, u8 vertex and string indices (00), no
    // colour (bits 6-7), texture (8-9), bone (10-11), skin (14-15) or
    // voxel dimension (22-23) types.
    let types: u32 = (3 << 6) | (3 << 8) | (3 << 10) | (3 << 14) | (3 << 22);
    let mut file = plain_file(&[
        head(types),
        chunk(b"VRTS", &[0, 0, 0, 127, 127, 0, 0, 127, 0, 127, 0, 127]), // x y z w
        // Magic 0x30: three points, no UV, normal or maximum index.
        chunk(b"MESH", &[0x30, 0, 1, 2, 0x30, 0, 2, 1, 0x30, 1, 7, 2]),
    ]);
    let e = err(&file);
    // MESH at payload offset 40, records from 48; the third at 56, its
    // second point at 58; the payload starts at file offset 8.
    assert!(
        e.contains("face 2 point 1 vertex") && e.contains("7 is out of range (3 entries)"),
        "{e}"
    );
    assert!(e.contains("0x42"), "{e}");
    // The same bytes with the index in range decode to three faces.
    file[8 + 58] = 0;
    let m = m3d::decode(&file).unwrap();
    assert_eq!(m.faces.len(), 3);
    assert_eq!(m.faces.vertices(), &[0, 1, 2, 0, 2, 1, 1, 0, 2]);
}

/// Errors inside a bone or an action frame name that record (the numbers
/// join the field's name only when there is an error), bytes laid out by
/// hand from `specs/m3d.md`: a second bone whose name offset is past the
/// string table, and an action whose second frame runs past its chunk.
#[test]
fn errors_in_bones_and_frames_name_the_record() {
    // Types: int8 coordinates, u8 vertex, string and bone indices and
    // frame bone counts (00); no colour (bits 6-7), texture (8-9), skin
    // (14-15) or voxel dimension (22-23) types.
    let types: u32 = (3 << 6) | (3 << 8) | (3 << 14) | (3 << 22);
    let file = |bone: &[u8], action: &[u8]| {
        plain_file(&[
            head(types),
            chunk(b"VRTS", &[0, 0, 0, 127, 0, 0, 0, 127]), // a point, a quaternion
            chunk(b"BONE", bone),
            chunk(b"ACTN", action),
        ])
    };
    // Two bones (no skin count: sk_t undefined), each parent, name,
    // position, orientation; the root's parent is 0xFF (-1).
    let bones = |name1: u8| vec![2, 0xFF, 0, 0, 1, 0, name1, 0, 1];
    // Action: name 0, 2 frames, 1000 ms; frame 0 at 0 ms moves bone 1;
    // frame 1 at 500 ms claims 3 bones and holds one.
    let frames = |count1: u8| {
        let mut a = vec![0, 2, 0, 0xE8, 0x03, 0, 0];
        a.extend([0, 0, 0, 0, 1, 1, 0, 1]);
        a.extend([0xF4, 0x01, 0, 0, count1, 1, 0, 1]);
        a
    };
    let m = m3d::decode(&file(&bones(0), &frames(1))).unwrap();
    assert_eq!(m.bones.len(), 2);
    let a = &m.actions[0];
    assert_eq!(a.frames.len(), 2);
    assert_eq!(a.frames[1].msec, 500);
    let t = a.transforms_of(&a.frames[1]);
    assert_eq!((t.len(), t[0].bone, t[0].pos, t[0].ori), (1, 1, 0, 1));

    // The string table is the four empty strings: offset 9 is past it.
    let e = err(&file(&bones(9), &frames(1)));
    assert!(
        e.contains("BONE chunk at 0x") && e.contains(": bone 1 name"),
        "{e}"
    );
    assert!(
        e.contains("string offset 9 is past the string table"),
        "{e}"
    );
    // Frame 1's three transforms of three bytes need 9 bytes; 3 are left.
    let e = err(&file(&bones(0), &frames(3)));
    assert!(
        e.contains("ACTN chunk at 0x") && e.contains(": frame 1 transforms"),
        "{e}"
    );
}

/// An action's transforms in every bone and vertex index width a file
/// may have (1, 2 or 4 bytes each), bytes laid out by hand from
/// `specs/m3d.md` (BONE: count, then parent, name, position, orientation
/// a bone; ACTN: name, u16 frames, u32 ms, then a frame's u32 ms, fc_t
/// count and (bone, position, orientation) records). Then the same file
/// with the second transform's bone past the two bones: the error names
/// the frame and the byte it sits at.
#[test]
fn action_transforms_read_in_every_index_width() {
    let le = |v: u64, width: usize| v.to_le_bytes()[..width].to_vec();
    for (bi, vi) in [
        (1, 1),
        (1, 2),
        (2, 1),
        (2, 2),
        (1, 4),
        (2, 4),
        (4, 2),
        (4, 4),
    ] {
        let code = |w: usize| w.trailing_zeros();
        // int8 coordinates, u8 strings and frame counts; no colour,
        // texture, skin or voxel types.
        let types: u32 =
            (code(vi) << 2) | (3 << 6) | (3 << 8) | (code(bi) << 10) | (3 << 14) | (3 << 22);
        // Three vertices: x, y, z, w as int8.
        let vrts = [0, 0, 0, 127, 0, 0, 0, 127, 127, 0, 0, 127];
        let mut bone = le(2, bi); // two bones, no skin count
        for (parent, pos, ori) in [(u64::MAX, 0, 1), (0, 2, 1)] {
            bone.extend(le(parent, bi));
            bone.push(0); // no name
            bone.extend(le(pos, vi));
            bone.extend(le(ori, vi));
        }
        let action = |second_bone: u64| {
            let mut a = vec![0]; // no name
            a.extend(1u16.to_le_bytes()); // one frame
            a.extend(1000u32.to_le_bytes());
            a.extend(250u32.to_le_bytes()); // at 250 ms
            a.push(2); // two transforms
            for (b, pos, ori) in [(1, 2, 0), (second_bone, 0, 1)] {
                a.extend(le(b, bi));
                a.extend(le(pos, vi));
                a.extend(le(ori, vi));
            }
            a
        };
        let file = |second_bone: u64| {
            plain_file(&[
                head(types),
                chunk(b"VRTS", &vrts),
                chunk(b"BONE", &bone),
                chunk(b"ACTN", &action(second_bone)),
            ])
        };
        let m = m3d::decode(&file(0)).unwrap();
        let a = &m.actions[0];
        assert_eq!((a.duration_ms, a.frames.len()), (1000, 1), "{bi} {vi}");
        assert_eq!(a.frames[0].msec, 250);
        let t: Vec<_> = a
            .transforms_of(&a.frames[0])
            .iter()
            .map(|t| (t.bone, t.pos, t.ori))
            .collect();
        assert_eq!(t, [(1, 2, 0), (0, 0, 1)], "bone {bi} vertex {vi} bytes");

        // In the file: its header (8), HEAD (20) and VRTS (20) chunks,
        // then BONE and ACTN's chunk header (8 each); in ACTN, 12 bytes
        // before the frame's records (name 1, frames 2, duration 4, the
        // frame's time 4 and count 1), then the first record.
        let second = 8 + 20 + 20 + (8 + bone.len()) + 8 + 12 + (bi + 2 * vi);
        let e = err(&file(2));
        assert!(e.contains("ACTN chunk at 0x"), "{e}");
        assert!(
            e.contains(&format!("frame 0 transform at offset {second:#X}"))
                && e.contains("bone 2 / vertices 0, 1 out of range (2 bones, 3 vertices)"),
            "bone {bi} vertex {vi} bytes: {e}"
        );
    }
}

/// MESH indices as m3d.h reads them when the vertex list is longer than a
/// byte can count (bytes laid out by hand from `specs/m3d.md`, 300 vertices
/// with one-byte indices): 253 is a vertex, 255 is -1 (an absent normal),
/// and 254 is -2, out of range even though 254 < 300.
#[test]
fn one_byte_mesh_indices_near_the_top_sign_extend() {
    // Types: int8 coordinates, u8 vertex and string indices; no colour,
    // texture, bone, skin or voxel dimension types.
    let types: u32 = (3 << 6) | (3 << 8) | (3 << 10) | (3 << 14) | (3 << 22);
    let file = |second: u8| {
        let vertices: Vec<u8> = (0..300u32)
            .flat_map(|i| [(i % 100) as u8, (i / 100) as u8, 0, 127])
            .collect();
        plain_file(&[
            head(types),
            chunk(b"VRTS", &vertices),
            // Magic 0x32: three points with a normal index each.
            chunk(
                b"MESH",
                &[0x32, 253, 0, 1, 255, 2, 0, 0x32, 0, 0, second, 0, 1, 0],
            ),
        ])
    };
    let m = m3d::decode(&file(3)).unwrap();
    assert_eq!(m.faces.vertices(), &[253, 1, 2, 0, 3, 1]);
    let normals = m.faces.normal_column().expect("normals");
    assert_eq!(normals, &[0, m3d::NONE, 0, 0, 0, 0]);
    let e = err(&file(254));
    assert!(
        e.contains("face 1 point 1 vertex")
            && e.contains("4294967294 is out of range (300 entries)"),
        "{e}"
    );
}

/// A voxel block whose three 32-bit sizes multiply past 64 bits (2^22
/// each: 2^66 voxels, which wraps to 0) is refused as over the voxel
/// limit, not read as an empty block (found by fuzzing; bytes laid out by
/// hand from `specs/m3d.md`).
#[test]
fn a_voxel_block_whose_size_overflows_64_bits_is_refused() {
    // Types: int8 coordinates, u8 vertex and string indices, 4-byte voxel
    // dimensions (bits 22-23 = 10), one-byte voxel pixels; no colour,
    // texture, bone or skin types.
    let types: u32 = (3 << 6) | (3 << 8) | (3 << 10) | (3 << 14) | (2 << 22);
    let mut voxd = vec![0]; // name
    for _ in 0..3 {
        voxd.extend(0i32.to_le_bytes()); // position
    }
    for _ in 0..3 {
        voxd.extend((1u32 << 22).to_le_bytes()); // size
    }
    voxd.extend([0, 0]); // uncertainty, group
    let file = plain_file(&[head(types), chunk(b"VOXD", &voxd)]);
    let e = err(&file);
    assert!(
        e.contains("block size") && e.contains("4194304x4194304x4194304 voxels is over the"),
        "{e}"
    );
}

/// An action built by hand whose frame names transforms past its list is
/// refused by the writer with a message naming the action and frame (a
/// panic before the frames' transforms were one list).
#[test]
fn the_writer_refuses_a_frame_range_past_the_transforms() {
    let mut m = everything(types([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]));
    m.actions[0].frames[1].transforms = 1..9;
    let e = m3d_write::encode(&m, false).unwrap_err();
    assert!(
        e.contains("action \"wave\"") && e.contains("500 ms") && e.contains("1..9 of 3"),
        "{e}"
    );
    // What the reader side gives for such a frame: no transforms.
    assert!(
        m.actions[0]
            .transforms_of(&m.actions[0].frames[1])
            .is_empty()
    );
}
