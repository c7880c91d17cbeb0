//! Image files (PNG, JPEG, TGA, BMP) as RGBA8 through `image`, within the
//! load's texel budget: a PNG over it is decoded smaller, its rows
//! box-filtered as they stream out of the `png` decoder (the full size is
//! never held); other formats over it are refused naming their size. With
//! headers only, just the size is read.

use crate::formats::ptf::Texels;
/// The box filter decoders stream rows into, for every layer above that
/// reduces texels (the GPU layer fitting device limits).
pub use crate::formats::reduce::{BoxReducer, factor_to_fit};

/// A decoded image.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedImage {
    pub width: u32,
    pub height: u32,
    /// RGBA8, top row first; empty when only the header was read.
    pub rgba8: Vec<u8>,
    /// The size the file declares, when it was decoded smaller to fit.
    pub declared: Option<(u32, u32)>,
}

impl DecodedImage {
    /// `", declared WxH"` when the image was decoded smaller, else nothing.
    pub fn declared_note(&self) -> String {
        self.declared
            .map_or(String::new(), |(w, h)| format!(", declared {w}x{h}"))
    }
}

/// Whether any texel of RGBA8 `rgba8` has an alpha under 255 (a trailing
/// partial texel is not one). A block's texels are ANDed together as
/// words, whose top byte is then the AND of their alphas, 255 only if each
/// is: a loop the compiler runs 16 bytes at a time, where testing texel by
/// texel with an early exit went one at a time (an opaque 256x256 texture,
/// the usual case, was 8% of viper.m3d's conversion).
pub fn any_translucent(rgba8: &[u8]) -> bool {
    rgba8.chunks(4096).any(|block| {
        let all = block.chunks_exact(4).fold(u32::MAX, |all, t| {
            all & u32::from_le_bytes([t[0], t[1], t[2], t[3]])
        });
        all >> 24 != 255
    })
}

/// Decodes `bytes` as `format` as `texels` says.
pub fn decode_image(
    bytes: &[u8],
    format: image::ImageFormat,
    texels: Texels,
) -> Result<DecodedImage, String> {
    let reader = || image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let budget = match texels {
        Texels::HeadersOnly => {
            let (width, height) = reader().into_dimensions().map_err(|e| e.to_string())?;
            return Ok(DecodedImage {
                width,
                height,
                rgba8: Vec::new(),
                declared: None,
            });
        }
        Texels::Within(b) => b,
    };
    if format == image::ImageFormat::Png {
        return png_rgba(bytes, budget);
    }
    // `image`'s limits cover the decoders' own buffers too (rows, inflate
    // windows): a floor of 8 MiB keeps small budgets from refusing small
    // images; the texels themselves are checked against the budget below.
    let floor = 8u64 << 20;
    let mut reader = reader();
    let mut limits = image::Limits::default();
    limits.max_alloc = Some((budget as u64).max(floor));
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(|e| e.to_string())?;
    let (w, h) = image::ImageDecoder::dimensions(&decoder);
    let need = w as u64 * h as u64 * 4;
    if need > budget as u64 {
        if format == image::ImageFormat::Png {
            return png_reduced(bytes, budget);
        }
        return Err(format!(
            "{w}x{h} {format:?} needs {need} bytes of RGBA texels, over the {budget}-byte texel budget"
        ));
    }
    let mut limits = image::Limits::default();
    limits.max_alloc = Some((budget as u64).saturating_mul(2).max(floor));
    image::ImageDecoder::set_limits(&mut decoder, limits).map_err(|e| e.to_string())?;
    let img = image::DynamicImage::from_decoder(decoder)
        .map_err(|e| e.to_string())?
        .to_rgba8();
    Ok(DecodedImage {
        width: img.width(),
        height: img.height(),
        rgba8: img.into_raw(),
        declared: None,
    })
}

/// A PNG as RGBA8, straight from the `png` decoder into the output (the
/// decoder expands palettes, RGB, low bit depths and 16-bit samples to
/// 8-bit RGBA as it writes each row; grey comes out as grey + alpha and is
/// spread to four channels in place), with no image of the file's own layout beside it
/// nor `image`'s generic conversion. Over `budget`, decoded smaller.
fn png_rgba(bytes: &[u8], budget: usize) -> Result<DecodedImage, String> {
    // The decoder's own buffers are a few rows and its inflate window; the
    // texels are checked against the budget below.
    let limits = png::Limits {
        bytes: budget.saturating_mul(2).max(8 << 20),
    };
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
    // ALPHA: palettes and RGB come out as RGBA (opaque where the file has
    // no transparency), grey as grey + alpha.
    decoder.set_transformations(
        png::Transformations::EXPAND | png::Transformations::ALPHA | png::Transformations::STRIP_16,
    );
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let (width, height) = (reader.info().width, reader.info().height);
    let need = width as u64 * height as u64 * 4;
    if need > budget as u64 {
        return png_reduced(bytes, budget);
    }
    let (color, _) = reader.output_color_type();
    let channels = color.samples();
    let pixels = width as usize * height as usize;
    if let Some(e) = unproducible(reader.info(), bytes) {
        return Err(format!("{width}x{height} PNG: {e}"));
    }
    // With ALPHA every layout comes out as RGBA or grey + alpha.
    let grey = match color {
        png::ColorType::Rgba => false,
        png::ColorType::GrayscaleAlpha => true,
        other => {
            return Err(format!(
                "{width}x{height} PNG: {other:?} rows after expansion"
            ));
        }
    };
    let stored = pixels * channels;
    if reader.output_buffer_size() != Some(stored) {
        return Err(format!("{width}x{height} PNG: rows of an unexpected size"));
    }
    let mut rgba8 = vec![0u8; need as usize];
    reader
        .next_frame(&mut rgba8[..stored])
        .map_err(|e| e.to_string())?;
    if grey {
        // From the last pixel down, so that no pixel is overwritten before
        // it is read: pixel i is read at 2 * i and written at 4 * i.
        for i in (0..pixels).rev() {
            let [v, a] = [rgba8[2 * i], rgba8[2 * i + 1]];
            rgba8[4 * i..4 * i + 4].copy_from_slice(&[v, v, v, a]);
        }
    }
    Ok(DecodedImage {
        width,
        height,
        rgba8,
        declared: None,
    })
}

/// Why the rows `info` declares cannot come out of `bytes`, if they cannot.
/// Deflate inflates at most about 1032:1: a short file declaring a large
/// image cannot fill it, and is refused before anything is allocated for
/// its size. What it must inflate to is the rows as the file stores them
/// (its own colour type and bit depth, a filter byte each), not as they
/// come out expanded: a one-colour 8192x8192 RGB PNG of 210 KB is 201 MB
/// of rows (960:1) and 268 MB of RGBA.
fn unproducible(info: &png::Info, bytes: &[u8]) -> Option<String> {
    let rows = (info.raw_row_length() as u64).saturating_mul(info.height as u64);
    (rows > (bytes.len() as u64).saturating_mul(1032)).then(|| {
        format!(
            "{rows} bytes of rows cannot come out of a {}-byte file",
            bytes.len()
        )
    })
}

/// The largest side a PNG over the texel budget is reduced to. The
/// reducer keeps a row of sums (8 bytes a channel) as wide as its output,
/// so an image a few texels high and 2^31 wide would need gigabytes of them
/// even when its output fits the budget; PTF (2^15) and Papa (2^16 - 1)
/// textures cannot be wider than this, and no GPU samples a texture as wide
/// (the upload reduces to the device's limit in any case).
pub const MAX_REDUCED_SIDE: u32 = 1 << 16;

/// A PNG over `budget` bytes of RGBA, decoded at the largest power-of-two
/// reduction that fits: rows come out of the decoder one at a time (palette
/// and low bit depths expanded, 16-bit stripped to 8) and are box-filtered
/// into the output. Interlaced PNGs deliver their rows in seven passes and
/// are refused instead.
fn png_reduced(bytes: &[u8], budget: usize) -> Result<DecodedImage, String> {
    // The decoder's own buffers are a few rows and its inflate window.
    let limits = png::Limits {
        bytes: budget.max(8 << 20),
    };
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let info = reader.info();
    let (width, height) = (info.width, info.height);
    if info.interlaced {
        return Err(format!(
            "{width}x{height} interlaced PNG needs {} bytes of RGBA texels, over the \
             {budget}-byte texel budget (interlaced PNGs are not decoded smaller)",
            width as u64 * height as u64 * 4
        ));
    }
    let f = factor_to_fit(width, height, 4, budget, MAX_REDUCED_SIDE).ok_or_else(|| {
        format!(
            "{width}x{height} PNG does not fit the {budget}-byte texel budget even as one texel"
        )
    })?;
    let over = format!("over the {budget}-byte texel budget, decoded {f} times smaller");
    if let Some(e) = unproducible(info, bytes) {
        return Err(format!("{width}x{height} PNG ({over}): {e}"));
    }
    let (color, _) = reader.output_color_type();
    let to_rgba = |px: &[u8]| -> [u8; 4] {
        match color {
            png::ColorType::Grayscale => [px[0], px[0], px[0], 255],
            png::ColorType::GrayscaleAlpha => [px[0], px[0], px[0], px[1]],
            png::ColorType::Rgb => [px[0], px[1], px[2], 255],
            // Indexed is expanded to RGB(A) by EXPAND.
            png::ColorType::Rgba | png::ColorType::Indexed => [px[0], px[1], px[2], px[3]],
        }
    };
    let channels = color.samples();
    // Grown as rows arrive: at deflate's best ratio (about 1032:1) a short
    // file cannot make the output reserve more than its rows could fill.
    let producible = bytes.len().saturating_mul(1032) / (f as usize * f as usize);
    let mut reducer = BoxReducer::new(width as usize, height as usize, 4, f as usize, producible);
    let row_error =
        |y: usize, e: png::DecodingError| format!("{width}x{height} PNG ({over}): row {y}: {e}");
    // Each row is converted to RGBA a run of texels at a time: a row as
    // wide as a PNG may declare (2^31 - 1) is never held expanded.
    const RUN: usize = 1024;
    let mut run = [0u8; 4 * RUN];
    while let Some(row) = reader
        .next_row()
        .map_err(|e| row_error(reducer.rows_seen(), e))?
    {
        for px in row.data().chunks(channels * RUN) {
            let n = px.len() / channels;
            for (out, px) in run.chunks_exact_mut(4).zip(px.chunks_exact(channels)) {
                out.copy_from_slice(&to_rgba(px));
            }
            reducer.push_texels(&run[..4 * n]);
        }
        reducer.end_row();
    }
    if reducer.rows_seen() != height as usize {
        return Err(format!(
            "{width}x{height} PNG ({over}) ends after {} rows",
            reducer.rows_seen()
        ));
    }
    let (w, h) = reducer.output_size();
    Ok(DecodedImage {
        width: w as u32,
        height: h as u32,
        rgba8: reducer.finish(),
        declared: Some((width, height)),
    })
}

/// The warning for a texture decoded smaller than its file declares.
pub fn reduced_warning(name: &str, what: &str, declared: (u32, u32), got: (u32, u32)) -> String {
    format!(
        "texture {name:?}: declares {}x{} {what}; decoded at {}x{} to stay within the texel budget",
        declared.0, declared.1, got.0, got.1
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_translucent_texel_is_found_wherever_it_is() {
        // Texel by texel is the reference. Opaque images of sizes around
        // the 4096-byte blocks (some with a partial texel at the end, whose
        // bytes are never an alpha), then each byte in turn set to 254, 128
        // or 0: an alpha byte makes its texel translucent, a colour byte
        // must not.
        let reference = |rgba8: &[u8]| rgba8.chunks_exact(4).any(|t| t[3] < 255);
        for len in [0, 3, 4, 8, 4092, 4096, 4100, 8192 + 2, 12288 + 4] {
            let mut rgba8 = vec![255u8; len];
            assert!(!super::any_translucent(&rgba8), "{len} opaque bytes");
            for byte in 0..len {
                for v in [254, 128, 0] {
                    rgba8[byte] = v;
                    assert_eq!(
                        super::any_translucent(&rgba8),
                        reference(&rgba8),
                        "{len} bytes, byte {byte} = {v}"
                    );
                }
                rgba8[byte] = 255;
            }
        }
    }
}
