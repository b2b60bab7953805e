//! `cmem_rank`: an FTS5 ranking function for queries where every word must match.
//!
//! FTS5's `bm25` weighs each word by its inverse document frequency, and finds that frequency
//! by walking the word's whole doclist on the first row of every query. In a large memory the
//! words agents search for ("test", "fix", "pool") sit in tens of thousands of records, so
//! that walk costs more than ranking the rows. When every word must match, every candidate
//! holds every word and the IDF only shifts weight between them, so `cmem_rank` drops it:
//! per row it is bm25's saturated, length-normalised, column-weighted term frequency (k1 1.2,
//! b 0.75), summed over the words. The any-word retry, where rare words must count for more,
//! keeps `bm25`. Like `bm25`, lower is better (scores are negative).
//!
//! SQL: `cmem_rank(fts_table, weight_col0, weight_col1, …)`; missing (or non-numeric) weights
//! are 1.0.

use std::ffi::{c_int, c_void};
use std::ptr;

use anyhow::{Result, bail};
use rusqlite::Connection;
use rusqlite::ffi;

pub const FUNCTION: &str = "cmem_rank";
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Makes `cmem_rank` available on `conn` (a few microseconds; `Store` calls it when it opens a
/// connection). Registering again adds a newer copy that shadows the old one.
pub fn register(conn: &Connection) -> Result<()> {
    // SAFETY: `handle` is the live connection `conn` owns; the statement is finalized before
    // returning; `api` is written by SQLite during the step and used only while `conn` lives.
    unsafe {
        let db = conn.handle();
        let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut stmt,
            ptr::null_mut(),
        );
        if rc != ffi::SQLITE_OK {
            bail!("this SQLite has no FTS5 (cannot prepare SELECT fts5(?1): code {rc})");
        }
        let mut api: *mut ffi::fts5_api = ptr::null_mut();
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
        if api.is_null() {
            bail!("this SQLite has no FTS5 API pointer");
        }
        let Some(create) = (*api).xCreateFunction else {
            bail!("this SQLite's FTS5 cannot register functions");
        };
        let rc = create(
            api,
            c"cmem_rank".as_ptr(),
            ptr::null_mut(),
            Some(rank),
            None,
        );
        if rc != ffi::SQLITE_OK {
            bail!("cannot register {FUNCTION} (code {rc})");
        }
    }
    Ok(())
}

/// Column weights from the SQL arguments.
///
/// # Safety
/// `values` must point to `n` valid `sqlite3_value` pointers.
unsafe fn weights(n: c_int, values: *mut *mut ffi::sqlite3_value, columns: usize) -> Vec<f64> {
    (0..columns)
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
    match unsafe { score(&*api, fts, n, values) } {
        Some(s) => unsafe { ffi::sqlite3_result_double(ctx, s) },
        None => unsafe {
            ffi::sqlite3_result_error(ctx, c"cmem_rank: FTS5 API call failed".as_ptr(), -1)
        },
    }
}

/// # Safety
/// `api` and `fts` come from SQLite for the current row; `values` holds `n` values.
unsafe fn score(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    n: c_int,
    values: *mut *mut ffi::sqlite3_value,
) -> Option<f64> {
    let ok = |rc: c_int| (rc == ffi::SQLITE_OK).then_some(());
    // SAFETY (whole body): every call passes the context SQLite gave us for this row.
    unsafe {
        let columns = (api.xColumnCount?)(fts).max(0) as usize;
        let phrases = (api.xPhraseCount?)(fts).max(0) as usize;
        let w = weights(n, values, columns);
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
        let sum: f64 = freq.iter().map(|f| f * (K1 + 1.0) / (f + norm)).sum();
        Some(-sum)
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
    }
}
