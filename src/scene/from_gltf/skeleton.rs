//! The node tree and the skeleton: parents, default global transforms, and
//! every skin's joints and every animated node, with their ancestors, as
//! bones.

use super::accessors::{Buffers, floats};
use crate::scene::*;
use glam::Mat4;

/// The nodes, each one's parent and default global transform.
pub(super) struct Tree<'a> {
    pub(super) nodes: Vec<gltf::Node<'a>>,
    pub(super) parent: Vec<Option<usize>>,
    pub(super) global: Vec<Mat4>,
}

/// Where a skin's parts go relative to the rig: the scene skins a vertex by
/// `pose_b * rest_b^-1`, glTF by `G_j * IBM_j`; `D_j = rest_b * IBM_j`
/// takes the skin's bind space into the rig's.
#[derive(Clone, Debug)]
pub(super) enum ToRig {
    /// Every `D_j` is the identity: the parts stay as the file has them.
    Same,
    /// Every `D_j` is this one transform: the parts are moved by it, and
    /// glTF's equation holds exactly at every pose.
    One(Mat4),
    /// They differ joint by joint (the skin shares joints with another
    /// skin bound elsewhere): each vertex is moved by the blend of its
    /// joints' `D_j` by its weights, exact at the rest pose and for every
    /// vertex whose joints agree.
    PerJoint(Vec<Mat4>),
}

/// One glTF skin on the rig.
pub(super) struct SkinOnRig {
    /// The skin's joint index -> bone.
    pub(super) joints: Vec<Option<usize>>,
    pub(super) to_rig: ToRig,
}

/// The skeleton and how the file's nodes and skins map onto its bones.
pub(super) struct Rig {
    pub(super) bones: Vec<Bone>,
    /// glTF node -> bone.
    pub(super) bone_of_node: Vec<Option<usize>>,
    /// Every skin of the file, in its order.
    pub(super) skins: Vec<SkinOnRig>,
    /// Per node: where an animation moves it (it or an ancestor), the bone
    /// its unskinned parts ride on, rigidly, and the transform that places
    /// their vertices in the rig's rest pose (`rigid_bindings`).
    pub(super) rigid: Vec<Option<(usize, Mat4)>>,
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
    // Parents first, from the roots, with a stack of our own: a file's
    // chain of nodes may be a million deep.
    let mut global = vec![Mat4::IDENTITY; nodes.len()];
    let mut reached = vec![false; nodes.len()];
    let mut stack: Vec<usize> = (0..nodes.len()).filter(|&i| parent[i].is_none()).collect();
    while let Some(i) = stack.pop() {
        reached[i] = true;
        global[i] = match parent[i] {
            Some(p) => global[p] * local[i],
            None => local[i],
        };
        stack.extend(nodes[i].children().map(|c| c.index()));
    }
    // A node no root reaches has a parent every step up: a loop.
    if let Some(i) = reached.iter().position(|r| !r) {
        return Err(format!("node {i}: its parents form a loop"));
    }

    Ok(Tree {
        nodes,
        parent,
        global,
    })
}

/// Every skin's joints and every animated node, with their ancestors (so
/// the hierarchy is whole), parents first, one bone a node however many
/// skins name it.
///
/// glTF skins a vertex by sum w_j * G_j * IBM_j, G_j the joint's global
/// transform. In the default pose that is sum w_j * C_j with
/// C_j = G_j * IBM_j: the identity where the bind matrices match the nodes
/// (every exporter's usual case), and there a joint's bone rests at the
/// inverse of its inverse bind matrix. Where every C_j of a skin is one
/// transform C other than that, the default pose is the bind pose moved by
/// C: its joints' bones rest at their nodes' default transforms and the
/// parts are moved by C, which is glTF's equation exactly at every pose.
/// Where they differ joint by joint, no one transform does: the bind pose
/// is shown (a warning says so). A joint that several skins share takes
/// its rest from the first; the others' parts are then moved into it
/// (`ToRig`). Nodes that are no skin's joints rest at their default global
/// transforms.
pub(super) fn rig(
    doc: &gltf::Document,
    tree: &Tree,
    buffers: &Buffers,
    warnings: &mut Vec<String>,
) -> Result<Rig, String> {
    let skins = skin_bindings(doc, buffers)?;
    let (wanted, animated) = bone_nodes_wanted(doc, tree, &skins, warnings);
    let (bone_of_node, bone_nodes) = bones_in_order(tree, &wanted);
    let rest = rest_poses(tree, &skins, &bone_of_node, &bone_nodes, warnings);
    let skins = skins
        .iter()
        .enumerate()
        .map(|(s, (joints, ibm))| {
            let label = || skin_label(s, skins.len());
            skin_on_rig(joints, ibm, &bone_of_node, &rest, label, warnings)
        })
        .collect();
    let bone_parents: Vec<Option<usize>> = bone_nodes
        .iter()
        .map(|&n| tree.parent[n].and_then(|p| bone_of_node[p]))
        .collect();
    let rest_bones = RestBones::new(&bone_parents, &rest, 0.05);
    let bones: Vec<Bone> = bone_nodes
        .iter()
        .enumerate()
        .map(|(i, &n)| rest_bones.bone(i, tree.nodes[n].name().unwrap_or("")))
        .collect();
    let rigid = rigid_bindings(tree, &bone_of_node, &bone_nodes, &rest, &animated);
    Ok(Rig {
        bones,
        bone_of_node,
        skins,
        rigid,
    })
}

/// A skin's joints (nodes) and their inverse bind matrices.
type SkinBinding = (Vec<usize>, Vec<Mat4>);

/// Each skin's joints and inverse bind matrices (the identity where the
/// file gives none, as the specification says); an error for a skin with
/// fewer matrices than joints.
fn skin_bindings(doc: &gltf::Document, buffers: &Buffers) -> Result<Vec<SkinBinding>, String> {
    let mut skins: Vec<SkinBinding> = Vec::with_capacity(doc.skins().len());
    for skin in doc.skins() {
        let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
        let mut ibm: Vec<Mat4> = match skin.inverse_bind_matrices() {
            Some(a) => floats(&a, buffers, 16)?
                .chunks_exact(16)
                .map(Mat4::from_cols_slice)
                .collect(),
            None => Vec::new(),
        };
        if !ibm.is_empty() && ibm.len() < joints.len() {
            return Err(format!(
                "skin {}: {} inverse bind matrices for {} joints",
                skin.index(),
                ibm.len(),
                joints.len()
            ));
        }
        ibm.resize(joints.len(), Mat4::IDENTITY);
        skins.push((joints, ibm));
    }
    Ok(skins)
}

/// The nodes that become bones, and those the animations move
/// (translation, rotation, scale). The skins' joints and their ancestors
/// are bones; the animated nodes are too, with their ancestors, so that
/// the parts under them move (`rigid_bindings`), unless that takes the
/// skeleton past what a skin can name, where the skins keep theirs (and a
/// warning says so).
fn bone_nodes_wanted(
    doc: &gltf::Document,
    tree: &Tree,
    skins: &[SkinBinding],
    warnings: &mut Vec<String>,
) -> (Vec<bool>, Vec<bool>) {
    let count = tree.nodes.len();
    let mut wanted = vec![false; count];
    let want = |wanted: &mut [bool], n: usize| {
        let mut at = Some(n);
        while let Some(n) = at.filter(|&n| !wanted[n]) {
            wanted[n] = true;
            at = tree.parent[n];
        }
    };
    for &j in skins.iter().flat_map(|(joints, _)| joints) {
        want(&mut wanted, j);
    }
    let mut animated = vec![false; count];
    for a in doc.animations() {
        for ch in a.channels() {
            if ch.target().property() != gltf::animation::Property::MorphTargetWeights {
                animated[ch.target().node().index()] = true;
            }
        }
    }
    let mut with_animated = wanted.clone();
    for n in (0..count).filter(|&n| animated[n]) {
        want(&mut with_animated, n);
    }
    let bone_count = with_animated.iter().filter(|&&w| w).count();
    let moved = (0..count).filter(|&n| animated[n] && !wanted[n]).count();
    if moved == 0 || bone_count <= MAX_SKINNED_BONES {
        wanted = with_animated;
    } else {
        warnings.push(format!(
            "{moved} animated nodes are not shown moving: with them the skeleton would have \
             {bone_count} bones, past the {MAX_SKINNED_BONES} a skin can name"
        ));
    }
    (wanted, animated)
}

/// The wanted nodes as bones, parents first (depth-first from the roots):
/// node -> bone, and bone -> node.
fn bones_in_order(tree: &Tree, wanted: &[bool]) -> (Vec<Option<usize>>, Vec<usize>) {
    let mut bone_of_node: Vec<Option<usize>> = vec![None; tree.nodes.len()];
    let mut bone_nodes: Vec<usize> = Vec::new();
    let mut stack: Vec<usize> = (0..tree.nodes.len())
        .filter(|&i| tree.parent[i].is_none() && wanted[i])
        .rev()
        .collect();
    while let Some(n) = stack.pop() {
        bone_of_node[n] = Some(bone_nodes.len());
        bone_nodes.push(n);
        for c in tree.nodes[n]
            .children()
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            if wanted[c.index()] {
                stack.push(c.index());
            }
        }
    }
    (bone_of_node, bone_nodes)
}

/// Skin `s` as a warning names it: "the skin" where the file has one.
fn skin_label(s: usize, count: usize) -> String {
    if count == 1 {
        "the skin".to_owned()
    } else {
        format!("skin {s}")
    }
}

/// Whether two transforms are equal to within 1e-5 of the first's largest
/// entry (at least 1).
fn near(a: &Mat4, b: &Mat4) -> bool {
    let size = a.to_cols_array().iter().fold(1f32, |m, x| m.max(x.abs()));
    a.abs_diff_eq(*b, 1e-5 * size)
}

/// Each bone's rest transform: a joint's from the first skin that names it
/// (its node's default transform where that skin's `C_j` are one transform
/// other than the identity, or its matrix has no inverse; else the inverse
/// of its inverse bind matrix), a bone that is no skin's joint at its
/// node's default transform. A warning for each skin whose `C_j` differ
/// joint by joint.
fn rest_poses(
    tree: &Tree,
    skins: &[SkinBinding],
    bone_of_node: &[Option<usize>],
    bone_nodes: &[usize],
    warnings: &mut Vec<String>,
) -> Vec<Mat4> {
    let global = &tree.global;
    let mut rest: Vec<Option<Mat4>> = vec![None; bone_nodes.len()];
    for (s, (joints, ibm)) in skins.iter().enumerate() {
        let c: Vec<Mat4> = joints
            .iter()
            .zip(ibm)
            .map(|(&j, m)| global[j] * *m)
            .collect();
        let one = c
            .first()
            .filter(|c0| c0.is_finite() && c.iter().all(|m| near(m, c0)));
        let at_nodes = one.is_some_and(|c0| !near(c0, &Mat4::IDENTITY));
        let mut claimed = false;
        for (&j, m) in joints.iter().zip(ibm) {
            let Some(b) = bone_of_node[j] else { continue };
            if rest[b].is_none() {
                let inv = m.inverse();
                rest[b] = Some(if at_nodes || !inv.is_finite() {
                    global[j]
                } else {
                    inv
                });
                claimed = true;
            }
        }
        // A skin whose joints all rest where an earlier skin put them is
        // moved into that pose instead (`ToRig`).
        if one.is_none() && claimed {
            warnings.push(format!(
                "{}'s inverse bind matrices and its joints' default pose differ joint by \
                 joint, not by one transform: the bind pose is shown, and the animations \
                 move the bones from it",
                skin_label(s, skins.len())
            ));
        }
    }
    bone_nodes
        .iter()
        .zip(&rest)
        .map(|(&n, r)| r.unwrap_or(global[n]))
        .collect()
}

/// A skin on the rig: its joints' bones and how its parts are moved into
/// the rig's rest pose (`ToRig`; a warning, naming it by `label`, where
/// that differs joint by joint).
fn skin_on_rig(
    joints: &[usize],
    ibm: &[Mat4],
    bone_of_node: &[Option<usize>],
    rest: &[Mat4],
    label: impl Fn() -> String,
    warnings: &mut Vec<String>,
) -> SkinOnRig {
    let bones: Vec<Option<usize>> = joints.iter().map(|&j| bone_of_node[j]).collect();
    let d: Vec<Mat4> = bones
        .iter()
        .zip(ibm)
        .map(|(b, m)| b.map_or(Mat4::IDENTITY, |b| rest[b] * *m))
        .collect();
    let to_rig = match d.first() {
        None => ToRig::Same,
        Some(d0) if !d.iter().all(|m| near(m, d0)) => {
            warnings.push(format!(
                "{} shares joints with another skin bound in another pose: its \
                 vertices are moved into the skeleton's rest pose joint by joint, \
                 exactly where a vertex's joints agree",
                label()
            ));
            ToRig::PerJoint(d)
        }
        Some(d0) if near(d0, &Mat4::IDENTITY) => ToRig::Same,
        Some(d0) => ToRig::One(*d0),
    };
    SkinOnRig {
        joints: bones,
        to_rig,
    }
}

/// Per node, where an animation moves it or an ancestor (one that is a
/// bone): the nearest bone at or above it, `b` (its node `k`), and the
/// transform `rest_b * G_k^-1 * G_n` that places the node's unskinned parts
/// in the rig's rest pose. Skinned with weight 1 to `b`, such a part then
/// goes where glTF puts it at every pose: `pose_b * rest_b^-1` times that
/// is `G_k(t) * G_k^-1 * G_n`, the node's global transform at time t, as
/// the nodes between `k` and `n` do not move. For a bone that is no
/// skin's joint `rest_b` is `G_k` and the transform is `G_n` itself. None
/// where nothing moves the node, or where `G_k` has no inverse.
fn rigid_bindings(
    tree: &Tree,
    bone_of_node: &[Option<usize>],
    bone_nodes: &[usize],
    rest: &[Mat4],
    animated: &[bool],
) -> Vec<Option<(usize, Mat4)>> {
    let Tree {
        nodes,
        parent,
        global,
    } = tree;
    let n = nodes.len();
    // Parents first (the tree has no loops): each node's nearest bone at
    // or above it, and whether an animated bone is at or above it.
    let mut near: Vec<Option<usize>> = vec![None; n];
    let mut moved = vec![false; n];
    let mut stack: Vec<usize> = (0..n).filter(|&i| parent[i].is_none()).collect();
    while let Some(i) = stack.pop() {
        let up = parent[i];
        near[i] = bone_of_node[i].or_else(|| up.and_then(|p| near[p]));
        moved[i] = (animated[i] && bone_of_node[i].is_some()) || up.is_some_and(|p| moved[p]);
        stack.extend(nodes[i].children().map(|c| c.index()));
    }
    (0..n)
        .map(|i| {
            let b = near[i].filter(|_| moved[i])?;
            let k = bone_nodes[b];
            if rest[b] == global[k] {
                return Some((b, global[i]));
            }
            let inv = global[k].inverse();
            inv.is_finite().then(|| (b, rest[b] * inv * global[i]))
        })
        .collect()
}
