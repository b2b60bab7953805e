//! One work-state list's history: every entry written to it, oldest first. The agent has no
//! history: its view is the list as `work_state_read` gives it, closed items included.

use anyhow::Result;
use rusqlite::Connection;

use super::page::{Page, Reply, Row};
use super::{Behaviour, Ctx};
use crate::store::work_state;
use crate::view::{self, Role, replies};

#[derive(Debug, Clone, PartialEq)]
pub struct WorkHistory {
    pub project: String,
    pub list: String,
}

impl Behaviour for WorkHistory {
    fn name(&self) -> &'static str {
        "History"
    }

    fn title(&self) -> String {
        format!("History {}", self.list)
    }

    fn load(&self, conn: &Connection, ctx: &Ctx) -> Result<Reply> {
        let (project, list) = (&self.project, &self.list);
        let entries = work_state::entries(conn, std::slice::from_ref(project))?;
        let mine: Vec<&crate::model::work_state::Entry> =
            entries.iter().filter(|e| &e.list_name == list).collect();
        let mut rows = vec![
            Row::view(view::Line::new().push(format!("{list} · history"), Role::Heading(2))),
            Row::view(view::Line::new().push(
                format!("{} entries in {project}, oldest first", mine.len()),
                Role::Muted,
            )),
            Row::view(view::Line::blank()),
        ];
        rows.extend(
            view::work_state::history(&mine, &ctx.tz)
                .into_iter()
                .map(Row::view),
        );
        let agent_text = replies::work_state(
            Some(conn),
            std::slice::from_ref(project),
            Some(list),
            true,
            ctx.now_ms,
        )?;
        let mut page = Page::of_rows(rows);
        page.agent_text = Some(replies::cap(agent_text));
        Ok(Reply::Page(page))
    }
}
