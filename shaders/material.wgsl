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
    // rgb: specular colour (linear), w: exponent (M3D Ks/Ns; MAP_SPECULAR).
    specular: vec4<f32>,
    // x: which maps are bound (MAP_* bits); the compute pass leaves it.
    maps: vec4<u32>,
    // x: bump strength (MAP_HEIGHT), y: alpha cutoff (0: none), z: glossiness
    // factor (MAP_SPEC_GLOSS).
    extra: vec4<f32>,
};

// `Material.maps.x` bits (gpu::materials sets them from scene::Maps).
const MAP_TEAM: u32 = 1u;          // team-colour mask (R primary, G secondary, B glow)
const MAP_MATERIAL: u32 = 2u;      // material map (R specular, G gloss)
const MAP_MATERIAL_GLOW: u32 = 4u; // ...whose B glows (PA CSG)
const MAP_NORMAL_2CH: u32 = 8u;    // normal map, X in alpha, Y in green (PA)
const MAP_NORMAL_RGB: u32 = 16u;   // normal map, XYZ in RGB, Y up (M3D map_N)
const MAP_HEIGHT: u32 = 32u;       // bump map, height in red (M3D map_Km)
const MAP_EMISSION: u32 = 64u;     // emission map (M3D map_Ke)
const MAP_SPECULAR: u32 = 128u;    // specular colour and exponent in `specular`
const BLEND_ALPHA: u32 = 256u;     // alpha-blended material
const MAP_SPEC_GLOSS: u32 = 512u;  // ...the material map is glTF's specular (RGB) glossiness (A)
