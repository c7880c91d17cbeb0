// Octahedral normal encoding shared by the shaders that read or write the
// position/normal stream (prepended to them at load time, see gpu/mod.rs).

fn sign_not_zero(v: vec2<f32>) -> vec2<f32> {
    return select(vec2<f32>(-1.0), vec2<f32>(1.0), v >= vec2<f32>(0.0));
}

fn oct_decode(e: vec2<f32>) -> vec3<f32> {
    var n = vec3<f32>(e.x, e.y, 1.0 - abs(e.x) - abs(e.y));
    if (n.z < 0.0) {
        let xy = (1.0 - abs(n.yx)) * sign_not_zero(n.xy);
        n = vec3<f32>(xy.x, xy.y, n.z);
    }
    return normalize(n);
}

fn oct_encode(n: vec3<f32>) -> u32 {
    var p = n.xy / (abs(n.x) + abs(n.y) + abs(n.z));
    if (n.z < 0.0) {
        p = (1.0 - abs(p.yx)) * sign_not_zero(p);
    }
    return pack2x16snorm(p);
}
