// `facet bench skin --kernels empty`: skin.wgsl's grid of workgroups doing
// nothing: what a pass of that size costs before any vertex is read (the
// floor under every kernel at small sizes). The one store is never made
// (no invocation has id u32::MAX): it keeps the kernel reading its count
// as skin.wgsl does, so that only the work differs.

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x == 0xFFFFFFFFu && params.vertex_count == 0u) {
        dst[0] = OutVertex(0.0, 0.0, 0.0, 0u);
    }
}
