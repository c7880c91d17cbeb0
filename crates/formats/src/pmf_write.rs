//! PMF writer: the exact inverse of [`super::pmf::decode`] (tests, the map
//! generator and `assets/demo.pmf`). Strings are written as the offsets the
//! map's [`Text`]s carry into its tables; [`intern_strings`] builds those
//! tables and offsets for a map made in code.

use super::pmf::*;

type W = Result<(), String>;

struct Out(Vec<u8>);

impl Out {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u24(&mut self, v: u32, what: &str) -> W {
        if v >= 1 << 24 {
            return Err(format!("{what}: {v} does not fit in 24 bits"));
        }
        self.0.extend_from_slice(&v.to_le_bytes()[..3]);
        Ok(())
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.0.extend_from_slice(&x.to_le_bytes());
        }
    }
    fn cstr(&mut self, s: &str, what: &str) -> W {
        if s.as_bytes().contains(&0) {
            return Err(format!("{what}: contains a NUL"));
        }
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        Ok(())
    }
    /// `<u32 decompressed> <u32 compressed> <LZ4 block>`.
    fn block(&mut self, data: &[u8]) {
        let c = lz4_flex::block::compress(data);
        self.u32(data.len() as u32);
        self.u32(c.len() as u32);
        self.0.extend_from_slice(&c);
    }
    fn luxels(&mut self, luxels: &[u16]) {
        let bytes: Vec<u8> = luxels.iter().flat_map(|l| l.to_le_bytes()).collect();
        let c = lz4_flex::block::compress(&bytes);
        self.u32(c.len() as u32);
        self.0.extend_from_slice(&c);
    }
}

fn count<T: TryFrom<usize>>(n: usize, what: &str) -> Result<T, String> {
    T::try_from(n).map_err(|_| format!("{what}: {n} is too many for the format"))
}

/// Encodes `map`. Fails on counts the format cannot hold.
pub fn encode(map: &Pmf) -> Result<Vec<u8>, String> {
    let mut o = Out(Vec::new());
    o.0.extend_from_slice(MAGIC);
    o.u8(map.version.0);
    o.u8(map.version.1);
    o.cstr(&map.name, "name")?;
    o.cstr(&map.authors, "authors")?;
    o.cstr(&map.description, "description")?;
    o.u32(map.created);
    if !(1..=16).contains(&map.gamemodes.len()) || !(1..=8).contains(&map.difficulties.len()) {
        return Err("1..16 gamemodes and 1..8 difficulties are required".into());
    }
    o.u8(map.gamemodes.len() as u8);
    for g in &map.gamemodes {
        o.cstr(g, "gamemode")?;
    }
    o.u8(map.difficulties.len() as u8);
    for d in &map.difficulties {
        o.cstr(d, "difficulty")?;
    }
    o.u16(count(map.materials.len(), "materials")?);
    o.u16(map.dynamic_light_count);
    o.u16(count(map.fast_lights.len(), "fast lights")?);

    let mut shared = Out(Vec::new());
    for m in &map.materials {
        shared.u8((m.has_alpha as u8) << 1 | m.is_fluid as u8);
        shared.f32s(&[
            m.speed_mul,
            m.accel_mul,
            m.min_damage_speed,
            m.base_damage,
            m.damage_per_mps,
        ]);
    }
    o.block(&shared.0);

    let mut server = Out(Vec::new());
    server.u8(count(map.teams.len(), "teams")?);
    for t in &map.teams {
        server.u32(t.name.offset);
        server.f32s(&t.color);
    }
    let e = &map.entities;
    server.u32(count(e.entities.len(), "entities")?);
    for ent in &e.entities {
        server.u32(ent.name.offset);
        server.u8(ent.kind);
        server.u8(ent.difficulties);
        server.u16(ent.gamemodes);
        write_values(&mut server, &ent.fields)?;
    }
    for list in [&e.actions, &e.filters, &e.selectors] {
        server.u32(count(list.len(), "records")?);
        let start = server.0.len();
        for rec in list.iter() {
            if rec.at as usize != server.0.len() - start {
                return Err(format!(
                    "record at byte {} is written at byte {}",
                    rec.at,
                    server.0.len() - start
                ));
            }
            server.u8(rec.kind);
            write_values(&mut server, &rec.fields)?;
        }
    }
    o.block(&server.0);

    let mut client = Out(Vec::new());
    for m in &map.materials {
        client.u32(m.appearance.offset);
    }
    for l in &map.fast_lights {
        client.f32s(l);
    }
    o.block(&client.0);

    let expected: usize = map.sector_counts.iter().map(|&c| c as usize).product();
    if expected != map.sectors.len() {
        return Err(format!(
            "{} sectors for a {:?} grid",
            map.sectors.len(),
            map.sector_counts
        ));
    }
    o.0.extend_from_slice(&map.sector_counts);
    o.u8(map.sector_size_exp);
    for (i, s) in map.sectors.iter().enumerate() {
        write_sector(&mut o, s).map_err(|e| format!("sector {i}: {e}"))?;
    }
    o.block(&map.server_strings);
    o.block(&map.client_strings);
    Ok(o.0)
}

fn write_sector(o: &mut Out, s: &Sector) -> W {
    o.0.extend_from_slice(&s.load_radius);
    if s.lightmaps.is_empty() {
        return Err("a sector needs at least one lightmap".into());
    }
    o.u8(count::<u8>(s.lightmaps.len() - 1, "lightmaps")?);
    for l in &s.lightmaps {
        if l.luxels.len() != 1 << (2 * l.size_exp as u32) {
            return Err(format!(
                "a 2^{} lightmap with {} luxels",
                l.size_exp,
                l.luxels.len()
            ));
        }
        o.u8(l.size_exp);
        o.luxels(&l.luxels);
    }
    o.u16(count(s.extra_lightmaps.len(), "extra lightmaps")?);
    for x in &s.extra_lightmaps {
        o.u8(x.base);
        o.luxels(&x.luxels);
    }

    let mut shared = Out(Vec::new());
    shared.u16(count(s.props.len(), "props")?);
    for p in &s.props {
        shared.f32s(&p.origin);
        shared.f32s(&p.radius);
    }
    if s.cubes.is_empty() {
        return Err("a sector needs at least one cube".into());
    }
    shared.u16(count::<u16>(s.cubes.len() - 1, "cubes")?);
    for c in &s.cubes {
        write_cube(&mut shared, c)?;
    }
    o.block(&shared.0);

    let mut client = Out(Vec::new());
    client.u24(s.triangles.len() as u32, "triangle count")?;
    for t in &s.triangles {
        for p in &t.points {
            client.f32s(&p.position);
            client.f32s(&p.uv);
            client.f32s(&p.lightmap_uv);
        }
    }
    client.u16(count(s.dynamic_lights.len(), "affecting dynamic lights")?);
    for d in &s.dynamic_lights {
        client.u16(d.light);
        client.u8(count(d.extra_lightmaps.len(), "extra lightmaps")?);
        for x in &d.extra_lightmaps {
            client.u8(x.base);
            client.luxels(&x.luxels);
        }
    }
    client.u16(count(s.fast_lights.len(), "affecting fast lights")?);
    for f in &s.fast_lights {
        client.u16(f.light);
        client.u32(count(f.points.len(), "affected points")?);
        for p in &f.points {
            client.f32s(&[p.multiplier]);
            client.u8(p.lightmap_group);
            client.u24(p.point, "affected point")?;
        }
    }
    for refs in [&s.dynamic_light_refs, &s.fast_light_refs] {
        client.u32(count(refs.len(), "light references")?);
        for &r in refs.iter() {
            client.u16(r);
        }
    }
    o.block(&client.0);
    Ok(())
}

fn write_cube(o: &mut Out, c: &Cube) -> W {
    o.u8((c.chunk.is_some() as u8) << 5 | (c.lighting.is_some() as u8) << 4 | c.kind.type_id());
    if let Some(l) = &c.lighting {
        o.0.extend_from_slice(&l.base_light);
        o.u32(l.dynamic_index);
        o.u16(l.dynamic_count);
        o.u32(l.fast_index);
        o.u16(l.fast_count);
    }
    if let Some(ch) = &c.chunk {
        o.u16(count(ch.props.len(), "chunk props")?);
        for &p in &ch.props {
            o.u16(p);
        }
        o.u8(count(ch.visible.len(), "visible sectors")?);
        for v in &ch.visible {
            o.0.extend_from_slice(&v.sector);
            if v.cubes.is_empty() {
                return Err("a visible sector lists at least one cube".into());
            }
            o.u16(count::<u16>(v.cubes.len() - 1, "visible cubes")?);
            for &x in &v.cubes {
                o.u16(x);
            }
        }
        o.u32(ch.visibility_index);
        o.u32(ch.visibility_count);
    }
    match &c.kind {
        CubeKind::Empty => {}
        CubeKind::Parent(children) => children.iter().for_each(|&x| o.u16(x)),
        CubeKind::Solid {
            material,
            lightmap,
            triangle,
            faces,
        } => {
            o.u16(*material);
            o.u8(*lightmap);
            o.u24(*triangle, "triangle index")?;
            o.u8(*faces);
        }
        CubeKind::Angled {
            material,
            lightmap,
            triangle,
            counts,
            fill,
            pitch,
            yaw,
        } => {
            o.u16(*material);
            o.u8(*lightmap);
            o.u24(*triangle, "triangle index")?;
            let mut bits = 0u16;
            for (i, &n) in counts.iter().enumerate() {
                if n > 3 {
                    return Err(format!("angled cube: {n} triangles on a side (at most 3)"));
                }
                bits |= (n as u16) << (12 - 2 * i);
            }
            o.u16(bits);
            o.f32s(&[*fill, *pitch, *yaw]);
        }
        CubeKind::ExtSolid {
            materials,
            lightmap,
            triangle,
            counts,
        } => {
            materials.iter().for_each(|&m| o.u16(m));
            o.u8(*lightmap);
            o.u24(*triangle, "triangle index")?;
            o.0.extend_from_slice(counts);
        }
        CubeKind::ExtAngled {
            materials,
            lightmap,
            triangle,
            counts,
            fill,
            pitch,
            yaw,
        } => {
            materials.iter().for_each(|&m| o.u16(m));
            o.u8(*lightmap);
            o.u24(*triangle, "triangle index")?;
            o.0.extend_from_slice(counts);
            o.f32s(&[*fill, *pitch, *yaw]);
        }
    }
    Ok(())
}

fn write_values(o: &mut Out, values: &[Value]) -> W {
    for v in values {
        match v {
            Value::Flags(x) | Value::Enum(x) => o.u8(*x),
            Value::U16(x) | Value::Material(x) | Value::Light(x) => o.u16(*x),
            Value::U32(x) | Value::Filter(x) | Value::Selector(x) | Value::Team(x) => o.u32(*x),
            Value::I16(x) => o.0.extend_from_slice(&x.to_le_bytes()),
            Value::F32(x) => o.f32s(&[*x]),
            Value::Vec2(x) => o.f32s(x),
            Value::Vec3(x) => o.f32s(x),
            Value::Vec4(x) => o.f32s(x),
            Value::I8x2(x) => o.0.extend_from_slice(&[x[0] as u8, x[1] as u8]),
            Value::Str(t) => o.u32(t.offset),
            Value::Signals(list) => {
                o.u16(count(list.len(), "signals")?);
                list.iter().for_each(|t| o.u32(t.offset));
            }
            Value::Actions(list) => {
                o.u8(count(list.len(), "actions")?);
                list.iter().for_each(|&x| o.u32(x));
            }
        }
    }
    Ok(())
}

/// Which string table a [`Text`] lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Server,
    Client,
}

/// Visits every string of the map in file order.
pub fn for_each_text(map: &mut Pmf, mut f: impl FnMut(Table, &mut Text)) {
    for m in &mut map.materials {
        f(Table::Client, &mut m.appearance);
    }
    for t in &mut map.teams {
        f(Table::Server, &mut t.name);
    }
    let e = &mut map.entities;
    let records = e
        .actions
        .iter_mut()
        .chain(e.filters.iter_mut())
        .chain(e.selectors.iter_mut())
        .flat_map(|r| r.fields.iter_mut());
    for ent in &mut e.entities {
        f(Table::Server, &mut ent.name);
        for v in &mut ent.fields {
            value_texts(v, &mut f);
        }
    }
    for v in records {
        value_texts(v, &mut f);
    }
}

fn value_texts(v: &mut Value, f: &mut impl FnMut(Table, &mut Text)) {
    match v {
        Value::Str(t) => f(Table::Server, t),
        Value::Signals(list) => list.iter_mut().for_each(|t| f(Table::Server, t)),
        _ => {}
    }
}

/// Builds the map's string tables from its texts (each distinct string
/// once, the empty string at 0) and points every text at its entry.
pub fn intern_strings(map: &mut Pmf) {
    use std::collections::HashMap;
    let mut tables = [vec![0u8], vec![0u8]];
    let mut seen: [HashMap<String, u32>; 2] = [HashMap::new(), HashMap::new()];
    for_each_text(map, |table, t| {
        let i = (table == Table::Client) as usize;
        if t.text.is_empty() {
            t.offset = 0;
            return;
        }
        let off = *seen[i].entry(t.text.clone()).or_insert_with(|| {
            let off = tables[i].len() as u32;
            tables[i].extend_from_slice(t.text.as_bytes());
            tables[i].push(0);
            off
        });
        t.offset = off;
    });
    let [server, client] = tables;
    map.server_strings = server;
    map.client_strings = client;
}
