//! The commands besides the window: `info` (what a file holds, as text or
//! JSON), `render` and `thumbnail` (headless frames), `convert` (glTF
//! export), `bench` (GPU compute and frame timings) and `install-desktop`
//! (file-manager integration).
//! Argument parsing lives in `main.rs`; the work lives here.

pub mod bench;
pub mod bench_command;
pub mod convert;
pub mod desktop;
pub mod headless;
pub mod info;
pub mod render;
pub mod thumbnail;

/// Writes a report to standard output. A reader that has gone (`facet info
/// --json model.m3d | head`) ends the report quietly: neither that write
/// nor any after it is an error, where `println!` panicked. Any
/// other failure (a full disk behind a redirection) is the caller's
/// error.
pub fn print(args: std::fmt::Arguments) -> std::io::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_fmt(args) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}
