//! Sector blocks: props, the cube octree with its triangles, lightmaps,
//! lights and visibility chunks, each index checked.

use super::*;

pub(super) struct Limits {
    pub(super) materials: usize,
    pub(super) dynamic_lights: usize,
    pub(super) fast_lights: usize,
}

/// What a sector's cubes may point at, known once its client block is read.
pub(super) struct CubeLimits {
    pub(super) materials: usize,
    pub(super) props: usize,
    pub(super) lightmaps: usize,
    pub(super) triangles: u64,
    pub(super) dynamic_refs: u64,
    pub(super) fast_refs: u64,
}

/// A sector's client block: triangles, lights and light references.
pub(super) struct ClientSector {
    pub(super) triangles: Vec<Triangle>,
    pub(super) dynamic_lights: Vec<AffectingDynamicLight>,
    pub(super) fast_lights: Vec<AffectingFastLight>,
    pub(super) dynamic_light_refs: Vec<u16>,
    pub(super) fast_light_refs: Vec<u16>,
}

/// Decodes one sector: the client block first (so that the cubes can be
/// checked against its triangle and light-reference counts as they are
/// parsed), then the shared block's props and octree. Chunk cubes are
/// listed in `chunks` for the visibility check once every sector is known.
pub(super) fn sector(
    r: &Reader,
    s: &RawSector,
    limits: &Limits,
    scratch: &mut Scratch,
    chunks: &mut Vec<u16>,
) -> Result<Sector> {
    let lightmaps = s
        .lightmaps
        .iter()
        .enumerate()
        .map(|(i, (size_exp, b))| {
            Ok(Lightmap {
                size_exp: *size_exp,
                luxels: inflate_luxels(r, b, &|| format!("lightmap {i}"))?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let extra_lightmaps = s
        .extra_lightmaps
        .iter()
        .enumerate()
        .map(|(i, (base, b))| {
            Ok(ExtraLightmap {
                base: *base,
                luxels: inflate_luxels(r, b, &|| format!("extra lightmap {i}"))?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let client = client_block(r, &s.client, &lightmaps, limits)?;
    let Scratch { block, claimed } = scratch;
    let bytes =
        inflate_into(s.shared.data, s.shared.declared, block).map_err(|msg| DecodeError {
            offset: s.shared.at as u64,
            field: r.name("shared sector data"),
            kind: ErrorKind::Compression(msg),
        })?;
    let mut br = Reader::new(bytes);
    let (props, cubes) = (|| {
        let n = br.u16("prop count")? as usize;
        let props = br.array(n, 24, "prop", |br, i| {
            (|| {
                Ok(Prop {
                    origin: br.vec3("origin")?,
                    radius: br.vec3("radius")?,
                })
            })()
            .map_err(|e: DecodeError| at_index(e, format_args!("prop {i}")))
        })?;
        let n = br.u16("cube count minus 1")? as usize + 1;
        let lim = CubeLimits {
            materials: limits.materials,
            props: props.len(),
            lightmaps: lightmaps.len(),
            triangles: client.triangles.len() as u64,
            dynamic_refs: client.dynamic_light_refs.len() as u64,
            fast_refs: client.fast_light_refs.len() as u64,
        };
        claimed.clear();
        claimed.resize(n, false);
        let cubes = br.array(n, 1, "cube", |br, i| {
            let c = cube(br, &lim, claimed).map_err(|e| at_index(e, format_args!("cube {i}")))?;
            if c.chunk.is_some() {
                chunks.push(i as u16);
            }
            Ok(c)
        })?;
        end_of_block(&br)?;
        Ok((props, cubes))
    })()
    .map_err(|e| in_block(e, r, &s.shared, "shared sector data"))?;
    Ok(Sector {
        load_radius: s.load_radius,
        lightmaps,
        extra_lightmaps,
        props,
        cubes,
        triangles: client.triangles,
        dynamic_lights: client.dynamic_lights,
        fast_lights: client.fast_lights,
        dynamic_light_refs: client.dynamic_light_refs,
        fast_light_refs: client.fast_light_refs,
    })
}

/// The client sector block, inflated straight into the memory of the
/// triangles: it starts with their u24 count and then the 84-byte records,
/// already in `Triangle`'s layout, so once the rest of the block is read
/// they move 3 bytes down in place instead of being copied out.
pub(super) fn client_block(
    r: &Reader,
    b: &Block,
    lightmaps: &[Lightmap],
    limits: &Limits,
) -> Result<ClientSector> {
    let mut triangles = check_declared(b.data, b.declared)
        .and_then(|()| inflate_pod::<Triangle>(b.data, b.declared))
        .map_err(|msg| DecodeError {
            offset: b.at as u64,
            field: r.name("client sector data"),
            kind: ErrorKind::Compression(msg),
        })?;
    let bytes = &bytemuck::cast_slice::<Triangle, u8>(&triangles)[..b.declared];
    let mut br = Reader::new(bytes);
    let (n, dynamic_lights, fast_lights, dynamic_light_refs, fast_light_refs) = (|| {
        let n = read_u24(&mut br, "triangle count")? as usize;
        br.check_count(n, 84, "triangles")?;
        br.bytes(n * 84, "triangles")?;
        let count = br.u16("affecting dynamic light count")? as usize;
        let dynamic_lights = br.array(count, 3, "affecting dynamic light", |br, i| {
            dynamic_light(br, lightmaps, limits)
                .map_err(|e| at_index(e, format_args!("affecting dynamic light {i}")))
        })?;
        let count = br.u16("affecting fast light count")? as usize;
        let points = n as u64 * 3;
        let fast_lights = br.array(count, 6, "affecting fast light", |br, i| {
            fast_light(br, points, limits)
                .map_err(|e| at_index(e, format_args!("affecting fast light {i}")))
        })?;
        let refs = |br: &mut Reader, what: &str, limit: usize| -> Result<Vec<u16>> {
            let n = br.u32(&format!("{what} reference count"))? as usize;
            let at = br.pos();
            let v = u16s(br, n, &format!("{what} references"))?;
            if let Some(i) = v.iter().position(|&x| x as usize >= limit) {
                return Err(br.err(
                    at + 2 * i,
                    &format!("{what} reference {i}"),
                    format!("light {} (the map has {limit})", v[i]),
                ));
            }
            Ok(v)
        };
        let dynamic_light_refs = refs(&mut br, "dynamic light", limits.dynamic_lights)?;
        let fast_light_refs = refs(&mut br, "fast light", limits.fast_lights)?;
        end_of_block(&br)?;
        Ok((
            n,
            dynamic_lights,
            fast_lights,
            dynamic_light_refs,
            fast_light_refs,
        ))
    })()
    .map_err(|e| in_block(e, r, b, "client sector data"))?;
    bytemuck::cast_slice_mut::<Triangle, u8>(&mut triangles).copy_within(3..3 + n * 84, 0);
    triangles.truncate(n);
    triangles.shrink_to_fit();
    words_from_le(&mut triangles);
    Ok(ClientSector {
        triangles,
        dynamic_lights,
        fast_lights,
        dynamic_light_refs,
        fast_light_refs,
    })
}

pub(super) fn dynamic_light(
    br: &mut Reader,
    lightmaps: &[Lightmap],
    limits: &Limits,
) -> Result<AffectingDynamicLight> {
    let at = br.pos();
    let light = br.u16("light")?;
    if light as usize >= limits.dynamic_lights {
        return Err(br.err(
            at,
            "light",
            format!("light {light} (the map has {})", limits.dynamic_lights),
        ));
    }
    let n = br.u8("extra lightmap count")? as usize;
    let extra_lightmaps = br.array(n, 5, "extra lightmap", |br, j| {
        let field = format!("extra lightmap {j}");
        let sizes = |base: usize| lightmaps.get(base).map(|l| l.luxels.len());
        let (base, b) = extra_lightmap_block(br, lightmaps.len(), &sizes, &field)?;
        let luxels = inflate_luxels(br, &b, &|| field.clone())?;
        Ok(ExtraLightmap { base, luxels })
    })?;
    Ok(AffectingDynamicLight {
        light,
        extra_lightmaps,
    })
}

pub(super) fn fast_light(
    br: &mut Reader,
    point_count: u64,
    limits: &Limits,
) -> Result<AffectingFastLight> {
    let at = br.pos();
    let light = br.u16("light")?;
    if light as usize >= limits.fast_lights {
        return Err(br.err(
            at,
            "light",
            format!("light {light} (the map has {})", limits.fast_lights),
        ));
    }
    let n = br.u32("affected point count")? as usize;
    br.check_count(n, 8, "affected points")?;
    let at = br.pos();
    let mut points = Vec::with_capacity(n);
    for (j, p) in br
        .bytes(n * 8, "affected points")?
        .chunks_exact(8)
        .enumerate()
    {
        let point = u32::from_le_bytes([p[5], p[6], p[7], 0]);
        if point as u64 >= point_count {
            return Err(br.err(
                at + j * 8 + 5,
                &format!("point {j}"),
                format!("point {point} (the sector has {point_count} triangle points)"),
            ));
        }
        points.push(AffectedPoint {
            multiplier: le_f32(p),
            lightmap_group: p[4],
            point,
        });
    }
    Ok(AffectingFastLight { light, points })
}

pub(super) fn le_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub(super) fn le_u24(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], 0])
}

pub(super) fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// One cube record, checked as it is read: every fixed-size part is taken
/// with one bounds check, and the octree (children in range, each cube the
/// child of at most one parent and never the root: from cube 0 the octree
/// is a tree without cycles), triangle ranges, lightmap, materials, props
/// and light-reference ranges are checked against `lim`. `claimed` marks
/// the cubes some parent already has as a child.
///
/// It and the readers of its parts are inlined into the sector loop, the
/// map decoder's hottest (each part read as a fixed-size array).
#[inline(always)]
pub(super) fn cube(r: &mut Reader, lim: &CubeLimits, claimed: &mut [bool]) -> Result<Cube> {
    let at = r.pos();
    let t = r.u8("type")?;
    if t & 0xC0 != 0 || t & 0x0F > 5 {
        return Err(r.err(
            at,
            "type",
            format!("{t:#04X} (bits 7..6 must be 0 and bits 3..0 a type 0..5)"),
        ));
    }
    let lighting = if t & 0x10 != 0 {
        Some(cube_lighting(r, lim)?)
    } else {
        None
    };
    let chunk = if t & 0x20 != 0 {
        Some(Box::new(chunk(r, lim.props)?))
    } else {
        None
    };
    let kind = match t & 0x0F {
        0 => CubeKind::Empty,
        1 => CubeKind::Parent(children(r, claimed)?),
        2 => solid(r, lim)?,
        3 => angled(r, lim)?,
        4 => ext_solid(r, lim)?,
        _ => ext_angled(r, lim)?,
    };
    Ok(Cube {
        lighting,
        chunk,
        kind,
    })
}

/// A lit cube's base light and its dynamic and fast light references,
/// each range within the sector's.
#[inline(always)]
fn cube_lighting(r: &mut Reader, lim: &CubeLimits) -> Result<CubeLighting> {
    let at = r.pos();
    let b: &[u8; 15] = r.fixed_ref("lighting data")?;
    let l = CubeLighting {
        base_light: [b[0], b[1], b[2]],
        dynamic_index: le_u32(b, 3),
        dynamic_count: le_u16(b, 7),
        fast_index: le_u32(b, 9),
        fast_count: le_u16(b, 13),
    };
    let (first, end) = (
        l.dynamic_index,
        l.dynamic_index as u64 + l.dynamic_count as u64,
    );
    if end > lim.dynamic_refs {
        return Err(r.err(
            at + 3,
            "dynamic light references",
            format!(
                "dynamic light references {first}..{end} past the sector's {}",
                lim.dynamic_refs
            ),
        ));
    }
    let (first, end) = (l.fast_index, l.fast_index as u64 + l.fast_count as u64);
    if end > lim.fast_refs {
        return Err(r.err(
            at + 9,
            "fast light references",
            format!(
                "fast light references {first}..{end} past the sector's {}",
                lim.fast_refs
            ),
        ));
    }
    Ok(l)
}

/// A parent cube's eight children: each a cube of the sector, not the
/// root, and no other parent's (marked in `claimed` as it is taken).
#[inline(always)]
fn children(r: &mut Reader, claimed: &mut [bool]) -> Result<[u16; 8]> {
    let at = r.pos();
    let b: &[u8; 16] = r.fixed_ref("children")?;
    let children: [u16; 8] = std::array::from_fn(|i| le_u16(b, 2 * i));
    for (k, &c) in children.iter().enumerate() {
        let c = c as usize;
        if c >= claimed.len() {
            return Err(r.err(
                at + 2 * k,
                "children",
                format!(
                    "child {k} is cube {c}, past the sector's {} cubes",
                    claimed.len()
                ),
            ));
        }
        if c == 0 || claimed[c] {
            return Err(r.err(
                at + 2 * k,
                "children",
                format!("child {k} is cube {c}, already in the octree (a cycle or a shared child)"),
            ));
        }
        claimed[c] = true;
    }
    Ok(children)
}

/// A solid cube: one material, its lightmap and first triangle, and the
/// faces it draws (two triangles each).
#[inline(always)]
fn solid(r: &mut Reader, lim: &CubeLimits) -> Result<CubeKind> {
    let at = r.pos();
    let b: &[u8; 7] = r.fixed_ref("solid cube (material, lightmap, triangle index, faces)")?;
    let faces = b[6];
    if faces & 0xC0 != 0 {
        return Err(r.err(
            at + 6,
            "faces",
            format!("{faces:#04X} (bits 7..6 must be 0)"),
        ));
    }
    let (material, lightmap, triangle) = (le_u16(b, 0), b[2], le_u24(b, 3));
    check_refs(
        r,
        at,
        &[material],
        lightmap,
        triangle,
        2 * faces.count_ones(),
        lim,
    )?;
    Ok(CubeKind::Solid {
        material,
        lightmap,
        triangle,
        faces,
    })
}

/// An angled cube: one material, its lightmap and first triangle, seven
/// 2-bit triangle counts, and its fill, pitch and yaw.
#[inline(always)]
fn angled(r: &mut Reader, lim: &CubeLimits) -> Result<CubeKind> {
    let at = r.pos();
    let b: &[u8; 20] = r.fixed_ref(
        "angled cube (material, lightmap, triangle index, triangle counts, fill, pitch, yaw)",
    )?;
    let bits = le_u16(b, 6);
    if bits & 0xC000 != 0 {
        return Err(r.err(
            at + 6,
            "triangle counts",
            format!("{bits:#06X} (bits 15..14 must be 0)"),
        ));
    }
    let (material, lightmap, triangle) = (le_u16(b, 0), b[2], le_u24(b, 3));
    let counts: [u8; 7] = std::array::from_fn(|i| ((bits >> (12 - 2 * i)) & 3) as u8);
    let count = counts.iter().map(|&c| c as u32).sum();
    check_refs(r, at, &[material], lightmap, triangle, count, lim)?;
    Ok(CubeKind::Angled {
        material,
        lightmap,
        triangle,
        counts,
        fill: le_f32(&b[8..]),
        pitch: le_f32(&b[12..]),
        yaw: le_f32(&b[16..]),
    })
}

/// An extsolid cube: a material a face, its lightmap and first triangle,
/// and a triangle count a face.
#[inline(always)]
fn ext_solid(r: &mut Reader, lim: &CubeLimits) -> Result<CubeKind> {
    let at = r.pos();
    let b: &[u8; 22] =
        r.fixed_ref("extsolid cube (face materials, lightmap, triangle index, triangle counts)")?;
    let materials: [u16; 6] = std::array::from_fn(|i| le_u16(b, 2 * i));
    let (lightmap, triangle) = (b[12], le_u24(b, 13));
    let counts: [u8; 6] = std::array::from_fn(|i| b[16 + i]);
    let count = counts.iter().map(|&c| c as u32).sum();
    check_refs(r, at, &materials, lightmap, triangle, count, lim)?;
    Ok(CubeKind::ExtSolid {
        materials,
        lightmap,
        triangle,
        counts,
    })
}

/// An extangled cube: a material a face, its lightmap and first triangle,
/// seven triangle counts, and its fill, pitch and yaw.
#[inline(always)]
fn ext_angled(r: &mut Reader, lim: &CubeLimits) -> Result<CubeKind> {
    let at = r.pos();
    let b: &[u8; 35] = r.fixed_ref(
        "extangled cube (face materials, lightmap, triangle index, triangle counts, fill, pitch, yaw)",
    )?;
    let materials: [u16; 6] = std::array::from_fn(|i| le_u16(b, 2 * i));
    let (lightmap, triangle) = (b[12], le_u24(b, 13));
    let counts: [u8; 7] = std::array::from_fn(|i| b[16 + i]);
    let count = counts.iter().map(|&c| c as u32).sum();
    check_refs(r, at, &materials, lightmap, triangle, count, lim)?;
    Ok(CubeKind::ExtAngled {
        materials,
        lightmap,
        triangle,
        counts,
        fill: le_f32(&b[23..]),
        pitch: le_f32(&b[27..]),
        yaw: le_f32(&b[31..]),
    })
}

/// A solid or angled cube's triangles, lightmap and materials in range
/// (checked on the values before the cube is built: a `CubeKind` passed by
/// reference is assembled in memory and read back, which stalls).
#[inline]
pub(super) fn check_refs(
    r: &Reader,
    at: usize,
    materials: &[u16],
    lightmap: u8,
    first: u32,
    count: u32,
    lim: &CubeLimits,
) -> Result<()> {
    if first as u64 + count as u64 > lim.triangles {
        return Err(r.err(
            at,
            "triangle index",
            format!(
                "uses triangles {first}..{} but the sector has {}",
                first as u64 + count as u64,
                lim.triangles
            ),
        ));
    }
    if lightmap as usize >= lim.lightmaps {
        return Err(r.err(
            at,
            "lightmap",
            format!(
                "uses lightmap {lightmap} but the sector has {}",
                lim.lightmaps
            ),
        ));
    }
    if let Some(&m) = materials.iter().find(|&&m| m as usize >= lim.materials) {
        return Err(r.err(
            at,
            "material",
            format!("uses material {m} but the map has {}", lim.materials),
        ));
    }
    Ok(())
}

/// A chunk cube's data: props in range; visible sectors are checked once
/// every sector is decoded ([`validate_visibility`]).
pub(super) fn chunk(r: &mut Reader, prop_count: usize) -> Result<Chunk> {
    let n = r.u16("chunk prop count")? as usize;
    let at = r.pos();
    let props = u16s(r, n, "chunk props")?;
    if let Some(i) = props.iter().position(|&p| p as usize >= prop_count) {
        return Err(r.err(
            at + 2 * i,
            &format!("chunk prop {i}"),
            format!("prop {} (the sector has {prop_count})", props[i]),
        ));
    }
    let n = r.u8("visible sector count")? as usize;
    let visible = r.array(n, 5, "visible sector", |r, i| {
        (|| {
            let sector: [u8; 3] = r.fixed("visible sector")?;
            let n = r.u16("visible cube count minus 1")? as usize + 1;
            let cubes = u16s(r, n, "visible cubes")?;
            Ok(VisibleSector { sector, cubes })
        })()
        .map_err(|e: DecodeError| at_index(e, format_args!("visible sector {i}")))
    })?;
    Ok(Chunk {
        props,
        visible,
        visibility_index: r.u32("visibility data index")?,
        visibility_count: r.u32("visibility cube count")?,
    })
}

/// Chunk cubes' visible sectors exist and their cube lists name cubes of
/// those sectors. `chunks[s]` lists sector `s`'s chunk cubes.
pub(super) fn validate_visibility(
    map: &Pmf,
    chunks: &[Vec<u16>],
    blocks_at: &[usize],
) -> Result<()> {
    for (si, (s, chunk_cubes)) in map.sectors.iter().zip(chunks).enumerate() {
        for &ci in chunk_cubes {
            let Some(chunk) = &s.cubes[ci as usize].chunk else {
                continue;
            };
            for v in &chunk.visible {
                let field = || {
                    format!(
                        "sector {si}: shared sector data (LZ4 block): cube {ci}: visible sector {:?}",
                        v.sector
                    )
                };
                let at = blocks_at[si] as u64;
                let Some(target) = map.sector_index(v.sector) else {
                    return Err(DecodeError::invalid(
                        at,
                        field(),
                        format!("outside the {:?} sector grid", map.sector_counts),
                    ));
                };
                let n = map.sectors[target].cubes.len();
                if let Some(&bad) = v.cubes.iter().find(|&&x| x as usize >= n) {
                    return Err(DecodeError::invalid(
                        at,
                        field(),
                        format!("cube {bad}, but that sector has {n} cubes"),
                    ));
                }
            }
        }
    }
    Ok(())
}
