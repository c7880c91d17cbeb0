//! Papa writer for tests: lays a [`Papa`] out as the engine's tools do
//! (models, meshes, materials, textures, vertex buffers, index buffers,
//! skeletons, animations, strings; every table and blob 8-byte aligned;
//! offset -1 for what is absent).

use super::papa::*;

struct Out {
    bytes: Vec<u8>,
    names: Vec<String>,
}

impl Out {
    fn align(&mut self) {
        while !self.bytes.len().is_multiple_of(8) {
            self.bytes.push(0);
        }
    }

    /// Appends a blob at an aligned offset; returns the offset.
    fn blob(&mut self, b: &[u8]) -> i64 {
        self.align();
        let at = self.bytes.len() as i64;
        self.bytes.extend(b);
        at
    }

    fn name(&mut self, s: &str) -> u16 {
        if s.is_empty() {
            return 0xFFFF;
        }
        match self.names.iter().position(|n| n == s) {
            Some(i) => i as u16,
            None => {
                self.names.push(s.to_string());
                (self.names.len() - 1) as u16
            }
        }
    }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn encode(p: &Papa) -> Result<Vec<u8>, String> {
    let mut o = Out {
        bytes: vec![0; 104],
        names: Vec::new(),
    };
    let mut offsets = [-1i64; 9];
    let counts = [
        0u16, // strings: set at the end
        p.textures.len() as u16,
        p.vertex_buffers.len() as u16,
        p.index_buffers.len() as u16,
        p.materials.len() as u16,
        p.meshes.len() as u16,
        p.skeletons.len() as u16,
        p.models.len() as u16,
        p.animations.len() as u16,
    ];

    // Models, their bindings and bone maps.
    if !p.models.is_empty() {
        let mut entries = Vec::new();
        for m in &p.models {
            let mut bindings = Vec::new();
            for b in &m.bindings {
                let map: Vec<u8> = b.bone_map.iter().flat_map(|x| x.to_le_bytes()).collect();
                let map_at = if map.is_empty() { -1 } else { o.blob(&map) };
                let mut e = Vec::new();
                e.extend(o.name(&b.name).to_le_bytes());
                e.extend(b.mesh.to_le_bytes());
                e.extend((b.bone_map.len() as u16).to_le_bytes());
                e.extend([0; 2]);
                e.extend(f32s(&b.mesh2model));
                e.extend(map_at.to_le_bytes());
                bindings.push(e);
            }
            let at = if bindings.is_empty() {
                -1
            } else {
                o.blob(&bindings.concat())
            };
            let mut e = Vec::new();
            e.extend(o.name(&m.name).to_le_bytes());
            e.extend(m.skeleton.map_or(-1i16, |s| s as i16).to_le_bytes());
            e.extend((m.bindings.len() as u16).to_le_bytes());
            e.extend([0; 2]);
            e.extend(f32s(&m.model2scene));
            e.extend(at.to_le_bytes());
            entries.push(e);
        }
        offsets[7] = o.blob(&entries.concat());
    }

    if !p.meshes.is_empty() {
        let mut entries = Vec::new();
        for m in &p.meshes {
            let mut groups = Vec::new();
            for g in &m.groups {
                let mut e = Vec::new();
                e.extend(o.name(&g.name).to_le_bytes());
                e.extend(g.material.to_le_bytes());
                e.extend(g.first_index.to_le_bytes());
                e.extend(g.primitives.to_le_bytes());
                e.push(g.primitive_type);
                e.extend([0; 3]);
                groups.push(e);
            }
            let at = if groups.is_empty() {
                -1
            } else {
                o.blob(&groups.concat())
            };
            let mut e = Vec::new();
            e.extend(m.vertex_buffer.to_le_bytes());
            e.extend(m.index_buffer.to_le_bytes());
            e.extend((m.groups.len() as u16).to_le_bytes());
            e.extend([0; 2]);
            e.extend(at.to_le_bytes());
            entries.push(e);
        }
        offsets[5] = o.blob(&entries.concat());
    }

    if !p.materials.is_empty() {
        let mut entries = Vec::new();
        for m in &p.materials {
            let mut vec = Vec::new();
            for (n, v) in &m.vectors {
                vec.extend(o.name(n).to_le_bytes());
                vec.extend([0; 2]);
                vec.extend(f32s(v));
            }
            let mut tex = Vec::new();
            for (n, t) in &m.textures {
                tex.extend(o.name(n).to_le_bytes());
                tex.extend(t.to_le_bytes());
            }
            let mut mat = Vec::new();
            for (n, x) in &m.matrices {
                mat.extend(o.name(n).to_le_bytes());
                mat.extend([0; 2]);
                mat.extend(f32s(x));
            }
            let at = |o: &mut Out, b: &[u8]| if b.is_empty() { -1 } else { o.blob(b) };
            let (va, ta, ma) = (at(&mut o, &vec), at(&mut o, &tex), at(&mut o, &mat));
            let mut e = Vec::new();
            e.extend(o.name(&m.shader).to_le_bytes());
            for n in [m.vectors.len(), m.textures.len(), m.matrices.len()] {
                e.extend((n as u16).to_le_bytes());
            }
            for a in [va, ta, ma] {
                e.extend(a.to_le_bytes());
            }
            entries.push(e);
        }
        offsets[4] = o.blob(&entries.concat());
    }

    if !p.textures.is_empty() {
        let mut entries = Vec::new();
        for t in &p.textures {
            let (fmt, size, at) = match &t.data {
                TextureData::Linked => (0u8, 0u64, -1i64),
                TextureData::Embedded(d) => {
                    (t.format.map_or(0, |f| f.to_u8()), d.len() as u64, o.blob(d))
                }
            };
            let mut e = Vec::new();
            e.extend(o.name(&t.name).to_le_bytes());
            e.push(fmt);
            e.push(t.mips & 0x7F | if t.srgb { 0x80 } else { 0 });
            e.extend(t.width.to_le_bytes());
            e.extend(t.height.to_le_bytes());
            e.extend(size.to_le_bytes());
            e.extend(at.to_le_bytes());
            entries.push(e);
        }
        offsets[1] = o.blob(&entries.concat());
    }

    if !p.vertex_buffers.is_empty() {
        let mut entries = Vec::new();
        for v in &p.vertex_buffers {
            let at = if v.data.is_empty() {
                -1
            } else {
                o.blob(&v.data)
            };
            let mut e = vec![v.format, 0, 0, 0];
            e.extend(v.count.to_le_bytes());
            e.extend((v.data.len() as u64).to_le_bytes());
            e.extend(at.to_le_bytes());
            entries.push(e);
        }
        offsets[2] = o.blob(&entries.concat());
    }

    if !p.index_buffers.is_empty() {
        let mut entries = Vec::new();
        for b in &p.index_buffers {
            let data: Vec<u8> = if b.format == 0 {
                b.indices
                    .iter()
                    .map(|&i| u16::try_from(i).map(|x| x.to_le_bytes()))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| "an index over 65535 in a UInt16 buffer".to_string())?
                    .concat()
            } else {
                b.indices.iter().flat_map(|i| i.to_le_bytes()).collect()
            };
            let at = if data.is_empty() { -1 } else { o.blob(&data) };
            let mut e = vec![b.format, 0, 0, 0];
            e.extend((b.indices.len() as u32).to_le_bytes());
            e.extend((data.len() as u64).to_le_bytes());
            e.extend(at.to_le_bytes());
            entries.push(e);
        }
        offsets[3] = o.blob(&entries.concat());
    }

    if !p.skeletons.is_empty() {
        let mut entries = Vec::new();
        for s in &p.skeletons {
            let mut bones = Vec::new();
            for b in &s.bones {
                bones.extend(o.name(&b.name).to_le_bytes());
                bones.extend(b.parent.map_or(-1i16, |x| x as i16).to_le_bytes());
                bones.extend(f32s(&b.translation));
                bones.extend(f32s(&b.rotation));
                bones.extend(f32s(&b.shear_scale));
                bones.extend(f32s(&b.bind2bone));
            }
            let at = if bones.is_empty() { -1 } else { o.blob(&bones) };
            let mut e = Vec::new();
            e.extend((s.bones.len() as u16).to_le_bytes());
            e.extend([0; 6]);
            e.extend(at.to_le_bytes());
            entries.push(e);
        }
        offsets[6] = o.blob(&entries.concat());
    }

    if !p.animations.is_empty() {
        let mut entries = Vec::new();
        for a in &p.animations {
            let table: Vec<u8> = a
                .bones
                .iter()
                .flat_map(|n| o.name(n).to_le_bytes())
                .collect();
            let ta = if table.is_empty() { -1 } else { o.blob(&table) };
            let tr: Vec<u8> = a
                .transforms
                .iter()
                .flat_map(|(t, q)| f32s(t).into_iter().chain(f32s(q)))
                .collect();
            let tra = if tr.is_empty() { -1 } else { o.blob(&tr) };
            let mut e = Vec::new();
            e.extend(o.name(&a.name).to_le_bytes());
            e.extend((a.bones.len() as u16).to_le_bytes());
            for x in [a.frames, a.fps_num, a.fps_den] {
                e.extend(x.to_le_bytes());
            }
            e.extend(ta.to_le_bytes());
            e.extend(tra.to_le_bytes());
            entries.push(e);
        }
        offsets[8] = o.blob(&entries.concat());
    }

    // Strings last: their characters, then the table.
    let names = std::mem::take(&mut o.names);
    if !names.is_empty() {
        let mut chars_at = Vec::new();
        for n in &names {
            let mut b = n.as_bytes().to_vec();
            b.push(0);
            chars_at.push(o.blob(&b));
        }
        let mut entries = Vec::new();
        for (n, at) in names.iter().zip(chars_at) {
            entries.extend((n.len() as u32).to_le_bytes());
            entries.extend([0; 4]);
            entries.extend(at.to_le_bytes());
        }
        offsets[0] = o.blob(&entries);
    }
    o.align();

    let mut h = MAGIC.to_vec();
    h.extend(VERSION.to_le_bytes());
    let mut counts = counts;
    counts[0] = names.len() as u16;
    for c in counts {
        h.extend(c.to_le_bytes());
    }
    h.extend(p.signature);
    for off in offsets {
        h.extend(off.to_le_bytes());
    }
    o.bytes[..104].copy_from_slice(&h);
    Ok(o.bytes)
}

/// Packs vertices into `format`'s layout (attributes the layout lacks are
/// dropped; missing ones written as zeros).
pub fn encode_vertices(format: u8, vertices: &[Vertex]) -> Vec<u8> {
    let l = &VERTEX_LAYOUTS[format as usize];
    let mut out = vec![0u8; l.stride * vertices.len()];
    for (v, b) in vertices.iter().zip(out.chunks_exact_mut(l.stride)) {
        let mut put = |at: usize, x: &[u8]| b[at..at + x.len()].copy_from_slice(x);
        if l.has_position {
            put(0, &f32s(&v.pos));
        }
        if let Some(at) = l.normal {
            put(at, &f32s(&v.normal.unwrap_or_default()));
        }
        if let Some(at) = l.uv {
            put(at, &f32s(&v.uv.unwrap_or_default()));
        }
        if let Some(at) = l.color {
            put(at, &v.color.unwrap_or_default());
        }
        if let Some((w, j)) = l.skin {
            put(w, &v.weights.unwrap_or_default());
            put(j, &v.bones.unwrap_or_default());
        }
    }
    out
}
