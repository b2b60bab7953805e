//! A file's history: the observations of its project that read or modified it, newest first
//! under day headings; Enter opens one, `e` opens the file. The agent view is what the read
//! gate adds to an agent's Read of the file (when the file has not changed since).

use std::path::PathBuf;

use anyhow::Result;
use rusqlite::Connection;

use super::page::{PAGE, Page, Reply, Row, Target};
use super::{Behaviour, Ctx};
use crate::store::{observations, timeline};
use crate::text::noun;
use crate::view::file_history::{self, FileHistory};
use crate::view::time::Days;
use crate::view::{self, Role};

#[derive(Debug, Clone, PartialEq)]
pub struct File {
    /// The path as the observation stored it (often relative to the project).
    pub path: String,
    /// Where it is on disk, when the session's directory is known.
    pub absolute: Option<PathBuf>,
    pub project: String,
}

impl File {
    /// The spellings observations may have stored the path in.
    fn spellings(&self) -> Vec<String> {
        let mut out = vec![self.path.clone()];
        if !self.path.starts_with('/') && !self.path.starts_with("./") {
            out.push(format!("./{}", self.path));
        }
        if let Some(a) = &self.absolute {
            out.push(a.to_string_lossy().into_owned());
        }
        out
    }
}

impl Behaviour for File {
    fn name(&self) -> &'static str {
        "File"
    }

    fn title(&self) -> String {
        format!("File {}", self.path)
    }

    fn load(&self, conn: &Connection, ctx: &Ctx) -> Result<Reply> {
        let spellings = self.spellings();
        let project = std::slice::from_ref(&self.project);
        let found = observations::mentioning_file(conn, project, &spellings, PAGE)?;
        let n = found.len();
        let mut rows = vec![
            Row::view(view::Line::new().push(self.path.clone(), Role::Heading(2))),
            Row::view(view::Line::new().push(
                format!(
                    "{n} {} in {} read or modified it, newest first",
                    noun(n, "observation", "observations"),
                    self.project
                ),
                Role::Muted,
            )),
        ];
        let mut days = Days::default();
        for o in &found {
            if let Some(day) = days.heading(&ctx.tz, o.created_at) {
                rows.push(Row::view(view::Line::blank()));
                rows.push(Row::view(day.line));
            }
            let r = timeline::observation_row(o);
            let line = view::timeline::row_line(&r, &ctx.tz.row(r.created_at), false);
            rows.push(Row::view(line).to(Target::Record(r.kind, r.id)));
        }
        let mut page = Page::of_rows(rows);
        let on_disk = self.absolute.clone();
        page.files = vec![on_disk.unwrap_or_else(|| PathBuf::from(&self.path))];
        // What the read gate chooses from the newest candidates and writes.
        let candidates = found.into_iter().take(file_history::CANDIDATES).collect();
        let shown = file_history::shown(candidates, &spellings);
        let read_as = match &self.absolute {
            Some(a) => a.to_string_lossy().into_owned(),
            None => self.path.clone(),
        };
        let history = FileHistory {
            file_path: &read_as,
            display: &self.path,
            observations: &shown,
            now_ms: ctx.now_ms,
            tz: &ctx.tz,
        };
        page.agent_text = (!shown.is_empty()).then(|| file_history::context(&history).to_plain());
        Ok(Reply::Page(page))
    }

    fn is_list(&self) -> bool {
        true
    }

    fn previews(&self) -> bool {
        true
    }
}
