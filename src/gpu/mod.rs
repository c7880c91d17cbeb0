//! GPU layer: device creation (with or without a window), scene upload, the
//! mesh and overlay passes, and offscreen capture. Shaders live in `shaders/`.

pub mod camera;
pub mod capture;
pub mod context;
pub mod limits;
pub mod map_overlay;
pub mod materials;
pub mod renderer;
pub mod skinning;
pub mod upload;

pub use camera::OrbitCamera;
pub use context::{Gpu, GpuError};
pub use renderer::{FrameStats, Renderer, ViewOptions};
pub use upload::GpuScene;

/// `shaders/oct.wgsl` prepended to a shader that uses octahedral normals.
macro_rules! with_oct {
    ($file:literal) => {
        concat!(
            include_str!("../../shaders/oct.wgsl"),
            include_str!(concat!("../../shaders/", $file))
        )
    };
}

/// Every WGSL source of the project, by file name, as compiled (validated in
/// tests).
pub const SHADERS: &[(&str, &str)] = &[
    ("oct.wgsl", include_str!("../../shaders/oct.wgsl")),
    ("mesh.wgsl", with_oct!("mesh.wgsl")),
    ("lines.wgsl", with_oct!("lines.wgsl")),
    ("skin.wgsl", with_oct!("skin.wgsl")),
    ("bones.wgsl", include_str!("../../shaders/bones.wgsl")),
    (
        "material_anim.wgsl",
        include_str!("../../shaders/material_anim.wgsl"),
    ),
];

pub fn shader_source(name: &str) -> &'static str {
    SHADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .expect("shader is listed in SHADERS")
}
