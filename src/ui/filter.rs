//! The inspector's name filter (`Ctrl+F`): the parts, materials, textures,
//! bones, clips and map entities whose names hold every word typed, in any
//! case, are listed; the rest are left out until it is cleared.

/// A filter as typed, ready to test names against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameFilter {
    /// The typed words, lower-cased; none: everything matches.
    words: Vec<String>,
}

impl NameFilter {
    pub fn new(text: &str) -> Self {
        NameFilter {
            words: text.split_whitespace().map(str::to_lowercase).collect(),
        }
    }

    /// Something is typed: the lists are narrowed.
    pub fn is_active(&self) -> bool {
        !self.words.is_empty()
    }

    /// `name` holds every word, in any order and any case (`"arm l"`
    /// finds `"Arm_L"` and `"l_upperarm"`).
    pub fn matches(&self, name: &str) -> bool {
        if self.words.is_empty() {
            return true;
        }
        let name = name.to_lowercase();
        self.words.iter().all(|w| name.contains(w.as_str()))
    }

    /// A section's header: `"Bones (62)"`, or with the filter on how many
    /// of them match, `"Bones (3 of 62)"`.
    pub fn header(&self, title: &str, matching: usize, total: usize) -> String {
        if self.is_active() {
            format!("{title} ({matching} of {total})")
        } else {
            format!("{title} ({total})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::NameFilter;

    #[test]
    fn every_word_in_any_case_and_order() {
        let f = NameFilter::new("  arm L ");
        assert!(f.is_active());
        assert!(f.matches("Arm_L"));
        assert!(f.matches("l_upperarm"));
        assert!(f.matches("ARM.LEFT"));
        assert!(!f.matches("arm_r"));
        assert!(!f.matches("leg_l"));
        // Beyond ASCII: the lower case of both sides.
        assert!(NameFilter::new("ÄRM").matches("oberärm"));
        assert!(NameFilter::new("плечо").matches("ПЛЕЧО_L"));
    }

    #[test]
    fn nothing_typed_matches_everything() {
        for text in ["", "   ", "\t\n"] {
            let f = NameFilter::new(text);
            assert!(!f.is_active());
            assert!(f.matches(""));
            assert!(f.matches("anything"));
            assert_eq!(f.header("Parts", 0, 7), "Parts (7)");
        }
        assert_eq!(NameFilter::new("x").header("Parts", 2, 7), "Parts (2 of 7)");
    }
}
