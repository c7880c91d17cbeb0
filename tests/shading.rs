//! Shading as the games do, each feature proven by its own pixels on the
//! software adapter (tests/common::gpu). Expected values come from the
//! notes' formulas worked here by hand (`../shared/notes/pa-shading.md`:
//! the team-colour overlay, glow, the two-channel normal decode) and from
//! plain geometry: a normal map that turns the normal to `n` must light a
//! flat quad exactly as a quad facing `n` is lit, under any light.
//!
//! Tolerances: 2/255 per channel for one sampled value (sRGB encode and
//! decode of 8-bit texels round twice); 4/255 where a 1x1 normal map's
//! 8-bit quantisation tilts the normal by up to 1/255 (about 0.2°).

mod common;

use facet::gpu::{
    Channel, FrameInput, GpuScene, Lighting, OrbitCamera, Renderer, TeamColors, ViewOptions,
    capture, frame,
};
use facet::scene::{
    BlendMode, Maps, Material, MaterialMap, Mesh, NormalMap, Scene, Texture, TextureSource,
};
use glam::{Vec2, Vec3};

const W: u32 = 96;
const H: u32 = 96;

/// A texture of `w` x `h` texels from `f(x, y)`; `srgb` for colour.
fn texture(name: &str, w: u32, h: u32, srgb: bool, f: impl Fn(u32, u32) -> [u8; 4]) -> Texture {
    let mut rgba8 = Vec::new();
    for y in 0..h {
        for x in 0..w {
            rgba8.extend_from_slice(&f(x, y));
        }
    }
    Texture {
        name: name.into(),
        width: w,
        height: h,
        rgba8,
        source: TextureSource::Embedded,
        format: "test".into(),
        srgb,
        compressed: None,
    }
}

/// A 2 x 2 quad around `center` facing `normal`, with U along `right` and
/// V running down the image against `up` (the scene's UV convention), so
/// "up the image" is `up`. `tangents` stores (right, up) as the file's
/// tangent frame.
fn quad(center: Vec3, normal: Vec3, tangents: bool, material: usize) -> Mesh {
    let normal = normal.normalize();
    let helper = if normal.y.abs() > 0.9 {
        Vec3::Z
    } else {
        Vec3::Y
    };
    let right = helper.cross(normal).normalize();
    let up = normal.cross(right);
    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
    Mesh {
        name: "quad".into(),
        positions: corners
            .iter()
            .map(|&(x, y)| center + right * x + up * y)
            .collect(),
        normals: vec![normal; 4],
        uvs: corners
            .iter()
            .map(|&(x, y)| Vec2::new((x + 1.0) / 2.0, (1.0 - y) / 2.0))
            .collect(),
        indices: vec![0, 1, 2, 0, 2, 3],
        material: Some(material),
        visible: true,
        has_file_normals: true,
        has_file_uvs: true,
        tangents: tangents.then(|| vec![[right, up]; 4]),
        ..Mesh::default()
    }
}

fn material(texture: Option<usize>, maps: Maps) -> Material {
    Material {
        name: "m".into(),
        base_color: [1.0; 4],
        texture,
        maps,
        ..Material::default()
    }
}

struct Shot {
    gpu: facet::gpu::Gpu,
    renderer: Renderer,
}

impl Shot {
    fn new() -> Shot {
        let gpu = common::gpu();
        let format = capture::CAPTURE_FORMAT;
        let renderer = Renderer::new(&gpu, format, gpu.sample_count(format));
        Shot { gpu, renderer }
    }

    /// `scene` from `camera` with `view` (grid off, black background).
    fn take(&self, scene: &Scene, camera: &OrbitCamera, view: &ViewOptions) -> image::RgbaImage {
        let mut gs = GpuScene::new(&self.gpu, &self.renderer, scene);
        self.take_uploaded(&mut gs, camera, view)
    }

    /// As [`Shot::take`], of a scene already uploaded.
    fn take_uploaded(
        &self,
        gs: &mut GpuScene,
        camera: &OrbitCamera,
        view: &ViewOptions,
    ) -> image::RgbaImage {
        let mut view = view.clone();
        view.grid = false;
        view.background = [0.0, 0.0, 0.0, 1.0];
        let input = FrameInput::at_rest(camera, &view);
        frame::render_to_image(&self.gpu, &self.renderer, gs, &input, W, H).0
    }
}

impl Shot {
    /// Draws `gs` with its materials' own features, then with every feature
    /// on (the full stage interface): at least `min_drawn` pixels drawn, and
    /// not one differs.
    fn draws_as_the_full_shader(
        &self,
        gs: &mut GpuScene,
        camera: &OrbitCamera,
        view: &ViewOptions,
        min_drawn: usize,
        what: &str,
    ) {
        let own = self.take_uploaded(gs, camera, view);
        for m in &mut gs.materials {
            m.features = facet::gpu::materials::features::ALL;
        }
        let full = self.take_uploaded(gs, camera, view);
        let drawn = own.pixels().filter(|p| p.0 != [0, 0, 0, 255]).count();
        assert!(drawn > min_drawn, "{what}: only {drawn} pixels drawn");
        let differ = own
            .pixels()
            .zip(full.pixels())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(
            differ, 0,
            "{what}: {differ} pixels differ from the full shader's"
        );
    }
}

/// Looking at the origin from `yaw` degrees, 3 units away.
fn camera(yaw: f32) -> OrbitCamera {
    OrbitCamera {
        target: Vec3::ZERO,
        yaw: yaw.to_radians(),
        pitch: 15f32.to_radians(),
        distance: 4.0,
        scene_radius: 2.0,
        ..OrbitCamera::default()
    }
}

fn view(lighting: Lighting) -> ViewOptions {
    ViewOptions {
        lighting,
        ..ViewOptions::default()
    }
}

fn centre(img: &image::RgbaImage) -> [u8; 4] {
    img.get_pixel(W / 2, H / 2).0
}

fn close(a: [u8; 4], b: [u8; 4], tol: u8, what: &str) {
    assert!(
        (0..3).all(|c| a[c].abs_diff(b[c]) <= tol),
        "{what}: {a:?} vs {b:?} (tolerance {tol}/255)"
    );
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.0031308 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

fn byte(x: f32) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// One quad at the origin facing +Z with a 1x1 diffuse `d` (sRGB bytes)
/// and a 1x1 mask `mask`, drawn under flat lighting (light 1 everywhere:
/// the colour is the material's alone).
fn team_pixel(shot: &Shot, d: [u8; 4], mask: [u8; 4], team: TeamColors) -> [u8; 4] {
    let mut scene = Scene::default();
    scene.textures.push(texture("d", 1, 1, true, |_, _| d));
    scene
        .textures
        .push(texture("mask", 1, 1, false, |_, _| mask));
    scene.materials.push(material(
        Some(0),
        Maps {
            team_mask: Some(1),
            ..Maps::default()
        },
    ));
    scene.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 0));
    let mut v = view(Lighting::Flat);
    v.team_colors = team;
    centre(&shot.take(&scene, &camera(0.0), &v))
}

#[test]
fn team_colours_and_glow_follow_the_unit_shader_formulas() {
    let shot = Shot::new();
    let team = TeamColors {
        primary: [0.0, 0.486, 1.0],
        secondary: [1.0, 0.394, 0.0],
    };
    // The notes' overlay, per channel on sRGB values, and the glow.
    let overlay = |d: f32, tc: f32| {
        (2.0 * d).clamp(0.0, 1.0) * (1.0 - 2.0 * (1.0 - d.clamp(0.5, 1.0)) * (1.0 - tc))
    };
    let expect = |d: [u8; 4], mask: [u8; 4]| -> [u8; 4] {
        let m = mask.map(|x| x as f32 / 255.0);
        let mut out = [0u8; 4];
        for c in 0..3 {
            let tc = {
                let s = 0.5 + (team.secondary[c] - 0.5) * m[1];
                s + (team.primary[c] - s) * m[0]
            };
            let lin = srgb_to_linear(overlay(d[c] as f32 / 255.0, tc));
            out[c] = byte(linear_to_srgb(lin + 2.0 * m[2] * lin));
        }
        out[3] = 255;
        out
    };
    let grey = [128, 128, 128, 255];
    // Worked by hand for the grey: a diffuse of 128/255 under a full
    // primary weight is the primary colour itself (within the grey's 0.4%
    // off 0.5): (0, 124, 255).
    let got = team_pixel(&shot, grey, [255, 0, 0, 255], team);
    close(
        got,
        [0, 124, 255, 255],
        2,
        "mid-grey under R = 255 is the primary",
    );
    close(got, expect(grey, [255, 0, 0, 255]), 2, "primary");
    // G alone: the secondary; both: R wins (the primary is blended last).
    for mask in [[0, 255, 0, 255], [255, 255, 0, 255], [128, 64, 0, 255]] {
        close(
            team_pixel(&shot, grey, mask, team),
            expect(grey, mask),
            2,
            &format!("mask {mask:?}"),
        );
    }
    // No weight: the diffuse as it is, whatever the team.
    for d in [[30, 90, 200, 255], [230, 20, 128, 255]] {
        close(
            team_pixel(&shot, d, [0, 0, 0, 255], team),
            [d[0], d[1], d[2], 255],
            2,
            &format!("diffuse {d:?} without mask weight"),
        );
    }
    // Glow: B = 1 adds twice the diffuse, unlit. By hand for sRGB 64:
    // linear 0.0513, times 3 = 0.154, sRGB 0.431 = 110.
    let glow = team_pixel(&shot, [64, 64, 64, 255], [0, 0, 255, 255], team);
    close(glow, [110, 110, 110, 255], 2, "glow of a 64 grey");
    // Another team changes the masked colour.
    let legion = TeamColors::PRESETS[1].1;
    close(
        team_pixel(&shot, grey, [255, 0, 0, 255], legion),
        [255, 0, 0, 255],
        2,
        "Legion primary",
    );
}

#[test]
fn team_colours_change_only_masked_pixels_of_a_real_unit() {
    // bot_sun with its own diffuse and mask (PA's naming convention).
    let path = common::shared().join("fixtures/papa/bot_sun.papa");
    let scene = facet::load::load_file(&path).unwrap().scene;
    assert!(scene.materials.iter().any(|m| m.maps.team_mask.is_some()));
    let shot = Shot::new();
    let cam = OrbitCamera::framing(&scene.bounds(None), 1.0);
    let mut v = view(Lighting::Studio);
    v.team_colors = TeamColors::parse("#00FF00,#FF00FF").unwrap();
    let a = shot.take(&scene, &cam, &v);
    v.team_colors = TeamColors::parse("#FF0000,#0000FF").unwrap();
    let b = shot.take(&scene, &cam, &v);
    v.channel = Channel::Mask;
    let mask = shot.take(&scene, &cam, &v);
    // Where the mask (or a neighbour: filtering at edges) has team weight.
    let weighted = |x: u32, y: u32| {
        (x.saturating_sub(1)..=(x + 1).min(W - 1)).any(|x| {
            (y.saturating_sub(1)..=(y + 1).min(H - 1)).any(|y| {
                let p = mask.get_pixel(x, y).0;
                p[0] > 2 || p[1] > 2
            })
        })
    };
    let mut changed = 0;
    for (x, y, p) in a.enumerate_pixels() {
        let q = b.get_pixel(x, y).0;
        if (0..3).any(|c| p.0[c].abs_diff(q[c]) > 2) {
            changed += 1;
            assert!(
                weighted(x, y),
                "pixel ({x}, {y}) changed with the team colours ({:?} -> {q:?}) where the mask has no weight",
                p.0
            );
        }
    }
    assert!(changed > 200, "only {changed} pixels took the team colour");
}

/// The 45° tilt the tests encode in 8 bits: 218 is (0.7098 + 1) / 2 * 255.
const TILT: u8 = 218;

fn decoded(x: u8) -> f32 {
    x as f32 / 255.0 * 2.0 - 1.0
}

/// A quad with a 1x1 normal map `texel` of `kind`, and the normal the notes'
/// decode gives for it in the quad's frame (right = tangent, up = binormal,
/// +Z = normal).
fn normal_mapped(kind: NormalMap, texel: [u8; 4], tangents: bool) -> (Scene, Vec3) {
    let mut scene = Scene::default();
    scene.textures.push(texture("n", 1, 1, false, |_, _| texel));
    scene.materials.push(material(
        None,
        Maps {
            normal: Some((0, kind)),
            ..Maps::default()
        },
    ));
    scene.meshes.push(quad(Vec3::ZERO, Vec3::Z, tangents, 0));
    let n = match kind {
        // pa-shading.md: X from alpha, Y from green, Z = sqrt(1 - X² - Y²).
        NormalMap::TwoChannel => {
            let (x, y) = (decoded(texel[3]), decoded(texel[1]));
            Vec3::new(x, y, (1.0 - x * x - y * y).max(0.0).sqrt())
        }
        _ => Vec3::new(decoded(texel[0]), decoded(texel[1]), decoded(texel[2])),
    };
    (scene, n.normalize())
}

#[test]
fn normal_maps_light_a_quad_as_the_decoded_normal_does_under_a_moving_light() {
    let shot = Shot::new();
    let flat = |n: Vec3| {
        let mut scene = Scene::default();
        scene.materials.push(material(None, Maps::default()));
        scene.meshes.push(quad(Vec3::ZERO, n, false, 0));
        scene
    };
    let cases = [
        // PA, the file's tangent frame: tilted towards the tangent, then
        // towards the binormal.
        (NormalMap::TwoChannel, [0, 128, 0, TILT], true),
        (NormalMap::TwoChannel, [0, TILT, 0, 128], true),
        // PA without a stored frame (a skinned mesh): the frame from UVs.
        (NormalMap::TwoChannel, [0, 128, 0, TILT], false),
        (NormalMap::TwoChannel, [0, TILT, 0, 128], false),
        // M3D map_N: RGB, green up the image.
        (NormalMap::Rgb, [TILT, 128, TILT, 255], false),
        (NormalMap::Rgb, [128, TILT, TILT, 255], false),
    ];
    for (kind, texel, tangents) in cases {
        let (scene, n) = normal_mapped(kind, texel, tangents);
        // The light turns with the camera (studio lighting): two cameras
        // are two lights.
        for yaw in [25.0, -35.0] {
            let cam = camera(yaw);
            let mapped = centre(&shot.take(&scene, &cam, &view(Lighting::Studio)));
            let tilted = centre(&shot.take(&flat(n), &cam, &view(Lighting::Studio)));
            let what = format!("{kind:?} {texel:?} tangents {tangents}, camera yaw {yaw}");
            close(mapped, tilted, 4, &what);
            // And the map did something: the untilted quad differs.
            let untilted = centre(&shot.take(&flat(Vec3::Z), &cam, &view(Lighting::Studio)));
            assert!(
                (0..3).any(|c| mapped[c].abs_diff(untilted[c]) > 8),
                "{what}: the normal map changed nothing ({mapped:?})"
            );
        }
    }
    // A flat two-channel texel (0.5, 0.5) leaves the normal as it is.
    let (scene, _) = normal_mapped(NormalMap::TwoChannel, [0, 128, 0, 128], true);
    let cam = camera(25.0);
    close(
        centre(&shot.take(&scene, &cam, &view(Lighting::Studio))),
        centre(&shot.take(&flat(Vec3::Z), &cam, &view(Lighting::Studio))),
        2,
        "flat normal map",
    );
}

#[test]
fn a_bump_map_tilts_the_normal_by_the_height_slope() {
    let shot = Shot::new();
    // Height rising along U across the quad (2 units wide): with strength
    // s, the slope is s / 2 per unit, and the normal is (-s/2, 0, 1).
    let s = 1.0;
    let mut scene = Scene::default();
    scene
        .textures
        .push(texture("h", 256, 1, false, |x, _| [x as u8, 0, 0, 255]));
    scene.materials.push(material(
        None,
        Maps {
            normal: Some((0, NormalMap::Height { strength: s })),
            ..Maps::default()
        },
    ));
    scene.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 0));
    let mut tilted = Scene::default();
    tilted.materials.push(material(None, Maps::default()));
    tilted
        .meshes
        .push(quad(Vec3::ZERO, Vec3::new(-s / 2.0, 0.0, 1.0), false, 0));
    for yaw in [20.0, -30.0] {
        let cam = camera(yaw);
        close(
            centre(&shot.take(&scene, &cam, &view(Lighting::Studio))),
            centre(&shot.take(&tilted, &cam, &view(Lighting::Studio))),
            4,
            &format!("bump, camera yaw {yaw}"),
        );
    }
}

#[test]
fn a_transparent_material_shows_what_is_behind_it() {
    let shot = Shot::new();
    let mut scene = Scene::default();
    // Opaque meshes draw first, so the red is there to blend over.
    let mut blue = material(None, Maps::default());
    blue.base_color = [0.0, 0.0, 1.0, 0.5];
    blue.blend = BlendMode::Alpha;
    let mut red = material(None, Maps::default());
    red.base_color = [1.0, 0.0, 0.0, 1.0];
    scene.materials.extend([blue.clone(), red]);
    scene
        .meshes
        .push(quad(Vec3::new(0.0, 0.0, 0.5), Vec3::Z, false, 0));
    scene.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 1));
    let cam = camera(0.0);
    let got = centre(&shot.take(&scene, &cam, &view(Lighting::Flat)));
    // Half blue over red, blended in linear light and stored as sRGB:
    // 0.5 -> 188.
    close(got, [188, 0, 188, 255], 2, "half-transparent blue over red");
    // The same material opaque hides the red.
    scene.materials[0].blend = BlendMode::Opaque;
    let got = centre(&shot.take(&scene, &cam, &view(Lighting::Flat)));
    close(got, [0, 0, 255, 255], 2, "opaque blue");
    // And a transparent quad over nothing shows the background through.
    let mut alone = Scene::default();
    alone.materials.push(blue);
    alone.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 0));
    let got = centre(&shot.take(&alone, &cam, &view(Lighting::Flat)));
    close(got, [0, 0, 188, 255], 2, "half blue over black");
    // Two transparent quads, the nearer (green) first in the list: drawn
    // back to front, green lands on top of blue: linear (0, 0.5, 0.25) ->
    // (0, 188, 137). In list order it would be (0, 137, 188).
    let mut green = alone.materials[0].clone();
    green.base_color = [0.0, 1.0, 0.0, 0.5];
    let mut two = Scene::default();
    two.materials.extend([green, alone.materials[0].clone()]);
    two.meshes
        .push(quad(Vec3::new(0.0, 0.0, 0.5), Vec3::Z, false, 0));
    two.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 1));
    let got = centre(&shot.take(&two, &cam, &view(Lighting::Flat)));
    close(got, [0, 188, 137, 255], 2, "sorted back to front");
}

/// Shading 0 (glTF's KHR_materials_unlit, and P3M's evenly lit
/// materials): the colour is drawn as it is, under any light and from any
/// side, where shading 1 lights a tilted quad to another value.
#[test]
fn an_unlit_material_draws_its_colour_as_it_is() {
    let shot = Shot::new();
    let mut scene = Scene::default();
    let mut m = material(None, Maps::default());
    m.base_color = [0.5, 0.25, 0.75, 1.0];
    scene.materials.push(m);
    scene
        .meshes
        .push(quad(Vec3::ZERO, Vec3::new(0.6, 0.5, 1.0), false, 0));
    // sRGB 0.5, 0.25, 0.75 as bytes.
    let colour = [128, 64, 191, 255];
    let mut lit = Vec::new();
    for yaw in [0.0, 60.0, 120.0] {
        let cam = camera(yaw);
        scene.materials[0].shading = 0.0;
        let unlit = centre(&shot.take(&scene, &cam, &view(Lighting::Studio)));
        close(unlit, colour, 1, &format!("unlit from {yaw} degrees"));
        scene.materials[0].shading = 1.0;
        lit.push(centre(&shot.take(&scene, &cam, &view(Lighting::Studio))));
    }
    // The light turns with the camera: lit, the quad's value changes with
    // the view; unlit, it did not.
    assert!(
        lit.iter()
            .any(|l| (0..3).any(|c| l[c].abs_diff(colour[c]) > 8)),
        "lit: {lit:?}, every view near {colour:?}"
    );
}

/// glTF's MASK: a pixel whose alpha is below the cutoff is not drawn (the
/// red quad behind shows), the others are opaque blue whatever their
/// alpha. The front quad's texture is alpha 64/255 on its left half and
/// 200/255 on its right.
#[test]
fn an_alpha_tested_material_draws_only_where_alpha_reaches_its_cutoff() {
    use facet::gpu::materials::{features, shader_features};
    let shot = Shot::new();
    let cam = camera(0.0);
    let mut scene = Scene::default();
    scene.textures.push(texture("cut", 8, 1, true, |x, _| {
        [0, 0, 255, if x < 4 { 64 } else { 200 }]
    }));
    let mut red = material(None, Maps::default());
    red.base_color = [1.0, 0.0, 0.0, 1.0];
    scene
        .materials
        .extend([material(Some(0), Maps::default()), red]);
    scene
        .meshes
        .push(quad(Vec3::new(0.0, 0.0, 0.5), Vec3::Z, false, 0));
    scene.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 1));
    // Where a point of the front quad lands: U runs along +X, so x = -0.5
    // is the left half's texels and x = 0.5 the right half's.
    let vp = cam.view_proj(W as f32 / H as f32);
    let at = |x: f32| {
        let c = vp.project_point3(Vec3::new(x, 0.0, 0.5));
        (
            ((c.x * 0.5 + 0.5) * W as f32) as u32,
            ((0.5 - c.y * 0.5) * H as f32) as u32,
        )
    };
    let (left, right) = (at(-0.5), at(0.5));
    let (blue, red) = ([0, 0, 255, 255], [255, 0, 0, 255]);
    for (cutoff, want_left, want_right) in [
        (None, blue, blue),
        (Some(0.5), red, blue),
        (Some(0.1), blue, blue),
        (Some(0.9), red, red),
    ] {
        scene.materials[0].alpha_cutoff = cutoff;
        let has = shader_features(&scene.materials[0], 1) & features::ALPHA_CUTOFF != 0;
        assert_eq!(has, cutoff.is_some(), "only alpha-tested materials discard");
        // The thumbnailer's warm-up draws a stand-in material with each
        // feature set a scene uses (and checks it has those features).
        let variants = facet::cli::headless::shader_variants(&scene);
        facet::cli::headless::warm_up(&shot.gpu, &shot.renderer, 16, &variants);
        let img = shot.take(&scene, &cam, &view(Lighting::Flat));
        let what = format!("cutoff {cutoff:?}");
        close(
            img.get_pixel(left.0, left.1).0,
            want_left,
            2,
            &format!("{what}, left"),
        );
        close(
            img.get_pixel(right.0, right.1).0,
            want_right,
            2,
            &format!("{what}, right"),
        );
    }
}

#[test]
fn specular_from_material_maps_and_ks_only_brightens() {
    let shot = Shot::new();
    let cam = camera(10.0);
    let render = |maps: Maps, textures: Vec<Texture>| {
        let mut scene = Scene {
            textures,
            ..Scene::default()
        };
        let mut m = material(None, maps);
        m.base_color = [0.3, 0.3, 0.3, 1.0];
        scene.materials.push(m);
        scene.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 0));
        shot.take(&scene, &cam, &view(Lighting::Studio))
    };
    let plain = render(Maps::default(), vec![]);
    let mat = |r: u8, g: u8| {
        (
            Maps {
                material: Some((0, MaterialMap::Unit)),
                ..Maps::default()
            },
            vec![texture("mat", 1, 1, false, move |_, _| [r, g, 0, 255])],
        )
    };
    // No intensity: nothing changes.
    let (m, t) = mat(0, 200);
    let none = render(m, t);
    close(centre(&none), centre(&plain), 1, "material map R = 0");
    // Full intensity, low gloss (a broad highlight): brighter, never darker.
    let (m, t) = mat(255, 0);
    let shiny = render(m, t);
    let mut brighter = 0;
    for (p, q) in plain.pixels().zip(shiny.pixels()) {
        assert!(
            (0..3).all(|c| q.0[c] + 1 >= p.0[c]),
            "{:?} -> {:?}",
            p.0,
            q.0
        );
        brighter += (q.0[0] > p.0[0] + 8) as u32;
    }
    assert!(brighter > 500, "{brighter} pixels lit by the specular");
    // M3D Ks / Ns: black Ks is no highlight, white Ks with Ns 2 is one.
    let ks = |c: f32| Maps {
        specular: Some(([c; 3], 2.0)),
        ..Maps::default()
    };
    close(
        centre(&render(ks(0.0), vec![])),
        centre(&plain),
        1,
        "Ks black",
    );
    let lit = centre(&render(ks(1.0), vec![]));
    assert!(lit[0] > centre(&plain)[0] + 8, "Ks white: {lit:?}");
}

#[test]
fn emission_maps_channels_and_the_textures_toggle() {
    let shot = Shot::new();
    let cam = camera(0.0);
    let mut scene = Scene::default();
    scene
        .textures
        .push(texture("diffuse", 1, 1, true, |_, _| [60, 120, 180, 255]));
    scene
        .textures
        .push(texture("mask", 1, 1, false, |_, _| [10, 200, 30, 255]));
    scene
        .textures
        .push(texture("material", 1, 1, false, |_, _| [90, 40, 250, 255]));
    scene
        .textures
        .push(texture("emission", 1, 1, true, |_, _| [255, 0, 0, 255]));
    let mut m = material(
        Some(0),
        Maps {
            team_mask: Some(1),
            material: Some((2, MaterialMap::Unit)),
            ..Maps::default()
        },
    );
    m.base_color = [1.0, 1.0, 1.0, 1.0];
    scene.materials.push(m);
    scene.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 0));
    let shown = |channel: Channel, textures: bool, scene: &Scene| {
        let mut v = view(Lighting::Flat);
        v.channel = channel;
        v.textures = textures;
        centre(&shot.take(scene, &cam, &v))
    };
    // Data channels show the texel as stored.
    close(
        shown(Channel::Mask, true, &scene),
        [10, 200, 30, 255],
        1,
        "mask channel",
    );
    close(
        shown(Channel::Material, true, &scene),
        [90, 40, 250, 255],
        1,
        "material channel",
    );
    close(
        shown(Channel::Diffuse, true, &scene),
        [60, 120, 180, 255],
        1,
        "diffuse channel",
    );
    close(
        shown(Channel::Normal, true, &scene),
        [128, 128, 255, 255],
        1,
        "normal channel without a map: (0, 0, 1) shown as (0.5, 0.5, 1)",
    );
    // Textures off: the material colour alone (white, flat light).
    close(
        shown(Channel::Shaded, false, &scene),
        [255, 255, 255, 255],
        1,
        "textures off",
    );
    // An emission map (M3D map_Ke without Ke): red added to a dark grey.
    let mut em = Scene {
        textures: scene.textures.clone(),
        ..Scene::default()
    };
    let mut m = material(
        None,
        Maps {
            emission: Some(3),
            ..Maps::default()
        },
    );
    m.base_color = [0.2, 0.2, 0.2, 1.0];
    m.emission = [1.0; 3];
    em.materials.push(m);
    em.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 0));
    // 0.2 sRGB is 0.0331 linear; plus 1.0 red: red saturates, the rest stays.
    close(
        shown(Channel::Shaded, true, &em),
        [255, 51, 51, 255],
        2,
        "emission map",
    );
    close(
        shown(Channel::Shaded, false, &em),
        [255, 255, 255, 255],
        2,
        "emission without the map: Ke alone",
    );
}

#[test]
fn points_and_lines_draw_as_points_and_lines() {
    use facet::scene::Primitive;
    let shot = Shot::new();
    let cam = camera(0.0);
    let lit = |img: &image::RgbaImage| img.pixels().filter(|p| p.0[0] > 40).count();
    let draw = |primitive: Primitive, indices: Vec<u32>| {
        let mut scene = Scene::default();
        scene.materials.push(material(None, Maps::default()));
        let mut q = quad(Vec3::ZERO, Vec3::Z, false, 0);
        q.primitive = primitive;
        q.indices = indices;
        scene.meshes.push(q);
        shot.take(&scene, &cam, &view(Lighting::Flat))
    };
    let filled = draw(Primitive::Triangles, vec![0, 1, 2, 0, 2, 3]);
    let outline = draw(Primitive::Lines, vec![0, 1, 1, 2, 2, 3, 3, 0]);
    let corners = draw(Primitive::Points, vec![0, 1, 2, 3]);
    // The quad covers its square; its outline only the border (the centre
    // stays background); its corners a few pixels each.
    assert!(centre(&filled)[0] > 200);
    assert!(centre(&outline)[0] < 10, "lines filled the quad");
    let (f, o, c) = (lit(&filled), lit(&outline), lit(&corners));
    assert!(o > 4 * 20 && o < f / 4, "outline {o} pixels, filled {f}");
    assert!((4..=4 * 9).contains(&c), "{c} pixels for 4 points");
}

/// bot_sun with its diffuse and mask (copies of the shared fixtures in a
/// scratch folder under target/, never in the project) and, with `gloss`, a
/// `bot_sun_material.papa` made here: one 1x1 R8G8B8A8 texture, specular
/// 255, that gloss.
fn unit_folder(name: &str, gloss: Option<u8>) -> std::path::PathBuf {
    let dir = common::output_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["bot_sun.papa", "bot_sun_diffuse.papa", "bot_sun_mask.papa"] {
        std::fs::copy(common::shared().join("fixtures/papa").join(f), dir.join(f)).unwrap();
    }
    if let Some(g) = gloss {
        use facet::formats::papa::{self, TexFormat, TextureData};
        let p = papa::Papa {
            textures: vec![papa::Texture {
                name: "bot_sun_material".into(),
                format: Some(TexFormat::R8G8B8A8),
                mips: 1,
                srgb: false,
                width: 1,
                height: 1,
                data: TextureData::Embedded(vec![255, g, 0, 255]),
            }],
            ..Default::default()
        };
        let bytes = facet::formats::papa_write::encode(&p).unwrap();
        std::fs::write(dir.join("bot_sun_material.papa"), bytes).unwrap();
    }
    dir
}

#[test]
fn a_unit_with_its_three_companions_renders_with_team_colours_and_gloss() {
    // The scene: all three companions bound, no note left.
    let dir = unit_folder("unit-glossy", Some(30));
    let model = dir.join("bot_sun.papa");
    let scene = facet::load::load_file(&model).unwrap().scene;
    let solid = &scene.materials[0];
    assert!(solid.texture.is_some() && solid.maps.team_mask.is_some());
    assert!(matches!(solid.maps.material, Some((_, MaterialMap::Unit))));
    assert!(solid.maps.notes.is_empty(), "{:?}", solid.maps.notes);

    // `render` and `thumbnail` as processes: the material map brightens
    // (specular), the team colours change the picture.
    let run = |args: &[&str], out: &std::path::Path| -> image::RgbaImage {
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_facet"))
            .args(args)
            .env("FACET_ADAPTER", common::SOFTWARE_ADAPTER)
            .status()
            .unwrap();
        assert!(status.success(), "facet {args:?}");
        image::open(out).unwrap().to_rgba8()
    };
    let m = model.to_str().unwrap();
    let out = dir.join("out.png");
    let o = out.to_str().unwrap();
    let glossy = run(&["render", m, "-o", o, "--size", "160x120"], &out);
    let blue = run(&["thumbnail", m, o, "--size", "64"], &out);
    let red = run(
        &[
            "thumbnail",
            m,
            o,
            "--size",
            "64",
            "--team-colors",
            "#FF0000,#00FF00",
        ],
        &out,
    );
    let pm = unit_folder("unit-matte", None).join("bot_sun.papa");
    let matte = run(
        &["render", pm.to_str().unwrap(), "-o", o, "--size", "160x120"],
        &out,
    );
    let sum = |img: &image::RgbaImage| {
        img.pixels()
            .map(|p| p.0[..3].iter().map(|&c| c as u64).sum::<u64>())
            .sum::<u64>()
    };
    assert!(
        sum(&glossy) > sum(&matte) + 160 * 120,
        "the material map's specular brightens the unit"
    );
    let reds = |img: &image::RgbaImage| {
        img.pixels()
            .filter(|p| p.0[0] > 150 && p.0[2] < 80 && p.0[3] > 0)
            .count()
    };
    assert!(
        reds(&red) > 50 && reds(&blue) < reds(&red) / 4,
        "thumbnail team colours: {} vs {}",
        reds(&red),
        reds(&blue)
    );
}

#[test]
fn a_csg_model_shows_a_real_normal_map() {
    use facet::formats::papa;
    // basic_cube (format 10: the file's tangents and binormals) as a
    // `textured_normal` material whose NormalTexture is the real
    // flower_04_normal.papa (DXT5, X in alpha, Y in green).
    let bytes = std::fs::read(common::shared().join("fixtures/papa/basic_cube.papa")).unwrap();
    let mut p = papa::decode(&bytes).unwrap();
    let normal_path = "/pa/terrain/plants_csg/textures/flower_04_normal.papa";
    p.textures.push(common::linked_papa_texture(normal_path));
    let n = (p.textures.len() - 1) as u16;
    let m = &mut p.materials[0];
    m.shader = "textured_normal".into();
    m.textures.push(("NormalTexture".into(), n));
    // The resolver answers that one media path with the shared fixture.
    let companions = common::Answers {
        stem: None,
        answer: |lookup: facet::scene::companions::Lookup<'_>| match lookup {
            facet::scene::companions::Lookup::PaMedia(p) if p == normal_path => {
                let file = common::shared().join("fixtures/papa/flower_04_normal.papa");
                Some((file.clone(), std::fs::read(&file).unwrap()))
            }
            _ => None,
        },
    };
    let with = facet::scene::from_papa::convert(&p, Default::default(), &companions);
    let (t, kind) = with.materials[0]
        .maps
        .normal
        .expect("the normal map is bound");
    assert_eq!(kind, NormalMap::TwoChannel);
    assert!(!with.textures[t].srgb);
    let mut without = with.clone();
    without.materials[0].maps.normal = None;

    let shot = Shot::new();
    let cam = OrbitCamera::framing(&with.bounds(None), 1.0);
    let v = view(Lighting::Studio);
    let (a, b) = (shot.take(&with, &cam, &v), shot.take(&without, &cam, &v));
    let changed = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| (0..3).any(|c| p.0[c].abs_diff(q.0[c]) > 8))
        .count();
    let covered = b.pixels().filter(|p| p.0[..3] != [0, 0, 0]).count();
    assert!(
        changed * 10 > covered,
        "the normal map changed {changed} of the cube's {covered} pixels"
    );
}

/// Each material draws with a pipeline that has only the mesh shader
/// features it uses on (override constants: a software rasteriser runs
/// both sides of a uniform branch, so the full shader sampled every unused
/// texture a pixel), passing only the varyings those read (its
/// `Interface`). Such a pipeline must give the full shader's pixels: real
/// files drawn with their own features, then with every feature on (the
/// full interface), match to the byte, textured (viper's PNG) and not,
/// with Ks and without, vertex-coloured, plain, and a PA unit with its
/// diffuse and team mask (bot_sun); and a material's features are the
/// textures it binds, its specular, its matcap or animation.
#[test]
fn a_material_draws_the_same_pixels_with_only_its_shader_features() {
    use facet::gpu::materials::{Interface, features, shader_features};
    let shot = Shot::new();
    let base = features::BASE_TEXTURE;
    let ks = features::SPECULAR;
    let mut interfaces = Vec::new();
    for (file, expected) in [
        // Its first material has the PNG and Ks, the second Ks, the third
        // a colour only.
        ("fixtures/m3d/viper.m3d", vec![base | ks, ks, 0]),
        ("fixtures/m3d/cube_with_vertexcolors.m3d", vec![0]),
        ("fixtures/m3d/suzanne.m3d", vec![0]),
        // The missing texture's checkerboard.
        ("fixtures/papa/basic_cube.papa", vec![base]),
        (
            "fixtures/papa/bot_sun.papa",
            vec![base | features::TEAM_MAP; 2],
        ),
    ] {
        let scene = facet::load::load_file(&common::shared().join(file))
            .unwrap()
            .scene;
        let used: Vec<u32> = scene
            .materials
            .iter()
            .map(|m| shader_features(m, scene.textures.len()))
            .collect();
        assert_eq!(used, expected, "{file}");
        interfaces.extend(used.iter().map(|&f| Interface::of(f)));
        let mut gs = GpuScene::new(&shot.gpu, &shot.renderer, &scene);
        let camera = OrbitCamera::framing(&scene.bounds(None), 1.0);
        let view = ViewOptions::for_scene(&scene);
        shot.draws_as_the_full_shader(&mut gs, &camera, &view, 500, file);
    }
    for i in [Interface::Plain, Interface::Surface] {
        assert!(interfaces.contains(&i), "no file drew with {i:?}");
    }
    // A material's features.
    assert_eq!(shader_features(&material(None, Maps::default()), 1), 0);
    assert_eq!(
        shader_features(&material(Some(0), Maps::default()), 1),
        base
    );
    for (maps, feature) in [
        (
            Maps {
                team_mask: Some(0),
                ..Maps::default()
            },
            features::TEAM_MAP,
        ),
        (
            Maps {
                normal: Some((0, NormalMap::TwoChannel)),
                ..Maps::default()
            },
            features::NORMAL_MAP,
        ),
        (
            Maps {
                normal: Some((0, NormalMap::Height { strength: 2.0 })),
                ..Maps::default()
            },
            features::HEIGHT_MAP,
        ),
        (
            Maps {
                material: Some((0, MaterialMap::Csg)),
                ..Maps::default()
            },
            features::MATERIAL_MAP,
        ),
        (
            Maps {
                emission: Some(0),
                ..Maps::default()
            },
            features::EMISSION_MAP,
        ),
    ] {
        assert_eq!(
            shader_features(&material(Some(0), maps.clone()), 1),
            feature | base,
            "{maps:?}"
        );
        // A texture or map that is not in the scene is not bound.
        assert_eq!(shader_features(&material(Some(0), maps), 0), 0);
    }
    let matcap = Material {
        matcap: Some(0),
        ..material(None, Maps::default())
    };
    assert_eq!(shader_features(&matcap, 1), features::MATCAP);
    // Ks is a colour, not a map: on with or without textures.
    let shiny = material(
        None,
        Maps {
            specular: Some(([0.5; 3], 16.0)),
            ..Maps::default()
        },
    );
    assert_eq!(shader_features(&shiny, 0), features::SPECULAR);
}

/// Each feature alone, on a tilted quad with vertex colours and textures
/// whose every texel differs (so a wrong or missing UV, position or
/// tangent frame shows), draws through its own interface the pixels the
/// full shader draws with every feature on. What each feature reads, as
/// mesh.wgsl's shading code reads it: textures and maps the UVs, specular
/// and bump maps the position (the view direction; its derivatives),
/// normal maps the file's tangent frame (or the derivatives of both).
#[test]
fn each_feature_draws_the_full_shaders_pixels_through_its_own_interface() {
    use facet::gpu::materials::{Interface, shader_features};
    let shot = Shot::new();
    let ramp = |x: u32, y: u32| {
        [
            (x * 37 % 256) as u8,
            (y * 53 % 256) as u8,
            ((x + y) * 29 % 256) as u8,
            255,
        ]
    };
    let maps = |f: fn(&mut Maps)| {
        let mut maps = Maps::default();
        f(&mut maps);
        maps
    };
    let plain = |maps| material(None, maps);
    let cases = [
        ("colour", plain(Maps::default()), false, Interface::Plain),
        (
            "matcap",
            Material {
                matcap: Some(0),
                ..plain(Maps::default())
            },
            false,
            Interface::Plain,
        ),
        (
            "Ks",
            plain(maps(|m| m.specular = Some(([0.6, 0.5, 0.4], 12.0)))),
            false,
            Interface::Surface,
        ),
        (
            "texture",
            material(Some(0), Maps::default()),
            false,
            Interface::Surface,
        ),
        (
            "team mask",
            plain(maps(|m| m.team_mask = Some(1))),
            false,
            Interface::Surface,
        ),
        (
            "material map",
            plain(maps(|m| m.material = Some((1, MaterialMap::Csg)))),
            false,
            Interface::Surface,
        ),
        (
            "bump map",
            plain(maps(|m| {
                m.normal = Some((1, NormalMap::Height { strength: 3.0 }))
            })),
            false,
            Interface::Surface,
        ),
        (
            "emission map",
            plain(maps(|m| m.emission = Some(1))),
            false,
            Interface::Surface,
        ),
        (
            "alpha test",
            Material {
                alpha_cutoff: Some(0.5),
                ..material(Some(0), Maps::default())
            },
            false,
            Interface::Surface,
        ),
        (
            "normal map, the file's frame",
            plain(maps(|m| m.normal = Some((1, NormalMap::Rgb)))),
            true,
            Interface::Full,
        ),
        (
            "normal map, a frame from derivatives",
            plain(maps(|m| m.normal = Some((1, NormalMap::TwoChannel)))),
            false,
            Interface::Full,
        ),
    ];
    for (what, m, tangents, interface) in cases {
        let mut scene = Scene::default();
        scene.textures.push(texture("colour", 16, 16, true, ramp));
        scene
            .textures
            .push(texture("map", 16, 16, false, |x, y| ramp(y + 3, x * 5 + 1)));
        scene.materials.push(m);
        let mut quad = quad(Vec3::ZERO, Vec3::new(0.4, 0.3, 1.0), tangents, 0);
        // A stored frame mirrored from the one UV derivatives give, so
        // that using one for the other shows.
        if let Some(frames) = &mut quad.tangents {
            frames.iter_mut().for_each(|f| f.swap(0, 1));
        }
        quad.colors = Some(vec![
            [255, 200, 120, 255],
            [120, 255, 200, 255],
            [200, 120, 255, 255],
            [255, 255, 255, 255],
        ]);
        scene.meshes.push(quad);
        let own = shader_features(&scene.materials[0], scene.textures.len());
        assert_eq!(Interface::of(own), interface, "{what}: features {own:#b}");
        let mut gs = GpuScene::new(&shot.gpu, &shot.renderer, &scene);
        let camera = camera(20.0);
        let view = view(Lighting::Studio);
        shot.draws_as_the_full_shader(&mut gs, &camera, &view, 1000, what);
    }
}

/// Faceted meshes (`Mesh::faceted`: M3D voxels) whose material reads
/// nothing per pixel are shaded once a vertex, through their own stage
/// interface, and draw the pixels the full shader draws. lantea.m3d and
/// voxel.m3d as loaded, from two sides (culled: closed voxel surfaces);
/// then a hand-built faceted quad, one vertex colour, drawn both sides
/// (two-sided lighting: its back face from behind) for each way the
/// vertex stage's colour can come out: opaque, alpha-blended, additive,
/// unlit, emissive, and alpha-tested with the alpha above its cutoff and
/// below it (where the quad draws nothing at all). A faceted mesh with a
/// texture, whose pixels vary, keeps the per-pixel interface.
#[test]
fn faceted_meshes_shade_once_a_vertex_and_draw_the_full_shaders_pixels() {
    use facet::gpu::materials::{Interface, mesh_features, shader_features};
    let shot = Shot::new();
    let interface = |scene: &Scene, i: usize| {
        let m = &scene.meshes[i];
        let f = m.material.map_or(0, |k| {
            shader_features(&scene.materials[k], scene.textures.len())
        });
        Interface::of(mesh_features(f, m.faceted))
    };
    for (file, min_drawn) in [
        ("fixtures/m3d/lantea.m3d", 1000),
        ("fixtures/m3d/voxel.m3d", 300),
    ] {
        let scene = facet::load::load_file(&common::shared().join(file))
            .unwrap()
            .scene;
        assert!(scene.meshes.iter().all(|m| m.faceted), "{file}");
        let faceted = (0..scene.meshes.len())
            .filter(|&i| interface(&scene, i) == Interface::Faceted)
            .count();
        assert_eq!(faceted, scene.meshes.len(), "{file}: meshes drawn faceted");
        let mut gs = GpuScene::new(&shot.gpu, &shot.renderer, &scene);
        let view = ViewOptions::for_scene(&scene);
        for yaw in [30.0f32, 210.0] {
            let mut camera = OrbitCamera::framing(&scene.bounds(None), 1.0);
            camera.yaw = yaw.to_radians();
            shot.draws_as_the_full_shader(
                &mut gs,
                &camera,
                &view,
                min_drawn,
                &format!("{file} at {yaw}"),
            );
            gs = GpuScene::new(&shot.gpu, &shot.renderer, &scene);
        }
    }
    let tinted = |f: fn(&mut Material)| {
        let mut m = material(None, Maps::default());
        m.base_color = [0.9, 0.6, 0.3, 0.6];
        f(&mut m);
        m
    };
    let cases = [
        ("opaque", tinted(|_| {})),
        ("alpha-blended", tinted(|m| m.blend = BlendMode::Alpha)),
        ("additive", tinted(|m| m.blend = BlendMode::Additive)),
        ("unlit", tinted(|m| m.shading = 0.0)),
        ("emissive", tinted(|m| m.emission = [0.1, 0.2, 0.05])),
        ("above its cutoff", tinted(|m| m.alpha_cutoff = Some(0.5))),
        ("below its cutoff", tinted(|m| m.alpha_cutoff = Some(0.7))),
    ];
    for (what, m) in cases {
        let mut scene = Scene::default();
        scene.materials.push(m);
        let mut quad = quad(Vec3::ZERO, Vec3::new(0.4, 0.3, 1.0), false, 0);
        quad.colors = Some(vec![[200, 230, 160, 255]; 4]);
        quad.faceted = true;
        scene.meshes.push(quad);
        assert_eq!(interface(&scene, 0), Interface::Faceted, "{what}");
        for yaw in [20.0, 200.0] {
            let what = format!("{what}, from {yaw}");
            let mut gs = GpuScene::new(&shot.gpu, &shot.renderer, &scene);
            if what.starts_with("below") {
                let img = shot.take_uploaded(&mut gs, &camera(yaw), &view(Lighting::Studio));
                let drawn = img.pixels().filter(|p| p.0 != [0, 0, 0, 255]).count();
                assert_eq!(drawn, 0, "{what}: {drawn} pixels drawn");
            } else {
                shot.draws_as_the_full_shader(
                    &mut gs,
                    &camera(yaw),
                    &view(Lighting::Studio),
                    1000,
                    &what,
                );
            }
        }
    }
    // A texture varies the pixels: the per-pixel stages draw it.
    let mut scene = Scene::default();
    scene.textures.push(texture("colour", 4, 4, true, |x, y| {
        [(x * 60) as u8, (y * 60) as u8, 90, 255]
    }));
    scene.materials.push(material(Some(0), Maps::default()));
    let mut quad = quad(Vec3::ZERO, Vec3::Z, false, 0);
    quad.faceted = true;
    scene.meshes.push(quad);
    assert_eq!(interface(&scene, 0), Interface::Surface);
}

/// A material's sampling (glTF's samplers). A 2 x 1 texture, red | blue,
/// on an unlit quad: filtered linearly, the row across it blends the two;
/// with NEAREST, every pixel is one texel or the other. Then U running
/// from -1 to 2 across the quad, NEAREST, at four points worked by hand
/// (u = -0.75, -0.25, 1.25, 1.75): REPEAT reads texels at 0.25, 0.75,
/// 0.25, 0.75 (red, blue, red, blue); CLAMP_TO_EDGE the edge texels (red,
/// red, blue, blue); MIRRORED_REPEAT 0.75, 0.25, 0.75, 0.25 (blue, red,
/// blue, red).
#[test]
fn a_materials_sampling_picks_texels_and_wraps_as_it_says() {
    use facet::scene::{Sampling, Wrap};
    let shot = Shot::new();
    let cam = camera(0.0);
    let mut scene = Scene::default();
    scene
        .textures
        .push(texture("red | blue", 2, 1, true, |x, _| {
            if x == 0 {
                [255, 0, 0, 255]
            } else {
                [0, 0, 255, 255]
            }
        }));
    let mut m = material(Some(0), Maps::default());
    m.shading = 0.0;
    scene.materials.push(m);
    scene.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 0));
    let vp = cam.view_proj(W as f32 / H as f32);
    let at = |x: f32| {
        let c = vp.project_point3(Vec3::new(x, 0.0, 0.0));
        (
            ((c.x * 0.5 + 0.5) * W as f32) as u32,
            ((0.5 - c.y * 0.5) * H as f32) as u32,
        )
    };
    let (left, right) = (at(-0.9).0, at(0.9).0);
    let row_y = at(0.0).1;
    let mixed = |img: &image::RgbaImage| {
        (left..=right)
            .filter(|&x| {
                let p = img.get_pixel(x, row_y).0;
                p[0] > 40 && p[2] > 40
            })
            .count()
    };
    let linear = shot.take(&scene, &cam, &view(Lighting::Studio));
    assert!(
        mixed(&linear) > 4,
        "linear: {} blended pixels",
        mixed(&linear)
    );
    scene.materials[0].sampling = Sampling {
        nearest_mag: true,
        nearest_min: true,
        ..Sampling::default()
    };
    let nearest = shot.take(&scene, &cam, &view(Lighting::Studio));
    assert_eq!(mixed(&nearest), 0, "nearest: blended pixels");

    for uv in &mut scene.meshes[0].uvs {
        uv.x = uv.x * 3.0 - 1.0;
    }
    let (red, blue) = ([255, 0, 0, 255], [0, 0, 255, 255]);
    // x on the quad where u = -0.75, -0.25, 1.25, 1.75 (u = 3 (x + 1) / 2 - 1).
    let points = [-0.75f32, -0.25, 1.25, 1.75].map(|u| (u + 1.0) / 1.5 - 1.0);
    for (wrap, want) in [
        (Wrap::Repeat, [red, blue, red, blue]),
        (Wrap::Clamp, [red, red, blue, blue]),
        (Wrap::Mirror, [blue, red, blue, red]),
    ] {
        scene.materials[0].sampling.wrap = [wrap, Wrap::Repeat];
        let img = shot.take(&scene, &cam, &view(Lighting::Studio));
        for (x, want) in points.iter().zip(want) {
            let (px, py) = at(*x);
            close(
                img.get_pixel(px, py).0,
                want,
                2,
                &format!("{wrap:?} at x = {x}"),
            );
        }
    }
}

/// glTF's specular-glossiness map (KHR_materials_pbrSpecularGlossiness):
/// RGB times the specular factor is the highlight's colour, A times the
/// glossiness factor its glossiness. On a grey quad under the studio key
/// light: a black map is no highlight whatever the factors; a white one
/// with A = 0 (rough: exponent 2 / 1 - 2, held at 1) a broad one, brighter
/// everywhere it falls; A = 255 with factor 0.9 (alpha 0.01, exponent
/// 2 / 0.0001 - 2 = 19,998, held at 2,048) a pinpoint, lighting far fewer
/// pixels; a red map a red highlight; and the texture toggle off leaves
/// the factors alone, as for every material map.
#[test]
fn a_specular_glossiness_map_gives_the_highlights_colour_and_size() {
    let shot = Shot::new();
    let cam = camera(10.0);
    let view_with = |textures: bool| {
        let mut v = view(Lighting::Studio);
        v.textures = textures;
        v
    };
    let render = |map: Option<[u8; 4]>, glossiness: f32, textures: bool| {
        let mut scene = Scene::default();
        let mut maps = Maps {
            specular: Some(([1.0; 3], 2.0)),
            glossiness: Some(glossiness),
            ..Maps::default()
        };
        if let Some(texel) = map {
            scene
                .textures
                .push(texture("spec-gloss", 1, 1, true, move |_, _| texel));
            maps.material = Some((0, MaterialMap::SpecularGlossiness));
        }
        let mut m = material(None, maps);
        m.base_color = [0.3, 0.3, 0.3, 1.0];
        scene.materials.push(m);
        scene.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 0));
        shot.take(&scene, &cam, &view_with(textures))
    };
    let plain = {
        let mut scene = Scene::default();
        let mut m = material(None, Maps::default());
        m.base_color = [0.3, 0.3, 0.3, 1.0];
        scene.materials.push(m);
        scene.meshes.push(quad(Vec3::ZERO, Vec3::Z, false, 0));
        shot.take(&scene, &cam, &view(Lighting::Studio))
    };
    let lit_pixels = |img: &image::RgbaImage| {
        plain
            .pixels()
            .zip(img.pixels())
            .filter(|(p, q)| q.0[0] > p.0[0] + 8)
            .count()
    };
    // Black RGB: no highlight.
    let black = render(Some([0, 0, 0, 0]), 1.0, true);
    close(centre(&black), centre(&plain), 1, "a black specular map");
    // White, A = 0: broad, and never darker than without.
    let broad = render(Some([255, 255, 255, 0]), 0.9, true);
    for (p, q) in plain.pixels().zip(broad.pixels()) {
        assert!(
            (0..3).all(|c| q.0[c] + 1 >= p.0[c]),
            "{:?} -> {:?}",
            p.0,
            q.0
        );
    }
    let broad_lit = lit_pixels(&broad);
    assert!(
        broad_lit > 500,
        "{broad_lit} pixels lit by a rough highlight"
    );
    // White, A = 255 x 0.9: a pinpoint.
    let sharp_lit = lit_pixels(&render(Some([255, 255, 255, 255]), 0.9, true));
    assert!(
        sharp_lit * 4 < broad_lit,
        "glossy {sharp_lit} pixels against rough {broad_lit}"
    );
    // Red RGB: only red rises.
    let red = render(Some([255, 0, 0, 0]), 0.9, true);
    let (r, p) = (centre(&red), centre(&plain));
    assert!(r[0] > p[0] + 8, "red map: {r:?} against {p:?}");
    close(
        [r[1], r[2], 0, 0],
        [p[1], p[2], 0, 0],
        1,
        "red map's G and B",
    );
    // Textures off: the factors alone (white, exponent 2), which the black
    // map had hidden.
    let factors = render(Some([0, 0, 0, 0]), 1.0, false);
    let alone = render(None, 1.0, true);
    close(centre(&factors), centre(&alone), 1, "textures off");
    assert!(
        centre(&alone)[0] > centre(&plain)[0] + 8,
        "the factors' highlight"
    );
}

/// The weights view (`Channel::Weights`): each pixel coloured by the
/// selected bone's weight on the weight-paint scale the README and
/// `mesh.wgsl` give (blue 0, cyan 1/4, green 1/2, yellow 3/4, red 1),
/// interpolated as a weight, not as a colour; a mesh that is not skinned
/// grey (90, 90, 90). Flat lighting, so the colours are exact; the
/// expected bytes are the scale's, written here by hand.
#[test]
fn the_weights_view_colours_each_pixel_by_the_selected_bone_s_weight() {
    use facet::gpu::upload::VertexColors;
    use facet::scene::{Bone, Skin};
    let shot = Shot::new();
    let bone = |name: &str| Bone {
        name: name.into(),
        parent: None,
        head: Vec3::ZERO,
        tail: Vec3::Y,
        rest: glam::Mat4::IDENTITY,
    };
    // A quad facing the camera with each corner's (joints, weights).
    let skinned = |corners: [([u16; 4], [u16; 4]); 4]| {
        let mut q = quad(Vec3::ZERO, Vec3::Z, false, 0);
        q.skin = Some(Skin {
            joints: corners.iter().map(|c| c.0).collect(),
            weights: corners.iter().map(|c| c.1).collect(),
        });
        q
    };
    let all = |j: [u16; 4], w: [u16; 4]| skinned([(j, w); 4]);
    let cases: [(&str, Option<Mesh>, [u8; 4]); 6] = [
        (
            "wholly on bone 0",
            Some(all([0; 4], [65535, 0, 0, 0])),
            [255, 0, 0, 255],
        ),
        (
            "3/4 on bone 0",
            Some(all([0, 1, 0, 0], [49151, 16384, 0, 0])),
            [255, 255, 0, 255],
        ),
        (
            "half on bone 0",
            Some(all([1, 0, 0, 0], [32767, 32768, 0, 0])),
            [0, 255, 0, 255],
        ),
        (
            "1/4 on bone 0",
            Some(all([1, 0, 0, 0], [49151, 16384, 0, 0])),
            [0, 255, 255, 255],
        ),
        (
            "wholly on bone 1",
            Some(all([1; 4], [65535, 0, 0, 0])),
            [0, 0, 255, 255],
        ),
        ("not skinned", None, [90, 90, 90, 255]),
    ];
    let view = ViewOptions {
        channel: Channel::Weights,
        ..view(Lighting::Flat)
    };
    let scene_of = |mesh: Mesh| Scene {
        meshes: vec![mesh],
        materials: vec![material(None, Maps::default())],
        skeleton: facet::scene::Skeleton {
            bones: vec![bone("a"), bone("b")],
            ..Default::default()
        },
        ..Scene::default()
    };
    for (what, mesh, want) in cases {
        let scene = scene_of(mesh.unwrap_or_else(|| quad(Vec3::ZERO, Vec3::Z, false, 0)));
        let mut gs = GpuScene::new(&shot.gpu, &shot.renderer, &scene);
        gs.show_vertex_colors(&shot.gpu.queue, &scene, VertexColors::Weights(Some(0)));
        let img = shot.take_uploaded(&mut gs, &camera(0.0), &view);
        close(centre(&img), want, 2, what);
    }
    // Weight 1 on the left corners, 0 on the right: half-way, the pixel is
    // the scale's green, where blending the corners' red and blue would
    // give purple.
    let (one, none) = (([0; 4], [65535, 0, 0, 0]), ([1; 4], [65535, 0, 0, 0]));
    let scene = scene_of(skinned([one, none, none, one]));
    let mut gs = GpuScene::new(&shot.gpu, &shot.renderer, &scene);
    gs.show_vertex_colors(&shot.gpu.queue, &scene, VertexColors::Weights(Some(0)));
    let [r, g, b, _] = centre(&shot.take_uploaded(&mut gs, &camera(0.0), &view));
    assert!(g > 230 && r < 50 && b < 50, "half-way: {:?}", [r, g, b]);
    // Back to the file's colours: the material's white, unlit.
    gs.show_vertex_colors(&shot.gpu.queue, &scene, VertexColors::File);
    let plain = ViewOptions {
        channel: Channel::Diffuse,
        ..view.clone()
    };
    let img = shot.take_uploaded(&mut gs, &camera(0.0), &plain);
    close(
        centre(&img),
        [255, 255, 255, 255],
        2,
        "the file's colours again",
    );
}

/// The UV checker (`Channel::Uvs`): each pixel coloured by its UV as
/// docs/formats.md gives it: the unit tile sRGB (0.25 + 0.75 u',
/// 0.25 + 0.75 v', 0.6) at (u', v') within it, eight squares a unit with
/// the odd ones at half brightness, 64 with the odd ones at 0.8 where a
/// square has four pixels or more. Each quad holds one UV at all four
/// corners, so the whole quad is that UV's colour (and its fine squares,
/// infinitely large on screen, are shown); flat lighting, so the bytes
/// are exact, worked out here by hand. An untextured material (whose own
/// pipeline passes no UVs) and a textured one show the same checker.
#[test]
fn the_uv_checker_colours_each_pixel_by_its_uv() {
    let shot = Shot::new();
    let cases: [(&str, [f32; 2], [u8; 4]); 6] = [
        // Cell (0, 0), even: 0.25 + 0.75/16 = 0.296875 -> 76; 0.6 -> 153.
        ("cell (0, 0)", [1.0 / 16.0, 1.0 / 16.0], [76, 76, 153, 255]),
        // Cell (1, 0), odd: (0.25 + 0.75 * 3/16) / 2 = 0.1953 -> 50;
        // 0.296875 / 2 -> 38; 0.3 -> 77.
        ("cell (1, 0)", [3.0 / 16.0, 1.0 / 16.0], [50, 38, 77, 255]),
        // Cell (8, 0), even, the next tile: as cell (0, 0).
        (
            "the next tile",
            [17.0 / 16.0, 1.0 / 16.0],
            [76, 76, 153, 255],
        ),
        // Cell (-1, 0), odd, u' = 15/16: (0.25 + 0.703125) / 2 -> 122.
        ("left of 0", [-1.0 / 16.0, 1.0 / 16.0], [122, 38, 77, 255]),
        // Cell (4, 6), even: 0.25 + 0.75 * 0.5625 -> 171,
        // 0.25 + 0.75 * 0.8125 -> 219.
        ("cell (4, 6)", [0.5625, 0.8125], [171, 219, 153, 255]),
        // Cell (0, 0), fine square (5, 4), odd: 0.8 (0.25 + 0.75 * 5/64)
        // = 0.2469 -> 63; 0.8 * 0.296875 -> 61; 0.48 -> 122. (The fine
        // squares of the cases above are even: 4, 12, 68, -4, 36 across.)
        (
            "a fine odd square",
            [5.0 / 64.0, 1.0 / 16.0],
            [63, 61, 122, 255],
        ),
    ];
    let view = ViewOptions {
        channel: Channel::Uvs,
        ..view(Lighting::Flat)
    };
    let red = texture("red", 1, 1, true, |_, _| [255, 0, 0, 255]);
    for textured in [false, true] {
        for (what, [u, v], want) in cases {
            let mut q = quad(Vec3::ZERO, Vec3::Z, false, 0);
            q.uvs = vec![Vec2::new(u, v); 4];
            let scene = Scene {
                meshes: vec![q],
                materials: vec![material(textured.then_some(0), Maps::default())],
                textures: vec![red.clone()],
                ..Scene::default()
            };
            let img = shot.take(&scene, &camera(0.0), &view);
            close(
                centre(&img),
                want,
                2,
                &format!("{what}, textured {textured}"),
            );
        }
    }
    // The quad's own UVs, 0..1 across it, about 60 pixels: the checker's
    // eight squares a row, light and dark in turn, a light one at the
    // (0, 0) corner; the fine squares, a pixel each, faded out (a light
    // square's blue would be 122 on their odd ones, 153 elsewhere).
    let scene = Scene {
        meshes: vec![quad(Vec3::ZERO, Vec3::Z, false, 0)],
        materials: vec![material(None, Maps::default())],
        ..Scene::default()
    };
    let top = OrbitCamera {
        pitch: 0.0,
        ..camera(0.0)
    };
    let img = shot.take(&scene, &top, &view);
    let row: Vec<u8> = (0..W).map(|x| img.get_pixel(x, H / 2).0[2]).collect();
    // Along the middle row, blue alternates 153 and 77 by square.
    assert!(
        row.iter()
            .all(|&b| b == 0 || b.abs_diff(77) <= 2 || b.abs_diff(153) <= 2),
        "only the squares' two blues: {row:?}"
    );
    let mut runs = Vec::new();
    for &b in row.iter().filter(|&&b| b > 0) {
        let bright = b > 115;
        if runs.last() != Some(&bright) {
            runs.push(bright);
        }
    }
    assert_eq!(runs.len(), 8, "squares along the middle row: {row:?}");
    assert!(runs[0], "the square at u = 0 is light");
}

/// The faces view (`Channel::Faces`): a front face (counter-clockwise as
/// seen) sRGB (0.25, 0.45, 0.95), a back face (0.95, 0.25, 0.25), as
/// docs/formats.md gives them: bytes (64, 115, 242) and (242, 64, 64) by
/// hand, flat lighting. A closed mesh, whose back faces the renderer
/// otherwise culls, shows them too: an inside-out part is red, not gone.
#[test]
fn the_faces_view_shows_fronts_blue_and_backs_red() {
    let shot = Shot::new();
    let view = ViewOptions {
        channel: Channel::Faces,
        ..view(Lighting::Flat)
    };
    let (blue, red) = ([64, 115, 242, 255], [242, 64, 64, 255]);
    for closed in [false, true] {
        let mut q = quad(Vec3::ZERO, Vec3::Z, false, 0);
        q.closed = closed;
        let scene = Scene {
            meshes: vec![q],
            materials: vec![material(None, Maps::default())],
            ..Scene::default()
        };
        let front = shot.take(&scene, &camera(0.0), &view);
        close(centre(&front), blue, 2, &format!("front, closed {closed}"));
        let back = shot.take(&scene, &camera(180.0), &view);
        close(centre(&back), red, 2, &format!("back, closed {closed}"));
        // Shaded, the closed quad's back is culled: nothing there.
        if closed {
            let shaded = shot.take(&scene, &camera(180.0), &self::view(Lighting::Flat));
            assert_eq!(centre(&shaded), [0, 0, 0, 255], "a closed back, shaded");
        }
    }
}

/// The key light turned (`ViewOptions::light_turn`, Ctrl + drag, `render
/// --light`), seen through the faces view, whose light is the documented
/// `0.25 + 0.6 key + 0.2 (0.5 + 0.5 n.y)` (docs/formats.md) times sRGB
/// (0.25, 0.45, 0.95) in linear light. A quad facing +Z, seen from +Z (the
/// camera level, so n = +Z and `key` is the light's z). The studio light
/// from there is (0.5, 0.8, 1) / 1.37477 = (0.3637, 0.5819, 0.7274):
/// azimuth atan(0.5) = 26.565 degrees, elevation 35.585. The top light is
/// (0.3, 1, 0.4) / 1.11803, its z 0.35777, whatever the camera.
#[test]
fn a_turned_key_light_lights_a_face_by_its_new_direction() {
    let shot = Shot::new();
    let scene = Scene {
        meshes: vec![quad(Vec3::ZERO, Vec3::Z, false, 0)],
        materials: vec![material(None, Maps::default())],
        ..Scene::default()
    };
    let level = OrbitCamera {
        pitch: 0.0,
        ..camera(0.0)
    };
    let cases = [
        // Untouched: z 0.72739.
        (Lighting::Studio, (0.0, 0.0), 0.727_393),
        // Turned back by its azimuth: (0, 0.5819, 0.81325), z 0.81325.
        (Lighting::Studio, (-26.565_05, 0.0), 0.813_250),
        // And lowered by its elevation: straight along +Z.
        (Lighting::Studio, (-26.565_05, -35.585_3), 1.0),
        // Half a turn: behind the face, no key light on it.
        (Lighting::Studio, (180.0, 0.0), 0.0),
        (Lighting::Top, (0.0, 0.0), 0.357_771),
        (Lighting::Top, (180.0, 0.0), 0.0),
    ];
    let blue = [0.25f32, 0.45, 0.95];
    for (lighting, (turn, raise), key) in cases {
        let view = ViewOptions {
            channel: Channel::Faces,
            light_turn: facet::gpu::LightTurn::parse(&format!("{turn},{raise}")).unwrap(),
            ..view(lighting)
        };
        let shape = 0.25 + 0.6 * key + 0.1;
        let want = blue.map(|c| byte(linear_to_srgb(srgb_to_linear(c) * shape)));
        let got = centre(&shot.take(&scene, &level, &view));
        close(
            got,
            [want[0], want[1], want[2], 255],
            2,
            &format!("{lighting:?} turned {turn}, raised {raise}"),
        );
    }
    // Flat lighting has no key light: the turn changes nothing.
    let flat = |turn: &str| {
        let view = ViewOptions {
            channel: Channel::Faces,
            light_turn: facet::gpu::LightTurn::parse(turn).unwrap(),
            ..view(Lighting::Flat)
        };
        centre(&shot.take(&scene, &level, &view))
    };
    assert_eq!(flat("0,0"), flat("120,40"));
}
