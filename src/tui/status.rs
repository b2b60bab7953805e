//! The status line: the layer's mode, a message or the keys that act here, and the position
//! among the layer's items.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::keymap::{Action, Keymap};
use super::layer::Layer;
use super::theme::Theme;
use crate::view::time::thousands;

/// The keys the footer offers: only those that do something on this layer (`Enter` only where
/// a row leads somewhere, `a`/`w` not on the layer they would leave). `can_go_back`: a layer
/// under this one, or the preview has the focus.
pub(crate) fn footer_hints(top: &Layer, can_go_back: bool) -> Vec<(Action, &'static str)> {
    let mut hints = Vec::new();
    if top.rows.iter().any(|r| r.target.is_some()) {
        hints.push((Action::Open, "open"));
    }
    if top.filter.is_some() {
        hints.push((Action::Back, "clear filter"));
    } else if can_go_back {
        hints.push((Action::Back, "back"));
    }
    hints.extend([(Action::Filter, "filter"), (Action::Search, "search")]);
    let leaving = top.component.behaviour().leaving_action();
    for (action, label) in [(Action::Agent, "agent"), (Action::WorkState, "work")] {
        if leaving != Some(action) {
            hints.push((action, label));
        }
    }
    hints.extend([
        (Action::Projects, "projects"),
        (Action::Help, "help"),
        (Action::Quit, "quit"),
    ]);
    hints
}

/// Draws the status line of `top`: `message` (text, is an error) or else the `hints` that fit.
pub(crate) fn draw(
    f: &mut Frame,
    area: Rect,
    (theme, keymap): (&Theme, &Keymap),
    top: &Layer,
    message: Option<&(String, bool)>,
    hints: Vec<(Action, &'static str)>,
) {
    let bar = theme.get("ui.statusline");
    f.buffer_mut().set_style(area, bar);
    let component = top.component.behaviour();
    let mode = format!(" {} ", component.name().to_uppercase());
    let mut spans = vec![
        Span::styled(mode, theme.get("ui.statusline.mode")),
        Span::styled(" ", bar),
    ];
    if let Some((msg, err)) = message {
        let s = if *err {
            theme.get("ui.error")
        } else {
            theme.get("ui.info")
        };
        spans.push(Span::styled(
            msg.clone(),
            s.patch(Style::default().bg(bar.bg.unwrap_or_default())),
        ));
    } else {
        let room = area.width as usize;
        let mut used = spans.iter().map(|s| s.content.width()).sum::<usize>() + 14;
        for (a, label) in hints {
            let key = keymap.hint(a);
            let w = key.width() + label.width() + 3;
            if used + w > room {
                break;
            }
            used += w;
            spans.push(Span::styled(key, theme.get("ui.statusline.key")));
            spans.push(Span::styled(format!(" {label}  "), bar));
        }
    }
    // Items only (day headings and blank lines are not rows of the memory); an unfiltered
    // index knows its full count before every page is loaded.
    let loaded = top.item_count();
    let (total, more) = match component.total() {
        Some((o, s)) if top.filter.is_none() => ((o + s).max(loaded as i64), false),
        _ => (loaded as i64, component.has_more()),
    };
    let pos = if loaded == 0 {
        String::from("0/0 ")
    } else {
        format!(
            "{}/{}{} ",
            thousands(top.item_number() as i64),
            thousands(total),
            if more { "+" } else { "" }
        )
    };
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    let room = (area.width as usize).saturating_sub(used);
    if room > pos.width() {
        spans.push(Span::styled(" ".repeat(room - pos.width()), bar));
        spans.push(Span::styled(pos, bar));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}
