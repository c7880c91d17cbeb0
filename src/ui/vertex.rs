//! The vertex under the last click on a model (the hit triangle's nearest
//! corner): what the part stores for it, in the inspector's *Vertex*
//! section under the part's row, and where it is, marked over the 3D view
//! with its triangle.
//! What a format debugger asks of a viewer: which bones move this vertex
//! and by how much, which UV and colour it carries, whether its normal was
//! stored or made.

use super::UiState;
use super::numbers::coords;
use crate::anim::pick::{VertexHit, posed_vertex};
use crate::scene::{Scene, Skin, WEIGHT_UNITS};
use glam::Mat4;

/// The marker's colour: cyan, apart from the selection's orange outline
/// and the tape's.
pub const MARK: egui::Color32 = egui::Color32::from_rgb(40, 220, 255);

/// Vertex `vertex`'s bone influences as stored: each slot with a weight
/// above zero, in slot order, as (bone, weight in units of 1/65535);
/// nothing where the skin does not reach the vertex.
pub fn influences(skin: &Skin, vertex: usize) -> Vec<(u16, u16)> {
    let (Some(joints), Some(weights)) = (skin.joints.get(vertex), skin.weights.get(vertex)) else {
        return Vec::new();
    };
    joints
        .iter()
        .zip(weights)
        .filter(|(_, w)| **w > 0)
        .map(|(&j, &w)| (j, w))
        .collect()
}

/// A weight in units of 1/65535 as a percentage: `75%`, `33.3%`.
pub fn percent(w: u32) -> String {
    let p = 100.0 * w as f64 / WEIGHT_UNITS as f64;
    let s = format!("{p:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s);
    format!("{s}%")
}

/// The inspector's *Vertex* section: the picked vertex's part, triangle
/// and attributes as the part stores them, its bones (a click selects
/// one), and its place as drawn.
pub fn section(
    ui: &mut egui::Ui,
    scene: &Scene,
    state: &mut UiState,
    pose: Option<&crate::anim::Pose>,
) {
    let Some(hit) = state.picked_vertex else {
        return;
    };
    let Some(mesh) = scene.meshes.get(hit.part) else {
        return;
    };
    let v = hit.vertex as usize;
    let Some(&position) = mesh.positions.get(v) else {
        return;
    };
    egui::CollapsingHeader::new(format!("Vertex {v} (clicked)"))
        .id_salt("picked vertex")
        .default_open(true)
        .show(ui, |ui| {
            // Positions and directions are the scene's: a file made Z up
            // (Papa) reads turned.
            ui.weak(format!(
                "of triangle {} (vertices {}, {}, {}), the corner nearest the click; in the scene's axes (Y up)",
                hit.triangle, hit.corners[0], hit.corners[1], hit.corners[2]
            ));
            egui::Grid::new("picked vertex rows")
                .num_columns(2)
                .show(ui, |ui| {
                    let row = |ui: &mut egui::Ui, name: &str, value: String| {
                        ui.label(name);
                        ui.monospace(value);
                        ui.end_row();
                    };
                    row(ui, "position", coords(&position.to_array()));
                    if let Some(posed) = pose
                        .and_then(|p| posed_vertex(scene, p, hit.part, hit.vertex))
                        .filter(|p| *p != position)
                    {
                        row(ui, "as posed", coords(&posed.to_array()));
                    }
                    if let Some(n) = mesh.normals.get(v) {
                        let made = if mesh.has_file_normals {
                            ""
                        } else {
                            " (made from the faces)"
                        };
                        row(ui, "normal", format!("{}{made}", coords(&n.to_array())));
                    }
                    if let Some([t, b]) = mesh.tangents.as_ref().and_then(|t| t.get(v)) {
                        row(ui, "tangent", coords(&t.to_array()));
                        row(ui, "binormal", coords(&b.to_array()));
                    }
                    if mesh.has_file_uvs
                        && let Some(uv) = mesh.uvs.get(v)
                    {
                        row(ui, "uv", coords(&uv.to_array()));
                    }
                    for (k, set) in mesh.extra_uvs.iter().enumerate() {
                        if let Some(uv) = set.get(v) {
                            row(ui, &format!("uv set {}", k + 2), coords(&uv.to_array()));
                        }
                    }
                    if let Some(&[r, g, b, a]) = mesh.colors.as_ref().and_then(|c| c.get(v)) {
                        ui.label("colour");
                        ui.horizontal(|ui| {
                            let (rect, _) = ui
                                .allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
                            ui.painter().rect_filled(
                                rect,
                                2.0,
                                egui::Color32::from_rgba_unmultiplied(r, g, b, a),
                            );
                            ui.monospace(format!("#{r:02X}{g:02X}{b:02X}{a:02X}"));
                        });
                        ui.end_row();
                    }
                });
            match &mesh.skin {
                Some(skin) => bones(ui, scene, state, skin, v),
                None => {
                    ui.weak("no skin: no bone moves it");
                }
            }
        });
}

/// The vertex's bone influences, each bone's name a button that selects
/// it (its weights then one click away), and their sum.
fn bones(ui: &mut egui::Ui, scene: &Scene, state: &mut UiState, skin: &Skin, v: usize) {
    let slots = influences(skin, v);
    if slots.is_empty() {
        ui.weak("skinned, with no weight: drawn at rest");
        return;
    }
    ui.label("bones");
    // The weight first (a few characters), then the name, which may be
    // long: the row stays within the panel. The stored units on hover.
    for &(joint, w) in &slots {
        ui.horizontal(|ui| {
            let units = format!("{w}/{WEIGHT_UNITS} of the vertex's weight");
            ui.monospace(format!("{:>6}", percent(w as u32)))
                .on_hover_text(&units);
            let name = scene.skeleton.bones.get(joint as usize).map_or_else(
                || format!("bone {joint} (no such bone)"),
                |b| b.name.clone(),
            );
            let selected = state.selected_bone == Some(joint as usize);
            let r = ui
                .selectable_label(selected, name)
                .on_hover_text(format!("bone {joint}, {units}: click to select it"));
            // Selected where it is listed: the inspector stays on this
            // vertex (its other bones a click away), the view names it.
            if r.clicked() && (joint as usize) < scene.skeleton.bones.len() {
                state.select_bone(Some(joint as usize));
            }
        });
    }
    let sum: u32 = slots.iter().map(|&(_, w)| w as u32).sum();
    if sum != WEIGHT_UNITS as u32 {
        ui.weak(format!("the weights sum to {}", percent(sum)));
    }
}

/// The picked vertex over the 3D view: its triangle's edges and a dot at
/// the vertex, where the pose draws them (so they follow an animation),
/// drawn over the model; nothing while its part is hidden.
pub fn marker(
    ui: &egui::Ui,
    scene: &Scene,
    pose: Option<&crate::anim::Pose>,
    hit: &VertexHit,
    visible: &[bool],
    view_proj: Mat4,
    rect: egui::Rect,
) {
    if !visible.get(hit.part).copied().unwrap_or(false) {
        return;
    }
    let place = |v: u32| {
        let p = match pose {
            Some(pose) => posed_vertex(scene, pose, hit.part, v)?,
            None => *scene.meshes.get(hit.part)?.positions.get(v as usize)?,
        };
        super::labels::project(view_proj, p, rect)
    };
    let painter = ui.painter_at(rect);
    let [a, b, c] = hit.corners.map(place);
    if let (Some(a), Some(b), Some(c)) = (a, b, c) {
        let stroke = egui::Stroke::new(1.5, MARK);
        for edge in [[a, b], [b, c], [c, a]] {
            painter.line_segment(edge, stroke);
        }
    }
    if let Some(p) = place(hit.vertex) {
        painter.circle(p, 4.0, MARK, egui::Stroke::new(1.5, egui::Color32::BLACK));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn influences_are_the_slots_with_weight_in_their_order() {
        let skin = Skin {
            joints: vec![[3, 0, 7, 1], [2, 2, 2, 2]],
            weights: vec![[16384, 0, 49151, 0], [0; 4]],
        };
        assert_eq!(influences(&skin, 0), vec![(3, 16384), (7, 49151)]);
        assert!(influences(&skin, 1).is_empty());
        // Past the skin: nothing.
        assert!(influences(&skin, 2).is_empty());
        // 16384/65535 = 25.0004%; 49151/65535 = 74.9996%; a third.
        assert_eq!(percent(16384), "25%");
        assert_eq!(percent(49151), "75%");
        assert_eq!(percent(21845), "33.3%");
        assert_eq!(percent(65535), "100%");
    }
}
