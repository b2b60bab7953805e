//! The browser's state: a stack of layers (push to drill down, pop to go back), the overlays
//! (help, project switcher, confirmations), the one-line inputs (filter, search, jump) and
//! the requests waiting for the worker. `handle_*` mutate; drawing (`ui.rs`) only reads.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use fuzzy_matcher::skim::SkimMatcherV2;

use super::data::{
    ContextText, Cursor, IndexQuery, Page, ProjectCount, Reply, Request, Row, Target,
};
use super::keymap::{Action, Keymap, Press, Resolved};
use super::theme::Theme;
use crate::model::{CONCEPTS, Kind, ObsType};
use crate::view::{self, Role, time::Tz};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    Index,
    Timeline,
    Detail,
    Raw,
    WorkState,
    WorkHistory,
    Agent,
    Search,
}

impl LayerKind {
    pub fn name(self) -> &'static str {
        match self {
            LayerKind::Index => "Index",
            LayerKind::Timeline => "Timeline",
            LayerKind::Detail => "Detail",
            LayerKind::Raw => "Raw I/O",
            LayerKind::WorkState => "Work state",
            LayerKind::WorkHistory => "History",
            LayerKind::Agent => "Agent view",
            LayerKind::Search => "Search",
        }
    }

    /// List layers move between rows that lead somewhere; document layers move line by line.
    pub fn is_list(self) -> bool {
        matches!(
            self,
            LayerKind::Index | LayerKind::Timeline | LayerKind::Search | LayerKind::WorkState
        )
    }

    /// Layers whose selected record is previewed beside the list on wide terminals.
    pub fn previews(self) -> bool {
        matches!(
            self,
            LayerKind::Index | LayerKind::Timeline | LayerKind::Search
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub query: String,
    /// Visible rows (indices into `rows`) and the matched character positions of each.
    pub visible: Vec<(usize, Vec<usize>)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub kind: LayerKind,
    pub title: String,
    pub rows: Vec<Row>,
    /// Position in the visible rows.
    pub cursor: usize,
    /// First visible row on screen.
    pub offset: usize,
    pub loading: bool,
    pub ticket: u64,
    pub filter: Option<Filter>,
    pub agent_text: Option<String>,
    /// Agent layers: the session-start text with its length and budget steps.
    pub context: Option<ContextText>,
    /// Index paging: where the next page starts, the counts, the day of the last row.
    pub next: Option<Cursor>,
    pub total: Option<(i64, i64)>,
    pub last_day: Option<i32>,
    pub files: Vec<PathBuf>,
    pub error: Option<String>,
    /// The record a timeline or detail layer is about (deleting it closes the layer).
    pub about: Option<(Kind, i64)>,
}

impl Layer {
    pub fn new(kind: LayerKind, title: impl Into<String>, ticket: u64) -> Layer {
        Layer {
            kind,
            title: title.into(),
            rows: Vec::new(),
            cursor: 0,
            offset: 0,
            loading: true,
            ticket,
            filter: None,
            agent_text: None,
            context: None,
            next: None,
            total: None,
            last_day: None,
            files: Vec::new(),
            error: None,
            about: None,
        }
    }

    pub fn visible_len(&self) -> usize {
        match &self.filter {
            Some(f) => f.visible.len(),
            None => self.rows.len(),
        }
    }

    /// The row index and match positions of visible position `pos`.
    pub fn visible(&self, pos: usize) -> Option<(usize, &[usize])> {
        match &self.filter {
            Some(f) => f.visible.get(pos).map(|(i, m)| (*i, m.as_slice())),
            None => (pos < self.rows.len()).then_some((pos, &[][..])),
        }
    }

    pub fn selected(&self) -> Option<&Row> {
        self.visible(self.cursor)
            .and_then(|(i, _)| self.rows.get(i))
    }

    pub fn selected_target(&self) -> Option<&Target> {
        self.selected().and_then(|r| r.target.as_ref())
    }

    fn selectable(&self, pos: usize) -> bool {
        !self.kind.is_list()
            || self
                .visible(pos)
                .and_then(|(i, _)| self.rows.get(i))
                .is_some_and(|r| r.target.is_some())
    }

    /// Moves the cursor by `delta` visible rows, landing on a selectable one.
    fn step(&mut self, delta: isize) {
        let n = self.visible_len();
        if n == 0 {
            return;
        }
        let mut pos = (self.cursor as isize + delta).clamp(0, n as isize - 1) as usize;
        let dir: isize = if delta < 0 { -1 } else { 1 };
        let start = pos;
        while !self.selectable(pos) {
            let next = pos as isize + dir;
            if next < 0 || next >= n as isize {
                // Nothing selectable that way: search back the other way from where we landed.
                pos = start;
                while !self.selectable(pos) && pos > 0 && dir > 0 {
                    pos -= 1;
                }
                while !self.selectable(pos) && pos + 1 < n && dir < 0 {
                    pos += 1;
                }
                break;
            }
            pos = next as usize;
        }
        if self.selectable(pos) {
            self.cursor = pos;
        }
    }

    fn select_first(&mut self) {
        self.cursor = 0;
        self.step(0);
        if !self.selectable(self.cursor) {
            self.step(1);
        }
    }

    /// Keeps the cursor on screen for a list `height` rows tall.
    pub fn scroll_into_view(&mut self, height: usize) {
        let height = height.max(1);
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + height {
            self.offset = self.cursor + 1 - height;
        }
        let max_offset = self.visible_len().saturating_sub(height);
        self.offset = self.offset.min(max_offset);
    }

    fn apply_page(&mut self, page: Page, tz: &Tz) {
        self.loading = false;
        self.error = None;
        if self.kind == LayerKind::Index {
            // Day headings are added where the day changes, also across pages.
            for (row, at) in page.rows.into_iter().zip(page.times) {
                let day = tz.day_key(at);
                if self.last_day != Some(day) {
                    if self.last_day.is_some() {
                        self.rows.push(Row::view(view::Line::blank()));
                    }
                    self.rows.push(Row::view(
                        view::Line::new().push(tz.day(at), Role::Heading(3)),
                    ));
                    self.last_day = Some(day);
                }
                self.rows.push(row);
            }
            self.next = page.next;
            if page.total.is_some() {
                self.total = page.total;
            }
        } else {
            self.rows = page.rows;
            self.agent_text = page.agent_text;
            self.files = page.files;
        }
        if let Some(f) = page.focus {
            self.cursor = f;
        } else if !self.selectable(self.cursor) {
            self.select_first();
        }
    }

    /// Drops the rows that lead to a deleted record, keeping the cursor near where it was;
    /// returns how many went.
    fn remove_record(&mut self, kind: Kind, id: i64, matcher: &SkimMatcherV2) -> usize {
        let target = Some(Target::Record(kind, id));
        let before = self.rows.len();
        self.rows.retain(|r| r.target != target);
        let removed = before - self.rows.len();
        if removed == 0 {
            return 0;
        }
        if let Some((obs, sums)) = &mut self.total {
            match kind {
                Kind::Observation => *obs -= 1,
                Kind::Summary => *sums -= 1,
                Kind::Prompt => {}
            }
        }
        if self.kind == LayerKind::Index {
            self.drop_empty_days();
        }
        // Refiltering starts the cursor over at the top; keep it where it was instead.
        let (cursor, offset) = (self.cursor, self.offset);
        self.refilter(matcher);
        let len = self.visible_len();
        self.cursor = cursor.min(len.saturating_sub(1));
        self.offset = offset.min(self.cursor);
        if !self.selectable(self.cursor) {
            self.step(1);
            if !self.selectable(self.cursor) {
                self.step(-1);
            }
        }
        removed
    }

    /// Removes a day heading (and the blank line after its rows) once its last row is gone.
    fn drop_empty_days(&mut self) {
        let mut keep = vec![true; self.rows.len()];
        let mut group: Vec<usize> = Vec::new();
        let mut has_rows = true;
        for (i, row) in self.rows.iter().enumerate() {
            if row.target.is_some() {
                has_rows = true;
            } else if !row.display().trim().is_empty() {
                if !has_rows {
                    group.iter().for_each(|g| keep[*g] = false);
                }
                group = vec![i];
                has_rows = false;
            } else {
                group.push(i);
            }
        }
        if !has_rows {
            group.iter().for_each(|g| keep[*g] = false);
        }
        let mut i = 0;
        self.rows.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }

    fn refilter(&mut self, matcher: &SkimMatcherV2) {
        let Some(f) = &mut self.filter else { return };
        let list = self.kind.is_list();
        let is_item = |row: &Row| !list || row.target.is_some();
        // Score every item first: what is good enough depends on the best match.
        let found: Vec<Option<(i64, Vec<usize>)>> = self
            .rows
            .iter()
            .map(|row| {
                if !is_item(row) {
                    None
                } else if f.query.trim().is_empty() {
                    Some((0, Vec::new()))
                } else {
                    super::filter::score(matcher, &f.query, row)
                }
            })
            .collect();
        let keep = super::filter::keep(
            &found
                .iter()
                .map(|x| x.as_ref().map(|m| m.0))
                .collect::<Vec<_>>(),
        );
        let mut visible: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut pending_heading: Option<usize> = None;
        for (i, (row, hit)) in self.rows.iter().zip(found).enumerate() {
            if !is_item(row) {
                // A heading stays when something under it matches.
                if !row.display().trim().is_empty() {
                    pending_heading = Some(i);
                }
                continue;
            }
            if let Some((_, idx)) = hit.filter(|_| keep[i]) {
                if let Some(h) = pending_heading.take() {
                    visible.push((h, Vec::new()));
                }
                visible.push((i, idx));
            }
        }
        f.visible = visible;
        self.offset = 0;
        self.cursor = 0;
        if !self.selectable(0) {
            self.step(1);
        }
    }

    /// How many visible rows are items (records, tool uses, lists), not day headings or
    /// blank lines; a document layer's lines all count.
    pub fn item_count(&self) -> usize {
        if !self.kind.is_list() {
            return self.visible_len();
        }
        (0..self.visible_len())
            .filter(|&p| self.selectable(p))
            .count()
    }

    /// The 1-based number of the item under the cursor among `item_count`.
    pub fn item_number(&self) -> usize {
        if !self.kind.is_list() {
            return self.cursor + 1;
        }
        (0..=self.cursor.min(self.visible_len().saturating_sub(1)))
            .filter(|&p| self.selectable(p))
            .count()
            .max(1)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Filter(String),
    Search(String),
    Jump(String),
    /// Text to scrub everywhere (`x`).
    Scrub(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help {
        offset: usize,
    },
    Projects {
        list: Vec<ProjectCount>,
        cursor: usize,
        loading: bool,
        ticket: u64,
    },
    /// A question answered with `y`; yes sends `request` (a change to the database).
    Confirm {
        question: String,
        detail: String,
        request: Request,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Project,
    Group,
    All,
}

impl Scope {
    pub fn label(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Group => "worktree group",
            Scope::All => "all projects",
        }
    }
}

/// Side effects the event loop carries out (the state itself stays pure).
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Quit,
    /// Copy to the clipboard with OSC 52.
    Copy(String),
    /// Suspend, run `$EDITOR` on the file, resume.
    Edit(PathBuf),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub target: Target,
    pub ticket: u64,
    pub layer: Layer,
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
    next_ticket: u64,
    matcher: SkimMatcherV2,
}

pub struct Options {
    pub theme: Theme,
    pub keymap: Keymap,
    pub tz: Tz,
    pub now_ms: i64,
    pub project: String,
    pub project_keys: Vec<String>,
    pub size: (u16, u16),
}

impl App {
    pub fn new(o: Options) -> App {
        let mut app = App {
            theme: o.theme,
            themes: super::theme::available(),
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

    fn ticket(&mut self) -> u64 {
        self.next_ticket += 1;
        self.next_ticket
    }

    pub fn top(&self) -> &Layer {
        // The stack always holds the index at the bottom.
        &self.stack[self.stack.len() - 1]
    }

    fn top_mut(&mut self) -> &mut Layer {
        let n = self.stack.len();
        &mut self.stack[n - 1]
    }

    /// The project keys of the current scope (empty = every project).
    pub fn scope_keys(&self) -> Vec<String> {
        match self.scope {
            Scope::Project => self.project_keys.clone(),
            Scope::All => Vec::new(),
            Scope::Group => {
                let base = self
                    .project
                    .split('/')
                    .next()
                    .unwrap_or(&self.project)
                    .to_lowercase();
                let mut keys = self.project_keys.clone();
                for p in &self.known_projects {
                    let l = p.to_lowercase();
                    if (l == base || l.starts_with(&format!("{base}/")))
                        && !keys.iter().any(|k| k.eq_ignore_ascii_case(p))
                    {
                        keys.push(p.clone());
                    }
                }
                keys
            }
        }
    }

    pub fn scope_label(&self) -> String {
        match self.scope {
            Scope::All => "all projects".into(),
            Scope::Project => self.project.clone(),
            Scope::Group => format!("{} + worktrees", self.project),
        }
    }

    fn open_index(&mut self) {
        let t = self.ticket();
        let mut layer = Layer::new(LayerKind::Index, self.scope_label(), t);
        layer.agent_text = None;
        self.stack.clear();
        self.stack.push(layer);
        self.preview = None;
        let query = IndexQuery {
            keys: self.scope_keys(),
            obs_type: self.obs_type.map(|t| t.id().to_string()),
            concept: self.concept.map(String::from),
        };
        self.outbox.push((
            t,
            Request::IndexPage {
                query,
                after: None,
                count: true,
            },
        ));
    }

    fn push(&mut self, kind: LayerKind, title: String, req: Request) {
        let t = self.ticket();
        let mut layer = Layer::new(kind, title, t);
        if let Request::Timeline { kind, id } | Request::Detail { kind, id } = req {
            layer.about = Some((kind, id));
        }
        self.stack.push(layer);
        self.outbox.push((t, req));
        self.focus = Focus::List;
    }

    /// The rows a list shows on screen (the terminal minus chrome).
    pub fn list_height(&self) -> usize {
        super::ui::list_height(self.size)
    }

    pub fn handle_key(&mut self, key: KeyEvent) {
        self.status = None;
        if let Some(input) = self.input.clone() {
            self.handle_input_key(input, key);
            return;
        }
        let press = Press::from_event(&key);
        if let Some(Overlay::Confirm { request, .. }) = self.overlay.clone() {
            self.overlay = None;
            if matches!(press.code, KeyCode::Char('y') | KeyCode::Char('Y')) {
                self.send_change(request);
            } else {
                self.status = Some(("Nothing changed".into(), false));
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

    fn handle_input_key(&mut self, input: Input, key: KeyEvent) {
        let (mut text, kind) = match &input {
            Input::Filter(t) => (t.clone(), 0),
            Input::Search(t) => (t.clone(), 1),
            Input::Jump(t) => (t.clone(), 2),
            Input::Scrub(t) => (t.clone(), 3),
        };
        let ctrl = key
            .modifiers
            .contains(crossterm::event::KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => {
                self.input = None;
                if kind == 0 {
                    self.top_mut().filter = None;
                    self.top_mut().cursor = 0;
                    let l = self.top_mut();
                    if !l.selectable(0) {
                        l.step(1);
                    }
                }
                return;
            }
            KeyCode::Enter => {
                self.input = None;
                match kind {
                    0 => {
                        if text.is_empty() {
                            self.top_mut().filter = None;
                        }
                    }
                    1 => self.start_search(text),
                    2 => self.jump(&text),
                    _ => self.plan_scrub(text),
                }
                return;
            }
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char('u') if ctrl => text.clear(),
            KeyCode::Char('w') if ctrl => {
                let trimmed = text.trim_end().len();
                text.truncate(text[..trimmed].rfind(' ').map_or(0, |i| i + 1));
            }
            KeyCode::Char(c) if !ctrl => text.push(c),
            KeyCode::Down | KeyCode::Up if kind == 0 => {
                let d = if key.code == KeyCode::Down { 1 } else { -1 };
                self.move_cursor(d);
                return;
            }
            _ => return,
        }
        match kind {
            0 => {
                self.input = Some(Input::Filter(text.clone()));
                let matcher = std::mem::take(&mut self.matcher);
                let l = self.top_mut();
                l.filter = Some(Filter {
                    query: text,
                    visible: Vec::new(),
                });
                l.refilter(&matcher);
                self.matcher = matcher;
                self.request_preview();
            }
            1 => self.input = Some(Input::Search(text)),
            2 => self.input = Some(Input::Jump(text)),
            _ => self.input = Some(Input::Scrub(text)),
        }
    }

    fn move_cursor(&mut self, delta: isize) {
        if self.focus == Focus::Preview
            && let Some(p) = &mut self.preview
        {
            let n = p.layer.visible_len();
            p.layer.offset =
                (p.layer.offset as isize + delta).clamp(0, n.saturating_sub(1) as isize) as usize;
            return;
        }
        let height = self.list_height();
        let l = self.top_mut();
        l.step(delta);
        l.scroll_into_view(height);
        self.maybe_next_page();
        self.request_preview();
    }

    /// Asks for the next index page when the cursor nears the end of what is loaded.
    fn maybe_next_page(&mut self) {
        let t = self.next_ticket + 1;
        let l = self.top();
        if l.kind != LayerKind::Index || l.loading || l.filter.is_some() {
            return;
        }
        let Some(after) = l.next else { return };
        if l.cursor + 3 * self.list_height().max(20) < l.rows.len() {
            return;
        }
        let query = IndexQuery {
            keys: self.scope_keys(),
            obs_type: self.obs_type.map(|t| t.id().to_string()),
            concept: self.concept.map(String::from),
        };
        self.next_ticket = t;
        let l = self.top_mut();
        l.loading = true;
        l.ticket = t;
        self.outbox.push((
            t,
            Request::IndexPage {
                query,
                after: Some(after),
                count: false,
            },
        ));
    }

    /// Wide terminals preview the selected record of a list beside it.
    pub fn preview_visible(&self) -> bool {
        self.top().kind.previews() && super::ui::has_preview(self.size)
    }

    fn request_preview(&mut self) {
        if !self.preview_visible() {
            return;
        }
        let target = match self.top().selected_target() {
            Some(t @ Target::Record(_, _)) => t.clone(),
            _ => return,
        };
        if self.preview.as_ref().is_some_and(|p| p.target == target) {
            return;
        }
        let Target::Record(kind, id) = target else {
            return;
        };
        let t = self.ticket();
        self.preview = Some(Preview {
            target,
            ticket: t,
            layer: Layer::new(LayerKind::Detail, "Preview", t),
        });
        self.outbox.push((t, Request::Preview { kind, id }));
    }

    pub fn act(&mut self, a: Action) {
        let page = self.list_height().saturating_sub(1).max(1) as isize;
        if let Some(Overlay::Help { offset }) = &mut self.overlay {
            match a {
                Action::Down => *offset += 1,
                Action::Up => *offset = offset.saturating_sub(1),
                Action::PageDown => *offset += page as usize,
                Action::PageUp => *offset = offset.saturating_sub(page as usize),
                Action::Quit => self.quit(),
                _ => self.overlay = None,
            }
            return;
        }
        if let Some(Overlay::Projects { list, cursor, .. }) = &mut self.overlay {
            match a {
                Action::Down => *cursor = (*cursor + 1).min(list.len().saturating_sub(1)),
                Action::Up => *cursor = cursor.saturating_sub(1),
                Action::Top => *cursor = 0,
                Action::Bottom => *cursor = list.len().saturating_sub(1),
                Action::Open => {
                    if let Some(p) = list.get(*cursor) {
                        self.project = p.name.clone();
                        self.project_keys = vec![p.name.clone()];
                        self.overlay = None;
                        if self.scope == Scope::All {
                            self.scope = Scope::Project;
                        }
                        self.open_index();
                    }
                }
                Action::Quit => self.quit(),
                _ => self.overlay = None,
            }
            return;
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
            Action::Help => self.overlay = Some(Overlay::Help { offset: 0 }),
            Action::Filter => {
                let q = self
                    .top()
                    .filter
                    .as_ref()
                    .map(|f| f.query.clone())
                    .unwrap_or_default();
                self.input = Some(Input::Filter(q));
            }
            Action::Search => self.input = Some(Input::Search(String::new())),
            Action::Jump => self.input = Some(Input::Jump(String::new())),
            Action::TypeFilter => {
                let all = ObsType::ALL;
                self.obs_type = match self.obs_type {
                    None => Some(all[0]),
                    Some(t) => all
                        .iter()
                        .position(|x| *x == t)
                        .and_then(|i| all.get(i + 1).copied()),
                };
                self.status = Some((
                    format!("type: {}", self.obs_type.map_or("all", ObsType::id)),
                    false,
                ));
                self.open_index();
            }
            Action::ConceptFilter => {
                self.concept = match self.concept {
                    None => Some(CONCEPTS[0]),
                    Some(c) => CONCEPTS
                        .iter()
                        .position(|x| *x == c)
                        .and_then(|i| CONCEPTS.get(i + 1).copied()),
                };
                self.status = Some((format!("concept: {}", self.concept.unwrap_or("all")), false));
                self.open_index();
            }
            Action::Projects => {
                let t = self.ticket();
                self.overlay = Some(Overlay::Projects {
                    list: Vec::new(),
                    cursor: 0,
                    loading: true,
                    ticket: t,
                });
                self.outbox.push((t, Request::Projects));
            }
            Action::Scope => {
                self.scope = match self.scope {
                    Scope::Project => Scope::Group,
                    Scope::Group => Scope::All,
                    Scope::All => Scope::Project,
                };
                self.status = Some((format!("scope: {}", self.scope.label()), false));
                self.open_index();
            }
            Action::WorkState => self.open_work_state(),
            Action::Agent => self.open_agent_view(),
            Action::NextPane => {
                if self.preview_visible() && self.preview.is_some() {
                    self.focus = match self.focus {
                        Focus::List => Focus::Preview,
                        Focus::Preview => Focus::List,
                    };
                }
            }
            Action::CopyId => match self.top().selected_target().cloned() {
                Some(Target::Record(k, id)) => {
                    let text = k.display_id(id);
                    self.status = Some((format!("copied {text}"), false));
                    self.effects.push(Effect::Copy(text));
                }
                Some(Target::ToolUse(id)) => {
                    let text = view::detail::tool_use_id(id);
                    self.status = Some((format!("copied tool use {text}"), false));
                    self.effects.push(Effect::Copy(text));
                }
                _ => self.status = Some(("no id on this row".into(), true)),
            },
            Action::CopyText => {
                let l = self.top();
                let text = l
                    .context
                    .as_ref()
                    .map(|c| c.text.clone())
                    .or_else(|| l.agent_text.clone());
                match text {
                    Some(t) => {
                        self.status = Some((
                            format!(
                                "copied the agent text ({} characters)",
                                crate::model::utf16_len(&t)
                            ),
                            false,
                        ));
                        self.effects.push(Effect::Copy(t));
                    }
                    None => {
                        self.status =
                            Some(("press a for this layer's agent text first".into(), true))
                    }
                }
            }
            Action::Edit => self.edit(),
            Action::Delete => self.confirm_delete(),
            Action::Redact => {
                if self.change_ticket.is_some() {
                    self.status = Some(("a change is still running".into(), true));
                } else {
                    self.input = Some(Input::Scrub(String::new()));
                }
            }
            Action::Theme => {
                let i = self
                    .themes
                    .iter()
                    .position(|n| *n == self.theme.name)
                    .map_or(0, |i| i + 1);
                let name = self.themes[i % self.themes.len()].clone();
                match super::theme::load(&name) {
                    Ok(t) => {
                        self.theme = if super::no_colour() {
                            t.without_colour()
                        } else {
                            t
                        };
                        self.status = Some((format!("theme: {name}"), false));
                    }
                    Err(e) => self.status = Some((format!("{e:#}"), true)),
                }
            }
            Action::Refresh => self.refresh(),
        }
    }

    /// Quits now, or once the delete or scrub in flight is done.
    pub fn quit(&mut self) {
        if self.change_ticket.is_some() {
            self.quit_after_change = true;
            self.status = Some((
                "quitting when the change in progress is done…".into(),
                false,
            ));
        } else {
            self.effects.push(Effect::Quit);
        }
    }

    /// `d`: the selected record, or the record the layer is about, after a yes.
    fn confirm_delete(&mut self) {
        if self.change_ticket.is_some() {
            self.status = Some(("a change is still running".into(), true));
            return;
        }
        let top = self.top();
        let record = match top.selected_target() {
            Some(Target::Record(k, id)) => Some((*k, *id)),
            _ => top.about,
        };
        let Some((kind, id)) = record else {
            self.status = Some((
                "select an observation, summary or prompt first".into(),
                true,
            ));
            return;
        };
        let what = format!("{} {}", kind.label(), kind.display_id(id));
        let takes = match kind {
            Kind::Observation => "with the raw tool I/O it was built from",
            Kind::Summary => "the turn's summary only",
            Kind::Prompt => "with its turn's raw tool I/O",
        };
        self.overlay = Some(Overlay::Confirm {
            question: format!("Delete {what}?"),
            detail: format!("{takes}; like `cmem forget {}`", kind.display_id(id)),
            request: Request::Forget { kind, id },
        });
    }

    /// `x` then Enter: count where the text occurs first; the answer asks for a yes.
    fn plan_scrub(&mut self, text: String) {
        if text.is_empty() {
            return;
        }
        self.send_change(Request::Scrub {
            pattern: text,
            dry_run: true,
        });
    }

    fn send_change(&mut self, request: Request) {
        let t = self.ticket();
        self.change_ticket = Some(t);
        let doing = match &request {
            Request::Forget { kind, id } => format!("deleting {}…", kind.display_id(*id)),
            Request::Scrub { dry_run: true, .. } => "looking for it…".to_string(),
            _ => "scrubbing…".to_string(),
        };
        self.status = Some((doing, false));
        self.outbox.push((t, request));
    }

    /// The answer to a delete or scrub.
    fn handle_change(&mut self, reply: Reply) {
        self.change_ticket = None;
        if self.quit_after_change {
            self.effects.push(Effect::Quit);
        }
        match reply {
            Reply::Forgotten { kind, id, removed } => {
                let what = format!("{} {}", kind.label(), kind.display_id(id));
                // Layers about the record close; rows leading to it go everywhere else.
                if let Some(pos) = self.stack.iter().position(|l| l.about == Some((kind, id))) {
                    self.stack.truncate(pos.max(1));
                }
                let matcher = std::mem::take(&mut self.matcher);
                let height = self.list_height();
                for l in &mut self.stack {
                    l.remove_record(kind, id, &matcher);
                    l.scroll_into_view(height);
                }
                self.matcher = matcher;
                self.preview = None;
                self.request_preview();
                self.status = Some(if removed.is_empty() {
                    (format!("{what} was already gone"), false)
                } else {
                    (format!("deleted {what} ({removed})"), false)
                });
            }
            Reply::Scrubbed {
                pattern,
                dry_run: true,
                rows,
                files,
                places,
            } => {
                if rows + files == 0 {
                    self.status = Some((
                        format!(
                            "“{pattern}” is not in the database, the spool or the log: nothing to scrub"
                        ),
                        false,
                    ));
                } else {
                    self.status = None;
                    self.overlay = Some(Overlay::Confirm {
                        question: format!(
                            "Replace “{pattern}” with {} in {}?",
                            super::data::SCRUBBED,
                            rows_and_files(rows, files)
                        ),
                        detail: places,
                        request: Request::Scrub {
                            pattern,
                            dry_run: false,
                        },
                    });
                }
            }
            Reply::Scrubbed {
                rows,
                files,
                places,
                ..
            } => {
                self.refresh();
                self.status = Some((
                    format!("scrubbed {}: {places}", rows_and_files(rows, files)),
                    false,
                ));
            }
            Reply::Missing(m) => self.status = Some((m, true)),
            Reply::Error(m) => {
                // A failure after the commit (the WAL could not be emptied) still changed
                // rows: show the database as it is now.
                self.refresh();
                self.status = Some((m, true));
            }
            _ => {}
        }
    }

    /// Reloads from the database: back to a fresh index (new rows written by hooks appear).
    fn refresh(&mut self) {
        self.open_index();
        let t = self.ticket();
        self.outbox.push((t, Request::Projects));
        self.status = Some(("reloaded".into(), false));
    }

    /// `w`: the work state, once in the stack. From an agent view it replaces the view (which
    /// belongs to the layer under it); on the work state it goes back, as `a` does on its
    /// layer; with the work state further down the stack it pops back to it.
    fn open_work_state(&mut self) {
        if self.focus == Focus::Preview {
            self.focus = Focus::List;
        }
        let from_agent = self.top().kind == LayerKind::Agent && self.stack.len() > 1;
        if from_agent {
            self.stack.pop();
        }
        match self
            .stack
            .iter()
            .rposition(|l| l.kind == LayerKind::WorkState)
        {
            Some(pos) if pos + 1 == self.stack.len() && !from_agent => {
                self.pop_to(pos.saturating_sub(1))
            }
            Some(pos) => self.pop_to(pos),
            None => {
                let keys = self.scope_keys();
                self.push(
                    LayerKind::WorkState,
                    format!("Work state · {}", self.scope_label()),
                    Request::WorkState { keys },
                );
            }
        }
        self.preview = None;
        self.request_preview();
    }

    fn open_agent_view(&mut self) {
        let l = self.top();
        let title = LayerKind::Agent.name().to_string();
        match l.kind {
            LayerKind::Index => {
                let keys = if self.scope == Scope::All {
                    self.project_keys.clone()
                } else {
                    self.scope_keys()
                };
                let label = self.project.clone();
                self.push(LayerKind::Agent, title, Request::Context { label, keys });
            }
            LayerKind::Agent => self.back(),
            _ => {
                let text = l.agent_text.clone().unwrap_or_default();
                let t = self.ticket();
                let mut layer = Layer::new(LayerKind::Agent, title, t);
                layer.loading = false;
                layer.rows = text
                    .lines()
                    .map(|s| Row::view(view::Line::text(s)))
                    .collect();
                layer.context = Some(ContextText {
                    chars: crate::model::utf16_len(&text),
                    limit: 0,
                    steps: Vec::new(),
                    text,
                });
                self.stack.push(layer);
            }
        }
    }

    fn open_selected(&mut self) {
        if self.focus == Focus::Preview {
            self.focus = Focus::List;
        }
        let Some(target) = self.top().selected_target().cloned() else {
            if !self.top().kind.is_list() {
                self.status = Some(("nothing to open on this line".into(), false));
            }
            return;
        };
        let from = self.top().kind;
        match target {
            Target::Record(kind, id) => {
                let shown = kind.display_id(id);
                if from == LayerKind::Index {
                    self.push(
                        LayerKind::Timeline,
                        format!("Timeline {shown}"),
                        Request::Timeline { kind, id },
                    );
                } else {
                    self.push(
                        LayerKind::Detail,
                        format!("Detail {shown}"),
                        Request::Detail { kind, id },
                    );
                }
            }
            Target::ToolUse(id) => self.push(
                LayerKind::Raw,
                format!("Raw {}", view::detail::tool_use_id(id)),
                Request::Raw { id },
            ),
            Target::WorkList(project, list) => self.push(
                LayerKind::WorkHistory,
                format!("History {list}"),
                Request::WorkHistory { project, list },
            ),
        }
        self.preview = None;
    }

    fn back(&mut self) {
        if self.focus == Focus::Preview {
            self.focus = Focus::List;
            return;
        }
        if self.top().filter.is_some() {
            let l = self.top_mut();
            l.filter = None;
            l.cursor = 0;
            if !l.selectable(0) {
                l.step(1);
            }
            return;
        }
        if self.stack.len() > 1 {
            self.stack.pop();
            self.preview = None;
            self.request_preview();
        }
    }

    /// Pops back to the layer at `depth` (0 = index), as clicking a breadcrumb does.
    pub fn pop_to(&mut self, depth: usize) {
        if depth + 1 < self.stack.len() {
            self.stack.truncate(depth + 1);
            self.preview = None;
            self.request_preview();
        }
    }

    fn start_search(&mut self, text: String) {
        let text = text.trim().to_string();
        if text.is_empty() {
            return;
        }
        let keys = self.scope_keys();
        self.push(
            LayerKind::Search,
            format!("Search “{text}”"),
            Request::Search { text, keys },
        );
    }

    fn jump(&mut self, text: &str) {
        let t = text.trim();
        if let Some(rest) = t.strip_prefix('T').or_else(|| t.strip_prefix('t'))
            && let Ok(id) = rest.trim_start_matches('#').parse::<i64>()
        {
            self.push(
                LayerKind::Raw,
                format!("Raw {}", view::detail::tool_use_id(id)),
                Request::Raw { id },
            );
            return;
        }
        match Kind::parse_id(t) {
            Some((kind, id)) => {
                let shown = kind.display_id(id);
                self.push(
                    LayerKind::Detail,
                    format!("Detail {shown}"),
                    Request::Detail { kind, id },
                )
            }
            None => {
                self.status = Some((
                    format!(
                        "{t:?} is not an id: use 123 (observation), S12 (summary), P7 (prompt) or T5 (tool use)"
                    ),
                    true,
                ))
            }
        }
    }

    fn edit(&mut self) {
        let l = self.top();
        // A `- path` line under the cursor wins; else the first file the record touched.
        let under = l.selected().map(|r| r.display()).and_then(|t| {
            let p = t.trim().strip_prefix("- ")?.to_string();
            l.files.iter().find(|f| f.ends_with(&p)).cloned()
        });
        match under.or_else(|| l.files.first().cloned()) {
            Some(path) => self.effects.push(Effect::Edit(path)),
            None => {
                self.status = Some((
                    "no file here: open an observation's detail first".into(),
                    true,
                ))
            }
        }
    }

    pub fn handle_mouse(&mut self, m: MouseEvent) {
        let areas = super::ui::layout(
            self,
            ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1),
        );
        let inside = |r: ratatui::layout::Rect| {
            m.column >= r.x && m.column < r.x + r.width && m.row >= r.y && m.row < r.y + r.height
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let d = if m.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                };
                if let Some(Overlay::Help { offset }) = &mut self.overlay {
                    *offset = (*offset as isize + d).max(0) as usize;
                    return;
                }
                let over_preview = areas.preview.is_some_and(inside);
                self.focus = if over_preview {
                    Focus::Preview
                } else {
                    Focus::List
                };
                self.move_cursor(d);
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if self.overlay.is_some() {
                    self.overlay = None;
                    return;
                }
                if let Some(depth) = super::ui::breadcrumb_at(self, m.column, m.row) {
                    self.pop_to(depth);
                    return;
                }
                if inside(areas.list) {
                    self.focus = Focus::List;
                    let row = (m.row - areas.list.y) as usize;
                    let pos = self.top().offset + row;
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

    pub fn handle_resize(&mut self, w: u16, h: u16) {
        self.size = (w, h);
        let height = self.list_height();
        for l in &mut self.stack {
            l.scroll_into_view(height);
        }
        self.request_preview();
    }

    /// A worker's answer for `ticket`; answers nobody waits for any more are dropped.
    pub fn handle_reply(&mut self, ticket: u64, reply: Reply) {
        if self.change_ticket == Some(ticket) {
            self.handle_change(reply);
            return;
        }
        if let Some(Overlay::Projects {
            list,
            loading,
            ticket: t,
            ..
        }) = &mut self.overlay
            && *t == ticket
        {
            if let Reply::Projects(p) = reply {
                *list = p;
                *loading = false;
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
            match reply {
                Reply::Page(page) => p.layer.apply_page(page, &self.tz),
                Reply::Missing(m) | Reply::Error(m) => {
                    p.layer.loading = false;
                    p.layer.error = Some(m);
                }
                _ => {}
            }
            return;
        }
        let height = self.list_height();
        let Some(pos) = self.stack.iter().position(|l| l.ticket == ticket) else {
            return;
        };
        let tz = self.tz.clone();
        let matcher = std::mem::take(&mut self.matcher);
        let layer = &mut self.stack[pos];
        match reply {
            Reply::Page(page) => {
                layer.apply_page(page, &tz);
                if layer.filter.is_some() {
                    layer.refilter(&matcher);
                }
                layer.scroll_into_view(height);
            }
            Reply::Context(c) => {
                layer.loading = false;
                layer.rows = c
                    .text
                    .lines()
                    .map(|s| Row::view(view::Line::text(s)))
                    .collect();
                layer.agent_text = Some(c.text.clone());
                layer.context = Some(c);
            }
            Reply::Missing(m) => {
                self.stack.remove(pos);
                self.status = Some((m, true));
            }
            Reply::Error(m) => {
                layer.loading = false;
                layer.error = Some(m.clone());
                self.status = Some((m, true));
            }
            Reply::Projects(_) | Reply::Forgotten { .. } | Reply::Scrubbed { .. } => {}
        }
        self.matcher = matcher;
        if pos + 1 == self.stack.len() {
            self.request_preview();
        }
    }
}

/// "3 rows", "1 file", "3 rows and 1 file".
fn rows_and_files(rows: usize, files: usize) -> String {
    match (rows, files) {
        (r, 0) => crate::view::doc::plural(r, "row", "rows"),
        (0, f) => crate::view::doc::plural(f, "file", "files"),
        (r, f) => format!(
            "{} and {}",
            crate::view::doc::plural(r, "row", "rows"),
            crate::view::doc::plural(f, "file", "files")
        ),
    }
}
