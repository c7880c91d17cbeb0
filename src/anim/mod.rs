//! CPU reference of animation: keyframe sampling, pose evaluation (local ->
//! model space along the bone hierarchy), skinning matrices and linear-blend
//! skinning of positions and normals. The GPU compute shaders are tested
//! against this module; the viewer uses it for the pose (bones are few) and
//! leaves per-vertex work to the GPU.

pub mod color;
pub mod material;
pub mod pick;
pub mod sequence;
pub mod timeline;

use crate::scene::clip::{BoneState, ChannelSpace, Clip, Interp, RotationTrack, Track, m3d_mat};
use crate::scene::{Skeleton, Skin};
use glam::{Mat3, Mat4, Quat, Vec3};

/// Values a track can interpolate.
pub trait Lerp: Copy {
    fn lerp_to(self, other: Self, t: f32) -> Self;
}

impl Lerp for Vec3 {
    fn lerp_to(self, other: Self, t: f32) -> Self {
        self.lerp(other, t)
    }
}

impl Lerp for Quat {
    fn lerp_to(self, other: Self, t: f32) -> Self {
        // Shortest arc.
        let other = if self.dot(other) < 0.0 { -other } else { other };
        self.slerp(other, t)
    }
}

/// The track's value at `t`, or `None` when it has no keys.
pub fn sample<T: Lerp>(track: &Track<T>, t: f32) -> Option<T> {
    let keys = &track.keys;
    let first = keys.first()?;
    // First key strictly after t.
    let i = keys.partition_point(|k| k.time <= t);
    if i == 0 {
        return Some(first.value);
    }
    if i == keys.len() {
        return Some(keys[i - 1].value);
    }
    let (a, b) = (&keys[i - 1], &keys[i]);
    Some(match b.interp {
        Interp::Step => a.value,
        Interp::Linear => {
            let span = b.time - a.time;
            let u = if span > 0.0 { (t - a.time) / span } else { 1.0 };
            a.value.lerp_to(b.value, u)
        }
    })
}

/// Blender's ZXY Euler (the only order the P3M exporter writes): Z applied
/// first, then X, then Y, so `R = Ry · Rx · Rz` on column vectors.
pub fn euler_zxy(r: Vec3) -> Mat3 {
    Mat3::from_rotation_y(r.y) * Mat3::from_rotation_x(r.x) * Mat3::from_rotation_z(r.z)
}

/// A skeleton's pose. Buffers are sized once per skeleton and reused: evaluating
/// a frame allocates nothing.
#[derive(Debug, Clone, Default)]
pub struct Pose {
    /// Each bone's transform relative to its parent.
    pub local: Vec<Mat4>,
    /// Each bone's transform in model space.
    pub world: Vec<Mat4>,
    /// `world * rest^-1`: maps rest-pose model space to posed model space.
    pub skin: Vec<Mat4>,
    rest_local: Vec<Mat4>,
    rest_inverse: Vec<Mat4>,
    /// Scratch for frame sequences (M3D).
    seq_cur: Vec<BoneState>,
    seq_next: Vec<BoneState>,
}

impl Pose {
    pub fn new(skeleton: &Skeleton) -> Pose {
        let n = skeleton.bones.len();
        let mut p = Pose {
            local: vec![Mat4::IDENTITY; n],
            world: vec![Mat4::IDENTITY; n],
            skin: vec![Mat4::IDENTITY; n],
            rest_local: (0..n).map(|i| skeleton.rest_local(i)).collect(),
            rest_inverse: skeleton.bones.iter().map(|b| b.rest.inverse()).collect(),
            seq_cur: Vec::with_capacity(n),
            seq_next: Vec::with_capacity(n),
        };
        p.evaluate(skeleton, None, 0.0);
        p
    }

    /// Poses the skeleton with `clip` at `t` seconds (the rest pose without a clip).
    pub fn evaluate(&mut self, skeleton: &Skeleton, clip: Option<&Clip>, t: f32) {
        self.local.copy_from_slice(&self.rest_local);
        if let Some(seq) = clip.and_then(|c| c.sequence.as_ref()) {
            sequence::evaluate(seq, t, &mut self.seq_cur, &mut self.seq_next);
            for (i, b) in self.seq_cur.iter().enumerate().take(self.local.len()) {
                self.local[i] = m3d_mat(b.pos, b.ori);
            }
        } else if let Some(clip) = clip {
            for ch in &clip.channels {
                let Some(rest_local) = self.rest_local.get(ch.bone) else {
                    continue;
                };
                let translation = sample(&ch.translation, t);
                let scale = sample(&ch.scale, t);
                let rotation = match &ch.rotation {
                    RotationTrack::EulerZxy(tr) => sample(tr, t).map(euler_zxy),
                    RotationTrack::Quat(tr) => sample(tr, t).map(Mat3::from_quat),
                };
                self.local[ch.bone] = match clip.space {
                    ChannelSpace::RestRelative => {
                        let basis = Mat4::from_translation(translation.unwrap_or(Vec3::ZERO))
                            * Mat4::from_mat3(rotation.unwrap_or(Mat3::IDENTITY))
                            * Mat4::from_scale(scale.unwrap_or(Vec3::ONE));
                        *rest_local * basis
                    }
                    ChannelSpace::Local => {
                        let (rs, rr, rt) = rest_local.to_scale_rotation_translation();
                        Mat4::from_translation(translation.unwrap_or(rt))
                            * Mat4::from_mat3(rotation.unwrap_or(Mat3::from_quat(rr)))
                            * Mat4::from_scale(scale.unwrap_or(rs))
                    }
                };
            }
        }
        for (i, b) in skeleton.bones.iter().enumerate() {
            self.world[i] = match b.parent {
                Some(p) if p < i => self.world[p] * self.local[i],
                _ => self.local[i],
            };
            self.skin[i] = match clip {
                Some(_) => self.world[i] * self.rest_inverse[i],
                // The rest pose maps rest space onto itself: exactly the
                // identity, where `world * rest^-1` is only near it (and
                // NaN for a bone whose rest matrix has no inverse). The
                // GPU then sees the same rows every rest frame and skips
                // skinning again (GpuScene::encode_pose).
                None => Mat4::IDENTITY,
            };
        }
    }
}

/// Linear-blend skinning of one mesh: `out = sum(w_k * skin[j_k]) * v`.
/// Normals go through the blended matrix's 3x3 and are renormalised (exact for
/// rotations and uniform scale). Vertices with no weight stay at rest.
pub fn skin_vertices(
    skin_mats: &[Mat4],
    skin: &Skin,
    positions: &[Vec3],
    normals: &[Vec3],
    out_positions: &mut [Vec3],
    out_normals: &mut [Vec3],
) {
    for i in 0..positions.len() {
        let m = blended(skin_mats, skin.joints[i], skin.weights[i]);
        out_positions[i] = m.transform_point3(positions[i]);
        out_normals[i] = m.transform_vector3(normals[i]).normalize_or(normals[i]);
    }
}

/// One vertex's skinning matrix: its bones' matrices weighted (a joint past
/// `skin_mats` counts as the identity), or the identity where no weight
/// is above zero.
pub fn blended(skin_mats: &[Mat4], joints: [u16; 4], weights: [u16; 4]) -> Mat4 {
    let w = crate::scene::unit_weights(weights);
    let mut m = Mat4::ZERO;
    let mut total = 0.0;
    for k in 0..4 {
        if w[k] > 0.0 {
            let b = skin_mats
                .get(joints[k] as usize)
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            m += b * w[k];
            total += w[k];
        }
    }
    if total == 0.0 { Mat4::IDENTITY } else { m }
}

/// Which parts show at `t` of `clip`: the playing segment's part list applied
/// to `base` (the visibility without the clip). `out` keeps its allocation.
pub fn clip_visibility(clip: &Clip, t: f32, base: &[bool], out: &mut Vec<bool>) {
    out.clear();
    out.extend_from_slice(base);
    if let Some(list) = clip.segment_at(t).and_then(|s| s.part_list.as_ref()) {
        list.apply(base, out);
    }
}

/// Per-mesh material while `clip_name` plays: the override of highest
/// priority naming it (ties: the first listed), else `None`.
pub fn material_overrides(
    scene: &crate::scene::Scene,
    clip_name: Option<&str>,
    out: &mut Vec<Option<usize>>,
) {
    out.clear();
    out.extend(scene.meshes.iter().map(|m| {
        let name = clip_name?;
        let mut best: Option<(u8, usize)> = None;
        for (clip, priority, material) in &m.material_overrides {
            if clip == name && best.is_none_or(|(p, _)| *priority > p) {
                best = Some((*priority, *material));
            }
        }
        best.map(|(_, m)| m)
    }));
}

/// Pose and clip-driven view state for one scene, updated once per frame
/// (or per headless render) without allocating.
#[derive(Debug, Clone, Default)]
pub struct Animator {
    pub pose: Pose,
    /// Parts shown at the current time.
    pub visible: Vec<bool>,
    /// Per-mesh material overrides at the current time.
    pub materials: Vec<Option<usize>>,
}

impl Animator {
    pub fn new(scene: &crate::scene::Scene) -> Animator {
        Animator {
            pose: Pose::new(&scene.skeleton),
            visible: scene.meshes.iter().map(|m| m.visible).collect(),
            materials: vec![None; scene.meshes.len()],
        }
    }

    /// Evaluates `clip` (an index into `scene.clips`) at `t`; `base` is the
    /// visibility the user chose.
    pub fn update(
        &mut self,
        scene: &crate::scene::Scene,
        clip: Option<usize>,
        t: f32,
        base: &[bool],
    ) {
        let clip = clip.and_then(|c| scene.clips.get(c));
        self.pose.evaluate(&scene.skeleton, clip, t);
        match clip {
            Some(c) => clip_visibility(c, t, base, &mut self.visible),
            None => {
                self.visible.clear();
                self.visible.extend_from_slice(base);
            }
        }
        material_overrides(scene, clip.map(|c| c.name.as_str()), &mut self.materials);
    }
}
