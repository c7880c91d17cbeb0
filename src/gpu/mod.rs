//! GPU layer, by lifetime: the device ([`context`]) and what lives as long
//! as it ([`renderer`]: pipelines, layouts, compute passes); what lives as
//! long as a scene ([`upload`]: [`GpuScene`], with [`texture`] and
//! [`vertex`]); what changes every frame ([`frame`]: [`FrameInput`] and
//! the one function that records a frame). [`capture`] holds render
//! targets and the readback; [`limits`] fits scenes to the device.
//! Shaders live in `shaders/`.

pub mod buffers;
pub mod camera;
pub mod capture;
pub mod context;
pub mod frame;
pub mod limits;
pub mod materials;
pub mod renderer;
pub mod skinning;
pub mod texture;
pub mod upload;
pub mod vertex;

pub use camera::OrbitCamera;
pub use context::{Gpu, GpuError};
pub use frame::{
    Channel, FrameInput, FrameStats, FrameTarget, LightTurn, Lighting, TeamColors, ViewOptions,
};
pub use renderer::Renderer;
pub use upload::GpuScene;

/// A shader with the shared files it uses prepended: `globals.wgsl` (the
/// frame's uniforms), `oct.wgsl` (octahedral normals), `material.wgsl` (the
/// material slot), `skin_io.wgsl` (the skinning kernels' vertex layouts).
macro_rules! shader {
    ($($file:literal),+) => {
        concat!($(include_str!(concat!("../../shaders/", $file))),+)
    };
}

/// Every WGSL source of the project, by file name, as compiled (validated in
/// tests).
pub const SHADERS: &[(&str, &str)] = &[
    ("globals.wgsl", shader!("globals.wgsl")),
    ("oct.wgsl", shader!("oct.wgsl")),
    ("material.wgsl", shader!("material.wgsl")),
    (
        "mesh.wgsl",
        shader!("globals.wgsl", "oct.wgsl", "material.wgsl", "mesh.wgsl"),
    ),
    (
        "lines.wgsl",
        shader!("globals.wgsl", "oct.wgsl", "lines.wgsl"),
    ),
    ("skin_io.wgsl", shader!("skin_io.wgsl")),
    (
        "skin.wgsl",
        shader!("oct.wgsl", "skin_io.wgsl", "skin.wgsl"),
    ),
    (
        "skin_stream.wgsl",
        shader!("skin_io.wgsl", "skin_stream.wgsl"),
    ),
    (
        "skin_copy16.wgsl",
        shader!("skin_io.wgsl", "skin_copy16.wgsl"),
    ),
    (
        "skin_empty.wgsl",
        shader!("skin_io.wgsl", "skin_empty.wgsl"),
    ),
    ("bones.wgsl", shader!("globals.wgsl", "bones.wgsl")),
    (
        "material_anim.wgsl",
        shader!("material.wgsl", "material_anim.wgsl"),
    ),
];

pub fn shader_source(name: &str) -> &'static str {
    SHADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .expect("shader is listed in SHADERS")
}
