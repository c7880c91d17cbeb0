//! Animation clips in a format-independent form: per-bone keyframe tracks in
//! seconds, the clip's segments (for frame numbers and part lists), and the
//! interpolation rules every format maps onto.

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};

/// How a key is reached from the previous one (the segment that ends at it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interp {
    /// Hold the previous value until this key's time.
    Step,
    Linear,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key<T> {
    pub time: f32,
    pub value: T,
    pub interp: Interp,
}

/// Keys sorted by time. Before the first key its value holds; after the last,
/// the last value holds. An empty track leaves the channel at its default.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Track<T> {
    pub keys: Vec<Key<T>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RotationTrack {
    /// Euler angles (x, y, z) in radians in Blender's ZXY order: Z applied
    /// first, then X, then Y (`R = Ry · Rx · Rz`), each angle interpolated on
    /// its own (as Blender's F-curves do). P3M's only rotation order.
    EulerZxy(Track<Vec3>),
    /// Quaternions, interpolated with shortest-arc slerp.
    Quat(Track<Quat>),
}

/// What a channel's values are relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelSpace {
    /// A transform applied inside the bone's rest frame (Blender pose bones,
    /// P3M): `local = rest_local * T * R * S`; empty tracks mean identity.
    RestRelative,
    /// The bone's full local transform relative to its parent (M3D, Papa);
    /// empty tracks fall back to the rest local transform's part.
    Local,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    pub bone: usize,
    pub translation: Track<Vec3>,
    pub rotation: RotationTrack,
    pub scale: Track<Vec3>,
}

/// Which parts a segment shows (P3M action part lists).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartListMode {
    /// Start from the current visibility, show the listed parts too.
    DefaultWhite,
    /// Start from the current visibility, hide the listed parts.
    DefaultBlack,
    /// Only the listed parts.
    White,
    /// Every part except the listed ones.
    Black,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PartList {
    pub mode: PartListMode,
    pub parts: Vec<usize>,
}

impl PartList {
    /// Applies the list to `base` (the visibility the user sees without the clip).
    pub fn apply(&self, base: &[bool], out: &mut [bool]) {
        for (i, o) in out.iter_mut().enumerate() {
            let listed = self.parts.contains(&i);
            let b = base.get(i).copied().unwrap_or(true);
            *o = match self.mode {
                PartListMode::DefaultWhite => b || listed,
                PartListMode::DefaultBlack => b && !listed,
                PartListMode::White => listed,
                PartListMode::Black => !listed,
            };
        }
    }
}

/// A stretch of a clip with its own frame rate (a P3M action reference).
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// What it plays where a clip strings several things together (a P3M
    /// action, a Papa animation); empty where every segment is an interval
    /// between two frames of the clip's one action (M3D: a name per
    /// interval was a copy of the clip's name per frame).
    pub name: String,
    pub start_s: f32,
    pub duration_s: f32,
    /// Seconds per displayed frame in this segment.
    pub frame_s: f32,
    /// Frame number (over the whole clip) of the segment's first frame.
    pub first_frame: u32,
    pub frames: u32,
    pub part_list: Option<PartList>,
}

/// One bone's transform in a [`PoseFrame`]: parent-relative position and
/// orientation quaternion as stored (not normalised), with the ids of the
/// records they came from (equal ids are not interpolated, as in m3d.h).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneState {
    pub pos: Vec3,
    pub pos_id: u32,
    pub ori: Quat,
    pub ori_id: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PoseFrame {
    pub msec: u32,
    /// Where its (bone, state) pairs are in [`FrameSequence::bones`] (see
    /// [`FrameSequence::bones_of`]).
    pub bones: std::ops::Range<u32>,
}

/// Whole-skeleton keyframes with Model 3D's rules (m3d.h's `m3d_pose`):
/// starting from `bind`, every frame up to the time replaces the bones it
/// lists; listed bones of the next frame move towards it (positions lerp,
/// orientations m3d.h's approximated nlerp); after the last frame the bones
/// of frame 0 jump to it. Time wraps at `duration_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameSequence {
    pub duration_ms: u32,
    pub bind: Vec<BoneState>,
    /// In time order.
    pub frames: Vec<PoseFrame>,
    /// Every frame's (bone, state) pairs, in file order: one list for the
    /// sequence (a list per frame was most of a small file's allocations).
    pub bones: Vec<(usize, BoneState)>,
}

impl FrameSequence {
    /// The (bone, state) pairs one of this sequence's frames sets (none for
    /// a range past the list, which only a sequence built by hand can have).
    pub fn bones_of(&self, f: &PoseFrame) -> &[(usize, BoneState)] {
        self.bones
            .get(f.bones.start as usize..f.bones.end as usize)
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    pub name: String,
    pub duration_s: f32,
    /// Frames over the whole clip (the last frame number is `frames`).
    pub frames: u32,
    pub space: ChannelSpace,
    pub channels: Vec<Channel>,
    /// Instead of channels: a Model 3D frame sequence.
    pub sequence: Option<FrameSequence>,
    /// At least one; covers `0..duration_s` in order.
    pub segments: Vec<Segment>,
}

impl Clip {
    /// `t` clamped into the clip. Not `f32::clamp`, which panics on a NaN
    /// or negative bound: a duration is the file's to make.
    fn clamp_time(&self, t: f32) -> f32 {
        t.min(self.duration_s.max(0.0)).max(0.0)
    }

    /// The segment playing at `t` (clamped into the clip).
    pub fn segment_at(&self, t: f32) -> Option<&Segment> {
        let t = self.clamp_time(t);
        self.segments
            .iter()
            .rev()
            .find(|s| s.start_s <= t)
            .or(self.segments.first())
    }

    /// Frame number at `t` (fractional), over the whole clip.
    pub fn frame_at(&self, t: f32) -> f32 {
        match self.segment_at(t) {
            Some(s) if s.frame_s > 0.0 => {
                s.first_frame as f32
                    + ((self.clamp_time(t) - s.start_s) / s.frame_s).min(s.frames as f32)
            }
            _ => 0.0,
        }
    }

    /// Time of frame `f` (clamped to `0..=frames`).
    pub fn time_of_frame(&self, f: u32) -> f32 {
        let f = f.min(self.frames);
        for s in &self.segments {
            if f <= s.first_frame + s.frames {
                return (s.start_s + (f - s.first_frame.min(f)) as f32 * s.frame_s)
                    .min(self.duration_s);
            }
        }
        self.duration_s
    }
}

/// m3d.h's `_m3d_mat`: a bone's local matrix from its position and its
/// quaternion *as stored* (an unnormalised quaternion scales the matrix,
/// exactly as in the reference), with its two quirks: entries within 1e-7
/// of 0 snap to 0, and (0, 0, ~0.7071, 0) means a half turn about every axis.
pub fn m3d_mat(p: Vec3, q: Quat) -> Mat4 {
    let eps = |v: f32| if v.abs() < 1e-7 { 0.0 } else { v };
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let r = if x == 0.0 && y == 0.0 && (0.707_106_5..=0.707_107_5).contains(&z) && w == 0.0 {
        Mat3::from_diagonal(Vec3::splat(-1.0))
    } else {
        // Rows of m3d.h's row-major matrix, as glam columns (transposed).
        Mat3::from_cols(
            Vec3::new(
                eps(1.0 - 2.0 * (y * y + z * z)),
                eps(2.0 * (x * y + z * w)),
                eps(2.0 * (x * z - y * w)),
            ),
            Vec3::new(
                eps(2.0 * (x * y - z * w)),
                eps(1.0 - 2.0 * (x * x + z * z)),
                eps(2.0 * (y * z + x * w)),
            ),
            Vec3::new(
                eps(2.0 * (x * z + y * w)),
                eps(2.0 * (y * z - x * w)),
                eps(1.0 - 2.0 * (x * x + y * y)),
            ),
        )
    };
    Mat4::from_cols(
        r.x_axis.extend(0.0),
        r.y_axis.extend(0.0),
        r.z_axis.extend(0.0),
        Vec4::new(p.x, p.y, p.z, 1.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clip whose duration is NaN or negative (a converter's bug, or a
    /// file's values passed through) still answers: the time is clamped to
    /// 0 and the one segment plays, where `f32::clamp` panicked.
    #[test]
    fn bad_durations_clamp_without_panicking() {
        let segment = Segment {
            name: String::new(),
            start_s: 0.0,
            duration_s: 1.0,
            frame_s: 0.5,
            first_frame: 0,
            frames: 2,
            part_list: None,
        };
        for duration_s in [f32::NAN, -1.0, f32::NEG_INFINITY] {
            let clip = Clip {
                name: "bad".into(),
                duration_s,
                frames: 2,
                space: ChannelSpace::RestRelative,
                channels: Vec::new(),
                sequence: None,
                segments: vec![segment.clone()],
            };
            for t in [0.0, 0.7, -3.0, f32::NAN] {
                assert_eq!(clip.segment_at(t), Some(&segment), "{duration_s} at {t}");
                assert_eq!(clip.frame_at(t), 0.0, "{duration_s} at {t}");
            }
        }
        // A good clip still clamps as before: 0.7 s of 1 s at 0.5 s a frame.
        let clip = Clip {
            name: "good".into(),
            duration_s: 1.0,
            frames: 2,
            space: ChannelSpace::RestRelative,
            channels: Vec::new(),
            sequence: None,
            segments: vec![segment],
        };
        assert_eq!(clip.frame_at(0.7), 1.4);
        assert_eq!(clip.frame_at(5.0), 2.0);
    }
}
