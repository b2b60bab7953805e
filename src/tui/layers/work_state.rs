//! The work state: the agent's to-do lists of the scope, open ones first; Enter on a list
//! opens its history. The agent view is the work-state section of its session-start text.

use anyhow::Result;
use rusqlite::Connection;

use super::page::{Page, Reply, Row, Target};
use super::work_history::WorkHistory;
use super::{Behaviour, Ctx};
use crate::model::work_state as ws;
use crate::store::work_state;
use crate::tui::keymap::Action;
use crate::view::{self, Role};

#[derive(Debug, Clone, PartialEq)]
pub struct WorkState {
    /// The scope's name and project keys (empty = every project).
    pub label: String,
    pub keys: Vec<String>,
}

impl Behaviour for WorkState {
    fn name(&self) -> &'static str {
        "Work state"
    }

    fn title(&self) -> String {
        format!("Work state · {}", self.label)
    }

    fn load(&self, conn: &Connection, ctx: &Ctx) -> Result<Reply> {
        let lists = ws::fold(&work_state::entries(conn, &self.keys)?);
        let (open, closed): (Vec<&ws::List>, Vec<&ws::List>) =
            lists.iter().partition(|l| !l.is_closed());
        let mut rows = Vec::new();
        for (title, group) in [("Open lists", open), ("Closed lists", closed)] {
            if group.is_empty() {
                continue;
            }
            if !rows.is_empty() {
                rows.push(Row::view(view::Line::blank()));
            }
            rows.push(Row::view(view::Line::new().push(title, Role::Heading(2))));
            for list in group {
                let history = WorkHistory {
                    project: list.project.clone(),
                    list: list.name.clone(),
                };
                let target = Target::Layer(Box::new(history.into()));
                for l in ws::lines(list, true) {
                    rows.push(Row::view(view::work_state::line(&l, ctx.now_ms)).to(target.clone()));
                }
            }
        }
        if rows.is_empty() {
            rows.push(Row::view(view::Line::text(
                "No work state yet: the agent keeps its to-do lists here with work_state_write.",
            )));
        }
        let (section, _) = view::work_state::section(&lists, ctx.now_ms);
        let mut page = Page::of_rows(rows);
        page.agent_text = Some(section.to_plain());
        Ok(Reply::Page(page))
    }

    fn is_list(&self) -> bool {
        true
    }

    /// Named only: its title repeats the scope already in the trail.
    fn crumb(&self, _title: &str) -> String {
        self.name().to_string()
    }

    fn leaving_action(&self) -> Option<Action> {
        Some(Action::WorkState)
    }
}
