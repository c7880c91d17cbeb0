//! Headless rendering to an image (the `render` command, thumbnails, tests):
//! load, pose, skin on the GPU, draw, read back.

use crate::anim::Animator;
use crate::gpu::{
    FrameInput, FrameStats, Gpu, GpuScene, OrbitCamera, Renderer, ViewOptions, capture, frame,
};
use crate::scene::Scene;

#[derive(Debug, Clone)]
pub struct RenderRequest {
    pub width: u32,
    pub height: u32,
    /// Yaw and pitch in degrees, zoom (1 = framed to fit).
    pub camera: Option<(f32, f32, f32)>,
    /// Overlays and background; `visible` empty means the file's defaults.
    pub view: ViewOptions,
    /// Show parts hidden by default too.
    pub all_parts: bool,
    /// Clip name and time in seconds.
    pub clip: Option<String>,
    pub time: f32,
    /// The selected bone, by name: highlighted in the skeleton overlay, and
    /// its weights shown by the weights channel.
    pub bone: Option<String>,
}

impl Default for RenderRequest {
    fn default() -> Self {
        Self {
            width: 800,
            height: 600,
            camera: None,
            view: ViewOptions::default(),
            all_parts: false,
            clip: None,
            time: 0.0,
            bone: None,
        }
    }
}

/// Finds a bone by name; the error lists the bones there are.
pub fn find_bone(scene: &Scene, name: &str) -> anyhow::Result<usize> {
    let names = scene.skeleton.bones.iter().map(|b| b.name.as_str());
    find_named(scene, "bone", names, name)
}

/// Finds a clip by name; the error lists the clips there are.
pub fn find_clip(scene: &Scene, name: &str) -> anyhow::Result<usize> {
    find_named(
        scene,
        "clip",
        scene.clips.iter().map(|c| c.name.as_str()),
        name,
    )
}

/// The index of `name` among `names` (the scene's `what`s); else an error
/// listing them (the first 20 of more).
fn find_named<'a>(
    scene: &Scene,
    what: &str,
    names: impl Iterator<Item = &'a str> + Clone,
    name: &str,
) -> anyhow::Result<usize> {
    names.clone().position(|n| n == name).ok_or_else(|| {
        let listed: Vec<String> = names.clone().take(20).map(|n| format!("{n:?}")).collect();
        let more = if names.count() > 20 { ", ..." } else { "" };
        let listed = if listed.is_empty() {
            "none".to_string()
        } else {
            listed.join(", ")
        };
        anyhow::anyhow!(
            "{}: no {what} named {name:?} ({what}s: {listed}{more})",
            scene.source.file_name
        )
    })
}

pub fn render(
    gpu: &Gpu,
    scene: &Scene,
    req: &RenderRequest,
) -> anyhow::Result<(image::RgbaImage, FrameStats)> {
    render_with(gpu, &renderer(gpu), scene, req)
}

/// The renderer headless renders draw with (the capture format, MSAA where
/// the adapter allows it).
pub fn renderer(gpu: &Gpu) -> Renderer {
    let format = capture::CAPTURE_FORMAT;
    Renderer::new(gpu, format, gpu.sample_count(format))
}

/// The renderer thumbnails draw with: one sample per pixel, drawn at
/// [`thumbnail_draw_side`] and filtered down by [`downsample_2x`]. On the
/// software rasteriser, where most thumbnails are made, 4x multisampling
/// cost more than drawing four times the pixels: its pipelines took 30 ms
/// longer to compile and its draws two to three times as long
/// (docs/performance-history.md, "Thumbnails").
pub fn thumbnail_renderer(gpu: &Gpu) -> Renderer {
    Renderer::new(gpu, capture::CAPTURE_FORMAT, 1)
}

/// The mesh shader features `scene`'s meshes draw with
/// ([`crate::gpu::materials::shader_features`]; a mesh without a material
/// draws with none; [`crate::gpu::materials::mesh_features`] for a faceted
/// one), and whether they draw with back faces culled (the opaque
/// triangles of a closed surface), each pair once.
pub fn shader_variants(scene: &Scene) -> Vec<(u32, bool)> {
    let mut variants = Vec::new();
    for mesh in &scene.meshes {
        let material = mesh.material.and_then(|i| scene.materials.get(i));
        let features = material.map_or(0, |m| {
            crate::gpu::materials::shader_features(m, scene.textures.len())
        });
        let features = crate::gpu::materials::mesh_features(features, mesh.faceted);
        let opaque = material.is_none_or(|m| m.blend == crate::scene::BlendMode::Opaque);
        let culled = mesh.closed && opaque && mesh.primitive == crate::scene::Primitive::Triangles;
        if !variants.contains(&(features, culled)) {
            variants.push((features, culled));
        }
    }
    variants
}

/// One triangle drawn at `side` pixels with each set of mesh shader
/// features in `variants` ([`shader_variants`]), culled or not: software
/// adapters compile a pipeline's shaders at its first draw, which then
/// happens here, at start-up.
pub fn warm_up(gpu: &Gpu, renderer: &Renderer, side: u32, variants: &[(u32, bool)]) {
    use crate::gpu::materials::features::*;
    use crate::scene::{Maps, Material, MaterialMap, NormalMap, Texture};
    for &(features, culled) in variants {
        let mut scene = Scene::one_triangle();
        scene.meshes[0].faceted = features & FACETED != 0;
        let features = features & !FACETED;
        if culled {
            // Both windings: one faces the camera whichever side it is on.
            scene.meshes[0].closed = true;
            scene.meshes[0].indices.extend([0, 2, 1]);
        }
        // A material with these features: each on through a map (or the
        // matcap) of a stand-in texture.
        scene
            .textures
            .push(Texture::checkerboard("warm-up", String::new()));
        let on = |f: u32| (features & f != 0).then_some(0);
        scene.materials.push(Material {
            texture: on(BASE_TEXTURE),
            matcap: on(MATCAP),
            alpha_cutoff: on(ALPHA_CUTOFF).map(|_| 0.5),
            maps: Maps {
                team_mask: on(TEAM_MAP),
                material: on(MATERIAL_MAP).map(|t| (t, MaterialMap::Unit)),
                normal: on(NORMAL_MAP)
                    .map(|t| (t, NormalMap::Rgb))
                    .or(on(HEIGHT_MAP).map(|t| (t, NormalMap::Height { strength: 1.0 }))),
                emission: on(EMISSION_MAP),
                specular: on(SPECULAR).map(|_| ([1.0; 3], 32.0)),
                ..Maps::default()
            },
            ..Material::default()
        });
        scene.meshes[0].material = Some(0);
        debug_assert_eq!(
            crate::gpu::materials::shader_features(&scene.materials[0], 1),
            features
        );
        let _ = render_with(
            gpu,
            renderer,
            &scene,
            &RenderRequest {
                width: side,
                height: side,
                view: ViewOptions {
                    grid: false,
                    ..Default::default()
                },
                ..Default::default()
            },
        );
    }
}

/// The side a thumbnail of `size` pixels is drawn at: twice its size
/// (four samples a pixel) where the device allows it.
pub fn thumbnail_draw_side(gpu: &Gpu, size: u32) -> u32 {
    match size.checked_mul(2) {
        Some(side) if side <= gpu.device.limits().max_texture_dimension_2d => side,
        _ => size,
    }
}

/// What a thumbnail draws: a square of `side` pixels ([`thumbnail_draw_side`])
/// from the three-quarter view, a little zoomed out, on a transparent
/// background without the grid, PA units in `team_colors`.
pub fn thumbnail_request(side: u32, team_colors: crate::gpu::TeamColors) -> RenderRequest {
    RenderRequest {
        width: side,
        height: side,
        camera: Some((30.0, 20.0, 1.15)),
        view: ViewOptions {
            grid: false,
            background: [0.0; 4],
            team_colors,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Halves an sRGB-encoded, straight-alpha image: each pixel is the mean of
/// a 2x2 block, colours averaged in linear light and weighted by their
/// alpha (a half-covered edge pixel keeps its colour at half alpha instead
/// of darkening towards the transparent background). A block of four equal
/// pixels is copied as it is. Not `scene::images::BoxReducer`: that
/// averages stored bytes, as texels are reduced before the GPU samples
/// them; a drawn image's samples are coverage of sRGB-encoded light.
pub fn downsample_2x(img: &image::RgbaImage) -> image::RgbaImage {
    let (w, h) = (img.width() / 2, img.height() / 2);
    let linear: [f32; 256] =
        std::array::from_fn(|i| crate::scene::srgb_to_linear(i as f32 / 255.0));
    let mut out = image::RgbaImage::new(w, h);
    for (x, y, px) in out.enumerate_pixels_mut() {
        let block = [(0, 0), (1, 0), (0, 1), (1, 1)]
            .map(|(dx, dy)| img.get_pixel(2 * x + dx, 2 * y + dy).0);
        if block.iter().all(|p| *p == block[0]) {
            *px = image::Rgba(block[0]);
            continue;
        }
        let alpha: f32 = block.iter().map(|p| p[3] as f32).sum();
        if alpha == 0.0 {
            continue; // transparent
        }
        let channel = |c: usize| {
            let sum: f32 = block
                .iter()
                .map(|p| linear[p[c] as usize] * p[3] as f32)
                .sum();
            (crate::scene::linear_to_srgb(sum / alpha) * 255.0).round() as u8
        };
        *px = image::Rgba([
            channel(0),
            channel(1),
            channel(2),
            (alpha / 4.0).round() as u8,
        ]);
    }
    out
}

/// As [`render`], with a renderer made by [`renderer`] (made while
/// something else happens, or shared by several renders).
pub fn render_with(
    gpu: &Gpu,
    renderer: &Renderer,
    scene: &Scene,
    req: &RenderRequest,
) -> anyhow::Result<(image::RgbaImage, FrameStats)> {
    Ok(Prepared::new(gpu, renderer, scene, req)?.frame(req.time))
}

/// A scene uploaded and framed once for `req`, drawn at any time of its
/// clip: one render, or a sequence of frames (`render --sequence`) that
/// shares the upload and keeps the camera still.
pub struct Prepared<'a> {
    gpu: &'a Gpu,
    renderer: &'a Renderer,
    scene: &'a Scene,
    gpu_scene: GpuScene,
    animator: Animator,
    /// The parts shown before a clip hides any (the file's defaults, or
    /// all of them).
    shown: Vec<bool>,
    view: ViewOptions,
    camera: OrbitCamera,
    clip: Option<usize>,
    bone: Option<usize>,
    size: (u32, u32),
    /// The time the animator last posed: framing posed it at the
    /// request's, which a single render then draws without posing again.
    posed_at: f32,
}

impl<'a> Prepared<'a> {
    /// Uploads `scene` and frames the parts shown at `req.time` (the
    /// boxes the upload measured).
    pub fn new(
        gpu: &'a Gpu,
        renderer: &'a Renderer,
        scene: &'a Scene,
        req: &RenderRequest,
    ) -> anyhow::Result<Prepared<'a>> {
        let clip = req
            .clip
            .as_deref()
            .map(|n| find_clip(scene, n))
            .transpose()?;
        let bone = req
            .bone
            .as_deref()
            .map(|n| find_bone(scene, n))
            .transpose()?;
        // Edges only when this frame draws them (wireframe, selection).
        let options = crate::gpu::upload::UploadOptions {
            edges: req.view.wireframe || req.view.selected_part.is_some(),
        };
        let gpu_scene = GpuScene::try_new_with(gpu, renderer, scene, options).map_err(|e| {
            anyhow::anyhow!(
                "{}: the GPU refused the upload: {e}",
                scene.source.file_name
            )
        })?;
        for w in &gpu_scene.warnings {
            log::warn!("{}: {w}", scene.source.file_name);
        }
        let mut view = req.view.clone();
        if view.visible.len() != scene.meshes.len() {
            view.visible = scene.meshes.iter().map(|m| m.visible).collect();
        }
        if req.all_parts {
            view.visible.iter_mut().for_each(|v| *v = true);
        }
        let shown = view.visible.clone();
        let mut animator = Animator::new(scene);
        animator.update(scene, clip, req.time, &shown);

        let aspect = req.width as f32 / req.height as f32;
        let mut camera = OrbitCamera::default();
        if let Some((yaw, pitch, _)) = req.camera {
            camera.yaw = yaw.to_radians();
            camera.pitch = pitch.to_radians().clamp(-1.55, 1.55);
        }
        // Framed from the boxes the upload made (a pass over every
        // position each otherwise).
        let boxes = |i: usize| gpu_scene.meshes[i].aabb;
        let mut b = scene.bounds_from(Some(&animator.visible), boxes);
        if b.is_empty() {
            b = scene.bounds_from(None, boxes);
        }
        camera.fit(&b, aspect);
        if let Some((_, _, zoom)) = req.camera {
            camera.scale_distance(1.0 / zoom);
        }
        let mut gpu_scene = gpu_scene;
        let colors = crate::gpu::upload::VertexColors::for_view(&view, bone);
        gpu_scene.show_vertex_colors(&gpu.queue, scene, colors);
        Ok(Prepared {
            gpu,
            renderer,
            scene,
            gpu_scene,
            animator,
            shown,
            view,
            camera,
            clip,
            bone,
            size: (req.width, req.height),
            posed_at: req.time,
        })
    }

    /// The scene at `time` seconds: the clip's pose and parts, the
    /// materials' animation.
    pub fn frame(&mut self, time: f32) -> (image::RgbaImage, FrameStats) {
        if time != self.posed_at {
            self.animator
                .update(self.scene, self.clip, time, &self.shown);
            self.posed_at = time;
        }
        self.view.visible.clone_from(&self.animator.visible);
        self.view
            .material_override
            .clone_from(&self.animator.materials);
        let input = FrameInput {
            camera: &self.camera,
            time,
            skin: &self.animator.pose.skin,
            view: &self.view,
            selected_bone: self.bone,
        };
        frame::render_to_image(
            self.gpu,
            self.renderer,
            &mut self.gpu_scene,
            &input,
            self.size.0,
            self.size.1,
        )
    }
}
