//! A PMF map generator: a voxel town (terrain blocks, ramps, walls with
//! doorways between sectors) turned into what a map compiler would write:
//! a cube octree per sector, two triangles per exposed voxel face (ramps are
//! angled cubes), a lightmap atlas per sector baked from a sun with voxel
//! shadows and an ambient term, dynamic and fast lights, props, entities,
//! and chunk cubes whose visible sets come from a ray test through the
//! voxels. Deterministic: the same [`Params`] give the same bytes.
//!
//! Used by the tests, the benchmark (a >= 1M-triangle map) and
//! `assets/demo.pmf` (`facet gen-assets`).

use crate::formats::pmf::*;
use crate::formats::pmf_write;

#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// Sectors along X, Y, Z.
    pub sectors: [u8; 3],
    /// Octree depth: a sector is `2^depth` voxels a side.
    pub depth: u32,
    /// Sector edge length is `2^sector_size_exp` map units.
    pub sector_size_exp: u8,
    /// Wall height in voxels (0: no walls).
    pub wall_height: u32,
    /// Chunk cubes are the octree nodes at this depth (or shallower leaves).
    pub chunk_depth: u32,
    /// Cells further apart than this many sectors (along any axis) are not
    /// ray-tested and not visible to each other (0: every pair is tested).
    /// Large maps need it: the test is quadratic in cells.
    pub visibility_range: u8,
}

impl Params {
    /// `assets/demo.pmf`: 4 x 1 x 4 sectors of 32^3 voxels.
    pub const DEMO: Params = Params {
        sectors: [4, 1, 4],
        depth: 5,
        sector_size_exp: 5,
        wall_height: 10,
        chunk_depth: 2,
        visibility_range: 0,
    };
    /// About a million triangles: 12 x 1 x 12 sectors like the demo's
    /// (benchmarks).
    pub const MILLION: Params = Params {
        sectors: [12, 1, 12],
        depth: 5,
        sector_size_exp: 5,
        wall_height: 10,
        chunk_depth: 2,
        visibility_range: 2,
    };
    /// The corpus's seed map (`tests/corpus/pmf/seed_small_map.pmf`, for the
    /// fuzzer and the sweeps): 2 x 1 x 1 sectors of 8^3 voxels, 47 KB,
    /// with every part a map has, loaded in half a millisecond.
    pub const SEED: Params = Params {
        sectors: [2, 1, 1],
        depth: 3,
        sector_size_exp: 3,
        wall_height: 3,
        chunk_depth: 1,
        visibility_range: 0,
    };
    /// A small map for quick tests: 2 x 1 x 2 sectors of 16^3 voxels.
    pub const SMALL: Params = Params {
        sectors: [2, 1, 2],
        depth: 4,
        sector_size_exp: 4,
        wall_height: 6,
        chunk_depth: 2,
        visibility_range: 0,
    };
}

/// Voxel contents.
const EMPTY: u8 = 0;
const SOLID: u8 = 1;
/// A wedge, high at -X, low at +X.
const RAMP: u8 = 2;

/// Luxels a side of a face's lightmap tile.
const TILE: u32 = 4;

fn hash(x: i64, z: i64, salt: u64) -> u64 {
    let mut h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (z as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ salt.wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^= h >> 31;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^ (h >> 29)
}

struct World {
    dims: [usize; 3],
    voxels: Vec<u8>,
    /// Sector edge in voxels.
    s: usize,
    voxel_size: f32,
}

impl World {
    fn get(&self, x: i64, y: i64, z: i64) -> u8 {
        let [w, h, d] = self.dims.map(|v| v as i64);
        if y < 0 {
            return SOLID; // bedrock
        }
        if x < 0 || z < 0 || x >= w || z >= d || y >= h {
            return EMPTY; // open around and above
        }
        self.voxels[((y * d + z) * w + x) as usize]
    }

    fn set(&mut self, x: usize, y: usize, z: usize, v: u8) {
        let [w, _, d] = self.dims;
        self.voxels[(y * d + z) * w + x] = v;
    }

    fn opaque(&self, x: i64, y: i64, z: i64) -> bool {
        self.get(x, y, z) == SOLID
    }

    /// Line of sight between two points (voxel units) through non-solid
    /// voxels, sampled at a quarter voxel.
    fn clear(&self, a: [f32; 3], b: [f32; 3]) -> bool {
        let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let steps = (len * 4.0).ceil().max(1.0) as u32;
        (1..steps).all(|i| {
            let t = i as f32 / steps as f32;
            let p = [a[0] + d[0] * t, a[1] + d[1] * t, a[2] + d[2] * t];
            !self.opaque(
                p[0].floor() as i64,
                p[1].floor() as i64,
                p[2].floor() as i64,
            )
        })
    }
}

fn build_world(p: &Params) -> World {
    let s = 1usize << p.depth;
    let dims = [
        p.sectors[0] as usize * s,
        p.sectors[1] as usize * s,
        p.sectors[2] as usize * s,
    ];
    let mut w = World {
        dims,
        voxels: vec![EMPTY; dims[0] * dims[1] * dims[2]],
        s,
        voxel_size: (1u64 << p.sector_size_exp) as f32 / s as f32,
    };
    let top = dims[1].saturating_sub(2).max(1);
    let height = |x: usize, z: usize| -> usize {
        // Terrain in 2x2 blocks, 1..=6 voxels high.
        (1 + hash(x as i64 / 2, z as i64 / 2, 1) % 6).min(top as u64) as usize
    };
    for z in 0..dims[2] {
        for x in 0..dims[0] {
            let h = height(x, z);
            for y in 0..h {
                w.set(x, y, z, SOLID);
            }
            // A ramp up to the next block where it is one voxel higher.
            if x > 0
                && height(x - 1, z) == h + 1
                && h < dims[1]
                && hash(x as i64, z as i64, 2).is_multiple_of(3)
            {
                w.set(x, h, z, RAMP);
            }
        }
    }
    // Walls along sector borders with a doorway in the middle of each.
    let wall_h = (p.wall_height as usize).min(dims[1]);
    if wall_h > 0 {
        let door_w = (s / 4).max(2);
        let door_h = (wall_h / 2).max(3).min(wall_h);
        for z in 0..dims[2] {
            for x in 0..dims[0] {
                let on_x = x % s == 0 && x > 0;
                let on_z = z % s == 0 && z > 0;
                if !(on_x || on_z) {
                    continue;
                }
                let along = if on_x { z % s } else { x % s };
                let door = (s / 2 - door_w / 2..s / 2 + door_w / 2).contains(&along);
                for y in 0..wall_h {
                    if door && y >= height(x, z) && y < height(x, z) + door_h {
                        w.set(x, y, z, EMPTY);
                    } else {
                        w.set(x, y, z, SOLID);
                    }
                }
            }
        }
    }
    w
}

/// A face quad under construction: corners (voxel units) and the normal.
struct Face {
    corners: Vec<[f32; 3]>,
    normal: [f32; 3],
}

/// The unit cube's faces in the order +X, +Y, +Z, -X, -Y, -Z: a normal and
/// four corners (counter-clockwise seen from outside).
fn cube_face(f: usize, o: [f32; 3]) -> Face {
    let [x, y, z] = o;
    let (normal, c): ([f32; 3], [[f32; 3]; 4]) = match f {
        0 => (
            [1.0, 0.0, 0.0],
            [
                [1.0, 0.0, 1.0],
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [1.0, 1.0, 1.0],
            ],
        ),
        1 => (
            [0.0, 1.0, 0.0],
            [
                [0.0, 1.0, 1.0],
                [1.0, 1.0, 1.0],
                [1.0, 1.0, 0.0],
                [0.0, 1.0, 0.0],
            ],
        ),
        2 => (
            [0.0, 0.0, 1.0],
            [
                [0.0, 0.0, 1.0],
                [1.0, 0.0, 1.0],
                [1.0, 1.0, 1.0],
                [0.0, 1.0, 1.0],
            ],
        ),
        3 => (
            [-1.0, 0.0, 0.0],
            [
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 1.0],
                [0.0, 1.0, 1.0],
                [0.0, 1.0, 0.0],
            ],
        ),
        4 => (
            [0.0, -1.0, 0.0],
            [
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 0.0, 1.0],
                [0.0, 0.0, 1.0],
            ],
        ),
        _ => (
            [0.0, 0.0, -1.0],
            [
                [1.0, 0.0, 0.0],
                [0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [1.0, 1.0, 0.0],
            ],
        ),
    };
    Face {
        corners: c.iter().map(|p| [p[0] + x, p[1] + y, p[2] + z]).collect(),
        normal,
    }
}

const DIRS: [[i64; 3]; 6] = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [-1, 0, 0],
    [0, -1, 0],
    [0, 0, -1],
];

/// A sector being built.
struct SectorBuild {
    origin: [usize; 3],
    cubes: Vec<Cube>,
    triangles: Vec<Triangle>,
    /// Per triangle: its lightmap tile (faces share a tile per quad).
    faces: Vec<(Face, u32)>,
    /// Depth of each cube (chunk selection).
    depth: Vec<u32>,
    /// The voxel-space box of each cube.
    bounds: Vec<([usize; 3], usize)>,
}

fn material_of(w: &World, x: usize, y: usize, z: usize) -> u16 {
    if y > 6 || (x.is_multiple_of(w.s) && x > 0) || (z.is_multiple_of(w.s) && z > 0) {
        2 // wall
    } else if y + 1 >= 1 && w.get(x as i64, y as i64 + 1, z as i64) == EMPTY {
        0 // ground top
    } else {
        1 // rock
    }
}

impl SectorBuild {
    fn build(&mut self, w: &World, at: [usize; 3], size: usize, depth: u32) -> u16 {
        let index = self.cubes.len();
        self.cubes.push(Cube {
            lighting: None,
            chunk: None,
            kind: CubeKind::Empty,
        });
        self.depth.push(depth);
        self.bounds.push((at, size));
        let g = |x: usize, y: usize, z: usize| {
            w.get(
                (self.origin[0] + at[0] + x) as i64,
                (self.origin[1] + at[1] + y) as i64,
                (self.origin[2] + at[2] + z) as i64,
            )
        };
        let mut all_empty = true;
        let mut all_solid = true;
        for y in 0..size {
            for z in 0..size {
                for x in 0..size {
                    let v = g(x, y, z);
                    all_empty &= v == EMPTY;
                    all_solid &= v == SOLID;
                }
            }
        }
        let world = [
            self.origin[0] + at[0],
            self.origin[1] + at[1],
            self.origin[2] + at[2],
        ];
        let kind = if all_empty {
            CubeKind::Empty
        } else if all_solid && size > 1 && enclosed(w, world, size) {
            // Buried: a solid leaf with no faces.
            CubeKind::Solid {
                material: 1,
                lightmap: 0,
                triangle: self.triangles.len() as u32,
                faces: 0,
            }
        } else if size == 1 {
            self.leaf(w, world)
        } else {
            let half = size / 2;
            let mut children = [0u16; 8];
            for (i, c) in children.iter_mut().enumerate() {
                let [sx, sy, sz] = octant_signs(i);
                let o = [
                    at[0] + if sx > 0.0 { half } else { 0 },
                    at[1] + if sy > 0.0 { half } else { 0 },
                    at[2] + if sz > 0.0 { half } else { 0 },
                ];
                *c = self.build(w, o, half, depth + 1);
            }
            CubeKind::Parent(children)
        };
        self.cubes[index].kind = kind;
        index as u16
    }

    fn leaf(&mut self, w: &World, [x, y, z]: [usize; 3]) -> CubeKind {
        let (xi, yi, zi) = (x as i64, y as i64, z as i64);
        let first = self.triangles.len() as u32;
        let o = [x as f32, y as f32, z as f32];
        let open = |d: [i64; 3]| w.get(xi + d[0], yi + d[1], zi + d[2]) != SOLID;
        let material = material_of(w, x, y, z);
        if w.get(xi, yi, zi) == RAMP {
            // Plane: the slope from the top of -X to the bottom of +X.
            let plane = Face {
                corners: vec![
                    [o[0], o[1] + 1.0, o[2] + 1.0],
                    [o[0] + 1.0, o[1], o[2] + 1.0],
                    [o[0] + 1.0, o[1], o[2]],
                    [o[0], o[1] + 1.0, o[2]],
                ],
                normal: [
                    std::f32::consts::FRAC_1_SQRT_2,
                    std::f32::consts::FRAC_1_SQRT_2,
                    0.0,
                ],
            };
            self.quad(plane);
            let mut counts = [2u8, 0, 0, 0, 0, 0, 0];
            // The two triangular sides, +Z and -Z, when open.
            for (k, (dz, zc)) in [(1i64, 1.0f32), (-1, 0.0)].into_iter().enumerate() {
                if open([0, 0, dz]) {
                    let tri = Face {
                        corners: vec![
                            [o[0], o[1], o[2] + zc],
                            [o[0] + 1.0, o[1], o[2] + zc],
                            [o[0], o[1] + 1.0, o[2] + zc],
                        ],
                        normal: [0.0, 0.0, dz as f32],
                    };
                    self.triangle(tri, dz < 0);
                    counts[if k == 0 { 3 } else { 6 }] = 1;
                }
            }
            return CubeKind::Angled {
                material: 3,
                lightmap: 0,
                triangle: first,
                counts,
                fill: 0.5,
                pitch: 0.25,
                yaw: 0.25,
            };
        }
        let _ = material;
        let mut faces = 0u8;
        for (f, d) in DIRS.iter().enumerate() {
            if open(*d) {
                faces |= 1 << (5 - f);
                self.quad(cube_face(f, o));
            }
        }
        CubeKind::Solid {
            material: material_of(w, x, y, z),
            lightmap: 0,
            triangle: first,
            faces,
        }
    }

    /// Two triangles of a quad, sharing one lightmap tile.
    fn quad(&mut self, f: Face) {
        let tile = self.faces.len() as u32;
        let c = &f.corners;
        for idx in [[0, 1, 2], [0, 2, 3]] {
            self.triangles.push(Triangle {
                points: idx.map(|i| Point {
                    position: c[i],
                    uv: [0.0; 2],
                    lightmap_uv: [tile as f32, i as f32],
                }),
            });
        }
        self.faces.push((f, 4));
    }

    fn triangle(&mut self, f: Face, flip: bool) {
        let tile = self.faces.len() as u32;
        let order = if flip { [0, 2, 1] } else { [0, 1, 2] };
        self.triangles.push(Triangle {
            points: order.map(|i| Point {
                position: f.corners[i],
                uv: [0.0; 2],
                lightmap_uv: [tile as f32, i as f32],
            }),
        });
        self.faces.push((f, 3));
    }
}

/// No open voxel touches the box from outside.
fn enclosed(w: &World, [x0, y0, z0]: [usize; 3], size: usize) -> bool {
    let (x0, y0, z0, n) = (x0 as i64, y0 as i64, z0 as i64, size as i64);
    for a in 0..n {
        for b in 0..n {
            let around = [
                (x0 - 1, y0 + a, z0 + b),
                (x0 + n, y0 + a, z0 + b),
                (x0 + a, y0 - 1, z0 + b),
                (x0 + a, y0 + n, z0 + b),
                (x0 + a, y0 + b, z0 - 1),
                (x0 + a, y0 + b, z0 + n),
            ];
            if around.iter().any(|&(x, y, z)| !w.opaque(x, y, z)) {
                return false;
            }
        }
    }
    true
}

fn rgb565(c: [f32; 3]) -> u16 {
    let q = |v: f32, max: f32| (v.clamp(0.0, 1.0) * max).round() as u16;
    q(c[0], 31.0) << 11 | q(c[1], 63.0) << 5 | q(c[2], 31.0)
}

/// The sun: direction towards it (voxel space) and its colour.
const SUN: [f32; 3] = [0.45, 0.8, 0.35];

/// A point light of the generator (a dynamic light or a fast light).
#[derive(Clone, Copy)]
struct Lamp {
    /// Voxel space.
    at: [f32; 3],
    color: [f32; 3],
    radius: f32,
}

fn lamp_light(w: &World, l: &Lamp, p: [f32; 3], n: [f32; 3]) -> f32 {
    let d = [l.at[0] - p[0], l.at[1] - p[1], l.at[2] - p[2]];
    let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    if dist >= l.radius || dist < 1e-4 {
        return 0.0;
    }
    let ndl = (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]) / dist;
    if ndl <= 0.0 || !w.clear(p, l.at) {
        return 0.0;
    }
    ndl * (1.0 - dist / l.radius).powi(2)
}

/// Bakes a sector's lightmap atlas (one tile per face) and sets the
/// triangles' lightmap UVs; returns the atlas and, per lamp, an extra
/// lightmap of its light when it reaches the sector.
fn bake(w: &World, b: &mut SectorBuild, lamps: &[Lamp]) -> (Lightmap, Vec<Option<Vec<u16>>>) {
    let tiles = b.faces.len().max(1) as u32;
    let mut exp = 2u8;
    while ((1u32 << exp) / TILE).pow(2) < tiles {
        exp += 1;
    }
    let exp = exp.min(MAX_LIGHTMAP_EXP);
    let size = 1u32 << exp;
    let per_row = size / TILE;
    let mut luxels = vec![0u16; (size * size) as usize];
    let mut extra: Vec<Option<Vec<u16>>> = vec![None; lamps.len()];
    let sun_len = (SUN[0] * SUN[0] + SUN[1] * SUN[1] + SUN[2] * SUN[2]).sqrt();
    let sun = SUN.map(|v| v / sun_len);
    for (tile, (face, _)) in b.faces.iter().enumerate() {
        let tile = tile as u32;
        let (tx, ty) = ((tile % per_row) * TILE, (tile / per_row) * TILE);
        let c = &face.corners;
        let n = face.normal;
        for j in 0..TILE {
            for i in 0..TILE {
                let (u, v) = (
                    (i as f32 + 0.5) / TILE as f32,
                    (j as f32 + 0.5) / TILE as f32,
                );
                // Bilinear over the quad (a triangle repeats its last corner).
                let c3 = if c.len() == 4 { c[3] } else { c[2] };
                let p: [f32; 3] = std::array::from_fn(|k| {
                    let a = c[0][k] + (c[1][k] - c[0][k]) * u;
                    let d = c3[k] + (c[2][k] - c3[k]) * u;
                    a + (d - a) * v + n[k] * 0.01
                });
                let ndl = (n[0] * sun[0] + n[1] * sun[1] + n[2] * sun[2]).max(0.0);
                let far = [
                    p[0] + sun[0] * 64.0,
                    p[1] + sun[1] * 64.0,
                    p[2] + sun[2] * 64.0,
                ];
                let lit = if ndl > 0.0 && w.clear(p, far) {
                    ndl
                } else {
                    0.0
                };
                let sky = 0.5 + 0.5 * n[1];
                let rgb = [
                    0.16 + 0.12 * sky + 0.85 * lit,
                    0.17 + 0.13 * sky + 0.78 * lit,
                    0.22 + 0.18 * sky + 0.62 * lit,
                ];
                let at = ((ty + j) * size + tx + i) as usize;
                luxels[at] = rgb565(rgb);
                for (k, l) in lamps.iter().enumerate() {
                    let e = lamp_light(w, l, p, n);
                    if e > 0.0 {
                        let m = extra[k].get_or_insert_with(|| vec![0u16; luxels.len()]);
                        m[at] = rgb565(l.color.map(|c| c * e));
                    }
                }
            }
        }
    }
    // Lightmap UVs: the triangle's corners inside its tile (half a luxel in).
    let inset = 0.5 / size as f32;
    let span = TILE as f32 / size as f32 - 2.0 * inset;
    let quad_uv = [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]];
    for t in &mut b.triangles {
        for p in &mut t.points {
            let tile = p.lightmap_uv[0] as u32;
            let corner = p.lightmap_uv[1] as usize;
            let (tx, ty) = ((tile % per_row) * TILE, (tile / per_row) * TILE);
            let q = quad_uv[corner];
            p.lightmap_uv = [
                tx as f32 / size as f32 + inset + q[0] * span,
                ty as f32 / size as f32 + inset + q[1] * span,
            ];
        }
    }
    (
        Lightmap {
            size_exp: exp,
            luxels,
        },
        extra,
    )
}

/// Generates a map.
pub fn generate(p: &Params) -> Pmf {
    let w = build_world(p);
    let lamps = Lamps::of(&w);
    let mut builds = sector_builds(p, &w);
    let cells = Cells::of(p, &w, &builds);
    let baked = bake_all(&w, &mut builds, &lamps.dynamic);
    let sectors = builds
        .into_iter()
        .zip(baked)
        .enumerate()
        .map(|(si, (b, baked))| sector(p, &w, &lamps, &cells, si, b, baked))
        .collect();
    let mut map = header(p, &w, &lamps, sectors);
    pmf_write::intern_strings(&mut map);
    map
}

/// Sector `si` from its build and its baked lightmaps: lighting on its
/// faced leaves, triangles in map units, props and chunk data.
fn sector(
    p: &Params,
    w: &World,
    lamps: &Lamps,
    cells: &Cells,
    si: usize,
    mut b: SectorBuild,
    (lightmap, extra): (Lightmap, Vec<Option<Vec<u16>>>),
) -> Sector {
    let (dynamic_lights, dynamic_light_refs) = dynamic_lights(extra);
    let (fast_lights, fast_light_refs) = fast_lights(w, &lamps.fast, &b.triangles);
    // Lighting data on the faced leaves.
    for c in &mut b.cubes {
        if matches!(c.kind.triangles(), Some((_, n)) if n > 0) {
            c.lighting = Some(CubeLighting {
                base_light: [40, 42, 56],
                dynamic_index: 0,
                dynamic_count: dynamic_light_refs.len() as u16,
                fast_index: 0,
                fast_count: fast_light_refs.len() as u16,
            });
        }
    }
    // Triangle positions into map units.
    for t in &mut b.triangles {
        for pt in &mut t.points {
            pt.position = pt.position.map(|v| v * w.voxel_size);
            // World-aligned texture UVs (one texture repeat per voxel).
            pt.uv = [pt.position[0] + pt.position[2], pt.position[1]];
        }
    }
    let props = props(w, &b, si);
    // Chunk data on the chunk cubes.
    for &ci in &cells.chunks[si] {
        let chunk = cells.chunk(p, w, &b, si, ci, &props);
        b.cubes[ci].chunk = Some(Box::new(chunk));
    }
    Sector {
        load_radius: [1, 1, 1],
        lightmaps: vec![lightmap],
        extra_lightmaps: Vec::new(),
        props,
        cubes: b.cubes,
        triangles: b.triangles,
        dynamic_lights,
        fast_lights,
        dynamic_light_refs,
        fast_light_refs,
    }
}

/// The map around its sectors: names, materials, lights, teams and
/// entities.
fn header(p: &Params, w: &World, lamps: &Lamps, sectors: Vec<Sector>) -> Pmf {
    let [cx, cy, cz] = p.sectors;
    let text = |s: &str| Text {
        offset: 0,
        text: s.to_string(),
    };
    let material = |path: &str, fluid: bool| Material {
        has_alpha: false,
        is_fluid: fluid,
        speed_mul: 1.0,
        accel_mul: 1.0,
        min_damage_speed: 12.0,
        base_damage: 5.0,
        damage_per_mps: 2.5,
        appearance: text(path),
    };
    Pmf {
        version: (0, 0),
        name: "Facet demo town".into(),
        authors: "facet map generator".into(),
        description: format!(
            "{}x{}x{} sectors of {}^3 voxels: terrain, ramps, walls with doorways, baked sun, two dynamic lights and a fast light",
            cx, cy, cz, w.s
        ),
        created: 1_764_000_000,
        gamemodes: vec!["deathmatch".into(), "team deathmatch".into()],
        difficulties: vec!["easy".into(), "normal".into(), "hard".into()],
        materials: vec![
            material("materials/ground/grass", false),
            material("materials/ground/rock", false),
            material("materials/walls/brick", false),
            material("materials/ground/ramp", false),
        ],
        dynamic_light_count: lamps.dynamic.len() as u16,
        fast_lights: lamps.fast.iter().map(|l| l.color).collect(),
        teams: vec![
            Team {
                name: text("red"),
                color: [0.9, 0.2, 0.15],
            },
            Team {
                name: text("blue"),
                color: [0.15, 0.35, 0.95],
            },
        ],
        entities: entities(w, lamps),
        sector_counts: p.sectors,
        sector_size_exp: p.sector_size_exp,
        sectors,
        server_strings: Vec::new(),
        client_strings: Vec::new(),
    }
}

/// The map's lamps: two dynamic lights (warm in the first sector, cool
/// beside the centre) and a fast light at the centre.
struct Lamps {
    dynamic: [Lamp; 2],
    fast: [Lamp; 1],
    /// The map's centre, a little above the ground (voxel space).
    center: [f32; 3],
}

impl Lamps {
    fn of(w: &World) -> Lamps {
        let s = w.s as f32;
        let center = [w.dims[0] as f32 / 2.0, 4.0, w.dims[2] as f32 / 2.0];
        Lamps {
            dynamic: [
                Lamp {
                    at: [s * 0.5, 5.0, s * 0.5],
                    color: [1.0, 0.55, 0.2],
                    radius: s * 0.6,
                },
                Lamp {
                    at: [center[0] + s * 0.5, 5.0, center[2] - s * 0.5],
                    color: [0.25, 0.5, 1.0],
                    radius: s * 0.6,
                },
            ],
            fast: [Lamp {
                at: [center[0], 6.0, center[2]],
                color: [0.3, 1.0, 0.4],
                radius: s * 0.5,
            }],
            center,
        }
    }
}

/// Each sector's octree and faces, sectors in (y, x, z) order.
fn sector_builds(p: &Params, w: &World) -> Vec<SectorBuild> {
    let s = w.s;
    let [cx, cy, cz] = p.sectors.map(usize::from);
    let mut builds = Vec::new();
    for sy in 0..cy {
        for sx in 0..cx {
            for sz in 0..cz {
                let mut b = SectorBuild {
                    origin: [sx * s, sy * s, sz * s],
                    cubes: Vec::new(),
                    triangles: Vec::new(),
                    faces: Vec::new(),
                    depth: Vec::new(),
                    bounds: Vec::new(),
                };
                b.build(w, [0, 0, 0], s, 0);
                builds.push(b);
            }
        }
    }
    builds
}

/// Sector `si`'s grid coordinates, in the order [`sector_builds`] makes
/// them.
fn sector_coords(p: &Params, si: usize) -> [usize; 3] {
    let [cx, _, cz] = p.sectors.map(usize::from);
    [(si / cz) % cx, si / (cz * cx), si % cz]
}

/// Worker threads for the generator's parallel parts.
fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |c| c.get())
}

/// The chunk cubes of every sector and which of them see which.
struct Cells {
    /// Each sector's chunk cubes: nodes at the chunk depth, or shallower
    /// leaves, in index order.
    chunks: Vec<Vec<usize>>,
    /// Every chunk cube as (sector, cube), sector by sector.
    all: Vec<(usize, usize)>,
    /// Whether each cell of `all` has triangles to draw.
    has_triangles: Vec<bool>,
    /// Row a, column b: whether cell b is seen from cell a (symmetric).
    vis: Vec<bool>,
}

impl Cells {
    fn of(p: &Params, w: &World, builds: &[SectorBuild]) -> Cells {
        let chunks: Vec<Vec<usize>> = builds.iter().map(|b| chunk_cubes(p, b)).collect();
        let all: Vec<(usize, usize)> = chunks
            .iter()
            .enumerate()
            .flat_map(|(si, l)| l.iter().map(move |&ci| (si, ci)))
            .collect();
        let has_triangles = all
            .iter()
            .map(|&(si, ci)| draws_triangles(&builds[si], ci))
            .collect();
        let vis = visibility(p, w, builds, &all);
        Cells {
            chunks,
            all,
            has_triangles,
            vis,
        }
    }

    /// The chunk data of sector `si`'s chunk cube `ci` (`b`, in map
    /// units): the cubes it sees, by sector, and the props inside it.
    fn chunk(
        &self,
        p: &Params,
        w: &World,
        b: &SectorBuild,
        si: usize,
        ci: usize,
        props: &[Prop],
    ) -> Chunk {
        let n = self.all.len();
        let me = self.all.iter().position(|&x| x == (si, ci)).unwrap_or(0);
        let mut by_sector: Vec<VisibleSector> = Vec::new();
        for (k, &(sj, cj)) in self.all.iter().enumerate() {
            // Cells with nothing to draw are viewpoints, never seen.
            if !self.vis[me * n + k] || !self.has_triangles[k] {
                continue;
            }
            let sc = sector_coords(p, sj).map(|x| x as u8);
            match by_sector.iter_mut().find(|v| v.sector == sc) {
                Some(v) => v.cubes.push(cj as u16),
                None => by_sector.push(VisibleSector {
                    sector: sc,
                    cubes: vec![cj as u16],
                }),
            }
        }
        // Props whose centre is inside the chunk.
        let vs = w.voxel_size;
        let (at, size) = b.bounds[ci];
        let lo = [0, 1, 2].map(|k| (b.origin[k] + at[k]) as f32 * vs);
        let hi = lo.map(|v| v + size as f32 * vs);
        let chunk_props = props
            .iter()
            .enumerate()
            .filter(|(_, pr)| (0..3).all(|k| pr.origin[k] >= lo[k] && pr.origin[k] < hi[k]))
            .map(|(i, _)| i as u16)
            .collect();
        let count: usize = by_sector.iter().map(|v| v.cubes.len()).sum();
        Chunk {
            props: chunk_props,
            visible: by_sector,
            visibility_index: 0,
            visibility_count: count as u32,
        }
    }
}

/// A sector's chunk cubes: its octree's nodes at the chunk depth, or
/// shallower leaves, in index order.
fn chunk_cubes(p: &Params, b: &SectorBuild) -> Vec<usize> {
    let mut list = Vec::new();
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        match &b.cubes[i].kind {
            CubeKind::Parent(ch) if b.depth[i] < p.chunk_depth => {
                stack.extend(ch.iter().map(|&c| c as usize));
            }
            _ => list.push(i),
        }
    }
    list.sort_unstable();
    list
}

/// Whether cube `ci` of a sector, or a cube under it, has triangles.
fn draws_triangles(b: &SectorBuild, ci: usize) -> bool {
    let mut stack = vec![ci];
    while let Some(i) = stack.pop() {
        match &b.cubes[i].kind {
            CubeKind::Parent(ch) => stack.extend(ch.iter().map(|&c| c as usize)),
            k => {
                if k.triangles().is_some_and(|(_, n)| n > 0) {
                    return true;
                }
            }
        }
    }
    false
}

/// Which of the chunk cubes `all` (sector, cube) see which: row a, column
/// b, symmetric; two see each other when a ray between their sample
/// points is clear and their sectors are within the visibility range.
fn visibility(p: &Params, w: &World, builds: &[SectorBuild], all: &[(usize, usize)]) -> Vec<bool> {
    let pts: Vec<Vec<[f32; 3]>> = all
        .iter()
        .map(|&(si, ci)| samples(w, &builds[si], ci))
        .collect();
    let n = all.len();
    let mut vis = vec![false; n * n];
    let range = p.visibility_range as i64;
    // Row a: whether each chunk b >= a is seen from a (rays between
    // their sample points).
    let row = |a: usize| -> Vec<bool> {
        (a..n)
            .map(|b| {
                let [ca, cb] = [a, b].map(|c| sector_coords(p, all[c].0).map(|x| x as i64));
                if range > 0 && (0..3).any(|k| (ca[k] - cb[k]).abs() > range) {
                    return false;
                }
                a == b
                    || pts[a]
                        .iter()
                        .any(|&pa| pts[b].iter().any(|&pb| w.clear(pa, pb)))
            })
            .collect()
    };
    // Rows are independent: spread over the cores, every worker taking
    // every `workers`-th row so the long and short rows mix.
    let workers = workers();
    let rows: Vec<(usize, Vec<bool>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|k| {
                let row = &row;
                scope.spawn(move || {
                    (k..n)
                        .step_by(workers)
                        .map(|a| (a, row(a)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a visibility worker panicked"))
            .collect()
    });
    for (a, seen) in rows {
        for (b, seen) in (a..n).zip(seen) {
            vis[a * n + b] = seen;
            vis[b * n + a] = seen;
        }
    }
    vis
}

/// Sample points of a chunk cube: centres of its open voxels, spread out.
fn samples(w: &World, b: &SectorBuild, ci: usize) -> Vec<[f32; 3]> {
    let (at, size) = b.bounds[ci];
    let mut out = Vec::new();
    let step = (size / 2).max(1);
    for y in (0..size).step_by(step) {
        for z in (0..size).step_by(step) {
            for x in (0..size).step_by(step) {
                let v = [
                    b.origin[0] + at[0] + x,
                    b.origin[1] + at[1] + y,
                    b.origin[2] + at[2] + z,
                ];
                // The first open voxel at or above this one.
                let mut y2 = v[1];
                while y2 < w.dims[1] && w.get(v[0] as i64, y2 as i64, v[2] as i64) == SOLID {
                    y2 += 1;
                }
                if y2 < b.origin[1] + at[1] + size && y2 < w.dims[1] {
                    out.push([v[0] as f32 + 0.5, y2 as f32 + 0.5, v[2] as f32 + 0.5]);
                }
            }
        }
    }
    out.dedup();
    out
}

/// Every sector's lightmaps ([`bake`]), each sector's on its own (a worker
/// per group of sectors), in the sectors' order.
fn bake_all(
    w: &World,
    builds: &mut [SectorBuild],
    lamps: &[Lamp],
) -> Vec<(Lightmap, Vec<Option<Vec<u16>>>)> {
    let mut baked = Vec::with_capacity(builds.len());
    std::thread::scope(|scope| {
        let per = builds.len().div_ceil(workers()).max(1);
        let handles: Vec<_> = builds
            .chunks_mut(per)
            .map(|group| {
                scope.spawn(move || {
                    group
                        .iter_mut()
                        .map(|b| bake(w, b, lamps))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            baked.extend(h.join().expect("a lightmap worker panicked"));
        }
    });
    baked
}

/// The dynamic lights that reach a sector, from its extra lightmaps (one
/// per lamp, none where the lamp does not reach), and their references.
fn dynamic_lights(extra: Vec<Option<Vec<u16>>>) -> (Vec<AffectingDynamicLight>, Vec<u16>) {
    let mut lights = Vec::new();
    let mut refs = Vec::new();
    for (k, e) in extra.into_iter().enumerate() {
        if let Some(luxels) = e {
            lights.push(AffectingDynamicLight {
                light: k as u16,
                extra_lightmaps: vec![ExtraLightmap { base: 0, luxels }],
            });
            refs.push(k as u16);
        }
    }
    (lights, refs)
}

/// The fast lights that reach a sector: the triangle points each lights
/// (voxel space), and their references.
fn fast_lights(
    w: &World,
    lamps: &[Lamp],
    triangles: &[Triangle],
) -> (Vec<AffectingFastLight>, Vec<u16>) {
    let mut lights = Vec::new();
    let mut refs = Vec::new();
    for (k, l) in lamps.iter().enumerate() {
        let mut points = Vec::new();
        for (ti, t) in triangles.iter().enumerate() {
            let e = &t.points;
            let a = e[0].position;
            let u = [
                e[1].position[0] - a[0],
                e[1].position[1] - a[1],
                e[1].position[2] - a[2],
            ];
            let v = [
                e[2].position[0] - a[0],
                e[2].position[1] - a[1],
                e[2].position[2] - a[2],
            ];
            let nrm = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let len = (nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2])
                .sqrt()
                .max(1e-6);
            let nrm = nrm.map(|c| c / len);
            for (c, pt) in e.iter().enumerate() {
                let q = [
                    pt.position[0] + nrm[0] * 0.01,
                    pt.position[1] + nrm[1] * 0.01,
                    pt.position[2] + nrm[2] * 0.01,
                ];
                let m = lamp_light(w, l, q, nrm);
                if m > 0.0 {
                    points.push(AffectedPoint {
                        multiplier: (m * 1000.0).round() / 1000.0,
                        lightmap_group: 0,
                        point: (ti * 3 + c) as u32,
                    });
                }
            }
        }
        if !points.is_empty() {
            lights.push(AffectingFastLight {
                light: k as u16,
                points,
            });
            refs.push(k as u16);
        }
    }
    (lights, refs)
}

/// Two crates on the ground of sector `si` (`b`), placed by a hash of the
/// sector's index.
fn props(w: &World, b: &SectorBuild, si: usize) -> Vec<Prop> {
    let (s, vs) = (w.s, w.voxel_size);
    let mut props = Vec::new();
    for k in 0..2u64 {
        let x = (hash(si as i64, k as i64, 7) % (s as u64 - 4)) as usize + 2;
        let z = (hash(si as i64, k as i64, 8) % (s as u64 - 4)) as usize + 2;
        let wx = b.origin[0] + x;
        let wz = b.origin[2] + z;
        let mut y = 0;
        while y < w.dims[1] && w.get(wx as i64, y as i64, wz as i64) != EMPTY {
            y += 1;
        }
        props.push(Prop {
            origin: [
                (wx as f32 + 0.5) * vs,
                (y as f32 + 0.4) * vs,
                (wz as f32 + 0.5) * vs,
            ],
            radius: [0.4 * vs, 0.4 * vs, 0.4 * vs],
        });
    }
    props
}

/// The entities: a spawn a team in opposite corners, each dynamic lamp
/// and its model, a heal zone at the centre and a medkit; with the
/// filter (any player), selectors (self, all players) and actions (a
/// broadcast, a heal) they use.
fn entities(w: &World, lamps: &Lamps) -> Entities {
    let vs = w.voxel_size;
    let text = |s: &str| Text {
        offset: 0,
        text: s.to_string(),
    };
    let world_pos = |v: [f32; 3]| v.map(|c| c * vs);
    let rec = |at: u32, kind: u8, fields: Vec<Value>| Record { at, kind, fields };
    let ent = |name: &str, kind: u8, fields: Vec<Value>| Entity {
        name: text(name),
        kind,
        difficulties: 0b111,
        gamemodes: 0b11,
        fields,
    };
    let mut list = Vec::new();
    for (i, corner) in [[2.0, 8.0], [w.dims[0] as f32 - 3.0, w.dims[2] as f32 - 8.0]]
        .into_iter()
        .enumerate()
    {
        list.push(ent(
            &format!("spawn_{}", ["red", "blue"][i]),
            14,
            vec![
                Value::Filter(0),
                Value::Vec3(world_pos([corner[0], 8.0, corner[1]])),
                Value::Vec2([2.0 * vs, 2.0 * vs]),
                Value::I8x2([-1, -1]),
                Value::Str(text("")),
                Value::Str(text("")),
            ],
        ));
    }
    for (k, l) in lamps.dynamic.iter().enumerate() {
        list.push(ent(
            &format!("lamp_{k}"),
            15,
            vec![
                Value::Flags(1),
                Value::Str(text(&format!("lamp_{k}_on"))),
                Value::Str(text(&format!("lamp_{k}_off"))),
                Value::Light(k as u16),
            ],
        ));
        list.push(ent(
            &format!("lamp_{k}_model"),
            1,
            vec![
                Value::Flags(0b0010),
                Value::Str(text("")),
                Value::Str(text("models/props/lamp")),
                Value::Vec3(world_pos(l.at)),
                Value::Vec3([0.0; 3]),
                Value::Vec3([1.0; 3]),
            ],
        ));
    }
    let center = lamps.center;
    list.push(ent(
        "heal_zone",
        3,
        vec![
            Value::Flags(0),
            Value::Filter(0),
            Value::Vec3(world_pos([center[0], 3.0, center[2]])),
            Value::Vec3([2.0 * vs; 3]),
            Value::Str(text("")),
            Value::Str(text("")),
            Value::Actions(vec![0, 5]),
        ],
    ));
    list.push(ent(
        "medkit",
        16,
        vec![
            Value::Str(text("models/items/medkit")),
            Value::F32(30.0),
            Value::F32(25.0),
        ],
    ));
    Entities {
        entities: list,
        filters: vec![rec(0, 1, vec![])],
        selectors: vec![rec(0, 0, vec![]), rec(1, 5, vec![])],
        actions: vec![
            rec(0, 0, vec![Value::Str(text("doors_open"))]),
            rec(
                5,
                1,
                vec![Value::Selector(1), Value::F32(2.0), Value::F32(25.0)],
            ),
        ],
    }
}

/// `assets/demo.pmf`.
pub fn demo_bytes() -> Vec<u8> {
    pmf_write::encode(&generate(&Params::DEMO)).expect("the demo map encodes")
}
