//! GPU layer: device creation (with or without a window), scene upload, the
//! mesh and overlay passes, and offscreen capture. Shaders live in `shaders/`.

pub mod camera;
pub mod capture;
pub mod context;
pub mod renderer;
pub mod skinning;
pub mod upload;

pub use camera::OrbitCamera;
pub use context::{Gpu, GpuError};
pub use renderer::{FrameStats, Renderer, ViewOptions};
pub use upload::GpuScene;

/// Every WGSL source of the project, by file name (validated in tests).
pub const SHADERS: &[(&str, &str)] = &[
    ("mesh.wgsl", include_str!("../../shaders/mesh.wgsl")),
    ("lines.wgsl", include_str!("../../shaders/lines.wgsl")),
    ("skin.wgsl", include_str!("../../shaders/skin.wgsl")),
    ("bones.wgsl", include_str!("../../shaders/bones.wgsl")),
];

pub fn shader_source(name: &str) -> &'static str {
    SHADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .expect("shader is listed in SHADERS")
}
