//! The map inspector (PMF): shading, sectors, the selected sector's cube
//! octree, visibility, lightmaps, lights, props and entities. It edits
//! [`MapUi`]; the app turns that into overlay lines and draw ranges.

use super::UiState;
use super::filter::Filtering;
use crate::scene::from_pmf::{MapInfo, MapShading};
use crate::scene::map::{CUBE_TYPES, Cube, CubeKind, FACES, Map};
use crate::scene::map_query::{self, CubeRef};

/// What the map inspector shows and asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct MapUi {
    /// Changing it sends [`super::UiAction::MapShading`].
    pub shading: MapShading,
    /// Outline every sector.
    pub show_sectors: bool,
    pub selected_sector: Option<usize>,
    pub selected_cube: Option<CubeRef>,
    /// The cube under the pointer in the octree browser (highlighted).
    pub hovered_cube: Option<CubeRef>,
    /// Draw the selected sector's cube boxes down to this depth.
    pub box_depth: Option<u32>,
    pub show_props: bool,
    /// Show only what the selection (a chunk cube, or a sector's chunk
    /// cubes together) can see.
    pub show_visibility: bool,
    /// Draw only what is visible from the camera's cell.
    pub cull: bool,
    /// The camera's cell and the triangles drawn without and with culling
    /// (set by the app each frame).
    pub camera_cell: Option<CubeRef>,
    pub triangles_all: u64,
    pub triangles_drawn: u64,
    pub lightmap_zoom: f32,
}

impl Default for MapUi {
    fn default() -> Self {
        Self {
            shading: MapShading::default(),
            show_sectors: true,
            selected_sector: None,
            selected_cube: None,
            hovered_cube: None,
            box_depth: None,
            show_props: false,
            show_visibility: false,
            cull: false,
            camera_cell: None,
            triangles_all: 0,
            triangles_drawn: 0,
            lightmap_zoom: 1.0,
        }
    }
}

impl MapUi {
    /// The cubes whose view is shown: the selected chunk cube, else the
    /// selected sector's chunk cubes together.
    pub fn viewpoint(&self, map: &Map) -> Option<Vec<CubeRef>> {
        if let Some((s, c)) = self.selected_cube
            && let Some(chunk) = map_query::chunk_of(map, s, c)
        {
            return Some(map_query::visible_cubes(map, s, chunk));
        }
        self.selected_sector
            .map(|s| map_query::visible_from_sector(map, s))
    }
}

pub use crate::scene::map_overlay::{CUBE_COLORS, cube_color};

fn c32(c: [u8; 4]) -> egui::Color32 {
    egui::Color32::from_rgb(c[0], c[1], c[2])
}

/// The map inspector: the view's settings, the sector table, then for the
/// selected sector its octree, visibility, lightmaps and lights, and the
/// map's entities. A change of shading is sent as
/// [`super::UiAction::MapShading`].
pub fn map_panel(ui: &mut egui::Ui, info: &MapInfo, state: &mut UiState, filter: &Filtering) {
    let map = &info.map;
    let shading_changed = view_section(ui, map, &mut state.map);
    sectors_section(ui, map, &mut state.map);
    if let Some(si) = state.map.selected_sector.filter(|&s| s < map.sectors.len()) {
        octree_section(ui, map, si, &mut state.map);
        visibility_section(ui, map, si, &mut state.map);
        lightmaps_section(
            ui,
            info,
            si,
            &mut state.map.lightmap_zoom,
            &state.texture_ids,
        );
        lights_section(ui, map, si);
    }
    entities_section(ui, map, filter);
    if shading_changed {
        state.act(super::UiAction::MapShading);
    }
}

/// "Map view": shading, the sector grid, props, culling by the camera's
/// cell (with what it draws). Whether the shading changed.
fn view_section(ui: &mut egui::Ui, map: &Map, m: &mut MapUi) -> bool {
    let mut shading_changed = false;
    egui::CollapsingHeader::new("Map view")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                for s in MapShading::ALL {
                    if ui.radio_value(&mut m.shading, s, s.name()).changed() {
                        shading_changed = true;
                    }
                }
            });
            ui.checkbox(&mut m.show_sectors, "sector grid");
            ui.checkbox(&mut m.show_props, "props as boxes");
            ui.checkbox(
                &mut m.cull,
                "render only what is visible from the camera's cell",
            )
            .on_hover_text("the chunk cube holding the camera, and what its visibility lists");
            if m.cull {
                match m.camera_cell {
                    Some((s, c)) => ui.label(format!(
                        "camera in sector {:?}, cube {c}: {} of {} triangles",
                        map.sector_coords(s),
                        m.triangles_drawn,
                        m.triangles_all
                    )),
                    None => ui.weak(format!(
                        "the camera is in no cell: all {} triangles drawn",
                        m.triangles_all
                    )),
                };
            }
        });
    shading_changed
}

/// "Sectors": a row a sector with its counts; a click selects it (or
/// clears the selection).
fn sectors_section(ui: &mut egui::Ui, map: &Map, m: &mut MapUi) {
    egui::CollapsingHeader::new(format!("Sectors ({})", map.sectors.len()))
        .default_open(true)
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("sectors")
                .max_height(220.0)
                .show(ui, |ui| {
                    egui::Grid::new("sector table")
                        .num_columns(7)
                        .striped(true)
                        .show(ui, |ui| sector_rows(ui, map, m));
                });
        });
}

fn sector_rows(ui: &mut egui::Ui, map: &Map, m: &mut MapUi) {
    for h in [
        "sector", "load r.", "lmaps", "props", "cubes", "tris", "chunks",
    ] {
        ui.strong(h);
    }
    ui.end_row();
    for (i, s) in map.sectors.iter().enumerate() {
        let selected = m.selected_sector == Some(i);
        let c = map.sector_coords(i);
        if ui
            .selectable_label(selected, format!("{} {},{},{}", i, c[0], c[1], c[2]))
            .clicked()
        {
            m.selected_sector = (!selected).then_some(i);
            m.selected_cube = None;
        }
        ui.label(format!("{:?}", s.load_radius));
        ui.label(format!("{}+{}", s.lightmap_sizes.len(), s.extra_lightmaps));
        ui.label(s.props.len().to_string());
        ui.label(s.cubes.len().to_string());
        ui.label(s.triangles.len().to_string());
        ui.label(
            s.cubes
                .iter()
                .filter(|c| c.chunk.is_some())
                .count()
                .to_string(),
        );
        ui.end_row();
    }
}

/// "Octree of sector ...": the cube boxes' depth, the cube types' colours,
/// the octree (opened down to the selected cube) and the selected cube's
/// details.
fn octree_section(ui: &mut egui::Ui, map: &Map, si: usize, m: &mut MapUi) {
    let places = map_query::cube_places(map, si);
    let max_depth = places.iter().flatten().map(|p| p.depth).max().unwrap_or(0);
    egui::CollapsingHeader::new(format!(
        "Octree of sector {:?} ({} cubes)",
        map.sector_coords(si),
        map.sectors[si].cubes.len()
    ))
    .default_open(true)
    .show(ui, |ui| {
        ui.horizontal(|ui| {
            let mut on = m.box_depth.is_some();
            ui.checkbox(&mut on, "cube boxes to depth");
            let mut d = m.box_depth.unwrap_or(1).min(max_depth);
            ui.add_enabled(on, egui::Slider::new(&mut d, 0..=max_depth).text("depth"));
            m.box_depth = on.then_some(d);
        });
        ui.horizontal_wrapped(|ui| {
            for (t, c) in CUBE_TYPES.iter().zip(CUBE_COLORS) {
                ui.colored_label(c32(c), *t);
            }
        });
        m.hovered_cube = None;
        // The selected cube's ancestors open (a cube picked in 3D shows).
        let mut path = Vec::new();
        if let Some((_, c)) = m.selected_cube.filter(|&(s, _)| s == si) {
            let mut at = places.get(c).copied().flatten().and_then(|p| p.parent);
            while let Some(p) = at {
                path.push(p);
                at = places.get(p).copied().flatten().and_then(|q| q.parent);
                if path.len() > 64 {
                    break;
                }
            }
        }
        egui::ScrollArea::vertical()
            .id_salt("octree")
            .max_height(320.0)
            .show(ui, |ui| {
                octree_node(ui, map, si, 0, m, 0, &path);
            });
        if let Some((s, c)) = m.selected_cube.filter(|&(s, _)| s == si)
            && let Some(cube) = map.sectors[s].cubes.get(c)
        {
            ui.separator();
            cube_details(ui, map, s, c, cube, places.get(c).copied().flatten());
        }
    });
}

/// "Visibility": what the selection (a cube's cell, else the sector's
/// chunk cubes) sees, and the switch that shows only that.
fn visibility_section(ui: &mut egui::Ui, map: &Map, si: usize, m: &mut MapUi) {
    egui::CollapsingHeader::new("Visibility")
        .default_open(true)
        .show(ui, |ui| {
            ui.checkbox(&mut m.show_visibility, "show only what the selection sees")
                .on_hover_text("the selected chunk cube (or the selected cube's cell), else every chunk cube of the sector");
            let what = match m.selected_cube {
                Some((s, c)) => match map_query::chunk_of(map, s, c) {
                    Some(ch) => format!("cell: cube {ch} of sector {:?}", map.sector_coords(s)),
                    None => "the selected cube is in no cell".into(),
                },
                None => format!("every chunk cube of sector {:?}", map.sector_coords(si)),
            };
            ui.weak(what);
            if let Some(v) = m.viewpoint(map) {
                let mut sectors: Vec<usize> = v.iter().map(|&(s, _)| s).collect();
                sectors.dedup();
                ui.label(format!(
                    "sees {} chunk cubes in {} sectors: {} of {} triangles",
                    v.len(),
                    sectors.len(),
                    map_query::triangle_count(map, &v),
                    map.sectors.iter().map(|s| s.triangles.len()).sum::<usize>()
                ));
            }
        });
}

/// "Lightmaps": each of sector `si`'s lightmaps with the cubes using it,
/// then its extra (light) lightmaps, drawn at `zoom` where the app has
/// registered their images (`texture_ids`).
fn lightmaps_section(
    ui: &mut egui::Ui,
    info: &MapInfo,
    si: usize,
    zoom: &mut f32,
    texture_ids: &[Option<egui::TextureId>],
) {
    let s = &info.map.sectors[si];
    egui::CollapsingHeader::new(format!(
        "Lightmaps ({} + {} extra)",
        s.lightmap_sizes.len(),
        info.extra_textures.get(si).map_or(0, |l| l.len())
    ))
    .default_open(false)
    .show(ui, |ui| {
        ui.add(egui::Slider::new(zoom, 0.25..=4.0).text("zoom"));
        for (li, &size) in s.lightmap_sizes.iter().enumerate() {
            let users = s
                .cubes
                .iter()
                .filter(|c| c.kind.lightmap() == Some(li as u8))
                .count();
            ui.label(format!(
                "lightmap {li}: {size}x{size}, used by {users} cubes"
            ));
            let tex = info.sector_textures.get(si).map(|&t| t + li);
            if let Some(id) = tex.and_then(|t| texture_ids.get(t).copied().flatten()) {
                let side = size as f32 * *zoom;
                ui.add(egui::Image::new((id, egui::vec2(side, side))));
            }
        }
        for (label, tex) in info.extra_textures.get(si).into_iter().flatten() {
            ui.label(label);
            if let Some(id) = texture_ids.get(*tex).copied().flatten() {
                let side = s.lightmap_sizes.first().copied().unwrap_or(1) as f32 * *zoom;
                ui.add(egui::Image::new((id, egui::vec2(side, side))));
            }
        }
    });
}

/// "Lights": sector `si`'s dynamic and fast lights, each with the cubes
/// whose lighting references name it.
fn lights_section(ui: &mut egui::Ui, map: &Map, si: usize) {
    let s = &map.sectors[si];
    egui::CollapsingHeader::new("Lights")
        .default_open(false)
        .show(ui, |ui| {
            // Cubes whose lighting references name a light.
            let affected = |light: u16, dynamic: bool| {
                s.cubes
                    .iter()
                    .filter_map(|c| c.lighting.as_ref())
                    .filter(|l| {
                        let (refs, (at, n)) = if dynamic {
                            (&s.dynamic_light_refs, l.dynamic)
                        } else {
                            (&s.fast_light_refs, l.fast)
                        };
                        refs.iter()
                            .skip(at as usize)
                            .take(n as usize)
                            .any(|&r| r == light)
                    })
                    .count()
            };
            for d in &s.dynamic_lights {
                ui.label(format!(
                    "dynamic light {}: {} extra lightmap(s), affects {} cubes",
                    d.light,
                    d.extra_lightmaps,
                    affected(d.light, true)
                ));
            }
            for f in &s.fast_lights {
                let color = map
                    .fast_light_colors
                    .get(f.light as usize)
                    .copied()
                    .unwrap_or([1.0; 3]);
                ui.label(format!(
                    "fast light {} {:.2?}: {} affected points, {} cubes",
                    f.light,
                    color,
                    f.points,
                    affected(f.light, false)
                ));
            }
            let lit = s.cubes.iter().filter(|c| c.lighting.is_some()).count();
            ui.weak(format!(
                "{lit} cubes with lighting data; references: {} dynamic, {} fast",
                s.dynamic_light_refs.len(),
                s.fast_light_refs.len()
            ));
        });
}

/// "Entities": each entity's fields, then the map's logic counts and teams.
fn entities_section(ui: &mut egui::Ui, map: &Map, filter: &Filtering) {
    // By name or by kind ("light", "spawn").
    let entities = &map.entities;
    let (header, matching, _) = filter.section("Entities", entities.len(), |i| {
        format!("{} {}", entities[i].name, entities[i].kind)
    });
    header.default_open(false).show(ui, |ui| {
        for (i, e) in map.entities.iter().enumerate() {
            if !matching[i] {
                continue;
            }
            egui::CollapsingHeader::new(format!("{} ({})", e.name, e.kind))
                .id_salt(("entity", i))
                .show(ui, |ui| {
                    egui::Grid::new(("entity fields", i))
                        .num_columns(2)
                        .show(ui, |ui| {
                            ui.label("difficulties");
                            ui.label(&e.difficulties);
                            ui.end_row();
                            ui.label("gamemodes");
                            ui.label(&e.gamemodes);
                            ui.end_row();
                            for (name, value) in &e.fields {
                                ui.label(name);
                                ui.label(value);
                                ui.end_row();
                            }
                        });
                });
        }
        ui.weak(format!(
            "{} actions, {} filters, {} selectors; teams: {}",
            map.actions,
            map.filters,
            map.selectors,
            map.teams.join(", ")
        ));
    });
}

fn octree_node(
    ui: &mut egui::Ui,
    map: &Map,
    si: usize,
    ci: usize,
    m: &mut MapUi,
    depth: u32,
    open_path: &[usize],
) {
    let Some(cube) = map.sectors[si].cubes.get(ci) else {
        return;
    };
    if depth > 24 {
        return;
    }
    let mut text = format!("#{ci} {}", cube.kind.name());
    if cube.chunk.is_some() {
        text.push_str(" · chunk");
    }
    if let Some((first, n)) = cube.kind.triangles()
        && n > 0
    {
        text.push_str(&format!(" · tris {first}..{}", first + n));
    }
    let selected = m.selected_cube == Some((si, ci));
    let label = egui::RichText::new(text).color(c32(cube_color(&cube.kind)));
    let clicked = |resp: egui::Response, m: &mut MapUi| {
        if resp.hovered() {
            m.hovered_cube = Some((si, ci));
        }
        if resp.clicked() {
            m.selected_cube = (!selected).then_some((si, ci));
        }
    };
    match &cube.kind {
        CubeKind::Parent(children) => {
            let id = ui.make_persistent_id(("cube", si, ci));
            let mut state = egui::collapsing_header::CollapsingState::load_with_default_open(
                ui.ctx(),
                id,
                depth < 1,
            );
            if open_path.contains(&ci) && !state.is_open() {
                state.set_open(true);
            }
            state
                .show_header(ui, |ui| {
                    let r = ui.selectable_label(selected, label);
                    clicked(r, m);
                })
                .body(|ui| {
                    for &c in children {
                        octree_node(ui, map, si, c as usize, m, depth + 1, open_path);
                    }
                });
        }
        _ => {
            let r = ui.selectable_label(selected, label);
            if selected && !open_path.is_empty() {
                r.scroll_to_me(None);
            }
            clicked(r, m);
        }
    }
}

fn cube_details(
    ui: &mut egui::Ui,
    map: &Map,
    si: usize,
    ci: usize,
    cube: &Cube,
    place: Option<map_query::CubePlace>,
) {
    let mut rows = vec![
        (
            "cube",
            format!("#{ci} of sector {:?}", map.sector_coords(si)),
        ),
        ("type", cube.kind.name().to_string()),
    ];
    if let Some(p) = place {
        rows.push(("depth", p.depth.to_string()));
        rows.push((
            "bounds",
            format!(
                "{:.1?} .. {:.1?}",
                p.bounds.min.to_array(),
                p.bounds.max.to_array()
            ),
        ));
    }
    kind_rows(&mut rows, map, &cube.kind);
    chunk_rows(&mut rows, cube);
    egui::Grid::new("cube details")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            for (k, v) in rows {
                ui.label(k);
                ui.label(v);
                ui.end_row();
            }
        });
}

/// What a cube's kind holds: its materials, lightmap and triangles, and
/// the faces, per-side counts or plane of its kind.
fn kind_rows(rows: &mut Vec<(&'static str, String)>, map: &Map, kind: &CubeKind) {
    let mats = kind.materials();
    if !mats.is_empty() {
        let named = mats.iter().map(|&x| {
            let path = map.materials.get(x as usize).map_or("", |m| m.as_str());
            format!("{x} {path}")
        });
        rows.push(("material(s)", named.collect::<Vec<_>>().join(", ")));
    }
    if let Some(l) = kind.lightmap() {
        rows.push(("lightmap", l.to_string()));
    }
    if let Some((first, n)) = kind.triangles() {
        rows.push(("triangles", format!("{first}..{} ({n})", first + n)));
    }
    match kind {
        CubeKind::Solid(_, faces) => {
            let shown = FACES
                .iter()
                .enumerate()
                .filter(|(i, _)| faces & (1 << (5 - i)) != 0)
                .map(|(_, f)| *f);
            rows.push(("faces", shown.collect::<Vec<_>>().join(" ")));
        }
        CubeKind::Angled(_, counts, plane) | CubeKind::ExtAngled(_, counts, plane) => {
            rows.push((
                "triangles per side",
                format!(
                    "plane {}, {:?} (+X +Y +Z -X -Y -Z)",
                    counts[0],
                    &counts[1..]
                ),
            ));
            rows.push((
                "fill / pitch / yaw",
                format!("{} / {} / {}", plane.fill, plane.pitch, plane.yaw),
            ));
        }
        CubeKind::ExtSolid(_, counts) => {
            rows.push((
                "triangles per face",
                format!("{counts:?} (+X +Y +Z -X -Y -Z)"),
            ));
        }
        _ => {}
    }
}

/// A cube's lighting references and its chunk's props and visibility.
fn chunk_rows(rows: &mut Vec<(&'static str, String)>, cube: &Cube) {
    if let Some(l) = &cube.lighting {
        rows.push((
            "lighting",
            format!(
                "base {:?}; dynamic refs {}+{}; fast refs {}+{}",
                l.base_light, l.dynamic.0, l.dynamic.1, l.fast.0, l.fast.1
            ),
        ));
    }
    if let Some(c) = &cube.chunk {
        let cubes: usize = c.visible.iter().map(|(_, cubes)| cubes.len()).sum();
        rows.push((
            "chunk",
            format!(
                "{} props; sees {} sectors, {cubes} cubes; visibility data {} / {}",
                c.props.len(),
                c.visible.len(),
                c.visibility_index,
                c.visibility_count
            ),
        ));
    }
}
