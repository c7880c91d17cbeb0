//! A map as the viewer holds it: sectors on a grid, each an octree of cubes
//! over its triangles, visibility cells, lights, props and entities. Built by
//! a map converter (`from_pmf`) from the decoded file and read by the
//! inspector, the overlays and culling, none of which sees a format type.
//! Texels (lightmaps) live in the scene's textures; only positions of the
//! triangles are kept here (the meshes hold the rest).

use super::Vec3;

/// The map model beside the scene's meshes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Map {
    /// Sectors along X, Y and Z.
    pub sector_counts: [u8; 3],
    /// A sector's side in map units.
    pub sector_size: f32,
    /// In the order [`Map::sector_coords`] gives.
    pub sectors: Vec<Sector>,
    /// Each material's appearance (a resource path).
    pub materials: Vec<String>,
    /// Fast lights' colours, by light index.
    pub fast_light_colors: Vec<[f32; 3]>,
    pub difficulties: Vec<String>,
    pub gamemodes: Vec<String>,
    pub teams: Vec<String>,
    pub entities: Vec<Entity>,
    pub actions: usize,
    pub filters: usize,
    pub selectors: usize,
}

impl Map {
    /// The index of the sector at grid `coords` (Y outermost, then X, then
    /// Z, as maps store them).
    pub fn sector_index(&self, [x, y, z]: [u8; 3]) -> Option<usize> {
        let [cx, cy, cz] = self.sector_counts.map(usize::from);
        let (x, y, z) = (x as usize, y as usize, z as usize);
        (x < cx && y < cy && z < cz).then_some((y * cx + x) * cz + z)
    }

    /// The grid coordinates of sector `i`.
    pub fn sector_coords(&self, i: usize) -> [u8; 3] {
        let [cx, _, cz] = self.sector_counts.map(|c| usize::from(c).max(1));
        [((i / cz) % cx) as u8, (i / (cz * cx)) as u8, (i % cz) as u8]
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sector {
    pub load_radius: [u8; 3],
    /// Side of each lightmap, in luxels.
    pub lightmap_sizes: Vec<u32>,
    pub extra_lightmaps: usize,
    pub props: Vec<Prop>,
    /// The octree: cube 0 is the root.
    pub cubes: Vec<Cube>,
    /// Corner positions of each triangle, in file order (cubes own ranges).
    pub triangles: Vec<[Vec3; 3]>,
    pub dynamic_lights: Vec<DynamicLight>,
    pub fast_lights: Vec<FastLight>,
    /// The light indices cubes' lighting ranges point into.
    pub dynamic_light_refs: Vec<u16>,
    pub fast_light_refs: Vec<u16>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prop {
    pub origin: Vec3,
    /// Half extents.
    pub radius: Vec3,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DynamicLight {
    pub light: u16,
    pub extra_lightmaps: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FastLight {
    pub light: u16,
    /// Triangle points it lights.
    pub points: usize,
}

/// One node of a sector's octree.
#[derive(Debug, Clone, PartialEq)]
pub struct Cube {
    pub kind: CubeKind,
    pub lighting: Option<CubeLighting>,
    /// Boxed: few cubes are cells, and a cube stays small.
    pub chunk: Option<Box<Cell>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubeLighting {
    pub base_light: [u8; 3],
    /// Ranges of the sector's dynamic and fast light references.
    pub dynamic: (u32, u16),
    pub fast: (u32, u16),
}

/// A visibility cell (a chunk cube): its props and what it can see.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub props: Vec<u16>,
    /// Per visible sector (grid coordinates), its cells.
    pub visible: Vec<([u8; 3], Vec<u16>)>,
    /// Where its visibility data sits in the file, kept raw.
    pub visibility_index: u32,
    pub visibility_count: u32,
}

/// The direction of octant `i` from a cube's centre, in the children's
/// order (bit 0: -X, bit 1: -Z, bit 2: -Y).
pub fn octant_signs(i: usize) -> [f32; 3] {
    [
        if i & 1 == 0 { 1.0 } else { -1.0 },
        if i & 4 == 0 { 1.0 } else { -1.0 },
        if i & 2 == 0 { 1.0 } else { -1.0 },
    ]
}

/// Faces in triangle order.
pub const FACES: [&str; 6] = ["+X", "+Y", "+Z", "-X", "-Y", "-Z"];

/// Cube types in [`CubeKind::type_id`] order.
pub const CUBE_TYPES: [&str; 6] = [
    "empty",
    "parent",
    "solid",
    "angled",
    "extended solid",
    "extended angled",
];

/// What a cube is, with what the inspector shows of each kind.
#[derive(Debug, Clone, PartialEq)]
pub enum CubeKind {
    Empty,
    /// Children in octant order: +X+Y+Z, -X+Y+Z, +X+Y-Z, -X+Y-Z, +X-Y+Z,
    /// -X-Y+Z, +X-Y-Z, -X-Y-Z.
    Parent([u16; 8]),
    /// Axis-aligned faces (bit 5 +X .. bit 0 -Z), two triangles each.
    Solid(Surface, u8),
    /// A cut by a plane: triangle counts (plane, then the six faces).
    Angled(Surface, [u8; 7], Plane),
    /// Per-face materials and triangle counts.
    ExtSolid(Surface, [u8; 6]),
    /// Per-face materials, a plane (it takes the +Y material), counts.
    ExtAngled(Surface, [u8; 7], Plane),
}

/// The surface a non-empty leaf draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surface {
    pub lightmap: u8,
    /// First triangle in the sector's list.
    pub triangle: u32,
    /// One material for every face, or one per face (+X +Y +Z -X -Y -Z).
    pub materials: [u16; 6],
    pub per_face: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    pub fill: f32,
    pub pitch: f32,
    pub yaw: f32,
}

impl CubeKind {
    pub fn type_id(&self) -> u8 {
        match self {
            CubeKind::Empty => 0,
            CubeKind::Parent(_) => 1,
            CubeKind::Solid(..) => 2,
            CubeKind::Angled(..) => 3,
            CubeKind::ExtSolid(..) => 4,
            CubeKind::ExtAngled(..) => 5,
        }
    }

    pub fn name(&self) -> &'static str {
        CUBE_TYPES[self.type_id() as usize]
    }

    pub fn surface(&self) -> Option<&Surface> {
        match self {
            CubeKind::Empty | CubeKind::Parent(_) => None,
            CubeKind::Solid(s, _)
            | CubeKind::Angled(s, ..)
            | CubeKind::ExtSolid(s, _)
            | CubeKind::ExtAngled(s, ..) => Some(s),
        }
    }

    /// Triangle counts in the cube's triangle order.
    fn counts(&self) -> Vec<u8> {
        match self {
            CubeKind::Empty | CubeKind::Parent(_) => Vec::new(),
            CubeKind::Solid(_, faces) => (0..6)
                .map(|i| if faces & (1 << (5 - i)) != 0 { 2 } else { 0 })
                .collect(),
            CubeKind::Angled(_, c, _) | CubeKind::ExtAngled(_, c, _) => c.to_vec(),
            CubeKind::ExtSolid(_, c) => c.to_vec(),
        }
    }

    /// The cube's triangles: `(first, count)` in the sector's list.
    pub fn triangles(&self) -> Option<(u32, u32)> {
        let s = self.surface()?;
        Some((s.triangle, self.counts().iter().map(|&c| c as u32).sum()))
    }

    pub fn lightmap(&self) -> Option<u8> {
        self.surface().map(|s| s.lightmap)
    }

    /// The materials this cube uses.
    pub fn materials(&self) -> Vec<u16> {
        match self.surface() {
            Some(s) if s.per_face => s.materials.to_vec(),
            Some(s) => vec![s.materials[0]],
            None => Vec::new(),
        }
    }

    /// The material of each of its triangles, in order.
    pub fn triangle_materials(&self) -> Vec<u16> {
        let Some(s) = self.surface() else {
            return Vec::new();
        };
        let m = s.materials;
        // A plane takes the +Y material.
        let per_side: Vec<u16> = match self {
            CubeKind::Angled(..) | CubeKind::ExtAngled(..) => {
                [m[1], m[0], m[1], m[2], m[3], m[4], m[5]].to_vec()
            }
            _ => m.to_vec(),
        };
        self.counts()
            .iter()
            .zip(per_side)
            .flat_map(|(&n, m)| std::iter::repeat_n(m, n as usize))
            .collect()
    }
}

/// An entity, its fields as text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entity {
    pub name: String,
    pub kind: String,
    pub difficulties: String,
    pub gamemodes: String,
    pub fields: Vec<(String, String)>,
}
