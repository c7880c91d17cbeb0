//! Animations: clips of local translation, rotation (slerp) and scale
//! tracks for the bones; STEP keys hold, CUBICSPLINE curves become linear
//! keys on the curve (`cubic_to_linear`). Every animated node is a bone
//! (`skeleton::rig`) unless the skeleton would grow too large: channels on
//! nodes left out are noted.

use super::accessors::{Buffers, floats};
use super::skeleton::Rig;
use crate::scene::clip::{Channel, ChannelSpace, Clip, Interp, Key, RotationTrack, Segment, Track};
use glam::{Quat, Vec3};
use gltf::animation::{Interpolation, Property};

/// The most keys a file's clips hold, every track together (about 0.4 GB):
/// channels may share a sampler, so a few bytes of JSON can name one large
/// sampler a hundred thousand times.
pub(super) const MAX_KEYS: usize = 1 << 24;

pub(super) fn clips(
    doc: &gltf::Document,
    rig: &Rig,
    buffers: &Buffers,
    warnings: &mut Vec<String>,
) -> Result<Vec<Clip>, String> {
    clips_within(doc, rig, buffers, warnings, MAX_KEYS)
}

/// [`clips`], holding at most `keys_left` keys: a channel that would pass
/// them is not read (nor its sampler), and a warning says how many were not.
fn clips_within(
    doc: &gltf::Document,
    rig: &Rig,
    buffers: &Buffers,
    warnings: &mut Vec<String>,
    mut keys_left: usize,
) -> Result<Vec<Clip>, String> {
    let budget = keys_left;
    // Per bone, its channel in the clip being read.
    let mut slot: Vec<Option<usize>> = vec![None; rig.bones.len()];
    let mut clips = Vec::new();
    for a in doc.animations() {
        let name = a
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("animation {}", a.index()));
        let mut channels: Vec<Channel> = Vec::new();
        let mut duration = 0.0f32;
        let mut not_bones = 0usize;
        let mut over_budget = 0usize;
        for ch in a.channels() {
            let property = ch.target().property();
            // Morph weights are shown at their defaults (parts.rs says so).
            if property == Property::MorphTargetWeights {
                continue;
            }
            let Some(bone) = rig.bone_of_node[ch.target().node().index()] else {
                not_bones += 1;
                continue;
            };
            let s = ch.sampler();
            if most_keys(&s) > keys_left {
                over_budget += 1;
                continue;
            }
            let keys = SamplerKeys::read(&s, property, buffers, &name)?;
            duration = duration.max(keys.end);
            keys_left -= keys.times.len();
            let i = *slot[bone].get_or_insert_with(|| {
                channels.push(Channel {
                    bone,
                    translation: Track::default(),
                    rotation: RotationTrack::Quat(Track::default()),
                    scale: Track::default(),
                });
                channels.len() - 1
            });
            keys.add_to(&mut channels[i], property);
        }
        // The slots free for the next animation (only those this one used).
        for c in &channels {
            slot[c.bone] = None;
        }
        if over_budget > 0 {
            warnings.push(format!(
                "animation {name:?}: {over_budget} channels not read: the file's clips would \
                 hold more than {budget} keys"
            ));
        }
        if not_bones > 0 {
            warnings.push(format!(
                "animation {name:?}: {not_bones} channels move nodes outside the skeleton; not shown"
            ));
        }
        if !channels.is_empty() {
            clips.push(clip_of(name, duration, channels));
        }
    }

    Ok(clips)
}

/// The keys a sampler makes, known before reading them.
fn most_keys(s: &gltf::animation::Sampler) -> usize {
    match s.interpolation() {
        Interpolation::CubicSpline => s.input().count().saturating_mul(CUBIC_STEPS),
        _ => s.input().count(),
    }
}

/// A sampler's keys as a clip's tracks hold them.
struct SamplerKeys {
    interp: Interp,
    times: Vec<f32>,
    /// `comps` floats a key.
    values: Vec<f32>,
    comps: usize,
    /// The last input time (0 for none): where the sampler ends.
    end: f32,
}

impl SamplerKeys {
    /// Reads `s` for a channel that drives `property`, in the animation
    /// called `name` (for errors): times in order and finite, a value a
    /// time, a cubic spline's curve as linear keys.
    fn read(
        s: &gltf::animation::Sampler,
        property: Property,
        buffers: &Buffers,
        name: &str,
    ) -> Result<SamplerKeys, String> {
        let times = floats(&s.input(), buffers, 1)?;
        if times.windows(2).any(|w| w[1] < w[0]) || times.iter().any(|t| !t.is_finite()) {
            return Err(format!("animation {name:?}: key times out of order"));
        }
        let end = times.last().copied().unwrap_or(0.0);
        let comps = if property == Property::Rotation { 4 } else { 3 };
        let values = floats(&s.output(), buffers, comps)?;
        let too_few = || format!("animation {name:?}: fewer values than key times");
        let (interp, times, values) = match s.interpolation() {
            Interpolation::Step => (Interp::Step, times, values),
            Interpolation::Linear => (Interp::Linear, times, values),
            Interpolation::CubicSpline => {
                let (t, v) = cubic_to_linear(&times, &values, comps).ok_or_else(too_few)?;
                (Interp::Linear, t, v)
            }
        };
        if values.len() < times.len() * comps {
            return Err(too_few());
        }
        Ok(SamplerKeys {
            interp,
            times,
            values,
            comps,
            end,
        })
    }

    /// Appends the keys to `c`'s track for `property` (rotations made unit).
    fn add_to(&self, c: &mut Channel, property: Property) {
        let interp = self.interp;
        let keys = self.times.iter().zip(self.values.chunks_exact(self.comps));
        match property {
            Property::Translation => c.translation.keys.extend(keys.map(|(&time, v)| Key {
                time,
                value: Vec3::from_slice(v),
                interp,
            })),
            Property::Scale => c.scale.keys.extend(keys.map(|(&time, v)| Key {
                time,
                value: Vec3::from_slice(v),
                interp,
            })),
            Property::Rotation => {
                if let RotationTrack::Quat(t) = &mut c.rotation {
                    t.keys.extend(keys.map(|(&time, v)| Key {
                        time,
                        value: Quat::from_slice(v).normalize(),
                        interp,
                    }));
                }
            }
            Property::MorphTargetWeights => {}
        }
    }
}

/// A clip of `channels`, `duration` seconds long, in one segment, with 30
/// timeline frames a second (at most a million).
fn clip_of(name: String, duration: f32, channels: Vec<Channel>) -> Clip {
    let frames = (duration * 30.0).round().clamp(1.0, 1e6) as u32;
    Clip {
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
    }
}

/// The most a cubic segment is cut into, and the longest step (seconds).
const CUBIC_STEPS: usize = 16;
const CUBIC_STEP_S: f32 = 1.0 / 120.0;

/// A CUBICSPLINE sampler's curve as linear keys (glTF 2.0 Appendix C):
/// each key holds an in-tangent `a`, a value `v` and an out-tangent `b`, of
/// `comps` floats each, and between keys k and k+1, `td` seconds apart, at
/// `s` from 0 to 1 the curve is
///
/// ```text
/// (2s^3 - 3s^2 + 1) v_k + (s^3 - 2s^2 + s) td b_k
///     + (-2s^3 + 3s^2) v_k+1 + (s^3 - s^2) td a_k+1
/// ```
///
/// Each segment is cut into steps of at most
/// [`CUBIC_STEP_S`] (at most [`CUBIC_STEPS`]), every step's end on the
/// curve, so the keys' values are exact and the curve between them within
/// a step's chord. (A rotation's values are made unit where they are read,
/// as the specification asks of the curve's.) None where the values are
/// fewer than three a key.
fn cubic_to_linear(times: &[f32], values: &[f32], comps: usize) -> Option<(Vec<f32>, Vec<f32>)> {
    let n = times.len();
    if values.len() < 3 * comps * n {
        return None;
    }
    let part = |k: usize, which: usize| &values[(3 * k + which) * comps..][..comps];
    let (mut t_out, mut v_out) = (Vec::new(), Vec::new());
    for k in 0..n {
        t_out.push(times[k]);
        v_out.extend_from_slice(part(k, 1));
        let Some(&t1) = times.get(k + 1) else { break };
        let td = t1 - times[k];
        // (Times a float's range apart give no finite steps: one step.)
        let steps = if td.is_finite() {
            ((td / CUBIC_STEP_S).ceil() as usize).clamp(1, CUBIC_STEPS)
        } else {
            1
        };
        for j in 1..steps {
            let s = j as f32 / steps as f32;
            let (s2, s3) = (s * s, s * s * s);
            let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
            let h10 = (s3 - 2.0 * s2 + s) * td;
            let h01 = -2.0 * s3 + 3.0 * s2;
            let h11 = (s3 - s2) * td;
            t_out.push(times[k] + s * td);
            let (v0, b0, v1, a1) = (part(k, 1), part(k, 2), part(k + 1, 1), part(k + 1, 0));
            v_out.extend((0..comps).map(|c| h00 * v0[c] + h10 * b0[c] + h01 * v1[c] + h11 * a1[c]));
        }
    }
    Some((t_out, v_out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three joints, each turned by its own channel of one shared sampler
    /// of 4 keys: 12 keys in all.
    fn read(budget: usize, warnings: &mut Vec<String>) -> Vec<Clip> {
        let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let mut bin = f(&[0.0, 1.0, 2.0, 3.0]);
        bin.extend(f(&[0.0, 0.0, 0.0, 1.0].repeat(4)));
        let channel =
            |n: usize| serde_json::json!({"sampler": 0, "target": {"node": n, "path": "rotation"}});
        let json = serde_json::json!({
            "asset": {"version": "2.0"},
            "nodes": [{"children": [1]}, {"children": [2]}, {}],
            "skins": [{"joints": [0, 1, 2]}],
            "animations": [{"samplers": [{"input": 0, "output": 1}], "channels": [channel(0), channel(1), channel(2)]}],
            "buffers": [{"byteLength": bin.len()}],
            "bufferViews": [{"buffer": 0, "byteLength": 16}, {"buffer": 0, "byteOffset": 16, "byteLength": 64}],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 4, "type": "SCALAR"},
                {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC4"}
            ]
        });
        let (doc, buffers) = super::super::test_document(&json, &bin);
        let tree = super::super::skeleton::tree(&doc).unwrap();
        let rig = super::super::skeleton::rig(&doc, &tree, &buffers, warnings).unwrap();
        clips_within(&doc, &rig, &buffers, warnings, budget).unwrap()
    }

    /// Channels stop where the key budget does: those that fit are read,
    /// the rest (whose samplers are not read) named in a warning.
    #[test]
    fn channels_stop_at_the_key_budget() {
        let mut warnings = Vec::new();
        let clips = read(10, &mut warnings);
        assert_eq!(clips[0].channels.len(), 2);
        assert_eq!(
            warnings,
            [
                "animation \"animation 0\": 1 channels not read: the file's clips would hold more than 10 keys"
            ]
        );
        let mut warnings = Vec::new();
        let clips = read(12, &mut warnings);
        assert_eq!(clips[0].channels.len(), 3);
        assert!(warnings.is_empty(), "{warnings:?}");
    }
}
