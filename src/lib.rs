//! Facet: a real-time GPU viewer for game models and maps.
//!
//! Layers, each depending only on those before it:
//! `formats` (pure decoders) -> `scene` (common model) -> `anim` (CPU reference)
//! -> `gpu` (device, upload, passes, capture) -> `ui` (egui panels) -> `app`.

pub mod anim;
pub mod app;
pub mod bench;
pub mod demo;
pub mod demo_m3d;
pub mod desktop;
/// The decoders and writers, a crate of their own (`crates/formats`).
pub use facet_formats as formats;
pub mod gpu;
pub mod headless;
pub mod info;
pub mod load;
pub mod mapgen;
pub mod open_dialog;
pub mod scene;
pub mod settings;
pub mod ui;
pub mod watch;
