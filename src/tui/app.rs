//! The browser's state and the routing of events. Keys go to the open input or overlay, else
//! through the keymap to an action on the layer stack; replies go to whoever waits for their
//! ticket; mouse events go where the layout says they landed. The components own their state
//! and keys (`layer`, `layers/*`, `preview`, `overlays/*`, `change`); drawing (`ui.rs`) only
//! reads.

use std::path::PathBuf;

use crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use fuzzy_matcher::skim::SkimMatcherV2;
use ratatui::layout::Rect;

use super::change::{self, Done};
use super::data::{Reply, Request};
use super::header;
use super::keymap::{Action, Keymap, Press, Resolved};
use super::layout::{self, Areas};
use super::line_edit::LineEdit;
use super::nav;
use super::overlays::help::{Help, HelpKey};
use super::overlays::input::InputKey;
use super::overlays::projects::Pick;
use super::pane;
use super::theme::{self, Theme};
use crate::model::ObsType;
use crate::view::time::Tz;

pub use super::layer::{Filter, Layer};
pub use super::layers::{Component, LayerKind};
pub use super::overlays::Overlay;
pub use super::overlays::input::Input;
pub use super::preview::Preview;
pub use super::scope::Scope;

/// Side effects the event loop carries out (the state itself stays pure).
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Quit,
    /// Copy to the clipboard with OSC 52.
    Copy(String),
    /// Suspend, run `$EDITOR` on the file, resume.
    Edit(PathBuf),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Preview,
}

pub struct App {
    pub theme: Theme,
    pub themes: Vec<String>,
    pub keymap: Keymap,
    pub tz: Tz,
    pub now_ms: i64,
    /// The project the browser opened on, and every project key known (for scopes).
    pub project: String,
    pub project_keys: Vec<String>,
    pub known_projects: Vec<String>,
    pub scope: Scope,
    pub obs_type: Option<ObsType>,
    pub concept: Option<&'static str>,
    pub stack: Vec<Layer>,
    pub overlay: Option<Overlay>,
    pub input: Option<Input>,
    pub preview: Option<Preview>,
    pub focus: Focus,
    pub status: Option<(String, bool)>,
    pub pending_keys: Vec<Press>,
    pub outbox: Vec<(u64, Request)>,
    pub effects: Vec<Effect>,
    /// The terminal size (width, height), from start-up and resize events.
    pub size: (u16, u16),
    /// The ticket of the delete or scrub in flight.
    pub change_ticket: Option<u64>,
    /// Quit was asked for while a change ran: quit when it is done (a half-done scrub would
    /// leave text in the files).
    pub quit_after_change: bool,
    pub(super) next_ticket: u64,
    pub(super) matcher: SkimMatcherV2,
}

pub(crate) struct Options {
    pub theme: Theme,
    pub keymap: Keymap,
    pub tz: Tz,
    pub now_ms: i64,
    pub project: String,
    pub project_keys: Vec<String>,
    pub size: (u16, u16),
}

impl App {
    pub(crate) fn new(o: Options) -> App {
        let mut app = App {
            theme: o.theme,
            themes: theme::available(),
            keymap: o.keymap,
            tz: o.tz,
            now_ms: o.now_ms,
            project: o.project,
            project_keys: o.project_keys,
            known_projects: Vec::new(),
            scope: Scope::Project,
            obs_type: None,
            concept: None,
            stack: Vec::new(),
            overlay: None,
            input: None,
            preview: None,
            focus: Focus::List,
            status: None,
            pending_keys: Vec::new(),
            outbox: Vec::new(),
            effects: Vec::new(),
            size: o.size,
            change_ticket: None,
            quit_after_change: false,
            next_ticket: 1,
            matcher: SkimMatcherV2::default(),
        };
        app.open_index();
        let t = app.ticket();
        app.outbox.push((t, Request::Projects));
        app
    }

    pub(super) fn ticket(&mut self) -> u64 {
        self.next_ticket += 1;
        self.next_ticket
    }

    pub fn top(&self) -> &Layer {
        // The stack always holds the index at the bottom.
        &self.stack[self.stack.len() - 1]
    }

    pub(super) fn top_mut(&mut self) -> &mut Layer {
        let n = self.stack.len();
        &mut self.stack[n - 1]
    }

    pub(super) fn say(&mut self, text: impl Into<String>, error: bool) {
        self.status = Some((text.into(), error));
    }

    /// The rows a list shows on screen (the terminal minus chrome).
    pub(crate) fn list_height(&self) -> usize {
        layout::list_height(self.size)
    }

    /// Where everything sits on a screen `area` (for drawing and for the mouse).
    pub(crate) fn areas(&self, area: Rect) -> Areas {
        let banner = self.top().component.behaviour().banner_height();
        layout::areas(area, self.preview_visible(), banner)
    }

    pub fn handle_key(&mut self, key: KeyEvent) {
        self.status = None;
        if let Some(input) = self.input.take() {
            self.input_key(input, &key);
            return;
        }
        let press = Press::from_event(&key);
        if let Some(Overlay::Confirm(q)) =
            self.overlay.take_if(|o| matches!(o, Overlay::Confirm(_)))
        {
            match q.answer(press.code) {
                Some(request) => self.send_change(request),
                None => self.say("Nothing changed", false),
            }
            return;
        }
        match self.keymap.resolve(&self.pending_keys, press) {
            Resolved::Pending => self.pending_keys.push(press),
            Resolved::Action(a) => {
                self.pending_keys.clear();
                self.act(a);
            }
            Resolved::Unbound => {
                let had_prefix = !self.pending_keys.is_empty();
                self.pending_keys.clear();
                if had_prefix {
                    // `g` then something else: try the new key on its own.
                    if let Resolved::Action(a) = self.keymap.resolve(&[], press) {
                        self.act(a);
                    }
                }
            }
        }
    }

    fn input_key(&mut self, mut input: Input, key: &KeyEvent) {
        match input.key(key) {
            InputKey::Cancel => {
                if matches!(input, Input::Filter(_)) {
                    self.top_mut().clear_filter();
                }
            }
            InputKey::Submit => match input {
                Input::Filter(l) => {
                    if l.text().is_empty() {
                        self.top_mut().filter = None;
                    }
                }
                Input::Search(l) => self.start_search(l.text()),
                Input::Jump(l) => match nav::jump(l.text()) {
                    Ok(to) => self.push(to),
                    Err(e) => self.say(e, true),
                },
                Input::Scrub(l) => {
                    if let Some(r) = change::plan_scrub(l.into_text()) {
                        self.send_change(r);
                    }
                }
            },
            InputKey::Edited => {
                let query = match &input {
                    Input::Filter(l) => Some(l.text().to_string()),
                    _ => None,
                };
                self.input = Some(input);
                if let Some(query) = query {
                    let matcher = std::mem::take(&mut self.matcher);
                    self.top_mut().set_filter(query, &matcher);
                    self.matcher = matcher;
                    self.request_preview();
                }
            }
            InputKey::Move(d) => {
                self.input = Some(input);
                self.move_cursor(d);
            }
            InputKey::Ignored => self.input = Some(input),
        }
    }

    /// Wide terminals preview the selected record of a list beside it.
    pub fn preview_visible(&self) -> bool {
        self.top().component.behaviour().previews() && layout::has_preview(self.size)
    }

    pub(crate) fn act(&mut self, a: Action) {
        let page = self.list_height().saturating_sub(1).max(1) as isize;
        match &mut self.overlay {
            Some(Overlay::Help(h)) => {
                match h.act(a, page as usize) {
                    HelpKey::Stay => {}
                    HelpKey::Close => self.overlay = None,
                    HelpKey::Quit => self.quit(),
                }
                return;
            }
            Some(Overlay::Projects { list }) => {
                match list.act(a) {
                    Pick::Stay => {}
                    Pick::Close => self.overlay = None,
                    Pick::Quit => self.quit(),
                    Pick::Switch(name) => self.switch_project(name),
                }
                return;
            }
            _ => {}
        }
        match a {
            Action::Up => self.move_cursor(-1),
            Action::Down => self.move_cursor(1),
            Action::PageUp => self.move_cursor(-page),
            Action::PageDown => self.move_cursor(page),
            Action::Top => self.move_cursor(-(self.top().visible_len() as isize)),
            Action::Bottom => self.move_cursor(self.top().visible_len() as isize),
            Action::Open => self.open_selected(),
            Action::Back => self.back(),
            Action::Quit => self.quit(),
            Action::Help => self.overlay = Some(Overlay::Help(Help::default())),
            Action::Filter => self.open_filter(),
            Action::Search => self.input = Some(Input::Search(LineEdit::default())),
            Action::Jump => self.input = Some(Input::Jump(LineEdit::default())),
            Action::TypeFilter => self.next_type(),
            Action::ConceptFilter => self.next_concept(),
            Action::Projects => self.open_projects(),
            Action::Scope => self.next_scope(),
            Action::WorkState => self.open_work_state(),
            Action::Agent => self.open_agent_view(),
            Action::NextPane => self.switch_pane(),
            Action::CopyId => self.copy_id(),
            Action::CopyText => self.copy_text(),
            Action::Edit => self.edit(),
            Action::Delete => self.confirm_delete(),
            Action::Redact => self.start_scrub(),
            Action::Theme => self.next_theme(),
            Action::Refresh => self.refresh(),
        }
    }

    /// The answer to a delete or scrub.
    fn handle_change(&mut self, reply: Reply) {
        self.change_ticket = None;
        if self.quit_after_change {
            self.effects.push(Effect::Quit);
        }
        match change::done(reply) {
            Done::Forgotten { kind, id, status } => {
                self.forget_rows(kind, id);
                self.say(status, false);
            }
            Done::Ask(q) => {
                self.status = None;
                self.overlay = Some(Overlay::Confirm(q));
            }
            Done::Reload(m, error) => {
                self.refresh();
                self.say(m, error);
            }
            Done::Say(m, error) => self.say(m, error),
            Done::Nothing => {}
        }
    }

    pub fn handle_mouse(&mut self, m: MouseEvent) {
        let areas = self.areas(Rect::new(0, 0, self.size.0, self.size.1));
        let inside = |r: Rect| {
            m.column >= r.x && m.column < r.x + r.width && m.row >= r.y && m.row < r.y + r.height
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let d = if m.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                };
                if let Some(Overlay::Help(h)) = &mut self.overlay {
                    return h.scroll(d);
                }
                self.focus = if areas.preview.is_some_and(inside) {
                    Focus::Preview
                } else {
                    Focus::List
                };
                self.move_cursor(d);
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if self.overlay.take().is_some() {
                    return;
                }
                if let Some(depth) = header::breadcrumb_at(&self.stack, m.column, m.row) {
                    return self.pop_to(depth);
                }
                if inside(areas.list) {
                    self.focus = Focus::List;
                    let pos = self.top().offset + (m.row - areas.list.y) as usize;
                    if pos < self.top().visible_len() {
                        if pos == self.top().cursor {
                            self.open_selected();
                        } else if self.top().selectable(pos) {
                            self.top_mut().cursor = pos;
                            self.request_preview();
                        }
                    }
                } else if areas.preview.is_some_and(inside) {
                    self.focus = Focus::Preview;
                }
            }
            _ => {}
        }
    }

    pub(crate) fn handle_resize(&mut self, w: u16, h: u16) {
        self.size = (w, h);
        let height = self.list_height();
        for l in &mut self.stack {
            l.scroll_into_view(height);
        }
        self.request_preview();
    }

    /// A worker's answer for `ticket`; answers nobody waits for any more are dropped.
    pub(crate) fn handle_reply(&mut self, ticket: u64, reply: Reply) {
        if self.change_ticket == Some(ticket) {
            return self.handle_change(reply);
        }
        if let Some(Overlay::Projects { list }) = &mut self.overlay
            && list.ticket == ticket
        {
            if let Reply::Projects(p) = reply {
                list.fill(p);
            }
            return;
        }
        if let Reply::Projects(p) = &reply {
            self.known_projects = p.iter().map(|x| x.name.clone()).collect();
            return;
        }
        if let Some(p) = &mut self.preview
            && p.ticket == ticket
        {
            return p.apply(reply, &self.tz);
        }
        let height = self.list_height();
        let list = self.areas(Rect::new(0, 0, self.size.0, self.size.1)).list;
        let Some(pos) = self.stack.iter().position(|l| l.ticket == ticket) else {
            return;
        };
        let layer = &mut self.stack[pos];
        match reply {
            Reply::Page(page) => {
                layer.apply_page(page, &self.tz);
                if layer.filter.is_some() {
                    layer.refilter(&self.matcher);
                }
                // A document opens at its top. The row it puts the cursor on (a detail's
                // first tool use, for Enter) keeps it only when it shares the first screen
                // with the title; drawn further down, it would scroll the title away.
                if !layer.is_list()
                    && layer.cursor > 0
                    && !pane::fits_from_top(&self.theme, layer, list, layer.cursor)
                {
                    layer.cursor = 0;
                    layer.offset = 0;
                }
                layer.scroll_into_view(height);
            }
            Reply::Context(c) => layer.show_text(c),
            Reply::Missing(m) => {
                self.stack.remove(pos);
                self.say(m, true);
            }
            Reply::Error(m) => {
                layer.loading = false;
                layer.error = Some(m.clone());
                self.say(m, true);
            }
            Reply::Projects(_) | Reply::Forgotten { .. } | Reply::Scrubbed { .. } => {}
        }
        if pos + 1 == self.stack.len() {
            self.request_preview();
        }
    }
}
