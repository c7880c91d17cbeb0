//! GPU skinning (shaders/skin.wgsl) against the CPU reference (src/anim).
//!
//! Tolerances: positions within 1e-4 x the model's size ([`model_size`]:
//! the bounding-box diagonal, or the distance of its farthest corner from
//! the origin where that is larger); normals within 2e-3 (the octahedral
//! snorm16 encoding of input and output normals is good to about 1e-4; the
//! rest is float order).
//!
//! The tests that compare with the CPU take their adapter from
//! `FACET_TEST_ADAPTER` where it is set (`common::gpu_under_test`), so that
//! they run on a real GPU too.

mod common;
use common::arm as arm_model;
use facet::anim::{Pose, skin_vertices};
use facet::gpu::skinning::{self, Skinner};
use facet::gpu::{Renderer, capture};
use facet::scene::{self, Bone, Mesh, Scene, Skeleton, Skin};
use glam::{Mat4, Quat, Vec3};

use facet::cli::bench::Rng;

/// Compares every skinned mesh of `scene` posed by `pose` on the GPU and CPU.
fn check_scene(gpu: &facet::gpu::Gpu, scene: &Scene, pose: &Pose, what: &str) -> f32 {
    let renderer = Renderer::new(gpu, capture::CAPTURE_FORMAT, 1);
    let mut gs = facet::gpu::GpuScene::new(gpu, &renderer, scene);
    gs.set_pose(gpu, &renderer, &pose.skin);
    check_stream(gpu, &gs, scene, pose, what)
}

/// As [`check_scene`], on the streams `gs` holds now; returns how far the
/// farthest vertex moved from its rest position.
fn check_stream(
    gpu: &facet::gpu::Gpu,
    gs: &facet::gpu::GpuScene,
    scene: &Scene,
    pose: &Pose,
    what: &str,
) -> f32 {
    let batch = gs.skin.as_ref().expect("scene has skinned meshes");
    let got = common::read_stream(gpu, &batch.dst, batch.vertex_count as usize);
    let size = model_size(scene);
    let tol_p = 1e-4 * size;
    let (mut worst_p, mut worst_n, mut offset) = (0f32, 0f32, 0usize);
    let mut moved = 0f32;
    for m in scene.meshes.iter() {
        let Some(skin) = &m.skin else { continue };
        let n = m.positions.len();
        let mut p = vec![Vec3::ZERO; n];
        let mut nn = vec![Vec3::ZERO; n];
        skin_vertices(&pose.skin, skin, &m.positions, &m.normals, &mut p, &mut nn);
        for i in 0..n {
            let g = got[offset + i];
            worst_p = worst_p.max((Vec3::from(g.position) - p[i]).abs().max_element());
            moved = moved.max((Vec3::from(g.position) - m.positions[i]).length());
            worst_n = worst_n.max((skinning::oct_decode(g.normal) - nn[i]).abs().max_element());
        }
        offset += n;
    }
    eprintln!(
        "{what}: {offset} vertices, max position error {worst_p:e} (allowed {tol_p:e}), max normal error {worst_n:e}"
    );
    assert!(
        worst_p <= tol_p,
        "{what}: position error {worst_p} > {tol_p}"
    );
    assert!(worst_n <= 2e-3, "{what}: normal error {worst_n} > 2e-3");
    moved
}

/// The scale positions are compared at: the bounding box's diagonal, or
/// the distance of its farthest corner from the origin where that is
/// larger. A model of one vertex has no diagonal, and skinning's rounding
/// grows with the distance from the bones' origin: on an NVIDIA H200 a
/// one-vertex batch came out 6e-8 off, where llvmpipe had been exact.
fn model_size(scene: &Scene) -> f32 {
    let b = scene.bounds(None);
    let farthest = b.min.abs().max(b.max.abs()).length();
    (b.max - b.min).length().max(farthest)
}

/// A random skeleton (each bone's parent earlier) and a mesh of `n` vertices
/// with 1 to 4 random influences each.
fn generated(n: usize, bones: usize, seed: u64) -> Scene {
    let mut rng = Rng(seed);
    let bone_list: Vec<Bone> = (0..bones)
        .map(|i| {
            let head = rng.vec(1.0);
            let tail = head + rng.vec(0.5) + Vec3::Y * 0.2;
            Bone {
                name: format!("b{i}"),
                parent: (i > 0).then(|| (rng.next_u64() % i as u64) as usize),
                head,
                tail,
                rest: scene::from_p3m::rest_frame(head, tail),
            }
        })
        .collect();
    let positions: Vec<Vec3> = (0..n).map(|_| rng.vec(1.0)).collect();
    let normals: Vec<Vec3> = (0..n).map(|_| rng.vec(1.0).normalize_or(Vec3::Y)).collect();
    let mut skin = Skin::default();
    for _ in 0..n {
        let k = 1 + (rng.next_u64() % 4) as usize;
        let mut j = [0u16; 4];
        let mut w = [0f32; 4];
        for s in 0..k {
            j[s] = (rng.next_u64() % bones as u64) as u16;
            w[s] = rng.range(0.05, 1.0);
        }
        skin.joints.push(j);
        skin.weights.push(scene::quantize_weights(w));
    }
    let indices = (0..(n / 3 * 3) as u32).collect();
    Scene {
        meshes: vec![Mesh {
            name: "generated".into(),
            uvs: vec![glam::Vec2::ZERO; n],
            positions,
            normals,
            indices,
            material: None,
            visible: true,
            skin: Some(skin),
            ..Default::default()
        }],
        skeleton: Skeleton {
            bones: bone_list,
            tails_from_file: true,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// A random pose: every bone's local transform moved, turned and scaled a bit.
fn random_pose(scene: &Scene, seed: u64) -> Pose {
    let mut rng = Rng(seed);
    let mut pose = Pose::new(&scene.skeleton);
    for i in 0..scene.skeleton.bones.len() {
        let r = Quat::from_euler(
            glam::EulerRot::XYZ,
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
        pose.local[i] = scene.skeleton.rest_local(i)
            * Mat4::from_scale_rotation_translation(
                Vec3::splat(rng.range(0.8, 1.2)),
                r,
                rng.vec(0.2),
            );
    }
    for (i, b) in scene.skeleton.bones.iter().enumerate() {
        pose.world[i] = b
            .parent
            .map_or(pose.local[i], |p| pose.world[p] * pose.local[i]);
        pose.skin[i] = pose.world[i] * b.rest.inverse();
    }
    pose
}

#[test]
fn generated_100k_vertices_64_bones_match_the_cpu() {
    let gpu = common::gpu_under_test();
    let scene = generated(120_000, 64, 7);
    for seed in [1, 2] {
        let moved = check_scene(
            &gpu,
            &scene,
            &random_pose(&scene, seed),
            &format!("generated, pose {seed}"),
        );
        assert!(
            moved > 0.1,
            "the pose moved no vertex: the comparison would prove nothing"
        );
    }
}

/// A frame whose pose did not change skins nothing (the viewer draws
/// continuously, and a paused clip or a model at rest would otherwise be
/// skinned again every frame); a changed pose is skinned, and the stream
/// matches the CPU after each step: rest, posed, the same pose again,
/// another, and back to rest.
#[test]
fn an_unchanged_pose_is_not_skinned_again() {
    let gpu = common::gpu_under_test();
    let scene = generated(3_000, 12, 11);
    let renderer = Renderer::new(&gpu, capture::CAPTURE_FORMAT, 1);
    let mut gs = facet::gpu::GpuScene::new(&gpu, &renderer, &scene);
    // The upload skins the streams once, at rest.
    assert_eq!(gs.skin_passes, 1);
    let rest = Pose::new(&scene.skeleton);
    let (a, b) = (random_pose(&scene, 3), random_pose(&scene, 4));
    let steps = [
        (&rest, 1, "rest, as uploaded"),
        (&rest, 1, "rest again"),
        (&a, 2, "pose a"),
        (&a, 2, "pose a again"),
        (&b, 3, "pose b"),
        (&rest, 4, "back to rest"),
    ];
    for (pose, passes, what) in steps {
        gs.set_pose(&gpu, &renderer, &pose.skin);
        assert_eq!(gs.skin_passes, passes, "{what}");
        let moved = check_stream(&gpu, &gs, &scene, pose, what);
        if std::ptr::eq(pose, &rest) {
            // Weights in 1/65535 sum to 1 within a float's rounding.
            assert!(
                moved < 1e-5,
                "{what}: the rest pose moves nothing ({moved})"
            );
        } else {
            assert!(moved > 0.05, "{what}: the pose moves vertices ({moved})");
        }
    }
}

#[test]
fn partial_workgroups_cover_every_vertex() {
    // Sizes around the workgroup size and a partial last group.
    let gpu = common::gpu_under_test();
    for n in [1, 255, 257, 1000] {
        let scene = generated(n, 3, n as u64);
        check_scene(
            &gpu,
            &scene,
            &random_pose(&scene, 3),
            &format!("{n} vertices"),
        );
    }
}

#[test]
fn animated_files_match_the_cpu_at_several_times() {
    let gpu = common::gpu_under_test();
    let demo = facet::load::load_file(&common::repo().join("assets/demo.p3m"))
        .unwrap()
        .scene;
    let mut pose = Pose::new(&demo.skeleton);
    for t in [0.0, 0.2, 0.5, 0.77, 1.0] {
        pose.evaluate(&demo.skeleton, Some(&demo.clips[0]), t);
        let moved = check_scene(&gpu, &demo, &pose, &format!("demo.p3m nod at {t} s"));
        // The nod peaks at frame 12 (0.5 s) and is back at rest at 0 and 1 s.
        if t == 0.5 {
            assert!(moved > 0.1, "the head did not move at the nod's peak");
        }
    }
    // The writer-built arm of tests/anim.rs, bent.
    let arm = facet::formats::p3m_write::encode(&arm_model()).unwrap();
    let arm = facet::load::load_bytes("arm.p3m", &arm, None)
        .unwrap()
        .scene;
    let mut pose = Pose::new(&arm.skeleton);
    for t in [0.25, 0.5, 1.0] {
        pose.evaluate(&arm.skeleton, Some(&arm.clips[0]), t);
        check_scene(&gpu, &arm, &pose, &format!("arm bend at {t} s"));
    }
}

#[test]
fn several_dispatches_cover_big_batches() {
    // Past 16.7M vertices the batch is skinned in several dispatches; the same
    // code path runs here with 1,024-vertex dispatches over 10,000 vertices,
    // and skeletons of every size to the 256 a u8 joint can name.
    let gpu = common::gpu_under_test();
    for (n, bones) in [(10_000, 8), (5000, 256)] {
        let scene = generated(n, bones, 11);
        let pose = random_pose(&scene, 4);
        let m = &scene.meshes[0];
        let skin = m.skin.as_ref().unwrap();
        let packed: Vec<skinning::SkinVertex> = (0..n)
            .map(|i| {
                skinning::pack_skin_vertex(
                    m.positions[i],
                    m.normals[i],
                    skin.joints[i],
                    skin.weights[i],
                )
            })
            .collect();
        let skinner = Skinner::new(&gpu.device);
        let bone_buf = skinning::bone_buffer(&gpu.device, bones);
        let mut rows = Vec::new();
        skinning::write_bone_rows(&pose.skin, bones, &mut rows);
        gpu.queue
            .write_buffer(&bone_buf, 0, bytemuck::cast_slice(&rows));
        let batch = skinner.batch_with_dispatch_size(&gpu.device, &packed, &bone_buf, 1024);
        assert_eq!(Skinner::dispatch_count(&batch), n.div_ceil(1024));
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        skinner.encode(&mut enc, &batch);
        gpu.queue.submit([enc.finish()]);
        let got = common::read_stream(&gpu, &batch.dst, n);
        let mut p = vec![Vec3::ZERO; n];
        let mut nrm = vec![Vec3::ZERO; n];
        skin_vertices(&pose.skin, skin, &m.positions, &m.normals, &mut p, &mut nrm);
        let size = model_size(&scene);
        let (mut worst, mut worst_normal) = (0f32, 0f32);
        for ((g, cp), cn) in got.iter().zip(&p).zip(&nrm) {
            worst = worst.max((Vec3::from(g.position) - *cp).abs().max_element());
            let n = skinning::oct_decode(g.normal);
            worst_normal = worst_normal.max((n - *cn).abs().max_element());
        }
        assert!(
            worst <= 1e-4 * size,
            "{bones} bones: max position error {worst}"
        );
        assert!(
            worst_normal <= 2e-3,
            "{bones} bones: max normal error {worst_normal}"
        );
    }
}

#[test]
fn bone_rows_lie_apart() {
    // Bone j's row k at k * count + j; past the matrices given, the identity.
    let a = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
    let b = Mat4::from_scale(Vec3::new(4.0, 5.0, 6.0));
    let mut rows = vec![[9.0; 4]; 20];
    skinning::write_bone_rows(&[a, b], 3, &mut rows);
    let expected = [
        [1.0, 0.0, 0.0, 1.0], // a, row 0
        [4.0, 0.0, 0.0, 0.0], // b, row 0
        [1.0, 0.0, 0.0, 0.0], // identity, row 0
        [0.0, 1.0, 0.0, 2.0], // a, row 1
        [0.0, 5.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 3.0], // a, row 2
        [0.0, 0.0, 6.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    assert_eq!(rows, expected);
}

#[test]
fn m3d_characters_match_the_cpu_through_their_actions() {
    // CesiumMan (19 bones, 4 weights per vertex) and aliveai_character
    // (6 bones, one weight per vertex), posed by their M3D frame sequences.
    let gpu = common::gpu_under_test();
    for (file, times) in [
        ("CesiumMan.m3d", &[0.0, 0.3, 0.77, 1.5][..]),
        ("aliveai_character.m3d", &[0.5, 3.3, 9.9][..]),
    ] {
        let path = common::shared().join("fixtures/m3d").join(file);
        let scene = facet::load::load_file(&path).unwrap().scene;
        let mut pose = Pose::new(&scene.skeleton);
        let mut most = 0.0f32;
        for &t in times {
            pose.evaluate(&scene.skeleton, Some(&scene.clips[0]), t);
            most = most.max(check_scene(
                &gpu,
                &scene,
                &pose,
                &format!("{file} at {t} s"),
            ));
        }
        assert!(most > 0.01, "{file}: the action did not move the mesh");
    }
}

#[test]
fn papa_units_match_the_cpu_through_their_animations() {
    // bot_sun with its idle animation (14 bones, 4 weights a vertex) and
    // radar_jammer with its bind animation, both found next to the model.
    let gpu = common::gpu_under_test();
    for (file, clip, times) in [
        ("bot_sun.papa", "idle", &[0.0, 0.5, 1.7][..]),
        ("radar_jammer.papa", "bind", &[0.0, 0.03][..]),
    ] {
        let path = common::shared().join("fixtures/papa").join(file);
        let scene = facet::load::load_file(&path).unwrap().scene;
        let c = scene.clips.iter().position(|c| c.name == clip).unwrap();
        let mut pose = Pose::new(&scene.skeleton);
        let mut most = 0.0f32;
        for &t in times {
            pose.evaluate(&scene.skeleton, Some(&scene.clips[c]), t);
            let moved = check_scene(&gpu, &scene, &pose, &format!("{file} {clip} at {t} s"));
            most = most.max(moved);
        }
        // Agreement with the CPU proves nothing if neither moved: the
        // animation must displace some vertex by a visible amount.
        let size = model_size(&scene);
        eprintln!("{file} {clip}: vertices moved up to {most} (model size {size})");
        assert!(
            most > 1e-2 * size,
            "{file}: the {clip} animation did not move the mesh"
        );
    }
}
