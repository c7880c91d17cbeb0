//! PlatinumSrc map (`.pmf`) decoder: `specs/pmf.txt` and
//! `specs/pmf-entities.txt` for the layout, `notes/pmf-decisions.md` where
//! they are silent; what neither settles is decided in `docs/formats.md`.
//!
//! A map is a header, three LZ4 blocks (shared, server and client data), a
//! grid of sectors (each with lightmaps and two LZ4 blocks of its own: props
//! and a cube octree; triangles and lighting), then the server and client
//! string tables that every string of the file points into. Decoding runs in
//! two steps: the container first (header, blocks, sectors, string tables),
//! then the blocks' contents, once the strings they name can be resolved.
//!
//! Bounds: a count never allocates more than the bytes that could back it;
//! an LZ4 block's declared size is a hard cap checked against what its
//! compressed bytes could expand to (LZ4 expands at most 255:1) and against
//! [`MAX_BLOCK`] before anything is allocated, and the block must inflate to
//! exactly that size. Every index (child cube, triangle, lightmap, material,
//! prop, sector, light, string, entity record) is checked.

use super::{DecodeError, ErrorKind, Reader, Result};

pub const MAGIC: &[u8; 4] = b"PMF\0";
/// Largest decompressed block accepted (a documented cap: 256 MiB).
pub const MAX_BLOCK: usize = 256 << 20;
/// Largest lightmap side exponent accepted: 2^12 = 4096 luxels a side.
pub const MAX_LIGHTMAP_EXP: u8 = 12;

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

// ---------------------------------------------------------------------------
// Entities: table-driven, one list of typed fields per entity kind.

/// The kind of an entity field, filter, selector or action argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// A u8 of flag bits, named from the highest used bit down to bit 0;
    /// the bits above them must be zero.
    Flags(&'static [&'static str]),
    /// A u8 naming one of these values.
    Enum(&'static [&'static str]),
    U16,
    U32,
    I16,
    F32,
    Vec2,
    Vec3,
    Vec4,
    I8x2,
    /// A server string.
    Str,
    /// A u16 count of server strings, then the strings.
    Signals,
    /// Byte index into the filter list.
    Filter,
    /// Byte index into the selector list.
    Selector,
    /// A u8 count of byte indices into the action list.
    Actions,
    /// Byte index into the team data.
    Team,
    /// A material index.
    Material,
    /// A dynamic light index (decision: the spec's undefined "Light
    /// reference" is a u16 into the map's dynamic lights).
    Light,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Flags(u8),
    Enum(u8),
    U16(u16),
    U32(u32),
    I16(i16),
    F32(f32),
    Vec2([f32; 2]),
    Vec3([f32; 3]),
    Vec4([f32; 4]),
    I8x2([i8; 2]),
    Str(Text),
    Signals(Vec<Text>),
    Filter(u32),
    Selector(u32),
    Actions(Vec<u32>),
    Team(u32),
    Material(u16),
    Light(u16),
}

type Fields = &'static [(&'static str, Field)];

const START_DISABLED: Field = Field::Flags(&["start disabled"]);
const START_USABLE: Field = Field::Flags(&["start usable"]);
const START_ENABLED: Field = Field::Flags(&["start enabled"]);

const ZONE: Fields = &[
    ("flags", START_DISABLED),
    ("filter", Field::Filter),
    ("origin", Field::Vec3),
    ("radius", Field::Vec3),
    ("enable", Field::Str),
    ("disable", Field::Str),
];
const PICKUP: Fields = &[
    ("model", Field::Str),
    ("respawn delay", Field::F32),
    ("amount", Field::F32),
];

/// Entity kinds in their enum order, with their data after the common
/// difficulties and gamemodes.
pub const ENTITY_KINDS: [(&str, Fields); 22] = [
    ("headless", &[("script", Field::Str)]),
    (
        "generic",
        &[
            (
                "flags",
                Field::Flags(&["physics", "better physics", "interactable", "selectable"]),
            ),
            ("script", Field::Str),
            ("model", Field::Str),
            ("position", Field::Vec3),
            ("rotation", Field::Vec3),
            ("scale", Field::Vec3),
        ],
    ),
    (
        "box",
        &[
            (
                "flags",
                Field::Flags(&[
                    "hide +X",
                    "hide +Y",
                    "hide +Z",
                    "hide -X",
                    "hide -Y",
                    "hide -Z",
                    "start hidden",
                ]),
            ),
            ("material", Field::Material),
            ("type", Field::Enum(&["empty", "collide", "water", "solid"])),
            ("origin", Field::Vec3),
            ("radius", Field::Vec3),
            ("new origin", Field::Vec3),
            ("new radius", Field::Vec3),
            ("show", Field::Str),
            ("hide", Field::Str),
            ("move", Field::Str),
            ("move back", Field::Str),
        ],
    ),
    (
        "trigger",
        &[
            ("flags", START_DISABLED),
            ("filter", Field::Filter),
            ("origin", Field::Vec3),
            ("radius", Field::Vec3),
            ("enable", Field::Str),
            ("disable", Field::Str),
            ("actions", Field::Actions),
        ],
    ),
    ("map change", ZONE),
    ("zone change", ZONE),
    (
        "press to use",
        &[
            ("flags", START_USABLE),
            ("origin", Field::Vec3),
            ("radius", Field::Vec3),
            ("model", Field::Str),
            ("animation", Field::Str),
            ("duration", Field::F32),
            ("make usable", Field::Str),
            ("make unusable", Field::Str),
            ("actions", Field::Actions),
        ],
    ),
    (
        "hold to use",
        &[
            ("flags", START_USABLE),
            ("origin", Field::Vec3),
            ("radius", Field::Vec3),
            ("model", Field::Str),
            ("animation", Field::Str),
            ("animation speed", Field::F32),
            ("make usable", Field::Str),
            ("make unusable", Field::Str),
            ("press", Field::Actions),
            ("release", Field::Actions),
        ],
    ),
    (
        "multiplexer",
        &[
            ("and", Field::Signals),
            ("or", Field::Signals),
            ("actions", Field::Actions),
        ],
    ),
    (
        "particles",
        &[
            ("flags", START_ENABLED),
            ("position", Field::Vec3),
            ("pattern", Field::U32),
            ("pattern speed", Field::F32),
            ("start color", Field::Vec4),
            ("start color randomness", Field::Vec4),
            ("end color", Field::Vec4),
            ("end color randomness", Field::Vec4),
            ("width", Field::F32),
            ("glow width", Field::F32),
            ("segment length", Field::F32),
            ("trail end color", Field::Vec4),
            ("trail end color randomness", Field::Vec4),
            ("trail length", Field::F32),
            ("particles", Field::U16),
            ("start randomness", Field::F32),
            ("duration", Field::F32),
            ("rotation", Field::Vec3),
            ("rotation randomness", Field::Vec3),
            ("start speed", Field::F32),
            ("end speed", Field::F32),
            ("gravity", Field::Vec3),
            ("start", Field::Str),
            ("stop", Field::Str),
        ],
    ),
    (
        "textured particles",
        &[
            ("flags", START_ENABLED),
            ("position", Field::Vec3),
            ("pattern", Field::U32),
            ("pattern speed", Field::F32),
            ("start color", Field::Vec4),
            ("start color randomness", Field::Vec4),
            ("end color", Field::Vec4),
            ("end color randomness", Field::Vec4),
            ("texture", Field::Str),
            ("particles", Field::U16),
            ("start randomness", Field::F32),
            ("duration", Field::F32),
            ("rotation", Field::Vec3),
            ("rotation randomness", Field::Vec3),
            ("start speed", Field::F32),
            ("end speed", Field::F32),
            ("gravity", Field::Vec3),
            ("start", Field::Str),
            ("stop", Field::Str),
        ],
    ),
    (
        "beam",
        &[
            ("flags", START_ENABLED),
            ("start position", Field::Vec3),
            ("end position", Field::Vec3),
            ("pattern", Field::U32),
            ("pattern speed", Field::F32),
            ("start color", Field::Vec4),
            ("start color randomness", Field::Vec4),
            ("end color", Field::Vec4),
            ("end color randomness", Field::Vec4),
            ("width", Field::F32),
            ("glow width", Field::F32),
            ("segment length", Field::F32),
            ("segment noise", Field::F32),
            ("direction", Field::Vec3),
            ("curve", Field::F32),
            ("start", Field::Str),
            ("stop", Field::Str),
        ],
    ),
    (
        "giblets",
        &[
            ("flags", Field::Flags(&["start immediately"])),
            ("model", Field::Str),
            ("overlay texture", Field::Str),
            ("start", Field::Str),
        ],
    ),
    (
        "door",
        &[
            (
                "flags",
                Field::Flags(&["start unusable", "start open", "start locked"]),
            ),
            ("model", Field::Str),
            ("closed position", Field::Vec3),
            ("closed rotation", Field::Vec3),
            ("closed scale", Field::Vec3),
            ("open position", Field::Vec3),
            ("open rotation", Field::Vec3),
            ("open scale", Field::Vec3),
            ("toggle duration", Field::F32),
            ("open", Field::Str),
            ("close", Field::Str),
            ("lock", Field::Str),
            ("unlock", Field::Str),
            ("make usable", Field::Str),
            ("make unusable", Field::Str),
        ],
    ),
    (
        "spawn",
        &[
            ("filter", Field::Filter),
            ("origin", Field::Vec3),
            ("radius", Field::Vec2),
            ("grid size", Field::I8x2),
            ("enable", Field::Str),
            ("disable", Field::Str),
        ],
    ),
    (
        "dynamic light",
        &[
            ("flags", START_ENABLED),
            ("enable", Field::Str),
            ("disable", Field::Str),
            ("light", Field::Light),
        ],
    ),
    ("health", PICKUP),
    ("shield", PICKUP),
    (
        "weapon",
        &[
            ("model", Field::Str),
            ("respawn delay", Field::F32),
            ("ammo", Field::I16),
        ],
    ),
    (
        "ammo",
        &[
            ("model", Field::Str),
            ("respawn delay", Field::F32),
            ("amount", Field::I16),
        ],
    ),
    // Decision: the spec lists health and shield stations but defines no
    // data for them; they carry what a health / shield pickup carries.
    ("health station", PICKUP),
    ("shield station", PICKUP),
];

const TEAM_ARG: Fields = &[("team", Field::Team)];
const BOX_ARGS: Fields = &[("origin offset", Field::Vec3), ("radius", Field::Vec3)];
const RADIUS_ARGS: Fields = &[("origin offset", Field::Vec3), ("radius", Field::F32)];

pub const FILTER_KINDS: [(&str, Fields); 9] = [
    ("any", &[]),
    ("player", &[]),
    ("entity", &[]),
    ("any team", TEAM_ARG),
    ("player team", TEAM_ARG),
    ("entity team", TEAM_ARG),
    ("any not team", TEAM_ARG),
    ("player not team", TEAM_ARG),
    ("entity not team", TEAM_ARG),
];

pub const SELECTOR_KINDS: [(&str, Fields); 16] = [
    ("self", &[]),
    ("target", &[]),
    ("nearest", &[]),
    ("nearest not target", &[]),
    ("all", &[]),
    ("players", &[]),
    ("entities", &[]),
    ("any box", BOX_ARGS),
    ("player box", BOX_ARGS),
    ("entity box", BOX_ARGS),
    ("any radius", RADIUS_ARGS),
    ("player radius", RADIUS_ARGS),
    ("entity radius", RADIUS_ARGS),
    ("any team", TEAM_ARG),
    ("player team", TEAM_ARG),
    ("entity team", TEAM_ARG),
];

const SEL: (&str, Field) = ("selector", Field::Selector);

pub const ACTION_KINDS: [(&str, Fields); 13] = [
    ("broadcast", &[("signal", Field::Str)]),
    (
        "health",
        &[SEL, ("duration", Field::F32), ("amount", Field::F32)],
    ),
    ("kill", &[SEL]),
    ("explode", &[SEL]),
    ("show", &[SEL]),
    ("hide", &[SEL]),
    ("teleport", &[SEL, ("position", Field::Vec3)]),
    ("push", &[SEL, ("amount", Field::Vec3)]),
    ("save", &[]),
    (
        "play sound",
        &[
            SEL,
            (
                "origin",
                Field::Enum(&["self", "target", "from target", "to target", "world"]),
            ),
            ("offset", Field::Vec3),
            ("sound", Field::Str),
        ],
    ),
    ("change music", &[SEL, ("music", Field::Str)]),
    ("change ambience", &[SEL, ("sound", Field::Str)]),
    ("change team", &[SEL, ("team", Field::Team)]),
];

/// An entity, filter, selector or action: its kind and its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Byte index of the record in its list (what references point at).
    pub at: u32,
    pub kind: u8,
    pub fields: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    pub name: Text,
    pub kind: u8,
    /// Bit masks over the header's difficulties and gamemodes.
    pub difficulties: u8,
    pub gamemodes: u16,
    pub fields: Vec<Value>,
}

impl Entity {
    /// "unknown" for a kind the format does not define (only an entity
    /// built in code can have one; the decoder refuses them).
    pub fn kind_name(&self) -> &'static str {
        ENTITY_KINDS
            .get(self.kind as usize)
            .map_or("unknown", |k| k.0)
    }

    pub fn field_names(&self) -> Fields {
        ENTITY_KINDS.get(self.kind as usize).map_or(&[], |k| k.1)
    }

    /// A field by name.
    pub fn get(&self, name: &str) -> Option<&Value> {
        let i = self.field_names().iter().position(|(n, _)| *n == name)?;
        self.fields.get(i)
    }

    /// Where the entity is, for markers: its origin, position or start.
    pub fn position(&self) -> Option<[f32; 3]> {
        ["origin", "position", "start position", "closed position"]
            .into_iter()
            .find_map(|n| match self.get(n) {
                Some(Value::Vec3(v)) => Some(*v),
                _ => None,
            })
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entities {
    pub entities: Vec<Entity>,
    pub actions: Vec<Record>,
    pub filters: Vec<Record>,
    pub selectors: Vec<Record>,
}

// ---------------------------------------------------------------------------
// Decoding.

/// A string table: strings start at byte indices and end at a NUL.
struct Strings<'a> {
    data: &'a [u8],
    which: &'static str,
}

impl Strings<'_> {
    fn get(&self, r: &Reader, at: usize, offset: u32, field: &str) -> Result<Text> {
        let start = offset as usize;
        let tail = self
            .data
            .get(start..)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                r.err(
                    at,
                    field,
                    format!(
                        "{} string at byte {offset} is past the end of the table ({} bytes)",
                        self.which,
                        self.data.len()
                    ),
                )
            })?;
        let end = tail.iter().position(|&b| b == 0).ok_or_else(|| {
            r.err(
                at,
                field,
                format!("{} string at byte {offset} has no NUL", self.which),
            )
        })?;
        Ok(Text {
            offset,
            text: String::from_utf8_lossy(&tail[..end]).into_owned(),
        })
    }
}

/// Reads a NUL-terminated header string.
fn cstring(r: &mut Reader, field: &str) -> Result<String> {
    let at = r.pos();
    let rest = r.peek_rest();
    let Some(n) = rest.iter().position(|&b| b == 0) else {
        return Err(DecodeError {
            offset: at as u64,
            field: r.name(field),
            kind: ErrorKind::Truncated {
                needed: rest.len() as u64 + 1,
                file_len: r.len() as u64,
            },
        });
    };
    let bytes = r.bytes(n + 1, field)?;
    Ok(String::from_utf8_lossy(&bytes[..n]).into_owned())
}

/// An LZ4 block as stored: where it starts in its container and its bytes.
struct Block<'a> {
    at: usize,
    declared: usize,
    data: &'a [u8],
}

/// Reads `<u32 decompressed> <u32 compressed> <bytes>`.
fn block<'a>(r: &mut Reader<'a>, field: &str) -> Result<Block<'a>> {
    let declared = r.u32(&format!("{field} decompressed size"))? as usize;
    let csize = r.u32(&format!("{field} compressed size"))? as usize;
    let at = r.pos();
    let data = r.bytes(csize, field)?;
    Ok(Block { at, declared, data })
}

/// Inflates a raw LZ4 block to exactly `declared` bytes, refusing sizes its
/// compressed bytes could not produce or above [`MAX_BLOCK`] before
/// allocating.
pub fn inflate(data: &[u8], declared: usize) -> std::result::Result<Vec<u8>, String> {
    check_declared(data, declared)?;
    match lz4_flex::block::decompress(data, declared) {
        Ok(out) if out.len() == declared => Ok(out),
        Ok(out) => Err(format!(
            "inflates to {} bytes, not the declared {declared}",
            out.len()
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Refuses a declared size that the compressed bytes cannot expand to
/// (LZ4's best case: a 255-byte run per length byte, plus the last
/// literals) or above [`MAX_BLOCK`], before anything is allocated.
fn check_declared(data: &[u8], declared: usize) -> std::result::Result<(), String> {
    let possible = data.len().saturating_mul(255).saturating_add(16);
    if declared > possible {
        return Err(format!(
            "declares {declared} bytes, more than its {} compressed bytes can hold",
            data.len()
        ));
    }
    if declared > MAX_BLOCK {
        return Err(format!(
            "declares {declared} bytes, above the {MAX_BLOCK}-byte cap"
        ));
    }
    Ok(())
}

/// As [`inflate`], into `scratch` (grown when it must, never shrunk or
/// cleared: the sector blocks and lightmaps of a map reuse one buffer, so
/// decoding pays no page faults per block).
fn inflate_into<'s>(
    data: &[u8],
    declared: usize,
    scratch: &'s mut Vec<u8>,
) -> std::result::Result<&'s [u8], String> {
    check_declared(data, declared)?;
    if scratch.len() < declared {
        scratch.resize(declared, 0);
    }
    let out = &mut scratch[..declared];
    match lz4_flex::block::decompress_into(data, out) {
        Ok(n) if n == declared => Ok(out),
        Ok(n) => Err(format!(
            "inflates to {n} bytes, not the declared {declared}"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Reusable buffers: the shared sector blocks are inflated into one, and
/// the octree check marks the cubes that have a parent in the other.
#[derive(Default)]
struct Scratch {
    block: Vec<u8>,
    claimed: Vec<bool>,
}

fn inflate_block(r: &Reader, b: &Block, field: &str) -> Result<Vec<u8>> {
    inflate(b.data, b.declared).map_err(|msg| DecodeError {
        offset: b.at as u64,
        field: r.name(field),
        kind: ErrorKind::Compression(msg),
    })
}

/// Maps an error inside a decompressed block to the block's place in the
/// file: the block's offset, and the decompressed offset in the field text.
fn in_block(e: DecodeError, r: &Reader, b: &Block, what: &str) -> DecodeError {
    let detail = match &e.kind {
        ErrorKind::Truncated { needed, file_len } => ErrorKind::Invalid(format!(
            "decompressed byte {:#X} needs {needed} byte{} but the block ends at {file_len:#X}",
            e.offset,
            if *needed == 1 { "" } else { "s" }
        )),
        ErrorKind::Invalid(m) => {
            ErrorKind::Invalid(format!("decompressed byte {:#X}: {m}", e.offset))
        }
        other => other.clone(),
    };
    DecodeError {
        offset: b.at as u64,
        field: format!("{} (LZ4 block): {}", r.name(what), e.field),
        kind: detail,
    }
}

/// Prefixes an error's field with where it happened (built only on the
/// error path: the hot loops format nothing).
fn at_index(mut e: DecodeError, what: std::fmt::Arguments) -> DecodeError {
    e.field = format!("{what}: {}", e.field);
    e
}

fn le_f32(b: &[u8]) -> f32 {
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// `n` little-endian u16s in one read.
fn u16s(r: &mut Reader, n: usize, field: &str) -> Result<Vec<u16>> {
    r.check_count(n, 2, field)?;
    let b = r.bytes(n * 2, field)?;
    Ok(b.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect())
}

fn read_u24(r: &mut Reader, field: &str) -> Result<u32> {
    let b: [u8; 3] = r.fixed(field)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
}

/// Inflates a block straight into a fresh vector of `T` (the file layout is
/// the memory layout: no copy out of a scratch buffer), sized to hold at
/// least `declared` bytes. The caller has run [`check_declared`]; the
/// values are still little-endian.
fn inflate_pod<T: bytemuck::Pod>(
    data: &[u8],
    declared: usize,
) -> std::result::Result<Vec<T>, String> {
    let mut out: Vec<T> = bytemuck::zeroed_vec(declared.div_ceil(size_of::<T>()));
    let bytes = &mut bytemuck::cast_slice_mut::<T, u8>(&mut out)[..declared];
    match lz4_flex::block::decompress_into(data, bytes) {
        Ok(n) if n == declared => Ok(out),
        Ok(n) => Err(format!(
            "inflates to {n} bytes, not the declared {declared}"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Little-endian 4-byte words to native order, in place (nothing to do on
/// little-endian machines).
fn words_from_le<T: bytemuck::Pod>(v: &mut [T]) {
    if cfg!(target_endian = "big") {
        for w in bytemuck::cast_slice_mut::<T, u32>(v) {
            *w = u32::from_le(*w);
        }
    }
}

/// A sector as the container lays it out: its blocks found and their
/// declared sizes checked, nothing inflated yet (its worker does that).
struct RawSector<'a> {
    load_radius: [u8; 3],
    /// Size exponent and block of each lightmap.
    lightmaps: Vec<(u8, LuxelBlock<'a>)>,
    /// Base lightmap and block of each extra lightmap.
    extra_lightmaps: Vec<(u8, LuxelBlock<'a>)>,
    shared: Block<'a>,
    client: Block<'a>,
}

/// The header's fields, up to the material count.
struct Header {
    version: (u8, u8),
    name: String,
    authors: String,
    description: String,
    created: u32,
    gamemodes: Vec<String>,
    difficulties: Vec<String>,
}

fn header(r: &mut Reader) -> Result<Header> {
    r.magic(MAGIC, "magic")?;
    let major = r.u8("major version")?;
    let minor = r.u8("minor version")?;
    if major != 0 {
        return Err(r.err(4, "major version", format!("{major} (only 0.x is defined)")));
    }
    let name = cstring(r, "name")?;
    let authors = cstring(r, "authors")?;
    let description = cstring(r, "description")?;
    let created = r.u32("creation time")?;
    let mut names = |what: &str, max: u8| -> Result<Vec<String>> {
        let at = r.pos();
        let n = r.u8(&format!("{what} count"))?;
        if !(1..=max).contains(&n) {
            return Err(r.err(
                at,
                &format!("{what} count"),
                format!("{n} (must be 1..{max})"),
            ));
        }
        (0..n).map(|i| cstring(r, &format!("{what} {i}"))).collect()
    };
    let gamemodes = names("gamemode", 16)?;
    let difficulties = names("difficulty", 8)?;
    Ok(Header {
        version: (major, minor),
        name,
        authors,
        description,
        created,
        gamemodes,
        difficulties,
    })
}

/// Decodes a whole map.
pub fn decode(data: &[u8]) -> Result<Pmf> {
    decode_with_progress(data, &|_| {})
}

/// As [`decode`], telling `progress` how far it is (0..1) as sectors are
/// decoded, for a progress bar.
pub fn decode_with_progress(data: &[u8], progress: &dyn Fn(f32)) -> Result<Pmf> {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    decode_on(data, cores, progress)
}

/// As [`decode_with_progress`], decoding sectors on at most `threads`
/// threads (this one included; 1 decodes everything here). The result,
/// or the error, is the same whatever the count.
pub fn decode_on(data: &[u8], threads: usize, progress: &dyn Fn(f32)) -> Result<Pmf> {
    let mut r = Reader::new(data);
    let Header {
        version: (major, minor),
        name,
        authors,
        description,
        created,
        gamemodes,
        difficulties,
    } = header(&mut r)?;
    let material_count = r.u16("material count")? as usize;
    let dynamic_light_count = r.u16("dynamic light count")?;
    let fast_light_count = r.u16("fast light count")? as usize;
    let shared = block(&mut r, "shared data")?;
    let server = block(&mut r, "server data")?;
    let client = block(&mut r, "client data")?;

    let at = r.pos();
    let sector_counts: [u8; 3] = r.fixed("sector counts")?;
    if sector_counts.contains(&0) {
        return Err(r.err(
            at,
            "sector counts",
            format!("{sector_counts:?} (must be at least 1 along each axis)"),
        ));
    }
    let at = r.pos();
    let sector_size_exp = r.u8("sector size")?;
    if sector_size_exp > 31 {
        return Err(r.err(
            at,
            "sector size",
            format!("2^{sector_size_exp} (at most 2^31)"),
        ));
    }
    let sector_count = sector_counts.iter().map(|&c| c as usize).product::<usize>();
    // A sector takes at least 3 + 1 + 1 + 4 + 2 + 16 bytes.
    let raw_sectors = r.array(sector_count, 27, "sectors", |r, i| {
        r.set_ctx(format!("sector {i}"));
        let s = raw_sector(r);
        r.clear_ctx();
        s
    })?;
    let server_table = block(&mut r, "server string table")?;
    let client_table = block(&mut r, "client string table")?;
    if r.remaining() > 0 {
        return Err(r.err(
            r.pos(),
            "end of file",
            format!("{} bytes after the client string table", r.remaining()),
        ));
    }
    let server_strings = inflate_block(&r, &server_table, "server string table")?;
    let client_strings = inflate_block(&r, &client_table, "client string table")?;
    for (t, b, what) in [
        (&server_strings, &server_table, "server string table"),
        (&client_strings, &client_table, "client string table"),
    ] {
        if t.len() < 2 || t[0] != 0 || t[t.len() - 1] != 0 {
            return Err(r.err(
                b.at,
                what,
                "must start and end with a NUL (at least 2 bytes: the empty string at 0)",
            ));
        }
    }
    let sstr = Strings {
        data: &server_strings,
        which: "server",
    };
    let cstr = Strings {
        data: &client_strings,
        which: "client",
    };

    // Shared data: material records.
    let bytes = inflate_block(&r, &shared, "shared data")?;
    let mut br = Reader::new(&bytes);
    let shared_materials = br
        .array(material_count, 21, "material", |br, i| {
            br.set_ctx(format!("material {i}"));
            let at = br.pos();
            let flags = br.u8("flags")?;
            if flags & !3 != 0 {
                return Err(br.err(at, "flags", format!("{flags:#04X} (bits 7..2 must be 0)")));
            }
            let m = (
                flags,
                [
                    br.f32("speed multiplier")?,
                    br.f32("acceleration multiplier")?,
                    br.f32("minimum damage speed")?,
                    br.f32("base damage")?,
                    br.f32("damage per m/s")?,
                ],
            );
            br.clear_ctx();
            Ok(m)
        })
        .and_then(|m| end_of_block(&br).map(|_| m))
        .map_err(|e| in_block(e, &r, &shared, "shared data"))?;

    // Server data: teams and entities.
    let bytes = inflate_block(&r, &server, "server data")?;
    let mut br = Reader::new(&bytes);
    let (teams, entities) = server_data(&mut br, &sstr, material_count, dynamic_light_count)
        .and_then(|v| end_of_block(&br).map(|_| v))
        .map_err(|e| in_block(e, &r, &server, "server data"))?;

    // Client data: material appearances and fast lights.
    let bytes = inflate_block(&r, &client, "client data")?;
    let mut br = Reader::new(&bytes);
    let (appearances, fast_lights) = (|| {
        let paths = br.array(material_count, 4, "material appearance", |br, i| {
            let at = br.pos();
            let off = br.u32(&format!("material {i} appearance"))?;
            cstr.get(br, at, off, &format!("material {i} appearance"))
        })?;
        let lights = br.array(fast_light_count, 12, "fast light", |br, i| {
            br.vec3(&format!("fast light {i} color"))
        })?;
        end_of_block(&br)?;
        Ok((paths, lights))
    })()
    .map_err(|e| in_block(e, &r, &client, "client data"))?;

    let materials = shared_materials
        .into_iter()
        .zip(appearances)
        .map(|((flags, f), appearance)| Material {
            has_alpha: flags & 2 != 0,
            is_fluid: flags & 1 != 0,
            speed_mul: f[0],
            accel_mul: f[1],
            min_damage_speed: f[2],
            base_damage: f[3],
            damage_per_mps: f[4],
            appearance,
        })
        .collect();

    let limits = Limits {
        materials: material_count,
        dynamic_lights: dynamic_light_count as usize,
        fast_lights: fast_light_count,
    };
    let blocks_at: Vec<usize> = raw_sectors.iter().map(|s| s.shared.at).collect();
    progress(0.05);
    let (sectors, chunks) = decode_sectors(data, &raw_sectors, &limits, threads, progress)?;
    let map = Pmf {
        version: (major, minor),
        name,
        authors,
        description,
        created,
        gamemodes,
        difficulties,
        materials,
        dynamic_light_count,
        fast_lights,
        teams,
        entities,
        sector_counts,
        sector_size_exp,
        sectors,
        server_strings,
        client_strings,
    };
    validate_visibility(&map, &chunks, &blocks_at)?;
    Ok(map)
}

/// Decodes the sectors, which are independent, on up to `threads` threads
/// (this one among them). Workers take the next sector in file order, so
/// when one fails, every sector before it has been taken and finishes, and
/// the error reported is the first in the file, as a sequential decode
/// would report it. `progress` is only called on this thread.
fn decode_sectors(
    data: &[u8],
    raw: &[RawSector],
    limits: &Limits,
    threads: usize,
    progress: &dyn Fn(f32),
) -> Result<(Vec<Sector>, Vec<Vec<u16>>)> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    /// A decoded sector and its chunk cubes.
    type Decoded = Result<(Sector, Vec<u16>)>;
    let n = raw.len();
    let (next, done, failed) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicBool::new(false),
    );
    // Decodes sectors until none is left or one failed; returns them with
    // their indices.
    let work = |report: &dyn Fn(usize)| -> Vec<(usize, Decoded)> {
        let mut scratch = Scratch::default();
        let mut out = Vec::new();
        while !failed.load(Relaxed) {
            let i = next.fetch_add(1, Relaxed);
            let Some(s) = raw.get(i) else { break };
            let mut r = Reader::new(data);
            r.set_ctx(format!("sector {i}"));
            let mut chunks = Vec::new();
            let result = sector(&r, s, limits, &mut scratch, &mut chunks).map(|s| (s, chunks));
            if result.is_err() {
                failed.store(true, Relaxed);
            }
            out.push((i, result));
            report(done.fetch_add(1, Relaxed) + 1);
        }
        out
    };
    let mut slots: Vec<Option<Decoded>> = (0..n).map(|_| None).collect();
    std::thread::scope(|scope| {
        // A worker that cannot start leaves its share to the others.
        let workers: Vec<_> = (1..threads.min(n))
            .filter_map(|t| {
                std::thread::Builder::new()
                    .name(format!("pmf sectors {t}"))
                    .spawn_scoped(scope, || work(&|_| {}))
                    .ok()
            })
            .collect();
        let mine = work(&|d| progress(0.05 + 0.95 * d as f32 / n.max(1) as f32));
        let theirs = workers.into_iter().flat_map(|w| {
            w.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        for (i, result) in mine.into_iter().chain(theirs) {
            slots[i] = Some(result);
        }
    });
    let mut sectors = Vec::with_capacity(n);
    let mut chunk_lists = Vec::with_capacity(n);
    for (i, slot) in slots.into_iter().enumerate() {
        match slot {
            Some(Ok((s, c))) => {
                sectors.push(s);
                chunk_lists.push(c);
            }
            Some(Err(e)) => return Err(e),
            // Only sectors after a failed one are left undone.
            None => {
                return Err(DecodeError::invalid(
                    0,
                    format!("sector {i}"),
                    "not decoded (an earlier sector failed)",
                ));
            }
        }
    }
    progress(1.0);
    Ok((sectors, chunk_lists))
}

/// Every LZ4 block of a map as `(compressed bytes, declared size)`, in file
/// order, found by walking the container as [`decode`] does (the
/// benchmark inflates them alone to compare with a full decode). That
/// includes the extra lightmaps of dynamic lights, which are LZ4 blocks
/// inside the inflated client sector blocks (copied out here).
pub fn lz4_blocks(data: &[u8]) -> Result<Vec<(std::borrow::Cow<'_, [u8]>, usize)>> {
    let mut r = Reader::new(data);
    header(&mut r)?;
    r.bytes(6, "counts")?;
    let mut out = Vec::new();
    for f in ["shared data", "server data", "client data"] {
        let b = block(&mut r, f)?;
        out.push((b.data.into(), b.declared));
    }
    let counts: [u8; 3] = r.fixed("sector counts")?;
    r.u8("sector size")?;
    let n = counts.iter().map(|&c| c as usize).product::<usize>();
    for _ in 0..n {
        r.bytes(3, "load radius")?;
        let lightmaps = r.u8("lightmap count minus 1")? as usize + 1;
        let mut sizes = Vec::new();
        for _ in 0..lightmaps {
            let exp = r.u8("lightmap size")?.min(MAX_LIGHTMAP_EXP);
            let csize = r.u32("lightmap compressed size")? as usize;
            let luxels = 1usize << (2 * exp as u32);
            out.push((r.bytes(csize, "lightmap")?.into(), luxels * 2));
            sizes.push(luxels * 2);
        }
        let extra = r.u16("extra lightmap count")?;
        for _ in 0..extra {
            let base = r.u8("base lightmap")? as usize;
            let csize = r.u32("extra lightmap compressed size")? as usize;
            out.push((
                r.bytes(csize, "extra lightmap")?.into(),
                sizes.get(base).copied().unwrap_or(0),
            ));
        }
        let shared = block(&mut r, "shared sector data")?;
        out.push((shared.data.into(), shared.declared));
        let client = block(&mut r, "client sector data")?;
        out.push((client.data.into(), client.declared));
        let bytes = inflate_block(&r, &client, "client sector data")?;
        let mut br = Reader::new(&bytes);
        let triangles = read_u24(&mut br, "triangle count")? as usize;
        br.bytes(triangles.saturating_mul(84), "triangles")?;
        for _ in 0..br.u16("affecting dynamic light count")? {
            br.u16("light")?;
            for _ in 0..br.u8("extra lightmap count")? {
                let base = br.u8("base lightmap")? as usize;
                let csize = br.u32("extra lightmap compressed size")? as usize;
                out.push((
                    br.bytes(csize, "extra lightmap")?.to_vec().into(),
                    sizes.get(base).copied().unwrap_or(0),
                ));
            }
        }
    }
    for f in ["server string table", "client string table"] {
        let b = block(&mut r, f)?;
        out.push((b.data.into(), b.declared));
    }
    Ok(out)
}

fn end_of_block(r: &Reader) -> Result<()> {
    if r.remaining() > 0 {
        return Err(r.err(
            r.pos(),
            "end of block",
            format!("{} unread bytes after the last record", r.remaining()),
        ));
    }
    Ok(())
}

fn raw_sector<'a>(r: &mut Reader<'a>) -> Result<RawSector<'a>> {
    let load_radius: [u8; 3] = r.fixed("load radius")?;
    let count = r.u8("lightmap count minus 1")? as usize + 1;
    let lightmaps = r.array(count, 5, "lightmap", |r, i| {
        let at = r.pos();
        let size_exp = r.u8(&format!("lightmap {i} size"))?;
        if size_exp > MAX_LIGHTMAP_EXP {
            return Err(r.err(
                at,
                &format!("lightmap {i} size"),
                format!("2^{size_exp} luxels a side (at most 2^{MAX_LIGHTMAP_EXP})"),
            ));
        }
        let luxels = 1usize << (2 * size_exp as u32);
        Ok((size_exp, luxel_block(r, luxels, &format!("lightmap {i}"))?))
    })?;
    let count = r.u16("extra lightmap count")? as usize;
    let extra_lightmaps = r.array(count, 5, "extra lightmap", |r, i| {
        let field = format!("extra lightmap {i}");
        let sizes = |base: usize| lightmaps.get(base).map(|l| l.1.luxels);
        extra_lightmap_block(r, lightmaps.len(), &sizes, &field)
    })?;
    let shared = block(r, "shared sector data")?;
    let client = block(r, "client sector data")?;
    Ok(RawSector {
        load_radius,
        lightmaps,
        extra_lightmaps,
        shared,
        client,
    })
}

/// A lightmap's LZ4 block of `luxels` RGB565 luxels.
struct LuxelBlock<'a> {
    at: usize,
    data: &'a [u8],
    luxels: usize,
}

/// `<u32 compressed size> <LZ4 block>` of `luxels` RGB565 luxels, its
/// declared size checked but not inflated yet.
fn luxel_block<'a>(r: &mut Reader<'a>, luxels: usize, field: &str) -> Result<LuxelBlock<'a>> {
    let csize = r.u32(&format!("{field} compressed size"))? as usize;
    let at = r.pos();
    let data = r.bytes(csize, field)?;
    check_declared(data, luxels * 2).map_err(|msg| DecodeError {
        offset: at as u64,
        field: r.name(field),
        kind: ErrorKind::Compression(msg),
    })?;
    Ok(LuxelBlock { at, data, luxels })
}

/// Inflates a lightmap straight into its luxel vector.
fn inflate_luxels(r: &Reader, b: &LuxelBlock, field: &dyn Fn() -> String) -> Result<Vec<u16>> {
    let mut luxels = inflate_pod::<u16>(b.data, b.luxels * 2).map_err(|msg| DecodeError {
        offset: b.at as u64,
        field: r.name(&field()),
        kind: ErrorKind::Compression(msg),
    })?;
    if cfg!(target_endian = "big") {
        for l in &mut luxels {
            *l = u16::from_le(*l);
        }
    }
    Ok(luxels)
}

/// `<u8 base lightmap> <luxel block>`: an extra lightmap the size of its
/// base (`sizes` gives a lightmap's luxel count).
fn extra_lightmap_block<'a>(
    r: &mut Reader<'a>,
    lightmap_count: usize,
    sizes: &dyn Fn(usize) -> Option<usize>,
    field: &str,
) -> Result<(u8, LuxelBlock<'a>)> {
    let at = r.pos();
    let base = r.u8(&format!("{field} base lightmap"))?;
    let Some(luxels) = sizes(base as usize) else {
        return Err(r.err(
            at,
            &format!("{field} base lightmap"),
            format!("{base} (the sector has {lightmap_count} lightmaps)"),
        ));
    };
    Ok((base, luxel_block(r, luxels, field)?))
}

struct Limits {
    materials: usize,
    dynamic_lights: usize,
    fast_lights: usize,
}

/// What a sector's cubes may point at, known once its client block is read.
struct CubeLimits {
    materials: usize,
    props: usize,
    lightmaps: usize,
    triangles: u64,
    dynamic_refs: u64,
    fast_refs: u64,
}

/// A sector's client block: triangles, lights and light references.
struct ClientSector {
    triangles: Vec<Triangle>,
    dynamic_lights: Vec<AffectingDynamicLight>,
    fast_lights: Vec<AffectingFastLight>,
    dynamic_light_refs: Vec<u16>,
    fast_light_refs: Vec<u16>,
}

/// Decodes one sector: the client block first (so that the cubes can be
/// checked against its triangle and light-reference counts as they are
/// parsed), then the shared block's props and octree. Chunk cubes are
/// listed in `chunks` for the visibility check once every sector is known.
fn sector(
    r: &Reader,
    s: &RawSector,
    limits: &Limits,
    scratch: &mut Scratch,
    chunks: &mut Vec<u16>,
) -> Result<Sector> {
    let lightmaps = s
        .lightmaps
        .iter()
        .enumerate()
        .map(|(i, (size_exp, b))| {
            Ok(Lightmap {
                size_exp: *size_exp,
                luxels: inflate_luxels(r, b, &|| format!("lightmap {i}"))?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let extra_lightmaps = s
        .extra_lightmaps
        .iter()
        .enumerate()
        .map(|(i, (base, b))| {
            Ok(ExtraLightmap {
                base: *base,
                luxels: inflate_luxels(r, b, &|| format!("extra lightmap {i}"))?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let client = client_block(r, &s.client, &lightmaps, limits)?;
    let Scratch { block, claimed } = scratch;
    let bytes =
        inflate_into(s.shared.data, s.shared.declared, block).map_err(|msg| DecodeError {
            offset: s.shared.at as u64,
            field: r.name("shared sector data"),
            kind: ErrorKind::Compression(msg),
        })?;
    let mut br = Reader::new(bytes);
    let (props, cubes) = (|| {
        let n = br.u16("prop count")? as usize;
        let props = br.array(n, 24, "prop", |br, i| {
            (|| {
                Ok(Prop {
                    origin: br.vec3("origin")?,
                    radius: br.vec3("radius")?,
                })
            })()
            .map_err(|e: DecodeError| at_index(e, format_args!("prop {i}")))
        })?;
        let n = br.u16("cube count minus 1")? as usize + 1;
        let lim = CubeLimits {
            materials: limits.materials,
            props: props.len(),
            lightmaps: lightmaps.len(),
            triangles: client.triangles.len() as u64,
            dynamic_refs: client.dynamic_light_refs.len() as u64,
            fast_refs: client.fast_light_refs.len() as u64,
        };
        claimed.clear();
        claimed.resize(n, false);
        let cubes = br.array(n, 1, "cube", |br, i| {
            let c = cube(br, &lim, claimed).map_err(|e| at_index(e, format_args!("cube {i}")))?;
            if c.chunk.is_some() {
                chunks.push(i as u16);
            }
            Ok(c)
        })?;
        end_of_block(&br)?;
        Ok((props, cubes))
    })()
    .map_err(|e| in_block(e, r, &s.shared, "shared sector data"))?;
    Ok(Sector {
        load_radius: s.load_radius,
        lightmaps,
        extra_lightmaps,
        props,
        cubes,
        triangles: client.triangles,
        dynamic_lights: client.dynamic_lights,
        fast_lights: client.fast_lights,
        dynamic_light_refs: client.dynamic_light_refs,
        fast_light_refs: client.fast_light_refs,
    })
}

/// The client sector block, inflated straight into the memory of the
/// triangles: it starts with their u24 count and then the 84-byte records,
/// already in `Triangle`'s layout, so once the rest of the block is read
/// they move 3 bytes down in place instead of being copied out.
fn client_block(
    r: &Reader,
    b: &Block,
    lightmaps: &[Lightmap],
    limits: &Limits,
) -> Result<ClientSector> {
    let mut triangles = check_declared(b.data, b.declared)
        .and_then(|()| inflate_pod::<Triangle>(b.data, b.declared))
        .map_err(|msg| DecodeError {
            offset: b.at as u64,
            field: r.name("client sector data"),
            kind: ErrorKind::Compression(msg),
        })?;
    let bytes = &bytemuck::cast_slice::<Triangle, u8>(&triangles)[..b.declared];
    let mut br = Reader::new(bytes);
    let (n, dynamic_lights, fast_lights, dynamic_light_refs, fast_light_refs) = (|| {
        let n = read_u24(&mut br, "triangle count")? as usize;
        br.check_count(n, 84, "triangles")?;
        br.bytes(n * 84, "triangles")?;
        let count = br.u16("affecting dynamic light count")? as usize;
        let dynamic_lights = br.array(count, 3, "affecting dynamic light", |br, i| {
            dynamic_light(br, lightmaps, limits)
                .map_err(|e| at_index(e, format_args!("affecting dynamic light {i}")))
        })?;
        let count = br.u16("affecting fast light count")? as usize;
        let points = n as u64 * 3;
        let fast_lights = br.array(count, 6, "affecting fast light", |br, i| {
            fast_light(br, points, limits)
                .map_err(|e| at_index(e, format_args!("affecting fast light {i}")))
        })?;
        let refs = |br: &mut Reader, what: &str, limit: usize| -> Result<Vec<u16>> {
            let n = br.u32(&format!("{what} reference count"))? as usize;
            let at = br.pos();
            let v = u16s(br, n, &format!("{what} references"))?;
            if let Some(i) = v.iter().position(|&x| x as usize >= limit) {
                return Err(br.err(
                    at + 2 * i,
                    &format!("{what} reference {i}"),
                    format!("light {} (the map has {limit})", v[i]),
                ));
            }
            Ok(v)
        };
        let dynamic_light_refs = refs(&mut br, "dynamic light", limits.dynamic_lights)?;
        let fast_light_refs = refs(&mut br, "fast light", limits.fast_lights)?;
        end_of_block(&br)?;
        Ok((
            n,
            dynamic_lights,
            fast_lights,
            dynamic_light_refs,
            fast_light_refs,
        ))
    })()
    .map_err(|e| in_block(e, r, b, "client sector data"))?;
    bytemuck::cast_slice_mut::<Triangle, u8>(&mut triangles).copy_within(3..3 + n * 84, 0);
    triangles.truncate(n);
    triangles.shrink_to_fit();
    words_from_le(&mut triangles);
    Ok(ClientSector {
        triangles,
        dynamic_lights,
        fast_lights,
        dynamic_light_refs,
        fast_light_refs,
    })
}

fn dynamic_light(
    br: &mut Reader,
    lightmaps: &[Lightmap],
    limits: &Limits,
) -> Result<AffectingDynamicLight> {
    let at = br.pos();
    let light = br.u16("light")?;
    if light as usize >= limits.dynamic_lights {
        return Err(br.err(
            at,
            "light",
            format!("light {light} (the map has {})", limits.dynamic_lights),
        ));
    }
    let n = br.u8("extra lightmap count")? as usize;
    let extra_lightmaps = br.array(n, 5, "extra lightmap", |br, j| {
        let field = format!("extra lightmap {j}");
        let sizes = |base: usize| lightmaps.get(base).map(|l| l.luxels.len());
        let (base, b) = extra_lightmap_block(br, lightmaps.len(), &sizes, &field)?;
        let luxels = inflate_luxels(br, &b, &|| field.clone())?;
        Ok(ExtraLightmap { base, luxels })
    })?;
    Ok(AffectingDynamicLight {
        light,
        extra_lightmaps,
    })
}

fn fast_light(br: &mut Reader, point_count: u64, limits: &Limits) -> Result<AffectingFastLight> {
    let at = br.pos();
    let light = br.u16("light")?;
    if light as usize >= limits.fast_lights {
        return Err(br.err(
            at,
            "light",
            format!("light {light} (the map has {})", limits.fast_lights),
        ));
    }
    let n = br.u32("affected point count")? as usize;
    br.check_count(n, 8, "affected points")?;
    let at = br.pos();
    let mut points = Vec::with_capacity(n);
    for (j, p) in br
        .bytes(n * 8, "affected points")?
        .chunks_exact(8)
        .enumerate()
    {
        let point = u32::from_le_bytes([p[5], p[6], p[7], 0]);
        if point as u64 >= point_count {
            return Err(br.err(
                at + j * 8 + 5,
                &format!("point {j}"),
                format!("point {point} (the sector has {point_count} triangle points)"),
            ));
        }
        points.push(AffectedPoint {
            multiplier: le_f32(p),
            lightmap_group: p[4],
            point,
        });
    }
    Ok(AffectingFastLight { light, points })
}

fn le_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le_u24(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], 0])
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// One cube record, checked as it is read: every fixed-size part is taken
/// with one bounds check, and the octree (children in range, each cube the
/// child of at most one parent and never the root: from cube 0 the octree
/// is a tree without cycles), triangle ranges, lightmap, materials, props
/// and light-reference ranges are checked against `lim`. `claimed` marks
/// the cubes some parent already has as a child.
#[inline(always)]
fn cube(r: &mut Reader, lim: &CubeLimits, claimed: &mut [bool]) -> Result<Cube> {
    let at = r.pos();
    let t = r.u8("type")?;
    if t & 0xC0 != 0 || t & 0x0F > 5 {
        return Err(r.err(
            at,
            "type",
            format!("{t:#04X} (bits 7..6 must be 0 and bits 3..0 a type 0..5)"),
        ));
    }
    let lighting = if t & 0x10 != 0 {
        let at = r.pos();
        let b: &[u8; 15] = r.fixed_ref("lighting data")?;
        let l = CubeLighting {
            base_light: [b[0], b[1], b[2]],
            dynamic_index: le_u32(b, 3),
            dynamic_count: le_u16(b, 7),
            fast_index: le_u32(b, 9),
            fast_count: le_u16(b, 13),
        };
        let (first, end) = (
            l.dynamic_index,
            l.dynamic_index as u64 + l.dynamic_count as u64,
        );
        if end > lim.dynamic_refs {
            return Err(r.err(
                at + 3,
                "dynamic light references",
                format!(
                    "dynamic light references {first}..{end} past the sector's {}",
                    lim.dynamic_refs
                ),
            ));
        }
        let (first, end) = (l.fast_index, l.fast_index as u64 + l.fast_count as u64);
        if end > lim.fast_refs {
            return Err(r.err(
                at + 9,
                "fast light references",
                format!(
                    "fast light references {first}..{end} past the sector's {}",
                    lim.fast_refs
                ),
            ));
        }
        Some(l)
    } else {
        None
    };
    let chunk = if t & 0x20 != 0 {
        Some(Box::new(chunk(r, lim.props)?))
    } else {
        None
    };
    let at = r.pos();
    let kind = match t & 0x0F {
        0 => CubeKind::Empty,
        1 => {
            let b: &[u8; 16] = r.fixed_ref("children")?;
            let children: [u16; 8] = std::array::from_fn(|i| le_u16(b, 2 * i));
            for (k, &c) in children.iter().enumerate() {
                let c = c as usize;
                if c >= claimed.len() {
                    return Err(r.err(
                        at + 2 * k,
                        "children",
                        format!(
                            "child {k} is cube {c}, past the sector's {} cubes",
                            claimed.len()
                        ),
                    ));
                }
                if c == 0 || claimed[c] {
                    return Err(r.err(
                        at + 2 * k,
                        "children",
                        format!(
                            "child {k} is cube {c}, already in the octree (a cycle or a shared child)"
                        ),
                    ));
                }
                claimed[c] = true;
            }
            CubeKind::Parent(children)
        }
        2 => {
            let b: &[u8; 7] =
                r.fixed_ref("solid cube (material, lightmap, triangle index, faces)")?;
            let faces = b[6];
            if faces & 0xC0 != 0 {
                return Err(r.err(
                    at + 6,
                    "faces",
                    format!("{faces:#04X} (bits 7..6 must be 0)"),
                ));
            }
            let (material, lightmap, triangle) = (le_u16(b, 0), b[2], le_u24(b, 3));
            check_refs(
                r,
                at,
                &[material],
                lightmap,
                triangle,
                2 * faces.count_ones(),
                lim,
            )?;
            CubeKind::Solid {
                material,
                lightmap,
                triangle,
                faces,
            }
        }
        3 => {
            let b: &[u8; 20] = r.fixed_ref(
                "angled cube (material, lightmap, triangle index, triangle counts, fill, pitch, yaw)",
            )?;
            let bits = le_u16(b, 6);
            if bits & 0xC000 != 0 {
                return Err(r.err(
                    at + 6,
                    "triangle counts",
                    format!("{bits:#06X} (bits 15..14 must be 0)"),
                ));
            }
            let (material, lightmap, triangle) = (le_u16(b, 0), b[2], le_u24(b, 3));
            let counts: [u8; 7] = std::array::from_fn(|i| ((bits >> (12 - 2 * i)) & 3) as u8);
            let count = counts.iter().map(|&c| c as u32).sum();
            check_refs(r, at, &[material], lightmap, triangle, count, lim)?;
            CubeKind::Angled {
                material,
                lightmap,
                triangle,
                counts,
                fill: le_f32(&b[8..]),
                pitch: le_f32(&b[12..]),
                yaw: le_f32(&b[16..]),
            }
        }
        4 => {
            let b: &[u8; 22] = r.fixed_ref(
                "extsolid cube (face materials, lightmap, triangle index, triangle counts)",
            )?;
            let materials: [u16; 6] = std::array::from_fn(|i| le_u16(b, 2 * i));
            let (lightmap, triangle) = (b[12], le_u24(b, 13));
            let counts: [u8; 6] = std::array::from_fn(|i| b[16 + i]);
            let count = counts.iter().map(|&c| c as u32).sum();
            check_refs(r, at, &materials, lightmap, triangle, count, lim)?;
            CubeKind::ExtSolid {
                materials,
                lightmap,
                triangle,
                counts,
            }
        }
        _ => {
            let b: &[u8; 35] = r.fixed_ref(
                "extangled cube (face materials, lightmap, triangle index, triangle counts, fill, pitch, yaw)",
            )?;
            let materials: [u16; 6] = std::array::from_fn(|i| le_u16(b, 2 * i));
            let (lightmap, triangle) = (b[12], le_u24(b, 13));
            let counts: [u8; 7] = std::array::from_fn(|i| b[16 + i]);
            let count = counts.iter().map(|&c| c as u32).sum();
            check_refs(r, at, &materials, lightmap, triangle, count, lim)?;
            CubeKind::ExtAngled {
                materials,
                lightmap,
                triangle,
                counts,
                fill: le_f32(&b[23..]),
                pitch: le_f32(&b[27..]),
                yaw: le_f32(&b[31..]),
            }
        }
    };
    Ok(Cube {
        lighting,
        chunk,
        kind,
    })
}

/// A solid or angled cube's triangles, lightmap and materials in range
/// (checked on the values before the cube is built: a `CubeKind` passed by
/// reference is assembled in memory and read back, which stalls).
#[inline]
fn check_refs(
    r: &Reader,
    at: usize,
    materials: &[u16],
    lightmap: u8,
    first: u32,
    count: u32,
    lim: &CubeLimits,
) -> Result<()> {
    if first as u64 + count as u64 > lim.triangles {
        return Err(r.err(
            at,
            "triangle index",
            format!(
                "uses triangles {first}..{} but the sector has {}",
                first as u64 + count as u64,
                lim.triangles
            ),
        ));
    }
    if lightmap as usize >= lim.lightmaps {
        return Err(r.err(
            at,
            "lightmap",
            format!(
                "uses lightmap {lightmap} but the sector has {}",
                lim.lightmaps
            ),
        ));
    }
    if let Some(&m) = materials.iter().find(|&&m| m as usize >= lim.materials) {
        return Err(r.err(
            at,
            "material",
            format!("uses material {m} but the map has {}", lim.materials),
        ));
    }
    Ok(())
}

/// A chunk cube's data: props in range; visible sectors are checked once
/// every sector is decoded ([`validate_visibility`]).
fn chunk(r: &mut Reader, prop_count: usize) -> Result<Chunk> {
    let n = r.u16("chunk prop count")? as usize;
    let at = r.pos();
    let props = u16s(r, n, "chunk props")?;
    if let Some(i) = props.iter().position(|&p| p as usize >= prop_count) {
        return Err(r.err(
            at + 2 * i,
            &format!("chunk prop {i}"),
            format!("prop {} (the sector has {prop_count})", props[i]),
        ));
    }
    let n = r.u8("visible sector count")? as usize;
    let visible = r.array(n, 5, "visible sector", |r, i| {
        (|| {
            let sector: [u8; 3] = r.fixed("visible sector")?;
            let n = r.u16("visible cube count minus 1")? as usize + 1;
            let cubes = u16s(r, n, "visible cubes")?;
            Ok(VisibleSector { sector, cubes })
        })()
        .map_err(|e: DecodeError| at_index(e, format_args!("visible sector {i}")))
    })?;
    Ok(Chunk {
        props,
        visible,
        visibility_index: r.u32("visibility data index")?,
        visibility_count: r.u32("visibility cube count")?,
    })
}

/// Chunk cubes' visible sectors exist and their cube lists name cubes of
/// those sectors. `chunks[s]` lists sector `s`'s chunk cubes.
fn validate_visibility(map: &Pmf, chunks: &[Vec<u16>], blocks_at: &[usize]) -> Result<()> {
    for (si, (s, chunk_cubes)) in map.sectors.iter().zip(chunks).enumerate() {
        for &ci in chunk_cubes {
            let Some(chunk) = &s.cubes[ci as usize].chunk else {
                continue;
            };
            for v in &chunk.visible {
                let field = || {
                    format!(
                        "sector {si}: shared sector data (LZ4 block): cube {ci}: visible sector {:?}",
                        v.sector
                    )
                };
                let at = blocks_at[si] as u64;
                let Some(target) = map.sector_index(v.sector) else {
                    return Err(DecodeError::invalid(
                        at,
                        field(),
                        format!("outside the {:?} sector grid", map.sector_counts),
                    ));
                };
                let n = map.sectors[target].cubes.len();
                if let Some(&bad) = v.cubes.iter().find(|&&x| x as usize >= n) {
                    return Err(DecodeError::invalid(
                        at,
                        field(),
                        format!("cube {bad}, but that sector has {n} cubes"),
                    ));
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Server data: teams and the entity block.

struct RefCheck {
    material_count: usize,
    dynamic_lights: usize,
    team_count: usize,
}

fn server_data(
    r: &mut Reader,
    s: &Strings,
    material_count: usize,
    dynamic_light_count: u16,
) -> Result<(Vec<Team>, Entities)> {
    let n = r.u8("team count")? as usize;
    let teams = r.array(n, 16, "team", |r, i| {
        let at = r.pos();
        let off = r.u32(&format!("team {i} name"))?;
        Ok(Team {
            name: s.get(r, at, off, &format!("team {i} name"))?,
            color: r.vec3(&format!("team {i} color"))?,
        })
    })?;
    let check = RefCheck {
        material_count,
        dynamic_lights: dynamic_light_count as usize,
        team_count: teams.len(),
    };
    let n = r.u32("entity count")? as usize;
    let mut refs = Vec::new();
    let entities = r.array(n, 8, "entity", |r, i| {
        let at = r.pos();
        let off = r.u32(&format!("entity {i} name"))?;
        let name = s.get(r, at, off, &format!("entity {i} name"))?;
        r.set_ctx(format!("entity {i} {:?}", name.text));
        let at = r.pos();
        let kind = r.u8("type")?;
        let Some((_, fields)) = ENTITY_KINDS.get(kind as usize) else {
            return Err(r.err(at, "type", format!("{kind} (types are 0..21)")));
        };
        let difficulties = r.u8("difficulties")?;
        let gamemodes = r.u16("gamemodes")?;
        let values = read_fields(r, fields, s, &check, &mut refs)?;
        r.clear_ctx();
        Ok(Entity {
            name,
            kind,
            difficulties,
            gamemodes,
            fields: values,
        })
    })?;
    let actions = records(r, "action", &ACTION_KINDS, s, &check, &mut refs)?;
    let filters = records(r, "filter", &FILTER_KINDS, s, &check, &mut refs)?;
    let selectors = records(r, "selector", &SELECTOR_KINDS, s, &check, &mut refs)?;
    // Every byte-index reference lands on the start of a record.
    for (at, what, idx) in refs {
        let list: &[Record] = match what {
            Field::Filter => &filters,
            Field::Selector => &selectors,
            _ => &actions,
        };
        if list.binary_search_by_key(&idx, |rec| rec.at).is_err() {
            let name = match what {
                Field::Filter => "filter",
                Field::Selector => "selector",
                _ => "action",
            };
            return Err(r.err(
                at,
                name,
                format!("byte index {idx} is not the start of a {name} record"),
            ));
        }
    }
    Ok((
        teams,
        Entities {
            entities,
            actions,
            filters,
            selectors,
        },
    ))
}

/// `(offset of the reference, list, byte index)` of every reference to a
/// filter, selector or action, checked once all lists are read.
type Refs = Vec<(usize, Field, u32)>;

fn records(
    r: &mut Reader,
    what: &str,
    kinds: &[(&'static str, Fields)],
    s: &Strings,
    check: &RefCheck,
    refs: &mut Refs,
) -> Result<Vec<Record>> {
    let n = r.u32(&format!("{what} count"))? as usize;
    let start = r.pos();
    r.array(n, 1, what, |r, i| {
        let at = r.pos();
        r.set_ctx(format!("{what} {i}"));
        let kind = r.u8("type")?;
        let Some((_, fields)) = kinds.get(kind as usize) else {
            return Err(r.err(
                at,
                "type",
                format!("{kind} (types are 0..{})", kinds.len() - 1),
            ));
        };
        let fields = read_fields(r, fields, s, check, refs)?;
        r.clear_ctx();
        Ok(Record {
            at: (at - start) as u32,
            kind,
            fields,
        })
    })
}

fn read_fields(
    r: &mut Reader,
    fields: Fields,
    s: &Strings,
    check: &RefCheck,
    refs: &mut Refs,
) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(fields.len());
    for &(name, kind) in fields {
        let at = r.pos();
        let v = match kind {
            Field::Flags(names) => {
                let v = r.u8(name)?;
                let used = (1u16 << names.len()) - 1;
                if v as u16 & !used != 0 {
                    return Err(r.err(
                        at,
                        name,
                        format!("{v:#04X} (only the low {} bits are defined)", names.len()),
                    ));
                }
                Value::Flags(v)
            }
            Field::Enum(names) => {
                let v = r.u8(name)?;
                if v as usize >= names.len() {
                    return Err(r.err(
                        at,
                        name,
                        format!("{v} (values are 0..{})", names.len() - 1),
                    ));
                }
                Value::Enum(v)
            }
            Field::U16 => Value::U16(r.u16(name)?),
            Field::U32 => Value::U32(r.u32(name)?),
            Field::I16 => Value::I16(r.i16(name)?),
            Field::F32 => Value::F32(r.f32(name)?),
            Field::Vec2 => Value::Vec2(r.vec2(name)?),
            Field::Vec3 => Value::Vec3(r.vec3(name)?),
            Field::Vec4 => Value::Vec4([r.f32(name)?, r.f32(name)?, r.f32(name)?, r.f32(name)?]),
            Field::I8x2 => Value::I8x2([r.i8(name)?, r.i8(name)?]),
            Field::Str => {
                let off = r.u32(name)?;
                Value::Str(s.get(r, at, off, name)?)
            }
            Field::Signals => {
                let n = r.u16(name)? as usize;
                Value::Signals(r.array(n, 4, name, |r, i| {
                    let at = r.pos();
                    let off = r.u32(&format!("{name} {i}"))?;
                    s.get(r, at, off, &format!("{name} {i}"))
                })?)
            }
            Field::Filter | Field::Selector => {
                let v = r.u32(name)?;
                refs.push((at, kind, v));
                if kind == Field::Filter {
                    Value::Filter(v)
                } else {
                    Value::Selector(v)
                }
            }
            Field::Actions => {
                let n = r.u8(name)? as usize;
                Value::Actions(r.array(n, 4, name, |r, _| {
                    let at = r.pos();
                    let v = r.u32(name)?;
                    refs.push((at, Field::Actions, v));
                    Ok(v)
                })?)
            }
            Field::Team => {
                let v = r.u32(name)?;
                if v % 16 != 0 || (v / 16) as usize >= check.team_count {
                    return Err(r.err(
                        at,
                        name,
                        format!(
                            "byte index {v} is not the start of one of the {} team records (16 bytes each)",
                            check.team_count
                        ),
                    ));
                }
                Value::Team(v)
            }
            Field::Material => {
                let v = r.u16(name)?;
                if v as usize >= check.material_count {
                    return Err(r.err(
                        at,
                        name,
                        format!("{v} (the map has {} materials)", check.material_count),
                    ));
                }
                Value::Material(v)
            }
            Field::Light => {
                let v = r.u16(name)?;
                if v as usize >= check.dynamic_lights {
                    return Err(r.err(
                        at,
                        name,
                        format!("{v} (the map has {} dynamic lights)", check.dynamic_lights),
                    ));
                }
                Value::Light(v)
            }
        };
        out.push(v);
    }
    Ok(out)
}
