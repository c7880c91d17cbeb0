//! An image no one here made: `../shared/fixtures/m3d/viper_reference.png`
//! is the screenshot assimp kept for `viper.m3d` (2400x1080, taken in a
//! phone viewer: a grey background, a black bar on the left, labels and
//! buttons along the bottom). We draw the file from the same view and
//! compare what can be compared.
//!
//! - **Expected to match: the silhouette.** The camera was found once by a
//!   search over yaw, pitch and distance for the best overlap (yaw 283°,
//!   pitch 74.5°, 2.2 × closer than framed); both silhouettes are cropped
//!   to their bounding boxes and sampled on the same grid, which removes
//!   image size and position but not the shape. The other viewer's field
//!   of view is unknown, so perspective differs a little: the overlap
//!   found is 0.69, the bound is 0.6.
//! - **Expected to match, after one swap: the colours.** The reference
//!   shows the stripes blue; the PNG inside the file (decoded by the `png`
//!   crate, not by us) has them red, the Colonial Viper's colours: the
//!   phone viewer swapped red and blue. With its red and blue swapped back,
//!   its saturated pixels fall in the same hue bins as ours.
//! - **Not expected to match**: lighting and shading (a different viewer),
//!   texture filtering, the exact outline (the field of view).

mod common;

use facet::gpu::{FrameInput, GpuScene, OrbitCamera, Renderer, ViewOptions, capture, frame};

const GRID: (usize, usize) = (200, 100);

/// `mask` (w x h) cropped to the bounding box of its set pixels and
/// sampled on a GRID.0 x GRID.1 grid.
fn normalized(mask: &[bool], w: usize, h: usize) -> Vec<bool> {
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        for x in 0..w {
            if mask[y * w + x] {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
        }
    }
    assert!(x1 >= x0, "an empty silhouette");
    let (bw, bh) = ((x1 - x0 + 1) as f32, (y1 - y0 + 1) as f32);
    let mut out = Vec::with_capacity(GRID.0 * GRID.1);
    for j in 0..GRID.1 {
        for i in 0..GRID.0 {
            let x = x0 + ((i as f32 + 0.5) / GRID.0 as f32 * bw) as usize;
            let y = y0 + ((j as f32 + 0.5) / GRID.1 as f32 * bh) as usize;
            out.push(mask[y.min(h - 1) * w + x.min(w - 1)]);
        }
    }
    out
}

fn iou(a: &[bool], b: &[bool]) -> f64 {
    let both = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    both as f64 / either.max(1) as f64
}

/// Six hue bins (red, yellow, green, cyan, blue, magenta) of the pixels
/// whose saturation is at least 0.35, as fractions of those pixels; and
/// how many there were.
fn hue_histogram(pixels: impl Iterator<Item = [u8; 3]>) -> ([f64; 6], usize) {
    let mut bins = [0usize; 6];
    let mut n = 0;
    for p in pixels {
        let [r, g, b] = p.map(|c| c as f32 / 255.0);
        let (max, min) = (r.max(g).max(b), r.min(g).min(b));
        if max <= 0.0 || (max - min) / max < 0.35 {
            continue;
        }
        let d = max - min;
        let h = if max == r {
            ((g - b) / d).rem_euclid(6.0)
        } else if max == g {
            (b - r) / d + 2.0
        } else {
            (r - g) / d + 4.0
        };
        // Bins centred on the primaries and secondaries.
        bins[((h + 0.5).floor() as usize) % 6] += 1;
        n += 1;
    }
    (bins.map(|c| c as f64 / n.max(1) as f64), n)
}

#[test]
fn viper_matches_the_reference_screenshot_in_silhouette_and_hues() {
    let reference = image::open(common::shared().join("fixtures/m3d/viper_reference.png"))
        .unwrap()
        .to_rgb8();
    assert_eq!(reference.dimensions(), (2400, 1080));
    // The reference's ship: every 4th pixel that is not the grey
    // background, leaving out the viewer's own bar, labels and buttons.
    let (rw, rh) = (600usize, 270usize);
    let bg = *reference.get_pixel(1200, 30);
    assert_eq!(bg.0, [128, 128, 128], "the reference's background");
    let mut ref_mask = vec![false; rw * rh];
    let mut ref_ship = Vec::new();
    for y in 0..rh {
        for x in 0..rw {
            let (px, py) = (x as u32 * 4, y as u32 * 4);
            let chrome = px < 110 || py > 1000 || (py > 940 && !(260..=2140).contains(&px));
            let p = reference.get_pixel(px, py).0;
            if !chrome && (0..3).any(|c| p[c].abs_diff(bg.0[c]) > 20) {
                ref_mask[y * rw + x] = true;
                ref_ship.push([p[2], p[1], p[0]]); // red and blue swapped back
            }
        }
    }

    let scene = facet::load::load_file(&common::shared().join("fixtures/m3d/viper.m3d"))
        .unwrap()
        .scene;
    let gpu = common::gpu();
    let format = capture::CAPTURE_FORMAT;
    let renderer = Renderer::new(&gpu, format, gpu.sample_count(format));
    let mut gpu_scene = GpuScene::new(&gpu, &renderer, &scene);
    let mut view = ViewOptions::for_scene(&scene);
    view.grid = false;
    view.background = [1.0, 0.0, 1.0, 1.0]; // magenta: no colour of the ship
    let (w, h) = (rw as u32, rh as u32);
    let mut camera = OrbitCamera {
        yaw: 283f32.to_radians(),
        pitch: 74.5f32.to_radians(),
        ..Default::default()
    };
    camera.fit(&scene.bounds(None), w as f32 / h as f32);
    camera.distance /= 2.2;
    let input = FrameInput::at_rest(&camera, &view);
    let (ours, _) = frame::render_to_image(&gpu, &renderer, &mut gpu_scene, &input, w, h);
    let is_ship = |p: &image::Rgba<u8>| !(p.0[0] > 240 && p.0[1] < 15 && p.0[2] > 240);
    let our_mask: Vec<bool> = ours.pixels().map(is_ship).collect();
    // Colours from the inside of the ship: edge pixels blend with magenta.
    let inside = |x: u32, y: u32| {
        (x.saturating_sub(1)..=(x + 1).min(w - 1)).all(|i| {
            (y.saturating_sub(1)..=(y + 1).min(h - 1)).all(|j| our_mask[(j * w + i) as usize])
        })
    };
    let our_ship = ours
        .enumerate_pixels()
        .filter(|(x, y, _)| inside(*x, *y))
        .map(|(_, _, p)| [p.0[0], p.0[1], p.0[2]]);

    let overlap = iou(
        &normalized(&our_mask, rw, rh),
        &normalized(&ref_mask, rw, rh),
    );
    eprintln!("silhouette overlap (IoU): {overlap:.3}");
    assert!(overlap >= 0.6, "silhouette overlap {overlap:.3} < 0.6");

    let (ref_hues, ref_n) = hue_histogram(ref_ship.into_iter());
    let (our_hues, our_n) = hue_histogram(our_ship);
    eprintln!(
        "hues (R Y G C B M): reference {ref_hues:.2?} ({ref_n}), ours {our_hues:.2?} ({our_n})"
    );
    assert!(ref_n > 500 && our_n > 500, "too few saturated pixels");
    // The stripes dominate both: red once the reference's swap is undone.
    let top = |h: &[f64; 6]| (0..6).max_by(|&a, &b| h[a].total_cmp(&h[b])).unwrap();
    assert_eq!((top(&ref_hues), top(&our_hues)), (0, 0));
    let distance: f64 = ref_hues
        .iter()
        .zip(&our_hues)
        .map(|(a, b)| (a - b).abs())
        .sum();
    eprintln!("hue histogram L1 distance: {distance:.3}");
    assert!(
        distance <= 0.25,
        "hue histograms {distance:.3} apart (bound 0.25)"
    );
    // The swap is the other viewer's: the file's own texture, as the png
    // crate decodes it, is red where it is saturated.
    let texture = &scene.textures[0];
    let (tex_hues, _) = hue_histogram(texture.rgba8.chunks_exact(4).map(|p| [p[0], p[1], p[2]]));
    assert_eq!(top(&tex_hues), 0, "the texture's hues {tex_hues:.2?}");
}
