// `facet bench skin --kernels stream`: the memory floor of skinning. Reads
// each input vertex and writes an output vertex exactly as skin.wgsl does
// (skin_io.wgsl's data and bindings), with no arithmetic between:
// what skinning costs above this is the kernel's, not the memory's.

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.vertex_count) {
        return;
    }
    let v = src[i];
    dst[i] = OutVertex(v.px, v.py, v.pz, v.normal ^ v.joints ^ v.weights01 ^ v.weights23);
}
