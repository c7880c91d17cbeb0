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

/// A compressed M3D file with its chunks stored plain instead: the spec's
/// other layout (the header, a preview chunk if there is one, then the
/// HEAD chunk), for seeding the fuzzer and the sweeps. A change to a zlib
/// stream nearly always ends at its checksum, so neither reaches the
/// chunks of a compressed file (its voxels, skins, actions) by changing
/// it. `None` for a file that is stored plain already or does not inflate.
pub fn m3d_plain(data: &[u8]) -> Option<Vec<u8>> {
    let mut at = 8;
    if data.get(8..12) == Some(b"PRVW") {
        at += u32::from_le_bytes(data.get(12..16)?.try_into().ok()?) as usize;
    }
    let body = data.get(at..)?;
    if body.starts_with(b"HEAD") {
        return None;
    }
    let chunks =
        miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(body, crate::m3d::MAX_PAYLOAD)
            .ok()?;
    let mut file = data.get(..at)?.to_vec();
    file.extend_from_slice(&chunks);
    let size = u32::try_from(file.len()).ok()?;
    file[4..8].copy_from_slice(&size.to_le_bytes());
    Some(file)
}
