//! Rays against the scene's shapes, for picking what is under the cursor
//! (a map's triangles, a model's parts). A ray is `origin + t * dir`, `dir`
//! not necessarily of unit length: distances come back as that `t`.

use super::Vec3;

/// The `t` at which the ray enters the box `min..max` (0 when it starts
/// inside), or `None` when it misses it or the box lies behind it.
pub fn ray_box(o: Vec3, d: Vec3, min: Vec3, max: Vec3) -> Option<f32> {
    let inv = d.recip();
    let t0 = (min - o) * inv;
    let t1 = (max - o) * inv;
    let near = t0.min(t1).max_element().max(0.0);
    let far = t0.max(t1).min_element();
    (near <= far).then_some(near)
}

/// The `t` at which the ray crosses the triangle `p` in front of its origin,
/// either side facing it (Möller-Trumbore).
pub fn ray_triangle(o: Vec3, d: Vec3, p: [Vec3; 3]) -> Option<f32> {
    ray_triangle_at(o, d, p).map(|(t, _)| t)
}

/// [`ray_triangle`], with where on the triangle: the weights of its second
/// and third corners (the first's is one less their sum), by which any
/// value at the corners is interpolated at the hit.
pub fn ray_triangle_at(o: Vec3, d: Vec3, p: [Vec3; 3]) -> Option<(f32, super::Vec2)> {
    let e1 = p[1] - p[0];
    let e2 = p[2] - p[0];
    let h = d.cross(e2);
    let a = e1.dot(h);
    if a.abs() < 1e-12 {
        return None;
    }
    let f = 1.0 / a;
    let s = o - p[0];
    let u = f * s.dot(h);
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = f * d.dot(q);
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = f * e2.dot(q);
    (t > 0.0).then_some((t, super::Vec2::new(u, v)))
}
