//! The bundled M3D demo (`assets/demo.m3d`), written by our own M3D writer:
//! a two-part crystal on a stem with vertex colours, a material with a
//! diffuse colour, two bones swaying through an action of uneven frame
//! times, and annotation labels. `facet gen-assets` rewrites it.

use crate::formats::m3d::*;
use crate::formats::m3d_write;
use std::f32::consts::PI;

/// sRGB colour as M3D stores it (red in the low byte).
const fn rgba(r: u8, g: u8, b: u8) -> u32 {
    u32::from_le_bytes([r, g, b, 255])
}

pub fn demo() -> M3d {
    let mut b = Builder::default();
    let (bottom, _) = b.stem();
    let (mid, tip) = b.crystal();
    let rig = b.rig();
    let [p0, p1, identity] = [rig.stem, rig.crystal, rig.identity];
    let tr = |bone: u32, pos: u32, ori: u32| Transform { bone, pos, ori };
    let label = |vertex: u32, text: &str| Label {
        group: "parts".into(),
        lang: "en_GB".into(),
        color: rgba(255, 200, 60),
        vertex,
        text: text.into(),
    };
    M3d {
        types: demo_types(),
        scale: 0.5,
        name: "facet crystal".into(),
        license: "MIT".into(),
        author: "facet demo generator".into(),
        description: "A swaying crystal: vertex colours, two bones, labels".into(),
        vertices: b.vertices,
        bones: vec![
            Bone {
                parent: None,
                name: "stem".into(),
                pos: p0,
                ori: identity,
            },
            Bone {
                parent: Some(0),
                name: "crystal".into(),
                pos: p1,
                ori: identity,
            },
        ],
        skins: vec![
            Skin::new(&[(0, 255)]),
            Skin::new(&[(0, 128), (1, 127)]),
            Skin::new(&[(1, 255)]),
        ],
        materials: vec![Material {
            name: "stone".into(),
            props: vec![
                Property {
                    ty: 0,
                    value: PropValue::Color(rgba(150, 150, 160)),
                },
                Property {
                    ty: 3,
                    value: PropValue::Float(16.0),
                },
            ],
        }],
        faces: b.faces,
        labels: vec![
            label(tip, "tip"),
            label(mid[0], "crystal girdle"),
            label(bottom[3], "stem foot"),
        ],
        actions: vec![Action::from_frames(
            "sway",
            2400,
            [
                (400, vec![tr(0, p0, rig.left)]),
                (900, vec![tr(1, p1, rig.bend)]),
                (1500, vec![tr(0, p0, rig.right), tr(1, p1, identity)]),
                (2100, vec![tr(0, p0, identity)]),
            ],
        )],
        ..Default::default()
    }
}

/// 16-bit coordinates, literal colours, two bones of at most two weights,
/// materials on faces.
fn demo_types() -> Types {
    let mut t = Types::from_bits(0);
    t.vc = 2; // 16-bit coordinates
    t.vi = 2;
    t.si = 1;
    t.ci = 4; // literal colours
    t.ti = 0;
    t.bi = 1;
    t.nb = 2;
    t.sk = 1;
    t.fc = 1;
    t
}

/// Sides of the stem and the crystal's girdle.
const SIDES: usize = 6;

/// A point on a horizontal ring of radius `r` at height `y`: its `k`th
/// of [`SIDES`] corners.
fn ring(y: f32, r: f32, k: usize) -> [f32; 3] {
    let a = 2.0 * PI * k as f32 / SIDES as f32;
    [r * a.cos(), y, -r * a.sin()]
}

/// A coordinate as 16 bits hold it.
fn q(x: f32) -> f32 {
    (x * 32767.0).round() / 32767.0
}

/// The demo's vertex records and faces, in the order they are made.
#[derive(Default)]
struct Builder {
    vertices: Vec<Vertex>,
    faces: Faces,
}

/// The bones' vertex records: positions, the identity and three sways.
struct Rig {
    stem: u32,
    crystal: u32,
    identity: u32,
    left: u32,
    right: u32,
    bend: u32,
}

impl Builder {
    fn vert(&mut self, p: [f32; 3], color: u32, skin: u32) -> u32 {
        self.vertices.push(Vertex {
            pos: [q(p[0]), q(p[1]), q(p[2]), 1.0],
            color,
            skin,
        });
        (self.vertices.len() - 1) as u32
    }

    fn tri(&mut self, a: u32, b: u32, c: u32, material: Option<u32>) {
        self.faces.push(material, &[a, b, c].map(FacePoint::vertex));
    }

    /// The stem: a hexagonal prism from y = -1 to 0 on bone 0, stone
    /// material. Its bottom and top rings.
    fn stem(&mut self) -> (Vec<u32>, Vec<u32>) {
        let bottom: Vec<u32> = (0..SIDES)
            .map(|k| self.vert(ring(-1.0, 0.25, k), rgba(90, 90, 100), 0))
            .collect();
        let top: Vec<u32> = (0..SIDES)
            .map(|k| self.vert(ring(0.0, 0.18, k), rgba(120, 120, 130), 1))
            .collect();
        for k in 0..SIDES {
            let (a, b) = (k, (k + 1) % SIDES);
            self.tri(bottom[a], bottom[b], top[b], Some(0));
            self.tri(bottom[a], top[b], top[a], Some(0));
        }
        (bottom, top)
    }

    /// The crystal: a bipyramid from y = 0 to 1 on bone 1, vertex colours
    /// from cyan at the bottom to magenta at the tip, no material. Its
    /// girdle and its tip.
    fn crystal(&mut self) -> (Vec<u32>, u32) {
        let mid: Vec<u32> = (0..SIDES)
            .map(|k| {
                let c = if k % 2 == 0 {
                    rgba(40, 220, 255)
                } else {
                    rgba(120, 90, 255)
                };
                self.vert(ring(0.35, 0.4, k), c, 2)
            })
            .collect();
        let tip = self.vert([0.0, 1.0, 0.0], rgba(255, 60, 200), 2);
        let base = self.vert([0.0, 0.0, 0.0], rgba(20, 160, 200), 2);
        for k in 0..SIDES {
            let (a, b) = (mid[k], mid[(k + 1) % SIDES]);
            self.tri(a, b, tip, None);
            self.tri(b, a, base, None);
        }
        (mid, tip)
    }

    /// Bones: positions and orientations are vertex records too.
    fn rig(&mut self) -> Rig {
        let stem = self.vert([0.0, -1.0, 0.0], 0, NONE);
        let crystal = self.vert([0.0, 1.0, 0.0], 0, NONE);
        let identity = self.vert([0.0, 0.0, 0.0], 0, QUATERNION);
        self.vertices[identity as usize].pos[3] = 1.0;
        let mut sway = |deg: f32| {
            let h = deg.to_radians() / 2.0;
            self.vertices.push(Vertex {
                pos: [0.0, 0.0, q(h.sin()), q(h.cos())],
                color: 0,
                skin: QUATERNION,
            });
            (self.vertices.len() - 1) as u32
        };
        Rig {
            stem,
            crystal,
            identity,
            left: sway(18.0),
            right: sway(-18.0),
            bend: sway(25.0),
        }
    }
}

pub fn demo_bytes() -> Vec<u8> {
    m3d_write::encode(&demo(), true).expect("the demo fits its types")
}
