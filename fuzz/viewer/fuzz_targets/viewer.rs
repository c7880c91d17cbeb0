#![no_main]
// What the viewer and the CLI do with a file they are given, under
// libFuzzer: load it (decode, companions none, scene), run the viewer's
// frame (pose, parts shown, material overrides) for every clip at its
// start, 0.3 and the whole of its duration and past its end, the `info
// --json` report, its bounds, and for inputs under 200 KB the glTF export.
// FUZZ_NAME names the input (its extension picks the format the way the
// viewer picks it); scripts/fuzz-viewer sets it per format.
use std::sync::OnceLock;

static NAME: OnceLock<String> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let name = NAME.get_or_init(|| std::env::var("FUZZ_NAME").unwrap_or_else(|_| "input".into()));
    let Ok(loaded) = facet::load::load_bytes(name, data, None) else {
        return;
    };
    let scene = &loaded.scene;
    let mut animator = facet::anim::Animator::new(scene);
    let base: Vec<bool> = scene.meshes.iter().map(|m| m.visible).collect();
    for (c, clip) in scene.clips.iter().enumerate() {
        let d = clip.duration_s;
        for t in [0.0, 0.3 * d, d, 1.5 * d] {
            animator.update(scene, Some(c), t, &base);
        }
    }
    animator.update(scene, None, 0.0, &base);
    let json = facet::cli::info::to_json(&loaded);
    std::hint::black_box(serde_json::to_string(&json).unwrap());
    std::hint::black_box(scene.bounds(None));
    if data.len() < 200_000 {
        let _ = std::hint::black_box(facet::export::gltf::export(scene));
    }
});
