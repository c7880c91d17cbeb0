//! The window, in rooms: this file is the frame (the event loop, the GPU
//! surface, one redraw: UI, actions, frame input, draw, present);
//! `input` turns keys and the mouse into camera moves, picks and actions;
//! `document` is the one way a file becomes the shown scene (open,
//! reload, in-place edits), with its background loader; `map` keeps a
//! map's derived view state. Beside them, the app's helpers: [`settings`]
//! (kept between sessions), [`watch`] (reload on save) and [`open_dialog`].

mod document;
mod input;
mod map;
pub mod open_dialog;
pub mod settings;
pub mod watch;

use crate::anim::Animator;
use crate::anim::timeline::TimeSpan;
use crate::app::settings::{WINDOW_SIDES, WindowPlacement};
use crate::gpu::capture::Targets;
use crate::gpu::{FrameInput, FrameTarget, Gpu, GpuScene, OrbitCamera, Renderer};
use crate::load;
use crate::scene::Scene;
use crate::ui::{self, UiAction, UiState};
use document::Loading;
use map::MapCache;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop, EventLoopProxy};
use winit::keyboard::ModifiersState;
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

/// Test hook (debug builds only): `FACET_TEST_DROP=N:PATH` delivers PATH at
/// frame N exactly as a file dropped on the window (Xvfb has no drag and
/// drop to synthesise).
fn test_drop() -> Option<(u32, PathBuf)> {
    if !cfg!(debug_assertions) {
        return None;
    }
    let v = std::env::var("FACET_TEST_DROP").ok()?;
    let (n, path) = v.split_once(':')?;
    Some((n.parse().ok()?, PathBuf::from(path)))
}

/// Test hook (debug builds only): `FACET_TEST_ACTIONS="N:ACTION;…"` carries
/// out interface actions at frame N, as the panels would ask for them
/// (the panels' own clicks are covered by the egui_kittest tests): `render
/// WxH [transparent]` (the File menu's size preset, then Save render),
/// `screenshot`, `export PATH` (File > Export glTF… once the dialog
/// answered PATH), `texture N` (a texture's *save*), `fit`, `reset`.
fn test_actions() -> Vec<(u32, UiAction)> {
    if !cfg!(debug_assertions) {
        return Vec::new();
    }
    let Ok(v) = std::env::var("FACET_TEST_ACTIONS") else {
        return Vec::new();
    };
    v.split(';')
        .filter_map(|item| {
            let (n, action) = item.trim().split_once(':')?;
            let (verb, arg) = action.split_once(' ').unwrap_or((action, ""));
            let action = match verb {
                "render" => {
                    let (w, h) = arg.split_once('x')?;
                    // "render WxH" or "render WxH transparent".
                    let (h, transparent) = match h.split_once(' ') {
                        Some((h, "transparent")) => (h, true),
                        Some(_) => return None,
                        None => (h, false),
                    };
                    UiAction::SaveRender {
                        width: w.parse().ok()?,
                        height: h.parse().ok()?,
                        transparent,
                    }
                }
                "screenshot" => UiAction::Screenshot,
                "export" => UiAction::ExportGltf(Some(PathBuf::from(arg))),
                "texture" => UiAction::SaveTexture(arg.parse().ok()?),
                "fit" => UiAction::Fit,
                "reset" => UiAction::ResetCamera,
                _ => return None,
            };
            Some((n.parse().ok()?, action))
        })
        .collect()
}

/// Test hook (debug builds only): `FACET_TEST_CLOSE_AFTER_MS=N` closes the
/// window N ms after the file it was given opened, however many frames it
/// drew (the window draws only when something changes; `--frames` would
/// draw continuously).
fn test_close_after() -> Option<std::time::Duration> {
    if !cfg!(debug_assertions) {
        return None;
    }
    let ms: u64 = std::env::var("FACET_TEST_CLOSE_AFTER_MS")
        .ok()?
        .parse()
        .ok()?;
    Some(std::time::Duration::from_millis(ms))
}

/// A longer wait after a frame that asked for no other is idle time, not a
/// frame's: frames that input brings closer together (a drag) are frames.
const IDLE_GAP: std::time::Duration = std::time::Duration::from_millis(250);

/// What a glTF export's thread answers: the files written and what the
/// export left out, or why it failed.
type ExportAnswer = Result<(Vec<PathBuf>, Vec<String>), String>;

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
        wake: event_loop.create_proxy(),
        pending: Some(scene),
        initial,
        test_drop: test_drop(),
        test_actions: test_actions(),
        test_close_after: test_close_after(),
        #[cfg(debug_assertions)]
        test_lose_device: std::env::var("FACET_TEST_LOSE_DEVICE")
            .ok()
            .and_then(|v| v.parse().ok()),
        opts,
        running: None,
        error: None,
    };
    event_loop.run_app(&mut app)?;
    if let Some(r) = &mut app.running {
        r.keep_placement();
        log::info!("{} frames drawn since the file opened", r.frame);
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
    /// Wakes the window from other threads (`user_event`); unlike a
    /// window's `request_redraw`, it is harmless once the loop has ended.
    wake: EventLoopProxy<()>,
    pending: Option<Scene>,
    /// The file to open once the window is up.
    initial: Option<PathBuf>,
    opts: AppOptions,
    running: Option<Running>,
    error: Option<anyhow::Error>,
    test_drop: Option<(u32, PathBuf)>,
    test_actions: Vec<(u32, UiAction)>,
    test_close_after: Option<std::time::Duration>,
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
    /// Shared with the loader thread, which uploads a file's scene.
    renderer: Arc<Renderer>,
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
    /// The last click in the 3D view (when, where), for double clicks.
    last_click: Option<(std::time::Instant, (f64, f64))>,
    modifiers: ModifiersState,
    last_frame: Instant,
    frame: u32,
    /// The open file, watched for changes (reload on save).
    watch: Option<crate::app::watch::FileWatch>,
    /// Physical keys held down (fly mode moves while they are).
    held: std::collections::HashSet<winit::keyboard::KeyCode>,
    /// egui points to physical pixels, from the last frame.
    ppp: f32,
    /// Background, lighting and recent files, saved when they change.
    settings: crate::app::settings::Settings,
    settings_path: Option<PathBuf>,
    /// The window's size out of full screen and maximised, and whether it
    /// is maximised: kept in the settings when the app ends.
    placement: WindowPlacement,
    /// `--media` roots, tried before the settings' ones.
    cli_media_roots: Vec<PathBuf>,
    /// Decoded texels a file may take (`--max-texture-memory`, else the
    /// settings).
    texel_budget: usize,
    /// File -> Open's dialog while it is up.
    open_dialog: Option<crate::app::open_dialog::OpenDialog>,
    /// File > Export glTF…: the save dialog, then the export's thread
    /// (where to, and its answer: files written and what was left out).
    export_dialog: Option<crate::app::open_dialog::OpenDialog>,
    export_job: Option<(PathBuf, std::sync::mpsc::Receiver<ExportAnswer>)>,
    /// A file being decoded on its own thread.
    loading: Option<Loading>,
    /// The file the last open asked for, loaded or not: PageDown and
    /// PageUp step on from it, so a file that fails is stepped past.
    asked: Option<PathBuf>,
    /// The first file must load (automation): its failure ends the app.
    initial_must_load: bool,
    /// An error that ends the app at the next frame.
    fatal: Option<anyhow::Error>,
    /// Maps: what the overlay lines and draw ranges were built from.
    map_cache: MapCache,
    /// File > Save screenshot: read the window back at the end of the frame.
    screenshot_requested: bool,
    /// When the next frame is due without an event (`None`: at the next
    /// event). Frames follow one another only while something moves.
    next_frame: Option<Instant>,
    /// Whether the last frame asked for the next at once: the time since
    /// it is then a frame's time, not an idle wait.
    continuous: bool,
    /// Every frame counts (`--frames`, the test hooks): draw continuously.
    automation: bool,
    /// When the last file opened (its scene shown).
    opened_at: Option<Instant>,
    wake: EventLoopProxy<()>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        let Some(scene) = self.pending.take() else {
            return;
        };
        match Running::new(event_loop, scene, self.wake.clone()) {
            Ok(mut r) => {
                r.cli_media_roots.clone_from(&self.opts.media_roots);
                r.texel_budget = self
                    .opts
                    .texel_budget
                    .unwrap_or((r.settings.max_texture_mib as usize).saturating_mul(1 << 20));
                r.automation = self.automated();
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
        let redraw = matches!(event, WindowEvent::RedrawRequested);
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                r.resize(size.width, size.height);
                r.track_placement(size);
            }
            WindowEvent::ModifiersChanged(m) => r.modifiers = m.state(),
            WindowEvent::DroppedFile(path) => {
                log::info!("dropped {}", path.display());
                r.open(path)
            }
            // Every mouse and key event goes through `input`; Ctrl+Q quits.
            WindowEvent::MouseInput { .. }
            | WindowEvent::CursorMoved { .. }
            | WindowEvent::MouseWheel { .. }
            | WindowEvent::KeyboardInput { .. }
                if r.input(&event, consumed) == input::Flow::Quit =>
            {
                event_loop.exit();
                return;
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
                let frame = r.frame;
                for (_, action) in self.test_actions.iter().filter(|(n, _)| *n == frame) {
                    log::info!("{action:?} (FACET_TEST_ACTIONS)");
                    if let UiAction::SaveRender {
                        width,
                        height,
                        transparent,
                    } = *action
                    {
                        r.ui.render_size = (width, height);
                        r.ui.render_transparent = transparent;
                    }
                    r.act(action.clone());
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
        // Input and window changes are drawn at once; after a frame, the
        // frame said when the next is due (`about_to_wait`).
        if !redraw {
            r.window.request_redraw();
        }
    }

    /// Another thread woke the window ([`Running::waker`]): draw a frame,
    /// which polls what it finished.
    fn user_event(&mut self, _: &ActiveEventLoop, (): ()) {
        if let Some(r) = &self.running {
            r.window.request_redraw();
        }
    }

    /// The window sleeps until an event, or until the frame the last one
    /// asked for is due: a file left open draws nothing.
    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(r) = self.running.as_ref() else {
            return;
        };
        let now = Instant::now();
        let close_at = self
            .test_close_after
            .and_then(|d| r.opened_at?.checked_add(d));
        if close_at.is_some_and(|t| t <= now) {
            log::info!("closing (FACET_TEST_CLOSE_AFTER_MS)");
            event_loop.exit();
            return;
        }
        let next = match r.next_frame {
            Some(t) if t <= now => {
                r.window.request_redraw();
                None
            }
            t => t,
        };
        event_loop.set_control_flow(match next.into_iter().chain(close_at).min() {
            Some(t) => ControlFlow::WaitUntil(t),
            None => ControlFlow::Wait,
        });
    }
}

impl App {
    /// Whether frames are counted by something outside (`--frames`, the
    /// test hooks): every frame then follows the last at once.
    fn automated(&self) -> bool {
        let hooks = self.test_drop.is_some() || !self.test_actions.is_empty();
        #[cfg(debug_assertions)]
        let hooks = hooks || self.test_lose_device.is_some();
        self.opts.frames.is_some() || hooks
    }
}

/// The window's size and state to open with: the settings' (the last
/// session's), no larger than the primary monitor where it is known (a
/// size kept on a larger screen still fits).
fn opening_placement(saved: WindowPlacement, event_loop: &ActiveEventLoop) -> WindowPlacement {
    let mut p = saved;
    if let Some(m) = event_loop.primary_monitor() {
        let screen = m.size().to_logical::<f64>(m.scale_factor());
        let fit = |side: u32, screen: f64| side.min((screen as u32).max(*WINDOW_SIDES.start()));
        p.size = (fit(p.size.0, screen.width), fit(p.size.1, screen.height));
    }
    p
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
    renderer: Arc<Renderer>,
    targets: Targets,
    egui_renderer: egui_wgpu::Renderer,
    gpu_scene: GpuScene,
}

/// The surface's format and the 3D pass's (sRGB) format, from the formats
/// the surface offers. egui wants a plain (gamma) format, and where views
/// of a surface may change its format (Vulkan, Metal, D3D12) the 3D pass
/// writes an sRGB view of a plain surface. GL, the fallback where there is
/// no Vulkan driver, does not allow that (`SURFACE_VIEW_FORMATS`): there
/// the surface is sRGB and both passes draw into it (egui-wgpu has a
/// fragment path for an sRGB target).
fn surface_formats(
    offered: &[wgpu::TextureFormat],
    views_reformat: bool,
) -> (wgpu::TextureFormat, wgpu::TextureFormat) {
    let plain = offered.iter().copied().find(|f| !f.is_srgb());
    let srgb = offered.iter().copied().find(|f| f.is_srgb());
    match (views_reformat, plain, srgb) {
        (true, Some(p), _) => (p, p.add_srgb_suffix()),
        (false, _, Some(s)) => (s, s),
        // No sRGB format to draw into: the 3D pass writes the plain one
        // (its colours come out darker than they should).
        _ => {
            let f = plain.unwrap_or(offered[0]);
            log::warn!(
                "the window's surface offers no sRGB format ({offered:?}): colours will be off"
            );
            (f, f)
        }
    }
}

impl GpuParts {
    fn new(window: &Arc<Window>, scene: &Scene) -> anyhow::Result<GpuParts> {
        let (gpu, surface) = Gpu::for_window(window.clone())?;
        log::info!("rendering on {}", gpu.describe());
        let caps = surface.get_capabilities(&gpu.adapter);
        let (format, srgb) = surface_formats(
            &caps.formats,
            gpu.adapter
                .get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::SURFACE_VIEW_FORMATS),
        );
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
            view_formats: if srgb == format { vec![] } else { vec![srgb] },
        };
        surface.configure(&gpu.device, &config);
        let renderer = Arc::new(Renderer::new(&gpu, srgb, gpu.sample_count(srgb)));
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
    fn new(
        event_loop: &ActiveEventLoop,
        scene: Scene,
        wake: EventLoopProxy<()>,
    ) -> anyhow::Result<Running> {
        let settings_path = crate::app::settings::path();
        let settings = settings_path
            .as_deref()
            .map(crate::app::settings::Settings::load_from)
            .unwrap_or_default();
        let placement = opening_placement(settings.window, event_loop);
        let attrs = Window::default_attributes()
            .with_title(format!("{} — facet", scene.source.file_name))
            .with_inner_size(winit::dpi::LogicalSize::new(
                placement.size.0,
                placement.size.1,
            ))
            .with_maximized(placement.maximized);
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
        // Names in real files are in any script (transport.papa's mesh is
        // "平面"): characters egui's bundled fonts lack are drawn with the
        // system's fonts for them (fontconfig; found on a thread of their
        // own), not as boxes.
        egui_ctx.add_font_provider(Arc::new(
            egui_system_font_provider::SystemFontProvider::new(),
        ));
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
            last_click: None,
            modifiers: ModifiersState::empty(),
            last_frame: Instant::now(),
            frame: 0,
            watch: None,
            held: Default::default(),
            ppp: 1.0,
            settings,
            settings_path,
            placement,
            cli_media_roots: Vec::new(),
            texel_budget: load::DEFAULT_TEXEL_BUDGET,
            open_dialog: None,
            export_dialog: None,
            export_job: None,
            loading: None,
            asked: None,
            initial_must_load: false,
            fatal: None,
            map_cache: MapCache::default(),
            screenshot_requested: false,
            next_frame: Some(Instant::now()),
            wake,
            continuous: false,
            automation: false,
            opened_at: None,
        };
        if let Some(p) = r.scene.source.path.clone() {
            r.settings.opened(&p);
            r.save_settings();
        }
        r.apply_settings();
        let wake = r.waker();
        r.watch = r
            .scene
            .source
            .path
            .as_deref()
            .and_then(|p| crate::app::watch::FileWatch::new(p, wake));
        r.ui.log_warnings(&r.scene);
        r.register_textures();
        r.fit();
        Ok(r)
    }

    /// Carries out what the interface (or a shortcut) asked for.
    fn act(&mut self, action: UiAction) {
        match action {
            UiAction::Open(path) => self.open(path),
            UiAction::OpenDialog => self.show_open_dialog(),
            UiAction::OpenBeside(direction) => self.open_beside(direction),
            // Taken at the end of the frame, once the window is drawn.
            UiAction::Screenshot => self.screenshot_requested = true,
            UiAction::ExportGltf(target) => self.export_gltf(target),
            UiAction::SaveRender {
                width,
                height,
                transparent,
            } => self.save_render(width, height, transparent),
            UiAction::SaveTexture(i) => self.save_texture(i),
            UiAction::Fit => self.fit(),
            UiAction::FitSelection => self.fit_selection(),
            UiAction::ResetCamera => {
                self.camera = OrbitCamera::default();
                self.fit();
            }
            UiAction::ShowTextureLevel => self.show_texture_view(),
            UiAction::MapShading => self.rebuild_map(),
            UiAction::SettingsChanged => self.settings_edited(),
            UiAction::FullScreen => self.toggle_full_screen(),
            UiAction::LookFrom(v) => self.camera.set_view(v),
        }
    }

    /// Renders the 3D view alone at `w` x `h` with this camera, pose, material
    /// time and view options and saves it in the current folder.
    /// Writes scene texture `i` as a PNG in the current folder, named
    /// after it (its file name's stem, with what a file name cannot hold
    /// replaced).
    fn save_texture(&mut self, i: usize) {
        let Some(t) = self.scene.textures.get(i) else {
            return;
        };
        let Some(image) = t.to_image() else {
            let text = format!("texture {:?} not saved: no decoded texels", t.name);
            self.ui.report(ui::Level::Error, text);
            return;
        };
        let path = saved_file_path(&texture_file_stem(&t.name));
        match crate::gpu::capture::save(&image, &path) {
            Ok(()) => {
                let text = format!("texture {:?} saved to {}", t.name, path.display());
                log::info!("{text}");
                self.ui.report(ui::Level::Info, text);
            }
            Err(e) => self.ui.report(ui::Level::Error, e),
        }
    }

    fn save_render(&mut self, w: u32, h: u32, transparent: bool) {
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
        // time, camera and view as the window's last frame (transparent:
        // no background, no grid).
        let mut view = self.effective.clone();
        if transparent {
            view.background = [0.0; 4];
            view.grid = false;
        }
        let input = FrameInput {
            camera: &self.camera,
            time: self.ui.timeline.time,
            skin: &self.animator.pose.skin,
            view: &view,
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
        let path = saved_file_path(&format!("facet-render-{w}x{h}"));
        match crate::gpu::capture::save(&img, &path) {
            Ok(()) => {
                log::info!("render saved to {}", path.display());
                self.ui.report(
                    ui::Level::Info,
                    format!("render saved to {}", path.display()),
                );
            }
            Err(e) => self.ui.report(ui::Level::Error, e),
        }
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

    /// Follows the window's size while it is neither maximised nor full
    /// screen (the size it returns to), and whether it is maximised.
    fn track_placement(&mut self, size: winit::dpi::PhysicalSize<u32>) {
        if self.window.fullscreen().is_some() || size.width == 0 || size.height == 0 {
            return;
        }
        self.placement.maximized = self.window.is_maximized();
        if !self.placement.maximized {
            let logical = size.to_logical::<f64>(self.window.scale_factor());
            self.placement.size = (
                (logical.width.round() as u32).clamp(*WINDOW_SIDES.start(), *WINDOW_SIDES.end()),
                (logical.height.round() as u32).clamp(*WINDOW_SIDES.start(), *WINDOW_SIDES.end()),
            );
        }
    }

    /// The window's size and state kept for the next start, when they
    /// changed. The file is read again first: another Facet window may have
    /// saved its recent files since, and only the size is this one's to set.
    fn keep_placement(&mut self) {
        if self.settings.window != self.placement {
            if let Some(p) = &self.settings_path {
                self.settings = crate::app::settings::Settings::load_from(p);
            }
            self.settings.window = self.placement;
            log::info!(
                "window {}x{}{} kept for the next start",
                self.placement.size.0,
                self.placement.size.1,
                if self.placement.maximized {
                    ", maximised,"
                } else {
                    ""
                }
            );
            self.save_settings();
        }
    }

    /// F11, View > Full screen: borderless on the window's monitor, or back.
    fn toggle_full_screen(&mut self) {
        let on = self.window.fullscreen().is_none();
        self.window
            .set_fullscreen(on.then_some(winit::window::Fullscreen::Borderless(None)));
        log::info!("full screen {}", if on { "on" } else { "off" });
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

    /// One frame: the clock, the device's callbacks, the surface's texture,
    /// the UI and its actions, then the 3D view and the UI drawn into it (or
    /// offscreen, for a screenshot the surface cannot give), a screenshot
    /// saved where one is due, and the frame presented.
    fn redraw(&mut self, opts: &AppOptions) -> anyhow::Result<()> {
        let now = Instant::now();
        let dt = self.tick(now);
        // Polling runs the device's callbacks, the device-lost one too.
        let _ = self.gpu.device.poll(wgpu::PollType::Poll);
        if self.gpu.lost.load(Ordering::Relaxed) {
            self.recover_device()?;
        }
        let Some(frame) = self.acquire() else {
            return Ok(());
        };
        let out = self.run_ui(dt);
        let repaint = out
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .map_or(std::time::Duration::MAX, |v| v.repaint_delay);
        let ppp = out.pixels_per_point;
        self.ppp = ppp;
        let vp = self.viewport_pixels(ppp);
        // Frames count once nothing is loading, so `--frames N` means N
        // frames of the file, however long it took to load.
        if self.loading.is_none() {
            self.frame += 1;
        }
        // Whether this frame is saved, decided before it is drawn: a surface
        // that cannot be read back (GL's) is drawn offscreen for it.
        let shoot = opts.frames.is_some_and(|n| self.frame >= n);
        let path = self.screenshot_path(shoot, opts);
        let offscreen = (path.is_some()
            && !self.config.usage.contains(wgpu::TextureUsages::COPY_SRC))
        .then(|| self.screenshot_texture());
        let drawn = offscreen.as_ref().unwrap_or(&frame.texture);
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            });
        self.record_scene(&mut encoder, drawn, vp);
        let extra = self.record_ui(&mut encoder, drawn, out.shapes, out.textures_delta, ppp);
        if let Some(e) = self.fatal.take() {
            return Err(e);
        }
        if let Some(path) = &path {
            self.gpu.queue.submit(extra);
            let img = crate::gpu::capture::read_texture(
                &self.gpu,
                encoder,
                drawn,
                self.config.width,
                self.config.height,
            );
            self.save_screenshot(&img, path, shoot)?;
        } else {
            self.gpu
                .queue
                .submit(extra.into_iter().chain([encoder.finish()]));
        }
        if offscreen.is_some() {
            // The surface was not drawn this time: not shown, and the next
            // frame comes at once.
            drop(frame);
            return Ok(());
        }
        self.window.pre_present_notify();
        self.gpu.queue.present(frame);
        self.next_frame = self.frame_due(now, repaint);
        let continuous = self.next_frame == Some(now);
        if self.continuous && !continuous {
            log::debug!("idle after frame {}", self.frame);
        }
        self.continuous = continuous;
        Ok(())
    }

    /// The time since the last frame (0 after an idle wait) and the frame
    /// rate's average, for a frame drawn at `now`.
    fn tick(&mut self, now: Instant) -> f32 {
        // After an idle wait nothing moved: animation and flight advance by
        // frame times only, and the rate restarts (0 shows as idle). Frames
        // that input brings close together (a drag) keep their rate.
        let since = now.duration_since(self.last_frame);
        let dt = if self.continuous || since < IDLE_GAP {
            since.as_secs_f32()
        } else {
            0.0
        };
        self.last_frame = now;
        // A frame that returns early (the surface is being remade) is
        // followed by another at once.
        self.next_frame = Some(now);
        self.continuous = true;
        // Exponential moving average of the frame time; fps derives from it.
        let ms = dt * 1000.0;
        self.ui.frame_ms = if self.ui.frame_ms == 0.0 || dt == 0.0 {
            ms
        } else {
            self.ui.frame_ms * 0.9 + ms * 0.1
        };
        self.ui.fps = if dt > 0.0 {
            1000.0 / self.ui.frame_ms.max(1e-3)
        } else {
            0.0
        };
        dt
    }

    /// The surface's next texture; none without a surface, or while it is
    /// being remade (configured again here when outdated or lost).
    fn acquire(&self) -> Option<wgpu::SurfaceTexture> {
        let surface = self.surface.as_ref()?;
        match surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => Some(f),
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                surface.configure(&self.gpu.device, &self.config);
                None
            }
            _ => None,
        }
    }

    /// The frame's UI, after a reload the watcher asks for and the camera's
    /// flight and the timeline moved by `dt`: run, its actions carried out,
    /// then what is polled (map state, the loader, the open dialog, an
    /// export). Its output, for drawing.
    fn run_ui(&mut self, dt: f32) -> egui::FullOutput {
        if self.watch.as_mut().is_some_and(|w| w.poll()) {
            self.reload();
        }
        self.camera.ortho = self.ui.ortho;
        if self.ui.fly {
            self.fly(dt);
        } else if self.ui.turntable {
            // After an idle wait `dt` is the wait: no jump.
            self.camera.yaw += dt.min(0.1) * TURNTABLE_RATE;
        }
        // UI first: it decides the 3D viewport and what is visible.
        let raw = self.egui_state.take_egui_input(&self.window);
        if let Some(span) = self.ui.timeline.span(&self.scene) {
            self.ui.timeline.advance(dt, &span);
        }
        self.ui.view_proj = self.camera.view_proj(self.view_aspect());
        self.ui.camera_view = self.camera.view();
        let scene = &self.scene;
        let ui_state = &mut self.ui;
        let pose = (!scene.skeleton.bones.is_empty()).then_some(&self.animator.pose);
        let (mut viewport, mut actions) = (self.viewport, Vec::new());
        let mut out = self.egui_ctx.run_ui(raw, |ui| {
            let shown = ui::show(ui, scene, ui_state, pose);
            viewport = shown.viewport;
            actions.extend(shown.actions);
        });
        self.viewport = viewport;
        self.egui_state
            .handle_platform_output(&self.window, std::mem::take(&mut out.platform_output));
        for action in actions {
            self.act(action);
        }
        self.keep_view_settings();
        self.update_map();
        self.poll_loading();
        self.poll_open_dialog();
        self.poll_export();
        out
    }

    /// The 3D viewport the UI left, in the surface's pixels.
    fn viewport_pixels(&self, ppp: f32) -> egui::Rect {
        let (w, h) = (self.config.width as f32, self.config.height as f32);
        let viewport = self.viewport;
        egui::Rect::from_min_max(
            (viewport.min.to_vec2() * ppp)
                .to_pos2()
                .max(egui::pos2(0.0, 0.0)),
            (viewport.max.to_vec2() * ppp)
                .to_pos2()
                .min(egui::pos2(w, h)),
        )
    }

    /// Where this frame is saved, if it is: `--screenshot` once `shoot`
    /// (its frame count reached), else a person's request, to a new file.
    fn screenshot_path(&mut self, shoot: bool, opts: &AppOptions) -> Option<PathBuf> {
        match (shoot, &opts.screenshot) {
            (true, Some(p)) => Some(p.clone()),
            _ if std::mem::take(&mut self.screenshot_requested) => {
                Some(saved_file_path("facet-screenshot"))
            }
            _ => None,
        }
    }

    /// A texture like the surface's that can be read back: the frame is
    /// drawn there for a screenshot where the surface cannot be (GL's).
    fn screenshot_texture(&self) -> wgpu::Texture {
        self.gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("screenshot"),
            size: wgpu::Extent3d {
                width: self.config.width,
                height: self.config.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: self.config.format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &self.config.view_formats,
        })
    }

    /// The 3D view at the timeline's pose, into `vp` (surface pixels; the
    /// whole target when empty) of `drawn`.
    fn record_scene(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        drawn: &wgpu::Texture,
        vp: egui::Rect,
    ) {
        // The 3D pass's view: the sRGB one configured beside the surface's
        // own format, or the surface itself where that is sRGB already.
        let srgb_view = drawn.create_view(&wgpu::TextureViewDescriptor {
            format: self.config.view_formats.first().copied(),
            ..Default::default()
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
        let colors =
            crate::gpu::upload::VertexColors::for_view(&self.ui.view, self.ui.selected_bone);
        self.gpu_scene
            .show_vertex_colors(&self.gpu.queue, &self.scene, colors);
        self.ui.stats = crate::gpu::frame::record(
            &self.gpu,
            &self.renderer,
            &mut self.gpu_scene,
            encoder,
            &target,
            &input,
        );
    }

    /// The UI over the 3D view in `drawn`: its textures updated, its
    /// shapes drawn, the textures it let go freed. The command buffers
    /// egui's callbacks made, to submit before `encoder`'s.
    fn record_ui(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        drawn: &wgpu::Texture,
        shapes: Vec<egui::epaint::ClippedShape>,
        mut textures_delta: egui::TexturesDelta,
        ppp: f32,
    ) -> Vec<wgpu::CommandBuffer> {
        let view = drawn.create_view(&wgpu::TextureViewDescriptor::default());
        let jobs = self.egui_ctx.tessellate(shapes, ppp);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: ppp,
        };
        for (id, deltas) in textures_delta.set.drain() {
            for delta in deltas {
                self.egui_renderer
                    .update_texture(&self.gpu.device, &self.gpu.queue, id, &delta);
            }
        }
        let extra = self.egui_renderer.update_buffers(
            &self.gpu.device,
            &self.gpu.queue,
            encoder,
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
        extra
    }

    /// Writes the frame read back to `path`. A `--screenshot` (`shoot`)
    /// that fails is the session's error; a person's key press is told
    /// why (and of success) and the window goes on.
    fn save_screenshot(
        &mut self,
        img: &image::RgbaImage,
        path: &std::path::Path,
        shoot: bool,
    ) -> anyhow::Result<()> {
        match crate::gpu::capture::save(img, path) {
            Ok(()) => {
                log::info!("screenshot saved to {}", path.display());
                if !shoot {
                    self.ui.report(
                        ui::Level::Info,
                        format!("screenshot saved to {}", path.display()),
                    );
                }
            }
            Err(e) if shoot => anyhow::bail!("{e}"),
            Err(e) => {
                let why = format!("screenshot not saved: {e}");
                log::error!("{why}");
                self.ui.report(ui::Level::Error, why);
            }
        }
        Ok(())
    }

    /// When the frame after this one (drawn at `now`) is due without an
    /// event: at once while something moves (a clip or material animation
    /// playing, flight, the turntable, a file loading with its progress bar, automation,
    /// egui's own animations); when egui or a changed file asks for it
    /// later; else at the next event (input, a loader, dialog or export
    /// finishing, a change in the open file's folder).
    fn frame_due(&self, now: Instant, egui_delay: std::time::Duration) -> Option<Instant> {
        let moving = self.automation
            || self.ui.timeline.playing
            || (self.ui.fly && !self.held.is_empty())
            || (self.ui.turntable && !self.ui.fly)
            || self.loading.is_some()
            || egui_delay.is_zero();
        if moving {
            return Some(now);
        }
        let egui = now.checked_add(egui_delay);
        let watch = self.watch.as_ref().and_then(|w| w.due());
        egui.into_iter().chain(watch).min()
    }

    /// Something that wakes the window from another thread (its next
    /// frame polls what changed); a no-op once the window has closed.
    pub(super) fn waker(&self) -> impl Fn() + Send + 'static {
        let wake = self.wake.clone();
        move || {
            let _ = wake.send_event(());
        }
    }
}

/// The turntable's speed: a turn every 12 seconds, in radians a second.
const TURNTABLE_RATE: f32 = std::f32::consts::TAU / 12.0;

/// Where the File menu (and F12) saves an image named `stem`: in the
/// current folder, `STEM-SECONDS.png` (the Unix time), `STEM-SECONDS-2.png`
/// and on where that is taken (two saves within a second), spelled out in
/// full so that the toast says exactly where it went.
/// A texture's name as a file name's stem: the last part of a path (PA
/// names textures by their media path), its extension dropped, anything
/// but letters, digits, `-` and `_` made `_`; `texture` for none.
fn texture_file_stem(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base.rsplit_once('.').map_or(base, |(s, _)| s);
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() {
        "texture".into()
    } else {
        clean
    }
}

fn saved_file_path(stem: &str) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let named = |n: u32| {
        let name = match n {
            1 => format!("{stem}-{secs}.png"),
            n => format!("{stem}-{secs}-{n}.png"),
        };
        std::path::absolute(&name).unwrap_or_else(|_| PathBuf::from(name))
    };
    (1..=1000)
        .map(named)
        .find(|p| !p.exists())
        .unwrap_or_else(|| named(1))
}

#[cfg(test)]
mod tests {
    use super::texture_file_stem;

    #[test]
    fn a_texture_s_name_makes_a_file_name() {
        assert_eq!(
            texture_file_stem("/pa/units/land/bot_aa/bot_aa_diffuse.png"),
            "bot_aa_diffuse"
        );
        assert_eq!(texture_file_stem("C:\\tex\\wall 2.tga"), "wall_2");
        assert_eq!(texture_file_stem("embedded 0"), "embedded_0");
        assert_eq!(texture_file_stem("平面.ptf"), "平面");
        assert_eq!(texture_file_stem("../.."), "_");
        assert_eq!(texture_file_stem(""), "texture");
        assert_eq!(texture_file_stem("a/"), "texture");
    }
}
