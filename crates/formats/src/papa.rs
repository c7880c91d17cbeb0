//! Planetary Annihilation `.papa` decoder: `specs/papa.txt` for the
//! layout, `notes/papa.md` (facts checked against 1,443 real files) for the
//! enum values, strides and quirks; where they disagree the notes win
//! (`docs/formats.md`).
//!
//! A papa file is a 104-byte header of nine counts and nine absolute table
//! offsets (-1 for none), tables of fixed-size entries, and blobs they point
//! at. Every offset is checked against the file, every table and blob is
//! checked against every other for overlap, and no count allocates more than
//! the bytes that could back it.

use super::{DecodeError, ErrorKind, Reader, Result};
use std::borrow::Cow;

pub const MAGIC: &[u8; 4] = b"apaP";
pub const VERSION: u32 = 0x0003_0000;

/// Texture formats (1-based enum of the notes, §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexFormat {
    R8G8B8A8,
    R8G8B8X8,
    B8G8R8A8,
    Dxt1,
    Dxt3,
    Dxt5,
    R32F,
    Rg32F,
    Rgba32F,
    R16F,
    Rg16F,
    Rgba16F,
    R8,
    Rg8,
    /// Depth, shadow and integer formats: sized, listed, not displayed.
    Other(u8),
}

impl TexFormat {
    pub fn from_u8(v: u8) -> Option<TexFormat> {
        use TexFormat::*;
        Some(match v {
            1 => R8G8B8A8,
            2 => R8G8B8X8,
            3 => B8G8R8A8,
            4 => Dxt1,
            5 => Dxt3,
            6 => Dxt5,
            7 => R32F,
            8 => Rg32F,
            9 => Rgba32F,
            10 => R16F,
            11 => Rg16F,
            12 => Rgba16F,
            13 => R8,
            14 => Rg8,
            15..=32 => Other(v),
            _ => return None,
        })
    }

    pub fn to_u8(self) -> u8 {
        use TexFormat::*;
        match self {
            R8G8B8A8 => 1,
            R8G8B8X8 => 2,
            B8G8R8A8 => 3,
            Dxt1 => 4,
            Dxt3 => 5,
            Dxt5 => 6,
            R32F => 7,
            Rg32F => 8,
            Rgba32F => 9,
            R16F => 10,
            Rg16F => 11,
            Rgba16F => 12,
            R8 => 13,
            Rg8 => 14,
            Other(v) => v,
        }
    }

    pub fn name(self) -> String {
        use TexFormat::*;
        match self {
            R8G8B8A8 => "R8G8B8A8".into(),
            R8G8B8X8 => "R8G8B8X8".into(),
            B8G8R8A8 => "B8G8R8A8".into(),
            Dxt1 => "DXT1".into(),
            Dxt3 => "DXT3".into(),
            Dxt5 => "DXT5".into(),
            R32F => "R32F".into(),
            Rg32F => "RG32F".into(),
            Rgba32F => "RGBA32F".into(),
            R16F => "R16F".into(),
            Rg16F => "RG16F".into(),
            Rgba16F => "RGBA16F".into(),
            R8 => "R8".into(),
            Rg8 => "RG8".into(),
            Other(v) => format!("format {v}"),
        }
    }

    /// Bytes of one mip level of `w` x `h`.
    pub fn level_size(self, w: u32, h: u32) -> u64 {
        use TexFormat::*;
        let (w, h) = (w.max(1) as u64, h.max(1) as u64);
        let blocks = w.div_ceil(4).max(1) * h.div_ceil(4).max(1);
        match self {
            Dxt1 => blocks * 8,
            Dxt3 | Dxt5 => blocks * 16,
            R8G8B8A8 | R8G8B8X8 | B8G8R8A8 | R32F | Rg16F => w * h * 4,
            Rg32F | Rgba16F => w * h * 8,
            Rgba32F => w * h * 16,
            R16F | Rg8 => w * h * 2,
            R8 => w * h,
            Other(v) => {
                w * h
                    * match v {
                        16 | 22 | 23 | 24 | 25 | 30 => 2,
                        20 | 21 => 1,
                        _ => 4,
                    }
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum TextureData {
    /// Pixels of every level, largest first, tightly packed.
    Embedded(Vec<u8>),
    /// A reference to another papa by media path (`name`): format 0, no data.
    Linked,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    pub name: String,
    pub format: Option<TexFormat>,
    /// Levels including the base.
    pub mips: u8,
    pub srgb: bool,
    pub width: u16,
    pub height: u16,
    pub data: TextureData,
}

/// The size of mip level `level` of a `width` x `height` texture: halved
/// per level, at least 1; a level past the 1x1 one stays 1x1 (the mip
/// count is a 7-bit field, so a file may ask for more levels than there
/// are halvings).
pub fn level_dims(width: u16, height: u16, level: u32) -> (u32, u32) {
    let half = |v: u16| (v as u32).checked_shr(level).unwrap_or(0).max(1);
    (half(width), half(height))
}

impl Texture {
    /// The size of stored level `level` ([`level_dims`]).
    pub fn level_dims(&self, level: u32) -> (u32, u32) {
        level_dims(self.width, self.height, level)
    }

    /// Byte range of each level in the data.
    pub fn levels(&self) -> Vec<std::ops::Range<usize>> {
        let Some(f) = self.format else {
            return Vec::new();
        };
        let mut at = 0usize;
        (0..self.mips.max(1) as u32)
            .map(|i| {
                let (w, h) = self.level_dims(i);
                let n = f.level_size(w, h) as usize;
                at += n;
                at - n..at
            })
            .collect()
    }
}

/// Vertex formats 0..=14 (notes §5): stride and where each attribute sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexLayout {
    pub name: &'static str,
    pub stride: usize,
    pub normal: Option<usize>,
    pub color: Option<usize>,
    pub uv: Option<usize>,
    /// Weights (u8 x4) and bones (u8 x4).
    pub skin: Option<(usize, usize)>,
    pub has_position: bool,
    /// Tangent (f32 x3) with the binormal right after it.
    pub tangents: Option<usize>,
    /// UV sets after the first, each 8 bytes after the one before.
    pub extra_uvs: u8,
    /// Eight float colour components (format 13).
    pub color8f: Option<usize>,
}

const fn layout(
    name: &'static str,
    stride: usize,
    normal: Option<usize>,
    color: Option<usize>,
    uv: Option<usize>,
    skin: Option<(usize, usize)>,
) -> VertexLayout {
    VertexLayout {
        name,
        stride,
        normal,
        color,
        uv,
        skin,
        has_position: true,
        tangents: None,
        extra_uvs: 0,
        color8f: None,
    }
}

/// `layout` with `extra` UV sets after the first.
const fn uvs(mut l: VertexLayout, extra: u8) -> VertexLayout {
    l.extra_uvs = extra;
    l
}

/// `layout` with the tangent at `at` and the binormal after it.
const fn tan(mut l: VertexLayout, at: usize) -> VertexLayout {
    l.tangents = Some(at);
    l
}

pub const VERTEX_LAYOUTS: [VertexLayout; 15] = [
    layout("Position3", 12, None, None, None, None),
    layout(
        "Position3Color4bTexCoord2",
        24,
        None,
        Some(12),
        Some(16),
        None,
    ),
    uvs(
        layout(
            "Position3Color4bTexCoord4",
            32,
            None,
            Some(12),
            Some(16),
            None,
        ),
        1,
    ),
    uvs(
        layout(
            "Position3Color4bTexCoord6",
            40,
            None,
            Some(12),
            Some(16),
            None,
        ),
        2,
    ),
    layout("Position3Normal3", 24, Some(12), None, None, None),
    layout(
        "Position3Normal3TexCoord2",
        32,
        Some(12),
        None,
        Some(24),
        None,
    ),
    layout(
        "Position3Normal3Color4TexCoord2",
        36,
        Some(12),
        Some(24),
        Some(28),
        None,
    ),
    uvs(
        layout(
            "Position3Normal3Color4TexCoord4",
            44,
            Some(12),
            Some(24),
            Some(28),
            None,
        ),
        1,
    ),
    layout(
        "Position3Weights4bBones4bNormal3TexCoord2",
        40,
        Some(20),
        None,
        Some(32),
        Some((12, 16)),
    ),
    tan(
        layout(
            "Position3Normal3Tan3Bin3TexCoord2",
            56,
            Some(12),
            None,
            Some(48),
            None,
        ),
        24,
    ),
    tan(
        uvs(
            layout(
                "Position3Normal3Tan3Bin3TexCoord4",
                64,
                Some(12),
                None,
                Some(48),
                None,
            ),
            1,
        ),
        24,
    ),
    tan(
        uvs(
            layout(
                "Position3Normal3Tan3Bin3Color4TexCoord4",
                68,
                Some(12),
                Some(48),
                Some(52),
                None,
            ),
            1,
        ),
        24,
    ),
    VertexLayout {
        name: "TexCoord4",
        stride: 16,
        normal: None,
        color: None,
        uv: Some(0),
        skin: None,
        has_position: false,
        tangents: None,
        extra_uvs: 1,
        color8f: None,
    },
    VertexLayout {
        color8f: Some(12),
        extra_uvs: 2,
        ..layout("Position3Color8fTexCoord6", 68, None, None, Some(44), None)
    },
    VertexLayout {
        name: "Matrix",
        stride: 64,
        normal: None,
        color: None,
        uv: None,
        skin: None,
        has_position: false,
        tangents: None,
        extra_uvs: 0,
        color8f: None,
    },
];

/// The first influence of `vb` (vertex, slot, bone index) with a weight
/// above 0 whose bone index is not below `map_len`: the engine maps every
/// bone index through the binding's bone map, so such a vertex is broken.
fn first_unmapped_bone(vb: &VertexBuffer, map_len: usize) -> Option<(usize, usize, u8)> {
    let (w_at, b_at) = vb.layout().skin?;
    let stride = vb.layout().stride;
    vb.data.chunks_exact(stride).enumerate().find_map(|(v, b)| {
        (0..4)
            .find(|&k| b[w_at + k] > 0 && b[b_at + k] as usize >= map_len)
            .map(|k| (v, k, b[b_at + k]))
    })
}

/// One vertex as the scene wants it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vertex {
    pub pos: [f32; 3],
    pub normal: Option<[f32; 3]>,
    pub uv: Option<[f32; 2]>,
    pub color: Option<[u8; 4]>,
    pub weights: Option<[u8; 4]>,
    pub bones: Option<[u8; 4]>,
    /// Tangent and binormal (formats 9-11).
    pub tangent: Option<[[f32; 3]; 2]>,
    /// The UV sets after the first (formats 2, 3, 7, 10-13).
    pub extra_uvs: [Option<[f32; 2]>; 2],
    /// The eight float colour components of format 13, as stored.
    pub color8f: Option<[f32; 8]>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VertexBuffer {
    pub format: u8,
    pub count: u32,
    /// `count * stride` bytes as stored.
    pub data: Vec<u8>,
}

impl VertexBuffer {
    pub fn layout(&self) -> &'static VertexLayout {
        &VERTEX_LAYOUTS[self.format as usize]
    }

    /// Every vertex, decoded.
    pub fn vertices(&self) -> Vec<Vertex> {
        (0..self.data.len() / self.layout().stride)
            .map(|i| self.vertex(i))
            .collect()
    }

    /// Vertex `i` (`i < count`), decoded from the stored bytes.
    #[inline]
    pub fn vertex(&self, i: usize) -> Vertex {
        let l = self.layout();
        let b = &self.data[i * l.stride..(i + 1) * l.stride];
        let f = |at: usize| f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let v3 = |at: usize| [f(at), f(at + 4), f(at + 8)];
        let b4 = |at: usize| [b[at], b[at + 1], b[at + 2], b[at + 3]];
        Vertex {
            pos: if l.has_position { v3(0) } else { [0.0; 3] },
            normal: l.normal.map(v3),
            uv: l.uv.map(|at| [f(at), f(at + 4)]),
            color: l.color.map(b4),
            weights: l.skin.map(|(w, _)| b4(w)),
            bones: l.skin.map(|(_, j)| b4(j)),
            tangent: l.tangents.map(|at| [v3(at), v3(at + 12)]),
            // Written out: `array::from_fn` or `[0, 1].map` did not
            // inline, and their results came back through the stack in
            // stores the next load could not forward from.
            extra_uvs: match l.uv {
                Some(at) => [
                    (l.extra_uvs > 0).then(|| [f(at + 8), f(at + 12)]),
                    (l.extra_uvs > 1).then(|| [f(at + 16), f(at + 20)]),
                ],
                None => [None, None],
            },
            color8f: l
                .color8f
                .map(|at| [0, 1, 2, 3, 4, 5, 6, 7].map(|k| f(at + 4 * k))),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct IndexBuffer {
    /// 0: u16, 1: u32.
    pub format: u8,
    pub indices: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub shader: String,
    pub vectors: Vec<(String, [f32; 4])>,
    pub textures: Vec<(String, u16)>,
    pub matrices: Vec<(String, [f32; 16])>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MaterialGroup {
    pub name: String,
    pub material: u16,
    pub first_index: u32,
    pub primitives: u32,
    /// 0 points, 1 lines, 2 triangles.
    pub primitive_type: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    pub vertex_buffer: u16,
    pub index_buffer: u16,
    pub groups: Vec<MaterialGroup>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    pub name: String,
    pub parent: Option<u16>,
    pub translation: [f32; 3],
    /// x, y, z, w.
    pub rotation: [f32; 4],
    /// Column-major 3x3.
    pub shear_scale: [f32; 9],
    /// Column-major 4x4: model (bind) space -> bone space.
    pub bind2bone: [f32; 16],
}

#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    pub bones: Vec<Bone>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MeshBinding {
    pub name: String,
    pub mesh: u16,
    /// Column-major.
    pub mesh2model: [f32; 16],
    /// Vertex bone index -> skeleton bone.
    pub bone_map: Vec<u16>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub name: String,
    pub skeleton: Option<u16>,
    pub model2scene: [f32; 16],
    pub bindings: Vec<MeshBinding>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    pub name: String,
    /// Bone names (bound to a skeleton by name).
    pub bones: Vec<String>,
    pub frames: u32,
    pub fps_num: u32,
    pub fps_den: u32,
    /// Frame-major: `frame * bones + bone`; (translation, rotation x y z w).
    pub transforms: Vec<([f32; 3], [f32; 4])>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Papa {
    /// The 6 header padding bytes (some exporters sign them, e.g. "Luther").
    pub signature: [u8; 6],
    pub textures: Vec<Texture>,
    pub vertex_buffers: Vec<VertexBuffer>,
    pub index_buffers: Vec<IndexBuffer>,
    pub materials: Vec<Material>,
    pub meshes: Vec<Mesh>,
    pub skeletons: Vec<Skeleton>,
    pub models: Vec<Model>,
    pub animations: Vec<Animation>,
    /// The header's counts and offsets, for the inspector.
    pub tables: Vec<TableInfo>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableInfo {
    pub name: &'static str,
    pub count: u16,
    pub offset: Option<u64>,
    /// `count` entries of the table's fixed size.
    pub bytes: u64,
}

/// The size of one entry of each table, in `TABLE_NAMES`' order.
const TABLE_ENTRY_BYTES: [u64; 9] = [16, 24, 24, 24, 32, 16, 16, 80, 32];

pub const TABLE_NAMES: [&str; 9] = [
    "strings",
    "textures",
    "vertex buffers",
    "index buffers",
    "materials",
    "meshes",
    "skeletons",
    "models",
    "animations",
];

/// The header's count and offset fields, by table.
const COUNT_FIELDS: [&str; 9] = [
    "strings count",
    "textures count",
    "vertex buffers count",
    "index buffers count",
    "materials count",
    "meshes count",
    "skeletons count",
    "models count",
    "animations count",
];
const OFFSET_FIELDS: [&str; 9] = [
    "strings table offset",
    "textures table offset",
    "vertex buffers table offset",
    "index buffers table offset",
    "materials table offset",
    "meshes table offset",
    "skeletons table offset",
    "models table offset",
    "animations table offset",
];
const TABLE_LABELS: [&str; 9] = [
    "strings table",
    "textures table",
    "vertex buffers table",
    "index buffers table",
    "materials table",
    "meshes table",
    "skeletons table",
    "models table",
    "animations table",
];

/// What a range of the file holds, named only when an error names it (a
/// label formatted for every string and blob was a tenth of decoding a
/// small file).
#[derive(Debug, Clone, Copy)]
enum Label {
    Header,
    Table(usize),
    String(usize),
    /// Texture `i` and its name's string index.
    Pixels(usize, u16),
    VertexBuffer(usize),
    IndexBuffer(usize),
    /// Material `i`'s parameters of one kind.
    Material(usize, &'static str),
    MeshGroups(usize),
    Bones(usize),
    Bindings(usize),
    BoneMappings(usize, usize),
    /// Animation `i`'s bone table or transforms.
    Animation(usize, &'static str),
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Label::Header => f.write_str("header"),
            Label::Table(t) => f.write_str(TABLE_LABELS[*t]),
            Label::String(i) => write!(f, "string {i}"),
            // Named by `Ctx::describe`, which has the strings.
            Label::Pixels(i, _) => write!(f, "texture {i} pixels"),
            Label::VertexBuffer(i) => write!(f, "vertex buffer {i}"),
            Label::IndexBuffer(i) => write!(f, "index buffer {i}"),
            Label::Material(i, what) => write!(f, "material {i} {what} params"),
            Label::MeshGroups(i) => write!(f, "mesh {i} material groups"),
            Label::Bones(i) => write!(f, "skeleton {i} bones"),
            Label::Bindings(i) => write!(f, "model {i} mesh bindings"),
            Label::BoneMappings(i, b) => write!(f, "model {i} binding {b} bone mappings"),
            Label::Animation(i, what) => write!(f, "animation {i} {what}"),
        }
    }
}

struct Ctx<'a> {
    data: &'a [u8],
    strings: Vec<Cow<'a, str>>,
    /// (start, end, what) of every table and blob, for the overlap check.
    regions: Vec<(u64, u64, Label)>,
    warnings: Vec<String>,
}

impl<'a> Ctx<'a> {
    /// A reader at absolute `offset` that may read `len` bytes there; the
    /// bytes are recorded for the overlap check. Tables name their reader's
    /// errors (a fixed name); the reader of a blob is sized to it, so only
    /// the few that check what they read name their errors after the fact
    /// ([`DecodeError::in_ctx`]), so that no name is formatted for a file
    /// that has no error.
    fn at(&mut self, offset: i64, len: u64, what: Label) -> Result<Reader<'a>> {
        let mut r = self.view(offset, len, &what)?;
        if let Label::Table(t) = what {
            r.set_ctx(TABLE_LABELS[t]);
        }
        self.record(offset, len, what);
        Ok(r)
    }

    /// Records `len` bytes at `offset` (in the file: `view` checked) for
    /// the overlap check.
    fn record(&mut self, offset: i64, len: u64, what: Label) {
        if len > 0 {
            self.regions
                .push((offset as u64, offset as u64 + len, what));
        }
    }

    /// A reader at absolute `offset` over `len` bytes, without recording
    /// them; `what` names them in an error. Inlined, with its errors made
    /// out of line: called, it returned its reader through the stack in
    /// narrow stores that its caller read back in wide loads, a stall the
    /// CPU spent 7% of basic_cube.papa's decode on.
    #[inline]
    fn view(&self, offset: i64, len: u64, what: &Label) -> Result<Reader<'a>> {
        match u64::try_from(offset)
            .ok()
            .and_then(|o| Some((o, o.checked_add(len)?)))
        {
            Some((start, end)) if end <= self.data.len() as u64 => {
                let mut r = Reader::new(&self.data[..end as usize]);
                r.bytes(start as usize, "")?;
                Ok(r)
            }
            _ => Err(self.view_error(offset, len, what)),
        }
    }

    /// [`Ctx::view`]'s error: a negative offset, or bytes past the end.
    #[cold]
    #[inline(never)]
    fn view_error(&self, offset: i64, len: u64, what: &Label) -> DecodeError {
        if offset < 0 {
            return DecodeError::invalid(
                0,
                self.describe(what),
                format!("offset {offset} for {len} bytes"),
            );
        }
        DecodeError {
            offset: offset as u64,
            field: self.describe(what),
            kind: ErrorKind::PastEnd {
                file_len: self.data.len() as u64,
            },
        }
    }

    fn name(&self, index: u16) -> String {
        self.name_str(index).to_owned()
    }

    /// String `index`, or "" for none (0xFFFF) or one the table lacks.
    fn name_str(&self, index: u16) -> &str {
        match index {
            0xFFFF => "",
            i => self.strings.get(i as usize).map_or("", |s| s),
        }
    }

    /// `what` as errors name it (a texture's blob with the texture's name).
    fn describe(&self, what: &Label) -> String {
        match what {
            Label::Pixels(i, name) => format!("texture {i} {:?} pixels", self.name_str(*name)),
            other => other.to_string(),
        }
    }
}

/// Sixteen little-endian floats: one bounds check for the 64 bytes, not
/// one a float (each `f32` read was a checked call: 37 instructions a
/// float, a fiftieth of a small file's load).
fn mat16(r: &mut Reader, field: &str) -> Result<[f32; 16]> {
    let b = r.fixed_ref::<64>(field)?;
    Ok(std::array::from_fn(|i| {
        f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    }))
}

/// The header past its magic and version: each table's entry count and
/// file offset, and the 6 bytes between them.
struct Header {
    counts: [u16; 9],
    offsets: [i64; 9],
    signature: [u8; 6],
}

impl Header {
    fn read(r: &mut Reader) -> Result<Header> {
        r.magic(MAGIC, "magic (apaP)")?;
        let at = r.pos();
        let version = r.u32("version")?;
        if version != VERSION {
            return Err(r.err(
                at,
                "version",
                format!("{version:#010X}, only 0x00030000 (3.0) exists"),
            ));
        }
        let mut counts = [0u16; 9];
        for (i, c) in counts.iter_mut().enumerate() {
            *c = r.u16(COUNT_FIELDS[i])?;
        }
        let signature = r.fixed::<6>("header padding")?;
        let mut offsets = [0i64; 9];
        for (i, o) in offsets.iter_mut().enumerate() {
            *o = r.i64(OFFSET_FIELDS[i])?;
        }
        Ok(Header {
            counts,
            offsets,
            signature,
        })
    }

    /// Each table as `info` lists it.
    fn tables(&self) -> Vec<TableInfo> {
        (0..9)
            .map(|i| TableInfo {
                name: TABLE_NAMES[i],
                count: self.counts[i],
                offset: (self.offsets[i] >= 0).then_some(self.offsets[i] as u64),
                bytes: self.counts[i] as u64 * TABLE_ENTRY_BYTES[i],
            })
            .collect()
    }

    /// A reader over table `i`'s entries and their count, once the
    /// entries are known to be in the file (their bytes recorded for the
    /// overlap check); `None` for an empty table. Each table's list is
    /// sized to this count (so a count backs no more room than the file's
    /// bytes do): a list grown push by push reallocates.
    fn table<'a>(&self, c: &mut Ctx<'a>, i: usize) -> Result<Option<(Reader<'a>, usize)>> {
        let n = self.counts[i];
        if n == 0 {
            return Ok(None);
        }
        let t = c.at(
            self.offsets[i],
            n as u64 * TABLE_ENTRY_BYTES[i],
            Label::Table(i),
        )?;
        Ok(Some((t, n as usize)))
    }
}

pub fn decode(data: &[u8]) -> Result<Papa> {
    let h = Header::read(&mut Reader::new(data))?;
    let mut c = Ctx {
        data,
        strings: Vec::new(),
        regions: {
            // Room for a typical file's tables and blobs (not sized from
            // the counts: a hostile header could claim 590K entries).
            let mut r = Vec::with_capacity(32);
            r.push((0, 104, Label::Header));
            r
        },
        warnings: Vec::new(),
    };
    let mut p = Papa {
        signature: h.signature,
        tables: h.tables(),
        ..Default::default()
    };
    // Strings first: everything else names things through them. Then each
    // table in file order, every one checked against those before it.
    if let Some((t, n)) = h.table(&mut c, 0)? {
        read_strings(&mut c, t, n)?;
    }
    if let Some((t, n)) = h.table(&mut c, 1)? {
        p.textures = textures(&mut c, t, n)?;
    }
    // Where each vertex buffer's data starts (for errors about a vertex).
    let mut vb_offsets = Vec::new();
    if let Some((t, n)) = h.table(&mut c, 2)? {
        (p.vertex_buffers, vb_offsets) = vertex_buffers(&mut c, t, n)?;
    }
    if let Some((t, n)) = h.table(&mut c, 3)? {
        p.index_buffers = index_buffers(&mut c, t, n)?;
    }
    if let Some((t, n)) = h.table(&mut c, 4)? {
        p.materials = materials(&mut c, t, n)?;
    }
    if let Some((t, n)) = h.table(&mut c, 5)? {
        p.meshes = meshes(&mut c, t, n, &p)?;
    }
    if let Some((t, n)) = h.table(&mut c, 6)? {
        p.skeletons = skeletons(&mut c, t, n)?;
    }
    if let Some((t, n)) = h.table(&mut c, 7)? {
        p.models = models(&mut c, t, n, &p, &vb_offsets)?;
    }
    if let Some((t, n)) = h.table(&mut c, 8)? {
        p.animations = animations(&mut c, t, n)?;
    }
    check_overlaps(&c)?;
    p.warnings = c.warnings;
    Ok(p)
}

/// The string table's `n` entries into `c.strings`, borrowed from the file
/// where they are valid UTF-8 of the length the entry gives.
fn read_strings(c: &mut Ctx, mut t: Reader, n: usize) -> Result<()> {
    let data = c.data;
    c.strings.reserve_exact(n);
    let mut entries: Vec<(u32, i64)> = Vec::with_capacity(n);
    for _ in 0..n {
        let len = t.u32("string length")?;
        t.u32("string padding")?;
        entries.push((len, t.i64("string offset")?));
    }
    let mut starts: Vec<i64> = entries.iter().map(|e| e.1).collect();
    starts.sort_unstable();
    for (i, &(len, off)) in entries.iter().enumerate() {
        let what = Label::String(i);
        // The slot runs to the next string (or the end of the file): a
        // length in characters (a known exporter quirk) is read to the NUL.
        // (A binary search: a file may hold a million strings.)
        let limit = starts
            .get(starts.partition_point(|&s| s <= off))
            .map_or(data.len() as i64, |&s| s.min(data.len() as i64));
        let slot = (limit.saturating_sub(off).max(0) as u64).max(len as u64);
        let bytes = c.view(off, slot, &what)?.bytes(slot as usize, "")?;
        let exact = &bytes[..len as usize];
        // Borrowed from the file: the items that keep a name copy it.
        let (s, used) = match std::str::from_utf8(exact) {
            Ok(s) if bytes.get(len as usize) == Some(&0) => (s.into(), len as u64 + 1),
            _ => {
                let end = bytes.iter().position(|&b| b == 0).ok_or_else(|| {
                    DecodeError::invalid(
                        off as u64,
                        what.to_string(),
                        format!("no NUL ends it before offset {:#X}", off as u64 + slot),
                    )
                })?;
                c.warnings.push(format!(
                    "string {i}: length {len} is not its byte length; read up to its NUL"
                ));
                (
                    String::from_utf8_lossy(&bytes[..end]),
                    (end as u64 + 1).min(slot),
                )
            }
        };
        c.record(off, used, what);
        c.strings.push(shorten_name(s, i, &mut c.warnings));
    }
    Ok(())
}

/// The texture table's `n` entries, each embedded texture's data checked
/// to be the size of its levels.
fn textures(c: &mut Ctx, mut t: Reader, n: usize) -> Result<Vec<Texture>> {
    let mut textures = Vec::with_capacity(n);
    for i in 0..n {
        let name_index = t.u16("texture name")?;
        let at = t.pos();
        let fmt = t.u8("texture format")?;
        let mips_srgb = t.u8("texture mips")?;
        let width = t.u16("texture width")?;
        let height = t.u16("texture height")?;
        let size = t.u64("texture data size")?;
        let off = t.i64("texture data offset")?;
        let name = c.name(name_index);
        let (format, data) = if fmt == 0 && off == -1 {
            (None, TextureData::Linked)
        } else {
            let format = TexFormat::from_u8(fmt).ok_or_else(|| {
                t.err(
                    at,
                    &format!("texture {i} format"),
                    format!("{fmt} is not a texture format (1-32)"),
                )
            })?;
            let mut br = c.at(off, size, Label::Pixels(i, name_index))?;
            (
                Some(format),
                TextureData::Embedded(br.bytes(size as usize, "pixels")?.to_vec()),
            )
        };
        let tex = Texture {
            name,
            format,
            mips: mips_srgb & 0x7F,
            srgb: mips_srgb & 0x80 != 0,
            width,
            height,
            data,
        };
        if let (Some(f), TextureData::Embedded(d)) = (tex.format, &tex.data) {
            let want: u64 = (0..tex.mips.max(1) as u32)
                .map(|l| {
                    let (w, h) = level_dims(width, height, l);
                    f.level_size(w, h)
                })
                .sum();
            if want != d.len() as u64 {
                return Err(t.err(
                    at,
                    &format!("texture {i} data size"),
                    format!(
                        "{} bytes, but {}x{} {} with {} levels needs {want}",
                        d.len(),
                        width,
                        height,
                        f.name(),
                        tex.mips
                    ),
                ));
            }
        }
        textures.push(tex);
    }
    Ok(textures)
}

/// The vertex buffer table's `n` entries, and where each one's data
/// starts in the file.
fn vertex_buffers(c: &mut Ctx, mut t: Reader, n: usize) -> Result<(Vec<VertexBuffer>, Vec<u64>)> {
    let mut offsets = Vec::with_capacity(n);
    let mut buffers = Vec::with_capacity(n);
    for i in 0..n {
        let at = t.pos();
        let format = t.u8("vertex format")?;
        t.bytes(3, "padding")?;
        let count = t.u32("vertex count")?;
        let size = t.u64("vertex data size")?;
        let off = t.i64("vertex data offset")?;
        let l = VERTEX_LAYOUTS.get(format as usize).ok_or_else(|| {
            t.err(
                at,
                &format!("vertex buffer {i} format"),
                format!("{format} is not a vertex format (0-14)"),
            )
        })?;
        if size != count as u64 * l.stride as u64 {
            return Err(t.err(
                at,
                &format!("vertex buffer {i} data size"),
                format!(
                    "{size} bytes for {count} {} vertices of {} bytes",
                    l.name, l.stride
                ),
            ));
        }
        let data = if size == 0 {
            Vec::new()
        } else {
            c.at(off, size, Label::VertexBuffer(i))?
                .bytes(size as usize, "vertices")?
                .to_vec()
        };
        offsets.push(off as u64);
        buffers.push(VertexBuffer {
            format,
            count,
            data,
        });
    }
    Ok((buffers, offsets))
}

/// The index buffer table's `n` entries, 16- or 32-bit indices widened
/// to 32.
fn index_buffers(c: &mut Ctx, mut t: Reader, n: usize) -> Result<Vec<IndexBuffer>> {
    let mut buffers = Vec::with_capacity(n);
    for i in 0..n {
        let at = t.pos();
        let format = t.u8("index format")?;
        t.bytes(3, "padding")?;
        let count = t.u32("index count")?;
        let size = t.u64("index data size")?;
        let off = t.i64("index data offset")?;
        let width = match format {
            0 => 2,
            1 => 4,
            f => {
                return Err(t.err(
                    at,
                    &format!("index buffer {i} format"),
                    format!("{f} (0 UInt16, 1 UInt32)"),
                ));
            }
        };
        if size != count as u64 * width {
            return Err(t.err(
                at,
                &format!("index buffer {i} data size"),
                format!("{size} bytes for {count} indices of {width} bytes"),
            ));
        }
        let indices = if size == 0 {
            Vec::new()
        } else {
            // The size is `count * width` (checked above) and `at`
            // bounds it: one check, then a plain loop.
            let bytes = c
                .at(off, size, Label::IndexBuffer(i))?
                .bytes(size as usize, "index")?;
            if width == 2 {
                bytes
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]) as u32)
                    .collect()
            } else {
                bytes
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect()
            }
        };
        buffers.push(IndexBuffer { format, indices });
    }
    Ok(buffers)
}

/// The material table's `n` entries with their named vectors, textures
/// and matrices.
fn materials(c: &mut Ctx, mut t: Reader, n: usize) -> Result<Vec<Material>> {
    let mut materials = Vec::with_capacity(n);
    for i in 0..n {
        let shader = t.u16("shader name")?;
        let (nv, nt, nm) = (
            t.u16("vector count")?,
            t.u16("texture count")?,
            t.u16("matrix count")?,
        );
        let (ov, ot, om) = (
            t.i64("vector offset")?,
            t.i64("texture offset")?,
            t.i64("matrix offset")?,
        );
        let mut m = Material {
            shader: c.name(shader),
            vectors: Vec::new(),
            textures: Vec::new(),
            matrices: Vec::new(),
        };
        if nv > 0 {
            let mut r = c.at(ov, nv as u64 * 20, Label::Material(i, "vector"))?;
            m.vectors.reserve_exact(nv as usize);
            for _ in 0..nv {
                let n = r.u16("name")?;
                r.u16("padding")?;
                m.vectors.push((
                    c.name(n),
                    [r.f32("x")?, r.f32("y")?, r.f32("z")?, r.f32("w")?],
                ));
            }
        }
        if nt > 0 {
            let mut r = c.at(ot, nt as u64 * 4, Label::Material(i, "texture"))?;
            m.textures.reserve_exact(nt as usize);
            for _ in 0..nt {
                let n = r.u16("name")?;
                m.textures.push((c.name(n), r.u16("texture index")?));
            }
        }
        if nm > 0 {
            let mut r = c.at(om, nm as u64 * 68, Label::Material(i, "matrix"))?;
            m.matrices.reserve_exact(nm as usize);
            for _ in 0..nm {
                let n = r.u16("name")?;
                r.u16("padding")?;
                m.matrices.push((c.name(n), mat16(&mut r, "matrix")?));
            }
        }
        materials.push(m);
    }
    Ok(materials)
}

/// The mesh table's `n` entries, checked against the buffers and
/// materials in `p`: their material groups in range of the index buffer,
/// every index in range of the vertex buffer.
fn meshes(c: &mut Ctx, mut t: Reader, n: usize, p: &Papa) -> Result<Vec<Mesh>> {
    let mut meshes = Vec::with_capacity(n);
    for i in 0..n {
        let at = t.pos();
        let vb = t.u16("vertex buffer")?;
        let ib = t.u16("index buffer")?;
        let ng = t.u16("material group count")?;
        t.u16("padding")?;
        let og = t.i64("material groups offset")?;
        let (Some(vertices), Some(indices)) = (
            p.vertex_buffers.get(vb as usize),
            p.index_buffers.get(ib as usize),
        ) else {
            return Err(t.err(
                at,
                &format!("mesh {i}"),
                format!(
                    "vertex buffer {vb} / index buffer {ib} out of range ({} / {})",
                    p.vertex_buffers.len(),
                    p.index_buffers.len()
                ),
            ));
        };
        let groups = if ng > 0 {
            material_groups(c, (og, ng), i, indices.indices.len() as u64, p)?
        } else {
            Vec::new()
        };
        let nv = vertices.count;
        if let Some(&bad) = indices.indices.iter().find(|&&x| x >= nv) {
            return Err(t.err(
                at,
                &format!("mesh {i}"),
                format!("index {bad} is past its vertex buffer's {nv} vertices"),
            ));
        }
        meshes.push(Mesh {
            vertex_buffer: vb,
            index_buffer: ib,
            groups,
        });
    }
    Ok(meshes)
}

/// Mesh `mesh`'s `count` material groups at `offset`, each in range of
/// its index buffer (`indices` long) and of the materials in `p`.
fn material_groups(
    c: &mut Ctx,
    (offset, count): (i64, u16),
    mesh: usize,
    indices: u64,
    p: &Papa,
) -> Result<Vec<MaterialGroup>> {
    let mut r = c.at(offset, count as u64 * 16, Label::MeshGroups(mesh))?;
    let mut groups = Vec::with_capacity(count as usize);
    for g in 0..count {
        let gat = r.pos();
        let name = r.u16("name")?;
        let material = r.u16("material")?;
        let first_index = r.u32("first index")?;
        let primitives = r.u32("primitive count")?;
        let primitive_type = r.u8("primitive type")?;
        r.bytes(3, "padding")?;
        let per = match primitive_type {
            0 => 1u64,
            1 => 2,
            2 => 3,
            x => {
                return Err(r
                    .err(
                        gat,
                        &format!("group {g} primitive type"),
                        format!("{x} (0 points, 1 lines, 2 triangles)"),
                    )
                    .in_ctx(Label::MeshGroups(mesh)));
            }
        };
        if first_index as u64 + per * primitives as u64 > indices
            || material as usize >= p.materials.len()
        {
            return Err(r
                .err(
                    gat,
                    &format!("group {g}"),
                    format!(
                        "indices {first_index}+{per}x{primitives} / material {material} \
                         out of range ({indices} indices, {} materials)",
                        p.materials.len()
                    ),
                )
                .in_ctx(Label::MeshGroups(mesh)));
        }
        groups.push(MaterialGroup {
            name: c.name(name),
            material,
            first_index,
            primitives,
            primitive_type,
        });
    }
    Ok(groups)
}

/// The skeleton table's `n` entries, every bone's parent before it.
fn skeletons(c: &mut Ctx, mut t: Reader, n: usize) -> Result<Vec<Skeleton>> {
    let mut skeletons = Vec::with_capacity(n);
    for i in 0..n {
        let nb = t.u16("bone count")?;
        t.bytes(6, "padding")?;
        let ob = t.i64("bones offset")?;
        let mut bones = Vec::new();
        if nb > 0 {
            // Room once the bones' bytes are known to be in the file.
            let mut r = c.at(ob, nb as u64 * 132, Label::Bones(i))?;
            bones.reserve_exact(nb as usize);
            for b in 0..nb {
                let bat = r.pos();
                let name = r.u16("name")?;
                let parent = r.i16("parent")?;
                if parent >= b as i16 || parent < -1 {
                    return Err(r
                        .err(
                            bat + 2,
                            &format!("bone {b} parent"),
                            format!("{parent}: parents come before their children (-1 for a root)"),
                        )
                        .in_ctx(Label::Bones(i)));
                }
                let translation = [r.f32("t")?, r.f32("t")?, r.f32("t")?];
                let rotation = [r.f32("q")?, r.f32("q")?, r.f32("q")?, r.f32("q")?];
                let mut shear_scale = [0.0; 9];
                for x in &mut shear_scale {
                    *x = r.f32("shear/scale")?;
                }
                let bind2bone = mat16(&mut r, "bind2bone")?;
                bones.push(Bone {
                    name: c.name(name),
                    parent: (parent >= 0).then_some(parent as u16),
                    translation,
                    rotation,
                    shear_scale,
                    bind2bone,
                });
            }
        }
        skeletons.push(Skeleton { bones });
    }
    Ok(skeletons)
}

/// The model table's `n` entries, checked against the skeletons, meshes
/// and vertex buffers in `p` (whose data starts at `vb_offsets`, for
/// errors about a vertex).
fn models(
    c: &mut Ctx,
    mut t: Reader,
    n: usize,
    p: &Papa,
    vb_offsets: &[u64],
) -> Result<Vec<Model>> {
    let mut models = Vec::with_capacity(n);
    for i in 0..n {
        let at = t.pos();
        let name = t.u16("model name")?;
        let skeleton = t.i16("skeleton")?;
        let nb = t.u16("mesh binding count")?;
        t.u16("padding")?;
        let model2scene = mat16(&mut t, "model2scene")?;
        let ob = t.i64("mesh bindings offset")?;
        if skeleton < -1 || skeleton as i64 >= p.skeletons.len() as i64 {
            return Err(t.err(
                at + 2,
                &format!("model {i} skeleton"),
                format!("{skeleton} out of range ({} skeletons)", p.skeletons.len()),
            ));
        }
        let mut bindings = Vec::new();
        if nb > 0 {
            let mut r = c.at(ob, nb as u64 * 80, Label::Bindings(i))?;
            bindings.reserve_exact(nb as usize);
            for b in 0..nb {
                bindings.push(binding(c, &mut r, (i, b), skeleton, p, vb_offsets)?);
            }
        }
        models.push(Model {
            name: c.name(name),
            skeleton: (skeleton >= 0).then_some(skeleton as u16),
            model2scene,
            bindings,
        });
    }
    Ok(models)
}

/// Model `i`'s mesh binding `b`, read from `r`: its mesh in range, its
/// bone map in range of the model's `skeleton`, and every bone the mesh's
/// vertices name in range of the bone map.
fn binding(
    c: &mut Ctx,
    r: &mut Reader,
    (i, b): (usize, u16),
    skeleton: i16,
    p: &Papa,
    vb_offsets: &[u64],
) -> Result<MeshBinding> {
    let bat = r.pos();
    let bname = r.u16("name")?;
    let mesh = r.u16("mesh")?;
    let nmap = r.u16("bone mapping count")?;
    r.u16("padding")?;
    let mesh2model = mat16(r, "mesh2model")?;
    let om = r.i64("bone mappings offset")?;
    if mesh as usize >= p.meshes.len() {
        return Err(r
            .err(
                bat,
                &format!("binding {b} mesh"),
                format!("{mesh} out of range ({} meshes)", p.meshes.len()),
            )
            .in_ctx(Label::Bindings(i)));
    }
    let bone_map = if nmap == 0 {
        Vec::new()
    } else {
        let mut mr = c.at(om, nmap as u64 * 2, Label::BoneMappings(i, b as usize))?;
        (0..nmap)
            .map(|_| mr.u16("bone"))
            .collect::<Result<Vec<_>>>()?
    };
    let nbones = if skeleton >= 0 {
        p.skeletons[skeleton as usize].bones.len()
    } else {
        0
    };
    if let Some(&bad) = bone_map.iter().find(|&&x| x as usize >= nbones) {
        return Err(r
            .err(
                bat,
                &format!("binding {b} bone mapping"),
                format!("bone {bad} out of range ({nbones} bones)"),
            )
            .in_ctx(Label::Bindings(i)));
    }
    if skeleton >= 0 {
        let vb = p.meshes[mesh as usize].vertex_buffer as usize;
        if let Some((v, slot, bone)) = first_unmapped_bone(&p.vertex_buffers[vb], bone_map.len()) {
            let stride = p.vertex_buffers[vb].layout().stride;
            let bones_at = p.vertex_buffers[vb].layout().skin.map_or(0, |s| s.1);
            return Err(DecodeError::invalid(
                vb_offsets[vb] + (v * stride + bones_at + slot) as u64,
                format!("model {i} binding {b}: vertex buffer {vb} vertex {v} bone {slot}"),
                format!(
                    "index {bone} is past the binding's bone map ({} entries)",
                    bone_map.len()
                ),
            ));
        }
    }
    Ok(MeshBinding {
        name: c.name(bname),
        mesh,
        mesh2model,
        bone_map,
    })
}

/// The animation table's `n` entries: each one's bone names and its
/// bones x frames transforms.
fn animations(c: &mut Ctx, mut t: Reader, n: usize) -> Result<Vec<Animation>> {
    let mut animations = Vec::with_capacity(n);
    for i in 0..n {
        let name = t.u16("animation name")?;
        let nb = t.u16("bone count")?;
        let frames = t.u32("frame count")?;
        let fps_num = t.u32("fps numerator")?;
        let fps_den = t.u32("fps denominator")?;
        let obt = t.i64("bone table offset")?;
        let otr = t.i64("transforms offset")?;
        let bones = if nb == 0 {
            Vec::new()
        } else {
            let mut r = c.at(obt, nb as u64 * 2, Label::Animation(i, "bone table"))?;
            (0..nb)
                .map(|_| Ok(c.name(r.u16("bone name")?)))
                .collect::<Result<Vec<_>>>()?
        };
        let n = nb as u64 * frames as u64;
        let mut transforms = Vec::new();
        if n > 0 {
            let mut r = c.at(otr, n * 28, Label::Animation(i, "transforms"))?;
            // Seven floats a transform, all in the range just checked,
            // straight into (translation, rotation) pairs.
            let f = |b: &[u8], k: usize| {
                f32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
            };
            transforms = r
                .bytes(n as usize * 28, "transforms")?
                .chunks_exact(28)
                .map(|b| {
                    (
                        [f(b, 0), f(b, 1), f(b, 2)],
                        [f(b, 3), f(b, 4), f(b, 5), f(b, 6)],
                    )
                })
                .collect();
        }
        if fps_num == 0 || fps_den == 0 {
            c.warnings.push(format!(
                "animation {i}: frame rate {fps_num}/{fps_den}; playing at 60 fps"
            ));
        }
        animations.push(Animation {
            name: c.name(name),
            bones,
            frames,
            fps_num,
            fps_den,
            transforms,
        });
    }
    Ok(animations)
}

/// No two tables or blobs may share bytes: in start order, each begins
/// at or after the end of the one before. PA's files interleave tables
/// and blobs (basic_cube.papa's strings table follows its index data), so
/// the regions come out of order; the sort moves 16-byte keys (start,
/// then the order they were recorded in), not the 48-byte regions
/// (sorting those was 6% of basic_cube's decode and scene, this sort
/// is half that).
fn check_overlaps(c: &Ctx) -> Result<()> {
    let regions = &c.regions;
    // Sorted by start, then by the order recorded, as u64 keys where both
    // fit in one (every file under 16 TB with under a million regions):
    // half the work of sorting u128s, a few percent of a small file's load.
    let bits = usize::BITS - regions.len().leading_zeros();
    let overlap = if (c.data.len() as u64).leading_zeros() >= bits {
        let keys = regions.iter().enumerate();
        first_overlap(
            keys.map(|(i, r)| r.0 << bits | i as u64).collect(),
            regions,
            |k| (k & ((1u64 << bits) - 1)) as usize,
        )
    } else {
        let keys = regions.iter().enumerate();
        first_overlap(
            keys.map(|(i, r)| (r.0 as u128) << 64 | i as u128).collect(),
            regions,
            |k| k as u64 as usize,
        )
    };
    match overlap {
        Some((a, b)) => {
            let (a, b) = (&regions[a], &regions[b]);
            Err(DecodeError::invalid(
                b.0,
                c.describe(&b.2),
                format!("overlaps {} ({:#X}..{:#X})", c.describe(&a.2), a.0, a.1),
            ))
        }
        None => Ok(()),
    }
}

/// The first two regions, in start order, of which the second begins
/// before the first ends: `keys` sort by start then by the order recorded,
/// and `index` gives a key's region.
fn first_overlap<K: Ord + Copy>(
    mut keys: Vec<K>,
    regions: &[(u64, u64, Label)],
    index: impl Fn(K) -> usize,
) -> Option<(usize, usize)> {
    keys.sort_unstable();
    keys.windows(2)
        .map(|w| (index(w[0]), index(w[1])))
        .find(|&(a, b)| regions[b].0 < regions[a].1)
}

impl Papa {
    /// Only animations: how PA ships `<unit>_anim_<name>.papa`.
    pub fn is_animation_only(&self) -> bool {
        !self.animations.is_empty()
            && self.textures.is_empty()
            && self.vertex_buffers.is_empty()
            && self.index_buffers.is_empty()
            && self.materials.is_empty()
            && self.meshes.is_empty()
            && self.skeletons.is_empty()
            && self.models.is_empty()
    }

    pub fn is_texture_only(&self) -> bool {
        self.models.is_empty() && self.animations.is_empty() && !self.textures.is_empty()
    }
}

/// The longest name a string keeps, in bytes. Papa's strings are names
/// (bones, textures' paths, materials, shaders: a few dozen bytes in PA's
/// files), and every item that names one copies it: many entries or items
/// naming one long string would copy it each time (a 64 KB file whose 272
/// bones name one 60 KB string took 87 MB), so a longer one is shortened.
pub const MAX_NAME: usize = 1024;

/// `s` cut to at most [`MAX_NAME`] bytes at a character's start, with a
/// warning, when it is longer.
fn shorten_name<'a>(s: Cow<'a, str>, i: usize, warnings: &mut Vec<String>) -> Cow<'a, str> {
    if s.len() <= MAX_NAME {
        return s;
    }
    let cut = s.floor_char_boundary(MAX_NAME);
    warnings.push(format!(
        "string {i}: {} bytes, longer than the {MAX_NAME} a name keeps; shortened",
        s.len()
    ));
    match s {
        Cow::Borrowed(b) => Cow::Borrowed(&b[..cut]),
        Cow::Owned(mut o) => {
            o.truncate(cut);
            o.shrink_to_fit();
            Cow::Owned(o)
        }
    }
}
