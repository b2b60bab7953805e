//! Record vectors for semantic search: embed what has none yet, and find the records nearest
//! in meaning to a query.
//!
//! Vectors are derived from the records' text and kept in `record_vectors` (schema v4); the
//! triggers there drop a record's vector when the record is deleted or its text rewritten, so
//! `forget` and `scrub` leave no vector of removed text behind. Embedding happens in the
//! processes that search (never in hooks): before a semantic search, every record without a
//! vector of the current model gets one (10,000 short records take well under a second).

use anyhow::Result;
use rusqlite::{Connection, params};

use crate::embed::{MODEL_ID, Model, Vector};
use crate::model::Kind;

fn code(kind: Kind) -> i64 {
    match kind {
        Kind::Observation => 0,
        Kind::Summary => 1,
        Kind::Prompt => 2,
    }
}

fn kind_of(code: i64) -> Option<Kind> {
    match code {
        0 => Some(Kind::Observation),
        1 => Some(Kind::Summary),
        2 => Some(Kind::Prompt),
        _ => None,
    }
}

/// The text of each record kind that carries its meaning, as SQL over the record's row.
fn missing_sql(kind: Kind) -> String {
    let (select, from) = match kind {
        Kind::Observation => (
            "o.id, o.project, concat_ws(' ', o.title, o.subtitle, o.narrative, o.facts)",
            "observations o",
        ),
        Kind::Summary => (
            "o.id, o.project, concat_ws(' ', o.request, o.completed, o.learned, o.investigated, o.next_steps, o.notes)",
            "session_summaries o",
        ),
        Kind::Prompt => (
            "o.id, s.project, o.prompt_text",
            "user_prompts o JOIN sessions s ON s.id = o.session_id",
        ),
    };
    format!(
        "SELECT {select} FROM {from}
         WHERE o.id > ?1 AND NOT EXISTS
           (SELECT 1 FROM record_vectors v WHERE v.kind = {} AND v.record_id = o.id)
         ORDER BY o.id LIMIT 2000",
        code(kind)
    )
}

/// What `embed_missing` did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Embedded {
    pub records: usize,
}

/// Gives every record without a vector of `model` one. Vectors of another model are dropped
/// first. `full` looks at every record; otherwise only at records newer than the newest
/// vector of each kind (enough between searches of one process: older records lose their
/// vector only by a rewrite, which a full pass at start-up catches).
pub fn embed_missing(conn: &Connection, model: &Model, full: bool) -> Result<Embedded> {
    let mut done = Embedded::default();
    let stale: i64 = conn.query_row(
        "SELECT count(*) FROM (SELECT 1 FROM record_vectors WHERE model != ?1 LIMIT 1)",
        [MODEL_ID],
        |r| r.get(0),
    )?;
    if stale > 0 {
        conn.execute("DELETE FROM record_vectors WHERE model != ?1", [MODEL_ID])?;
    }
    for kind in [Kind::Observation, Kind::Summary, Kind::Prompt] {
        let mut after: i64 = if full {
            0
        } else {
            conn.query_row(
                "SELECT coalesce(max(record_id), 0) FROM record_vectors WHERE kind = ?1",
                [code(kind)],
                |r| r.get(0),
            )?
        };
        let mut select = conn.prepare_cached(&missing_sql(kind))?;
        let mut insert = conn.prepare_cached(
            "INSERT OR REPLACE INTO record_vectors (kind, record_id, project, model, vector)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        loop {
            let batch: Vec<(i64, String, String)> = select
                .query_map([after], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    ))
                })?
                .collect::<rusqlite::Result<_>>()?;
            let Some(last) = batch.last().map(|b| b.0) else {
                break;
            };
            conn.execute_batch("SAVEPOINT embed")?;
            for (id, project, text) in &batch {
                // A text with no known word still gets a (zero) vector, so it is not retried.
                let vector = model
                    .embed(text)
                    .map(|v| Vector::quantise(&v))
                    .unwrap_or(Vector {
                        scale: 0.0,
                        values: vec![0; model.dims()],
                    });
                insert.execute(params![
                    code(kind),
                    id,
                    project,
                    MODEL_ID,
                    vector.to_bytes()
                ])?;
            }
            conn.execute_batch("RELEASE embed")?;
            done.records += batch.len();
            after = last;
        }
    }
    Ok(done)
}

/// The `limit` records of `kinds` in `projects` (all when empty) nearest to `query`, best
/// first, with their cosine similarity.
pub fn nearest(
    conn: &Connection,
    query: &[f32],
    projects: &[String],
    kinds: &[Kind],
    limit: usize,
) -> Result<Vec<(Kind, i64, f32)>> {
    let mut sql = "SELECT kind, record_id, vector FROM record_vectors".to_string();
    if !projects.is_empty() {
        sql.push_str(&format!(
            " WHERE project COLLATE NOCASE IN ({})",
            vec!["?"; projects.len()].join(",")
        ));
    }
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut scored: Vec<(Kind, i64, f32)> = Vec::new();
    let rows = stmt.query_map(rusqlite::params_from_iter(projects), |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get_ref(2)?
                .as_blob()
                .map(|b| b.to_vec())
                .unwrap_or_default(),
        ))
    })?;
    for row in rows {
        let (k, id, bytes) = row?;
        let Some(kind) = kind_of(k).filter(|k| kinds.contains(k)) else {
            continue;
        };
        if let Some(v) = Vector::from_bytes(&bytes) {
            scored.push((kind, id, v.cosine(query)));
        }
    }
    scored.sort_by(|a, b| b.2.partial_cmp(&a.2).unwrap_or(std::cmp::Ordering::Equal));
    scored.truncate(limit);
    Ok(scored)
}
