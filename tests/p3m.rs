//! P3M decoder: round trips through the writer for every field, malformed
//! input, truncation at every byte.

use facet::formats::p3m::{self, *};
use facet::formats::p3m_write;
use facet::formats::ptf::{Ptf, PtfFormat, PtfLayout};

fn key3(skip: u8, interp: Interp, value: [f32; 3]) -> Key<[f32; 3], Interp> {
    Key {
        skip,
        interp,
        value,
    }
}

/// A model using every feature of the format.
fn everything() -> P3m {
    let mut m = facet::generators::p3m::demo_model();
    m.flags = 0;
    m.parts[0].uvs = None;
    m.parts[4].normals = None;
    m.materials.push(Material {
        render_mode: RenderMode::Add,
        data: MaterialData {
            color: [1, 2, 3, 4],
            emission: [5, 6, 7],
            shading: 8,
            texture: Some(2),
            matcap: None,
        },
        animation: Some(MaterialAnimation {
            us_per_frame: 16_667,
            preserve_texture_scroll: true,
            loop_mode: MatLoop::Cont,
            texture_scroll: [0.5, -0.25],
            matcap_scroll: [0.0, 1.5],
            last_frame: 60,
            color: vec![
                Key {
                    skip: 0,
                    interp: ColorInterp::None,
                    value: [255, 0, 0, 255],
                },
                Key {
                    skip: 9,
                    interp: ColorInterp::LinearRgb,
                    value: [0, 255, 0, 255],
                },
                Key {
                    skip: 9,
                    interp: ColorInterp::LinearHsv,
                    value: [0, 0, 255, 128],
                },
                Key {
                    skip: 9,
                    interp: ColorInterp::LinearOklch,
                    value: [255, 255, 0, 255],
                },
            ],
            emission: vec![Key {
                skip: 3,
                interp: ColorInterp::LinearHsv,
                value: [10, 20, 30],
            }],
            shading: vec![
                Key {
                    skip: 0,
                    interp: Interp::None,
                    value: 0,
                },
                Key {
                    skip: 30,
                    interp: Interp::Linear,
                    value: 255,
                },
            ],
            texture: vec![
                Key {
                    skip: 0,
                    interp: (),
                    value: 0,
                },
                Key {
                    skip: 20,
                    interp: (),
                    value: 2,
                },
            ],
            matcap: vec![Key {
                skip: 5,
                interp: (),
                value: 1,
            }],
        }),
    });
    m.textures.push(Texture::External {
        path: "textures/does_not_exist".into(),
        written_as_embedded: false,
    });
    m.textures.push(Texture::Embedded {
        offset: 0,
        size: 0,
        ptf: Ok(Ptf {
            layout: PtfLayout::Rev2024 { revision: 0 },
            format: PtfFormat::Rgb,
            width: 4,
            height: 4,
            pixels: (0..48).collect(),
            reduced_from: None,
        }),
    });
    m.parts[2].material_overrides.push(MaterialOverride {
        animation: "wave".into(),
        priority: 7,
        material: 4,
    });
    m.animations.push(Animation {
        name: "wave".into(),
        actions: vec![
            AnimationAction {
                action: 0,
                speed: 2.0,
                start: 4,
                end: 20,
            },
            AnimationAction {
                action: 1,
                speed: 0.5,
                start: 0,
                end: 300,
            },
        ],
    });
    m.actions.push(Action {
        us_per_frame: 33_333,
        part_list_mode: PartListMode::Black,
        parts: vec!["armor (hidden)".into(), "head".into()],
        bones: vec![ActionBone {
            bone: "spine".into(),
            translation: vec![
                key3(0, Interp::Linear, [0.0, 1.0, 2.0]),
                key3(255, Interp::None, [3.0, 4.0, 5.0]),
            ],
            rotation: vec![key3(10, Interp::Linear, [0.1, 0.2, 0.3])],
            scale: vec![
                key3(0, Interp::Linear, [1.0; 3]),
                key3(42, Interp::Linear, [2.0; 3]),
            ],
        }],
    });
    use UdfScalar as S;
    let scalars = [
        (UdfType::Bool, S::Bool(true)),
        (UdfType::I8, S::I8(-5)),
        (UdfType::I16, S::I16(-300)),
        (UdfType::I32, S::I32(-70000)),
        (UdfType::I64, S::I64(-1 << 40)),
        (UdfType::U8, S::U8(200)),
        (UdfType::U16, S::U16(60000)),
        (UdfType::U32, S::U32(4_000_000_000)),
        (UdfType::U64, S::U64(1 << 60)),
        (UdfType::F32, S::F32(1.5)),
        (UdfType::F64, S::F64(-2.25)),
    ];
    for (ty, v) in scalars.iter().cloned() {
        m.user_fields.push(UserField {
            name: format!("scalar {}", ty.name()),
            ty,
            is_array: false,
            value: UdfValue::Scalar(v.clone()),
        });
        m.user_fields.push(UserField {
            name: format!("array {}", ty.name()),
            ty,
            is_array: true,
            value: UdfValue::Array(vec![v.clone(), v]),
        });
    }
    m.user_fields.push(UserField {
        name: "empty array".into(),
        ty: UdfType::I32,
        is_array: true,
        value: UdfValue::Empty,
    });
    m
}

/// Offsets and sizes of embedded textures are set by the writer; normalise
/// them away for comparing with a model built in code.
fn without_offsets(mut m: P3m) -> P3m {
    m.string_table = (0, 0);
    for t in &mut m.textures {
        if let Texture::Embedded { offset, size, .. } = t {
            *offset = 0;
            *size = 0;
        }
    }
    for b in &mut m.bones {
        b.parent = None;
    }
    m
}

#[test]
fn every_field_round_trips_through_the_writer() {
    let model = everything();
    let bytes = p3m_write::encode(&model).unwrap();
    let decoded = p3m::decode(&bytes).unwrap();
    assert_eq!(without_offsets(decoded.clone()), without_offsets(model));
    // Writing the decoded model again gives the same bytes.
    assert_eq!(p3m_write::encode(&decoded).unwrap(), bytes);
    // Parents were rebuilt from the depth-first order.
    let parents: Vec<_> = decoded.bones.iter().map(|b| b.parent).collect();
    assert_eq!(parents, vec![None, Some(0), Some(1)]);
    // The string table is the tail of the file.
    assert_eq!(decoded.string_table.0 + decoded.string_table.1, bytes.len());
}

/// A string array field (specs/p3m.txt, "User-defined field": an array
/// of strings is an offset to its first element in the string table, the
/// elements NUL-terminated one after another) written and read back; its
/// bytes in the string table are the spec's, spelled out here.
#[test]
fn a_string_array_field_is_its_strings_back_to_back_in_the_string_table() {
    let mut model = facet::generators::p3m::demo_model();
    model.user_fields.push(UserField {
        name: "tags".into(),
        ty: UdfType::Str,
        is_array: true,
        value: UdfValue::Array(vec![
            UdfScalar::Str("ab".into()),
            UdfScalar::Str("c".into()),
        ]),
    });
    let bytes = p3m_write::encode(&model).unwrap();
    let decoded = p3m::decode(&bytes).unwrap();
    assert_eq!(decoded.user_fields.last(), model.user_fields.last());
    let (start, len) = decoded.string_table;
    let table = &bytes[start..start + len];
    assert!(
        table.windows(5).any(|w| w == b"ab\0c\0"),
        "the elements back to back in the string table"
    );
}

#[test]
fn bundled_demo_is_what_the_generator_writes() {
    let on_disk = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.p3m")).unwrap();
    assert_eq!(
        on_disk,
        facet::generators::p3m::demo_bytes(),
        "assets/demo.p3m is stale: run `cargo run -- gen-assets`"
    );
}

#[test]
fn weights_read_back_as_b_plus_one_over_256() {
    let m = p3m::decode(&facet::generators::p3m::demo_bytes()).unwrap();
    let head = &m.parts[2];
    let all: Vec<(usize, f32)> = head.weight_groups[0].iter().collect();
    assert_eq!(all.len(), head.positions.len());
    assert!(all.iter().all(|&(_, w)| w == 1.0));
    assert_eq!(p3m::decode_weight(0), 1.0 / 256.0);
    assert_eq!(p3m::decode_weight(127), 0.5);
}

#[test]
fn keyframe_frames_follow_skips() {
    let frames: Vec<u32> = p3m::key_frames([3u8, 0, 9, 255].into_iter()).collect();
    assert_eq!(frames, vec![3, 4, 14, 270]);
}

#[test]
fn visibility_mask_bits_are_lsb_first() {
    let mut m = everything();
    let base = m.parts[0].clone();
    m.parts = (0..11)
        .map(|i| Part {
            name: format!("p{i}"),
            visible: i % 3 == 0,
            ..base.clone()
        })
        .collect();
    let bytes = p3m_write::encode(&m).unwrap();
    // count, then ceil(11 / 8) = 2 mask bytes: parts 0, 3, 6 in the first, 9 in the second.
    assert_eq!(&bytes[5..8], &[11, 0b0100_1001, 0b0000_0010]);
    let d = p3m::decode(&bytes).unwrap();
    assert_eq!(
        d.parts.iter().map(|p| p.visible).collect::<Vec<_>>(),
        (0..11).map(|i| i % 3 == 0).collect::<Vec<_>>()
    );
}

#[test]
fn truncation_at_every_byte_is_an_error_never_a_panic() {
    for bytes in [
        facet::generators::p3m::demo_bytes(),
        p3m_write::encode(&everything()).unwrap(),
    ] {
        for len in 0..bytes.len() {
            // Every cut is an error, the string table at the tail included:
            // it must end with a NUL and hold every string offset, and in
            // these files the last string ends the file.
            let r = std::panic::catch_unwind(|| p3m::decode(&bytes[..len]));
            let r =
                r.unwrap_or_else(|_| panic!("decoder panicked on a file truncated to {len} bytes"));
            assert!(
                r.is_err(),
                "truncated to {len} of {} bytes but decoded",
                bytes.len()
            );
        }
    }
}

#[test]
fn errors_name_field_and_offset() {
    let bytes = facet::generators::p3m::demo_bytes();
    let e = p3m::decode(&bytes[..40]).unwrap_err().to_string();
    assert!(e.contains("part 0") && e.contains("offset 0x"), "{e}");

    let mut bad = bytes.clone();
    bad[0] = b'X';
    let e = p3m::decode(&bad).unwrap_err().to_string();
    assert!(e.starts_with("magic at offset 0x0"), "{e}");

    let mut bad = bytes.clone();
    bad[3] = 7;
    assert!(
        p3m::decode(&bad)
            .unwrap_err()
            .to_string()
            .contains("version 7")
    );

    // Index out of range: the first index of part 0.
    let m = p3m::decode(&bytes).unwrap();
    let p = &m.parts[0];
    // header 5, part count, mask, flags, name, material, override count, vertex count
    let index_at = 5 + 1 + 1 + 1 + 2 + 1 + 1 + 2 + p.positions.len() * (12 + 8 + 12) + 2;
    let mut bad = bytes.clone();
    bad[index_at..index_at + 2].copy_from_slice(&9999u16.to_le_bytes());
    let e = p3m::decode(&bad).unwrap_err().to_string();
    // The 2024 layout stops at the part flags (0x03 has reserved bits
    // there); the current layout's error comes first, as it read further.
    let current = format!(
        "part 0: index 0 at offset {index_at:#X}: 9999 is out of range ({} vertices)",
        p.positions.len()
    );
    assert_eq!(
        e,
        format!(
            "layout at offset {index_at:#X}: the file fits neither P3M layout: \
             read as the current layout (specs/p3m.txt): {current}; \
             read as the 2024 layout (specs/p3m-2024.txt): part 0: flags at offset 0x7: \
             reserved bits set in 0x03"
        )
    );

    // A string offset past the table.
    let mut bad = bytes.clone();
    bad[8..10].copy_from_slice(&0xFFF0u16.to_le_bytes());
    let e = p3m::decode(&bad).unwrap_err().to_string();
    assert!(
        e.contains("part \"\": name at offset 0x8")
            || e.contains("name at offset 0x8") && e.contains("outside the string table"),
        "{e}"
    );
}

#[test]
fn bone_child_counts_must_fit() {
    let mut m = everything();
    m.bones[2].child_count = 3;
    let bytes = p3m_write::encode(&m).unwrap();
    let e = p3m::decode(&bytes).unwrap_err().to_string();
    assert!(e.contains("declares 3 more child bone(s)"), "{e}");
}

#[test]
fn broken_embedded_texture_still_opens_with_a_warning() {
    let mut bytes = facet::generators::p3m::demo_bytes();
    let m = p3m::decode(&bytes).unwrap();
    let Texture::Embedded { offset, .. } = m.textures[0] else {
        panic!()
    };
    bytes[offset + 10] ^= 0xFF; // inside the LZ4 frame
    let loaded = facet::load::load_bytes("demo.p3m", &bytes, None).unwrap();
    assert!(
        loaded
            .scene
            .warnings
            .iter()
            .any(|w| w.contains("texture 0")),
        "{:?}",
        loaded.scene.warnings
    );
    assert!(matches!(
        loaded.scene.textures[0].source,
        facet::scene::TextureSource::Missing(_)
    ));
}

#[test]
fn missing_external_texture_is_a_checkerboard_and_a_warning() {
    let bytes = p3m_write::encode(&everything()).unwrap();
    let dir = std::env::temp_dir();
    let loaded = facet::load::load_bytes("x.p3m", &bytes, Some(&dir)).unwrap();
    let t = &loaded.scene.textures[2];
    assert!(matches!(t.source, facet::scene::TextureSource::Missing(_)));
    assert_eq!((t.width, t.height), (64, 64));
    assert!(
        loaded
            .scene
            .warnings
            .iter()
            .any(|w| w.contains("textures/does_not_exist"))
    );
}

#[test]
fn external_texture_resolves_next_to_the_model() {
    let dir = std::env::temp_dir().join(format!("facet-ext-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("textures")).unwrap();
    let ptf = facet::formats::ptf_write::encode(
        PtfLayout::Current { version: 0 },
        PtfFormat::I,
        2,
        2,
        &[0, 85, 170, 255],
    )
    .unwrap();
    std::fs::write(dir.join("textures/does_not_exist.ptf"), ptf).unwrap();
    let bytes = p3m_write::encode(&everything()).unwrap();
    let loaded = facet::load::load_bytes("x.p3m", &bytes, Some(&dir)).unwrap();
    let t = &loaded.scene.textures[2];
    assert!(
        matches!(t.source, facet::scene::TextureSource::External(_)),
        "{:?}",
        t.source
    );
    assert_eq!(&t.rgba8[4..8], &[85, 85, 85, 255]);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn scene_conversion_mirrors_z_and_keeps_faces_front() {
    // Every demo triangle's geometric normal agrees with its stored normals
    // after conversion: the mirror is undone and CCW stays the front.
    let loaded =
        facet::load::load_bytes("demo.p3m", &facet::generators::p3m::demo_bytes(), None).unwrap();
    for m in &loaded.scene.meshes {
        for t in m.indices.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
            let g = (m.positions[b] - m.positions[a]).cross(m.positions[c] - m.positions[a]);
            if g.length() < 1e-6 {
                continue;
            }
            let n = m.normals[a] + m.normals[b] + m.normals[c];
            assert!(
                g.dot(n) > 0.0,
                "{}: triangle {t:?} faces away from its normals",
                m.name
            );
        }
    }
    // The eye sits on +Z (the model's front faces +Z in scene space).
    let eye = &loaded.scene.meshes[3];
    assert!(eye.bounds().center().z > 0.2);
}

#[test]
fn info_json_carries_animated_material_tracks() {
    let bytes = p3m_write::encode(&everything()).unwrap();
    let loaded = facet::load::load_bytes("x.p3m", &bytes, None).unwrap();
    let v = facet::cli::info::to_json(&loaded);
    let a = &v["p3m"]["materials"][4]["animation"];
    assert_eq!(a["loop"], "cont");
    assert_eq!(a["tracks"]["color"][3]["frame"], 30);
    assert_eq!(a["tracks"]["color"][3]["interp"], "LinearOklch");
    assert_eq!(a["tracks"]["shading"][1]["value"], 255);
    assert_eq!(a["tracks"]["texture"][1]["frame"], 21);
    assert_eq!(v["p3m"]["user_fields"].as_array().unwrap().len(), 5 + 23);
    assert_eq!(v["summary"]["clips"], 2);
}
