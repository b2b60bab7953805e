//! What the files an observation names held when its turn was observed, recorded beside it
//! (`store::file_states`), so a later view can say "changed since this was observed".
//!
//! A turn observed right after it ended (the hooks, the external observer) saw what the disk
//! holds now. A turn observed long after (an imported transcript) did not: the disk may have
//! moved on since. There, a file is recorded only when the disk still holds exactly what the
//! turn's last edit of it left (the edit's after-text, from the tool use itself); anything
//! else records nothing, since a wrong record would mark a row that is right, or hide one
//! that is wrong.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use rusqlite::Connection;

use super::event::{Event, Kind, Place};
use crate::file_state::{self, Seen};
use crate::model::ObservationBody;
use crate::store::file_states;
use crate::store::turns::TurnRow;

/// A turn observed within this long after it ended is observed live: the disk is what it left.
const LIVE_MS: i64 = 10 * 60 * 1000;

/// At most this many files are looked at per turn, so a turn that grepped a thousand files
/// keeps the Stop hook cheap (each file is read and hashed, up to `file_state::HASH_CAP`).
const MAX_FILES: usize = 64;

/// The files of one turn, looked at once each.
pub(crate) struct Sight<'a> {
    place: &'a Place,
    live: bool,
    /// Each edited path's text after the turn's last edit of it (`None`: not known).
    after: HashMap<&'a str, Option<&'a str>>,
    seen: HashMap<PathBuf, Option<Seen>>,
}

impl<'a> Sight<'a> {
    pub(crate) fn new(place: &'a Place, events: &'a [Event], turn: &TurnRow, now_ms: i64) -> Self {
        let ended = turn.ended_at.unwrap_or(turn.created_at);
        let mut after = HashMap::new();
        for e in events {
            if let Kind::Edit(edit) = &e.kind {
                after.insert(edit.path.as_str(), edit.after.as_deref());
            }
        }
        Sight {
            place,
            live: now_ms.saturating_sub(ended) <= LIVE_MS,
            after,
            seen: HashMap::new(),
        }
    }

    /// Records what observation `id` (made of `body`) saw of each file it names.
    pub(crate) fn record(
        &mut self,
        conn: &Connection,
        id: i64,
        body: &ObservationBody,
    ) -> Result<()> {
        let mut done: Vec<&str> = Vec::new();
        for path in body.files_modified.iter().chain(&body.files_read) {
            if done.contains(&path.as_str()) {
                continue;
            }
            done.push(path);
            let Some((root, abs)) = self.locate(path) else {
                continue;
            };
            if let Some(seen) = self.look(path, &abs) {
                file_states::record(conn, id, path, &root.to_string_lossy(), &seen)?;
            }
        }
        Ok(())
    }

    /// The directory `path` is resolved against and the file itself: the project root, else
    /// the cwd (whichever holds it, for a relative path).
    fn locate(&self, path: &str) -> Option<(PathBuf, PathBuf)> {
        let bases: Vec<&PathBuf> = [&self.place.root, &self.place.cwd]
            .into_iter()
            .filter(|b| !b.as_os_str().is_empty())
            .collect();
        let p = Path::new(path);
        if p.is_absolute() {
            let root = bases
                .first()
                .map_or_else(|| PathBuf::from("/"), |b| b.to_path_buf());
            return Some((root, p.to_path_buf()));
        }
        bases
            .into_iter()
            .map(|b| (b.clone(), b.join(p)))
            .find(|(_, abs)| abs.exists())
    }

    /// What to record of the file at `abs` (named `path`), if anything.
    fn look(&mut self, path: &str, abs: &Path) -> Option<Seen> {
        if !self.seen.contains_key(abs) && self.seen.len() >= MAX_FILES {
            return None;
        }
        let disk = self
            .seen
            .entry(abs.to_path_buf())
            .or_insert_with(|| file_state::read(abs))
            .clone()?;
        if self.live {
            return Some(disk);
        }
        let after = (*self.after.get(path)?)?;
        let held = disk.hash.as_deref()? == file_state::blob_id(after.as_bytes());
        held.then_some(disk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::event::FileEdit;

    fn turn(ended_at: i64) -> TurnRow {
        TurnRow {
            id: 1,
            session_id: 1,
            content_session_id: "s".into(),
            project: "p".into(),
            cwd: None,
            prompt_number: 1,
            prompt_text: "x".into(),
            created_at: ended_at,
            ended_at: Some(ended_at),
            last_assistant_message: None,
            session_request: None,
        }
    }

    fn edit(path: &str, after: Option<&str>) -> Event {
        Event {
            idx: 0,
            at: 0,
            failed: false,
            kind: Kind::Edit(FileEdit {
                path: path.into(),
                after: after.map(String::from),
                ..FileEdit::default()
            }),
        }
    }

    #[test]
    fn live_turns_see_the_disk_and_old_ones_only_what_their_edits_prove() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "after\n").unwrap();
        std::fs::write(root.join("src/b.rs"), "now\n").unwrap();
        let place = Place {
            root: root.clone(),
            cwd: root.join("src"),
        };
        let events = vec![
            edit("src/a.rs", Some("after\n")),
            edit("src/b.rs", Some("then\n")),
        ];
        let body = ObservationBody {
            files_modified: vec!["src/a.rs".into(), "src/b.rs".into()],
            files_read: vec!["src/a.rs".into(), "src/missing.rs".into(), "/etc".into()],
            ..Default::default()
        };
        let store = crate::store::Store::open(&root.join("t.db")).unwrap();
        let c = &store.conn;
        for (id, at) in [(1, 0), (2, -LIVE_MS * 10)] {
            c.execute(
                "INSERT INTO observations (id, project, type, created_at_epoch) VALUES (?1, 'p', 'change', 0)",
                [id],
            )
            .unwrap();
            let t = turn(at);
            Sight::new(&place, &events, &t, 0)
                .record(c, id, &body)
                .unwrap();
        }
        let paths = |id: i64| -> Vec<String> {
            let mut p: Vec<String> = file_states::of_observations(c, &[id])
                .unwrap()
                .into_iter()
                .map(|f| {
                    assert_eq!(f.root, root.to_string_lossy());
                    f.path
                })
                .collect();
            p.sort();
            p
        };
        assert_eq!(paths(1), vec!["src/a.rs", "src/b.rs"]);
        // Imported long after: b.rs no longer holds what its edit left, so nothing is said of it.
        assert_eq!(paths(2), vec!["src/a.rs"]);
    }
}
