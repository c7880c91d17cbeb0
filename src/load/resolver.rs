//! The one place that finds companion files on disk, for every format, with
//! each game's own rules (`docs/formats.md`, "Companion files"):
//!
//! - PlatinumSrc resource paths (`notes/platinumsrc.md`, "Resource paths"):
//!   no prefix, `:` and `self:` are relative to the game directory (the
//!   nearest ancestor of the model holding `game.cfg`), `game:<dir>/…` to
//!   `<main>/games/<dir>/`, `internal:` to `<main>/internal/resources/`;
//!   `user:` is skipped with a note. Each place is tried as written, then
//!   with `.ptf`, `.png`, `.jpg`, `.tga`, `.bmp`; then the model's own folder.
//! - Planetary Annihilation media paths (`/pa/…`): relative to the nearest
//!   ancestor of the model holding the path's first folder (a mod's media
//!   folder: mods shadow the game, as in the game), then every media root the
//!   user configured, then the stock install folders that exist
//!   ([`stock_media_roots`]); then by file name next to the model.
//! - Anything else: next to the model.
//!
//! Only regular files are read (never a device or a folder), no larger than
//! [`MAX_COMPANION_SIZE`], and a path that climbs out of its root (`..`, an
//! absolute path) is refused: the thumbnailer resolves paths from files the
//! user never opened.

use crate::formats::ptf::Texels;
use crate::scene::companions::{Companions, Found, Lookup, Missing, Sibling, TexelBudget};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Largest companion file read: 256 MiB.
pub const MAX_COMPANION_SIZE: u64 = 256 << 20;

/// The extensions the engine tries after the name as written, in order.
pub const PLATINUM_EXTENSIONS: [&str; 5] = ["ptf", "png", "jpg", "tga", "bmp"];

/// Resolves companions of a model at `model_path` (or of bytes that say
/// they came from `dir`).
#[derive(Debug, Clone)]
pub struct DiskResolver {
    model_path: Option<PathBuf>,
    dir: Option<PathBuf>,
    /// PA media roots after the model's own mod folder, in order.
    media_roots: Vec<PathBuf>,
    /// How textures are decoded: the load's texel budget, which every
    /// texture takes from, or headers only.
    texels: TexelBudget,
}

/// Planetary Annihilation's stock media folders under the usual Linux Steam
/// roots of `home`: `steamapps/common/Planetary Annihilation*/media`.
pub fn stock_media_roots_in(home: &Path) -> Vec<PathBuf> {
    let steams = [
        ".steam/steam",
        ".steam/root",
        ".local/share/Steam",
        ".var/app/com.valvesoftware.Steam/.local/share/Steam",
    ];
    let mut out: Vec<PathBuf> = Vec::new();
    for steam in steams {
        let common = home.join(steam).join("steamapps/common");
        let Ok(entries) = std::fs::read_dir(&common) else {
            continue;
        };
        let mut games: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with("Planetary Annihilation"))
            })
            .map(|e| e.path().join("media"))
            .filter(|m| m.is_dir())
            .collect();
        games.sort();
        for g in games {
            // ~/.steam/steam is usually a link to another root: once each.
            let real = g.canonicalize().unwrap_or_else(|_| g.clone());
            if !out
                .iter()
                .any(|o| o.canonicalize().unwrap_or_else(|_| o.clone()) == real)
            {
                out.push(g);
            }
        }
    }
    out
}

/// [`stock_media_roots_in`] the user's home directory.
pub fn stock_media_roots() -> Vec<PathBuf> {
    std::env::var_os("HOME")
        .map(|h| stock_media_roots_in(Path::new(&h)))
        .unwrap_or_default()
}

impl DiskResolver {
    /// `dir` is the model's folder; `model_path` the model itself when known.
    pub fn new(dir: Option<&Path>, model_path: Option<&Path>) -> Self {
        DiskResolver {
            dir: dir
                .map(Path::to_path_buf)
                .or_else(|| model_path.and_then(Path::parent).map(Path::to_path_buf)),
            model_path: model_path.map(Path::to_path_buf),
            media_roots: Vec::new(),
            texels: TexelBudget::new(Texels::Within(crate::formats::ptf::DEFAULT_TEXEL_BUDGET)),
        }
    }

    /// How textures are decoded: a budget of texel bytes for all of this
    /// load's textures together, or headers only.
    pub fn with_texels(mut self, texels: Texels) -> Self {
        self.texels = TexelBudget::new(texels).each_at_most(self.texels.each());
        self
    }

    /// Each texture decoded at most `bytes` of texels (within the budget).
    pub fn with_texel_cap(mut self, bytes: usize) -> Self {
        self.texels = self.texels.each_at_most(bytes);
        self
    }

    /// The load's texel budget.
    pub fn budget(&self) -> &TexelBudget {
        &self.texels
    }

    /// The file whose companions this resolves, when known.
    pub fn model_path(&self) -> Option<&Path> {
        self.model_path.as_deref()
    }

    /// A resolver for another model at `path`, with the same media roots,
    /// whose textures take what this load's budget has left.
    pub fn for_model(&self, path: &Path) -> DiskResolver {
        DiskResolver::new(path.parent(), Some(path))
            .with_media_roots(self.media_roots.clone())
            .with_texels(self.texels.left())
            .with_texel_cap(self.texels.each())
    }

    /// PA media roots tried after the model's own mod folder, in order.
    pub fn with_media_roots(mut self, roots: Vec<PathBuf>) -> Self {
        self.media_roots = roots;
        self
    }

    /// The nearest ancestor of the model's folder (itself included) that
    /// holds `name` (a file or a folder).
    fn ancestor_holding(&self, name: &str) -> Option<PathBuf> {
        let dir = self.dir.as_deref()?;
        dir.ancestors()
            .find(|a| a.join(name).exists())
            .map(Path::to_path_buf)
    }

    fn platinum(&self, path: &str) -> Result<Found, Missing> {
        let mut missing = Missing::default();
        let game = self.ancestor_holding("game.cfg");
        // `<main>/games/<game>/`: main is two levels up when the game
        // directory sits in a folder named `games`.
        let main = game.as_deref().and_then(|g| {
            let games = g.parent()?;
            (games.file_name()? == "games").then(|| games.parent().map(Path::to_path_buf))?
        });
        let no_game = "no game directory (no folder above the model holds game.cfg)";
        let (root, rest): (Option<PathBuf>, &str) = if let Some(rest) = path.strip_prefix("user:") {
            missing.notes.push(format!(
                "user: paths name the player's data directory, which facet does not read \
                 ({rest:?} skipped)"
            ));
            return self.platinum_beside(rest, missing);
        } else if let Some(rest) = path.strip_prefix("internal:") {
            if main.is_none() {
                missing.notes.push(format!(
                    "internal: needs the engine's main directory (<main>/games/<game>/): {}",
                    if game.is_some() {
                        "the game directory is not inside a folder named games"
                    } else {
                        no_game
                    }
                ));
            }
            (main.as_ref().map(|m| m.join("internal/resources")), rest)
        } else if let Some(rest) = path.strip_prefix("game:") {
            let (name, rest) = rest.split_once('/').unwrap_or((rest, ""));
            if main.is_none() {
                missing
                    .notes
                    .push(format!("game:{name} needs the engine's main directory"));
            }
            let root = main
                .as_ref()
                .and_then(|m| relative(name).map(|n| m.join("games").join(n)));
            (root, rest)
        } else {
            let rest = path
                .strip_prefix("self:")
                .or_else(|| path.strip_prefix(':'))
                .unwrap_or(path);
            if game.is_none() {
                missing.notes.push(no_game.into());
            }
            (game.clone(), rest)
        };
        if let Some(root) = root {
            match relative(rest) {
                Some(rel) => {
                    if let Some(found) = try_extensions(&root.join(rel), &mut missing) {
                        return Ok(found);
                    }
                }
                None => missing.notes.push(unsafe_path(rest)),
            }
        }
        self.platinum_beside(rest, missing)
    }

    /// The fallback for a lone model: its own folder, same extensions.
    fn platinum_beside(&self, rest: &str, mut missing: Missing) -> Result<Found, Missing> {
        if let Some(dir) = &self.dir {
            match relative(rest) {
                Some(rel) => {
                    if let Some(found) = try_extensions(&dir.join(rel), &mut missing) {
                        return Ok(found);
                    }
                }
                None => missing.notes.push(unsafe_path(rest)),
            }
        }
        Err(missing)
    }

    fn pa_media(&self, path: &str) -> Result<Found, Missing> {
        let mut missing = Missing::default();
        let trimmed = path.trim_start_matches('/');
        if path.starts_with('/') {
            let first = trimmed.split('/').next().unwrap_or_default();
            match relative(trimmed) {
                None => missing.notes.push(unsafe_path(path)),
                Some(rel) => {
                    let own = self.ancestor_holding(first);
                    if own.is_none() {
                        missing
                            .notes
                            .push(format!("no folder above the model holds {first}/"));
                    }
                    if self.media_roots.is_empty() {
                        missing.notes.push(
                            "no media roots configured (--media DIR, File > Settings) and no \
                             Planetary Annihilation install found under Steam"
                                .into(),
                        );
                    }
                    for root in own.iter().chain(&self.media_roots) {
                        if let Some(found) = try_file(&root.join(rel), &mut missing) {
                            return Ok(found);
                        }
                    }
                }
            }
        }
        let file = trimmed.rsplit('/').next().unwrap_or(trimmed);
        self.beside(file, missing)
    }

    fn beside(&self, name: &str, mut missing: Missing) -> Result<Found, Missing> {
        if let (Some(dir), Some(rel)) = (&self.dir, relative(name))
            && let Some(found) = try_file(&dir.join(rel), &mut missing)
        {
            return Ok(found);
        }
        if relative(name).is_none() {
            missing.notes.push(unsafe_path(name));
        }
        Err(missing)
    }
}

impl Companions for DiskResolver {
    fn texel_budget(&self) -> Option<&TexelBudget> {
        Some(&self.texels)
    }

    fn find(&self, lookup: Lookup<'_>) -> Result<Found, Missing> {
        match lookup {
            Lookup::PlatinumResource(p) => self.platinum(p),
            Lookup::Beside(name) => self.beside(name, Missing::default()),
            Lookup::PaMedia(p) => self.pa_media(p),
        }
    }

    fn model_stem(&self) -> Option<String> {
        Some(self.model_path.as_ref()?.file_stem()?.to_str()?.to_owned())
    }

    fn siblings(
        &self,
        suffix: &str,
        header_len: usize,
        keep: &dyn Fn(&[u8]) -> bool,
    ) -> Vec<Sibling> {
        let Some(dir) = &self.dir else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with(suffix))
                    && Some(p) != self.model_path.as_ref()
            })
            .collect();
        paths.sort();
        paths
            .into_iter()
            .filter_map(|path| {
                let bytes = read_if(&path, header_len, keep)?;
                Some(Sibling {
                    file_name: path.file_name()?.to_str()?.to_owned(),
                    bytes,
                })
            })
            .collect()
    }
}

/// `p` as a relative path that stays inside whatever it is joined to, or
/// `None` (absolute, a drive prefix, or a `..` component).
fn relative(p: &str) -> Option<&Path> {
    let path = Path::new(p);
    path.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        .then_some(path)
}

fn unsafe_path(p: &str) -> String {
    format!("{p:?} leaves its folder (absolute or ..): not followed")
}

/// `base` as written, then with each engine extension.
fn try_extensions(base: &Path, missing: &mut Missing) -> Option<Found> {
    if let Some(found) = try_file(base, missing) {
        return Some(found);
    }
    PLATINUM_EXTENSIONS.iter().find_map(|ext| {
        let mut name = base.as_os_str().to_owned();
        name.push(".");
        name.push(ext);
        try_file(Path::new(&name), missing)
    })
}

fn try_file(path: &Path, missing: &mut Missing) -> Option<Found> {
    missing.tried.push(path.to_path_buf());
    match read_regular(path) {
        Ok(bytes) => Some(Found {
            path: path.to_path_buf(),
            bytes,
        }),
        Err(None) => None,
        Err(Some(why)) => {
            missing.notes.push(format!("{}: {why}", path.display()));
            None
        }
    }
}

/// The bytes of a regular file of at most [`MAX_COMPANION_SIZE`] bytes
/// whose first `header_len` bytes pass `keep`; other files are never read
/// whole. The file's kind is checked before it is opened: opening a FIFO or
/// a device could block or never end.
pub(super) fn read_if(
    path: &Path,
    header_len: usize,
    keep: &dyn Fn(&[u8]) -> bool,
) -> Option<Vec<u8>> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_COMPANION_SIZE {
        return None;
    }
    let mut header = vec![0u8; header_len];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .ok()?;
    if !keep(&header) {
        return None;
    }
    read_regular(path).ok()
}

/// The bytes of a regular file of at most [`MAX_COMPANION_SIZE`] bytes.
/// `Err(None)`: no such file; `Err(Some(why))`: there, but not read.
fn read_regular(path: &Path) -> Result<Vec<u8>, Option<String>> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Err(None);
    };
    if !meta.is_file() {
        return Err(Some("not a regular file".into()));
    }
    read_capped(path, &meta, MAX_COMPANION_SIZE).map_err(|e| Some(e.to_string()))
}

/// The bytes of `path` (`meta` its metadata), at most `cap` of them,
/// counted as they come and not only by the size the file had when asked
/// (a pipe has none, a file may grow): over it, an error, never the first
/// `cap` bytes as if they were the file. The one read of the loader's
/// files ([`super::read_file`]) and their companions.
pub(super) fn read_capped(
    path: &Path,
    meta: &std::fs::Metadata,
    cap: u64,
) -> std::io::Result<Vec<u8>> {
    let over = |len: &dyn std::fmt::Display| {
        std::io::Error::other(format!("{len} bytes is over the {cap}-byte cap"))
    };
    if meta.len() > cap {
        return Err(over(&meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)?
        .take(cap + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(over(&format_args!("more than {cap}")));
    }
    Ok(bytes)
}
