//! A search over the scope: the hits as index rows (Enter opens their detail); the agent view
//! is what `search(query=…)` answers for the same projects.

use anyhow::Result;
use rusqlite::Connection;

use super::page::{PAGE, Page, Reply};
use super::{Behaviour, Ctx};
use crate::model::{IndexRow, Kind};
use crate::search;
use crate::view::{self, Doc, Role, replies};

#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    pub text: String,
    /// The scope's project keys (empty = every project).
    pub keys: Vec<String>,
}

impl Behaviour for Search {
    fn name(&self) -> &'static str {
        "Search"
    }

    fn title(&self) -> String {
        format!("Search “{}”", self.text)
    }

    fn load(&self, conn: &Connection, ctx: &Ctx) -> Result<Reply> {
        let (text, keys) = (&self.text, &self.keys);
        let hits = search::search(
            conn,
            &search::Query {
                text: Some(text.to_string()),
                projects: keys.to_vec(),
                limit: PAGE,
                meaning: ctx.meaning.clone(),
                ..Default::default()
            },
        )?;
        let rows: Vec<IndexRow> = hits.into_iter().map(|h| h.row).collect();
        let heading = format!("Search: {text} ({} found)", rows.len());
        let mut doc = Doc::default();
        doc.push(
            view::Block::new(view::BlockKind::Header)
                .line(view::Line::new().push(heading, Role::Heading(2))),
        );
        for r in &rows {
            let when = ctx.tz.month_day_time(r.created_at);
            let kind = match r.kind {
                Kind::Observation => view::BlockKind::Observation(r.id),
                Kind::Summary => view::BlockKind::Summary(r.id),
                Kind::Prompt => view::BlockKind::Prompt(r.id),
            };
            let mut line = view::timeline::row_line(r, &when, false);
            if keys.len() != 1 {
                line = line.push(format!("  [{}]", r.project), Role::Muted);
            }
            doc.push(view::Block::new(kind).line(line));
        }
        let mut page = Page::of_doc(&doc);
        // The agent's `search(query=…)` over the same projects: its table, its default limit.
        let mut query = replies::search_query(text, keys);
        query.meaning = ctx.meaning.clone();
        let agent = replies::search(conn, &query, &ctx.tz)?;
        page.agent_text = Some(replies::cap(agent));
        Ok(Reply::Page(page))
    }

    fn is_list(&self) -> bool {
        true
    }

    fn previews(&self) -> bool {
        true
    }
}
