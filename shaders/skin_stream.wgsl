// `facet bench skin --kernels stream`: the memory floor of skinning. Reads
// each input vertex and writes an output vertex exactly as skin.wgsl does
// (same bindings, same 28 B in and 16 B out), with no arithmetic between:
// what skinning costs above this is the kernel's, not the memory's.

struct SkinVertex {
    px: f32,
    py: f32,
    pz: f32,
    normal: u32,
    joints: u32,
    weights01: u32,
    weights23: u32,
};

struct OutVertex {
    px: f32,
    py: f32,
    pz: f32,
    normal: u32,
};

struct Params {
    vertex_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};

@group(0) @binding(0) var<storage, read> src: array<SkinVertex>;
@group(0) @binding(1) var<storage, read_write> dst: array<OutVertex>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.vertex_count) {
        return;
    }
    let v = src[i];
    dst[i] = OutVertex(v.px, v.py, v.pz, v.normal ^ v.joints ^ v.weights01 ^ v.weights23);
}
