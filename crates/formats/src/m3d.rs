//! Model 3D (`.m3d`, binary form) decoder: `specs/m3d.md`, with the reference
//! SDK's (m3d.h) behaviour where the two differ (`notes/m3d.md`,
//! `docs/formats.md`).
//!
//! The file is a `3DMO` header, an optional `PRVW` preview, then either a
//! plain `HEAD` chunk or a zlib stream that inflates to one (capped at
//! [`MAX_PAYLOAD`]). Everything after it is read from that payload; errors
//! about it name offsets *in the inflated payload* and say so.
//!
//! Indices keep m3d.h's sign extension: a 1-byte index above 253 and a
//! 2-byte index above 65533 are negative, so [`NONE`] (-1) and
//! [`QUATERNION`] (-2) read the same at every width.

use super::{DecodeError, ErrorKind, Reader, Result};

/// The inflated payload may not exceed this (a zlib bomb stops here).
pub const MAX_PAYLOAD: usize = 256 << 20;
/// Voxels per block (w x h x d); larger blocks are refused.
pub const MAX_BLOCK_VOXELS: u64 = 1 << 24;
/// Index value -1: none / no parent / no skin.
pub const NONE: u32 = u32::MAX;
/// Index value -2: a vertex record holding a quaternion (skin id).
pub const QUATERNION: u32 = u32::MAX - 1;

/// Sizes in bytes of the header's variable types; 0 = "not defined" (the
/// data does not exist in the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Types {
    /// Vertex coordinate: 1 (i8), 2 (i16), 4 (f32), 8 (f64).
    pub vc: u8,
    pub vi: u8,
    pub si: u8,
    pub ci: u8,
    pub ti: u8,
    pub bi: u8,
    /// Bones per vertex: 1, 2, 4 or 8 (not a size).
    pub nb: u8,
    pub sk: u8,
    pub fc: u8,
    pub hi: u8,
    pub fi: u8,
    pub vd: u8,
    pub vp: u8,
}

impl Types {
    pub fn from_bits(bits: u32) -> Types {
        let size = |shift: u32| 1u8 << ((bits >> shift) & 3);
        let optional = |shift: u32| match (bits >> shift) & 3 {
            3 => 0,
            v => 1 << v,
        };
        Types {
            vc: size(0),
            vi: size(2),
            si: size(4),
            ci: optional(6),
            ti: optional(8),
            bi: optional(10),
            nb: size(12),
            sk: optional(14),
            fc: optional(16),
            hi: optional(18),
            fi: optional(20),
            vd: size(22),
            vp: size(24),
        }
    }

    pub fn to_bits(self) -> u32 {
        let code = |size: u8| match size {
            1 => 0,
            2 => 1,
            4 => 2,
            _ => 3,
        };
        [
            self.vc, self.vi, self.si, self.ci, self.ti, self.bi, self.nb, self.sk, self.fc,
            self.hi, self.fi, self.vd, self.vp,
        ]
        .iter()
        .enumerate()
        .map(|(i, &s)| code(s) << (2 * i))
        .fold(0, |a, b| a | b)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Vertex {
    /// x, y, z, w as floats (integers scaled by 1/127 or 1/32767).
    pub pos: [f32; 4],
    /// RGBA, red in the low byte (from CMAP or literal); 0 when the file
    /// stores no vertex colours (`types.ci` is 0).
    pub color: u32,
    /// Skin record index, [`NONE`], or [`QUATERNION`].
    pub skin: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// `None` for a root.
    pub parent: Option<u32>,
    pub name: String,
    /// Vertex index of the position (parent-relative).
    pub pos: u32,
    /// Vertex index of the orientation quaternion.
    pub ori: u32,
}

/// Most influences a skin record holds (`nb` is 1, 2, 4 or 8).
pub const MAX_INFLUENCES: usize = 8;

/// Up to `nb` influences: (bone, weight byte), in file order; held inline
/// (no allocation per record).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Skin {
    bones: [u32; MAX_INFLUENCES],
    weights: [u8; MAX_INFLUENCES],
    len: u8,
}

impl Skin {
    /// A record of these influences; past [`MAX_INFLUENCES`] they are
    /// ignored (no M3D holds more).
    pub fn new(influences: &[(u32, u8)]) -> Self {
        let mut s = Skin::default();
        for &(b, w) in influences.iter().take(MAX_INFLUENCES) {
            s.push(b, w);
        }
        s
    }

    #[inline]
    fn push(&mut self, bone: u32, weight: u8) {
        let k = self.len as usize;
        self.bones[k] = bone;
        self.weights[k] = weight;
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// (bone, weight byte) pairs in file order.
    pub fn influences(&self) -> impl ExactSizeIterator<Item = (u32, u8)> + '_ {
        (0..self.len()).map(|k| (self.bones[k], self.weights[k]))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum PropValue {
    /// RGBA, red in the low byte.
    Color(u32),
    Float(f32),
    Int(u32),
    /// Texture name (string table).
    Map(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub ty: u8,
    pub value: PropValue,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub name: String,
    pub props: Vec<Property>,
}

impl Material {
    pub fn prop(&self, ty: u8) -> Option<&PropValue> {
        self.props.iter().find(|p| p.ty == ty).map(|p| &p.value)
    }
}

/// Property ids and their keywords (`specs/m3d.md`).
pub const PROPERTIES: &[(u8, &str)] = &[
    (0, "Kd diffuse"),
    (1, "Ka ambient"),
    (2, "Ks specular"),
    (3, "Ns specular exponent"),
    (4, "Ke emissive"),
    (5, "Tf transmission"),
    (6, "Km bump strength"),
    (7, "d dissolve"),
    (8, "il illumination model"),
    (64, "Pr roughness"),
    (65, "Pm metallic"),
    (66, "Ps sheen"),
    (67, "Ni refraction index"),
    (68, "Nt thickness"),
    (128, "map_Kd diffuse map"),
    (129, "map_Ka ambient occlusion map"),
    (130, "map_Ks specular map"),
    (131, "map_Ns specular exponent map"),
    (132, "map_Ke emissive map"),
    (133, "map_Tf transmission map"),
    (134, "map_Km bump map"),
    (135, "map_d dissolve map"),
    (136, "map_N normal map"),
    (192, "map_Pr roughness map"),
    (193, "map_Pm metallic map"),
    (194, "map_Ps sheen map"),
    (195, "map_Ni refraction map"),
    (196, "map_Nt thickness map"),
];

pub fn property_name(ty: u8) -> &'static str {
    PROPERTIES
        .iter()
        .find(|(t, _)| *t == ty)
        .map_or("unknown", |(_, n)| n)
}

/// How a scalar property's value is stored (m3d.h's table).
fn scalar_kind(ty: u8) -> Option<ScalarKind> {
    Some(match ty {
        0 | 1 | 2 | 4 | 5 => ScalarKind::Color,
        3 | 6 | 7 | 64..=68 => ScalarKind::Float,
        8 => ScalarKind::U8,
        _ => return None,
    })
}

#[derive(Clone, Copy)]
enum ScalarKind {
    Color,
    Float,
    U8,
}

/// One corner of a face. The optional indices are kept as [`NONE`] when
/// absent and read through [`FacePoint::uv`], [`FacePoint::normal`] and
/// [`FacePoint::max`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FacePoint {
    pub vertex: u32,
    uv: u32,
    normal: u32,
    max: u32,
}

impl FacePoint {
    /// A corner from its vertex and optional TMAP index, normal vertex and
    /// maximum vertex (scalable polygons).
    #[inline]
    pub const fn new(vertex: u32, uv: Option<u32>, normal: Option<u32>, max: Option<u32>) -> Self {
        const fn stored(i: Option<u32>) -> u32 {
            match i {
                Some(i) => i,
                None => NONE,
            }
        }
        FacePoint {
            vertex,
            uv: stored(uv),
            normal: stored(normal),
            max: stored(max),
        }
    }

    /// A corner with only its vertex.
    #[inline]
    pub const fn vertex(vertex: u32) -> Self {
        Self::new(vertex, None, None, None)
    }

    /// TMAP index.
    #[inline]
    pub fn uv(&self) -> Option<u32> {
        opt(self.uv)
    }

    /// Vertex index of the normal.
    #[inline]
    pub fn normal(&self) -> Option<u32> {
        opt(self.normal)
    }

    /// Maximum vertex (scalable polygons).
    #[inline]
    pub fn max(&self) -> Option<u32> {
        opt(self.max)
    }
}

/// Every face of the MESH chunks, column by column: a triangle costs 16
/// bytes (its start and three vertex indices) when the file stores only
/// vertex indices, against 13 in the file, so decoding a mesh of millions
/// of faces stays within a few times its bytes. UV, normal and maximum
/// columns exist only once some record stores them ([`NONE`] where a corner
/// has none); materials are runs, one entry per "use material" change.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Faces {
    /// Faces in all.
    count: u32,
    /// First corner of each face (a face ends where the next starts);
    /// empty while every face is a triangle (face i is corners 3i..3i+3).
    starts: Vec<u32>,
    /// (first face, material or [`NONE`]): the material from that face on.
    materials: Vec<(u32, u32)>,
    vertex: Vec<u32>,
    uv: Vec<u32>,
    normal: Vec<u32>,
    max: Vec<u32>,
    /// Which of the UV (1), normal (2) and maximum (4) columns exist; one
    /// that exists holds a value for every corner.
    columns: u8,
}

/// One face of [`Faces`]: its material and its corners (1 to 15 points,
/// counter-clockwise).
#[derive(Debug, Clone)]
pub struct Face<'a> {
    /// Index into `materials`; `None`: vertex colours.
    pub material: Option<u32>,
    faces: &'a Faces,
    corners: std::ops::Range<usize>,
}

impl<'a> Face<'a> {
    #[inline]
    pub fn len(&self) -> usize {
        self.corners.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.corners.is_empty()
    }

    /// Indices of its corners in [`Faces`]' columns.
    #[inline]
    pub fn corners(&self) -> std::ops::Range<usize> {
        self.corners.clone()
    }

    /// Its `j`th point.
    #[inline]
    pub fn point(&self, j: usize) -> FacePoint {
        self.faces.point(self.corners.start + j)
    }

    #[inline]
    pub fn points(&self) -> impl ExactSizeIterator<Item = FacePoint> + 'a {
        let faces = self.faces;
        self.corners.clone().map(move |c| faces.point(c))
    }
}

/// Faces from (material, points) pairs.
impl<P: AsRef<[FacePoint]>> FromIterator<(Option<u32>, P)> for Faces {
    fn from_iter<I: IntoIterator<Item = (Option<u32>, P)>>(faces: I) -> Self {
        let mut out = Faces::default();
        for (material, points) in faces {
            out.push(material, points.as_ref());
        }
        out
    }
}

impl Faces {
    #[inline]
    pub fn len(&self) -> usize {
        self.count as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Points of every face together.
    #[inline]
    pub fn corners(&self) -> usize {
        self.vertex.len()
    }

    /// Triangles after fan triangulation (faces of fewer than 3 points
    /// count none).
    #[inline]
    pub fn triangles(&self) -> usize {
        self.iter().map(|f| f.len().saturating_sub(2)).sum()
    }

    fn column(&mut self, bit: u8) -> &mut Vec<u32> {
        match bit {
            1 => &mut self.uv,
            2 => &mut self.normal,
            _ => &mut self.max,
        }
    }

    /// Makes column `bit` exist: [`NONE`] for every corner so far.
    fn open_column(&mut self, bit: u8) {
        if self.columns & bit == 0 {
            self.columns |= bit;
            let n = self.vertex.len();
            self.column(bit).resize(n, NONE);
        }
    }

    /// Starts a face of `material` and `points` points, which follow with
    /// [`Faces::push_point`].
    #[inline]
    pub fn start_face(&mut self, material: Option<u32>, points: usize) {
        let code = material.unwrap_or(NONE);
        let current = self.materials.last().map_or(NONE, |r| r.1);
        if code != current {
            self.materials.push((self.count, code));
        }
        if points != 3 && self.starts.is_empty() {
            // The first face that is not a triangle: the starts so far
            // (none when it is the file's first face).
            self.starts.extend((0..self.count).map(|i| 3 * i));
        }
        if points != 3 || !self.starts.is_empty() {
            self.starts.push(self.vertex.len() as u32);
        }
        self.count += 1;
    }

    /// Starts `faces` faces of `material` and `points` points each, whose
    /// points the caller appends to the columns next (a MESH run).
    fn start_faces(&mut self, material: Option<u32>, points: usize, faces: usize) {
        self.start_face(material, points);
        if !self.starts.is_empty() {
            let first = self.vertex.len() as u32;
            self.starts
                .extend((1..faces as u32).map(|f| first + f * points as u32));
        }
        self.count += faces as u32 - 1;
    }

    /// Face `i`'s corners.
    #[inline(always)]
    fn range(&self, i: usize) -> std::ops::Range<usize> {
        if self.starts.is_empty() {
            3 * i..3 * i + 3
        } else {
            let end = self
                .starts
                .get(i + 1)
                .map_or(self.vertex.len(), |&e| e as usize);
            self.starts[i] as usize..end
        }
    }

    /// Appends a point to the face last started.
    #[inline(always)]
    pub fn push_point(&mut self, p: FacePoint) {
        for (bit, v) in [(1, p.uv), (2, p.normal), (4, p.max)] {
            if v != NONE {
                self.open_column(bit);
            }
            if self.columns & bit != 0 {
                self.column(bit).push(v);
            }
        }
        self.vertex.push(p.vertex);
    }

    /// Appends a face.
    #[inline]
    pub fn push(&mut self, material: Option<u32>, points: &[FacePoint]) {
        self.start_face(material, points.len());
        for &p in points {
            self.push_point(p);
        }
    }

    /// Corner `c` (an index into the columns).
    #[inline(always)]
    pub fn point(&self, c: usize) -> FacePoint {
        let get = |col: &[u32]| col.get(c).copied().unwrap_or(NONE);
        FacePoint {
            vertex: self.vertex[c],
            uv: get(&self.uv),
            normal: get(&self.normal),
            max: get(&self.max),
        }
    }

    /// Changes corner `c`'s vertex (tests and editors).
    #[inline]
    pub fn set_vertex(&mut self, c: usize, vertex: u32) {
        self.vertex[c] = vertex;
    }

    /// Vertex index of every corner, in face order.
    #[inline]
    pub fn vertices(&self) -> &[u32] {
        &self.vertex
    }

    /// Whether some record stores UVs / normal indices.
    #[inline]
    pub fn has_uvs(&self) -> bool {
        self.columns & 1 != 0
    }

    #[inline]
    pub fn has_normals(&self) -> bool {
        self.columns & 2 != 0
    }

    /// Face `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Face<'_>> {
        if i >= self.len() {
            return None;
        }
        let run = self.materials.partition_point(|r| r.0 as usize <= i);
        let material = run.checked_sub(1).and_then(|r| opt(self.materials[r].1));
        Some(Face {
            material,
            faces: self,
            corners: self.range(i),
        })
    }

    /// The UV column (a TMAP index or [`NONE`] per corner), if some record
    /// stores UVs.
    #[inline]
    pub fn uv_column(&self) -> Option<&[u32]> {
        self.has_uvs().then_some(&self.uv[..])
    }

    /// The normal column (a vertex index or [`NONE`] per corner), if some
    /// record stores normals.
    #[inline]
    pub fn normal_column(&self) -> Option<&[u32]> {
        self.has_normals().then_some(&self.normal[..])
    }

    /// Whether every face is a triangle (face i is corners 3i..3i+3).
    #[inline]
    pub fn all_triangles(&self) -> bool {
        self.starts.is_empty()
    }

    /// Runs of faces that share a material: (faces, material), in order,
    /// covering every face.
    pub fn material_runs(
        &self,
    ) -> impl Iterator<Item = (std::ops::Range<usize>, Option<u32>)> + '_ {
        // Faces before the first run have no material.
        let first = self.materials.first().map_or(self.len(), |r| r.0 as usize);
        let lead = (first > 0).then_some((0..first, None));
        lead.into_iter()
            .chain(self.materials.iter().enumerate().map(|(k, r)| {
                let end = self
                    .materials
                    .get(k + 1)
                    .map_or(self.len(), |next| next.0 as usize);
                (r.0 as usize..end, opt(r.1))
            }))
    }

    /// Every face in order.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Face<'_>> + '_ {
        let mut run = 0usize;
        let mut material = None;
        (0..self.len()).map(move |i| {
            while run < self.materials.len() && self.materials[run].0 as usize <= i {
                material = opt(self.materials[run].1);
                run += 1;
            }
            Face {
                material,
                faces: self,
                corners: self.range(i),
            }
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct VoxelType {
    pub color: u32,
    pub name: String,
    pub rotation: u8,
    /// 0..511 (the high bit comes from the rotation byte).
    pub shape: u16,
    pub skin: u32,
    pub items: Vec<(u16, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VoxelBlock {
    pub name: String,
    pub pos: [i32; 3],
    /// Width (x), height (y), depth (z).
    pub size: [u32; 3],
    pub uncertainty: u8,
    pub group: u8,
    /// The voxels in Y, Z, X order: a voxel type index, or
    /// [`VOXEL_UNSET`] / [`VOXEL_CLEAR`]. At most the product of `size`;
    /// fewer where the file's RLE data ends early, and the voxels past the
    /// end are then unset.
    pub data: Vec<u16>,
}

pub const VOXEL_UNSET: u16 = 0xFFFF;
pub const VOXEL_CLEAR: u16 = 0xFFFE;

#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    pub group: String,
    pub lang: String,
    pub color: u32,
    pub vertex: u32,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Transform {
    pub bone: u32,
    pub pos: u32,
    pub ori: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub msec: u32,
    /// Where its transforms are in [`Action::transforms`] (see
    /// [`Action::transforms_of`]).
    pub transforms: std::ops::Range<u32>,
}

/// An animation: frames in file order, their transforms kept in one list
/// (a list per frame was most of a small animated file's allocations).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Action {
    pub name: String,
    pub duration_ms: u32,
    pub frames: Vec<Frame>,
    /// Every frame's transforms, frame after frame.
    pub transforms: Vec<Transform>,
}

impl Action {
    /// An action from (time, transforms) frames, in that order.
    pub fn from_frames(
        name: impl Into<String>,
        duration_ms: u32,
        frames: impl IntoIterator<Item = (u32, Vec<Transform>)>,
    ) -> Action {
        let mut a = Action {
            name: name.into(),
            duration_ms,
            ..Default::default()
        };
        for (msec, transforms) in frames {
            let start = a.transforms.len() as u32;
            a.transforms.extend(transforms);
            a.frames.push(Frame {
                msec,
                transforms: start..a.transforms.len() as u32,
            });
        }
        a
    }

    /// The transforms of one of this action's frames (none for a range
    /// past the list, which only an action built by hand can have).
    pub fn transforms_of(&self, f: &Frame) -> &[Transform] {
        self.transforms
            .get(f.transforms.start as usize..f.transforms.end as usize)
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Asset {
    pub name: String,
    pub data: Vec<u8>,
}

/// A chunk as found: its magic, where it starts in the payload, its size.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkInfo {
    /// The four magic bytes as text (the chunks this reader knows need no
    /// string of their own); in the ASCII form, the section's keyword
    /// (`header` for the lines before the first).
    pub magic: std::borrow::Cow<'static, str>,
    pub offset: usize,
    pub size: u32,
}

/// A chunk's magic as text: a known chunk's name as a constant, another's
/// bytes as read (invalid UTF-8 replaced).
fn chunk_magic(bytes: &[u8; 4]) -> std::borrow::Cow<'static, str> {
    const KNOWN: [&str; 16] = [
        "HEAD", "PRVW", "CMAP", "TMAP", "VRTS", "BONE", "MTRL", "PROC", "MESH", "SHPE", "VOXT",
        "VOXD", "LBLS", "ACTN", "ASET", "OMD3",
    ];
    match KNOWN.iter().find(|k| k.as_bytes() == bytes) {
        Some(k) => (*k).into(),
        None => crate::lossy_string(bytes).into(),
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct M3d {
    /// The payload was zlib-compressed in the file.
    pub compressed: bool,
    /// The file was the ASCII form (`.a3d`, [`crate::m3d_ascii`]): the
    /// payload is its text.
    pub ascii: bool,
    /// Bytes of the (inflated) payload, from HEAD to OMD3.
    pub payload_len: usize,
    /// PNG bytes of the PRVW chunk.
    pub preview: Option<Vec<u8>>,
    pub scale: f32,
    pub types: Types,
    pub name: String,
    pub license: String,
    pub author: String,
    pub description: String,
    pub cmap: Vec<u32>,
    pub tmap: Vec<[f32; 2]>,
    pub vertices: Vec<Vertex>,
    pub bones: Vec<Bone>,
    pub skins: Vec<Skin>,
    pub materials: Vec<Material>,
    pub faces: Faces,
    /// Mesh "use parameter" names (scalable polygons), in order of use.
    pub parameters: Vec<String>,
    pub voxel_types: Vec<VoxelType>,
    pub voxel_blocks: Vec<VoxelBlock>,
    pub labels: Vec<Label>,
    pub actions: Vec<Action>,
    pub assets: Vec<Asset>,
    /// SHPE chunks: (name, bytes); listed, not rendered.
    pub shapes: Vec<(String, u32)>,
    /// PROC chunks: script names; listed, not run.
    pub procedures: Vec<String>,
    /// Every chunk of the payload, HEAD included, in file order.
    pub chunks: Vec<ChunkInfo>,
    /// Non-fatal problems (undefined materials, unknown properties...).
    pub warnings: Vec<String>,
}

/// Where the payload starts in the file when it is stored plainly.
const PLAIN_BASE: usize = 8;

pub fn decode(data: &[u8]) -> Result<M3d> {
    decode_with_limit(data, MAX_PAYLOAD)
}

/// [`decode`] with another cap on the inflated payload (tests use small ones).
/// A file in the ASCII form (`3dmodel`) is read by [`crate::m3d_ascii`].
pub fn decode_with_limit(data: &[u8], max_payload: usize) -> Result<M3d> {
    if data.starts_with(crate::m3d_ascii::MAGIC) {
        return crate::m3d_ascii::decode(data);
    }
    let mut r = Reader::new(data);
    r.magic(b"3DMO", "file magic")?;
    let at = r.pos();
    let size = r.u32("file size")? as usize;
    // m3d.h trusts the size field; a file cut short must not read past it.
    let end = size.min(data.len());
    if size < 8 {
        return Err(r.err(
            at,
            "file size",
            format!("{size} is smaller than the 8-byte header"),
        ));
    }
    let mut m = M3d::default();
    let mut pos = PLAIN_BASE;
    if data.get(pos..pos + 4) == Some(b"PRVW") {
        let mut pr = Reader::new(&data[..end]);
        pr.bytes(pos + 4, "")?;
        let len = pr.u32("PRVW chunk length")? as usize;
        if len < 8 {
            return Err(pr.err(
                pos + 4,
                "PRVW chunk length",
                format!("{len} is smaller than a chunk header"),
            ));
        }
        pr.check_count(len - 8, 1, "PRVW preview image")?;
        m.preview = Some(pr.bytes(len - 8, "PRVW preview image")?.to_vec());
        pos += len;
    }
    if end < pos {
        return Err(DecodeError {
            offset: pos as u64,
            field: "model header".into(),
            kind: ErrorKind::Truncated {
                needed: 4,
                file_len: data.len() as u64,
            },
        });
    }
    let body = &data[pos..end];
    if body.starts_with(b"HEAD") {
        m.payload_len = body.len();
        parse_payload(body, &mut m).map_err(|e| e.nested(pos as u64, "payload"))?;
        if size > data.len() {
            // The chunks parsed, but the file is shorter than it says.
            return Err(DecodeError {
                offset: data.len() as u64,
                field: "file size".into(),
                kind: ErrorKind::Truncated {
                    needed: (size - data.len()) as u64,
                    file_len: data.len() as u64,
                },
            });
        }
        return Ok(m);
    }
    m.compressed = true;
    inflate_zlib(body, max_payload, |inflated| {
        m.payload_len = inflated.len();
        parse_payload(inflated, &mut m).map_err(|e| DecodeError {
            field: format!(
                "inflated payload ({} bytes; offsets are in it): {}",
                inflated.len(),
                e.field
            ),
            ..e
        })
    })
    .map_err(|why| DecodeError {
        offset: pos as u64,
        field: "zlib payload".into(),
        kind: ErrorKind::Compression(why),
    })??;
    Ok(m)
}

/// Room for inflated payloads kept by a thread between decodes, up to
/// this size (a larger payload gets room of its own, freed after).
const KEPT_ROOM: usize = 8 << 20;

thread_local! {
    /// The decompressor and the output room of the last decode on this
    /// thread: setting them up (a 10 KB decompressor, zeroed output) cost
    /// more than inflating a file of a few KB.
    static INFLATE: std::cell::RefCell<Option<(libdeflater::Decompressor, Vec<u8>)>> =
        const { std::cell::RefCell::new(None) };
}

/// Inflates a zlib stream of at most `max` bytes in one call (libdeflate:
/// 1.4-1.6x zlib-rs on the shared fixtures, `docs/performance.md`) and
/// hands the payload to `parse`. The header gives no inflated size: the
/// room starts at four times the input and doubles until the stream fits,
/// never past `max` (a stream that does not fit is inflated again; the
/// doublings cost at most as much again as the last try).
fn inflate_zlib<R>(
    body: &[u8],
    max: usize,
    parse: impl FnOnce(&[u8]) -> R,
) -> std::result::Result<R, String> {
    use libdeflater::DecompressionError;
    let kept = INFLATE.with(|k| k.borrow_mut().take());
    let (mut z, mut room) = kept.unwrap_or_else(|| (libdeflater::Decompressor::new(), Vec::new()));
    let mut want = body.len().saturating_mul(4).clamp(64, max.max(64));
    let n = loop {
        if room.len() < want {
            room = vec![0u8; want];
        }
        match z.zlib_decompress(body, &mut room[..want]) {
            Ok(n) => break Ok(n),
            Err(DecompressionError::InsufficientSpace) if want < max => {
                want = want.saturating_mul(2).min(max);
            }
            Err(DecompressionError::InsufficientSpace) => {
                break Err(format!("inflates past the {max}-byte limit"));
            }
            Err(DecompressionError::BadData) => {
                break Err(
                    "not a valid zlib stream (the payload is neither a HEAD chunk nor a valid zlib stream)".into(),
                );
            }
        }
    };
    let out = n.map(|n| parse(&room[..n]));
    if room.len() <= KEPT_ROOM {
        INFLATE.with(|k| *k.borrow_mut() = Some((z, room)));
    }
    out
}

/// Reads an index of `size` bytes with m3d.h's sign extension.
fn index(r: &mut Reader, size: u8, field: &str) -> Result<u32> {
    Ok(match size {
        0 => NONE,
        1 => {
            let v = r.u8(field)?;
            if v > 253 {
                v as i8 as i32 as u32
            } else {
                v as u32
            }
        }
        2 => {
            let v = r.u16(field)?;
            if v > 65533 {
                v as i16 as i32 as u32
            } else {
                v as u32
            }
        }
        _ => r.u32(field)?,
    })
}

/// An index of `size` bytes at `b[at..]` as stored, without m3d.h's sign
/// extension (`index_at` gives what it means); a size of 0 reads NONE.
#[inline(always)]
fn raw_at(b: &[u8], at: usize, size: u8) -> u32 {
    match size {
        0 => NONE,
        1 => b[at] as u32,
        2 => u16::from_le_bytes([b[at], b[at + 1]]) as u32,
        _ => u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]),
    }
}

/// `raw_at` with the width known when compiling.
#[inline(always)]
fn raw_of<const SIZE: u8>(b: &[u8], at: usize) -> u32 {
    raw_at(b, at, SIZE)
}

/// Appends an action frame's transforms (`records`: whole records of a
/// bone index of `B` bytes and two vertex indices of `V` bytes each, the
/// file's widths as constants) to `out`, and returns the first one out of
/// range (its place among these), if any: `nb` bones, `nv` vertices.
/// Read in one pass, then checked: a Transform built on the stack and
/// pushed was two 4-byte stores read back as one 8-byte load, which the
/// processor cannot forward (half of a small animated file's parse). A
/// width of 0 reads nothing (NONE), as [`index`].
fn read_transforms<const B: u8, const V: u8>(
    records: &[u8],
    out: &mut Vec<Transform>,
    (nb, nv): (usize, usize),
) -> Option<usize> {
    let (bi, vi) = (B as usize, V as usize);
    let first = out.len();
    out.extend(records.chunks_exact(bi + 2 * vi).map(|b| Transform {
        bone: index_at(b, 0, B),
        pos: index_at(b, bi, V),
        ori: index_at(b, bi + vi, V),
    }));
    out[first..]
        .iter()
        .position(|tr| tr.bone as usize >= nb || tr.pos as usize >= nv || tr.ori as usize >= nv)
}

/// `index` on bytes already bounds-checked: `size` bytes at `b[at..]`.
#[inline(always)]
fn index_at(b: &[u8], at: usize, size: u8) -> u32 {
    match size {
        0 => NONE,
        1 => {
            let v = b[at];
            if v > 253 {
                v as i8 as i32 as u32
            } else {
                v as u32
            }
        }
        2 => {
            let v = u16::from_le_bytes([b[at], b[at + 1]]);
            if v > 65533 {
                v as i16 as i32 as u32
            } else {
                v as u32
            }
        }
        _ => u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]),
    }
}

/// Four coordinates of type `vc` (bytes per coordinate) from `b`, which
/// holds at least `4 * vc` bytes.
#[inline(always)]
fn coords_at(b: &[u8], vc: u8) -> [f32; 4] {
    match vc {
        1 => std::array::from_fn(|k| b[k] as i8 as f32 / 127.0),
        2 => std::array::from_fn(|k| i16::from_le_bytes([b[2 * k], b[2 * k + 1]]) as f32 / 32767.0),
        4 => std::array::from_fn(|k| {
            f32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
        }),
        _ => std::array::from_fn(|k| {
            f64::from_le_bytes(std::array::from_fn(|i| b[8 * k + i])) as f32
        }),
    }
}

/// VRTS records of `rec` bytes each: four coordinates of `VC` bytes, a
/// colour of `ci` bytes (4: RGBA; 1 or 2: an index into `cmap`, already
/// checked; 0 when there is no colour map, as m3d.h) and a skin index of
/// `sk` bytes. One loop per coordinate width, the vertex built in place (a
/// closure called per vertex returned each one through the stack).
fn read_vertices<const VC: u8>(
    records: &[u8],
    rec: usize,
    ci: u8,
    sk: u8,
    cmap: &[u32],
) -> Vec<Vertex> {
    let cc = 4 * VC as usize;
    records
        .chunks_exact(rec)
        .map(|b| Vertex {
            pos: coords_at(b, VC),
            color: match ci {
                0 => 0,
                4 => u32::from_le_bytes([b[cc], b[cc + 1], b[cc + 2], b[cc + 3]]),
                1 => cmap.get(b[cc] as usize).copied().unwrap_or(0),
                _ => cmap
                    .get(u16::from_le_bytes([b[cc], b[cc + 1]]) as usize)
                    .copied()
                    .unwrap_or(0),
            },
            skin: index_at(b, cc + ci as usize, sk),
        })
        .collect()
}

/// Bytes of one MESH point with record flags `k`.
fn point_len(t: &Types, k: u8) -> usize {
    let (vi, ti) = (t.vi as usize, t.ti as usize);
    vi + if k & 1 != 0 { ti } else { 0 }
        + if k & 2 != 0 { vi } else { 0 }
        + if k & 4 != 0 { vi } else { 0 }
}

/// An index of `SIZE` bytes at `b[at..]` with m3d.h's sign extension
/// (`index_at` with the width known when compiling).
#[inline(always)]
fn index_of<const SIZE: u8>(b: &[u8], at: usize) -> u32 {
    index_at(b, at, SIZE)
}

/// A MESH index out of range in a point: (field, value, limit).
type PointError = (&'static str, u32, u32);

/// A MESH point read as m3d.h reads it (sign-extended indices, absent
/// ones NONE) and checked: the uncommon case of [`read_run`], out of line
/// so that its loop stays small (a cold branch predictor, as after the
/// scene conversion of the last file or on a file's one load, paid for
/// every branch inlined there). `(uv_at, normal_at, max_at)`: where those
/// indices sit in the point.
#[cold]
#[inline(never)]
fn exact_point<const K: u8, const VI: u8>(
    b: &[u8],
    (uv_at, normal_at, max_at): (usize, usize, usize),
    ti: u8,
    (nv, nt): (u32, u32),
) -> std::result::Result<[u32; 4], PointError> {
    let bad = |v: u32, limit: u32| v != NONE && v >= limit;
    let v = index_of::<VI>(b, 0);
    let tx = if K & 1 != 0 {
        index_at(b, uv_at, ti)
    } else {
        NONE
    };
    let nrm = if K & 2 != 0 {
        index_of::<VI>(b, normal_at)
    } else {
        NONE
    };
    let mx = if K & 4 != 0 {
        index_of::<VI>(b, max_at)
    } else {
        NONE
    };
    if v >= nv {
        Err(("vertex", v, nv))
    } else if bad(tx, nt) {
        Err(("UV", tx, nt))
    } else if bad(nrm, nv) {
        Err(("normal", nrm, nv))
    } else if bad(mx, nv) {
        Err(("maximum vertex", mx, nv))
    } else {
        Ok([v, tx, nrm, mx])
    }
}

/// A MESH index out of range: (record offset, point, field, value, limit).
type RunError = (usize, usize, &'static str, u32, u32);

/// Reads a run of MESH records that share the header byte at `at` (`n`
/// points with flags `K`, bits 0-2: UV, normal, maximum; vertex indices of
/// `VI` bytes, UV indices of `TI`): every such record that follows back to back and fits
/// before `end` (the caller checked that the first fits; `at..end`). Real meshes are
/// one run of triangles, so the header, the widths and the columns are
/// worked out once a run instead of once a face. Returns where the run
/// ends.
fn read_run<const K: u8, const VI: u8, const TI: u8>(
    faces: &mut Faces,
    data: &[u8],
    std::ops::Range { start: at, end }: std::ops::Range<usize>,
    n: usize,
    t: &Types,
    material: Option<u32>,
    (nv, nt): (u32, u32),
) -> std::result::Result<usize, RunError> {
    // TI is the file's UV index width where K has UV indices (0 otherwise).
    debug_assert!(K & 1 == 0 || TI == t.ti);
    let (vi, ti) = (VI as usize, TI as usize);
    let uv_at = vi;
    let normal_at = uv_at + if K & 1 != 0 { ti } else { 0 };
    let max_at = normal_at + if K & 2 != 0 { vi } else { 0 };
    let point = max_at + if K & 4 != 0 { vi } else { 0 };
    let len = 1 + n * point;
    let magic = data[at];
    // Whole records only, each starting with the run's header byte (an
    // offset worked out and checked a record took 18 instructions each).
    let records = data[at..end]
        .chunks_exact(len)
        .take_while(|rec| rec[0] == magic)
        .count();
    let body = &data[at..at + records * len];
    faces.start_faces(material, n, records);
    // The columns grow to their new length first and are filled through
    // slices (a push per index reloaded each column's length from `faces`).
    let corners = records * n;
    let base = faces.vertex.len();
    // Room for the rest of the chunk too, were it all records like these
    // (a bound by its bytes): a mesh whose runs a material or a change of
    // layout splits (cube_usemtl's three) grew every column at every run.
    let room = corners + (end - (at + records * len)) / len * n;
    let grow = |col: &mut Vec<u32>, exists: bool| {
        if exists {
            col.reserve(room);
            col.resize(base + corners, NONE);
        }
    };
    for bit in [1, 2, 4] {
        if K & bit != 0 {
            faces.open_column(bit); // NONE for the corners before this run
        }
    }
    let has = |bit: u8| faces.columns & bit != 0;
    let (has_uv, has_normal, has_max) = (has(1), has(2), has(4));
    faces.vertex.reserve(room);
    faces.vertex.resize(base + corners, 0);
    grow(&mut faces.uv, has_uv);
    grow(&mut faces.normal, has_normal);
    grow(&mut faces.max, has_max);
    let (vertex, uv, normal, max) = (
        &mut faces.vertex[base..],
        &mut faces.uv[if has_uv { base } else { 0 }..],
        &mut faces.normal[if has_normal { base } else { 0 }..],
        &mut faces.max[if has_max { base } else { 0 }..],
    );
    // The common case first: every index stored as is, below its limit and
    // below the values m3d.h sign-extends (254 for a byte, 65534 for two),
    // so one comparison an index. Anything else (an absent UV or normal,
    // an error) takes the exact reading below.
    let unsigned_below = |size: u8, limit: u32| match size {
        1 => limit.min(254),
        2 => limit.min(65534),
        4 => limit,
        _ => 0, // a type of size 0 reads NONE: never the common case
    };
    let (fast_v, fast_t) = (unsigned_below(VI, nv), unsigned_below(TI, nt));
    let columns = (vertex, uv, normal, max);
    let layout = Layout {
        start: at,
        len,
        point,
        at: (uv_at, normal_at, max_at),
        fast: (fast_v, fast_t),
        limits: (nv, nt),
    };
    // Triangles (every real file's faces) with the point count a constant,
    // so the loop over a record's points is unrolled: WusonBlitz0's run of
    // 3,732 triangles took a fifth fewer instructions (callgrind).
    if n == 3 {
        fill_run::<K, VI, TI>(body, 3, &layout, columns)
    } else {
        fill_run::<K, VI, TI>(body, n, &layout, columns)
    }?;
    Ok(at + records * len)
}

/// Where a run's records keep their indices ([`read_run`]): the offset of
/// its first record (for errors), the record length, the point length,
/// where a point's UV, normal and maximum indices sit in it, the limits
/// below which an index is stored as read (vertex, UV), and the vertex and
/// UV counts.
struct Layout {
    start: usize,
    len: usize,
    point: usize,
    at: (usize, usize, usize),
    fast: (u32, u32),
    limits: (u32, u32),
}

/// Stores the points of a run's records (`body`, `n` points each) in the
/// columns' rows for them: [`read_run`]'s loop, inlined where `n` is a
/// constant.
#[inline(always)]
fn fill_run<const K: u8, const VI: u8, const TI: u8>(
    body: &[u8],
    n: usize,
    l: &Layout,
    (vertex, uv, normal, max): (&mut [u32], &mut [u32], &mut [u32], &mut [u32]),
) -> std::result::Result<(), RunError> {
    let (uv_at, normal_at, max_at) = l.at;
    let (fast_v, fast_t) = l.fast;
    // A record's rows of the columns, zipped with its points: no bounds
    // check a store (they were a third of the run's time). A column the
    // run stores nothing in takes a row of `unused` instead, never written
    // (a record has at most 15 points).
    let mut unused = [[0u32; 15]; 3];
    let [unused_uv, unused_normal, unused_max] = &mut unused;
    for (r, (rec, vertex)) in body
        .chunks_exact(l.len)
        .zip(vertex.chunks_exact_mut(n))
        .enumerate()
    {
        let row = r * n..r * n + n;
        let uv = if K & 1 != 0 {
            &mut uv[row.clone()]
        } else {
            &mut unused_uv[..n]
        };
        let normal = if K & 2 != 0 {
            &mut normal[row.clone()]
        } else {
            &mut unused_normal[..n]
        };
        let max = if K & 4 != 0 {
            &mut max[row]
        } else {
            &mut unused_max[..n]
        };
        let rows = vertex.iter_mut().zip(uv).zip(normal).zip(max);
        for (j, (b, (((vertex, uv), normal), max))) in
            rec[1..].chunks_exact(l.point).zip(rows).enumerate()
        {
            // Every index of the point is read before any is stored: a load
            // behind a store to the columns waited on it (the processor
            // cannot tell at once that they never overlap).
            let v = raw_of::<VI>(b, 0);
            let tx = if K & 1 != 0 { raw_at(b, uv_at, TI) } else { 0 };
            let nrm = if K & 2 != 0 {
                raw_of::<VI>(b, normal_at)
            } else {
                0
            };
            let mx = if K & 4 != 0 {
                raw_of::<VI>(b, max_at)
            } else {
                0
            };
            // `&`, not `&&`: one branch a point, not one an index.
            let plain = (v < fast_v)
                & (K & 1 == 0 || tx < fast_t)
                & (K & 2 == 0 || nrm < fast_v)
                & (K & 4 == 0 || mx < fast_v);
            let [v, tx, nrm, mx] = if plain {
                [v, tx, nrm, mx]
            } else {
                exact_point::<K, VI>(b, l.at, TI, l.limits)
                    .map_err(|(what, v, limit)| (l.start + r * l.len, j, what, v, limit))?
            };
            *vertex = v;
            if K & 1 != 0 {
                *uv = tx;
            }
            if K & 2 != 0 {
                *normal = nrm;
            }
            if K & 4 != 0 {
                *max = mx;
            }
        }
    }
    Ok(())
}

/// `e` with `label` ("bone 3") put before its field's name; the chunk's
/// context comes before both once the chunk's parse returns ("BONE chunk
/// at 0x1C: bone 3 name"): record numbers formatted only for an error.
fn within(e: DecodeError, label: std::fmt::Arguments) -> DecodeError {
    DecodeError {
        field: format!("{label} {}", e.field),
        ..e
    }
}

fn opt(i: u32) -> Option<u32> {
    (i != NONE).then_some(i)
}

struct Payload<'a> {
    /// The string table: HEAD + 16 to the end of HEAD.
    strings: &'a [u8],
    t: Types,
}

impl Payload<'_> {
    /// A string-table reference; 0 is no string.
    fn string(&self, r: &mut Reader, field: &str) -> Result<String> {
        let at = r.pos();
        let off = index(r, self.t.si, field)?;
        if off == 0 || off == NONE {
            return Ok(String::new());
        }
        let bytes = self.strings.get(off as usize..).ok_or_else(|| {
            r.err(
                at,
                field,
                format!(
                    "string offset {off} is past the string table ({} bytes)",
                    self.strings.len()
                ),
            )
        })?;
        let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Ok(crate::lossy_string(&bytes[..len]))
    }

    /// A colour: a literal RGBA (4 bytes), or an index into CMAP read
    /// unsigned (m3d.h: `model->cmap ? model->cmap[idx] : 0`, no
    /// sign extension: a map may hold 256 or 65536 colours), 0 without a
    /// CMAP.
    fn color(&self, r: &mut Reader, cmap: &[u32], field: &str) -> Result<u32> {
        let at = r.pos();
        Ok(match self.t.ci {
            0 => 0,
            4 => r.u32(field)?,
            size => {
                let i = match size {
                    1 => r.u8(field)? as usize,
                    _ => r.u16(field)? as usize,
                };
                if cmap.is_empty() {
                    return Ok(0);
                }
                *cmap.get(i).ok_or_else(|| {
                    r.err(
                        at,
                        field,
                        format!(
                            "colour index {i} is past the colour map ({} colours)",
                            cmap.len()
                        ),
                    )
                })?
            }
        })
    }
}

/// The payload's HEAD chunk into `m` (scale, variable types, the four
/// strings), with the payload's OMD3 end checked: its length, where the
/// chunks start, and the variable types.
fn parse_head(data: &[u8], m: &mut M3d) -> Result<(usize, Types)> {
    let mut r = Reader::new(data);
    r.magic(b"HEAD", "HEAD chunk magic")?;
    let at = r.pos();
    let head_len = r.u32("HEAD chunk length")? as usize;
    if head_len < 16 || head_len > data.len() {
        return Err(r.err(
            at,
            "HEAD chunk length",
            format!(
                "{head_len} is not between 16 and the payload size {}",
                data.len()
            ),
        ));
    }
    m.scale = r.f32("scale")?;
    // m3d.h: `if(model->scale <= 0.0) model->scale = 1.0;`
    if m.scale <= 0.0 {
        m.scale = 1.0;
    }
    let bits = r.u32("variable types")?;
    let t = Types::from_bits(bits);
    m.types = t;
    if t.vi > 4 || t.si > 4 {
        return Err(r.err(
            12,
            "variable types",
            format!("{bits:#010X}: vertex and string indices must be 1, 2 or 4 bytes"),
        ));
    }
    if t.vp == 4 {
        return Err(r.err(
            12,
            "variable types",
            format!("{bits:#010X}: voxel pixels are 1 or 2 bytes"),
        ));
    }
    if !data.ends_with(b"OMD3") {
        return Err(DecodeError::invalid(
            data.len().saturating_sub(4) as u64,
            "end chunk",
            "the payload does not end with OMD3",
        ));
    }
    let strings = &data[16..head_len];
    let mut fields = strings.split(|&b| b == 0).map(crate::lossy_string);
    m.name = fields.next().unwrap_or_default();
    m.license = fields.next().unwrap_or_default();
    m.author = fields.next().unwrap_or_default();
    m.description = fields.next().unwrap_or_default();
    m.chunks.push(ChunkInfo {
        magic: "HEAD".into(),
        offset: 0,
        size: head_len as u32,
    });
    Ok((head_len, t))
}

/// The payload (inflated, HEAD to OMD3) into `m`: its head, then each
/// chunk in file order.
fn parse_payload(data: &[u8], m: &mut M3d) -> Result<()> {
    let (head_len, t) = parse_head(data, m)?;
    let strings = &data[16..head_len];
    let p = Payload { strings, t };
    let end = data.len() - 4;
    let mut pos = head_len;
    // Material names used before any definition, each warned of once.
    let mut undefined: Vec<String> = Vec::new();
    while pos < end {
        let mut h = Reader::new(&data[..end]);
        h.bytes(pos, "")?;
        let magic_bytes = h.fixed::<4>("chunk magic")?;
        let magic = chunk_magic(&magic_bytes);
        if &magic_bytes == b"OMD3" {
            break;
        }
        let len_at = h.pos();
        let len = h.u32("chunk length")? as usize;
        if len < 8 || len > end - pos {
            return Err(h.err(
                len_at,
                &format!("{magic} chunk length"),
                format!(
                    "{len} does not fit between 8 and the {} bytes left before OMD3",
                    end - pos
                ),
            ));
        }
        m.chunks.push(ChunkInfo {
            magic: magic.clone(),
            offset: pos,
            size: len as u32,
        });
        // As m3d.h: these chunks are unique; a second one is skipped (the
        // first stays), and voxel data without voxel index types too.
        let unique = matches!(
            &magic_bytes,
            b"CMAP" | b"TMAP" | b"VRTS" | b"BONE" | b"VOXT"
        );
        if unique
            && m.chunks[..m.chunks.len() - 1]
                .iter()
                .any(|c| c.magic == magic)
        {
            m.warnings.push(format!(
                "a second {magic} chunk at {pos:#X} is skipped (the first one stays, as in m3d.h)"
            ));
            pos += len;
            continue;
        }
        if &magic_bytes == b"VOXD" && (t.vd > 4 || t.vp > 2) {
            m.warnings.push(format!(
                "VOXD chunk at {pos:#X} skipped: the header defines no voxel dimension or index type (as m3d.h)"
            ));
            pos += len;
            continue;
        }
        let chunk = Chunk {
            data,
            magic: magic_bytes,
            at: pos,
            body: pos + 8..pos + len,
        };
        // Its errors are named after the chunk once one happens (a context
        // formatted for every chunk was a tenth of reading a small file).
        parse_chunk(&chunk, &p, &mut undefined, m)
            .map_err(|e| e.in_ctx(format_args!("{magic} chunk at {pos:#X}")))?;
        pos += len;
    }
    Ok(())
}

/// One chunk of the payload past its magic and length.
struct Chunk<'a> {
    /// The whole payload (face records are read from it by offset).
    data: &'a [u8],
    magic: [u8; 4],
    /// The chunk's offset in the payload.
    at: usize,
    /// Its body: past the magic and the length, to the chunk's end.
    body: std::ops::Range<usize>,
}

impl<'a> Chunk<'a> {
    /// A reader over the chunk that starts at its body and ends with it.
    fn reader(&self) -> Result<Reader<'a>> {
        let mut r = Reader::new(&self.data[..self.body.end]);
        r.bytes(self.body.start, "")?;
        Ok(r)
    }
}

/// Chunk `c` into `m`; `undefined` holds the material names already
/// warned of as used before any definition.
fn parse_chunk(c: &Chunk, p: &Payload, undefined: &mut Vec<String>, m: &mut M3d) -> Result<()> {
    let r = &mut c.reader()?;
    let t = &p.t;
    // The chunk's length as its header gives it (magic and length included).
    let len = c.body.end - c.at;
    match &c.magic {
        b"CMAP" => {
            m.cmap = (0..c.body.len() / 4)
                .map(|_| r.u32("colour"))
                .collect::<Result<_>>()?
        }
        b"TMAP" => m.tmap = texture_map(r, c.body.len(), t)?,
        b"VRTS" => m.vertices = vertices(r, c.body.len(), t, &m.cmap)?,
        b"BONE" => {
            if t.bi == 0 {
                m.warnings.push(format!(
                    "BONE chunk at {:#X} in a file without a bone index type; skipped (as m3d.h)",
                    c.at
                ));
                return Ok(());
            }
            bones_and_skins(r, p, m)?
        }
        b"MTRL" => material(r, p, c.body.end, m)?,
        b"MESH" => mesh(r, c, p, undefined, m)?,
        b"VOXT" => m.voxel_types = voxel_types(r, p, c.body.end, &m.cmap)?,
        b"VOXD" => m.voxel_blocks.push(voxel_block(r, p, c.body.clone())?),
        b"LBLS" => labels(r, p, c.body.end, m)?,
        b"ACTN" => action(r, p, m)?,
        b"ASET" => {
            let name = p.string(r, "asset name")?;
            let rest = c.body.end - r.pos();
            m.assets.push(Asset {
                name,
                data: r.bytes(rest, "asset data")?.to_vec(),
            });
        }
        b"SHPE" => {
            let name = p.string(r, "shape name")?;
            m.shapes.push((name, len as u32));
        }
        b"PROC" => m.procedures.push(p.string(r, "script name")?),
        magic => {
            if magic[0].is_ascii_uppercase() {
                m.warnings.push(format!(
                    "unknown chunk {:?} at {:#X} ({len} bytes) skipped",
                    chunk_magic(magic),
                    c.at
                ));
            }
        }
    }
    Ok(())
}

/// TMAP: the texture coordinates in a body of `len` bytes, as floats.
fn texture_map(r: &mut Reader, len: usize, t: &Types) -> Result<Vec<[f32; 2]>> {
    let rec = 2 * t.vc as usize;
    let n = len / rec;
    // Fixed-size records in one bounds-checked slice.
    let all = r.bytes(n * rec, "texture coordinates")?.chunks_exact(rec);
    let u16_at = |b: &[u8], k: usize| u16::from_le_bytes([b[k], b[k + 1]]) as f32;
    let f32_at = |b: &[u8], k: usize| f32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
    let f64_at = |b: &[u8], k: usize| f64::from_le_bytes(std::array::from_fn(|i| b[k + i])) as f32;
    Ok(match t.vc {
        1 => all
            .map(|b| [b[0] as f32 / 255.0, b[1] as f32 / 255.0])
            .collect(),
        2 => all
            .map(|b| [u16_at(b, 0) / 65535.0, u16_at(b, 2) / 65535.0])
            .collect(),
        4 => all.map(|b| [f32_at(b, 0), f32_at(b, 4)]).collect(),
        _ => all.map(|b| [f64_at(b, 0), f64_at(b, 8)]).collect(),
    })
}

/// VRTS: the vertices in a body of `len` bytes, their colour indices
/// looked up in `cmap`.
fn vertices(r: &mut Reader, len: usize, t: &Types, cmap: &[u32]) -> Result<Vec<Vertex>> {
    let rec = 4 * t.vc as usize + t.ci as usize + t.sk as usize;
    let n = len / rec;
    // Fixed-size records, bounds-checked once for the chunk; only a
    // colour index past the colour map can fail.
    let start = r.pos();
    let records = r.bytes(n * rec, "vertices")?;
    let (cc, ci) = (4 * t.vc as usize, t.ci);
    let index = |b: &[u8]| match ci {
        1 => b[cc] as usize,
        _ => u16::from_le_bytes([b[cc], b[cc + 1]]) as usize,
    };
    // Colour indices are checked first, so the vertices are one
    // infallible pass (an exact-size collect, no push per vertex).
    if matches!(ci, 1 | 2) && !cmap.is_empty() {
        let bad = records
            .chunks_exact(rec)
            .position(|b| index(b) >= cmap.len());
        if let Some(i) = bad {
            let c = index(&records[i * rec..]);
            return Err(r.err(
                start + i * rec + cc,
                &format!("vertex {i} colour"),
                format!(
                    "colour index {c} is past the colour map ({} colours)",
                    cmap.len()
                ),
            ));
        }
    }
    Ok(match t.vc {
        1 => read_vertices::<1>(records, rec, ci, t.sk, cmap),
        2 => read_vertices::<2>(records, rec, ci, t.sk, cmap),
        4 => read_vertices::<4>(records, rec, ci, t.sk, cmap),
        _ => read_vertices::<8>(records, rec, ci, t.sk, cmap),
    })
}

/// BONE: the bones, each parent before its children and each position
/// and orientation a vertex, then the skins, each bone in range.
fn bones_and_skins(r: &mut Reader, p: &Payload, m: &mut M3d) -> Result<()> {
    let t = &p.t;
    let nb = index(r, t.bi, "bone count")? as usize;
    // A count of an undefined type is 0 (m3d.h starts it at 0).
    let ns = if t.sk == 0 {
        0
    } else {
        index(r, t.sk, "skin count")? as usize
    };
    let rec = t.bi as usize + t.si as usize + 2 * t.vi as usize;
    r.check_count(nb, rec, "bones")?;
    for i in 0..nb {
        let f = |s: &str| format!("bone {i} {s}");
        // The bone's number joins a field's name only for an error (a
        // `format!` per field was a third of the allocations of a small
        // rigged file).
        let named = |e| within(e, format_args!("bone {i}"));
        let parent = opt(index(r, t.bi, "parent").map_err(named)?);
        let name = p.string(r, "name").map_err(named)?;
        let at = r.pos();
        let pos = index(r, t.vi, "position").map_err(named)?;
        let ori = index(r, t.vi, "orientation").map_err(named)?;
        if parent.is_some_and(|pa| pa as usize >= i) {
            return Err(r.err(at, &f("parent"), "a parent must come before its children"));
        }
        for (what, v) in [("position", pos), ("orientation", ori)] {
            if v as usize >= m.vertices.len() {
                return Err(r.err(
                    at,
                    &f(what),
                    format!("vertex {v} is out of range ({} vertices)", m.vertices.len()),
                ));
            }
        }
        m.bones.push(Bone {
            parent,
            name,
            pos,
            ori,
        });
    }
    let skin_rec = if t.nb == 1 {
        t.bi as usize
    } else {
        t.nb as usize
    };
    r.check_count(ns, skin_rec, "skins")?;
    for i in 0..ns {
        let weights: &[u8] = if t.nb == 1 {
            &[255]
        } else {
            r.bytes(t.nb as usize, "skin weights")?
        };
        let mut skin = Skin::default();
        for &w in weights.iter().filter(|&&w| w != 0) {
            let at = r.pos();
            let b = index(r, t.bi, "skin bone")?;
            if b as usize >= nb {
                return Err(r.err(
                    at,
                    &format!("skin {i} bone"),
                    format!("bone {b} is out of range ({nb} bones)"),
                ));
            }
            skin.push(b, w);
        }
        m.skins.push(skin);
    }
    Ok(())
}

/// MTRL: one material and its properties up to `end`; a second material
/// of a name already defined is left out, with a warning.
fn material(r: &mut Reader, p: &Payload, end: usize, m: &mut M3d) -> Result<()> {
    let name = p.string(r, "material name")?;
    let mut props = Vec::new();
    while r.pos() < end {
        let at = r.pos();
        let ty = r.u8("property type")?;
        let value = if ty >= 128 {
            PropValue::Map(p.string(r, "texture map name")?)
        } else {
            match scalar_kind(ty) {
                Some(ScalarKind::Color) => {
                    PropValue::Color(p.color(r, &m.cmap, "colour property")?)
                }
                Some(ScalarKind::Float) => PropValue::Float(r.f32("float property")?),
                Some(ScalarKind::U8) => PropValue::Int(r.u8("integer property")? as u32),
                None => {
                    // m3d.h stops reading the material here.
                    m.warnings.push(format!(
                        "material {name:?}: unknown property type {ty} at {at:#X}; \
                         the rest of its properties are skipped"
                    ));
                    break;
                }
            }
        };
        props.push(Property { ty, value });
    }
    if m.materials.iter().any(|x| x.name == name) {
        m.warnings.push(format!(
            "material {name:?} is defined twice; the first definition is used"
        ));
    } else {
        m.materials.push(Material { name, props });
    }
    Ok(())
}

/// MESH: material and parameter records, and runs of like face records
/// read into `m.faces`, each run growing the face columns once (a chunk of
/// one run, as real files are, to exactly its size).
fn mesh(
    r: &mut Reader,
    c: &Chunk,
    p: &Payload,
    undefined: &mut Vec<String>,
    m: &mut M3d,
) -> Result<()> {
    let t = &p.t;
    let end = c.body.end;
    let mut material: Option<u32> = None;
    let (nv, nt) = (m.vertices.len() as u32, m.tmap.len() as u32);
    while r.pos() < end {
        let magic = r.u8("record magic")?;
        let (n, k) = ((magic >> 4) as usize, magic & 15);
        if n == 0 {
            let sat = r.pos();
            let name = p.string(r, "material or parameter name")?;
            match k {
                0 => {
                    // As m3d.h: the material must be defined before;
                    // offset 0 (no name) is no material.
                    material = (!name.is_empty())
                        .then(|| m.materials.iter().position(|x| x.name == name))
                        .flatten()
                        .map(|i| i as u32);
                    if material.is_none() && !name.is_empty() && !undefined.contains(&name) {
                        m.warnings.push(format!(
                            "material {name:?} (used at {sat:#X}) is not defined (a material \
                             library would define it); drawn with vertex colours"
                        ));
                        undefined.push(name);
                    }
                }
                // m3d.h reads every other property as "use parameter" (1 is
                // the only one the spec names).
                _ => {
                    if !name.is_empty() && !m.parameters.contains(&name) {
                        m.parameters.push(name);
                    }
                }
            }
            continue;
        }
        // Bit 3 is reserved; m3d.h ignores it, and so do we.
        let len = n * point_len(t, k);
        let face = m.faces.len();
        let rec_at = r.pos() - 1;
        // The field name is formatted only for the error.
        if r.remaining() < len {
            return Err(r.err(
                rec_at + 1,
                &format!("face {face} points"),
                format!(
                    "{n} points of {} bytes run past the chunk's end at {end:#X}",
                    len / n,
                ),
            ));
        }
        match run_reader(t, k)(&mut m.faces, c.data, rec_at..end, n, t, material, (nv, nt)) {
            Ok(next) => r.bytes(next - rec_at - 1, "face points").map(|_| ())?,
            Err((at, j, what, v, limit)) => {
                let point = len / n;
                let face = face + (at - rec_at) / (1 + len);
                return Err(r.err(
                    at + 1 + j * point,
                    &format!("face {face} point {j} {what}"),
                    format!("{v} is out of range ({limit} entries)"),
                ));
            }
        }
    }
    Ok(())
}

/// [`read_run`] for face records of kind `k` in a file of types `t`.
type Run = fn(
    &mut Faces,
    &[u8],
    std::ops::Range<usize>,
    usize,
    &Types,
    Option<u32>,
    (u32, u32),
) -> std::result::Result<usize, RunError>;

/// The [`read_run`] instance for face records of kind `k`: its vertex
/// and UV index widths and which indices it stores are constants in it (a
/// match per point on the UV width was a fifth of the run).
fn run_reader(t: &Types, k: u8) -> Run {
    // A UV flag in a file without a texture index type stores no index
    // (WusonBlitz): no UV column.
    let stored = if t.ti == 0 { k & 6 } else { k & 7 };
    macro_rules! uv {
        ($k:literal, $vi:literal) => {
            match t.ti {
                1 => read_run::<$k, $vi, 1> as Run,
                2 => read_run::<$k, $vi, 2>,
                4 => read_run::<$k, $vi, 4>,
                _ => read_run::<$k, $vi, 0>,
            }
        };
    }
    macro_rules! runs {
        ($vi:literal) => {
            match stored {
                0 => read_run::<0, $vi, 0> as Run,
                1 => uv!(1, $vi),
                2 => read_run::<2, $vi, 0>,
                3 => uv!(3, $vi),
                4 => read_run::<4, $vi, 0>,
                5 => uv!(5, $vi),
                6 => read_run::<6, $vi, 0>,
                _ => uv!(7, $vi),
            }
        };
    }
    match t.vi {
        1 => runs!(1),
        2 => runs!(2),
        _ => runs!(4),
    }
}

/// VOXT: the voxel types up to `end`, colours looked up in `cmap`.
fn voxel_types(r: &mut Reader, p: &Payload, end: usize, cmap: &[u32]) -> Result<Vec<VoxelType>> {
    let t = &p.t;
    let mut types = Vec::new();
    while r.pos() < end {
        let i = types.len();
        // The type's number joins the name only for an error.
        let named = |e| within(e, format_args!("voxel type {i}"));
        let color = p.color(r, cmap, "colour").map_err(named)?;
        let name = p.string(r, "name").map_err(named)?;
        let rot = r.u8("rotation")?;
        let shape = ((rot as u16 & 0x40) << 2) | r.u8("voxel shape")? as u16;
        let n = r.u8("item count")? as usize;
        let skin = index(r, t.sk, "voxel skin")?;
        r.check_count(n, 2 + t.si as usize, "voxel items")?;
        let items = (0..n)
            .map(|_| Ok((r.u16("item count")?, p.string(r, "item name")?)))
            .collect::<Result<_>>()?;
        types.push(VoxelType {
            color,
            name,
            rotation: rot & 0xBF,
            shape,
            skin,
            items,
        });
    }
    Ok(types)
}

/// VOXD: one block of voxels in `body`, its run-length records expanded.
fn voxel_block(r: &mut Reader, p: &Payload, body: std::ops::Range<usize>) -> Result<VoxelBlock> {
    let t = &p.t;
    let name = p.string(r, "block name")?;
    let mut v = [0i64; 6];
    for (k, x) in v.iter_mut().enumerate() {
        let f = ["x", "y", "z", "width", "height", "depth"][k];
        *x = match t.vd {
            1 if k < 3 => r.i8(f)? as i64,
            1 => r.u8(f)? as i64,
            2 if k < 3 => r.i16(f)? as i64,
            2 => r.u16(f)? as i64,
            _ if k < 3 => r.i32(f)? as i64,
            _ => r.u32(f)? as i64,
        };
    }
    let uncertainty = r.u8("uncertainty")?;
    let group = r.u8("group")?;
    let size = [v[3] as u32, v[4] as u32, v[5] as u32];
    // Three 32-bit sizes can overflow even 64 bits: a product past u64 is
    // over the limit too (it wrapped to a small count that the sizes then
    // overran).
    let count = size
        .iter()
        .try_fold(1u64, |n, &s| n.checked_mul(s as u64))
        .unwrap_or(u64::MAX);
    if count > MAX_BLOCK_VOXELS {
        return Err(r.err(
            body.start,
            "block size",
            format!(
                "{}x{}x{} voxels is over the {MAX_BLOCK_VOXELS} voxel limit",
                size[0], size[1], size[2]
            ),
        ));
    }
    let vp = t.vp.min(2);
    // Only the voxels the records describe: a block's data may end before
    // its size does (the rest is unset), and a record of one byte or more
    // describes 128 voxels at most, so the chunk's bytes bound what is
    // reserved (a 117-byte file once claimed 255x255x255 voxels and got 32
    // MiB of them).
    let count = count as usize;
    let left = body.end.saturating_sub(r.pos());
    let mut data = Vec::with_capacity(count.min(left.saturating_mul(128)));
    // A voxel of `vp` bytes as `index` reads it (m3d.h's sign extension
    // makes 254 and 255 of a byte CLEAR and UNSET; no bytes read NONE,
    // UNSET): a literal run is read as one slice, a repeat run filled at
    // once.
    let width = vp as usize;
    let voxel = |b: &[u8]| index_at(b, 0, vp) as u16;
    // The records read from the rest of the chunk in one loop (a `Reader`
    // call a record was a third of lantea.m3d's decode); `r` ends where
    // the chunk does.
    let rest = r.peek_rest();
    let mut i = 0;
    while let Some(&n) = rest.get(i)
        && data.len() < count
    {
        let run = (n & 0x7F) as usize + 1;
        let k = run.min(count - data.len());
        let need = if n & 0x80 != 0 { width } else { run * width };
        let Some(b) = rest.get(i + 1..i + 1 + need) else {
            // As `r` would have said, from the record's end.
            r.bytes(i + 1, "RLE record")?;
            return Err(r.truncated("voxel", need));
        };
        i += 1 + need;
        if n & 0x80 != 0 {
            let v = voxel(b);
            data.extend(std::iter::repeat_n(v, k));
        } else if width == 0 {
            data.extend(std::iter::repeat_n(VOXEL_UNSET, k));
        } else {
            data.extend(b.chunks_exact(width).take(k).map(voxel));
        }
    }
    r.bytes(i, "RLE record")?;
    Ok(VoxelBlock {
        name,
        pos: [v[0] as i32, v[1] as i32, v[2] as i32],
        size,
        uncertainty,
        group,
        data,
    })
}

/// LBLS: a group of labels up to `end`, each on a vertex.
fn labels(r: &mut Reader, p: &Payload, end: usize, m: &mut M3d) -> Result<()> {
    let group = p.string(r, "group name")?;
    let lang = p.string(r, "language")?;
    let color = p.color(r, &m.cmap, "colour")?;
    while r.pos() < end {
        let at = r.pos();
        let vertex = index(r, p.t.vi, "label vertex")?;
        let text = p.string(r, "label text")?;
        if vertex as usize >= m.vertices.len() {
            return Err(r.err(
                at,
                "label vertex",
                format!("{vertex} is out of range ({} vertices)", m.vertices.len()),
            ));
        }
        m.labels.push(Label {
            group: group.clone(),
            lang: lang.clone(),
            color,
            vertex,
            text,
        });
    }
    Ok(())
}

/// ACTN: one action, its frames' transforms in one list; an action
/// without frames is left out, with a warning.
fn action(r: &mut Reader, p: &Payload, m: &mut M3d) -> Result<()> {
    let t = &p.t;
    let name = p.string(r, "action name")?;
    let n = r.u16("frame count")? as usize;
    let duration_ms = r.u32("duration")?;
    r.check_count(n, 4 + t.fc as usize, "frames")?;
    let mut frames = Vec::with_capacity(n);
    let mut transforms = Vec::new();
    // The index widths are constants in the loop over a frame's transforms
    // (a match on each width for each index was most of a small animated
    // file's action).
    type ReadFrame = fn(&[u8], &mut Vec<Transform>, (usize, usize)) -> Option<usize>;
    macro_rules! vertex_widths {
        ($b:literal) => {
            match t.vi {
                1 => read_transforms::<$b, 1> as ReadFrame,
                2 => read_transforms::<$b, 2>,
                _ => read_transforms::<$b, 4>,
            }
        };
    }
    let read_frame = match t.bi {
        0 => vertex_widths!(0),
        1 => vertex_widths!(1),
        2 => vertex_widths!(2),
        _ => vertex_widths!(4),
    };
    for i in 0..n {
        // Field names carry the frame only when there is an error
        // (formatting them for every frame was most of a small file's
        // decode).
        let named = |e| within(e, format_args!("frame {i}"));
        let msec = r.u32("time").map_err(named)?;
        let nt = if t.fc == 0 {
            0
        } else {
            index(r, t.fc, "bone count").map_err(named)? as usize
        };
        let rec = t.bi as usize + 2 * t.vi as usize;
        r.check_count(nt, rec, "transforms").map_err(named)?;
        let at = r.pos();
        let records = r.bytes(nt * rec, "transforms").map_err(named)?;
        if transforms.capacity() == 0 && rec > 0 {
            // Room for every frame with as many transforms as this first
            // one, within what the chunk's bytes could hold.
            transforms.reserve_exact((nt * n).min(nt + r.remaining() / rec));
        }
        let first = transforms.len();
        let (nb, nv) = (m.bones.len(), m.vertices.len());
        if let Some(j) = read_frame(records, &mut transforms, (nb, nv)) {
            let tr = &transforms[first + j];
            return Err(r.err(
                at + j * rec,
                &format!("frame {i} transform"),
                format!(
                    "bone {} / vertices {}, {} out of range ({nb} bones, {nv} vertices)",
                    tr.bone, tr.pos, tr.ori
                ),
            ));
        }
        frames.push(Frame {
            msec,
            transforms: first as u32..transforms.len() as u32,
        });
    }
    if n == 0 {
        m.warnings
            .push(format!("action {name:?} has no frames; skipped"));
    } else {
        m.actions.push(Action {
            name,
            duration_ms,
            frames,
            transforms,
        });
    }
    Ok(())
}
