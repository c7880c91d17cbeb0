#![no_main]
// M3D decoder (chunks, skins, actions, voxels, inlined assets): errors are
// fine, panics, hangs and huge allocations are not. The inflated payload is
// capped low here so that the fuzzer explores parsing, not zlib.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = facet_formats::m3d::decode_with_limit(data, 1 << 20);
});
