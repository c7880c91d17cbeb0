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
        .env("FACET_ADAPTER", common::SOFTWARE_ADAPTER)
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
    // The issue's files: 2^14 and 2^15 squares of RGBA zeros (1 and 4 GiB
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
        // A 64-pixel thumbnail shows at most 64 texels across; with one mip
        // level of headroom it decodes 128 x 128 (2^log reduced by halves).
        assert!(
            err.contains(&format!(
                "declares {side}x{side} PTF RGBA; decoded at 128x128"
            )),
            "{err}"
        );
    }
}

/// A PNG through the `png` crate's encoder (not the decoder under test).
fn encode_png(w: u32, h: u32, color: png::ColorType, depth: png::BitDepth, data: &[u8]) -> Vec<u8> {
    encode_png_with(w, h, color, depth, data, |_| {})
}

fn encode_png_with(
    w: u32,
    h: u32,
    color: png::ColorType,
    depth: png::BitDepth,
    data: &[u8],
    extra: impl FnOnce(&mut png::Encoder<&mut Vec<u8>>),
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, h);
    e.set_color(color);
    e.set_depth(depth);
    extra(&mut e);
    e.write_header().unwrap().write_image_data(data).unwrap();
    out
}

#[test]
fn over_budget_png_rows_are_averaged_as_they_stream() {
    use facet::formats::ptf::Texels;
    use facet::scene::decode_image;
    use image::ImageFormat::Png;
    // 4x4 RGB, red = 10 * texel index, green 0, blue 255; 16 bytes of
    // budget = 2x2 RGBA. Each output texel is the mean of a 2x2 block: (0 +
    // 10 + 40 + 50) / 4 = 25, (20 + 30 + 60 + 70) / 4 = 45, (80 + 90 + 120 +
    // 130) / 4 = 105, (100 + 110 + 140 + 150) / 4 = 125; alpha 255.
    let rgb: Vec<u8> = (0..16u8).flat_map(|i| [10 * i, 0, 255]).collect();
    let file = encode_png(4, 4, png::ColorType::Rgb, png::BitDepth::Eight, &rgb);
    let img = decode_image(&file, Png, Texels::Within(16)).unwrap();
    assert_eq!((img.width, img.height, img.declared), (2, 2, Some((4, 4))));
    let texels: Vec<[u8; 4]> = img.rgba8.chunks(4).map(|p| p.try_into().unwrap()).collect();
    assert_eq!(
        texels,
        [
            [25, 0, 255, 255],
            [45, 0, 255, 255],
            [105, 0, 255, 255],
            [125, 0, 255, 255]
        ]
    );
    // Within the budget: exact, nothing declared apart.
    let whole = decode_image(&file, Png, Texels::Within(64)).unwrap();
    assert_eq!(whole.declared, None);
    assert_eq!(
        whole.rgba8.chunks(4).map(|p| p[0]).collect::<Vec<_>>(),
        (0..16).map(|i| 10 * i).collect::<Vec<u8>>()
    );

    // 3x1 16-bit grey: 0x1000, 0x3000, 0xF0FF. 4 bytes of budget: 1x1, the
    // mean of the high bytes (16 + 48 + 240) / 3 = 101, as grey.
    let grey16 = [0x10, 0x00, 0x30, 0x00, 0xF0, 0xFF];
    let file = encode_png(
        3,
        1,
        png::ColorType::Grayscale,
        png::BitDepth::Sixteen,
        &grey16,
    );
    let img = decode_image(&file, Png, Texels::Within(4)).unwrap();
    assert_eq!((img.width, img.height), (1, 1));
    assert_eq!(img.rgba8, [101, 101, 101, 255]);

    // 2x2 two-bit palette with transparency: entries 0 red (alpha 0), 1
    // blue (alpha 200), 2 white (opaque). Rows: 0 1 / 2 2, packed high bits
    // first: 0b0001_0000, 0b1010_0000. One texel: red (255 + 0 + 255 + 255)
    // / 4 = 191, green (0 + 0 + 255 + 255) / 4 = 127, blue (0 + 255 + 255
    // + 255) / 4 = 191, alpha (0 + 200 + 255 + 255) / 4 = 177.
    let file = encode_png_with(
        2,
        2,
        png::ColorType::Indexed,
        png::BitDepth::Two,
        &[0b0001_0000, 0b1010_0000],
        |e| {
            e.set_palette(vec![255, 0, 0, 0, 0, 255, 255, 255, 255]);
            e.set_trns(vec![0, 200]);
        },
    );
    let img = decode_image(&file, Png, Texels::Within(4)).unwrap();
    assert_eq!(img.rgba8, [191, 127, 191, 177]);

    // Interlaced PNGs deliver rows in passes: refused over the budget. (The
    // encoder writes no Adam7: the IHDR's interlace byte, at 28 after the
    // signature, length, "IHDR" and 12 bytes of fields, is set by hand and
    // its CRC redone; the refusal comes before any row is read.)
    let mut file = encode_png(4, 4, png::ColorType::Rgb, png::BitDepth::Eight, &rgb);
    file[28] = 1;
    let crc = common::crc32(&file[12..29]);
    file[29..33].copy_from_slice(&crc.to_be_bytes());
    let e = decode_image(&file, Png, Texels::Within(16)).unwrap_err();
    assert!(
        e.contains("4x4 interlaced") && e.contains("texel budget"),
        "{e}"
    );
    // Other formats over the budget are refused naming their size.
    let mut bmp = Vec::new();
    image::RgbaImage::new(4, 4)
        .write_to(&mut std::io::Cursor::new(&mut bmp), image::ImageFormat::Bmp)
        .unwrap();
    let e = decode_image(&bmp, image::ImageFormat::Bmp, Texels::Within(16)).unwrap_err();
    assert!(e.contains("4x4") && e.contains("texel budget"), "{e}");
    // A header that declares 30000 x 30000 with no rows behind it: an
    // error naming the size, after nothing was allocated for it.
    let png = common::png_header_only(30000, 30000);
    let e = decode_image(&png, Png, Texels::Within(1 << 30)).unwrap_err();
    assert!(
        e.contains("30000x30000") && e.contains("texel budget"),
        "{e}"
    );
    // Headers only: the size, no texels.
    let img = decode_image(&png, Png, Texels::HeadersOnly).unwrap();
    assert_eq!((img.width, img.height, img.rgba8.len()), (30000, 30000, 0));
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

#[test]
fn headers_only_reads_what_ptfs_declare_without_their_texels() {
    use facet::formats::ptf::{Texels, decode_with};
    // Current form, format 3 (RGBA), size byte 0xFF: 32768 x 32768, and an
    // LZ4 frame with no blocks at all. The header is all a report needs;
    // decoding the texels fails.
    let mut file = vec![b'P', b'T', b'F', 0, 3, 0xFF];
    file.extend(lz4(&[]));
    let t = decode_with(&file, Texels::HeadersOnly).unwrap();
    assert_eq!(
        (t.width, t.height, t.format),
        (32768, 32768, PtfFormat::Rgba)
    );
    assert!(t.pixels.is_empty());
    assert!(decode_with(&file, Texels::Within(1 << 20)).is_err());
    // Format byte 1 at 2x2: the generation is the inflated length, counted
    // (16 bytes: the 2025 form's RGBA; 8: the current form's IA).
    for (len, layout, format) in [
        (16, PtfLayout::Y2025 { version: 0 }, PtfFormat::Rgba),
        (8, PtfLayout::Current { version: 0 }, PtfFormat::Ia),
    ] {
        let mut file = vec![b'P', b'T', b'F', 0, 1, 0x11];
        file.extend(lz4(&vec![7u8; len]));
        let t = decode_with(&file, Texels::HeadersOnly).unwrap();
        assert_eq!((t.layout, t.format, t.pixels.len()), (layout, format, 0));
    }
    // A frame that declares its content size (FLG bit 3: 16 bytes) is taken
    // at its word: cut right after its 15-byte descriptor (magic, FLG, BD,
    // u64 size, checksum), it still reads as the 2025 form's RGBA.
    let info = lz4_flex::frame::FrameInfo::new().content_size(Some(16));
    let mut e = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
    e.write_all(&[7u8; 16]).unwrap();
    let frame = e.finish().unwrap();
    assert_eq!(frame[4] & 0x08, 0x08, "content size flag");
    let mut file = vec![b'P', b'T', b'F', 0, 1, 0x11];
    file.extend(&frame[..15]);
    let t = decode_with(&file, Texels::HeadersOnly).unwrap();
    assert_eq!(t.layout, PtfLayout::Y2025 { version: 0 });
}

#[test]
fn headers_only_loads_keep_every_texture_size_and_no_texels() {
    use facet::load::{LoadOptions, load_file_with};
    let dir = common::output_dir().join(format!("headers-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let headers = LoadOptions::default().headers_only();
    // viper.m3d inlines one PNG: its IHDR (after the 8-byte signature, the
    // length and "IHDR") says width and height, big-endian.
    let viper = common::shared().join("fixtures/m3d/viper.m3d");
    let m = facet::formats::m3d::decode(&std::fs::read(&viper).unwrap()).unwrap();
    let png = &m.assets[0].data;
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    let (w, h) = (be(16), be(20));
    let s = load_file_with(&viper, &headers).unwrap().scene;
    let t = s
        .textures
        .iter()
        .find(|t| t.name == m.assets[0].name)
        .unwrap();
    assert_eq!((t.width, t.height, t.rgba8.len()), (w, h, 0));
    // The same sizes as a full load, for P3M's embedded PTFs, a texture
    // papa, a model papa with its convention diffuse and one whose linked
    // textures are missing (checkerboards, drawn by the viewer, aside: one
    // names the model itself, which is no texture papa), with no texels.
    let p3m = dir.join("demo.p3m");
    std::fs::write(
        &p3m,
        facet::formats::p3m_write::encode(&facet::generators::p3m::demo_model()).unwrap(),
    )
    .unwrap();
    for file in [
        p3m,
        common::shared().join("fixtures/papa/bot_sun_diffuse.papa"),
        common::shared().join("fixtures/papa/bot_sun.papa"),
        common::shared().join("fixtures/papa/flower_03.papa"),
    ] {
        let full = load_file_with(&file, &LoadOptions::default())
            .unwrap()
            .scene;
        let head = load_file_with(&file, &headers).unwrap().scene;
        assert!(!full.textures.is_empty(), "{}", file.display());
        let sizes = |s: &facet::scene::Scene| {
            s.textures
                .iter()
                .map(|t| (t.name.clone(), t.width, t.height))
                .collect::<Vec<_>>()
        };
        assert_eq!(sizes(&head), sizes(&full), "{}", file.display());
        let from_file = |s: &facet::scene::Scene| -> Vec<bool> {
            s.textures
                .iter()
                .filter(|t| !matches!(t.source, facet::scene::TextureSource::Missing(_)))
                .map(|t| t.rgba8.is_empty() && t.compressed.is_none())
                .collect()
        };
        assert!(from_file(&full).iter().all(|empty| !empty));
        assert!(from_file(&head).iter().all(|&empty| empty));
        assert_eq!(from_file(&head).len(), from_file(&full).len());
    }
    // info prints the declared size of the 2^15 square.
    let ptf = dir.join("zeros_32768.ptf");
    std::fs::write(&ptf, zeros_ptf(15)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_facet"))
        .args(["info".as_ref(), ptf.as_os_str(), "--json".as_ref()])
        .env("XDG_CONFIG_HOME", common::output_dir().join("config"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ptf"]["width"], 32768, "{v}");
}

#[test]
fn over_budget_papa_levels_are_box_filtered_as_they_decode() {
    use facet::formats::papa::{TexFormat, Texture, TextureData};
    use facet::formats::ptf::Texels;
    use facet::scene::from_papa::scene_texture;
    let texture = |format, w, h, data| Texture {
        name: "t".into(),
        format: Some(format),
        mips: 1,
        srgb: true,
        width: w,
        height: h,
        data: TextureData::Embedded(data),
    };
    // DXT1, 8x4: two blocks, each both endpoints one RGB565 colour with all
    // indices 0: red 0xF800 (31 -> 255), then blue 0x001F. A 2x1 budget (8
    // bytes) reduces by 4: each block averages to its colour.
    let mut dxt = Vec::new();
    for c in [0xF800u16, 0x001F] {
        dxt.extend(c.to_le_bytes());
        dxt.extend(c.to_le_bytes());
        dxt.extend([0u8; 4]);
    }
    let mut warnings = Vec::new();
    let t = scene_texture(
        &texture(TexFormat::Dxt1, 8, 4, dxt),
        "t",
        Texels::Within(8),
        &mut warnings,
    )
    .unwrap();
    assert_eq!((t.width, t.height), (2, 1));
    assert_eq!(t.rgba8, [255, 0, 0, 255, 0, 0, 255, 255]);
    assert!(
        t.compressed.is_none(),
        "the reduced texels are what is drawn"
    );
    assert!(warnings[0].contains("declares 8x4"), "{warnings:?}");
    // BGRA8 4x2, one level: blue channel (byte 0) 0..8 * 30, others 0,
    // alpha 255. 8 bytes of budget: 2x1, the means of the 2x2 blocks as
    // RGBA: (0 + 30 + 120 + 150) / 4 = 75 and (60 + 90 + 180 + 210) / 4 = 135.
    let bgra: Vec<u8> = (0..8u8).flat_map(|i| [30 * i, 0, 0, 255]).collect();
    let t = scene_texture(
        &texture(TexFormat::B8G8R8A8, 4, 2, bgra),
        "t",
        Texels::Within(8),
        &mut warnings,
    )
    .unwrap();
    assert_eq!(t.rgba8, [0, 0, 75, 255, 0, 0, 135, 255]);
}

/// A DXT1 texture within the budget is kept as its blocks (what the GPU
/// samples) and decoded only when asked (`Texture::pixels`), to the texels
/// the DXT1 rules give, worked out here by hand; a level too short for its
/// blocks is refused when the scene is made, not when it is drawn.
#[test]
fn papa_bc_textures_stay_blocks_until_their_texels_are_asked_for() {
    use facet::formats::papa::{TexFormat, Texture, TextureData};
    use facet::formats::ptf::Texels;
    use facet::scene::from_papa::scene_texture;
    let texture = |data: Vec<u8>, mips| Texture {
        name: "t".into(),
        format: Some(TexFormat::Dxt1),
        mips,
        srgb: true,
        width: 4,
        height: 4,
        data: TextureData::Embedded(data),
    };
    // One 4x4 block: c0 = white 0xFFFF > c1 = black 0x0000 (four-colour
    // mode); indices row by row, two bits a texel from the lowest: row 0
    // all 0 (c0), row 1 all 1 (c1), row 2 all 2 (2/3 c0 + 1/3 c1 = 170),
    // row 3 all 3 (1/3 c0 + 2/3 c1 = 85). A second level of 2x2 (one
    // block, all c1) follows.
    let mut blocks = vec![
        0xFF,
        0xFF,
        0x00,
        0x00,
        0b00_00_00_00,
        0b01_01_01_01,
        0b10_10_10_10,
        0b11_11_11_11,
    ];
    blocks.extend([0xFF, 0xFF, 0x00, 0x00, 0x55, 0x55, 0x55, 0x55]);
    let mut warnings = Vec::new();
    let t = scene_texture(
        &texture(blocks.clone(), 2),
        "t",
        Texels::Within(1 << 20),
        &mut warnings,
    )
    .unwrap();
    assert!(t.rgba8.is_empty(), "nothing decoded while making the scene");
    let c = t.compressed.as_ref().expect("the blocks are kept");
    assert_eq!(c.levels, vec![blocks[..8].to_vec(), blocks[8..].to_vec()]);
    let mut want = Vec::new();
    for v in [255u8, 0, 170, 85] {
        for _ in 0..4 {
            want.extend([v, v, v, 255]);
        }
    }
    // bcdec interpolates (2·c0 + c1) / 3 with rounding: 170 and 85 exactly.
    assert_eq!(&t.pixels()[..], &want[..]);
    assert_eq!(t.rgba8_len(), want.len());
    // Seven bytes of a block: refused now, with the level named.
    let e = scene_texture(
        &texture(blocks[..7].to_vec(), 1),
        "t",
        Texels::Within(1 << 20),
        &mut warnings,
    )
    .unwrap_err();
    assert!(e.contains("short"), "{e}");
    // A missing texture's checkerboard is made when asked for, 64x64.
    let board = facet::scene::Texture::checkerboard("gone", "not found".into());
    assert!(board.rgba8.is_empty());
    let px = board.pixels();
    assert_eq!(px.len(), 64 * 64 * 4);
    assert_eq!(&px[..4], &[255, 0, 255, 255]);
    assert_eq!(&px[8 * 4..8 * 4 + 4], &[16, 16, 16, 255]);
}

#[test]
fn every_png_layout_decodes_to_rgba8() {
    // Within the budget a PNG is decoded straight into RGBA8 by the `png`
    // decoder's own expansion (scene::images::png_rgba). Each layout the
    // format has, written by the png crate's encoder, against the texels
    // worked out here by hand.
    use facet::formats::ptf::Texels;
    use facet::scene::decode_image;
    use image::ImageFormat::Png;
    use png::{BitDepth as D, ColorType as C};
    let rgba = |file: &[u8]| {
        let img = decode_image(file, Png, Texels::Within(1 << 20)).unwrap();
        assert_eq!(img.declared, None);
        img.rgba8
    };
    // Grey: the value in R, G and B, opaque.
    assert_eq!(
        rgba(&encode_png(2, 1, C::Grayscale, D::Eight, &[0, 200])),
        [0, 0, 0, 255, 200, 200, 200, 255]
    );
    // One-bit grey, 3 pixels packed high bit first (1 0 1): 255, 0, 255.
    assert_eq!(
        rgba(&encode_png(3, 1, C::Grayscale, D::One, &[0b1010_0000])),
        [255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 255, 255]
    );
    // Sixteen-bit grey 0x1000, 0x3000, 0xF0FF: the high bytes.
    assert_eq!(
        rgba(&encode_png(
            3,
            1,
            C::Grayscale,
            D::Sixteen,
            &[0x10, 0x00, 0x30, 0x00, 0xF0, 0xFF]
        )),
        [16, 16, 16, 255, 48, 48, 48, 255, 240, 240, 240, 255]
    );
    // Grey + alpha.
    assert_eq!(
        rgba(&encode_png(
            2,
            1,
            C::GrayscaleAlpha,
            D::Eight,
            &[10, 20, 30, 40]
        )),
        [10, 10, 10, 20, 30, 30, 30, 40]
    );
    // RGB, opaque; RGBA as stored.
    assert_eq!(
        rgba(&encode_png(2, 1, C::Rgb, D::Eight, &[1, 2, 3, 4, 5, 6])),
        [1, 2, 3, 255, 4, 5, 6, 255]
    );
    assert_eq!(
        rgba(&encode_png(1, 1, C::Rgba, D::Eight, &[9, 8, 7, 6])),
        [9, 8, 7, 6]
    );
    // RGB with a tRNS colour key (three 16-bit samples: 1, 2, 3): that
    // colour is transparent, the other opaque.
    let keyed = encode_png_with(2, 1, C::Rgb, D::Eight, &[1, 2, 3, 4, 5, 6], |e| {
        e.set_trns(vec![0, 1, 0, 2, 0, 3]);
    });
    assert_eq!(rgba(&keyed), [1, 2, 3, 0, 4, 5, 6, 255]);
    // An 8-bit palette without tRNS (entries (10, 20, 30), (40, 50, 60)),
    // pixels 1 0: opaque.
    let indexed = encode_png_with(2, 1, C::Indexed, D::Eight, &[1, 0], |e| {
        e.set_palette(vec![10, 20, 30, 40, 50, 60]);
    });
    assert_eq!(rgba(&indexed), [40, 50, 60, 255, 10, 20, 30, 255]);
    // A 2-bit palette with tRNS: entries 0 red (alpha 0), 1 blue (alpha
    // 200), 2 white (no tRNS entry: opaque). Rows 0 1 / 2 2.
    let indexed = encode_png_with(2, 2, C::Indexed, D::Two, &[0b0001_0000, 0b1010_0000], |e| {
        e.set_palette(vec![255, 0, 0, 0, 0, 255, 255, 255, 255]);
        e.set_trns(vec![0, 200]);
    });
    assert_eq!(
        rgba(&indexed),
        [
            255, 0, 0, 0, 0, 0, 255, 200, 255, 255, 255, 255, 255, 255, 255, 255
        ]
    );
    // A truncated file is an error, not a panic or a short image.
    let whole = encode_png(2, 1, C::Rgb, D::Eight, &[1, 2, 3, 4, 5, 6]);
    for cut in [8, 33, whole.len() - 13] {
        assert!(decode_image(&whole[..cut], Png, Texels::Within(1 << 20)).is_err());
    }
    // The same file declaring 100,000 pixels a row (the IHDR's width at
    // 16, its CRC redone): within the budget, but 300,000 bytes of RGB rows
    // cannot inflate from its few bytes (deflate's ratio is at most about
    // 1032:1), so it is refused before the texels are allocated.
    let mut wide = whole.clone();
    wide[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    let crc = common::crc32(&wide[12..29]);
    wide[29..33].copy_from_slice(&crc.to_be_bytes());
    let e = decode_image(&wide, Png, Texels::Within(1 << 20)).unwrap_err();
    assert!(
        e.contains("100000x1 PNG") && e.contains("cannot come out"),
        "{e}"
    );
}

/// A glTF of one triangle drawn five times, material `i` showing image `i`:
/// `i{i}.png`, for i < 4 a 256x256 RGB PNG of one colour, `(60 * i, 255 -
/// 60 * i, 7)`; `i4.png` a PNG signature and a damaged header. The JSON is
/// written here from the glTF 2.0 specification.
fn four_image_gltf(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let triangle: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    std::fs::write(dir.join("tri.bin"), &triangle).unwrap();
    for i in 0..4u8 {
        let rgb: Vec<u8> = [60 * i, 255 - 60 * i, 7].repeat(256 * 256);
        let png = encode_png(256, 256, png::ColorType::Rgb, png::BitDepth::Eight, &rgb);
        std::fs::write(dir.join(format!("i{i}.png")), png).unwrap();
    }
    let mut damaged = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    damaged.extend(b"\0\0\0\x0dIHDRjunk");
    std::fs::write(dir.join("i4.png"), damaged).unwrap();
    let each = |f: &dyn Fn(usize) -> String| (0..5).map(f).collect::<Vec<_>>().join(",");
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},
        "buffers":[{{"uri":"tri.bin","byteLength":36}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3",
                       "min":[0,0,0],"max":[1,1,0]}}],
        "images":[{}],
        "textures":[{}],
        "materials":[{}],
        "meshes":[{{"primitives":[{}]}}],
        "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0}}"#,
        each(&|i| format!(r#"{{"uri":"i{i}.png"}}"#)),
        each(&|i| format!(r#"{{"source":{i}}}"#)),
        each(&|i| format!(r#"{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":{i}}}}}}}"#)),
        each(&|i| format!(r#"{{"attributes":{{"POSITION":0}},"material":{i}}}"#)),
    );
    let file = dir.join("four.gltf");
    std::fs::write(&file, json).unwrap();
    file
}

/// Loads `file` with `texel_budget` bytes for the file and `cap` a texture.
fn load_with_budget(file: &std::path::Path, budget: usize, cap: usize) -> facet::scene::Scene {
    let options = facet::load::LoadOptions {
        texel_budget: budget,
        ..Default::default()
    }
    .with_texture_cap(cap);
    facet::load::load_file_with(file, &options).unwrap().scene
}

/// (width, height, first texel) of the scene texture named `name`.
fn texture_named(scene: &facet::scene::Scene, name: &str) -> (u32, u32, Vec<u8>) {
    let t = scene
        .textures
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no texture {name:?}"));
    (t.width, t.height, t.rgba8[..4].to_vec())
}

#[test]
fn a_files_textures_share_one_texel_budget() {
    // The budget is the file's, not each texture's: 384 KiB for four
    // 256x256 images of 256 KiB of RGBA each. By hand, in decode order:
    // image 0 takes 262,144 bytes whole, leaving 131,072; image 1 does not
    // fit and halves to 128x128 (65,536), leaving 65,536; image 2 halves to
    // 128x128 too, leaving 0; image 3 gets nothing and is a checkerboard
    // whose warning says what the others took; image 4, damaged, is one
    // too, its warning its own. One colour each, so the box filter keeps
    // it.
    let dir = common::output_dir().join(format!("shared-budget-{}", std::process::id()));
    let file = four_image_gltf(&dir);
    let scene = load_with_budget(&file, 393_216, usize::MAX);
    let colour = |i: u8| vec![60 * i, 255 - 60 * i, 7, 255];
    assert_eq!(texture_named(&scene, "image 0"), (256, 256, colour(0)));
    assert_eq!(texture_named(&scene, "image 1"), (128, 128, colour(1)));
    assert_eq!(texture_named(&scene, "image 2"), (128, 128, colour(2)));
    let last = scene.textures.iter().find(|t| t.name == "image 3").unwrap();
    assert!(
        matches!(last.source, facet::scene::TextureSource::Missing(_)),
        "{:?}",
        last.format
    );
    let reduced: Vec<_> = scene
        .warnings
        .iter()
        .filter(|w| w.contains("declares 256x256 Png; decoded at 128x128"))
        .collect();
    assert_eq!(reduced.len(), 2, "{:#?}", scene.warnings);
    assert!(
        scene.warnings.iter().any(|w| w.starts_with("image \"image 3\"")
            && w.contains("the file's textures before it took 393216 bytes of its 393216-byte texel budget")),
        "{:#?}",
        scene.warnings
    );
    let damaged: Vec<_> = scene
        .warnings
        .iter()
        .filter(|w| w.starts_with("image \"image 4\""))
        .collect();
    assert_eq!(damaged.len(), 1, "{:#?}", scene.warnings);
    assert!(!damaged[0].contains("texel budget"), "{}", damaged[0]);

    // A per-texture cap (a thumbnail's) within a budget that holds them
    // all: each image at the largest halving within 65,536 bytes, 128x128.
    let capped = load_with_budget(&file, 1 << 30, 65_536);
    for i in 0..4u8 {
        assert_eq!(
            texture_named(&capped, &format!("image {i}")),
            (128, 128, colour(i))
        );
    }
    // Without either, every image whole.
    let whole = load_with_budget(&file, 1 << 30, usize::MAX);
    for i in 0..4u8 {
        assert_eq!(
            texture_named(&whole, &format!("image {i}")),
            (256, 256, colour(i))
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_p3ms_embedded_and_external_textures_share_one_texel_budget() {
    // The demo model with two textures: an embedded 64x64 RGBA PTF of one
    // colour (16,384 bytes of texels) and the external `side`, a 64x64 RGB
    // PNG of another (16,384 bytes as RGBA). The embedded one is decoded
    // with the model (the formats crate spends from what the load has
    // left), the external one after it, from the rest.
    use facet::formats::p3m::Texture;
    let dir = common::output_dir().join(format!("p3m-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rgb = [200u8, 100, 50].repeat(64 * 64);
    let png = encode_png(64, 64, png::ColorType::Rgb, png::BitDepth::Eight, &rgb);
    std::fs::write(dir.join("side.png"), png).unwrap();
    let mut m = facet::generators::p3m::demo_model();
    m.textures = vec![
        Texture::Embedded {
            offset: 0,
            size: 0,
            ptf: Ok(ptf::Ptf {
                layout: PtfLayout::Current { version: 0 },
                format: PtfFormat::Rgba,
                width: 64,
                height: 64,
                pixels: [10u8, 20, 30, 255].repeat(64 * 64),
                reduced_from: None,
            }),
        },
        Texture::External {
            path: "side".into(),
            written_as_embedded: false,
        },
    ];
    let file = dir.join("two.p3m");
    std::fs::write(&file, facet::formats::p3m_write::encode(&m).unwrap()).unwrap();
    let embedded = vec![10, 20, 30, 255];
    let side = vec![200, 100, 50, 255];

    // 20,480 bytes: the embedded one whole (16,384), leaving 4,096 for
    // `side`, which halves to 32x32 (4,096).
    let s = load_with_budget(&file, 20_480, usize::MAX);
    assert_eq!(texture_named(&s, "embedded 0"), (64, 64, embedded.clone()));
    assert_eq!(texture_named(&s, "side"), (32, 32, side.clone()));
    // 8,192 bytes: the embedded one halves to 32x32 (4,096), leaving 4,096
    // for `side`, 32x32 again.
    let s = load_with_budget(&file, 8_192, usize::MAX);
    assert_eq!(texture_named(&s, "embedded 0"), (32, 32, embedded.clone()));
    assert_eq!(texture_named(&s, "side"), (32, 32, side.clone()));
    // 16,384 bytes: the embedded one takes them all; `side` is refused,
    // and its warning says what the embedded one took.
    let s = load_with_budget(&file, 16_384, usize::MAX);
    assert_eq!(texture_named(&s, "embedded 0"), (64, 64, embedded.clone()));
    let refused = s.textures.iter().find(|t| t.name == "side").unwrap();
    assert!(
        matches!(refused.source, facet::scene::TextureSource::Missing(_)),
        "{:?}",
        refused.format
    );
    assert!(
        s.warnings.iter().any(|w| w.contains("\"side\"")
            && w.contains(
                "the file's textures before it took 16384 bytes of its 16384-byte texel budget"
            )),
        "{:#?}",
        s.warnings
    );
    // A cap of 4,096 bytes a texture under a large budget: both 32x32.
    let s = load_with_budget(&file, 1 << 30, 4_096);
    assert_eq!(texture_named(&s, "embedded 0"), (32, 32, embedded));
    assert_eq!(texture_named(&s, "side"), (32, 32, side));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pngs_compressed_past_their_expanded_size_still_decode() {
    // A file is refused when it is too short to inflate to its rows at
    // deflate's best ratio (about 1032:1). The rows are what the file
    // stores: a one-bit palette image of 2048x2048 is 2048 rows of 1 + 256
    // bytes (526,336), though it comes out as 16 MiB of RGBA. All index 0,
    // it compresses to a few KB: well under 16 MiB / 1032, so measuring the
    // expanded texels against the file refused it.
    use facet::formats::ptf::Texels;
    let side = 2048u32;
    let rows = vec![0u8; (side as usize / 8) * side as usize];
    let file = encode_png_with(
        side,
        side,
        png::ColorType::Indexed,
        png::BitDepth::One,
        &rows,
        |e| e.set_palette(vec![30, 60, 90, 200, 100, 50]),
    );
    let rgba_bytes = side as u64 * side as u64 * 4;
    let stored = side as u64 * (1 + side as u64 / 8);
    assert!(
        (file.len() as u64) * 1032 < rgba_bytes,
        "{} bytes",
        file.len()
    );
    assert!((file.len() as u64) * 1032 >= stored, "{} bytes", file.len());
    let img = facet::scene::decode_image(&file, image::ImageFormat::Png, Texels::Within(1 << 30))
        .unwrap();
    assert_eq!((img.width, img.height, img.declared), (side, side, None));
    assert!(img.rgba8.chunks(4).all(|t| t == [30, 60, 90, 255]));
    // A file truly too short for its rows is still refused: a header
    // declaring 16384x16384 RGBA (16384 rows of 1 + 65,536 bytes) and an
    // empty image stream, about 70 bytes in all.
    let short = common::png_header_only(side * 8, side * 8);
    let e = facet::scene::decode_image(&short, image::ImageFormat::Png, Texels::Within(1 << 30))
        .unwrap_err();
    assert!(e.contains("bytes of rows cannot come out of a"), "{e}");
}

#[test]
fn over_budget_pngs_reduce_within_bounds_whatever_their_width() {
    use facet::formats::ptf::Texels;
    use facet::scene::decode_image;
    use image::ImageFormat::Png;
    // The shape a fuzzer found in a 5 KB GLB: a PNG header declaring
    // 268,435,712 x 256 texels of 8-bit palette indices, with an empty
    // image stream. Over the budget, it goes to the reduced decode, which
    // must refuse it for want of the bytes its rows need (268,435,713 a
    // row, 256 rows, from a file of about 80 bytes) before anything is
    // sized by its width: it used to reserve a 1 GiB row of RGBA and 512
    // MiB of sums first, then fail at the first row. (In RGBA the `png`
    // decoder's own limit refuses a 1 GiB row first.)
    let (w, h) = (268_435_712u32, 256u32);
    let png = common::png_header_only_as(w, h, 8, 3);
    let e = decode_image(&png, Png, Texels::Within(1 << 30)).unwrap_err();
    assert!(
        e.starts_with("268435712x256 PNG (over the 1073741824-byte texel budget")
            && e.contains("cannot come out of a"),
        "{e}"
    );

    // A row that can come out of its file: one row of 2^20 8-bit grey
    // texels, texel x of value (x / 16) mod 256. Four times the 1 MiB
    // budget as RGBA, so reduced; halving until it fits gives 4 (262,144 x
    // 1 texels, exactly 1 MiB), but the reduced side is capped at 65,536,
    // which takes 16: each output texel is the mean of 16 equal texels,
    // texel i's value i mod 256, opaque.
    let width = 1u32 << 20;
    let row: Vec<u8> = (0..width).map(|x| (x / 16 % 256) as u8).collect();
    let file = encode_png(
        width,
        1,
        png::ColorType::Grayscale,
        png::BitDepth::Eight,
        &row,
    );
    let img = decode_image(&file, Png, Texels::Within(1 << 20)).unwrap();
    assert_eq!(
        (img.width, img.height, img.declared),
        (65_536, 1, Some((width, 1)))
    );
    for (i, t) in img.rgba8.chunks_exact(4).enumerate() {
        let v = (i % 256) as u8;
        assert_eq!(t, [v, v, v, 255], "texel {i}");
    }
}
