//! A record's timeline: the records around it in its project, oldest first, the cursor on it.

use anyhow::Result;
use rusqlite::Connection;

use super::page::{Page, Reply, Target};
use super::{Behaviour, Ctx};
use crate::model::Kind;
use crate::store::timeline;
use crate::view::{self, replies};

/// How many records each side of the anchor a human scrolls through.
const DEPTH: usize = 30;

#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub kind: Kind,
    pub id: i64,
}

impl Timeline {
    pub(crate) fn new(kind: Kind, id: i64) -> Timeline {
        Timeline { kind, id }
    }
}

impl Behaviour for Timeline {
    fn name(&self) -> &'static str {
        "Timeline"
    }

    fn title(&self) -> String {
        format!("Timeline {}", self.kind.display_id(self.id))
    }

    fn load(&self, conn: &Connection, ctx: &Ctx) -> Result<Reply> {
        let (kind, id) = (self.kind, self.id);
        let Some(rows) = timeline::around(conn, kind, id, DEPTH, DEPTH)? else {
            return Ok(Reply::Missing(format!(
                "no {} {}",
                kind.label(),
                kind.display_id(id)
            )));
        };
        let heading = format!("Timeline around {}", kind.display_id(id));
        let doc = view::timeline::render(&heading, &rows, Some((kind, id)), &ctx.tz);
        let mut page = Page::of_doc(&doc);
        page.focus = page
            .rows
            .iter()
            .position(|r| r.target == Some(Target::Record(kind, id)));
        // The agent's `timeline(anchor=…)` gets the tool's default depth.
        let depth = replies::TIMELINE_DEPTH;
        page.agent_text =
            replies::timeline(conn, (kind, id), depth, depth, &ctx.tz)?.map(replies::cap);
        Ok(Reply::Page(page))
    }

    fn is_list(&self) -> bool {
        true
    }

    fn previews(&self) -> bool {
        true
    }

    fn about(&self) -> Option<(Kind, i64)> {
        Some((self.kind, self.id))
    }
}
