//! The bundled demo model (`assets/demo.p3m`), built through the P3M writer:
//! a small lantern robot with several parts, an embedded texture, a matcap,
//! an additive glow, three bones with weights, an action and an animation, and
//! user-defined fields. `facet gen-assets` rewrites it.

use crate::formats::p3m::*;
use crate::formats::ptf::{Ptf, PtfFormat, PtfLayout};
use glam::{Vec2, Vec3};
use std::f32::consts::TAU;

/// Geometry in scene space (right-handed, CCW front, UV top-left origin).
#[derive(Default)]
pub struct Geo {
    pub p: Vec<Vec3>,
    pub n: Vec<Vec3>,
    pub uv: Vec<Vec2>,
    pub i: Vec<u16>,
}

impl Geo {
    fn vert(&mut self, p: Vec3, n: Vec3, uv: Vec2) -> u16 {
        self.p.push(p);
        self.n.push(n);
        self.uv.push(uv);
        (self.p.len() - 1) as u16
    }

    /// An axis-aligned box with per-face normals and UVs.
    pub fn cuboid(center: Vec3, half: Vec3) -> Geo {
        let mut g = Geo::default();
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                let n =
                    Vec3::from_array(std::array::from_fn(|k| if k == axis { sign } else { 0.0 }));
                let u = Vec3::from_array(std::array::from_fn(|k| {
                    if k == (axis + 1) % 3 { 1.0 } else { 0.0 }
                }));
                let v = n.cross(u);
                let c = center + n * half;
                let (hu, hv) = ((u * half).length(), (v * half).length());
                let base = g.p.len() as u16;
                for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                    g.vert(
                        c + u * hu * a + v * hv * b,
                        n,
                        Vec2::new((a + 1.0) * 0.5, (1.0 - b) * 0.5),
                    );
                }
                g.i.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
            }
        }
        g
    }

    /// A UV sphere.
    pub fn sphere(center: Vec3, r: f32, seg: u16, rings: u16) -> Geo {
        let mut g = Geo::default();
        for y in 0..=rings {
            let v = y as f32 / rings as f32;
            let th = v * std::f32::consts::PI;
            for x in 0..=seg {
                let u = x as f32 / seg as f32;
                let ph = u * TAU;
                let n = Vec3::new(th.sin() * ph.sin(), th.cos(), th.sin() * ph.cos());
                g.vert(center + n * r, n, Vec2::new(u, v));
            }
        }
        let row = seg + 1;
        for y in 0..rings {
            for x in 0..seg {
                let a = y * row + x;
                let (b, c, d) = (a + row, a + row + 1, a + 1);
                g.i.extend_from_slice(&[a, b, c, a, c, d]);
            }
        }
        g
    }

    /// A capped cylinder along +Y.
    pub fn cylinder(base: Vec3, r: f32, h: f32, seg: u16) -> Geo {
        let mut g = Geo::default();
        for x in 0..=seg {
            let u = x as f32 / seg as f32;
            let (s, c) = (u * TAU).sin_cos();
            let n = Vec3::new(s, 0.0, c);
            g.vert(base + n * r, n, Vec2::new(u, 1.0));
            g.vert(base + n * r + Vec3::Y * h, n, Vec2::new(u, 0.0));
        }
        for x in 0..seg {
            let a = x * 2;
            g.i.extend_from_slice(&[a, a + 2, a + 3, a, a + 3, a + 1]);
        }
        for (y, n) in [(0.0, -Vec3::Y), (h, Vec3::Y)] {
            let center = g.vert(base + Vec3::Y * y, n, Vec2::splat(0.5));
            let first = g.p.len() as u16;
            for x in 0..=seg {
                let (s, c) = (x as f32 / seg as f32 * TAU).sin_cos();
                g.vert(
                    base + Vec3::new(s * r, y, c * r),
                    n,
                    Vec2::new(0.5 + s * 0.5, 0.5 + c * 0.5),
                );
            }
            for x in 0..seg {
                let (a, b) = (first + x, first + x + 1);
                if n.y > 0.0 {
                    g.i.extend_from_slice(&[center, a, b]);
                } else {
                    g.i.extend_from_slice(&[center, b, a]);
                }
            }
        }
        g
    }

    /// As a P3M part: z negated and V flipped into P3M's space.
    pub fn into_part(self, name: &str, material: u8, visible: bool) -> Part {
        let flip = |v: Vec3| [v.x, v.y, -v.z];
        Part {
            name: name.into(),
            visible,
            material,
            material_overrides: Vec::new(),
            positions: self.p.iter().map(|&v| flip(v)).collect(),
            uvs: Some(self.uv.iter().map(|v| [v.x, 1.0 - v.y]).collect()),
            normals: Some(self.n.iter().map(|&v| flip(v)).collect()),
            indices: self.i,
            weight_groups: Vec::new(),
        }
    }
}

fn plain(
    color: [u8; 4],
    emission: [u8; 3],
    shading: u8,
    texture: Option<u8>,
    matcap: Option<u8>,
) -> MaterialData {
    MaterialData {
        color,
        emission,
        shading,
        texture,
        matcap,
    }
}

/// The glow pulses from cyan to pink and back (OKLCH colour, HSV
/// emission), 20 frames a second, 1.2 s a cycle, wrapping smoothly (CONT).
fn glow_animation() -> MaterialAnimation {
    fn key<T>(skip: u8, interp: ColorInterp, value: T) -> Key<T, ColorInterp> {
        Key {
            skip,
            interp,
            value,
        }
    }
    MaterialAnimation {
        us_per_frame: 50_000,
        preserve_texture_scroll: false,
        loop_mode: MatLoop::Cont,
        texture_scroll: [0.0; 2],
        matcap_scroll: [0.0; 2],
        last_frame: 23,
        color: vec![
            key(0, ColorInterp::LinearOklch, [120, 230, 255, 255]),
            key(11, ColorInterp::LinearOklch, [255, 140, 220, 255]),
        ],
        emission: vec![
            key(0, ColorInterp::LinearHsv, [40, 90, 110]),
            key(11, ColorInterp::LinearHsv, [110, 40, 90]),
        ],
        shading: vec![],
        texture: vec![],
        matcap: vec![],
    }
}

/// A 64x64 RGBA panel texture: tiles with a warm border.
fn panel_texture() -> Ptf {
    let n = 64;
    let mut px = Vec::with_capacity(n * n * 4);
    for y in 0..n {
        for x in 0..n {
            let (tx, ty) = (x % 16, y % 16);
            let edge = tx == 0 || ty == 0 || tx == 15 || ty == 15;
            let checker = ((x / 16) + (y / 16)) % 2 == 0;
            let rgba = if edge {
                [230, 170, 60, 255]
            } else if checker {
                [70, 120, 190, 255]
            } else {
                [200, 210, 225, 255]
            };
            px.extend_from_slice(&rgba);
        }
    }
    Ptf {
        layout: PtfLayout::Current { version: 0 },
        format: PtfFormat::Rgba,
        width: 64,
        height: 64,
        pixels: px,
        reduced_from: None,
    }
}

/// A 64x64 RGB matcap: a lit sphere with a rim.
fn matcap_texture() -> Ptf {
    let n = 64;
    let mut px = Vec::with_capacity(n * n * 3);
    for y in 0..n {
        for x in 0..n {
            let u = (x as f32 + 0.5) / n as f32 * 2.0 - 1.0;
            let v = 1.0 - (y as f32 + 0.5) / n as f32 * 2.0;
            let d = (1.0 - u * u - v * v).max(0.0).sqrt();
            let nrm = Vec3::new(u, v, d);
            let l = Vec3::new(-0.4, 0.6, 0.7).normalize();
            let diff = nrm.dot(l).max(0.0);
            let spec = nrm.dot((l + Vec3::Z).normalize()).max(0.0).powf(40.0);
            let rim = (1.0 - d).powf(3.0);
            let c = |base: f32| {
                ((base * (0.15 + 0.85 * diff) + spec + rim * 0.5).min(1.0) * 255.0) as u8
            };
            px.extend_from_slice(&[c(0.85), c(0.35), c(0.3)]);
        }
    }
    Ptf {
        layout: PtfLayout::Current { version: 0 },
        format: PtfFormat::Rgb,
        width: 64,
        height: 64,
        pixels: px,
        reduced_from: None,
    }
}

fn weights_for(part: &Part, f: impl Fn(Vec3) -> f32) -> Vec<WeightRange> {
    let mut ranges: Vec<WeightRange> = Vec::new();
    let mut skip = 0u16;
    let mut cur: Option<WeightRange> = None;
    for p in &part.positions {
        let w = f(Vec3::from_array(*p)).clamp(0.0, 1.0);
        let b = (w * 256.0).round() as i32 - 1;
        if b < 0 {
            if let Some(r) = cur.take() {
                ranges.push(r);
            }
            skip += 1;
        } else {
            cur.get_or_insert_with(|| {
                let r = WeightRange {
                    skip,
                    weights: Vec::new(),
                };
                skip = 0;
                r
            })
            .weights
            .push(b as u8);
        }
    }
    ranges.extend(cur);
    ranges
}

pub fn demo_model() -> P3m {
    let (bones, actions, animations) = demo_rig();
    P3m {
        layout: P3mLayout::Current,
        version: 0,
        flags: 0,
        parts: demo_parts(),
        materials: demo_materials(),
        textures: vec![
            Texture::Embedded {
                offset: 0,
                size: 0,
                ptf: Ok(panel_texture()),
            },
            Texture::Embedded {
                offset: 0,
                size: 0,
                ptf: Ok(matcap_texture()),
            },
        ],
        bones,
        animations,
        actions,
        user_fields: demo_user_fields(),
        string_table: (0, 0),
    }
}

// The demo's materials, by number.
const BODY_MAT: u8 = 0;
const HEAD_MAT: u8 = 1;
const GLOW_MAT: u8 = 2;
const DARK_MAT: u8 = 3;

/// A base, a body skinned to the spine and neck, a head and an eye (whose
/// material the "nod" animation overrides) on the neck, and hidden armour.
fn demo_parts() -> Vec<Part> {
    let mut parts = vec![
        Geo::cylinder(Vec3::new(0.0, 0.0, 0.0), 0.9, 0.25, 40).into_part("base", DARK_MAT, true),
        Geo::cuboid(Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.55, 0.75, 0.4))
            .into_part("body", BODY_MAT, true),
        Geo::sphere(Vec3::new(0.0, 2.25, 0.0), 0.45, 32, 16).into_part("head", HEAD_MAT, true),
        Geo::sphere(Vec3::new(0.0, 2.25, 0.32), 0.18, 16, 8).into_part("eye glow", GLOW_MAT, true),
        Geo::cuboid(Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.6, 0.8, 0.45)).into_part(
            "armor (hidden)",
            DARK_MAT,
            false,
        ),
    ];
    // Body follows "spine" below y=1.6 and blends into "neck" above it.
    let body = &parts[1];
    let spine = weights_for(body, |p| 1.0 - ((p.y - 1.3) / 0.5).clamp(0.0, 1.0));
    let neck = weights_for(body, |p| ((p.y - 1.3) / 0.5).clamp(0.0, 1.0));
    parts[1].weight_groups = vec![
        WeightGroup {
            bone: "spine".into(),
            ranges: spine,
        },
        WeightGroup {
            bone: "neck".into(),
            ranges: neck,
        },
    ];
    for i in [2, 3] {
        let all = weights_for(&parts[i], |_| 1.0);
        parts[i].weight_groups = vec![WeightGroup {
            bone: "neck".into(),
            ranges: all,
        }];
    }
    parts[3].material_overrides.push(MaterialOverride {
        animation: "nod".into(),
        priority: 1,
        material: HEAD_MAT,
    });
    parts
}

/// Textured white, matcap white, a glowing additive one (animated), and
/// dark grey.
fn demo_materials() -> Vec<Material> {
    vec![
        Material {
            render_mode: RenderMode::Normal,
            data: plain([255, 255, 255, 255], [0, 0, 0], 220, Some(0), None),
            animation: None,
        },
        Material {
            render_mode: RenderMode::Normal,
            data: plain([255, 255, 255, 255], [0, 0, 0], 255, None, Some(1)),
            animation: None,
        },
        Material {
            render_mode: RenderMode::Add,
            data: plain([120, 230, 255, 255], [40, 90, 110], 0, None, None),
            animation: Some(glow_animation()),
        },
        Material {
            render_mode: RenderMode::Normal,
            data: plain([60, 64, 72, 255], [0, 0, 0], 200, None, None),
            animation: None,
        },
    ]
}

/// Three bones (root, spine, neck), and "nod": an animation of one action
/// that tilts the neck forward and back over 24 frames.
fn demo_rig() -> (Vec<Bone>, Vec<Action>, Vec<Animation>) {
    let bone = |name: &str, head: [f32; 3], tail: [f32; 3], child_count| Bone {
        name: name.into(),
        head: [head[0], head[1], -head[2]],
        tail: [tail[0], tail[1], -tail[2]],
        child_count,
        parent: None,
    };
    let bones = vec![
        bone("root", [0.0, 0.0, 0.0], [0.0, 0.25, 0.0], 1),
        bone("spine", [0.0, 0.25, 0.0], [0.0, 1.6, 0.0], 1),
        bone("neck", [0.0, 1.6, 0.0], [0.0, 2.2, 0.0], 0),
    ];
    let lin = |skip, value| Key {
        skip,
        interp: Interp::Linear,
        value,
    };
    let actions = vec![Action {
        us_per_frame: 41_667,
        part_list_mode: PartListMode::DefaultWhite,
        parts: vec![],
        bones: vec![ActionBone {
            bone: "neck".into(),
            translation: vec![],
            rotation: vec![
                lin(0, [0.0, 0.0, 0.0]),
                lin(11, [0.35, 0.0, 0.0]),
                lin(11, [0.0, 0.0, 0.0]),
            ],
            scale: vec![],
        }],
    }];
    let animations = vec![Animation {
        name: "nod".into(),
        actions: vec![AnimationAction {
            action: 0,
            speed: 1.0,
            start: 0,
            end: 24,
        }],
    }];
    (bones, actions, animations)
}

/// A user-defined field of each kind: a string, a number, arrays of
/// numbers and of strings, and one without a value.
fn demo_user_fields() -> Vec<UserField> {
    vec![
        UserField {
            name: "author".into(),
            ty: UdfType::Str,
            is_array: false,
            value: UdfValue::Scalar(UdfScalar::Str("facet demo generator".into())),
        },
        UserField {
            name: "health".into(),
            ty: UdfType::U16,
            is_array: false,
            value: UdfValue::Scalar(UdfScalar::U16(250)),
        },
        UserField {
            name: "eye_color".into(),
            ty: UdfType::F32,
            is_array: true,
            value: UdfValue::Array(vec![
                UdfScalar::F32(0.47),
                UdfScalar::F32(0.9),
                UdfScalar::F32(1.0),
            ]),
        },
        UserField {
            name: "tags".into(),
            ty: UdfType::Str,
            is_array: true,
            value: UdfValue::Array(vec![
                UdfScalar::Str("robot".into()),
                UdfScalar::Str("lantern".into()),
            ]),
        },
        UserField {
            name: "deprecated".into(),
            ty: UdfType::Bool,
            is_array: false,
            value: UdfValue::Empty,
        },
    ]
}

/// The demo as P3M bytes.
pub fn demo_bytes() -> Vec<u8> {
    crate::formats::p3m_write::encode(&demo_model()).expect("the demo fits the format")
}
