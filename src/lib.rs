//! Facet: a real-time GPU viewer for game models and maps.
//!
//! Layers, each depending only on those before it (docs/architecture.md):
//! `formats` (pure decoders, the `facet-formats` crate) -> `scene` (the one
//! model every format converts into) -> `anim` (CPU reference) and `load`
//! (files and their companions) -> `gpu` (device, upload, frames, capture)
//! and `export` (scenes to glTF) -> `ui` (egui panels returning actions)
//! -> `app` (the window) and `cli` (the commands). `generators` (feature `generators`) writes the bundled
//! assets and test inputs with the decoders' writers.

pub mod alloc;
pub mod anim;
pub mod app;
pub mod cli;
pub mod export;
/// The decoders and writers, a crate of their own (`crates/formats`).
pub use facet_formats as formats;
#[cfg(feature = "generators")]
pub mod generators;
pub mod gpu;
pub mod load;
pub mod scene;
pub mod ui;
