//! What lives as long as the device: the mesh pipelines (by shader features,
//! blend mode and primitive, made when first asked for), the overlay pipelines
//! (lines, wireframe, normals, skeleton),
//! the compute passes, their bind group layouts and the default textures.
//! Scenes are uploaded against it ([`super::GpuScene::new`]); frames are
//! recorded with it ([`super::frame::record`]).

use super::materials::{MaterialAnimator, MaterialUniform, SLOT_STRIDE};
use super::skinning::{PosNormal, Skinner};
use super::vertex::{BoneVertex, LineVertex, UvColor};
use bytemuck::{Pod, Zeroable};

pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct Globals {
    pub view_proj: [[f32; 4]; 4],
    pub view: [[f32; 4]; 4],
    pub light_dir: [f32; 4],
    pub params: [f32; 4],
    pub eye: [f32; 4],
    /// sRGB team colours.
    pub team_primary: [f32; 4],
    pub team_secondary: [f32; 4],
    /// x: textures on (1/0), y: the channel shown (`Channel as u32`).
    pub view_mode: [u32; 4],
}

/// The textures of one material's bind group.
pub struct MaterialTextures<'a> {
    pub base: Option<&'a wgpu::TextureView>,
    pub matcap: Option<&'a wgpu::TextureView>,
    /// The scene's texture array (texture-switching materials).
    pub array: Option<&'a wgpu::TextureView>,
    /// Team-colour mask, material map, normal map, emission map.
    pub maps: [Option<&'a wgpu::TextureView>; 4],
    /// How they are all sampled.
    pub sampling: crate::scene::Sampling,
}

pub struct Renderer {
    pub color_format: wgpu::TextureFormat,
    pub sample_count: u32,
    pub(super) globals: wgpu::Buffer,
    pub(super) globals_bg: wgpu::BindGroup,
    material_bgl: wgpu::BindGroupLayout,
    /// Mesh pipelines by shader variant, blend mode and primitive, made at
    /// first use: see [`Renderer::mesh_pipeline`].
    mesh: MeshPipelines,
    pub(super) lines: wgpu::RenderPipeline,
    pub(super) wire: wgpu::RenderPipeline,
    pub(super) wire_selected: wgpu::RenderPipeline,
    pub(super) normals: wgpu::RenderPipeline,
    pub(super) bones: wgpu::RenderPipeline,
    bones_bgl: wgpu::BindGroupLayout,
    pub skinner: Skinner,
    pub material_animator: MaterialAnimator,
    /// One sampler per way of sampling a material asks for, made when
    /// first asked (most scenes use one).
    samplers: std::sync::Mutex<std::collections::HashMap<crate::scene::Sampling, wgpu::Sampler>>,
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
            entries: &[uniform_entry(0, wgpu::ShaderStages::VERTEX_FRAGMENT)],
        });
        let globals_bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globals"),
            layout: &globals_bgl,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            }],
        });
        let material_bgl = material_layout(device);
        let multisample = wgpu::MultisampleState {
            count: sample_count,
            mask: !0,
            alpha_to_coverage_enabled: false,
        };
        let mesh = MeshPipelines {
            device: device.clone(),
            layout: device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("mesh"),
                bind_group_layouts: &[Some(&globals_bgl), Some(&material_bgl)],
                immediate_size: 0,
            }),
            shader: device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("mesh.wgsl"),
                source: wgpu::ShaderSource::Wgsl(super::shader_source("mesh.wgsl").into()),
            }),
            color_format,
            multisample,
            made: Default::default(),
        };
        let bones_bgl = bones_layout(device);
        let Overlays {
            lines,
            wire,
            wire_selected,
            normals,
            bones,
        } = Overlays::new(
            device,
            [&globals_bgl, &bones_bgl],
            color_format,
            multisample,
        );
        let white = super::texture::upload_texture(gpu, "white", 1, 1, &[255; 4]).view;
        let (_, white_array) = super::texture::upload_layers(gpu, "white layers", 1, 1, &[255; 4]);
        Renderer {
            color_format,
            sample_count,
            globals,
            globals_bg,
            material_bgl,
            mesh,
            lines,
            wire,
            wire_selected,
            normals,
            bones,
            bones_bgl,
            skinner: Skinner::new(device),
            material_animator: MaterialAnimator::new(device),
            samplers: Default::default(),
            white,
            white_array,
        }
    }

    /// The pipeline that draws `primitive` with `blend` and the mesh
    /// shader's `features` ([`super::materials::shader_features`]), back
    /// faces culled where `cull` ([`super::upload::GpuMesh::culled`]);
    /// made the first time it is asked for.
    pub(super) fn mesh_pipeline(
        &self,
        features: u32,
        blend: crate::scene::BlendMode,
        primitive: crate::scene::Primitive,
        cull: bool,
    ) -> wgpu::RenderPipeline {
        self.mesh.get((features, blend, primitive, cull))
    }

    /// A material's bind group: its slot and its textures; what is missing
    /// is bound to white.
    pub fn material_bind_group(
        &self,
        device: &wgpu::Device,
        slots: &wgpu::Buffer,
        slot: usize,
        textures: MaterialTextures<'_>,
    ) -> wgpu::BindGroup {
        let MaterialTextures {
            base,
            matcap,
            array,
            maps,
            sampling,
        } = textures;
        let mut samplers = self
            .samplers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let sampler = samplers
            .entry(sampling)
            .or_insert_with(|| device.create_sampler(&sampler_descriptor(sampling)));
        let [mask, material, normal, emission] = maps.map(|m| m.unwrap_or(&self.white));
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
                    resource: wgpu::BindingResource::Sampler(sampler),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: wgpu::BindingResource::TextureView(
                        array.unwrap_or(&self.white_array),
                    ),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: wgpu::BindingResource::TextureView(mask),
                },
                wgpu::BindGroupEntry {
                    binding: 6,
                    resource: wgpu::BindingResource::TextureView(material),
                },
                wgpu::BindGroupEntry {
                    binding: 7,
                    resource: wgpu::BindingResource::TextureView(normal),
                },
                wgpu::BindGroupEntry {
                    binding: 8,
                    resource: wgpu::BindingResource::TextureView(emission),
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
}

/// A mesh stream's attributes (`PosNormal`: position, octahedral
/// normal), as the mesh pipelines and the normals overlay read them.
const STREAM_ATTRS: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Snorm16x2];

/// What a mesh pipeline is made for: the mesh shader's features (its
/// override constants), the blend mode, the primitive, and whether back
/// faces are culled.
type MeshKey = (u32, crate::scene::BlendMode, crate::scene::Primitive, bool);

/// The mesh pipelines: `mesh.wgsl` with the features a material uses
/// (its override constants) by blend mode, primitive and culling. A pipeline is
/// made when first asked for (a scene's upload asks for those it draws
/// with): a scene uses few of them, and each one made is compiled.
struct MeshPipelines {
    device: wgpu::Device,
    layout: wgpu::PipelineLayout,
    shader: wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
    multisample: wgpu::MultisampleState,
    made: std::sync::Mutex<std::collections::HashMap<MeshKey, wgpu::RenderPipeline>>,
}

impl MeshPipelines {
    fn get(&self, key: MeshKey) -> wgpu::RenderPipeline {
        let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
        made.entry(key).or_insert_with(|| self.make(key)).clone()
    }

    fn make(&self, (features, blend, primitive, cull): MeshKey) -> wgpu::RenderPipeline {
        use crate::scene::{BlendMode, Primitive};
        let additive = wgpu::BlendState {
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
        // Blended meshes test depth but do not write it.
        let (blend, depth_write) = match blend {
            BlendMode::Opaque => (wgpu::BlendState::REPLACE, true),
            BlendMode::Additive => (additive, false),
            BlendMode::Alpha => (wgpu::BlendState::ALPHA_BLENDING, false),
        };
        let topology = match primitive {
            Primitive::Triangles => wgpu::PrimitiveTopology::TriangleList,
            Primitive::Lines => wgpu::PrimitiveTopology::LineList,
            Primitive::Points => wgpu::PrimitiveTopology::PointList,
        };
        let uv_attrs = wgpu::vertex_attr_array![2 => Float32x2, 3 => Unorm8x4, 4 => Snorm16x4];
        let constants = super::materials::features::CONSTANTS
            .map(|(name, bit)| (name, if features & bit != 0 { 1.0 } else { 0.0 }));
        let options = || wgpu::PipelineCompilationOptions {
            constants: &constants,
            ..Default::default()
        };
        let (vs, fs) = super::materials::Interface::of(features).entry_points(cull);
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("mesh"),
                layout: Some(&self.layout),
                vertex: wgpu::VertexState {
                    module: &self.shader,
                    entry_point: Some(vs),
                    compilation_options: options(),
                    buffers: &[
                        Some(wgpu::VertexBufferLayout {
                            array_stride: std::mem::size_of::<PosNormal>() as u64,
                            step_mode: wgpu::VertexStepMode::Vertex,
                            attributes: &STREAM_ATTRS,
                        }),
                        Some(wgpu::VertexBufferLayout {
                            array_stride: std::mem::size_of::<UvColor>() as u64,
                            step_mode: wgpu::VertexStepMode::Vertex,
                            attributes: &uv_attrs,
                        }),
                    ],
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    front_face: wgpu::FrontFace::Ccw,
                    // Game assets are often open or single-sided: both
                    // sides are drawn, lit as seen (see mesh.wgsl), but for
                    // a closed surface's, whose back faces are hidden.
                    cull_mode: cull.then_some(wgpu::Face::Back),
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(depth_write),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: self.multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &self.shader,
                    entry_point: Some(fs),
                    compilation_options: options(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: self.color_format,
                        blend: Some(blend),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
    }
}

/// A material's sampler: linear and repeating unless its file says
/// otherwise (`scene::Sampling`). Only BC textures from files and none of
/// glTF's carry mip levels.
fn sampler_descriptor(s: crate::scene::Sampling) -> wgpu::SamplerDescriptor<'static> {
    use crate::scene::Wrap;
    let filter = |nearest: bool| {
        if nearest {
            wgpu::FilterMode::Nearest
        } else {
            wgpu::FilterMode::Linear
        }
    };
    let address = |w: Wrap| match w {
        Wrap::Repeat => wgpu::AddressMode::Repeat,
        Wrap::Clamp => wgpu::AddressMode::ClampToEdge,
        Wrap::Mirror => wgpu::AddressMode::MirrorRepeat,
    };
    wgpu::SamplerDescriptor {
        label: Some("material sampler"),
        address_mode_u: address(s.wrap[0]),
        address_mode_v: address(s.wrap[1]),
        mag_filter: filter(s.nearest_mag),
        min_filter: filter(s.nearest_min),
        mipmap_filter: if s.nearest_min {
            wgpu::MipmapFilterMode::Nearest
        } else {
            wgpu::MipmapFilterMode::Linear
        },
        ..Default::default()
    }
}

/// The material bind group's layout: the material's uniform (the vertex
/// stage of faceted meshes shades with it too), its base colour and matcap
/// textures, the sampler, the keyframed texture array, then the team mask,
/// material, normal and emission maps.
fn material_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
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
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("material"),
        entries: &[
            uniform_entry(0, wgpu::ShaderStages::VERTEX_FRAGMENT),
            tex_entry(1, wgpu::TextureViewDimension::D2),
            tex_entry(2, wgpu::TextureViewDimension::D2),
            wgpu::BindGroupLayoutEntry {
                binding: 3,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
            tex_entry(4, wgpu::TextureViewDimension::D2Array),
            tex_entry(5, wgpu::TextureViewDimension::D2),
            tex_entry(6, wgpu::TextureViewDimension::D2),
            tex_entry(7, wgpu::TextureViewDimension::D2),
            tex_entry(8, wgpu::TextureViewDimension::D2),
        ],
    })
}

/// The skeleton overlay's bind group layout: the posed bone matrices and
/// the overlay's parameters (the selected bone).
fn bones_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
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
            uniform_entry(1, wgpu::ShaderStages::VERTEX),
        ],
    })
}

/// A uniform buffer's entry in a bind group layout.
fn uniform_entry(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The overlays' line pipelines: blended over the scene, depth-tested
/// without writing depth.
struct Overlays {
    /// Grid and boxes.
    lines: wgpu::RenderPipeline,
    /// Every part's edges, through the mesh streams.
    wire: wgpu::RenderPipeline,
    /// The selected part's edges.
    wire_selected: wgpu::RenderPipeline,
    /// A line a vertex along its normal (instanced over the mesh stream).
    normals: wgpu::RenderPipeline,
    /// The skeleton, moved by the bone matrices.
    bones: wgpu::RenderPipeline,
}

impl Overlays {
    fn new(
        device: &wgpu::Device,
        [globals_bgl, bones_bgl]: [&wgpu::BindGroupLayout; 2],
        color_format: wgpu::TextureFormat,
        multisample: wgpu::MultisampleState,
    ) -> Overlays {
        let line_shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("lines.wgsl"),
            source: wgpu::ShaderSource::Wgsl(super::shader_source("lines.wgsl").into()),
        });
        let line_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lines"),
            bind_group_layouts: &[Some(globals_bgl)],
            immediate_size: 0,
        });
        let bones_shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("bones.wgsl"),
            source: wgpu::ShaderSource::Wgsl(super::shader_source("bones.wgsl").into()),
        });
        let bones_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skeleton overlay"),
            bind_group_layouts: &[Some(globals_bgl), Some(bones_bgl)],
            immediate_size: 0,
        });
        let stream = |step_mode, attributes| wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<PosNormal>() as u64,
            step_mode,
            attributes,
        };
        let line_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4];
        let wire_attrs = wgpu::vertex_attr_array![0 => Float32x3];
        let bone_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Uint32];
        let overlay = |label, layout, module, entry, buffer| {
            line_pipeline(
                device,
                Line {
                    label,
                    layout,
                    module,
                    entry,
                    buffer,
                },
                color_format,
                multisample,
            )
        };
        Overlays {
            lines: overlay(
                "lines",
                &line_layout,
                &line_shader,
                "vs_main",
                wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<LineVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &line_attrs,
                },
            ),
            wire: overlay(
                "wireframe",
                &line_layout,
                &line_shader,
                "vs_wire",
                stream(wgpu::VertexStepMode::Vertex, &wire_attrs),
            ),
            wire_selected: overlay(
                "selected part",
                &line_layout,
                &line_shader,
                "vs_wire_selected",
                stream(wgpu::VertexStepMode::Vertex, &wire_attrs),
            ),
            normals: overlay(
                "normals",
                &line_layout,
                &line_shader,
                "vs_normals",
                stream(wgpu::VertexStepMode::Instance, &STREAM_ATTRS),
            ),
            bones: overlay(
                "skeleton",
                &bones_layout,
                &bones_shader,
                "vs_main",
                wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<BoneVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &bone_attrs,
                },
            ),
        }
    }
}

/// What tells one overlay pipeline from another.
struct Line<'a> {
    label: &'a str,
    layout: &'a wgpu::PipelineLayout,
    module: &'a wgpu::ShaderModule,
    /// The vertex shader's entry point; every overlay's fragment shader
    /// is its module's `fs_main`.
    entry: &'a str,
    buffer: wgpu::VertexBufferLayout<'a>,
}

/// A line-list pipeline drawn over the scene: alpha-blended, depth-tested
/// without writing depth.
fn line_pipeline(
    device: &wgpu::Device,
    line: Line<'_>,
    color_format: wgpu::TextureFormat,
    multisample: wgpu::MultisampleState,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(line.label),
        layout: Some(line.layout),
        vertex: wgpu::VertexState {
            module: line.module,
            entry_point: Some(line.entry),
            compilation_options: Default::default(),
            buffers: &[Some(line.buffer)],
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
            module: line.module,
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
}
