//! The index: every observation and summary of the scope, newest first, under day headings,
//! loaded a page at a time as the cursor nears the end. Opening a row shows its timeline.

use anyhow::Result;
use rusqlite::Connection;

use super::page::{Cursor, IndexQuery, PAGE, Page, Reply, Row, Target};
use super::{AgentView, Behaviour, Component, Ctx};
use crate::model::Kind;
use crate::store::browse;
use crate::text::noun;
use crate::tui::keymap::{Action, Keymap};
use crate::view::time::{Days, Tz, thousands};
use crate::view::{self, Role};

#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    /// The scope's name (the title).
    pub label: String,
    pub query: IndexQuery,
    /// Where the next page starts; none once every row is loaded.
    pub next: Option<Cursor>,
    /// Observations and summaries in every page, counted with the first.
    pub total: Option<(i64, i64)>,
    /// The days headed so far (a day's heading is added once, also across pages).
    pub days: Days,
}

impl Index {
    pub(crate) fn new(label: String, query: IndexQuery) -> Index {
        Index {
            label,
            query,
            next: None,
            total: None,
            days: Days::default(),
        }
    }
}

impl Behaviour for Index {
    fn name(&self) -> &'static str {
        "Index"
    }

    fn title(&self) -> String {
        self.label.clone()
    }

    /// The first page counts the rows; later ones start after the last row loaded.
    fn load(&self, conn: &Connection, ctx: &Ctx) -> Result<Reply> {
        let q = &self.query;
        let page = browse::index_page(conn, q, self.next, PAGE)?;
        let total = match self.total {
            None => Some(browse::counts(conn, q)?),
            Some(_) => None,
        };
        let all = q.keys.len() != 1;
        let rows = page
            .rows
            .iter()
            .map(|r| {
                let mut line = view::timeline::row_line(r, &ctx.tz.row(r.created_at), false);
                if all {
                    line = line.push(format!("  [{}]", r.project), Role::Muted);
                }
                Row::view(line).to(Target::Record(r.kind, r.id))
            })
            .collect();
        let mut out = Page::of_rows(rows);
        out.next = page.next;
        out.total = total;
        out.times = page.rows.iter().map(|r| r.created_at).collect();
        Ok(Reply::Page(out))
    }

    fn is_list(&self) -> bool {
        true
    }

    fn previews(&self) -> bool {
        true
    }

    fn frame_title(&self, title: &str) -> String {
        let mut t = format!(" {title} ");
        if let Some((o, s)) = self.total {
            t.push_str(&format!(
                "· {} {} · {} {} ",
                thousands(o),
                noun(o as usize, "observation", "observations"),
                thousands(s),
                noun(s as usize, "summary", "summaries")
            ));
        }
        t
    }

    fn empty_text(&self, keymap: &Keymap) -> String {
        format!(
            "No memory here yet. Press {} for another project, {} for all projects, or run `cmem demo` to look around.",
            keymap.hint(Action::Projects),
            keymap.hint(Action::Scope)
        )
    }

    fn open(&self, target: &Target) -> Component {
        match target {
            Target::Record(kind, id) => super::timeline::Timeline::new(*kind, *id).into(),
            _ => super::open(target),
        }
    }

    fn agent_view(&self) -> AgentView {
        AgentView::SessionStart
    }

    /// Adds day headings where the day changes, also across pages.
    fn take_page(&mut self, rows: &mut Vec<Row>, page: Page, tz: &Tz) {
        for (row, at) in page.rows.into_iter().zip(page.times) {
            if let Some(day) = self.days.heading(tz, at) {
                if day.follows {
                    rows.push(Row::view(view::Line::blank()));
                }
                rows.push(Row::view(day.line));
            }
            rows.push(row);
        }
        self.next = page.next;
        if page.total.is_some() {
            self.total = page.total;
        }
    }

    fn total(&self) -> Option<(i64, i64)> {
        self.total
    }

    fn has_more(&self) -> bool {
        self.next.is_some()
    }

    fn forgot(&mut self, rows: &mut Vec<Row>, kind: Kind) {
        if let Some((obs, sums)) = &mut self.total {
            match kind {
                Kind::Observation => *obs -= 1,
                Kind::Summary => *sums -= 1,
                Kind::Prompt => {}
            }
        }
        drop_empty_days(rows);
    }
}

/// Removes a day heading (and the blank line after its rows) once its last row is gone.
fn drop_empty_days(rows: &mut Vec<Row>) {
    let mut keep = vec![true; rows.len()];
    let mut group: Vec<usize> = Vec::new();
    let mut has_rows = true;
    for (i, row) in rows.iter().enumerate() {
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
    rows.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}
