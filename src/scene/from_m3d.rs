//! Model 3D -> [`Scene`].
//!
//! M3D space is the scene's (right-handed, Y up, +Z towards the viewer,
//! counter-clockwise fronts), so positions pass through. TMAP's V grows
//! downwards ("-V is up"), which is wgpu's texture space: UVs pass through
//! too. Faces are grouped into one mesh per material, in order of first use;
//! voxels become one mesh per voxel type. See `docs/formats.md`.

use super::clip::{BoneState, FrameSequence, PoseFrame, Segment, m3d_mat};
use super::companions::{Companions, Found, Lookup};
use super::*;
use crate::formats::m3d::{self, M3d, NONE, PropValue, VOXEL_CLEAR, VOXEL_UNSET};
use glam::{Quat, Vec3A, Vec4};
use rayon::prelude::*;
use std::collections::HashMap;

/// sRGB RGBA bytes of an M3D colour (red in the low byte).
pub fn rgba(c: u32) -> [u8; 4] {
    c.to_le_bytes()
}

fn rgba_f(c: u32) -> [f32; 4] {
    rgba(c).map(|b| b as f32 / 255.0)
}

fn vec3(v: &m3d::Vertex) -> Vec3 {
    Vec3::new(v.pos[0], v.pos[1], v.pos[2])
}

fn quat(v: &m3d::Vertex) -> Quat {
    Quat::from_xyzw(v.pos[0], v.pos[1], v.pos[2], v.pos[3])
}

/// Loads a texture by name: an inlined PNG (ASET), else `NAME.png` or `NAME`
/// next to the model; a checkerboard and a warning when neither works.
fn load_texture(
    m: &M3d,
    name: &str,
    companions: &dyn Companions,
    warnings: &mut Vec<String>,
) -> Texture {
    // The texture, and a warning when it was decoded smaller than declared.
    let decode = |bytes: &[u8], source: TextureSource, what: String| {
        let img = super::companions::decode_texels(
            companions,
            |texels| super::decode_image(bytes, image::ImageFormat::Png, texels),
            |img| img.rgba8.len(),
        )
        .map_err(|e| format!("{what}: {e}"))?;
        let (w, h) = (img.width, img.height);
        let note = img
            .declared
            .map(|d| super::images::reduced_warning(name, "PNG", d, (w, h)));
        Ok::<_, String>((
            Texture {
                name: name.into(),
                width: w,
                height: h,
                format: format!("PNG {w}x{h} ({what}{})", img.declared_note()),
                rgba8: img.rgba8,
                source,
                srgb: true,
                compressed: None,
            },
            note,
        ))
    };
    let mut why = Vec::new();
    if let Some(a) = m.assets.iter().find(|a| a.name == name) {
        match decode(&a.data, TextureSource::Embedded, "inlined".into()) {
            Ok((t, note)) => {
                warnings.extend(note);
                return t;
            }
            Err(e) => why.push(e),
        }
    }
    let mut tried = Vec::new();
    // m3d.h's `_m3d_gettx`: `NAME.png` first, but only when the name is
    // shorter than 5 bytes or has no '.' 4 bytes from its end (no
    // three-letter extension); then the name as it is.
    let b = name.as_bytes();
    let png = (b.len() < 5 || b[b.len() - 4] != b'.').then(|| format!("{name}.png"));
    for candidate in png.into_iter().chain([name.to_string()]) {
        match companions.find(Lookup::Beside(&candidate)) {
            Ok(Found { path, bytes }) => {
                match decode(&bytes, TextureSource::External(path.clone()), candidate) {
                    Ok((t, note)) => {
                        warnings.extend(note);
                        return t;
                    }
                    Err(e) => why.push(format!("{}: {e}", path.display())),
                }
            }
            Err(missing) => tried.push(missing.to_string()),
        }
    }
    let why = if why.is_empty() {
        format!("not inlined, and {}", tried.join("; "))
    } else {
        why.join("; ")
    };
    warnings.push(format!("texture {name:?}: {why}; showing a checkerboard"));
    Texture::checkerboard(name, why)
}

/// A property value as the scene keeps it for the inspector.
fn prop_value(v: &PropValue) -> PropertyValue {
    match v {
        PropValue::Color(c) => PropertyValue::Color(rgba(*c)),
        PropValue::Float(f) => PropertyValue::Float(*f),
        PropValue::Int(i) => PropertyValue::Int(*i),
        PropValue::Map(n) => PropertyValue::Text(n.clone()),
    }
}

/// Material groups found by a scan before a table takes over (a load of a
/// few materials makes no table).
const TABLE_AFTER: usize = 16;

/// Room a group's output vertex list, and the welder's list of a vertex's
/// other output vertices, start with at least (as far as the corners
/// could use): a small model, whose vertex count says little of how many
/// (vertex, UV, normal) keys its corners make, never grows them. A cube
/// with a normal a side makes 24 output vertices from 14 VRTS vertices;
/// growing the two lists was five allocations and copies, a twentieth of
/// cube_normals.m3d's whole load.
const SMALL_MESH: usize = 64;

pub fn convert(m: &M3d, source: SourceInfo, companions: &dyn Companions) -> Scene {
    let mut warnings = m.warnings.clone();

    // Textures: every map property, by name, once. The meshes, which need
    // none, are made meanwhile on another thread (viper.m3d's PNG takes
    // about as long as its payload's inflating); without textures, here
    // after.
    let mut textures: Vec<Texture> = Vec::new();
    let mut texture_of: HashMap<String, usize> = HashMap::new();
    let maps = m.materials.iter().any(|mat| {
        mat.props
            .iter()
            .any(|p| matches!(&p.value, PropValue::Map(name) if !name.is_empty()))
    });
    let mut geometry = None;
    let mut decode_all = || {
        for mat in &m.materials {
            for p in &mat.props {
                if let PropValue::Map(name) = &p.value
                    && !name.is_empty()
                    && !texture_of.contains_key(name)
                {
                    texture_of.insert(name.clone(), textures.len());
                    textures.push(load_texture(m, name, companions, &mut warnings));
                }
            }
        }
    };
    if maps && threads() > 1 {
        rayon::in_place_scope(|scope| {
            scope.spawn(|_| geometry = Some(geometry_of(m)));
            decode_all();
        });
    } else {
        decode_all();
    }

    // Normal and bump maps are data, sampled as stored.
    for mat in &m.materials {
        for ty in [134, 136] {
            if let Some(PropValue::Map(n)) = mat.prop(ty)
                && let Some(&t) = texture_of.get(n)
            {
                textures[t].srgb = false;
            }
        }
    }

    // Materials: the file's, then one for faces without a material, then
    // the voxel types' (at most one a type): allocated once.
    let mut materials: Vec<Material> =
        Vec::with_capacity(m.materials.len() + 1 + m.voxel_types.len());
    materials.extend(m.materials.iter().map(|mat| {
        let kd = mat.prop(0).and_then(|v| match v {
            PropValue::Color(c) => Some(rgba_f(*c)),
            _ => None,
        });
        let mut base = kd.unwrap_or([1.0; 4]);
        // `d` (dissolve) scales the alpha, Kd's or 1.
        if let Some(PropValue::Float(d)) = mat.prop(7) {
            base[3] *= d.clamp(0.0, 1.0);
        }
        let ke = match mat.prop(4) {
            Some(PropValue::Color(c)) => rgba_f(*c),
            _ => [0.0; 4],
        };
        let unlit = matches!(mat.prop(8), Some(PropValue::Int(0)));
        let map = |ty: u8| match mat.prop(ty) {
            Some(PropValue::Map(n)) => texture_of.get(n).copied(),
            _ => None,
        };
        let float = |ty: u8| match mat.prop(ty) {
            Some(PropValue::Float(f)) => Some(*f),
            _ => None,
        };
        let texture = map(128);
        // Kd's alpha or `d` below 1, or a diffuse map with transparent
        // texels: alpha blended.
        let see_through = base[3] < 1.0
            || texture.is_some_and(|t| super::images::any_translucent(&textures[t].rgba8));
        // Data maps only when they loaded: a checkerboard stands in for
        // colour, not for normals or emission.
        let mut notes = Vec::new();
        let mut data_map = |ty: u8| {
            let t = map(ty)?;
            if let TextureSource::Missing(why) = &textures[t].source {
                notes.push(format!(
                    "{} {:?} not loaded, drawn without it: {why}",
                    m3d::property_name(ty),
                    textures[t].name
                ));
                return None;
            }
            Some(t)
        };
        let emission_map = data_map(132);
        let normal_map = data_map(136);
        let bump_map = data_map(134);
        let mut maps = Maps {
            emission: emission_map,
            notes,
            ..Maps::default()
        };
        // Ks with Ns (32 when the file gives no Ns).
        if let Some(PropValue::Color(c)) = mat.prop(2) {
            let ks = rgba_f(*c);
            maps.specular = Some(([ks[0], ks[1], ks[2]], float(3).unwrap_or(32.0)));
        }
        // map_N is a tangent-space normal map; map_Km a bump (height)
        // map scaled by Km.
        maps.normal = normal_map
            .map(|t| (t, NormalMap::Rgb))
            .or(bump_map.map(|t| {
                (
                    t,
                    NormalMap::Height {
                        strength: float(6).unwrap_or(1.0),
                    },
                )
            }));
        // map_Ke multiplies Ke; without Ke the map is the emission.
        let emission = match (mat.prop(4), maps.emission) {
            (None, Some(_)) => [1.0; 3],
            _ => [ke[0], ke[1], ke[2]],
        };
        Material {
            name: mat.name.clone(),
            base_color: base,
            emission,
            shading: if unlit { 0.0 } else { 1.0 },
            texture,
            matcap: None,
            alpha_cutoff: None,
            blend: if see_through {
                BlendMode::Alpha
            } else {
                BlendMode::Opaque
            },
            maps,
            sampling: Sampling::default(),
            animation: None,
            properties: mat
                .props
                .iter()
                .map(|p| {
                    let tex = match &p.value {
                        PropValue::Map(n) => texture_of.get(n).copied(),
                        _ => None,
                    };
                    Property {
                        name: m3d::property_name(p.ty).into(),
                        code: Some(p.ty as u32),
                        value: prop_value(&p.value),
                        texture: tex,
                    }
                })
                .collect(),
        }
    }));
    let plain = materials.len();
    let mut added = Added::default();
    added.materials.reserve_exact(1 + m.voxel_types.len());
    added
        .materials
        .push((plain, "for faces that name no material".into()));
    materials.push(Material {
        name: "(no material: vertex colours)".into(),
        base_color: [1.0; 4],
        ..Material::default()
    });

    let Geometry {
        meshes,
        voxel_materials,
        skipped,
    } = geometry.unwrap_or_else(|| {
        // Made on the pool where its voxels are worth several threads: one
        // hand-off there, where each of the voxels' parallel steps would
        // wake the pool from here and wait for it again.
        let voxels: usize = m.voxel_blocks.iter().map(|b| b.data.len()).sum();
        if voxels >= VOXEL_CELLS_A_THREAD
            && threads() > 1
            && rayon::current_thread_index().is_none()
        {
            rayon::scope(|_| geometry_of(m))
        } else {
            geometry_of(m)
        }
    });
    if skipped > 0 {
        warnings.push(format!(
            "{skipped} faces with fewer than 3 points (points, lines) are not drawn"
        ));
    }
    added.materials.extend(
        (materials.len()..materials.len() + voxel_materials.len())
            .map(|i| (i, "from a voxel type's colour".into())),
    );
    materials.extend(voxel_materials);

    // Skeleton: bind pose from positions and quaternions as stored.
    let bind: Vec<BoneState> = m
        .bones
        .iter()
        .map(|b| BoneState {
            pos: vec3(&m.vertices[b.pos as usize]),
            pos_id: b.pos,
            ori: quat(&m.vertices[b.ori as usize]),
            ori_id: b.ori,
        })
        .collect();
    let mut world: Vec<Mat4> = Vec::with_capacity(m.bones.len());
    for (i, b) in m.bones.iter().enumerate() {
        let local = m3d_mat(bind[i].pos, bind[i].ori);
        world.push(match b.parent {
            Some(p) => world[p as usize] * local,
            None => local,
        });
    }
    let parents: Vec<Option<usize>> = m
        .bones
        .iter()
        .map(|b| b.parent.map(|p| p as usize))
        .collect();
    let rest = RestBones::new(&parents, &world, 0.05);
    let bones: Vec<Bone> = m
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| rest.bone(i, &b.name))
        .collect();

    let clips = m
        .actions
        .iter()
        .map(|a| build_clip(m, a, &bind, &mut warnings))
        .collect();

    let labels = m
        .labels
        .iter()
        .map(|l| Label {
            position: vec3(&m.vertices[l.vertex as usize]),
            text: l.text.clone(),
            color: rgba(l.color),
            group: l.group.clone(),
            lang: l.lang.clone(),
        })
        .collect();

    let preview = m.preview.as_ref().map(|png| {
        match super::companions::decode_texels(
            companions,
            |texels| super::decode_image(png, image::ImageFormat::Png, texels),
            |img| img.rgba8.len(),
        ) {
            Ok(img) => {
                let (w, h) = (img.width, img.height);
                Texture {
                    name: "preview".into(),
                    width: w,
                    height: h,
                    format: format!("PNG {w}x{h} (PRVW{})", img.declared_note()),
                    rgba8: img.rgba8,
                    source: TextureSource::Embedded,
                    srgb: true,
                    compressed: None,
                }
            }
            Err(e) => {
                warnings.push(format!("preview image: {e}"));
                Texture::checkerboard("preview", e.to_string())
            }
        }
    });

    let mut source = source;
    source.format = "M3D".into();
    source.details.reserve_exact(9);
    for (k, v) in [
        ("model name", &m.name),
        ("license", &m.license),
        ("author", &m.author),
        ("description", &m.description),
    ] {
        source.details.push((k.into(), v.clone().into()));
    }
    source.details.extend([
        ("scale".into(), Detail::Number(m.scale, " m per unit")),
        (
            "payload".into(),
            Detail::Count(
                m.payload_len as u64,
                if m.ascii {
                    " bytes of text (the ASCII form, .a3d)"
                } else if m.compressed {
                    " bytes, zlib-compressed in the file"
                } else {
                    " bytes, stored plain"
                },
            ),
        ),
        ("actions".into(), m.actions.len().into()),
        ("voxel types".into(), m.voxel_types.len().into()),
        ("labels".into(), m.labels.len().into()),
    ]);
    source.chunks = m
        .chunks
        .iter()
        .map(|c| ChunkRow {
            magic: c.magic.clone(),
            offset: c.offset,
            size: c.size as u64,
            note: match &*c.magic {
                "HEAD" | "CMAP" | "TMAP" | "VRTS" | "BONE" | "MTRL" | "MESH" | "VOXT" | "VOXD"
                | "LBLS" | "ACTN" | "ASET" => "decoded".into(),
                "SHPE" => "mathematical shape: listed, not rendered".into(),
                "PROC" => "procedural surface: listed, not run".into(),
                s if s.starts_with(|c: char| c.is_ascii_uppercase()) => {
                    "unknown standard chunk: skipped".into()
                }
                _ => "application-specific: skipped".into(),
            },
            entries: None,
        })
        .collect();

    let mut tables = Vec::new();
    if !m.voxel_types.is_empty() {
        tables.push((
            "Voxel types".into(),
            m.voxel_types
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let name = if v.name.is_empty() {
                        "(unnamed)"
                    } else {
                        &v.name
                    };
                    // One string each, written in place without `fmt`
                    // (scene::text): through `write!` these rows were a
                    // fifth of a small voxel file's load (cachegrind).
                    // "#RRGGBBAA, shape {}, rotation {:#04X}", the colour's
                    // bytes stored R first.
                    let mut value = String::with_capacity(48);
                    value.push('#');
                    text::push_hex(&mut value, u32::from_be_bytes(rgba(v.color)), 8);
                    value.push_str(", shape ");
                    text::push_int(&mut value, v.shape);
                    value.push_str(", rotation 0x");
                    text::push_hex(&mut value, v.rotation as u32, 2);
                    if v.skin != NONE {
                        value.push_str(", skin ");
                        text::push_int(&mut value, v.skin);
                    }
                    if !v.items.is_empty() {
                        value.push_str(", ");
                        text::push_int(&mut value, v.items.len());
                        value.push_str(" items");
                    }
                    let mut key = String::with_capacity(8 + name.len());
                    text::push_int(&mut key, i);
                    key.push_str(": ");
                    key.push_str(name);
                    (key, value)
                })
                .collect(),
        ));
    }
    if !m.shapes.is_empty() || !m.procedures.is_empty() {
        let named = |what: &str, name: &str| {
            let mut key = String::with_capacity(what.len() + name.len() + 2);
            key.push_str(what);
            text::push_quoted(&mut key, name);
            key
        };
        tables.push((
            "Not rendered".into(),
            // "shape {name:?}", "SHPE, {size} bytes", written by
            // scene::text (`format!` was 5% of bezier.m3d's load).
            m.shapes
                .iter()
                .map(|(n, size)| {
                    let mut value = String::with_capacity(32);
                    value.push_str("SHPE, ");
                    text::push_int(&mut value, *size);
                    value.push_str(" bytes");
                    (named("shape ", n), value)
                })
                .chain(
                    m.procedures
                        .iter()
                        .map(|n| (named("procedure ", n), "PROC script".into())),
                )
                .collect(),
        ));
    }
    let user_fields = if m.description.contains('\n') || m.description.contains('=') {
        m.description
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| UserField {
                name: k.trim().into(),
                ty: "description".into(),
                value: v.trim().into(),
            })
            .collect()
    } else {
        Vec::new()
    };

    Scene {
        source,
        meshes,
        materials,
        textures,
        skeleton: Skeleton {
            root_space: Vec::new(),
            bones,
            tails_from_file: false,
        },
        clips,
        user_fields,
        warnings,
        labels,
        preview,
        tables,
        mip_levels: Vec::new(),
        map: None,
        added,
        start_clip: None,
        provenance: None,
        metres_per_unit: Some(m.scale),
    }
}

#[derive(Default)]
struct MeshBuilder {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    colors: Vec<[u8; 4]>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[u16; 4]>,
    indices: Vec<u32>,
    /// The corner (VRTS vertex, UV, normal) of each output vertex, in the
    /// order they are made: their attributes are filled from it after the
    /// faces, by `Welder::fill`, each list in order.
    made: Vec<(u32, u32, u32)>,
    /// Triangles the faces give it (counted first, to size `indices`).
    triangles: usize,
    has_uv: bool,
    /// Whether the mesh keeps vertex colours.
    colored: bool,
}

/// Finds or makes the output vertex of each face corner, then fills the
/// vertices' attributes, a list at a time in output order
/// ([`Welder::fill`]: the corner loop only numbers vertices). The first
/// output vertex made from each VRTS vertex is found through a dense
/// table (`first`: group, index and, where corners carry UV or normal
/// indices, the key it was made with, in one entry); only a vertex seen
/// again with another UV, normal or material walks a short chain, so most
/// lookups are one array read.
struct Welder<'a, F: First> {
    m: &'a M3d,
    /// Smooth normals per VRTS vertex, for corners that store none.
    generated: &'a [Vec3],
    skin_table: &'a [([u16; 4], [u16; 4])],
    skinned: bool,
    /// Per VRTS vertex, its first output vertex ([`First::UNSET`] for none
    /// yet).
    first: Vec<F>,
    /// Per VRTS vertex, the last of its other output vertices in `others`
    /// (made the first time a vertex is seen again with another UV, normal
    /// or material; [`NONE`] for none).
    chain: Vec<u32>,
    /// Output vertices after a VRTS vertex's first, each linked to the one
    /// made before it from the same vertex: a short walk instead of a hash.
    others: Vec<Other>,
}

/// The first output vertex made from a VRTS vertex, as [`Welder`] keeps
/// it: [`Plain`] where no corner carries a UV or normal index (every key
/// is then (NONE, NONE)), else [`Keyed`]. One entry, so a corner's lookup
/// is one bounds check and one cache line.
trait First: Copy {
    /// No output vertex made yet.
    const UNSET: Self;
    fn new(group: u32, index: u32, key: (u32, u32)) -> Self;
    /// The group it was made in ([`u32::MAX`] for none yet).
    fn group(self) -> u32;
    /// Its index, if it was made in `group` with `key`.
    fn hit(self, group: u32, key: (u32, u32)) -> Option<u32>;
}

/// [`First`] for meshes whose corners carry only vertex indices: 8 bytes
/// a vertex (the scaling bench's 10M-triangle file is such a mesh).
#[derive(Clone, Copy)]
struct Plain {
    group: u32,
    index: u32,
}

impl First for Plain {
    const UNSET: Self = Plain {
        group: u32::MAX,
        index: 0,
    };
    #[inline(always)]
    fn new(group: u32, index: u32, _: (u32, u32)) -> Self {
        Plain { group, index }
    }
    #[inline(always)]
    fn group(self) -> u32 {
        self.group
    }
    #[inline(always)]
    fn hit(self, group: u32, _: (u32, u32)) -> Option<u32> {
        (self.group == group).then_some(self.index)
    }
}

/// [`First`] with the (UV, normal) it was made with: 16 bytes, aligned so
/// that an entry never straddles two cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Keyed {
    group: u32,
    index: u32,
    key: (u32, u32),
}

impl First for Keyed {
    const UNSET: Self = Keyed {
        group: u32::MAX,
        index: 0,
        key: (NONE, NONE),
    };
    #[inline(always)]
    fn new(group: u32, index: u32, key: (u32, u32)) -> Self {
        Keyed { group, index, key }
    }
    #[inline(always)]
    fn group(self) -> u32 {
        self.group
    }
    #[inline(always)]
    fn hit(self, group: u32, key: (u32, u32)) -> Option<u32> {
        (self.group == group && self.key == key).then_some(self.index)
    }
}

/// An output vertex that is not the first made from its VRTS vertex.
struct Other {
    group: u32,
    key: (u32, u32),
    index: u32,
    next: u32,
}

impl<F: First> Welder<'_, F> {
    /// The output vertex of corner (vertex, UV, normal), [`NONE`] for a
    /// UV or normal the corner lacks.
    #[inline(always)]
    fn index(&mut self, b: &mut MeshBuilder, gi: u32, (vertex, uv, nrm): (u32, u32, u32)) -> u32 {
        let first = self.first[vertex as usize];
        if let Some(i) = first.hit(gi, (uv, nrm)) {
            return i;
        }
        let fg = first.group();
        self.index_new(b, gi, vertex, uv, nrm, fg)
    }

    /// [`Welder::index`] past its common case (the corner's vertex seen
    /// before in this group with this UV and normal): out of line, so the
    /// welding loops keep their values in registers. Its own common case,
    /// a vertex's first output vertex with room in `made`, uses no more
    /// registers than its arguments (nothing saved and restored around
    /// it); the rest is [`Welder::index_other`].
    ///
    /// The corner's indices come as separate values: a tuple was passed
    /// through the stack, stored on every corner of the common case too.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn index_new(
        &mut self,
        b: &mut MeshBuilder,
        gi: u32,
        vertex: u32,
        uv: u32,
        nrm: u32,
        fg: u32,
    ) -> u32 {
        if fg == u32::MAX && b.made.len() < b.made.capacity() {
            let i = b.made.len() as u32;
            b.made.push((vertex, uv, nrm));
            b.has_uv |= uv != NONE;
            self.first[vertex as usize] = F::new(gi, i, (uv, nrm));
            return i;
        }
        self.index_other(b, gi, vertex, (uv, nrm), fg)
    }

    /// [`Welder::index_new`] for a vertex seen before in another group or
    /// with another UV or normal (its other output vertices walked), or
    /// when `made` must grow. The key (UV, normal) as a pair, passed in
    /// two registers as the values are.
    #[inline(never)]
    fn index_other(
        &mut self,
        b: &mut MeshBuilder,
        gi: u32,
        vertex: u32,
        (uv, nrm): (u32, u32),
        fg: u32,
    ) -> u32 {
        let m = self.m;
        if fg != u32::MAX {
            if self.chain.is_empty() {
                self.chain = vec![NONE; m.vertices.len()];
                // Doubled from there if need be (a large model's seams).
                self.others.reserve(SMALL_MESH);
            }
            let mut o = self.chain[vertex as usize];
            while o != NONE {
                let other = &self.others[o as usize];
                if other.group == gi && other.key == (uv, nrm) {
                    return other.index;
                }
                o = other.next;
            }
        }
        let i = b.made.len() as u32;
        b.made.push((vertex, uv, nrm));
        b.has_uv |= uv != NONE;
        if fg == u32::MAX {
            self.first[vertex as usize] = F::new(gi, i, (uv, nrm));
        } else {
            self.others.push(Other {
                group: gi,
                key: (uv, nrm),
                index: i,
                next: self.chain[vertex as usize],
            });
            self.chain[vertex as usize] = self.others.len() as u32 - 1;
        }
        i
    }

    /// Fills every output vertex's attributes once the corners are
    /// numbered: each list made in one pass over the group's corners in
    /// output order (written in order, never zeroed first).
    fn fill(&self, groups: &mut [(Option<u32>, MeshBuilder)]) {
        let m = self.m;
        for (_, b) in groups.iter_mut() {
            let made = &b.made;
            b.positions = made
                .iter()
                .map(|&(v, _, _)| vec3(&m.vertices[v as usize]))
                .collect();
            if self.generated.is_empty() {
                // Every corner stores its normal: all of them made unit
                // length four at a time, the same bits as one at a time.
                b.normals = made
                    .iter()
                    .map(|&(_, _, n)| vec3(&m.vertices[n as usize]))
                    .collect();
                super::vectors::normalize_each(&mut b.normals, Vec3::Y);
            } else {
                b.normals = made
                    .iter()
                    .map(|&(v, _, n)| {
                        if n != NONE {
                            vec3(&m.vertices[n as usize]).normalize_or(Vec3::Y)
                        } else {
                            self.generated[v as usize]
                        }
                    })
                    .collect();
            }
            b.uvs = made
                .iter()
                .map(|&(_, t, _)| {
                    if t != NONE {
                        let [u, v] = m.tmap[t as usize];
                        Vec2::new(u, 1.0 - v)
                    } else {
                        Vec2::ZERO
                    }
                })
                .collect();
            if b.colored {
                b.colors = made
                    .iter()
                    .map(|&(v, _, _)| rgba(m.vertices[v as usize].color))
                    .collect();
            }
            if self.skinned {
                // Each vertex's skin looked up once, for both lists.
                (b.joints, b.weights) = made
                    .iter()
                    .map(|&(v, _, _)| {
                        self.skin_table
                            .get(m.vertices[v as usize].skin as usize)
                            .copied()
                            .unwrap_or(([0; 4], [0; 4]))
                    })
                    .unzip();
            }
        }
    }
}

/// A group's material and the mesh it builds.
type Group = (Option<u32>, MeshBuilder);

impl<'a, F: First> Welder<'a, F> {
    fn new(
        m: &'a M3d,
        generated: &'a [Vec3],
        skin_table: &'a [([u16; 4], [u16; 4])],
        skinned: bool,
    ) -> Self {
        Welder {
            m,
            generated,
            skin_table,
            skinned,
            first: vec![F::UNSET; m.vertices.len()],
            chain: Vec::new(),
            others: Vec::new(),
        }
    }

    /// Numbers every face corner's output vertex into its material's group
    /// (`group_of`), then fills the vertices' attributes.
    fn weld(
        mut self,
        normal_col: Option<&[u32]>,
        groups: &mut Vec<Group>,
        group_of: &mut impl FnMut(Option<u32>, &mut Vec<Group>) -> usize,
    ) {
        let faces = &self.m.faces;
        let triangles = faces.all_triangles();
        let (vertex_col, uv_col) = (faces.vertices(), faces.uv_column());
        let corner = |c: usize| {
            (
                vertex_col[c],
                uv_col.map_or(NONE, |u| u[c]),
                normal_col.map_or(NONE, |n| n[c]),
            )
        };
        if triangles {
            for (run, material) in faces.material_runs() {
                let gi = group_of(material, groups);
                let b = &mut groups[gi].1;
                // By value in the closures below (captured by reference, it
                // was loaded again for every corner).
                let g = gi as u32;
                let corners = 3 * run.start..3 * run.end;
                // The index list apart from the builder, so its length stays in
                // a register while vertices are made.
                let mut indices = std::mem::take(&mut b.indices);
                let vertices = &vertex_col[corners.clone()];
                match (uv_col, normal_col) {
                    (None, None) => {
                        indices.extend(vertices.iter().map(|&v| self.index(b, g, (v, NONE, NONE))))
                    }
                    (Some(uv), None) => indices.extend(
                        vertices
                            .iter()
                            .zip(&uv[corners])
                            .map(|(&v, &t)| self.index(b, g, (v, t, NONE))),
                    ),
                    (Some(uv), Some(n)) => indices.extend(
                        vertices
                            .iter()
                            .zip(&uv[corners.clone()])
                            .zip(&n[corners])
                            .map(|((&v, &t), &n)| self.index(b, g, (v, t, n))),
                    ),
                    (None, Some(n)) => indices.extend(
                        vertices
                            .iter()
                            .zip(&n[corners])
                            .map(|(&v, &n)| self.index(b, g, (v, NONE, n))),
                    ),
                }
                b.indices = indices;
            }
        } else {
            let mut last: Option<(Option<u32>, usize)> = None;
            for f in faces.iter() {
                let cs = f.corners();
                if cs.len() < 3 {
                    continue;
                }
                let gi = match last {
                    Some((mat, g)) if mat == f.material => g,
                    _ => group_of(f.material, groups),
                };
                last = Some((f.material, gi));
                let b = &mut groups[gi].1;
                // Fan triangulation (the polygons are convex in practice), each
                // triangle written as soon as its corners are known.
                let i0 = self.index(b, gi as u32, corner(cs.start));
                let mut prev = self.index(b, gi as u32, corner(cs.start + 1));
                for c in cs.start + 2..cs.end {
                    let i = self.index(b, gi as u32, corner(c));
                    b.indices.extend_from_slice(&[i0, prev, i]);
                    prev = i;
                }
            }
        }
        self.fill(groups);
    }
}

/// An M3D's meshes ([`geometry_of`]): its faces' one a material, then its
/// voxel types', with the materials the voxel types add (after the file's
/// and the one for faces without a material), and how many faces were
/// skipped for having fewer than 3 points.
struct Geometry {
    meshes: Vec<Mesh>,
    voxel_materials: Vec<Material>,
    skipped: usize,
}

/// The unit normals of four triangles (corners a, b, c, counter-clockwise),
/// each exactly `(b - a).cross(c - a).normalize_or_zero()` (a product
/// each, as glam's cross), in a quarter of the instructions. The
/// positions' w is ignored.
fn unit_normals4(a: [Vec4; 4], b: [Vec4; 4], c: [Vec4; 4]) -> [Vec3; 4] {
    // Rows: `x_axis` holds the four triangles' x, and so on.
    let rows = |p: [Vec4; 4]| glam::Mat4::from_cols(p[0], p[1], p[2], p[3]).transpose();
    let (a, b, c) = (rows(a), rows(b), rows(c));
    let e1 = [
        b.x_axis - a.x_axis,
        b.y_axis - a.y_axis,
        b.z_axis - a.z_axis,
    ];
    let e2 = [
        c.x_axis - a.x_axis,
        c.y_axis - a.y_axis,
        c.z_axis - a.z_axis,
    ];
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    super::vectors::normalize_rows(n, Vec3::ZERO)
}

/// The meshes of `m`, from the file alone (no companions, no textures):
/// made on a thread of their own while the textures decode.
fn geometry_of(m: &M3d) -> Geometry {
    // The file's materials, then the one for faces without a material.
    let plain = m.materials.len();
    // Smooth normals per VRTS vertex for faces that store none (as m3d.h:
    // the average of the unit normals of the faces around it).
    // Files that store a normal at every corner skip this (one scan of the
    // normal column), and triangle lists are walked three corners at a time.
    let corner_vertex = m.faces.vertices();
    let normal_col = m.faces.normal_column();
    let mut need = false;
    // Summed in 16-byte SIMD vectors (the sums are read-modify-writes of
    // neighbouring faces' shared vertices), kept normalised in 12 bytes:
    // alive while the scene's lists are filled, at the load's peak heap
    // (kept in 16, they were 80 MB of the 645 MB peak of the scaling
    // bench's 10M-triangle file, which stores no normals).
    let mut generated: Vec<Vec3> = Vec::new();
    if normal_col.is_none_or(|n| n.contains(&NONE)) {
        let mut sums = vec![Vec3A::ZERO; m.vertices.len()];
        let mut add = |ids: &[u32]| {
            let v = |i: usize| Vec3A::from_vec4(Vec4::from(m.vertices[ids[i] as usize].pos));
            for k in 1..ids.len() - 1 {
                let n = (v(k) - v(0)).cross(v(k + 1) - v(0)).normalize_or_zero();
                for i in [0, k, k + 1] {
                    sums[ids[i] as usize] += n;
                }
            }
        };
        if m.faces.all_triangles() && normal_col.is_none() {
            // No normals stored at all (WusonBlitz): every triangle.
            need = !corner_vertex.is_empty();
            let at = |i: u32| Vec4::from(m.vertices[i as usize].pos);
            // Four triangles at a time, then the rest one by one; the sums
            // are added to in file order either way.
            let mut quads = corner_vertex.chunks_exact(12);
            for t in &mut quads {
                let corner = |k: usize| [0, 3, 6, 9].map(|f| at(t[f + k]));
                let normals = unit_normals4(corner(0), corner(1), corner(2));
                for (ids, n) in t.chunks_exact(3).zip(normals) {
                    let n = Vec3A::from(n);
                    for &v in ids {
                        sums[v as usize] += n;
                    }
                }
            }
            for t in quads.remainder().chunks_exact(3) {
                let o = Vec3A::from_vec4(at(t[0]));
                let [b, c] = [t[1], t[2]].map(|v| Vec3A::from_vec4(at(v)));
                let n = (b - o).cross(c - o).normalize_or_zero();
                for &v in t {
                    sums[v as usize] += n;
                }
            }
        } else if m.faces.all_triangles() {
            for (f, ids) in corner_vertex.chunks_exact(3).enumerate() {
                if normal_col.is_none_or(|n| n[3 * f..3 * f + 3].contains(&NONE)) {
                    need = true;
                    add(ids);
                }
            }
        } else {
            for f in m.faces.iter() {
                let c = f.corners();
                if c.len() >= 3 && (0..c.len()).any(|j| f.point(j).normal().is_none()) {
                    need = true;
                    add(&corner_vertex[c]);
                }
            }
        }
        if need {
            generated = sums.iter().map(|&n| Vec3::from(n)).collect();
            super::vectors::normalize_each(&mut generated, Vec3::Y);
        }
    }

    // Skins: up to 4 influences (the largest, ties in file order), weights
    // renormalised; worked out once per skin record.
    let skin_table: Vec<([u16; 4], [u16; 4])> = m
        .skins
        .iter()
        .map(|s| {
            // The four largest, ties in file order (a record holds at
            // most 8; the decoder keeps no zero weight).
            let mut slots = [(0u16, 0u16); 4];
            for (b, wt) in s.influences() {
                insert_influence(&mut slots, b as u16, wt as u16);
            }
            (slots.map(|x| x.0), share_weights(slots.map(|x| x.1)))
        })
        .collect();
    let skin_of = |v: &m3d::Vertex| skin_table.get(v.skin as usize).copied();
    let skinned = !m.bones.is_empty() && !m.skins.is_empty();

    // Polygon meshes: one per material in order of first use, vertices
    // shared per (vertex, uv, normal) triple. A first pass over the face
    // starts counts each mesh's corners and triangles, so every output list
    // is allocated once.
    let has_colors = m.types.ci != 0;
    let faces = &m.faces;
    let mut groups: Vec<(Option<u32>, MeshBuilder)> = Vec::new();
    // Past a few groups, a material's group is found through a table (a
    // file may switch among thousands of materials face by face): material
    // + 1 (0: none) -> group + 1 (0: none yet).
    let mut table: Vec<u32> = Vec::new();
    let mut group_of = |material: Option<u32>, groups: &mut Vec<(Option<u32>, MeshBuilder)>| {
        let slot = material.map_or(0, |i| i as usize + 1);
        let found = if table.is_empty() {
            groups.iter().position(|(mat, _)| *mat == material)
        } else {
            table[slot].checked_sub(1).map(|g| g as usize)
        };
        match found {
            Some(i) => i,
            None => {
                // A material's diffuse colour (Kd) replaces vertex colours;
                // a material without Kd keeps them (the spec: "if defined,
                // overrides color index in vertex").
                let has_kd = material.is_some_and(|i| m.materials[i as usize].prop(0).is_some());
                groups.push((
                    material,
                    MeshBuilder {
                        colored: has_colors && !has_kd,
                        ..MeshBuilder::default()
                    },
                ));
                if table.is_empty() && groups.len() > TABLE_AFTER {
                    table = vec![0; m.materials.len() + 1];
                    for (g, (mat, _)) in groups.iter().enumerate() {
                        table[mat.map_or(0, |i| i as usize + 1)] = g as u32 + 1;
                    }
                } else if !table.is_empty() {
                    table[slot] = groups.len() as u32;
                }
                groups.len() - 1
            }
        }
    };
    let mut skipped = 0usize;
    // Triangle lists (every real file but polygon exports) are counted per
    // material run and welded straight from the face columns.
    let triangles = faces.all_triangles();
    for (run, material) in faces.material_runs() {
        let gi = group_of(material, &mut groups);
        if triangles {
            groups[gi].1.triangles += run.len();
        }
    }
    if !triangles {
        let mut last: Option<(Option<u32>, usize)> = None;
        for f in faces.iter() {
            if f.len() < 3 {
                skipped += 1;
                continue;
            }
            let gi = match last {
                Some((mat, g)) if mat == f.material => g,
                _ => group_of(f.material, &mut groups),
            };
            last = Some((f.material, gi));
            groups[gi].1.triangles += f.len() - 2;
        }
    }
    for (_, b) in &mut groups {
        b.indices.reserve_exact(3 * b.triangles);
        // Most corners share their vertex: a guess, grown past if need be.
        b.made
            .reserve(m.vertices.len().max(SMALL_MESH).min(3 * b.triangles));
    }
    // Keys only where corners carry UV or normal indices (else every key
    // is (NONE, NONE)): 8 bytes a vertex fewer for plain meshes.
    if faces.has_uvs() || faces.has_normals() {
        Welder::<Keyed>::new(m, &generated, &skin_table, skinned).weld(
            normal_col,
            &mut groups,
            &mut group_of,
        );
    } else {
        Welder::<Plain>::new(m, &generated, &skin_table, skinned).weld(
            normal_col,
            &mut groups,
            &mut group_of,
        );
    }
    let mut meshes: Vec<Mesh> = groups
        .into_iter()
        .map(|(mat, b)| {
            let material = mat.map_or(plain, |i| i as usize);
            let colors = b.colored.then_some(b.colors);
            Mesh {
                name: mat.map_or("(no material)".into(), |i| {
                    m.materials[i as usize].name.clone()
                }),
                positions: b.positions,
                normals: b.normals,
                uvs: b.uvs,
                colors,
                indices: b.indices,
                material: Some(material),
                visible: true,
                has_file_normals: !need,
                has_file_uvs: b.has_uv,
                skin: skinned.then_some(Skin {
                    joints: b.joints,
                    weights: b.weights,
                }),
                ..Mesh::default()
            }
        })
        .collect();

    // Voxels.
    let mut voxel_materials = Vec::new();
    meshes.extend(voxel_meshes(
        m,
        (plain + 1, &mut voxel_materials),
        skinned.then_some(&skin_of),
    ));
    Geometry {
        meshes,
        voxel_materials,
        skipped,
    }
}

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
                // are unset), in y, z, x order.
                let p = b.pos.map(i64::from);
                let cells = (0..by as i64).flat_map(|y| {
                    (0..bz as i64).flat_map(move |z| (0..bx as i64).map(move |x| (x, y, z)))
                });
                for ((x, y, z), &v) in cells.zip(&b.data) {
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

/// Cells of a dense voxel grid a thread is given at least to find the open
/// ones ([`VoxelGrid::open_cells`]; lantea.m3d's 212K take about 0.23 ms on
/// one).
const VOXEL_CELLS_A_THREAD: usize = 65536;

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
            slots: vec![0; n],
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
fn voxel_meshes(
    m: &M3d,
    (base, materials): (usize, &mut Vec<Material>),
    skin_of: Option<SkinOf>,
) -> Vec<Mesh> {
    if m.voxel_blocks.is_empty() {
        return Vec::new();
    }
    let ntypes = m.voxel_types.len();
    let mut extent = 1i64;
    let (mut lo, mut hi) = ([i64::MAX; 3], [i64::MIN; 3]);
    for b in &m.voxel_blocks {
        for (a, (p, s)) in b.pos.iter().zip(b.size).enumerate() {
            extent = extent.max(-(*p as i64)).max(*p as i64 + s as i64);
            lo[a] = lo[a].min(*p as i64);
            hi[a] = hi[a].max(*p as i64 + s as i64);
        }
    }
    let mut grid = VoxelGrid::new(lo, hi, m.voxel_blocks.iter().map(|b| b.data.len()).sum());
    for b in &m.voxel_blocks {
        grid.put(b, ntypes);
    }
    let w = 1.0 / extent as f32;
    // The types in order of first appearance (a type whose every cell is
    // hidden still gets its part, empty), each with its cells that show a
    // side.
    let OpenCells { first_seen, slabs } = grid.open_cells(ntypes);
    // Each type's visible faces by side (4 vertices at most, 6 indices
    // each), counted without a branch.
    let by_side: Vec<[usize; 6]> = (0..ntypes)
        .map(|t| {
            let mut n = [0; 6];
            for c in slabs.iter().flat_map(|s| &s[t]) {
                for (f, n) in n.iter_mut().enumerate() {
                    *n += (c.open >> f) as usize & 1;
                }
            }
            n
        })
        .collect();
    let faces: Vec<usize> = by_side.iter().map(|n| n.iter().sum()).collect();
    // A type's material by name: a scan for a few, a table (first of a
    // name) where types and materials would make millions of comparisons.
    let by_name: Option<std::collections::HashMap<&str, usize>> =
        (first_seen.len().saturating_mul(m.materials.len()) > 4096).then(|| {
            let mut by_name = std::collections::HashMap::new();
            for (i, x) in m.materials.iter().enumerate() {
                by_name.entry(x.name.as_str()).or_insert(i);
            }
            by_name
        });
    // Each type's material and skin, here in the types' order (materials
    // made for unnamed types are numbered in it); the meshes after, on as
    // many threads as their faces are worth.
    let jobs: Vec<TypeJob> = first_seen
        .iter()
        .map(|&t| {
            let vt = &m.voxel_types[t as usize];
            let named = match &by_name {
                _ if vt.name.is_empty() => None,
                Some(by_name) => by_name.get(vt.name.as_str()).copied(),
                None => m.materials.iter().position(|x| x.name == vt.name),
            };
            let material = named.unwrap_or_else(|| {
                // "voxel type {t}", then " {name:?}" for a named type.
                let mut name = String::with_capacity(24 + vt.name.len());
                name.push_str("voxel type ");
                text::push_int(&mut name, t);
                if !vt.name.is_empty() {
                    name.push(' ');
                    text::push_quoted(&mut name, &vt.name);
                }
                materials.push(Material {
                    name,
                    base_color: rgba_f(vt.color),
                    ..Material::default()
                });
                base + materials.len() - 1
            });
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
                material,
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
    let mut largest: Vec<usize> = (0..jobs.len()).collect();
    largest.sort_by_key(|&i| std::cmp::Reverse(faces[jobs[i].t as usize]));
    let mut dealt: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); bins];
    for i in largest {
        let bin = dealt.iter_mut().min_by_key(|(n, _)| *n).expect("bins >= 2");
        bin.0 += faces[jobs[i].t as usize];
        bin.1.push(i);
    }
    let made: Vec<(Vec<usize>, Vec<Mesh>)> = dealt
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

/// Faces of voxels a thread is given at least ([`voxel_meshes`]).
const VOXEL_FACES_A_THREAD: usize = 8192;

/// The threads a conversion may use, this one included: rayon's pool,
/// one a core unless `RAYON_NUM_THREADS` says otherwise.
fn threads() -> usize {
    rayon::current_num_threads()
}

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
            skin,
            ..Mesh::default()
        }
    }
}

/// An M3D action as a [`FrameSequence`] clip; its timeline frames are the
/// intervals between distinct frame times (M3D frames are not uniform).
fn build_clip(m: &M3d, a: &m3d::Action, bind: &[BoneState], warnings: &mut Vec<String>) -> Clip {
    // One (bone, state) list for the sequence, in the action's order, so
    // each frame's range carries over.
    let bones: Vec<(usize, BoneState)> = a
        .transforms
        .iter()
        .map(|t| {
            (
                t.bone as usize,
                BoneState {
                    pos: vec3(&m.vertices[t.pos as usize]),
                    pos_id: t.pos,
                    ori: quat(&m.vertices[t.ori as usize]),
                    ori_id: t.ori,
                },
            )
        })
        .collect();
    let mut frames: Vec<PoseFrame> = a
        .frames
        .iter()
        .map(|f| PoseFrame {
            msec: f.msec,
            bones: f.transforms.clone(),
        })
        .collect();
    if frames.windows(2).any(|w| w[1].msec < w[0].msec) {
        warnings.push(format!(
            "action {:?}: frames are not in time order; sorted",
            a.name
        ));
        frames.sort_by_key(|f| f.msec);
    }
    let duration_ms = if a.duration_ms == 0 {
        warnings.push(format!(
            "action {:?}: duration 0; using its last frame's time",
            a.name
        ));
        frames.last().map_or(0, |f| f.msec).max(1)
    } else {
        a.duration_ms
    };
    let duration_s = duration_ms as f32 / 1000.0;
    let mut stops: Vec<u32> = Vec::with_capacity(frames.len() + 2);
    stops.extend(
        std::iter::once(0)
            .chain(frames.iter().map(|f| f.msec))
            .chain(std::iter::once(duration_ms))
            .filter(|&t| t <= duration_ms),
    );
    stops.dedup();
    let segments: Vec<Segment> = stops
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            let d = (w[1] - w[0]) as f32 / 1000.0;
            Segment {
                name: String::new(),
                start_s: w[0] as f32 / 1000.0,
                duration_s: d,
                frame_s: d,
                first_frame: i as u32,
                frames: 1,
                part_list: None,
            }
        })
        .collect();
    Clip {
        name: a.name.clone(),
        duration_s,
        frames: segments.len() as u32,
        space: clip::ChannelSpace::Local,
        channels: Vec::new(),
        sequence: Some(FrameSequence {
            duration_ms,
            bind: bind.to_vec(),
            frames,
            bones,
        }),
        segments,
    }
}

#[cfg(test)]
mod tests {
    use super::{Vec3A, Vec4, VoxelGrid, unit_normals4};

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

    /// Four triangles at a time give glam's one-at-a-time normals bit for
    /// bit, degenerate triangles included: a zero-area one, one with a
    /// corner at infinity, one with a NaN, one far too small for its
    /// squared length to stay above zero, and one so large that its
    /// squared length overflows (glam gives zero for each of those), among
    /// ordinary ones of every orientation and scale.
    #[test]
    fn four_normals_at_a_time_are_glams_bit_for_bit() {
        // A small deterministic generator (xorshift), spread over many
        // magnitudes.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let unit = (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
            unit * 10f32.powi((state % 9) as i32 - 4)
        };
        let mut points: Vec<Vec4> = (0..3 * 64)
            .map(|_| Vec4::new(next(), next(), next(), next()))
            .collect();
        let special = [
            [Vec4::ZERO, Vec4::X, Vec4::X * 2.0],
            [Vec4::ZERO, Vec4::splat(f32::INFINITY), Vec4::Y],
            [Vec4::ZERO, Vec4::X, Vec4::new(f32::NAN, 1.0, 0.0, 0.0)],
            [Vec4::ZERO, Vec4::X * 1e-30, Vec4::Y * 1e-30],
            [Vec4::ZERO, Vec4::X * 1e30, Vec4::Y * 1e30],
        ];
        for (t, corners) in special.iter().enumerate() {
            points[3 * 7 * t..3 * 7 * t + 3].copy_from_slice(corners);
        }
        let one = |t: &[Vec4]| {
            let [a, b, c] = [t[0], t[1], t[2]].map(Vec3A::from_vec4);
            (b - a).cross(c - a).normalize_or_zero()
        };
        let bits = |v: Vec3A| v.to_array().map(f32::to_bits);
        for quad in points.chunks_exact(12) {
            let corner = |k: usize| [0, 3, 6, 9].map(|f| quad[f + k]);
            let four = unit_normals4(corner(0), corner(1), corner(2));
            for (t, n) in quad.chunks_exact(3).zip(four) {
                assert_eq!(bits(n.into()), bits(one(t)), "triangle {t:?}");
            }
        }
    }
}
