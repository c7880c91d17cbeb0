//! PlatinumSrc map (`.pmf`) decoder: `specs/pmf.txt` and
//! `specs/pmf-entities.txt` for the layout, `notes/pmf-decisions.md` where
//! they are silent; what neither settles is decided in `docs/formats.md`.
//!
//! A map is a header, three LZ4 blocks (shared, server and client data), a
//! grid of sectors (each with lightmaps and two LZ4 blocks of its own: props
//! and a cube octree; triangles and lighting), then the server and client
//! string tables that every string of the file points into. Decoding runs in
//! two steps: the container first (header, blocks, sectors, string tables),
//! then the blocks' contents, once the strings they name can be resolved.
//!
//! Files: `types` (the decoded map), `entities` (the entity kind
//! tables and values), `container` (header, blocks, strings, the decode
//! entry points), `sectors` (props, octrees, lighting, visibility) and
//! `server` (teams and entity records).
//!
//! Bounds: a count never allocates more than the bytes that could back it;
//! an LZ4 block's declared size is a hard cap checked against what its
//! compressed bytes could expand to (LZ4 expands at most 255:1) and against
//! [`MAX_BLOCK`] before anything is allocated, and the block must inflate to
//! exactly that size. Every index (child cube, triangle, lightmap, material,
//! prop, sector, light, string, entity record) is checked.

mod container;
mod entities;
mod sectors;
mod server;
mod types;

use crate::{DecodeError, ErrorKind, Reader, Result};
use container::*;
pub use container::{decode, decode_on, decode_with_progress, inflate, lz4_blocks};
pub use entities::*;
use sectors::*;
use server::*;
pub use types::*;

pub const MAGIC: &[u8; 4] = b"PMF\0";
/// Largest decompressed block accepted (a documented cap: 256 MiB).
pub const MAX_BLOCK: usize = 256 << 20;
/// Largest lightmap side exponent accepted: 2^12 = 4096 luxels a side.
pub const MAX_LIGHTMAP_EXP: u8 = 12;
