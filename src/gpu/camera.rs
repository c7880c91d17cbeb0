//! Orbit camera: yaw/pitch around a target at a distance. Pure math.

use crate::scene::Aabb;
use glam::{Mat4, Vec3};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    pub target: Vec3,
    /// Radians around +Y; 0 looks from +Z towards -Z.
    pub yaw: f32,
    /// Radians above the horizon.
    pub pitch: f32,
    pub distance: f32,
    pub fov_y: f32,
    /// Radius of what is framed: sets clip planes and pan/zoom speeds.
    pub scene_radius: f32,
    /// Orthographic projection (the visible height is what the perspective
    /// view shows at the target's distance).
    pub ortho: bool,
}

/// The axis views (Blender's numpad keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxisView {
    Front,
    Back,
    Right,
    Left,
    Top,
    Bottom,
}

pub const DEFAULT_YAW: f32 = 30.0 * std::f32::consts::PI / 180.0;
pub const DEFAULT_PITCH: f32 = 20.0 * std::f32::consts::PI / 180.0;
/// Just short of straight up or down (look_at needs a horizon).
pub const MAX_PITCH: f32 = 1.55;

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            yaw: DEFAULT_YAW,
            pitch: DEFAULT_PITCH,
            distance: 3.0,
            fov_y: 45f32.to_radians(),
            scene_radius: 1.0,
            ortho: false,
        }
    }
}

impl OrbitCamera {
    /// The default view of `bounds`, framed to fit at `aspect`.
    pub fn framing(bounds: &Aabb, aspect: f32) -> Self {
        let mut c = Self::default();
        c.fit(bounds, aspect);
        c
    }

    /// Keeps the direction, moves target and distance so the bounding sphere fits.
    pub fn fit(&mut self, bounds: &Aabb, aspect: f32) {
        let r = bounds.radius();
        self.target = bounds.center();
        self.scene_radius = r;
        let half_fov_y = self.fov_y * 0.5;
        let half_fov_x = (half_fov_y.tan() * aspect.max(1e-3)).atan();
        let half = half_fov_y.min(half_fov_x);
        self.distance = r / half.sin() * 1.05;
    }

    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + self.distance * Vec3::new(cp * sy, sp, cp * cy)
    }

    /// Where the camera sees from, for telling front faces from back
    /// ([`crate::scene::Facing::faces_away_from`]): the eye (w = 1), or for
    /// an orthographic projection the unit direction towards the viewer
    /// (w = 0), along which every ray runs.
    pub fn viewpoint(&self) -> glam::Vec4 {
        if self.ortho {
            (self.eye() - self.target).normalize_or(Vec3::Z).extend(0.0)
        } else {
            self.eye().extend(1.0)
        }
    }

    pub fn view(&self) -> Mat4 {
        Mat4::look_at_rh(self.eye(), self.target, Vec3::Y)
    }

    pub fn proj(&self, aspect: f32) -> Mat4 {
        let r = self.scene_radius;
        let near = (self.distance - 2.0 * r)
            .max(self.distance * 1e-3)
            .max(1e-5);
        let far = self.distance + 6.0 * r;
        if self.ortho {
            let hh = self.distance * (self.fov_y * 0.5).tan();
            let hw = hh * aspect.max(1e-3);
            // Depth covers the scene in front of and behind the target.
            let near = self.distance - 4.0 * r;
            return Mat4::orthographic_rh(-hw, hw, -hh, hh, near, far);
        }
        Mat4::perspective_rh(self.fov_y, aspect.max(1e-3), near, far)
    }

    /// Looks along an axis at the same target and distance.
    pub fn set_view(&mut self, v: AxisView) {
        use std::f32::consts::FRAC_PI_2;
        (self.yaw, self.pitch) = match v {
            AxisView::Front => (0.0, 0.0),
            AxisView::Back => (std::f32::consts::PI, 0.0),
            AxisView::Right => (FRAC_PI_2, 0.0),
            AxisView::Left => (-FRAC_PI_2, 0.0),
            AxisView::Top => (0.0, MAX_PITCH),
            AxisView::Bottom => (0.0, -MAX_PITCH),
        };
    }

    /// The point on the plane through the target facing the camera that is
    /// under `ndc` (-1..1, y up) at `aspect`.
    pub fn point_under(&self, ndc: glam::Vec2, aspect: f32) -> Vec3 {
        let inv = self.view_proj(aspect).inverse();
        let a = inv.project_point3(ndc.extend(0.0));
        let b = inv.project_point3(ndc.extend(1.0));
        let dir = (b - a).normalize_or(Vec3::NEG_Z);
        let normal = (self.eye() - self.target).normalize_or(Vec3::Z);
        let denom = dir.dot(normal);
        if denom.abs() < 1e-6 {
            return self.target;
        }
        a + dir * ((self.target - a).dot(normal) / denom)
    }

    /// Wheel zoom towards the point under the cursor: that point stays under
    /// the cursor.
    pub fn zoom_at(&mut self, steps: f32, ndc: glam::Vec2, aspect: f32) {
        let before = self.point_under(ndc, aspect);
        let old = self.distance;
        self.zoom(steps);
        let k = self.distance / old;
        self.target = before + (self.target - before) * k;
    }

    /// Fly mode: turns the view around the eye (the eye stays put).
    pub fn look(&mut self, dx: f32, dy: f32) {
        let eye = self.eye();
        self.yaw -= dx * 0.004;
        self.pitch = (self.pitch - dy * 0.004).clamp(-MAX_PITCH, MAX_PITCH);
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target = eye - self.distance * Vec3::new(cp * sy, sp, cp * cy);
    }

    /// Fly mode: moves eye and target by `forward`, `right`, `up` units.
    pub fn fly(&mut self, forward: f32, right: f32, up: f32) {
        let dir = (self.target - self.eye()).normalize_or(Vec3::NEG_Z);
        let side = dir.cross(Vec3::Y).normalize_or(Vec3::X);
        self.target += dir * forward + side * right + Vec3::Y * up;
    }

    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.proj(aspect) * self.view()
    }

    /// Drag to orbit: pixels to radians.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Drag to pan: moves the target in the view plane so the point under the
    /// cursor follows it (`viewport_h` in pixels).
    pub fn pan(&mut self, dx: f32, dy: f32, viewport_h: f32) {
        let world_per_px = 2.0 * self.distance * (self.fov_y * 0.5).tan() / viewport_h.max(1.0);
        let view = self.view();
        let right = Vec3::new(view.x_axis.x, view.y_axis.x, view.z_axis.x);
        let up = Vec3::new(view.x_axis.y, view.y_axis.y, view.z_axis.y);
        self.target += (-dx * right + dy * up) * world_per_px;
    }

    /// Wheel zoom: positive steps move closer.
    pub fn zoom(&mut self, steps: f32) {
        self.scale_distance(0.9f32.powf(steps));
    }

    /// Moves the eye to `factor` times its distance from the target, no
    /// nearer than 1/1000 of the scene's radius and no farther than 1000
    /// radii: as far as the wheel goes, where the scene is still drawn.
    pub fn scale_distance(&mut self, factor: f32) {
        let min = self.scene_radius * 1e-3;
        let max = self.scene_radius * 1e3;
        self.distance = (self.distance * factor).clamp(min, max);
    }
}

/// Whether the box lies wholly outside the view of `view_proj`: all its
/// corners beyond one side plane (left, right, bottom, top; tested in clip
/// space, so no divide) or all behind the eye (w <= 0, perspective only).
/// Conservative: a box it keeps may still be off screen, one it drops
/// never shows. The near and far planes are not tested, so it holds for any
/// depth convention.
pub fn outside_view(view_proj: &Mat4, b: &Aabb) -> bool {
    if b.is_empty() {
        return false;
    }
    let clip = b.corners().map(|c| *view_proj * c.extend(1.0));
    let all = |f: &dyn Fn(glam::Vec4) -> bool| clip.iter().all(|&c| f(c));
    all(&|c| c.x < -c.w)
        || all(&|c| c.x > c.w)
        || all(&|c| c.y < -c.w)
        || all(&|c| c.y > c.w)
        || all(&|c| c.w <= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_out_of_view_are_those_beyond_a_side_or_behind() {
        // The eye at the origin looking down -Z, 90 degrees vertical field
        // of view, square: the view is |x| <= -z, |y| <= -z for z < 0.
        let vp = Mat4::perspective_rh(std::f32::consts::FRAC_PI_2, 1.0, 0.1, 100.0)
            * Mat4::look_at_rh(Vec3::ZERO, Vec3::NEG_Z, Vec3::Y);
        let cube = |c: Vec3, h: f32| Aabb {
            min: c - Vec3::splat(h),
            max: c + Vec3::splat(h),
        };
        // In front, in view.
        assert!(!outside_view(&vp, &cube(Vec3::new(0.0, 0.0, -10.0), 1.0)));
        // Behind the eye.
        assert!(outside_view(&vp, &cube(Vec3::new(0.0, 0.0, 10.0), 1.0)));
        // Beyond the right side at z = -10 (x from 12 to 14 > 10), the left,
        // above and below.
        assert!(outside_view(&vp, &cube(Vec3::new(13.0, 0.0, -10.0), 1.0)));
        assert!(outside_view(&vp, &cube(Vec3::new(-13.0, 0.0, -10.0), 1.0)));
        assert!(outside_view(&vp, &cube(Vec3::new(0.0, 13.0, -10.0), 1.0)));
        assert!(outside_view(&vp, &cube(Vec3::new(0.0, -13.0, -10.0), 1.0)));
        // Straddling the right side (x from 9 to 11 at z near -10): kept.
        assert!(!outside_view(&vp, &cube(Vec3::new(10.0, 0.0, -10.0), 1.0)));
        // Around the eye, and beyond the far plane (not tested): kept.
        assert!(!outside_view(&vp, &cube(Vec3::ZERO, 1.0)));
        assert!(!outside_view(&vp, &cube(Vec3::new(0.0, 0.0, -500.0), 1.0)));
        // Beside the eye and behind its plane on one side only (x from 2 to
        // 4, z from -1 to 1): out of view to the right, though some corners
        // are in front of the eye and some behind.
        assert!(outside_view(&vp, &cube(Vec3::new(3.0, 0.0, 0.0), 1.0)));
        // An empty box (a mesh without positions) is never dropped.
        assert!(!outside_view(&vp, &Aabb::EMPTY));
    }

    #[test]
    fn fit_keeps_every_corner_in_view() {
        let b = Aabb {
            min: Vec3::new(-3.0, 0.0, -1.0),
            max: Vec3::new(5.0, 2.0, 0.5),
        };
        for aspect in [0.5, 1.0, 2.5] {
            for (yaw, pitch) in [(0.0, 0.0), (1.0, 0.4), (-2.0, -1.2)] {
                let mut c = OrbitCamera {
                    yaw,
                    pitch,
                    ..Default::default()
                };
                c.fit(&b, aspect);
                let vp = c.view_proj(aspect);
                for p in b.corners() {
                    let ndc = vp.project_point3(p);
                    assert!(
                        ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0,
                        "corner {p} outside at aspect {aspect}: {ndc}"
                    );
                    assert!(
                        (0.0..=1.0).contains(&ndc.z),
                        "corner {p} clipped in depth: {ndc}"
                    );
                }
            }
        }
    }

    #[test]
    fn orbit_pan_zoom() {
        let mut c = OrbitCamera::default();
        let d = c.distance;
        c.zoom(1.0);
        assert!((c.distance - d * 0.9).abs() < 1e-6);
        c.orbit(0.0, 1e6);
        assert!(
            c.pitch < std::f32::consts::FRAC_PI_2,
            "pitch is clamped short of the pole"
        );
        // A horizontal drag pans along the (horizontal) right vector, by the
        // world size of the dragged pixels at the target's distance.
        let mut c = OrbitCamera::default();
        c.pan(10.0, 0.0, 600.0);
        let world_per_px = 2.0 * c.distance * (c.fov_y * 0.5).tan() / 600.0;
        assert!(c.target.y.abs() < 1e-6);
        assert!((c.target.length() - 10.0 * world_per_px).abs() < 1e-5);
    }

    #[test]
    fn zoom_at_keeps_the_point_under_the_cursor() {
        for ortho in [false, true] {
            let mut c = OrbitCamera {
                ortho,
                target: Vec3::new(1.0, 2.0, 0.0),
                ..Default::default()
            };
            let ndc = glam::Vec2::new(0.4, -0.3);
            let before = c.point_under(ndc, 1.5);
            c.zoom_at(3.0, ndc, 1.5);
            let p = c.view_proj(1.5).project_point3(before);
            assert!((p.truncate() - ndc).length() < 1e-4, "{ortho}: {p}");
            assert!(c.distance < 3.0);
        }
    }

    #[test]
    fn axis_views_look_along_the_axes() {
        let mut c = OrbitCamera::default();
        for (v, dir) in [
            (AxisView::Front, Vec3::Z),
            (AxisView::Back, Vec3::NEG_Z),
            (AxisView::Right, Vec3::X),
            (AxisView::Left, Vec3::NEG_X),
            (AxisView::Top, Vec3::Y),
            (AxisView::Bottom, Vec3::NEG_Y),
        ] {
            c.set_view(v);
            let from = (c.eye() - c.target).normalize();
            assert!(from.dot(dir) > 0.999, "{v:?}: {from}");
        }
    }

    #[test]
    fn fly_look_keeps_the_eye() {
        let mut c = OrbitCamera::default();
        let eye = c.eye();
        c.look(40.0, -25.0);
        assert!((c.eye() - eye).length() < 1e-4);
        let t = c.target;
        c.fly(1.0, 0.0, 0.0);
        assert!(((c.target - t).length() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn ortho_fits_the_same_height_at_the_target() {
        // Level view: target + Y lies in the plane facing the camera.
        let persp = OrbitCamera {
            pitch: 0.0,
            ..Default::default()
        };
        let ortho = OrbitCamera {
            ortho: true,
            ..persp
        };
        let top = persp.target + Vec3::Y * 0.5;
        let a = persp.view_proj(1.0).project_point3(top);
        let b = ortho.view_proj(1.0).project_point3(top);
        assert!((a.y - b.y).abs() < 1e-4, "{a} {b}");
    }
}
