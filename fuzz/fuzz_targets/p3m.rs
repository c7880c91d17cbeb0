#![no_main]
// P3M decoder (both layouts, embedded PTFs within a small texel budget):
// errors are fine, panics and huge allocations are not.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = facet_formats::p3m::decode_within(data, 1 << 20);
});
