// Skeleton overlay: octahedral bones built in rest model space, moved by each
// bone's skinning matrix (the same buffer the skinning pass reads), so the
// overlay follows the pose with no per-frame vertex upload.

struct Overlay {
    // x: selected bone index (or 0xFFFFFFFF), yzw: unused.
    selected: vec4<u32>,
};

// The skinning matrices' rows apart, as skin.wgsl reads them: bone j's row k
// at rows[k * count + j].
@group(1) @binding(0) var<storage, read> rows: array<vec4<f32>>;
@group(1) @binding(1) var<uniform> overlay: Overlay;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_main(@location(0) position: vec3<f32>, @location(1) bone: u32) -> VsOut {
    let count = arrayLength(&rows) / 3u;
    let p = vec4<f32>(position, 1.0);
    let posed = vec3<f32>(
        dot(rows[bone], p),
        dot(rows[count + bone], p),
        dot(rows[2u * count + bone], p),
    );
    var out: VsOut;
    // Drawn over the model: depth pulled to the near plane.
    var clip = globals.view_proj * vec4<f32>(posed, 1.0);
    clip.z = 0.0;
    out.clip = clip;
    if (bone == overlay.selected.x) {
        out.color = vec4<f32>(1.0, 0.85, 0.2, 1.0);
    } else {
        out.color = vec4<f32>(0.85, 0.9, 1.0, 0.9);
    }
    return out;
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    return in.color;
}
