//! The commands besides the window: `info` (what a file holds, as text or
//! JSON), `render` and `thumbnail` (headless frames), `convert` (glTF
//! export), `bench` (GPU compute and frame timings) and `install-desktop`
//! (file-manager integration).
//! Argument parsing lives in `main.rs`; the work lives here.

pub mod bench;
pub mod convert;
pub mod desktop;
pub mod headless;
pub mod info;
