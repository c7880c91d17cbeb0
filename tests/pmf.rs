//! PMF: maps made by the generator survive the writer and the decoder
//! exactly (every structure); the bundled demo decodes to exactly what
//! generates it; truncated, corrupted and hostile files give errors naming
//! the field and offset, never panics or huge allocations.

use facet::formats::pmf::{self, CubeKind, Pmf, Value};
use facet::formats::pmf_write;
use facet::generators::pmf::{self as mapgen, Params};

fn small() -> Pmf {
    mapgen::generate(&Params::SMALL)
}

fn encode(m: &Pmf) -> Vec<u8> {
    pmf_write::encode(m).unwrap()
}

fn decode_err(bytes: &[u8]) -> String {
    match pmf::decode(bytes) {
        Ok(_) => panic!("decoded a broken map"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn generated_map_round_trips_exactly() {
    let map = small();
    let back = pmf::decode(&encode(&map)).unwrap();
    assert_eq!(back, map);
    // Every structure the format has is present, so the round trip covers it.
    let cubes: Vec<&pmf::Cube> = map.sectors.iter().flat_map(|s| &s.cubes).collect();
    for t in 0..=3u8 {
        assert!(
            cubes.iter().any(|c| c.kind.type_id() == t),
            "no cube of type {t}"
        );
    }
    assert!(cubes.iter().any(|c| c.chunk.is_some()));
    assert!(cubes.iter().any(|c| c.lighting.is_some()));
    assert!(map.sectors.iter().any(|s| !s.dynamic_lights.is_empty()));
    assert!(map.sectors.iter().any(|s| !s.fast_lights.is_empty()));
    assert!(map.sectors.iter().all(|s| !s.props.is_empty()));
    let e = &map.entities;
    assert!(!e.entities.is_empty() && !e.actions.is_empty());
    assert!(!e.filters.is_empty() && !e.selectors.is_empty());
}

#[test]
fn every_cube_and_entity_kind_round_trips() {
    // Writer and reader agree. The generator makes solid, angled, parent
    // and empty cubes; the extended kinds, extra lightmaps and every entity
    // kind are added here with values of every field type, walking the
    // decoder's own kind table (so this proves agreement only: the layouts
    // are checked against the spec in
    // `entities_assembled_from_the_spec_decode_field_by_field`).
    let mut map = small();
    let s = &mut map.sectors[0];
    let tri = s.triangles.len() as u32 - 6;
    let leaf = s
        .cubes
        .iter()
        .position(|c| matches!(c.kind, CubeKind::Empty))
        .unwrap();
    s.cubes[leaf].kind = CubeKind::ExtSolid {
        materials: [0, 1, 2, 3, 0, 1],
        lightmap: 0,
        triangle: tri,
        counts: [2, 0, 2, 0, 2, 0],
    };
    let leaf2 = s
        .cubes
        .iter()
        .position(|c| matches!(c.kind, CubeKind::Empty))
        .unwrap();
    s.cubes[leaf2].kind = CubeKind::ExtAngled {
        materials: [3, 2, 1, 0, 3, 2],
        lightmap: 0,
        triangle: tri,
        counts: [2, 1, 0, 1, 0, 1, 1],
        fill: 0.25,
        pitch: -0.5,
        yaw: 0.75,
    };
    let luxels = s.lightmaps[0].luxels.iter().map(|l| l ^ 0x0F0F).collect();
    s.extra_lightmaps
        .push(pmf::ExtraLightmap { base: 0, luxels });
    let text = |t: &str| pmf::Text {
        offset: 0,
        text: t.into(),
    };
    for (kind, (_, fields)) in pmf::ENTITY_KINDS.iter().enumerate() {
        let values = fields
            .iter()
            .enumerate()
            .map(|(i, (name, f))| {
                let x = i as f32 + 0.5;
                match f {
                    pmf::Field::Flags(n) => Value::Flags((1u8 << n.len()) - 1),
                    pmf::Field::Enum(n) => Value::Enum(n.len() as u8 - 1),
                    pmf::Field::U16 => Value::U16(600 + i as u16),
                    pmf::Field::U32 => Value::U32(70_000 + i as u32),
                    pmf::Field::I16 => Value::I16(-(i as i16)),
                    pmf::Field::F32 => Value::F32(x),
                    pmf::Field::Vec2 => Value::Vec2([x, -x]),
                    pmf::Field::Vec3 => Value::Vec3([x, 2.0 * x, -x]),
                    pmf::Field::Vec4 => Value::Vec4([x, 0.5, 0.25, 1.0]),
                    pmf::Field::I8x2 => Value::I8x2([-1, 3]),
                    pmf::Field::Str => Value::Str(text(&format!("{name} of {kind}"))),
                    pmf::Field::Signals => Value::Signals(vec![text("a"), text("b")]),
                    pmf::Field::Filter => Value::Filter(0),
                    pmf::Field::Selector => Value::Selector(1),
                    pmf::Field::Actions => Value::Actions(vec![0, 5]),
                    pmf::Field::Team => Value::Team(16),
                    pmf::Field::Material => Value::Material(3),
                    pmf::Field::Light => Value::Light(1),
                }
            })
            .collect();
        map.entities.entities.push(pmf::Entity {
            name: text(&format!("entity of kind {kind}")),
            kind: kind as u8,
            difficulties: 5,
            gamemodes: 0x8001,
            fields: values,
        });
    }
    pmf_write::intern_strings(&mut map);
    let back = pmf::decode(&encode(&map)).unwrap();
    assert_eq!(back, map);
    let names: Vec<&str> = back
        .entities
        .entities
        .iter()
        .map(|e| e.kind_name())
        .collect();
    assert!(names.contains(&"particles") && names.contains(&"shield station"));
}

/// The fuzzer's and the sweeps' seed map (`tests/corpus/*/seed_*`): the
/// bundled demo is 3.7 MB, so the mutation sweep changes it 550 ways a run
/// where a small file gets 10,000. `FACET_WRITE_SEEDS=1` writes it again
/// after a change to the generator or the writer.
#[test]
fn the_corpus_seed_map_is_what_the_generator_makes() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/pmf/seed_small_map.pmf"
    );
    let made = pmf_write::encode(&mapgen::generate(&Params::SEED)).unwrap();
    if std::env::var_os("FACET_WRITE_SEEDS").is_some() {
        std::fs::write(path, &made).unwrap();
    }
    let kept = std::fs::read(path).unwrap_or_default();
    assert!(
        kept == made,
        "{path} is not the generator's: FACET_WRITE_SEEDS=1 cargo test --test pmf writes it"
    );
    let map = pmf::decode(&kept).unwrap();
    assert_eq!(map.sectors.len(), 2);
    assert!(
        map.sectors
            .iter()
            .all(|s| !s.triangles.is_empty() && !s.cubes.is_empty())
    );
    assert!(map.sectors.iter().all(|s| !s.lightmaps.is_empty()));
}

#[test]
fn the_bundled_demo_is_what_the_generator_makes() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pmf")).unwrap();
    let map = pmf::decode(&bytes).unwrap();
    assert_eq!(
        map,
        mapgen::generate(&Params::DEMO),
        "facet gen-assets remakes it"
    );
    let tris: usize = map.sectors.iter().map(|s| s.triangles.len()).sum();
    assert!(tris >= 100_000, "{tris} triangles");
    assert!(map.sectors.len() >= 4);
    assert!(map.dynamic_light_count > 0 && !map.fast_lights.is_empty());
    let angled = map
        .sectors
        .iter()
        .flat_map(|s| &s.cubes)
        .filter(|c| matches!(c.kind, CubeKind::Angled { .. }))
        .count();
    assert!(angled > 50, "{angled} angled cubes");
}

#[test]
fn sectors_decode_the_same_on_any_number_of_threads() {
    // Sectors decode in parallel; the map, and the first error in file
    // order, must not depend on how many threads there are.
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pmf")).unwrap();
    let one = pmf::decode_on(&bytes, 1, &|_| {}).unwrap();
    for threads in [2, 3, 16] {
        assert!(pmf::decode_on(&bytes, threads, &|_| {}).unwrap() == one);
    }

    // Break sectors 1 and 3: sector 1's error wins every time.
    let mut map = small();
    for s in [1, 3] {
        if let CubeKind::Parent(c) = &mut map.sectors[s].cubes[0].kind {
            c[0] = 0;
        }
    }
    let bytes = encode(&map);
    for threads in [1, 2, 4] {
        let e = pmf::decode_on(&bytes, threads, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("sector 1: "), "{threads} threads: {e}");
    }

    // Progress reaches 1 and never goes back.
    let seen = std::sync::Mutex::new(Vec::new());
    pmf::decode_on(&encode(&small()), 2, &|f| seen.lock().unwrap().push(f)).unwrap();
    let seen = seen.into_inner().unwrap();
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert_eq!(seen.last(), Some(&1.0));
}

#[test]
fn truncation_is_an_error_with_an_offset() {
    let bytes = encode(&small());
    // Every byte of the header and the first blocks, then 1,500 cuts spread
    // over the rest.
    let step = (bytes.len() / 1500).max(1);
    let cuts = (0..600.min(bytes.len())).chain((600..bytes.len()).step_by(step));
    for n in cuts {
        let e = decode_err(&bytes[..n]);
        assert!(e.contains("offset 0x"), "cut at {n}: {e}");
    }
}

/// Offset of the first sector's shared block (its compressed bytes) and
/// the sizes before it, found by walking the container like the decoder.
fn header_end(bytes: &[u8]) -> usize {
    let mut at = 6;
    for _ in 0..3 {
        at += bytes[at..].iter().position(|&b| b == 0).unwrap() + 1;
    }
    at += 4;
    for _ in 0..2 {
        let n = bytes[at] as usize;
        at += 1;
        for _ in 0..n {
            at += bytes[at..].iter().position(|&b| b == 0).unwrap() + 1;
        }
    }
    at // material count
}

#[test]
fn a_4_gib_block_is_refused_before_allocating() {
    let mut bytes = encode(&small());
    let at = header_end(&bytes) + 6; // shared data: decompressed size
    bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = decode_err(&bytes);
    assert!(e.contains("shared data"), "{e}");
    assert!(
        e.contains("declares 4294967295 bytes, more than its"),
        "{e}"
    );
}

#[test]
fn a_wrong_declared_size_and_corrupted_lz4_are_errors() {
    let good = encode(&small());
    let at = header_end(&good) + 6;
    let declared = u32::from_le_bytes(good[at..at + 4].try_into().unwrap());
    let mut bytes = good.clone();
    bytes[at..at + 4].copy_from_slice(&(declared + 1).to_le_bytes());
    let e = decode_err(&bytes);
    assert!(e.contains("shared data at offset 0x"), "{e}");
    assert!(e.contains("decompression failed"), "{e}");
    // Garbage in the compressed bytes of the server block.
    let server = at + 8 + u32::from_le_bytes(good[at + 4..at + 8].try_into().unwrap()) as usize;
    let mut bytes = good.clone();
    let csize = u32::from_le_bytes(bytes[server + 4..server + 8].try_into().unwrap()) as usize;
    for b in &mut bytes[server + 8..server + 8 + csize] {
        *b = 0xFF;
    }
    let e = decode_err(&bytes);
    assert!(e.contains("server data"), "{e}");
}

#[test]
fn octree_cycles_and_bad_children_are_errors() {
    let mut map = small();
    let root_children = match &map.sectors[1].cubes[0].kind {
        CubeKind::Parent(c) => *c,
        _ => panic!("root is a parent"),
    };
    // A grandchild pointing back at the root.
    let child = root_children
        .iter()
        .map(|&c| c as usize)
        .find(|&c| matches!(map.sectors[1].cubes[c].kind, CubeKind::Parent(_)))
        .unwrap();
    if let CubeKind::Parent(c) = &mut map.sectors[1].cubes[child].kind {
        c[3] = 0;
    }
    let e = decode_err(&encode(&map));
    assert!(
        e.contains(&format!(
            "sector 1: shared sector data (LZ4 block): cube {child}: children"
        )),
        "{e}"
    );
    assert!(
        e.contains("child 3 is cube 0, already in the octree"),
        "{e}"
    );

    // Two parents sharing a child: the second claim is refused.
    let mut map = small();
    let [a, b] = {
        let parents: Vec<usize> = map.sectors[0]
            .cubes
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c.kind, CubeKind::Parent(_)))
            .map(|(i, _)| i)
            .take(2)
            .collect();
        [parents[0], parents[1]]
    };
    let CubeKind::Parent(first) = map.sectors[0].cubes[a].kind else {
        unreachable!()
    };
    if let CubeKind::Parent(c) = &mut map.sectors[0].cubes[b].kind {
        c[5] = first[2];
    }
    let e = decode_err(&encode(&map));
    assert!(
        e.contains(&format!(
            "child 5 is cube {}, already in the octree",
            first[2]
        )),
        "{e}"
    );

    let mut map = small();
    if let CubeKind::Parent(c) = &mut map.sectors[0].cubes[0].kind {
        c[0] = 0; // itself
    }
    assert!(decode_err(&encode(&map)).contains("child 0 is cube 0, already in the octree"));

    let mut map = small();
    let n = map.sectors[0].cubes.len() as u16;
    if let CubeKind::Parent(c) = &mut map.sectors[0].cubes[0].kind {
        c[7] = n;
    }
    assert!(decode_err(&encode(&map)).contains(&format!("child 7 is cube {n}, past the sector's")));
}

#[test]
fn out_of_range_indices_are_errors() {
    let first_solid = |m: &mut Pmf| -> usize {
        m.sectors[0]
            .cubes
            .iter()
            .position(|c| matches!(c.kind, CubeKind::Solid { faces, .. } if faces != 0))
            .unwrap()
    };
    type Tamper = Box<dyn Fn(&mut Pmf)>;
    let cases: Vec<(&str, Tamper)> = vec![
        (
            "uses triangles",
            Box::new(move |m| {
                let i = first_solid(m);
                let n = m.sectors[0].triangles.len() as u32;
                if let CubeKind::Solid { triangle, .. } = &mut m.sectors[0].cubes[i].kind {
                    *triangle = n - 1;
                }
            }),
        ),
        (
            "uses lightmap 3",
            Box::new(move |m| {
                let i = first_solid(m);
                if let CubeKind::Solid { lightmap, .. } = &mut m.sectors[0].cubes[i].kind {
                    *lightmap = 3;
                }
            }),
        ),
        (
            "uses material 9",
            Box::new(move |m| {
                let i = first_solid(m);
                if let CubeKind::Solid { material, .. } = &mut m.sectors[0].cubes[i].kind {
                    *material = 9;
                }
            }),
        ),
        (
            "visible sector [9, 0, 0]",
            Box::new(|m| {
                let c = m.sectors[0]
                    .cubes
                    .iter_mut()
                    .find_map(|c| c.chunk.as_mut())
                    .unwrap();
                c.visible[0].sector = [9, 0, 0];
            }),
        ),
        (
            "but that sector has",
            Box::new(|m| {
                let c = m.sectors[0]
                    .cubes
                    .iter_mut()
                    .find_map(|c| c.chunk.as_mut())
                    .unwrap();
                c.visible[0].cubes[0] = 60_000;
            }),
        ),
        (
            "chunk prop 0",
            Box::new(|m| {
                let c = m.sectors[0]
                    .cubes
                    .iter_mut()
                    .find_map(|c| c.chunk.as_mut())
                    .unwrap();
                c.props = vec![40];
            }),
        ),
        (
            "affecting dynamic light 0",
            Box::new(|m| {
                let s = m
                    .sectors
                    .iter_mut()
                    .find(|s| !s.dynamic_lights.is_empty())
                    .unwrap();
                s.dynamic_lights[0].light = 7;
            }),
        ),
        (
            "triangle points",
            Box::new(|m| {
                let s = m
                    .sectors
                    .iter_mut()
                    .find(|s| !s.fast_lights.is_empty())
                    .unwrap();
                s.fast_lights[0].points[0].point = s.triangles.len() as u32 * 3;
            }),
        ),
        (
            "base lightmap",
            Box::new(|m| {
                let l = m.sectors[0].lightmaps[0].luxels.clone();
                m.sectors[0]
                    .extra_lightmaps
                    .push(pmf::ExtraLightmap { base: 1, luxels: l });
            }),
        ),
        (
            "dynamic light references",
            Box::new(move |m| {
                let i = first_solid(m);
                if let Some(l) = &mut m.sectors[0].cubes[i].lighting {
                    l.dynamic_index = 5;
                }
            }),
        ),
        (
            "is not the start of a action record",
            Box::new(|m| {
                let e = m
                    .entities
                    .entities
                    .iter_mut()
                    .find(|e| e.kind == 3)
                    .unwrap();
                e.fields[6] = Value::Actions(vec![3]);
            }),
        ),
        (
            "team records",
            Box::new(|m| {
                m.entities.actions.push(pmf::Record {
                    at: 18,
                    kind: 12,
                    fields: vec![Value::Selector(0), Value::Team(8)],
                });
            }),
        ),
        (
            "server string at byte",
            Box::new(|m| {
                m.teams[0].name.offset = 1 << 20;
            }),
        ),
    ];
    for (expect, tamper) in cases {
        let mut map = small();
        tamper(&mut map);
        let e = decode_err(&encode(&map));
        assert!(e.contains(expect), "expected {expect:?} in: {e}");
        assert!(e.contains("offset 0x"), "{e}");
    }
}

#[test]
fn header_limits_are_checked() {
    let good = encode(&small());
    let mut b = good.clone();
    b[3] = b'X';
    assert!(decode_err(&b).contains("magic"));
    let mut b = good.clone();
    b[4] = 1;
    assert!(decode_err(&b).contains("major version"));
    // The sector grid: a zero count.
    let mut map = small();
    map.sector_counts = [0, 1, 1];
    map.sectors.clear();
    let b = pmf_write::encode(&map).unwrap();
    assert!(decode_err(&b).contains("must be at least 1 along each axis"));
}

#[test]
fn info_json_reports_the_map() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_facet"))
        .args(["info", "--json", "assets/demo.pmf"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["format"], "PMF");
    assert_eq!(v["summary"]["sectors"], 16);
    assert_eq!(v["pmf"]["name"], "Facet demo town");
    assert_eq!(v["pmf"]["gamemodes"][1], "team deathmatch");
    assert_eq!(v["pmf"]["entities"][0]["type"], "spawn");
    assert_eq!(
        v["pmf"]["entities"][0]["fields"]["grid size"],
        serde_json::json!([-1, -1])
    );
    assert!(v["summary"]["triangles"].as_u64().unwrap() >= 100_000);

    let text = std::process::Command::new(env!("CARGO_BIN_EXE_facet"))
        .args(["info", "assets/demo.pmf"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("PMF file"), "{text}");
    assert!(text.contains("  5 [1, 0, 1]: "), "{text}");
    assert!(
        text.contains("\"spawn_red\" (spawn) at [2.00, 8.00, 8.00]"),
        "{text}"
    );
}

#[test]
fn picking_finds_the_ground_under_a_ray_and_its_cube() {
    use facet::scene::map_query;
    let map = facet::scene::from_pmf::map_model(&small());
    // Straight down onto sector (1, 0, 1) of the 2 x 1 x 2 map (16-unit sectors).
    let (s, t, dist) = map_query::pick(
        &map,
        glam::Vec3::new(21.3, 40.0, 26.7),
        glam::Vec3::new(0.0, -1.0, 0.0),
    )
    .expect("the ray hits the ground");
    assert_eq!(map.sector_coords(s), [1, 0, 1]);
    let tri = &map.sectors[s].triangles[t];
    let y = tri[0].y;
    assert!(
        (40.0 - dist - y).abs() < 1e-3,
        "hit at {} vs triangle at {y}",
        40.0 - dist
    );
    // The top face under a vertical ray is horizontal.
    assert!(tri.iter().all(|p| (p.y - y).abs() < 1e-4));
    let cube = map_query::cube_of_triangle(&map, s, t).expect("a cube owns it");
    let place = map_query::cube_places(&map, s)[cube].unwrap();
    assert!(place.bounds.min.x <= 21.3 && place.bounds.max.x >= 21.3);
    assert!(place.bounds.min.z <= 26.7 && place.bounds.max.z >= 26.7);
    // A ray that leaves the map hits nothing.
    assert!(map_query::pick(&map, glam::Vec3::new(0.0, 40.0, 0.0), glam::Vec3::Y).is_none());
}

#[test]
fn a_selected_cube_is_outlined_with_its_triangles() {
    use facet::scene::map_overlay::{self, MapOverlay, SELECTED_CUBE};
    let map = small();
    let (s, c, n) = map
        .sectors
        .iter()
        .enumerate()
        .find_map(|(s, sec)| {
            sec.cubes
                .iter()
                .enumerate()
                .find_map(|(c, cube)| match cube.kind.triangles() {
                    Some((_, n)) if n >= 4 => Some((s, c, n as usize)),
                    _ => None,
                })
        })
        .unwrap();
    let scene = facet::scene::from_pmf::convert(&map, Default::default(), Default::default());
    let info = scene.map.as_ref().unwrap();
    let lines = map_overlay::lines(
        info,
        &MapOverlay {
            selected_cube: Some((s, c)),
            ..Default::default()
        },
    );
    // 12 box edges and 3 edges a triangle, in the selection colour.
    assert_eq!(lines.len(), 24 + 6 * n);
    assert!(lines.iter().all(|v| v.color == SELECTED_CUBE));
    let tri = &info.map.sectors[s].triangles
        [info.map.sectors[s].cubes[c].kind.triangles().unwrap().0 as usize];
    assert_eq!(lines[24].position, tri[0].to_array());
}

#[test]
fn overlay_cubes_the_map_does_not_have_draw_nothing() {
    // The overlay takes plain (sector, cube) pairs from its caller; one
    // past the map draws nothing (where a visible sector past it panicked
    // in the cube lookup), the valid ones as before: sector 0's outline,
    // 12 edges, 24 vertices.
    use facet::scene::map_overlay::{self, MapOverlay, VISIBLE_SECTOR};
    let map = small();
    let scene = facet::scene::from_pmf::convert(&map, Default::default(), Default::default());
    let info = scene.map.as_ref().unwrap();
    let sectors = info.map.sectors.len();
    let cubes = info.map.sectors[0].cubes.len();
    let lines = |o: MapOverlay| map_overlay::lines(info, &o);
    let past = lines(MapOverlay {
        visible: Some(vec![(sectors, 0), (sectors + 7, 3), (0, cubes + 5)]),
        outline_visible_cubes: true,
        selected_sector: Some(sectors),
        depth: Some(3),
        selected_cube: Some((sectors, 0)),
        hovered_cube: Some((0, cubes)),
        ..Default::default()
    });
    assert_eq!(past.len(), 24, "only sector 0's outline");
    assert!(past.iter().all(|v| v.color == VISIBLE_SECTOR));
    // The queries under it answer "nothing" for a sector past the map.
    use facet::scene::map_query;
    assert!(map_query::cube_places(&info.map, sectors).is_empty());
    assert!(map_query::subtree_triangles(&info.map, sectors, 0).is_empty());
    assert!(map_query::visible_cubes(&info.map, sectors, 0).is_empty());
    assert_eq!(map_query::chunk_of(&info.map, sectors, 0), None);
    assert!(map_query::visible_cubes(&info.map, 0, cubes).is_empty());
}

#[test]
fn changing_the_shading_in_place_matches_a_fresh_conversion() {
    // The inspector's shading switch recolours the map's meshes in place
    // (the window no longer keeps the decoded file): from every shading to
    // every other, the result is what converting afresh gives.
    use facet::scene::from_pmf::{MapShading, convert, set_shading};
    let map = small();
    let look = |s: &facet::scene::Scene| {
        (
            s.meshes
                .iter()
                .map(|m| m.colors.clone())
                .collect::<Vec<_>>(),
            s.materials.iter().map(|m| m.texture).collect::<Vec<_>>(),
        )
    };
    for from in MapShading::ALL {
        for to in MapShading::ALL {
            let mut s = convert(&map, Default::default(), from);
            set_shading(&mut s, to);
            let fresh = convert(&map, Default::default(), to);
            assert!(look(&s) == look(&fresh), "{from:?} -> {to:?}");
            assert_eq!(s.map.as_ref().unwrap().shading, to);
        }
    }
    // Unlit binds no lightmap; lightmaps alone carry no tints.
    let s = convert(&map, Default::default(), MapShading::Unlit);
    assert!(s.materials.iter().all(|m| m.texture.is_none()));
    let s = convert(&map, Default::default(), MapShading::Lightmaps);
    assert!(s.meshes.iter().all(|m| m.colors.is_none()));
}

/// A map assembled here field by field from `specs/pmf.txt`,
/// `specs/pmf-entities.txt` and `notes/pmf-decisions.md` (raw LZ4 blocks,
/// strings as u32 offsets into tables at the end), with three entities of
/// kinds whose layouts are typed below from the spec, not taken from the
/// decoder's table: headless (a script path), generic (flags, script,
/// model, position, rotation, scale) and multiplexer (AND and OR signals,
/// then actions).
#[test]
fn entities_assembled_from_the_spec_decode_field_by_field() {
    fn lz4_block(raw: &[u8], out: &mut Vec<u8>) {
        // <u32: decompressed size> <u32: compressed size> <compressed>
        let packed = lz4_flex::block::compress(raw);
        out.extend((raw.len() as u32).to_le_bytes());
        out.extend((packed.len() as u32).to_le_bytes());
        out.extend(packed);
    }
    // The server string table: {0, ..., 0}, strings at byte offsets.
    let mut strings = vec![0u8];
    let mut string = |s: &str| {
        let at = strings.len() as u32;
        strings.extend(s.as_bytes());
        strings.push(0);
        at
    };
    let names = [string("ghost"), string("crate"), string("mux")];
    let script = string("/scripts/ghost.lua");
    let crate_script = string("/scripts/crate.lua");
    let model = string("/models/crate.p3m");
    let signals = [string("and-1"), string("or-1"), string("or-2")];

    let f32s = |out: &mut Vec<u8>, v: &[f32]| v.iter().for_each(|x| out.extend(x.to_le_bytes()));
    let mut server = vec![0u8]; // team count
    server.extend(3u32.to_le_bytes()); // entity count
    // Entity: <name> <u8 type> <u8 difficulties> <u16 gamemodes> <data>
    server.extend(names[0].to_le_bytes());
    server.push(0); // ENT_HEADLESS
    server.push(0b01);
    server.extend(1u16.to_le_bytes());
    server.extend(script.to_le_bytes());
    server.extend(names[1].to_le_bytes());
    server.push(1); // ENT_GENERIC
    server.push(0b01);
    server.extend(1u16.to_le_bytes());
    server.push(0b1010); // physics, interactable
    server.extend(crate_script.to_le_bytes());
    server.extend(model.to_le_bytes());
    f32s(&mut server, &[1.0, 2.0, 3.0, 0.0, 0.5, 0.0, 1.0, 1.0, 2.0]);
    server.extend(names[2].to_le_bytes());
    server.push(8); // ENT_MULTIPLEXER
    server.push(0b01);
    server.extend(1u16.to_le_bytes());
    server.extend(1u16.to_le_bytes()); // AND signals
    server.extend(signals[0].to_le_bytes());
    server.extend(2u16.to_le_bytes()); // OR signals
    server.extend(signals[1].to_le_bytes());
    server.extend(signals[2].to_le_bytes());
    server.push(0); // no actions
    for _ in 0..3 {
        server.extend(0u32.to_le_bytes()); // action, filter, selector counts
    }

    let mut file = b"PMF\0".to_vec();
    file.extend([0, 0]); // version 0.0
    file.extend(b"Spec map\0Facet tests\0Assembled by hand\0");
    file.extend(1_700_000_000u32.to_le_bytes());
    file.extend(b"\x01deathmatch\0\x01normal\0");
    file.extend([0, 0, 0, 0, 0, 0]); // materials, dynamic lights, fast lights
    lz4_block(&[], &mut file); // shared data
    lz4_block(&server, &mut file);
    lz4_block(&[], &mut file); // client data
    file.extend([1, 1, 1, 4]); // one sector, 16 units a side
    // Sector: load radius, one 1x1 lightmap, no extra lightmaps, an octree
    // of one empty cube, no triangles or lights.
    file.extend([1, 1, 1, 0, 0]);
    let luxel = lz4_flex::block::compress(&0xFFFFu16.to_le_bytes());
    file.extend((luxel.len() as u32).to_le_bytes());
    file.extend(luxel);
    file.extend(0u16.to_le_bytes());
    lz4_block(&[0, 0, 0, 0, 0], &mut file); // props 0, cubes-1 0, EMPTY
    lz4_block(&[0; 3 + 2 + 2 + 4 + 4], &mut file);
    lz4_block(&strings, &mut file); // server string table
    lz4_block(&[0, 0], &mut file); // client string table

    let map = pmf::decode(&file).unwrap_or_else(|e| panic!("{e}"));
    let e = &map.entities.entities;
    assert_eq!(e.len(), 3);
    let text = |v: Option<&Value>| match v {
        Some(Value::Str(t)) => t.text.clone(),
        other => panic!("not a string: {other:?}"),
    };
    assert_eq!(e[0].name.text, "ghost");
    assert_eq!(e[0].kind_name(), "headless");
    assert_eq!((e[0].difficulties, e[0].gamemodes), (1, 1));
    assert_eq!(text(e[0].get("script")), "/scripts/ghost.lua");
    assert_eq!(e[1].kind_name(), "generic");
    assert_eq!(e[1].get("flags"), Some(&Value::Flags(0b1010)));
    assert_eq!(text(e[1].get("script")), "/scripts/crate.lua");
    assert_eq!(text(e[1].get("model")), "/models/crate.p3m");
    assert_eq!(e[1].get("position"), Some(&Value::Vec3([1.0, 2.0, 3.0])));
    assert_eq!(e[1].get("rotation"), Some(&Value::Vec3([0.0, 0.5, 0.0])));
    assert_eq!(e[1].get("scale"), Some(&Value::Vec3([1.0, 1.0, 2.0])));
    assert_eq!(e[2].kind_name(), "multiplexer");
    let signal_names: Vec<Vec<String>> = e[2]
        .fields
        .iter()
        .filter_map(|v| match v {
            Value::Signals(s) => Some(s.iter().map(|t| t.text.clone()).collect()),
            _ => None,
        })
        .collect();
    assert_eq!(signal_names, [vec!["and-1"], vec!["or-1", "or-2"]]);
    assert!(e[2].fields.contains(&Value::Actions(vec![])));
}

#[test]
fn map_meshes_draw_the_files_triangles_with_shared_corners_once() {
    // Every triangle drawn is the file's, corner for corner; a corner that
    // two triangles of a mesh share (same position and lightmap UV: the
    // halves of a quad, which share a tile) is one vertex. The expected
    // vertex count is each mesh's distinct (position, lightmap UV) pairs,
    // counted here from the file's triangles.
    use facet::scene::from_pmf::{MapShading, convert};
    use std::collections::HashSet;
    let map = small();
    let scene = convert(&map, Default::default(), MapShading::Both);
    let info = scene.map.as_ref().unwrap();
    let (mut vertices, mut triangles) = (0, 0);
    for (mi, tris) in info.mesh_triangles.iter().enumerate() {
        let mesh = &scene.meshes[mi];
        let (si, _) = info.mesh_source[mi];
        assert_eq!(mesh.indices.len(), 3 * tris.len());
        let mut distinct = HashSet::new();
        for (k, &t) in tris.iter().enumerate() {
            let file = &map.sectors[si].triangles[t as usize];
            for (c, point) in file.points.iter().enumerate() {
                let v = mesh.indices[3 * k + c] as usize;
                assert_eq!(mesh.positions[v].to_array(), point.position);
                assert_eq!(mesh.uvs[v].to_array(), point.lightmap_uv);
                distinct.insert((
                    point.position.map(f32::to_bits),
                    point.lightmap_uv.map(f32::to_bits),
                ));
            }
        }
        assert_eq!(mesh.positions.len(), distinct.len(), "mesh {mi}");
        vertices += mesh.positions.len();
        triangles += tris.len();
    }
    // The generator's surfaces are mostly quads: near 4 vertices for 2
    // triangles, against 3 a triangle unshared.
    assert!(
        vertices * 10 < triangles * 3 * 8,
        "{vertices} for {triangles}"
    );
}
