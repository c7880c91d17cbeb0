//! PTF decoder: the real fixture, both layouts, every format, bad input.

mod common;
use facet_formats::ptf::{self, PtfFormat, PtfLayout};
use facet_formats::ptf_write::encode;

#[test]
fn real_fixture_decodes_to_64x64_rgba() {
    let bytes = std::fs::read(common::shared().join("fixtures/ptf/missing.ptf")).unwrap();
    let t = ptf::decode(&bytes).unwrap();
    assert_eq!(t.layout, PtfLayout::Rev2024 { revision: 0 });
    assert_eq!((t.width, t.height, t.format), (64, 64, PtfFormat::Rgba));
    assert_eq!(t.pixels.len(), 64 * 64 * 4);
    // The engine's "missing" texture is not a single colour.
    let first = &t.pixels[..4];
    assert!(t.pixels.chunks(4).any(|p| p != first));
}

#[test]
fn every_format_round_trips_in_the_current_layout() {
    for (format, c) in [
        (PtfFormat::I, 1),
        (PtfFormat::Ia, 2),
        (PtfFormat::Rgb, 3),
        (PtfFormat::Rgba, 4),
    ] {
        let (w, h) = (8u32, 2u32);
        let px: Vec<u8> = (0..w * h * c).map(|i| (i * 7) as u8).collect();
        let bytes = encode(PtfLayout::Current { version: 0 }, format, w, h, &px).unwrap();
        assert_eq!(
            bytes[5],
            (1 << 4) | 3,
            "height nibble high, width nibble low"
        );
        let t = ptf::decode(&bytes).unwrap();
        assert_eq!(
            (t.width, t.height, t.format, &t.pixels),
            (w, h, format, &px)
        );
        assert_eq!(t.to_rgba8().len(), (w * h * 4) as usize);
    }
}

#[test]
fn rgb_2024_round_trips() {
    let px: Vec<u8> = (0..4 * 4 * 3).map(|i| i as u8).collect();
    let t = ptf::decode(
        &encode(
            PtfLayout::Rev2024 { revision: 0 },
            PtfFormat::Rgb,
            4,
            4,
            &px,
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(t.format, PtfFormat::Rgb);
    assert_eq!(t.pixels, px);
    assert_eq!(&t.to_rgba8()[..8], &[0, 1, 2, 255, 3, 4, 5, 255]);
}

#[test]
fn truncation_and_corruption_are_errors() {
    let bytes = std::fs::read(common::shared().join("fixtures/ptf/missing.ptf")).unwrap();
    let full = ptf::decode(&bytes).unwrap();
    for len in 0..bytes.len() {
        match ptf::decode(&bytes[..len]) {
            Err(_) => {}
            // Only the 4-byte LZ4 end mark may be missing (docs/formats.md):
            // every texel is there, so the texture is shown.
            Ok(t) => {
                assert!(
                    len >= bytes.len() - 4,
                    "truncated to {len} bytes but decoded"
                );
                assert_eq!(t, full);
            }
        }
    }
    let mut bad = bytes.clone();
    bad[4] |= 0x80;
    assert!(
        ptf::decode(&bad)
            .unwrap_err()
            .to_string()
            .contains("reserved bits")
    );
    let mut bad = bytes.clone();
    for b in &mut bad[12..30] {
        *b ^= 0x5A;
    }
    let e = ptf::decode(&bad).unwrap_err().to_string();
    assert!(e.contains("offset 0x5"), "{e}");
}

#[test]
fn absurd_sizes_are_refused_before_allocating() {
    // 32768 x 32768 RGBA (4 GiB of texels) declared by a 20-byte file: the
    // size is allowed (the current spec can say it), the texels are decoded
    // within the 1 GiB budget as they stream, and the empty frame ends at
    // its first row.
    let mut bytes = b"PTF\0\x03\xFF".to_vec();
    bytes.extend_from_slice(&ptf::LZ4_FRAME_MAGIC);
    bytes.extend_from_slice(&[0x40, 0x40, 0xC0, 0, 0, 0, 0]);
    let e = ptf::decode(&bytes).unwrap_err().to_string();
    assert!(
        e.contains("row 0 of 32768") && e.contains("the frame ends before"),
        "{e}"
    );
    // A frame that decodes to far more than declared stops at the declared size.
    let big = encode(
        PtfLayout::Current { version: 0 },
        PtfFormat::Rgba,
        1024,
        1024,
        &vec![0; 1024 * 1024 * 4],
    )
    .unwrap();
    let mut lie = big;
    lie[5] = 0; // now declares 1x1
    let e = ptf::decode(&lie).unwrap_err().to_string();
    assert!(e.contains("expected 4"), "{e}");
}

#[test]
fn writer_refuses_what_the_format_cannot_hold() {
    let l = PtfLayout::Current { version: 0 };
    assert!(encode(l, PtfFormat::I, 3, 4, &[0; 12]).is_err());
    assert!(encode(l, PtfFormat::Rgb, 4, 4, &[0; 5]).is_err());
    let old = PtfLayout::Rev2024 { revision: 0 };
    assert!(encode(old, PtfFormat::Rgb, 4, 8, &[0; 96]).is_err());
    assert!(encode(old, PtfFormat::Ia, 4, 4, &[0; 32]).is_err());
}

#[test]
fn every_format_expands_to_rgba8() {
    // Two texels of each format, the RGBA8 they stand for worked out by
    // hand: I is grey and opaque, IA grey with its alpha, RGB opaque.
    use ptf::expand_rgba8;
    assert_eq!(
        expand_rgba8(PtfFormat::I, &[7, 200]),
        [7, 7, 7, 255, 200, 200, 200, 255]
    );
    assert_eq!(
        expand_rgba8(PtfFormat::Ia, &[7, 8, 200, 0]),
        [7, 7, 7, 8, 200, 200, 200, 0]
    );
    assert_eq!(
        expand_rgba8(PtfFormat::Rgb, &[1, 2, 3, 4, 5, 6]),
        [1, 2, 3, 255, 4, 5, 6, 255]
    );
    assert_eq!(
        expand_rgba8(PtfFormat::Rgba, &[1, 2, 3, 4, 5, 6, 7, 8]),
        [1, 2, 3, 4, 5, 6, 7, 8]
    );
    // A trailing partial texel is not a texel.
    assert_eq!(expand_rgba8(PtfFormat::Rgb, &[1, 2, 3, 4]), [1, 2, 3, 255]);
}
