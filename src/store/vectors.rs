//! Record vectors for semantic search: embed what has none yet, and find the records nearest
//! in meaning to a query.
//!
//! Vectors are derived from the records' text and kept in `record_vectors` (schema v4); the
//! triggers there drop a record's vector when the record is deleted or its text rewritten, so
//! `forget` and `scrub` leave no vector of removed text behind. Embedding happens in the
//! processes that search (never in hooks): before a semantic search, every record without a
//! vector of the current model gets one (10,000 short records take well under a second).

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

use super::steps::mark;
use std::sync::Mutex;

use super::vector_cache::{self, Ask, Cache};
use crate::embed::{Encoder, Vector};
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

/// The text of each record kind that carries its meaning, as SQL over the record's row `o`:
/// the columns read (id, project, text) and the tables.
fn record_text(kind: Kind) -> (&'static str, &'static str) {
    match kind {
        Kind::Observation => (
            "o.id AS id, o.project AS project, concat_ws(' ', o.title, o.subtitle, o.narrative, o.facts) AS text",
            "observations o",
        ),
        Kind::Summary => (
            "o.id AS id, o.project AS project, concat_ws(' ', o.request, o.completed, o.learned, o.investigated, o.next_steps, o.notes) AS text",
            "session_summaries o",
        ),
        Kind::Prompt => (
            "o.id AS id, s.project AS project, o.prompt_text AS text",
            "user_prompts o JOIN sessions s ON s.id = o.session_id",
        ),
    }
}

/// The records of `kind` without a vector past a cursor (`?1`), at most `?2`: oldest first
/// after it, or newest first before it.
fn missing_sql(kind: Kind, newest_first: bool) -> String {
    let (select, from) = record_text(kind);
    let (past, order) = if newest_first {
        ("<", "DESC")
    } else {
        (">", "ASC")
    };
    format!(
        "SELECT {select} FROM {from}
         WHERE o.id {past} ?1 AND NOT EXISTS
           (SELECT 1 FROM record_vectors v WHERE v.kind = {} AND v.record_id = o.id)
         ORDER BY o.id {order} LIMIT ?2",
        code(kind)
    )
}

/// Stores a vector only while its record still holds the text it was made from: a record
/// deleted or rewritten (`forget`, `scrub`) while a backfill embedded it gets no vector.
fn insert_if_unchanged_sql(kind: Kind) -> String {
    let (select, from) = record_text(kind);
    format!(
        "INSERT OR REPLACE INTO record_vectors (kind, record_id, project, model, vector, script)
         SELECT {code}, id, project, ?2, ?3, ?5 FROM (SELECT {select} FROM {from} WHERE o.id = ?1) AS r
         WHERE r.text IS ?4",
        code = code(kind)
    )
}

/// One read of every vector: how many of each kind `model` made, and whether another model
/// made any.
struct Tally {
    current: [i64; 3],
    stale: bool,
}

impl Tally {
    fn of(conn: &Connection, model: &Encoder) -> Result<Tally> {
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

/// Records read at a time by `embed_missing`.
const INLINE_BATCH: i64 = 2000;

/// Gives every record without a vector of `model` one. Vectors of another model are dropped
/// first. `full` looks at every record; otherwise only at records newer than the newest
/// vector of each kind (enough between searches of one process: older records lose their
/// vector only by a rewrite, which a full pass at start-up catches).
pub(crate) fn embed_missing(conn: &Connection, model: &Encoder, full: bool) -> Result<Embedded> {
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
        let mut select = conn.prepare_cached(&missing_sql(kind, false))?;
        let mut insert = conn.prepare_cached(
            "INSERT OR REPLACE INTO record_vectors (kind, record_id, project, model, vector, script)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        loop {
            let batch: Vec<(i64, String, String)> = select
                .query_map(params![after, INLINE_BATCH], |r| {
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
                    .passage(text)
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
                        vector.to_bytes(),
                        script(text)
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

/// The `script` column of a record's vector: 1 when its text is mostly CJK.
fn script(text: &str) -> u8 {
    u8::from(super::cjk::mostly_cjk(text))
}

/// A record's vector as it is stored, with the text it was made from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stored {
    pub model: String,
    pub bytes: Vec<u8>,
    /// The record's text now, which is the text the vector was made from: rewriting the text
    /// deletes the vector (the schema's triggers), and a backfill stores one only while the
    /// text it embedded is still there.
    pub text: Option<String>,
}

/// Record `id` of `kind`'s vector, when it has one (of any model).
pub(crate) fn stored(conn: &Connection, kind: Kind, id: i64) -> Result<Option<Stored>> {
    let (select, from) = record_text(kind);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT v.model, v.vector, r.text FROM (SELECT {select} FROM {from} WHERE o.id = ?1) AS r
         JOIN record_vectors v ON v.kind = {} AND v.record_id = r.id",
        code(kind)
    ))?;
    Ok(stmt
        .query_row([id], |r| {
            Ok(Stored {
                model: r.get(0)?,
                bytes: r.get(1)?,
                text: r.get(2)?,
            })
        })
        .optional()?)
}

/// The text of record `id` of `kind` that its vector is made from; `None` when the record is
/// not here.
pub(crate) fn text_of(conn: &Connection, kind: Kind, id: i64) -> Result<Option<Option<String>>> {
    let (select, from) = record_text(kind);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT r.text FROM (SELECT {select} FROM {from} WHERE o.id = ?1) AS r"
    ))?;
    Ok(stmt.query_row([id], |r| r.get(0)).optional()?)
}

/// Stores a vector made elsewhere (another device's, which sync brought) for record `id` of
/// `kind`, only while the record holds `text`, the text it was made from, and only when the
/// record has no vector yet. True when it was stored.
pub(crate) fn keep(
    conn: &Connection,
    kind: Kind,
    id: i64,
    model: &str,
    bytes: &[u8],
    text: Option<&str>,
) -> Result<bool> {
    let (select, from) = record_text(kind);
    let mut stmt = conn.prepare_cached(&format!(
        "INSERT INTO record_vectors (kind, record_id, project, model, vector, script)
         SELECT {code}, id, project, ?2, ?3, ?5 FROM (SELECT {select} FROM {from} WHERE o.id = ?1) AS r
         WHERE r.text IS ?4
         ON CONFLICT (kind, record_id) DO NOTHING",
        code = code(kind)
    ))?;
    let n = stmt.execute(params![id, model, bytes, text, script(text.unwrap_or(""))])?;
    Ok(n == 1)
}

/// How many records wait for a vector of `model_id` (`cmem doctor`, `cmem model`).
pub(crate) fn waiting(conn: &Connection, model_id: &str) -> Result<i64> {
    let (with, all) = coverage(conn, model_id)?;
    Ok((all - with).max(0))
}

/// Records embedded by one `backfill` call at a time: a batch is one short write, so an
/// interrupted backfill loses at most a batch and hooks wait at most a few milliseconds.
const BACKFILL_BATCH: usize = 16;

/// Gives every record without a vector of `model` one, newest first (the records a search is
/// most likely to want), a batch at a time, each batch committed on its own: interrupted, it
/// resumes where it stopped. `threads` records are embedded at once. `progress` hears how many
/// are done after each batch and may stop the pass by answering `false`. Vectors of another
/// model are dropped first.
pub(crate) fn backfill(
    conn: &Connection,
    model: &Encoder,
    threads: usize,
    progress: &mut dyn FnMut(usize) -> bool,
) -> Result<usize> {
    conn.execute("DELETE FROM record_vectors WHERE model != ?1", [model.id()])?;
    let mut done = 0;
    for kind in [Kind::Observation, Kind::Summary, Kind::Prompt] {
        let mut before = i64::MAX;
        loop {
            let batch: Vec<(i64, String, Option<String>)> = conn
                .prepare_cached(&missing_sql(kind, true))?
                .query_map(params![before, BACKFILL_BATCH as i64], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })?
                .collect::<rusqlite::Result<_>>()?;
            let Some(oldest) = batch.last().map(|b| b.0) else {
                break;
            };
            let texts: Vec<&str> = batch.iter().map(|b| b.2.as_deref().unwrap_or("")).collect();
            let vectors = passages(model, &texts, threads);
            let tx = conn.unchecked_transaction()?;
            {
                let mut insert = tx.prepare_cached(&insert_if_unchanged_sql(kind))?;
                for ((id, _, text), vector) in batch.iter().zip(&vectors) {
                    insert.execute(params![
                        id,
                        model.id(),
                        vector.to_bytes(),
                        text,
                        script(text.as_deref().unwrap_or(""))
                    ])?;
                }
            }
            tx.commit()?;
            done += batch.len();
            before = oldest;
            if !progress(done) {
                return Ok(done);
            }
        }
    }
    Ok(done)
}

/// The vectors of `texts` as passages, `threads` at a time; a text the model reads nothing in
/// gets a zero vector, so it is not retried.
fn passages(model: &Encoder, texts: &[&str], threads: usize) -> Vec<Vector> {
    let one = |text: &str| {
        model
            .passage(text)
            .map(|v| Vector::quantise(&v))
            .unwrap_or(Vector {
                scale: 0.0,
                values: vec![0; model.dims()],
            })
    };
    let threads = threads.clamp(1, texts.len().max(1));
    if threads == 1 {
        return texts.iter().map(|t| one(t)).collect();
    }
    // Every `threads`-th text to each thread: neighbours are alike in length.
    let mut out: Vec<Option<Vector>> = vec![None; texts.len()];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let one = &one;
                scope.spawn(move || {
                    texts
                        .iter()
                        .enumerate()
                        .skip(t)
                        .step_by(threads)
                        .map(|(i, text)| (i, one(text)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            // A thread that panicked leaves its texts to the serial pass below.
            if let Ok(done) = handle.join() {
                for (i, v) in done {
                    out[i] = Some(v);
                }
            }
        }
    });
    out.into_iter()
        .zip(texts)
        .map(|(v, text)| v.unwrap_or_else(|| one(text)))
        .collect()
}

/// A record near a query in meaning.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Near {
    pub kind: Kind,
    pub id: i64,
    /// The centred cosine (see `nearest`).
    pub score: f32,
    /// Whether the record is mostly in a CJK script.
    pub cjk: bool,
}

/// The `limit` records of `kinds` in `projects` (all when empty) nearest to `query`, best
/// first, with their cosine similarity once each vector (the query's too) is centred on the
/// mean of its script: a multilingual model puts every text of one language nearer to the
/// others of that language than to any of another, which is a direction the language adds,
/// not the meaning; taken out, a Chinese question finds the English record that answers it
/// (the Chinese tuning set's questions asked of English records: 0.000 → 0.542, recall@3 of
/// the vectors alone). `shortlist`: compare in full only this share of the vectors whose signs
/// are closest, at any size (`cmem dev vector-recall`); `None` as searches do
/// (`vector_cache::shortlist_size`).
#[allow(clippy::too_many_arguments)] // the query, its scope, the face's model and vectors
pub(crate) fn nearest(
    conn: &Connection,
    model: &Encoder,
    cache: &Mutex<Option<Cache>>,
    query: &[f32],
    query_cjk: bool,
    projects: &[String],
    kinds: &[Kind],
    limit: usize,
    shortlist: Option<usize>,
) -> Result<Vec<Near>> {
    let mut kind_wanted = [false; 3];
    for kind in kinds {
        kind_wanted[code(*kind) as usize] = true;
    }
    let ask = Ask {
        query,
        query_cjk,
        kinds: kind_wanted,
        projects,
        limit,
        shortlist,
    };
    let mut scored = vector_cache::with(conn, model, cache, |cache| cache.nearest(&ask))?;
    scored.sort_by(|a, b| b.2.partial_cmp(&a.2).unwrap_or(std::cmp::Ordering::Equal));
    let nearest = scored
        .into_iter()
        .filter_map(|(k, id, score, script)| {
            Some(Near {
                kind: kind_of(i64::from(k))?,
                id,
                score,
                cjk: script == 1,
            })
        })
        .collect();
    mark("top k");
    Ok(nearest)
}

/// Gives every record without a vector a synthetic one under `model_id`: pseudo-random unit
/// vectors of `dims` values, reproducible from `seed` (`cmem dev generate --synthetic-vectors`).
/// They mean nothing; they let a speed run of hybrid search over a million records happen
/// without embedding them (about a day at the model's rate on this machine).
pub(crate) fn synthetic(
    conn: &Connection,
    model_id: &str,
    dims: usize,
    seed: u64,
) -> Result<usize> {
    let mut made = 0;
    let tx = conn.unchecked_transaction()?;
    for kind in [Kind::Observation, Kind::Summary, Kind::Prompt] {
        let mut read = tx.prepare(&missing_sql(kind, false))?;
        let records: Vec<(i64, String, u8)> = read
            .query_map(params![0, i64::MAX], |r| {
                let text: Option<String> = r.get(2)?;
                Ok((r.get(0)?, r.get(1)?, script(text.as_deref().unwrap_or(""))))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let mut insert = tx.prepare(
            "INSERT INTO record_vectors (kind, record_id, project, model, vector, script)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for (id, project, script) in records {
            // xorshift64*, seeded per record: the same vectors for the same store and seed.
            let mut state =
                seed ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ code(kind) as u64;
            let mut values: Vec<f32> = (0..dims)
                .map(|_| {
                    state ^= state >> 12;
                    state ^= state << 25;
                    state ^= state >> 27;
                    let bits = state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
                    bits as f32 / (1u64 << 24) as f32 - 0.5
                })
                .collect();
            let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-6);
            values.iter_mut().for_each(|v| *v /= norm);
            let bytes = Vector::quantise(&values).to_bytes();
            insert.execute(params![code(kind), id, project, model_id, bytes, script])?;
            made += 1;
        }
    }
    tx.commit()?;
    Ok(made)
}

/// Whether any record has a vector of `model_id` (one row read: vectors of one model are all
/// there is, but for the moments after the model changed).
pub(crate) fn any(conn: &Connection, model_id: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM record_vectors WHERE model = ?1)")?
        .query_row([model_id], |r| r.get(0))?)
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

    /// A fresh store holding one observation ("Pool leaked"); keep the dir alive with it.
    fn store_with_one_observation() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        insert(
            &store.conn,
            &NewObservation::sample("p", "bugfix", "Pool leaked", 1),
        )
        .unwrap()
        .unwrap();
        (dir, store)
    }

    #[test]
    fn a_vector_goes_when_its_records_text_changes_not_when_it_is_rewritten_unchanged() {
        let (_dir, store) = store_with_one_observation();
        let c = &store.conn;
        let vectors = || -> i64 {
            c.query_row("SELECT COUNT(*) FROM record_vectors", [], |r| r.get(0))
                .unwrap()
        };
        c.execute(
            "INSERT INTO record_vectors (kind, record_id, project, model, vector) VALUES (0, 1, 'p', 'm', x'00')",
            [],
        )
        .unwrap();
        // A sync writes every column of a pulled revision, the same text included.
        c.execute(
            "UPDATE observations SET project = project, title = title, subtitle = subtitle, narrative = narrative, facts = facts WHERE id = 1",
            [],
        )
        .unwrap();
        assert_eq!(vectors(), 1, "an unchanged rewrite dropped the vector");
        c.execute(
            "UPDATE observations SET title = 'Pool fixed' WHERE id = 1",
            [],
        )
        .unwrap();
        assert_eq!(vectors(), 0, "a changed title kept a stale vector");
    }

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
        let model = &crate::embed::load(std::path::Path::new("/nonexistent")).unwrap(); // built in
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
    fn the_shortlist_by_signs_keeps_the_nearest_record() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        c.execute_batch("BEGIN").unwrap();
        for i in 0..3000 {
            // Two projects, interleaved: the cache keeps each one's entries apart.
            let project = if i % 2 == 0 { "p" } else { "Q" };
            insert(
                c,
                &NewObservation::sample(project, "change", &format!("record {i}"), i),
            )
            .unwrap()
            .unwrap();
        }
        c.execute_batch("COMMIT").unwrap();
        let model = &crate::embed::load(std::path::Path::new("/nonexistent")).unwrap(); // built in
        assert_eq!(synthetic(c, model.id(), model.dims(), 7).unwrap(), 3000);
        let cache = Mutex::new(None);
        let kinds = [Kind::Observation];
        for id in [1i64, 1500, 3000] {
            let bytes: Vec<u8> = c
                .query_row(
                    "SELECT vector FROM record_vectors WHERE kind = 0 AND record_id = ?1",
                    [id],
                    |r| r.get(0),
                )
                .unwrap();
            let v = Vector::from_bytes(&bytes).unwrap();
            let query: Vec<f32> = v.values.iter().map(|x| f32::from(*x) * v.scale).collect();
            // Record `id` is in project p when odd (ids start at 1, i at 0), else in q.
            let (own, other) = if id % 2 == 1 { ("P", "q") } else { ("q", "p") };
            for share in [None, Some(1), Some(100)] {
                let near =
                    nearest(c, model, &cache, &query, false, &[], &kinds, 10, share).unwrap();
                assert_eq!(near.len(), 10);
                assert_eq!(near[0].id, id, "share {share:?}");
                assert!(near[0].score > 0.99);
                let scoped = [own.to_string()];
                let near =
                    nearest(c, model, &cache, &query, false, &scoped, &kinds, 10, share).unwrap();
                assert_eq!(near[0].id, id, "in its project, share {share:?}");
                assert!(
                    near.iter().all(|n| n.id % 2 == id % 2),
                    "another project's record"
                );
                let elsewhere = [other.to_string()];
                let near = nearest(
                    c, model, &cache, &query, false, &elsewhere, &kinds, 10, share,
                )
                .unwrap();
                assert_eq!(near.len(), 10);
                assert!(near.iter().all(|n| n.id % 2 != id % 2), "{share:?}");
            }
            let summaries = [Kind::Summary];
            assert!(
                nearest(
                    c,
                    model,
                    &cache,
                    &query,
                    false,
                    &[],
                    &summaries,
                    10,
                    Some(100)
                )
                .unwrap()
                .is_empty()
            );
        }
    }

    #[test]
    fn a_failed_insert_leaves_no_transaction_open() {
        let (_dir, store) = store_with_one_observation();
        let c = &store.conn;
        c.execute_batch(
            "CREATE TEMP TRIGGER refuse BEFORE INSERT ON record_vectors
             BEGIN SELECT RAISE(ABORT, 'disk says no'); END;",
        )
        .unwrap();
        let model = &crate::embed::load(std::path::Path::new("/nonexistent")).unwrap(); // built in
        let err = embed_missing(c, model, true).unwrap_err();
        assert!(format!("{err:#}").contains("disk says no"), "{err:#}");
        assert!(c.is_autocommit(), "the savepoint was left open");
        c.execute_batch("DROP TRIGGER refuse").unwrap();
        assert_eq!(embed_missing(c, model, true).unwrap().records, 1);
    }
}
