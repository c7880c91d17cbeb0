//! Decode budgets (issue 19): a file's declared sizes never allocate more
//! than the texel budget. PTF texels are box-filtered as they stream out of
//! the LZ4 frame; images over the budget are refused naming their size;
//! `info` and `thumbnail` are held to a peak RSS, measured from
//! `/proc/PID/status` (VmHWM) while they run.

mod common;
use facet::formats::ptf::{self, PtfFormat, PtfLayout};
use std::io::Write;
use std::process::Command;

fn lz4(texels: &[u8]) -> Vec<u8> {
    let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
    e.write_all(texels).unwrap();
    e.finish().unwrap()
}

#[test]
fn over_budget_ptf_rows_are_averaged_as_they_stream() {
    // Current form, format 2 (RGB), size 0x22: 4x4. Red = 10 * texel index,
    // green 0, blue 255. Budget 12 bytes: 2x2 RGB. Each output texel is the
    // mean of a 2x2 block: top left (0 + 10 + 40 + 50) / 4 = 25, top right
    // (20 + 30 + 60 + 70) / 4 = 45, bottom left (80 + 90 + 120 + 130) / 4 =
    // 105, bottom right (100 + 110 + 140 + 150) / 4 = 125.
    let texels: Vec<u8> = (0..16u8).flat_map(|i| [10 * i, 0, 255]).collect();
    let mut file = vec![b'P', b'T', b'F', 0, 2, 0x22];
    file.extend(lz4(&texels));
    let t = ptf::decode_within(&file, 12).unwrap();
    assert_eq!((t.width, t.height, t.reduced_from), (2, 2, Some((4, 4))));
    let reds: Vec<u8> = t.pixels.chunks(3).map(|p| p[0]).collect();
    assert_eq!(reds, [25, 45, 105, 125]);
    assert!(t.pixels.chunks(3).all(|p| p[1] == 0 && p[2] == 255));
    // Within the budget: exact.
    assert_eq!(ptf::decode_within(&file, 48).unwrap().pixels, texels);
    // Flags 1 over the budget: the length is counted first (64 bytes: the
    // 2025 form's RGBA, not the current form's 32 of IA), then reduced.
    let rgba: Vec<u8> = (0..64).collect();
    let mut file = vec![b'P', b'T', b'F', 0, 1, 0x22];
    file.extend(lz4(&rgba));
    let t = ptf::decode_within(&file, 16).unwrap();
    assert_eq!(t.layout, PtfLayout::Y2025 { version: 0 });
    assert_eq!((t.format, t.width, t.height), (PtfFormat::Rgba, 2, 2));
    // A frame one byte short is still an error.
    let mut file = vec![b'P', b'T', b'F', 0, 2, 0x22];
    file.extend(lz4(&texels[..47]));
    assert!(ptf::decode_within(&file, 12).is_err());
}

/// A current-form RGBA PTF of `2^log` squared texels of zeros, streamed
/// into the LZ4 encoder (never held whole).
fn zeros_ptf(log: u8) -> Vec<u8> {
    let side = 1usize << log;
    let mut e = lz4_flex::frame::FrameEncoder::new(vec![b'P', b'T', b'F', 0, 3, (log << 4) | log]);
    let row = vec![0u8; side * 4];
    for _ in 0..side {
        e.write_all(&row).unwrap();
    }
    e.finish().unwrap()
}

/// Runs facet with `args`, polling its peak resident set (VmHWM) until it
/// exits: (success, stderr, peak bytes).
fn run_measured(args: &[&std::ffi::OsStr]) -> (bool, String, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_facet"))
        .args(args)
        .env("XDG_CONFIG_HOME", common::output_dir().join("config"))
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let status = loop {
        if let Ok(s) = std::fs::read_to_string(&status_path)
            && let Some(kb) = s
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        {
            peak = peak.max(kb * 1024);
        }
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (status.success(), err, peak)
}

#[test]
fn huge_declared_ptfs_stay_within_memory_bounds() {
    // The files: 2^14 and 2^15 squares of RGBA zeros (1 and 4 GiB
    // of texels) in a few megabytes. info used 2.1 GB on the first;
    // thumbnail 4.3 GB.
    let dir = common::output_dir().join(format!("budgets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for log in [14u8, 15] {
        let side = 1u32 << log;
        let file = dir.join(format!("zeros_{side}.ptf"));
        std::fs::write(&file, zeros_ptf(log)).unwrap();
        let (ok, err, peak) = run_measured(&["info".as_ref(), file.as_os_str()]);
        assert!(ok, "{err}");
        assert!(
            peak <= 64 << 20,
            "info on 2^{log} peaked at {} MiB",
            peak >> 20
        );
        let png = dir.join("zeros.png");
        let (ok, err, peak) = run_measured(&[
            "thumbnail".as_ref(),
            file.as_os_str(),
            png.as_os_str(),
            "--size".as_ref(),
            "64".as_ref(),
        ]);
        assert!(ok, "{err}");
        assert!(
            peak <= 512 << 20,
            "thumbnail on 2^{log} peaked at {} MiB",
            peak >> 20
        );
        assert!(
            err.contains(&format!("declares {side}x{side} RGBA")),
            "{err}"
        );
    }
}

#[test]
fn images_over_the_budget_are_refused_naming_their_size() {
    let png = common::png_header_only(30000, 30000);
    let e = facet::scene::decode_image(&png, image::ImageFormat::Png, 1 << 30).unwrap_err();
    assert!(
        e.contains("30000x30000") && e.contains("texel budget"),
        "{e}"
    );
}

fn budget_case(dir: &std::path::Path, file: &std::path::Path) {
    let (ok, err, peak) = run_measured(&["info".as_ref(), file.as_os_str()]);
    assert!(ok, "{err}");
    assert!(
        peak <= 64 << 20,
        "info on {} peaked at {} MiB",
        file.display(),
        peak >> 20
    );
    let png = dir.join("out.png");
    for cmd in ["thumbnail", "render"] {
        let args: Vec<&std::ffi::OsStr> = match cmd {
            "thumbnail" => vec!["thumbnail".as_ref(), file.as_os_str(), png.as_os_str()],
            _ => vec![
                "render".as_ref(),
                file.as_os_str(),
                "-o".as_ref(),
                png.as_os_str(),
                "--size".as_ref(),
                "64x48".as_ref(),
            ],
        };
        let (ok, err, peak) = run_measured(&args);
        assert!(ok, "{cmd} {}: {err}", file.display());
        if cmd == "thumbnail" {
            assert!(peak <= 512 << 20, "thumbnail peaked at {} MiB", peak >> 20);
        }
        assert!(
            err.contains("30000x30000") && err.contains("texel budget"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn images_declaring_30000_squared_are_refused_cleanly() {
    // A P3M's external PNG and viper.m3d's inlined PNG.
    let dir = common::output_dir().join(format!("budget-images-{}", std::process::id()));
    let (p3m, m3d) = common::huge_image_models(&dir);
    budget_case(&dir, &p3m);
    budget_case(&dir, &m3d);
}
