//! Nothing a file says may crash the GPU layer (issue 19): textures over the
//! device's 2D limit are fitted before upload, and GPU errors are captured.
//! The hostile files are built with the Papa writer (the decoder's reading
//! is not what is tested here), sized from this device's own limit so the
//! test means the same on every adapter.

mod common;
use facet::formats::papa::{self, Papa, TexFormat, TextureData};
use facet::gpu::limits::{fit_rgba, fitting_level};
use std::process::Command;

#[test]
fn box_filter_halves_until_it_fits() {
    // 4x2 texels, red channel 0, 40, 80, 120 / 160, 200, 240, 20 (others 0,
    // alpha 255). Halved once to 2x1: the averages of each 2x2 block:
    // (0 + 40 + 160 + 200) / 4 = 100 and (80 + 120 + 240 + 20) / 4 = 115.
    let reds = [0u8, 40, 80, 120, 160, 200, 240, 20];
    let px: Vec<u8> = reds.iter().flat_map(|&r| [r, 0, 0, 255]).collect();
    let (w, h, out) = fit_rgba(4, 2, &px, 2);
    assert_eq!((w, h), (2, 1));
    assert_eq!(out, vec![100, 0, 0, 255, 115, 0, 0, 255]);
    // 5x1 to at most 2: reduced by 4, the first block of four texels and
    // the last texel alone.
    let px: Vec<u8> = [10u8, 20, 30, 40, 50]
        .iter()
        .flat_map(|&r| [r, r, r, r])
        .collect();
    let (w, h, out) = fit_rgba(5, 1, &px, 2);
    assert_eq!((w, h), (2, 1));
    // (10 + 20 + 30 + 40) / 4 = 25, then 50.
    assert_eq!(&out[..1], &[25]);
    assert_eq!(&out[4..5], &[50]);
    // Fits already: unchanged.
    assert_eq!(fit_rgba(2, 2, &[7; 16], 2), (2, 2, vec![7; 16]));
}

#[test]
fn the_first_stored_level_that_fits_is_chosen() {
    assert_eq!(fitting_level(32768, 8, 1, 16384), None);
    assert_eq!(fitting_level(32768, 8, 2, 16384), Some(1));
    assert_eq!(fitting_level(65536, 64, 8, 16384), Some(2));
    assert_eq!(fitting_level(512, 512, 1, 16384), Some(0));
}

fn max_texture() -> u32 {
    common::gpu().device.limits().max_texture_dimension_2d
}

/// A texture papa: one texture of `w` x `h`, `levels` stored levels.
fn texture_papa(format: TexFormat, w: u32, h: u32, levels: u8) -> Vec<u8> {
    let block = |w: u32, h: u32| match format {
        TexFormat::Dxt1 => w.div_ceil(4) * h.div_ceil(4) * 8,
        _ => w * h * 4,
    };
    let mut data = Vec::new();
    for l in 0..levels {
        let (lw, lh) = ((w >> l).max(1), (h >> l).max(1));
        // Level l filled with byte 40 * (l + 1): distinct per level.
        data.extend(std::iter::repeat_n(40 * (l + 1), block(lw, lh) as usize));
    }
    let p = Papa {
        signature: *b"facet\0",
        textures: vec![papa::Texture {
            name: "wide.png".into(),
            format: Some(format),
            mips: levels,
            srgb: true,
            width: w as u16,
            height: h as u16,
            data: TextureData::Embedded(data),
        }],
        ..Default::default()
    };
    facet::formats::papa_write::encode(&p).unwrap()
}

fn run(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_facet"))
        .args(args)
        .env("FACET_ADAPTER", common::SOFTWARE_ADAPTER)
        .env("RUST_LOG", "facet=info")
        .env("XDG_CONFIG_HOME", common::output_dir().join("config"))
        .output()
        .unwrap()
}

#[test]
fn over_wide_textures_render_and_thumbnail_downscaled() {
    let max = max_texture();
    assert!(max <= 32768, "this test's files need the limit below 65536");
    let dir = common::output_dir().join(format!("limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        // The DXT1 of one level: no stored level fits.
        (
            "dxt1_one_level.papa",
            texture_papa(TexFormat::Dxt1, 2 * max, 8, 1),
            "downscaled to",
        ),
        // With a second level, that level is used as it is stored.
        (
            "dxt1_two_levels.papa",
            texture_papa(TexFormat::Dxt1, 2 * max, 8, 2),
            "stored mip level 1",
        ),
        // RGBA8, one texel tall.
        (
            "rgba8_row.papa",
            texture_papa(TexFormat::R8G8B8A8, 2 * max, 1, 1),
            "downscaled to",
        ),
    ];
    for (name, bytes, how) in cases {
        let file = dir.join(name);
        std::fs::write(&file, bytes).unwrap();
        let png = dir.join(format!("{name}.png"));
        for cmd in ["render", "thumbnail"] {
            let _ = std::fs::remove_file(&png);
            let out = match cmd {
                "render" => run(&[
                    "render".as_ref(),
                    file.as_os_str(),
                    "-o".as_ref(),
                    png.as_os_str(),
                    "--size".as_ref(),
                    "96x64".as_ref(),
                ]),
                _ => run(&[
                    "thumbnail".as_ref(),
                    file.as_os_str(),
                    png.as_os_str(),
                    "--size".as_ref(),
                    "64".as_ref(),
                ]),
            };
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{cmd} {name} failed:\n{err}");
            if cmd == "render" {
                let limit = format!("over this device's {max}-texel limit");
                assert!(
                    err.contains(&limit) && err.contains(how),
                    "{cmd} {name}: no warning:\n{err}"
                );
            } else {
                // A 64-pixel thumbnail decodes textures at most 128 x 128
                // texels' worth (64 KiB): far under the device's limit,
                // reached first.
                let declared = format!("declares {}x", 2 * max);
                assert!(
                    err.contains(&declared) && err.contains("to stay within the texel budget"),
                    "{cmd} {name}: no warning:\n{err}"
                );
            }
            let img = image::open(&png).unwrap().to_rgba8();
            assert!(img.width() >= 64, "{cmd} {name}");
        }
    }
}

#[test]
fn gpu_errors_are_captured_as_one_line() {
    // A texture past the limit, created directly: wgpu's validation error
    // comes back from the error scope instead of ending the process.
    let gpu = common::gpu();
    let max = gpu.device.limits().max_texture_dimension_2d;
    let r = gpu.capture(|| {
        gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("too wide"),
            size: wgpu::Extent3d {
                width: max * 2,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
    });
    let e = r.map(|_| ()).expect_err("the error is captured");
    assert!(!e.contains('\n'), "{e}");
    assert!(e.contains("exceeds the limit"), "{e}");
    // The device still works afterwards.
    assert!(gpu.capture(|| gpu.device.limits()).is_ok());
}

#[test]
fn every_fixture_and_asset_uploads_without_a_gpu_error() {
    // Each shared fixture, bundled asset and corpus input that loads goes
    // through the captured upload: no validation or out-of-memory error,
    // and the device's limits left nothing to fit.
    let gpu = common::gpu();
    let renderer = facet::gpu::Renderer::new(&gpu, facet::gpu::capture::CAPTURE_FORMAT, 1);
    let mut files = Vec::new();
    for dir in ["m3d", "papa", "ptf"] {
        for e in std::fs::read_dir(common::shared().join("fixtures").join(dir)).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    for e in std::fs::read_dir(common::repo().join("assets")).unwrap() {
        files.push(e.unwrap().path());
    }
    // The fuzz corpora: inputs that decode (the seeds; the kept crash
    // inputs do not) are uploaded too.
    for dir in std::fs::read_dir(common::repo().join("tests/corpus")).unwrap() {
        for e in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    let mut uploaded = 0;
    for f in files {
        let Ok(l) = facet::load::load_file(&f) else {
            continue;
        };
        let g = facet::gpu::GpuScene::try_new(&gpu, &renderer, &l.scene)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(g.warnings.is_empty(), "{}: {:?}", f.display(), g.warnings);
        uploaded += 1;
    }
    assert!(uploaded >= 25, "only {uploaded} files uploaded");
}

#[test]
fn buffers_over_the_device_limit_are_refused_naming_the_part() {
    use facet::scene::{Mesh, Scene, Skin};
    let limits = wgpu::Limits {
        max_buffer_size: 1000,
        ..wgpu::Limits::default()
    };
    let mesh = |name: &str, n: usize, skinned: bool| Mesh {
        name: name.into(),
        positions: vec![glam::Vec3::ZERO; n],
        normals: vec![glam::Vec3::Y; n],
        uvs: vec![glam::Vec2::ZERO; n],
        indices: vec![0; 3],
        skin: skinned.then(|| Skin {
            joints: vec![[0; 4]; n],
            weights: vec![[65535, 0, 0, 0]; n],
        }),
        ..Default::default()
    };
    // The larger vertex stream is UV (8 B), colour (4 B) and tangent frame
    // (8 B): 50 vertices make a 1,000-byte stream and fit; 51 (1,020) do not.
    let mut scene = Scene {
        meshes: vec![mesh("small", 50, false)],
        ..Default::default()
    };
    assert!(facet::gpu::limits::check_buffers(&scene, &limits).is_ok());
    scene.meshes.push(mesh("big", 51, false));
    let e = facet::gpu::limits::check_buffers(&scene, &limits).unwrap_err();
    assert!(
        e.contains("part 1 \"big\"") && e.contains("1020-byte") && e.contains("1000-byte"),
        "{e}"
    );
    // Wireframe edges: up to two indices per index; 126 indices (504 B)
    // may need 1,008 bytes of edges.
    let mut edgy = mesh("edgy", 3, false);
    edgy.indices = vec![0; 126];
    let e = facet::gpu::limits::check_buffers(
        &Scene {
            meshes: vec![edgy],
            ..Default::default()
        },
        &limits,
    )
    .unwrap_err();
    assert!(e.contains("edge") && e.contains("1008-byte"), "{e}");
    // Skinned: 2 x 20 vertices at 28 B = 1,120 bytes of skinning input.
    let scene = Scene {
        meshes: vec![mesh("a", 20, true), mesh("b", 20, true)],
        ..Default::default()
    };
    let e = facet::gpu::limits::check_buffers(&scene, &limits).unwrap_err();
    assert!(
        e.contains("40 skinned vertices") && e.contains("1120-byte"),
        "{e}"
    );
}

#[test]
fn an_adapter_is_chosen_by_name_and_a_wrong_name_lists_those_there_are() {
    let gpu = common::gpu();
    assert!(
        gpu.describe()
            .to_lowercase()
            .contains(common::SOFTWARE_ADAPTER),
        "{}",
        gpu.describe()
    );
    let e = facet::gpu::Gpu::headless_named("no such adapter")
        .err()
        .expect("no adapter has that name")
        .to_string();
    assert!(e.contains("\"no such adapter\""), "{e}");
    assert!(e.contains(common::SOFTWARE_ADAPTER), "the list names {e}");
    // The binary takes FACET_ADAPTER and fails with the same sentence.
    let out = Command::new(env!("CARGO_BIN_EXE_facet"))
        .args(["render", "assets/demo.p3m", "-o"])
        .arg(common::output_dir().join("never.png"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FACET_ADAPTER", "no such adapter")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("no GPU adapter named like"), "{err}");
}

/// A quad whose material shows a 2x2 checker, then (from frame 5 at 100 ms
/// a frame) no texture: the texture array holds that one texture.
fn switching_quad_p3m() -> Vec<u8> {
    use facet::formats::p3m::{self, Key, MaterialAnimation, MaterialData};
    use facet::formats::ptf::{Ptf, PtfFormat, PtfLayout};
    let checker = [[255, 40, 40, 255], [40, 40, 255, 255]];
    let animation = MaterialAnimation {
        us_per_frame: 100_000,
        preserve_texture_scroll: false,
        loop_mode: p3m::MatLoop::Loop,
        texture_scroll: [0.0; 2],
        matcap_scroll: [0.0; 2],
        last_frame: 9,
        color: vec![],
        emission: vec![],
        shading: vec![],
        texture: vec![Key {
            skip: 5,
            interp: (),
            value: p3m::NONE_INDEX,
        }],
        matcap: vec![],
    };
    let m = p3m::P3m {
        layout: p3m::P3mLayout::Current,
        version: 0,
        flags: 0,
        parts: vec![common::quad("quad", 0, true)],
        materials: vec![p3m::Material {
            render_mode: p3m::RenderMode::Normal,
            data: MaterialData {
                color: [255; 4],
                emission: [0; 3],
                shading: 0,
                texture: Some(0),
                matcap: None,
            },
            animation: Some(animation),
        }],
        textures: vec![p3m::Texture::Embedded {
            offset: 0,
            size: 0,
            ptf: Ok(Ptf {
                layout: PtfLayout::Current { version: 0 },
                format: PtfFormat::Rgba,
                width: 2,
                height: 2,
                pixels: [checker[0], checker[1], checker[1], checker[0]].concat(),
                reduced_from: None,
            }),
        }],
        bones: vec![],
        animations: vec![],
        actions: vec![],
        user_fields: vec![],
        string_table: (0, 0),
    };
    facet::formats::p3m_write::encode(&m).unwrap()
}

/// Where the machine has no Vulkan driver the viewer falls back to GL
/// (notes/gpu.md), which lacks what Vulkan has: a texture's views may not
/// change its format (the sRGB texture's plain view for egui), and a
/// one-layer texture is taken for a plain 2D one (the texture-array
/// binding). Every kind of texture the viewer uploads, drawn on the
/// software adapter's GL and Vulkan backends: the same pixels (within 10
/// levels, at most 0.5% of them), and nothing logged as an error.
#[test]
fn the_gl_fallback_draws_what_vulkan_draws() {
    let dir = common::output_dir().join(format!("backends-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let quad = dir.join("switching.p3m");
    std::fs::write(&quad, switching_quad_p3m()).unwrap();
    let m3d = common::shared().join("fixtures/m3d");
    let cases = [
        // Inlined PNG: an sRGB RGBA texture with a plain view.
        (m3d.join("CesiumMan.m3d"), "0"),
        // DXT textures (as BC where the backend samples BC).
        (
            common::shared().join("fixtures/papa/radar_jammer.papa"),
            "0",
        ),
        // Voxels: no texture at all.
        (m3d.join("lantea.m3d"), "0"),
        // A one-layer texture array, then no texture.
        (quad.clone(), "0"),
        (quad.clone(), "0.6"),
    ];
    let mut quad_images = Vec::new();
    for (file, time) in cases {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let mut images = Vec::new();
        for backend in ["vulkan", "gl"] {
            let png = dir.join(format!("{name}-{time}-{backend}.png"));
            let out = Command::new(env!("CARGO_BIN_EXE_facet"))
                .args(["render", "--size", "160x120", "--time", time, "-o"])
                .arg(&png)
                .arg(&file)
                .env("WGPU_BACKEND", backend)
                .env("FACET_ADAPTER", common::SOFTWARE_ADAPTER)
                .env("RUST_LOG", "info")
                .env("XDG_CONFIG_HOME", dir.join("config"))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{name} on {backend}: {err}");
            let wanted = if backend == "gl" {
                "Gl backend"
            } else {
                "Vulkan backend"
            };
            assert!(err.contains(wanted), "{name}: not drawn on {wanted}: {err}");
            // wgpu's GL backend logs its EGL platform probes as errors
            // when one is not there (it goes on to the next): those aside,
            // nothing may be logged as an error.
            let errors = err
                .lines()
                .filter(|l| l.contains("ERROR") && !l.contains("gles::egl"))
                .count();
            assert_eq!(errors, 0, "{name} on {backend}: {err}");
            images.push(image::open(&png).unwrap().to_rgba8());
        }
        let differing = images[0]
            .pixels()
            .zip(images[1].pixels())
            .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 10))
            .count();
        let total = (images[0].width() * images[0].height()) as usize;
        assert!(
            differing as f64 <= total as f64 * 0.005,
            "{name} at {time} s: {differing} of {total} pixels differ between Vulkan and GL"
        );
        if file == quad {
            quad_images.push(images.pop().unwrap());
        }
    }
    // The checker's red texels (blended with the blue ones where the
    // sampler filters) are there while the texture is, not after.
    let reddish = |img: &image::RgbaImage| {
        img.pixels()
            .filter(|p| p[0] > p[1].max(p[2]).saturating_add(60))
            .count()
    };
    assert!(
        reddish(&quad_images[0]) > 500,
        "{}",
        reddish(&quad_images[0])
    );
    assert_eq!(reddish(&quad_images[1]), 0);
}
