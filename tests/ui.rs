//! The inspector driven headless with egui_kittest: its content, its part
//! checkboxes, and a snapshot (tests/snapshots/inspector.png; regenerate with
//! `UPDATE_SNAPSHOTS=1 cargo test --test ui`).

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use facet::ui::{UiState, inspector::inspector};

fn demo() -> facet::scene::Scene {
    facet::load::load_bytes("demo.p3m", &facet::demo::demo_bytes(), None)
        .unwrap()
        .scene
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
    for text in [
        "demo.p3m",
        "P3M",
        "base",
        "eye glow",
        "armor (hidden)",
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
    harness.get_by_label("head").click();
    harness.run();
    assert_eq!(
        harness.state().view.visible,
        vec![true, true, false, true, false]
    );
    harness.get_by_label("all").click();
    harness.run();
    assert_eq!(harness.state().view.visible, vec![true; 5]);
    harness.get_by_label("defaults").click();
    harness.run();
    assert_eq!(
        harness.state().view.visible,
        vec![true, true, true, true, false]
    );
    harness.snapshot("inspector");
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

#[test]
fn timeline_panel_plays_steps_and_scrubs() {
    let scene = demo();
    let mut state = UiState::for_scene(&scene);
    state.timeline.select(Some(0));
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
