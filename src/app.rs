//! The windowed viewer: winit event loop, orbit camera input, egui overlay.

use crate::anim::Animator;
use crate::anim::timeline::TimeSpan;
use crate::gpu::camera::AxisView;
use crate::gpu::capture::Targets;
use crate::gpu::{FrameInput, FrameTarget, Gpu, GpuScene, OrbitCamera, Renderer};
use crate::load;
use crate::scene::Scene;
use crate::ui::{self, UiState};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, ModifiersState, NamedKey};
use winit::window::{Window, WindowId};

/// Options of a window session.
#[derive(Debug, Clone, Default)]
pub struct AppOptions {
    /// Save a screenshot of the whole window (3D view and panels) here...
    pub screenshot: Option<PathBuf>,
    /// ...after this many frames, then quit.
    pub frames: Option<u32>,
    /// Planetary Annihilation media roots from the command line (`--media`),
    /// tried before those in the settings.
    pub media_roots: Vec<PathBuf>,
    /// `--max-texture-memory`, in bytes (else the settings' value).
    pub texel_budget: Option<usize>,
}

/// Test hook: `FACET_TEST_DROP=N:PATH` delivers PATH at frame N exactly as
/// a file dropped on the window (Xvfb has no drag and drop to synthesise).
fn test_drop() -> Option<(u32, PathBuf)> {
    let v = std::env::var("FACET_TEST_DROP").ok()?;
    let (n, path) = v.split_once(':')?;
    Some((n.parse().ok()?, PathBuf::from(path)))
}

/// What the window starts with.
pub enum Start {
    /// A scene already loaded.
    Scene(Box<Scene>),
    /// A file to load once the window is up (on the loader thread, with a
    /// progress bar; a file that fails is reported in the window).
    Load(PathBuf),
}

pub fn run(start: Start, opts: AppOptions) -> anyhow::Result<()> {
    let event_loop = EventLoop::new()?;
    let (scene, initial) = match start {
        Start::Scene(s) => (*s, None),
        Start::Load(path) => {
            let mut placeholder = Scene::default();
            placeholder.source.file_name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            placeholder.source.format = "loading".into();
            (placeholder, Some(path))
        }
    };
    let mut app = App {
        pending: Some(scene),
        initial,
        test_drop: test_drop(),
        #[cfg(debug_assertions)]
        test_lose_device: std::env::var("FACET_TEST_LOSE_DEVICE")
            .ok()
            .and_then(|v| v.parse().ok()),
        opts,
        running: None,
        error: None,
    };
    event_loop.run_app(&mut app)?;
    if let Some(r) = &app.running {
        let tl = &r.ui.timeline;
        let state = if tl.playing { "playing" } else { "paused" };
        match tl.span(&r.scene) {
            Some(TimeSpan::Clip(c)) => log::info!(
                "at exit: clip {:?} frame {} ({:.3} s), {state}",
                c.name,
                tl.frame(c),
                tl.time,
            ),
            Some(span @ TimeSpan::Materials(_)) => log::info!(
                "at exit: materials frame {} ({:.3} s), {state}",
                tl.frame(&span),
                tl.time,
            ),
            None => log::info!("at exit: rest pose"),
        }
    }
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

struct App {
    pending: Option<Scene>,
    /// The file to open once the window is up.
    initial: Option<PathBuf>,
    opts: AppOptions,
    running: Option<Running>,
    error: Option<anyhow::Error>,
    test_drop: Option<(u32, PathBuf)>,
    /// `FACET_TEST_LOSE_DEVICE=N` (debug builds): the frame to lose the device at.
    #[cfg(debug_assertions)]
    test_lose_device: Option<u32>,
}

struct Running {
    window: Arc<Window>,
    gpu: Gpu,
    /// `None` only while a lost device is being replaced.
    surface: Option<wgpu::Surface<'static>>,
    config: wgpu::SurfaceConfiguration,
    renderer: Renderer,
    targets: Targets,
    scene: Scene,
    gpu_scene: GpuScene,
    camera: OrbitCamera,
    ui: UiState,
    animator: Animator,
    /// `ui.view` with the clip's visibility and material overrides applied.
    effective: crate::gpu::ViewOptions,
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    viewport: egui::Rect,
    drag: Option<MouseButton>,
    cursor: Option<(f64, f64)>,
    /// Where the pointer went down (a release nearby is a click).
    press_at: Option<(f64, f64)>,
    modifiers: ModifiersState,
    last_frame: Instant,
    frame: u32,
    /// The open file, watched for changes (reload on save).
    watch: Option<crate::watch::FileWatch>,
    /// Physical keys held down (fly mode moves while they are).
    held: std::collections::HashSet<winit::keyboard::KeyCode>,
    /// egui points to physical pixels, from the last frame.
    ppp: f32,
    /// Background, lighting and recent files, saved when they change.
    settings: crate::settings::Settings,
    settings_path: Option<PathBuf>,
    /// `--media` roots, tried before the settings' ones.
    cli_media_roots: Vec<PathBuf>,
    /// Decoded texels a file may take (`--max-texture-memory`, else the
    /// settings).
    texel_budget: usize,
    /// File -> Open's dialog while it is up.
    open_dialog: Option<crate::open_dialog::OpenDialog>,
    /// A file being decoded on its own thread.
    loading: Option<Loading>,
    /// The first file must load (automation): its failure ends the app.
    initial_must_load: bool,
    /// An error that ends the app at the next frame.
    fatal: Option<anyhow::Error>,
    /// Maps: what the overlay lines and draw ranges were built from.
    map_cache: MapCache,
}

type CubeRef = crate::scene::map_query::CubeRef;

/// The map's derived view state, rebuilt only when its inputs change (the
/// inputs are compared every frame; they are a few small values).
#[derive(Default)]
struct MapCache {
    /// (show visibility, selected sector, selected cube) -> what they see.
    shown_key: Option<ShownKey>,
    shown: Option<Vec<CubeRef>>,
    /// The overlay's inputs other than `shown`.
    overlay_key: Option<OverlayKey>,
    /// `shown_key` and the camera's cell.
    ranges_key: Option<(ShownKey, Option<CubeRef>)>,
    ranges: Option<Arc<Vec<Vec<std::ops::Range<u32>>>>>,
}

type ShownKey = (bool, Option<usize>, Option<CubeRef>);
/// Sector grid, selected sector, box depth, selected and hovered cube, props.
type OverlayKey = (
    bool,
    Option<usize>,
    Option<u32>,
    Option<CubeRef>,
    Option<CubeRef>,
    bool,
);

struct Loading {
    path: PathBuf,
    answer: std::sync::mpsc::Receiver<Result<load::Loaded, load::LoadError>>,
    /// Per mille, written by the loader.
    progress: Arc<std::sync::atomic::AtomicU32>,
    /// Frames drawn since it started.
    frames: u32,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        let Some(scene) = self.pending.take() else {
            return;
        };
        match Running::new(event_loop, scene) {
            Ok(mut r) => {
                r.cli_media_roots.clone_from(&self.opts.media_roots);
                r.texel_budget = self
                    .opts
                    .texel_budget
                    .unwrap_or((r.settings.max_texture_mib as usize).saturating_mul(1 << 20));
                if let Some(path) = self.initial.take() {
                    // Automation (--screenshot) fails on a file that does
                    // not load; a person sees why in the window.
                    r.initial_must_load = self.opts.screenshot.is_some();
                    r.open(path);
                }
                self.running = Some(r);
            }
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(r) = self.running.as_mut() else {
            return;
        };
        let consumed = r.egui_state.on_window_event(&r.window, &event).consumed;
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => r.resize(size.width, size.height),
            WindowEvent::ModifiersChanged(m) => r.modifiers = m.state(),
            WindowEvent::DroppedFile(path) => {
                log::info!("dropped {}", path.display());
                r.open(path)
            }
            WindowEvent::MouseInput { state, button, .. } => match state {
                ElementState::Pressed if r.pointer_in_view() => {
                    r.drag = Some(button);
                    r.press_at = r.cursor;
                }
                ElementState::Released => {
                    // A click (no drag) in the 3D view picks what is under it.
                    if let (Some(MouseButton::Left), Some(a), Some(b)) =
                        (r.drag, r.press_at, r.cursor)
                        && (a.0 - b.0).abs() + (a.1 - b.1).abs() < 4.0
                    {
                        r.pick();
                    }
                    r.drag = None;
                    r.press_at = None;
                }
                _ => {}
            },
            WindowEvent::CursorMoved { position, .. } => {
                if let (Some(button), Some((x, y))) = (r.drag, r.cursor) {
                    let (dx, dy) = ((position.x - x) as f32, (position.y - y) as f32);
                    let pan = button == MouseButton::Middle
                        || (button == MouseButton::Left && r.modifiers.shift_key());
                    if pan {
                        r.camera.pan(dx, dy, r.config.height as f32);
                    } else if button == MouseButton::Left && r.ui.fly {
                        r.camera.look(dx, dy);
                    } else if button == MouseButton::Left {
                        r.camera.orbit(dx, dy);
                    }
                }
                r.cursor = Some((position.x, position.y));
            }
            WindowEvent::MouseWheel { delta, .. } if r.pointer_in_view() => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                if r.ui.fly {
                    // In fly mode the wheel sets the speed.
                    r.ui.fly_speed = (r.ui.fly_speed * 1.2f32.powf(steps)).clamp(0.01, 100.0);
                } else {
                    let ndc = r.cursor_ndc();
                    let aspect = r.view_aspect();
                    r.camera.zoom_at(steps, ndc, aspect);
                }
            }
            WindowEvent::KeyboardInput {
                ref event,
                is_synthetic,
                ..
            } if !r.egui_ctx.egui_wants_keyboard_input() => {
                if let winit::keyboard::PhysicalKey::Code(code) = event.physical_key {
                    if event.state == ElementState::Pressed {
                        r.held.insert(code);
                    } else {
                        r.held.remove(&code);
                    }
                }
                // Synthetic presses are winit restating held keys when the
                // window gains focus, not the user pressing them: acting on
                // one would run a key's action twice (Space toggles back).
                if consumed || event.state != ElementState::Pressed || is_synthetic {
                    r.window.request_redraw();
                    return;
                }
                if r.modifiers.control_key()
                    && matches!(&event.logical_key, Key::Character(c) if c.eq_ignore_ascii_case("q"))
                {
                    event_loop.exit();
                    return;
                }
                r.key(&event.logical_key, event.repeat);
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = r.redraw(&self.opts) {
                    self.error = Some(e);
                    event_loop.exit();
                    return;
                }
                if self.opts.frames.is_some_and(|n| r.frame >= n) {
                    event_loop.exit();
                }
                if let Some((n, path)) = &self.test_drop
                    && r.frame == *n
                {
                    log::info!("dropped {} (FACET_TEST_DROP)", path.display());
                    r.open(path.clone());
                }
                // Test hook (debug builds only): FACET_TEST_LOSE_DEVICE=N
                // destroys the device at frame N, as a driver reset would.
                #[cfg(debug_assertions)]
                if self.test_lose_device == Some(r.frame) {
                    log::info!("destroying the GPU device (FACET_TEST_LOSE_DEVICE)");
                    r.gpu.device.destroy();
                }
            }
            _ => {}
        }
        r.window.request_redraw();
    }
}

/// egui's window state for `ctx`, its textures capped at the device's size.
fn egui_state(ctx: &egui::Context, window: &Window, gpu: &Gpu) -> egui_winit::State {
    egui_winit::State::new(
        ctx.clone(),
        egui::ViewportId::ROOT,
        window,
        Some(window.scale_factor() as f32),
        window.theme(),
        Some(gpu.device.limits().max_texture_dimension_2d as usize),
    )
}

/// Everything that lives on the GPU device: made when the window opens and
/// again when the device is lost.
struct GpuParts {
    gpu: Gpu,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    renderer: Renderer,
    targets: Targets,
    egui_renderer: egui_wgpu::Renderer,
    gpu_scene: GpuScene,
}

impl GpuParts {
    fn new(window: &Arc<Window>, scene: &Scene) -> anyhow::Result<GpuParts> {
        let (gpu, surface) = Gpu::for_window(window.clone())?;
        log::info!("rendering on {}", gpu.describe());
        let caps = surface.get_capabilities(&gpu.adapter);
        // egui wants a plain (gamma) format; the 3D pass writes an sRGB view of it.
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb())
            .unwrap_or(caps.formats[0]);
        let size = window.inner_size();
        let mut usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
        if caps.usages.contains(wgpu::TextureUsages::COPY_SRC) {
            usage |= wgpu::TextureUsages::COPY_SRC;
        }
        let config = wgpu::SurfaceConfiguration {
            usage,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: vec![format.add_srgb_suffix()],
        };
        surface.configure(&gpu.device, &config);
        let srgb = format.add_srgb_suffix();
        let renderer = Renderer::new(&gpu, srgb, gpu.sample_count(srgb));
        let targets = Targets::new(
            &gpu.device,
            config.width,
            config.height,
            srgb,
            renderer.sample_count,
        );
        let egui_renderer =
            egui_wgpu::Renderer::new(&gpu.device, format, egui_wgpu::RendererOptions::default());
        let gpu_scene = GpuScene::new(&gpu, &renderer, scene);
        Ok(GpuParts {
            gpu,
            surface,
            config,
            renderer,
            targets,
            egui_renderer,
            gpu_scene,
        })
    }
}

impl Running {
    fn new(event_loop: &ActiveEventLoop, scene: Scene) -> anyhow::Result<Running> {
        let attrs = Window::default_attributes()
            .with_title(format!("{} — facet", scene.source.file_name))
            .with_inner_size(winit::dpi::LogicalSize::new(1280.0, 800.0));
        let window = Arc::new(event_loop.create_window(attrs)?);
        let GpuParts {
            gpu,
            surface,
            config,
            renderer,
            targets,
            egui_renderer,
            gpu_scene,
        } = GpuParts::new(&window, &scene)?;
        let egui_ctx = egui::Context::default();
        let egui_state = egui_state(&egui_ctx, &window, &gpu);
        let aspect = config.width as f32 / config.height as f32;
        let camera = OrbitCamera::framing(&scene.bounds(None), aspect);
        let mut r = Running {
            window,
            gpu,
            surface: Some(surface),
            config,
            renderer,
            targets,
            ui: UiState::for_scene(&scene),
            animator: Animator::new(&scene),
            effective: Default::default(),
            scene,
            gpu_scene,
            camera,
            egui_ctx,
            egui_state,
            egui_renderer,
            viewport: egui::Rect::NOTHING,
            drag: None,
            cursor: None,
            press_at: None,
            modifiers: ModifiersState::empty(),
            last_frame: Instant::now(),
            frame: 0,
            watch: None,
            held: Default::default(),
            ppp: 1.0,
            settings: Default::default(),
            settings_path: crate::settings::path(),
            cli_media_roots: Vec::new(),
            texel_budget: load::DEFAULT_TEXEL_BUDGET,
            open_dialog: None,
            loading: None,
            initial_must_load: false,
            fatal: None,
            map_cache: MapCache::default(),
        };
        if let Some(p) = &r.settings_path {
            r.settings = crate::settings::Settings::load_from(p);
        }
        if let Some(p) = r.scene.source.path.clone() {
            r.settings.opened(&p);
            r.save_settings();
        }
        r.apply_settings();
        r.watch = r
            .scene
            .source
            .path
            .as_deref()
            .and_then(crate::watch::FileWatch::new);
        r.ui.log_warnings(&r.scene);
        r.register_textures();
        r.fit();
        Ok(r)
    }

    /// Renders the 3D view alone at `w` x `h` with this camera, pose, material
    /// time and view options and saves it in the current folder.
    fn save_render(&mut self, w: u32, h: u32) {
        let max = self.gpu.device.limits().max_texture_dimension_2d;
        if w > max || h > max {
            self.ui.report(
                ui::Level::Error,
                format!(
                    "a {w}x{h} render is larger than this GPU's textures ({max} pixels a side)"
                ),
            );
            return;
        }
        // The scene as uploaded, drawn once more offscreen: same pose,
        // time, camera and view as the window's last frame.
        let input = FrameInput {
            camera: &self.camera,
            time: self.ui.timeline.time,
            skin: &self.animator.pose.skin,
            view: &self.effective,
            selected_bone: self.ui.selected_bone,
        };
        let (gpu, renderer, scene) = (&self.gpu, &self.renderer, &mut self.gpu_scene);
        let img = match gpu
            .capture(|| crate::gpu::frame::render_to_image(gpu, renderer, scene, &input, w, h))
        {
            Ok((img, _)) => img,
            Err(e) => {
                self.ui
                    .report(ui::Level::Error, format!("render not saved: {e}"));
                return;
            }
        };
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let path = saved_file_path(&format!("facet-render-{w}x{h}-{secs}.png"));
        match img.save(&path) {
            Ok(()) => {
                log::info!("render saved to {}", path.display());
                self.ui.report(
                    ui::Level::Info,
                    format!("render saved to {}", path.display()),
                );
            }
            Err(e) => self
                .ui
                .report(ui::Level::Error, format!("{}: {e}", path.display())),
        }
    }

    /// Maps: rebuilds the meshes when the shading changes, uploads the
    /// overlay lines when what they show changes, and picks the draw ranges
    /// (what the selection sees, or what the camera's cell sees).
    fn update_map(&mut self) {
        use crate::scene::map_query;
        if std::mem::take(&mut self.ui.map.request_shading) {
            self.rebuild_map();
        }
        let Some(info) = self.scene.map.as_deref() else {
            self.map_cache.ranges = None;
            return;
        };
        let m = &self.ui.map;
        let c = &mut self.map_cache;
        let shown_key = (m.show_visibility, m.selected_sector, m.selected_cube);
        let shown_changed = c.shown_key != Some(shown_key);
        if shown_changed {
            c.shown = if m.show_visibility {
                m.viewpoint(&info.map)
            } else {
                None
            };
            c.shown_key = Some(shown_key);
        }
        let overlay_key = (
            m.show_sectors,
            m.selected_sector,
            m.box_depth,
            m.selected_cube,
            m.hovered_cube,
            m.show_props,
        );
        if shown_changed || c.overlay_key != Some(overlay_key) {
            let overlay = crate::gpu::map_overlay::MapOverlay {
                sectors: m.show_sectors,
                selected_sector: m.selected_sector,
                depth: m.box_depth,
                selected_cube: m.selected_cube,
                hovered_cube: m.hovered_cube,
                props: m.show_props,
                outline_visible_cubes: m.selected_cube.is_some(),
                visible: c.shown.clone(),
            };
            let lines = crate::gpu::map_overlay::lines(info, &overlay);
            self.gpu_scene.set_extra_lines(&self.gpu, &lines);
            c.overlay_key = Some(overlay_key);
        }
        let cell = if m.cull {
            map_query::cell_at(&info.map, self.camera.eye())
        } else {
            None
        };
        if c.ranges_key != Some((shown_key, cell)) {
            let wanted = c
                .shown
                .clone()
                .or_else(|| cell.map(|(s, k)| map_query::visible_cubes(&info.map, s, k)));
            c.ranges = wanted.map(|v| Arc::new(map_query::draw_ranges(info, &v)));
            c.ranges_key = Some((shown_key, cell));
        }
        let all = self.scene.triangle_count() as u64;
        let m = &mut self.ui.map;
        m.camera_cell = cell;
        m.triangles_all = all;
        m.triangles_drawn = self.ui.stats.triangles;
    }

    /// The map's meshes with the shading the inspector picked: colours and
    /// bindings change in place and the scene is uploaded again; if the GPU
    /// refuses, the shading it had comes back.
    fn rebuild_map(&mut self) {
        let Some(before) = self.scene.map.as_ref().map(|m| m.shading) else {
            return;
        };
        let shading = self.ui.map.shading;
        crate::scene::from_pmf::set_shading(&mut self.scene, shading);
        match GpuScene::try_new(&self.gpu, &self.renderer, &self.scene) {
            Ok(g) => self.gpu_scene = g,
            Err(e) => {
                crate::scene::from_pmf::set_shading(&mut self.scene, before);
                self.ui.map.shading = before;
                self.ui
                    .report(ui::Level::Error, format!("the GPU refused the map: {e}"));
                return;
            }
        }
        self.animator = Animator::new(&self.scene);
        self.register_textures();
    }

    /// File -> Open: the native dialog, one at a time, starting in the open
    /// file's folder.
    fn show_open_dialog(&mut self) {
        if self.open_dialog.is_some() {
            return;
        }
        let folder = self.scene.source.path.as_deref().and_then(|p| p.parent());
        let window = self.window.clone();
        match crate::open_dialog::OpenDialog::show(&self.window, folder, move || {
            window.request_redraw()
        }) {
            Ok(d) => self.open_dialog = Some(d),
            Err(e) => self
                .ui
                .report(ui::Level::Error, format!("the open dialog: {e}")),
        }
    }

    fn poll_open_dialog(&mut self) {
        use crate::open_dialog::Answer;
        let Some(dialog) = &self.open_dialog else {
            return;
        };
        match dialog.poll() {
            Answer::Waiting => {}
            Answer::Picked(path) => {
                self.open_dialog = None;
                log::info!("picked {} in the open dialog", path.display());
                self.open(path);
            }
            Answer::Cancelled => {
                self.open_dialog = None;
                if let Some(why) = crate::open_dialog::no_dialog_reason() {
                    self.ui.report(ui::Level::Error, why);
                }
            }
        }
    }

    /// Background, lighting, render size and recent files from the
    /// settings into the UI.
    fn apply_settings(&mut self) {
        self.ui.view.background = self.settings.background;
        self.ui.view.lighting = self.settings.lighting;
        self.ui.render_size = self.settings.render_size;
        self.ui.recent.clone_from(&self.settings.recent);
        self.ui.media_roots.clone_from(&self.settings.media_roots);
        self.ui.max_texture_mib = self.settings.max_texture_mib;
        self.ui.stock_media_roots = load::resolver::stock_media_roots();
    }

    /// How files load now: the command line's media roots, then the settings'.
    fn load_options(&self) -> load::LoadOptions {
        let mut media_roots = self.cli_media_roots.clone();
        for r in &self.settings.media_roots {
            if !media_roots.contains(r) {
                media_roots.push(r.clone());
            }
        }
        load::LoadOptions {
            media_roots,
            texel_budget: self.texel_budget,
            headers_only: false,
        }
    }

    fn save_settings(&mut self) {
        self.ui.recent.clone_from(&self.settings.recent);
        if let Some(p) = &self.settings_path
            && let Err(e) = self.settings.save_to(p)
        {
            log::warn!("{}: {e}; settings not saved", p.display());
        }
    }

    /// The texture viewer's level and channels as the shown texture.
    fn show_texture_view(&mut self) {
        let Some(level) = self.scene.mip_levels.get(self.ui.mip_level) else {
            return;
        };
        let mut tex = level.clone();
        self.ui.channel.apply(&mut tex.rgba8);
        tex.compressed = None;
        if let Some(t) = self.scene.textures.first_mut() {
            *t = tex;
        }
        match GpuScene::try_new(&self.gpu, &self.renderer, &self.scene) {
            Ok(g) => self.gpu_scene = g,
            Err(e) => {
                self.ui
                    .report(ui::Level::Error, format!("the GPU refused the level: {e}"));
                return;
            }
        }
        self.register_textures();
    }

    /// The device was lost (driver reset, GPU removed, or destroyed): make
    /// everything GPU-side again, keeping the scene, camera and interface.
    fn recover_device(&mut self) -> anyhow::Result<()> {
        log::warn!("recreating the GPU device after it was lost");
        // The window's old surface goes first: one surface per window.
        self.surface = None;
        let parts = GpuParts::new(&self.window, &self.scene).map_err(|e| {
            anyhow::anyhow!("the GPU device was lost and could not be recreated: {e}")
        })?;
        let (w, h) = (self.config.width, self.config.height);
        self.gpu = parts.gpu;
        self.surface = Some(parts.surface);
        self.config = parts.config;
        self.renderer = parts.renderer;
        self.targets = parts.targets;
        self.egui_renderer = parts.egui_renderer;
        self.gpu_scene = parts.gpu_scene;
        // egui sends its font atlas as deltas the new renderer never had:
        // its context starts over (the app's own UI state is kept).
        self.egui_ctx = egui::Context::default();
        self.egui_state = egui_state(&self.egui_ctx, &self.window, &self.gpu);
        self.ui.texture_ids.clear();
        self.ui.preview_id = None;
        self.resize(w, h);
        self.register_textures();
        log::warn!("the GPU device was recreated ({})", self.gpu.describe());
        self.ui.report(
            ui::Level::Warning,
            "the GPU device was lost and has been recreated",
        );
        Ok(())
    }

    fn register_textures(&mut self) {
        // Called after every new GPU scene: map overlays and ranges follow.
        self.map_cache = MapCache::default();
        for id in self.ui.texture_ids.drain(..).flatten() {
            self.egui_renderer.free_texture(&id);
        }
        if let Some(id) = self.ui.preview_id.take() {
            self.egui_renderer.free_texture(&id);
        }
        self.ui.preview_id = self.scene.preview.as_ref().map(|t| {
            let gt = crate::gpu::texture::upload_texture(
                &self.gpu, &t.name, t.width, t.height, &t.rgba8,
            );
            self.egui_renderer.register_native_texture(
                &self.gpu.device,
                &gt.ui_view,
                wgpu::FilterMode::Linear,
            )
        });
        self.ui.texture_ids = self
            .gpu_scene
            .textures
            .iter()
            .map(|t| {
                Some(self.egui_renderer.register_native_texture(
                    &self.gpu.device,
                    &t.ui_view,
                    wgpu::FilterMode::Nearest,
                ))
            })
            .collect();
    }

    fn view_aspect(&self) -> f32 {
        if self.viewport.is_positive() {
            self.viewport.width() / self.viewport.height()
        } else {
            self.config.width as f32 / self.config.height.max(1) as f32
        }
    }

    /// Frames the visible parts.
    fn fit(&mut self) {
        let mut b = self.scene.bounds(Some(&self.ui.view.visible));
        if b.is_empty() {
            b = self.scene.bounds(None);
        }
        let aspect = self.view_aspect();
        self.camera.fit(&b, aspect);
    }

    fn open(&mut self, path: PathBuf) {
        // An animation papa dropped on a model with a skeleton adds clips.
        if !self.scene.skeleton.bones.is_empty() && load::is_animation_papa(&path) {
            match load::add_animation_file(&mut self.scene, &path) {
                Ok(added) => {
                    log::info!("{}: added clip(s) {added:?}", path.display());
                    let last = self
                        .scene
                        .clips
                        .iter()
                        .position(|c| Some(&c.name) == added.first());
                    self.ui.timeline.select(last, &self.scene);
                }
                Err(e) => {
                    log::error!("{e}");
                    self.ui.report(ui::Level::Error, e.to_string());
                }
            }
            return;
        }
        if self.loading.is_some() {
            self.ui.report(
                ui::Level::Warning,
                format!("{}: still loading the previous file", path.display()),
            );
            return;
        }
        // Decoding runs on a thread of its own: the window keeps drawing
        // (and shows how far it is) while a large map loads.
        let progress = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let (tx, rx) = std::sync::mpsc::channel();
        let (p, w, file) = (progress.clone(), self.window.clone(), path.clone());
        let options = self.load_options();
        let spawned = std::thread::Builder::new()
            .name("load".into())
            .spawn(move || {
                let set = |f: f32| {
                    p.store((f.clamp(0.0, 1.0) * 1000.0) as u32, Ordering::Relaxed);
                };
                let _ = tx.send(load::load_file_with_progress(&file, &options, &set));
                w.request_redraw();
            });
        if let Err(e) = spawned {
            self.ui
                .report(ui::Level::Error, format!("{}: {e}", path.display()));
            return;
        }
        log::info!("loading {}", path.display());
        self.loading = Some(Loading {
            path,
            answer: rx,
            progress,
            frames: 0,
        });
    }

    /// A file loading in the background: its progress for the UI, and the
    /// result once it is there.
    fn poll_loading(&mut self) {
        let Some(l) = &mut self.loading else {
            self.ui.loading = None;
            return;
        };
        l.frames += 1;
        let name = l.path.file_name().map_or_else(
            || l.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let fraction = l.progress.load(Ordering::Relaxed) as f32 / 1000.0;
        self.ui.loading = Some((name, fraction));
        let result = match l.answer.try_recv() {
            Ok(r) => r,
            Err(std::sync::mpsc::TryRecvError::Empty) => return,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                let path = l.path.display().to_string();
                self.loading = None;
                self.ui.loading = None;
                self.ui
                    .report(ui::Level::Error, format!("{path}: the loader stopped"));
                return;
            }
        };
        let Some(Loading { path, frames, .. }) = self.loading.take() else {
            return;
        };
        self.ui.loading = None;
        log::info!("{} frames drawn while {} loaded", frames, path.display());
        self.opened(path, result);
    }

    fn opened(&mut self, path: PathBuf, result: Result<load::Loaded, load::LoadError>) {
        match result {
            Ok(l) => {
                // A file the GPU refuses is this file's load error; the
                // scene on screen stays.
                let gpu_scene = match GpuScene::try_new(&self.gpu, &self.renderer, &l.scene) {
                    Ok(g) => g,
                    Err(e) => {
                        let e = format!(
                            "{}: the GPU refused it: {e} (the previous scene is still shown)",
                            l.scene.source.file_name
                        );
                        log::error!("{e}");
                        if std::mem::take(&mut self.initial_must_load) {
                            self.fatal = Some(anyhow::anyhow!("{e}"));
                        }
                        self.ui.report(ui::Level::Error, e);
                        return;
                    }
                };
                self.window
                    .set_title(&format!("{} — facet", l.scene.source.file_name));
                self.gpu_scene = gpu_scene;
                self.ui = UiState {
                    show_inspector: self.ui.show_inspector,
                    show_log: self.ui.show_log,
                    log: std::mem::take(&mut self.ui.log),
                    toasts: std::mem::take(&mut self.ui.toasts),
                    ..UiState::for_scene(&l.scene)
                };
                self.ui.log_warnings(&l.scene);
                for w in &l.scene.warnings {
                    log::warn!("{}: {w}", l.scene.source.file_name);
                }
                for w in &self.gpu_scene.warnings {
                    let w = format!("{}: {w}", l.scene.source.file_name);
                    log::warn!("{w}");
                    self.ui.report(ui::Level::Warning, w);
                }
                self.apply_settings();
                self.settings.opened(&path);
                self.save_settings();
                self.animator = Animator::new(&l.scene);
                self.scene = l.scene;
                self.register_textures();
                self.camera = OrbitCamera::default();
                self.fit();
                self.watch = crate::watch::FileWatch::new(&path);
                // Last, so that whoever waits for this line (the Xvfb tests)
                // finds the scene, the timeline and the file watch in place.
                log::info!("opened {}", path.display());
            }
            Err(e) => {
                log::error!("{e}");
                if std::mem::take(&mut self.initial_must_load) {
                    self.fatal = Some(anyhow::anyhow!("{e}"));
                }
                self.ui.report(
                    ui::Level::Error,
                    format!("{e} (the previous scene is still shown)"),
                );
            }
        }
        self.initial_must_load = false;
    }

    /// The open file changed on disk: load it again, keeping the camera,
    /// the view options and the timeline (same clip by name, same time).
    /// A file that no longer loads leaves the last good scene on screen and
    /// says why.
    fn reload(&mut self) {
        let Some(path) = self.scene.source.path.clone() else {
            return;
        };
        match load::load_file_with(&path, &self.load_options()) {
            Ok(l) => {
                log::info!("reloaded {}", path.display());
                let clip_name = self
                    .ui
                    .timeline
                    .clip
                    .and_then(|c| self.scene.clips.get(c))
                    .map(|c| c.name.clone());
                let keep_parts = l.scene.meshes.len() == self.scene.meshes.len();
                let mut view = self.ui.view.clone();
                if !keep_parts {
                    view.visible = l.scene.meshes.iter().map(|m| m.visible).collect();
                }
                view.material_override.clear();
                let mut timeline = self.ui.timeline.clone();
                timeline.clip =
                    clip_name.and_then(|n| l.scene.clips.iter().position(|c| c.name == n));
                self.gpu_scene = match GpuScene::try_new(&self.gpu, &self.renderer, &l.scene) {
                    Ok(g) => g,
                    Err(e) => {
                        log::error!("reload failed, still showing the last good version: {e}");
                        self.ui.report(
                            ui::Level::Error,
                            format!(
                                "reloading failed; still showing the last good version: the GPU refused it: {e}"
                            ),
                        );
                        return;
                    }
                };
                self.animator = Animator::new(&l.scene);
                self.ui.view = view;
                self.ui.timeline = timeline;
                self.ui.report(
                    ui::Level::Info,
                    format!("reloaded {}", self.scene.source.file_name),
                );
                self.ui.selected_bone = self
                    .ui
                    .selected_bone
                    .filter(|&b| b < l.scene.skeleton.bones.len());
                self.ui.selected_part = self.ui.selected_part.filter(|_| keep_parts);
                self.ui.selected_material = self
                    .ui
                    .selected_material
                    .filter(|&m| m < l.scene.materials.len());
                self.scene = l.scene;
                self.ui.log_warnings(&self.scene);
                self.register_textures();
            }
            Err(e) => {
                log::error!("reload failed, still showing the last good version: {e}");
                self.ui.report(
                    ui::Level::Error,
                    format!("reloading failed; still showing the last good version: {e}"),
                );
            }
        }
    }

    /// The pointer is over the 3D view and no egui window, menu or widget
    /// is in the way or busy with it. (egui's `egui_wants_pointer_input`
    /// compares with the root UI's leftover rect, which is not the view
    /// when the inspector's content is wider than the panel.)
    fn pointer_in_view(&self) -> bool {
        let Some((x, y)) = self.cursor else {
            return false;
        };
        let p = egui::pos2(x as f32 / self.ppp, y as f32 / self.ppp);
        let background = self
            .egui_ctx
            .layer_id_at(p)
            .is_none_or(|l| l.order == egui::Order::Background);
        self.viewport.contains(p) && background && !self.egui_ctx.egui_is_using_pointer()
    }

    /// The cursor in normalised device coordinates of the 3D view.
    fn cursor_ndc(&self) -> glam::Vec2 {
        let Some((x, y)) = self.cursor else {
            return glam::Vec2::ZERO;
        };
        let vp = if self.viewport.is_positive() {
            egui::Rect::from_min_max(
                (self.viewport.min.to_vec2() * self.ppp).to_pos2(),
                (self.viewport.max.to_vec2() * self.ppp).to_pos2(),
            )
        } else {
            egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(self.config.width as f32, self.config.height as f32),
            )
        };
        glam::Vec2::new(
            ((x as f32 - vp.left()) / vp.width()) * 2.0 - 1.0,
            1.0 - ((y as f32 - vp.top()) / vp.height()) * 2.0,
        )
        .clamp(glam::Vec2::splat(-1.0), glam::Vec2::splat(1.0))
    }

    /// Maps: selects the sector and the cube under the cursor.
    fn pick(&mut self) {
        use crate::scene::map_query;
        let Some(info) = self.scene.map.as_deref() else {
            return;
        };
        let ndc = self.cursor_ndc();
        let inv = self.camera.view_proj(self.view_aspect()).inverse();
        let near = inv.project_point3(glam::Vec3::new(ndc.x, ndc.y, 0.0));
        let far = inv.project_point3(glam::Vec3::new(ndc.x, ndc.y, 1.0));
        match map_query::pick(&info.map, near, far - near) {
            Some((sector, triangle, _)) => {
                let cube = map_query::cube_of_triangle(&info.map, sector, triangle);
                log::info!(
                    "picked sector {:?}, triangle {triangle}, cube {cube:?}",
                    info.map.sector_coords(sector)
                );
                self.ui.map.selected_sector = Some(sector);
                self.ui.map.selected_cube = cube.map(|c| (sector, c));
                self.ui.show_inspector = true;
            }
            None => {
                log::info!("picked nothing (no map triangle under the cursor)");
                self.ui.map.selected_sector = None;
                self.ui.map.selected_cube = None;
            }
        }
    }

    /// Frames the selected bone (head to tail) or part, else the visible
    /// parts.
    fn fit_selection(&mut self) {
        let aspect = self.view_aspect();
        if let Some(part) = self.ui.selected_part.and_then(|p| self.scene.meshes.get(p)) {
            let bounds = part.bounds();
            if !bounds.is_empty() {
                self.camera.fit(&bounds, aspect);
                return;
            }
        }
        let Some((i, b)) = self
            .ui
            .selected_bone
            .and_then(|i| Some((i, self.scene.skeleton.bones.get(i)?)))
        else {
            self.fit();
            return;
        };
        let (head, tail) = match self.animator.pose.world.get(i) {
            Some(w) => {
                let m = *w * b.rest.inverse();
                (m.transform_point3(b.head), m.transform_point3(b.tail))
            }
            None => (b.head, b.tail),
        };
        let pad = glam::Vec3::splat(head.distance(tail).max(1e-3) * 0.5);
        let bounds = crate::scene::Aabb {
            min: head.min(tail) - pad,
            max: head.max(tail) + pad,
        };
        self.camera.fit(&bounds, aspect);
    }

    /// Fly mode: moves by the held W/A/S/D (and Q/E down/up) for `dt`.
    fn fly(&mut self, dt: f32) {
        use winit::keyboard::KeyCode as K;
        let axis = |plus: K, minus: K| {
            self.held.contains(&plus) as i32 as f32 - self.held.contains(&minus) as i32 as f32
        };
        let (f, r, u) = (
            axis(K::KeyW, K::KeyS),
            axis(K::KeyD, K::KeyA),
            axis(K::KeyE, K::KeyQ),
        );
        if f != 0.0 || r != 0.0 || u != 0.0 {
            let step = self.camera.scene_radius.max(1e-3) * self.ui.fly_speed * dt.min(0.1);
            self.camera.fly(f * step, r * step, u * step);
        }
    }

    /// A keyboard shortcut. Held keys repeat only for frame stepping: a
    /// toggle must not flip back because the key auto-repeated.
    fn key(&mut self, key: &Key, repeat: bool) {
        let stepping =
            matches!(key, Key::Character(c) if matches!(c.as_str(), "," | "." | "<" | ">"));
        if repeat && !stepping {
            return;
        }
        // In fly mode W/A/S/D/Q/E move the camera (see `fly`).
        if self.ui.fly
            && matches!(key, Key::Character(c) if matches!(c.to_ascii_lowercase().as_str(), "w" | "a" | "s" | "d" | "q" | "e"))
        {
            return;
        }
        let ctrl = self.modifiers.control_key();
        match key {
            Key::Character(c) if ctrl && c.eq_ignore_ascii_case("o") => self.show_open_dialog(),
            Key::Character(c) => match c.as_str() {
                "F" => self.fit_selection(),
                "f" if self.modifiers.shift_key() => self.fit_selection(),
                "f" => self.fit(),
                "1" | "!" => self.camera.set_view(if ctrl {
                    AxisView::Back
                } else {
                    AxisView::Front
                }),
                "3" | "#" => self.camera.set_view(if ctrl {
                    AxisView::Left
                } else {
                    AxisView::Right
                }),
                "7" | "&" => self.camera.set_view(if ctrl {
                    AxisView::Bottom
                } else {
                    AxisView::Top
                }),
                "5" | "%" => self.ui.ortho ^= true,
                "r" | "R" => {
                    self.camera = OrbitCamera::default();
                    self.fit();
                }
                "w" | "W" => self.ui.view.wireframe ^= true,
                "n" | "N" => self.ui.view.normals ^= true,
                "b" | "B" => self.ui.view.bounds ^= true,
                "g" | "G" => self.ui.view.grid ^= true,
                "k" | "K" => self.ui.view.skeleton ^= true,
                "l" | "L" => self.ui.show_labels ^= true,
                "," | "<" => self.step(-1),
                "." | ">" => self.step(1),
                "i" | "I" => self.ui.show_inspector ^= true,
                "?" => self.ui.show_help ^= true,
                _ => {}
            },
            Key::Named(NamedKey::F1) => self.ui.show_help ^= true,
            Key::Named(NamedKey::Escape) => {
                self.ui.select_bone(None);
                self.ui.select_part(None);
            }
            Key::Named(NamedKey::Tab) => self.ui.fly ^= true,
            Key::Named(NamedKey::Space) => {
                // The first press starts the first clip; later ones pause and
                // resume (clip or animated materials).
                if self.ui.timeline.clip.is_none() && !self.scene.clips.is_empty() {
                    self.ui.timeline.select(Some(0), &self.scene);
                } else if self.ui.timeline.span(&self.scene).is_some() {
                    self.ui.timeline.playing ^= true;
                }
            }
            Key::Named(NamedKey::Home) => self.ui.timeline.to_start(),
            Key::Named(NamedKey::End) => {
                if let Some(span) = self.ui.timeline.span(&self.scene) {
                    self.ui.timeline.to_end(&span);
                }
            }
            _ => {}
        }
    }

    fn step(&mut self, frames: i32) {
        if let Some(span) = self.ui.timeline.span(&self.scene) {
            self.ui.timeline.step(frames, &span);
        }
    }

    fn resize(&mut self, w: u32, h: u32) {
        if w == 0 || h == 0 {
            return;
        }
        self.config.width = w;
        self.config.height = h;
        if let Some(surface) = &self.surface {
            surface.configure(&self.gpu.device, &self.config);
        }
        self.targets = Targets::new(
            &self.gpu.device,
            w,
            h,
            self.renderer.color_format,
            self.renderer.sample_count,
        );
    }

    fn redraw(&mut self, opts: &AppOptions) -> anyhow::Result<()> {
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame).as_secs_f32();
        self.last_frame = now;
        // Exponential moving average of the frame time; fps derives from it.
        let ms = dt * 1000.0;
        self.ui.frame_ms = if self.ui.frame_ms == 0.0 {
            ms
        } else {
            self.ui.frame_ms * 0.9 + ms * 0.1
        };
        self.ui.fps = 1000.0 / self.ui.frame_ms.max(1e-3);

        // Polling runs the device's callbacks, the device-lost one too.
        let _ = self.gpu.device.poll(wgpu::PollType::Poll);
        if self.gpu.lost.load(Ordering::Relaxed) {
            self.recover_device()?;
        }
        let Some(surface) = &self.surface else {
            return Ok(());
        };
        let frame = match surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => f,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                surface.configure(&self.gpu.device, &self.config);
                return Ok(());
            }
            _ => return Ok(()),
        };

        if self.watch.as_mut().is_some_and(|w| w.poll()) {
            self.reload();
        }
        self.camera.ortho = self.ui.ortho;
        if self.ui.fly {
            self.fly(dt);
        }
        // UI first: it decides the 3D viewport and what is visible.
        let raw = self.egui_state.take_egui_input(&self.window);
        if let Some(span) = self.ui.timeline.span(&self.scene) {
            self.ui.timeline.advance(dt, &span);
        }
        self.ui.view_proj = self.camera.view_proj(self.view_aspect());
        let scene = &self.scene;
        let ui_state = &mut self.ui;
        let pose = (!scene.skeleton.bones.is_empty()).then_some(&self.animator.pose);
        let mut viewport = self.viewport;
        let out = self
            .egui_ctx
            .run_ui(raw, |ui| viewport = ui::show(ui, scene, ui_state, pose));
        self.viewport = viewport;
        self.egui_state
            .handle_platform_output(&self.window, out.platform_output);
        if let Some(p) = self.ui.request_open.take() {
            self.open(p);
        }
        if let Some((w, h)) = self.ui.request_render.take() {
            self.save_render(w, h);
        }
        let shown = (
            self.ui.view.background,
            self.ui.view.lighting,
            self.ui.render_size,
        );
        let kept = (
            self.settings.background,
            self.settings.lighting,
            self.settings.render_size,
        );
        if shown != kept {
            (
                self.settings.background,
                self.settings.lighting,
                self.settings.render_size,
            ) = shown;
            self.save_settings();
        }
        self.update_map();
        self.poll_loading();
        if std::mem::take(&mut self.ui.request_open_dialog) {
            self.show_open_dialog();
        }
        if std::mem::take(&mut self.ui.settings_changed) {
            self.settings.media_roots.clone_from(&self.ui.media_roots);
            if self.settings.max_texture_mib != self.ui.max_texture_mib {
                self.settings.max_texture_mib = self.ui.max_texture_mib;
                self.texel_budget = (self.ui.max_texture_mib as usize).saturating_mul(1 << 20);
            }
            self.save_settings();
        }
        self.poll_open_dialog();
        if std::mem::take(&mut self.ui.request_texture_view) {
            self.show_texture_view();
        }
        if std::mem::take(&mut self.ui.request_fit) {
            self.fit();
        }
        if std::mem::take(&mut self.ui.request_fit_selection) {
            self.fit_selection();
        }
        if std::mem::take(&mut self.ui.request_reset) {
            self.camera = OrbitCamera::default();
            self.fit();
        }

        let ppp = out.pixels_per_point;
        self.ppp = ppp;
        let (w, h) = (self.config.width as f32, self.config.height as f32);
        let vp = egui::Rect::from_min_max(
            (viewport.min.to_vec2() * ppp)
                .to_pos2()
                .max(egui::pos2(0.0, 0.0)),
            (viewport.max.to_vec2() * ppp)
                .to_pos2()
                .min(egui::pos2(w, h)),
        );
        let srgb_view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.config.format.add_srgb_suffix()),
            ..Default::default()
        });
        let view = frame
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            });
        // Pose on the CPU (bones are few), skinning on the GPU.
        let tl = &self.ui.timeline;
        self.animator
            .update(&self.scene, tl.clip, tl.time, &self.ui.view.visible);
        self.effective.copy_from(&self.ui.view);
        self.effective.selected_part = self.ui.selected_part;
        self.effective.ranges.clone_from(&self.map_cache.ranges);
        self.effective.visible.clone_from(&self.animator.visible);
        self.effective
            .material_override
            .clone_from(&self.animator.materials);
        let input = FrameInput {
            camera: &self.camera,
            time: tl.time,
            skin: &self.animator.pose.skin,
            view: &self.effective,
            selected_bone: self.ui.selected_bone,
        };
        let target = FrameTarget {
            targets: &self.targets,
            color: &srgb_view,
            viewport: vp
                .is_positive()
                .then(|| [vp.min.x, vp.min.y, vp.width(), vp.height()]),
        };
        self.ui.stats = crate::gpu::frame::record(
            &self.gpu,
            &self.renderer,
            &mut self.gpu_scene,
            &mut encoder,
            &target,
            &input,
        );

        let jobs = self.egui_ctx.tessellate(out.shapes, ppp);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: ppp,
        };
        let mut textures_delta = out.textures_delta;
        for (id, deltas) in textures_delta.set.drain() {
            for delta in deltas {
                self.egui_renderer
                    .update_texture(&self.gpu.device, &self.gpu.queue, id, &delta);
            }
        }
        let extra = self.egui_renderer.update_buffers(
            &self.gpu.device,
            &self.gpu.queue,
            &mut encoder,
            &jobs,
            &screen,
        );
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("egui"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            self.egui_renderer
                .render(&mut pass.forget_lifetime(), &jobs, &screen);
        }
        for id in textures_delta.free.drain() {
            self.egui_renderer.free_texture(&id);
        }
        // Frames count once nothing is loading, so `--frames N` means N
        // frames of the file, however long it took to load.
        if self.loading.is_none() {
            self.frame += 1;
        }
        if let Some(e) = self.fatal.take() {
            return Err(e);
        }
        let shoot = opts.frames.is_some_and(|n| self.frame >= n);
        let path = match (shoot, &opts.screenshot) {
            (true, Some(p)) => Some(p.clone()),
            _ if std::mem::take(&mut self.ui.request_screenshot) => {
                let secs = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                Some(saved_file_path(&format!("facet-screenshot-{secs}.png")))
            }
            _ => None,
        };
        if let Some(path) = &path {
            if !self.config.usage.contains(wgpu::TextureUsages::COPY_SRC) {
                anyhow::bail!("this surface cannot be read back for a screenshot");
            }
            self.gpu.queue.submit(extra);
            let img = crate::gpu::capture::read_texture(
                &self.gpu,
                encoder,
                &frame.texture,
                self.config.width,
                self.config.height,
            );
            img.save(path)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            log::info!("screenshot saved to {}", path.display());
            if !shoot {
                self.ui.report(
                    ui::Level::Info,
                    format!("screenshot saved to {}", path.display()),
                );
            }
        } else {
            self.gpu
                .queue
                .submit(extra.into_iter().chain([encoder.finish()]));
        }
        self.window.pre_present_notify();
        self.gpu.queue.present(frame);
        Ok(())
    }
}

/// Where the File menu saves `name`: the current folder, spelled out in
/// full so that the toast says exactly where it went.
fn saved_file_path(name: &str) -> PathBuf {
    std::path::absolute(name).unwrap_or_else(|_| PathBuf::from(name))
}
