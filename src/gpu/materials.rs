//! Materials on the GPU: one buffer of per-material slots that the mesh pass
//! binds as uniforms, and the compute pass (`shaders/material_anim.wgsl`)
//! that rewrites the slots of animated materials once per frame from
//! keyframe buffers uploaded with the scene. The CPU never evaluates
//! keyframes in the render path; [`uniform`] turns the CPU reference
//! (`anim::material`) into the same bytes for tests.
//!
//! Materials whose texture or matcap switch between keyframes cannot keep one
//! texture per bind group, so their textures go into one texture array
//! ([`TextureLayers`]): each texture in its own layer at the top left, with a
//! one-texel border copied from the opposite edges, so that bilinear filtering
//! wraps exactly as `Repeat` does on a texture of its own.

use crate::anim::color::srgb_to_linear;
use crate::anim::material::MaterialState;
use crate::scene::material_anim::{MatInterp, MatLoop, MatTrack};
use crate::scene::{BlendMode, Material, Scene};
use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

/// Bytes between material slots: the largest uniform offset alignment wgpu
/// allows, so every adapter can bind any slot.
pub const SLOT_STRIDE: u64 = 256;
pub const WORKGROUP_SIZE: u32 = 64;
/// A texture array bigger than this is not built: textures then stay at
/// their initial values (with a warning).
pub const MAX_ARRAY_BYTES: u64 = 256 << 20;

/// `Material` in `shaders/material.wgsl` (the first 160 bytes of a slot;
/// tests/shaders.rs checks the layouts match).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, Debug, PartialEq)]
pub struct MaterialUniform {
    /// Linear RGB, alpha.
    pub base_color: [f32; 4],
    /// Linear RGB.
    pub emission: [f32; 4],
    /// Shading, matcap on (0/1), additive (0/1).
    pub params: [f32; 4],
    /// Texture UV offset (xy), matcap UV offset (zw), each in `0..1`.
    pub uv_offset: [f32; 4],
    /// Texture and matcap layers in the texture array; -1: the bound texture.
    pub layers: [i32; 4],
    pub tex_rect: [f32; 4],
    pub matcap_rect: [f32; 4],
    /// Linear specular colour and exponent (`MAP_SPECULAR`).
    pub specular: [f32; 4],
    /// x: the `MAP_*` bits of the maps bound (the compute pass leaves them).
    pub maps: [u32; 4],
    /// x: bump strength, y: alpha cutoff (0: none), z: glossiness factor
    /// (`MAP_SPEC_GLOSS`).
    pub extra: [f32; 4],
}

/// `Material.maps.x` bits, as `shaders/material.wgsl` names them.
pub mod map_bits {
    pub const TEAM: u32 = 1;
    pub const MATERIAL: u32 = 2;
    pub const MATERIAL_GLOW: u32 = 4;
    pub const NORMAL_2CH: u32 = 8;
    pub const NORMAL_RGB: u32 = 16;
    pub const HEIGHT: u32 = 32;
    pub const EMISSION: u32 = 64;
    pub const SPECULAR: u32 = 128;
    pub const BLEND_ALPHA: u32 = 256;
    pub const SPEC_GLOSS: u32 = 512;
}

/// The `MAP_*` bits and the bump strength of `m` (maps whose texture index
/// is out of range are left out).
pub fn map_flags(m: &Material, textures: usize) -> (u32, f32) {
    use crate::scene::{MaterialMap, NormalMap};
    use map_bits::*;
    let ok = |t: usize| t < textures;
    let mut bits = 0;
    let mut bump = 0.0;
    if m.maps.team_mask.is_some_and(ok) {
        bits |= TEAM;
    }
    if let Some((t, kind)) = m.maps.material
        && ok(t)
    {
        bits |= MATERIAL;
        match kind {
            MaterialMap::Unit => {}
            MaterialMap::Csg => bits |= MATERIAL_GLOW,
            MaterialMap::SpecularGlossiness => bits |= SPEC_GLOSS,
        }
    }
    if let Some((t, kind)) = m.maps.normal
        && ok(t)
    {
        bits |= match kind {
            NormalMap::TwoChannel => NORMAL_2CH,
            NormalMap::Rgb => NORMAL_RGB,
            NormalMap::Height { strength } => {
                bump = strength;
                HEIGHT
            }
        };
    }
    if m.maps.emission.is_some_and(ok) {
        bits |= EMISSION;
    }
    if m.maps.specular.is_some() {
        bits |= SPECULAR;
    }
    if m.blend == BlendMode::Alpha {
        bits |= BLEND_ALPHA;
    }
    (bits, bump)
}

/// Where the textures of texture-switching materials sit in the array.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextureLayers {
    /// Per scene texture: its layer, if it is in the array.
    pub layer_of: Vec<Option<u32>>,
    /// Per layer: (width, height) / layer size and one texel (the border).
    pub rects: Vec<[f32; 4]>,
    /// Layer width and height (largest texture + 2 for the border).
    pub size: [u32; 2],
    /// Per scene material: whether it samples the array.
    pub switching: Vec<bool>,
}

fn switches(m: &Material) -> bool {
    m.animation.as_ref().is_some_and(|a| a.switches_textures())
}

impl TextureLayers {
    /// Plans the array for `scene` within the device limits; a plan that does
    /// not fit leaves every material on its initial textures and says why.
    pub fn plan(
        scene: &Scene,
        max_dimension: u32,
        max_layers: u32,
    ) -> (TextureLayers, Option<String>) {
        let n = scene.textures.len();
        let mut used = vec![false; n];
        for m in scene.materials.iter().filter(|m| switches(m)) {
            let a = m
                .animation
                .as_ref()
                .expect("switching materials are animated");
            let keys = a.texture.keys.iter().chain(&a.matcap.keys).map(|k| k.value);
            for t in [m.texture, m.matcap].into_iter().chain(keys).flatten() {
                if t < n {
                    used[t] = true;
                }
            }
        }
        let none = TextureLayers {
            layer_of: vec![None; n],
            switching: vec![false; scene.materials.len()],
            ..Default::default()
        };
        let layers: Vec<usize> = (0..n).filter(|&t| used[t]).collect();
        if !scene.materials.iter().any(switches) {
            return (none, None);
        }
        let w = layers
            .iter()
            .map(|&t| scene.textures[t].width)
            .max()
            .unwrap_or(0)
            + 2;
        let h = layers
            .iter()
            .map(|&t| scene.textures[t].height)
            .max()
            .unwrap_or(0)
            + 2;
        let bytes = w as u64 * h as u64 * 4 * layers.len() as u64;
        if w > max_dimension
            || h > max_dimension
            || layers.len() as u32 > max_layers
            || bytes > MAX_ARRAY_BYTES
        {
            let why = format!(
                "texture keyframes need a {w}x{h}x{} texture array ({:.0} MiB), over this GPU's limits or {} MiB; textures stay at their initial values",
                layers.len(),
                bytes as f64 / (1 << 20) as f64,
                MAX_ARRAY_BYTES >> 20
            );
            return (none, Some(why));
        }
        let mut layer_of = vec![None; n];
        let rects = layers
            .iter()
            .enumerate()
            .map(|(l, &t)| {
                layer_of[t] = Some(l as u32);
                let tex = &scene.textures[t];
                [
                    tex.width as f32 / w as f32,
                    tex.height as f32 / h as f32,
                    1.0 / w as f32,
                    1.0 / h as f32,
                ]
            })
            .collect();
        (
            TextureLayers {
                layer_of,
                rects,
                size: [w, h],
                switching: scene.materials.iter().map(switches).collect(),
            },
            None,
        )
    }

    pub fn layer_count(&self) -> usize {
        self.rects.len()
    }

    /// RGBA8 of every layer, layer after layer: each texture at the top left
    /// with its wrap border, the rest transparent black.
    pub fn pixels(&self, scene: &Scene) -> Vec<u8> {
        let [w, h] = self.size.map(|x| x as usize);
        let mut out = vec![0u8; w * h * 4 * self.layer_count()];
        for (t, layer) in self.layer_of.iter().enumerate() {
            let Some(layer) = layer else { continue };
            let tex = &scene.textures[t];
            let (tw, th) = (tex.width as usize, tex.height as usize);
            let px = tex.pixels();
            if tw == 0 || th == 0 || px.len() < tw * th * 4 {
                continue; // no texels (a headers-only load): the layer stays clear
            }
            let base = *layer as usize * w * h * 4;
            for y in 0..th + 2 {
                let sy = (y + th - 1) % th;
                for x in 0..tw + 2 {
                    let sx = (x + tw - 1) % tw;
                    let s = (sy * tw + sx) * 4;
                    let d = base + (y * w + x) * 4;
                    out[d..d + 4].copy_from_slice(&px[s..s + 4]);
                }
            }
        }
        out
    }

    fn layer(&self, material: usize, texture: Option<usize>) -> i32 {
        if !self.switching.get(material).copied().unwrap_or(false) {
            return -1;
        }
        texture
            .and_then(|t| self.layer_of.get(t).copied().flatten())
            .map_or(-1, |l| l as i32)
    }

    fn rect(&self, layer: i32) -> [f32; 4] {
        usize::try_from(layer)
            .ok()
            .and_then(|l| self.rects.get(l).copied())
            .unwrap_or([1.0, 1.0, 0.0, 0.0])
    }
}

/// The slot bytes for material `index` in `state` (what the compute pass
/// writes for animated materials; what upload writes for the others).
pub fn uniform(
    scene: &Scene,
    index: usize,
    state: &MaterialState,
    layers: &TextureLayers,
) -> MaterialUniform {
    let material = scene.materials.get(index);
    let additive = material.is_some_and(|m| m.blend == BlendMode::Additive);
    let (bits, bump) = material.map_or((0, 0.0), |m| map_flags(m, scene.textures.len()));
    // 0 passes every pixel (alpha is never below it).
    let cutoff = material.and_then(|m| m.alpha_cutoff).unwrap_or(0.0);
    let specular = material
        .and_then(|m| m.maps.specular)
        .map_or([0.0; 4], |(c, e)| {
            [
                srgb_to_linear(c[0].clamp(0.0, 1.0)),
                srgb_to_linear(c[1].clamp(0.0, 1.0)),
                srgb_to_linear(c[2].clamp(0.0, 1.0)),
                e,
            ]
        });
    let lin = |c: f32| srgb_to_linear(c.clamp(0.0, 1.0));
    let (tl, ml) = (
        layers.layer(index, state.texture),
        layers.layer(index, state.matcap),
    );
    let [c, e] = [
        state.color,
        [state.emission[0], state.emission[1], state.emission[2], 0.0],
    ];
    MaterialUniform {
        base_color: [lin(c[0]), lin(c[1]), lin(c[2]), c[3]],
        emission: [lin(e[0]), lin(e[1]), lin(e[2]), 0.0],
        params: [
            state.shading,
            state.matcap.is_some() as u32 as f32,
            additive as u32 as f32,
            0.0,
        ],
        uv_offset: [
            state.texture_offset[0],
            state.texture_offset[1],
            state.matcap_offset[0],
            state.matcap_offset[1],
        ],
        layers: [tl, ml, 0, 0],
        tex_rect: layers.rect(tl),
        matcap_rect: layers.rect(ml),
        specular,
        maps: [bits, 0, 0, 0],
        extra: [
            bump,
            cutoff,
            material.and_then(|m| m.maps.glossiness).unwrap_or(1.0),
            0.0,
        ],
    }
}

/// The mesh shader's features (its override constants in
/// `shaders/mesh.wgsl`): a material draws with a pipeline that has only
/// those it uses on ([`shader_features`]).
pub mod features {
    pub const TEAM_MAP: u32 = 1;
    pub const MATERIAL_MAP: u32 = 2;
    pub const NORMAL_MAP: u32 = 4;
    pub const HEIGHT_MAP: u32 = 8;
    pub const EMISSION_MAP: u32 = 16;
    /// The matcap, and the texture array of texture-switching materials.
    pub const MATCAP: u32 = 32;
    /// The base (diffuse) texture: without one the material's colour is
    /// not multiplied by a white texel.
    pub const BASE_TEXTURE: u32 = 64;
    /// Specular highlights from the material's colour and exponent (M3D
    /// Ks and Ns); material maps give theirs under `MATERIAL_MAP`.
    pub const SPECULAR: u32 = 128;
    /// The alpha test (`Material::alpha_cutoff`): only its pipelines
    /// discard, so every other keeps the early depth test.
    pub const ALPHA_CUTOFF: u32 = 256;
    /// The frame's view modes, not a material's: the channel views and the
    /// matcap lighting preset. A frame in either mode draws every mesh
    /// with it on ([`crate::gpu::ViewOptions::shader_features`]), every
    /// other frame with it off.
    pub const VIEWS: u32 = 512;
    /// Each feature's override constant.
    pub const CONSTANTS: [(&str, u32); 10] = [
        ("TEAM_MAP", TEAM_MAP),
        ("MATERIAL_MAP", MATERIAL_MAP),
        ("NORMAL_MAP", NORMAL_MAP),
        ("HEIGHT_MAP", HEIGHT_MAP),
        ("EMISSION_MAP", EMISSION_MAP),
        ("MATCAP", MATCAP),
        ("BASE_TEXTURE", BASE_TEXTURE),
        ("SPECULAR", SPECULAR),
        ("ALPHA_CUTOFF", ALPHA_CUTOFF),
        ("VIEWS", VIEWS),
    ];
    pub const ALL: u32 = 1023;
    /// Not a material's and not an override constant: a faceted mesh
    /// ([`crate::scene::Mesh::faceted`]) whose material reads nothing per
    /// pixel, shaded once per vertex through [`super::Interface::Faceted`].
    /// [`super::mesh_features`] adds it where it applies.
    pub const FACETED: u32 = 1024;
    /// Not a material's and not an override constant: the UV checker view
    /// ([`crate::gpu::Channel::Uvs`]) reads every mesh's UVs, so every
    /// mesh draws through an interface that passes them
    /// ([`super::Interface::Surface`] at least).
    pub const UV_VIEW: u32 = 2048;
}

/// The features a mesh draws with: its material's (and the frame's view
/// modes', [`features::VIEWS`]), and [`features::FACETED`] where the mesh
/// is faceted and those read nothing per pixel but the alpha test, the one
/// case in which `mesh.wgsl`'s faceted stages shade as its others do. Only
/// then, so a faceted mesh with a texture shares the pipeline of a smooth
/// one.
pub fn mesh_features(features: u32, faceted: bool) -> u32 {
    if faceted && features & !features::ALPHA_CUTOFF == 0 {
        features | features::FACETED
    } else {
        features
    }
}

/// The varyings a mesh pipeline passes from its vertex to its fragment
/// stage (the entry point pairs of `shaders/mesh.wgsl`): what its features
/// read, so that no vertex stores, and no triangle sets up, one that
/// nothing reads. lavapipe keeps every output a vertex stage writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interface {
    /// The normal and the vertex colour.
    Plain,
    /// Adds the UVs and the model-space position: textures and maps,
    /// specular (the view direction), bump maps (its derivatives), the UV
    /// checker view.
    Surface,
    /// Adds the file's tangent frame: normal maps.
    Full,
    /// Faceted meshes ([`features::FACETED`]): each side's shaded colour,
    /// worked out per vertex, constant across a triangle.
    Faceted,
}

impl Interface {
    /// The interface a pipeline with these [`features`] draws with.
    pub fn of(f: u32) -> Interface {
        use features::*;
        if f & FACETED != 0 {
            Interface::Faceted
        } else if f & NORMAL_MAP != 0 {
            Interface::Full
        } else if f
            & (BASE_TEXTURE
                | TEAM_MAP
                | MATERIAL_MAP
                | HEIGHT_MAP
                | EMISSION_MAP
                | SPECULAR
                | UV_VIEW)
            != 0
        {
            Interface::Surface
        } else {
            Interface::Plain
        }
    }

    /// Its vertex and fragment entry points in `shaders/mesh.wgsl`, for a
    /// pipeline that culls back faces (`culled`) or not. A culled faceted
    /// draw never rasterises a back face, so its stages shade and pass the
    /// front's colour alone, one output of three fewer a vertex (lavapipe:
    /// lantea.m3d's draw 114.7M -> 112.8M instructions,
    /// docs/performance-history.md).
    pub fn entry_points(self, culled: bool) -> (&'static str, &'static str) {
        match self {
            Interface::Plain => ("vs_plain", "fs_plain"),
            Interface::Surface => ("vs_surface", "fs_surface"),
            Interface::Full => ("vs_full", "fs_full"),
            Interface::Faceted if culled => ("vs_faceted_front", "fs_faceted_front"),
            Interface::Faceted => ("vs_faceted", "fs_faceted"),
        }
    }
}

/// The mesh shader features `m` draws with ([`features`]): its bound base
/// texture and maps, and the matcap where it has one or an animation
/// (which may switch a texture or a matcap on, through the array; it
/// takes the base texture too). The shader with the others off draws the
/// same pixels for it.
pub fn shader_features(m: &Material, textures: usize) -> u32 {
    use map_bits::*;
    let bits = map_flags(m, textures).0;
    let mut f = 0;
    for (map, feature) in [
        (TEAM, features::TEAM_MAP),
        (MATERIAL, features::MATERIAL_MAP),
        (NORMAL_2CH | NORMAL_RGB, features::NORMAL_MAP),
        (HEIGHT, features::HEIGHT_MAP),
        (EMISSION, features::EMISSION_MAP),
    ] {
        if bits & map != 0 {
            f |= feature;
        }
    }
    if m.matcap.is_some() || m.animation.is_some() {
        f |= features::MATCAP;
    }
    if m.texture.is_some_and(|t| t < textures) || m.animation.is_some() {
        f |= features::BASE_TEXTURE;
    }
    if bits & SPECULAR != 0 {
        f |= features::SPECULAR;
    }
    if m.alpha_cutoff.is_some() {
        f |= features::ALPHA_CUTOFF;
    }
    f
}

/// `Anim` in `shaders/material_anim.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, Debug, PartialEq)]
pub struct AnimGpu {
    pub info: [u32; 4],
    pub tracks: [[u32; 4]; 3],
    pub timing: [f32; 4],
    pub scroll: [f32; 4],
    pub color: [f32; 4],
    pub emission: [f32; 4],
    pub textures: [f32; 4],
}

/// `Key` in `shaders/material_anim.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable, Debug, PartialEq)]
pub struct KeyGpu {
    pub info: [u32; 4],
    pub value: [f32; 4],
}

fn interp_code(i: MatInterp) -> u32 {
    match i {
        MatInterp::Step => 0,
        MatInterp::Linear => 1,
        MatInterp::Hsv => 2,
        MatInterp::Oklch => 3,
    }
}

/// Appends a track's keys; returns (first, count).
fn push_track<T>(
    keys: &mut Vec<KeyGpu>,
    track: &MatTrack<T>,
    value: impl Fn(&T) -> [f32; 4],
    stepped: bool,
) -> [u32; 2] {
    let first = keys.len() as u32;
    keys.extend(track.keys.iter().map(|k| KeyGpu {
        info: [
            k.frame,
            if stepped { 0 } else { interp_code(k.interp) },
            0,
            0,
        ],
        value: value(&k.value),
    }));
    [first, track.keys.len() as u32]
}

/// The keyframe buffers of every animated material of `scene`: headers in
/// material order, keys track after track.
pub fn pack(scene: &Scene, layers: &TextureLayers) -> (Vec<AnimGpu>, Vec<KeyGpu>) {
    let mut anims = Vec::new();
    let mut keys = Vec::new();
    for (i, m) in scene.materials.iter().enumerate() {
        let Some(a) = &m.animation else { continue };
        let tex = |t: &Option<usize>| {
            [
                layers.layer(i, *t) as f32,
                t.is_some() as u32 as f32,
                0.0,
                0.0,
            ]
        };
        let switching = layers.switching.get(i).copied().unwrap_or(false);
        let color = push_track(&mut keys, &a.color, |c| *c, false);
        let emission = push_track(&mut keys, &a.emission, |c| [c[0], c[1], c[2], 0.0], false);
        let shading = push_track(&mut keys, &a.shading, |&s| [s; 4], false);
        // Without the array, texture tracks are not played (see `plan`).
        let empty = MatTrack::default();
        let (tt, mt) = if switching {
            (&a.texture, &a.matcap)
        } else {
            (&empty, &empty)
        };
        let texture = push_track(&mut keys, tt, tex, true);
        let matcap = push_track(&mut keys, mt, tex, true);
        let [it, im] = [tex(&m.texture), tex(&m.matcap)];
        anims.push(AnimGpu {
            info: [
                i as u32,
                match a.loop_mode {
                    MatLoop::Hold => 0,
                    MatLoop::Loop => 1,
                    MatLoop::Continue => 2,
                },
                a.preserve_scroll as u32 | ((m.blend == BlendMode::Additive) as u32) << 1,
                a.last_frame,
            ],
            tracks: [
                [color[0], color[1], emission[0], emission[1]],
                [shading[0], shading[1], texture[0], texture[1]],
                [matcap[0], matcap[1], 0, 0],
            ],
            timing: [a.seconds_per_frame, 0.0, 0.0, 0.0],
            scroll: [
                a.texture_scroll[0],
                a.texture_scroll[1],
                a.matcap_scroll[0],
                a.matcap_scroll[1],
            ],
            color: m.base_color,
            emission: [m.emission[0], m.emission[1], m.emission[2], m.shading],
            textures: [it[0], it[1], im[0], im[1]],
        });
    }
    (anims, keys)
}

/// The compute pipeline (one per renderer), made when the first scene
/// that animates a material is uploaded: most files animate none, and on
/// a software adapter compiling it was a tenth of a thumbnail's whole
/// process (docs/performance-history.md).
pub struct MaterialAnimator {
    device: wgpu::Device,
    made: std::sync::OnceLock<AnimPipeline>,
}

struct AnimPipeline {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// One scene's keyframe buffers and the bind group that writes its slots.
pub struct MaterialAnimBatch {
    params: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    pub count: u32,
}

impl MaterialAnimator {
    pub fn new(device: &wgpu::Device) -> MaterialAnimator {
        MaterialAnimator {
            device: device.clone(),
            made: std::sync::OnceLock::new(),
        }
    }

    /// Makes the pipeline now, ahead of the scene that will need it (a
    /// thumbnail does it while the file loads).
    pub fn prepare(&self) {
        self.made();
    }

    /// Whether the pipeline has been made (a scene animated a material).
    pub fn is_made(&self) -> bool {
        self.made.get().is_some()
    }

    fn made(&self) -> &AnimPipeline {
        self.made.get_or_init(|| AnimPipeline::new(&self.device))
    }

    /// Uploads the keyframes of `scene` once; `None` when nothing is animated.
    pub fn batch(
        &self,
        device: &wgpu::Device,
        scene: &Scene,
        layers: &TextureLayers,
        slots: &wgpu::Buffer,
    ) -> Option<MaterialAnimBatch> {
        let (anims, keys) = pack(scene, layers);
        if anims.is_empty() {
            return None;
        }
        let storage = |label, bytes: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage: wgpu::BufferUsages::STORAGE,
            })
        };
        let anim_buf = storage("material animations", bytemuck::cast_slice(&anims));
        let zero_key = [KeyGpu::zeroed()];
        let key_buf = storage(
            "material keyframes",
            bytemuck::cast_slice(if keys.is_empty() { &zero_key } else { &keys }),
        );
        let no_rect = [[0.0f32; 4]];
        let rect_buf = storage(
            "texture array rects",
            bytemuck::cast_slice(if layers.rects.is_empty() {
                &no_rect
            } else {
                &layers.rects
            }),
        );
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("material animation params"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("material animation"),
            layout: &self.made().layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: anim_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: key_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: rect_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: slots.as_entire_binding(),
                },
            ],
        });
        Some(MaterialAnimBatch {
            params,
            bind_group,
            count: anims.len() as u32,
        })
    }

    /// Sets the time the next dispatch evaluates.
    pub fn set_time(&self, queue: &wgpu::Queue, batch: &MaterialAnimBatch, time: f32) {
        let params: [u32; 4] = [time.to_bits(), batch.count, 0, 0];
        queue.write_buffer(&batch.params, 0, bytemuck::cast_slice(&params));
    }

    /// Records the dispatch into a compute pass.
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, batch: &MaterialAnimBatch) {
        pass.set_pipeline(&self.made().pipeline);
        pass.set_bind_group(0, &batch.bind_group, &[]);
        pass.dispatch_workgroups(batch.count.div_ceil(WORKGROUP_SIZE), 1, 1);
    }

    /// Records the dispatch that writes every animated slot for `time`.
    pub fn encode(
        &self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        batch: &MaterialAnimBatch,
        time: f32,
    ) {
        self.set_time(queue, batch, time);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("material animation"),
            timestamp_writes: None,
        });
        self.dispatch(&mut pass, batch);
    }
}

impl AnimPipeline {
    fn new(device: &wgpu::Device) -> AnimPipeline {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("material_anim.wgsl"),
            source: wgpu::ShaderSource::Wgsl(super::shader_source("material_anim.wgsl").into()),
        });
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let read = wgpu::BufferBindingType::Storage { read_only: true };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material animation"),
            entries: &[
                entry(0, wgpu::BufferBindingType::Uniform),
                entry(1, read),
                entry(2, read),
                entry(3, read),
                entry(4, wgpu::BufferBindingType::Storage { read_only: false }),
            ],
        });
        let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("material animation"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("material animation"),
            layout: Some(&pl),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        AnimPipeline { pipeline, layout }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Texture;

    #[test]
    fn layers_carry_a_wrap_border() {
        // 2x1 texture: red, green. Its layer row 1 reads
        // [green | red green | red], rows 0 and 2 repeat row 1.
        let mut scene = Scene::default();
        let mut t = Texture::checkerboard("t", "test".into());
        t.width = 2;
        t.height = 1;
        t.rgba8 = vec![255, 0, 0, 255, 0, 255, 0, 255];
        scene.textures.push(t);
        let mut m = Material::default();
        let mut a = crate::scene::MaterialAnim::new(0.1, 4, MatLoop::Loop);
        a.texture.keys.push(crate::scene::material_anim::MatKey {
            frame: 1,
            interp: MatInterp::Step,
            value: Some(0),
        });
        m.animation = Some(a);
        scene.materials.push(m);
        let (layers, why) = TextureLayers::plan(&scene, 8192, 256);
        assert!(why.is_none());
        assert_eq!(layers.size, [4, 3]);
        assert_eq!(layers.layer_of, vec![Some(0)]);
        assert_eq!(layers.rects, vec![[0.5, 1.0 / 3.0, 0.25, 1.0 / 3.0]]);
        let px = layers.pixels(&scene);
        let g = [0, 255, 0, 255];
        let r = [255, 0, 0, 255];
        let row: Vec<u8> = [g, r, g, r].concat();
        assert_eq!(px, [row.clone(), row.clone(), row].concat());
        // Over the limits: no array, a reason.
        let (none, why) = TextureLayers::plan(&scene, 3, 256);
        assert!(why.is_some() && none.layer_count() == 0 && none.switching == vec![false]);
    }
}
