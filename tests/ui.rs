//! The inspector driven headless with egui_kittest: its content, its part
//! checkboxes, and a snapshot (tests/snapshots/inspector.png; regenerate with
//! `UPDATE_SNAPSHOTS=1 cargo test --test ui`).

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use facet::ui::{UiAction, UiState, inspector::inspector};

fn demo() -> facet::scene::Scene {
    facet::load::load_bytes("demo.p3m", &facet::generators::p3m::demo_bytes(), None)
        .unwrap()
        .scene
}

/// A kittest snapshot (tests/snapshots/NAME.png) under the project's
/// blessing rule: `UPDATE_SNAPSHOTS=1` rewrites it (never in CI), and the
/// run says whether it did.
fn snapshot<S>(harness: &mut Harness<'_, S>, name: &str) {
    let blessing = common::blessing("UPDATE_SNAPSHOTS");
    let path = common::repo().join(format!("tests/snapshots/{name}.png"));
    let before = std::fs::read(&path).ok();
    harness.snapshot(name);
    if blessing {
        let changed = before != std::fs::read(&path).ok();
        eprintln!(
            "UPDATE_SNAPSHOTS=1: {} {}",
            if changed {
                "rewrote"
            } else {
                "kept (still matches)"
            },
            path.display()
        );
    }
}

#[test]
fn blessing_is_explicit_and_never_in_ci() {
    use common::bless_decision as d;
    for var in ["FACET_BLESS", "UPDATE_SNAPSHOTS"] {
        assert_eq!(d(var, None, false), Ok(false));
        assert_eq!(d(var, None, true), Ok(false));
        assert_eq!(d(var, Some("0"), true), Ok(false));
        assert_eq!(d(var, Some("1"), false), Ok(true));
        // In CI, or with any value but 0 and 1, the run fails instead.
        assert!(d(var, Some("1"), true).unwrap_err().contains("CI"));
        for v in ["", "yes", "true", "force", "2"] {
            assert!(d(var, Some(v), false).is_err(), "{var}={v:?}");
        }
    }
}

#[test]
fn inspector_lists_the_model_and_toggles_parts() {
    let scene = demo();
    let pose = facet::anim::Pose::new(&scene.skeleton);
    let state = UiState::for_scene(&scene);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(360.0, 1400.0))
        .build_ui_state(
            |ui, state: &mut UiState| {
                inspector(ui, &scene, state, Some(&pose));
            },
            state,
        );
    harness.run();
    for part in ["base", "eye glow", "armor (hidden)"] {
        harness.get_by_label(part);
        harness.get_by_label(&format!("show {part}"));
    }
    for text in [
        "demo.p3m",
        "P3M",
        "root",
        "neck",
        "health",
        "\"facet demo generator\"",
        "nod: 24 frames, 1.00 s",
    ] {
        harness.get_by_label_contains(text);
    }
    // Checkboxes start from the visibility mask.
    assert_eq!(
        harness.state().view.visible,
        vec![true, true, true, true, false]
    );
    harness.get_by_label("show head").click();
    harness.run();
    assert_eq!(
        harness.state().view.visible,
        vec![true, true, false, true, false]
    );
    // The part's name selects it (and no bone); a second click clears it.
    harness.state_mut().selected_bone = Some(1);
    harness.get_by_label("eye glow").click();
    harness.run();
    assert_eq!(harness.state().selected_part, Some(3));
    assert_eq!(harness.state().selected_bone, None);
    harness.get_by_label("fit").click();
    harness.run();
    assert!(harness.state().actions.contains(&UiAction::FitSelection));
    harness.get_by_label("eye glow").click();
    harness.run();
    assert_eq!(harness.state().selected_part, None);
    harness.get_by_label("all").click();
    harness.run();
    assert_eq!(harness.state().view.visible, vec![true; 5]);
    harness.get_by_label("defaults").click();
    harness.run();
    assert_eq!(
        harness.state().view.visible,
        vec![true, true, true, true, false]
    );
    snapshot(&mut harness, "inspector");
}

#[test]
fn the_file_and_the_selected_part_show_their_dimensions() {
    // The boxes as the app sets them from the upload; sizes by hand:
    // the scene 3 x 2 x 0.5, part 2 (head) 0.75 x 0.75 x 0.75.
    let scene = demo();
    let mut harness = scrolled_inspector(&scene, 1400.0);
    let b = |min: [f32; 3], max: [f32; 3]| facet::scene::Aabb {
        min: glam::Vec3::from(min),
        max: glam::Vec3::from(max),
    };
    let state = harness.state_mut();
    state.scene_bounds = Some(b([-1.5, 0.0, -0.25], [1.5, 2.0, 0.25]));
    state.part_bounds = vec![b([0.0; 3], [1.0; 3]); 5];
    state.part_bounds[2] = b([-0.375, 1.0, -0.375], [0.375, 1.75, 0.375]);
    harness.run();
    harness.get_by_label("dimensions");
    harness.get_by_label("3 × 2 × 0.5");
    assert!(harness.query_by_label("0.75 × 0.75 × 0.75").is_none());
    harness.get_by_label("head").click();
    harness.run();
    harness.get_by_label("0.75 × 0.75 × 0.75");
    assert!(
        harness.query_by_label("in metres").is_none(),
        "P3M gives no unit"
    );
}

#[test]
fn a_model_whose_format_gives_its_unit_shows_its_size_in_metres() {
    // A model in centimetres (M3D's scale 0.01): 300 x 200 x 50 units are
    // 3 x 2 x 0.5 metres.
    let mut scene = demo();
    scene.metres_per_unit = Some(0.01);
    let mut harness = scrolled_inspector(&scene, 1400.0);
    harness.state_mut().scene_bounds = Some(facet::scene::Aabb {
        min: glam::Vec3::new(-150.0, 0.0, -25.0),
        max: glam::Vec3::new(150.0, 200.0, 25.0),
    });
    harness.run();
    harness.get_by_label("300 × 200 × 50");
    harness.get_by_label("in metres");
    harness.get_by_label("3 × 2 × 0.5");
}

#[test]
fn a_selected_part_can_be_hidden_shown_alone_and_all_shown_again() {
    // The demo's parts: base, body, head, eye glow, armor (hidden).
    let scene = demo();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(360.0, 1400.0))
        .build_ui_state(
            |ui, state: &mut UiState| {
                inspector(ui, &scene, state, None);
            },
            UiState::for_scene(&scene),
        );
    harness.run();
    assert!(harness.query_by_label("only").is_none(), "nothing selected");
    harness.get_by_label("head").click();
    harness.run();
    harness.get_by_label("only").click();
    harness.run();
    assert_eq!(
        harness.state().view.visible,
        [false, false, true, false, false]
    );
    assert_eq!(harness.state().selected_part, Some(2));
    harness.get_by_label("all").click();
    harness.run();
    assert_eq!(harness.state().view.visible, [true; 5]);
    // H (the app calls this): the selected part hidden and no longer
    // selected; with nothing selected, H and Shift+H change nothing.
    let state = harness.state_mut();
    state.hide_selected_part();
    assert_eq!(state.view.visible, [true, true, false, true, true]);
    assert_eq!(state.selected_part, None);
    state.hide_selected_part();
    state.show_only_selected_part();
    assert_eq!(state.view.visible, [true, true, false, true, true]);
}

#[test]
fn a_selected_part_shows_its_uv_layout() {
    // One triangle with UVs (0.25, 0.25), (0.75, 0.25), (0.25, 0.75). The
    // layout's 0..1 square fills the middle eight tenths of its widget
    // (u right, v down), so each edge's middle must be drawn in orange,
    // and the triangle's inside and the square's far corner not.
    let mut scene = facet::scene::Scene::default();
    scene.meshes = vec![facet::scene::Mesh {
        name: "sheet".into(),
        positions: vec![glam::Vec3::ZERO, glam::Vec3::X, glam::Vec3::Y],
        normals: vec![glam::Vec3::Z; 3],
        uvs: vec![
            glam::Vec2::new(0.25, 0.25),
            glam::Vec2::new(0.75, 0.25),
            glam::Vec2::new(0.25, 0.75),
        ],
        indices: vec![0, 1, 2],
        visible: true,
        has_file_uvs: true,
        ..Default::default()
    }];
    let (w, h) = (420.0, 1200.0);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(w, h))
        .build_ui_state(
            |ui, state: &mut UiState| {
                inspector(ui, &scene, state, None);
            },
            UiState::for_scene(&scene),
        );
    harness.run();
    assert!(
        harness.query_by_label("UV layout").is_none(),
        "nothing selected"
    );
    harness.get_by_label("sheet").click();
    harness.run();
    harness.get_by_label("1 triangle");
    let rect = harness.get_by_label("UV layout").rect();
    let img = harness.render().expect("a rendered frame");
    let ppp = img.width() as f32 / w;
    let margin = rect.width() * 0.1;
    let (x0, y0, side) = (
        rect.min.x + margin,
        rect.min.y + margin,
        rect.width() - 2.0 * margin,
    );
    // Whether a pixel within one of the point (u, v) is the edges' orange.
    let orange_near = |u: f32, v: f32| {
        let (x, y) = ((x0 + u * side) * ppp, (y0 + v * side) * ppp);
        (-1..=1).any(|dx| {
            (-1..=1).any(|dy| {
                let p = img
                    .get_pixel((x as i32 + dx) as u32, (y as i32 + dy) as u32)
                    .0;
                p[0] > 150 && p[0] as i32 > p[2] as i32 + 80
            })
        })
    };
    for (u, v, what) in [
        (0.5, 0.25, "top edge"),
        (0.25, 0.5, "left edge"),
        (0.5, 0.5, "long edge"),
    ] {
        assert!(orange_near(u, v), "{what} not drawn at ({u}, {v})");
    }
    for (u, v, what) in [(0.35, 0.35, "inside"), (0.85, 0.85, "far corner")] {
        assert!(!orange_near(u, v), "{what} drawn at ({u}, {v})");
    }
    // Vertex 1 clicked in the 3D view: its triangle's edges and a dot at
    // its UV (0.75, 0.25) in the marker's cyan (40, 220, 255).
    harness.state_mut().picked_vertex = Some(facet::anim::pick::VertexHit {
        part: 0,
        triangle: 0,
        corners: [0, 1, 2],
        vertex: 1,
    });
    harness.run();
    // The vertex's section now stands between the part's row and its
    // layout: the layout is found again.
    let rect = harness.get_by_label("UV layout").rect();
    let (x0, y0) = (rect.min.x + margin, rect.min.y + margin);
    let img = harness.render().expect("a rendered frame");
    let cyan_near = |u: f32, v: f32| {
        let (x, y) = ((x0 + u * side) * ppp, (y0 + v * side) * ppp);
        (-1..=1).any(|dx| {
            (-1..=1).any(|dy| {
                let p = img
                    .get_pixel((x as i32 + dx) as u32, (y as i32 + dy) as u32)
                    .0;
                p[2] > 200 && p[1] > 170 && p[0] < 110
            })
        })
    };
    for (u, v, what) in [
        (0.75, 0.25, "the vertex"),
        (0.5, 0.25, "top edge"),
        (0.5, 0.5, "long edge"),
    ] {
        assert!(cyan_near(u, v), "{what} not marked at ({u}, {v})");
    }
    assert!(!cyan_near(0.35, 0.35), "the inside marked");
}

/// What `draw` paints over a `w` x `h` view of grey 120 (the view's rect
/// given), as rendered: the overlays' pixel tests.
fn overlay(w: f32, h: f32, draw: impl Fn(&egui::Ui, egui::Rect)) -> image::RgbaImage {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(w, h))
        .build_ui(|ui| {
            let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(w, h));
            ui.painter()
                .rect_filled(rect, 0.0, egui::Color32::from_gray(120));
            draw(ui, rect);
        });
    harness.run();
    harness.render().expect("a rendered frame")
}

/// The inspector 420 x 1400 points, from `state`, posed by `pose`.
fn inspector_with<'a>(
    scene: &'a facet::scene::Scene,
    state: UiState,
    pose: Option<&'a facet::anim::Pose>,
) -> Harness<'a, UiState> {
    Harness::builder()
        .with_size(egui::vec2(420.0, 1400.0))
        .build_ui_state(
            move |ui, state: &mut UiState| inspector(ui, scene, state, pose),
            state,
        )
}

/// A hand-made part of three vertices on a three-bone skeleton, every
/// attribute given: what the inspector's Vertex section must show of each.
fn picked_scene() -> facet::scene::Scene {
    let mut scene = facet::scene::Scene::default();
    let bone = |name: &str| facet::scene::Bone {
        name: name.into(),
        parent: None,
        head: glam::Vec3::ZERO,
        tail: glam::Vec3::Y,
        rest: glam::Mat4::IDENTITY,
    };
    scene.skeleton.bones = vec![bone("root"), bone("arm"), bone("hand")];
    scene.meshes = vec![facet::scene::Mesh {
        name: "glove".into(),
        positions: vec![
            glam::Vec3::ZERO,
            glam::Vec3::new(1.0, -0.25, 3.5),
            glam::Vec3::X,
        ],
        normals: vec![glam::Vec3::Z, glam::Vec3::Y, glam::Vec3::Z],
        uvs: vec![glam::Vec2::ZERO, glam::Vec2::new(0.5, 0.125), glam::Vec2::X],
        extra_uvs: vec![vec![
            glam::Vec2::ZERO,
            glam::Vec2::new(0.75, 1.0),
            glam::Vec2::X,
        ]],
        colors: Some(vec![[0; 4], [255, 128, 0, 192], [0; 4]]),
        indices: vec![0, 1, 2],
        visible: true,
        has_file_normals: true,
        has_file_uvs: true,
        skin: Some(facet::scene::Skin {
            joints: vec![[0; 4], [2, 0, 1, 0], [9, 0, 0, 0]],
            weights: vec![[65535, 0, 0, 0], [49151, 16384, 0, 0], [30000, 0, 0, 0]],
        }),
        ..Default::default()
    }];
    scene
}

#[test]
fn a_clicked_vertex_shows_what_its_part_stores() {
    let scene = picked_scene();
    // The pose moves the hand bone 2 along x: vertex 1, three quarters
    // on it and a quarter on the root, is drawn 1.5 along x from rest.
    let mut pose = facet::anim::Pose::new(&scene.skeleton);
    pose.skin[2] = glam::Mat4::from_translation(glam::Vec3::new(2.0, 0.0, 0.0));
    let mut state = UiState::for_scene(&scene);
    state.picked_vertex = Some(facet::anim::pick::VertexHit {
        part: 0,
        triangle: 0,
        corners: [0, 1, 2],
        vertex: 1,
    });
    let mut harness = inspector_with(&scene, state, Some(&pose));
    harness.run();
    for row in [
        "Vertex 1 (clicked)",
        "of triangle 0 (vertices 0, 1, 2), the corner nearest the click; in the scene's axes (Y up)",
        // Written from the values given above, four significant digits.
        "(1, -0.25, 3.5)",
        "(2.5, -0.25, 3.5)",
        "(0, 1, 0)",
        "(0.5, 0.125)",
        "uv set 2",
        "(0.75, 1)",
        "#FF8000C0",
        // 49151 and 16384 of 65535: three quarters and a quarter.
        "   75%",
        "   25%",
    ] {
        harness.get_by_label(row);
    }
    assert!(
        harness
            .query_by_label_contains("the weights sum to")
            .is_none(),
        "the weights sum to 65535"
    );
    // The bones by name: a click selects one (its weights a click away).
    // The Bones section, below, lists "hand" too: the Vertex section's
    // is the one above its header.
    let bones_header = harness.get_by_label("Bones (3)").rect().min.y;
    harness
        .query_all_by_label("hand")
        .find(|n| n.rect().max.y < bones_header)
        .expect("the vertex's bone named")
        .click();
    harness.run();
    assert_eq!(harness.state().selected_bone, Some(2));
    // Vertex 2: one weight of 30000 (45.8%) on a bone the skeleton does
    // not have; its normal was made by the viewer, not stored.
    harness.state_mut().picked_vertex = Some(facet::anim::pick::VertexHit {
        part: 0,
        triangle: 0,
        corners: [0, 1, 2],
        vertex: 2,
    });
    harness.run();
    harness.get_by_label("Vertex 2 (clicked)");
    harness.get_by_label("bone 9 (no such bone)");
    harness.get_by_label(" 45.8%");
    harness.get_by_label("the weights sum to 45.8%");
    assert!(harness.query_by_label("(2.5, -0.25, 3.5)").is_none());
    harness.get_by_label("bone 9 (no such bone)").click();
    harness.run();
    assert_eq!(
        harness.state().selected_bone,
        Some(2),
        "no bone 9 to select"
    );
    // Without a skin, and with no vertex picked, the section says so or
    // is gone.
    harness.state_mut().picked_vertex = None;
    harness.run();
    assert!(harness.query_by_label_contains("Vertex ").is_none());
}

#[test]
fn a_selected_bone_says_what_it_moves() {
    // picked_scene's weights by hand: root holds vertex 0 whole and a
    // quarter of vertex 1; hand three quarters of vertex 1; arm's one
    // slot has no weight; bone 9 is past the skeleton.
    let scene = picked_scene();
    let mut harness = inspector_with(&scene, UiState::for_scene(&scene), None);
    for (bone, says) in [
        (0, "moves 2 vertices in 1 part, by up to 100%"),
        (1, "moves no vertex"),
        (2, "moves 1 vertex in 1 part, by up to 75%"),
    ] {
        harness.state_mut().select_bone(Some(bone));
        harness.run();
        harness.get_by_label(says);
    }
    // A skeleton with nothing skinned says nothing of it.
    let mut bare = picked_scene();
    bare.meshes[0].skin = None;
    let mut harness = inspector_with(&bare, UiState::for_scene(&bare), None);
    harness.state_mut().select_bone(Some(0));
    harness.run();
    assert!(harness.query_by_label_contains("moves").is_none());
}

#[test]
fn a_vertex_without_a_skin_or_stored_normals_says_so() {
    let mut scene = picked_scene();
    scene.meshes[0].skin = None;
    scene.meshes[0].has_file_normals = false;
    let mut state = UiState::for_scene(&scene);
    state.picked_vertex = Some(facet::anim::pick::VertexHit {
        part: 0,
        triangle: 0,
        corners: [0, 1, 2],
        vertex: 1,
    });
    let mut harness = inspector_with(&scene, state, None);
    harness.run();
    harness.get_by_label("(0, 1, 0) (made from the faces)");
    harness.get_by_label("no skin: no bone moves it");
}

#[test]
fn the_clicked_vertex_and_its_triangle_are_marked_where_the_pose_draws_them() {
    // Under the identity projection world x and y are the view's
    // normalised coordinates: in a 200 x 100 view the triangle (-0.5, 0),
    // (0.5, 0), (0, 0.5) lands at (50, 50), (150, 50) and (100, 25).
    let mut scene = facet::scene::Scene::default();
    scene.skeleton.bones = vec![facet::scene::Bone {
        name: "root".into(),
        parent: None,
        head: glam::Vec3::ZERO,
        tail: glam::Vec3::Y,
        rest: glam::Mat4::IDENTITY,
    }];
    scene.meshes = vec![facet::scene::Mesh {
        positions: vec![
            glam::Vec3::new(-0.5, 0.0, 0.0),
            glam::Vec3::new(0.5, 0.0, 0.0),
            glam::Vec3::new(0.0, 0.5, 0.0),
        ],
        indices: vec![0, 1, 2],
        skin: Some(facet::scene::Skin {
            joints: vec![[0; 4]; 3],
            weights: vec![[65535, 0, 0, 0]; 3],
        }),
        ..Default::default()
    }];
    let hit = facet::anim::pick::VertexHit {
        part: 0,
        triangle: 0,
        corners: [0, 1, 2],
        vertex: 0,
    };
    let mut pose = facet::anim::Pose::new(&scene.skeleton);
    let (w, h) = (200.0, 100.0);
    let render = |pose: &facet::anim::Pose, visible: &[bool]| {
        overlay(w, h, |ui, rect| {
            let identity = glam::Mat4::IDENTITY;
            facet::ui::vertex::marker(ui, &scene, Some(pose), &hit, visible, identity, rect);
        })
    };
    let cyan = |p: [u8; 4]| p[2] > 200 && p[1] > 170 && p[0] < 110;
    let img = render(&pose, &[true]);
    let ppp = img.width() as f32 / w;
    let px = |img: &image::RgbaImage, x: f32, y: f32| {
        img.get_pixel((x * ppp) as u32, (y * ppp) as u32).0
    };
    // The dot at vertex 0; the edges' middles (100, 50), (125, 37.5) and
    // (75, 37.5); inside the triangle and off it, the background.
    for (x, y) in [(50.0, 50.0), (100.0, 50.0), (125.0, 37.5), (75.0, 37.5)] {
        assert!(cyan(px(&img, x, y)), "({x}, {y}): {:?}", px(&img, x, y));
    }
    for (x, y) in [(100.0, 40.0), (100.0, 80.0)] {
        assert_eq!(px(&img, x, y)[..3], [120, 120, 120], "({x}, {y})");
    }
    // Posed a quarter unit right (25 pixels), the marker follows: the dot
    // at (75, 50), nothing left at (50, 50).
    pose.skin[0] = glam::Mat4::from_translation(glam::Vec3::new(0.25, 0.0, 0.0));
    let img = render(&pose, &[true]);
    assert!(cyan(px(&img, 75.0, 50.0)), "{:?}", px(&img, 75.0, 50.0));
    assert_eq!(px(&img, 50.0, 50.0)[..3], [120, 120, 120]);
    // Its part hidden: nothing is drawn.
    let img = render(&pose, &[false]);
    assert!(img.pixels().all(|p| p.0[..3] == [120, 120, 120]));
}

#[test]
fn the_status_bar_names_the_selection() {
    // With the inspector hidden, the status bar still says what a click
    // selected: the demo's head (561 vertices, 1024 triangles, as `facet
    // info` counts them) or its neck bone.
    let scene = demo();
    let mut state = UiState::for_scene(&scene);
    state.show_inspector = false;
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1000.0, 600.0))
        .build_ui_state(
            |ui, state: &mut UiState| {
                facet::ui::show(ui, &scene, state, None);
            },
            state,
        );
    harness.run();
    assert!(harness.query_by_label_contains("selected:").is_none());
    harness.state_mut().select_part(Some(2));
    harness.run();
    harness.get_by_label("selected: part \"head\", 561 vertices, 1024 triangles");
    harness.state_mut().select_bone(Some(2));
    harness.run();
    harness.get_by_label("selected: bone \"neck\"");
    // What a click found under it: its UV, and the texel with its value
    // (and a swatch of it).
    harness.state_mut().probe = Some(facet::anim::pick::Probe {
        uv: glam::Vec2::new(0.25, 0.5),
        texel: Some(facet::anim::pick::Texel {
            texture: "skin.png".into(),
            size: (64, 32),
            x: 16,
            y: 16,
            rgba: [0xCC, 0x88, 0x11, 0xFF],
        }),
    });
    harness.run();
    harness.get_by_label("uv (0.250, 0.500), texel (16, 16) of skin.png (64 x 32): #CC8811FF");
    // Measuring (M): what to click, then the distance.
    harness.state_mut().measuring = true;
    harness.run();
    harness.get_by_label("measuring: click the first point");
    harness.state_mut().measure.points = vec![glam::Vec3::ZERO, glam::Vec3::new(0.0, 1.5, 2.0)];
    harness.run();
    harness.get_by_label("distance 2.5 (0 along x, 1.5 along y, 2 along z)");
}

/// The inspector of `scene` in a panel 360 points wide and `height` high
/// (its sections scroll under its filter, as in the window), after its
/// first frame.
fn scrolled_inspector(scene: &facet::scene::Scene, height: f32) -> Harness<'_, UiState> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(360.0, height))
        .build_ui_state(
            |ui, state: &mut UiState| inspector(ui, scene, state, None),
            UiState::for_scene(scene),
        );
    harness.run();
    harness
}

/// A row brought into view: wholly within a panel `height` high.
fn assert_in_panel(row: egui::Rect, height: f32) {
    assert!(
        row.min.y >= 0.0 && row.max.y <= height,
        "the picked row is outside the panel: {row:?}"
    );
}

#[test]
fn a_part_picked_in_the_3d_view_is_shown_in_the_inspector() {
    // Eighty parts in a panel 400 points high, their section folded by the
    // user; a part picked in the 3D view (the app sets the selection and
    // `reveal_selection`) must open the section and scroll its row into
    // the panel.
    let mut scene = facet::scene::Scene::default();
    scene.meshes = (0..80)
        .map(|i| facet::scene::Mesh {
            name: format!("part-{i:02}"),
            visible: true,
            ..Default::default()
        })
        .collect();
    let height = 400.0;
    let mut harness = scrolled_inspector(&scene, height);
    harness.get_by_label("Parts (80)").click();
    harness.run();
    assert!(harness.query_by_label("part-70").is_none(), "not folded");
    harness.state_mut().select_part(Some(70));
    harness.state_mut().reveal_selection = true;
    harness.run();
    assert_in_panel(harness.get_by_label("part-70").rect(), height);
    // Once: the next frames leave the section to the user.
    assert!(!harness.state().reveal_selection);
}

#[test]
fn a_bone_picked_in_the_3d_view_is_shown_in_the_inspector() {
    // A root, then a chain of 61 bones: the tree nests 16 levels and lists
    // the rest flat under the deepest. The user folds the root bone and
    // then the whole section; a bone deep in the chain picked in the 3D
    // view must open both and scroll its row into the 400-point panel.
    let mut scene = facet::scene::Scene::default();
    scene.skeleton.bones = (0..62usize)
        .map(|i| facet::scene::Bone {
            name: if i == 0 {
                "hips".into()
            } else {
                format!("vertebra {i}")
            },
            parent: i.checked_sub(1),
            head: glam::Vec3::new(0.0, i as f32, 0.0),
            tail: glam::Vec3::new(0.0, i as f32 + 1.0, 0.0),
            rest: glam::Mat4::from_translation(glam::Vec3::new(0.0, i as f32, 0.0)),
        })
        .collect();
    let height = 400.0;
    let mut harness = scrolled_inspector(&scene, height);
    // The root's fold arrow: the node before its name's.
    harness.get_by_label("hips").scroll_to_me();
    harness.run();
    let arrow = harness
        .get_by_label("hips")
        .parent()
        .unwrap()
        .children()
        .next()
        .unwrap();
    arrow.click();
    harness.run();
    assert!(
        harness.query_by_label("vertebra 1").is_none(),
        "root not folded"
    );
    harness.get_by_label("Bones (62)").click();
    harness.run();
    assert!(
        harness.query_by_label("hips").is_none(),
        "section not folded"
    );
    harness.state_mut().select_bone(Some(50));
    harness.state_mut().reveal_selection = true;
    harness.run();
    assert_in_panel(
        harness.get_by_label("(depth 50) vertebra 50").rect(),
        height,
    );
    assert!(!harness.state().reveal_selection);
}

/// A rig named as tools name them, for the name filter: parts, materials,
/// textures, a bone tree (hips > spine > upperarm_L > forearm_L, and
/// upperarm_R under the spine) and clips.
fn rig() -> facet::scene::Scene {
    let mut scene = demo();
    scene.meshes = ["Body", "arm_L", "Arm_R", "head"]
        .iter()
        .map(|name| facet::scene::Mesh {
            name: name.to_string(),
            visible: true,
            ..Default::default()
        })
        .collect();
    scene.materials = ["skin", "ARM metal"]
        .iter()
        .map(|name| facet::scene::Material {
            name: name.to_string(),
            ..Default::default()
        })
        .collect();
    scene.textures.truncate(2);
    scene.textures[0].name = "body_diffuse".into();
    scene.textures[1].name = "arm_l_diffuse".into();
    let bone = |name: &str, parent: Option<usize>| facet::scene::Bone {
        name: name.into(),
        parent,
        head: glam::Vec3::ZERO,
        tail: glam::Vec3::Y,
        rest: glam::Mat4::IDENTITY,
    };
    scene.skeleton.bones = vec![
        bone("hips", None),
        bone("spine", Some(0)),
        bone("upperarm_L", Some(1)),
        bone("forearm_L", Some(2)),
        bone("upperarm_R", Some(1)),
    ];
    let walk = scene.clips[0].clone();
    scene.clips = vec![
        facet::scene::Clip {
            name: "walk".into(),
            ..walk.clone()
        },
        facet::scene::Clip {
            name: "wave_L_arm".into(),
            ..walk
        },
    ];
    scene
}

#[test]
fn the_filter_lists_what_matches_by_name() {
    // "arm l" typed in the filter's field: names holding both words, in
    // any case and order, are listed; the headers count them.
    let scene = rig();
    let mut harness = scrolled_inspector(&scene, 1400.0);
    for header in ["Parts (4)", "Materials (2)", "Bones (5)", "Animations (2)"] {
        harness.get_by_label(header);
    }
    let field = harness.get_by_role(egui::Role::TextInput);
    field.focus();
    harness.run();
    harness
        .get_by_role(egui::Role::TextInput)
        .type_text("arm l");
    harness.run();
    assert_eq!(harness.state().filter, "arm l");
    for header in [
        "Parts (1 of 4)",
        "Materials (1 of 2)",
        "Textures (1 of 2)",
        "Bones (2 of 5)",
        "Animations (1 of 2)",
    ] {
        harness.get_by_label(header);
    }
    // "ARM metal" holds an l too; "Arm_R" and "upperarm_R" do not.
    for shown in [
        "arm_L",
        "1: ARM metal",
        "1: arm_l_diffuse",
        "upperarm_L",
        "forearm_L",
        "wave_L_arm: 24 frames, 1.00 s",
    ] {
        harness.get_by_label(shown);
    }
    for hidden in [
        "Body",
        "Arm_R",
        "head",
        "0: skin",
        "0: body_diffuse",
        "hips",
        "spine",
        "upperarm_R",
    ] {
        assert!(harness.query_by_label(hidden).is_none(), "{hidden} listed");
    }
    assert!(harness.query_by_label_contains("walk").is_none());
    // Flat, each bone with its parent: none hides in a folded branch.
    harness.get_by_label("in spine");
    harness.get_by_label("in upperarm_L");
    // "only these" shows the listed parts alone.
    harness.get_by_label("only these").click();
    harness.run();
    assert_eq!(harness.state().view.visible, [false, true, false, false]);
    // The selection stays listed, whatever the filter.
    harness.state_mut().select_part(Some(3));
    harness.state_mut().select_bone(None);
    harness.run();
    harness.get_by_label("head");
    harness.state_mut().select_bone(Some(0));
    harness.run();
    harness.get_by_label("hips");
    // × clears it: everything is back, the bones as a tree.
    harness.get_by_label("×").click();
    harness.run();
    assert!(harness.state().filter.is_empty());
    for name in ["Body", "Arm_R", "spine", "upperarm_R", "0: skin"] {
        harness.get_by_label(name);
    }
    assert!(harness.query_by_label("in spine").is_none());
    harness.get_by_label("Parts (4)");
}

#[test]
fn ctrl_f_s_field_takes_the_keyboard_and_typing_opens_folded_sections() {
    // The app sets `focus_filter` on Ctrl+F; the field then has the
    // keyboard. A section the user folded opens when what is typed
    // matches in it, and stays as the user leaves it afterwards.
    let scene = rig();
    let mut harness = scrolled_inspector(&scene, 1400.0);
    harness.get_by_label("Bones (5)").click();
    harness.run();
    assert!(harness.query_by_label("spine").is_none(), "not folded");
    assert!(!harness.get_by_role(egui::Role::TextInput).is_focused());
    harness.state_mut().focus_filter = true;
    harness.run();
    assert!(harness.get_by_role(egui::Role::TextInput).is_focused());
    assert!(!harness.state().focus_filter, "once");
    harness
        .get_by_role(egui::Role::TextInput)
        .type_text("SPINE");
    harness.run();
    harness.get_by_label("Bones (1 of 5)");
    harness.get_by_label("spine");
    harness.get_by_label("in hips");
    // Folded again by the user, it stays folded while nothing is typed.
    harness.get_by_label("Bones (1 of 5)").click();
    harness.run();
    harness.run();
    assert!(harness.query_by_label("spine").is_none());
    // A filter that matches nothing opens nothing and lists nothing.
    harness.get_by_role(egui::Role::TextInput).focus();
    harness.run();
    harness.get_by_role(egui::Role::TextInput).type_text("zzz");
    harness.run();
    assert_eq!(harness.state().filter, "SPINEzzz");
    assert!(harness.query_by_label("spine").is_none());
    harness.get_by_label("Parts (0 of 4)");
    assert!(harness.query_by_label("arm_L").is_none());
}

#[test]
fn a_selected_bone_s_weights_are_one_click_away() {
    let scene = demo();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(360.0, 2800.0))
        .build_ui_state(
            |ui, state: &mut UiState| {
                inspector(ui, &scene, state, None);
            },
            UiState::for_scene(&scene),
        );
    harness.run();
    harness.get_by_label("Shading").click();
    harness.run();
    assert!(harness.query_by_label("show its weights").is_none());
    harness.get_by_label("neck").click();
    harness.run();
    harness.get_by_label("show its weights").click();
    harness.run();
    assert_eq!(harness.state().view.channel, facet::gpu::Channel::Weights);
    harness.get_by_label_contains("the weights of bone \"neck\"");
    // Nothing selected: the legend says how to pick a bone.
    harness.state_mut().select_bone(None);
    harness.run();
    harness.get_by_label_contains("select a bone");
    // A second click goes back to the shaded view.
    harness.get_by_label("neck").click();
    harness.run();
    harness.get_by_label("show its weights").click();
    harness.run();
    assert_eq!(harness.state().view.channel, facet::gpu::Channel::Shaded);
    // The UV checker and the faces view are channels beside it, each
    // with its own legend.
    harness.get_by_label("uvs").click();
    harness.run();
    assert_eq!(harness.state().view.channel, facet::gpu::Channel::Uvs);
    harness.get_by_label_contains("the UVs as a checker");
    harness.get_by_label("faces").click();
    harness.run();
    assert_eq!(harness.state().view.channel, facet::gpu::Channel::Faces);
    harness.get_by_label_contains("fronts blue, backs red");
}

#[test]
fn selecting_a_bone_shows_its_transforms() {
    let scene = demo();
    let pose = facet::anim::Pose::new(&scene.skeleton);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(420.0, 3000.0))
        .build_ui_state(
            |ui, state: &mut UiState| {
                inspector(ui, &scene, state, Some(&pose));
            },
            UiState::for_scene(&scene),
        );
    harness.run();
    harness.get_by_label("neck").click();
    harness.run();
    assert_eq!(harness.state().selected_bone, Some(2));
    harness.get_by_label_contains("neck (bone 2)");
    harness.get_by_label_contains("parent: spine");
    harness.get_by_label("current model");
}

/// A skeleton that is one chain of 100,000 bones (a hostile file's, or a
/// rope's): the tree nests the first 16 levels and lists the rest flat
/// with their depth, shows at most 2,000 rows and says so, and a bone past
/// the nesting still selects.
#[test]
fn a_skeleton_one_chain_deep_lists_in_bounded_rows() {
    let mut scene = facet::scene::Scene::default();
    scene.skeleton.bones = (0..100_000usize)
        .map(|i| facet::scene::Bone {
            name: format!("link {i}"),
            parent: i.checked_sub(1),
            head: glam::Vec3::new(0.0, i as f32, 0.0),
            tail: glam::Vec3::new(0.0, i as f32 + 1.0, 0.0),
            rest: glam::Mat4::from_translation(glam::Vec3::new(0.0, i as f32, 0.0)),
        })
        .collect();
    let mut harness = Harness::builder()
        .with_size(egui::vec2(420.0, 3000.0))
        .build_ui_state(
            |ui, state: &mut UiState| {
                inspector(ui, &scene, state, None);
            },
            UiState::for_scene(&scene),
        );
    harness.run();
    harness.get_by_label("link 15");
    harness.get_by_label("(depth 16) link 16");
    harness.get_by_label("(depth 1999) link 1999");
    assert!(harness.query_by_label("(depth 2000) link 2000").is_none());
    harness.get_by_label("(the first 2000 rows of 100000 bones are shown)");
    harness.get_by_label("(depth 20) link 20").click();
    harness.run();
    assert_eq!(harness.state().selected_bone, Some(20));
}

#[test]
fn timeline_panel_plays_steps_and_scrubs() {
    let scene = demo();
    let mut state = UiState::for_scene(&scene);
    state.timeline.select(Some(0), &scene);
    state.timeline.playing = false;
    let mut harness = Harness::builder()
        .with_size(egui::vec2(900.0, 90.0))
        .build_ui_state(
            |ui, state: &mut UiState| facet::ui::timeline::timeline(ui, &scene, state),
            state,
        );
    harness.run();
    harness.get_by_label_contains("frame    0 / 24");
    harness.get_by_label("Frame >").click();
    harness.run();
    assert_eq!(harness.state().timeline.frame(&scene.clips[0]), 1);
    harness.get_by_label_contains("frame    1 / 24");
    harness.get_by_label("End").click();
    harness.run();
    assert_eq!(harness.state().timeline.frame(&scene.clips[0]), 24);
    harness.get_by_label("Play").click();
    harness.run();
    assert!(harness.state().timeline.playing);
    harness.get_by_label("Pause").click();
    harness.run();
    assert!(!harness.state().timeline.playing);
}

#[test]
fn the_timeline_plays_a_range_set_with_its_brackets() {
    // The demo's "nod", 1 s: [ at 0.25 s and ] at 0.75 s make the range
    // played, named beside the buttons and shaded on the track between
    // the two times (half of it, about its middle); End goes to its end;
    // × clears it.
    let scene = demo();
    let mut state = UiState::for_scene(&scene);
    state.timeline.select(Some(0), &scene);
    state.timeline.playing = false;
    // Wide enough for the controls' row, whose overflow would widen the
    // track.
    let (w, h) = (1100.0, 90.0);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(w, h))
        .build_ui_state(
            |ui, state: &mut UiState| facet::ui::timeline::timeline(ui, &scene, state),
            state,
        );
    harness.run();
    let plain = harness.render().expect("a rendered frame");
    harness.state_mut().timeline.time = 0.25;
    harness.run();
    harness.get_by_label("[").click();
    harness.run();
    harness.state_mut().timeline.time = 0.75;
    harness.run();
    harness.get_by_label("]").click();
    harness.run();
    assert_eq!(harness.state().timeline.range, Some((0.25, 0.75)));
    harness.get_by_label("0.25-0.75 s ×");
    // The track's band: in rows through the track's lower half, the
    // columns changed (the time's cursor, 2 points at 0.75, aside) span
    // half the track, centred on it.
    harness.state_mut().timeline.time = 0.0;
    harness.run();
    let banded = harness.render().expect("a rendered frame");
    let ppp = banded.width() as f32 / w;
    let y = (55.0 * ppp) as u32;
    let changed: Vec<u32> = (0..banded.width())
        .filter(|&x| {
            let (p, q) = (banded.get_pixel(x, y).0, plain.get_pixel(x, y).0);
            (0..3).any(|c| p[c].abs_diff(q[c]) > 8)
        })
        .collect();
    let (first, last) = (
        changed[0] as f32 / ppp,
        *changed.last().unwrap() as f32 / ppp,
    );
    // The track spans the panel less its margins (about 884 points).
    let track = w - 16.0;
    assert!(
        ((last - first) / track - 0.5).abs() < 0.03,
        "band {first}..{last} of a {track}-point track"
    );
    assert!(
        ((first + last) / 2.0 - w / 2.0).abs() < 10.0,
        "band {first}..{last}"
    );
    harness.get_by_label("End").click();
    harness.run();
    assert_eq!(harness.state().timeline.time, 0.75);
    harness.get_by_label("0.25-0.75 s ×").click();
    harness.run();
    assert_eq!(harness.state().timeline.range, None);
}

#[test]
fn material_keyframes_show_values_and_jump_the_timeline() {
    // The demo's glow (material 2): OKLCH colour keys at frames 0 and 12,
    // 50 ms a frame, CONT.
    let scene = demo();
    let mut state = UiState::for_scene(&scene);
    assert!(state.timeline.playing, "animated materials play on open");
    state.timeline.playing = false;
    state.timeline.time = 0.3; // frame 6: halfway from key 0 to key 1
    let mut harness = Harness::builder()
        .with_size(egui::vec2(420.0, 2000.0))
        .build_ui_state(
            |ui, state: &mut UiState| inspector(ui, &scene, state, None),
            state,
        );
    harness.run();
    harness.get_by_label_contains("50.0 ms a frame (20.00 fps)");
    harness.get_by_label_contains("continue (CONT)");
    harness.get_by_label_contains("frame 6.00");
    harness.get_by_label_contains("key 0 -> key 1, 50% (OKLCH)");
    harness.get_by_label_contains("key 0 -> key 1, 50% (HSV)");
    // The colour shown is the CPU reference's value at 0.3 s.
    let now = facet::anim::material::evaluate(&scene.materials[2], 0.3);
    let hex: String = now
        .color
        .iter()
        .map(|&c| format!("{:02X}", (c * 255.0).round() as u8))
        .collect();
    harness.get_by_label(&format!("#{hex}"));

    // Clicking the colour key at frame 12 jumps there (0.6 s) and pauses.
    harness.get_all_by_label("12").next().unwrap().click();
    harness.run();
    let st = harness.state();
    assert!(
        (st.timeline.time - 0.6).abs() < 1e-6,
        "time {}",
        st.timeline.time
    );
    assert!(!st.timeline.playing);
    assert_eq!(st.selected_material, Some(2));
    harness.get_by_label_contains("key 1 -> key 0 (wrapped), 0% (OKLCH)");
}

#[test]
fn timeline_runs_materials_without_a_clip() {
    let scene = demo();
    let mut state = UiState::for_scene(&scene);
    state.timeline.playing = false;
    state.selected_material = Some(2);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(900.0, 90.0))
        .build_ui_state(
            |ui, state: &mut UiState| facet::ui::timeline::timeline(ui, &scene, state),
            state,
        );
    harness.run();
    // Two cycles of 24 frames at 20 fps (CONT shows the wrap): 2.4 s.
    harness.get_by_label_contains("animated materials");
    harness.get_by_label_contains("frame    0 / 48");
    harness.get_by_label("Frame >").click();
    harness.run();
    assert!((harness.state().timeline.time - 0.05).abs() < 1e-6);
    harness.get_by_label("End").click();
    harness.run();
    assert!((harness.state().timeline.time - 2.4).abs() < 1e-5);
}

#[test]
fn m3d_inspector_shows_strings_chunks_and_material_properties() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/m3d/viper.m3d");
    assert!(
        path.exists(),
        "this test needs ../shared/fixtures (CI has it)"
    );
    let scene = facet::load::load_file(&path).unwrap().scene;
    let state = UiState::for_scene(&scene);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(420.0, 2400.0))
        .build_ui_state(
            |ui, state: &mut UiState| inspector(ui, &scene, state, None),
            state,
        );
    harness.run();
    for text in [
        "M3D",
        "model name",
        "BSG Viper",
        "payload",
        "zlib-compressed in the file",
    ] {
        harness.get_by_label_contains(text);
    }
    harness.get_by_label("Chunks (8)").click();
    harness.run();
    for text in ["HEAD", "ASET", "0x0"] {
        harness.get_by_label(text);
    }
    assert_eq!(harness.get_all_by_label("MTRL").count(), 2);
    harness.get_all_by_label("decoded").next().unwrap();
    harness
        .get_all_by_label("Properties (9)")
        .next()
        .unwrap()
        .click();
    harness.run();
    harness.get_by_label("map_Kd diffuse map (128)");
    assert!(harness.get_all_by_label("M_01___Default1").count() >= 2);
    harness.get_by_label("Ns specular exponent (3)");
}

#[test]
fn texture_viewer_picks_mip_levels_and_channels() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/papa/bot_sun_diffuse.papa");
    assert!(
        path.exists(),
        "this test needs ../shared/fixtures (CI has it)"
    );
    let scene = facet::load::load_file(&path).unwrap().scene;
    let state = UiState::for_scene(&scene);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(420.0, 1200.0))
        .build_ui_state(
            |ui, state: &mut UiState| inspector(ui, &scene, state, None),
            state,
        );
    harness.run();
    assert!(
        harness
            .get_all_by_label_contains("DXT5 128x128, 7 mip levels, sRGB")
            .count()
            >= 1
    );
    harness.get_by_label("A").click();
    harness.run();
    let st = harness.state();
    assert!(st.actions.contains(&UiAction::ShowTextureLevel));
    assert_eq!(st.channel, facet::scene::from_papa::ViewChannel::A);
}

#[test]
fn errors_show_as_toasts_and_everything_stays_in_the_log() {
    let scene = demo();
    let mut state = UiState::for_scene(&scene);
    state.report(
        facet::ui::Level::Error,
        "bot.papa: vertex buffer 0: data at offset 0x1F40 runs past the end of the file (size 0x1A00)",
    );
    state.report(
        facet::ui::Level::Warning,
        "texture 1: missing; showing a checkerboard",
    );
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1000.0, 700.0))
        .build_ui_state(
            |ui, state: &mut UiState| {
                facet::ui::show(ui, &scene, state, None);
            },
            state,
        );
    harness.run();
    // The error is a toast; the warning only counts in the log.
    harness
        .get_by_label_contains("runs past the end of the file (size 0x1A00)")
        .click();
    harness.run();
    assert!(
        harness.state().toasts.is_empty(),
        "a click dismisses the toast"
    );
    assert!(
        harness
            .query_by_label_contains("runs past the end")
            .is_none()
    );
    harness.get_by_label("Log (2)").click();
    harness.run();
    harness.get_by_label_contains("runs past the end of the file");
    harness.get_by_label_contains("showing a checkerboard");
}

#[test]
fn view_and_file_menus_set_lighting_and_ask_for_files() {
    let scene = demo();
    let mut state = UiState::for_scene(&scene);
    state.recent = vec![std::path::PathBuf::from("/models/bot.papa")];
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1000.0, 400.0))
        .build_ui_state(
            |ui, state: &mut UiState| facet::ui::toolbar(ui, state),
            state,
        );
    harness.run();
    harness.get_by_label("View").click();
    harness.run();
    harness.get_by_label("flat").click();
    harness.run();
    assert_eq!(harness.state().view.lighting, facet::gpu::Lighting::Flat);
    // The View menu stays open while a preset is picked.
    assert!(harness.state().show_axes);
    harness.get_by_label("Axes").click();
    harness.run();
    assert!(!harness.state().show_axes);
    harness.get_by_label("Full screen").click();
    harness.run();
    assert_eq!(harness.state().actions, [UiAction::FullScreen]);
    harness.state_mut().actions.clear();
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("bot.papa").click();
    harness.run();
    assert_eq!(
        harness.state().actions,
        [UiAction::Open("/models/bot.papa".into())]
    );
    // A preset sets the render size and the menu stays open for the save.
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("4K").click();
    harness.run();
    assert_eq!(harness.state().render_size, (3840, 2160));
    harness.get_by_label("Save render 3840x2160").click();
    harness.run();
    assert!(harness.state().actions.contains(&UiAction::SaveRender {
        width: 3840,
        height: 2160,
        transparent: false,
    }));
    // Transparent: the next save asks for it.
    harness.state_mut().actions.clear();
    if harness.query_by_label("Transparent background").is_none() {
        harness.get_by_label("File").click();
        harness.run();
    }
    harness.get_by_label("Transparent background").click();
    harness.run();
    assert!(harness.state().render_transparent);
    harness.get_by_label("Save render 3840x2160").click();
    harness.run();
    assert!(harness.state().actions.contains(&UiAction::SaveRender {
        width: 3840,
        height: 2160,
        transparent: true,
    }));
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("Open…").click();
    harness.run();
    assert!(harness.state().actions.contains(&UiAction::OpenDialog));
    use facet::load::folder::Direction;
    for (item, direction) in [
        ("Next file in the folder", Direction::Next),
        ("Previous file in the folder", Direction::Previous),
    ] {
        harness.get_by_label("File").click();
        harness.run();
        harness.get_by_label(item).click();
        harness.run();
        assert_eq!(
            harness.state().actions.last(),
            Some(&UiAction::OpenBeside(direction))
        );
    }
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("Export glTF…").click();
    harness.run();
    assert!(
        harness
            .state()
            .actions
            .contains(&UiAction::ExportGltf(None))
    );
}

#[test]
fn map_inspector_selects_sectors_cubes_and_views() {
    let map = facet::generators::pmf::generate(&facet::generators::pmf::Params::SMALL);
    let scene = facet::scene::from_pmf::convert(&map, Default::default(), Default::default());
    let mut harness = Harness::builder()
        .with_size(egui::vec2(520.0, 2400.0))
        .build_ui_state(
            |ui, state: &mut UiState| {
                inspector(ui, &scene, state, None);
            },
            UiState::for_scene(&scene),
        );
    harness.run();
    // Maps open on their own panel, the file's facts folded.
    assert!(harness.query_by_label("Facet demo town").is_none());
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("Facet demo town");
    harness.get_by_label("deathmatch, team deathmatch");
    harness.get_by_label_contains("Sectors (4)");
    harness.get_by_label("lightmaps only").click();
    harness.run();
    assert_eq!(
        harness.state().map.shading,
        facet::scene::from_pmf::MapShading::Lightmaps
    );
    assert_eq!(harness.state().actions, [UiAction::MapShading]);
    harness.get_by_label("1 0,0,1").click();
    harness.run();
    assert_eq!(harness.state().map.selected_sector, Some(1));
    harness.get_by_label_contains("Octree of sector [0, 0, 1]");
    harness.get_by_label("#0 parent").click();
    harness.run();
    assert_eq!(harness.state().map.selected_cube, Some((1, 0)));
    harness.get_by_label("#0 of sector [0, 0, 1]");
    harness.get_by_label("cube boxes to depth").click();
    harness
        .get_by_label("show only what the selection sees")
        .click();
    harness
        .get_by_label("render only what is visible from the camera's cell")
        .click();
    harness.run();
    let m = &harness.state().map;
    assert_eq!(m.box_depth, Some(1));
    assert!(m.show_visibility && m.cull);
    harness.get_by_label_contains("Entities (8)");
    // Both lamps of the small map light sector 0: their extra lightmaps
    // are listed (with their images in the app).
    harness.get_by_label("0 0,0,0").click();
    harness.run();
    harness
        .get_by_label_contains("Lightmaps (1 + 2 extra)")
        .click();
    harness.run();
    harness.get_by_label("dynamic light 0 extra lightmap 0 (over lightmap 0)");
    harness.get_by_label("1 0,0,1").click();
    harness.run();
    // A cube picked deep in the octree (as a click in 3D does) opens the
    // tree down to it.
    let info = scene.map.as_ref().unwrap();
    let places = facet::scene::map_query::cube_places(&info.map, 1);
    let deep = (0..places.len())
        .filter(|&c| places[c].is_some_and(|p| p.depth >= 3))
        .find(|&c| {
            info.map.sectors[1].cubes[c]
                .kind
                .triangles()
                .is_some_and(|(_, n)| n > 0)
        })
        .unwrap();
    harness.state_mut().map.selected_cube = Some((1, deep));
    harness.run();
    harness.run();
    let kind = info.map.sectors[1].cubes[deep].kind.name();
    harness.get_by_label_contains(&format!("#{deep} {kind}"));
    // The name filter finds entities by name or by kind, and opens their
    // folded section.
    assert!(harness.query_by_label("lamp_0 (dynamic light)").is_none());
    harness.get_by_role(egui::Role::TextInput).focus();
    harness.run();
    harness
        .get_by_role(egui::Role::TextInput)
        .type_text("light");
    harness.run();
    harness.get_by_label("Entities (2 of 8)");
    harness.get_by_label("lamp_0 (dynamic light)");
    harness.get_by_label("lamp_1 (dynamic light)");
    assert!(harness.query_by_label("spawn_red (spawn)").is_none());
    assert!(harness.query_by_label("lamp_0_model (generic)").is_none());
}

#[test]
fn a_map_opened_after_the_loading_placeholder_still_folds_its_file_section() {
    // The window shows a placeholder scene (no map) while a file loads,
    // then the map: its File section must open folded as a map's does, not
    // keep the placeholder's open state.
    let map = facet::generators::pmf::generate(&facet::generators::pmf::Params::SMALL);
    let loaded = facet::scene::from_pmf::convert(&map, Default::default(), Default::default());
    let mut placeholder = facet::scene::Scene::default();
    placeholder.source.file_name = "small.pmf".into();
    placeholder.source.format = "loading".into();
    let scenes = [placeholder, loaded];
    let mut harness = Harness::builder()
        .with_size(egui::vec2(520.0, 2400.0))
        .build_ui_state(
            |ui, (state, shown): &mut (UiState, usize)| {
                inspector(ui, &scenes[*shown], state, None);
            },
            (UiState::for_scene(&scenes[0]), 0),
        );
    harness.run();
    harness.get_by_label("loading");
    harness.state_mut().1 = 1;
    harness.run();
    assert!(harness.query_by_label("loading").is_none());
    assert!(harness.query_by_label("Facet demo town").is_none());
    harness.get_by_label_contains("Sectors (4)");
}

#[test]
fn settings_window_edits_the_media_roots() {
    // File > Settings… opens the window; a folder typed in is added, a
    // path that is no folder is not, and "remove" takes one out. Each
    // change asks the app to save the settings.
    let scene = demo();
    let dir = std::env::temp_dir();
    let mut state = UiState::for_scene(&scene);
    state.media_roots = vec![std::path::PathBuf::from("/old/media")];
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1000.0, 700.0))
        .build_ui_state(
            |ui, state: &mut UiState| {
                facet::ui::toolbar(ui, state);
                facet::ui::settings_window(&ui.ctx().clone(), state);
            },
            state,
        );
    harness.run();
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("Settings…").click();
    harness.run();
    assert!(harness.state().show_settings);
    harness.get_by_label_contains("Planetary Annihilation media roots");
    harness.get_by_label("/old/media");
    harness.get_by_label("not a folder");
    // A path that is no folder leaves "Add" disabled.
    harness.state_mut().media_root_input = "/no/such/folder".into();
    harness.run();
    harness.get_by_label("Add").click();
    harness.run();
    assert_eq!(harness.state().media_roots.len(), 1);
    assert!(harness.state().actions.is_empty());
    harness.state_mut().media_root_input = dir.display().to_string();
    harness.run();
    harness.get_by_label("Add").click();
    harness.run();
    assert_eq!(
        harness.state().media_roots,
        vec![std::path::PathBuf::from("/old/media"), dir.clone()]
    );
    assert_eq!(harness.state().actions, [UiAction::SettingsChanged]);
    assert!(harness.state().media_root_input.is_empty());
    harness.state_mut().actions.clear();
    harness.get_all_by_label("remove").next().unwrap().click();
    harness.run();
    assert_eq!(harness.state().media_roots, vec![dir]);
    assert_eq!(harness.state().actions, [UiAction::SettingsChanged]);
}

/// The projection of a `w` x `h` view framing the whole of `scene`, as a
/// file opens.
fn framed(scene: &facet::scene::Scene, w: f32, h: f32) -> glam::Mat4 {
    facet::gpu::OrbitCamera::framing(&scene.bounds(None), w / h).view_proj(w / h)
}

#[test]
fn labels_draw_their_text_and_a_dot_at_each_labelled_vertex() {
    // The M3D demo's three labels over an empty view, drawn by the UI (not
    // the GPU pass): the frame with labels against the frame without.
    let scene = facet::load::load_file(&common::repo().join("assets/demo.m3d"))
        .unwrap()
        .scene;
    assert_eq!(scene.labels.len(), 3);
    let (w, h) = (600.0, 400.0);
    let view_proj = framed(&scene, w, h);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(w, h))
        .build_ui_state(
            |ui, show: &mut bool| {
                // The whole window, as the projection below assumes.
                let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(w, h));
                ui.painter().rect_filled(rect, 0.0, egui::Color32::BLACK);
                if *show {
                    facet::ui::labels::draw(ui, &scene, view_proj, rect);
                }
            },
            false,
        );
    harness.run();
    let plain = harness.render().expect("a rendered frame");
    *harness.state_mut() = true;
    harness.run();
    let shown = harness.render().expect("a rendered frame");
    let ppp = shown.width() as f32 / w;
    let changed = shown
        .enumerate_pixels()
        .filter(|(x, y, p)| {
            let q = plain.get_pixel(*x, *y);
            (0..3).any(|c| p.0[c].abs_diff(q.0[c]) > 24)
        })
        .count();
    eprintln!("labels changed {changed} pixels");
    // Three names in 13-point text with their leaders: well over a
    // thousand pixels (about 2,500 here).
    assert!(changed > 1000, "only {changed} pixels changed");
    // Each label's dot sits where its vertex projects, in its colour.
    for l in &scene.labels {
        let ndc = view_proj.project_point3(l.position);
        let (x, y) = ((ndc.x * 0.5 + 0.5) * w * ppp, (0.5 - ndc.y * 0.5) * h * ppp);
        let p = shown.get_pixel(x as u32, y as u32).0;
        let want = l.color;
        assert!(
            (0..3).all(|c| p[c].abs_diff(want[c]) <= 40),
            "{:?}: pixel {p:?} at ({x:.0}, {y:.0}), label colour {want:?}",
            l.text
        );
    }
}

#[test]
fn bone_names_are_drawn_at_their_heads_the_selected_one_highlighted() {
    // The demo's three bones over an empty view, drawn by the UI: with
    // only the selection's name asked for, the neck's plate (dark, its
    // name in the highlight's amber) just above and right of its head as
    // the projection puts it, and nothing at the other heads; with every
    // name, the root's and the spine's too (where their plates are clear
    // of the neck's, which comes first).
    let scene = demo();
    let (w, h) = (600.0, 400.0);
    let view_proj = framed(&scene, w, h);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(w, h))
        .build_ui_state(
            |ui, all: &mut Option<bool>| {
                let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(w, h));
                ui.painter()
                    .rect_filled(rect, 0.0, egui::Color32::from_gray(120));
                if let Some(all) = *all {
                    facet::ui::labels::bone_names(ui, &scene, None, view_proj, rect, Some(2), all);
                }
            },
            None,
        );
    harness.run();
    let plain = harness.render().expect("a rendered frame");
    let ppp = plain.width() as f32 / w;
    let heads: Vec<(f32, f32)> = scene
        .skeleton
        .bones
        .iter()
        .map(|b| {
            let ndc = view_proj.project_point3(b.head);
            ((ndc.x * 0.5 + 0.5) * w, (0.5 - ndc.y * 0.5) * h)
        })
        .collect();
    // Pixels changed in the box from 5 to 30 points right of a head and
    // from 6 to 14 points above it (inside a plate 14 points high whose
    // bottom-left corner is 4 right of and 4 above the head), and how many
    // of them are amber.
    let look = |img: &image::RgbaImage, (x, y): (f32, f32)| {
        let (mut changed, mut amber) = (0, 0);
        for dy in 6..=14 {
            for dx in 5..=30 {
                let (px, py) = (
                    ((x + dx as f32) * ppp) as u32,
                    ((y - dy as f32) * ppp) as u32,
                );
                let (p, q) = (img.get_pixel(px, py).0, plain.get_pixel(px, py).0);
                if (0..3).any(|c| p[c].abs_diff(q[c]) > 24) {
                    changed += 1;
                }
                if p[0] > 180 && p[1] > 130 && p[2] < 110 {
                    amber += 1;
                }
            }
        }
        (changed, amber)
    };
    *harness.state_mut() = Some(false);
    harness.run();
    let selected = harness.render().expect("a rendered frame");
    let (changed, amber) = look(&selected, heads[2]);
    assert!(
        changed > 150 && amber > 5,
        "the neck's name: {changed} changed, {amber} amber"
    );
    for (i, &head) in heads.iter().enumerate().take(2) {
        assert_eq!(look(&selected, head).0, 0, "bone {i}'s name drawn");
    }
    *harness.state_mut() = Some(true);
    harness.run();
    let every = harness.render().expect("a rendered frame");
    for (i, &head) in heads.iter().enumerate() {
        let (changed, amber) = look(&every, head);
        assert!(changed > 150, "bone {i}'s name: {changed} changed");
        assert_eq!(amber > 5, i == 2, "bone {i}: {amber} amber pixels");
    }
}

#[test]
fn a_measurement_is_drawn_between_its_points_with_its_length() {
    // Under the identity projection world x and y are the view's normalised
    // coordinates: (-0.5, 0) and (0.5, 0) land at (50, 50) and (150, 50)
    // of a 200 x 100 view. The line runs between them in the tape's orange
    // (255, 120, 40), its length on a dark plate at the middle.
    let measure = facet::ui::measure::Measure {
        points: vec![
            glam::Vec3::new(-0.5, 0.0, 0.0),
            glam::Vec3::new(0.5, 0.0, 0.0),
        ],
    };
    let (w, h) = (200.0, 100.0);
    let img = overlay(w, h, |ui, rect| {
        facet::ui::measure::draw(ui, &measure, None, glam::Mat4::IDENTITY, rect);
    });
    let ppp = img.width() as f32 / w;
    let px = |x: f32, y: f32| img.get_pixel((x * ppp) as u32, (y * ppp) as u32).0;
    let orange = |p: [u8; 4]| p[0] > 200 && (90..150).contains(&p[1]) && p[2] < 90;
    for (x, y) in [(50.0, 50.0), (66.0, 50.0), (134.0, 50.0), (150.0, 50.0)] {
        assert!(orange(px(x, y)), "({x}, {y}): {:?}", px(x, y));
    }
    // Off the line, the background; at the middle, the plate (dark, or
    // its white text).
    assert_eq!(px(100.0, 20.0)[..3], [120, 120, 120]);
    assert!(!orange(px(100.0, 50.0)), "{:?}", px(100.0, 50.0));
}

#[test]
fn the_axes_in_the_corner_point_where_the_camera_sees_the_scene_axes() {
    // The axes drawn over black from the front (X right, Y up: worked out
    // by hand in `ui::axes`' unit test) and from the right (Z left): each
    // positive axis' disc is found by its colour, where its tip should be.
    use facet::gpu::camera::{AxisView, OrbitCamera};
    use facet::ui::axes;
    let (w, h) = (300.0, 200.0);
    let view_of = |v: AxisView| {
        let mut c = OrbitCamera::default();
        c.set_view(v);
        c.view()
    };
    let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(w, h));
    let mut harness = Harness::builder()
        .with_size(egui::vec2(w, h))
        .build_ui_state(
            |ui, view: &mut glam::Mat4| {
                ui.painter().rect_filled(rect, 0.0, egui::Color32::BLACK);
                axes::draw(ui, *view, rect);
            },
            view_of(AxisView::Front),
        );
    // The centre of the pixels within 40 of `color`, in points.
    let centroid = |img: &image::RgbaImage, color: egui::Color32| {
        let ppp = img.width() as f32 / w;
        let (mut sum, mut n) = (egui::Vec2::ZERO, 0.0);
        for (x, y, p) in img.enumerate_pixels() {
            if (0..3).all(|c| p.0[c].abs_diff(color.to_array()[c]) <= 40) {
                sum += egui::vec2(x as f32 + 0.5, y as f32 + 0.5) / ppp;
                n += 1.0;
            }
        }
        assert!(n > 20.0, "no pixels of {color:?}");
        egui::pos2(sum.x / n, sum.y / n)
    };
    let c = axes::centre(rect);
    let r = axes::RADIUS;
    harness.run();
    let front = harness.render().expect("a rendered frame");
    // X: its disc at the right end; the line from the centre pulls the
    // centroid of its colour inwards, so compare the direction and a
    // distance between half the radius and the radius.
    for (axis, dir) in [(0, egui::vec2(1.0, 0.0)), (1, egui::vec2(0.0, -1.0))] {
        let at = centroid(&front, axes::COLORS[axis]) - c;
        assert!(
            at.normalized().dot(dir) > 0.99 && at.length() > 0.5 * r && at.length() <= r,
            "front view: axis {axis} centred at {at:?} from the centre"
        );
    }
    *harness.state_mut() = view_of(AxisView::Right);
    harness.run();
    let right = harness.render().expect("a rendered frame");
    let at = centroid(&right, axes::COLORS[2]) - c;
    assert!(
        at.normalized().dot(egui::vec2(-1.0, 0.0)) > 0.99 && at.length() > 0.5 * r,
        "right view: Z centred at {at:?} from the centre"
    );
}

#[test]
fn a_click_on_an_end_of_the_axes_looks_from_that_side() {
    // From the front (+X right, +Y up, -X left, +Z and -Z both at the
    // centre): a click on each end asks for the view from its side, and at
    // the centre the nearer end, +Z, takes the click.
    use facet::gpu::camera::{AxisView, OrbitCamera};
    use facet::ui::axes;
    let (w, h) = (300.0, 200.0);
    let mut camera = OrbitCamera::default();
    camera.set_view(AxisView::Front);
    let view = camera.view();
    let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(w, h));
    let mut harness = Harness::builder()
        .with_size(egui::vec2(w, h))
        .build_ui_state(
            |ui, asked: &mut Vec<AxisView>| {
                asked.extend(axes::draw(ui, view, rect));
            },
            Vec::new(),
        );
    harness.run();
    let (c, r) = (axes::centre(rect), axes::RADIUS);
    for (at, want) in [
        (c + egui::vec2(r, 0.0), AxisView::Right),
        (c + egui::vec2(0.0, -r), AxisView::Top),
        (c + egui::vec2(-r, 0.0), AxisView::Left),
        (c + egui::vec2(0.0, r), AxisView::Bottom),
        (c, AxisView::Front),
    ] {
        harness.state_mut().clear();
        harness.drag_at(at);
        harness.run();
        harness.drop_at(at);
        harness.run();
        assert_eq!(harness.state(), &[want], "a click at {at:?}");
    }
}

/// The system fonts for what egui's bundled fonts lack, as the window has
/// them; kittest panics on a character no font draws. The CJK font the
/// tests need is one scripts/test installs (fonts-wqy-microhei).
fn system_fonts(ctx: &egui::Context) {
    let cjk = std::process::Command::new("fc-list")
        .arg(":lang=zh")
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty());
    assert!(
        cjk,
        "these tests need a font with Chinese characters found by fontconfig (scripts/test installs fonts-wqy-microhei)"
    );
    ctx.add_font_provider(std::sync::Arc::new(
        egui_system_font_provider::SystemFontProvider::new(),
    ));
}

#[test]
fn names_in_any_script_are_drawn_with_the_system_fonts() {
    // transport.papa (a shared fixture, made by others) names its mesh and
    // material "平面" ("plane"), which egui's bundled fonts cannot draw:
    // kittest panics on a character no font has, so the frame rendering at
    // all is the evidence that the system's fonts drew it, and the text is
    // in the inspector as read.
    let path = common::shared().join("fixtures/papa/transport.papa");
    let scene = facet::load::load_file(&path).unwrap().scene;
    assert!(scene.meshes.iter().any(|m| m.name.contains("平面")));
    let pose = facet::anim::Pose::new(&scene.skeleton);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(480.0, 1600.0))
        .with_context_setup(system_fonts)
        .build_ui_state(
            |ui, state: &mut UiState| inspector(ui, &scene, state, Some(&pose)),
            UiState::for_scene(&scene),
        );
    harness.run();
    let image = harness.render().expect("a rendered frame");
    assert!(image.width() > 0);
    // The part's row and its material's header, at least.
    assert!(harness.get_all_by_label_contains("平面").count() >= 2);
}

#[test]
fn the_inspector_stays_inside_its_panel_for_every_shared_file() {
    // Text that could not wrap (a material's note in a grid cell, laid out
    // on one line) made the inspector 811-879 points wide for the PA units,
    // past the panel's largest width, and egui then drew the panel's edge
    // across the content (bot_sun.papa in the README's screenshots). Every
    // fixture made by others and every bundled demo, opened as the window
    // opens it, in the panel's opening width: what the inspector takes
    // must stay within the widest the panel grows (wider tables and grids
    // only widen the panel).
    use facet::ui::{INSPECTOR_MAX_WIDTH, INSPECTOR_WIDTH};
    let mut files: Vec<std::path::PathBuf> = ["m3d", "papa", "ptf"]
        .iter()
        .flat_map(|d| std::fs::read_dir(common::shared().join("fixtures").join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| ["m3d", "a3d", "papa", "ptf"].contains(&&*e.to_string_lossy()))
        })
        .chain(["demo.p3m", "demo.m3d", "demo.pmf"].map(|f| common::repo().join("assets").join(f)))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "{files:?}");
    let mut wide = Vec::new();
    for path in &files {
        let scene = facet::load::load_file(path).unwrap().scene;
        let pose = facet::anim::Pose::new(&scene.skeleton);
        // A click's vertex shown too: the first corner of the first
        // triangle of the first part that has one.
        let mut state = UiState::for_scene(&scene);
        state.picked_vertex = scene
            .meshes
            .iter()
            .enumerate()
            .find(|(_, m)| {
                m.primitive == facet::scene::Primitive::Triangles && m.indices.len() >= 3
            })
            .map(|(part, m)| facet::anim::pick::VertexHit {
                part,
                triangle: 0,
                corners: [m.indices[0], m.indices[1], m.indices[2]],
                vertex: m.indices[0],
            });
        let mut harness = Harness::builder()
            .with_size(egui::vec2(INSPECTOR_MAX_WIDTH + 100.0, 4000.0))
            .with_context_setup(system_fonts)
            .build_ui_state(
                |ui, (state, used): &mut (UiState, f32)| {
                    let rect = egui::Rect::from_min_size(
                        ui.max_rect().min,
                        egui::vec2(INSPECTOR_WIDTH, 4000.0),
                    );
                    let r = ui.scope_builder(egui::UiBuilder::new().max_rect(rect), |ui| {
                        inspector(ui, &scene, state, Some(&pose));
                    });
                    *used = r.response.rect.width();
                },
                (state, 0.0),
            );
        harness.run();
        let used = harness.state().1;
        if used > INSPECTOR_MAX_WIDTH {
            wide.push(format!("{}: {used:.0} points", path.display()));
        }
    }
    assert!(
        wide.is_empty(),
        "wider than {INSPECTOR_MAX_WIDTH} points:\n{}",
        wide.join("\n")
    );
}

#[test]
fn the_shading_section_picks_team_colours_and_lists_the_maps_used() {
    let path = common::shared().join("fixtures/papa/bot_sun.papa");
    let scene = facet::load::load_file(&path).unwrap().scene;
    let pose = facet::anim::Pose::new(&scene.skeleton);
    let state = UiState::for_scene(&scene);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(420.0, 1600.0))
        .build_ui_state(
            |ui, state: &mut UiState| {
                inspector(ui, &scene, state, Some(&pose));
            },
            state,
        );
    harness.run();
    // Open by default for a unit with a mask; the maps in use by role; the
    // companion that is missing as a note naming the file tried.
    harness.get_by_label("Textures");
    // Both of the unit's solid materials use the mask.
    assert_eq!(harness.query_all_by_label_contains("team mask").count(), 2);
    assert_eq!(
        harness
            .query_all_by_label_contains("no specular or gloss: bot_sun_material.papa")
            .count(),
        2
    );
    harness.get_by_label_contains("#007CFF");
    harness.get_by_label("Legion").click();
    harness.run();
    assert_eq!(
        harness.state().view.team_colors,
        facet::gpu::TeamColors::PRESETS[1].1
    );
    harness.get_by_label_contains("#FF0000");
    harness.get_by_label("mask").click();
    harness.run();
    assert_eq!(harness.state().view.channel, facet::gpu::Channel::Mask);
    harness.get_by_label("Textures").click();
    harness.run();
    assert!(!harness.state().view.textures);
}

#[test]
fn a_texture_s_save_button_asks_for_it() {
    // Tall enough for the demo's textures to be in the view (a click
    // outside the harness does nothing).
    let scene = demo();
    let mut harness = scrolled_inspector(&scene, 3000.0);
    if harness.query_all_by_label("save").next().is_none() {
        harness.get_by_label_contains("Textures (").click();
        harness.run();
    }
    harness.get_all_by_label("save").nth(1).unwrap().click();
    harness.run();
    assert_eq!(harness.state().actions, [UiAction::SaveTexture(1)]);
}

#[test]
fn the_shading_section_shows_and_resets_the_light_s_turn() {
    let scene = demo();
    let mut state = UiState::for_scene(&scene);
    state.view.light_turn = facet::gpu::LightTurn::parse("30,-10").unwrap();
    let mut harness = inspector_with(&scene, state, None);
    harness.run();
    harness.get_by_label("Shading").click();
    harness.run();
    harness.get_by_value("turn 30°");
    harness.get_by_value("raise -10°");
    harness.get_by_label("reset").click();
    harness.run();
    assert_eq!(
        harness.state().view.light_turn,
        facet::gpu::LightTurn::default()
    );
    // Flat lighting has no key light: the row is there, disabled.
    harness.state_mut().view.lighting = facet::gpu::Lighting::Flat;
    harness.state_mut().view.light_turn = facet::gpu::LightTurn::parse("30,0").unwrap();
    harness.run();
    assert!(harness.get_by_label("reset").accesskit_node().is_disabled());
}

#[test]
fn the_selected_bone_s_axes_start_at_its_posed_head() {
    // A bone 0.9 long from the origin, its frame the identity: its axes
    // are drawn 0.3 long. The projection keeps x and y as the view's
    // normalised coordinates and sends z down-right, half a unit each way
    // a unit, so all three show: in a 200 x 200 view the ends of X, Y and Z
    // land at (130, 100), (100, 70) and (115, 115).
    let mut scene = facet::scene::Scene::default();
    scene.skeleton.bones = vec![facet::scene::Bone {
        name: "arm".into(),
        parent: None,
        head: glam::Vec3::ZERO,
        tail: glam::Vec3::new(0.0, 0.9, 0.0),
        rest: glam::Mat4::IDENTITY,
    }];
    let reach = facet::ui::axes::bone_reach(&scene, 0, 5.0);
    assert!((reach - 0.3).abs() < 1e-6, "{reach}");
    let view_proj = glam::Mat4::from_cols(
        glam::Vec4::X,
        glam::Vec4::Y,
        glam::Vec4::new(0.5, -0.5, 0.0, 0.0),
        glam::Vec4::W,
    );
    let (w, h) = (200.0, 200.0);
    let render = |pose: Option<&facet::anim::Pose>| {
        overlay(w, h, |ui, rect| {
            facet::ui::axes::of_bone(ui, &scene, pose, 0, reach, view_proj, rect);
        })
    };
    let red = |p: [u8; 4]| p[0] > 200 && p[1] < 110;
    let green = |p: [u8; 4]| p[1] > 170 && p[2] < 90;
    let blue = |p: [u8; 4]| p[2] > 200 && p[0] < 110;
    let img = render(None);
    let ppp = img.width() as f32 / w;
    let px = |img: &image::RgbaImage, x: f32, y: f32| {
        img.get_pixel((x * ppp) as u32, (y * ppp) as u32).0
    };
    // At rest: each axis' middle in its colour, off them the background.
    assert!(red(px(&img, 115.0, 100.0)), "{:?}", px(&img, 115.0, 100.0));
    assert!(green(px(&img, 100.0, 85.0)), "{:?}", px(&img, 100.0, 85.0));
    assert!(blue(px(&img, 107.5, 107.5)), "{:?}", px(&img, 107.5, 107.5));
    assert_eq!(px(&img, 80.0, 100.0)[..3], [120, 120, 120]);
    // Posed: turned a quarter about z and moved to (0.5, 0, 0), X points
    // up from (150, 100) and Y left: their middles at (150, 85) and
    // (135, 100); the rest place is bare.
    let mut pose = facet::anim::Pose::new(&scene.skeleton);
    pose.world[0] = glam::Mat4::from_rotation_translation(
        glam::Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        glam::Vec3::new(0.5, 0.0, 0.0),
    );
    let img = render(Some(&pose));
    assert!(red(px(&img, 150.0, 85.0)), "{:?}", px(&img, 150.0, 85.0));
    assert!(
        green(px(&img, 135.0, 100.0)),
        "{:?}",
        px(&img, 135.0, 100.0)
    );
    assert_eq!(px(&img, 115.0, 100.0)[..3], [120, 120, 120]);
    // A bone with no length takes the fallback.
    scene.skeleton.bones[0].tail = glam::Vec3::ZERO;
    assert_eq!(facet::ui::axes::bone_reach(&scene, 0, 5.0), 5.0);
}
