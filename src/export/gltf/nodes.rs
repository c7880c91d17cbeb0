//! The node tree: joint nodes under one skeleton root, a node per part
//! (a map's under their sector's node), the map's entities, and the skin.

use super::Writer;
use super::blob::{ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, FLOAT, UNSIGNED_INT, UNSIGNED_SHORT};
use super::materials::linear;
use crate::scene::{Mesh, Primitive};
use glam::{Mat4, Vec2, Vec3};
use serde_json::{Value, json};

/// What the parts need of the skin.
#[derive(Default)]
pub(super) struct Parts {
    /// Some part is skinned.
    pub(super) skinned: bool,
    /// Some skinned vertex has no weight: it is bound to a static joint.
    pub(super) static_joint: bool,
}

/// Scale, rotation and translation of the identity.
const IDENTITY: (glam::Vec3, glam::Quat, glam::Vec3) =
    (glam::Vec3::ONE, glam::Quat::IDENTITY, glam::Vec3::ZERO);

impl Writer<'_> {
    /// Bone `i`'s rest transform relative to its parent as scale, rotation
    /// and translation; none where that is not finite numbers, which glTF
    /// cannot hold (a damaged file's matrix; one of scale 0 has no
    /// rotation). The export writes the identity instead.
    fn rest_trs(&self, i: usize) -> Option<(glam::Vec3, glam::Quat, glam::Vec3)> {
        let (s, r, t) = self
            .scene
            .skeleton
            .rest_local(i)
            .to_scale_rotation_translation();
        (s.is_finite() && r.normalize().is_finite() && t.is_finite()).then_some((s, r, t))
    }

    /// Joint nodes first (node i is bone i), under one root node: a skin's
    /// joints need a common root, and a file may have several root bones.
    /// Returns that root node.
    pub(super) fn skeleton_nodes(&mut self) -> Option<usize> {
        let skeleton = &self.scene.skeleton;
        let bones = skeleton.bones.len();
        let mut identity = Vec::new();
        for (i, b) in skeleton.bones.iter().enumerate() {
            let (s, r, t) = self.rest_trs(i).unwrap_or_else(|| {
                identity.push(b.name.as_str());
                IDENTITY
            });
            let children: Vec<usize> = (0..bones)
                .filter(|&c| skeleton.bones[c].parent == Some(i))
                .collect();
            let mut n = json!({
                "name": b.name,
                "translation": t.to_array(),
                "rotation": r.normalize().to_array(),
                "scale": s.to_array(),
            });
            if !children.is_empty() {
                n["children"] = json!(children);
            }
            self.nodes.push(n);
        }
        if !identity.is_empty() {
            self.dropped.push(format!(
                "skeleton: the rest transforms of {} bones ({}) are not finite numbers: written as the identity",
                identity.len(),
                identity
                    .iter()
                    .take(4)
                    .map(|n| format!("{n:?}"))
                    .chain((identity.len() > 4).then(|| "...".to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let skeleton_roots: Vec<usize> = (0..bones)
            .filter(|&i| skeleton.bones[i].parent.is_none_or(|p| p >= i))
            .collect();
        (bones > 0).then(|| {
            self.nodes
                .push(json!({"name": "skeleton", "children": skeleton_roots}));
            self.roots.push(self.nodes.len() - 1);
            self.nodes.len() - 1
        })
    }

    /// A mesh and a node for every part with vertices. A map's parts go
    /// under a node per sector, their lightmap the emissive texture on a
    /// second UV set (see `lightmap_material`).
    pub(super) fn parts(&mut self) -> Parts {
        let scene = self.scene;
        let map = scene.map.as_deref();
        let mut sector_parts: Vec<Vec<usize>> =
            vec![Vec::new(); map.map_or(0, |m| m.map.sectors.len())];
        let mut out = Parts::default();
        for (mi, mesh) in scene.meshes.iter().enumerate() {
            if mesh.positions.is_empty() {
                self.dropped
                    .push(format!("part {:?}: no vertices", mesh.name));
                continue;
            }
            let map_part = map.and_then(|m| m.mesh_source.get(mi)).copied();
            let node = self.part(mi, mesh, map_part.is_some(), &mut out);
            match map_part {
                Some((sector, _)) if sector < sector_parts.len() => sector_parts[sector].push(node),
                _ => self.roots.push(node),
            }
        }
        if map.is_some() {
            self.map_nodes(sector_parts);
        }
        out
    }

    /// Part `mi`'s mesh and node (`map_part`: one of a map's sectors'):
    /// the node's index.
    fn part(&mut self, mi: usize, mesh: &Mesh, map_part: bool, out: &mut Parts) -> usize {
        let mut attributes = self.attributes(mesh, map_part);
        let skinned = self.skin_attributes(mesh, &mut attributes, out);
        let mut primitive = json!({"attributes": attributes});
        if !mesh.indices.is_empty() {
            let a = self.blob.accessor(
                bytemuck::cast_slice(&mesh.indices),
                Some(ELEMENT_ARRAY_BUFFER),
                UNSIGNED_INT,
                mesh.indices.len(),
                "SCALAR",
                false,
                None,
            );
            primitive["indices"] = json!(a);
        }
        primitive["mode"] = json!(match mesh.primitive {
            Primitive::Points => 0,
            Primitive::Lines => 1,
            Primitive::Triangles => 4,
        });
        let lightmap = mesh
            .material
            .filter(|_| map_part)
            .and_then(|m| self.scene.materials.get(m))
            .and_then(|m| m.texture);
        let material = match lightmap {
            Some(lm) => self.lightmap_material(lm),
            None => mesh.material.filter(|&m| m < self.materials.len()),
        };
        if let Some(m) = material {
            primitive["material"] = json!(m);
        }
        self.meshes
            .push(json!({"name": mesh.name, "primitives": [primitive]}));
        let mut node = json!({"name": mesh.name, "mesh": self.meshes.len() - 1});
        if !mesh.visible {
            node["extras"] = json!({"hidden": true});
        }
        if skinned {
            node["skin"] = json!(0);
        }
        if !mesh.material_overrides.is_empty() {
            let overrides: Vec<Value> = mesh
                .material_overrides
                .iter()
                .map(|(clip, priority, m)| json!({"clip": clip, "priority": priority, "material": m}))
                .collect();
            if node.get("extras").is_none() {
                node["extras"] = json!({});
            }
            node["extras"]["material_overrides"] = json!(overrides);
        }
        self.node_of_mesh[mi] = Some(self.nodes.len());
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// A part's POSITION, NORMAL, UV sets and COLOR_0 (a map part's UVs
    /// are its lightmap's, its vertex colours the light baked in them).
    fn attributes(&mut self, mesh: &Mesh, map_part: bool) -> serde_json::Map<String, Value> {
        let n = mesh.positions.len();
        // A part without UVs is drawn with (0, 0) at every vertex; a
        // textured material needs them written (glTF 2.0 3.7.2.1: a texture
        // binding reads TEXCOORD_0 where it names no set).
        let needs_uvs = map_part
            || mesh
                .material
                .and_then(|m| self.materials.get(m))
                .is_some_and(binds_a_texture);
        let blob = &mut self.blob;
        let mut attributes = serde_json::Map::new();
        attributes.insert("POSITION".into(), json!(blob.vec3(&mesh.positions, true)));
        if mesh.normals.len() == n {
            let unit: Vec<Vec3> = mesh
                .normals
                .iter()
                .map(|n| n.normalize_or(Vec3::Y))
                .collect();
            attributes.insert("NORMAL".into(), json!(blob.vec3(&unit, false)));
        }
        let zeros;
        let uvs = if mesh.uvs.len() != n && needs_uvs {
            zeros = vec![Vec2::ZERO; n];
            &zeros
        } else {
            &mesh.uvs
        };
        if uvs.len() == n {
            let a = blob.vec2(uvs);
            attributes.insert("TEXCOORD_0".into(), json!(a));
            if map_part {
                // A map's UVs are its lightmap's: the second set, as glTF
                // viewers expect of baked light.
                attributes.insert("TEXCOORD_1".into(), json!(a));
            }
        }
        if let Some(colors) = mesh.colors.as_ref().filter(|c| c.len() == n && !map_part) {
            let linear16: Vec<u16> = colors
                .iter()
                .flat_map(|c| {
                    let ch = |k: usize, lin: bool| {
                        let v = c[k] as f32 / 255.0;
                        ((if lin { linear(v) } else { v }) * 65535.0).round() as u16
                    };
                    [ch(0, true), ch(1, true), ch(2, true), ch(3, false)]
                })
                .collect();
            let a = blob.accessor(
                bytemuck::cast_slice(&linear16),
                Some(ARRAY_BUFFER),
                UNSIGNED_SHORT,
                n,
                "VEC4",
                true,
                None,
            );
            attributes.insert("COLOR_0".into(), json!(a));
        }
        self.extra_uv_sets(mesh, &mut attributes);
        attributes
    }

    /// The further UV sets as stored (Papa's shadow-map and detail
    /// coordinates), as the next TEXCOORD sets: no material samples them,
    /// but they are the file's and glTF holds them. Sets are numbered from
    /// 0 with no gap (glTF 2.0 3.7.2.1), so they follow the sets written
    /// before (a map part's second is its lightmap's), and a set that
    /// cannot be written ends them.
    fn extra_uv_sets(&mut self, mesh: &Mesh, attributes: &mut serde_json::Map<String, Value>) {
        let n = mesh.positions.len();
        let mut next = (0..).find(|k| !attributes.contains_key(&format!("TEXCOORD_{k}")));
        for (k, uvs) in mesh.extra_uvs.iter().enumerate() {
            let why = match next {
                _ if uvs.len() != n => format!("{} coordinates for {n} vertices", uvs.len()),
                Some(0) => "no first UV set to follow".to_string(),
                None => "a set before it was not written".to_string(),
                Some(set) => {
                    let a = self.blob.vec2(uvs);
                    attributes.insert(format!("TEXCOORD_{set}"), json!(a));
                    next = Some(set + 1);
                    continue;
                }
            };
            self.dropped
                .push(format!("part {:?}: UV set {}: {why}", mesh.name, k + 1));
            next = None;
        }
    }

    /// A skinned part's JOINTS_0 and WEIGHTS_0: whether it has them (a
    /// skin of one joint index a vertex with the skeleton's bones). Vertices
    /// without weight are bound to the static joint (joint index `bones`);
    /// unused slots to joint 0, weight 0.
    fn skin_attributes(
        &mut self,
        mesh: &Mesh,
        attributes: &mut serde_json::Map<String, Value>,
        out: &mut Parts,
    ) -> bool {
        let bones = self.scene.skeleton.bones.len();
        let Some(s) = mesh
            .skin
            .as_ref()
            .filter(|s| bones > 0 && s.joints.len() == mesh.positions.len())
        else {
            return false;
        };
        let mut joints = Vec::with_capacity(s.joints.len());
        let mut weights = Vec::with_capacity(s.weights.len());
        for (j, &w) in s.joints.iter().zip(&s.weights) {
            let w = crate::scene::unit_weights(w);
            let sum: f32 = w.iter().sum();
            if sum <= 0.0 || j.iter().any(|&b| b as usize >= bones) {
                out.static_joint = true;
                joints.push([bones as u16, 0, 0, 0]);
                weights.push([1.0f32, 0.0, 0.0, 0.0]);
            } else {
                // A joint named twice (a damaged file's) once, its weights
                // added: glTF allows no joint twice.
                let (mut jj, mut ww) = ([0u16; 4], [0f32; 4]);
                let mut n = 0;
                for k in (0..4).filter(|&k| w[k] > 0.0) {
                    match jj[..n].iter().position(|&x| x == j[k]) {
                        Some(at) => ww[at] += w[k] / sum,
                        None => {
                            (jj[n], ww[n]) = (j[k], w[k] / sum);
                            n += 1;
                        }
                    }
                }
                joints.push(jj);
                weights.push(ww);
            }
        }
        let a = self.blob.accessor(
            bytemuck::cast_slice(&joints),
            Some(ARRAY_BUFFER),
            UNSIGNED_SHORT,
            joints.len(),
            "VEC4",
            false,
            None,
        );
        attributes.insert("JOINTS_0".into(), json!(a));
        let a = self.blob.accessor(
            bytemuck::cast_slice(&weights),
            Some(ARRAY_BUFFER),
            FLOAT,
            weights.len(),
            "VEC4",
            false,
            None,
        );
        attributes.insert("WEIGHTS_0".into(), json!(a));
        out.skinned = true;
        true
    }

    /// A node per sector holding its parts, and the entities: named empty
    /// nodes, their fields in extras (the scene keeps them as text, with no
    /// place of their own).
    fn map_nodes(&mut self, sector_parts: Vec<Vec<usize>>) {
        let Some(info) = self.scene.map.as_deref() else {
            return;
        };
        for (i, parts) in sector_parts.into_iter().enumerate() {
            if parts.is_empty() {
                continue;
            }
            let [x, y, z] = info.map.sector_coords(i);
            self.nodes
                .push(json!({"name": format!("sector {i} ({x}, {y}, {z})"), "children": parts}));
            self.roots.push(self.nodes.len() - 1);
        }
        let entities: Vec<usize> = info
            .map
            .entities
            .iter()
            .map(|e| {
                let fields: serde_json::Map<String, Value> = e
                    .fields
                    .iter()
                    .map(|(k, v)| (k.clone(), json!(v)))
                    .collect();
                self.nodes.push(json!({
                    "name": e.name,
                    "extras": {
                        "kind": e.kind,
                        "difficulties": e.difficulties,
                        "gamemodes": e.gamemodes,
                        "fields": fields,
                    },
                }));
                self.nodes.len() - 1
            })
            .collect();
        if !entities.is_empty() {
            self.nodes
                .push(json!({"name": "entities", "children": entities}));
            self.roots.push(self.nodes.len() - 1);
        }
        self.dropped.push(
            "map: the material tints (a viewer aid; the lightmaps are the emissive textures)"
                .into(),
        );
    }

    /// The one skin: every bone, and the static joint under the skeleton
    /// root when a vertex needs it.
    pub(super) fn skin(&mut self, armature: Option<usize>, parts: &Parts) {
        let skeleton = &self.scene.skeleton;
        let bones = skeleton.bones.len();
        if !parts.skinned {
            return;
        }
        // Inverse bind matrices from the joints' own rest transforms as
        // written (translation, rotation, scale), so the rest pose skins to
        // the mesh exactly even where a bone's matrix shears.
        let mut global = vec![Mat4::IDENTITY; bones];
        for (i, b) in skeleton.bones.iter().enumerate() {
            let (s, r, t) = self.rest_trs(i).unwrap_or(IDENTITY);
            let local = Mat4::from_scale_rotation_translation(s, r.normalize(), t);
            global[i] = match b.parent {
                Some(p) if p < i => global[p] * local,
                _ => local,
            };
        }
        // glTF requires the last row exactly (0, 0, 0, 1).
        let affine = |mut m: Mat4| {
            m.x_axis.w = 0.0;
            m.y_axis.w = 0.0;
            m.z_axis.w = 0.0;
            m.w_axis.w = 1.0;
            m
        };
        let mut inverse: Vec<Mat4> = global.iter().map(|g| affine(g.inverse())).collect();
        let mut joints: Vec<usize> = (0..bones).collect();
        if let (true, Some(armature)) = (parts.static_joint, armature) {
            self.nodes.push(json!({"name": "(vertices no bone moves)"}));
            let i = self.nodes.len() - 1;
            if let Some(children) = self.nodes[armature]["children"].as_array_mut() {
                children.push(json!(i));
            }
            joints.push(i);
            inverse.push(Mat4::IDENTITY);
        }
        let ibm = self.blob.accessor(
            bytemuck::cast_slice(&inverse),
            None,
            FLOAT,
            inverse.len(),
            "MAT4",
            false,
            None,
        );
        self.skins
            .push(json!({"joints": joints, "inverseBindMatrices": ibm}));
    }
}

/// Whether an exported material binds a texture: a `...Texture` object
/// anywhere in it (the core ones, and those of its extensions).
fn binds_a_texture(material: &Value) -> bool {
    match material {
        Value::Object(o) => o
            .iter()
            .any(|(k, v)| (k.ends_with("Texture") && v.is_object()) || binds_a_texture(v)),
        _ => false,
    }
}
