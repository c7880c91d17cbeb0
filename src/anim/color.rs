//! Colour spaces for material keyframe interpolation. `shaders/material_anim.wgsl`
//! has the same functions; tests hold both to published values.
//!
//! - Stored colours are sRGB-encoded (u8 / 255). `Linear` and `Hsv`
//!   interpolation work on those encoded values, as an engine lerping bytes or
//!   converting them with the textbook hexcone formulas does.
//! - OKLCH is defined from *linear-light* sRGB: decode with the sRGB transfer
//!   function (IEC 61966-2-1), convert with Björn Ottosson's OKLab matrices,
//!   then take polar coordinates. Results out of the sRGB gamut are clamped
//!   per channel after encoding.
//! - Hues are in degrees, `0 <= h < 360`, and interpolate along the shorter
//!   arc. A colour without hue (HSV saturation 0, OKLCH chroma below
//!   [`ACHROMATIC_CHROMA`]) takes the other end's hue, so fading from grey to
//!   a colour does not sweep through the rainbow.

use crate::scene::material_anim::MatInterp;

/// OKLCH chroma under which a colour counts as grey (hue undefined).
pub const ACHROMATIC_CHROMA: f32 = 1e-4;

/// sRGB transfer functions: the scene's (converters use them too).
pub use crate::scene::{linear_to_srgb, srgb_to_linear};

/// Encoded RGB -> (hue in degrees, saturation, value).
pub fn rgb_to_hsv([r, g, b]: [f32; 3]) -> [f32; 3] {
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let d = max - min;
    let s = if max > 0.0 { d / max } else { 0.0 };
    let h = if d <= 0.0 {
        0.0
    } else if max == r {
        60.0 * ((g - b) / d)
    } else if max == g {
        60.0 * ((b - r) / d + 2.0)
    } else {
        60.0 * ((r - g) / d + 4.0)
    };
    [h.rem_euclid(360.0), s, max]
}

pub fn hsv_to_rgb([h, s, v]: [f32; 3]) -> [f32; 3] {
    // The "k" form: no sector switch, the same in WGSL.
    let f = |n: f32| {
        let k = (n + h / 60.0).rem_euclid(6.0);
        v - v * s * k.min(4.0 - k).clamp(0.0, 1.0)
    };
    [f(5.0), f(3.0), f(1.0)]
}

fn cbrt(x: f32) -> f32 {
    // As in the shader (WGSL has no cbrt): odd root of the magnitude.
    x.signum() * x.abs().powf(1.0 / 3.0)
}

pub fn linear_srgb_to_oklab([r, g, b]: [f32; 3]) -> [f32; 3] {
    let l = 0.412_221_47 * r + 0.536_332_55 * g + 0.051_445_995 * b;
    let m = 0.211_903_5 * r + 0.680_699_5 * g + 0.107_396_96 * b;
    let s = 0.088_302_46 * r + 0.281_718_85 * g + 0.629_978_7 * b;
    let (l, m, s) = (cbrt(l), cbrt(m), cbrt(s));
    [
        0.210_454_26 * l + 0.793_617_8 * m - 0.004_072_047 * s,
        1.977_998_5 * l - 2.428_592_2 * m + 0.450_593_7 * s,
        0.025_904_037 * l + 0.782_771_77 * m - 0.808_675_77 * s,
    ]
}

pub fn oklab_to_linear_srgb([l, a, b]: [f32; 3]) -> [f32; 3] {
    let l_ = l + 0.396_337_78 * a + 0.215_803_76 * b;
    let m_ = l - 0.105_561_346 * a - 0.063_854_17 * b;
    let s_ = l - 0.089_484_18 * a - 1.291_485_5 * b;
    let (l, m, s) = (l_ * l_ * l_, m_ * m_ * m_, s_ * s_ * s_);
    [
        4.076_741_7 * l - 3.307_711_6 * m + 0.230_969_94 * s,
        -1.268_438 * l + 2.609_757_4 * m - 0.341_319_38 * s,
        -0.004_196_086_3 * l - 0.703_418_6 * m + 1.707_614_7 * s,
    ]
}

/// Encoded sRGB -> (lightness, chroma, hue in degrees).
pub fn srgb_to_oklch(c: [f32; 3]) -> [f32; 3] {
    let [l, a, b] = linear_srgb_to_oklab(c.map(srgb_to_linear));
    let h = b.atan2(a).to_degrees().rem_euclid(360.0);
    [l, (a * a + b * b).sqrt(), h]
}

/// (lightness, chroma, hue) -> encoded sRGB, clamped into the gamut.
pub fn oklch_to_srgb([l, c, h]: [f32; 3]) -> [f32; 3] {
    let h = h.to_radians();
    oklab_to_linear_srgb([l, c * h.cos(), c * h.sin()]).map(|x| linear_to_srgb(x.clamp(0.0, 1.0)))
}

/// From hue `a` towards hue `b` along the shorter arc, result in `0..360`.
pub fn lerp_hue(a: f32, b: f32, t: f32) -> f32 {
    let d = (b - a + 540.0).rem_euclid(360.0) - 180.0;
    (a + d * t).rem_euclid(360.0)
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// Interpolates polar colours (hue in `.0`); `grey` says whether an end has
/// no hue, in which case it borrows the other's.
fn lerp_polar(
    mut a: [f32; 3],
    mut b: [f32; 3],
    t: f32,
    grey: impl Fn(&[f32; 3]) -> bool,
) -> [f32; 3] {
    if grey(&a) {
        a[0] = b[0];
    } else if grey(&b) {
        b[0] = a[0];
    }
    [
        lerp_hue(a[0], b[0], t),
        lerp(a[1], b[1], t),
        lerp(a[2], b[2], t),
    ]
}

/// The colour `t` of the way from `a` to `b` (encoded RGBA) under `interp`.
/// Alpha is always linear; `Step` holds `a`.
pub fn mix_rgba(a: [f32; 4], b: [f32; 4], t: f32, interp: MatInterp) -> [f32; 4] {
    let rgb = |c: [f32; 4]| [c[0], c[1], c[2]];
    let out = match interp {
        MatInterp::Step => return a,
        MatInterp::Linear => [
            lerp(a[0], b[0], t),
            lerp(a[1], b[1], t),
            lerp(a[2], b[2], t),
        ],
        MatInterp::Hsv => {
            let (ha, hb) = (rgb_to_hsv(rgb(a)), rgb_to_hsv(rgb(b)));
            // Reorder to (h, s, v) = already hue-first.
            hsv_to_rgb(lerp_polar(ha, hb, t, |c| c[1] <= 0.0))
        }
        MatInterp::Oklch => {
            let [la, ca, ha] = srgb_to_oklch(rgb(a));
            let [lb, cb, hb] = srgb_to_oklch(rgb(b));
            let [h, c, l] = lerp_polar([ha, ca, la], [hb, cb, lb], t, |c| c[1] < ACHROMATIC_CHROMA);
            oklch_to_srgb([l, c, h])
        }
    };
    [out[0], out[1], out[2], lerp(a[3], b[3], t)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f32; 3], b: [f32; 3], tol: f32) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    #[test]
    fn srgb_transfer_round_trips() {
        for i in 0..=255 {
            let c = i as f32 / 255.0;
            assert!((linear_to_srgb(srgb_to_linear(c)) - c).abs() < 1e-5, "{i}");
        }
        // IEC 61966-2-1: 0.5 encoded is 0.2140 linear.
        assert!((srgb_to_linear(0.5) - 0.214_041).abs() < 1e-5);
    }

    #[test]
    fn hsv_round_trips_every_grey_and_primary() {
        for c in [
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0],
            [0.5, 0.5, 0.5],
            [1.0, 0.0, 0.0],
            [0.2, 0.4, 0.6],
            [0.9, 0.1, 0.7],
        ] {
            assert!(close(hsv_to_rgb(rgb_to_hsv(c)), c, 1e-6), "{c:?}");
        }
    }
}
