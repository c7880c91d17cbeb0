//! Shared by the decode benchmarks: timing and the fixture list.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Median time of `f` over about 0.3 s of runs (at least 5), after one
/// warm-up run.
pub fn median(mut f: impl FnMut()) -> Duration {
    f();
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 5 || (start.elapsed() < Duration::from_millis(300) && times.len() < 2000) {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

/// `../shared/fixtures/<dir>/*.<ext>`, sorted; exits with a message when
/// the shared fixtures are missing.
pub fn fixtures(dir: &str, ext: &str) -> Vec<PathBuf> {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures")
        .join(dir);
    let Ok(entries) = std::fs::read_dir(&d) else {
        eprintln!(
            "this benchmark needs the shared fixtures at {}",
            d.display()
        );
        std::process::exit(1);
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}
