//! Render targets (colour, multisample, depth) and reading GPU memory back
//! to the CPU (images for `render`, thumbnails, screenshots and tests;
//! buffers for compute tests).

use super::Gpu;
use super::renderer::DEPTH_FORMAT;

pub const CAPTURE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// Colour (multisampled when `sample_count > 1`) and depth targets of one size.
pub struct Targets {
    pub width: u32,
    pub height: u32,
    pub msaa: Option<wgpu::TextureView>,
    pub depth: wgpu::TextureView,
}

impl Targets {
    pub fn new(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        format: wgpu::TextureFormat,
        sample_count: u32,
    ) -> Targets {
        let size = wgpu::Extent3d {
            width: width.max(1),
            height: height.max(1),
            depth_or_array_layers: 1,
        };
        let make = |label, format, samples| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size,
                    mip_level_count: 1,
                    sample_count: samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor::default())
        };
        Targets {
            width,
            height,
            msaa: (sample_count > 1).then(|| make("msaa colour", format, sample_count)),
            depth: make("depth", DEPTH_FORMAT, sample_count),
        }
    }

    /// Begins the 3D pass that clears and ends resolved into `output`.
    pub fn begin_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        output: &wgpu::TextureView,
        clear: [f64; 4],
    ) -> wgpu::RenderPass<'e> {
        let (view, resolve) = match &self.msaa {
            Some(m) => (m, Some(output)),
            None => (output, None),
        };
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: resolve,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: clear[0],
                        g: clear[1],
                        b: clear[2],
                        a: clear[3],
                    }),
                    // A multisampled target is only read by its resolve
                    // at the end of this pass: its samples need not be
                    // written out.
                    store: if resolve.is_some() {
                        wgpu::StoreOp::Discard
                    } else {
                        wgpu::StoreOp::Store
                    },
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        })
    }
}

/// Copies a 4-byte-per-texel texture to the CPU (finishing `encoder`, which
/// may hold the commands that draw it). BGRA textures come back as RGBA.
pub fn read_texture(
    gpu: &Gpu,
    encoder: wgpu::CommandEncoder,
    texture: &wgpu::Texture,
    width: u32,
    height: u32,
) -> image::RgbaImage {
    let unpadded = width * 4;
    let padded =
        unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let copy = |encoder: &mut wgpu::CommandEncoder, buffer: &wgpu::Buffer| {
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
    };
    // The rows copied once, straight out of the mapped buffer, without
    // their padding (a 512-pixel thumbnail's 1 MB was copied twice).
    let pixels = readback(gpu, encoder, (padded * height) as u64, copy, |data| {
        let mut pixels = Vec::with_capacity((unpadded * height) as usize);
        for row in data.chunks(padded as usize).take(height as usize) {
            pixels.extend_from_slice(&row[..unpadded as usize]);
        }
        pixels
    });
    let mut img = image::RgbaImage::from_raw(width, height, pixels).expect("size matches");
    if matches!(
        texture.format(),
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    ) {
        for p in img.pixels_mut() {
            p.0.swap(0, 2);
        }
    }
    img
}

/// Copies `size` bytes from the start of `buffer` (which needs `COPY_SRC`)
/// to the CPU.
pub fn read_buffer(gpu: &Gpu, buffer: &wgpu::Buffer, size: u64) -> Vec<u8> {
    let encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("readback"),
        });
    readback(
        gpu,
        encoder,
        size,
        |encoder, staging| encoder.copy_buffer_to_buffer(buffer, 0, staging, 0, size),
        <[u8]>::to_vec,
    )
}

/// The one readback: `copy` records a copy of `size` bytes into a mappable
/// staging buffer at the end of `encoder`; the encoder is submitted, the
/// device waited on, and `read` given the mapped bytes.
fn readback<T>(
    gpu: &Gpu,
    mut encoder: wgpu::CommandEncoder,
    size: u64,
    copy: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
    read: impl FnOnce(&[u8]) -> T,
) -> T {
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    copy(&mut encoder, &staging);
    gpu.queue.submit([encoder.finish()]);
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| {
        r.expect("mapping the readback buffer")
    });
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("waiting for the GPU");
    let data = read(&slice.get_mapped_range().expect("mapped readback"));
    staging.unmap();
    data
}

/// The formats a captured image is saved in, by the file's extension (the
/// `image` crate's encoders this build has); PNG where the name has none.
pub const SAVE_EXTENSIONS: &str = ".png, .jpg/.jpeg, .webp, .bmp or .tga";

/// The format `path`'s extension names, where a captured image can be
/// saved in it (PNG for a name with no extension: `/dev/null`,
/// `/dev/stdout`): checked before anything is drawn, so that a name the
/// encoders cannot write is refused up front, not after the render (and
/// without leaving an empty file behind, as a JPEG encoder given RGBA did).
pub fn save_format(path: &std::path::Path) -> Result<image::ImageFormat, String> {
    use image::ImageFormat::*;
    let Some(ext) = path.extension() else {
        return Ok(Png);
    };
    match image::ImageFormat::from_extension(ext) {
        Some(f @ (Png | Jpeg | WebP | Bmp | Tga)) if f.writing_enabled() => Ok(f),
        _ => Err(format!(
            "{}: an image is saved as {SAVE_EXTENSIONS}, by the name's extension",
            path.display()
        )),
    }
}

/// JPEG's quality for a saved image: the encoder's default (75) blurred a
/// small render's edges by a mean of 5.5 of 255 a channel.
const JPEG_QUALITY: u8 = 92;

/// Saves a captured image in the format its path names ([`save_format`]):
/// JPEG without its alpha (the colours as drawn), the others as RGBA.
pub fn save(img: &image::RgbaImage, path: &std::path::Path) -> Result<(), String> {
    let format = save_format(path)?;
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    if format != image::ImageFormat::Jpeg {
        return img.save_with_format(path, format).map_err(|e| fail(&e));
    }
    let rgb: image::RgbImage = image::buffer::ConvertBuffer::convert(img);
    let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let mut out = std::io::BufWriter::new(file);
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY)
        .encode_image(&rgb)
        .map_err(|e| fail(&e))?;
    std::io::Write::flush(&mut out).map_err(|e| fail(&e))
}
