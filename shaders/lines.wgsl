// Overlay lines (grid, wireframe, normals, bounds, skeleton): coloured line
// lists pulled slightly towards the camera so they win over coplanar faces.

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

// A line vertex at `p`, pulled slightly towards the camera.
fn line_vertex(p: vec3<f32>, color: vec4<f32>) -> VsOut {
    var clip = globals.view_proj * vec4<f32>(p, 1.0);
    clip.z = clip.z - globals.params.y * clip.w;
    return VsOut(clip, color);
}

@vertex
fn vs_main(@location(0) position: vec3<f32>, @location(1) color: vec4<f32>) -> VsOut {
    return line_vertex(position, color);
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    return in.color;
}

// Normals overlay: one instance per vertex of a mesh's position/normal
// stream (the skinned one for skinned meshes), two vertices per instance.
@vertex
fn vs_normals(@builtin(vertex_index) vi: u32, @location(0) position: vec3<f32>, @location(1) normal_oct: vec2<f32>) -> VsOut {
    // params.x is the scene radius; normals are 4% of it long.
    let p = position + oct_decode(normal_oct) * globals.params.x * 0.04 * f32(vi & 1u);
    return line_vertex(p, vec4<f32>(0.35, 1.0, 0.35, 1.0));
}

// Wireframe: the mesh's own position stream with an edge index buffer.
@vertex
fn vs_wire(@location(0) position: vec3<f32>) -> VsOut {
    return line_vertex(position, vec4<f32>(0.08, 0.9, 1.0, 1.0));
}

// The selected part: its wireframe in the selection colour (skinned parts
// included: it reads the same stream as the faces).
@vertex
fn vs_wire_selected(@location(0) position: vec3<f32>) -> VsOut {
    return line_vertex(position, vec4<f32>(1.0, 0.62, 0.1, 1.0));
}
