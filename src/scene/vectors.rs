//! Work on whole lists of vectors that the converters would otherwise do
//! one vector at a time.

use glam::{Mat4, Vec3, Vec4};

/// Each vector of `v` made unit length as [`Vec3::normalize_or`] makes it,
/// bit for bit (`fallback` where the length is zero, too small or too large
/// to invert, or not finite), four vectors at a time ([`normalize_rows`]).
/// One vector's square root and division at a time queued on the divider
/// (basic_cube.papa's 72 normals and tangents were a tenth of its load).
pub fn normalize_each(v: &mut [Vec3], fallback: Vec3) {
    let mut fours = v.chunks_exact_mut(4);
    for four in &mut fours {
        let rows = Mat4::from_cols(
            four[0].extend(0.0),
            four[1].extend(0.0),
            four[2].extend(0.0),
            four[3].extend(0.0),
        )
        .transpose();
        let unit = normalize_rows([rows.x_axis, rows.y_axis, rows.z_axis], fallback);
        four.copy_from_slice(&unit);
    }
    for n in fours.into_remainder() {
        *n = n.normalize_or(fallback);
    }
}

/// Four vectors given as rows (`x` holds the four x, then `y`, `z`) made
/// unit length, each bit for bit as [`Vec3::normalize_or`] makes it: the
/// same operations in the same order (the squares summed x, y then z,
/// `1 / sqrt`, a product a part), four lanes at a time.
pub fn normalize_rows([x, y, z]: [Vec4; 3], fallback: Vec3) -> [Vec3; 4] {
    let length = (x * x + y * y + z * z).to_array().map(f32::sqrt);
    let recip = Vec4::ONE / Vec4::from_array(length);
    let keep = recip.is_finite_mask() & recip.cmpgt(Vec4::ZERO);
    let unit = |v: Vec4, f: f32| Vec4::select(keep, v * recip, Vec4::splat(f));
    let (x, y, z) = (
        unit(x, fallback.x),
        unit(y, fallback.y),
        unit(z, fallback.z),
    );
    let cols = Mat4::from_cols(x, y, z, Vec4::ZERO).transpose();
    [cols.x_axis, cols.y_axis, cols.z_axis, cols.w_axis].map(|c| c.truncate())
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
