//! The header line: breadcrumbs of the layer stack (click one to go back to it) and, on the
//! right, the filters, scope and theme in force.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::layer::Layer;
use super::theme::Theme;

/// The breadcrumb segments and their layer depth (`None` for the fixed prefix).
pub(crate) fn breadcrumbs(stack: &[Layer]) -> Vec<(String, Option<usize>)> {
    let mut out = vec![(" cmem ".to_string(), None)];
    for (i, l) in stack.iter().enumerate() {
        out.push(("› ".to_string(), None));
        out.push((format!("{} ", crumb(l)), Some(i)));
    }
    out
}

/// A layer's name in the breadcrumbs (its component may shorten its title).
fn crumb(l: &Layer) -> String {
    l.component.behaviour().crumb(&l.title)
}

/// The layer depth of the breadcrumb at a screen position.
pub(crate) fn breadcrumb_at(stack: &[Layer], x: u16, y: u16) -> Option<usize> {
    if y != 0 {
        return None;
    }
    let mut col = 0u16;
    for (text, depth) in breadcrumbs(stack) {
        let w = text.width() as u16;
        if x >= col && x < col + w {
            return depth;
        }
        col += w;
    }
    None
}

/// Draws the breadcrumbs of `stack`, and `tags` (`type:bugfix`, the scope, …) on the right
/// when they fit.
pub(crate) fn draw(f: &mut Frame, area: Rect, theme: &Theme, stack: &[Layer], tags: &[String]) {
    let last = stack.len().saturating_sub(1);
    let mut spans: Vec<Span> = breadcrumbs(stack)
        .into_iter()
        .map(|(t, d)| {
            let style = match d {
                None if t.contains("cmem") => theme.get("ui.title"),
                Some(d) if d == last => theme.get("ui.breadcrumb.current"),
                _ => theme.get("ui.breadcrumb"),
            };
            Span::styled(t, style)
        })
        .collect();
    let right = format!("{} ", tags.join(" · "));
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    let room = (area.width as usize).saturating_sub(used);
    if room > right.width() + 1 {
        spans.push(Span::raw(" ".repeat(room - right.width())));
        spans.push(Span::styled(right, theme.get("ui.muted")));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}
