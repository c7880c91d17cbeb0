//! Draws one file as `facet thumbnail` does, again and again in one
//! process, for a profiler or an A/B of the draw: `cargo run --release
//! --example profile_render -- FILE [DRAWS] [SIDE]` (default 40 draws at
//! 512 pixels, the side a 256-pixel thumbnail is drawn at). Each draw is
//! `headless::render_with` (upload, skinning, draw, readback) on the
//! thumbnail's renderer and view; the first is not counted (pipelines
//! compile at their first draw on software adapters). The file loads with
//! the viewer's options, not the thumbnail's texel cap, so a large texture
//! is drawn at its own size. Prints the adapter, then the median and
//! fastest draw.

use facet::cli::headless;
use facet::gpu::Gpu;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = std::path::PathBuf::from(args.next().expect("FILE"));
    let draws: usize = args.next().map_or(40, |s| s.parse().expect("DRAWS"));
    let side: u32 = args.next().map_or(512, |s| s.parse().expect("SIDE"));
    let loaded = facet::load::load_file_with(&path, &Default::default()).expect("the file loads");
    let gpu = Gpu::headless().expect("an adapter");
    eprintln!("{}", gpu.adapter.get_info().name);
    let renderer = headless::thumbnail_renderer(&gpu);
    let req = headless::thumbnail_request(side, Default::default());
    let mut times = Vec::with_capacity(draws);
    for i in 0..=draws {
        let t = std::time::Instant::now();
        headless::render_with(&gpu, &renderer, &loaded.scene, &req).expect("the draw");
        if i > 0 {
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.sort_by(f64::total_cmp);
    eprintln!(
        "{} draws at {side}x{side}: median {:.2} ms, fastest {:.2} ms",
        times.len(),
        times[times.len() / 2],
        times[0]
    );
}
