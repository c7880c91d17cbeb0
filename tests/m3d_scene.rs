//! Model 3D files as scenes: conversion (materials, vertex colours, voxels,
//! skins, labels), m3d_pose animation against hand-computed poses, and image
//! tests of the fixtures (tolerances in tests/common).

mod common;
use facet::anim::Pose;
use facet::anim::sequence::m3d_nlerp;
use facet::formats::m3d::{self, *};
use facet::formats::m3d_write;
use facet::scene::Scene;
use glam::{Quat, Vec3};

fn load(file: &str) -> Scene {
    let path = common::shared().join("fixtures/m3d").join(file);
    facet::load::load_file(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .scene
}

fn render(scene: &Scene, req: facet::cli::headless::RenderRequest) -> image::RgbaImage {
    let gpu = common::gpu();
    facet::cli::headless::render(&gpu, scene, &req).unwrap().0
}

fn small() -> facet::cli::headless::RenderRequest {
    facet::cli::headless::RenderRequest {
        width: 200,
        height: 150,
        ..Default::default()
    }
}

#[test]
fn fixtures_render_like_their_references() {
    // Static with materials, textured (inlined PNG), vertex colours, voxels.
    for (file, camera) in [
        ("suzanne.m3d", None),
        ("viper.m3d", Some((150.0, 35.0, 1.6))),
        ("cube_with_vertexcolors.m3d", Some((30.0, 25.0, 1.0))),
        ("lantea.m3d", Some((20.0, 30.0, 1.0))),
        ("voxel.m3d", None),
    ] {
        let scene = load(file);
        let img = render(
            &scene,
            facet::cli::headless::RenderRequest { camera, ..small() },
        );
        common::assert_matches_reference(&format!("m3d_{}", file.trim_end_matches(".m3d")), &img);
    }
}

#[test]
fn cesium_man_walks() {
    let scene = load("CesiumMan.m3d");
    assert_eq!(scene.skeleton.bones.len(), 19);
    assert_eq!(scene.clips[0].name, "Anim");
    assert!((scene.clips[0].duration_s - 1.92).abs() < 1e-6);
    let req = |time: f32| facet::cli::headless::RenderRequest {
        clip: Some("Anim".into()),
        time,
        camera: Some((60.0, 10.0, 1.0)),
        ..small()
    };
    let a = render(&scene, req(0.5));
    common::assert_matches_reference("m3d_CesiumMan_0.5s", &a);
    let b = render(&scene, req(1.2));
    let differing = a.pixels().zip(b.pixels()).filter(|(x, y)| x != y).count();
    assert!(
        differing > 300,
        "the walk did not change the picture ({differing} pixels)"
    );
}

#[test]
fn inlined_pngs_are_the_assets_texels() {
    // viper.m3d's inlined PNG (a palette image) as texels: what the
    // `image` crate's generic decoder and RGBA conversion make of the
    // asset's bytes (the viewer expands palettes in the `png` decoder).
    let bytes = std::fs::read(common::shared().join("fixtures/m3d/viper.m3d")).unwrap();
    let mut file = facet::formats::m3d::decode(&bytes).unwrap();
    let asset = file.assets[0].data.clone();
    let expected = image::load_from_memory_with_format(&asset, image::ImageFormat::Png)
        .unwrap()
        .to_rgba8();
    let none = &facet::scene::companions::NoCompanions;
    let s = facet::scene::from_m3d::convert(&file, Default::default(), none);
    assert_eq!(s.textures[0].rgba8, expected.as_raw()[..]);
    assert_eq!(s.materials[0].texture, Some(0));

    // A 2x1 PNG written here (red, then half-transparent blue) in its
    // place: the material turns alpha blended for the transparent texel.
    let mut small = Vec::new();
    let mut encoder = png::Encoder::new(&mut small, 2, 1);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let texels = [255, 0, 0, 255, 0, 0, 255, 128];
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&texels)
        .unwrap();
    file.assets[0].data = small;
    let s = facet::scene::from_m3d::convert(&file, Default::default(), none);
    assert_eq!(s.textures[0].rgba8, texels);
    assert_eq!(s.materials[0].blend, facet::scene::BlendMode::Alpha);

    // A truncated inlined PNG: the checkerboard, and a warning naming the
    // texture and where it was looked for.
    let mut broken = asset;
    broken.truncate(broken.len() / 2);
    file.assets[0].data = broken;
    let s = facet::scene::from_m3d::convert(&file, Default::default(), none);
    assert!(matches!(
        s.textures[0].source,
        facet::scene::TextureSource::Missing(_)
    ));
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("M_01___Default1") && w.contains("inlined")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn conversion_keeps_colours_materials_and_textures() {
    let s = load("cube_with_vertexcolors.m3d");
    let colours = s.meshes[0].colors.as_ref().expect("vertex colours");
    let distinct: std::collections::HashSet<_> = colours.iter().collect();
    assert!(distinct.len() >= 6, "{distinct:?}");

    let s = load("viper.m3d");
    assert_eq!(s.textures.len(), 1);
    assert_eq!(s.textures[0].source, facet::scene::TextureSource::Embedded);
    assert_eq!((s.textures[0].width, s.textures[0].height), (256, 256));
    let m = &s.materials[0];
    assert_eq!(m.texture, Some(0));
    assert!(
        // specs/m3d.md's property table: 128 "map_Kd", 3 "Ns".
        m.properties.iter().any(|p| p.name.starts_with("map_Kd")
            && p.code == Some(128)
            && p.value.to_string() == "M_01___Default1"
            && p.texture == Some(0))
    );
    assert!(
        m.properties.iter().any(|p| p.name.starts_with("Ns")
            && p.code == Some(3)
            && p.value.to_string() == "1024")
    );
    assert_eq!(
        s.source
            .details
            .iter()
            .find(|(k, _)| k == "model name")
            .map(|(_, v)| v.to_string()),
        Some("BSG Viper".to_string())
    );
    assert!(
        s.source
            .chunks
            .iter()
            .any(|c| c.magic == "ASET" && c.note == "decoded")
    );

    let s = load("bezier.m3d");
    assert!(
        s.source
            .chunks
            .iter()
            .any(|c| c.magic == "SHPE" && c.note.contains("not rendered"))
    );
    // The one shape's row: its name and its chunk's length, read here from
    // the file's bytes as specs/m3d.md lays them out.
    let (name, length) = bezier_shape();
    assert_eq!((name.as_str(), length), ("myCurve1", 62));
    let rows = s.tables.iter().find(|(t, _)| t == "Not rendered");
    assert_eq!(
        rows.map(|(_, rows)| rows.as_slice()),
        Some(&[(format!("shape {name:?}"), format!("SHPE, {length} bytes"))][..])
    );
}

/// bezier.m3d's SHPE chunk, read from the file without the decoder, as
/// specs/m3d.md lays it out: the file header ("3DMO", its size), then the
/// zlib-compressed payload, which starts with the model header ("HEAD",
/// its size, the scale, the variable types, whose bits 4-5 give the
/// string offsets' width as the spec's index-type table does, then the
/// string table at 16); then chunks of a
/// magic and a length each. SHPE's first field is its name, an offset
/// into the string table. Returns (name, chunk length).
fn bezier_shape() -> (String, u32) {
    let file = std::fs::read(common::shared().join("fixtures/m3d/bezier.m3d")).unwrap();
    assert_eq!(&file[..4], b"3DMO");
    let payload = miniz_oxide::inflate::decompress_to_vec_zlib(&file[8..]).unwrap();
    let u32_at = |at: usize| u32::from_le_bytes(payload[at..at + 4].try_into().unwrap());
    assert_eq!(&payload[..4], b"HEAD");
    let strings = 16;
    // si_t: 00, 01, 10 are 1, 2 and 4 bytes; 11 means no string table.
    let si = match (u32_at(12) >> 4) & 3 {
        0 => 1,
        1 => 2,
        2 => 4,
        _ => panic!("bezier.m3d declares no string table (si_t 11)"),
    };
    let mut at = u32_at(4) as usize;
    while &payload[at..at + 4] != b"SHPE" {
        at += u32_at(at + 4) as usize;
    }
    let mut offset = [0u8; 4];
    offset[..si].copy_from_slice(&payload[at + 8..at + 8 + si]);
    let start = strings + u32::from_le_bytes(offset) as usize;
    let end = start + payload[start..].iter().position(|&b| b == 0).unwrap();
    (
        String::from_utf8(payload[start..end].to_vec()).unwrap(),
        u32_at(at + 4),
    )
}

/// Files that store no normals get m3d.h's smooth ones: at each vertex,
/// the sum of the unit normals of the triangles that use it, made unit
/// (m3d.h's `m3d_load` does this for `M3D_NONORMALS` files). Summed here
/// in f64 straight from the decoded triangles, then compared with every
/// scene vertex at that position (a position some other vertex shares
/// must match one of the normals made there).
#[test]
fn files_without_normals_get_smooth_ones() {
    for file in ["cube.m3d", "WusonBlitz0.m3d"] {
        let bytes = std::fs::read(common::shared().join("fixtures/m3d").join(file)).unwrap();
        let m = m3d::decode(&bytes).unwrap();
        assert!(m.faces.normal_column().is_none(), "{file} stores normals");
        assert!(m.faces.all_triangles());
        let at = |i: u32| {
            let p = m.vertices[i as usize].pos;
            [p[0] as f64, p[1] as f64, p[2] as f64]
        };
        let mut sums = vec![[0f64; 3]; m.vertices.len()];
        for t in m.faces.vertices().chunks_exact(3) {
            let [a, b, c] = [at(t[0]), at(t[1]), at(t[2])];
            let (u, v) = (
                [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
            );
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if len == 0.0 {
                continue;
            }
            for &i in t {
                for k in 0..3 {
                    sums[i as usize][k] += n[k] / len;
                }
            }
        }
        // Unit normals by position (the scene keeps positions, not indices).
        // Where the unit normals around a vertex cancel (WusonBlitz0's
        // vertex 1165 lies on two faces back to back) or its triangles have
        // no area, the sum is rounding: its direction is undefined (NaN
        // here, any unit normal passes; the viewer's is +Y for an exact 0).
        let mut by_position: std::collections::HashMap<[u32; 3], Vec<Vec3>> = Default::default();
        for (i, s) in sums.iter().enumerate() {
            let len = (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt();
            let n = match len {
                l if l < 1e-4 => Vec3::NAN,
                l => Vec3::new((s[0] / l) as f32, (s[1] / l) as f32, (s[2] / l) as f32),
            };
            let p = m.vertices[i].pos;
            by_position
                .entry([p[0], p[1], p[2]].map(f32::to_bits))
                .or_default()
                .push(n);
        }
        let scene = load(file);
        let mut checked = 0;
        for mesh in &scene.meshes {
            for (p, n) in mesh.positions.iter().zip(&mesh.normals) {
                let want = &by_position[&p.to_array().map(f32::to_bits)];
                assert!(
                    want.iter().any(|w| w.is_nan() || w.dot(*n) > 1.0 - 1e-5),
                    "{file}: {}: normal {n} at {p}, expected one of {want:?}",
                    mesh.name
                );
                assert!((n.length() - 1.0).abs() < 1e-5, "{file}: normal {n} at {p}");
                checked += 1;
            }
        }
        assert!(checked >= 8, "{file}: {checked} vertices checked");
    }
}

#[test]
fn an_ascii_file_with_every_section_reads_value_by_value() {
    // tests/corpus/m3d/seed_ascii_sections.a3d, written by hand in the
    // form m3d.h's exporter writes (CRLF lines, sections to an empty line,
    // m3d.h lines 5201-5690): every value below is read off its text.
    let path = common::repo().join("tests/corpus/m3d/seed_ascii_sections.a3d");
    let bytes = std::fs::read(path).unwrap();
    let m = m3d::decode(&bytes).unwrap();
    assert_eq!(m.scale, 0.5);
    assert_eq!(
        [&m.name, &m.license, &m.author, &m.description],
        [
            "Sections test",
            "MIT",
            "Facet tests",
            "first line\nsecond line"
        ]
    );
    assert_eq!(m.tmap, [[0.0, 0.0], [1.0, 0.5], [0.25, 1.0]]);
    assert_eq!(m.vertices.len(), 8);
    assert_eq!(m.vertices[1].pos, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(
        m.vertices.iter().map(|v| v.color).collect::<Vec<_>>(),
        [0xff0000ff, 0xff00ff00, 0, 0, 0, 0, 0, 0]
    );
    // Skins: "0" is bone 0 at weight 1; "0:0.25 1:0.75" sums to 1; "1:2
    // 0:2" sums to 4, so each is 0.5. As weight bytes (x 255, rounded):
    // 255; 63.75 -> 64 and 191.25 -> 191; 127.5 -> 128. Voxel type 0's
    // skin "0" is the first record again. Bone and frame orientations
    // (vertices 5 and 7) hold quaternions.
    let inf = |s: &Skin| s.influences().collect::<Vec<_>>();
    assert_eq!(m.skins.len(), 3);
    assert_eq!(inf(&m.skins[0]), [(0, 255)]);
    assert_eq!(inf(&m.skins[1]), [(0, 64), (1, 191)]);
    assert_eq!(inf(&m.skins[2]), [(1, 128), (0, 128)]);
    assert_eq!(
        m.vertices.iter().map(|v| v.skin).collect::<Vec<_>>(),
        [0, 1, 2, NONE, NONE, QUATERNION, NONE, QUATERNION]
    );
    assert_eq!(
        m.bones,
        [
            Bone {
                parent: None,
                name: "root".into(),
                pos: 4,
                ori: 5
            },
            Bone {
                parent: Some(0),
                name: "child bone".into(),
                pos: 6,
                ori: 7
            },
        ]
    );
    // One material (its unknown "Xq" skipped with a warning); map_bump is
    // map_Km's alias (134).
    assert_eq!(m.materials.len(), 1);
    assert_eq!(m.materials[0].name, "red metal");
    let props: Vec<(u8, PropValue)> = m.materials[0]
        .props
        .iter()
        .map(|p| (p.ty, p.value.clone()))
        .collect();
    assert_eq!(
        props,
        [
            (0, PropValue::Color(0xff0000ff)),
            (3, PropValue::Float(12.5)),
            (8, PropValue::Int(2)),
            (128, PropValue::Map("red metal.png".into())),
            (134, PropValue::Map("bumps".into())),
        ]
    );
    assert_eq!(m.procedures, ["stripes"]);
    // Three triangles: material 0 with UVs and normal 3; none ("use" with
    // no name), vertices only; none ("nowhere" is not defined), normals.
    let faces: Vec<(Option<u32>, Vec<FacePoint>)> = m
        .faces
        .iter()
        .map(|f| (f.material, f.points().collect()))
        .collect();
    let p = |v, t, n| FacePoint::new(v, t, n, None);
    assert_eq!(
        faces,
        [
            (
                Some(0),
                vec![
                    p(0, Some(0), Some(3)),
                    p(1, Some(1), Some(3)),
                    p(2, Some(2), Some(3))
                ]
            ),
            (
                None,
                vec![p(0, None, None), p(2, None, None), p(1, None, None)]
            ),
            (
                None,
                vec![
                    p(0, None, Some(3)),
                    p(2, None, Some(3)),
                    p(1, None, Some(3))
                ]
            ),
        ]
    );
    assert_eq!(m.parameters, ["width"]);
    // "#ff112233/05/103": rotation 0x05, shape 0x103; "//00a": no
    // rotation, shape 0x00a; "-": no name.
    assert_eq!(
        m.voxel_types,
        [
            VoxelType {
                color: 0xff112233,
                name: "stone".into(),
                rotation: 0x05,
                shape: 0x103,
                skin: 0,
                items: vec![(2, "pebble".into()), (1, "key".into())],
            },
            VoxelType {
                color: 0xff445566,
                name: String::new(),
                rotation: 0,
                shape: 0,
                skin: NONE,
                items: vec![],
            },
            VoxelType {
                color: 0xff778899,
                name: "glass".into(),
                rotation: 0,
                shape: 0x00a,
                skin: NONE,
                items: vec![],
            },
        ]
    );
    // dim 2 2 1: two layers of one row of two; "." unset, "-" clear;
    // uncertain 50% is 50 * 255 / 100 = 127 (m3d.h's integer division).
    assert_eq!(
        m.voxel_blocks,
        [VoxelBlock {
            name: "block one".into(),
            pos: [-1, 2, 3],
            size: [2, 2, 1],
            uncertainty: 127,
            group: 3,
            data: vec![0, VOXEL_UNSET, VOXEL_CLEAR, 2],
        }]
    );
    // The Shape section's bytes: "Shape curve", "group 0" and "bezier1 3 0
    // 1 2" with the two line ends between them: 11 + 2 + 7 + 2 + 15.
    assert_eq!(m.shapes, [("curve".to_string(), 37)]);
    let label = |vertex, text: &str| Label {
        group: "notes".into(),
        lang: "en".into(),
        color: 0xff00ff00,
        vertex,
        text: text.into(),
    };
    assert_eq!(m.labels, [label(0, "origin point"), label(2, "top")]);
    assert_eq!(m.actions.len(), 1);
    let a = &m.actions[0];
    assert_eq!((a.name.as_str(), a.duration_ms), ("wave", 1000));
    assert_eq!(
        a.frames
            .iter()
            .map(|f| (f.msec, f.transforms.clone()))
            .collect::<Vec<_>>(),
        [(0, 0..1), (500, 1..3)]
    );
    let tr = |bone, pos, ori| Transform { bone, pos, ori };
    assert_eq!(a.transforms, [tr(1, 6, 7), tr(0, 4, 5), tr(1, 6, 5)]);
    // What the text names but keeps outside (the preview, the assets) and
    // what is not understood, each said.
    let w = m.warnings.join("\n");
    for said in ["Preview", "\"stripes.lua\"", "\"Xq\"", "\"nowhere\""] {
        assert!(w.contains(said), "{said}: {w}");
    }
    // The header and the 14 sections, each where its keyword line starts.
    let chunks: Vec<(&str, usize)> = m.chunks.iter().map(|c| (&*c.magic, c.offset)).collect();
    assert_eq!(chunks.len(), 15, "{chunks:?}");
    let text = String::from_utf8(bytes.clone()).unwrap();
    for (magic, at) in &chunks[1..] {
        assert!(text[*at..].starts_with(magic), "{magic} at {at}");
    }
    // Colours, UVs and skins make the types a binary writer would use.
    assert_eq!(
        (m.types.ci, m.types.ti, m.types.bi, m.types.nb),
        (4, 4, 4, 2)
    );
}

#[test]
fn ascii_actions_start_at_0_ms_as_m3d_h_reads_them() {
    // m3d.h's reader gives every action a first frame at 0 ms and skips
    // the first frame marker; transforms before any marker are that
    // frame's. Vertices 0-3, bone 0 at 0 and 1.
    let text = "3dmodel 1\r\nn\r\nl\r\na\r\n\r\n\
        Vertex\r\n0 0 0 1\r\n0 0 0 1\r\n0 1 0 1\r\n0 0 0 1\r\n\r\n\
        Bones\r\n0 1 b\r\n\r\n\
        Action 100 late\r\nframe 40\r\n0 2 3\r\nframe 80\r\n0 0 1\r\n\r\n\
        Action 100 bare\r\n0 2 3\r\n";
    let m = m3d::decode(text.as_bytes()).unwrap();
    let frames = |a: &Action| {
        a.frames
            .iter()
            .map(|f| (f.msec, f.transforms.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(frames(&m.actions[0]), [(0, 0..1), (80, 1..2)]);
    assert_eq!(frames(&m.actions[1]), [(0, 0..1)]);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("first frame is at 0 ms, not 40")),
        "{:?}",
        m.warnings
    );
}

#[test]
fn ascii_fixtures_draw_as_their_binary_twins() {
    // The same models written by the M3D tools in both forms: the same
    // pixels (the binary files' renders are held to references above).
    for name in ["cube_with_vertexcolors", "voxel"] {
        let ascii = render(&load(&format!("{name}.a3d")), small());
        let binary = render(&load(&format!("{name}.m3d")), small());
        let differ = ascii
            .pixels()
            .zip(binary.pixels())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differ, 0, "{name}: {differ} pixels differ");
        // Not an empty frame: pixels other than the corner's background.
        let bg = *ascii.get_pixel(0, 0);
        let drawn = ascii.pixels().filter(|&&p| p != bg).count();
        assert!(drawn > 1000, "{name}: {drawn} pixels drawn");
    }
}

#[test]
fn ascii_header_lines_are_read_by_position() {
    // As m3d.h reads them and its exporter writes them: name, licence and
    // author a line each, empty or not, then the description (here empty)
    // and the empty line that ends the header.
    let text = "3dmodel 2\r\n\r\nMIT\r\nbzt\r\n\r\n\r\nVertex\r\n0 0 0 1\r\n";
    let m = m3d::decode(text.as_bytes()).unwrap();
    assert_eq!(
        [&m.name, &m.license, &m.author, &m.description],
        ["", "MIT", "bzt", ""]
    );
    assert_eq!((m.scale, m.vertices.len()), (2.0, 1));
}

#[test]
fn ascii_errors_name_the_section_row_and_offset() {
    let head = "3dmodel 1\r\nn\r\nl\r\na\r\n\r\n";
    let at = head.len();
    let cases = [
        (
            // Offsets: "Vertex\r\n" is 8 bytes, the row "0 0 0 1\r\n" 9; the
            // Mesh line 6; its row's third corner "7" is 4 bytes in.
            "Vertex\r\n0 0 0 1\r\n\r\nMesh\r\n0 0 7\r\n",
            at + 8 + 9 + 2 + 6 + 4,
            "Mesh row 1 at offset {AT}: vertex 7 is out of range (1 vertices)",
        ),
        (
            "Vertices\r\n0 0 0 1\r\n",
            at,
            "section at offset {AT}: \"Vertices\" is not a section of the ASCII form",
        ),
        (
            "VoxTypes\r\n#ff000000\r\n\r\nVoxel\r\ndim 3 1 1\r\nlayer\r\n0 0\r\n",
            at + 10 + 11 + 2 + 7 + 11 + 7,
            "Voxel row 3 at offset {AT}: 2 voxels in a row of the block's width of 3",
        ),
        (
            "Vertex\r\n0 0 zero 1\r\n",
            at + 8 + 4,
            "Vertex row 1 at offset {AT}: z \"zero\" is not a number",
        ),
    ];
    for (body, offset, want) in cases {
        let bytes = format!("{head}{body}");
        let e = m3d::decode(bytes.as_bytes()).unwrap_err().to_string();
        assert_eq!(e, want.replace("{AT}", &format!("{offset:#X}")), "{body:?}");
    }
}

#[test]
fn voxel_types_table_shows_each_types_colour() {
    // voxel.a3d, the same model as text, lists its types' colours as
    // m3d.h's 0xAABBGGRR: #ff743f3f, #ffffffff, #ff2671df; the inspector
    // writes them as #RRGGBBAA. No shape, rotation, skin or items.
    let s = load("voxel.m3d");
    let (_, rows) = s
        .tables
        .iter()
        .find(|(t, _)| t == "Voxel types")
        .expect("a voxel types table");
    let want = [
        ("0: (unnamed)", "#3F3F74FF, shape 0, rotation 0x00"),
        ("1: (unnamed)", "#FFFFFFFF, shape 0, rotation 0x00"),
        ("2: (unnamed)", "#DF7126FF, shape 0, rotation 0x00"),
    ];
    let got: Vec<(&str, &str)> = rows.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(got, want);
}

#[test]
fn voxels_mesh_with_hidden_faces_removed() {
    // m3d.h's mesher gives voxel.m3d 40 triangles and lantea.m3d 51,548; it
    // culls only inside a block. Culling across blocks must not give more.
    for (file, reference) in [("voxel.m3d", 40), ("lantea.m3d", 51_548)] {
        let s = load(file);
        let tris = s.triangle_count();
        assert!(
            tris > 0 && tris <= reference,
            "{file}: {tris} triangles, m3d.h {reference}"
        );
        assert!(s.tables.iter().any(|(t, _)| t == "Voxel types"));
    }
    // A 2x2x2 solid block: only its outer faces, 6 sides x 4 quads x 2.
    let mut m = M3d {
        types: Types::from_bits(0),
        name: "block".into(),
        voxel_types: vec![VoxelType {
            color: 0xFF00_80FF,
            name: String::new(),
            rotation: 0,
            shape: 0,
            skin: NONE,
            items: vec![],
        }],
        voxel_blocks: vec![VoxelBlock {
            name: String::new(),
            pos: [0, 0, 0],
            size: [2, 2, 2],
            uncertainty: 0,
            group: 0,
            data: vec![0; 8],
        }],
        ..Default::default()
    };
    m.types.ci = 4;
    m.types.sk = 0;
    let bytes = m3d_write::encode(&m, true).unwrap();
    let s = facet::load::load_bytes("block.m3d", &bytes, None)
        .unwrap()
        .scene;
    assert_eq!(s.triangle_count(), 6 * 4 * 2);
    // Faces of one side meet at corners they share: each side is 2x2
    // quads on 3x3 vertices.
    assert_eq!(s.meshes[0].positions.len(), 6 * 9);
    assert!(s.meshes[0].closed);
    assert_eq!(
        s.materials.last().unwrap().base_color,
        [1.0, 128.0 / 255.0, 0.0, 1.0]
    );

    // A 2x1x2 slab, two types in a checkerboard (data x fastest, then z:
    // A B / B A). Each cell shows its top, its bottom and its two outer
    // sides: 8 faces a type. A type's two top quads touch only at the
    // slab's centre, as do the other type's: 7 vertices for each type's
    // top and bottom; its four side faces face four ways, 4 vertices
    // each. 7 + 7 + 16 = 30 for each type, the centre shared within a
    // type although the other type's faces meet there too.
    let mut slab = m.clone();
    slab.voxel_types.push(VoxelType {
        color: 0xFF80_8080,
        ..m.voxel_types[0].clone()
    });
    slab.voxel_blocks[0].size = [2, 1, 2];
    slab.voxel_blocks[0].data = vec![0, 1, 1, 0];
    let s = facet::load::load_bytes("slab.m3d", &m3d_write::encode(&slab, true).unwrap(), None)
        .unwrap()
        .scene;
    let counts: Vec<(usize, usize)> = s
        .meshes
        .iter()
        .map(|m| (m.positions.len(), m.indices.len() / 3))
        .collect();
    assert_eq!(counts, [(30, 16), (30, 16)]);

    // Columns, counted by hand (data y slowest; parts in order of first
    // appearance). Two cells of one type stacked: each of the four sides
    // is two quads on 6 vertices, and a top and a bottom of 4: 32
    // vertices, 10 faces. Apart by an empty layer: two whole cubes, no
    // corner shared (the lower cube's top and the upper one's bottom face
    // opposite ways): 48 vertices, 12 faces. Under a cell of the other
    // type: the column less its top (28 vertices, 9 faces); the cell on it
    // shows 5 faces (20 vertices), sharing nothing with the column below
    // although their corners meet. A cell between two of the other type:
    // its four sides (16 vertices); the other type's two cells, 5 faces
    // each, two layers apart (40 vertices).
    let column = |data: Vec<u16>| {
        let mut c = slab.clone();
        c.voxel_blocks[0].size = [1, 3, 1];
        c.voxel_blocks[0].data = data;
        let bytes = m3d_write::encode(&c, true).unwrap();
        let s = facet::load::load_bytes("column.m3d", &bytes, None)
            .unwrap()
            .scene;
        s.meshes
            .iter()
            .map(|m| (m.positions.len(), m.indices.len() / 3))
            .collect::<Vec<_>>()
    };
    assert_eq!(column(vec![0, 0, VOXEL_CLEAR]), [(32, 20)]);
    assert_eq!(column(vec![0, VOXEL_CLEAR, 0]), [(48, 24)]);
    assert_eq!(column(vec![0, 0, 1]), [(28, 18), (20, 10)]);
    assert_eq!(column(vec![1, 0, 1]), [(40, 20), (16, 8)]);

    // Later blocks write over earlier ones: a row of four type-0 cells,
    // then over it UNSET (leaves the cell), CLEAR (empties it), type 1
    // (sets it) and type 7, which the file does not have (leaves it).
    // Type 0 keeps x = 0 (a whole cube: 6 faces) and x = 3 (its -x face
    // against type 1's cell: 5 faces); type 1 at x = 2 shows 5 faces (its
    // +x face against x = 3). No two faces of a type touch: 4 vertices and
    // 2 triangles a face.
    let mut row = slab.clone();
    row.voxel_blocks = vec![
        VoxelBlock {
            size: [4, 1, 1],
            data: vec![0; 4],
            ..slab.voxel_blocks[0].clone()
        },
        VoxelBlock {
            size: [4, 1, 1],
            data: vec![VOXEL_UNSET, VOXEL_CLEAR, 1, 7],
            ..slab.voxel_blocks[0].clone()
        },
    ];
    let s = facet::scene::from_m3d::convert(
        &row,
        Default::default(),
        &facet::scene::companions::NoCompanions,
    );
    let counts: Vec<(usize, usize)> = s
        .meshes
        .iter()
        .map(|m| (m.positions.len(), m.indices.len() / 3))
        .collect();
    assert_eq!(counts, [(11 * 4, 11 * 2), (5 * 4, 5 * 2)]);

    // Blocks far apart (a grid too sparse to hold densely), and blocks at
    // the ends of the 32-bit positions a file can give: every cell one
    // cube, no overflow.
    let vd = std::mem::replace(&mut m.types.vd, 4);
    let one = |pos: [i32; 3], size: [u32; 3]| VoxelBlock {
        pos,
        size,
        data: vec![0; size.iter().product::<u32>() as usize],
        ..m.voxel_blocks[0].clone()
    };
    for (blocks, triangles) in [
        (
            vec![one([0; 3], [1; 3]), one([10_000, 0, 0], [1; 3])],
            2 * 12,
        ),
        (vec![one([i32::MAX - 1, 0, 0], [2, 1, 1])], 10 * 2),
        (
            vec![
                one([i32::MAX, i32::MAX, i32::MAX], [1; 3]),
                one([i32::MIN, i32::MIN, i32::MIN], [1; 3]),
            ],
            2 * 12,
        ),
    ] {
        let far = M3d {
            voxel_blocks: blocks,
            ..m.clone()
        };
        let bytes = m3d_write::encode(&far, true).unwrap();
        let s = facet::load::load_bytes("far.m3d", &bytes, None)
            .unwrap()
            .scene;
        assert_eq!(s.triangle_count(), triangles);
        assert!(
            s.meshes
                .iter()
                .flat_map(|m| &m.positions)
                .all(|p| p.is_finite() && p.abs().max_element() <= 1.0 + 1e-6)
        );
    }
    m.types.vd = vd;

    // A voxel type on a skin: its voxels follow the bone.
    m.types.sk = 1;
    m.types.bi = 1;
    m.vertices = vec![
        Vertex {
            pos: [0.0, 0.0, 0.0, 1.0],
            color: 0,
            skin: NONE,
        },
        Vertex {
            pos: [0.0, 0.0, 0.0, 1.0],
            color: 0,
            skin: QUATERNION,
        },
    ];
    m.bones = vec![Bone {
        parent: None,
        name: "b".into(),
        pos: 0,
        ori: 1,
    }];
    m.skins = vec![Skin::new(&[(0, 255)])];
    m.voxel_types[0].skin = 0;
    let bytes = m3d_write::encode(&m, false).unwrap();
    let s = facet::load::load_bytes("block.m3d", &bytes, None)
        .unwrap()
        .scene;
    let skin = s.meshes[0].skin.as_ref().expect("voxels on a skin");
    // Types on different bones move apart: not drawn as a closed surface.
    assert!(!s.meshes[0].closed);
    assert!(skin.weights.iter().all(|w| *w == [65535, 0, 0, 0]));
    assert!(skin.joints.iter().all(|j| *j == [0; 4]));
}

/// Two bones: "root" at the origin, "arm" 0.5 up; frames at 200 ms (the
/// arm turns 90 degrees about Z) and 600 ms (the arm moves to y = 1);
/// 1000 ms long. Quaternions as vertex records (vc = float).
fn two_bones() -> Scene {
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let v = |p: [f32; 4], skin: u32| Vertex {
        pos: p,
        color: 0,
        skin,
    };
    let mut t = Types::from_bits(0);
    t.vc = 4;
    t.ci = 0;
    t.ti = 0;
    t.sk = 1;
    let m = M3d {
        types: t,
        name: "two bones".into(),
        vertices: vec![
            v([0.0, 0.0, 0.0, 1.0], NONE),       // 0 root position
            v([0.0, 0.0, 0.0, 1.0], QUATERNION), // 1 identity
            v([0.0, 0.5, 0.0, 1.0], NONE),       // 2 arm position
            v([0.0, 0.0, s, s], QUATERNION),     // 3 90 degrees about Z
            v([0.0, 1.0, 0.0, 1.0], NONE),       // 4 arm moved
            v([0.1, 0.9, 0.0, 1.0], 0),          // 5 a skinned vertex
            v([0.2, 0.9, 0.0, 1.0], 0),
            v([0.1, 1.0, 0.0, 1.0], 0),
        ],
        bones: vec![
            Bone {
                parent: None,
                name: "root".into(),
                pos: 0,
                ori: 1,
            },
            Bone {
                parent: Some(0),
                name: "arm".into(),
                pos: 2,
                ori: 1,
            },
        ],
        skins: vec![Skin::new(&[(1, 255)])],
        faces: Faces::from_iter([(None, (5..8).map(FacePoint::vertex).collect::<Vec<_>>())]),
        actions: vec![Action::from_frames(
            "move",
            1000,
            [
                (
                    200,
                    vec![Transform {
                        bone: 1,
                        pos: 2,
                        ori: 3,
                    }],
                ),
                (
                    600,
                    vec![Transform {
                        bone: 1,
                        pos: 4,
                        ori: 3,
                    }],
                ),
            ],
        )],
        ..Default::default()
    };
    let bytes = m3d_write::encode(&m, false).unwrap();
    facet::load::load_bytes("two_bones.m3d", &bytes, None)
        .unwrap()
        .scene
}

/// The arm's local translation and rotation at `t`.
fn arm_at(scene: &Scene, pose: &mut Pose, t: f32) -> (Vec3, Quat) {
    pose.evaluate(&scene.skeleton, Some(&scene.clips[0]), t);
    let (_, r, p) = pose.local[1].to_scale_rotation_translation();
    (p, r)
}

fn angle_z(q: Quat) -> f32 {
    let (axis, angle) = q.to_axis_angle();
    angle.to_degrees() * axis.z.signum()
}

#[test]
fn m3d_pose_rules_hold() {
    let scene = two_bones();
    let clip = &scene.clips[0];
    // Timeline frames are the intervals between frame times: 0-200-600-1000.
    assert_eq!(clip.frames, 3);
    assert!((clip.time_of_frame(1) - 0.2).abs() < 1e-6);
    let mut pose = Pose::new(&scene.skeleton);

    // Before the first frame: from the bind pose towards frame 0 (t' = 0.5 at
    // 100 ms): about 45 degrees (m3d.h's nlerp approximates slerp).
    let (p, r) = arm_at(&scene, &mut pose, 0.1);
    assert!((p - Vec3::new(0.0, 0.5, 0.0)).length() < 1e-6);
    // By hand: at t = 0.5 the polynomial's correction vanishes (it is a
    // multiple of t - 0.5), and the normalised midpoint of identity and a
    // 90-degree turn is the 45-degree turn: (0, 0, sin 22.5°, cos 22.5°).
    let half = 22.5f32.to_radians();
    let want = Quat::from_xyzw(0.0, 0.0, half.sin(), half.cos());
    assert!(r.angle_between(want) < 1e-4, "{}", angle_z(r));

    // Frame 0 applied; frame 1 moves only the position (same orientation
    // record): halfway at 400 ms.
    let (p, r) = arm_at(&scene, &mut pose, 0.4);
    assert!((p - Vec3::new(0.0, 0.75, 0.0)).length() < 1e-6, "{p}");
    assert!((angle_z(r) - 90.0).abs() < 1e-3);

    // After the last frame the bones of frame 0 take its values at once
    // (m3d.h: t' = 1 when the next frame wraps): the arm is back at 0.5.
    let (p, _) = arm_at(&scene, &mut pose, 0.8);
    assert!((p - Vec3::new(0.0, 0.5, 0.0)).length() < 1e-6, "{p}");
    // Exactly at a frame's time, that frame.
    let (p, _) = arm_at(&scene, &mut pose, 0.6);
    assert!((p - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-6, "{p}");
    // Time wraps at the duration.
    let (a, ra) = arm_at(&scene, &mut pose, 1.1);
    let (b, rb) = arm_at(&scene, &mut pose, 0.1);
    assert!((a - b).length() < 1e-5 && ra.dot(rb).abs() > 1.0 - 1e-5);

    // The skinned vertex follows the arm: at 0.4 s it is rotated 90 degrees
    // about the arm's origin and lifted by 0.25.
    pose.evaluate(&scene.skeleton, Some(clip), 0.4);
    let v = pose.skin[1].transform_point3(Vec3::new(0.1, 0.9, 0.0));
    // Arm-local (0.1, 0.4) turned 90 degrees: (-0.4, 0.1), plus (0, 0.75).
    assert!((v - Vec3::new(-0.4, 0.85, 0.0)).length() < 1e-5, "{v}");
}

#[test]
fn m3d_nlerp_is_close_to_slerp() {
    // The reference's polynomial keeps the blend within 0.2 degrees of slerp
    // (Kapoulkine's fit; the worst case here is the 170-degree arc).
    let a = Quat::IDENTITY;
    for deg in [10.0f32, 60.0, 120.0, 170.0] {
        let b = Quat::from_rotation_y(deg.to_radians());
        for t in [0.1, 0.25, 0.5, 0.9] {
            let (q, _) = m3d_nlerp(a, b, t);
            // The fast 1/sqrt leaves the length within 0.2% of 1.
            assert!((q.length() - 1.0).abs() < 2e-3, "{}", q.length());
            let q = q.normalize();
            let s = a.slerp(b, t);
            assert!(
                q.angle_between(s).to_degrees() < 0.2,
                "{deg} {t}: {}",
                q.angle_between(s).to_degrees()
            );
        }
    }
}

#[test]
fn labels_point_at_their_vertices() {
    let mut t = Types::from_bits(0);
    t.ci = 4;
    let m = M3d {
        types: t,
        name: "labelled".into(),
        vertices: vec![
            Vertex {
                pos: [0.0, 0.0, 0.0, 1.0],
                color: 0xFFFF_FFFF,
                skin: NONE,
            },
            Vertex {
                pos: [1.0, 0.0, 0.0, 1.0],
                color: 0xFFFF_FFFF,
                skin: NONE,
            },
            Vertex {
                pos: [0.0, 1.0, 0.0, 1.0],
                color: 0xFFFF_FFFF,
                skin: NONE,
            },
        ],
        faces: Faces::from_iter([(None, (0..3).map(FacePoint::vertex).collect::<Vec<_>>())]),
        labels: vec![Label {
            group: "notes".into(),
            lang: "en_GB".into(),
            color: 0xFF00_00FF,
            vertex: 2,
            text: "apex".into(),
        }],
        ..Default::default()
    };
    let bytes = m3d_write::encode(&m, false).unwrap();
    let s = facet::load::load_bytes("l.m3d", &bytes, None)
        .unwrap()
        .scene;
    assert_eq!(s.labels.len(), 1);
    let l = &s.labels[0];
    assert_eq!(
        (l.text.as_str(), l.position, l.color),
        ("apex", Vec3::Y, [255, 0, 0, 255])
    );
    assert_eq!((l.group.as_str(), l.lang.as_str()), ("notes", "en_GB"));
    let _ = m3d::NONE;
}

#[test]
fn bundled_m3d_demo_is_up_to_date_and_animates() {
    let path = common::repo().join("assets/demo.m3d");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        facet::generators::m3d::demo_bytes(),
        "assets/demo.m3d is stale: run `cargo run -- gen-assets`"
    );
    let scene = facet::load::load_file(&path).unwrap().scene;
    assert_eq!(scene.labels.len(), 3);
    assert!(scene.meshes.iter().any(|m| m.colors.is_some()));
    let mut pose = Pose::new(&scene.skeleton);
    pose.evaluate(&scene.skeleton, Some(&scene.clips[0]), 0.65);
    let moved = pose
        .skin
        .iter()
        .any(|m| !m.abs_diff_eq(glam::Mat4::IDENTITY, 1e-3));
    assert!(moved, "the sway does not move the bones");
}

#[test]
fn preview_external_textures_and_info() {
    // A material whose map is not inlined: found as NAME.png next to the
    // file; a preview chunk becomes the scene's preview image.
    let dir = common::output_dir().join("m3d_external");
    std::fs::create_dir_all(&dir).unwrap();
    let png = |w: u32, h: u32| {
        let img = image::RgbaImage::from_pixel(w, h, image::Rgba([10, 200, 30, 255]));
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    };
    std::fs::write(dir.join("bark.png"), png(8, 4)).unwrap();
    let mut t = Types::from_bits(0);
    t.ci = 4;
    let m = M3d {
        types: t,
        name: "tree".into(),
        preview: Some(png(16, 16)),
        vertices: (0..3)
            .map(|i| Vertex {
                pos: [i as f32 * 0.5, (i % 2) as f32, 0.0, 1.0],
                color: 0xFFFF_FFFF,
                skin: NONE,
            })
            .collect(),
        materials: vec![
            Material {
                name: "bark".into(),
                props: vec![Property {
                    ty: 128,
                    value: PropValue::Map("bark".into()),
                }],
            },
            Material {
                name: "leaf".into(),
                props: vec![Property {
                    ty: 128,
                    value: PropValue::Map("leaf".into()),
                }],
            },
        ],
        faces: Faces::from_iter([
            (Some(0), (0..3).map(FacePoint::vertex).collect::<Vec<_>>()),
            (Some(1), (0..3).map(FacePoint::vertex).collect::<Vec<_>>()),
        ]),
        ..Default::default()
    };
    let path = dir.join("tree.m3d");
    std::fs::write(&path, m3d_write::encode(&m, true).unwrap()).unwrap();
    let loaded = facet::load::load_file(&path).unwrap();
    let s = &loaded.scene;
    assert_eq!(s.textures.len(), 2);
    assert_eq!(
        s.textures[0].source,
        facet::scene::TextureSource::External(dir.join("bark.png"))
    );
    assert_eq!((s.textures[0].width, s.textures[0].height), (8, 4));
    assert!(matches!(
        s.textures[1].source,
        facet::scene::TextureSource::Missing(_)
    ));
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("texture \"leaf\"") && w.contains("checkerboard")),
        "{:?}",
        s.warnings
    );
    let p = s.preview.as_ref().expect("preview");
    assert_eq!((p.width, p.height), (16, 16));

    // info --json: the common summary and the m3d section.
    let v = facet::cli::info::to_json(&loaded);
    assert_eq!(v["summary"]["format"], "M3D");
    assert_eq!(v["summary"]["triangles"], 2);
    assert_eq!(v["m3d"]["name"], "tree");
    assert_eq!(v["m3d"]["compressed"], true);
    assert_eq!(
        v["m3d"]["materials"][0]["properties"][0]["name"],
        "map_Kd diffuse map"
    );
    assert_eq!(v["m3d"]["preview_bytes"], m.preview.as_ref().unwrap().len());
    let cesium = facet::cli::info::to_json(
        &facet::load::load_file(&common::shared().join("fixtures/m3d/CesiumMan.m3d")).unwrap(),
    );
    assert_eq!(cesium["m3d"]["actions"][0]["frames"], 48);
    assert_eq!(cesium["m3d"]["skins"], 926);
    assert_eq!(cesium["summary"]["bones"], 19);
}

#[test]
fn later_bones_blend_with_the_corrected_t_as_in_m3d_h() {
    // Two bones turning in the same frame interval: m3d.h corrects its one
    // `t` for the first bone's orientation and blends the second with the
    // corrected value. Checked against the formula applied in sequence.
    use facet::scene::clip::{BoneState, FrameSequence, PoseFrame};
    let turn = Quat::from_rotation_y(120f32.to_radians());
    let state = |ori: Quat, id: u32| BoneState {
        pos: Vec3::ZERO,
        pos_id: 0,
        ori,
        ori_id: id,
    };
    let seq = FrameSequence {
        duration_ms: 1000,
        bind: vec![state(Quat::IDENTITY, 1), state(Quat::IDENTITY, 1)],
        // One frame, at 500 ms, setting both bones (pairs 0..2).
        frames: vec![PoseFrame {
            msec: 500,
            bones: 0..2,
        }],
        bones: vec![(0, state(turn, 2)), (1, state(turn, 2))],
    };
    let (mut cur, mut next) = (Vec::new(), Vec::new());
    facet::anim::sequence::evaluate(&seq, 0.2, &mut cur, &mut next);
    // By hand, m3d.h's correction (`_m3d_frame`: t += t (t-0.5) (t-1)
    // (k1 c^2 + k2), c = t - 0.5, k1 and k2 cubic/quadratic in d = the
    // quaternions' dot), applied once per bone to the one shared t:
    let d = (60f64).to_radians().cos(); // cos of half of 120 degrees = 0.5
    let correct = |t: f64| {
        let c = t - 0.5;
        let k1 = 1.0904 + d * (-3.2452 + d * (3.55645 - d * 1.43519));
        let k2 = 0.848013 + d * (-1.06021 + d * 0.215638);
        t + t * c * (t - 1.0) * (k1 * c * c + k2)
    };
    let t1 = correct(0.4); // 0.4 of the way at 200 of 500 ms
    let t2 = correct(t1);
    // 0.4 -> 0.4 + 0.4 (-0.1) (-0.6) (0.01 k1 + k2), d = 0.5:
    // k1 = 1.0904 - 1.6226 + 0.8891125 - 0.17939875 = 0.17781375,
    // k2 = 0.848013 - 0.530105 + 0.0539095 = 0.3718175,
    // t1 = 0.4 + 0.024 * 0.3735956... = 0.40896629...
    assert!((t1 - 0.408_966_3).abs() < 1e-6, "{t1}");
    // The blend of identity and the turn by t, normalised, is a turn about
    // Y by the angle whose half has tan = t sin 60 / (1 - t + t cos 60).
    let angle = |t: f64| {
        let half = (t * (60f64).to_radians().sin()).atan2(1.0 - t + t * 0.5);
        (2.0 * half).to_degrees()
    };
    for (bone, t) in [(0, t1), (1, t2)] {
        let (axis, got) = cur[bone].ori.to_axis_angle();
        assert!(axis.y > 0.999, "bone {bone} turns about {axis}");
        assert!(
            (got.to_degrees() as f64 - angle(t)).abs() < 1e-3,
            "bone {bone}: {} degrees, want {} (t = {t})",
            got.to_degrees(),
            angle(t)
        );
    }
    // The second bone really used the corrected t, not 0.4 again.
    assert!(angle(t2) - angle(t1) > 0.5);
}

/// A chunk as specs/m3d.md lays it out: magic, u32 length (header
/// included), body.
fn chunk(magic: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut c = magic.to_vec();
    c.extend((8 + body.len() as u32).to_le_bytes());
    c.extend(body);
    c
}

/// An uncompressed M3D: `3DMO`, the file length, the payload (HEAD ...
/// chunks) and its `OMD3` end marker.
fn plain_m3d(mut payload: Vec<u8>) -> Vec<u8> {
    payload.extend(b"OMD3");
    let mut file = b"3DMO".to_vec();
    file.extend((8 + payload.len() as u32).to_le_bytes());
    file.extend(payload);
    file
}

/// An M3D file assembled here byte by byte from `specs/m3d.md`, read as
/// m3d.h reads it (`_m3d_load`, m3d.h 1.0.0):
/// - colour indices are unsigned (`model->cmap[data[0]]`): 254 and 255 are
///   colours 254 and 255 of a 256-colour map, not -2/-1; without a CMAP
///   every colour is 0;
/// - a MESH special record with any property k != 0 is "use parameter",
///   reserved bit 3 of a polygon record is ignored, and "use material" with
///   string offset 0 is no material;
/// - the spec: a material's Kd "if defined, overrides color index in
///   vertex", so a material without Kd keeps the vertex colours.
///
/// With `repeats`, a second CMAP and a second VRTS follow the first ones and
/// a VOXD chunk comes in a file whose header defines no voxel types: m3d.h
/// keeps the first of each unique chunk and skips such voxel data.
fn hand_m3d(with_cmap: bool, repeats: bool) -> Vec<u8> {
    // Types: vc float (2), vi/si/ci u8 (0), nb 1 bone (0), every other
    // type "not defined" (3).
    let types: u32 = 2 | 3 << 8 | 3 << 10 | 3 << 14 | 3 << 16 | 3 << 18 | 3 << 20 | 3 << 22;
    // String table: name, license, author, comment, then identifiers.
    let table = b"Hand\0MIT\0tests\0\0paint\0speed\0";
    let (paint, speed) = (16u8, 22u8);
    // Scale -2: m3d.h reads any scale <= 0 as 1.
    let mut head = (-2.0f32).to_le_bytes().to_vec();
    head.extend(types.to_le_bytes());
    head.extend(table);
    let mut payload = chunk(b"HEAD", &head);
    if with_cmap {
        // 256 colours, colour i = (i, 0, 0, 255): red is the low byte.
        let cmap: Vec<u8> = (0..256u32)
            .flat_map(|i| (i | 0xFF00_0000).to_le_bytes())
            .collect();
        payload.extend(chunk(b"CMAP", &cmap));
        if repeats {
            payload.extend(chunk(b"CMAP", &[0x00, 0xFF, 0x00, 0xFF].repeat(256)));
        }
    }
    // Three vertices (x, y, z, w as floats) with colour indices 254, 255, 1.
    let mut vrts = Vec::new();
    for (p, ci) in [
        ([0.0f32, 0.0, 0.0], 254u8),
        ([1.0, 0.0, 0.0], 255),
        ([0.0, 1.0, 0.0], 1),
    ] {
        for c in [p[0], p[1], p[2], 1.0] {
            vrts.extend(c.to_le_bytes());
        }
        vrts.push(ci);
    }
    payload.extend(chunk(b"VRTS", &vrts));
    if repeats {
        payload.extend(chunk(b"VRTS", &vrts[..17]));
        payload.extend(chunk(b"VOXD", &[0xAB; 12]));
    }
    // Material "paint" with one property: Ka (type 1, a colour index).
    payload.extend(chunk(b"MTRL", &[paint, 1, 2]));
    let mesh = [
        0x00, paint, // use material "paint"
        0x30, 0, 1, 2, // triangle
        0x02, speed, // property 2: m3d.h reads it as "use parameter"
        0x38, 0, 1, 2, // triangle with reserved bit 3 set
        0x00, 0, // use material at string offset 0: no material
        0x30, 0, 1, 2,
    ];
    payload.extend(chunk(b"MESH", &mesh));
    plain_m3d(payload)
}

/// MESH records of other than three points, assembled from specs/m3d.md
/// ("number of points in this poly (3 = triangle, 4 = quad, ...)" in the
/// record magic's high four bits, up to 15; points and lines too) with the
/// file's first face one of them: m3d.h gives up on such faces, the viewer
/// keeps every face as stored and fans each polygon into triangles
/// (shared/notes/m3d.md).
#[test]
fn faces_of_any_point_count_read_first_or_later() {
    use facet::formats::m3d;
    // vc float (2), vi/si/ci u8 (0), every other type "not defined" (3).
    let types: u32 = 2 | 3 << 8 | 3 << 10 | 3 << 14 | 3 << 16 | 3 << 18 | 3 << 20 | 3 << 22;
    let mut head = 1.0f32.to_le_bytes().to_vec();
    head.extend(types.to_le_bytes());
    head.extend(b"Poly\0\0\0\0");
    // Five vertices: a unit square in z = 0 and (2, 0, 0).
    let mut vrts = Vec::new();
    for p in [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [2.0, 0.0, 0.0],
    ] {
        for c in [p[0], p[1], p[2], 1.0] {
            vrts.extend(c.to_le_bytes());
        }
        vrts.push(0); // colour index
    }
    let file = |mesh: &[u8]| {
        let mut payload = chunk(b"HEAD", &head);
        payload.extend(chunk(b"VRTS", &vrts));
        payload.extend(chunk(b"MESH", mesh));
        plain_m3d(payload)
    };
    let read = |mesh: &[u8]| {
        let bytes = file(mesh);
        let m = m3d::decode(&bytes).unwrap_or_else(|e| panic!("{e}"));
        let faces: Vec<Vec<u32>> = m
            .faces
            .iter()
            .map(|f| f.corners().map(|c| m.faces.vertices()[c]).collect())
            .collect();
        let scene = facet::load::load_bytes("poly.m3d", &bytes, None)
            .unwrap_or_else(|e| panic!("{e}"))
            .scene;
        let triangles: Vec<[Vec3; 3]> = scene
            .meshes
            .iter()
            .flat_map(|mesh| {
                mesh.indices
                    .chunks_exact(3)
                    .map(|t| [0, 1, 2].map(|k| mesh.positions[t[k] as usize]))
            })
            .collect();
        (faces, triangles)
    };
    let v = |x: f32, y: f32| Vec3::new(x, y, 0.0);
    let square = [
        [v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0)],
        [v(0.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)],
    ];
    let after = [v(1.0, 0.0), v(2.0, 0.0), v(1.0, 1.0)];

    // A quad first (magic 0x40: four points, vertex indices only), then a
    // triangle (0x30).
    let (faces, triangles) = read(&[0x40, 0, 1, 2, 3, 0x30, 1, 4, 2]);
    assert_eq!(faces, [vec![0, 1, 2, 3], vec![1, 4, 2]]);
    assert_eq!(triangles, [square[0], square[1], after]);
    // Two quads first: one run of like records.
    let (faces, triangles) = read(&[0x40, 0, 1, 2, 3, 0x40, 0, 1, 2, 3, 0x30, 1, 4, 2]);
    assert_eq!(faces, [vec![0, 1, 2, 3], vec![0, 1, 2, 3], vec![1, 4, 2]]);
    assert_eq!(triangles.len(), 5);
    // A point (0x10) and a line (0x20) first: kept as faces, drawn as no
    // triangle.
    let (faces, triangles) = read(&[0x10, 4, 0x20, 0, 4, 0x30, 1, 4, 2]);
    assert_eq!(faces, [vec![4], vec![0, 4], vec![1, 4, 2]]);
    assert_eq!(triangles, [after]);
    // The same quad after a triangle (the order real files have).
    let (faces, triangles) = read(&[0x30, 1, 4, 2, 0x40, 0, 1, 2, 3]);
    assert_eq!(faces, [vec![1, 4, 2], vec![0, 1, 2, 3]]);
    assert_eq!(triangles, [after, square[0], square[1]]);
}

/// Corners become one output vertex only where they name the same vertex,
/// UV, normal and material: a file assembled here from specs/m3d.md
/// (triangles with UV and normal indices, magic 51; then vertex indices
/// alone, magic 48) whose welded vertices are worked out by hand below,
/// in the order the corners first name them.
#[test]
fn corners_share_a_vertex_only_with_the_same_uv_normal_and_material() {
    use glam::Vec2;
    // vc float (2), vi/si/ci/ti u8 (0), every other type "not defined" (3).
    let types: u32 = 2 | 3 << 10 | 3 << 14 | 3 << 16 | 3 << 18 | 3 << 20 | 3 << 22;
    // Name "Weld", empty license, author and comment, then "a" (offset 8)
    // and "b" (offset 10).
    let (a, b) = (8u8, 10u8);
    let mut head = 1.0f32.to_le_bytes().to_vec();
    head.extend(types.to_le_bytes());
    head.extend(b"Weld\0\0\0\0a\0b\0");
    // A unit square's corners p0..p3, then two normals: n4 = +z, n5 = -z
    // stored three units long (drawn unit length).
    let points = [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -3.0],
    ];
    let mut vrts = Vec::new();
    for p in points {
        for c in [p[0], p[1], p[2], 1.0] {
            vrts.extend(c.to_le_bytes());
        }
        vrts.push(0); // colour index
    }
    // Two UVs: t0 = (0, 0), t1 = (1, 0.25).
    let tmap: Vec<u8> = [0.0f32, 0.0, 1.0, 0.25]
        .iter()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let file = |mesh: &[u8]| {
        let mut payload = chunk(b"HEAD", &head);
        payload.extend(chunk(b"TMAP", &tmap));
        payload.extend(chunk(b"VRTS", &vrts));
        // Materials with a name and no property.
        payload.extend(chunk(b"MTRL", &[a]));
        payload.extend(chunk(b"MTRL", &[b]));
        payload.extend(chunk(b"MESH", mesh));
        plain_m3d(payload)
    };
    let load = |mesh: &[u8]| {
        facet::load::load_bytes("weld.m3d", &file(mesh), None)
            .unwrap_or_else(|e| panic!("{e}"))
            .scene
    };
    let p = |i: usize| Vec3::from(points[i]);
    // A UV as drawn: (u, 1 - v).
    let (t0, t1) = (Vec2::new(0.0, 1.0), Vec2::new(1.0, 0.75));
    let (up, down) = (Vec3::Z, -Vec3::Z);

    // Triangles with (vertex, UV, normal) corners.
    let tri = |c: [(u8, u8, u8); 3]| {
        let mut r = vec![0x33];
        for (v, t, n) in c {
            r.extend([v, t, n]);
        }
        r
    };
    let mut mesh = vec![0x00, a]; // use material "a"
    mesh.extend(tri([(0, 0, 4), (1, 0, 4), (2, 0, 4)])); // all new: 0 1 2
    mesh.extend(tri([(0, 0, 4), (2, 0, 4), (3, 1, 4)])); // 0 and 2 again, 3 new
    mesh.extend(tri([(0, 1, 4), (1, 0, 4), (3, 1, 4)])); // p0 with t1: new 4
    mesh.extend(tri([(0, 1, 4), (2, 0, 5), (3, 0, 4)])); // 4 again; p2 with n5: 5; p3 with t0: 6
    mesh.extend([0x00, b]); // use material "b": every vertex made again
    mesh.extend(tri([(0, 0, 4), (1, 0, 4), (2, 0, 4)])); // 0 1 2
    mesh.extend(tri([(0, 1, 4), (2, 0, 4), (0, 0, 4)])); // p0 with t1: 3; 2; 0
    let scene = load(&mesh);
    let parts: Vec<&str> = scene.meshes.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(parts, ["a", "b"]);
    let (ma, mb) = (&scene.meshes[0], &scene.meshes[1]);
    assert_eq!(ma.indices, [0, 1, 2, 0, 2, 3, 4, 1, 3, 4, 5, 6]);
    assert_eq!(ma.positions, [p(0), p(1), p(2), p(3), p(0), p(2), p(3)]);
    assert_eq!(ma.uvs, [t0, t0, t0, t1, t1, t0, t0]);
    assert_eq!(ma.normals, [up, up, up, up, up, down, up]);
    assert_eq!(mb.indices, [0, 1, 2, 3, 2, 0]);
    assert_eq!(mb.positions, [p(0), p(1), p(2), p(0)]);
    assert_eq!(mb.uvs, [t0, t0, t0, t1]);
    assert_eq!(mb.normals, [up; 4]);

    // Vertex indices alone (no UV or normal anywhere): shared within a
    // material, made again in the next.
    let mut mesh = vec![0x00, a];
    mesh.extend([0x30, 0, 1, 2, 0x30, 0, 2, 3]);
    mesh.extend([0x00, b]);
    mesh.extend([0x30, 2, 3, 0]);
    let scene = load(&mesh);
    let (ma, mb) = (&scene.meshes[0], &scene.meshes[1]);
    assert_eq!(ma.indices, [0, 1, 2, 0, 2, 3]);
    assert_eq!(ma.positions, [p(0), p(1), p(2), p(3)]);
    assert_eq!(mb.indices, [0, 1, 2]);
    assert_eq!(mb.positions, [p(2), p(3), p(0)]);
}

#[test]
fn colour_indices_mesh_records_and_material_colours_read_as_m3d_h_does() {
    use facet::formats::m3d;
    let m = m3d::decode(&hand_m3d(true, false)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.scale, 1.0);
    let colors: Vec<u32> = m.vertices.iter().map(|v| v.color).collect();
    assert_eq!(colors, [0xFF00_00FE, 0xFF00_00FF, 0xFF00_0001]);
    let materials: Vec<Option<u32>> = m.faces.iter().map(|f| f.material).collect();
    assert_eq!(materials, [Some(0), Some(0), None]);
    assert_eq!(m.parameters, ["speed"]);
    // Without a CMAP, colour 0.
    let m = m3d::decode(&hand_m3d(false, false)).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        m.types.ci != 0 && m.vertices.iter().all(|v| v.color == 0),
        "{:?}",
        m.vertices
    );

    // The scene keeps the vertex colours under "paint" (no Kd) as well as
    // where there is no material.
    let scene = facet::load::load_bytes("hand.m3d", &hand_m3d(true, false), None)
        .unwrap()
        .scene;
    for mesh in &scene.meshes {
        let colors = mesh
            .colors
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no colours", mesh.name));
        assert!(
            colors.contains(&[254, 0, 0, 255]),
            "{}: {colors:?}",
            mesh.name
        );
    }
    assert!(scene.meshes.iter().any(|mesh| mesh.name == "paint"));

    // Repeated unique chunks: the first stays; voxel data without voxel
    // types is skipped; each says so.
    let r = m3d::decode(&hand_m3d(true, true)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        r.vertices,
        m3d::decode(&hand_m3d(true, false)).unwrap().vertices
    );
    assert_eq!(r.cmap.len(), 256);
    assert_eq!(r.cmap[254], 0xFF00_00FE);
    for what in ["a second CMAP chunk", "a second VRTS chunk", "VOXD chunk"] {
        assert!(
            r.warnings.iter().any(|w| w.contains(what)),
            "{what}: {:?}",
            r.warnings
        );
    }
}

/// An M3D assembled from `specs/m3d.md`: colours stored as RGBA (ci_t =
/// uint32, bits 6-7 = 10), u8 string offsets; four materials with the
/// display properties of the spec's tables: 0 Kd, 2 Ks, 3 Ns, 4 Ke, 6 Km,
/// 7 d, 128 map_Kd, 132 map_Ke, 134 map_Km, 136 map_N (a map's value is a
/// string offset, a colour 4 bytes RGBA with red lowest, a float 4 bytes).
fn shaded_m3d() -> Vec<u8> {
    let types: u32 =
        2 | 2 << 6 | 3 << 8 | 3 << 10 | 3 << 14 | 3 << 16 | 3 << 18 | 3 << 20 | 3 << 22;
    let names = [
        "glass",
        "metal",
        "skin",
        "plain",
        "glow",
        "normals.tga",
        "bumps",
        "x.jp",
        "a.png",
        "gone",
    ];
    let mut table = b"Shaded\0MIT\0tests\0\0".to_vec();
    let mut offset = std::collections::HashMap::new();
    for n in names {
        offset.insert(n, table.len() as u8);
        table.extend(n.as_bytes());
        table.push(0);
    }
    let mut head = 1.0f32.to_le_bytes().to_vec();
    head.extend(types.to_le_bytes());
    head.extend(&table);
    let mut payload = chunk(b"HEAD", &head);
    let mut vrts = Vec::new();
    for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        for c in [p[0], p[1], p[2], 1.0] {
            vrts.extend(c.to_le_bytes());
        }
        vrts.extend([255, 255, 255, 255]); // colour, RGBA
    }
    payload.extend(chunk(b"VRTS", &vrts));
    let f = |x: f32| x.to_le_bytes().to_vec();
    let mut mtrl = |name: &str, props: Vec<Vec<u8>>| {
        let mut body = vec![offset[name]];
        for p in props {
            body.extend(p);
        }
        payload.extend(chunk(b"MTRL", &body));
    };
    let prop = |ty: u8, value: &[u8]| [&[ty][..], value].concat();
    // Kd (51, 102, 153, 128): alpha 128/255; d 0.8 scales it.
    mtrl(
        "glass",
        vec![prop(0, &[51, 102, 153, 128]), prop(7, &f(0.8))],
    );
    mtrl(
        "metal",
        vec![
            prop(2, &[255, 255, 255, 255]),
            prop(3, &f(64.0)),
            prop(4, &[26, 51, 77, 255]),
            prop(132, &[offset["glow"]]),
            prop(136, &[offset["normals.tga"]]),
        ],
    );
    mtrl(
        "skin",
        vec![prop(6, &f(0.5)), prop(134, &[offset["bumps"]])],
    );
    mtrl(
        "plain",
        vec![
            prop(128, &[offset["x.jp"]]),
            prop(129, &[offset["a.png"]]),
            prop(136, &[offset["gone"]]),
        ],
    );
    let mut mesh = Vec::new();
    for m in ["glass", "metal", "skin", "plain"] {
        mesh.extend([0x00, offset[m], 0x00, 0, 1, 2]);
    }
    payload.extend(chunk(b"MESH", &mesh));
    plain_m3d(payload)
}

#[test]
fn materials_keep_transparency_specular_emission_normal_and_bump_maps() {
    use facet::scene::{BlendMode, NormalMap};
    let m = facet::formats::m3d::decode(&shaded_m3d()).unwrap_or_else(|e| panic!("{e}"));
    // Companions that answer only these names (with a 1x1 PNG) and record
    // every name asked for, in order.
    let files = ["glow.png", "normals.tga", "bumps", "x.jp.png", "a.png"];
    let asked = std::cell::RefCell::new(Vec::<String>::new());
    let recorder = common::Answers {
        stem: Some("shaded"),
        answer: |lookup: facet::scene::companions::Lookup<'_>| {
            let facet::scene::companions::Lookup::Beside(name) = lookup else {
                panic!("M3D asks for files beside the model, not {lookup:?}");
            };
            asked.borrow_mut().push(name.to_string());
            files.contains(&name).then(|| {
                let mut png = Vec::new();
                image::RgbaImage::from_pixel(1, 1, image::Rgba([128, 128, 255, 255]))
                    .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                    .unwrap();
                (name.into(), png)
            })
        },
    };
    let s = facet::scene::from_m3d::convert(&m, Default::default(), &recorder);
    // m3d.h `_m3d_gettx`: NAME.png first only when the name is shorter than
    // 5 bytes or has no '.' 4 bytes from its end; then NAME.
    assert_eq!(
        *asked.borrow(),
        [
            "glow.png",
            "normals.tga",
            "bumps.png",
            "bumps",
            "x.jp.png",
            "a.png",
            "gone.png",
            "gone"
        ]
    );
    let by_name = |n: &str| s.materials.iter().find(|m| m.name == n).unwrap();
    let texture = |t: usize| s.textures[t].name.as_str();

    let glass = by_name("glass");
    assert_eq!(glass.blend, BlendMode::Alpha);
    let want = [0.2, 0.4, 0.6, 128.0 / 255.0 * 0.8];
    for (c, (got, want)) in glass.base_color.iter().zip(want).enumerate() {
        assert!(
            (got - want).abs() < 1e-6,
            "glass channel {c}: {got} vs {want}"
        );
    }

    let metal = by_name("metal");
    assert_eq!(metal.blend, BlendMode::Opaque);
    assert_eq!(metal.maps.specular, Some(([1.0; 3], 64.0)));
    assert_eq!(metal.emission, [26.0 / 255.0, 51.0 / 255.0, 77.0 / 255.0]);
    assert_eq!(metal.maps.emission.map(texture), Some("glow"));
    let (n, kind) = metal.maps.normal.unwrap();
    assert_eq!((texture(n), kind), ("normals.tga", NormalMap::Rgb));
    assert!(!s.textures[n].srgb, "a normal map is data");

    let skin = by_name("skin");
    let (b, kind) = skin.maps.normal.unwrap();
    assert_eq!(
        (texture(b), kind),
        ("bumps", NormalMap::Height { strength: 0.5 })
    );
    assert!(!s.textures[b].srgb, "a bump map is data");

    // A normal map that did not load is left out, with a note; the
    // diffuse found under x.jp.png is the texture.
    let plain = by_name("plain");
    assert_eq!(plain.maps.normal, None);
    assert!(
        plain.maps.notes.iter().any(|n| n.contains("gone")),
        "{:?}",
        plain.maps.notes
    );
    assert_eq!(plain.texture.map(texture), Some("x.jp"));
    assert!(matches!(
        &s.textures[plain.texture.unwrap()].source,
        facet::scene::TextureSource::External(p) if p.ends_with("x.jp.png")
    ));
}

/// The voxel meshes of the shared files, checked as geometry rather than
/// against counts: every face is a square of one cell's side, wound
/// counter-clockwise seen along its normal, its four vertices carrying that
/// normal and one colour (what `Mesh::faceted`, set on each of them, claims
/// for the renderer, which then shades a face once a vertex; no mesh of a
/// file without voxels claims it); and within a part no two vertices have the same position and
/// normal (faces that face the same way and meet at a corner share it),
/// and every vertex is used. All from the scene's own lists, with no
/// knowledge of how the mesher finds its shared corners.
#[test]
fn voxel_faces_are_unit_squares_sharing_every_corner() {
    for file in ["lantea.m3d", "voxel.m3d"] {
        let s = load(file);
        // One cell's side: the first face's first edge (every face the same).
        let m0 = s.meshes.iter().find(|m| !m.indices.is_empty()).unwrap();
        let side =
            (m0.positions[m0.indices[1] as usize] - m0.positions[m0.indices[0] as usize]).length();
        assert!(side > 0.0, "{file}");
        let mut faces = 0;
        for (k, m) in s.meshes.iter().enumerate() {
            assert!(m.faceted, "{file} part {k}: faceted");
            assert_eq!(m.indices.len() % 6, 0, "{file} part {k}: whole quads");
            let mut used = vec![false; m.positions.len()];
            for q in m.indices.chunks_exact(6) {
                // Two triangles a quad: (a, b, c) and (a, c, d).
                let [a, b, c, a2, c2, d]: [usize; 6] = std::array::from_fn(|j| q[j] as usize);
                assert_eq!((a, c), (a2, c2), "{file} part {k}: a quad's triangles");
                let p = [a, b, c, d].map(|i| m.positions[i]);
                let n = m.normals[a];
                assert!(
                    [Vec3::X, Vec3::Y, Vec3::Z].iter().any(|x| n.abs() == *x),
                    "{file} part {k}: normal {n} is not along an axis"
                );
                for i in [a, b, c, d] {
                    assert_eq!(m.normals[i], n, "{file} part {k}: one normal a face");
                    if let Some(colors) = &m.colors {
                        assert_eq!(colors[i], colors[a], "{file} part {k}: one colour a face");
                    }
                    used[i] = true;
                }
                let (e1, e2) = (p[1] - p[0], p[3] - p[0]);
                let close = |x: f32, y: f32| (x - y).abs() <= 1e-5 * side.max(1.0);
                assert!(
                    close(e1.length(), side)
                        && close(e2.length(), side)
                        && close(e1.dot(e2), 0.0)
                        && close(e1.dot(n), 0.0)
                        && close(e2.dot(n), 0.0),
                    "{file} part {k}: face {p:?} is not a square of side {side} across {n}"
                );
                assert!(
                    (p[2] - (p[1] + e2)).length() <= 1e-5,
                    "{file} part {k}: face {p:?}: its fourth corner"
                );
                // Counter-clockwise seen from outside: e1 x e2 along n.
                assert!(
                    e1.cross(e2).dot(n) > 0.0,
                    "{file} part {k}: face {p:?} winding"
                );
                faces += 1;
            }
            assert!(used.iter().all(|&u| u), "{file} part {k}: an unused vertex");
            let mut seen = std::collections::HashSet::new();
            for (p, n) in m.positions.iter().zip(&m.normals) {
                assert!(
                    seen.insert((
                        p.to_array().map(f32::to_bits),
                        n.to_array().map(f32::to_bits)
                    )),
                    "{file} part {k}: two vertices at {p} facing {n}"
                );
            }
        }
        // m3d.h's triangle counts (voxels_mesh_with_hidden_faces_removed).
        assert_eq!(2 * faces, s.triangle_count(), "{file}");
    }
    for file in [
        "cube.m3d",
        "suzanne.m3d",
        "CesiumMan.m3d",
        "cube_with_vertexcolors.m3d",
    ] {
        let s = load(file);
        assert!(
            s.meshes.iter().all(|m| !m.faceted),
            "{file}: a mesh claims to be faceted"
        );
    }
}

/// The voxel meshes are made on as many threads as their cells and faces
/// are worth (lantea.m3d's on up to three): the scene is the same on one
/// thread as on four, part for part, vertex for vertex, in the same order.
#[test]
fn voxel_meshes_are_the_same_on_any_number_of_threads() {
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| load("lantea.m3d"))
    };
    let (one, four) = (on(1), on(4));
    assert_eq!(one.meshes.len(), 23);
    assert_eq!(one.meshes.len(), four.meshes.len());
    for (a, b) in one.meshes.iter().zip(&four.meshes) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.material, b.material, "{}", a.name);
        assert_eq!(a.positions, b.positions, "{}", a.name);
        assert_eq!(a.normals, b.normals, "{}", a.name);
        assert_eq!(a.uvs, b.uvs, "{}", a.name);
        assert_eq!(a.indices, b.indices, "{}", a.name);
        assert_eq!(a.facing, b.facing, "{}", a.name);
        assert_eq!(a.closed, b.closed, "{}", a.name);
    }
    assert_eq!(
        format!("{:?}", one.materials),
        format!("{:?}", four.materials)
    );
}

/// The voxel meshes' runs by facing (`Mesh::facing`), checked against the
/// triangles themselves: the runs follow each other over every index; each
/// triangle of a run faces the run's way (its normal by the right-hand
/// rule from its corners, which the winding test above ties to the
/// outside); and the run's offset is the least `normal · p` over its
/// triangles' corners, worked out here from the positions.
#[test]
fn voxel_runs_by_facing_hold_the_sides_they_name() {
    for file in ["lantea.m3d", "voxel.m3d"] {
        let s = load(file);
        let mut runs = 0;
        for (k, m) in s.meshes.iter().enumerate() {
            if m.indices.is_empty() {
                assert!(m.facing.is_empty(), "{file} part {k}: runs of nothing");
                continue;
            }
            let mut at = 0u32;
            let mut normals = Vec::new();
            for f in &m.facing {
                assert_eq!(f.start, at, "{file} part {k}: runs in order, no gap");
                assert!(
                    f.end > f.start && (f.end - f.start) % 3 == 0,
                    "{file} part {k}"
                );
                at = f.end;
                assert!(
                    !normals.contains(&f.normal),
                    "{file} part {k}: one run a side"
                );
                normals.push(f.normal);
                let mut least = f32::INFINITY;
                for t in m.indices[f.start as usize..f.end as usize].chunks_exact(3) {
                    let [a, b, c] = [0, 1, 2].map(|j| m.positions[t[j] as usize]);
                    let n = (b - a).cross(c - a).normalize();
                    assert!(
                        (n - f.normal).length() < 1e-5,
                        "{file} part {k}: triangle {a} {b} {c} faces {n}, its run {}",
                        f.normal
                    );
                    least = least
                        .min(f.normal.dot(a))
                        .min(f.normal.dot(b))
                        .min(f.normal.dot(c));
                }
                assert_eq!(f.offset, least, "{file} part {k}: run facing {}", f.normal);
                runs += 1;
            }
            assert_eq!(at as usize, m.indices.len(), "{file} part {k}: every index");
        }
        assert!(runs > 0, "{file}");
    }
}

#[test]
fn voxel_surfaces_are_drawn_culled_and_look_the_same() {
    // Voxel faces bound the filled cells and face out of them, so drawing
    // them with back faces culled may change no pixel seen from outside:
    // a face wound the wrong way would vanish and show what is behind it.
    // From any side, above and below; at most a few pixels on silhouettes
    // differ (an edge shared by a front and a back face; ties on it go to
    // one side).
    for file in ["lantea.m3d", "voxel.m3d"] {
        let culled = load(file);
        assert!(culled.meshes.iter().all(|m| m.closed), "{file}: closed");
        let mut both = culled.clone();
        both.meshes.iter_mut().for_each(|m| m.closed = false);
        for camera in [(30.0, 20.0), (150.0, -40.0), (-100.0, 70.0), (260.0, 5.0)] {
            let req = facet::cli::headless::RenderRequest {
                camera: Some((camera.0, camera.1, 1.0)),
                view: facet::gpu::ViewOptions {
                    grid: false,
                    ..Default::default()
                },
                ..small()
            };
            let a = render(&culled, req.clone());
            let b = render(&both, req);
            let differ = a
                .pixels()
                .zip(b.pixels())
                .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > 10))
                .count();
            assert!(
                differ <= 10,
                "{file} {camera:?}: {differ} of {} pixels differ",
                a.len() / 4
            );
        }
    }
}

/// Runs of voxel faces that face away from the eye are not drawn: from
/// every side, above and below, in perspective, the picture is the same
/// to the byte as drawing every run (the GPU culls those triangles
/// anyway), with fewer triangles sent.
#[test]
fn voxel_runs_facing_away_are_skipped_with_the_same_pixels() {
    let gpu = common::gpu();
    for file in ["lantea.m3d", "voxel.m3d"] {
        let s = load(file);
        for camera in [(30.0, 20.0), (150.0, -40.0), (-100.0, 70.0), (260.0, 5.0)] {
            let shot = |facing_cull: bool| {
                let req = facet::cli::headless::RenderRequest {
                    camera: Some((camera.0, camera.1, 1.0)),
                    view: facet::gpu::ViewOptions {
                        grid: false,
                        facing_cull,
                        ..Default::default()
                    },
                    ..small()
                };
                facet::cli::headless::render(&gpu, &s, &req).unwrap()
            };
            let ((all, all_stats), (some, some_stats)) = (shot(false), shot(true));
            assert_eq!(all_stats.triangles, s.triangle_count() as u64, "{file}");
            assert!(
                some_stats.triangles < all_stats.triangles,
                "{file} {camera:?}: {} of {} triangles sent",
                some_stats.triangles,
                all_stats.triangles
            );
            let differ = all
                .pixels()
                .zip(some.pixels())
                .filter(|(a, b)| a != b)
                .count();
            assert_eq!(differ, 0, "{file} {camera:?}: {differ} pixels differ");
        }
    }
}

/// The file facts the inspector and `info` show, written only when shown
/// (`scene::Detail`): each as text, against the hand-built file's own
/// strings and sizes.
#[test]
fn file_facts_read_as_the_hand_built_file_says() {
    let file = hand_m3d(false, false);
    let scene = facet::load::load_bytes("hand.m3d", &file, None)
        .unwrap()
        .scene;
    let facts: Vec<(String, String)> = scene
        .source
        .details
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    // Everything after "3DMO" and the length: HEAD to OMD3, stored plain.
    let payload = format!("{} bytes, stored plain", file.len() - 8);
    let want = [
        ("model name", "Hand"),
        ("license", "MIT"),
        ("author", "tests"),
        ("description", ""),
        // The file says -2; m3d.h reads a scale <= 0 as 1.
        ("scale", "1 m per unit"),
        ("payload", &payload),
        ("actions", "0"),
        ("voxel types", "0"),
        ("labels", "0"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(facts, want);
    // A compressed file says so, with its inflated size (Python's zlib
    // inflates cube.m3d's stream after "3DMO" and the length to 128 bytes).
    let cube = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/m3d/cube.m3d"),
    )
    .unwrap();
    let m = m3d::decode(&cube).unwrap();
    let s = facet::scene::from_m3d::convert(
        &m,
        Default::default(),
        &facet::scene::companions::NoCompanions,
    );
    let payload = s
        .source
        .details
        .iter()
        .find(|(k, _)| k == "payload")
        .unwrap();
    assert_eq!(
        payload.1.to_string(),
        "128 bytes, zlib-compressed in the file"
    );
}

/// VOXD's run-length records, assembled here from specs/m3d.md ("Voxel
/// Data": a record byte N, then N & 0x7F + 1 voxels if bit 7 is unset,
/// or one voxel repeated that many times if it is set; -1 is "not set",
/// -2 "clear"), read as m3d.h reads them: one-byte voxels 254 and 255 are
/// CLEAR and UNSET, and a run past the block's end stops at it.
#[test]
fn voxel_runs_read_as_the_spec_lays_them_out() {
    let voxd = |vp16: bool, size: [u8; 3], runs: &[u8]| {
        // vc float, vi/si/ci u8, vd int8; vp u8 or u16 (bit 24); the rest
        // not defined.
        let types: u32 =
            2 | 3 << 8 | 3 << 10 | 3 << 14 | 3 << 16 | 3 << 18 | 3 << 20 | (vp16 as u32) << 24;
        let mut head = 1.0f32.to_le_bytes().to_vec();
        head.extend(types.to_le_bytes());
        head.extend(b"vox\0\0\0\0");
        let mut body = vec![0u8, 0, 0, 0]; // no name; position 0, 0, 0
        body.extend(size);
        body.extend([0, 0]); // uncertainty, group
        body.extend(runs);
        let mut payload = chunk(b"HEAD", &head);
        payload.extend(chunk(b"VOXD", &body));
        let m = m3d::decode(&plain_m3d(payload)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.voxel_blocks.len(), 1);
        assert_eq!(m.voxel_blocks[0].size, size.map(u32::from));
        m.voxel_blocks[0].data.clone()
    };
    // 4 x 1 x 2 one-byte voxels: 5 twice; 254, 255, 7 as they are; 9 six
    // times, of which three fit.
    let data = voxd(false, [4, 1, 2], &[0x81, 5, 0x02, 254, 255, 7, 0x85, 9]);
    assert_eq!(data, [5, 5, 0xFFFE, 0xFFFF, 7, 9, 9, 9]);
    // 3 x 1 x 1 two-byte voxels, little-endian: 0x1234 and -2 as they
    // are, then -1 once.
    let data = voxd(
        true,
        [3, 1, 1],
        &[0x01, 0x34, 0x12, 0xFE, 0xFF, 0x80, 0xFF, 0xFF],
    );
    assert_eq!(data, [0x1234, 0xFFFE, 0xFFFF]);

    // A literal run of three one-byte voxels with one byte left in the
    // chunk: the error names the voxels and where they start. The file's
    // 8-byte header, HEAD (8 + 4 + 4 + 7 bytes), VOXD's own 8, then the
    // block's 9 bytes (name, position, size, uncertainty, group) and the
    // record byte: the voxels start at 8 + 23 + 8 + 9 + 1 = 49 = 0x31.
    let types: u32 = 2 | 3 << 8 | 3 << 10 | 3 << 14 | 3 << 16 | 3 << 18 | 3 << 20;
    let mut head = 1.0f32.to_le_bytes().to_vec();
    head.extend(types.to_le_bytes());
    head.extend(b"vox\0\0\0\0");
    let mut payload = chunk(b"HEAD", &head);
    payload.extend(chunk(b"VOXD", &[0, 0, 0, 0, 4, 1, 1, 0, 0, 0x02, 7]));
    let e = m3d::decode(&plain_m3d(payload)).unwrap_err().to_string();
    assert!(
        e.contains("voxel") && e.contains("offset 0x31 needs 3 bytes"),
        "{e}"
    );
}

/// A voxel block whose run-length data ends before its size does holds
/// only the voxels the data describes (the rest are unset), reserving no
/// more than its bytes could describe, and is meshed from them: a block of
/// 255 x 255 x 255 voxels of which the data gives three once made a
/// 117-byte file allocate 70 MB (found by the mutation sweep). Files
/// assembled here from specs/m3d.md's HEAD, CMAP, VOXT and VOXD layouts;
/// the triangle counts are counted by hand.
#[test]
fn a_voxel_block_whose_data_ends_early_holds_what_the_data_describes() {
    let file = |size: [u8; 3], runs: &[u8]| {
        // vc float; vi, si, ci u8; ti, bi, sk, fc, hi, fi not defined; vd
        // int8, vp u8.
        let types: u32 = 2 | 3 << 8 | 3 << 10 | 3 << 14 | 3 << 16 | 3 << 18 | 3 << 20;
        let mut head = 1.0f32.to_le_bytes().to_vec();
        head.extend(types.to_le_bytes());
        head.extend(b"vox\0\0\0\0");
        let mut payload = chunk(b"HEAD", &head);
        payload.extend(chunk(b"CMAP", &[200, 100, 50, 255]));
        // One type: colour 0, name at 4 (""), no rotation, shape 0, no
        // items.
        payload.extend(chunk(b"VOXT", &[0, 4, 0, 0, 0]));
        // Name at 4, position 0, 0, 0, the size, uncertainty and group 0.
        let mut body = vec![4, 0, 0, 0];
        body.extend(size);
        body.extend([0, 0]);
        body.extend(runs);
        payload.extend(chunk(b"VOXD", &body));
        plain_m3d(payload)
    };
    let triangles = |m: &m3d::M3d| {
        let s = facet::scene::from_m3d::convert(
            m,
            Default::default(),
            &facet::scene::companions::NoCompanions,
        );
        s.meshes.iter().map(|m| m.indices.len() / 3).sum::<usize>()
    };

    // 255 x 255 x 255 voxels, of which one record gives the first three
    // (type 0 three times: a row of three cubes along x, 3 x 6 faces less
    // the 2 x 2 where they touch: 14 squares).
    let m = m3d::decode(&file([255; 3], &[0x82, 0])).unwrap_or_else(|e| panic!("{e}"));
    let b = &m.voxel_blocks[0];
    assert_eq!(b.size, [255; 3]);
    assert_eq!(b.data, [0, 0, 0]);
    // One two-byte record describes 128 voxels at most.
    assert!(b.data.capacity() <= 256, "{} reserved", b.data.capacity());
    assert_eq!(triangles(&m), 28);

    // 4 x 1 x 2 voxels, of which the data gives five: the first row of four
    // and the first voxel of the second (an L of five cubes: 30 faces less
    // the 2 x 4 where they touch: 22 squares).
    let m = m3d::decode(&file([4, 1, 2], &[0x84, 0])).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.voxel_blocks[0].data, [0; 5]);
    assert_eq!(triangles(&m), 44);
}

/// A voxel type's colour past the colour map and its name past the string
/// table: errors that name the chunk, the type and the field (the type's
/// number is put in only when there is an error). Files assembled here
/// from specs/m3d.md's HEAD, CMAP and VOXT layouts.
#[test]
fn bad_voxel_types_name_the_type_and_field() {
    // Types: vc float (2); vi, si, ci u8 (0); ti, bi, sk, fc, hi, fi not
    // defined (3); nb, vd, vp 0.
    let types: u32 = 2 | 3 << 8 | 3 << 10 | 3 << 14 | 3 << 16 | 3 << 18 | 3 << 20;
    let file = |voxt: &[u8]| {
        let mut head = 1.0f32.to_le_bytes().to_vec();
        head.extend(types.to_le_bytes());
        head.extend(b"Vox\0MIT\0tests\0\0stone\0");
        let mut payload = chunk(b"HEAD", &head);
        // Two colours.
        payload.extend(chunk(b"CMAP", &[1, 2, 3, 255, 4, 5, 6, 255]));
        // Chunks are placed by their offset in the payload (HEAD at 0).
        let voxt_at = payload.len();
        payload.extend(chunk(b"VOXT", voxt));
        (plain_m3d(payload), voxt_at)
    };
    // Records: colour index, name offset, rotation, shape, item count.
    // Type 0 is fine; type 1's colour is index 5 of 2.
    let (bytes, at) = file(&[1, 15, 0, 0, 0, 5, 0, 0, 0, 0]);
    let e = m3d::decode(&bytes).unwrap_err().to_string();
    assert!(
        e.contains(&format!("VOXT chunk at {at:#X}: voxel type 1 colour"))
            && e.contains("colour index 5 is past the colour map (2 colours)"),
        "{e}"
    );
    // Type 0's name at offset 99 of a 21-byte table.
    let (bytes, at) = file(&[0, 99, 0, 0, 0]);
    let e = m3d::decode(&bytes).unwrap_err().to_string();
    assert!(
        e.contains(&format!("VOXT chunk at {at:#X}: voxel type 0 name"))
            && e.contains("string offset 99 is past the string table (21 bytes)"),
        "{e}"
    );
}

/// A file that switches among many materials face by face: cube_usemtl's
/// 12 triangles ten times over (120 faces), face k using material k % 40 of
/// 40 copies of its first material. Each material's faces make one part,
/// in order of first use (material k is part k), 3 triangles each, with
/// the source's corners: past 16 groups the converter finds a material's
/// group through a table instead of a scan, which a file of thousands of
/// materials alternating over a million faces made minutes long.
#[test]
fn forty_materials_alternating_face_by_face_make_forty_parts() {
    let path = common::shared().join("fixtures/m3d/cube_usemtl.m3d");
    let mut m = m3d::decode(&std::fs::read(path).unwrap()).unwrap();
    let material = m.materials[0].clone();
    m.materials = (0..40)
        .map(|k| Material {
            name: format!("m{k}"),
            ..material.clone()
        })
        .collect();
    let source: Vec<Vec<FacePoint>> = m.faces.iter().map(|f| f.points().collect()).collect();
    assert_eq!(source.len(), 12);
    let mut faces = Faces::default();
    for k in 0..120 {
        faces.push(Some((k % 40) as u32), &source[k % 12]);
    }
    m.faces = faces;
    let bytes = m3d_write::encode(&m, true).unwrap();
    let scene = facet::load::load_bytes("forty.m3d", &bytes, None)
        .unwrap()
        .scene;
    let parts: Vec<&facet::scene::Mesh> = scene
        .meshes
        .iter()
        .filter(|p| p.material.is_some_and(|i| i < 40))
        .collect();
    assert_eq!(parts.len(), 40);
    for (k, part) in parts.iter().enumerate() {
        assert_eq!(part.material, Some(k), "part {k}");
        assert_eq!(part.name, format!("m{k}"));
        assert_eq!(part.indices.len(), 9, "part {k}");
        // Its triangles are faces k, k + 40 and k + 80: cube faces
        // k % 12, (k + 40) % 12 and (k + 80) % 12, corners in order.
        for (t, tri) in part.indices.chunks_exact(3).enumerate() {
            let face = &source[(k + 40 * t) % 12];
            for (c, &i) in tri.iter().enumerate() {
                let want = m.vertices[face[c].vertex as usize].pos;
                let got = part.positions[i as usize];
                assert!(
                    (got - Vec3::from_slice(&want[..3])).length() < 1e-6,
                    "part {k} triangle {t} corner {c}: {got} against {want:?}"
                );
            }
        }
    }
}

/// Voxel types take the material of their name (the first of that name).
/// 70 types over 70 materials (4,900 pairs) are past the scan: each type's
/// part must still bind the material of its own name, here given in the
/// reverse order of the types, each material's colour its own.
#[test]
fn seventy_voxel_types_bind_the_materials_of_their_names() {
    let n = 70u32;
    let mut m = M3d {
        types: Types::from_bits(0),
        name: "types".into(),
        materials: (0..n)
            .rev()
            .map(|k| Material {
                name: format!("stone {k}"),
                props: vec![Property {
                    ty: 0,
                    value: PropValue::Color(0xFF00_0000 | k),
                }],
            })
            .collect(),
        voxel_types: (0..n)
            .map(|k| VoxelType {
                color: 0xFFFF_FFFF,
                name: format!("stone {k}"),
                rotation: 0,
                shape: 0,
                skin: NONE,
                items: vec![],
            })
            .collect(),
        voxel_blocks: vec![VoxelBlock {
            name: String::new(),
            pos: [0, 0, 0],
            size: [n, 1, 1],
            uncertainty: 0,
            group: 0,
            data: (0..n as u16).collect(),
        }],
        ..Default::default()
    };
    m.types.ci = 4;
    m.types.sk = 0;
    m.types.si = 2; // 2-byte string offsets: the names take over 256 bytes
    let bytes = m3d_write::encode(&m, true).unwrap();
    let s = facet::load::load_bytes("types.m3d", &bytes, None)
        .unwrap()
        .scene;
    let voxel_parts: Vec<&facet::scene::Mesh> = s
        .meshes
        .iter()
        .filter(|p| !p.positions.is_empty())
        .collect();
    assert_eq!(voxel_parts.len(), n as usize);
    for part in voxel_parts {
        let material = part.material.unwrap();
        // Material i of the file is "stone {69 - i}", red 69 - i.
        let k = n as usize - 1 - material;
        let red = s.materials[material].base_color[0];
        assert!(
            (red - k as f32 / 255.0).abs() < 1e-6,
            "part {:?}: material {material}, red {red}",
            part.name
        );
        assert!(part.name.ends_with(&format!("type {k}")), "{}", part.name);
    }
}
