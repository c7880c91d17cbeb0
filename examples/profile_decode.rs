//! Decodes one file in a loop for a profiler: `cargo run --release
//! --example profile_decode -- FILE [SECONDS]` (M3D or Papa, decode and
//! scene, no companions). `DECODE_ONLY=1`: the decoder alone; `M3D_SCENE=1`:
//! M3D decode + scene conversion, as `benches/m3d.rs` times it.
fn main() {
    let mut args = std::env::args().skip(1);
    let path = std::path::PathBuf::from(args.next().expect("FILE"));
    let secs: f64 = args.next().map_or(3.0, |s| s.parse().unwrap());
    let bytes = std::fs::read(&path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let t = std::time::Instant::now();
    let mut n = 0u64;
    while t.elapsed().as_secs_f64() < secs {
        if std::env::var_os("M3D_SCENE").is_some() {
            let m = facet::formats::m3d::decode(std::hint::black_box(&bytes)).unwrap();
            std::hint::black_box(facet::scene::from_m3d::convert(
                &m,
                Default::default(),
                &facet::scene::companions::NoCompanions,
            ));
        } else if std::env::var_os("DECODE_ONLY").is_some() {
            std::hint::black_box(
                facet::formats::m3d::decode(std::hint::black_box(&bytes)).unwrap(),
            );
        } else {
            let loaded =
                facet::load::load_bytes(&name, std::hint::black_box(&bytes), None).unwrap();
            std::hint::black_box(loaded);
        }
        n += 1;
    }
    eprintln!(
        "{n} loads, {:.1} us each",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}
