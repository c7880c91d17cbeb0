//! Entities: table-driven, one list of typed fields per entity kind.

use super::*;

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

pub(super) type Fields = &'static [(&'static str, Field)];

pub(super) const START_DISABLED: Field = Field::Flags(&["start disabled"]);
pub(super) const START_USABLE: Field = Field::Flags(&["start usable"]);
pub(super) const START_ENABLED: Field = Field::Flags(&["start enabled"]);

pub(super) const ZONE: Fields = &[
    ("flags", START_DISABLED),
    ("filter", Field::Filter),
    ("origin", Field::Vec3),
    ("radius", Field::Vec3),
    ("enable", Field::Str),
    ("disable", Field::Str),
];
pub(super) const PICKUP: Fields = &[
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

pub(super) const TEAM_ARG: Fields = &[("team", Field::Team)];
pub(super) const BOX_ARGS: Fields = &[("origin offset", Field::Vec3), ("radius", Field::Vec3)];
pub(super) const RADIUS_ARGS: Fields = &[("origin offset", Field::Vec3), ("radius", Field::F32)];

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

pub(super) const SEL: (&str, Field) = ("selector", Field::Selector);

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
