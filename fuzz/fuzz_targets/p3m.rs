#![no_main]
// P3M decoder + scene conversion: errors are fine, panics and huge allocations are not.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(m) = facet::formats::p3m::decode(data) {
        let _ = facet::scene::from_p3m::convert(
            &m,
            Default::default(),
            &facet::scene::companions::NoCompanions,
        );
    }
});
