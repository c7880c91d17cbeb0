//! PTF (PlatinumSrc texture) decoder.
//!
//! Two layouts exist (see `docs/formats.md`):
//! - current (`specs/ptf.txt`): `PTF`, u8 version, u8 format (low 2 bits: I, IA,
//!   RGB, RGBA), u8 size (high nibble log2 height, low nibble log2 width), LZ4 frame;
//! - 2024 (`specs/ptf-2024.txt`): `PTF`, u8 revision, u8 (bit 4 has alpha, low
//!   nibble log2 of a square size), LZ4 frame of RGB or RGBA.
//!
//! They are told apart by where the LZ4 frame magic starts (offset 6 or 5).

use super::{DecodeError, ErrorKind, Reader, Result};
use std::io::Read;

/// LZ4 frame magic number, little endian.
pub const LZ4_FRAME_MAGIC: [u8; 4] = [0x04, 0x22, 0x4D, 0x18];

/// Largest side accepted: 2^14 texels (a documented cap; 1 GiB of RGBA).
pub const MAX_LOG2_SIZE: u8 = 14;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtfLayout {
    /// `specs/ptf.txt`; the byte is the major version.
    Current { version: u8 },
    /// `specs/ptf-2024.txt`; the byte is the revision.
    Rev2024 { revision: u8 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtfFormat {
    I = 0,
    Ia = 1,
    Rgb = 2,
    Rgba = 3,
}

impl PtfFormat {
    pub fn channels(self) -> usize {
        self as usize + 1
    }

    pub fn name(self) -> &'static str {
        match self {
            PtfFormat::I => "I",
            PtfFormat::Ia => "IA",
            PtfFormat::Rgb => "RGB",
            PtfFormat::Rgba => "RGBA",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ptf {
    pub layout: PtfLayout,
    pub format: PtfFormat,
    pub width: u32,
    pub height: u32,
    /// Texels, top row first, `format.channels()` bytes each.
    pub pixels: Vec<u8>,
}

impl Ptf {
    /// Expands the texels to RGBA8 (I -> grey, IA -> grey + alpha).
    pub fn to_rgba8(&self) -> Vec<u8> {
        let n = (self.width * self.height) as usize;
        let mut out = Vec::with_capacity(n * 4);
        let c = self.format.channels();
        for px in self.pixels.chunks_exact(c) {
            let rgba = match self.format {
                PtfFormat::I => [px[0], px[0], px[0], 255],
                PtfFormat::Ia => [px[0], px[0], px[0], px[1]],
                PtfFormat::Rgb => [px[0], px[1], px[2], 255],
                PtfFormat::Rgba => [px[0], px[1], px[2], px[3]],
            };
            out.extend_from_slice(&rgba);
        }
        out
    }
}

pub fn decode(data: &[u8]) -> Result<Ptf> {
    let mut r = Reader::new(data);
    r.magic(b"PTF", "magic")?;
    let is_2024 = data.get(5..9) == Some(&LZ4_FRAME_MAGIC[..]);
    let (layout, format, log_w, log_h) = if is_2024 {
        let revision = r.u8("revision")?;
        let at = r.pos();
        let b = r.u8("alpha/resolution byte")?;
        if b & 0xE0 != 0 {
            return Err(r.err(
                at,
                "alpha/resolution byte",
                format!("reserved bits set in {b:#04X}"),
            ));
        }
        let format = if b & 0x10 != 0 {
            PtfFormat::Rgba
        } else {
            PtfFormat::Rgb
        };
        let log = b & 0x0F;
        (PtfLayout::Rev2024 { revision }, format, log, log)
    } else {
        let version = r.u8("version")?;
        let at = r.pos();
        let b = r.u8("format")?;
        if b & 0xFC != 0 {
            return Err(r.err(at, "format", format!("reserved bits set in {b:#04X}")));
        }
        let format = match b & 3 {
            0 => PtfFormat::I,
            1 => PtfFormat::Ia,
            2 => PtfFormat::Rgb,
            _ => PtfFormat::Rgba,
        };
        let s = r.u8("size")?;
        (PtfLayout::Current { version }, format, s & 0x0F, s >> 4)
    };
    if log_w > MAX_LOG2_SIZE || log_h > MAX_LOG2_SIZE {
        return Err(r.err(
            r.pos() - 1,
            "size",
            format!(
                "{}x{} texels is over the {}x{} cap",
                1u64 << log_w,
                1u64 << log_h,
                1u32 << MAX_LOG2_SIZE,
                1u32 << MAX_LOG2_SIZE
            ),
        ));
    }
    let (width, height) = (1u32 << log_w, 1u32 << log_h);
    let expected = width as usize * height as usize * format.channels();
    let frame_at = r.pos();
    r.magic(&LZ4_FRAME_MAGIC, "LZ4 frame magic")?;
    let pixels = decompress_lz4_frame(data.get(frame_at..).unwrap_or_default(), expected).map_err(
        |msg| DecodeError {
            offset: frame_at as u64,
            field: "texel data (LZ4 frame)".into(),
            kind: ErrorKind::Compression(msg),
        },
    )?;
    Ok(Ptf {
        layout,
        format,
        width,
        height,
        pixels,
    })
}

/// Decompresses an LZ4 frame that must produce exactly `expected` bytes.
/// Output is read incrementally, so memory grows only with real output and
/// never past `expected + 1` bytes, whatever the frame declares.
pub fn decompress_lz4_frame(frame: &[u8], expected: usize) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(expected.min(frame.len().saturating_mul(255)).min(1 << 24));
    lz4_flex::frame::FrameDecoder::new(frame)
        .take(expected as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    if out.len() != expected {
        return Err(format!(
            "produced {} bytes{}, expected {}",
            out.len(),
            if out.len() > expected { " or more" } else { "" },
            expected
        ));
    }
    Ok(out)
}
