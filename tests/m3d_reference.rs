//! The viewer against what the reference SDK m3d.h computes for every shared
//! M3D fixture (`../shared/fixtures/m3d/reference`, issue 14): counts, the
//! scale, the material names in order, the actions' lengths, every face's
//! corners (positions, UVs, vertex colours, bone influences) as multisets
//! per material, every bone's bind matrix and posed model-space matrix, and
//! skinned positions at four times of every action from the CPU reference
//! and from the GPU compute shader.
//!
//! Conventions crossed on the way (the reference README and
//! `docs/formats.md`): positions are file space in both; the scene's UV is
//! `(u, 1 - v)` of m3d.h's; colours are m3d.h's `0xAABBGGRR`, the scene's
//! RGBA bytes; a face with no material is m3d.h's -1 and the viewer's added
//! material.
//!
//! Tolerances, relative to the model's size (its bounding-box diagonal):
//! corners within 1e-6 (the reference prints 7 significant digits), skinned
//! positions and bone matrices (the points they move) within 1e-4 (the
//! issue's bound; weights are 16-bit and float order differs).

mod common;
use facet::anim::{Pose, skin_vertices};
use facet::load::Raw;
use facet::scene::Scene;
use glam::{Vec2, Vec3};
use serde_json::Value;
use std::collections::HashMap;

const FIXTURES: [&str; 14] = [
    "CesiumMan",
    "WusonBlitz0",
    "WusonBlitz2",
    "aliveai_character",
    "bezier",
    "cube",
    "cube_normals",
    "cube_usemtl",
    "cube_with_vertexcolors",
    "lantea",
    "nurbs",
    "suzanne",
    "viper",
    "voxel",
];

fn v3(v: &Value) -> Vec3 {
    Vec3::new(
        v[0].as_f64().unwrap() as f32,
        v[1].as_f64().unwrap() as f32,
        v[2].as_f64().unwrap() as f32,
    )
}

/// One scene triangle: its mesh and the mesh's three vertex indices.
#[derive(Clone, Copy, Debug)]
struct Tri {
    mesh: usize,
    v: [usize; 3],
}

/// Every reference face matched to a scene triangle of the same material,
/// with the rotation that lines their corners up: `corner c of the face is
/// vertex v[(c + r) % 3]`. Fails on a face with no match or a triangle left.
/// The fixtures the M3D tools also wrote in the ASCII form (`NAME.a3d`):
/// the same model, so m3d.h's figures for the binary file are theirs too.
const ASCII_TWINS: [&str; 2] = ["cube_with_vertexcolors", "voxel"];

/// Each fixture's file name and the reference it is held to: every binary
/// fixture, then each ASCII twin against its binary file's reference.
fn files() -> impl Iterator<Item = (String, &'static str)> {
    FIXTURES
        .into_iter()
        .map(|n| (format!("{n}.m3d"), n))
        .chain(ASCII_TWINS.into_iter().map(|n| (format!("{n}.a3d"), n)))
}

fn match_faces(name: &str, scene: &Scene, r: &Value, tol: f32) -> Vec<(Tri, usize)> {
    let faces = r["faces"].as_array().unwrap();
    let plain = |mesh: usize| {
        scene
            .added
            .material(scene.meshes[mesh].material.unwrap())
            .is_some()
    };
    // Scene triangles by material (-1: the viewer's material for faces
    // that name none), bucketed by centroid.
    let cell = tol * 1000.0;
    let key = |c: Vec3| ((c / cell).floor().as_i64vec3()).to_array();
    let mut buckets: HashMap<(i64, [i64; 3]), Vec<Tri>> = HashMap::new();
    let mut left = 0usize;
    for (mi, m) in scene.meshes.iter().enumerate() {
        let mat = if plain(mi) {
            -1
        } else {
            m.material.unwrap() as i64
        };
        for t in m.indices.chunks_exact(3) {
            let v = [t[0] as usize, t[1] as usize, t[2] as usize];
            let c = (m.positions[v[0]] + m.positions[v[1]] + m.positions[v[2]]) / 3.0;
            buckets
                .entry((mat, key(c)))
                .or_default()
                .push(Tri { mesh: mi, v });
            left += 1;
        }
    }
    let mut out = Vec::with_capacity(faces.len());
    for (fi, f) in faces.iter().enumerate() {
        let mat = f["material"].as_i64().unwrap();
        let pos: Vec<Vec3> = f["positions"].as_array().unwrap().iter().map(v3).collect();
        let uvs: Option<Vec<Vec2>> = f["uvs"].as_array().map(|a| {
            a.iter()
                .map(|u| Vec2::new(u[0].as_f64().unwrap() as f32, u[1].as_f64().unwrap() as f32))
                .collect()
        });
        let colors: Vec<[u8; 4]> = f["colors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c.as_u64().unwrap() as u32).to_le_bytes())
            .collect();
        let centroid = (pos[0] + pos[1] + pos[2]) / 3.0;
        let k = key(centroid);
        let corner_ok = |t: &Tri, rot: usize| {
            let m = &scene.meshes[t.mesh];
            (0..3).all(|c| {
                let v = t.v[(c + rot) % 3];
                let p_ok = m.positions[v].distance(pos[c]) <= tol;
                let uv_ok = uvs.as_ref().is_none_or(|uv| {
                    let s = m.uvs[v];
                    Vec2::new(s.x, 1.0 - s.y).distance(uv[c]) <= tol.max(1e-6)
                });
                let col_ok = m.colors.as_ref().is_none_or(|cols| cols[v] == colors[c]);
                p_ok && uv_ok && col_ok
            })
        };
        let mut found = None;
        'search: for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let kk = (mat, [k[0] + dx, k[1] + dy, k[2] + dz]);
                    if let Some(list) = buckets.get_mut(&kk) {
                        for i in 0..list.len() {
                            if let Some(rot) = (0..3).find(|&rot| corner_ok(&list[i], rot)) {
                                found = Some((list.swap_remove(i), rot));
                                break 'search;
                            }
                        }
                    }
                }
            }
        }
        let Some(hit) = found else {
            panic!("{name}: face {fi} (material {mat}, corners {pos:?}) has no match in the scene");
        };
        out.push(hit);
        left -= 1;
    }
    assert_eq!(
        left, 0,
        "{name}: {left} scene triangles match no m3d.h face"
    );
    out
}

/// The scene of the shared fixture `NAME.m3d`.
fn fixture(name: &str) -> Scene {
    let path = common::shared().join(format!("fixtures/m3d/{name}.m3d"));
    facet::load::load_file(&path).unwrap().scene
}

fn size_of(scene: &Scene) -> f32 {
    let b = scene.bounds(None);
    (b.max - b.min).length().max(1e-6)
}

#[test]
fn counts_equal_m3d_h() {
    for (file_name, reference) in files() {
        let name = file_name.as_str();
        let r = common::m3d_reference(reference);
        let l =
            facet::load::load_file(&common::shared().join(format!("fixtures/m3d/{name}"))).unwrap();
        let Raw::M3d(m) = &l.raw else {
            panic!("{name}: not M3D")
        };
        let (file, _) = l.scene.counts();
        // The reference prints 7 significant digits.
        let scale = r["scale"].as_f64().unwrap() as f32;
        let ours = l.scene.metres_per_unit.unwrap();
        assert!(
            (ours - scale).abs() <= 1e-6 * scale.abs(),
            "{name}: scale {ours}, m3d.h's {scale}"
        );
        for (what, ours, key) in [
            ("materials", file.materials, "nummaterial"),
            ("bones", file.bones, "numbone"),
            ("actions", file.clips, "numaction"),
            ("labels", l.scene.labels.len(), "numlabel"),
            ("inlined assets", m.assets.len(), "numinlined"),
            ("skins", m.skins.len(), "numskin"),
            ("voxel types", m.voxel_types.len(), "numvoxtype"),
        ] {
            assert_eq!(ours as u64, r[key].as_u64().unwrap(), "{name}: {what}");
        }
        // The file's materials come first in the scene, in the file's order
        // (what the viewer adds follows them).
        let names: Vec<&str> = r["materials"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        let ours: Vec<&str> = l.scene.materials[..names.len()]
            .iter()
            .map(|m| m.name.as_str())
            .collect();
        assert_eq!(ours, names, "{name}: material names");
        let numface = r["numface"].as_u64().unwrap() as usize;
        if r.get("faces_omitted").is_some() && r["numvoxel"].as_u64() != Some(1) {
            // Voxels in several blocks: the viewer also removes faces
            // between solid voxels of different blocks, which m3d.h keeps
            // (docs/formats.md, "Voxels"), so it makes at most as many.
            assert!(
                file.triangles > 0 && file.triangles <= numface,
                "{name}: {} > {numface}",
                file.triangles
            );
        } else {
            assert_eq!(file.triangles, numface, "{name}: triangles");
        }
    }
}

#[test]
fn triangles_equal_m3d_h_faces_per_material() {
    for (file_name, reference) in files() {
        let name = file_name.as_str();
        let r = common::m3d_reference(reference);
        if r.get("faces_omitted").is_some() {
            continue; // voxel models: counts only (see counts_equal_m3d_h)
        }
        let scene = facet::load::load_file(&common::shared().join(format!("fixtures/m3d/{name}")))
            .unwrap()
            .scene;
        let tol = 1e-6 * size_of(&scene);
        let matched = match_faces(name, &scene, &r, tol);
        assert_eq!(
            matched.len(),
            r["faces"].as_array().unwrap().len(),
            "{name}"
        );
    }
}

#[test]
fn skinned_positions_equal_m3d_h_on_the_cpu_and_the_gpu() {
    let gpu = common::gpu_under_test();
    let mut checked = 0;
    for name in FIXTURES {
        let r = common::m3d_reference(name);
        let actions = r["actions"].as_array().unwrap();
        if actions.is_empty() || r.get("faces_omitted").is_some() {
            continue;
        }
        let scene = fixture(name);
        let size = size_of(&scene);
        let matched = match_faces(name, &scene, &r, 1e-6 * size);
        let tol = 1e-4 * size;
        let mut pose = Pose::new(&scene.skeleton);
        for (ai, a) in actions.iter().enumerate() {
            let clip = scene
                .clips
                .iter()
                .find(|c| c.name == a["name"].as_str().unwrap())
                .unwrap_or(&scene.clips[ai]);
            let mut moved = 0.0f32;
            for p in a["poses"].as_array().unwrap() {
                let msec = p["msec"].as_u64().unwrap();
                pose.evaluate(&scene.skeleton, Some(clip), msec as f32 / 1000.0);
                // CPU reference, mesh by mesh.
                let cpu: Vec<Option<Vec<Vec3>>> = scene
                    .meshes
                    .iter()
                    .map(|m| {
                        let skin = m.skin.as_ref()?;
                        let n = m.positions.len();
                        let (mut out, mut nn) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
                        skin_vertices(
                            &pose.skin,
                            skin,
                            &m.positions,
                            &m.normals,
                            &mut out,
                            &mut nn,
                        );
                        Some(out)
                    })
                    .collect();
                let gpu_out = common::gpu_skinned_positions(&gpu, &scene, &pose);
                let want = p["skinned_positions"].as_array().unwrap();
                let (mut worst_cpu, mut worst_gpu) = (0.0f32, 0.0f32);
                for (fi, (t, rot)) in matched.iter().enumerate() {
                    for c in 0..3 {
                        let v = t.v[(c + rot) % 3];
                        let w = v3(&want[3 * fi + c]);
                        let rest = scene.meshes[t.mesh].positions[v];
                        let cpu_p = cpu[t.mesh].as_ref().map_or(rest, |o| o[v]);
                        let gpu_p = gpu_out[t.mesh].as_ref().map_or(rest, |o| o[v]);
                        worst_cpu = worst_cpu.max(cpu_p.distance(w));
                        worst_gpu = worst_gpu.max(gpu_p.distance(w));
                        moved = moved.max(w.distance(rest));
                    }
                }
                assert!(
                    worst_cpu <= tol,
                    "{name} {:?} at {msec} ms: CPU off m3d.h by {worst_cpu} (bound {tol})",
                    a["name"]
                );
                assert!(
                    worst_gpu <= tol,
                    "{name} {:?} at {msec} ms: GPU off m3d.h by {worst_gpu} (bound {tol})",
                    a["name"]
                );
                checked += 1;
            }
            assert!(
                moved > 10.0 * tol,
                "{name}: the action moves nothing: the check proves nothing"
            );
        }
    }
    assert!(checked >= 8, "only {checked} poses checked");
}

#[test]
fn a_click_hits_the_face_where_m3d_h_poses_it() {
    // For faces m3d.h's pose moves, a ray aimed straight at the face's
    // centre from just in front of it, both worked out here from m3d.h's
    // skinned corners, must hit the part holding that face at the face's
    // distance; at rest the same ray must not (the face is elsewhere).
    let mut checked = 0;
    for name in ["CesiumMan", "aliveai_character"] {
        let r = common::m3d_reference(name);
        let scene = fixture(name);
        let size = size_of(&scene);
        let matched = match_faces(name, &scene, &r, 1e-6 * size);
        let faces = r["faces"].as_array().unwrap();
        let shown = vec![true; scene.meshes.len()];
        let rest = Pose::new(&scene.skeleton);
        let mut pose = Pose::new(&scene.skeleton);
        for (ai, a) in r["actions"].as_array().unwrap().iter().enumerate() {
            // The pose at two thirds of the action.
            let p = &a["poses"][2];
            let msec = p["msec"].as_u64().unwrap();
            pose.evaluate(
                &scene.skeleton,
                Some(&scene.clips[ai]),
                msec as f32 / 1000.0,
            );
            let want = p["skinned_positions"].as_array().unwrap();
            let away = 1e-3 * size;
            let mut tried = 0;
            for fi in (0..faces.len()).step_by(faces.len().div_ceil(40)) {
                let w = [0, 1, 2].map(|c| v3(&want[3 * fi + c]));
                let at_rest = [0, 1, 2].map(|c| v3(&faces[fi]["positions"][c]));
                let moved = (0..3)
                    .map(|c| w[c].distance(at_rest[c]))
                    .fold(0.0, f32::max);
                let normal = (w[1] - w[0]).cross(w[2] - w[0]);
                if moved < 20.0 * away || normal.length() < 1e-6 * size * size {
                    continue;
                }
                let n = normal.normalize();
                let centre = (w[0] + w[1] + w[2]) / 3.0;
                // From `away` in front to `away` behind: the face at t = 0.5.
                let (origin, dir) = (centre + n * away, -2.0 * away * n);
                let hit = facet::anim::pick::pick_part(&scene, &pose, &shown, origin, dir)
                    .unwrap_or_else(|| panic!("{name} action {ai}, face {fi}: nothing hit"));
                assert_eq!(
                    hit.part, matched[fi].0.mesh,
                    "{name} action {ai}, face {fi}"
                );
                assert!(
                    (hit.distance - 0.5).abs() < 0.05,
                    "{name} action {ai}, face {fi}: hit at {} of the ray, not 0.5",
                    hit.distance
                );
                let still = facet::anim::pick::pick_part(&scene, &rest, &shown, origin, dir);
                assert!(
                    still.is_none_or(|h| (h.distance - 0.5).abs() >= 0.05),
                    "{name} action {ai}, face {fi}: hit at rest too: {still:?}"
                );
                tried += 1;
            }
            assert!(
                tried >= 5,
                "{name} action {ai}: only {tried} faces moved enough"
            );
            checked += tried;
        }
    }
    assert!(checked >= 20, "only {checked} faces checked");
}

/// A 4x4 matrix as the reference prints it: 16 floats, row-major, the
/// translation in elements 3, 7 and 11.
fn row_major(v: &Value) -> glam::Mat4 {
    let a: Vec<f32> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    glam::Mat4::from_cols_array(&a.try_into().unwrap()).transpose()
}

/// The largest distance between where `a` and `b` take the model's centre
/// and the ends of three axes the model's size long from it: a bound in
/// model units that weighs a matrix's rotation and scale by the model's
/// size and its translation as is.
fn apart(a: glam::Mat4, b: glam::Mat4, centre: Vec3, size: f32) -> f32 {
    [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]
        .map(|d| centre + d * size)
        .iter()
        .map(|&p| a.transform_point3(p).distance(b.transform_point3(p)))
        .fold(0.0, f32::max)
}

/// Every bone's name, parent, bind matrix and posed model-space matrix
/// against m3d.h's: `inverse_bind` (its `bone[i].mat4` after loading) and
/// `m3d_pose`'s matrices at the four times of every action. The skinned
/// positions above see a bone only through the vertices it moves; this
/// also holds the bones that move none (leaves, end bones), which the
/// skeleton overlay and the glTF export draw and write. Within 1e-4 of the
/// model's size, as the skinned positions.
#[test]
fn bone_matrices_equal_m3d_h() {
    let mut checked = (0, 0);
    for name in FIXTURES {
        let r = common::m3d_reference(name);
        let want = r["bones"].as_array().unwrap();
        if want.is_empty() {
            continue;
        }
        let scene = fixture(name);
        let bounds = scene.bounds(None);
        let (centre, size) = ((bounds.min + bounds.max) / 2.0, size_of(&scene));
        let tol = 1e-4 * size;
        let bones = &scene.skeleton.bones;
        assert_eq!(bones.len(), want.len(), "{name}: bones");
        for (i, (b, w)) in bones.iter().zip(want).enumerate() {
            assert_eq!(b.name, w["name"].as_str().unwrap(), "{name}: bone {i}");
            let parent = b.parent.map_or(-1, |p| p as i64);
            assert_eq!(parent, w["parent"].as_i64().unwrap(), "{name}: bone {i}");
            let d = apart(
                b.rest.inverse(),
                row_major(&w["inverse_bind"]),
                centre,
                size,
            );
            assert!(
                d <= tol,
                "{name}: bone {i} {:?}: inverse bind off m3d.h by {d} (bound {tol})",
                b.name
            );
            checked.0 += 1;
        }
        let mut pose = Pose::new(&scene.skeleton);
        for (ai, a) in r["actions"].as_array().unwrap().iter().enumerate() {
            let clip = &scene.clips[ai];
            assert_eq!(
                clip.name,
                a["name"].as_str().unwrap(),
                "{name}: action {ai}"
            );
            let seq = clip
                .sequence
                .as_ref()
                .expect("an M3D action is a frame sequence");
            assert_eq!(
                (seq.duration_ms as u64, seq.frames.len() as u64),
                (
                    a["durationmsec"].as_u64().unwrap(),
                    a["numframe"].as_u64().unwrap()
                ),
                "{name}: action {ai}'s duration and frames"
            );
            assert_eq!(clip.duration_s, seq.duration_ms as f32 / 1000.0);
            for p in a["poses"].as_array().unwrap() {
                let msec = p["msec"].as_u64().unwrap();
                pose.evaluate(&scene.skeleton, Some(clip), msec as f32 / 1000.0);
                let posed = p["bones"].as_array().unwrap();
                assert_eq!(posed.len(), bones.len(), "{name}: posed bones at {msec} ms");
                for (i, w) in posed.iter().enumerate() {
                    let d = apart(pose.world[i], row_major(w), centre, size);
                    assert!(
                        d <= tol,
                        "{name} {:?} at {msec} ms: bone {i} {:?} off m3d.h by {d} (bound {tol})",
                        clip.name,
                        bones[i].name
                    );
                    checked.1 += 1;
                }
            }
        }
    }
    // aliveai_character's 6 bones and CesiumMan's 19, each at four times
    // of its one action.
    assert_eq!(
        checked,
        (25, 100),
        "bind matrices and posed matrices checked"
    );
}

/// Every face corner's bone influences against m3d.h's (the `skin` lists
/// of the dumps: bone and weight, the weights renormalised to sum to 1,
/// `null` for a corner with none): the same bones, each weight within
/// 1e-4 (the scene keeps 16-bit weights; the dump prints 7 digits). The
/// skinned positions see a wrong weight only where the bones it mixes
/// have moved apart; this sees it at rest.
#[test]
fn skin_weights_equal_m3d_h() {
    let mut corners = 0;
    for name in FIXTURES {
        let r = common::m3d_reference(name);
        if r.get("faces_omitted").is_some() || r["numskin"].as_u64() == Some(0) {
            continue;
        }
        let scene = fixture(name);
        let matched = match_faces(name, &scene, &r, 1e-6 * size_of(&scene));
        let faces = r["faces"].as_array().unwrap();
        for (fi, ((t, rot), f)) in matched.iter().zip(faces).enumerate() {
            for c in 0..3 {
                let v = t.v[(c + rot) % 3];
                // (bone, weight) with weight > 0, by bone.
                let mut want: Vec<(u64, f32)> = match f["skin"][c].as_array() {
                    None => Vec::new(),
                    Some(list) => list
                        .iter()
                        .map(|bw| (bw[0].as_u64().unwrap(), bw[1].as_f64().unwrap() as f32))
                        .filter(|&(_, w)| w > 0.0)
                        .collect(),
                };
                want.sort_by_key(|&(b, _)| b);
                let mut ours: Vec<(u64, f32)> = match &scene.meshes[t.mesh].skin {
                    None => Vec::new(),
                    Some(s) => (0..4)
                        .filter(|&k| s.weights[v][k] > 0)
                        .map(|k| {
                            let w = s.weights[v][k] as f32 / facet::scene::WEIGHT_UNITS as f32;
                            (s.joints[v][k] as u64, w)
                        })
                        .collect(),
                };
                ours.sort_by_key(|&(b, _)| b);
                let same = ours.len() == want.len()
                    && ours
                        .iter()
                        .zip(&want)
                        .all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() <= 1e-4);
                assert!(
                    same,
                    "{name}: face {fi} corner {c}: influences {ours:?}, m3d.h's {want:?}"
                );
                corners += 1;
            }
        }
    }
    // aliveai_character's 84 faces and CesiumMan's 4,672, three corners each.
    assert_eq!(corners, 3 * (84 + 4672), "corners checked");
}
