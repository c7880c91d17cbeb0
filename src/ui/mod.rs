//! egui panels over the 3D view: toolbar, inspector, status. They read the
//! [`Scene`] and edit [`UiState`]; the app applies what they ask for.

pub mod axes;
pub mod filter;
pub mod inspector;
pub mod labels;
pub mod map;
pub mod material;
pub mod measure;
pub mod numbers;
pub mod timeline;
pub mod uvs;
pub mod vertex;

use crate::anim::timeline::Timeline;
use crate::gpu::{FrameStats, ViewOptions};
use crate::scene::Scene;

/// What the panels show and edit; owned by the app.
#[derive(Debug, Clone, Default)]
pub struct UiState {
    pub view: ViewOptions,
    pub stats: FrameStats,
    /// Frames a second and the frame time, averaged while frames follow
    /// one another; 0 after an idle wait.
    pub fps: f32,
    pub frame_ms: f32,
    /// egui ids of the scene's textures (previews), when registered.
    pub texture_ids: Vec<Option<egui::TextureId>>,
    /// The selection (one bone or one part): the inspector shows it, the
    /// 3D view outlines it, Shift+F frames it.
    pub selected_bone: Option<usize>,
    pub selected_part: Option<usize>,
    /// The selection was made in the 3D view: the inspector's next frame
    /// opens its section (and a bone's ancestors) and scrolls to it, then
    /// clears this.
    pub reveal_selection: bool,
    /// The material whose keyframes the timeline shows.
    pub selected_material: Option<usize>,
    /// The measuring tape (M, View > Measure): clicks in the 3D view set
    /// its points instead of selecting.
    pub measuring: bool,
    pub measure: measure::Measure,
    /// What the last click on a model found under it (its UV and texel),
    /// or, over a texture file, what the cursor is over: the status bar
    /// shows it.
    pub probe: Option<crate::anim::pick::Probe>,
    /// The vertex the last click on a model found (the hit triangle's
    /// nearest corner): the inspector's *Vertex* section shows it, the 3D
    /// view marks it.
    pub picked_vertex: Option<crate::anim::pick::VertexHit>,
    /// What each bone moves ([`Scene::bone_influence`]), counted the first
    /// time the Bones section is shown for a scene.
    pub bone_influence: Option<std::sync::Arc<[crate::scene::BoneInfluence]>>,
    /// The scene's box and each part's, at rest, every part counted (set
    /// by the app from the upload, which measures them once): the
    /// inspector's dimensions.
    pub scene_bounds: Option<crate::scene::Aabb>,
    pub part_bounds: Vec<crate::scene::Aabb>,
    /// The inspector's name filter as typed ([`filter::NameFilter`]); it
    /// stays when another file is opened.
    pub filter: String,
    /// Ctrl+F: the filter's field takes the keyboard on the next frame
    /// (the inspector is shown first).
    pub focus_filter: bool,
    /// Draw the scene's annotation labels over the 3D view.
    pub show_labels: bool,
    /// The 3D view's projection, set by the app each frame (labels use it).
    pub view_proj: glam::Mat4,
    /// The camera's view matrix (world to eye), set by the app each frame:
    /// the axes in the corner turn with it.
    pub camera_view: glam::Mat4,
    /// Draw the scene's axes in the 3D view's corner (X).
    pub show_axes: bool,
    /// With the skeleton shown, every bone's name over the 3D view
    /// (Shift+K, View > Bone names; on for a skeleton without a model);
    /// the selected bone's is shown either way.
    pub show_bone_names: bool,
    /// The camera circles the scene (O, View > Turntable) until a drag
    /// takes it.
    pub turntable: bool,
    /// egui id of the file's preview image (M3D PRVW), when registered.
    pub preview_id: Option<egui::TextureId>,
    /// Texture files: the mip level and channels shown.
    pub mip_level: usize,
    pub channel: crate::scene::from_papa::ViewChannel,
    /// Orthographic projection.
    pub ortho: bool,
    /// Fly mode: W/A/S/D/Q/E move, dragging looks around, the wheel sets
    /// `fly_speed` (scene radii per second).
    pub fly: bool,
    pub fly_speed: f32,
    pub timeline: Timeline,
    /// Errors and warnings of this session, newest last (the Log window).
    pub log: Vec<LogLine>,
    /// Messages shown as toasts until they expire or are dismissed.
    pub toasts: Vec<Toast>,
    pub show_log: bool,
    /// Recently opened files, newest first (File menu).
    pub recent: Vec<std::path::PathBuf>,
    /// The size the File menu renders at (kept in the settings).
    pub render_size: (u32, u32),
    /// The File menu renders on a transparent background, without the
    /// grid (kept in the settings).
    pub render_transparent: bool,
    /// File -> Settings...: the window, the media roots being edited, the
    /// stock roots found (edits send [`UiAction::SettingsChanged`]).
    pub show_settings: bool,
    pub media_roots: Vec<std::path::PathBuf>,
    pub media_root_input: String,
    pub stock_media_roots: Vec<std::path::PathBuf>,
    /// The texel budget in MiB (settings' `max_texture_mib`).
    pub max_texture_mib: u64,
    pub show_inspector: bool,
    pub show_help: bool,
    /// The map inspector's state (maps only).
    pub map: map::MapUi,
    /// What the panels asked of the app this frame, in order; [`show`]
    /// hands them over.
    pub actions: Vec<UiAction>,
    /// A file loading in the background: its name and how far it is (0..1).
    pub loading: Option<(String, f32)>,
}

/// What the interface asks of the app. Panels push them with
/// [`UiState::act`] as they are clicked; [`show`] returns them with the
/// frame and the app carries them out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiAction {
    /// Open this file (File > recent files).
    Open(std::path::PathBuf),
    /// File > Open… (Ctrl+O): the desktop's file dialog.
    OpenDialog,
    /// File > Next / Previous file in the folder (PageDown / PageUp): the
    /// file beside the open one that the viewer opens, wrapping around.
    OpenBeside(crate::load::folder::Direction),
    /// Save the window, panels included, as a PNG.
    Screenshot,
    /// Save scene texture N as a PNG (its full size, as decoded), in the
    /// current folder.
    SaveTexture(usize),
    /// Render the 3D view alone at this size and save it.
    SaveRender {
        width: u32,
        height: u32,
        /// On a transparent background, without the grid.
        transparent: bool,
    },
    /// File > Export glTF…: write what is open (companions, sibling
    /// animations and resolved media included) as glTF; `None` asks where
    /// with the desktop's save dialog.
    ExportGltf(Option<std::path::PathBuf>),
    /// Frame the visible parts (F).
    Fit,
    /// Frame the selected bone or part (Shift+F).
    FitSelection,
    /// Default camera, framed (R).
    ResetCamera,
    /// The texture viewer's level or channels changed: show them.
    ShowTextureLevel,
    /// The map's shading changed: recolour its meshes.
    MapShading,
    /// Media roots or texture memory were edited: apply and save them.
    SettingsChanged,
    /// View > Full screen (F11): into full screen, or back out.
    FullScreen,
    /// A click on an end of the axes in the view's corner: look at the
    /// scene from that side (as the 1, 3, 7 keys do).
    LookFrom(crate::gpu::camera::AxisView),
}

/// What one frame of the interface hands the app.
pub struct UiOutput {
    /// Where the 3D view is, in egui points (between the panels).
    pub viewport: egui::Rect,
    pub actions: Vec<UiAction>,
}

/// The inspector panel's width when the window opens, in points.
pub const INSPECTOR_WIDTH: f32 = 320.0;

/// The widest the inspector panel grows, in points: content wider than
/// this (text that cannot wrap) runs past the panel, and egui then draws the
/// panel's edge across it.
pub const INSPECTOR_MAX_WIDTH: f32 = 560.0;

/// Render sizes the File menu accepts, per side.
pub const RENDER_SIZES: std::ops::RangeInclusive<u32> = 16..=8192;

/// The texture memory offered by default, in MiB: load's default budget.
pub const DEFAULT_TEXTURE_MIB: u64 = (crate::load::DEFAULT_TEXEL_BUDGET >> 20) as u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Info,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    pub level: Level,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Toast {
    pub level: Level,
    pub text: String,
    /// egui time when first shown (set on the first frame it is drawn).
    pub since: Option<f64>,
}

/// How long a toast stays up.
pub const TOAST_SECONDS: f64 = 8.0;

impl UiState {
    /// Asks the app for `action` (once per frame however often it is asked).
    pub fn act(&mut self, action: UiAction) {
        if !self.actions.contains(&action) {
            self.actions.push(action);
        }
    }

    /// Reports a message: into the log, and as a toast (errors and infos;
    /// warnings only go to the log, which the toolbar counts).
    pub fn report(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        if level != Level::Warning {
            self.toasts.push(Toast {
                level,
                text: text.clone(),
                since: None,
            });
        }
        self.log.push(LogLine { level, text });
    }

    /// Selects a bone (and no part).
    pub fn select_bone(&mut self, bone: Option<usize>) {
        self.selected_bone = bone;
        if bone.is_some() {
            self.selected_part = None;
        }
    }

    /// H: hides the selected part, which is then no longer selected (what
    /// is behind it can be clicked).
    pub fn hide_selected_part(&mut self) {
        if let Some(shown) = self
            .selected_part
            .and_then(|p| self.view.visible.get_mut(p))
        {
            *shown = false;
            self.selected_part = None;
        }
    }

    /// Shift+H (and the selected part's "only" button): shows the selected
    /// part alone.
    pub fn show_only_selected_part(&mut self) {
        if let Some(p) = self.selected_part.filter(|&p| p < self.view.visible.len()) {
            for (i, shown) in self.view.visible.iter_mut().enumerate() {
                *shown = i == p;
            }
        }
    }

    /// Shift+K: every bone's name on or off; on, with the skeleton shown.
    pub fn toggle_bone_names(&mut self) {
        self.show_bone_names ^= true;
        if self.show_bone_names {
            self.view.skeleton = true;
        }
    }

    /// Alt+H (and the Parts section's "all"): shows every part.
    pub fn show_all_parts(&mut self) {
        self.view.visible.iter_mut().for_each(|v| *v = true);
    }

    /// Selects a part (and no bone).
    pub fn select_part(&mut self, part: Option<usize>) {
        self.selected_part = part;
        if part.is_some() {
            self.selected_bone = None;
        }
    }

    /// The scene's load warnings, into the log.
    pub fn log_warnings(&mut self, scene: &Scene) {
        for w in &scene.warnings {
            self.report(Level::Warning, format!("{}: {w}", scene.source.file_name));
        }
    }

    pub fn for_scene(scene: &Scene) -> Self {
        Self {
            view: ViewOptions::for_scene(scene),
            timeline: Timeline::for_scene(scene),
            show_labels: !scene.labels.is_empty(),
            show_axes: true,
            show_bone_names: scene.meshes.is_empty(),
            fly_speed: 1.0,
            show_inspector: true,
            render_size: (1920, 1080),
            max_texture_mib: DEFAULT_TEXTURE_MIB,
            ..Default::default()
        }
    }
}

/// Key bindings, shown in the help overlay and the README.
pub const KEYS: &[(&str, &str)] = &[
    (
        "Left click",
        "select the part (or shown bone) under it, its nearest vertex in the inspector; maps: sector and cube",
    ),
    ("Left drag", "orbit"),
    (
        "Double click",
        "orbit about the point under it (moved to the middle)",
    ),
    ("Middle drag / Shift + left drag", "pan"),
    (
        "C / Shift+C",
        "next / previous channel (shaded, diffuse, ... faces)",
    ),
    ("[ / ]", "the range played starts / ends at the time shown"),
    (
        "Ctrl + left drag",
        "turn the key light (right: to your right, up: higher)",
    ),
    ("F", "fit the visible parts to the view"),
    (
        "Shift + F",
        "fit the selected bone or part (else the visible parts)",
    ),
    ("Wheel", "zoom towards the point under the cursor"),
    (
        "1 / 3 / 7",
        "front / right / top view (with Ctrl: back / left / bottom)",
    ),
    ("5", "orthographic / perspective"),
    (
        "Tab",
        "fly mode: W A S D move, Q E down / up, drag to look, wheel sets the speed",
    ),
    ("R", "reset the camera"),
    (
        "PageDown / PageUp",
        "next / previous file in the open file's folder",
    ),
    ("Esc", "clear the selection (bone or part)"),
    (
        "H / Shift + H / Alt + H",
        "hide the selected part / show it alone / show every part",
    ),
    (
        "Space",
        "start the first clip, then play / pause (clip or animated materials)",
    ),
    (", and .", "previous / next frame"),
    (
        "Home / End",
        "jump to the start / end of the clip (or of its range)",
    ),
    ("W", "wireframe overlay"),
    ("N", "normals overlay"),
    ("B", "bounding boxes"),
    ("G", "grid"),
    ("K", "skeleton overlay"),
    (
        "Shift + K",
        "bone names over the skeleton (the selected bone's always)",
    ),
    (
        "T",
        "textures on / off (Shading in the inspector: channels, team colours)",
    ),
    ("L", "annotation labels (M3D)"),
    (
        "M",
        "measure: clicks set two points, the distance between them shown",
    ),
    ("X", "the scene's axes in the view's corner"),
    (
        "O",
        "turntable: the camera circles the scene (a drag stops it)",
    ),
    ("I", "inspector panel"),
    ("F11", "full screen / back (Esc also leaves it)"),
    ("F12", "save a screenshot of the window (current folder)"),
    ("? / F1", "this help"),
    ("Ctrl + O", "open a file (native dialog)"),
    (
        "Ctrl + F",
        "filter the inspector's parts, materials, bones... by name",
    ),
    ("Ctrl + Q", "quit"),
];

/// The top toolbar: overlays and camera actions.
pub fn toolbar(ui: &mut egui::Ui, state: &mut UiState) {
    ui.horizontal(|ui| {
        ui.strong("facet");
        ui.separator();
        // Both menus stay open while their settings are edited (presets,
        // size fields, lighting); their actions close them.
        let stay_open = || {
            egui::containers::menu::MenuConfig::new()
                .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
        };
        egui::containers::menu::MenuButton::new("File")
            .config(stay_open())
            .ui(ui, |ui| file_menu(ui, state));
        egui::containers::menu::MenuButton::new("View")
            .config(stay_open())
            .ui(ui, |ui| {
                ui.label("Lighting");
                for l in crate::gpu::Lighting::ALL {
                    ui.radio_value(&mut state.view.lighting, l, l.name());
                }
                ui.separator();
                ui.horizontal(|ui| {
                    ui.label("Background");
                    let b = state.view.background;
                    let mut rgba = egui::Rgba::from_rgba_premultiplied(
                        b[0] as f32,
                        b[1] as f32,
                        b[2] as f32,
                        1.0,
                    );
                    if egui::color_picker::color_edit_button_rgba(
                        ui,
                        &mut rgba,
                        egui::color_picker::Alpha::Opaque,
                    )
                    .changed()
                    {
                        state.view.background =
                            [rgba.r() as f64, rgba.g() as f64, rgba.b() as f64, 1.0];
                    }
                });
                ui.separator();
                ui.checkbox(&mut state.show_axes, "Axes")
                    .on_hover_text("X: the scene's X, Y and Z in the view's corner");
                if ui
                    .checkbox(&mut state.show_bone_names, "Bone names")
                    .on_hover_text(
                        "Shift+K: every bone's name at its head, with the skeleton shown",
                    )
                    .changed()
                    && state.show_bone_names
                {
                    state.view.skeleton = true;
                }
                if ui
                    .checkbox(&mut state.measuring, "Measure")
                    .on_hover_text(
                        "M: click two points of the model or map for the distance between them",
                    )
                    .changed()
                {
                    state.measure = Default::default();
                }
                ui.checkbox(&mut state.turntable, "Turntable")
                    .on_hover_text(
                        "O: the camera circles the scene, a turn every 12 s; dragging stops it",
                    );
                if menu_item(ui, "Full screen", "F11: into full screen, or back") {
                    state.act(UiAction::FullScreen);
                }
            });
        ui.separator();
        ui.toggle_value(&mut state.view.wireframe, "Wireframe")
            .on_hover_text("W");
        ui.toggle_value(&mut state.view.normals, "Normals")
            .on_hover_text("N");
        ui.toggle_value(&mut state.view.bounds, "Bounds")
            .on_hover_text("B");
        ui.toggle_value(&mut state.view.grid, "Grid")
            .on_hover_text("G");
        ui.toggle_value(&mut state.view.skeleton, "Skeleton")
            .on_hover_text("K");
        ui.toggle_value(&mut state.view.textures, "Textures")
            .on_hover_text("T: textures on / off");
        ui.toggle_value(&mut state.show_labels, "Labels")
            .on_hover_text("L: annotation labels (M3D)");
        ui.toggle_value(&mut state.ortho, "Ortho")
            .on_hover_text("5: orthographic projection");
        ui.toggle_value(&mut state.fly, "Fly")
            .on_hover_text("Tab: fly with W A S D, Q E; drag to look; wheel for speed");
        ui.separator();
        if ui.button("Fit").on_hover_text("F").clicked() {
            state.act(UiAction::Fit);
        }
        if ui.button("Reset").on_hover_text("R").clicked() {
            state.act(UiAction::ResetCamera);
        }
        ui.separator();
        ui.toggle_value(&mut state.show_inspector, "Inspector")
            .on_hover_text("I");
        ui.toggle_value(&mut state.show_log, format!("Log ({})", state.log.len()))
            .on_hover_text("errors and warnings of this session");
        ui.toggle_value(&mut state.show_help, "?")
            .on_hover_text("keyboard and mouse");
    });
}

/// Render sizes offered as one-click presets.
pub const RENDER_PRESETS: [(u32, u32); 4] = [(1280, 720), (1920, 1080), (2560, 1440), (3840, 2160)];

fn file_menu(ui: &mut egui::Ui, state: &mut UiState) {
    if menu_item(ui, "Open…", "Ctrl+O: the desktop's file dialog") {
        state.act(UiAction::OpenDialog);
    }
    use crate::load::folder::Direction;
    for (text, hover, direction) in [
        (
            "Next file in the folder",
            "PageDown: the file after this one, by name, of those Facet opens",
            Direction::Next,
        ),
        (
            "Previous file in the folder",
            "PageUp: the file before this one, by name, of those Facet opens",
            Direction::Previous,
        ),
    ] {
        if menu_item(ui, text, hover) {
            state.act(UiAction::OpenBeside(direction));
        }
    }
    ui.separator();
    recent_files(ui, state);
    ui.separator();
    if menu_item(
        ui,
        "Save screenshot",
        "F12: the window at its size, panels included, as a PNG in the current folder",
    ) {
        state.act(UiAction::Screenshot);
    }
    if menu_item(
        ui,
        "Export glTF…",
        "what is open as glTF 2.0 (.glb, or .gltf with .bin and PNGs), for Blender, Godot or three.js; what glTF cannot hold is listed in the log",
    ) {
        state.act(UiAction::ExportGltf(None));
    }
    render_items(ui, state);
    ui.separator();
    if menu_item(
        ui,
        "Settings…",
        "media roots for Planetary Annihilation files",
    ) {
        state.show_settings = true;
    }
}

/// A menu's button with its hover text: whether it was clicked, which
/// closes the menu.
fn menu_item(ui: &mut egui::Ui, text: impl Into<egui::WidgetText>, hover: &str) -> bool {
    let clicked = ui.button(text).on_hover_text(hover).clicked();
    if clicked {
        ui.close();
    }
    clicked
}

/// The recent files, each opened by a click (its path on hover).
fn recent_files(ui: &mut egui::Ui, state: &mut UiState) {
    ui.label("Recent files");
    if state.recent.is_empty() {
        ui.weak("none yet (drop a file on the window)");
    }
    for p in state.recent.clone() {
        let name = p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        if menu_item(ui, name, &p.display().to_string()) {
            state.act(UiAction::Open(p));
        }
    }
}

/// "Save render" at the size set below it, by hand or by a preset.
fn render_items(ui: &mut egui::Ui, state: &mut UiState) {
    let (w, h) = state.render_size;
    if menu_item(
        ui,
        format!("Save render {w}x{h}"),
        "the 3D view alone, this camera and pose, as a PNG in the current folder",
    ) {
        state.act(UiAction::SaveRender {
            width: w,
            height: h,
            transparent: state.render_transparent,
        });
    }
    ui.checkbox(&mut state.render_transparent, "Transparent background")
        .on_hover_text("renders on a transparent background, without the grid (PNG, WebP and TGA keep it; JPEG and BMP have no alpha)");
    ui.horizontal(|ui| {
        ui.label("Render size");
        let range = RENDER_SIZES;
        ui.add(egui::DragValue::new(&mut state.render_size.0).range(range.clone()))
            .on_hover_text("width in pixels");
        ui.label("x");
        ui.add(egui::DragValue::new(&mut state.render_size.1).range(range))
            .on_hover_text("height in pixels");
    });
    ui.horizontal(|ui| {
        for (w, h) in RENDER_PRESETS {
            let label = match h {
                720 => "720p",
                1080 => "1080p",
                1440 => "1440p",
                _ => "4K",
            };
            if ui
                .selectable_label(state.render_size == (w, h), label)
                .on_hover_text(format!("{w}x{h}"))
                .clicked()
            {
                state.render_size = (w, h);
            }
        }
    });
}

fn level_color(level: Level) -> egui::Color32 {
    match level {
        Level::Error => egui::Color32::from_rgb(255, 120, 100),
        Level::Warning => egui::Color32::from_rgb(255, 200, 90),
        Level::Info => egui::Color32::from_rgb(150, 210, 255),
    }
}

/// The frame rate while frames follow one another; the window draws only
/// when something changes, and a frame after a wait has no rate.
pub fn frame_rate(state: &UiState) -> String {
    if state.fps > 0.0 {
        format!("{:.0} fps ({:.1} ms)", state.fps, state.frame_ms)
    } else {
        "idle (drawn on change)".into()
    }
}

/// Non-blocking messages in the top-right corner; they expire after
/// [`TOAST_SECONDS`] or when clicked.
pub fn toasts(ctx: &egui::Context, state: &mut UiState) {
    let now = ctx.input(|i| i.time);
    state
        .toasts
        .retain(|t| t.since.is_none_or(|s| now - s < TOAST_SECONDS));
    if state.toasts.is_empty() {
        return;
    }
    let mut dismiss = None;
    egui::Area::new(egui::Id::unique("toasts"))
        .anchor(egui::Align2::RIGHT_TOP, egui::vec2(-12.0, 40.0))
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            ui.set_max_width(420.0);
            for (i, t) in state.toasts.iter_mut().enumerate() {
                t.since.get_or_insert(now);
                let resp = egui::Frame::popup(ui.style())
                    .stroke(egui::Stroke::new(1.0, level_color(t.level)))
                    .show(ui, |ui| {
                        ui.colored_label(level_color(t.level), &t.text);
                    })
                    .response
                    .interact(egui::Sense::click())
                    .on_hover_text("click to dismiss; every message stays in the Log");
                if resp.clicked() {
                    dismiss = Some(i);
                }
            }
        });
    if let Some(i) = dismiss {
        state.toasts.remove(i);
    }
    ctx.request_repaint_after(std::time::Duration::from_millis(250));
}

pub fn log_window(ctx: &egui::Context, state: &mut UiState) {
    let mut open = state.show_log;
    egui::Window::new(format!("Log ({})", state.log.len()))
        .open(&mut open)
        .default_width(520.0)
        .show(ctx, |ui| {
            if state.log.is_empty() {
                ui.weak("no messages");
            }
            egui::ScrollArea::vertical().show(ui, |ui| {
                for l in &state.log {
                    ui.colored_label(level_color(l.level), &l.text);
                }
            });
        });
    state.show_log = open;
}

/// File > Settings…: the Planetary Annihilation media roots.
pub fn settings_window(ctx: &egui::Context, state: &mut UiState) {
    let mut open = state.show_settings;
    egui::Window::new("Settings")
        .open(&mut open)
        .default_width(520.0)
        .show(ctx, |ui| {
            ui.strong("Planetary Annihilation media roots");
            ui.weak(
                "Folders holding pa/ (a game's media folder or a mod's). A /pa/… path in a \
                 papa is looked up in the model's own mod folder first, then here in order, \
                 then in the Steam installs below.",
            );
            let mut remove = None;
            for (i, r) in state.media_roots.iter().enumerate() {
                ui.horizontal(|ui| {
                    if ui.small_button("remove").clicked() {
                        remove = Some(i);
                    }
                    ui.label(r.display().to_string());
                    if !r.is_dir() {
                        ui.colored_label(level_color(Level::Warning), "not a folder");
                    }
                });
            }
            if let Some(i) = remove {
                state.media_roots.remove(i);
                state.act(UiAction::SettingsChanged);
            }
            ui.horizontal(|ui| {
                let edit = ui.add(
                    egui::TextEdit::singleline(&mut state.media_root_input)
                        .hint_text("/path/to/Planetary Annihilation/media"),
                );
                let entered = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                let path = std::path::PathBuf::from(state.media_root_input.trim());
                let ok = !state.media_root_input.trim().is_empty() && path.is_dir();
                if (ui.add_enabled(ok, egui::Button::new("Add")).clicked() || entered && ok)
                    && !state.media_roots.contains(&path)
                {
                    state.media_roots.push(path);
                    state.media_root_input.clear();
                    state.act(UiAction::SettingsChanged);
                }
            });
            ui.separator();
            ui.horizontal(|ui| {
                ui.label("Texture memory per file");
                let r = ui.add(
                    egui::DragValue::new(&mut state.max_texture_mib)
                        .range(16..=65536)
                        .suffix(" MiB"),
                );
                if r.changed() {
                    state.act(UiAction::SettingsChanged);
                }
            })
            .response
            .on_hover_text(
                "decoded texels a file may take, all its textures together; textures that find \
                 too little left are decoded smaller or refused (applies to files opened from \
                 now on)",
            );
            ui.separator();
            ui.label("Found under Steam (tried last):");
            if state.stock_media_roots.is_empty() {
                ui.weak("none");
            }
            for r in &state.stock_media_roots {
                ui.weak(r.display().to_string());
            }
        });
    state.show_settings = open;
}

pub fn help_window(ctx: &egui::Context, state: &mut UiState) {
    egui::Window::new("Keyboard and mouse")
        .open(&mut state.show_help)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            egui::Grid::new("keys").striped(true).show(ui, |ui| {
                for (k, v) in KEYS {
                    ui.strong(*k);
                    ui.label(*v);
                    ui.end_row();
                }
            });
        });
}

/// The selection as the status bar names it (the inspector may be hidden).
fn selection(scene: &Scene, state: &UiState) -> Option<String> {
    if let Some(m) = state.selected_part.and_then(|i| scene.meshes.get(i)) {
        return Some(format!(
            "selected: part \"{}\", {} vertices, {} triangles",
            m.name,
            m.positions.len(),
            m.triangle_count()
        ));
    }
    let b = state
        .selected_bone
        .and_then(|i| scene.skeleton.bones.get(i))?;
    Some(format!("selected: bone \"{}\"", b.name))
}

/// Draws every panel for one frame into the root `ui`; returns the rect left
/// for the 3D view (in points).
pub fn show(
    ui: &mut egui::Ui,
    scene: &Scene,
    state: &mut UiState,
    pose: Option<&crate::anim::Pose>,
) -> UiOutput {
    let ctx = ui.ctx().clone();
    egui::Panel::top("toolbar").show(ui, |ui| toolbar(ui, state));
    egui::Panel::bottom("status").show(ui, |ui| {
        ui.horizontal(|ui| {
            ui.label(frame_rate(state));
            ui.separator();
            ui.label(format!("{} draw calls", state.stats.draw_calls));
            ui.separator();
            ui.label(format!("{} triangles", state.stats.triangles));
            ui.separator();
            ui.label(&scene.source.file_name);
            if let Some(p) = &scene.provenance {
                ui.separator();
                ui.label(p);
            }
            if let Some(s) = selection(scene, state) {
                ui.separator();
                ui.label(s);
            }
            if state.measuring {
                ui.separator();
                ui.label(state.measure.describe(scene.unit_in_metres()));
            }
            if let Some(p) = &state.probe {
                ui.separator();
                if let Some(t) = &p.texel {
                    let [r, g, b, a] = t.rgba;
                    let (rect, _) =
                        ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
                    ui.painter().rect_filled(
                        rect,
                        2.0,
                        egui::Color32::from_rgba_unmultiplied(r, g, b, a),
                    );
                }
                ui.label(p.describe());
            }
        });
    });
    let animated_materials = scene.materials.iter().any(|m| m.animation.is_some());
    if !scene.clips.is_empty() || !scene.skeleton.bones.is_empty() || animated_materials {
        egui::Panel::bottom("timeline").show(ui, |ui| timeline::timeline(ui, scene, state));
    }
    if state.show_inspector {
        egui::Panel::right("inspector")
            .default_size(INSPECTOR_WIDTH)
            .max_size(INSPECTOR_MAX_WIDTH)
            .resizable(true)
            .show(ui, |ui| inspector::inspector(ui, scene, state, pose));
    }
    if let Some((name, f)) = &state.loading {
        egui::Area::new(egui::Id::unique("loading"))
            .anchor(egui::Align2::CENTER_BOTTOM, egui::vec2(0.0, -60.0))
            .order(egui::Order::Foreground)
            .show(&ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.set_width(320.0);
                    ui.label(format!("loading {name}"));
                    ui.add(egui::ProgressBar::new(*f).show_percentage());
                });
            });
        ctx.request_repaint();
    }
    toasts(&ctx, state);
    log_window(&ctx, state);
    settings_window(&ctx, state);
    help_window(&ctx, state);
    let view = ui.available_rect_before_wrap();
    if state.show_labels && !scene.labels.is_empty() {
        labels::draw(ui, scene, state.view_proj, view);
    }
    if state.view.skeleton
        && let Some(bone) = state.selected_bone
    {
        // A tenth of the model's radius for a bone with no length.
        let fallback = state.scene_bounds.map_or(0.1, |b| b.radius() * 0.1);
        axes::of_bone(
            ui,
            scene,
            pose,
            bone,
            axes::bone_reach(scene, bone, fallback),
            state.view_proj,
            view,
        );
    }
    if state.view.skeleton && (state.show_bone_names || state.selected_bone.is_some()) {
        labels::bone_names(
            ui,
            scene,
            pose,
            state.view_proj,
            view,
            state.selected_bone,
            state.show_bone_names,
        );
    }
    if let Some(hit) = &state.picked_vertex {
        vertex::marker(
            ui,
            scene,
            pose,
            hit,
            &state.view.visible,
            state.view_proj,
            view,
        );
    }
    if state.measuring {
        measure::draw(
            ui,
            &state.measure,
            scene.unit_in_metres(),
            state.view_proj,
            view,
        );
    }
    if state.show_axes
        && let Some(v) = axes::draw(ui, state.camera_view, view)
    {
        state.act(UiAction::LookFrom(v));
    }
    UiOutput {
        viewport: view,
        actions: std::mem::take(&mut state.actions),
    }
}
