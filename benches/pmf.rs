//! `cargo bench --bench pmf`: PMF decode throughput against inflating the
//! same LZ4 blocks alone with lz4_flex (the floor any decoder pays), for
//! `assets/demo.pmf` and a generated map of about a million triangles;
//! the goal is a full decode at >= 80% of raw inflation. Also the scene
//! conversion (meshes with lightmaps). Median of runs over about 0.3 s.
//! The raw inflation covers every LZ4 block of the file, the dynamic
//! lights' extra lightmaps nested in the client sector blocks included.
//! The decode is timed on one thread and on every core (sectors decode in
//! parallel). `PMF_BENCH_DEMO_ONLY=1` skips the large map (generating it
//! takes about a minute).

/// The viewer's allocator (`src/main.rs`), so the figures are the app's.
#[global_allocator]
static ALLOCATOR: facet::alloc::Mimalloc = facet::alloc::Mimalloc;

#[allow(dead_code)] // the fixture list is for the format benches
mod common;
use common::{Records, median};
use facet::formats::pmf;
use std::time::Duration;

fn main() {
    let demo = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pmf")).unwrap();
    let only_demo = std::env::var_os("PMF_BENCH_DEMO_ONLY").is_some();
    let t = std::time::Instant::now();
    let big = if only_demo {
        Vec::new()
    } else {
        facet::formats::pmf_write::encode(&facet::generators::pmf::generate(
            &facet::generators::pmf::Params::MILLION,
        ))
        .unwrap()
    };
    eprintln!(
        "generated the 1M-triangle map in {:.1} s",
        t.elapsed().as_secs_f32()
    );
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let mut records = Records::new("pmf");
    println!(
        "{:<22} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "map",
        "bytes",
        "inflated",
        "raw",
        "raw own",
        "1 thread",
        "cores",
        "+scene",
        "MB/s",
        "1t/raw",
        "cores/raw"
    );
    for (name, bytes) in [("demo.pmf", &demo), ("generated 1M triangles", &big)] {
        if bytes.is_empty() {
            continue;
        }
        let t = Timings::of(name, bytes);
        let key = if name == "demo.pmf" {
            "demo.pmf"
        } else {
            "generated_1M.pmf"
        };
        for (what, d) in [
            ("raw", t.raw),
            ("raw_owned", t.raw_owned),
            ("decode_1_thread", t.one),
            ("decode", t.all),
            ("scene", t.full),
        ] {
            records.us(&format!("pmf/{key}/{what}"), d);
        }
        records.push(&format!("pmf/{key}/bytes"), bytes.len() as f64, "bytes");
        let mbs = |d: Duration| bytes.len() as f64 / d.as_secs_f64() / 1e6;
        let ms = |d: Duration| format!("{:.2}ms", d.as_secs_f64() * 1e3);
        let pct = |d: Duration| format!("{:.0}%", t.raw.as_secs_f64() / d.as_secs_f64() * 100.0);
        println!(
            "{:<22} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8.1} {:>8} {:>8}",
            name,
            bytes.len(),
            t.inflated,
            ms(t.raw),
            ms(t.raw_owned),
            ms(t.one),
            ms(t.all),
            ms(t.full),
            mbs(t.all),
            pct(t.one),
            pct(t.all),
        );
    }
    println!("({cores} cores; percentages are raw / decode time)");
    records.write();
}

/// One map's medians: its LZ4 blocks inflated alone (`raw` into one
/// reused buffer, `raw_owned` into buffers kept), decoded on one thread
/// and on every core, and loaded to its scene.
struct Timings {
    /// The bytes its blocks inflate to.
    inflated: usize,
    raw: Duration,
    raw_owned: Duration,
    one: Duration,
    all: Duration,
    full: Duration,
}

impl Timings {
    fn of(name: &str, bytes: &[u8]) -> Timings {
        let blocks = pmf::lz4_blocks(bytes).unwrap();
        let inflated: usize = blocks.iter().map(|b| b.1).sum();
        let mut scratch = vec![0u8; blocks.iter().map(|b| b.1).max().unwrap_or(0)];
        // Every LZ4 block of the file inflated on one thread into one
        // reused buffer: the floor, with no output memory at all.
        let raw = median(|| {
            for (data, n) in &blocks {
                let out = &mut scratch[..*n];
                std::hint::black_box(lz4_flex::block::decompress_into(data, out).unwrap());
            }
        });
        // The same into fresh buffers that all live until the end, as the
        // output of any decoder that returns owned data does (allocation
        // and page faults included).
        let raw_owned = median(|| {
            let all: Vec<Vec<u8>> = blocks
                .iter()
                .map(|(data, n)| lz4_flex::block::decompress(data, *n).unwrap())
                .collect();
            std::hint::black_box(all);
        });
        let one = median(|| {
            std::hint::black_box(pmf::decode_on(std::hint::black_box(bytes), 1, &|_| {}).unwrap());
        });
        let all = median(|| {
            std::hint::black_box(pmf::decode(std::hint::black_box(bytes)).unwrap());
        });
        let full = median(|| {
            std::hint::black_box(facet::load::load_bytes(name, bytes, None).unwrap());
        });
        Timings {
            inflated,
            raw,
            raw_owned,
            one,
            all,
            full,
        }
    }
}
