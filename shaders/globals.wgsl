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
};

@group(0) @binding(0) var<uniform> globals: Globals;
