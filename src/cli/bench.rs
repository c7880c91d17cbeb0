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

    let (times_ms, timer) = gpu_times(gpu, iterations, |pass| skinner.dispatch(pass, &batch));

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
        timer,
        gpu_ms_median: times_ms[times_ms.len() / 2],
        gpu_ms_min: times_ms[0],
        cpu_vertices_per_s: cpu,
    }
}

/// Times `iterations` compute passes recorded by `dispatch`, sorted (ms):
/// with timestamp queries around each pass where the adapter has them, else
/// wall time around a blocking submit. One warm-up pass first.
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
    gpu.queue.submit([run(None).finish()]);
    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());

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
/// culling, from a player's eye in a ground-level cell.
pub struct MapBenchResult {
    pub name: String,
    pub adapter: String,
    pub size: (u32, u32),
    pub cell: Option<(usize, usize)>,
    /// (label, triangles drawn, draw calls, median ms, p90 ms)
    pub rows: Vec<(&'static str, u64, u32, f64, f64)>,
}

impl MapBenchResult {
    pub fn report(&self) -> String {
        let mut s = format!(
            "{} on {} at {}x{}, eye in cell {:?}\n",
            self.name, self.adapter, self.size.0, self.size.1, self.cell
        );
        s += &format!(
            "{:<22} {:>10} {:>6} {:>10} {:>10}\n",
            "", "triangles", "draws", "median ms", "p90 ms"
        );
        for (label, tris, draws, med, p90) in &self.rows {
            s += &format!("{label:<22} {tris:>10} {draws:>6} {med:>10.2} {p90:>10.2}\n");
        }
        s
    }
}

pub fn map_frames(
    gpu: &Gpu,
    name: &str,
    scene: &Scene,
    size: (u32, u32),
    frames: u32,
) -> MapBenchResult {
    use crate::gpu::capture;
    use crate::scene::map_query;
    let format = capture::CAPTURE_FORMAT;
    let renderer = crate::gpu::Renderer::new(gpu, format, gpu.sample_count(format));
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
    let mut row = |label, opts: &crate::gpu::ViewOptions| {
        let input = crate::gpu::FrameInput::at_rest(&camera, opts);
        let (t, stats) =
            crate::gpu::frame::time_frames(gpu, &renderer, &mut gs, &input, size, frames);
        let p90 = t[(t.len() * 9 / 10).min(t.len() - 1)];
        (
            label,
            stats.triangles,
            stats.draw_calls,
            t[t.len() / 2],
            p90,
        )
    };
    rows.push(row("everything", &opts));
    if let Some((s, c)) = cell {
        opts.ranges = Some(std::sync::Arc::new(map_query::draw_ranges(
            info,
            &map_query::visible_cubes(&info.map, s, c),
        )));
        rows.push(row("visible from the cell", &opts));
    }
    MapBenchResult {
        name: name.to_string(),
        adapter: gpu.describe(),
        size,
        cell,
        rows,
    }
}
