// `facet bench skin --kernels copy16`: 16 bytes in and 16 bytes out per
// invocation, each one aligned vector load and store: the most a compute
// kernel streams on the device, the ceiling skin.wgsl is measured against.
// Bound as skin.wgsl is (binding 3 starts with the vertex count).

@group(0) @binding(0) var<storage, read> words_in: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> words_out: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> count: vec4<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < count.x) {
        words_out[gid.x] = words_in[gid.x];
    }
}
