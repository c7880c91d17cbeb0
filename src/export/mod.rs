//! Writing scenes to other formats. Works on the scene model only (no
//! decoder types), so every format the viewer opens exports the same way.

pub mod gltf;
