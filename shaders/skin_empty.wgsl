// `facet bench skin --kernels empty`: skin.wgsl's grid of workgroups doing
// nothing past the bound check: what a dispatch of that size costs before
// any vertex is read (the floor under every kernel at small sizes).

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x == 0xFFFFFFFFu && params.vertex_count == 0u) {
        dst[0] = OutVertex(0.0, 0.0, 0.0, 0u);
    }
}
