//! Model 3D frame sequences, evaluated as the reference SDK's `m3d_pose`
//! does (see `scene::clip::FrameSequence` and `docs/formats.md`): frames
//! replace the bones they list; between the last applied frame and the next,
//! the bones that the next frame lists move towards it.

use crate::scene::clip::{BoneState, FrameSequence};
use glam::Quat;

/// m3d.h's `_m3d_rsq`: 1/sqrt(x) by the bit trick with one Newton step
/// (about 0.2% off), so orientations normalise exactly as the reference's.
pub fn m3d_rsq(x: f32) -> f32 {
    let half = x * 0.5;
    let y = f32::from_bits(0x5f37_59df_u32.wrapping_sub(x.to_bits() >> 1));
    y * (1.5 - half * y * y)
}

/// m3d.h's orientation blend: an nlerp whose `t` is first corrected by
/// Arseny Kapoulkine's polynomial (an approximation of slerp), along the
/// shorter arc, normalised with [`m3d_rsq`]. Returns the blend and the
/// corrected `t`, which m3d.h carries on to the next bones (it updates one
/// shared variable).
pub fn m3d_nlerp(p: Quat, f: Quat, t: f32) -> (Quat, f32) {
    let mut d = p.dot(f);
    let s = if d < 0.0 {
        d = -d;
        -1.0
    } else {
        1.0
    };
    let c = t - 0.5;
    let t = t + t
        * c
        * (t - 1.0)
        * ((1.0904 + d * (-3.2452 + d * (3.55645 - d * 1.43519))) * c * c
            + (0.848013 + d * (-1.06021 + d * 0.215638)));
    let v = p + (f * s - p) * t;
    (v * m3d_rsq(v.length_squared()), t)
}

/// The bones' states at `t` seconds into `seq` (wrapping at its duration),
/// in `cur`; `next` is scratch. Allocates nothing once the vectors have grown.
pub fn evaluate(seq: &FrameSequence, t: f32, cur: &mut Vec<BoneState>, next: &mut Vec<BoneState>) {
    cur.clear();
    cur.extend_from_slice(&seq.bind);
    let n = seq.frames.len();
    if n == 0 {
        return;
    }
    // m3d.h counts whole milliseconds; keep sub-millisecond time for smooth
    // slow motion, but snap float noise (0.6 s is 600.0000238 ms in f32) so
    // that a frame's own time shows that frame.
    let raw = t as f64 * 1000.0;
    let raw = if (raw - raw.round()).abs() < 1e-3 {
        raw.round()
    } else {
        raw
    };
    let ms = raw.rem_euclid(seq.duration_ms.max(1) as f64);
    let mut l = 0.0f64;
    let mut j = 0;
    while j < n && seq.frames[j].msec as f64 <= ms {
        let fr = &seq.frames[j];
        for (b, s) in seq.bones_of(fr) {
            if let Some(c) = cur.get_mut(*b) {
                *c = *s;
            }
        }
        l = fr.msec as f64;
        j += 1;
    }
    if l == ms {
        return;
    }
    let fr = &seq.frames[j % n];
    let tt = if l >= fr.msec as f64 {
        1.0
    } else {
        ((ms - l) / (fr.msec as f64 - l)) as f32
    };
    next.clear();
    next.extend_from_slice(cur);
    for (b, s) in seq.bones_of(fr) {
        if let Some(x) = next.get_mut(*b) {
            *x = *s;
        }
    }
    // As m3d.h: one `t` for the whole loop, which every orientation blend
    // corrects in place, so later bones blend with the corrected value.
    let mut tt = tt;
    for (c, x) in cur.iter_mut().zip(next.iter()) {
        if c.pos_id != x.pos_id {
            c.pos = c.pos + (x.pos - c.pos) * tt;
            c.pos_id = u32::MAX - 2; // interpolated
        }
        if c.ori_id != x.ori_id {
            (c.ori, tt) = m3d_nlerp(c.ori, x.ori, tt);
            c.ori_id = u32::MAX - 2;
        }
    }
}
