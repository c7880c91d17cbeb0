//! Shared by the decode benchmarks: timing and the fixture list.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Median time of `f` over about 0.3 s of runs (at least 5, at most
/// [`MAX_RUNS`]), after one warm-up run. The runs span the whole 0.3 s:
/// capped at 2,000, a file of a few hundred bytes was timed over 4 ms, and
/// one burst of another process on the machine moved its median by half
/// between runs of the bench. `benches/reference/m3d_load.c` times m3d.h
/// the same way.
pub fn median(mut f: impl FnMut()) -> Duration {
    f();
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 5
        || (start.elapsed() < Duration::from_millis(300) && times.len() < MAX_RUNS)
    {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

/// The most runs [`median`] times (a run of 0.3 us fills 0.3 s).
pub const MAX_RUNS: usize = 1_000_000;

/// `../shared/fixtures/<dir>/*.<ext>`, sorted; exits with a message when
/// the shared fixtures are missing.
pub fn fixtures(dir: &str, ext: &str) -> Vec<PathBuf> {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures")
        .join(dir);
    let Ok(entries) = std::fs::read_dir(&d) else {
        eprintln!(
            "this benchmark needs the shared fixtures at {}",
            d.display()
        );
        std::process::exit(1);
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// Rounds [`decode_and_scene`] times every file in, one file after the
/// other in each: a file's figures are the median of its rounds' medians.
/// One pass over the files let one slow minute of this shared VM set a
/// file's figure (demo.p3m read 35.9 and 59.4 us in two runs a minute
/// apart); the M3D bench pairs its rounds the same way.
pub const ROUNDS: usize = 5;

/// Times each of `files` (name, bytes): `decode` alone and `scene` (file
/// bytes to a GPU-ready scene, decode included), [`ROUNDS`] rounds over
/// all of them, records `<format>/<file>/decode`, `/scene` and `/bytes`
/// and prints a line per file under [`decode_and_scene_header`].
pub fn decode_and_scene(
    records: &mut Records,
    format: &str,
    files: &[(String, Vec<u8>)],
    mut decode: impl FnMut(&[u8]),
    mut scene: impl FnMut(&[u8]),
) {
    let mut rounds = vec![Vec::new(); files.len()];
    for _ in 0..ROUNDS {
        for ((_, bytes), times) in files.iter().zip(&mut rounds) {
            let alone = median(|| decode(std::hint::black_box(bytes)));
            let full = median(|| scene(std::hint::black_box(bytes)));
            times.push((alone, full));
        }
    }
    for ((file, bytes), times) in files.iter().zip(rounds) {
        let mid = |mut v: Vec<Duration>| {
            v.sort();
            v[v.len() / 2]
        };
        let alone = mid(times.iter().map(|t| t.0).collect());
        let full = mid(times.iter().map(|t| t.1).collect());
        records.us(&format!("{format}/{file}/decode"), alone);
        records.us(&format!("{format}/{file}/scene"), full);
        records.push(
            &format!("{format}/{file}/bytes"),
            bytes.len() as f64,
            "bytes",
        );
        let mbs = |d: Duration| bytes.len() as f64 / d.as_secs_f64() / 1e6;
        println!(
            "{:<34} {:>9} {:>8.1}us {:>8.1}us {:>10.1} {:>12.1}",
            file,
            bytes.len(),
            alone.as_secs_f64() * 1e6,
            full.as_secs_f64() * 1e6,
            mbs(alone),
            mbs(full)
        );
    }
}

/// The header of [`decode_and_scene`]'s lines.
pub fn decode_and_scene_header() {
    println!(
        "{:<34} {:>9} {:>10} {:>10} {:>10} {:>12}",
        "file", "bytes", "decode", "+scene", "MB/s", "+scene MB/s"
    );
}

/// One benchmark run's measurements, written to `target/bench/<bench>.json`
/// as a JSON array of `{"name", "value", "unit", "machine"}` records (the
/// file's modification time is the run's date). `docs/performance.md`'s
/// tables are made from these files by `scripts/bench-report`.
pub struct Records {
    bench: &'static str,
    machine: String,
    records: Vec<serde_json::Value>,
}

impl Records {
    pub fn new(bench: &'static str) -> Records {
        Records {
            bench,
            machine: machine(),
            records: Vec::new(),
        }
    }

    /// A median in microseconds.
    pub fn us(&mut self, name: &str, d: Duration) {
        self.push(name, d.as_secs_f64() * 1e6, "us");
    }

    pub fn push(&mut self, name: &str, value: f64, unit: &str) {
        self.records
            .push(facet::cli::bench::record(name, value, unit, &self.machine));
    }

    /// Writes the file and says where.
    pub fn write(self) {
        let dir = bench_dir();
        let path = dir.join(format!("{}.json", self.bench));
        let text = serde_json::to_string_pretty(&self.records).unwrap();
        std::fs::write(&path, text + "\n").unwrap();
        eprintln!("{} records -> {}", self.records.len(), path.display());
    }
}

/// `target/bench` (under `CARGO_TARGET_DIR` when set), made if missing:
/// the records, and what a bench builds to measure beside them.
pub fn bench_dir() -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("bench");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The CPU model, its core count and the OS, as the records name the
/// machine (`FACET_BENCH_MACHINE` overrides it).
pub fn machine() -> String {
    if let Ok(m) = std::env::var("FACET_BENCH_MACHINE") {
        return m;
    }
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    format!("{cpu}, {cores} cores, {}", std::env::consts::OS)
}
