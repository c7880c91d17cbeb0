//! `cargo bench --bench papa`: Papa decode throughput per fixture of
//! `../shared/fixtures/papa`, in MB/s of file bytes: the decoder alone
//! (`papa/<file>/decode`), and file bytes in memory to a GPU-ready scene,
//! decode included (`papa/<file>/scene`: vertex decoding, axis conversion,
//! textures, skeletons; no companion files, which are other files' bytes).
//! Median of runs over about 0.3 s, in five rounds over the files (the
//! median round), with the viewer's allocator. Records in
//! `target/bench/papa.json`.

/// The viewer's allocator (`src/main.rs`), so the figures are the app's.
#[global_allocator]
static ALLOCATOR: facet::alloc::Mimalloc = facet::alloc::Mimalloc;

mod common;
use common::{Records, decode_and_scene, decode_and_scene_header, fixtures};

fn main() {
    let mut records = Records::new("papa");
    let files: Vec<(String, Vec<u8>)> = fixtures("papa", "papa")
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(p).unwrap())
        })
        .collect();
    decode_and_scene_header();
    decode_and_scene(
        &mut records,
        "papa",
        &files,
        |b| {
            drop(std::hint::black_box(
                facet::formats::papa::decode(b).unwrap(),
            ))
        },
        |b| {
            let p = facet::formats::papa::decode(b).unwrap();
            std::hint::black_box(facet::scene::from_papa::convert(
                &p,
                Default::default(),
                &facet::scene::companions::NoCompanions,
            ));
        },
    );
    records.write();
}
