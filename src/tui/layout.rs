//! Where things sit on the screen. The same function serves drawing and mouse hit-testing, so
//! a click lands where the eye saw it.

use ratatui::layout::{Constraint, Layout, Rect};

/// Terminals at least this wide show a preview beside list layers.
pub(crate) const PREVIEW_MIN_WIDTH: u16 = 120;

pub(crate) fn has_preview(size: (u16, u16)) -> bool {
    size.0 >= PREVIEW_MIN_WIDTH && size.1 >= 16
}

/// Rows a list gets: the terminal minus the header, the status line and the borders.
pub(crate) fn list_height(size: (u16, u16)) -> usize {
    size.1.saturating_sub(4) as usize
}

pub struct Areas {
    pub header: Rect,
    pub body: Rect,
    pub list: Rect,
    pub preview: Option<Rect>,
    pub status: Rect,
}

/// The areas of a screen `area`: a preview pane beside the list when `preview`, and `meter`
/// lines above the list for an agent layer's budget meter.
pub(crate) fn areas(area: Rect, preview: bool, meter: u16) -> Areas {
    let [header, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    let (main, preview) = if preview {
        let [l, r] = Layout::horizontal([Constraint::Percentage(56), Constraint::Percentage(44)])
            .areas(body);
        (l, Some(r))
    } else {
        (body, None)
    };
    let mut list = inner(main);
    list.y += meter;
    list.height = list.height.saturating_sub(meter);
    Areas {
        header,
        body: main,
        list,
        preview: preview.map(inner),
        status,
    }
}

/// The inside of a frame drawn on `r`.
pub(crate) fn inner(r: Rect) -> Rect {
    Rect::new(
        r.x + 1,
        r.y + 1,
        r.width.saturating_sub(2),
        r.height.saturating_sub(2),
    )
}

/// The frame around an inner area (the undo of `inner`).
pub(crate) fn outer(r: Rect) -> Rect {
    Rect::new(r.x - 1, r.y - 1, r.width + 2, r.height + 2)
}
