//! The `p` project switcher: every project with its counts, most recently active first;
//! Enter switches the browser to the selected one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::store::browse::ProjectCount;
use crate::tui::keymap::Action;
use crate::tui::theme::Theme;
use crate::tui::widgets::{centered, frame_block};
use crate::view::time::{Tz, thousands};

#[derive(Debug, Clone, PartialEq)]
pub struct Projects {
    list: Vec<ProjectCount>,
    cursor: usize,
    loading: bool,
    /// The worker's ticket for the list.
    pub ticket: u64,
}

/// What an action does in the switcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pick {
    Stay,
    Close,
    Quit,
    /// Switch the browser to this project.
    Switch(String),
}

impl Projects {
    /// The switcher, waiting for the list asked for under `ticket`.
    pub(crate) fn loading(ticket: u64) -> Projects {
        Projects {
            list: Vec::new(),
            cursor: 0,
            loading: true,
            ticket,
        }
    }

    /// The worker's answer.
    pub(crate) fn fill(&mut self, list: Vec<ProjectCount>) {
        self.list = list;
        self.loading = false;
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, ProjectCount> {
        self.list.iter()
    }

    pub(crate) fn act(&mut self, a: Action) -> Pick {
        let last = self.list.len().saturating_sub(1);
        match a {
            Action::Down => self.cursor = (self.cursor + 1).min(last),
            Action::Up => self.cursor = self.cursor.saturating_sub(1),
            Action::Top => self.cursor = 0,
            Action::Bottom => self.cursor = last,
            Action::Open => {
                if let Some(p) = self.list.get(self.cursor) {
                    return Pick::Switch(p.name.clone());
                }
            }
            Action::Quit => return Pick::Quit,
            _ => return Pick::Close,
        }
        Pick::Stay
    }

    /// Draws the switcher over `area`; `current` is marked.
    pub(crate) fn draw(&self, f: &mut Frame, area: Rect, theme: &Theme, tz: &Tz, current: &str) {
        let rect = centered(area, 64, self.list.len() as u16 + 4);
        f.render_widget(Clear, rect);
        let block =
            frame_block(theme, " Projects · Enter switches ", true).style(theme.get("ui.popup"));
        let inner = block.inner(rect);
        f.render_widget(block, rect);
        if self.loading {
            f.render_widget(
                Paragraph::new("Loading…").style(theme.get("ui.muted")),
                inner,
            );
            return;
        }
        let name_w = self
            .list
            .iter()
            .map(|p| p.name.width())
            .max()
            .unwrap_or(8)
            .min(30);
        let first = self
            .cursor
            .saturating_sub(inner.height.saturating_sub(1) as usize);
        for (i, p) in self
            .list
            .iter()
            .enumerate()
            .skip(first)
            .take(inner.height as usize)
        {
            let y = inner.y + (i - first) as u16;
            let mark = if p.name.eq_ignore_ascii_case(current) {
                "●"
            } else {
                " "
            };
            let line = Line::from(vec![
                Span::styled(format!("{mark} "), theme.get("ui.info")),
                Span::styled(format!("{:<name_w$}", p.name), theme.get("memory.title")),
                Span::styled(
                    format!("  {:>7} obs", thousands(p.observations)),
                    theme.get("memory.number"),
                ),
                Span::styled(
                    format!("  {:>5} sessions", thousands(p.summaries)),
                    theme.get("memory.muted"),
                ),
                Span::styled(format!("  {}", tz.day(p.last_at)), theme.get("memory.time")),
            ]);
            let r = Rect::new(inner.x, y, inner.width, 1);
            f.render_widget(Paragraph::new(line), r);
            if i == self.cursor {
                f.buffer_mut().set_style(r, theme.get("ui.selection"));
            }
        }
    }
}
