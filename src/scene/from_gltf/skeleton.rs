//! The node tree and the skeleton: parents, default global transforms, and
//! the first skin's joints with their ancestors as bones.

use super::accessors::{Buffers, floats};
use crate::scene::*;
use glam::Mat4;

/// The nodes, each one's parent and default global transform.
pub(super) struct Tree<'a> {
    pub(super) nodes: Vec<gltf::Node<'a>>,
    pub(super) parent: Vec<Option<usize>>,
    pub(super) global: Vec<Mat4>,
}

/// The skeleton and how the file's nodes and joints map onto its bones.
pub(super) struct Rig {
    pub(super) bones: Vec<Bone>,
    /// glTF node -> bone.
    pub(super) bone_of_node: Vec<Option<usize>>,
    /// The first skin's joint index -> bone.
    pub(super) skin_joints: Vec<Option<usize>>,
    /// Where the file's default pose puts its skinned vertices, when that
    /// is one transform of them (`C`, below): applied to the skinned
    /// parts, whose bones then rest at their nodes' default transforms.
    pub(super) bind_to_default: Option<Mat4>,
}

/// The hierarchy: one parent a node at most, no loops.
pub(super) fn tree<'a>(doc: &'a gltf::Document) -> Result<Tree<'a>, String> {
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

    Ok(Tree {
        nodes,
        parent,
        global,
    })
}

/// The first skin's joints and their ancestors (so the hierarchy is
/// whole), parents first: a joint's rest is the inverse of its inverse
/// bind matrix, any other node's its default global transform; every
/// bone's is its node's where the skinned parts move to the default pose
/// (`Rig::bind_to_default`).
pub(super) fn rig(
    doc: &gltf::Document,
    tree: &Tree,
    buffers: &Buffers,
    warnings: &mut Vec<String>,
) -> Result<Rig, String> {
    let Tree {
        nodes,
        parent,
        global,
    } = tree;
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
    let mut bind_to_default = None;
    if let Some(skin) = skins.first() {
        let ibm: Vec<Mat4> = match skin.inverse_bind_matrices() {
            Some(a) => floats(&a, buffers, 16)?
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
        // glTF skins a vertex by sum w_j * G_j * IBM_j, G_j the joint's
        // global transform. In the default pose that is sum w_j * C_j with
        // C_j = G_j * IBM_j: the identity where the bind matrices match the
        // nodes (every exporter's usual case: the bones rest at the inverse
        // bind matrices, as above). Where every C_j is one transform C other
        // than that, the default pose is the bind pose moved by C: the
        // skinned vertices are moved by C and the bones rest at their
        // nodes' default transforms, which is glTF's equation exactly at
        // every pose. Where they differ, no one transform does: the bind
        // pose is shown, as before.
        let c: Vec<Mat4> = joints
            .iter()
            .zip(&ibm)
            .map(|(&j, m)| global[j] * *m)
            .collect();
        let near = |a: &Mat4, b: &Mat4| {
            let size = a.to_cols_array().iter().fold(1f32, |m, x| m.max(x.abs()));
            a.abs_diff_eq(*b, 1e-5 * size)
        };
        if let Some(first) = c.first()
            && c.len() == joints.len()
            && first.is_finite()
        {
            if !c.iter().all(|m| near(m, first)) {
                warnings.push(
                    "the skin's inverse bind matrices and its joints' default pose differ \
                     joint by joint, not by one transform: the bind pose is shown, and the \
                     animations move the bones from it"
                        .into(),
                );
            } else if !near(first, &Mat4::IDENTITY) {
                bind_to_default = Some(*first);
                joint_rest.iter_mut().for_each(|r| *r = None);
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

    Ok(Rig {
        bones,
        bone_of_node,
        skin_joints,
        bind_to_default,
    })
}
