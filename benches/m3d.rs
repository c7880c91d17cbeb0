//! `cargo bench --bench m3d`: Model 3D decode throughput per fixture of
//! `../shared/fixtures/m3d`, in MB/s of file bytes and of the (inflated)
//! payload, for the decoder alone and for decoder + scene conversion (the
//! GPU-ready vertex and index lists). Median of many runs, with the
//! viewer's allocator. Records (`m3d/<file>/decode`,
//! `m3d/<file>/scene`, file bytes in memory to a GPU-ready scene) in
//! `target/bench/m3d.json`.
//!
//! With `M3D_H` naming the reference SDK's `m3d.h` (scripts/bench-report
//! takes it from the model3d crate), the same run also times m3d.h's
//! `m3d_load` on every file, built with gcc -O2 from
//! `benches/reference/m3d_load.c`, each file right after the viewer's
//! timing of it, in five rounds: records `m3d.h/<file>/load` (the median
//! round) and `m3d.h/<file>/ratio`, the median of the five rounds' m3d.h /
//! decode + scene, the goal's ratio.

/// The viewer's allocator (`src/main.rs`), so the figures are the app's.
#[global_allocator]
static ALLOCATOR: facet::alloc::Mimalloc = facet::alloc::Mimalloc;

#[allow(dead_code)] // `decode_and_scene` is for the benches with no payload column
mod common;
use common::{Records, fixtures, median};
use std::time::Duration;

/// Rounds over the files: each round times, file by file, the viewer and
/// then m3d.h. This machine's speed wanders by a third from one minute to
/// the next; with a file's pair timed within a second of each other, five
/// times, each ratio is paired and the median taken.
const ROUNDS: usize = 5;

fn main() {
    let files = fixtures("m3d", "m3d");
    let mut records = Records::new("m3d");
    let mut harness = reference_harness();
    println!(
        "{:<28} {:>9} {:>9} {:>10} {:>11} {:>11} {:>13} {:>10} {:>8}",
        "file",
        "bytes",
        "payload",
        "decode",
        "file MB/s",
        "payload MB/s",
        "+scene MB/s",
        "m3d.h",
        "ratio"
    );
    // Per file and round: (decode, decode + scene, m3d.h's load in us).
    let mut times = vec![Vec::new(); files.len()];
    let contents: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    for _ in 0..ROUNDS {
        for ((path, bytes), times) in files.iter().zip(&contents).zip(&mut times) {
            let decode = median(|| {
                std::hint::black_box(
                    facet::formats::m3d::decode(std::hint::black_box(bytes)).unwrap(),
                );
            });
            let full = median(|| {
                let m = facet::formats::m3d::decode(std::hint::black_box(bytes)).unwrap();
                std::hint::black_box(facet::scene::from_m3d::convert(
                    &m,
                    Default::default(),
                    &facet::scene::companions::NoCompanions,
                ));
            });
            let reference = harness.as_mut().map(|h| h.time(path));
            times.push((decode, full, reference));
        }
    }
    let mid = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for ((path, bytes), times) in files.iter().zip(&contents).zip(times) {
        let m = facet::formats::m3d::decode(bytes).unwrap();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        let decode = mid(times.iter().map(|t| us(t.0)).collect());
        let full = mid(times.iter().map(|t| us(t.1)).collect());
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        records.push(&format!("m3d/{file}/decode"), decode, "us");
        records.push(&format!("m3d/{file}/scene"), full, "us");
        records.push(&format!("m3d/{file}/bytes"), bytes.len() as f64, "bytes");
        records.push(
            &format!("m3d/{file}/payload"),
            m.payload_len as f64,
            "bytes",
        );
        // m3d.h's median round, and the median of the paired ratios.
        let (load, ratio) = match harness {
            Some(_) => {
                let load = mid(times.iter().filter_map(|t| t.2).collect());
                let ratio = mid(times.iter().filter_map(|t| Some(t.2? / us(t.1))).collect());
                records.push(&format!("m3d.h/{file}/load"), load, "us");
                records.push(&format!("m3d.h/{file}/ratio"), ratio, "x");
                (format!("{load:.1}us"), format!("{ratio:.2}x"))
            }
            None => ("-".into(), "-".into()),
        };
        let mbs = |n: usize, us: f64| n as f64 / us;
        println!(
            "{:<28} {:>9} {:>9} {:>8.1}us {:>11.1} {:>11.1} {:>13.1} {:>10} {:>8}",
            file,
            bytes.len(),
            m.payload_len,
            decode,
            mbs(bytes.len(), decode),
            mbs(m.payload_len, decode),
            mbs(bytes.len(), full),
            load,
            ratio,
        );
    }
    records.write();
}

/// m3d.h's loader built for timing (`benches/reference/m3d_load.c`) and
/// started, when `M3D_H` names m3d.h: one process for the whole run, as
/// when it timed every file in turn, asked for each file in its turn.
fn reference_harness() -> Option<Harness> {
    let Some(header) = std::env::var_os("M3D_H").map(std::path::PathBuf::from) else {
        eprintln!("M3D_H not set: m3d.h's m3d_load not measured (scripts/bench-report sets it)");
        return None;
    };
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = common::bench_dir().join("m3d_load");
    let include = header.parent().unwrap_or(std::path::Path::new("."));
    let built = std::process::Command::new("gcc")
        .args(["-O2", "-w", "-I"])
        .arg(include)
        .arg(here.join("benches/reference/m3d_load.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .status()
        .expect("gcc runs");
    assert!(built.success(), "building the m3d.h harness failed");
    println!("m3d.h: m3d_load + m3d_free (gcc -O2, {})", header.display());
    let mut child = std::process::Command::new(&exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the m3d.h harness starts");
    let input = child.stdin.take().unwrap();
    let output = std::io::BufReader::new(child.stdout.take().unwrap());
    Some(Harness {
        _child: child,
        input,
        output,
    })
}

struct Harness {
    _child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::BufReader<std::process::ChildStdout>,
}

impl Harness {
    /// m3d.h's median `m3d_load` + `m3d_free` of one file, in us.
    fn time(&mut self, file: &std::path::Path) -> f64 {
        use std::io::{BufRead, Write};
        writeln!(self.input, "{}", file.display()).unwrap();
        self.input.flush().unwrap();
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        let (_, us) = line
            .trim_end()
            .split_once('\t')
            .unwrap_or_else(|| panic!("m3d.h harness: no time for {}", file.display()));
        us.parse().unwrap()
    }
}
