//! Pure decoders and writers for the files Facet opens:
//! `&[u8] -> Result<T, DecodeError>` and back. No GPU, no UI, no file I/O,
//! no `unsafe`.
//!
//! | Format | Games and tools | Decoder | Writer | Spec |
//! |---|---|---|---|---|
//! | P3M | PlatinumSrc models (both layouts: current and the 2024 one the engine and its Blender exporter use) | [`p3m::decode`] | [`p3m_write::encode`] | `specs/p3m.txt`, `specs/p3m-2024.txt` |
//! | PTF | PlatinumSrc textures (2024, 2025 and current generations) | [`ptf::decode`], [`ptf::decode_with`] (budget or headers only) | [`ptf_write::encode`] | `specs/ptf*.txt` |
//! | PMF | PlatinumSrc maps (sectors, cube octrees, lightmaps, entities) | [`pmf::decode`], [`pmf::decode_on`] (threads, progress) | [`pmf_write::encode`] | `specs/pmf*.txt` |
//! | M3D | Model 3D (binary, zlib or not; meshes, skins, actions, voxels) | [`m3d::decode`], [`m3d::decode_with_limit`] | [`m3d_write::encode`] | `specs/m3d.md` |
//! | Papa | Planetary Annihilation models, textures and animations | [`papa::decode`] | [`papa_write::encode`] | `specs/papa.txt` |
//!
//! [`Format::detect`] tells them apart by their first bytes. Each crate
//! example (`cargo run -p facet-formats --example p3m -- FILE`, likewise
//! `ptf`, `pmf`, `m3d`, `papa`) decodes a file and prints its counts.
//!
//! Every decoder reads through [`Reader`], a bounded little-endian cursor whose
//! errors name the field and the absolute byte offset where reading failed, and
//! which refuses to allocate for a count that the remaining bytes cannot back.
//! Texels have a budget of their own ([`ptf::Texels`]): past it a texture is
//! decoded smaller as its rows stream ([`reduce`]), never held whole.

#![forbid(unsafe_code)]

pub mod fuzz;
pub mod m3d;
pub mod m3d_ascii;
pub mod m3d_write;
pub mod p3m;
pub mod p3m_write;
pub mod papa;
pub mod papa_write;
pub mod pmf;
pub mod pmf_write;
pub mod ptf;
pub mod ptf_write;
pub mod reduce;

use std::fmt;

/// A decoding failure: which field, at which byte offset of the file, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Absolute byte offset in the file where the failing field starts.
    pub offset: u64,
    /// Human-readable path of the field, e.g. `part 2 "arm": index 17`.
    pub field: String,
    pub kind: ErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The field needs `needed` bytes but the file ends at `file_len`.
    Truncated { needed: u64, file_len: u64 },
    /// Magic bytes did not match.
    BadMagic { expected: String, found: String },
    /// A value is out of the range the format allows.
    Invalid(String),
    /// Compressed data failed to decompress.
    Compression(String),
    /// A table or blob that an offset points at runs past the end.
    PastEnd { file_len: u64 },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Truncated { needed, file_len } => write!(
                f,
                "{}: data at offset {:#X} needs {} byte{} but the file ends at {:#X}",
                self.field,
                self.offset,
                needed,
                if *needed == 1 { "" } else { "s" },
                file_len
            ),
            ErrorKind::BadMagic { expected, found } => write!(
                f,
                "{} at offset {:#X}: expected {}, found {}",
                self.field, self.offset, expected, found
            ),
            ErrorKind::Invalid(msg) => {
                write!(f, "{} at offset {:#X}: {}", self.field, self.offset, msg)
            }
            ErrorKind::PastEnd { file_len } => write!(
                f,
                "{}: data at offset {:#X} runs past the end of the file (size {:#X})",
                self.field, self.offset, file_len
            ),
            ErrorKind::Compression(msg) => write!(
                f,
                "{} at offset {:#X}: decompression failed: {}",
                self.field, self.offset, msg
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

impl DecodeError {
    pub fn invalid(offset: u64, field: impl Into<String>, msg: impl Into<String>) -> Self {
        Self {
            offset,
            field: field.into(),
            kind: ErrorKind::Invalid(msg.into()),
        }
    }

    /// Names the field within `ctx`, as a [`Reader`] with that context
    /// would have: for readers whose context is formatted only when an
    /// error happens.
    pub fn in_ctx(mut self, ctx: impl std::fmt::Display) -> Self {
        self.field = field_in(ctx, &self.field);
        self
    }

    /// Shifts the offset by `base` and prefixes the field path: used when a
    /// decoder runs on a slice embedded in a larger file (PTF inside P3M).
    pub fn nested(mut self, base: u64, prefix: &str) -> Self {
        self.offset += base;
        self.field = format!("{prefix}: {}", self.field);
        self
    }
}

/// `field` named within a (non-empty) context: `ctx: field`, or the
/// context alone for an unnamed field. One rule for a [`Reader`]'s errors
/// and for errors named after the fact ([`DecodeError::in_ctx`]).
fn field_in(ctx: impl std::fmt::Display, field: &str) -> String {
    if field.is_empty() {
        ctx.to_string()
    } else {
        format!("{ctx}: {field}")
    }
}

pub type Result<T> = std::result::Result<T, DecodeError>;

/// `bytes` as text, invalid UTF-8 replaced as [`String::from_utf8_lossy`]
/// replaces it. Valid text (every real file's) takes `str::from_utf8`'s
/// word-at-a-time check: the lossy reader's chunk iterator went a byte at
/// a time, 3% of a small M3D file's load.
pub(crate) fn lossy_string(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// The file formats this crate understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    P3m,
    Ptf,
    M3d,
    Papa,
    Pmf,
    /// glTF 2.0 (`.glb`, `.gltf`): read by the viewer with the `gltf`
    /// crate, not by a decoder of this crate.
    Gltf,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::P3m => "P3M",
            Format::Ptf => "PTF",
            Format::M3d => "M3D",
            Format::Papa => "Papa",
            Format::Pmf => "PMF",
            Format::Gltf => "glTF",
        }
    }

    /// Recognises a file by its magic bytes, falling back to its extension.
    pub fn detect(data: &[u8], file_name: &str) -> Option<Format> {
        if data.starts_with(b"P3M") {
            return Some(Format::P3m);
        }
        if data.starts_with(b"PTF") {
            return Some(Format::Ptf);
        }
        if data.starts_with(b"3DMO") || data.starts_with(m3d_ascii::MAGIC) {
            return Some(Format::M3d);
        }
        if data.starts_with(papa::MAGIC) {
            return Some(Format::Papa);
        }
        if data.starts_with(pmf::MAGIC) {
            return Some(Format::Pmf);
        }
        if data.starts_with(b"glTF") {
            return Some(Format::Gltf);
        }
        let ext = std::path::Path::new(file_name)
            .extension()?
            .to_str()?
            .to_ascii_lowercase();
        match ext.as_str() {
            "p3m" => Some(Format::P3m),
            "ptf" => Some(Format::Ptf),
            "m3d" | "a3d" => Some(Format::M3d),
            "papa" => Some(Format::Papa),
            "pmf" => Some(Format::Pmf),
            "gltf" | "glb" => Some(Format::Gltf),
            _ => None,
        }
    }
}

/// Bounded little-endian cursor over a byte slice.
///
/// `ctx` is a prefix put before every field name in errors (e.g. `part 3`), so
/// nested structures report where they are without threading strings around.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    ctx: std::borrow::Cow<'static, str>,
}

macro_rules! read_le {
    ($($name:ident: $ty:ty),* $(,)?) => {$(
        #[inline]
        pub fn $name(&mut self, field: &str) -> Result<$ty> {
            Ok(<$ty>::from_le_bytes(self.fixed(field)?))
        }
    )*};
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            ctx: std::borrow::Cow::Borrowed(""),
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// A fixed name (`&'static str`) costs nothing; a formatted one is kept.
    pub fn set_ctx(&mut self, ctx: impl Into<std::borrow::Cow<'static, str>>) {
        self.ctx = ctx.into();
    }

    pub fn clear_ctx(&mut self) {
        self.ctx = std::borrow::Cow::Borrowed("");
    }

    /// The full name of `field` in the current context.
    pub fn name(&self, field: &str) -> String {
        if self.ctx.is_empty() {
            field.to_string()
        } else {
            field_in(&self.ctx, field)
        }
    }

    pub fn err(&self, at: usize, field: &str, msg: impl Into<String>) -> DecodeError {
        DecodeError::invalid(at as u64, self.name(field), msg)
    }

    // Cold and out of line: the readers below inline to a bounds check and
    // a load, and the error path stays out of the decoders' hot loops.
    #[cold]
    #[inline(never)]
    pub(crate) fn truncated(&self, field: &str, needed: usize) -> DecodeError {
        DecodeError {
            offset: self.pos as u64,
            field: self.name(field),
            kind: ErrorKind::Truncated {
                needed: needed as u64,
                file_len: self.data.len() as u64,
            },
        }
    }

    #[inline]
    pub fn bytes(&mut self, n: usize, field: &str) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(self.truncated(field, n));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Reads exactly `N` bytes.
    #[inline]
    pub fn fixed<const N: usize>(&mut self, field: &str) -> Result<[u8; N]> {
        match self.data.get(self.pos..).and_then(|t| t.first_chunk::<N>()) {
            Some(b) => {
                self.pos += N;
                Ok(*b)
            }
            None => Err(self.truncated(field, N)),
        }
    }

    /// Borrows exactly `N` bytes. Prefer this to [`Reader::fixed`] for a
    /// record whose fields are then picked out: a copied array goes through
    /// the stack in overlapping stores, and loading a field that spans two
    /// of them stalls the CPU (store forwarding fails).
    #[inline]
    pub fn fixed_ref<const N: usize>(&mut self, field: &str) -> Result<&'a [u8; N]> {
        match self.data.get(self.pos..).and_then(|t| t.first_chunk::<N>()) {
            Some(b) => {
                self.pos += N;
                Ok(b)
            }
            None => Err(self.truncated(field, N)),
        }
    }

    /// The bytes from the cursor on, without moving it.
    pub fn peek_rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    pub fn rest(&mut self) -> &'a [u8] {
        let out = &self.data[self.pos..];
        self.pos = self.data.len();
        out
    }

    pub fn magic(&mut self, expected: &[u8], field: &str) -> Result<()> {
        let at = self.pos;
        let found = self.bytes(expected.len(), field)?;
        if found != expected {
            return Err(DecodeError {
                offset: at as u64,
                field: self.name(field),
                kind: ErrorKind::BadMagic {
                    expected: format!("{:?}", String::from_utf8_lossy(expected)),
                    found: format!("{:02X?}", found),
                },
            });
        }
        Ok(())
    }

    read_le!(u8: u8, u16: u16, u32: u32, u64: u64, i8: i8, i16: i16, i32: i32, i64: i64, f32: f32, f64: f64);

    /// `count` groups of `N` little-endian f32, bounds-checked once and
    /// copied in one go (bytes swapped after on big-endian machines).
    pub fn f32_groups<const N: usize>(&mut self, count: usize, field: &str) -> Result<Vec<[f32; N]>>
    where
        [f32; N]: bytemuck::Pod,
    {
        self.check_count(count, 4 * N, field)?;
        let bytes = self.bytes(count * 4 * N, field)?;
        let mut out = vec![[0f32; N]; count];
        bytemuck::cast_slice_mut::<[f32; N], u8>(&mut out).copy_from_slice(bytes);
        if cfg!(target_endian = "big") {
            for w in bytemuck::cast_slice_mut::<[f32; N], u32>(&mut out) {
                *w = u32::from_le(*w);
            }
        }
        Ok(out)
    }

    /// `count` little-endian u16, bounds-checked once.
    pub fn u16s(&mut self, count: usize, field: &str) -> Result<Vec<u16>> {
        self.check_count(count, 2, field)?;
        let bytes = self.bytes(count * 2, field)?;
        Ok(bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect())
    }

    pub fn vec2(&mut self, field: &str) -> Result<[f32; 2]> {
        Ok([self.f32(field)?, self.f32(field)?])
    }

    pub fn vec3(&mut self, field: &str) -> Result<[f32; 3]> {
        Ok([self.f32(field)?, self.f32(field)?, self.f32(field)?])
    }

    /// Checks that `count` elements of `elem_size` bytes fit in the rest of the
    /// data before anything is allocated for them.
    #[inline]
    pub fn check_count(&self, count: usize, elem_size: usize, field: &str) -> Result<()> {
        let needed = count.saturating_mul(elem_size);
        if needed > self.remaining() {
            return Err(self.truncated(field, needed));
        }
        Ok(())
    }

    /// Reads `count` elements with `f`, after checking that at least
    /// `min_elem_size` bytes per element remain (bounded allocation).
    pub fn array<T>(
        &mut self,
        count: usize,
        min_elem_size: usize,
        field: &str,
        mut f: impl FnMut(&mut Self, usize) -> Result<T>,
    ) -> Result<Vec<T>> {
        self.check_count(count, min_elem_size, field)?;
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            out.push(f(self, i)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_reads_as_from_utf8_lossy_reads_it() {
        // std's lossy reading is the reference, for valid text and for
        // every kind of invalid sequence (a stray continuation byte, a
        // sequence cut short, an overlong form, a surrogate, a byte never
        // used in UTF-8).
        for bytes in [
            &b""[..],
            b"Suzanne",
            "d\u{e9}j\u{e0} \u{4e16}\u{754c} \u{1F600}".as_bytes(),
            b"a\x80b",
            b"\xE4\xB8",
            b"\xC0\xAF",
            b"\xED\xA0\x80",
            b"\xFFname\xFE",
            b"ok\0after nul",
        ] {
            assert_eq!(
                super::lossy_string(bytes),
                String::from_utf8_lossy(bytes),
                "{bytes:?}"
            );
        }
    }
}
