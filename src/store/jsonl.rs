//! Lossless JSONL export and import: every column of every row, so export → import into an
//! empty data dir → export gives the same bytes.
//!
//! Line 1 is a header (`{"format":"cmem-export","version":1,"schema":N}`), then one line per
//! row, `{"table":…,"row":{column: value, …}}`, tables in dependency order, rows by id. An
//! import keeps row ids when they are free, maps references (session, observation) to the
//! ids rows got, and skips rows the database already holds, so importing twice adds nothing.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use anyhow::{Context, Result, bail};
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, Transaction, params_from_iter};
use serde_json::{Map, Value, json};

use super::transfer::{Report, TABLES};
use super::{SCHEMA_VERSION, Store};

pub(crate) const FORMAT: &str = "cmem-export";
pub(crate) const VERSION: i64 = 1;

/// Which rows to export: all, or those of some projects (case-insensitive).
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    pub projects: Vec<String>,
}

/// `VERB INTO table ("a", "b") VALUES (?1, ?2)` for these columns (`VERB`: `INSERT`,
/// `INSERT OR IGNORE`).
pub(crate) fn insert_sql<'a>(
    verb: &str,
    table: &str,
    columns: impl Iterator<Item = &'a str>,
) -> String {
    let cols: Vec<String> = columns.map(|k| format!("\"{k}\"")).collect();
    let marks: Vec<String> = (1..=cols.len()).map(|i| format!("?{i}")).collect();
    format!(
        "{verb} INTO {table} ({}) VALUES ({})",
        cols.join(", "),
        marks.join(", ")
    )
}

/// The columns of `table`, in order.
pub(crate) fn table_columns(conn: &Connection, table: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let cols = stmt
        .query_map([], |r| r.get::<_, String>(1))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(cols)
}

/// A SQLite value as JSON (a blob as lossy UTF-8 text): how exports and sync carry a column.
pub(crate) fn to_json(v: Sql) -> Value {
    match v {
        Sql::Null => Value::Null,
        Sql::Integer(i) => json!(i),
        Sql::Real(f) => json!(f),
        Sql::Text(s) => Value::String(s),
        Sql::Blob(b) => Value::String(String::from_utf8_lossy(&b).into_owned()),
    }
}

/// A JSON value as SQLite stores it (a bool as 0/1, an array or object as its JSON text).
pub(crate) fn to_sql(v: &Value) -> Sql {
    match v {
        Value::Null => Sql::Null,
        Value::Bool(b) => Sql::Integer(i64::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Sql::Integer(i),
            None => Sql::Real(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => Sql::Text(s.clone()),
        other => Sql::Text(other.to_string()),
    }
}

/// The WHERE clause selecting a table's rows of the filter's projects.
pub(crate) fn project_clause(table: &str, n: usize) -> String {
    let marks = vec!["?"; n].join(", ");
    match table {
        "user_prompts" => format!(
            "WHERE session_id IN (SELECT id FROM sessions WHERE project COLLATE NOCASE IN ({marks}))"
        ),
        _ => format!("WHERE project COLLATE NOCASE IN ({marks})"),
    }
}

/// Writes the export; returns the row count per table.
pub(crate) fn export(
    conn: &Connection,
    filter: &Filter,
    out: &mut dyn Write,
) -> Result<Vec<(&'static str, usize)>> {
    let header = json!({"format": FORMAT, "version": VERSION, "schema": SCHEMA_VERSION});
    writeln!(out, "{header}")?;
    let mut counts = Vec::new();
    for table in TABLES {
        let cols = table_columns(conn, table)?;
        let clause = if filter.projects.is_empty() {
            String::new()
        } else {
            project_clause(table, filter.projects.len())
        };
        let list = cols
            .iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(", ");
        let identities = sync_identities(conn, table)?;
        let mut stmt = conn.prepare(&format!("SELECT {list} FROM {table} {clause} ORDER BY id"))?;
        let mut rows = stmt.query(params_from_iter(filter.projects.iter()))?;
        let mut n = 0;
        while let Some(r) = rows.next()? {
            let mut row = Map::new();
            for (i, c) in cols.iter().enumerate() {
                row.insert(c.clone(), to_json(r.get::<_, Sql>(i)?));
            }
            let sync = row
                .get("id")
                .and_then(Value::as_i64)
                .and_then(|id| identities.get(&id));
            let line = match sync {
                Some(global) => json!({"table": table, "row": Value::Object(row), "sync": global}),
                None => json!({"table": table, "row": Value::Object(row)}),
            };
            writeln!(out, "{line}")?;
            n += 1;
        }
        counts.push((table, n));
    }
    out.flush()?;
    Ok(counts)
}

/// The sync server's name (`device:id`) of each row of `table` it holds, by local id: an
/// export keeps it, so a data dir restored from it syncs its rows as the same rows instead of
/// new ones (every device would get them twice).
fn sync_identities(conn: &Connection, table: &str) -> Result<HashMap<i64, String>> {
    let mut stmt =
        conn.prepare("SELECT local_id, device, remote_id FROM sync_map WHERE tbl = ?1")?;
    let rows = stmt.query_map([table], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            format!("{}:{}", r.get::<_, String>(1)?, r.get::<_, i64>(2)?),
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Columns holding another table's id, as (table, column, the table it points into): rewritten
/// on import, and by sync to a global `device:id` on the way out and back on the way in.
pub(crate) const REFERENCES: &[(&str, &str, &str)] = &[
    ("user_prompts", "session_id", "sessions"),
    ("observations", "session_id", "sessions"),
    ("session_summaries", "session_id", "sessions"),
    ("tool_uses", "session_id", "sessions"),
    ("tool_uses", "observation_id", "observations"),
    ("work_state_entries", "session_id", "sessions"),
];

/// Columns that identify a row already in the database (besides its whole content): the
/// columns of the table's unique indexes.
fn natural_key(table: &str, row: &[(String, Sql)]) -> &'static [&'static str] {
    let has = |c: &str| row.iter().any(|(k, v)| k == c && *v != Sql::Null);
    match table {
        "sessions" => &["platform_source", "content_session_id"],
        "tool_uses" => &["content_session_id", "tool_use_id"],
        "user_prompts" if has("prompt_id") => &["content_session_id", "prompt_id"],
        _ => &[],
    }
}

fn find_same(tx: &Transaction, table: &str, row: &[(String, Sql)]) -> Result<Option<i64>> {
    let get = |c: &str| row.iter().find(|(k, _)| k == c).map(|(_, v)| v.clone());
    let key = natural_key(table, row);
    let (cols, values): (Vec<&str>, Vec<Sql>) = if !key.is_empty() {
        (
            key.to_vec(),
            key.iter().map(|c| get(c).unwrap_or(Sql::Null)).collect(),
        )
    } else if let Some(origin) = get("origin").filter(|o| *o != Sql::Null) {
        (vec!["origin"], vec![origin])
    } else if table == "observations"
        && let Some(hash) = get("content_hash").filter(|h| *h != Sql::Null)
    {
        // The unique (session, content hash) index would refuse a second copy anyway.
        let session = get("session_id").unwrap_or(Sql::Null);
        return Ok(tx
            .query_row(
                "SELECT id FROM observations WHERE IFNULL(session_id, -1) = IFNULL(?1, -1) AND content_hash = ?2",
                rusqlite::params![session, hash],
                |r| r.get(0),
            )
            .optional()?);
    } else {
        row.iter()
            .filter(|(k, _)| k != "id")
            .map(|(k, v)| (k.as_str(), v.clone()))
            .unzip()
    };
    let clause = cols
        .iter()
        .enumerate()
        .map(|(i, c)| format!("\"{c}\" IS ?{}", i + 1))
        .collect::<Vec<_>>()
        .join(" AND ");
    Ok(tx
        .query_row(
            &format!("SELECT id FROM {table} WHERE {clause} LIMIT 1"),
            params_from_iter(values.iter()),
            |r| r.get(0),
        )
        .optional()?)
}

fn project_of(tx: &Transaction, table: &str, row: &[(String, Sql)]) -> String {
    let get = |c: &str| row.iter().find(|(k, _)| k == c).map(|(_, v)| v.clone());
    match (table, get("project"), get("session_id")) {
        (_, Some(Sql::Text(p)), _) => p,
        ("user_prompts", _, Some(Sql::Integer(s))) => tx
            .query_row("SELECT project FROM sessions WHERE id = ?1", [s], |r| {
                r.get(0)
            })
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// Imports an export. With `dry_run` nothing is kept.
pub(crate) fn import(store: &mut Store, input: &mut dyn BufRead, dry_run: bool) -> Result<Report> {
    let mut lines = input.lines();
    let header: Value = match lines.next() {
        Some(line) => {
            serde_json::from_str(&line?).context("the first line is not a cmem export header")?
        }
        None => bail!("the file is empty: not a cmem export"),
    };
    if header["format"] != FORMAT {
        bail!("not a cmem export (the first line has no \"format\": \"{FORMAT}\")");
    }
    if header["version"].as_i64().unwrap_or(0) > VERSION {
        bail!(
            "this export was written by a newer cmem (format version {}); upgrade cmem",
            header["version"]
        );
    }
    let mut report = Report {
        schema_version: header["schema"].as_i64(),
        ..Report::default()
    };
    let tx = store
        .conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .context("cannot lock the database for the import")?;
    let mut columns: HashMap<&str, Vec<String>> = HashMap::new();
    for t in TABLES {
        columns.insert(t, table_columns(&tx, t)?);
    }
    let mut ids: HashMap<&str, HashMap<i64, i64>> = HashMap::new();
    for (n, line) in lines.enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let record: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            // Another tool's export may hold lone surrogates, huge numbers or deep nesting.
            Err(e) => crate::jsonfix::repair(line.as_bytes(), 100)
                .and_then(|fixed| serde_json::from_slice(&fixed).ok())
                .with_context(|| format!("line {} is not JSON ({e})", n + 2))?,
        };
        let Some(table) = TABLES.iter().copied().find(|t| record["table"] == *t) else {
            bail!("line {}: unknown table {}", n + 2, record["table"]);
        };
        let Some(fields) = record["row"].as_object() else {
            bail!("line {}: no row object", n + 2);
        };
        let known = &columns[table];
        let mut row: Vec<(String, Sql)> = known
            .iter()
            .filter_map(|c| fields.get(c).map(|v| (c.clone(), to_sql(v))))
            .collect();
        let old_id = fields.get("id").and_then(Value::as_i64);
        let mut orphan = false;
        for (t, col, target) in REFERENCES.iter().filter(|(t, _, _)| *t == table) {
            let _ = t;
            if let Some((_, v)) = row.iter_mut().find(|(k, _)| k == col)
                && let Sql::Integer(old) = *v
            {
                match ids.get(target).and_then(|m| m.get(&old)) {
                    Some(new) => *v = Sql::Integer(*new),
                    None if table == "user_prompts" => orphan = true,
                    None => *v = Sql::Null,
                }
            }
        }
        let t = report.table(table);
        t.source += 1;
        if orphan {
            t.skipped += 1;
            continue;
        }
        let project = project_of(&tx, table, &row);
        let id = match find_same(&tx, table, &row)? {
            Some(id) => {
                report.table(table).already += 1;
                id
            }
            None => {
                let id_free = match old_id {
                    Some(id) => tx
                        .query_row(
                            &format!("SELECT 1 FROM {table} WHERE id = ?1"),
                            [id],
                            |_| Ok(()),
                        )
                        .optional()?
                        .is_none(),
                    None => false,
                };
                if !id_free {
                    row.retain(|(k, _)| k != "id");
                }
                tx.execute(
                    &insert_sql("INSERT", table, row.iter().map(|(k, _)| k.as_str())),
                    params_from_iter(row.iter().map(|(_, v)| v)),
                )
                .with_context(|| format!("line {}: cannot insert into {table}", n + 2))?;
                let t = report.table(table);
                t.imported += 1;
                *t.by_project.entry(project).or_default() += 1;
                tx.last_insert_rowid()
            }
        };
        if let Some(old) = old_id {
            ids.entry(table).or_default().insert(old, id);
        }
        if let Some((device, remote)) = record["sync"]
            .as_str()
            .and_then(|g| g.rsplit_once(':'))
            .and_then(|(d, r)| Some((d, r.parse::<i64>().ok()?)))
        {
            // Neither the identity nor the local row may be mapped twice: the first mapping
            // stays.
            tx.prepare_cached(
                "INSERT INTO sync_map (tbl, device, remote_id, local_id) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT DO NOTHING",
            )?
            .execute(rusqlite::params![table, device, remote, id])?;
        }
    }
    report.finish(tx, dry_run)
}
