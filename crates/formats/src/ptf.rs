//! PTF (PlatinumSrc texture) decoder.
//!
//! Three generations exist (see `docs/formats.md` and `notes/platinumsrc.md`):
//! - 2024 (`specs/ptf-2024.txt`): `PTF`, u8 revision, u8 (bit 4 has alpha, low
//!   nibble log2 of a square size), LZ4 frame of RGB or RGBA;
//! - 2025 (`specs/ptf-2025.txt`): `PTF`, u8 version, u8 flags (bit 0 has
//!   alpha), u8 size (high nibble log2 height, low nibble log2 width), LZ4
//!   frame of RGB or RGBA (`channels = (flags & 1) + 3`, as the engine reads);
//! - current (`specs/ptf.txt`): `PTF`, u8 version, u8 format (low 2 bits: I,
//!   IA, RGB, RGBA), the same size byte and LZ4 frame.
//!
//! The LZ4 frame magic at offset 5 marks the 2024 form. With the magic at 6,
//! a format byte of 2 or 3 can only be the current form; for 0 and 1 the two
//! later forms differ only in channel count, so the inflated length decides:
//! exactly one of `w·h·(b+3)` (2025) and `w·h·(b+1)` (current) must match.

use super::{DecodeError, ErrorKind, Reader, Result};
use std::io::Read;

/// LZ4 frame magic number, little endian.
pub const LZ4_FRAME_MAGIC: [u8; 4] = [0x04, 0x22, 0x4D, 0x18];

/// Decoded texel bytes a texture may take by default (1 GiB); a texture
/// that needs more is decoded at the largest halving that fits, its rows
/// box-filtered as they stream out of the LZ4 frame.
pub const DEFAULT_TEXEL_BUDGET: usize = 1 << 30;

/// How much of a texture's texel data a decode produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Texels {
    /// The texels, at most this many bytes of them: a texture that needs
    /// more is decoded at the largest halving that fits.
    Within(usize),
    /// The header only: size, format and generation, no texels (`pixels`
    /// empty). For reports (`info`) that print what a file declares.
    HeadersOnly,
}

impl Texels {
    /// The bytes of texels this mode may produce (0 for headers only).
    pub fn budget(self) -> usize {
        match self {
            Texels::Within(b) => b,
            Texels::HeadersOnly => 0,
        }
    }

    /// This mode with `used` bytes of its budget spent.
    pub fn spent(self, used: usize) -> Texels {
        match self {
            Texels::Within(b) => Texels::Within(b.saturating_sub(used)),
            Texels::HeadersOnly => Texels::HeadersOnly,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtfLayout {
    /// `specs/ptf.txt`; the byte is the major version.
    Current { version: u8 },
    /// `specs/ptf-2025.txt` (March to December 2025); the byte is the major version.
    Y2025 { version: u8 },
    /// `specs/ptf-2024.txt`; the byte is the revision.
    Rev2024 { revision: u8 },
}

impl PtfLayout {
    /// The generation's name as `info` and the inspector show it.
    pub fn describe(self) -> String {
        match self {
            PtfLayout::Current { version } => format!("current (specs/ptf.txt, version {version})"),
            PtfLayout::Y2025 { version } => format!("2025 (specs/ptf-2025.txt, version {version})"),
            PtfLayout::Rev2024 { revision } => {
                format!("2024 (specs/ptf-2024.txt, revision {revision})")
            }
        }
    }

    /// Short name for JSON: `"2024"`, `"2025"` or `"current"`.
    pub fn generation(self) -> &'static str {
        match self {
            PtfLayout::Current { .. } => "current",
            PtfLayout::Y2025 { .. } => "2025",
            PtfLayout::Rev2024 { .. } => "2024",
        }
    }
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
    /// The size the file declares when it was decoded smaller to fit the
    /// texel budget (`None`: decoded at full size).
    pub reduced_from: Option<(u32, u32)>,
}

impl Ptf {
    /// Expands the texels to RGBA8 (I -> grey, IA -> grey + alpha).
    pub fn to_rgba8(&self) -> Vec<u8> {
        expand_rgba8(self.format, &self.pixels)
    }
}

/// `pixels` of `format` expanded to RGBA8 (I -> grey, IA -> grey + alpha).
pub fn expand_rgba8(format: PtfFormat, pixels: &[u8]) -> Vec<u8> {
    let c = format.channels();
    let n = pixels.len() / c;
    // One loop per format over fixed-size chunks, written into a buffer of
    // the final size: no per-texel format test or capacity check, so the
    // compiler vectorises each (demo.p3m's PTFs: a fifth of its load before).
    let mut out = vec![0u8; 4 * n];
    let texels = out.chunks_exact_mut(4);
    match format {
        PtfFormat::I => {
            for (o, &v) in texels.zip(pixels) {
                o.copy_from_slice(&[v, v, v, 255]);
            }
        }
        PtfFormat::Ia => {
            for (o, p) in texels.zip(pixels.chunks_exact(2)) {
                o.copy_from_slice(&[p[0], p[0], p[0], p[1]]);
            }
        }
        PtfFormat::Rgb => {
            for (o, p) in texels.zip(pixels.chunks_exact(3)) {
                o.copy_from_slice(&[p[0], p[1], p[2], 255]);
            }
        }
        PtfFormat::Rgba => out.copy_from_slice(&pixels[..4 * n]),
    }
    out
}

/// Decodes within [`DEFAULT_TEXEL_BUDGET`].
pub fn decode(data: &[u8]) -> Result<Ptf> {
    decode_within(data, DEFAULT_TEXEL_BUDGET)
}

/// Decodes with at most `budget` bytes of texels: a texture that needs more
/// is decoded at the largest power-of-two reduction that fits (each output
/// texel the mean of the block it covers), without ever holding the full
/// size; `reduced_from` then says what the file declared.
pub fn decode_within(data: &[u8], budget: usize) -> Result<Ptf> {
    decode_with(data, Texels::Within(budget))
}

/// Decodes as `texels` says: within a budget, or the header alone. A header
/// alone inflates nothing, except for format bytes 0 and 1 whose generation
/// only the inflated length tells: that is counted as the frame streams
/// (the frame's content size is used where it declares one).
pub fn decode_with(data: &[u8], texels: Texels) -> Result<Ptf> {
    let mut r = Reader::new(data);
    r.magic(b"PTF", "magic")?;
    if data.get(5..9) == Some(&LZ4_FRAME_MAGIC[..]) {
        decode_2024(r, data, texels)
    } else {
        decode_sized(r, data, texels)
    }
}

/// The 2024 form: a 5-byte header, square RGB or RGBA.
fn decode_2024(mut r: Reader, data: &[u8], texels: Texels) -> Result<Ptf> {
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
    let side = 1u32 << log;
    let frame_at = r.pos();
    r.magic(&LZ4_FRAME_MAGIC, "LZ4 frame magic")?;
    let layout = PtfLayout::Rev2024 { revision };
    decode_texels(&data[frame_at..], layout, format, side, side, texels)
        .map_err(|m| texel_error(frame_at, m))
}

/// The 2025 and current forms: a 6-byte header with a width/height byte.
fn decode_sized(mut r: Reader, data: &[u8], texels: Texels) -> Result<Ptf> {
    let version = r.u8("version")?;
    let at = r.pos();
    let b = r.u8("format")?;
    if b & 0xFC != 0 {
        return Err(r.err(at, "format", format!("reserved bits set in {b:#04X}")));
    }
    let s = r.u8("size")?;
    let (log_w, log_h) = (s & 0x0F, s >> 4);
    let (width, height) = (1u32 << log_w, 1u32 << log_h);
    let texel_count = width as usize * height as usize;
    let frame_at = r.pos();
    r.magic(&LZ4_FRAME_MAGIC, "LZ4 frame magic")?;
    let frame = &data[frame_at..];
    let err = |m| texel_error(frame_at, m);
    let current = [PtfFormat::I, PtfFormat::Ia, PtfFormat::Rgb, PtfFormat::Rgba][b as usize];
    if b >= 2 {
        // RGB and RGBA as 2 and 3 exist only in the current form.
        let layout = PtfLayout::Current { version };
        return decode_texels(frame, layout, current, width, height, texels).map_err(err);
    }
    // 0 and 1: the 2025 form's RGB/RGBA (`(flags & 1) + 3` channels) or the
    // current form's I/IA; the inflated length tells which. It is counted
    // as the frame streams (nothing kept) when the texels are over budget.
    let y2025 = [PtfFormat::Rgb, PtfFormat::Rgba][b as usize];
    let (big, small) = (
        texel_count * y2025.channels(),
        texel_count * current.channels(),
    );
    let declared = (texels == Texels::HeadersOnly)
        .then(|| frame_content_size(frame))
        .flatten();
    let (len, whole) = if let Some(n) = declared {
        (usize::try_from(n).unwrap_or(usize::MAX), None)
    } else if big <= texels.budget() {
        let px = inflate_capped(frame, big).map_err(err)?;
        (px.len(), Some(px))
    } else {
        let n = std::io::copy(
            &mut lz4_flex::frame::FrameDecoder::new(frame).take(big as u64 + 1),
            &mut std::io::sink(),
        )
        .map_err(|e| err(e.to_string()))?;
        (n as usize, None)
    };
    let (layout, format) = if len == big {
        (PtfLayout::Y2025 { version }, y2025)
    } else if len == small {
        (PtfLayout::Current { version }, current)
    } else {
        return Err(err(format!(
            "produced {len} bytes{}; {width}x{height} texels need {big} as the 2025 form \
             ({}) or {small} as the current form ({})",
            if len > big { " or more" } else { "" },
            y2025.name(),
            current.name(),
        )));
    };
    match whole {
        Some(pixels) => Ok(Ptf {
            layout,
            format,
            width,
            height,
            pixels,
            reduced_from: None,
        }),
        None => decode_texels(frame, layout, format, width, height, texels).map_err(err),
    }
}

/// The content size an LZ4 frame declares in its descriptor, when it does
/// (FLG bit 3; the u64 follows FLG and BD).
fn frame_content_size(frame: &[u8]) -> Option<u64> {
    let flg = *frame.get(4)?;
    (flg & 0x08 != 0).then(|| {
        let b: [u8; 8] = frame.get(6..14)?.try_into().ok()?;
        Some(u64::from_le_bytes(b))
    })?
}

/// The texels of a `width` x `height` frame in `format`, reduced by halves
/// until they fit the budget; none for headers only.
fn decode_texels(
    frame: &[u8],
    layout: PtfLayout,
    format: PtfFormat,
    width: u32,
    height: u32,
    texels: Texels,
) -> std::result::Result<Ptf, String> {
    let budget = match texels {
        Texels::Within(b) => b,
        Texels::HeadersOnly => {
            return Ok(Ptf {
                layout,
                format,
                width,
                height,
                pixels: Vec::new(),
                reduced_from: None,
            });
        }
    };
    let c = format.channels();
    let full = width as usize * height as usize * c;
    if full <= budget {
        return Ok(Ptf {
            layout,
            format,
            width,
            height,
            pixels: decompress_lz4_frame(frame, full)?,
            reduced_from: None,
        });
    }
    let Some(f) = super::reduce::factor_to_fit(width, height, c, budget, u32::MAX) else {
        return Err(format!(
            "{width}x{height} {} texels do not fit the {budget}-byte texel budget even as one texel",
            format.name()
        ));
    };
    let (w, h) = (width.div_ceil(f), height.div_ceil(f));
    Ok(Ptf {
        layout,
        format,
        width: w,
        height: h,
        pixels: inflate_reduced(frame, width as usize, height as usize, c, f as usize)?,
        reduced_from: Some((width, height)),
    })
}

/// Inflates a frame of `w` x `h` texels of `c` bytes row by row, keeping
/// only the means of `f` x `f` blocks: memory is one row, one row of sums
/// and the output. The frame must hold exactly `w·h·c` bytes.
fn inflate_reduced(
    frame: &[u8],
    w: usize,
    h: usize,
    c: usize,
    f: usize,
) -> std::result::Result<Vec<u8>, String> {
    let mut dec = lz4_flex::frame::FrameDecoder::new(frame);
    let mut row = vec![0u8; w * c];
    // What the frame could produce at LZ4's best ratio, reduced: a short
    // hostile frame reserves little.
    let producible = frame.len().saturating_mul(255) / (f * f) + w.div_ceil(f) * c;
    let mut reducer = super::reduce::BoxReducer::new(w, h, c, f, producible);
    for y in 0..h {
        dec.read_exact(&mut row).map_err(|e| {
            format!(
                "row {y} of {h}: {e} (the frame ends before {} bytes)",
                w * h * c
            )
        })?;
        reducer.push_row(&row);
    }
    let mut extra = [0u8; 1];
    if dec.read(&mut extra).map_err(|e| e.to_string())? != 0 {
        return Err(format!(
            "produced more than the {} bytes expected",
            w * h * c
        ));
    }
    Ok(reducer.finish())
}

fn texel_error(frame_at: usize, msg: String) -> DecodeError {
    DecodeError {
        offset: frame_at as u64,
        field: "texel data (LZ4 frame)".into(),
        kind: ErrorKind::Compression(msg),
    }
}

/// Inflates an LZ4 frame, reading at most `cap + 1` bytes of output (so a
/// frame longer than `cap` is seen as such without inflating it whole).
fn inflate_capped(frame: &[u8], cap: usize) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(cap.min(frame.len().saturating_mul(255)).min(1 << 24));
    lz4_flex::frame::FrameDecoder::new(frame)
        .take(cap as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

/// Decompresses an LZ4 frame that must produce exactly `expected` bytes.
/// Output is read incrementally, so memory grows only with real output and
/// never past `expected + 1` bytes, whatever the frame declares.
pub fn decompress_lz4_frame(frame: &[u8], expected: usize) -> std::result::Result<Vec<u8>, String> {
    let out = inflate_capped(frame, expected)?;
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
