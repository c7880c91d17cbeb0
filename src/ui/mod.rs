//! egui panels over the 3D view: toolbar, inspector, status. They read the
//! [`Scene`] and edit [`UiState`]; the app applies what they ask for.

pub mod inspector;
pub mod labels;
pub mod material;
pub mod timeline;

use crate::anim::timeline::Timeline;
use crate::gpu::{FrameStats, ViewOptions};
use crate::scene::Scene;

/// What the panels show and edit; owned by the app.
#[derive(Debug, Clone, Default)]
pub struct UiState {
    pub view: ViewOptions,
    pub stats: FrameStats,
    pub fps: f32,
    pub frame_ms: f32,
    /// egui ids of the scene's textures (previews), when registered.
    pub texture_ids: Vec<Option<egui::TextureId>>,
    pub selected_bone: Option<usize>,
    /// The material whose keyframes the timeline shows.
    pub selected_material: Option<usize>,
    /// Draw the scene's annotation labels over the 3D view.
    pub show_labels: bool,
    /// The 3D view's projection, set by the app each frame (labels use it).
    pub view_proj: glam::Mat4,
    /// egui id of the file's preview image (M3D PRVW), when registered.
    pub preview_id: Option<egui::TextureId>,
    /// Texture files: the mip level and channels shown.
    pub mip_level: usize,
    pub channel: crate::scene::from_papa::ViewChannel,
    /// Set when those change: the app rebuilds the shown texture.
    pub request_texture_view: bool,
    /// Orthographic projection.
    pub ortho: bool,
    /// Fly mode: W/A/S/D/Q/E move, dragging looks around, the wheel sets
    /// `fly_speed` (scene radii per second).
    pub fly: bool,
    pub fly_speed: f32,
    pub timeline: Timeline,
    /// The last load error, shown until dismissed; the old scene stays.
    pub error: Option<String>,
    pub show_inspector: bool,
    pub show_help: bool,
    /// Requests for the app, cleared after handling.
    pub request_fit: bool,
    pub request_reset: bool,
}

impl UiState {
    pub fn for_scene(scene: &Scene) -> Self {
        Self {
            view: ViewOptions::for_scene(scene),
            timeline: Timeline::for_scene(scene),
            show_labels: !scene.labels.is_empty(),
            fly_speed: 1.0,
            show_inspector: true,
            ..Default::default()
        }
    }
}

/// Key bindings, shown in the help overlay and the README.
pub const KEYS: &[(&str, &str)] = &[
    ("Left drag", "orbit"),
    ("Middle drag / Shift + left drag", "pan"),
    ("F", "fit the visible parts to the view"),
    (
        "Shift + F",
        "fit the selected bone (else the visible parts)",
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
        "Space",
        "start the first clip, then play / pause (clip or animated materials)",
    ),
    (", and .", "previous / next frame"),
    ("Home / End", "jump to the start / end of the clip"),
    ("W", "wireframe overlay"),
    ("N", "normals overlay"),
    ("B", "bounding boxes"),
    ("G", "grid"),
    ("K", "skeleton overlay"),
    ("L", "annotation labels (M3D)"),
    ("I", "inspector panel"),
    ("?", "this help"),
    ("Ctrl + Q", "quit"),
];

/// The top toolbar: overlays and camera actions.
pub fn toolbar(ui: &mut egui::Ui, state: &mut UiState) {
    ui.horizontal(|ui| {
        ui.strong("facet");
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
        ui.toggle_value(&mut state.show_labels, "Labels")
            .on_hover_text("L: annotation labels (M3D)");
        ui.toggle_value(&mut state.ortho, "Ortho")
            .on_hover_text("5: orthographic projection");
        ui.toggle_value(&mut state.fly, "Fly")
            .on_hover_text("Tab: fly with W A S D, Q E; drag to look; wheel for speed");
        ui.separator();
        if ui.button("Fit").on_hover_text("F").clicked() {
            state.request_fit = true;
        }
        if ui.button("Reset").on_hover_text("R").clicked() {
            state.request_reset = true;
        }
        ui.separator();
        ui.toggle_value(&mut state.show_inspector, "Inspector")
            .on_hover_text("I");
        ui.toggle_value(&mut state.show_help, "?")
            .on_hover_text("keyboard and mouse");
    });
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

/// Draws every panel for one frame into the root `ui`; returns the rect left
/// for the 3D view (in points).
pub fn show(
    ui: &mut egui::Ui,
    scene: &Scene,
    state: &mut UiState,
    pose: Option<&crate::anim::Pose>,
) -> egui::Rect {
    let ctx = ui.ctx().clone();
    egui::Panel::top("toolbar").show(ui, |ui| toolbar(ui, state));
    egui::Panel::bottom("status").show(ui, |ui| {
        ui.horizontal(|ui| {
            ui.label(format!("{:.0} fps ({:.1} ms)", state.fps, state.frame_ms));
            ui.separator();
            ui.label(format!("{} draw calls", state.stats.draw_calls));
            ui.separator();
            ui.label(format!("{} triangles", state.stats.triangles));
            ui.separator();
            ui.label(&scene.source.file_name);
        });
    });
    let animated_materials = scene.materials.iter().any(|m| m.animation.is_some());
    if !scene.clips.is_empty() || !scene.skeleton.bones.is_empty() || animated_materials {
        egui::Panel::bottom("timeline").show(ui, |ui| timeline::timeline(ui, scene, state));
    }
    if state.show_inspector {
        egui::Panel::right("inspector")
            .default_size(320.0)
            .resizable(true)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .show(ui, |ui| inspector::inspector(ui, scene, state, pose));
            });
    }
    if let Some(err) = state.error.clone() {
        egui::Window::new("Could not open the file")
            .collapsible(false)
            .show(&ctx, |ui| {
                ui.colored_label(egui::Color32::from_rgb(255, 120, 100), err);
                ui.label("The previous scene is still shown.");
                if ui.button("Dismiss").clicked() {
                    state.error = None;
                }
            });
    }
    help_window(&ctx, state);
    let view = ui.available_rect_before_wrap();
    if state.show_labels && !scene.labels.is_empty() {
        labels::draw(ui, scene, state.view_proj, view);
    }
    view
}
