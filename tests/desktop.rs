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
        ("model/x-pmf", common::repo().join("assets/demo.pmf")),
    ]
}

#[test]
fn mime_xml_names_every_type_with_globs_and_magic() {
    let xml = facet::cli::desktop::MIME_XML;
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
    // Model 3D's ASCII form too.
    assert!(xml.contains("value=\"3dmo\"") && xml.contains("<glob pattern=\"*.a3d\"/>"));
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

/// `xmllint --dtdvalid packaging/shared-mime-info.dtd FILE`: (success, messages).
fn xmllint(file: &Path) -> (bool, String) {
    let out = Command::new("xmllint")
        .args(["--noout", "--dtdvalid"])
        .arg(common::repo().join("packaging/shared-mime-info.dtd"))
        .arg(file)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn installed_mime_package_validates_against_the_spec_grammar() {
    need("xmllint");
    let home = common::output_dir().join("xdg-data-xmllint");
    let _ = std::fs::remove_dir_all(&home);
    install(&home, false);
    let installed = home.join("mime/packages/facet.xml");
    let (ok, msg) = xmllint(&installed);
    assert!(ok, "{msg}");

    // The grammar has teeth: each of these breaks it.
    let xml = std::fs::read_to_string(&installed).unwrap();
    let dir = common::output_dir().join("xmllint-broken");
    std::fs::create_dir_all(&dir).unwrap();
    for (what, broken) in [
        (
            "unknown match type",
            xml.replacen("type=\"string\"", "type=\"word\"", 1),
        ),
        (
            "glob without pattern",
            xml.replacen("<glob pattern=", "<glob name=", 1),
        ),
        (
            "element outside the spec",
            xml.replacen("<comment>", "<remark>x</remark><comment>", 1),
        ),
        ("match without offset", xml.replacen(" offset=\"0\"", "", 1)),
    ] {
        let f = dir.join("facet.xml");
        std::fs::write(&f, broken).unwrap();
        let (ok, msg) = xmllint(&f);
        assert!(!ok, "{what}: xmllint accepted it");
        assert!(
            msg.contains("validity error") || msg.contains("error"),
            "{what}: {msg}"
        );
    }

    // What a DTD cannot say, from the same specification: at most one icon
    // and one generic-icon per type, priorities and weights in 0..=100,
    // offsets a number or a start:end range.
    for block in xml.split("<mime-type ").skip(1) {
        assert!(block.matches("<icon ").count() <= 1);
        assert!(block.matches("<generic-icon ").count() <= 1);
    }
    let attr = |name: &str| -> Vec<String> {
        xml.split(&format!(" {name}=\""))
            .skip(1)
            .map(|rest| rest[..rest.find('"').unwrap()].to_string())
            .collect()
    };
    for v in attr("priority").into_iter().chain(attr("weight")) {
        assert!(v.parse::<u32>().is_ok_and(|p| p <= 100), "{v}");
    }
    let offsets = attr("offset");
    assert!(!offsets.is_empty());
    for v in offsets {
        assert!(
            v.split(':').all(|n| n.parse::<u64>().is_ok()) && v.split(':').count() <= 2,
            "offset {v}"
        );
    }
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

    // freedesktop's own validator accepts the desktop entry.
    need("desktop-file-validate");
    let entry = home.join("applications/facet.desktop");
    let v = Command::new("desktop-file-validate")
        .arg(&entry)
        .output()
        .unwrap();
    assert!(
        v.status.success() && v.stdout.is_empty(),
        "{}{}",
        String::from_utf8_lossy(&v.stdout),
        String::from_utf8_lossy(&v.stderr)
    );
    let desktop = std::fs::read_to_string(&entry).unwrap();
    let exe = env!("CARGO_BIN_EXE_facet");
    assert!(desktop.contains(&format!("Exec={exe} %f")), "{desktop}");
    assert!(
        desktop.contains(
            "MimeType=model/x-p3m;image/x-ptf;model/x-3d-model;model/x-papa;model/x-pmf;model/gltf-binary;model/gltf+json;"
        )
    );
    let thumb = std::fs::read_to_string(home.join("thumbnailers/facet.thumbnailer")).unwrap();
    assert!(
        thumb.contains(&format!("Exec={exe} thumbnail %i %o --size %s")),
        "{thumb}"
    );
    assert!(
        thumb.contains("model/gltf-binary;model/gltf+json;"),
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
    // Model 3D's ASCII form, by its extension and by its lowercase magic
    // (text that would otherwise be text/plain).
    let a3d = common::shared().join("fixtures/m3d/voxel.a3d");
    for name in ["voxel.a3d", "voxel_a3d_noext"] {
        let p = dir.join(name);
        std::fs::copy(&a3d, &p).unwrap();
        assert_eq!(query(&p), "model/x-3d-model", "{name}");
    }
    // glTF's types are shared-mime-info's own (2.0 and later), which the
    // desktop entry and the thumbnailer name: a .glb by extension and by
    // magic, a .gltf by extension.
    let corpus = common::repo().join("tests/corpus/gltf");
    for (src, name, ty) in [
        (
            "seed_box_textured_meshopt.glb",
            "box.glb",
            "model/gltf-binary",
        ),
        (
            "seed_box_textured_meshopt.glb",
            "box_glb_noext",
            "model/gltf-binary",
        ),
        (
            "seed_simple_skin_embedded.gltf",
            "skin.gltf",
            "model/gltf+json",
        ),
    ] {
        let p = dir.join(name);
        std::fs::copy(corpus.join(src), &p).unwrap();
        assert_eq!(query(&p), ty, "{name}");
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

#[test]
fn thumbnail_downsampling_averages_in_linear_light_weighted_by_alpha() {
    use facet::cli::headless::downsample_2x;
    // One 2x2 image per case, downsampled to its one pixel.
    let block = |px: [[u8; 4]; 4]| {
        let mut img = image::RgbaImage::new(2, 2);
        for (i, p) in px.into_iter().enumerate() {
            img.put_pixel(i as u32 % 2, i as u32 / 2, image::Rgba(p));
        }
        downsample_2x(&img).get_pixel(0, 0).0
    };
    // Four equal pixels: the pixel itself.
    assert_eq!(block([[10, 20, 30, 40]; 4]), [10, 20, 30, 40]);
    // Half covered by opaque white: white at half alpha (127.5 -> 128),
    // not a grey darkened towards the transparent background.
    let (white, clear) = ([255; 4], [0; 4]);
    assert_eq!(block([white, clear, white, clear]), [255, 255, 255, 128]);
    // Opaque red 255, 255, 0, 0: linear mean 0.5, which sRGB encodes
    // (IEC 61966-2-1) as 1.055 * 0.5^(1/2.4) - 0.055 = 0.73536 -> 187.5
    // -> 188; a mean of the stored bytes would have given 128.
    let red = [255, 0, 0, 255];
    let black = [0, 0, 0, 255];
    assert_eq!(block([red, black, red, black]), [188, 0, 0, 255]);
    // Weighted by alpha: opaque red, blue at alpha 128, two clear pixels.
    // Red: 255 / 383 of full in linear light, 0.66580 -> 1.055 *
    // 0.66580^(1/2.4) - 0.055 = 0.83553 -> 213.06 -> 213; blue: 128 / 383
    // = 0.33420 -> 0.61321 -> 156.37 -> 156; alpha (255 + 128) / 4 =
    // 95.75 -> 96.
    assert_eq!(
        block([red, [0, 0, 255, 128], clear, clear]),
        [213, 0, 156, 96]
    );
    // Odd sides lose their last row and column (the thumbnail draws an
    // even side).
    assert_eq!(
        downsample_2x(&image::RgbaImage::new(5, 3)).dimensions(),
        (2, 1)
    );
}

#[test]
fn thumbnail_edges_are_antialiased() {
    // An opaque cube on a transparent background: its silhouette pixels
    // are partly covered, so a supersampled thumbnail has alpha values
    // between 0 and 255 there (one sample a pixel would give none).
    let out = common::output_dir().join("thumb_edges.png");
    let st = facet()
        .arg("thumbnail")
        .arg(common::shared().join("fixtures/m3d/cube.m3d"))
        .arg(&out)
        .args(["--size", "128"])
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let img = image::open(&out).unwrap().to_rgba8();
    let partial = img.pixels().filter(|p| p.0[3] > 0 && p.0[3] < 255).count();
    let opaque = img.pixels().filter(|p| p.0[3] == 255).count();
    assert!(opaque > 128 * 128 / 10, "only {opaque} opaque pixels");
    // The silhouette of a cube filling a 128 px square is some hundreds
    // of pixels long.
    assert!(partial > 100, "only {partial} partly covered pixels");
    // The four intermediate levels of 2x2 supersampling (64, 128, 191)
    // and no others for an opaque model.
    assert!(
        img.pixels()
            .all(|p| [0, 64, 128, 191, 255].contains(&p.0[3])),
        "alpha levels other than 2x2 coverage"
    );
}
