//! A layer of the stack the browser steps through (push to drill down, pop to go back): what
//! every kind shares — its rows, where the cursor and the scroll are, the `/` filter over it,
//! and how a worker's page lands in it. What differs by kind is its component's
//! (`layers/*`); drawing a layer is `pane.rs`'s job.

use std::path::PathBuf;

use fuzzy_matcher::skim::SkimMatcherV2;

use super::data::{ContextText, Page, Row, Target};
pub use super::layers::{Component, LayerKind};
use crate::model::Kind;
use crate::view::{self, time::Tz};

#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub query: String,
    /// Visible rows (indices into `rows`) and the matched character positions of each.
    pub visible: Vec<(usize, Vec<usize>)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// The kind of layer, with the state that kind keeps.
    pub component: Component,
    pub title: String,
    pub rows: Vec<Row>,
    /// Position in the visible rows.
    pub cursor: usize,
    /// First visible row on screen.
    pub offset: usize,
    pub loading: bool,
    pub ticket: u64,
    pub filter: Option<Filter>,
    /// The plain text an agent gets for this layer (`a` shows it).
    pub agent_text: Option<String>,
    /// Files the layer's record touched, for `e`.
    pub files: Vec<PathBuf>,
    pub error: Option<String>,
}

impl Layer {
    /// A layer of `component`, loading under `ticket`.
    pub(crate) fn new(component: impl Into<Component>, ticket: u64) -> Layer {
        let component = component.into();
        Layer {
            title: component.behaviour().title(),
            component,
            rows: Vec::new(),
            cursor: 0,
            offset: 0,
            loading: true,
            ticket,
            filter: None,
            agent_text: None,
            files: Vec::new(),
            error: None,
        }
    }

    pub fn kind(&self) -> LayerKind {
        self.component.kind()
    }

    pub(crate) fn is_list(&self) -> bool {
        self.component.behaviour().is_list()
    }

    /// The record the layer is about (deleting it closes the layer).
    pub fn about(&self) -> Option<(Kind, i64)> {
        self.component.behaviour().about()
    }

    /// The observations and summaries of every page, once counted (the index).
    pub fn total(&self) -> Option<(i64, i64)> {
        self.component.behaviour().total()
    }

    /// A budgeted text line by line (the agent view).
    pub(crate) fn show_text(&mut self, c: ContextText) {
        self.loading = false;
        self.rows = c
            .text
            .lines()
            .map(|s| Row::view(view::Line::text(s)))
            .collect();
        self.agent_text = Some(c.text.clone());
        self.component.behaviour_mut().take_context(c);
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

    pub(crate) fn selected(&self) -> Option<&Row> {
        self.visible(self.cursor)
            .and_then(|(i, _)| self.rows.get(i))
    }

    pub fn selected_target(&self) -> Option<&Target> {
        self.selected().and_then(|r| r.target.as_ref())
    }

    pub(crate) fn selectable(&self, pos: usize) -> bool {
        !self.is_list()
            || self
                .visible(pos)
                .and_then(|(i, _)| self.rows.get(i))
                .is_some_and(|r| r.target.is_some())
    }

    /// Moves the cursor by `delta` visible rows, landing on a selectable one.
    pub(crate) fn step(&mut self, delta: isize) {
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

    /// Puts the cursor on the first selectable row from the top.
    fn cursor_to_top(&mut self) {
        self.cursor = 0;
        if !self.selectable(0) {
            self.step(1);
        }
    }

    /// Keeps the cursor on screen for a list `height` rows tall.
    pub(crate) fn scroll_into_view(&mut self, height: usize) {
        let height = height.max(1);
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + height {
            self.offset = self.cursor + 1 - height;
        }
        let max_offset = self.visible_len().saturating_sub(height);
        self.offset = self.offset.min(max_offset);
    }

    pub(crate) fn apply_page(&mut self, mut page: Page, tz: &Tz) {
        self.loading = false;
        self.error = None;
        if page.agent_text.is_some() {
            self.agent_text = page.agent_text.take();
        }
        if !page.files.is_empty() {
            self.files = std::mem::take(&mut page.files);
        }
        let focus = page.focus;
        self.component
            .behaviour_mut()
            .take_page(&mut self.rows, page, tz);
        if let Some(f) = focus {
            self.cursor = f;
        } else if !self.selectable(self.cursor) {
            self.select_first();
        }
    }

    /// Drops the rows that lead to a deleted record, keeping the cursor near where it was;
    /// returns how many went.
    pub(crate) fn remove_record(&mut self, kind: Kind, id: i64, matcher: &SkimMatcherV2) -> usize {
        let target = Some(Target::Record(kind, id));
        let before = self.rows.len();
        self.rows.retain(|r| r.target != target);
        let removed = before - self.rows.len();
        if removed == 0 {
            return 0;
        }
        self.component.behaviour_mut().forgot(&mut self.rows, kind);
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

    /// Filters the rows by `query` (live, as it is typed).
    pub(crate) fn set_filter(&mut self, query: String, matcher: &SkimMatcherV2) {
        self.filter = Some(Filter {
            query,
            visible: Vec::new(),
        });
        self.refilter(matcher);
    }

    /// Shows every row again, the cursor on the first item.
    pub(crate) fn clear_filter(&mut self) {
        self.filter = None;
        self.cursor_to_top();
    }

    pub(crate) fn refilter(&mut self, matcher: &SkimMatcherV2) {
        let list = self.is_list();
        let Some(f) = &mut self.filter else { return };
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
        self.cursor_to_top();
    }

    /// How many visible rows are items (records, tool uses, lists), not day headings or
    /// blank lines; a document layer's lines all count.
    pub(crate) fn item_count(&self) -> usize {
        if !self.is_list() {
            return self.visible_len();
        }
        (0..self.visible_len())
            .filter(|&p| self.selectable(p))
            .count()
    }

    /// The 1-based number of the item under the cursor among `item_count`.
    pub fn item_number(&self) -> usize {
        if !self.is_list() {
            return self.cursor + 1;
        }
        (0..=self.cursor.min(self.visible_len().saturating_sub(1)))
            .filter(|&p| self.selectable(p))
            .count()
            .max(1)
    }
}
