//! PTF writer (current, 2025 and 2024 generations), used by tests and the demo generator.

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
) -> Result<Vec<u8>, String> {
    if !width.is_power_of_two() || !height.is_power_of_two() {
        return Err(format!("{width}x{height}: PTF sides are powers of two"));
    }
    let expected = (width as usize * height as usize).saturating_mul(format.channels());
    if pixels.len() != expected {
        return Err(format!(
            "{} bytes of texels, {expected} expected for {width}x{height} {}",
            pixels.len(),
            format.name()
        ));
    }
    let (lw, lh) = (width.trailing_zeros() as u8, height.trailing_zeros() as u8);
    let mut out = b"PTF".to_vec();
    match layout {
        PtfLayout::Current { version } => {
            out.push(version);
            out.push(format as u8);
            out.push((lh << 4) | lw);
        }
        PtfLayout::Y2025 { version } => {
            let flags = match format {
                PtfFormat::Rgb => 0,
                PtfFormat::Rgba => 1,
                _ => return Err("2025 PTF textures are RGB or RGBA".into()),
            };
            out.push(version);
            out.push(flags);
            out.push((lh << 4) | lw);
        }
        PtfLayout::Rev2024 { revision } => {
            if width != height {
                return Err("2024 PTF textures are square".into());
            }
            let alpha = match format {
                PtfFormat::Rgb => 0,
                PtfFormat::Rgba => 0x10,
                _ => return Err("2024 PTF textures are RGB or RGBA".into()),
            };
            out.push(revision);
            out.push(alpha | lw);
        }
    }
    let mut enc = lz4_flex::frame::FrameEncoder::new(out);
    enc.write_all(pixels).map_err(|e| e.to_string())?;
    enc.finish().map_err(|e| e.to_string())
}
