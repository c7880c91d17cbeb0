//! The inspector: file summary, parts (visibility), materials, textures,
//! bones, clips, user-defined fields, warnings.

use super::UiState;
use super::filter::{Filtering, filter_field};
use super::numbers::length_text;
use crate::scene::{BlendMode, Material, Scene, TextureSource};

fn color32(c: [f32; 4]) -> egui::Color32 {
    let b = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
    egui::Color32::from_rgba_unmultiplied(b(c[0]), b(c[1]), b(c[2]), b(c[3]))
}

fn swatch(ui: &mut egui::Ui, c: [f32; 4]) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(28.0, 14.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 2.0, color32(c));
    ui.painter().rect_stroke(
        rect,
        2.0,
        egui::Stroke::new(1.0, egui::Color32::GRAY),
        egui::StrokeKind::Inside,
    );
}

fn texture_preview(ui: &mut egui::Ui, state: &UiState, index: usize, size: f32) {
    match state.texture_ids.get(index).copied().flatten() {
        Some(id) => {
            ui.add(egui::Image::new((id, egui::vec2(size, size))));
        }
        None => {
            ui.weak(format!("[texture {index}]"));
        }
    }
}

/// The maps a material uses beyond its texture and matcap, named as the
/// inspector shows them.
pub fn used_maps(m: &crate::scene::Material) -> Vec<(&'static str, usize)> {
    use crate::scene::{MaterialMap, NormalMap};
    let mut out = Vec::new();
    if let Some(t) = m.maps.team_mask {
        out.push(("team mask", t));
    }
    if let Some((t, kind)) = m.maps.material {
        out.push((
            match kind {
                MaterialMap::Unit => "material (spec, gloss)",
                MaterialMap::Csg => "material (spec, gloss, glow)",
                MaterialMap::SpecularGlossiness => "specular (RGB), glossiness (A)",
            },
            t,
        ));
    }
    if let Some((t, kind)) = m.maps.normal {
        out.push((
            match kind {
                NormalMap::TwoChannel => "normal (X in A, Y in G)",
                NormalMap::Rgb => "normal (RGB)",
                NormalMap::Height { .. } => "bump (height)",
            },
            t,
        ));
    }
    if let Some(t) = m.maps.emission {
        out.push(("emission", t));
    }
    out
}

/// Textures on/off, the channel shown and the PA team colours.
fn shading(ui: &mut egui::Ui, scene: &Scene, state: &mut UiState) {
    let team = scene.materials.iter().any(|m| m.maps.team_mask.is_some());
    // Open by default where there are team colours to pick: per file and
    // per answer, so a unit opened after another file (or after its first
    // frames, drawn before its companions are read) still shows it.
    egui::CollapsingHeader::new("Shading")
        .id_salt(("shading", &scene.source.file_name, team))
        .default_open(team)
        .show(ui, |ui| {
            ui.checkbox(&mut state.view.textures, "Textures")
                .on_hover_text("T: textures on / off (material and vertex colours only)");
            light_row(ui, state);
            ui.horizontal_wrapped(|ui| {
                ui.label("Channel");
                for c in crate::gpu::Channel::ALL {
                    ui.radio_value(&mut state.view.channel, c, c.name());
                }
            });
            match state.view.channel {
                crate::gpu::Channel::Weights => weights_legend(ui, scene, state),
                crate::gpu::Channel::Uvs => {
                    let text = "the UVs as a checker: eight squares a unit (64 finer ones where there is room), red growing along u, green along v (down the texture); a part without UVs is one colour";
                    ui.add(egui::Label::new(egui::RichText::new(text).weak()).wrap());
                }
                crate::gpu::Channel::Faces => {
                    let text = "which side is seen: fronts blue, backs red (both sides of every part drawn); red from outside is a flipped triangle or an inside-out part";
                    ui.add(egui::Label::new(egui::RichText::new(text).weak()).wrap());
                }
                _ => {}
            }
            ui.add_enabled_ui(team, |ui| {
                ui.horizontal(|ui| {
                    ui.label("Team colours");
                    for (name, preset) in crate::gpu::TeamColors::PRESETS {
                        if ui.button(name).clicked() {
                            state.view.team_colors = preset;
                        }
                    }
                });
                let tc = &mut state.view.team_colors;
                for (label, c) in [
                    ("primary", &mut tc.primary),
                    ("secondary", &mut tc.secondary),
                ] {
                    ui.horizontal(|ui| {
                        let mut srgb = c.map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8);
                        if egui::color_picker::color_edit_button_srgb(ui, &mut srgb).changed() {
                            *c = srgb.map(|x| x as f32 / 255.0);
                        }
                        ui.label(label);
                        ui.monospace(format!("#{:02X}{:02X}{:02X}", srgb[0], srgb[1], srgb[2]));
                    });
                }
            })
            .response
            .on_disabled_hover_text("no material of this file has a team-colour mask");
        });
}

/// The key light's turn from its preset's place, in degrees (also Ctrl +
/// drag in the 3D view), and its reset; only where the preset has a key
/// light.
fn light_row(ui: &mut egui::Ui, state: &mut UiState) {
    use crate::gpu::{LightTurn, Lighting};
    let keyed = matches!(state.view.lighting, Lighting::Studio | Lighting::Top);
    ui.add_enabled_ui(keyed, |ui| {
        ui.horizontal(|ui| {
            ui.label("Light");
            let turn = &mut state.view.light_turn;
            let limit = 2.0 * LightTurn::MAX_ELEVATION.to_degrees();
            for (angle, name, range) in [
                (&mut turn.yaw, "turn ", -180.0..=180.0),
                (&mut turn.pitch, "raise ", -limit..=limit),
            ] {
                let mut degrees = angle.to_degrees();
                let r = ui.add(
                    egui::DragValue::new(&mut degrees)
                        .range(range)
                        .speed(1.0)
                        .max_decimals(0)
                        .prefix(name)
                        .suffix("°"),
                );
                if r.changed() {
                    *angle = degrees.to_radians();
                }
            }
            if ui
                .add_enabled(*turn != LightTurn::default(), egui::Button::new("reset"))
                .clicked()
            {
                *turn = LightTurn::default();
            }
        })
        .response
        .on_hover_text(
            "the key light turned about the up axis and raised from where the lighting puts it; \
             Ctrl + drag in the 3D view turns it too (right: to your right, up: higher)",
        );
    })
    .response
    .on_disabled_hover_text("this lighting has no key light to turn (flat, matcap)");
}

/// What the weights channel shows, and how to pick what it shows.
fn weights_legend(ui: &mut egui::Ui, scene: &Scene, state: &UiState) {
    let bone = state
        .selected_bone
        .and_then(|b| scene.skeleton.bones.get(b));
    let text = if !scene.meshes.iter().any(|m| m.skin.is_some()) {
        "no part of this file is skinned: every part is grey".to_string()
    } else if let Some(b) = bone {
        format!(
            "the weights of bone \"{}\": blue 0, cyan 1/4, green 1/2, yellow 3/4, red 1; grey: not skinned",
            b.name
        )
    } else {
        "select a bone (under Bones, or click it in the view with the skeleton shown: K) to see its weights".to_string()
    };
    ui.add(egui::Label::new(egui::RichText::new(text).weak()).wrap());
}

/// The File section: name, format, size, the format's details, the
/// file's counts with what the viewer added apart, and the preview image.
fn file_section(ui: &mut egui::Ui, scene: &Scene, state: &mut UiState) {
    let s = &scene.source;
    // Maps open on their own panel; the file's facts stay one click away.
    // The header's state is kept apart for maps: the window shows a
    // placeholder (no map) while a file loads, and one state would keep
    // the File section open from it.
    egui::CollapsingHeader::new("File")
        .id_salt(("file", scene.map.is_some()))
        .default_open(scene.map.is_none())
        .show(ui, |ui| {
            egui::Grid::new("file")
                .num_columns(2)
                .striped(true)
                .show(ui, |ui| {
                    let mut row = |k: &str, v: String| {
                        ui.label(k);
                        // Long values (descriptions) wrap inside the panel.
                        ui.add(egui::Label::new(v).wrap());
                        ui.end_row();
                    };
                    row("name", s.file_name.clone());
                    row("format", s.format.to_string());
                    row("size", format!("{} bytes", s.file_size));
                    if let Some(b) = &state.scene_bounds {
                        if let Some(d) = dimensions(b) {
                            row("dimensions", d);
                        }
                        // Where the format gives its unit (M3D's scale, glTF's metres).
                        if let Some(m) = scene.unit_in_metres().filter(|&m| m != 1.0) {
                            let in_metres = crate::scene::Aabb {
                                min: b.min * m,
                                max: b.max * m,
                            };
                            if let Some(d) = dimensions(&in_metres) {
                                row("in metres", d);
                            }
                        }
                    }
                    for (k, v) in &s.details {
                        row(k, v.to_string());
                    }
                    // The file's own counts; what the viewer added apart.
                    let (file, added) = scene.counts();
                    let count = |f: usize, a: usize| {
                        if a == 0 {
                            f.to_string()
                        } else {
                            format!("{f} (+{a} added by the viewer)")
                        }
                    };
                    row("parts", count(file.parts, added.parts));
                    row("vertices", count(file.vertices, added.vertices));
                    row("triangles", count(file.triangles, added.triangles));
                    row("materials", count(file.materials, added.materials));
                    row("textures", count(file.textures, added.textures));
                    row("bones", count(file.bones, added.bones));
                    row("clips", count(file.clips, added.clips));
                    if let Some(p) = &scene.provenance {
                        row("found", p.clone());
                    }
                    if let Some(why) = &scene.added.skeleton {
                        row("skeleton", format!("added by the viewer: {why}"));
                    }
                });
            if let Some(p) = &scene.preview {
                ui.label(format!("preview ({})", p.format));
                match state.preview_id {
                    Some(id) => {
                        ui.add(egui::Image::new((id, egui::vec2(128.0, 128.0))));
                    }
                    None => {
                        ui.weak(format!("[{}x{} image]", p.width, p.height));
                    }
                }
            }
        });
}

/// The Parts section: every mesh with its visibility and facts.
fn parts(
    ui: &mut egui::Ui,
    scene: &Scene,
    state: &mut UiState,
    pose: Option<&crate::anim::Pose>,
    filter: &Filtering,
) {
    // A part picked in the 3D view: its row is shown, however the user
    // left the section, and whatever the filter (as is the selection's).
    let reveal = state.reveal_selection && state.selected_part.is_some();
    let parts = &scene.meshes;
    let (header, matching, count) =
        filter.section("Parts", parts.len(), |i| part_name(&parts[i], i));
    header
        .open(reveal.then_some(true).or(filter.open(count)))
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                if ui.small_button("all").on_hover_text("Alt+H").clicked() {
                    state.show_all_parts();
                }
                if ui.small_button("none").clicked() {
                    state.view.visible.iter_mut().for_each(|v| *v = false);
                }
                if ui.small_button("defaults").clicked() {
                    state.view.visible = scene.meshes.iter().map(|m| m.visible).collect();
                }
                if filter.names.is_active()
                    && ui
                        .small_button("only these")
                        .on_hover_text("show the parts the filter lists, hide the others")
                        .clicked()
                {
                    state.view.visible.clone_from(&matching);
                }
            });
            state.view.visible.resize(scene.meshes.len(), true);
            for (i, m) in scene.meshes.iter().enumerate() {
                let picked = state.picked_vertex.is_some_and(|h| h.part == i);
                if !matching[i] && state.selected_part != Some(i) && !picked {
                    continue;
                }
                let label = part_name(m, i);
                // As a material's header: the row does not wrap, and the
                // hover says why the viewer added the part.
                let label = match scene.added.mesh(i) {
                    Some(_) => format!("{label} (added)"),
                    None => label,
                };
                let hover = format!(
                    "{}{} vertices, {} triangles\nnormals: {}\nUVs: {}\nmaterial: {}\n{}default: {}\n\nclick to select (Shift+F fits it)",
                    scene
                        .added
                        .mesh(i)
                        .map_or(String::new(), |w| format!("added by the viewer: {w}\n")),
                    m.positions.len(),
                    m.triangle_count(),
                    if m.has_file_normals { "stored" } else { "computed" },
                    if m.has_file_uvs { "stored" } else { "none" },
                    m.material.map_or("default".into(), |x| x.to_string()),
                    if m.skin.is_some() { "skinned\n" } else { "" },
                    if m.visible { "visible" } else { "hidden" },
                );
                ui.horizontal(|ui| {
                    let visible = &mut state.view.visible[i];
                    let name = format!("show {label}");
                    ui.checkbox(visible, "")
                        .on_hover_text("visible")
                        .widget_info(|| {
                            egui::WidgetInfo::selected(
                                egui::Role::CheckBox,
                                true,
                                *visible,
                                &name,
                            )
                        });
                    let selected = state.selected_part == Some(i);
                    let row = ui.selectable_label(selected, label);
                    if selected && reveal {
                        row.scroll_to_me(Some(egui::Align::Center));
                    }
                    if row.on_hover_text(hover).clicked() {
                        state.select_part((!selected).then_some(i));
                    }
                    if selected && ui.small_button("fit").on_hover_text("Shift+F").clicked() {
                        state.act(super::UiAction::FitSelection);
                    }
                    if selected
                        && ui
                            .small_button("only")
                            .on_hover_text("show this part alone (Shift+H; Alt+H shows all)")
                            .clicked()
                    {
                        state.show_only_selected_part();
                    }
                });
                ui.indent(i, |ui| {
                    ui.weak(format!(
                        "{} verts · {} tris · material {}{}",
                        m.positions.len(),
                        m.triangle_count(),
                        m.material.map_or("default".into(), |x| x.to_string()),
                        if m.material_overrides.is_empty() {
                            String::new()
                        } else {
                            format!(" · {} override(s)", m.material_overrides.len())
                        }
                    ));
                    if state.selected_part == Some(i)
                        && let Some(d) = state.part_bounds.get(i).and_then(dimensions)
                    {
                        ui.weak(d);
                    }
                    // The vertex a click found on this part, under its row
                    // (it stays when a bone is selected from it).
                    if picked {
                        super::vertex::section(ui, scene, state, pose);
                    }
                    if state.selected_part == Some(i) && m.has_file_uvs && m.triangle_count() > 0 {
                        uv_section(ui, scene, i, state);
                    }
                });
            }
        });
}

/// The selected part's UV layout, over its material's texture.
fn uv_section(ui: &mut egui::Ui, scene: &Scene, part: usize, state: &UiState) {
    let m = &scene.meshes[part];
    let texture = m
        .material
        .and_then(|i| scene.materials.get(i))
        .and_then(|mat| mat.texture)
        .and_then(|t| state.texture_ids.get(t).copied().flatten());
    egui::CollapsingHeader::new("UVs")
        .id_salt("uv layout")
        .default_open(true)
        .show(ui, |ui| {
            let picked = state.picked_vertex.as_ref().filter(|h| h.part == part);
            super::uvs::layout(ui, m, texture, UV_LAYOUT_SIDE, picked)
        });
}

/// The UV layout's side in points: within the material grid's width.
const UV_LAYOUT_SIDE: f32 = 256.0;

/// The Materials section: every material's colours, maps, properties
/// and animation.
fn materials(ui: &mut egui::Ui, scene: &Scene, state: &mut UiState, filter: &Filtering) {
    let materials = &scene.materials;
    let (header, matching, _) =
        filter.section("Materials", materials.len(), |i| &materials[i].name);
    header.show(ui, |ui| {
        for (i, m) in scene.materials.iter().enumerate() {
            if !matching[i] && state.selected_material != Some(i) {
                continue;
            }
            // A header does not wrap: why the viewer added a material
            // is a line of its own inside.
            let added = scene.added.material(i);
            let tail = if added.is_some() { " (added)" } else { "" };
            egui::CollapsingHeader::new(format!("{i}: {}{tail}", m.name))
                .id_salt(("material", i))
                .default_open(scene.materials.len() <= 4)
                .show(ui, |ui| {
                    if let Some(why) = added {
                        let why = format!("added by the viewer: {why}");
                        ui.add(egui::Label::new(egui::RichText::new(why).weak()).wrap());
                    }
                    material(ui, scene, i, m, state)
                });
        }
    });
}

/// Material `i`'s entry: its colours, modes and maps, then its properties
/// and its animation, each folded apart.
fn material(ui: &mut egui::Ui, scene: &Scene, i: usize, m: &Material, state: &mut UiState) {
    egui::Grid::new(("matgrid", i))
        .num_columns(2)
        .show(ui, |ui| {
            colour_rows(ui, m);
            mode_rows(ui, m);
            map_rows(ui, m, state);
        });
    if !m.properties.is_empty() {
        egui::CollapsingHeader::new(format!("Properties ({})", m.properties.len()))
            .id_salt(("material properties", i))
            .default_open(false)
            .show(ui, |ui| {
                egui::Grid::new(("matprops", i))
                    .num_columns(2)
                    .striped(true)
                    .show(ui, |ui| {
                        for p in &m.properties {
                            ui.label(p.to_string());
                            ui.horizontal(|ui| {
                                if let Some(t) = p.texture {
                                    texture_preview(ui, state, t, 32.0);
                                }
                                ui.monospace(p.value.to_string());
                            });
                            ui.end_row();
                        }
                    });
            });
    }
    if m.animation.is_some() {
        egui::CollapsingHeader::new("Animation")
            .id_salt(("material animation", i))
            .default_open(true)
            .show(ui, |ui| super::material::animation(ui, scene, i, m, state));
    }
}

/// A material's colour, emission and shading rows.
fn colour_rows(ui: &mut egui::Ui, m: &Material) {
    ui.label("color");
    ui.horizontal(|ui| {
        swatch(ui, m.base_color);
        ui.monospace(format!(
            "{:.2} {:.2} {:.2} {:.2}",
            m.base_color[0], m.base_color[1], m.base_color[2], m.base_color[3]
        ));
    });
    ui.end_row();
    ui.label("emission");
    ui.horizontal(|ui| {
        swatch(ui, [m.emission[0], m.emission[1], m.emission[2], 1.0]);
        ui.monospace(format!(
            "{:.2} {:.2} {:.2}",
            m.emission[0], m.emission[1], m.emission[2]
        ));
    });
    ui.end_row();
    ui.label("shading");
    ui.monospace(format!("{:.2}", m.shading));
    ui.end_row();
}

/// A material's render mode, sampling and whether it is animated.
fn mode_rows(ui: &mut egui::Ui, m: &Material) {
    ui.label("render mode");
    match (m.blend, m.alpha_cutoff) {
        (BlendMode::Opaque, Some(cutoff)) => {
            ui.label(format!("alpha tested (drawn where alpha >= {cutoff:.2})"))
        }
        (BlendMode::Opaque, None) => ui.label("normal"),
        (BlendMode::Additive, _) => ui.label("add (additive)"),
        (BlendMode::Alpha, _) => ui.label("alpha blended (sorted back to front)"),
    };
    ui.end_row();
    ui.label("sampling");
    ui.label(m.sampling.describe());
    ui.end_row();
    ui.label("animated");
    ui.label(if m.animation.is_some() {
        "yes (values above are the initial ones)"
    } else {
        "no"
    });
    ui.end_row();
}

/// A material's texture and matcap, every other map it uses with its
/// preview, its specular colour and the notes on its maps.
fn map_rows(ui: &mut egui::Ui, m: &Material, state: &mut UiState) {
    let maps = used_maps(m);
    let mut rows = vec![("texture", m.texture), ("matcap", m.matcap)];
    rows.extend(maps.iter().map(|(what, t)| (*what, Some(*t))));
    for (what, t) in rows {
        ui.label(what);
        match t {
            Some(t) => {
                ui.horizontal(|ui| {
                    texture_preview(ui, state, t, 48.0);
                    ui.label(format!("#{t}"));
                });
            }
            None => {
                ui.weak("none");
            }
        }
        ui.end_row();
    }
    if let Some((c, e)) = m.maps.specular {
        ui.label("specular");
        ui.horizontal(|ui| {
            swatch(ui, [c[0], c[1], c[2], 1.0]);
            ui.monospace(format!("exponent {e}"));
        });
        ui.end_row();
    }
    for note in &m.maps.notes {
        ui.label("note");
        // Notes are sentences: wrapped, or the row widens the grid past the
        // panel and the panel's edge is drawn across its content.
        ui.add(egui::Label::new(egui::RichText::new(note).weak()).wrap());
        ui.end_row();
    }
}

/// The inspector: its name filter, then the file, a map's panel, the
/// file's chunks, tables and labels, shading, parts, materials, textures,
/// bones, animations, user fields, warnings and the frame's figures, each
/// a section.
pub fn inspector(
    ui: &mut egui::Ui,
    scene: &Scene,
    state: &mut UiState,
    pose: Option<&crate::anim::Pose>,
) {
    // The filter stays in view above the sections, which scroll.
    let filter = filter_field(ui, state);
    egui::ScrollArea::vertical().show(ui, |ui| sections(ui, scene, state, pose, &filter));
    // The selection made in the 3D view has been brought into view.
    state.reveal_selection = false;
}

/// The inspector's sections, under its filter.
fn sections(
    ui: &mut egui::Ui,
    scene: &Scene,
    state: &mut UiState,
    pose: Option<&crate::anim::Pose>,
    filter: &Filtering,
) {
    file_section(ui, scene, state);
    if let Some(info) = &scene.map {
        super::map::map_panel(ui, info, state, filter);
    }
    chunks_section(ui, &scene.source);
    tables_sections(ui, scene);
    labels_section(ui, scene, state);
    shading(ui, scene, state);
    parts(ui, scene, state, pose, filter);
    materials(ui, scene, state, filter);
    texture_viewer(ui, scene, state);
    textures_section(ui, scene, state, filter);
    bones_section(ui, scene, state, pose, filter);
    animations_section(ui, scene, filter);
    user_fields_section(ui, scene);
    warnings_section(ui, scene);
    frame_section(ui, state);
}

/// A box's size along x, y and z (the scene's axes, Y up), as the
/// inspector shows it: `2.5 × 1.8 × 0.25` at four significant digits or
/// more; nothing for an empty box (no vertex).
pub fn dimensions(b: &crate::scene::Aabb) -> Option<String> {
    if b.is_empty() {
        return None;
    }
    let d = b.max - b.min;
    Some(format!(
        "{} × {} × {}",
        length_text(d.x),
        length_text(d.y),
        length_text(d.z)
    ))
}

/// A part's name as the inspector lists it.
fn part_name(m: &crate::scene::Mesh, i: usize) -> String {
    if m.name.is_empty() {
        format!("part {i}")
    } else {
        m.name.clone()
    }
}

/// "Chunks": the file's chunks, where each starts and its size.
fn chunks_section(ui: &mut egui::Ui, s: &crate::scene::SourceInfo) {
    if s.chunks.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("Chunks ({})", s.chunks.len()))
        .default_open(false)
        .show(ui, |ui| {
            egui::Grid::new("chunks")
                .num_columns(4)
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("chunk");
                    ui.strong("offset");
                    ui.strong("bytes");
                    ui.strong("");
                    ui.end_row();
                    for c in &s.chunks {
                        ui.monospace(c.magic.as_ref());
                        ui.monospace(format!("{:#X}", c.offset));
                        ui.monospace(c.size.to_string());
                        match c.entries {
                            Some(n) if c.note.is_empty() => ui.weak(format!("{n} entries")),
                            Some(n) => ui.weak(format!("{n} entries, {}", c.note)),
                            None => ui.weak(c.note.as_ref()),
                        };
                        ui.end_row();
                    }
                });
        });
}

/// One section a table of the file's (key, value) facts.
fn tables_sections(ui: &mut egui::Ui, scene: &Scene) {
    for (title, rows) in &scene.tables {
        egui::CollapsingHeader::new(format!("{title} ({})", rows.len()))
            .default_open(false)
            .show(ui, |ui| {
                egui::Grid::new(("table", title.as_ref()))
                    .num_columns(2)
                    .striped(true)
                    .show(ui, |ui| {
                        for (k, v) in rows {
                            ui.label(k);
                            ui.label(v);
                            ui.end_row();
                        }
                    });
            });
    }
}

/// "Labels": the file's annotations, and the switch that draws them.
fn labels_section(ui: &mut egui::Ui, scene: &Scene, state: &mut UiState) {
    if scene.labels.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("Labels ({})", scene.labels.len()))
        .default_open(false)
        .show(ui, |ui| {
            ui.checkbox(&mut state.show_labels, "draw over the model (L)");
            egui::Grid::new("labels")
                .num_columns(2)
                .striped(true)
                .show(ui, |ui| {
                    for l in &scene.labels {
                        let [r, g, b, _] = l.color;
                        ui.colored_label(egui::Color32::from_rgb(r, g, b), &l.text);
                        ui.weak(format!(
                            "{}{}{} at ({:.3}, {:.3}, {:.3})",
                            l.group,
                            if l.lang.is_empty() { "" } else { " · " },
                            l.lang,
                            l.position.x,
                            l.position.y,
                            l.position.z
                        ));
                        ui.end_row();
                    }
                });
        });
}

/// "Texture viewer" (texture files): the mip level and channels shown.
fn texture_viewer(ui: &mut egui::Ui, scene: &Scene, state: &mut UiState) {
    if scene.mip_levels.is_empty() {
        return;
    }
    egui::CollapsingHeader::new("Texture viewer")
        .default_open(true)
        .show(ui, |ui| {
            let mut level = state.mip_level;
            egui::ComboBox::new("mip level", "mip level")
                .selected_text(
                    scene
                        .mip_levels
                        .get(level)
                        .map_or("?".into(), |t| t.format.clone()),
                )
                .show_ui(ui, |ui| {
                    for (i, t) in scene.mip_levels.iter().enumerate() {
                        ui.selectable_value(&mut level, i, &t.format);
                    }
                });
            let mut channel = state.channel;
            ui.horizontal(|ui| {
                for c in crate::scene::from_papa::ViewChannel::ALL {
                    ui.selectable_value(&mut channel, c, c.name());
                }
            });
            if (level, channel) != (state.mip_level, state.channel) {
                state.mip_level = level;
                state.channel = channel;
                state.act(super::UiAction::ShowTextureLevel);
            }
        });
}

/// "Textures": each with its preview, format and where it came from.
fn textures_section(ui: &mut egui::Ui, scene: &Scene, state: &mut UiState, filter: &Filtering) {
    let textures = &scene.textures;
    let (header, matching, _) = filter.section("Textures", textures.len(), |i| &textures[i].name);
    header.show(ui, |ui| {
        for (i, t) in scene.textures.iter().enumerate() {
            if !matching[i] {
                continue;
            }
            ui.horizontal(|ui| {
                texture_preview(ui, state, i, 64.0);
                ui.vertical(|ui| {
                    ui.horizontal(|ui| {
                        ui.label(format!("{i}: {}", t.name));
                        if ui
                            .small_button("save")
                            .on_hover_text(
                                "save it as a PNG in the current folder, at its full size, as decoded",
                            )
                            .clicked()
                        {
                            state.act(super::UiAction::SaveTexture(i));
                        }
                    });
                    ui.weak(&t.format);
                    if let Some(why) = scene.added.texture(i) {
                        ui.weak(format!("added by the viewer: {why}"));
                    }
                    match &t.source {
                        TextureSource::Embedded => ui.weak("embedded"),
                        TextureSource::External(p) => ui.weak(p.display().to_string()),
                        TextureSource::Missing(why) => ui.colored_label(
                            egui::Color32::from_rgb(255, 170, 80),
                            format!("missing: {why}"),
                        ),
                    };
                });
            });
        }
    });
}

/// "Bones": the skeleton's tree and the selected bone's transforms.
fn bones_section(
    ui: &mut egui::Ui,
    scene: &Scene,
    state: &mut UiState,
    pose: Option<&crate::anim::Pose>,
    filter: &Filtering,
) {
    // A bone picked in the 3D view: the section and the bone's ancestors
    // are opened and its row scrolled to, however the user left them.
    let reveal = state
        .reveal_selection
        .then_some(state.selected_bone)
        .flatten();
    let bones = &scene.skeleton.bones;
    let (header, matching, count) = filter.section("Bones", bones.len(), |i| &bones[i].name);
    header
        .open(reveal.map(|_| true).or(filter.open(count)))
        .show(ui, |ui| {
            let influence = state
                .bone_influence
                .get_or_insert_with(|| scene.bone_influence().into())
                .clone();
            let tree = BoneTree::new(scene, reveal, influence);
            let mut rows = 0;
            if filter.names.is_active() {
                // The matching bones (and the selected one), in bone order,
                // flat, each with its parent: none hides in a folded branch.
                let selected = state.selected_bone;
                let listed = |&i: &usize| matching[i] || selected == Some(i);
                for i in (0..bones.len()).filter(listed) {
                    if rows >= BONE_ROWS {
                        break;
                    }
                    rows += 1;
                    ui.horizontal(|ui| {
                        tree.label(ui, state, i, &bones[i].name);
                        if let Some(p) = bones[i].parent.and_then(|p| bones.get(p)) {
                            ui.weak(format!("in {}", p.name));
                        }
                    });
                }
            } else {
                for i in (0..bones.len()).filter(|&i| bones[i].parent.is_none()) {
                    tree.node(ui, state, &mut rows, i, 0);
                }
            }
            if rows >= BONE_ROWS {
                ui.label(format!(
                    "(the first {BONE_ROWS} rows of {} bones are shown)",
                    bones.len()
                ));
            }
            if let Some(i) = state.selected_bone.filter(|&i| i < bones.len()) {
                bone_details(ui, scene, i, pose);
                if let Some(text) = tree.moves(i) {
                    ui.weak(text);
                }
                let weights = state.view.channel == crate::gpu::Channel::Weights;
                if ui
                    .selectable_label(weights, "show its weights")
                    .on_hover_text(
                        "the weights channel: each vertex by this bone's weight (Shading)",
                    )
                    .clicked()
                {
                    state.view.channel = if weights {
                        crate::gpu::Channel::Shaded
                    } else {
                        crate::gpu::Channel::Weights
                    };
                }
            }
        });
}

/// "Animations": each clip's frames and length.
fn animations_section(ui: &mut egui::Ui, scene: &Scene, filter: &Filtering) {
    if scene.clips.is_empty() {
        return;
    }
    let clips = &scene.clips;
    let (header, matching, _) = filter.section("Animations", clips.len(), |i| &clips[i].name);
    header.show(ui, |ui| {
        for (i, c) in scene.clips.iter().enumerate() {
            if !matching[i] {
                continue;
            }
            ui.label(format!(
                "{}: {} frames, {:.2} s",
                c.name, c.frames, c.duration_s
            ));
            if let Some(why) = scene.added.clip(i) {
                ui.weak(format!("added by the viewer: {why}"));
            }
        }
    });
}

/// "User-defined fields": name, type and value.
fn user_fields_section(ui: &mut egui::Ui, scene: &Scene) {
    egui::CollapsingHeader::new(format!("User-defined fields ({})", scene.user_fields.len()))
        .default_open(true)
        .show(ui, |ui| {
            egui::Grid::new("udf")
                .num_columns(3)
                .striped(true)
                .show(ui, |ui| {
                    for f in &scene.user_fields {
                        ui.label(&f.name);
                        ui.weak(&f.ty);
                        ui.monospace(&f.value);
                        ui.end_row();
                    }
                });
        });
}

/// "Warnings": what the load warned of.
fn warnings_section(ui: &mut egui::Ui, scene: &Scene) {
    if scene.warnings.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("Warnings ({})", scene.warnings.len()))
        .default_open(true)
        .show(ui, |ui| {
            for w in &scene.warnings {
                ui.colored_label(egui::Color32::from_rgb(255, 170, 80), w);
            }
        });
}

/// "Frame": the frame rate, draw calls and triangles.
fn frame_section(ui: &mut egui::Ui, state: &UiState) {
    egui::CollapsingHeader::new("Frame")
        .default_open(true)
        .show(ui, |ui| {
            ui.label(super::frame_rate(state));
            ui.label(format!(
                "{} draw calls, {} triangles",
                state.stats.draw_calls, state.stats.triangles
            ));
        });
}

fn transform_text(m: &glam::Mat4) -> String {
    let (s, r, t) = m.to_scale_rotation_translation();
    let (x, y, z) = r.to_euler(glam::EulerRot::XYZ);
    format!(
        "T {:8.3} {:8.3} {:8.3}\nR {:8.2} {:8.2} {:8.2} °\nS {:8.3} {:8.3} {:8.3}",
        t.x,
        t.y,
        t.z,
        x.to_degrees(),
        y.to_degrees(),
        z.to_degrees(),
        s.x,
        s.y,
        s.z
    )
}

/// Levels of the bone tree shown nested (deeper bones are listed flat
/// under the deepest, with their depth), and rows shown in all: a file's
/// skeleton may be a chain of a million bones.
const BONE_NESTING: usize = 16;
const BONE_ROWS: usize = 2000;

/// The skeleton as the inspector's tree: each bone's first child and next
/// sibling, in bone order (two lists a frame, whatever the bone count).
struct BoneTree<'a> {
    scene: &'a Scene,
    first_child: Vec<Option<usize>>,
    next_sibling: Vec<Option<usize>>,
    /// The bone to bring into view this frame, and its ancestors (to open).
    reveal: Option<usize>,
    ancestors: Vec<bool>,
    /// What each bone moves, where a part is skinned at all (a skeleton
    /// alone moves nothing to report).
    influence: Option<std::sync::Arc<[crate::scene::BoneInfluence]>>,
}

impl<'a> BoneTree<'a> {
    fn new(
        scene: &'a Scene,
        reveal: Option<usize>,
        influence: std::sync::Arc<[crate::scene::BoneInfluence]>,
    ) -> Self {
        let n = scene.skeleton.bones.len();
        let (mut first_child, mut next_sibling) = (vec![None; n], vec![None; n]);
        // Last bone first, so that each list ends up in bone order.
        for (i, b) in scene.skeleton.bones.iter().enumerate().rev() {
            if let Some(first) = b.parent.and_then(|p| first_child.get_mut(p)) {
                next_sibling[i] = *first;
                *first = Some(i);
            }
        }
        // Parents come before their children, so the walk up ends.
        let mut ancestors = Vec::new();
        let bones = &scene.skeleton.bones;
        if let Some(mut b) = reveal.filter(|&b| b < n) {
            ancestors.resize(n, false);
            while let Some(p) = bones[b].parent.filter(|&p| p < b) {
                ancestors[p] = true;
                b = p;
            }
        }
        let skinned = scene.meshes.iter().any(|m| m.skin.is_some());
        BoneTree {
            scene,
            first_child,
            next_sibling,
            reveal,
            ancestors,
            influence: skinned.then_some(influence),
        }
    }

    /// What bone `i` moves, in words: `moves 312 vertices in 2 parts, by
    /// up to 100%`, or that it moves none; nothing where no part is
    /// skinned.
    fn moves(&self, i: usize) -> Option<String> {
        let b = self.influence.as_ref()?.get(i)?;
        Some(match b.vertices {
            0 => "moves no vertex".into(),
            v => format!(
                "moves {v} vert{} in {} part{}, by up to {}",
                if v == 1 { "ex" } else { "ices" },
                b.parts,
                if b.parts == 1 { "" } else { "s" },
                super::vertex::percent(b.max_weight as u32)
            ),
        })
    }

    /// Bone `i`'s row: its name selects it, its head and tail and what it
    /// moves on hover; a bone that moves no vertex of a skinned model is
    /// dimmed (a helper, an end bone, or a bone the weights forgot).
    fn label(&self, ui: &mut egui::Ui, state: &mut UiState, i: usize, text: &str) {
        let b = &self.scene.skeleton.bones[i];
        let selected = state.selected_bone == Some(i);
        let idle = self
            .influence
            .as_ref()
            .and_then(|inf| inf.get(i))
            .is_some_and(|b| b.vertices == 0);
        let text = if idle {
            egui::RichText::new(text).weak()
        } else {
            egui::RichText::new(text)
        };
        let row = ui.selectable_label(selected, text);
        if self.reveal == Some(i) {
            row.scroll_to_me(Some(egui::Align::Center));
        }
        // The hover's text is made only while hovered: a skeleton's rows
        // would otherwise each format theirs every frame.
        if row
            .on_hover_ui(|ui| {
                ui.label(format!(
                    "head {:.3?}\ntail {:.3?}{}",
                    b.head.to_array(),
                    b.tail.to_array(),
                    self.moves(i).map_or(String::new(), |m| format!("\n{m}"))
                ));
            })
            .clicked()
        {
            state.select_bone(Some(i));
        }
    }

    /// Bone `i` at `depth`, and below it its children, while `rows` is
    /// under [`BONE_ROWS`].
    fn node(
        &self,
        ui: &mut egui::Ui,
        state: &mut UiState,
        rows: &mut usize,
        i: usize,
        depth: usize,
    ) {
        if *rows >= BONE_ROWS {
            return;
        }
        *rows += 1;
        let name = self.scene.skeleton.bones[i].name.as_str();
        let Some(first) = self.first_child[i] else {
            self.label(ui, state, i, name);
            return;
        };
        let id = ui.make_persistent_id(("bone", i));
        let mut folding =
            egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, true);
        if self.ancestors.get(i) == Some(&true) {
            folding.set_open(true);
        }
        folding
            .show_header(ui, |ui| self.label(ui, state, i, name))
            .body(|ui| {
                if depth + 1 < BONE_NESTING {
                    let mut child = Some(first);
                    while let Some(c) = child {
                        self.node(ui, state, rows, c, depth + 1);
                        child = self.next_sibling[c];
                    }
                    return;
                }
                // Deeper: every descendant flat, in tree order (a bone, then
                // its children, then its next sibling).
                let mut stack = vec![(first, depth + 1)];
                while let Some((c, d)) = stack.pop() {
                    if *rows >= BONE_ROWS {
                        return;
                    }
                    *rows += 1;
                    let b = &self.scene.skeleton.bones[c];
                    self.label(ui, state, c, &format!("(depth {d}) {}", b.name));
                    stack.extend(self.next_sibling[c].map(|s| (s, d)));
                    stack.extend(self.first_child[c].map(|g| (g, d + 1)));
                }
            });
    }
}

/// Rest and current transforms of a bone, local (to its parent) and in model space.
fn bone_details(ui: &mut egui::Ui, scene: &Scene, i: usize, pose: Option<&crate::anim::Pose>) {
    let b = &scene.skeleton.bones[i];
    ui.separator();
    ui.strong(format!("{} (bone {i})", b.name));
    ui.weak(format!(
        "parent: {}   length {:.3}",
        b.parent
            .map_or("none".to_string(), |p| scene.skeleton.bones[p].name.clone()),
        (b.tail - b.head).length()
    ));
    egui::Grid::new(("bone", i)).num_columns(2).show(ui, |ui| {
        ui.label("rest local");
        ui.monospace(transform_text(&scene.skeleton.rest_local(i)));
        ui.end_row();
        ui.label("rest model");
        ui.monospace(transform_text(&b.rest));
        ui.end_row();
        if let Some((l, w)) = pose.and_then(|p| Some((p.local.get(i)?, p.world.get(i)?))) {
            ui.label("current local");
            ui.monospace(transform_text(l));
            ui.end_row();
            ui.label("current model");
            ui.monospace(transform_text(w));
            ui.end_row();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::dimensions;
    use crate::scene::Aabb;
    use glam::Vec3;

    #[test]
    fn dimensions_read_at_four_significant_digits() {
        let b = |min: [f32; 3], max: [f32; 3]| Aabb {
            min: Vec3::from(min),
            max: Vec3::from(max),
        };
        // 2.5, 1.8 and 0.25 as typed, trailing zeros dropped.
        assert_eq!(
            dimensions(&b([-1.0, 0.0, -0.125], [1.5, 1.8, 0.125])).as_deref(),
            Some("2.5 × 1.8 × 0.25")
        );
        // Past 1000 whole units; a flat box is 0 thick; 99.99 keeps two
        // decimals, 0.0012346 four significant digits.
        assert_eq!(
            dimensions(&b([0.0; 3], [1234.6, 0.0, 99.99])).as_deref(),
            Some("1235 × 0 × 99.99")
        );
        assert_eq!(
            dimensions(&b([0.0; 3], [0.0012346, 2.0, 3.0])).as_deref(),
            Some("0.001235 × 2 × 3")
        );
        assert_eq!(dimensions(&Aabb::EMPTY), None);
    }
}
