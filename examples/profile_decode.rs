//! Decodes one file in a loop for a profiler: `cargo run --release
//! --example profile_decode -- FILE [SECONDS]` (M3D or Papa, decode and
//! scene, no companions). `DECODE_ONLY=1`: the decoder alone; `SCENE=1`:
//! decode + scene conversion, as `benches/m3d.rs` and `benches/papa.rs` time
//! it; `CONVERT_ONLY=1` (M3D): the conversion alone, from one decode;
//! none: `load::load_bytes` (companions looked up beside the file).
//! Prints the time a load takes and the allocations it makes.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The viewer's allocator (`src/main.rs`), so the figures are the app's,
/// counting its allocations (one relaxed add each) for the line that
/// reports a load's.
struct Counting;
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
#[global_allocator]
static ALLOCATOR: Counting = Counting;
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        unsafe { facet::alloc::Mimalloc.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        unsafe { facet::alloc::Mimalloc.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        unsafe { facet::alloc::Mimalloc.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { facet::alloc::Mimalloc.dealloc(ptr, layout) }
    }
}
fn main() {
    let mut args = std::env::args().skip(1);
    let path = std::path::PathBuf::from(args.next().expect("FILE"));
    let secs: f64 = args.next().map_or(3.0, |s| s.parse().unwrap());
    let bytes = std::fs::read(&path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let t = std::time::Instant::now();
    let mut n = 0u64;
    // Batches of 200 loads: their median and fastest are steadier than the
    // mean on a shared machine.
    let mut batch = (std::time::Instant::now(), Vec::new());
    let papa = name.ends_with(".papa");
    let decode_only = std::env::var_os("DECODE_ONLY").is_some();
    let scene = std::env::var_os("SCENE").is_some();
    // CONVERT_ONLY=1 (M3D): the scene conversion alone, from one decode.
    let convert_only = (!papa && std::env::var_os("CONVERT_ONLY").is_some())
        .then(|| facet::formats::m3d::decode(&bytes).unwrap());
    let none = &facet::scene::companions::NoCompanions;
    while t.elapsed().as_secs_f64() < secs {
        let b = std::hint::black_box(&bytes);
        if let Some(m) = &convert_only {
            std::hint::black_box(facet::scene::from_m3d::convert(
                std::hint::black_box(m),
                Default::default(),
                none,
            ));
        } else {
            match (papa, decode_only, scene) {
                (true, true, _) => drop(std::hint::black_box(facet::formats::papa::decode(b))),
                (false, true, _) => drop(std::hint::black_box(facet::formats::m3d::decode(b))),
                (true, _, true) => {
                    let p = facet::formats::papa::decode(b).unwrap();
                    std::hint::black_box(facet::scene::from_papa::convert(
                        &p,
                        Default::default(),
                        none,
                    ));
                }
                (false, _, true) => {
                    let m = facet::formats::m3d::decode(b).unwrap();
                    std::hint::black_box(facet::scene::from_m3d::convert(
                        &m,
                        Default::default(),
                        none,
                    ));
                }
                _ => drop(std::hint::black_box(
                    facet::load::load_bytes(&name, b, None).unwrap(),
                )),
            }
        }
        n += 1;
        if n.is_multiple_of(200) {
            batch.1.push(batch.0.elapsed().as_secs_f64() * 1e6 / 200.0);
            batch.0 = std::time::Instant::now();
        }
    }
    let mut b = batch.1;
    let allocations = ALLOCATIONS.load(Relaxed) as f64 / n.max(1) as f64;
    b.sort_by(f64::total_cmp);
    eprintln!(
        "{n} loads, {:.2} us each; batches of 200: median {:.2} us, fastest {:.2} us; \
         {allocations:.1} allocations (reallocations included) a load",
        t.elapsed().as_secs_f64() * 1e6 / n as f64,
        b.get(b.len() / 2).copied().unwrap_or(f64::NAN),
        b.first().copied().unwrap_or(f64::NAN),
    );
}
