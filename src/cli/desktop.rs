//! `facet install-desktop`: per-user desktop integration by the freedesktop
//! standards, under `$XDG_DATA_HOME` (default `~/.local/share`):
//!
//! - `mime/packages/facet.xml`: the MIME types, by extension and by magic
//!   bytes (`packaging/facet-mime.xml`), then `update-mime-database`;
//! - `applications/facet.desktop`: double-click opens the file in Facet,
//!   then `update-desktop-database`;
//! - `thumbnailers/facet.thumbnailer`: file managers call `facet thumbnail`;
//! - `icons/hicolor/256x256/apps/facet.png`.
//!
//! The database tools run only when they are installed; `--uninstall`
//! removes the files and runs them again.

use anyhow::Context;
use std::path::{Path, PathBuf};

pub const MIME_XML: &str = include_str!("../../packaging/facet-mime.xml");
const DESKTOP_IN: &str = include_str!("../../packaging/facet.desktop.in");
const THUMBNAILER_IN: &str = include_str!("../../packaging/facet.thumbnailer.in");
const ICON: &[u8] = include_bytes!("../../packaging/facet.png");

/// `$XDG_DATA_HOME`, else `$HOME/.local/share`.
pub fn data_home() -> anyhow::Result<PathBuf> {
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    let home = std::env::var_os("HOME").context("neither XDG_DATA_HOME nor HOME is set")?;
    Ok(PathBuf::from(home).join(".local/share"))
}

/// The files to install: (path under the data home, contents).
pub fn files(exe: &Path) -> Vec<(&'static str, Vec<u8>)> {
    // The desktop spec quotes arguments with spaces in double quotes.
    let exe = exe.display().to_string();
    let exec = if exe.contains(' ') {
        format!("\"{exe}\"")
    } else {
        exe
    };
    vec![
        ("mime/packages/facet.xml", MIME_XML.as_bytes().to_vec()),
        (
            "applications/facet.desktop",
            DESKTOP_IN.replace("@EXEC@", &exec).into_bytes(),
        ),
        (
            "thumbnailers/facet.thumbnailer",
            THUMBNAILER_IN.replace("@EXEC@", &exec).into_bytes(),
        ),
        ("icons/hicolor/256x256/apps/facet.png", ICON.to_vec()),
    ]
}

/// Runs `tool args` when the tool exists; says what happened.
fn refresh(tool: &str, dir: &Path) -> String {
    match std::process::Command::new(tool).arg(dir).output() {
        Ok(o) if o.status.success() => format!("ran {tool} {}", dir.display()),
        Ok(o) => format!(
            "{tool} failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(_) => format!("{tool} is not installed; skipped"),
    }
}

/// Installs (or with `uninstall` removes) the files under `data_home`;
/// returns one line per action for the user.
pub fn install(data_home: &Path, exe: &Path, uninstall: bool) -> anyhow::Result<Vec<String>> {
    let mut log = Vec::new();
    for (rel, bytes) in files(exe) {
        let path = data_home.join(rel);
        if uninstall {
            match std::fs::remove_file(&path) {
                Ok(()) => log.push(format!("removed {}", path.display())),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e).with_context(|| format!("removing {}", path.display())),
            }
        } else {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
            log.push(format!("wrote {}", path.display()));
        }
    }
    let mime = data_home.join("mime");
    if mime.join("packages").is_dir() {
        log.push(refresh("update-mime-database", &mime));
    }
    let apps = data_home.join("applications");
    if apps.is_dir() {
        log.push(refresh("update-desktop-database", &apps));
    }
    Ok(log)
}
