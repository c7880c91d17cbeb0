//! Work on whole lists of vectors that the converters would otherwise do
//! one vector at a time.

use glam::Vec3;

/// Each vector of `v` made unit length as [`Vec3::normalize_or`] makes it,
/// bit for bit (`fallback` where the length is zero, too small or too large
/// to invert, or not finite), four vectors at a time: the square roots and
/// divisions of four vectors are independent and go through the vector
/// unit together, where one vector's at a time queued on the divider
/// (basic_cube.papa's 72 normals and tangents were a tenth of its load).
pub fn normalize_each(v: &mut [Vec3], fallback: Vec3) {
    let mut fours = v.chunks_exact_mut(4);
    for four in &mut fours {
        // `Vec3::dot`'s sum, in its order; `length_recip` is 1 / sqrt.
        let recip: [f32; 4] = std::array::from_fn(|k| 1.0 / four[k].dot(four[k]).sqrt());
        for (n, r) in four.iter_mut().zip(recip) {
            *n = if r.is_finite() && r > 0.0 {
                *n * r
            } else {
                fallback
            };
        }
    }
    for n in fours.into_remainder() {
        *n = n.normalize_or(fallback);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vector_comes_out_as_glams_normalize_or_makes_it() {
        // glam is the reference: its normalize_or per vector. The list
        // covers a zero vector, one whose squared length underflows to a
        // subnormal or to zero, one whose squared length overflows, NaN and
        // infinite parts, negative zeros and ordinary vectors, at every
        // position in a group of four and in the remainder after them.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            f32::from_bits((seed >> 32) as u32)
        };
        let mut cases = vec![
            Vec3::ZERO,
            Vec3::new(-0.0, 0.0, -0.0),
            Vec3::new(1e-20, 0.0, 0.0),
            Vec3::new(1e-30, 1e-30, 1e-30),
            Vec3::new(3e-39, 0.0, 0.0),
            Vec3::new(1e19, 1e19, 0.0),
            Vec3::new(3e38, 0.0, 0.0),
            Vec3::new(f32::NAN, 0.0, 1.0),
            Vec3::new(f32::INFINITY, 0.0, 0.0),
            Vec3::new(0.0, f32::NEG_INFINITY, 1.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(0.6, -0.8, 0.0),
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(-4.5e-8, 0.99999994, 1e-7),
        ];
        for _ in 0..400 {
            let v = Vec3::new(next(), next(), next());
            // Raw bit patterns (every exponent, NaNs included), and the
            // same scaled to the range a file's normals hold.
            cases.push(v);
            cases.push(Vec3::new(
                v.x.fract() * 2.0,
                v.y.fract() * 2.0,
                v.z.fract() * 2.0,
            ));
        }
        for fallback in [Vec3::Y, Vec3::ZERO] {
            for len in [cases.len(), cases.len() - 1, cases.len() - 2, 3, 1, 0] {
                let mut got = cases[..len].to_vec();
                normalize_each(&mut got, fallback);
                for (i, (g, c)) in got.iter().zip(&cases).enumerate() {
                    let want = c.normalize_or(fallback);
                    assert_eq!(
                        g.to_array().map(f32::to_bits),
                        want.to_array().map(f32::to_bits),
                        "vector {i} of {len} ({c:?}, fallback {fallback:?}): {g:?}, glam {want:?}"
                    );
                }
            }
        }
    }
}
