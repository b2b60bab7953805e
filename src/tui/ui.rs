//! Drawing. Everything here takes `&App`: drawing cannot change state. The same layout
//! function serves drawing and mouse hit-testing, so a click lands where the eye saw it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

use super::app::{App, Focus, Input, Layer, LayerKind, Overlay};
use super::data::RowText;
use super::keymap::{ACTIONS, Action, Section};
use super::render;
use super::theme::Theme;
use super::wrap::wrap_line;
use crate::view::doc::noun;
use crate::view::time::thousands;

/// Terminals at least this wide show a preview beside list layers.
pub const PREVIEW_MIN_WIDTH: u16 = 120;

pub fn has_preview(size: (u16, u16)) -> bool {
    size.0 >= PREVIEW_MIN_WIDTH && size.1 >= 16
}

/// Rows a list gets: the terminal minus the header, the status line and the borders.
pub fn list_height(size: (u16, u16)) -> usize {
    size.1.saturating_sub(4) as usize
}

pub struct Areas {
    pub header: Rect,
    pub body: Rect,
    pub list: Rect,
    pub preview: Option<Rect>,
    pub status: Rect,
}

pub fn layout(app: &App, area: Rect) -> Areas {
    let [header, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    let (main, preview) = if app.preview_visible() {
        let [l, r] = Layout::horizontal([Constraint::Percentage(56), Constraint::Percentage(44)])
            .areas(body);
        (l, Some(r))
    } else {
        (body, None)
    };
    let mut list = inner(main);
    if app.top().kind == LayerKind::Agent {
        let meter = meter_height(app.top());
        list.y += meter;
        list.height = list.height.saturating_sub(meter);
    }
    Areas {
        header,
        body: main,
        list,
        preview: preview.map(inner),
        status,
    }
}

fn inner(r: Rect) -> Rect {
    Rect::new(
        r.x + 1,
        r.y + 1,
        r.width.saturating_sub(2),
        r.height.saturating_sub(2),
    )
}

fn meter_height(l: &Layer) -> u16 {
    match &l.context {
        Some(c) if c.limit > 0 => 2 + c.steps.len().max(1) as u16,
        Some(_) => 2,
        None => 0,
    }
}

pub fn draw(app: &App, f: &mut Frame) {
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
    draw_header(app, f, areas.header);
    let top = app.top();
    draw_layer(
        app,
        f,
        top,
        areas.body,
        areas.list,
        app.focus == Focus::List,
    );
    if let (Some(p), Some(rect)) = (&app.preview, areas.preview) {
        let outer = Rect::new(rect.x - 1, rect.y - 1, rect.width + 2, rect.height + 2);
        draw_layer(app, f, &p.layer, outer, rect, app.focus == Focus::Preview);
    } else if let Some(rect) = areas.preview {
        let outer = Rect::new(rect.x - 1, rect.y - 1, rect.width + 2, rect.height + 2);
        f.render_widget(frame_block(theme, " Preview ", false), outer);
        f.render_widget(
            Paragraph::new("Select a row to preview it").style(theme.get("ui.muted")),
            rect,
        );
    }
    draw_status(app, f, areas.status);
    match &app.overlay {
        Some(Overlay::Help { offset }) => draw_help(app, f, area, *offset),
        Some(Overlay::Projects {
            list,
            cursor,
            loading,
            ..
        }) => draw_projects(app, f, area, list, *cursor, *loading),
        Some(Overlay::Confirm {
            question, detail, ..
        }) => draw_confirm(app, f, area, question, detail),
        None => {}
    }
}

/// The breadcrumb segments and their layer depth (`None` for the fixed prefix).
pub fn breadcrumbs(app: &App) -> Vec<(String, Option<usize>)> {
    let mut out = vec![(" cmem ".to_string(), None)];
    for (i, l) in app.stack.iter().enumerate() {
        out.push(("› ".to_string(), None));
        out.push((format!("{} ", crumb(l)), Some(i)));
    }
    out
}

/// A layer's name in the breadcrumbs: the agent view and the work state by name only (their
/// titles repeat the layer or scope before them, already in the trail).
fn crumb(l: &Layer) -> String {
    match l.kind {
        LayerKind::Agent | LayerKind::WorkState => l.kind.name().to_string(),
        _ => l.title.clone(),
    }
}

/// The layer depth of the breadcrumb at a screen position.
pub fn breadcrumb_at(app: &App, x: u16, y: u16) -> Option<usize> {
    if y != 0 {
        return None;
    }
    let mut col = 0u16;
    for (text, depth) in breadcrumbs(app) {
        let w = text.width() as u16;
        if x >= col && x < col + w {
            return depth;
        }
        col += w;
    }
    None
}

fn draw_header(app: &App, f: &mut Frame, area: Rect) {
    let theme = &app.theme;
    let crumbs = breadcrumbs(app);
    let last = app.stack.len() - 1;
    let mut spans: Vec<Span> = crumbs
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
    let mut right = Vec::new();
    if let Some(t) = app.obs_type {
        right.push(format!("type:{}", t.id()));
    }
    if let Some(c) = app.concept {
        right.push(format!("concept:{c}"));
    }
    right.push(app.scope.label().to_string());
    right.push(app.theme.name.clone());
    let right = format!("{} ", right.join(" · "));
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    let room = (area.width as usize).saturating_sub(used);
    if room > right.width() + 1 {
        spans.push(Span::raw(" ".repeat(room - right.width())));
        spans.push(Span::styled(right, theme.get("ui.muted")));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn frame_block<'a>(theme: &Theme, title: &'a str, focused: bool) -> Block<'a> {
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

fn layer_title(l: &Layer) -> String {
    let mut t = format!(" {} ", l.kind.name());
    if l.kind == LayerKind::Index {
        t = format!(" {} ", l.title);
        if let Some((o, s)) = l.total {
            t.push_str(&format!(
                "· {} {} · {} {} ",
                thousands(o),
                noun(o as usize, "observation", "observations"),
                thousands(s),
                noun(s as usize, "summary", "summaries")
            ));
        }
    } else if l.kind != LayerKind::Agent {
        t = format!(" {} ", l.title);
    }
    if let Some(f) = &l.filter {
        t.push_str(&format!("· /{} ({} shown) ", f.query, l.item_count()));
    }
    t
}

/// The screen lines of the rows from the layer's scroll position: `(visible position, lines)`.
/// Document layers wrap long lines; list layers cut them.
pub fn screen_rows(app: &App, layer: &Layer, area: Rect) -> Vec<(usize, Vec<Line<'static>>)> {
    let width = area.width as usize;
    let height = area.height as usize;
    let wrap = !layer.kind.is_list();
    let lines_of = |pos: usize| -> Vec<Line<'static>> {
        let Some((i, matched)) = layer.visible(pos) else {
            return Vec::new();
        };
        let Some(row) = layer.rows.get(i) else {
            return Vec::new();
        };
        let line = match &row.text {
            RowText::View(l) => render::line_with_matches(l, &app.theme, matched),
            RowText::Code { indent, pieces } => {
                let mut spans = vec![Span::raw(indent.clone())];
                for (t, scope) in pieces {
                    let style = match scope {
                        Some(s) => app.theme.get(s),
                        None => app.theme.get("memory.code"),
                    };
                    spans.push(Span::styled(render::escape_controls(t).into_owned(), style));
                }
                Line::from(spans)
            }
        };
        if wrap {
            wrap_line(line, width)
        } else {
            vec![line]
        }
    };
    // Start at the scroll offset, but never leave the cursor below the screen.
    let mut start = layer.offset.min(layer.cursor);
    if layer.kind != LayerKind::Agent || layer.cursor >= start {
        loop {
            let used: usize = (start..=layer.cursor.min(layer.visible_len().saturating_sub(1)))
                .map(|p| lines_of(p).len().max(1))
                .sum();
            if used <= height || start >= layer.cursor {
                break;
            }
            start += 1;
        }
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

fn draw_layer(app: &App, f: &mut Frame, l: &Layer, outer: Rect, area: Rect, focused: bool) {
    let theme = &app.theme;
    let title = layer_title(l);
    f.render_widget(
        frame_block(theme, &title, focused && app.overlay.is_none()),
        outer,
    );
    if l.kind == LayerKind::Agent {
        draw_meter(
            app,
            f,
            l,
            Rect::new(area.x, outer.y + 1, area.width, meter_height(l)),
        );
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
        } else if l.kind == LayerKind::Index {
            format!(
                "No memory here yet. Press {} for another project, {} for all projects, or run `cmem demo` to look around.",
                app.keymap.hint(Action::Projects),
                app.keymap.hint(Action::Scope)
            )
        } else {
            "Nothing here.".into()
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
    for (pos, lines) in screen_rows(app, l, area) {
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

fn draw_meter(app: &App, f: &mut Frame, l: &Layer, area: Rect) {
    let theme = &app.theme;
    let Some(c) = &l.context else { return };
    let mut lines = Vec::new();
    if c.limit > 0 {
        let ratio = c.chars as f64 / c.limit as f64;
        let style = if ratio > 1.0 {
            theme.get("ui.meter.over")
        } else if ratio > 0.85 {
            theme.get("ui.meter.warn")
        } else {
            theme.get("ui.meter.ok")
        };
        let label = format!(
            " {} / {} characters ({}%)",
            thousands(c.chars as i64),
            thousands(c.limit as i64),
            (ratio * 100.0).round()
        );
        let bar_w = (area.width as usize)
            .saturating_sub(label.width() + 2)
            .clamp(4, 40);
        let filled = ((ratio.min(1.0)) * bar_w as f64).round() as usize;
        lines.push(Line::from(vec![
            Span::styled("▕", theme.get("ui.muted")),
            Span::styled("█".repeat(filled), style),
            Span::styled("░".repeat(bar_w - filled), theme.get("ui.muted")),
            Span::styled("▏", theme.get("ui.muted")),
            Span::styled(label, style.add_modifier(Modifier::BOLD)),
        ]));
        if c.steps.is_empty() {
            lines.push(Line::styled(
                "Budget: everything fits, nothing dropped",
                theme.get("ui.muted"),
            ));
        } else {
            for s in &c.steps {
                lines.push(Line::from(vec![
                    Span::styled("Budget: ", theme.get("memory.label")),
                    Span::styled(s.clone(), theme.get("memory.warning")),
                ]));
            }
        }
    } else {
        lines.push(Line::from(vec![
            Span::styled(
                format!("{} characters", thousands(c.chars as i64)),
                theme.get("ui.meter.ok"),
            ),
            Span::styled(
                " · the plain text an agent gets for this layer",
                theme.get("ui.muted"),
            ),
        ]));
    }
    lines.push(Line::styled(
        "─".repeat(area.width as usize),
        theme.get("ui.border"),
    ));
    f.render_widget(Paragraph::new(lines), area);
}

fn draw_status(app: &App, f: &mut Frame, area: Rect) {
    let theme = &app.theme;
    let bar = theme.get("ui.statusline");
    f.buffer_mut().set_style(area, bar);
    let top = app.top();
    if let Some(input) = &app.input {
        let (label, text) = match input {
            Input::Filter(t) => (" / ", t),
            Input::Search(t) => (" search ", t),
            Input::Jump(t) => (" jump to ", t),
            Input::Scrub(t) => (" scrub everywhere ", t),
        };
        let line = Line::from(vec![
            Span::styled(label, theme.get("ui.statusline.mode")),
            Span::styled(format!(" {text}"), theme.get("ui.input")),
            Span::styled(
                "▏",
                theme.get("ui.input").add_modifier(Modifier::SLOW_BLINK),
            ),
            Span::styled("  Enter ok · Esc cancel", theme.get("ui.muted")),
        ]);
        f.render_widget(Paragraph::new(line).style(theme.get("ui.input")), area);
        return;
    }
    let mode = format!(" {} ", top.kind.name().to_uppercase());
    let mut spans = vec![
        Span::styled(mode, theme.get("ui.statusline.mode")),
        Span::styled(" ", bar),
    ];
    if let Some((msg, err)) = &app.status {
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
        let hints = footer_hints(app);
        let room = area.width as usize;
        let mut used = spans.iter().map(|s| s.content.width()).sum::<usize>() + 14;
        for (a, label) in hints {
            let key = app.keymap.hint(a);
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
    let (total, more) = match top.total {
        Some((o, s)) if top.filter.is_none() => ((o + s).max(loaded as i64), false),
        _ => (loaded as i64, top.next.is_some()),
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

/// The keys the footer offers: only those that do something on this layer (`Enter` only where
/// a row leads somewhere, `a`/`w` not on the layer they would leave).
pub fn footer_hints(app: &App) -> Vec<(Action, &'static str)> {
    let top = app.top();
    let mut hints = Vec::new();
    if top.rows.iter().any(|r| r.target.is_some()) {
        hints.push((Action::Open, "open"));
    }
    if top.filter.is_some() {
        hints.push((Action::Back, "clear filter"));
    } else if app.stack.len() > 1 || app.focus == Focus::Preview {
        hints.push((Action::Back, "back"));
    }
    hints.extend([(Action::Filter, "filter"), (Action::Search, "search")]);
    if top.kind != LayerKind::Agent {
        hints.push((Action::Agent, "agent"));
    }
    if top.kind != LayerKind::WorkState {
        hints.push((Action::WorkState, "work"));
    }
    hints.extend([
        (Action::Projects, "projects"),
        (Action::Help, "help"),
        (Action::Quit, "quit"),
    ]);
    hints
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width.saturating_sub(2)).max(10.min(area.width));
    let h = h.min(area.height.saturating_sub(2)).max(3.min(area.height));
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Where the help screen's descriptions start (two spaces, then the keys).
const HELP_KEY_COLUMN: usize = 22;
/// The help box's width, borders included.
const HELP_WIDTH: usize = 72;

/// The help screen's lines, straight from the keymap table.
pub fn help_lines(app: &App) -> Vec<Line<'static>> {
    let theme = &app.theme;
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
            let keys = app.keymap.keys_of(*a);
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
    let legend = render::line(&crate::view::index::legend_line(), theme);
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

fn draw_help(app: &App, f: &mut Frame, area: Rect, offset: usize) {
    let theme = &app.theme;
    let lines = help_lines(app);
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
            .scroll((offset.min(max) as u16, 0))
            .style(theme.get("ui.popup")),
        inner,
    );
    if offset < max && rect.width > 12 {
        let more = " ↓ more ";
        let w = more.width() as u16;
        f.render_widget(
            Paragraph::new(more).style(theme.get("ui.title")),
            Rect::new(rect.x + rect.width - w - 2, rect.y + rect.height - 1, w, 1),
        );
    }
}

fn draw_projects(
    app: &App,
    f: &mut Frame,
    area: Rect,
    list: &[super::data::ProjectCount],
    cursor: usize,
    loading: bool,
) {
    let theme = &app.theme;
    let rect = centered(area, 64, list.len() as u16 + 4);
    f.render_widget(Clear, rect);
    let block =
        frame_block(theme, " Projects · Enter switches ", true).style(theme.get("ui.popup"));
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    if loading {
        f.render_widget(
            Paragraph::new("Loading…").style(theme.get("ui.muted")),
            inner,
        );
        return;
    }
    let name_w = list
        .iter()
        .map(|p| p.name.width())
        .max()
        .unwrap_or(8)
        .min(30);
    let first = cursor.saturating_sub(inner.height.saturating_sub(1) as usize);
    for (i, p) in list
        .iter()
        .enumerate()
        .skip(first)
        .take(inner.height as usize)
    {
        let y = inner.y + (i - first) as u16;
        let mark = if p.name.eq_ignore_ascii_case(&app.project) {
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
            Span::styled(
                format!("  {}", app.tz.day(p.last_at)),
                theme.get("memory.time"),
            ),
        ]);
        let r = Rect::new(inner.x, y, inner.width, 1);
        f.render_widget(Paragraph::new(line), r);
        if i == cursor {
            f.buffer_mut().set_style(r, theme.get("ui.selection"));
        }
    }
}

fn draw_confirm(app: &App, f: &mut Frame, area: Rect, question: &str, detail: &str) {
    let theme = &app.theme;
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
