//! One frame: what it shows ([`FrameInput`]: camera, time, pose, view
//! options with the visibility and material overrides animation decided),
//! and the one function that records it ([`record`]): the frame's uniforms,
//! the skinning and material-animation dispatches, then the mesh and
//! overlay passes. The window, saved renders, headless renders, tests and
//! benchmarks all draw through it; only this data changes from frame to
//! frame, the scene's buffers ([`GpuScene`]) stay as uploaded.

use super::capture::{self, Targets};
use super::renderer::{Globals, Renderer};
use super::{Gpu, GpuScene, OrbitCamera};
use glam::{Mat4, Vec3};

/// What to draw this frame, set by the UI or the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewOptions {
    /// Per-mesh visibility (missing entries are visible).
    pub visible: Vec<bool>,
    pub wireframe: bool,
    pub normals: bool,
    pub bounds: bool,
    pub grid: bool,
    pub skeleton: bool,
    /// Per-mesh material used instead of the mesh's own (P3M material
    /// overrides while a clip plays); missing entries use the mesh's.
    pub material_override: Vec<Option<usize>>,
    /// Linear RGBA clear colour.
    pub background: [f64; 4],
    pub lighting: Lighting,
    /// The key light turned from where the lighting preset puts it
    /// (Ctrl + drag in the window, `render --light`).
    pub light_turn: LightTurn,
    /// The part the inspector selected, outlined in the selection colour.
    pub selected_part: Option<usize>,
    /// Per mesh, the index ranges to draw (maps culled by visibility);
    /// `None` draws every mesh whole.
    /// Shared, not copied: the app hands the same ranges to every frame.
    pub ranges: Option<std::sync::Arc<Vec<Vec<std::ops::Range<u32>>>>>,
    /// Textures on; off shows material and vertex colours only.
    pub textures: bool,
    /// What the mesh pass shows: shaded, or one input alone.
    pub channel: Channel,
    /// PA team colours (sRGB): primary, secondary.
    pub team_colors: TeamColors,
    /// Static triangle meshes wholly out of view are not drawn (the same
    /// pixels; `bench map` turns it off to time drawing everything).
    pub frustum_cull: bool,
    /// Runs of a closed mesh's triangles that all face away from the eye
    /// ([`crate::scene::Mesh::facing`]) are not drawn (the same pixels:
    /// the GPU would cull every one of them).
    pub facing_cull: bool,
}

/// What the mesh pass shows (the inspector's Channels view).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Channel {
    #[default]
    Shaded,
    /// Material colour × vertex colour × diffuse texture, unlit, before
    /// team colours.
    Diffuse,
    /// The team-colour mask as stored (black where there is none).
    Mask,
    /// The material map as stored (black where there is none).
    Material,
    /// The tangent-space normal the normal map gives, as a normal map
    /// shows it ((0.5, 0.5, 1) where there is none).
    Normal,
    /// Each vertex's weight for the selected bone, as a heat map from blue
    /// (none) through green (half) to red (whole); parts that are not
    /// skinned grey ([`super::upload::VertexColors::Weights`]).
    Weights,
    /// The UVs the textures are sampled at, as a checker: eight squares a
    /// unit, light and dark, finer ones (64 a unit) within them where the
    /// screen has room, each unit tile shaded from dark at its (0, 0)
    /// corner to red along u and green along v, so that stretching, seams
    /// and flipped islands show on any part, textured or not.
    Uvs,
    /// Which side of each triangle faces the camera: fronts (wound
    /// counter-clockwise, as the scene keeps them) blue, backs red, both
    /// drawn on every mesh, so flipped triangles and inside-out parts show.
    Faces,
}

impl Channel {
    pub const ALL: [Channel; 8] = [
        Channel::Shaded,
        Channel::Diffuse,
        Channel::Mask,
        Channel::Material,
        Channel::Normal,
        Channel::Weights,
        Channel::Uvs,
        Channel::Faces,
    ];

    /// The channel `step` places after this one in [`Self::ALL`] (before
    /// it for a negative step), wrapping around: `C` and `Shift+C`.
    pub fn cycled(self, step: i32) -> Channel {
        let n = Self::ALL.len() as i32;
        let at = Self::ALL.iter().position(|&c| c == self).unwrap_or(0) as i32;
        Self::ALL[(at + step).rem_euclid(n) as usize]
    }

    pub fn name(self) -> &'static str {
        match self {
            Channel::Shaded => "shaded",
            Channel::Diffuse => "diffuse",
            Channel::Mask => "mask",
            Channel::Material => "material",
            Channel::Normal => "normal",
            Channel::Weights => "weights",
            Channel::Uvs => "uvs",
            Channel::Faces => "faces",
        }
    }

    pub fn from_name(s: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// Planetary Annihilation team colours, sRGB in 0..1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TeamColors {
    pub primary: [f32; 3],
    pub secondary: [f32; 3],
}

impl TeamColors {
    /// The presets the PA Blender importer (Luther-1/Blender-PAPA-IO) uses.
    pub const PRESETS: [(&'static str, TeamColors); 2] = [
        (
            "MLA",
            TeamColors {
                primary: [0.0, 0.486, 1.0],
                secondary: [1.0, 0.394, 0.0],
            },
        ),
        (
            "Legion",
            TeamColors {
                primary: [1.0, 0.0, 0.0],
                secondary: [0.0, 0.0, 0.0],
            },
        ),
    ];

    /// Parses `#RRGGBB,#RRGGBB` (the `#` optional): primary, secondary.
    pub fn parse(s: &str) -> Result<TeamColors, String> {
        let hex = |c: &str| -> Result<[f32; 3], String> {
            let h = c.trim().trim_start_matches('#');
            if h.len() != 6 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!("{c:?} is not a colour #RRGGBB"));
            }
            let v = u32::from_str_radix(h, 16).map_err(|e| e.to_string())?;
            Ok([16, 8, 0].map(|s| ((v >> s) & 0xFF) as f32 / 255.0))
        };
        match s.split(',').collect::<Vec<_>>()[..] {
            [a, b] => Ok(TeamColors {
                primary: hex(a)?,
                secondary: hex(b)?,
            }),
            _ => Err(format!(
                "team colours {s:?}: expected two colours, '#RRGGBB,#RRGGBB' (primary, secondary)"
            )),
        }
    }
}

impl std::fmt::Display for TeamColors {
    /// `#RRGGBB,#RRGGBB`, as [`TeamColors::parse`] reads it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hex = |c: [f32; 3]| {
            let [r, g, b] = c.map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8);
            format!("#{r:02X}{g:02X}{b:02X}")
        };
        write!(f, "{},{}", hex(self.primary), hex(self.secondary))
    }
}

impl Default for TeamColors {
    fn default() -> Self {
        TeamColors::PRESETS[0].1
    }
}

/// Lighting presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lighting {
    /// A key light above-right of the camera plus a soft fill (materials'
    /// shading decides how directional).
    #[default]
    Studio,
    /// No directional light: every surface at its colour (texture checks).
    Flat,
    /// A fixed light from above the world, whatever the camera does.
    Top,
    /// A built-in clay sphere looked up by the view-space normal (lit from
    /// the viewer's upper left, with a rim): every surface shaded, for
    /// reading shape; materials with a matcap of their own keep it.
    Matcap,
}

impl Lighting {
    pub const ALL: [Lighting; 4] = [
        Lighting::Studio,
        Lighting::Flat,
        Lighting::Top,
        Lighting::Matcap,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Lighting::Studio => "studio",
            Lighting::Flat => "flat",
            Lighting::Top => "top",
            Lighting::Matcap => "matcap",
        }
    }

    pub fn from_name(s: &str) -> Option<Lighting> {
        Lighting::ALL.into_iter().find(|l| l.name() == s)
    }
}

impl Default for ViewOptions {
    fn default() -> Self {
        Self {
            visible: Vec::new(),
            wireframe: false,
            normals: false,
            bounds: false,
            grid: true,
            skeleton: false,
            material_override: Vec::new(),
            background: [0.035, 0.04, 0.05, 1.0],
            lighting: Lighting::Studio,
            light_turn: LightTurn::default(),
            selected_part: None,
            ranges: None,
            textures: true,
            channel: Channel::Shaded,
            team_colors: TeamColors::default(),
            frustum_cull: true,
            facing_cull: true,
        }
    }
}

impl ViewOptions {
    pub fn for_scene(scene: &crate::scene::Scene) -> Self {
        Self {
            visible: scene.meshes.iter().map(|m| m.visible).collect(),
            // A skeleton with nothing to skin (an animation shown alone)
            // is only visible as the overlay.
            skeleton: scene.meshes.is_empty() && !scene.skeleton.bones.is_empty(),
            ..Default::default()
        }
    }

    /// The mesh shader features this frame's view modes add to every
    /// material's ([`super::materials::features::VIEWS`]): a channel view or
    /// the matcap preset; none for the shaded view under any other lighting.
    pub fn shader_features(&self) -> u32 {
        use super::materials::features::{UV_VIEW, VIEWS};
        if self.channel == Channel::Uvs {
            VIEWS | UV_VIEW
        } else if self.channel != Channel::Shaded || self.lighting == Lighting::Matcap {
            VIEWS
        } else {
            0
        }
    }

    /// Copies `other` into `self` reusing the vectors' allocations (the
    /// derived `clone_from` would allocate every frame).
    pub fn copy_from(&mut self, other: &ViewOptions) {
        let ViewOptions {
            visible,
            wireframe,
            normals,
            bounds,
            grid,
            skeleton,
            material_override,
            background,
            lighting,
            light_turn,
            selected_part,
            ranges,
            textures,
            channel,
            team_colors,
            frustum_cull,
            facing_cull,
        } = other;
        self.visible.clone_from(visible);
        self.material_override.clone_from(material_override);
        (
            self.wireframe,
            self.normals,
            self.bounds,
            self.grid,
            self.skeleton,
        ) = (*wireframe, *normals, *bounds, *grid, *skeleton);
        self.background = *background;
        self.lighting = *lighting;
        self.light_turn = *light_turn;
        self.selected_part = *selected_part;
        self.ranges.clone_from(ranges);
        self.textures = *textures;
        self.channel = *channel;
        self.team_colors = *team_colors;
        self.frustum_cull = *frustum_cull;
        self.facing_cull = *facing_cull;
    }

    pub fn is_visible(&self, mesh: usize) -> bool {
        self.visible.get(mesh).copied().unwrap_or(true)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameStats {
    pub draw_calls: u32,
    pub triangles: u64,
}

/// Everything a frame shows beyond the uploaded scene.
#[derive(Clone, Copy)]
pub struct FrameInput<'a> {
    pub camera: &'a OrbitCamera,
    /// Seconds on the global timeline: the material animation's time.
    pub time: f32,
    /// Skinning matrices, one per bone (the animator's pose; missing bones
    /// stay at rest).
    pub skin: &'a [Mat4],
    /// Overlays, background and lighting, with the per-part visibility and
    /// material overrides as animation left them.
    pub view: &'a ViewOptions,
    /// The bone the skeleton overlay highlights.
    pub selected_bone: Option<usize>,
}

impl<'a> FrameInput<'a> {
    /// A frame at time 0 in the rest pose, no bone selected (renders of a
    /// file as it lies, benchmarks, tests).
    pub fn at_rest(camera: &'a OrbitCamera, view: &'a ViewOptions) -> FrameInput<'a> {
        FrameInput {
            camera,
            time: 0.0,
            skin: &[],
            view,
            selected_bone: None,
        }
    }
}

/// Where a frame is drawn.
pub struct FrameTarget<'a> {
    pub targets: &'a Targets,
    /// The colour view the pass resolves into (or draws into without MSAA).
    pub color: &'a wgpu::TextureView,
    /// The pixel rectangle the 3D view fills (x, y, width, height); `None`
    /// fills the whole target.
    pub viewport: Option<[f32; 4]>,
}

impl FrameTarget<'_> {
    fn aspect(&self) -> f32 {
        match self.viewport {
            Some([_, _, w, h]) => w / h,
            None => self.targets.width.max(1) as f32 / self.targets.height.max(1) as f32,
        }
    }
}

/// Records one frame of `scene` into `encoder`: uniforms, pose, material
/// animation, selection, then the 3D pass (cleared to the background).
pub fn record(
    gpu: &Gpu,
    renderer: &Renderer,
    scene: &mut GpuScene,
    encoder: &mut wgpu::CommandEncoder,
    target: &FrameTarget,
    input: &FrameInput,
) -> FrameStats {
    let queue = &gpu.queue;
    write_globals(renderer, queue, input.camera, target.aspect(), input.view);
    scene.encode_pose(queue, renderer, encoder, input.skin);
    scene.encode_materials(queue, renderer, encoder, input.time);
    scene.set_selected_bone(queue, input.selected_bone);
    let mut pass = target
        .targets
        .begin_pass(encoder, target.color, input.view.background);
    if let Some([x, y, w, h]) = target.viewport {
        pass.set_viewport(x, y, w, h, 0.0, 1.0);
    }
    let view_proj = input.camera.view_proj(target.aspect());
    let mut order = std::mem::take(&mut scene.draw_order);
    let stats = draw(
        renderer,
        &mut pass,
        scene,
        &mut order,
        input.view,
        input.camera,
        view_proj,
    );
    scene.draw_order = order;
    stats
}

/// Renders one frame offscreen at `width` x `height` (the renderer's
/// format, read back as RGBA8 sRGB).
pub fn render_to_image(
    gpu: &Gpu,
    renderer: &Renderer,
    scene: &mut GpuScene,
    input: &FrameInput,
    width: u32,
    height: u32,
) -> (image::RgbaImage, FrameStats) {
    let (output, view, targets) = offscreen(gpu, renderer, (width, height), true);
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("capture"),
        });
    let target = FrameTarget {
        targets: &targets,
        color: &view,
        viewport: None,
    };
    let stats = record(gpu, renderer, scene, &mut encoder, &target, input);
    let image = capture::read_texture(gpu, encoder, &output, width, height);
    (image, stats)
}

/// Records and submits `frames` frames offscreen (targets made once), after
/// [`WARM_UP`] of untimed ones, and
/// returns each frame's wall time in ms, recording to GPU idle, and its
/// CPU part; and the last frame's stats. For benchmarks.
pub fn time_frames(
    gpu: &Gpu,
    renderer: &Renderer,
    scene: &mut GpuScene,
    input: &FrameInput,
    (width, height): (u32, u32),
    frames: u32,
) -> (FrameTimes, FrameStats) {
    let (_output, view, targets) = offscreen(gpu, renderer, (width, height), false);
    let target = FrameTarget {
        targets: &targets,
        color: &view,
        viewport: None,
    };
    let mut stats = FrameStats::default();
    let mut times = FrameTimes::default();
    // Frames drawn and not timed, so that the GPU's clock has risen.
    let warm = std::time::Instant::now();
    while warm.elapsed() < WARM_UP {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        record(gpu, renderer, scene, &mut encoder, &target, input);
        gpu.queue.submit([encoder.finish()]);
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    }
    for i in 0..=frames {
        let t = std::time::Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        stats = record(gpu, renderer, scene, &mut encoder, &target, input);
        gpu.queue.submit([encoder.finish()]);
        let cpu = t.elapsed();
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
        if i > 0 {
            // Frame 0 warms up.
            times.total.push(t.elapsed().as_secs_f64() * 1e3);
            times.cpu.push(cpu.as_secs_f64() * 1e3);
        }
    }
    times.total.sort_by(f64::total_cmp);
    times.cpu.sort_by(f64::total_cmp);
    (times, stats)
}

/// How long benchmarks keep the GPU busy before timing it: GPUs idle at a
/// low clock and raise it under sustained load (an H200's SM clock went from
/// 345 to 1980 MHz; short bursts right after idle time ran 5.5x slower).
pub const WARM_UP: std::time::Duration = std::time::Duration::from_millis(500);

/// Frame times in ms, each list sorted: `total` from recording to the GPU
/// done, `cpu` the recording and submit alone (the rest is the GPU's).
#[derive(Clone, Debug, Default)]
pub struct FrameTimes {
    pub total: Vec<f64>,
    pub cpu: Vec<f64>,
}

impl FrameTimes {
    /// The `q` quantile (0.5: the median) of a sorted list; 0 when empty.
    pub fn quantile(sorted: &[f64], q: f64) -> f64 {
        match sorted.len() {
            0 => 0.0,
            n => sorted[((n as f64 * q) as usize).min(n - 1)],
        }
    }
}

/// An offscreen colour target of the renderer's format (readable when
/// `readback`) with its depth and multisample targets.
fn offscreen(
    gpu: &Gpu,
    renderer: &Renderer,
    (width, height): (u32, u32),
    readback: bool,
) -> (wgpu::Texture, wgpu::TextureView, Targets) {
    let mut usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
    if readback {
        usage |= wgpu::TextureUsages::COPY_SRC;
    }
    let output = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("offscreen frame"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: renderer.color_format,
        usage,
        view_formats: &[],
    });
    let view = output.create_view(&wgpu::TextureViewDescriptor::default());
    let targets = Targets::new(
        &gpu.device,
        width,
        height,
        renderer.color_format,
        renderer.sample_count,
    );
    (output, view, targets)
}

/// The key light turned from its preset's direction: by `yaw` radians
/// about the scene's up axis (Y), counter-clockwise seen from above, and
/// raised by `pitch` radians, its elevation kept within ±89° so it never
/// turns over the pole. The default (0, 0) is the preset's own light.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LightTurn {
    pub yaw: f32,
    pub pitch: f32,
}

impl LightTurn {
    /// The most the light is raised or lowered: short of straight up or
    /// down, where its turn about the up axis would be lost.
    pub const MAX_ELEVATION: f32 = 89.0 * std::f32::consts::PI / 180.0;

    /// `light` (a unit direction towards the light) turned: its azimuth
    /// (`atan2(x, z)`) plus `yaw`, its elevation (`asin(y)`) plus `pitch`
    /// within ±[`Self::MAX_ELEVATION`].
    pub fn apply(self, light: Vec3) -> Vec3 {
        if self == LightTurn::default() {
            return light;
        }
        let azimuth = light.x.atan2(light.z) + self.yaw;
        let elevation = (light.y.clamp(-1.0, 1.0).asin() + self.pitch)
            .clamp(-Self::MAX_ELEVATION, Self::MAX_ELEVATION);
        let (se, ce) = elevation.sin_cos();
        let (sa, ca) = azimuth.sin_cos();
        Vec3::new(ce * sa, se, ce * ca)
    }

    /// `TURN,RAISE` in degrees (`render --light`): finite numbers, turned
    /// from the preset's light as [`Self::turned`] keeps them.
    pub fn parse(s: &str) -> Result<LightTurn, String> {
        let angles: Vec<Option<f32>> = s
            .split(',')
            .map(|x| x.trim().parse::<f32>().ok().filter(|a| a.is_finite()))
            .collect();
        match angles[..] {
            [Some(turn), Some(raise)] => {
                Ok(LightTurn::default().turned(turn.to_radians(), raise.to_radians()))
            }
            _ => Err(format!(
                "bad light {s:?}: expected TURN,RAISE in degrees, e.g. 90,-20"
            )),
        }
    }

    /// Turned by a further `yaw` and `pitch`: the yaw kept within half a
    /// turn either way, the pitch to what [`Self::apply`] can show
    /// (dragging past the pole does nothing).
    pub fn turned(self, yaw: f32, pitch: f32) -> LightTurn {
        use std::f32::consts::{PI, TAU};
        let limit = 2.0 * Self::MAX_ELEVATION;
        LightTurn {
            yaw: (self.yaw + yaw + PI).rem_euclid(TAU) - PI,
            pitch: (self.pitch + pitch).clamp(-limit, limit),
        }
    }
}

/// The direction towards the key light (unit): for the studio preset
/// above, right of and in front of the camera (`eye_dir + 0.5 right + 0.8
/// up`, normalised), for the top preset fixed above the scene, then
/// turned by `turn`.
pub fn key_light(lighting: Lighting, camera: &OrbitCamera, turn: LightTurn) -> Vec3 {
    let eye_dir = (camera.eye() - camera.target).normalize_or(Vec3::Z);
    let right = Vec3::Y.cross(eye_dir).normalize_or(Vec3::X);
    let light = match lighting {
        Lighting::Top => Vec3::new(0.3, 1.0, 0.4).normalize(),
        _ => (eye_dir + right * 0.5 + Vec3::Y * 0.8).normalize(),
    };
    turn.apply(light)
}

/// Writes the per-frame uniforms.
fn write_globals(
    renderer: &Renderer,
    queue: &wgpu::Queue,
    camera: &OrbitCamera,
    aspect: f32,
    opts: &ViewOptions,
) {
    let lighting = opts.lighting;
    let view = camera.view();
    let light = key_light(lighting, camera, opts.light_turn);
    let directional = if lighting == Lighting::Flat { 0.0 } else { 1.0 };
    let g = Globals {
        view_proj: camera.view_proj(aspect).to_cols_array_2d(),
        view: view.to_cols_array_2d(),
        light_dir: [light.x, light.y, light.z, 0.0],
        params: [
            camera.scene_radius,
            2e-4,
            directional,
            (lighting == Lighting::Matcap) as u32 as f32,
        ],
        eye: camera.eye().extend(1.0).into(),
        team_primary: [
            opts.team_colors.primary[0],
            opts.team_colors.primary[1],
            opts.team_colors.primary[2],
            1.0,
        ],
        team_secondary: [
            opts.team_colors.secondary[0],
            opts.team_colors.secondary[1],
            opts.team_colors.secondary[2],
            1.0,
        ],
        view_mode: [opts.textures as u32, opts.channel as u32, 0, 0],
    };
    queue.write_buffer(&renderer.globals, 0, bytemuck::bytes_of(&g));
}

/// A mesh's place in its blend mode's pass, as (pipeline, distance key),
/// per mesh (a mesh's own triangles keep their order):
/// - opaque: by pipeline, then nearest first, so that the depth test turns
///   away what lies behind before it is shaded and written (a map's
///   sectors hide each other);
/// - alpha: farthest first, by the bounds' centre, as blending needs;
/// - additive: as the scene lists them (the sum does not care).
fn draw_key(
    blend: crate::scene::BlendMode,
    pipeline: u64,
    aabb: &crate::scene::Aabb,
    eye: Vec3,
) -> (u64, f32) {
    use crate::scene::BlendMode;
    match blend {
        BlendMode::Opaque => (pipeline, aabb.distance_squared_to(eye)),
        BlendMode::Alpha => (0, -aabb.center().distance_squared(eye)),
        BlendMode::Additive => (0, 0.0),
    }
}

/// Sorts one blend mode's draws, each ([`draw_key`]..., mesh), by pipeline
/// and then distance key; stable, so that meshes at one distance keep the
/// scene's order. Additive draws keep it whole.
fn sort_draws(blend: crate::scene::BlendMode, order: &mut [(u64, f32, u32)]) {
    if blend != crate::scene::BlendMode::Additive {
        order.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    }
}

/// The index ranges of a mesh's runs by facing ([`crate::scene::Facing`])
/// that do not wholly face away from `viewpoint`, runs next to each other
/// joined into one range; with no runs, nothing (the caller draws the mesh
/// whole).
fn facing_runs(
    facing: &[crate::scene::Facing],
    viewpoint: glam::Vec4,
    mut draw: impl FnMut(std::ops::Range<u32>),
) {
    let mut open: Option<std::ops::Range<u32>> = None;
    for f in facing.iter().filter(|f| !f.faces_away_from(viewpoint)) {
        match &mut open {
            Some(r) if r.end == f.start => r.end = f.end,
            _ => {
                if let Some(r) = open.replace(f.start..f.end) {
                    draw(r);
                }
            }
        }
    }
    if let Some(r) = open {
        draw(r);
    }
}

/// Records the draws into `pass`: opaque meshes nearest first, alpha-blended
/// meshes back to front, additive meshes, then the overlays.
fn draw(
    renderer: &Renderer,
    pass: &mut wgpu::RenderPass<'_>,
    scene: &GpuScene,
    order: &mut Vec<(u64, f32, u32)>,
    opts: &ViewOptions,
    camera: &super::OrbitCamera,
    view_proj: glam::Mat4,
) -> FrameStats {
    use crate::scene::BlendMode;
    let mut stats = FrameStats::default();
    pass.set_bind_group(0, &renderer.globals_bg, &[]);
    let meshes = MeshDraws {
        scene,
        opts,
        view_features: opts.shader_features(),
        view_proj,
        // A closed surface is closed while all of it is drawn; the faces
        // view draws both sides of everything (an inside-out closed part
        // would otherwise show its far side's fronts).
        whole: opts.channel != Channel::Faces
            && (0..scene.meshes.len()).all(|i| !scene.meshes[i].closed || opts.is_visible(i)),
    };
    let (eye, viewpoint) = (camera.eye(), camera.viewpoint());
    for blend in [BlendMode::Opaque, BlendMode::Alpha, BlendMode::Additive] {
        meshes.order(blend, eye, order);
        let mut current = None;
        for &(_, _, i) in order.iter() {
            meshes.draw(
                renderer,
                pass,
                i as usize,
                blend,
                &mut current,
                viewpoint,
                &mut stats,
            );
        }
    }
    draw_overlays(renderer, pass, scene, opts, &mut stats);
    stats
}

/// A frame's mesh draws: which meshes draw with which material, pipeline
/// and index ranges, under one view.
struct MeshDraws<'a> {
    scene: &'a GpuScene,
    opts: &'a ViewOptions,
    /// Shader features the view adds to every material's.
    view_features: u32,
    view_proj: glam::Mat4,
    /// Whether every closed mesh is drawn (a closed surface is closed only
    /// while all of it is).
    whole: bool,
}

/// A mesh pipeline's key: primitive, shader features, back faces culled.
type PipelineKey = (crate::scene::Primitive, u32, bool);

impl MeshDraws<'_> {
    /// Mesh `i`'s material: the view's override where it names one, else
    /// its own.
    fn material_of(&self, i: usize) -> usize {
        self.opts
            .material_override
            .get(i)
            .copied()
            .flatten()
            .filter(|&x| x < self.scene.materials.len())
            .unwrap_or(self.scene.meshes[i].material)
    }

    /// Whether mesh `i` draws in `blend`'s pass: its material blends so,
    /// it is visible and has indices, and it is not out of view (a static
    /// triangle mesh whose rest bounds the camera does not see; points and
    /// lines are drawn wider than their bounds).
    fn drawn(&self, i: usize, blend: crate::scene::BlendMode) -> bool {
        use crate::scene::Primitive;
        let m = &self.scene.meshes[i];
        let out_of_view = self.opts.frustum_cull
            && m.primitive == Primitive::Triangles
            && matches!(m.stream, super::upload::Stream::Static(_))
            && super::camera::outside_view(&self.view_proj, &m.aabb);
        self.scene.materials[self.material_of(i)].blend == blend
            && self.opts.is_visible(i)
            && m.index_count > 0
            && !out_of_view
    }

    /// The pipeline mesh `i` draws with in `blend`'s pass, with
    /// `material` ([`MeshDraws::material_of`]).
    fn pipeline(
        &self,
        i: usize,
        material: &super::upload::GpuMaterial,
        blend: crate::scene::BlendMode,
    ) -> PipelineKey {
        let m = &self.scene.meshes[i];
        (
            m.primitive,
            super::materials::mesh_features(material.features | self.view_features, m.faceted),
            m.culled(blend, self.whole),
        )
    }

    /// `order`: the meshes `blend`'s pass draws, sorted ([`draw_key`],
    /// [`sort_draws`]: only opaque draws are grouped by pipeline).
    fn order(
        &self,
        blend: crate::scene::BlendMode,
        eye: glam::Vec3,
        order: &mut Vec<(u64, f32, u32)>,
    ) {
        use crate::scene::BlendMode;
        order.clear();
        order.extend(
            (0..self.scene.meshes.len())
                .filter(|&i| self.drawn(i, blend))
                .map(|i| {
                    let pipeline = if blend == BlendMode::Opaque {
                        let material = &self.scene.materials[self.material_of(i)];
                        let (primitive, features, culled) = self.pipeline(i, material, blend);
                        (u64::from(features) << 3) | ((primitive as u64) << 1) | u64::from(culled)
                    } else {
                        0
                    };
                    let (pipeline, key) =
                        draw_key(blend, pipeline, &self.scene.meshes[i].aabb, eye);
                    (pipeline, key, i as u32)
                }),
        );
        sort_draws(blend, order);
    }

    /// Mesh `i`'s draws in `blend`'s pass, its pipeline set where it is not
    /// `current`'s: the view's ranges of it (a map's visibility), else the
    /// runs of sides that face `viewpoint` (a closed static mesh that
    /// keeps them), else all of it.
    #[allow(clippy::too_many_arguments)]
    fn draw(
        &self,
        renderer: &Renderer,
        pass: &mut wgpu::RenderPass<'_>,
        i: usize,
        blend: crate::scene::BlendMode,
        current: &mut Option<PipelineKey>,
        viewpoint: glam::Vec4,
        stats: &mut FrameStats,
    ) {
        use crate::scene::Primitive;
        let m = &self.scene.meshes[i];
        let Some(stream) = m.stream(self.scene) else {
            return;
        };
        let material = &self.scene.materials[self.material_of(i)];
        let key = self.pipeline(i, material, blend);
        if *current != Some(key) {
            pass.set_pipeline(&renderer.mesh_pipeline(key.1, blend, key.0, key.2));
            *current = Some(key);
        }
        pass.set_bind_group(1, &material.bind_group, &[]);
        pass.set_vertex_buffer(0, stream);
        pass.set_vertex_buffer(1, m.uvs.slice(..));
        pass.set_index_buffer(m.indices.slice(..), m.index_format);
        let per_triangle = if m.primitive == Primitive::Triangles {
            3
        } else {
            u64::MAX
        };
        match self.opts.ranges.as_ref().and_then(|r| r.get(i)) {
            Some(ranges) => {
                for r in ranges {
                    let r = r.start.min(m.index_count)..r.end.min(m.index_count);
                    if r.is_empty() {
                        continue;
                    }
                    stats.triangles += (r.end - r.start) as u64 / per_triangle;
                    pass.draw_indexed(r, 0, 0..1);
                    stats.draw_calls += 1;
                }
            }
            None if self.opts.facing_cull
                && !m.facing.is_empty()
                && m.culled(blend, self.whole)
                && matches!(m.stream, super::upload::Stream::Static(_)) =>
            {
                facing_runs(&m.facing, viewpoint, |r| {
                    stats.triangles += (r.end - r.start) as u64 / 3;
                    pass.draw_indexed(r, 0, 0..1);
                    stats.draw_calls += 1;
                });
            }
            None => {
                pass.draw_indexed(0..m.index_count, 0, 0..1);
                stats.draw_calls += 1;
                stats.triangles += m.index_count as u64 / per_triangle;
            }
        }
    }
}

/// The overlays the view shows, over the meshes: the grid, bounds and
/// extra lines, the wireframe, the selected part's edges, normals and the
/// skeleton.
fn draw_overlays(
    renderer: &Renderer,
    pass: &mut wgpu::RenderPass<'_>,
    scene: &GpuScene,
    opts: &ViewOptions,
    stats: &mut FrameStats,
) {
    pass.set_pipeline(&renderer.lines);
    pass.set_vertex_buffer(0, scene.lines.slice(..));
    let mut lines = |r: &std::ops::Range<u32>, stats: &mut FrameStats| {
        if !r.is_empty() {
            pass.draw(r.clone(), 0..1);
            stats.draw_calls += 1;
        }
    };
    if opts.grid {
        lines(&scene.grid, stats);
    }
    if opts.bounds {
        lines(&scene.scene_bounds, stats);
        for (i, m) in scene.meshes.iter().enumerate() {
            if opts.is_visible(i) {
                lines(&m.bounds, stats);
            }
        }
    }
    if let Some(extra) = &scene.extra_lines
        && scene.extra_line_count > 0
    {
        pass.set_vertex_buffer(0, extra.slice(..));
        pass.draw(0..scene.extra_line_count, 0..1);
        stats.draw_calls += 1;
    }
    let visible = || {
        scene
            .meshes
            .iter()
            .enumerate()
            .filter(|(i, m)| opts.is_visible(*i) && m.vertex_count > 0)
    };
    if opts.wireframe {
        pass.set_pipeline(&renderer.wire);
        for (_, m) in visible() {
            let Some(stream) = m.stream(scene) else {
                continue;
            };
            pass.set_vertex_buffer(0, stream);
            pass.set_index_buffer(m.edges.slice(..), m.index_format);
            pass.draw_indexed(0..m.edge_index_count, 0, 0..1);
            stats.draw_calls += 1;
        }
    }
    if let Some((_, m)) = opts
        .selected_part
        .and_then(|i| visible().find(|(j, _)| *j == i))
        && let Some(stream) = m.stream(scene)
    {
        pass.set_pipeline(&renderer.wire_selected);
        pass.set_vertex_buffer(0, stream);
        pass.set_index_buffer(m.edges.slice(..), m.index_format);
        pass.draw_indexed(0..m.edge_index_count, 0, 0..1);
        stats.draw_calls += 1;
    }
    if opts.normals {
        pass.set_pipeline(&renderer.normals);
        for (_, m) in visible() {
            let Some(stream) = m.stream(scene) else {
                continue;
            };
            pass.set_vertex_buffer(0, stream);
            pass.draw(0..2, 0..m.vertex_count);
            stats.draw_calls += 1;
        }
    }
    if let (true, Some(skeleton)) = (opts.skeleton, &scene.skeleton) {
        pass.set_pipeline(&renderer.bones);
        pass.set_bind_group(1, &scene.overlay_bind_group, &[]);
        pass.set_vertex_buffer(0, skeleton.slice(..));
        pass.draw(0..scene.skeleton_vertices, 0..1);
        stats.draw_calls += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::{FrameTimes, ViewOptions};

    /// Six runs by hand, as a voxel mesh orders its sides (-X, -Y, -Z, +X,
    /// +Y, +Z), each in the plane at 1 along its normal: the ranges drawn
    /// for eyes on either side of every axis, and on the +X axis.
    #[test]
    fn facing_runs_draw_what_faces_the_eye_joined_where_next_to_each_other() {
        use glam::{Vec3, Vec4};
        let normals = [
            Vec3::NEG_X,
            Vec3::NEG_Y,
            Vec3::NEG_Z,
            Vec3::X,
            Vec3::Y,
            Vec3::Z,
        ];
        let runs: Vec<crate::scene::Facing> = normals
            .iter()
            .enumerate()
            .map(|(i, &normal)| crate::scene::Facing {
                start: 6 * i as u32,
                end: 6 * i as u32 + 6,
                normal,
                offset: 1.0,
            })
            .collect();
        let drawn = |eye: [f32; 3]| {
            let mut ranges = Vec::new();
            super::facing_runs(&runs, Vec3::from(eye).extend(1.0), |r| ranges.push(r));
            ranges
        };
        assert_eq!(drawn([5.0, 5.0, 5.0]), vec![18..36]);
        assert_eq!(drawn([-5.0, -5.0, -5.0]), vec![0..18]);
        assert_eq!(drawn([5.0, -5.0, 5.0]), vec![6..12, 18..24, 30..36]);
        assert_eq!(drawn([5.0, 0.0, 0.0]), vec![18..24]);
        assert_eq!(drawn([0.0, 0.0, 0.0]), Vec::<std::ops::Range<u32>>::new());
        let mut none = Vec::new();
        super::facing_runs(&[], Vec4::W, |r| none.push(r));
        assert!(none.is_empty());
    }

    #[test]
    fn opaque_draws_nearest_first_within_a_pipeline_alpha_farthest_first() {
        use crate::scene::{Aabb, BlendMode};
        use glam::Vec3;
        let aabb = |min: [f32; 3], max: [f32; 3]| Aabb {
            min: Vec3::from(min),
            max: Vec3::from(max),
        };
        let eye = Vec3::ZERO;
        // Mesh 0 far (nearest point (4,4,4): 48), mesh 1 around the eye
        // (0), mesh 2 a unit beyond x = 1 (1), mesh 3 as far as mesh 2
        // but drawn with another pipeline.
        let boxes = [
            aabb([4.0; 3], [5.0; 3]),
            aabb([-1.0; 3], [1.0; 3]),
            aabb([1.0, -1.0, -1.0], [2.0, 1.0, 1.0]),
            aabb([-2.0, -1.0, -1.0], [-1.0, 1.0, 1.0]),
        ];
        let pipeline = [0, 0, 0, 1];
        let order = |blend| {
            let mut order: Vec<(u64, f32, u32)> = (0..4)
                .map(|i| {
                    let (p, key) = super::draw_key(blend, pipeline[i], &boxes[i], eye);
                    (p, key, i as u32)
                })
                .collect();
            super::sort_draws(blend, &mut order);
            order.iter().map(|d| d.2).collect::<Vec<_>>()
        };
        assert_eq!(order(BlendMode::Opaque), [1, 2, 0, 3]);
        // Centres at 4.5 (60.75), 0, 1.5 and -1.5 along x (2.25 each).
        assert_eq!(order(BlendMode::Alpha), [0, 2, 3, 1]);
        assert_eq!(order(BlendMode::Additive), [0, 1, 2, 3]);
    }

    #[test]
    fn quantiles_of_sorted_frame_times() {
        // 600 frames of 1..=600 ms: the median is the 301st (index 300),
        // p90 the 541st, p99 the 595th; one frame is every quantile.
        let t: Vec<f64> = (1..=600).map(f64::from).collect();
        assert_eq!(FrameTimes::quantile(&t, 0.5), 301.0);
        assert_eq!(FrameTimes::quantile(&t, 0.9), 541.0);
        assert_eq!(FrameTimes::quantile(&t, 0.99), 595.0);
        assert_eq!(FrameTimes::quantile(&t, 1.0), 600.0);
        assert_eq!(FrameTimes::quantile(&[7.0], 0.99), 7.0);
        assert_eq!(FrameTimes::quantile(&[], 0.5), 0.0);
    }

    #[test]
    fn copy_from_reuses_allocations() {
        let src = ViewOptions {
            visible: vec![true, false, true],
            wireframe: true,
            material_override: vec![Some(2), None, None],
            frustum_cull: false,
            ..Default::default()
        };
        let mut dst = ViewOptions {
            visible: Vec::with_capacity(8),
            material_override: Vec::with_capacity(8),
            ..Default::default()
        };
        let (pv, pm) = (dst.visible.as_ptr(), dst.material_override.as_ptr());
        dst.copy_from(&src);
        assert_eq!(dst, src);
        assert_eq!(
            (dst.visible.as_ptr(), dst.material_override.as_ptr()),
            (pv, pm),
            "reallocated"
        );
    }

    #[test]
    fn channels_cycle_in_the_listed_order_both_ways() {
        use super::Channel;
        assert_eq!(Channel::Shaded.cycled(1), Channel::Diffuse);
        assert_eq!(Channel::Shaded.cycled(-1), Channel::Faces);
        assert_eq!(Channel::Faces.cycled(1), Channel::Shaded);
        assert_eq!(Channel::Weights.cycled(2), Channel::Faces);
        assert_eq!(Channel::Mask.cycled(-16), Channel::Mask);
    }

    #[test]
    fn the_key_light_turns_about_up_and_rises_short_of_the_pole() {
        use super::{LightTurn, Lighting, OrbitCamera, key_light};
        use glam::Vec3;
        let near = |a: Vec3, b: Vec3| (a - b).length() < 1e-5;
        let deg = |d: f32| d.to_radians();
        // The studio light from a camera on +Z (yaw 0, pitch 0): eye
        // direction Z, right X: (0.5, 0.8, 1) / 1.37477.
        let camera = OrbitCamera {
            yaw: 0.0,
            pitch: 0.0,
            ..OrbitCamera::default()
        };
        let studio = key_light(Lighting::Studio, &camera, LightTurn::default());
        assert!(
            near(studio, Vec3::new(0.363_696, 0.581_914, 0.727_393)),
            "{studio}"
        );
        // The top light (0.3, 1, 0.4) / 1.11803 turned 90 degrees about
        // up: (x, z) -> (z, -x), the height kept.
        let top = |turn| key_light(Lighting::Top, &camera, turn);
        let quarter = LightTurn {
            yaw: deg(90.0),
            pitch: 0.0,
        };
        assert!(near(
            top(quarter),
            Vec3::new(0.357_771, 0.894_427, -0.268_328)
        ));
        // Studio's azimuth is atan(0.5) = 26.565 degrees, its elevation
        // asin(0.581914) = 35.585: turned back by both, straight along +Z.
        let ahead = LightTurn {
            yaw: deg(-26.565_05),
            pitch: deg(-35.585_3),
        };
        let l = key_light(Lighting::Studio, &camera, ahead);
        assert!(near(l, Vec3::Z), "{l}");
        // Raised 100 degrees more: held at 89 (sin 89 = 0.999848).
        let over = LightTurn {
            yaw: 0.0,
            pitch: deg(100.0),
        };
        assert!((top(over).y - 0.999_848).abs() < 1e-5, "{}", top(over));
        assert!((top(over).length() - 1.0).abs() < 1e-5);
        // Turning adds up: the yaw wraps to within half a turn, the pitch
        // stops at twice the highest elevation (a drag past it does
        // nothing).
        let t = LightTurn::default()
            .turned(deg(350.0), deg(100.0))
            .turned(deg(20.0), deg(100.0));
        assert!((t.yaw - deg(10.0)).abs() < 1e-5, "{t:?}");
        assert!((t.pitch - deg(178.0)).abs() < 1e-5, "{t:?}");
        let back = t.turned(deg(-30.0), 0.0);
        assert!((back.yaw - deg(-20.0)).abs() < 1e-5, "{back:?}");
        // As `render --light` reads it: degrees, finite, two of them.
        let parsed = LightTurn::parse("90, -20").unwrap();
        assert!((parsed.yaw - deg(90.0)).abs() < 1e-5 && (parsed.pitch - deg(-20.0)).abs() < 1e-5);
        for bad in ["90", "90,x", "inf,0", "1,2,3", ""] {
            assert!(LightTurn::parse(bad).is_err(), "{bad:?}");
        }
    }
}
