//! A record's detail: an observation with its facts, files and tool uses (Enter on a file
//! opens its history, on a tool use its raw I/O), a summary, or a prompt. The preview pane
//! shows the same page.

use anyhow::Result;
use rusqlite::Connection;

use super::file::File;
use super::page::{Page, Reply, Target};
use super::{Behaviour, Ctx};
use crate::model::Kind;
use crate::store::{observations, prompts, summaries, tool_uses};
use crate::view::{self, replies};

#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    pub kind: Kind,
    pub id: i64,
}

impl Detail {
    pub(crate) fn new(kind: Kind, id: i64) -> Detail {
        Detail { kind, id }
    }
}

impl Behaviour for Detail {
    fn name(&self) -> &'static str {
        "Detail"
    }

    fn title(&self) -> String {
        format!("Detail {}", self.kind.display_id(self.id))
    }

    fn load(&self, conn: &Connection, ctx: &Ctx) -> Result<Reply> {
        let (kind, id) = (self.kind, self.id);
        Ok(match page(conn, ctx, kind, id)? {
            Some(mut page) => {
                // What `get_observations(ids=[…])` sends: the record cut to its byte limit.
                let text = replies::records(
                    conn,
                    &[(kind, id)],
                    replies::MAX_RECORDS,
                    None,
                    replies::RecordOrder::AsGiven,
                    &ctx.tz,
                )?;
                page.agent_text = Some(replies::cap(text));
                Reply::Page(page)
            }
            None => missing(kind, id),
        })
    }

    fn about(&self) -> Option<(Kind, i64)> {
        Some((self.kind, self.id))
    }
}

pub(crate) fn missing(kind: Kind, id: i64) -> Reply {
    Reply::Missing(format!("no {} {}", kind.label(), kind.display_id(id)))
}

/// The page of a record's detail (without the agent's copy), `None` when it is gone.
pub(crate) fn page(conn: &Connection, ctx: &Ctx, kind: Kind, id: i64) -> Result<Option<Page>> {
    Ok(match kind {
        Kind::Observation => match observations::by_ids(conn, &[id])?.first() {
            Some(o) => {
                let uses = tool_uses::by_observation(conn, id)?;
                let mut doc = view::detail::observation(o, &uses, &ctx.tz);
                let marks = view::since::look(conn, std::slice::from_ref(o))?;
                view::detail::since(&mut doc, marks.of(id));
                view::detail::shared_by(
                    &mut doc,
                    crate::store::sync_origin::written_by(conn, "observations", id)?,
                );
                let mut page = Page::of_doc(&doc);
                // Only the tool-use lines lead somewhere (to the raw layer).
                for r in page.rows.iter_mut() {
                    if !matches!(r.target, Some(Target::ToolUse(_))) {
                        r.target = None;
                    }
                }
                page.focus = page
                    .rows
                    .iter()
                    .position(|r| matches!(r.target, Some(Target::ToolUse(_))));
                let cwd = uses.iter().find_map(|t| t.cwd.clone());
                let on_disk = |f: &String| match &cwd {
                    Some(dir) if !f.starts_with('/') => std::path::Path::new(dir).join(f),
                    _ => std::path::PathBuf::from(f),
                };
                // Each `- path` line under "Files read" or "Files modified" opens the file's
                // history.
                let mut pending: Vec<&String> = Vec::new();
                for r in page.rows.iter_mut() {
                    match r.display().as_str() {
                        "Files read" => pending = o.files_read.iter().rev().collect(),
                        "Files modified" => pending = o.files_modified.iter().rev().collect(),
                        t if t.starts_with("- ") => {
                            if let Some(f) = pending.pop() {
                                let file = File {
                                    path: f.clone(),
                                    absolute: Some(on_disk(f)).filter(|p| p.is_absolute()),
                                    project: o.project.clone(),
                                };
                                r.target = Some(Target::Layer(Box::new(file.into())));
                            }
                        }
                        _ => pending.clear(),
                    }
                }
                page.files = o
                    .files_modified
                    .iter()
                    .chain(&o.files_read)
                    .map(on_disk)
                    .collect();
                Some(page)
            }
            None => None,
        },
        Kind::Summary => summaries::by_ids(conn, &[id])?
            .first()
            .map(|s| Page::of_doc(&view::detail::summary(s, &ctx.tz)).untargeted()),
        Kind::Prompt => prompts::by_ids(conn, &[id])?
            .first()
            .map(|p| Page::of_doc(&view::detail::prompt(p, &ctx.tz)).untargeted()),
    })
}
