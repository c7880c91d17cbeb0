//! The decoded map: what a PMF file holds, as plain data.

use super::*;

/// A decoded map.
#[derive(Debug, Clone, PartialEq)]
pub struct Pmf {
    pub version: (u8, u8),
    pub name: String,
    pub authors: String,
    pub description: String,
    /// When the map finished compiling, UTC Unix seconds.
    pub created: u32,
    pub gamemodes: Vec<String>,
    pub difficulties: Vec<String>,
    /// Shared material data with its client appearance path.
    pub materials: Vec<Material>,
    pub dynamic_light_count: u16,
    /// Fast light colours (client data).
    pub fast_lights: Vec<[f32; 3]>,
    pub teams: Vec<Team>,
    pub entities: Entities,
    /// Sectors along X, Y, Z.
    pub sector_counts: [u8; 3],
    /// Sector edge length is `2^sector_size_exp` map units.
    pub sector_size_exp: u8,
    /// Y outermost, then X, then Z fastest (see [`Pmf::sector_index`]).
    pub sectors: Vec<Sector>,
    /// The raw (decompressed) string tables.
    pub server_strings: Vec<u8>,
    pub client_strings: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub has_alpha: bool,
    pub is_fluid: bool,
    pub speed_mul: f32,
    pub accel_mul: f32,
    pub min_damage_speed: f32,
    pub base_damage: f32,
    pub damage_per_mps: f32,
    /// Material appearance resource path (client string).
    pub appearance: Text,
}

/// A resolved string: its byte offset in its table and its text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text {
    pub offset: u32,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Team {
    pub name: Text,
    pub color: [f32; 3],
}

#[derive(Debug, Clone, PartialEq)]
pub struct Sector {
    pub load_radius: [u8; 3],
    pub lightmaps: Vec<Lightmap>,
    pub extra_lightmaps: Vec<ExtraLightmap>,
    pub props: Vec<Prop>,
    pub cubes: Vec<Cube>,
    pub triangles: Vec<Triangle>,
    pub dynamic_lights: Vec<AffectingDynamicLight>,
    pub fast_lights: Vec<AffectingFastLight>,
    /// The lists cube lighting data points into.
    pub dynamic_light_refs: Vec<u16>,
    pub fast_light_refs: Vec<u16>,
}

/// A square RGB565 lightmap, rows top first.
#[derive(Debug, Clone, PartialEq)]
pub struct Lightmap {
    /// `2^size_exp` luxels a side.
    pub size_exp: u8,
    pub luxels: Vec<u16>,
}

impl Lightmap {
    pub fn size(&self) -> u32 {
        1 << self.size_exp
    }
}

/// A lightmap of the size of its base lightmap (light switched by a dynamic
/// light, or an extra layer).
#[derive(Debug, Clone, PartialEq)]
pub struct ExtraLightmap {
    pub base: u8,
    pub luxels: Vec<u16>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prop {
    pub origin: [f32; 3],
    pub radius: [f32; 3],
}

/// Three points: position, texture UV, lightmap UV. Laid out as the file
/// stores it (84 bytes), so a sector's triangles are one copy on
/// little-endian machines.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Triangle {
    pub points: [Point; 3],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Point {
    pub position: [f32; 3],
    pub uv: [f32; 2],
    pub lightmap_uv: [f32; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct AffectingDynamicLight {
    pub light: u16,
    pub extra_lightmaps: Vec<ExtraLightmap>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AffectingFastLight {
    pub light: u16,
    pub points: Vec<AffectedPoint>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AffectedPoint {
    pub multiplier: f32,
    pub lightmap_group: u8,
    /// Triangle point of the sector: triangle * 3 + corner (u24).
    pub point: u32,
}

/// One node of a sector's octree.
#[derive(Debug, Clone, PartialEq)]
pub struct Cube {
    pub lighting: Option<CubeLighting>,
    /// Boxed: few cubes are chunks, and a cube stays small.
    pub chunk: Option<Box<Chunk>>,
    pub kind: CubeKind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubeLighting {
    pub base_light: [u8; 3],
    pub dynamic_index: u32,
    pub dynamic_count: u16,
    pub fast_index: u32,
    pub fast_count: u16,
}

/// A chunk cube: a visibility cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    pub props: Vec<u16>,
    pub visible: Vec<VisibleSector>,
    /// Index in visibility data and cube count, kept raw (decision 10).
    pub visibility_index: u32,
    pub visibility_count: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VisibleSector {
    pub sector: [u8; 3],
    /// Chunk cubes of that sector.
    pub cubes: Vec<u16>,
}

/// Faces in triangle order.
pub const FACES: [&str; 6] = ["+X", "+Y", "+Z", "-X", "-Y", "-Z"];

#[derive(Debug, Clone, PartialEq)]
pub enum CubeKind {
    Empty,
    /// Children in the order +X+Y+Z, -X+Y+Z, +X+Y-Z, -X+Y-Z, +X-Y+Z,
    /// -X-Y+Z, +X-Y-Z, -X-Y-Z.
    Parent([u16; 8]),
    Solid {
        material: u16,
        lightmap: u8,
        triangle: u32,
        /// Bit 5 +X, 4 +Y, 3 +Z, 2 -X, 1 -Y, 0 -Z; 2 triangles a face.
        faces: u8,
    },
    Angled {
        material: u16,
        lightmap: u8,
        triangle: u32,
        /// Triangle counts: plane, +X, +Y, +Z, -X, -Y, -Z (0..=3 each).
        counts: [u8; 7],
        fill: f32,
        pitch: f32,
        yaw: f32,
    },
    ExtSolid {
        materials: [u16; 6],
        lightmap: u8,
        triangle: u32,
        /// +X, +Y, +Z, -X, -Y, -Z.
        counts: [u8; 6],
    },
    ExtAngled {
        materials: [u16; 6],
        lightmap: u8,
        triangle: u32,
        /// plane, +X, +Y, +Z, -X, -Y, -Z (decision 9).
        counts: [u8; 7],
        fill: f32,
        pitch: f32,
        yaw: f32,
    },
}

impl CubeKind {
    pub fn type_id(&self) -> u8 {
        match self {
            CubeKind::Empty => 0,
            CubeKind::Parent(_) => 1,
            CubeKind::Solid { .. } => 2,
            CubeKind::Angled { .. } => 3,
            CubeKind::ExtSolid { .. } => 4,
            CubeKind::ExtAngled { .. } => 5,
        }
    }

    pub fn name(&self) -> &'static str {
        CUBE_TYPES[self.type_id() as usize]
    }

    /// The cube's triangles: `(first, count)` in the sector's list.
    pub fn triangles(&self) -> Option<(u32, u32)> {
        match self {
            CubeKind::Empty | CubeKind::Parent(_) => None,
            CubeKind::Solid {
                triangle, faces, ..
            } => Some((*triangle, 2 * faces.count_ones())),
            CubeKind::Angled {
                triangle, counts, ..
            }
            | CubeKind::ExtAngled {
                triangle, counts, ..
            } => Some((*triangle, counts.iter().map(|&c| c as u32).sum())),
            CubeKind::ExtSolid {
                triangle, counts, ..
            } => Some((*triangle, counts.iter().map(|&c| c as u32).sum())),
        }
    }

    /// The lightmap and the materials this cube uses.
    pub fn lightmap(&self) -> Option<u8> {
        match self {
            CubeKind::Solid { lightmap, .. }
            | CubeKind::Angled { lightmap, .. }
            | CubeKind::ExtSolid { lightmap, .. }
            | CubeKind::ExtAngled { lightmap, .. } => Some(*lightmap),
            _ => None,
        }
    }

    pub fn materials(&self) -> Vec<u16> {
        match self {
            CubeKind::Solid { material, .. } | CubeKind::Angled { material, .. } => {
                vec![*material]
            }
            CubeKind::ExtSolid { materials, .. } | CubeKind::ExtAngled { materials, .. } => {
                materials.to_vec()
            }
            _ => Vec::new(),
        }
    }
}

pub const CUBE_TYPES: [&str; 6] = [
    "empty",
    "parent",
    "solid",
    "angled",
    "extsolid",
    "extangled",
];

/// Octant `i` (child order of a parent) as signs along X, Y, Z.
pub fn octant_signs(i: usize) -> [f32; 3] {
    [
        if i.is_multiple_of(2) { 1.0 } else { -1.0 },
        if i < 4 { 1.0 } else { -1.0 },
        if i % 4 < 2 { 1.0 } else { -1.0 },
    ]
}

impl Pmf {
    /// Edge length of a sector in map units.
    pub fn sector_size(&self) -> f32 {
        (1u64 << self.sector_size_exp) as f32
    }

    /// Index of sector (x, y, z) in [`Pmf::sectors`].
    pub fn sector_index(&self, [x, y, z]: [u8; 3]) -> Option<usize> {
        let [cx, cy, cz] = self.sector_counts.map(usize::from);
        let (x, y, z) = (x as usize, y as usize, z as usize);
        (x < cx && y < cy && z < cz).then_some((y * cx + x) * cz + z)
    }

    /// Coordinates of sector `i`.
    pub fn sector_coords(&self, i: usize) -> [u8; 3] {
        let [cx, _, cz] = self.sector_counts.map(usize::from);
        let z = i % cz;
        let x = (i / cz) % cx;
        let y = i / (cz * cx);
        [x as u8, y as u8, z as u8]
    }
}
