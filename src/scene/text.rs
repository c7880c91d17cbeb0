//! Text the converters write into names, warnings and the inspector's rows
//! without `fmt`'s machinery: for the small files a thumbnailer opens by
//! the thousand, `format!` and `write!` were a sixth to a fifth of a load
//! (basic_cube.papa, voxel.m3d). Each writes what `format!` would.

use std::fmt::Write as _;

/// `s` quoted as `{:?}` quotes it. A string of printable ASCII without `"`
/// or `\` (which `{:?}` leaves as it is) is copied between quotes; any
/// other goes through `{:?}`.
pub fn push_quoted(out: &mut String, s: &str) {
    // Every byte looked at (no early exit), so the test runs on vectors.
    let plain = s.bytes().fold(true, |plain, b| {
        plain & (b' '..=b'~').contains(&b) & (b != b'"') & (b != b'\\')
    });
    if plain {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        let _ = write!(out, "{s:?}");
    }
}

/// `n` and `noun`, plural but for one: "1 file", "2 files" (nouns whose
/// plural adds an "s").
pub fn counted(n: usize, noun: &str) -> String {
    let mut out = String::with_capacity(noun.len() + 8);
    push_int(&mut out, n);
    out.push(' ');
    out.push_str(noun);
    if n != 1 {
        out.push('s');
    }
    out
}

/// `n` in decimal, as `{}` writes it.
pub fn push_int(out: &mut String, n: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// The low `digits` hex digits of `n`, upper case, as `{:0digits$X}`
/// writes a value of at most that many digits.
pub fn push_hex(out: &mut String, n: u32, digits: u32) {
    for k in (0..digits).rev() {
        let d = (n >> (4 * k)) & 0xF;
        out.push(char::from_digit(d, 16).unwrap_or('0').to_ascii_uppercase());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_plural_but_for_one() {
        assert_eq!(counted(0, "file"), "0 files");
        assert_eq!(counted(1, "file"), "1 file");
        assert_eq!(counted(2, "warning"), "2 warnings");
        assert_eq!(counted(1_000_000, "thing"), "1000000 things");
    }

    #[test]
    fn each_writes_what_format_writes() {
        // std's formatting is the reference.
        for s in [
            "plain name",
            "",
            "say \"cheese\"",
            "back\\slash",
            "tab\there",
            "new\nline",
            "esc\u{1b}[31m",
            "del\u{7f}",
            "平面",
            "e\u{301}",
        ] {
            let mut out = String::from("x");
            push_quoted(&mut out, s);
            assert_eq!(out, format!("x{s:?}"));
        }
        for n in [0u64, 7, 10, 65535, u64::MAX] {
            let mut out = String::new();
            push_int(&mut out, n);
            assert_eq!(out, n.to_string());
        }
        for n in [0u32, 0x3F3F74FF, 0xDEADBEEF, u32::MAX] {
            let mut out = String::new();
            push_hex(&mut out, n, 8);
            assert_eq!(out, format!("{n:08X}"));
        }
        for n in [0u8, 0x0A, 0xFF] {
            let mut out = String::new();
            push_hex(&mut out, n as u32, 2);
            assert_eq!(out, format!("{n:02X}"));
        }
    }
}
