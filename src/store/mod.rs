//! The SQLite store: open with the right pragmas, migrate, and the table families.
//!
//! Many short-lived processes (one per hook) share one file, so: WAL, `synchronous=NORMAL`,
//! a busy timeout of 5 s (or, in hooks, a busy handler bounded by the hook's deadline), writes
//! in `BEGIN IMMEDIATE` transactions, and migrations that re-check the schema version inside
//! their own write transaction so concurrent first runs are safe.

pub mod browse;
pub(crate) mod cjk;
pub mod claude_mem;
pub mod content_hash;
pub mod dropped;
pub mod file_states;
pub mod fingerprint;
pub mod forget;
mod fts5;
pub mod history_files;
pub mod ingest;
pub mod jsonl;
pub mod kept;
pub(crate) mod meaning;
mod migrations;
pub mod observations;
pub mod prompts;
pub mod quarantine;
pub mod rank;
pub mod search;
pub mod spool;
pub mod steps;
pub mod summaries;
pub mod sync_origin;
pub mod terms;
#[cfg(test)]
pub mod test_rows;
pub mod timeline;
pub mod todos;
mod tokenizer;
pub mod tool_uses;
pub mod transfer;
pub mod turns;
pub(crate) mod vector_cache;
pub mod vectors;
pub mod work_state;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};

pub use migrations::SCHEMA_VERSION;

pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a writer waits for a lock held by another process.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Wait {
    /// The normal 5 s busy timeout.
    Normal,
    /// Give up at this instant (hooks must answer within their deadline).
    Until(Instant),
}

pub struct Store {
    pub conn: Connection,
    path: PathBuf,
}

/// Each process is short-lived and usually alone, so SQLite's defaults cost three fsyncs per
/// hook: the last connection checkpoints and deletes the WAL on close, and the next writer
/// starts a new WAL with a synced header. Instead, closing never checkpoints and the WAL is
/// truncated only once it passes this size, which bounds what the next opener must read to
/// rebuild the WAL index.
const WAL_CHECKPOINT_BYTES: u64 = 1024 * 1024;

fn wal_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push("-wal");
    PathBuf::from(name)
}

/// Rows fetched with `IN (…)` put back in the order of `ids` (missing ones skipped).
fn in_order<T>(ids: &[i64], found: Vec<T>, id_of: fn(&T) -> i64) -> Vec<T> {
    let mut by_id: std::collections::HashMap<i64, T> =
        found.into_iter().map(|t| (id_of(&t), t)).collect();
    ids.iter().filter_map(|id| by_id.remove(id)).collect()
}

/// The table that holds records of `kind`.
pub(crate) fn records_table(kind: crate::model::Kind) -> &'static str {
    match kind {
        crate::model::Kind::Observation => "observations",
        crate::model::Kind::Summary => "session_summaries",
        crate::model::Kind::Prompt => "user_prompts",
    }
}

/// The rows with these ids, in the order asked (unknown ids are skipped). `select` ends with
/// the id column to match: `SELECT … FROM observations WHERE id`.
pub(crate) fn by_ids<T>(
    conn: &Connection,
    select: &str,
    ids: &[i64],
    from_row: fn(&rusqlite::Row) -> rusqlite::Result<T>,
    id_of: fn(&T) -> i64,
) -> Result<Vec<T>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks = vec!["?"; ids.len()].join(",");
    let mut stmt = conn.prepare(&format!("{select} IN ({marks})"))?;
    let found: Vec<T> = stmt
        .query_map(rusqlite::params_from_iter(ids), from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(in_order(ids, found, id_of))
}

/// Project keys without case-insensitive duplicates, in order.
pub(crate) fn distinct_keys(projects: &[String]) -> Vec<&String> {
    let mut out: Vec<&String> = Vec::new();
    for p in projects {
        if !out.iter().any(|k| k.eq_ignore_ascii_case(p)) {
            out.push(p);
        }
    }
    out
}

/// The newest `limit` rows of `select` (`SELECT … FROM table`) over several project keys: one
/// indexed query per key, merged newest first by `(time, id)`. An `IN (…)` over the keys would
/// make SQLite sort every matching row instead of walking the index.
pub(crate) fn newest_per_project<T>(
    conn: &Connection,
    select: &str,
    projects: &[String],
    limit: usize,
    from_row: fn(&rusqlite::Row) -> rusqlite::Result<T>,
    order: fn(&T) -> (i64, i64),
) -> Result<Vec<T>> {
    let mut stmt = conn.prepare_cached(&format!(
        "{select} WHERE project = ?1 COLLATE NOCASE
         ORDER BY created_at_epoch DESC, id DESC LIMIT ?2"
    ))?;
    let mut out = Vec::new();
    for p in distinct_keys(projects) {
        for row in stmt.query_map(rusqlite::params![p, limit as i64], from_row)? {
            out.push(row?);
        }
    }
    out.sort_by_key(|x| std::cmp::Reverse(order(x)));
    out.truncate(limit);
    Ok(out)
}

/// Configures SQLite for a process that opens one connection, touches a few dozen pages and
/// exits (a hook). Its defaults suit long-lived processes: every connection carves out ~120 KiB
/// of lookaside slots and the page cache a bulk block up front, both threaded into free lists
/// (so every page of them is faulted in), and memory statistics put a global mutex around
/// every allocation. Must run before SQLite is first used; later it changes nothing.
///
/// It stays a process-wide call, not a value a face hands down (as the parse budget is):
/// `sqlite3_config` sets SQLite's own global state, which every connection of the process
/// shares and no connection can carry, so the hook calls it first thing (`hook::run`).
pub(crate) fn configure_for_one_shot_process() {
    use rusqlite::ffi::{
        SQLITE_CONFIG_LOOKASIDE, SQLITE_CONFIG_MEMSTATUS, SQLITE_CONFIG_PAGECACHE, sqlite3_config,
    };
    let off: std::ffi::c_int = 0;
    // SAFETY: `sqlite3_config` is called with the argument types each option documents (ints,
    // and a null buffer for the page cache); it only returns SQLITE_MISUSE once SQLite is
    // initialized, which leaves the defaults.
    unsafe {
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, off);
        sqlite3_config(SQLITE_CONFIG_LOOKASIDE, off, off);
        sqlite3_config(
            SQLITE_CONFIG_PAGECACHE,
            std::ptr::null_mut::<std::ffi::c_void>(),
            off,
            off,
        );
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.checkpoint_if_large();
    }
}

/// The deadline of the process's deadline-bounded busy handler. A plain `fn` is all SQLite's
/// busy handler can hold, hence a process-wide value; only hooks set it.
static BUSY_DEADLINE: OnceLock<Instant> = OnceLock::new();

/// How often a waiting hook tries the lock again. Often: SQLite's locks queue no one, so a
/// waiter gets the lock only by trying inside a gap between the holder's transactions, and a
/// sync's pull leaves gaps of about 2 ms between transactions of about 5 (src/sync/mod.rs). A
/// try costs microseconds.
const BUSY_RETRY: Duration = Duration::from_millis(1);

fn deadline_busy_handler(_attempt: i32) -> bool {
    match BUSY_DEADLINE.get() {
        Some(deadline) if Instant::now() < *deadline => {
            let pause = BUSY_RETRY;
            std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
            true
        }
        _ => false,
    }
}

/// Makes cmem's ranking functions and tokenizer available on a connection opened elsewhere
/// (tests, tools): without them the full-text tables can be read, but not searched or written.
pub fn register_extensions(conn: &Connection) -> Result<()> {
    rank::register(conn)?;
    tokenizer::register(conn)
}

impl Store {
    /// Opens (creating the file and its directory if needed) and migrates.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_with(path, Wait::Normal)
    }

    pub(crate) fn open_with(path: &Path, wait: Wait) -> Result<Store> {
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the data dir {}", dir.display()))?;
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("cannot open the database {}", path.display()))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.configure(wait)?;
        store.migrate()?;
        Ok(store)
    }

    /// Opens an existing database without creating or migrating it (doctor, read-only tools).
    pub(crate) fn open_existing(path: &Path) -> Result<Store> {
        if !path.exists() {
            bail!(
                "no database at {} yet: it is created by the first hook or `cmem doctor --init`",
                path.display()
            );
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("cannot open the database {}", path.display()))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.configure(Wait::Normal)?;
        Ok(store)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&mut self, wait: Wait) -> Result<()> {
        match wait {
            Wait::Normal => self.conn.busy_timeout(BUSY_TIMEOUT)?,
            Wait::Until(deadline) => {
                let _ = BUSY_DEADLINE.set(deadline);
                self.conn.busy_handler(Some(deadline_busy_handler))?;
            }
        }
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .with_context(|| {
                format!(
                    "{} is not a readable SQLite database (is it corrupt? `cmem doctor` explains)",
                    self.path.display()
                )
            })?;
        if !mode.eq_ignore_ascii_case("wal") {
            let _: String = self
                .conn
                .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
                .context("cannot switch the database to WAL mode")?;
        }
        // `cache_size`: up to 64 MiB of pages stay in memory for a connection that lives long
        // (the MCP server, the browser): at 1,000,000 observations the full-text pages a search
        // reads do not fit SQLite's default 2 MiB, and rereading them took a sixth of its time.
        // A short process never reads enough to grow the cache (it is filled as pages are read).
        // `secure_delete`: whatever any process deletes or moves (a cell rewritten, a page
        // split, a full-text segment merged) is zeroed where it was, so text that `cmem forget`,
        // `scrub` or a pulled forget or scrub removes has no stale copy in free space elsewhere
        // in the file, and a sync need not rewrite the whole file (see forget::erase_in_place).
        self.conn
            .execute_batch(
                "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA journal_size_limit=4194304; PRAGMA secure_delete=ON; PRAGMA cache_size=-65536;",
            )
            .context("cannot set the database pragmas")?;
        // See `Drop`: closing must not checkpoint every time.
        self.conn
            .set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )
            .context("cannot configure the database connection")?;
        self.conn
            .execute_batch("PRAGMA wal_autocheckpoint=0")
            .context("cannot configure checkpoints")?;
        // Once per connection: FTS5 keeps every registration, so per query would grow a list.
        register_extensions(&self.conn)?;
        Ok(())
    }

    pub(crate) fn schema_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    fn migrate(&self) -> Result<()> {
        migrations::migrate(&self.conn, &self.path)
    }

    /// Runs `f` in a `BEGIN IMMEDIATE` transaction (the write lock is taken up front, so two
    /// writers never deadlock upgrading read locks).
    pub(crate) fn write<T>(
        &mut self,
        f: impl FnOnce(&rusqlite::Transaction) -> Result<T>,
    ) -> Result<T> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("cannot start a write transaction (database locked?)")?;
        let out = f(&tx)?;
        tx.commit().context("cannot commit the write transaction")?;
        Ok(out)
    }

    /// Folds the whole WAL back into the database now (bulk writers call this when done).
    pub(crate) fn checkpoint(&self) -> Result<()> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .context("cannot checkpoint the database")
    }

    /// Folds the WAL back into the database once it has grown past `WAL_CHECKPOINT_BYTES`.
    fn checkpoint_if_large(&self) {
        let wal = wal_path(&self.path);
        let big = std::fs::metadata(&wal).is_ok_and(|m| m.len() > WAL_CHECKPOINT_BYTES);
        if big {
            // Never wait long for a reader here: the next process will try again.
            let _ = self.conn.busy_timeout(Duration::from_millis(20));
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }

    /// Row counts of the main tables, for `cmem doctor` and tests.
    pub(crate) fn table_counts(&self) -> Result<Vec<(&'static str, i64)>> {
        transfer::TABLES
            .iter()
            .map(|t| {
                let n: i64 = self
                    .conn
                    .query_row(&format!("SELECT COUNT(*) FROM {t}"), [], |r| r.get(0))
                    .with_context(|| format!("cannot count rows of {t}"))?;
                Ok((*t, n))
            })
            .collect()
    }
}
