//! `render`: one file drawn headless to an image, as the window shows it,
//! or a clip drawn frame by frame into numbered images (`--sequence`).

use super::headless::{self, RenderRequest};
use crate::gpu::{Gpu, capture};
use crate::load;
use crate::scene::Scene;
use std::path::{Path, PathBuf};

/// `--sequence FPS [--duration SECONDS]`: the clip drawn at `fps` frames a
/// second from its start to its end (or for `duration` seconds: a file
/// whose materials animate without a clip), each frame its own image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sequence {
    pub fps: f32,
    pub duration: Option<f32>,
}

/// The most frames one sequence writes: a minute at 120 frames a second
/// and more, where a clip's length in a hostile file could ask for
/// billions.
pub const MAX_FRAMES: u64 = 10_000;

impl Sequence {
    /// The times drawn over `duration` seconds: 0, 1/fps, 2/fps, ... up to
    /// and including the end where a frame lands on it (a thousandth of a
    /// frame's slack for the rounding of `duration * fps`).
    pub fn times(&self, duration: f32) -> Result<Vec<f32>, String> {
        if !(self.fps.is_finite() && self.fps > 0.0) {
            return Err(format!("{} is not a frame rate above 0", self.fps));
        }
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(format!("{duration} s is not a length to draw"));
        }
        let frames = (duration as f64 * self.fps as f64 + 1e-3).floor() + 1.0;
        if frames > MAX_FRAMES as f64 {
            return Err(format!(
                "{duration} s at {} frames a second is {frames} frames, more than the {MAX_FRAMES} a sequence may write (--duration draws less)",
                self.fps
            ));
        }
        Ok((0..frames as u64)
            .map(|k| (k as f64 / self.fps as f64) as f32)
            .collect())
    }
}

/// Frame `k` of a sequence written as `output`: `walk.png` -> `walk-0007.png`
/// beside it, the number at least four digits, as many as the last
/// frame's `last` needs.
pub fn frame_path(output: &Path, k: usize, last: usize) -> PathBuf {
    let digits = last.to_string().len().max(4);
    let stem = output
        .file_stem()
        .map_or_else(|| "frame".into(), |s| s.to_string_lossy());
    let name = match output.extension() {
        Some(ext) => format!("{stem}-{k:0digits$}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{k:0digits$}"),
    };
    output.with_file_name(name)
}

/// Writes `output`, `input` drawn as `req` asks, with the animations of
/// `anim` added. Where `req` names no clip it poses with the first of
/// `anim`'s, else with the clip an animation file opened on its own
/// starts with; a file of bones without a mesh shows its skeleton. With
/// `sequence`, the clip's frames into numbered images instead.
pub fn render(
    input: &Path,
    output: &Path,
    mut req: RenderRequest,
    anim: Option<&Path>,
    sequence: Option<Sequence>,
    options: &load::LoadOptions,
) -> anyhow::Result<()> {
    let mut loaded = load::load_file_with(input, options)?;
    if let Some(anim) = anim {
        let added = load::add_animation_file(&mut loaded.scene, anim)?;
        req.clip = req.clip.or_else(|| added.first().cloned());
    }
    let scene = &loaded.scene;
    // An animation file opened on its own poses with its own clip.
    req.clip = req.clip.or_else(|| {
        scene
            .start_clip
            .and_then(|i| scene.clips.get(i))
            .map(|c| c.name.clone())
    });
    for w in &scene.warnings {
        log::warn!("{}: {w}", scene.source.file_name);
    }
    // What a sequence draws is known before the GPU starts.
    let times = match sequence {
        Some(s) => Some(sequence_times(scene, &mut req, s)?),
        None => None,
    };
    let gpu = Gpu::headless()?;
    log::info!("rendering on {}", gpu.describe());
    req.view.skeleton |= scene.meshes.is_empty() && !scene.skeleton.bones.is_empty();
    let Some(times) = times else {
        let (img, stats) = headless::render(&gpu, scene, &req)?;
        save(&img, output)?;
        log::info!(
            "{}: {} draw calls, {} triangles -> {}",
            scene.source.file_name,
            stats.draw_calls,
            stats.triangles,
            output.display()
        );
        return Ok(());
    };
    let renderer = headless::renderer(&gpu);
    let mut prepared = headless::Prepared::new(&gpu, &renderer, scene, &req)?;
    let last = times.len() - 1;
    for (k, &t) in times.iter().enumerate() {
        let (img, _) = prepared.frame(t);
        save(&img, &frame_path(output, k, last))?;
    }
    log::info!(
        "{}: {} frames{} from 0 to {} s -> {} ... {}",
        scene.source.file_name,
        times.len(),
        req.clip
            .as_deref()
            .map_or(String::new(), |c| format!(" of {c:?}")),
        times[last],
        frame_path(output, 0, last).display(),
        frame_path(output, last, last).display()
    );
    Ok(())
}

fn save(img: &image::RgbaImage, path: &Path) -> anyhow::Result<()> {
    capture::save(img, path).map_err(|e| anyhow::anyhow!("writing {e}"))
}

/// The times a sequence draws: over `--duration`, else over the clip
/// named (or the first, which `req` then names); an error where there is
/// neither.
fn sequence_times(scene: &Scene, req: &mut RenderRequest, s: Sequence) -> anyhow::Result<Vec<f32>> {
    if req.clip.is_none() {
        req.clip = scene.clips.first().map(|c| c.name.clone());
    }
    let clip = req
        .clip
        .as_deref()
        .map(|n| headless::find_clip(scene, n))
        .transpose()?;
    let duration = match (s.duration, clip) {
        (Some(d), _) => d,
        (None, Some(c)) => scene.clips[c].duration_s,
        (None, None) => anyhow::bail!(
            "{}: --sequence draws a clip, and this file has none (for animated materials alone, give --duration)",
            scene.source.file_name
        ),
    };
    s.times(duration)
        .map_err(|e| anyhow::anyhow!("{}: --sequence: {e}", scene.source.file_name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_draws_every_frame_time_to_the_end_and_names_them_in_order() {
        let s = |fps| Sequence {
            fps,
            duration: None,
        };
        // 1 s at 4 fps: 0, 0.25, 0.5, 0.75 and 1 (the end lands on a frame).
        assert_eq!(s(4.0).times(1.0).unwrap(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        // 0.9 s at 4 fps: the end falls between frames, 0.75 is the last.
        assert_eq!(s(4.0).times(0.9).unwrap().len(), 4);
        // 1 s at 30 fps: 31 frames, though 30 * 1.0 rounds either way in f32.
        assert_eq!(s(30.0).times(1.0).unwrap().len(), 31);
        // A still clip: its one frame.
        assert_eq!(s(30.0).times(0.0).unwrap(), vec![0.0]);
        // Past the cap, or not a rate, or not a length: refused.
        assert!(
            s(30.0)
                .times(1e9)
                .unwrap_err()
                .contains("more than the 10000")
        );
        for fps in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(s(fps).times(1.0).is_err(), "{fps}");
        }
        assert!(s(30.0).times(f32::INFINITY).is_err());
        assert!(s(30.0).times(-1.0).is_err());
        // Names: four digits at least, more for a longer sequence.
        let out = Path::new("out/walk.png");
        assert_eq!(frame_path(out, 7, 30), Path::new("out/walk-0007.png"));
        assert_eq!(frame_path(out, 7, 12_000), Path::new("out/walk-00007.png"));
        assert_eq!(frame_path(Path::new("clip"), 0, 3), Path::new("clip-0000"));
    }
}
