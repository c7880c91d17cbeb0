// Lit, textured triangle meshes (and the points and lines of Papa groups).
// Scene positions are model space (no per-mesh transform). Colours arrive
// linear; the target is an sRGB format. Shading follows the games' own
// shaders where they are public (docs/formats.md, "Shading"): PA team
// colours as an overlay of the diffuse, specular and gloss from material
// maps, glow, tangent-space normal maps; M3D specular, emission maps and
// bump maps.

// What this pipeline's materials use (gpu::materials::shader_features):
// the base texture, each map, specular, and the matcap with the texture
// array of texture-switching (animated) materials. A software rasteriser
// runs both sides of a branch on a uniform, so every pixel paid for every
// unused sample (llvmpipe: a cube's 512-pixel draw 21 -> 8 ms with none).
// A pipeline with one off is the shader below with that feature's branches
// taken as false, which they are for the materials drawn with it.
override TEAM_MAP: bool = true;
override MATERIAL_MAP: bool = true;
override NORMAL_MAP: bool = true;
override HEIGHT_MAP: bool = true;
override EMISSION_MAP: bool = true;
override MATCAP: bool = true;
override BASE_TEXTURE: bool = true;
override SPECULAR: bool = true;
override ALPHA_CUTOFF: bool = true;
// The frame's view modes rather than a material's: the inspector's channel
// views (globals.view_mode.y) and the matcap lighting preset
// (globals.params.w). Frames in neither mode, every thumbnail's and most
// of the window's, draw with it off (gpu::ViewOptions::shader_features):
// llvmpipe ran the views' sRGB decodes and the preset's clay sphere for
// every pixel (a cube's 512-pixel draw: about 4.8 ms with them, 3.3
// without).
override VIEWS: bool = true;

@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var base_tex: texture_2d<f32>;
@group(1) @binding(2) var matcap_tex: texture_2d<f32>;
@group(1) @binding(3) var samp: sampler;
@group(1) @binding(4) var tex_array: texture_2d_array<f32>;
@group(1) @binding(5) var mask_tex: texture_2d<f32>;
@group(1) @binding(6) var material_tex: texture_2d<f32>;
@group(1) @binding(7) var normal_tex: texture_2d<f32>;
@group(1) @binding(8) var emission_tex: texture_2d<f32>;

struct VsIn {
    @location(0) position: vec3<f32>,
    // Octahedral normal (2 x snorm16), written by upload or by skin.wgsl.
    @location(1) normal_oct: vec2<f32>,
    @location(2) uv: vec2<f32>,
    // sRGB-encoded vertex colour (white when the file has none).
    @location(3) color: vec4<f32>,
    // The file's tangent (xy) and binormal (zw), octahedral; all zero
    // where the file has none (the frame then comes from UV derivatives).
    @location(4) frame: vec4<f32>,
};

// Everything shading may read of a vertex, interpolated.
struct Varyings {
    normal: vec3<f32>,
    uv: vec2<f32>,
    color: vec4<f32>,
    tangent: vec3<f32>,
    binormal: vec3<f32>,
    world: vec3<f32>,
};

// The stage interfaces (gpu::materials::Interface). A pipeline passes only
// the varyings its features read: drivers do not all drop an output the
// fragment stage never reads, and a software rasteriser stores and sets up
// each one per vertex and per triangle (lavapipe: lantea.m3d's thumbnail,
// 51,548 triangles at 512 pixels, drew in 21 ms with two instead of 29
// with six, and faulted in 7 MB less). `plain`: a colour, lit;
// `surface`: adds UVs (textures, maps) and the position (specular, bump
// maps); `full`: adds the file's tangent frame (normal maps); `faceted`
// (below `shade`): a faceted mesh's colour, shaded per vertex, both sides'
// or, drawn with back faces culled, the front's (`faceted_front`). Each pair
// reads and writes the same locations.
struct PlainIo {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) color: vec4<f32>,
};

struct SurfaceIo {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) color: vec4<f32>,
    @location(3) world: vec3<f32>,
};

struct FullIo {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) color: vec4<f32>,
    @location(3) world: vec3<f32>,
    @location(4) tangent: vec3<f32>,
    @location(5) binormal: vec3<f32>,
};

fn srgb_to_linear3(c: vec3<f32>) -> vec3<f32> {
    return select(pow((c + 0.055) / 1.055, vec3<f32>(2.4)), c / 12.92, c <= vec3<f32>(0.04045));
}

fn linear_to_srgb3(c: vec3<f32>) -> vec3<f32> {
    let x = clamp(c, vec3<f32>(0.0), vec3<f32>(1.0));
    return select(1.055 * pow(x, vec3<f32>(1.0 / 2.4)) - 0.055, x * 12.92, x <= vec3<f32>(0.0031308));
}

fn clip_of(v: VsIn) -> vec4<f32> {
    return globals.view_proj * vec4<f32>(v.position, 1.0);
}

fn varyings(v: VsIn) -> Varyings {
    var out: Varyings;
    out.normal = oct_decode(v.normal_oct);
    out.uv = v.uv;
    // sRGB -> linear (IEC 61966-2-1), once per vertex.
    out.color = vec4<f32>(srgb_to_linear3(v.color.rgb), v.color.a);
    out.world = v.position;
    if (any(v.frame != vec4<f32>(0.0))) {
        out.tangent = oct_decode(v.frame.xy);
        out.binormal = oct_decode(v.frame.zw);
    }
    return out;
}

@vertex
fn vs_plain(v: VsIn) -> PlainIo {
    let a = varyings(v);
    return PlainIo(clip_of(v), a.normal, a.color);
}

@vertex
fn vs_surface(v: VsIn) -> SurfaceIo {
    let a = varyings(v);
    return SurfaceIo(clip_of(v), a.normal, a.uv, a.color, a.world);
}

@vertex
fn vs_full(v: VsIn) -> FullIo {
    let a = varyings(v);
    return FullIo(clip_of(v), a.normal, a.uv, a.color, a.world, a.tangent, a.binormal);
}

// What an interface does not pass is never read by the features that use
// it: zero stands in.
@fragment
fn fs_plain(in: PlainIo, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let none = vec3<f32>(0.0);
    return shade(Varyings(in.normal, vec2<f32>(0.0), in.color, none, none, none), front);
}

@fragment
fn fs_surface(in: SurfaceIo, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let none = vec3<f32>(0.0);
    return shade(Varyings(in.normal, in.uv, in.color, none, none, in.world), front);
}

@fragment
fn fs_full(in: FullIo, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return shade(Varyings(in.normal, in.uv, in.color, in.tangent, in.binormal, in.world), front);
}

// The bound texture, or a layer of the array (`material` is a uniform, so
// the branch is uniform). The array has one mip level, so the derivative
// jump at the wrap does not matter.
fn sample_texture(bound: texture_2d<f32>, layer: i32, rect: vec4<f32>, uv: vec2<f32>) -> vec4<f32> {
    // Only animated materials switch textures, and they draw with MATCAP.
    if (!MATCAP || layer < 0) {
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

// PA's team colour applied to the diffuse as an overlay, per channel, on
// sRGB-encoded values (the unit shaders of game builds 71937 and 110069,
// see ../shared/notes/pa-shading.md): a mask of 0 leaves the diffuse as it
// is, a diffuse of 0.5 becomes the team colour.
fn team_overlay(d: vec3<f32>, tc: vec3<f32>) -> vec3<f32> {
    return clamp(2.0 * d, vec3<f32>(0.0), vec3<f32>(1.0))
        * (1.0 - 2.0 * (1.0 - clamp(d, vec3<f32>(0.5), vec3<f32>(1.0))) * (1.0 - tc));
}

// Data (a mask, a material map, a normal) shown as stored: the target
// encodes to sRGB, so decode first and the written byte is the texel's.
fn as_stored(c: vec3<f32>) -> vec4<f32> {
    return vec4<f32>(srgb_to_linear3(c), 1.0);
}

// A skin weight (0..1) as the weights view shows it, sRGB: blue at 0, cyan
// at 1/4, green at 1/2, yellow at 3/4, red at 1, straight between (the
// weight-paint scale of Blender and most rigging tools).
fn weight_heat(w: f32) -> vec3<f32> {
    let x = clamp(w, 0.0, 1.0) * 4.0;
    if (x < 1.0) {
        return vec3<f32>(0.0, x, 1.0);
    } else if (x < 2.0) {
        return vec3<f32>(0.0, 1.0, 2.0 - x);
    } else if (x < 3.0) {
        return vec3<f32>(x - 2.0, 1.0, 0.0);
    }
    return vec3<f32>(1.0, 4.0 - x, 0.0);
}

// 1 on the odd squares of a checker of unit squares over `p`, else 0.
fn odd_square(p: vec2<f32>) -> f32 {
    let c = floor(p.x) + floor(p.y);
    return c - 2.0 * floor(c * 0.5);
}

// The light of the weights and UV views, whatever the material, so that
// the shape reads: the key light and the sky's fill (flat lighting: 1).
fn view_shape(n: vec3<f32>) -> f32 {
    let key = max(dot(n, normalize(globals.light_dir.xyz)), 0.0);
    return mix(1.0, 0.25 + 0.6 * key + 0.2 * (0.5 + 0.5 * n.y), globals.params.z);
}

fn shade(in: Varyings, front: bool) -> vec4<f32> {
    // Derivatives first, in uniform control flow: the per-pixel tangent
    // frame and the bump slope need them.
    let dp_dx = dpdx(in.world);
    let dp_dy = dpdy(in.world);
    let duv_dx = dpdx(in.uv);
    let duv_dy = dpdy(in.uv);

    let flags = material.maps.x;
    let textures = globals.view_mode.x != 0u;
    let channel = globals.view_mode.y;
    let uv = in.uv + material.uv_offset.xy;

    var tex = vec4<f32>(1.0);
    var mask = vec4<f32>(0.0);
    var mat_map = vec4<f32>(0.0);
    var nmap = vec4<f32>(0.5, 0.5, 1.0, 0.5);
    var emit_map = vec4<f32>(1.0);
    if (BASE_TEXTURE && textures) {
        tex = sample_texture(base_tex, material.layers.x, material.tex_rect, uv);
    }
    if (textures) {
        if (TEAM_MAP && (flags & MAP_TEAM) != 0u) {
            mask = textureSample(mask_tex, samp, uv);
        }
        if (MATERIAL_MAP && (flags & MAP_MATERIAL) != 0u) {
            mat_map = textureSample(material_tex, samp, uv);
        }
        if ((NORMAL_MAP || HEIGHT_MAP) && (flags & (MAP_NORMAL_2CH | MAP_NORMAL_RGB | MAP_HEIGHT)) != 0u) {
            nmap = textureSample(normal_tex, samp, uv);
        }
        if (EMISSION_MAP && (flags & MAP_EMISSION) != 0u) {
            emit_map = textureSample(emission_tex, samp, uv);
        }
    }
    // The weights view's vertex colours are not colours (below).
    var vertex_color = in.color;
    if (VIEWS && channel == CHANNEL_WEIGHTS) {
        vertex_color = vec4<f32>(1.0);
    }
    var albedo = vertex_color * material.base_color * tex;
    // The alpha test (glTF MASK), after the derivatives above: a pixel
    // below the cutoff is not drawn, the rest are opaque.
    if (ALPHA_CUTOFF && albedo.a < material.extra.y) {
        discard;
    }
    let diffuse = albedo.rgb;
    var glow = vec3<f32>(0.0);
    if (TEAM_MAP && textures && (flags & MAP_TEAM) != 0u) {
        let tc = mix(mix(vec3<f32>(0.5), globals.team_secondary.rgb, mask.g), globals.team_primary.rgb, mask.r);
        albedo = vec4<f32>(srgb_to_linear3(team_overlay(linear_to_srgb3(albedo.rgb), tc)), albedo.a);
        glow += 2.0 * mask.b * albedo.rgb;
    }

    // The shading normal: the interpolated one, turned by a normal or bump map.
    var n = normalize(in.normal);
    if (!front) {
        n = -n; // two-sided lighting
    }
    var tangent_normal = vec3<f32>(0.0, 0.0, 1.0);
    if (NORMAL_MAP && textures && (flags & (MAP_NORMAL_2CH | MAP_NORMAL_RGB)) != 0u) {
        var t = in.tangent;
        var b = in.binormal;
        if (dot(t, t) < 1e-12) {
            // No stored frame: dP/du and dP/dv solved from the screen-space
            // derivatives of position and UV (exact for the triangle's
            // plane, whatever the screen's orientation), then made
            // perpendicular to n. t runs along +u, b up the image (against
            // the scene's v, which runs down), as the Papa files' own
            // binormals do (docs/formats.md, "Shading").
            let det = duv_dx.x * duv_dy.y - duv_dy.x * duv_dx.y;
            let s = select(-1.0, 1.0, det >= 0.0);
            let du = (dp_dx * duv_dy.y - dp_dy * duv_dx.y) * s;
            let up = (dp_dx * duv_dy.x - dp_dy * duv_dx.x) * s;
            t = du - n * dot(n, du);
            b = up - n * dot(n, up);
            t = t * inverseSqrt(max(dot(t, t), 1e-30));
            b = b * inverseSqrt(max(dot(b, b), 1e-30));
        }
        // Green (+Y) points along b, up the image, in both encodings.
        if ((flags & MAP_NORMAL_2CH) != 0u) {
            // PA: X in alpha, Y in green.
            let xy = vec2<f32>(nmap.a, nmap.g) * 2.0 - 1.0;
            tangent_normal = vec3<f32>(xy, sqrt(max(1.0 - dot(xy, xy), 0.0)));
        } else {
            // M3D map_N (the OBJ/OpenGL convention).
            tangent_normal = nmap.rgb * 2.0 - 1.0;
        }
        n = normalize(tangent_normal.x * t + tangent_normal.y * b + tangent_normal.z * n);
    } else if (HEIGHT_MAP && textures && (flags & MAP_HEIGHT) != 0u) {
        // Bump map: tilt the normal by the screen-space slope of the height
        // (Mikkelsen 2010, "Bump Mapping Unparametrized Surfaces on the GPU").
        let h = nmap.r * material.extra.x;
        let dh = vec2<f32>(dpdx(h), dpdy(h));
        let r1 = cross(dp_dy, n);
        let r2 = cross(n, dp_dx);
        let det = dot(dp_dx, r1);
        let grad = sign(det) * (dh.x * r1 + dh.y * r2);
        n = normalize(abs(det) * n - grad);
    }

    if (VIEWS) {
        switch channel {
            case CHANNEL_DIFFUSE: {
                return vec4<f32>(diffuse, 1.0);
            }
            case CHANNEL_MASK: {
                return as_stored(mask.rgb);
            }
            case CHANNEL_MATERIAL: {
                return as_stored(mat_map.rgb);
            }
            case CHANNEL_NORMAL: {
                return as_stored(tangent_normal * 0.5 + 0.5);
            }
            case CHANNEL_WEIGHTS: {
                // gpu::upload::VertexColors::Weights: white with the
                // selected bone's weight in alpha, black where the mesh is
                // not skinned.
                // Lit by the key light and the sky's fill, whatever the
                // material, so the shape reads (flat lighting: as is).
                var heat = vec3<f32>(90.0 / 255.0);
                if (in.color.r > 0.5) {
                    heat = weight_heat(in.color.a);
                }
                return vec4<f32>(srgb_to_linear3(heat) * view_shape(n), 1.0);
            }
            case CHANNEL_UVS: {
                // The UVs as sampled, as a checker (gpu::Channel::Uvs):
                // sRGB (0.25 + 0.75 u', 0.25 + 0.75 v', 0.6) for the
                // place (u', v') in the unit tile, eight squares a unit
                // with the odd ones at half brightness, and within them
                // 64 a unit, the odd ones at 0.8, for the small islands of
                // an atlas; those fade out where a square is under four
                // pixels (none under two), before they shimmer. Only
                // arithmetic: a UV far out or not finite gives some
                // colour, never a fault.
                let tile = fract(uv);
                var checker = vec3<f32>(0.25 + 0.75 * tile.x, 0.25 + 0.75 * tile.y, 0.6);
                checker = checker * mix(1.0, 0.5, odd_square(uv * 8.0));
                let squares_a_pixel = max(length(duv_dx), length(duv_dy)) * 64.0;
                let fine = clamp((0.5 - squares_a_pixel) * 4.0, 0.0, 1.0);
                checker = checker * mix(1.0, 0.8, odd_square(uv * 64.0) * fine);
                return vec4<f32>(srgb_to_linear3(checker) * view_shape(n), 1.0);
            }
            case CHANNEL_FACES: {
                // gpu::Channel::Faces: sRGB (0.25, 0.45, 0.95) on a front
                // face, (0.95, 0.25, 0.25) on a back one, lit as the
                // side seen (n is already turned to it).
                let side = select(vec3<f32>(0.95, 0.25, 0.25), vec3<f32>(0.25, 0.45, 0.95), front);
                return vec4<f32>(srgb_to_linear3(side) * view_shape(n), 1.0);
            }
            default: {}
        }
    }

    let l = normalize(globals.light_dir.xyz);
    let key = max(dot(n, l), 0.0);
    let lit = material.params.x * globals.params.z;
    var light = diffuse_light(n, key);

    // Specular (Blinn-Phong): PA material maps give the intensity (R) and
    // the gloss (G) as the exponent 2^(1 + 10 G); M3D gives Ks and Ns;
    // glTF's specular-glossiness map the colour (RGB, times the factor) and
    // the glossiness g (A, times its factor), exponent 2 / alpha^2 - 2 for
    // alpha = (1 - g)^2, as the factors alone give it (scene/from_gltf).
    var specular = vec3<f32>(0.0);
    var spec_color = vec3<f32>(0.0);
    var exponent = 1.0;
    if (SPECULAR && (flags & MAP_SPECULAR) != 0u) {
        spec_color = material.specular.rgb;
        exponent = max(material.specular.w, 1.0);
    }
    if (MATERIAL_MAP && textures && (flags & MAP_MATERIAL) != 0u) {
        if ((flags & MAP_SPEC_GLOSS) != 0u) {
            spec_color = material.specular.rgb * mat_map.rgb;
            let rough = 1.0 - clamp(mat_map.a * material.extra.z, 0.0, 1.0);
            let alpha = rough * rough;
            exponent = clamp(2.0 / max(alpha * alpha, 1e-6) - 2.0, 1.0, 2048.0);
        } else {
            spec_color = vec3<f32>(mat_map.r);
            exponent = exp2(1.0 + 10.0 * mat_map.g);
        }
        if ((flags & MAP_MATERIAL_GLOW) != 0u) {
            glow += 2.0 * mat_map.b * albedo.rgb;
        }
    }
    if ((SPECULAR || MATERIAL_MAP) && lit > 0.0 && key > 0.0 && any(spec_color > vec3<f32>(0.0))) {
        let v = normalize(globals.eye.xyz - in.world);
        let h = normalize(l + v);
        specular = spec_color * pow(max(dot(n, h), 0.0), exponent) * lit;
    }

    // Matcap: sphere texture looked up by the view-space normal.
    let vn = normalize((globals.view * vec4<f32>(n, 0.0)).xyz);
    if (VIEWS && globals.params.w > 0.5) {
        // The matcap preset: every surface lit by the built-in clay sphere
        // (shape reading, whatever the material's shading says).
        light = clay_matcap(vn);
    }
    let muv = vec2<f32>(vn.x * 0.5 + 0.5, 0.5 - vn.y * 0.5) + material.uv_offset.zw;
    var matcap = vec3<f32>(0.0);
    if (MATCAP) {
        matcap = sample_texture(matcap_tex, material.layers.y, material.matcap_rect, muv).rgb;
    }
    let shaded = mix(albedo.rgb * light, albedo.rgb * matcap, material.params.y);

    let rgb = shaded + specular + glow + material.emission.rgb * emit_map.rgb;
    return blended(rgb, albedo.a);
}

// Directional key light (`key`: n . l, at least 0) plus a soft fill; the
// material's and the view's `shading` blend towards flat.
fn diffuse_light(n: vec3<f32>, key: f32) -> vec3<f32> {
    let fill = 0.5 + 0.5 * n.y;
    let directional = 0.25 + 0.6 * key + 0.2 * fill;
    let lit = material.params.x * globals.params.z;
    return vec3<f32>(mix(1.0, directional, lit));
}

// The written colour of a shaded `rgb` with the material's alpha, as its
// blend mode wants it. Selected, not branched on: lavapipe specialises a
// shader on the uniforms its branches test, and compiled the faceted
// vertex stage again at every draw of lantea.m3d.
fn blended(rgb: vec3<f32>, alpha: f32) -> vec4<f32> {
    // Additive: premultiplied, so that blending One + One adds rgb * alpha.
    let additive = vec4<f32>(rgb * alpha, alpha);
    // Opaque: the texture's alpha is not coverage (PA diffuse alpha is the
    // build effect's distance field), so the pixel is solid.
    let straight = vec4<f32>(rgb, select(1.0, alpha, (material.maps.x & BLEND_ALPHA) != 0u));
    return select(straight, additive, material.params.z > 0.5);
}

// Faceted meshes (gpu::materials::features::FACETED; M3D voxels): each
// triangle's corners carry one normal and one colour, so with a material
// that reads nothing per pixel (no texture, map, matcap or specular, and no
// view mode) every pixel of a triangle shades alike. The vertex stage shades
// each side once, as `shade` does with those features off, and the fragment
// stage only picks the side that shows: the per-pixel work a software
// rasteriser pays for on many small triangles (lavapipe: lantea.m3d's
// 25,774 triangles at 512 pixels, docs/performance.md, "Thumbnails").
// Flat, from whichever corner: the three are equal.
struct FacetedIo {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat, either) front: vec4<f32>,
    @location(1) @interpolate(flat, either) back: vec4<f32>,
};

fn faceted_shade(n: vec3<f32>, albedo: vec4<f32>) -> vec4<f32> {
    let key = max(dot(n, normalize(globals.light_dir.xyz)), 0.0);
    let shaded = mix(albedo.rgb * diffuse_light(n, key), albedo.rgb * vec3<f32>(0.0), material.params.y);
    return blended(shaded + material.emission.rgb, albedo.a);
}

// A faceted vertex: its clip position (moved out of view where the alpha
// test fails), unit normal and albedo.
struct FacetedVertex {
    clip: vec4<f32>,
    n: vec3<f32>,
    albedo: vec4<f32>,
};

fn faceted_vertex(v: VsIn) -> FacetedVertex {
    let a = varyings(v);
    let albedo = a.color * material.base_color;
    var clip = clip_of(v);
    // The alpha test: every triangle this vertex is a corner of has its
    // alpha, so a triangle below the cutoff has all three corners moved past
    // the right edge of the view and is clipped whole, where the per-pixel
    // test would discard each of its pixels.
    if (ALPHA_CUTOFF && albedo.a < material.extra.y) {
        clip = vec4<f32>(2.0, 0.0, 0.0, 1.0);
    }
    return FacetedVertex(clip, normalize(a.normal), albedo);
}

@vertex
fn vs_faceted(v: VsIn) -> FacetedIo {
    let f = faceted_vertex(v);
    // Two-sided lighting, as `shade` lights a back face.
    return FacetedIo(f.clip, faceted_shade(f.n, f.albedo), faceted_shade(-f.n, f.albedo));
}

@fragment
fn fs_faceted(in: FacetedIo, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return select(in.back, in.front, front);
}

// A faceted mesh drawn with back faces culled (a closed surface's): no back
// face is ever rasterised, so the vertex stage shades and stores the front
// alone, half the faceted pair's work and one output fewer a vertex.
struct FacetedFrontIo {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat, either) front: vec4<f32>,
};

@vertex
fn vs_faceted_front(v: VsIn) -> FacetedFrontIo {
    let f = faceted_vertex(v);
    return FacetedFrontIo(f.clip, faceted_shade(f.n, f.albedo));
}

@fragment
fn fs_faceted_front(in: FacetedFrontIo) -> @location(0) vec4<f32> {
    return in.front;
}
