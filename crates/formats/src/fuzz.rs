//! The bodies of the fuzz targets (`fuzz/fuzz_targets/*.rs`), one per
//! format, kept here so that the regression corpus (`tests/corpus`, run by
//! `cargo test`) runs exactly what the fuzzer ran. Each takes any bytes:
//! errors are fine; a panic, a hang or a huge allocation is a bug.

use crate::ptf::{self, Texels};

/// P3M, both layouts, embedded PTFs within a small texel budget.
pub fn p3m(data: &[u8]) {
    let _ = crate::p3m::decode_within(data, 1 << 20);
}

/// PTF whole within a small budget (and expanded to RGBA), then headers
/// only.
pub fn ptf(data: &[u8]) {
    if let Ok(t) = ptf::decode_with(data, Texels::Within(1 << 16)) {
        let _ = t.to_rgba8();
    }
    let _ = ptf::decode_with(data, Texels::HeadersOnly);
}

/// M3D with the inflated payload capped low, so that the fuzzer explores
/// parsing, not zlib.
pub fn m3d(data: &[u8]) {
    let _ = crate::m3d::decode_with_limit(data, 1 << 20);
}

/// Papa: tables, vertex formats, textures and every stored level.
pub fn papa(data: &[u8]) {
    if let Ok(p) = crate::papa::decode(data) {
        for t in &p.textures {
            let _ = t.levels();
        }
    }
}

/// PMF on one thread and on four: they must agree on the map or on the
/// error.
pub fn pmf(data: &[u8]) {
    let one = crate::pmf::decode_on(data, 1, &|_| {});
    let four = crate::pmf::decode_on(data, 4, &|_| {});
    match (one, four) {
        // Debug, not ==: a NaN read from the file is not equal to itself.
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("1 thread: {:?}, 4 threads: {:?}", a.err(), b.err()),
    }
}
