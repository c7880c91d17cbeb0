//! The layering of docs/architecture.md, checked on the source text:
//! formats -> scene -> (anim, load) -> gpu -> ui -> app, each module
//! importing only layers below its own; the GPU, UI, app and animation
//! layers import nothing from the decoders (they see the scene's model);
//! no two top-level modules import each other, and no file of a folder
//! reaches itself through its siblings; the decoder crate depends on
//! what decoding needs and nothing of the viewer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every top-level module of the viewer's library and its layer. A module
/// that is not listed fails the test: a new room needs a place in the house.
const LAYERS: &[(&str, u32)] = &[
    ("formats", 0),
    // The process's allocator (for main.rs and the benches): imports no layer.
    ("alloc", 0),
    ("scene", 1),
    // Fixture generators: they write files with the decoders' writers.
    ("generators", 1),
    ("anim", 2),
    ("load", 2),
    ("gpu", 3),
    // Scenes written to other formats (glTF), beside the GPU layer.
    ("export", 3),
    ("ui", 4),
    // The window and the commands, side by side at the top.
    ("app", 5),
    ("cli", 5),
];

/// Layers that must not name a decoder type.
const NO_FORMATS: &[&str] = &["anim", "gpu", "export", "ui", "app"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source without `//` comments (doc comments name other layers
/// freely).
fn code(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a file names through `crate::X` (and the decoder
/// crate by its own name, as `formats`).
fn imports(src: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in src.match_indices("crate::") {
        // `facet_formats::` is not `crate::`; skip the `_` case below.
        if src[..i].ends_with('_') {
            continue;
        }
        let name: String = src[i + 7..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    if src.contains("facet_formats") {
        out.insert("formats".into());
    }
    out
}

#[test]
fn every_layer_imports_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let layer: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        let Some(&mine) = layer.get(top.as_str()) else {
            wrong.push(format!(
                "src/{}: module {top:?} has no layer in LAYERS",
                rel.display()
            ));
            continue;
        };
        for to in imports(&code(f)) {
            if to == top {
                continue;
            }
            let Some(&theirs) = layer.get(to.as_str()) else {
                wrong.push(format!(
                    "src/{}: imports unknown module {to:?}",
                    rel.display()
                ));
                continue;
            };
            if theirs >= mine {
                wrong.push(format!(
                    "src/{}: {top} (layer {mine}) imports {to} (layer {theirs})",
                    rel.display()
                ));
            }
            if to == "formats" && NO_FORMATS.contains(&top.as_str()) {
                wrong.push(format!(
                    "src/{}: {top} imports the decoders; it should read the scene's model",
                    rel.display()
                ));
            }
            graph.entry(top.clone()).or_default().insert(to);
        }
    }
    for (a, tos) in &graph {
        for b in tos {
            if graph.get(b).is_some_and(|back| back.contains(a)) && a < b {
                wrong.push(format!("{a} and {b} import each other"));
            }
        }
    }
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
    // The check sees what it should: the app does reach the GPU layer.
    assert!(graph["app"].contains("gpu") && graph["scene"].contains("formats"));
}

#[test]
fn the_decoder_crate_needs_only_what_decoding_needs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/formats");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let deps: Vec<&str> = manifest
        .split("[dependencies]")
        .nth(1)
        .expect("a [dependencies] table")
        .lines()
        .take_while(|l| !l.starts_with('['))
        .filter_map(|l| l.split('=').next().map(str::trim))
        .filter(|n| !n.is_empty())
        .collect();
    // libdeflater: M3D inflation (libdeflate, whole-buffer; the fastest
    // measured); miniz_oxide: M3D writing.
    let allowed = [
        "lz4_flex",
        "miniz_oxide",
        "libdeflater",
        "thiserror",
        "bytemuck",
    ];
    for d in &deps {
        assert!(allowed.contains(d), "facet-formats depends on {d}");
    }
    assert!(!deps.is_empty());
    let mut files = Vec::new();
    rust_files(&dir.join("src"), &mut files);
    for f in files {
        let src = code(&f);
        assert!(
            !src.contains("facet::"),
            "{}: names the viewer",
            f.display()
        );
        assert!(!src.contains("unsafe "), "{}: unsafe code", f.display());
    }
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    assert!(lib.contains("#![forbid(unsafe_code)]"));
}

/// The sibling files of its folder that a file names (`super::x` or
/// `crate::<folder>::x`, `x` a file beside it); `mod.rs` is the folder's
/// front door and names everything, so it is left out.
fn sibling_imports(src: &str, folder: &str, siblings: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let crate_prefix = format!("crate::{folder}::");
    for prefix in ["super::", crate_prefix.as_str()] {
        for (i, _) in src.match_indices(prefix) {
            let name: String = src[i + prefix.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if siblings.contains(&name) {
                out.insert(name);
            }
        }
    }
    out
}

#[test]
fn no_two_files_of_a_folder_import_each_other_even_through_others() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut cycles = Vec::new();
    let mut edges = 0;
    for dir in std::fs::read_dir(&src).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let folder = dir.file_name().unwrap().to_string_lossy().to_string();
        let files: BTreeMap<String, PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .map(|p| (p.file_stem().unwrap().to_string_lossy().to_string(), p))
            .filter(|(n, _)| n != "mod")
            .collect();
        let names: BTreeSet<String> = files.keys().cloned().collect();
        let graph: BTreeMap<&str, BTreeSet<String>> = files
            .iter()
            .map(|(n, p)| {
                let mut to = sibling_imports(&code(p), &folder, &names);
                to.remove(n);
                (n.as_str(), to)
            })
            .collect();
        edges += graph.values().map(BTreeSet::len).sum::<usize>();
        // A file is on a cycle when it can reach itself.
        for start in graph.keys() {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<&str> = graph[start].iter().map(String::as_str).collect();
            while let Some(n) = stack.pop() {
                if n == *start {
                    cycles.push(format!("src/{folder}/{start}.rs reaches itself"));
                    break;
                }
                if seen.insert(n) {
                    stack.extend(graph[n].iter().map(String::as_str));
                }
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
    // The check sees what it should: files do import their siblings.
    assert!(edges > 10, "only {edges} sibling imports found");
}
