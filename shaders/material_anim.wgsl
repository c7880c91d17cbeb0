// Material keyframe animation: one invocation per animated material
// evaluates its tracks at the global time and writes the material's slot of
// the scene's material buffer, which the mesh pass binds as a uniform.
// Mirrors src/anim/material.rs and src/anim/color.rs (the CPU reference the
// tests hold this against).

struct Params {
    time: f32,
    count: u32,
    _pad0: u32,
    _pad1: u32,
};

struct Anim {
    // slot, loop mode (0 hold, 1 loop, 2 continue), flags (1: scrolls run on
    // the global time, 2: additive), last frame
    info: vec4<u32>,
    // (first key, key count) of color, emission | shading, texture | matcap
    tracks0: vec4<u32>,
    tracks1: vec4<u32>,
    tracks2: vec4<u32>,
    // x: seconds per frame (0: frozen at frame 0)
    timing: vec4<f32>,
    // xy: texture scroll per second, zw: matcap scroll (scene UV space)
    scroll: vec4<f32>,
    // Initial values: sRGB-encoded RGBA; emission rgb + shading in w;
    // textures: (texture layer, 0, matcap layer, matcap present).
    color: vec4<f32>,
    emission: vec4<f32>,
    textures: vec4<f32>,
};

struct Key {
    // frame, interpolation (0 step, 1 linear, 2 HSV, 3 OKLCH)
    info: vec4<u32>,
    value: vec4<f32>,
};

// A `Material` (material.wgsl) padded to the 256-byte slot stride.
struct Slot {
    material: Material,
    _pad: array<vec4<f32>, 6>,
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> anims: array<Anim>;
@group(0) @binding(2) var<storage, read> keys: array<Key>;
// Per texture-array layer: (width, height) / layer size, 1 / layer size.
@group(0) @binding(3) var<storage, read> rects: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> slots: array<Slot>;

const LOOP_HOLD: u32 = 0u;
const LOOP_CONTINUE: u32 = 2u;
const ACHROMATIC_CHROMA: f32 = 1e-4;

fn srgb_to_linear(c: f32) -> f32 {
    if (c <= 0.04045) {
        return c / 12.92;
    }
    return pow((c + 0.055) / 1.055, 2.4);
}

fn linear_to_srgb(c: f32) -> f32 {
    if (c <= 0.0031308) {
        return c * 12.92;
    }
    return 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

fn rem_euclid(x: f32, m: f32) -> f32 {
    return x - m * floor(x / m);
}

fn rgb_to_hsv(c: vec3<f32>) -> vec3<f32> {
    let mx = max(max(c.r, c.g), c.b);
    let mn = min(min(c.r, c.g), c.b);
    let d = mx - mn;
    var s = 0.0;
    if (mx > 0.0) {
        s = d / mx;
    }
    var h = 0.0;
    if (d > 0.0) {
        if (mx == c.r) {
            h = 60.0 * ((c.g - c.b) / d);
        } else if (mx == c.g) {
            h = 60.0 * ((c.b - c.r) / d + 2.0);
        } else {
            h = 60.0 * ((c.r - c.g) / d + 4.0);
        }
    }
    return vec3<f32>(rem_euclid(h, 360.0), s, mx);
}

fn hsv_to_rgb(c: vec3<f32>) -> vec3<f32> {
    let k = (vec3<f32>(5.0, 3.0, 1.0) + c.x / 60.0) - 6.0 * floor((vec3<f32>(5.0, 3.0, 1.0) + c.x / 60.0) / 6.0);
    return c.z - c.z * c.y * clamp(min(k, 4.0 - k), vec3<f32>(0.0), vec3<f32>(1.0));
}

fn cbrt(x: f32) -> f32 {
    return sign(x) * pow(abs(x), 1.0 / 3.0);
}

fn srgb_to_oklch(c: vec3<f32>) -> vec3<f32> {
    let r = srgb_to_linear(c.r);
    let g = srgb_to_linear(c.g);
    let b = srgb_to_linear(c.b);
    let l = cbrt(0.41222147 * r + 0.53633255 * g + 0.051445995 * b);
    let m = cbrt(0.2119035 * r + 0.6806995 * g + 0.10739696 * b);
    let s = cbrt(0.08830246 * r + 0.28171885 * g + 0.6299787 * b);
    let lab = vec3<f32>(
        0.21045426 * l + 0.7936178 * m - 0.004072047 * s,
        1.9779985 * l - 2.4285922 * m + 0.4505937 * s,
        0.025904037 * l + 0.78277177 * m - 0.80867577 * s,
    );
    let h = rem_euclid(degrees(atan2(lab.z, lab.y)), 360.0);
    return vec3<f32>(lab.x, sqrt(lab.y * lab.y + lab.z * lab.z), h);
}

fn oklch_to_srgb(lch: vec3<f32>) -> vec3<f32> {
    let h = radians(lch.z);
    let a = lch.y * cos(h);
    let b = lch.y * sin(h);
    let l_ = lch.x + 0.39633778 * a + 0.21580376 * b;
    let m_ = lch.x - 0.105561346 * a - 0.06385417 * b;
    let s_ = lch.x - 0.08948418 * a - 1.2914855 * b;
    let l = l_ * l_ * l_;
    let m = m_ * m_ * m_;
    let s = s_ * s_ * s_;
    let rgb = vec3<f32>(
        4.0767417 * l - 3.3077116 * m + 0.23096994 * s,
        -1.268438 * l + 2.6097574 * m - 0.34131938 * s,
        -0.0041960863 * l - 0.7034186 * m + 1.7076147 * s,
    );
    let c = clamp(rgb, vec3<f32>(0.0), vec3<f32>(1.0));
    return vec3<f32>(linear_to_srgb(c.r), linear_to_srgb(c.g), linear_to_srgb(c.b));
}

fn lerp_hue(a: f32, b: f32, t: f32) -> f32 {
    let d = rem_euclid(b - a + 540.0, 360.0) - 180.0;
    return rem_euclid(a + d * t, 360.0);
}

// Polar colours with the hue in x; an end without hue borrows the other's.
fn lerp_polar(a_in: vec3<f32>, b_in: vec3<f32>, t: f32, grey_a: bool, grey_b: bool) -> vec3<f32> {
    var a = a_in;
    var b = b_in;
    if (grey_a) {
        a.x = b.x;
    } else if (grey_b) {
        b.x = a.x;
    }
    return vec3<f32>(lerp_hue(a.x, b.x, t), mix(a.yz, b.yz, t));
}

fn mix_value(a: vec4<f32>, b: vec4<f32>, t: f32, interp: u32) -> vec4<f32> {
    if (interp == 0u) {
        return a;
    }
    let alpha = mix(a.w, b.w, t);
    if (interp == 2u) {
        let ha = rgb_to_hsv(a.rgb);
        let hb = rgb_to_hsv(b.rgb);
        return vec4<f32>(hsv_to_rgb(lerp_polar(ha, hb, t, ha.y <= 0.0, hb.y <= 0.0)), alpha);
    }
    if (interp == 3u) {
        let la = srgb_to_oklch(a.rgb);
        let lb = srgb_to_oklch(b.rgb);
        // lerp_polar wants (h, C, L).
        let m = lerp_polar(la.zyx, lb.zyx, t, la.y < ACHROMATIC_CHROMA, lb.y < ACHROMATIC_CHROMA);
        return vec4<f32>(oklch_to_srgb(m.zyx), alpha);
    }
    return vec4<f32>(mix(a.rgb, b.rgb, t), alpha);
}

// The value of the track of `count` keys at `first` at frame `x` of cycle
// `cycle` (see src/anim/material.rs: `segment` and `sample`).
fn sample_track(first: u32, count: u32, initial: vec4<f32>, x: f32, cycle: u32, loop_mode: u32, period: f32) -> vec4<f32> {
    if (count == 0u) {
        return initial;
    }
    let last = first + count - 1u;
    let k0 = f32(keys[first].info.x);
    let kn = f32(keys[last].info.x);
    var a = initial;
    var fa = 0.0;
    var b = keys[first];
    var fb = k0;
    if (x < k0) {
        if (loop_mode == LOOP_CONTINUE && cycle > 0u) {
            a = keys[last].value;
            fa = kn - period;
        }
    } else if (x >= kn) {
        if (loop_mode != LOOP_CONTINUE) {
            return keys[last].value;
        }
        a = keys[last].value;
        fa = kn;
        fb = k0 + period;
    } else {
        // The last key at or before x: keys[lo].frame <= x < keys[lo + 1].frame.
        var lo = first;
        var hi = last;
        while (hi - lo > 1u) {
            let mid = (lo + hi) / 2u;
            if (f32(keys[mid].info.x) <= x) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        a = keys[lo].value;
        fa = f32(keys[lo].info.x);
        b = keys[hi];
        fb = f32(b.info.x);
    }
    let s = clamp((x - fa) / (fb - fa), 0.0, 1.0);
    return mix_value(a, b.value, s, b.info.y);
}

fn rect(layer: f32) -> vec4<f32> {
    if (layer < 0.0) {
        return vec4<f32>(1.0, 1.0, 0.0, 0.0);
    }
    return rects[u32(layer)];
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.count) {
        return;
    }
    let an = anims[id.x];
    let loop_mode = an.info.y;
    let last_frame = f32(an.info.w);
    let period = last_frame + 1.0;
    let spf = an.timing.x;
    var f = 0.0;
    if (spf > 0.0) {
        f = max(params.time / spf, 0.0);
    }
    var cycle = 0u;
    var x = min(f, last_frame);
    if (loop_mode != LOOP_HOLD) {
        let c = floor(f / period);
        cycle = u32(c);
        x = clamp(f - c * period, 0.0, period);
    }

    let color = sample_track(an.tracks0.x, an.tracks0.y, an.color, x, cycle, loop_mode, period);
    let emission = sample_track(an.tracks0.z, an.tracks0.w, vec4<f32>(an.emission.rgb, 0.0), x, cycle, loop_mode, period);
    let shading = sample_track(an.tracks1.x, an.tracks1.y, vec4<f32>(an.emission.w), x, cycle, loop_mode, period).x;
    let tex = sample_track(an.tracks1.z, an.tracks1.w, an.textures.xyxy, x, cycle, loop_mode, period).x;
    let matcap = sample_track(an.tracks2.x, an.tracks2.y, an.textures.zwzw, x, cycle, loop_mode, period);

    var scroll_time = x * spf;
    if ((an.info.z & 1u) != 0u) {
        scroll_time = params.time;
    }
    let additive = f32((an.info.z & 2u) != 0u);

    let i = an.info.x;
    slots[i].material.base_color = vec4<f32>(srgb_to_linear(color.r), srgb_to_linear(color.g), srgb_to_linear(color.b), color.a);
    slots[i].material.emission = vec4<f32>(srgb_to_linear(emission.r), srgb_to_linear(emission.g), srgb_to_linear(emission.b), 0.0);
    slots[i].material.params = vec4<f32>(shading, matcap.y, additive, 0.0);
    slots[i].material.uv_offset = fract(an.scroll * scroll_time);
    slots[i].material.layers = vec4<i32>(i32(tex), i32(matcap.x), 0, 0);
    slots[i].material.tex_rect = rect(tex);
    slots[i].material.matcap_rect = rect(matcap.x);
}
