// `facet bench skin --kernels copy16`: 16 bytes in and 16 bytes out per
// invocation, each one aligned vector load and store: the most a compute
// kernel streams on the device, the ceiling skin.wgsl is measured against.
// (Params from skin_io.wgsl.)

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.vertex_count) {
        return;
    }
    dst[i] = src[i];
}
