//! What a click in the 3D view hits on a model: the nearest triangle of a
//! shown part, in the pose that is drawn (skinned parts are skinned on the
//! CPU for the click, through the same reference the GPU is tested
//! against).

use crate::scene::ray::{ray_box, ray_triangle_at};
use crate::scene::{MAX_SKINNED_BONES, Mesh, Primitive, Scene, Skin, Wrap};
use glam::{Mat4, Vec2, Vec3};

/// A part's triangle under a ray.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartHit {
    /// Index into `Scene::meshes`.
    pub part: usize,
    /// The triangle within the part (`indices[3 * triangle..][..3]`).
    pub triangle: usize,
    /// Where along the ray: `origin + distance * dir`.
    pub distance: f32,
    /// Where on the triangle: the weights of its second and third corners
    /// ([`crate::scene::ray::ray_triangle_at`]).
    pub at: Vec2,
}

impl PartHit {
    /// The UV at the hit, interpolated between the triangle's corners, in
    /// `mesh` (the hit part's); `None` where it has no UVs or the corners
    /// are out of its range.
    pub fn uv(&self, mesh: &Mesh) -> Option<Vec2> {
        let corners = mesh.indices.get(3 * self.triangle..3 * self.triangle + 3)?;
        let uv = |k: usize| mesh.uvs.get(corners[k] as usize).copied();
        let (a, b, c) = (uv(0)?, uv(1)?, uv(2)?);
        Some(a + (b - a) * self.at.x + (c - a) * self.at.y)
    }
}

/// What a point of a model samples: the UV there, and the texel of the
/// texture shown there nearest it (the click's probe, shown in the
/// status bar; over a texture file, the cursor's).
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub uv: Vec2,
    pub texel: Option<Texel>,
}

/// A texel found by a [`Probe`]: which texture (by name, and its size),
/// where in it (column, row from the top) and its RGBA8 value.
#[derive(Debug, Clone, PartialEq)]
pub struct Texel {
    pub texture: String,
    pub size: (u32, u32),
    pub x: u32,
    pub y: u32,
    pub rgba: [u8; 4],
}

impl Probe {
    /// The UV `uv` read on `texture` through `wrap`.
    pub fn on(texture: Option<&crate::scene::Texture>, uv: Vec2, wrap: [Wrap; 2]) -> Probe {
        let texel = texture.and_then(|t| {
            let (x, y, rgba) = t.texel_at(uv, wrap)?;
            Some(Texel {
                texture: t.name.clone(),
                size: (t.width, t.height),
                x,
                y,
                rgba,
            })
        });
        Probe { uv, texel }
    }

    /// At `hit` on a model: the UV the part stores there (none for a part
    /// without UVs), read on its material's base texture as the
    /// material's sampler wraps it.
    pub fn of_hit(scene: &Scene, hit: &PartHit) -> Option<Probe> {
        let mesh = scene.meshes.get(hit.part).filter(|m| m.has_file_uvs)?;
        let uv = hit.uv(mesh)?;
        let material = mesh.material.and_then(|m| scene.materials.get(m));
        let texture = material
            .and_then(|m| m.texture)
            .and_then(|t| scene.textures.get(t));
        let wrap = material.map_or([Wrap::Repeat; 2], |m| m.sampling.wrap);
        Some(Probe::on(texture, uv, wrap))
    }

    /// For the status bar and the log: `uv (0.234, 0.711), texel (60,
    /// 182) of bot_sun_diffuse.papa (256 x 256): #8A8F99FF`.
    pub fn describe(&self) -> String {
        let uv = format!("uv ({:.3}, {:.3})", self.uv.x, self.uv.y);
        match &self.texel {
            Some(t) => {
                let [r, g, b, a] = t.rgba;
                format!(
                    "{uv}, texel ({}, {}) of {} ({} x {}): #{r:02X}{g:02X}{b:02X}{a:02X}",
                    t.x, t.y, t.texture, t.size.0, t.size.1
                )
            }
            None => uv,
        }
    }
}

/// The vertex a click found: the corner of the hit triangle nearest the
/// point hit, as the pose draws them. The inspector shows what the part
/// stores for it; the 3D view marks it and its triangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexHit {
    /// Index into `Scene::meshes`.
    pub part: usize,
    /// The triangle within the part, and its corners (vertex indices).
    pub triangle: usize,
    pub corners: [u32; 3],
    /// The nearest corner: one of `corners`.
    pub vertex: u32,
}

impl VertexHit {
    /// The corner of `hit`'s triangle nearest the point hit, each corner
    /// where `pose` draws it; `None` where the triangle's indices are out
    /// of the part's range.
    pub fn of_hit(scene: &Scene, pose: &super::Pose, hit: &PartHit) -> Option<VertexHit> {
        let mesh = scene.meshes.get(hit.part)?;
        let corners: [u32; 3] = mesh
            .indices
            .get(3 * hit.triangle..3 * hit.triangle + 3)?
            .try_into()
            .ok()?;
        let [a, b, c] = corners.map(|v| posed_vertex(scene, pose, hit.part, v));
        let (a, b, c) = (a?, b?, c?);
        let point = a + (b - a) * hit.at.x + (c - a) * hit.at.y;
        let nearest = [a, b, c]
            .iter()
            .map(|p| p.distance_squared(point))
            .enumerate()
            .fold(
                (0, f32::INFINITY),
                |best, (k, d)| {
                    if d < best.1 { (k, d) } else { best }
                },
            )
            .0;
        Some(VertexHit {
            part: hit.part,
            triangle: hit.triangle,
            corners,
            vertex: corners[nearest],
        })
    }
}

/// Where `pose` draws vertex `vertex` of part `part`: skinned where the
/// renderer skins it (as [`pick_part`] hits it), else at rest; `None` out
/// of range.
pub fn posed_vertex(scene: &Scene, pose: &super::Pose, part: usize, vertex: u32) -> Option<Vec3> {
    let mesh = scene.meshes.get(part)?;
    let v = vertex as usize;
    let p = *mesh.positions.get(v)?;
    let n = mesh.positions.len();
    match &mesh.skin {
        Some(skin) if skinned(scene, pose) && skin.joints.len() == n && skin.weights.len() == n => {
            Some(super::blended(&pose.skin, skin.joints[v], skin.weights[v]).transform_point3(p))
        }
        _ => Some(p),
    }
}

/// Whether the renderer skins `scene`'s skins in `pose`: only skeletons
/// the GPU can index (`gpu::upload`'s `can_skin`); others are drawn at
/// rest.
fn skinned(scene: &Scene, pose: &super::Pose) -> bool {
    let bones = scene.skeleton.bones.len();
    (1..=MAX_SKINNED_BONES).contains(&bones) && pose.skin.len() == bones
}

/// The nearest triangle that the ray `origin + t * dir` (`t` in `0..=1`:
/// the ray runs from the near plane to the far one, what the view draws)
/// crosses, either side facing it, among the parts `shown` (by index;
/// parts past its end count as hidden), each in `pose`. Lines and points
/// are not hit.
pub fn pick_part(
    scene: &Scene,
    pose: &super::Pose,
    shown: &[bool],
    origin: Vec3,
    dir: Vec3,
) -> Option<PartHit> {
    let skinned = skinned(scene, pose);
    let mut best: Option<PartHit> = None;
    let mut posed = Vec::new();
    for (part, mesh) in scene.meshes.iter().enumerate() {
        if !shown.get(part).copied().unwrap_or(false) || mesh.primitive != Primitive::Triangles {
            continue;
        }
        let positions: &[Vec3] = match (&mesh.skin, skinned) {
            (Some(skin), true) => {
                skinned_positions(&pose.skin, skin, &mesh.positions, &mut posed);
                &posed
            }
            _ => &mesh.positions,
        };
        let nearest = best.map_or(1.0, |b| b.distance);
        if let Some(hit) = nearest_triangle(mesh, positions, origin, dir, nearest) {
            best = Some(PartHit { part, ..hit });
        }
    }
    best
}

/// The bone whose shape in the skeleton overlay (drawn over the model:
/// head, a ring a tenth of its length across a tenth of the way along,
/// tail; see `gpu::upload`) passes nearest the cursor, within `slack`
/// pixels of its axis beyond the ring's projected radius. `view_px` is the
/// 3D view's size in pixels, `cursor` the cursor in its normalised device
/// coordinates. Bones drawn with no length, or reaching behind the eye,
/// are not picked.
pub fn pick_bone(
    scene: &Scene,
    pose: &super::Pose,
    view_proj: Mat4,
    view_px: Vec2,
    cursor: Vec2,
    slack: f32,
) -> Option<usize> {
    let half = view_px * 0.5;
    let at = cursor * half;
    // A point's place in pixels from the view's centre.
    let screen = |p: Vec3| {
        let c = view_proj * p.extend(1.0);
        (c.w > 1e-6).then(|| c.truncate().truncate() / c.w * half)
    };
    let mut best: Option<(usize, f32)> = None;
    for (i, b) in scene.skeleton.bones.iter().enumerate() {
        let len = (b.tail - b.head).length();
        if len <= 0.0 || !len.is_finite() {
            continue;
        }
        let m = pose.skin.get(i).copied().unwrap_or(Mat4::IDENTITY);
        let mid = b.head + (b.tail - b.head) * 0.1;
        let x = b.rest.x_axis.truncate().normalize_or(Vec3::X) * len * 0.1;
        let z = b.rest.z_axis.truncate().normalize_or(Vec3::Z) * len * 0.1;
        let (Some(head), Some(tail), Some(centre), Some(ring_x), Some(ring_z)) = (
            screen(m.transform_point3(b.head)),
            screen(m.transform_point3(b.tail)),
            screen(m.transform_point3(mid)),
            screen(m.transform_point3(mid + x)),
            screen(m.transform_point3(mid + z)),
        ) else {
            continue;
        };
        let radius = centre.distance(ring_x).max(centre.distance(ring_z));
        let d = distance_to_segment(at, head, tail);
        if d <= radius + slack && best.is_none_or(|(_, nearest)| d < nearest) {
            best = Some((i, d));
        }
    }
    best.map(|(i, _)| i)
}

/// The distance from `p` to the segment `a..b`.
fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}

/// The mesh's nearest triangle nearer than `limit` along the ray, its
/// corners taken from `positions`.
fn nearest_triangle(
    mesh: &Mesh,
    positions: &[Vec3],
    origin: Vec3,
    dir: Vec3,
    limit: f32,
) -> Option<PartHit> {
    let bounds = crate::scene::Aabb::of_points(positions);
    let enter = ray_box(origin, dir, bounds.min, bounds.max)?;
    if enter > limit {
        return None;
    }
    let mut best: Option<PartHit> = None;
    for (triangle, corners) in mesh.indices.chunks_exact(3).enumerate() {
        let corner = |k: usize| positions.get(corners[k] as usize).copied();
        let (Some(a), Some(b), Some(c)) = (corner(0), corner(1), corner(2)) else {
            continue;
        };
        let nearest = best.map_or(limit, |h| h.distance);
        if let Some((t, at)) = ray_triangle_at(origin, dir, [a, b, c])
            && t <= nearest
        {
            best = Some(PartHit {
                part: 0,
                triangle,
                distance: t,
                at,
            });
        }
    }
    best
}

/// `positions` skinned by `skin_mats` into `out`: the positions of
/// [`super::skin_vertices`], without the normals a click does not need.
/// A skin of another length than the mesh leaves it at rest, as the
/// upload draws it (`gpu::upload` skins a mesh only where they match).
fn skinned_positions(skin_mats: &[Mat4], skin: &Skin, positions: &[Vec3], out: &mut Vec<Vec3>) {
    out.clear();
    if skin.joints.len() != positions.len() || skin.weights.len() != positions.len() {
        out.extend_from_slice(positions);
        return;
    }
    out.extend(
        positions
            .iter()
            .zip(skin.joints.iter().zip(&skin.weights))
            .map(|(&p, (&j, &w))| super::blended(skin_mats, j, w).transform_point3(p)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Bone, Skeleton};
    use glam::Vec4;

    /// One bone from the origin up to (0, 1, 0), its rest frame the
    /// identity (ring across X and Z, radius 0.1 at y = 0.1).
    fn one_bone() -> Scene {
        Scene {
            skeleton: Skeleton {
                bones: vec![Bone {
                    name: "up".into(),
                    parent: None,
                    head: Vec3::ZERO,
                    tail: Vec3::Y,
                    rest: Mat4::IDENTITY,
                }],
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn a_bone_is_picked_near_its_drawn_shape_where_the_pose_puts_it() {
        // The identity projection on a 200x200 view: world x and y are the
        // normalised device coordinates, 100 pixels a unit. The bone runs
        // from the view's centre 100 pixels up; its ring is 10 pixels
        // across each way at 10 pixels up.
        let s = one_bone();
        let mut pose = super::super::Pose::new(&s.skeleton);
        let view = Vec2::splat(200.0);
        let pick = |pose: &super::super::Pose, x: f32, y: f32| {
            pick_bone(&s, pose, Mat4::IDENTITY, view, Vec2::new(x, y), 4.0)
        };
        // 3 pixels beside the axis half-way up: within the ring's 10 plus
        // the 4 of slack.
        assert_eq!(pick(&pose, 0.03, 0.5), Some(0));
        // 13 pixels beside it: still (10 + 4); 15: no.
        assert_eq!(pick(&pose, 0.13, 0.5), Some(0));
        assert_eq!(pick(&pose, 0.15, 0.5), None);
        // Past the tail by 20 pixels: no.
        assert_eq!(pick(&pose, 0.0, 1.2), None);
        // Posed half a unit to the right: found there, no longer at rest's place.
        pose.skin[0] = Mat4::from_translation(Vec3::new(0.5, 0.0, 0.0));
        assert_eq!(pick(&pose, 0.5, 0.5), Some(0));
        assert_eq!(pick(&pose, 0.0, 0.5), None);
        // Behind the eye (w < 0): not picked.
        pose.skin[0] = Mat4::IDENTITY;
        let behind = Mat4::from_cols(Vec4::X, Vec4::Y, Vec4::Z, Vec4::new(0.0, 0.0, 0.0, -1.0));
        assert_eq!(
            pick_bone(&s, &pose, behind, view, Vec2::new(0.0, -0.5), 4.0),
            None
        );
    }

    /// A unit square in the plane z = `z`, facing +z, from (0,0) to (1,1).
    fn square(name: &str, z: f32) -> Mesh {
        Mesh {
            name: name.into(),
            positions: vec![
                Vec3::new(0.0, 0.0, z),
                Vec3::new(1.0, 0.0, z),
                Vec3::new(1.0, 1.0, z),
                Vec3::new(0.0, 1.0, z),
            ],
            normals: vec![Vec3::Z; 4],
            uvs: vec![glam::Vec2::ZERO; 4],
            indices: vec![0, 1, 2, 0, 2, 3],
            visible: true,
            ..Default::default()
        }
    }

    /// A ray from z = 10 straight down -z through (x, y), reaching z = -10
    /// at t = 1.
    fn down(x: f32, y: f32) -> (Vec3, Vec3) {
        (Vec3::new(x, y, 10.0), Vec3::new(0.0, 0.0, -20.0))
    }

    fn scene(meshes: Vec<Mesh>) -> Scene {
        Scene {
            meshes,
            ..Default::default()
        }
    }

    #[test]
    fn a_click_reads_the_uv_and_the_texel_under_it() {
        // The unit square with UVs (u, v) = (2x, 1 - y): u runs 0..2
        // across, v down the image. A 4 x 2 texture whose texel (x, y)
        // is (10x, 10y, 0, 255).
        let mut mesh = square("a", 0.0);
        mesh.uvs = mesh
            .positions
            .iter()
            .map(|p| Vec2::new(2.0 * p.x, 1.0 - p.y))
            .collect();
        mesh.has_file_uvs = true;
        mesh.material = Some(0);
        let texels: Vec<u8> = (0..2u8)
            .flat_map(|y| (0..4u8).flat_map(move |x| [10 * x, 10 * y, 0, 255]))
            .collect();
        let mut s = scene(vec![mesh]);
        s.textures = vec![crate::scene::Texture {
            name: "t.png".into(),
            width: 4,
            height: 2,
            rgba8: texels,
            source: crate::scene::TextureSource::Embedded,
            format: "test".into(),
            srgb: true,
            compressed: None,
        }];
        s.materials = vec![crate::scene::Material {
            texture: Some(0),
            ..Default::default()
        }];
        let pose = super::super::Pose::new(&s.skeleton);
        let probe = |x: f32, y: f32, s: &Scene| {
            let (o, d) = down(x, y);
            let hit = pick_part(s, &pose, &[true], o, d).unwrap();
            Probe::of_hit(s, &hit).unwrap()
        };
        // (0.3, 0.2), in the first triangle: uv (0.6, 0.8); repeated, u
        // 0.6 of 4 texels is column 2, v 0.8 of 2 rows is row 1.
        let p = probe(0.3, 0.2, &s);
        assert!((p.uv - Vec2::new(0.6, 0.8)).length() < 1e-5, "{p:?}");
        let t = p.texel.clone().unwrap();
        assert_eq!((t.x, t.y, t.rgba, t.size), (2, 1, [20, 10, 0, 255], (4, 2)));
        assert_eq!(
            p.describe(),
            "uv (0.600, 0.800), texel (2, 1) of t.png (4 x 2): #140A00FF"
        );
        // (0.8, 0.9), in the second: uv (1.6, 0.1), repeated 0.6 again:
        // column 2, row 0; clamped to the edge, column 3.
        let p = probe(0.8, 0.9, &s);
        assert!((p.uv - Vec2::new(1.6, 0.1)).length() < 1e-5, "{p:?}");
        assert_eq!(p.texel.unwrap().rgba, [20, 0, 0, 255]);
        s.materials[0].sampling.wrap = [Wrap::Clamp; 2];
        assert_eq!(probe(0.8, 0.9, &s).texel.unwrap().rgba, [30, 0, 0, 255]);
        // No texture: the UV alone; no UVs in the file: no probe.
        s.materials[0].texture = None;
        assert_eq!(probe(0.8, 0.9, &s).describe(), "uv (1.600, 0.100)");
        s.meshes[0].has_file_uvs = false;
        let (o, d) = down(0.8, 0.9);
        let hit = pick_part(&s, &pose, &[true], o, d).unwrap();
        assert_eq!(Probe::of_hit(&s, &hit), None);
    }

    #[test]
    fn a_click_finds_the_corner_nearest_it_as_drawn() {
        // The unit square at z = 0: corners 0 (0, 0), 1 (1, 0), 2 (1, 1),
        // 3 (0, 1); triangles (0, 1, 2) below the diagonal, (0, 2, 3)
        // above. Vertex 3 hangs from bone 1, the others from bone 0.
        let mut mesh = square("a", 0.0);
        mesh.skin = Some(Skin {
            joints: vec![[0; 4], [0; 4], [0; 4], [1, 0, 0, 0]],
            weights: vec![[u16::MAX, 0, 0, 0]; 4],
        });
        let mut s = scene(vec![mesh]);
        let bone = |name: &str| Bone {
            name: name.into(),
            parent: None,
            head: Vec3::ZERO,
            tail: Vec3::Y,
            rest: Mat4::IDENTITY,
        };
        s.skeleton = Skeleton {
            bones: vec![bone("root"), bone("corner")],
            ..Default::default()
        };
        let mut pose = super::super::Pose::new(&s.skeleton);
        let vertex = |pose: &super::super::Pose, x: f32, y: f32| {
            let (o, d) = down(x, y);
            let hit = pick_part(&s, pose, &[true], o, d).unwrap();
            VertexHit::of_hit(&s, pose, &hit).unwrap()
        };
        // At rest, (0.9, 0.2) is in triangle 0, 0.22 from corner 1 (0.81
        // from 2, 0.92 from 0).
        let v = vertex(&pose, 0.9, 0.2);
        assert_eq!(
            (v.part, v.triangle, v.corners, v.vertex),
            (0, 0, [0, 1, 2], 1)
        );
        // (0.3, 0.6) is in triangle 1, 0.5 from corner 3 (0.67 from 0,
        // 0.81 from 2).
        let v = vertex(&pose, 0.3, 0.6);
        assert_eq!((v.triangle, v.corners, v.vertex), (1, [0, 2, 3], 3));
        // Bone 1 moves vertex 3 to (-5, 1, 0): triangle 1 is drawn wider,
        // (0.3, 0.6) still in it, now 5.3 from vertex 3 and nearest 0.
        pose.skin[1] = Mat4::from_translation(Vec3::new(-5.0, 0.0, 0.0));
        assert_eq!(
            posed_vertex(&s, &pose, 0, 3),
            Some(Vec3::new(-5.0, 1.0, 0.0))
        );
        assert_eq!(
            posed_vertex(&s, &pose, 0, 2),
            Some(Vec3::new(1.0, 1.0, 0.0))
        );
        let v = vertex(&pose, 0.3, 0.6);
        assert_eq!((v.triangle, v.vertex), (1, 0));
        // Half on each bone: half way, (-2.5, 1, 0).
        s.meshes[0].skin.as_mut().unwrap().weights[3] = [32768, 32767, 0, 0];
        s.meshes[0].skin.as_mut().unwrap().joints[3] = [1, 0, 0, 0];
        let p = posed_vertex(&s, &pose, 0, 3).unwrap();
        assert!((p - Vec3::new(-2.5, 1.0, 0.0)).length() < 1e-3, "{p}");
        // Out of range: no vertex; a triangle past the indices, none.
        assert_eq!(posed_vertex(&s, &pose, 0, 4), None);
        assert_eq!(posed_vertex(&s, &pose, 1, 0), None);
        let past = PartHit {
            part: 0,
            triangle: 2,
            distance: 0.5,
            at: Vec2::ZERO,
        };
        assert_eq!(VertexHit::of_hit(&s, &pose, &past), None);
        s.meshes[0].indices[5] = 9;
        let corner_past = PartHit {
            triangle: 1,
            ..past
        };
        assert_eq!(VertexHit::of_hit(&s, &pose, &corner_past), None);
    }

    #[test]
    fn the_nearest_shown_part_is_hit() {
        // Squares at z = 0, 2 (nearest the eye) and 1.
        let s = scene(vec![square("a", 0.0), square("b", 2.0), square("c", 1.0)]);
        let pose = super::super::Pose::new(&s.skeleton);
        let (o, d) = down(0.75, 0.25);
        let hit = pick_part(&s, &pose, &[true, true, true], o, d).unwrap();
        // z = 2 is 8 of the ray's 20 units down: t = 0.4; (0.75, 0.25)
        // lies below the diagonal x = y, in the first triangle.
        assert_eq!((hit.part, hit.triangle), (1, 0));
        assert!((hit.distance - 0.4).abs() < 1e-6, "{hit:?}");
        // Hidden, the next one down is hit; (0.25, 0.75) is in triangle 1.
        let (o, d) = down(0.25, 0.75);
        let hit = pick_part(&s, &pose, &[true, false, true], o, d).unwrap();
        assert_eq!((hit.part, hit.triangle), (2, 1));
        assert!((hit.distance - 0.45).abs() < 1e-6, "{hit:?}");
        // Seen from below, the back of the lowest square is hit first.
        let hit = pick_part(
            &s,
            &pose,
            &[true, true, true],
            Vec3::new(0.5, 0.2, -10.0),
            Vec3::new(0.0, 0.0, 20.0),
        )
        .unwrap();
        assert_eq!(hit.part, 0);
        // Beside every square, or with nothing shown: no hit.
        let (o, d) = down(1.5, 0.5);
        assert_eq!(pick_part(&s, &pose, &[true, true, true], o, d), None);
        let (o, d) = down(0.5, 0.5);
        assert_eq!(pick_part(&s, &pose, &[], o, d), None);
    }

    #[test]
    fn the_ray_ends_at_the_far_plane_and_lines_are_not_hit() {
        let mut lines = square("lines", 3.0);
        lines.primitive = Primitive::Lines;
        let s = scene(vec![square("far", -20.0), lines]);
        let pose = super::super::Pose::new(&s.skeleton);
        // z = -20 is at t = 1.5, past the far plane at t = 1.
        let (o, d) = down(0.5, 0.5);
        assert_eq!(pick_part(&s, &pose, &[true, true], o, d), None);
    }

    #[test]
    fn skinned_parts_are_hit_where_the_pose_puts_them() {
        // One bone at the origin; the pose lifts it by 5 along z, so the
        // square skinned to it is drawn at z = 5 and its rest place at
        // z = 0 is empty.
        let mut skinned = square("skinned", 0.0);
        skinned.skin = Some(Skin {
            joints: vec![[0; 4]; 4],
            weights: vec![[u16::MAX, 0, 0, 0]; 4],
        });
        let mut s = scene(vec![skinned, square("rigid", 1.0)]);
        s.skeleton = Skeleton {
            bones: vec![Bone {
                name: "root".into(),
                parent: None,
                head: Vec3::ZERO,
                tail: Vec3::Y,
                rest: Mat4::IDENTITY,
            }],
            ..Default::default()
        };
        let mut pose = super::super::Pose::new(&s.skeleton);
        pose.skin[0] = Mat4::from_translation(Vec3::new(0.0, 0.0, 5.0));
        let (o, d) = down(0.5, 0.5);
        let hit = pick_part(&s, &pose, &[true, true], o, d).unwrap();
        // z = 5: 5 of 20 units down.
        assert_eq!(hit.part, 0);
        assert!((hit.distance - 0.25).abs() < 1e-6, "{hit:?}");
        // Moved out from under the ray, the rigid square below is hit.
        pose.skin[0] = Mat4::from_translation(Vec3::new(3.0, 0.0, 5.0));
        let hit = pick_part(&s, &pose, &[true, true], o, d).unwrap();
        assert_eq!(hit.part, 1);
    }
}
