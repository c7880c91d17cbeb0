// Linear-blend skinning of every skinned vertex of the scene (one dispatch up
// to 16.7M vertices).
// In: 28 B per vertex (position, octahedral normal, 4 x u8 joints, 4 x
// unorm16 weights). Out: 16 B per vertex (position, octahedral normal), read
// directly by the render pass as its position/normal vertex stream.

struct SkinVertex {
    px: f32,
    py: f32,
    pz: f32,
    normal: u32,   // octahedral, 2 x snorm16
    joints: u32,   // 4 x u8, joint k in bits 8k..8k+7
    weights01: u32, // 2 x unorm16: weights 0 and 1
    weights23: u32, // 2 x unorm16: weights 2 and 3 (the four sum to 65535)
};

struct OutVertex {
    px: f32,
    py: f32,
    pz: f32,
    normal: u32,
};

// Rows of a 3x4 affine matrix.
struct Bone {
    r0: vec4<f32>,
    r1: vec4<f32>,
    r2: vec4<f32>,
};

// One dispatch skins at most 65535 x 256 vertices; past that the host binds
// consecutive ranges of the buffers and dispatches once per range.
struct Params {
    vertex_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};

@group(0) @binding(0) var<storage, read> src: array<SkinVertex>;
@group(0) @binding(1) var<storage, read_write> dst: array<OutVertex>;
@group(0) @binding(2) var<storage, read> bones: array<Bone>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.vertex_count) {
        return;
    }
    let v = src[i];
    let w = vec4<f32>(unpack2x16unorm(v.weights01), unpack2x16unorm(v.weights23));
    var r0 = vec4<f32>(0.0);
    var r1 = vec4<f32>(0.0);
    var r2 = vec4<f32>(0.0);
    for (var k = 0u; k < 4u; k = k + 1u) {
        let wk = w[k];
        if (wk > 0.0) {
            let b = bones[(v.joints >> (8u * k)) & 0xFFu];
            r0 = r0 + b.r0 * wk;
            r1 = r1 + b.r1 * wk;
            r2 = r2 + b.r2 * wk;
        }
    }
    if ((v.weights01 | v.weights23) == 0u) {
        // No influence: stays at rest.
        r0 = vec4<f32>(1.0, 0.0, 0.0, 0.0);
        r1 = vec4<f32>(0.0, 1.0, 0.0, 0.0);
        r2 = vec4<f32>(0.0, 0.0, 1.0, 0.0);
    }
    let p = vec4<f32>(v.px, v.py, v.pz, 1.0);
    let n = oct_decode(unpack2x16snorm(v.normal));
    let sn = vec3<f32>(dot(r0.xyz, n), dot(r1.xyz, n), dot(r2.xyz, n));
    let len = length(sn);
    let out_n = select(n, sn / len, len > 1e-20);
    dst[i] = OutVertex(dot(r0, p), dot(r1, p), dot(r2, p), oct_encode(out_n));
}
