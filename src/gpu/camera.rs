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
}

pub const DEFAULT_YAW: f32 = 30.0 * std::f32::consts::PI / 180.0;
pub const DEFAULT_PITCH: f32 = 20.0 * std::f32::consts::PI / 180.0;

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            yaw: DEFAULT_YAW,
            pitch: DEFAULT_PITCH,
            distance: 3.0,
            fov_y: 45f32.to_radians(),
            scene_radius: 1.0,
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

    pub fn view(&self) -> Mat4 {
        Mat4::look_at_rh(self.eye(), self.target, Vec3::Y)
    }

    pub fn proj(&self, aspect: f32) -> Mat4 {
        let r = self.scene_radius;
        let near = (self.distance - 2.0 * r)
            .max(self.distance * 1e-3)
            .max(1e-5);
        let far = self.distance + 6.0 * r;
        Mat4::perspective_rh(self.fov_y, aspect.max(1e-3), near, far)
    }

    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.proj(aspect) * self.view()
    }

    /// Drag to orbit: pixels to radians.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(-1.55, 1.55);
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
        let min = self.scene_radius * 1e-3;
        let max = self.scene_radius * 1e3;
        self.distance = (self.distance * 0.9f32.powf(steps)).clamp(min, max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                for i in 0..8 {
                    let p = Vec3::new(
                        if i & 1 != 0 { b.max.x } else { b.min.x },
                        if i & 2 != 0 { b.max.y } else { b.min.y },
                        if i & 4 != 0 { b.max.z } else { b.min.z },
                    );
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
}
