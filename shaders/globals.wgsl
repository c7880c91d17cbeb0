// The frame's uniforms, bound at group 0 by every render pipeline (mesh,
// lines, skeleton). Written by gpu::frame (`renderer::Globals` is its Rust
// side, checked in tests/shaders.rs). Prepended to those shaders (see
// gpu::SHADERS).

struct Globals {
    view_proj: mat4x4<f32>,
    view: mat4x4<f32>,
    // xyz: direction towards the key light (world space).
    light_dir: vec4<f32>,
    // x: scene radius, y: depth pull for lines (fraction of w), z: 1 with a
    // directional light, 0 for flat lighting; w: 1 for the matcap preset.
    params: vec4<f32>,
    // xyz: the camera's position (world space), for specular highlights.
    eye: vec4<f32>,
    // PA team colours, sRGB-encoded (the mask's R and G weights).
    team_primary: vec4<f32>,
    team_secondary: vec4<f32>,
    // x: 1 with textures on, 0 for material colours only; y: the channel
    // shown (CHANNEL_*).
    view_mode: vec4<u32>,
};

const CHANNEL_SHADED: u32 = 0u;
const CHANNEL_DIFFUSE: u32 = 1u;
const CHANNEL_MASK: u32 = 2u;
const CHANNEL_MATERIAL: u32 = 3u;
const CHANNEL_NORMAL: u32 = 4u;
const CHANNEL_WEIGHTS: u32 = 5u;
const CHANNEL_UVS: u32 = 6u;
const CHANNEL_FACES: u32 = 7u;

@group(0) @binding(0) var<uniform> globals: Globals;
