//! Model 3D writer for tests and generated assets: writes an [`M3d`] with
//! exactly the variable types in `m.types`, so tests can build a file of any
//! width combination and record kind. `compress` stores the payload as zlib.
//!
//! Values must be representable in the chosen types (colours present in the
//! colour map for 1- and 2-byte colour indices; coordinates in -1..1 for
//! integer types); otherwise the writer returns an error naming the field.

use super::m3d::*;

struct W {
    out: Vec<u8>,
    t: Types,
}

impl W {
    fn idx(&mut self, size: u8, v: u32, field: &str) -> Result<(), String> {
        match size {
            0 => {}
            1 => {
                let b = match v {
                    NONE => 255,
                    QUATERNION => 254,
                    v if v <= 253 => v as u8,
                    _ => return Err(format!("{field}: {v} does not fit a 1-byte index")),
                };
                self.out.push(b);
            }
            2 => {
                let b = match v {
                    NONE => 65535,
                    QUATERNION => 65534,
                    v if v <= 65533 => v as u16,
                    _ => return Err(format!("{field}: {v} does not fit a 2-byte index")),
                };
                self.out.extend(b.to_le_bytes());
            }
            4 => self.out.extend(v.to_le_bytes()),
            s => return Err(format!("{field}: index size {s}")),
        }
        Ok(())
    }

    fn coord(&mut self, x: f32) {
        match self.t.vc {
            1 => self
                .out
                .push((x * 127.0).round().clamp(-128.0, 127.0) as i8 as u8),
            2 => self
                .out
                .extend(((x * 32767.0).round().clamp(-32768.0, 32767.0) as i16).to_le_bytes()),
            4 => self.out.extend(x.to_le_bytes()),
            _ => self.out.extend((x as f64).to_le_bytes()),
        }
    }

    fn color(&mut self, c: u32, cmap: &[u32], field: &str) -> Result<(), String> {
        match self.t.ci {
            0 => Ok(()),
            4 => {
                self.out.extend(c.to_le_bytes());
                Ok(())
            }
            size => {
                let i = cmap
                    .iter()
                    .position(|&x| x == c)
                    .ok_or_else(|| format!("{field}: colour {c:#010X} is not in the colour map"))?;
                self.idx(size, i as u32, field)
            }
        }
    }
}

/// The string table: the four header strings, then every identifier once.
struct Strings {
    table: Vec<u8>,
    offsets: std::collections::HashMap<String, u32>,
}

impl Strings {
    fn new(m: &M3d) -> Strings {
        let mut table = Vec::new();
        for s in [&m.name, &m.license, &m.author, &m.description] {
            table.extend(s.as_bytes());
            table.push(0);
        }
        Strings {
            table,
            offsets: Default::default(),
        }
    }

    fn add(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        if let Some(&o) = self.offsets.get(s) {
            return o;
        }
        let o = self.table.len() as u32;
        self.table.extend(s.as_bytes());
        self.table.push(0);
        self.offsets.insert(s.to_string(), o);
        o
    }
}

fn chunk(out: &mut Vec<u8>, magic: &[u8; 4], body: &[u8]) {
    out.extend(magic);
    out.extend((body.len() as u32 + 8).to_le_bytes());
    out.extend(body);
}
impl Strings {
    /// The table with every identifier the model's chunks name, so that
    /// offsets are final before any chunk is written.
    fn of(m: &M3d) -> Strings {
        let mut strings = Strings::new(m);
        let mut names: Vec<&str> = Vec::new();
        names.extend(m.bones.iter().map(|b| b.name.as_str()));
        for mat in &m.materials {
            names.push(&mat.name);
            for p in &mat.props {
                if let PropValue::Map(n) = &p.value {
                    names.push(n);
                }
            }
        }
        names.extend(m.parameters.iter().map(|s| s.as_str()));
        for v in &m.voxel_types {
            names.push(&v.name);
            names.extend(v.items.iter().map(|(_, n)| n.as_str()));
        }
        names.extend(m.voxel_blocks.iter().map(|b| b.name.as_str()));
        for l in &m.labels {
            names.extend([l.group.as_str(), l.lang.as_str(), l.text.as_str()]);
        }
        names.extend(m.actions.iter().map(|a| a.name.as_str()));
        names.extend(m.assets.iter().map(|a| a.name.as_str()));
        names.extend(m.shapes.iter().map(|(n, _)| n.as_str()));
        names.extend(m.procedures.iter().map(|s| s.as_str()));
        for n in names {
            strings.add(n);
        }
        strings
    }

    /// A name's offset in the table (0, the empty name, for one not in it).
    fn at(&self, name: &str) -> u32 {
        self.offsets.get(name).copied().unwrap_or(0)
    }
}

/// The payload's chunks after the header, each written into `w` and then
/// framed onto `body`.
struct Chunks {
    body: Vec<u8>,
    w: W,
}

impl Chunks {
    fn put(
        &mut self,
        magic: &[u8; 4],
        write: impl FnOnce(&mut W) -> Result<(), String>,
    ) -> Result<(), String> {
        write(&mut self.w)?;
        chunk(&mut self.body, magic, &self.w.out);
        self.w.out.clear();
        Ok(())
    }
}

pub fn encode(m: &M3d, compress: bool) -> Result<Vec<u8>, String> {
    let t = m.types;
    let s = &Strings::of(m);
    let mut c = Chunks {
        body: Vec::new(),
        w: W { out: Vec::new(), t },
    };
    if !m.cmap.is_empty() {
        let b: Vec<u8> = m.cmap.iter().flat_map(|c| c.to_le_bytes()).collect();
        chunk(&mut c.body, b"CMAP", &b);
    }
    if !m.tmap.is_empty() {
        c.put(b"TMAP", |w| {
            tmap(w, &m.tmap);
            Ok(())
        })?;
    }
    if !m.vertices.is_empty() {
        c.put(b"VRTS", |w| vertices(w, m))?;
    }
    if !m.bones.is_empty() {
        c.put(b"BONE", |w| bones(w, m, s))?;
    }
    for mat in &m.materials {
        c.put(b"MTRL", |w| material(w, mat, &m.cmap, s))?;
    }
    if !m.faces.is_empty() {
        c.put(b"MESH", |w| mesh(w, m, s))?;
    }
    if !m.voxel_types.is_empty() {
        c.put(b"VOXT", |w| voxel_types(w, m, s))?;
    }
    for b in &m.voxel_blocks {
        c.put(b"VOXD", |w| voxel_block(w, b, s))?;
    }
    let mut rest = &m.labels[..];
    while !rest.is_empty() {
        let mut n = 0;
        c.put(b"LBLS", |w| {
            n = labels(w, rest, &m.cmap, s)?;
            Ok(())
        })?;
        rest = &rest[n..];
    }
    for a in &m.actions {
        c.put(b"ACTN", |w| action(w, a, s))?;
    }
    for a in &m.assets {
        c.put(b"ASET", |w| {
            w.idx(t.si, s.at(&a.name), "asset name")?;
            w.out.extend(&a.data);
            Ok(())
        })?;
    }
    for (n, _) in &m.shapes {
        c.put(b"SHPE", |w| {
            w.idx(t.si, s.at(n), "shape name")?;
            w.idx(t.bi.max(1), NONE, "shape group")
        })?;
    }
    for n in &m.procedures {
        c.put(b"PROC", |w| w.idx(t.si, s.at(n), "procedure"))?;
    }

    let mut payload = Vec::new();
    payload.extend(b"HEAD");
    payload.extend((16 + s.table.len() as u32).to_le_bytes());
    payload.extend(m.scale.to_le_bytes());
    payload.extend(t.to_bits().to_le_bytes());
    payload.extend(&s.table);
    payload.extend(c.body);
    payload.extend(b"OMD3");

    let mut out = b"3DMO".to_vec();
    out.extend([0; 4]);
    if let Some(p) = &m.preview {
        chunk(&mut out, b"PRVW", p);
    }
    if compress {
        out.extend(miniz_oxide::deflate::compress_to_vec_zlib(&payload, 6));
    } else {
        out.extend(payload);
    }
    let size = out.len() as u32;
    out[4..8].copy_from_slice(&size.to_le_bytes());
    Ok(out)
}

/// TMAP: u and v a coordinate, each in the coordinate type (0..1 for the
/// integer ones).
fn tmap(w: &mut W, tmap: &[[f32; 2]]) {
    for [u, v] in tmap {
        for x in [*u, *v] {
            match w.t.vc {
                1 => w.out.push((x * 255.0).round().clamp(0.0, 255.0) as u8),
                2 => w
                    .out
                    .extend(((x * 65535.0).round().clamp(0.0, 65535.0) as u16).to_le_bytes()),
                4 => w.out.extend(x.to_le_bytes()),
                _ => w.out.extend((x as f64).to_le_bytes()),
            }
        }
    }
}

/// VRTS: position, colour where the file has colours, skin.
fn vertices(w: &mut W, m: &M3d) -> Result<(), String> {
    let t = w.t;
    for (i, v) in m.vertices.iter().enumerate() {
        for x in v.pos {
            w.coord(x);
        }
        if t.ci != 0 {
            w.color(v.color, &m.cmap, &format!("vertex {i} colour"))?;
        }
        w.idx(t.sk, v.skin, &format!("vertex {i} skin"))?;
    }
    Ok(())
}

/// BONE: the counts, the bones, then the skins (weights, then bones).
fn bones(w: &mut W, m: &M3d, s: &Strings) -> Result<(), String> {
    let t = w.t;
    w.idx(t.bi, m.bones.len() as u32, "bone count")?;
    w.idx(t.sk, m.skins.len() as u32, "skin count")?;
    for b in &m.bones {
        w.idx(t.bi, b.parent.unwrap_or(NONE), "bone parent")?;
        w.idx(t.si, s.at(&b.name), "bone name")?;
        w.idx(t.vi, b.pos, "bone position")?;
        w.idx(t.vi, b.ori, "bone orientation")?;
    }
    for (i, sk) in m.skins.iter().enumerate() {
        if t.nb > 1 {
            let mut weights = vec![0u8; t.nb as usize];
            if sk.len() > weights.len() {
                return Err(format!(
                    "skin {i}: {} influences, {} allowed",
                    sk.len(),
                    t.nb
                ));
            }
            for (k, (_, wt)) in sk.influences().enumerate() {
                weights[k] = wt;
            }
            w.out.extend(&weights);
        } else if sk.len() != 1 {
            return Err(format!(
                "skin {i}: one bone per vertex needs exactly one influence"
            ));
        }
        for (b, _) in sk.influences() {
            w.idx(t.bi, b, "skin bone")?;
        }
    }
    Ok(())
}

/// MTRL: the name, then each property's type and value.
fn material(w: &mut W, mat: &Material, cmap: &[u32], s: &Strings) -> Result<(), String> {
    let si = w.t.si;
    w.idx(si, s.at(&mat.name), "material name")?;
    for p in &mat.props {
        w.out.push(p.ty);
        match &p.value {
            PropValue::Color(c) => w.color(*c, cmap, "colour property")?,
            PropValue::Float(f) => w.out.extend(f.to_le_bytes()),
            PropValue::Int(i) => w.out.push(*i as u8),
            PropValue::Map(n) => w.idx(si, s.at(n), "map name")?,
        }
    }
    Ok(())
}

/// MESH: the parameters, then the faces, a material record wherever the
/// material changes.
fn mesh(w: &mut W, m: &M3d, s: &Strings) -> Result<(), String> {
    let t = w.t;
    for p in &m.parameters {
        w.out.push(1);
        w.idx(t.si, s.at(p), "parameter")?;
    }
    let mut current: Option<u32> = None;
    for (i, f) in m.faces.iter().enumerate() {
        if f.material != current {
            w.out.push(0);
            let name = f
                .material
                .map_or("", |x| m.materials[x as usize].name.as_str());
            w.idx(t.si, s.at(name), "material")?;
            current = f.material;
        }
        if f.is_empty() {
            return Err(format!("face {i} has no points"));
        }
        let p0 = f.point(0);
        let k = p0.uv().is_some() as u8
            | (p0.normal().is_some() as u8) << 1
            | (p0.max().is_some() as u8) << 2;
        if f.len() > 15 {
            return Err(format!("face {i}: {} points, 15 at most", f.len()));
        }
        w.out.push((f.len() as u8) << 4 | k);
        for p in f.points() {
            w.idx(t.vi, p.vertex, "face vertex")?;
            if k & 1 != 0 {
                w.idx(t.ti, p.uv().unwrap_or(NONE), "face UV")?;
            }
            if k & 2 != 0 {
                w.idx(t.vi, p.normal().unwrap_or(NONE), "face normal")?;
            }
            if k & 4 != 0 {
                w.idx(t.vi, p.max().unwrap_or(NONE), "face maximum")?;
            }
        }
    }
    Ok(())
}

/// VOXT: each type's colour, name, rotation and shape, items and skin.
fn voxel_types(w: &mut W, m: &M3d, s: &Strings) -> Result<(), String> {
    let t = w.t;
    for v in &m.voxel_types {
        w.color(v.color, &m.cmap, "voxel colour")?;
        w.idx(t.si, s.at(&v.name), "voxel name")?;
        w.out.push(v.rotation | ((v.shape >> 2) as u8 & 0x40));
        w.out.push(v.shape as u8);
        w.out.push(v.items.len() as u8);
        w.idx(t.sk, v.skin, "voxel skin")?;
        for (c, n) in &v.items {
            w.out.extend(c.to_le_bytes());
            w.idx(t.si, s.at(n), "item name")?;
        }
    }
    Ok(())
}

/// VOXD: the block's name, position and size, then its voxels in runs of
/// one value (2 to 128) and of literals.
fn voxel_block(w: &mut W, b: &VoxelBlock, s: &Strings) -> Result<(), String> {
    let t = w.t;
    w.idx(t.si, s.at(&b.name), "block name")?;
    for (k, v) in b
        .pos
        .iter()
        .map(|&p| p as i64)
        .chain(b.size.iter().map(|&s| s as i64))
        .enumerate()
    {
        match t.vd {
            1 if k < 3 => w.out.push(v as i8 as u8),
            1 => w.out.push(v as u8),
            2 => w.out.extend((v as u16).to_le_bytes()),
            _ => w.out.extend((v as u32).to_le_bytes()),
        }
    }
    w.out.push(b.uncertainty);
    w.out.push(b.group);
    let vp = t.vp.min(2);
    let pix = |w: &mut W, v: u16| {
        let v = match v {
            VOXEL_UNSET => NONE,
            VOXEL_CLEAR => QUATERNION,
            v => v as u32,
        };
        w.idx(vp, v, "voxel")
    };
    let mut i = 0;
    while i < b.data.len() {
        let run = b.data[i..]
            .iter()
            .take(128)
            .take_while(|&&x| x == b.data[i])
            .count();
        if run >= 2 {
            w.out.push(0x80 | (run - 1) as u8);
            pix(w, b.data[i])?;
            i += run;
        } else {
            let n = b.data[i..].len().min(128);
            let mut lit = 1;
            while lit < n
                && b.data[i + lit] != b.data.get(i + lit + 1).copied().unwrap_or(u16::MAX - 7)
            {
                lit += 1;
            }
            w.out.push((lit - 1) as u8);
            for k in 0..lit {
                pix(w, b.data[i + k])?;
            }
            i += lit;
        }
    }
    Ok(())
}

/// LBLS: the first label's group, language and colour, then it and every
/// label after it that shares them; returns how many it wrote.
fn labels(w: &mut W, labels: &[Label], cmap: &[u32], s: &Strings) -> Result<usize, String> {
    let t = w.t;
    let first = &labels[0];
    w.idx(t.si, s.at(&first.group), "label group")?;
    w.idx(t.si, s.at(&first.lang), "label language")?;
    w.color(first.color, cmap, "label colour")?;
    let n = labels
        .iter()
        .take_while(|l| (&l.group, &l.lang, l.color) == (&first.group, &first.lang, first.color))
        .count();
    for l in &labels[..n] {
        w.idx(t.vi, l.vertex, "label vertex")?;
        w.idx(t.si, s.at(&l.text), "label text")?;
    }
    Ok(n)
}

/// ACTN: the name, frame count and duration, then each frame's time and
/// transforms.
fn action(w: &mut W, a: &Action, s: &Strings) -> Result<(), String> {
    let t = w.t;
    w.idx(t.si, s.at(&a.name), "action name")?;
    w.out.extend((a.frames.len() as u16).to_le_bytes());
    w.out.extend(a.duration_ms.to_le_bytes());
    for f in &a.frames {
        w.out.extend(f.msec.to_le_bytes());
        let transforms = a
            .transforms
            .get(f.transforms.start as usize..f.transforms.end as usize)
            .ok_or_else(|| {
                format!(
                    "action {:?}: frame at {} ms names transforms {:?} of {}",
                    a.name,
                    f.msec,
                    f.transforms,
                    a.transforms.len()
                )
            })?;
        w.idx(t.fc, transforms.len() as u32, "frame bone count")?;
        for tr in transforms {
            w.idx(t.bi, tr.bone, "frame bone")?;
            w.idx(t.vi, tr.pos, "frame position")?;
            w.idx(t.vi, tr.ori, "frame orientation")?;
        }
    }
    Ok(())
}
