//! What each action does to the browser: open and close layers, move, switch scope and
//! filters, copy, edit, delete and scrub. `app.rs` routes events here; the components
//! (`layer`, `layers/*`, `nav`, `change`, the overlays) hold the rules.

use super::app::{App, Effect, Focus, Input, Layer, LayerKind, Overlay, Preview, Scope};
use super::change;
use super::data::{IndexQuery, Request, Target};
use super::layers::agent::Agent;
use super::layers::index::Index;
use super::layers::search::Search;
use super::layers::work_state::WorkState;
use super::layers::{AgentView, Component};
use super::line_edit::LineEdit;
use super::overlays::projects::Projects;
use super::theme;
use crate::model::{CONCEPTS, Kind, ObsType};

/// The value after `current` in `all`, then none (`all` again), then the first.
fn cycle<T: Copy + PartialEq>(all: &[T], current: Option<T>) -> Option<T> {
    match current {
        None => all.first().copied(),
        Some(c) => all
            .iter()
            .position(|x| *x == c)
            .and_then(|i| all.get(i + 1).copied()),
    }
}

impl App {
    /// The project keys of the current scope (empty = every project).
    pub(crate) fn scope_keys(&self) -> Vec<String> {
        self.scope
            .keys(&self.project, &self.project_keys, &self.known_projects)
    }

    pub(crate) fn scope_label(&self) -> String {
        self.scope.title(&self.project)
    }

    pub(super) fn index_query(&self) -> IndexQuery {
        IndexQuery {
            keys: self.scope_keys(),
            obs_type: self.obs_type.map(|t| t.id().to_string()),
            concept: self.concept.map(String::from),
        }
    }

    pub(super) fn open_index(&mut self) {
        self.stack.clear();
        self.preview = None;
        let index: Component = Index::new(self.scope_label(), self.index_query()).into();
        let t = self.ticket();
        self.stack.push(Layer::new(index.clone(), t));
        self.outbox.push((t, Request::Load(index)));
    }

    /// Opens a layer of `component` on top and asks the worker to fill it.
    pub(super) fn push(&mut self, component: Component) {
        let t = self.ticket();
        self.stack.push(Layer::new(component.clone(), t));
        self.outbox.push((t, Request::Load(component)));
        self.focus = Focus::List;
    }

    pub(super) fn move_cursor(&mut self, delta: isize) {
        if self.focus == Focus::Preview
            && let Some(p) = &mut self.preview
        {
            p.scroll(delta);
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
    pub(super) fn maybe_next_page(&mut self) {
        let l = self.top();
        if !l.component.behaviour().has_more() || l.loading || l.filter.is_some() {
            return;
        }
        if l.cursor + 3 * self.list_height().max(20) < l.rows.len() {
            return;
        }
        let request = Request::Load(l.component.clone());
        let t = self.ticket();
        let l = self.top_mut();
        l.loading = true;
        l.ticket = t;
        self.outbox.push((t, request));
    }

    pub(super) fn request_preview(&mut self) {
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
        self.preview = Some(Preview::new(kind, id, t));
        self.outbox.push((t, Request::Preview { kind, id }));
    }

    /// Quits now, or once the delete or scrub in flight is done.
    pub(crate) fn quit(&mut self) {
        if self.change_ticket.is_some() {
            self.quit_after_change = true;
            self.say("quitting when the change in progress is done…", false);
        } else {
            self.effects.push(Effect::Quit);
        }
    }

    pub(super) fn switch_project(&mut self, name: String) {
        self.project_keys = vec![name.clone()];
        self.project = name;
        self.overlay = None;
        if self.scope == Scope::All {
            self.scope = Scope::Project;
        }
        self.open_index();
    }

    pub(super) fn next_theme(&mut self) {
        let i = self
            .themes
            .iter()
            .position(|n| *n == self.theme.name)
            .map_or(0, |i| i + 1);
        let name = self.themes[i % self.themes.len()].clone();
        match theme::load_for_terminal(&name) {
            Ok(t) => {
                self.theme = t;
                self.say(format!("theme: {name}"), false);
            }
            Err(e) => self.say(format!("{e:#}"), true),
        }
    }

    pub(super) fn copy_id(&mut self) {
        let (text, what) = match self.top().selected_target() {
            Some(Target::Record(k, id)) => (k.display_id(*id), "copied"),
            Some(Target::ToolUse(id)) => (crate::view::raw::tool_use_id(*id), "copied tool use"),
            _ => return self.say("no id on this row", true),
        };
        self.say(format!("{what} {text}"), false);
        self.effects.push(Effect::Copy(text));
    }

    pub(super) fn copy_text(&mut self) {
        match self.top().agent_text.clone() {
            Some(t) => {
                let n = crate::model::utf16_len(&t);
                self.say(format!("copied the agent text ({n} characters)"), false);
                self.effects.push(Effect::Copy(t));
            }
            None => self.say("press a for this layer's agent text first", true),
        }
    }

    /// `d`: the selected record, or the record the layer is about, after a yes.
    pub(super) fn confirm_delete(&mut self) {
        if self.change_ticket.is_some() {
            return self.say("a change is still running", true);
        }
        let top = self.top();
        let record = match top.selected_target() {
            Some(Target::Record(k, id)) => Some((*k, *id)),
            _ => top.about(),
        };
        match record {
            Some((kind, id)) => {
                self.overlay = Some(Overlay::Confirm(change::ask_delete(kind, id)));
            }
            None => self.say("select an observation, summary or prompt first", true),
        }
    }

    pub(super) fn send_change(&mut self, request: Request) {
        let t = self.ticket();
        self.change_ticket = Some(t);
        self.say(change::doing(&request), false);
        self.outbox.push((t, request));
    }

    /// Layers about a deleted record close; rows leading to it go everywhere else.
    pub(super) fn forget_rows(&mut self, kind: Kind, id: i64) {
        if let Some(pos) = self
            .stack
            .iter()
            .position(|l| l.about() == Some((kind, id)))
        {
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
    }

    /// Reloads from the database: back to a fresh index (new rows written by hooks appear).
    pub(super) fn refresh(&mut self) {
        self.open_index();
        let t = self.ticket();
        self.outbox.push((t, Request::Projects));
        self.say("reloaded", false);
    }

    /// `w`: the work state, once in the stack. From an agent view it replaces the view (which
    /// belongs to the layer under it); on the work state it goes back, as `a` does on its
    /// layer; with the work state further down the stack it pops back to it.
    pub(super) fn open_work_state(&mut self) {
        self.focus = Focus::List;
        let from_agent = self.top().kind() == LayerKind::Agent && self.stack.len() > 1;
        if from_agent {
            self.stack.pop();
        }
        match self
            .stack
            .iter()
            .rposition(|l| l.kind() == LayerKind::WorkState)
        {
            Some(pos) if pos + 1 == self.stack.len() && !from_agent => {
                self.pop_to(pos.saturating_sub(1))
            }
            Some(pos) => self.pop_to(pos),
            None => {
                let keys = self.scope_keys();
                let label = self.scope_label();
                self.push(WorkState { label, keys }.into());
            }
        }
        self.preview = None;
        self.request_preview();
    }

    /// `a`: the text the agent gets for the layer: the session-start text on the index, else
    /// the reply of the MCP tool an agent calls for it (the worker's `agent_text`).
    pub(super) fn open_agent_view(&mut self) {
        match self.top().component.behaviour().agent_view() {
            AgentView::SessionStart => {
                let keys = if self.scope == Scope::All {
                    self.project_keys.clone()
                } else {
                    self.scope_keys()
                };
                let label = self.project.clone();
                self.push(Agent::session_start(label, keys).into());
            }
            AgentView::Leave => self.back(),
            AgentView::OwnText => {
                let text = self.top().agent_text.clone().unwrap_or_default();
                let agent = Agent {
                    session_start: None,
                    context: None,
                };
                let mut layer = Layer::new(agent, self.ticket());
                layer.show_text(Agent::text(text));
                self.stack.push(layer);
            }
        }
    }

    pub(super) fn open_selected(&mut self) {
        self.focus = Focus::List;
        let top = self.top();
        match top.selected_target() {
            Some(target) => {
                let to = top.component.behaviour().open(target);
                self.push(to);
                self.preview = None;
            }
            None if !top.is_list() => self.say("nothing to open on this line", false),
            None => {}
        }
    }

    pub(super) fn back(&mut self) {
        if self.focus == Focus::Preview {
            self.focus = Focus::List;
            return;
        }
        if self.top().filter.is_some() {
            self.top_mut().clear_filter();
            return;
        }
        if self.stack.len() > 1 {
            self.stack.pop();
            self.preview = None;
            self.request_preview();
        }
    }

    /// Pops back to the layer at `depth` (0 = index), as clicking a breadcrumb does.
    pub(crate) fn pop_to(&mut self, depth: usize) {
        if depth + 1 < self.stack.len() {
            self.stack.truncate(depth + 1);
            self.preview = None;
            self.request_preview();
        }
    }

    pub(super) fn start_search(&mut self, text: &str) {
        let text = text.trim().to_string();
        if text.is_empty() {
            return;
        }
        let keys = self.scope_keys();
        self.push(Search { text, keys }.into());
    }

    pub(super) fn edit(&mut self) {
        let l = self.top();
        // A `- path` line under the cursor wins; else the first file the record touched.
        let under = l.selected().map(|r| r.display()).and_then(|t| {
            let p = t.trim().strip_prefix("- ")?.to_string();
            l.files.iter().find(|f| f.ends_with(&p)).cloned()
        });
        match under.or_else(|| l.files.first().cloned()) {
            Some(path) => self.effects.push(Effect::Edit(path)),
            None => self.say("no file here: open an observation's detail first", true),
        }
    }

    pub(super) fn open_filter(&mut self) {
        let q = self.top().filter.as_ref().map(|f| f.query.clone());
        self.input = Some(Input::Filter(LineEdit::new(q.unwrap_or_default())));
    }

    pub(super) fn next_type(&mut self) {
        self.obs_type = cycle(&ObsType::ALL, self.obs_type);
        let shown = self.obs_type.map_or("all", ObsType::id);
        self.say(format!("type: {shown}"), false);
        self.open_index();
    }

    pub(super) fn next_concept(&mut self) {
        self.concept = cycle(&CONCEPTS, self.concept);
        self.say(format!("concept: {}", self.concept.unwrap_or("all")), false);
        self.open_index();
    }

    pub(super) fn next_scope(&mut self) {
        self.scope = self.scope.next();
        self.say(format!("scope: {}", self.scope.label()), false);
        self.open_index();
    }

    pub(super) fn open_projects(&mut self) {
        let t = self.ticket();
        self.overlay = Some(Overlay::Projects {
            list: Projects::loading(t),
        });
        self.outbox.push((t, Request::Projects));
    }

    /// Tab: between the list and the preview, when there is one.
    pub(super) fn switch_pane(&mut self) {
        if self.preview_visible() && self.preview.is_some() {
            self.focus = match self.focus {
                Focus::List => Focus::Preview,
                Focus::Preview => Focus::List,
            };
        }
    }

    pub(super) fn start_scrub(&mut self) {
        if self.change_ticket.is_some() {
            self.say("a change is still running", true);
        } else {
            self.input = Some(Input::Scrub(LineEdit::default()));
        }
    }
}
