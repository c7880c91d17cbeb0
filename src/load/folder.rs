//! The files beside the open one: PageDown and PageUp in the window step
//! through a folder of assets in the order a file manager lists them, as
//! image viewers do. Only the names and extensions are read here; the
//! file stepped to is opened (and its format detected) as any other.

use std::cmp::Ordering;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// Extensions of the files the viewer opens, lower case: the Open
/// dialog's filter and the files a folder is stepped through by.
pub const EXTENSIONS: &[&str] = &["p3m", "ptf", "m3d", "a3d", "papa", "pmf", "glb", "gltf"];

/// Which way to step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Next,
    Previous,
}

/// Whether `path` has one of [`EXTENSIONS`], in any case.
fn opens_by_extension(path: &Path) -> bool {
    path.extension()
        .and_then(OsStr::to_str)
        .is_some_and(|x| EXTENSIONS.iter().any(|e| x.eq_ignore_ascii_case(e)))
}

/// File names compared as people read them: runs of ASCII digits by
/// their value (`unit2` before `unit10`), everything else without regard
/// to case; names still equal then (`Unit1`, `unit01`) by their bytes, so
/// the order is total.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a, b);
    while let (Some(cx), Some(cy)) = (x.chars().next(), y.chars().next()) {
        let order = if cx.is_ascii_digit() && cy.is_ascii_digit() {
            let (dx, rest_x) = split_digits(x);
            let (dy, rest_y) = split_digits(y);
            (x, y) = (rest_x, rest_y);
            let (vx, vy) = (dx.trim_start_matches('0'), dy.trim_start_matches('0'));
            vx.len().cmp(&vy.len()).then_with(|| vx.cmp(vy))
        } else {
            (x, y) = (&x[cx.len_utf8()..], &y[cy.len_utf8()..]);
            cx.to_lowercase().cmp(cy.to_lowercase())
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    // One name is a prefix of the other as read: the shorter first.
    (!x.is_empty()).cmp(&!y.is_empty()).then_with(|| a.cmp(b))
}

/// The leading run of ASCII digits of `s`, and the rest.
fn split_digits(s: &str) -> (&str, &str) {
    s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()))
}

fn name_cmp(a: &OsStr, b: &OsStr) -> Ordering {
    natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()).then_with(|| a.cmp(b))
}

/// The file one step from `current` among the files of its folder that
/// the viewer opens (by extension, [`natural_cmp`] order), wrapping
/// around at either end; `None` when the folder holds no other. `current`
/// need not be there any more (deleted or renamed since it was opened):
/// the step is taken from where its name would be.
pub fn beside(current: &Path, direction: Direction) -> std::io::Result<Option<PathBuf>> {
    let folder = match current.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Some(name) = current.file_name() else {
        return Ok(None);
    };
    let mut names: Vec<OsString> = std::fs::read_dir(folder)?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let path = entry.path();
            // Symbolic links followed: a link to a model is a model.
            (entry.file_name() != name && opens_by_extension(&path) && path.is_file())
                .then(|| entry.file_name())
        })
        .collect();
    if names.is_empty() {
        return Ok(None);
    }
    names.sort_by(|a, b| name_cmp(a, b));
    let after = names.partition_point(|n| name_cmp(n, name) == Ordering::Less);
    let i = match direction {
        Direction::Next => after % names.len(),
        Direction::Previous => (after + names.len() - 1) % names.len(),
    };
    Ok(Some(folder.join(&names[i])))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Orders written out by hand, as a file manager lists them.
    #[test]
    fn names_sort_as_people_read_them() {
        let mut names = vec![
            "unit10.papa",
            "Unit1.m3d",
            "unit2.papa",
            "unit01.m3d",
            "b.pmf",
            "a10b2.p3m",
            "a10b10.p3m",
            "a9.p3m",
            "A.glb",
            "unit",
            "unit_anim_walk.papa",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            [
                "A.glb",
                "a9.p3m",
                "a10b2.p3m",
                "a10b10.p3m",
                "b.pmf",
                "unit",
                // The same as read (1 and 01, U and u): by their bytes,
                // 'U' before 'u'.
                "Unit1.m3d",
                "unit01.m3d",
                "unit2.papa",
                "unit10.papa",
                "unit_anim_walk.papa",
            ]
        );
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
        // Digit runs past u64 compare by length, then digit by digit.
        assert_eq!(
            natural_cmp("m99999999999999999999999", "m100000000000000000000000"),
            Ordering::Less
        );
        assert_eq!(natural_cmp("é2", "É10"), Ordering::Less);
    }

    /// A folder made here: what is stepped to from each file, both ways,
    /// wrapping around, past the files the viewer does not open and the
    /// folders named like models.
    #[test]
    fn steps_go_to_the_next_file_the_viewer_opens_and_wrap_around() {
        let dir = std::env::temp_dir().join(format!("facet-folder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub.m3d")).unwrap();
        for name in [
            "unit10.M3D",
            "unit2.papa",
            "notes.txt",
            "unit3.pmf",
            "model",
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let step = |from: &str, direction| {
            beside(&dir.join(from), direction)
                .unwrap()
                .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
        };
        use Direction::{Next, Previous};
        assert_eq!(step("unit2.papa", Next).as_deref(), Some("unit3.pmf"));
        assert_eq!(step("unit3.pmf", Next).as_deref(), Some("unit10.M3D"));
        assert_eq!(step("unit10.M3D", Next).as_deref(), Some("unit2.papa"));
        assert_eq!(step("unit2.papa", Previous).as_deref(), Some("unit10.M3D"));
        assert_eq!(step("unit10.M3D", Previous).as_deref(), Some("unit3.pmf"));
        // A file not there (renamed since it was opened): from where its
        // name would be; one the viewer does not open likewise.
        assert_eq!(step("unit4.pmf", Next).as_deref(), Some("unit10.M3D"));
        assert_eq!(step("unit4.pmf", Previous).as_deref(), Some("unit3.pmf"));
        assert_eq!(step("notes.txt", Previous).as_deref(), Some("unit10.M3D"));
        assert_eq!(step("zzz.p3m", Next).as_deref(), Some("unit2.papa"));

        // Alone in its folder: nowhere to step.
        let alone = dir.join("sub.m3d");
        std::fs::write(alone.join("only.ptf"), b"").unwrap();
        std::fs::write(alone.join("readme"), b"").unwrap();
        assert_eq!(beside(&alone.join("only.ptf"), Next).unwrap(), None);
        assert_eq!(beside(&alone.join("only.ptf"), Previous).unwrap(), None);
        // A folder that is gone is an error, not a panic.
        assert!(beside(&dir.join("gone/a.p3m"), Next).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
