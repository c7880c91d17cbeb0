//! Questions about a map's structure, answered from the scene's map model: where
//! each cube is, which chunk cube (visibility cell) holds a point, what a
//! cell can see, and which triangles of which meshes that is. The inspector,
//! the overlays and visibility culling all ask here.

use super::from_pmf::MapInfo;
use super::map::{CubeKind, Map, octant_signs};
use super::ray::{ray_box, ray_triangle};
use super::{Aabb, Vec3};
use std::ops::Range;

/// A cube of a sector: (sector index, cube index).
pub type CubeRef = (usize, usize);

/// Where a cube sits and how deep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubePlace {
    pub bounds: Aabb,
    pub depth: u32,
    pub parent: Option<usize>,
}

/// The place of every cube the sector's octree reaches (`None` for cubes it
/// does not reach; nothing for a sector past the map's).
pub fn cube_places(map: &Map, sector: usize) -> Vec<Option<CubePlace>> {
    let Some(s) = map.sectors.get(sector) else {
        return Vec::new();
    };
    let size = map.sector_size;
    let [x, y, z] = map.sector_coords(sector).map(|c| c as f32 * size);
    let mut out = vec![None; s.cubes.len()];
    if out.is_empty() {
        return out;
    }
    let root = Aabb {
        min: Vec3::new(x, y, z),
        max: Vec3::new(x + size, y + size, z + size),
    };
    out[0] = Some(CubePlace {
        bounds: root,
        depth: 0,
        parent: None,
    });
    // The decoder has checked the octree is a tree (no cycles).
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        let Some(place) = out[i] else { continue };
        if let CubeKind::Parent(children) = &s.cubes[i].kind {
            let half = (place.bounds.max - place.bounds.min) * 0.5;
            let center = place.bounds.min + half;
            for (k, &c) in children.iter().enumerate() {
                let c = c as usize;
                if c >= out.len() || out[c].is_some() {
                    continue;
                }
                let sign = Vec3::from(octant_signs(k));
                let min = center + Vec3::select(sign.cmpgt(Vec3::ZERO), Vec3::ZERO, -half);
                out[c] = Some(CubePlace {
                    bounds: Aabb {
                        min,
                        max: min + half,
                    },
                    depth: place.depth + 1,
                    parent: Some(i),
                });
                stack.push(c);
            }
        }
    }
    out
}

/// The sector holding `p` (map space), if any.
pub fn sector_at(map: &Map, p: Vec3) -> Option<usize> {
    let size = map.sector_size;
    let c = (p / size).floor();
    if c.min_element() < 0.0 {
        return None;
    }
    let coords = [c.x, c.y, c.z].map(|v| v.min(255.0) as u8);
    if c.max_element() > 255.0 {
        return None;
    }
    map.sector_index(coords)
}

/// The chunk cube (visibility cell) holding `p`: the first chunk cube on the
/// way down the octree to the leaf that contains it.
pub fn cell_at(map: &Map, p: Vec3) -> Option<CubeRef> {
    let si = sector_at(map, p)?;
    let s = &map.sectors[si];
    let size = map.sector_size;
    // The cube's box is halved on the way down: nothing is allocated (the
    // app asks every frame while culling).
    let mut min = Vec3::from(map.sector_coords(si).map(|c| c as f32 * size));
    let mut half = size * 0.5;
    let mut i = 0usize;
    for _ in 0..=s.cubes.len() {
        let cube = s.cubes.get(i)?;
        if cube.chunk.is_some() {
            return Some((si, i));
        }
        let CubeKind::Parent(children) = &cube.kind else {
            return None;
        };
        let center = min + half;
        let k = (p.x < center.x) as usize
            + 4 * (p.y < center.y) as usize
            + 2 * (p.z < center.z) as usize;
        min = Vec3::select(p.cmplt(center), min, center);
        half *= 0.5;
        i = children[k] as usize;
    }
    None
}

/// The chunk cube at or above `cube` (its cell).
pub fn chunk_of(map: &Map, sector: usize, cube: usize) -> Option<usize> {
    let places = cube_places(map, sector);
    let mut i = Some(cube);
    while let Some(c) = i {
        if map.sectors.get(sector)?.cubes.get(c)?.chunk.is_some() {
            return Some(c);
        }
        i = places.get(c).copied().flatten().and_then(|p| p.parent);
    }
    None
}

/// The triangle ranges `(first, count)` of `cube` and everything under it.
pub fn subtree_triangles(map: &Map, sector: usize, cube: usize) -> Vec<(u32, u32)> {
    let Some(s) = map.sectors.get(sector) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![cube];
    let mut guard = 0;
    while let Some(i) = stack.pop() {
        guard += 1;
        if guard > s.cubes.len() {
            break;
        }
        let Some(c) = s.cubes.get(i) else { continue };
        match &c.kind {
            CubeKind::Parent(ch) => stack.extend(ch.iter().map(|&x| x as usize)),
            k => {
                if let Some((first, n)) = k.triangles()
                    && n > 0
                {
                    out.push((first, n));
                }
            }
        }
    }
    out
}

/// What a chunk cube sees: its visible sectors' listed cubes.
pub fn visible_cubes(map: &Map, sector: usize, chunk: usize) -> Vec<CubeRef> {
    let Some(c) = map
        .sectors
        .get(sector)
        .and_then(|s| s.cubes.get(chunk)?.chunk.as_ref())
    else {
        return Vec::new();
    };
    c.visible
        .iter()
        .filter_map(|(sector, cubes)| Some((map.sector_index(*sector)?, cubes)))
        .flat_map(|(si, cubes)| cubes.iter().map(move |&ci| (si, ci as usize)))
        .collect()
}

/// The union of what a sector's chunk cubes see.
pub fn visible_from_sector(map: &Map, sector: usize) -> Vec<CubeRef> {
    let mut out: Vec<CubeRef> = (0..map.sectors[sector].cubes.len())
        .flat_map(|c| visible_cubes(map, sector, c))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Per mesh, the index ranges to draw so that exactly the triangles of
/// `cubes` (and their subtrees) are drawn; meshes of sectors with nothing
/// visible get an empty list.
pub fn draw_ranges(info: &MapInfo, cubes: &[CubeRef]) -> Vec<Vec<Range<u32>>> {
    let map = &info.map;
    // Sector triangles to draw, per sector.
    let mut wanted: Vec<Vec<(u32, u32)>> = vec![Vec::new(); map.sectors.len()];
    for &(si, ci) in cubes {
        if si < map.sectors.len() {
            wanted[si].extend(subtree_triangles(map, si, ci));
        }
    }
    let mut out = vec![Vec::new(); info.mesh_triangles.len()];
    for (mesh, tris) in info.mesh_triangles.iter().enumerate() {
        let (si, _) = info.mesh_source[mesh];
        let mut local: Vec<u32> = Vec::new();
        for &(first, n) in &wanted[si] {
            for t in first..first + n {
                if let Ok(k) = tris.binary_search(&t) {
                    local.push(k as u32);
                }
            }
        }
        local.sort_unstable();
        local.dedup();
        let mut ranges: Vec<Range<u32>> = Vec::new();
        for k in local {
            match ranges.last_mut() {
                Some(r) if r.end == k * 3 => r.end += 3,
                _ => ranges.push(k * 3..k * 3 + 3),
            }
        }
        out[mesh] = ranges;
    }
    out
}

/// Triangles of `cubes` (and their subtrees), counted from the cubes alone.
pub fn triangle_count(map: &Map, cubes: &[CubeRef]) -> u64 {
    let mut seen = std::collections::HashSet::new();
    for &(si, ci) in cubes {
        for (first, n) in subtree_triangles(map, si, ci) {
            for t in first..first + n {
                seen.insert((si, t));
            }
        }
    }
    seen.len() as u64
}

/// The nearest map triangle a ray hits: (sector, triangle, distance along
/// `dir`, which need not be normalised). Both faces count.
pub fn pick(map: &Map, origin: Vec3, dir: Vec3) -> Option<(usize, usize, f32)> {
    let size = map.sector_size;
    let mut best: Option<(usize, usize, f32)> = None;
    for (si, s) in map.sectors.iter().enumerate() {
        let min = Vec3::from(map.sector_coords(si).map(|c| c as f32 * size));
        let Some(enter) = ray_box(origin, dir, min, min + size) else {
            continue;
        };
        if best.is_some_and(|(_, _, t)| t < enter) {
            continue;
        }
        for (ti, tri) in s.triangles.iter().enumerate() {
            if let Some(t) = ray_triangle(origin, dir, *tri)
                && best.is_none_or(|(_, _, b)| t < b)
            {
                best = Some((si, ti, t));
            }
        }
    }
    best
}

/// The leaf cube that owns a sector triangle.
pub fn cube_of_triangle(map: &Map, sector: usize, triangle: usize) -> Option<usize> {
    map.sectors[sector].cubes.iter().position(|c| {
        c.kind
            .triangles()
            .is_some_and(|(first, n)| (first as usize..(first + n) as usize).contains(&triangle))
    })
}
