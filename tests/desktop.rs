//! Desktop integration: `install-desktop` into a temporary XDG_DATA_HOME
//! (MIME types recognised by extension and by magic through `xdg-mime`, the
//! desktop entry, the thumbnailer, the icon, `--uninstall`), and the
//! `thumbnail` command for every format.

mod common;
use std::path::{Path, PathBuf};
use std::process::Command;

fn facet() -> Command {
    Command::new(env!("CARGO_BIN_EXE_facet"))
}

fn need(tool: &str) {
    assert!(
        Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success()),
        "this test needs {tool} (scripts/test installs it)"
    );
}

/// One file per format, by (expected MIME type, path).
fn samples() -> Vec<(&'static str, PathBuf)> {
    let f = |p: &str| common::shared().join("fixtures").join(p);
    vec![
        ("model/x-p3m", common::repo().join("assets/demo.p3m")),
        ("image/x-ptf", f("ptf/missing.ptf")),
        ("model/x-3d-model", f("m3d/cube.m3d")),
        ("model/x-papa", f("papa/basic_cube.papa")),
    ]
}

#[test]
fn mime_xml_names_every_type_with_globs_and_magic() {
    let xml = facet::desktop::MIME_XML;
    assert!(xml.starts_with("<?xml version=\"1.0\""));
    assert!(xml.contains("xmlns=\"http://www.freedesktop.org/standards/shared-mime-info\""));
    for (ty, ext, magic) in [
        ("model/x-p3m", "*.p3m", "P3M"),
        ("image/x-ptf", "*.ptf", "PTF"),
        ("model/x-3d-model", "*.m3d", "3DMO"),
        ("model/x-papa", "*.papa", "apaP"),
        ("model/x-pmf", "*.pmf", "PMF\\0"),
    ] {
        let at = xml
            .find(&format!("<mime-type type=\"{ty}\">"))
            .unwrap_or_else(|| panic!("{ty} missing"));
        let block = &xml[at..at + xml[at..].find("</mime-type>").unwrap()];
        assert!(
            block.contains(&format!("<glob pattern=\"{ext}\"/>")),
            "{ty}: glob"
        );
        assert!(block.contains(&format!("value=\"{magic}\"")), "{ty}: magic");
        assert!(block.contains("<comment>"), "{ty}: comment");
    }
    // Balanced elements (update-mime-database, run below, parses it too).
    assert_eq!(
        xml.matches("<mime-type ").count(),
        xml.matches("</mime-type>").count()
    );
    assert_eq!(
        xml.matches("<magic").count(),
        xml.matches("</magic>").count()
    );
}

fn install(home: &Path, uninstall: bool) -> String {
    let mut c = facet();
    c.arg("install-desktop").env("XDG_DATA_HOME", home);
    if uninstall {
        c.arg("--uninstall");
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn install_desktop_registers_types_by_extension_and_magic() {
    need("update-mime-database");
    need("xdg-mime");
    need("mimetype");
    let home = common::output_dir().join("xdg-data");
    let _ = std::fs::remove_dir_all(&home);
    let log = install(&home, false);
    assert!(log.contains("ran update-mime-database"), "{log}");

    let desktop = std::fs::read_to_string(home.join("applications/facet.desktop")).unwrap();
    let exe = env!("CARGO_BIN_EXE_facet");
    assert!(desktop.contains(&format!("Exec={exe} %f")), "{desktop}");
    assert!(
        desktop.contains(
            "MimeType=model/x-p3m;image/x-ptf;model/x-3d-model;model/x-papa;model/x-pmf;"
        )
    );
    let thumb = std::fs::read_to_string(home.join("thumbnailers/facet.thumbnailer")).unwrap();
    assert!(
        thumb.contains(&format!("Exec={exe} thumbnail %i %o --size %s")),
        "{thumb}"
    );
    let icon = image::open(home.join("icons/hicolor/256x256/apps/facet.png")).unwrap();
    assert_eq!((icon.width(), icon.height()), (256, 256));

    let dir = common::output_dir().join("xdg-samples");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let query = |path: &Path| {
        let out = Command::new("xdg-mime")
            .args(["query", "filetype"])
            .arg(path)
            .env("XDG_DATA_HOME", &home)
            .env_remove("XDG_CURRENT_DESKTOP")
            .env_remove("DESKTOP_SESSION")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    for (ty, src) in samples() {
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        // By extension, and by magic alone (no extension).
        let with_ext = dir.join(&name);
        let bare = dir.join(name.split('.').next().unwrap().to_string() + "_noext");
        std::fs::copy(&src, &with_ext).unwrap();
        std::fs::copy(&src, &bare).unwrap();
        assert_eq!(query(&with_ext), ty, "{name} by extension");
        assert_eq!(query(&bare), ty, "{name} by magic");
    }

    let log = install(&home, true);
    assert!(
        log.contains("removed") && !home.join("applications/facet.desktop").exists(),
        "{log}"
    );
    assert!(!home.join("mime/packages/facet.xml").exists());
}

#[test]
fn thumbnails_are_square_pngs_on_transparent_backgrounds() {
    let out_dir = common::output_dir();
    for (ty, src) in samples()
        .into_iter()
        .chain([("model/x-3d-model", common::repo().join("assets/demo.m3d"))])
    {
        let out = out_dir.join(format!(
            "thumb_{}.png",
            src.file_stem().unwrap().to_string_lossy()
        ));
        let st = facet()
            .arg("thumbnail")
            .arg(&src)
            .arg(&out)
            .args(["--size", "96"])
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{ty}: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        let img = image::open(&out).unwrap().to_rgba8();
        assert_eq!(img.dimensions(), (96, 96), "{ty}");
        assert_eq!(img.get_pixel(0, 0).0[3], 0, "{ty}: corner not transparent");
        let drawn = img.pixels().filter(|p| p.0[3] > 200).count();
        assert!(drawn > 96 * 96 / 20, "{ty}: only {drawn} opaque pixels");
    }
}
