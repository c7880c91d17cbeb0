//! `thumbnail`: one file to a small square PNG, the file managers'
//! previews (`install-desktop` registers it as their thumbnailer).

use super::headless;
use crate::gpu::{Gpu, TeamColors};
use crate::load;
use anyhow::Context;
use std::path::Path;

/// `thumbnail` decodes each texture only at the size the thumbnail needs:
/// a texture seen whole in a `size`-pixel image shows at most `size` texels
/// across, so twice that a side (one mip level of headroom for minified
/// sampling) is all it can use. RGBA8 bytes, at least 64x64 texels' worth.
fn thumbnail_texel_cap(size: u32) -> usize {
    let side = (size as usize).saturating_mul(2).max(64);
    side.saturating_mul(side).saturating_mul(4)
}

/// Writes `output`, a `size`-pixel PNG of `input` drawn with `team_colors`;
/// with `timings`, one line on stdout of where the time went (adapter
/// start-up, pipelines, load, render, PNG, the whole).
pub fn thumbnail(
    input: &Path,
    output: &Path,
    size: u32,
    team_colors: TeamColors,
    timings: bool,
    options: load::LoadOptions,
) -> anyhow::Result<()> {
    short_process();
    // The adapter starts and the pipelines compile on their own
    // thread while the file loads: start-up is most of a
    // thumbnail's time on small files.
    let started = std::time::Instant::now();
    let (variants_tx, variants_rx) = std::sync::mpsc::channel();
    let adapter = start_adapter(size, variants_rx);
    let cap = thumbnail_texel_cap(size);
    let t = std::time::Instant::now();
    let loaded = load::load_file_with(input, &options.with_texture_cap(cap));
    let load_time = t.elapsed();
    if let Ok(loaded) = &loaded {
        let scene = &loaded.scene;
        let animates = scene.materials.iter().any(|m| m.animation.is_some());
        let _ = variants_tx.send((headless::shader_variants(scene), animates));
    }
    drop(variants_tx);
    let (gpu, adapter_time, pipelines_time) = adapter
        .join()
        .map_err(|_| anyhow::anyhow!("the GPU start-up thread panicked"))?;
    let loaded = loaded?;
    for w in &loaded.scene.warnings {
        log::warn!("{}: {w}", loaded.scene.source.file_name);
    }
    let (gpu, renderer) = gpu?;
    // Drawn at twice the size, then filtered down: four samples a
    // pixel, cheaper than multisampling on a software adapter.
    let side = headless::thumbnail_draw_side(&gpu, size);
    let req = headless::thumbnail_request(side, team_colors);
    let t = std::time::Instant::now();
    let (mut img, _) = headless::render_with(&gpu, &renderer, &loaded.scene, &req)?;
    if side != size {
        img = headless::downsample_2x(&img);
    }
    let render_time = t.elapsed();
    let t = std::time::Instant::now();
    img.save_with_format(output, image::ImageFormat::Png)
        .with_context(|| format!("writing {}", output.display()))?;
    let png_time = t.elapsed();
    if timings {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        crate::cli::print(format_args!(
            "adapter_ms={:.2} pipelines_ms={:.2} load_ms={:.2} render_ms={:.2} png_ms={:.2} total_ms={:.2}\n",
            ms(adapter_time),
            ms(pipelines_time),
            ms(load_time),
            ms(render_time),
            ms(png_time),
            ms(started.elapsed())
        ))?;
    }
    Ok(())
}

/// Sets up this process as the short one a thumbnail is: no transparent
/// huge pages, and a worker pool of one thread.
fn short_process() {
    // mimalloc asks for transparent huge pages on its arenas; under
    // the usual `defrag = madvise` a fresh one is zeroed, and often
    // compacted for, at its first touch: lantea.m3d's load stalled
    // for up to 50 ms (3 ms without). A thumbnail is a short,
    // small process that gains nothing from them: off (failing
    // only costs speed). The viewer keeps them: a 10M-triangle
    // file loaded in 0.2 s with them when the kernel had huge
    // pages free, 0.5 s without (docs/performance-history.md).
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    // The file loads on this thread alone: the adapter's start-up
    // keeps another core busy meanwhile, and a conversion split
    // over the worker pool (an M3D's voxel meshes) waited for
    // workers that start-up held. lantea.m3d's load on two cores,
    // fifteen processes each: median 6.2 ms and up to 22 with the
    // pool, 3.4 ms and a tighter spread without; the process took
    // as long either way (docs/performance-history.md, "Thumbnails").
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global();
}

/// The loaded scene's shader variants and whether it animates a material.
type Variants = (Vec<(u32, bool)>, bool);

/// What the start-up thread gives back: the GPU and its renderer (or why
/// there is none), and how long the adapter and the pipelines took.
type Started = (
    Result<(Gpu, crate::gpu::Renderer), crate::gpu::GpuError>,
    std::time::Duration,
    std::time::Duration,
);

/// The GPU and its renderer, started on a thread of their own. `variants`
/// brings the loaded scene's shader variants, for the warm-up draw, and
/// whether it animates a material (its compute pipeline is then made there
/// too).
fn start_adapter(
    size: u32,
    variants: std::sync::mpsc::Receiver<Variants>,
) -> std::thread::JoinHandle<Started> {
    std::thread::spawn(move || {
        let t = std::time::Instant::now();
        let gpu = Gpu::headless();
        let adapter_time = t.elapsed();
        let t = std::time::Instant::now();
        let gpu = gpu.map(|gpu| {
            let renderer = headless::thumbnail_renderer(&gpu);
            // A triangle drawn at the size the thumbnail is drawn
            // at with each shader variant the file uses: software
            // adapters compile shaders at the first draw, which
            // then happens here. Small files have loaded by now
            // (the adapter takes ~25 ms on llvmpipe); a file that
            // failed to load warms up the plain variant.
            let side = headless::thumbnail_draw_side(&gpu, size);
            let (variants, animates) = variants
                .recv()
                .unwrap_or_else(|_| (vec![(0, false)], false));
            headless::warm_up(&gpu, &renderer, side, &variants);
            if animates {
                renderer.material_animator.prepare();
            }
            (gpu, renderer)
        });
        (gpu, adapter_time, t.elapsed())
    })
}
