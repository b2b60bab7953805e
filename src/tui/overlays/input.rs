//! The one-line inputs in the status line: the live `/` filter, `s` search, `:` jump and `x`
//! scrub. Each owns its text; what Enter does with it is the app's to route.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::line_edit::LineEdit;
use crate::tui::theme::Theme;

#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Filter(LineEdit),
    Search(LineEdit),
    Jump(LineEdit),
    /// Text to scrub everywhere (`x`).
    Scrub(LineEdit),
}

/// What a key did to an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputKey {
    /// Esc: close it.
    Cancel,
    /// Enter: close it and act on the text.
    Submit,
    /// The text was edited.
    Edited,
    /// Up or Down in the filter: move the list's cursor.
    Move(isize),
    Ignored,
}

impl Input {
    pub(crate) fn line(&self) -> &LineEdit {
        match self {
            Input::Filter(l) | Input::Search(l) | Input::Jump(l) | Input::Scrub(l) => l,
        }
    }

    fn line_mut(&mut self) -> &mut LineEdit {
        match self {
            Input::Filter(l) | Input::Search(l) | Input::Jump(l) | Input::Scrub(l) => l,
        }
    }

    pub(crate) fn key(&mut self, key: &KeyEvent) -> InputKey {
        match key.code {
            KeyCode::Esc => InputKey::Cancel,
            KeyCode::Enter => InputKey::Submit,
            KeyCode::Down | KeyCode::Up if matches!(self, Input::Filter(_)) => {
                InputKey::Move(if key.code == KeyCode::Down { 1 } else { -1 })
            }
            _ if self.line_mut().edit(key) => InputKey::Edited,
            _ => InputKey::Ignored,
        }
    }

    fn label(&self) -> &'static str {
        match self {
            Input::Filter(_) => " / ",
            Input::Search(_) => " search ",
            Input::Jump(_) => " jump to ",
            Input::Scrub(_) => " scrub everywhere ",
        }
    }

    /// Draws the input over the status line `area`.
    pub(crate) fn draw(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        f.buffer_mut().set_style(area, theme.get("ui.statusline"));
        let line = Line::from(vec![
            Span::styled(self.label(), theme.get("ui.statusline.mode")),
            Span::styled(format!(" {}", self.line().text()), theme.get("ui.input")),
            Span::styled(
                "▏",
                theme.get("ui.input").add_modifier(Modifier::SLOW_BLINK),
            ),
            Span::styled("  Enter ok · Esc cancel", theme.get("ui.muted")),
        ]);
        f.render_widget(Paragraph::new(line).style(theme.get("ui.input")), area);
    }
}
