//! `facet bench`: the sweep runs every size, kernel and layout asked for in
//! one process, and its records carry the names `scripts/bench-report`
//! reads. Counts and names are checked against values written out here;
//! the timings themselves are never asserted.

mod common;

use facet::cli::bench::{self, SkinData, SkinKernel, SkinLayout, count_name, parse_count};

#[test]
fn counts_read_and_print_as_written() {
    for (text, n) in [
        ("1000000", 1_000_000),
        ("1M", 1_000_000),
        ("16.7M", 16_700_000),
        ("500K", 500_000),
        ("2k", 2_000),
        ("0", 0),
    ] {
        assert_eq!(parse_count(text), Ok(n), "{text}");
    }
    for bad in ["", "M", "-1", "1.5G", "5000M", "ten"] {
        assert!(parse_count(bad).is_err(), "{bad:?} should be refused");
    }
    for (n, text) in [
        (1_000_000, "1M"),
        (50_000_000, "50M"),
        (16_700_000, "16.7M"),
        (4_000, "4K"),
        (1_234, "1234"),
    ] {
        assert_eq!(count_name(n), text);
    }
    assert_eq!(SkinLayout::parse("one"), Ok(SkinLayout::One));
    assert_eq!(
        SkinLayout::parse("split"),
        Ok(SkinLayout::Batches(65_535 * 256))
    );
    assert_eq!(
        SkinLayout::parse("split-4M"),
        Ok(SkinLayout::Batches(4_000_000))
    );
    assert!(SkinLayout::parse("split-0").is_err());
    assert!(SkinLayout::parse("whole").is_err());
    assert_eq!(SkinKernel::parse("copy16"), Ok(SkinKernel::Copy16));
    assert_eq!(SkinKernel::parse("empty"), Ok(SkinKernel::Empty));
    assert!(SkinKernel::parse("fast").is_err());
}

#[test]
fn skin_sweep_times_every_size_kernel_and_layout() {
    let gpu = common::gpu();
    let kernels = [
        SkinKernel::Skin,
        SkinKernel::SameBone,
        SkinKernel::Stream,
        SkinKernel::Copy16,
        SkinKernel::Empty,
    ];
    let layouts = [SkinLayout::One, SkinLayout::Batches(1024)];
    let r = bench::skin(
        &gpu,
        &[3000, 1000],
        &kernels,
        &layouts,
        SkinData::Generated { bones: 16 },
        2,
        true,
    )
    .unwrap();
    assert_eq!(r.rows.len(), 2 * 5 * 2);
    // Sizes in the order asked, each with every kernel, each in every layout
    // (named in records as `count_name` writes them: 3000 is "3K").
    for (i, row) in r.rows.iter().enumerate() {
        assert_eq!(row.vertices, [3000, 1000][i / 10]);
        assert_eq!(row.kernel, kernels[i / 2 % 5]);
        assert_eq!(row.layout, layouts[i % 2]);
        // 3000 vertices in batches of 1024: 3 batches of 2 buffers.
        let (dispatches, buffers) = match (row.layout, row.vertices) {
            (SkinLayout::One, _) => (1, 2),
            (_, 3000) => (3, 6),
            _ => (1, 2),
        };
        assert_eq!(
            (row.dispatches, row.buffers),
            (dispatches, buffers),
            "row {i}"
        );
        assert!(row.gpu_ms_min <= row.gpu_ms_median && row.gpu_ms_median <= row.gpu_ms_max);
        assert!(row.gpu_ms_median > 0.0 && row.wall_ms > 0.0);
    }
    assert_eq!(r.copies.len(), 2);
    assert_eq!((r.copies[0].0, r.copies[0].1), (3000, 3000 * 28));

    let records = r.records();
    let names: Vec<&str> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    for name in [
        "skin/skin/one/3K/gpu",
        "skin/skin/one/3K/rate",
        "skin/same-bone/split-1024/1K/gpu_max",
        "skin/copy16/one/1K/wall",
        "skin/empty/split-1024/3K/gpu",
        "copy/3K/ms",
        "copy/1K/rate",
    ] {
        assert!(names.contains(&name), "no record {name} in {names:?}");
    }
    assert!(
        records
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["machine"] == r.adapter.as_str())
    );
}

#[test]
fn skin_sweep_repeats_a_models_skinned_vertices_with_its_own_bones() {
    let shared = common::shared();
    let loaded = facet::load::load_file(&shared.join("fixtures/m3d/CesiumMan.m3d")).unwrap();
    let source = bench::SkinSource::from_scene("CesiumMan.m3d", &loaded.scene).unwrap();
    // m3d.h's `numbone` for this file (fixtures/m3d/reference/CesiumMan.json.gz).
    assert_eq!(source.bones, 19);
    assert!(source.positions.len() > 1000, "{}", source.positions.len());
    assert!(
        source
            .skin
            .joints
            .iter()
            .zip(&source.skin.weights)
            .all(|(j, w)| j.iter().zip(w).all(|(&j, &w)| w == 0 || j < 19))
    );
    // Sized past the model, so that its vertices repeat, with the model's
    // bone count.
    let n = source.positions.len() as u32 * 2 + 5;
    let gpu = common::gpu();
    let r = bench::skin(
        &gpu,
        &[n],
        &[SkinKernel::Skin],
        &[SkinLayout::One],
        SkinData::Model(&source),
        2,
        false,
    )
    .unwrap();
    assert_eq!(r.bones, 19);
    assert_eq!(r.rows.len(), 1);
    assert_eq!(r.rows[0].vertices, n);
    assert!(r.report().contains("CesiumMan.m3d's skinned vertices"));
    let name = format!("skin:CesiumMan.m3d/skin/one/{}/rate", count_name(n));
    assert!(
        r.records()
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["name"] == name.as_str()),
        "no record {name}"
    );

    let cube = facet::load::load_file(&shared.join("fixtures/m3d/cube.m3d")).unwrap();
    let e = bench::SkinSource::from_scene("cube.m3d", &cube.scene)
        .err()
        .unwrap();
    assert!(e.contains("cube.m3d"), "{e}");
}

#[test]
fn skin_sweep_refuses_what_the_device_cannot_hold() {
    let gpu = common::gpu();
    let largest = gpu.device.limits().max_buffer_size;
    // The first count whose 28-byte vertices pass the device's largest
    // buffer, where a u32 count can say it.
    let n = largest / 28 + 1;
    assert!(
        n <= u32::MAX as u64,
        "llvmpipe's largest buffer is {largest} bytes"
    );
    let e = bench::skin(
        &gpu,
        &[n as u32],
        &[SkinKernel::Skin],
        &[SkinLayout::One],
        SkinData::Generated { bones: 4 },
        1,
        false,
    )
    .err()
    .expect("a size past the device's largest buffer is refused");
    assert!(e.contains("largest buffer"), "{e}");
}

#[test]
fn map_bench_reports_every_way_of_drawing_at_each_sample_count() {
    let gpu = common::gpu();
    let scene = common::small_map_scene();
    for samples in [Some(1), None] {
        let r = bench::map_frames(&gpu, "small", &scene, (64, 48), 3, samples);
        assert_eq!(
            r.samples,
            samples.unwrap_or(gpu.sample_count(facet::gpu::capture::CAPTURE_FORMAT))
        );
        assert!(!r.rows.is_empty());
        let all = &r.rows[0];
        assert_eq!(all.key, "all");
        assert!(all.median <= all.p90 && all.p90 <= all.p99);
        // Everything, then the same with frustum culling: never more.
        assert_eq!(r.rows[1].key, "view");
        assert!(r.rows[1].triangles <= all.triangles);
        assert_eq!(all.triangles, scene.triangle_count() as u64);
        let names: Vec<String> = r
            .records()
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap().to_string())
            .collect();
        let prefix = format!("map/64x48/msaa{}/all/", r.samples);
        for what in ["median", "p90", "p99", "cpu", "fps", "triangles"] {
            assert!(
                names.contains(&format!("{prefix}{what}")),
                "{prefix}{what} in {names:?}"
            );
        }
    }
}

#[test]
fn material_bench_records_name_each_count() {
    // 300 materials of the generator, each animated; the records carry
    // the count as `count_name` writes it, a rate that is the count over
    // the median, and the adapter as the machine.
    let gpu = common::gpu();
    let r = bench::materials(&gpu, 300, 2);
    assert_eq!(r.materials, 300);
    assert!(r.keys > 0);
    assert!(r.gpu_ms_min <= r.gpu_ms_median && r.gpu_ms_median > 0.0);
    let records = r.records();
    let records = records.as_array().unwrap();
    let value = |name: &str| {
        records
            .iter()
            .find(|x| x["name"] == name)
            .unwrap_or_else(|| panic!("no record {name} in {records:?}"))["value"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(value("materials/300/gpu"), r.gpu_ms_median);
    let rate = 300.0 / (r.gpu_ms_median * 1e-3) / 1e6;
    assert!((value("materials/300/rate") - rate).abs() <= 1e-9 * rate);
    assert_eq!(value("materials/300/keys"), r.keys as f64);
    for what in ["gpu_min", "cpu_rate"] {
        value(&format!("materials/300/{what}"));
    }
    assert!(records.iter().all(|x| x["machine"] == r.adapter.as_str()));
}

/// `--json` names where the records go: a folder not there yet is made
/// before the bench runs (`target/bench` on a fresh checkout; the records
/// of a sweep were lost at its end), and a path whose folder cannot be
/// one is refused before anything is timed.
#[test]
fn bench_records_go_where_json_says_or_the_bench_does_not_start() {
    let dir = common::output_dir().join("bench_json");
    let _ = std::fs::remove_dir_all(&dir);
    let facet = || {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_facet"));
        c.env("FACET_ADAPTER", common::SOFTWARE_ADAPTER);
        c
    };
    let file = dir.join("new/folders/materials.json");
    common::stdout_of(
        facet()
            .args(["bench", "materials", "--materials", "300"])
            .args(["--iterations", "2", "--json"])
            .arg(&file),
    );
    let records: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert!(
        records
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "materials/300/gpu"),
        "{records}"
    );

    // A file where the folder should be: refused, and nothing printed of
    // a bench (nothing was timed).
    let blocked = dir.join("blocked");
    std::fs::write(&blocked, b"").unwrap();
    let out = facet()
        .args([
            "bench",
            "skin",
            "--vertices",
            "1K",
            "--iterations",
            "1",
            "--json",
        ])
        .arg(blocked.join("skin.json"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err,
        format!(
            "error: {}: {} is not a folder\n",
            blocked.join("skin.json").display(),
            blocked.display()
        )
    );
}
