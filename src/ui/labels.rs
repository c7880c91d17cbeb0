//! Annotation labels (M3D LBLS) over the 3D view, as the format asks: texts
//! in columns on the left and right of the model, underlined in the label's
//! colour, the underline's end joined to the labelled point. Rows start in
//! the order of the points' heights; crossing connectors then swap rows until
//! none cross (each swap shortens the total length, so it ends).

use crate::scene::Scene;
use glam::{Mat4, Vec3};

/// Where a label's point lands in the view (points), or `None` when it is
/// behind the camera.
pub fn project(view_proj: Mat4, p: Vec3, rect: egui::Rect) -> Option<egui::Pos2> {
    let c = view_proj * p.extend(1.0);
    if c.w <= 1e-6 {
        return None;
    }
    let ndc = c.truncate() / c.w;
    Some(egui::pos2(
        rect.left() + (ndc.x * 0.5 + 0.5) * rect.width(),
        rect.top() + (0.5 - ndc.y * 0.5) * rect.height(),
    ))
}

/// Every bone's name at its posed head (a skeleton shown without a model).
pub fn bone_names(
    ui: &egui::Ui,
    scene: &Scene,
    pose: Option<&crate::anim::Pose>,
    view_proj: Mat4,
    rect: egui::Rect,
) {
    let painter = ui.painter_at(rect);
    let font = egui::FontId::proportional(12.0);
    let color = ui.visuals().strong_text_color();
    for (i, b) in scene.skeleton.bones.iter().enumerate() {
        let head = pose
            .and_then(|p| p.world.get(i))
            .map_or(b.head, |m| m.w_axis.truncate());
        if let Some(at) = project(view_proj, head, rect) {
            painter.text(
                at + egui::vec2(4.0, -4.0),
                egui::Align2::LEFT_BOTTOM,
                &b.name,
                font.clone(),
                color,
            );
        }
    }
}

/// One placed label: its text row and the point it points at.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub label: usize,
    pub anchor: egui::Pos2,
    /// Where the connector leaves the underline (the inner end of the side's
    /// widest underline), at the row's height.
    pub row: egui::Pos2,
    pub left_side: bool,
}

fn segments_cross(a: (egui::Pos2, egui::Pos2), b: (egui::Pos2, egui::Pos2)) -> bool {
    let d = |p: egui::Pos2, q: egui::Pos2, r: egui::Pos2| {
        (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
    };
    let (d1, d2) = (d(b.0, b.1, a.0), d(b.0, b.1, a.1));
    let (d3, d4) = (d(a.0, a.1, b.0), d(a.0, a.1, b.1));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// Lays the labels out in two columns (pure: tested without a window).
/// `width(i)` is label i's text width in points.
pub fn layout(
    scene: &Scene,
    view_proj: Mat4,
    rect: egui::Rect,
    row_h: f32,
    width: impl Fn(usize) -> f32,
) -> Vec<Placed> {
    let anchors: Vec<(usize, egui::Pos2)> = scene
        .labels
        .iter()
        .enumerate()
        .filter_map(|(i, l)| project(view_proj, l.position, rect).map(|p| (i, p)))
        .collect();
    let mid = if anchors.is_empty() {
        rect.center().x
    } else {
        anchors.iter().map(|(_, p)| p.x).sum::<f32>() / anchors.len() as f32
    };
    let mut out = Vec::new();
    for left in [true, false] {
        let mut side: Vec<(usize, egui::Pos2)> = anchors
            .iter()
            .copied()
            .filter(|(_, p)| (p.x < mid) == left)
            .collect();
        side.sort_by(|a, b| a.1.y.total_cmp(&b.1.y));
        let widest = side.iter().map(|(i, _)| width(*i)).fold(0.0, f32::max);
        let x = if left {
            rect.left() + 12.0 + widest
        } else {
            rect.right() - 12.0 - widest
        };
        // Rows spread over the view's height in the anchors' order.
        let n = side.len();
        let top = rect.top() + 20.0;
        let span = (rect.height() - 40.0).max(row_h * n as f32);
        let mut rows: Vec<egui::Pos2> = (0..n)
            .map(|k| egui::pos2(x, top + span * (k as f32 + 0.5) / n.max(1) as f32))
            .collect();
        for _ in 0..n * n + 1 {
            let mut swapped = false;
            for i in 0..n {
                for j in i + 1..n {
                    if segments_cross((rows[i], side[i].1), (rows[j], side[j].1)) {
                        rows.swap(i, j);
                        swapped = true;
                    }
                }
            }
            if !swapped {
                break;
            }
        }
        out.extend(
            side.into_iter()
                .zip(rows)
                .map(|((label, anchor), row)| Placed {
                    label,
                    anchor,
                    row,
                    left_side: left,
                }),
        );
    }
    out
}

pub fn draw(ui: &egui::Ui, scene: &Scene, view_proj: Mat4, rect: egui::Rect) {
    let painter = ui.painter_at(rect);
    let font = egui::FontId::proportional(13.0);
    let galleys: Vec<_> = scene
        .labels
        .iter()
        .map(|l| painter.layout_no_wrap(l.text.clone(), font.clone(), egui::Color32::WHITE))
        .collect();
    for p in layout(scene, view_proj, rect, 18.0, |i| galleys[i].size().x) {
        let [r, g, b, _] = scene.labels[p.label].color;
        let color = egui::Color32::from_rgb(r, g, b);
        let galley = galleys[p.label].clone();
        let size = galley.size();
        // The underline runs from the outer edge to the connector's start.
        let outer = if p.left_side {
            rect.left() + 12.0
        } else {
            rect.right() - 12.0
        };
        let text_x = if p.left_side { outer } else { outer - size.x };
        painter.galley(
            egui::pos2(text_x, p.row.y - size.y - 2.0),
            galley,
            egui::Color32::WHITE,
        );
        let line = egui::Stroke::new(1.5, color);
        painter.line_segment([egui::pos2(outer, p.row.y), p.row], line);
        painter.line_segment([p.row, p.anchor], line);
        painter.circle_filled(p.anchor, 2.5, color);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Label;

    #[test]
    fn columns_never_cross() {
        let mut scene = Scene::default();
        for i in 0..12 {
            let a = i as f32 * 2.39996;
            scene.labels.push(Label {
                position: Vec3::new(a.cos(), (i as f32 * 0.7).sin(), a.sin()),
                text: format!("label {i}"),
                color: [255, 200, 0, 255],
                group: String::new(),
                lang: String::new(),
            });
        }
        let vp = Mat4::perspective_rh(1.0, 1.5, 0.1, 100.0)
            * Mat4::look_at_rh(Vec3::new(0.0, 0.5, 4.0), Vec3::ZERO, Vec3::Y);
        let rect = egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(600.0, 400.0));
        let placed = layout(&scene, vp, rect, 18.0, |i| 30.0 + 7.0 * i as f32);
        assert_eq!(placed.len(), 12);
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[i + 1..] {
                if a.left_side == b.left_side {
                    assert!(
                        !segments_cross((a.row, a.anchor), (b.row, b.anchor)),
                        "{a:?} crosses {b:?}"
                    );
                }
            }
        }
        // Behind the camera: not placed.
        scene.labels[0].position = Vec3::new(0.0, 0.0, 10.0);
        assert_eq!(layout(&scene, vp, rect, 18.0, |_| 40.0).len(), 11);
    }
}
