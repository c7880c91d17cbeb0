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
    // Like every run here: a time limit (a hang fails, never stalls CI)
    // and a settings folder of its own.
    let out = Command::new("timeout")
        .args(["90", "xvfb-run"])
        .env("XDG_CONFIG_HOME", fresh_config_dir())
        .env("FACET_ADAPTER", common::SOFTWARE_ADAPTER)
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

/// Runs `script` (which quits the viewer) and returns the viewer's "at
/// exit:" line (the timeline it ended on) and the whole log.
/// The files in `dir` whose names start with `prefix` (what the app saved
/// under a name with a time in it).
fn files_named_like(dir: &std::path::Path, prefix: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect()
}

/// A name no other run of this test binary uses.
fn run_id() -> String {
    static RUN: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}

/// An empty settings folder for one run: no test sees another's recent
/// files, render size or media roots.
fn fresh_config_dir() -> std::path::PathBuf {
    let dir = common::output_dir().join(format!("config-{}", run_id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn exit_report(script: &str) -> (String, String) {
    let out = under_xvfb(script);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    let line = log
        .lines()
        .find(|l| l.contains("at exit:"))
        .unwrap_or_else(|| panic!("no exit report:\n{log}"))
        .to_string();
    (line, log)
}

/// The timeline's time in seconds in an exit report line
/// ("at exit: clip \"nod\" frame 12 (0.400 s), playing").
fn exit_time(line: &str) -> f32 {
    line.split('(')
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no time in the exit report: {line}"))
}

/// Runs `script` inside one Xvfb display. The script runs the viewer with
/// the shell function `facet` (its log goes to a file of this run), or
/// `start` (in the background, focused, its file open), and waits for it
/// with `wait_log TEXT [N]` (until N log lines, default 1, contain TEXT;
/// fails after 40 s)
/// rather than with fixed sleeps, which lose the race on a busy machine.
/// The log is appended to the returned stderr.
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
    let log = common::output_dir().join(format!("xvfb-{}.log", run_id()));
    std::fs::write(&log, "").unwrap();
    let script = format!(
        r#"
        facet() {{ "$FACET" "$@" 2>>"$FACET_LOG"; }}
        # Starts the viewer in the background ($pid), waits until its file
        # is open (a line "opened " more than the log held before: an
        # earlier viewer of the same script wrote its own) and gives its
        # window the keyboard (no window manager).
        start() {{
            before=$(grep -cF -- "opened " "$FACET_LOG" || true)
            facet "$@" & pid=$!
            wid=$(xdotool search --sync --name 'facet' | head -1)
            wait_log "opened " $((before + 1))
            xdotool windowfocus --sync "$wid"
        }}
        # Waits until the log holds $1 on at least $2 lines (default 1).
        wait_log() {{
            i=0
            until [ "$(grep -cF -- "$1" "$FACET_LOG" || true)" -ge "${{2:-1}}" ]; do
                i=$((i + 1))
                if [ $i -gt 400 ]; then
                    echo "timed out waiting for '$1' in the log" >&2
                    return 1
                fi
                sleep 0.1
            done
        }}
        {script}"#
    );
    // A viewer that ignores Ctrl+Q is killed after 90 s, and the test fails.
    // The server's key autorepeat is off (a 60 s delay): on a loaded
    // machine Xvfb could otherwise repeat a key xdotool pressed before it
    // processes the release, and a repeated Space toggles playback back.
    let mut out = Command::new("timeout")
        .args([
            "90",
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 1280x800x24 -ardelay 60000 -arinterval 60000",
            "sh",
            "-ec",
            &script,
        ])
        .env("FACET", env!("CARGO_BIN_EXE_facet"))
        .env("FACET_ADAPTER", common::SOFTWARE_ADAPTER)
        .env("FACET_LOG", &log)
        .env("RUST_LOG", "facet=info")
        .env("XDG_CONFIG_HOME", fresh_config_dir())
        .current_dir(common::repo())
        .output()
        .unwrap();
    out.stderr
        .extend_from_slice(&std::fs::read(&log).unwrap_or_default());
    let _ = std::fs::remove_file(&log);
    out
}

#[test]
fn space_plays_the_animation() {
    // Start the viewer for 150 frames, wait for its window, focus it (Xvfb
    // has no window manager), press Space with the pointer over the 3D
    // view; the clip plays for the frames that are left. The app reports
    // the timeline at exit.
    let script = r#"
        start assets/demo.p3m --frames 150
        xdotool mousemove 300 300
        xdotool key space
        wait $pid
    "#;
    let (line, log) = exit_report(script);
    assert!(
        line.contains("clip \"nod\"") && line.contains("playing"),
        "Space did not start the clip: {line}\n{log}"
    );
    let frame: u32 = line
        .split("frame ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|f| f.parse().ok())
        .unwrap();
    let time = exit_time(&line);
    assert!(time > 0.0, "the frame did not change after Space: {line}");
    eprintln!("{line} (frame {frame})");

    // Without Space the skeleton stays at the rest pose while the animated
    // glow material plays on its own timeline.
    let out = under_xvfb(
        r#"start assets/demo.p3m
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
    // Open a copy of a model, rewrite it (reload), then break it (the last
    // good scene stays and the error is shown), then quit with Ctrl+Q: the
    // viewer must still be running. The model is still (no clip plays, no
    // material animates), so the window sleeps between frames: the change
    // in its folder must wake it.
    let dir = common::output_dir().join("reload");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("model.m3d");
    let original = common::shared().join("fixtures/m3d/cube_usemtl.m3d");
    std::fs::copy(&original, &file).unwrap();
    let script = format!(
        r#"
        export RUST_LOG=facet=debug
        start "{f}"
        # The frames that show the file (and its focus) are drawn: the
        # window is asleep when the file changes.
        wait_log "idle after frame"
        cat "{o}" > "{f}"
        wait_log "reloaded "
        printf '3DMO broken' > "{f}"
        wait_log "reload failed"
        xdotool key ctrl+q
        wait $pid
    "#,
        f = file.display(),
        o = original.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains(&format!("reloaded {}", file.display())),
        "{log}"
    );
    assert!(
        log.contains("reload failed, still showing the last good version: model.m3d:"),
        "{log}"
    );
    assert!(
        log.contains("at exit:"),
        "the viewer did not run to Ctrl+Q:\n{log}"
    );
}

/// The running app on `file`, in a folder `name` of its own (its current
/// folder, its settings under it), handed `action` at frame 5 through
/// FACET_TEST_ACTIONS (debug builds), as a panel would ask for it: the
/// one image it saved there whose name starts with `saved`.
fn saved_by_action(
    name: &str,
    file: &std::path::Path,
    action: &str,
    saved: &str,
) -> std::path::PathBuf {
    let dir = common::output_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        r#"
        cd "{d}"
        export XDG_CONFIG_HOME="{d}/config" FACET_TEST_ACTIONS="5:{action}"
        facet "{m}" --frames 20
    "#,
        d = dir.display(),
        m = file.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let found = files_named_like(&dir, saved);
    assert_eq!(found.len(), 1, "nothing saved as {saved}*:\n{log}");
    found[0].clone()
}

/// File > Save render's action (`render WxH` or `render WxH
/// transparent`) on the M3D demo: the render it wrote in the current
/// folder, and the settings it kept.
fn render_from_the_menu(name: &str, action: &str) -> (image::RgbaImage, serde_json::Value) {
    let demo = common::repo().join("assets/demo.m3d");
    let saved = saved_by_action(name, &demo, action, "facet-render-");
    let dir = saved.parent().unwrap().to_path_buf();
    let img = image::open(&saved).unwrap().to_rgba8();
    let settings = std::fs::read_to_string(dir.join("config/facet/settings.json")).unwrap();
    (img, serde_json::from_str(&settings).unwrap())
}

#[test]
fn save_render_writes_the_chosen_size_and_keeps_it() {
    // The File menu's preset and "Save render" clicks are the kittest test
    // `view_and_file_menus_set_lighting_and_ask_for_files` (tests/ui.rs):
    // they ask for `UiAction::SaveRender`. Here the running app must write
    // the render and keep the size in the settings.
    let (img, settings) = render_from_the_menu("menu-render", "render 1280x720");
    assert_eq!(img.dimensions(), (1280, 720));
    assert_eq!(settings["render_size"], serde_json::json!([1280, 720]));
    let colours: std::collections::HashSet<[u8; 4]> =
        img.pixels().step_by(97).map(|p| p.0).collect();
    assert!(colours.len() > 50, "the render looks blank");
    // Opaque: the background's alpha is 1.
    assert_eq!(img.get_pixel(0, 0).0[3], 255);
}

#[test]
fn a_transparent_render_has_no_background_or_grid_and_is_kept() {
    // File > Save render with "Transparent background": the model opaque,
    // everything else (background and grid) alpha 0, and the choice kept
    // in the settings.
    let (img, settings) =
        render_from_the_menu("menu-render-transparent", "render 320x200 transparent");
    assert_eq!(img.dimensions(), (320, 200));
    // The corners (background, and the grid's plane seen from above) are
    // clear; the model in the middle is opaque.
    for (x, y) in [(0, 0), (319, 0), (0, 199), (319, 199), (160, 195)] {
        assert_eq!(img.get_pixel(x, y).0[3], 0, "({x}, {y})");
    }
    let opaque = img.pixels().filter(|p| p.0[3] == 255).count();
    let clear = img.pixels().filter(|p| p.0[3] == 0).count();
    assert!(
        opaque > 2000 && clear > 20000,
        "{opaque} opaque, {clear} clear"
    );
    assert_eq!(settings["render_transparent"], serde_json::json!(true));
}

#[test]
fn a_texture_s_save_writes_it_as_a_png_named_after_it() {
    // The Textures section's *save* (FACET_TEST_ACTIONS "texture 0") on
    // the engine's missing.ptf: missing-SECONDS.png in the current folder,
    // its 64 x 64 magenta and black squares (tests/render.rs' check, by
    // hand).
    let ptf = common::shared().join("fixtures/ptf/missing.ptf");
    let saved = saved_by_action("save-texture", &ptf, "texture 0", "missing-");
    let img = image::open(&saved).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (64, 64));
    for (x, y, want) in [
        (0, 0, [255, 0, 255, 255]),
        (8, 0, [0, 0, 0, 255]),
        (63, 63, [255, 0, 255, 255]),
        (31, 48, [0, 0, 0, 255]),
    ] {
        assert_eq!(img.get_pixel(x, y).0, want, "({x}, {y})");
    }
}

#[test]
fn a_file_dropped_on_the_window_replaces_the_scene() {
    // The M3D dropped at frame 10 is on the screenshot at frame 40.
    let dropped = common::repo().join("assets/demo.m3d");
    let (shot, _) = drop_onto_demo(&dropped, 10, 40, "window_drop.png");
    assert_crystal_drawn(&shot, "the dropped model");
}

/// Opens the P3M demo, drops `file` on it at frame `at` through the
/// FACET_TEST_DROP hook (Xvfb offers no drag and drop to synthesise; the
/// hook hands the path to the real drop handler) and saves a screenshot
/// named `shot` at frame `frames`. Checks that the viewer opened the file;
/// returns the screenshot's path and the log.
fn drop_onto_demo(
    file: &std::path::Path,
    at: u32,
    frames: u32,
    shot: &str,
) -> (std::path::PathBuf, String) {
    let shot = common::output_dir().join(shot);
    let _ = std::fs::remove_file(&shot);
    let script = format!(
        r#"export FACET_TEST_DROP="{at}:{f}"; facet assets/demo.p3m --screenshot "{s}" --frames {frames}"#,
        f = file.display(),
        s = shot.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    assert!(log.contains(&format!("opened {}", file.display())), "{log}");
    (shot, log)
}

/// The M3D crystal's magenta tip (vertex colour 255, 60, 200) is on the
/// screenshot; nothing in the P3M demo is that colour (its glow is 255,
/// 140, 220).
fn assert_crystal_drawn(shot: &std::path::Path, what: &str) {
    let img = image::open(shot).unwrap().to_rgba8();
    let crystal = img
        .pixels()
        .filter(|p| p.0[0] > 150 && p.0[2] > 150 && p.0[1] < 90)
        .count();
    assert!(crystal > 500, "{what} is not drawn ({crystal} pixels)");
}

#[test]
fn ctrl_o_opens_the_file_the_dialog_returns() {
    // No portal on the (absent) session bus, so rfd falls back to zenity:
    // a stand-in zenity on the PATH records its arguments and answers with
    // the M3D demo, which must replace the P3M on screen.
    let dir = common::output_dir().join("open-dialog");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let picked = common::repo().join("assets/demo.m3d");
    let zenity = dir.join("zenity");
    std::fs::write(
        &zenity,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"{}/zenity-args\"\necho \"{}\"\n",
            dir.display(),
            picked.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&zenity, std::fs::Permissions::from_mode(0o755)).unwrap();
    let shot = dir.join("window.png");
    let script = format!(
        r#"
        export PATH="{d}:$PATH" DBUS_SESSION_BUS_ADDRESS="unix:path={d}/no-bus"
        start assets/demo.p3m --screenshot "{s}" --frames 120
        xdotool mousemove 400 400 key ctrl+o
        wait $pid
    "#,
        d = dir.display(),
        s = shot.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let args = std::fs::read_to_string(dir.join("zenity-args"))
        .unwrap_or_else(|e| panic!("the dialog never ran zenity ({e}):\n{log}"));
    assert!(args.contains("--file-selection"), "{args}");
    assert!(
        args.contains("Models and maps | *.p3m *.ptf *.m3d *.a3d *.papa *.pmf"),
        "{args}"
    );
    assert!(
        log.contains(&format!("opened {}", picked.display())),
        "{log}"
    );
    assert_crystal_drawn(&shot, "the picked model");
}

#[test]
fn a_dropped_map_loads_in_the_background_and_shows() {
    // The map decodes on its own thread while the window keeps drawing
    // (the log counts those frames); then its sectors are on screen.
    let map = common::repo().join("assets/demo.pmf");
    let (shot, log) = drop_onto_demo(&map, 5, 90, "window_map.png");
    let frames: u32 = log
        .lines()
        .find_map(|l| {
            l.split(" frames drawn while ")
                .next()?
                .rsplit(' ')
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no frame count in the log:\n{log}"));
    assert!(frames >= 1, "{log}");
    let img = image::open(&shot).unwrap().to_rgba8();
    // Grass tops: the green tint under the baked light.
    let grass = img
        .pixels()
        .filter(|p| {
            p.0[1] > 120 && p.0[1] as i32 > p.0[0] as i32 + 20 && p.0[1] as i32 > p.0[2] as i32 + 30
        })
        .count();
    assert!(grass > 5000, "the map is not drawn ({grass} pixels)");
}

#[test]
fn clicking_the_map_selects_the_sector_under_the_cursor() {
    let script = r#"
        start assets/demo.pmf
        xdotool mousemove 260 420 click 1
        wait_log "picked "
        xdotool key ctrl+q
        wait $pid
    "#;
    let out = under_xvfb(script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("picked sector ["), "{log}");
}

/// Runs `script` under Xvfb and checks the viewer's picks, in order: each
/// "picked" line of its log holds the text `want` has for it. The log.
fn assert_picks(script: &str, want: &[&str]) -> String {
    let out = under_xvfb(script);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    let picks: Vec<&str> = log.lines().filter(|l| l.contains("picked ")).collect();
    assert_eq!(picks.len(), want.len(), "{log}");
    for (i, (got, want)) in picks.iter().zip(want).enumerate() {
        assert!(got.contains(want), "pick {i}: {got:?}, not {want:?}\n{log}");
    }
    log
}

#[test]
fn clicking_a_model_selects_the_part_or_the_bone_under_the_cursor() {
    // Where things are comes from the window's pictures at this size
    // (docs/window.png, and one with the skeleton shown, 1280x800): the
    // demo's red sphere, its part "head" (the third in the file), about
    // (465, 215); nothing but the background at (120, 120); with the
    // skeleton shown (K), drawn over the model, the long bone up the body
    // at (465, 420) and the body beside it at (520, 420). A click on
    // nothing clears the selection. Two clicks at one place wait out the
    // double click's 400 ms.
    let script = r#"
        start assets/demo.p3m
        xdotool mousemove 480 190 click 1
        wait_log "picked "
        xdotool mousemove 120 120 click 1
        wait_log "picked " 2
        xdotool mousemove 465 420 click 1
        wait_log "picked " 3
        sleep 0.5
        xdotool key k
        xdotool mousemove 465 420 click 1
        wait_log "picked " 4
        xdotool mousemove 520 420 click 1
        wait_log "picked " 5
        xdotool key ctrl+q
        wait $pid
    "#;
    let log = assert_picks(
        script,
        &[
            "picked part 2 \"head\"",
            "picked nothing",
            // The skeleton hidden, the bone's place is the body's.
            "picked part 1 \"body\"",
            "picked bone 1 \"spine\"",
            "picked part 1 \"body\"",
        ],
    );
    // Each part click says what it read there: the head's material has no
    // texture (its UV alone), the body's samples the file's first texture.
    let picks: Vec<&str> = log.lines().filter(|l| l.contains("picked part")).collect();
    assert!(
        picks[0].contains(", uv (") && !picks[0].contains("texel"),
        "{}",
        picks[0]
    );
    assert!(
        picks[1].contains(", uv (") && picks[1].contains("), texel ("),
        "{}",
        picks[1]
    );
    // And the vertex it found: a corner of the triangle named, in the
    // demo's part as the file stores it ("picked part P "name", triangle
    // T of N, vertex V, uv ...").
    let demo = facet::load::load_file(&common::repo().join("assets/demo.p3m"))
        .unwrap()
        .scene;
    for line in &picks {
        let number_after = |key: &str| -> usize {
            let rest = line.split(key).nth(1).expect(line);
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().expect(line)
        };
        let (part, triangle, vertex) = (
            number_after("picked part "),
            number_after(", triangle "),
            number_after(", vertex "),
        );
        let corners = &demo.meshes[part].indices[3 * triangle..3 * triangle + 3];
        assert!(
            corners.contains(&(vertex as u32)),
            "vertex {vertex} is not a corner of triangle {triangle} ({corners:?}): {line}"
        );
    }
}

#[test]
fn a_double_click_makes_the_point_under_it_the_orbit_centre() {
    // The middle of the 3D view at 1280x800 (x 0..932, y 24..712, between
    // the toolbar, the inspector and the timeline, measured on the
    // window's picture) is about (466, 368): the demo's body is there at
    // first. A double click on the sphere at (480, 190) brings that point
    // to the middle, so a click there then picks the sphere's part, "head".
    let script = r#"
        start assets/demo.p3m
        xdotool mousemove 466 368 click 1
        wait_log "picked "
        xdotool mousemove 480 190 click --repeat 2 --delay 80 1
        wait_log "orbit centre moved to"
        xdotool mousemove 466 368 click 1
        wait_log "picked " 4
        xdotool key ctrl+q
        wait $pid
    "#;
    let log = assert_picks(
        script,
        &[
            "picked part 1 \"body\"",
            "picked part 2 \"head\"",
            "picked part 2 \"head\"",
            "picked part 2 \"head\"",
        ],
    );
    assert_eq!(log.matches("orbit centre moved to").count(), 1, "{log}");
}

#[test]
fn ctrl_drag_turns_the_key_light_leaving_the_camera_and_c_steps_channels() {
    // Ctrl + drag 40 pixels right and 120 up: the light turns 40 x 0.008
    // rad = 18 degrees and rises 120 x 0.008 = 55 (the orbit's rate). The
    // camera stays: the demo's head and body are still where the window's
    // pictures put them (a 55-degree orbit would have moved the head
    // far from (480, 190)), and the drag picked nothing.
    let script = r#"
        start assets/demo.p3m
        xdotool mousemove 700 500 keydown ctrl mousedown 1
        xdotool mousemove 710 470 mousemove 720 440 mousemove 730 410 mousemove 740 380
        xdotool mouseup 1 keyup ctrl
        wait_log "light turned"
        xdotool mousemove 480 190 click 1
        wait_log "picked "
        xdotool mousemove 465 420 click 1
        wait_log "picked " 2
        xdotool key c c shift+c
        wait_log "channel: " 3
        xdotool key space Home period bracketright
        wait_log "range "
        xdotool key ctrl+q
        wait $pid
    "#;
    let log = assert_picks(
        script,
        &["picked part 2 \"head\"", "picked part 1 \"body\""],
    );
    // C, C, Shift+C: the next channel twice, then back one.
    let channels: Vec<&str> = log
        .lines()
        .filter_map(|l| l.split("channel: ").nth(1))
        .collect();
    assert_eq!(channels, ["diffuse", "mask", "diffuse"], "{log}");
    // Space picks "nod" (24 frames, 1 s), Home goes to its start and "."
    // a frame on (1/24 s, paused): ] makes the range from 0 to there.
    let range = log
        .lines()
        .find_map(|l| l.split("range ").nth(1))
        .expect("no range in the log");
    let (from, to) = range.trim_end_matches(" s").split_once(" to ").unwrap();
    let (from, to): (f32, f32) = (from.parse().unwrap(), to.parse().unwrap());
    assert_eq!((from, to), (0.0, 0.042), "{range}");
    assert!(
        log.contains("light turned 18° about up, raised 55°"),
        "{log}"
    );
}

#[test]
fn the_turntable_turns_the_view_until_a_drag_takes_the_camera() {
    // O starts the turntable: the window draws frame after frame with
    // nothing else moving, and two screenshots half a second apart differ
    // in the 3D view. A drag stops it: two screenshots then match. (The
    // M3D demo: the P3M one's animated material would change them too.)
    let dir = common::output_dir().join(format!("turntable-{}", run_id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        r#"
        cd "{d}"
        export FACET_TEST_CLOSE_AFTER_MS=6000
        start "{m}"
        xdotool mousemove 300 300 key o
        sleep 1
        xdotool key F12
        wait_log "screenshot saved to"
        mv facet-screenshot-*.png turning-1.png
        sleep 0.5
        xdotool key F12
        wait_log "screenshot saved to" 2
        mv facet-screenshot-*.png turning-2.png
        xdotool mousedown 1 mousemove 320 300 mouseup 1
        sleep 0.5
        xdotool key F12
        wait_log "screenshot saved to" 3
        mv facet-screenshot-*.png still-1.png
        sleep 0.5
        xdotool key F12
        wait_log "screenshot saved to" 4
        mv facet-screenshot-*.png still-2.png
        wait $pid
    "#,
        d = dir.display(),
        m = common::repo().join("assets/demo.m3d").display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    // Pixels of the 3D view (left of the inspector, which starts at about
    // x = 860 for this file, and above the timeline) that differ between
    // two screenshots.
    let differ = |a: &str, b: &str| {
        let (a, b) = (
            image::open(dir.join(a)).unwrap().to_rgba8(),
            image::open(dir.join(b)).unwrap().to_rgba8(),
        );
        a.enumerate_pixels()
            .filter(|&(x, y, p)| {
                x < 800 && (30..700).contains(&y) && {
                    let q = b.get_pixel(x, y);
                    (0..3).any(|c| p.0[c].abs_diff(q.0[c]) > 8)
                }
            })
            .count()
    };
    let turning = differ("turning-1.png", "turning-2.png");
    let still = differ("still-1.png", "still-2.png");
    assert!(
        turning > 5000,
        "the view did not turn: {turning} pixels changed\n{log}"
    );
    assert_eq!(still, 0, "the view still turns after a drag\n{log}");
    let frames = frames_drawn(&log);
    assert!(
        frames.first().is_some_and(|&n| n >= 20),
        "the turntable drew {frames:?} frames\n{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn h_hides_the_picked_part_and_alt_h_shows_it_again() {
    // The sphere at (480, 190) as in the test above: picked, hidden with
    // H, the same click finds what is behind it (the background: nothing);
    // Alt+H shows every part and the click finds the sphere again; Shift+H
    // shows it alone, and a click on the body's place (465, 420) then
    // finds nothing. Clicks at one place wait out the double click's
    // 400 ms, which would move the orbit's centre (and the view).
    let script = r#"
        start assets/demo.p3m
        xdotool mousemove 480 190 click 1
        wait_log "picked "
        sleep 0.5
        xdotool key h
        xdotool mousemove 480 190 click 1
        wait_log "picked " 2
        sleep 0.5
        xdotool key alt+h
        xdotool mousemove 480 190 click 1
        wait_log "picked " 3
        xdotool key shift+h
        xdotool mousemove 465 420 click 1
        wait_log "picked " 4
        xdotool key ctrl+q
        wait $pid
    "#;
    assert_picks(
        script,
        &[
            "picked part 2 \"head\"",
            "picked nothing",
            "picked part 2 \"head\"",
            "picked nothing",
        ],
    );
}

#[test]
fn ctrl_f_types_into_the_filter_and_not_into_the_shortcuts() {
    // The sphere picked as above; Ctrl+F gives the inspector's filter the
    // keyboard, so the h typed right after it (before a frame has focused
    // the field) hides nothing: the same click picks the sphere again.
    // That click takes the keyboard back to the view, where h hides the
    // sphere (the third click finds nothing). Clicks at one place wait out
    // the double click's 400 ms.
    let script = r#"
        start assets/demo.p3m
        xdotool mousemove 480 190 click 1
        wait_log "picked "
        sleep 0.5
        xdotool key ctrl+f type hhh
        xdotool mousemove 480 190 click 1
        wait_log "picked " 2
        # The frame after the click takes the focus from the field (egui);
        # the log says nothing of it.
        sleep 1
        xdotool key h
        xdotool mousemove 480 190 click 1
        wait_log "picked " 3
        xdotool key ctrl+q
        wait $pid
    "#;
    assert_picks(
        script,
        &[
            "picked part 2 \"head\"",
            "picked part 2 \"head\"",
            "picked nothing",
        ],
    );
}

#[test]
fn the_texel_under_the_cursor_of_a_texture_file_is_read_out() {
    // The engine's missing.ptf (64 x 64) fills the middle of the view: the
    // cursor there names a texel, whose value must be the file's texel at
    // the place named (read here through the loader). Off the texture (the
    // view's top-left corner, the background) nothing is named.
    let file = common::shared().join("fixtures/ptf/missing.ptf");
    let script = format!(
        r#"
        export RUST_LOG=facet=debug
        start "{}"
        xdotool mousemove 466 400
        wait_log "under the cursor: uv"
        xdotool mousemove 40 60
        wait_log "under the cursor: nothing"
        xdotool key ctrl+q
        wait $pid
    "#,
        file.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    // The last texel named before the cursor left the texture (the
    // pointer may have entered the window over another one).
    let lines: Vec<&str> = log.lines().collect();
    let off = lines
        .iter()
        .position(|l| l.contains("under the cursor: nothing"))
        .unwrap();
    let line = lines[..off]
        .iter()
        .rev()
        .find(|l| l.contains("under the cursor: uv"))
        .unwrap();
    // "... texel (X, Y) of missing.ptf (64 x 64): #RRGGBBAA"
    let texel = line.split("texel (").nth(1).expect(line);
    let (xy, rest) = texel.split_once(')').unwrap();
    let (x, y) = xy.split_once(", ").unwrap();
    let (x, y): (u32, u32) = (x.parse().unwrap(), y.parse().unwrap());
    assert!(rest.starts_with(" of missing.ptf (64 x 64): #"), "{line}");
    let hex = rest.rsplit('#').next().unwrap();
    let scene = facet::load::load_file(&file).unwrap().scene;
    let [r, g, b, a] = scene.viewed_texture(0).unwrap().texel(x, y).unwrap();
    assert_eq!(hex, format!("{r:02X}{g:02X}{b:02X}{a:02X}"), "{line}");
    // The cursor at 40% across the quad on the window's picture, half-way
    // down it: about (26, 32) of 64 x 64.
    assert!((18..34).contains(&x) && (24..40).contains(&y), "{line}");
}

#[test]
fn m_measures_between_two_clicked_points() {
    // With M, clicks on the demo's sphere (480, 190) and body (465, 420)
    // set the measurement's points instead of selecting; the second gives
    // the distance between the points logged. M again, and a click selects.
    let script = r#"
        start assets/demo.p3m
        xdotool key m
        xdotool mousemove 480 190 click 1
        wait_log "measure: point 1"
        xdotool mousemove 465 420 click 1
        wait_log "measure: point 2"
        xdotool key m
        xdotool mousemove 480 190 click 1
        wait_log "picked "
        xdotool key ctrl+q
        wait $pid
    "#;
    let out = under_xvfb(script);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    let point = |n: u32| -> (glam::Vec3, String) {
        let line = log
            .lines()
            .find(|l| l.contains(&format!("measure: point {n} at [")))
            .unwrap_or_else(|| panic!("no point {n}\n{log}"));
        let xyz = line
            .split(" at [")
            .nth(1)
            .unwrap()
            .split(']')
            .next()
            .unwrap();
        let v: Vec<f32> = xyz
            .split(", ")
            .map(|x| x.parse().unwrap_or_else(|_| panic!("{line}")))
            .collect();
        (glam::Vec3::new(v[0], v[1], v[2]), line.to_string())
    };
    let ((a, _), (b, second)) = (point(1), point(2));
    // The sphere sits above the body.
    assert!(a.y > b.y, "{a} {b}");
    let d = second
        .split("distance ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|x| x.parse::<f32>().ok())
        .unwrap_or_else(|| panic!("{second}"));
    assert!(
        (d - a.distance(b)).abs() <= 1e-3 * a.distance(b),
        "{d} vs {}: {second}",
        a.distance(b)
    );
    let picks: Vec<&str> = log.lines().filter(|l| l.contains("picked ")).collect();
    assert_eq!(
        picks.len(),
        1,
        "only the click after M again selects\n{log}"
    );
    assert!(picks[0].contains("picked part 2 \"head\""), "{}", picks[0]);
}

#[test]
fn the_file_on_the_command_line_loads_in_the_window() {
    // The window comes up first and the file loads behind a progress bar;
    // `--frames` counts frames of the loaded file.
    let shot = common::output_dir().join("window_initial_map.png");
    let _ = std::fs::remove_file(&shot);
    let out = under_xvfb(&format!(
        r#"facet assets/demo.pmf --screenshot "{}" --frames 3"#,
        shot.display()
    ));
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("frames drawn while"), "{log}");
    assert!(log.contains("opened assets/demo.pmf"), "{log}");
    assert!(shot.exists());

    // With --screenshot (automation), a file that does not load is an
    // error exit with the decoder's message; a missing file fails at once.
    let out =
        under_xvfb(r#"facet tests/corpus/pmf/octree-self-cycle --screenshot /dev/null --frames 3"#);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{log}");
    assert!(log.contains("already in the octree"), "{log}");
    let out = under_xvfb(r#"facet no/such/file.pmf"#);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.pmf"));
}

#[test]
fn page_down_and_page_up_step_through_the_folder() {
    // A folder of the bundled demos under names whose order as read
    // (unit2, unit3, unit10) is not their bytes' order, one of them broken
    // and a text file the viewer does not open. PageDown from unit2 tries
    // unit3 (it fails and the shown model stays), goes on past it to
    // unit10 and wraps around to unit2; PageUp goes back to unit10.
    let dir = common::output_dir().join(format!("browse-{}", run_id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let repo = common::repo();
    std::fs::copy(repo.join("assets/demo.p3m"), dir.join("unit2.p3m")).unwrap();
    std::fs::copy(repo.join("assets/demo.m3d"), dir.join("unit10.M3D")).unwrap();
    std::fs::write(dir.join("unit3.pmf"), b"not a map").unwrap();
    std::fs::write(dir.join("unit1.txt"), b"notes").unwrap();
    let script = format!(
        r#"
        start "{d}/unit2.p3m"
        xdotool mousemove 300 300
        xdotool key Next
        wait_log "the previous scene is still shown"
        xdotool key Next
        wait_log "opened {d}/unit10.M3D"
        xdotool key Next
        wait_log "opened {d}/unit2.p3m" 2
        xdotool key Prior
        wait_log "opened {d}/unit10.M3D" 2
        xdotool key ctrl+q
        wait $pid
    "#,
        d = dir.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let opened: Vec<&str> = log
        .lines()
        .filter_map(|l| l.split("opened ").nth(1))
        .collect();
    let d = dir.display();
    assert_eq!(
        opened,
        [
            format!("{d}/unit2.p3m"),
            format!("{d}/unit10.M3D"),
            format!("{d}/unit2.p3m"),
            format!("{d}/unit10.M3D"),
        ],
        "{log}"
    );
    assert!(log.contains("unit3.pmf"), "{log}");
    assert!(!log.contains("unit1.txt"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_window_keeps_its_size_f11_toggles_full_screen_and_f12_saves_screenshots() {
    // A first session: the window is made 900x600 (xdotool; Xvfb has no
    // window manager, so the size is the one asked for), F11 goes into full
    // screen and back, then in again and out with Esc (the requests are
    // what can be seen without a window manager: the log), F12 pressed
    // twice saves two screenshots in the current folder (two files, though
    // likely within one second of each other: the second name takes a
    // suffix), and Ctrl+Q keeps the size in the settings. A second session
    // with the same settings opens at that size: its screenshot, the whole
    // window, is 900x600, where the default is 1280x800.
    let dir = common::output_dir().join(format!("window-keys-{}", run_id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = fresh_config_dir();
    let script = format!(
        r#"
        export XDG_CONFIG_HOME="{c}"
        cd "{d}"
        start "{m}"
        xdotool windowsize --sync "$wid" 900 600
        xdotool mousemove 300 300
        xdotool key F11
        wait_log "full screen on"
        xdotool key F11
        wait_log "full screen off"
        xdotool key F11
        wait_log "full screen on" 2
        xdotool key Escape
        wait_log "full screen off" 2
        xdotool key F12
        wait_log "screenshot saved to"
        xdotool key F12
        wait_log "screenshot saved to" 2
        xdotool key ctrl+q
        wait $pid
        facet "{m}" --screenshot "{d}/second-session.png" --frames 5
    "#,
        c = config.display(),
        d = dir.display(),
        m = common::repo().join("assets/demo.m3d").display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("window 900x600 kept for the next start"),
        "{log}"
    );
    let settings = std::fs::read_to_string(config.join("facet/settings.json")).unwrap();
    let settings: serde_json::Value = serde_json::from_str(&settings).unwrap();
    assert_eq!(
        settings["window"],
        serde_json::json!({"size": [900, 600], "maximized": false})
    );
    // The second session changed nothing, so it wrote nothing at exit.
    assert_eq!(log.matches("kept for the next start").count(), 1, "{log}");
    let shots = files_named_like(&dir, "facet-screenshot-");
    assert_eq!(shots.len(), 2, "{shots:?}\n{log}");
    for shot in shots.iter().chain([&dir.join("second-session.png")]) {
        let img = image::open(shot).unwrap();
        assert_eq!(
            (img.width(), img.height()),
            (900, 600),
            "{}",
            shot.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_animation_papa_opened_alone_plays_on_its_model() {
    // As a double-click would: the viewer started on PA's own layout,
    // bot_sun_anim_idle.papa beside bot_sun.papa. It opens the model with
    // the idle clip selected and playing, and the window shows the unit.
    let anim = common::shared().join("fixtures/papa/bot_sun_anim_idle.papa");
    let script = format!(
        r#"
        facet '{}' --frames 60
        "#,
        anim.display()
    );
    let (line, log) = exit_report(&script);
    assert!(
        line.contains("clip \"idle\"") && line.contains("playing"),
        "the animation does not play: {line}\n{log}"
    );
    // The clock ran. Not "past frame 0": the clip loops every 2.667 s (160
    // frames at 60 fps) and `--frames` counts the frames after the file
    // opened, 13-20 ms each here, more on a busy machine, so they may end
    // just past the loop: CI twice ended 150 of them within its first
    // frame ("frame 0 (0.013 s)", "(0.015 s)").
    assert!(
        exit_time(&line) > 0.0,
        "the clip's clock did not run: {line}"
    );
}

#[test]
fn dropping_an_over_wide_texture_keeps_the_window_alive() {
    // The issue's crash: a DXT1 texture papa twice as wide as the device
    // allows, one level, dropped on the running window. It opens downscaled
    // and the Log says from what to what; the viewer runs on and exits 0.
    use facet::formats::papa::{self, Papa, TexFormat, TextureData};
    let max = common::gpu().device.limits().max_texture_dimension_2d;
    let width = 2 * max;
    let p = Papa {
        signature: *b"facet\0",
        textures: vec![papa::Texture {
            name: "wide.png".into(),
            format: Some(TexFormat::Dxt1),
            mips: 1,
            srgb: true,
            width: width as u16,
            height: 8,
            data: TextureData::Embedded(vec![0x55; (width / 4 * 2 * 8) as usize]),
        }],
        ..Default::default()
    };
    let file = common::output_dir().join("wide_dxt1.papa");
    std::fs::write(&file, facet::formats::papa_write::encode(&p).unwrap()).unwrap();
    let (shot, log) = drop_onto_demo(&file, 3, 12, "drop-wide.png");
    assert!(
        log.contains(&format!(
            "{width}x8 is over this device's {max}-texel limit"
        )),
        "{log}"
    );
    assert!(
        image::open(&shot).is_ok(),
        "no screenshot: the window did not run on"
    );
}

#[test]
fn dropping_files_whose_images_declare_30000_squared_keeps_the_window_alive() {
    // A P3M whose external PNG and an M3D (viper) whose inlined PNG declare
    // 30000 x 30000: each opens with a checkerboard, the Log says the image
    // is over the texel budget, and the viewer runs on.
    let (p3m, m3d) = common::huge_image_models(&common::output_dir().join("drop-budget"));
    for file in [p3m, m3d] {
        let (shot, log) = drop_onto_demo(&file, 3, 12, "drop-budget.png");
        assert!(
            log.contains("30000x30000") && log.contains("texel budget"),
            "{log}"
        );
        assert!(
            image::open(&shot).is_ok(),
            "no screenshot: the window did not run on"
        );
    }
}

#[test]
fn a_lost_device_is_recreated_and_the_model_still_drawn() {
    // The device is destroyed at frame 5 (a driver reset): the viewer
    // recreates it, re-uploads the scene and saves its screenshot at frame
    // 20 with the model drawn.
    let shot = common::output_dir().join("device-lost.png");
    let _ = std::fs::remove_file(&shot);
    let script = format!(
        r#"export FACET_TEST_LOSE_DEVICE=5; facet assets/demo.m3d --screenshot "{}" --frames 20"#,
        shot.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("the GPU device was lost"), "{log}");
    assert!(log.contains("the GPU device was recreated"), "{log}");
    assert_crystal_drawn(&shot, "the M3D demo after the device was recreated");
}

#[test]
fn dropping_a_ptf_declaring_16384_squared_is_decoded_smaller() {
    // The issue's 4 MB PTF of 16384 x 16384 RGBA zeros, dropped on the
    // running window with a 64 MiB texel budget: it opens decoded at
    // 4096 x 4096, the log says from what to what, and the viewer runs on.
    let file = common::output_dir().join("drop_zeros_16384.ptf");
    let mut e = lz4_flex::frame::FrameEncoder::new(vec![b'P', b'T', b'F', 0, 3, 0xEE]);
    let row = vec![0u8; 16384 * 4];
    for _ in 0..16384 {
        std::io::Write::write_all(&mut e, &row).unwrap();
    }
    std::fs::write(&file, e.finish().unwrap()).unwrap();
    let shot = common::output_dir().join("drop-ptf.png");
    let _ = std::fs::remove_file(&shot);
    let script = format!(
        r#"export FACET_TEST_DROP="3:{}"; facet --max-texture-memory 64 assets/demo.p3m --screenshot "{}" --frames 12"#,
        file.display(),
        shot.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("declares 16384x16384 PTF RGBA; decoded at 4096x4096"),
        "{log}"
    );
    assert!(
        image::open(&shot).is_ok(),
        "no screenshot: the window did not run on"
    );
}

#[test]
fn a_unit_shows_its_team_colours_from_the_settings_in_the_window() {
    // bot_sun with its diffuse and mask beside it (the shared fixtures in
    // place), the team colours the inspector's pickers keep in the settings:
    // the window's screenshot has the primary where the mask is red.
    let unit = common::shared().join("fixtures/papa/bot_sun.papa");
    let shot_of = |team: &str| {
        let config = fresh_config_dir();
        std::fs::create_dir_all(config.join("facet")).unwrap();
        std::fs::write(
            config.join("facet/settings.json"),
            format!(r#"{{"team_colors": "{team}"}}"#),
        )
        .unwrap();
        let shot = common::output_dir().join(format!("window_team_{}.png", run_id()));
        let out = under_xvfb(&format!(
            r#"XDG_CONFIG_HOME="{}" facet "{}" --screenshot "{}" --frames 5"#,
            config.display(),
            unit.display(),
            shot.display()
        ));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        image::open(&shot).unwrap().to_rgba8()
    };
    let greens = |img: &image::RgbaImage| {
        img.pixels()
            .filter(|p| p.0[1] > 150 && p.0[0] < 80 && p.0[2] < 80)
            .count()
    };
    let (green, red) = (shot_of("#00FF00,#202020"), shot_of("#FF0000,#202020"));
    assert!(
        greens(&green) > 2000 && greens(&red) < greens(&green) / 10,
        "team colour pixels: {} with a green primary, {} with a red one",
        greens(&green),
        greens(&red)
    );
}

#[test]
fn file_export_gltf_writes_what_is_open_with_its_companions() {
    // The File menu's "Export glTF…" click is the kittest test in
    // tests/ui.rs; here the running app is handed the action with the path
    // the save dialog would answer (FACET_TEST_ACTIONS, debug builds).
    let dir = common::output_dir().join("menu-export");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("bot_sun.glb");
    let script = format!(
        r#"
        cd "{d}"
        export XDG_CONFIG_HOME="{d}/config" FACET_TEST_ACTIONS="5:export {o}"
        facet "{m}" --frames 60
    "#,
        d = dir.display(),
        o = out.display(),
        m = common::shared()
            .join("fixtures/papa/bot_sun.papa")
            .display()
    );
    let run = under_xvfb(&script);
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{log}");
    assert!(log.contains("exported glTF to"), "{log}");
    let g = gltf::Gltf::open(&out).unwrap_or_else(|e| panic!("{e}\n{log}"));
    // The sibling animation file and the linked diffuse texture came along.
    assert!(
        g.animations()
            .any(|a| a.name().is_some_and(|n| n.contains("idle"))),
        "{:?}",
        g.animations()
            .map(|a| a.name().map(str::to_owned))
            .collect::<Vec<_>>()
    );
    assert!(g.images().count() >= 1);
    assert!(g.skins().count() == 1 && g.meshes().count() >= 1);
}

/// Where there is no Vulkan driver the viewer runs on GL (notes/gpu.md),
/// whose window surface can neither be seen through an sRGB view of a
/// plain format nor read back. The window must still open, draw what it
/// draws on Vulkan, and save screenshots (drawn offscreen for them); a
/// screenshot that cannot be written is reported and the window goes on.
#[test]
fn the_window_runs_on_the_gl_fallback() {
    let dir = common::output_dir().join(format!("gl-window-{}", run_id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let model = common::shared().join("fixtures/m3d/CesiumMan.m3d");
    let script = format!(
        r#"
        cd "{d}"
        export RUST_LOG=info
        # The File menu's screenshot at frame 5, then --screenshot at 12.
        WGPU_BACKEND=gl FACET_TEST_ACTIONS="5:screenshot" facet "{m}" --screenshot gl.png --frames 12
        echo "GL RUN DONE" >>"$FACET_LOG"
        WGPU_BACKEND=vulkan facet "{m}" --screenshot vulkan.png --frames 12
        # A screenshot into a folder that is gone: reported, not the end.
        mkdir gone && cd gone && rmdir ../gone
        WGPU_BACKEND=gl FACET_TEST_ACTIONS="5:screenshot" facet "{m}" --frames 12
    "#,
        d = dir.display(),
        m = model.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let gl_log = log.split("GL RUN DONE").next().unwrap();
    assert!(gl_log.contains("(Gl backend"), "not drawn on GL:\n{log}");
    // Errors but wgpu's EGL platform probes (logged when a platform is not
    // there; it goes on to the next).
    assert!(
        !gl_log
            .lines()
            .any(|l| l.contains("ERROR") && !l.contains("gles::egl")),
        "{gl_log}"
    );
    assert!(
        log.contains("screenshot not saved:"),
        "the failed screenshot was not reported:\n{log}"
    );
    let menu_shots = files_named_like(&dir, "facet-screenshot-");
    assert_eq!(menu_shots.len(), 1, "no menu screenshot on GL:\n{log}");
    let gl = image::open(dir.join("gl.png")).unwrap().to_rgba8();
    let vulkan = image::open(dir.join("vulkan.png")).unwrap().to_rgba8();
    assert_eq!(gl.dimensions(), vulkan.dimensions());
    // The same window: edges antialias a little differently and egui
    // blends in linear light on GL's sRGB surface (measured: 1.8% of the
    // pixels over 10 levels apart, the frame-time text among them).
    let differing = gl
        .pixels()
        .zip(vulkan.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 10))
        .count();
    let total = (gl.width() * gl.height()) as usize;
    assert!(
        differing * 100 <= total * 4,
        "{differing} of {total} pixels differ between GL and Vulkan"
    );
    // And the model is there: CesiumMan's light grey in the 3D view.
    let (w, h) = gl.dimensions();
    let model = (0..h)
        .flat_map(|y| (0..w / 2).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = gl.get_pixel(x, y).0;
            p[0] > 170 && p[0].abs_diff(p[2]) < 12
        })
        .count();
    assert!(
        model > 2000,
        "the model is not in GL's 3D view ({model} pixels)"
    );
}

/// Frames drawn since the file opened, as each run reported it at exit
/// ("[INFO  facet::app] 5 frames drawn since the file opened").
fn frames_drawn(log: &str) -> Vec<u32> {
    log.lines()
        .filter_map(|l| l.strip_suffix(" frames drawn since the file opened"))
        .filter_map(|l| l.rsplit(' ').next())
        .map(|n| n.parse().unwrap())
        .collect()
}

#[test]
fn an_idle_window_draws_only_when_something_changes() {
    // A unit at rest, left open for a few seconds, then closed by the test
    // hook (not by `--frames`, which counts frames and so draws them one
    // after another): it draws the frames that show it and then nothing,
    // where it used to draw at the display's rate and keep two cores busy
    // on the software rasteriser. Started again, a Space press wakes it and
    // the clip it starts playing draws frame after frame until it closes.
    let unit = common::shared().join("fixtures/papa/radar_jammer.papa");
    let script = format!(
        r#"
        FACET_TEST_CLOSE_AFTER_MS=4000 facet '{unit}'
        export FACET_TEST_CLOSE_AFTER_MS=8000
        start '{unit}'
        xdotool mousemove 300 300
        xdotool key space
        wait $pid
        "#,
        unit = unit.display()
    );
    let out = under_xvfb(&script);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    let frames = frames_drawn(&log);
    assert_eq!(frames.len(), 2, "two exit reports:\n{log}");
    let (idle, playing) = (frames[0], frames[1]);
    eprintln!("frames drawn after the file opened: {idle} idle, {playing} with the clip playing");
    assert!(
        log.matches("opened ").count() == 2,
        "the unit did not open twice:\n{log}"
    );
    assert!(
        idle <= 10,
        "the idle window drew {idle} frames after the file opened\n{log}"
    );
    assert!(
        log.contains("), playing"),
        "Space did not start the clip:\n{log}"
    );
    // Most of 8 s of frames: 37-38 here with a CI run beside it, fewer on
    // a machine busier still.
    assert!(
        playing >= 15 && playing >= 3 * idle,
        "the playing window drew {playing} frames (idle: {idle})\n{log}"
    );
}
