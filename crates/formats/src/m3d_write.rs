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

pub fn encode(m: &M3d, compress: bool) -> Result<Vec<u8>, String> {
    let t = m.types;
    let mut strings = Strings::new(m);
    // Collect every identifier first so that offsets are final.
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
    let s = |name: &str| -> u32 { strings.offsets.get(name).copied().unwrap_or(0) };

    let mut body = Vec::new();
    let mut w = W { out: Vec::new(), t };
    let take = |w: &mut W| std::mem::take(&mut w.out);

    if !m.cmap.is_empty() {
        let b: Vec<u8> = m.cmap.iter().flat_map(|c| c.to_le_bytes()).collect();
        chunk(&mut body, b"CMAP", &b);
    }
    if !m.tmap.is_empty() {
        for [u, v] in &m.tmap {
            for x in [*u, *v] {
                match t.vc {
                    1 => w.out.push((x * 255.0).round().clamp(0.0, 255.0) as u8),
                    2 => w
                        .out
                        .extend(((x * 65535.0).round().clamp(0.0, 65535.0) as u16).to_le_bytes()),
                    4 => w.out.extend(x.to_le_bytes()),
                    _ => w.out.extend((x as f64).to_le_bytes()),
                }
            }
        }
        chunk(&mut body, b"TMAP", &take(&mut w));
    }
    if !m.vertices.is_empty() {
        for (i, v) in m.vertices.iter().enumerate() {
            for x in v.pos {
                w.coord(x);
            }
            if t.ci != 0 {
                w.color(v.color, &m.cmap, &format!("vertex {i} colour"))?;
            }
            w.idx(t.sk, v.skin, &format!("vertex {i} skin"))?;
        }
        chunk(&mut body, b"VRTS", &take(&mut w));
    }
    if !m.bones.is_empty() {
        w.idx(t.bi, m.bones.len() as u32, "bone count")?;
        w.idx(t.sk, m.skins.len() as u32, "skin count")?;
        for b in &m.bones {
            w.idx(t.bi, b.parent.unwrap_or(NONE), "bone parent")?;
            w.idx(t.si, s(&b.name), "bone name")?;
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
        chunk(&mut body, b"BONE", &take(&mut w));
    }
    for mat in &m.materials {
        w.idx(t.si, s(&mat.name), "material name")?;
        for p in &mat.props {
            w.out.push(p.ty);
            match &p.value {
                PropValue::Color(c) => w.color(*c, &m.cmap, "colour property")?,
                PropValue::Float(f) => w.out.extend(f.to_le_bytes()),
                PropValue::Int(i) => w.out.push(*i as u8),
                PropValue::Map(n) => w.idx(t.si, s(n), "map name")?,
            }
        }
        chunk(&mut body, b"MTRL", &take(&mut w));
    }
    if !m.faces.is_empty() {
        for p in &m.parameters {
            w.out.push(1);
            w.idx(t.si, s(p), "parameter")?;
        }
        let mut current: Option<u32> = None;
        for (i, f) in m.faces.iter().enumerate() {
            if f.material != current {
                w.out.push(0);
                let name = f
                    .material
                    .map_or("", |x| m.materials[x as usize].name.as_str());
                w.idx(t.si, s(name), "material")?;
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
        chunk(&mut body, b"MESH", &take(&mut w));
    }
    if !m.voxel_types.is_empty() {
        for v in &m.voxel_types {
            w.color(v.color, &m.cmap, "voxel colour")?;
            w.idx(t.si, s(&v.name), "voxel name")?;
            w.out.push(v.rotation | ((v.shape >> 2) as u8 & 0x40));
            w.out.push(v.shape as u8);
            w.out.push(v.items.len() as u8);
            w.idx(t.sk, v.skin, "voxel skin")?;
            for (c, n) in &v.items {
                w.out.extend(c.to_le_bytes());
                w.idx(t.si, s(n), "item name")?;
            }
        }
        chunk(&mut body, b"VOXT", &take(&mut w));
    }
    for b in &m.voxel_blocks {
        w.idx(t.si, s(&b.name), "block name")?;
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
                pix(&mut w, b.data[i])?;
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
                    pix(&mut w, b.data[i + k])?;
                }
                i += lit;
            }
        }
        chunk(&mut body, b"VOXD", &take(&mut w));
    }
    let mut li = 0;
    while li < m.labels.len() {
        let first = &m.labels[li];
        w.idx(t.si, s(&first.group), "label group")?;
        w.idx(t.si, s(&first.lang), "label language")?;
        w.color(first.color, &m.cmap, "label colour")?;
        while li < m.labels.len() {
            let l = &m.labels[li];
            if (&l.group, &l.lang, l.color) != (&first.group, &first.lang, first.color) {
                break;
            }
            w.idx(t.vi, l.vertex, "label vertex")?;
            w.idx(t.si, s(&l.text), "label text")?;
            li += 1;
        }
        chunk(&mut body, b"LBLS", &take(&mut w));
    }
    for a in &m.actions {
        w.idx(t.si, s(&a.name), "action name")?;
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
        chunk(&mut body, b"ACTN", &take(&mut w));
    }
    for a in &m.assets {
        w.idx(t.si, s(&a.name), "asset name")?;
        w.out.extend(&a.data);
        chunk(&mut body, b"ASET", &take(&mut w));
    }
    for (n, _) in &m.shapes {
        w.idx(t.si, s(n), "shape name")?;
        w.idx(t.bi.max(1), NONE, "shape group")?;
        chunk(&mut body, b"SHPE", &take(&mut w));
    }
    for n in &m.procedures {
        w.idx(t.si, s(n), "procedure")?;
        chunk(&mut body, b"PROC", &take(&mut w));
    }

    let mut payload = Vec::new();
    payload.extend(b"HEAD");
    payload.extend((16 + strings.table.len() as u32).to_le_bytes());
    payload.extend(m.scale.to_le_bytes());
    payload.extend(t.to_bits().to_le_bytes());
    payload.extend(&strings.table);
    payload.extend(body);
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
