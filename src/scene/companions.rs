//! What a converter may ask of the world outside its file: companion files
//! (external textures, linked texture papas, sibling animations). Converters
//! never read the disk; they describe what they want with a [`Lookup`] and
//! `load`'s resolver answers, following each game's own rules. Tests and
//! loads from bytes alone pass [`NoCompanions`].

use std::fmt;
use std::path::PathBuf;

/// A companion file a converter wants, named as the file names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// A PlatinumSrc resource path (a P3M's external texture): the game
    /// directory with the engine's prefixes and extensions, then the model's
    /// own folder.
    PlatinumResource(&'a str),
    /// A file in the model's own folder, by exact name (M3D textures,
    /// `<unit>_diffuse.papa`).
    Beside(&'a str),
    /// A Planetary Annihilation media path (`/pa/units/…/x.papa`) or a bare
    /// file name (a Papa's linked texture).
    PaMedia(&'a str),
}

/// A companion that was found and read.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// A companion that was not found: every place tried, in order, and notes on
/// what could not be tried at all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Missing {
    pub tried: Vec<PathBuf>,
    pub notes: Vec<String>,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tried.is_empty() {
            write!(f, "not found (no folder to look in)")?;
        } else {
            write!(f, "not found; tried ")?;
            for (i, p) in self.tried.iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                write!(f, "{}", p.display())?;
            }
        }
        for n in &self.notes {
            write!(f, "; {n}")?;
        }
        Ok(())
    }
}

/// A file next to the model, read because its header passed a check.
#[derive(Debug, Clone)]
pub struct Sibling {
    pub file_name: String,
    pub bytes: Vec<u8>,
}

/// The resolver converters receive, with the limits of this load.
pub trait Companions {
    /// How textures are decoded: within a budget of texel bytes (textures
    /// that need more are decoded smaller where the format allows, else
    /// refused), or their headers only (sizes and formats, no texels).
    fn texels(&self) -> crate::formats::ptf::Texels {
        crate::formats::ptf::Texels::Within(crate::formats::ptf::DEFAULT_TEXEL_BUDGET)
    }

    /// Finds and reads one companion file.
    fn find(&self, lookup: Lookup<'_>) -> Result<Found, Missing>;

    /// The model's file name without its extension, when it has one.
    fn model_stem(&self) -> Option<String>;

    /// Files in the model's folder (the model itself aside) whose name ends
    /// with `suffix` and whose first `header_len` bytes pass `keep`, read
    /// whole, sorted by name. Files that fail `keep` are never read whole.
    fn siblings(
        &self,
        suffix: &str,
        header_len: usize,
        keep: &dyn Fn(&[u8]) -> bool,
    ) -> Vec<Sibling>;
}

/// No disk: every lookup is missing. For loads from bytes alone.
pub struct NoCompanions;

impl Companions for NoCompanions {
    fn find(&self, _: Lookup<'_>) -> Result<Found, Missing> {
        Err(Missing::default())
    }

    fn model_stem(&self) -> Option<String> {
        None
    }

    fn siblings(&self, _: &str, _: usize, _: &dyn Fn(&[u8]) -> bool) -> Vec<Sibling> {
        Vec::new()
    }
}
