//! Numbers as the panels write them: lengths and coordinates at four
//! significant digits, trailing zeros dropped.

/// A length as the inspector and the measuring tape write it: four
/// significant digits or more (whole units past 1000), trailing zeros
/// dropped: `2.5`, `0.25`, `1235`.
pub fn length_text(x: f32) -> String {
    let decimals = if x >= 1000.0 {
        0
    } else {
        (3 - x.max(1e-3).log10().floor() as i32).clamp(0, 6) as usize
    };
    let s = format!("{x:.decimals$}");
    // 1.500 -> 1.5, 2.000 -> 2
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A signed number as [`length_text`] writes its size: `-0.25`, `3`; a
/// negative that rounds to nothing is `0`.
pub fn signed_text(x: f32) -> String {
    let size = length_text(x.abs());
    if x < 0.0 && size != "0" {
        format!("-{size}")
    } else {
        size
    }
}

/// Coordinates in brackets: `(1, -0.25, 3.5)`.
pub fn coords(xs: &[f32]) -> String {
    let parts: Vec<String> = xs.iter().map(|&x| signed_text(x)).collect();
    format!("({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_read_at_four_significant_digits_with_their_signs() {
        assert_eq!(coords(&[1.0, -0.25, 3.5]), "(1, -0.25, 3.5)");
        // -0.0 and a negative under the last digit shown read as 0.
        assert_eq!(signed_text(-0.0), "0");
        assert_eq!(signed_text(-0.000_000_1), "0");
        assert_eq!(signed_text(-0.000_02), "-0.00002");
        assert_eq!(signed_text(-12.345_67), "-12.35");
        assert_eq!(coords(&[0.5, 0.125]), "(0.5, 0.125)");
    }
}
