//! The browser's queries (`cmem tui`): the index a page at a time, its counts, the projects
//! with theirs. Every query is paged or bounded: an index page walks the `(project, time)`
//! index from a keyset cursor, so a 100,000-row database costs what a 1,000-row one does.

use anyhow::Result;
use rusqlite::{Connection, params_from_iter, types::Value as SqlValue};

use super::{distinct_keys, observations, summaries, timeline};
use crate::model::{IndexRow, Kind};

/// Which observations and summaries an index shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IndexQuery {
    /// Project keys; empty = every project.
    pub keys: Vec<String>,
    pub obs_type: Option<String>,
    pub concept: Option<String>,
}

impl IndexQuery {
    /// Summaries have no type or concept: a filter on either leaves only observations.
    fn has_summaries(&self) -> bool {
        self.obs_type.is_none() && self.concept.is_none()
    }
}

/// Keyset position after the last row of a page: `(time, kind, id)` descending.
pub(crate) type Cursor = (i64, Kind, i64);

/// One page of the index, newest first, and where the next one starts (`None` at the end).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IndexPage {
    pub rows: Vec<IndexRow>,
    pub next: Option<Cursor>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProjectCount {
    pub name: String,
    pub observations: i64,
    pub summaries: i64,
    pub last_at: i64,
}

fn project_clause(keys: &[String], col: &str, args: &mut Vec<SqlValue>) -> String {
    if keys.is_empty() {
        return String::new();
    }
    args.extend(keys.iter().map(|k| SqlValue::Text(k.clone())));
    format!(" AND {col} = ? COLLATE NOCASE")
}

/// The newest `limit` rows after `after`, observations and summaries merged. Each (project
/// key, table) is walked through its `(project, time)` index from the cursor, at most `limit`
/// rows each, then merged: the newest `limit` of the union are exactly the next page.
pub(crate) fn index_page(
    conn: &Connection,
    q: &IndexQuery,
    after: Option<Cursor>,
    limit: usize,
) -> Result<IndexPage> {
    let keys: Vec<Vec<String>> = if q.keys.is_empty() {
        vec![Vec::new()]
    } else {
        distinct_keys(&q.keys)
            .into_iter()
            .map(|k| vec![k.clone()])
            .collect()
    };
    let mut rows: Vec<IndexRow> = Vec::new();
    for key in &keys {
        for kind in [Kind::Observation, Kind::Summary] {
            if kind == Kind::Summary && !q.has_summaries() {
                continue;
            }
            rows.extend(newest_after(conn, kind, key, q, after, limit)?);
        }
    }
    rows.sort_by_key(|r| std::cmp::Reverse((r.created_at, r.kind, r.id)));
    let more = rows.len() > limit;
    rows.truncate(limit);
    let next = if more || rows.len() == limit {
        rows.last().map(|r| (r.created_at, r.kind, r.id))
    } else {
        None
    };
    Ok(IndexPage { rows, next })
}

/// At most `limit + 1` rows of one table for one key (or all keys), newest first after `after`.
fn newest_after(
    conn: &Connection,
    kind: Kind,
    key: &[String],
    q: &IndexQuery,
    after: Option<Cursor>,
    limit: usize,
) -> Result<Vec<IndexRow>> {
    let (table, columns) = match kind {
        Kind::Summary => ("session_summaries", summaries::COLUMNS),
        _ => ("observations", observations::COLUMNS),
    };
    let mut args: Vec<SqlValue> = Vec::new();
    let mut sql = format!("SELECT {columns} FROM {table} WHERE 1=1");
    sql.push_str(&project_clause(key, "project", &mut args));
    if let Some((at, ckind, cid)) = after {
        // Rows sort by (time, kind, id) descending; within the cursor's instant a row of a
        // lower kind comes after all of the cursor's kind, a higher one before.
        let id_bound = match kind.cmp(&ckind) {
            std::cmp::Ordering::Equal => cid,
            std::cmp::Ordering::Less => i64::MAX,
            std::cmp::Ordering::Greater => i64::MIN,
        };
        sql.push_str(" AND (created_at_epoch, id) < (?, ?)");
        args.push(SqlValue::Integer(at));
        args.push(SqlValue::Integer(id_bound));
    }
    if kind == Kind::Observation {
        observation_filters(q, &mut sql, &mut args);
    }
    sql.push_str(" ORDER BY created_at_epoch DESC, id DESC LIMIT ?");
    args.push(SqlValue::Integer(limit as i64 + 1));
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(args), |r| {
        Ok(match kind {
            Kind::Summary => timeline::summary_row(&summaries::from_row(r)?),
            _ => timeline::observation_row(&observations::from_row(r)?),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The index's type and concept filters, as clauses on the observations table.
fn observation_filters(q: &IndexQuery, sql: &mut String, args: &mut Vec<SqlValue>) {
    if let Some(t) = &q.obs_type {
        sql.push_str(" AND type = ?");
        args.push(SqlValue::Text(t.clone()));
    }
    if let Some(c) = &q.concept {
        sql.push_str(" AND EXISTS (SELECT 1 FROM json_each(concepts) WHERE value = ?)");
        args.push(SqlValue::Text(c.clone()));
    }
}

/// How many (observations, summaries) the whole index holds.
pub(crate) fn counts(conn: &Connection, q: &IndexQuery) -> Result<(i64, i64)> {
    let mut out = (0, 0);
    let keys: Vec<Option<&String>> = if q.keys.is_empty() {
        vec![None]
    } else {
        distinct_keys(&q.keys).into_iter().map(Some).collect()
    };
    for key in keys {
        for (table, slot) in [("observations", 0), ("session_summaries", 1)] {
            if slot == 1 && !q.has_summaries() {
                continue;
            }
            let mut args: Vec<SqlValue> = Vec::new();
            let mut sql = format!("SELECT COUNT(*) FROM {table} WHERE 1=1");
            if let Some(k) = key {
                sql.push_str(" AND project = ? COLLATE NOCASE");
                args.push(SqlValue::Text(k.clone()));
            }
            if slot == 0 {
                observation_filters(q, &mut sql, &mut args);
            }
            let n: i64 = conn.query_row(&sql, params_from_iter(args), |r| r.get(0))?;
            if slot == 0 {
                out.0 += n;
            } else {
                out.1 += n;
            }
        }
    }
    Ok(out)
}

/// Every project with its counts, most recently active first.
pub(crate) fn projects(conn: &Connection) -> Result<Vec<ProjectCount>> {
    let mut out: Vec<ProjectCount> = Vec::new();
    for (table, is_obs) in [("observations", true), ("session_summaries", false)] {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT project, COUNT(*), MAX(created_at_epoch) FROM {table} GROUP BY project COLLATE NOCASE"
        ))?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?;
        for row in rows {
            let (name, n, last) = row?;
            let entry = match out.iter().position(|p| p.name.eq_ignore_ascii_case(&name)) {
                Some(i) => &mut out[i],
                None => {
                    out.push(ProjectCount {
                        name,
                        observations: 0,
                        summaries: 0,
                        last_at: 0,
                    });
                    let i = out.len() - 1;
                    &mut out[i]
                }
            };
            if is_obs {
                entry.observations += n;
            } else {
                entry.summaries += n;
            }
            entry.last_at = entry.last_at.max(last);
        }
    }
    out.sort_by_key(|p| std::cmp::Reverse(p.last_at));
    Ok(out)
}

/// The first `(tool use id, observation id)` of a project whose `tool` call's response
/// contains `text` (a LIKE pattern: `_` and `%` match as wildcards): the screenshots and
/// tests pick a curated tool use of the demo with it.
pub(crate) fn tool_use_mentioning(
    conn: &Connection,
    project: &str,
    tool: &str,
    text: &str,
) -> Result<Option<(i64, i64)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, observation_id FROM tool_uses WHERE project = ?1 AND tool_name = ?2
         AND tool_response LIKE '%' || ?3 || '%' ORDER BY id LIMIT 1",
    )?;
    let mut rows = stmt.query_map(rusqlite::params![project, tool, text], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok(rows.next().transpose()?)
}
