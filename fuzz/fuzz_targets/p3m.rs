#![no_main]
// The p3m decoder under libFuzzer; the body is facet_formats::fuzz::p3m, which
// tests/corpus.rs runs on every kept input.
libfuzzer_sys::fuzz_target!(|data: &[u8]| facet_formats::fuzz::p3m(data));
