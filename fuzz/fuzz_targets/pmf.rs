#![no_main]
// PMF decoder + scene conversion (LZ4 blocks, octrees, visibility,
// entities): errors are fine, panics, hangs and huge allocations are not.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(map) = facet::formats::pmf::decode(data) {
        let _ = facet::scene::from_pmf::convert(map, Default::default(), Default::default());
    }
});
