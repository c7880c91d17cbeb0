//! CPU reference of animation against hand-computed poses, on writer-built
//! P3M files; timeline logic. No GPU.

mod common;
use common::arm;
use facet::anim::timeline::Timeline;
use facet::anim::{Animator, Pose, sample, skin_vertices};
use facet::formats::p3m::*;
use facet::scene::clip::{Interp as CInterp, Key as CKey, Track};
use glam::Vec3;

fn scene() -> facet::scene::Scene {
    let bytes = facet::formats::p3m_write::encode(&arm()).unwrap();
    facet::load::load_bytes("arm.p3m", &bytes, None)
        .unwrap()
        .scene
}

/// Posed positions of the arm at `t` seconds of clip `clip`.
fn posed(scene: &facet::scene::Scene, clip: usize, t: f32) -> Vec<Vec3> {
    let mut pose = Pose::new(&scene.skeleton);
    pose.evaluate(&scene.skeleton, Some(&scene.clips[clip]), t);
    let m = &scene.meshes[0];
    let mut p = vec![Vec3::ZERO; m.positions.len()];
    let mut n = vec![Vec3::ZERO; m.positions.len()];
    skin_vertices(
        &pose.skin,
        m.skin.as_ref().unwrap(),
        &m.positions,
        &m.normals,
        &mut p,
        &mut n,
    );
    p
}

fn close(a: Vec3, b: Vec3) {
    assert!((a - b).length() < 1e-5, "{a} != {b}");
}

#[test]
fn fore_arm_at_90_degrees_matches_hand_computed_positions() {
    let s = scene();
    // Frame 10 at 0.1 s per frame. Rotating +90° about local X (scene X for a
    // bone along +Y) takes +Y to +Z around the elbow at (0, 1, 0).
    let p = posed(&s, 0, 1.0);
    close(p[0], Vec3::new(0.0, 0.5, 0.0));
    close(p[1], Vec3::new(0.0, 1.0, 0.5));
    close(p[2], Vec3::new(0.0, 1.0, 1.0));
    // Equal bytes split 32768/65535 (upper, at rest) and 32767/65535 (fore:
    // 65535/2 = 32767.5 each, the one spare unit to the first): the vertex
    // at scene (0, 1, -0.5) blends itself with its fore-posed image (0, 1.5, 0).
    let (wu, wf) = (32768.0 / 65535.0, 32767.0 / 65535.0);
    close(
        p[3],
        Vec3::new(0.0, 1.0, -0.5) * wu + Vec3::new(0.0, 1.5, 0.0) * wf,
    );
    // The rest pose at t = 0.
    close(posed(&s, 0, 0.0)[2], Vec3::new(0.0, 2.0, 0.0));
}

#[test]
fn linear_interpolation_halfway_is_exact() {
    let s = scene();
    let p = posed(&s, 0, 0.5); // frame 5 of 10: 45°
    let h = std::f32::consts::FRAC_1_SQRT_2;
    close(p[2], Vec3::new(0.0, 1.0 + h, h));
    close(p[1], Vec3::new(0.0, 1.0 + 0.5 * h, 0.5 * h));
}

#[test]
fn none_interpolation_holds_until_the_key() {
    let s = scene();
    // "snap" plays at speed 2: 0.05 s per frame, key at frame 10 = 0.5 s.
    close(posed(&s, 1, 0.499)[2], Vec3::new(0.0, 2.0, 0.0));
    close(posed(&s, 1, 0.5)[2], Vec3::new(0.0, 1.0, 1.0));
    close(posed(&s, 1, 0.9)[2], Vec3::new(0.0, 1.0, 1.0));
    assert_eq!(s.clips[1].duration_s, 1.0);
    assert_eq!(s.clips[1].frames, 20);
}

#[test]
fn weights_are_quantised_to_exact_sums() {
    let s = scene();
    let skin = s.meshes[0].skin.as_ref().unwrap();
    // Units of 1/65535 that sum to exactly one.
    for w in &skin.weights {
        let sum: u32 = w.iter().map(|&x| x as u32).sum();
        assert_eq!(sum, 65535, "{w:?}");
    }
    assert_eq!(skin.weights[3], [32768, 32767, 0, 0]);
}

#[test]
fn rest_frames_follow_blender() {
    let s = scene();
    // A bone along +Y in scene space is Blender's +Z: its X axis stays X.
    let b = &s.skeleton.bones[1];
    close(b.rest.x_axis.truncate(), Vec3::X);
    close(b.rest.y_axis.truncate(), Vec3::Y);
    close(b.rest.z_axis.truncate(), Vec3::Z);
    close(b.rest.w_axis.truncate(), Vec3::new(0.0, 1.0, 0.0));
    // Degenerate and downward bones still give orthonormal frames.
    for (h, t) in [
        (Vec3::ZERO, -Vec3::Y),
        (Vec3::ZERO, Vec3::new(0.0, 0.0, -1.0)),
        (Vec3::ONE, Vec3::ONE),
    ] {
        let m = facet::scene::from_p3m::rest_frame(h, t);
        let r = glam::Mat3::from_mat4(m);
        assert!(
            (r * r.transpose() - glam::Mat3::IDENTITY).abs_diff_eq(glam::Mat3::ZERO, 1e-5),
            "{h} -> {t}"
        );
    }
}

#[test]
fn track_sampling_rules() {
    let k = |time, v: f32, interp| CKey {
        time,
        value: Vec3::splat(v),
        interp,
    };
    let t = Track {
        keys: vec![
            k(1.0, 1.0, CInterp::Linear),
            k(2.0, 3.0, CInterp::Linear),
            k(3.0, 5.0, CInterp::Step),
        ],
    };
    assert_eq!(sample(&t, 0.0), Some(Vec3::splat(1.0)));
    assert_eq!(sample(&t, 1.5), Some(Vec3::splat(2.0)));
    assert_eq!(sample(&t, 2.9), Some(Vec3::splat(3.0)));
    assert_eq!(sample(&t, 3.0), Some(Vec3::splat(5.0)));
    assert_eq!(sample(&t, 9.0), Some(Vec3::splat(5.0)));
    assert_eq!(sample(&Track::<Vec3>::default(), 1.0), None);
}

#[test]
fn timeline_time_frames_loop_speed_step() {
    let s = scene();
    let clip = &s.clips[0]; // 20 frames, 2 s
    let mut tl = Timeline::default();
    tl.select(Some(0), &s);
    assert!(tl.playing);
    tl.advance(0.55, clip);
    assert_eq!(tl.frame(clip), 5);
    tl.speed = 2.0;
    tl.advance(0.5, clip);
    assert!((tl.time - 1.55).abs() < 1e-6);
    tl.advance(0.5, clip); // wraps
    assert!((tl.time - 0.55).abs() < 1e-5, "{}", tl.time);
    tl.looping = false;
    tl.advance(5.0, clip);
    assert_eq!((tl.time, tl.playing), (2.0, false));
    assert_eq!(tl.frame(clip), 20);
    tl.step(-1, clip);
    assert_eq!(tl.frame(clip), 19);
    assert!((tl.time - 1.9).abs() < 1e-5);
    tl.step(1, clip);
    tl.step(1, clip); // clamps at the end without looping
    assert_eq!(tl.frame(clip), 20);
    tl.looping = true;
    tl.step(1, clip); // wraps to 0
    assert_eq!(tl.frame(clip), 0);
    tl.step(-1, clip);
    assert_eq!(tl.frame(clip), 20);
    tl.seek(-3.0, clip);
    assert_eq!(tl.time, 0.0);
    tl.speed = -1.0;
    tl.playing = true;
    tl.advance(0.25, clip);
    assert!((tl.time - 1.75).abs() < 1e-5);
    assert_eq!(clip.time_of_frame(7), 0.7);
}

#[test]
fn a_range_of_the_clip_plays_and_steps_alone() {
    let s = scene();
    let clip = &s.clips[0]; // 20 frames, 2 s: frame f at f / 10 s
    let mut tl = Timeline::default();
    tl.select(Some(0), &s);
    // [ at 0.5 s: from there to the end; ] at 1.2 s: to there.
    tl.seek(0.5, clip);
    tl.set_range_start(clip);
    assert_eq!(tl.range, Some((0.5, 2.0)));
    tl.seek(1.2, clip);
    tl.set_range_end();
    assert_eq!(tl.range, Some((0.5, 1.2)));
    assert_eq!(tl.bounds(clip), (0.5, 1.2));
    // Home and End go to its ends; playing wraps within it: 0.5 + 0.6 =
    // 1.1, then 1.4 is 0.2 past the start of a 0.7 s range.
    tl.to_end(clip);
    assert_eq!((tl.time, tl.playing), (1.2, false));
    tl.to_start(clip);
    assert_eq!(tl.time, 0.5);
    tl.playing = true;
    tl.advance(0.6, clip);
    assert!((tl.time - 1.1).abs() < 1e-5, "{}", tl.time);
    tl.advance(0.3, clip);
    assert!((tl.time - 0.7).abs() < 1e-5, "{}", tl.time);
    // Steps run over its whole frames, 5 to 12: six on from 7 wraps to 5,
    // one back from 5 to 12.
    tl.step(6, clip);
    assert_eq!(tl.frame(clip), 5);
    tl.step(-1, clip);
    assert_eq!(tl.frame(clip), 12);
    // Without looping, playing stops at its end.
    tl.looping = false;
    tl.to_start(clip);
    tl.playing = true;
    tl.advance(5.0, clip);
    assert_eq!((tl.time, tl.playing), (1.2, false));
    // ] before its start: from the clip's start; [ at the clip's end: no
    // range left; another clip: none.
    tl.seek(0.3, clip);
    tl.set_range_end();
    assert_eq!(tl.range, Some((0.0, 0.3)));
    tl.seek(2.0, clip);
    tl.set_range_start(clip);
    assert_eq!(tl.range, None);
    tl.seek(1.0, clip);
    tl.set_range_start(clip);
    tl.select(Some(0), &s);
    assert_eq!((tl.range, tl.time), (None, 0.0));
}

#[test]
fn part_lists_and_material_overrides_follow_the_clip() {
    let mut m = arm();
    let base = m.parts[0].clone();
    m.parts.push(Part {
        name: "shield".into(),
        visible: false,
        ..base.clone()
    });
    m.parts.push(Part {
        name: "sword".into(),
        visible: true,
        ..base
    });
    m.actions[0].part_list_mode = PartListMode::DefaultWhite;
    m.actions[0].parts = vec!["shield".into()];
    m.actions[1].part_list_mode = PartListMode::White;
    m.actions[1].parts = vec!["sword".into()];
    m.materials.push(m.materials[0].clone());
    m.materials.push(m.materials[0].clone());
    m.parts[2].material_overrides = vec![
        MaterialOverride {
            animation: "bend".into(),
            priority: 1,
            material: 1,
        },
        MaterialOverride {
            animation: "bend".into(),
            priority: 5,
            material: 2,
        },
        MaterialOverride {
            animation: "snap".into(),
            priority: 5,
            material: 1,
        },
        MaterialOverride {
            animation: "snap".into(),
            priority: 5,
            material: 2,
        },
    ];
    let bytes = facet::formats::p3m_write::encode(&m).unwrap();
    let s = facet::load::load_bytes("arm.p3m", &bytes, None)
        .unwrap()
        .scene;
    let base = [true, false, true];
    let mut a = Animator::new(&s);
    a.update(&s, Some(0), 0.3, &base);
    assert_eq!(
        a.visible,
        vec![true, true, true],
        "DEFAULTWHITE adds the listed part to the base"
    );
    assert_eq!(
        a.materials,
        vec![None, None, Some(2)],
        "highest priority wins"
    );
    a.update(&s, Some(1), 0.3, &base);
    assert_eq!(
        a.visible,
        vec![false, false, true],
        "WHITE shows only the listed part"
    );
    assert_eq!(
        a.materials,
        vec![None, None, Some(1)],
        "ties go to the first listed"
    );
    a.update(&s, None, 0.3, &base);
    assert_eq!(a.visible, base.to_vec());
    assert_eq!(a.materials, vec![None, None, None]);
}

#[test]
fn timeline_runs_animated_materials_without_a_clip() {
    use facet::anim::timeline::{MaterialSpan, Span, TimeSpan};
    use facet::scene::MaterialAnim;
    use facet::scene::material_anim::MatLoop;
    let mut s = scene();
    // Nothing animates without a clip yet.
    let mut tl = Timeline::for_scene(&s);
    assert!(!tl.playing);
    tl.select(None, &s);
    assert!(!tl.playing && tl.span(&s).is_none());
    // Hold: 10 frames of 0.1 s shows 1.0 s; Continue: two 6-frame cycles of
    // 0.05 s (0.6 s). The span is the longer, stepped by the shorter frame.
    for animation in [
        MaterialAnim::new(0.1, 9, MatLoop::Hold),
        MaterialAnim::new(0.05, 5, MatLoop::Continue),
    ] {
        s.materials.push(facet::scene::Material {
            animation: Some(animation),
            ..Default::default()
        });
    }
    let span = MaterialSpan::of(&s).unwrap();
    assert_eq!(span.duration_s, 1.0);
    assert_eq!(span.frame_s, 0.05);
    assert_eq!(span.frames(), 20);
    let mut tl = Timeline::for_scene(&s);
    assert!(tl.playing, "animated materials play on open");
    let span = tl.span(&s).unwrap();
    assert!(matches!(span, TimeSpan::Materials(_)));
    tl.advance(1.25, &span); // loops at 1 s
    assert!((tl.time - 0.25).abs() < 1e-6);
    assert_eq!(tl.frame(&span), 5);
    tl.step(1, &span);
    assert!((tl.time - 0.3).abs() < 1e-6 && !tl.playing);
    // Choosing a clip runs the clip's span; the materials follow its time.
    tl.select(Some(0), &s);
    assert!(matches!(tl.span(&s), Some(TimeSpan::Clip(_))));
}

/// Without a clip the skeleton is at rest, and skinning maps rest space
/// onto itself: every skinning matrix is exactly the identity, not
/// `world * rest^-1` with its rounding (which the GPU would then skin
/// again each frame), and a bone whose rest matrix has no inverse does not
/// turn the rest pose into NaNs. The bones' model-space frames are still
/// their rest frames, for the skeleton overlay.
#[test]
fn the_rest_pose_skins_with_exact_identities() {
    use facet::scene::{Bone, Skeleton};
    use glam::{Mat4, Quat};
    // Rotations and scales whose products round: 0.3 rad about a skew
    // axis, scale 1.7, a child 40 degrees about Z, and a bone squashed
    // flat (scale 0 in Y: no inverse).
    let root = Mat4::from_scale_rotation_translation(
        Vec3::splat(1.7),
        Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.3),
        Vec3::new(0.1, 2.0, -3.3),
    );
    let child = root * Mat4::from_rotation_z(40f32.to_radians()) * Mat4::from_translation(Vec3::Y);
    let flat = child * Mat4::from_scale(Vec3::new(1.0, 0.0, 1.0));
    let bone = |name: &str, parent, rest: Mat4| Bone {
        name: name.into(),
        parent,
        head: rest.w_axis.truncate(),
        tail: rest.transform_point3(Vec3::Y),
        rest,
    };
    let skeleton = Skeleton {
        bones: vec![
            bone("root", None, root),
            bone("child", Some(0), child),
            bone("flat", Some(1), flat),
        ],
        ..Skeleton::default()
    };
    // Near the identity is not enough: the round trip through the inverse
    // really does round for these frames.
    assert_ne!(root * root.inverse(), Mat4::IDENTITY);
    let mut pose = Pose::new(&skeleton);
    for _ in 0..2 {
        assert_eq!(pose.skin, vec![Mat4::IDENTITY; 3]);
        for (i, rest) in [root, child].iter().enumerate() {
            assert!(pose.world[i].abs_diff_eq(*rest, 1e-5), "bone {i}");
        }
        pose.evaluate(&skeleton, None, 0.7);
    }
}
