//! Coloured line lists: the plain geometry of overlays (bounds, grids, a
//! map's sectors and cubes), built here and uploaded by the GPU layer as
//! they are.

use super::Aabb;
use bytemuck::{Pod, Zeroable};

/// One end of a line in a line list: a position and an sRGB colour.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct LineVertex {
    pub position: [f32; 3],
    pub color: [u8; 4],
}

/// The 12 edges of a box as 24 line-list vertices (nothing for an empty box).
pub fn push_box(out: &mut Vec<LineVertex>, b: &Aabb, color: [u8; 4]) {
    if b.is_empty() {
        return;
    }
    let c = b.corners();
    for (a, e) in [
        (0, 1),
        (2, 3),
        (4, 5),
        (6, 7),
        (0, 2),
        (1, 3),
        (4, 6),
        (5, 7),
        (0, 4),
        (1, 5),
        (2, 6),
        (3, 7),
    ] {
        push_line(out, c[a].into(), c[e].into(), color);
    }
}

/// One line from `a` to `b`: its two vertices.
pub fn push_line(out: &mut Vec<LineVertex>, a: [f32; 3], b: [f32; 3], color: [u8; 4]) {
    out.push(LineVertex { position: a, color });
    out.push(LineVertex { position: b, color });
}
