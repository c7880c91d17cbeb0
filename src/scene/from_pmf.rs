//! PlatinumSrc map -> [`Scene`].
//!
//! Map space is Y up like the scene's, so positions pass through. Each
//! sector becomes one mesh per lightmap its cubes use (triangles that no
//! cube owns go with lightmap 0); a mesh's texture is its RGB565 lightmap
//! and its UVs are the lightmap UVs, so the map shows its baked light as
//! stored. Material appearances are resource paths outside the file: the
//! map's materials get distinct tint colours instead, as vertex colours.
//! [`MapShading`] picks lightmaps, tints or both. Facts the inspector shows
//! (sectors, octrees, visibility, lights, entities) become the scene's own
//! map model ([`super::map::Map`]) in [`MapInfo`].

use super::map::{self, Map};
use super::*;
use crate::formats::pmf::{self, Pmf};

/// What the map's surfaces show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MapShading {
    /// The lightmaps times the material tints.
    #[default]
    Both,
    /// The lightmaps alone (white surfaces).
    Lightmaps,
    /// Material tints without light.
    Unlit,
}

impl MapShading {
    pub const ALL: [MapShading; 3] = [MapShading::Both, MapShading::Lightmaps, MapShading::Unlit];
    pub fn name(self) -> &'static str {
        match self {
            MapShading::Both => "lightmaps x materials",
            MapShading::Lightmaps => "lightmaps only",
            MapShading::Unlit => "unlit materials",
        }
    }
}

/// The map beside the meshes: what the inspector and the culling need.
#[derive(Debug, Clone)]
pub struct MapInfo {
    pub map: Map,
    /// Per sector: the meshes drawing it, and for each mesh the sector
    /// triangle of each of its triangles (culling and highlighting).
    pub sector_meshes: Vec<Vec<usize>>,
    pub mesh_triangles: Vec<Vec<u32>>,
    /// Mesh -> (sector, lightmap).
    pub mesh_source: Vec<(usize, u8)>,
    /// Per sector: the scene texture of its lightmap 0 (the others follow).
    pub sector_textures: Vec<usize>,
    /// Per sector: its extra lightmaps (its own and its dynamic lights'),
    /// as (label, scene texture).
    pub extra_textures: Vec<Vec<(String, usize)>>,
    /// What the meshes show now.
    pub shading: MapShading,
}

/// Tint of material `m`, sRGB: well-separated hues, light enough to show the
/// lightmap through.
pub fn material_tint(m: usize) -> [u8; 4] {
    const TINTS: [[u8; 3]; 8] = [
        [170, 214, 140],
        [196, 188, 176],
        [222, 160, 128],
        [150, 190, 230],
        [230, 210, 130],
        [200, 160, 220],
        [140, 210, 200],
        [235, 235, 235],
    ];
    let [r, g, b] = TINTS[m % TINTS.len()];
    [r, g, b, 255]
}

/// RGB565 (red in bits 15..11) to sRGB RGBA8, each channel's bits repeated
/// into the low bits so 0 and full scale map to 0 and 255.
pub fn rgb565_to_rgba8(v: u16) -> [u8; 4] {
    let r = ((v >> 11) & 31) as u8;
    let g = ((v >> 5) & 63) as u8;
    let b = (v & 31) as u8;
    [r << 3 | r >> 2, g << 2 | g >> 4, b << 3 | b >> 2, 255]
}

pub fn lightmap_texture(name: String, size: u32, luxels: &[u16]) -> Texture {
    Texture {
        name,
        width: size,
        height: size,
        rgba8: luxels.iter().flat_map(|&l| rgb565_to_rgba8(l)).collect(),
        source: TextureSource::Embedded,
        format: format!("RGB565 {size}x{size}"),
        srgb: true,
        compressed: None,
    }
}

/// Per sector triangle: (lightmap, material) from the cube that owns it.
fn triangle_owners(s: &map::Sector) -> Vec<(u8, u16)> {
    let mut out = vec![(0u8, 0u16); s.triangles.len()];
    for c in &s.cubes {
        let (Some((first, _)), Some(lightmap)) = (c.kind.triangles(), c.kind.lightmap()) else {
            continue;
        };
        for (k, m) in c.kind.triangle_materials().into_iter().enumerate() {
            if let Some(o) = out.get_mut(first as usize + k) {
                *o = (lightmap, m);
            }
        }
    }
    out
}

/// The scene's map model of a decoded PMF: structure and positions, no
/// texels and no texture coordinates (the meshes hold those).
pub fn map_model(m: &Pmf) -> Map {
    Map {
        sector_counts: m.sector_counts,
        sector_size: m.sector_size(),
        sectors: m.sectors.iter().map(sector_model).collect(),
        materials: m
            .materials
            .iter()
            .map(|x| x.appearance.text.clone())
            .collect(),
        fast_light_colors: m.fast_lights.clone(),
        difficulties: m.difficulties.clone(),
        gamemodes: m.gamemodes.clone(),
        teams: m.teams.iter().map(|t| t.name.text.clone()).collect(),
        entities: m
            .entities
            .entities
            .iter()
            .map(|e| map::Entity {
                name: e.name.text.clone(),
                kind: e.kind_name().into(),
                difficulties: mask_names(e.difficulties as u16, &m.difficulties),
                gamemodes: mask_names(e.gamemodes, &m.gamemodes),
                fields: e
                    .field_names()
                    .iter()
                    .zip(&e.fields)
                    .map(|((n, f), v)| (n.to_string(), value_text(f, v)))
                    .collect(),
            })
            .collect(),
        actions: m.entities.actions.len(),
        filters: m.entities.filters.len(),
        selectors: m.entities.selectors.len(),
    }
}

fn sector_model(s: &pmf::Sector) -> map::Sector {
    map::Sector {
        load_radius: s.load_radius,
        lightmap_sizes: s.lightmaps.iter().map(|l| l.size()).collect(),
        extra_lightmaps: s.extra_lightmaps.len(),
        props: s
            .props
            .iter()
            .map(|p| map::Prop {
                origin: Vec3::from(p.origin),
                radius: Vec3::from(p.radius),
            })
            .collect(),
        cubes: s.cubes.iter().map(cube_model).collect(),
        triangles: s
            .triangles
            .iter()
            .map(|t| t.points.map(|p| Vec3::from(p.position)))
            .collect(),
        dynamic_lights: s
            .dynamic_lights
            .iter()
            .map(|d| map::DynamicLight {
                light: d.light,
                extra_lightmaps: d.extra_lightmaps.len(),
            })
            .collect(),
        fast_lights: s
            .fast_lights
            .iter()
            .map(|f| map::FastLight {
                light: f.light,
                points: f.points.len(),
            })
            .collect(),
        dynamic_light_refs: s.dynamic_light_refs.clone(),
        fast_light_refs: s.fast_light_refs.clone(),
    }
}

fn cube_model(c: &pmf::Cube) -> map::Cube {
    use map::{CubeKind as K, Plane, Surface};
    let one = |lightmap, triangle, material| Surface {
        lightmap,
        triangle,
        materials: [material; 6],
        per_face: false,
    };
    let each = |lightmap, triangle, materials| Surface {
        lightmap,
        triangle,
        materials,
        per_face: true,
    };
    let kind = match &c.kind {
        pmf::CubeKind::Empty => K::Empty,
        pmf::CubeKind::Parent(ch) => K::Parent(*ch),
        &pmf::CubeKind::Solid {
            material,
            lightmap,
            triangle,
            faces,
        } => K::Solid(one(lightmap, triangle, material), faces),
        &pmf::CubeKind::Angled {
            material,
            lightmap,
            triangle,
            counts,
            fill,
            pitch,
            yaw,
        } => K::Angled(
            one(lightmap, triangle, material),
            counts,
            Plane { fill, pitch, yaw },
        ),
        &pmf::CubeKind::ExtSolid {
            materials,
            lightmap,
            triangle,
            counts,
        } => K::ExtSolid(each(lightmap, triangle, materials), counts),
        &pmf::CubeKind::ExtAngled {
            materials,
            lightmap,
            triangle,
            counts,
            fill,
            pitch,
            yaw,
        } => K::ExtAngled(
            each(lightmap, triangle, materials),
            counts,
            Plane { fill, pitch, yaw },
        ),
    };
    map::Cube {
        kind,
        lighting: c.lighting.map(|l| map::CubeLighting {
            base_light: l.base_light,
            dynamic: (l.dynamic_index, l.dynamic_count),
            fast: (l.fast_index, l.fast_count),
        }),
        chunk: c.chunk.as_ref().map(|ch| {
            Box::new(map::Cell {
                props: ch.props.clone(),
                visible: ch
                    .visible
                    .iter()
                    .map(|v| (v.sector, v.cubes.clone()))
                    .collect(),
                visibility_index: ch.visibility_index,
                visibility_count: ch.visibility_count,
            })
        }),
    }
}

/// The names of the bits set in `mask`.
fn mask_names(mask: u16, names: &[String]) -> String {
    let on: Vec<&str> = names
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < 16 && mask & (1 << i) != 0)
        .map(|(_, n)| n.as_str())
        .collect();
    if on.is_empty() {
        "none".into()
    } else {
        on.join(", ")
    }
}

/// An entity field's value as the inspector shows it.
fn value_text(field: &pmf::Field, v: &pmf::Value) -> String {
    use pmf::Value;
    match (field, v) {
        (pmf::Field::Flags(names), Value::Flags(bits)) => {
            let n = names.len();
            let on: Vec<&str> = names
                .iter()
                .enumerate()
                .filter(|(i, _)| bits & (1 << (n - 1 - i)) != 0)
                .map(|(_, s)| *s)
                .collect();
            if on.is_empty() {
                "none".into()
            } else {
                on.join(", ")
            }
        }
        (pmf::Field::Enum(names), Value::Enum(x)) => {
            names.get(*x as usize).copied().unwrap_or("?").to_string()
        }
        (_, Value::Str(t)) => format!("{:?}", t.text),
        (_, Value::Signals(l)) => l
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        (_, Value::Vec3(x)) => format!("{:.2?}", x),
        (_, Value::Vec4(x)) => format!("{:.2?}", x),
        (_, Value::Vec2(x)) => format!("{:.2?}", x),
        (_, Value::Filter(x)) => format!("filter at byte {x}"),
        (_, Value::Selector(x)) => format!("selector at byte {x}"),
        (_, Value::Team(x)) => format!("team {}", x / 16),
        (_, Value::Actions(l)) => format!("actions at bytes {l:?}"),
        (_, Value::Light(x)) => format!("dynamic light {x}"),
        (_, Value::Material(x)) => format!("material {x}"),
        (_, other) => format!("{other:?}")
            .trim_start_matches(|c: char| c.is_alphanumeric())
            .trim_matches(|c| c == '(' || c == ')')
            .to_string(),
    }
}

/// Shows the map's meshes with `shading`: the lightmap textures bound or
/// not, the material tints as vertex colours or not. Meshes and textures
/// stay; only colours and bindings change (upload again after).
pub fn set_shading(scene: &mut Scene, shading: MapShading) {
    let Some(info) = scene.map.as_deref_mut() else {
        return;
    };
    info.shading = shading;
    let info = &*info;
    let owners: Vec<Vec<(u8, u16)>> = info.map.sectors.iter().map(triangle_owners).collect();
    for (mi, &(si, li)) in info.mesh_source.iter().enumerate() {
        let Some(mesh) = scene.meshes.get_mut(mi) else {
            continue;
        };
        mesh.colors = (shading != MapShading::Lightmaps).then(|| {
            // A vertex is shared only by triangles of one tint.
            let mut colors = vec![[0; 4]; mesh.positions.len()];
            let corners = mesh.indices.chunks_exact(3);
            for (&t, corners) in info.mesh_triangles[mi].iter().zip(corners) {
                let tint = material_tint(owners[si][t as usize].1 as usize);
                for &v in corners {
                    if let Some(c) = colors.get_mut(v as usize) {
                        *c = tint;
                    }
                }
            }
            colors
        });
        if let Some(m) = mesh.material.and_then(|m| scene.materials.get_mut(m)) {
            m.texture =
                (shading != MapShading::Unlit).then_some(info.sector_textures[si] + li as usize);
        }
    }
}

pub fn convert(map: &Pmf, mut source: SourceInfo, shading: MapShading) -> Scene {
    source.format = "PMF".into();
    let mut scene = Scene {
        source,
        ..Default::default()
    };
    let mut sector_meshes = Vec::new();
    let mut mesh_triangles = Vec::new();
    let mut mesh_source = Vec::new();
    let mut sector_textures = Vec::new();
    let model = map_model(map);
    for (si, s) in map.sectors.iter().enumerate() {
        let coords = map.sector_coords(si);
        let first_texture = scene.textures.len();
        sector_textures.push(first_texture);
        for (li, l) in s.lightmaps.iter().enumerate() {
            scene.textures.push(lightmap_texture(
                format!("sector {coords:?} lightmap {li}"),
                l.size(),
                &l.luxels,
            ));
        }
        let owners = triangle_owners(&model.sectors[si]);
        let mut meshes = Vec::new();
        for li in 0..s.lightmaps.len() {
            let tris: Vec<u32> = (0..s.triangles.len() as u32)
                .filter(|&t| owners[t as usize].0 as usize == li)
                .collect();
            if tris.is_empty() {
                continue;
            }
            let material = scene.materials.len();
            scene.materials.push(Material {
                name: format!("sector {coords:?} lightmap {li}"),
                base_color: [1.0; 4],
                shading: 0.0,
                texture: (shading != MapShading::Unlit).then_some(first_texture + li),
                ..Default::default()
            });
            let mut mesh = lightmap_mesh(&s.triangles, &owners, &tris);
            mesh.name = format!("sector {} {coords:?} lightmap {li}", si);
            mesh.material = Some(material);
            if shading == MapShading::Lightmaps {
                mesh.colors = None;
            }
            scene.meshes.push(mesh);
            meshes.push(scene.meshes.len() - 1);
            mesh_triangles.push(tris);
            mesh_source.push((si, li as u8));
        }
        sector_meshes.push(meshes);
    }
    map_details(map, &mut scene.source.details);
    scene.tables = map_tables(map);
    let extra_textures = extra_lightmaps(map, &mut scene.textures);
    scene.labels = entity_labels(map);
    scene.map = Some(Box::new(MapInfo {
        map: model,
        sector_meshes,
        mesh_triangles,
        mesh_source,
        sector_textures,
        extra_textures,
        shading,
    }));
    scene
}

/// The mesh of a sector's triangles `tris` that one lightmap covers
/// (`owners`: each triangle's lightmap and material), its vertices tinted
/// by their material. A quad's two triangles share two corners (position,
/// lightmap UV, material and plane): those are one vertex, shaded once (4
/// vertices a quad instead of 6). Only the previous triangle's corners are
/// looked at, which is where the other half of a quad is.
fn lightmap_mesh(triangles: &[pmf::Triangle], owners: &[(u8, u16)], tris: &[u32]) -> Mesh {
    let mut positions: Vec<Vec3> = Vec::with_capacity(tris.len() * 2);
    let mut normals: Vec<Vec3> = Vec::with_capacity(tris.len() * 2);
    let mut uvs = Vec::with_capacity(tris.len() * 2);
    let mut colors = Vec::with_capacity(tris.len() * 2);
    let mut indices = Vec::with_capacity(tris.len() * 3);
    let mut previous = [u32::MAX; 3];
    for &t in tris {
        let tri = &triangles[t as usize];
        let p = tri.points.map(|p| Vec3::from(p.position));
        let n = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or(Vec3::Y);
        let tint = material_tint(owners[t as usize].1 as usize);
        let corners = std::array::from_fn(|k| {
            let uv = Vec2::from(tri.points[k].lightmap_uv);
            let shared = previous.into_iter().find(|&v| {
                let v = v as usize;
                v < positions.len()
                    && positions[v] == p[k]
                    && uvs[v] == uv
                    && colors[v] == tint
                    // Coplanar: the two halves' normals differ only by
                    // rounding.
                    && normals[v].dot(n) > 1.0 - 1e-6
            });
            shared.unwrap_or_else(|| {
                positions.push(p[k]);
                normals.push(n);
                uvs.push(uv);
                colors.push(tint);
                positions.len() as u32 - 1
            })
        });
        indices.extend_from_slice(&corners);
        previous = corners;
    }
    Mesh {
        positions,
        normals,
        uvs,
        colors: Some(colors),
        indices,
        visible: true,
        has_file_uvs: true,
        ..Mesh::default()
    }
}

/// The map's header and counts, for the inspector's file section.
fn map_details(map: &Pmf, d: &mut Vec<(std::borrow::Cow<'static, str>, Detail)>) {
    let triangles: usize = map.sectors.iter().map(|s| s.triangles.len()).sum();
    let cubes: usize = map.sectors.iter().map(|s| s.cubes.len()).sum();
    d.push(("map name".into(), map.name.clone().into()));
    d.push(("authors".into(), map.authors.clone().into()));
    d.push(("description".into(), map.description.clone().into()));
    d.push((
        "created".into(),
        format!("{} (UTC Unix seconds)", map.created).into(),
    ));
    d.push((
        "version".into(),
        format!("{}.{}", map.version.0, map.version.1).into(),
    ));
    d.push(("gamemodes".into(), map.gamemodes.join(", ").into()));
    d.push(("difficulties".into(), map.difficulties.join(", ").into()));
    d.push((
        "sectors".into(),
        format!(
            "{} x {} x {} of {} units",
            map.sector_counts[0],
            map.sector_counts[1],
            map.sector_counts[2],
            map.sector_size()
        )
        .into(),
    ));
    d.push(("triangles".into(), triangles.into()));
    d.push(("cubes".into(), cubes.into()));
    d.push((
        "lights".into(),
        format!(
            "{} dynamic, {} fast",
            map.dynamic_light_count,
            map.fast_lights.len()
        )
        .into(),
    ));
    d.push(("entities".into(), map.entities.entities.len().into()));
}

/// The map's materials (appearance, fluid, alpha) and teams, as tables.
fn map_tables(map: &Pmf) -> Vec<InfoTable> {
    let materials = map
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| {
            (
                format!("{i}"),
                format!(
                    "{}{}{}",
                    m.appearance.text,
                    if m.is_fluid { " · fluid" } else { "" },
                    if m.has_alpha { " · alpha" } else { "" }
                ),
            )
        })
        .collect();
    let teams = map
        .teams
        .iter()
        .map(|t| (t.name.text.clone(), format!("{:.2?}", t.color)))
        .collect();
    vec![("Map materials".into(), materials), ("Teams".into(), teams)]
}

/// Each sector's extra lightmaps (its own and its dynamic lights'), added
/// to `textures` after every mesh texture (which stay per sector in
/// order), for the lightmaps panel: per sector, each one's label and
/// texture. One whose size is not its base lightmap's is left out.
fn extra_lightmaps(map: &Pmf, textures: &mut Vec<Texture>) -> Vec<Vec<(String, usize)>> {
    let mut extra_textures = Vec::new();
    for (si, s) in map.sectors.iter().enumerate() {
        let coords = map.sector_coords(si);
        let mut list = Vec::new();
        let mut add = |label: String, base: u8, luxels: &[u16]| {
            let size = s.lightmaps.get(base as usize).map_or(1, |l| l.size());
            if luxels.len() == (size * size) as usize {
                list.push((label.clone(), textures.len()));
                textures.push(lightmap_texture(
                    format!("sector {coords:?} {label}"),
                    size,
                    luxels,
                ));
            }
        };
        for (i, x) in s.extra_lightmaps.iter().enumerate() {
            add(
                format!("extra lightmap {i} (over lightmap {})", x.base),
                x.base,
                &x.luxels,
            );
        }
        for d in &s.dynamic_lights {
            for (j, x) in d.extra_lightmaps.iter().enumerate() {
                add(
                    format!(
                        "dynamic light {} extra lightmap {j} (over lightmap {})",
                        d.light, x.base
                    ),
                    x.base,
                    &x.luxels,
                );
            }
        }
        extra_textures.push(list);
    }
    extra_textures
}

/// Entities with a place, as labelled markers.
fn entity_labels(map: &Pmf) -> Vec<Label> {
    map.entities
        .entities
        .iter()
        .filter_map(|e| {
            e.position().map(|p| Label {
                position: Vec3::from(p),
                text: format!("{} ({})", e.name.text, e.kind_name()),
                color: [255, 220, 120, 255],
                group: "entities".into(),
                lang: String::new(),
            })
        })
        .collect()
}
