//! Forgetting rows and scrubbing strings after the fact, so that nothing is left behind: the
//! full-text indexes are rebuilt, the database is vacuumed (no free pages keep old content)
//! and the WAL is checkpointed and truncated. A sync's pull, which must not hold hooks off the
//! database that long, erases in place instead (`erases_in_place`).

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, Transaction, params_from_iter};

use super::Store;
use super::fingerprint::Fingerprint;
use super::transfer::TABLES;

/// Which rows `forget` removes. Criteria combine with AND; at least one is required.
#[derive(Debug, Clone, Default)]
pub(crate) struct Selection {
    /// Observation ids (`123`), summary ids (`S12`) and prompt ids (`P7`), as the index and
    /// the browser show them. A prompt goes with its turn's raw tool uses.
    pub observation_ids: Vec<i64>,
    pub summary_ids: Vec<i64>,
    pub prompt_ids: Vec<i64>,
    pub projects: Vec<String>,
    /// A full-text query (FTS5 syntax) over observations, summaries and prompts.
    pub query: Option<String>,
    /// Only rows created before this instant (epoch ms).
    pub before_ms: Option<i64>,
}

impl Selection {
    pub(crate) fn is_empty(&self) -> bool {
        self.observation_ids.is_empty()
            && self.summary_ids.is_empty()
            && self.prompt_ids.is_empty()
            && self.projects.is_empty()
            && self.query.is_none()
            && self.before_ms.is_none()
    }

    fn by_id(&self) -> bool {
        !self.observation_ids.is_empty()
            || !self.summary_ids.is_empty()
            || !self.prompt_ids.is_empty()
    }

    /// Adds an id as the index shows it: `123`, `S12`, `P7` (also `#123`).
    pub(crate) fn add_id(&mut self, text: &str) -> Result<()> {
        let Some((kind, id)) = crate::model::Kind::parse_id(text) else {
            bail!(
                "{text:?} is not an id (123 for an observation, S12 for a summary, P7 for a prompt)"
            );
        };
        self.add(kind, id);
        Ok(())
    }

    pub(crate) fn add(&mut self, kind: crate::model::Kind, id: i64) {
        use crate::model::Kind;
        match kind {
            Kind::Observation => self.observation_ids.push(id),
            Kind::Summary => self.summary_ids.push(id),
            Kind::Prompt => self.prompt_ids.push(id),
        }
    }
}

/// Row counts per table.
pub(crate) type Counts = Vec<(&'static str, usize)>;

struct Where {
    sql: Vec<String>,
    args: Vec<rusqlite::types::Value>,
}

impl Where {
    fn new() -> Where {
        Where {
            sql: Vec::new(),
            args: Vec::new(),
        }
    }

    fn push(&mut self, clause: String, args: impl IntoIterator<Item = rusqlite::types::Value>) {
        self.sql.push(clause);
        self.args.extend(args);
    }

    /// `id IN (…)`; an empty list matches nothing.
    fn ids(&mut self, ids: &[i64]) {
        let args: Vec<rusqlite::types::Value> = if ids.is_empty() {
            vec![rusqlite::types::Value::Null]
        } else {
            ids.iter().map(|i| (*i).into()).collect()
        };
        self.push(format!("id IN ({})", marks(args.len())), args);
    }

    /// Rows whose full-text index matches `query`.
    fn matching(&mut self, fts: &str, query: &str) {
        self.push(
            format!("id IN (SELECT rowid FROM {fts} WHERE {fts} MATCH ?)"),
            [query.to_string().into()],
        );
    }

    fn text(&self) -> String {
        if self.sql.is_empty() {
            "1".into()
        } else {
            self.sql.join(" AND ")
        }
    }
}

fn marks(n: usize) -> String {
    vec!["?"; n].join(", ")
}

fn text_values(items: &[String]) -> Vec<rusqlite::types::Value> {
    items.iter().map(|s| s.clone().into()).collect()
}

/// The common filters of a table with `project` and `created_at_epoch` columns.
fn base(sel: &Selection, table: &str, time_col: &str, project_sql: &str) -> Where {
    let mut w = Where::new();
    if !sel.projects.is_empty() {
        w.push(
            project_sql.replace("{}", &marks(sel.projects.len())),
            text_values(&sel.projects),
        );
    }
    if let Some(before) = sel.before_ms {
        // Another device's row is as old as it is here: a clock that runs a year ahead would
        // find every row it pulled old, and forgetting them deletes them on every device.
        // Sync stamps each pulled row with its arrival by this device's clock.
        w.push(
            format!(
                "{time_col} < ? AND NOT EXISTS (SELECT 1 FROM sync_map m
                     WHERE m.tbl = '{table}' AND m.local_id = {table}.id AND m.arrived >= ?)"
            ),
            [before.into(), before.into()],
        );
    }
    w
}

/// The rows of one record kind a selection names: the common filters, its ids (when the
/// selection goes by id) and the full-text query over its index `fts`.
fn chosen(sel: &Selection, project_sql: &str, ids: &[i64], fts: &str) -> Where {
    let table = fts.trim_end_matches("_fts");
    let mut w = base(sel, table, "created_at_epoch", project_sql);
    if sel.by_id() {
        w.ids(ids);
    }
    if let Some(q) = &sel.query {
        w.matching(fts, q);
    }
    w
}

fn delete(tx: &Transaction, table: &str, w: &Where) -> Result<usize> {
    Ok(tx.execute(
        &format!("DELETE FROM {table} WHERE {}", w.text()),
        params_from_iter(w.args.iter()),
    )?)
}

fn forget_in(tx: &Transaction, sel: &Selection) -> Result<Counts> {
    let project = "project COLLATE NOCASE IN ({})";
    tx.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS forget_obs (id INTEGER PRIMARY KEY);
         CREATE TEMP TABLE IF NOT EXISTS forget_turns (session_id INTEGER, prompt_number INTEGER);
         DELETE FROM forget_obs; DELETE FROM forget_turns;",
    )?;

    // Observations (and, through their links, their raw tool uses).
    let obs = chosen(sel, project, &sel.observation_ids, "observations_fts");
    tx.execute(
        &format!(
            "INSERT INTO forget_obs SELECT id FROM observations WHERE {}",
            obs.text()
        ),
        params_from_iter(obs.args.iter()),
    )?;

    let mut counts: Counts = Vec::new();
    let summaries = chosen(sel, project, &sel.summary_ids, "session_summaries_fts");

    // Prompts: by id, or by project through their session.
    let prompts = chosen(
        sel,
        "session_id IN (SELECT id FROM sessions WHERE project COLLATE NOCASE IN ({}))",
        &sel.prompt_ids,
        "user_prompts_fts",
    );
    // A forgotten prompt takes its turn's raw tool uses with it.
    tx.execute(
        &format!(
            "INSERT INTO forget_turns SELECT session_id, prompt_number FROM user_prompts WHERE {}",
            prompts.text()
        ),
        params_from_iter(prompts.args.iter()),
    )?;

    let mut tools = Where::new();
    let linked = "observation_id IN (SELECT id FROM forget_obs)
         OR EXISTS (SELECT 1 FROM forget_turns f WHERE f.session_id = tool_uses.session_id
                    AND f.prompt_number = tool_uses.prompt_number)";
    if sel.by_id() || sel.query.is_some() {
        tools.push(format!("({linked})"), []);
    } else {
        let b = base(sel, "tool_uses", "created_at_epoch", project);
        tools.push(format!("(({}) OR {linked})", b.text()), b.args);
    }
    counts.push(("tool_uses", delete(tx, "tool_uses", &tools)?));
    counts.push((
        "observations",
        tx.execute(
            "DELETE FROM observations WHERE id IN (SELECT id FROM forget_obs)",
            [],
        )?,
    ));
    counts.push((
        "session_summaries",
        delete(tx, "session_summaries", &summaries)?,
    ));
    counts.push(("user_prompts", delete(tx, "user_prompts", &prompts)?));

    // Work state and sessions only go with a whole project or an age.
    let by_scope = !sel.by_id() && sel.query.is_none();
    let ws = if by_scope {
        delete(
            tx,
            "work_state_entries",
            &base(sel, "work_state_entries", "created_at_epoch", project),
        )?
    } else {
        0
    };
    counts.push(("work_state_entries", ws));
    let sessions = if by_scope {
        let mut s = base(sel, "sessions", "started_at_epoch", project);
        // An old session that still has rows stays (its newer rows point at it).
        s.push(
            "NOT EXISTS (SELECT 1 FROM user_prompts p WHERE p.session_id = sessions.id)
             AND NOT EXISTS (SELECT 1 FROM observations o WHERE o.session_id = sessions.id)
             AND NOT EXISTS (SELECT 1 FROM session_summaries m WHERE m.session_id = sessions.id)
             AND NOT EXISTS (SELECT 1 FROM tool_uses t WHERE t.session_id = sessions.id)"
                .into(),
            [],
        );
        delete(tx, "sessions", &s)?
    } else {
        0
    };
    counts.push(("sessions", sessions));
    counts.sort_by_key(|(t, _)| TABLES.iter().position(|x| x == t));
    Ok(counts)
}

/// Removes the selected rows. With `dry_run` nothing changes and the counts say what would go.
pub(crate) fn forget(store: &mut Store, sel: &Selection, dry_run: bool) -> Result<Counts> {
    if sel.is_empty() {
        bail!("say what to forget: ids, --project, --query or --older-than");
    }
    erase(store, dry_run, |tx| {
        forget_in(tx, sel)
            .context("cannot select what to forget (is the --query valid FTS5 syntax?)")
    })
}

/// Runs `change` in one write transaction with secure delete on. A dry run rolls it back; a
/// real one commits and then leaves no trace of the old text in the database files, or fails
/// saying why old text may remain.
fn erase<T>(
    store: &mut Store,
    dry_run: bool,
    change: impl FnOnce(&Transaction) -> Result<T>,
) -> Result<T> {
    store.conn.execute_batch("PRAGMA secure_delete = ON")?;
    let tx = store
        .conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .context("cannot lock the database")?;
    let out = change(&tx)?;
    if dry_run {
        tx.rollback()?;
        return Ok(out);
    }
    tx.commit()?;
    leave_no_trace(&store.conn)?;
    Ok(out)
}

/// After a scrub that sync applies from elsewhere, while hooks hold the database open: its rows
/// were rewritten and erased in place, so only the WAL needs emptying, and a WAL that another
/// process keeps is only a warning (the next checkpoint empties it).
fn clean_up_after_elsewhere(conn: &Connection) {
    let cleaned = match erases_in_place(conn) {
        Ok(true) => truncate_wal(conn, 50).map(|_| ()),
        Ok(false) => leave_no_trace(conn),
        Err(e) => Err(e),
    };
    if let Err(e) = cleaned {
        crate::logging::warn(format!(
            "a scrub from another device: old text may remain until the next checkpoint: {e:#}"
        ));
    }
}

/// Rebuilds the full-text indexes, vacuums and truncates the WAL, so removed text survives
/// nowhere in the database files.
pub(crate) fn leave_no_trace(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "INSERT INTO observations_fts (observations_fts) VALUES ('rebuild');
         INSERT INTO session_summaries_fts (session_summaries_fts) VALUES ('rebuild');
         INSERT INTO user_prompts_fts (user_prompts_fts) VALUES ('rebuild');",
    )
    .context("cannot rebuild the full-text indexes")?;
    conn.execute_batch("VACUUM")
        .context("cannot vacuum the database (is another process using it?)")?;
    let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
    if busy != 0 {
        bail!(
            "another process holds the database open; the WAL could not be emptied: close it and run again"
        );
    }
    Ok(())
}

const FTS_TABLES: [&str; 3] = [
    "observations_fts",
    "session_summaries_fts",
    "user_prompts_fts",
];

/// Whether deletions and rewrites erase the old text where it was: every connection zeroes
/// deleted rows and freed pages (`secure_delete`, set when the store opens), and each
/// full-text index drops a deleted row's entries from its pages at once instead of adding a
/// delete marker that leaves them there until a merge (FTS5's `secure-delete`, SQLite 3.44+,
/// stored in each index's config). Then a checkpoint that empties the WAL is all that removing
/// text needs: no index rebuild, no VACUUM, no long write lock that hooks would wait on.
///
/// False for a database made before cmem did this: its free space may still hold text deleted
/// or moved back then, which only one `leave_no_trace` removes.
pub(crate) fn erases_in_place(conn: &Connection) -> Result<bool> {
    for fts in FTS_TABLES {
        let on: Option<i64> = conn
            .query_row(
                &format!("SELECT v FROM {fts}_config WHERE k = 'secure-delete'"),
                [],
                |r| r.get(0),
            )
            .optional()
            .with_context(|| format!("cannot read the settings of {fts}"))?;
        if on != Some(1) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Turns on FTS5's `secure-delete` in every full-text index (see `erases_in_place`): for a new
/// database, or one `leave_no_trace` has just cleaned.
pub(crate) fn erase_in_place(conn: &Connection) -> Result<()> {
    for fts in FTS_TABLES {
        conn.execute(
            &format!("INSERT INTO {fts} ({fts}, rank) VALUES ('secure-delete', 1)"),
            [],
        )
        .with_context(|| format!("cannot turn on secure delete in {fts}"))?;
    }
    Ok(())
}

/// Empties the WAL into the database and truncates it (where the frames of deleted and
/// rewritten rows would otherwise linger), holding the write lock as briefly as it can, since
/// hooks wait behind it: the pages are copied first by a passive checkpoint, which takes no
/// write lock; the truncating one then holds it only while readers finish, and gives up after
/// a few milliseconds to try again a little later. Returns false when other processes kept it
/// from finishing every time.
pub(crate) fn truncate_wal(conn: &Connection, tries: u32) -> Result<bool> {
    use std::time::Duration;
    conn.busy_timeout(Duration::from_millis(5))?;
    let mut done = false;
    for n in 0..tries {
        if n > 0 {
            std::thread::sleep(Duration::from_millis(20));
        }
        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .context("cannot checkpoint the database")?;
        let busy: i64 = conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))
            .context("cannot checkpoint the database")?;
        if busy == 0 {
            done = true;
            break;
        }
    }
    conn.busy_timeout(super::BUSY_TIMEOUT)?;
    Ok(done)
}

/// What a scrub writes in place of the text unless told otherwise (`cmem scrub`, the browser).
pub(crate) const SCRUBBED: &str = "[SCRUBBED]";

/// The `sync_state` key listing the other replacements scrubs wrote here, one a line.
pub(crate) const MARKERS_KEY: &str = "scrub_markers";

/// What to scrub.
pub(crate) enum Pattern {
    Literal(String),
    Regex(regex::bytes::Regex),
    /// A scrub made on another device, known only by fingerprints (src/store/fingerprint.rs).
    Fingerprints(Vec<Fingerprint>),
}

impl Pattern {
    /// A regex with ASCII classes (`\d`, `\w`, `\s`), matched on bytes.
    pub(crate) fn regex(text: &str) -> Result<Pattern> {
        let re = regex::bytes::RegexBuilder::new(text)
            .unicode(false)
            .build()
            .with_context(|| format!("invalid regex {text:?}"))?;
        Ok(Pattern::Regex(re))
    }

    /// `text` with every match replaced; `None` when nothing matched.
    pub(crate) fn replace(&self, text: &str, with: &str) -> Option<String> {
        match self {
            Pattern::Literal(p) => {
                if p.is_empty() {
                    return None;
                }
                // Stored JSON holds the escaped form of strings with quotes or backslashes.
                let escaped = serde_json::to_string(p).unwrap_or_default();
                let escaped = &escaped[1..escaped.len().saturating_sub(1)];
                if !text.contains(p.as_str()) && !text.contains(escaped) {
                    return None;
                }
                Some(text.replace(p.as_str(), with).replace(escaped, with))
            }
            Pattern::Regex(re) => {
                if !re.is_match(text.as_bytes()) {
                    return None;
                }
                let out = re.replace_all(text.as_bytes(), with.as_bytes());
                Some(String::from_utf8_lossy(&out).into_owned())
            }
            Pattern::Fingerprints(fps) => {
                let mut out: Option<String> = None;
                for fp in fps {
                    if let Some(new) = fp.replace(out.as_deref().unwrap_or(text), with) {
                        out = Some(new);
                    }
                }
                out
            }
        }
    }

    /// The forms of a literal as stored (plain, and JSON-escaped where that differs).
    fn literal_forms(p: &str) -> Vec<String> {
        let escaped = serde_json::to_string(p).unwrap_or_default();
        let escaped = escaped[1..escaped.len().saturating_sub(1)].to_string();
        if escaped == p {
            vec![p.to_string()]
        } else {
            vec![p.to_string(), escaped]
        }
    }
}

/// Records a literal scrub as fingerprints for sync to send: every device re-applies it to
/// what it holds, and to what it pulls later from devices that had not heard of it. A regex
/// does not travel (its text may be the secret itself): only the rows it rewrote do.
fn record_for_sync(tx: &Transaction, pattern: &Pattern, with: &str) -> Result<()> {
    let Pattern::Literal(p) = pattern else {
        return Ok(());
    };
    if p.is_empty() {
        return Ok(());
    }
    for form in Pattern::literal_forms(p) {
        tx.execute(
            "INSERT INTO scrub_ops (fingerprint, replacement, device, at) VALUES (?1, ?2, NULL, ?3)",
            rusqlite::params![
                Fingerprint::of(&form)?.encode(),
                with,
                crate::clock::now_ms()
            ],
        )?;
    }
    Ok(())
}

/// Replaced rows per table and column.
pub(crate) type ScrubCounts = Vec<(String, String, usize)>;

fn text_columns(conn: &Connection, table: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({table})"))?;
    let cols = stmt
        .query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(cols
        .into_iter()
        .filter(|(_, ty)| ty.to_ascii_uppercase().contains("TEXT"))
        .map(|(c, _)| c)
        .collect())
}

/// Replaces `pattern` with `with` in every text column of every table.
pub(crate) fn scrub(
    store: &mut Store,
    pattern: &Pattern,
    with: &str,
    dry_run: bool,
) -> Result<ScrubCounts> {
    scrub_in(store, pattern, with, dry_run)
}

/// A scrub another device made, as sync brings it: re-applied to the rows of `projects` (the
/// ones shared here that its writer may see), never to anything else.
pub(crate) fn scrub_from_elsewhere(
    store: &mut Store,
    pattern: &Pattern,
    with: &str,
    projects: &[String],
) -> Result<ScrubCounts> {
    if projects.is_empty() {
        return Ok(Vec::new());
    }
    store.conn.execute_batch("PRAGMA secure_delete = ON")?;
    let hits = rows_holding(&store.conn, pattern, projects)?;
    let mut counts: ScrubCounts = Vec::new();
    let mut rest = &hits[..];
    while !rest.is_empty() {
        let done = rewrite_some(&mut store.conn, rest, pattern, with, &mut counts)?;
        rest = &rest[done..];
        // Between two transactions the write lock is free: a hook waiting on it gets in now.
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    remember_marker(&store.conn, with)?;
    if !counts.is_empty() {
        clean_up_after_elsewhere(&store.conn);
    }
    Ok(counts)
}

/// A scrub from another device rewrites rows in write transactions of at most this many rows
/// or this much work, so that a hook waiting on the write lock waits a few milliseconds, not
/// the whole scrub. (With FTS5's secure-delete, rewriting one indexed row of a 30 MB database
/// costs about 6 ms: the index pages that held its words are rewritten at once.)
const SCRUB_STEP_ROWS: usize = 100;
const SCRUB_STEP_TIME: std::time::Duration = std::time::Duration::from_millis(5);

/// One row's text column that holds the pattern.
struct Hit {
    table: &'static str,
    column: String,
    id: i64,
}

/// Every row in `projects` with a text column that holds `pattern`. A plain read: in WAL mode
/// it takes no write lock, so hooks keep writing while it runs.
fn rows_holding(conn: &Connection, pattern: &Pattern, projects: &[String]) -> Result<Vec<Hit>> {
    let mut hits = Vec::new();
    for table in TABLES {
        for column in text_columns(conn, table)? {
            let clause = super::jsonl::project_clause(table, projects.len());
            let mut stmt = conn.prepare(&format!(
                "SELECT id, \"{column}\" FROM {table} {clause} AND \"{column}\" IS NOT NULL"
            ))?;
            let mut rows = stmt.query(params_from_iter(projects))?;
            while let Some(r) = rows.next()? {
                let text: String = r.get(1)?;
                if pattern.replace(&text, "").is_some() {
                    hits.push(Hit {
                        table,
                        column: column.clone(),
                        id: r.get(0)?,
                    });
                }
            }
        }
    }
    Ok(hits)
}

/// Rewrites the first of `hits` in one short write transaction; returns how many it took.
/// Each row is read again inside it, so what a hook changed since the scan is kept and only the
/// pattern is replaced.
fn rewrite_some(
    conn: &mut Connection,
    hits: &[Hit],
    pattern: &Pattern,
    with: &str,
    counts: &mut ScrubCounts,
) -> Result<usize> {
    let started = std::time::Instant::now();
    let batch = &hits[..hits.len().min(SCRUB_STEP_ROWS)];
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .context("cannot lock the database")?;
    // The work state is append-only by trigger; scrubbing is the one rewrite allowed. Dropped
    // and restored inside the transaction, so no other connection sees it missing.
    let trigger = if batch.iter().any(|h| h.table == "work_state_entries") {
        append_only_trigger(&tx)?
    } else {
        None
    };
    if trigger.is_some() {
        tx.execute_batch("DROP TRIGGER work_state_entries_append_only")?;
    }
    let mut done = 0;
    for hit in batch {
        if done > 0 && started.elapsed() >= SCRUB_STEP_TIME {
            break;
        }
        done += 1;
        let text: Option<String> = tx
            .query_row(
                &format!("SELECT \"{}\" FROM {} WHERE id = ?1", hit.column, hit.table),
                [hit.id],
                |r| r.get(0),
            )
            .optional()?
            .flatten();
        let Some(new) = text.and_then(|t| pattern.replace(&t, with)) else {
            continue;
        };
        tx.execute(
            &format!(
                "UPDATE {} SET \"{}\" = ?1 WHERE id = ?2",
                hit.table, hit.column
            ),
            rusqlite::params![new, hit.id],
        )?;
        match counts
            .iter_mut()
            .find(|(t, c, _)| t == hit.table && *c == hit.column)
        {
            Some((_, _, n)) => *n += 1,
            None => counts.push((hit.table.to_string(), hit.column.clone(), 1)),
        }
    }
    if let Some(sql) = trigger {
        tx.execute_batch(&sql)?;
    }
    tx.commit()?;
    Ok(done)
}

fn append_only_trigger(conn: &Connection) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'work_state_entries_append_only'",
            [],
            |r| r.get(0),
        )
        .optional()?)
}

/// Sync's merge keeps a field's scrubbed parts by their replacement text: it must know every
/// replacement this data dir used (src/sync/merge.rs) other than the default one.
fn remember_marker(conn: &Connection, with: &str) -> Result<()> {
    if with == SCRUBBED || with.is_empty() || with.contains('\n') {
        return Ok(());
    }
    conn.execute(
        "INSERT INTO sync_state (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = CASE
             WHEN instr(char(10) || value || char(10), char(10) || ?2 || char(10)) > 0 THEN value
             ELSE value || char(10) || ?2 END",
        rusqlite::params![MARKERS_KEY, with],
    )?;
    Ok(())
}

fn scrub_in(
    store: &mut Store,
    pattern: &Pattern,
    with: &str,
    dry_run: bool,
) -> Result<ScrubCounts> {
    erase(store, dry_run, |tx| {
        let trigger = append_only_trigger(tx)?;
        if trigger.is_some() {
            tx.execute_batch("DROP TRIGGER work_state_entries_append_only")?;
        }
        let mut counts = Vec::new();
        for table in TABLES {
            for col in text_columns(tx, table)? {
                let mut changed: Vec<(i64, String)> = Vec::new();
                {
                    let mut stmt = tx.prepare(&format!(
                        "SELECT id, \"{col}\" FROM {table} WHERE \"{col}\" IS NOT NULL"
                    ))?;
                    let mut rows = stmt.query([])?;
                    while let Some(r) = rows.next()? {
                        let text: String = r.get(1)?;
                        if let Some(new) = pattern.replace(&text, with) {
                            changed.push((r.get(0)?, new));
                        }
                    }
                }
                for (id, new) in &changed {
                    tx.execute(
                        &format!("UPDATE {table} SET \"{col}\" = ?1 WHERE id = ?2"),
                        rusqlite::params![new, id],
                    )?;
                }
                if !changed.is_empty() {
                    counts.push((table.to_string(), col, changed.len()));
                }
            }
        }
        if let Some(sql) = trigger {
            tx.execute_batch(&sql)?;
        }
        // Pulled rows that wait for their parent (src/sync) hold captured text too.
        let kept: Vec<(String, String, i64, String)> = tx
            .prepare("SELECT tbl, device, remote_id, pulled FROM sync_pending")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut scrubbed = 0;
        for (tbl, device, remote, text) in kept {
            if let Some(new) = pattern.replace(&text, with) {
                tx.execute(
                    "UPDATE sync_pending SET pulled = ?1 WHERE tbl = ?2 AND device = ?3 AND remote_id = ?4",
                    rusqlite::params![new, tbl, device, remote],
                )?;
                scrubbed += 1;
            }
        }
        if scrubbed > 0 {
            counts.push(("sync_pending".to_string(), "pulled".to_string(), scrubbed));
        }
        record_for_sync(tx, pattern, with)?;
        remember_marker(tx, with)?;
        Ok(counts)
    })
}

/// Where `scrub_everywhere` replaced something: rows per table and column, and files.
pub(crate) struct ScrubReport {
    pub rows: ScrubCounts,
    pub files: Vec<std::path::PathBuf>,
}

/// `scrub` over the data dir's text files that can hold captured text (the spool, the rejected
/// spool and the log), then over the database. Files first: a database that cannot be emptied
/// of its WAL (another process holds it) fails the call after the files are already clean.
/// With `dry_run` nothing changes and the report says where the pattern occurs.
pub(crate) fn scrub_everywhere(
    store: &mut Store,
    data_dir: &std::path::Path,
    pattern: &Pattern,
    with: &str,
    dry_run: bool,
) -> Result<ScrubReport> {
    let mut files = Vec::new();
    {
        // Spool ingesters hold this lock while they apply and trim the spool; appenders lock
        // the file itself, which `scrub_file` does too.
        let _ingest = super::spool::lock_ingest(data_dir)?;
        for file in [
            crate::paths::spool_path(data_dir),
            data_dir.join("spool.rejected.jsonl"),
            crate::logging::log_file(data_dir),
        ] {
            if scrub_file(&file, pattern, with, dry_run)? {
                files.push(file);
            }
        }
    }
    let rows = scrub(store, pattern, with, dry_run)?;
    Ok(ScrubReport { rows, files })
}

/// Scrubs a text file in the data dir in place, under the file's lock (the one spool
/// appenders take); returns whether the pattern occurs (and, unless `dry_run`, was replaced).
pub(crate) fn scrub_file(
    path: &std::path::Path,
    pattern: &Pattern,
    with: &str,
    dry_run: bool,
) -> Result<bool> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let mut file = match std::fs::OpenOptions::new()
        .read(true)
        .write(!dry_run)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e).with_context(|| format!("cannot open {}", path.display())),
    };
    file.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    let result = (|| -> Result<bool> {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let text = String::from_utf8_lossy(&bytes);
        let Some(new) = pattern.replace(&text, with) else {
            return Ok(false);
        };
        if !dry_run {
            file.set_len(0)?;
            file.seek(SeekFrom::Start(0))?;
            file.write_all(new.as_bytes())?;
            file.flush()?;
        }
        Ok(true)
    })()
    .with_context(|| format!("cannot rewrite {}", path.display()));
    file.unlock()?;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the database file or its WAL holds `needle` (`grep -a`).
    fn on_disk(store: &Store, needle: &str) -> bool {
        let mut wal = store.path().as_os_str().to_os_string();
        wal.push("-wal");
        [store.path().to_path_buf(), std::path::PathBuf::from(wal)]
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .any(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
    }

    /// A deleted row leaves nothing in the files once the WAL is emptied, with neither an index
    /// rebuild nor a VACUUM; without FTS5's secure-delete (the control) the index keeps its words.
    #[test]
    fn erasing_in_place_leaves_no_word_of_a_deleted_row_in_the_full_text_index() {
        for fts_secure in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let mut store = Store::open(&dir.path().join("cmem.db")).unwrap();
            assert!(erases_in_place(&store.conn).unwrap(), "a new database does");
            if !fts_secure {
                for fts in FTS_TABLES {
                    store
                        .conn
                        .execute(
                            &format!("INSERT INTO {fts} ({fts}, rank) VALUES ('secure-delete', 0)"),
                            [],
                        )
                        .unwrap();
                }
                assert!(!erases_in_place(&store.conn).unwrap());
            }
            store
                .write(|tx| {
                    for i in 0..40 {
                        super::super::test_rows::observation(
                            tx,
                            None,
                            "change",
                            &format!("lantern mango {i}"),
                            i,
                        );
                    }
                    super::super::test_rows::observation(
                        tx,
                        None,
                        "change",
                        "quokkazebrafinch",
                        99,
                    );
                    Ok(())
                })
                .unwrap();
            assert!(truncate_wal(&store.conn, 1).unwrap());
            assert!(on_disk(&store, "quokkazebrafinch"), "stored first");
            store
                .conn
                .execute(
                    "DELETE FROM observations WHERE title = 'quokkazebrafinch'",
                    [],
                )
                .unwrap();
            assert!(truncate_wal(&store.conn, 1).unwrap());
            assert_eq!(
                on_disk(&store, "quokkazebrafinch"),
                !fts_secure,
                "FTS5 secure-delete {fts_secure}"
            );
        }
    }

    #[test]
    fn literal_patterns_also_match_their_json_escaped_form() {
        let p = Pattern::Literal("pa\"ss".into());
        assert_eq!(
            p.replace(r#"{"x":"pa\"ss"}"#, "[S]").as_deref(),
            Some(r#"{"x":"[S]"}"#)
        );
        assert_eq!(p.replace("nothing", "[S]"), None);
        let r = Pattern::regex(r"tok_\d+").unwrap();
        assert_eq!(r.replace("a tok_123 b", "[S]").as_deref(), Some("a [S] b"));
    }
}
