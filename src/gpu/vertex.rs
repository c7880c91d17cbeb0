//! The vertex formats the pipelines read. Line lists are the scene's own
//! plain geometry (`scene::lines`), uploaded as they are.

pub use crate::scene::lines::{LineVertex, push_box};
use bytemuck::{Pod, Zeroable};

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct BoneVertex {
    pub position: [f32; 3],
    pub bone: u32,
}

/// The second vertex stream: UV, sRGB vertex colour and the file's tangent
/// frame (20 B).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct UvColor {
    pub uv: [f32; 2],
    pub color: [u8; 4],
    /// Tangent and binormal, octahedral (2 x snorm16 each); all zero where
    /// the file stores no tangents.
    pub frame: [u32; 2],
}
