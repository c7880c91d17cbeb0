#![no_main]
// The m3d decoder under libFuzzer; the body is facet_formats::fuzz::m3d, which
// tests/corpus.rs runs on every kept input.
libfuzzer_sys::fuzz_target!(|data: &[u8]| facet_formats::fuzz::m3d(data));
