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
//! `benches/reference/m3d_load.c`: records `m3d.h/<file>/load`, the other
//! side of the goal's ratio, measured on the same machine.

/// The viewer's allocator (`src/main.rs`), so the figures are the app's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[allow(dead_code)] // `decode_and_scene` is for the benches with no payload column
mod common;
use common::{Records, fixtures, median};
use std::time::Duration;

fn main() {
    let files = fixtures("m3d", "m3d");
    let mut records = Records::new("m3d");
    println!(
        "{:<28} {:>9} {:>9} {:>10} {:>11} {:>11} {:>13}",
        "file", "bytes", "payload", "decode", "file MB/s", "payload MB/s", "+scene MB/s"
    );
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let m = facet::formats::m3d::decode(&bytes).unwrap();
        let decode = median(|| {
            std::hint::black_box(
                facet::formats::m3d::decode(std::hint::black_box(&bytes)).unwrap(),
            );
        });
        let full = median(|| {
            let m = facet::formats::m3d::decode(std::hint::black_box(&bytes)).unwrap();
            std::hint::black_box(facet::scene::from_m3d::convert(
                &m,
                Default::default(),
                &facet::scene::companions::NoCompanions,
            ));
        });
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        records.us(&format!("m3d/{file}/decode"), decode);
        records.us(&format!("m3d/{file}/scene"), full);
        records.push(&format!("m3d/{file}/bytes"), bytes.len() as f64, "bytes");
        records.push(
            &format!("m3d/{file}/payload"),
            m.payload_len as f64,
            "bytes",
        );
        let mbs = |n: usize, d: Duration| n as f64 / d.as_secs_f64() / 1e6;
        println!(
            "{:<28} {:>9} {:>9} {:>8.1}us {:>11.1} {:>11.1} {:>13.1}",
            path.file_name().unwrap().to_string_lossy(),
            bytes.len(),
            m.payload_len,
            decode.as_secs_f64() * 1e6,
            mbs(bytes.len(), decode),
            mbs(m.payload_len, decode),
            mbs(bytes.len(), full),
        );
    }
    reference(&files, &mut records);
    records.write();
}

/// m3d.h's `m3d_load` + `m3d_free` per file, when `M3D_H` names m3d.h.
fn reference(files: &[std::path::PathBuf], records: &mut Records) {
    let Some(header) = std::env::var_os("M3D_H").map(std::path::PathBuf::from) else {
        eprintln!("M3D_H not set: m3d.h's m3d_load not measured (scripts/bench-report sets it)");
        return;
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
    let out = std::process::Command::new(&exe)
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "m3d.h harness: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!(
        "\nm3d.h m3d_load + m3d_free (gcc -O2, {})",
        header.display()
    );
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let (path, us) = line.split_once('\t').expect("path, tab, microseconds");
        let file = std::path::Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy();
        let us: f64 = us.parse().unwrap();
        println!("{file:<28} {us:>10.1}us");
        records.push(&format!("m3d.h/{file}/load"), us, "us");
    }
}
