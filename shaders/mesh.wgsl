// Lit, textured triangle meshes. Scene positions are model space (no per-mesh
// transform). Colours arrive linear; the target is an sRGB format.

@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var base_tex: texture_2d<f32>;
@group(1) @binding(2) var matcap_tex: texture_2d<f32>;
@group(1) @binding(3) var samp: sampler;
@group(1) @binding(4) var tex_array: texture_2d_array<f32>;

struct VsIn {
    @location(0) position: vec3<f32>,
    // Octahedral normal (2 x snorm16), written by upload or by skin.wgsl.
    @location(1) normal_oct: vec2<f32>,
    @location(2) uv: vec2<f32>,
    // sRGB-encoded vertex colour (white when the file has none).
    @location(3) color: vec4<f32>,
};

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) color: vec4<f32>,
};

@vertex
fn vs_main(v: VsIn) -> VsOut {
    var out: VsOut;
    out.clip = globals.view_proj * vec4<f32>(v.position, 1.0);
    out.normal = oct_decode(v.normal_oct);
    out.uv = v.uv;
    // sRGB -> linear (IEC 61966-2-1), once per vertex.
    let c = v.color.rgb;
    let lin = select(pow((c + 0.055) / 1.055, vec3<f32>(2.4)), c / 12.92, c <= vec3<f32>(0.04045));
    out.color = vec4<f32>(lin, v.color.a);
    return out;
}

// The bound texture, or a layer of the array (`material` is a uniform, so
// the branch is uniform). The array has one mip level, so the derivative
// jump at the wrap does not matter.
fn sample_texture(bound: texture_2d<f32>, layer: i32, rect: vec4<f32>, uv: vec2<f32>) -> vec4<f32> {
    if (layer < 0) {
        return textureSample(bound, samp, uv);
    }
    return textureSampleLevel(tex_array, samp, rect.zw + fract(uv) * rect.xy, layer, 0.0);
}

// The matcap preset's sphere, as a function of the view-space normal: a
// soft key from the upper left, a tight highlight and a cool rim, so that
// curvature reads at any camera angle (the light turns with the camera).
fn clay_matcap(vn: vec3<f32>) -> vec3<f32> {
    let key_dir = normalize(vec3<f32>(-0.45, 0.6, 0.65));
    let key = max(dot(vn, key_dir), 0.0);
    let highlight = pow(key, 32.0) * 0.35;
    let rim = pow(1.0 - clamp(vn.z, 0.0, 1.0), 3.0);
    let base = 0.12 + 0.78 * key;
    return vec3<f32>(base + highlight) * vec3<f32>(1.0, 0.96, 0.9) + rim * vec3<f32>(0.18, 0.22, 0.3);
}

@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var n = normalize(in.normal);
    if (!front) {
        n = -n; // two-sided lighting
    }
    let albedo = in.color * material.base_color * sample_texture(base_tex, material.layers.x, material.tex_rect, in.uv + material.uv_offset.xy);

    // Directional key light plus a soft fill; `shading` blends towards flat.
    let l = normalize(globals.light_dir.xyz);
    let key = max(dot(n, l), 0.0);
    let fill = 0.5 + 0.5 * n.y;
    let directional = 0.25 + 0.6 * key + 0.2 * fill;
    var light = vec3<f32>(mix(1.0, directional, material.params.x * globals.params.z));

    // Matcap: sphere texture looked up by the view-space normal.
    let vn = normalize((globals.view * vec4<f32>(n, 0.0)).xyz);
    if (globals.params.w > 0.5) {
        // The matcap preset: every surface lit by the built-in clay sphere
        // (shape reading, whatever the material's shading says).
        light = clay_matcap(vn);
    }
    let muv = vec2<f32>(vn.x * 0.5 + 0.5, 0.5 - vn.y * 0.5) + material.uv_offset.zw;
    let matcap = sample_texture(matcap_tex, material.layers.y, material.matcap_rect, muv).rgb;
    let shaded = mix(albedo.rgb * light, albedo.rgb * matcap, material.params.y);

    let rgb = shaded + material.emission.rgb;
    if (material.params.z > 0.5) {
        // Additive: premultiply so that blending One + One adds rgb * alpha.
        return vec4<f32>(rgb * albedo.a, albedo.a);
    }
    return vec4<f32>(rgb, albedo.a);
}
