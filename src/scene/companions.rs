//! What a converter may ask of the world outside its file: companion files
//! (external textures, linked texture papas, sibling animations). Converters
//! never read the disk; they describe what they want with a [`Lookup`] and
//! `load`'s resolver answers, following each game's own rules. Tests and
//! loads from bytes alone pass [`NoCompanions`].

use std::cell::Cell;
use std::fmt;
use std::path::PathBuf;

use crate::formats::ptf::{DEFAULT_TEXEL_BUDGET, Texels};

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
            // With notes, they say why nothing was tried (a path that
            // leaves its folder is tried nowhere, whatever folders there are).
            write!(f, "not found")?;
            if self.notes.is_empty() {
                write!(f, " (no folder to look in)")?;
            }
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

/// One load's texel budget: the decoded texel bytes all of a file's
/// textures may take together (its embedded ones, its companions and a
/// model an animation file brings in), each texture perhaps capped lower
/// (a thumbnail needs no texture larger than it can show). Textures take
/// from it in the order the converter decodes them; one that needs more
/// than is left is decoded smaller where its format allows, else refused.
#[derive(Debug, Clone)]
pub struct TexelBudget {
    /// `Within(total)` for the whole load, or headers only.
    mode: Texels,
    /// The most one texture may take.
    each: usize,
    /// What the textures decoded so far took.
    spent: Cell<usize>,
}

impl TexelBudget {
    /// `mode`'s bytes for the whole load, no texture capped lower.
    pub fn new(mode: Texels) -> Self {
        TexelBudget {
            mode,
            each: usize::MAX,
            spent: Cell::new(0),
        }
    }

    /// The same budget with each texture taking at most `bytes`.
    pub fn each_at_most(self, bytes: usize) -> Self {
        TexelBudget {
            each: self.each.min(bytes),
            ..self
        }
    }

    /// What the next texture may take: the budget's rest, within the cap.
    pub fn next(&self) -> Texels {
        match self.left() {
            Texels::Within(left) => Texels::Within(left.min(self.each)),
            Texels::HeadersOnly => Texels::HeadersOnly,
        }
    }

    /// What is left for the rest of the load, all textures together (for a
    /// decoder that spends it across several: a P3M's embedded PTFs).
    pub fn left(&self) -> Texels {
        self.mode.spent(self.spent.get())
    }

    /// The most one texture may take.
    pub fn each(&self) -> usize {
        self.each
    }

    /// Takes `bytes` of decoded texels from the budget.
    pub fn spend(&self, bytes: usize) {
        self.spent.set(self.spent.get().saturating_add(bytes));
    }

    /// A texture the budget's rest could not hold: what the textures
    /// before it took, when they took any (its error names only the rest).
    pub fn spent_note(&self) -> Option<String> {
        match (self.mode, self.spent.get()) {
            (Texels::Within(total), spent) if spent > 0 => Some(format!(
                "the file's textures before it took {spent} bytes of its {total}-byte texel budget"
            )),
            _ => None,
        }
    }
}

/// Decodes one texture with what `companions`' budget allows it (`decode`
/// receives that), then takes the bytes `held` says the texture holds from
/// the budget. A texture refused for want of budget is told what the ones
/// before it took (any other error is its own).
pub fn decode_texels<T>(
    companions: &dyn Companions,
    decode: impl FnOnce(Texels) -> Result<T, String>,
    held: impl FnOnce(&T) -> usize,
) -> Result<T, String> {
    let Some(budget) = companions.texel_budget() else {
        return decode(Texels::Within(DEFAULT_TEXEL_BUDGET));
    };
    let mode = budget.next();
    match decode(mode) {
        Ok(t) => {
            if mode != Texels::HeadersOnly {
                budget.spend(held(&t));
            }
            Ok(t)
        }
        // Every decoder's budget errors name "the N-byte texel budget" (the
        // rest); a damaged file's errors are left as they are.
        Err(e) => Err(match budget.spent_note() {
            Some(note) if e.contains("-byte texel budget") => format!("{e} ({note})"),
            _ => e,
        }),
    }
}

/// The resolver converters receive, with the limits of this load.
pub trait Companions {
    /// This load's texel budget, which every texture decoded takes from
    /// through [`decode_texels`] (the one way converters decode texels, so
    /// that none is left uncounted). None: each texture may take the
    /// default budget, and nothing is counted (tests, [`NoCompanions`]).
    fn texel_budget(&self) -> Option<&TexelBudget> {
        None
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
