//! Drawing a layer in a pane: its framed title, what its component draws above the rows (the
//! agent view's budget meter), its rows from the scroll position (document layers wrap, lists
//! cut), the selection and a scroll marker. Drawing only reads the layer.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::data::RowText;
use super::keymap::Keymap;
use super::layer::Layer;
use super::render;
use super::theme::Theme;
use super::widgets::frame_block;
use super::wrap::wrap_line;

fn title(l: &Layer) -> String {
    let mut t = l.component.behaviour().frame_title(&l.title);
    if let Some(f) = &l.filter {
        t.push_str(&format!("· /{} ({} shown) ", f.query, l.item_count()));
    }
    t
}

/// The screen lines of visible row `pos` in a pane `width` columns wide: document layers wrap
/// long lines, list layers cut them.
fn row_lines(theme: &Theme, layer: &Layer, pos: usize, width: usize) -> Vec<Line<'static>> {
    let Some((i, matched)) = layer.visible(pos) else {
        return Vec::new();
    };
    let Some(row) = layer.rows.get(i) else {
        return Vec::new();
    };
    let line = match &row.text {
        RowText::View(l) => render::line_with_matches(l, theme, matched),
        RowText::Code { indent, pieces } => {
            let mut spans = vec![Span::raw(indent.clone())];
            for (t, scope) in pieces {
                let style = match scope {
                    Some(s) => theme.get(s),
                    None => theme.get("memory.code"),
                };
                spans.push(Span::styled(render::escape_controls(t).into_owned(), style));
            }
            Line::from(spans)
        }
    };
    if layer.is_list() {
        vec![line]
    } else {
        wrap_line(line, width)
    }
}

/// Whether the rows from the top down to visible position `pos` fit in `area` together, as
/// drawn (wrapped): then a cursor on `pos` leaves the first row on screen.
pub(crate) fn fits_from_top(theme: &Theme, layer: &Layer, area: Rect, pos: usize) -> bool {
    let width = area.width as usize;
    let used: usize = (0..=pos.min(layer.visible_len().saturating_sub(1)))
        .map(|p| row_lines(theme, layer, p, width).len().max(1))
        .sum();
    used <= area.height as usize
}

/// The screen lines of the rows from the layer's scroll position: `(visible position, lines)`.
/// Document layers wrap long lines; list layers cut them.
pub(crate) fn screen_rows(
    theme: &Theme,
    layer: &Layer,
    area: Rect,
) -> Vec<(usize, Vec<Line<'static>>)> {
    let width = area.width as usize;
    let height = area.height as usize;
    let lines_of = |pos: usize| row_lines(theme, layer, pos, width);
    // Start at the scroll offset, but never leave the cursor below the screen.
    let mut start = layer.offset.min(layer.cursor);
    loop {
        let used: usize = (start..=layer.cursor.min(layer.visible_len().saturating_sub(1)))
            .map(|p| lines_of(p).len().max(1))
            .sum();
        if used <= height || start >= layer.cursor {
            break;
        }
        start += 1;
    }
    let mut out = Vec::new();
    let mut used = 0;
    let mut pos = start;
    while used < height && pos < layer.visible_len() {
        let mut lines = lines_of(pos);
        if lines.is_empty() {
            lines.push(Line::default());
        }
        lines.truncate(height - used);
        used += lines.len();
        out.push((pos, lines));
        pos += 1;
    }
    out
}

/// Draws `l` framed in `outer`, its rows in `area`; `focused` colours the selection, and the
/// frame too unless an overlay sits on top.
pub(crate) fn draw(
    f: &mut Frame,
    l: &Layer,
    (outer, area): (Rect, Rect),
    (focused, under_overlay): (bool, bool),
    theme: &Theme,
    keymap: &Keymap,
) {
    f.render_widget(
        frame_block(theme, &title(l), focused && !under_overlay),
        outer,
    );
    let component = l.component.behaviour();
    let banner = component.banner_height();
    if banner > 0 {
        component.draw_banner(f, Rect::new(area.x, outer.y + 1, area.width, banner), theme);
    }
    if let Some(e) = &l.error {
        f.render_widget(
            Paragraph::new(format!("Could not load this: {e}")).style(theme.get("ui.error")),
            area,
        );
        return;
    }
    if l.rows.is_empty() {
        let text = if l.loading {
            "Loading…".to_string()
        } else {
            component.empty_text(keymap)
        };
        f.render_widget(
            Paragraph::new(text)
                .style(theme.get("ui.muted"))
                .wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    }
    if l.filter.as_ref().is_some_and(|f| f.visible.is_empty()) {
        f.render_widget(
            Paragraph::new("No row matches the filter (Esc clears it)")
                .style(theme.get("ui.muted")),
            area,
        );
        return;
    }
    let is_preview = l.title == "Preview";
    let mut y = area.y;
    for (pos, lines) in screen_rows(theme, l, area) {
        let selected = pos == l.cursor && !is_preview;
        let n = lines.len() as u16;
        for line in lines {
            f.render_widget(Paragraph::new(line), Rect::new(area.x, y, area.width, 1));
            y += 1;
        }
        if selected {
            let style = if focused {
                theme.get("ui.selection")
            } else {
                theme.get("ui.selection.unfocused")
            };
            let rect = Rect::new(area.x, y - n, area.width, n);
            f.buffer_mut().set_style(rect, style);
        }
    }
    // A scroll position marker on the right border for long lists.
    let total = l.visible_len();
    if total > area.height as usize && area.height > 2 {
        let track = area.height as usize;
        let at = (l.cursor * (track - 1)) / total.max(1);
        let x = area.x + area.width;
        let cell = Rect::new(x, area.y + at as u16, 1, 1);
        f.render_widget(
            Paragraph::new("┃").style(theme.get("ui.border.focus")),
            cell,
        );
    }
}
