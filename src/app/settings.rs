//! The viewer's settings, kept in `$XDG_CONFIG_HOME/facet/settings.json`
//! (default `~/.config/facet/settings.json`): background colour, lighting
//! preset, PA team colours, the size of renders saved from the File menu and whether
//! they are transparent, the recently
//! opened files, the Planetary Annihilation media roots and the window's size when it
//! last closed. A missing or unreadable file gives the defaults (and a log line); unknown
//! keys are ignored.

use crate::gpu::{Lighting, TeamColors};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub use crate::ui::{DEFAULT_TEXTURE_MIB, RENDER_SIZES};

/// Recent files kept.
pub const RECENT: usize = 10;

/// Window sides the settings accept, in logical pixels: a saved size
/// outside them is ignored (the window opens at its default size).
pub const WINDOW_SIDES: std::ops::RangeInclusive<u32> = 200..=16384;

/// The window as it last closed: its size when neither maximised nor full
/// screen (logical pixels), and whether it was maximised. Full screen is
/// not kept: the window opens as it was before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowPlacement {
    pub size: (u32, u32),
    pub maximized: bool,
}

impl Default for WindowPlacement {
    fn default() -> Self {
        WindowPlacement {
            size: (1280, 800),
            maximized: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Linear RGBA.
    pub background: [f64; 4],
    pub lighting: Lighting,
    /// Planetary Annihilation team colours (the inspector's pickers).
    pub team_colors: TeamColors,
    /// File -> Save render: width and height in pixels.
    pub render_size: (u32, u32),
    /// File -> Save render: on a transparent background, without the grid.
    pub render_transparent: bool,
    /// Newest first.
    pub recent: Vec<PathBuf>,
    /// Planetary Annihilation media roots (folders holding `pa/`), tried in
    /// order after a model's own mod folder (File > Settings).
    pub media_roots: Vec<PathBuf>,
    /// Decoded texels a file may take, all its textures together, in MiB
    /// (`--max-texture-memory`).
    pub max_texture_mib: u64,
    /// The window's size and state when it last closed.
    pub window: WindowPlacement,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            background: crate::gpu::ViewOptions::default().background,
            lighting: Lighting::Studio,
            team_colors: TeamColors::default(),
            render_size: (1920, 1080),
            render_transparent: false,
            recent: Vec::new(),
            media_roots: Vec::new(),
            max_texture_mib: DEFAULT_TEXTURE_MIB,
            window: WindowPlacement::default(),
        }
    }
}

/// A `[width, height]` pair whose sides are both in `sides`.
fn size_in(v: &Value, sides: std::ops::RangeInclusive<u32>) -> Option<(u32, u32)> {
    let side = |x: &Value| {
        x.as_u64()
            .and_then(|x| u32::try_from(x).ok())
            .filter(|x| sides.contains(x))
    };
    match v.as_array()?.as_slice() {
        [w, h] => Some((side(w)?, side(h)?)),
        _ => None,
    }
}

/// `$XDG_CONFIG_HOME/facet/settings.json`, else under `$HOME/.config`.
pub fn path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("facet/settings.json"))
}

impl Settings {
    pub fn from_json(v: &Value) -> Settings {
        let mut s = Settings::default();
        if let Some(bg) = v["background"].as_array()
            && bg.len() == 4
            && bg
                .iter()
                .all(|x| x.as_f64().is_some_and(|x| (0.0..=1.0).contains(&x)))
        {
            s.background = std::array::from_fn(|i| bg[i].as_f64().unwrap_or(0.0));
        }
        if let Some(l) = v["lighting"].as_str().and_then(Lighting::from_name) {
            s.lighting = l;
        }
        if let Some(t) = v["team_colors"]
            .as_str()
            .and_then(|t| TeamColors::parse(t).ok())
        {
            s.team_colors = t;
        }
        if let Some(size) = size_in(&v["render_size"], RENDER_SIZES) {
            s.render_size = size;
        }
        if let Some(t) = v["render_transparent"].as_bool() {
            s.render_transparent = t;
        }
        if let Some(m) = v["max_texture_mib"]
            .as_u64()
            .filter(|&m| (1..=1 << 20).contains(&m))
        {
            s.max_texture_mib = m;
        }
        if let Some(r) = v["media_roots"].as_array() {
            s.media_roots = r
                .iter()
                .filter_map(|p| p.as_str().map(PathBuf::from))
                .collect();
        }
        if let Some(size) = size_in(&v["window"]["size"], WINDOW_SIDES) {
            s.window.size = size;
        }
        if let Some(m) = v["window"]["maximized"].as_bool() {
            s.window.maximized = m;
        }
        if let Some(r) = v["recent"].as_array() {
            s.recent = r
                .iter()
                .filter_map(|p| p.as_str().map(PathBuf::from))
                .take(RECENT)
                .collect();
        }
        s
    }

    pub fn to_json(&self) -> Value {
        json!({
            "background": self.background,
            "lighting": self.lighting.name(),
            "team_colors": self.team_colors.to_string(),
            "render_size": [self.render_size.0, self.render_size.1],
            "render_transparent": self.render_transparent,
            "recent": self.recent.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "media_roots": self.media_roots.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "max_texture_mib": self.max_texture_mib,
            "window": {
                "size": [self.window.size.0, self.window.size.1],
                "maximized": self.window.maximized,
            },
        })
    }

    pub fn load_from(path: &Path) -> Settings {
        match std::fs::read(path) {
            Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) => Settings::from_json(&v),
                Err(e) => {
                    log::warn!("{}: {e}; using the default settings", path.display());
                    Settings::default()
                }
            },
            Err(_) => Settings::default(),
        }
    }

    pub fn save_to(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text = serde_json::to_string_pretty(&self.to_json()).map_err(std::io::Error::other)?;
        std::fs::write(path, text)
    }

    /// Puts `file` first in the recent list (once), keeping [`RECENT`].
    pub fn opened(&mut self, file: &Path) {
        let file = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        self.recent.retain(|p| p != &file);
        self.recent.insert(0, file);
        self.recent.truncate(RECENT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_tolerates_junk() {
        let mut s = Settings {
            background: [0.1, 0.2, 0.3, 1.0],
            lighting: Lighting::Flat,
            team_colors: TeamColors::parse("#102030,#A0B0C0").unwrap(),
            render_size: (1000, 500),
            render_transparent: true,
            recent: vec![],
            media_roots: vec![PathBuf::from("/games/PA/media"), PathBuf::from("/mods")],
            max_texture_mib: 256,
            window: WindowPlacement {
                size: (900, 640),
                maximized: true,
            },
        };
        for i in 0..12 {
            s.opened(Path::new(&format!("/nowhere/{i}.p3m")));
        }
        s.opened(Path::new("/nowhere/3.p3m"));
        assert_eq!(s.recent.len(), RECENT);
        assert_eq!(s.recent[0], PathBuf::from("/nowhere/3.p3m"));
        assert_eq!(s.recent.iter().filter(|p| p.ends_with("3.p3m")).count(), 1);
        assert_eq!(Settings::from_json(&s.to_json()), s);
        let junk = json!({"background": [2, "x"], "lighting": "disco", "team_colors": "pink", "render_size": [0, 99999999999u64], "recent": [1, "/a.m3d"], "window": {"size": [100, 50000], "maximized": "yes"}, "extra": true});
        let d = Settings::from_json(&junk);
        assert_eq!(
            (
                d.background,
                d.lighting,
                d.render_size,
                d.team_colors,
                d.window
            ),
            (
                Settings::default().background,
                Lighting::Studio,
                (1920, 1080),
                TeamColors::default(),
                WindowPlacement {
                    size: (1280, 800),
                    maximized: false
                }
            )
        );
        assert_eq!(d.recent, vec![PathBuf::from("/a.m3d")]);
        // One side out of range drops the pair; the state is read apart.
        let half = json!({"window": {"size": [1024, 100], "maximized": true}});
        let d = Settings::from_json(&half);
        assert_eq!(
            d.window,
            WindowPlacement {
                size: (1280, 800),
                maximized: true
            }
        );
    }
}
