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
    // The one thing the layout cannot hold, checked before it is made.
    let narrow = |b: &IndexBuffer| b.format == 0 && b.indices.iter().any(|&i| i > 0xFFFF);
    if p.index_buffers.iter().any(narrow) {
        return Err("an index over 65535 in a UInt16 buffer".into());
    }
    let mut o = Out {
        bytes: vec![0; 104],
        names: Vec::new(),
    };
    // The tables in the order the engine's tools lay them out, each after
    // the blobs its entries point at; their offsets in the header's order
    // (strings, textures, vertex buffers, index buffers, materials,
    // meshes, skeletons, models, animations).
    let mut offsets = [-1i64; 9];
    offsets[7] = o.table(&p.models, Out::model);
    offsets[5] = o.table(&p.meshes, Out::mesh);
    offsets[4] = o.table(&p.materials, Out::material);
    offsets[1] = o.table(&p.textures, Out::texture);
    offsets[2] = o.table(&p.vertex_buffers, Out::vertex_buffer);
    offsets[3] = o.table(&p.index_buffers, Out::index_buffer);
    offsets[6] = o.table(&p.skeletons, Out::skeleton);
    offsets[8] = o.table(&p.animations, Out::animation);
    // Strings last: their characters, then the table.
    let names = std::mem::take(&mut o.names);
    offsets[0] = o.strings(&names);
    o.align();

    let mut h = MAGIC.to_vec();
    h.extend(VERSION.to_le_bytes());
    let counts = [
        names.len(),
        p.textures.len(),
        p.vertex_buffers.len(),
        p.index_buffers.len(),
        p.materials.len(),
        p.meshes.len(),
        p.skeletons.len(),
        p.models.len(),
        p.animations.len(),
    ];
    for c in counts {
        h.extend((c as u16).to_le_bytes());
    }
    h.extend(p.signature);
    for off in offsets {
        h.extend(off.to_le_bytes());
    }
    o.bytes[..104].copy_from_slice(&h);
    Ok(o.bytes)
}

impl Out {
    /// A blob's offset, or -1 for none when it is empty.
    fn blob_or_none(&mut self, b: &[u8]) -> i64 {
        if b.is_empty() { -1 } else { self.blob(b) }
    }

    /// A table of `items`' entries, each made by `entry` (which writes the
    /// blobs it points at first): its offset, or -1 for no items.
    fn table<T>(&mut self, items: &[T], entry: fn(&mut Out, &T) -> Vec<u8>) -> i64 {
        if items.is_empty() {
            return -1;
        }
        let mut entries = Vec::new();
        for x in items {
            entries.extend(entry(self, x));
        }
        self.blob(&entries)
    }

    /// A model's entry, after its bindings and their bone maps.
    fn model(&mut self, m: &Model) -> Vec<u8> {
        let mut bindings = Vec::new();
        for b in &m.bindings {
            let map: Vec<u8> = b.bone_map.iter().flat_map(|x| x.to_le_bytes()).collect();
            let map_at = self.blob_or_none(&map);
            bindings.extend(self.name(&b.name).to_le_bytes());
            bindings.extend(b.mesh.to_le_bytes());
            bindings.extend((b.bone_map.len() as u16).to_le_bytes());
            bindings.extend([0; 2]);
            bindings.extend(f32s(&b.mesh2model));
            bindings.extend(map_at.to_le_bytes());
        }
        let at = self.blob_or_none(&bindings);
        let mut e = Vec::new();
        e.extend(self.name(&m.name).to_le_bytes());
        e.extend(m.skeleton.map_or(-1i16, |s| s as i16).to_le_bytes());
        e.extend((m.bindings.len() as u16).to_le_bytes());
        e.extend([0; 2]);
        e.extend(f32s(&m.model2scene));
        e.extend(at.to_le_bytes());
        e
    }

    /// A mesh's entry, after its material groups.
    fn mesh(&mut self, m: &Mesh) -> Vec<u8> {
        let mut groups = Vec::new();
        for g in &m.groups {
            groups.extend(self.name(&g.name).to_le_bytes());
            groups.extend(g.material.to_le_bytes());
            groups.extend(g.first_index.to_le_bytes());
            groups.extend(g.primitives.to_le_bytes());
            groups.push(g.primitive_type);
            groups.extend([0; 3]);
        }
        let at = self.blob_or_none(&groups);
        let mut e = Vec::new();
        e.extend(m.vertex_buffer.to_le_bytes());
        e.extend(m.index_buffer.to_le_bytes());
        e.extend((m.groups.len() as u16).to_le_bytes());
        e.extend([0; 2]);
        e.extend(at.to_le_bytes());
        e
    }

    /// A material's entry, after its vector, texture and matrix parameters.
    fn material(&mut self, m: &Material) -> Vec<u8> {
        let mut vec = Vec::new();
        for (n, v) in &m.vectors {
            vec.extend(self.name(n).to_le_bytes());
            vec.extend([0; 2]);
            vec.extend(f32s(v));
        }
        let mut tex = Vec::new();
        for (n, t) in &m.textures {
            tex.extend(self.name(n).to_le_bytes());
            tex.extend(t.to_le_bytes());
        }
        let mut mat = Vec::new();
        for (n, x) in &m.matrices {
            mat.extend(self.name(n).to_le_bytes());
            mat.extend([0; 2]);
            mat.extend(f32s(x));
        }
        let at = [&vec, &tex, &mat].map(|b| self.blob_or_none(b));
        let mut e = Vec::new();
        e.extend(self.name(&m.shader).to_le_bytes());
        for n in [m.vectors.len(), m.textures.len(), m.matrices.len()] {
            e.extend((n as u16).to_le_bytes());
        }
        for a in at {
            e.extend(a.to_le_bytes());
        }
        e
    }

    /// A texture's entry, after its data when it is embedded.
    fn texture(&mut self, t: &Texture) -> Vec<u8> {
        let (fmt, size, at) = match &t.data {
            TextureData::Linked => (0u8, 0u64, -1i64),
            TextureData::Embedded(d) => (
                t.format.map_or(0, |f| f.to_u8()),
                d.len() as u64,
                self.blob(d),
            ),
        };
        let mut e = Vec::new();
        e.extend(self.name(&t.name).to_le_bytes());
        e.push(fmt);
        e.push(t.mips & 0x7F | if t.srgb { 0x80 } else { 0 });
        e.extend(t.width.to_le_bytes());
        e.extend(t.height.to_le_bytes());
        e.extend(size.to_le_bytes());
        e.extend(at.to_le_bytes());
        e
    }

    /// A vertex buffer's entry, after its data.
    fn vertex_buffer(&mut self, v: &VertexBuffer) -> Vec<u8> {
        let at = self.blob_or_none(&v.data);
        let mut e = vec![v.format, 0, 0, 0];
        e.extend(v.count.to_le_bytes());
        e.extend((v.data.len() as u64).to_le_bytes());
        e.extend(at.to_le_bytes());
        e
    }

    /// An index buffer's entry, after its indices in its format's width
    /// (a UInt16 buffer's fit: [`encode`] checked them).
    fn index_buffer(&mut self, b: &IndexBuffer) -> Vec<u8> {
        let data: Vec<u8> = if b.format == 0 {
            b.indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect()
        } else {
            b.indices.iter().flat_map(|i| i.to_le_bytes()).collect()
        };
        let at = self.blob_or_none(&data);
        let mut e = vec![b.format, 0, 0, 0];
        e.extend((b.indices.len() as u32).to_le_bytes());
        e.extend((data.len() as u64).to_le_bytes());
        e.extend(at.to_le_bytes());
        e
    }

    /// A skeleton's entry, after its bones.
    fn skeleton(&mut self, s: &Skeleton) -> Vec<u8> {
        let mut bones = Vec::new();
        for b in &s.bones {
            bones.extend(self.name(&b.name).to_le_bytes());
            bones.extend(b.parent.map_or(-1i16, |x| x as i16).to_le_bytes());
            bones.extend(f32s(&b.translation));
            bones.extend(f32s(&b.rotation));
            bones.extend(f32s(&b.shear_scale));
            bones.extend(f32s(&b.bind2bone));
        }
        let at = self.blob_or_none(&bones);
        let mut e = Vec::new();
        e.extend((s.bones.len() as u16).to_le_bytes());
        e.extend([0; 6]);
        e.extend(at.to_le_bytes());
        e
    }

    /// An animation's entry, after its bone names and its transforms.
    fn animation(&mut self, a: &Animation) -> Vec<u8> {
        let table: Vec<u8> = a
            .bones
            .iter()
            .flat_map(|n| self.name(n).to_le_bytes())
            .collect();
        let ta = self.blob_or_none(&table);
        let tr: Vec<u8> = a
            .transforms
            .iter()
            .flat_map(|(t, q)| f32s(t).into_iter().chain(f32s(q)))
            .collect();
        let tra = self.blob_or_none(&tr);
        let mut e = Vec::new();
        e.extend(self.name(&a.name).to_le_bytes());
        e.extend((a.bones.len() as u16).to_le_bytes());
        for x in [a.frames, a.fps_num, a.fps_den] {
            e.extend(x.to_le_bytes());
        }
        e.extend(ta.to_le_bytes());
        e.extend(tra.to_le_bytes());
        e
    }

    /// The strings' characters, then their table: its offset, or -1 for
    /// no names.
    fn strings(&mut self, names: &[String]) -> i64 {
        if names.is_empty() {
            return -1;
        }
        let mut chars_at = Vec::new();
        for n in names {
            let mut b = n.as_bytes().to_vec();
            b.push(0);
            chars_at.push(self.blob(&b));
        }
        let mut entries = Vec::new();
        for (n, at) in names.iter().zip(chars_at) {
            entries.extend((n.len() as u32).to_le_bytes());
            entries.extend([0; 4]);
            entries.extend(at.to_le_bytes());
        }
        self.blob(&entries)
    }
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
