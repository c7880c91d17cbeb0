//! Animations: every clip's bone channels (the source's own keys where
//! glTF interpolates them as the viewer does, else sampled at the clip's
//! frames) and material colour animations (baked into extras, and as
//! `KHR_animation_pointer` channels when asked).

use super::Writer;
use super::blob::{Blob, FLOAT};
use super::materials::linear;
use crate::anim::Pose;
use crate::scene::Clip;
use crate::scene::clip::{Channel, ChannelSpace, Interp, Key, RotationTrack};
use glam::{Mat4, Quat, Vec3};
use serde_json::{Value, json};

/// Samples per clip at most (a clip of more frames is sampled evenly).
const MAX_SAMPLES: usize = 100_000;

/// Samples a second between the keys of an M3D frame sequence: m3d.h
/// blends rotations with its own approximation of slerp, which glTF's
/// slerp between keys alone would miss by up to about 1e-3 of a model.
const SEQUENCE_RATE: f32 = 120.0;

/// A sample: the time written to the file, and the time the pose is
/// evaluated at.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Sample {
    at: f32,
    eval: f32,
}

/// How long before each key of an M3D frame sequence a sample holds the
/// pose reached just before it (m3d.h may jump at a key: after the last
/// one it holds a pose the blend towards it never reached).
const BEFORE_KEY: f32 = 5e-5;

/// The times a clip is sampled at: its frames, else 30 a second; for an
/// M3D frame sequence its keys (each also just before), and
/// `SEQUENCE_RATE` a second between them.
fn sample_times(clip: &Clip) -> Vec<Sample> {
    let d = clip.duration_s.max(0.0);
    let uniform = |rate: f32| {
        let n = ((d * rate).ceil() as usize).clamp(1, MAX_SAMPLES);
        (0..=n).map(move |k| d * k as f32 / n as f32)
    };
    let Some(seq) = &clip.sequence else {
        let mut times: Vec<f32> = if clip.frames > 0 {
            let n = (clip.frames as usize).min(MAX_SAMPLES);
            (0..=n)
                .map(|k| clip.time_of_frame((k as u64 * clip.frames as u64 / n as u64) as u32))
                .collect()
        } else {
            uniform(30.0).collect()
        };
        // glTF wants strictly increasing times; times a tenth of a
        // millisecond apart are one (f32 sums of frame lengths drift).
        times.dedup_by(|b, a| *b <= *a + 1e-4);
        if let Some(last) = times.last_mut()
            && (*last - d).abs() <= 1e-4
        {
            *last = d;
        }
        return times
            .into_iter()
            .map(|t| Sample { at: t, eval: t })
            .collect();
    };
    // A frame sequence is evaluated two microseconds after each time: at a
    // key's exact millisecond m3d.h builds the matrix from the quaternion
    // as stored (not unit length: it shears), just after it from its
    // unit-length blend. It loops: its end is where it starts again, so the
    // last sample is the pose just before.
    let after = |t: f32| (t + 2e-6).min(d - 1e-5).max(0.0);
    let keys: Vec<f32> = seq
        .frames
        .iter()
        .map(|f| f.msec as f32 / 1000.0)
        .filter(|&k| k > 0.0 && k < d)
        .take(MAX_SAMPLES / 2)
        .collect();
    let near_key = |t: f32| keys.iter().any(|&k| (t - k).abs() < 4.0 * BEFORE_KEY);
    let mut samples: Vec<Sample> = uniform(SEQUENCE_RATE)
        .filter(|&t| !near_key(t))
        .map(|t| Sample {
            at: t,
            eval: after(t),
        })
        .collect();
    for &k in &keys {
        samples.push(Sample {
            at: k - BEFORE_KEY,
            eval: k - BEFORE_KEY,
        });
        samples.push(Sample {
            at: k,
            eval: after(k),
        });
    }
    samples.sort_by(|a, b| a.at.total_cmp(&b.at));
    samples.dedup_by(|b, a| b.at <= a.at);
    samples
}

/// A node property an animation channel drives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Path {
    Translation,
    Rotation,
    Scale,
}

impl Path {
    fn name(self) -> &'static str {
        match self {
            Path::Translation => "translation",
            Path::Rotation => "rotation",
            Path::Scale => "scale",
        }
    }
}

/// A channel's keys as glTF writes them.
struct OwnKeys {
    times: Vec<f32>,
    /// 3 or 4 floats a key.
    values: Vec<f32>,
    interpolation: &'static str,
}

/// One track of `ch` as its own keys, when glTF's sampler reproduces the
/// viewer between them: keys in increasing time, all reached the same way
/// (linear or step), rotations as quaternions (Euler angles are blended
/// per angle, which no quaternion sampler does), and the node's value a
/// fixed map of the key: the key itself for local channels; for channels
/// inside the rest frame (`rest_local * T * R * S`) the rest transform
/// applied, which keeps linear blends linear when the rest has no
/// non-uniform scale. Else `None`: the track is sampled.
fn own_keys(space: ChannelSpace, ch: &Channel, rest_local: Mat4, path: Path) -> Option<OwnKeys> {
    fn interpolation<T>(keys: &[Key<T>]) -> Option<&'static str> {
        if keys.is_empty()
            || keys
                .windows(2)
                .any(|w| w[1].time.partial_cmp(&w[0].time) != Some(std::cmp::Ordering::Greater))
        {
            return None;
        }
        let first = keys.get(1).map_or(Interp::Linear, |k| k.interp);
        if keys.iter().skip(1).any(|k| k.interp != first) {
            return None;
        }
        Some(match first {
            Interp::Linear => "LINEAR",
            Interp::Step => "STEP",
        })
    }
    let (rs, rr, _) = rest_local.to_scale_rotation_translation();
    let uniform = (rs.x - rs.y).abs() < 1e-5 && (rs.y - rs.z).abs() < 1e-5;
    let rest_relative = space == ChannelSpace::RestRelative;
    if rest_relative && !uniform && path != Path::Translation {
        return None;
    }
    let vec3 = |keys: &[Key<Vec3>], map: &dyn Fn(Vec3) -> Vec3| -> Option<OwnKeys> {
        Some(OwnKeys {
            interpolation: interpolation(keys)?,
            times: keys.iter().map(|k| k.time).collect(),
            values: keys.iter().flat_map(|k| map(k.value).to_array()).collect(),
        })
    };
    match path {
        Path::Translation if rest_relative => {
            vec3(&ch.translation.keys, &|t| rest_local.transform_point3(t))
        }
        Path::Translation => vec3(&ch.translation.keys, &|t| t),
        Path::Scale if rest_relative => vec3(&ch.scale.keys, &|s| rs * s),
        Path::Scale => vec3(&ch.scale.keys, &|s| s),
        Path::Rotation => {
            let RotationTrack::Quat(track) = &ch.rotation else {
                return None;
            };
            let keys = &track.keys;
            let interpolation = interpolation(keys)?;
            let mut values = Vec::with_capacity(keys.len() * 4);
            let mut prev: Option<Quat> = None;
            for k in keys {
                let mut q = if rest_relative { rr * k.value } else { k.value }.normalize();
                // Successive keys in one hemisphere: the same rotations,
                // and the short way round in every reading of slerp.
                if prev.is_some_and(|p| p.dot(q) < 0.0) {
                    q = -q;
                }
                prev = Some(q);
                values.extend(q.to_array());
            }
            Some(OwnKeys {
                times: keys.iter().map(|k| k.time).collect(),
                values,
                interpolation,
            })
        }
    }
}

/// How far `m` is from the transform its decomposition rebuilds (0 for a
/// translation-rotation-scale; more where it shears).
fn trs_error(m: Mat4, s: Vec3, r: Quat, t: Vec3) -> f32 {
    let back = Mat4::from_scale_rotation_translation(s, r.normalize(), t);
    m.to_cols_array()
        .iter()
        .zip(back.to_cols_array())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max)
}

/// One bone's local transform at a clip's sample times.
#[derive(Clone)]
struct Sampled {
    translations: Vec<Vec3>,
    rotations: Vec<Quat>,
    scales: Vec<Vec3>,
}

/// An animation's samplers, and the channel that plays each.
#[derive(Default)]
struct Channels {
    samplers: Vec<Value>,
    channels: Vec<Value>,
}

impl Channels {
    /// A sampler from the `input` accessor's times to the `output`
    /// accessor's values, played on `target`.
    fn push(&mut self, input: usize, output: usize, interpolation: &str, target: Value) {
        self.samplers
            .push(json!({"input": input, "output": output, "interpolation": interpolation}));
        self.channels
            .push(json!({"sampler": self.samplers.len() - 1, "target": target}));
    }

    fn is_empty(&self) -> bool {
        self.channels.is_empty()
    }

    /// The glTF animation of these channels.
    fn animation(self, name: &str) -> Value {
        json!({"name": name, "samplers": self.samplers, "channels": self.channels})
    }
}

impl Writer<'_> {
    /// One animation per clip that moves a bone.
    pub(super) fn clip_animations(&mut self) {
        let scene = self.scene;
        let skeleton = &scene.skeleton;
        let bones = skeleton.bones.len();
        self.shear = (0..bones)
            .map(|i| {
                let m = skeleton.rest_local(i);
                let (s, r, t) = m.to_scale_rotation_translation();
                trs_error(m, s, r, t)
            })
            .fold(0.0f32, f32::max);
        if bones == 0 {
            if !scene.clips.is_empty() {
                self.dropped.push(format!(
                    "{} clips: the file has no skeleton",
                    scene.clips.len()
                ));
            }
            return;
        }
        let mut pose = Pose::new(skeleton);
        for clip in &scene.clips {
            let times = sample_times(clip);
            let sampled = self.sampled_bones(&mut pose, clip, &times);
            let at: Vec<f32> = times.iter().map(|s| s.at).collect();
            let input = self.blob.floats(&at, true);
            let mut channels = Channels::default();
            for (bone, samples) in sampled.iter().enumerate() {
                self.bone_channels(clip, bone, samples, input, &mut channels);
            }
            if channels.is_empty() {
                self.dropped
                    .push(format!("clip {:?}: moves no bone", clip.name));
                continue;
            }
            let part_lists = self.part_lists(clip);
            let mut animation = channels.animation(&clip.name);
            if !part_lists.is_empty() {
                animation["extras"] = json!({"part_lists": part_lists});
            }
            self.animations.push(animation);
        }
    }

    /// Every bone's local transform at each of `times`, as translation,
    /// rotation (each in the hemisphere of the one before) and scale; the
    /// most any of them shears raises `self.shear`.
    fn sampled_bones(&mut self, pose: &mut Pose, clip: &Clip, times: &[Sample]) -> Vec<Sampled> {
        let skeleton = &self.scene.skeleton;
        let n = times.len();
        let mut sampled = vec![
            Sampled {
                translations: Vec::with_capacity(n),
                rotations: Vec::with_capacity(n),
                scales: Vec::with_capacity(n),
            };
            skeleton.bones.len()
        ];
        for s in times {
            pose.evaluate(skeleton, Some(clip), s.eval);
            for (local, out) in pose.local.iter().zip(&mut sampled) {
                let (s, r, p) = local.to_scale_rotation_translation();
                self.shear = self.shear.max(trs_error(*local, s, r, p));
                let mut r = r.normalize();
                if let Some(prev) = out.rotations.last()
                    && Quat::dot(*prev, r) < 0.0
                {
                    r = -r;
                }
                out.translations.push(p);
                out.rotations.push(r);
                out.scales.push(s);
            }
        }
        sampled
    }

    /// One bone's channels in a clip: for each of translation, rotation and
    /// scale, the source's own keys where glTF's interpolation gives what
    /// the viewer does between them, else the samples (timed by the
    /// `input` accessor) where they move from the rest pose.
    fn bone_channels(
        &mut self,
        clip: &Clip,
        bone: usize,
        sampled: &Sampled,
        input: usize,
        out: &mut Channels,
    ) {
        let rest_local = self.scene.skeleton.rest_local(bone);
        let (rest_s, rest_r, rest_t) = rest_local.to_scale_rotation_translation();
        let source = clip.channels.iter().find(|c| c.bone == bone);
        let keyed = [Path::Translation, Path::Rotation, Path::Scale].map(|path| {
            let own = source.and_then(|c| own_keys(clip.space, c, rest_local, path));
            own.map(|keys| self.own_channel(&keys, bone, path, out))
                .is_some()
        });
        let still_v = |v: &[Vec3], rest: Vec3| v.iter().all(|x| x.abs_diff_eq(rest, 1e-6));
        let still_q =
            |v: &[Quat], rest: Quat| v.iter().all(|x| x.dot(rest.normalize()).abs() > 1.0 - 1e-7);
        let n = sampled.translations.len();
        let mut add = |path: Path, bytes: &[u8], ty: &str, blob: &mut Blob| {
            let output = blob.accessor(bytes, None, FLOAT, n, ty, false, None);
            out.push(
                input,
                output,
                "LINEAR",
                json!({"node": bone, "path": path.name()}),
            );
        };
        if !keyed[0] && !still_v(&sampled.translations, rest_t) {
            let bytes = bytemuck::cast_slice(&sampled.translations);
            add(Path::Translation, bytes, "VEC3", &mut self.blob);
        }
        if !keyed[1] && !still_q(&sampled.rotations, rest_r) {
            let rs = self
                .blob
                .rotations(bytemuck::cast_slice(&sampled.rotations));
            add(
                Path::Rotation,
                bytemuck::cast_slice(&rs),
                "VEC4",
                &mut self.blob,
            );
        }
        if !keyed[2] && !still_v(&sampled.scales, rest_s) {
            let bytes = bytemuck::cast_slice(&sampled.scales);
            add(Path::Scale, bytes, "VEC3", &mut self.blob);
        }
    }

    /// A channel that plays a source track's own keys on `bone`'s `path`.
    fn own_channel(&mut self, keys: &OwnKeys, bone: usize, path: Path, out: &mut Channels) {
        let input = self.blob.floats(&keys.times, true);
        let (ty, comps) = if path == Path::Rotation {
            ("VEC4", 4)
        } else {
            ("VEC3", 3)
        };
        let values = match path {
            Path::Rotation => self.blob.rotations(&keys.values),
            _ => std::borrow::Cow::Borrowed(&keys.values[..]),
        };
        let output = self.blob.accessor(
            bytemuck::cast_slice(&values),
            None,
            FLOAT,
            keys.values.len() / comps,
            ty,
            false,
            None,
        );
        out.push(
            input,
            output,
            keys.interpolation,
            json!({"node": bone, "path": path.name()}),
        );
    }

    /// The clip's segments that show only some parts, with the nodes of
    /// those parts, for the animation's extras.
    fn part_lists(&self, clip: &Clip) -> Vec<Value> {
        clip.segments
            .iter()
            .filter_map(|s| {
                let l = s.part_list.as_ref()?;
                let nodes: Vec<usize> = l
                    .parts
                    .iter()
                    .filter_map(|&p| self.node_of_mesh.get(p).copied().flatten())
                    .collect();
                Some(json!({
                    "segment": s.name,
                    "start_s": s.start_s,
                    "duration_s": s.duration_s,
                    "mode": format!("{:?}", l.mode),
                    "nodes": nodes,
                }))
            })
            .collect()
    }

    /// Material colour and emission animations, sampled at their frames
    /// (one cycle): baked into the material's extras always, and through
    /// KHR_animation_pointer when asked.
    pub(super) fn material_animations(&mut self) {
        let scene = self.scene;
        for &mi in &self.material_anims.clone() {
            let m = &scene.materials[mi];
            let Some(a) = &m.animation else { continue };
            let frames = a.last_frame.min(MAX_SAMPLES as u32);
            if a.seconds_per_frame <= 0.0 || frames == 0 {
                continue;
            }
            let end = frames as f32 * a.seconds_per_frame;
            let times: Vec<f32> = (0..=frames)
                .map(|f| f as f32 * a.seconds_per_frame)
                .collect();
            let states: Vec<_> = times
                .iter()
                .map(|&t| crate::anim::material::evaluate(m, t.min(end - 1e-4).max(0.0)))
                .collect();
            // glTF's factors: linear colour, alpha as it is.
            let colors: Option<Vec<[f32; 4]>> = (!a.color.keys.is_empty()).then(|| {
                states
                    .iter()
                    .map(|s| {
                        let [r, g, b, alpha] = s.color;
                        [linear(r), linear(g), linear(b), alpha.clamp(0.0, 1.0)]
                    })
                    .collect()
            });
            let emissions: Option<Vec<[f32; 3]>> = (!a.emission.keys.is_empty())
                .then(|| states.iter().map(|s| s.emission.map(linear)).collect());

            // Baked into the material's extras always.
            let baked = &mut self.materials[mi]["extras"]["facet_material_animation"];
            baked["times_s"] = json!(times);
            if let Some(c) = &colors {
                baked["base_color_linear"] = json!(c);
            }
            if let Some(e) = &emissions {
                baked["emission_linear"] = json!(e);
            }
            if !self.options.animation_pointer {
                self.dropped.push(format!(
                    "{}: colour animation as channels (baked into extras.facet_material_animation; \
                     convert --animation-pointer writes KHR_animation_pointer channels)",
                    super::materials::material_label(mi, &m.name)
                ));
                continue;
            }
            let input = self.blob.floats(&times, true);
            let mut channels = Channels::default();
            let mut pointer = |path: String, values: &[f32], ty: &str, blob: &mut Blob| {
                let bytes = bytemuck::cast_slice(values);
                let output = blob.accessor(bytes, None, FLOAT, times.len(), ty, false, None);
                let target = json!({
                    "path": "pointer",
                    "extensions": {"KHR_animation_pointer": {"pointer": path}},
                });
                channels.push(input, output, "LINEAR", target);
            };
            if let Some(c) = &colors {
                let path = format!("/materials/{mi}/pbrMetallicRoughness/baseColorFactor");
                pointer(path, c.as_flattened(), "VEC4", &mut self.blob);
            }
            if let Some(e) = &emissions {
                let path = format!("/materials/{mi}/emissiveFactor");
                pointer(path, e.as_flattened(), "VEC3", &mut self.blob);
                if self.materials[mi].get("emissiveFactor").is_none() {
                    self.materials[mi]["emissiveFactor"] = json!([0.0, 0.0, 0.0]);
                }
            }
            if !channels.is_empty() {
                let name = format!("material {}", m.name);
                self.animations.push(channels.animation(&name));
                self.extensions_used.push("KHR_animation_pointer");
            }
        }
    }
}
