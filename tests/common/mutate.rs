//! The mutation sweeps' inputs and their changes (tests/mutation_sweep.rs
//! takes files as far as a scene, tests/render_sweep.rs draws them).

/// Files larger than this get proportionally fewer cases (the 3.7 MB map
/// gets 550 of 10,000), so that every file costs about the same.
pub const FULL_CASES_UP_TO: usize = 200 << 10;

/// The cases a file of `len` bytes gets when a small one gets `cases`.
pub fn cases_for(len: usize, cases: usize) -> usize {
    if len > FULL_CASES_UP_TO {
        (cases * FULL_CASES_UP_TO / len).max(cases / 20).max(1)
    } else {
        cases
    }
}

/// A number from the variable `var` (cases, a seed), else `default`.
pub fn from_env(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: small, seeded, the same on every machine.
pub struct Rng(u64);

impl Rng {
    /// The generator for a file of `len` bytes: `base`, mixed with the
    /// length and with `seed` (0 for the sweep's own cases).
    pub fn for_file(base: u64, len: usize, seed: u64) -> Rng {
        Rng((base ^ len as u64 ^ seed.rotate_left(32)).max(1))
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One variant of `bytes`, and what was done (for the failure message).
pub fn mutate(bytes: &[u8], rng: &mut Rng) -> (Vec<u8>, String) {
    let mut v = bytes.to_vec();
    let len = v.len();
    let what = match rng.below(4) {
        0 => {
            let at = rng.below(len);
            v.truncate(at);
            format!("cut at {at:#X}")
        }
        1 => {
            let n = 1 + rng.below(8);
            let mut flipped = Vec::new();
            for _ in 0..n {
                let bit = rng.below(len * 8);
                v[bit / 8] ^= 1 << (bit % 8);
                flipped.push(bit);
            }
            format!("bits {flipped:?} flipped")
        }
        2 => {
            // A count or offset at its largest: u16, u32, or a value just
            // past the file, little-endian, at any byte.
            let at = rng.below(len);
            let value: u32 = match rng.below(4) {
                0 => 0xFFFF,
                1 => u32::MAX,
                2 => 0x7FFF_FFFF,
                _ => (len as u32).wrapping_mul(2) | 1,
            };
            let width = if value <= 0xFFFF { 2 } else { 4 };
            for (i, b) in value.to_le_bytes().iter().take(width).enumerate() {
                if let Some(x) = v.get_mut(at + i) {
                    *x = *b;
                }
            }
            format!("{value:#X} written at {at:#X}")
        }
        _ => {
            let n = 1 + rng.below((len / 4).max(1));
            let a = rng.below(len - n + 1);
            let b = rng.below(len - n + 1);
            let (lo, hi) = (a.min(b), a.max(b));
            if hi >= lo + n {
                let (first, second) = v.split_at_mut(hi);
                first[lo..lo + n].swap_with_slice(&mut second[..n]);
            }
            format!("{n} bytes at {lo:#X} and {hi:#X} swapped")
        }
    };
    (v, what)
}

/// Every shared fixture that is a model, animation or texture, every
/// bundled asset, and the corpus's seeds of what none of those has
/// (`tests/corpus/*/seed_*`: the 2024 P3M layout, the 2025 and current PTF
/// forms, a small map).
pub fn inputs() -> Vec<std::path::PathBuf> {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = repo.join("../shared/fixtures");
    assert!(shared.is_dir(), "this test needs ../shared/fixtures");
    let mut files = Vec::new();
    for dir in [
        shared.join("m3d"),
        shared.join("papa"),
        shared.join("ptf"),
        repo.join("assets"),
    ] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if p.is_file() && !matches!(ext, "md" | "png") {
                files.push(p);
            }
        }
    }
    for e in std::fs::read_dir(repo.join("tests/corpus")).unwrap() {
        for f in std::fs::read_dir(e.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("seed_")
            {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// What the sweeps change: every file of [`inputs`] by its name, then each
/// compressed M3D among them again with its chunks stored plain
/// (`facet_formats::fuzz::m3d_plain`: the spec's other layout, HEAD after
/// the header), named `<name>.inflated.m3d`. A change to a compressed file
/// nearly always ends at the zlib stream's checksum, so without these the
/// sweeps would hardly reach the voxel mesher, the skins or the actions of
/// the files that have them.
pub fn sweep_inputs() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut inflated = Vec::new();
    for path in inputs() {
        let bytes = std::fs::read(&path).unwrap();
        if path.extension().and_then(|e| e.to_str()) == Some("m3d")
            && let Some(plain) = facet::formats::fuzz::m3d_plain(&bytes)
        {
            let stem = path.file_stem().unwrap().to_string_lossy();
            inflated.push((format!("{stem}.inflated.m3d"), plain));
        }
        files.push((
            path.file_name().unwrap().to_string_lossy().into_owned(),
            bytes,
        ));
    }
    assert!(
        inflated.len() >= 10,
        "only {} compressed M3D files",
        inflated.len()
    );
    files.extend(inflated);
    files
}

/// A variant of a glTF file (`.gltf` JSON, or GLB) whose JSON is changed
/// as a hostile writer would: one to three values (numbers to the edges of
/// their ranges or just past the counts they index; strings swapped for
/// glTF enums; array elements dropped or repeated; members removed), the
/// file then put back together well formed (a GLB with correct chunk
/// lengths, laid out as the glTF 2.0 specification's section 4.4 says: a
/// 12-byte header, the JSON chunk, the rest), so that the changes reach
/// the reader's checks of meaning rather than of framing.
pub fn mutate_gltf(file: &[u8], rng: &mut Rng) -> (Vec<u8>, String) {
    let u32_at = |at: usize| u32::from_le_bytes(file[at..at + 4].try_into().unwrap()) as usize;
    let glb = file.starts_with(b"glTF");
    let (json, rest) = if glb {
        assert_eq!(&file[16..20], b"JSON");
        let end = 20 + u32_at(12);
        (&file[20..end], &file[end..])
    } else {
        (file, &[][..])
    };
    let mut json: serde_json::Value = serde_json::from_slice(json).unwrap();
    let mut done = Vec::new();
    for _ in 0..1 + rng.below(3) {
        done.push(mutate_json(&mut json, file.len(), rng));
    }
    let mut text = serde_json::to_vec(&json).unwrap();
    if !glb {
        return (text, done.join("; "));
    }
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut out = Vec::with_capacity(20 + text.len() + rest.len());
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((20 + text.len() + rest.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(rest);
    (out, done.join("; "))
}

/// One change somewhere in `json` ([`mutate_gltf`]), described.
fn mutate_json(json: &mut serde_json::Value, file_len: usize, rng: &mut Rng) -> String {
    use serde_json::Value;
    // Every value's JSON pointer (RFC 6901: `~` and `/` in a key escaped),
    // each after those of its members; the root last.
    fn walk(v: &Value, at: String, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let k = k.replace('~', "~0").replace('/', "~1");
                    walk(x, format!("{at}/{k}"), out);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
        out.push(at);
    }
    let mut paths = Vec::new();
    walk(json, String::new(), &mut paths);
    paths.pop(); // the root itself
    let path = paths[rng.below(paths.len())].clone();
    let (parent, key) = path.rsplit_once('/').unwrap();
    let target = json.pointer_mut(&path).unwrap();
    match target {
        Value::Number(n) => {
            let old = n.as_f64().unwrap_or(0.0);
            let new = match rng.below(10) {
                0 => Value::from(0),
                1 => Value::from(-1),
                2 => Value::from((old as i64).saturating_add(1)),
                3 => Value::from(u32::MAX),
                4 => Value::from(i32::MAX as u32 + 1),
                5 => Value::from(u16::MAX),
                6 => Value::from(1e30),
                7 => Value::from(-1e30),
                8 => Value::from(file_len as u64 * 2 + 1),
                _ => Value::from(0.5),
            };
            let said = format!("{path}: {old} -> {new}");
            *target = new;
            said
        }
        Value::String(s) => {
            const ENUMS: [&str; 14] = [
                "SCALAR",
                "VEC2",
                "VEC3",
                "VEC4",
                "MAT2",
                "MAT3",
                "MAT4",
                "LINEAR",
                "STEP",
                "CUBICSPLINE",
                "translation",
                "rotation",
                "scale",
                "weights",
            ];
            let new = ENUMS[rng.below(ENUMS.len())];
            let said = format!("{path}: {s:?} -> {new:?}");
            *s = new.to_string();
            said
        }
        Value::Array(a) if !a.is_empty() => {
            let i = rng.below(a.len());
            if rng.below(2) == 0 {
                a.remove(i);
                format!("{path}: element {i} removed")
            } else {
                let x = a[i].clone();
                a.insert(i, x);
                format!("{path}: element {i} repeated")
            }
        }
        _ => {
            // An object, an empty array, a boolean or null: the member
            // removed from its parent (an element, where that is an array).
            match json.pointer_mut(parent) {
                Some(Value::Object(m)) => {
                    m.remove(&key.replace("~1", "/").replace("~0", "~"));
                }
                Some(Value::Array(a)) => {
                    a.remove(key.parse::<usize>().unwrap());
                }
                _ => {}
            }
            format!("{path}: removed")
        }
    }
}
