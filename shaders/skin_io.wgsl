// The skinning kernels' data and bindings (prepended to skin.wgsl and to the
// benchmark's skin_stream.wgsl, see gpu/mod.rs).
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
@group(0) @binding(3) var<uniform> params: Params;
