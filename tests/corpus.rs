//! Regression corpus for the fuzz targets (fuzz/): every file under
//! tests/corpus/<decoder>/ is malformed and must give an error, not a panic.
//! Add a crashing input found by `cargo fuzz run <decoder>` here.

fn each(dir: &str, f: impl Fn(&[u8]) -> Result<(), String>) {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(dir);
    let mut n = 0;
    for e in std::fs::read_dir(&d).unwrap() {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&bytes)))
            .unwrap_or_else(|_| panic!("{} panicked", p.display()));
        assert!(r.is_err(), "{} decoded but is malformed", p.display());
        n += 1;
    }
    assert!(n > 0, "no corpus files in {}", d.display());
}

#[test]
fn p3m_corpus() {
    each("p3m", |b| {
        facet::formats::p3m::decode(b)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
}

#[test]
fn ptf_corpus() {
    each("ptf", |b| {
        facet::formats::ptf::decode(b)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
}

#[test]
fn m3d_corpus() {
    each("m3d", |b| {
        facet::formats::m3d::decode(b)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
}

#[test]
fn papa_corpus() {
    each("papa", |b| {
        facet::formats::papa::decode(b)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
}

#[test]
fn pmf_corpus() {
    each("pmf", |b| {
        facet::formats::pmf::decode(b)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
}
