#![no_main]
// PTF decoder: errors are fine, panics and huge allocations are not.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(t) = facet::formats::ptf::decode(data) {
        let _ = t.to_rgba8();
    }
});
