//! A one-line text field's editing keys: type, Backspace, Ctrl-U (clear), Ctrl-W (last word).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineEdit {
    text: String,
}

impl LineEdit {
    pub(crate) fn new(text: impl Into<String>) -> LineEdit {
        LineEdit { text: text.into() }
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn into_text(self) -> String {
        self.text
    }

    /// Applies `key` if it edits text (even when nothing changes, as Backspace on nothing);
    /// `false` for any other key.
    pub(crate) fn edit(&mut self, key: &KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Backspace => {
                self.text.pop();
            }
            KeyCode::Char('u') if ctrl => self.text.clear(),
            KeyCode::Char('w') if ctrl => {
                let trimmed = self.text.trim_end().len();
                let keep = self.text[..trimmed].rfind(' ').map_or(0, |i| i + 1);
                self.text.truncate(keep);
            }
            KeyCode::Char(c) if !ctrl => self.text.push(c),
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(l: &mut LineEdit, code: KeyCode, mods: KeyModifiers) -> bool {
        l.edit(&KeyEvent::new(code, mods))
    }

    #[test]
    fn edits_and_word_deletion() {
        let mut l = LineEdit::default();
        for c in "pool fix ".chars() {
            assert!(press(&mut l, KeyCode::Char(c), KeyModifiers::NONE));
        }
        assert!(press(&mut l, KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(l.text(), "pool ");
        assert!(press(&mut l, KeyCode::Backspace, KeyModifiers::NONE));
        assert_eq!(l.text(), "pool");
        assert!(press(&mut l, KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!(l.text(), "");
        assert!(!press(&mut l, KeyCode::Down, KeyModifiers::NONE));
        assert!(!press(&mut l, KeyCode::Char('x'), KeyModifiers::CONTROL));
    }
}
