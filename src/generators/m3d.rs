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
    let mut vertices: Vec<Vertex> = Vec::new();
    let mut faces = Faces::default();
    let q = |x: f32| (x * 32767.0).round() / 32767.0;
    let mut vert = |p: [f32; 3], color: u32, skin: u32| {
        vertices.push(Vertex {
            pos: [q(p[0]), q(p[1]), q(p[2]), 1.0],
            color,
            skin,
        });
        (vertices.len() - 1) as u32
    };
    let tri = |faces: &mut Faces, a: u32, b: u32, c: u32, material: Option<u32>| {
        faces.push(material, &[a, b, c].map(FacePoint::vertex));
    };
    // The stem: a hexagonal prism from y = -1 to 0 on bone 0, stone material.
    let n = 6;
    let ring = |y: f32, r: f32, k: usize| {
        let a = 2.0 * PI * k as f32 / n as f32;
        [r * a.cos(), y, -r * a.sin()]
    };
    let bottom: Vec<u32> = (0..n)
        .map(|k| vert(ring(-1.0, 0.25, k), rgba(90, 90, 100), 0))
        .collect();
    let top: Vec<u32> = (0..n)
        .map(|k| vert(ring(0.0, 0.18, k), rgba(120, 120, 130), 1))
        .collect();
    for k in 0..n {
        let (a, b) = (k, (k + 1) % n);
        tri(&mut faces, bottom[a], bottom[b], top[b], Some(0));
        tri(&mut faces, bottom[a], top[b], top[a], Some(0));
    }
    // The crystal: a bipyramid from y = 0 to 1 on bone 1, vertex colours
    // from cyan at the bottom to magenta at the tip, no material.
    let mid: Vec<u32> = (0..n)
        .map(|k| {
            let c = if k % 2 == 0 {
                rgba(40, 220, 255)
            } else {
                rgba(120, 90, 255)
            };
            vert(ring(0.35, 0.4, k), c, 2)
        })
        .collect();
    let tip = vert([0.0, 1.0, 0.0], rgba(255, 60, 200), 2);
    let base = vert([0.0, 0.0, 0.0], rgba(20, 160, 200), 2);
    for k in 0..n {
        let (a, b) = (mid[k], mid[(k + 1) % n]);
        tri(&mut faces, a, b, tip, None);
        tri(&mut faces, b, a, base, None);
    }
    // Bones: positions and orientations are vertex records too.
    let p0 = vert([0.0, -1.0, 0.0], 0, NONE);
    let p1 = vert([0.0, 1.0, 0.0], 0, NONE);
    let identity = vert([0.0, 0.0, 0.0], 0, QUATERNION);
    vertices[identity as usize].pos[3] = 1.0;
    let sway = |deg: f32, vertices: &mut Vec<Vertex>| {
        let h = deg.to_radians() / 2.0;
        vertices.push(Vertex {
            pos: [0.0, 0.0, q(h.sin()), q(h.cos())],
            color: 0,
            skin: QUATERNION,
        });
        (vertices.len() - 1) as u32
    };
    let left = sway(18.0, &mut vertices);
    let right = sway(-18.0, &mut vertices);
    let bend = sway(25.0, &mut vertices);
    let labels = vec![
        Label {
            group: "parts".into(),
            lang: "en_GB".into(),
            color: rgba(255, 200, 60),
            vertex: tip,
            text: "tip".into(),
        },
        Label {
            group: "parts".into(),
            lang: "en_GB".into(),
            color: rgba(255, 200, 60),
            vertex: mid[0],
            text: "crystal girdle".into(),
        },
        Label {
            group: "parts".into(),
            lang: "en_GB".into(),
            color: rgba(255, 200, 60),
            vertex: bottom[3],
            text: "stem foot".into(),
        },
    ];
    let tr = |bone: u32, pos: u32, ori: u32| Transform { bone, pos, ori };
    M3d {
        types: t,
        scale: 0.5,
        name: "facet crystal".into(),
        license: "MIT".into(),
        author: "facet demo generator".into(),
        description: "A swaying crystal: vertex colours, two bones, labels".into(),
        vertices,
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
        faces,
        labels,
        actions: vec![Action::from_frames(
            "sway",
            2400,
            [
                (400, vec![tr(0, p0, left)]),
                (900, vec![tr(1, p1, bend)]),
                (1500, vec![tr(0, p0, right), tr(1, p1, identity)]),
                (2100, vec![tr(0, p0, identity)]),
            ],
        )],
        ..Default::default()
    }
}

pub fn demo_bytes() -> Vec<u8> {
    m3d_write::encode(&demo(), true).expect("the demo fits its types")
}
