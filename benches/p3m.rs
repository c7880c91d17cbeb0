//! `cargo bench --bench p3m`: P3M decode throughput, in MB/s of file bytes:
//! the decoder alone (`p3m/<file>/decode`) and file bytes in memory to a
//! GPU-ready scene, decode included (`p3m/<file>/scene`: parts, skins,
//! materials, embedded PTF textures; no companion files). For the bundled
//! `assets/demo.p3m` and generated files of about 10K and 100K triangles
//! (`generators::scaling`: the shared fixtures hold no P3M). Median of runs
//! over about 0.3 s, in five rounds over the files (the median round), with
//! the viewer's allocator. Records in
//! `target/bench/p3m.json`.

/// The viewer's allocator (`src/main.rs`), so the figures are the app's.
#[global_allocator]
static ALLOCATOR: facet::alloc::Mimalloc = facet::alloc::Mimalloc;

#[allow(dead_code)] // the fixture list is for the shared fixtures
mod common;
use common::{Records, decode_and_scene, decode_and_scene_header};

fn main() {
    let demo = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.p3m")).unwrap();
    let files = [
        ("demo.p3m", demo),
        (
            "generated_10k.p3m",
            facet::generators::scaling::p3m_bytes(10_000),
        ),
        (
            "generated_100k.p3m",
            facet::generators::scaling::p3m_bytes(100_000),
        ),
    ]
    .map(|(name, bytes)| (name.to_string(), bytes));
    let mut records = Records::new("p3m");
    decode_and_scene_header();
    decode_and_scene(
        &mut records,
        "p3m",
        &files,
        |b| {
            drop(std::hint::black_box(
                facet::formats::p3m::decode(b).unwrap(),
            ))
        },
        |b| {
            let p = facet::formats::p3m::decode(b).unwrap();
            std::hint::black_box(facet::scene::from_p3m::convert(
                &p,
                Default::default(),
                &facet::scene::companions::NoCompanions,
            ));
        },
    );
    records.write();
}
