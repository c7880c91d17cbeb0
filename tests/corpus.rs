//! Regression corpus of the fuzz targets (fuzz/, which fuzz the decoders):
//! every file under tests/corpus/<format>/ runs the fuzz target's own body
//! (`facet_formats::fuzz::<format>`: decode, and for PMF one thread against
//! four), then what the viewer does with a file it is given: decode,
//! convert to a scene, and run the viewer's frame (pose, parts shown,
//! material overrides) for every clip at its start, middle and end, with
//! clicks on it (picking a part, its vertex, whose panels are drawn, and a
//! bone).
//! None may panic; inputs may decode; what fails is an error naming its
//! file. `scripts/fuzz` copies what the fuzzer finds here. (The mutation
//! sweep, tests/mutation_sweep.rs, also holds each of them to its heap
//! bound.)

/// Runs `body` and then loads each corpus file of `dir` as the viewer
/// would (no companions on disk).
fn each(dir: &str, body: fn(&[u8])) {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(dir);
    let mut seen = 0;
    for e in std::fs::read_dir(&d).unwrap() {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        std::panic::catch_unwind(|| body(&bytes))
            .unwrap_or_else(|_| panic!("{}: the fuzz body panicked", p.display()));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let l = facet::load::load_bytes(&name, &bytes, None)?;
            let s = &l.scene;
            // The viewer's frame: pose, parts shown, material overrides.
            let mut animator = facet::anim::Animator::new(s);
            let base: Vec<bool> = s.meshes.iter().map(|m| m.visible).collect();
            clicks(s, &animator);
            for (c, clip) in s.clips.iter().enumerate() {
                for t in [0.0, 0.5, 1.0] {
                    animator.update(s, Some(c), clip.duration_s * t, &base);
                    clicks(s, &animator);
                }
            }
            Ok::<_, facet::load::LoadError>(())
        }))
        .unwrap_or_else(|_| panic!("{} panicked", p.display()));
        if let Err(e) = r {
            let msg = e.to_string();
            assert!(msg.starts_with(&name), "{}: {msg}", p.display());
        }
        seen += 1;
    }
    assert!(seen > 0, "no corpus files in {}", d.display());
}

/// Clicks in the window on the scene as `animator` poses it: rays at the
/// scene's box from its six sides (a part hit must be one of the scene's,
/// in the ray's span, and the texel it reads within its texture), and a
/// bone under the middle of a view looking at it.
fn clicks(s: &facet::scene::Scene, animator: &facet::anim::Animator) {
    use facet::anim::pick::{pick_bone, pick_part};
    use glam::{Mat4, Vec2, Vec3};
    let b = s.bounds(None);
    let (centre, size) = if b.is_empty() {
        (Vec3::ZERO, 1.0)
    } else {
        ((b.min + b.max) * 0.5, (b.max - b.min).length().max(1e-3))
    };
    for d in [
        Vec3::X,
        Vec3::NEG_X,
        Vec3::Y,
        Vec3::NEG_Y,
        Vec3::Z,
        Vec3::NEG_Z,
    ] {
        let (origin, dir) = (centre - 2.0 * size * d, 4.0 * size * d);
        if let Some(h) = pick_part(s, &animator.pose, &animator.visible, origin, dir) {
            assert!(h.part < s.meshes.len(), "{h:?}");
            assert!((0.0..=1.0).contains(&h.distance), "{h:?}");
            // What the click reads there: a texel within its texture.
            if let Some(t) = facet::anim::pick::Probe::of_hit(s, &h).and_then(|p| p.texel) {
                assert!(t.x < t.size.0 && t.y < t.size.1, "{t:?}");
            }
            // The vertex it finds: a corner of the triangle hit, placed
            // by the pose; its inspector section and its marker drawn.
            if let Some(v) = facet::anim::pick::VertexHit::of_hit(s, &animator.pose, &h) {
                assert_eq!((v.part, v.triangle), (h.part, h.triangle), "{v:?}");
                assert!(v.corners.contains(&v.vertex), "{v:?}");
                assert!(
                    facet::anim::pick::posed_vertex(s, &animator.pose, v.part, v.vertex).is_some()
                );
                draw_vertex(s, animator, v);
            }
        }
    }
    let eye = centre + Vec3::new(0.3, 0.4, 2.0) * size;
    let view_proj = Mat4::perspective_rh(0.8, 1.5, 1e-3 * size, 1e3 * size)
        * Mat4::look_at_rh(eye, centre, Vec3::Y);
    if let Some(bone) = pick_bone(
        s,
        &animator.pose,
        view_proj,
        Vec2::new(768.0, 512.0),
        Vec2::ZERO,
        5.0,
    ) {
        assert!(bone < s.skeleton.bones.len());
    }
}

/// One frame of the window's panels for a clicked vertex: the inspector
/// (its Vertex section) and the marker over the view, with the vertex's
/// first bone selected (its axes drawn from its head).
fn draw_vertex(
    s: &facet::scene::Scene,
    animator: &facet::anim::Animator,
    v: facet::anim::pick::VertexHit,
) {
    let mut state = facet::ui::UiState::for_scene(s);
    state.picked_vertex = Some(v);
    state.view.skeleton = true;
    state.selected_bone = s.meshes[v.part]
        .skin
        .as_ref()
        .and_then(|skin| skin.joints.get(v.vertex as usize))
        .map(|j| j[0] as usize);
    state.view_proj = glam::Mat4::perspective_rh(0.8, 1.5, 0.01, 100.0)
        * glam::Mat4::look_at_rh(
            glam::Vec3::new(0.0, 1.0, 3.0),
            glam::Vec3::ZERO,
            glam::Vec3::Y,
        );
    let ctx = egui::Context::default();
    let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
        let _ = facet::ui::show(ui, s, &mut state, Some(&animator.pose));
    });
    // No renderer here to take the font atlas.
    out.textures_delta.clear();
}

#[test]
fn p3m_corpus() {
    each("p3m", facet::formats::fuzz::p3m);
}

#[test]
fn ptf_corpus() {
    each("ptf", facet::formats::fuzz::ptf);
}

#[test]
fn m3d_corpus() {
    each("m3d", facet::formats::fuzz::m3d);
}

#[test]
fn papa_corpus() {
    each("papa", facet::formats::fuzz::papa);
}

#[test]
fn pmf_corpus() {
    each("pmf", facet::formats::fuzz::pmf);
}

/// glTF has no decoder in facet-formats (the `gltf` crate reads its
/// structure); its inputs only load.
#[test]
fn gltf_corpus() {
    each("gltf", |_| {});
}
