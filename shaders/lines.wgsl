// Overlay lines (grid, wireframe, normals, bounds, skeleton): coloured line
// lists pulled slightly towards the camera so they win over coplanar faces.

struct Globals {
    view_proj: mat4x4<f32>,
    view: mat4x4<f32>,
    light_dir: vec4<f32>,
    params: vec4<f32>,
};

@group(0) @binding(0) var<uniform> globals: Globals;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_main(@location(0) position: vec3<f32>, @location(1) color: vec4<f32>) -> VsOut {
    var out: VsOut;
    var clip = globals.view_proj * vec4<f32>(position, 1.0);
    clip.z = clip.z - globals.params.y * clip.w;
    out.clip = clip;
    out.color = color;
    return out;
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    return in.color;
}
