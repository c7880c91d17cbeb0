//! Shared test helpers: the shared fixtures folder, GPU set-up, image compare.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

#[allow(dead_code)]
mod models;
pub mod mutate;
#[allow(unused_imports)]
pub use models::{arm, quad};

/// `../shared` beside the checkout (CI has it). Panics with a clear message
/// when it is missing: tests that need it must not pass silently.
pub fn shared() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    assert!(
        p.join("fixtures").is_dir(),
        "this test needs the shared fixtures at {} (CI checks them out beside the repository)",
        p.display()
    );
    p
}

/// What the reference SDK m3d.h computes for the shared M3D fixture `name`
/// (`fixtures/m3d/reference/NAME.json.gz`; its README gives the layout).
pub fn m3d_reference(name: &str) -> serde_json::Value {
    let path = shared().join(format!("fixtures/m3d/reference/{name}.json.gz"));
    let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&gunzip(&gz)).unwrap()
}

/// gzip's 10-byte header (with its optional extra field and file name),
/// the raw DEFLATE stream, then the 8-byte trailer.
fn gunzip(gz: &[u8]) -> Vec<u8> {
    assert_eq!(&gz[..3], &[0x1F, 0x8B, 8], "gzip with DEFLATE");
    let flags = gz[3];
    let mut at = 10;
    if flags & 4 != 0 {
        at += 2 + u16::from_le_bytes([gz[10], gz[11]]) as usize;
    }
    if flags & 8 != 0 {
        at += gz[at..].iter().position(|&b| b == 0).unwrap() + 1;
    }
    miniz_oxide::inflate::decompress_to_vec(&gz[at..gz.len() - 8]).unwrap()
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `cmd` and returns its standard output, after asserting that it
/// succeeded (its standard error the message otherwise).
pub fn stdout_of(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn output_dir() -> PathBuf {
    let d = repo().join("target/test-output");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Reads back `count` vertices of a skinned output stream.
pub fn read_stream(
    gpu: &facet::gpu::Gpu,
    buffer: &wgpu::Buffer,
    count: usize,
) -> Vec<facet::gpu::skinning::PosNormal> {
    let size = (count * std::mem::size_of::<facet::gpu::skinning::PosNormal>()) as u64;
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
    gpu.queue.submit([enc.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let view = staging.slice(..).get_mapped_range().unwrap();
    bytemuck::cast_slice(&view).to_vec()
}

/// The GPU compute shader's skinned positions of every mesh of `scene`
/// posed by `pose` (`None` for meshes without a skin), in scene order.
pub fn gpu_skinned_positions(
    gpu: &facet::gpu::Gpu,
    scene: &facet::scene::Scene,
    pose: &facet::anim::Pose,
) -> Vec<Option<Vec<glam::Vec3>>> {
    let renderer = facet::gpu::Renderer::new(gpu, facet::gpu::capture::CAPTURE_FORMAT, 1);
    let mut gs = facet::gpu::GpuScene::new(gpu, &renderer, scene);
    gs.set_pose(gpu, &renderer, &pose.skin);
    let batch = gs.skin.as_ref().expect("scene has skinned meshes");
    let got = read_stream(gpu, &batch.dst, batch.vertex_count as usize);
    let mut offset = 0;
    scene
        .meshes
        .iter()
        .map(|m| {
            m.skin.as_ref()?;
            let n = m.positions.len();
            let out = got[offset..offset + n]
                .iter()
                .map(|v| glam::Vec3::from(v.position))
                .collect();
            offset += n;
            Some(out)
        })
        .collect()
}

/// The adapter every GPU test runs on, by name: the software rasteriser
/// the reference images were made with, so that every machine compares
/// like with like (a machine with a real GPU still tests on it).
pub const SOFTWARE_ADAPTER: &str = "llvmpipe";

/// A headless device on [`SOFTWARE_ADAPTER`]; fails loudly when there is
/// none.
pub fn gpu() -> facet::gpu::Gpu {
    gpu_named(SOFTWARE_ADAPTER)
}

/// The device for tests that hold the GPU's results against values worked
/// out on the CPU and compare no pictures with references (skinning,
/// material animation, uploads): [`SOFTWARE_ADAPTER`], or the adapter
/// `FACET_TEST_ADAPTER` names (part of its name, as `FACET_ADAPTER` takes
/// it), so that they can be run on a real GPU too. Picture tests stay on
/// the software adapter their references were made with.
///
/// A named adapter's device is made once for the whole test binary and
/// kept to its end. NVIDIA's driver (580.159.04, on an H200) deadlocked in
/// about half of the runs of tests/upload.rs when its tests, side by side
/// on their threads, each made and dropped a device of their own: one
/// thread in `vkDestroyDevice`, one in `vkDestroyInstance`, two creating
/// render pipelines and one exiting, all waiting on the driver's locks
/// (docs/robustness.md). wgpu's error scopes are per thread, so tests
/// sharing one device still see only their own errors. The software
/// adapter keeps a device a test.
pub fn gpu_under_test() -> TestGpu {
    static SHARED: std::sync::OnceLock<facet::gpu::Gpu> = std::sync::OnceLock::new();
    match std::env::var("FACET_TEST_ADAPTER") {
        Ok(name) if !name.is_empty() => TestGpu::Shared(SHARED.get_or_init(|| gpu_named(&name))),
        _ => TestGpu::Own(gpu()),
    }
}

/// [`gpu_under_test`]'s device: a test's own, or the one the binary shares.
pub enum TestGpu {
    Own(facet::gpu::Gpu),
    Shared(&'static facet::gpu::Gpu),
}

impl std::ops::Deref for TestGpu {
    type Target = facet::gpu::Gpu;
    fn deref(&self) -> &facet::gpu::Gpu {
        match self {
            TestGpu::Own(g) => g,
            TestGpu::Shared(g) => g,
        }
    }
}

fn gpu_named(name: &str) -> facet::gpu::Gpu {
    match facet::gpu::Gpu::headless_named(name) {
        Ok(g) => {
            eprintln!("GPU adapter: {}", g.describe());
            g
        }
        Err(e) => {
            panic!(
                "this test needs the GPU adapter '{name}' (scripts/test installs the software one): {e}"
            )
        }
    }
}

/// Per-pixel threshold: a pixel differs when any channel differs by more than
/// `PIXEL_TOLERANCE` (of 255). A render matches when at most
/// `MAX_DIFFERING_FRACTION` of its pixels differ.
pub const PIXEL_TOLERANCE: u8 = 10;
pub const MAX_DIFFERING_FRACTION: f64 = 0.005;

/// Whether a run may rewrite reference images, from the value of its
/// variable (`FACET_BLESS`, `UPDATE_SNAPSHOTS`) and whether `CI` is set:
/// only `1` rewrites, `0` or nothing compares, and a run in CI never
/// rewrites (asking it to is an error, as is any other value).
pub fn bless_decision(var: &str, value: Option<&str>, ci: bool) -> Result<bool, String> {
    match (value, ci) {
        (None | Some("0"), _) => Ok(false),
        (Some("1"), false) => Ok(true),
        (Some("1"), true) => Err(format!(
            "{var}=1 in CI: references are never rewritten by CI; bless on a workstation"
        )),
        (Some(v), _) => Err(format!(
            "{var}={v:?}: set {var}=1 to rewrite the references, or leave it unset"
        )),
    }
}

/// [`bless_decision`] for this process's environment (panics on an error).
pub fn blessing(var: &str) -> bool {
    let value = std::env::var(var).ok();
    bless_decision(var, value.as_deref(), std::env::var_os("CI").is_some())
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Compares `actual` with `tests/reference/NAME.png`. `FACET_BLESS=1` rewrites
/// the reference instead (never in CI; see [`bless_decision`]) and says so.
/// On failure the actual and diff images are written to `target/test-output/`.
pub fn assert_matches_reference(name: &str, actual: &image::RgbaImage) {
    let reference = repo().join("tests/reference").join(format!("{name}.png"));
    if blessing("FACET_BLESS") {
        std::fs::create_dir_all(reference.parent().unwrap()).unwrap();
        let before = std::fs::read(&reference).ok();
        actual.save(&reference).unwrap();
        let changed = before.as_deref() != Some(&std::fs::read(&reference).unwrap()[..]);
        eprintln!(
            "FACET_BLESS=1: {} {}",
            if changed {
                "rewrote"
            } else {
                "kept (same bytes)"
            },
            reference.display()
        );
        return;
    }
    let expected = image::open(&reference)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (FACET_BLESS=1 cargo test creates it)",
                reference.display()
            )
        })
        .to_rgba8();
    let out = output_dir();
    let save_failure = |diff: &image::RgbaImage| {
        actual.save(out.join(format!("{name}.actual.png"))).unwrap();
        diff.save(out.join(format!("{name}.diff.png"))).unwrap();
    };
    if expected.dimensions() != actual.dimensions() {
        save_failure(actual);
        panic!(
            "{name}: size {:?} differs from the reference {:?}",
            actual.dimensions(),
            expected.dimensions()
        );
    }
    let mut diff = image::RgbaImage::new(actual.width(), actual.height());
    let mut differing = 0usize;
    for (x, y, a) in actual.enumerate_pixels() {
        let e = expected.get_pixel(x, y);
        let d = (0..4).map(|c| a.0[c].abs_diff(e.0[c])).max().unwrap();
        if d > PIXEL_TOLERANCE {
            differing += 1;
            diff.put_pixel(x, y, image::Rgba([255, 0, 255, 255]));
        } else {
            let g = a.0[0] / 3 + a.0[1] / 3 + a.0[2] / 3;
            diff.put_pixel(x, y, image::Rgba([g / 2, g / 2, g / 2, 255]));
        }
    }
    let frac = differing as f64 / (actual.width() * actual.height()) as f64;
    if frac > MAX_DIFFERING_FRACTION {
        save_failure(&diff);
        panic!(
            "{name}: {differing} pixels ({:.3}%) differ by more than {PIXEL_TOLERANCE}/255 from {} (allowed {:.3}%); actual and diff in {}",
            frac * 100.0,
            reference.display(),
            MAX_DIFFERING_FRACTION * 100.0,
            out.display()
        );
    }
}

/// A PNG whose header declares `w` x `h` RGBA, assembled from the
/// PNG spec: signature, IHDR (width, height big-endian, bit depth 8,
/// colour type 6, compression 0, filter 0, interlace 0) with its CRC-32
/// over type and data, an empty IDAT, IEND. No pixels: the decoder must
/// stop at the header.
pub fn png_header_only(w: u32, h: u32) -> Vec<u8> {
    png_header_only_as(w, h, 8, 6)
}

/// [`png_header_only`] with another bit depth and colour type; colour
/// type 3 (indexed) gets the PLTE chunk the spec requires before the
/// image data, of one entry (grey 128).
pub fn png_header_only_as(w: u32, h: u32, depth: u8, colour: u8) -> Vec<u8> {
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend(w.to_be_bytes());
    ihdr.extend(h.to_be_bytes());
    ihdr.extend([depth, colour, 0, 0, 0]);
    let mut png = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    png.extend(13u32.to_be_bytes());
    png.extend(&ihdr);
    png.extend(crc32(&ihdr).to_be_bytes());
    if colour == 3 {
        let plte = b"PLTE\x80\x80\x80";
        png.extend(3u32.to_be_bytes());
        png.extend(plte);
        png.extend(crc32(plte).to_be_bytes());
    }
    // An IDAT of an empty zlib stream (the decoder reads up to the first
    // IDAT before it reports the header).
    let mut idat = b"IDAT".to_vec();
    idat.extend([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
    png.extend(8u32.to_be_bytes());
    png.extend(&idat);
    png.extend(crc32(&idat).to_be_bytes());
    png.extend(0u32.to_be_bytes());
    png.extend(b"IEND");
    png.extend(crc32(b"IEND").to_be_bytes());
    png
}

/// CRC-32 as PNG chunks use it (ISO 3309, reflected 0xEDB88320), bit by bit.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Writes into `dir` the two files whose textures declare 30000 x 30000
/// (issue 19): the demo P3M naming an external `huge.png` (written beside
/// it), and viper.m3d with its inlined PNG replaced. Returns (P3M, M3D).
pub fn huge_image_models(dir: &Path) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("huge.png"), png_header_only(30000, 30000)).unwrap();
    let mut m = facet::generators::p3m::demo_model();
    m.textures[0] = facet::formats::p3m::Texture::External {
        path: "huge".into(),
        written_as_embedded: false,
    };
    let p3m = dir.join("huge_texture.p3m");
    std::fs::write(&p3m, facet::formats::p3m_write::encode(&m).unwrap()).unwrap();
    let viper = std::fs::read(shared().join("fixtures/m3d/viper.m3d")).unwrap();
    let mut v = facet::formats::m3d::decode(&viper).unwrap();
    assert_eq!(v.assets.len(), 1, "viper.m3d inlines one PNG");
    v.assets[0].data = png_header_only(30000, 30000);
    let m3d = dir.join("huge_texture.m3d");
    std::fs::write(&m3d, facet::formats::m3d_write::encode(&v, true).unwrap()).unwrap();
    (p3m, m3d)
}

/// Companion files answered by `answer` (the lookup and whether a file is
/// there: its path and bytes), with a model stem and no siblings: for
/// converters tested without a disk.
#[allow(dead_code)] // each test binary uses what it needs of this module
pub struct Answers<F> {
    pub stem: Option<&'static str>,
    pub answer: F,
}

impl<F> facet::scene::companions::Companions for Answers<F>
where
    F: Fn(facet::scene::companions::Lookup<'_>) -> Option<(PathBuf, Vec<u8>)>,
{
    fn find(
        &self,
        lookup: facet::scene::companions::Lookup<'_>,
    ) -> Result<facet::scene::companions::Found, facet::scene::companions::Missing> {
        (self.answer)(lookup)
            .map(|(path, bytes)| facet::scene::companions::Found { path, bytes })
            .ok_or_default()
    }

    fn model_stem(&self) -> Option<String> {
        self.stem.map(String::from)
    }

    fn siblings(
        &self,
        _: &str,
        _: usize,
        _: &dyn Fn(&[u8]) -> bool,
    ) -> Vec<facet::scene::companions::Sibling> {
        Vec::new()
    }
}

trait OkOrDefault<T> {
    fn ok_or_default<E: Default>(self) -> Result<T, E>;
}

impl<T> OkOrDefault<T> for Option<T> {
    fn ok_or_default<E: Default>(self) -> Result<T, E> {
        self.ok_or_else(E::default)
    }
}

/// A linked (by media path) Papa texture-table entry.
#[allow(dead_code)]
pub fn linked_papa_texture(name: &str) -> facet::formats::papa::Texture {
    facet::formats::papa::Texture {
        name: name.into(),
        format: None,
        mips: 0,
        srgb: false,
        width: 0,
        height: 0,
        data: facet::formats::papa::TextureData::Linked,
    }
}

/// The generator's small map (2 x 1 x 2 sectors) as the viewer loads it:
/// written by the PMF writer, then read back through `load`.
pub fn small_map_scene() -> facet::scene::Scene {
    use facet::generators::pmf;
    let bytes = facet::formats::pmf_write::encode(&pmf::generate(&pmf::Params::SMALL)).unwrap();
    facet::load::load_bytes("small.pmf", &bytes, None)
        .unwrap()
        .scene
}
