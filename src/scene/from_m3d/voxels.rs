//! M3D voxels -> meshes: the blocks merged into one grid, then one mesh a
//! voxel type with only the faces that touch no solid neighbour. Faces of
//! a type that face the same way share their corners, and each side's
//! faces are one run of indices (`Mesh::facing`), so a renderer that
//! culls back faces skips whole sides.

use super::*;

/// The merged voxels: a dense array over the blocks' bounding box when it
/// is not much bigger than the blocks themselves (one array read per
/// neighbour test), else a hash map (far-apart blocks).
enum VoxelGrid {
    Dense {
        lo: [i64; 3],
        /// The blocks' bounding box and a border of one cell on every side:
        /// cell (x, y, z) of the box is at (x + 1, y + 1, z + 1) here.
        size: [usize; 3],
        /// Type per cell in the blocks' order, y-major then z then x (x
        /// varies fastest); `EMPTY` for none.
        cells: Vec<u16>,
    },
    /// Cell coordinates in 64 bits: a 32-bit position plus a size does
    /// not overflow them.
    Sparse(HashMap<[i64; 3], u16>),
}

impl VoxelGrid {
    const EMPTY: u16 = u16::MAX;

    fn new(lo: [i64; 3], hi: [i64; 3], block_cells: usize) -> VoxelGrid {
        let size = [0, 1, 2].map(|a| (hi[a] - lo[a]).max(0) as u64);
        // With a border of one empty cell on every side, so that every
        // solid cell's six neighbours are in the array.
        let padded = size.map(|s| s + 2);
        let volume = padded
            .iter()
            .try_fold(1u64, |v, &s| v.checked_mul(s))
            .unwrap_or(u64::MAX);
        // Dense with at most 9 cells, the border's included, per voxel the
        // blocks' data holds (a line one voxel thick pads to 9 a voxel),
        // and at most 256 MiB of cells. Bounded by the padded volume: a
        // block 0 voxels wide, 259 high and 33,279 deep has none of its
        // own but once made a grid of 17M cells from a 117-byte file.
        match volume {
            p if p <= 9 * block_cells as u64 + 4096 && p <= 128 << 20 => VoxelGrid::Dense {
                lo,
                size: padded.map(|s| s as usize),
                cells: vec![Self::EMPTY; p as usize],
            },
            _ => VoxelGrid::Sparse(HashMap::new()),
        }
    }

    /// Writes a block over the grid: a type sets its cell, CLEAR empties
    /// it, UNSET (and a type the file does not have) leaves it.
    fn put(&mut self, b: &m3d::VoxelBlock, ntypes: usize) {
        let [bx, by, bz] = b.size.map(|s| s as usize);
        // Without a branch, so the compiler makes the row loop below with
        // vector instructions: CLEAR empties the cell, a type sets it,
        // UNSET and an unknown type leave it. Compared in 16 bits (in 64 a
        // vector holds a quarter as many cells): a value at or past the
        // type count that is not CLEAR is UNSET or an unknown type.
        let types = ntypes.min(u16::MAX as usize) as u16;
        let apply = |cell: &mut u16, v: u16| {
            let keep = v >= types && v != VOXEL_CLEAR;
            let new = if v == VOXEL_CLEAR { Self::EMPTY } else { v };
            *cell = if keep { *cell } else { new };
        };
        match self {
            VoxelGrid::Dense { lo, size, cells } => {
                // Each of the block's x rows is a run of the grid's (the
                // last one short where the block's data ends early).
                let at = [0, 1, 2].map(|a| (b.pos[a] as i64 - lo[a]) as usize + 1);
                for (r, row) in b.data.chunks(bx.max(1)).take(by * bz).enumerate() {
                    let (y, z) = (at[1] + r / bz, at[2] + r % bz);
                    let first = (y * size[2] + z) * size[0] + at[0];
                    for (cell, &v) in cells[first..first + bx].iter_mut().zip(row) {
                        apply(cell, v);
                    }
                }
            }
            VoxelGrid::Sparse(map) => {
                // The voxels the block's data holds (those past its end
                // are unset), in y, z, x order: each one's place worked
                // out from its index, so that the work follows the data.
                // (Counting through the block's rows instead walked every
                // row of a block 0 wide, billions for a hostile file's
                // height and depth, and found no voxel in any.)
                let p = b.pos.map(i64::from);
                let volume = bx.saturating_mul(by).saturating_mul(bz);
                let (bx, bz) = (bx as i64, bz as i64);
                for (i, &v) in b.data.iter().take(volume).enumerate() {
                    let (i, row) = (i as i64, i as i64 / bx);
                    let (x, z, y) = (i % bx, row % bz, row / bz);
                    let key = [p[0] + x, p[1] + y, p[2] + z];
                    match v {
                        VOXEL_UNSET => {}
                        VOXEL_CLEAR => {
                            map.remove(&key);
                        }
                        t if (t as usize) < ntypes => {
                            map.insert(key, t);
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// The solid cells with an open side (bit `f` of the mask set where the
    /// neighbour across `VOXEL_FACES[f]` is not solid), listed per type in
    /// (y, z, x) order, in runs of layers of y (a type's cells are the runs'
    /// lists one after the other); and the types of all solid cells, hidden
    /// ones too, in order of first appearance. A dense grid's runs of layers
    /// are scanned on as many threads as its cells are worth.
    fn open_cells(&self, ntypes: usize) -> OpenCells {
        match self {
            VoxelGrid::Dense { lo, size, cells } => {
                let [sx, sy, sz] = *size;
                // The border is empty: layers 1..=sy-2 hold the box.
                let layers = sy.saturating_sub(2);
                let runs = (sx * sy * sz / VOXEL_CELLS_A_THREAD)
                    .clamp(1, threads())
                    .min(layers.max(1));
                let scan = |r: usize| {
                    let y = 1 + layers * r / runs..1 + layers * (r + 1) / runs;
                    Self::scan_dense(*lo, *size, cells, y, ntypes)
                };
                if runs == 1 {
                    let (first_seen, by_type) = scan(0);
                    return OpenCells {
                        first_seen,
                        slabs: vec![by_type],
                    };
                }
                let found: Vec<(Vec<u16>, Vec<Vec<OpenCell>>)> =
                    (0..runs).into_par_iter().map(scan).collect();
                // The types in order of first appearance over the runs in
                // order.
                let mut first_seen = Vec::new();
                let mut seen = vec![false; ntypes];
                let mut slabs = Vec::with_capacity(runs);
                for (types, by_type) in found {
                    for t in types {
                        if !std::mem::replace(&mut seen[t as usize], true) {
                            first_seen.push(t);
                        }
                    }
                    slabs.push(by_type);
                }
                OpenCells { first_seen, slabs }
            }
            VoxelGrid::Sparse(map) => {
                let mut first_seen = Vec::new();
                let mut seen = vec![false; ntypes];
                let mut cells: Vec<([i64; 3], u16)> = map.iter().map(|(&c, &k)| (c, k)).collect();
                cells.sort_unstable_by_key(|(c, _)| [c[1], c[2], c[0]]);
                let mut by_type: Vec<Vec<OpenCell>> = (0..ntypes).map(|_| Vec::new()).collect();
                for (c, kind) in cells {
                    if !std::mem::replace(&mut seen[kind as usize], true) {
                        first_seen.push(kind);
                    }
                    let closed = VOXEL_FACES
                        .map(|(n, _)| map.contains_key(&[0, 1, 2].map(|a| c[a] + n[a] as i64)));
                    let open = open_mask(closed);
                    if open != 0 {
                        by_type[kind as usize].push(OpenCell { at: c, open });
                    }
                }
                OpenCells {
                    first_seen,
                    slabs: vec![by_type],
                }
            }
        }
    }

    /// [`VoxelGrid::open_cells`] of a dense grid's layers `y` (in the
    /// padded grid's numbering): the types in order of first appearance,
    /// and each type's open cells.
    fn scan_dense(
        lo: [i64; 3],
        [sx, _, sz]: [usize; 3],
        cells: &[u16],
        y: std::ops::Range<usize>,
        ntypes: usize,
    ) -> (Vec<u16>, Vec<Vec<OpenCell>>) {
        let mut first_seen = Vec::new();
        let mut seen = vec![false; ntypes];
        let mut by_type: Vec<Vec<OpenCell>> = (0..ntypes).map(|_| Vec::new()).collect();
        let (layer, row) = (sz * sx, sx);
        let solid = |i: usize| (cells[i] != Self::EMPTY) as u8;
        for y in y {
            for z in 1..sz.saturating_sub(1) {
                let start = (y * sz + z) * sx;
                // Most cells are empty: 16 at a time are skipped when none
                // is solid (EMPTY is all ones, so an OR of the complements
                // is 0), a test the compiler makes with vector instructions.
                for (c, chunk) in cells[start..start + sx].chunks(16).enumerate() {
                    if chunk.iter().fold(0u16, |a, &v| a | !v) == 0 {
                        continue;
                    }
                    for (k, &kind) in chunk.iter().enumerate() {
                        if kind == Self::EMPTY {
                            continue;
                        }
                        if !std::mem::replace(&mut seen[kind as usize], true) {
                            first_seen.push(kind);
                        }
                        let x = c * 16 + k;
                        let i = start + x;
                        // Bit f set where side f's neighbour is solid.
                        let closed = solid(i - 1)
                            | solid(i + 1) << 1
                            | solid(i - layer) << 2
                            | solid(i + layer) << 3
                            | solid(i - row) << 4
                            | solid(i + row) << 5;
                        if closed != 0x3F {
                            let at = [x, y, z].map(|v| v as i64 - 1);
                            by_type[kind as usize].push(OpenCell {
                                at: [lo[0] + at[0], lo[1] + at[1], lo[2] + at[2]],
                                open: !closed & 0x3F,
                            });
                        }
                    }
                }
            }
        }
        (first_seen, by_type)
    }
}

/// [`VoxelGrid::open_cells`]' answer.
struct OpenCells {
    /// The types of the solid cells in order of first appearance.
    first_seen: Vec<u16>,
    /// Per run of layers, in y order, each type's open cells in (y, z, x)
    /// order.
    slabs: Vec<Vec<Vec<OpenCell>>>,
}

/// A solid voxel with an open side: where, and its open sides (see
/// [`VoxelGrid::open_cells`]).
struct OpenCell {
    at: [i64; 3],
    open: u8,
}

/// Bit `f` set where side `f` has no solid neighbour.
fn open_mask(closed: [bool; 6]) -> u8 {
    (0..6).filter(|&f| !closed[f]).fold(0, |m, f| m | 1 << f)
}

/// A voxel's sides: the outward normal and the corners (offsets from the
/// cell's lowest corner), counter-clockwise seen from outside.
const VOXEL_FACES: [([i32; 3], [[i32; 3]; 4]); 6] = [
    ([-1, 0, 0], [[0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 1, 0]]),
    ([1, 0, 0], [[1, 0, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1]]),
    ([0, -1, 0], [[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]]),
    ([0, 1, 0], [[0, 1, 1], [1, 1, 1], [1, 1, 0], [0, 1, 0]]),
    ([0, 0, -1], [[1, 0, 0], [0, 0, 0], [0, 1, 0], [1, 1, 0]]),
    ([0, 0, 1], [[0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]]),
];

/// The order of a voxel mesh's runs of sides ([`Mesh::facing`], sides
/// numbered as in `VOXEL_FACES`): the three - sides, then the three +
/// sides. From an eye on the + side of the grid along every axis, or the -
/// side along every one, the sides it sees are next to each other and draw
/// as one range.
const SIDE_RUNS: [usize; 6] = [0, 2, 4, 1, 3, 5];

/// `n` zeros, written (a memset), so the pages are the process's own before
/// anything reads them. `vec![0; n]` is a zeroed allocation: fresh pages
/// from the kernel, untouched. The slot table is read before it is
/// written, and a fresh page read first maps the kernel's shared zero page,
/// so its first write faulted again and flushed that mapping from every
/// core running one of the process's threads (an interrupt to each, a VM
/// exit on a VM): perf put `do_wp_page` and its `flush_tlb_mm_range` at a
/// seventh of processes that load lantea.m3d once, whose load went from
/// 3.3 to 2.4 ms without it.
#[allow(
    clippy::slow_vector_initialization,
    reason = "the writes are the point: `vec![0; n]` is the zeroed allocation this avoids"
)]
fn written_zeros(n: usize) -> Vec<u32> {
    let mut v: Vec<u32> = Vec::with_capacity(n);
    v.resize(n, 0);
    v
}

/// The vertices made so far at voxel face corners, so that the faces of
/// one type that face the same way and meet at a corner share its vertex
/// (a vertex is a position and a normal, and theirs are the same). A
/// type's cells come in y order (the types one after the other) and a
/// cell's corners are at its y or y + 1, so corners are kept for two
/// planes of y at a time. Dense grids only.
///
/// A slot holds 1 + the vertex's number counted over all types (0: none),
/// 4 bytes so that the planes stay in cache. Whether it is the current
/// type's vertex of this plane, and not one of an earlier type or of the
/// plane two below, follows from when it was made: the vertices of plane y
/// are made by the cells of layers y - 1 and y, so they are those made
/// since the type reached layer y - 1 or above; the others, before.
struct SharedCorners {
    lo: [i64; 3],
    /// Corners along z and x: the grid's size + 1.
    nz: usize,
    nx: usize,
    /// Per (y parity, z, x, side), so that a cell's corners are near each
    /// other.
    slots: Vec<u32>,
    /// Vertices made, all types.
    made: u32,
    /// The current type's first vertex, as `made` counts.
    base: u32,
    /// The layer of the type's last cell, and `made` when the type reached
    /// it and the layer below it.
    layer: i64,
    reached: u32,
    reached_below: u32,
    /// Each side's corners' offsets from their cell's slots in a plane.
    corner: [[usize; 4]; 6],
}

impl SharedCorners {
    /// At most this many slots (4 bytes each): a grid wider than that is
    /// meshed without sharing.
    const MAX_SLOTS: usize = 1 << 22;

    /// The slots a grid's corners take: none for a sparse grid or one past
    /// [`Self::MAX_SLOTS`], which are meshed without sharing.
    fn slots(grid: &VoxelGrid) -> Option<usize> {
        let VoxelGrid::Dense { size, .. } = grid else {
            return None;
        };
        let n = 12usize.checked_mul(size[2] + 1)?.checked_mul(size[0] + 1)?;
        (n <= Self::MAX_SLOTS).then_some(n)
    }

    /// For a grid whose meshes have at most `vertices` vertices together
    /// (counted in 32 bits).
    fn new(grid: &VoxelGrid, vertices: usize) -> Option<SharedCorners> {
        let VoxelGrid::Dense { lo, size, .. } = grid else {
            return None;
        };
        let (nz, nx) = (size[2] + 1, size[0] + 1);
        let n = Self::slots(grid)?;
        (vertices < u32::MAX as usize).then(|| SharedCorners {
            lo: *lo,
            nz,
            nx,
            slots: written_zeros(n),
            made: 0,
            base: 0,
            layer: i64::MIN,
            reached: 0,
            reached_below: 0,
            corner: std::array::from_fn(|f| {
                VOXEL_FACES[f]
                    .1
                    .map(|[dx, _, dz]| (dz as usize * nx + dx as usize) * 6 + f)
            }),
        })
    }

    /// Starts the next type's vertices (numbered from 0 in its mesh).
    fn next_type(&mut self) {
        self.base = self.made;
        self.layer = i64::MIN;
    }

    /// Before the corners of a cell of layer `y` (the type's cells in y
    /// order).
    #[inline]
    fn cell_layer(&mut self, y: i64) {
        if y != self.layer {
            self.reached_below = if y == self.layer + 1 {
                self.reached
            } else {
                self.made
            };
            self.reached = self.made;
            self.layer = y;
        }
    }

    /// Where the corners of the cell at `c` keep their slots, the type's
    /// cells given in y order: one multiplication a cell, not one a corner.
    #[inline]
    fn cell(&mut self, c: [i64; 3]) -> CellCorners {
        self.cell_layer(c[1]);
        let [x, y, z] = [0, 1, 2].map(|a| (c[a] - self.lo[a]) as usize);
        let plane = self.nz * self.nx * 6;
        CellCorners {
            plane: [(y & 1) * plane, ((y + 1) & 1) * plane],
            at: (z * self.nx + x) * 6,
            since: [self.reached_below, self.reached],
        }
    }

    /// The vertex (in the type's mesh) of side `f`'s corner `k`
    /// (`VOXEL_FACES[f].1[k]`) of `cell`: the one made before, or the one
    /// `make` makes now.
    #[inline(always)]
    fn vertex(
        &mut self,
        cell: &CellCorners,
        f: usize,
        k: usize,
        make: impl FnOnce() -> u32,
    ) -> u32 {
        // A corner on the cell's own plane was made since the type reached
        // the layer below it; one on the plane above, since it reached
        // this layer.
        let up = VOXEL_FACES[f].1[k][1] as usize;
        let slot = &mut self.slots[cell.plane[up] + cell.at + self.corner[f][k]];
        if *slot > cell.since[up] {
            return *slot - 1 - self.base;
        }
        let v = make();
        debug_assert_eq!(v, self.made - self.base);
        self.made += 1;
        *slot = self.made;
        v
    }
}

/// A cell's corner slots ([`SharedCorners::cell`]): the offsets of the
/// plane of its y and of the one above, its offset within a plane, and
/// for each plane, `made` as it was when the plane's vertices began.
struct CellCorners {
    plane: [usize; 2],
    at: usize,
    since: [u32; 2],
}

/// Where `voxel_meshes` writes one type's faces: its vertices, and each
/// side's run of indices at its own cursor.
struct SideOut<'a> {
    positions: &'a mut Vec<Vec3>,
    normals: &'a mut Vec<Vec3>,
    indices: &'a mut [u32],
    cursor: &'a mut [usize; 6],
    /// The least `normal · corner` over each side's faces, in grid units.
    nearest: &'a mut [i64; 6],
    /// Grid units to model units.
    w: f32,
}

impl SideOut<'_> {
    /// Side `F` (`VOXEL_FACES[F]`) of the cell at `c`, its corners shared
    /// through `shared` where the grid has them.
    #[inline(always)]
    fn side<const F: usize>(
        &mut self,
        c: [i64; 3],
        mut shared: Option<(&CellCorners, &mut SharedCorners)>,
    ) {
        let (n, corners) = VOXEL_FACES[F];
        let normal = Vec3::new(n[0] as f32, n[1] as f32, n[2] as f32);
        let mut ids = [0u32; 4];
        for (k, id) in ids.iter_mut().enumerate() {
            let (positions, normals, w) = (&mut *self.positions, &mut *self.normals, self.w);
            let mut make = || {
                let d = corners[k];
                let p = [c[0] + d[0] as i64, c[1] + d[1] as i64, c[2] + d[2] as i64];
                positions.push(Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32) * w);
                normals.push(normal);
                positions.len() as u32 - 1
            };
            *id = match &mut shared {
                Some((cell, s)) => s.vertex(cell, F, k, make),
                None => make(),
            };
        }
        // The cell's far coordinate on a + side, its near one negated on a
        // - side.
        let axis = F / 2;
        let d = if F & 1 == 1 { c[axis] + 1 } else { -c[axis] };
        self.nearest[F] = self.nearest[F].min(d);
        let at = self.cursor[F];
        self.indices[at..at + 6].copy_from_slice(&[ids[0], ids[1], ids[2], ids[0], ids[2], ids[3]]);
        self.cursor[F] = at + 6;
    }
}

type SkinOf<'a> = &'a dyn Fn(&m3d::Vertex) -> Option<([u16; 4], [u16; 4])>;

/// Voxel blocks merged into one grid (later blocks override earlier ones;
/// CLEAR empties a cell), then one mesh per voxel type with only the faces
/// that touch no solid neighbour, in any block, wound counter-clockwise
/// seen from outside. Coordinates are scaled as m3d.h does: by 1 / the
/// largest extent from the origin. A type whose name is no material's gets
/// a material of its colour, pushed to `materials` and numbered in the
/// scene from `base`.
pub(super) fn voxel_meshes(
    m: &M3d,
    (base, materials): (usize, &mut Vec<Material>),
    skin_of: Option<SkinOf>,
) -> Vec<Mesh> {
    if m.voxel_blocks.is_empty() {
        return Vec::new();
    }
    let ntypes = m.voxel_types.len();
    let (extent, lo, hi) = block_bounds(&m.voxel_blocks);
    let mut grid = VoxelGrid::new(lo, hi, m.voxel_blocks.iter().map(|b| b.data.len()).sum());
    for b in &m.voxel_blocks {
        grid.put(b, ntypes);
    }
    let w = 1.0 / extent as f32;
    // The types in order of first appearance (a type whose every cell is
    // hidden still gets its part, empty), each with its cells that show a
    // side.
    let OpenCells { first_seen, slabs } = grid.open_cells(ntypes);
    let by_side = faces_by_side(&slabs, ntypes);
    let faces: Vec<usize> = by_side.iter().map(|n| n.iter().sum()).collect();
    // Each type's material and skin, here in the types' order (materials
    // made for unnamed types are numbered in it); the meshes after, on as
    // many threads as their faces are worth.
    let mut type_material = TypeMaterials::new(m, first_seen.len(), base, materials);
    let jobs: Vec<TypeJob> = first_seen
        .iter()
        .map(|&t| {
            let vt = &m.voxel_types[t as usize];
            // Skinned as a whole: every vertex of a type has the type's skin.
            let skin = skin_of.map(|skin_of| {
                let v = m3d::Vertex {
                    pos: [0.0; 4],
                    color: 0,
                    skin: vt.skin,
                };
                skin_of(&v).unwrap_or(([0; 4], [0; 4]))
            });
            TypeJob {
                t,
                slabs: &slabs,
                by_side: by_side[t as usize],
                material: type_material.of(t),
                skin,
            }
        })
        .collect();
    let closed = skin_of.is_none();
    // The types dealt out to as many threads as their faces are worth
    // (a thread for some thousands: lantea.m3d's 25,774 take about 0.6 ms
    // on one), largest first, each to the thread with the fewest faces so
    // far, each thread's made in turn through corners of its own.
    let total: usize = faces.iter().sum();
    // Each thread's corner planes (4 bytes a slot) no larger than the
    // vertices it makes (4 a face, 24 bytes each): a wide, thin grid on a
    // machine of many cores would otherwise take a plane pair per core.
    let slots = SharedCorners::slots(&grid).unwrap_or(0).max(1);
    let bins = (total / VOXEL_FACES_A_THREAD)
        .min(24 * total / slots)
        .clamp(1, threads());
    let mesh_all = |jobs: &mut dyn Iterator<Item = &TypeJob>, faces: usize| {
        let mut shared = SharedCorners::new(&grid, 4 * faces);
        jobs.map(|job| job.mesh(shared.as_mut(), w, closed))
            .collect::<Vec<Mesh>>()
    };
    if bins == 1 {
        return mesh_all(&mut jobs.iter(), total);
    }
    let job_faces: Vec<usize> = jobs.iter().map(|j| faces[j.t as usize]).collect();
    let made: Vec<(Vec<usize>, Vec<Mesh>)> = deal(&job_faces, bins)
        .into_par_iter()
        .map(|(faces, mut which)| {
            which.sort_unstable();
            let meshes = mesh_all(&mut which.iter().map(|&i| &jobs[i]), faces);
            (which, meshes)
        })
        .collect();
    // Back in the types' order.
    let mut meshes: Vec<Option<Mesh>> = (0..jobs.len()).map(|_| None).collect();
    for (which, made) in made {
        for (i, mesh) in which.into_iter().zip(made) {
            meshes[i] = Some(mesh);
        }
    }
    meshes.into_iter().flatten().collect()
}

/// The blocks' largest extent from the origin on any axis (at least 1),
/// and their bounding box (low corner, high corner past the last cell).
fn block_bounds(blocks: &[m3d::VoxelBlock]) -> (i64, [i64; 3], [i64; 3]) {
    let mut extent = 1i64;
    let (mut lo, mut hi) = ([i64::MAX; 3], [i64::MIN; 3]);
    for b in blocks {
        for (a, (p, s)) in b.pos.iter().zip(b.size).enumerate() {
            extent = extent.max(-(*p as i64)).max(*p as i64 + s as i64);
            lo[a] = lo[a].min(*p as i64);
            hi[a] = hi[a].max(*p as i64 + s as i64);
        }
    }
    (extent, lo, hi)
}

/// Each type's visible faces by side (4 vertices at most, 6 indices
/// each), counted without a branch.
fn faces_by_side(slabs: &[Vec<Vec<OpenCell>>], ntypes: usize) -> Vec<[usize; 6]> {
    (0..ntypes)
        .map(|t| {
            let mut n = [0; 6];
            for c in slabs.iter().flat_map(|s| &s[t]) {
                for (f, n) in n.iter_mut().enumerate() {
                    *n += (c.open >> f) as usize & 1;
                }
            }
            n
        })
        .collect()
}

/// Voxel types' materials: the file's material of the type's name, else
/// one made of the type's colour.
struct TypeMaterials<'a> {
    m: &'a M3d,
    /// The first material of each name, where a scan per type would make
    /// millions of comparisons.
    by_name: Option<HashMap<&'a str, usize>>,
    /// The scene's number of `made[0]`.
    base: usize,
    made: &'a mut Vec<Material>,
}

impl<'a> TypeMaterials<'a> {
    fn new(m: &'a M3d, types: usize, base: usize, made: &'a mut Vec<Material>) -> Self {
        let by_name = (types.saturating_mul(m.materials.len()) > 4096).then(|| {
            let mut by_name = HashMap::new();
            for (i, x) in m.materials.iter().enumerate() {
                by_name.entry(x.name.as_str()).or_insert(i);
            }
            by_name
        });
        TypeMaterials {
            m,
            by_name,
            base,
            made,
        }
    }

    /// Type `t`'s material, in the scene's numbering.
    fn of(&mut self, t: u16) -> usize {
        let vt = &self.m.voxel_types[t as usize];
        let named = match &self.by_name {
            _ if vt.name.is_empty() => None,
            Some(by_name) => by_name.get(vt.name.as_str()).copied(),
            None => self.m.materials.iter().position(|x| x.name == vt.name),
        };
        named.unwrap_or_else(|| {
            // "voxel type {t}", then " {name:?}" for a named type.
            let mut name = String::with_capacity(24 + vt.name.len());
            name.push_str("voxel type ");
            text::push_int(&mut name, t);
            if !vt.name.is_empty() {
                name.push(' ');
                text::push_quoted(&mut name, &vt.name);
            }
            self.made.push(Material {
                name,
                base_color: rgba_f(vt.color),
                ..Material::default()
            });
            self.base + self.made.len() - 1
        })
    }
}

/// Jobs of `faces[i]` faces each dealt out to `bins` (at least 2): largest
/// first, each to the bin with the fewest faces so far. Each bin's faces
/// and its jobs' numbers.
fn deal(faces: &[usize], bins: usize) -> Vec<(usize, Vec<usize>)> {
    let mut largest: Vec<usize> = (0..faces.len()).collect();
    largest.sort_by_key(|&i| std::cmp::Reverse(faces[i]));
    let mut dealt: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); bins];
    for i in largest {
        let bin = dealt.iter_mut().min_by_key(|(n, _)| *n).expect("bins >= 2");
        bin.0 += faces[i];
        bin.1.push(i);
    }
    dealt
}

/// Cells of a dense voxel grid a thread is given at least to find the open
/// ones ([`VoxelGrid::open_cells`]; lantea.m3d's 212K take about 0.23 ms on
/// one).
pub(super) const VOXEL_CELLS_A_THREAD: usize = 65536;

/// Faces of voxels a thread is given at least ([`voxel_meshes`]).
const VOXEL_FACES_A_THREAD: usize = 8192;

/// One voxel type's mesh to make ([`voxel_meshes`]): its cells with an
/// open side, its faces by side, and its material and skin.
struct TypeJob<'a> {
    t: u16,
    /// Every type's open cells, in runs of layers ([`OpenCells::slabs`]).
    slabs: &'a [Vec<Vec<OpenCell>>],
    by_side: [usize; 6],
    material: usize,
    skin: Option<([u16; 4], [u16; 4])>,
}

impl TypeJob<'_> {
    /// The type's mesh, its corners shared through `shared` where the grid
    /// has them (the types of one `SharedCorners` made in turn).
    fn mesh(&self, mut shared: Option<&mut SharedCorners>, w: f32, closed: bool) -> Mesh {
        let faces: usize = self.by_side.iter().sum();
        // One type at a time, into lists held here: pushed through the
        // mesh in the list of meshes, each push reloaded the lists' lengths.
        // Each list has room for a vertex per face corner and is shrunk to
        // its length after: mimalloc shrinks a block that stays at least
        // half full where it is (lantea.m3d's, with shared corners, are
        // 59% full), and moves a smaller one. Scratch lists reused from
        // type to type and copied out cost a copy of every vertex: 7% of
        // lantea.m3d's instructions.
        let mut positions: Vec<Vec3> = Vec::with_capacity(4 * faces);
        let mut normals: Vec<Vec3> = Vec::with_capacity(4 * faces);
        if let Some(s) = &mut shared {
            s.next_type();
        }
        // Each side's faces are written at a cursor of their own, so that
        // they make one run of indices (`SIDE_RUNS`), counted above. The
        // cells are visited once, in y order, as the shared corners want.
        let mut cursor = [0; 6];
        let mut at = 0;
        for f in SIDE_RUNS {
            cursor[f] = at;
            at += 6 * self.by_side[f];
        }
        let starts = cursor;
        let mut indices: Vec<u32> = vec![0; at];
        let mut nearest = [i64::MAX; 6];
        let mut out = SideOut {
            positions: &mut positions,
            normals: &mut normals,
            indices: &mut indices,
            cursor: &mut cursor,
            nearest: &mut nearest,
            w,
        };
        let cells = self.slabs.iter().flat_map(|s| &s[self.t as usize]);
        for &OpenCell { at: c, open } in cells {
            let mut cell = shared.as_mut().map(|s| (s.cell(c), &mut **s));
            // The open sides, lowest first, each with its corners known
            // when compiled (a side looked up at run time made every
            // corner's slot wait on table loads).
            let mut sides = open;
            while sides != 0 {
                let f = sides.trailing_zeros();
                sides &= sides - 1;
                let corners = cell.as_mut().map(|(cell, s)| (&*cell, &mut **s));
                match f {
                    0 => out.side::<0>(c, corners),
                    1 => out.side::<1>(c, corners),
                    2 => out.side::<2>(c, corners),
                    3 => out.side::<3>(c, corners),
                    4 => out.side::<4>(c, corners),
                    _ => out.side::<5>(c, corners),
                }
            }
        }
        let facing = SIDE_RUNS
            .into_iter()
            .filter(|&f| cursor[f] > starts[f])
            .map(|f| {
                let n = VOXEL_FACES[f].0;
                Facing {
                    start: starts[f] as u32,
                    end: cursor[f] as u32,
                    normal: Vec3::new(n[0] as f32, n[1] as f32, n[2] as f32),
                    // As the corners are placed: grid units as f32, times w.
                    offset: nearest[f] as f32 * w,
                }
            })
            .collect();
        positions.shrink_to_fit();
        normals.shrink_to_fit();
        let skin = self.skin.map(|(j, wt)| Skin {
            joints: vec![j; positions.len()],
            weights: vec![wt; positions.len()],
        });
        Mesh {
            name: {
                let mut name = String::with_capacity(20);
                name.push_str("voxels: type ");
                text::push_int(&mut name, self.t);
                name
            },
            uvs: vec![Vec2::ZERO; positions.len()],
            positions,
            normals,
            indices,
            material: Some(self.material),
            visible: true,
            // The faces bound the filled cells (of every type) and face
            // out of them. Skinned types move apart and open gaps, so
            // those stay two-sided.
            closed,
            facing,
            // A corner is shared by faces of this type facing one way, and
            // a voxel type has one colour (its material's): every corner of
            // a triangle has the side's normal and that colour. Skinning
            // moves every vertex of a type by the same joints and weights
            // (one blend of bones), which keeps it so.
            faceted: true,
            skin,
            ..Mesh::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{VoxelGrid, m3d};

    /// The dense grid is bounded by the voxels the blocks' data holds, its
    /// border included: a block 0 voxels wide, 259 high and 33,279 deep,
    /// with no data, gets no array of 17M cells; lantea.m3d's 77 x 32 x 77
    /// block, all of it in the data, gets its 79 x 34 x 79.
    #[test]
    fn the_dense_grid_is_bounded_by_the_data() {
        let grid = VoxelGrid::new([2, 768, 514], [2, 768 + 259, 514 + 33_279], 0);
        assert!(matches!(grid, VoxelGrid::Sparse(_)));
        let grid = VoxelGrid::new([0; 3], [77, 32, 77], 77 * 32 * 77);
        assert!(matches!(grid, VoxelGrid::Dense { ref cells, .. } if cells.len() == 79 * 34 * 79));
    }

    /// A far-apart block's voxels land where their index in y, z, x order
    /// puts them (places worked out here by hand), and a block 0 wide, as
    /// high and deep as a u32 allows, holding a few voxels, puts none: its
    /// rows hold no cell, and walking them once took a mutated lantea.m3d
    /// seconds in a debug build (billions of empty rows).
    #[test]
    fn a_sparse_block_puts_each_voxel_by_its_index_and_an_empty_one_none() {
        let block = |pos: [i32; 3], size: [u32; 3], data: Vec<u16>| m3d::VoxelBlock {
            name: String::new(),
            pos,
            size,
            uncertainty: 0,
            group: 0,
            data,
        };
        let mut grid = VoxelGrid::Sparse(Default::default());
        // 2 wide, 2 high, 3 deep: voxel i at x = i % 2, z = (i / 2) % 3,
        // y = i / 6. Voxel 10's type 12 is past the 12 types (left unset),
        // and the data ends before voxel 11 (unset too).
        grid.put(
            &block([10, 20, 30], [2, 2, 3], (1..=10).chain([12]).collect()),
            12,
        );
        let VoxelGrid::Sparse(map) = &grid else {
            unreachable!()
        };
        assert_eq!(map.len(), 10, "{map:?}");
        assert_eq!(map[&[10, 20, 30]], 1); // i = 0
        assert_eq!(map[&[11, 20, 30]], 2); // i = 1
        assert_eq!(map[&[10, 20, 32]], 5); // i = 4: z 2
        assert_eq!(map[&[11, 21, 30]], 8); // i = 7: y 1, z 0
        assert_eq!(map[&[11, 21, 31]], 10); // i = 9: y 1, z 1
        assert_eq!(map.get(&[10, 21, 32]), None); // i = 10: type 12
        assert_eq!(map.get(&[11, 21, 32]), None); // i = 11: no data
        grid.put(&block([0; 3], [0, u32::MAX, u32::MAX], vec![3; 5]), 12);
        grid.put(&block([0; 3], [u32::MAX, u32::MAX, 0], vec![3; 5]), 12);
        let VoxelGrid::Sparse(map) = &grid else {
            unreachable!()
        };
        assert_eq!(map.len(), 10, "blocks without cells put nothing");
    }
}
