//! Shared test helpers for the decoder crate.

use std::path::{Path, PathBuf};

/// `../shared` beside the repository (CI has it). Panics with a clear
/// message when it is missing: tests that need it must not pass silently.
pub fn shared() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    assert!(
        p.join("fixtures").is_dir(),
        "this test needs the shared fixtures at {} (CI checks them out beside the repository)",
        p.display()
    );
    p
}
