//! Full-text search over observations, summaries and prompts (FTS5), with filters.
//!
//! One ranking on one scale: any record holding any of the query's terms is a candidate
//! (`search::query` turns user text into quoted terms, never FTS5 syntax); every kind is scored by
//! BM25 with each term's rarity counted over all three tables, and records holding all (or
//! the rare) terms get a strong boost, never a filter. Only a last word typed to the end of the
//! query, with no exact match anywhere, is searched as a prefix.

use anyhow::Result;
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, params_from_iter};

use super::terms::{MOST_TERMS, Term, Terms};
use super::timeline::{observation_row, prompt_row, summary_row};
use super::{observations, prompts, summaries};
use crate::model::{IndexRow, Kind, ObsType};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Order {
    #[default]
    Relevance,
    DateDesc,
    DateAsc,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Query {
    /// Free text; `None` lists by date with the filters only.
    pub text: Option<String>,
    /// Project keys (case-insensitive); empty = every project.
    pub projects: Vec<String>,
    /// Kinds to search; empty = all three.
    pub kinds: Vec<Kind>,
    /// Observation types; when set, only observations are returned.
    pub obs_types: Vec<String>,
    /// Observation concepts; when set, only observations are returned.
    pub concepts: Vec<String>,
    /// Path fragments matched against files read/modified (observations, summaries).
    pub files: Vec<String>,
    pub date_start: Option<i64>,
    pub date_end: Option<i64>,
    pub limit: usize,
    pub offset: usize,
    pub order: Order,
    /// Whether to rank by meaning too (the face that asks decides; off by default).
    pub meaning: crate::store::meaning::Meaning,
}

impl Query {
    /// Narrows the query to a record kind (`observations`, `summaries` or `sessions`,
    /// `prompts`) or to an observation type (`bugfix`, `decision`, …), as the `search` tool's
    /// and `cmem search`'s type names them; the error says what is accepted.
    pub(crate) fn of_type(mut self, name: &str) -> Result<Query, String> {
        match name {
            "observations" => self.kinds = vec![Kind::Observation],
            "sessions" | "summaries" => self.kinds = vec![Kind::Summary],
            "prompts" => self.kinds = vec![Kind::Prompt],
            t if ObsType::parse(t).is_some() => self.obs_types.push(t.to_string()),
            t => {
                return Err(format!(
                    "type must be observations, sessions, prompts or an observation type, not {t:?}."
                ));
            }
        }
        Ok(self)
    }
}

/// A search result: the row plus its relevance (`cmem_rank` or bm25, lower is better; 0
/// without text).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hit {
    pub row: IndexRow,
    pub rank: f64,
    /// The share of the query's term weight (IDF) the record holds: 1 when it holds every
    /// term, 0 when only its meaning matched or the search had no text.
    pub cover: f64,
}

struct Sql {
    clauses: Vec<String>,
    args: Vec<SqlValue>,
}

impl Sql {
    fn new() -> Sql {
        Sql {
            clauses: Vec::new(),
            args: Vec::new(),
        }
    }

    fn add(&mut self, clause: String, args: impl IntoIterator<Item = SqlValue>) {
        self.clauses.push(clause);
        self.args.extend(args);
    }

    fn marks(n: usize) -> String {
        vec!["?"; n].join(",")
    }

    fn where_sql(&self) -> String {
        if self.clauses.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", self.clauses.join(" AND "))
        }
    }
}

fn text_values(items: &[String]) -> Vec<SqlValue> {
    items.iter().map(|s| SqlValue::Text(s.clone())).collect()
}

fn common_filters(sql: &mut Sql, q: &Query, project_col: &str, time_col: &str) {
    if !q.projects.is_empty() {
        sql.add(
            format!(
                "{project_col} COLLATE NOCASE IN ({})",
                Sql::marks(q.projects.len())
            ),
            text_values(&q.projects),
        );
    }
    if let Some(start) = q.date_start {
        sql.add(format!("{time_col} >= ?"), [SqlValue::Integer(start)]);
    }
    if let Some(end) = q.date_end {
        sql.add(format!("{time_col} <= ?"), [SqlValue::Integer(end)]);
    }
}

fn file_filter(sql: &mut Sql, q: &Query, columns: &[&str]) {
    if q.files.is_empty() {
        return;
    }
    let mut ors = Vec::new();
    let mut args = Vec::new();
    for f in &q.files {
        for c in columns {
            ors.push(format!(
                "EXISTS (SELECT 1 FROM json_each({c}) WHERE value LIKE ? ESCAPE '\\')"
            ));
            let escaped = f
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            args.push(SqlValue::Text(format!("%{escaped}")));
        }
    }
    sql.add(format!("({})", ors.join(" OR ")), args);
}

pub(crate) fn wants(q: &Query, kind: Kind) -> bool {
    let by_kind = q.kinds.is_empty() || q.kinds.contains(&kind);
    let obs_only = !q.obs_types.is_empty() || !q.concepts.is_empty();
    let files_ok = q.files.is_empty() || kind != Kind::Prompt;
    by_kind && files_ok && (!obs_only || kind == Kind::Observation)
}

/// Matches are ranked in windows of this many, newest first. A query so common that it
/// matches more records than this is ranked among the most recent ones first: ranking reads
/// a size record and the positions of every match, so relevance work stays bounded (the size
/// is a speed choice; its timing is in docs/search-ranking.md), and recent memory is the more
/// likely answer anyway. (Column filters in the MATCH would cost more.)
pub(crate) const RANK_WINDOW: usize = 350;
/// At most this many windows are read before giving up on finding `limit` rows of the
/// requested projects.
const MAX_WINDOWS: usize = 10;

struct Table {
    /// The table of the records and its FTS5 index.
    rows: &'static str,
    fts: &'static str,
    weights: &'static str,
}

fn table(kind: Kind) -> Table {
    match kind {
        Kind::Observation => Table {
            rows: super::records_table(Kind::Observation),
            fts: "observations_fts",
            // title, subtitle, narrative, facts, concepts, files read, files modified. A path
            // says where the work happened, not what it was: its words count as a concept's
            // (weighing them more lost recall; docs/search-ranking.md).
            weights: "10.0, 4.0, 2.0, 2.0, 1.0, 1.0, 1.0",
        },
        Kind::Summary => Table {
            rows: super::records_table(Kind::Summary),
            fts: "session_summaries_fts",
            weights: "3.0, 1.0, 1.5, 3.0, 0.5, 1.0",
        },
        Kind::Prompt => Table {
            rows: super::records_table(Kind::Prompt),
            fts: "user_prompts_fts",
            // A prompt is the user's words for the work, as a paraphrase is: matching best, it
            // names its session (`search::work::best`). 2 is where the development set
            // peaked (the sweep is in docs/search-ranking.md).
            weights: "2.0",
        },
    }
}

/// The SQL of the full rows of `kind` and the column of its time and project.
fn select_rows(kind: Kind) -> (String, &'static str, &'static str, &'static str) {
    match kind {
        Kind::Observation => (
            format!(
                "SELECT o.{} FROM observations o",
                observations::COLUMNS.replace(", ", ", o.")
            ),
            "o.id",
            "o.project",
            "o.created_at_epoch",
        ),
        Kind::Summary => (
            format!(
                "SELECT s.{} FROM session_summaries s",
                summaries::COLUMNS.replace(", ", ", s.")
            ),
            "s.id",
            "s.project",
            "s.created_at_epoch",
        ),
        Kind::Prompt => (
            format!("SELECT {} FROM {}", prompts::COLUMNS, prompts::FROM),
            "up.id",
            "s.project",
            "up.created_at_epoch",
        ),
    }
}

fn row_of(kind: Kind, r: &rusqlite::Row) -> rusqlite::Result<IndexRow> {
    Ok(match kind {
        Kind::Observation => observation_row(&observations::from_row(r)?),
        Kind::Summary => summary_row(&summaries::from_row(r)?),
        Kind::Prompt => prompt_row(&prompts::from_row(r)?),
    })
}

/// The filters other than text, on the full rows.
fn row_filters(sql: &mut Sql, q: &Query, kind: Kind, project_col: &str, time_col: &str) {
    common_filters(sql, q, project_col, time_col);
    match kind {
        Kind::Observation => {
            if !q.obs_types.is_empty() {
                // As stored (`bugfix`), however a caller wrote it (`Bugfix`, `security-alert`).
                let stored: Vec<String> = q
                    .obs_types
                    .iter()
                    .map(|t| ObsType::parse(t).map_or_else(|| t.clone(), |o| o.id().to_string()))
                    .collect();
                sql.add(
                    format!("o.type IN ({})", Sql::marks(stored.len())),
                    text_values(&stored),
                );
            }
            if !q.concepts.is_empty() {
                sql.add(
                    format!(
                        "EXISTS (SELECT 1 FROM json_each(o.concepts) WHERE value IN ({}))",
                        Sql::marks(q.concepts.len())
                    ),
                    text_values(&q.concepts),
                );
            }
            file_filter(sql, q, &["o.files_read", "o.files_modified"]);
        }
        Kind::Summary => file_filter(sql, q, &["s.files_read", "s.files_edited"]),
        Kind::Prompt => {}
    }
}

/// Text search of one kind: score a window of the newest matches in FTS5, then read the full
/// rows of the best ones (with the project and other filters) until `limit + offset` are found.
/// A window of the newest any-term matches is always read; when it is full (a common query),
/// so is a window of the newest records holding every term, so older complete matches stay
/// candidates.
fn search_text(conn: &Connection, q: &Query, kind: Kind, plan: &Plan) -> Result<Vec<Hit>> {
    let t = table(kind);
    let args = format!("{}, {}", t.fts, t.weights) + &plan.idf_args();
    let mut window = conn.prepare_cached(&format!(
        "SELECT rowid, {rank}({args}), {cover}({args}) FROM {fts} WHERE {fts} MATCH ?1 AND rowid < ?2
         ORDER BY rowid DESC LIMIT {RANK_WINDOW}",
        rank = super::rank::RANK,
        cover = super::rank::COVER,
        fts = t.fts,
    ))?;
    let want = q.limit + q.offset;
    let mut hits: Vec<Hit> = Vec::new();
    let mut seen: std::collections::HashSet<i64> = std::collections::HashSet::new();
    let mut read = |expr: &str, before: i64| -> Result<Vec<(i64, f64, f64)>> {
        let rows = window
            .query_map(rusqlite::params![expr, before], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, f64>(1)?,
                    r.get::<_, f64>(2)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows
            .into_iter()
            .map(|(id, bm25, cover)| (id, plan.score(-bm25, cover), cover))
            .collect())
    };
    let mut before = i64::MAX;
    for _ in 0..MAX_WINDOWS {
        let mut candidates = read(&plan.any, before)?;
        let Some(oldest) = candidates.iter().map(|c| c.0).min() else {
            break;
        };
        let full_window = candidates.len() == RANK_WINDOW;
        if full_window && let Some(all) = &plan.all {
            candidates.extend(read(all, before)?.into_iter().filter(|c| c.0 < oldest));
        }
        before = oldest;
        candidates.retain(|c| seen.insert(c.0));
        candidates.sort_by(|a, b| {
            b.1.partial_cmp(&a.1)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(b.0.cmp(&a.0))
        });
        for chunk in candidates.chunks(want.max(50)) {
            let ids: Vec<i64> = chunk.iter().map(|c| c.0).collect();
            let rows = rows_by_ids(conn, q, kind, &ids)?;
            for (id, score, cover) in chunk {
                if let Some(row) = rows.iter().find(|r| r.id == *id) {
                    hits.push(Hit {
                        row: row.clone(),
                        rank: -score,
                        cover: *cover,
                    });
                }
            }
            if hits.len() >= want {
                break;
            }
        }
        if hits.len() >= want || !full_window {
            break;
        }
    }
    Ok(hits)
}

/// The text the full-text index holds for `ids` (of one kind), every column joined: what a
/// literal check of a query's identifier reads.
pub(crate) fn indexed_texts(
    conn: &Connection,
    kind: Kind,
    ids: &[i64],
) -> Result<std::collections::HashMap<i64, String>> {
    let mut out = std::collections::HashMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let fts = table(kind).fts;
    let mut stmt = conn.prepare(&format!(
        "SELECT rowid, * FROM {fts} WHERE rowid IN ({})",
        Sql::marks(ids.len())
    ))?;
    let columns = stmt.column_count();
    let mut rows = stmt.query(rusqlite::params_from_iter(ids.iter()))?;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let mut text = String::new();
        for c in 1..columns {
            if let Ok(Some(t)) = r.get::<_, Option<String>>(c) {
                text.push_str(&t);
                text.push('\n');
            }
        }
        out.insert(id, text);
    }
    Ok(out)
}

/// The full rows of `ids` (of one kind) that pass the query's filters other than text.
pub(crate) fn rows_by_ids(
    conn: &Connection,
    q: &Query,
    kind: Kind,
    ids: &[i64],
) -> Result<Vec<IndexRow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let (select, id_col, project_col, time_col) = select_rows(kind);
    let mut sql = Sql::new();
    sql.add(
        format!("{id_col} IN ({})", Sql::marks(ids.len())),
        ids.iter().map(|id| SqlValue::Integer(*id)),
    );
    // The rows are already chosen by id: `+` keeps SQLite from walking the project or time
    // index instead of looking up these few ids.
    row_filters(
        &mut sql,
        q,
        kind,
        &format!("+{project_col}"),
        &format!("+{time_col}"),
    );
    let mut stmt = conn.prepare(&format!("{select} {}", sql.where_sql()))?;
    let rows = stmt
        .query_map(params_from_iter(sql.args.iter()), |r| row_of(kind, r))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// How one text query is searched: its FTS5 expressions and each term's weight.
pub(crate) struct Plan {
    /// Any term matches: the candidates.
    any: String,
    /// Every term matches (`None` for a single term): older complete matches.
    all: Option<String>,
    /// Each term's inverse document frequency over all record kinds, in expression order.
    idf: Vec<f64>,
    /// Some term of the query is in some record.
    known: bool,
}

/// How much holding the query's terms counts beside how often and where: a record with every
/// term gets as much again as the IDF mass of the query, so complete matches rank first unless
/// an incomplete one is far stronger on the rare terms.
const COVER_BOOST: f64 = 1.0;

impl Plan {
    pub(crate) fn new(conn: &Connection, q: &Query, terms: &Terms) -> Result<Plan> {
        let kinds: Vec<Kind> = [Kind::Observation, Kind::Summary, Kind::Prompt]
            .into_iter()
            .filter(|k| wants(q, *k))
            .collect();
        let sizes: Vec<(Kind, i64)> = kinds
            .iter()
            .map(|k| Ok((*k, records(conn, *k)?)))
            .collect::<Result<_>>()?;
        let total: f64 = sizes.iter().map(|(_, n)| *n as f64).sum();
        let mut exprs = Vec::new();
        let mut idf = Vec::new();
        let mut known = false;
        let last = terms.terms.len().saturating_sub(1);
        for (i, term) in terms.terms.iter().enumerate() {
            let mut expr = term.fts(false);
            let mut df = matching(conn, &sizes, &expr)?;
            if df == 0.0 && i == last && terms.last_may_be_partial {
                expr = term.fts(true);
                df = matching(conn, &sizes, &expr)?;
            }
            // An identifier no record holds as written (`orders.customer_id`) may still be
            // what a record says in other words (`the customer_id column of orders`): its
            // parts are asked for one by one, and holding them all is a complete match.
            let parts: Vec<(String, f64)> = match term {
                Term::Phrase(words) if df == 0.0 => {
                    let mut out = Vec::with_capacity(words.len());
                    for w in words {
                        if exprs.len() + out.len() >= MOST_TERMS {
                            break;
                        }
                        let e = Term::Word(w.clone()).fts(false);
                        // A part asked for once, however many identifiers hold it.
                        if !out.iter().any(|(x, _): &(String, f64)| *x == e) && !exprs.contains(&e)
                        {
                            let d = matching(conn, &sizes, &e)?;
                            out.push((e, d));
                        }
                    }
                    out
                }
                _ => vec![(expr, df)],
            };
            for (expr, df) in parts {
                // An identifier of many parts asked for by them (`a_b_c_…`) counts against
                // the same bound as a query's terms.
                if exprs.len() == MOST_TERMS {
                    break;
                }
                known |= df > 0.0;
                let n = total.max(df);
                idf.push((1.0 + (n - df + 0.5) / (df + 0.5)).ln());
                exprs.push(expr);
            }
        }
        Ok(Plan {
            any: exprs.join(" OR "),
            all: (exprs.len() > 1).then(|| exprs.join(" AND ")),
            idf,
            known,
        })
    }

    /// Whether any term of the query is in any record: a query none of whose words memory has
    /// ever held is about something it has not seen.
    pub(crate) fn knows_a_word(&self) -> bool {
        self.known
    }

    fn idf_args(&self) -> String {
        self.idf.iter().map(|x| format!(", {x:.6}")).collect()
    }

    /// A candidate's score (higher is better) from its BM25 and the share of IDF it holds.
    fn score(&self, bm25: f64, cover: f64) -> f64 {
        let mass: f64 = self.idf.iter().sum();
        bm25 + COVER_BOOST * cover * cover * mass
    }
}

/// How many records of `kind` there are (the largest id: deletions only make rare words look
/// a little rarer, and reading it costs one b-tree descent).
fn records(conn: &Connection, kind: Kind) -> Result<i64> {
    Ok(conn.query_row(
        &format!("SELECT coalesce(max(id), 0) FROM {}", table(kind).rows),
        [],
        |r| r.get(0),
    )?)
}

/// Up to this many of a term's newest matches are counted; past it, how far back they reach
/// tells how common the term is.
const COUNTED_MATCHES: i64 = 2000;

/// How many records of these kinds (each with its size: the largest id) an FTS5 expression
/// matches: exact up to `COUNTED_MATCHES` in a kind, estimated past it from the share of the
/// newest records that hold the newest matches. Counting every match of a common word reads
/// its whole list (at 1,000,000 observations, 17 ms for a word in half of them), and the IDF
/// of a common word changes little with the exact count.
fn matching(conn: &Connection, sizes: &[(Kind, i64)], expr: &str) -> Result<f64> {
    let mut n = 0.0;
    for (kind, size) in sizes {
        let fts = table(*kind).fts;
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT count(*), min(rowid) FROM (SELECT rowid FROM {fts} WHERE {fts} MATCH ?1
             ORDER BY rowid DESC LIMIT {COUNTED_MATCHES})"
        ))?;
        let (counted, oldest) = stmt.query_row([expr], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
        })?;
        n += match oldest {
            Some(oldest) if counted == COUNTED_MATCHES => {
                let reach = (size - oldest + 1).max(counted);
                counted as f64 * *size as f64 / reach as f64
            }
            _ => counted as f64,
        };
    }
    Ok(n)
}

/// Filter-only listing (no text): newest or oldest first.
fn search_rows(conn: &Connection, q: &Query, kind: Kind) -> Result<Vec<Hit>> {
    let (select, _, project_col, time_col) = select_rows(kind);
    let mut sql = Sql::new();
    row_filters(&mut sql, q, kind, project_col, time_col);
    let dir = if q.order == Order::DateAsc {
        "ASC"
    } else {
        "DESC"
    };
    let statement = format!(
        "{select} {} ORDER BY {time_col} {dir} LIMIT {}",
        sql.where_sql(),
        q.limit + q.offset
    );
    let mut stmt = conn.prepare(&statement)?;
    let rows = stmt.query_map(params_from_iter(sql.args.iter()), |r| {
        Ok(Hit {
            row: row_of(kind, r)?,
            rank: 0.0,
            cover: 0.0,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Relevance order: the better (lower) rank first, the newer record on a tie.
pub(crate) fn best_first(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    a.rank
        .partial_cmp(&b.rank)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(b.row.created_at.cmp(&a.row.created_at))
}

pub(crate) fn run(conn: &Connection, q: &Query, plan: Option<&Plan>) -> Result<Vec<Hit>> {
    let mut hits = Vec::new();
    for kind in [Kind::Observation, Kind::Summary, Kind::Prompt] {
        if wants(q, kind) {
            hits.extend(match plan {
                Some(p) => search_text(conn, q, kind, p)?,
                None => search_rows(conn, q, kind)?,
            });
        }
    }
    match (q.order, plan.is_some()) {
        (Order::Relevance, true) => hits.sort_by(best_first),
        (Order::DateAsc, _) => hits.sort_by_key(|h| (h.row.created_at, h.row.kind, h.row.id)),
        _ => hits.sort_by_key(|h| std::cmp::Reverse((h.row.created_at, h.row.kind, h.row.id))),
    }
    Ok(hits.into_iter().skip(q.offset).take(q.limit).collect())
}

/// At most this many observations of one turn are read as its piece of work.
const TURN_RECORDS: usize = 20;

/// The observations of the turn of `session` that holds the moment `at`, in the order they were
/// made: those after the session's last summary before `at` and up to its first summary at or
/// after `at` (a summary closes the turn it follows). The work a summary tells is these.
pub(crate) fn turn_records(
    conn: &Connection,
    session: i64,
    project: &str,
    at: i64,
) -> Result<Vec<IndexRow>> {
    let (select, _, _, _) = select_rows(Kind::Observation);
    let mut stmt = conn.prepare_cached(&format!(
        "{select} WHERE o.session_id = ?1 AND o.project = ?2 COLLATE NOCASE
           AND o.created_at_epoch > coalesce((SELECT max(created_at_epoch) FROM session_summaries
                 WHERE session_id = ?1 AND created_at_epoch < ?3), -1)
           AND o.created_at_epoch <= coalesce((SELECT min(created_at_epoch) FROM session_summaries
                 WHERE session_id = ?1 AND created_at_epoch >= ?3), 9223372036854775807)
         ORDER BY o.created_at_epoch, o.id LIMIT {TURN_RECORDS}"
    ))?;
    let rows = stmt
        .query_map(rusqlite::params![session, project, at], |r| {
            row_of(Kind::Observation, r)
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

#[cfg(test)]
mod document_frequency {
    use super::*;
    use crate::store::Store;
    use crate::store::test_rows;

    #[test]
    fn a_rare_word_is_counted_and_a_common_one_estimated_from_its_newest_matches() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        c.execute_batch("BEGIN").unwrap();
        for i in 0..6000 {
            let mut title = format!("record {i}");
            if i % 2 == 0 {
                title.push_str(" common");
            }
            if i % 60 == 0 {
                title.push_str(" rare");
            }
            test_rows::observation(c, None, "change", &title, i);
        }
        c.execute_batch("COMMIT").unwrap();
        let sizes = [(Kind::Observation, records(c, Kind::Observation).unwrap())];
        assert_eq!(matching(c, &sizes, "\"rare\"").unwrap(), 100.0);
        let common = matching(c, &sizes, "\"common\"").unwrap();
        assert!((2900.0..=3100.0).contains(&common), "{common}");
        assert_eq!(matching(c, &sizes, "\"absent\"").unwrap(), 0.0);
    }
}
