//! P3M writer: the inverse of [`super::p3m::decode`]. Tests build files with
//! exactly the features they need through it, and `assets/` is made with it.
//!
//! Embedded textures are re-encoded from their decoded PTF; strings are
//! deduplicated in the string table; array user-defined fields are stored in
//! the string table as `docs/formats.md` describes.

use super::p3m::*;
use super::ptf_write;

struct Strings {
    table: Vec<u8>,
}

impl Strings {
    fn add(&mut self, s: &str) -> Result<u16, String> {
        if s.contains('\0') {
            return Err(format!("string {s:?} contains a NUL byte"));
        }
        let mut needle = s.as_bytes().to_vec();
        needle.push(0);
        // Any earlier occurrence of "s\0" (also as the tail of a longer string) is a valid reference.
        let at = match self
            .table
            .windows(needle.len())
            .position(|w| w == needle.as_slice())
        {
            Some(p) => p,
            None => {
                let p = self.table.len();
                self.table.extend_from_slice(&needle);
                p
            }
        };
        u16::try_from(at).map_err(|_| format!("string table is over 64 KiB at {s:?}"))
    }

    fn add_raw(&mut self, bytes: &[u8]) -> Result<u16, String> {
        let p = self.table.len();
        self.table.extend_from_slice(bytes);
        u16::try_from(p).map_err(|_| "string table is over 64 KiB".to_string())
    }
}

struct W {
    out: Vec<u8>,
    s: Strings,
}

impl W {
    fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.out.extend_from_slice(&x.to_le_bytes());
        }
    }
    fn string(&mut self, v: &str) -> Result<(), String> {
        let off = self.s.add(v)?;
        self.u16(off);
        Ok(())
    }
    fn count(&mut self, n: usize, what: &str) -> Result<(), String> {
        let v = u8::try_from(n).map_err(|_| format!("{n} {what} is over 255"))?;
        self.u8(v);
        Ok(())
    }
    fn count16(&mut self, n: usize, what: &str) -> Result<(), String> {
        let v = u16::try_from(n).map_err(|_| format!("{n} {what} is over 65535"))?;
        self.u16(v);
        Ok(())
    }
    fn material_data(&mut self, d: &MaterialData) {
        self.out.extend_from_slice(&d.color);
        self.out.extend_from_slice(&d.emission);
        self.u8(d.shading);
        self.u8(d.texture.unwrap_or(NONE_INDEX));
        self.u8(d.matcap.unwrap_or(NONE_INDEX));
    }
    /// The parts: count, visibility mask, then each part.
    fn parts(&mut self, parts: &[Part]) -> Result<(), String> {
        self.count(parts.len(), "parts")?;
        let mut mask = vec![0u8; parts.len().div_ceil(8)];
        for (i, p) in parts.iter().enumerate() {
            if p.visible {
                mask[i / 8] |= 1 << (i % 8);
            }
        }
        self.out.extend_from_slice(&mask);
        for p in parts {
            let flags = p.uvs.is_some() as u8 | (p.normals.is_some() as u8) << 1;
            self.u8(flags);
            self.string(&p.name)?;
            self.u8(p.material);
            self.count(p.material_overrides.len(), "material overrides")?;
            for o in &p.material_overrides {
                self.string(&o.animation)?;
                self.u8(o.priority);
                self.u8(o.material);
            }
            self.count16(p.positions.len(), "vertices")?;
            for v in &p.positions {
                self.f32s(v);
            }
            for uv in p.uvs.iter().flatten() {
                self.f32s(uv);
            }
            for n in p.normals.iter().flatten() {
                self.f32s(n);
            }
            self.count16(p.indices.len(), "indices")?;
            for &i in &p.indices {
                self.u16(i);
            }
            self.count(p.weight_groups.len(), "weight groups")?;
            for g in &p.weight_groups {
                self.string(&g.bone)?;
                for r in &g.ranges {
                    self.u16(r.skip);
                    self.count16(r.weights.len(), "weights")?;
                    self.out.extend_from_slice(&r.weights);
                }
                self.u16(0);
                self.u16(0);
            }
        }
        Ok(())
    }

    /// The materials, each with its keyframe animation where it has one.
    fn materials(&mut self, materials: &[Material]) -> Result<(), String> {
        self.count(materials.len(), "materials")?;
        for mat in materials {
            let animated = mat.animation.is_some() as u8;
            self.u8(animated << 4 | mat.render_mode as u8);
            match &mat.animation {
                None => self.material_data(&mat.data),
                Some(a) => {
                    self.u32(a.us_per_frame);
                    self.u8((a.preserve_texture_scroll as u8) << 4 | a.loop_mode as u8);
                    self.material_data(&mat.data);
                    self.f32s(&a.texture_scroll);
                    self.f32s(&a.matcap_scroll);
                    self.u8(a.last_frame);
                    self.count(a.color.len(), "color keyframes")?;
                    self.count(a.emission.len(), "emission keyframes")?;
                    self.count(a.shading.len(), "shading keyframes")?;
                    self.count(a.texture.len(), "texture keyframes")?;
                    self.count(a.matcap.len(), "matcap keyframes")?;
                    a.color.iter().for_each(|k| self.u8(k.skip));
                    a.emission.iter().for_each(|k| self.u8(k.skip));
                    a.shading.iter().for_each(|k| self.u8(k.skip));
                    a.texture.iter().for_each(|k| self.u8(k.skip));
                    a.matcap.iter().for_each(|k| self.u8(k.skip));
                    a.color.iter().for_each(|k| self.u8(k.interp as u8));
                    a.emission.iter().for_each(|k| self.u8(k.interp as u8));
                    a.shading.iter().for_each(|k| self.u8(k.interp as u8));
                    a.color
                        .iter()
                        .for_each(|k| self.out.extend_from_slice(&k.value));
                    a.emission
                        .iter()
                        .for_each(|k| self.out.extend_from_slice(&k.value));
                    a.shading.iter().for_each(|k| self.u8(k.value));
                    a.texture.iter().for_each(|k| self.u8(k.value));
                    a.matcap.iter().for_each(|k| self.u8(k.value));
                }
            }
        }
        Ok(())
    }

    /// The textures: embedded PTFs (encoded again) and resource paths.
    fn textures(&mut self, textures: &[Texture]) -> Result<(), String> {
        self.count(textures.len(), "textures")?;
        for t in textures {
            match t {
                Texture::Embedded { ptf, .. } => {
                    let ptf = ptf.as_ref().map_err(|e| {
                        format!("cannot write an undecodable embedded texture: {e}")
                    })?;
                    let bytes = ptf_write::encode(
                        ptf.layout,
                        ptf.format,
                        ptf.width,
                        ptf.height,
                        &ptf.pixels,
                    )?;
                    self.u8(0);
                    self.u32(bytes.len() as u32);
                    self.out.extend_from_slice(&bytes);
                }
                Texture::External { path, .. } => {
                    self.u8(1);
                    self.string(path)?;
                }
            }
        }
        Ok(())
    }

    /// The bones.
    fn bones(&mut self, bones: &[Bone]) -> Result<(), String> {
        self.count(bones.len(), "bones")?;
        for b in bones {
            self.string(&b.name)?;
            self.f32s(&b.head);
            self.f32s(&b.tail);
            self.u8(b.child_count);
        }
        Ok(())
    }

    /// The animations, each a list of action references.
    fn animations(&mut self, animations: &[Animation]) -> Result<(), String> {
        self.count(animations.len(), "animations")?;
        for a in animations {
            self.string(&a.name)?;
            self.count(a.actions.len(), "animation actions")?;
            for r in &a.actions {
                self.u8(r.action);
                self.f32s(&[r.speed]);
                self.u16(r.start);
                self.u16(r.end);
            }
        }
        Ok(())
    }

    /// The actions: parts, then each bone's keyframe tracks.
    fn actions(&mut self, actions: &[Action]) -> Result<(), String> {
        self.count(actions.len(), "actions")?;
        for a in actions {
            self.u32(a.us_per_frame);
            self.u8(a.part_list_mode as u8);
            self.count(a.parts.len(), "action parts")?;
            for p in &a.parts {
                self.string(p)?;
            }
            self.count(a.bones.len(), "action bones")?;
            for b in &a.bones {
                self.string(&b.bone)?;
                let tracks = [&b.translation, &b.rotation, &b.scale];
                for t in tracks {
                    self.count(t.len(), "keyframes")?;
                }
                for t in tracks {
                    t.iter().for_each(|k| self.u8(k.skip));
                }
                for t in tracks {
                    t.iter().for_each(|k| self.u8(k.interp as u8));
                }
                for t in tracks {
                    t.iter().for_each(|k| self.f32s(&k.value));
                }
            }
        }
        Ok(())
    }

    /// The user-defined fields (array values in the string table).
    fn user_fields(&mut self, fields: &[UserField]) -> Result<(), String> {
        self.count(fields.len(), "user-defined fields")?;
        for f in fields {
            self.string(&f.name)?;
            let empty = matches!(f.value, UdfValue::Empty);
            let is_array = f.is_array || matches!(f.value, UdfValue::Array(_));
            self.u8((empty as u8) << 5 | (is_array as u8) << 4 | f.ty as u8);
            match &f.value {
                UdfValue::Empty => {}
                UdfValue::Scalar(UdfScalar::Str(s)) => self.string(s)?,
                UdfValue::Scalar(s) => {
                    let b = scalar_bytes(s);
                    self.out.extend_from_slice(&b);
                }
                UdfValue::Array(items) => {
                    if items.is_empty() {
                        return Err(format!(
                            "array field {:?} has no elements (length is stored minus 1)",
                            f.name
                        ));
                    }
                    self.count16(items.len() - 1, "array elements")?;
                    let mut bytes = Vec::new();
                    for it in items {
                        bytes.extend_from_slice(&scalar_bytes(it));
                    }
                    let off = self.s.add_raw(&bytes)?;
                    self.u16(off);
                }
            }
        }
        Ok(())
    }
}

/// Writes the current layout (`specs/p3m.txt`) whatever `m.layout` says: a
/// model read from the 2024 layout (a subset of the current one) comes out
/// in the current layout.
pub fn encode(m: &P3m) -> Result<Vec<u8>, String> {
    let mut w = W {
        out: b"P3M".to_vec(),
        s: Strings { table: Vec::new() },
    };
    w.u8(m.version);
    w.u8(m.flags);
    w.parts(&m.parts)?;
    w.materials(&m.materials)?;
    w.textures(&m.textures)?;
    w.bones(&m.bones)?;
    w.animations(&m.animations)?;
    w.actions(&m.actions)?;
    w.user_fields(&m.user_fields)?;
    if w.s.table.is_empty() {
        w.s.table.push(0);
    }
    let mut out = w.out;
    out.extend_from_slice(&w.s.table);
    Ok(out)
}

/// A value's bytes as an array element stores them: a string inline with
/// its NUL (a scalar string field is a string-table offset instead, which
/// the caller writes).
fn scalar_bytes(s: &UdfScalar) -> Vec<u8> {
    match s {
        UdfScalar::Str(v) => [v.as_bytes(), &[0]].concat(),
        UdfScalar::Bool(v) => vec![*v as u8],
        UdfScalar::I8(v) => v.to_le_bytes().to_vec(),
        UdfScalar::I16(v) => v.to_le_bytes().to_vec(),
        UdfScalar::I32(v) => v.to_le_bytes().to_vec(),
        UdfScalar::I64(v) => v.to_le_bytes().to_vec(),
        UdfScalar::U8(v) => v.to_le_bytes().to_vec(),
        UdfScalar::U16(v) => v.to_le_bytes().to_vec(),
        UdfScalar::U32(v) => v.to_le_bytes().to_vec(),
        UdfScalar::U64(v) => v.to_le_bytes().to_vec(),
        UdfScalar::F32(v) => v.to_le_bytes().to_vec(),
        UdfScalar::F64(v) => v.to_le_bytes().to_vec(),
    }
}
