//! `render`: one file drawn headless to an image, as the window shows it.

use super::headless::{self, RenderRequest};
use crate::gpu::{Gpu, capture};
use crate::load;
use std::path::Path;

/// Writes `output`, `input` drawn as `req` asks, with the animations of
/// `anim` added. Where `req` names no clip it poses with the first of
/// `anim`'s, else with the clip an animation file opened on its own
/// starts with; a file of bones without a mesh shows its skeleton.
pub fn render(
    input: &Path,
    output: &Path,
    mut req: RenderRequest,
    anim: Option<&Path>,
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
    let gpu = Gpu::headless()?;
    log::info!("rendering on {}", gpu.describe());
    req.view.skeleton |= scene.meshes.is_empty() && !scene.skeleton.bones.is_empty();
    let (img, stats) = headless::render(&gpu, scene, &req)?;
    capture::save(&img, output).map_err(|e| anyhow::anyhow!("writing {e}"))?;
    log::info!(
        "{}: {} draw calls, {} triangles -> {}",
        scene.source.file_name,
        stats.draw_calls,
        stats.triangles,
        output.display()
    );
    Ok(())
}
