//! `facet convert FILE -o OUT.glb`: a file as glTF 2.0 binary, with what
//! the export leaves out listed on stderr.

use crate::export::gltf;
use crate::load::{self, LoadOptions};
use std::path::Path;

/// Converts `input` to `output` (`.glb`); returns the lines dropped.
pub fn convert_file(input: &Path, output: &Path, options: &LoadOptions) -> Result<(), String> {
    let name = input.display();
    let ext = output
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if ext.as_deref() != Some("glb") {
        return Err(format!(
            "{}: the output must end in .glb (glTF 2.0 binary)",
            output.display()
        ));
    }
    let loaded = load::load_file_with(input, options).map_err(|e| e.to_string())?;
    let export = gltf::to_glb(&loaded.scene).map_err(|e| format!("{name}: {e}"))?;
    std::fs::write(output, &export.glb)
        .map_err(|e| format!("{}: cannot write: {e}", output.display()))?;
    for w in &loaded.scene.warnings {
        eprintln!("{name}: warning: {w}");
    }
    for d in &export.dropped {
        eprintln!("{name}: not exported: {d}");
    }
    println!(
        "{name} -> {} ({} bytes; {} warnings, {} things not exported)",
        output.display(),
        export.glb.len(),
        loaded.scene.warnings.len(),
        export.dropped.len()
    );
    Ok(())
}
