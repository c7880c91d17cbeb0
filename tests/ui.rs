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
