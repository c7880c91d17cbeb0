//! The binary buffer of an export, its views and accessors.

use glam::{Vec2, Vec3};
use serde_json::{Value, json};
use std::borrow::Cow;

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
    /// Float values that were NaN or infinite, written as 0: glTF allows
    /// neither in an accessor (a damaged file's scene can hold them; the
    /// viewer draws around them).
    pub(super) not_finite: usize,
}

/// `x` as an accessor holds it ([`Blob::accessor`]): a NaN or infinite
/// value as 0. Bounds are taken from this.
fn as_written(x: f32) -> f32 {
    if x.is_finite() { x } else { 0.0 }
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
        // Little-endian f32s, copied where any is not finite.
        let f32_at = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let bad = match component {
            FLOAT => bytes
                .chunks_exact(4)
                .filter(|b| !f32_at(b).is_finite())
                .count(),
            _ => 0,
        };
        let bytes = if bad == 0 {
            Cow::Borrowed(bytes)
        } else {
            self.not_finite += bad;
            Cow::Owned(
                bytes
                    .chunks_exact(4)
                    .flat_map(|b| as_written(f32_at(b)).to_le_bytes())
                    .collect(),
            )
        };
        let view = self.view(&bytes, target);
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

    /// Unit rotation keys (x, y, z, w), as written: one that is not finite
    /// (a damaged file's key or matrix, normalised) is the identity,
    /// counted in `not_finite`.
    pub(super) fn rotations<'a>(&mut self, v: &'a [f32]) -> Cow<'a, [f32]> {
        let bad = |q: &[f32]| q.iter().any(|x| !x.is_finite());
        let n = v.chunks_exact(4).filter(|q| bad(q)).count();
        if n == 0 {
            return Cow::Borrowed(v);
        }
        self.not_finite += n;
        let identity = [0.0, 0.0, 0.0, 1.0];
        let fixed = v
            .chunks_exact(4)
            .flat_map(|q| if bad(q) { &identity[..] } else { q });
        Cow::Owned(fixed.copied().collect())
    }

    /// A VEC2 float attribute (UV coordinates): its accessor.
    pub(super) fn vec2(&mut self, v: &[Vec2]) -> usize {
        self.accessor(
            bytemuck::cast_slice(v),
            Some(ARRAY_BUFFER),
            FLOAT,
            v.len(),
            "VEC2",
            false,
            None,
        )
    }

    pub(super) fn vec3(&mut self, v: &[Vec3], with_bounds: bool) -> usize {
        let bounds = with_bounds.then(|| {
            let (lo, hi) = v.iter().fold(
                (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
                |(lo, hi), p| {
                    let p = Vec3::from_array(p.to_array().map(as_written));
                    (lo.min(p), hi.max(p))
                },
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
            let lo = v
                .iter()
                .map(|&x| as_written(x))
                .fold(f32::INFINITY, f32::min);
            let hi = v
                .iter()
                .map(|&x| as_written(x))
                .fold(f32::NEG_INFINITY, f32::max);
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
