//! Model 3D's ASCII form (`.a3d`): the same model as the binary form, as
//! text. `specs/m3d.md` names it (its magic is the binary one in lowercase,
//! `3dmodel`) and links its own document, which `../shared/specs` does not
//! hold; the grammar here is the reference SDK's: what m3d.h's exporter
//! writes (`m3d_save` with `M3D_EXP_ASCII`, model3d 0.0.1 m3d.h lines
//! 5201-5690) and what its reader takes (lines 2445-3190). Where the two
//! disagree the exporter wins, being what writes the files: m3d.h's reader
//! reads every voxel written as `.` (unset) or `-` (clear) as type 0 and
//! every voxel type's rotation and shape as 0. The result is the same
//! [`M3d`] the binary reader makes, so everything above the decoder treats
//! both forms alike.
//!
//! Sections are a keyword line and rows up to the next empty line. Each
//! row is read by its own rule; an error names the section, the row's line
//! and its byte offset. Everything the model holds comes from a row of the
//! text (one vertex a line, a voxel a value), so no allocation is larger
//! than a bound by the text's own length.

use crate::m3d::{
    Action, ChunkInfo, FacePoint, Frame, Label, M3d, Material, NONE, PROPERTIES, PropValue,
    Property, QUATERNION, Skin, Transform, Types, VOXEL_CLEAR, VOXEL_UNSET, Vertex, VoxelBlock,
    VoxelType,
};
use crate::{DecodeError, ErrorKind, Result, lossy_string};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// The ASCII form's first bytes (m3d.h checks these four).
pub const MAGIC: &[u8; 4] = b"3dmo";

/// A material property's id by its ASCII keyword: the first word of its
/// name in [`PROPERTIES`] (`Kd`, `map_Kd`...), or one of the spec's two
/// aliases, `map_bump` (`map_Km`) and `map_refl` (`map_Pm`).
fn property_of(key: &[u8]) -> Option<u8> {
    match key {
        b"map_bump" => return Some(134),
        b"map_refl" => return Some(193),
        _ => {}
    }
    PROPERTIES
        .iter()
        .find(|(_, name)| name.split(' ').next().is_some_and(|k| k.as_bytes() == key))
        .map(|&(ty, _)| ty)
}

/// The form's sections, by their keywords.
#[derive(Clone, Copy)]
enum Section {
    Preview,
    Textmap,
    Vertex,
    Bones,
    Material,
    Procedural,
    Mesh,
    VoxTypes,
    Voxel,
    Shape,
    Labels,
    Action,
    Assets,
    Extra,
}

impl Section {
    const ALL: [Section; 14] = [
        Section::Preview,
        Section::Textmap,
        Section::Vertex,
        Section::Bones,
        Section::Material,
        Section::Procedural,
        Section::Mesh,
        Section::VoxTypes,
        Section::Voxel,
        Section::Shape,
        Section::Labels,
        Section::Action,
        Section::Assets,
        Section::Extra,
    ];

    fn name(self) -> &'static str {
        match self {
            Section::Preview => "Preview",
            Section::Textmap => "Textmap",
            Section::Vertex => "Vertex",
            Section::Bones => "Bones",
            Section::Material => "Material",
            Section::Procedural => "Procedural",
            Section::Mesh => "Mesh",
            Section::VoxTypes => "VoxTypes",
            Section::Voxel => "Voxel",
            Section::Shape => "Shape",
            Section::Labels => "Labels",
            Section::Action => "Action",
            Section::Assets => "Assets",
            Section::Extra => "Extra",
        }
    }

    /// The section a keyword line names (m3d.h also takes `Voxtypes`).
    fn of(keyword: &[u8]) -> Option<Section> {
        if keyword == b"Voxtypes" {
            return Some(Section::VoxTypes);
        }
        Section::ALL
            .into_iter()
            .find(|s| s.name().as_bytes() == keyword)
    }
}

/// One line of the text: where it starts and its bytes without the line
/// end (`\n` or `\r\n`).
#[derive(Clone, Copy)]
struct Line<'a> {
    at: usize,
    text: &'a [u8],
}

struct Lines<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;
    fn next(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.data.len() {
            return None;
        }
        let at = self.pos;
        let rest = &self.data[at..];
        let (len, skip) = match rest.iter().position(|&b| b == b'\n') {
            Some(n) => (n, n + 1),
            None => (rest.len(), rest.len()),
        };
        self.pos += skip;
        let mut text = &rest[..len];
        if let [head @ .., b'\r'] = text {
            text = head;
        }
        Some(Line { at, text })
    }
}

/// A row's words, split at spaces and tabs, each with its offset.
fn words(line: Line<'_>) -> impl Iterator<Item = (usize, &[u8])> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let t = line.text;
        while i < t.len() && (t[i] == b' ' || t[i] == b'\t') {
            i += 1;
        }
        if i >= t.len() {
            return None;
        }
        let start = i;
        while i < t.len() && t[i] != b' ' && t[i] != b'\t' {
            i += 1;
        }
        Some((line.at + start, &t[start..i]))
    })
}

/// The rest of a row after its first `n` words, trimmed (names may hold
/// spaces).
fn rest_after(line: Line<'_>, n: usize) -> (usize, &[u8]) {
    match words(line).nth(n) {
        Some((at, _)) => (at, line.text[at - line.at..].trim_ascii_end()),
        None => (line.at + line.text.len(), &[]),
    }
}

fn err(at: usize, field: &dyn std::fmt::Display, why: impl Into<String>) -> DecodeError {
    DecodeError {
        offset: at as u64,
        field: field.to_string(),
        kind: ErrorKind::Invalid(why.into()),
    }
}

fn text(b: &[u8]) -> String {
    lossy_string(b)
}

/// The reader of one section's rows: its name for errors.
struct Rows<'a> {
    section: String,
    rows: Vec<Line<'a>>,
}

impl Rows<'_> {
    /// Row `row`'s name for errors, made into text only for one.
    fn field(&self, row: usize) -> RowName<'_> {
        RowName {
            section: &self.section,
            row,
        }
    }
}

/// "SECTION row N" (rows counted from 1).
#[derive(Clone, Copy)]
struct RowName<'a> {
    section: &'a str,
    row: usize,
}

impl std::fmt::Display for RowName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} row {}", self.section, self.row + 1)
    }
}

fn number<T: std::str::FromStr>(
    at: usize,
    w: &[u8],
    field: &dyn std::fmt::Display,
    what: &str,
) -> Result<T> {
    std::str::from_utf8(w)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| err(at, field, format!("{what} {:?} is not a number", text(w))))
}

/// The row's next word as a number; `at` (the row's start) for an error
/// when there is none.
fn next_number<'a, T: std::str::FromStr>(
    w: &mut impl Iterator<Item = (usize, &'a [u8])>,
    at: usize,
    field: &dyn std::fmt::Display,
    what: &str,
) -> Result<T> {
    let (a, v) = w
        .next()
        .ok_or_else(|| err(at, field, format!("no {what}")))?;
    number(a, v, field, what)
}

/// A word as an index below `limit`, the count of what it indexes (`of`).
fn index(
    at: usize,
    w: &[u8],
    field: &dyn std::fmt::Display,
    what: &str,
    (limit, of): (usize, &str),
) -> Result<u32> {
    let v: u32 = number(at, w, field, what)?;
    if v as usize >= limit {
        return Err(err(
            at,
            field,
            format!("{what} {v} is out of range ({limit} {of})"),
        ));
    }
    Ok(v)
}

/// The row's next word as an index below `limit` ([`index`]); `at` (the
/// row's start) for an error when there is none.
fn next_index<'a>(
    w: &mut impl Iterator<Item = (usize, &'a [u8])>,
    at: usize,
    field: &dyn std::fmt::Display,
    what: &str,
    limit: (usize, &str),
) -> Result<u32> {
    let (a, v) = w
        .next()
        .ok_or_else(|| err(at, field, format!("no {what}")))?;
    index(a, v, field, what, limit)
}

/// `#aarrggbb` (or without `#`), as m3d.h's `_m3d_gethex`: the value
/// m3d.h keeps, red in the low byte.
fn hex(at: usize, w: &[u8], field: &dyn std::fmt::Display, what: &str) -> Result<u32> {
    let digits = w.strip_prefix(b"#").unwrap_or(w);
    if digits.is_empty() || digits.len() > 8 {
        return Err(err(
            at,
            field,
            format!("{what} {:?} is not a hex number", text(w)),
        ));
    }
    std::str::from_utf8(digits)
        .ok()
        .and_then(|s| u32::from_str_radix(s, 16).ok())
        .ok_or_else(|| {
            err(
                at,
                field,
                format!("{what} {:?} is not a hex number", text(w)),
            )
        })
}

/// A skin's words (`bone` or `bone:weight`, at most 8), as m3d.h: a lone
/// first bone weighs 1, weights are divided by their sum when it is
/// neither 0 nor 1; kept as the binary form's weight bytes.
fn skin<'a>(
    words: impl Iterator<Item = (usize, &'a [u8])>,
    bones: usize,
    field: &dyn std::fmt::Display,
) -> Result<Option<Skin>> {
    let mut inf: Vec<(u32, f32)> = Vec::new();
    for (at, w) in words {
        if inf.len() == crate::m3d::MAX_INFLUENCES {
            return Err(err(at, field, "more than 8 bone influences"));
        }
        let (b, wt) = match w.iter().position(|&c| c == b':') {
            Some(i) => (
                index(at, &w[..i], field, "bone", (bones, "bones"))?,
                number::<f32>(at + i + 1, &w[i + 1..], field, "weight")?,
            ),
            None => (
                index(at, w, field, "bone", (bones, "bones"))?,
                if inf.is_empty() { 1.0 } else { 0.0 },
            ),
        };
        inf.push((b, wt));
    }
    let Some(&(_, w0)) = inf.first() else {
        return Ok(None);
    };
    // m3d.h keeps a skin only when its first weight is above 0 (NaN is not).
    if w0.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Ok(None);
    }
    let sum: f32 = inf.iter().map(|x| x.1).sum();
    let scale = if sum != 1.0 && sum != 0.0 {
        1.0 / sum
    } else {
        1.0
    };
    let bytes: Vec<(u32, u8)> = inf
        .iter()
        .filter(|x| x.1 > 0.0)
        .map(|&(b, w)| (b, (w * scale * 255.0).round().clamp(0.0, 255.0) as u8))
        .collect();
    Ok(Some(Skin::new(&bytes)))
}

/// The index of `s` in `skins`, added if new (m3d.h shares equal
/// records); `seen` finds it without a walk of every record.
fn skin_index(skins: &mut Vec<Skin>, seen: &mut HashMap<Skin, u32>, s: Skin) -> u32 {
    *seen.entry(s).or_insert_with(|| {
        skins.push(s);
        skins.len() as u32 - 1
    })
}

/// Reads a Model 3D file in its ASCII form.
pub fn decode(data: &[u8]) -> Result<M3d> {
    if !data.starts_with(MAGIC) {
        let found = &data[..data.len().min(4)];
        return Err(DecodeError {
            offset: 0,
            field: "file magic".into(),
            kind: ErrorKind::BadMagic {
                expected: "\"3dmo\"".into(),
                found: format!("{:02X?}", found),
            },
        });
    }
    let mut lines = Lines { data, pos: 0 }.peekable();
    let mut r = Reading {
        m: M3d {
            ascii: true,
            payload_len: data.len(),
            ..M3d::default()
        },
        undefined: HashSet::new(),
        material_of: HashMap::new(),
        parameters: HashSet::new(),
        seen_skins: HashMap::new(),
        skins: Vec::new(),
    };
    header(&mut lines, data.len(), &mut r.m)?;
    while let Some((head, rows)) = next_section(&mut lines) {
        r.section(head, rows)?;
    }
    r.finish()
}

type Text<'a> = std::iter::Peekable<Lines<'a>>;

/// The header: "3dmodel SCALE", then the name, the licence and the author,
/// a line each whatever they hold (as m3d.h reads them; the exporter writes
/// every one, empty or not), then the description's lines up to an empty
/// line.
fn header(lines: &mut Text<'_>, len: usize, m: &mut M3d) -> Result<()> {
    // The first line holds the magic, so there is one.
    let first = lines.next().unwrap_or(Line { at: 0, text: &[] });
    let scale = words(first)
        .nth(1)
        .map(|(at, w)| number::<f32>(at, w, &"header", "scale"))
        .transpose()?
        .unwrap_or(1.0);
    m.scale = if scale > 0.0 { scale } else { 1.0 };
    let mut header = [String::new(), String::new(), String::new()];
    for (h, l) in header.iter_mut().zip(lines.by_ref()) {
        *h = text(l.text);
    }
    [m.name, m.license, m.author] = header;
    let mut description = Vec::new();
    while let Some(l) = lines.next_if(|l| !l.text.is_empty()) {
        description.push(text(l.text));
    }
    m.description = description.join("\n");
    m.chunks.push(ChunkInfo {
        magic: Cow::Borrowed("header"),
        offset: 0,
        size: lines.peek().map_or(len, |l| l.at) as u32,
    });
    Ok(())
}

/// The next section's keyword line and rows, after the empty lines
/// between sections; none at the text's end or an `End` line.
fn next_section<'a>(lines: &mut Text<'a>) -> Option<(Line<'a>, Vec<Line<'a>>)> {
    while lines.next_if(|l| l.text.is_empty()).is_some() {}
    let head = lines.next().filter(|h| !h.text.starts_with(b"End"))?;
    let mut rows = Vec::new();
    while let Some(l) = lines.next_if(|l| !l.text.is_empty()) {
        rows.push(l);
    }
    Some((head, rows))
}

/// A vertex row with a skin, read once the Bones section is known
/// ([`Reading::finish`]).
struct SkinRow<'a> {
    vertex: usize,
    line: Line<'a>,
    /// The row's words before the skin.
    skip: usize,
    /// The row's number in the Vertex section.
    row: usize,
}

/// The model as read so far, and the names looked up by every row that
/// uses them: in maps, so that no file makes the reading quadratic.
struct Reading<'a> {
    m: M3d,
    undefined: HashSet<String>,
    material_of: HashMap<String, u32>,
    parameters: HashSet<String>,
    seen_skins: HashMap<Skin, u32>,
    skins: Vec<SkinRow<'a>>,
}

impl<'a> Reading<'a> {
    /// Reads one section: its keyword line `head` and its `rows`.
    fn section(&mut self, head: Line<'a>, rows: Vec<Line<'a>>) -> Result<()> {
        let end = rows
            .last()
            .map_or(head.at + head.text.len(), |l| l.at + l.text.len());
        let (kat, keyword) = words(head).next().unwrap_or((head.at, b""));
        let (_, arg) = rest_after(head, 1);
        let Some(known) = Section::of(keyword) else {
            return Err(err(
                kat,
                &"section",
                format!("{:?} is not a section of the ASCII form", text(keyword)),
            ));
        };
        let m = &mut self.m;
        m.chunks.push(ChunkInfo {
            magic: Cow::Borrowed(known.name()),
            offset: head.at,
            size: (end - head.at) as u32,
        });
        let section = if arg.is_empty() {
            known.name().to_string()
        } else {
            format!("{} {:?}", known.name(), text(arg))
        };
        let rows = Rows { section, rows };
        match known {
            Section::Preview => m.warnings.push(format!(
                "Preview at {:#X}: names an image file, which the ASCII form keeps outside the model; not read",
                head.at
            )),
            Section::Assets => {
                for l in &rows.rows {
                    m.warnings.push(format!(
                        "Assets at {:#X}: {:?} names a file to inline, which the ASCII form keeps outside the model; not read",
                        l.at,
                        text(l.text)
                    ));
                }
            }
            Section::Extra => {}
            Section::Textmap => textmap(m, head, &rows)?,
            Section::Vertex => self.vertex(head, &rows)?,
            Section::Bones => bones(m, head, &rows)?,
            Section::Material => self.material(head, text(arg), &rows)?,
            Section::Procedural => {
                if let Some(l) = rows.rows.first() {
                    m.procedures.push(text(rest_after(*l, 0).1));
                }
            }
            Section::Mesh => self.mesh(&rows)?,
            Section::VoxTypes => self.vox_types(head, &rows)?,
            Section::Voxel => voxel_block(m, text(arg), &rows)?,
            Section::Shape => {
                let name = text(arg);
                if name.is_empty() {
                    return Err(err(head.at, &"Shape", "no shape name"));
                }
                m.shapes.push((name, (end - head.at) as u32));
            }
            Section::Labels => labels(m, text(arg), &rows)?,
            Section::Action => action(m, head, &rows)?,
        }
        Ok(())
    }

    /// `x y z w [#colour] [skin]` a row; the skins are read at the end.
    fn vertex(&mut self, head: Line<'_>, rows: &Rows<'a>) -> Result<()> {
        let m = &mut self.m;
        if !m.vertices.is_empty() {
            return Err(err(head.at, &"Vertex", "a second Vertex section"));
        }
        m.vertices.reserve(rows.rows.len());
        for (i, &l) in rows.rows.iter().enumerate() {
            let f = rows.field(i);
            let mut w = words(l).peekable();
            let mut pos = [0f32; 4];
            for (p, what) in pos.iter_mut().zip(["x", "y", "z", "w"]) {
                *p = next_number(&mut w, l.at, &f, what)?;
            }
            let mut color = 0;
            let mut skip = 4;
            if let Some((at, c)) = w.next_if(|(_, c)| c.starts_with(b"#")) {
                color = hex(at, c, &f, "colour")?;
                skip = 5;
            }
            // The skin's bones come in the Bones section, after this one:
            // read once they are known.
            if w.next().is_some() {
                self.skins.push(SkinRow {
                    vertex: m.vertices.len(),
                    line: l,
                    skip,
                    row: i,
                });
            }
            m.vertices.push(Vertex {
                pos,
                color,
                skin: NONE,
            });
        }
        Ok(())
    }

    /// `Material NAME`: a property a row, `KEY value`.
    fn material(&mut self, head: Line<'_>, name: String, rows: &Rows<'_>) -> Result<()> {
        let m = &mut self.m;
        if name.is_empty() {
            return Err(err(head.at, &"Material", "no material name"));
        }
        if self.material_of.contains_key(&name) {
            m.warnings.push(format!(
                "Material {name:?} at {:#X}: defined before; this one is skipped",
                head.at
            ));
            return Ok(());
        }
        let mut props = Vec::new();
        for (i, &l) in rows.rows.iter().enumerate() {
            let f = rows.field(i);
            let mut w = words(l);
            let Some((kat, key)) = w.next() else { continue };
            let Some(ty) = property_of(key) else {
                m.warnings.push(format!(
                    "{f} at {kat:#X}: unknown material property {:?}; skipped",
                    text(key)
                ));
                continue;
            };
            let (vat, value) = rest_after(l, 1);
            if value.is_empty() {
                return Err(err(vat, &f, format!("no value for {:?}", text(key))));
            }
            let first = words(Line {
                at: vat,
                text: value,
            })
            .next()
            .unwrap_or((vat, value));
            let value = match ty {
                128.. => PropValue::Map(text(value)),
                0 | 1 | 2 | 4 | 5 => PropValue::Color(hex(first.0, first.1, &f, "colour")?),
                8 => PropValue::Int(number(first.0, first.1, &f, "value")?),
                _ => PropValue::Float(number(first.0, first.1, &f, "value")?),
            };
            props.push(Property { ty, value });
        }
        // As m3d.h: a material without properties is dropped.
        if !props.is_empty() {
            self.material_of
                .insert(name.clone(), m.materials.len() as u32);
            m.materials.push(Material { name, props });
        }
        Ok(())
    }

    /// Triangles, `usemtl NAME` and `param NAME` rows.
    fn mesh(&mut self, rows: &Rows<'_>) -> Result<()> {
        let m = &mut self.m;
        let (vertices, nt) = ((m.vertices.len(), "vertices"), m.tmap.len());
        let mut material: Option<u32> = None;
        for (i, &l) in rows.rows.iter().enumerate() {
            let f = rows.field(i);
            let Some((_, first)) = words(l).next() else {
                continue; // spaces only
            };
            // As m3d.h tells rows apart: by their first letter.
            if first[0] == b'u' {
                let name = text(rest_after(l, 1).1);
                material = self.material_of.get(&name).copied();
                if material.is_none() && !name.is_empty() && !self.undefined.contains(&name) {
                    m.warnings.push(format!(
                        "material {name:?} (used at {:#X}) is not defined (a material library \
                         would define it); drawn with vertex colours",
                        l.at
                    ));
                    self.undefined.insert(name);
                }
                continue;
            }
            if first[0] == b'p' {
                let name = text(rest_after(l, 1).1);
                if !name.is_empty() && self.parameters.insert(name.clone()) {
                    m.parameters.push(name);
                }
                continue;
            }
            // Triangles, as m3d.h reads and writes them: v[/t][/n][/max]
            // three times.
            let mut points = [FacePoint::vertex(0); 3];
            let mut w = words(l);
            for (j, p) in points.iter_mut().enumerate() {
                let (at, c) = w
                    .next()
                    .ok_or_else(|| err(l.at, &f, format!("{j} corners of a triangle's 3")))?;
                let mut parts = c.split(|&b| b == b'/');
                let mut part = |what: &str, limit| -> Result<Option<u32>> {
                    match parts.next() {
                        None | Some(b"") => Ok(None),
                        Some(v) => index(at, v, &f, what, limit).map(Some),
                    }
                };
                let v = part("vertex", vertices)?
                    .ok_or_else(|| err(at, &f, "a corner without its vertex"))?;
                let t = part("texture coordinate", (nt, "in the Textmap"))?;
                let n = part("normal", vertices)?;
                let x = part("maximum vertex", vertices)?;
                *p = FacePoint::new(v, t, n, x);
            }
            if let Some((at, _)) = w.next() {
                return Err(err(at, &f, "more than a triangle's 3 corners"));
            }
            m.faces.push(material, &points);
        }
        Ok(())
    }

    /// `#colour[/rotation[/shape]] [name] [skin] [{ count name ... }]` a
    /// row.
    fn vox_types(&mut self, head: Line<'_>, rows: &Rows<'_>) -> Result<()> {
        let m = &mut self.m;
        if !m.voxel_types.is_empty() {
            return Err(err(head.at, &"VoxTypes", "a second VoxTypes section"));
        }
        for (i, &l) in rows.rows.iter().enumerate() {
            let f = rows.field(i);
            let mut w = words(l).peekable();
            let Some((cat, c)) = w.next() else {
                continue; // spaces only
            };
            // #colour[/rotation[/shape]], the last two in hex.
            let mut parts = c.split(|&b| b == b'/');
            let color = hex(cat, parts.next().unwrap_or(b""), &f, "colour")?;
            let mut field = |what: &str, max: u32| -> Result<u32> {
                match parts.next() {
                    None | Some(b"") => Ok(0),
                    Some(v) => {
                        let x = hex(cat, v, &f, what)?;
                        if x > max {
                            return Err(err(cat, &f, format!("{what} {x:#x} is over {max:#x}")));
                        }
                        Ok(x)
                    }
                }
            };
            let rotation = field("rotation", 0xFF)? as u8;
            let shape = field("shape", 0x1FF)? as u16;
            // A name, or "-" (none), then an optional skin, then optional
            // items in braces.
            let name = match w.next_if(|(_, x)| !x.starts_with(b"{")) {
                Some((_, b"-")) | None => String::new(),
                Some((_, x)) => text(x),
            };
            let mut skin_words = Vec::new();
            while let Some(x) = w.next_if(|(_, x)| !x.starts_with(b"{")) {
                skin_words.push(x);
            }
            let mut items = Vec::new();
            if let Some((bat, _)) = w.next() {
                let rest: Vec<(usize, &[u8])> = w.collect();
                let Some(((_, b"}"), list)) = rest.split_last() else {
                    return Err(err(bat, &f, "items without their closing \"}\""));
                };
                if list.len() % 2 != 0 {
                    return Err(err(bat, &f, "an item count without its name"));
                }
                for pair in list.chunks_exact(2) {
                    let n: u16 = number(pair[0].0, pair[0].1, &f, "item count")?;
                    items.push((n, text(pair[1].1)));
                }
            }
            let skin = match skin(skin_words.into_iter(), m.bones.len(), &f)? {
                Some(s) => skin_index(&mut m.skins, &mut self.seen_skins, s),
                None => NONE,
            };
            m.voxel_types.push(VoxelType {
                color,
                name,
                rotation,
                shape,
                skin,
                items,
            });
        }
        Ok(())
    }

    /// The vertices' skins, now that the bones are known, and the binary
    /// form's type sizes: the model.
    fn finish(mut self) -> Result<M3d> {
        let m = &mut self.m;
        for s in self.skins {
            let f = RowName {
                section: "Vertex",
                row: s.row,
            };
            // A bone's or a frame's orientation keeps its mark (m3d.h sets
            // it after the skin).
            if let Some(k) = skin(words(s.line).skip(s.skip), m.bones.len(), &f)?
                && m.vertices[s.vertex].skin != QUATERNION
            {
                m.vertices[s.vertex].skin = skin_index(&mut m.skins, &mut self.seen_skins, k);
            }
        }
        m.types = types_of(m);
        Ok(self.m)
    }
}

/// `u v` a row.
fn textmap(m: &mut M3d, head: Line<'_>, rows: &Rows<'_>) -> Result<()> {
    if !m.tmap.is_empty() {
        return Err(err(head.at, &"Textmap", "a second Textmap section"));
    }
    m.tmap.reserve(rows.rows.len());
    for (i, &l) in rows.rows.iter().enumerate() {
        let f = rows.field(i);
        let mut w = words(l);
        let u = next_number(&mut w, l.at, &f, "u")?;
        m.tmap.push([u, next_number(&mut w, l.at, &f, "v")?]);
    }
    Ok(())
}

/// `[/...]position orientation name` a row, a `/` for each level under
/// the first bone.
fn bones(m: &mut M3d, head: Line<'_>, rows: &Rows<'_>) -> Result<()> {
    if !m.bones.is_empty() {
        return Err(err(head.at, &"Bones", "a second Bones section"));
    }
    // The bone last seen at each depth (`/` per level).
    let mut stack: Vec<u32> = Vec::new();
    for (i, &l) in rows.rows.iter().enumerate() {
        let f = rows.field(i);
        let level = l.text.iter().take_while(|&&c| c == b'/').count();
        if level > stack.len() {
            return Err(err(
                l.at,
                &f,
                match stack.len() {
                    0 => format!("the first bone is {level} levels deep, under no bone"),
                    d => format!(
                        "{level} levels deep, more than one under the bone before ({} deep)",
                        d - 1
                    ),
                },
            ));
        }
        stack.truncate(level);
        let body = Line {
            at: l.at + level,
            text: &l.text[level..],
        };
        let mut w = words(body);
        let vertices = (m.vertices.len(), "vertices");
        let pos = next_index(&mut w, body.at, &f, "position vertex", vertices)?;
        let ori = next_index(&mut w, body.at, &f, "orientation vertex", vertices)?;
        let (_, name) = rest_after(body, 2);
        if name.is_empty() {
            return Err(err(body.at, &f, "no bone name"));
        }
        m.vertices[ori as usize].skin = QUATERNION;
        m.bones.push(crate::m3d::Bone {
            parent: stack.last().copied(),
            name: text(name),
            pos,
            ori,
        });
        stack.push(m.bones.len() as u32 - 1);
    }
    Ok(())
}

/// `Labels [GROUP]`: `color #c` and `lang NAME` rows, each setting the
/// labels after it, and `vertex text` a label.
fn labels(m: &mut M3d, group: String, rows: &Rows<'_>) -> Result<()> {
    let (mut color, mut lang) = (0u32, String::new());
    let nv = m.vertices.len();
    for (i, &l) in rows.rows.iter().enumerate() {
        let f = rows.field(i);
        let Some((wat, first)) = words(l).next() else {
            continue; // spaces only
        };
        match first[0] {
            b'c' => {
                let (at, c) = words(l).nth(1).ok_or_else(|| err(wat, &f, "no colour"))?;
                color = hex(at, c, &f, "colour")?;
            }
            b'l' => lang = text(rest_after(l, 1).1),
            _ => {
                let vertex = index(wat, first, &f, "vertex", (nv, "vertices"))?;
                m.labels.push(Label {
                    group: group.clone(),
                    lang: lang.clone(),
                    color,
                    vertex,
                    text: text(rest_after(l, 1).1),
                });
            }
        }
    }
    Ok(())
}

/// `Action DURATION NAME`: `frame MSEC` rows, each followed by its
/// `bone position orientation` rows.
fn action(m: &mut M3d, head: Line<'_>, rows: &Rows<'_>) -> Result<()> {
    let mut w = words(head).skip(1);
    let (dat, d) = w
        .next()
        .ok_or_else(|| err(head.at, &"Action", "no duration"))?;
    let duration_ms: u32 = number(dat, d, &"Action", "duration")?;
    let (_, name) = rest_after(head, 2);
    let name = text(name);
    let section = format!("Action {name:?}");
    let mut frames: Vec<Frame> = Vec::new();
    let mut transforms: Vec<Transform> = Vec::new();
    for (i, &l) in rows.rows.iter().enumerate() {
        let f = RowName {
            section: &section,
            row: i,
        };
        let mut w = words(l);
        let Some((at, first)) = w.next() else {
            continue; // spaces only
        };
        if first[0] == b'f' {
            let (mat, ms) = w.next().ok_or_else(|| err(at, &f, "no frame time"))?;
            let msec: u32 = number(mat, ms, &f, "frame time")?;
            if frames.is_empty() {
                // As m3d.h reads it (m3d.h line 3110): an action's first
                // frame is at 0 ms, its marker skipped.
                if msec != 0 {
                    m.warnings.push(format!(
                        "{f} at {at:#X}: the first frame is at 0 ms, not {msec} (as m3d.h reads it)"
                    ));
                }
                frames.push(Frame {
                    msec: 0,
                    transforms: 0..0,
                });
            } else {
                let n = transforms.len() as u32;
                frames.push(Frame {
                    msec,
                    transforms: n..n,
                });
            }
            continue;
        }
        let bone = index(at, first, &f, "bone", (m.bones.len(), "bones"))?;
        let vertices = (m.vertices.len(), "vertices");
        let pos = next_index(&mut w, at, &f, "position vertex", vertices)?;
        let ori = next_index(&mut w, at, &f, "orientation vertex", vertices)?;
        transforms.push(Transform { bone, pos, ori });
        // Transforms before any marker are the first frame's.
        match frames.last_mut() {
            Some(frame) => frame.transforms.end = transforms.len() as u32,
            None => frames.push(Frame {
                msec: 0,
                transforms: 0..transforms.len() as u32,
            }),
        }
    }
    for t in &transforms {
        m.vertices[t.ori as usize].skin = QUATERNION;
    }
    m.actions.push(Action {
        name,
        duration_ms,
        frames,
        transforms,
    });
    Ok(())
}

/// The binary form's type sizes this model would be written with: what
/// the scene reads from them (whether vertices have colours) follows the
/// text.
fn types_of(m: &M3d) -> Types {
    let some = |b: bool| if b { 4 } else { 0 };
    let most = m.skins.iter().map(|s| s.len()).max().unwrap_or(1);
    Types {
        vc: 4,
        vi: 4,
        si: 4,
        ci: some(m.vertices.iter().any(|v| v.color != 0)),
        ti: some(!m.tmap.is_empty()),
        bi: some(!m.bones.is_empty()),
        nb: most.next_power_of_two().clamp(1, 8) as u8,
        sk: some(!m.skins.is_empty()),
        fc: some(!m.actions.is_empty()),
        hi: some(!m.shapes.is_empty()),
        fi: some(!m.labels.is_empty()),
        vd: 4,
        vp: 2,
    }
}

/// A `Voxel` section: `uncertain`, `pos` and `dim` rows, then each layer
/// (y) as `layer` and a row per z of `dim`'s width of values: a type's
/// number, `.` for unset or `-` for clear (the exporter's marks). The last
/// layer given may end early (as a binary block's data may); a layer
/// before it may not, nor may a row.
fn voxel_block(m: &mut M3d, name: String, rows: &Rows<'_>) -> Result<()> {
    if m.voxel_types.is_empty() {
        return Err(err(
            rows.rows.first().map_or(0, |l| l.at),
            &rows.section.as_str(),
            "voxel data before the VoxTypes section",
        ));
    }
    let mut block = BlockText {
        b: VoxelBlock {
            name,
            pos: [0; 3],
            size: [0; 3],
            uncertainty: 0,
            group: 0,
            data: Vec::new(),
        },
        types: m.voxel_types.len(),
        layers: 0,
        row: 0,
    };
    for (i, &l) in rows.rows.iter().enumerate() {
        let f = rows.field(i);
        let mut w = words(l);
        let Some((at, first)) = w.next() else {
            continue; // spaces only
        };
        // As m3d.h tells rows apart: by their first letter.
        match first[0] {
            b'u' => block.uncertainty(l, at, &f, &mut w)?,
            b'p' => block.position(at, &f, &mut w)?,
            b'd' => block.size(at, &f, &mut w)?,
            b'l' => block.layer(at, &f)?,
            _ => block.voxels(l, at, &f)?,
        }
    }
    m.voxel_blocks.push(block.b);
    Ok(())
}

/// A voxel block being read from its section's rows.
struct BlockText {
    b: VoxelBlock,
    /// The file's voxel types.
    types: usize,
    /// Layers begun, and rows of the current one.
    layers: u64,
    row: u64,
}

impl BlockText {
    /// `uncertainty PERCENT [GROUP]`: out-of-range values are 0.
    fn uncertainty<'a>(
        &mut self,
        l: Line<'_>,
        at: usize,
        f: &RowName<'_>,
        w: &mut impl Iterator<Item = (usize, &'a [u8])>,
    ) -> Result<()> {
        let pct: i64 = next_number(w, at, f, "uncertainty")?;
        self.b.uncertainty = ((if pct > 0 && pct < 256 { pct } else { 0 }) * 255 / 100) as u8;
        let g = words(l)
            .nth(2)
            .map(|(a, v)| number::<i64>(a, v, f, "group"))
            .transpose()?;
        self.b.group = g.filter(|&g| g > 0 && g < 256).unwrap_or(0) as u8;
        Ok(())
    }

    /// `pos X Y Z`, each in 32 bits.
    fn position<'a>(
        &mut self,
        at: usize,
        f: &RowName<'_>,
        w: &mut impl Iterator<Item = (usize, &'a [u8])>,
    ) -> Result<()> {
        for k in 0..3 {
            let v: i64 = next_number(w, at, f, ["x", "y", "z"][k])?;
            self.b.pos[k] = i32::try_from(v)
                .map_err(|_| err(at, f, format!("position {v} is out of 32 bits")))?;
        }
        Ok(())
    }

    /// `dim WIDTH HEIGHT DEPTH`, each 1 to 2^32 - 1, before any layer.
    fn size<'a>(
        &mut self,
        at: usize,
        f: &RowName<'_>,
        w: &mut impl Iterator<Item = (usize, &'a [u8])>,
    ) -> Result<()> {
        if self.layers > 0 {
            return Err(err(at, f, "a size after the layers began"));
        }
        for k in 0..3 {
            let v: i64 = next_number(w, at, f, ["width", "height", "depth"][k])?;
            self.b.size[k] = u32::try_from(v)
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| err(at, f, format!("size {v} is not 1 to 2^32 - 1")))?;
        }
        Ok(())
    }

    /// `layer`: the next of the block's height, after the size and after
    /// every row of the layer before.
    fn layer(&mut self, at: usize, f: &RowName<'_>) -> Result<()> {
        let b = &self.b;
        if b.size.contains(&0) {
            return Err(err(at, f, "a layer before the block's size (dim)"));
        }
        if self.layers > 0 && self.row < b.size[2] as u64 {
            return Err(err(
                at,
                f,
                format!(
                    "layer {} ends after {} of its {} rows",
                    self.layers, self.row, b.size[2]
                ),
            ));
        }
        if self.layers == b.size[1] as u64 {
            return Err(err(
                at,
                f,
                format!("more than the block's {} layers", b.size[1]),
            ));
        }
        self.layers += 1;
        self.row = 0;
        Ok(())
    }

    /// A row of the current layer: exactly the block's width of voxels,
    /// each `.` (unset), `-` (clear) or a voxel type.
    fn voxels(&mut self, l: Line<'_>, at: usize, f: &RowName<'_>) -> Result<()> {
        let b = &mut self.b;
        if self.layers == 0 {
            return Err(err(at, f, "voxels before the first layer"));
        }
        if self.row == b.size[2] as u64 {
            return Err(err(
                at,
                f,
                format!("more than the layer's {} rows", b.size[2]),
            ));
        }
        let width = b.size[0] as usize;
        let before = b.data.len();
        for (a, v) in words(l) {
            if b.data.len() - before == width {
                return Err(err(
                    a,
                    f,
                    format!("more than the block's width of {width} voxels"),
                ));
            }
            b.data.push(match v {
                b"." => VOXEL_UNSET,
                b"-" => VOXEL_CLEAR,
                _ => {
                    // Below the two marks' values, too.
                    let limit = self.types.min(VOXEL_CLEAR as usize);
                    index(a, v, f, "voxel type", (limit, "types"))? as u16
                }
            });
        }
        if b.data.len() - before < width {
            return Err(err(
                at,
                f,
                format!(
                    "{} voxels in a row of the block's width of {width}",
                    b.data.len() - before
                ),
            ));
        }
        self.row += 1;
        Ok(())
    }
}
