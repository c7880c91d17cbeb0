#![no_main]
// The papa decoder under libFuzzer; the body is facet_formats::fuzz::papa, which
// tests/corpus.rs runs on every kept input.
libfuzzer_sys::fuzz_target!(|data: &[u8]| facet_formats::fuzz::papa(data));
