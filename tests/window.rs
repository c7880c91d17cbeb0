//! The real window under Xvfb: the app opens the demo, draws the 3D view and
//! the inspector, and saves a screenshot of its own window (`--screenshot`).
//! Needs `xvfb-run` (scripts/test installs it); fails loudly without it.

mod common;
use std::process::Command;

#[test]
fn window_shows_the_model_and_the_inspector() {
    assert!(
        Command::new("sh")
            .args(["-c", "command -v xvfb-run"])
            .output()
            .is_ok_and(|o| o.status.success()),
        "this test needs xvfb-run (scripts/test installs xvfb)"
    );
    let shot = common::output_dir().join("window.png");
    let _ = std::fs::remove_file(&shot);
    let out = Command::new("xvfb-run")
        .env("XDG_CONFIG_HOME", common::output_dir().join("config"))
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(env!("CARGO_BIN_EXE_facet"))
        .arg("assets/demo.p3m")
        .arg("--screenshot")
        .arg(&shot)
        .args(["--frames", "5"])
        .current_dir(common::repo())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "facet failed under Xvfb:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let img = image::open(&shot).unwrap().to_rgba8();
    let (w, h) = img.dimensions();
    assert!(w >= 800 && h >= 600, "window is {w}x{h}");

    // Not blank: many distinct colours.
    let mut colours: Vec<[u8; 4]> = img.pixels().step_by(7).map(|p| p.0).collect();
    colours.sort();
    colours.dedup();
    assert!(
        colours.len() > 200,
        "only {} colours: the window looks blank",
        colours.len()
    );

    // The model is drawn in the middle of the 3D view: the panel texture's
    // blue and the glow's cyan appear left of the inspector.
    let view = |x: u32, y: u32| img.get_pixel(x, y).0;
    let model_pixels = (0..h)
        .flat_map(|y| (0..w * 2 / 3).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = view(x, y);
            p[2] > 150 && p[2] > p[0].saturating_add(60)
        });
    assert!(
        model_pixels.count() > 1000,
        "the textured model is not in the 3D view"
    );

    // The inspector: an egui side panel on the right, mostly egui's panel grey
    // with text; compare with the 3D background on the left edge.
    let right_strip: Vec<[u8; 4]> = (100..h - 100).map(|y| view(w - 150, y)).collect();
    let grey = right_strip
        .iter()
        .filter(|p| p[0].abs_diff(p[1]) < 4 && p[1].abs_diff(p[2]) < 4 && p[0] > 20 && p[0] < 60)
        .count();
    assert!(
        grey > right_strip.len() / 2,
        "no inspector panel on the right"
    );
    let text_rows = (0..h)
        .filter(|&y| (w - 300..w).any(|x| view(x, y)[0] > 140))
        .count();
    assert!(text_rows > 50, "the inspector shows no text");
}

/// Runs `script` inside one Xvfb display with `$FACET` set to the binary.
fn under_xvfb(script: &str) -> std::process::Output {
    for tool in ["xvfb-run", "xdotool"] {
        assert!(
            Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .is_ok_and(|o| o.status.success()),
            "this test needs {tool} (scripts/test installs it)"
        );
    }
    // A viewer that ignores Ctrl+Q is killed after 60 s, and the test fails.
    Command::new("timeout")
        .args([
            "60",
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 1280x800x24",
            "sh",
            "-c",
            script,
        ])
        .env("FACET", env!("CARGO_BIN_EXE_facet"))
        .env("RUST_LOG", "facet=info")
        .env("XDG_CONFIG_HOME", common::output_dir().join("config"))
        .current_dir(common::repo())
        .output()
        .unwrap()
}

#[test]
fn space_plays_the_animation() {
    // Start the viewer, wait for its window, focus it (Xvfb has no window
    // manager), press Space with the pointer over the 3D view, let it play,
    // then quit with Ctrl+Q. The app reports the timeline at exit.
    let script = r#"
        "$FACET" assets/demo.p3m & pid=$!
        wid=$(xdotool search --sync --name 'facet' | head -1)
        sleep 1
        xdotool windowfocus --sync "$wid"
        xdotool mousemove 300 300
        xdotool key space
        sleep 1.5
        xdotool key ctrl+q
        wait $pid
    "#;
    let out = under_xvfb(script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let line = log
        .lines()
        .find(|l| l.contains("at exit:"))
        .unwrap_or_else(|| panic!("no exit report:\n{log}"));
    assert!(
        line.contains("clip \"nod\"") && line.contains("playing"),
        "Space did not start the clip: {line}"
    );
    let frame: u32 = line
        .split("frame ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|f| f.parse().ok())
        .unwrap();
    let time: f32 = line
        .split('(')
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|f| f.parse().ok())
        .unwrap();
    assert!(time > 0.0, "the frame did not change after Space: {line}");
    eprintln!("{line} (frame {frame})");

    // Without Space the skeleton stays at the rest pose while the animated
    // glow material plays on its own timeline.
    let out = under_xvfb(
        r#""$FACET" assets/demo.p3m & pid=$!
        wid=$(xdotool search --sync --name 'facet' | head -1)
        sleep 1
        xdotool windowfocus --sync "$wid"
        xdotool mousemove 300 300
        xdotool key ctrl+q
        wait $pid"#,
    );
    let log = String::from_utf8_lossy(&out.stderr);
    let line = log
        .lines()
        .find(|l| l.contains("at exit:"))
        .unwrap_or_else(|| panic!("no exit report:\n{log}"));
    assert!(
        line.contains("at exit: materials frame") && line.contains("playing"),
        "{line}"
    );
}

#[test]
fn a_changed_file_reloads_and_a_broken_one_keeps_the_last_good_scene() {
    // Open a copy of the demo, rewrite it (reload), then break it (the last
    // good scene stays and the error is shown), then quit with Ctrl+Q: the
    // viewer must still be running.
    let dir = common::output_dir().join("reload");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("model.p3m");
    std::fs::copy(common::repo().join("assets/demo.p3m"), &file).unwrap();
    let script = format!(
        r#"
        "$FACET" "{f}" & pid=$!
        wid=$(xdotool search --sync --name 'facet' | head -1)
        sleep 1
        cat assets/demo.p3m > "{f}"
        sleep 1
        printf 'P3M broken' > "{f}"
        sleep 1
        xdotool windowfocus --sync "$wid"
        xdotool key ctrl+q
        wait $pid
    "#,
        f = file.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains(&format!("reloaded {}", file.display())),
        "{log}"
    );
    assert!(
        log.contains("reload failed, still showing the last good version: model.p3m:"),
        "{log}"
    );
    assert!(
        log.contains("at exit:"),
        "the viewer did not run to Ctrl+Q:\n{log}"
    );
}

#[test]
fn file_menu_saves_a_render_at_1920x1080() {
    // Click File, then "Save render 1920x1080" (egui embeds its fonts and
    // the settings start empty, so the menu lays out the same every time);
    // the render lands in the current folder.
    let dir = common::output_dir().join("menu-render");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        r#"
        cd "{d}"
        export XDG_CONFIG_HOME="{d}/config"  # a fresh recent-files list
        "$FACET" "{m}" & pid=$!
        wid=$(xdotool search --sync --name 'facet' | head -1)
        sleep 1.2
        xdotool windowfocus --sync "$wid"
        xdotool mousemove 78 12 click 1
        sleep 0.6
        xdotool mousemove 140 112 click 1
        sleep 4
        xdotool key ctrl+q
        wait $pid
    "#,
        d = dir.display(),
        m = common::repo().join("assets/demo.m3d").display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let saved: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("facet-render-1920x1080-")
        })
        .collect();
    assert_eq!(saved.len(), 1, "no render saved:\n{log}");
    let img = image::open(&saved[0]).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (1920, 1080));
    let colours: std::collections::HashSet<[u8; 4]> =
        img.pixels().step_by(97).map(|p| p.0).collect();
    assert!(colours.len() > 50, "the render looks blank");
}

#[test]
fn a_file_dropped_on_the_window_replaces_the_scene() {
    // Xvfb offers no drag and drop to synthesise: the FACET_TEST_DROP hook
    // hands the path to the same code as a real drop event, at frame 10.
    // The screenshot at frame 40 must show the dropped M3D in the inspector.
    let shot = common::output_dir().join("window_drop.png");
    let _ = std::fs::remove_file(&shot);
    let dropped = common::repo().join("assets/demo.m3d");
    let script = format!(
        r#"FACET_TEST_DROP="10:{m}" "$FACET" assets/demo.p3m --screenshot "{s}" --frames 40"#,
        m = dropped.display(),
        s = shot.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains(&format!("opened {}", dropped.display())),
        "{log}"
    );
    let img = image::open(&shot).unwrap().to_rgba8();
    // The crystal's magenta tip (vertex colour 255, 60, 200) is on screen;
    // nothing in the P3M demo is that colour (its glow is 255, 140, 220).
    let crystal = img
        .pixels()
        .filter(|p| p.0[0] > 150 && p.0[2] > 150 && p.0[1] < 90)
        .count();
    assert!(
        crystal > 500,
        "the dropped model is not drawn ({crystal} pixels)"
    );
}
