// Linear-blend skinning of every skinned vertex of the scene (one dispatch up
// to 16.7M vertices), on the data and bindings of skin_io.wgsl.

// The bones' 3x4 matrices with their rows apart: every bone's first row, then
// every second, then every third (bone j's row k at rows[k * count + j],
// gpu::skinning::write_bone_rows). A warp gathering one row of 32 different
// bones touches fewer cache lines than with each bone's rows together.
@group(0) @binding(2) var<storage, read> rows: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.vertex_count) {
        return;
    }
    let count = arrayLength(&rows) / 3u;
    let v = src[i];
    let w = vec4<f32>(unpack2x16unorm(v.weights01), unpack2x16unorm(v.weights23));
    // All four influences unconditionally (an unused one has weight 0 and
    // joint 0), so that the twelve row loads are in flight together.
    let j0 = vec4<u32>(v.joints & 0xFFu, (v.joints >> 8u) & 0xFFu, (v.joints >> 16u) & 0xFFu, v.joints >> 24u);
    let j1 = j0 + count;
    let j2 = j1 + count;
    var r0 = rows[j0.x] * w.x + rows[j0.y] * w.y + rows[j0.z] * w.z + rows[j0.w] * w.w;
    var r1 = rows[j1.x] * w.x + rows[j1.y] * w.y + rows[j1.z] * w.z + rows[j1.w] * w.w;
    var r2 = rows[j2.x] * w.x + rows[j2.y] * w.y + rows[j2.z] * w.z + rows[j2.w] * w.w;
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
