//! The `?` help screen: every action and its keys, straight from the keymap table, and the
//! legend of symbols the agent gets. It scrolls; any other key closes it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::tui::keymap::{ACTIONS, Action, Keymap, Section};
use crate::tui::render;
use crate::tui::theme::Theme;
use crate::tui::widgets::{centered, frame_block};
use crate::tui::wrap::wrap_line;

/// Where the help screen's descriptions start (two spaces, then the keys).
const HELP_KEY_COLUMN: usize = 22;
/// The help box's width, borders included.
const HELP_WIDTH: usize = 72;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Help {
    pub offset: usize,
}

/// What an action does to the help screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HelpKey {
    Stay,
    Close,
    Quit,
}

impl Help {
    /// `page`: the lines a page key moves.
    pub(crate) fn act(&mut self, a: Action, page: usize) -> HelpKey {
        match a {
            Action::Down => self.offset += 1,
            Action::Up => self.offset = self.offset.saturating_sub(1),
            Action::PageDown => self.offset += page,
            Action::PageUp => self.offset = self.offset.saturating_sub(page),
            Action::Quit => return HelpKey::Quit,
            _ => return HelpKey::Close,
        }
        HelpKey::Stay
    }

    /// The mouse wheel: `delta` lines.
    pub(crate) fn scroll(&mut self, delta: isize) {
        self.offset = (self.offset as isize + delta).max(0) as usize;
    }

    pub(crate) fn draw(&self, f: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let lines = help_lines(theme, keymap);
        let rect = centered(area, HELP_WIDTH as u16, lines.len() as u16 + 2);
        let max = lines
            .len()
            .saturating_sub(rect.height.saturating_sub(2) as usize);
        let title = if max > 0 {
            " Help · j/k scroll · ? or Esc closes "
        } else {
            " Help · ? or Esc closes "
        };
        f.render_widget(Clear, rect);
        let block = frame_block(theme, title, true).style(theme.get("ui.popup"));
        let inner = block.inner(rect);
        f.render_widget(block, rect);
        f.render_widget(
            Paragraph::new(lines)
                .scroll((self.offset.min(max) as u16, 0))
                .style(theme.get("ui.popup")),
            inner,
        );
        if self.offset < max && rect.width > 12 {
            let more = " ↓ more ";
            let w = more.width() as u16;
            f.render_widget(
                Paragraph::new(more).style(theme.get("ui.title")),
                Rect::new(rect.x + rect.width - w - 2, rect.y + rect.height - 1, w, 1),
            );
        }
    }
}

/// The help screen's lines, straight from the keymap table.
pub(crate) fn help_lines(theme: &Theme, keymap: &Keymap) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for section in [Section::Move, Section::Layers, Section::Find, Section::Act] {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::styled(
            section.title().to_string(),
            theme.get("ui.help.section"),
        ));
        for (a, _, desc, s) in ACTIONS {
            if *s != section {
                continue;
            }
            // Bindings apart with a dot that is no key: `:` and `g:` must not read `: g :`.
            let keys = keymap.keys_of(*a);
            let mut spans = vec![Span::raw("  ")];
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    spans.push(Span::styled(" · ", theme.get("ui.muted")));
                }
                spans.push(Span::styled(k.clone(), theme.get("ui.help.key")));
            }
            let used: usize = spans.iter().map(|s| s.content.width()).sum();
            spans.push(Span::raw(
                " ".repeat(HELP_KEY_COLUMN.saturating_sub(used).max(1)),
            ));
            spans.push(Span::styled(desc.to_string(), theme.get("ui.text")));
            lines.push(Line::from(spans));
        }
    }
    lines.push(Line::default());
    lines.push(Line::styled(
        "Symbols".to_string(),
        theme.get("ui.help.section"),
    ));
    // The legend the agent gets, without its "Legend: " label, wrapped to the help's width.
    let legend = render::line(
        &crate::view::index::legend_line(&crate::model::mode::code()),
        theme,
    );
    let legend = Line::from(legend.spans.into_iter().skip(1).collect::<Vec<_>>());
    for l in wrap_line(legend, HELP_WIDTH - 6) {
        let mut spans = vec![Span::raw("  ")];
        spans.extend(l.spans);
        lines.push(Line::from(spans));
    }
    lines.push(Line::from(vec![
        Span::raw("  "),
        Span::styled("\"", theme.role(crate::view::Role::Time)),
        Span::styled(
            " in the time column: the same time as the row above",
            theme.get("ui.text"),
        ),
    ]));
    lines.push(Line::default());
    lines.push(Line::styled(
        "Keys are set in the config file: [tui] keys = { \"ctrl-n\" = \"down\" }".to_string(),
        theme.get("ui.muted"),
    ));
    lines.push(Line::styled(
        "Mouse: wheel scrolls, click selects, click again opens, click a breadcrumb to go back"
            .to_string(),
        theme.get("ui.muted"),
    ));
    lines
}
