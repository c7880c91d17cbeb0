//! `facet convert`: files as glTF 2.0, one file or a whole folder tree.
//!
//! - `convert FILE -o OUT.glb` (or `OUT.gltf`, with `OUT.bin` and the PNG
//!   images beside it); a texture file `-o OUT.png` (or another image
//!   format) as an image;
//! - `convert DIR -o OUTDIR [--gltf]`: every model and map under DIR
//!   (`.p3m`, `.m3d`, `.papa`, `.pmf`), converted in parallel into the same
//!   tree under OUTDIR, a progress line on stderr, then a summary: files
//!   converted, with warnings, and each failure with its one-line error. A
//!   file that fails never stops the others.
//!
//! What the export leaves out is printed per file (`not exported: ...`).

use crate::export::gltf;
use crate::load::{self, LoadOptions};
use crate::scene::text::counted;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The extensions `convert DIR` picks up.
const MODEL_EXTENSIONS: [&str; 5] = ["p3m", "m3d", "a3d", "papa", "pmf"];

/// How one file went.
pub struct Converted {
    pub warnings: Vec<String>,
    pub dropped: Vec<String>,
    pub written: Vec<PathBuf>,
}

/// Converts `input` to `output`: `.glb`, or `.gltf` with `.bin` and PNG
/// files beside it.
pub fn convert_one(
    input: &Path,
    output: &Path,
    export: gltf::Options,
    options: &LoadOptions,
) -> Result<Converted, String> {
    let ext = output
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let image_out = crate::gpu::capture::save_format(output).is_ok() && ext.is_some();
    if !matches!(ext.as_deref(), Some("glb" | "gltf")) && !image_out {
        return Err(format!(
            "{}: the output must end in .glb (binary) or .gltf (with .bin and PNGs beside it), or, for a texture file, in {}",
            output.display(),
            crate::gpu::capture::SAVE_EXTENSIONS
        ));
    }
    let loaded = load::load_file_with(input, options).map_err(|e| e.to_string())?;
    if image_out {
        return texture_to_image(input, &loaded.scene, output);
    }
    let export = gltf::export_with(&loaded.scene, export)
        .map_err(|e| format!("{}: {e}", input.display()))?;
    let written = export.write(output)?;
    Ok(Converted {
        warnings: loaded.scene.warnings,
        dropped: export.dropped,
        written,
    })
}

/// A texture file (`.ptf`, a Papa texture) as an image: its full-size
/// level, its texels as the file stores them (BC blocks decoded).
fn texture_to_image(
    input: &Path,
    scene: &crate::scene::Scene,
    output: &Path,
) -> Result<Converted, String> {
    if !scene.texture_view {
        return Err(format!(
            "{}: not a texture file: a model or map converts to .glb or .gltf",
            input.display()
        ));
    }
    let image = scene
        .viewed_texture(0)
        .and_then(|t| t.to_image())
        .ok_or_else(|| format!("{}: no decoded texels to write", input.display()))?;
    crate::gpu::capture::save(&image, output)?;
    Ok(Converted {
        warnings: scene.warnings.clone(),
        dropped: Vec::new(),
        written: vec![output.to_path_buf()],
    })
}

/// `convert FILE -o OUT` or `convert DIR -o OUTDIR`.
pub fn run(
    input: &Path,
    output: &Path,
    gltf_text: bool,
    export: gltf::Options,
    options: &LoadOptions,
) -> Result<(), String> {
    if input.is_dir() {
        return convert_tree(input, output, gltf_text, export, options);
    }
    let c = convert_one(input, output, export, options)?;
    let name = input.display();
    for w in &c.warnings {
        eprintln!("{name}: warning: {w}");
    }
    for d in &c.dropped {
        eprintln!("{name}: not exported: {d}");
    }
    let bytes: u64 = c
        .written
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    report(format_args!(
        "{name} -> {} ({}, {bytes} bytes; {}, {} not exported)\n",
        output.display(),
        counted(c.written.len(), "file"),
        counted(c.warnings.len(), "warning"),
        counted(c.dropped.len(), "thing")
    ))?;
    Ok(())
}

/// Every file under `dir` with a model extension, sorted, symlinks not
/// followed.
fn models_under(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries {
        let e = e.map_err(|e| format!("{}: {e}", dir.display()))?;
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        if kind.is_dir() {
            models_under(&path, out)?;
        } else if kind.is_file()
            && path.extension().is_some_and(|x| {
                MODEL_EXTENSIONS.contains(&x.to_string_lossy().to_ascii_lowercase().as_str())
            })
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Where `file` (under `root`) goes under `out`: the same folders, the
/// stem with `.glb`/`.gltf`; `NAME.EXT.glb` when another model in the same
/// folder has the same stem.
pub fn output_for(
    root: &Path,
    file: &Path,
    out: &Path,
    siblings: &[PathBuf],
    ext: &str,
) -> PathBuf {
    let rel = file.strip_prefix(root).unwrap_or(file);
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    let clash = siblings
        .iter()
        .any(|s| s != file && s.parent() == file.parent() && s.file_stem() == file.file_stem());
    let name = if clash {
        format!(
            "{}.{ext}",
            file.file_name().unwrap_or_default().to_string_lossy()
        )
    } else {
        format!("{stem}.{ext}")
    };
    out.join(rel).with_file_name(name)
}

fn convert_tree(
    dir: &Path,
    out: &Path,
    gltf_text: bool,
    export: gltf::Options,
    options: &LoadOptions,
) -> Result<(), String> {
    let mut files = Vec::new();
    models_under(dir, &mut files)?;
    files.sort();
    if files.is_empty() {
        let [rest @ .., last] = MODEL_EXTENSIONS.map(|x| format!(".{x}"));
        return Err(format!(
            "{}: no {} or {last} files under it",
            dir.display(),
            rest.join(", ")
        ));
    }
    let ext = if gltf_text { "gltf" } else { "glb" };
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Result<Converted, String>)>> = Mutex::new(Vec::new());
    // A line that counts the files done, rewritten in place: only on a
    // terminal, where `\r` and the erase-line escape mean something; a log
    // or a pipe gets the report below alone.
    let progress = std::io::stderr().is_terminal();
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(files.len());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let target = output_for(dir, file, out, &files, ext);
                    let r = target
                        .parent()
                        .map_or(Ok(()), std::fs::create_dir_all)
                        .map_err(|e| format!("{}: {e}", target.display()))
                        .and_then(|()| convert_one(file, &target, export, options));
                    let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if progress {
                        eprint!("\r[{k}/{}] {}\x1b[K", files.len(), file.display());
                        let _ = std::io::stderr().flush();
                    }
                    results
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((i, r));
                }
            });
        }
    });
    if progress {
        eprintln!();
    }
    let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    results.sort_by_key(|r| r.0);
    let (mut ok, mut warned, mut failed) = (0, 0, Vec::new());
    for (i, r) in &results {
        match r {
            Ok(c) => {
                ok += 1;
                if !c.warnings.is_empty() || !c.dropped.is_empty() {
                    warned += 1;
                    for d in &c.dropped {
                        eprintln!("{}: not exported: {d}", files[*i].display());
                    }
                }
            }
            Err(e) => failed.push(format!("{}: {e}", files[*i].display())),
        }
    }
    report(format_args!(
        "{ok} of {} converted into {} ({warned} with warnings or things not exported), {} failed\n",
        files.len(),
        out.display(),
        failed.len()
    ))?;
    for f in &failed {
        report(format_args!("  failed: {f}\n"))?;
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("{} of {} files failed", failed.len(), files.len()))
    }
}

/// Writes a line of the report to standard output ([`super::print`]: a
/// reader that has gone ends it quietly).
fn report(line: std::fmt::Arguments) -> Result<(), String> {
    super::print(line).map_err(|e| format!("standard output: {e}"))
}
