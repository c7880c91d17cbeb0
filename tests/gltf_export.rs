//! glTF export (issue #18), checked by tools that are not ours:
//! - Khronos' glTF-Validator (npm `gltf-validator`, installed by
//!   scripts/test; run through scripts/gltf-validate.js with the machine's
//!   Node.js): every export of every bundled asset and shared fixture has
//!   0 errors and 0 warnings (infos are listed, not failed: see below).
//! - The `gltf` crate reads each export back: positions, indices, UVs and
//!   skin weights equal the scene's; and the exported animation, evaluated
//!   with glTF's interpolation rules written here from the specification
//!   (§3.11: linear for translation and scale, spherical linear for
//!   rotation quaternions; node transforms T·R·S down the hierarchy;
//!   joint matrix = global transform · inverse bind matrix), skins the
//!   mesh to within 1e-4 of the model's size of the viewer's own pose at
//!   the same times.

mod common;

use facet::export::gltf::export;
use facet::scene::Scene;
use glam::{Mat4, Quat, Vec3, Vec4};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every model the viewer opens among the bundled assets and the shared
/// fixtures (texture-only and animation-only Papa files included: they
/// open as a textured quad or a skeleton).
fn inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for (dir, exts) in [
        (common::repo().join("assets"), &["p3m", "m3d", "pmf"][..]),
        (common::shared().join("fixtures/m3d"), &["m3d"][..]),
        (common::shared().join("fixtures/papa"), &["papa"][..]),
    ] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| exts.contains(&e.to_string_lossy().as_ref()))
            })
            .collect();
        found.sort();
        files.extend(found);
    }
    assert!(files.len() > 20, "{files:?}");
    files
}

/// Metres in one scene unit (the export writes metres where the format
/// says: M3D's scale).
fn metres(scene: &Scene) -> f32 {
    scene
        .metres_per_unit
        .filter(|s| s.is_finite() && *s > 0.0)
        .unwrap_or(1.0)
}

fn load(path: &Path) -> Scene {
    facet::load::load_file(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .scene
}

fn out_dir() -> PathBuf {
    let d = common::output_dir().join("gltf_export");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The validator's infos that are expected, and why:
/// - UNUSED_OBJECT: a material or texture coordinate set no part draws
///   with (the export keeps every material of the file, as the inspector
///   lists them);
/// - ACCESSOR_INDEX_TRIANGLE_DEGENERATE: the source's own triangles with
///   two equal corners (WusonBlitz0, viper), kept as the viewer draws them;
/// - NODE_EMPTY: bones no part follows (an animation-only Papa is a
///   skeleton without a mesh);
/// - INCOMPLETE_EXTENSION_SUPPORT: the validator's own note that it checks
///   KHR_animation_pointer (material colour animation) only in part.
const ALLOWED_INFOS: &[&str] = &[
    "UNUSED_OBJECT",
    "ACCESSOR_INDEX_TRIANGLE_DEGENERATE",
    "NODE_EMPTY",
    "INCOMPLETE_EXTENSION_SUPPORT",
];

#[test]
fn khronos_validator_reports_no_errors_or_warnings_on_any_export() {
    let dir = out_dir();
    let mut written = Vec::new();
    for input in inputs() {
        let export = export(&load(&input)).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
        let out = dir.join(format!(
            "{}.glb",
            input.file_name().unwrap().to_string_lossy()
        ));
        std::fs::write(&out, export.glb()).unwrap();
        written.push(out);
    }
    let script = common::repo().join("scripts/gltf-validate.js");
    let run = Command::new("node")
        .arg(&script)
        .args(&written)
        .output()
        .unwrap_or_else(|e| {
            panic!("Node.js is needed for Khronos' glTF-Validator (scripts/test installs it): {e}")
        });
    assert!(
        run.status.success(),
        "the validator did not run (scripts/test installs it under target/npm): {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let reports: Vec<serde_json::Value> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), written.len());
    let mut failures = Vec::new();
    for r in &reports {
        let unexpected_infos: Vec<&serde_json::Value> = r["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["severity"] == 2 && !ALLOWED_INFOS.contains(&m["code"].as_str().unwrap()))
            .collect();
        if r["errors"] != 0 || r["warnings"] != 0 || !unexpected_infos.is_empty() {
            let messages: Vec<String> = r["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| {
                    m["severity"].as_u64().unwrap() <= 2
                        && !ALLOWED_INFOS.contains(&m["code"].as_str().unwrap())
                })
                .take(5)
                .map(|m| format!("{} {} at {}", m["code"], m["message"], m["pointer"]))
                .collect();
            failures.push(format!(
                "{}: {} errors, {} warnings: {}",
                r["file"],
                r["errors"],
                r["warnings"],
                messages.join("; ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// glTF's node transform from TRS (§3.5.3: T * R * S).
fn trs(t: Vec3, r: Quat, s: Vec3) -> Mat4 {
    Mat4::from_translation(t) * Mat4::from_quat(r) * Mat4::from_scale(s)
}

/// The two keyframes around `t` and the interpolation factor (§3.11.1:
/// clamped before the first and after the last key).
fn bracket(times: &[f32], t: f32) -> (usize, usize, f32) {
    if t <= times[0] {
        return (0, 0, 0.0);
    }
    let last = times.len() - 1;
    if t >= times[last] {
        return (last, last, 0.0);
    }
    let k = times.iter().rposition(|&x| x <= t).unwrap();
    (k, k + 1, (t - times[k]) / (times[k + 1] - times[k]))
}

/// Spherical linear interpolation as the specification's appendix writes
/// it (shortest arc; linear when the quaternions nearly coincide).
fn slerp(a: Quat, b: Quat, u: f32) -> Quat {
    let mut d = a.dot(b);
    let b = if d < 0.0 {
        d = -d;
        -b
    } else {
        b
    };
    if d > 0.9995 {
        return (a * (1.0 - u) + b * u).normalize();
    }
    let theta = d.acos();
    let s = theta.sin();
    (a * (((1.0 - u) * theta).sin() / s) + b * ((u * theta).sin() / s)).normalize()
}

struct Read {
    doc: gltf::Document,
    blob: Vec<u8>,
}

fn read(glb: &[u8]) -> Read {
    let g = gltf::Gltf::from_slice(glb).expect("the gltf crate reads the export");
    Read {
        doc: g.document,
        blob: g.blob.unwrap_or_default(),
    }
}

#[test]
fn the_gltf_crate_reads_back_the_scene_and_its_animation() {
    let mut checked_clips = 0;
    let mut further_uv_sets = 0;
    for input in inputs() {
        let scene = load(&input);
        let glb = export(&scene).unwrap().glb();
        let Read { doc, blob } = read(&glb);
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        let exported: Vec<&facet::scene::Mesh> = scene
            .meshes
            .iter()
            .filter(|m| !m.positions.is_empty())
            .collect();
        assert_eq!(doc.meshes().count(), exported.len(), "{name}");
        // Parts, in order.
        for (mesh, g) in exported.iter().zip(doc.meshes()) {
            let p = g.primitives().next().unwrap();
            let r = p.reader(|_| Some(&blob[..]));
            let positions: Vec<Vec3> = r.read_positions().unwrap().map(Vec3::from).collect();
            // In metres where the format gives a scale (M3D).
            let unit = metres(&scene);
            assert_eq!(positions.len(), mesh.positions.len());
            for (a, b) in positions.iter().zip(&mesh.positions) {
                assert!(
                    a.distance(*b * unit) <= 1e-6 * (b.length() * unit).max(1e-6),
                    "{name}: {}: {a} vs {b} x {unit}",
                    mesh.name
                );
            }
            let indices: Vec<u32> = r
                .read_indices()
                .map(|i| i.into_u32().collect())
                .unwrap_or_default();
            assert_eq!(indices, mesh.indices, "{name}: {}", mesh.name);
            if mesh.uvs.len() == mesh.positions.len() {
                let uvs: Vec<[f32; 2]> = r.read_tex_coords(0).unwrap().into_f32().collect();
                assert!(
                    uvs.iter()
                        .zip(&mesh.uvs)
                        .all(|(a, b)| a[0] == b.x && a[1] == b.y),
                    "{name}: {} UVs",
                    mesh.name
                );
            }
            // The further UV sets (Papa's shadow-map and detail
            // coordinates) as TEXCOORD_1 and on, bit for bit.
            for (k, set) in mesh.extra_uvs.iter().enumerate() {
                let uvs: Vec<[f32; 2]> = r
                    .read_tex_coords(1 + k as u32)
                    .unwrap_or_else(|| panic!("{name}: {}: no TEXCOORD_{}", mesh.name, 1 + k))
                    .into_f32()
                    .collect();
                assert_eq!(
                    uvs.len(),
                    set.len(),
                    "{name}: {} UV set {}",
                    mesh.name,
                    1 + k
                );
                assert!(
                    uvs.iter().zip(set).all(|(a, b)| a[0] == b.x && a[1] == b.y),
                    "{name}: {} UV set {}",
                    mesh.name,
                    1 + k
                );
                further_uv_sets += 1;
            }
            if let Some(skin) = &mesh.skin {
                let w: Vec<[f32; 4]> = r.read_weights(0).unwrap().into_f32().collect();
                let j: Vec<[u16; 4]> = r.read_joints(0).unwrap().into_u16().collect();
                for (i, (w, j)) in w.iter().zip(&j).enumerate() {
                    let ours = facet::scene::unit_weights(skin.weights[i]);
                    let sum: f32 = ours.iter().sum();
                    if sum <= 0.0 {
                        continue;
                    }
                    for k in 0..4 {
                        if ours[k] > 0.0 {
                            assert_eq!(j[k], skin.joints[i][k], "{name}: vertex {i}");
                            assert!((w[k] - ours[k] / sum).abs() < 1e-6, "{name}: vertex {i}");
                        }
                    }
                }
            }
        }
        checked_clips += check_animation(&name, &scene, &doc, &blob);
    }
    assert!(checked_clips >= 4, "only {checked_clips} clips checked");
    // basic_cube.papa's part and flower_03.papa's three have a second set.
    assert!(
        further_uv_sets >= 4,
        "only {further_uv_sets} further UV sets checked"
    );
}

/// glTF's nearest transform to `m`: translation, rotation and scale.
fn nearest_trs(m: Mat4) -> (Mat4, f32) {
    let (s, r, t) = m.to_scale_rotation_translation();
    let back = Mat4::from_scale_rotation_translation(s, r.normalize(), t);
    let err = m
        .to_cols_array()
        .iter()
        .zip(back.to_cols_array())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    (back, err)
}

/// The viewer's skinning matrices for `pose`; where a bone's local matrix
/// shears (M3D builds them from unnormalised quaternions as m3d.h does),
/// glTF can only hold the nearest translation, rotation and scale, so the
/// expectation is the viewer's pose with every local matrix (posed and at
/// rest) replaced by that, which the export lists as dropped.
fn expected_skin(scene: &Scene, pose: &facet::anim::Pose) -> Vec<Mat4> {
    let sk = &scene.skeleton;
    let n = sk.bones.len();
    let rest_local: Vec<Mat4> = (0..n).map(|i| sk.rest_local(i)).collect();
    let worst = (0..n)
        .map(|i| {
            nearest_trs(pose.local[i])
                .1
                .max(nearest_trs(rest_local[i]).1)
        })
        .fold(0.0, f32::max);
    if worst < 1e-5 {
        return pose.skin.clone();
    }
    let global = |local: &dyn Fn(usize) -> Mat4| {
        let mut g = vec![Mat4::IDENTITY; n];
        for i in 0..n {
            g[i] = match sk.bones[i].parent {
                Some(p) if p < i => g[p] * local(i),
                _ => local(i),
            };
        }
        g
    };
    let posed = global(&|i| nearest_trs(pose.local[i]).0);
    let rest = global(&|i| nearest_trs(rest_local[i]).0);
    posed
        .iter()
        .zip(&rest)
        .map(|(p, r)| *p * r.inverse())
        .collect()
}

/// Evaluates every exported animation by glTF's rules at several times and
/// skins each skinned part with the result; compares with the viewer's own
/// pose and skinning. Returns the clips checked.
fn check_animation(name: &str, scene: &Scene, doc: &gltf::Document, blob: &[u8]) -> usize {
    let Some(skin) = doc.skins().next() else {
        return 0;
    };
    let joints: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    let ibm: Vec<Mat4> = skin
        .reader(|_| Some(blob))
        .read_inverse_bind_matrices()
        .unwrap()
        .map(|m| Mat4::from_cols_array_2d(&m))
        .collect();
    let nodes: Vec<gltf::Node> = doc.nodes().collect();
    let mut parent = vec![None; nodes.len()];
    for n in &nodes {
        for c in n.children() {
            parent[c.index()] = Some(n.index());
        }
    }
    let b = scene.bounds(None);
    let unit = metres(scene);
    let size = (b.max - b.min).length().max(1e-6) * unit;
    let mut checked = 0;
    for clip in &scene.clips {
        // A clip that moves no bone is left out (and listed as dropped).
        let Some(anim) = doc
            .animations()
            .find(|a| a.name() == Some(clip.name.as_str()))
        else {
            continue;
        };
        let mut pose = facet::anim::Pose::new(&scene.skeleton);
        for k in 0..=4 {
            // An M3D frame sequence is compared between keys: at a key's
            // exact millisecond m3d.h's matrix shears (the quaternion as
            // stored), which glTF cannot hold; between keys its blend is
            // unit length.
            let t = if clip.sequence.is_some() {
                clip.duration_s * (k as f32 + 0.37) / 5.0
            } else {
                clip.duration_s * k as f32 / 4.0 * 0.999
            };
            // Rest TRS from the nodes, then the channels.
            let mut local: Vec<(Vec3, Quat, Vec3)> = nodes
                .iter()
                .map(|n| {
                    let (t, r, s) = n.transform().decomposed();
                    (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
                })
                .collect();
            for ch in anim.channels() {
                let r = ch.reader(|_| Some(blob));
                let times: Vec<f32> = r.read_inputs().unwrap().collect();
                let (a, b, u) = bracket(&times, t);
                // STEP holds each key until the next (§3.11.1).
                let (b, u) = match ch.sampler().interpolation() {
                    gltf::animation::Interpolation::Linear => (b, u),
                    gltf::animation::Interpolation::Step => (a, 0.0),
                    other => panic!("{name}: {other:?} is not written"),
                };
                let node = ch.target().node().index();
                match r.read_outputs().unwrap() {
                    gltf::animation::util::ReadOutputs::Translations(v) => {
                        let v: Vec<Vec3> = v.map(Vec3::from).collect();
                        local[node].0 = v[a].lerp(v[b], u);
                    }
                    gltf::animation::util::ReadOutputs::Rotations(v) => {
                        let v: Vec<Quat> = v.into_f32().map(Quat::from_array).collect();
                        local[node].1 = slerp(v[a], v[b], u);
                    }
                    gltf::animation::util::ReadOutputs::Scales(v) => {
                        let v: Vec<Vec3> = v.map(Vec3::from).collect();
                        local[node].2 = v[a].lerp(v[b], u);
                    }
                    _ => panic!("{name}: morph targets are not exported"),
                }
            }
            let mut global = vec![Mat4::IDENTITY; nodes.len()];
            // Parents come before children in the export's joint order;
            // resolve in passes to be independent of it.
            let mut done = vec![false; nodes.len()];
            while done.iter().any(|d| !d) {
                for i in 0..nodes.len() {
                    if done[i] {
                        continue;
                    }
                    let m = trs(local[i].0, local[i].1, local[i].2);
                    match parent[i] {
                        None => {
                            global[i] = m;
                            done[i] = true;
                        }
                        Some(p) if done[p] => {
                            global[i] = global[p] * m;
                            done[i] = true;
                        }
                        _ => {}
                    }
                }
            }
            let joint_mats: Vec<Mat4> = joints
                .iter()
                .zip(&ibm)
                .map(|(&j, m)| global[j] * *m)
                .collect();
            pose.evaluate(&scene.skeleton, Some(clip), t);
            let skin_mats = expected_skin(scene, &pose);
            for mesh in &scene.meshes {
                let Some(s) = &mesh.skin else { continue };
                let mut ours = vec![Vec3::ZERO; mesh.positions.len()];
                let mut ours_n = vec![Vec3::ZERO; mesh.positions.len()];
                facet::anim::skin_vertices(
                    &skin_mats,
                    s,
                    &mesh.positions,
                    &mesh.normals,
                    &mut ours,
                    &mut ours_n,
                );
                for (i, p) in mesh.positions.iter().enumerate() {
                    let w = facet::scene::unit_weights(s.weights[i]);
                    let sum: f32 = w.iter().sum();
                    let p = *p * unit;
                    let theirs = if sum <= 0.0 {
                        p
                    } else {
                        let mut m = Mat4::ZERO;
                        for k in 0..4 {
                            m += joint_mats[s.joints[i][k] as usize] * (w[k] / sum);
                        }
                        (m * Vec4::from((p, 1.0))).truncate()
                    };
                    assert!(
                        theirs.distance(ours[i] * unit) <= 1e-4 * size,
                        "{name}: clip {:?} at {t} s, part {:?} vertex {i}: glTF {theirs} viewer {}",
                        clip.name,
                        mesh.name,
                        ours[i]
                    );
                }
            }
        }
        checked += 1;
    }
    checked
}

fn facet(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_facet"))
        .args(args)
        .env("FACET_ADAPTER", "llvmpipe")
        .output()
        .unwrap()
}

fn validate(files: &[PathBuf]) -> Vec<serde_json::Value> {
    let run = Command::new("node")
        .arg(common::repo().join("scripts/gltf-validate.js"))
        .args(files)
        .output()
        .expect("Node.js is needed for Khronos' glTF-Validator (scripts/test installs it)");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `convert DIR -o OUTDIR`: the tree converted, `.gltf` with its `.bin`
/// and PNGs valid for the validator, and a broken file reported without
/// stopping the others.
#[test]
fn convert_converts_folders_and_gltf_with_files_beside_it() {
    let out = out_dir().join("tree");
    let _ = std::fs::remove_dir_all(&out);
    let papa = common::shared().join("fixtures/papa");
    let run = facet(&[
        "convert".as_ref(),
        papa.as_os_str(),
        "-o".as_ref(),
        out.join("glb").as_os_str(),
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let n = std::fs::read_dir(&papa)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "papa")
        })
        .count();
    assert!(
        stdout.contains(&format!("{n} of {n} converted")),
        "{stdout}"
    );
    assert!(out.join("glb/bot_sun.glb").is_file());
    // Its stderr is a pipe here: no progress line rewritten in place (a
    // carriage return, an erase-line escape) to end up in a log.
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !stderr.contains(['\r', '\x1b']),
        "terminal control in piped stderr: {stderr:?}"
    );

    // .gltf: the JSON, its .bin and the textures as PNG files beside it.
    let m3d = common::shared().join("fixtures/m3d");
    let run = facet(&[
        "convert".as_ref(),
        m3d.as_os_str(),
        "-o".as_ref(),
        out.join("gltf").as_os_str(),
        "--gltf".as_ref(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let viper = out.join("gltf/viper.gltf");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&viper).unwrap()).unwrap();
    assert_eq!(json["buffers"][0]["uri"], "viper.bin");
    let image = json["images"][0]["uri"].as_str().unwrap();
    assert!(
        image.ends_with(".png") && out.join("gltf").join(image).is_file(),
        "{image}"
    );
    let gltfs: Vec<PathBuf> = std::fs::read_dir(out.join("gltf"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "gltf"))
        .collect();
    assert!(gltfs.len() >= 15, "{gltfs:?}");
    for r in validate(&gltfs) {
        assert_eq!(
            (r["errors"].as_u64(), r["warnings"].as_u64()),
            (Some(0), Some(0)),
            "{r}"
        );
    }

    // A broken file fails alone.
    let mixed = out.join("mixed");
    std::fs::create_dir_all(mixed.join("sub")).unwrap();
    std::fs::write(
        mixed.join("sub/broken.m3d"),
        b"3DMO\x10\x00\x00\x00garbage!",
    )
    .unwrap();
    std::fs::copy(
        common::repo().join("assets/demo.p3m"),
        mixed.join("demo.p3m"),
    )
    .unwrap();
    let run = facet(&[
        "convert".as_ref(),
        mixed.as_os_str(),
        "-o".as_ref(),
        out.join("mixed_out").as_os_str(),
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(!run.status.success());
    assert!(
        stdout.contains("1 of 2 converted") && stdout.contains("1 failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("failed: ") && stdout.contains("broken.m3d"),
        "{stdout}"
    );
    assert!(out.join("mixed_out/demo.glb").is_file());

    // A folder with no models says which extensions it looked for: every
    // model format the viewer converts, M3D's animation-only .a3d included.
    let empty = out.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), b"no models here").unwrap();
    let run = facet(&[
        "convert".as_ref(),
        empty.as_os_str(),
        "-o".as_ref(),
        out.join("empty_out").as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(
        stderr.contains("no .p3m, .m3d, .a3d, .papa or .pmf files under it"),
        "{stderr}"
    );
}

/// Mean and share of pixels over 24/255 apart (largest RGB channel
/// difference), between two renders of one size.
fn image_difference(a: &image::RgbaImage, b: &image::RgbaImage) -> (f64, f64) {
    assert_eq!(a.dimensions(), b.dimensions());
    let (mut sum, mut over) = (0u64, 0u64);
    for (p, q) in a.pixels().zip(b.pixels()) {
        let d = (0..3).map(|k| p[k].abs_diff(q[k])).max().unwrap() as u64;
        sum += d;
        over += (d > 24) as u64;
    }
    let n = (a.width() * a.height()) as f64;
    (sum as f64 / n, over as f64 / n)
}

/// The viewer opens its own exports (glTF is a format it reads, with the
/// `gltf` crate): `render` of the `.glb` and of the source from the same
/// camera on llvmpipe match. Threshold: mean channel difference under
/// 1.5/255 and under 0.5% of pixels more than 24/255 apart (colours pass
/// sRGB -> linear -> sRGB; edges may differ by a pixel's coverage).
/// Files chosen whose look glTF can carry whole (textures, vertex colours,
/// skins at rest); a PA unit's team colours are not part of glTF.
#[test]
fn a_converted_file_renders_as_its_source() {
    let dir = out_dir().join("images");
    std::fs::create_dir_all(&dir).unwrap();
    let mut report = Vec::new();
    for input in [
        common::repo().join("assets/demo.m3d"),
        common::shared().join("fixtures/m3d/CesiumMan.m3d"),
        common::shared().join("fixtures/m3d/viper.m3d"),
        common::shared().join("fixtures/m3d/cube_with_vertexcolors.m3d"),
        common::shared().join("fixtures/papa/transport.papa"),
    ] {
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        let glb = dir.join(format!("{name}.glb"));
        let run = facet(&[
            "convert".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            glb.as_os_str(),
        ]);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let render = |file: &Path, out: &Path| {
            let run = facet(&[
                "render".as_ref(),
                file.as_os_str(),
                "-o".as_ref(),
                out.as_os_str(),
                "--size".as_ref(),
                "256x256".as_ref(),
                "--camera".as_ref(),
                "30,20".as_ref(),
                // The ground grid is in scene units, the export in metres.
                "--no-grid".as_ref(),
            ]);
            assert!(
                run.status.success(),
                "{}",
                String::from_utf8_lossy(&run.stderr)
            );
            image::open(out).unwrap().to_rgba8()
        };
        let a = render(&input, &dir.join(format!("{name}.source.png")));
        let b = render(&glb, &dir.join(format!("{name}.glb.png")));
        // The model covers part of the image (not two empty frames).
        let corner = *a.get_pixel(0, 0);
        let covered = a
            .pixels()
            .filter(|p| (0..3).any(|k| p[k].abs_diff(corner[k]) > 24))
            .count();
        assert!(
            covered > 256 * 256 / 50,
            "{name}: only {covered} pixels show the model"
        );
        let (mean, over) = image_difference(&a, &b);
        report.push(format!("{name}: mean {mean:.2}, over {:.3}%", over * 100.0));
        assert!(mean < 1.5 && over < 0.005, "{}", report.join("\n"));
    }
    eprintln!("{}", report.join("\n"));
}

/// glTF files are opened by the thumbnailer too: cut and corrupted
/// exports (every cut of the JSON chunk's length, seeded byte flips, and
/// accessor counts, offsets and view lengths set huge in the JSON) give
/// an error or a scene, never a panic.
#[test]
fn damaged_gltf_files_give_errors_not_panics() {
    let mut files = Vec::new();
    for input in [
        common::repo().join("assets/demo.p3m"),
        common::shared().join("fixtures/m3d/CesiumMan.m3d"),
    ] {
        files.push(export(&load(&input)).unwrap().glb());
    }
    let open = |bytes: &[u8]| {
        let r =
            std::panic::catch_unwind(|| facet::load::load_bytes("x.glb", bytes, None).map(|_| ()));
        assert!(r.is_ok(), "panicked on a {} byte file", bytes.len());
    };
    let mut seed = 0x2545F4914F6CDD1Du64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for glb in &files {
        // A header stating fewer bytes than itself (found by the mutation
        // sweep on a .glb seed: gltf 1.4.1 subtracts 12 from it unchecked).
        for stated in [0u32, 11] {
            let mut b = glb.clone();
            b[8..12].copy_from_slice(&stated.to_le_bytes());
            let e =
                std::panic::catch_unwind(|| facet::load::load_bytes("x.glb", &b, None).map(|_| ()))
                    .unwrap_or_else(|_| panic!("a header stating {stated} bytes panicked"))
                    .unwrap_err()
                    .to_string();
            assert!(
                e.ends_with(&format!(
                    "length {stated} is shorter than the header itself (12 bytes)"
                )),
                "{e}"
            );
        }
        for cut in (0..glb.len()).step_by(glb.len() / 300 + 1) {
            open(&glb[..cut]);
        }
        for _ in 0..500 {
            let mut b = glb.clone();
            for _ in 0..1 + rand() % 8 {
                let at = (rand() as usize) % b.len();
                b[at] = rand() as u8;
            }
            open(&b);
        }
        // Numbers in the JSON made huge or negative, one at a time.
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let text = String::from_utf8(glb[20..20 + json_len].to_vec()).unwrap();
        for key in [
            "\"count\":",
            "\"byteOffset\":",
            "\"byteLength\":",
            "\"byteStride\":",
            "\"mesh\":",
            "\"input\":",
        ] {
            for (k, _) in text.match_indices(key).take(20) {
                for value in ["4294967295", "99999999999", "-1", "0"] {
                    let at = k + key.len();
                    let end = at + text[at..].find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
                    let mut t = text.clone();
                    t.replace_range(at..end, value);
                    while !t.len().is_multiple_of(4) {
                        t.push(' ');
                    }
                    let mut b = glb[..12].to_vec();
                    b.extend((t.len() as u32).to_le_bytes());
                    b.extend(b"JSON");
                    b.extend(t.as_bytes());
                    b.extend(&glb[20 + json_len..]);
                    let total = b.len() as u32;
                    b[8..12].copy_from_slice(&total.to_le_bytes());
                    open(&b);
                }
            }
        }
    }
}

/// A PMF map: a node per sector holding its parts; each part's lightmap is
/// its material's emissive texture on TEXCOORD_1 (the lightmap UVs); the
/// entities are named empty nodes with their fields in extras.
#[test]
fn a_map_exports_sectors_lightmaps_and_entities() {
    let scene = load(&common::repo().join("assets/demo.pmf"));
    let info = scene.map.as_deref().expect("a map");
    let glb = export(&scene).unwrap().glb();
    let Read { doc, .. } = read(&glb);
    let sectors: Vec<gltf::Node> = doc
        .nodes()
        .filter(|n| n.mesh().is_none() && n.name().is_some_and(|s| s.starts_with("sector ")))
        .collect();
    let with_parts = info.sector_meshes.iter().filter(|m| !m.is_empty()).count();
    assert_eq!(sectors.len(), with_parts);
    let mut parts = 0;
    for s in &sectors {
        for child in s.children() {
            let p = child.mesh().unwrap().primitives().next().unwrap();
            assert!(p.get(&gltf::Semantic::TexCoords(1)).is_some());
            let m = p.material();
            let e = m.emissive_texture().expect("the lightmap as emission");
            assert_eq!(e.tex_coord(), 1);
            assert_eq!(
                m.pbr_metallic_roughness().base_color_factor(),
                [0.0, 0.0, 0.0, 1.0]
            );
            parts += 1;
        }
    }
    assert_eq!(
        parts,
        scene
            .meshes
            .iter()
            .filter(|m| !m.positions.is_empty())
            .count()
    );
    let entities = doc.nodes().find(|n| n.name() == Some("entities"));
    assert_eq!(
        entities.as_ref().map_or(0, |e| e.children().count()),
        info.map.entities.len()
    );
    if let Some(first) = info.map.entities.first() {
        let node = entities.unwrap().children().next().unwrap();
        assert_eq!(node.name(), Some(first.name.as_str()));
        let extras: serde_json::Value =
            serde_json::from_str(node.extras().as_ref().unwrap().get()).unwrap();
        assert_eq!(extras["kind"], first.kind.as_str());
    }
}

/// The JSON and BIN chunks of a `.glb`, read by hand (GLB §4.4): the
/// `gltf` crate refuses channels without a target node, which
/// KHR_animation_pointer channels are.
fn glb_chunks(glb: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let n = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&glb[20..20 + n]).unwrap();
    let bin = glb.get(28 + n..).map(<[u8]>::to_vec).unwrap_or_default();
    (json, bin)
}

/// Accessor `i`'s floats (tightly packed, as the export writes them).
fn accessor_floats(json: &serde_json::Value, bin: &[u8], i: &serde_json::Value) -> Vec<f32> {
    let acc = &json["accessors"][i.as_u64().unwrap() as usize];
    let view = &json["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let comps = match acc["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC3" => 3,
        "VEC4" => 4,
        t => panic!("{t}"),
    };
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = acc["count"].as_u64().unwrap() as usize * comps * 4;
    bin[start..start + len]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A damaged file's scene can hold what glTF cannot (found by exporting
/// the mutation sweep's cases and validating them): numbers that are NaN
/// or infinite (a vertex, a bone's rest matrix and so every pose below it,
/// a material colour), a vertex that names one joint twice. The export
/// still writes glTF that Khronos' validator passes with no error or
/// warning, and says what it changed: non-finite values written as 0 (a
/// rotation as the identity), the bones whose rest transform was not
/// finite as the identity, a joint named twice once with its weights
/// added. Expected values are stated here from those rules.
#[test]
fn values_gltf_cannot_hold_are_written_valid_and_listed() {
    let mut scene = load(&common::shared().join("fixtures/m3d/CesiumMan.m3d"));
    let unit = metres(&scene);
    let m = scene.meshes.iter().position(|m| m.skin.is_some()).unwrap();
    scene.meshes[m].positions[0] = Vec3::new(f32::NAN, 1.0, f32::INFINITY);
    let skin = scene.meshes[m].skin.as_mut().unwrap();
    let quarter = (facet::scene::WEIGHT_UNITS / 4) as u16;
    skin.joints[1] = [2, 2, 3, 0];
    skin.weights[1] = [quarter, quarter, 2 * quarter, 0];
    // Bone 1 and, through its rest matrix, those below it.
    scene.skeleton.bones[1].rest = Mat4::from_cols_array(&[f32::NAN; 16]);
    let material = scene.meshes[m].material.unwrap();
    scene.materials[material].base_color = [f32::NAN, 0.5, 1.0, 1.0];
    assert!(
        !scene.clips.is_empty(),
        "the poses below bone 1 are sampled"
    );

    let export = export(&scene).unwrap();
    let dir = out_dir();
    let file = dir.join("not_finite.glb");
    let glb = export.glb();
    std::fs::write(&file, &glb).unwrap();
    let report = &validate(std::slice::from_ref(&file))[0];
    assert_eq!(
        (report["errors"].as_u64(), report["warnings"].as_u64()),
        (Some(0), Some(0)),
        "{report}"
    );
    let notes = export.dropped.join("\n");
    assert!(
        notes.contains("values that are not finite numbers")
            && notes.contains("written as 0")
            && notes.contains("skeleton: the rest transforms of")
            && notes.contains(&format!("{:?}", scene.skeleton.bones[1].name)),
        "{notes}"
    );

    let (json, bin) = glb_chunks(&glb);
    // Bone 1's node (node i is bone i): the identity.
    let node = &json["nodes"][1];
    assert_eq!(node["rotation"], serde_json::json!([0.0, 0.0, 0.0, 1.0]));
    assert_eq!(node["translation"], serde_json::json!([0.0, 0.0, 0.0]));
    assert_eq!(node["scale"], serde_json::json!([1.0, 1.0, 1.0]));
    // The part's mesh: the first whose primitive has joints.
    let primitive = json["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mesh| &mesh["primitives"][0])
        .find(|p| !p["attributes"]["JOINTS_0"].is_null())
        .unwrap();
    let positions = accessor_floats(&json, &bin, &primitive["attributes"]["POSITION"]);
    assert_eq!(positions[..3], [0.0, unit, 0.0]);
    let weights = accessor_floats(&json, &bin, &primitive["attributes"]["WEIGHTS_0"]);
    assert_eq!(weights[4..8], [0.5, 0.5, 0.0, 0.0]);
    let joints = &json["accessors"][primitive["attributes"]["JOINTS_0"].as_u64().unwrap() as usize];
    let view = &json["bufferViews"][joints["bufferView"].as_u64().unwrap() as usize];
    let at = view["byteOffset"].as_u64().unwrap() as usize + 8; // vertex 1
    let joints: Vec<u16> = bin[at..at + 8]
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert_eq!(joints, [2, 3, 0, 0]);
    // The material's red, NaN, as 0.
    let color = &json["materials"][material]["pbrMetallicRoughness"]["baseColorFactor"];
    assert_eq!(color[0], serde_json::json!(0.0), "{color}");
}

/// What the export leaves out names each material by number and name:
/// bot_sun.papa's two materials are both called "solid" (its material
/// table, `facet info`), and both get the team-colour mask its companion
/// bot_sun_mask.papa holds, which glTF has no place for.
#[test]
fn materials_left_out_are_named_by_number_as_well() {
    let scene = load(&common::shared().join("fixtures/papa/bot_sun.papa"));
    let names: Vec<&str> = scene.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["solid", "solid"]);
    let export = export(&scene).unwrap();
    assert_eq!(
        export.dropped,
        [
            "material 0 \"solid\": team-colour mask",
            "material 1 \"solid\": team-colour mask"
        ]
    );
}

/// glTF numbers a primitive's UV sets from 0 with no gap (glTF 2.0
/// 3.7.2.1): a further set that cannot be written (its length is not the
/// part's vertex count, or the part has no first set) is listed, and the
/// sets after it are too, rather than written past a gap. basic_cube.papa's
/// part has one further set; the test adds a short one and a good one
/// after it, then takes the first set away, then the material.
#[test]
fn further_uv_sets_are_numbered_without_gaps() {
    let mut scene = load(&common::shared().join("fixtures/papa/basic_cube.papa"));
    let m = scene
        .meshes
        .iter()
        .position(|m| !m.extra_uvs.is_empty())
        .expect("basic_cube.papa has a further UV set");
    let (name, n) = (
        scene.meshes[m].name.clone(),
        scene.meshes[m].positions.len(),
    );
    let good = scene.meshes[m].extra_uvs[0].clone();
    scene.meshes[m].extra_uvs.push(good[..3].to_vec());
    scene.meshes[m].extra_uvs.push(good.clone());
    let uv_notes = |dropped: &[String]| -> Vec<String> {
        dropped
            .iter()
            .filter(|d| d.contains(": UV set "))
            .cloned()
            .collect()
    };
    let short = export(&scene).unwrap();
    assert_eq!(
        uv_notes(&short.dropped),
        [
            format!("part {name:?}: UV set 2: 3 coordinates for {n} vertices"),
            format!("part {name:?}: UV set 3: a set before it was not written"),
        ]
    );
    let glb = short.glb();
    let (json, _) = glb_chunks(&glb);
    let sets = |json: &serde_json::Value| -> Vec<String> {
        let mut keys: Vec<String> = json["meshes"][m]["primitives"][0]["attributes"]
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| k.starts_with("TEXCOORD_"))
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(sets(&json), ["TEXCOORD_0", "TEXCOORD_1"]);
    let dir = out_dir();
    let file = dir.join("uv_sets_with_a_short_one.glb");
    std::fs::write(&file, &glb).unwrap();

    // Without its first set, the part is drawn with (0, 0) at every
    // vertex: its textured material gets those written as TEXCOORD_0, and
    // the further sets follow.
    scene.meshes[m].uvs.clear();
    let zeros = export(&scene).unwrap();
    assert_eq!(uv_notes(&zeros.dropped), uv_notes(&short.dropped));
    let glb = zeros.glb();
    assert_eq!(sets(&glb_chunks(&glb).0), ["TEXCOORD_0", "TEXCOORD_1"]);
    let Read { doc, blob } = read(&glb);
    let p = doc.meshes().nth(m).unwrap().primitives().next().unwrap();
    let r = p.reader(|_| Some(&blob[..]));
    let first: Vec<[f32; 2]> = r.read_tex_coords(0).unwrap().into_f32().collect();
    assert_eq!(first, vec![[0.0, 0.0]; n]);
    let second: Vec<[f32; 2]> = r.read_tex_coords(1).unwrap().into_f32().collect();
    assert_eq!(second, good.iter().map(|v| [v.x, v.y]).collect::<Vec<_>>());
    let zeros_file = dir.join("uv_sets_zeros_first.glb");
    std::fs::write(&zeros_file, &glb).unwrap();

    // With no material to sample a texture, no first set is written, and
    // none can follow it.
    scene.meshes[m].material = None;
    let none = export(&scene).unwrap();
    assert_eq!(
        uv_notes(&none.dropped),
        [
            format!("part {name:?}: UV set 1: no first UV set to follow"),
            format!("part {name:?}: UV set 2: 3 coordinates for {n} vertices"),
            format!("part {name:?}: UV set 3: a set before it was not written"),
        ]
    );
    let glb = none.glb();
    assert!(sets(&glb_chunks(&glb).0).is_empty());
    let none_file = dir.join("uv_sets_without_a_first.glb");
    std::fs::write(&none_file, &glb).unwrap();
    for report in validate(&[file, zeros_file, none_file]) {
        assert_eq!(
            (report["errors"].as_u64(), report["warnings"].as_u64()),
            (Some(0), Some(0)),
            "{report}"
        );
    }
}

/// P3M's own animation features: material colour keyframes go out as
/// KHR_animation_pointer channels on the material's base colour when asked
/// (values at each frame equal the viewer's material state there, in
/// linear; Khronos' validator accepts them) and baked into the material's
/// extras always; the per-action material overrides and part lists as
/// documented extras.
#[test]
fn p3m_material_animation_overrides_and_part_lists_are_kept() {
    use facet::export::gltf::{Options, export_with};
    let scene = load(&common::repo().join("assets/demo.p3m"));
    let (mi, m) = scene
        .materials
        .iter()
        .enumerate()
        .find(|(_, m)| {
            m.animation
                .as_ref()
                .is_some_and(|a| !a.color.keys.is_empty())
        })
        .expect("an animated material in the demo");
    let a = m.animation.as_ref().unwrap();
    let lin = |c: f32| facet::scene::srgb_to_linear(c.clamp(0.0, 1.0));
    let want = |t: f32| {
        let s = facet::anim::material::evaluate(m, t);
        [
            lin(s.color[0]),
            lin(s.color[1]),
            lin(s.color[2]),
            s.color[3],
        ]
    };

    // Default: no extension; the values baked into extras.
    let (json, _) = glb_chunks(&export(&scene).unwrap().glb());
    assert!(json.get("extensionsUsed").is_none());
    let baked = &json["materials"][mi]["extras"]["facet_material_animation"];
    let times: Vec<f32> = serde_json::from_value(baked["times_s"].clone()).unwrap();
    let colours: Vec<[f32; 4]> =
        serde_json::from_value(baked["base_color_linear"].clone()).unwrap();
    assert_eq!(times.len() as u32, a.last_frame + 1);
    for (t, c) in times.iter().zip(&colours).take(times.len() - 1) {
        let w = want(*t);
        assert!(
            (0..4).all(|k| (c[k] - w[k]).abs() < 1e-5),
            "{t}: {c:?} vs {w:?}"
        );
    }

    // Asked for: pointer channels, valid for Khronos' validator.
    let glb = export_with(
        &scene,
        Options {
            animation_pointer: true,
        },
    )
    .unwrap()
    .glb();
    let file = out_dir().join("demo_pointer.glb");
    std::fs::write(&file, &glb).unwrap();
    let report = &validate(&[file])[0];
    assert_eq!(
        (report["errors"].as_u64(), report["warnings"].as_u64()),
        (Some(0), Some(0)),
        "{report}"
    );
    let (json, bin) = glb_chunks(&glb);
    assert!(
        json["extensionsUsed"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("KHR_animation_pointer"))
    );
    let pointer = format!("/materials/{mi}/pbrMetallicRoughness/baseColorFactor");
    let (anim, channel) = json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|an| {
            an["channels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| {
                    c["target"]["extensions"]["KHR_animation_pointer"]["pointer"]
                        == pointer.as_str()
                })
                .map(|c| (an.clone(), c.clone()))
        })
        .expect("a pointer channel on the base colour");
    assert_eq!(channel["target"]["path"], "pointer");
    assert!(channel["target"].get("node").is_none());
    let sampler = &anim["samplers"][channel["sampler"].as_u64().unwrap() as usize];
    let times = accessor_floats(&json, &bin, &sampler["input"]);
    let values = accessor_floats(&json, &bin, &sampler["output"]);
    assert_eq!(times.len() as u32, a.last_frame + 1);
    for (k, &t) in times.iter().enumerate().take(times.len() - 1) {
        let w = want(t);
        assert!(
            (0..4).all(|c| (values[4 * k + c] - w[c]).abs() < 1e-5),
            "frame {k}"
        );
    }

    // Overrides and part lists.
    let node_extras: Vec<&serde_json::Value> = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.get("extras"))
        .collect();
    let overrides: usize = scene
        .meshes
        .iter()
        .map(|m| m.material_overrides.len())
        .sum();
    assert!(overrides > 0);
    assert_eq!(
        node_extras
            .iter()
            .map(|e| e["material_overrides"].as_array().map_or(0, |a| a.len()))
            .sum::<usize>(),
        overrides
    );
    let lists = scene
        .clips
        .iter()
        .flat_map(|c| &c.segments)
        .filter(|s| s.part_list.is_some())
        .count();
    let exported: usize = json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["extras"]["part_lists"].as_array().map_or(0, |l| l.len()))
        .sum();
    assert!(
        lists > 0 && exported == lists,
        "{lists} part lists, {exported} exported"
    );
}

/// The importer on a file assembled here from the glTF specification, in
/// forms the exporter never writes: a `.gltf` whose buffer is a file
/// beside it, an interleaved view (positions as floats and colours as
/// normalized bytes, `byteStride` 16), a triangle strip without indices, a
/// node placed by translation and uniform scale, a linear base colour
/// factor, and a skinned part with byte joints and normalized byte weights
/// whose joint a STEP animation turns.
#[test]
fn the_importer_reads_a_gltf_assembled_from_the_specification() {
    let dir = out_dir().join("hand");
    std::fs::create_dir_all(&dir).unwrap();
    let mut bin = Vec::new();
    // 4 interleaved vertices: x, y, z (f32) then r, g, b, a (u8).
    let quad = [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
    ];
    for (i, p) in quad.iter().enumerate() {
        for c in p {
            bin.extend(c.to_le_bytes());
        }
        bin.extend([255, (i * 80) as u8, 0, 255]);
    }
    let joints_at = bin.len(); // 4 x u8 x 4
    for _ in 0..4 {
        bin.extend([0u8, 0, 0, 0]);
    }
    let weights_at = bin.len(); // 4 x normalized u8 x 4
    for _ in 0..4 {
        bin.extend([255u8, 0, 0, 0]);
    }
    let times_at = bin.len();
    for t in [0.0f32, 1.0] {
        bin.extend(t.to_le_bytes());
    }
    let rot_at = bin.len();
    let half = std::f32::consts::FRAC_1_SQRT_2;
    for q in [[0.0f32, 0.0, 0.0, 1.0], [0.0, 0.0, half, half]] {
        for c in q {
            bin.extend(c.to_le_bytes());
        }
    }
    std::fs::write(dir.join("hand.bin"), &bin).unwrap();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [
            {"name": "placed", "mesh": 0, "translation": [10.0, 0.0, 0.0], "scale": [2.0, 2.0, 2.0]},
            {"name": "skinned", "mesh": 1, "skin": 0},
            {"name": "joint"}
        ],
        "skins": [{"joints": [2]}],
        "meshes": [
            {"primitives": [{"attributes": {"POSITION": 0, "COLOR_0": 1}, "mode": 5, "material": 0}]},
            {"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3}, "mode": 5}]}
        ],
        "materials": [{"name": "grey", "pbrMetallicRoughness": {"baseColorFactor": [0.214_041, 0.214_041, 0.214_041, 1.0]}}],
        "buffers": [{"uri": "hand.bin", "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": joints_at, "byteStride": 16},
            {"buffer": 0, "byteOffset": joints_at, "byteLength": weights_at - joints_at},
            {"buffer": 0, "byteOffset": weights_at, "byteLength": times_at - weights_at},
            {"buffer": 0, "byteOffset": times_at, "byteLength": 8},
            {"buffer": 0, "byteOffset": rot_at, "byteLength": 32}
        ],
        "accessors": [
            {"bufferView": 0, "byteOffset": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 0, "byteOffset": 12, "componentType": 5121, "normalized": true, "count": 4, "type": "VEC4"},
            {"bufferView": 1, "componentType": 5121, "count": 4, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5121, "normalized": true, "count": 4, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "VEC4"}
        ],
        "animations": [{"name": "turn", "samplers": [{"input": 4, "output": 5, "interpolation": "STEP"}],
                        "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]}]
    });
    let file = dir.join("hand.gltf");
    std::fs::write(&file, serde_json::to_vec_pretty(&gltf).unwrap()).unwrap();
    let report = &validate(std::slice::from_ref(&file))[0];
    assert_eq!(report["errors"], 0, "the hand-made file itself: {report}");

    let scene = load(&file);
    assert_eq!(scene.meshes.len(), 2);
    let placed = &scene.meshes[0];
    // The strip (0 1 2 3) as two triangles, the second flipped to keep its
    // winding (§3.7.2.1: for odd k, (k+1, k, k+2)).
    assert_eq!(placed.indices, [0, 1, 2, 2, 1, 3]);
    // Node transform T·S: x' = 10 + 2x.
    assert_eq!(placed.positions[3], Vec3::new(12.0, 2.0, 0.0));
    // Normalized bytes: 80/255 green on vertex 1; colours back to sRGB.
    let colors = placed.colors.as_ref().unwrap();
    assert_eq!(colors[0], [255, 0, 0, 255]);
    assert!(
        colors[1][1] > 80,
        "linear 80/255 is brighter in sRGB: {:?}",
        colors[1]
    );
    // The linear factor 0.214 is sRGB 0.5.
    let base = scene.materials[placed.material.unwrap()].base_color;
    assert!((base[0] - 0.5).abs() < 1e-3, "{base:?}");
    // The skinned part stays in bind space; its joint is the skeleton.
    let skinned = &scene.meshes[1];
    assert_eq!(skinned.positions[3], Vec3::new(1.0, 1.0, 0.0));
    assert_eq!(scene.skeleton.bones.len(), 1);
    let skin = skinned.skin.as_ref().unwrap();
    assert_eq!(skin.weights[2], [65535, 0, 0, 0]);
    // STEP: the first key holds until 1 s, then a quarter turn about Z.
    let clip = &scene.clips[0];
    assert_eq!(clip.name, "turn");
    let mut pose = facet::anim::Pose::new(&scene.skeleton);
    pose.evaluate(&scene.skeleton, Some(clip), 0.99);
    assert!(pose.skin[0].abs_diff_eq(Mat4::IDENTITY, 1e-6));
    pose.evaluate(&scene.skeleton, Some(clip), 1.0);
    let moved = pose.skin[0].transform_point3(Vec3::X);
    assert!(moved.abs_diff_eq(Vec3::Y, 1e-5), "{moved}");
}

/// A glTF file of tests/corpus/gltf (files made by others: see SOURCES.md
/// there), opened as a file manager would hand it over, with no directory:
/// everything it holds is inside it.
/// A glTF's buffers and images are read from its own folder and below:
/// a URI that leaves it (`..`, absolute) is refused and says so, whatever
/// lies there (the files it names exist here). The message said "not
/// found (no folder to look in)" before the reason, though there was one.
#[test]
fn gltf_uris_that_leave_the_folder_are_refused_and_say_why() {
    let dir = out_dir().join("escape");
    let inner = dir.join("inner");
    std::fs::create_dir_all(&inner).unwrap();
    // One triangle, three f32x3 positions.
    let floats: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let bin: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    std::fs::write(dir.join("secret.bin"), &bin).unwrap();
    std::fs::write(inner.join("beside.bin"), &bin).unwrap();
    let mut png = Vec::new();
    image::RgbaImage::new(2, 2)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    std::fs::write(dir.join("tex.png"), &png).unwrap();
    let gltf = |name: &str, buffer: &str, image: &str| {
        let json = serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"uri": buffer, "byteLength": 36}],
            "bufferViews": [{"buffer": 0, "byteLength": 36}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3,
                "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]}],
            "images": [{"uri": image}],
            "textures": [{"source": 0}],
            "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
            "nodes": [{"mesh": 0}],
            "scenes": [{"nodes": [0]}],
            "scene": 0
        });
        let path = inner.join(name);
        std::fs::write(&path, json.to_string()).unwrap();
        facet::load::load_file(&path)
    };
    let secret = dir.join("secret.bin").display().to_string();
    for (name, uri) in [("up.gltf", "../secret.bin"), ("absolute.gltf", &*secret)] {
        let err = gltf(name, uri, "tex.png").err().unwrap().to_string();
        assert_eq!(
            err,
            format!(
                "{name}: buffer 0: not found; {uri:?} leaves its folder (absolute or ..): not followed"
            )
        );
    }
    // The buffer beside it: the file loads, the image above it does not.
    let scene = gltf("image_up.gltf", "beside.bin", "../tex.png")
        .unwrap()
        .scene;
    assert_eq!(scene.meshes[0].positions.len(), 3);
    assert_eq!(
        scene.warnings,
        [
            r#"image "image 0": not found; "../tex.png" leaves its folder (absolute or ..): not followed; showing a checkerboard"#
        ]
    );
}

fn embedded(name: &str) -> Scene {
    let path = common::repo().join("tests/corpus/gltf").join(name);
    let bytes = std::fs::read(&path).unwrap();
    let loaded = facet::load::load_bytes(name, &bytes, None).unwrap();
    assert!(
        loaded.scene.warnings.is_empty(),
        "{name}: {:?}",
        loaded.scene.warnings
    );
    loaded.scene
}

/// Khronos' SimpleSkin (glTF Tutorial, "A Simple Skin"): four buffers, each
/// a `data:application/gltf-buffer;base64,` URI. A strip of 8 triangles,
/// two joints, one clip turning the second joint about Z. Every expected
/// value is the tutorial's own: the accessors' min and max, and the
/// vertices, weights and keys it lists, worked through glTF's skinning
/// equation here.
#[test]
fn khronos_simple_skin_reads_its_base64_buffers() {
    let scene = embedded("seed_simple_skin_embedded.gltf");
    assert_eq!(scene.meshes.len(), 1);
    let mesh = &scene.meshes[0];
    // Ten vertices: x = 0 and 1 on each of y = 0, 0.5, 1, 1.5, 2 (the
    // accessor's min [0, 0, 0] and max [1, 2, 0]).
    let grid: Vec<Vec3> = (0..10)
        .map(|i| Vec3::new((i % 2) as f32, (i / 2) as f32 * 0.5, 0.0))
        .collect();
    // The strip's quads: (2k, 2k+1, 2k+3) and (2k, 2k+3, 2k+2).
    let quads: Vec<u32> = (0..4u32)
        .flat_map(|k| {
            let a = 2 * k;
            [a, a + 1, a + 3, a, a + 3, a + 2]
        })
        .collect();
    assert_eq!(mesh.indices, quads);
    // The two joints and their ancestor, the node the mesh hangs on.
    assert_eq!(scene.skeleton.bones.len(), 3);
    assert_eq!(scene.clips.len(), 1);
    assert_eq!(scene.clips[0].duration_s, 5.5, "the times' max");

    // glTF's equation, by hand: joint 0 is node 1 (translated by (0, 1, 0)),
    // joint 1 its child node 2, turned by the clip; both inverse bind
    // matrices translate by (-0.5, -1, 0); row 2k of the weights is
    // (1 - k/4, k/4). At 1 s (the third key) joint 1 has turned 90 degrees.
    let ibm = Mat4::from_translation(Vec3::new(-0.5, -1.0, 0.0));
    let joint0 = Mat4::from_translation(Vec3::Y);
    let gltf_at = |turn: f32| -> Vec<Vec3> {
        let joint1 = joint0 * Mat4::from_rotation_z(turn);
        let (m0, m1) = (joint0 * ibm, joint1 * ibm);
        grid.iter()
            .enumerate()
            .map(|(i, &v)| {
                let w1 = (i / 2) as f32 / 4.0;
                m0.transform_point3(v) * (1.0 - w1) + m1.transform_point3(v) * w1
            })
            .collect()
    };
    let skin = mesh.skin.as_ref().unwrap();
    let mut pose = facet::anim::Pose::new(&scene.skeleton);
    for (t, turn) in [(0.0, 0.0f32), (1.0, 90.0), (2.5, 0.0), (4.0, -90.0)] {
        pose.evaluate(&scene.skeleton, Some(&scene.clips[0]), t);
        let mut ours = vec![Vec3::ZERO; grid.len()];
        let mut normals = vec![Vec3::ZERO; grid.len()];
        facet::anim::skin_vertices(
            &pose.skin,
            skin,
            &mesh.positions,
            &vec![Vec3::Z; grid.len()],
            &mut ours,
            &mut normals,
        );
        // This file's default pose (joint 0 at x = 0) and its bind
        // matrices (x = 0.5) disagree by one translation for both joints:
        // the mesh is moved by it and every pose is the equation's.
        let expected = gltf_at(turn.to_radians());
        for (i, (o, e)) in ours.iter().zip(&expected).enumerate() {
            assert!(
                o.abs_diff_eq(*e, 1e-5),
                "vertex {i} at {t} s: {o} against glTF's {e}"
            );
        }
        if t == 0.0 {
            // At rest: the grid moved by -0.5 along x.
            let moved: Vec<Vec3> = grid.iter().map(|v| *v - Vec3::new(0.5, 0.0, 0.0)).collect();
            assert_eq!(mesh.positions, moved);
        }
    }

    // Joint 1 moved up by 0.5 in the default pose: its G * IBM is now a
    // translation by (-0.5, 0.5, 0), joint 0's still (-0.5, 0, 0). No one
    // transform takes the bind pose to the default pose: the bind pose is
    // shown, and a warning says so.
    let text =
        std::fs::read(common::repo().join("tests/corpus/gltf/seed_simple_skin_embedded.gltf"))
            .unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(&text).unwrap();
    json["nodes"][2]["translation"] = serde_json::json!([0.0, 0.5, 0.0]);
    let scene = facet::load::load_bytes("apart.gltf", &serde_json::to_vec(&json).unwrap(), None)
        .unwrap()
        .scene;
    assert_eq!(scene.meshes[0].positions, grid, "bind space");
    assert_eq!(scene.warnings.len(), 1, "{:?}", scene.warnings);
    assert!(
        scene.warnings[0]
            .starts_with("the skin's inverse bind matrices and its joints' default pose differ"),
        "{}",
        scene.warnings[0]
    );
}

/// Khronos' BoxTextured, glTF-Embedded form (COLLADA2GLTF): its buffer
/// and its PNG are both `data:` URIs.
#[test]
fn khronos_box_textured_reads_its_embedded_png() {
    let scene = embedded("seed_box_textured_embedded.gltf");
    let mesh = &scene.meshes[0];
    assert_eq!((mesh.positions.len(), mesh.indices.len()), (24, 36));
    // The accessor's bounds, +-0.5, through the node's quarter turn about X
    // (y' = -z, z' = y): still +-0.5 on every axis.
    let (lo, hi) = mesh
        .positions
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(l, h), p| (l.min(*p), h.max(*p)));
    assert!(lo.abs_diff_eq(Vec3::splat(-0.5), 1e-6) && hi.abs_diff_eq(Vec3::splat(0.5), 1e-6));
    // The UVs' max, as the accessor says (6, 1).
    let u = mesh.uvs.iter().map(|v| v.x).fold(0.0, f32::max);
    assert!((u - 6.0).abs() < 1e-6, "{u}");
    // The PNG's header says 256 x 256 (IHDR in the URI's first bytes).
    let material = &scene.materials[mesh.material.unwrap()];
    let tex = &scene.textures[material.texture.expect("the base colour texture")];
    assert_eq!((tex.width, tex.height), (256, 256));
    assert!(matches!(tex.source, facet::scene::TextureSource::Embedded));
    assert_eq!(tex.format, "image/png 256x256");
    assert_eq!(material.alpha_cutoff, None, "OPAQUE, the default");
    assert_eq!(material.shading, 1.0, "lit");

    // The same box as MASK: the file's cutoff, or 0.5 where it gives none
    // (the specification's default); exported back as MASK with it.
    let text =
        std::fs::read(common::repo().join("tests/corpus/gltf/seed_box_textured_embedded.gltf"))
            .unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(&text).unwrap();
    // KHR_materials_unlit, required: the colour drawn as it is.
    let mut unlit = json.clone();
    unlit["extensionsUsed"] = serde_json::json!(["KHR_materials_unlit"]);
    unlit["extensionsRequired"] = serde_json::json!(["KHR_materials_unlit"]);
    unlit["materials"][0]["extensions"] = serde_json::json!({"KHR_materials_unlit": {}});
    let file = out_dir().join("unlit.gltf");
    std::fs::write(&file, serde_json::to_vec(&unlit).unwrap()).unwrap();
    let report = &validate(std::slice::from_ref(&file))[0];
    assert_eq!(report["errors"], 0, "{report}");
    let scene = facet::load::load_bytes("unlit.gltf", &serde_json::to_vec(&unlit).unwrap(), None)
        .unwrap()
        .scene;
    assert_eq!(scene.materials[0].shading, 0.0, "unlit");
    json["materials"][0]["alphaMode"] = "MASK".into();
    for (cutoff, want) in [(Some(0.3), 0.3), (None, 0.5)] {
        if let Some(c) = cutoff {
            json["materials"][0]["alphaCutoff"] = c.into();
        } else if let Some(m) = json["materials"][0].as_object_mut() {
            m.remove("alphaCutoff");
        }
        let scene = facet::load::load_bytes("mask.gltf", &serde_json::to_vec(&json).unwrap(), None)
            .unwrap()
            .scene;
        assert_eq!(scene.materials[0].alpha_cutoff, Some(want), "{cutoff:?}");
        let glb = export(&scene).unwrap().glb();
        let (out, _) = glb_chunks(&glb);
        assert_eq!(out["materials"][0]["alphaMode"], "MASK");
        let file = out_dir().join(format!("mask_{want}.glb"));
        std::fs::write(&file, &glb).unwrap();
        let report = &validate(std::slice::from_ref(&file))[0];
        assert_eq!(
            (&report["errors"], &report["warnings"]),
            (&0.into(), &0.into()),
            "{report}"
        );
        assert!((out["materials"][0]["alphaCutoff"].as_f64().unwrap() - want as f64).abs() < 1e-6);
    }
}

/// Standard base64 with padding (RFC 4648 §4), written out here from the
/// RFC rather than taken from the crate the importer reads it with.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            out.push(if k <= c.len() {
                ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

/// `data:` URIs in the other forms RFC 2397 allows, assembled here: bytes
/// percent-encoded rather than base64, a scheme in capitals, and base64
/// broken across lines; then the ones that cannot be read.
#[test]
fn data_uris_in_every_form_and_their_errors() {
    // One triangle: indices 0, 1, 2 (u16) and 2 bytes of padding, then
    // (0,0,0), (1,0,0), (0,1,0) as floats.
    let mut bin: Vec<u8> = [0u16, 1, 2].iter().flat_map(|i| i.to_le_bytes()).collect();
    bin.extend([0, 0]);
    for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        bin.extend(p.iter().flat_map(|c| c.to_le_bytes()));
    }
    let percent: String = bin.iter().map(|b| format!("%{b:02X}")).collect();
    let b64 = base64(&bin);
    let file = |uri: &str, image: Option<serde_json::Value>| {
        let mut json = serde_json::json!({
            "asset": {"version": "2.0"},
            "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 1}, "indices": 0}]}],
            "buffers": [{"uri": uri, "byteLength": 44}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 6},
                {"buffer": 0, "byteOffset": 8, "byteLength": 36}
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5123, "count": 3, "type": "SCALAR"},
                {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3",
                 "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}
            ]
        });
        if let Some(mut image) = image {
            image["name"] = "skin".into();
            if let Some(png) = image.get("png").cloned() {
                // Bytes in a view of a second buffer.
                let n = image["length"].clone();
                json["buffers"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!({"uri": png, "byteLength": n}));
                json["bufferViews"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!({"buffer": 1, "byteLength": n}));
                image = serde_json::json!({"bufferView": 2, "name": "skin"});
            }
            json["images"] = serde_json::json!([image]);
            json["textures"] = serde_json::json!([{"source": 0}]);
            json["materials"] =
                serde_json::json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
            json["meshes"][0]["primitives"][0]["material"] = 0.into();
        }
        facet::load::load_bytes("t.gltf", &serde_json::to_vec(&json).unwrap(), None)
    };
    let triangle = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let (wrapped_head, wrapped_tail) = b64.split_at(20);
    for uri in [
        format!("data:application/octet-stream,{percent}"),
        format!("DATA:application/gltf-buffer;base64,{b64}"),
        format!("data:;base64,{wrapped_head}\n  {wrapped_tail}"),
    ] {
        let scene = file(&uri, None)
            .unwrap_or_else(|e| panic!("{uri}: {e}"))
            .scene;
        assert_eq!(scene.meshes[0].positions, triangle, "{uri}");
        assert_eq!(scene.meshes[0].indices, [0, 1, 2], "{uri}");
    }
    let error = |uri: &str| file(uri, None).map(|_| ()).unwrap_err().to_string();
    assert_eq!(
        error("data:application/octet-stream;base64,AAA*"),
        "t.gltf: buffer 0: its data: URI: not valid base64"
    );
    assert_eq!(
        error("data:application/octet-stream;base64"),
        "t.gltf: buffer 0: its data: URI: data url is missing comma delimiting attributes and body"
    );
    // Fewer bytes than the buffer's byteLength says.
    assert_eq!(
        error("data:application/octet-stream;base64,AAAA"),
        "t.gltf: buffer 0: 3 bytes, the file says 44"
    );
    // An image that cannot be read is a warning and a checkerboard: the
    // model still opens.
    let good = format!("data:;base64,{b64}");
    let uri = |u: &str| Some(serde_json::json!({ "uri": u }));
    for (image, says) in [
        (
            uri("data:image/png;base64,%%%"),
            "image \"skin\": its data: URI: not valid base64",
        ),
        (
            uri("data:image/ktx2;base64,q0tUWCAyMLsNChoK"),
            "image \"skin\": image/ktx2 is not an image type Facet reads (glTF's core PNG and JPEG, and EXT_texture_webp's WebP)",
        ),
        // A WebP cut short: its RIFF header alone.
        (
            uri("data:image/webp;base64,UklGRg=="),
            "image \"skin\": WebP: ",
        ),
        // Neither of the two sources the specification allows.
        (
            Some(serde_json::json!({"mimeType": "image/png"})),
            "image \"skin\": neither a uri nor a bufferView",
        ),
    ] {
        let scene = file(&good, image).unwrap().scene;
        assert_eq!(scene.warnings.len(), 1, "{:?}", scene.warnings);
        assert!(scene.warnings[0].starts_with(says), "{}", scene.warnings[0]);
        assert!(matches!(
            scene.textures[0].source,
            facet::scene::TextureSource::Missing(_)
        ));
    }
    // A view without the mimeType the specification asks for beside it:
    // BoxTextured's PNG, read for what its bytes are.
    let box_gltf: serde_json::Value = serde_json::from_slice(
        &std::fs::read(common::repo().join("tests/corpus/gltf/seed_box_textured_embedded.gltf"))
            .unwrap(),
    )
    .unwrap();
    let png = box_gltf["images"][0]["uri"].clone();
    let scene = file(&good, Some(serde_json::json!({"png": png, "length": 3750})))
        .unwrap()
        .scene;
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let tex = &scene.textures[0];
    assert_eq!((tex.width, tex.height), (256, 256));
    assert!(matches!(tex.source, facet::scene::TextureSource::Embedded));
}

/// An attribute naming an accessor the file lacks is an error: gltf-json's
/// validation once panicked on it (looking up the POSITION accessor before
/// checking it; found by the mutation sweep from the BoxTextured seed).
#[test]
fn an_attribute_naming_no_accessor_is_an_error() {
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 2}}]}]
    });
    let bytes = serde_json::to_vec(&json).unwrap();
    let e = std::panic::catch_unwind(|| facet::load::load_bytes("t.gltf", &bytes, None))
        .expect("no panic")
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.gltf: meshes[0].primitives[0].attributes[\"POSITION\"]: no accessor 2 (the file has 0)"
    );
}

/// KHR_mesh_quantization (the extension's specification, assembled here
/// field by field): positions as unnormalized 16-bit integers scaled back
/// by their node, normals as normalized bytes, UVs as normalized unsigned
/// shorts; each attribute's stride a multiple of 4, as the extension asks.
/// Khronos' validator checks the file; the importer reads it as floats.
/// A file requiring an extension the importer does not read is refused by
/// name.
#[test]
fn quantized_attributes_read_as_their_floats() {
    let dir = out_dir().join("quantized");
    std::fs::create_dir_all(&dir).unwrap();
    let mut bin = Vec::new();
    // Positions: (0,0,0), (1000,0,0), (0,1000,0) as i16, 2 bytes of
    // padding each (stride 8).
    for p in [[0i16, 0, 0], [1000, 0, 0], [0, 1000, 0]] {
        bin.extend(p.iter().flat_map(|c| c.to_le_bytes()));
        bin.extend([0, 0]);
    }
    let normals_at = bin.len(); // (0, 0, 127) as i8, 1 byte of padding each
    for _ in 0..3 {
        bin.extend([0u8, 0, 127, 0]);
    }
    let uvs_at = bin.len(); // u16 pairs, normalized: 65535 is 1
    for uv in [[0u16, 0], [65535, 0], [0, 65535]] {
        bin.extend(uv.iter().flat_map(|c| c.to_le_bytes()));
    }
    let b64 = base64(&bin);
    let gltf = |required: &str| {
        serde_json::json!({
            "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
            "extensionsUsed": [required],
            "extensionsRequired": [required],
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0, "scale": [0.001, 0.001, 0.001]}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}}]}],
            "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{b64}"), "byteLength": bin.len()}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": normals_at, "byteStride": 8, "target": 34962},
                {"buffer": 0, "byteOffset": normals_at, "byteLength": uvs_at - normals_at, "byteStride": 4, "target": 34962},
                {"buffer": 0, "byteOffset": uvs_at, "byteLength": bin.len() - uvs_at, "byteStride": 4, "target": 34962}
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5122, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1000, 1000, 0]},
                {"bufferView": 1, "componentType": 5120, "normalized": true, "count": 3, "type": "VEC3"},
                {"bufferView": 2, "componentType": 5123, "normalized": true, "count": 3, "type": "VEC2"}
            ]
        })
    };
    let file = dir.join("quantized.gltf");
    let text = serde_json::to_vec_pretty(&gltf("KHR_mesh_quantization")).unwrap();
    std::fs::write(&file, &text).unwrap();
    let report = &validate(std::slice::from_ref(&file))[0];
    assert_eq!(report["errors"], 0, "the hand-made file itself: {report}");
    assert_eq!(report["warnings"], 0, "the hand-made file itself: {report}");

    let scene = facet::load::load_bytes("quantized.gltf", &text, None)
        .unwrap()
        .scene;
    let mesh = &scene.meshes[0];
    // 1000 x 0.001 = 1 (to float rounding of the node's scale).
    let want = [Vec3::ZERO, Vec3::X, Vec3::Y];
    for (got, want) in mesh.positions.iter().zip(want) {
        assert!(got.abs_diff_eq(want, 1e-6), "{got} against {want}");
    }
    assert!(mesh.normals.iter().all(|n| n.abs_diff_eq(Vec3::Z, 1e-6)));
    assert_eq!(mesh.uvs[1], glam::Vec2::new(1.0, 0.0));
    assert_eq!(mesh.uvs[2], glam::Vec2::new(0.0, 1.0));

    let e = facet::load::load_bytes(
        "basisu.gltf",
        &serde_json::to_vec(&gltf("KHR_texture_basisu")).unwrap(),
        None,
    )
    .map(|_| ())
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "basisu.gltf: the file requires the extension KHR_texture_basisu, which Facet does not read"
    );
}

/// Khronos' SimpleSparseAccessor (glTF-Embedded): a 7 x 2 grid of
/// vertices whose positions accessor is sparse, three of its vertices
/// (8, 10 and 12, the sample's description) moved up to make a zigzag.
/// The accessor's own max, y = 4, holds only with them substituted.
#[test]
fn khronos_simple_sparse_accessor_substitutes_its_vertices() {
    let scene = embedded("seed_simple_sparse_accessor_embedded.gltf");
    let mut want: Vec<Vec3> = (0..14)
        .map(|i| Vec3::new((i % 7) as f32, (i / 7) as f32, 0.0))
        .collect();
    want[8] = Vec3::new(1.0, 2.0, 0.0);
    want[10] = Vec3::new(3.0, 3.0, 0.0);
    want[12] = Vec3::new(5.0, 4.0, 0.0);
    let mesh = &scene.meshes[0];
    assert_eq!(mesh.positions, want);
    assert_eq!(mesh.indices.len(), 36);
    let top = mesh.positions.iter().map(|p| p.y).fold(0.0, f32::max);
    assert_eq!(top, 4.0, "the accessor's max");

    // Broken forms: a sparse count past what its views hold, and an index
    // past the accessor's elements.
    let text = std::fs::read_to_string(
        common::repo().join("tests/corpus/gltf/seed_simple_sparse_accessor_embedded.gltf"),
    )
    .unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["accessors"][1]["sparse"]["count"] = 4.into();
    let e = facet::load::load_bytes("s.gltf", &serde_json::to_vec(&json).unwrap(), None)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "s.gltf: accessor 1: its 4 sparse indices or values run past their views"
    );
    json["accessors"][1]["sparse"]["count"] = 3.into();
    json["accessors"][1]["count"] = 12.into();
    let e = facet::load::load_bytes("s.gltf", &serde_json::to_vec(&json).unwrap(), None)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "s.gltf: accessor 1: sparse index 2 is 12, past its 12 elements"
    );
    // Morph targets (here the same accessor as a target) are named in a
    // warning, the base shape shown.
    json["accessors"][1]["count"] = 14.into();
    json["meshes"][0]["primitives"][0]["targets"] = serde_json::json!([{"POSITION": 1}]);
    let scene = facet::load::load_bytes("s.gltf", &serde_json::to_vec(&json).unwrap(), None)
        .unwrap()
        .scene;
    assert_eq!(scene.meshes[0].positions, want);
    assert_eq!(
        scene.warnings,
        ["part \"mesh 0\": 1 morph target is not read; shown in its base shape"]
    );
}

/// KHR_texture_transform (the extension's specification, assembled here):
/// a quad whose base colour texture is scaled by (2, 3), turned a quarter
/// turn and moved by (0.5, 0). The specification's matrix T * R * S, with
/// R = [cos, sin; -sin, cos], worked by hand for a quarter turn: u' = 3v +
/// 0.5, v' = -2u. A file that requires the extension opens.
#[test]
fn a_texture_transform_is_baked_into_the_uvs() {
    let dir = out_dir().join("texture_transform");
    std::fs::create_dir_all(&dir).unwrap();
    let mut bin = Vec::new();
    for p in [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ] {
        bin.extend(p.iter().flat_map(|c| c.to_le_bytes()));
    }
    let uvs_at = bin.len();
    for uv in [[0.0f32, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]] {
        bin.extend(uv.iter().flat_map(|c| c.to_le_bytes()));
    }
    let indices_at = bin.len();
    bin.extend([0u16, 1, 2, 0, 2, 3].iter().flat_map(|i| i.to_le_bytes()));
    // A 1x1 PNG would do; the checkerboard of a missing image does too,
    // but the file must be valid: a view of real PNG bytes from the box.
    let box_gltf: serde_json::Value = serde_json::from_slice(
        &std::fs::read(common::repo().join("tests/corpus/gltf/seed_box_textured_embedded.gltf"))
            .unwrap(),
    )
    .unwrap();
    let transform = serde_json::json!({"KHR_texture_transform": {
        "offset": [0.5, 0.0], "rotation": std::f32::consts::FRAC_PI_2, "scale": [2.0, 3.0]
    }});
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "extensionsUsed": ["KHR_texture_transform"],
        "extensionsRequired": ["KHR_texture_transform"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0, "extensions": transform}}}],
        "textures": [{"source": 0}],
        "images": [{"uri": box_gltf["images"][0]["uri"]}],
        "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin)), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": uvs_at, "target": 34962},
            {"buffer": 0, "byteOffset": uvs_at, "byteLength": indices_at - uvs_at, "target": 34962},
            {"buffer": 0, "byteOffset": indices_at, "byteLength": 12, "target": 34963}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ]
    });
    let file = dir.join("texture_transform.gltf");
    let text = serde_json::to_vec_pretty(&gltf).unwrap();
    std::fs::write(&file, &text).unwrap();
    let report = &validate(std::slice::from_ref(&file))[0];
    assert_eq!(
        (&report["errors"], &report["warnings"]),
        (&0.into(), &0.into()),
        "the hand-made file itself: {report}"
    );
    let scene = facet::load::load_bytes("texture_transform.gltf", &text, None)
        .unwrap()
        .scene;
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let want = [
        glam::Vec2::new(0.5, 0.0),
        glam::Vec2::new(0.5, -2.0),
        glam::Vec2::new(3.5, -2.0),
        glam::Vec2::new(3.5, 0.0),
    ];
    for (got, want) in scene.meshes[0].uvs.iter().zip(want) {
        assert!(got.abs_diff_eq(want, 1e-6), "{got} against {want}");
    }

    // A second UV set, TEXCOORD_1, of (2u, 2v). A base colour texture that
    // names texCoord 1 is drawn with it; a transform's own texCoord
    // overrides the texture's (the extension's specification): the same
    // matrix on (2u, 2v), u' = 6v + 0.5, v' = -4u.
    let mut bin2 = bin.clone();
    let uv1_at = bin2.len();
    for uv in [[0.0f32, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]] {
        bin2.extend(uv.iter().flat_map(|c| c.to_le_bytes()));
    }
    let mut two = gltf.clone();
    two["buffers"][0] = serde_json::json!({"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin2)), "byteLength": bin2.len()});
    two["bufferViews"].as_array_mut().unwrap().push(
        serde_json::json!({"buffer": 0, "byteOffset": uv1_at, "byteLength": 32, "target": 34962}),
    );
    two["accessors"].as_array_mut().unwrap().push(
        serde_json::json!({"bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC2"}),
    );
    two["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_1"] = serde_json::json!(3);
    let by_texture = {
        let mut g = two.clone();
        g["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] =
            serde_json::json!({"index": 0, "texCoord": 1});
        g
    };
    let by_transform = {
        let mut g = two.clone();
        g["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]["KHR_texture_transform"]
            ["texCoord"] = serde_json::json!(1);
        g
    };
    for (name, g, want) in [
        (
            "texcoord1.gltf",
            by_texture,
            [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)],
        ),
        (
            "transform_texcoord1.gltf",
            by_transform,
            [(0.5, 0.0), (0.5, -4.0), (6.5, -4.0), (6.5, 0.0)],
        ),
    ] {
        let file = dir.join(name);
        let text = serde_json::to_vec_pretty(&g).unwrap();
        std::fs::write(&file, &text).unwrap();
        let report = &validate(std::slice::from_ref(&file))[0];
        assert_eq!(
            (&report["errors"], &report["warnings"]),
            (&0.into(), &0.into()),
            "{name} itself: {report}"
        );
        let scene = facet::load::load_bytes(name, &text, None).unwrap().scene;
        for (got, (u, v)) in scene.meshes[0].uvs.iter().zip(want) {
            let want = glam::Vec2::new(u, v);
            assert!(got.abs_diff_eq(want, 1e-6), "{name}: {got} against {want}");
        }
    }
}

/// Several skins (FBX2glTF and UnityGLTF write one a skinned mesh; Khronos'
/// RecursiveSkeletons binds 84 to four skeletons), assembled here from the
/// specification and checked by Khronos' validator. Two joints, "shoulder"
/// (node 0, at the origin) and its child "arm" (node 1, at x = 1), and a
/// second skeleton, "tail" (node 2, at y = 2); a clip turns the arm and the
/// tail a quarter about Z. Four skins:
/// - 0, "body": both joints, bound where the nodes are (IBMs I and T(-1,0,0));
/// - 1, "sleeve": the arm alone, with the same bind matrix as skin 0;
/// - 2, "tail": no inverse bind matrices (the identity, the specification
///   says), so its vertices move by the tail's default transform, T(0,2,0);
/// - 3, "cuff": both joints, the shoulder bound one unit higher
///   (T(0,-1,0)): no one transform takes its bind space to the skeleton's.
///
/// Every part's vertices, through the viewer's pose and skinning, equal
/// glTF's equation (sum w_j G_j IBM_j v) worked here at rest and at the
/// quarter turn; for the cuff, at rest and for vertices on one joint only.
#[test]
fn every_skin_of_a_file_moves_its_own_parts() {
    // Per part: (positions, (joint, weight) pairs) in its skin's joints.
    type Vertex = ([f32; 3], [(u8, f32); 2]);
    let parts: [(&str, [Vertex; 3]); 4] = [
        (
            "body",
            [
                ([0.0, 0.0, 0.0], [(0, 1.0), (0, 0.0)]),
                ([2.0, 0.0, 0.0], [(1, 1.0), (0, 0.0)]),
                ([1.0, 1.0, 0.0], [(0, 0.5), (1, 0.5)]),
            ],
        ),
        (
            "sleeve",
            [
                ([2.0, 0.0, 0.0], [(0, 1.0), (0, 0.0)]),
                ([2.0, 1.0, 0.0], [(0, 1.0), (0, 0.0)]),
                ([3.0, 0.0, 0.0], [(0, 1.0), (0, 0.0)]),
            ],
        ),
        (
            "tail",
            [
                ([1.0, 0.0, 0.0], [(0, 1.0), (0, 0.0)]),
                ([0.0, 1.0, 0.0], [(0, 1.0), (0, 0.0)]),
                ([0.0, 0.0, 1.0], [(0, 1.0), (0, 0.0)]),
            ],
        ),
        (
            "cuff",
            [
                ([0.0, 1.0, 0.0], [(0, 1.0), (0, 0.0)]),
                ([2.0, 0.0, 0.0], [(1, 1.0), (0, 0.0)]),
                ([1.0, 1.0, 0.0], [(0, 0.5), (1, 0.5)]),
            ],
        ),
    ];
    let shoulder_ibm = [Mat4::IDENTITY, Mat4::from_translation(Vec3::NEG_Y)];
    let arm_ibm = Mat4::from_translation(Vec3::NEG_X);

    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut view = |bin: &mut Vec<u8>, bytes: Vec<u8>, accessor: serde_json::Value| {
        views.push(
            serde_json::json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}),
        );
        bin.extend(bytes);
        let mut a = accessor;
        a["bufferView"] = serde_json::json!(views.len() - 1);
        accessors.push(a);
        accessors.len() - 1
    };
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut meshes = Vec::new();
    for (_, vertices) in &parts {
        let pos: Vec<f32> = vertices.iter().flat_map(|(p, _)| *p).collect();
        let (lo, hi) = (0..3).fold((vec![], vec![]), |(mut l, mut h), c| {
            l.push(
                pos.iter()
                    .skip(c)
                    .step_by(3)
                    .cloned()
                    .fold(f32::MAX, f32::min),
            );
            h.push(
                pos.iter()
                    .skip(c)
                    .step_by(3)
                    .cloned()
                    .fold(f32::MIN, f32::max),
            );
            (l, h)
        });
        let p = view(
            &mut bin,
            f32s(&pos),
            serde_json::json!({"componentType": 5126, "count": 3, "type": "VEC3", "min": lo, "max": hi}),
        );
        let joints: Vec<u8> = vertices
            .iter()
            .flat_map(|(_, jw)| [jw[0].0, jw[1].0, 0, 0])
            .collect();
        let j = view(
            &mut bin,
            joints,
            serde_json::json!({"componentType": 5121, "count": 3, "type": "VEC4"}),
        );
        let weights: Vec<f32> = vertices
            .iter()
            .flat_map(|(_, jw)| [jw[0].1, jw[1].1, 0.0, 0.0])
            .collect();
        let w = view(
            &mut bin,
            f32s(&weights),
            serde_json::json!({"componentType": 5126, "count": 3, "type": "VEC4"}),
        );
        meshes.push(serde_json::json!({"primitives": [{"attributes": {"POSITION": p, "JOINTS_0": j, "WEIGHTS_0": w}}]}));
    }
    let mat = |m: &[Mat4]| f32s(&m.iter().flat_map(|m| m.to_cols_array()).collect::<Vec<_>>());
    let mut ibm = |m: &[Mat4]| {
        let a = serde_json::json!({"componentType": 5126, "count": m.len(), "type": "MAT4"});
        view(&mut bin, mat(m), a)
    };
    let body = ibm(&[Mat4::IDENTITY, arm_ibm]);
    let sleeve = ibm(&[arm_ibm]);
    let cuff = ibm(&[shoulder_ibm[1], arm_ibm]);
    let times = view(
        &mut bin,
        f32s(&[0.0, 1.0]),
        serde_json::json!({"componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]}),
    );
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let turn = view(
        &mut bin,
        f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, half, half]),
        serde_json::json!({"componentType": 5126, "count": 2, "type": "VEC4"}),
    );
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "scene": 0,
        "scenes": [{"nodes": [0, 2, 3, 4, 5, 6]}],
        "nodes": [
            {"name": "shoulder", "children": [1]},
            {"name": "arm", "translation": [1.0, 0.0, 0.0]},
            {"name": "tail", "translation": [0.0, 2.0, 0.0]},
            {"name": "body", "mesh": 0, "skin": 0},
            {"name": "sleeve", "mesh": 1, "skin": 1},
            {"name": "tail part", "mesh": 2, "skin": 2},
            {"name": "cuff", "mesh": 3, "skin": 3}
        ],
        "skins": [
            {"joints": [0, 1], "inverseBindMatrices": body},
            {"joints": [1], "inverseBindMatrices": sleeve},
            {"joints": [2]},
            {"joints": [0, 1], "inverseBindMatrices": cuff}
        ],
        "meshes": meshes,
        "animations": [{"name": "turn", "samplers": [{"input": times, "output": turn}],
                        "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                                     {"sampler": 0, "target": {"node": 2, "path": "rotation"}}]}],
        "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin)), "byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": accessors
    });
    let text = valid_by_hand("skins", "skins.gltf", &gltf);

    // Fewer inverse bind matrices than joints (the specification: "greater
    // than or equal to") is an error that says so.
    let mut short = gltf.clone();
    short["skins"][0]["inverseBindMatrices"] = serde_json::json!(sleeve);
    let e = facet::load::load_bytes("short.gltf", &serde_json::to_vec(&short).unwrap(), None)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("skin 0: 1 inverse bind matrices for 2 joints"),
        "{e}"
    );

    let scene = facet::load::load_bytes("skins.gltf", &text, None)
        .unwrap()
        .scene;
    let names: Vec<&str> = scene
        .skeleton
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names, ["shoulder", "arm", "tail"], "one bone a node");
    assert_eq!(scene.meshes.len(), 4);
    assert!(
        scene.meshes.iter().all(|m| m.skin.is_some()),
        "every part skinned"
    );
    // Only the cuff's skin disagrees with the skeleton, joint by joint.
    assert_eq!(scene.warnings.len(), 1, "{:?}", scene.warnings);
    assert!(
        scene.warnings[0].starts_with("skin 3 shares joints"),
        "{}",
        scene.warnings[0]
    );

    // glTF's equation, by hand. Node globals at a turn of `a` radians:
    // shoulder I, arm T(1,0,0) R(a), tail T(0,2,0) R(a).
    let globals = |a: f32| {
        [
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::X) * Mat4::from_rotation_z(a),
            Mat4::from_translation(2.0 * Vec3::Y) * Mat4::from_rotation_z(a),
        ]
    };
    // Each skin's joints (as nodes) and inverse bind matrices.
    let skins: [(&[usize], Vec<Mat4>); 4] = [
        (&[0, 1], vec![Mat4::IDENTITY, arm_ibm]),
        (&[1], vec![arm_ibm]),
        (&[2], vec![Mat4::IDENTITY]),
        (&[0, 1], vec![shoulder_ibm[1], arm_ibm]),
    ];
    let mut pose = facet::anim::Pose::new(&scene.skeleton);
    for (t, a) in [(0.0, 0.0f32), (1.0, std::f32::consts::FRAC_PI_2)] {
        pose.evaluate(&scene.skeleton, Some(&scene.clips[0]), t);
        let g = globals(a);
        for (((name, vertices), mesh), (joints, ibm)) in parts.iter().zip(&scene.meshes).zip(&skins)
        {
            let mut ours = vec![Vec3::ZERO; 3];
            let mut normals = vec![Vec3::ZERO; 3];
            facet::anim::skin_vertices(
                &pose.skin,
                mesh.skin.as_ref().unwrap(),
                &mesh.positions,
                &[Vec3::Z; 3],
                &mut ours,
                &mut normals,
            );
            for (i, (v, jw)) in vertices.iter().enumerate() {
                let one_joint = jw[1].1 == 0.0;
                if *name == "cuff" && t > 0.0 && !one_joint {
                    continue; // the blend of two bind spaces: exact at rest only
                }
                let v = Vec3::from_array(*v);
                let want: Vec3 = jw
                    .iter()
                    .map(|&(j, w)| {
                        let j = j as usize;
                        (g[joints[j]] * ibm[j]).transform_point3(v) * w
                    })
                    .sum();
                assert!(
                    ours[i].abs_diff_eq(want, 1e-5),
                    "{name} vertex {i} at {t} s: {} against glTF's {want}",
                    ours[i]
                );
            }
        }
    }
}

/// Runs gltfpack (meshoptimizer's glTF tool, npm `gltfpack`, installed by
/// scripts/test) on `input` with `args`, writing `output`.
fn gltfpack(input: &Path, output: &Path, args: &[&str]) {
    let mut all = vec![
        "-i".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        output.as_os_str(),
    ];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    node_tool("gltfpack/cli.js", &all, output);
}

/// Runs the Node.js script `script` of a tool scripts/test installs from
/// the npm registry (under target/npm/node_modules) with `args`: it must
/// succeed and write `output`.
fn node_tool(script: &str, args: &[&std::ffi::OsStr], output: &Path) {
    let run = Command::new("node")
        .arg(common::repo().join("target/npm/node_modules").join(script))
        .args(args)
        .output()
        .expect("Node.js is needed for the npm tools (scripts/test installs both)");
    assert!(
        run.status.success() && output.exists(),
        "{script} {args:?}: {}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
}

/// Each part's vertices skinned by the scene's first clip at `t` (its rest
/// pose without clips).
fn skinned_at(scene: &Scene, t: f32) -> Vec<Vec<(Vec3, Vec3)>> {
    let mut pose = facet::anim::Pose::new(&scene.skeleton);
    pose.evaluate(&scene.skeleton, scene.clips.first(), t);
    scene
        .meshes
        .iter()
        .map(|m| {
            let n = m.positions.len();
            let (mut p, mut q) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
            match &m.skin {
                Some(s) => facet::anim::skin_vertices(
                    &pose.skin,
                    s,
                    &m.positions,
                    &m.normals,
                    &mut p,
                    &mut q,
                ),
                None => {
                    p.copy_from_slice(&m.positions);
                    q.copy_from_slice(&m.normals);
                }
            }
            p.into_iter().zip(q).collect()
        })
        .collect()
}

/// At `t` seconds into each scene's first clip, the farthest any vertex of
/// `packed`'s first part is skinned from where its source vertex (`of`, in
/// `source`'s first part) is.
fn farthest_skinned(source: &Scene, packed: &Scene, of: &[usize], t: f32) -> f32 {
    let (ss, ps) = (skinned_at(source, t), skinned_at(packed, t));
    of.iter()
        .enumerate()
        .map(|(i, &a)| ss[0][a].0.distance(ps[0][i].0))
        .fold(0.0, f32::max)
}

/// Files as gltfpack writes them (meshoptimizer 1.3's tool, the usual way
/// glTF is compressed for three.js and Babylon): `-c` (EXT_meshopt_compression,
/// attribute codec version 0, no filters), `-cc` (adds the OCTAHEDRAL,
/// QUATERNION and EXPONENTIAL filters) and `-cz` (KHR_meshopt_compression,
/// attribute codec version 1), each with KHR_mesh_quantization and a
/// fallback buffer that holds no bytes. The source is CesiumMan.m3d (a
/// shared fixture) as the viewer exports it; each packed file must read as
/// that source does, to gltfpack's own quantization: every triangle's
/// corners at the source's (positions at 14 bits over the model's size,
/// gltfpack's default), every vertex's normal within 8-bit octahedral
/// error, and every vertex skinned by the resampled clip (30 Hz, 12-bit
/// rotations) where the source's is, within 1% of the model's height.
#[test]
fn gltfpack_compressed_files_read_as_their_source() {
    let dir = out_dir().join("gltfpack");
    let source_file = exported_fixture(&dir, "CesiumMan");
    let source = load(&source_file);
    let size = extent(&source.meshes[0].positions);

    for (flag, extension, header, filters) in [
        ("-c", "EXT_meshopt_compression", 0xa0u8, &[][..]),
        (
            "-cc",
            "EXT_meshopt_compression",
            0xa0,
            &["EXPONENTIAL", "OCTAHEDRAL", "QUATERNION"][..],
        ),
        (
            "-cz",
            "KHR_meshopt_compression",
            0xa1,
            &["EXPONENTIAL", "OCTAHEDRAL", "QUATERNION"][..],
        ),
    ] {
        let packed_file = dir.join(format!("CesiumMan{flag}.glb"));
        gltfpack(&source_file, &packed_file, &[flag]);
        // What gltfpack wrote: the extension required, its views compressed
        // with the codec version and filters named above.
        let bytes = std::fs::read(&packed_file).unwrap();
        let (json, bin) = glb_chunks(&bytes);
        assert!(
            json["extensionsRequired"]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!(extension)),
            "{flag}: {}",
            json["extensionsRequired"]
        );
        let exts: Vec<&serde_json::Value> = json["bufferViews"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v["extensions"].get(extension))
            .collect();
        let attribute_headers: std::collections::BTreeSet<u8> = exts
            .iter()
            .filter(|e| e["mode"] == "ATTRIBUTES")
            .map(|e| bin[e["byteOffset"].as_u64().unwrap_or(0) as usize])
            .collect();
        assert_eq!(
            attribute_headers,
            [header].into(),
            "{flag}: attribute codec version"
        );
        for f in filters {
            assert!(
                exts.iter().any(|e| e["filter"] == *f),
                "{flag}: no {f} view"
            );
        }
        assert!(
            json["buffers"]
                .as_array()
                .unwrap()
                .iter()
                .any(|b| b.get("uri").is_none() && b["extensions"][extension]["fallback"] == true),
            "{flag}: a fallback buffer without bytes"
        );

        let packed = facet::load::load_bytes("packed.glb", &bytes, None)
            .unwrap_or_else(|e| panic!("{flag}: {e}"))
            .scene;
        assert!(packed.warnings.is_empty(), "{flag}: {:?}", packed.warnings);
        assert_eq!(packed.meshes.len(), 1, "{flag}");
        assert_eq!(
            packed.skeleton.bones.len(),
            source.skeleton.bones.len(),
            "{flag}"
        );
        let (s, p) = (&source.meshes[0], &packed.meshes[0]);
        // gltfpack merges equal vertices and drops triangles that then
        // repeat a corner: never more triangles, and at most a few fewer.
        let (ns, np) = (s.indices.len() / 3, p.indices.len() / 3);
        assert!(
            np <= ns && np * 100 >= ns * 99,
            "{flag}: {np} triangles of {ns}"
        );

        // Each packed vertex is a source vertex: of those nearest by
        // position (within the 14-bit grid: a step is size / 16383; seams
        // hold several), the one whose normal is nearest.
        let grid = size / 16383.0;
        let of: Vec<usize> = p
            .positions
            .iter()
            .zip(&p.normals)
            .map(|(q, n)| {
                let d = |a: usize| s.positions[a].distance(*q);
                let nearest = (0..s.positions.len()).map(d).fold(f32::MAX, f32::min);
                (0..s.positions.len())
                    .filter(|&a| d(a) <= nearest + grid)
                    .max_by(|&a, &b| s.normals[a].dot(*n).total_cmp(&s.normals[b].dot(*n)))
                    .unwrap()
            })
            .collect();
        for (i, q) in p.positions.iter().enumerate() {
            let d = s.positions[of[i]].distance(*q);
            assert!(
                d <= grid,
                "{flag}: vertex {i} is {d} from the source's nearest (grid {grid})"
            );
        }
        // Every packed triangle is a source triangle, corners in order.
        let key = |m: &facet::scene::Mesh, t: &[u32], k: usize| -> [Vec3; 3] {
            [0, 1, 2].map(|c| m.positions[t[(c + k) % 3] as usize])
        };
        let mut source_triangles: Vec<[Vec3; 3]> =
            s.indices.chunks_exact(3).map(|t| key(s, t, 0)).collect();
        source_triangles.sort_by(|a, b| a[0].x.total_cmp(&b[0].x));
        for (i, t) in p.indices.chunks_exact(3).enumerate() {
            let found = (0..3).any(|k| {
                let c = key(p, t, k);
                let from = source_triangles.partition_point(|s| s[0].x < c[0].x - grid);
                source_triangles[from..]
                    .iter()
                    .take_while(|s| s[0].x <= c[0].x + grid)
                    .any(|s| (0..3).all(|j| s[j].distance(c[j]) <= grid))
            });
            assert!(
                found,
                "{flag}: triangle {i} {:?} is none of the source's",
                key(p, t, 0)
            );
        }
        // Normals: 8-bit octahedral (gltfpack's -vn 8, OCTAHEDRAL filter
        // with -cc and -cz): within 2 degrees of the source vertex's.
        for (i, n) in p.normals.iter().enumerate() {
            let dot = n.dot(s.normals[of[i]]);
            assert!(
                dot > 2f32.to_radians().cos(),
                "{flag}: vertex {i} normal off by {} degrees",
                dot.acos().to_degrees()
            );
        }
        // The clip, resampled at 30 Hz with 12-bit rotations (QUATERNION
        // with -cc and -cz) and 16-bit translations (EXPONENTIAL).
        assert_eq!(packed.clips.len(), 1);
        let duration = source.clips[0].duration_s;
        assert!(
            (packed.clips[0].duration_s - duration).abs() < 1.0 / 30.0,
            "{flag}"
        );
        for k in 0..=8 {
            let t = duration * k as f32 / 8.0;
            let worst = farthest_skinned(&source, &packed, &of, t);
            assert!(
                worst <= 0.01 * size,
                "{flag}: at {t} s a vertex is {worst} from the source's (size {size})"
            );
        }
    }
}

/// A `.glb` of `json` and `bin` (GLB §4.4: a 12-byte header, then a JSON
/// chunk padded with spaces and a BIN chunk padded with zeros, each to 4).
fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    j.resize(j.len().div_ceil(4) * 4, b' ');
    let mut b = bin.to_vec();
    b.resize(b.len().div_ceil(4) * 4, 0);
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = Vec::with_capacity(total);
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(j);
    out.extend((b.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(b);
    out
}

/// gltfpack's `-cc` output, damaged: each rule the extension's
/// specification sets on a compressed view broken in turn is an error that
/// names the view and the rule (meshoptimizer asserts on them, so they are
/// checked before it is called), and compressed bytes changed at random
/// (meshoptimizer's decoders are safe on untrusted input) give a scene or
/// an error, never a panic or an abort.
#[test]
fn damaged_meshopt_views_give_errors_not_panics() {
    let dir = out_dir().join("gltfpack-damaged");
    let source_file = exported_fixture(&dir, "suzanne");
    let packed_file = dir.join("suzanne-cc.glb");
    gltfpack(&source_file, &packed_file, &["-cc"]);
    let (json, bin) = glb_chunks(&std::fs::read(&packed_file).unwrap());
    let ext = "EXT_meshopt_compression";
    let views = json["bufferViews"].as_array().unwrap();
    let find = |mode: &str, filter: &str| {
        views
            .iter()
            .position(|v| {
                v["extensions"][ext]["mode"] == mode
                    && v["extensions"][ext]
                        .get("filter")
                        .map_or("NONE", |f| f.as_str().unwrap())
                        == filter
            })
            .unwrap_or_else(|| panic!("no {mode} {filter} view"))
    };
    let attributes = find("ATTRIBUTES", "NONE");
    let octahedral = find("ATTRIBUTES", "OCTAHEDRAL");
    let triangles = find("TRIANGLES", "NONE");
    let read = |json: &serde_json::Value, bin: &[u8]| {
        facet::load::load_bytes("damaged.glb", &glb(json, bin), None).map(|_| ())
    };
    assert!(read(&json, &bin).is_ok(), "the undamaged file");

    let cases: [(usize, &str, serde_json::Value, &str); 7] = [
        (
            attributes,
            "byteStride",
            serde_json::json!(6),
            "ATTRIBUTES with byteStride 6, not a multiple of 4 up to 256",
        ),
        (attributes, "count", serde_json::json!(1), "elements of"),
        (
            attributes,
            "mode",
            serde_json::json!("STRIPS"),
            "mode \"STRIPS\" is not ATTRIBUTES, TRIANGLES or INDICES",
        ),
        (
            attributes,
            "byteLength",
            serde_json::json!(20),
            "does not decode",
        ),
        (
            octahedral,
            "filter",
            serde_json::json!("QUATERNION"),
            "filter QUATERNION with byteStride 4",
        ),
        (
            triangles,
            "filter",
            serde_json::json!("OCTAHEDRAL"),
            "TRIANGLES with filter OCTAHEDRAL, not NONE",
        ),
        (
            triangles,
            "byteOffset",
            serde_json::json!(1u64 << 40),
            "run past buffer 0",
        ),
    ];
    for (view, key, value, want) in cases {
        let mut damaged = json.clone();
        damaged["bufferViews"][view]["extensions"][ext][key] = value.clone();
        let e = read(&damaged, &bin).unwrap_err().to_string();
        assert!(
            e.contains(&format!("buffer view {view} ({ext}): ")) && e.contains(want),
            "{key} = {value}: {e}"
        );
    }

    // Bytes changed at random inside the compressed data.
    let (ok, errors) = damage_at_random(&bin, 0..bin.len(), 0x2545_f491_4f6c_dd1d, |b| {
        read(&json, b)
    });
    assert!(errors > 0 && ok > 0, "{ok} read, {errors} refused");
}

/// 300 copies of `bin`, each with 1 to 8 bytes in `range` changed (a fixed
/// xorshift sequence from `seed`, so a failure names a case that
/// reproduces), each read by `read`, which must give a scene or an error,
/// never a panic: how many were read and how many refused.
fn damage_at_random<E>(
    bin: &[u8],
    range: std::ops::Range<usize>,
    seed: u64,
    read: impl Fn(&[u8]) -> Result<(), E>,
) -> (usize, usize) {
    let mut state = seed;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ok, mut errors) = (0, 0);
    for case in 0..300 {
        let mut damaged = bin.to_vec();
        for _ in 0..1 + next() % 8 {
            let at = range.start + (next() % range.len() as u64) as usize;
            damaged[at] = next() as u8;
        }
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&damaged))) {
            Ok(Ok(())) => ok += 1,
            Ok(Err(_)) => errors += 1,
            Err(_) => panic!("case {case}: a panic"),
        }
    }
    (ok, errors)
}

/// `fixtures/m3d/NAME.m3d` exported by `facet convert` into `dir` as
/// NAME.glb (the source the compressing tools are given).
fn exported_fixture(dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join(format!("{name}.glb"));
    let m3d = common::shared().join(format!("fixtures/m3d/{name}.m3d"));
    let out = facet(&[
        "convert".as_ref(),
        m3d.as_os_str(),
        "-o".as_ref(),
        file.as_os_str(),
    ]);
    assert!(file.exists(), "{}", String::from_utf8_lossy(&out.stderr));
    file
}

/// The largest side of the box around `positions`.
fn extent(positions: &[Vec3]) -> f32 {
    let (lo, hi) = positions
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(l, h), p| (l.min(*p), h.max(*p)));
    (hi - lo).max_element()
}

/// Adds to `gltf` one triangle, (0,0,0), (1,0,0), (0,1,0) with UVs (0,0),
/// (1,0), (0,1) (accessors 0 and 1, each in a view of its own), and one
/// image, a 2 x 1 PNG: what a test of materials draws them on.
fn textured_triangle(gltf: &mut serde_json::Value) {
    let mut png = Vec::new();
    image::RgbaImage::from_pixel(2, 1, image::Rgba([10, 20, 30, 255]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let pos = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let uvs = [0.0f32, 0.0, 1.0, 0.0, 0.0, 1.0];
    let bin: Vec<u8> = pos
        .iter()
        .chain(&uvs)
        .flat_map(|x| x.to_le_bytes())
        .collect();
    gltf["images"] =
        serde_json::json!([{"uri": format!("data:image/png;base64,{}", base64(&png))}]);
    gltf["buffers"] = serde_json::json!([{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin)), "byteLength": bin.len()}]);
    gltf["bufferViews"] = serde_json::json!([
        {"buffer": 0, "byteLength": 36, "target": 34962},
        {"buffer": 0, "byteOffset": 36, "byteLength": 24, "target": 34962}
    ]);
    gltf["accessors"] = serde_json::json!([
        {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
        {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2"}
    ]);
}

/// `gltf`, a file assembled in a test, written as `dir/name` under the
/// test output and passed by Khronos' validator with no errors and no
/// warnings: its text.
fn valid_by_hand(dir: &str, name: &str, gltf: &serde_json::Value) -> Vec<u8> {
    let dir = out_dir().join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    let text = serde_json::to_vec_pretty(gltf).unwrap();
    std::fs::write(&file, &text).unwrap();
    let report = &validate(std::slice::from_ref(&file))[0];
    assert_eq!(report["errors"], 0, "{name}, made by hand: {report}");
    assert_eq!(report["warnings"], 0, "{name}, made by hand: {report}");
    text
}

/// sRGB from linear, by the formula (IEC 61966-2-1), for expected values.
fn to_srgb(x: f32) -> f32 {
    if x <= 0.003_130_8 {
        12.92 * x
    } else {
        1.055 * x.powf(1.0 / 2.4) - 0.055
    }
}

/// Two material extensions assembled from their specifications and
/// checked by Khronos' validator. KHR_materials_pbrSpecularGlossiness
/// (older Sketchfab, Unity and 3ds Max exports): its diffuse factor and
/// texture are the base colour, over the metallic-roughness block beside
/// it; its specular colour and glossiness the specular term, glossiness
/// 0.5 giving roughness 0.5, alpha 0.25 and exponent 2 / 0.25^2 - 2 = 30;
/// its specular-glossiness texture the material map whose RGB and A
/// multiply them (the shader's part: tests/shading.rs).
/// KHR_materials_emissive_strength (Blender's, for an emission strength
/// over 1): the factor times the strength, up to 1.
#[test]
fn specular_glossiness_and_emissive_strength_read_as_their_extensions_say() {
    let spec_gloss = serde_json::json!({
        "diffuseFactor": [0.214_041, 0.5, 1.0, 0.5],
        "diffuseTexture": {"index": 0},
        "specularFactor": [1.0, 0.0, 0.0],
        "glossinessFactor": 0.5,
        "specularGlossinessTexture": {"index": 0}
    });
    let mut gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "extensionsUsed": ["KHR_materials_pbrSpecularGlossiness", "KHR_materials_emissive_strength"],
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [{"mesh": 0}, {"mesh": 1}, {"mesh": 2}],
        "meshes": (0..3).map(|m| serde_json::json!({"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "material": m}]})).collect::<Vec<_>>(),
        "materials": [
            {"name": "spec-gloss", "pbrMetallicRoughness": {"baseColorFactor": [0.0, 1.0, 0.0, 1.0]},
             "extensions": {"KHR_materials_pbrSpecularGlossiness": spec_gloss}},
            {"name": "glow", "emissiveFactor": [0.1, 0.2, 0.5],
             "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 2.0}}},
            {"name": "bright", "emissiveFactor": [0.5, 0.5, 0.5],
             "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}}}
        ],
        "textures": [{"source": 0}]
    });
    textured_triangle(&mut gltf);
    let text = valid_by_hand("material-extensions", "materials.gltf", &gltf);

    let scene = facet::load::load_bytes("materials.gltf", &text, None)
        .unwrap()
        .scene;
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let near = |a: &[f32], b: &[f32], what: &str| {
        assert!(
            a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4),
            "{what}: {a:?} against {b:?}"
        );
    };
    let m = &scene.materials[0];
    near(
        &m.base_color,
        &[to_srgb(0.214_041), to_srgb(0.5), 1.0, 0.5],
        "diffuse",
    );
    let tex = &scene.textures[m.texture.expect("the diffuse texture")];
    assert_eq!((tex.width, tex.height), (2, 1));
    let (k, n) = m.maps.specular.expect("a specular term");
    near(&k, &[1.0, 0.0, 0.0], "specular colour");
    assert!((n - 30.0).abs() < 1e-3, "exponent {n}");
    // The one image is both maps: one texture, sRGB (the map's RGB is).
    assert_eq!(
        m.maps.material,
        Some((
            m.texture.unwrap(),
            facet::scene::MaterialMap::SpecularGlossiness
        ))
    );
    assert_eq!(m.maps.glossiness, Some(0.5));
    assert!(tex.srgb);
    assert!(m.maps.notes.is_empty(), "{:?}", m.maps.notes);

    // Exported, the material goes back to the extension (valid for the
    // validator, the map and its factors as read) and reads back the same.
    let glb = export(&scene).unwrap().glb();
    let exported = out_dir()
        .join("material-extensions")
        .join("materials-export.glb");
    std::fs::write(&exported, &glb).unwrap();
    let report = &validate(std::slice::from_ref(&exported))[0];
    assert_eq!(report["errors"], 0, "the export: {report}");
    assert_eq!(report["warnings"], 0, "the export: {report}");
    let (json, _) = glb_chunks(&glb);
    let ext = &json["materials"][0]["extensions"]["KHR_materials_pbrSpecularGlossiness"];
    assert_eq!(ext["glossinessFactor"], 0.5, "{ext}");
    assert_eq!(
        ext["specularFactor"],
        serde_json::json!([1.0, 0.0, 0.0]),
        "{ext}"
    );
    assert_eq!(
        ext["diffuseTexture"], ext["specularGlossinessTexture"],
        "{ext}"
    );
    let diffuse: Vec<f32> = ext["diffuseFactor"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    near(&diffuse, &[0.214_041, 0.5, 1.0, 0.5], "diffuse factor");
    let back = facet::load::load_bytes("materials-export.glb", &glb, None)
        .unwrap()
        .scene;
    let b = &back.materials[0];
    assert_eq!(b.maps.glossiness, Some(0.5));
    assert_eq!(
        b.maps.material.map(|(_, kind)| kind),
        Some(facet::scene::MaterialMap::SpecularGlossiness)
    );
    let (k, n) = b.maps.specular.unwrap();
    near(&k, &[1.0, 0.0, 0.0], "specular colour read back");
    assert!((n - 30.0).abs() < 1e-3, "exponent read back {n}");

    // Every map is drawn with the base colour's UV set and transform: a
    // map that names another set, or is moved another way, is named.
    let mut other = gltf.clone();
    other["materials"][0]["extensions"]["KHR_materials_pbrSpecularGlossiness"]["specularGlossinessTexture"] =
        serde_json::json!({"index": 0, "texCoord": 1});
    other["materials"][1]["emissiveTexture"] = serde_json::json!({"index": 0,
        "extensions": {"KHR_texture_transform": {"scale": [2.0, 2.0]}}});
    other["extensionsUsed"]
        .as_array_mut()
        .unwrap()
        .push("KHR_texture_transform".into());
    let s = facet::load::load_bytes("other.gltf", &serde_json::to_vec(&other).unwrap(), None)
        .unwrap()
        .scene;
    assert_eq!(
        s.warnings,
        [
            "material \"spec-gloss\": its specular-glossiness map reads UV set 1, the base \
             colour's 0, which all its maps are drawn with",
            "material \"glow\": its emission map's texture transform differs from the base \
             colour's, which all its maps are drawn with"
        ]
    );
    near(
        &scene.materials[1].emission,
        &[to_srgb(0.2), to_srgb(0.4), 1.0],
        "0.1, 0.2, 0.5 x 2",
    );
    near(
        &scene.materials[2].emission,
        &[1.0, 1.0, 1.0],
        "0.5 x 4, up to 1",
    );

    // A diffuse texture the file does not have is an error (the gltf crate
    // would unwrap it).
    let mut bad = gltf.clone();
    bad["materials"][0]["extensions"]["KHR_materials_pbrSpecularGlossiness"]["diffuseTexture"]["index"] =
        serde_json::json!(7);
    let e = std::panic::catch_unwind(|| {
        facet::load::load_bytes("bad.gltf", &serde_json::to_vec(&bad).unwrap(), None).map(|_| ())
    })
    .expect("no panic")
    .unwrap_err()
    .to_string();
    assert!(e.contains("diffuseTexture"), "{e}");
}

/// Samplers (§5.26), assembled here and checked by Khronos' validator:
/// material 0's texture is NEAREST (minified NEAREST_MIPMAP_NEAREST),
/// CLAMP_TO_EDGE along S and MIRRORED_REPEAT along T; material 1's texture,
/// the same image, names no sampler (linear filtering and REPEAT, the
/// specification's wrap default). Each material keeps its own; the export
/// writes them back as samplers of those values, the image once, valid for
/// the validator, and reads back the same.
#[test]
fn samplers_read_and_export_as_the_file_names_them() {
    use facet::scene::{Sampling, Wrap};
    let mut gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"mesh": 0}, {"mesh": 1}],
        "meshes": (0..2).map(|m| serde_json::json!({"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "material": m}]})).collect::<Vec<_>>(),
        "materials": [
            {"name": "pixel art", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}},
            {"name": "smooth", "pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}}
        ],
        "samplers": [{"magFilter": 9728, "minFilter": 9984, "wrapS": 33071, "wrapT": 33648}],
        "textures": [{"source": 0, "sampler": 0}, {"source": 0}]
    });
    textured_triangle(&mut gltf);
    let text = valid_by_hand("samplers", "samplers.gltf", &gltf);

    let pixel_art = Sampling {
        nearest_mag: true,
        nearest_min: true,
        wrap: [Wrap::Clamp, Wrap::Mirror],
    };
    let scene = facet::load::load_bytes("samplers.gltf", &text, None)
        .unwrap()
        .scene;
    assert_eq!(scene.materials[0].sampling, pixel_art);
    assert_eq!(scene.materials[1].sampling, Sampling::default());

    let glb = export(&scene).unwrap().glb();
    let exported = out_dir().join("samplers").join("samplers-export.glb");
    std::fs::write(&exported, &glb).unwrap();
    let report = &validate(std::slice::from_ref(&exported))[0];
    assert_eq!(report["errors"], 0, "the export: {report}");
    assert_eq!(report["warnings"], 0, "the export: {report}");
    let (json, _) = glb_chunks(&glb);
    assert_eq!(json["images"].as_array().unwrap().len(), 1, "one image");
    let sampler_of = |m: usize| {
        let t = &json["materials"][m]["pbrMetallicRoughness"]["baseColorTexture"]["index"];
        let s = &json["textures"][t.as_u64().unwrap() as usize]["sampler"];
        json["samplers"][s.as_u64().unwrap() as usize].clone()
    };
    assert_eq!(
        sampler_of(0),
        serde_json::json!({"magFilter": 9728, "minFilter": 9728, "wrapS": 33071, "wrapT": 33648})
    );
    assert_eq!(
        sampler_of(1),
        serde_json::json!({"magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497})
    );
    let back = facet::load::load_bytes("samplers-export.glb", &glb, None)
        .unwrap()
        .scene;
    let sampling: Vec<Sampling> = back.materials.iter().map(|m| m.sampling).collect();
    assert_eq!(sampling[..2], [pixel_art, Sampling::default()]);
}

/// Morph targets at the file's default weights (§3.7.2.2: with no
/// animation, a mesh is drawn at its weights, a node's overriding its
/// mesh's), assembled here from the specification and checked by Khronos'
/// validator. A triangle (0,0,0), (1,0,0), (0,1,0) facing +Z; target 0
/// moves vertex 2 by (0,0,1) in the sparse form with no view (zeros and
/// one substitution, as exporters write targets) and tilts every normal by
/// (1,0,0); target 1 moves every vertex by (1,0,0). Node "a" draws the
/// mesh at its weights (0.5, 0), node "b" at its own (0.25, 1): every
/// vertex and normal worked by hand.
#[test]
fn morph_targets_show_at_the_files_default_weights() {
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut bin = Vec::new();
    let mut views = Vec::new();
    for part in [
        f(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]), // positions
        f(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]), // normals
        vec![2, 0, 0, 0],                                  // sparse index (u8), padded
        f(&[0.0, 0.0, 1.0]),                               // its value
        f(&[1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0]), // target 0 normals, target 1 positions
    ] {
        views.push(
            serde_json::json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": part.len()}),
        );
        bin.extend(part);
    }
    views[2]["byteLength"] = 1.into();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "a", "mesh": 0}, {"name": "b", "mesh": 0, "weights": [0.25, 1.0]}],
        "meshes": [{"weights": [0.5, 0.0], "primitives": [{
            "attributes": {"POSITION": 0, "NORMAL": 1},
            "targets": [{"POSITION": 2, "NORMAL": 3}, {"POSITION": 3}]
        }]}],
        "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin)), "byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 1.0],
             "sparse": {"count": 1, "indices": {"bufferView": 2, "componentType": 5121}, "values": {"bufferView": 3}}},
            {"bufferView": 4, "componentType": 5126, "count": 3, "type": "VEC3", "min": [1.0, 0.0, 0.0], "max": [1.0, 0.0, 0.0]}
        ]
    });
    let text = valid_by_hand("morph", "morph.gltf", &gltf);

    let scene = facet::load::load_bytes("morph.gltf", &text, None)
        .unwrap()
        .scene;
    let (a, b) = (&scene.meshes[0], &scene.meshes[1]);
    // a: 0.5 x target 0: vertex 2 up by 0.5; normals (0.5, 0, 1), unit.
    assert_eq!(a.positions, [Vec3::ZERO, Vec3::X, Vec3::new(0.0, 1.0, 0.5)]);
    let tilted = Vec3::new(0.5, 0.0, 1.0) / 1.25f32.sqrt();
    assert!(
        a.normals.iter().all(|n| n.abs_diff_eq(tilted, 1e-6)),
        "{:?}",
        a.normals
    );
    // b: 0.25 x target 0 + 1 x target 1: every vertex along x by 1, vertex
    // 2 up by 0.25; normals (0.25, 0, 1), unit.
    assert_eq!(
        b.positions,
        [Vec3::X, Vec3::new(2.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 0.25)]
    );
    let tilted = Vec3::new(0.25, 0.0, 1.0) / 1.0625f32.sqrt();
    assert!(
        b.normals.iter().all(|n| n.abs_diff_eq(tilted, 1e-6)),
        "{:?}",
        b.normals
    );
    assert_eq!(
        scene.warnings,
        [
            "part \"a\": 2 morph targets shown at the file's default weights (0.5, 0); their animation is not played",
            "part \"b\": 2 morph targets shown at the file's default weights (0.25, 1); their animation is not played",
        ]
    );

    // A target of another count than its base attribute is an error.
    let mut bad = gltf.clone();
    bad["accessors"][3]["count"] = 2.into();
    let e = facet::load::load_bytes("bad.gltf", &serde_json::to_vec(&bad).unwrap(), None)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("accessor 3: a morph target of 2 elements for 3 vertices"),
        "{e}"
    );

    // An animation of node "b"'s weights beside a translation of it (so
    // that it is a bone): the translation is played, the weights stay at
    // their defaults (the warning above).
    let mut animated = gltf.clone();
    let keys = f(&[0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
    animated["buffers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"uri": format!("data:application/gltf-buffer;base64,{}", base64(&keys)), "byteLength": keys.len()}));
    animated["bufferViews"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"buffer": 1, "byteLength": keys.len()}));
    for a in [
        serde_json::json!({"bufferView": 5, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]}),
        serde_json::json!({"bufferView": 5, "byteOffset": 8, "componentType": 5126, "count": 4, "type": "SCALAR"}),
        serde_json::json!({"bufferView": 5, "byteOffset": 24, "componentType": 5126, "count": 2, "type": "VEC3"}),
    ] {
        animated["accessors"].as_array_mut().unwrap().push(a);
    }
    animated["animations"] = serde_json::json!([{
        "samplers": [{"input": 4, "output": 5}, {"input": 4, "output": 6}],
        "channels": [
            {"sampler": 0, "target": {"node": 1, "path": "weights"}},
            {"sampler": 1, "target": {"node": 1, "path": "translation"}}
        ]
    }]);
    let text = valid_by_hand("morph", "morph_animated.gltf", &animated);
    let scene = facet::load::load_bytes("morph_animated.gltf", &text, None)
        .unwrap()
        .scene;
    assert_eq!(scene.warnings.len(), 2, "{:?}", scene.warnings);
    let b = &scene.meshes[1];
    assert!(b.skin.is_some(), "b rides on its node's bone");
    let moved = skinned_at(&scene, 1.0);
    for (i, p) in b.positions.iter().enumerate() {
        assert!(
            moved[1][i]
                .0
                .abs_diff_eq(*p + Vec3::new(0.0, 0.0, 2.0), 1e-6)
        );
    }
}

/// TANGENT (§3.7.2.1: XYZ the tangent, W the handedness; the bitangent is
/// cross(normal, tangent.xyz) * W), assembled here and checked by Khronos'
/// validator: a triangle facing +Z with tangent +X, W = 1 on two vertices
/// and -1 on the third, on a node turned a quarter about Z. Worked by
/// hand: the tangent turns to +Y; the bitangent cross(Z, X) = +Y turns to
/// -X, and with W = -1 to +X. A part without normals takes no tangents
/// (glTF asks for generated ones with generated normals: the shader's
/// per-pixel frame).
#[test]
fn tangents_are_the_files_frame_moved_with_their_node() {
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut bin = f(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend(f(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]));
    bin.extend(f(&[
        1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, -1.0,
    ]));
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "rotation": [0.0, 0.0, half, half]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TANGENT": 2}}]}],
        "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin)), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36, "target": 34962},
            {"buffer": 0, "byteOffset": 36, "byteLength": 36, "target": 34962},
            {"buffer": 0, "byteOffset": 72, "byteLength": 48, "target": 34962}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"}
        ]
    });
    let text = valid_by_hand("tangents", "tangents.gltf", &gltf);

    let scene = facet::load::load_bytes("tangents.gltf", &text, None)
        .unwrap()
        .scene;
    let frames = scene.meshes[0].tangents.as_ref().expect("the file's frame");
    let want = [[Vec3::Y, -Vec3::X], [Vec3::Y, -Vec3::X], [Vec3::Y, Vec3::X]];
    for (i, (got, want)) in frames.iter().zip(want).enumerate() {
        assert!(
            got[0].abs_diff_eq(want[0], 1e-6) && got[1].abs_diff_eq(want[1], 1e-6),
            "vertex {i}: {got:?} against {want:?}"
        );
    }
    let mut no_normals = gltf.clone();
    no_normals["meshes"][0]["primitives"][0]["attributes"]
        .as_object_mut()
        .unwrap()
        .remove("NORMAL");
    let scene = facet::load::load_bytes("t.gltf", &serde_json::to_vec(&no_normals).unwrap(), None)
        .unwrap()
        .scene;
    assert_eq!(scene.meshes[0].tangents, None);
}

/// EXT_mesh_gpu_instancing, assembled here from its specification and
/// checked by Khronos' validator: a triangle (0,0,0) (1,0,0) (0,1,0)
/// facing +Z on a node at (1,0,0) under a parent at (0,10,0), drawn at
/// three instances. The specification: World = NodeWorld * (T * R * S) *
/// vertex. Worked by hand, NodeWorld = translation (1,10,0):
/// - instance 0 (identity; its rotation stored as normalized SHORTs, as
///   gltfpack writes them): (1,10,0) (2,10,0) (1,11,0), facing +Z;
/// - instance 1, T (5,0,0), a quarter turn about +Y ((x,y,z) -> (z,y,-x)):
///   (0,0,0) (0,0,-1) (0,1,0), moved to (6,10,0) (6,10,-1) (6,11,0),
///   facing +X;
/// - instance 2, T (0,0,-3), S (3,1,1): (0,0,0) (3,0,0) (0,1,0), moved to
///   (1,10,-3) (4,10,-3) (1,11,-3), still facing +Z.
///
/// Then what the extension forbids or leaves open: attributes of unequal
/// counts, an accessor that is not there and a rotation of three
/// components are errors; a skinned instanced mesh is drawn once, as its
/// skin puts it, with a warning.
#[test]
fn instances_are_drawn_where_ext_mesh_gpu_instancing_puts_them() {
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut bin = f(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]); // 0: POSITION
    bin.extend(f(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0])); // 36: NORMAL
    bin.extend(f(&[0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, -3.0])); // 72: TRANSLATION
    // 108: ROTATION, normalized SHORT: sin 45 = cos 45 = 23170 / 32767.
    for q in [[0i16, 0, 0, 32767], [0, 23170, 0, 23170], [0, 0, 0, 32767]] {
        bin.extend(q.iter().flat_map(|c| c.to_le_bytes()));
    }
    bin.extend(f(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, 1.0, 1.0])); // 132: SCALE
    assert_eq!(bin.len(), 168);
    let vec3 = |view: usize, count: usize| serde_json::json!({"bufferView": view, "componentType": 5126, "count": count, "type": "VEC3"});
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "extensionsUsed": ["EXT_mesh_gpu_instancing"],
        "extensionsRequired": ["EXT_mesh_gpu_instancing"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"translation": [0.0, 10.0, 0.0], "children": [1]},
            {"mesh": 0, "translation": [1.0, 0.0, 0.0], "extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 2, "ROTATION": 3, "SCALE": 4}}}}
        ],
        "meshes": [{"name": "tri", "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}}]}],
        "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin)), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36, "target": 34962},
            {"buffer": 0, "byteOffset": 36, "byteLength": 36, "target": 34962},
            {"buffer": 0, "byteOffset": 72, "byteLength": 36},
            {"buffer": 0, "byteOffset": 108, "byteLength": 24},
            {"buffer": 0, "byteOffset": 132, "byteLength": 36}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            vec3(1, 3),
            vec3(2, 3),
            {"bufferView": 3, "componentType": 5122, "normalized": true, "count": 3, "type": "VEC4"},
            vec3(4, 3)
        ]
    });
    let text = valid_by_hand("instancing", "instances.gltf", &gltf);
    let load = |json: &serde_json::Value| {
        facet::load::load_bytes("instances.gltf", &serde_json::to_vec(json).unwrap(), None)
            .map(|l| l.scene)
            .map_err(|e| e.to_string())
    };
    let scene = facet::load::load_bytes("instances.gltf", &text, None)
        .unwrap()
        .scene;
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    assert_eq!(scene.meshes.len(), 1);
    let m = &scene.meshes[0];
    assert_eq!(m.name, "tri (3 instances)");
    let v = Vec3::new;
    let want = [
        [v(1., 10., 0.), v(2., 10., 0.), v(1., 11., 0.)],
        [v(6., 10., 0.), v(6., 10., -1.), v(6., 11., 0.)],
        [v(1., 10., -3.), v(4., 10., -3.), v(1., 11., -3.)],
    ];
    let facing = [Vec3::Z, Vec3::X, Vec3::Z];
    assert_eq!(m.positions.len(), 9);
    assert_eq!(m.indices, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    for (k, corners) in want.iter().enumerate() {
        for (c, want) in corners.iter().enumerate() {
            let (p, n) = (m.positions[3 * k + c], m.normals[3 * k + c]);
            assert!(
                p.abs_diff_eq(*want, 1e-4),
                "instance {k} corner {c}: {p} against {want}"
            );
            assert!(
                n.abs_diff_eq(facing[k], 1e-4),
                "instance {k} corner {c}: normal {n} against {}",
                facing[k]
            );
        }
    }

    // Errors, named by where they are.
    let attrs = "/nodes/1/extensions/EXT_mesh_gpu_instancing/attributes";
    let mut unequal = gltf.clone();
    unequal["accessors"][4]["count"] = 2.into();
    let e = load(&unequal).unwrap_err();
    assert!(
        e.ends_with("nodes[1].extensions.EXT_mesh_gpu_instancing: TRANSLATION names 3 instances and SCALE 2; the extension requires one count"),
        "{e}"
    );
    let mut missing = gltf.clone();
    *missing.pointer_mut(&format!("{attrs}/ROTATION")).unwrap() = 99.into();
    let e = load(&missing).unwrap_err();
    assert!(
        e.ends_with("nodes[1].extensions.EXT_mesh_gpu_instancing.attributes.ROTATION: 99 is not an accessor (the file has 5)"),
        "{e}"
    );
    let mut three = gltf.clone();
    *three.pointer_mut(&format!("{attrs}/ROTATION")).unwrap() = 2.into();
    let e = load(&three).unwrap_err();
    assert!(
        e.ends_with("nodes[1].extensions.EXT_mesh_gpu_instancing.attributes.ROTATION: accessor 2: 3 components, 4 expected"),
        "{e}"
    );

    // Only a translation: the other terms are the identity.
    let mut moved_only = gltf.clone();
    let a = moved_only
        .pointer_mut(attrs)
        .unwrap()
        .as_object_mut()
        .unwrap();
    a.remove("ROTATION");
    a.remove("SCALE");
    let scene = load(&moved_only).unwrap();
    let p = &scene.meshes[0].positions;
    assert!(p[3].abs_diff_eq(v(6., 10., 0.), 1e-6) && p[7].abs_diff_eq(v(2., 10., -3.), 1e-6));

    // A skinned instanced mesh: one joint (node 2, at (0,0,4)) with every
    // vertex bound to it. Without inverse bind matrices the bind pose is
    // the joint's own transform, so the triangle is drawn once, at rest.
    let mut skinned = gltf.clone();
    let mut bin2 = bin.clone();
    bin2.extend([0u8; 12]); // 168: JOINTS_0, unsigned bytes
    bin2.extend(f(&[1.0, 0.0, 0.0, 0.0].repeat(3))); // 180: WEIGHTS_0
    skinned["buffers"][0] = serde_json::json!({"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin2)), "byteLength": bin2.len()});
    let views = skinned["bufferViews"].as_array_mut().unwrap();
    views.push(serde_json::json!({"buffer": 0, "byteOffset": 168, "byteLength": 12}));
    views.push(serde_json::json!({"buffer": 0, "byteOffset": 180, "byteLength": 48}));
    let accessors = skinned["accessors"].as_array_mut().unwrap();
    accessors.push(
        serde_json::json!({"bufferView": 5, "componentType": 5121, "count": 3, "type": "VEC4"}),
    );
    accessors.push(
        serde_json::json!({"bufferView": 6, "componentType": 5126, "count": 3, "type": "VEC4"}),
    );
    let attributes = &mut skinned["meshes"][0]["primitives"][0]["attributes"];
    attributes["JOINTS_0"] = 5.into();
    attributes["WEIGHTS_0"] = 6.into();
    skinned["nodes"][1]["skin"] = 0.into();
    skinned["nodes"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": "joint", "translation": [0.0, 0.0, 4.0]}));
    skinned["scenes"][0]["nodes"] = serde_json::json!([0, 2]);
    skinned["skins"] = serde_json::json!([{"joints": [2]}]);
    let scene = load(&skinned).unwrap();
    assert_eq!(scene.meshes.len(), 1);
    assert_eq!(scene.meshes[0].positions.len(), 3);
    assert_eq!(scene.warnings.len(), 1, "{:?}", scene.warnings);
    assert!(
        scene.warnings[0].starts_with("node 1: 3 instances (EXT_mesh_gpu_instancing) of a skinned mesh, which the extension leaves undefined; drawn once"),
        "{:?}",
        scene.warnings
    );
}

/// `gltf-transform draco INPUT OUTPUT ARGS` (`@gltf-transform/cli` from
/// the npm registry, with Google's Draco encoder, which scripts/test
/// installs under target/npm).
fn draco(input: &Path, output: &Path, args: &[&str]) {
    let mut all = vec!["draco".as_ref(), input.as_os_str(), output.as_os_str()];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    node_tool("@gltf-transform/cli/bin/cli.js", &all, output);
}

/// Khronos' AnimatedTriangle (glTF-Embedded): a triangle whose node, with
/// no skin, turns about Z by five rotation keys a quarter second apart
/// (0, 90, 180, 270 and 360 degrees). glTF slerps between keys, so the
/// turn is 360 degrees a second, worked here by hand: the corner (1,0,0)
/// goes to (cos a, sin a, 0), the corner (0,1,0) to (-sin a, cos a, 0).
/// Such a part used to be drawn still, its animation named in a warning.
#[test]
fn khronos_animated_triangle_turns_as_its_rotation_keys_say() {
    let scene = embedded("seed_animated_triangle_embedded.gltf");
    assert_eq!(scene.clips.len(), 1);
    assert_eq!(scene.skeleton.bones.len(), 1);
    let skin = scene.meshes[0]
        .skin
        .as_ref()
        .expect("the node's part rides on its bone");
    assert!(skin.joints.iter().all(|j| *j == [0, 0, 0, 0]));
    for k in 0..8 {
        let t = k as f32 / 8.0;
        let a = (360.0 * t).to_radians();
        let (s, c) = a.sin_cos();
        let want = [Vec3::ZERO, Vec3::new(c, s, 0.0), Vec3::new(-s, c, 0.0)];
        let got = skinned_at(&scene, t);
        for (i, w) in want.iter().enumerate() {
            assert!(
                got[0][i].0.distance(*w) < 1e-5,
                "at {t} s corner {i} is {} against {w}",
                got[0][i].0
            );
            assert!(got[0][i].1.distance(Vec3::Z) < 1e-5, "normal at {t} s");
        }
    }
}

/// Parts of nodes that are no skin's, moved by animations: a file
/// assembled from glTF 2.0's text (§3.5.3 transforms, §3.11 animations),
/// every position worked by hand. An "arm" node at (1,0,0) turns about Z
/// (LINEAR, 0 to 90 degrees over a second) and carries a "hand" at (2,0,0)
/// with a triangle; a "spinner" steps up (STEP: y 0, then 3 from half a
/// second) at scale 2; a prop rides on a skin's joint (which turns 90
/// degrees about Z over a second, its inverse bind matrix matching its
/// node); a "statue" no animation moves stays as it is, unskinned.
#[test]
fn animated_nodes_move_the_parts_under_them() {
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let mut bin = f(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]); // triangle, 36
    bin.extend(f(&[0.0, 1.0])); // times, 8 (at 36)
    bin.extend(f(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, h, h])); // rotations, 32 (at 44)
    bin.extend(f(&[0.0, 0.0, 0.0, 0.0, 3.0, 0.0])); // translations, 24 (at 76)
    let mut ibm = Mat4::IDENTITY.to_cols_array().to_vec();
    ibm.extend(Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)).to_cols_array());
    bin.extend(f(&ibm)); // inverse bind matrices, 128 (at 100)
    bin.extend(f(&[0.0, 0.5])); // step times, 8 (at 228)
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "scene": 0,
        "scenes": [{"nodes": [0, 2, 3, 4]}],
        "nodes": [
            {"name": "arm", "translation": [1.0, 0.0, 0.0], "children": [1]},
            {"name": "hand", "translation": [2.0, 0.0, 0.0], "mesh": 0},
            {"name": "statue", "translation": [0.0, 0.0, 5.0], "mesh": 0},
            {"name": "spinner", "scale": [2.0, 2.0, 2.0], "mesh": 0},
            {"name": "root joint", "children": [5]},
            {"name": "tip joint", "translation": [0.0, 1.0, 0.0], "children": [6]},
            {"name": "prop", "translation": [1.0, 0.0, 0.0], "mesh": 0}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "skins": [{"joints": [4, 5], "inverseBindMatrices": 4}],
        "animations": [{
            "samplers": [
                {"input": 1, "output": 2, "interpolation": "LINEAR"},
                {"input": 5, "output": 3, "interpolation": "STEP"}
            ],
            "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "rotation"}},
                {"sampler": 1, "target": {"node": 3, "path": "translation"}},
                {"sampler": 0, "target": {"node": 5, "path": "rotation"}}
            ]
        }],
        "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin)), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36, "target": 34962},
            {"buffer": 0, "byteOffset": 36, "byteLength": 64},
            {"buffer": 0, "byteOffset": 100, "byteLength": 128},
            {"buffer": 0, "byteOffset": 228, "byteLength": 8}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "byteOffset": 8, "componentType": 5126, "count": 2, "type": "VEC4"},
            {"bufferView": 1, "byteOffset": 40, "componentType": 5126, "count": 2, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "MAT4"},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [0.5]}
        ]
    });
    let text = valid_by_hand("animated_nodes", "animated_nodes.gltf", &gltf);
    let scene = facet::load::load_bytes("animated_nodes.gltf", &text, None)
        .unwrap()
        .scene;
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let part = |name: &str| {
        scene
            .meshes
            .iter()
            .position(|m| m.name == name)
            .unwrap_or_else(|| panic!("no part {name:?}"))
    };
    let (hand, statue, spinner, prop) =
        (part("hand"), part("statue"), part("spinner"), part("prop"));
    assert!(
        scene.meshes[statue].skin.is_none(),
        "nothing moves the statue"
    );
    let corners = [Vec3::ZERO, Vec3::X, Vec3::Y];
    // Z turns of a degrees, by hand: (x, y) -> (x cos a - y sin a, x sin a + y cos a).
    let turn = |a: f32, v: Vec3| {
        let (s, c) = a.to_radians().sin_cos();
        Vec3::new(v.x * c - v.y * s, v.x * s + v.y * c, v.z)
    };
    for t in [0.0f32, 0.25, 0.5, 0.75, 1.0] {
        let got = skinned_at(&scene, t);
        let a = 90.0 * t;
        for (i, v) in corners.iter().enumerate() {
            let want = [
                // hand: arm's T(1,0,0) R(a) times hand's T(2,0,0).
                (hand, Vec3::X + turn(a, Vec3::new(2.0, 0.0, 0.0) + *v)),
                (statue, Vec3::new(0.0, 0.0, 5.0) + *v),
                // spinner: T(0, 0 or 3, 0) S(2).
                (
                    spinner,
                    Vec3::new(0.0, if t < 0.5 { 0.0 } else { 3.0 }, 0.0) + 2.0 * *v,
                ),
                // prop: root joint (identity), tip joint T(0,1,0) R(a), prop T(1,0,0).
                (prop, Vec3::Y + turn(a, Vec3::X + *v)),
            ];
            for (m, w) in want {
                let p = got[m][i].0;
                assert!(
                    p.distance(w) < 1e-5,
                    "{} at {t} s: corner {i} at {p}, not {w}",
                    scene.meshes[m].name
                );
            }
        }
    }
}

/// CUBICSPLINE channels, assembled from glTF 2.0's Appendix C: each key
/// an in-tangent, a value and an out-tangent, and between keys k and k+1,
/// td apart, p(s) = (2s^3 - 3s^2 + 1) v_k + (s^3 - 2s^2 + s) td b_k +
/// (-2s^3 + 3s^2) v_k+1 + (s^3 - s^2) td a_k+1. A "slider" moves along x
/// from 0 to 1 over two seconds leaving with tangent 3, so it overshoots:
/// by hand x(s) = 6(s^3 - 2s^2 + s) + (-2s^3 + 3s^2) = 4s^3 - 9s^2 + 6s
/// (1.25 at s = 1/2, where a linear blend gives 0.5). A "turner" goes from
/// no turn to 90 degrees about Z over a second with zero tangents: the
/// blend of the two quaternions made unit, an angle of 2 atan2(z, w). The
/// curve becomes linear keys at most 1/120 s (at most 16 a segment) apart:
/// at a key's time exact; between, within the chord's error (for the
/// slider, |x''| <= 4.5 / s^2 over steps of 1/8 s: 4.5 / 8^2 / 8).
#[test]
fn cubic_spline_channels_follow_their_tangents() {
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let mut bin = f(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]); // triangle, 36
    bin.extend(f(&[0.0, 2.0])); // slider times, 8 (at 36)
    bin.extend(f(&[
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, // a0, v0, b0
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, // a1, v1, b1
    ])); // 72 (at 44)
    bin.extend(f(&[0.0, 1.0])); // turner times, 8 (at 116)
    bin.extend(f(&[
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, // a0, q0, b0
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, h, h, 0.0, 0.0, 0.0, 0.0, // a1, q1, b1
    ])); // 96 (at 124)
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "slider", "mesh": 0}, {"name": "turner", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "animations": [{
            "samplers": [
                {"input": 1, "output": 2, "interpolation": "CUBICSPLINE"},
                {"input": 3, "output": 4, "interpolation": "CUBICSPLINE"}
            ],
            "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                {"sampler": 1, "target": {"node": 1, "path": "rotation"}}
            ]
        }],
        "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin)), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36, "target": 34962},
            {"buffer": 0, "byteOffset": 36, "byteLength": 184}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [2.0]},
            {"bufferView": 1, "byteOffset": 8, "componentType": 5126, "count": 6, "type": "VEC3"},
            {"bufferView": 1, "byteOffset": 80, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "byteOffset": 88, "componentType": 5126, "count": 6, "type": "VEC4"}
        ]
    });
    let text = valid_by_hand("cubic", "cubic.gltf", &gltf);
    let scene = facet::load::load_bytes("cubic.gltf", &text, None)
        .unwrap()
        .scene;
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let slider_x = |t: f32| {
        let s = t / 2.0;
        4.0 * s * s * s - 9.0 * s * s + 6.0 * s
    };
    let turn = |t: f32| {
        let s = t.min(1.0);
        let h00 = 2.0 * s * s * s - 3.0 * s * s + 1.0;
        let h01 = -2.0 * s * s * s + 3.0 * s * s;
        let (z, w) = (h01 * h, h00 + h01 * h);
        2.0 * z.atan2(w)
    };
    assert!((slider_x(1.0) - 1.25).abs() < 1e-6);
    assert!((turn(0.5) - 45f32.to_radians()).abs() < 1e-6);
    // Key times and step ends (multiples of 1/8 s and 1/16 s): exact.
    // Others: within the chord's error.
    for (t, within) in [
        (0.0, 1e-5),
        (0.25, 1e-5),
        (0.5, 1e-5),
        (1.0, 1e-5),
        (1.5, 1e-5),
        (2.0, 1e-5),
        (0.3, 4.5 / 64.0 / 8.0 + 1e-5),
        (1.1, 4.5 / 64.0 / 8.0 + 1e-5),
    ] {
        let got = skinned_at(&scene, t);
        let x = got[0][1].0.x - 1.0; // the corner (1,0,0), moved by x
        assert!(
            (x - slider_x(t)).abs() <= within,
            "slider at {t} s: x {x}, the curve {}",
            slider_x(t)
        );
        if t <= 1.0 && within < 1e-4 {
            let (s, c) = turn(t).sin_cos();
            let p = got[1][1].0;
            assert!(
                p.distance(Vec3::new(c, s, 0.0)) < 1e-5,
                "turner at {t} s: {p}, not {} degrees",
                turn(t).to_degrees()
            );
        }
    }
}

/// A hostile file's node tree: one chain 300,000 deep, every node a joint
/// of one skin and turned by a channel, listed deepest first (so no node's
/// parent comes before it). It loads (the tree's transforms were found by
/// recursion, which overflowed the stack on a chain a million deep; each
/// bone's tail by a scan of every bone, and each channel's place in its
/// clip by a scan of the channels before it, each of which took minutes)
/// and `info` lists it in lines of bounded length (each bone was indented
/// by its depth).
#[test]
fn a_node_chain_300000_deep_loads_and_lists() {
    let n = 300_000usize;
    let nodes: Vec<serde_json::Value> = (0..n)
        .map(|i| match i {
            0 => serde_json::json!({}),
            _ => serde_json::json!({"children": [i - 1]}),
        })
        .collect();
    // Every joint turned by a channel of one shared sampler (two keys).
    let keys: Vec<u8> = [0.0f32, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let channels: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({"sampler": 0, "target": {"node": i, "path": "rotation"}}))
        .collect();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [n - 1]}],
        "nodes": nodes,
        "skins": [{"joints": (0..n).collect::<Vec<_>>()}],
        "animations": [{"samplers": [{"input": 0, "output": 1}], "channels": channels}],
        "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&keys)), "byteLength": keys.len()}],
        "bufferViews": [{"buffer": 0, "byteLength": keys.len()}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 0, "byteOffset": 8, "componentType": 5126, "count": 2, "type": "VEC4"}
        ]
    });
    let dir = out_dir().join("deep");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("chain.gltf");
    std::fs::write(&file, serde_json::to_vec(&gltf).unwrap()).unwrap();
    let scene = load(&file);
    assert_eq!(scene.skeleton.bones.len(), n);
    assert_eq!(scene.clips[0].channels.len(), n);
    assert!(
        scene
            .skeleton
            .bones
            .iter()
            .enumerate()
            .all(|(i, b)| b.parent == i.checked_sub(1))
    );
    let out = facet(&["info".as_ref(), file.as_os_str()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().rfind(|l| l.contains("bone ")).unwrap();
    assert!(last.ends_with("(depth 299999) bone 299999"), "{last}");
    assert!(text.lines().all(|l| l.len() < 200));
}

/// Animated nodes past the skeleton's limit: 300 nodes each turned by a
/// channel would make 300 bones, more than the 256 a skin can name on the
/// GPU. They are left out of the skeleton, with a warning saying so, and
/// the part under them is drawn still, as before.
#[test]
fn animated_nodes_past_the_bone_limit_are_named_and_left_still() {
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut bin = f(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend(f(&[0.0, 1.0]));
    bin.extend(f(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]));
    let mut nodes = vec![serde_json::json!({"mesh": 0})];
    nodes.extend((1..300).map(|_| serde_json::json!({})));
    let channels: Vec<serde_json::Value> = (0..300)
        .map(|n| serde_json::json!({"sampler": 0, "target": {"node": n, "path": "rotation"}}))
        .collect();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "scene": 0,
        "scenes": [{"nodes": (0..300).collect::<Vec<_>>()}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "animations": [{
            "samplers": [{"input": 1, "output": 2}],
            "channels": channels
        }],
        "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin)), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36, "target": 34962},
            {"buffer": 0, "byteOffset": 36, "byteLength": 40}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "byteOffset": 8, "componentType": 5126, "count": 2, "type": "VEC4"}
        ]
    });
    let text = valid_by_hand("animated_nodes", "three_hundred.gltf", &gltf);
    let scene = facet::load::load_bytes("three_hundred.gltf", &text, None)
        .unwrap()
        .scene;
    assert_eq!(
        scene.warnings,
        [
            "300 animated nodes are not shown moving: with them the skeleton would have 300 bones, past the 256 a skin can name",
            "animation \"animation 0\": 300 channels move nodes outside the skeleton; not shown"
        ]
    );
    assert!(scene.skeleton.bones.is_empty());
    assert!(scene.meshes[0].skin.is_none());
}

/// gltf-transform's `draco` command (`@gltf-transform/cli`, with Google's
/// Draco encoder built for Node.js, `draco3dgltf`; scripts/test installs
/// both): CesiumMan.m3d as the viewer exports it, compressed with
/// KHR_draco_mesh_compression three ways: EdgeBreaker (the default, speed
/// 5), EdgeBreaker at speed 0 (its valence coder) and sequential. Each
/// file's primitive keeps accessors with no buffer view, the extension
/// required. Each must read as the source does, to the encoder's own
/// quantization (its defaults: positions 14 bits over the mesh's box,
/// normals 10 bits octahedral, UVs and weights 12, joints as integers,
/// losslessly): every vertex at a source vertex, every triangle a source
/// triangle with its corners in order, every source triangle with an area
/// drawn, and the vertices skinned where the source's are.
#[test]
fn draco_compressed_files_read_as_their_source() {
    let dir = out_dir().join("draco");
    let source_file = exported_fixture(&dir, "CesiumMan");
    let source = load(&source_file);
    let s = &source.meshes[0];
    let size = extent(&s.positions);
    // Draco's quantization: the range's max (1 << bits) - 1 steps, each
    // value rounded to the nearest, so within half a step a component; a
    // step here, to leave room for the float arithmetic on both sides.
    let grid = size / 16383.0 * 3f32.sqrt();
    let (ulo, uhi) = s
        .uvs
        .iter()
        .fold((glam::Vec2::MAX, glam::Vec2::MIN), |(l, h), p| {
            (l.min(*p), h.max(*p))
        });
    let uv_grid = (uhi - ulo).max_element() / 4095.0 * 2f32.sqrt();

    for (name, args) in [
        ("edgebreaker", &[][..]),
        (
            "valence",
            &["--encode-speed", "0", "--decode-speed", "0"][..],
        ),
        ("sequential", &["--method", "sequential"][..]),
    ] {
        let packed_file = dir.join(format!("CesiumMan_{name}.glb"));
        draco(&source_file, &packed_file, args);
        let bytes = std::fs::read(&packed_file).unwrap();
        let (json, _) = glb_chunks(&bytes);
        assert_eq!(
            json["extensionsRequired"],
            serde_json::json!(["KHR_draco_mesh_compression"]),
            "{name}"
        );
        let primitive = &json["meshes"][0]["primitives"][0];
        assert!(
            primitive["extensions"]
                .get("KHR_draco_mesh_compression")
                .is_some(),
            "{name}: {primitive}"
        );
        let accessors = json["accessors"].as_array().unwrap();
        for a in primitive["attributes"]
            .as_object()
            .unwrap()
            .values()
            .chain([&primitive["indices"]])
        {
            let a = &accessors[a.as_u64().unwrap() as usize];
            assert!(a.get("bufferView").is_none(), "{name}: {a}");
        }

        let packed = facet::load::load_bytes("packed.glb", &bytes, None)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .scene;
        assert!(packed.warnings.is_empty(), "{name}: {:?}", packed.warnings);
        // The inspector's and info's row of what the file is stored with.
        assert!(
            packed
                .source
                .details
                .iter()
                .any(|(k, v)| k == "extensions" && v.to_string() == "KHR_draco_mesh_compression"),
            "{name}"
        );
        assert_eq!(packed.meshes.len(), 1, "{name}");
        assert_eq!(
            packed.skeleton.bones.len(),
            source.skeleton.bones.len(),
            "{name}"
        );
        let p = &packed.meshes[0];
        let skin = p.skin.as_ref().expect("skinned");
        let source_skin = s.skin.as_ref().unwrap();

        // Each packed vertex is a source vertex: of those within the grid
        // of it (seams hold several), the one whose normal and UV are
        // nearest.
        let of: Vec<usize> = (0..p.positions.len())
            .map(|i| {
                let d = |a: usize| s.positions[a].distance(p.positions[i]);
                (0..s.positions.len())
                    .filter(|&a| d(a) <= grid)
                    .min_by(|&a, &b| {
                        let cost = |a: usize| {
                            (1.0 - s.normals[a].dot(p.normals[i])) + s.uvs[a].distance(p.uvs[i])
                        };
                        cost(a).total_cmp(&cost(b))
                    })
                    .unwrap_or_else(|| panic!("{name}: vertex {i} is at no source vertex"))
            })
            .collect();
        for (i, &a) in of.iter().enumerate() {
            // Normals: 10-bit octahedral, a step of 2/1023 on each of two
            // coordinates turns a normal by under half a degree.
            let dot = p.normals[i].dot(s.normals[a]);
            assert!(
                dot > 0.5f32.to_radians().cos(),
                "{name}: vertex {i}'s normal is {} degrees off",
                dot.acos().to_degrees()
            );
            let d = p.uvs[i].distance(s.uvs[a]);
            assert!(d <= uv_grid, "{name}: vertex {i}'s UV is {d} off");
            // Joints exactly; weights to 12 bits (the viewer keeps them as
            // 16-bit units either way).
            assert_eq!(skin.joints[i], source_skin.joints[a], "{name}: vertex {i}");
            for k in 0..4 {
                let (w, sw) = (skin.weights[i][k] as f32, source_skin.weights[a][k] as f32);
                assert!(
                    (w - sw).abs() <= 65535.0 / 4095.0 + 1.0,
                    "{name}: vertex {i} weight {k}: {w} against {sw}"
                );
            }
        }

        // Every packed triangle is a source triangle, corners in order;
        // every source triangle with an area is drawn. (Draco merges equal
        // vertices and drops the triangles that then repeat a corner.)
        let corners = |m: &facet::scene::Mesh, t: &[u32], k: usize| -> [Vec3; 3] {
            [0, 1, 2].map(|c| m.positions[t[(c + k) % 3] as usize])
        };
        let same = |a: &[Vec3; 3], b: &[Vec3; 3]| {
            (0..3).any(|k| (0..3).all(|j| a[(j + k) % 3].distance(b[j]) <= grid))
        };
        let source_triangles: Vec<[Vec3; 3]> = s
            .indices
            .chunks_exact(3)
            .map(|t| corners(s, t, 0))
            .collect();
        let packed_triangles: Vec<[Vec3; 3]> = p
            .indices
            .chunks_exact(3)
            .map(|t| corners(p, t, 0))
            .collect();
        for (i, t) in packed_triangles.iter().enumerate() {
            assert!(
                source_triangles.iter().any(|st| same(st, t)),
                "{name}: triangle {i} {t:?} is none of the source's"
            );
        }
        for (i, t) in source_triangles.iter().enumerate() {
            let area = (t[1] - t[0]).cross(t[2] - t[0]).length() / 2.0;
            if area > grid * size {
                assert!(
                    packed_triangles.iter().any(|pt| same(pt, t)),
                    "{name}: source triangle {i} {t:?} (area {area}) is not drawn"
                );
            }
        }

        // Skinned by the same clip (not compressed), where the source's
        // vertices go: the weights' 12 bits move a vertex by at most their
        // error times the farthest two bones' transforms place it apart,
        // under the model's size.
        let duration = source.clips[0].duration_s;
        for k in 0..=8 {
            let t = duration * k as f32 / 8.0;
            let worst = farthest_skinned(&source, &packed, &of, t);
            assert!(
                worst <= grid + 4.0 / 4095.0 * size,
                "{name}: at {t} s a vertex is {worst} from the source's (size {size})"
            );
        }
    }
}

/// gltf-transform's Draco output, damaged: each reference the extension
/// makes broken in turn (its view, its attribute ids, the counts its
/// accessors must agree with) is an error naming the primitive, and bytes
/// of the Draco stream changed at random give a scene or an error, never a
/// panic.
#[test]
fn damaged_draco_streams_give_errors_not_panics() {
    let dir = out_dir().join("draco-damaged");
    let source_file = exported_fixture(&dir, "suzanne");
    let packed_file = dir.join("suzanne-draco.glb");
    draco(&source_file, &packed_file, &[]);
    let (json, bin) = glb_chunks(&std::fs::read(&packed_file).unwrap());
    let read = |json: &serde_json::Value, bin: &[u8]| {
        facet::load::load_bytes("damaged.glb", &glb(json, bin), None).map(|_| ())
    };
    assert!(read(&json, &bin).is_ok(), "the undamaged file");
    let primitive = "/meshes/0/primitives/0";
    let ext = format!("{primitive}/extensions/KHR_draco_mesh_compression");
    let position = json
        .pointer(&format!("{primitive}/attributes/POSITION"))
        .unwrap()
        .clone();
    let indices = json
        .pointer(&format!("{primitive}/indices"))
        .unwrap()
        .clone();
    let view = json.pointer(&format!("{ext}/bufferView")).unwrap().clone();
    let at = |a: &serde_json::Value, key: &str| format!("/accessors/{a}/{key}");

    let cases: [(String, serde_json::Value, &str); 6] = [
        (
            format!("{ext}/bufferView"),
            serde_json::json!(99),
            "bufferView: no view 99",
        ),
        (
            format!("{ext}/attributes/POSITION"),
            serde_json::json!(99),
            "attributes.POSITION: the stream has no attribute 99",
        ),
        (
            at(&position, "count"),
            serde_json::json!(7),
            &format!("accessor {position} (POSITION) counts 7 elements, the stream "),
        ),
        (
            at(&indices, "count"),
            serde_json::json!(9),
            &format!("indices: accessor {indices} counts 9 indices, the stream "),
        ),
        (
            format!("/bufferViews/{view}/byteLength"),
            serde_json::json!(24),
            &format!("the Draco stream in buffer view {view}: "),
        ),
        (
            format!("{primitive}/mode"),
            serde_json::json!(0),
            "a Draco stream of Points, not triangles, is not read",
        ),
    ];
    for (pointer, value, want) in &cases {
        let mut damaged = json.clone();
        *damaged.pointer_mut(pointer).unwrap() = value.clone();
        let e = read(&damaged, &bin).unwrap_err().to_string();
        assert!(
            e.contains("meshes[0].primitives[0].extensions.KHR_draco_mesh_compression: ")
                && e.contains(want),
            "{pointer} = {value}: {e}"
        );
    }

    // Bytes changed at random inside the Draco stream.
    let v = &json["bufferViews"][view.as_u64().unwrap() as usize];
    let start = v["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = v["byteLength"].as_u64().unwrap() as usize;
    let (ok, errors) = damage_at_random(&bin, start..start + len, 0x9e37_79b9_7f4a_7c15, |b| {
        read(&json, b)
    });
    assert!(errors > 0 && ok > 0, "{ok} read, {errors} refused");
}

/// gltfpack's `-mi` (EXT_mesh_gpu_instancing): six nodes sharing a mesh
/// (a tilted quad, so a turn or a stretch changes its normal) under a
/// turned and moved parent become one node whose instance transforms
/// gltfpack computed, its positions quantized (14 bits over the mesh's
/// size, the dequantization folded into the instances), and with `-cc`
/// compressed too (the instances' rotations through the QUATERNION
/// filter). Each packed file must draw the source's triangles: every
/// source triangle a packed one, corners in order, within the
/// quantization's error, and every normal within 2 degrees.
#[test]
fn gltfpack_instanced_files_draw_as_their_source() {
    let dir = out_dir().join("gltfpack_instancing");
    std::fs::create_dir_all(&dir).unwrap();
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    // A unit quad tilted 30 degrees about X, and its normal.
    let (s, c) = 30f32.to_radians().sin_cos();
    let corners = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    let mut bin = f(&corners
        .iter()
        .flat_map(|[x, y]| [*x, y * c, y * s])
        .collect::<Vec<_>>());
    bin.extend(f(&[0.0, -s, c].repeat(4)));
    bin.extend([0u16, 1, 2, 0, 2, 3].iter().flat_map(|i| i.to_le_bytes()));
    let node = |t: [f32; 3], axis: Vec3, degrees: f32, scale: [f32; 3]| {
        let q = Quat::from_axis_angle(axis.normalize(), degrees.to_radians());
        serde_json::json!({"mesh": 0, "translation": t, "rotation": q.to_array(), "scale": scale})
    };
    let gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"translation": [0.0, 2.0, -1.0], "rotation": Quat::from_rotation_y(0.5).to_array(), "children": [1, 2, 3, 4, 5, 6]},
            node([0.0, 0.0, 0.0], Vec3::Y, 0.0, [1.0, 1.0, 1.0]),
            node([2.0, 0.0, 0.0], Vec3::Z, 90.0, [1.0, 1.0, 1.0]),
            node([0.0, 3.0, 0.0], Vec3::X, 45.0, [2.0, 2.0, 2.0]),
            node([-2.0, 0.0, 1.0], Vec3::new(1.0, 1.0, 1.0), 120.0, [1.0, 3.0, 1.0]),
            node([0.0, -2.0, 4.0], Vec3::Y, 180.0, [0.5, 1.0, 2.0]),
            node([5.0, 1.0, -2.0], Vec3::new(0.3, -1.0, 0.2), 33.0, [1.5, 0.75, 1.0])
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2}]}],
        "buffers": [{"uri": format!("data:application/gltf-buffer;base64,{}", base64(&bin)), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 48, "target": 34962},
            {"buffer": 0, "byteOffset": 48, "byteLength": 48, "target": 34962},
            {"buffer": 0, "byteOffset": 96, "byteLength": 12, "target": 34963}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, c, s]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ]
    });
    let text = valid_by_hand("gltfpack_instancing", "six.gltf", &gltf);
    let source_file = dir.join("six.gltf");
    let source = facet::load::load_bytes("six.gltf", &text, None)
        .unwrap()
        .scene;
    assert_eq!(source.meshes.len(), 6);
    let triangles = |scene: &Scene| -> Vec<([Vec3; 3], Vec3)> {
        scene
            .meshes
            .iter()
            .flat_map(|m| {
                m.indices.chunks_exact(3).map(|t| {
                    let p = [0, 1, 2].map(|k| m.positions[t[k] as usize]);
                    (p, m.normals[t[0] as usize])
                })
            })
            .collect()
    };
    let want = triangles(&source);
    assert_eq!(want.len(), 12);
    // The error allowed: the positions' 14-bit grid over the quad (1/16383
    // of it), times the largest scale (3), plus the instance rotation's
    // rounding times the farthest a corner lies from its instance's origin
    // (the quad's diagonal, sqrt 2, times 3). gltfpack writes instance
    // rotations as it writes rotation keys: normalized SHORTs (16 bits),
    // with -cc the QUATERNION filter at 12 bits: three components over
    // [-1/sqrt 2, 1/sqrt 2], each off by at most half a step, turn the
    // quaternion by at most 2 * sqrt 3 * step / 2 radians.
    let grid = 3.0 / 16383.0;
    let reach = 3.0 * 2f32.sqrt();
    let turn = |bits: i32| 3f32.sqrt() * 2f32.sqrt() / ((1 << bits) - 1) as f32;

    for (flags, rotation_bits) in [(&["-mi"][..], 16), (&["-mi", "-cc"][..], 12)] {
        let allowed = grid + turn(rotation_bits) * reach;
        let packed_file = dir.join(format!("six{}.glb", flags.join("")));
        gltfpack(&source_file, &packed_file, flags);
        let bytes = std::fs::read(&packed_file).unwrap();
        let (json, _) = glb_chunks(&bytes);
        let instanced: Vec<&serde_json::Value> = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["extensions"].get("EXT_mesh_gpu_instancing").is_some())
            .collect();
        assert_eq!(instanced.len(), 1, "{flags:?}: {}", json["nodes"]);
        let packed = facet::load::load_bytes("packed.glb", &bytes, None)
            .unwrap_or_else(|e| panic!("{flags:?}: {e}"))
            .scene;
        assert!(
            packed.warnings.is_empty(),
            "{flags:?}: {:?}",
            packed.warnings
        );
        assert_eq!(packed.meshes.len(), 1, "{flags:?}");
        assert!(
            packed.meshes[0].name.ends_with("(6 instances)"),
            "{flags:?}"
        );
        let got = triangles(&packed);
        assert_eq!(got.len(), want.len(), "{flags:?}");
        for (i, (w, wn)) in want.iter().enumerate() {
            let found = got.iter().any(|(g, gn)| {
                (0..3).any(|k| (0..3).all(|j| g[(j + k) % 3].distance(w[j]) <= allowed))
                    && gn.dot(*wn) > 2f32.to_radians().cos()
            });
            assert!(
                found,
                "{flags:?}: source triangle {i} {w:?} ({wn}) is not drawn (within {allowed})"
            );
        }
    }
}

/// libwebp's own tools (Debian's `webp` package, installed by
/// scripts/test): `cwebp ARGS -o OUT IN`, then `dwebp -pam` of OUT, read
/// here (a PAM: a text header, then RGBA rows), as libwebp decodes it.
fn cwebp(dir: &Path, name: &str, png: &image::RgbaImage, args: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let input = dir.join(format!("{name}.png"));
    png.save(&input).unwrap();
    let webp = dir.join(format!("{name}.webp"));
    let pam = dir.join(format!("{name}.pam"));
    let run = |tool: &str, args: &[&str], from: &Path, to: &Path| {
        let out = Command::new(tool)
            .args(args)
            .args(["-quiet", "-o"])
            .arg(to)
            .arg(from)
            .output()
            .unwrap_or_else(|e| panic!("{tool} (Debian's webp, which scripts/test installs): {e}"));
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run("cwebp", args, &input, &webp);
    run("dwebp", &["-pam"], &webp, &pam);
    let pam = std::fs::read(&pam).unwrap();
    let header_end = pam.windows(7).position(|w| w == b"ENDHDR\n").unwrap() + 7;
    let header = String::from_utf8_lossy(&pam[..header_end]);
    assert!(
        header.contains("TUPLTYPE RGB_ALPHA") && header.contains("DEPTH 4"),
        "{header}"
    );
    (std::fs::read(&webp).unwrap(), pam[header_end..].to_vec())
}

/// EXT_texture_webp (Blender's WebP export, and gltf-transform's): a
/// texture whose image is WebP, named only through the extension (the
/// extension's text: then the file requires it) or beside a PNG fallback
/// `source`, which a viewer reading WebP passes over. Assembled here with
/// images libwebp's `cwebp` wrote, and passed by Khronos' validator.
/// Lossless, the texels must be the pattern given to cwebp, exactly;
/// lossy, libwebp's own decoding of the file (`dwebp`, its default fancy
/// upsampling), byte for byte.
#[test]
fn webp_textures_read_as_libwebp_wrote_them() {
    let dir = out_dir().join("webp");
    std::fs::create_dir_all(&dir).unwrap();
    // 5 x 3: every texel its own colour and alpha.
    let pattern = image::RgbaImage::from_fn(5, 3, |x, y| {
        image::Rgba([
            x as u8 * 60,
            y as u8 * 120,
            255 - (x * y) as u8 * 20,
            255 - x as u8 * 40,
        ])
    });
    let (lossless, _) = cwebp(&dir, "pattern", &pattern, &["-lossless", "-exact"]);
    // 32 x 32, smooth, for the lossy codec.
    let smooth = image::RgbaImage::from_fn(32, 32, |x, y| {
        image::Rgba([(x * 8) as u8, (y * 8) as u8, ((x + y) * 4) as u8, 255])
    });
    let (lossy, decoded) = cwebp(&dir, "smooth", &smooth, &["-q", "80"]);

    let mut gltf = serde_json::json!({
        "asset": {"version": "2.0", "generator": "tests/gltf_export.rs, by hand"},
        "extensionsUsed": ["EXT_texture_webp"],
        "extensionsRequired": ["EXT_texture_webp"],
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"mesh": 0}, {"mesh": 1}],
        "meshes": (0..2).map(|m| serde_json::json!({"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "material": m}]})).collect::<Vec<_>>(),
        "materials": [
            {"name": "lossless", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}},
            {"name": "lossy", "pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}}
        ],
        "textures": [
            {"extensions": {"EXT_texture_webp": {"source": 1}}},
            {"extensions": {"EXT_texture_webp": {"source": 2}}}
        ]
    });
    textured_triangle(&mut gltf);
    let image = |bytes: &[u8]| serde_json::json!({"uri": format!("data:image/webp;base64,{}", base64(bytes)), "mimeType": "image/webp"});
    gltf["images"]
        .as_array_mut()
        .unwrap()
        .extend([image(&lossless), image(&lossy)]);
    let text = valid_by_hand("webp", "webp.gltf", &gltf);
    let scene = facet::load::load_bytes("webp.gltf", &text, None)
        .unwrap()
        .scene;
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let texture_of = |m: usize| &scene.textures[scene.materials[m].texture.unwrap()];
    let t = texture_of(0);
    assert_eq!((t.width, t.height), (5, 3));
    assert_eq!(
        t.rgba8,
        pattern.as_raw().as_slice(),
        "lossless: the pattern"
    );
    let t = texture_of(1);
    assert_eq!((t.width, t.height), (32, 32));
    assert!(t.rgba8 == decoded, "lossy: not libwebp's texels");

    // With a PNG fallback as `source` (the file then need not require the
    // extension): the WebP is drawn.
    let mut fallback = gltf.clone();
    fallback["textures"][0]["source"] = 0.into();
    fallback
        .as_object_mut()
        .unwrap()
        .remove("extensionsRequired");
    let text = valid_by_hand("webp", "webp_fallback.gltf", &fallback);
    let scene = facet::load::load_bytes("webp.gltf", &text, None)
        .unwrap()
        .scene;
    let t = &scene.textures[scene.materials[0].texture.unwrap()];
    assert_eq!(
        t.rgba8,
        pattern.as_raw().as_slice(),
        "the WebP, not the PNG"
    );

    // An extension source that is no image: the fallback, with a warning;
    // none at all: no map, with a warning naming what the texture had.
    fallback["textures"][0]["extensions"]["EXT_texture_webp"]["source"] = 9.into();
    let scene = facet::load::load_bytes("w.gltf", &serde_json::to_vec(&fallback).unwrap(), None)
        .unwrap()
        .scene;
    let t = &scene.textures[scene.materials[0].texture.unwrap()];
    assert_eq!(t.rgba8, [10, 20, 30, 255, 10, 20, 30, 255], "the PNG");
    assert_eq!(
        scene.warnings,
        [
            "textures[0].extensions.EXT_texture_webp.source: 9 is not an image (the file has 3); its fallback source is drawn"
        ]
    );
    let mut basisu = gltf.clone();
    basisu["textures"][0] =
        serde_json::json!({"extensions": {"KHR_texture_basisu": {"source": 1}}});
    basisu["extensionsUsed"] = serde_json::json!(["EXT_texture_webp", "KHR_texture_basisu"]);
    let scene = facet::load::load_bytes("w.gltf", &serde_json::to_vec(&basisu).unwrap(), None)
        .unwrap()
        .scene;
    assert_eq!(scene.materials[0].texture, None);
    assert_eq!(
        scene.warnings,
        [
            "textures[0]: no image Facet reads (its image only through KHR_texture_basisu); drawn without it"
        ]
    );
}
