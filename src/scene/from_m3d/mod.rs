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

mod voxels;
mod weld;

use voxels::voxel_meshes;
use weld::{Keyed, MeshBuilder, Plain, Welder};

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
    let (textures, texture_of, geometry) = textures_beside_geometry(m, companions, &mut warnings);
    let Geometry {
        meshes,
        voxel_materials,
        skipped,
    } = geometry.unwrap_or_else(|| geometry_on_pool(m));
    if skipped > 0 {
        warnings.push(format!(
            "{skipped} faces with fewer than 3 points (points, lines) are not drawn"
        ));
    }
    let (materials, added) = materials_of(m, &textures, &texture_of, voxel_materials);
    let (bind, bones) = skeleton_of(m);
    let clips = m
        .actions
        .iter()
        .map(|a| build_clip(m, a, &bind, &mut warnings))
        .collect();
    let preview = m
        .preview
        .as_ref()
        .map(|png| preview_of(png, companions, &mut warnings));

    Scene {
        source: described(m, source),
        meshes,
        materials,
        textures,
        skeleton: Skeleton {
            root_space: Vec::new(),
            bones,
            tails_from_file: false,
        },
        clips,
        user_fields: user_fields_of(&m.description),
        warnings,
        labels: labels_of(m),
        preview,
        tables: tables_of(m),
        mip_levels: Vec::new(),
        texture_view: false,
        map: None,
        added,
        start_clip: None,
        provenance: None,
        metres_per_unit: Some(m.scale),
    }
}

/// The textures every map property names (each name once, in order of
/// first use, with its index by name), and the meshes where they were made
/// meanwhile: on another thread while the textures decode (viper.m3d's
/// PNG takes about as long as its payload's inflating), or `None` when
/// there is no texture to wait for (made after, by [`geometry_on_pool`]).
fn textures_beside_geometry(
    m: &M3d,
    companions: &dyn Companions,
    warnings: &mut Vec<String>,
) -> (Vec<Texture>, HashMap<String, usize>, Option<Geometry>) {
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
                    textures.push(load_texture(m, name, companions, warnings));
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
    (textures, texture_of, geometry)
}

/// [`geometry_of`], made on the pool where its voxels are worth several
/// threads: one hand-off there, where each of the voxels' parallel steps
/// would wake the pool from here and wait for it again.
fn geometry_on_pool(m: &M3d) -> Geometry {
    let cells: usize = m.voxel_blocks.iter().map(|b| b.data.len()).sum();
    if cells >= voxels::VOXEL_CELLS_A_THREAD
        && threads() > 1
        && rayon::current_thread_index().is_none()
    {
        rayon::scope(|_| geometry_of(m))
    } else {
        geometry_of(m)
    }
}

/// The scene's materials: the file's, then one for faces without a
/// material, then the voxel types' (at most one a type), allocated once;
/// and the viewer's additions among them.
fn materials_of(
    m: &M3d,
    textures: &[Texture],
    texture_of: &HashMap<String, usize>,
    voxel_materials: Vec<Material>,
) -> (Vec<Material>, Added) {
    let mut materials: Vec<Material> =
        Vec::with_capacity(m.materials.len() + 1 + voxel_materials.len());
    materials.extend(
        m.materials
            .iter()
            .map(|mat| material_of(mat, textures, texture_of)),
    );
    let plain = materials.len();
    let mut added = Added::default();
    added.materials.reserve_exact(1 + voxel_materials.len());
    added
        .materials
        .push((plain, "for faces that name no material".into()));
    materials.push(Material {
        name: "(no material: vertex colours)".into(),
        base_color: [1.0; 4],
        ..Material::default()
    });
    added.materials.extend(
        (materials.len()..materials.len() + voxel_materials.len())
            .map(|i| (i, "from a voxel type's colour".into())),
    );
    materials.extend(voxel_materials);
    (materials, added)
}

/// The file's labels, each at its vertex.
fn labels_of(m: &M3d) -> Vec<Label> {
    m.labels
        .iter()
        .map(|l| Label {
            position: vec3(&m.vertices[l.vertex as usize]),
            text: l.text.clone(),
            color: rgba(l.color),
            group: l.group.clone(),
            lang: l.lang.clone(),
        })
        .collect()
}

/// A description's `key=value` lines as user fields, where it has any
/// (a line break or an `=`); none otherwise.
fn user_fields_of(description: &str) -> Vec<UserField> {
    if !description.contains('\n') && !description.contains('=') {
        return Vec::new();
    }
    description
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| UserField {
            name: k.trim().into(),
            ty: "description".into(),
            value: v.trim().into(),
        })
        .collect()
}

/// A file's material as the scene's: Kd (scaled by `d`), Ke, Ks and Ns,
/// its maps by texture index (data maps only where they loaded, with a
/// note where not), and every property listed for the inspector.
fn material_of(
    mat: &m3d::Material,
    textures: &[Texture],
    texture_of: &HashMap<String, usize>,
) -> Material {
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
    let texture = match mat.prop(128) {
        Some(PropValue::Map(n)) => texture_of.get(n).copied(),
        _ => None,
    };
    // Kd's alpha or `d` below 1, or a diffuse map with transparent
    // texels: alpha blended.
    let see_through = base[3] < 1.0
        || texture.is_some_and(|t| super::images::any_translucent(&textures[t].rgba8));
    let maps = maps_of(mat, textures, texture_of);
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
        properties: properties_of(mat, texture_of),
    }
}

/// A material's maps besides the diffuse: emission, normal (map_N) or
/// bump (map_Km, scaled by Km), each only where its texture loaded (a
/// checkerboard stands in for colour, not for normals or emission: a note
/// says which did not), and Ks with Ns (32 when the file gives no Ns).
fn maps_of(mat: &m3d::Material, textures: &[Texture], texture_of: &HashMap<String, usize>) -> Maps {
    let float = |ty: u8| match mat.prop(ty) {
        Some(PropValue::Float(f)) => Some(*f),
        _ => None,
    };
    let mut notes = Vec::new();
    let mut data_map = |ty: u8| {
        let t = match mat.prop(ty) {
            Some(PropValue::Map(n)) => texture_of.get(n).copied(),
            _ => None,
        }?;
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
    let emission = data_map(132);
    let normal_map = data_map(136);
    let bump_map = data_map(134);
    let specular = match mat.prop(2) {
        Some(PropValue::Color(c)) => {
            let ks = rgba_f(*c);
            Some(([ks[0], ks[1], ks[2]], float(3).unwrap_or(32.0)))
        }
        _ => None,
    };
    let normal = normal_map
        .map(|t| (t, NormalMap::Rgb))
        .or(bump_map.map(|t| {
            let strength = float(6).unwrap_or(1.0);
            (t, NormalMap::Height { strength })
        }));
    Maps {
        emission,
        normal,
        specular,
        notes,
        ..Maps::default()
    }
}

/// Every property of a material as the inspector lists it, maps with the
/// texture they name.
fn properties_of(mat: &m3d::Material, texture_of: &HashMap<String, usize>) -> Vec<Property> {
    mat.props
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
        .collect()
}

/// The bind pose, from positions and quaternions as stored, and the
/// skeleton's bones at rest.
fn skeleton_of(m: &M3d) -> (Vec<BoneState>, Vec<Bone>) {
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
    (bind, bones)
}

/// The PRVW chunk's PNG, or a checkerboard and a warning where it does
/// not decode.
fn preview_of(png: &[u8], companions: &dyn Companions, warnings: &mut Vec<String>) -> Texture {
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
}

/// The inspector's File section: the header's strings, the scale, the
/// payload, counts, and every chunk with what was done with it.
fn described(m: &M3d, mut source: SourceInfo) -> SourceInfo {
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
    source
}

/// The inspector's extra tables: voxel types, and the shapes and
/// procedures listed but not rendered.
fn tables_of(m: &M3d) -> Vec<InfoTable> {
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
    tables
}

/// The threads a conversion may use, this one included: rayon's pool,
/// one a core unless `RAYON_NUM_THREADS` says otherwise.
fn threads() -> usize {
    rayon::current_num_threads()
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

/// Smooth normals per VRTS vertex for faces that store none (as m3d.h:
/// the average of the unit normals of the faces around it), and whether
/// any face needed them (none made otherwise). Files that store a normal
/// at every corner skip this (one scan of the normal column), and
/// triangle lists are walked three corners at a time.
///
/// Inlined into [`geometry_of`]: called, WusonBlitz0's load (every
/// triangle's normal summed) took 4-7% longer in alternated runs.
#[inline(always)]
fn smooth_normals_of(m: &M3d) -> (Vec<Vec3>, bool) {
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
    (generated, need)
}

/// Each skin record's joints and weights: up to 4 influences (the
/// largest, ties in file order), weights renormalised; worked out once per
/// skin record.
fn skin_table_of(m: &M3d) -> Vec<([u16; 4], [u16; 4])> {
    m.skins
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
        .collect()
}

/// The meshes of `m`, from the file alone (no companions, no textures):
/// made on a thread of their own while the textures decode.
fn geometry_of(m: &M3d) -> Geometry {
    // The file's materials, then the one for faces without a material.
    let plain = m.materials.len();
    let (generated, need) = smooth_normals_of(m);
    let normal_col = m.faces.normal_column();
    let skin_table = skin_table_of(m);
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
            let name = mat.map_or("(no material)".into(), |i| {
                m.materials[i as usize].name.clone()
            });
            b.into_mesh(name, mat.map_or(plain, |i| i as usize), !need, skinned)
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
    use super::{Vec3A, Vec4, unit_normals4};

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
