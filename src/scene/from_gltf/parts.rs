//! Parts: every primitive of every node with a mesh in the default scene,
//! placed by its node (skinned ones in bind space, or where the file's
//! default pose puts them when that is one transform); strips, fans and
//! loops as lists.

use super::accessors::{Buffers, floats, target_floats, uints};
use super::skeleton::{Rig, SkinOnRig, ToRig, Tree};
use crate::scene::*;
use glam::{Mat4, Vec2, Vec3};

pub(super) fn parts(
    doc: &gltf::Document,
    tree: &Tree,
    rig: &Rig,
    buffers: &Buffers,
    plain: usize,
    warnings: &mut Vec<String>,
) -> Result<Vec<Mesh>, String> {
    let in_scene = in_default_scene(doc, tree);
    let mut meshes: Vec<Mesh> = Vec::new();
    let mut copies_left = MAX_INSTANCED;
    for node in tree.nodes.iter().filter(|n| in_scene[n.index()]) {
        let Some(mesh) = node.mesh() else { continue };
        let on_rig = node.skin().and_then(|s| rig.skins.get(s.index()));
        let instances = instances(
            doc,
            node,
            &mesh,
            on_rig.is_some(),
            &mut copies_left,
            buffers,
            warnings,
        )?;
        // Unskinned parts that an animation moves ride on a bone, placed
        // by `rigid`'s transform (skeleton::rigid_bindings).
        let rigid = match on_rig {
            None => rig.rigid[node.index()],
            Some(_) => None,
        };
        let owner = Owner {
            weights: [node.weights(), mesh.weights()],
            on_rig,
            rigid,
            place: rigid.map_or(tree.global[node.index()], |(_, place)| place),
            instances: instances.as_deref(),
            hidden: node
                .extras()
                .as_ref()
                .is_some_and(|e| e.get().contains("\"hidden\":true")),
        };
        let count = mesh.primitives().count();
        for (pi, p) in mesh.primitives().enumerate() {
            let base = node
                .name()
                .or(mesh.name())
                .map(str::to_owned)
                .unwrap_or_else(|| format!("mesh {}", mesh.index()));
            let mut name = if count > 1 {
                format!("{base} #{pi}")
            } else {
                base
            };
            if let Some(i) = &instances {
                name = format!("{name} ({} instances)", i.len());
            }
            if let Some(part) = part(&p, name, &owner, buffers, plain, warnings)? {
                meshes.push(part);
            }
        }
    }
    Ok(meshes)
}

/// Which nodes the default scene holds (the first scene's where none is
/// the default, every node where the file has no scene).
fn in_default_scene(doc: &gltf::Document, tree: &Tree) -> Vec<bool> {
    let Tree { nodes, parent, .. } = tree;
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
    in_scene
}

/// What a node gives each part of its mesh.
struct Owner<'a> {
    /// The node's and the mesh's morph weights (the node's win).
    weights: [Option<&'a [f32]>; 2],
    /// The node's skin on the rig, for a skinned node.
    on_rig: Option<&'a SkinOnRig>,
    /// For an unskinned node an animation moves: the bone its parts ride
    /// on and the transform that places them.
    rigid: Option<(usize, Mat4)>,
    /// Where the node puts its parts.
    place: Mat4,
    /// EXT_mesh_gpu_instancing's instances, in the node's space.
    instances: Option<&'a [Mat4]>,
    /// Hidden by the file's extras (`"hidden": true`).
    hidden: bool,
}

/// One primitive as a part named `name`; none, with a warning, without
/// positions.
fn part(
    p: &gltf::Primitive,
    name: String,
    owner: &Owner,
    buffers: &Buffers,
    plain: usize,
    warnings: &mut Vec<String>,
) -> Result<Option<Mesh>, String> {
    let attr = |s: gltf::Semantic| p.get(&s);
    let Some(pos) = attr(gltf::Semantic::Positions) else {
        warnings.push(format!("part {name:?}: no positions; skipped"));
        return Ok(None);
    };
    let mut positions: Vec<Vec3> = floats(&pos, buffers, 3)?
        .chunks_exact(3)
        .map(Vec3::from_slice)
        .collect();
    let n = positions.len();
    let mut normals: Vec<Vec3> = match attr(gltf::Semantic::Normals) {
        Some(a) => floats(&a, buffers, 3)?
            .chunks_exact(3)
            .map(Vec3::from_slice)
            .collect(),
        None => Vec::new(),
    };
    let has_normals = normals.len() == n;
    morph_to_default_weights(
        p,
        owner.weights,
        &name,
        (&mut positions, &mut normals),
        buffers,
        warnings,
    )?;
    // TANGENT (xyz, and w the handedness): the file's frame for normal
    // maps, its binormal cross(normal, tangent) * w as glTF defines it
    // (pointing up the image). Read with the file's normals only: without
    // them glTF asks for generated tangents, which the shader's per-pixel
    // frame is.
    let mut tangents: Option<Vec<[Vec3; 2]>> = match attr(gltf::Semantic::Tangents) {
        Some(a) if has_normals => {
            let t = floats(&a, buffers, 4)?;
            (t.len() == 4 * n).then(|| {
                t.chunks_exact(4)
                    .zip(&normals)
                    .map(|(t, nrm)| {
                        let tangent = Vec3::new(t[0], t[1], t[2]);
                        let w = if t[3] < 0.0 { -1.0 } else { 1.0 };
                        [tangent, nrm.cross(tangent) * w]
                    })
                    .collect()
            })
        }
        _ => None,
    };
    let (uvs, has_file_uvs) = uvs_of(p, buffers)?;
    let colors = colors_of(p, buffers)?;
    let (primitive, indices) = indices_of(p, n, &name, buffers)?;
    let (skin, moved) = skin_of(p, owner, n, &name, buffers)?;
    moved.apply(&mut positions, &mut normals, &mut tangents);
    let material = p.material().index().filter(|&m| m < plain).unwrap_or(plain);
    let mut mesh = Mesh {
        name,
        uvs: if uvs.len() == n {
            uvs
        } else {
            vec![Vec2::ZERO; n]
        },
        colors: colors.filter(|c| c.len() == n),
        has_file_uvs,
        has_file_normals: has_normals,
        normals: Vec::new(),
        positions,
        indices,
        material: Some(material),
        visible: !owner.hidden,
        skin,
        primitive,
        tangents,
        ..Mesh::default()
    };
    mesh.normals = if has_normals {
        normals
    } else {
        super::smooth_normals(&mesh.positions, &mesh.indices)
    };
    if let Some(instances) = owner.instances {
        copy_per_instance(&mut mesh, owner.place, instances);
    }
    Ok(Some(mesh))
}

/// The UV set the base colour texture names (its texCoord, or its
/// KHR_texture_transform's, which overrides it), with that transform baked
/// in (the material's other maps share them); and whether the file has
/// that set.
fn uvs_of(p: &gltf::Primitive, buffers: &Buffers) -> Result<(Vec<Vec2>, bool), String> {
    let base = super::materials::base_color_texture(&p.material());
    let transform = base
        .as_ref()
        .and_then(|t| t.texture_transform())
        .map(|t| uv_transform(t.offset(), t.rotation(), t.scale()));
    let set = base.as_ref().map_or(0, |t| {
        t.texture_transform()
            .and_then(|x| x.tex_coord())
            .unwrap_or(t.tex_coord())
    });
    let Some(a) = p.get(&gltf::Semantic::TexCoords(set)) else {
        return Ok((Vec::new(), false));
    };
    let uvs = floats(&a, buffers, 2)?
        .chunks_exact(2)
        .map(|uv| {
            let uv = Vec2::from_slice(uv);
            transform.map_or(uv, |m| m.transform_point2(uv))
        })
        .collect();
    Ok((uvs, true))
}

/// COLOR_0 as sRGB bytes (RGB or RGBA in the file; linear there).
fn colors_of(p: &gltf::Primitive, buffers: &Buffers) -> Result<Option<Vec<[u8; 4]>>, String> {
    let Some(a) = p.get(&gltf::Semantic::Colors(0)) else {
        return Ok(None);
    };
    let comps = if a.dimensions() == gltf::accessor::Dimensions::Vec3 {
        3
    } else {
        4
    };
    let b = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let srgb = |c: f32| b(linear_to_srgb(c.clamp(0.0, 1.0)));
    Ok(Some(
        floats(&a, buffers, comps)?
            .chunks_exact(comps)
            .map(|c| {
                [
                    srgb(c[0]),
                    srgb(c[1]),
                    srgb(c[2]),
                    if comps == 4 { b(c[3]) } else { 255 },
                ]
            })
            .collect(),
    ))
}

/// The part's indices (its vertices in order where it has none), each
/// within its `n` vertices, with strips, fans and loops made lists.
fn indices_of(
    p: &gltf::Primitive,
    n: usize,
    name: &str,
    buffers: &Buffers,
) -> Result<(Primitive, Vec<u32>), String> {
    let mut indices: Vec<u32> = match p.indices() {
        Some(a) => uints(&a, buffers, 1)?,
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
    Ok((primitive, indices))
}

/// The part's skin on the rig, and how its `n` vertices are placed.
/// Unskinned parts go where their node puts them; skinned ones stay in
/// bind space, moved into the rig's where their skin's differs from it
/// (skeleton::ToRig). Instanced ones are made in the node's space, then
/// copied once an instance.
fn skin_of(
    p: &gltf::Primitive,
    owner: &Owner,
    n: usize,
    name: &str,
    buffers: &Buffers,
) -> Result<(Option<Skin>, Moved), String> {
    let mut moved = if owner.instances.is_some() {
        Moved::Not
    } else {
        Moved::By(owner.place)
    };
    let Some(on_rig) = owner.on_rig else {
        let skin = owner.rigid.map(|(bone, _)| Skin {
            joints: vec![[bone as u16, 0, 0, 0]; n],
            weights: vec![[WEIGHT_UNITS as u16, 0, 0, 0]; n],
        });
        return Ok((skin, moved));
    };
    let skin_joints = &on_rig.joints;
    let j = p
        .get(&gltf::Semantic::Joints(0))
        .map(|a| uints(&a, buffers, 4))
        .transpose()?;
    let w = p
        .get(&gltf::Semantic::Weights(0))
        .map(|a| floats(&a, buffers, 4))
        .transpose()?;
    let (Some(j), Some(w)) = (j, w) else {
        return Ok((None, moved));
    };
    if j.len() != 4 * n || w.len() != 4 * n {
        return Ok((None, moved));
    }
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
    // Into the rig's bind space (skeleton::ToRig).
    moved = match &on_rig.to_rig {
        ToRig::Same => Moved::Not,
        ToRig::One(d) => Moved::By(*d),
        ToRig::PerJoint(d) => Moved::PerVertex(
            (0..n)
                .map(|v| {
                    let ww = &w[4 * v..4 * v + 4];
                    let sum: f32 = ww.iter().map(|x| x.max(0.0)).sum();
                    if !(sum > 0.0 && sum.is_finite()) {
                        return Mat4::IDENTITY;
                    }
                    (0..4).fold(Mat4::ZERO, |m, k| {
                        let dk = d.get(j[4 * v + k] as usize).copied();
                        m + dk.unwrap_or(Mat4::IDENTITY) * (ww[k].max(0.0) / sum)
                    })
                })
                .collect(),
        ),
    };
    Ok((Some(Skin { joints, weights }), moved))
}

/// Morph targets shown at the file's default weights (glTF 2.0 3.7.2.2:
/// the node's, else the mesh's; zero where it gives none), which glTF
/// draws when no animation plays: positions and normals moved by the
/// weighted sum of the targets' deltas, normals made unit again (an empty
/// `normals` is left so). Their animation is not played; a warning says
/// which weights are shown.
fn morph_to_default_weights(
    p: &gltf::Primitive,
    [node_weights, mesh_weights]: [Option<&[f32]>; 2],
    name: &str,
    (positions, normals): (&mut [Vec3], &mut [Vec3]),
    buffers: &Buffers,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    let targets = p.morph_targets().len();
    if targets == 0 {
        return Ok(());
    }
    let n = positions.len();
    let has_normals = normals.len() == n;
    let weights = node_weights.or(mesh_weights).unwrap_or(&[]);
    let (s, are) = if targets == 1 {
        ("", "is")
    } else {
        ("s", "are")
    };
    let shown: Vec<(usize, f32)> = weights
        .iter()
        .copied()
        .enumerate()
        .take(targets)
        .filter(|(_, w)| *w != 0.0 && w.is_finite())
        .collect();
    if shown.is_empty() {
        warnings.push(format!(
            "part {name:?}: {targets} morph target{s} {are} not read; shown in its base shape"
        ));
        return Ok(());
    }
    for (k, t) in p.morph_targets().enumerate() {
        let Some(&(_, w)) = shown.iter().find(|(i, _)| *i == k) else {
            continue;
        };
        if let Some(a) = t.positions() {
            let d = target_floats(&a, buffers, 3, n)?;
            for (p, d) in positions.iter_mut().zip(d.chunks_exact(3)) {
                *p += w * Vec3::from_slice(d);
            }
        }
        if let Some(a) = t.normals().filter(|_| has_normals) {
            let d = target_floats(&a, buffers, 3, n)?;
            for (nrm, d) in normals.iter_mut().zip(d.chunks_exact(3)) {
                *nrm += w * Vec3::from_slice(d);
            }
        }
    }
    normals
        .iter_mut()
        .for_each(|v| *v = v.normalize_or(Vec3::Y));
    let list: Vec<String> = weights
        .iter()
        .take(targets)
        .map(|w| w.to_string())
        .collect();
    warnings.push(format!(
        "part {name:?}: {targets} morph target{s} shown at the file's default weights ({}); their animation is not played",
        list.join(", ")
    ));
    Ok(())
}

/// The most vertices and indices the copies of instanced meshes may make
/// in one file (`EXT_mesh_gpu_instancing`): a few bytes of instance
/// transforms can name millions of copies of a large mesh, which the
/// viewer makes (see [`instances`]). 2^24 vertices and three times as many
/// indices (16.8 M triangles, about 700 MB with normals and UVs): more than
/// the largest file the viewer is measured on (10 M triangles).
pub const MAX_INSTANCED: Copies = Copies {
    vertices: 1 << 24,
    indices: 3 << 24,
};

/// Vertices and indices made or left to make ([`MAX_INSTANCED`]).
#[derive(Debug, Clone, Copy)]
pub struct Copies {
    pub vertices: usize,
    pub indices: usize,
}

/// A node's `EXT_mesh_gpu_instancing` transforms, each
/// `Translation * Rotation * Scale` in the node's space (the extension's
/// §"Transformation Order": the world position is
/// `NodeWorld * Instance * vertex`), or `None` where the node has no
/// instances.
///
/// The viewer draws one part per primitive holding a copy of it for each
/// instance, so copies made count against `copies_left` (what
/// [`MAX_INSTANCED`] leaves): past it, only the instances that fit are
/// shown, with a warning. A skinned node is drawn once, as its skin
/// places it (the extension leaves instanced skins undefined), with a
/// warning.
fn instances(
    doc: &gltf::Document,
    node: &gltf::Node,
    mesh: &gltf::Mesh,
    skinned: bool,
    copies_left: &mut Copies,
    buffers: &Buffers,
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<Mat4>>, String> {
    let Some(ext) = node.extension_value(INSTANCING) else {
        return Ok(None);
    };
    let Some(attributes) = InstanceAttributes::read(doc, node, ext, buffers)? else {
        // No transform attribute (custom ones only): one instance at the
        // node, which is how the node is drawn without the extension.
        return Ok(None);
    };
    let count = attributes.count;
    let name = node.name().map_or_else(
        || format!("node {}", node.index()),
        |n| format!("node {n:?}"),
    );
    if skinned {
        warnings.push(format!(
            "{name}: {count} instances ({INSTANCING}) of a skinned mesh, which the extension leaves undefined; drawn once, where its skin puts it"
        ));
        return Ok(None);
    }
    let copy = one_copy(mesh);
    let shown = count
        .min(copies_left.vertices / copy.vertices.max(1))
        .min(copies_left.indices / copy.indices.max(1));
    copies_left.vertices -= shown * copy.vertices;
    copies_left.indices -= shown * copy.indices;
    if shown < count {
        warnings.push(format!(
            "{name}: {count} instances ({INSTANCING}) of {} vertices; the first {shown} are shown, as the copies the viewer makes of instanced meshes stop at {} vertices and {} indices a file",
            copy.vertices, MAX_INSTANCED.vertices, MAX_INSTANCED.indices
        ));
    }
    Ok(Some((0..shown).map(|i| attributes.transform(i)).collect()))
}

const INSTANCING: &str = "EXT_mesh_gpu_instancing";

/// A node's `EXT_mesh_gpu_instancing` attributes, each read as floats of
/// its width, all naming `count` instances.
struct InstanceAttributes {
    translation: Option<Vec<f32>>,
    rotation: Option<Vec<f32>>,
    scale: Option<Vec<f32>>,
    count: usize,
}

impl InstanceAttributes {
    /// The extension object `ext`'s transform attributes, or `None` where
    /// it has none of them; an error where one is not an accessor, does
    /// not read, or names another count of instances than the others.
    fn read(
        doc: &gltf::Document,
        node: &gltf::Node,
        ext: &serde_json::Value,
        buffers: &Buffers,
    ) -> Result<Option<Self>, String> {
        let at = format!("nodes[{}].extensions.{INSTANCING}", node.index());
        let Some(attributes) = ext.get("attributes").and_then(|a| a.as_object()) else {
            return Err(format!("{at}: no attributes object"));
        };
        let read = |key: &str, comps: usize| -> Result<Option<Vec<f32>>, String> {
            let Some(v) = attributes.get(key) else {
                return Ok(None);
            };
            let accessor = v
                .as_u64()
                .and_then(|i| doc.accessors().nth(usize::try_from(i).ok()?))
                .ok_or_else(|| {
                    format!(
                        "{at}.attributes.{key}: {v} is not an accessor (the file has {})",
                        doc.accessors().count()
                    )
                })?;
            floats(&accessor, buffers, comps)
                .map(Some)
                .map_err(|e| format!("{at}.attributes.{key}: {e}"))
        };
        let translation = read("TRANSLATION", 3)?;
        let rotation = read("ROTATION", 4)?;
        let scale = read("SCALE", 3)?;
        let counts: Vec<(&str, usize)> = [
            ("TRANSLATION", &translation, 3),
            ("ROTATION", &rotation, 4),
            ("SCALE", &scale, 3),
        ]
        .into_iter()
        .filter_map(|(key, v, comps)| v.as_ref().map(|v| (key, v.len() / comps)))
        .collect();
        let Some(&(_, count)) = counts.first() else {
            return Ok(None);
        };
        if let Some((key, other)) = counts.iter().find(|(_, c)| *c != count) {
            return Err(format!(
                "{at}: {} names {count} instances and {key} {other}; the extension requires one count",
                counts[0].0
            ));
        }
        Ok(Some(Self {
            translation,
            rotation,
            scale,
            count,
        }))
    }

    /// Instance `i`'s `Translation * Rotation * Scale`.
    fn transform(&self, i: usize) -> Mat4 {
        fn nth(v: &Option<Vec<f32>>, i: usize, comps: usize) -> Option<&[f32]> {
            v.as_ref().map(|v| &v[i * comps..i * comps + comps])
        }
        Mat4::from_scale_rotation_translation(
            nth(&self.scale, i, 3).map_or(Vec3::ONE, Vec3::from_slice),
            // Normalized as node rotations are (glTF 2.0 §5.25).
            nth(&self.rotation, i, 4).map_or(glam::Quat::IDENTITY, |q| {
                glam::Quat::from_slice(q).normalize()
            }),
            nth(&self.translation, i, 3).map_or(Vec3::ZERO, Vec3::from_slice),
        )
    }
}

/// One instance's copy of every primitive of `mesh`: its vertices, and its
/// indices as lists (up to three an index for a strip's or a fan's
/// triangles).
fn one_copy(mesh: &gltf::Mesh) -> Copies {
    let mut copy = Copies {
        vertices: 0,
        indices: 0,
    };
    for p in mesh.primitives() {
        let Some(positions) = p.get(&gltf::Semantic::Positions) else {
            continue;
        };
        copy.vertices = copy.vertices.saturating_add(positions.count());
        let indices = p.indices().map_or(positions.count(), |a| a.count());
        use gltf::mesh::Mode;
        let listed = match p.mode() {
            Mode::Points | Mode::Lines | Mode::Triangles => 1,
            Mode::LineStrip | Mode::LineLoop => 2,
            Mode::TriangleStrip | Mode::TriangleFan => 3,
        };
        copy.indices = copy.indices.saturating_add(indices.saturating_mul(listed));
    }
    copy
}

/// A part made in its node's space as one copy an instance: the copy of
/// instance `k` holds the vertices `k * n..(k + 1) * n` placed by
/// `node * instances[k]`, its normals by that transform's inverse
/// transpose and its tangent frame by its linear part, and its indices
/// offset by `k * n`.
fn copy_per_instance(mesh: &mut Mesh, node: Mat4, instances: &[Mat4]) {
    let n = mesh.positions.len();
    let k = instances.len();
    let mut positions = Vec::with_capacity(n * k);
    let mut normals = Vec::with_capacity(n * k);
    let mut tangents = mesh
        .tangents
        .as_ref()
        .map(|t| Vec::with_capacity(t.len() * k));
    for i in instances {
        let place = Place::new(node * *i);
        positions.extend(mesh.positions.iter().map(|p| place.point(*p)));
        normals.extend(mesh.normals.iter().map(|n| place.normal(*n)));
        if let (Some(out), Some(t)) = (&mut tangents, &mesh.tangents) {
            out.extend(t.iter().map(|frame| place.frame(*frame)));
        }
    }
    mesh.uvs = mesh.uvs.repeat(k);
    mesh.colors = mesh.colors.as_ref().map(|c| c.repeat(k));
    // A rigid binding's (the same bone for every vertex).
    mesh.skin = mesh.skin.as_ref().map(|s| Skin {
        joints: s.joints.repeat(k),
        weights: s.weights.repeat(k),
    });
    mesh.indices = (0..k as u32)
        .flat_map(|i| mesh.indices.iter().map(move |&v| v + i * n as u32))
        .collect();
    mesh.positions = positions;
    mesh.normals = normals;
    mesh.tangents = tangents;
}

/// A transform as it moves a vertex: its point by the matrix, its normal
/// by the inverse transpose of the matrix's linear part, and its tangent
/// frame by the linear part itself (tangent directions move with the
/// surface).
struct Place {
    m: Mat4,
    linear: glam::Mat3,
    normal: glam::Mat3,
}

impl Place {
    fn new(m: Mat4) -> Self {
        let linear = glam::Mat3::from_mat4(m);
        Place {
            m,
            linear,
            normal: linear.inverse().transpose(),
        }
    }

    fn point(&self, p: Vec3) -> Vec3 {
        self.m.transform_point3(p)
    }

    fn normal(&self, n: Vec3) -> Vec3 {
        (self.normal * n).normalize_or(Vec3::Y)
    }

    fn frame(&self, frame: [Vec3; 2]) -> [Vec3; 2] {
        frame.map(|v| (self.linear * v).normalize_or_zero())
    }
}

/// How a part's vertices are placed.
enum Moved {
    Not,
    By(Mat4),
    PerVertex(Vec<Mat4>),
}

impl Moved {
    /// Places a part's positions, normals and tangent frames.
    fn apply(
        self,
        positions: &mut [Vec3],
        normals: &mut [Vec3],
        tangents: &mut Option<Vec<[Vec3; 2]>>,
    ) {
        match self {
            Moved::Not => {}
            Moved::By(m) => {
                let place = Place::new(m);
                positions.iter_mut().for_each(|p| *p = place.point(*p));
                normals.iter_mut().for_each(|n| *n = place.normal(*n));
                for frame in tangents.iter_mut().flatten() {
                    *frame = place.frame(*frame);
                }
            }
            Moved::PerVertex(m) => {
                for (i, m) in m.into_iter().enumerate() {
                    let place = Place::new(m);
                    if let Some(p) = positions.get_mut(i) {
                        *p = place.point(*p);
                    }
                    if let Some(n) = normals.get_mut(i) {
                        *n = place.normal(*n);
                    }
                    if let Some(frame) = tangents.as_mut().and_then(|t| t.get_mut(i)) {
                        *frame = place.frame(*frame);
                    }
                }
            }
        }
    }
}

/// KHR_texture_transform's matrix, T * R * S: scale, then a rotation of
/// `rotation` radians counter-clockwise in UV space (whose V runs down),
/// then the offset; the extension's specification writes R as
/// [cos, sin; -sin, cos].
pub(super) fn uv_transform(offset: [f32; 2], rotation: f32, scale: [f32; 2]) -> glam::Affine2 {
    let (s, c) = rotation.sin_cos();
    glam::Affine2::from_cols_array(&[
        c * scale[0],
        -s * scale[0],
        s * scale[1],
        c * scale[1],
        offset[0],
        offset[1],
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A triangle (3 vertices, drawn as a strip of 3 indices: 3 triangles'
    /// worth of list indices at most) on two nodes of 5 instances each,
    /// translated along X by 0, 1, 2, 3, 4.
    fn doc() -> (gltf::Document, Buffers) {
        let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let mut bin = f(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        bin.extend(f(&(0..5)
            .flat_map(|i| [i as f32, 0.0, 0.0])
            .collect::<Vec<_>>()));
        let instanced =
            serde_json::json!({"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 1}}});
        let json = serde_json::json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": ["EXT_mesh_gpu_instancing"],
            "nodes": [{"mesh": 0, "extensions": instanced}, {"mesh": 0, "extensions": instanced}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "mode": 5}]}],
            "buffers": [{"byteLength": bin.len()}],
            "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 60}],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
                {"bufferView": 1, "componentType": 5126, "count": 5, "type": "VEC3"}
            ]
        });
        super::super::test_document(&json, &bin)
    }

    fn shown(left: &mut Copies, warnings: &mut Vec<String>) -> Vec<f32> {
        let (doc, buffers) = doc();
        let node = doc.nodes().next().unwrap();
        let mesh = node.mesh().unwrap();
        instances(&doc, &node, &mesh, false, left, &buffers, warnings)
            .unwrap()
            .unwrap()
            .iter()
            .map(|m| m.w_axis.x)
            .collect()
    }

    /// The copies stop where the budget does, counted in vertices and in
    /// indices as lists, the first instances kept, with a warning that
    /// says how many were shown and why.
    #[test]
    fn instanced_copies_stop_at_the_budget() {
        let mut warnings = Vec::new();
        let plenty = 1000;
        // 10 vertices: 3 copies of 3.
        let mut left = Copies {
            vertices: 10,
            indices: plenty,
        };
        assert_eq!(shown(&mut left, &mut warnings), [0.0, 1.0, 2.0]);
        assert_eq!(left.vertices, 1);
        assert_eq!(left.indices, plenty - 3 * 9);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with(
                "node 0: 5 instances (EXT_mesh_gpu_instancing) of 3 vertices; the first 3 are shown"
            ),
            "{warnings:?}"
        );
        // What is left holds none.
        assert_eq!(shown(&mut left, &mut warnings), Vec::<f32>::new());
        assert!(
            warnings[1].contains("the first 0 are shown"),
            "{warnings:?}"
        );
        // 20 indices: a strip of 3 is up to 9 as a list, 2 copies.
        let mut left = Copies {
            vertices: plenty,
            indices: 20,
        };
        assert_eq!(shown(&mut left, &mut warnings), [0.0, 1.0]);
        // Enough for all: no warning.
        let mut left = MAX_INSTANCED;
        let before = warnings.len();
        assert_eq!(shown(&mut left, &mut warnings), [0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(warnings.len(), before);
    }
}
