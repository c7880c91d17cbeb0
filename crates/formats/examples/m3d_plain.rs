//! Writes each compressed Model 3D file given with its chunks stored plain
//! (`facet_formats::fuzz::m3d_plain`) as `DIR/<name>.inflated.m3d`, skipping
//! files stored plain already: `cargo run -p facet-formats --example
//! m3d_plain -- DIR FILE...`. `scripts/fuzz` seeds the m3d target with them.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1);
    let dir = std::path::PathBuf::from(args.next().ok_or("usage: m3d_plain DIR FILE...")?);
    let mut written = 0;
    for path in args {
        let path = std::path::PathBuf::from(path);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(plain) = facet_formats::fuzz::m3d_plain(&bytes) {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            std::fs::write(dir.join(format!("{stem}.inflated.m3d")), plain)?;
            written += 1;
        }
    }
    println!("m3d_plain: {written} files written to {}", dir.display());
    Ok(())
}
