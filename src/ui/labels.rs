//! Names over the 3D view: bone names, and annotation labels (M3D LBLS)
//! as the format asks: texts in columns on the left and right of the
//! model, underlined in the label's colour, the underline's end joined to
//! the labelled point. Rows start in the order of the points' heights;
//! crossing connectors then swap rows until none cross (each swap shortens
//! the total length, so it ends).

use crate::scene::Scene;
use glam::{Mat4, Vec3};

/// Where a label's point lands in the view (points), or `None` when it is
/// behind the camera or not a place at all (a hostile file's NaN pose).
pub fn project(view_proj: Mat4, p: Vec3, rect: egui::Rect) -> Option<egui::Pos2> {
    let c = view_proj * p.extend(1.0);
    // A NaN would pass `c.w <= 1e-6` alone.
    if c.w.is_nan() || c.w <= 1e-6 {
        return None;
    }
    let ndc = c.truncate() / c.w;
    let at = egui::pos2(
        rect.left() + (ndc.x * 0.5 + 0.5) * rect.width(),
        rect.top() + (0.5 - ndc.y * 0.5) * rect.height(),
    );
    (at.x.is_finite() && at.y.is_finite()).then_some(at)
}

/// Bone names over the 3D view: each bone's name just above and right of
/// its posed head, on a dark plate so it reads over any model; the selected
/// bone's first and highlighted. A name that would overlap one already
/// placed is left out (a hand's twenty finger bones would otherwise be one
/// blot), so zooming in shows more of them. `all`: every bone's name, else
/// the selected bone's alone.
pub fn bone_names(
    ui: &egui::Ui,
    scene: &Scene,
    pose: Option<&crate::anim::Pose>,
    view_proj: Mat4,
    rect: egui::Rect,
    selected: Option<usize>,
    all: bool,
) {
    let bones = &scene.skeleton.bones;
    let head = |i: usize| {
        pose.and_then(|p| p.world.get(i))
            .map_or(bones[i].head, |m| m.w_axis.truncate())
    };
    let selected = selected.filter(|&s| s < bones.len());
    let anchors: Vec<(usize, egui::Pos2)> = selected
        .into_iter()
        .chain((0..bones.len()).filter(|&i| all && Some(i) != selected))
        .filter_map(|i| Some((i, project(view_proj, head(i), rect)?)))
        .filter(|(_, at)| rect.expand(200.0).contains(*at))
        .take(MAX_BONE_NAMES)
        .collect();
    let painter = ui.painter_at(rect);
    let font = egui::FontId::proportional(12.0);
    let text = ui.visuals().strong_text_color();
    let galleys: Vec<_> = anchors
        .iter()
        .map(|&(i, _)| {
            let color = if Some(i) == selected {
                egui::Color32::from_rgb(255, 200, 60)
            } else {
                text
            };
            painter.layout_no_wrap(bones[i].name.clone(), font.clone(), color)
        })
        .collect();
    let placed = place_names(&anchors, |k| galleys[k].size() + 2.0 * NAME_PAD, rect);
    for (k, r) in placed {
        painter.rect_filled(r, 3.0, egui::Color32::from_black_alpha(160));
        painter.galley(r.min + NAME_PAD, galleys[k].clone(), text);
    }
}

/// The most bone names tried in a frame (each is laid out, and checked
/// against those kept): far more than a view has room for.
const MAX_BONE_NAMES: usize = 1000;

/// The space around a bone's name on its plate, in points.
const NAME_PAD: egui::Vec2 = egui::vec2(3.0, 1.0);

/// Where the names of `anchors` (a name's index in it, and its bone's
/// projected head) go, in that order of precedence: each plate of
/// `size(k)` with its bottom-left corner 4 points right of and above its
/// anchor, kept where it overlaps no plate kept before it and touches
/// `rect`. Pure, so that it is tested without a window.
pub fn place_names(
    anchors: &[(usize, egui::Pos2)],
    size: impl Fn(usize) -> egui::Vec2,
    rect: egui::Rect,
) -> Vec<(usize, egui::Rect)> {
    let mut placed: Vec<(usize, egui::Rect)> = Vec::new();
    for (k, &(_, at)) in anchors.iter().enumerate() {
        let s = size(k);
        let r = egui::Rect::from_min_size(at + egui::vec2(4.0, -4.0 - s.y), s);
        if r.intersects(rect) && !placed.iter().any(|(_, p)| p.intersects(r)) {
            placed.push((k, r));
        }
    }
    placed
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
    fn points_land_in_the_view_and_nans_and_points_behind_nowhere() {
        // The identity projection over a 200 x 100 view: (0.5, 0.5) is
        // three quarters across and a quarter down.
        let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(200.0, 100.0));
        let at = |p: Vec3| project(Mat4::IDENTITY, p, rect);
        assert_eq!(at(Vec3::new(0.5, 0.5, 0.0)), Some(egui::pos2(150.0, 25.0)));
        assert_eq!(at(Vec3::new(f32::NAN, 0.0, 0.0)), None);
        assert_eq!(at(Vec3::new(f32::INFINITY, 0.0, 0.0)), None);
        // w = -1: behind the eye; w NaN: nowhere.
        let flip = Mat4::from_cols(
            glam::Vec4::X,
            glam::Vec4::Y,
            glam::Vec4::Z,
            glam::Vec4::new(0.0, 0.0, 0.0, -1.0),
        );
        assert_eq!(project(flip, Vec3::ZERO, rect), None);
        assert_eq!(
            project(Mat4::from_cols_array(&[f32::NAN; 16]), Vec3::ZERO, rect),
            None
        );
    }

    #[test]
    fn bone_names_sit_above_right_of_their_heads_and_never_overlap() {
        // Plates 40 x 10 in a 200 x 100 view. Name 0 at (10, 50): its plate
        // spans x 14..54, y 36..46. Name 1 at (30, 52) would span x 34..74,
        // y 38..48: it overlaps 0's and is left out. Name 2 at (60, 50):
        // x 64..104, clear of 0's. Name 3 at (300, 50) lies wholly right of
        // the view; name 4 at (-30, 50) spans x -26..14, half in the view,
        // and touches 0's plate at x 14 only: touching counts as
        // overlapping, so it is left out too.
        let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(200.0, 100.0));
        let anchors = [
            (7, egui::pos2(10.0, 50.0)),
            (8, egui::pos2(30.0, 52.0)),
            (9, egui::pos2(60.0, 50.0)),
            (10, egui::pos2(300.0, 50.0)),
            (11, egui::pos2(-30.0, 50.0)),
        ];
        let placed = place_names(&anchors, |_| egui::vec2(40.0, 10.0), rect);
        let r = |x0: f32, y0: f32| {
            egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x0 + 40.0, y0 + 10.0))
        };
        assert_eq!(placed, vec![(0, r(14.0, 36.0)), (2, r(64.0, 36.0))]);
        // Precedence is the order given (the selected bone's name first):
        // with 1 first, 0 is the one left out.
        let swapped = [anchors[1], anchors[0]];
        let placed = place_names(&swapped, |_| egui::vec2(40.0, 10.0), rect);
        assert_eq!(placed, vec![(0, r(34.0, 38.0))]);
    }

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
