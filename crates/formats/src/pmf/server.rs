//! Server data: teams and the entity block.

use super::*;

pub(super) struct RefCheck {
    pub(super) material_count: usize,
    pub(super) dynamic_lights: usize,
    pub(super) team_count: usize,
}

pub(super) fn server_data(
    r: &mut Reader,
    s: &Strings,
    material_count: usize,
    dynamic_light_count: u16,
) -> Result<(Vec<Team>, Entities)> {
    let n = r.u8("team count")? as usize;
    let teams = r.array(n, 16, "team", |r, i| {
        let at = r.pos();
        let off = r.u32(&format!("team {i} name"))?;
        Ok(Team {
            name: s.get(r, at, off, &format!("team {i} name"))?,
            color: r.vec3(&format!("team {i} color"))?,
        })
    })?;
    let check = RefCheck {
        material_count,
        dynamic_lights: dynamic_light_count as usize,
        team_count: teams.len(),
    };
    let n = r.u32("entity count")? as usize;
    let mut refs = Vec::new();
    let entities = r.array(n, 8, "entity", |r, i| {
        let at = r.pos();
        let off = r.u32(&format!("entity {i} name"))?;
        let name = s.get(r, at, off, &format!("entity {i} name"))?;
        r.set_ctx(format!("entity {i} {:?}", name.text));
        let at = r.pos();
        let kind = r.u8("type")?;
        let Some((_, fields)) = ENTITY_KINDS.get(kind as usize) else {
            return Err(r.err(at, "type", format!("{kind} (types are 0..21)")));
        };
        let difficulties = r.u8("difficulties")?;
        let gamemodes = r.u16("gamemodes")?;
        let values = read_fields(r, fields, s, &check, &mut refs)?;
        r.clear_ctx();
        Ok(Entity {
            name,
            kind,
            difficulties,
            gamemodes,
            fields: values,
        })
    })?;
    let actions = records(r, "action", &ACTION_KINDS, s, &check, &mut refs)?;
    let filters = records(r, "filter", &FILTER_KINDS, s, &check, &mut refs)?;
    let selectors = records(r, "selector", &SELECTOR_KINDS, s, &check, &mut refs)?;
    // Every byte-index reference lands on the start of a record.
    for (at, what, idx) in refs {
        let list: &[Record] = match what {
            Field::Filter => &filters,
            Field::Selector => &selectors,
            _ => &actions,
        };
        if list.binary_search_by_key(&idx, |rec| rec.at).is_err() {
            let name = match what {
                Field::Filter => "filter",
                Field::Selector => "selector",
                _ => "action",
            };
            return Err(r.err(
                at,
                name,
                format!("byte index {idx} is not the start of a {name} record"),
            ));
        }
    }
    Ok((
        teams,
        Entities {
            entities,
            actions,
            filters,
            selectors,
        },
    ))
}

/// `(offset of the reference, list, byte index)` of every reference to a
/// filter, selector or action, checked once all lists are read.
pub(super) type Refs = Vec<(usize, Field, u32)>;

pub(super) fn records(
    r: &mut Reader,
    what: &str,
    kinds: &[(&'static str, Fields)],
    s: &Strings,
    check: &RefCheck,
    refs: &mut Refs,
) -> Result<Vec<Record>> {
    let n = r.u32(&format!("{what} count"))? as usize;
    let start = r.pos();
    r.array(n, 1, what, |r, i| {
        let at = r.pos();
        r.set_ctx(format!("{what} {i}"));
        let kind = r.u8("type")?;
        let Some((_, fields)) = kinds.get(kind as usize) else {
            return Err(r.err(
                at,
                "type",
                format!("{kind} (types are 0..{})", kinds.len() - 1),
            ));
        };
        let fields = read_fields(r, fields, s, check, refs)?;
        r.clear_ctx();
        Ok(Record {
            at: (at - start) as u32,
            kind,
            fields,
        })
    })
}

pub(super) fn read_fields(
    r: &mut Reader,
    fields: Fields,
    s: &Strings,
    check: &RefCheck,
    refs: &mut Refs,
) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(fields.len());
    for &(name, kind) in fields {
        out.push(field(r, name, kind, s, check, refs)?);
    }
    Ok(out)
}

/// One field of kind `kind`, called `name` in errors: checked where its
/// kind bounds it (flags, enums, teams, materials, lights), its references
/// to entities added to `refs` for checking once all are read.
fn field(
    r: &mut Reader,
    name: &str,
    kind: Field,
    s: &Strings,
    check: &RefCheck,
    refs: &mut Refs,
) -> Result<Value> {
    let at = r.pos();
    Ok(match kind {
        Field::Flags(names) => Value::Flags(flags(r, name, names.len())?),
        Field::Enum(names) => {
            let v = r.u8(name)?;
            if v as usize >= names.len() {
                let values = format!("{v} (values are 0..{})", names.len() - 1);
                return Err(r.err(at, name, values));
            }
            Value::Enum(v)
        }
        Field::U16 => Value::U16(r.u16(name)?),
        Field::U32 => Value::U32(r.u32(name)?),
        Field::I16 => Value::I16(r.i16(name)?),
        Field::F32 => Value::F32(r.f32(name)?),
        Field::Vec2 => Value::Vec2(r.vec2(name)?),
        Field::Vec3 => Value::Vec3(r.vec3(name)?),
        Field::Vec4 => Value::Vec4([r.f32(name)?, r.f32(name)?, r.f32(name)?, r.f32(name)?]),
        Field::I8x2 => Value::I8x2([r.i8(name)?, r.i8(name)?]),
        Field::Str => {
            let off = r.u32(name)?;
            Value::Str(s.get(r, at, off, name)?)
        }
        Field::Signals => {
            let n = r.u16(name)? as usize;
            Value::Signals(r.array(n, 4, name, |r, i| {
                let at = r.pos();
                let off = r.u32(&format!("{name} {i}"))?;
                s.get(r, at, off, &format!("{name} {i}"))
            })?)
        }
        Field::Filter | Field::Selector => {
            let v = r.u32(name)?;
            refs.push((at, kind, v));
            if kind == Field::Filter {
                Value::Filter(v)
            } else {
                Value::Selector(v)
            }
        }
        Field::Actions => {
            let n = r.u8(name)? as usize;
            Value::Actions(r.array(n, 4, name, |r, _| {
                let at = r.pos();
                let v = r.u32(name)?;
                refs.push((at, Field::Actions, v));
                Ok(v)
            })?)
        }
        Field::Team => Value::Team(team(r, name, check.team_count)?),
        Field::Material => Value::Material(below(r, name, check.material_count, "materials")?),
        Field::Light => Value::Light(below(r, name, check.dynamic_lights, "dynamic lights")?),
    })
}

/// A flags byte of `bits` defined bits: any other set is an error.
fn flags(r: &mut Reader, name: &str, bits: usize) -> Result<u8> {
    let at = r.pos();
    let v = r.u8(name)?;
    let used = (1u16 << bits) - 1;
    if v as u16 & !used != 0 {
        let defined = format!("{v:#04X} (only the low {bits} bits are defined)");
        return Err(r.err(at, name, defined));
    }
    Ok(v)
}

/// A team reference: the byte index of one of `teams` 16-byte records.
fn team(r: &mut Reader, name: &str, teams: usize) -> Result<u32> {
    let at = r.pos();
    let v = r.u32(name)?;
    if v % 16 != 0 || (v / 16) as usize >= teams {
        return Err(r.err(
            at,
            name,
            format!(
                "byte index {v} is not the start of one of the {teams} team records (16 bytes each)"
            ),
        ));
    }
    Ok(v)
}

/// A u16 index into the map's `count` `things` (materials, dynamic
/// lights).
fn below(r: &mut Reader, name: &str, count: usize, things: &str) -> Result<u16> {
    let at = r.pos();
    let v = r.u16(name)?;
    if v as usize >= count {
        return Err(r.err(at, name, format!("{v} (the map has {count} {things})")));
    }
    Ok(v)
}
