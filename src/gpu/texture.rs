//! Textures: file colour maps (RGBA8 or BC as stored) uploaded one by one,
//! fitted to the device's limits.

use wgpu::util::DeviceExt;

pub struct GpuTexture {
    pub texture: wgpu::Texture,
    /// sRGB view sampled by the mesh pass.
    pub view: wgpu::TextureView,
    /// Plain-unorm view of the same bytes, for egui previews.
    pub ui_view: wgpu::TextureView,
}

/// BC1-3 data as stored, every mip level (the adapter samples them).
pub fn upload_compressed(
    gpu: &super::Gpu,
    t: &crate::scene::Texture,
    c: &crate::scene::Compressed,
) -> GpuTexture {
    use crate::scene::BcFormat;
    use wgpu::TextureFormat as F;
    let max = gpu.device.limits().max_texture_dimension_2d;
    if t.width > max || t.height > max || c.levels.is_empty() {
        // `limits::fit_texture` trims the levels first; uploaded alone, the
        // decoded base level is fitted instead.
        return upload_texture_as(gpu, &t.name, t.width, t.height, &t.pixels(), t.srgb);
    }
    let (format, plain, block) = match (c.format, t.srgb) {
        (BcFormat::Bc1, true) => (F::Bc1RgbaUnormSrgb, F::Bc1RgbaUnorm, 8),
        (BcFormat::Bc1, false) => (F::Bc1RgbaUnorm, F::Bc1RgbaUnorm, 8),
        (BcFormat::Bc2, true) => (F::Bc2RgbaUnormSrgb, F::Bc2RgbaUnorm, 16),
        (BcFormat::Bc2, false) => (F::Bc2RgbaUnorm, F::Bc2RgbaUnorm, 16),
        (BcFormat::Bc3, true) => (F::Bc3RgbaUnormSrgb, F::Bc3RgbaUnorm, 16),
        (BcFormat::Bc3, false) => (F::Bc3RgbaUnorm, F::Bc3RgbaUnorm, 16),
    };
    let create = |format: F, view_formats: &[F]| {
        let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some(&t.name),
            size: wgpu::Extent3d {
                width: t.width,
                height: t.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: c.levels.len().max(1) as u32,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats,
        });
        for (level, data) in c.levels.iter().enumerate() {
            let (w, h) = ((t.width >> level).max(1), (t.height >> level).max(1));
            gpu.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: level as u32,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                data,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(w.div_ceil(4) * block),
                    rows_per_image: Some(h.div_ceil(4)),
                },
                wgpu::Extent3d {
                    width: w.div_ceil(4) * 4,
                    height: h.div_ceil(4) * 4,
                    depth_or_array_layers: 1,
                },
            );
        }
        texture
    };
    with_ui_view(gpu, format, plain, create)
}

/// An sRGB texture array of RGBA8 layers, `width` x `height` each, from
/// `rgba8` layer after layer, and its array view. At least two layers: GL
/// takes a one-layer texture for a plain 2D one, which an array binding
/// cannot sample, so a single layer is stored twice.
pub fn upload_layers(
    gpu: &super::Gpu,
    label: &str,
    width: u32,
    height: u32,
    rgba8: &[u8],
) -> (wgpu::Texture, wgpu::TextureView) {
    let layer = (width as usize * height as usize * 4).max(1);
    debug_assert!(rgba8.len() >= layer && rgba8.len().is_multiple_of(layer));
    let twice;
    let (data, layers) = match rgba8.len() / layer {
        1 => {
            twice = [rgba8, rgba8].concat();
            (&twice[..], 2)
        }
        n => (rgba8, n as u32),
    };
    let texture = gpu.device.create_texture_with_data(
        &gpu.queue,
        &wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: layers,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        data,
    );
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    (texture, view)
}

/// An sRGB colour texture.
pub fn upload_texture(
    gpu: &super::Gpu,
    name: &str,
    width: u32,
    height: u32,
    rgba8: &[u8],
) -> GpuTexture {
    upload_texture_as(gpu, name, width, height, rgba8, true)
}

/// A texture sampled as sRGB colour (`srgb`) or as stored data. Sides over
/// the device's limit are box-filtered down first (with a log line; scene
/// uploads say so in their warnings), and texels that cannot back the size
/// become one magenta texel: no file makes texture creation fail.
pub fn upload_texture_as(
    gpu: &super::Gpu,
    name: &str,
    width: u32,
    height: u32,
    rgba8: &[u8],
    srgb: bool,
) -> GpuTexture {
    let max = gpu.device.limits().max_texture_dimension_2d;
    let needed = (width as u64) * (height as u64) * 4;
    if width == 0 || height == 0 || (rgba8.len() as u64) < needed {
        log::warn!(
            "texture {name:?}: {width}x{height} with {} bytes of texels; shown as one magenta texel",
            rgba8.len()
        );
        return upload_texture_as(gpu, name, 1, 1, &[255, 0, 255, 255], srgb);
    }
    if width > max || height > max {
        let (w, h, px) = super::limits::fit_rgba(width, height, &rgba8[..needed as usize], max);
        log::warn!(
            "{}",
            super::limits::note(name, (width, height), (w, h), max, "downscaled to")
        );
        return upload_texture_as(gpu, name, w, h, &px, srgb);
    }
    let format = if srgb {
        wgpu::TextureFormat::Rgba8UnormSrgb
    } else {
        wgpu::TextureFormat::Rgba8Unorm
    };
    let create = |format, view_formats: &[wgpu::TextureFormat]| {
        gpu.device.create_texture_with_data(
            &gpu.queue,
            &wgpu::TextureDescriptor {
                label: Some(name),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats,
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            rgba8,
        )
    };
    with_ui_view(gpu, format, wgpu::TextureFormat::Rgba8Unorm, create)
}

/// The texture `create` makes in `format`, and its egui preview's view in
/// `plain` (egui samples stored colour, not sRGB): a view of the same
/// texels where views may have another format than their texture (Vulkan,
/// Metal, D3D12); on GL, the fallback where there is no Vulkan driver and
/// which refuses a texture that asks for such views, a second texture
/// made in `plain` from the same data.
fn with_ui_view(
    gpu: &super::Gpu,
    format: wgpu::TextureFormat,
    plain: wgpu::TextureFormat,
    create: impl Fn(wgpu::TextureFormat, &[wgpu::TextureFormat]) -> wgpu::Texture,
) -> GpuTexture {
    let reformat = format == plain
        || gpu
            .adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::VIEW_FORMATS);
    let view_formats = if reformat && format != plain {
        std::slice::from_ref(&plain)
    } else {
        &[]
    };
    let texture = create(format, view_formats);
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    let ui_view = if reformat {
        texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(plain),
            ..Default::default()
        })
    } else {
        create(plain, &[]).create_view(&wgpu::TextureViewDescriptor::default())
    };
    GpuTexture {
        texture,
        view,
        ui_view,
    }
}
