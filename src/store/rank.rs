//! `cmem_rank` and `cmem_cover`: FTS5 ranking functions that score every record kind on one
//! scale.
//!
//! Observations, summaries and prompts live in three FTS5 tables; FTS5's own `bm25` weighs each
//! word by its rarity *in that table*, so a summary (from a small table) and an observation
//! are scored on different scales, and it finds that rarity by walking the word's whole doclist
//! on every query. Here the caller passes each query term's inverse document frequency over
//! all three tables (computed once per query), so scores compare across kinds:
//! - `cmem_rank` is BM25 (k1 1.2, b 0.75): per term, the column-weighted term frequency,
//!   saturated and length-normalised, times the term's IDF, summed. Lower is better (negative),
//!   like `bm25`.
//! - `cmem_cover` is the share of the query's IDF mass a record contains (0 to 1): 1 when it
//!   holds every term, more when it holds the rare ones.
//!
//! SQL: `cmem_rank(fts_table, weight_col0, …, weight_colK-1, idf_term0, …, idf_termN-1)` with K
//! the table's column count and N the number of terms (FTS5 phrases) in the MATCH; missing or
//! non-numeric weights and IDFs are 1.0. `cmem_cover` takes the same arguments.

use std::ffi::c_int;
use std::ptr;

use anyhow::{Result, bail};
use rusqlite::Connection;
use rusqlite::ffi;

pub(crate) const RANK: &str = "cmem_rank";
pub(crate) const COVER: &str = "cmem_cover";
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Makes `cmem_rank` available on `conn` (a few microseconds; `Store` calls it when it opens a
/// connection). Registering again adds a newer copy that shadows the old one.
pub(crate) fn register(conn: &Connection) -> Result<()> {
    let api = super::fts5::api(conn)?;
    // SAFETY: `api` is the live FTS5 API of `conn` (see `fts5::api`).
    unsafe {
        let Some(create) = (*api).xCreateFunction else {
            bail!("this SQLite's FTS5 cannot register functions");
        };
        for (name, function) in [
            (c"cmem_rank", rank as Fts5Function),
            (c"cmem_cover", cover as Fts5Function),
        ] {
            let rc = create(api, name.as_ptr(), ptr::null_mut(), Some(function), None);
            if rc != ffi::SQLITE_OK {
                bail!("cannot register {} (code {rc})", name.to_string_lossy());
            }
        }
    }
    Ok(())
}

type Fts5Function = unsafe extern "C" fn(
    *const ffi::Fts5ExtensionApi,
    *mut ffi::Fts5Context,
    *mut ffi::sqlite3_context,
    c_int,
    *mut *mut ffi::sqlite3_value,
);

/// Numbers from the SQL arguments `from..from + count` (1.0 where missing or not a number).
///
/// # Safety
/// `values` must point to `n` valid `sqlite3_value` pointers.
unsafe fn numbers(
    n: c_int,
    values: *mut *mut ffi::sqlite3_value,
    from: usize,
    count: usize,
) -> Vec<f64> {
    (from..from + count)
        .map(|i| {
            if (i as c_int) >= n {
                return 1.0;
            }
            // SAFETY: i < n, as the caller guarantees for `values`.
            unsafe {
                let v = *values.add(i);
                match ffi::sqlite3_value_numeric_type(v) {
                    ffi::SQLITE_INTEGER | ffi::SQLITE_FLOAT => ffi::sqlite3_value_double(v),
                    _ => 1.0, // NULL or text: as if the weight were left out
                }
            }
        })
        .collect()
}

unsafe extern "C" fn rank(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: SQLite calls this with a valid API table and context for the current row.
    unsafe {
        respond(
            api,
            fts,
            ctx,
            n,
            values,
            |s| -s.bm25,
            c"cmem_rank: FTS5 API call failed",
        )
    }
}

unsafe extern "C" fn cover(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: as for `rank`.
    unsafe {
        respond(
            api,
            fts,
            ctx,
            n,
            values,
            |s| s.cover,
            c"cmem_cover: FTS5 API call failed",
        )
    }
}

/// Scores the current row and returns one figure of it to SQL (or an error).
///
/// # Safety
/// The arguments are those SQLite passed to an FTS5 auxiliary function for the current row.
unsafe fn respond(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n: c_int,
    values: *mut *mut ffi::sqlite3_value,
    figure: fn(&Scored) -> f64,
    error: &std::ffi::CStr,
) {
    // SAFETY: as the caller guarantees.
    unsafe {
        match score(&*api, fts, n, values) {
            Some(s) => ffi::sqlite3_result_double(ctx, figure(&s)),
            None => ffi::sqlite3_result_error(ctx, error.as_ptr(), -1),
        }
    }
}

struct Scored {
    bm25: f64,
    cover: f64,
}

/// # Safety
/// `api` and `fts` come from SQLite for the current row; `values` holds `n` values.
unsafe fn score(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    n: c_int,
    values: *mut *mut ffi::sqlite3_value,
) -> Option<Scored> {
    let ok = |rc: c_int| (rc == ffi::SQLITE_OK).then_some(());
    // SAFETY (whole body): every call passes the context SQLite gave us for this row.
    unsafe {
        let columns = (api.xColumnCount?)(fts).max(0) as usize;
        let phrases = (api.xPhraseCount?)(fts).max(0) as usize;
        let w = numbers(n, values, 0, columns);
        let idf = numbers(n, values, columns, phrases);
        let mut rows: i64 = 0;
        ok((api.xRowCount?)(fts, &mut rows))?;
        let mut total: i64 = 0;
        ok((api.xColumnTotalSize?)(fts, -1, &mut total))?;
        let mut len: c_int = 0;
        ok((api.xColumnSize?)(fts, -1, &mut len))?;
        let mut instances: c_int = 0;
        ok((api.xInstCount?)(fts, &mut instances))?;
        let mut freq = vec![0.0f64; phrases];
        for i in 0..instances {
            let (mut phrase, mut col, mut off) = (0, 0, 0);
            ok((api.xInst?)(fts, i, &mut phrase, &mut col, &mut off))?;
            if let (Some(f), Some(weight)) = (freq.get_mut(phrase as usize), w.get(col as usize)) {
                *f += weight;
            }
        }
        let avg = if rows > 0 {
            total as f64 / rows as f64
        } else {
            1.0
        };
        let norm = K1 * (1.0 - B + B * f64::from(len) / avg.max(1.0));
        let bm25: f64 = freq
            .iter()
            .zip(&idf)
            .map(|(f, idf)| idf * f * (K1 + 1.0) / (f + norm))
            .sum();
        let mass: f64 = idf.iter().sum();
        let held: f64 = freq
            .iter()
            .zip(&idf)
            .filter(|(f, _)| **f > 0.0)
            .map(|(_, idf)| idf)
            .sum();
        let cover = if mass > 0.0 { held / mass } else { 0.0 };
        Some(Scored { bm25, cover })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_more_and_shorter_matches_first() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        register(&conn).unwrap(); // again: the newer copy shadows the old
        conn.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(title, body);
             INSERT INTO t (rowid, title, body) VALUES
               (1, 'pool', 'the pool leaks a connection when the pool is closed'),
               (2, 'pool leak', 'connection'),
               (3, 'other', 'pool and connection, and a great many other words besides these');",
        )
        .unwrap();
        let order = |sql: &str| -> Vec<i64> {
            let mut s = conn.prepare(sql).unwrap();
            s.query_map([], |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        // Title weighted 10: the title matches win; the long body-only match is last.
        let ranked = order(
            "SELECT rowid FROM t WHERE t MATCH 'pool AND connection' ORDER BY cmem_rank(t, 10.0, 1.0)",
        );
        assert_eq!(ranked.last(), Some(&3));
        assert_eq!(ranked.len(), 3);
        // Without weights, more occurrences of the words rank first.
        let ranked = order("SELECT rowid FROM t WHERE t MATCH 'pool' ORDER BY cmem_rank(t)");
        assert_eq!(ranked[0], 1);
        let score: f64 = conn
            .query_row(
                "SELECT cmem_rank(t) FROM t WHERE t MATCH 'pool' AND rowid = 2",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(score < 0.0);
        // Cover: the share of the IDF mass a row holds (IDF 3 for "leak", 1 for "pool").
        let cover = |rowid: i64| -> f64 {
            conn.query_row(
                &format!(
                    "SELECT cmem_cover(t, 1.0, 1.0, 3.0, 1.0) FROM t WHERE t MATCH 'leak OR pool' AND rowid = {rowid}"
                ),
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(cover(2), 1.0); // "pool leak"
        assert_eq!(cover(3), 0.25); // only "pool"
    }
}
