//! A part's UV layout for the inspector: its triangles drawn in texture
//! space over the texture its material samples, the way artists check a
//! model's unwrap. u runs right and v down the image, as the scene keeps
//! them (its row 0 at v = 0); the square 0..1 fills the middle eight tenths,
//! so UVs a little outside it show and farther ones are cut at the edge.

use super::vertex::MARK;
use crate::anim::pick::VertexHit;
use crate::scene::{Mesh, Primitive};
use egui::{Color32, Pos2, Rect, Stroke, StrokeKind};
use glam::Vec2;

/// The most triangles drawn (a frame's shapes stay few; the caption says
/// when a part has more).
pub const MAX_TRIANGLES: usize = 20_000;

/// The edges' colour: orange over any texture, as the selection outline.
pub const EDGE: Color32 = Color32::from_rgb(255, 170, 40);

/// Where the layout's 0..1 square lies in a layout drawn in `rect`.
pub fn unit_square(rect: Rect) -> Rect {
    rect.shrink(rect.width().min(rect.height()) * 0.1)
}

/// Draws `mesh`'s UV triangles `side` points square over `texture` (or a
/// plain square without one), and a caption counting them; `picked`, a
/// vertex clicked on this part, is marked with its triangle as in the 3D
/// view.
pub fn layout(
    ui: &mut egui::Ui,
    mesh: &Mesh,
    texture: Option<egui::TextureId>,
    side: f32,
    picked: Option<&VertexHit>,
) {
    let (rect, response) = ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::hover());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, "UV layout"));
    let painter = ui.painter_at(rect);
    let square = unit_square(rect);
    painter.rect_filled(rect, 0.0, Color32::from_gray(20));
    match texture {
        Some(id) => {
            let whole = Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0));
            painter.image(id, square, whole, Color32::WHITE);
        }
        None => {
            painter.rect_filled(square, 0.0, Color32::from_gray(45));
        }
    }
    painter.rect_stroke(
        square,
        0.0,
        Stroke::new(1.0, Color32::from_gray(110)),
        StrokeKind::Outside,
    );
    // Far-off UVs are clamped, so the painter is never given a point it
    // cannot place (the clip rect cuts them anyway).
    let at = |uv: Vec2| {
        let uv = uv.clamp(Vec2::splat(-100.0), Vec2::splat(100.0));
        square.min + egui::vec2(uv.x * square.width(), uv.y * square.height())
    };
    let stroke = Stroke::new(1.0, EDGE);
    let triangles = match mesh.primitive {
        Primitive::Triangles => mesh.indices.len() / 3,
        Primitive::Lines | Primitive::Points => 0,
    };
    // Three segments a triangle: shapes held inline, where a closed path
    // would allocate its points for each triangle every frame.
    let edges = mesh
        .indices
        .chunks_exact(3)
        .take(MAX_TRIANGLES.min(triangles))
        .filter_map(|t| {
            let corner = |k: usize| {
                mesh.uvs
                    .get(t[k] as usize)
                    .copied()
                    .filter(|p| p.is_finite())
            };
            Some([at(corner(0)?), at(corner(1)?), at(corner(2)?)])
        })
        .flat_map(|[a, b, c]| [[a, b], [b, c], [c, a]])
        .map(|points| egui::Shape::LineSegment { points, stroke });
    painter.extend(edges);
    if let Some(hit) = picked {
        let uv = |v: u32| {
            mesh.uvs
                .get(v as usize)
                .copied()
                .filter(|p| p.is_finite())
                .map(at)
        };
        if let [Some(a), Some(b), Some(c)] = hit.corners.map(uv) {
            let stroke = Stroke::new(1.5, MARK);
            painter.extend(
                [[a, b], [b, c], [c, a]].map(|points| egui::Shape::LineSegment { points, stroke }),
            );
        }
        if let Some(p) = uv(hit.vertex) {
            painter.circle(p, 3.5, MARK, Stroke::new(1.0, Color32::BLACK));
        }
    }
    let caption = if triangles > MAX_TRIANGLES {
        format!("the first {MAX_TRIANGLES} of {triangles} triangles")
    } else {
        let s = if triangles == 1 { "" } else { "s" };
        format!("{triangles} triangle{s}")
    };
    ui.weak(caption);
}
