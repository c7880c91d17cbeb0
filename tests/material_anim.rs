//! Material keyframe animation on the GPU (shaders/material_anim.wgsl)
//! against the CPU reference (src/anim/material.rs), and writer-built P3M
//! files with animated materials.
//!
//! Tolerance: every colour, emission and shading channel within 1/512 (the
//! GPU's pow/atan2/cos differ from Rust's in the last bits); UV offsets
//! within 1/512 on the circle (they wrap at 1); texture layers and their
//! rectangles exactly. Times within 1/1000 of a frame of a key or a cycle
//! boundary are skipped for that material: there a value may jump (step
//! keys, loop restarts) and the two sides may round to opposite frames.

mod common;
use facet::anim::material::{self, MaterialState};
use facet::bench::Rng;
use facet::gpu::materials::{self, MaterialUniform, SLOT_STRIDE};
use facet::gpu::{Renderer, capture};
use facet::scene::material_anim::{MatInterp, MatKey, MatLoop, MatTrack, MaterialAnim};
use facet::scene::{BlendMode, Material, Mesh, Scene, Texture};
use glam::{Vec2, Vec3};

const TOLERANCE: f32 = 1.0 / 512.0;

fn slots(gpu: &facet::gpu::Gpu, gs: &facet::gpu::GpuScene, n: usize) -> Vec<MaterialUniform> {
    let bytes = capture::read_buffer(gpu, &gs.material_slots, n as u64 * SLOT_STRIDE);
    bytes
        .chunks(SLOT_STRIDE as usize)
        .map(|c| bytemuck::pod_read_unaligned(&c[..std::mem::size_of::<MaterialUniform>()]))
        .collect()
}

fn triangle() -> Mesh {
    Mesh {
        name: "tri".into(),
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        normals: vec![Vec3::Z; 3],
        uvs: vec![Vec2::ZERO, Vec2::X, Vec2::Y],
        indices: vec![0, 1, 2],
        material: Some(0),
        visible: true,
        has_file_normals: true,
        has_file_uvs: true,
        skin: None,
        material_overrides: vec![],
    }
}

fn texture(name: &str, w: u32, h: u32, rng: &mut Rng) -> Texture {
    let mut t = Texture::checkerboard(name, "generated".into());
    t.width = w;
    t.height = h;
    t.rgba8 = (0..w * h * 4)
        .map(|_| (rng.next_u64() & 255) as u8)
        .collect();
    t
}

fn byte(rng: &mut Rng) -> f32 {
    (rng.next_u64() % 256) as f32 / 255.0
}

fn track<T>(
    rng: &mut Rng,
    last_frame: u32,
    interps: &[MatInterp],
    mut value: impl FnMut(&mut Rng) -> T,
) -> MatTrack<T> {
    let mut keys = Vec::new();
    let mut frame = (rng.next_u64() % 4) as u32;
    while frame <= last_frame && keys.len() < 12 {
        keys.push(MatKey {
            frame,
            interp: interps[(rng.next_u64() % interps.len() as u64) as usize],
            value: value(rng),
        });
        frame += 1 + (rng.next_u64() % 6) as u32;
    }
    if rng.next_u64().is_multiple_of(5) {
        keys.clear(); // some tracks stay at the initial value
    }
    MatTrack { keys }
}

/// `n` materials with random tracks of every interpolation and loop mode;
/// about a third switch textures among 5 textures of different sizes.
fn generated(n: usize, seed: u64) -> Scene {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut scene = Scene::default();
    scene.source.file_name = "generated".into();
    for (i, (w, h)) in [(4, 4), (16, 8), (2, 32), (8, 8), (1, 1)]
        .into_iter()
        .enumerate()
    {
        scene
            .textures
            .push(texture(&format!("t{i}"), w, h, &mut rng));
    }
    let colors = [
        MatInterp::Step,
        MatInterp::Linear,
        MatInterp::Hsv,
        MatInterp::Oklch,
    ];
    let scalar = [MatInterp::Step, MatInterp::Linear];
    for i in 0..n {
        let last_frame = 1 + (rng.next_u64() % 40) as u32;
        let loop_mode = [MatLoop::Hold, MatLoop::Loop, MatLoop::Continue][i % 3];
        let mut a = MaterialAnim::new(rng.range(0.01, 0.1), last_frame, loop_mode);
        a.preserve_scroll = rng.next_u64().is_multiple_of(2);
        a.texture_scroll = [rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)];
        a.matcap_scroll = [rng.range(-1.0, 1.0), 0.0];
        a.color = track(&mut rng, last_frame, &colors, |r| {
            [byte(r), byte(r), byte(r), byte(r)]
        });
        a.emission = track(&mut rng, last_frame, &colors, |r| {
            [byte(r), byte(r), byte(r)]
        });
        a.shading = track(&mut rng, last_frame, &scalar, byte);
        let pick = |r: &mut Rng| match r.next_u64() % 6 {
            5 => None,
            t => Some(t as usize),
        };
        if i % 3 == 1 {
            a.texture = track(&mut rng, last_frame, &[MatInterp::Step], pick);
            a.matcap = track(&mut rng, last_frame, &[MatInterp::Step], pick);
        }
        scene.materials.push(Material {
            name: format!("m{i}"),
            base_color: [
                byte(&mut rng),
                byte(&mut rng),
                byte(&mut rng),
                byte(&mut rng),
            ],
            emission: [byte(&mut rng), byte(&mut rng), byte(&mut rng)],
            shading: byte(&mut rng),
            texture: pick(&mut rng),
            matcap: pick(&mut rng),
            blend: if i % 4 == 0 {
                BlendMode::Additive
            } else {
                BlendMode::Opaque
            },
            animation: Some(a),
        });
    }
    // One static material in the middle: its slot must stay as uploaded.
    scene.materials.insert(n / 2, Material::default());
    scene.meshes.push(triangle());
    scene
}

/// True when `t` is within 1/1000 frame of a frame boundary of `m`'s clock.
fn near_boundary(m: &Material, t: f32) -> bool {
    let Some(a) = &m.animation else { return false };
    if a.seconds_per_frame <= 0.0 {
        return false;
    }
    let f = t / a.seconds_per_frame;
    (f - f.round()).abs() < 1e-3
}

fn circular(a: f32, b: f32) -> f32 {
    let d = (a - b).rem_euclid(1.0);
    d.min(1.0 - d)
}

fn compare(want: &MaterialUniform, got: &MaterialUniform) -> Result<f32, String> {
    let mut worst = 0.0f32;
    let fields = [
        ("base_color", &want.base_color, &got.base_color),
        ("emission", &want.emission, &got.emission),
        ("params", &want.params, &got.params),
    ];
    for (name, w, g) in fields {
        for k in 0..4 {
            let d = (w[k] - g[k]).abs();
            worst = worst.max(d);
            if d.is_nan() || d > TOLERANCE {
                return Err(format!("{name}[{k}]: CPU {w:?}, GPU {g:?}"));
            }
        }
    }
    for k in 0..4 {
        let d = circular(want.uv_offset[k], got.uv_offset[k]);
        worst = worst.max(d);
        if d.is_nan() || d > TOLERANCE {
            return Err(format!(
                "uv_offset[{k}]: CPU {:?}, GPU {:?}",
                want.uv_offset, got.uv_offset
            ));
        }
    }
    if (want.layers, want.tex_rect, want.matcap_rect) != (got.layers, got.tex_rect, got.matcap_rect)
    {
        return Err(format!(
            "texture layers: CPU {:?} {:?} {:?}, GPU {:?} {:?} {:?}",
            want.layers, want.tex_rect, want.matcap_rect, got.layers, got.tex_rect, got.matcap_rect
        ));
    }
    Ok(worst)
}

#[test]
fn gpu_matches_cpu_for_every_interpolation_and_loop_mode() {
    let gpu = common::gpu();
    let scene = generated(300, 7);
    let renderer = Renderer::new(&gpu, capture::CAPTURE_FORMAT, 1);
    let gs = renderer.upload(&gpu, &scene);
    assert_eq!(gs.material_anim.as_ref().map(|b| b.count), Some(300));
    assert!(
        gs.texture_layers.layer_count() == 5,
        "switching materials use the array"
    );
    let n = scene.materials.len();
    let mut rng = Rng(0x5DEECE66D);
    let (mut compared, mut skipped, mut worst) = (0, 0, 0.0f32);
    // 60 times over 0..8 s: several cycles of every material.
    for step in 0..60 {
        let t = if step == 0 { 0.0 } else { rng.range(0.0, 8.0) };
        gs.set_material_time(&gpu, &renderer, t);
        let got = slots(&gpu, &gs, n);
        for (i, m) in scene.materials.iter().enumerate() {
            if near_boundary(m, t) && t != 0.0 {
                skipped += 1;
                continue;
            }
            let want = materials::uniform(&scene, i, &material::evaluate(m, t), &gs.texture_layers);
            match compare(&want, &got[i]) {
                Ok(d) => worst = worst.max(d),
                Err(e) => panic!(
                    "material {i} ({:?}) at t = {t}: {e}",
                    m.animation.as_ref().map(|a| a.loop_mode)
                ),
            }
            compared += 1;
        }
    }
    eprintln!(
        "{compared} material states compared, {skipped} skipped at frame boundaries, worst difference {worst:.2e}"
    );
    assert!(
        skipped * 50 < compared,
        "too many skipped: {skipped} of {compared}"
    );
}

#[test]
fn static_slots_are_the_materials_own_values() {
    let gpu = common::gpu();
    let scene = generated(8, 3);
    let renderer = Renderer::new(&gpu, capture::CAPTURE_FORMAT, 1);
    let gs = renderer.upload(&gpu, &scene);
    gs.set_material_time(&gpu, &renderer, 2.5);
    let got = slots(&gpu, &gs, scene.materials.len() + 1);
    let i = 4; // the static one
    assert!(scene.materials[i].animation.is_none());
    let want = materials::uniform(
        &scene,
        i,
        &MaterialState::initial(&scene.materials[i]),
        &gs.texture_layers,
    );
    assert_eq!(got[i], want);
    // The default material (last slot) too.
    let d = Material::default();
    let mut s2 = scene.clone();
    s2.materials.push(d.clone());
    assert_eq!(
        got[scene.materials.len()],
        materials::uniform(
            &s2,
            scene.materials.len(),
            &MaterialState::initial(&d),
            &gs.texture_layers
        )
    );
}
