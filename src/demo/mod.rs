//! The demo memory behind `cmem demo`: scripted sessions on three projects, fed in order
//! through the real hook code (capture, privacy filter, the rule-based observer at Stop) at the
//! times the scripts give. Everything the demo shows is what cmem writes for that work, and the
//! data set is byte-identical for a given end time.

mod acme_api;
mod cmem_project;
mod orbit_web;
pub mod script;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::config::Settings;
use crate::hook::{self, HookEvent};
use crate::store::Store;

/// Bumped when the data set changes, so an old demo dir is rebuilt.
pub(crate) const VERSION: &str = "3";
/// The project the demo opens on.
pub const PROJECT: &str = "acme-api";

/// The scripted projects, each a story over several days.
pub fn projects() -> Vec<script::Project> {
    vec![
        acme_api::project(),
        orbit_web::project(),
        cmem_project::project(),
    ]
}

/// `$XDG_CACHE_HOME/cmem/demo` (default `~/.cache/cmem/demo`): kept apart from your real memory.
pub(crate) fn dir() -> PathBuf {
    let cache = std::env::var("XDG_CACHE_HOME")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::paths::home_dir().join(".cache"));
    cache.join("cmem").join("demo")
}

/// Creates the demo database in `dir` unless a current one is there; returns its path.
pub fn ensure(dir: &Path, end_ms: i64, reset: bool) -> Result<PathBuf> {
    let db = crate::paths::db_path(dir);
    let marker = dir.join("demo-version");
    let current = std::fs::read_to_string(&marker).is_ok_and(|v| v.trim() == VERSION);
    if current && db.exists() && !reset {
        return Ok(db);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for suffix in ["", "-wal", "-shm"] {
        let mut p = db.clone().into_os_string();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    build(&db, end_ms)?;
    std::fs::write(&marker, VERSION)?;
    Ok(db)
}

/// Writes the demo data set into a new database at `db`, ending at `end_ms`: every scripted
/// hook call of every project, in time order, through `cmem hook`'s own handler.
pub(crate) fn build(db: &Path, end_ms: i64) -> Result<()> {
    let dir = db
        .parent()
        .context("the demo database path has no directory")?;
    // Defaults, not the user's config: the demo must not depend on the machine it is built on.
    let mut settings = Settings {
        data_dir: Some(dir.to_string_lossy().into_owned()),
        ..Settings::default()
    };
    // Built in one go: no embedding process per replayed turn (`cmem demo` embeds after).
    settings.search.background_embedding = false;
    let mut events = Vec::new();
    for project in projects() {
        events.extend(project.payloads(end_ms)?);
    }
    // Sessions of different projects interleave by time; one project's never overlap.
    events.sort_by_key(|e| e.at_ms);
    for e in &events {
        let Some(event) = HookEvent::parse(e.hook) else {
            bail!("the demo script names an unknown hook {:?}", e.hook);
        };
        let call = hook::Call {
            now_ms: e.at_ms,
            deadline: Instant::now() + Duration::from_secs(60),
            observe_budget: Duration::from_secs(60),
            parse_budget: crate::code::parse::DEFAULT_BUDGET,
        };
        let bytes = serde_json::to_vec(&e.payload)?;
        hook::handle(event, &bytes, &settings, &call)
            .with_context(|| format!("demo: hook {} at {}", e.hook, e.at_ms))?;
    }
    let store = Store::open(db)?;
    store.checkpoint()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_is_the_observers_work_on_the_scripted_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let db = ensure(dir.path(), 1_796_054_400_000, false).unwrap();
        let store = Store::open(&db).unwrap();
        let conn = &store.conn;
        let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        let turns: usize = projects()
            .iter()
            .flat_map(|p| &p.sessions)
            .map(|s| s.turns.len())
            .sum();
        assert_eq!(count("SELECT COUNT(*) FROM user_prompts") as usize, turns);
        assert_eq!(
            count("SELECT COUNT(*) FROM session_summaries") as usize,
            turns
        );
        assert_eq!(count("SELECT COUNT(DISTINCT project) FROM observations"), 3);
        // One outcome, one row: a turn has at least one, often one.
        assert!(count("SELECT COUNT(*) FROM observations") as usize >= turns);
        assert_eq!(
            count("SELECT COUNT(*) FROM observations WHERE source != 'rules'"),
            0,
            "every observation is the rule-based observer's"
        );
        // Every observation stands for tool uses it was built from, of its own turn. Security
        // notes are the exception: the rules observer writes them without linking the tool uses
        // that held the secret (src/observe/rules/security.rs), so for them the turn's stored
        // I/O must carry the redaction the note reports.
        assert_eq!(
            count(
                "SELECT COUNT(*) FROM observations o WHERE o.type != 'security_note' AND NOT EXISTS
                 (SELECT 1 FROM tool_uses t WHERE t.observation_id = o.id
                  AND t.session_id = o.session_id AND t.prompt_number = o.prompt_number)"
            ),
            0
        );
        assert_eq!(
            count(
                "SELECT COUNT(*) FROM observations o WHERE o.type = 'security_note' AND NOT EXISTS
                 (SELECT 1 FROM tool_uses t WHERE t.session_id = o.session_id
                  AND t.prompt_number = o.prompt_number
                  AND (t.tool_input || IFNULL(t.tool_response, '')) LIKE '%[REDACTED:%')"
            ),
            0
        );
        assert_eq!(
            count(
                "SELECT COUNT(*) FROM (SELECT title FROM observations GROUP BY title HAVING COUNT(*) > 1)"
            ),
            0,
            "a title repeats"
        );
        // The privacy filter ran: secrets in the scripts reached the store redacted.
        assert_eq!(
            count(
                "SELECT COUNT(*) FROM tool_uses WHERE tool_input LIKE '%sk_live_DEMO%' OR tool_response LIKE '%sk_live_DEMO%' OR tool_input LIKE '%eyJhbGciOiJIUzI1NiIs%'"
            ),
            0
        );
        assert!(count("SELECT COUNT(*) FROM observations WHERE type = 'security_note'") >= 2);
        assert!(count("SELECT COUNT(*) FROM work_state_entries") > 0);
        // A second call reuses the data set.
        let before = std::fs::metadata(&db).unwrap().modified().unwrap();
        ensure(dir.path(), 1_796_054_400_000, false).unwrap();
        assert_eq!(std::fs::metadata(&db).unwrap().modified().unwrap(), before);
    }
}
