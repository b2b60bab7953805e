//! Importing a claude-mem database (its SQLite schema): sessions, prompts, observations,
//! summaries, tool uses and work state, mapped to cmem's schema.
//!
//! The source is opened read-only and read column by column, so older schema versions (renamed
//! or missing columns, missing tables) import what they have. Every imported row carries an
//! `origin` naming its source row; a unique index on it makes a second run import only what
//! the source gained since. Imported turns count as observed: the observers leave them alone.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, params};

use super::Store;

pub(crate) use super::transfer::Report;

/// The default location of claude-mem's database.
pub(crate) fn default_path() -> std::path::PathBuf {
    let dir = std::env::var("CLAUDE_MEM_DATA_DIR")
        .ok()
        .filter(|d| !d.trim().is_empty())
        .map(|d| crate::paths::expand_tilde(&d))
        .unwrap_or_else(|| crate::paths::home_dir().join(".claude-mem"));
    dir.join("claude-mem.db")
}

/// Opens the source read-only; a WAL database in a read-only place is opened immutable.
pub(crate) fn open_source(path: &Path) -> Result<Connection> {
    if !path.is_file() {
        bail!(
            "no claude-mem database at {} (give its path: `cmem import claude-mem PATH`)",
            path.display()
        );
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let uri = |extra: &str| format!("file:{}?mode=ro{extra}", uri_path(path));
    let probe = |c: &Connection| {
        c.query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| {
            r.get::<_, i64>(0)
        })
    };
    let conn = match Connection::open_with_flags(uri(""), flags) {
        Ok(c) if probe(&c).is_ok() => c,
        _ => {
            let c = Connection::open_with_flags(uri("&immutable=1"), flags)
                .with_context(|| format!("cannot open {} read-only", path.display()))?;
            probe(&c)
                .with_context(|| format!("{} is not a readable SQLite database", path.display()))?;
            c
        }
    };
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(conn)
}

fn uri_path(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    abs.to_string_lossy()
        .replace('%', "%25")
        .replace('?', "%3f")
        .replace('#', "%23")
}

/// The columns of a source table, or `None` when the table does not exist.
fn columns(src: &Connection, table: &str) -> Result<Option<Vec<String>>> {
    let mut stmt = src.prepare(&format!("PRAGMA table_info(\"{table}\")"))?;
    let cols: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(1))?
        .collect::<rusqlite::Result<_>>()?;
    Ok((!cols.is_empty()).then_some(cols))
}

/// A SELECT of the first existing column of each alias list (NULL when none exists).
fn select(table: &str, cols: &[String], wanted: &[&[&str]]) -> String {
    let exprs: Vec<String> = wanted
        .iter()
        .map(|aliases| {
            aliases
                .iter()
                .find(|a| cols.iter().any(|c| c == *a))
                .map(|a| format!("\"{a}\""))
                .unwrap_or_else(|| "NULL".into())
        })
        .collect();
    let order = if cols.iter().any(|c| c == "id") {
        " ORDER BY id"
    } else {
        ""
    };
    format!("SELECT {} FROM \"{table}\"{order}", exprs.join(", "))
}

/// Where each source table's columns are: for each column cmem reads, the names it has had in
/// claude-mem's schemas over time, newest first (the first that exists is read; none reads as
/// NULL). Rows are then read by the first name (`SourceRow::get`).
const SOURCE_COLUMNS: &[(&str, &[&[&str]])] = &[
    (
        "sdk_sessions",
        &[
            &["id"],
            &["content_session_id", "claude_session_id"],
            &["memory_session_id", "sdk_session_id"],
            &["project"],
            &["platform_source"],
            &["user_prompt"],
            &["started_at_epoch"],
            &["started_at"],
            &["completed_at_epoch"],
            &["completed_at"],
            &["status"],
            &["prompt_counter"],
        ],
    ),
    (
        "user_prompts",
        &[
            &["id"],
            &["session_db_id", "sdk_session_db_id"],
            &["content_session_id", "claude_session_id"],
            &["prompt_number"],
            &["prompt_text"],
            &["created_at_epoch"],
            &["created_at"],
        ],
    ),
    (
        "observations",
        &[
            &["id"],
            &["memory_session_id", "sdk_session_id"],
            &["project"],
            &["text"],
            &["type"],
            &["title"],
            &["subtitle"],
            &["facts"],
            &["narrative"],
            &["concepts"],
            &["files_read"],
            &["files_modified"],
            &["prompt_number"],
            &["created_at_epoch"],
            &["created_at"],
            &["discovery_tokens"],
            &["content_hash"],
            &["agent_type"],
            &["agent_id"],
            &["metadata"],
        ],
    ),
    (
        "session_summaries",
        &[
            &["id"],
            &["memory_session_id", "sdk_session_id"],
            &["project"],
            &["request"],
            &["investigated"],
            &["learned"],
            &["completed"],
            &["next_steps"],
            &["files_read"],
            &["files_edited"],
            &["notes"],
            &["prompt_number"],
            &["created_at_epoch"],
            &["created_at"],
            &["discovery_tokens"],
        ],
    ),
    (
        "tool_uses",
        &[
            &["id"],
            &["tool_use_id"],
            &["content_session_id"],
            &["session_db_id"],
            &["project"],
            &["platform_source"],
            &["tool_name"],
            &["tool_input"],
            &["tool_response"],
            &["cwd"],
            &["prompt_number"],
            &["agent_type"],
            &["agent_id"],
            &["observation_id"],
            &["content_hash"],
            &["created_at_epoch"],
            &["created_at"],
        ],
    ),
    (
        "work_state_entries",
        &[
            &["id"],
            &["project"],
            &["list_name"],
            &["fields"],
            &["created_at_epoch"],
            &["created_at"],
        ],
    ),
];

/// One source row: the values of a table's `SOURCE_COLUMNS`, read by cmem's name for them.
struct SourceRow {
    columns: &'static [&'static [&'static str]],
    values: Vec<Sql>,
}

impl SourceRow {
    /// The value of the column named `name` (its first name in `SOURCE_COLUMNS`); NULL for a
    /// name the table does not list.
    fn get(&self, name: &str) -> &Sql {
        const NULL: &Sql = &Sql::Null;
        self.columns
            .iter()
            .position(|aliases| aliases.first() == Some(&name))
            .and_then(|i| self.values.get(i))
            .unwrap_or(NULL)
    }
}

/// Every row of a source table (see `SOURCE_COLUMNS` and `select`); none when the table does
/// not exist.
fn source_rows(src: &Connection, table: &str) -> Result<Vec<SourceRow>> {
    let Some(wanted) = SOURCE_COLUMNS
        .iter()
        .find(|(t, _)| *t == table)
        .map(|(_, columns)| *columns)
    else {
        bail!("no column map for the source table {table}");
    };
    let Some(cols) = columns(src, table)? else {
        return Ok(Vec::new());
    };
    let mut stmt = src.prepare(&select(table, &cols, wanted))?;
    let out = stmt
        .query_map([], |r| {
            (0..wanted.len())
                .map(|i| r.get::<_, Sql>(i))
                .collect::<rusqlite::Result<Vec<_>>>()
        })?
        .map(|values| {
            values.map(|values| SourceRow {
                columns: wanted,
                values,
            })
        })
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(out)
}

fn text(v: &Sql) -> Option<String> {
    match v {
        Sql::Text(s) => Some(s.clone()),
        Sql::Integer(i) => Some(i.to_string()),
        Sql::Real(f) => Some(f.to_string()),
        Sql::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Sql::Null => None,
    }
}

fn int(v: &Sql) -> Option<i64> {
    match v {
        Sql::Integer(i) => Some(*i),
        Sql::Real(f) => Some(*f as i64),
        Sql::Text(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Epoch ms from an `_epoch` column, else from an ISO `_at` column.
fn epoch(ms: &Sql, iso: &Sql) -> Option<i64> {
    int(ms).or_else(|| {
        let t = text(iso)?;
        t.parse::<jiff::Timestamp>()
            .ok()
            .map(|ts| ts.as_millisecond())
    })
}

/// A JSON array of strings as text; anything else becomes one (a plain string → `[s]`).
fn json_list(v: &Sql) -> String {
    match text(v) {
        None => "[]".into(),
        Some(t) if t.trim().is_empty() => "[]".into(),
        Some(t) => match serde_json::from_str::<serde_json::Value>(&t) {
            Ok(serde_json::Value::Array(_)) => t,
            _ => serde_json::json!([t]).to_string(),
        },
    }
}

/// The id of the row an earlier run imported from `origin`, counted as already there.
fn imported_before(
    tx: &Transaction,
    report: &mut Report,
    table: &'static str,
    origin: &str,
    project: &str,
) -> Result<Option<i64>> {
    let id = tx
        .query_row(
            &format!("SELECT id FROM {table} WHERE origin = ?1"),
            params![origin],
            |r| r.get(0),
        )
        .optional()?;
    if id.is_some() {
        count(report, table, project, false);
    }
    Ok(id)
}

struct Maps {
    /// sdk_sessions.id → sessions.id
    session_by_db_id: HashMap<i64, i64>,
    session_by_memory_id: HashMap<String, i64>,
    session_by_content_id: HashMap<String, i64>,
    project_of_session: HashMap<i64, String>,
    observation_by_src_id: HashMap<i64, i64>,
}

/// Imports `source` into `store`. With `dry_run` everything is done and rolled back, so the
/// report says exactly what a real run would import.
pub(crate) fn import(
    store: &mut Store,
    source: &Path,
    dry_run: bool,
    now_ms: i64,
) -> Result<Report> {
    let src = open_source(source)?;
    let mut report = Report {
        schema_version: src
            .query_row("SELECT MAX(version) FROM schema_versions", [], |r| {
                r.get::<_, Option<i64>>(0)
            })
            .ok()
            .flatten(),
        ..Report::default()
    };
    let tx = store
        .conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .context("cannot lock the cmem database for the import")?;
    let mut maps = Maps {
        session_by_db_id: HashMap::new(),
        session_by_memory_id: HashMap::new(),
        session_by_content_id: HashMap::new(),
        project_of_session: HashMap::new(),
        observation_by_src_id: HashMap::new(),
    };
    import_sessions(&src, &tx, &mut report, &mut maps)?;
    import_prompts(&src, &tx, &mut report, &maps, now_ms)?;
    import_observations(&src, &tx, &mut report, &mut maps)?;
    import_summaries(&src, &tx, &mut report, &maps)?;
    import_tool_uses(&src, &tx, &mut report, &maps)?;
    import_work_state(&src, &tx, &mut report)?;
    report.finish(tx, dry_run)
}

fn skip(report: &mut Report, table: &'static str) {
    let t = report.table(table);
    t.source += 1;
    t.skipped += 1;
}

fn count(report: &mut Report, table: &'static str, project: &str, new: bool) {
    let t = report.table(table);
    t.source += 1;
    if new {
        t.imported += 1;
        *t.by_project.entry(project.to_string()).or_default() += 1;
    } else {
        t.already += 1;
    }
}

fn import_sessions(
    src: &Connection,
    tx: &Transaction,
    report: &mut Report,
    maps: &mut Maps,
) -> Result<()> {
    for r in source_rows(src, "sdk_sessions")? {
        let Some(content_id) = text(r.get("content_session_id")) else {
            skip(report, "sessions");
            continue;
        };
        let platform = text(r.get("platform_source")).unwrap_or_else(|| "claude".into());
        let project = text(r.get("project")).unwrap_or_else(|| "unknown-project".into());
        let origin = format!("claude-mem:session:{platform}:{content_id}");
        let found: Option<i64> = tx
            .query_row(
                "SELECT id FROM sessions WHERE origin = ?1 OR (platform_source = ?2 AND content_session_id = ?3)",
                params![origin, platform, content_id],
                |r| r.get(0),
            )
            .optional()?;
        let id = match found {
            Some(id) => {
                count(report, "sessions", &project, false);
                id
            }
            None => {
                let status = match text(r.get("status")).as_deref() {
                    Some(s @ ("active" | "completed" | "failed")) => s.to_string(),
                    _ => "completed".into(),
                };
                tx.execute(
                    "INSERT INTO sessions (content_session_id, platform_source, project, user_prompt,
                         started_at_epoch, completed_at_epoch, status, prompt_counter, origin)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![
                        content_id,
                        platform,
                        project,
                        text(r.get("user_prompt")),
                        epoch(r.get("started_at_epoch"), r.get("started_at")).unwrap_or(0),
                        epoch(r.get("completed_at_epoch"), r.get("completed_at")),
                        status,
                        int(r.get("prompt_counter")).unwrap_or(0),
                        origin
                    ],
                )?;
                count(report, "sessions", &project, true);
                tx.last_insert_rowid()
            }
        };
        if let Some(src_id) = int(r.get("id")) {
            maps.session_by_db_id.insert(src_id, id);
        }
        if let Some(m) = text(r.get("memory_session_id")) {
            maps.session_by_memory_id.insert(m, id);
        }
        maps.session_by_content_id.insert(content_id, id);
        maps.project_of_session.insert(id, project);
    }
    Ok(())
}

fn import_prompts(
    src: &Connection,
    tx: &Transaction,
    report: &mut Report,
    maps: &Maps,
    now_ms: i64,
) -> Result<()> {
    for r in source_rows(src, "user_prompts")? {
        let content_id = text(r.get("content_session_id"));
        let session = int(r.get("session_db_id"))
            .and_then(|i| maps.session_by_db_id.get(&i))
            .or_else(|| {
                content_id
                    .as_ref()
                    .and_then(|c| maps.session_by_content_id.get(c))
            })
            .copied();
        let (Some(session), Some(content_id), Some(prompt)) =
            (session, content_id, text(r.get("prompt_text")))
        else {
            skip(report, "user_prompts");
            continue;
        };
        let project = maps
            .project_of_session
            .get(&session)
            .cloned()
            .unwrap_or_default();
        let origin = format!(
            "claude-mem:prompt:{content_id}:{}",
            int(r.get("id")).unwrap_or(0)
        );
        if imported_before(tx, report, "user_prompts", &origin, &project)?.is_some() {
            continue;
        }
        let at = epoch(r.get("created_at_epoch"), r.get("created_at")).unwrap_or(0);
        let number = int(r.get("prompt_number")).unwrap_or(1);
        tx.execute(
            "INSERT INTO user_prompts (session_id, content_session_id, prompt_number, prompt_text,
                 created_at_epoch, ended_at_epoch, observed_at_epoch, external_observed_at_epoch, origin)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?6, ?7)",
            params![session, content_id, number, prompt, at, now_ms, origin],
        )?;
        tx.execute(
            "UPDATE sessions SET prompt_counter = MAX(prompt_counter, ?2) WHERE id = ?1",
            params![session, number],
        )?;
        count(report, "user_prompts", &project, true);
    }
    Ok(())
}

fn import_observations(
    src: &Connection,
    tx: &Transaction,
    report: &mut Report,
    maps: &mut Maps,
) -> Result<()> {
    for r in source_rows(src, "observations")? {
        let src_id = int(r.get("id")).unwrap_or(0);
        let memory_id = text(r.get("memory_session_id")).unwrap_or_default();
        let project = text(r.get("project")).unwrap_or_else(|| "unknown-project".into());
        let origin = format!("claude-mem:observation:{memory_id}:{src_id}");
        if let Some(id) = imported_before(tx, report, "observations", &origin, &project)? {
            maps.observation_by_src_id.insert(src_id, id);
            continue;
        }
        let session = maps.session_by_memory_id.get(&memory_id).copied();
        let title = text(r.get("title"));
        let narrative = text(r.get("narrative")).or_else(|| text(r.get("text")));
        let hash = text(r.get("content_hash")).unwrap_or_else(|| {
            super::observations::content_hash(
                session,
                title.as_deref().unwrap_or(""),
                narrative.as_deref(),
            )
        });
        let inserted = tx.execute(
            "INSERT OR IGNORE INTO observations (session_id, project, type, title, subtitle, narrative,
                 facts, concepts, files_read, files_modified, prompt_number, discovery_tokens,
                 created_at_epoch, content_hash, source, agent_type, agent_id, metadata, origin)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, 'import', ?15, ?16, ?17, ?18)",
            params![
                session,
                project,
                text(r.get("type")).unwrap_or_else(|| "discovery".into()),
                title,
                text(r.get("subtitle")),
                narrative,
                json_list(r.get("facts")),
                json_list(r.get("concepts")),
                json_list(r.get("files_read")),
                json_list(r.get("files_modified")),
                int(r.get("prompt_number")),
                int(r.get("discovery_tokens")).unwrap_or(0),
                epoch(r.get("created_at_epoch"), r.get("created_at")).unwrap_or(0),
                hash,
                text(r.get("agent_type")),
                text(r.get("agent_id")),
                text(r.get("metadata")),
                origin
            ],
        )?;
        if inserted == 0 {
            // The same content is already in that session (cmem deduplicates by hash).
            skip(report, "observations");
            continue;
        }
        maps.observation_by_src_id
            .insert(src_id, tx.last_insert_rowid());
        count(report, "observations", &project, true);
    }
    Ok(())
}

fn import_summaries(
    src: &Connection,
    tx: &Transaction,
    report: &mut Report,
    maps: &Maps,
) -> Result<()> {
    for r in source_rows(src, "session_summaries")? {
        let memory_id = text(r.get("memory_session_id")).unwrap_or_default();
        let project = text(r.get("project")).unwrap_or_else(|| "unknown-project".into());
        let origin = format!(
            "claude-mem:summary:{memory_id}:{}",
            int(r.get("id")).unwrap_or(0)
        );
        if imported_before(tx, report, "session_summaries", &origin, &project)?.is_some() {
            continue;
        }
        tx.execute(
            "INSERT INTO session_summaries (session_id, project, request, investigated, learned, completed,
                 next_steps, notes, files_read, files_edited, prompt_number, discovery_tokens,
                 created_at_epoch, source, origin)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'import', ?14)",
            params![
                maps.session_by_memory_id.get(&memory_id),
                project,
                text(r.get("request")),
                text(r.get("investigated")),
                text(r.get("learned")),
                text(r.get("completed")),
                text(r.get("next_steps")),
                text(r.get("notes")),
                json_list(r.get("files_read")),
                json_list(r.get("files_edited")),
                int(r.get("prompt_number")),
                int(r.get("discovery_tokens")).unwrap_or(0),
                epoch(r.get("created_at_epoch"), r.get("created_at")).unwrap_or(0),
                origin
            ],
        )?;
        count(report, "session_summaries", &project, true);
    }
    Ok(())
}

fn hash_tool(name: &str, input: Option<&str>, response: Option<&str>) -> String {
    super::content_hash::of_parts(&[
        name.as_bytes(),
        input.unwrap_or("").as_bytes(),
        response.unwrap_or("").as_bytes(),
    ])
}

fn import_tool_uses(
    src: &Connection,
    tx: &Transaction,
    report: &mut Report,
    maps: &Maps,
) -> Result<()> {
    for r in source_rows(src, "tool_uses")? {
        let project = text(r.get("project")).unwrap_or_else(|| "unknown-project".into());
        let (Some(tool_use_id), Some(content_id), Some(tool_name)) = (
            text(r.get("tool_use_id")),
            text(r.get("content_session_id")),
            text(r.get("tool_name")),
        ) else {
            skip(report, "tool_uses");
            continue;
        };
        let origin = format!("claude-mem:tool_use:{content_id}:{tool_use_id}");
        if imported_before(tx, report, "tool_uses", &origin, &project)?.is_some() {
            continue;
        }
        let input = text(r.get("tool_input"));
        let response = text(r.get("tool_response"));
        let session = int(r.get("session_db_id"))
            .and_then(|i| maps.session_by_db_id.get(&i))
            .or_else(|| maps.session_by_content_id.get(&content_id))
            .copied();
        let inserted = tx.execute(
            "INSERT OR IGNORE INTO tool_uses (tool_use_id, content_session_id, session_id, project, platform_source,
                 tool_name, tool_input, tool_response, input_bytes, response_bytes, cwd, prompt_number,
                 agent_type, agent_id, observation_id, content_hash, created_at_epoch, origin)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
            params![
                tool_use_id,
                content_id,
                session,
                project,
                text(r.get("platform_source")).unwrap_or_else(|| "claude".into()),
                tool_name,
                input,
                response,
                input.as_ref().map_or(0, |s| s.len() as i64),
                response.as_ref().map_or(0, |s| s.len() as i64),
                text(r.get("cwd")),
                int(r.get("prompt_number")),
                text(r.get("agent_type")),
                text(r.get("agent_id")),
                int(r.get("observation_id")).and_then(|o| maps.observation_by_src_id.get(&o)),
                text(r.get("content_hash")).unwrap_or_else(|| hash_tool(&tool_name, input.as_deref(), response.as_deref())),
                epoch(r.get("created_at_epoch"), r.get("created_at")).unwrap_or(0),
                origin
            ],
        )?;
        if inserted == 0 {
            // cmem captured this very tool use itself.
            skip(report, "tool_uses");
            continue;
        }
        count(report, "tool_uses", &project, true);
    }
    Ok(())
}

fn import_work_state(src: &Connection, tx: &Transaction, report: &mut Report) -> Result<()> {
    for r in source_rows(src, "work_state_entries")? {
        let (Some(project), Some(list), Some(fields)) = (
            text(r.get("project")),
            text(r.get("list_name")),
            text(r.get("fields")),
        ) else {
            skip(report, "work_state_entries");
            continue;
        };
        let at = epoch(r.get("created_at_epoch"), r.get("created_at")).unwrap_or(0);
        let origin = format!(
            "claude-mem:work_state:{project}:{}:{at}",
            int(r.get("id")).unwrap_or(0)
        );
        if imported_before(tx, report, "work_state_entries", &origin, &project)?.is_some() {
            continue;
        }
        tx.execute(
            "INSERT INTO work_state_entries (project, list_name, fields, created_at_epoch, source, origin)
             VALUES (?1, ?2, ?3, ?4, 'import', ?5)",
            params![project, list, fields, at, origin],
        )?;
        count(report, "work_state_entries", &project, true);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every column an importer reads by name is in its table's `SOURCE_COLUMNS` (a name that
    /// is not would read as NULL, silently).
    #[test]
    fn importers_read_only_mapped_columns() {
        let source = include_str!("claude_mem.rs");
        let mut checked = 0;
        for part in source.split("\nfn import_").skip(1) {
            let body = part.split("\n}\n").next().unwrap_or("");
            let Some(table) = body
                .split("source_rows(src, \"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
            else {
                continue;
            };
            let (_, columns) = SOURCE_COLUMNS.iter().find(|(t, _)| *t == table).unwrap();
            for name in body.split("r.get(\"").skip(1) {
                let name = name.split('"').next().unwrap();
                assert!(
                    columns.iter().any(|aliases| aliases[0] == name),
                    "import of {table} reads {name}, which SOURCE_COLUMNS does not map"
                );
                checked += 1;
            }
        }
        assert!(checked > 50, "the scan found only {checked} reads");
    }

    #[test]
    fn lists_are_normalised_to_json_arrays() {
        assert_eq!(json_list(&Sql::Null), "[]");
        assert_eq!(json_list(&Sql::Text(r#"["a"]"#.into())), r#"["a"]"#);
        assert_eq!(json_list(&Sql::Text("src/a.rs".into())), r#"["src/a.rs"]"#);
    }

    #[test]
    fn old_schemas_read_what_they_have() {
        let src = Connection::open_in_memory().unwrap();
        src.execute_batch(
            "CREATE TABLE sdk_sessions (id INTEGER PRIMARY KEY, claude_session_id TEXT, sdk_session_id TEXT,
                 project TEXT, started_at_epoch INTEGER, status TEXT);
             INSERT INTO sdk_sessions VALUES (1, 'c1', 'm1', 'old', 5, 'completed');
             CREATE TABLE observations (id INTEGER PRIMARY KEY, sdk_session_id TEXT, project TEXT, text TEXT,
                 type TEXT, created_at TEXT);
             INSERT INTO observations VALUES (1, 'm1', 'old', 'legacy narrative', 'discovery', '2025-01-02T03:04:05.000Z');",
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("t.db")).unwrap();
        let tx = store.conn.transaction().unwrap();
        let mut report = Report::default();
        let mut maps = Maps {
            session_by_db_id: HashMap::new(),
            session_by_memory_id: HashMap::new(),
            session_by_content_id: HashMap::new(),
            project_of_session: HashMap::new(),
            observation_by_src_id: HashMap::new(),
        };
        import_sessions(&src, &tx, &mut report, &mut maps).unwrap();
        import_observations(&src, &tx, &mut report, &mut maps).unwrap();
        import_prompts(&src, &tx, &mut report, &maps, 0).unwrap();
        let (narrative, at, session): (String, i64, i64) = tx
            .query_row(
                "SELECT narrative, created_at_epoch, session_id FROM observations",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(narrative, "legacy narrative");
        assert_eq!(at, 1_735_787_045_000);
        assert_eq!(session, 1);
        assert_eq!(report.tables["observations"].imported, 1);
        assert!(
            !report.tables.contains_key("user_prompts"),
            "no table, nothing reported"
        );
    }
}
