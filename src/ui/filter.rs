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

/// The name filter as this frame's sections apply it.
pub struct Filtering {
    pub names: NameFilter,
    /// Typed this frame: the sections with matches open, however the user
    /// left them.
    pub typed: bool,
}

impl Filtering {
    /// Whether a section with `matching` entries is opened this frame.
    pub fn open(&self, matching: usize) -> Option<bool> {
        (self.typed && self.names.is_active() && matching > 0).then_some(true)
    }

    /// A filtered list's section titled `title` over `total` entries,
    /// entry `i` named `name(i)` (asked only while something is typed):
    /// its header (open by default, counting the matches, opened as typing
    /// asks), which entries match, and how many.
    pub fn section<N: AsRef<str>>(
        &self,
        title: &str,
        total: usize,
        name: impl Fn(usize) -> N,
    ) -> (egui::CollapsingHeader, Vec<bool>, usize) {
        let matching: Vec<bool> = if self.names.is_active() {
            (0..total)
                .map(|i| self.names.matches(name(i).as_ref()))
                .collect()
        } else {
            vec![true; total]
        };
        let count = matching.iter().filter(|&&m| m).count();
        let header = egui::CollapsingHeader::new(self.names.header(title, count, total))
            .id_salt(title)
            .default_open(true)
            .open(self.open(count));
        (header, matching, count)
    }
}

/// The filter's field, at the inspector's top: Ctrl+F gives it the
/// keyboard, `×` clears it.
pub fn filter_field(ui: &mut egui::Ui, state: &mut super::UiState) -> Filtering {
    let mut typed = false;
    ui.horizontal(|ui| {
        let clear = if state.filter.is_empty() { 0.0 } else { 24.0 };
        // Focused before it is added, so that it takes the keys typed
        // since Ctrl+F in this very frame.
        let id = ui.make_persistent_id("name filter");
        if std::mem::take(&mut state.focus_filter) {
            ui.memory_mut(|m| m.request_focus(id));
        }
        let field = ui.add(
            egui::TextEdit::singleline(&mut state.filter)
                .id(id)
                .hint_text("filter by name (Ctrl+F)")
                .desired_width((ui.available_width() - clear).max(40.0)),
        );
        typed = field.changed();
        if !state.filter.is_empty()
            && ui
                .small_button("×")
                .on_hover_text("clear the filter")
                .clicked()
        {
            state.filter.clear();
            typed = true;
        }
    });
    Filtering {
        names: NameFilter::new(&state.filter),
        typed,
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
