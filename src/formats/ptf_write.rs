//! PTF writer (current and 2024 layouts), used by tests and the demo generator.

use super::ptf::{PtfFormat, PtfLayout};
use std::io::Write;

/// Encodes texels (top row first, `format.channels()` bytes each).
/// `width` and `height` must be powers of two; the 2024 layout needs them equal
/// and RGB or RGBA.
pub fn encode(
    layout: PtfLayout,
    format: PtfFormat,
    width: u32,
    height: u32,
    pixels: &[u8],
) -> Vec<u8> {
    assert!(width.is_power_of_two() && height.is_power_of_two());
    assert_eq!(pixels.len(), (width * height) as usize * format.channels());
    let (lw, lh) = (width.trailing_zeros() as u8, height.trailing_zeros() as u8);
    let mut out = b"PTF".to_vec();
    match layout {
        PtfLayout::Current { version } => {
            out.push(version);
            out.push(format as u8);
            out.push((lh << 4) | lw);
        }
        PtfLayout::Rev2024 { revision } => {
            assert_eq!(width, height, "2024 PTF textures are square");
            let alpha = match format {
                PtfFormat::Rgb => 0,
                PtfFormat::Rgba => 0x10,
                _ => panic!("2024 PTF textures are RGB or RGBA"),
            };
            out.push(revision);
            out.push(alpha | lw);
        }
    }
    let mut enc = lz4_flex::frame::FrameEncoder::new(out);
    enc.write_all(pixels).expect("writing to a Vec");
    enc.finish().expect("writing to a Vec")
}
