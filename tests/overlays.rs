//! Each overlay proven by its own pixels: a frame is drawn without and with
//! the feature from the same camera, and the pixels that change must be
//! many enough and lie where the feature is, inside the screen rectangle
//! that its world-space box projects to (a few pixels of margin for
//! antialiasing). A reference image allows 0.5% of pixels to differ, more
//! than a whole skeleton overlay covers; these tests would fail if any one
//! overlay stopped drawing, or drew somewhere else.
//!
//! Runs on the software adapter (tests/common::gpu).

mod common;

use facet::gpu::{FrameInput, GpuScene, OrbitCamera, Renderer, ViewOptions, capture, frame};
use facet::scene::{Aabb, Scene};
use glam::Vec3;

const W: u32 = 320;
const H: u32 = 240;
/// A pixel changed when a channel moved by more than this (of 255): well
/// above llvmpipe's run-to-run noise (none) and antialiasing dither.
const CHANGED: u8 = 24;
/// Changed pixels allowed outside the feature's rectangle: lines drawn
/// with MSAA bleed a pixel, which the margin covers; the rest is slack for
/// a resolve that touches a neighbour.
const OUTSIDE_FRACTION: f64 = 0.02;
const MARGIN_PX: f32 = 3.0;

struct Bench {
    gpu: facet::gpu::Gpu,
    renderer: Renderer,
    scene: Scene,
    gpu_scene: GpuScene,
    camera: OrbitCamera,
}

impl Bench {
    fn new(scene: Scene) -> Bench {
        let gpu = common::gpu();
        let format = capture::CAPTURE_FORMAT;
        let renderer = Renderer::new(&gpu, format, gpu.sample_count(format));
        let gpu_scene = GpuScene::new(&gpu, &renderer, &scene);
        let camera = OrbitCamera::framing(&scene.bounds(None), W as f32 / H as f32);
        Bench {
            gpu,
            renderer,
            scene,
            gpu_scene,
            camera,
        }
    }

    /// The scene's default view without the grid (it would cross every
    /// feature's rectangle).
    fn view(&self) -> ViewOptions {
        let mut v = ViewOptions::for_scene(&self.scene);
        v.grid = false;
        v.skeleton = false;
        v
    }

    fn shoot(&mut self, view: &ViewOptions, selected_bone: Option<usize>) -> image::RgbaImage {
        let input = FrameInput {
            selected_bone,
            ..FrameInput::at_rest(&self.camera, view)
        };
        frame::render_to_image(&self.gpu, &self.renderer, &mut self.gpu_scene, &input, W, H).0
    }

    /// The screen rectangle (x0, y0, x1, y1 in pixels) that `b` projects to.
    fn rect(&self, b: &Aabb) -> [f32; 4] {
        let vp = self.camera.view_proj(W as f32 / H as f32);
        let mut r = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
        for c in b.corners() {
            let ndc = vp.project_point3(c);
            let (x, y) = (
                (ndc.x * 0.5 + 0.5) * W as f32,
                (0.5 - ndc.y * 0.5) * H as f32,
            );
            r = [r[0].min(x), r[1].min(y), r[2].max(x), r[3].max(y)];
        }
        [
            r[0] - MARGIN_PX,
            r[1] - MARGIN_PX,
            r[2] + MARGIN_PX,
            r[3] + MARGIN_PX,
        ]
    }
}

/// The pixels where `a` and `b` differ by more than [`CHANGED`].
fn changed(a: &image::RgbaImage, b: &image::RgbaImage) -> Vec<(u32, u32)> {
    a.enumerate_pixels()
        .filter(|(x, y, p)| {
            let q = b.get_pixel(*x, *y);
            (0..3).any(|c| p.0[c].abs_diff(q.0[c]) > CHANGED)
        })
        .map(|(x, y, _)| (x, y))
        .collect()
}

/// The feature changed at least `min` pixels, and all but
/// [`OUTSIDE_FRACTION`] of them inside `rect`.
fn assert_feature(name: &str, pixels: &[(u32, u32)], rect: [f32; 4], min: usize) {
    let inside = pixels
        .iter()
        .filter(|&&(x, y)| {
            let (x, y) = (x as f32 + 0.5, y as f32 + 0.5);
            x >= rect[0] && x <= rect[2] && y >= rect[1] && y <= rect[3]
        })
        .count();
    let outside = pixels.len() - inside;
    eprintln!(
        "{name}: {} pixels changed, {outside} outside {rect:?}",
        pixels.len()
    );
    assert!(
        pixels.len() >= min,
        "{name}: only {} pixels changed (at least {min} expected)",
        pixels.len()
    );
    assert!(
        outside as f64 <= pixels.len() as f64 * OUTSIDE_FRACTION,
        "{name}: {outside} of {} changed pixels lie outside the feature's {rect:?}",
        pixels.len()
    );
}

fn demo() -> Scene {
    facet::load::load_file(&common::repo().join("assets/demo.p3m"))
        .unwrap()
        .scene
}

/// The union of the visible meshes' rest bounds.
fn visible_bounds(scene: &Scene, view: &ViewOptions) -> Aabb {
    scene.bounds(Some(&view.visible))
}

#[test]
fn wireframe_bounds_and_normals_each_draw_over_the_visible_parts() {
    let mut b = Bench::new(demo());
    let base = b.view();
    let plain = b.shoot(&base, None);
    let parts = visible_bounds(&b.scene, &base);
    // Minimums: about a third of what each overlay changes at 320x240 on
    // llvmpipe (wireframe ~4,200, bounds ~3,400, normals ~2,200 pixels):
    // room for another rasteriser's line coverage, far above what
    // antialiasing alone could change.
    let mut wire = base.clone();
    wire.wireframe = true;
    let img = b.shoot(&wire, None);
    assert_feature("wireframe", &changed(&plain, &img), b.rect(&parts), 1500);

    let mut bounds = base.clone();
    bounds.bounds = true;
    let img = b.shoot(&bounds, None);
    assert_feature("bounds", &changed(&plain, &img), b.rect(&parts), 1000);

    // Normals stick out of the surface by 4% of the scene radius.
    let mut normals = base.clone();
    normals.normals = true;
    let img = b.shoot(&normals, None);
    let reach = Vec3::splat(b.camera.scene_radius * 0.04);
    let grown = Aabb {
        min: parts.min - reach,
        max: parts.max + reach,
    };
    assert_feature("normals", &changed(&plain, &img), b.rect(&grown), 750);
}

#[test]
fn the_skeleton_and_the_selected_bone_draw_where_the_bones_are() {
    let mut b = Bench::new(demo());
    let base = b.view();
    let plain = b.shoot(&base, None);
    let bones = b.scene.skeleton.bones.clone();
    assert!(bones.len() >= 3);
    let bone_box = |i: usize| {
        let (h, t) = (bones[i].head, bones[i].tail);
        let pad = Vec3::splat(h.distance(t) * 0.1);
        Aabb {
            min: h.min(t) - pad,
            max: h.max(t) + pad,
        }
    };
    let all = (1..bones.len()).fold(bone_box(0), |all, i| all.union(&bone_box(i)));
    let mut skel = base.clone();
    skel.skeleton = true;
    let with = b.shoot(&skel, None);
    // ~580 pixels of octahedral lines on llvmpipe; a third of it must show.
    assert_feature("skeleton", &changed(&plain, &with), b.rect(&all), 200);
    // Selecting a bone recolours that bone and no other.
    let selected = b.shoot(&skel, Some(1));
    let rect = b.rect(&bone_box(1));
    // ~420 pixels change colour, all of them on that bone.
    assert_feature("selected bone", &changed(&with, &selected), rect, 140);
}

#[test]
fn the_selection_outline_draws_around_the_selected_part_alone() {
    let mut b = Bench::new(demo());
    let base = b.view();
    let plain = b.shoot(&base, None);
    let mut sel = base.clone();
    sel.selected_part = Some(2);
    let img = b.shoot(&sel, None);
    let part = b.scene.meshes[2].bounds();
    // ~1,900 pixels on llvmpipe; a third of it must show.
    assert_feature(
        "selection outline",
        &changed(&plain, &img),
        b.rect(&part),
        600,
    );
}

#[test]
fn a_cells_visibility_highlight_draws_inside_the_visible_sectors() {
    use facet::scene::map_overlay::{self, MapOverlay};
    use facet::scene::map_query;
    let loaded = facet::load::load_file(&common::repo().join("assets/demo.pmf")).unwrap();
    let mut b = Bench::new(loaded.scene);
    b.camera.yaw = 0.6;
    b.camera.pitch = 0.9;
    let base = b.view();
    let info = b.scene.map.clone().unwrap();
    let plain = b.shoot(&base, None);
    let (sector, cell) = map_query::cell_at(&info.map, Vec3::new(40.0, 3.0, 44.0)).unwrap();
    let visible = map_query::visible_cubes(&info.map, sector, cell);
    let overlay = MapOverlay {
        visible: Some(visible.clone()),
        outline_visible_cubes: true,
        ..Default::default()
    };
    b.gpu_scene
        .set_extra_lines(&b.gpu, &map_overlay::lines(&info, &overlay));
    let img = b.shoot(&base, None);
    // The highlight outlines the sectors that hold visible cubes.
    let size = info.map.sector_size;
    let region = visible.iter().fold(Aabb::EMPTY, |r, &(s, _)| {
        let min = Vec3::from(info.map.sector_coords(s).map(|v| v as f32 * size));
        r.union(&Aabb {
            min,
            max: min + size,
        })
    });
    assert!(!region.is_empty());
    let rect = b.rect(&region);
    // ~6,000 pixels on llvmpipe; a third of it must show.
    assert_feature("visibility highlight", &changed(&plain, &img), rect, 2000);
}
