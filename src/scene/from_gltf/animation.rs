//! Animations: clips of local translation, rotation (slerp) and scale
//! tracks for the bones; STEP keys hold, CUBICSPLINE keys keep their values
//! and blend linearly (noted). Every animated node is a bone
//! (`skeleton::rig`) unless the skeleton would grow too large: channels on
//! nodes left out are noted.

use super::accessors::{Buffers, floats};
use super::skeleton::Rig;
use crate::scene::clip::{Channel, ChannelSpace, Clip, Interp, Key, RotationTrack, Segment, Track};
use glam::{Quat, Vec3};

pub(super) fn clips(
    doc: &gltf::Document,
    rig: &Rig,
    buffers: &Buffers,
    warnings: &mut Vec<String>,
) -> Result<Vec<Clip>, String> {
    let bone_of_node = &rig.bone_of_node;
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
            let times = floats(&s.input(), buffers, 1)?;
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
            let values = floats(&s.output(), buffers, comps)?;
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
                "animation {name:?}: {not_bones} channels move nodes outside the skeleton; not shown"
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

    Ok(clips)
}
