//! Small drawing pieces the panes and overlays share: the rounded frame and a centred box.

use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, BorderType, Borders};

use super::theme::Theme;

/// A rounded frame titled `title`, its border brighter when `focused`.
pub(crate) fn frame_block<'a>(theme: &Theme, title: &'a str, focused: bool) -> Block<'a> {
    let border = if focused {
        theme.get("ui.border.focus")
    } else {
        theme.get("ui.border")
    };
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(border)
        .title(Span::styled(title, theme.get("ui.title")))
}

/// A `w`×`h` box in the middle of `area`, shrunk to fit.
pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width.saturating_sub(2)).max(10.min(area.width));
    let h = h.min(area.height.saturating_sub(2)).max(3.min(area.height));
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}
