//! PlatinumSrc files as the engine and its tools write them (issue 13).
//!
//! Every file the decoder is tested on here is assembled byte by byte in the
//! test, field by field from the spec text (the comments quote the spec
//! lines), never by `p3m_write` or `ptf_write`. Expected poses and rest
//! frames are worked out by hand in the comments and written as literals.

mod common;
use facet::formats::p3m::{self, P3mLayout};
use facet::formats::ptf::{self, PtfFormat, PtfLayout};
use glam::{Mat4, Vec3};
use std::f32::consts::FRAC_PI_2;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Little-endian byte assembly, nothing more: the layout is in each test.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f32s(&mut self, v: &[f32]) -> &mut Self {
        for x in v {
            self.0.extend_from_slice(&x.to_le_bytes());
        }
        self
    }
    fn raw(&mut self, v: &[u8]) -> &mut Self {
        self.0.extend_from_slice(v);
        self
    }
}

/// A string table built alongside: `at(s)` is the u16 offset of `s`.
#[derive(Default)]
struct Table(Vec<u8>);

impl Table {
    fn at(&mut self, s: &str) -> u16 {
        let off = self.0.len() as u16;
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        off
    }
}

fn lz4_frame(texels: &[u8]) -> Vec<u8> {
    let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
    enc.write_all(texels).unwrap();
    enc.finish().unwrap()
}

// ---------------------------------------------------------------- P3M 2024

/// A file in the layout of `specs/p3m-2024.txt`, as the engine's Blender
/// exporter writes it: two parts (one with normals, one without), one
/// material, one external texture, two bones and an action keyed on two
/// rotation axes. `arm_tail` is the second bone's tail (P3M space);
/// `texture_type` the external texture's type byte (1 EXTERNAL, or 0 as the
/// exporter's `addexttex` writes it).
fn p3m_2024_with(arm_tail: [f32; 3], texture_type: u8) -> Vec<u8> {
    let mut t = Table::default();
    let mut b = Bytes::default();
    // Header: <char[3]: {'P', '3', 'M'}> <u8: Major version> <u8: Flags (reserved)>
    b.raw(b"P3M").u8(0).u8(0);
    // <u8: Part count> <u8[0..32]: Part visibility bitmask (LSByte to MSByte)>
    // Part 0 visible, part 1 hidden: bit 0 of byte 0.
    b.u8(2).u8(0b01);
    // Part: <u8: <7 bits: 0> <1 bit: Has normals>> <<String>: Name> <u8: Material index>
    b.u8(1).u16(t.at("body")).u8(0);
    // <u16: Vertex count> [Vertex]... [ [Normal]... ]; Vertex: float[3] XYZ, float[2] UV
    b.u16(3);
    b.f32s(&[0.0, 0.0, 0.0, 0.0, 0.0]);
    b.f32s(&[1.0, 0.0, 0.0, 1.0, 0.0]);
    b.f32s(&[0.0, 1.0, 0.0, 0.0, 1.0]);
    // Normal: float[3], one a vertex, after all vertices.
    b.f32s(&[0.0, 0.0, 1.0])
        .f32s(&[0.0, 0.0, 1.0])
        .f32s(&[0.0, 0.0, 1.0]);
    // <u16: Index count> [u16: Index]...
    b.u16(3).u16(0).u16(1).u16(2);
    // <u8: Weight group count> [Weight group]...; <<String>: Bone name> <Weight range>...
    b.u8(1).u16(t.at("root"));
    // Weight range: <u16: Vertices to skip> <u16: Weight count> [u8: Weight]...
    b.u16(1).u16(2).u8(255).u8(127);
    b.u16(0).u16(0); // count 0 terminates
    // Part 1: no normals (flags 0).
    b.u8(0).u16(t.at("fin")).u8(0);
    b.u16(3);
    b.f32s(&[0.0, 0.0, 1.0, 0.25, 0.75]);
    b.f32s(&[0.0, 1.0, 1.0, 0.5, 0.5]);
    b.f32s(&[1.0, 1.0, 1.0, 0.75, 0.25]);
    b.u16(3).u16(2).u16(1).u16(0);
    b.u8(0);
    // <u8: Material count>; Material: <u8: render mode> <u8: Texture index>
    // <u8[4]: RGBA color> <u8[3]: RGB emission> <u8: Shading>
    b.u8(1)
        .u8(1)
        .u8(0)
        .raw(&[200, 100, 50, 255])
        .raw(&[1, 2, 3])
        .u8(128);
    // <u8: Texture count>; <u8: P3M_TEXTYPE_EXTERNAL> <<String>: Resource path>
    b.u8(1).u8(texture_type).u16(t.at("textures/wood"));
    // <u8: Bone count>; Bone: <<String>: Name> <float[3]: Head> <float[3]: Tail> <u8: Child count>
    // "root" runs along P3M +Z, which is Blender +Y: its rest frame is
    // Blender's identity.
    b.u8(2);
    b.u16(t.at("root"))
        .f32s(&[0.0, 0.0, 0.0])
        .f32s(&[0.0, 0.0, 1.0])
        .u8(1);
    b.u16(t.at("arm"))
        .f32s(&[0.0, 0.0, 1.0])
        .f32s(&arm_tail)
        .u8(0);
    // <u8: Animation count>; Animation: <<String>: Name> <u8: Action count>
    // [ <u8: Action index> <float: Speed> <u16: Start> <u16: End> ]...
    b.u8(1).u16(t.at("wave")).u8(1);
    b.u8(0).f32s(&[1.0]).u16(0).u16(10);
    // <u8: Action count>; Action: <u32: Microseconds per frame> <u8: part list mode>
    // <u8: Part count> <<String>: Part name>... <u8: Bone count> [Action data]...
    b.u8(1).u32(100_000).u8(0).u8(0).u8(1);
    // Action data: <<String>: Bone name> <u8: T count> <u8: R count> <u8: S count>
    b.u16(t.at("root")).u8(0).u8(2).u8(0);
    // [u8: Rotation frame skip]...: frames 0 and 0 + 9 + 1 = 10.
    b.u8(0).u8(9);
    // [Rotation <Action interp mode>]...: NONE 0, LINEAR 1.
    b.u8(0).u8(1);
    // [float[3]: Rotation data]...: (x, y, z) = (0, 0, 0) then (90°, 0, 90°).
    b.f32s(&[0.0, 0.0, 0.0]).f32s(&[FRAC_PI_2, 0.0, FRAC_PI_2]);
    // <char[1...]: String table {..., 0}>
    b.raw(&t.0);
    b.0
}

fn p3m_2024(arm_tail: [f32; 3]) -> Vec<u8> {
    p3m_2024_with(arm_tail, 1)
}

#[test]
fn a_2024_layout_file_decodes_field_by_field() {
    let m = p3m::decode(&p3m_2024([0.0, 0.0, 2.0])).unwrap();
    assert_eq!(m.layout, P3mLayout::Y2024);
    assert_eq!(m.parts.len(), 2);
    let (body, fin) = (&m.parts[0], &m.parts[1]);
    assert_eq!((body.name.as_str(), body.visible), ("body", true));
    assert_eq!((fin.name.as_str(), fin.visible), ("fin", false));
    assert_eq!(body.positions[1], [1.0, 0.0, 0.0]);
    assert_eq!(body.uvs.as_ref().unwrap()[2], [0.0, 1.0]);
    assert_eq!(body.normals.as_ref().unwrap()[0], [0.0, 0.0, 1.0]);
    assert_eq!(body.indices, [0, 1, 2]);
    // Weights (b + 1) / 256 after skipping vertex 0.
    let w: Vec<(usize, f32)> = body.weight_groups[0].iter().collect();
    assert_eq!(w, [(1, 1.0), (2, 0.5)]);
    assert_eq!(body.weight_groups[0].bone, "root");
    assert!(fin.normals.is_none());
    assert_eq!(fin.positions[2], [1.0, 1.0, 1.0]);
    assert_eq!(fin.uvs.as_ref().unwrap()[0], [0.25, 0.75]);
    assert_eq!(fin.indices, [2, 1, 0]);
    let mat = &m.materials[0];
    assert_eq!(mat.render_mode, p3m::RenderMode::Add);
    assert_eq!(mat.data.texture, Some(0));
    assert_eq!(mat.data.color, [200, 100, 50, 255]);
    assert_eq!(mat.data.emission, [1, 2, 3]);
    assert_eq!(mat.data.shading, 128);
    assert_eq!(mat.data.matcap, None);
    assert!(
        matches!(&m.textures[0], p3m::Texture::External { path, written_as_embedded: false } if path == "textures/wood")
    );
    assert_eq!(m.bones[1].name, "arm");
    assert_eq!(m.bones[1].parent, Some(0));
    assert_eq!(m.animations[0].actions[0].end, 10);
    let rot = &m.actions[0].bones[0].rotation;
    assert_eq!(rot[1].value, [FRAC_PI_2, 0.0, FRAC_PI_2]);
    assert_eq!(rot[1].interp, p3m::Interp::Linear);
    assert!(m.user_fields.is_empty());
}

#[test]
fn info_and_the_scene_say_which_layout_was_read() {
    let loaded = facet::load::load_bytes("exported.p3m", &p3m_2024([0.0, 0.0, 2.0]), None).unwrap();
    let v = facet::cli::info::to_json(&loaded);
    assert_eq!(v["p3m"]["layout"], "2024");
    assert_eq!(v["summary"]["parts"], 2);
    assert_eq!(v["summary"]["bones"], 2);
    let text = facet::cli::info::to_text(&loaded);
    assert!(text.contains("layout: 2024 (specs/p3m-2024.txt)"), "{text}");
    let demo =
        facet::load::load_bytes("demo.p3m", &facet::generators::p3m::demo_bytes(), None).unwrap();
    assert_eq!(facet::cli::info::to_json(&demo)["p3m"]["layout"], "current");
}

/// The same triangle as the 2024 file's first part in the current layout
/// (`specs/p3m.txt`), with a material override and a user-defined field.
fn p3m_current() -> Vec<u8> {
    let mut t = Table::default();
    let mut b = Bytes::default();
    b.raw(b"P3M").u8(0).u8(0);
    b.u8(1).u8(0b1);
    // Part: <u8: <6 bits: 0> <1 bit: Has normals> <1 bit: Has UVs>>
    b.u8(0b11).u16(t.at("body")).u8(0);
    // <u8: Material override count>; <<String>: Animation name> <u8: Priority> <u8: Material index>
    b.u8(1).u16(t.at("wave")).u8(5).u8(0);
    // <u16: Vertex count> [Vertex]... [ [UV]... ] [ [Normal]... ]
    b.u16(3);
    b.f32s(&[0.0, 0.0, 0.0])
        .f32s(&[1.0, 0.0, 0.0])
        .f32s(&[0.0, 1.0, 0.0]);
    b.f32s(&[0.0, 0.0]).f32s(&[1.0, 0.0]).f32s(&[0.0, 1.0]);
    b.f32s(&[0.0, 0.0, 1.0])
        .f32s(&[0.0, 0.0, 1.0])
        .f32s(&[0.0, 0.0, 1.0]);
    b.u16(3).u16(0).u16(1).u16(2);
    b.u8(0);
    // Material: <u8: <3 bits: 0> <1 bit: Animated> <4 bits: render mode>>
    // Material data: RGBA, RGB emission, shading, texture, matcap.
    b.u8(1)
        .u8(0)
        .raw(&[10, 20, 30, 40])
        .raw(&[50, 60, 70])
        .u8(80)
        .u8(0xFF)
        .u8(0xFF);
    b.u8(0); // textures
    b.u8(0); // bones
    b.u8(0); // animations
    b.u8(0); // actions
    // <u8: User-defined field count>; <<String>: Name> <u8: type> <String>
    b.u8(1).u16(t.at("author")).u8(0).u16(t.at("someone"));
    b.raw(&t.0);
    b.0
}

#[test]
fn a_current_layout_file_decodes_field_by_field() {
    let m = p3m::decode(&p3m_current()).unwrap();
    assert_eq!(m.layout, P3mLayout::Current);
    let p = &m.parts[0];
    assert_eq!(p.uvs.as_ref().unwrap()[1], [1.0, 0.0]);
    assert_eq!(p.normals.as_ref().unwrap()[2], [0.0, 0.0, 1.0]);
    assert_eq!(p.material_overrides[0].animation, "wave");
    assert_eq!(p.material_overrides[0].priority, 5);
    assert_eq!(m.materials[0].data.color, [10, 20, 30, 40]);
    assert_eq!(m.materials[0].data.shading, 80);
    assert_eq!(m.user_fields[0].name, "author");
    assert_eq!(m.user_fields[0].value_string(), "\"someone\"");
}

#[test]
fn a_file_that_fits_neither_layout_names_both_attempts() {
    // One part: flags 0, name 0, material 0 (bytes 7..=10), then the u16
    // 500 at 11..=12 and 28 bytes. The current layout reads 0xF4 = 244
    // material overrides at 11 (976 bytes from 12 = 0xC); the 2024 layout
    // reads 500 vertices (10,000 bytes from 13 = 0xD).
    let mut b = Bytes::default();
    b.raw(b"P3M")
        .u8(0)
        .u8(0)
        .u8(1)
        .u8(1)
        .u8(0)
        .u16(0)
        .u8(0)
        .u16(500);
    b.f32s(&[0.0; 7]);
    let e = p3m::decode(&b.0).unwrap_err().to_string();
    assert!(e.contains("fits neither"), "{e}");
    assert!(e.contains("current layout (specs/p3m.txt)"), "{e}");
    assert!(e.contains("2024 layout (specs/p3m-2024.txt)"), "{e}");
    assert!(
        e.contains("material overrides: data at offset 0xC needs 976 bytes"),
        "{e}"
    );
    assert!(
        e.contains("vertices: data at offset 0xD needs 10000 bytes"),
        "{e}"
    );
    // A bad magic is the same for both and said once.
    let e = p3m::decode(b"P3X\0\0").unwrap_err().to_string();
    assert!(!e.contains("fits neither"), "{e}");
}

#[test]
fn a_file_that_fits_both_layouts_is_refused() {
    // An empty model: six zero counts then "\0\0". The current layout reads
    // the 7th byte as the user-defined field count and a 1-byte table; the
    // 2024 layout has a 2-byte table. Both resolve every (no) string.
    let mut b = Bytes::default();
    b.raw(b"P3M").u8(0).u8(0).raw(&[0; 6]).raw(&[0, 0]);
    assert!(p3m::decode_as(&b.0, P3mLayout::Current).is_ok());
    assert!(p3m::decode_as(&b.0, P3mLayout::Y2024).is_ok());
    let e = p3m::decode(&b.0).unwrap_err().to_string();
    assert!(e.contains("fits both"), "{e}");
}

#[test]
fn exporter_tail_bug_opens_with_a_warning() {
    // The exporter writes a tail as (tail.x, head.z, head.y).
    let loaded = facet::load::load_bytes("bug.p3m", &p3m_2024([0.5, 0.0, 1.0]), None).unwrap();
    let w = &loaded.scene.warnings;
    assert!(
        w.iter().any(
            |w| w.contains("bone \"arm\": tail shares the head's Y and Z")
                && w.contains("known exporter bug")
        ),
        "{w:?}"
    );
    // A correct bone draws no such warning.
    let ok = facet::load::load_bytes("ok.p3m", &p3m_2024([0.0, 0.0, 2.0]), None).unwrap();
    assert!(!ok.scene.warnings.iter().any(|w| w.contains("exporter bug")));
}

#[test]
fn exporter_external_texture_with_the_embedded_type_opens_with_a_warning() {
    // `00 <u16 path>`: no u32 size and no "PTF" after it. Read as external.
    let bytes = p3m_2024_with([0.0, 0.0, 2.0], 0);
    let m = p3m::decode(&bytes).unwrap();
    assert!(matches!(
        &m.textures[0],
        p3m::Texture::External { path, written_as_embedded: true } if path == "textures/wood"
    ));
    let loaded = facet::load::load_bytes("bug.p3m", &bytes, None).unwrap();
    assert!(
        loaded
            .scene
            .warnings
            .iter()
            .any(|w| w.contains("EMBEDDED type byte") && w.contains("known exporter bug")),
        "{:?}",
        loaded.scene.warnings
    );
}

// ------------------------------------------------------------ ZXY posing

fn pose_at(scene: &facet::scene::Scene, clip: &str, t: f32) -> serde_json::Value {
    facet::cli::info::pose_json(scene, clip, t).unwrap()
}

fn vec3(v: &serde_json::Value) -> Vec3 {
    let a: Vec<f32> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    Vec3::new(a[0], a[1], a[2])
}

#[test]
fn rotations_are_blender_zxy() {
    // "root" has Blender's identity rest frame; its child "arm" starts at
    // root's tail, 1 unit along root's local +Y. At frame 10 (1.0 s) root
    // is keyed (x, y, z) = (90°, 0, 90°).
    //
    // ZXY (R = Ry·Rx·Rz), applied to the bone-local point (0, 1, 0):
    //   Rz(90°): (x, y, z) -> (x·0 - y·1, x·1 + y·0, z) = (-1, 0, 0)
    //   Rx(90°): (x, y·0 - z·1, y·1 + z·0)            = (-1, 0, 0)
    //   Ry(0)                                        = (-1, 0, 0)
    // XYZ (R = Rz·Ry·Rx) would give:
    //   Rx(90°): (0, 1·0 - 0, 1·1 + 0) = (0, 0, 1); Rz(90°): (0, 0, 1)
    // Blender (x, y, z) is scene (x, z, -y): ZXY puts arm's head at scene
    // (-1, 0, 0); XYZ would put it at scene (0, 1, 0).
    let loaded = facet::load::load_bytes("x.p3m", &p3m_2024([0.0, 0.0, 2.0]), None).unwrap();
    let pose = pose_at(&loaded.scene, "wave", 1.0);
    let arm = &pose["bones"][1];
    assert_eq!(arm["name"], "arm");
    let head = vec3(&arm["head"]);
    assert!(head.distance(Vec3::new(-1.0, 0.0, 0.0)) < 1e-5, "{head}");
    assert!(head.distance(Vec3::new(0.0, 1.0, 0.0)) > 1.0);
    // Root's tail is the same point; the stored tail is reported.
    let root_tail = vec3(&pose["bones"][0]["tail"]);
    assert!(
        root_tail.distance(Vec3::new(-1.0, 0.0, 0.0)) < 1e-5,
        "{root_tail}"
    );
    // At 0 s the key is (0, 0, 0): the rest pose. P3M (0, 0, 1) is scene (0, 0, -1).
    let rest = pose_at(&loaded.scene, "wave", 0.0);
    let head = vec3(&rest["bones"][1]["head"]);
    assert!(head.distance(Vec3::new(0.0, 0.0, -1.0)) < 1e-6, "{head}");
    // Matrices are column-major 4x4: the translation column is the head.
    let m: Vec<f32> = rest["bones"][1]["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    assert_eq!(m.len(), 16);
    assert!(Vec3::new(m[12], m[13], m[14]).distance(head) < 1e-6);
}

#[test]
fn pose_section_for_formats_without_stored_tails() {
    // Papa: the shared bot_sun with its sibling idle animation.
    let path = common::shared().join("fixtures/papa/bot_sun.papa");
    let loaded = facet::load::load_file(&path).unwrap();
    let clip = loaded.scene.clips[0].name.clone();
    let pose = pose_at(&loaded.scene, &clip, 0.25);
    let bones = pose["bones"].as_array().unwrap();
    assert_eq!(bones.len(), loaded.scene.skeleton.bones.len());
    assert!(
        bones
            .iter()
            .all(|b| b["tail"].is_null() && b["head"].is_array())
    );
    // An unknown clip names the clips there are.
    let e = facet::cli::info::pose_json(&loaded.scene, "nope", 0.0).unwrap_err();
    assert!(e.contains(&clip), "{e}");
}

// ------------------------------------------------------------ rest frames

fn axes(m: Mat4) -> [Vec3; 3] {
    [m.x_axis, m.y_axis, m.z_axis].map(|a| a.truncate())
}

fn assert_axes(m: Mat4, want: [Vec3; 3]) {
    for (got, want) in axes(m).into_iter().zip(want) {
        assert!(got.distance(want) < 1e-5, "{got} != {want}");
    }
}

#[test]
fn a_bone_half_a_degree_off_minus_y_gets_no_half_turn() {
    // Blender direction nor = (0, -cos a, sin a), a = 0.5°. theta = 1 + y =
    // 3.8e-5 <= 6.1e-3, but theta_alt = x² + z² = sin² a = 7.6e-5 is over
    // 2.5e-4² = 6.25e-8: the general branch, with theta from the Taylor
    // series. Its columns: X = (1 - x²/θ, -x, -xz/θ) = (1, 0, 0);
    // Y = nor; Z = (-xz/θ, -z, 1 - z²/θ) ≈ (0, -sin a, -cos a)
    // (z²/θ = sin²a / (sin²a/2 + sin⁴a/8) ≈ 1 + cos a).
    // In scene space (Blender (x, y, z) -> (x, z, -y)):
    //   X = (1, 0, 0), Y = (0, sin a, cos a), Z = (0, -cos a, sin a).
    // The old threshold (theta_alt > 2.5e-4) took the -Y branch: X = (-1, 0, 0).
    let a = 0.5f32.to_radians();
    let (s, c) = a.sin_cos();
    let head = Vec3::new(0.0, 1.0, 2.0);
    let m = facet::scene::from_p3m::rest_frame(head, head + Vec3::new(0.0, s, c));
    assert_axes(m, [Vec3::X, Vec3::new(0.0, s, c), Vec3::new(0.0, -c, s)]);
    assert!(m.w_axis.truncate().distance(head) < 1e-6);
}

#[test]
fn a_bone_exactly_on_minus_y_gets_the_half_turn() {
    // nor = (0, -1, 0): theta = 0, theta_alt = 0: Blender's special case,
    // diag(-1, -1, 1). Scene columns: X = (-1, 0, 0), Y = Blender -Y =
    // (0, 0, 1), Z = Blender +Z = (0, 1, 0).
    let m = facet::scene::from_p3m::rest_frame(Vec3::ZERO, Vec3::new(0.0, 0.0, 3.0));
    assert_axes(m, [-Vec3::X, Vec3::Z, Vec3::Y]);
}

// ------------------------------------------------------------------- PTF

fn fixture_texels() -> (Vec<u8>, Vec<u8>) {
    let bytes = std::fs::read(common::shared().join("fixtures/ptf/missing.ptf")).unwrap();
    // The 2024 fixture: 5-byte header, then the LZ4 frame.
    let frame = bytes[5..].to_vec();
    let texels = ptf::decode(&bytes).unwrap().pixels;
    (frame, texels)
}

#[test]
fn the_engines_2025_missing_ptf_decodes_to_64x64_rgba() {
    // The engine's missing.ptf at its latest commit: `50 54 46 00 01 66`
    // ('PTF', version 0, flags 1 = has alpha, size 0x66 = 2^6 x 2^6), then
    // an LZ4 frame of 64x64 RGBA: the same texels as the 2024 fixture.
    let (frame, texels) = fixture_texels();
    let mut file = vec![0x50, 0x54, 0x46, 0x00, 0x01, 0x66];
    file.extend_from_slice(&frame);
    let t = ptf::decode(&file).unwrap();
    assert_eq!(t.layout, PtfLayout::Y2025 { version: 0 });
    assert_eq!((t.width, t.height, t.format), (64, 64, PtfFormat::Rgba));
    assert_eq!(t.pixels, texels);
}

#[test]
fn ptf_2025_rgb_and_current_i_ia_are_told_apart_by_length() {
    // 4x2 texels (size byte: height 2^1 high nibble, width 2^2 low nibble).
    let head = |flags: u8| vec![b'P', b'T', b'F', 0, flags, 0x12];
    let file = |flags: u8, texels: &[u8]| {
        let mut f = head(flags);
        f.extend_from_slice(&lz4_frame(texels));
        f
    };
    let rgb: Vec<u8> = (0..8 * 3).collect();
    let t = ptf::decode(&file(0, &rgb)).unwrap();
    assert_eq!(
        (t.layout, t.format),
        (PtfLayout::Y2025 { version: 0 }, PtfFormat::Rgb)
    );
    assert_eq!((t.width, t.height), (4, 2));
    assert_eq!(&t.to_rgba8()[4..8], &[3, 4, 5, 255]);
    let i: Vec<u8> = (0..8).map(|x| x * 30).collect();
    let t = ptf::decode(&file(0, &i)).unwrap();
    assert_eq!(
        (t.layout, t.format),
        (PtfLayout::Current { version: 0 }, PtfFormat::I)
    );
    assert_eq!(&t.to_rgba8()[4..8], &[30, 30, 30, 255]);
    let ia: Vec<u8> = (0..16).collect();
    let t = ptf::decode(&file(1, &ia)).unwrap();
    assert_eq!(
        (t.layout, t.format),
        (PtfLayout::Current { version: 0 }, PtfFormat::Ia)
    );
    // Format 3 exists only in the current form.
    let rgba: Vec<u8> = (0..32).collect();
    let t = ptf::decode(&file(3, &rgba)).unwrap();
    assert_eq!(
        (t.layout, t.format),
        (PtfLayout::Current { version: 0 }, PtfFormat::Rgba)
    );
    // Neither length: both expectations are named.
    let e = ptf::decode(&file(0, &[0; 20])).unwrap_err().to_string();
    assert!(e.contains("24 as the 2025 form (RGB)"), "{e}");
    assert!(e.contains("8 as the current form (I)"), "{e}");
}

#[test]
fn ptf_2024_form_by_its_five_byte_header() {
    // <u8: <3 bits: 0> <1 bit: Has alpha> <4 bits: Resolution (2^n)>>: 0x01 = RGB 2x2.
    let rgb: Vec<u8> = (0..12).collect();
    let mut f = vec![b'P', b'T', b'F', 0, 0x01];
    f.extend_from_slice(&lz4_frame(&rgb));
    let t = ptf::decode(&f).unwrap();
    assert_eq!(t.layout, PtfLayout::Rev2024 { revision: 0 });
    assert_eq!((t.width, t.height, t.format), (2, 2, PtfFormat::Rgb));
    assert_eq!(t.pixels, rgb);
    let loaded = facet::load::load_bytes("t.ptf", &f, None).unwrap();
    assert!(facet::cli::info::to_text(&loaded).contains("generation: 2024"));
    assert_eq!(
        facet::cli::info::to_json(&loaded)["ptf"]["generation"],
        "2024"
    );
}

// ------------------------------------------------------------ corpus seeds

/// The 2024 P3M layout and the 2025 and current PTF forms, as seeds for the
/// fuzzer (`scripts/fuzz` seeds each target from `tests/corpus/<format>/`)
/// and the sweeps (tests/common/mutate.rs takes `tests/corpus/*/seed_*`):
/// the bundled and shared files are all the current P3M layout and the 2024
/// PTF form, so the other readers were reached only when a mutation
/// happened to make their headers. The seeds are the files assembled above
/// from the specs; `FACET_WRITE_SEEDS=1` writes them again after a change.
#[test]
fn the_corpus_seeds_are_the_spec_assembled_files() {
    let form = |flags: u8, texels: &[u8]| {
        // 'PTF', version 0, flags, size 0x12 (4 x 2 texels), the LZ4 frame.
        let mut f = vec![b'P', b'T', b'F', 0, flags, 0x12];
        f.extend_from_slice(&lz4_frame(texels));
        f
    };
    let seeds = [
        ("p3m/seed_2024_layout.p3m", p3m_2024([0.0, 0.0, 2.0])),
        // 24 bytes of 4 x 2 texels: RGB in the 2025 form.
        (
            "ptf/seed_2025_form.ptf",
            form(0, &(0..24).collect::<Vec<u8>>()),
        ),
        // 16 bytes with flag 1: IA in the current form.
        (
            "ptf/seed_current_form.ptf",
            form(1, &(0..16).collect::<Vec<u8>>()),
        ),
    ];
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    for (path, bytes) in seeds {
        let p = corpus.join(path);
        if std::env::var_os("FACET_WRITE_SEEDS").is_some() {
            std::fs::write(&p, &bytes).unwrap();
        }
        let kept = std::fs::read(&p).unwrap_or_default();
        assert!(
            kept == bytes,
            "{} is not this test's file: FACET_WRITE_SEEDS=1 cargo test --test platinum_files writes it",
            p.display()
        );
        facet::load::load_bytes(path, &bytes, None).unwrap_or_else(|e| panic!("{e}"));
    }
    let layouts = [
        format!(
            "{:?}",
            p3m::decode(&p3m_2024([0.0, 0.0, 2.0])).unwrap().layout
        ),
        format!("{:?}", ptf::decode(&form(0, &[0; 24])).unwrap().layout),
        format!("{:?}", ptf::decode(&form(1, &[0; 16])).unwrap().layout),
    ];
    assert_eq!(
        layouts,
        ["Y2024", "Y2025 { version: 0 }", "Current { version: 0 }"]
    );
}

// -------------------------------------------------------- resource paths

/// A small PlatinumSrc install:
/// ```text
/// main/internal/resources/textures/grad.ptf
/// main/games/demo/game.cfg
/// main/games/demo/textures/wood.ptf
/// main/games/demo/textures/stone.tga
/// main/games/other/textures/leaf.ptf
/// main/games/demo/models/thing.p3m   <- the model
/// main/games/demo/models/local.ptf
/// ```
fn game_tree(name: &str) -> PathBuf {
    let root = common::output_dir().join(format!("game-tree-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let main = root.join("main");
    let write = |p: &str, bytes: &[u8]| {
        let path = main.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    };
    // 1x1 PTFs (current form, format RGBA, size 0x00) of one colour each.
    let ptf = |rgba: [u8; 4]| {
        let mut f = vec![b'P', b'T', b'F', 0, 3, 0x00];
        f.extend_from_slice(&lz4_frame(&rgba));
        f
    };
    write("internal/resources/textures/grad.ptf", &ptf([1, 2, 3, 4]));
    write("games/demo/game.cfg", b"name = demo\n");
    write("games/demo/textures/wood.ptf", &ptf([10, 20, 30, 255]));
    write("games/other/textures/leaf.ptf", &ptf([40, 50, 60, 255]));
    write("games/demo/models/local.ptf", &ptf([70, 80, 90, 255]));
    // TGA: 18-byte header (no id, no colour map, type 2 = uncompressed true
    // colour, origin 0, 2x1, 24 bits, descriptor 0x20 = top-left origin),
    // then BGR texels.
    let mut tga = vec![0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 24, 0x20];
    tga.extend_from_slice(&[0, 0, 255, 255, 0, 0]); // red, blue
    write("games/demo/textures/stone.tga", &tga);
    main.join("games/demo/models/thing.p3m")
}

/// A 2024-layout model naming `paths` as external textures.
fn model_with_textures(paths: &[&str]) -> Vec<u8> {
    let mut t = Table::default();
    let mut b = Bytes::default();
    b.raw(b"P3M").u8(0).u8(0).u8(0);
    b.u8(0); // materials
    b.u8(paths.len() as u8);
    for p in paths {
        b.u8(1).u16(t.at(p));
    }
    b.raw(&[0; 3]); // bones, animations, actions
    b.raw(&t.0);
    b.0
}

fn load_model(path: &Path, bytes: &[u8]) -> facet::load::Loaded {
    std::fs::write(path, bytes).unwrap();
    facet::load::load_file(path).unwrap()
}

#[test]
fn external_textures_resolve_as_the_engine_does() {
    let model = game_tree("resolve");
    let loaded = load_model(
        &model,
        &model_with_textures(&[
            "textures/wood",
            "self:textures/stone",
            ":textures/wood.ptf",
            "game:other/textures/leaf",
            "internal:textures/grad",
            "local",
            "textures/nothing",
            "user:textures/saved",
            "../../../outside",
        ]),
    );
    let tex = &loaded.scene.textures;
    let pixel = |i: usize| tex[i].rgba8[..4].to_vec();
    let source = |i: usize| match &tex[i].source {
        facet::scene::TextureSource::External(p) => p.clone(),
        other => panic!("texture {i}: {other:?}"),
    };
    let games = model.parent().unwrap().parent().unwrap().parent().unwrap();
    let main = games.parent().unwrap();
    // No prefix: the game directory, `.ptf` tried after the name as written.
    assert_eq!(pixel(0), [10, 20, 30, 255]);
    assert_eq!(source(0), games.join("demo/textures/wood.ptf"));
    // self: and .tga (red then blue, top row first).
    assert_eq!(source(1), games.join("demo/textures/stone.tga"));
    assert_eq!((tex[1].width, tex[1].height), (2, 1));
    assert_eq!(&tex[1].rgba8, &[255, 0, 0, 255, 0, 0, 255, 255]);
    // ':' and a name with its extension.
    assert_eq!(pixel(2), [10, 20, 30, 255]);
    // game:<dir>/ and internal:.
    assert_eq!(source(3), games.join("other/textures/leaf.ptf"));
    assert_eq!(source(4), main.join("internal/resources/textures/grad.ptf"));
    assert_eq!(pixel(4), [1, 2, 3, 4]);
    // Not in the game directory: the model's own folder.
    assert_eq!(source(5), games.join("demo/models/local.ptf"));
    // Missing: a checkerboard, and a warning listing every path tried.
    assert!(matches!(
        tex[6].source,
        facet::scene::TextureSource::Missing(_)
    ));
    let w = loaded
        .scene
        .warnings
        .iter()
        .find(|w| w.contains("textures/nothing"))
        .expect("a warning for the missing texture");
    for ext in ["", ".ptf", ".png", ".jpg", ".tga", ".bmp"] {
        for dir in ["demo/textures/nothing", "demo/models/textures/nothing"] {
            let p = games.join(format!("{dir}{ext}"));
            assert!(w.contains(&p.display().to_string()), "{p:?} not in {w}");
        }
    }
    // user: is skipped with a note; a path climbing out is not followed.
    assert!(
        loaded
            .scene
            .warnings
            .iter()
            .any(|w| w.contains("user: paths"))
    );
    assert!(
        loaded
            .scene
            .warnings
            .iter()
            .any(|w| w.contains("outside") && w.contains("not followed"))
    );
}

#[test]
fn the_exported_model_draws_its_texture_from_the_game_directory() {
    // The issue's "done when": the 2024-layout file with two parts, bones
    // and a two-axis action, opened from inside a game, finds textures/wood.
    let model = game_tree("exported");
    let loaded = load_model(&model, &p3m_2024([0.0, 0.0, 2.0]));
    assert_eq!(loaded.scene.textures[0].rgba8[..4], [10, 20, 30, 255]);
    assert_eq!(loaded.scene.materials[0].texture, Some(0));
    assert!(
        loaded.scene.warnings.is_empty(),
        "{:?}",
        loaded.scene.warnings
    );
}

#[test]
fn without_a_game_directory_the_models_folder_is_used() {
    let dir = common::output_dir().join(format!("lone-model-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("textures")).unwrap();
    let mut f = vec![b'P', b'T', b'F', 0, 3, 0x00];
    f.extend_from_slice(&lz4_frame(&[9, 8, 7, 6]));
    std::fs::write(dir.join("textures/wood.ptf"), f).unwrap();
    let loaded = load_model(
        &dir.join("lone.p3m"),
        &model_with_textures(&["textures/wood"]),
    );
    assert_eq!(loaded.scene.textures[0].rgba8[..4], [9, 8, 7, 6]);
}
