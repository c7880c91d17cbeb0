//! `facet bench skin` and `facet bench materials`: GPU compute throughput
//! (dispatch only, timed with timestamp queries where the adapter has them,
//! else wall time around a blocking submit) and the CPU reference's, on
//! generated data.

use crate::anim::skin_vertices;
use crate::gpu::Gpu;
use crate::gpu::skinning::{self, PosNormal, SkinVertex, Skinner};
use crate::scene::material_anim::{MatInterp, MatKey, MatLoop, MatTrack};
use crate::scene::{
    BlendMode, Material, MaterialAnim, Mesh, Scene, Skin, Texture, quantize_weights,
};
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

/// How `bench skin` lays the vertices out on the device: the viewer's own
/// batch, or separate batches (each with its own buffers), which showed
/// that the size of the buffers does not matter (docs/performance.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkinLayout {
    /// The viewer's batch: one input and one output buffer, each dispatch
    /// binding its range of both.
    One,
    /// Separate batches of at most this many vertices, each with its own
    /// input and output buffers.
    Batches(u32),
}

impl SkinLayout {
    /// `one`, `split` (batches of one dispatch) or `split-N` (batches of N
    /// vertices, `K`/`M` suffixes allowed).
    pub fn parse(s: &str) -> Result<SkinLayout, String> {
        match s {
            "one" => Ok(SkinLayout::One),
            "split" => Ok(SkinLayout::Batches(skinning::VERTICES_PER_DISPATCH)),
            _ => match s.strip_prefix("split-").map(parse_count) {
                Some(Ok(n)) if n > 0 => Ok(SkinLayout::Batches(n)),
                _ => Err(format!("unknown layout '{s}' (one, split or split-N)")),
            },
        }
    }

    pub fn name(&self) -> String {
        match self {
            SkinLayout::One => "one".into(),
            SkinLayout::Batches(n) if *n == skinning::VERTICES_PER_DISPATCH => "split".into(),
            SkinLayout::Batches(n) => format!("split-{}", count_name(*n)),
        }
    }
}

/// Which kernel `bench skin` times on each layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkinKernel {
    /// The viewer's, shaders/skin.wgsl.
    Skin,
    /// skin.wgsl on the same vertices with every joint bone 0: the cost of
    /// gathering each vertex's own bones.
    SameBone,
    /// shaders/skin_stream.wgsl: skin.wgsl's reads and writes with no
    /// arithmetic between, the floor of its memory access.
    Stream,
    /// shaders/skin_copy16.wgsl: 16 bytes in and 16 out, one aligned
    /// vector load and store per invocation: the device's streaming ceiling.
    Copy16,
    /// shaders/skin_empty.wgsl: skin.wgsl's grid of workgroups doing
    /// nothing, the cost of the dispatch itself.
    Empty,
}

impl SkinKernel {
    pub fn parse(s: &str) -> Result<SkinKernel, String> {
        Ok(match s {
            "skin" => SkinKernel::Skin,
            "same-bone" => SkinKernel::SameBone,
            "stream" => SkinKernel::Stream,
            "copy16" => SkinKernel::Copy16,
            "empty" => SkinKernel::Empty,
            _ => {
                return Err(format!(
                    "unknown kernel '{s}' (skin, same-bone, stream, copy16 or empty)"
                ));
            }
        })
    }

    pub fn name(&self) -> &'static str {
        match self {
            SkinKernel::Skin => "skin",
            SkinKernel::SameBone => "same-bone",
            SkinKernel::Stream => "stream",
            SkinKernel::Copy16 => "copy16",
            SkinKernel::Empty => "empty",
        }
    }

    fn shader(&self) -> &'static str {
        match self {
            SkinKernel::Skin | SkinKernel::SameBone => "skin.wgsl",
            SkinKernel::Stream => "skin_stream.wgsl",
            SkinKernel::Copy16 => "skin_copy16.wgsl",
            SkinKernel::Empty => "skin_empty.wgsl",
        }
    }
}

/// One benchmark record as `target/bench/*.json` holds them (read by
/// examples/bench_report): `{"name", "value", "unit", "machine"}`.
pub fn record(name: &str, value: f64, unit: &str, machine: &str) -> serde_json::Value {
    serde_json::json!({
        "name": name,
        "value": value,
        "unit": unit,
        "machine": machine,
    })
}

/// `1000000`, `500K`, `16.7M`: a count of vertices.
pub fn parse_count(s: &str) -> Result<u32, String> {
    let (digits, scale) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1e3),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1e6),
        _ => (s, 1.0),
    };
    match digits.parse::<f64>() {
        Ok(v) if v >= 0.0 && v * scale <= u32::MAX as f64 => Ok((v * scale).round() as u32),
        _ => Err(format!(
            "'{s}' is not a count (like 1000000, 500K or 16.7M)"
        )),
    }
}

/// A count as `parse_count` reads it back: `50M`, `500K`, `1234`.
pub fn count_name(n: u32) -> String {
    if n >= 1_000_000 && n.is_multiple_of(100_000) {
        format!("{}M", n as f64 / 1e6)
    } else if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}K", n / 1000)
    } else {
        n.to_string()
    }
}

/// One size in one layout: the GPU's times for its dispatches.
pub struct SkinRow {
    pub kernel: SkinKernel,
    pub layout: SkinLayout,
    pub vertices: u32,
    pub dispatches: usize,
    pub buffers: usize,
    pub gpu_ms_min: f64,
    pub gpu_ms_median: f64,
    pub gpu_ms_max: f64,
    /// Wall time of one submit of all the passes (no timestamps), per pass.
    pub wall_ms: f64,
}

impl SkinRow {
    pub fn g_vertices_per_s(&self) -> f64 {
        self.vertices as f64 / (self.gpu_ms_median * 1e-3) / 1e9
    }
}

/// What `bench skin` skins.
#[derive(Clone, Copy)]
pub enum SkinData<'a> {
    /// Generated vertices, each with four of this many bones drawn at
    /// random (two may coincide), every one weighted: the gather's worst
    /// case.
    Generated { bones: u32 },
    /// A model's skinned vertices, repeated to each size, with its bones.
    Model(&'a SkinSource),
}

/// A model's skinned vertices, every skinned mesh's in turn, for `bench
/// skin --from FILE`: the bench tiles them to each size instead of making
/// random ones, so the gather sees the bones a real mesh's neighbouring
/// vertices share.
pub struct SkinSource {
    /// The file's name, the records' first field (`skin:<name>/...`).
    pub name: String,
    pub bones: u32,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub skin: Skin,
}

impl SkinSource {
    /// Every skinned mesh of `scene` whose skin covers its vertices, as the
    /// viewer's upload packs them; an error when it has none or when its
    /// skeleton is too large to skin on the GPU.
    pub fn from_scene(name: &str, scene: &Scene) -> Result<SkinSource, String> {
        let bones = scene.skeleton.bones.len();
        if bones == 0 || bones > skinning::MAX_BONES {
            return Err(format!(
                "{name}: a skeleton of {bones} bones is not skinned on the GPU (1 to {})",
                skinning::MAX_BONES
            ));
        }
        let mut out = SkinSource {
            name: name.to_string(),
            bones: bones as u32,
            positions: Vec::new(),
            normals: Vec::new(),
            skin: Skin::default(),
        };
        for m in &scene.meshes {
            let Some(skin) = m
                .skin
                .as_ref()
                .filter(|s| s.joints.len() == m.positions.len())
            else {
                continue;
            };
            out.positions.extend_from_slice(&m.positions);
            out.normals.extend(
                (0..m.positions.len()).map(|i| m.normals.get(i).copied().unwrap_or(Vec3::Y)),
            );
            out.skin.joints.extend_from_slice(&skin.joints);
            out.skin.weights.extend_from_slice(&skin.weights);
        }
        match out.positions.is_empty() {
            true => Err(format!("{name}: no skinned mesh")),
            false => Ok(out),
        }
    }
}

pub struct SkinBenchResult {
    pub adapter: String,
    /// `skin` for generated vertices, `skin:<file>` for a model's.
    pub source: String,
    pub bones: u32,
    pub timer: &'static str,
    pub rows: Vec<SkinRow>,
    /// The device's buffer copy of each size's input bytes: (vertices,
    /// bytes, ms a copy), when asked for.
    pub copies: Vec<(u32, u64, f64)>,
    pub cpu_vertices: usize,
    pub cpu_vertices_per_s: f64,
}

impl SkinBenchResult {
    pub const BYTES_PER_VERTEX: usize =
        std::mem::size_of::<SkinVertex>() + std::mem::size_of::<PosNormal>();

    pub fn report(&self) -> String {
        let mut s = format!(
            "adapter: {}\nvertices: {}  bones: {}  bytes moved per vertex: {} ({} in + {} out)  GPU times: {}\n\
             {:>10} {:>9} {:>9} {:>10} {:>7} {:>10} {:>10} {:>10} {:>12} {:>8} {:>12}\n",
            self.adapter,
            match self.source.strip_prefix("skin:") {
                Some(file) => format!("{file}'s skinned vertices, repeated"),
                None => "generated, 4 random bones each".to_string(),
            },
            self.bones,
            Self::BYTES_PER_VERTEX,
            std::mem::size_of::<SkinVertex>(),
            std::mem::size_of::<PosNormal>(),
            self.timer,
            "vertices",
            "kernel",
            "layout",
            "dispatches",
            "buffers",
            "min ms",
            "median ms",
            "max ms",
            "G vertices/s",
            "GB/s",
            "wall ms/pass",
        );
        for r in &self.rows {
            let g = r.g_vertices_per_s();
            s += &format!(
                "{:>10} {:>9} {:>9} {:>10} {:>7} {:>10.4} {:>10.4} {:>10.4} {:>12.2} {:>8.1} {:>12.4}\n",
                count_name(r.vertices),
                r.kernel.name(),
                r.layout.name(),
                r.dispatches,
                r.buffers,
                r.gpu_ms_min,
                r.gpu_ms_median,
                r.gpu_ms_max,
                g,
                g * Self::BYTES_PER_VERTEX as f64,
                r.wall_ms,
            );
        }
        for &(n, bytes, ms) in &self.copies {
            s += &format!(
                "buffer copy of {} vertices' input ({bytes} bytes): {ms:.4} ms, {:.0} GB/s read + written\n",
                count_name(n),
                2.0 * bytes as f64 / (ms * 1e-3) / 1e9
            );
        }
        s + &format!(
            "CPU reference (1 thread, {} vertices): {:.1} M vertices/s",
            self.cpu_vertices,
            self.cpu_vertices_per_s / 1e6
        )
    }

    /// The `{"name", "value", "unit", "machine"}` records of `target/bench`:
    /// `skin/<kernel>/<layout>/<vertices>/gpu` (median, ms; `skin:<file>/...`
    /// on a model's vertices), `gpu_min`,
    /// `gpu_max` and `rate` (G vertices/s), the machine being the adapter.
    pub fn records(&self) -> serde_json::Value {
        let mut out = Vec::new();
        for r in &self.rows {
            let name = format!(
                "{}/{}/{}/{}",
                self.source,
                r.kernel.name(),
                r.layout.name(),
                count_name(r.vertices)
            );
            for (what, value, unit) in [
                ("gpu", r.gpu_ms_median, "ms"),
                ("gpu_min", r.gpu_ms_min, "ms"),
                ("gpu_max", r.gpu_ms_max, "ms"),
                ("wall", r.wall_ms, "ms"),
                ("rate", r.g_vertices_per_s(), "G vertices/s"),
            ] {
                out.push(record(
                    &format!("{name}/{what}"),
                    value,
                    unit,
                    &self.adapter,
                ));
            }
        }
        for &(n, bytes, ms) in &self.copies {
            for (what, value, unit) in [
                ("ms", ms, "ms"),
                ("rate", 2.0 * bytes as f64 / (ms * 1e-3) / 1e9, "GB/s"),
            ] {
                let name = format!("copy/{}/{what}", count_name(n));
                out.push(record(&name, value, unit, &self.adapter));
            }
        }
        serde_json::Value::Array(out)
    }
}

/// Skins `data` (generated vertices: random positions and normals, 4 of
/// `bones` bones; or a model's, repeated) on the GPU at each of `sizes`
/// with each of `kernels` in each of `layouts`: the median, min and max
/// of `iterations` timed passes, every size and layout in this one process
/// on this one device (data made once at the largest size; each size is
/// its first vertices). With `copy`, the device's own buffer copy of each
/// size's input bytes too. Then the CPU reference on up to 1M of the same
/// vertices. Refuses sizes the device or the process cannot hold.
pub fn skin(
    gpu: &Gpu,
    sizes: &[u32],
    kernels: &[SkinKernel],
    layouts: &[SkinLayout],
    data: SkinData<'_>,
    iterations: u32,
    copy: bool,
) -> Result<SkinBenchResult, String> {
    let mut rng = Rng(0x5EED);
    let (bones, source) = match data {
        SkinData::Generated { bones } => (bones, None),
        SkinData::Model(s) => (s.bones, Some(s)),
    };
    let bones = bones.clamp(1, skinning::MAX_BONES as u32);
    let n = sizes.iter().copied().max().unwrap_or(1).max(1) as usize;
    let limit = gpu.device.limits().max_buffer_size;
    let vertices = BenchVertices::make(n, limit, source, bones, &mut rng)?;
    let mats: Vec<Mat4> = (0..bones)
        .map(|_| {
            let r = Quat::from_euler(glam::EulerRot::XYZ, rng.f(), rng.f(), rng.f());
            Mat4::from_rotation_translation(r, Vec3::new(rng.f(), rng.f(), rng.f()))
        })
        .collect();
    let (rows, timer) = skin_rows(
        gpu,
        sizes,
        kernels,
        layouts,
        &vertices.gpu,
        &mats,
        iterations,
    );
    let BenchVertices {
        gpu: data,
        positions,
        skin,
    } = vertices;
    drop(data);
    let copies = match copy {
        false => Vec::new(),
        true => sizes
            .iter()
            .map(|&n| {
                let bytes = n as u64 * std::mem::size_of::<SkinVertex>() as u64;
                (n, bytes, copy_ms(gpu, bytes, iterations))
            })
            .collect(),
    };

    // CPU reference on up to 1M of the same vertices.
    let cpu_n = positions.len();
    let normals = vec![Vec3::Y; cpu_n];
    let (mut op, mut on) = (vec![Vec3::ZERO; cpu_n], vec![Vec3::ZERO; cpu_n]);
    let t = Instant::now();
    skin_vertices(&mats, &skin, &positions, &normals, &mut op, &mut on);
    let cpu = cpu_n as f64 / t.elapsed().as_secs_f64();

    Ok(SkinBenchResult {
        adapter: gpu.describe(),
        source: source.map_or("skin".to_string(), |s| format!("skin:{}", s.name)),
        bones,
        timer,
        rows,
        copies,
        cpu_vertices: cpu_n,
        cpu_vertices_per_s: cpu,
    })
}

/// The skin bench's vertices: as the GPU reads them, and the first 1M of
/// them as the CPU reference reads them.
struct BenchVertices {
    gpu: Vec<SkinVertex>,
    positions: Vec<Vec3>,
    skin: Skin,
}

impl BenchVertices {
    /// `n` vertices: `source`'s, repeated, or random ones (positions and
    /// normals, four of `bones` bones) drawn from `rng`. Refused when their
    /// bytes pass the device's largest buffer (`limit`) or this process's
    /// memory: a clear refusal, not an abort.
    fn make(
        n: usize,
        limit: u64,
        source: Option<&SkinSource>,
        bones: u32,
        rng: &mut Rng,
    ) -> Result<BenchVertices, String> {
        let bytes = n as u64 * std::mem::size_of::<SkinVertex>() as u64;
        if bytes > limit {
            return Err(format!(
                "{} vertices need {bytes} bytes of input, more than this device's largest buffer ({limit} bytes)",
                count_name(n as u32)
            ));
        }
        let mut data: Vec<SkinVertex> = Vec::new();
        data.try_reserve_exact(n).map_err(|_| {
            format!(
                "{} vertices need {bytes} bytes of input, more than this process could allocate",
                count_name(n as u32)
            )
        })?;
        let cpu_n = n.min(1 << 20);
        let mut positions = Vec::with_capacity(cpu_n);
        let mut skin = Skin::default();
        for i in 0..n {
            let (p, nrm, j, w) = match source {
                Some(s) => {
                    let k = i % s.positions.len();
                    (
                        s.positions[k],
                        s.normals[k],
                        s.skin.joints[k],
                        s.skin.weights[k],
                    )
                }
                None => {
                    let p = Vec3::new(rng.f(), rng.f(), rng.f()) * 2.0 - 1.0;
                    let nrm =
                        (Vec3::new(rng.f(), rng.f(), rng.f()) * 2.0 - 1.0).normalize_or(Vec3::Y);
                    let j: [u16; 4] =
                        std::array::from_fn(|_| (rng.next_u64() % bones as u64) as u16);
                    let w = quantize_weights([rng.f() + 0.1, rng.f(), rng.f(), rng.f()]);
                    (p, nrm, j, w)
                }
            };
            data.push(skinning::pack_skin_vertex(p, nrm, j, w));
            if i < cpu_n {
                positions.push(p);
                skin.joints.push(j);
                skin.weights.push(w);
            }
        }
        Ok(BenchVertices {
            gpu: data,
            positions,
            skin,
        })
    }
}

/// Each size's first vertices of `data` skinned by `mats` with each kernel
/// in each layout, `iterations` timed passes each: a row each, and the
/// timer the device gave.
fn skin_rows(
    gpu: &Gpu,
    sizes: &[u32],
    kernels: &[SkinKernel],
    layouts: &[SkinLayout],
    data: &[SkinVertex],
    mats: &[Mat4],
    iterations: u32,
) -> (Vec<SkinRow>, &'static str) {
    let skinners: Vec<(SkinKernel, Skinner)> = kernels
        .iter()
        .map(|&k| (k, Skinner::with_shader(&gpu.device, k.shader())))
        .collect();
    let bone_buf = skinning::bone_buffer(&gpu.device, mats.len());
    let mut rows = Vec::new();
    skinning::write_bone_rows(mats, mats.len(), &mut rows);
    gpu.queue
        .write_buffer(&bone_buf, 0, bytemuck::cast_slice(&rows));

    let mut timer = "";
    let mut out = Vec::new();
    for &size in sizes {
        let vertices = &data[..(size.max(1) as usize).min(data.len())];
        let mut same_bone: Vec<SkinVertex> = Vec::new();
        for (kernel, skinner) in &skinners {
            let vertices = if *kernel == SkinKernel::SameBone {
                same_bone.clear();
                same_bone.extend(vertices.iter().map(|v| SkinVertex { joints: 0, ..*v }));
                &same_bone[..]
            } else {
                vertices
            };
            for &layout in layouts {
                let batches: Vec<skinning::SkinBatch> = match layout {
                    SkinLayout::One => vec![skinner.batch(&gpu.device, vertices, &bone_buf)],
                    SkinLayout::Batches(k) => vertices
                        .chunks(k.max(1) as usize)
                        .map(|part| skinner.batch(&gpu.device, part, &bone_buf))
                        .collect(),
                };
                let (times_ms, t) = gpu_times(gpu, iterations, |pass| {
                    for b in &batches {
                        skinner.dispatch(pass, b);
                    }
                });
                timer = t;
                out.push(SkinRow {
                    kernel: *kernel,
                    layout,
                    vertices: vertices.len() as u32,
                    dispatches: batches.iter().map(Skinner::dispatch_count).sum(),
                    buffers: 2 * batches.len(),
                    gpu_ms_min: times_ms[0],
                    gpu_ms_median: times_ms[times_ms.len() / 2],
                    gpu_ms_max: times_ms[times_ms.len() - 1],
                    wall_ms: wall_per_pass(gpu, iterations, |pass| {
                        for b in &batches {
                            skinner.dispatch(pass, b);
                        }
                    }),
                });
                drop(batches);
                // Frees the batch's memory before the next one is made.
                let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
            }
        }
    }
    (out, timer)
}

/// Command buffers of `n` passes recorded by `dispatch`.
fn passes(
    gpu: &Gpu,
    dispatch: &impl Fn(&mut wgpu::ComputePass<'_>),
    n: u32,
) -> wgpu::CommandBuffer {
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    for _ in 0..n {
        dispatch(&mut enc.begin_compute_pass(&Default::default()));
    }
    enc.finish()
}

/// Keeps the GPU busy with what `record(n)` records for
/// [`crate::gpu::frame::WARM_UP`], so that its clock has risen.
fn warm_up(gpu: &Gpu, record: impl Fn(u32) -> wgpu::CommandBuffer) {
    let warm = Instant::now();
    while warm.elapsed() < crate::gpu::frame::WARM_UP {
        gpu.queue.submit([record(10)]);
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    }
}

/// Wall time of one submit of `record(iterations)`, per iteration, in ms.
fn wall_ms(gpu: &Gpu, iterations: u32, record: impl Fn(u32) -> wgpu::CommandBuffer) -> f64 {
    let iterations = iterations.max(1);
    let commands = record(iterations);
    let t = Instant::now();
    gpu.queue.submit([commands]);
    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    t.elapsed().as_secs_f64() * 1e3 / iterations as f64
}

/// Wall time of one submit of `iterations` passes recorded by `dispatch`,
/// per pass, in ms (run right after [`gpu_times`], warm): a check on the
/// timestamps.
fn wall_per_pass(gpu: &Gpu, iterations: u32, dispatch: impl Fn(&mut wgpu::ComputePass<'_>)) -> f64 {
    wall_ms(gpu, iterations, |n| passes(gpu, &dispatch, n))
}

/// `copy_buffer_to_buffer` of `bytes` between two device buffers,
/// `iterations` times in one submit after a warm-up: wall ms per copy (the
/// device's own copy speed).
pub fn copy_ms(gpu: &Gpu, bytes: u64, iterations: u32) -> f64 {
    let bytes = bytes.max(4) & !3;
    let make = |usage| {
        gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bench copy"),
            size: bytes,
            usage,
            mapped_at_creation: false,
        })
    };
    let a = make(wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST);
    let b = make(wgpu::BufferUsages::COPY_DST);
    let record = |n: u32| {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        for _ in 0..n {
            enc.copy_buffer_to_buffer(&a, 0, &b, 0, bytes);
        }
        enc.finish()
    };
    warm_up(gpu, record);
    wall_ms(gpu, iterations, record)
}

/// Times `iterations` compute passes recorded by `dispatch`, sorted (ms):
/// with timestamp queries around each pass where the adapter has them, else
/// wall time around a blocking submit. After [`crate::gpu::frame::WARM_UP`]
/// of the same passes, so that the GPU's clock has risen.
pub fn gpu_times(
    gpu: &Gpu,
    iterations: u32,
    dispatch: impl Fn(&mut wgpu::ComputePass<'_>),
) -> (Vec<f64>, &'static str) {
    let iterations = iterations.max(1);
    let timestamps = gpu
        .device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY);
    let run = |timestamp_writes| {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        dispatch(&mut enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("bench"),
            timestamp_writes,
        }));
        enc
    };
    // Warm-up: the GPU's own clock idles low (an H200's SM clock at 345 of
    // 1980 MHz) and rises only under sustained work; 20 passes right after
    // an upload ran 5.5x slower than after half a second of load
    // (docs/performance.md).
    warm_up(gpu, |n| passes(gpu, &dispatch, n));

    let mut times_ms: Vec<f64> = Vec::with_capacity(iterations as usize);
    if !timestamps {
        for _ in 0..iterations {
            let enc = run(None);
            let t = Instant::now();
            gpu.queue.submit([enc.finish()]);
            let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
            times_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times_ms.sort_by(f64::total_cmp);
        return (times_ms, "wall time around submit + wait");
    }
    let set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("bench timestamps"),
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
        dispatch(&mut enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("bench"),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &set,
                beginning_of_pass_write_index: Some(2 * i),
                end_of_pass_write_index: Some(2 * i + 1),
            }),
        }));
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
    times_ms.sort_by(f64::total_cmp);
    (times_ms, "timestamp queries")
}

fn byte(rng: &mut Rng) -> f32 {
    (rng.next_u64() % 256) as f32 / 255.0
}

fn mat_track<T>(
    rng: &mut Rng,
    last_frame: u32,
    interps: &[MatInterp],
    mut value: impl FnMut(&mut Rng) -> T,
) -> MatTrack<T> {
    let mut keys = Vec::new();
    let mut frame = (rng.next_u64() % 4) as u32;
    while frame <= last_frame && keys.len() < 12 {
        keys.push(MatKey {
            frame,
            interp: interps[(rng.next_u64() % interps.len() as u64) as usize],
            value: value(rng),
        });
        frame += 1 + (rng.next_u64() % 6) as u32;
    }
    if rng.next_u64().is_multiple_of(5) {
        keys.clear(); // some tracks stay at the initial value
    }
    MatTrack { keys }
}

/// A scene of `n` animated materials with random tracks of every
/// interpolation and loop mode (used by `bench materials` and the parity
/// tests): material `i` loops as `i % 3` (hold, loop, continue), every third
/// switches textures among five of different sizes, every fourth is
/// additive. One static material sits in the middle (index `n / 2`), and one
/// triangle uses material 0.
pub fn animated_materials(n: usize, seed: u64) -> Scene {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut scene = Scene::default();
    scene.source.file_name = "generated".into();
    for (i, (w, h)) in [(4, 4), (16, 8), (2, 32), (8, 8), (1, 1)]
        .into_iter()
        .enumerate()
    {
        let mut t = Texture::checkerboard(&format!("t{i}"), "generated".into());
        t.width = w;
        t.height = h;
        t.rgba8 = (0..w * h * 4)
            .map(|_| (rng.next_u64() & 255) as u8)
            .collect();
        scene.textures.push(t);
    }
    let colors = [
        MatInterp::Step,
        MatInterp::Linear,
        MatInterp::Hsv,
        MatInterp::Oklch,
    ];
    let scalar = [MatInterp::Step, MatInterp::Linear];
    let pick = |r: &mut Rng| match r.next_u64() % 6 {
        5 => None,
        t => Some(t as usize),
    };
    for i in 0..n {
        let last_frame = 1 + (rng.next_u64() % 40) as u32;
        let loop_mode = [MatLoop::Hold, MatLoop::Loop, MatLoop::Continue][i % 3];
        let mut a = MaterialAnim::new(rng.range(0.01, 0.1), last_frame, loop_mode);
        a.preserve_scroll = rng.next_u64().is_multiple_of(2);
        a.texture_scroll = [rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)];
        a.matcap_scroll = [rng.range(-1.0, 1.0), 0.0];
        a.color = mat_track(&mut rng, last_frame, &colors, |r| {
            [byte(r), byte(r), byte(r), byte(r)]
        });
        a.emission = mat_track(&mut rng, last_frame, &colors, |r| {
            [byte(r), byte(r), byte(r)]
        });
        a.shading = mat_track(&mut rng, last_frame, &scalar, byte);
        if i % 3 == 1 {
            a.texture = mat_track(&mut rng, last_frame, &[MatInterp::Step], pick);
            a.matcap = mat_track(&mut rng, last_frame, &[MatInterp::Step], pick);
        }
        scene.materials.push(Material {
            maps: Default::default(),
            sampling: Default::default(),
            name: format!("m{i}"),
            base_color: [
                byte(&mut rng),
                byte(&mut rng),
                byte(&mut rng),
                byte(&mut rng),
            ],
            emission: [byte(&mut rng), byte(&mut rng), byte(&mut rng)],
            shading: byte(&mut rng),
            texture: pick(&mut rng),
            matcap: pick(&mut rng),
            alpha_cutoff: None,
            blend: if i % 4 == 0 {
                BlendMode::Additive
            } else {
                BlendMode::Opaque
            },
            animation: Some(a),
            properties: Vec::new(),
        });
    }
    scene.materials.insert(n / 2, Material::default());
    scene.meshes.push(Mesh {
        primitive: Default::default(),
        closed: false,
        facing: Vec::new(),
        faceted: false,
        tangents: None,
        extra_uvs: Vec::new(),
        name: "triangle".into(),
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        normals: vec![Vec3::Z; 3],
        uvs: vec![glam::Vec2::ZERO, glam::Vec2::X, glam::Vec2::Y],
        colors: None,
        indices: vec![0, 1, 2],
        material: Some(0),
        visible: true,
        has_file_normals: true,
        has_file_uvs: true,
        skin: None,
        material_overrides: vec![],
    });
    scene
}

pub struct MaterialBenchResult {
    pub adapter: String,
    pub materials: u32,
    pub keys: usize,
    pub timer: &'static str,
    pub gpu_ms_median: f64,
    pub gpu_ms_min: f64,
    pub cpu_materials_per_s: f64,
}

impl MaterialBenchResult {
    pub fn report(&self) -> String {
        format!(
            "adapter: {}\nanimated materials: {}  keyframes: {}\n\
             GPU ({}): median {:.4} ms, min {:.4} ms -> {:.1} M materials/s\n\
             CPU reference (1 thread): {:.2} M materials/s",
            self.adapter,
            self.materials,
            self.keys,
            self.timer,
            self.gpu_ms_median,
            self.gpu_ms_min,
            self.materials as f64 / (self.gpu_ms_median * 1e-3) / 1e6,
            self.cpu_materials_per_s / 1e6
        )
    }

    /// `materials/<count>/gpu` (median, ms), `gpu_min`, `rate` (GPU, M
    /// materials/s), `cpu_rate` (the CPU reference, M materials/s) and
    /// `keys`, as `target/bench` records.
    pub fn records(&self) -> serde_json::Value {
        let n = count_name(self.materials);
        let rate = |ms: f64| self.materials as f64 / (ms * 1e-3) / 1e6;
        serde_json::Value::Array(
            [
                ("gpu", self.gpu_ms_median, "ms"),
                ("gpu_min", self.gpu_ms_min, "ms"),
                ("rate", rate(self.gpu_ms_median), "M materials/s"),
                ("cpu_rate", self.cpu_materials_per_s / 1e6, "M materials/s"),
                ("keys", self.keys as f64, "keyframes"),
            ]
            .into_iter()
            .map(|(what, value, unit)| {
                record(&format!("materials/{n}/{what}"), value, unit, &self.adapter)
            })
            .collect(),
        )
    }
}

/// One frame of material animation (the compute pass alone) for `n`
/// generated materials, against the CPU reference evaluating the same.
pub fn materials(gpu: &Gpu, n: u32, iterations: u32) -> MaterialBenchResult {
    let scene = animated_materials(n.max(1) as usize, 11);
    let renderer = crate::gpu::Renderer::new(gpu, crate::gpu::capture::CAPTURE_FORMAT, 1);
    let gs = crate::gpu::GpuScene::new(gpu, &renderer, &scene);
    let batch = gs.material_anim.as_ref().expect("the materials animate");
    renderer
        .material_animator
        .set_time(&gpu.queue, batch, 1.2345);
    let (times_ms, timer) = gpu_times(gpu, iterations, |pass| {
        renderer.material_animator.dispatch(pass, batch)
    });
    let t = Instant::now();
    let mut sink = 0.0;
    for m in &scene.materials {
        sink += crate::anim::material::evaluate(m, 1.2345).color[0];
    }
    let cpu = scene.materials.len() as f64 / t.elapsed().as_secs_f64();
    std::hint::black_box(sink);
    let keys = scene
        .materials
        .iter()
        .filter_map(|m| m.animation.as_ref())
        .map(|a| {
            a.color.keys.len()
                + a.emission.keys.len()
                + a.shading.keys.len()
                + a.texture.keys.len()
                + a.matcap.keys.len()
        })
        .sum();
    MaterialBenchResult {
        adapter: gpu.describe(),
        materials: batch.count,
        keys,
        timer,
        gpu_ms_median: times_ms[times_ms.len() / 2],
        gpu_ms_min: times_ms[0],
        cpu_materials_per_s: cpu,
    }
}

/// `facet bench map`: frame times of a map with and without visibility
/// culling, each with and without frustum culling, from a player's eye in
/// a ground-level cell.
pub struct MapBenchResult {
    pub name: String,
    pub adapter: String,
    pub size: (u32, u32),
    pub frames: u32,
    /// Samples a pixel (multisampling).
    pub samples: u32,
    pub cell: Option<(usize, usize)>,
    pub rows: Vec<MapRow>,
}

/// One way of drawing the map: what it drew and how long frames took (ms).
pub struct MapRow {
    pub label: &'static str,
    /// `all`, `view` (frustum culling), `visible` (the cell's visibility
    /// lists), `visible_view` (both) or `none` (no mesh), for the records.
    pub key: &'static str,
    pub triangles: u64,
    pub draws: u32,
    pub median: f64,
    pub p90: f64,
    pub p99: f64,
    /// Recording and submitting, the median: the CPU's part of a frame.
    pub cpu_median: f64,
}

impl MapBenchResult {
    pub fn report(&self) -> String {
        let mut s = format!(
            "{} on {} at {}x{}, {} sample(s) a pixel, {} frames, eye in cell {:?}\n",
            self.name, self.adapter, self.size.0, self.size.1, self.samples, self.frames, self.cell
        );
        s += &format!(
            "{:<22} {:>10} {:>6} {:>10} {:>8} {:>8} {:>8} {:>14}\n",
            "", "triangles", "draws", "median ms", "p90 ms", "p99 ms", "FPS", "CPU median ms"
        );
        for r in &self.rows {
            s += &format!(
                "{:<22} {:>10} {:>6} {:>10.3} {:>8.3} {:>8.3} {:>8.0} {:>14.3}\n",
                r.label,
                r.triangles,
                r.draws,
                r.median,
                r.p90,
                r.p99,
                1e3 / r.median,
                r.cpu_median
            );
        }
        s
    }

    /// Records `map/<size>/msaa<samples>/<row key>/{median,p90,p99,cpu}`
    /// (ms), `.../fps` (from the median) and `.../triangles`, the machine
    /// being the adapter.
    pub fn records(&self) -> serde_json::Value {
        let mut out = Vec::new();
        for r in &self.rows {
            let name = format!(
                "map/{}x{}/msaa{}/{}",
                self.size.0, self.size.1, self.samples, r.key
            );
            for (what, value, unit) in [
                ("median", r.median, "ms"),
                ("p90", r.p90, "ms"),
                ("p99", r.p99, "ms"),
                ("cpu", r.cpu_median, "ms"),
                ("fps", 1e3 / r.median, "FPS"),
                ("triangles", r.triangles as f64, "triangles"),
            ] {
                out.push(record(
                    &format!("{name}/{what}"),
                    value,
                    unit,
                    &self.adapter,
                ));
            }
        }
        serde_json::Value::Array(out)
    }
}

pub fn map_frames(
    gpu: &Gpu,
    name: &str,
    scene: &Scene,
    size: (u32, u32),
    frames: u32,
    samples: Option<u32>,
) -> MapBenchResult {
    use crate::gpu::capture;
    use crate::scene::map_query;
    let format = capture::CAPTURE_FORMAT;
    // The viewer's multisampling unless asked for 1 (only 1 and the
    // adapter's own count are sure to work).
    let samples = match samples {
        Some(1) => 1,
        _ => gpu.sample_count(format),
    };
    let renderer = crate::gpu::Renderer::new(gpu, format, samples);
    let mut gs = crate::gpu::GpuScene::new(gpu, &renderer, scene);
    let info = scene.map.as_ref().expect("a map");
    let bounds = scene.bounds(None);
    // A player's eye: 1.6 units above the ground near the middle of the map,
    // looking along +X, slightly down.
    let mid = bounds.center();
    let ground = map_query::pick(
        &info.map,
        glam::Vec3::new(mid.x + 0.3, bounds.max.y + 1.0, mid.z + 0.3),
        glam::Vec3::NEG_Y,
    )
    .map_or(bounds.min.y, |(_, _, t)| bounds.max.y + 1.0 - t);
    let eye = glam::Vec3::new(mid.x + 0.3, ground + 1.6, mid.z + 0.3);
    let mut camera = crate::gpu::OrbitCamera::framing(&bounds, size.0 as f32 / size.1 as f32);
    camera.target = eye + glam::Vec3::new(1.0, -0.1, 0.0);
    camera.distance = 1.0;
    camera.yaw = std::f32::consts::FRAC_PI_2 + std::f32::consts::PI;
    camera.pitch = 0.1;
    let eye = camera.eye();
    let cell = map_query::cell_at(&info.map, eye);
    let mut opts = crate::gpu::ViewOptions::for_scene(scene);
    opts.grid = false;
    let mut rows = Vec::new();
    let mut row = |label, key, opts: &crate::gpu::ViewOptions| {
        use crate::gpu::frame::FrameTimes;
        let input = crate::gpu::FrameInput::at_rest(&camera, opts);
        let (t, stats) =
            crate::gpu::frame::time_frames(gpu, &renderer, &mut gs, &input, size, frames);
        MapRow {
            label,
            key,
            triangles: stats.triangles,
            draws: stats.draw_calls,
            median: FrameTimes::quantile(&t.total, 0.5),
            p90: FrameTimes::quantile(&t.total, 0.9),
            p99: FrameTimes::quantile(&t.total, 0.99),
            cpu_median: FrameTimes::quantile(&t.cpu, 0.5),
        }
    };
    // Each way of drawing without and with frustum culling (the viewer's).
    opts.frustum_cull = false;
    rows.push(row("everything", "all", &opts));
    opts.frustum_cull = true;
    rows.push(row("in the view", "view", &opts));
    if let Some((s, c)) = cell {
        opts.ranges = Some(std::sync::Arc::new(map_query::draw_ranges(
            info,
            &map_query::visible_cubes(&info.map, s, c),
        )));
        opts.frustum_cull = false;
        rows.push(row("visible from the cell", "visible", &opts));
        opts.frustum_cull = true;
        rows.push(row("visible, in the view", "visible_view", &opts));
    }
    // No mesh: what a frame costs whatever is drawn (the clears, the
    // resolve, the submit and the wait).
    opts.ranges = Some(std::sync::Arc::new(vec![Vec::new(); scene.meshes.len()]));
    rows.push(row("nothing", "none", &opts));
    MapBenchResult {
        name: name.to_string(),
        adapter: gpu.describe(),
        size,
        frames,
        samples,
        cell,
        rows,
    }
}
