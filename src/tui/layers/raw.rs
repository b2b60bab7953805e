//! A tool use's raw input and output, code blocks highlighted by their language; the agent
//! view shows the bounded copy `get_tool_uses` sends.

use anyhow::Result;
use rusqlite::Connection;

use super::page::{Page, Reply, Row, RowText};
use super::{Behaviour, Ctx};
use crate::store::tool_uses;
use crate::tui::highlight;
use crate::view::{self, Doc, replies};

#[derive(Debug, Clone, PartialEq)]
pub struct Raw {
    pub id: i64,
}

impl Behaviour for Raw {
    fn name(&self) -> &'static str {
        "Raw I/O"
    }

    fn title(&self) -> String {
        format!("Raw {}", view::raw::tool_use_id(self.id))
    }

    fn load(&self, conn: &Connection, ctx: &Ctx) -> Result<Reply> {
        let id = self.id;
        let Some(t) = tool_uses::by_ids(conn, &[id])?.into_iter().next() else {
            return Ok(Reply::Missing(format!(
                "no tool use {}",
                view::raw::tool_use_id(id)
            )));
        };
        let doc = view::raw::tool_use(&t, &ctx.tz, view::raw::Bounds::HUMAN);
        let mut page = Page::of_doc(&doc);
        page.rows = highlight_code(&doc);
        // A human pages through everything; the agent view shows the bounded copy
        // `get_tool_uses(ids=[…])` sends.
        let text = replies::tool_uses(conn, &[id], &[], &[], replies::MAX_RECORDS, None, &ctx.tz)?;
        page.agent_text = Some(replies::cap(text));
        Ok(Reply::Page(page))
    }
}

/// The rows of a raw tool use, with code blocks highlighted by their language hint.
fn highlight_code(doc: &Doc) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut indent = String::new();
    for b in &doc.blocks {
        let lang = b.lang_hint.as_deref().and_then(highlight::language_of);
        if b.kind == view::BlockKind::Code
            && let Some(lang) = lang
        {
            let plain: Vec<String> = b.lines.iter().map(|l| l.plain()).collect();
            if plain.iter().all(|l| l.starts_with(&indent)) {
                let source: Vec<&str> = plain.iter().map(|l| &l[indent.len()..]).collect();
                if let Some(lines) = highlight::highlight(lang, &source.join("\n"))
                    && lines.len() == source.len()
                {
                    for pieces in lines {
                        rows.push(Row {
                            text: RowText::Code {
                                indent: indent.clone(),
                                pieces,
                            },
                            target: None,
                        });
                    }
                    continue;
                }
            }
        }
        for l in &b.lines {
            // A `key: |` label opens a code block indented two more than the key.
            let text = l.plain();
            if text.ends_with(": |") {
                let lead = text.len() - text.trim_start().len();
                indent = " ".repeat(lead + 2);
            }
            rows.push(Row::view(l.clone()));
        }
    }
    rows
}
