//! The axes in the 3D view's corner: which way the scene's X, Y and Z point
//! from this camera (the scene is right-handed and Y up; files made Z up,
//! as Papa's are, were turned to Y up when converted). The positive axes
//! are lines ending in a lettered disc, the negative ones dimmer rings; the
//! nearer are drawn over the farther. A click on an end looks at the scene
//! from that side, as the `1` `3` `7` keys do.

use crate::gpu::camera::AxisView;
use glam::{Mat4, Vec3};

/// The axes' colours, X, Y and Z: red, green and blue, as in Blender and
/// most 3D tools, each kept off the pure primaries that tests count as a
/// team colour or a label's.
pub const COLORS: [egui::Color32; 3] = [
    egui::Color32::from_rgb(232, 72, 85),
    egui::Color32::from_rgb(128, 200, 48),
    egui::Color32::from_rgb(72, 136, 240),
];

/// The distance from the centre to each tip, and the corner's margin, in
/// points.
pub const RADIUS: f32 = 34.0;
const MARGIN: f32 = 14.0;

/// One end of an axis as the camera sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tip {
    /// 0, 1, 2: X, Y, Z.
    pub axis: usize,
    pub positive: bool,
    /// Where the end lands from the centre, the axis' length 1, in screen
    /// directions (x right, y down).
    pub offset: egui::Vec2,
    /// How near the viewer it is: 1 pointing straight at the eye, -1 away.
    pub nearness: f32,
}

/// The six ends of the axes under `view` (world to eye, the camera's
/// view matrix; only its rotation counts), farthest first: the order they
/// are drawn in.
pub fn tips(view: Mat4) -> [Tip; 6] {
    let eye = [Vec3::X, Vec3::Y, Vec3::Z].map(|a| view.transform_vector3(a).normalize_or_zero());
    let mut out: [Tip; 6] = std::array::from_fn(|i| {
        let (axis, positive) = (i % 3, i < 3);
        let d = if positive { eye[axis] } else { -eye[axis] };
        Tip {
            axis,
            positive,
            offset: egui::vec2(d.x, -d.y),
            // The eye looks down -Z in eye space: +Z comes towards it.
            nearness: d.z,
        }
    });
    out.sort_by(|a, b| a.nearness.total_cmp(&b.nearness));
    out
}

/// Where the axes' centre sits in `rect` (the 3D view): its bottom-left
/// corner.
pub fn centre(rect: egui::Rect) -> egui::Pos2 {
    rect.left_bottom() + egui::vec2(MARGIN + RADIUS, -(MARGIN + RADIUS))
}

/// The view from the side an axis' end points to: +X the right, +Y the
/// top, +Z the front.
pub fn view_from(axis: usize, positive: bool) -> AxisView {
    match (axis, positive) {
        (0, true) => AxisView::Right,
        (0, false) => AxisView::Left,
        (1, true) => AxisView::Top,
        (1, false) => AxisView::Bottom,
        (_, true) => AxisView::Front,
        (_, false) => AxisView::Back,
    }
}

/// A bone's own axes over the 3D view, from its posed head: the X, Y and
/// Z of its frame in model space (`Pose::world`; at rest, `Bone::rest`),
/// in the axes' colours, each ending in its letter and `reach` long:
/// which way the bone's frame turns, what a format's rotations act on
/// (bone roll, an exporter's axis swap). Nothing for a bone out of range
/// or a head behind the eye.
pub fn of_bone(
    ui: &egui::Ui,
    scene: &crate::scene::Scene,
    pose: Option<&crate::anim::Pose>,
    bone: usize,
    reach: f32,
    view_proj: Mat4,
    rect: egui::Rect,
) {
    let Some(b) = scene.skeleton.bones.get(bone) else {
        return;
    };
    let frame = pose.and_then(|p| p.world.get(bone)).unwrap_or(&b.rest);
    let head = frame.w_axis.truncate();
    let Some(at) = super::labels::project(view_proj, head, rect) else {
        return;
    };
    let painter = ui.painter_at(rect);
    let axes = [frame.x_axis, frame.y_axis, frame.z_axis];
    for (k, (axis, name)) in axes.iter().zip(["x", "y", "z"]).enumerate() {
        let dir = axis.truncate().normalize_or_zero();
        if dir == Vec3::ZERO {
            continue;
        }
        let Some(end) = super::labels::project(view_proj, head + dir * reach, rect) else {
            continue;
        };
        painter.line_segment([at, end], egui::Stroke::new(2.0, COLORS[k]));
        // The letter a little past the end, along the axis as drawn.
        let along = (end - at).normalized();
        painter.text(
            end + along * 7.0,
            egui::Align2::CENTER_CENTER,
            name,
            egui::FontId::proportional(11.0),
            COLORS[k],
        );
    }
}

/// How long a bone's axes are drawn: a third of its length, or, for a
/// bone with none (a file that stores no tails), `fallback`.
pub fn bone_reach(scene: &crate::scene::Scene, bone: usize, fallback: f32) -> f32 {
    let length = scene
        .skeleton
        .bones
        .get(bone)
        .map_or(0.0, |b| (b.tail - b.head).length());
    if length > 0.0 && length.is_finite() {
        length / 3.0
    } else {
        fallback
    }
}

/// Draws the axes in the bottom-left corner of `rect`; the view a click on
/// an end asks for. The ends take clicks in drawing order, so the nearer
/// of two that overlap gets it.
pub fn draw(ui: &egui::Ui, view: Mat4, rect: egui::Rect) -> Option<AxisView> {
    let painter = ui.painter_at(rect);
    let c = centre(rect);
    let font = egui::FontId::proportional(11.0);
    let mut clicked = None;
    for t in tips(view) {
        let color = COLORS[t.axis];
        let end = c + t.offset * RADIUS;
        let sign = if t.positive { "+" } else { "-" };
        let name = ["X", "Y", "Z"][t.axis];
        let response = ui
            .interact(
                egui::Rect::from_center_size(end, egui::vec2(16.0, 16.0)),
                ui.scope_id().with(("axis end", t.axis, t.positive)),
                egui::Sense::click(),
            )
            .on_hover_text(format!("look from {sign}{name}"));
        if response.clicked() {
            clicked = Some(view_from(t.axis, t.positive));
        }
        if response.hovered() {
            painter.circle_stroke(end, 9.5, egui::Stroke::new(1.5, egui::Color32::WHITE));
        }
        if t.positive {
            painter.line_segment([c, end], egui::Stroke::new(2.0, color));
            painter.circle_filled(end, 7.5, color);
            painter.text(
                end,
                egui::Align2::CENTER_CENTER,
                name,
                font.clone(),
                egui::Color32::from_gray(20),
            );
        } else {
            painter.circle(
                end,
                6.0,
                color.gamma_multiply(0.25),
                egui::Stroke::new(1.5, color.gamma_multiply(0.7)),
            );
        }
    }
    clicked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::camera::{AxisView, OrbitCamera};

    /// The view of an orbit camera set to `v`.
    fn looking(v: AxisView) -> Mat4 {
        let mut c = OrbitCamera::default();
        c.set_view(v);
        c.view()
    }

    fn tip(tips: &[Tip; 6], axis: usize, positive: bool) -> Tip {
        *tips
            .iter()
            .find(|t| t.axis == axis && t.positive == positive)
            .unwrap()
    }

    fn near(a: egui::Vec2, b: egui::Vec2) -> bool {
        (a - b).length() < 1e-4
    }

    /// The top view stops just short of straight down (the camera's
    /// `MAX_PITCH`, 1.55 rad: cos 1.55 = 0.021).
    fn near_top(a: egui::Vec2, b: egui::Vec2) -> bool {
        (a - b).length() < 0.03
    }

    #[test]
    fn each_view_points_the_axes_where_a_person_expects() {
        // Worked out by hand for a right-handed, Y-up scene (x right and y
        // down on the screen). From the front (the eye on +Z): X right, Y
        // up, Z at the eye.
        let front = tips(looking(AxisView::Front));
        assert!(near(tip(&front, 0, true).offset, egui::vec2(1.0, 0.0)));
        assert!(near(tip(&front, 1, true).offset, egui::vec2(0.0, -1.0)));
        assert!(tip(&front, 2, true).offset.length() < 1e-4);
        assert!((tip(&front, 2, true).nearness - 1.0).abs() < 1e-4);
        // The nearest last: +Z is drawn over everything, -Z first.
        assert_eq!((front[5].axis, front[5].positive), (2, true));
        assert_eq!((front[0].axis, front[0].positive), (2, false));
        // From the right (the eye on +X, up Y): the eye's right is -Z, so Z
        // points left; X at the eye.
        let right = tips(looking(AxisView::Right));
        assert!(near(tip(&right, 2, true).offset, egui::vec2(-1.0, 0.0)));
        assert!(near(tip(&right, 1, true).offset, egui::vec2(0.0, -1.0)));
        assert!((tip(&right, 0, true).nearness - 1.0).abs() < 1e-4);
        // From the top (the eye on +Y, looking down, the front at the
        // bottom of the screen): X right, Z down, Y at the eye.
        let top = tips(looking(AxisView::Top));
        assert!(near_top(tip(&top, 0, true).offset, egui::vec2(1.0, 0.0)));
        assert!(near_top(tip(&top, 2, true).offset, egui::vec2(0.0, 1.0)));
        assert!((tip(&top, 1, true).nearness - 1.0).abs() < 1e-3);
        // Each negative end is its positive end mirrored through the centre.
        for set in [front, right, top] {
            for t in set {
                let m = tip(&set, t.axis, !t.positive);
                assert!(near(t.offset, -m.offset) && (t.nearness + m.nearness).abs() < 1e-4);
            }
        }
    }
}
