//! Makes `docs/performance.md`'s decode tables (and the earlier runs' in
//! `docs/performance-history.md`) from the benchmark records
//! in `target/bench/*.json` (written by `cargo bench --bench m3d|papa|pmf`),
//! so every number in those tables comes from a run. Each table sits
//! between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` in the document
//! and is replaced whole; a bench without records leaves its table as it
//! is and says so. The GPU tables (`gpu_skin*`, `gpu_map*`) read the
//! records `facet bench skin|map --json` wrote on a GPU machine;
//! `map_llvmpipe` those of `bench map` on the software adapter.
//! Run by `scripts/bench-report`.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// m3d.h 1.0.0's `m3d_load` (gcc -O2) on the CI's kind of machine (2-core
/// x86-64), as issue #17 (the first six) and `../shared/notes/m3d.md`
/// ("Speed of the reference", the last three) measured it: used only for
/// a file the run did not time m3d.h on (`m3d.h/<file>/load`, from
/// `cargo bench --bench m3d` with `M3D_H` set), and marked so.
const M3D_H_US: [(&str, f64); 9] = [
    ("CesiumMan.m3d", 911.0),
    ("CesiumMan_uncompressed.m3d", 352.0),
    ("WusonBlitz0.m3d", 224.0),
    ("suzanne_uncompressed.m3d", 27.0),
    ("aliveai_character.m3d", 20.0),
    ("lantea.m3d", 2641.0),
    ("WusonBlitz2.m3d", 620.0),
    ("suzanne.m3d", 153.0),
    ("viper.m3d", 1150.0),
];

struct Run {
    machine: String,
    date: String,
    /// name -> (value, unit)
    values: BTreeMap<String, f64>,
}

fn load(path: &Path) -> Option<Run> {
    let text = std::fs::read_to_string(path).ok()?;
    let records: Vec<Value> = serde_json::from_str(&text).ok()?;
    let machine = records.first()?["machine"].as_str()?.to_string();
    let values = records
        .iter()
        .filter_map(|r| Some((r["name"].as_str()?.to_string(), r["value"].as_f64()?)))
        .collect();
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let days = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs()
        / 86_400;
    Some(Run {
        machine,
        date: civil_date(days as i64),
        values,
    })
}

/// Days since 1970-01-01 as YYYY-MM-DD (Howard Hinnant's civil_from_days).
fn civil_date(z: i64) -> String {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02}")
}

/// The files a run measured, in order, for `format/<file>/<what>` names.
fn files(run: &Run, format: &str) -> Vec<String> {
    let mut out: Vec<String> = run
        .values
        .keys()
        .filter_map(|k| {
            let rest = k.strip_prefix(&format!("{format}/"))?;
            Some(rest.rsplit_once('/')?.0.to_string())
        })
        .collect();
    out.dedup();
    out
}

fn get(run: &Run, format: &str, file: &str, what: &str) -> Option<f64> {
    run.values.get(&format!("{format}/{file}/{what}")).copied()
}

fn header(out: &mut String, run: &Run, command: &str) {
    let _ = writeln!(
        out,
        "Machine: {}. Command: `{command}` (release profile), {}; medians. \
         Made by `scripts/bench-report` from `target/bench/`.\n",
        run.machine, run.date
    );
}

fn us(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| {
        if v >= 100.0 {
            format!("{v:.0} us")
        } else {
            format!("{v:.1} us")
        }
    })
}

fn m3d_table(run: &Run) -> String {
    let mut out = String::new();
    header(&mut out, run, "cargo bench --bench m3d");
    out.push_str(
        "| file | bytes | decode | decode + scene | scene MB/s | m3d.h `m3d_load` | m3d.h / ours (goal >= 2) |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut unmeasured = false;
    for f in files(run, "m3d") {
        let bytes = get(run, "m3d", &f, "bytes").unwrap_or(0.0);
        let scene = get(run, "m3d", &f, "scene");
        // The same run's m3d.h timing, else the figure, marked.
        let (reference, mark) = match get(run, "m3d.h", &f, "load") {
            Some(r) => (Some(r), ""),
            None => (M3D_H_US.iter().find(|(n, _)| *n == f).map(|r| r.1), " (a)"),
        };
        unmeasured |= reference.is_some() && !mark.is_empty();
        // The run's paired ratio (the median of its rounds), else the
        // medians' ratio.
        let ratio = match (get(run, "m3d.h", &f, "ratio"), reference, scene) {
            (Some(x), _, _) if mark.is_empty() => format!("{x:.2}x"),
            (_, Some(r), Some(s)) => format!("{:.2}x", r / s),
            _ => "-".into(),
        };
        let _ = writeln!(
            out,
            "| {f} | {bytes:.0} | {} | {} | {} | {} | {ratio} |",
            us(get(run, "m3d", &f, "decode")),
            us(scene),
            scene.map_or("-".into(), |s| format!("{:.0}", bytes / s)),
            reference.map_or("-".into(), |r| format!("{}{mark}", us(Some(r)))),
        );
    }
    if unmeasured {
        out.push_str(
            "\n(a) m3d.h not timed in this run (`M3D_H` unset): issue #17's figure from \
             another machine, so that ratio is not side by side.\n",
        );
    } else {
        out.push_str(
            "\nm3d.h: `m3d_load` + `m3d_free` of the model3d 0.0.1 crate's m3d.h, gcc -O2 \
             (`benches/reference/m3d_load.c`), timed in the same run on the same machine, each \
             file right after the viewer's timing of it, in five rounds: every figure is the \
             median round's, the ratio the median of the rounds' ratios.\n",
        );
    }
    out
}

fn papa_table(run: &Run) -> String {
    throughput_table(run, "papa")
}

fn p3m_table(run: &Run) -> String {
    throughput_table(run, "p3m")
}

/// Decode and decode + scene per file, in us and MB/s of file bytes.
fn throughput_table(run: &Run, format: &str) -> String {
    let mut out = String::new();
    header(&mut out, run, &format!("cargo bench --bench {format}"));
    out.push_str(
        "| file | bytes | decode | decode + scene | decode MB/s | scene MB/s (goal >= 1000) |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for f in files(run, format) {
        let bytes = get(run, format, &f, "bytes").unwrap_or(0.0);
        let mbs =
            |what| get(run, format, &f, what).map_or("-".into(), |t| format!("{:.0}", bytes / t));
        let _ = writeln!(
            out,
            "| {f} | {bytes:.0} | {} | {} | {} | {} |",
            us(get(run, format, &f, "decode")),
            us(get(run, format, &f, "scene")),
            mbs("decode"),
            mbs("scene"),
        );
    }
    out
}

fn pmf_table(run: &Run) -> String {
    let mut out = String::new();
    header(&mut out, run, "cargo bench --bench pmf");
    out.push_str(
        "| map | bytes | raw LZ4 | raw, owned | decode, 1 thread | decode, all cores | decode + scene | raw / decode (goal >= 80%) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for f in files(run, "pmf") {
        let g = |w| get(run, "pmf", &f, w);
        let pct = match (g("raw"), g("decode")) {
            (Some(r), Some(d)) => format!("{:.0}%", r / d * 100.0),
            _ => "-".into(),
        };
        let _ = writeln!(
            out,
            "| {f} | {:.0} | {} | {} | {} | {} | {} | {pct} |",
            g("bytes").unwrap_or(0.0),
            us(g("raw")),
            us(g("raw_owned")),
            us(g("decode_1_thread")),
            us(g("decode")),
            us(g("scene")),
        );
    }
    out
}

fn thumbnail_table(run: &Run) -> String {
    let mut out = String::new();
    header(&mut out, run, "cargo bench --bench thumbnail");
    out.push_str(
        "| file | adapter | pipelines + first draw | load | render | PNG | process | file work (goal <= 20%) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for f in files(run, "thumbnail") {
        let g = |w| get(run, "thumbnail", &f, w).unwrap_or(0.0);
        let ms = |v: f64| format!("{v:.1} ms");
        let work = g("load") + g("render") + g("png");
        let _ = writeln!(
            out,
            "| {f} | {} | {} | {} | {} | {} | {} | {:.0}% |",
            ms(g("adapter")),
            ms(g("pipelines")),
            ms(g("load")),
            ms(g("render")),
            ms(g("png")),
            ms(g("process")),
            work / g("process").max(1e-9) * 100.0
        );
    }
    out
}

fn scaling_table(run: &Run) -> String {
    let mut out = String::new();
    header(&mut out, run, "cargo bench --bench scaling");
    out.push_str(
        "| format | triangles | file | load (decode + scene) | upload (llvmpipe) | peak heap while loading | peak / file (goal <= 3 + base) |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut slopes = String::new();
    for fmt in ["p3m", "m3d", "papa"] {
        for size in files(run, &format!("scaling/{fmt}")) {
            let g = |w| get(run, &format!("scaling/{fmt}"), &size, w).unwrap_or(0.0);
            let ms = |v: f64| format!("{:.1} ms", v / 1e3);
            let _ = writeln!(
                out,
                "| {fmt} | {:.0} | {:.1} MB | {} | {} | {:.1} MB | {:.2} |",
                g("triangles"),
                g("file") / 1e6,
                ms(g("load")),
                ms(g("upload")),
                g("peak") / 1e6,
                g("peak") / g("file").max(1.0)
            );
        }
        let v = |k: &str| run.values.get(&format!("scaling/{fmt}/{k}")).copied();
        if let (Some(l), Some(lr), Some(u), Some(ur)) = (
            v("load_slope"),
            v("load_r2"),
            v("upload_slope"),
            v("upload_r2"),
        ) {
            let _ = writeln!(
                slopes,
                "- {fmt}: load {:.1} ms per million triangles (R² {lr:.4}); upload {:.1} ms per million triangles (R² {ur:.4})",
                l / 1e3,
                u / 1e3
            );
        }
    }
    if !slopes.is_empty() {
        out.push_str("\nLeast-squares slopes over the sizes above:\n\n");
        out.push_str(&slopes);
    }
    out
}

/// `1M`, `500K`, `1234` as a number (read as `bench skin` reads them), for
/// ordering rows by size; anything else last.
fn count(name: &str) -> f64 {
    facet::cli::bench::parse_count(name).map_or(f64::MAX, f64::from)
}

/// The distinct values of one `/`-separated field (`index`) among the names
/// starting with `prefix`, in the order `key` gives them.
fn field(run: &Run, prefix: &str, index: usize, key: fn(&str) -> f64) -> Vec<String> {
    let mut out: Vec<String> = run
        .values
        .keys()
        .filter(|k| k.starts_with(prefix))
        .filter_map(|k| k.split('/').nth(index).map(str::to_string))
        .collect();
    out.sort_by(|a, b| key(a).total_cmp(&key(b)));
    out.dedup();
    out
}

/// The GPU's figures come from the device's own adapter, named as the
/// machine; `facet bench` writes them with `--json`.
fn gpu_header(out: &mut String, run: &Run, command: &str) {
    let _ = writeln!(
        out,
        "Device: {}. Command: `{command}` (release build, through the `device` tool), {}; \
         medians after half a second of load. Made by `scripts/bench-report` from `target/bench/`.\n",
        run.machine, run.date
    );
}

fn gpu_skin_table(run: &Run) -> String {
    gpu_skin_sweep(
        run,
        "facet bench skin --vertices 1M,...,50M --kernels skin,same-bone,stream,copy16 --iterations 100 --json FILE",
    )
}

fn gpu_skin_copy_table(run: &Run) -> String {
    gpu_skin_sweep(
        run,
        "facet bench skin --vertices 1M,...,50M --kernels skin,same-bone,stream,copy16 --copy --iterations 100 --json FILE",
    )
}

/// `bench skin`'s sweep: the viewer's kernel at every size beside the
/// kernels that say what limits it.
fn gpu_skin_sweep(run: &Run, command: &str) -> String {
    let mut out = String::new();
    gpu_header(&mut out, run, command);
    out.push_str(
        "| vertices | skin (median) | skin, G vertices/s (goal >= 45) | skin, GB/s (44 B a vertex) | same bone for all | stream (skin's reads and writes) | copy16 (16-byte loads) |\n\
         |---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let rate = |kernel: &str, n: &str| {
        run.values
            .get(&format!("skin/{kernel}/one/{n}/rate"))
            .map_or("-".to_string(), |v| format!("{v:.1}"))
    };
    for n in field(run, "skin/skin/one/", 3, count) {
        let ms = run
            .values
            .get(&format!("skin/skin/one/{n}/gpu"))
            .copied()
            .unwrap_or(0.0);
        let g = run
            .values
            .get(&format!("skin/skin/one/{n}/rate"))
            .copied()
            .unwrap_or(0.0);
        let _ = writeln!(
            out,
            "| {n} | {:.1} us | **{g:.1}** | {:.0} | {} | {} | {} |",
            ms * 1e3,
            g * 44.0,
            rate("same-bone", &n),
            rate("stream", &n),
            rate("copy16", &n),
        );
    }
    let split = field(run, "skin/skin/split/", 3, count);
    if !split.is_empty() {
        out.push_str(
            "\nThe viewer's one input and one output buffer (each dispatch binding its range) against separate buffers per dispatch, G vertices/s:\n\n\
             | vertices | one buffer each | a buffer pair per dispatch |\n|---:|---:|---:|\n",
        );
        for n in split {
            let _ = writeln!(out, "| {n} | {} | {} |", rate("skin", &n), {
                run.values
                    .get(&format!("skin/skin/split/{n}/rate"))
                    .map_or("-".to_string(), |v| format!("{v:.1}"))
            });
        }
    }
    let copies = field(run, "copy/", 1, count);
    if !copies.is_empty() {
        out.push_str(
            "\nThe device's `copy_buffer_to_buffer` of each size's input bytes (read plus written):\n\n\
             | vertices | copy | TB/s |\n|---:|---:|---:|\n",
        );
        for n in copies {
            let g = |what: &str| run.values.get(&format!("copy/{n}/{what}")).copied();
            let _ = writeln!(
                out,
                "| {n} | {} | {} |",
                g("ms").map_or("-".into(), |v| format!("{:.1} us", v * 1e3)),
                g("rate").map_or("-".into(), |v| format!("{:.2}", v / 1e3)),
            );
        }
    }
    out
}

/// G vertices/s of `kernels` (record name, column title) at every size the
/// first of them was timed at.
fn kernel_columns(run: &Run, command: &str, kernels: &[(&str, &str)]) -> String {
    let mut out = String::new();
    gpu_header(&mut out, run, command);
    out.push_str("| vertices |");
    for (_, title) in kernels {
        let _ = write!(out, " {title} |");
    }
    out.push_str("\n|---:|");
    out.push_str(&"---:|".repeat(kernels.len()));
    out.push('\n');
    for n in field(run, &format!("skin/{}/one/", kernels[0].0), 3, count) {
        let _ = write!(out, "| {n} |");
        for (kernel, _) in kernels {
            let v = run.values.get(&format!("skin/{kernel}/one/{n}/rate"));
            let _ = write!(
                out,
                " {} |",
                v.map_or("-".to_string(), |v| format!("{v:.1}"))
            );
        }
        out.push('\n');
    }
    out
}

/// The ways of gathering bones tried on the H100 (the kernels were bench
/// candidates then; `skin` is skin.wgsl as it was, `skin-soa` what it is
/// now).
const GATHER_KERNELS: [(&str, &str); 5] = [
    ("skin", "before: rows together, loads under a branch"),
    ("skin-flat", "four bones loaded unconditionally"),
    ("skin-soa", "and rows apart (skin.wgsl now)"),
    ("skin-vec4", "before, on 32-byte vertices in 16-byte loads"),
    ("stream", "stream (no arithmetic)"),
];

fn gpu_skin_h100_gather_table(run: &Run) -> String {
    kernel_columns(
        run,
        "facet bench skin --vertices 1M,2M,4M,8M,17M,50M --kernels skin,skin-flat,skin-soa,skin-vec4,stream --iterations 100 --json FILE",
        &GATHER_KERNELS,
    )
}

fn gpu_skin_h100_gather_256_table(run: &Run) -> String {
    kernel_columns(
        run,
        "facet bench skin --vertices 1M,4M,50M --bones 256 --kernels skin,skin-flat,skin-soa --iterations 100 --json FILE",
        &GATHER_KERNELS[..3],
    )
}

fn gpu_skin_h100_vec4_table(run: &Run) -> String {
    kernel_columns(
        run,
        "facet bench skin --vertices 1M,2M,4M,8M,16M,17M,30M,50M --kernels skin,skin-vec4,stream,stream-vec4,copy16 --iterations 100 --json FILE",
        &[
            ("skin", "skin (rows together), 28 B in"),
            ("skin-vec4", "the same on 32 B in, 16-byte loads and store"),
            ("stream", "stream, 28 B"),
            ("stream-vec4", "stream, 32 B in 16-byte loads"),
            ("copy16", "copy16"),
        ],
    )
}

/// Workgroup sizes and vertices per invocation tried on the H200 on
/// 2026-11-27 (bench candidates of that run's build, not kept; `skin` is
/// skin.wgsl).
fn gpu_skin_h200_groups_table(run: &Run) -> String {
    kernel_columns(
        run,
        "facet bench skin --vertices 1M,2M,4M,8M,17M,50M --kernels skin,skin-wg64,skin-wg128,skin-x2,skin-x4,stream --iterations 100 --json FILE",
        &[
            ("skin", "skin.wgsl (256 invocations, 1 vertex each)"),
            ("skin-wg64", "64 invocations"),
            ("skin-wg128", "128 invocations"),
            ("skin-x2", "256 invocations, 2 vertices each"),
            ("skin-x4", "256 invocations, 4 vertices each"),
            ("stream", "stream (no arithmetic)"),
        ],
    )
}

fn gpu_skin_h200_groups_256_table(run: &Run) -> String {
    kernel_columns(
        run,
        "facet bench skin --vertices 1M,4M,50M --bones 256 --kernels skin,skin-wg64,skin-x2,skin-x4 --iterations 100 --json FILE",
        &[
            ("skin", "skin.wgsl, 256 bones"),
            ("skin-wg64", "64 invocations"),
            ("skin-x2", "2 vertices each"),
            ("skin-x4", "4 vertices each"),
        ],
    )
}

/// A pass's own cost beside the kernels' (H100, 2026-11-27): median time of
/// a pass for each kernel, `empty` being skin.wgsl's grid of workgroups
/// doing nothing; then skin.wgsl's rate and the grid-stride loops tried.
fn gpu_skin_h100_floor_table(run: &Run) -> String {
    pass_times_table(
        run,
        "facet bench skin --vertices 256,64K,256K,1M,2M,4M,8M,17M,50M --kernels skin,skin-loop-528,skin-loop-2112,same-bone,empty,stream,copy16 --iterations 100 --json FILE",
        "empty",
        &[
            (
                "skin-loop-528",
                "skin as a loop over 528 workgroups, G vertices/s",
            ),
            ("skin-loop-2112", "over 2112"),
        ],
    )
}

/// Each kernel's median pass, the empty grid's among them, and skin.wgsl's
/// rate, at every size `sized` was timed at; then the rates of `extra`
/// (record name, column title).
fn pass_times_table(run: &Run, command: &str, sized: &str, extra: &[(&str, &str)]) -> String {
    let mut out = String::new();
    gpu_header(&mut out, run, command);
    out.push_str(
        "| vertices | empty pass | copy16 | stream | same bone for all | skin | skin, G vertices/s (goal >= 45) |",
    );
    for (_, title) in extra {
        let _ = write!(out, " {title} |");
    }
    out.push_str("\n|---:|---:|---:|---:|---:|---:|---:|");
    out.push_str(&"---:|".repeat(extra.len()));
    out.push('\n');
    for n in field(run, &format!("skin/{sized}/one/"), 3, count) {
        let v = |kernel: &str, what: &str| {
            run.values
                .get(&format!("skin/{kernel}/one/{n}/{what}"))
                .copied()
        };
        let us =
            |kernel: &str| v(kernel, "gpu").map_or("-".into(), |ms| format!("{:.1} us", ms * 1e3));
        // Three places below 1 G vertices/s (the smallest sizes).
        let rate = |kernel: &str| {
            v(kernel, "rate").map_or("-".into(), |g| match g < 1.0 {
                true => format!("{g:.3}"),
                false => format!("{g:.1}"),
            })
        };
        let _ = write!(
            out,
            "| {n} | {} | {} | {} | {} | {} | **{}** |",
            us("empty"),
            us("copy16"),
            us("stream"),
            us("same-bone"),
            us("skin"),
            rate("skin"),
        );
        for (kernel, _) in extra {
            let _ = write!(out, " {} |", rate(kernel));
        }
        out.push('\n');
    }
    out
}

/// skin.wgsl against the same body as a grid-stride loop over at most N
/// workgroups (a bench candidate of 2026-11-27, not kept), on the H200.
/// The run's `empty` rows are left out: a rate means nothing for a kernel
/// that skins nothing.
const LOOP_KERNELS: [(&str, &str); 6] = [
    ("skin", "skin.wgsl (one vertex an invocation)"),
    ("skin-loop-264", "a loop over 264 workgroups"),
    ("skin-loop-528", "528"),
    ("skin-loop-1056", "1056"),
    ("skin-loop-2112", "2112"),
    ("stream", "stream (no arithmetic)"),
];

fn gpu_skin_h200_loop_table(run: &Run) -> String {
    kernel_columns(
        run,
        "facet bench skin --vertices 1M,2M,4M,8M,17M,50M --kernels skin,skin-loop-264,skin-loop-528,skin-loop-1056,skin-loop-2112,empty,stream --iterations 100 --json FILE",
        &LOOP_KERNELS,
    )
}

fn gpu_skin_h200_loop_256_table(run: &Run) -> String {
    kernel_columns(
        run,
        "facet bench skin --vertices 1M,4M,50M --bones 256 --kernels skin,skin-loop-528,skin-loop-1056,skin-loop-2112 --iterations 100 --json FILE",
        &[
            ("skin", "skin.wgsl, 256 bones"),
            ("skin-loop-528", "a loop over 528 workgroups"),
            ("skin-loop-1056", "1056"),
            ("skin-loop-2112", "2112"),
        ],
    )
}

fn gpu_skin_h100_256_table(run: &Run) -> String {
    kernel_columns(
        run,
        "facet bench skin --vertices 1M,2M,4M,17M,50M --bones 256 --kernels skin --iterations 100 --json FILE",
        &[("skin", "skin, G vertices/s, 256 bones (goal >= 45)")],
    )
}

fn gpu_skin_cold_table(run: &Run) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Device: {}. Command: `facet bench skin --vertices 1M,10M,30M,50M --kernels skin,same-bone,stream,copy16 --iterations 20` \
         before the warm-up existed: 20 passes timed straight after each upload, {}. Made by `scripts/bench-report` from `target/bench/`.\n",
        run.machine, run.date
    );
    out.push_str(
        "| vertices | skin, G vertices/s | same bone | stream | copy16 |\n|---:|---:|---:|---:|---:|\n",
    );
    for n in field(run, "skin/skin/one/", 3, count) {
        let r = |k: &str| {
            run.values
                .get(&format!("skin/{k}/one/{n}/rate"))
                .map_or("-".to_string(), |v| format!("{v:.1}"))
        };
        let _ = writeln!(
            out,
            "| {n} | {} | {} | {} | {} |",
            r("skin"),
            r("same-bone"),
            r("stream"),
            r("copy16")
        );
    }
    out
}

/// `bench map` records as one row per frame size, sample count and way of
/// drawing (`all`, `view`, `visible`, `visible_view`, `none`), the issue's
/// 1920x1080 first.
fn map_rows(run: &Run) -> String {
    let mut out = String::from(
        "| size | samples a pixel | drawn | triangles | median | p99 | FPS (goal >= 240 at 1080p, everything) | CPU part of a frame |\n\
         |---|---:|---|---:|---:|---:|---:|---:|\n",
    );
    let area = |s: &str| {
        s.split_once('x')
            .and_then(|(w, h)| Some(w.parse::<f64>().ok()? * h.parse::<f64>().ok()?))
            .unwrap_or(f64::MAX)
    };
    let samples = |s: &str| -(s.trim_start_matches("msaa").parse::<f64>().unwrap_or(0.0));
    let order = |s: &str| match s {
        "all" => 0.0,
        "view" => 1.0,
        "visible" => 2.0,
        "visible_view" => 3.0,
        _ => 4.0,
    };
    let mut sizes = field(run, "map/", 1, area);
    sizes.sort_by_key(|s| s != "1920x1080");
    for size in sizes {
        for msaa in field(run, &format!("map/{size}/"), 2, samples) {
            for row in field(run, &format!("map/{size}/{msaa}/"), 3, order) {
                let g = |what: &str| {
                    run.values
                        .get(&format!("map/{size}/{msaa}/{row}/{what}"))
                        .copied()
                        .unwrap_or(0.0)
                };
                let drawn = match row.as_str() {
                    "all" => "everything",
                    "view" => "in the view",
                    "visible" => "visible from the cell",
                    "visible_view" => "visible, in the view",
                    "none" => "nothing (a frame's fixed cost)",
                    other => other,
                };
                let fps = match row.as_str() {
                    "all" => format!("**{:.0}**", g("fps")),
                    _ => format!("{:.0}", g("fps")),
                };
                let _ = writeln!(
                    out,
                    "| {size} | {} | {drawn} | {:.0} | {:.2} ms | {:.2} ms | {fps} | {:.2} ms |",
                    msaa.trim_start_matches("msaa"),
                    g("triangles"),
                    g("median"),
                    g("p99"),
                    g("cpu"),
                );
            }
        }
    }
    out
}

/// `bench materials`' sweep: one frame of material keyframe animation at
/// each count, beside the CPU reference on the same materials.
fn material_rows(run: &Run) -> String {
    let mut out = String::from(
        "| animated materials | keyframes | GPU (median) | GPU, M materials/s | CPU reference (1 thread), M materials/s |\n\
         |---:|---:|---:|---:|---:|\n",
    );
    for n in field(run, "materials/", 1, count) {
        let g = |what: &str| {
            run.values
                .get(&format!("materials/{n}/{what}"))
                .copied()
                .unwrap_or(0.0)
        };
        let _ = writeln!(
            out,
            "| {n} | {:.0} | {:.1} us | {:.1} | {:.2} |",
            g("keys"),
            g("gpu") * 1e3,
            g("rate"),
            g("cpu_rate"),
        );
    }
    out
}

/// `scripts/gpu-bench`'s sweep on generated vertices (H200, 2026-12-04):
/// each kernel's median pass, the empty grid's among them, and skin.wgsl's
/// rate, beside the rates of the kernels without its gather.
fn gpu_skin_sweep_with_empty_table(run: &Run) -> String {
    pass_times_table(
        run,
        "facet bench skin --vertices 1M,2M,4M,8M,17M,50M --kernels skin,same-bone,stream,copy16,empty --copy --iterations 100 --json FILE",
        "skin",
        &[
            ("same-bone", "same bone, G vertices/s"),
            ("stream", "stream, G vertices/s"),
        ],
    )
}

/// skin.wgsl on real models' skinned vertices, each model's repeated to
/// every size (`bench skin --from MODEL`, records `skin:<file>/...`), one
/// column a model, then the stream kernel on the first model's.
fn gpu_skin_models_table(run: &Run) -> String {
    let mut models: Vec<String> = run
        .values
        .keys()
        .filter_map(|k| {
            k.strip_prefix("skin:")?
                .split('/')
                .next()
                .map(str::to_string)
        })
        .collect();
    models.sort();
    models.dedup();
    let mut out = String::new();
    gpu_header(
        &mut out,
        run,
        "facet bench skin --vertices 1M,2M,4M,17M,50M --kernels skin,stream --iterations 100 --from MODEL --json FILE",
    );
    out.push_str("| vertices |");
    for m in &models {
        let _ = write!(out, " skin, {m}'s vertices, G vertices/s (goal >= 45) |");
    }
    out.push_str(" stream, G vertices/s |\n|---:|");
    out.push_str(&"---:|".repeat(models.len() + 1));
    out.push('\n');
    let Some(first) = models.first() else {
        return out;
    };
    for n in field(run, &format!("skin:{first}/skin/one/"), 3, count) {
        let rate = |m: &str, kernel: &str| {
            run.values
                .get(&format!("skin:{m}/{kernel}/one/{n}/rate"))
                .map_or("-".to_string(), |g| format!("{g:.1}"))
        };
        let _ = write!(out, "| {n} |");
        for m in &models {
            let _ = write!(out, " **{}** |", rate(m, "skin"));
        }
        let _ = writeln!(out, " {} |", rate(first, "stream"));
    }
    out
}

fn gpu_materials_table(run: &Run) -> String {
    headed_gpu_table(
        run,
        "facet bench materials --materials 100,1K,10K,100K,1M --iterations 100 --json FILE",
        material_rows(run),
    )
}

/// [`gpu_header`] for `command`, then `rows`.
fn headed_gpu_table(run: &Run, command: &str, rows: String) -> String {
    let mut out = String::new();
    gpu_header(&mut out, run, command);
    out + &rows
}

fn materials_llvmpipe_table(run: &Run) -> String {
    llvmpipe_header(
        run,
        "facet bench materials --materials 100,1K,10K,100K --iterations 20 --json \
         target/bench/materials_llvmpipe.json",
        "load",
    ) + &material_rows(run)
}

/// The header of a table measured on the software adapter of the
/// developer VM: the adapter, `command`, and what the half second before
/// the timing ran (`warm`: "load", "frames").
fn llvmpipe_header(run: &Run, command: &str, warm: &str) -> String {
    format!(
        "Adapter: {}. Command: `{command}` (release build, 2-core developer VM), {}; medians \
         after half a second of {warm}. Made by `scripts/bench-report` from `target/bench/`.\n\n",
        run.machine, run.date
    )
}

/// `bench map`'s rows from a GPU machine (the H200's and the H100's runs
/// used the same command).
fn gpu_map_table(run: &Run) -> String {
    headed_gpu_table(
        run,
        "facet bench map --frames 600 --size 1920x1080,960x540,3840x2160 --msaa 4,1 --json FILE",
        map_rows(run),
    )
}

fn map_llvmpipe_table(run: &Run) -> String {
    llvmpipe_header(
        run,
        "facet bench map --frames 20 --size 1920x1080 --msaa 1 --json \
         target/bench/map_llvmpipe.json",
        "frames",
    ) + &map_rows(run)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bench_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("bench");
    // The latest runs' tables, and the earlier runs' kept in the record.
    let mut docs: Vec<(PathBuf, String)> = ["performance.md", "performance-history.md"]
        .iter()
        .map(|name| {
            let path = root.join("docs").join(name);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, text)
        })
        .collect();
    type Table = fn(&Run) -> String;
    let tables: [(&str, Table); 28] = [
        ("m3d", m3d_table),
        ("papa", papa_table),
        ("p3m", p3m_table),
        ("pmf", pmf_table),
        ("thumbnail", thumbnail_table),
        ("scaling", scaling_table),
        ("gpu_skin", gpu_skin_table),
        ("gpu_skin_h100", gpu_skin_copy_table),
        ("gpu_skin_h100_256", gpu_skin_h100_256_table),
        ("gpu_skin_h100_gather", gpu_skin_h100_gather_table),
        ("gpu_skin_h100_gather_256", gpu_skin_h100_gather_256_table),
        ("gpu_skin_h100_vec4", gpu_skin_h100_vec4_table),
        ("gpu_skin_cold", gpu_skin_cold_table),
        ("gpu_skin_h200_nov27", gpu_skin_copy_table),
        ("gpu_skin_h200_groups", gpu_skin_h200_groups_table),
        ("gpu_skin_h200_groups_256", gpu_skin_h200_groups_256_table),
        ("gpu_skin_h100_floor", gpu_skin_h100_floor_table),
        ("gpu_skin_h200_loop", gpu_skin_h200_loop_table),
        ("gpu_skin_h200_loop_256", gpu_skin_h200_loop_256_table),
        ("gpu_map_h200_nov27", gpu_map_table),
        ("gpu_skin_h200_dec04", gpu_skin_sweep_with_empty_table),
        ("gpu_skin_h200_dec04_models", gpu_skin_models_table),
        ("gpu_map_h200_dec04", gpu_map_table),
        ("gpu_materials_h200", gpu_materials_table),
        ("materials_llvmpipe", materials_llvmpipe_table),
        ("gpu_map", gpu_map_table),
        ("gpu_map_h100", gpu_map_table),
        ("map_llvmpipe", map_llvmpipe_table),
    ];
    for (name, table) in tables {
        let (open, close) = (
            format!("<!-- bench:{name} -->"),
            format!("<!-- /bench:{name} -->"),
        );
        let found = docs.iter_mut().find_map(|(_, doc)| {
            let (a, b) = (doc.find(&open)?, doc.find(&close)?);
            Some((doc, a, b))
        });
        let Some((doc, a, b)) = found else {
            eprintln!("no document in docs/ has {open} ... {close}: {name} skipped");
            continue;
        };
        let Some(run) = load(&bench_dir.join(format!("{name}.json"))) else {
            eprintln!(
                "no records in {}: the {name} table is left as it is",
                bench_dir.join(format!("{name}.json")).display()
            );
            continue;
        };
        let body = table(&run);
        doc.replace_range(a + open.len()..b, &format!("\n{body}"));
        eprintln!("{name}: table made from {} records", run.values.len());
    }
    for (path, doc) in docs {
        std::fs::write(&path, doc).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
