//! `cargo bench --bench papa`: Papa decode throughput per fixture of
//! `../shared/fixtures/papa`, in MB/s of file bytes: the decoder alone, and
//! decoder + scene conversion to GPU-ready meshes (vertex decoding, axis
//! conversion, DXT decoding, skeletons, sibling animations). Median of runs
//! over about 0.3 s; std only.

use std::time::{Duration, Instant};

fn median(mut f: impl FnMut()) -> Duration {
    f();
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 5 || (start.elapsed() < Duration::from_millis(300) && times.len() < 2000) {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/papa");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "this benchmark needs the shared fixtures at {}",
            dir.display()
        );
        std::process::exit(1);
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "papa"))
        .collect();
    files.sort();
    println!(
        "{:<34} {:>8} {:>10} {:>10} {:>12} {:>12}",
        "file", "bytes", "decode", "+scene", "MB/s", "+scene MB/s"
    );
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let decode = median(|| {
            std::hint::black_box(
                facet::formats::papa::decode(std::hint::black_box(&bytes)).unwrap(),
            );
        });
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let full = median(|| {
            std::hint::black_box(
                facet::load::load_bytes_at(&file, &bytes, path.parent(), Some(&path)).unwrap(),
            );
        });
        let mbs = |d: Duration| bytes.len() as f64 / d.as_secs_f64() / 1e6;
        println!(
            "{:<34} {:>8} {:>8.1}us {:>8.1}us {:>12.1} {:>12.1}",
            file,
            bytes.len(),
            decode.as_secs_f64() * 1e6,
            full.as_secs_f64() * 1e6,
            mbs(decode),
            mbs(full)
        );
    }
}
