//! The binary buffer of an export, its views and accessors.

use glam::Vec3;
use serde_json::{Value, json};

pub(super) const ARRAY_BUFFER: u32 = 34962;
pub(super) const ELEMENT_ARRAY_BUFFER: u32 = 34963;
pub(super) const FLOAT: u32 = 5126;
pub(super) const UNSIGNED_INT: u32 = 5125;
pub(super) const UNSIGNED_SHORT: u32 = 5123;

/// The binary buffer with its views and accessors.
#[derive(Default, Clone)]
pub(super) struct Blob {
    pub(super) bin: Vec<u8>,
    pub(super) views: Vec<Value>,
    pub(super) accessors: Vec<Value>,
}

impl Blob {
    pub(super) fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut v = json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    /// An accessor over `bytes` in a view of its own.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn accessor(
        &mut self,
        bytes: &[u8],
        target: Option<u32>,
        component: u32,
        count: usize,
        ty: &str,
        normalized: bool,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> usize {
        let view = self.view(bytes, target);
        let mut a =
            json!({"bufferView": view, "componentType": component, "count": count, "type": ty});
        if normalized {
            a["normalized"] = json!(true);
        }
        if let Some((min, max)) = bounds {
            a["min"] = json!(min);
            a["max"] = json!(max);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    pub(super) fn vec3(&mut self, v: &[Vec3], with_bounds: bool) -> usize {
        let bounds = with_bounds.then(|| {
            let (lo, hi) = v.iter().fold(
                (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
                |(lo, hi), p| (lo.min(*p), hi.max(*p)),
            );
            (lo.to_array().to_vec(), hi.to_array().to_vec())
        });
        self.accessor(
            bytemuck::cast_slice(v),
            Some(ARRAY_BUFFER),
            FLOAT,
            v.len(),
            "VEC3",
            false,
            bounds,
        )
    }

    pub(super) fn floats(&mut self, v: &[f32], with_bounds: bool) -> usize {
        let bounds = with_bounds.then(|| {
            let lo = v.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (vec![lo], vec![hi])
        });
        self.accessor(
            bytemuck::cast_slice(v),
            None,
            FLOAT,
            v.len(),
            "SCALAR",
            false,
            bounds,
        )
    }
}
