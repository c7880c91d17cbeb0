//! GPU linear-blend skinning (`shaders/skin.wgsl`): one compute dispatch per
//! frame skins every skinned vertex of the scene into the position/normal
//! stream the render pass reads. Only bone matrices are uploaded per frame.
//!
//! Layout: 24 bytes in per vertex (f32x3 position, octahedral snorm16x2
//! normal, u8x4 joints, unorm8x4 weights), 16 bytes out (position, normal).

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec2, Vec3};
use wgpu::util::DeviceExt;

pub const WORKGROUP_SIZE: u32 = 256;
/// Joints are u8: a skeleton of more bones is not skinned (documented).
pub const MAX_BONES: usize = 256;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, Debug, PartialEq)]
pub struct SkinVertex {
    pub position: [f32; 3],
    pub normal: u32,
    pub joints: u32,
    pub weights: u32,
}

/// The render pass's position/normal stream (static or skinned).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, Debug, PartialEq)]
pub struct PosNormal {
    pub position: [f32; 3],
    pub normal: u32,
}

/// Rows of a 3x4 affine matrix, as `skin.wgsl` reads them.
pub type BoneRows = [[f32; 4]; 3];

pub fn bone_rows(m: &Mat4) -> BoneRows {
    let r = m.transpose();
    [
        r.x_axis.to_array(),
        r.y_axis.to_array(),
        r.z_axis.to_array(),
    ]
}

fn snorm16(v: f32) -> u32 {
    ((v.clamp(-1.0, 1.0) * 32767.0).round() as i16) as u16 as u32
}

fn sign_not_zero(v: Vec2) -> Vec2 {
    Vec2::new(
        if v.x >= 0.0 { 1.0 } else { -1.0 },
        if v.y >= 0.0 { 1.0 } else { -1.0 },
    )
}

/// Octahedral encoding into 2 x snorm16 (WGSL `pack2x16snorm`).
pub fn oct_encode(n: Vec3) -> u32 {
    let l1 = n.x.abs() + n.y.abs() + n.z.abs();
    if l1.is_nan() || l1 <= 0.0 || !l1.is_finite() {
        return 0; // (0, 0) decodes to +Z
    }
    let mut p = Vec2::new(n.x, n.y) / l1;
    if n.z < 0.0 {
        p = (Vec2::ONE - Vec2::new(p.y.abs(), p.x.abs())) * sign_not_zero(p);
    }
    snorm16(p.x) | snorm16(p.y) << 16
}

pub fn oct_decode(e: u32) -> Vec3 {
    let u = |b: u32| ((b & 0xFFFF) as u16 as i16 as f32 / 32767.0).max(-1.0);
    let (x, y) = (u(e), u(e >> 16));
    let mut n = Vec3::new(x, y, 1.0 - x.abs() - y.abs());
    if n.z < 0.0 {
        let xy = (Vec2::ONE - Vec2::new(n.y.abs(), n.x.abs())) * sign_not_zero(Vec2::new(n.x, n.y));
        n = Vec3::new(xy.x, xy.y, n.z);
    }
    n.normalize()
}

/// Packs one vertex. Weights must be multiples of 1/255 (see
/// `scene::quantize_weights`); joints must be below [`MAX_BONES`].
pub fn pack_skin_vertex(
    position: Vec3,
    normal: Vec3,
    joints: [u16; 4],
    weights: [f32; 4],
) -> SkinVertex {
    let mut j = 0u32;
    let mut w = 0u32;
    for k in 0..4 {
        j |= (joints[k].min(255) as u32) << (8 * k);
        w |= ((weights[k].clamp(0.0, 1.0) * 255.0).round() as u32) << (8 * k);
    }
    SkinVertex {
        position: position.to_array(),
        normal: oct_encode(normal),
        joints: j,
        weights: w,
    }
}

pub struct Skinner {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// Everything one dispatch skins: inputs, the output stream, the bones.
pub struct SkinBatch {
    pub src: wgpu::Buffer,
    pub dst: wgpu::Buffer,
    pub vertex_count: u32,
    bind_group: wgpu::BindGroup,
}

impl Skinner {
    pub fn new(device: &wgpu::Device) -> Skinner {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("skin.wgsl"),
            source: wgpu::ShaderSource::Wgsl(super::shader_source("skin.wgsl").into()),
        });
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty,
            count: None,
        };
        let storage = |read_only| wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skinning"),
            entries: &[
                entry(0, storage(true)),
                entry(1, storage(false)),
                entry(2, storage(true)),
                entry(
                    3,
                    wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                ),
            ],
        });
        let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skinning"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("skinning"),
            layout: Some(&pl),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        Skinner { pipeline, layout }
    }

    /// Uploads the inputs once and makes the output stream (usable as a
    /// vertex buffer and read back by tests).
    pub fn batch(
        &self,
        device: &wgpu::Device,
        vertices: &[SkinVertex],
        bones: &wgpu::Buffer,
    ) -> SkinBatch {
        let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skin input"),
            contents: if vertices.is_empty() {
                &[0; 24]
            } else {
                bytemuck::cast_slice(vertices)
            },
            usage: wgpu::BufferUsages::STORAGE,
        });
        let dst = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skinned vertices"),
            size: (vertices.len().max(1) * std::mem::size_of::<PosNormal>()) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skin params"),
            contents: bytemuck::cast_slice(&[vertices.len() as u32, 0, 0, 0]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skinning"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: src.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: dst.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: bones.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: params.as_entire_binding(),
                },
            ],
        });
        SkinBatch {
            src,
            dst,
            vertex_count: vertices.len() as u32,
            bind_group,
        }
    }

    /// Workgroups for `n` vertices: a 2D grid when one row would pass the
    /// 65535-workgroup limit.
    pub fn workgroups(n: u32) -> (u32, u32) {
        let groups = n.div_ceil(WORKGROUP_SIZE).max(1);
        let x = groups.min(65535);
        (x, groups.div_ceil(x))
    }

    /// Records the dispatch into `pass`.
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, batch: &SkinBatch) {
        if batch.vertex_count == 0 {
            return;
        }
        let (x, y) = Self::workgroups(batch.vertex_count);
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &batch.bind_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Records a compute pass with the dispatch into `encoder`.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, batch: &SkinBatch) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("skinning"),
            timestamp_writes: None,
        });
        self.dispatch(&mut pass, batch);
    }
}

/// A storage buffer of bone rows, sized for `count` bones (at least one).
pub fn bone_buffer(device: &wgpu::Device, count: usize) -> wgpu::Buffer {
    let identity = vec![bone_rows(&Mat4::IDENTITY); count.max(1)];
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("bone matrices"),
        contents: bytemuck::cast_slice(&identity),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octahedral_normals_round_trip_within_1e4() {
        let mut worst = 0f32;
        for i in 0..2000 {
            let a = i as f32 * 0.61803;
            let z = (i as f32 / 1000.0) - 1.0;
            let r = (1.0 - z * z).max(0.0).sqrt();
            let n = Vec3::new(r * a.cos(), r * a.sin(), z).normalize();
            worst = worst.max((oct_decode(oct_encode(n)) - n).length());
        }
        for n in [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z] {
            worst = worst.max((oct_decode(oct_encode(n)) - n).length());
        }
        assert!(worst < 1e-4, "worst error {worst}");
    }

    #[test]
    fn workgroups_cover_every_vertex() {
        for n in [1, 255, 256, 257, 65535 * 256, 65535 * 256 + 1, 30_000_000] {
            let (x, y) = Skinner::workgroups(n);
            assert!(
                x <= 65535 && (x as u64) * (y as u64) * 256 >= n as u64,
                "{n}: {x}x{y}"
            );
        }
    }
}
