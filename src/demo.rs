//! The demo memory behind `cmem demo`: the synthetic generator's three projects and 34
//! sessions (summaries, prompts, tool uses, work state), with the Read and Edit tool uses of
//! curated files from `assets/demo/` carrying real code, so the raw layer has something worth
//! highlighting. Deterministic for a given end time.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rusqlite::params;
use serde_json::{Value, json};

use crate::store::Store;
use crate::synth::{self, Plan};

/// Bumped when the data set changes, so an old demo dir is rebuilt.
pub const VERSION: &str = "2";
pub const OBSERVATIONS: usize = 270;
pub const SEED: u64 = 7;
/// The project the demo opens on.
pub const PROJECT: &str = "acme-api";

/// (project, path, contents) of the curated files.
const FILES: &[(&str, &str, &str)] = &[
    (
        "acme-api",
        "src/auth/token.rs",
        include_str!("../assets/demo/acme-api/src/auth/token.rs"),
    ),
    (
        "acme-api",
        "src/db/pool.rs",
        include_str!("../assets/demo/acme-api/src/db/pool.rs"),
    ),
    (
        "orbit-web",
        "src/hooks/useCart.ts",
        include_str!("../assets/demo/orbit-web/src/hooks/useCart.ts"),
    ),
    (
        "orbit-web",
        "src/api/client.ts",
        include_str!("../assets/demo/orbit-web/src/api/client.ts"),
    ),
    (
        "cmem",
        "src/view/budget.rs",
        include_str!("../assets/demo/cmem/src/view/budget.rs"),
    ),
];

/// `$XDG_CACHE_HOME/cmem/demo` (default `~/.cache/cmem/demo`): kept apart from your real memory.
pub fn dir() -> PathBuf {
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

/// Writes the demo data set into a new database at `db`, ending at `end_ms`.
pub fn build(db: &Path, end_ms: i64) -> Result<()> {
    let mut store = Store::open(db)?;
    synth::generate(
        &mut store.conn,
        &Plan {
            observations: OBSERVATIONS,
            seed: SEED,
            end_ms,
            days: 30,
            projects: Vec::new(),
            wide: false,
        },
    )?;
    curate(&store)?;
    store.checkpoint()?;
    Ok(())
}

/// Gives the Read and Edit calls on curated files their real contents and edits.
fn curate(store: &Store) -> Result<()> {
    let mut stmt = store.conn.prepare(
        "SELECT id, project, tool_name, tool_input FROM tool_uses WHERE tool_name IN ('Read', 'Edit') ORDER BY id",
    )?;
    let rows: Vec<(i64, String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (n, (id, project, tool, input)) in rows.into_iter().enumerate() {
        let input: Value = serde_json::from_str(&input).unwrap_or(Value::Null);
        let Some(path) = input.get("file_path").and_then(Value::as_str) else {
            continue;
        };
        let Some((_, _, content)) = FILES.iter().find(|(p, f, _)| *p == project && *f == path)
        else {
            continue;
        };
        let (input, response) = if tool == "Read" {
            let lines = content.lines().count();
            (
                json!({"file_path": path}),
                json!({"type": "text", "file": {"filePath": path, "content": content, "numLines": lines, "startLine": 1, "totalLines": lines}}),
            )
        } else {
            edit_of(path, content, n)
        };
        let (i, r) = (input.to_string(), response.to_string());
        store.conn.execute(
            "UPDATE tool_uses SET tool_input = ?2, tool_response = ?3, input_bytes = ?4, response_bytes = ?5 WHERE id = ?1",
            params![id, i, r, i.len() as i64, r.len() as i64],
        )?;
    }
    Ok(())
}

/// A small, plausible edit of `content`: a comment added above a line in the middle.
fn edit_of(path: &str, content: &str, salt: usize) -> (Value, Value) {
    let lines: Vec<&str> = content.lines().collect();
    let at = (lines.len() / 3 + salt % (lines.len() / 2).max(1)).min(lines.len().saturating_sub(4));
    let old: Vec<&str> = lines[at..(at + 3).min(lines.len())].to_vec();
    let indent: String = old[0].chars().take_while(|c| c.is_whitespace()).collect();
    // Every curated language (Rust, TypeScript) comments with `//`.
    let comment = "//";
    let note =
        format!("{indent}{comment} Checked: this is where the bug was (see the failing test).");
    let mut new = vec![note.as_str()];
    new.extend(old.iter().copied());
    let mut patch: Vec<String> = vec![format!("+{note}")];
    patch.extend(old.iter().map(|l| format!(" {l}")));
    (
        json!({"file_path": path, "old_string": old.join("\n"), "new_string": new.join("\n")}),
        json!({
            "filePath": path,
            "oldString": old.join("\n"),
            "newString": new.join("\n"),
            "originalFile": content,
            "structuredPatch": [{"oldStart": at + 1, "oldLines": old.len(), "newStart": at + 1, "newLines": old.len() + 1, "lines": patch}],
            "userModified": false,
            "replaceAll": false
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_has_what_the_readme_promises() {
        let dir = tempfile::tempdir().unwrap();
        let db = ensure(dir.path(), 1_796_000_000_000, false).unwrap();
        let store = Store::open(&db).unwrap();
        let counts: std::collections::HashMap<_, _> =
            store.table_counts().unwrap().into_iter().collect();
        assert!(counts["observations"] >= 250, "{counts:?}");
        assert!(counts["sessions"] >= 30, "{counts:?}");
        assert!(
            counts["session_summaries"] > 0
                && counts["user_prompts"] > 0
                && counts["work_state_entries"] > 0
        );
        let projects: i64 = store
            .conn
            .query_row(
                "SELECT COUNT(DISTINCT project) FROM observations",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(projects, 3);
        let curated: i64 = store
            .conn
            .query_row("SELECT COUNT(*) FROM tool_uses WHERE tool_response LIKE '%verify_signature(token%'", [], |r| r.get(0))
            .unwrap();
        assert!(curated > 0, "no tool use carries the curated token.rs");
        // A second call reuses the data set.
        let before = std::fs::metadata(&db).unwrap().modified().unwrap();
        ensure(dir.path(), 1_796_000_000_000, false).unwrap();
        assert_eq!(std::fs::metadata(&db).unwrap().modified().unwrap(), before);
    }
}
