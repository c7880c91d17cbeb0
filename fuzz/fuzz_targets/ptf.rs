#![no_main]
// PTF decoder, whole, reduced to a small budget and headers only: errors
// are fine, panics and huge allocations are not.
use facet_formats::ptf::{self, Texels};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(t) = ptf::decode_with(data, Texels::Within(1 << 16)) {
        let _ = t.to_rgba8();
    }
    let _ = ptf::decode_with(data, Texels::HeadersOnly);
});
