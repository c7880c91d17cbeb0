//! GPU linear-blend skinning (`shaders/skin.wgsl`): one compute dispatch per
//! frame skins every skinned vertex of the scene into the position/normal
//! stream the render pass reads. Only bone matrices are uploaded per frame.
//!
//! Layout: 28 bytes in per vertex (f32x3 position, octahedral snorm16x2
//! normal, u8x4 joints, unorm16x4 weights), 16 bytes out (position, normal).
//! Weights are 16-bit so that skinned positions match reference
//! implementations that keep float weights (m3d.h) to 1e-5 of the lever;
//! 8-bit weights (Papa's w/255) are exact in 16 bits.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec2, Vec3};
use wgpu::util::DeviceExt;

pub const WORKGROUP_SIZE: u32 = 256;
/// Workgroups of one dispatch (the portable limit per dimension).
pub const MAX_WORKGROUPS: u32 = 65535;
/// Vertices one dispatch skins.
pub const VERTICES_PER_DISPATCH: u32 = MAX_WORKGROUPS * WORKGROUP_SIZE;
/// Joints are u8: a skeleton of more bones is not skinned (documented).
pub const MAX_BONES: usize = crate::scene::MAX_SKINNED_BONES;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, Debug, PartialEq)]
pub struct SkinVertex {
    pub position: [f32; 3],
    pub normal: u32,
    pub joints: u32,
    /// 4 x unorm16, weights 0 and 1 then 2 and 3.
    pub weights: [u32; 2],
}

/// The render pass's position/normal stream (static or skinned).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, Debug, PartialEq)]
pub struct PosNormal {
    pub position: [f32; 3],
    pub normal: u32,
}

/// Lays out `count` bones' 3x4 affine matrices as skin.wgsl and bones.wgsl
/// read them, into `out`: every bone's first row, then every bone's second,
/// then every third (bone j's row k at `k * count + j`), so that a warp
/// gathering one row of 32 different bones touches fewer cache lines than
/// with each bone's rows together (with the loads out of their branch, 4-10%
/// faster skinning on an H100:
/// docs/performance.md). Bones past `matrices` are the identity.
pub fn write_bone_rows(matrices: &[Mat4], count: usize, out: &mut Vec<[f32; 4]>) {
    out.clear();
    for k in 0..3 {
        out.extend((0..count).map(|j| {
            let m = matrices.get(j).unwrap_or(&Mat4::IDENTITY);
            m.row(k).to_array()
        }));
    }
}

/// `v` in [-1, 1] as a snorm16, rounded half away from zero as
/// `f32::round` rounds, bit for bit, inline: `round` is a call to libm's
/// `roundf` on x86-64's baseline (no SSE4.1), two a vertex of every
/// uploaded mesh (lantea.m3d: 122K calls, 2.9M instructions an upload).
/// Exact: below 2^23, `r - trunc(r)` is exact in f32.
fn snorm16(v: f32) -> u32 {
    let r = v.clamp(-1.0, 1.0) * 32767.0;
    let t = r as i32;
    let frac = r - t as f32;
    let rounded = t + i32::from(frac >= 0.5) - i32::from(frac <= -0.5);
    (rounded as i16) as u16 as u32
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

/// Packs one vertex. Weights are units of 1/65535 (see
/// `scene::quantize_weights`); joints must be below [`MAX_BONES`].
pub fn pack_skin_vertex(
    position: Vec3,
    normal: Vec3,
    joints: [u16; 4],
    weights: [u16; 4],
) -> SkinVertex {
    let mut j = 0u32;
    let mut w = [0u32; 2];
    for k in 0..4 {
        j |= (joints[k].min(255) as u32) << (8 * k);
        w[k / 2] |= (weights[k] as u32) << (16 * (k % 2));
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
    /// One bind group (and params) per dispatch of at most
    /// `MAX_WORKGROUPS * WORKGROUP_SIZE` vertices, with its workgroup count.
    chunks: Vec<(wgpu::BindGroup, u32)>,
}

impl Skinner {
    pub fn new(device: &wgpu::Device) -> Skinner {
        Self::with_shader(device, "skin.wgsl")
    }

    /// A skinner running `shader`, a file of [`super::SHADERS`] with
    /// skin.wgsl's bindings (`bench skin` times the memory floors this way).
    pub fn with_shader(device: &wgpu::Device, shader: &str) -> Skinner {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(shader),
            source: wgpu::ShaderSource::Wgsl(super::shader_source(shader).into()),
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
        self.batch_with_dispatch_size(device, vertices, bones, VERTICES_PER_DISPATCH)
    }

    /// As [`Self::batch`], splitting the work into dispatches of at most
    /// `per_dispatch` vertices (tests use small ones).
    pub fn batch_with_dispatch_size(
        &self,
        device: &wgpu::Device,
        vertices: &[SkinVertex],
        bones: &wgpu::Buffer,
        per_dispatch: u32,
    ) -> SkinBatch {
        // Whole workgroups, so every range starts on a 256-byte boundary,
        // and no range binds more than the device's storage-binding limit.
        let max_binding = device.limits().max_storage_buffer_binding_size
            / std::mem::size_of::<SkinVertex>() as u64;
        let per_dispatch = per_dispatch.min(max_binding.min(u32::MAX as u64) as u32);
        let per_dispatch =
            (per_dispatch / WORKGROUP_SIZE).clamp(1, MAX_WORKGROUPS) * WORKGROUP_SIZE;
        // One zeroed vertex for none: a storage binding holds at least one.
        let src = super::buffers::buffer_in_batches(
            device,
            "skin input",
            wgpu::BufferUsages::STORAGE,
            vertices.len().max(1),
            |range, batch| match vertices {
                [] => batch.push(SkinVertex::zeroed()),
                all => batch.extend_from_slice(&all[range]),
            },
        );
        let dst = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skinned vertices"),
            size: (vertices.len().max(1) * std::mem::size_of::<PosNormal>()) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let n = vertices.len() as u32;
        // Each dispatch binds only its own range, so no binding passes the
        // device's storage-binding limit whatever the batch's size.
        const IN: u64 = std::mem::size_of::<SkinVertex>() as u64;
        const OUT: u64 = std::mem::size_of::<PosNormal>() as u64;
        fn range(b: &wgpu::Buffer, first: u32, end: u32, stride: u64) -> wgpu::BindingResource<'_> {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: b,
                offset: first as u64 * stride,
                size: std::num::NonZeroU64::new((end.max(first + 1) - first) as u64 * stride),
            })
        }
        let chunks = (0..n.div_ceil(per_dispatch).max(1))
            .map(|c| {
                let first = c * per_dispatch;
                let end = (first + per_dispatch).min(n);
                let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("skin params"),
                    contents: bytemuck::cast_slice(&[end - first, 0, 0, 0]),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("skinning"),
                    layout: &self.layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: range(&src, first, end, IN),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: range(&dst, first, end, OUT),
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
                (bind_group, (end - first).div_ceil(WORKGROUP_SIZE).max(1))
            })
            .collect();
        SkinBatch {
            src,
            dst,
            vertex_count: n,
            chunks,
        }
    }

    /// Records the dispatches into `pass`: one for up to 16.7M vertices
    /// (65535 workgroups of 256), one more per further 16.7M, each over its
    /// own range of the buffers. (On an H100 this runs at 50-52 G vertices/s
    /// from 8M to 50M vertices; on an H200, within 2% of separate buffers
    /// per dispatch: docs/performance-history.md.)
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, batch: &SkinBatch) {
        if batch.vertex_count == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        for (bind_group, groups) in &batch.chunks {
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(*groups, 1, 1);
        }
    }

    /// Dispatches `batch` needs.
    pub fn dispatch_count(batch: &SkinBatch) -> usize {
        batch.chunks.len()
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

/// A storage buffer of bone rows ([`write_bone_rows`]) sized for `count`
/// bones (at least one), every bone the identity.
pub fn bone_buffer(device: &wgpu::Device, count: usize) -> wgpu::Buffer {
    let mut identity = Vec::new();
    write_bone_rows(&[], count.max(1), &mut identity);
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
    fn snorm16_rounds_as_f32_round() {
        // Every f32 from -1 to 1 a step of 2^-20 apart, the halves between
        // snorm16 steps, their neighbours, the ends, and NaN (clamp keeps
        // it NaN, which both cast to 0).
        let mut values: Vec<f32> = (-(1 << 20)..=(1 << 20))
            .map(|i| i as f32 / (1 << 20) as f32)
            .collect();
        for k in -32767..32767 {
            let half = (k as f32 + 0.5) / 32767.0;
            values.extend([half, half.next_up(), half.next_down()]);
        }
        values.extend([-1.0, 1.0, -2.0, 2.0, -0.0, f32::NAN, f32::INFINITY]);
        for v in values {
            let expected = ((v.clamp(-1.0, 1.0) * 32767.0).round() as i16) as u16 as u32;
            assert_eq!(super::snorm16(v), expected, "{v:e}");
        }
    }

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
    fn one_dispatch_covers_16m_vertices() {
        assert_eq!(VERTICES_PER_DISPATCH, 16_776_960);
    }
}
