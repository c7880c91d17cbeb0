//! The mesh pass (opaque + additive pipelines) and the overlay line pass.

use super::camera::OrbitCamera;
use super::materials::{MaterialAnimator, MaterialUniform, SLOT_STRIDE};
use super::skinning::{PosNormal, Skinner};
use super::upload::{BoneVertex, GpuScene, LineVertex};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    view: [[f32; 4]; 4],
    light_dir: [f32; 4],
    params: [f32; 4],
}

/// What to draw this frame, set by the UI or the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewOptions {
    /// Per-mesh visibility (missing entries are visible).
    pub visible: Vec<bool>,
    pub wireframe: bool,
    pub normals: bool,
    pub bounds: bool,
    pub grid: bool,
    pub skeleton: bool,
    /// Per-mesh material used instead of the mesh's own (P3M material
    /// overrides while a clip plays); missing entries use the mesh's.
    pub material_override: Vec<Option<usize>>,
    /// Linear RGBA clear colour.
    pub background: [f64; 4],
    pub lighting: Lighting,
    /// The part the inspector selected, outlined in the selection colour.
    pub selected_part: Option<usize>,
    /// Per mesh, the index ranges to draw (maps culled by visibility);
    /// `None` draws every mesh whole.
    /// Shared, not copied: the app hands the same ranges to every frame.
    pub ranges: Option<std::sync::Arc<Vec<Vec<std::ops::Range<u32>>>>>,
}

/// Lighting presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lighting {
    /// A key light above-right of the camera plus a soft fill (materials'
    /// shading decides how directional).
    #[default]
    Studio,
    /// No directional light: every surface at its colour (texture checks).
    Flat,
    /// A fixed light from above the world, whatever the camera does.
    Top,
    /// A built-in clay sphere looked up by the view-space normal (lit from
    /// the viewer's upper left, with a rim): every surface shaded, for
    /// reading shape; materials with a matcap of their own keep it.
    Matcap,
}

impl Lighting {
    pub const ALL: [Lighting; 4] = [
        Lighting::Studio,
        Lighting::Flat,
        Lighting::Top,
        Lighting::Matcap,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Lighting::Studio => "studio",
            Lighting::Flat => "flat",
            Lighting::Top => "top",
            Lighting::Matcap => "matcap",
        }
    }

    pub fn from_name(s: &str) -> Option<Lighting> {
        Lighting::ALL.into_iter().find(|l| l.name() == s)
    }
}

impl Default for ViewOptions {
    fn default() -> Self {
        Self {
            visible: Vec::new(),
            wireframe: false,
            normals: false,
            bounds: false,
            grid: true,
            skeleton: false,
            material_override: Vec::new(),
            background: [0.035, 0.04, 0.05, 1.0],
            lighting: Lighting::Studio,
            selected_part: None,
            ranges: None,
        }
    }
}

impl ViewOptions {
    pub fn for_scene(scene: &crate::scene::Scene) -> Self {
        Self {
            visible: scene.meshes.iter().map(|m| m.visible).collect(),
            // A skeleton with nothing to skin (an animation shown alone)
            // is only visible as the overlay.
            skeleton: scene.meshes.is_empty() && !scene.skeleton.bones.is_empty(),
            ..Default::default()
        }
    }

    /// Copies `other` into `self` reusing the vectors' allocations (the
    /// derived `clone_from` would allocate every frame).
    pub fn copy_from(&mut self, other: &ViewOptions) {
        let ViewOptions {
            visible,
            wireframe,
            normals,
            bounds,
            grid,
            skeleton,
            material_override,
            background,
            lighting,
            selected_part,
            ranges,
        } = other;
        self.visible.clone_from(visible);
        self.material_override.clone_from(material_override);
        (
            self.wireframe,
            self.normals,
            self.bounds,
            self.grid,
            self.skeleton,
        ) = (*wireframe, *normals, *bounds, *grid, *skeleton);
        self.background = *background;
        self.lighting = *lighting;
        self.selected_part = *selected_part;
        self.ranges.clone_from(ranges);
    }

    pub fn is_visible(&self, mesh: usize) -> bool {
        self.visible.get(mesh).copied().unwrap_or(true)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameStats {
    pub draw_calls: u32,
    pub triangles: u64,
}

pub struct Renderer {
    pub color_format: wgpu::TextureFormat,
    pub sample_count: u32,
    globals: wgpu::Buffer,
    globals_bg: wgpu::BindGroup,
    material_bgl: wgpu::BindGroupLayout,
    opaque: wgpu::RenderPipeline,
    additive: wgpu::RenderPipeline,
    lines: wgpu::RenderPipeline,
    wire: wgpu::RenderPipeline,
    wire_selected: wgpu::RenderPipeline,
    normals: wgpu::RenderPipeline,
    bones: wgpu::RenderPipeline,
    bones_bgl: wgpu::BindGroupLayout,
    pub skinner: Skinner,
    pub material_animator: MaterialAnimator,
    sampler: wgpu::Sampler,
    white: wgpu::TextureView,
    /// Bound where a scene has no texture array.
    white_array: wgpu::TextureView,
}

impl Renderer {
    /// `color_format` is the (sRGB) format the passes write.
    pub fn new(gpu: &super::Gpu, color_format: wgpu::TextureFormat, sample_count: u32) -> Renderer {
        let device = &gpu.device;
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let globals_bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globals"),
            layout: &globals_bgl,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            }],
        });
        let tex_entry = |binding, view_dimension| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension,
                multisampled: false,
            },
            count: None,
        };
        let material_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                tex_entry(1, wgpu::TextureViewDimension::D2),
                tex_entry(2, wgpu::TextureViewDimension::D2),
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
                tex_entry(4, wgpu::TextureViewDimension::D2Array),
            ],
        });

        let mesh_shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("mesh.wgsl"),
            source: wgpu::ShaderSource::Wgsl(super::shader_source("mesh.wgsl").into()),
        });
        let line_shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("lines.wgsl"),
            source: wgpu::ShaderSource::Wgsl(super::shader_source("lines.wgsl").into()),
        });
        let mesh_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("mesh"),
            bind_group_layouts: &[Some(&globals_bgl), Some(&material_bgl)],
            immediate_size: 0,
        });
        let line_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lines"),
            bind_group_layouts: &[Some(&globals_bgl)],
            immediate_size: 0,
        });
        let stream_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Snorm16x2];
        let uv_attrs = wgpu::vertex_attr_array![2 => Float32x2, 3 => Unorm8x4];
        let stream = |step_mode, attributes| wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<PosNormal>() as u64,
            step_mode,
            attributes,
        };
        let multisample = wgpu::MultisampleState {
            count: sample_count,
            mask: !0,
            alpha_to_coverage_enabled: false,
        };

        let mesh_pipeline = |label, blend, depth_write| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&mesh_layout),
                vertex: wgpu::VertexState {
                    module: &mesh_shader,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[
                        Some(stream(wgpu::VertexStepMode::Vertex, &stream_attrs)),
                        Some(wgpu::VertexBufferLayout {
                            array_stride: std::mem::size_of::<super::upload::UvColor>() as u64,
                            step_mode: wgpu::VertexStepMode::Vertex,
                            attributes: &uv_attrs,
                        }),
                    ],
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    front_face: wgpu::FrontFace::Ccw,
                    // Game assets are often open or single-sided: draw both
                    // sides, lit as seen (see mesh.wgsl).
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(depth_write),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &mesh_shader,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: color_format,
                        blend: Some(blend),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let additive_blend = wgpu::BlendState {
            color: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::One,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            },
            alpha: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::Zero,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            },
        };
        let opaque = mesh_pipeline("mesh opaque", wgpu::BlendState::ALPHA_BLENDING, true);
        let additive = mesh_pipeline("mesh additive", additive_blend, false);
        let bones_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skeleton overlay"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let bones_shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("bones.wgsl"),
            source: wgpu::ShaderSource::Wgsl(super::shader_source("bones.wgsl").into()),
        });
        let bones_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skeleton overlay"),
            bind_group_layouts: &[Some(&globals_bgl), Some(&bones_bgl)],
            immediate_size: 0,
        });
        let line_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4];
        let wire_attrs = wgpu::vertex_attr_array![0 => Float32x3];
        let bone_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Uint32];
        let overlay = |label, layout, module, entry: &str, buffer: wgpu::VertexBufferLayout<'_>| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    buffers: &[Some(buffer)],
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::LineList,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(false),
                    depth_compare: Some(wgpu::CompareFunction::LessEqual),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample,
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: color_format,
                        blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let lines = overlay(
            "lines",
            &line_layout,
            &line_shader,
            "vs_main",
            wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<LineVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &line_attrs,
            },
        );
        let wire = overlay(
            "wireframe",
            &line_layout,
            &line_shader,
            "vs_wire",
            stream(wgpu::VertexStepMode::Vertex, &wire_attrs),
        );
        let wire_selected = overlay(
            "selected part",
            &line_layout,
            &line_shader,
            "vs_wire_selected",
            stream(wgpu::VertexStepMode::Vertex, &wire_attrs),
        );
        let normals = overlay(
            "normals",
            &line_layout,
            &line_shader,
            "vs_normals",
            stream(wgpu::VertexStepMode::Instance, &stream_attrs),
        );
        let bones = overlay(
            "skeleton",
            &bones_layout,
            &bones_shader,
            "vs_main",
            wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<BoneVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &bone_attrs,
            },
        );
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("material sampler"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            // Only BC textures from files carry mip levels.
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        let white = super::upload::upload_texture(gpu, "white", 1, 1, &[255; 4]);
        let white_array = white.texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let white = white.view;
        Renderer {
            color_format,
            sample_count,
            globals,
            globals_bg,
            material_bgl,
            opaque,
            additive,
            lines,
            wire,
            wire_selected,
            normals,
            bones,
            bones_bgl,
            skinner: Skinner::new(device),
            material_animator: MaterialAnimator::new(device),
            sampler,
            white,
            white_array,
        }
    }

    pub fn material_bind_group(
        &self,
        device: &wgpu::Device,
        slots: &wgpu::Buffer,
        slot: usize,
        base: Option<&wgpu::TextureView>,
        matcap: Option<&wgpu::TextureView>,
        array: Option<&wgpu::TextureView>,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("material"),
            layout: &self.material_bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: slots,
                        offset: slot as u64 * SLOT_STRIDE,
                        size: wgpu::BufferSize::new(std::mem::size_of::<MaterialUniform>() as u64),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(base.unwrap_or(&self.white)),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(matcap.unwrap_or(&self.white)),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: wgpu::BindingResource::TextureView(
                        array.unwrap_or(&self.white_array),
                    ),
                },
            ],
        })
    }

    pub fn bones_bind_group(
        &self,
        device: &wgpu::Device,
        bones: &wgpu::Buffer,
        overlay: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skeleton overlay"),
            layout: &self.bones_bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: bones.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: overlay.as_entire_binding(),
                },
            ],
        })
    }

    pub fn upload(&self, gpu: &super::Gpu, scene: &crate::scene::Scene) -> GpuScene {
        super::upload::upload(gpu, self, scene)
    }

    /// As [`Renderer::upload`], with every validation and out-of-memory
    /// error of the upload captured: such an error is this file's load
    /// error (one line), never the end of the process.
    pub fn try_upload(
        &self,
        gpu: &super::Gpu,
        scene: &crate::scene::Scene,
    ) -> Result<GpuScene, String> {
        super::limits::check_buffers(scene, &gpu.device.limits())?;
        gpu.capture(|| self.upload(gpu, scene))
    }

    /// Writes the per-frame uniforms.
    pub fn prepare(
        &self,
        queue: &wgpu::Queue,
        camera: &OrbitCamera,
        aspect: f32,
        lighting: Lighting,
    ) {
        let view = camera.view();
        // Key light from above-front-right of the camera.
        let eye_dir = (camera.eye() - camera.target).normalize_or(Vec3::Z);
        let right = Vec3::Y.cross(eye_dir).normalize_or(Vec3::X);
        let light = match lighting {
            Lighting::Top => Vec3::new(0.3, 1.0, 0.4).normalize(),
            _ => (eye_dir + right * 0.5 + Vec3::Y * 0.8).normalize(),
        };
        let directional = if lighting == Lighting::Flat { 0.0 } else { 1.0 };
        let g = Globals {
            view_proj: camera.view_proj(aspect).to_cols_array_2d(),
            view: view.to_cols_array_2d(),
            light_dir: [light.x, light.y, light.z, 0.0],
            params: [
                camera.scene_radius,
                2e-4,
                directional,
                (lighting == Lighting::Matcap) as u32 as f32,
            ],
        };
        queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(&g));
    }

    /// Records the draws into `pass`: opaque meshes, additive meshes, overlays.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        scene: &GpuScene,
        opts: &ViewOptions,
    ) -> FrameStats {
        let mut stats = FrameStats::default();
        pass.set_bind_group(0, &self.globals_bg, &[]);
        for additive in [false, true] {
            pass.set_pipeline(if additive {
                &self.additive
            } else {
                &self.opaque
            });
            for (i, m) in scene.meshes.iter().enumerate() {
                let material = opts
                    .material_override
                    .get(i)
                    .copied()
                    .flatten()
                    .filter(|&x| x < scene.materials.len())
                    .unwrap_or(m.material);
                let mat = &scene.materials[material];
                if mat.additive != additive || !opts.is_visible(i) || m.index_count == 0 {
                    continue;
                }
                let Some(stream) = m.stream(scene) else {
                    continue;
                };
                pass.set_bind_group(1, &mat.bind_group, &[]);
                pass.set_vertex_buffer(0, stream);
                pass.set_vertex_buffer(1, m.uvs.slice(..));
                pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                match opts.ranges.as_ref().and_then(|r| r.get(i)) {
                    Some(ranges) => {
                        for r in ranges {
                            let r = r.start.min(m.index_count)..r.end.min(m.index_count);
                            if r.is_empty() {
                                continue;
                            }
                            stats.triangles += (r.end - r.start) as u64 / 3;
                            pass.draw_indexed(r, 0, 0..1);
                            stats.draw_calls += 1;
                        }
                    }
                    None => {
                        pass.draw_indexed(0..m.index_count, 0, 0..1);
                        stats.draw_calls += 1;
                        stats.triangles += m.index_count as u64 / 3;
                    }
                }
            }
        }
        pass.set_pipeline(&self.lines);
        pass.set_vertex_buffer(0, scene.lines.slice(..));
        let mut lines = |r: &std::ops::Range<u32>, stats: &mut FrameStats| {
            if !r.is_empty() {
                pass.draw(r.clone(), 0..1);
                stats.draw_calls += 1;
            }
        };
        if opts.grid {
            lines(&scene.grid, &mut stats);
        }
        if opts.bounds {
            lines(&scene.scene_bounds, &mut stats);
            for (i, m) in scene.meshes.iter().enumerate() {
                if opts.is_visible(i) {
                    lines(&m.bounds, &mut stats);
                }
            }
        }
        if let Some(extra) = &scene.extra_lines
            && scene.extra_line_count > 0
        {
            pass.set_vertex_buffer(0, extra.slice(..));
            pass.draw(0..scene.extra_line_count, 0..1);
            stats.draw_calls += 1;
        }
        let visible = || {
            scene
                .meshes
                .iter()
                .enumerate()
                .filter(|(i, m)| opts.is_visible(*i) && m.vertex_count > 0)
        };
        if opts.wireframe {
            pass.set_pipeline(&self.wire);
            for (_, m) in visible() {
                let Some(stream) = m.stream(scene) else {
                    continue;
                };
                pass.set_vertex_buffer(0, stream);
                pass.set_index_buffer(m.edges.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..m.edge_index_count, 0, 0..1);
                stats.draw_calls += 1;
            }
        }
        if let Some((_, m)) = opts
            .selected_part
            .and_then(|i| visible().find(|(j, _)| *j == i))
            && let Some(stream) = m.stream(scene)
        {
            pass.set_pipeline(&self.wire_selected);
            pass.set_vertex_buffer(0, stream);
            pass.set_index_buffer(m.edges.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..m.edge_index_count, 0, 0..1);
            stats.draw_calls += 1;
        }
        if opts.normals {
            pass.set_pipeline(&self.normals);
            for (_, m) in visible() {
                let Some(stream) = m.stream(scene) else {
                    continue;
                };
                pass.set_vertex_buffer(0, stream);
                pass.draw(0..2, 0..m.vertex_count);
                stats.draw_calls += 1;
            }
        }
        if let (true, Some(skeleton)) = (opts.skeleton, &scene.skeleton) {
            pass.set_pipeline(&self.bones);
            pass.set_bind_group(1, &scene.overlay_bind_group, &[]);
            pass.set_vertex_buffer(0, skeleton.slice(..));
            pass.draw(0..scene.skeleton_vertices, 0..1);
            stats.draw_calls += 1;
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::ViewOptions;

    #[test]
    fn copy_from_reuses_allocations() {
        let src = ViewOptions {
            visible: vec![true, false, true],
            wireframe: true,
            material_override: vec![Some(2), None, None],
            ..Default::default()
        };
        let mut dst = ViewOptions {
            visible: Vec::with_capacity(8),
            material_override: Vec::with_capacity(8),
            ..Default::default()
        };
        let (pv, pm) = (dst.visible.as_ptr(), dst.material_override.as_ptr());
        dst.copy_from(&src);
        assert_eq!(dst, src);
        assert_eq!(
            (dst.visible.as_ptr(), dst.material_override.as_ptr()),
            (pv, pm),
            "reallocated"
        );
    }
}
