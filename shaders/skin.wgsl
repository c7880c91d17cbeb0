// Linear-blend skinning of every skinned vertex of the scene (one dispatch up
// to 16.7M vertices), on the data and bindings of skin_io.wgsl.

@group(0) @binding(2) var<storage, read> bones: array<Bone>;

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
