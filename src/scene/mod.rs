//! The one format-independent model every decoder converts into, and that the
//! animation, GPU and UI layers read. Coordinates are right-handed, Y up,
//! counter-clockwise front faces, UV origin at the top left (wgpu's).

pub mod clip;
pub mod companions;
pub mod from_gltf;
pub mod from_m3d;
pub mod from_p3m;
pub mod from_papa;
pub mod from_pmf;
pub mod images;
pub mod lines;
pub mod map;
pub mod map_overlay;
pub mod map_query;
pub mod material_anim;
pub mod ray;
pub mod text;
pub mod vectors;

pub use clip::Clip;
pub use images::{DecodedImage, decode_image};
pub use material_anim::MaterialAnim;

use glam::{Mat4, Vec2, Vec3};
use std::borrow::Cow;

/// What file the scene came from and how big it is.
#[derive(Debug, Clone, Default)]
pub struct SourceInfo {
    pub file_name: String,
    pub path: Option<std::path::PathBuf>,
    /// "P3M", "M3D", "Papa", "PMF".
    pub format: Cow<'static, str>,
    pub file_size: u64,
    /// Format-specific facts shown in the inspector and `info` (key,
    /// value); keys are mostly fixed words, kept without an allocation.
    pub details: Vec<(Cow<'static, str>, Detail)>,
    /// The file's chunks, for formats made of chunks.
    pub chunks: Vec<ChunkRow>,
}

/// A fact in [`SourceInfo::details`], kept as data and written only where
/// it is shown (the inspector, `info`): a load formats nothing it may never
/// show. For the small files a thumbnailer opens by the thousand, writing
/// every fact up front was a third of the conversion.
#[derive(Debug, Clone, PartialEq)]
pub enum Detail {
    /// Text from the file, or fixed words.
    Text(Cow<'static, str>),
    /// A whole number and the words after it ("128", " bytes").
    Count(u64, &'static str),
    /// A number and the words after it ("0.5", " m per unit").
    Number(f32, &'static str),
    /// Named counts, written "name xN" and separated by commas ("u16 x36,
    /// u32 x1200"): a file's buffers, listed without formatting them.
    Tally(Vec<(&'static str, u64)>),
}

impl std::fmt::Display for Detail {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Detail::Text(s) => f.write_str(s),
            Detail::Count(n, after) => write!(f, "{n}{after}"),
            Detail::Number(x, after) => write!(f, "{x}{after}"),
            Detail::Tally(items) => {
                for (i, (name, n)) in items.iter().enumerate() {
                    let comma = if i > 0 { ", " } else { "" };
                    write!(f, "{comma}{name} x{n}")?;
                }
                Ok(())
            }
        }
    }
}

impl From<String> for Detail {
    fn from(s: String) -> Self {
        Detail::Text(s.into())
    }
}

impl From<&'static str> for Detail {
    fn from(s: &'static str) -> Self {
        Detail::Text(s.into())
    }
}

impl From<usize> for Detail {
    fn from(n: usize) -> Self {
        Detail::Count(n as u64, "")
    }
}

/// A titled table of (key, value) rows for the inspector.
pub type InfoTable = (Cow<'static, str>, Vec<(String, String)>);

#[derive(Debug, Clone, Default)]
pub struct Scene {
    pub source: SourceInfo,
    pub meshes: Vec<Mesh>,
    pub materials: Vec<Material>,
    pub textures: Vec<Texture>,
    pub skeleton: Skeleton,
    pub clips: Vec<Clip>,
    /// Free-form metadata (P3M user-defined fields, M3D strings, ...).
    pub user_fields: Vec<UserField>,
    /// Non-fatal problems found while building the scene (missing textures...).
    pub warnings: Vec<String>,
    /// Annotations attached to points of the model (M3D labels).
    pub labels: Vec<Label>,
    /// A preview image stored in the file (M3D PRVW).
    pub preview: Option<Texture>,
    /// Named rows for format-specific tables in the inspector (M3D voxel
    /// types...): (table, rows of (key, value)).
    pub tables: Vec<InfoTable>,
    /// For texture files: every mip level, decoded (the texture viewer
    /// shows one of them as `textures[0]`).
    pub mip_levels: Vec<Texture>,
    /// A texture file, shown on a quad the viewer added (`textures[0]`,
    /// or the texture viewer's level): not a model to pick parts of.
    pub texture_view: bool,
    /// For maps: the decoded map and how its meshes relate to it.
    pub map: Option<Box<from_pmf::MapInfo>>,
    /// What the viewer added to draw the file (not in the file itself).
    pub added: Added,
    /// The clip to select and play when the scene opens (an animation file
    /// opened on its own plays on the model found for it).
    pub start_clip: Option<usize>,
    /// How the scene was put together when it is more than the opened file
    /// (e.g. "model bot_sun.papa found beside the animation: same name"),
    /// for the status bar and the inspector.
    pub provenance: Option<String>,
    /// Metres in one model unit, where the format says (M3D's scale); the
    /// glTF export writes metres.
    pub metres_per_unit: Option<f32>,
}

/// What the viewer added to draw a file, beside what the file holds:
/// indices into the scene's lists, each with why. `info`'s summary counts the
/// file's own items and reports these apart; the inspector marks them
/// "added by the viewer".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Added {
    pub meshes: Vec<(usize, Cow<'static, str>)>,
    pub materials: Vec<(usize, Cow<'static, str>)>,
    pub textures: Vec<(usize, Cow<'static, str>)>,
    pub clips: Vec<(usize, Cow<'static, str>)>,
    /// Why the skeleton is not the file's own (borrowed from a model)...
    pub skeleton: Option<String>,
    /// ...and then how many bones the file itself names (an animation
    /// file's tracks).
    pub file_bones: usize,
}

/// The counts `info`'s summary reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub parts: usize,
    pub vertices: usize,
    pub triangles: usize,
    pub materials: usize,
    pub textures: usize,
    pub bones: usize,
    pub clips: usize,
}

impl Scene {
    /// One lit triangle with the default material: what a renderer draws
    /// to warm up (software adapters compile shaders at the first draw).
    pub fn one_triangle() -> Scene {
        Scene {
            meshes: vec![Mesh {
                name: "warm-up".into(),
                positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
                normals: vec![Vec3::Z; 3],
                uvs: vec![Vec2::ZERO; 3],
                indices: vec![0, 1, 2],
                visible: true,
                ..Mesh::default()
            }],
            ..Scene::default()
        }
    }

    /// What the file holds, and what the viewer added to draw it
    /// ([`Scene::added`]): together they are the scene's totals, but for
    /// the bones of an animation file opened on its own, whose tracks name
    /// bones of the skeleton the viewer adds with the model (counted in
    /// both: the file's tracks, the model's skeleton).
    pub fn counts(&self) -> (Counts, Counts) {
        let mut file = Counts::default();
        let mut added = Counts::default();
        for (i, m) in self.meshes.iter().enumerate() {
            let c = if self.added.mesh(i).is_some() {
                &mut added
            } else {
                &mut file
            };
            c.parts += 1;
            c.vertices += m.positions.len();
            c.triangles += m.triangle_count();
        }
        let split = |n: usize, is_added: &dyn Fn(usize) -> bool| {
            let a = (0..n).filter(|&i| is_added(i)).count();
            (n - a, a)
        };
        (file.materials, added.materials) =
            split(self.materials.len(), &|i| self.added.material(i).is_some());
        (file.textures, added.textures) =
            split(self.textures.len(), &|i| self.added.texture(i).is_some());
        (file.clips, added.clips) = split(self.clips.len(), &|i| self.added.clip(i).is_some());
        if self.added.skeleton.is_some() {
            added.bones = self.skeleton.bones.len();
            file.bones = self.added.file_bones;
        } else {
            file.bones = self.skeleton.bones.len();
        }
        (file, added)
    }
}

impl Added {
    fn find<'a>(list: &'a [(usize, Cow<'static, str>)], i: usize) -> Option<&'a str> {
        list.iter().find(|(k, _)| *k == i).map(|(_, w)| &**w)
    }
    pub fn mesh(&self, i: usize) -> Option<&str> {
        Self::find(&self.meshes, i)
    }
    pub fn material(&self, i: usize) -> Option<&str> {
        Self::find(&self.materials, i)
    }
    pub fn texture(&self, i: usize) -> Option<&str> {
        Self::find(&self.textures, i)
    }
    pub fn clip(&self, i: usize) -> Option<&str> {
        Self::find(&self.clips, i)
    }
}

/// A text attached to a point of the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    pub position: Vec3,
    pub text: String,
    /// sRGB RGBA.
    pub color: [u8; 4],
    /// Annotation group and language code (may be empty).
    pub group: String,
    pub lang: String,
}

/// A chunk (or section) of the file as found, for the inspector.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRow {
    pub magic: Cow<'static, str>,
    pub offset: usize,
    pub size: u64,
    /// What was done with it ("decoded", "listed, not rendered", "unknown").
    pub note: Cow<'static, str>,
    /// For a table of fixed-size entries (Papa), how many it holds; the
    /// inspector writes them before the note.
    pub entries: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct UserField {
    pub name: String,
    pub ty: String,
    pub value: String,
}

/// A drawable triangle list with one material. A "part" in P3M.
#[derive(Debug, Clone, Default)]
pub struct Mesh {
    pub name: String,
    pub positions: Vec<Vec3>,
    /// Always filled: stored normals, or smooth normals computed from faces.
    pub normals: Vec<Vec3>,
    /// Always filled (zeros when the file has none).
    pub uvs: Vec<Vec2>,
    /// Per-vertex sRGB RGBA multiplied with the material (M3D vertex
    /// colours); `None` is white.
    pub colors: Option<Vec<[u8; 4]>>,
    pub indices: Vec<u32>,
    /// Index into `Scene::materials`; `None` draws with the default material.
    pub material: Option<usize>,
    /// Default visibility.
    pub visible: bool,
    pub has_file_normals: bool,
    pub has_file_uvs: bool,
    pub skin: Option<Skin>,
    /// Materials used instead while a named clip plays: (clip name, priority, material).
    pub material_overrides: Vec<(String, u8, usize)>,
    /// The file's tangent frame per vertex (tangent, binormal; Papa
    /// formats with Tan3/Bin3), for tangent-space normal maps. Without it
    /// the shader builds the frame per pixel from the UV derivatives.
    pub tangents: Option<Vec<[Vec3; 2]>>,
    /// The UV sets after the first, as stored (Papa's second and third sets:
    /// shadow-map and detail coordinates the viewer does not sample).
    pub extra_uvs: Vec<Vec<Vec2>>,
    /// What `indices` hold: triangles (3 a primitive), lines (2) or points (1).
    pub primitive: Primitive,
    /// Part of a closed surface wound counter-clockwise seen from outside,
    /// with the scene's other closed meshes (M3D voxels: a face lies only
    /// between a filled cell and an empty one, facing the empty one). From
    /// outside, while every closed mesh is drawn, each back face is behind
    /// a front face, so the renderer may cull back faces; game assets
    /// otherwise draw both sides.
    pub closed: bool,
    /// Runs of `indices` whose triangles all face one way, in order and
    /// covering every index, or none (M3D voxels: one run per side of the
    /// cube). Where back faces are culled, a run that wholly faces away
    /// from the eye is not drawn at all, where the GPU would shade each of
    /// its vertices and only then drop its triangles.
    pub facing: Vec<Facing>,
    /// Each primitive's corners carry one normal and one colour (M3D
    /// voxels: a corner is shared only by faces of one type that face one
    /// way), so its shading is the same across it unless a texture or map
    /// varies it: a renderer may shade it once per vertex.
    pub faceted: bool,
}

/// A run of a mesh's triangles that all face one way ([`Mesh::facing`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Facing {
    /// The run's indices: `Mesh::indices[start..end]`, whole triangles.
    pub start: u32,
    pub end: u32,
    /// The triangles' outward (counter-clockwise) unit normal.
    pub normal: Vec3,
    /// The least `normal · p` over the run's vertices `p`: each triangle
    /// lies in a plane `normal · p = d` with `d >= offset`, so an eye with
    /// `normal · eye < offset` is behind every one of them.
    pub offset: f32,
}

impl Facing {
    /// Whether every triangle of the run shows its back to a viewer at
    /// `viewpoint`: the eye (w = 1) of a perspective camera, or the unit
    /// direction towards the viewer (w = 0) of an orthographic one. A
    /// viewer within a hair of a triangle's plane, who sees it edge-on,
    /// counts as in front, so no triangle that could cover a pixel is
    /// dropped by rounding.
    pub fn faces_away_from(&self, viewpoint: glam::Vec4) -> bool {
        let along = self.normal.dot(viewpoint.truncate());
        let plane = self.offset * viewpoint.w;
        along - plane < -1e-5 * (along.abs() + plane.abs() + 1e-3)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Primitive {
    #[default]
    Triangles,
    Lines,
    Points,
}

/// Up to four bone influences per vertex, largest first. Weights are kept
/// as the GPU reads them, unorm16: units of 1/65535 summing to exactly
/// 65535 (see [`quantize_weights`]), so the CPU reference
/// ([`unit_weights`]) and the GPU use the same numbers; a vertex with no
/// influence has all weights 0 and stays at rest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skin {
    /// Bones, each below [`MAX_SKINNED_BONES`] to be skinned on the GPU.
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[u16; 4]>,
}

/// What one bone moves ([`Scene::bone_influence`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BoneInfluence {
    /// Vertices weighted to it above zero.
    pub vertices: u32,
    /// Parts holding such vertices.
    pub parts: u32,
    /// Its largest weight on one vertex, in units of 1/65535.
    pub max_weight: u16,
}

/// The most bones a skeleton may have for its skins to be drawn skinned
/// (the GPU's joints are bytes); a skeleton of more is drawn at rest.
pub const MAX_SKINNED_BONES: usize = 256;

/// Weights in units of 1/65535 as fractions.
pub fn unit_weights(w: [u16; 4]) -> [f32; 4] {
    w.map(|x| x as f32 / WEIGHT_UNITS as f32)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BlendMode {
    #[default]
    Opaque,
    /// Additive (P3M ADD): src + dst, no depth writes.
    Additive,
    /// Alpha blending (M3D `Kd` alpha or `d` below 1, or a diffuse map with
    /// transparent texels): drawn after the opaque meshes, back to front by
    /// the distance of each mesh's centre, without depth writes.
    Alpha,
}

/// How a normal map encodes its normals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormalMap {
    /// Planetary Annihilation's two-channel maps (DXT5nm style): X from
    /// alpha, Y from green, Z = sqrt(1 - X² - Y²).
    TwoChannel,
    /// Tangent-space RGB (M3D `map_N`): X, Y, Z from red, green, blue.
    Rgb,
    /// A height (bump) map (M3D `map_Km`): the normal is tilted by the
    /// screen-space slope of its red channel times `strength` (`Km`).
    Height { strength: f32 },
}

/// Which material map: PA's carry specular in R and gloss in G; glTF's
/// specular-glossiness map specular colour in RGB and glossiness in A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaterialMap {
    /// PA unit (`<unit>_material.papa`): B is a "metal" flag whose use in
    /// the game's lighting is not public; the viewer ignores it.
    Unit,
    /// PA CSG (`MaterialTexture`): B is emissive, glowing in the diffuse colour.
    Csg,
    /// glTF `KHR_materials_pbrSpecularGlossiness`' `specularGlossinessTexture`:
    /// RGB (sRGB) times the specular factor (`Maps::specular`'s colour) is
    /// the specular colour, A times `Maps::glossiness` the glossiness.
    SpecularGlossiness,
}

/// The maps and terms a material uses beyond its colour and base texture,
/// as the games' own shaders use them (see docs/formats.md, "Shading").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Maps {
    /// PA team-colour mask: R primary weight, G secondary, B emissive.
    pub team_mask: Option<usize>,
    /// Specular (R) and gloss (G) map.
    pub material: Option<(usize, MaterialMap)>,
    pub normal: Option<(usize, NormalMap)>,
    /// Multiplies `emission` per texel (M3D `map_Ke`).
    pub emission: Option<usize>,
    /// Specular colour (sRGB) and exponent (M3D `Ks`, `Ns`).
    pub specular: Option<([f32; 3], f32)>,
    /// glTF's glossiness factor, on materials of
    /// `KHR_materials_pbrSpecularGlossiness` (`specular` holds the exponent
    /// it gives); a specular-glossiness map's alpha multiplies it, and the
    /// exponent comes from their product per texel.
    pub glossiness: Option<f32>,
    /// Shading notes for the inspector: what was looked for and not found
    /// (a missing companion is a note, never an error).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub name: String,
    /// sRGB-encoded RGBA in 0..1, multiplied with the texture.
    pub base_color: [f32; 4],
    /// sRGB-encoded RGB in 0..1, added after lighting.
    pub emission: [f32; 3],
    /// How directional the light is: 0 = evenly lit, 1 = fully directional.
    pub shading: f32,
    pub texture: Option<usize>,
    pub matcap: Option<usize>,
    pub blend: BlendMode,
    /// Alpha test (glTF's `MASK`): a pixel whose alpha (vertex colour x
    /// base colour x texture) is below this is not drawn; the rest are
    /// opaque. Foliage, hair cards, fences.
    pub alpha_cutoff: Option<f32>,
    /// Normal, mask, material and emission maps, specular.
    pub maps: Maps,
    /// How its textures are sampled.
    pub sampling: Sampling,
    /// Keyframes over the values above (which are the initial values).
    pub animation: Option<MaterialAnim>,
    /// Every property as stored, for the inspector.
    pub properties: Vec<Property>,
}

/// How a material's textures are sampled: glTF's samplers (Blockbench's
/// and voxel editors' pixel art is magnified as squares, decals are
/// clamped); every other format filters linearly and repeats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Sampling {
    /// Magnified texels drawn as squares, not blended.
    pub nearest_mag: bool,
    /// Minified texels (and mip levels) picked, not blended.
    pub nearest_min: bool,
    /// Along U, then V.
    pub wrap: [Wrap; 2],
}

impl Sampling {
    /// In words, for the inspector and `info`: "linear, repeat",
    /// "nearest, clamp to edge along U, mirrored repeat along V".
    pub fn describe(&self) -> String {
        let filter = match (self.nearest_mag, self.nearest_min) {
            (true, true) => "nearest",
            (false, false) => "linear",
            (true, false) => "nearest when magnified, else linear",
            (false, true) => "nearest when minified, else linear",
        };
        let name = |w: Wrap| match w {
            Wrap::Repeat => "repeat",
            Wrap::Clamp => "clamp to edge",
            Wrap::Mirror => "mirrored repeat",
        };
        let [u, v] = self.wrap;
        if u == v {
            format!("{filter}, {}", name(u))
        } else {
            format!("{filter}, {} along U, {} along V", name(u), name(v))
        }
    }
}

/// What a texture coordinate outside 0..1 samples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Wrap {
    #[default]
    Repeat,
    /// The edge texel.
    Clamp,
    /// Every other repeat flipped.
    Mirror,
}

impl Wrap {
    /// Where a texture coordinate `f` (1 across the texture) lands within
    /// it, in `0..=1`.
    pub fn apply(self, f: f32) -> f32 {
        match self {
            Wrap::Repeat => f.rem_euclid(1.0),
            Wrap::Clamp => f.clamp(0.0, 1.0),
            Wrap::Mirror => {
                let p = f.rem_euclid(2.0);
                if p <= 1.0 { p } else { 2.0 - p }
            }
        }
    }
}

/// A material property as the file stores it, for the inspector (which
/// writes its value: a load formats nothing it may never show).
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub name: Cow<'static, str>,
    /// The format's number for the property (M3D's property type).
    pub code: Option<u32>,
    pub value: PropertyValue,
    /// The scene texture a map property names.
    pub texture: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PropertyValue {
    Text(String),
    /// RGBA bytes as stored.
    Color([u8; 4]),
    Float(f32),
    Int(u32),
    /// A Papa vector parameter.
    Vector([f32; 4]),
    /// A Papa matrix parameter, column-major.
    Matrix([f32; 16]),
}

impl std::fmt::Display for PropertyValue {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            PropertyValue::Text(s) => f.write_str(s),
            PropertyValue::Color([r, g, b, a]) => write!(f, "#{r:02X}{g:02X}{b:02X}{a:02X}"),
            PropertyValue::Float(x) => write!(f, "{x}"),
            PropertyValue::Int(i) => write!(f, "{i}"),
            PropertyValue::Vector(v) => {
                write!(f, "{:.4} {:.4} {:.4} {:.4}", v[0], v[1], v[2], v[3])
            }
            PropertyValue::Matrix(m) => write!(f, "{m:?}"),
        }
    }
}

impl std::fmt::Display for Property {
    /// The name as the inspector shows it: with the format's number.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.code {
            Some(c) => write!(f, "{} ({c})", self.name),
            None => f.write_str(&self.name),
        }
    }
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: "default".into(),
            base_color: [0.8, 0.8, 0.8, 1.0],
            emission: [0.0; 3],
            shading: 1.0,
            texture: None,
            matcap: None,
            alpha_cutoff: None,
            blend: BlendMode::Opaque,
            maps: Maps::default(),
            sampling: Sampling::default(),
            animation: None,
            properties: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextureSource {
    Embedded,
    External(std::path::PathBuf),
    /// Could not be loaded: a checkerboard stands in. The string says why.
    Missing(String),
}

#[derive(Debug, Clone)]
pub struct Texture {
    pub name: String,
    pub width: u32,
    pub height: u32,
    /// RGBA8, sRGB-encoded, top row first; empty where the texels are made
    /// only when something needs them (block-compressed data the GPU
    /// samples as stored, the missing-texture checkerboard): read them
    /// through [`Texture::pixels`].
    pub rgba8: Vec<u8>,
    pub source: TextureSource,
    /// Description of the stored format, e.g. "PTF RGBA 64x64".
    pub format: String,
    /// The texels are sRGB-encoded colour (false: data such as masks and
    /// normal maps, sampled as stored).
    pub srgb: bool,
    /// The file's block-compressed data, uploaded as is (all mip levels)
    /// where the GPU samples BC formats; decoded only by [`Texture::pixels`]
    /// (a GPU without BC, a preview of a channel, an export).
    pub compressed: Option<Compressed>,
}

/// Block-compressed texels as stored in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Compressed {
    pub format: BcFormat,
    /// Mip levels, largest first.
    pub levels: Vec<Vec<u8>>,
}

/// Decodes BC1-3 blocks (`bcdec_rs`) to `w` x `h` RGBA8, or `None` when
/// `data` is shorter than the blocks need.
pub fn decode_bc(format: BcFormat, w: usize, h: usize, data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    decode_bc_rows(format, w, h, data, &mut |row| {
        if out.is_empty() {
            out.reserve_exact(w * h * 4);
        }
        out.extend_from_slice(row)
    })?;
    Some(out)
}

/// Decodes BC1-3 blocks a strip of four rows at a time, handing `row` each
/// RGBA8 row of the `w` x `h` image, top first; `None` (before any row)
/// when `data` is shorter than the blocks need.
pub fn decode_bc_rows(
    format: BcFormat,
    w: usize,
    h: usize,
    data: &[u8],
    row: &mut dyn FnMut(&[u8]),
) -> Option<()> {
    let block = if format == BcFormat::Bc1 { 8 } else { 16 };
    let (bw, bh) = (w.div_ceil(4), h.div_ceil(4));
    if data.len() < bw * bh * block {
        return None;
    }
    // Four rows of whole blocks; each row handed over trimmed to `w`.
    let pitch = bw * 16;
    let mut strip = vec![0u8; pitch * 4];
    for (by, blocks) in data.chunks_exact(block * bw).take(bh).enumerate() {
        for (bx, src) in blocks.chunks_exact(block).enumerate() {
            let dst = &mut strip[bx * 16..];
            match format {
                BcFormat::Bc1 => bcdec_rs::bc1(src, dst, pitch),
                BcFormat::Bc2 => bcdec_rs::bc2(src, dst, pitch),
                BcFormat::Bc3 => bcdec_rs::bc3(src, dst, pitch),
            }
        }
        for y in 0..4.min(h - by * 4) {
            row(&strip[y * pitch..][..w * 4]);
        }
    }
    Some(())
}

impl Compressed {
    /// Stored level `level` decoded to RGBA8 (`w` x `h` is its size).
    pub fn decode_level(&self, level: usize, w: u32, h: u32) -> Option<Vec<u8>> {
        decode_bc(self.format, w as usize, h as usize, self.levels.get(level)?)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BcFormat {
    /// DXT1.
    Bc1,
    /// DXT3.
    Bc2,
    /// DXT5.
    Bc3,
}

impl Texture {
    /// The stand-in for a texture that could not be loaded: magenta/black.
    pub fn checkerboard(name: &str, why: String) -> Texture {
        Texture {
            name: name.into(),
            width: CHECKERBOARD,
            height: CHECKERBOARD,
            rgba8: Vec::new(),
            source: TextureSource::Missing(why),
            format: "checkerboard (missing)".into(),
            srgb: true,
            compressed: None,
        }
    }

    /// The base level as RGBA8 (`width` x `height`, top row first): the
    /// decoded texels where the scene keeps them, else made now from what
    /// it keeps (the BC blocks, the checkerboard of a missing texture).
    /// Empty only for a headers-only load.
    pub fn pixels(&self) -> std::borrow::Cow<'_, [u8]> {
        use std::borrow::Cow;
        if !self.rgba8.is_empty() {
            return Cow::Borrowed(&self.rgba8);
        }
        if let Some(c) = &self.compressed {
            return Cow::Owned(
                c.decode_level(0, self.width, self.height)
                    .unwrap_or_default(),
            );
        }
        if matches!(self.source, TextureSource::Missing(_)) {
            return Cow::Owned(checkerboard_texels(self.width, self.height));
        }
        Cow::Borrowed(&[])
    }

    /// The base level's texel at column `x`, row `y` (from the top), RGBA8
    /// as [`Texture::pixels`] gives it; a block-compressed texture decodes
    /// only the 4 x 4 block holding it. `None` outside the texture or where
    /// nothing backs it (a headers-only load, short blocks).
    pub fn texel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let at = |texels: &[u8], i: usize| -> Option<[u8; 4]> {
            texels.get(4 * i..4 * i + 4)?.try_into().ok()
        };
        if !self.rgba8.is_empty() {
            return at(&self.rgba8, y as usize * self.width as usize + x as usize);
        }
        if let Some(c) = &self.compressed {
            let size = if c.format == BcFormat::Bc1 { 8 } else { 16 };
            let per_row = self.width.div_ceil(4) as usize;
            let first = ((y / 4) as usize * per_row + (x / 4) as usize) * size;
            let block = c.levels.first()?.get(first..first + size)?;
            let texels = decode_bc(c.format, 4, 4, block)?;
            return at(&texels, (y % 4) as usize * 4 + (x % 4) as usize);
        }
        at(
            &self.pixels(),
            y as usize * self.width as usize + x as usize,
        )
    }

    /// The texel a sampler with `wrap` (along U, then V) reads nearest to
    /// `uv` (u right, v down from the top-left corner, 1 across): its
    /// column, row and value. `None` for UVs that are not finite.
    pub fn texel_at(&self, uv: Vec2, wrap: [Wrap; 2]) -> Option<(u32, u32, [u8; 4])> {
        if !uv.is_finite() || self.width == 0 || self.height == 0 {
            return None;
        }
        let index =
            |f: f32, wrap: Wrap, n: u32| ((wrap.apply(f) * n as f32).floor() as u32).min(n - 1);
        let (x, y) = (
            index(uv.x, wrap[0], self.width),
            index(uv.y, wrap[1], self.height),
        );
        Some((x, y, self.texel(x, y)?))
    }

    /// Bytes of the base level as RGBA8, made or not.
    pub fn rgba8_len(&self) -> usize {
        self.width as usize * self.height as usize * 4
    }

    /// The base level as an image to save (the texels as decoded, BC
    /// blocks decoded now; data textures such as masks as stored), or
    /// `None` where there are no texels to write (blocks too short, a size
    /// of 0).
    pub fn to_image(&self) -> Option<image::RgbaImage> {
        let pixels = self.pixels();
        if pixels.len() != self.rgba8_len() || self.width == 0 || self.height == 0 {
            return None;
        }
        image::RgbaImage::from_raw(self.width, self.height, pixels.into_owned())
    }
}

/// The missing-texture checkerboard's size in texels.
const CHECKERBOARD: u32 = 64;

/// Magenta and near-black squares of 8 texels: two kinds of row, each copied
/// whole.
fn checkerboard_texels(w: u32, h: u32) -> Vec<u8> {
    let row = |first_on: bool| -> Vec<u8> {
        (0..w)
            .flat_map(|x| {
                if ((x / 8) % 2 == 0) == first_on {
                    [255, 0, 255, 255]
                } else {
                    [16, 16, 16, 255]
                }
            })
            .collect()
    };
    let rows = [row(true), row(false)];
    let mut rgba8 = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        rgba8.extend_from_slice(&rows[(y as usize / 8) % 2]);
    }
    rgba8
}

#[derive(Debug, Clone, Default)]
pub struct Skeleton {
    pub bones: Vec<Bone>,
    /// Root bones whose local transforms sit under a further transform
    /// (Papa's model2scene): (bone, transform). Clips keep it on their
    /// root keys, so an animated root does not drop the model's placement.
    pub root_space: Vec<(usize, Mat4)>,
    /// Whether the file stores each bone's tail (P3M) rather than the viewer
    /// deriving one to draw the bone (M3D, Papa).
    pub tails_from_file: bool,
}

#[derive(Debug, Clone)]
pub struct Bone {
    pub name: String,
    /// Always an index lower than the bone's own (parents come first).
    pub parent: Option<usize>,
    /// Rest head and tail in model space.
    pub head: Vec3,
    pub tail: Vec3,
    /// The bone's rest frame in model space (its local +Y along head -> tail
    /// for formats that store heads and tails).
    pub rest: Mat4,
}

/// Bones of formats that store only rest matrices (M3D, Papa, glTF): the
/// head is a bone's origin and the tail its first child's head, else
/// `step` along the bone's own +Y so the overlay still draws a stick.
/// `world` holds every bone's model-space rest matrix, `parents` every
/// bone's parent. The first children are found once, for every bone
/// (a file's skeleton may be a chain of a million).
pub struct RestBones<'a> {
    parents: &'a [Option<usize>],
    world: &'a [Mat4],
    first_child: Vec<Option<usize>>,
    step: f32,
}

impl<'a> RestBones<'a> {
    pub fn new(parents: &'a [Option<usize>], world: &'a [Mat4], step: f32) -> Self {
        let mut first_child = vec![None; parents.len()];
        for (c, p) in parents.iter().enumerate() {
            if let Some(slot) = p.and_then(|p| first_child.get_mut(p))
                && slot.is_none()
            {
                *slot = Some(c);
            }
        }
        RestBones {
            parents,
            world,
            first_child,
            step,
        }
    }

    /// Bone `i`, named `name` ("bone N" where that is empty).
    pub fn bone(&self, i: usize, name: &str) -> Bone {
        let world = self.world;
        let head = world[i].w_axis.truncate();
        let tail = self.first_child[i]
            .map(|c| world[c].w_axis.truncate())
            .filter(|t| t.distance(head) > 1e-6)
            .unwrap_or(head + world[i].y_axis.truncate().normalize_or(Vec3::Y) * self.step);
        Bone {
            name: if name.is_empty() {
                format!("bone {i}")
            } else {
                name.to_owned()
            },
            parent: self.parents[i],
            head,
            tail,
            rest: world[i],
        }
    }
}

impl Skeleton {
    /// The rest transform of each bone relative to its parent.
    pub fn rest_local(&self, i: usize) -> Mat4 {
        let b = &self.bones[i];
        match b.parent {
            Some(p) => self.bones[p].rest.inverse() * b.rest,
            None => b.rest,
        }
    }
}

/// Axis-aligned bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x
    }

    pub fn extend(&mut self, p: Vec3) {
        if p.is_finite() {
            self.min = self.min.min(p);
            self.max = self.max.max(p);
        }
    }

    /// The box of the finite `points` ([`Aabb::extend`]'s), in 4-lane
    /// vectors: one min and one max a point, where `Vec3`'s are three
    /// NaN-aware scalar ones each (a thumbnail of lantea.m3d's 61K
    /// vertices took its bounds three times, 2.1M instructions each).
    pub fn of_points(points: &[Vec3]) -> Aabb {
        let (mut lo, mut hi) = (glam::Vec3A::INFINITY, glam::Vec3A::NEG_INFINITY);
        for &p in points {
            let p = glam::Vec3A::from(p);
            if p.is_finite() {
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
        Aabb {
            min: lo.into(),
            max: hi.into(),
        }
    }

    pub fn union(&self, o: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    /// The 8 corners; corner `i` takes max x where bit 0 of `i` is set, max
    /// y for bit 1, max z for bit 2.
    pub fn corners(&self) -> [Vec3; 8] {
        std::array::from_fn(|i| {
            Vec3::new(
                if i & 1 != 0 { self.max.x } else { self.min.x },
                if i & 2 != 0 { self.max.y } else { self.min.y },
                if i & 4 != 0 { self.max.z } else { self.min.z },
            )
        })
    }

    pub fn center(&self) -> Vec3 {
        if self.is_empty() {
            Vec3::ZERO
        } else {
            (self.min + self.max) * 0.5
        }
    }

    /// The squared distance from `p` to the nearest point of the box: 0
    /// inside it, infinite for an empty box.
    pub fn distance_squared_to(&self, p: Vec3) -> f32 {
        if self.is_empty() {
            return f32::INFINITY;
        }
        (p.clamp(self.min, self.max) - p).length_squared()
    }

    pub fn radius(&self) -> f32 {
        if self.is_empty() {
            1.0
        } else {
            ((self.max - self.min).length() * 0.5).max(1e-4)
        }
    }
}

impl Mesh {
    /// The box of the finite positions ([`Aabb::of_points`]).
    pub fn bounds(&self) -> Aabb {
        Aabb::of_points(&self.positions)
    }

    pub fn triangle_count(&self) -> usize {
        match self.primitive {
            Primitive::Triangles => self.indices.len() / 3,
            Primitive::Lines | Primitive::Points => 0,
        }
    }

    /// The index list as triangles (empty for points and lines).
    pub fn triangles(&self) -> std::slice::ChunksExact<'_, u32> {
        match self.primitive {
            Primitive::Triangles => self.indices.chunks_exact(3),
            Primitive::Lines | Primitive::Points => self.indices[..0].chunks_exact(3),
        }
    }
}

impl Scene {
    /// Bounds of the meshes whose visibility flag is set in `visible`
    /// (all meshes when `visible` is `None`).
    pub fn bounds(&self, visible: Option<&[bool]>) -> Aabb {
        self.bounds_from(visible, |i| self.meshes[i].bounds())
    }

    /// [`Self::bounds`] with each mesh's own box from `mesh_bounds` (mesh
    /// `i`'s), for a caller that keeps them: a pass over every position
    /// each time otherwise.
    pub fn bounds_from(
        &self,
        visible: Option<&[bool]>,
        mesh_bounds: impl Fn(usize) -> Aabb,
    ) -> Aabb {
        let mut b = Aabb::EMPTY;
        for i in 0..self.meshes.len() {
            if visible.is_none_or(|v| v.get(i).copied().unwrap_or(true)) {
                b = b.union(&mesh_bounds(i));
            }
        }
        // A skeleton alone (an animation without its model) is framed by
        // its bones.
        if self.meshes.is_empty() {
            for bone in &self.skeleton.bones {
                b.extend(bone.head);
                b.extend(bone.tail);
            }
        }
        b
    }

    /// What each bone moves (by bone index): the vertices weighted to it
    /// above zero, in how many parts, and its largest weight on one vertex
    /// (a bone named twice in a vertex counts its weights together, as
    /// skinning does). Skins the renderer does not skin (of another length
    /// than their mesh) count for nothing, nor joints past the skeleton.
    pub fn bone_influence(&self) -> Vec<BoneInfluence> {
        let mut out = vec![BoneInfluence::default(); self.skeleton.bones.len()];
        // The last part that counted each bone, to count parts once.
        let mut last_part = vec![usize::MAX; out.len()];
        for (part, m) in self.meshes.iter().enumerate() {
            let Some(skin) = &m.skin else { continue };
            let n = m.positions.len();
            if skin.joints.len() != n || skin.weights.len() != n {
                continue;
            }
            for (joints, weights) in skin.joints.iter().zip(&skin.weights) {
                for k in 0..4 {
                    let (j, w) = (joints[k] as usize, weights[k]);
                    // Each bone once a vertex: at its first slot, with the
                    // weights of its later slots added.
                    if w == 0
                        || j >= out.len()
                        || (0..k).any(|e| joints[e] as usize == j && weights[e] > 0)
                    {
                        continue;
                    }
                    let total: u32 = (k..4)
                        .filter(|&e| joints[e] as usize == j)
                        .map(|e| weights[e] as u32)
                        .sum();
                    let b = &mut out[j];
                    b.vertices += 1;
                    b.max_weight = b.max_weight.max(total.min(WEIGHT_UNITS as u32) as u16);
                    if last_part[j] != part {
                        last_part[j] = part;
                        b.parts += 1;
                    }
                }
            }
        }
        out
    }

    /// Metres in one model unit, where the format says and the number
    /// makes sense (finite, above zero).
    pub fn unit_in_metres(&self) -> Option<f32> {
        self.metres_per_unit.filter(|m| m.is_finite() && *m > 0.0)
    }

    /// A texture file's texture as the view shows it: the texture viewer's
    /// `level` where the file has levels, else the texture itself.
    pub fn viewed_texture(&self, level: usize) -> Option<&Texture> {
        if !self.texture_view {
            return None;
        }
        if self.mip_levels.is_empty() {
            self.textures.first()
        } else {
            self.mip_levels.get(level)
        }
    }

    pub fn vertex_count(&self) -> usize {
        self.meshes.iter().map(|m| m.positions.len()).sum()
    }

    pub fn triangle_count(&self) -> usize {
        self.meshes.iter().map(|m| m.triangle_count()).sum()
    }
}

/// Area-weighted smooth normals for an indexed triangle list.
pub fn smooth_normals(positions: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
    let mut n = vec![Vec3::ZERO; positions.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0] as usize, t[1] as usize, t[2] as usize];
        if a >= n.len() || b >= n.len() || c >= n.len() {
            continue;
        }
        let f = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
        n[a] += f;
        n[b] += f;
        n[c] += f;
    }
    n.into_iter()
        .map(|v| v.try_normalize().unwrap_or(Vec3::Y))
        .collect()
}

/// Weights are stored in units of 1/65535 (the GPU's unorm16): fine enough
/// for float-weight references (m3d.h), and exact for 8-bit weights (w/255
/// is 257·w/65535).
pub const WEIGHT_UNITS: i32 = 65535;

/// sRGB-encoded value (0..1) to linear light.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light (0..1) to its sRGB encoding.
pub fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// Quantises up to four weights to units of 1/65535 that sum to exactly
/// 65535 (largest remainder), keeping their order. All-zero input stays zero.
pub fn quantize_weights(w: [f32; 4]) -> [u16; 4] {
    let sum: f32 = w.iter().map(|x| x.max(0.0)).sum();
    if sum <= 0.0 || !sum.is_finite() {
        return [0; 4];
    }
    let scaled = w.map(|x| x.max(0.0) / sum * WEIGHT_UNITS as f32);
    let mut q = scaled.map(|x| x.floor() as i32);
    let mut left = WEIGHT_UNITS - q.iter().sum::<i32>();
    let mut order = [0usize, 1, 2, 3];
    order.sort_by(|&a, &b| (scaled[b] - q[b] as f32).total_cmp(&(scaled[a] - q[a] as f32)));
    for &i in order.iter().cycle() {
        if left <= 0 {
            break;
        }
        q[i] += 1;
        left -= 1;
    }
    q.map(|x| x as u16)
}

/// ceil(2^40 / s) for every sum s of four shares of at most 256 (index 0
/// unused).
const WEIGHT_RECIPROCALS: [u64; 1025] = {
    let mut t = [0u64; 1025];
    let mut s = 1;
    while s < 1025 {
        t[s] = (1u64 << 40).div_ceil(s as u64);
        s += 1;
    }
    t
};

/// Four u8 weights as the scene keeps them: [`quantize_weights`]' largest
/// remainder in exact integers (no float rounding, no sort). Real files'
/// weights sum to exactly 255 (Papa notes §5; M3D skins from Blender), and
/// w/255 is then exactly 257·w/65535 with nothing left to hand out.
pub(crate) fn byte_weights(w: [u8; 4]) -> [u16; 4] {
    share_weights(w.map(u16::from))
}

/// Puts (joint, share) among four slots kept largest share first, ties in
/// arrival order: lighter ones move down a slot and a fifth falls off.
/// Empty slots hold share 0, so an influence of share 0 is never kept.
pub(crate) fn insert_influence(slots: &mut [(u16, u16); 4], joint: u16, share: u16) {
    let k = slots.iter().take_while(|x| x.1 >= share).count();
    if k < 4 {
        for s in (k + 1..4).rev() {
            slots[s] = slots[s - 1];
        }
        slots[k] = (joint, share);
    }
}

/// Four integer shares of at most 256 each (P3M's weight bytes plus one,
/// u8 weights) as weights in units of 1/65535: each share's part of their
/// sum, largest remainder in exact integers, ties to the first.
pub(crate) fn share_weights(w: [u16; 4]) -> [u16; 4] {
    if w[0] > 0 && w[1..] == [0; 3] {
        // One influence (most vertices of most models): all of it.
        return [WEIGHT_UNITS as u16, 0, 0, 0];
    }
    let sum: u32 = w.iter().map(|&x| x.min(256) as u32).sum();
    if sum == 0 {
        return [0; 4];
    }
    if sum == 255 {
        // Every real Papa vertex and Blender's M3D skins: 257·w units
        // exactly, nothing left over.
        return w.map(|x| 257 * x);
    }
    let w = w.map(|x| x.min(256));
    // Floor and remainder of w·65535/sum for each weight by one exact
    // reciprocal: m = ceil(2^40/sum) gives floor(n·m / 2^40) = floor(n/sum)
    // for every n < 2^24 (the error n·(m·sum - 2^40) / 2^40 stays below 1/sum
    // because n·(sum - 1) < 2^34), so no division per weight and no float.
    let units = WEIGHT_UNITS as u32;
    let m = WEIGHT_RECIPROCALS[sum as usize];
    let mut q = [0u32; 4];
    let mut rem = [0i64; 4];
    for k in 0..4 {
        let n = w[k] as u64 * units as u64;
        let f = (n * m) >> 40;
        q[k] = f as u32;
        rem[k] = (n - f * sum as u64) as i64;
    }
    // Each share's remainder is below one unit, so fewer than four units
    // are left: one each to the largest remainders, ties to the first. A
    // weight's rank (remainders above it, equal ones before it) says
    // whether it gets one, without a branch per comparison.
    // Plain loops: the closure and `map` this was written with were
    // called, not inlined (a sixth of CesiumMan's conversion).
    let left = units - q.iter().sum::<u32>();
    let mut out = [0u16; 4];
    for k in 0..4 {
        let mut rank = 0;
        for j in 0..4 {
            rank += (rem[j] > rem[k] || (rem[j] == rem[k] && j < k)) as u32;
        }
        out[k] = (q[k] + (rank < left) as u32) as u16;
    }
    out
}

#[cfg(test)]
mod aabb_tests {
    use super::*;

    /// The box [1,2] x [-1,1] x [-1,1], by hand.
    #[test]
    fn distance_to_a_box_is_to_its_nearest_point() {
        let b = Aabb {
            min: Vec3::new(1.0, -1.0, -1.0),
            max: Vec3::new(2.0, 1.0, 1.0),
        };
        assert_eq!(b.distance_squared_to(Vec3::ZERO), 1.0); // the x = 1 face
        assert_eq!(b.distance_squared_to(Vec3::new(3.0, 2.0, 0.0)), 2.0); // an edge
        assert_eq!(b.distance_squared_to(Vec3::new(4.0, 3.0, -3.0)), 12.0); // a corner
        assert_eq!(b.distance_squared_to(Vec3::new(1.5, 0.0, 0.5)), 0.0); // inside
        assert_eq!(Aabb::EMPTY.distance_squared_to(Vec3::ZERO), f32::INFINITY);
    }

    /// A mesh's box is its finite positions' (a point with any NaN or
    /// infinite coordinate is left out whole), by hand; none: empty. A
    /// scene's is the union of its meshes', the hidden left out.
    #[test]
    fn a_mesh_is_bounded_by_its_finite_positions() {
        let mesh = |positions: Vec<Vec3>| Mesh {
            positions,
            ..Mesh::default()
        };
        let m = mesh(vec![
            Vec3::new(1.0, -2.0, 3.0),
            Vec3::new(f32::NAN, 100.0, 100.0),
            Vec3::new(-4.0, 5.0, 0.5),
            Vec3::new(-100.0, f32::INFINITY, 0.0),
            Vec3::new(0.0, 0.0, -6.0),
        ]);
        let b = m.bounds();
        assert_eq!(b.min, Vec3::new(-4.0, -2.0, -6.0));
        assert_eq!(b.max, Vec3::new(1.0, 5.0, 3.0));
        assert_eq!(mesh(Vec::new()).bounds(), Aabb::EMPTY);
        assert_eq!(mesh(vec![Vec3::NAN]).bounds(), Aabb::EMPTY);
        let scene = Scene {
            meshes: vec![m, mesh(vec![Vec3::splat(9.0)])],
            ..Scene::default()
        };
        assert_eq!(scene.bounds(None).max, Vec3::splat(9.0));
        assert_eq!(scene.bounds(Some(&[true, false])), b);
    }
}

#[cfg(test)]
mod influence_tests {
    use super::*;

    /// Three bones; two skinned parts and one whose skin is shorter than
    /// its mesh (not skinned by the renderer, so not counted). Counts by
    /// hand from the weights below.
    #[test]
    fn each_bone_counts_the_vertices_and_parts_it_moves() {
        let bone = |name: &str| Bone {
            name: name.into(),
            parent: None,
            head: Vec3::ZERO,
            tail: Vec3::Y,
            rest: Mat4::IDENTITY,
        };
        let part = |joints: Vec<[u16; 4]>, weights: Vec<[u16; 4]>| Mesh {
            positions: vec![Vec3::ZERO; joints.len()],
            skin: Some(Skin { joints, weights }),
            ..Mesh::default()
        };
        let mut short = part(vec![[2, 0, 0, 0]], vec![[65535, 0, 0, 0]]);
        short.positions.push(Vec3::ONE);
        let scene = Scene {
            skeleton: Skeleton {
                bones: vec![bone("root"), bone("arm"), bone("unused")],
                ..Default::default()
            },
            meshes: vec![
                // Vertex 0: root 0.75, arm 0.25; vertex 1: arm named twice
                // (30000 + 35535: the whole weight); vertex 2: a joint past
                // the skeleton, and root with no weight.
                part(
                    vec![[0, 1, 0, 0], [1, 1, 0, 0], [7, 0, 0, 0]],
                    vec![[49151, 16384, 0, 0], [30000, 35535, 0, 0], [65535, 0, 0, 0]],
                ),
                // Vertex 0: arm alone.
                part(vec![[1, 0, 0, 0]], vec![[65535, 0, 0, 0]]),
                short,
            ],
            ..Scene::default()
        };
        let i = scene.bone_influence();
        let b = |vertices, parts, max_weight| BoneInfluence {
            vertices,
            parts,
            max_weight,
        };
        assert_eq!(i, vec![b(1, 1, 49151), b(3, 2, 65535), b(0, 0, 0)]);
    }
}

#[cfg(test)]
mod facing_tests {
    use super::*;
    use glam::Vec4;

    /// Triangles in planes x = d, d >= 1, facing +X, by hand.
    #[test]
    fn a_run_faces_away_from_an_eye_behind_all_its_planes() {
        let run = Facing {
            start: 0,
            end: 6,
            normal: Vec3::X,
            offset: 1.0,
        };
        let away = |v: Vec4| run.faces_away_from(v);
        assert!(!away(Vec4::new(5.0, 3.0, -2.0, 1.0)), "in front");
        assert!(
            away(Vec4::new(0.5, 9.0, 9.0, 1.0)),
            "behind, off to the side"
        );
        assert!(away(Vec4::new(-5.0, 0.0, 0.0, 1.0)), "behind");
        // In the nearest plane the eye sees it edge-on: kept, as it is
        // a hair behind it.
        assert!(!away(Vec4::new(1.0, 0.0, 0.0, 1.0)), "edge-on");
        assert!(!away(Vec4::new(1.0 - 1e-7, 0.0, 0.0, 1.0)), "a hair behind");
        assert!(
            away(Vec4::new(0.999, 0.0, 0.0, 1.0)),
            "behind by a thousandth"
        );
        // Orthographic, towards the viewer: only the direction counts.
        assert!(away(Vec4::new(-1.0, 0.0, 0.0, 0.0)));
        assert!(away(Vec4::new(-0.6, 0.8, 0.0, 0.0)));
        assert!(!away(Vec4::new(0.6, 0.8, 0.0, 0.0)));
        assert!(!away(Vec4::new(0.0, 1.0, 0.0, 0.0)), "edge-on");
    }
}

#[cfg(test)]
mod weight_tests {
    use super::*;

    /// Four slots by hand: ties stay in arrival order, the lightest of
    /// five falls off, a zero share is never kept.
    #[test]
    fn influences_keep_the_four_largest_in_arrival_order() {
        let mut s = [(0u16, 0u16); 4];
        for (j, w) in [(1, 10), (2, 30), (3, 10), (4, 0), (5, 20), (6, 5)] {
            insert_influence(&mut s, j, w);
        }
        assert_eq!(s, [(2, 30), (5, 20), (1, 10), (3, 10)]);
    }

    /// P3M's shares (weight byte + 1) worked by hand: 128 and 64 of 192
    /// are two thirds and one third, 43690 and 21845 units with nothing
    /// left; four shares of 256 are 16383.75 units each, and the three
    /// units left go to the first three (equal remainders, ties first).
    #[test]
    fn share_weights_worked_by_hand() {
        assert_eq!(share_weights([128, 64, 0, 0]), [43690, 21845, 0, 0]);
        assert_eq!(share_weights([256; 4]), [16384, 16384, 16384, 16383]);
        assert_eq!(share_weights([0; 4]), [0; 4]);
        // One influence, whatever its byte: all 65535 units.
        assert_eq!(share_weights([1, 0, 0, 0]), [65535, 0, 0, 0]);
        assert_eq!(share_weights([256, 0, 0, 0]), [65535, 0, 0, 0]);
    }

    /// The reciprocal `share_weights` divides by, against integer division
    /// for every share and every sum four shares can make.
    #[test]
    fn the_weight_reciprocal_is_exact_for_every_sum() {
        for sum in 1..=1024u64 {
            let m = WEIGHT_RECIPROCALS[sum as usize];
            for w in 0..=256u64 {
                let n = w * 65535;
                assert_eq!((n * m) >> 40, n / sum, "w {w} sum {sum}");
            }
        }
    }

    #[test]
    fn byte_weights_are_the_general_quantisation_for_every_split_of_255() {
        for a in 0..=255u8 {
            for b in (0..=255 - a).step_by(7) {
                let c = (255 - a - b) / 2;
                let d = 255 - a - b - c;
                let w = [a, b, c, d];
                assert_eq!(
                    byte_weights(w),
                    quantize_weights(w.map(|x| x as f32 / 255.0)),
                    "{w:?}"
                );
            }
        }
    }

    #[test]
    fn byte_weights_of_other_sums_are_the_largest_remainder_worked_by_hand() {
        let units = |w: [u8; 4]| byte_weights(w).map(u32::from);
        // 65535 / 3 = 21845 exactly.
        assert_eq!(units([1, 1, 1, 0]), [21845, 21845, 21845, 0]);
        // 65535 / 2 = 32767 remainder 1 each: the one unit left goes to
        // the first of the tied remainders.
        assert_eq!(units([0, 7, 7, 0]), [0, 32768, 32767, 0]);
        // 200 and 54 of 254: 51602.36 and 13932.64 (remainders 92 and 162
        // of 254): the unit left goes to the second.
        assert_eq!(units([200, 54, 0, 0]), [51602, 13933, 0, 0]);
        assert_eq!(units([0; 4]), [0; 4]);
        // Every result sums to exactly one.
        for w in [
            [3, 5, 7, 11],
            [255, 255, 255, 255],
            [1, 0, 0, 0],
            [128, 127, 1, 0],
        ] {
            assert_eq!(units(w).iter().sum::<u32>(), 65535, "{w:?}");
        }
    }

    /// The float quantiser rounds w/255/sum·65535 in f32 and can land a
    /// unit either side when a share is within rounding of an integer; the
    /// integer one is exact. They never differ by more than that unit.
    #[test]
    fn byte_weights_are_within_a_unit_of_the_float_quantiser() {
        for a in 0..=255u8 {
            for b in (0..=255u8).step_by(5) {
                for c in (0..=255u8).step_by(37) {
                    let w = [a, b, c, 3];
                    let exact = byte_weights(w);
                    let float = quantize_weights(w.map(|x| x as f32 / 255.0));
                    for k in 0..4 {
                        assert!(
                            (exact[k] as i32 - float[k] as i32).abs() <= 1,
                            "{w:?}: {exact:?} {float:?}"
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod texel_tests {
    use super::*;

    /// A texture `w` x `h` of `rgba8` (or, with `blocks`, BC1 blocks).
    fn texture(w: u32, h: u32, rgba8: Vec<u8>, blocks: Option<Vec<u8>>) -> Texture {
        Texture {
            name: "t".into(),
            width: w,
            height: h,
            rgba8,
            source: TextureSource::Embedded,
            format: "test".into(),
            srgb: true,
            compressed: blocks.map(|b| Compressed {
                format: BcFormat::Bc1,
                levels: vec![b],
            }),
        }
    }

    #[test]
    fn a_bc1_texel_is_read_from_its_own_block() {
        // 8 x 4: two BC1 blocks side by side, assembled by hand. Block 0:
        // colour 0 = 0xF800 (red), colour 1 = 0x001F (blue), every index 0
        // (colour 0) but texel (1, 2)'s, bits 2 * (4 * 2 + 1) = 18, which
        // is 1 (colour 1). Block 1: colour 0 = 0x07E0 (green), indices 0.
        let mut blocks = vec![0x00, 0xF8, 0x1F, 0x00];
        blocks.extend((1u32 << 18).to_le_bytes());
        blocks.extend([0xE0, 0x07, 0x00, 0x00, 0, 0, 0, 0]);
        let t = texture(8, 4, Vec::new(), Some(blocks.clone()));
        assert_eq!(t.texel(0, 0), Some([255, 0, 0, 255]));
        assert_eq!(t.texel(1, 2), Some([0, 0, 255, 255]));
        assert_eq!(t.texel(2, 2), Some([255, 0, 0, 255]));
        assert_eq!(t.texel(5, 3), Some([0, 255, 0, 255]));
        assert_eq!(t.texel(8, 0), None, "past the right edge");
        assert_eq!(t.texel(0, 4), None, "past the bottom");
        // Blocks cut short: the second block is not there.
        let short = texture(8, 4, Vec::new(), Some(blocks[..12].to_vec()));
        assert_eq!(short.texel(0, 0), Some([255, 0, 0, 255]));
        assert_eq!(short.texel(5, 0), None);
    }

    #[test]
    fn a_uv_lands_on_the_texel_its_wrap_gives() {
        // 4 x 2, texel (x, y) = (10x, 10y, 0, 255).
        let texels = (0..2u8)
            .flat_map(|y| (0..4u8).flat_map(move |x| [10 * x, 10 * y, 0, 255]))
            .collect();
        let t = texture(4, 2, texels, None);
        let at = |u: f32, v: f32, wrap: Wrap| t.texel_at(Vec2::new(u, v), [wrap; 2]);
        // 0.3 of 4 columns: 1.2 -> 1; 0.6 of 2 rows: 1.2 -> 1.
        assert_eq!(at(0.3, 0.6, Wrap::Repeat), Some((1, 1, [10, 10, 0, 255])));
        // Repeat: 1.3 -> 0.3 (column 1), -0.4 -> 0.6 (row 1).
        assert_eq!(at(1.3, -0.4, Wrap::Repeat), Some((1, 1, [10, 10, 0, 255])));
        // Clamp: the last column, the first row.
        assert_eq!(at(1.3, -0.4, Wrap::Clamp), Some((3, 0, [30, 0, 0, 255])));
        // Mirror: 1.3 -> 0.7 (2.8 -> column 2); -0.4 -> 1.6 -> 0.4 (row 0).
        assert_eq!(at(1.3, -0.4, Wrap::Mirror), Some((2, 0, [20, 0, 0, 255])));
        // Exactly 1 clamps to the last texel, not past it.
        assert_eq!(at(1.0, 1.0, Wrap::Clamp), Some((3, 1, [30, 10, 0, 255])));
        assert_eq!(at(f32::NAN, 0.5, Wrap::Repeat), None);
        assert_eq!(at(0.5, f32::INFINITY, Wrap::Clamp), None);
    }
}
