//! `facet bench skin`: GPU skinning throughput (dispatch only, timed with
//! timestamp queries where the adapter has them, else wall time around a
//! blocking submit) and the CPU reference's, on generated data.

use crate::anim::skin_vertices;
use crate::gpu::Gpu;
use crate::gpu::skinning::{self, PosNormal, SkinVertex, Skinner};
use crate::scene::{Skin, quantize_weights};
use glam::{Mat4, Quat, Vec3};
use std::time::Instant;

/// xorshift64*: reproducible generated data without a dependency (also used
/// by the skinning tests).
pub struct Rng(pub u64);
impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    /// Uniform in [0, 1).
    pub fn f(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [a, b).
    pub fn range(&mut self, a: f32, b: f32) -> f32 {
        a + (b - a) * self.f()
    }

    /// Each component uniform in [-s, s).
    pub fn vec(&mut self, s: f32) -> Vec3 {
        Vec3::new(self.range(-s, s), self.range(-s, s), self.range(-s, s))
    }
}

pub struct SkinBenchResult {
    pub adapter: String,
    pub vertices: u32,
    pub bones: u32,
    pub timer: &'static str,
    pub gpu_ms_median: f64,
    pub gpu_ms_min: f64,
    pub cpu_vertices_per_s: f64,
}

impl SkinBenchResult {
    pub const BYTES_PER_VERTEX: usize =
        std::mem::size_of::<SkinVertex>() + std::mem::size_of::<PosNormal>();

    pub fn report(&self) -> String {
        let gvps = self.vertices as f64 / (self.gpu_ms_median * 1e-3) / 1e9;
        let gbs = gvps * Self::BYTES_PER_VERTEX as f64;
        format!(
            "adapter: {}\nvertices: {}  bones: {}  bytes moved per vertex: {} ({} in + {} out)\n\
             GPU ({}): median {:.4} ms, min {:.4} ms -> {:.2} G vertices/s, {:.1} GB/s\n\
             CPU reference (1 thread): {:.1} M vertices/s",
            self.adapter,
            self.vertices,
            self.bones,
            Self::BYTES_PER_VERTEX,
            std::mem::size_of::<SkinVertex>(),
            std::mem::size_of::<PosNormal>(),
            self.timer,
            self.gpu_ms_median,
            self.gpu_ms_min,
            gvps,
            gbs,
            self.cpu_vertices_per_s / 1e6
        )
    }
}

pub fn skin(gpu: &Gpu, vertices: u32, bones: u32, iterations: u32) -> SkinBenchResult {
    let mut rng = Rng(0x5EED);
    let bones = bones.clamp(1, skinning::MAX_BONES as u32);
    let n = vertices.max(1) as usize;
    let mut positions = Vec::with_capacity(n.min(1 << 20));
    let mut skin = Skin::default();
    let mut data: Vec<SkinVertex> = Vec::with_capacity(n);
    for i in 0..n {
        let p = Vec3::new(rng.f(), rng.f(), rng.f()) * 2.0 - 1.0;
        let nrm = (Vec3::new(rng.f(), rng.f(), rng.f()) * 2.0 - 1.0).normalize_or(Vec3::Y);
        let j: [u16; 4] = std::array::from_fn(|_| (rng.next_u64() % bones as u64) as u16);
        let w = quantize_weights([rng.f() + 0.1, rng.f(), rng.f(), rng.f()]);
        data.push(skinning::pack_skin_vertex(p, nrm, j, w));
        if i < (1 << 20) {
            positions.push(p);
            skin.joints.push(j);
            skin.weights.push(w);
        }
    }
    let mats: Vec<Mat4> = (0..bones)
        .map(|_| {
            let r = Quat::from_euler(glam::EulerRot::XYZ, rng.f(), rng.f(), rng.f());
            Mat4::from_rotation_translation(r, Vec3::new(rng.f(), rng.f(), rng.f()))
        })
        .collect();

    let skinner = Skinner::new(&gpu.device);
    let bone_buf = skinning::bone_buffer(&gpu.device, bones as usize);
    let rows: Vec<skinning::BoneRows> = mats.iter().map(skinning::bone_rows).collect();
    gpu.queue
        .write_buffer(&bone_buf, 0, bytemuck::cast_slice(&rows));
    let batch = skinner.batch(&gpu.device, &data, &bone_buf);
    drop(data);

    let iterations = iterations.max(1);
    let timestamps = gpu
        .device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY);
    // Warm-up.
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    skinner.encode(&mut enc, &batch);
    gpu.queue.submit([enc.finish()]);
    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());

    let mut times_ms: Vec<f64> = Vec::with_capacity(iterations as usize);
    if timestamps {
        let set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("skin timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2 * iterations,
        });
        let size = 16 * iterations as u64;
        let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps"),
            size,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let read = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps read"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        for i in 0..iterations {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("skinning"),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &set,
                    beginning_of_pass_write_index: Some(2 * i),
                    end_of_pass_write_index: Some(2 * i + 1),
                }),
            });
            skinner.dispatch(&mut pass, &batch);
        }
        enc.resolve_query_set(&set, 0..2 * iterations, &resolve, 0);
        enc.copy_buffer_to_buffer(&resolve, 0, &read, 0, size);
        gpu.queue.submit([enc.finish()]);
        read.slice(..)
            .map_async(wgpu::MapMode::Read, |r| r.expect("mapping timestamps"));
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
        let period = gpu.queue.get_timestamp_period() as f64;
        let view = read
            .slice(..)
            .get_mapped_range()
            .expect("mapped timestamps");
        let ticks: &[u64] = bytemuck::cast_slice(&view);
        for pair in ticks.chunks_exact(2) {
            times_ms.push(pair[1].saturating_sub(pair[0]) as f64 * period / 1e6);
        }
    } else {
        for _ in 0..iterations {
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            skinner.encode(&mut enc, &batch);
            let t = Instant::now();
            gpu.queue.submit([enc.finish()]);
            let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
            times_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    times_ms.sort_by(f64::total_cmp);

    // CPU reference on up to 1M of the same vertices.
    let m = positions.len();
    let normals = vec![Vec3::Y; m];
    let (mut op, mut on) = (vec![Vec3::ZERO; m], vec![Vec3::ZERO; m]);
    let t = Instant::now();
    skin_vertices(&mats, &skin, &positions, &normals, &mut op, &mut on);
    let cpu = m as f64 / t.elapsed().as_secs_f64();

    SkinBenchResult {
        adapter: gpu.describe(),
        vertices: n as u32,
        bones,
        timer: if timestamps {
            "timestamp queries"
        } else {
            "wall time around submit + wait"
        },
        gpu_ms_median: times_ms[times_ms.len() / 2],
        gpu_ms_min: times_ms[0],
        cpu_vertices_per_s: cpu,
    }
}
