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
use facet::cli::bench::Rng;
use facet::gpu::materials::{self, MaterialUniform, SLOT_STRIDE};
use facet::gpu::{Renderer, capture};
use facet::scene::material_anim::{MatInterp, MatLoop};
use facet::scene::{BlendMode, Material, Scene};

const TOLERANCE: f32 = 1.0 / 512.0;

fn slots(gpu: &facet::gpu::Gpu, gs: &facet::gpu::GpuScene, n: usize) -> Vec<MaterialUniform> {
    let bytes = capture::read_buffer(gpu, &gs.material_slots, n as u64 * SLOT_STRIDE);
    bytes
        .chunks(SLOT_STRIDE as usize)
        .map(|c| bytemuck::pod_read_unaligned(&c[..std::mem::size_of::<MaterialUniform>()]))
        .collect()
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
    let gpu = common::gpu_under_test();
    let scene = facet::cli::bench::animated_materials(300, 7);
    let renderer = Renderer::new(&gpu, capture::CAPTURE_FORMAT, 1);
    let gs = facet::gpu::GpuScene::new(&gpu, &renderer, &scene);
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
    let gpu = common::gpu_under_test();
    let scene = facet::cli::bench::animated_materials(8, 3);
    let renderer = Renderer::new(&gpu, capture::CAPTURE_FORMAT, 1);
    let gs = facet::gpu::GpuScene::new(&gpu, &renderer, &scene);
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

#[test]
fn the_animation_pipeline_is_made_by_the_first_scene_that_animates() {
    // A scene whose materials all stand still uploads without compiling
    // the compute pipeline; the first animated one makes it, and its slots
    // then move.
    let gpu = common::gpu_under_test();
    let renderer = Renderer::new(&gpu, capture::CAPTURE_FORMAT, 1);
    let mut still = facet::cli::bench::animated_materials(4, 3);
    for m in &mut still.materials {
        m.animation = None;
    }
    let gs = facet::gpu::GpuScene::new(&gpu, &renderer, &still);
    assert!(gs.material_anim.is_none());
    assert!(!renderer.material_animator.is_made());
    let animated = facet::cli::bench::animated_materials(4, 3);
    let gs = facet::gpu::GpuScene::new(&gpu, &renderer, &animated);
    assert!(gs.material_anim.is_some());
    assert!(renderer.material_animator.is_made());
    let at = |t: f32| {
        gs.set_material_time(&gpu, &renderer, t);
        slots(&gpu, &gs, animated.materials.len())
    };
    let moving = (0..animated.materials.len())
        .filter(|&i| animated.materials[i].animation.is_some())
        .collect::<Vec<_>>();
    let (a, b) = (at(0.0), at(0.77));
    assert!(moving.iter().any(|&i| a[i] != b[i]));
    // Made ahead of the scene (a thumbnail, while the file loads).
    let ahead = Renderer::new(&gpu, capture::CAPTURE_FORMAT, 1);
    ahead.material_animator.prepare();
    assert!(ahead.material_animator.is_made());
}

// ---- Writer-built P3M files -------------------------------------------------

use facet::formats::p3m::{self, ColorInterp, Interp, Key, MaterialAnimation, MaterialData};
use facet::formats::ptf::{Ptf, PtfFormat, PtfLayout};

fn key<T, I>(skip: u8, interp: I, value: T) -> Key<T, I> {
    Key {
        skip,
        interp,
        value,
    }
}

fn still(color: [u8; 4], texture: Option<u8>) -> MaterialData {
    MaterialData {
        color,
        emission: [0; 3],
        shading: 0, // evenly lit: the pixel is the colour (times the texture)
        texture,
        matcap: None,
    }
}

fn animation(us_per_frame: u32, last_frame: u8, loop_mode: p3m::MatLoop) -> MaterialAnimation {
    MaterialAnimation {
        us_per_frame,
        preserve_texture_scroll: false,
        loop_mode,
        texture_scroll: [0.0; 2],
        matcap_scroll: [0.0; 2],
        last_frame,
        color: vec![],
        emission: vec![],
        shading: vec![],
        texture: vec![],
        matcap: vec![],
    }
}

fn ptf(width: u32, height: u32, texels: &[[u8; 4]]) -> p3m::Texture {
    p3m::Texture::Embedded {
        offset: 0,
        size: 0,
        ptf: Ok(Ptf {
            layout: PtfLayout::Current { version: 0 },
            format: PtfFormat::Rgba,
            width,
            height,
            pixels: texels.concat(),
            reduced_from: None,
        }),
    }
}

/// A unit quad facing +Z (the camera's default side) with UVs over 0..1, one
/// material per entry of `materials` (part i uses material i; only part 0
/// is visible), written and decoded back through the P3M writer.
fn quad_file(materials: Vec<p3m::Material>, textures: Vec<p3m::Texture>) -> Scene {
    let parts = (0..materials.len())
        .map(|i| common::quad(&format!("quad {i}"), i as u8, i == 0))
        .collect();
    let m = p3m::P3m {
        layout: p3m::P3mLayout::Current,
        version: 0,
        flags: 0,
        parts,
        materials,
        textures,
        bones: vec![],
        animations: vec![],
        actions: vec![],
        user_fields: vec![],
        string_table: (0, 0),
    };
    let bytes = facet::formats::p3m_write::encode(&m).unwrap();
    facet::load::load_bytes("quad.p3m", &bytes, None)
        .unwrap()
        .scene
}

fn render_at(gpu: &facet::gpu::Gpu, scene: &Scene, time: f32, parts: &[bool]) -> image::RgbaImage {
    let req = facet::cli::headless::RenderRequest {
        width: 96,
        height: 96,
        camera: Some((0.0, 0.0, 1.0)),
        view: facet::gpu::ViewOptions {
            visible: parts.to_vec(),
            grid: false,
            ..Default::default()
        },
        time,
        ..Default::default()
    };
    facet::cli::headless::render(gpu, scene, &req).unwrap().0
}

#[test]
fn p3m_material_keys_become_scene_tracks() {
    let mut a = animation(40_000, 9, p3m::MatLoop::Cont);
    a.preserve_texture_scroll = true;
    a.texture_scroll = [0.5, 0.25];
    a.color = vec![
        key(2, ColorInterp::LinearHsv, [255, 0, 0, 255]),
        key(3, ColorInterp::LinearOklch, [0, 0, 255, 128]),
        // Frame 2 + 3 + 1 = 6, then 6 + 5 + 1 = 12: after the last frame.
        key(5, ColorInterp::None, [0, 255, 0, 255]),
    ];
    a.shading = vec![key(0, Interp::None, 51)];
    a.texture = vec![key(0, (), 0), key(4, (), p3m::NONE_INDEX)];
    let scene = quad_file(
        vec![p3m::Material {
            render_mode: p3m::RenderMode::Add,
            data: still([10, 20, 30, 40], Some(0)),
            animation: Some(a),
        }],
        vec![ptf(1, 1, &[[255; 4]])],
    );
    let m = &scene.materials[0];
    let an = m.animation.as_ref().unwrap();
    assert_eq!(an.seconds_per_frame, 0.04);
    assert_eq!(
        (an.last_frame, an.loop_mode, an.preserve_scroll),
        (9, MatLoop::Continue, true)
    );
    assert_eq!(
        an.texture_scroll,
        [0.5, -0.25],
        "V flips into scene UV space"
    );
    let frames: Vec<(u32, MatInterp)> = an.color.keys.iter().map(|k| (k.frame, k.interp)).collect();
    assert_eq!(frames, vec![(2, MatInterp::Hsv), (6, MatInterp::Oklch)]);
    assert_eq!(an.color.keys[1].value, [0.0, 0.0, 1.0, 128.0 / 255.0]);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("1 of 3 color keyframes lie after the last frame (9)")),
        "{:?}",
        scene.warnings
    );
    assert_eq!(an.shading.keys[0].value, 0.2);
    assert_eq!(an.shading.keys[0].interp, MatInterp::Step);
    let tex: Vec<(u32, Option<usize>)> =
        an.texture.keys.iter().map(|k| (k.frame, k.value)).collect();
    assert_eq!(tex, vec![(0, Some(0)), (5, None)]);
    // Initial values are the material's own.
    assert_eq!(m.texture, Some(0));
    assert_eq!(m.blend, BlendMode::Additive);
}

/// The pixel at the centre of the quad.
fn centre(img: &image::RgbaImage) -> [u8; 4] {
    img.get_pixel(img.width() / 2, img.height() / 2).0
}

#[test]
fn colour_keys_change_the_picture_over_time() {
    // Red at frame 0 to blue at frame 10 through HSV (magenta halfway),
    // 100 ms a frame: t = 0 is red, t = 0.5 s magenta.
    let mut a = animation(100_000, 10, p3m::MatLoop::None);
    a.color = vec![
        key(0, ColorInterp::LinearRgb, [255, 0, 0, 255]),
        key(9, ColorInterp::LinearHsv, [0, 0, 255, 255]),
    ];
    let scene = quad_file(
        vec![p3m::Material {
            render_mode: p3m::RenderMode::Normal,
            data: still([255, 0, 0, 255], None),
            animation: Some(a),
        }],
        vec![],
    );
    let gpu = common::gpu();
    for (t, name) in [(0.0, "material_anim_0s"), (0.5, "material_anim_0.5s")] {
        let img = render_at(&gpu, &scene, t, &[true]);
        common::assert_matches_reference(name, &img);
        // Unlit and untextured, the pixel is the animated colour itself.
        let want = material::evaluate(&scene.materials[0], t).color;
        let got = centre(&img);
        for c in 0..3 {
            let w = (want[c] * 255.0).round() as i32;
            assert!(
                (got[c] as i32 - w).abs() <= 2,
                "t = {t}: pixel {got:?}, colour {want:?}"
            );
        }
    }
    let mid = centre(&render_at(&gpu, &scene, 0.5, &[true]));
    assert!(
        mid[0] > 240 && mid[1] < 10 && mid[2] > 240,
        "HSV halfway is magenta: {mid:?}"
    );
}

#[test]
fn texture_keys_and_scrolls_render_like_static_materials() {
    // Material 0 switches from texture 0 to texture 1 at frame 5 (100 ms a
    // frame) and scrolls 0.5 UV/s in U; materials 1 and 2 are static with
    // texture 0 and 1. At 0.2 s material 0 must look like material 1 under
    // a 0.1 U offset; at 0.6 s like material 2 under a 0.3 offset: same
    // pixels through the texture array as through the textures' own views.
    let checker = |a: [u8; 4], b: [u8; 4], n: u32| {
        let texels: Vec<[u8; 4]> = (0..n * n)
            .map(|i| {
                if (i % n + i / n).is_multiple_of(2) {
                    a
                } else {
                    b
                }
            })
            .collect();
        ptf(n, n, &texels)
    };
    let textures = vec![
        checker([255, 40, 40, 255], [40, 255, 40, 255], 2),
        checker([40, 40, 255, 255], [250, 250, 60, 255], 4),
    ];
    let mut a = animation(100_000, 9, p3m::MatLoop::Loop);
    a.texture = vec![key(5, (), 1)];
    a.texture_scroll = [0.5, 0.0];
    let animated = p3m::Material {
        render_mode: p3m::RenderMode::Normal,
        data: still([255; 4], Some(0)),
        animation: Some(a),
    };
    let plain = |t| p3m::Material {
        render_mode: p3m::RenderMode::Normal,
        data: still([255; 4], Some(t)),
        animation: None,
    };
    let scene = quad_file(vec![animated, plain(0), plain(1)], textures);
    let gpu = common::gpu();
    for (t, other) in [(0.2f32, 1usize), (0.6, 2)] {
        let got = render_at(&gpu, &scene, t, &[true, false, false]);
        // The framed quad covers about a quarter of the picture with texels.
        let bright = got
            .pixels()
            .filter(|p| p.0.iter().take(3).any(|&c| c >= 200))
            .count();
        assert!(
            bright * 5 > (got.width() * got.height()) as usize,
            "t = {t}: {bright} texel pixels"
        );
        // The static twin: its UVs shifted by what the scroll adds at t.
        let shift = 0.5 * t;
        let mut twin = scene.clone();
        for uv in &mut twin.meshes[other].uvs {
            uv.x += shift;
        }
        let mut parts = [false; 3];
        parts[other] = true;
        let want = render_at(&gpu, &twin, t, &parts);
        let differing = got
            .pixels()
            .zip(want.pixels())
            .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 2));
        let n = differing.count();
        assert!(
            n <= 2,
            "t = {t}: {n} pixels differ from the static texture {}",
            other - 1
        );
        // And the two textures do look different.
        if other == 2 {
            let first = render_at(&gpu, &scene, 0.0, &[true, false, false]);
            assert_ne!(centre(&first), centre(&got));
        }
    }
    // The animation loops: 1.2 s is 0.2 s into the second cycle (texture
    // 0, scroll restarted).
    let a = render_at(&gpu, &scene, 1.2, &[true, false, false]);
    let b = render_at(&gpu, &scene, 0.2, &[true, false, false]);
    assert_eq!(a, b);
}

#[test]
fn hostile_animation_values_stay_finite() {
    // NaN and infinite scrolls, no frame length, the longest frame, 255 keys
    // a track, keys far past the last frame: warnings, finite values, and
    // the GPU agrees.
    let mut a = animation(0, 255, p3m::MatLoop::Cont);
    a.texture_scroll = [f32::NAN, 1.0];
    a.matcap_scroll = [f32::INFINITY, 0.0];
    a.color = (0..255)
        .map(|i| key(255, ColorInterp::LinearOklch, [i as u8; 4]))
        .collect();
    let mut b = animation(u32::MAX, 0, p3m::MatLoop::Loop);
    b.shading = vec![key(0, Interp::Linear, 7), key(0, Interp::Linear, 9)];
    let scene = quad_file(
        vec![
            p3m::Material {
                render_mode: p3m::RenderMode::Normal,
                data: still([1, 2, 3, 4], None),
                animation: Some(a),
            },
            p3m::Material {
                render_mode: p3m::RenderMode::Normal,
                data: still([1, 2, 3, 4], None),
                animation: Some(b),
            },
        ],
        vec![],
    );
    let w = scene.warnings.join("\n");
    for text in [
        "material 0: 0 microseconds per frame",
        "material 0: texture scroll (NaN, 1) is not a finite number",
        "material 0: matcap scroll (inf, 0)",
        "material 0: 254 of 255 color keyframes lie after the last frame (255)",
        "material 1: 1 of 2 shading keyframes lie after the last frame (0)",
    ] {
        assert!(w.contains(text), "missing warning {text:?} in:\n{w}");
    }
    let gpu = common::gpu_under_test();
    let renderer = Renderer::new(&gpu, capture::CAPTURE_FORMAT, 1);
    let gs = facet::gpu::GpuScene::new(&gpu, &renderer, &scene);
    for t in [0.0, 1.5, 1e7] {
        gs.set_material_time(&gpu, &renderer, t);
        let got = slots(&gpu, &gs, 2);
        for (i, m) in scene.materials.iter().enumerate() {
            let want = materials::uniform(&scene, i, &material::evaluate(m, t), &gs.texture_layers);
            let floats = [want.base_color, want.emission, want.params, want.uv_offset];
            assert!(floats.iter().flatten().all(|x| x.is_finite()), "{want:?}");
            compare(&want, &got[i]).unwrap_or_else(|e| panic!("material {i} at {t}: {e}"));
        }
    }
}
