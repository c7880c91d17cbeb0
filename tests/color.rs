//! Colour conversions used by material keyframe interpolation, against
//! published values, and the midpoints each interpolation mode produces.

use facet::anim::color::*;
use facet::scene::material_anim::MatInterp;

fn hex(rgb: u32) -> [f32; 3] {
    [(rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255].map(|c| c as f32 / 255.0)
}

fn assert_close(got: [f32; 3], want: [f32; 3], tol: [f32; 3], what: &str) {
    for i in 0..3 {
        assert!(
            (got[i] - want[i]).abs() <= tol[i],
            "{what}: component {i} is {got:?}, expected {want:?} (tolerance {tol:?})"
        );
    }
}

/// Hue distance on the circle.
fn hue_diff(a: f32, b: f32) -> f32 {
    let d = (a - b).rem_euclid(360.0);
    d.min(360.0 - d)
}

#[test]
fn hsv_matches_textbook_values() {
    // (colour, hue in degrees, saturation, value), hexcone model.
    let cases = [
        (0xFF0000, 0.0, 1.0, 1.0),
        (0x00FF00, 120.0, 1.0, 1.0),
        (0x0000FF, 240.0, 1.0, 1.0),
        (0xFF8000, 30.1, 1.0, 1.0),
        (0x336699, 210.0, 0.6667, 0.6),
        (0x808080, 0.0, 0.0, 0.502),
        (0x000000, 0.0, 0.0, 0.0),
    ];
    for (c, h, s, v) in cases {
        let [gh, gs, gv] = rgb_to_hsv(hex(c));
        assert!(hue_diff(gh, h) < 0.2, "#{c:06X}: hue {gh}, expected {h}");
        assert_close(
            [gs, gv, 0.0],
            [s, v, 0.0],
            [1e-3; 3],
            &format!("#{c:06X} s, v"),
        );
        assert_close(
            hsv_to_rgb([gh, gs, gv]),
            hex(c),
            [1e-5; 3],
            &format!("#{c:06X} back"),
        );
    }
}

#[test]
fn oklch_matches_published_values() {
    // CSS Color 4 / Ottosson's OKLab: sRGB primaries and greys in OKLCH
    // (lightness 0..1, chroma, hue in degrees), as listed by oklch.com and
    // the CSS Color 4 sample conversions.
    let cases = [
        (0xFF0000, 0.627_96, 0.257_68, 29.234),
        (0x00FF00, 0.866_44, 0.294_83, 142.495),
        (0x0000FF, 0.452_01, 0.313_21, 264.052),
        (0xFFFFFF, 1.0, 0.0, f32::NAN),
        (0x808080, 0.599_87, 0.0, f32::NAN),
        (0xFFFF00, 0.967_98, 0.211_01, 109.769),
    ];
    for (c, l, ch, h) in cases {
        let [gl, gc, gh] = srgb_to_oklch(hex(c));
        assert!((gl - l).abs() < 1e-3, "#{c:06X}: L {gl}, expected {l}");
        assert!((gc - ch).abs() < 1e-3, "#{c:06X}: C {gc}, expected {ch}");
        if !h.is_nan() {
            assert!(hue_diff(gh, h) < 0.05, "#{c:06X}: h {gh}, expected {h}");
        } else {
            assert!(gc < ACHROMATIC_CHROMA, "#{c:06X} should count as grey");
        }
        assert_close(
            oklch_to_srgb([gl, gc, gh]),
            hex(c),
            [2e-4; 3],
            &format!("#{c:06X} back"),
        );
    }
}

#[test]
fn hues_take_the_shorter_arc() {
    assert!((lerp_hue(350.0, 10.0, 0.5) - 0.0).abs() < 1e-4);
    assert!((lerp_hue(10.0, 350.0, 0.25) - 5.0).abs() < 1e-4);
    assert!((lerp_hue(0.0, 240.0, 0.5) - 300.0).abs() < 1e-4);
    assert!((lerp_hue(90.0, 180.0, 0.5) - 135.0).abs() < 1e-4);
}

#[test]
fn midpoints_of_red_and_blue_in_each_mode() {
    let red = [1.0, 0.0, 0.0, 1.0];
    let blue = [0.0, 0.0, 1.0, 0.0];
    let mid = |m| mix_rgba(red, blue, 0.5, m);

    assert_eq!(mid(MatInterp::Step), red);
    assert_eq!(mid(MatInterp::Linear), [0.5, 0.0, 0.5, 0.5]);

    // HSV: 0° and 240° meet at 300° (magenta), not 120° (green).
    let hsv = mid(MatInterp::Hsv);
    assert_close(
        [hsv[0], hsv[1], hsv[2]],
        [1.0, 0.0, 1.0],
        [1e-5; 3],
        "HSV midpoint",
    );
    assert_eq!(hsv[3], 0.5, "alpha is linear");

    // OKLCH: hue halfway along the shorter arc between 29.23° and 264.05°
    // (through 0°), lightness and chroma halfway.
    let ok = mid(MatInterp::Oklch);
    let [l, c, h] = srgb_to_oklch([ok[0], ok[1], ok[2]]);
    let want_h = lerp_hue(29.234, 264.052, 0.5);
    assert!((want_h - 326.64).abs() < 0.01);
    assert!(
        hue_diff(h, want_h) < 0.5,
        "OKLCH midpoint hue {h}, expected {want_h}"
    );
    // The halfway point (L 0.54, C 0.285) lies outside sRGB: clamping the
    // channels keeps it purple but moves L and C.
    assert!(l > 0.5 && l < 0.6 && c > 0.2, "L {l}, C {c}");
    assert!(ok[0] > 0.6 && ok[2] > 0.6 && ok[1] < 0.2, "purple: {ok:?}");
    assert_eq!(ok[3], 0.5);
}

#[test]
fn oklch_midpoint_inside_the_gamut_is_exact() {
    // Muted red and blue: their OKLCH midpoint is inside sRGB, so it must
    // come back as exactly the averaged L and C on the shorter hue arc.
    let a = hex(0xB06060);
    let b = hex(0x6060B0);
    let (la, lb) = (srgb_to_oklch(a), srgb_to_oklch(b));
    for t in [0.25, 0.5, 0.75] {
        let m = mix_rgba(
            [a[0], a[1], a[2], 1.0],
            [b[0], b[1], b[2], 1.0],
            t,
            MatInterp::Oklch,
        );
        let [l, c, h] = srgb_to_oklch([m[0], m[1], m[2]]);
        assert!(
            (l - (la[0] + (lb[0] - la[0]) * t)).abs() < 1e-4,
            "t {t}: L {l}"
        );
        assert!(
            (c - (la[1] + (lb[1] - la[1]) * t)).abs() < 1e-4,
            "t {t}: C {c}"
        );
        let want = lerp_hue(la[2], lb[2], t);
        assert!(hue_diff(h, want) < 0.05, "t {t}: h {h}, expected {want}");
        // The shorter arc from ~20° to ~280° runs through 0°, not 150°.
        assert!(
            !(60.0..240.0).contains(&h),
            "t {t}: h {h} took the long way"
        );
    }
}

#[test]
fn grey_ends_borrow_the_other_hue() {
    // Grey -> red in HSV stays on red's hue: the midpoint has no green/blue cast.
    let grey = [0.5, 0.5, 0.5, 1.0];
    let red = [1.0, 0.0, 0.0, 1.0];
    let hsv = mix_rgba(grey, red, 0.5, MatInterp::Hsv);
    assert!(
        hsv[1] <= hsv[0] && (hsv[1] - hsv[2]).abs() < 1e-6,
        "{hsv:?}"
    );
    let ok = mix_rgba(grey, red, 0.5, MatInterp::Oklch);
    let [_, _, h] = srgb_to_oklch([ok[0], ok[1], ok[2]]);
    assert!(
        hue_diff(h, 29.234) < 1.0,
        "OKLCH grey->red midpoint hue {h}"
    );
}
