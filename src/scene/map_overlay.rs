//! Overlay lines for maps: sector outlines, the selected sector and cube,
//! cube boxes by type down to a depth, props, and what a cell sees. Plain
//! data in, a line list out; the app uploads it when the inputs change.

use super::Aabb;
use super::from_pmf::MapInfo;
use super::lines::{LineVertex, push_box, push_line};
use super::map::{CubeKind, Map};
use super::map_query::{self, CubeRef};

/// What to draw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MapOverlay {
    pub sectors: bool,
    pub selected_sector: Option<usize>,
    /// Boxes of the selected sector's cubes down to this depth, by type.
    pub depth: Option<u32>,
    pub selected_cube: Option<CubeRef>,
    pub hovered_cube: Option<CubeRef>,
    pub props: bool,
    /// Visible cubes and their sectors (outlined blue)...
    pub visible: Option<Vec<CubeRef>>,
    /// ...and the cubes themselves outlined green (one cell's view; a
    /// whole sector's view would bury the map in boxes).
    pub outline_visible_cubes: bool,
}

pub const SECTOR: [u8; 4] = [110, 120, 150, 255];
pub const SELECTED_SECTOR: [u8; 4] = [255, 255, 255, 255];
pub const SELECTED_CUBE: [u8; 4] = [255, 158, 26, 255];
pub const HOVERED_CUBE: [u8; 4] = [255, 240, 120, 255];
pub const VISIBLE_CUBE: [u8; 4] = [80, 255, 120, 255];
pub const VISIBLE_SECTOR: [u8; 4] = [60, 170, 255, 255];
pub const PROP: [u8; 4] = [255, 90, 90, 255];
/// Triangles of a hovered or selected cube drawn as edges, at most.
pub const MAX_HIGHLIGHT_TRIANGLES: usize = 20_000;

/// A box's edges, shrunk by `inset` so nested boxes stay apart.
pub fn box_lines(out: &mut Vec<LineVertex>, b: &Aabb, inset: f32, color: [u8; 4]) {
    let shrunk = Aabb {
        min: b.min + inset,
        max: b.max - inset,
    };
    push_box(out, &shrunk, color);
}

/// Colours of the cube types, in type order (overlay boxes, and the
/// inspector's octree and legend).
pub const CUBE_COLORS: [[u8; 4]; 6] = [
    [120, 120, 140, 255],
    [200, 200, 200, 255],
    [90, 200, 255, 255],
    [255, 170, 60, 255],
    [120, 255, 150, 255],
    [255, 110, 200, 255],
];

pub fn cube_color(kind: &CubeKind) -> [u8; 4] {
    CUBE_COLORS[kind.type_id() as usize]
}

/// The overlay's lines for `info`'s map: sector outlines, what a cell
/// sees, the selected sector and its cubes, the hovered and selected
/// cubes with their triangles, and props.
pub fn lines(info: &MapInfo, o: &MapOverlay) -> Vec<LineVertex> {
    let map = &info.map;
    let mut out = Vec::new();
    if o.sectors {
        for i in 0..map.sectors.len() {
            box_lines(&mut out, &sector_box(map, i), 0.0, SECTOR);
        }
    }
    if let Some(v) = &o.visible {
        visible_lines(&mut out, map, v, o.outline_visible_cubes);
    }
    if let Some(s) = o.selected_sector.filter(|&s| s < map.sectors.len()) {
        selected_sector_lines(&mut out, map, s, o.depth);
    }
    for (cube, color) in [
        (o.hovered_cube, HOVERED_CUBE),
        (o.selected_cube, SELECTED_CUBE),
    ] {
        if let Some(cube) = cube {
            cube_lines(&mut out, map, cube, color);
        }
    }
    if o.props {
        for s in &map.sectors {
            for p in &s.props {
                box_lines(
                    &mut out,
                    &Aabb {
                        min: p.origin - p.radius,
                        max: p.origin + p.radius,
                    },
                    0.0,
                    PROP,
                );
            }
        }
    }
    out
}

/// Sector `i`'s box in map units.
fn sector_box(map: &Map, i: usize) -> Aabb {
    let size = map.sector_size;
    let min = glam::Vec3::from(map.sector_coords(i).map(|v| v as f32 * size));
    Aabb {
        min,
        max: min + size,
    }
}

/// The sectors of the visible cubes `visible` outlined, and with
/// `outline_cubes` the cubes themselves; cubes the map does not have are
/// left out.
fn visible_lines(out: &mut Vec<LineVertex>, map: &Map, visible: &[CubeRef], outline_cubes: bool) {
    let size = map.sector_size;
    // A sector past the map's names nothing to draw.
    let mut sectors: Vec<usize> = visible
        .iter()
        .map(|&(s, _)| s)
        .filter(|&s| s < map.sectors.len())
        .collect();
    sectors.sort_unstable();
    sectors.dedup();
    for &s in &sectors {
        box_lines(out, &sector_box(map, s), size * 0.004, VISIBLE_SECTOR);
        if !outline_cubes {
            continue;
        }
        let places = map_query::cube_places(map, s);
        for &(_, c) in visible.iter().filter(|(vs, _)| *vs == s) {
            if let Some(p) = places.get(c).copied().flatten() {
                box_lines(out, &p.bounds, size * 0.01, VISIBLE_CUBE);
            }
        }
    }
}

/// Sector `s` outlined, and with `depth` its cubes' boxes down to that
/// depth in their type's colour (parents only at the depth itself).
fn selected_sector_lines(out: &mut Vec<LineVertex>, map: &Map, s: usize, depth: Option<u32>) {
    let size = map.sector_size;
    box_lines(out, &sector_box(map, s), -size * 0.002, SELECTED_SECTOR);
    let Some(depth) = depth else {
        return;
    };
    let places = map_query::cube_places(map, s);
    for (c, p) in places.iter().enumerate() {
        if let Some(p) = p
            && p.depth <= depth
        {
            let kind = &map.sectors[s].cubes[c].kind;
            if p.depth == depth || !matches!(kind, CubeKind::Parent(_)) {
                box_lines(out, &p.bounds, size * 0.003, cube_color(kind));
            }
        }
    }
}

/// A cube's box and its subtree's triangles as edges, up to
/// [`MAX_HIGHLIGHT_TRIANGLES`] (a whole sector's root would be tens of
/// thousands); nothing for a cube the map does not have.
fn cube_lines(out: &mut Vec<LineVertex>, map: &Map, (s, c): CubeRef, color: [u8; 4]) {
    let Some(p) = map_query::cube_places(map, s).get(c).copied().flatten() else {
        return;
    };
    box_lines(out, &p.bounds, 0.0, color);
    let tris = &map.sectors[s].triangles;
    let mut budget = MAX_HIGHLIGHT_TRIANGLES;
    for (first, n) in map_query::subtree_triangles(map, s, c) {
        for t in tris
            .iter()
            .skip(first as usize)
            .take((n as usize).min(budget))
        {
            for (a, b) in [(0, 1), (1, 2), (2, 0)] {
                push_line(out, t[a].to_array(), t[b].to_array(), color);
            }
        }
        budget = budget.saturating_sub(n as usize);
    }
}
