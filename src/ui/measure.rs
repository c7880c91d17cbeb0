//! The measuring tape (`M`, View > Measure): two points clicked on the
//! model or the map, the straight line between them drawn over the 3D view
//! and its length in the status bar, in the scene's units and, where the
//! format gives its unit, in metres.

use super::numbers::length_text;
use glam::{Mat4, Vec3};

/// The points of a measurement: none, the first, or both.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measure {
    pub points: Vec<Vec3>,
}

impl Measure {
    /// A clicked point: the first of a new measurement once both are set.
    pub fn add(&mut self, p: Vec3) {
        if self.points.len() >= 2 {
            self.points.clear();
        }
        self.points.push(p);
    }

    /// From the first point to the second, once both are set.
    pub fn span(&self) -> Option<Vec3> {
        match self.points.as_slice() {
            [a, b] => Some(*b - *a),
            _ => None,
        }
    }

    /// For the status bar and the log: what to click next, or the length
    /// and its run along each axis (`1.2 along x, ...`), and in metres where
    /// `metres_per_unit` (`Scene::unit_in_metres`) says what a unit is.
    pub fn describe(&self, metres_per_unit: Option<f32>) -> String {
        let Some(d) = self.span() else {
            return match self.points.len() {
                0 => "measuring: click the first point".into(),
                _ => "measuring: click the second point".into(),
            };
        };
        let n = |x: f32| length_text(x.abs());
        format!(
            "distance {} ({} along x, {} along y, {} along z)",
            length(d.length(), metres_per_unit),
            n(d.x),
            n(d.y),
            n(d.z)
        )
    }
}

/// A length `x` in model units, and in metres where a unit's size is known:
/// `5 = 0.05 m`, `5 m` (a unit is a metre), `5`.
fn length(x: f32, metres_per_unit: Option<f32>) -> String {
    match metres_per_unit {
        Some(m) if m != 1.0 => format!("{} = {} m", length_text(x), length_text(x * m)),
        Some(_) => format!("{} m", length_text(x)),
        None => length_text(x),
    }
}

/// The measurement over the 3D view: a dot at each point, the line between
/// them and its length at its middle (drawn over the model, so a point
/// behind something still shows where it is).
pub fn draw(
    ui: &egui::Ui,
    measure: &Measure,
    metres_per_unit: Option<f32>,
    view_proj: Mat4,
    rect: egui::Rect,
) {
    let painter = ui.painter_at(rect);
    let colour = egui::Color32::from_rgb(255, 120, 40);
    let at: Vec<Option<egui::Pos2>> = measure
        .points
        .iter()
        .map(|&p| super::labels::project(view_proj, p, rect))
        .collect();
    if let [Some(a), Some(b)] = at.as_slice() {
        painter.line_segment([*a, *b], egui::Stroke::new(2.0, colour));
        if let Some(d) = measure.span() {
            let text = length(d.length(), metres_per_unit);
            let galley = painter.layout_no_wrap(
                text,
                egui::FontId::proportional(13.0),
                egui::Color32::WHITE,
            );
            let mid = a.lerp(*b, 0.5);
            let plate = egui::Rect::from_center_size(mid, galley.size() + egui::vec2(8.0, 4.0));
            painter.rect_filled(plate, 3.0, egui::Color32::from_black_alpha(180));
            painter.galley(
                plate.min + egui::vec2(4.0, 2.0),
                galley,
                egui::Color32::WHITE,
            );
        }
    }
    for p in at.into_iter().flatten() {
        painter.circle(p, 4.0, colour, egui::Stroke::new(1.5, egui::Color32::BLACK));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measure_runs_from_its_first_point_to_its_second() {
        let mut m = Measure::default();
        assert_eq!(m.describe(None), "measuring: click the first point");
        m.add(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(m.span(), None);
        assert_eq!(m.describe(None), "measuring: click the second point");
        // 3, -4 and 0 along the axes: 5 long.
        m.add(Vec3::new(4.0, -2.0, 3.0));
        assert_eq!(m.span(), Some(Vec3::new(3.0, -4.0, 0.0)));
        assert_eq!(
            m.describe(None),
            "distance 5 (3 along x, 4 along y, 0 along z)"
        );
        // In centimetres, 5 units are 0.05 m; in metres, 5 m.
        assert_eq!(
            m.describe(Some(0.01)),
            "distance 5 = 0.05 m (3 along x, 4 along y, 0 along z)"
        );
        assert!(m.describe(Some(1.0)).starts_with("distance 5 m ("));
        // A third click starts again.
        m.add(Vec3::ZERO);
        assert_eq!(m.points, vec![Vec3::ZERO]);
    }
}
