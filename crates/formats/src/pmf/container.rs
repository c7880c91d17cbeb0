//! The container: header, LZ4 blocks (bounded before they inflate),
//! sector records and string tables, and the decode entry points that
//! take a file through both steps (container, then the blocks' contents).

use super::*;

/// A string table: strings start at byte indices and end at a NUL.
pub(super) struct Strings<'a> {
    pub(super) data: &'a [u8],
    pub(super) which: &'static str,
}

impl Strings<'_> {
    pub(super) fn get(&self, r: &Reader, at: usize, offset: u32, field: &str) -> Result<Text> {
        let start = offset as usize;
        let tail = self
            .data
            .get(start..)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                r.err(
                    at,
                    field,
                    format!(
                        "{} string at byte {offset} is past the end of the table ({} bytes)",
                        self.which,
                        self.data.len()
                    ),
                )
            })?;
        let end = tail.iter().position(|&b| b == 0).ok_or_else(|| {
            r.err(
                at,
                field,
                format!("{} string at byte {offset} has no NUL", self.which),
            )
        })?;
        Ok(Text {
            offset,
            text: String::from_utf8_lossy(&tail[..end]).into_owned(),
        })
    }
}

/// Reads a NUL-terminated header string.
pub(super) fn cstring(r: &mut Reader, field: &str) -> Result<String> {
    let at = r.pos();
    let rest = r.peek_rest();
    let Some(n) = rest.iter().position(|&b| b == 0) else {
        return Err(DecodeError {
            offset: at as u64,
            field: r.name(field),
            kind: ErrorKind::Truncated {
                needed: rest.len() as u64 + 1,
                file_len: r.len() as u64,
            },
        });
    };
    let bytes = r.bytes(n + 1, field)?;
    Ok(String::from_utf8_lossy(&bytes[..n]).into_owned())
}

/// An LZ4 block as stored: where it starts in its container and its bytes.
pub(super) struct Block<'a> {
    pub(super) at: usize,
    pub(super) declared: usize,
    pub(super) data: &'a [u8],
}

/// Reads `<u32 decompressed> <u32 compressed> <bytes>`.
pub(super) fn block<'a>(r: &mut Reader<'a>, field: &str) -> Result<Block<'a>> {
    let declared = r.u32(&format!("{field} decompressed size"))? as usize;
    let csize = r.u32(&format!("{field} compressed size"))? as usize;
    let at = r.pos();
    let data = r.bytes(csize, field)?;
    Ok(Block { at, declared, data })
}

/// Inflates a raw LZ4 block to exactly `declared` bytes, refusing sizes its
/// compressed bytes could not produce or above [`MAX_BLOCK`] before
/// allocating.
pub fn inflate(data: &[u8], declared: usize) -> std::result::Result<Vec<u8>, String> {
    check_declared(data, declared)?;
    match lz4_flex::block::decompress(data, declared) {
        Ok(out) if out.len() == declared => Ok(out),
        Ok(out) => Err(format!(
            "inflates to {} bytes, not the declared {declared}",
            out.len()
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Refuses a declared size that the compressed bytes cannot expand to
/// (LZ4's best case: a 255-byte run per length byte, plus the last
/// literals) or above [`MAX_BLOCK`], before anything is allocated.
pub(super) fn check_declared(data: &[u8], declared: usize) -> std::result::Result<(), String> {
    let possible = data.len().saturating_mul(255).saturating_add(16);
    if declared > possible {
        return Err(format!(
            "declares {declared} bytes, more than its {} compressed bytes can hold",
            data.len()
        ));
    }
    if declared > MAX_BLOCK {
        return Err(format!(
            "declares {declared} bytes, above the {MAX_BLOCK}-byte cap"
        ));
    }
    Ok(())
}

/// As [`inflate`], into `scratch` (grown when it must, never shrunk or
/// cleared: the sector blocks and lightmaps of a map reuse one buffer, so
/// decoding pays no page faults per block).
pub(super) fn inflate_into<'s>(
    data: &[u8],
    declared: usize,
    scratch: &'s mut Vec<u8>,
) -> std::result::Result<&'s [u8], String> {
    check_declared(data, declared)?;
    if scratch.len() < declared {
        scratch.resize(declared, 0);
    }
    let out = &mut scratch[..declared];
    match lz4_flex::block::decompress_into(data, out) {
        Ok(n) if n == declared => Ok(out),
        Ok(n) => Err(format!(
            "inflates to {n} bytes, not the declared {declared}"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Reusable buffers: the shared sector blocks are inflated into one, and
/// the octree check marks the cubes that have a parent in the other.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) block: Vec<u8>,
    pub(super) claimed: Vec<bool>,
}

pub(super) fn inflate_block(r: &Reader, b: &Block, field: &str) -> Result<Vec<u8>> {
    inflate(b.data, b.declared).map_err(|msg| DecodeError {
        offset: b.at as u64,
        field: r.name(field),
        kind: ErrorKind::Compression(msg),
    })
}

/// Maps an error inside a decompressed block to the block's place in the
/// file: the block's offset, and the decompressed offset in the field text.
pub(super) fn in_block(e: DecodeError, r: &Reader, b: &Block, what: &str) -> DecodeError {
    let detail = match &e.kind {
        ErrorKind::Truncated { needed, file_len } => ErrorKind::Invalid(format!(
            "decompressed byte {:#X} needs {needed} byte{} but the block ends at {file_len:#X}",
            e.offset,
            if *needed == 1 { "" } else { "s" }
        )),
        ErrorKind::Invalid(m) => {
            ErrorKind::Invalid(format!("decompressed byte {:#X}: {m}", e.offset))
        }
        other => other.clone(),
    };
    DecodeError {
        offset: b.at as u64,
        field: format!("{} (LZ4 block): {}", r.name(what), e.field),
        kind: detail,
    }
}

/// Prefixes an error's field with where it happened (built only on the
/// error path: the hot loops format nothing).
pub(super) fn at_index(mut e: DecodeError, what: std::fmt::Arguments) -> DecodeError {
    e.field = format!("{what}: {}", e.field);
    e
}

pub(super) fn le_f32(b: &[u8]) -> f32 {
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// `n` little-endian u16s in one read.
pub(super) fn u16s(r: &mut Reader, n: usize, field: &str) -> Result<Vec<u16>> {
    r.check_count(n, 2, field)?;
    let b = r.bytes(n * 2, field)?;
    Ok(b.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect())
}

pub(super) fn read_u24(r: &mut Reader, field: &str) -> Result<u32> {
    let b: [u8; 3] = r.fixed(field)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
}

/// Inflates a block straight into a fresh vector of `T` (the file layout is
/// the memory layout: no copy out of a scratch buffer), sized to hold at
/// least `declared` bytes. The caller has run [`check_declared`]; the
/// values are still little-endian.
pub(super) fn inflate_pod<T: bytemuck::Pod>(
    data: &[u8],
    declared: usize,
) -> std::result::Result<Vec<T>, String> {
    let mut out: Vec<T> = bytemuck::zeroed_vec(declared.div_ceil(size_of::<T>()));
    let bytes = &mut bytemuck::cast_slice_mut::<T, u8>(&mut out)[..declared];
    match lz4_flex::block::decompress_into(data, bytes) {
        Ok(n) if n == declared => Ok(out),
        Ok(n) => Err(format!(
            "inflates to {n} bytes, not the declared {declared}"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Little-endian 4-byte words to native order, in place (nothing to do on
/// little-endian machines).
pub(super) fn words_from_le<T: bytemuck::Pod>(v: &mut [T]) {
    if cfg!(target_endian = "big") {
        for w in bytemuck::cast_slice_mut::<T, u32>(v) {
            *w = u32::from_le(*w);
        }
    }
}

/// A sector as the container lays it out: its blocks found and their
/// declared sizes checked, nothing inflated yet (its worker does that).
pub(super) struct RawSector<'a> {
    pub(super) load_radius: [u8; 3],
    /// Size exponent and block of each lightmap.
    pub(super) lightmaps: Vec<(u8, LuxelBlock<'a>)>,
    /// Base lightmap and block of each extra lightmap.
    pub(super) extra_lightmaps: Vec<(u8, LuxelBlock<'a>)>,
    pub(super) shared: Block<'a>,
    pub(super) client: Block<'a>,
}

/// The header's fields, up to the material count.
pub(super) struct Header {
    pub(super) version: (u8, u8),
    pub(super) name: String,
    pub(super) authors: String,
    pub(super) description: String,
    pub(super) created: u32,
    pub(super) gamemodes: Vec<String>,
    pub(super) difficulties: Vec<String>,
}

pub(super) fn header(r: &mut Reader) -> Result<Header> {
    r.magic(MAGIC, "magic")?;
    let major = r.u8("major version")?;
    let minor = r.u8("minor version")?;
    if major != 0 {
        return Err(r.err(4, "major version", format!("{major} (only 0.x is defined)")));
    }
    let name = cstring(r, "name")?;
    let authors = cstring(r, "authors")?;
    let description = cstring(r, "description")?;
    let created = r.u32("creation time")?;
    let mut names = |what: &str, max: u8| -> Result<Vec<String>> {
        let at = r.pos();
        let n = r.u8(&format!("{what} count"))?;
        if !(1..=max).contains(&n) {
            return Err(r.err(
                at,
                &format!("{what} count"),
                format!("{n} (must be 1..{max})"),
            ));
        }
        (0..n).map(|i| cstring(r, &format!("{what} {i}"))).collect()
    };
    let gamemodes = names("gamemode", 16)?;
    let difficulties = names("difficulty", 8)?;
    Ok(Header {
        version: (major, minor),
        name,
        authors,
        description,
        created,
        gamemodes,
        difficulties,
    })
}

/// Decodes a whole map.
pub fn decode(data: &[u8]) -> Result<Pmf> {
    decode_with_progress(data, &|_| {})
}

/// As [`decode`], telling `progress` how far it is (0..1) as sectors are
/// decoded, for a progress bar.
pub fn decode_with_progress(data: &[u8], progress: &dyn Fn(f32)) -> Result<Pmf> {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    decode_on(data, cores, progress)
}

/// As [`decode_with_progress`], decoding sectors on at most `threads`
/// threads (this one included; 1 decodes everything here). The result,
/// or the error, is the same whatever the count.
pub fn decode_on(data: &[u8], threads: usize, progress: &dyn Fn(f32)) -> Result<Pmf> {
    let mut r = Reader::new(data);
    let Header {
        version: (major, minor),
        name,
        authors,
        description,
        created,
        gamemodes,
        difficulties,
    } = header(&mut r)?;
    let material_count = r.u16("material count")? as usize;
    let dynamic_light_count = r.u16("dynamic light count")?;
    let fast_light_count = r.u16("fast light count")? as usize;
    let shared = block(&mut r, "shared data")?;
    let server = block(&mut r, "server data")?;
    let client = block(&mut r, "client data")?;
    let (sector_counts, sector_size_exp) = sector_grid(&mut r)?;
    let sector_count = sector_counts.iter().map(|&c| c as usize).product::<usize>();
    // A sector takes at least 3 + 1 + 1 + 4 + 2 + 16 bytes.
    let raw_sectors = r.array(sector_count, 27, "sectors", |r, i| {
        r.set_ctx(format!("sector {i}"));
        let s = raw_sector(r);
        r.clear_ctx();
        s
    })?;
    let server_table = block(&mut r, "server string table")?;
    let client_table = block(&mut r, "client string table")?;
    if r.remaining() > 0 {
        return Err(r.err(
            r.pos(),
            "end of file",
            format!("{} bytes after the client string table", r.remaining()),
        ));
    }
    let server_strings = inflate_block(&r, &server_table, "server string table")?;
    let client_strings = inflate_block(&r, &client_table, "client string table")?;
    check_string_table(&r, &server_strings, &server_table, "server string table")?;
    check_string_table(&r, &client_strings, &client_table, "client string table")?;
    let sstr = Strings {
        data: &server_strings,
        which: "server",
    };
    let cstr = Strings {
        data: &client_strings,
        which: "client",
    };

    let shared_materials = shared_data(&r, &shared, material_count)?;

    // Server data: teams and entities.
    let bytes = inflate_block(&r, &server, "server data")?;
    let mut br = Reader::new(&bytes);
    let (teams, entities) = server_data(&mut br, &sstr, material_count, dynamic_light_count)
        .and_then(|v| end_of_block(&br).map(|_| v))
        .map_err(|e| in_block(e, &r, &server, "server data"))?;

    let (appearances, fast_lights) =
        client_data(&r, &client, &cstr, material_count, fast_light_count)?;
    let materials = shared_materials
        .into_iter()
        .zip(appearances)
        .map(|(shared, appearance)| Material {
            appearance,
            ..shared
        })
        .collect();

    let limits = Limits {
        materials: material_count,
        dynamic_lights: dynamic_light_count as usize,
        fast_lights: fast_light_count,
    };
    let blocks_at: Vec<usize> = raw_sectors.iter().map(|s| s.shared.at).collect();
    progress(0.05);
    let (sectors, chunks) = decode_sectors(data, &raw_sectors, &limits, threads, progress)?;
    let map = Pmf {
        version: (major, minor),
        name,
        authors,
        description,
        created,
        gamemodes,
        difficulties,
        materials,
        dynamic_light_count,
        fast_lights,
        teams,
        entities,
        sector_counts,
        sector_size_exp,
        sectors,
        server_strings,
        client_strings,
    };
    validate_visibility(&map, &chunks, &blocks_at)?;
    Ok(map)
}

/// The sectors along each axis (at least 1 each) and the sector size's
/// power of two (at most 31).
fn sector_grid(r: &mut Reader) -> Result<([u8; 3], u8)> {
    let at = r.pos();
    let sector_counts: [u8; 3] = r.fixed("sector counts")?;
    if sector_counts.contains(&0) {
        return Err(r.err(
            at,
            "sector counts",
            format!("{sector_counts:?} (must be at least 1 along each axis)"),
        ));
    }
    let at = r.pos();
    let sector_size_exp = r.u8("sector size")?;
    if sector_size_exp > 31 {
        return Err(r.err(
            at,
            "sector size",
            format!("2^{sector_size_exp} (at most 2^31)"),
        ));
    }
    Ok((sector_counts, sector_size_exp))
}

/// A string table as inflated from block `b`: it must start and end with
/// a NUL (offset 0 is the empty string).
fn check_string_table(r: &Reader, table: &[u8], b: &Block, what: &str) -> Result<()> {
    if table.len() < 2 || table[0] != 0 || table[table.len() - 1] != 0 {
        return Err(r.err(
            b.at,
            what,
            "must start and end with a NUL (at least 2 bytes: the empty string at 0)",
        ));
    }
    Ok(())
}

/// The shared data block: each material's flags and physics (its
/// appearance, from the client data, left empty).
fn shared_data(r: &Reader, shared: &Block, material_count: usize) -> Result<Vec<Material>> {
    let bytes = inflate_block(r, shared, "shared data")?;
    let mut br = Reader::new(&bytes);
    br.array(material_count, 21, "material", |br, i| {
        br.set_ctx(format!("material {i}"));
        let at = br.pos();
        let flags = br.u8("flags")?;
        if flags & !3 != 0 {
            return Err(br.err(at, "flags", format!("{flags:#04X} (bits 7..2 must be 0)")));
        }
        let m = Material {
            has_alpha: flags & 2 != 0,
            is_fluid: flags & 1 != 0,
            speed_mul: br.f32("speed multiplier")?,
            accel_mul: br.f32("acceleration multiplier")?,
            min_damage_speed: br.f32("minimum damage speed")?,
            base_damage: br.f32("base damage")?,
            damage_per_mps: br.f32("damage per m/s")?,
            appearance: Text::default(),
        };
        br.clear_ctx();
        Ok(m)
    })
    .and_then(|m| end_of_block(&br).map(|_| m))
    .map_err(|e| in_block(e, r, shared, "shared data"))
}

/// The client data block: each material's appearance (a client string)
/// and the fast lights' colours.
fn client_data(
    r: &Reader,
    client: &Block,
    cstr: &Strings,
    material_count: usize,
    fast_light_count: usize,
) -> Result<(Vec<Text>, Vec<[f32; 3]>)> {
    let bytes = inflate_block(r, client, "client data")?;
    let mut br = Reader::new(&bytes);
    (|| {
        let paths = br.array(material_count, 4, "material appearance", |br, i| {
            let at = br.pos();
            let off = br.u32(&format!("material {i} appearance"))?;
            cstr.get(br, at, off, &format!("material {i} appearance"))
        })?;
        let lights = br.array(fast_light_count, 12, "fast light", |br, i| {
            br.vec3(&format!("fast light {i} color"))
        })?;
        end_of_block(&br)?;
        Ok((paths, lights))
    })()
    .map_err(|e| in_block(e, r, client, "client data"))
}

/// Decodes the sectors, which are independent, on up to `threads` threads
/// (this one among them). Workers take the next sector in file order, so
/// when one fails, every sector before it has been taken and finishes, and
/// the error reported is the first in the file, as a sequential decode
/// would report it. `progress` is only called on this thread.
pub(super) fn decode_sectors(
    data: &[u8],
    raw: &[RawSector],
    limits: &Limits,
    threads: usize,
    progress: &dyn Fn(f32),
) -> Result<(Vec<Sector>, Vec<Vec<u16>>)> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    /// A decoded sector and its chunk cubes.
    type Decoded = Result<(Sector, Vec<u16>)>;
    let n = raw.len();
    let (next, done, failed) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicBool::new(false),
    );
    // Decodes sectors until none is left or one failed; returns them with
    // their indices.
    let work = |report: &dyn Fn(usize)| -> Vec<(usize, Decoded)> {
        let mut scratch = Scratch::default();
        let mut out = Vec::new();
        while !failed.load(Relaxed) {
            let i = next.fetch_add(1, Relaxed);
            let Some(s) = raw.get(i) else { break };
            let mut r = Reader::new(data);
            r.set_ctx(format!("sector {i}"));
            let mut chunks = Vec::new();
            let result = sector(&r, s, limits, &mut scratch, &mut chunks).map(|s| (s, chunks));
            if result.is_err() {
                failed.store(true, Relaxed);
            }
            out.push((i, result));
            report(done.fetch_add(1, Relaxed) + 1);
        }
        out
    };
    let mut slots: Vec<Option<Decoded>> = (0..n).map(|_| None).collect();
    std::thread::scope(|scope| {
        // A worker that cannot start leaves its share to the others.
        let workers: Vec<_> = (1..threads.min(n))
            .filter_map(|t| {
                std::thread::Builder::new()
                    .name(format!("pmf sectors {t}"))
                    .spawn_scoped(scope, || work(&|_| {}))
                    .ok()
            })
            .collect();
        let mine = work(&|d| progress(0.05 + 0.95 * d as f32 / n.max(1) as f32));
        let theirs = workers.into_iter().flat_map(|w| {
            w.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        for (i, result) in mine.into_iter().chain(theirs) {
            slots[i] = Some(result);
        }
    });
    let mut sectors = Vec::with_capacity(n);
    let mut chunk_lists = Vec::with_capacity(n);
    for (i, slot) in slots.into_iter().enumerate() {
        match slot {
            Some(Ok((s, c))) => {
                sectors.push(s);
                chunk_lists.push(c);
            }
            Some(Err(e)) => return Err(e),
            // Only sectors after a failed one are left undone.
            None => {
                return Err(DecodeError::invalid(
                    0,
                    format!("sector {i}"),
                    "not decoded (an earlier sector failed)",
                ));
            }
        }
    }
    progress(1.0);
    Ok((sectors, chunk_lists))
}

/// Every LZ4 block of a map as `(compressed bytes, declared size)`, in file
/// order, found by walking the container as [`decode`] does (the
/// benchmark inflates them alone to compare with a full decode). That
/// includes the extra lightmaps of dynamic lights, which are LZ4 blocks
/// inside the inflated client sector blocks (copied out here).
pub fn lz4_blocks(data: &[u8]) -> Result<Vec<(std::borrow::Cow<'_, [u8]>, usize)>> {
    let mut r = Reader::new(data);
    header(&mut r)?;
    r.bytes(6, "counts")?;
    let mut out = Vec::new();
    for f in ["shared data", "server data", "client data"] {
        let b = block(&mut r, f)?;
        out.push((b.data.into(), b.declared));
    }
    let counts: [u8; 3] = r.fixed("sector counts")?;
    r.u8("sector size")?;
    let n = counts.iter().map(|&c| c as usize).product::<usize>();
    for _ in 0..n {
        r.bytes(3, "load radius")?;
        let lightmaps = r.u8("lightmap count minus 1")? as usize + 1;
        let mut sizes = Vec::new();
        for _ in 0..lightmaps {
            let exp = r.u8("lightmap size")?.min(MAX_LIGHTMAP_EXP);
            let csize = r.u32("lightmap compressed size")? as usize;
            let luxels = 1usize << (2 * exp as u32);
            out.push((r.bytes(csize, "lightmap")?.into(), luxels * 2));
            sizes.push(luxels * 2);
        }
        let extra = r.u16("extra lightmap count")?;
        for _ in 0..extra {
            let base = r.u8("base lightmap")? as usize;
            let csize = r.u32("extra lightmap compressed size")? as usize;
            out.push((
                r.bytes(csize, "extra lightmap")?.into(),
                sizes.get(base).copied().unwrap_or(0),
            ));
        }
        let shared = block(&mut r, "shared sector data")?;
        out.push((shared.data.into(), shared.declared));
        let client = block(&mut r, "client sector data")?;
        out.push((client.data.into(), client.declared));
        let bytes = inflate_block(&r, &client, "client sector data")?;
        let mut br = Reader::new(&bytes);
        let triangles = read_u24(&mut br, "triangle count")? as usize;
        br.bytes(triangles.saturating_mul(84), "triangles")?;
        for _ in 0..br.u16("affecting dynamic light count")? {
            br.u16("light")?;
            for _ in 0..br.u8("extra lightmap count")? {
                let base = br.u8("base lightmap")? as usize;
                let csize = br.u32("extra lightmap compressed size")? as usize;
                out.push((
                    br.bytes(csize, "extra lightmap")?.to_vec().into(),
                    sizes.get(base).copied().unwrap_or(0),
                ));
            }
        }
    }
    for f in ["server string table", "client string table"] {
        let b = block(&mut r, f)?;
        out.push((b.data.into(), b.declared));
    }
    Ok(out)
}

pub(super) fn end_of_block(r: &Reader) -> Result<()> {
    if r.remaining() > 0 {
        return Err(r.err(
            r.pos(),
            "end of block",
            format!("{} unread bytes after the last record", r.remaining()),
        ));
    }
    Ok(())
}

pub(super) fn raw_sector<'a>(r: &mut Reader<'a>) -> Result<RawSector<'a>> {
    let load_radius: [u8; 3] = r.fixed("load radius")?;
    let count = r.u8("lightmap count minus 1")? as usize + 1;
    let lightmaps = r.array(count, 5, "lightmap", |r, i| {
        let at = r.pos();
        let size_exp = r.u8(&format!("lightmap {i} size"))?;
        if size_exp > MAX_LIGHTMAP_EXP {
            return Err(r.err(
                at,
                &format!("lightmap {i} size"),
                format!("2^{size_exp} luxels a side (at most 2^{MAX_LIGHTMAP_EXP})"),
            ));
        }
        let luxels = 1usize << (2 * size_exp as u32);
        Ok((size_exp, luxel_block(r, luxels, &format!("lightmap {i}"))?))
    })?;
    let count = r.u16("extra lightmap count")? as usize;
    let extra_lightmaps = r.array(count, 5, "extra lightmap", |r, i| {
        let field = format!("extra lightmap {i}");
        let sizes = |base: usize| lightmaps.get(base).map(|l| l.1.luxels);
        extra_lightmap_block(r, lightmaps.len(), &sizes, &field)
    })?;
    let shared = block(r, "shared sector data")?;
    let client = block(r, "client sector data")?;
    Ok(RawSector {
        load_radius,
        lightmaps,
        extra_lightmaps,
        shared,
        client,
    })
}

/// A lightmap's LZ4 block of `luxels` RGB565 luxels.
pub(super) struct LuxelBlock<'a> {
    pub(super) at: usize,
    pub(super) data: &'a [u8],
    pub(super) luxels: usize,
}

/// `<u32 compressed size> <LZ4 block>` of `luxels` RGB565 luxels, its
/// declared size checked but not inflated yet.
pub(super) fn luxel_block<'a>(
    r: &mut Reader<'a>,
    luxels: usize,
    field: &str,
) -> Result<LuxelBlock<'a>> {
    let csize = r.u32(&format!("{field} compressed size"))? as usize;
    let at = r.pos();
    let data = r.bytes(csize, field)?;
    check_declared(data, luxels * 2).map_err(|msg| DecodeError {
        offset: at as u64,
        field: r.name(field),
        kind: ErrorKind::Compression(msg),
    })?;
    Ok(LuxelBlock { at, data, luxels })
}

/// Inflates a lightmap straight into its luxel vector.
pub(super) fn inflate_luxels(
    r: &Reader,
    b: &LuxelBlock,
    field: &dyn Fn() -> String,
) -> Result<Vec<u16>> {
    let mut luxels = inflate_pod::<u16>(b.data, b.luxels * 2).map_err(|msg| DecodeError {
        offset: b.at as u64,
        field: r.name(&field()),
        kind: ErrorKind::Compression(msg),
    })?;
    if cfg!(target_endian = "big") {
        for l in &mut luxels {
            *l = u16::from_le(*l);
        }
    }
    Ok(luxels)
}

/// `<u8 base lightmap> <luxel block>`: an extra lightmap the size of its
/// base (`sizes` gives a lightmap's luxel count).
pub(super) fn extra_lightmap_block<'a>(
    r: &mut Reader<'a>,
    lightmap_count: usize,
    sizes: &dyn Fn(usize) -> Option<usize>,
    field: &str,
) -> Result<(u8, LuxelBlock<'a>)> {
    let at = r.pos();
    let base = r.u8(&format!("{field} base lightmap"))?;
    let Some(luxels) = sizes(base as usize) else {
        return Err(r.err(
            at,
            &format!("{field} base lightmap"),
            format!("{base} (the sector has {lightmap_count} lightmaps)"),
        ));
    };
    Ok((base, luxel_block(r, luxels, field)?))
}
