//! `cargo bench --bench pmf`: PMF decode throughput against inflating the
//! same LZ4 blocks alone with lz4_flex (the floor any decoder pays), for
//! `assets/demo.pmf` and a generated map of about a million triangles;
//! the goal is a full decode at >= 80% of raw inflation. Also the scene
//! conversion (meshes with lightmaps). Median of runs over about 0.3 s.
//! Dynamic lights' extra lightmaps inside client blocks are inflated with
//! their block. `PMF_BENCH_DEMO_ONLY=1` skips the large map (generating it
//! takes about a minute).

#[allow(dead_code)] // the fixture list is for the format benches
mod common;
use common::median;
use facet::formats::pmf;
use std::time::Duration;

fn main() {
    let demo = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pmf")).unwrap();
    let only_demo = std::env::var_os("PMF_BENCH_DEMO_ONLY").is_some();
    let t = std::time::Instant::now();
    let big = if only_demo {
        Vec::new()
    } else {
        facet::formats::pmf_write::encode(&facet::mapgen::generate(&facet::mapgen::Params::MILLION))
            .unwrap()
    };
    eprintln!(
        "generated the 1M-triangle map in {:.1} s",
        t.elapsed().as_secs_f32()
    );
    println!(
        "{:<22} {:>10} {:>10} {:>10} {:>10} {:>9} {:>10} {:>11} {:>8} {:>8}",
        "map",
        "bytes",
        "inflated",
        "raw lz4",
        "raw alloc",
        "decode",
        "+scene",
        "decode MB/s",
        "of raw",
        "of alloc"
    );
    for (name, bytes) in [("demo.pmf", &demo), ("generated 1M triangles", &big)] {
        if bytes.is_empty() {
            continue;
        }
        let blocks = pmf::lz4_blocks(bytes).unwrap();
        let inflated: usize = blocks.iter().map(|b| b.1).sum();
        let mut scratch = vec![0u8; blocks.iter().map(|b| b.1).max().unwrap_or(0)];
        let raw = median(|| {
            for (data, n) in &blocks {
                let out = &mut scratch[..*n];
                std::hint::black_box(lz4_flex::block::decompress_into(data, out).unwrap());
            }
        });
        // The same blocks inflated into fresh buffers, as any decoder that
        // returns owned data must (page faults and all).
        let raw_alloc = median(|| {
            for (data, n) in &blocks {
                std::hint::black_box(lz4_flex::block::decompress(data, *n).unwrap());
            }
        });
        let decode = median(|| {
            std::hint::black_box(pmf::decode(std::hint::black_box(bytes)).unwrap());
        });
        let full = median(|| {
            std::hint::black_box(facet::load::load_bytes(name, bytes, None).unwrap());
        });
        let mbs = |d: Duration| bytes.len() as f64 / d.as_secs_f64() / 1e6;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{:<22} {:>10} {:>10} {:>8.2}ms {:>8.2}ms {:>7.2}ms {:>8.2}ms {:>11.1} {:>7.0}% {:>7.0}%",
            name,
            bytes.len(),
            inflated,
            ms(raw),
            ms(raw_alloc),
            ms(decode),
            ms(full),
            mbs(decode),
            raw.as_secs_f64() / decode.as_secs_f64() * 100.0,
            raw_alloc.as_secs_f64() / decode.as_secs_f64() * 100.0
        );
    }
}
