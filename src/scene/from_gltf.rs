//! glTF 2.0 (`.glb`, `.gltf`) -> [`Scene`]: the viewer's fifth model
//! format, read with the `gltf` crate (JSON and structure); every byte range
//! is checked here before it is read, so a hostile file gives an error, not
//! a panic.
//!
//! glTF space is the scene's (right-handed, Y up, metres). Parts are the
//! primitives of every node with a mesh in the default scene (else every
//! root), placed by their node's global transform; skinned parts stay in
//! bind space. The skeleton is the first skin's joints and their ancestors
//! (so the hierarchy is whole): a joint's rest is the inverse of its
//! inverse bind matrix, any other node's its default global transform.
//! Animations become clips of local translation, rotation (slerp) and scale
//! tracks; STEP keys hold, CUBICSPLINE keys keep their values and are
//! blended linearly (noted).

use super::clip::{Channel, ChannelSpace, Clip, Interp, Key, RotationTrack, Segment, Track};
use super::companions::{Companions, Found, Lookup};
use super::*;
use glam::{Mat4, Quat, Vec2, Vec3};

/// A glTF file as a scene, or why it cannot be read.
pub fn convert(
    bytes: &[u8],
    mut source: SourceInfo,
    companions: &dyn Companions,
) -> Result<Scene, String> {
    let g = gltf::Gltf::from_slice_without_validation(bytes)
        .map_err(|e| format!("not a glTF file this viewer can read: {e}"))?;
    let doc = g.document;
    let mut warnings = Vec::new();
    check_references(&doc)?;

    // Buffers: the GLB's binary chunk, or files beside the model.
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    for b in doc.buffers() {
        let data = match b.source() {
            gltf::buffer::Source::Bin => g
                .blob
                .clone()
                .ok_or("buffer 0 is the binary chunk, which the file lacks")?,
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                return Err(format!("buffer {}: data: URIs are not read", b.index()));
            }
            gltf::buffer::Source::Uri(uri) => {
                match companions.find(Lookup::Beside(&percent_decode(uri))) {
                    Ok(Found { bytes, .. }) => bytes,
                    Err(missing) => return Err(format!("buffer {}: {missing}", b.index())),
                }
            }
        };
        if data.len() < b.length() {
            return Err(format!(
                "buffer {}: {} bytes, the file says {}",
                b.index(),
                data.len(),
                b.length()
            ));
        }
        buffers.push(data);
    }
    let view_bytes = |v: &gltf::buffer::View| -> Result<&[u8], String> {
        let buf = buffers.get(v.buffer().index()).ok_or_else(|| {
            format!(
                "buffer view {}: no buffer {}",
                v.index(),
                v.buffer().index()
            )
        })?;
        let end = v.offset().checked_add(v.length());
        end.and_then(|e| buf.get(v.offset()..e)).ok_or_else(|| {
            format!(
                "buffer view {}: bytes {}..+{} run past its buffer ({} bytes)",
                v.index(),
                v.offset(),
                v.length(),
                buf.len()
            )
        })
    };

    // Textures (images decoded once, by image index).
    let mut textures: Vec<Texture> = Vec::new();
    let mut texture_of_image: Vec<Option<usize>> = vec![None; doc.images().count()];
    let mut image_texture = |img: gltf::Image,
                             textures: &mut Vec<Texture>,
                             warnings: &mut Vec<String>|
     -> Option<usize> {
        if let Some(t) = texture_of_image[img.index()] {
            return Some(t);
        }
        let name = img
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("image {}", img.index()));
        let (bytes, mime, source) = match img.source() {
            gltf::image::Source::View { view, mime_type } => match view_bytes(&view) {
                Ok(b) => (b.to_vec(), mime_type.to_string(), TextureSource::Embedded),
                Err(e) => {
                    warnings.push(format!("image {name:?}: {e}"));
                    return None;
                }
            },
            gltf::image::Source::Uri { uri, mime_type } => {
                let file = percent_decode(uri);
                match companions.find(Lookup::Beside(&file)) {
                    Ok(Found { path, bytes }) => (
                        bytes,
                        mime_type.map(str::to_owned).unwrap_or_else(|| {
                            if file.to_ascii_lowercase().ends_with(".png") {
                                "image/png".into()
                            } else {
                                "image/jpeg".into()
                            }
                        }),
                        TextureSource::External(path),
                    ),
                    Err(missing) => {
                        warnings.push(format!("image {name:?}: {missing}; showing a checkerboard"));
                        textures.push(Texture::checkerboard(&name, missing.to_string()));
                        texture_of_image[img.index()] = Some(textures.len() - 1);
                        return Some(textures.len() - 1);
                    }
                }
            }
        };
        let format = if mime == "image/png" {
            image::ImageFormat::Png
        } else {
            image::ImageFormat::Jpeg
        };
        let tex = match super::decode_image(&bytes, format, companions.texels()) {
            Ok(img) => Texture {
                name: name.clone(),
                width: img.width,
                height: img.height,
                format: format!("{mime} {}x{}{}", img.width, img.height, img.declared_note()),
                rgba8: img.rgba8,
                source,
                srgb: true,
                compressed: None,
            },
            Err(e) => {
                warnings.push(format!("image {name:?}: {e}; showing a checkerboard"));
                Texture::checkerboard(&name, e)
            }
        };
        textures.push(tex);
        texture_of_image[img.index()] = Some(textures.len() - 1);
        Some(textures.len() - 1)
    };

    // Materials, one per glTF material, then one for parts without.
    let srgb = |c: f32| linear_to_srgb(c.clamp(0.0, 1.0));
    let mut materials: Vec<Material> = Vec::new();
    for m in doc.materials() {
        let pbr = m.pbr_metallic_roughness();
        let c = pbr.base_color_factor();
        let e = m.emissive_factor();
        let texture = pbr
            .base_color_texture()
            .and_then(|t| image_texture(t.texture().source(), &mut textures, &mut warnings));
        let mut maps = Maps::default();
        if let Some(n) = m.normal_texture()
            && let Some(t) = image_texture(n.texture().source(), &mut textures, &mut warnings)
        {
            textures[t].srgb = false;
            maps.normal = Some((t, NormalMap::Rgb));
        }
        maps.emission = m
            .emissive_texture()
            .and_then(|t| image_texture(t.texture().source(), &mut textures, &mut warnings));
        if matches!(m.alpha_mode(), gltf::material::AlphaMode::Mask) {
            maps.notes.push("alpha mask (cutoff) drawn opaque".into());
        }
        materials.push(Material {
            name: m
                .name()
                .map(str::to_owned)
                .unwrap_or_else(|| format!("material {}", materials.len())),
            base_color: [srgb(c[0]), srgb(c[1]), srgb(c[2]), c[3].clamp(0.0, 1.0)],
            emission: [srgb(e[0]), srgb(e[1]), srgb(e[2])],
            shading: 1.0,
            texture,
            blend: if matches!(m.alpha_mode(), gltf::material::AlphaMode::Blend) {
                BlendMode::Alpha
            } else {
                BlendMode::Opaque
            },
            maps,
            ..Material::default()
        });
    }
    let plain = materials.len();
    let mut added = Added::default();

    // Node hierarchy and default global transforms.
    let nodes: Vec<gltf::Node> = doc.nodes().collect();
    let mut parent = vec![None; nodes.len()];
    for n in &nodes {
        for c in n.children() {
            if parent[c.index()].is_some() || c.index() == n.index() {
                return Err(format!(
                    "node {}: it has two parents (or is its own child)",
                    c.index()
                ));
            }
            parent[c.index()] = Some(n.index());
        }
    }
    let local: Vec<Mat4> = nodes
        .iter()
        .map(|n| Mat4::from_cols_array_2d(&n.transform().matrix()))
        .collect();
    let mut global = vec![None::<Mat4>; nodes.len()];
    fn global_of(
        i: usize,
        parent: &[Option<usize>],
        local: &[Mat4],
        global: &mut [Option<Mat4>],
        depth: usize,
    ) -> Result<Mat4, String> {
        if let Some(g) = global[i] {
            return Ok(g);
        }
        if depth > parent.len() {
            return Err(format!("node {i}: its parents form a loop"));
        }
        let g = match parent[i] {
            Some(p) => global_of(p, parent, local, global, depth + 1)? * local[i],
            None => local[i],
        };
        global[i] = Some(g);
        Ok(g)
    }
    for i in 0..nodes.len() {
        global_of(i, &parent, &local, &mut global, 0)?;
    }
    let global: Vec<Mat4> = global
        .into_iter()
        .map(|g| g.unwrap_or(Mat4::IDENTITY))
        .collect();

    // Skeleton: the first skin's joints and their ancestors, parents first.
    let skins: Vec<gltf::Skin> = doc.skins().collect();
    if skins.len() > 1 {
        warnings.push(format!(
            "{} skins: the first one's skeleton is shown; parts of the others are drawn unskinned",
            skins.len()
        ));
    }
    let mut bone_of_node: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut bone_nodes: Vec<usize> = Vec::new();
    let mut joint_rest: Vec<Option<Mat4>> = Vec::new();
    if let Some(skin) = skins.first() {
        let ibm: Vec<Mat4> = match skin.inverse_bind_matrices() {
            Some(a) => floats(&a, &view_bytes, 16)?
                .chunks_exact(16)
                .map(Mat4::from_cols_slice)
                .collect(),
            None => Vec::new(),
        };
        let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
        let mut wanted = vec![false; nodes.len()];
        for &j in &joints {
            let mut at = Some(j);
            while let Some(n) = at {
                wanted[n] = true;
                at = parent[n];
            }
        }
        // Parents first: depth-first from the roots.
        let mut stack: Vec<usize> = (0..nodes.len())
            .filter(|&i| parent[i].is_none() && wanted[i])
            .rev()
            .collect();
        while let Some(n) = stack.pop() {
            bone_of_node[n] = Some(bone_nodes.len());
            bone_nodes.push(n);
            joint_rest.push(None);
            for c in nodes[n].children().collect::<Vec<_>>().into_iter().rev() {
                if wanted[c.index()] {
                    stack.push(c.index());
                }
            }
        }
        for (k, &j) in joints.iter().enumerate() {
            if let (Some(b), Some(m)) = (bone_of_node[j], ibm.get(k)) {
                let inv = m.inverse();
                if inv.is_finite() {
                    joint_rest[b] = Some(inv);
                }
            }
        }
    }
    let rest: Vec<Mat4> = bone_nodes
        .iter()
        .zip(&joint_rest)
        .map(|(&n, r)| r.unwrap_or(global[n]))
        .collect();
    let bone_parents: Vec<Option<usize>> = bone_nodes
        .iter()
        .map(|&n| parent[n].and_then(|p| bone_of_node[p]))
        .collect();
    let bones: Vec<Bone> = bone_nodes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            Bone::from_rest(i, nodes[n].name().unwrap_or(""), &bone_parents, &rest, 0.05)
        })
        .collect();
    let skin_joints: Vec<Option<usize>> = skins
        .first()
        .map(|s| s.joints().map(|j| bone_of_node[j.index()]).collect())
        .unwrap_or_default();

    // Parts: every primitive of every node with a mesh in the scene.
    let scene_roots: Vec<usize> = match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(s) => s.nodes().map(|n| n.index()).collect(),
        None => (0..nodes.len()).filter(|&i| parent[i].is_none()).collect(),
    };
    let mut in_scene = vec![false; nodes.len()];
    let mut stack = scene_roots;
    while let Some(n) = stack.pop() {
        if !in_scene[n] {
            in_scene[n] = true;
            stack.extend(nodes[n].children().map(|c| c.index()));
        }
    }
    let mut meshes: Vec<Mesh> = Vec::new();
    for node in nodes.iter().filter(|n| in_scene[n.index()]) {
        let Some(mesh) = node.mesh() else { continue };
        let skinned = node.skin().is_some_and(|s| s.index() == 0) && !bones.is_empty();
        let hidden = node
            .extras()
            .as_ref()
            .is_some_and(|e| e.get().contains("\"hidden\":true"));
        let g = global[node.index()];
        let normal_m = glam::Mat3::from_mat4(g).inverse().transpose();
        let count = mesh.primitives().count();
        for (pi, p) in mesh.primitives().enumerate() {
            let base = node
                .name()
                .or(mesh.name())
                .map(str::to_owned)
                .unwrap_or_else(|| format!("mesh {}", mesh.index()));
            let name = if count > 1 {
                format!("{base} #{pi}")
            } else {
                base
            };
            let attr = |s: gltf::Semantic| p.get(&s);
            let Some(pos) = attr(gltf::Semantic::Positions) else {
                warnings.push(format!("part {name:?}: no positions; skipped"));
                continue;
            };
            let mut positions: Vec<Vec3> = floats(&pos, &view_bytes, 3)?
                .chunks_exact(3)
                .map(Vec3::from_slice)
                .collect();
            let n = positions.len();
            let mut normals: Vec<Vec3> = match attr(gltf::Semantic::Normals) {
                Some(a) => floats(&a, &view_bytes, 3)?
                    .chunks_exact(3)
                    .map(Vec3::from_slice)
                    .collect(),
                None => Vec::new(),
            };
            let has_normals = normals.len() == n;
            let uvs: Vec<Vec2> = match attr(gltf::Semantic::TexCoords(0)) {
                Some(a) => floats(&a, &view_bytes, 2)?
                    .chunks_exact(2)
                    .map(Vec2::from_slice)
                    .collect(),
                None => Vec::new(),
            };
            let colors = match attr(gltf::Semantic::Colors(0)) {
                Some(a) => {
                    let comps = if a.dimensions() == gltf::accessor::Dimensions::Vec3 {
                        3
                    } else {
                        4
                    };
                    let c = floats(&a, &view_bytes, comps)?;
                    Some(
                        c.chunks_exact(comps)
                            .map(|c| {
                                let b = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
                                [
                                    b(srgb(c[0])),
                                    b(srgb(c[1])),
                                    b(srgb(c[2])),
                                    if comps == 4 { b(c[3]) } else { 255 },
                                ]
                            })
                            .collect::<Vec<_>>(),
                    )
                }
                None => None,
            };
            let mut indices: Vec<u32> = match p.indices() {
                Some(a) => uints(&a, &view_bytes, 1)?,
                None => (0..n as u32).collect(),
            };
            if let Some(bad) = indices.iter().find(|&&i| i as usize >= n) {
                return Err(format!("part {name:?}: index {bad} past its {n} vertices"));
            }
            use gltf::mesh::Mode;
            let primitive = match p.mode() {
                Mode::Points => Primitive::Points,
                Mode::Lines => Primitive::Lines,
                Mode::LineStrip | Mode::LineLoop => {
                    let mut l: Vec<u32> = indices.windows(2).flat_map(|w| [w[0], w[1]]).collect();
                    if p.mode() == Mode::LineLoop && indices.len() > 2 {
                        l.extend([indices[indices.len() - 1], indices[0]]);
                    }
                    indices = l;
                    Primitive::Lines
                }
                Mode::Triangles => Primitive::Triangles,
                Mode::TriangleStrip => {
                    indices = (0..indices.len().saturating_sub(2))
                        .flat_map(|k| {
                            let (a, b, c) = (indices[k], indices[k + 1], indices[k + 2]);
                            if k % 2 == 0 { [a, b, c] } else { [b, a, c] }
                        })
                        .collect();
                    Primitive::Triangles
                }
                Mode::TriangleFan => {
                    indices = (1..indices.len().saturating_sub(1))
                        .flat_map(|k| [indices[0], indices[k], indices[k + 1]])
                        .collect();
                    Primitive::Triangles
                }
            };
            if primitive == Primitive::Triangles {
                indices.truncate(indices.len() / 3 * 3);
            }
            let mut skin = None;
            if skinned {
                let j = attr(gltf::Semantic::Joints(0))
                    .map(|a| uints(&a, &view_bytes, 4))
                    .transpose()?;
                let w = attr(gltf::Semantic::Weights(0))
                    .map(|a| floats(&a, &view_bytes, 4))
                    .transpose()?;
                if let (Some(j), Some(w)) = (j, w)
                    && j.len() == 4 * n
                    && w.len() == 4 * n
                {
                    let mut joints = Vec::with_capacity(n);
                    let mut weights = Vec::with_capacity(n);
                    for v in 0..n {
                        let mut jj = [0u16; 4];
                        let mut ww = [0f32; 4];
                        for k in 0..4 {
                            match skin_joints.get(j[4 * v + k] as usize).copied().flatten() {
                                Some(b) => {
                                    jj[k] = b as u16;
                                    ww[k] = w[4 * v + k].max(0.0);
                                }
                                None if w[4 * v + k] > 0.0 => {
                                    return Err(format!(
                                        "part {name:?}: vertex {v} names joint {} past the skin's {}",
                                        j[4 * v + k],
                                        skin_joints.len()
                                    ));
                                }
                                None => {}
                            }
                        }
                        joints.push(jj);
                        weights.push(quantize_weights(ww));
                    }
                    skin = Some(Skin { joints, weights });
                }
            }
            if skin.is_none() {
                for p in &mut positions {
                    *p = g.transform_point3(*p);
                }
                for nrm in &mut normals {
                    *nrm = (normal_m * *nrm).normalize_or(Vec3::Y);
                }
            }
            let material = p.material().index().filter(|&m| m < plain).unwrap_or(plain);
            let mut mesh = Mesh {
                name,
                uvs: if uvs.len() == n {
                    uvs
                } else {
                    vec![Vec2::ZERO; n]
                },
                colors: colors.filter(|c| c.len() == n),
                has_file_uvs: attr(gltf::Semantic::TexCoords(0)).is_some(),
                has_file_normals: has_normals,
                normals: Vec::new(),
                positions,
                indices,
                material: Some(material),
                visible: !hidden,
                skin,
                primitive,
                ..Mesh::default()
            };
            mesh.normals = if has_normals {
                normals
            } else {
                super::smooth_normals(&mesh.positions, &mesh.indices)
            };
            meshes.push(mesh);
        }
    }
    if meshes.iter().any(|m| m.material == Some(plain)) {
        added
            .materials
            .push((plain, "for parts that name no material".into()));
        materials.push(Material {
            name: "(no material)".into(),
            ..Material::default()
        });
    }

    // Animations: bone tracks; nodes that are not bones are noted.
    let mut clips = Vec::new();
    for a in doc.animations() {
        let name = a
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("animation {}", a.index()));
        let mut channels: Vec<Channel> = Vec::new();
        let mut duration = 0.0f32;
        let mut cubic = false;
        let mut not_bones = 0usize;
        for ch in a.channels() {
            let node = ch.target().node().index();
            let Some(bone) = bone_of_node[node] else {
                not_bones += 1;
                continue;
            };
            let s = ch.sampler();
            let times = floats(&s.input(), &view_bytes, 1)?;
            if times.windows(2).any(|w| w[1] < w[0]) || times.iter().any(|t| !t.is_finite()) {
                return Err(format!("animation {name:?}: key times out of order"));
            }
            duration = duration.max(times.last().copied().unwrap_or(0.0));
            use gltf::animation::{Interpolation, Property};
            let interp = match s.interpolation() {
                Interpolation::Step => Interp::Step,
                Interpolation::Linear => Interp::Linear,
                Interpolation::CubicSpline => {
                    cubic = true;
                    Interp::Linear
                }
            };
            let comps = if ch.target().property() == Property::Rotation {
                4
            } else {
                3
            };
            let values = floats(&s.output(), &view_bytes, comps)?;
            let per_key = if cubic && s.interpolation() == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let value = |k: usize| -> Option<&[f32]> {
                let at = (k * per_key + per_key / 2) * comps;
                values.get(at..at + comps)
            };
            let i = match channels.iter().position(|c| c.bone == bone) {
                Some(i) => i,
                None => {
                    channels.push(Channel {
                        bone,
                        translation: Track::default(),
                        rotation: RotationTrack::Quat(Track::default()),
                        scale: Track::default(),
                    });
                    channels.len() - 1
                }
            };
            let c = &mut channels[i];
            for (k, &time) in times.iter().enumerate() {
                let Some(v) = value(k) else {
                    return Err(format!("animation {name:?}: fewer values than key times"));
                };
                match ch.target().property() {
                    Property::Translation => c.translation.keys.push(Key {
                        time,
                        value: Vec3::from_slice(v),
                        interp,
                    }),
                    Property::Scale => c.scale.keys.push(Key {
                        time,
                        value: Vec3::from_slice(v),
                        interp,
                    }),
                    Property::Rotation => {
                        if let RotationTrack::Quat(t) = &mut c.rotation {
                            t.keys.push(Key {
                                time,
                                value: Quat::from_slice(v).normalize(),
                                interp,
                            });
                        }
                    }
                    Property::MorphTargetWeights => {}
                }
            }
        }
        if cubic {
            warnings.push(format!(
                "animation {name:?}: cubic spline keys blended linearly"
            ));
        }
        if not_bones > 0 {
            warnings.push(format!(
                "animation {name:?}: {not_bones} channels move nodes that are not bones of the skin; not shown"
            ));
        }
        if channels.is_empty() {
            continue;
        }
        // Frames for the timeline: 30 a second, at most a million.
        let frames = (duration * 30.0).round().clamp(1.0, 1e6) as u32;
        clips.push(Clip {
            name: name.clone(),
            duration_s: duration,
            frames,
            space: ChannelSpace::Local,
            channels,
            sequence: None,
            segments: vec![Segment {
                name,
                start_s: 0.0,
                duration_s: duration,
                frame_s: duration / frames as f32,
                first_frame: 0,
                frames,
                part_list: None,
            }],
        });
    }

    source.format = "glTF".into();
    let a = doc.as_json().asset.clone();
    source.details.push(("glTF version".into(), a.version));
    if let Some(generator) = a.generator {
        source.details.push(("generator".into(), generator));
    }
    Ok(Scene {
        source,
        meshes,
        materials,
        textures,
        skeleton: Skeleton {
            bones,
            ..Skeleton::default()
        },
        clips,
        warnings,
        added,
        ..Scene::default()
    })
}

/// Every index between objects in range (the crate parses them unchecked).
fn check_references(doc: &gltf::Document) -> Result<(), String> {
    use gltf::json::validation::Validate;
    let mut errors = Vec::new();
    doc.as_json()
        .validate(doc.as_json(), gltf::json::Path::new, &mut |path, err| {
            errors.push(format!("{}: {err:?}", path()));
        });
    // gltf-json validates an animation's samplers and channel samplers but
    // not its channels' targets: checked here (the crate unwraps them).
    let json = doc.as_json();
    for (a, anim) in json.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            if ch.target.node.value() >= json.nodes.len() {
                errors.push(format!(
                    "animations[{a}].channels[{c}].target.node: no node {}",
                    ch.target.node.value()
                ));
            }
            if !matches!(ch.target.path, gltf::json::validation::Checked::Valid(_)) {
                errors.push(format!(
                    "animations[{a}].channels[{c}].target.path: not a property"
                ));
            }
        }
    }
    match errors.first() {
        Some(e) => Err(format!("{e} (and {} more problems)", errors.len() - 1)),
        None => Ok(()),
    }
}

/// `%20` and friends in a URI, decoded.
fn percent_decode(uri: &str) -> String {
    let b = uri.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            b.get(i + 1).and_then(|&c| hex(c)),
            b.get(i + 2).and_then(|&c| hex(c)),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

type ViewBytes<'a> = dyn Fn(&gltf::buffer::View) -> Result<&'a [u8], String> + 'a;

/// An accessor's elements as raw component bytes, every range checked:
/// (element bytes, component size, component type, normalized).
fn elements<'a>(
    a: &gltf::Accessor,
    view_bytes: &ViewBytes<'a>,
    comps: usize,
) -> Result<(Vec<&'a [u8]>, usize), String> {
    use gltf::accessor::DataType;
    if a.sparse().is_some() {
        return Err(format!(
            "accessor {}: sparse accessors are not read",
            a.index()
        ));
    }
    let size = match a.data_type() {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    };
    let n_comps = a.dimensions().multiplicity();
    if n_comps != comps {
        return Err(format!(
            "accessor {}: {n_comps} components, {comps} expected",
            a.index()
        ));
    }
    let Some(view) = a.view() else {
        return Err(format!(
            "accessor {}: no buffer view (all zeros) is not read",
            a.index()
        ));
    };
    let bytes = view_bytes(&view)?;
    let elem = size * comps;
    let stride = view.stride().unwrap_or(elem);
    let count = a.count();
    let need = if count == 0 {
        0
    } else {
        a.offset()
            .checked_add(
                (count - 1)
                    .checked_mul(stride)
                    .ok_or("accessor size overflows")?,
            )
            .and_then(|x| x.checked_add(elem))
            .ok_or("accessor size overflows")?
    };
    if need > bytes.len() || stride < elem {
        return Err(format!(
            "accessor {}: {count} elements of {elem} bytes every {stride} from {} run past its view ({} bytes)",
            a.index(),
            a.offset(),
            bytes.len()
        ));
    }
    Ok((
        (0..count)
            .map(|i| &bytes[a.offset() + i * stride..a.offset() + i * stride + elem])
            .collect(),
        size,
    ))
}

/// An accessor as floats (normalized integers converted as glTF says).
fn floats<'a>(
    a: &gltf::Accessor,
    view_bytes: &ViewBytes<'a>,
    comps: usize,
) -> Result<Vec<f32>, String> {
    use gltf::accessor::DataType;
    let (elems, size) = elements(a, view_bytes, comps)?;
    let norm = a.normalized();
    let mut out = Vec::with_capacity(elems.len() * comps);
    for e in elems {
        for c in e.chunks_exact(size) {
            out.push(match a.data_type() {
                DataType::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                DataType::U8 => c[0] as f32 / if norm { 255.0 } else { 1.0 },
                DataType::I8 => {
                    let v = c[0] as i8 as f32;
                    if norm { (v / 127.0).max(-1.0) } else { v }
                }
                DataType::U16 => {
                    u16::from_le_bytes([c[0], c[1]]) as f32 / if norm { 65535.0 } else { 1.0 }
                }
                DataType::I16 => {
                    let v = i16::from_le_bytes([c[0], c[1]]) as f32;
                    if norm { (v / 32767.0).max(-1.0) } else { v }
                }
                DataType::U32 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f32,
            });
        }
    }
    Ok(out)
}

/// An accessor of unsigned integers (indices, joints).
fn uints<'a>(
    a: &gltf::Accessor,
    view_bytes: &ViewBytes<'a>,
    comps: usize,
) -> Result<Vec<u32>, String> {
    use gltf::accessor::DataType;
    let (elems, size) = elements(a, view_bytes, comps)?;
    let mut out = Vec::with_capacity(elems.len() * comps);
    for e in elems {
        for c in e.chunks_exact(size) {
            out.push(match a.data_type() {
                DataType::U8 => c[0] as u32,
                DataType::U16 => u16::from_le_bytes([c[0], c[1]]) as u32,
                DataType::U32 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                _ => return Err(format!("accessor {}: integers expected", a.index())),
            });
        }
    }
    Ok(out)
}
