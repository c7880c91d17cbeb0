//! `facet info`: the decoded structure as text or JSON for scripts. The JSON
//! `summary` object has the same keys for every format.

use crate::anim::Pose;
use crate::formats::{m3d, p3m, papa, pmf};
use crate::load::{Loaded, Raw};
use crate::scene::{Counts, Scene};
use serde_json::{Value, json};
use std::fmt::Write;

/// `info`: what `file` holds, as text or (`json`) JSON, with the pose of
/// `clip` at `time` seconds when one is named. Only what textures declare
/// is read, never their texels.
pub fn info(
    file: &std::path::Path,
    json: bool,
    clip: Option<&str>,
    time: f32,
    options: crate::load::LoadOptions,
) -> anyhow::Result<()> {
    let loaded = crate::load::load_file_with(file, &options.headers_only())?;
    let pose = clip
        .map(|c| pose_json(&loaded.scene, c, time))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    if json {
        let mut v = to_json(&loaded);
        if let Some(p) = pose {
            v["pose"] = p;
        }
        super::print(format_args!("{}\n", serde_json::to_string_pretty(&v)?))?;
    } else {
        super::print(format_args!("{}", to_text(&loaded)))?;
        if let Some(p) = pose {
            super::print(format_args!("{}", pose_text(&p)))?;
        }
    }
    Ok(())
}

fn counts_json(c: &Counts) -> Value {
    json!({
        "parts": c.parts,
        "vertices": c.vertices,
        "triangles": c.triangles,
        "materials": c.materials,
        "textures": c.textures,
        "bones": c.bones,
        "clips": c.clips,
    })
}

pub fn summary(l: &Loaded) -> Value {
    let s = &l.scene;
    let (file, added) = l.scene.counts();
    let mut v = json!({"format": s.source.format});
    if let (Value::Object(o), Value::Object(c)) = (&mut v, counts_json(&file)) {
        o.extend(c);
    }
    v["added"] = counts_json(&added);
    if let Some(m) = &s.map {
        let map = &m.map;
        v["sectors"] = json!(map.sectors.len());
        v["cubes"] = json!(map.sectors.iter().map(|s| s.cubes.len()).sum::<usize>());
        v["lightmaps"] = json!(
            map.sectors
                .iter()
                .map(|s| s.lightmap_sizes.len())
                .sum::<usize>()
        );
    }
    v
}

fn text_json(t: &pmf::Text) -> Value {
    json!(t.text)
}

fn pmf_value(v: &pmf::Value) -> Value {
    use pmf::Value as V;
    match v {
        V::Flags(x) | V::Enum(x) => json!(x),
        V::U16(x) | V::Material(x) | V::Light(x) => json!(x),
        V::U32(x) | V::Filter(x) | V::Selector(x) | V::Team(x) => json!(x),
        V::I16(x) => json!(x),
        V::F32(x) => json!(x),
        V::Vec2(x) => json!(x),
        V::Vec3(x) => json!(x),
        V::Vec4(x) => json!(x),
        V::I8x2(x) => json!(x),
        V::Str(t) => text_json(t),
        V::Signals(l) => json!(l.iter().map(text_json).collect::<Vec<_>>()),
        V::Actions(l) => json!(l),
    }
}

fn pmf_fields(names: &[(&str, pmf::Field)], values: &[pmf::Value]) -> Value {
    let mut o = serde_json::Map::new();
    for ((n, _), v) in names.iter().zip(values) {
        o.insert(n.to_string(), pmf_value(v));
    }
    Value::Object(o)
}

fn pmf_json(map: &pmf::Pmf) -> Value {
    let records = |list: &[pmf::Record], kinds: &[(&str, &[(&str, pmf::Field)])]| {
        list.iter()
            .map(|r| {
                let (name, fields) = kinds[r.kind as usize];
                json!({"at": r.at, "type": name, "fields": pmf_fields(fields, &r.fields)})
            })
            .collect::<Vec<_>>()
    };
    json!({
        "version": [map.version.0, map.version.1],
        "name": map.name,
        "authors": map.authors,
        "description": map.description,
        "created": map.created,
        "gamemodes": map.gamemodes,
        "difficulties": map.difficulties,
        "materials": map.materials.iter().map(|m| json!({
            "appearance": m.appearance.text, "fluid": m.is_fluid, "alpha": m.has_alpha,
            "speed_mul": m.speed_mul, "accel_mul": m.accel_mul,
            "min_damage_speed": m.min_damage_speed, "base_damage": m.base_damage,
            "damage_per_mps": m.damage_per_mps,
        })).collect::<Vec<_>>(),
        "dynamic_lights": map.dynamic_light_count,
        "fast_lights": map.fast_lights,
        "teams": map.teams.iter().map(|t| json!({"name": t.name.text, "color": t.color})).collect::<Vec<_>>(),
        "sector_counts": map.sector_counts,
        "sector_size": map.sector_size(),
        "sectors": map.sectors.iter().enumerate().map(|(i, s)| json!({
            "coords": map.sector_coords(i),
            "load_radius": s.load_radius,
            "lightmaps": s.lightmaps.iter().map(|l| l.size()).collect::<Vec<_>>(),
            "extra_lightmaps": s.extra_lightmaps.len(),
            "props": s.props.len(),
            "cubes": s.cubes.len(),
            "chunk_cubes": s.cubes.iter().filter(|c| c.chunk.is_some()).count(),
            "triangles": s.triangles.len(),
            "dynamic_lights": s.dynamic_lights.iter().map(|d| d.light).collect::<Vec<_>>(),
            "fast_lights": s.fast_lights.iter().map(|f| json!({"light": f.light, "points": f.points.len()})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "entities": map.entities.entities.iter().map(|e| json!({
            "name": e.name.text, "type": e.kind_name(), "difficulties": e.difficulties,
            "gamemodes": e.gamemodes, "fields": pmf_fields(e.field_names(), &e.fields),
        })).collect::<Vec<_>>(),
        "actions": records(&map.entities.actions, &pmf::ACTION_KINDS),
        "filters": records(&map.entities.filters, &pmf::FILTER_KINDS),
        "selectors": records(&map.entities.selectors, &pmf::SELECTOR_KINDS),
    })
}

fn interp(i: p3m::Interp) -> &'static str {
    match i {
        p3m::Interp::None => "none",
        p3m::Interp::Linear => "linear",
    }
}

fn track(t: &[p3m::Key<[f32; 3], p3m::Interp>]) -> Value {
    keys(t, |k| json!({"interp": interp(k.interp), "value": k.value}))
}

/// A keyframe track as `[{frame, ...fields of f}]`.
fn keys<T, I>(track: &[p3m::Key<T, I>], f: impl Fn(&p3m::Key<T, I>) -> Value) -> Value {
    let frames = p3m::key_frames(track.iter().map(|k| k.skip));
    track
        .iter()
        .zip(frames)
        .map(|(k, frame)| {
            let mut v = f(k);
            v["frame"] = json!(frame);
            v
        })
        .collect()
}

fn p3m_json(m: &p3m::P3m) -> Value {
    json!({
        "layout": m.layout.name(),
        "version": m.version,
        "flags": m.flags,
        "string_table": {"offset": m.string_table.0, "size": m.string_table.1},
        "parts": m.parts.iter().map(|p| json!({
            "name": p.name,
            "visible": p.visible,
            "material": p.material,
            "has_uvs": p.uvs.is_some(),
            "has_normals": p.normals.is_some(),
            "vertices": p.positions.len(),
            "indices": p.indices.len(),
            "material_overrides": p.material_overrides.iter().map(|o| json!({"animation": o.animation, "priority": o.priority, "material": o.material})).collect::<Vec<_>>(),
            "weight_groups": p.weight_groups.iter().map(|g| json!({"bone": g.bone, "weights": g.iter().count(), "ranges": g.ranges.len()})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "materials": m.materials.iter().map(|x| {
            let d = &x.data;
            let mut v = json!({
                "render_mode": match x.render_mode { p3m::RenderMode::Normal => "normal", p3m::RenderMode::Add => "add" },
                "color": d.color, "emission": d.emission, "shading": d.shading,
                "texture": d.texture, "matcap": d.matcap,
                "animated": x.animation.is_some(),
            });
            if let Some(a) = &x.animation {
                v["animation"] = json!({
                    "us_per_frame": a.us_per_frame,
                    "loop": format!("{:?}", a.loop_mode).to_lowercase(),
                    "preserve_texture_scroll": a.preserve_texture_scroll,
                    "texture_scroll": a.texture_scroll,
                    "matcap_scroll": a.matcap_scroll,
                    "last_frame": a.last_frame,
                    "tracks": {
                        "color": keys(&a.color, |k| json!({"interp": format!("{:?}", k.interp), "value": k.value})),
                        "emission": keys(&a.emission, |k| json!({"interp": format!("{:?}", k.interp), "value": k.value})),
                        "shading": keys(&a.shading, |k| json!({"interp": interp(k.interp), "value": k.value})),
                        "texture": keys(&a.texture, |k| json!({"value": k.value})),
                        "matcap": keys(&a.matcap, |k| json!({"value": k.value})),
                    },
                });
            }
            v
        }).collect::<Vec<_>>(),
        "textures": m.textures.iter().map(|t| match t {
            p3m::Texture::Embedded { offset, size, ptf } => json!({
                "type": "embedded", "offset": offset, "size": size,
                "ptf": match ptf { Ok(p) => json!({"width": p.width, "height": p.height, "format": p.format.name()}), Err(e) => json!({"error": e.to_string()}) },
            }),
            p3m::Texture::External { path, written_as_embedded } => json!({"type": "external", "path": path, "written_as_embedded": written_as_embedded}),
        }).collect::<Vec<_>>(),
        "bones": m.bones.iter().map(|b| json!({"name": b.name, "head": b.head, "tail": b.tail, "children": b.child_count, "parent": b.parent})).collect::<Vec<_>>(),
        "animations": m.animations.iter().map(|a| json!({
            "name": a.name,
            "actions": a.actions.iter().map(|r| json!({"action": r.action, "speed": r.speed, "start": r.start, "end": r.end})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "actions": m.actions.iter().map(|a| json!({
            "us_per_frame": a.us_per_frame,
            "part_list_mode": format!("{:?}", a.part_list_mode),
            "parts": a.parts,
            "bones": a.bones.iter().map(|b| json!({"bone": b.bone, "translation": track(&b.translation), "rotation": track(&b.rotation), "scale": track(&b.scale)})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "user_fields": m.user_fields.iter().map(|f| json!({"name": f.name, "type": f.ty.name(), "array": f.is_array, "value": f.value_string()})).collect::<Vec<_>>(),
    })
}

fn papa_json(p: &papa::Papa) -> Value {
    let m16 = |m: &[f32; 16]| m.to_vec();
    json!({
        "tables": p.tables.iter().map(|t| json!({"table": t.name, "count": t.count, "offset": t.offset})).collect::<Vec<_>>(),
        "textures": p.textures.iter().map(|t| json!({
            "name": t.name, "format": t.format.map(|f| f.name()), "width": t.width, "height": t.height,
            "mips": t.mips, "srgb": t.srgb, "linked": matches!(t.data, papa::TextureData::Linked),
        })).collect::<Vec<_>>(),
        "vertex_buffers": p.vertex_buffers.iter().map(|v| json!({"format": v.format, "layout": v.layout().name, "vertices": v.count})).collect::<Vec<_>>(),
        "index_buffers": p.index_buffers.iter().map(|b| json!({"format": if b.format == 0 { "u16" } else { "u32" }, "indices": b.indices.len()})).collect::<Vec<_>>(),
        "materials": p.materials.iter().map(|m| json!({
            "shader": m.shader,
            "vectors": m.vectors.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
            "textures": m.textures.iter().map(|(n, t)| json!({"name": n, "texture": t})).collect::<Vec<_>>(),
            "matrices": m.matrices.iter().map(|(n, x)| json!({"name": n, "value": x.to_vec()})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "meshes": p.meshes.iter().map(|m| json!({
            "vertex_buffer": m.vertex_buffer, "index_buffer": m.index_buffer,
            "groups": m.groups.iter().map(|g| json!({"name": g.name, "material": g.material, "first_index": g.first_index, "primitives": g.primitives, "type": g.primitive_type})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "skeletons": p.skeletons.iter().map(|s| json!({
            "bones": s.bones.iter().map(|b| json!({"name": b.name, "parent": b.parent, "translation": b.translation, "rotation": b.rotation, "shear_scale": b.shear_scale, "bind2bone": b.bind2bone.to_vec()})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "models": p.models.iter().map(|m| json!({
            "name": m.name, "skeleton": m.skeleton, "model2scene": m16(&m.model2scene),
            "bindings": m.bindings.iter().map(|b| json!({"name": b.name, "mesh": b.mesh, "mesh2model": m16(&b.mesh2model), "bone_map": b.bone_map})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "animations": p.animations.iter().map(|a| json!({"name": a.name, "bones": a.bones, "frames": a.frames, "fps": [a.fps_num, a.fps_den]})).collect::<Vec<_>>(),
        "warnings": p.warnings,
    })
}

fn m3d_json(m: &m3d::M3d) -> Value {
    let t = &m.types;
    json!({
        "name": m.name, "license": m.license, "author": m.author, "description": m.description,
        "scale": m.scale,
        "compressed": m.compressed,
        "ascii": m.ascii,
        "payload_bytes": m.payload_len,
        "preview_bytes": m.preview.as_ref().map(|p| p.len()),
        "types": {"vc": t.vc, "vi": t.vi, "si": t.si, "ci": t.ci, "ti": t.ti, "bi": t.bi, "nb": t.nb, "sk": t.sk, "fc": t.fc, "hi": t.hi, "fi": t.fi, "vd": t.vd, "vp": t.vp},
        "chunks": m.chunks.iter().map(|c| json!({"magic": c.magic, "offset": c.offset, "size": c.size})).collect::<Vec<_>>(),
        "colors": m.cmap.len(),
        "uvs": m.tmap.len(),
        "vertices": m.vertices.len(),
        "quaternions": m.vertices.iter().filter(|v| v.skin == m3d::QUATERNION).count(),
        "faces": m.faces.len(),
        "triangles": m.faces.triangles(),
        "bones": m.bones.iter().map(|b| json!({"name": b.name, "parent": b.parent, "pos": b.pos, "ori": b.ori})).collect::<Vec<_>>(),
        "skins": m.skins.len(),
        "materials": m.materials.iter().map(|x| json!({
            "name": x.name,
            "properties": x.props.iter().map(|p| json!({"type": p.ty, "name": m3d::property_name(p.ty), "value": match &p.value {
                m3d::PropValue::Color(c) => json!(format!("#{:08X}", c.swap_bytes())),
                m3d::PropValue::Float(f) => json!(f),
                m3d::PropValue::Int(i) => json!(i),
                m3d::PropValue::Map(n) => json!(n),
            }})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "voxel_types": m.voxel_types.len(),
        "voxel_blocks": m.voxel_blocks.iter().map(|b| json!({"name": b.name, "pos": b.pos, "size": b.size})).collect::<Vec<_>>(),
        "labels": m.labels.iter().map(|l| json!({"group": l.group, "lang": l.lang, "vertex": l.vertex, "text": l.text})).collect::<Vec<_>>(),
        "actions": m.actions.iter().map(|a| json!({"name": a.name, "duration_ms": a.duration_ms, "frames": a.frames.len()})).collect::<Vec<_>>(),
        "assets": m.assets.iter().map(|a| json!({"name": a.name, "bytes": a.data.len()})).collect::<Vec<_>>(),
        "shapes": m.shapes.iter().map(|(n, s)| json!({"name": n, "bytes": s})).collect::<Vec<_>>(),
        "procedures": m.procedures,
        "warnings": m.warnings,
    })
}

/// Every bone of the scene posed by clip `clip` at `time` seconds: its
/// model-space matrix (column-major, in the scene's space: Y up,
/// right-handed, see `docs/formats.md`), head, and tail where the format
/// stores tails.
pub fn pose_json(scene: &Scene, clip: &str, time: f32) -> Result<Value, String> {
    let c = scene.clips.iter().find(|c| c.name == clip).ok_or_else(|| {
        let names: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
        if names.is_empty() {
            format!(
                "{}: no clip {clip:?} (the file has no clips)",
                scene.source.file_name
            )
        } else {
            format!(
                "{}: no clip {clip:?} (clips: {})",
                scene.source.file_name,
                names.join(", ")
            )
        }
    })?;
    let sk = &scene.skeleton;
    let mut pose = Pose::new(sk);
    pose.evaluate(sk, Some(c), time);
    let bones: Vec<Value> = sk
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let world = pose.world[i];
            let mut v = json!({
                "name": b.name,
                "parent": b.parent,
                "matrix": world.to_cols_array().to_vec(),
                "head": world.w_axis.truncate().to_array(),
            });
            if sk.tails_from_file {
                v["tail"] = json!(pose.skin[i].transform_point3(b.tail).to_array());
            }
            v
        })
        .collect();
    Ok(json!({
        "clip": c.name,
        "time": time,
        "frame": c.frame_at(time),
        "space": "scene: Y up, right-handed, the file's units; matrices column-major",
        "bones": bones,
    }))
}

/// The pose section as text: one line a bone.
pub fn pose_text(pose: &Value) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "pose of {} at {} s (frame {:.2}):",
        pose["clip"],
        pose["time"],
        pose["frame"].as_f64().unwrap_or(0.0)
    );
    let v3 = |v: &Value| {
        let a: Vec<String> = v
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| format!("{:.4}", x.as_f64().unwrap_or(0.0)))
                    .collect()
            })
            .unwrap_or_default();
        format!("({})", a.join(", "))
    };
    for b in pose["bones"].as_array().into_iter().flatten() {
        let _ = write!(
            o,
            "  {}: head {}",
            b["name"].as_str().unwrap_or(""),
            v3(&b["head"])
        );
        if !b["tail"].is_null() {
            let _ = write!(o, ", tail {}", v3(&b["tail"]));
        }
        let _ = writeln!(o);
    }
    o
}

pub fn to_json(l: &Loaded) -> Value {
    let s = &l.scene;
    let mut v = json!({
        "file": s.source.file_name,
        "size": s.source.file_size,
        "summary": summary(l),
        "clips": s.clips.iter().map(|c| json!({"name": c.name, "frames": c.frames, "duration_s": c.duration_s})).collect::<Vec<_>>(),
        "warnings": s.warnings,
    });
    match &l.raw {
        Raw::P3m(m) => v["p3m"] = p3m_json(m),
        Raw::M3d(m) => v["m3d"] = m3d_json(m),
        Raw::Papa(p) => v["papa"] = papa_json(p),
        Raw::Pmf(m) => v["pmf"] = pmf_json(m),
        Raw::Ptf(t) => {
            v["ptf"] = json!({"width": t.width, "height": t.height, "format": t.format.name(), "layout": format!("{:?}", t.layout), "generation": t.layout.generation()})
        }
        // What the file holds is the scene above.
        Raw::Gltf => {}
    }
    v
}

fn added_note(why: Option<&str>) -> String {
    why.map_or(String::new(), |w| format!(" (added by the viewer: {w})"))
}

pub fn to_text(l: &Loaded) -> String {
    let s = &l.scene;
    let mut o = String::new();
    header_text(&mut o, s);
    map_text(&mut o, l);
    parts_text(&mut o, s);
    materials_text(&mut o, s);
    textures_text(&mut o, s);
    bones_text(&mut o, s);
    clips_text(&mut o, s);
    actions_text(&mut o, l);
    user_fields_text(&mut o, s);
    for w in &s.warnings {
        let _ = writeln!(o, "warning: {w}");
    }
    o
}

/// The file's name, format and size, its details, and what it holds
/// apart from what the viewer added.
fn header_text(o: &mut String, s: &Scene) {
    let _ = writeln!(
        o,
        "{}: {} file, {} bytes",
        s.source.file_name, s.source.format, s.source.file_size
    );
    for (k, v) in &s.source.details {
        let _ = writeln!(o, "  {k}: {v}");
    }
    let (file, added) = s.counts();
    let line = |c: &Counts| {
        format!(
            "{} parts, {} vertices, {} triangles, {} materials, {} textures, {} bones, {} clips",
            c.parts, c.vertices, c.triangles, c.materials, c.textures, c.bones, c.clips
        )
    };
    let _ = writeln!(o, "  in the file: {}", line(&file));
    if added != Counts::default() {
        let _ = writeln!(o, "  added by the viewer: {}", line(&added));
    }
    if let Some(p) = &s.provenance {
        let _ = writeln!(o, "  {p}");
    }
}

/// A map's sectors and its entities.
fn map_text(o: &mut String, l: &Loaded) {
    let s = &l.scene;
    if let Some(info) = &s.map {
        let map = &info.map;
        let _ = writeln!(o, "sectors:");
        for (i, sec) in map.sectors.iter().enumerate() {
            let _ = writeln!(
                o,
                "  {i} {:?}: {} cubes ({} chunk), {} triangles, {} lightmap(s) of {}, {} props, {} dynamic / {} fast lights",
                map.sector_coords(i),
                sec.cubes.len(),
                sec.cubes.iter().filter(|c| c.chunk.is_some()).count(),
                sec.triangles.len(),
                sec.lightmap_sizes.len(),
                sec.lightmap_sizes.first().copied().unwrap_or(0),
                sec.props.len(),
                sec.dynamic_lights.len(),
                sec.fast_lights.len()
            );
        }
    }
    if let Raw::Pmf(map) = &l.raw {
        let _ = writeln!(o, "entities:");
        for e in &map.entities.entities {
            let _ = writeln!(
                o,
                "  {:?} ({}){}",
                e.name.text,
                e.kind_name(),
                e.position()
                    .map_or(String::new(), |p| format!(" at {p:.2?}"))
            );
        }
    }
}

/// Each part: vertices, triangles, material, visibility, skin.
fn parts_text(o: &mut String, s: &Scene) {
    let _ = writeln!(o, "parts:");
    for (i, m) in s.meshes.iter().enumerate() {
        let _ = writeln!(
            o,
            "  {i}: {:?} {} vertices, {} triangles, material {}, {}{}{}{}",
            m.name,
            m.positions.len(),
            m.triangle_count(),
            m.material.map_or("none".into(), |x| x.to_string()),
            if m.visible { "visible" } else { "hidden" },
            if m.skin.is_some() { ", skinned" } else { "" },
            if m.material_overrides.is_empty() {
                String::new()
            } else {
                format!(", {} material override(s)", m.material_overrides.len())
            },
            added_note(s.added.mesh(i))
        );
    }
}

/// Each material: blend, colours, shading, textures, sampling and
/// animation.
fn materials_text(o: &mut String, s: &Scene) {
    let _ = writeln!(o, "materials:");
    for (i, m) in s.materials.iter().enumerate() {
        let c = |x: f32| (x * 255.0).round() as u8;
        let _ = writeln!(
            o,
            "  {i}: {:?}{} color #{:02X}{:02X}{:02X}{:02X}, emission #{:02X}{:02X}{:02X}, shading {:.2}, texture {}, matcap {}{}{}",
            m.blend,
            m.alpha_cutoff
                .map_or(String::new(), |c| format!(" (alpha test at {c})")),
            c(m.base_color[0]),
            c(m.base_color[1]),
            c(m.base_color[2]),
            c(m.base_color[3]),
            c(m.emission[0]),
            c(m.emission[1]),
            c(m.emission[2]),
            m.shading,
            m.texture.map_or("none".into(), |x| x.to_string()),
            m.matcap.map_or("none".into(), |x| x.to_string()),
            if m.animation.is_some() {
                ", animated"
            } else {
                ""
            },
            added_note(s.added.material(i))
        );
        if m.sampling != crate::scene::Sampling::default() {
            let _ = writeln!(o, "     sampling: {}", m.sampling.describe());
        }
        if let Some(a) = &m.animation {
            let _ = writeln!(
                o,
                "     animation: {:.1} ms a frame, frames 0..={}, {}; keys: color {}, emission {}, shading {}, texture {}, matcap {}; scroll {:?} / {:?}{}",
                a.seconds_per_frame * 1000.0,
                a.last_frame,
                a.loop_mode.name(),
                a.color.keys.len(),
                a.emission.keys.len(),
                a.shading.keys.len(),
                a.texture.keys.len(),
                a.matcap.keys.len(),
                a.texture_scroll,
                a.matcap_scroll,
                if a.preserve_scroll {
                    " (preserved)"
                } else {
                    ""
                }
            );
        }
    }
}

/// Each texture's name and format.
fn textures_text(o: &mut String, s: &Scene) {
    let _ = writeln!(o, "textures:");
    for (i, t) in s.textures.iter().enumerate() {
        let _ = writeln!(
            o,
            "  {i}: {:?} {}{}",
            t.name,
            t.format,
            added_note(s.added.texture(i))
        );
    }
}

/// The bones, indented by depth.
fn bones_text(o: &mut String, s: &Scene) {
    if !s.skeleton.bones.is_empty() {
        let _ = writeln!(o, "bones:");
        // Indented by depth (parents come first, so one pass), at most
        // INDENT levels: past that the depth is written, so that a chain
        // of a million bones prints in lines of bounded length.
        const INDENT: usize = 32;
        let mut depths: Vec<usize> = Vec::with_capacity(s.skeleton.bones.len());
        for (i, b) in s.skeleton.bones.iter().enumerate() {
            let depth = b.parent.and_then(|p| depths.get(p)).map_or(0, |d| d + 1);
            depths.push(depth);
            let indent = "  ".repeat(depth.min(INDENT));
            if depth > INDENT {
                let _ = writeln!(o, "  {i}: {indent}(depth {depth}) {}", b.name);
            } else {
                let _ = writeln!(o, "  {i}: {indent}{}", b.name);
            }
        }
    }
}

/// Each clip's frames and length.
fn clips_text(o: &mut String, s: &Scene) {
    if !s.clips.is_empty() {
        let _ = writeln!(o, "clips:");
        for (i, c) in s.clips.iter().enumerate() {
            let _ = writeln!(
                o,
                "  {:?}: {} frames, {:.3} s{}",
                c.name,
                c.frames,
                c.duration_s,
                added_note(s.added.clip(i))
            );
        }
    }
}

/// A P3M file's actions as the file has them.
fn actions_text(o: &mut String, l: &Loaded) {
    if let Raw::P3m(m) = &l.raw
        && !m.actions.is_empty()
    {
        let _ = writeln!(o, "actions:");
        for (i, a) in m.actions.iter().enumerate() {
            let _ = writeln!(
                o,
                "  {i}: {} us/frame, {:?}, {} part(s), {} bone track(s)",
                a.us_per_frame,
                a.part_list_mode,
                a.parts.len(),
                a.bones.len()
            );
        }
    }
}

/// The user-defined fields.
fn user_fields_text(o: &mut String, s: &Scene) {
    if !s.user_fields.is_empty() {
        let _ = writeln!(o, "user-defined fields:");
        for f in &s.user_fields {
            let _ = writeln!(o, "  {} ({}): {}", f.name, f.ty, f.value);
        }
    }
}
