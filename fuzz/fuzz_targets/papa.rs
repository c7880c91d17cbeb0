#![no_main]
// Papa decoder (tables, vertex formats, textures and their levels,
// skeletons, animations): errors are fine, panics and huge allocations are
// not.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(p) = facet_formats::papa::decode(data) {
        for t in &p.textures {
            let _ = t.levels();
        }
    }
});
