//! Scene -> GPU buffers and textures, uploaded once per loaded scene.
//!
//! Each mesh draws from two vertex streams: position + octahedral normal (16 B,
//! static or written by the skinning pass) and UV (8 B, static). Overlays use
//! the same streams (wireframe through an edge index buffer, normals by
//! instancing), so they follow the pose. Grid and bounds live in one static
//! line buffer; the skeleton overlay is built in rest space and moved by the
//! bone matrices on the GPU.

use super::buffers;
use super::materials::{self, MaterialAnimBatch, MaterialUniform, TextureLayers};
use super::renderer::{MaterialTextures, Renderer};
use super::skinning::{self, PosNormal, SkinBatch, SkinVertex};
use super::texture::{GpuTexture, upload_compressed, upload_texture_as};
use super::vertex::{BoneVertex, LineVertex, UvColor, push_box};
use crate::anim::material::MaterialState;
use crate::scene::{Aabb, BlendMode, Primitive, Scene};
use glam::{Mat4, Vec3};
use std::ops::Range;
use wgpu::util::DeviceExt;

/// Where a mesh's position/normal stream lives.
pub enum Stream {
    Static(wgpu::Buffer),
    /// A byte range of the scene's skinned output buffer.
    Skinned(Range<u64>),
}

pub struct GpuMesh {
    pub stream: Stream,
    pub vertex_count: u32,
    pub uvs: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub index_count: u32,
    /// 16-bit where every index fits, as for most meshes of game assets;
    /// the edges share it.
    pub index_format: wgpu::IndexFormat,
    pub edges: wgpu::Buffer,
    pub edge_index_count: u32,
    /// Index into `GpuScene::materials` (the last one is the default).
    pub material: usize,
    /// Rest-pose bounds in the static line buffer.
    pub bounds: Range<u32>,
    /// The rest-pose bounds: static meshes wholly out of view are not
    /// drawn (a skinned one moves with its pose), and alpha-blended meshes
    /// are drawn back to front by the distance of their centre.
    pub aabb: crate::scene::Aabb,
    pub primitive: crate::scene::Primitive,
    /// Part of the scene's closed surface ([`crate::scene::Mesh::closed`]).
    pub closed: bool,
    /// Its triangles' runs by facing ([`crate::scene::Mesh::facing`]),
    /// where they tile its indices; else none.
    pub facing: Vec<crate::scene::Facing>,
    /// Shaded once per vertex where its material allows
    /// ([`crate::scene::Mesh::faceted`], [`super::materials::mesh_features`]).
    pub faceted: bool,
}

/// Whether `facing` holds runs of whole triangles that follow each other
/// from the first index to the last (`count`): only then may the draw
/// stand them in for the mesh's indices.
fn tiles_indices(facing: &[crate::scene::Facing], count: usize, primitive: Primitive) -> bool {
    let mut at = 0u32;
    primitive == Primitive::Triangles
        && !facing.is_empty()
        && facing.iter().all(|f| {
            let whole = f.start == at && f.end >= f.start && (f.end - f.start) % 3 == 0;
            at = f.end;
            whole
        })
        && at as usize == count
}

impl GpuMesh {
    /// Whether this mesh draws with back faces culled: a closed surface's
    /// opaque triangles while every closed mesh is drawn (`whole`: hiding a
    /// part opens the surface), else both sides.
    pub fn culled(&self, blend: BlendMode, whole: bool) -> bool {
        self.closed
            && whole
            && blend == BlendMode::Opaque
            && self.primitive == crate::scene::Primitive::Triangles
    }
}

pub struct GpuMaterial {
    pub bind_group: wgpu::BindGroup,
    pub blend: BlendMode,
    /// The mesh shader features it draws with
    /// ([`super::materials::shader_features`]).
    pub features: u32,
}

pub struct GpuScene {
    /// What had to change to fit the device (textures downscaled...).
    pub warnings: Vec<String>,
    pub meshes: Vec<GpuMesh>,
    /// Bind groups per scene material, then the default material.
    pub materials: Vec<GpuMaterial>,
    /// One `SLOT_STRIDE` slot per entry of `materials`, bound as uniforms by
    /// the mesh pass and rewritten by the material animation pass.
    pub material_slots: wgpu::Buffer,
    /// Keyframes of the animated materials (`None`: nothing animates).
    pub material_anim: Option<MaterialAnimBatch>,
    pub texture_layers: TextureLayers,
    /// The layers of `texture_layers`, when there are any.
    pub texture_array: Option<wgpu::Texture>,
    pub textures: Vec<GpuTexture>,
    pub lines: wgpu::Buffer,
    pub grid: Range<u32>,
    pub scene_bounds: Range<u32>,
    pub bounds: Aabb,
    /// One 3x4 matrix per bone (identity when the scene has no skeleton).
    pub bones: wgpu::Buffer,
    pub bone_count: usize,
    /// Every skinned vertex of the scene, skinned in one dispatch.
    pub skin: Option<SkinBatch>,
    /// Skeleton overlay vertices (line list) and its bind group.
    pub skeleton: Option<wgpu::Buffer>,
    pub skeleton_vertices: u32,
    pub overlay: wgpu::Buffer,
    pub overlay_bind_group: wgpu::BindGroup,
    /// Lines the app rewrites as the user inspects (map boxes and grids):
    /// a line list, `extra_line_count` vertices used.
    pub extra_lines: Option<wgpu::Buffer>,
    pub extra_line_count: u32,
    /// Scratch for bone uploads (no per-frame allocation).
    pub(crate) bone_scratch: Vec<[f32; 4]>,
    /// The bone rows in `bones` and skinned into the streams (empty before
    /// the first pose): a frame with the same rows uploads and skins nothing.
    pub(crate) posed_rows: Vec<[f32; 4]>,
    /// How many times the skinned streams were computed (one dispatch of
    /// every skinned vertex each); a pose that did not change adds none.
    pub skin_passes: u64,
    /// Scratch for each frame's draw order (no per-frame allocation).
    pub(crate) draw_order: Vec<(u64, f32, u32)>,
    /// What the meshes' vertex colours hold now.
    pub vertex_colors: VertexColors,
}

impl GpuMesh {
    pub fn stream<'a>(&'a self, scene: &'a GpuScene) -> Option<wgpu::BufferSlice<'a>> {
        match &self.stream {
            Stream::Static(b) => Some(b.slice(..)),
            Stream::Skinned(r) => scene.skin.as_ref().map(|s| s.dst.slice(r.clone())),
        }
    }
}

/// What the meshes' vertex colours hold: the file's, or what a view mode
/// shows through them ([`super::Channel::Weights`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VertexColors {
    /// The file's vertex colours (white where it has none).
    #[default]
    File,
    /// Each skinned vertex's weight for this bone (`None`: no bone
    /// selected, so none), for `mesh.wgsl` to colour per pixel: white with
    /// the weight in alpha (which stays linear, so it interpolates as a
    /// weight); vertices of meshes that are not skinned black.
    Weights(Option<usize>),
}

impl VertexColors {
    /// What `view` shows through the vertex colours, `bone` selected.
    pub fn for_view(view: &super::ViewOptions, bone: Option<usize>) -> VertexColors {
        match view.channel {
            super::Channel::Weights => VertexColors::Weights(bone),
            _ => VertexColors::File,
        }
    }
}

/// Vertex `i`'s weight for `bone` in `skin`, in 1/255s (its joints naming
/// the bone twice count twice, as skinning adds them).
fn weight_of(skin: &crate::scene::Skin, i: usize, bone: Option<usize>) -> u8 {
    let (Some(b), Some(j), Some(w)) = (bone, skin.joints.get(i), skin.weights.get(i)) else {
        return 0;
    };
    let units: u32 = (0..4)
        .filter(|&k| j[k] as usize == b)
        .map(|k| w[k] as u32)
        .sum();
    let whole = crate::scene::WEIGHT_UNITS as u32;
    ((units.min(whole) * 255 + whole / 2) / whole) as u8
}

/// Vertex `i` of `m` as the mesh pipelines read it beside the position:
/// its UV, its colour (`colors` says which) and, where the stream is
/// static, the file's tangent frame.
fn uv_color(m: &crate::scene::Mesh, i: usize, static_frame: bool, colors: VertexColors) -> UvColor {
    let color = match colors {
        VertexColors::File => m
            .colors
            .as_ref()
            .and_then(|c| c.get(i).copied())
            .unwrap_or([255; 4]),
        VertexColors::Weights(bone) => match &m.skin {
            Some(skin) => [255, 255, 255, weight_of(skin, i, bone)],
            None => [0, 0, 0, 255],
        },
    };
    UvColor {
        uv: m.uvs.get(i).copied().unwrap_or_default().into(),
        color,
        // Skinning moves positions and normals only: a skinned mesh's
        // frame comes from its UVs per pixel.
        frame: m
            .tangents
            .as_ref()
            .filter(|_| static_frame)
            .and_then(|t| t.get(i))
            .map_or([0; 2], |[t, b]| {
                [skinning::oct_encode(*t), skinning::oct_encode(*b)]
            }),
    }
}

fn range(out: &[LineVertex], start: usize) -> Range<u32> {
    start as u32..out.len() as u32
}

/// Octahedral bone shapes in rest model space: head, a ring a tenth of the
/// way along the bone, tail.
fn skeleton_lines(scene: &Scene) -> Vec<BoneVertex> {
    let mut out = Vec::new();
    for (i, b) in scene.skeleton.bones.iter().enumerate() {
        let len = (b.tail - b.head).length();
        if len <= 0.0 {
            continue;
        }
        let x = b.rest.x_axis.truncate().normalize_or(Vec3::X) * len * 0.1;
        let z = b.rest.z_axis.truncate().normalize_or(Vec3::Z) * len * 0.1;
        let mid = b.head + (b.tail - b.head) * 0.1;
        let ring = [mid + x, mid + z, mid - x, mid - z];
        let bone = i as u32;
        let mut line = |a: Vec3, c: Vec3| {
            out.push(BoneVertex {
                position: a.into(),
                bone,
            });
            out.push(BoneVertex {
                position: c.into(),
                bone,
            });
        };
        for k in 0..4 {
            line(b.head, ring[k]);
            line(ring[k], b.tail);
            line(ring[k], ring[(k + 1) % 4]);
        }
    }
    out
}

/// The narrowest index format that holds every one of `indices`: 16 bits
/// below 0xFFFF (a strip's restart value, kept out of lists as well), else
/// 32. Half the index memory and the bytes the GPU fetches for a mesh of
/// fewer than 65,535 vertices.
pub fn index_format(indices: &[u32]) -> wgpu::IndexFormat {
    // A maximum, not `all`: no early exit, so the loop vectorises.
    if indices.iter().fold(0, |a, &i| a.max(i)) < 0xFFFF {
        wgpu::IndexFormat::Uint16
    } else {
        wgpu::IndexFormat::Uint32
    }
}

/// `indices` in an index buffer of `format` (from [`index_format`]).
fn index_buffer(
    device: &wgpu::Device,
    label: &str,
    indices: &[u32],
    format: wgpu::IndexFormat,
) -> wgpu::Buffer {
    let usage = wgpu::BufferUsages::INDEX;
    match format {
        wgpu::IndexFormat::Uint16 => {
            buffers::buffer_in_batches(device, label, usage, indices.len(), |range, batch| {
                batch.extend(indices[range].iter().map(|&i| i as u16))
            })
        }
        wgpu::IndexFormat::Uint32 => {
            buffers::buffer_in_batches(device, label, usage, indices.len(), |range, batch| {
                batch.extend_from_slice(&indices[range])
            })
        }
    }
}

/// Indices from which a mesh's edges are found on a thread of their own
/// during its upload (below, starting the thread costs more than it saves).
const EDGES_APART: usize = 300_000;

/// Each edge of `m`'s triangles once, as (lower, higher) vertex pairs in
/// order, for the wireframe and the selection outline. The edges are
/// bucketed by their lower vertex (a counting sort over the vertices) and
/// each bucket, a vertex's few neighbours, sorted and deduplicated where it
/// lies: two passes over the triangles and one over the vertices, all in
/// order. A hash set of every edge made most of a large mesh's upload, its
/// table far out of cache (docs/performance.md). Edges naming a vertex the
/// mesh lacks are left out.
pub fn mesh_edges(m: &crate::scene::Mesh) -> Vec<u32> {
    let n = m.positions.len();
    // ends[v]: first the count of edges whose lower vertex is below v, then
    // (after the scatter moves each past its bucket) the end of v's bucket.
    let mut ends = vec![0u32; n + 1];
    for_each_edge(m, n, |low, _| ends[low as usize + 1] += 1);
    for v in 1..=n {
        ends[v] += ends[v - 1];
    }
    let mut higher = vec![0u32; ends[n] as usize];
    for_each_edge(m, n, |low, high| {
        let at = &mut ends[low as usize];
        higher[*at as usize] = high;
        *at += 1;
    });
    let mut out = Vec::with_capacity(higher.len());
    let mut begin = 0;
    for (v, &end) in ends[..n].iter().enumerate() {
        let bucket = &mut higher[begin..end as usize];
        begin = end as usize;
        bucket.sort_unstable();
        let mut last = u32::MAX;
        for &h in bucket.iter() {
            if h != last {
                out.extend_from_slice(&[v as u32, h]);
                last = h;
            }
        }
    }
    out
}

/// Each of `m`'s triangle edges as (lower, higher) to `each`, those within
/// its `n` vertices (a plain loop: a chain of iterator adapters here did
/// not unroll and took a third of `mesh_edges`).
fn for_each_edge(m: &crate::scene::Mesh, n: usize, mut each: impl FnMut(u32, u32)) {
    for t in m.triangles() {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            let (low, high) = (a.min(b), a.max(b));
            if (high as usize) < n {
                each(low, high);
            }
        }
    }
}

/// What an upload builds beyond what every frame draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UploadOptions {
    /// Each mesh's edges, for the wireframe and the selection outline (a
    /// render or thumbnail that draws neither skips them).
    pub edges: bool,
}

impl Default for UploadOptions {
    fn default() -> Self {
        UploadOptions { edges: true }
    }
}

/// A scene's overlay buffers ([`GpuScene`]'s fields of the same names).
struct OverlayBuffers {
    /// The grid, boxes and normals, a line list (one unused vertex where
    /// there are none: a buffer may not be empty).
    lines: wgpu::Buffer,
    /// The skeleton's bones as lines, where it has any.
    skeleton: Option<wgpu::Buffer>,
    skeleton_vertices: u32,
    /// The overlay's parameters (the bone picked: none at first).
    params: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

impl OverlayBuffers {
    fn new(
        device: &wgpu::Device,
        r: &Renderer,
        scene: &Scene,
        mut lines: Vec<LineVertex>,
        bones: &wgpu::Buffer,
    ) -> OverlayBuffers {
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
        let skel = skeleton_lines(scene);
        let skeleton = (!skel.is_empty()).then(|| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("skeleton overlay"),
                contents: bytemuck::cast_slice(&skel),
                usage: wgpu::BufferUsages::VERTEX,
            })
        });
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("overlay params"),
            contents: bytemuck::cast_slice(&[u32::MAX, 0, 0, 0]),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let bind_group = r.bones_bind_group(device, bones, &params);
        OverlayBuffers {
            lines,
            skeleton,
            skeleton_vertices: skel.len() as u32,
            params,
            bind_group,
        }
    }
}

impl GpuScene {
    /// Uploads a scene. Textures referenced out of range fall back to white.
    pub fn new(gpu: &super::Gpu, r: &Renderer, scene: &Scene) -> GpuScene {
        Self::new_with(gpu, r, scene, UploadOptions::default())
    }

    /// As [`GpuScene::new`], building what `options` asks for.
    pub fn new_with(
        gpu: &super::Gpu,
        r: &Renderer,
        scene: &Scene,
        options: UploadOptions,
    ) -> GpuScene {
        let device = &gpu.device;
        let mut warnings = Vec::new();
        let textures = upload_textures(gpu, scene, &mut warnings);
        let (texture_layers, texture_array, array_view) = upload_texture_layers(gpu, scene);
        let (material_slots, materials) = upload_materials(
            device,
            r,
            scene,
            &texture_layers,
            &textures,
            array_view.as_ref(),
        );
        let material_anim =
            r.material_animator
                .batch(device, scene, &texture_layers, &material_slots);

        // Each mesh's box once: the scene's is their union.
        let mesh_bounds: Vec<Aabb> = scene.meshes.iter().map(|m| m.bounds()).collect();
        let bounds = scene.bounds_from(None, |i| mesh_bounds[i]);
        let bone_count = scene.skeleton.bones.len();
        let bones = skinning::bone_buffer(device, bone_count);
        let mut up = MeshUpload {
            device,
            options,
            can_skin: bone_count > 0 && bone_count <= skinning::MAX_BONES,
            default_material: materials.len() - 1,
            skin_vertices: Vec::new(),
            lines: Vec::new(),
        };
        let grid = grid_lines(&mut up.lines, &bounds);
        let start = up.lines.len();
        push_box(&mut up.lines, &bounds, [255, 200, 40, 255]);
        let scene_bounds = range(&up.lines, start);
        let meshes = scene
            .meshes
            .iter()
            .zip(&mesh_bounds)
            .map(|(m, &bounds)| up.mesh(m, bounds))
            .collect();
        let MeshUpload {
            skin_vertices,
            lines,
            ..
        } = up;
        let overlays = OverlayBuffers::new(device, r, scene, lines, &bones);
        let skin =
            (!skin_vertices.is_empty()).then(|| r.skinner.batch(device, &skin_vertices, &bones));
        let mut gs = GpuScene {
            warnings,
            meshes,
            materials,
            material_slots,
            material_anim,
            texture_layers,
            texture_array,
            textures,
            lines: overlays.lines,
            grid,
            scene_bounds,
            bounds,
            bones,
            bone_count,
            skin,
            skeleton: overlays.skeleton,
            skeleton_vertices: overlays.skeleton_vertices,
            extra_lines: None,
            extra_line_count: 0,
            overlay: overlays.params,
            overlay_bind_group: overlays.bind_group,
            bone_scratch: Vec::with_capacity(3 * bone_count.max(1)),
            posed_rows: Vec::with_capacity(3 * bone_count.max(1)),
            skin_passes: 0,
            vertex_colors: VertexColors::File,
            draw_order: Vec::new(),
        };
        // Skinned streams start at the rest pose.
        let rest = vec![Mat4::IDENTITY; bone_count];
        gs.set_pose(gpu, r, &rest);
        gs.make_pipelines(r);
        gs
    }

    /// Makes the mesh pipelines this scene draws with in the shaded view,
    /// on the thread that uploads: a GPU's driver compiles a pipeline when
    /// it is made, which at the first frame would stall the window. Those
    /// of a channel view or the matcap preset (`features::VIEWS`) are made
    /// at the first frame that shows one: made here, every thumbnail would
    /// compile them for nothing.
    fn make_pipelines(&self, r: &Renderer) {
        for m in &self.meshes {
            let material = &self.materials[m.material];
            let cull = m.culled(material.blend, true);
            let features = super::materials::mesh_features(material.features, m.faceted);
            r.mesh_pipeline(features, material.blend, m.primitive, cull);
        }
    }

    /// As [`GpuScene::new`], with every validation and out-of-memory error
    /// of the upload captured: such an error is this file's load error (one
    /// line), never the end of the process.
    pub fn try_new(gpu: &super::Gpu, r: &Renderer, scene: &Scene) -> Result<GpuScene, String> {
        Self::try_new_with(gpu, r, scene, UploadOptions::default())
    }

    /// As [`GpuScene::try_new`], building what `options` asks for.
    pub fn try_new_with(
        gpu: &super::Gpu,
        r: &Renderer,
        scene: &Scene,
        options: UploadOptions,
    ) -> Result<GpuScene, String> {
        super::limits::check_buffers(scene, &gpu.device.limits())?;
        gpu.capture(|| GpuScene::new_with(gpu, r, scene, options))
    }

    /// Uploads the skinning matrices (one per bone) and skins every skinned
    /// mesh on the GPU, unless they are the matrices the streams already
    /// hold. Allocates nothing once the scene is uploaded.
    pub fn set_pose(&mut self, gpu: &super::Gpu, r: &Renderer, skin_matrices: &[Mat4]) {
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("pose"),
            });
        self.encode_pose(&gpu.queue, r, &mut encoder, skin_matrices);
        gpu.queue.submit([encoder.finish()]);
    }

    /// As [`Self::set_pose`], recording the dispatch into `encoder`, which
    /// must be submitted: the scene counts the pose as skinned from here.
    pub fn encode_pose(
        &mut self,
        queue: &wgpu::Queue,
        r: &Renderer,
        encoder: &mut wgpu::CommandEncoder,
        skin_matrices: &[Mat4],
    ) {
        if self.bone_count == 0 {
            return;
        }
        let matrices = &skin_matrices[..skin_matrices.len().min(self.bone_count)];
        skinning::write_bone_rows(matrices, self.bone_count, &mut self.bone_scratch);
        // Compared as bits: the same bits skin to the same stream (NaNs
        // included), and a paused or rest pose costs the GPU nothing.
        let rows: &[u8] = bytemuck::cast_slice(&self.bone_scratch);
        if rows == bytemuck::cast_slice::<_, u8>(&self.posed_rows) {
            return;
        }
        queue.write_buffer(&self.bones, 0, rows);
        if let Some(batch) = &self.skin {
            r.skinner.encode(encoder, batch);
            self.skin_passes += 1;
        }
        std::mem::swap(&mut self.posed_rows, &mut self.bone_scratch);
    }

    /// Evaluates every animated material at `time` (seconds on the global
    /// timeline) on the GPU, writing their slots. Uploads 16 bytes.
    pub fn encode_materials(
        &self,
        queue: &wgpu::Queue,
        r: &Renderer,
        encoder: &mut wgpu::CommandEncoder,
        time: f32,
    ) {
        if let Some(batch) = &self.material_anim {
            r.material_animator.encode(queue, encoder, batch, time);
        }
    }

    /// As [`Self::encode_materials`], submitted on its own.
    pub fn set_material_time(&self, gpu: &super::Gpu, r: &Renderer, time: f32) {
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("materials"),
            });
        self.encode_materials(&gpu.queue, r, &mut encoder, time);
        gpu.queue.submit([encoder.finish()]);
    }

    /// Replaces the extra overlay lines (a line list); the buffer grows when
    /// it must and is reused otherwise.
    pub fn set_extra_lines(&mut self, gpu: &super::Gpu, lines: &[LineVertex]) {
        let bytes: &[u8] = bytemuck::cast_slice(lines);
        let fits = self
            .extra_lines
            .as_ref()
            .is_some_and(|b| b.size() >= bytes.len() as u64);
        if !fits && !bytes.is_empty() {
            self.extra_lines = Some(gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("extra overlay lines"),
                size: (bytes.len() as u64).next_power_of_two().max(1024),
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(b) = &self.extra_lines
            && !bytes.is_empty()
        {
            gpu.queue.write_buffer(b, 0, bytes);
        }
        self.extra_line_count = lines.len() as u32;
    }

    /// Makes the meshes' vertex colours hold `colors` (`scene` is the one
    /// uploaded): rewritten only when that changes, a batch at a time.
    pub fn show_vertex_colors(&mut self, queue: &wgpu::Queue, scene: &Scene, colors: VertexColors) {
        if self.vertex_colors == colors {
            return;
        }
        self.vertex_colors = colors;
        const BATCH: usize = 4096;
        let mut batch = Vec::new();
        for (gm, m) in self.meshes.iter().zip(&scene.meshes) {
            let n = (gm.vertex_count as usize).min(m.positions.len());
            let static_frame = matches!(gm.stream, Stream::Static(_));
            for start in (0..n).step_by(BATCH) {
                batch.clear();
                batch.extend(
                    (start..(start + BATCH).min(n)).map(|i| uv_color(m, i, static_frame, colors)),
                );
                let offset = (start * std::mem::size_of::<UvColor>()) as u64;
                queue.write_buffer(&gm.uvs, offset, bytemuck::cast_slice(&batch));
            }
        }
    }

    /// Highlights a bone in the skeleton overlay.
    pub fn set_selected_bone(&self, queue: &wgpu::Queue, bone: Option<usize>) {
        let v = bone.map_or(u32::MAX, |b| b as u32);
        queue.write_buffer(&self.overlay, 0, bytemuck::cast_slice(&[v, 0, 0, 0]));
    }
}

/// The scene's textures, each fitted first to the device's largest 2D
/// size (a warning in `warnings` for each one fitted), kept block
/// compressed where the device samples BC and the size allows.
fn upload_textures(gpu: &super::Gpu, scene: &Scene, warnings: &mut Vec<String>) -> Vec<GpuTexture> {
    let max = gpu.device.limits().max_texture_dimension_2d;
    scene
        .textures
        .iter()
        .map(|t| {
            let fitted = super::limits::fit_texture(t, max);
            let t = match &fitted {
                Some((f, why)) => {
                    warnings.push(why.clone());
                    f
                }
                None => t,
            };
            match &t.compressed {
                Some(c) if gpu.supports_bc() && t.width % 4 == 0 && t.height % 4 == 0 => {
                    upload_compressed(gpu, t, c)
                }
                _ => upload_texture_as(gpu, &t.name, t.width, t.height, &t.pixels(), t.srgb),
            }
        })
        .collect()
}

/// The texture array that texture-switching materials sample (none when
/// no material switches), with its plan.
fn upload_texture_layers(
    gpu: &super::Gpu,
    scene: &Scene,
) -> (
    TextureLayers,
    Option<wgpu::Texture>,
    Option<wgpu::TextureView>,
) {
    let limits = gpu.device.limits();
    let (layers, why) = TextureLayers::plan(
        scene,
        limits.max_texture_dimension_2d,
        limits.max_texture_array_layers,
    );
    if let Some(why) = why {
        log::warn!("{}: {why}", scene.source.file_name);
    }
    if layers.layer_count() == 0 {
        return (layers, None, None);
    }
    let [width, height] = layers.size;
    let (t, v) = super::texture::upload_layers(
        gpu,
        "keyframed textures",
        width,
        height,
        &layers.pixels(scene),
    );
    (layers, Some(t), Some(v))
}

/// The material slots (one uniform a material, then the default
/// material's) and each material's bind group. Every slot starts at its
/// material's own values; animated ones are rewritten by the compute pass
/// before each draw.
fn upload_materials(
    device: &wgpu::Device,
    r: &Renderer,
    scene: &Scene,
    texture_layers: &TextureLayers,
    textures: &[GpuTexture],
    array_view: Option<&wgpu::TextureView>,
) -> (wgpu::Buffer, Vec<GpuMaterial>) {
    let default = crate::scene::Material::default();
    let all: Vec<&crate::scene::Material> = scene
        .materials
        .iter()
        .chain(std::iter::once(&default))
        .collect();
    let mut slots = vec![0u8; all.len() * materials::SLOT_STRIDE as usize];
    for (i, m) in all.iter().enumerate() {
        let u = materials::uniform(scene, i, &MaterialState::initial(m), texture_layers);
        let at = i * materials::SLOT_STRIDE as usize;
        slots[at..at + std::mem::size_of::<MaterialUniform>()]
            .copy_from_slice(bytemuck::bytes_of(&u));
    }
    let material_slots = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("material slots"),
        contents: &slots,
        usage: wgpu::BufferUsages::UNIFORM
            | wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC,
    });
    let materials = all
        .iter()
        .enumerate()
        .map(|(i, m)| {
            // Texture-switching materials sample the array; their bound
            // textures stay white for the frames that show no texture.
            let switching = texture_layers.switching.get(i).copied().unwrap_or(false);
            let bound = |t: Option<usize>| {
                t.filter(|_| !switching)
                    .and_then(|i| textures.get(i))
                    .map(|t| &t.view)
            };
            GpuMaterial {
                bind_group: r.material_bind_group(
                    device,
                    &material_slots,
                    i,
                    MaterialTextures {
                        base: bound(m.texture),
                        matcap: bound(m.matcap),
                        array: array_view,
                        maps: [
                            m.maps.team_mask,
                            m.maps.material.map(|(t, _)| t),
                            m.maps.normal.map(|(t, _)| t),
                            m.maps.emission,
                        ]
                        .map(|t| t.and_then(|i| textures.get(i)).map(|t| &t.view)),
                        sampling: m.sampling,
                    },
                ),
                blend: m.blend,
                features: super::materials::shader_features(m, scene.textures.len()),
            }
        })
        .collect();
    (material_slots, materials)
}

/// The grid on the ground plane under the scene's `bounds`, 20 cells
/// across, its centre lines brighter: its range in `lines`.
fn grid_lines(lines: &mut Vec<LineVertex>, bounds: &Aabb) -> Range<u32> {
    let start = lines.len();
    let y = if bounds.is_empty() { 0.0 } else { bounds.min.y };
    let step = nice_step(bounds.radius() * 4.0 / 20.0);
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
        for position in [
            [cx - half, y, cz + o],
            [cx + half, y, cz + o],
            [cx + o, y, cz - half],
            [cx + o, y, cz + half],
        ] {
            lines.push(LineVertex { position, color });
        }
    }
    range(lines, start)
}

/// The upload of a scene's meshes, one after another: the skinned
/// vertices they add to the skinning pass's input and the overlay lines
/// (each mesh's box) they add to the static line buffer.
struct MeshUpload<'a> {
    device: &'a wgpu::Device,
    options: UploadOptions,
    /// Whether the scene's skeleton fits the skinning pass.
    can_skin: bool,
    /// The default material's index, for meshes that name none or one out
    /// of range.
    default_material: usize,
    skin_vertices: Vec<SkinVertex>,
    lines: Vec<LineVertex>,
}

impl MeshUpload<'_> {
    /// Mesh `m`'s buffers, with its rest-pose `bounds`.
    fn mesh(&mut self, m: &crate::scene::Mesh, bounds: Aabb) -> GpuMesh {
        let device = self.device;
        std::thread::scope(|s| {
            // A large mesh's edges are found on a second thread while this
            // one writes its vertex and index buffers.
            let edges_apart = (self.options.edges && m.indices.len() >= EDGES_APART)
                .then(|| s.spawn(|| mesh_edges(m)));
            let n = m.positions.len();
            let normal = |i: usize| m.normals.get(i).copied().unwrap_or(Vec3::Y);
            let stream = match &m.skin {
                Some(skin) if self.can_skin && skin.joints.len() == n => {
                    let first = self.skin_vertices.len() as u64;
                    self.skin_vertices.extend((0..n).map(|i| {
                        skinning::pack_skin_vertex(
                            m.positions[i],
                            normal(i),
                            skin.joints[i],
                            skin.weights[i],
                        )
                    }));
                    let size = std::mem::size_of::<PosNormal>() as u64;
                    Stream::Skinned(first * size..(first + n as u64) * size)
                }
                _ => Stream::Static(buffers::buffer_from_fn(
                    device,
                    &m.name,
                    wgpu::BufferUsages::VERTEX,
                    n,
                    |i| PosNormal {
                        position: m.positions[i].into(),
                        normal: skinning::oct_encode(normal(i)),
                    },
                )),
            };
            let static_frame = matches!(stream, Stream::Static(_));
            // Rewritten when the view shows other colours (bone weights).
            let usage = wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST;
            let uvs = buffers::buffer_from_fn(device, "uvs", usage, n, |i| {
                uv_color(m, i, static_frame, VertexColors::File)
            });
            let index_format = index_format(&m.indices);
            let indices = index_buffer(device, "indices", &m.indices, index_format);
            // Wireframe and selection-outline edges, when asked for (they
            // name the triangles' vertices: the same format).
            let edges = match edges_apart {
                Some(job) => job.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                None if self.options.edges => mesh_edges(m),
                None => Vec::new(),
            };
            let edge_buf = index_buffer(device, "edges", &edges, index_format);
            let start = self.lines.len();
            push_box(&mut self.lines, &bounds, [255, 120, 40, 255]);
            GpuMesh {
                stream,
                vertex_count: n as u32,
                uvs,
                indices,
                index_count: m.indices.len() as u32,
                index_format,
                edges: edge_buf,
                edge_index_count: edges.len() as u32,
                material: m
                    .material
                    .filter(|&i| i < self.default_material)
                    .unwrap_or(self.default_material),
                bounds: range(&self.lines, start),
                aabb: bounds,
                primitive: m.primitive,
                closed: m.closed,
                facing: if tiles_indices(&m.facing, m.indices.len(), m.primitive) {
                    m.facing.clone()
                } else {
                    Vec::new()
                },
                faceted: m.faceted,
            }
        })
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

#[cfg(test)]
mod tests {
    use super::tiles_indices;
    use crate::scene::{Facing, Primitive};
    use glam::Vec3;

    fn run(start: u32, end: u32) -> Facing {
        Facing {
            start,
            end,
            normal: Vec3::X,
            offset: 0.0,
        }
    }

    /// Runs stand in for a mesh's indices only where they are whole
    /// triangles from the first index to the last, one after the other.
    #[test]
    fn runs_stand_in_only_when_they_tile_the_indices() {
        let tri = Primitive::Triangles;
        assert!(tiles_indices(&[run(0, 6), run(6, 18)], 18, tri));
        assert!(!tiles_indices(&[], 18, tri), "no runs");
        assert!(!tiles_indices(&[run(0, 6), run(9, 18)], 18, tri), "a gap");
        assert!(
            !tiles_indices(&[run(0, 6), run(3, 18)], 18, tri),
            "an overlap"
        );
        assert!(!tiles_indices(&[run(0, 6), run(6, 12)], 18, tri), "short");
        assert!(
            !tiles_indices(&[run(0, 4), run(4, 18)], 18, tri),
            "part triangles"
        );
        assert!(!tiles_indices(&[run(0, 6), run(6, 3)], 3, tri), "backwards");
        assert!(!tiles_indices(&[run(0, 6)], 6, Primitive::Lines), "lines");
    }
}
