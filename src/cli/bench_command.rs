//! `facet bench`'s subcommands as the command line runs them: each bench
//! ([`super::bench`]) run, its report printed and its records written to
//! the file `--json` names.

use super::bench::{self, SkinKernel, SkinLayout};
use crate::gpu::Gpu;
use crate::load;
use anyhow::{Context, bail};
use std::path::{Path, PathBuf};

/// `bench skin`'s arguments.
pub struct SkinRun {
    pub vertices: Vec<u32>,
    /// Bones of the generated vertices (without `from`).
    pub bones: u32,
    pub iterations: u32,
    pub kernels: Vec<SkinKernel>,
    pub layouts: Vec<SkinLayout>,
    /// Time the device's own buffer copy too.
    pub copy: bool,
    /// A model whose skinned vertices are repeated in place of generated
    /// ones.
    pub from: Option<PathBuf>,
    pub json: Option<PathBuf>,
}

/// `bench skin`: GPU skinning against the CPU reference.
pub fn skin(run: SkinRun) -> anyhow::Result<()> {
    let json = run.json.as_deref();
    records_folder(json)?;
    let source = match &run.from {
        Some(f) => {
            let name = f.file_name().unwrap_or_default().to_string_lossy();
            let loaded = load::load_file(f)?;
            Some(
                bench::SkinSource::from_scene(&name, &loaded.scene)
                    .map_err(|e| anyhow::anyhow!("bench skin: {e}"))?,
            )
        }
        None => None,
    };
    let gpu = Gpu::headless()?;
    let data = match &source {
        Some(s) => bench::SkinData::Model(s),
        None => bench::SkinData::Generated { bones: run.bones },
    };
    let result = bench::skin(
        &gpu,
        &run.vertices,
        &run.kernels,
        &run.layouts,
        data,
        run.iterations,
        run.copy,
    )
    .map_err(|e| anyhow::anyhow!("bench skin: {e}"))?;
    super::print(format_args!("{}\n", result.report()))?;
    write_records(json, &result.records())
}

/// `bench materials`: material keyframe animation on the GPU against the
/// CPU reference, for each count of `materials`.
pub fn materials(materials: &[u32], iterations: u32, json: Option<&Path>) -> anyhow::Result<()> {
    records_folder(json)?;
    let gpu = Gpu::headless()?;
    let mut records = Vec::new();
    for &n in materials {
        let result = bench::materials(&gpu, n, iterations);
        super::print(format_args!("{}\n", result.report()))?;
        if let serde_json::Value::Array(r) = result.records() {
            records.extend(r);
        }
    }
    write_records(json, &serde_json::Value::Array(records))
}

/// `bench map`'s arguments.
pub struct MapRun {
    /// The map; none for the generated ~1M-triangle one.
    pub file: Option<PathBuf>,
    pub frames: u32,
    /// Sample counts; empty for the viewer's own.
    pub msaa: Vec<u32>,
    pub sizes: Vec<(u32, u32)>,
    pub json: Option<PathBuf>,
}

/// `bench map`: a map's frame times, at each size and sample count.
pub fn map(run: MapRun) -> anyhow::Result<()> {
    let json = run.json.as_deref();
    records_folder(json)?;
    let (name, loaded) = match &run.file {
        Some(f) => (f.display().to_string(), load::load_file(f)?),
        None => generated_bench_map()?,
    };
    if loaded.scene.map.is_none() {
        bail!("{name} is not a map");
    }
    let gpu = Gpu::headless()?;
    let mut records = Vec::new();
    let samples: Vec<Option<u32>> = match run.msaa.is_empty() {
        true => vec![None],
        false => run.msaa.iter().copied().map(Some).collect(),
    };
    for &size in &run.sizes {
        for &samples in &samples {
            let result =
                bench::map_frames(&gpu, &name, &loaded.scene, size, run.frames.max(1), samples);
            super::print(format_args!("{}\n", result.report()))?;
            if let serde_json::Value::Array(r) = result.records() {
                records.extend(r);
            }
        }
    }
    write_records(json, &serde_json::Value::Array(records))
}

/// Makes ready the folder a bench's records go to, before the bench runs
/// (a sweep on a GPU machine can take minutes, and its records were lost
/// where the folder was missing): made where it is not there yet (as
/// `target/bench` on a fresh checkout), refused where it is not a folder.
fn records_folder(path: Option<&Path>) -> anyhow::Result<()> {
    let Some(path) = path else { return Ok(()) };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => return Ok(()),
    };
    let file = path.display();
    if dir.exists() && !dir.is_dir() {
        bail!("{file}: {} is not a folder", dir.display());
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{file}: its folder {} cannot be made", dir.display()))
}

/// Writes a bench's records to `path`, when given.
fn write_records(path: Option<&Path>, records: &serde_json::Value) -> anyhow::Result<()> {
    if let Some(path) = path {
        let text = serde_json::to_string_pretty(records)? + "\n";
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The ~1M-triangle map `bench map` draws when given no file.
#[cfg(feature = "generators")]
fn generated_bench_map() -> anyhow::Result<(String, load::Loaded)> {
    use crate::generators::pmf;
    let t = std::time::Instant::now();
    let map = pmf::generate(&pmf::Params::MILLION);
    let bytes = crate::formats::pmf_write::encode(&map).map_err(anyhow::Error::msg)?;
    eprintln!(
        "generated the benchmark map in {:.1} s",
        t.elapsed().as_secs_f32()
    );
    Ok((
        "generated 12x1x12 map".to_string(),
        load::load_bytes("bench.pmf", &bytes, None)?,
    ))
}

#[cfg(not(feature = "generators"))]
fn generated_bench_map() -> anyhow::Result<(String, load::Loaded)> {
    bail!(
        "bench map: give a .pmf file; the generated benchmark map needs a build with \
         `--features generators`"
    )
}
