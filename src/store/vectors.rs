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

use super::steps::mark;
use crate::embed::vector::{dot_values, scaled};
use crate::embed::{Model, Vector};
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

/// One read of every vector: how many of each kind `model` made, and whether another model
/// made any.
struct Tally {
    current: [i64; 3],
    stale: bool,
}

impl Tally {
    fn of(conn: &Connection, model: &Model) -> Result<Tally> {
        let mut tally = Tally {
            current: [0; 3],
            stale: false,
        };
        // Grouped by kind, the primary key's order: one pass, no sort.
        let mut stmt = conn.prepare_cached(
            "SELECT kind, sum(model = ?1), sum(model != ?1) FROM record_vectors GROUP BY kind",
        )?;
        let mut rows = stmt.query([model.id()])?;
        while let Some(row) = rows.next()? {
            let (kind, current, other): (i64, i64, i64) = (row.get(0)?, row.get(1)?, row.get(2)?);
            match usize::try_from(kind) {
                Ok(k) if k < 3 => tally.current[k] = current,
                _ => {}
            }
            tally.stale |= other > 0;
        }
        Ok(tally)
    }

    /// Whether every record of `kind` has a vector, told by counting: deleting or rewriting a
    /// record deletes its vector (the schema's triggers), so there is never a vector without its
    /// record, and equal counts mean none is missing. Counting reads an index; looking for the
    /// missing ones reads every record's text (at 100,000 observations, 90 ms for each `cmem
    /// search` process).
    fn complete(&self, conn: &Connection, kind: Kind) -> Result<bool> {
        let n: i64 = conn.query_row(
            &format!("SELECT count(*) FROM {}", super::records_table(kind)),
            [],
            |r| r.get(0),
        )?;
        Ok(n == self.current[code(kind) as usize])
    }
}

/// What `embed_missing` did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Embedded {
    pub records: usize,
}

/// Gives every record without a vector of `model` one. Vectors of another model are dropped
/// first. `full` looks at every record; otherwise only at records newer than the newest
/// vector of each kind (enough between searches of one process: older records lose their
/// vector only by a rewrite, which a full pass at start-up catches).
pub(crate) fn embed_missing(conn: &Connection, model: &Model, full: bool) -> Result<Embedded> {
    let mut done = Embedded::default();
    // Only a full pass looks at every vector: for another model's, and to count this model's.
    let tally = if full {
        Some(Tally::of(conn, model)?)
    } else {
        None
    };
    if tally.as_ref().is_some_and(|t| t.stale) {
        // Written only when there are some, so a search whose records all have a vector only
        // reads (`cmem search` runs while another process holds the write lock).
        conn.execute("DELETE FROM record_vectors WHERE model != ?1", [model.id()])?;
    }
    for kind in [Kind::Observation, Kind::Summary, Kind::Prompt] {
        if let Some(t) = &tally
            && t.complete(conn, kind)?
        {
            continue;
        }
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
            let written = batch.iter().try_for_each(|(id, project, text)| {
                // A text with no known word still gets a (zero) vector, so it is not retried.
                let vector = model
                    .embed(text)
                    .map(|v| Vector::quantise(&v))
                    .unwrap_or(Vector {
                        scale: 0.0,
                        values: vec![0; model.dims()],
                    });
                insert
                    .execute(params![
                        code(kind),
                        id,
                        project,
                        model.id(),
                        vector.to_bytes()
                    ])
                    .map(|_| ())
            });
            if let Err(e) = written {
                // The MCP server's connection lives on: it must not stay inside the savepoint
                // (its later reads would see an old snapshot). The insert's error is the one
                // to report, so a failing rollback adds nothing.
                let _ = conn.execute_batch("ROLLBACK TO embed; RELEASE embed");
                return Err(e.into());
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
pub(crate) fn nearest(
    conn: &Connection,
    model: &Model,
    query: &[f32],
    projects: &[String],
    kinds: &[Kind],
    limit: usize,
) -> Result<Vec<(Kind, i64, f32)>> {
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let key = conn.path().unwrap_or_default().to_string();
    let deletions: i64 = conn.query_row("SELECT n FROM vector_deletions", [], |r| r.get(0))?;
    let fresh = match cache.as_mut() {
        Some(c) if c.db == key && c.deletions == deletions && c.model == model.id() => c,
        _ => cache.insert(Cache::new(key, model, deletions)),
    };
    fresh.read_new(conn, model.id())?;
    mark("vector cache check and read");
    let query = Vector::quantise(query);
    let query_values = fresh.fit(&query.values);
    // Which kinds and projects are wanted, decided once per kind code and project id rather
    // than once per vector.
    let mut kind_wanted = [false; 3];
    for kind in kinds {
        kind_wanted[code(*kind) as usize] = true;
    }
    let wanted: Vec<String> = projects.iter().map(|p| p.to_lowercase()).collect();
    let project_wanted: Vec<bool> = fresh
        .project_names
        .iter()
        .map(|name| wanted.is_empty() || wanted.contains(name))
        .collect();
    let mut scored: Vec<(u8, i64, f32)> = Vec::with_capacity(fresh.ids.len());
    let rows = fresh
        .values
        .chunks_exact(fresh.dims.max(1))
        .zip(&fresh.kinds)
        .zip(&fresh.projects)
        .zip(&fresh.ids)
        .zip(&fresh.scales);
    for ((((values, kind), project), id), scale) in rows {
        if kind_wanted[usize::from(*kind)] && project_wanted[*project as usize] {
            let dot = dot_values(values, &query_values);
            scored.push((*kind, *id, scaled(dot, *scale, query.scale)));
        }
    }
    mark("vector scan");
    let by_score = |a: &(u8, i64, f32), b: &(u8, i64, f32)| {
        b.2.partial_cmp(&a.2).unwrap_or(std::cmp::Ordering::Equal)
    };
    if scored.len() > limit && limit > 0 {
        scored.select_nth_unstable_by(limit - 1, by_score);
        scored.truncate(limit);
    }
    scored.sort_by(by_score);
    let nearest = scored
        .into_iter()
        .filter_map(|(k, id, s)| Some((kind_of(i64::from(k))?, id, s)))
        .collect();
    mark("top k");
    Ok(nearest)
}

/// The vectors of one database, kept in memory by a process that searches it again and again
/// (the MCP server, the TUI): reading 100,000 vectors from SQLite costs more than comparing them.
///
/// One entry per index across the columns, and every vector's values in one buffer of `dims`
/// values each: a scan over 100,000 vectors then reads memory in order, compares a project by
/// its number, and leaves the loop to SIMD.
struct Cache {
    db: String,
    model: String,
    /// `vector_deletions` when the entries were read: any deletion since means a full reread.
    deletions: i64,
    /// The largest record id read, per kind.
    newest: [i64; 3],
    /// Values per vector: the model's dimensions.
    dims: usize,
    kinds: Vec<u8>,
    ids: Vec<i64>,
    /// Indexes into `project_names`.
    projects: Vec<u32>,
    scales: Vec<f32>,
    values: Vec<i8>,
    /// Each project read, lower-cased as project keys compare, once.
    project_names: Vec<String>,
    project_ids: std::collections::HashMap<String, u32>,
}

static CACHE: std::sync::Mutex<Option<Cache>> = std::sync::Mutex::new(None);

impl Cache {
    fn new(db: String, model: &Model, deletions: i64) -> Cache {
        Cache {
            db,
            model: model.id().to_string(),
            deletions,
            newest: [0; 3],
            dims: model.dims(),
            kinds: Vec::new(),
            ids: Vec::new(),
            projects: Vec::new(),
            scales: Vec::new(),
            values: Vec::new(),
            project_names: Vec::new(),
            project_ids: std::collections::HashMap::new(),
        }
    }

    /// `values` cut or padded with zeros to `dims`: a vector of another length compares as
    /// before (a dot product over the shorter length), in a buffer of equal strides.
    fn fit(&self, values: &[i8]) -> Vec<i8> {
        let mut fitted = values[..values.len().min(self.dims)].to_vec();
        fitted.resize(self.dims, 0);
        fitted
    }

    fn project_id(&mut self, project: &str) -> u32 {
        let key = project.to_lowercase();
        if let Some(id) = self.project_ids.get(&key) {
            return *id;
        }
        let id = self.project_names.len() as u32;
        self.project_names.push(key.clone());
        self.project_ids.insert(key, id);
        id
    }

    /// Reads the vectors added since the last read.
    fn read_new(&mut self, conn: &Connection, model_id: &str) -> Result<()> {
        let mut stmt = conn.prepare_cached(
            "SELECT record_id, project, vector FROM record_vectors
             WHERE kind = ?1 AND record_id > ?2 AND model = ?3 ORDER BY record_id",
        )?;
        for kind in 0..3u8 {
            let mut rows = stmt.query(params![
                i64::from(kind),
                self.newest[kind as usize],
                model_id
            ])?;
            while let Some(row) = rows.next()? {
                let id: i64 = row.get(0)?;
                self.newest[kind as usize] = self.newest[kind as usize].max(id);
                let bytes = row.get_ref(2)?.as_blob().unwrap_or_default();
                let Some((scale, values)) = bytes.split_at_checked(4) else {
                    continue; // no vector (as `Vector::from_bytes` reads one)
                };
                let project = self.project_id(row.get_ref(1)?.as_str()?);
                self.kinds.push(kind);
                self.ids.push(id);
                self.projects.push(project);
                self.scales
                    .push(f32::from_le_bytes(scale.try_into().unwrap_or([0, 0, 0, 0])));
                // Cut or padded to `dims`, as `fit` does.
                let start = self.values.len();
                self.values
                    .extend(values.iter().take(self.dims).map(|b| *b as i8));
                self.values.resize(start + self.dims, 0);
            }
        }
        Ok(())
    }
}

/// How many records have a vector of the current model, of how many records in all.
pub(crate) fn coverage(conn: &Connection, model_id: &str) -> Result<(i64, i64)> {
    let with: i64 = conn.query_row(
        "SELECT count(*) FROM record_vectors WHERE model = ?1",
        [model_id],
        |r| r.get(0),
    )?;
    let all: i64 = conn.query_row(
        "SELECT (SELECT count(*) FROM observations) + (SELECT count(*) FROM session_summaries)
              + (SELECT count(*) FROM user_prompts)",
        [],
        |r| r.get(0),
    )?;
    Ok((with, all))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::observations::{NewObservation, insert};

    #[test]
    fn a_full_pass_finds_a_vector_missing_anywhere_and_skips_complete_kinds() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        for (i, title) in ["Pool leaked", "Token expired", "Cache stale"]
            .iter()
            .enumerate()
        {
            insert(
                c,
                &NewObservation::sample("p", "bugfix", title, i as i64 + 1),
            )
            .unwrap()
            .unwrap();
        }
        let model = crate::embed::load(std::path::Path::new("/nonexistent")).unwrap(); // built in
        assert_eq!(embed_missing(c, model, true).unwrap().records, 3);
        assert_eq!(embed_missing(c, model, true).unwrap().records, 0);
        // Not the newest: only a full pass, which counts, looks for it.
        c.execute(
            "DELETE FROM record_vectors WHERE kind = 0 AND record_id = 2",
            [],
        )
        .unwrap();
        assert_eq!(embed_missing(c, model, false).unwrap().records, 0);
        assert_eq!(embed_missing(c, model, true).unwrap().records, 1);
        // Another model's vector is dropped and its record embedded again.
        c.execute(
            "UPDATE record_vectors SET model = 'old' WHERE record_id = 3",
            [],
        )
        .unwrap();
        assert_eq!(embed_missing(c, model, true).unwrap().records, 1);
        let others: i64 = c
            .query_row(
                "SELECT count(*) FROM record_vectors WHERE model = 'old'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(others, 0);
    }

    #[test]
    fn a_failed_insert_leaves_no_transaction_open() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        insert(c, &NewObservation::sample("p", "bugfix", "Pool leaked", 1))
            .unwrap()
            .unwrap();
        c.execute_batch(
            "CREATE TEMP TRIGGER refuse BEFORE INSERT ON record_vectors
             BEGIN SELECT RAISE(ABORT, 'disk says no'); END;",
        )
        .unwrap();
        let model = crate::embed::load(std::path::Path::new("/nonexistent")).unwrap(); // built in
        let err = embed_missing(c, model, true).unwrap_err();
        assert!(format!("{err:#}").contains("disk says no"), "{err:#}");
        assert!(c.is_autocommit(), "the savepoint was left open");
        c.execute_batch("DROP TRIGGER refuse").unwrap();
        assert_eq!(embed_missing(c, model, true).unwrap().records, 1);
    }
}
