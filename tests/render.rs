//! GPU image tests (software adapter in CI) and the CLI: `render`, `info`.
//! References: tests/reference/*.png; metric in tests/common (per-pixel
//! tolerance 10/255, at most 0.5% of pixels differing). Regenerate with
//! `FACET_BLESS=1 cargo test --test render`.

mod common;
use facet::gpu::{FrameInput, GpuScene, OrbitCamera, Renderer, ViewOptions, capture, frame};
use std::process::Command;

fn render(
    scene: &facet::scene::Scene,
    opts: impl FnOnce(&mut ViewOptions),
    w: u32,
    h: u32,
) -> (image::RgbaImage, facet::gpu::FrameStats) {
    let gpu = common::gpu();
    let format = capture::CAPTURE_FORMAT;
    let renderer = Renderer::new(&gpu, format, gpu.sample_count(format));
    let mut gs = GpuScene::new(&gpu, &renderer, scene);
    let mut o = ViewOptions::for_scene(scene);
    opts(&mut o);
    let cam = OrbitCamera::framing(&scene.bounds(Some(&o.visible)), w as f32 / h as f32);
    frame::render_to_image(
        &gpu,
        &renderer,
        &mut gs,
        &FrameInput::at_rest(&cam, &o),
        w,
        h,
    )
}

fn demo() -> facet::scene::Scene {
    facet::load::load_file(&common::repo().join("assets/demo.p3m"))
        .unwrap()
        .scene
}

#[test]
fn demo_matches_reference() {
    let (img, stats) = render(&demo(), |_| {}, 320, 240);
    // 4 visible parts (the hidden armour is not drawn) + the grid.
    assert_eq!(stats.draw_calls, 5);
    assert_eq!(stats.triangles, 160 + 12 + 1024 + 256);
    common::assert_matches_reference("demo", &img);
}

#[test]
fn overlays_match_reference() {
    let (img, stats) = render(
        &demo(),
        |o| {
            o.wireframe = true;
            o.bounds = true;
            o.grid = false;
            o.visible = vec![true; 5];
        },
        320,
        240,
    );
    assert_eq!(stats.triangles, 160 + 12 + 1024 + 256 + 12);
    common::assert_matches_reference("demo_overlays", &img);
}

#[test]
fn matcap_preset_matches_reference() {
    use facet::gpu::Lighting;
    let scene = demo();
    let (studio, _) = render(&scene, |_| {}, 320, 240);
    let (img, _) = render(&scene, |o| o.lighting = Lighting::Matcap, 320, 240);
    common::assert_matches_reference("demo_matcap", &img);
    // The preset really changes the shading (not just a renamed studio).
    let changed = img
        .pixels()
        .zip(studio.pixels())
        .filter(|(a, b)| (0..3).any(|c| a.0[c].abs_diff(b.0[c]) > 10))
        .count();
    assert!(changed > 2000, "only {changed} pixels differ from studio");
}

#[test]
fn the_selected_part_is_outlined_in_the_selection_colour() {
    let scene = demo();
    // The selection colour (1.0, 0.62, 0.1) in sRGB, give or take blending.
    let orange = |img: &image::RgbaImage| {
        img.pixels()
            .filter(|p| p.0[0] > 230 && (180..=225).contains(&p.0[1]) && p.0[2] < 120)
            .count()
    };
    let (plain, plain_stats) = render(&scene, |_| {}, 320, 240);
    let (img, stats) = render(&scene, |o| o.selected_part = Some(2), 320, 240);
    assert_eq!(orange(&plain), 0);
    assert!(orange(&img) > 300, "{} outline pixels", orange(&img));
    assert_eq!(stats.draw_calls, plain_stats.draw_calls + 1);
    // A hidden part is not outlined.
    let (_, hidden) = render(
        &scene,
        |o| {
            o.selected_part = Some(4);
        },
        320,
        240,
    );
    assert_eq!(hidden.draw_calls, plain_stats.draw_calls);
}

#[test]
fn additive_parts_add_light() {
    // The glow part alone, over a mid-grey background: additive blending can
    // only brighten, so no pixel gets darker than the background.
    let scene = demo();
    let bg = 0.2f64;
    let (img, _) = render(
        &scene,
        |o| {
            o.visible = vec![false, false, false, true, false];
            o.grid = false;
            o.background = [bg, bg, bg, 1.0];
        },
        96,
        96,
    );
    let bg8 = img.get_pixel(0, 0).0;
    let brighter = img.pixels().filter(|p| p.0[2] > bg8[2] + 20).count();
    assert!(
        brighter > 500,
        "the additive part shows ({brighter} brighter pixels)"
    );
    assert!(
        img.pixels()
            .all(|p| (0..3).all(|c| p.0[c].saturating_add(1) >= bg8[c])),
        "additive blending darkened a pixel"
    );
}

#[test]
fn ptf_fixture_renders_as_a_textured_quad() {
    let loaded =
        facet::load::load_file(&common::shared().join("fixtures/ptf/missing.ptf")).unwrap();
    let (img, _) = render(&loaded.scene, |o| o.grid = false, 128, 128);
    common::assert_matches_reference("missing_ptf", &img);
}

/// The binary, on the adapter the references were made with.
fn facet() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_facet"));
    c.env("FACET_ADAPTER", common::SOFTWARE_ADAPTER);
    c
}

#[test]
fn cli_render_writes_the_expected_png() {
    let out = common::output_dir().join("cli_demo.png");
    let st = facet()
        .args(["render", "assets/demo.p3m", "-o"])
        .arg(&out)
        .args(["--size", "320x240"])
        .current_dir(common::repo())
        .status()
        .unwrap();
    assert!(st.success());
    let img = image::open(&out).unwrap().to_rgba8();
    common::assert_matches_reference("demo", &img);

    let out2 = common::output_dir().join("cli_demo_cam.png");
    let st = facet()
        .args(["render", "assets/demo.p3m", "-o"])
        .arg(&out2)
        .args([
            "--size",
            "200x100",
            "--camera",
            "-90,10,1.5",
            "--background",
            "#FFFFFF",
        ])
        .current_dir(common::repo())
        .status()
        .unwrap();
    assert!(st.success());
    let img = image::open(&out2).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (200, 100));
    assert_eq!(img.get_pixel(0, 0).0, [255, 255, 255, 255]);

    let out3 = common::output_dir().join("cli_demo_matcap.png");
    let st = facet()
        .args(["render", "assets/demo.p3m", "--lighting", "matcap", "-o"])
        .arg(&out3)
        .args(["--size", "320x240"])
        .current_dir(common::repo())
        .status()
        .unwrap();
    assert!(st.success());
    let img = image::open(&out3).unwrap().to_rgba8();
    common::assert_matches_reference("demo_matcap", &img);

    let bad = facet()
        .args(["render", "assets/demo.p3m", "--lighting", "disco", "-o"])
        .arg(&out3)
        .current_dir(common::repo())
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("expected one of studio, flat, top, matcap"),
        "{err}"
    );
}

#[test]
fn cli_time_must_be_a_finite_number_of_seconds() {
    // `info --time nan` posed the clip on its first frame and reported it
    // "at null s"; infinity took the last frame the same way.
    let dir = common::output_dir();
    for (cmd, t) in [("info", "nan"), ("info", "inf"), ("render", "NaN")] {
        let mut c = facet();
        c.current_dir(common::repo())
            .args([cmd, "assets/demo.p3m", "--clip", "nod"])
            .arg(format!("--time={t}"));
        if cmd == "render" {
            c.arg("-o").arg(dir.join("never-nan.png"));
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{cmd} --time={t}: {err}");
        assert!(
            err.contains(&format!("{t} is not a finite number of seconds")),
            "{cmd} --time={t}: {err}"
        );
    }
    // A negative time, written either way (`--time -0.25` was "unexpected
    // argument '-0.25'"): before the clip's start, its first frame.
    for time in [&["--time=-0.25"][..], &["--time", "-0.25"]] {
        let pose = common::stdout_of(
            facet()
                .current_dir(common::repo())
                .args(["info", "assets/demo.p3m", "--clip", "nod"])
                .args(time),
        );
        assert!(
            pose.contains("pose of \"nod\" at -0.25 s (frame 0.00)"),
            "{pose}"
        );
    }
}

#[test]
fn cli_reports_end_quietly_when_the_reader_has_gone() {
    // `facet info --json model | head`: the pipe's reading end is closed
    // before the report is written, so every write to standard output
    // fails as a broken pipe. println! panicked there (exit 101 and a
    // panic message on stderr).
    for args in [
        &["info", "--json", "assets/demo.p3m"][..],
        &["info", "assets/demo.p3m"][..],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = facet()
            .args(args)
            .current_dir(common::repo())
            .stdout(writer)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?} {err}", out.status);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn cli_info_json_reports_every_section() {
    let out = facet()
        .args(["info", "--json", "assets/demo.p3m"])
        .current_dir(common::repo())
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["summary"];
    assert_eq!(s["format"], "P3M");
    assert_eq!(s["parts"], 5);
    assert_eq!(s["vertices"], 928);
    assert_eq!(s["triangles"], 1464);
    assert_eq!(s["materials"], 4);
    assert_eq!(s["textures"], 2);
    assert_eq!(s["bones"], 3);
    assert_eq!(s["clips"], 1);
    let p = &v["p3m"];
    for key in [
        "parts",
        "materials",
        "textures",
        "bones",
        "animations",
        "actions",
        "user_fields",
    ] {
        assert!(
            p[key].as_array().is_some_and(|a| !a.is_empty()),
            "p3m.{key} missing or empty"
        );
    }
    assert_eq!(p["parts"][4]["visible"], false);
    assert_eq!(p["materials"][2]["render_mode"], "add");
    assert_eq!(p["bones"][2]["parent"], 1);
    assert_eq!(p["actions"][0]["bones"][0]["rotation"][1]["frame"], 12);
    assert_eq!(p["user_fields"][3]["value"], "[\"robot\", \"lantern\"]");
    let glow = &p["materials"][2]["animation"];
    assert_eq!(glow["loop"], "cont");
    assert_eq!(glow["last_frame"], 23);
    assert_eq!(glow["tracks"]["color"][1]["frame"], 12); // skip 11 after frame 0
    assert_eq!(glow["tracks"]["color"][1]["interp"], "LinearOklch");

    let out = facet()
        .args(["info", "assets/demo.p3m"])
        .current_dir(common::repo())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("5 parts, 928 vertices, 1464 triangles"),
        "{text}"
    );
    assert!(
        text.contains("animation: 50.0 ms a frame, frames 0..=23, continue (CONT); keys: color 2, emission 2, shading 0, texture 0, matcap 0; scroll [0.0, 0.0] / [0.0, 0.0]"),
        "{text}"
    );
}

#[test]
fn cli_bad_file_is_one_line_with_offset_and_nonzero_exit() {
    let dir = common::output_dir();
    let bad = dir.join("truncated.p3m");
    let bytes = facet::generators::p3m::demo_bytes();
    std::fs::write(&bad, &bytes[..100]).unwrap();
    for cmd in ["info", "render"] {
        let mut c = facet();
        c.arg(cmd).arg(&bad);
        if cmd == "render" {
            c.arg("-o").arg(dir.join("never.png"));
        }
        let out = c.output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8(out.stderr).unwrap();
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
        assert_eq!(lines.len(), 1, "{err}");
        assert!(
            lines[0].starts_with("error: truncated.p3m: layout at offset 0x")
                && lines[0].contains("current layout (specs/p3m.txt): part 0: vertices")
                && lines[0].contains("2024 layout (specs/p3m-2024.txt): part 0: flags"),
            "{err}"
        );
    }
    let out = facet()
        .args(["info", "Cargo.toml"])
        .current_dir(common::repo())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a format facet knows"));
    // A file that is not there: its name and the system's reason, once
    // (the reason was also printed as a cause: "...: No such file or
    // directory (os error 2): No such file or directory (os error 2)").
    let out = facet()
        .args(["info", "no-such-model.m3d"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: no-such-model.m3d: "), "{err}");
    assert_eq!(err.matches("(os error 2)").count(), 1, "{err}");
}

/// `render -o` writes the format its name's extension says: the same
/// pixels as PNG in WebP, BMP and TGA (lossless), within JPEG's loss in
/// JPEG (which has no alpha; `-o shot.jpg` rendered, then failed on
/// "the encoder for Jpeg does not support Rgba8" and left an empty
/// file). A name with no extension is PNG; one no encoder here writes is
/// refused before the model is read.
#[test]
fn cli_render_writes_the_format_its_name_says() {
    let dir = common::output_dir().join("formats");
    std::fs::create_dir_all(&dir).unwrap();
    let render = |name: &str| {
        let path = dir.join(name);
        let _ = std::fs::remove_file(&path);
        let out = facet()
            .args(["render", "assets/demo.p3m", "--size", "96x64", "-o"])
            .arg(&path)
            .current_dir(common::repo())
            .output()
            .unwrap();
        (path, out)
    };
    let (png, out) = render("demo.png");
    assert!(out.status.success());
    let png = image::open(&png).unwrap().to_rgba8();
    for (name, format) in [
        ("demo.webp", image::ImageFormat::WebP),
        ("demo.BMP", image::ImageFormat::Bmp),
        ("demo.tga", image::ImageFormat::Tga),
        ("demo.jpeg", image::ImageFormat::Jpeg),
    ] {
        let (path, out) = render(name);
        assert!(out.status.success(), "{name}: {out:?}");
        let bytes = std::fs::read(&path).unwrap();
        // Each format's own header, as its specification lays it out (not
        // only what the `image` crate that wrote it reads back).
        let header_ok = match format {
            // JPEG: SOI then a marker (ITU T.81 B.1.1.2).
            image::ImageFormat::Jpeg => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
            // WebP: a RIFF container of form type "WEBP".
            image::ImageFormat::WebP => bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP",
            // BMP: "BM", then the width and height as i32 at 18 and 22
            // (BITMAPINFOHEADER; a negative height is a top-down image).
            image::ImageFormat::Bmp => {
                let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
                bytes.starts_with(b"BM") && i32_at(18) == 96 && i32_at(22).abs() == 64
            }
            // TGA: image type 2 or 10 (true colour, RLE or not) at 2, the
            // width and height as u16 at 12 and 14, 32 bits a pixel at 16.
            _ => {
                let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
                matches!(bytes[2], 2 | 10)
                    && u16_at(12) == 96
                    && u16_at(14) == 64
                    && bytes[16] == 32
            }
        };
        assert!(header_ok, "{name}: {:02X?}", &bytes[..18]);
        let img = image::load_from_memory_with_format(&bytes, format)
            .unwrap()
            .to_rgba8();
        assert_eq!(img.dimensions(), (96, 64), "{name}");
        if format != image::ImageFormat::Jpeg {
            assert!(img == png, "{name}: not the PNG's pixels");
            continue;
        }
        // Opaque (the default background), each channel within JPEG's
        // loss: a mean difference of at most 3 of 255 (quality 92).
        let diff: u64 = img
            .pixels()
            .zip(png.pixels())
            .flat_map(|(a, b)| (0..3).map(move |c| a[c].abs_diff(b[c]) as u64))
            .sum();
        let mean = diff as f64 / (96.0 * 64.0 * 3.0);
        assert!(img.pixels().all(|p| p[3] == 255), "{name}");
        assert!(mean <= 3.0, "{name}: mean difference {mean:.2}");
    }
    for name in ["demo.tiff", "demo.exr", "demo.v2"] {
        let out = facet()
            .args(["render", "no-such-model.m3d", "-o", name])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "{name}: an image is saved as .png, .jpg/.jpeg, .webp, .bmp or .tga, by the name's extension"
            )),
            "{err}"
        );
        assert!(!dir.join(name).exists(), "{name}");
    }
}

/// `cmd`'s exit status and standard error, or a failure naming it where
/// it runs past `limit` (it is killed then): for inputs that once hung.
fn finishes_within(
    mut cmd: Command,
    limit: std::time::Duration,
) -> (std::process::ExitStatus, String) {
    use std::io::Read;
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{cmd:?} still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status, err)
}

/// What `facet` reads as a file. A device is refused by its kind before a
/// byte is read: `facet info /dev/zero` read until memory ran out, as did
/// `render --anim` (the model's size was checked, the animation's not). An
/// animation file over the 1 GiB cap is refused by its size as the model
/// is. A pipe is read: `facet info /dev/stdin < model.m3d` or `<(...)`.
#[cfg(unix)]
#[test]
fn cli_reads_files_and_pipes_never_devices() {
    let dir = common::output_dir().join("inputs");
    std::fs::create_dir_all(&dir).unwrap();
    let demo = common::repo().join("assets/demo.p3m");
    let limit = std::time::Duration::from_secs(30);
    let mut info = facet();
    info.args(["info", "/dev/zero"]);
    let (status, err) = finishes_within(info, limit);
    assert!(!status.success());
    assert_eq!(err, "error: zero: a device, not a file\n");

    let render_with = |anim: &std::path::Path| {
        let mut c = facet();
        c.arg("render").arg(&demo).arg("--anim").arg(anim);
        c.arg("-o").arg(dir.join("never.png"));
        c
    };
    let (status, err) = finishes_within(render_with("/dev/zero".as_ref()), limit);
    assert!(!status.success());
    assert_eq!(err, "error: zero: a device, not a file\n");

    // One byte over the cap, sparse: no disk is written for it.
    let big = dir.join("big_anim_idle.papa");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((1 << 30) + 1)
        .unwrap();
    let (status, err) = finishes_within(render_with(&big), limit);
    std::fs::remove_file(&big).unwrap();
    assert!(!status.success());
    assert_eq!(
        err,
        "error: big_anim_idle.papa: 1073741825 bytes is over the 1073741824-byte cap\n"
    );

    // A pipe: the file's bytes through standard input, found by their
    // magic bytes (a pipe has no extension).
    let suzanne = common::shared().join("fixtures/m3d/suzanne.m3d");
    let bytes = std::fs::read(&suzanne).unwrap();
    let mut child = facet()
        .args(["info", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(&bytes).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    let piped = String::from_utf8(out.stdout).unwrap();
    let named = common::stdout_of(facet().arg("info").arg(&suzanne));
    assert_eq!(piped.lines().next(), Some("stdin: M3D file, 11645 bytes"));
    assert_eq!(
        piped.lines().skip(1).collect::<Vec<_>>(),
        named.lines().skip(1).collect::<Vec<_>>()
    );
}

#[test]
fn posed_frame_matches_reference() {
    let gpu = common::gpu();
    let scene = demo();
    let req = facet::cli::headless::RenderRequest {
        width: 320,
        height: 240,
        camera: Some((90.0, 10.0, 1.0)),
        view: ViewOptions {
            skeleton: true,
            ..Default::default()
        },
        clip: Some("nod".into()),
        time: 0.5,
        ..Default::default()
    };
    let (img, _) = facet::cli::headless::render(&gpu, &scene, &req).unwrap();
    common::assert_matches_reference("demo_nod_0.5s", &img);
    // The rest pose differs from the peak of the nod.
    let (rest, _) = facet::cli::headless::render(
        &gpu,
        &scene,
        &facet::cli::headless::RenderRequest {
            time: 0.0,
            ..req.clone()
        },
    )
    .unwrap();
    let changed = differing(&rest, &img);
    assert!(
        changed > 500,
        "the pose did not change the picture ({changed} pixels)"
    );
}

#[test]
fn cli_camera_must_be_finite() {
    for camera in ["inf,1,2", "nan,0", "30,20,inf", "0,0,0"] {
        let out = facet()
            .args(["render", "assets/demo.p3m", "-o", "/dev/null"])
            .arg(format!("--camera={camera}"))
            .current_dir(common::repo())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "--camera={camera}: {err}");
        assert!(
            err.contains("finite numbers with ZOOM > 0"),
            "--camera={camera}: {err}"
        );
    }
}

#[test]
fn cli_light_turns_the_key_light_and_refuses_what_is_not_two_angles() {
    // Half a turn puts the studio light behind the model: the picture
    // changes; the same turn under flat lighting changes nothing. (How a
    // turn lights a face is tests/shading.rs' a_turned_key_light_....)
    let dir = common::output_dir();
    let render = |name: &str, args: &[&str]| {
        let out = dir.join(format!("cli_light_{name}.png"));
        let st = facet()
            .args(["render", "assets/demo.m3d", "--size", "160x120", "-o"])
            .arg(&out)
            .args(args)
            .current_dir(common::repo())
            .status()
            .unwrap();
        assert!(st.success(), "{name}");
        image::open(&out).unwrap().to_rgba8()
    };
    let lit = render("studio", &[]);
    let behind = render("studio_180", &["--light=180,0"]);
    assert!(differing(&lit, &behind) > 500, "the light did not turn");
    let flat = render("flat", &["--lighting", "flat"]);
    let flat_turned = render("flat_180", &["--lighting", "flat", "--light=180,0"]);
    assert_eq!(differing(&flat, &flat_turned), 0);
    for light in ["90", "inf,0", "a,b", "1,2,3"] {
        let out = facet()
            .args(["render", "assets/demo.m3d", "-o", "/dev/null"])
            .arg(format!("--light={light}"))
            .current_dir(common::repo())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "--light={light}: {err}");
        assert!(err.contains("expected TURN,RAISE in degrees"), "{err}");
    }
}

#[test]
fn cli_sequence_writes_the_clip_frame_by_frame_each_as_its_time_renders() {
    // demo.p3m's "nod" is 1 s: at 4 frames a second, the times 0, 0.25,
    // 0.5, 0.75 and 1, in nod-0000.png ... nod-0004.png and no more. Each
    // must be the picture `--time` gives at its time (the camera framed
    // once, so the frames line up), and the pose moves between them.
    let dir = common::output_dir().join(format!("sequence-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let run = |args: &[&str], out: &std::path::Path| {
        let st = facet()
            .args([
                "render",
                "assets/demo.p3m",
                "--size",
                "96x72",
                "--clip",
                "nod",
            ])
            .args(args)
            .arg("-o")
            .arg(out)
            .current_dir(common::repo())
            .status()
            .unwrap();
        assert!(st.success(), "{args:?}");
    };
    run(&["--sequence", "4"], &dir.join("nod.png"));
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            "nod-0000.png",
            "nod-0001.png",
            "nod-0002.png",
            "nod-0003.png",
            "nod-0004.png"
        ]
    );
    let frame = |k: usize| image::open(dir.join(&written[k])).unwrap().to_rgba8();
    for (k, time) in ["0", "0.25", "0.5", "0.75", "1"].iter().enumerate() {
        let single = dir.join(format!("single-{time}.png"));
        run(&["--time", time], &single);
        let single = image::open(&single).unwrap().to_rgba8();
        assert_eq!(
            differing(&frame(k), &single),
            0,
            "frame {k} is not --time {time}"
        );
    }
    assert!(
        differing(&frame(0), &frame(2)) > 50,
        "the nod does not move"
    );
    // What cannot be drawn is refused before the GPU starts: a file with
    // no clip, a rate of 0, --duration without --sequence, a sequence
    // with --time.
    let refused = |file: &std::path::Path, args: &[&str], says: &str| {
        let out = facet()
            .arg("render")
            .arg(file)
            .arg("-o")
            .arg(dir.join("refused.png"))
            .args(args)
            .current_dir(common::repo())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    let cube = common::shared().join("fixtures/m3d/cube.m3d");
    let demo = common::repo().join("assets/demo.p3m");
    refused(&cube, &["--sequence", "10"], "this file has none");
    refused(&demo, &["--sequence", "0"], "not a frame rate");
    refused(&demo, &["--duration", "2"], "--sequence");
    refused(&demo, &["--sequence", "10", "--time", "1"], "--time");
    refused(
        &demo,
        &["--sequence", "1000", "--duration", "20"],
        "more than the 10000",
    );
    assert!(
        !std::fs::read_dir(&dir).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("refused")),
        "a refused sequence wrote an image"
    );
}

/// The engine's missing.ptf (a shared fixture, 64 x 64): magenta
/// (255, 0, 255) where the 8-texel squares' column and row add up even,
/// black where odd, all opaque: the checkerboard PlatinumSrc draws for a
/// texture it cannot find, described by hand from the engine's look.
fn is_missing_checker(img: &image::RgbaImage) -> bool {
    img.dimensions() == (64, 64)
        && img.enumerate_pixels().all(|(x, y, p)| {
            let magenta = (x / 8 + y / 8) % 2 == 0;
            p.0 == if magenta {
                [255, 0, 255, 255]
            } else {
                [0, 0, 0, 255]
            }
        })
}

#[test]
fn cli_convert_writes_a_texture_file_as_an_image() {
    let dir = common::output_dir().join(format!("texture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let convert = |input: &std::path::Path, out: &str| {
        facet()
            .arg("convert")
            .arg(input)
            .arg("-o")
            .arg(dir.join(out))
            .output()
            .unwrap()
    };
    let fixtures = common::shared().join("fixtures");
    let out = convert(&fixtures.join("ptf/missing.ptf"), "missing.png");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let img = image::open(dir.join("missing.png")).unwrap().to_rgba8();
    assert!(is_missing_checker(&img));
    // A PA texture of DXT1 blocks: its full-size level (256 x 256, of
    // eight), the blocks decoded as the viewer decodes them.
    let papa = fixtures.join("papa/gray_diffuse.papa");
    let out = convert(&papa, "gray.webp");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let img = image::open(dir.join("gray.webp")).unwrap().to_rgba8();
    let scene = facet::load::load_file(&papa).unwrap().scene;
    let loaded = scene.viewed_texture(0).unwrap().to_image().unwrap();
    assert_eq!(img.dimensions(), (256, 256));
    assert_eq!(differing(&img, &loaded), 0);
    // A model has no one image: refused, nothing written.
    let out = convert(&fixtures.join("papa/bot_sun.papa"), "bot.png");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a texture file"), "{err}");
    assert!(!dir.join("bot.png").exists());
}

/// `--camera`'s ZOOM moves the eye only as far as the viewer's wheel does
/// (1000 radii out, 1/1000 of a radius in): a zoom of 1e-30 put the eye
/// 1e30 units out, where depth lost all precision and nothing was drawn.
/// Two zooms past each limit draw the same image, and the far one still
/// shows the model (a dot of a few pixels on the background).
#[test]
fn cli_camera_zoom_stops_where_the_wheel_does() {
    let dir = common::output_dir().join("zoom");
    std::fs::create_dir_all(&dir).unwrap();
    let render = |zoom: &str| {
        let path = dir.join(format!("zoom_{zoom}.png"));
        let out = facet()
            .args([
                "render",
                "assets/demo.p3m",
                "--size",
                "800x600",
                "--no-grid",
            ])
            .arg(format!("--camera=30,20,{zoom}"))
            .arg("-o")
            .arg(&path)
            .current_dir(common::repo())
            .output()
            .unwrap();
        assert!(out.status.success(), "zoom {zoom}: {out:?}");
        image::open(&path).unwrap().to_rgba8()
    };
    let far = render("1e-30");
    assert_eq!(far, render("1e-9"), "two zooms past the far limit");
    let background = *far.get_pixel(0, 0);
    let model = far.pixels().filter(|p| **p != background).count();
    assert!(
        (1..=64).contains(&model),
        "1000 radii out the model is a dot: {model} pixels not the background"
    );
    assert_eq!(
        render("1e30"),
        render("1e9"),
        "two zooms past the near limit"
    );
}

#[test]
fn cli_render_unknown_clip_lists_the_clips() {
    let out = facet()
        .args([
            "render",
            "assets/demo.p3m",
            "-o",
            "/dev/null",
            "--clip",
            "walk",
        ])
        .current_dir(common::repo())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no clip named \"walk\" (clips: \"nod\")"),
        "{err}"
    );
}

#[test]
fn cli_render_time_moves_animated_materials_without_a_clip() {
    // The demo's glow material pulses from cyan (0 s) to pink (0.6 s).
    let render = |t: &str| {
        let out = common::output_dir().join(format!("cli_demo_{t}s.png"));
        let st = facet()
            .args([
                "render",
                "assets/demo.p3m",
                "--size",
                "320x240",
                "--time",
                t,
                "-o",
            ])
            .arg(&out)
            .current_dir(common::repo())
            .status()
            .unwrap();
        assert!(st.success());
        image::open(&out).unwrap().to_rgba8()
    };
    let (start, pink) = (render("0"), render("0.6"));
    common::assert_matches_reference("demo", &start);
    common::assert_matches_reference("demo_0.6s", &pink);
    // Only the glow changes, and it gets redder.
    let changed: Vec<_> = start
        .pixels()
        .zip(pink.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 10))
        .collect();
    assert!(changed.len() > 150, "{} pixels changed", changed.len());
    let redder = changed
        .iter()
        .filter(|(a, b)| b.0[0] > a.0[0] && b.0[1] < a.0[1])
        .count();
    assert!(
        redder * 10 > changed.len() * 9,
        "{redder} of {} changed pixels got redder",
        changed.len()
    );
}

#[test]
fn demo_map_with_lightmaps_matches_reference() {
    // The bundled map from a fixed camera: sector meshes textured by their
    // RGB565 lightmaps, tinted by material.
    let loaded = facet::load::load_file(&common::repo().join("assets/demo.pmf")).unwrap();
    let gpu = common::gpu();
    let req = facet::cli::headless::RenderRequest {
        width: 320,
        height: 240,
        camera: Some((-20.0, 12.0, 3.0)),
        ..Default::default()
    };
    let (img, stats) = facet::cli::headless::render(&gpu, &loaded.scene, &req).unwrap();
    let tris: u64 = loaded
        .scene
        .map
        .as_ref()
        .unwrap()
        .map
        .sectors
        .iter()
        .map(|s| s.triangles.len() as u64)
        .sum();
    // The viewer's frustum culling leaves out the sectors the camera does
    // not see; drawing everything draws every sector triangle.
    assert!(stats.triangles > 0 && stats.triangles <= tris);
    common::assert_matches_reference("pmf_demo", &img);
    let mut everything = req.clone();
    everything.view.frustum_cull = false;
    let (_, stats) = facet::cli::headless::render(&gpu, &loaded.scene, &everything).unwrap();
    assert_eq!(stats.triangles, tris);
}

#[test]
fn visibility_culling_draws_exactly_the_visible_cubes_triangles() {
    use facet::scene::map_query;
    let map = facet::generators::pmf::generate(&facet::generators::pmf::Params::SMALL);
    let scene = facet::scene::from_pmf::convert(&map, Default::default(), Default::default());
    let info = scene.map.as_ref().unwrap();
    let total: u64 = scene.triangle_count() as u64;
    // The camera's cell: above the ground in the first sector's corner.
    let eye = glam::Vec3::new(3.5, 9.5, 3.5);
    let (si, cell) = map_query::cell_at(&info.map, eye).expect("a cell holds the eye");
    let visible = map_query::visible_cubes(&info.map, si, cell);
    assert!(!visible.is_empty());
    // Counted from the leaves up: every faced leaf whose cell is visible.
    let set: std::collections::HashSet<_> = visible.iter().copied().collect();
    let mut expected = 0u64;
    for (s, sector) in info.map.sectors.iter().enumerate() {
        for (c, cube) in sector.cubes.iter().enumerate() {
            if let Some((_, n)) = cube.kind.triangles()
                && let Some(chunk) = map_query::chunk_of(&info.map, s, c)
                && set.contains(&(s, chunk))
            {
                expected += n as u64;
            }
        }
    }
    assert_eq!(map_query::triangle_count(&info.map, &visible), expected);
    assert!(expected > 0 && expected < total, "{expected} of {total}");

    let ranges = map_query::draw_ranges(info, &visible);
    let (_, culled) = render(
        &scene,
        |o| {
            o.grid = false;
            o.ranges = Some(std::sync::Arc::new(ranges));
        },
        160,
        120,
    );
    assert_eq!(culled.triangles, expected);
    let (_, all) = render(&scene, |o| o.grid = false, 160, 120);
    assert_eq!(all.triangles, total);
}

#[test]
fn a_sectors_visibility_highlighted_matches_reference() {
    // A ground-level cell of sector (1, 0, 1) selected with "show only
    // what the selection sees": the cubes it sees drawn (the rest hidden)
    // and outlined green, their sectors blue, the selected sector white.
    use facet::scene::map_overlay::{self, MapOverlay};
    use facet::scene::map_query;
    let loaded = facet::load::load_file(&common::repo().join("assets/demo.pmf")).unwrap();
    let scene = &loaded.scene;
    let info = scene.map.as_ref().unwrap();
    let (sector, cell) = map_query::cell_at(&info.map, glam::Vec3::new(40.0, 3.0, 44.0)).unwrap();
    assert_eq!(info.map.sector_coords(sector), [1, 0, 1]);
    let visible = map_query::visible_cubes(&info.map, sector, cell);
    let gpu = common::gpu();
    let format = capture::CAPTURE_FORMAT;
    let renderer = Renderer::new(&gpu, format, gpu.sample_count(format));
    let mut gs = GpuScene::new(&gpu, &renderer, scene);
    let overlay = MapOverlay {
        sectors: true,
        selected_sector: Some(sector),
        selected_cube: Some((sector, cell)),
        visible: Some(visible.clone()),
        outline_visible_cubes: true,
        ..Default::default()
    };
    gs.set_extra_lines(&gpu, &map_overlay::lines(info, &overlay));
    let mut o = ViewOptions::for_scene(scene);
    o.grid = false;
    o.ranges = Some(std::sync::Arc::new(map_query::draw_ranges(info, &visible)));
    let mut cam = OrbitCamera::framing(&scene.bounds(None), 4.0 / 3.0);
    cam.yaw = 0.6;
    cam.pitch = 0.9;
    cam.distance *= 0.6;
    let (img, stats) = frame::render_to_image(
        &gpu,
        &renderer,
        &mut gs,
        &FrameInput::at_rest(&cam, &o),
        320,
        240,
    );
    assert_eq!(
        stats.triangles,
        map_query::triangle_count(&info.map, &visible)
    );
    assert!(stats.triangles < scene.triangle_count() as u64);
    common::assert_matches_reference("pmf_visibility", &img);
}

/// A cube of side 2 about the origin, two triangles a side, each wound
/// counter-clockwise seen from outside (checked here: its normal by the
/// right-hand rule points away from the centre). The sides facing -X, -Y
/// and -Z are one mesh, the others a second; both marked closed or not.
fn cube_in_two(closed: bool) -> facet::scene::Scene {
    use facet::scene::{Mesh, Scene};
    use glam::{Vec2, Vec3};
    let mut scene = Scene::default();
    for sign in [-1.0f32, 1.0] {
        let mut mesh = Mesh {
            name: format!("sides {sign}"),
            visible: true,
            closed,
            ..Mesh::default()
        };
        for axis in 0..3 {
            let n = Vec3::AXES[axis] * sign;
            let (u, v) = (Vec3::AXES[(axis + 1) % 3], Vec3::AXES[(axis + 2) % 3]);
            let mut quad = [n - u - v, n + u - v, n + u + v, n - u + v];
            if (quad[1] - quad[0]).cross(quad[2] - quad[0]).dot(n) < 0.0 {
                quad.reverse();
            }
            let base = mesh.positions.len() as u32;
            mesh.positions.extend(quad);
            mesh.normals.extend([n; 4]);
            mesh.uvs.extend([Vec2::ZERO; 4]);
            mesh.indices
                .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
        for t in mesh.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[t[k] as usize]);
            assert!((b - a).cross(c - a).dot(a + b + c) > 0.0, "wound outward");
        }
        scene.meshes.push(mesh);
    }
    scene
}

fn cube_view(
    closed: bool,
    camera: (f32, f32, f32),
    visible: [bool; 2],
) -> (image::RgbaImage, usize) {
    let scene = cube_in_two(closed);
    let gpu = common::gpu();
    let req = facet::cli::headless::RenderRequest {
        width: 160,
        height: 120,
        camera: Some(camera),
        view: ViewOptions {
            grid: false,
            background: [0.0, 0.0, 0.0, 1.0],
            visible: visible.to_vec(),
            ..Default::default()
        },
        ..Default::default()
    };
    let (img, _) = facet::cli::headless::render(&gpu, &scene, &req).unwrap();
    let covered = img.pixels().filter(|p| p.0[..3] != [0, 0, 0]).count();
    (img, covered)
}

#[test]
fn a_closed_surface_is_drawn_with_its_back_faces_culled() {
    // From outside, culling the back faces changes no pixel that matters:
    // they were behind the front faces. At most a few pixels on the
    // silhouette may differ (the edge is shared by a front and a back face,
    // and ties on it go to one side).
    for camera in [(30.0, 20.0, 1.0), (-120.0, -35.0, 1.0), (200.0, 60.0, 1.5)] {
        let (culled, covered) = cube_view(true, camera, [true; 2]);
        let (both, _) = cube_view(false, camera, [true; 2]);
        assert!(
            covered > 2000,
            "{camera:?}: the cube shows ({covered} pixels)"
        );
        let differ = culled
            .pixels()
            .zip(both.pixels())
            .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 10))
            .count();
        assert!(differ <= 10, "{camera:?}: {differ} pixels differ");
    }
    // From inside, where the camera looks at the -X, -Y, -Z sides from
    // their back: culled, nothing is drawn; both sides, the walls fill the
    // view.
    let inside = (30.0, 20.0, 100.0);
    let (_, covered) = cube_view(true, inside, [true; 2]);
    assert_eq!(covered, 0, "back faces of a closed surface are culled");
    let (_, covered) = cube_view(false, inside, [true; 2]);
    assert!(covered > 160 * 120 * 9 / 10, "open: {covered} pixels");
    // With the +X, +Y, +Z sides hidden the surface is open: the rest are
    // drawn two-sided again.
    let (_, covered) = cube_view(true, inside, [true, false]);
    assert!(
        covered > 160 * 120 * 9 / 10,
        "hidden part: {covered} pixels"
    );
}

/// One view of `scene` at 160x120 without the grid, drawn with a culling
/// option (`set`) off and then on.
fn off_and_on(
    gpu: &facet::gpu::Gpu,
    renderer: &Renderer,
    gs: &mut GpuScene,
    scene: &facet::scene::Scene,
    cam: &OrbitCamera,
    set: impl Fn(&mut ViewOptions, bool),
) -> [(image::RgbaImage, facet::gpu::FrameStats); 2] {
    [false, true].map(|on| {
        let mut o = ViewOptions::for_scene(scene);
        o.grid = false;
        set(&mut o, on);
        frame::render_to_image(gpu, renderer, gs, &FrameInput::at_rest(cam, &o), 160, 120)
    })
}

/// How many pixels of two images of one size differ at all.
fn differing(a: &image::RgbaImage, b: &image::RgbaImage) -> usize {
    a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count()
}

/// `cube_in_two`'s sides as runs by facing (`Mesh::facing`), each written
/// here by hand: a side of the cube of side 2 about the origin lies in
/// the plane `n · p = 1` of its outward normal `n`.
fn with_runs(mut scene: facet::scene::Scene) -> facet::scene::Scene {
    for mesh in &mut scene.meshes {
        mesh.facing = (0..3)
            .map(|side| facet::scene::Facing {
                start: 6 * side,
                end: 6 * side + 6,
                normal: mesh.normals[4 * side as usize],
                offset: 1.0,
            })
            .collect();
    }
    scene
}

/// Runs of a closed surface's triangles that face away from the eye are
/// not drawn: the cube's sides the eye can see, counted by hand for each
/// view, are all that is sent, and the picture is the same to the byte as
/// when every run is sent and the GPU culls the back faces.
#[test]
fn facing_runs_are_drawn_only_where_the_eye_sees_their_front() {
    let scene = with_runs(cube_in_two(true));
    let gpu = common::gpu();
    let format = capture::CAPTURE_FORMAT;
    let renderer = Renderer::new(&gpu, format, gpu.sample_count(format));
    let mut gs = GpuScene::new(&gpu, &renderer, &scene);
    // (yaw, pitch in degrees, orthographic, the eye's distance from the
    // centre where not the framing one, triangles the eye sees the front
    // of).
    let views = [
        // On the + side of every axis: +X, +Y, +Z, two triangles each.
        (30.0, 20.0, false, None, 6),
        // On the - side of every axis: -X, -Y, -Z.
        (210.0, -20.0, false, None, 6),
        // On the +X axis: behind the other five sides' planes (n · eye is
        // 0, their planes' 1).
        (90.0, 0.0, false, None, 2),
        // Orthographic, looking the same ways: the direction decides.
        (30.0, 20.0, true, None, 6),
        (210.0, -20.0, true, None, 6),
        // Inside the cube (the eye 0.1 from its centre): behind every side.
        (30.0, 20.0, false, Some(0.1), 0),
    ];
    for (yaw, pitch, ortho, distance, seen) in views {
        let mut cam = OrbitCamera::framing(&scene.bounds(None), 4.0 / 3.0);
        cam.yaw = f32::to_radians(yaw);
        cam.pitch = f32::to_radians(pitch);
        cam.ortho = ortho;
        if let Some(d) = distance {
            cam.distance = d;
        }
        let [(all, all_stats), (some, some_stats)] =
            off_and_on(&gpu, &renderer, &mut gs, &scene, &cam, |o, on| {
                o.facing_cull = on
            });
        let view = (yaw, pitch, ortho, distance);
        assert_eq!(all_stats.triangles, 12, "{view:?}");
        assert_eq!(some_stats.triangles, seen, "{view:?}");
        let differ = differing(&all, &some);
        assert_eq!(differ, 0, "{view:?}: {differ} pixels differ");
        if seen > 0 {
            let background = all.get_pixel(0, 0);
            assert!(
                all.pixels().any(|p| p != background),
                "{view:?}: the cube shows"
            );
        }
    }
}

/// Frustum culling: from near one corner of a generated map looking out of
/// it, the sectors behind the eye are not drawn (fewer triangles) and the
/// picture is the same pixel for pixel as drawing everything.
#[test]
fn frustum_culling_drops_only_what_is_out_of_view() {
    let gpu = common::gpu();
    let scene = common::small_map_scene();
    let format = capture::CAPTURE_FORMAT;
    let renderer = Renderer::new(&gpu, format, gpu.sample_count(format));
    let mut gs = GpuScene::new(&gpu, &renderer, &scene);
    let b = scene.bounds(None);
    let mut cam = OrbitCamera::framing(&b, 4.0 / 3.0);
    // Near the -X -Z corner, looking further that way (yaw 45 degrees puts
    // the eye on the +X +Z side of its target), a little down.
    cam.target = b.min + (b.max - b.min) * glam::Vec3::new(0.15, 0.5, 0.15);
    cam.distance = (b.max - b.min).length() * 0.1;
    cam.yaw = std::f32::consts::FRAC_PI_4;
    cam.pitch = 0.3;
    let [(all, all_stats), (culled, culled_stats)] =
        off_and_on(&gpu, &renderer, &mut gs, &scene, &cam, |o, on| {
            o.frustum_cull = on
        });
    assert_eq!(all_stats.triangles, scene.triangle_count() as u64);
    assert!(
        culled_stats.triangles < all_stats.triangles && culled_stats.triangles > 0,
        "culled {} of {} triangles",
        all_stats.triangles - culled_stats.triangles,
        all_stats.triangles
    );
    let changed = differing(&all, &culled);
    assert_eq!(changed, 0, "frustum culling changed {changed} pixels");
    // Something of the map is on screen, not just the clear colour.
    let background = all.get_pixel(0, 0);
    assert!(all.pixels().any(|p| p != background));
}
