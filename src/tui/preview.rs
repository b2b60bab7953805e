//! The preview pane: on wide terminals, the detail of the record selected in a list, beside
//! it. It scrolls when it has the focus; the list keeps its cursor.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

use super::data::{Reply, Target};
use super::keymap::Keymap;
use super::layer::Layer;
use super::layers::detail::Detail;
use super::layout::outer;
use super::pane;
use super::theme::Theme;
use super::widgets::frame_block;
use crate::model::Kind;
use crate::view::time::Tz;

#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub target: Target,
    pub ticket: u64,
    pub layer: Layer,
}

impl Preview {
    /// A preview of record `kind` `id`, loading under `ticket`.
    pub(crate) fn new(kind: Kind, id: i64, ticket: u64) -> Preview {
        let mut layer = Layer::new(Detail::new(kind, id), ticket);
        layer.title = "Preview".into();
        Preview {
            target: Target::Record(kind, id),
            ticket,
            layer,
        }
    }

    /// The worker's answer: the record, or why there is none.
    pub(crate) fn apply(&mut self, reply: Reply, tz: &Tz) {
        match reply {
            Reply::Page(page) => {
                self.layer.apply_page(page, tz);
                // A preview is read from the record's title: it has no cursor to show (the
                // detail's first tool use would scroll the title away).
                self.layer.cursor = 0;
                self.layer.offset = 0;
            }
            Reply::Missing(m) | Reply::Error(m) => {
                self.layer.loading = false;
                self.layer.error = Some(m);
            }
            _ => {}
        }
    }

    /// Scrolls by `delta` lines.
    pub(crate) fn scroll(&mut self, delta: isize) {
        let n = self.layer.visible_len();
        let top =
            (self.layer.offset as isize + delta).clamp(0, n.saturating_sub(1) as isize) as usize;
        // The pane draws from its cursor's screen: keep the cursor on the top line.
        self.layer.offset = top;
        self.layer.cursor = top;
    }
}

/// Draws `preview` in the pane `area` (inside its frame), or an invitation to select a row.
pub(crate) fn draw(
    f: &mut Frame,
    preview: Option<&Preview>,
    area: Rect,
    (focused, under_overlay): (bool, bool),
    theme: &Theme,
    keymap: &Keymap,
) {
    match preview {
        Some(p) => pane::draw(
            f,
            &p.layer,
            (outer(area), area),
            (focused, under_overlay),
            theme,
            keymap,
        ),
        None => {
            f.render_widget(frame_block(theme, " Preview ", false), outer(area));
            f.render_widget(
                Paragraph::new("Select a row to preview it").style(theme.get("ui.muted")),
                area,
            );
        }
    }
}
