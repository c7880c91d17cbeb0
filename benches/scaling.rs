//! `cargo bench --bench scaling`: generated P3M, M3D and Papa files of
//! about 10K, 100K, 1M and 10M triangles (`generators::scaling`), each
//! loaded from bytes in memory (decode + scene) and uploaded to the GPU
//! (`GpuScene::new` on the software adapter by name, llvmpipe, waited
//! for). Peak heap during the load is counted by this binary's allocator.
//! Reports the least-squares slope of load and upload time against
//! triangles with its R², and peak memory against the file's size.
//! Records in `target/bench/scaling.json` (`scaling/<format>/<triangles>/
//! {file, load, upload, peak}`). `SCALING_MAX=1000000` stops earlier.

#[allow(dead_code)] // the fixture list is for the format benches
mod common;
use common::{Records, median};
use facet::alloc::Mimalloc as MiMalloc;
use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// The viewer's allocator (`src/main.rs`), counted.
struct Counting;
static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { MiMalloc.alloc(l) };
        if !p.is_null() {
            let now = NOW.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { MiMalloc.dealloc(p, l) };
        NOW.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { MiMalloc.realloc(p, l, new) };
        if !q.is_null() {
            if new > l.size() {
                let now = NOW.fetch_add(new - l.size(), Relaxed) + new - l.size();
                PEAK.fetch_max(now, Relaxed);
            } else {
                NOW.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Least squares y = a + b x: (b, R²).
fn fit(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mx, my) = (sx / n, sy / n);
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    let b = sxy / sxx;
    (
        b,
        if syy > 0.0 {
            sxy * sxy / (sxx * syy)
        } else {
            1.0
        },
    )
}

fn main() {
    let max: usize = std::env::var("SCALING_MAX")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let sizes: Vec<usize> = [10_000, 100_000, 1_000_000, 10_000_000]
        .into_iter()
        .filter(|&n| n <= max)
        .collect();
    let gpu = facet::gpu::Gpu::headless_named("llvmpipe").expect("the software adapter");
    let format = facet::gpu::capture::CAPTURE_FORMAT;
    let renderer = facet::gpu::Renderer::new(&gpu, format, gpu.sample_count(format));
    let mut records = Records::new("scaling");
    type Gen = fn(usize) -> Vec<u8>;
    let formats: [(&str, &str, Gen); 3] = [
        ("p3m", "grid.p3m", facet::generators::scaling::p3m_bytes),
        ("m3d", "grid.m3d", facet::generators::scaling::m3d_bytes),
        ("papa", "grid.papa", facet::generators::scaling::papa_bytes),
    ];
    println!(
        "{:<5} {:>10} {:>12} {:>11} {:>11} {:>12} {:>11}",
        "", "triangles", "file bytes", "load", "upload", "peak heap", "peak/file"
    );
    for (fmt, name, generate) in formats {
        let mut load_pts = Vec::new();
        let mut upload_pts = Vec::new();
        for &n in &sizes {
            let bytes = generate(n);
            let runs = if n >= 1_000_000 { 3 } else { 7 };
            let mut loads = Vec::new();
            let mut peak = 0;
            let mut scene = None;
            for _ in 0..runs {
                drop(scene.take());
                let before = NOW.load(Relaxed);
                PEAK.store(before, Relaxed);
                let t = Instant::now();
                let loaded = facet::load::load_bytes(name, &bytes, None).unwrap();
                loads.push(t.elapsed());
                peak = peak.max(PEAK.load(Relaxed) - before);
                scene = Some(loaded.scene);
            }
            loads.sort();
            let load = loads[loads.len() / 2];
            let scene = scene.unwrap();
            let triangles = scene.triangle_count();
            let upload = median(|| {
                let g = facet::gpu::GpuScene::new(&gpu, &renderer, &scene);
                let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
                std::hint::black_box(g);
            });
            let key = format!("scaling/{fmt}/{n}");
            records.push(&format!("{key}/triangles"), triangles as f64, "triangles");
            records.push(&format!("{key}/file"), bytes.len() as f64, "bytes");
            records.us(&format!("{key}/load"), load);
            records.us(&format!("{key}/upload"), upload);
            records.push(&format!("{key}/peak"), peak as f64, "bytes");
            load_pts.push((triangles as f64, load.as_secs_f64() * 1e6));
            upload_pts.push((triangles as f64, upload.as_secs_f64() * 1e6));
            println!(
                "{fmt:<5} {triangles:>10} {:>12} {:>9.1}ms {:>9.1}ms {:>10.1}MB {:>11.2}",
                bytes.len(),
                load.as_secs_f64() * 1e3,
                upload.as_secs_f64() * 1e3,
                peak as f64 / 1e6,
                peak as f64 / bytes.len() as f64
            );
        }
        if load_pts.len() >= 2 {
            let (lb, lr) = fit(&load_pts);
            let (ub, ur) = fit(&upload_pts);
            records.push(
                &format!("scaling/{fmt}/load_slope"),
                lb * 1e6,
                "us per 1M triangles",
            );
            records.push(&format!("scaling/{fmt}/load_r2"), lr, "r2");
            records.push(
                &format!("scaling/{fmt}/upload_slope"),
                ub * 1e6,
                "us per 1M triangles",
            );
            records.push(&format!("scaling/{fmt}/upload_r2"), ur, "r2");
            println!(
                "{fmt}: load {:.1} ms per 1M triangles (R² {lr:.4}), upload {:.1} ms per 1M triangles (R² {ur:.4})",
                lb * 1e3,
                ub * 1e3
            );
        }
    }
    records.write();
}
