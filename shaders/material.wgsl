// One material slot as both shaders see it: the mesh pass binds it as
// `var<uniform> material: Material`; material_anim.wgsl rewrites it in a
// storage array, padded to the 256-byte slot stride. Prepended to both (see
// gpu::SHADERS); `gpu::materials::MaterialUniform` is its Rust side, and
// tests/shaders.rs checks the two layouts against each other.

struct Material {
    base_color: vec4<f32>,
    // rgb: emission (linear).
    emission: vec4<f32>,
    // x: shading (0 = evenly lit, 1 = fully directional), y: matcap weight (0/1),
    // z: additive (0/1).
    params: vec4<f32>,
    // xy: texture UV offset, zw: matcap UV offset (scrolling).
    uv_offset: vec4<f32>,
    // x: texture, y: matcap layer in `tex_array` (materials whose textures
    // are keyframed); -1: the bound `base_tex` / `matcap_tex`.
    layers: vec4<i32>,
    // Where a layer's texture sits in the array: xy scale, zw offset (it is
    // stored with a one-texel wrap border, so bilinear filtering repeats as
    // it does on a texture of its own).
    tex_rect: vec4<f32>,
    matcap_rect: vec4<f32>,
};
