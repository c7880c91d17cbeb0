//! Writer-built models shared by tests.

use facet::formats::p3m::*;
use std::f32::consts::FRAC_PI_2;

/// A two-bone arm along +Y: "upper" 0..1, "fore" 1..2. Vertices at y = 0.5
/// (upper), 1.5 and 2.0 (fore, weight byte 255 = 1.0), and one split 50/50.
/// Animation "bend": fore rotates about its local X from 0 to 90° between
/// frames 0 and 10 (LINEAR); "snap": the same with NONE interpolation.
pub fn arm() -> P3m {
    let positions = vec![
        [0.0, 0.5, 0.0],
        [0.0, 1.5, 0.0],
        [0.0, 2.0, 0.0],
        [0.0, 1.0, 0.5],
    ];
    let part = Part {
        name: "arm".into(),
        visible: true,
        material: 0,
        material_overrides: vec![],
        positions,
        uvs: None,
        normals: Some(vec![[0.0, 0.0, -1.0]; 4]),
        indices: vec![0, 1, 2, 1, 2, 3],
        weight_groups: vec![
            WeightGroup {
                bone: "upper".into(),
                ranges: vec![
                    WeightRange {
                        skip: 0,
                        weights: vec![255],
                    },
                    WeightRange {
                        skip: 2,
                        weights: vec![127],
                    },
                ],
            },
            WeightGroup {
                bone: "fore".into(),
                ranges: vec![WeightRange {
                    skip: 1,
                    weights: vec![255, 255, 127],
                }],
            },
        ],
    };
    let key = |skip, interp, value| Key {
        skip,
        interp,
        value,
    };
    let action = |interp| Action {
        us_per_frame: 100_000,
        part_list_mode: PartListMode::DefaultWhite,
        parts: vec![],
        bones: vec![ActionBone {
            bone: "fore".into(),
            translation: vec![],
            rotation: vec![
                key(0, Interp::Linear, [0.0, 0.0, 0.0]),
                key(9, interp, [FRAC_PI_2, 0.0, 0.0]),
            ],
            scale: vec![],
        }],
    };
    P3m {
        layout: P3mLayout::Current,
        version: 0,
        flags: 0,
        parts: vec![part],
        materials: vec![Material {
            render_mode: RenderMode::Normal,
            data: MaterialData {
                color: [255; 4],
                emission: [0; 3],
                shading: 255,
                texture: None,
                matcap: None,
            },
            animation: None,
        }],
        textures: vec![],
        bones: vec![
            Bone {
                name: "upper".into(),
                head: [0.0, 0.0, 0.0],
                tail: [0.0, 1.0, 0.0],
                child_count: 1,
                parent: None,
            },
            Bone {
                name: "fore".into(),
                head: [0.0, 1.0, 0.0],
                tail: [0.0, 2.0, 0.0],
                child_count: 0,
                parent: None,
            },
        ],
        animations: vec![
            Animation {
                name: "bend".into(),
                actions: vec![AnimationAction {
                    action: 0,
                    speed: 1.0,
                    start: 0,
                    end: 20,
                }],
            },
            Animation {
                name: "snap".into(),
                actions: vec![AnimationAction {
                    action: 1,
                    speed: 2.0,
                    start: 0,
                    end: 20,
                }],
            },
        ],
        actions: vec![action(Interp::Linear), action(Interp::None)],
        user_fields: vec![],
        string_table: (0, 0),
    }
}

/// A unit quad facing the scene's +Z (the camera's default side; P3M z is
/// mirrored, so the file's normals point to -Z) with UVs over 0..1.
pub fn quad(name: &str, material: u8, visible: bool) -> Part {
    Part {
        name: name.into(),
        visible,
        material,
        material_overrides: vec![],
        positions: vec![
            [-1.0, -1.0, 0.0],
            [1.0, -1.0, 0.0],
            [1.0, 1.0, 0.0],
            [-1.0, 1.0, 0.0],
        ],
        uvs: Some(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
        normals: Some(vec![[0.0, 0.0, -1.0]; 4]),
        indices: vec![0, 1, 2, 0, 2, 3],
        weight_groups: vec![],
    }
}
