//! Drawing the whole screen: each part draws itself (header, the top layer's pane, the
//! preview, the status line or the open input, the overlay) into the areas `layout.rs` gives.
//! Everything here takes `&App`: drawing cannot change state.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::app::{App, Focus, Layer};
use super::layout::Areas;
use super::overlays;
use super::{header, pane, preview, status};

/// Where everything sits on a screen `area` (the mouse uses the same).
pub fn layout(app: &App, area: Rect) -> Areas {
    app.areas(area)
}

/// The screen lines of `layer` in `area` from its scroll position (see `pane::screen_rows`).
pub fn screen_rows(app: &App, layer: &Layer, area: Rect) -> Vec<(usize, Vec<Line<'static>>)> {
    pane::screen_rows(&app.theme, layer, area)
}

pub(crate) fn draw(app: &App, f: &mut Frame) {
    let area = f.area();
    let theme = &app.theme;
    f.buffer_mut().set_style(area, theme.get("ui.background"));
    if area.width < 20 || area.height < 5 {
        f.render_widget(
            Paragraph::new("too small for cmem (20×5)").style(theme.get("ui.error")),
            area,
        );
        return;
    }
    let areas = layout(app, area);
    header::draw(f, areas.header, theme, &app.stack, &header_tags(app));
    let under_overlay = app.overlay.is_some();
    pane::draw(
        f,
        app.top(),
        (areas.body, areas.list),
        (app.focus == Focus::List, under_overlay),
        theme,
        &app.keymap,
    );
    if let Some(rect) = areas.preview {
        preview::draw(
            f,
            app.preview.as_ref(),
            rect,
            (app.focus == Focus::Preview, under_overlay),
            theme,
            &app.keymap,
        );
    }
    match &app.input {
        Some(input) => input.draw(f, areas.status, theme),
        None => {
            let can_go_back = app.stack.len() > 1 || app.focus == Focus::Preview;
            status::draw(
                f,
                areas.status,
                (theme, &app.keymap),
                app.top(),
                app.status.as_ref(),
                status::footer_hints(app.top(), can_go_back),
            );
        }
    }
    if let Some(o) = &app.overlay {
        let context = overlays::Context {
            theme,
            keymap: &app.keymap,
            tz: &app.tz,
            project: &app.project,
        };
        o.draw(f, area, &context);
    }
}

/// The header's right end: the filters, the scope and the theme in force.
fn header_tags(app: &App) -> Vec<String> {
    let mut tags = Vec::new();
    if let Some(t) = app.obs_type {
        tags.push(format!("type:{}", t.id()));
    }
    if let Some(c) = app.concept {
        tags.push(format!("concept:{c}"));
    }
    tags.push(app.scope.label().to_string());
    tags.push(app.theme.name.clone());
    tags
}
