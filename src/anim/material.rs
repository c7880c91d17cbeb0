//! CPU reference of material keyframe animation: where a material's frame
//! clock is at a global time, which keyframe segment of each track is
//! active, and the interpolated values. `shaders/material_anim.wgsl` computes
//! the same thing for every animated material once per frame; the viewer's
//! render path never calls this (the inspector does, for the one material it
//! shows).
//!
//! Rules (see `scene::material_anim` and `docs/formats.md`):
//! - `frame = time / seconds_per_frame`; a cycle is `last_frame + 1` frames.
//!   `Hold` clamps the frame at `last_frame`; `Loop` and `Continue` wrap.
//! - Before a track's first key, the segment starts at frame 0 from the
//!   material's initial value; in `Continue` cycles after the first it
//!   starts from the last key, one cycle earlier.
//! - After the last key the value holds, except in `Continue`, where it
//!   heads for the first key of the next cycle.
//! - A segment interpolates with the interpolation of the key it ends at.

use super::color::mix_rgba;
use crate::scene::Material;
use crate::scene::material_anim::{MatInterp, MatKey, MatLoop, MatTrack, MaterialAnim};

/// Where the frame clock is: which cycle, and the (fractional) frame in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FramePos {
    pub cycle: u32,
    pub frame: f32,
}

pub fn frame_pos(a: &MaterialAnim, time: f32) -> FramePos {
    let spf = a.seconds_per_frame;
    let f = if spf > 0.0 {
        (time / spf).max(0.0)
    } else {
        0.0
    };
    match a.loop_mode {
        MatLoop::Hold => FramePos {
            cycle: 0,
            frame: f.min(a.last_frame as f32),
        },
        MatLoop::Loop | MatLoop::Continue => {
            let p = a.period_frames() as f32;
            let c = (f / p).floor();
            FramePos {
                // Saturates after 4e9 cycles; the frame stays in range.
                cycle: c as u32,
                frame: (f - c * p).clamp(0.0, p),
            }
        }
    }
}

/// One end of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The material's own value, at frame 0.
    Initial,
    /// Key `i` of this cycle.
    Key(usize),
    /// Key `i` of the previous cycle (as a start) or the next (as an end).
    Wrapped(usize),
}

/// The active part of a track: from `from` to `to` (`None`: holding `from`),
/// `s` of the way (0..1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub from: End,
    pub to: Option<End>,
    pub s: f32,
}

/// The active segment of `keys` at `pos`, or `None` for an empty track.
pub fn segment<T>(keys: &[MatKey<T>], pos: FramePos, a: &MaterialAnim) -> Option<Segment> {
    let last = keys.len().checked_sub(1)?;
    let p = a.period_frames() as f32;
    let x = pos.frame;
    let k = |i: usize| keys[i].frame as f32;
    let cont = a.loop_mode == MatLoop::Continue;
    let (from, fa, to, fb) = if x < k(0) {
        if cont && pos.cycle > 0 {
            (End::Wrapped(last), k(last) - p, End::Key(0), k(0))
        } else {
            (End::Initial, 0.0, End::Key(0), k(0))
        }
    } else if x >= k(last) {
        if cont {
            (End::Key(last), k(last), End::Wrapped(0), k(0) + p)
        } else {
            return Some(Segment {
                from: End::Key(last),
                to: None,
                s: 0.0,
            });
        }
    } else {
        // keys[i].frame <= x < keys[i + 1].frame
        let i = keys.partition_point(|key| key.frame as f32 <= x) - 1;
        (End::Key(i), k(i), End::Key(i + 1), k(i + 1))
    };
    Some(Segment {
        from,
        to: Some(to),
        s: ((x - fa) / (fb - fa)).clamp(0.0, 1.0),
    })
}

/// Values a material track can hold.
pub trait MatValue: Copy {
    fn mix(a: Self, b: Self, s: f32, interp: MatInterp) -> Self;
}

impl MatValue for [f32; 4] {
    fn mix(a: Self, b: Self, s: f32, interp: MatInterp) -> Self {
        mix_rgba(a, b, s, interp)
    }
}

impl MatValue for [f32; 3] {
    fn mix(a: Self, b: Self, s: f32, interp: MatInterp) -> Self {
        let c = mix_rgba([a[0], a[1], a[2], 0.0], [b[0], b[1], b[2], 0.0], s, interp);
        [c[0], c[1], c[2]]
    }
}

impl MatValue for f32 {
    fn mix(a: Self, b: Self, s: f32, interp: MatInterp) -> Self {
        match interp {
            MatInterp::Step => a,
            _ => a + (b - a) * s,
        }
    }
}

impl MatValue for Option<usize> {
    fn mix(a: Self, _: Self, _: f32, _: MatInterp) -> Self {
        a
    }
}

fn end_value<T: Copy>(keys: &[MatKey<T>], e: End, initial: T) -> T {
    match e {
        End::Initial => initial,
        End::Key(i) | End::Wrapped(i) => keys[i].value,
    }
}

/// The track's value at `pos` (`initial` for an empty track).
pub fn sample<T: MatValue>(track: &MatTrack<T>, pos: FramePos, a: &MaterialAnim, initial: T) -> T {
    let keys = &track.keys;
    let Some(seg) = segment(keys, pos, a) else {
        return initial;
    };
    let from = end_value(keys, seg.from, initial);
    match seg.to {
        None => from,
        Some(to) => {
            let key = match to {
                End::Key(i) | End::Wrapped(i) => &keys[i],
                End::Initial => unreachable!("segments never end at the initial value"),
            };
            T::mix(from, key.value, seg.s, key.interp)
        }
    }
}

/// A material's values at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialState {
    /// sRGB-encoded RGBA.
    pub color: [f32; 4],
    /// sRGB-encoded RGB.
    pub emission: [f32; 3],
    pub shading: f32,
    pub texture: Option<usize>,
    pub matcap: Option<usize>,
    /// UV offsets from scrolling, wrapped into `0..1`.
    pub texture_offset: [f32; 2],
    pub matcap_offset: [f32; 2],
    pub pos: FramePos,
}

impl MaterialState {
    /// The material's own (initial) values.
    pub fn initial(m: &Material) -> MaterialState {
        MaterialState {
            color: m.base_color,
            emission: m.emission,
            shading: m.shading,
            texture: m.texture,
            matcap: m.matcap,
            texture_offset: [0.0; 2],
            matcap_offset: [0.0; 2],
            pos: FramePos {
                cycle: 0,
                frame: 0.0,
            },
        }
    }
}

fn fract(x: f32) -> f32 {
    x - x.floor()
}

/// `m` at global time `time` (its initial values if it is not animated).
pub fn evaluate(m: &Material, time: f32) -> MaterialState {
    let init = MaterialState::initial(m);
    let Some(a) = &m.animation else {
        return init;
    };
    let pos = frame_pos(a, time);
    let scroll_time = if a.preserve_scroll {
        time
    } else {
        pos.frame * a.seconds_per_frame
    };
    let scroll = |v: [f32; 2]| [fract(v[0] * scroll_time), fract(v[1] * scroll_time)];
    MaterialState {
        color: sample(&a.color, pos, a, init.color),
        emission: sample(&a.emission, pos, a, init.emission),
        shading: sample(&a.shading, pos, a, init.shading),
        texture: sample(&a.texture, pos, a, init.texture),
        matcap: sample(&a.matcap, pos, a, init.matcap),
        texture_offset: scroll(a.texture_scroll),
        matcap_offset: scroll(a.matcap_scroll),
        pos,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anim(loop_mode: MatLoop, keys: &[(u32, f32, MatInterp)]) -> MaterialAnim {
        let mut a = MaterialAnim::new(0.1, 9, loop_mode);
        a.shading.keys = keys
            .iter()
            .map(|&(frame, value, interp)| MatKey {
                frame,
                interp,
                value,
            })
            .collect();
        a
    }

    fn shading_at(a: &MaterialAnim, t: f32) -> f32 {
        sample(&a.shading, frame_pos(a, t), a, 0.0)
    }

    const L: MatInterp = MatInterp::Linear;

    #[test]
    fn hold_ramps_from_the_initial_value_and_holds_the_last_frame() {
        // Keys at frames 2 (0.5) and 6 (1.0); initial 0 at frame 0.
        let a = anim(MatLoop::Hold, &[(2, 0.5, L), (6, 1.0, L)]);
        assert_eq!(shading_at(&a, 0.0), 0.0);
        assert!((shading_at(&a, 0.1) - 0.25).abs() < 1e-6);
        assert!((shading_at(&a, 0.4) - 0.75).abs() < 1e-6);
        assert_eq!(shading_at(&a, 0.8), 1.0);
        assert_eq!(shading_at(&a, 100.0), 1.0);
        assert_eq!(frame_pos(&a, 100.0).frame, 9.0);
    }

    #[test]
    fn loop_restarts_from_frame_zero() {
        let a = anim(MatLoop::Loop, &[(2, 0.5, L), (6, 1.0, L)]);
        // Period 10 frames = 1 s: 1.1 s is frame 1 of cycle 1.
        let p = frame_pos(&a, 1.15);
        assert_eq!(p.cycle, 1);
        assert!((p.frame - 1.5).abs() < 1e-4);
        assert!((shading_at(&a, 1.1) - 0.25).abs() < 1e-5);
        assert_eq!(shading_at(&a, 1.95), 1.0);
    }

    #[test]
    fn continue_wraps_from_the_last_key_into_the_first() {
        let a = anim(MatLoop::Continue, &[(2, 0.5, L), (6, 1.0, L)]);
        // First cycle: initial -> key 0 as usual.
        assert!((shading_at(&a, 0.1) - 0.25).abs() < 1e-5);
        // After the last key: from 1.0 at frame 6 towards 0.5 at frame 12.
        assert!((shading_at(&a, 0.9) - 0.75).abs() < 1e-5);
        // Second cycle, frame 1 (= frame 11 of the wrap segment).
        assert!((shading_at(&a, 1.1) - (1.0 - 0.5 * 5.0 / 6.0)).abs() < 1e-5);
        let seg = segment(&a.shading.keys, frame_pos(&a, 1.1), &a).unwrap();
        assert_eq!(seg.from, End::Wrapped(1));
        assert_eq!(seg.to, Some(End::Key(0)));
    }

    #[test]
    fn step_holds_until_the_next_key() {
        let a = anim(
            MatLoop::Hold,
            &[(0, 0.2, L), (4, 0.9, MatInterp::Step), (8, 0.4, L)],
        );
        assert_eq!(shading_at(&a, 0.0), 0.2);
        assert_eq!(shading_at(&a, 0.39), 0.2);
        assert_eq!(shading_at(&a, 0.4), 0.9);
        assert!((shading_at(&a, 0.6) - 0.65).abs() < 1e-5);
        let seg = segment(&a.shading.keys, frame_pos(&a, 0.2), &a).unwrap();
        assert_eq!((seg.from, seg.to), (End::Key(0), Some(End::Key(1))));
    }

    #[test]
    fn zero_frame_length_stays_at_frame_zero() {
        let mut a = anim(MatLoop::Loop, &[(0, 0.3, L), (5, 1.0, L)]);
        a.seconds_per_frame = 0.0;
        assert_eq!(shading_at(&a, 7.0), 0.3);
    }

    #[test]
    fn scroll_restarts_with_the_cycle_unless_preserved() {
        let mut m = Material {
            animation: Some(anim(MatLoop::Loop, &[])),
            ..Material::default()
        };
        let a = m.animation.as_mut().unwrap();
        a.texture_scroll = [0.25, 0.0];
        // 1.2 s = cycle 1, 0.2 s in: 0.05 without preserving, 0.3 with.
        assert!((evaluate(&m, 1.2).texture_offset[0] - 0.05).abs() < 1e-5);
        m.animation.as_mut().unwrap().preserve_scroll = true;
        assert!((evaluate(&m, 1.2).texture_offset[0] - 0.3).abs() < 1e-5);
        // Hold: the scroll stops with the animation (frame 9 = 0.9 s).
        let a = m.animation.as_mut().unwrap();
        a.preserve_scroll = false;
        a.loop_mode = MatLoop::Hold;
        assert!((evaluate(&m, 5.0).texture_offset[0] - 0.225).abs() < 1e-5);
    }
}
