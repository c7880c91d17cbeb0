//! P3M (PlatinumSrc model) decoder, per `specs/p3m.txt` (version 0.0), the
//! 2024 layout of `specs/p3m-2024.txt` and the binding decisions in
//! `notes/platinumsrc.md`; see `docs/formats.md`.
//!
//! Both layouts say version 0, and every P3M written so far (the engine's
//! Blender exporter) is in the 2024 one, so the layout is found by structure:
//! the file is parsed as each, and exactly one must reach a string table in
//! which every string offset resolves. A file that fits neither or both is
//! refused, naming both attempts.
//!
//! Strings are u16 offsets into a string table that is everything after the
//! last section, so each layout is parsed twice: the first pass finds where
//! the table starts, the second resolves every string against it.

use super::{DecodeError, Reader, Result, ptf};

pub const MAGIC: &[u8; 3] = b"P3M";
pub const NONE_INDEX: u8 = 0xFF;

/// Which of the two documented layouts a file was read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P3mLayout {
    /// `specs/p3m.txt` (late 2025): UV and normal flags, material overrides,
    /// animated materials, user-defined fields.
    Current,
    /// `specs/p3m-2024.txt`: what the engine's loader reads and its Blender
    /// exporter writes: interleaved position + UV, 10-byte materials, no
    /// material overrides and no user-defined fields.
    Y2024,
}

impl P3mLayout {
    /// `"current"` or `"2024"`, as `info --json` reports it.
    pub fn name(self) -> &'static str {
        match self {
            P3mLayout::Current => "current",
            P3mLayout::Y2024 => "2024",
        }
    }

    /// The document that describes the layout.
    pub fn spec(self) -> &'static str {
        match self {
            P3mLayout::Current => "specs/p3m.txt",
            P3mLayout::Y2024 => "specs/p3m-2024.txt",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct P3m {
    pub layout: P3mLayout,
    pub version: u8,
    pub flags: u8,
    pub parts: Vec<Part>,
    pub materials: Vec<Material>,
    pub textures: Vec<Texture>,
    pub bones: Vec<Bone>,
    pub animations: Vec<Animation>,
    pub actions: Vec<Action>,
    pub user_fields: Vec<UserField>,
    /// Byte offset and length of the string table.
    pub string_table: (usize, usize),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub name: String,
    /// Default visibility from the part visibility bitmask.
    pub visible: bool,
    pub material: u8,
    pub material_overrides: Vec<MaterialOverride>,
    pub positions: Vec<[f32; 3]>,
    pub uvs: Option<Vec<[f32; 2]>>,
    pub normals: Option<Vec<[f32; 3]>>,
    pub indices: Vec<u16>,
    pub weight_groups: Vec<WeightGroup>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MaterialOverride {
    pub animation: String,
    pub priority: u8,
    pub material: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WeightGroup {
    pub bone: String,
    pub ranges: Vec<WeightRange>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WeightRange {
    pub skip: u16,
    /// Raw bytes: weight = (b + 1) / 256.
    pub weights: Vec<u8>,
}

impl WeightGroup {
    /// (vertex index, stored byte) for every stored weight: the weight is
    /// [`decode_weight`] of the byte.
    pub fn bytes(&self) -> impl Iterator<Item = (usize, u8)> + '_ {
        let mut next = 0usize;
        self.ranges.iter().flat_map(move |range| {
            let start = next + range.skip as usize;
            next = start + range.weights.len();
            range
                .weights
                .iter()
                .enumerate()
                .map(move |(i, &b)| (start + i, b))
        })
    }

    /// (vertex index, weight in (0, 1]) for every stored weight.
    pub fn iter(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
        self.bytes().map(|(v, b)| (v, decode_weight(b)))
    }
}

pub fn decode_weight(b: u8) -> f32 {
    (b as f32 + 1.0) / 256.0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderMode {
    Normal = 0,
    Add = 1,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaterialData {
    pub color: [u8; 4],
    pub emission: [u8; 3],
    pub shading: u8,
    /// `None` for 0xFF.
    pub texture: Option<u8>,
    pub matcap: Option<u8>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub render_mode: RenderMode,
    /// Plain values, or the initial values of an animated material.
    pub data: MaterialData,
    pub animation: Option<MaterialAnimation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatLoop {
    None = 0,
    Loop = 1,
    Cont = 2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interp {
    None = 0,
    Linear = 1,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorInterp {
    None = 0,
    LinearRgb = 1,
    LinearHsv = 2,
    LinearOklch = 3,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key<T, I> {
    pub skip: u8,
    pub interp: I,
    pub value: T,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MaterialAnimation {
    pub us_per_frame: u32,
    pub preserve_texture_scroll: bool,
    pub loop_mode: MatLoop,
    pub texture_scroll: [f32; 2],
    pub matcap_scroll: [f32; 2],
    pub last_frame: u8,
    pub color: Vec<Key<[u8; 4], ColorInterp>>,
    pub emission: Vec<Key<[u8; 3], ColorInterp>>,
    pub shading: Vec<Key<u8, Interp>>,
    /// Texture and matcap keys switch without interpolation.
    pub texture: Vec<Key<u8, ()>>,
    pub matcap: Vec<Key<u8, ()>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Texture {
    /// A whole PTF file; `offset` is where it starts in the P3M. A PTF that
    /// fails to decode is kept as its error: the model still opens.
    Embedded {
        offset: usize,
        size: u32,
        ptf: std::result::Result<ptf::Ptf, DecodeError>,
    },
    External {
        path: String,
        /// Written with the EMBEDDED type byte (a known exporter bug) and
        /// read as external because no PTF follows.
        written_as_embedded: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    pub name: String,
    pub head: [f32; 3],
    pub tail: [f32; 3],
    pub child_count: u8,
    /// Rebuilt from the depth-first order and child counts.
    pub parent: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    pub name: String,
    pub actions: Vec<AnimationAction>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnimationAction {
    pub action: u8,
    pub speed: f32,
    pub start: u16,
    pub end: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartListMode {
    DefaultWhite = 0,
    DefaultBlack = 1,
    White = 2,
    Black = 3,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub us_per_frame: u32,
    pub part_list_mode: PartListMode,
    pub parts: Vec<String>,
    pub bones: Vec<ActionBone>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ActionBone {
    pub bone: String,
    pub translation: Vec<Key<[f32; 3], Interp>>,
    /// Blender ZXY Euler radians (`R = Ry · Rx · Rz`), bone-local.
    pub rotation: Vec<Key<[f32; 3], Interp>>,
    pub scale: Vec<Key<[f32; 3], Interp>>,
}

impl ActionBone {
    /// Last keyframe frame over all tracks.
    pub fn last_frame(&self) -> u32 {
        [&self.translation, &self.rotation, &self.scale]
            .iter()
            .map(|t| key_frames(t.iter().map(|k| k.skip)).last().unwrap_or(0))
            .max()
            .unwrap_or(0)
    }
}

/// Frame numbers of keyframes from their skips: the first is its skip, each
/// next is `previous + skip + 1`.
pub fn key_frames(skips: impl Iterator<Item = u8>) -> impl Iterator<Item = u32> {
    let mut prev: Option<u32> = None;
    skips.map(move |s| {
        let f = match prev {
            None => s as u32,
            Some(p) => p + s as u32 + 1,
        };
        prev = Some(f);
        f
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UdfType {
    Str = 0,
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
}

impl UdfType {
    const ALL: [UdfType; 12] = [
        UdfType::Str,
        UdfType::Bool,
        UdfType::I8,
        UdfType::I16,
        UdfType::I32,
        UdfType::I64,
        UdfType::U8,
        UdfType::U16,
        UdfType::U32,
        UdfType::U64,
        UdfType::F32,
        UdfType::F64,
    ];

    pub fn name(self) -> &'static str {
        [
            "str", "bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64",
        ][self as usize]
    }

    /// Inline size of a scalar (a string is its u16 offset).
    pub fn size(self) -> usize {
        match self {
            UdfType::Str | UdfType::I16 | UdfType::U16 => 2,
            UdfType::Bool | UdfType::I8 | UdfType::U8 => 1,
            UdfType::I32 | UdfType::U32 | UdfType::F32 => 4,
            UdfType::I64 | UdfType::U64 | UdfType::F64 => 8,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum UdfScalar {
    Str(String),
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl std::fmt::Display for UdfScalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UdfScalar::Str(s) => write!(f, "{s:?}"),
            UdfScalar::Bool(v) => write!(f, "{v}"),
            UdfScalar::I8(v) => write!(f, "{v}"),
            UdfScalar::I16(v) => write!(f, "{v}"),
            UdfScalar::I32(v) => write!(f, "{v}"),
            UdfScalar::I64(v) => write!(f, "{v}"),
            UdfScalar::U8(v) => write!(f, "{v}"),
            UdfScalar::U16(v) => write!(f, "{v}"),
            UdfScalar::U32(v) => write!(f, "{v}"),
            UdfScalar::U64(v) => write!(f, "{v}"),
            UdfScalar::F32(v) => write!(f, "{v}"),
            UdfScalar::F64(v) => write!(f, "{v}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum UdfValue {
    Empty,
    Scalar(UdfScalar),
    Array(Vec<UdfScalar>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct UserField {
    pub name: String,
    pub ty: UdfType,
    /// An empty field still says whether it is an array.
    pub is_array: bool,
    pub value: UdfValue,
}

impl UserField {
    pub fn value_string(&self) -> String {
        match &self.value {
            UdfValue::Empty => "(empty)".into(),
            UdfValue::Scalar(s) => s.to_string(),
            UdfValue::Array(a) => {
                let items: Vec<String> = a.iter().map(|s| s.to_string()).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }
}

impl P3m {
    pub fn triangle_count(&self) -> usize {
        self.parts.iter().map(|p| p.indices.len() / 3).sum()
    }

    pub fn vertex_count(&self) -> usize {
        self.parts.iter().map(|p| p.positions.len()).sum()
    }
}

/// Decodes a whole P3M file in whichever layout it is written, its
/// embedded textures within [`ptf::DEFAULT_TEXEL_BUDGET`].
pub fn decode(data: &[u8]) -> Result<P3m> {
    decode_within(data, ptf::DEFAULT_TEXEL_BUDGET)
}

/// As [`decode`], with `texel_budget` bytes of decoded texels for all the
/// embedded textures together: each takes what it needs from what is left,
/// and one that needs more is decoded smaller (see [`ptf::decode_within`]).
pub fn decode_within(data: &[u8], texel_budget: usize) -> Result<P3m> {
    decode_with(data, ptf::Texels::Within(texel_budget))
}

/// As [`decode`], the embedded textures decoded as `texels` says (within a
/// budget shared by all of them, or their headers only).
pub fn decode_with(data: &[u8], texels: ptf::Texels) -> Result<P3m> {
    decode_capped(data, texels, usize::MAX)
}

/// As [`decode_with`], each embedded texture also taking at most `each`
/// bytes of texels (a thumbnail needs none larger than it shows).
pub fn decode_capped(data: &[u8], texels: ptf::Texels, each: usize) -> Result<P3m> {
    let current = decode_as_within(data, P3mLayout::Current, texels, each);
    let y2024 = decode_as_within(data, P3mLayout::Y2024, texels, each);
    match (current, y2024) {
        (Ok(m), Err(_)) | (Err(_), Ok(m)) => Ok(m),
        // Header errors are the same for both: say them once.
        (Err(a), Err(b)) if a == b => Err(a),
        (Err(a), Err(b)) => {
            // The attempt that read further is named first: it is the
            // likelier layout, and its error the likelier fault.
            let (mut first, mut second) = ((P3mLayout::Current, a), (P3mLayout::Y2024, b));
            if second.1.offset > first.1.offset {
                std::mem::swap(&mut first, &mut second);
            }
            Err(DecodeError::invalid(
                first.1.offset,
                "layout",
                format!(
                    "the file fits neither P3M layout: read as the {} layout ({}): {}; \
                     read as the {} layout ({}): {}",
                    first.0.name(),
                    first.0.spec(),
                    first.1,
                    second.0.name(),
                    second.0.spec(),
                    second.1
                ),
            ))
        }
        (Ok(_), Ok(_)) => Err(DecodeError::invalid(
            0,
            "layout",
            format!(
                "the file fits both P3M layouts ({} and {}) with every string resolving; \
                 refusing to guess which one wrote it",
                P3mLayout::Current.spec(),
                P3mLayout::Y2024.spec()
            ),
        )),
    }
}

/// Decodes `data` as one layout only.
pub fn decode_as(data: &[u8], layout: P3mLayout) -> Result<P3m> {
    decode_as_within(
        data,
        layout,
        ptf::Texels::Within(ptf::DEFAULT_TEXEL_BUDGET),
        usize::MAX,
    )
}

fn decode_as_within(
    data: &[u8],
    layout: P3mLayout,
    texels: ptf::Texels,
    each: usize,
) -> Result<P3m> {
    // Textures are decoded in the second pass only, once strings resolve.
    let first = Parser {
        r: Reader::new(data),
        strings: None,
        layout,
        texels: ptf::Texels::HeadersOnly,
        each,
    }
    .parse()?;
    let (start, _) = first.string_table;
    let table = data.get(start..).unwrap_or_default();
    Parser {
        r: Reader::new(data),
        strings: Some(StringTable {
            data: table,
            base: start,
        }),
        layout,
        texels,
        each,
    }
    .parse()
}

struct StringTable<'a> {
    data: &'a [u8],
    base: usize,
}

impl StringTable<'_> {
    fn get(&self, offset: u16) -> std::result::Result<&str, String> {
        let off = offset as usize;
        if off >= self.data.len() {
            return Err(format!(
                "string offset {off} is outside the string table ({} bytes at {:#X})",
                self.data.len(),
                self.base
            ));
        }
        let tail = self.data.get(off..).unwrap_or_default();
        let end = tail.iter().position(|&b| b == 0).ok_or_else(|| {
            format!("string at table offset {off} has no NUL before the end of the file")
        })?;
        std::str::from_utf8(&tail[..end])
            .map_err(|e| format!("string at table offset {off} is not UTF-8: {e}"))
    }
}

/// A part's positions, and its UVs and normals where it has them.
type PartVertices = (Vec<[f32; 3]>, Option<Vec<[f32; 2]>>, Option<Vec<[f32; 3]>>);

/// A track's keyframes: `skips` and `interps` (the same count), and a value
/// each read by `value`, in order.
fn keys<T, I>(
    r: &mut Reader,
    skips: &[u8],
    interps: impl IntoIterator<Item = I>,
    mut value: impl FnMut(&mut Reader) -> Result<T>,
) -> Result<Vec<Key<T, I>>> {
    skips
        .iter()
        .zip(interps)
        .map(|(&skip, interp)| {
            Ok(Key {
                skip,
                interp,
                value: value(r)?,
            })
        })
        .collect()
}

struct Parser<'a> {
    r: Reader<'a>,
    /// `None` during the first pass: strings read as empty.
    strings: Option<StringTable<'a>>,
    layout: P3mLayout,
    /// What the embedded textures still left to decode may take.
    texels: ptf::Texels,
    /// The most one of them may take.
    each: usize,
}

impl<'a> Parser<'a> {
    fn string(&mut self, field: &str) -> Result<String> {
        let at = self.r.pos();
        let off = self.r.u16(field)?;
        match &self.strings {
            None => Ok(String::new()),
            Some(t) => t
                .get(off)
                .map(str::to_owned)
                .map_err(|m| self.r.err(at, field, m)),
        }
    }

    fn enum_u8<T: Copy>(&mut self, field: &str, values: &[T]) -> Result<T> {
        let at = self.r.pos();
        let v = self.r.u8(field)?;
        values.get(v as usize).copied().ok_or_else(|| {
            self.r.err(
                at,
                field,
                format!("unknown value {v} (0..{} allowed)", values.len()),
            )
        })
    }

    fn parse(mut self) -> Result<P3m> {
        let r = &mut self.r;
        r.magic(MAGIC, "magic")?;
        let version = r.u8("major version")?;
        if version != 0 {
            return Err(r.err(
                3,
                "major version",
                format!("version {version} is not supported (0 is)"),
            ));
        }
        let flags = r.u8("header flags")?;

        let part_count = r.u8("part count")? as usize;
        let mask = r.bytes(part_count.div_ceil(8), "part visibility bitmask")?;
        let parts = self.records(part_count, "part", |p, i| {
            p.part(mask[i / 8] & (1 << (i % 8)) != 0)
        })?;
        let n = self.r.u8("material count")? as usize;
        let materials = self.records(n, "material", |p, _| p.material())?;
        let n = self.r.u8("texture count")? as usize;
        let textures = self.records(n, "texture", |p, _| p.texture())?;
        let n = self.r.u8("bone count")? as usize;
        let bones_at = self.r.pos();
        let mut bones = self.records(n, "bone", |p, _| p.bone())?;
        link_bones(&mut bones).map_err(|m| self.r.err(bones_at, "bones", m))?;
        let n = self.r.u8("animation count")? as usize;
        let animations = self.records(n, "animation", |p, _| p.animation())?;
        let n = self.r.u8("action count")? as usize;
        let actions = self.records(n, "action", |p, _| p.action())?;
        let user_fields = if self.layout == P3mLayout::Current {
            let n = self.r.u8("user-defined field count")? as usize;
            self.records(n, "user-defined field", |p, _| p.user_field())?
        } else {
            Vec::new()
        };
        let string_table = self.string_table()?;

        let model = P3m {
            layout: self.layout,
            version,
            flags,
            parts,
            materials,
            textures,
            bones,
            animations,
            actions,
            user_fields,
            string_table,
        };
        if self.strings.is_some() {
            validate(&model, string_table.0)
                .map_err(|(at, field, msg)| DecodeError::invalid(at as u64, field, msg))?;
        }
        Ok(model)
    }

    /// `count` records, each read by `read` (given its number), with
    /// "`what` i" naming it in errors.
    fn records<T>(
        &mut self,
        count: usize,
        what: &str,
        mut read: impl FnMut(&mut Self, usize) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut list = Vec::with_capacity(count);
        for i in 0..count {
            self.r.set_ctx(format!("{what} {i}"));
            list.push(read(self, i)?);
        }
        self.r.clear_ctx();
        Ok(list)
    }

    /// A bone: its name, head and tail, and how many children follow it
    /// (its parent is worked out from those counts, by `link_bones`).
    fn bone(&mut self) -> Result<Bone> {
        Ok(Bone {
            name: self.string("name")?,
            head: self.r.vec3("head position")?,
            tail: self.r.vec3("tail position")?,
            child_count: self.r.u8("child count")?,
            parent: None,
        })
    }

    /// An animation: its name and the actions it plays, with their speeds
    /// and frame ranges.
    fn animation(&mut self) -> Result<Animation> {
        let name = self.string("name")?;
        let n = self.r.u8("action count")? as usize;
        let actions = self.r.array(n, 9, "action references", |r, _| {
            Ok(AnimationAction {
                action: r.u8("action index")?,
                speed: r.f32("speed")?,
                start: r.u16("start frame")?,
                end: r.u16("end frame")?,
            })
        })?;
        Ok(Animation { name, actions })
    }

    /// The string table: where it starts and its length, the rest of the
    /// file. `char[1...]`: at least one byte; in the 2024 layout it holds
    /// only NUL-terminated strings (the exporter writes a lone NUL when it
    /// has none, and the engine's loader checks the last byte).
    fn string_table(&self) -> Result<(usize, usize)> {
        let string_table = (self.r.pos(), self.r.remaining());
        if string_table.1 == 0 {
            return Err(DecodeError {
                offset: string_table.0 as u64,
                field: "string table".into(),
                kind: super::ErrorKind::Truncated {
                    needed: 1,
                    file_len: self.r.len() as u64,
                },
            });
        }
        if self.layout == P3mLayout::Y2024 && self.r.peek_rest().last() != Some(&0) {
            return Err(self.r.err(
                self.r.len() - 1,
                "string table",
                "does not end with a NUL byte",
            ));
        }
        Ok(string_table)
    }

    fn part(&mut self, visible: bool) -> Result<Part> {
        let (has_uvs, has_normals) = self.part_flags()?;
        let name = self.string("name")?;
        if self.strings.is_some() {
            // Second pass: names are known, so errors name the part too.
            let ctx = format!("{} {:?}", self.r.name(""), name);
            self.r.set_ctx(ctx);
        }
        let material = self.r.u8("material index")?;
        let material_overrides = if self.layout == P3mLayout::Current {
            self.material_overrides()?
        } else {
            Vec::new()
        };
        let (positions, uvs, normals) = self.part_vertices(has_uvs, has_normals)?;
        let indices = self.triangle_indices(positions.len())?;
        let gcount = self.r.u8("weight group count")? as usize;
        self.r.check_count(gcount, 6, "weight groups")?;
        let mut weight_groups = Vec::with_capacity(gcount);
        for g in 0..gcount {
            weight_groups.push(self.weight_group(g, positions.len())?);
        }
        Ok(Part {
            name,
            visible,
            material,
            material_overrides,
            positions,
            uvs,
            normals,
            indices,
            weight_groups,
        })
    }

    /// A part's flags byte: whether it has UVs and normals. Current:
    /// bit 1 normals, bit 0 UVs. 2024: bit 0 normals, UVs always. The
    /// other bits are reserved.
    fn part_flags(&mut self) -> Result<(bool, bool)> {
        let at = self.r.pos();
        let flags = self.r.u8("flags")?;
        let (reserved, has_uvs, has_normals) = match self.layout {
            P3mLayout::Current => (flags & 0xFC, flags & 1 != 0, flags & 2 != 0),
            P3mLayout::Y2024 => (flags & 0xFE, true, flags & 1 != 0),
        };
        if reserved != 0 {
            return Err(self
                .r
                .err(at, "flags", format!("reserved bits set in {flags:#04X}")));
        }
        Ok((has_uvs, has_normals))
    }

    /// A part's material overrides (the current layout's): for each, the
    /// animation it applies during, its priority and the material.
    fn material_overrides(&mut self) -> Result<Vec<MaterialOverride>> {
        let n = self.r.u8("material override count")? as usize;
        self.r.check_count(n, 4, "material overrides")?;
        let mut material_overrides = Vec::with_capacity(n);
        for _ in 0..n {
            material_overrides.push(MaterialOverride {
                animation: self.string("material override animation name")?,
                priority: self.r.u8("material override priority")?,
                material: self.r.u8("material override material index")?,
            });
        }
        Ok(material_overrides)
    }

    /// A part's vertices: positions, and UVs and normals where its flags
    /// say. The current layout stores each attribute's array in turn, the
    /// 2024 layout a position and a UV a vertex, then the normals.
    fn part_vertices(&mut self, has_uvs: bool, has_normals: bool) -> Result<PartVertices> {
        let layout = self.layout;
        let r = &mut self.r;
        let vcount = r.u16("vertex count")? as usize;
        let per_vertex = 12 + if has_uvs { 8 } else { 0 } + if has_normals { 12 } else { 0 };
        r.check_count(vcount, per_vertex, "vertices")?;
        let (positions, uvs) = match layout {
            P3mLayout::Current => {
                let positions = r.f32_groups::<3>(vcount, "positions")?;
                let uvs = if has_uvs {
                    Some(r.f32_groups::<2>(vcount, "UVs")?)
                } else {
                    None
                };
                (positions, uvs)
            }
            P3mLayout::Y2024 => {
                // `float[3]` position then `float[2]` UV, vertex by vertex.
                let mut positions = Vec::with_capacity(vcount);
                let mut uvs = Vec::with_capacity(vcount);
                for _ in 0..vcount {
                    positions.push(r.vec3("vertex position")?);
                    uvs.push(r.vec2("vertex UV")?);
                }
                (positions, Some(uvs))
            }
        };
        let normals = if has_normals {
            Some(r.f32_groups::<3>(vcount, "normals")?)
        } else {
            None
        };
        Ok((positions, uvs, normals))
    }

    /// A part's triangles: a count that is a multiple of 3, then that many
    /// indices, each below `vcount`.
    fn triangle_indices(&mut self, vcount: usize) -> Result<Vec<u16>> {
        let r = &mut self.r;
        let icount_at = r.pos();
        let icount = r.u16("index count")? as usize;
        if !icount.is_multiple_of(3) {
            return Err(r.err(
                icount_at,
                "index count",
                format!("{icount} is not a multiple of 3 (triangles)"),
            ));
        }
        let indices_at = r.pos();
        let indices = r.u16s(icount, "indices")?;
        if let Some((i, &bad)) = indices
            .iter()
            .enumerate()
            .find(|&(_, &ix)| ix as usize >= vcount)
        {
            return Err(r.err(
                indices_at + 2 * i,
                &format!("index {i}"),
                format!("{bad} is out of range ({vcount} vertices)"),
            ));
        }
        Ok(indices)
    }

    /// Weight group `g`: its bone's name, then ranges (vertices to skip, a
    /// count, that many weights) up to one of count 0, none reaching past
    /// the part's `vcount` vertices.
    fn weight_group(&mut self, g: usize, vcount: usize) -> Result<WeightGroup> {
        let bone = self.string(&format!("weight group {g}: bone name"))?;
        let mut ranges = Vec::new();
        let mut covered = 0usize;
        loop {
            let at = self.r.pos();
            let skip = self.r.u16(&format!("weight group {g}: vertices to skip"))?;
            let count = self.r.u16(&format!("weight group {g}: weight count"))? as usize;
            if count == 0 {
                break;
            }
            covered += skip as usize + count;
            if covered > vcount {
                return Err(self.r.err(
                    at,
                    &format!("weight group {g}: weight range"),
                    format!("reaches vertex {} of {vcount}", covered - 1),
                ));
            }
            let weights = self
                .r
                .bytes(count, &format!("weight group {g}: weights"))?
                .to_vec();
            ranges.push(WeightRange { skip, weights });
        }
        Ok(WeightGroup { bone, ranges })
    }

    fn material_data(&mut self) -> Result<MaterialData> {
        let r = &mut self.r;
        let c = r.bytes(4, "color")?;
        let e = r.bytes(3, "emission")?;
        let shading = r.u8("shading")?;
        let tex = r.u8("texture index")?;
        let mat = r.u8("matcap texture index")?;
        let opt = |v: u8| (v != NONE_INDEX).then_some(v);
        Ok(MaterialData {
            color: [c[0], c[1], c[2], c[3]],
            emission: [e[0], e[1], e[2]],
            shading,
            texture: opt(tex),
            matcap: opt(mat),
        })
    }

    /// The 2024 layout's 10-byte material: render mode, texture, RGBA,
    /// RGB emission, shading.
    fn material_2024(&mut self) -> Result<Material> {
        const MODES: [RenderMode; 2] = [RenderMode::Normal, RenderMode::Add];
        let render_mode = self.enum_u8("render mode", &MODES)?;
        let r = &mut self.r;
        let tex = r.u8("texture index")?;
        let c = r.bytes(4, "color")?;
        let e = r.bytes(3, "emission")?;
        let shading = r.u8("shading")?;
        Ok(Material {
            render_mode,
            data: MaterialData {
                color: [c[0], c[1], c[2], c[3]],
                emission: [e[0], e[1], e[2]],
                shading,
                texture: (tex != NONE_INDEX).then_some(tex),
                matcap: None,
            },
            animation: None,
        })
    }

    fn material(&mut self) -> Result<Material> {
        if self.layout == P3mLayout::Y2024 {
            return self.material_2024();
        }
        let (render_mode, animated) = self.material_flags()?;
        if !animated {
            let data = self.material_data()?;
            return Ok(Material {
                render_mode,
                data,
                animation: None,
            });
        }
        let us_per_frame = self.r.u32("microseconds per frame")?;
        let (preserve_texture_scroll, loop_mode) = self.loop_flags()?;
        let data = self.material_data()?;
        let animation =
            self.material_animation(us_per_frame, preserve_texture_scroll, loop_mode)?;
        Ok(Material {
            render_mode,
            data,
            animation: Some(animation),
        })
    }

    /// A material's flags byte: its render mode, and whether it is
    /// animated (the top three bits reserved).
    fn material_flags(&mut self) -> Result<(RenderMode, bool)> {
        let at = self.r.pos();
        let flags = self.r.u8("flags")?;
        if flags & 0xE0 != 0 {
            return Err(self
                .r
                .err(at, "flags", format!("reserved bits set in {flags:#04X}")));
        }
        let render_mode = match flags & 0x0F {
            0 => RenderMode::Normal,
            1 => RenderMode::Add,
            m => {
                return Err(self.r.err(
                    at,
                    "render mode",
                    format!("unknown render mode {m} (0 NORMAL, 1 ADD)"),
                ));
            }
        };
        Ok((render_mode, flags & 0x10 != 0))
    }

    /// An animated material's loop flags byte: whether the texture scroll
    /// carries over a loop, and the loop mode (the top three bits reserved).
    fn loop_flags(&mut self) -> Result<(bool, MatLoop)> {
        let at = self.r.pos();
        let lf = self.r.u8("loop flags")?;
        if lf & 0xE0 != 0 {
            return Err(self
                .r
                .err(at, "loop flags", format!("reserved bits set in {lf:#04X}")));
        }
        let loop_mode = match lf & 0x0F {
            0 => MatLoop::None,
            1 => MatLoop::Loop,
            2 => MatLoop::Cont,
            m => {
                return Err(self.r.err(
                    at,
                    "loop mode",
                    format!("unknown loop mode {m} (0 NONE, 1 LOOP, 2 CONT)"),
                ));
            }
        };
        Ok((lf & 0x10 != 0, loop_mode))
    }

    /// What follows an animated material's data: its scrolls, last frame
    /// and keyframes (five counts, then every track's frame skips, then the
    /// colour, emission and shading tracks' interpolation modes, then every
    /// track's values).
    fn material_animation(
        &mut self,
        us_per_frame: u32,
        preserve_texture_scroll: bool,
        loop_mode: MatLoop,
    ) -> Result<MaterialAnimation> {
        let r = &mut self.r;
        let texture_scroll = r.vec2("texture scroll")?;
        let matcap_scroll = r.vec2("matcap scroll")?;
        let last_frame = r.u8("last frame")?;
        let nc = r.u8("color keyframe count")? as usize;
        let ne = r.u8("emission keyframe count")? as usize;
        let ns = r.u8("shading keyframe count")? as usize;
        let nt = r.u8("texture keyframe count")? as usize;
        let nm = r.u8("matcap keyframe count")? as usize;
        r.check_count(nc * 6 + ne * 5 + ns * 3 + nt * 2 + nm * 2, 1, "keyframes")?;
        let sc = r.bytes(nc, "color frame skips")?;
        let se = r.bytes(ne, "emission frame skips")?;
        let ss = r.bytes(ns, "shading frame skips")?;
        let st = r.bytes(nt, "texture frame skips")?;
        let sm = r.bytes(nm, "matcap frame skips")?;
        const CI: [ColorInterp; 4] = [
            ColorInterp::None,
            ColorInterp::LinearRgb,
            ColorInterp::LinearHsv,
            ColorInterp::LinearOklch,
        ];
        const I: [Interp; 2] = [Interp::None, Interp::Linear];
        let ic = self.enum_list("color interpolation mode", &CI, nc)?;
        let ie = self.enum_list("emission interpolation mode", &CI, ne)?;
        let is = self.enum_list("shading interpolation mode", &I, ns)?;
        let r = &mut self.r;
        Ok(MaterialAnimation {
            us_per_frame,
            preserve_texture_scroll,
            loop_mode,
            texture_scroll,
            matcap_scroll,
            last_frame,
            color: keys(r, sc, ic, |r| {
                let b = r.bytes(4, "color keyframe data")?;
                Ok([b[0], b[1], b[2], b[3]])
            })?,
            emission: keys(r, se, ie, |r| {
                let b = r.bytes(3, "emission keyframe data")?;
                Ok([b[0], b[1], b[2]])
            })?,
            shading: keys(r, ss, is, |r| r.u8("shading keyframe data"))?,
            texture: keys(r, st, std::iter::repeat(()), |r| {
                r.u8("texture keyframe data")
            })?,
            matcap: keys(r, sm, std::iter::repeat(()), |r| {
                r.u8("matcap keyframe data")
            })?,
        })
    }

    /// `n` values of an enumeration, one byte each.
    fn enum_list<T: Copy>(&mut self, field: &str, values: &[T], n: usize) -> Result<Vec<T>> {
        let mut list = Vec::with_capacity(n);
        for _ in 0..n {
            list.push(self.enum_u8(field, values)?);
        }
        Ok(list)
    }

    fn texture(&mut self) -> Result<Texture> {
        let at = self.r.pos();
        match self.r.u8("type")? {
            // The exporter's known bug: an external texture written with the
            // EMBEDDED type byte, then its u16 path. A real embedded texture
            // is a u32 size and a whole PTF, so "PTF" follows 4 bytes on.
            0 if self.layout == P3mLayout::Y2024
                && self.r.peek_rest().get(4..7) != Some(&b"PTF"[..]) =>
            {
                Ok(Texture::External {
                    path: self.string("resource path (written with the EMBEDDED type)")?,
                    written_as_embedded: true,
                })
            }
            0 => {
                let size = self.r.u32("embedded data size")?;
                let offset = self.r.pos();
                let bytes = self.r.bytes(size as usize, "embedded PTF data")?;
                let ptf = if self.strings.is_none() {
                    // First pass: the layout is not settled; decode nothing.
                    Err(DecodeError::invalid(
                        offset as u64,
                        "embedded PTF",
                        "not decoded yet",
                    ))
                } else {
                    let mode = match self.texels {
                        ptf::Texels::Within(left) => ptf::Texels::Within(left.min(self.each)),
                        ptf::Texels::HeadersOnly => ptf::Texels::HeadersOnly,
                    };
                    ptf::decode_with(bytes, mode)
                        .map_err(|e| e.nested(offset as u64, &self.r.name("embedded PTF")))
                };
                if let Ok(p) = &ptf {
                    self.texels = self.texels.spent(p.pixels.len());
                }
                Ok(Texture::Embedded { offset, size, ptf })
            }
            1 => Ok(Texture::External {
                path: self.string("resource path")?,
                written_as_embedded: false,
            }),
            t => Err(self.r.err(
                at,
                "type",
                format!("unknown texture type {t} (0 EMBEDDED, 1 EXTERNAL)"),
            )),
        }
    }

    fn action(&mut self) -> Result<Action> {
        let us_per_frame = self.r.u32("microseconds per frame")?;
        const M: [PartListMode; 4] = [
            PartListMode::DefaultWhite,
            PartListMode::DefaultBlack,
            PartListMode::White,
            PartListMode::Black,
        ];
        let part_list_mode = self.enum_u8("part list mode", &M)?;
        let n = self.r.u8("part count")? as usize;
        self.r.check_count(n, 2, "part list")?;
        let mut parts = Vec::with_capacity(n);
        for _ in 0..n {
            parts.push(self.string("part name")?);
        }
        let nb = self.r.u8("bone count")? as usize;
        self.r.check_count(nb, 5, "action data")?;
        let mut bones = Vec::with_capacity(nb);
        for b in 0..nb {
            let bone = self.string(&format!("action data {b}: bone name"))?;
            let r = &mut self.r;
            let nt = r.u8("translation keyframe count")? as usize;
            let nr = r.u8("rotation keyframe count")? as usize;
            let ns = r.u8("scale keyframe count")? as usize;
            r.check_count((nt + nr + ns) * 14, 1, "keyframes")?;
            let skips = r.bytes(nt + nr + ns, "frame skips")?;
            let mut modes = Vec::with_capacity(nt + nr + ns);
            for _ in 0..nt + nr + ns {
                modes.push(self.enum_u8("interpolation mode", &[Interp::None, Interp::Linear])?);
            }
            let r = &mut self.r;
            let mut track =
                |start: usize, n: usize, field: &str| -> Result<Vec<Key<[f32; 3], Interp>>> {
                    (start..start + n)
                        .map(|i| {
                            Ok(Key {
                                skip: skips[i],
                                interp: modes[i],
                                value: r.vec3(field)?,
                            })
                        })
                        .collect()
                };
            let translation = track(0, nt, "translation data")?;
            let rotation = track(nt, nr, "rotation data")?;
            let scale = track(nt + nr, ns, "scale data")?;
            bones.push(ActionBone {
                bone,
                translation,
                rotation,
                scale,
            });
        }
        Ok(Action {
            us_per_frame,
            part_list_mode,
            parts,
            bones,
        })
    }

    fn user_field(&mut self) -> Result<UserField> {
        let name = self.string("name")?;
        let at = self.r.pos();
        let t = self.r.u8("type")?;
        if t & 0xC0 != 0 {
            return Err(self
                .r
                .err(at, "type", format!("reserved bits set in {t:#04X}")));
        }
        let ty = *UdfType::ALL.get((t & 0x0F) as usize).ok_or_else(|| {
            self.r.err(
                at,
                "type",
                format!("unknown type {} (0..11 allowed)", t & 0x0F),
            )
        })?;
        let empty = t & 0x20 != 0;
        let is_array = t & 0x10 != 0;
        if empty {
            return Ok(UserField {
                name,
                ty,
                is_array,
                value: UdfValue::Empty,
            });
        }
        if is_array {
            let len = self.r.u16("array length minus 1")? as usize + 1;
            let at = self.r.pos();
            let off = self.r.u16("offset to first array element")?;
            let value = match &self.strings {
                None => UdfValue::Array(Vec::new()),
                Some(t) => UdfValue::Array(
                    read_udf_array(t, off, len, ty).map_err(|m| self.r.err(at, "array data", m))?,
                ),
            };
            return Ok(UserField {
                name,
                ty,
                is_array,
                value,
            });
        }
        let r = &mut self.r;
        let scalar = match ty {
            UdfType::Str => UdfScalar::Str(self.string("value")?),
            UdfType::Bool => UdfScalar::Bool(r.u8("value")? != 0),
            UdfType::I8 => UdfScalar::I8(r.i8("value")?),
            UdfType::I16 => UdfScalar::I16(r.i16("value")?),
            UdfType::I32 => UdfScalar::I32(r.i32("value")?),
            UdfType::I64 => UdfScalar::I64(r.i64("value")?),
            UdfType::U8 => UdfScalar::U8(r.u8("value")?),
            UdfType::U16 => UdfScalar::U16(r.u16("value")?),
            UdfType::U32 => UdfScalar::U32(r.u32("value")?),
            UdfType::U64 => UdfScalar::U64(r.u64("value")?),
            UdfType::F32 => UdfScalar::F32(r.f32("value")?),
            UdfType::F64 => UdfScalar::F64(r.f64("value")?),
        };
        Ok(UserField {
            name,
            ty,
            is_array,
            value: UdfValue::Scalar(scalar),
        })
    }
}

/// Array elements stored back to back in the string table from `off`.
fn read_udf_array(
    t: &StringTable,
    off: u16,
    len: usize,
    ty: UdfType,
) -> std::result::Result<Vec<UdfScalar>, String> {
    let start = off as usize;
    if start > t.data.len() {
        return Err(format!(
            "offset {start} is outside the string table ({} bytes)",
            t.data.len()
        ));
    }
    if ty == UdfType::Str {
        let mut out = Vec::with_capacity(len.min(t.data.len() - start));
        let mut pos = start;
        for i in 0..len {
            if pos > u16::MAX as usize || pos >= t.data.len() {
                return Err(format!("string element {i} starts past the string table"));
            }
            let s = t.get(pos as u16)?;
            pos += s.len() + 1;
            out.push(UdfScalar::Str(s.to_string()));
        }
        return Ok(out);
    }
    let size = ty.size();
    let bytes = t.data.get(start..).unwrap_or_default();
    if bytes.len() < len * size {
        return Err(format!(
            "{len} {} elements need {} bytes but the string table has {} after offset {start}",
            ty.name(),
            len * size,
            bytes.len()
        ));
    }
    let mut r = Reader::new(&bytes[..len * size]);
    (0..len)
        .map(|_| {
            let f = "element";
            Ok(match ty {
                UdfType::Bool => UdfScalar::Bool(r.u8(f)? != 0),
                UdfType::I8 => UdfScalar::I8(r.i8(f)?),
                UdfType::I16 => UdfScalar::I16(r.i16(f)?),
                UdfType::I32 => UdfScalar::I32(r.i32(f)?),
                UdfType::I64 => UdfScalar::I64(r.i64(f)?),
                UdfType::U8 => UdfScalar::U8(r.u8(f)?),
                UdfType::U16 => UdfScalar::U16(r.u16(f)?),
                UdfType::U32 => UdfScalar::U32(r.u32(f)?),
                UdfType::U64 => UdfScalar::U64(r.u64(f)?),
                UdfType::F32 => UdfScalar::F32(r.f32(f)?),
                UdfType::F64 => UdfScalar::F64(r.f64(f)?),
                // Read as strings above; named here so that no type panics.
                UdfType::Str => {
                    return Err(crate::DecodeError {
                        offset: start as u64,
                        field: f.into(),
                        kind: crate::ErrorKind::Invalid("a string read as a number".into()),
                    });
                }
            })
        })
        .collect::<Result<Vec<_>>>()
        .map_err(|e| e.to_string())
}

/// Rebuilds parents from the depth-first order and child counts.
#[allow(clippy::needless_range_loop)] // reads the parent's name while linking
fn link_bones(bones: &mut [Bone]) -> std::result::Result<(), String> {
    // Stack of (bone index, children still to come).
    let mut stack: Vec<(usize, u8)> = Vec::new();
    for i in 0..bones.len() {
        while let Some(&(_, 0)) = stack.last() {
            stack.pop();
        }
        let parent = stack.last_mut().map(|(p, left)| {
            *left -= 1;
            *p
        });
        bones[i].parent = parent;
        stack.push((i, bones[i].child_count));
    }
    if let Some(&(p, left)) = stack.iter().find(|(_, left)| *left > 0) {
        return Err(format!(
            "bone {p} {:?} declares {left} more child bone(s) than the file has",
            bones[p].name
        ));
    }
    Ok(())
}

/// Cross-references: material/texture/action indices in range.
fn validate(m: &P3m, table_at: usize) -> std::result::Result<(), (usize, String, String)> {
    let err = |field: String, msg: String| Err((table_at, field, msg));
    let nmat = m.materials.len();
    let ntex = m.textures.len();
    for (i, p) in m.parts.iter().enumerate() {
        if p.material as usize >= nmat && p.material != NONE_INDEX {
            return err(
                format!("part {i} {:?}: material index", p.name),
                format!("{} is out of range ({nmat} materials)", p.material),
            );
        }
        for o in &p.material_overrides {
            if o.material as usize >= nmat {
                return err(
                    format!("part {i} {:?}: material override {:?}", p.name, o.animation),
                    format!("material {} is out of range ({nmat} materials)", o.material),
                );
            }
        }
    }
    for (i, mat) in m.materials.iter().enumerate() {
        let mut texs: Vec<(&str, u8)> = Vec::new();
        texs.extend(mat.data.texture.map(|t| ("texture index", t)));
        texs.extend(mat.data.matcap.map(|t| ("matcap texture index", t)));
        if let Some(a) = &mat.animation {
            texs.extend(
                a.texture
                    .iter()
                    .filter(|k| k.value != NONE_INDEX)
                    .map(|k| ("texture keyframe", k.value)),
            );
            texs.extend(
                a.matcap
                    .iter()
                    .filter(|k| k.value != NONE_INDEX)
                    .map(|k| ("matcap keyframe", k.value)),
            );
        }
        for (field, t) in texs {
            if t as usize >= ntex {
                return err(
                    format!("material {i}: {field}"),
                    format!("{t} is out of range ({ntex} textures)"),
                );
            }
        }
    }
    for (i, a) in m.animations.iter().enumerate() {
        for r in &a.actions {
            if r.action as usize >= m.actions.len() {
                return err(
                    format!("animation {i} {:?}: action index", a.name),
                    format!("{} is out of range ({} actions)", r.action, m.actions.len()),
                );
            }
        }
    }
    Ok(())
}
