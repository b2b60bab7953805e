//! A question answered with `y`: yes sends the change it holds to the worker, any other key
//! leaves everything as it was.

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

use crate::tui::data::Request;
use crate::tui::theme::Theme;
use crate::tui::widgets::{centered, frame_block};

#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    pub question: String,
    pub detail: String,
    /// What a yes sends (a change to the database).
    pub request: Request,
}

impl Confirm {
    /// The request to send if `code` is a yes.
    pub(crate) fn answer(self, code: KeyCode) -> Option<Request> {
        matches!(code, KeyCode::Char('y') | KeyCode::Char('Y')).then_some(self.request)
    }

    pub(crate) fn draw(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let (question, detail) = (&self.question, &self.detail);
        let widest = question.width().max(detail.width()).max(28) + 4;
        let width = (widest.min(usize::from(area.width.saturating_sub(2))) as u16).max(10);
        let inner_width = width.saturating_sub(4).max(1) as usize;
        // The detail (where a scrub would write) may be long: wrap it under the question. Word
        // wrapping can need a line more than the character count says, hence the +1.
        let wrap = |text: &str| (text.width().div_ceil(inner_width).max(1) + 1).min(200) as u16;
        let detail_lines = if detail.is_empty() { 0 } else { wrap(detail) };
        let height = 2 + wrap(question) + detail_lines + 2;
        let rect = centered(area, width, height);
        f.render_widget(Clear, rect);
        let block = frame_block(theme, " Confirm ", true).style(theme.get("ui.popup"));
        let inner = block.inner(rect);
        f.render_widget(block, rect);
        let mut lines = vec![Line::styled(
            question.to_string(),
            theme.get("ui.text").add_modifier(Modifier::BOLD),
        )];
        if !detail.is_empty() {
            lines.push(Line::styled(detail.to_string(), theme.get("ui.muted")));
        }
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled("y", theme.get("ui.help.key")),
            Span::styled(" yes   ", theme.get("ui.text")),
            Span::styled("any other key", theme.get("ui.help.key")),
            Span::styled(" no", theme.get("ui.text")),
        ]));
        f.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .style(theme.get("ui.popup")),
            Rect {
                x: inner.x + 1,
                width: inner.width.saturating_sub(2),
                ..inner
            },
        );
    }
}
