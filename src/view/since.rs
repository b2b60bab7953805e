//! Looks, when observations are shown, at what happened since they were made: whether the
//! files they saw still hold what they saw (`file_state`), and whether a later decision
//! replaced a decision. Only the rows about to be shown are looked at; every view that shows
//! an observation (the session-start index, search rows, details) asks here.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use rusqlite::Connection;

use crate::file_state::{Disk, Now};
use crate::model::since::{FileNow, Since};
use crate::model::{IndexRow, Kind, ObsType, Observation};
use crate::store::{file_states, observations};

/// What happened since, per observation id (rows with nothing to say are absent).
#[derive(Debug, Clone, Default)]
pub struct Marks(HashMap<i64, Since>);

impl Marks {
    /// No marks: for views of rows nobody looked at.
    pub fn none() -> Marks {
        Marks::default()
    }

    pub(crate) fn of(&self, id: i64) -> Option<&Since> {
        self.0.get(&id)
    }

    /// Whether any of `ids` has a file that changed (the index's legend then names the glyph).
    pub(crate) fn any_changed(&self, ids: impl IntoIterator<Item = i64>) -> bool {
        ids.into_iter()
            .any(|id| self.of(id).is_some_and(|s| !s.files.is_empty()))
    }
}

/// Looks at `obs`: their recorded files against the disk (a file's root missing on this
/// machine: not looked at), and later decisions for the decisions among them.
pub(crate) fn look(conn: &Connection, obs: &[Observation]) -> Result<Marks> {
    let ids: Vec<i64> = obs.iter().map(|o| o.id).collect();
    let mut disk = Disk::default();
    let mut changed: HashMap<i64, Vec<FileNow>> = HashMap::new();
    for f in file_states::of_observations(conn, &ids)? {
        let root = Path::new(&f.root);
        if !disk.is_dir(root) {
            continue;
        }
        let path = root.join(&f.path); // an absolute `path` stays itself
        let deleted = match disk.compare(&f.seen, &path) {
            Some(Now::Changed) => false,
            Some(Now::Deleted) => true,
            Some(Now::Same) | None => continue,
        };
        changed.entry(f.observation_id).or_default().push(FileNow {
            path: f.path,
            deleted,
        });
    }
    let later = later_decisions(conn, obs)?;
    let mut marks = Marks::default();
    for o in obs {
        let mut files = changed.remove(&o.id).unwrap_or_default();
        // In the order the observation names them (modified first, as details list them).
        let order = |p: &str| {
            o.files_modified
                .iter()
                .chain(&o.files_read)
                .position(|f| f == p)
        };
        files.sort_by_key(|f| order(&f.path));
        let superseded_by = if is_decision(o) {
            let mut about: Vec<String> = o.files_modified.clone();
            about.extend(o.files_read.iter().cloned());
            let symbols = file_states::code_symbols(o.title.as_deref().unwrap_or_default());
            let later = later
                .get(&o.project.to_lowercase())
                .map_or(&[][..], Vec::as_slice);
            file_states::superseding(later, o.created_at, o.id, &about, &symbols)
        } else {
            None
        };
        let since = Since {
            files,
            superseded_by,
        };
        if !since.is_empty() {
            marks.0.insert(o.id, since);
        }
    }
    Ok(marks)
}

fn is_decision(o: &Observation) -> bool {
    // The stored type as `ObsType::parse` reads it, without its allocations (a hook runs this).
    o.obs_type
        .trim()
        .eq_ignore_ascii_case(ObsType::Decision.id())
}

/// For each project (lowercased) with a decision among `obs`, its decisions from the oldest
/// of those on: one query a project, not one a decision.
fn later_decisions(
    conn: &Connection,
    obs: &[Observation],
) -> Result<HashMap<String, Vec<file_states::Decision>>> {
    let mut oldest: HashMap<String, (&str, i64)> = HashMap::new();
    for o in obs.iter().filter(|o| is_decision(o)) {
        let e = oldest
            .entry(o.project.to_lowercase())
            .or_insert((&o.project, o.created_at));
        e.1 = e.1.min(o.created_at);
    }
    oldest
        .into_iter()
        .map(|(key, (project, since))| {
            Ok((key, file_states::decisions_since(conn, project, since)?))
        })
        .collect()
}

/// `look`, for a view that must show its rows even when looking fails (the session start):
/// the reason goes to the log and the rows go unmarked.
pub(crate) fn look_or_none(conn: &Connection, obs: &[Observation]) -> Marks {
    look(conn, obs).unwrap_or_else(|e| {
        crate::logging::warn(format!("cannot tell what changed since: {e:#}"));
        Marks::none()
    })
}

/// Sets `since` on the observation rows of a search or timeline.
pub(crate) fn fill_rows(conn: &Connection, rows: &mut [IndexRow]) -> Result<()> {
    let ids: Vec<i64> = rows
        .iter()
        .filter(|r| r.kind == Kind::Observation)
        .map(|r| r.id)
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    let marks = look(conn, &observations::by_ids(conn, &ids)?)?;
    for r in rows.iter_mut().filter(|r| r.kind == Kind::Observation) {
        r.since = marks.of(r.id).cloned();
    }
    Ok(())
}
