//! Offscreen render targets and readback to an RGBA image (headless `render`,
//! thumbnails, image tests, screenshots).

use super::renderer::DEPTH_FORMAT;
use super::{FrameStats, Gpu, GpuScene, OrbitCamera, Renderer, ViewOptions};

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
                    store: wgpu::StoreOp::Store,
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

/// An offscreen colour target of the renderer's format with its depth and
/// multisample targets, and the frame's uniforms written for `camera`.
fn offscreen(
    gpu: &Gpu,
    renderer: &Renderer,
    camera: &OrbitCamera,
    opts: &ViewOptions,
    (width, height): (u32, u32),
    usage: wgpu::TextureUsages,
) -> (wgpu::Texture, wgpu::TextureView, Targets) {
    let output = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("offscreen frame"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: renderer.color_format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | usage,
        view_formats: &[],
    });
    let view = output.create_view(&wgpu::TextureViewDescriptor::default());
    let targets = Targets::new(
        &gpu.device,
        width,
        height,
        renderer.color_format,
        renderer.sample_count,
    );
    renderer.prepare(
        &gpu.queue,
        camera,
        width as f32 / height as f32,
        opts.lighting,
    );
    (output, view, targets)
}

/// Renders `scene` from `camera` into a `width` x `height` RGBA8 (sRGB) image.
pub fn render_to_image(
    gpu: &Gpu,
    renderer: &Renderer,
    scene: &GpuScene,
    camera: &OrbitCamera,
    opts: &ViewOptions,
    width: u32,
    height: u32,
) -> (image::RgbaImage, FrameStats) {
    let device = &gpu.device;
    let (output, view, targets) = offscreen(
        gpu,
        renderer,
        camera,
        opts,
        (width, height),
        wgpu::TextureUsages::COPY_SRC,
    );
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("capture"),
    });
    let stats = {
        let mut pass = targets.begin_pass(&mut encoder, &view, opts.background);
        renderer.draw(&mut pass, scene, opts)
    };
    let image = read_texture(gpu, encoder, &output, width, height);
    (image, stats)
}

/// Copies a 4-byte-per-texel texture to the CPU (finishing `encoder`).
pub fn read_texture(
    gpu: &Gpu,
    mut encoder: wgpu::CommandEncoder,
    texture: &wgpu::Texture,
    width: u32,
    height: u32,
) -> image::RgbaImage {
    let unpadded = width * 4;
    let padded =
        unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: (padded * height) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
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
    gpu.queue.submit([encoder.finish()]);
    let slice = buffer.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| {
        r.expect("mapping the readback buffer")
    });
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("waiting for the GPU");
    let data = slice.get_mapped_range().expect("mapped readback");
    let mut pixels = Vec::with_capacity((unpadded * height) as usize);
    for row in data.chunks(padded as usize).take(height as usize) {
        pixels.extend_from_slice(&row[..unpadded as usize]);
    }
    drop(data);
    buffer.unmap();
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
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("readback"),
        });
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
    gpu.queue.submit([encoder.finish()]);
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| {
        r.expect("mapping the readback buffer")
    });
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("waiting for the GPU");
    let data = slice.get_mapped_range().expect("mapped readback").to_vec();
    staging.unmap();
    data
}

/// Renders `frames` frames offscreen (targets made once) and returns each
/// frame's wall time in ms, submit to GPU idle, sorted; and the last
/// frame's stats. For benchmarks.
#[allow(clippy::too_many_arguments)]
pub fn time_frames(
    gpu: &Gpu,
    renderer: &Renderer,
    scene: &GpuScene,
    camera: &OrbitCamera,
    opts: &ViewOptions,
    width: u32,
    height: u32,
    frames: u32,
) -> (Vec<f64>, FrameStats) {
    let device = &gpu.device;
    let (_output, view, targets) = offscreen(
        gpu,
        renderer,
        camera,
        opts,
        (width, height),
        wgpu::TextureUsages::empty(),
    );
    let mut stats = FrameStats::default();
    let mut times = Vec::with_capacity(frames as usize);
    for i in 0..=frames {
        let t = std::time::Instant::now();
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = targets.begin_pass(&mut encoder, &view, opts.background);
            stats = renderer.draw(&mut pass, scene, opts);
        }
        gpu.queue.submit([encoder.finish()]);
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        if i > 0 {
            times.push(t.elapsed().as_secs_f64() * 1e3); // frame 0 warms up
        }
    }
    times.sort_by(f64::total_cmp);
    (times, stats)
}
