//! `cargo bench --bench thumbnail`: `facet thumbnail` as the file manager
//! runs it, a whole process per file, on the software adapter (llvmpipe, by
//! name), for the shared fixtures and bundled assets under 2 MB: where the
//! time goes (adapter start-up, pipelines and the first draw's shader
//! compilation, load, render, PNG) from the command's `--timings`, and the
//! process's wall time. Each figure is its own median over 9 runs (one
//! run's parts were one sample each: llvmpipe's draw of the same file
//! moved by a fifth between runs). Records in
//! `target/bench/thumbnail.json` (`thumbnail/<file>/<part>`, ms).

#[allow(dead_code)] // the timing helper is for the in-process benches
mod common;
use common::Records;
use std::path::PathBuf;
use std::time::Instant;

/// Processes run per file.
const RUNS: usize = 9;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = Vec::new();
    for (dir, ext) in [("m3d", "m3d"), ("papa", "papa")] {
        files.extend(common::fixtures(dir, ext));
    }
    files.extend(["demo.p3m", "demo.m3d"].map(|f| root.join("assets").join(f)));
    files.retain(|f| std::fs::metadata(f).is_ok_and(|m| m.len() < 2 << 20));
    let out = std::env::temp_dir().join(format!("facet-thumb-{}.png", std::process::id()));
    let mut records = Records::new("thumbnail");
    println!(
        "{:<34} {:>8} {:>9} {:>7} {:>7} {:>6} {:>8} {:>10}",
        "file", "adapter", "pipelines", "load", "render", "png", "process", "file work"
    );
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let mut runs: Vec<(f64, Vec<(String, f64)>)> = Vec::new();
        for _ in 0..RUNS {
            let t = Instant::now();
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_facet"))
                .arg("thumbnail")
                .arg(&f)
                .arg(&out)
                .arg("--timings")
                .env("FACET_ADAPTER", "llvmpipe")
                .env("RUST_LOG", "error")
                .output()
                .unwrap();
            let wall = t.elapsed().as_secs_f64() * 1e3;
            if !o.status.success() {
                eprintln!("{name}: {}", String::from_utf8_lossy(&o.stderr));
                break;
            }
            let parts = String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .filter_map(|kv| {
                    let (k, v) = kv.split_once('=')?;
                    Some((k.trim_end_matches("_ms").to_string(), v.parse().ok()?))
                })
                .collect();
            runs.push((wall, parts));
        }
        if runs.is_empty() {
            continue;
        }
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let wall = median(runs.iter().map(|r| r.0).collect());
        let part = |k: &str| {
            median(
                runs.iter()
                    .map(|(_, parts)| parts.iter().find(|(n, _)| n == k).map_or(0.0, |p| p.1))
                    .collect(),
            )
        };
        for (k, _) in &runs[0].1 {
            records.push(&format!("thumbnail/{name}/{k}"), part(k), "ms");
        }
        records.push(&format!("thumbnail/{name}/process"), wall, "ms");
        let work = part("load") + part("render") + part("png");
        println!(
            "{:<34} {:>8.1} {:>9.1} {:>7.1} {:>7.1} {:>6.1} {:>8.1} {:>9.0}%",
            name,
            part("adapter"),
            part("pipelines"),
            part("load"),
            part("render"),
            part("png"),
            wall,
            work / wall * 100.0
        );
    }
    let _ = std::fs::remove_file(&out);
    records.write();
}
