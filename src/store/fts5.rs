//! The FTS5 extension API of a connection, through which cmem registers its ranking functions
//! (`rank.rs`) and its tokenizer (`tokenizer.rs`).

use std::ffi::c_void;
use std::ptr;

use anyhow::{Result, bail};
use rusqlite::Connection;
use rusqlite::ffi;

/// The `fts5_api` of `conn`'s SQLite. The pointer stays valid while `conn` is open.
pub(crate) fn api(conn: &Connection) -> Result<*mut ffi::fts5_api> {
    // SAFETY: `handle` is the live connection `conn` owns; the statement is finalized before
    // returning; SQLite writes `api` during the step (the documented way to get the pointer).
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
        Ok(api)
    }
}
