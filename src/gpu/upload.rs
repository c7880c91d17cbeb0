//! Scene -> GPU buffers and textures, uploaded once per loaded scene. Overlay
//! geometry (wireframe edges, normals, bounds, grid) is built here too, so a
//! frame only selects ranges to draw.

use super::renderer::Renderer;
use crate::scene::{Aabb, BlendMode, Scene};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use std::collections::HashSet;
use std::ops::Range;
use wgpu::util::DeviceExt;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct MeshVertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct LineVertex {
    pub position: [f32; 3],
    pub color: [u8; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct MaterialUniform {
    pub base_color: [f32; 4],
    pub emission: [f32; 4],
    pub params: [f32; 4],
    pub uv_offset: [f32; 4],
}

pub struct GpuMesh {
    pub vertices: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub index_count: u32,
    /// Index into `GpuScene::materials` (the last one is the default).
    pub material: usize,
    pub wire: Range<u32>,
    pub normals: Range<u32>,
    pub bounds: Range<u32>,
}

pub struct GpuMaterial {
    pub bind_group: wgpu::BindGroup,
    pub additive: bool,
}

pub struct GpuTexture {
    pub texture: wgpu::Texture,
    /// sRGB view sampled by the mesh pass.
    pub view: wgpu::TextureView,
    /// Plain-unorm view of the same bytes, for egui previews.
    pub ui_view: wgpu::TextureView,
}

pub struct GpuScene {
    pub meshes: Vec<GpuMesh>,
    pub materials: Vec<GpuMaterial>,
    pub textures: Vec<GpuTexture>,
    pub lines: wgpu::Buffer,
    pub grid: Range<u32>,
    pub scene_bounds: Range<u32>,
    pub bounds: Aabb,
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

pub fn material_uniform(m: &crate::scene::Material) -> MaterialUniform {
    let lin = |c: f32| srgb_to_linear(c.clamp(0.0, 1.0));
    MaterialUniform {
        base_color: [
            lin(m.base_color[0]),
            lin(m.base_color[1]),
            lin(m.base_color[2]),
            m.base_color[3],
        ],
        emission: [
            lin(m.emission[0]),
            lin(m.emission[1]),
            lin(m.emission[2]),
            0.0,
        ],
        params: [
            m.shading,
            m.matcap.is_some() as u32 as f32,
            (m.blend == BlendMode::Additive) as u32 as f32,
            0.0,
        ],
        uv_offset: [0.0; 4],
    }
}

pub fn upload_texture(
    gpu: &super::Gpu,
    name: &str,
    width: u32,
    height: u32,
    rgba8: &[u8],
) -> GpuTexture {
    let texture = gpu.device.create_texture_with_data(
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
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[wgpu::TextureFormat::Rgba8Unorm],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        rgba8,
    );
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    let ui_view = texture.create_view(&wgpu::TextureViewDescriptor {
        format: Some(wgpu::TextureFormat::Rgba8Unorm),
        ..Default::default()
    });
    GpuTexture {
        texture,
        view,
        ui_view,
    }
}

fn push_box(out: &mut Vec<LineVertex>, b: &Aabb, color: [u8; 4]) {
    if b.is_empty() {
        return;
    }
    let c = |i: usize| {
        Vec3::new(
            if i & 1 != 0 { b.max.x } else { b.min.x },
            if i & 2 != 0 { b.max.y } else { b.min.y },
            if i & 4 != 0 { b.max.z } else { b.min.z },
        )
    };
    for (a, e) in [
        (0, 1),
        (2, 3),
        (4, 5),
        (6, 7),
        (0, 2),
        (1, 3),
        (4, 6),
        (5, 7),
        (0, 4),
        (1, 5),
        (2, 6),
        (3, 7),
    ] {
        out.push(LineVertex {
            position: c(a).into(),
            color,
        });
        out.push(LineVertex {
            position: c(e).into(),
            color,
        });
    }
}

fn range(out: &[LineVertex], start: usize) -> Range<u32> {
    start as u32..out.len() as u32
}

/// Uploads a scene. Textures referenced out of range fall back to white.
pub fn upload(gpu: &super::Gpu, r: &Renderer, scene: &Scene) -> GpuScene {
    let device = &gpu.device;
    let textures: Vec<GpuTexture> = scene
        .textures
        .iter()
        .map(|t| upload_texture(gpu, &t.name, t.width, t.height, &t.rgba8))
        .collect();

    let materials: Vec<GpuMaterial> = scene
        .materials
        .iter()
        .chain(std::iter::once(&crate::scene::Material::default()))
        .map(|m| {
            let u = material_uniform(m);
            let base = m.texture.and_then(|i| textures.get(i)).map(|t| &t.view);
            let matcap = m.matcap.and_then(|i| textures.get(i)).map(|t| &t.view);
            GpuMaterial {
                bind_group: r.material_bind_group(device, &u, base, matcap),
                additive: m.blend == BlendMode::Additive,
            }
        })
        .collect();
    let default_material = materials.len() - 1;

    let bounds = scene.bounds(None);
    let radius = bounds.radius();
    let mut lines: Vec<LineVertex> = Vec::new();

    // Grid on the ground plane under the model, 20 cells across.
    let start = lines.len();
    let y = if bounds.is_empty() { 0.0 } else { bounds.min.y };
    let step = nice_step(radius * 4.0 / 20.0);
    let half = 10.0 * step;
    let cx = (bounds.center().x / step).round() * step;
    let cz = (bounds.center().z / step).round() * step;
    for i in -10..=10 {
        let o = i as f32 * step;
        let color = if i == 0 {
            [110, 110, 120, 255]
        } else {
            [70, 70, 78, 255]
        };
        lines.push(LineVertex {
            position: [cx - half, y, cz + o],
            color,
        });
        lines.push(LineVertex {
            position: [cx + half, y, cz + o],
            color,
        });
        lines.push(LineVertex {
            position: [cx + o, y, cz - half],
            color,
        });
        lines.push(LineVertex {
            position: [cx + o, y, cz + half],
            color,
        });
    }
    let grid = range(&lines, start);
    let start = lines.len();
    push_box(&mut lines, &bounds, [255, 200, 40, 255]);
    let scene_bounds = range(&lines, start);

    let normal_len = radius * 0.04;
    let meshes = scene
        .meshes
        .iter()
        .map(|m| {
            let verts: Vec<MeshVertex> = (0..m.positions.len())
                .map(|i| MeshVertex {
                    position: m.positions[i].into(),
                    normal: m.normals.get(i).copied().unwrap_or(Vec3::Y).into(),
                    uv: m.uvs.get(i).copied().unwrap_or_default().into(),
                })
                .collect();
            let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(&m.name),
                contents: bytemuck::cast_slice(&verts),
                usage: wgpu::BufferUsages::VERTEX
                    | wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST,
            });
            let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(&m.name),
                contents: bytemuck::cast_slice(&m.indices),
                usage: wgpu::BufferUsages::INDEX,
            });

            let start = lines.len();
            let mut seen = HashSet::with_capacity(m.indices.len());
            for t in m.indices.chunks_exact(3) {
                for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                    if seen.insert((a.min(b), a.max(b))) {
                        let color = [20, 230, 255, 255];
                        lines.push(LineVertex {
                            position: m.positions[a as usize].into(),
                            color,
                        });
                        lines.push(LineVertex {
                            position: m.positions[b as usize].into(),
                            color,
                        });
                    }
                }
            }
            let wire = range(&lines, start);
            let start = lines.len();
            for (p, n) in m.positions.iter().zip(&m.normals) {
                lines.push(LineVertex {
                    position: (*p).into(),
                    color: [90, 255, 90, 255],
                });
                lines.push(LineVertex {
                    position: (*p + *n * normal_len).into(),
                    color: [90, 255, 90, 255],
                });
            }
            let normals = range(&lines, start);
            let start = lines.len();
            push_box(&mut lines, &m.bounds(), [255, 120, 40, 255]);
            let bounds = range(&lines, start);
            GpuMesh {
                vertices,
                indices,
                index_count: m.indices.len() as u32,
                material: m
                    .material
                    .filter(|&i| i < default_material)
                    .unwrap_or(default_material),
                wire,
                normals,
                bounds,
            }
        })
        .collect();

    if lines.is_empty() {
        lines.push(LineVertex {
            position: [0.0; 3],
            color: [0; 4],
        });
    }
    let lines = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("overlay lines"),
        contents: bytemuck::cast_slice(&lines),
        usage: wgpu::BufferUsages::VERTEX,
    });
    GpuScene {
        meshes,
        materials,
        textures,
        lines,
        grid,
        scene_bounds,
        bounds,
    }
}

/// 1, 2 or 5 times a power of ten, at least `x`.
fn nice_step(x: f32) -> f32 {
    let x = x.max(1e-6);
    let p = 10f32.powf(x.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if p * m >= x {
            return p * m;
        }
    }
    p * 10.0
}
