//! `cargo bench --bench papa`: Papa decode throughput per fixture of
//! `../shared/fixtures/papa`, in MB/s of file bytes: the decoder alone
//! (`papa/<file>/decode`), and file bytes in memory to a GPU-ready scene,
//! decode included (`papa/<file>/scene`: vertex decoding, axis conversion,
//! textures, skeletons; no companion files, which are other files' bytes).
//! Median of runs over about 0.3 s, with the viewer's allocator. Records in
//! `target/bench/papa.json`.

/// The viewer's allocator (`src/main.rs`), so the figures are the app's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod common;
use common::{Records, fixtures, median};
use std::time::Duration;

fn main() {
    let files = fixtures("papa", "papa");
    let mut records = Records::new("papa");
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
            let p = facet::formats::papa::decode(std::hint::black_box(&bytes)).unwrap();
            std::hint::black_box(facet::scene::from_papa::convert(
                &p,
                Default::default(),
                &facet::scene::companions::NoCompanions,
            ));
        });
        records.us(&format!("papa/{file}/decode"), decode);
        records.us(&format!("papa/{file}/scene"), full);
        records.push(&format!("papa/{file}/bytes"), bytes.len() as f64, "bytes");
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
    records.write();
}
