//! `cargo bench --bench papa`: Papa decode throughput per fixture of
//! `../shared/fixtures/papa`, in MB/s of file bytes: the decoder alone, and
//! decoder + scene conversion to GPU-ready meshes (vertex decoding, axis
//! conversion, DXT decoding, skeletons, sibling animations). Median of runs
//! over about 0.3 s; std only.

mod common;
use common::{fixtures, median};
use std::time::Duration;

fn main() {
    let files = fixtures("papa", "papa");
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
