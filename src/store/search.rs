//! Full-text search over observations, summaries and prompts (FTS5), with filters.
//!
//! One ranking on one scale: any record holding any of the query's terms is a candidate
//! (`query` turns user text into quoted terms, never FTS5 syntax); every kind is scored by
//! BM25 with each term's rarity counted over all three tables, and records holding all (or
//! the rare) terms get a strong boost, never a filter. Only a last word typed to the end of the
//! query, with no exact match anywhere, is searched as a prefix.

use anyhow::Result;
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, params_from_iter};

use super::query::{self, Term, Terms};
use super::timeline::{observation_row, prompt_row, summary_row};
use super::{observations, prompts, steps, summaries};
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
    pub meaning: crate::embed::Meaning,
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

fn wants(q: &Query, kind: Kind) -> bool {
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
pub(crate) const RANK_WINDOW: usize = 500;
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
            // names its session (`disclosure::work::best`). 2 is where the development set
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

/// The full rows of `ids` (of one kind) that pass the query's filters other than text.
fn rows_by_ids(conn: &Connection, q: &Query, kind: Kind, ids: &[i64]) -> Result<Vec<IndexRow>> {
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
struct Plan {
    /// Any term matches: the candidates.
    any: String,
    /// Every term matches (`None` for a single term): older complete matches.
    all: Option<String>,
    /// Each term's inverse document frequency over all record kinds, in expression order.
    idf: Vec<f64>,
}

/// How much holding the query's terms counts beside how often and where: a record with every
/// term gets as much again as the IDF mass of the query, so complete matches rank first unless
/// an incomplete one is far stronger on the rare terms.
const COVER_BOOST: f64 = 1.0;

impl Plan {
    fn new(conn: &Connection, q: &Query, terms: &Terms) -> Result<Plan> {
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
        let last = terms.terms.len().saturating_sub(1);
        for (i, term) in terms.terms.iter().enumerate() {
            let mut expr = term.fts(false);
            let mut df = matching(conn, &sizes, &expr)?;
            if df == 0.0 && i == last && terms.last_may_be_partial {
                expr = term.fts(true);
                df = matching(conn, &sizes, &expr)?;
            }
            let n = total.max(df);
            idf.push((1.0 + (n - df + 0.5) / (df + 0.5)).ln());
            exprs.push(expr);
        }
        Ok(Plan {
            any: exprs.join(" OR "),
            all: (exprs.len() > 1).then(|| exprs.join(" AND ")),
            idf,
        })
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
fn best_first(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    a.rank
        .partial_cmp(&b.rank)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(b.row.created_at.cmp(&a.row.created_at))
}

fn run(conn: &Connection, q: &Query, plan: Option<&Plan>) -> Result<Vec<Hit>> {
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

/// Searches: with text, every record holding any of its terms, best first (fused with the
/// records nearest in meaning when the query's `meaning` is on); without, by date.
pub(crate) fn search(conn: &Connection, q: &Query) -> Result<Vec<Hit>> {
    search_with(conn, q, q.meaning.model())
}

/// `search` with the given model, or lexical only.
pub(crate) fn search_with(
    conn: &Connection,
    q: &Query,
    model: Option<&crate::embed::Encoder>,
) -> Result<Vec<Hit>> {
    let Some(text) = q.text.as_deref().filter(|t| !t.trim().is_empty()) else {
        return run(conn, q, None);
    };
    let terms = query::analyse(text);
    if terms.terms.is_empty() {
        return Ok(Vec::new()); // only punctuation: nothing can match
    }
    match model {
        // The query's embedding is most of a hybrid search's time: it is made on another core
        // while the words are searched.
        Some(model) if q.order == Order::Relevance => std::thread::scope(|scope| {
            let embedding = scope.spawn(|| model.query(text));
            let embedded = || {
                embedding.join().unwrap_or_else(|_| {
                    crate::logging::error("search: embedding the query failed; words only");
                    None
                })
            };
            ranked(conn, q, &terms, text, Some((model, Box::new(embedded))))
        }),
        _ => ranked(conn, q, &terms, text, None),
    }
}

/// The query's model, and its embedding when the search asks for it.
type Embedding<'a> = (
    &'a crate::embed::Encoder,
    Box<dyn FnOnce() -> Option<Vec<f32>> + 'a>,
);

/// A text search, best first (by date when the query asks).
fn ranked(
    conn: &Connection,
    q: &Query,
    terms: &Terms,
    text: &str,
    model: Option<Embedding<'_>>,
) -> Result<Vec<Hit>> {
    let plan = Plan::new(conn, q, terms)?;
    steps::mark("query plan");
    if q.order != Order::Relevance {
        return run(conn, q, Some(&plan));
    }
    let wide = Query {
        limit: (q.limit + q.offset).max(FUSION_POOL),
        offset: 0,
        ..q.clone()
    };
    let ranked = match model {
        Some((model, embedded)) => hybrid(conn, &wide, &plan, model, embedded, text)?,
        None => {
            let lexical = run(conn, &wide, Some(&plan))?;
            steps::mark("lexical search");
            lexical
        }
    };
    let ranked = with_session_summaries(ranked);
    let ranked = if asks_a_question(text) {
        for_a_question(ranked)
    } else {
        ranked
    };
    steps::mark("summaries and questions");
    Ok(ranked.into_iter().skip(q.offset).take(q.limit).collect())
}

/// How many of the best hits bring their session's summary along: the best one, whose session
/// is the piece of work the query is most likely about.
const SUMMARY_PULL: usize = 1;
/// Where a pulled summary ranks: just below the best record of its session.
const SUMMARY_SHARE: f64 = 0.9;

/// A session's summary tells the piece of work a matching record belongs to: when the best
/// hit's session summary is a candidate too, it ranks right after that hit (auto mode's
/// details then hold the fix and its summary, not two near-duplicates).
fn with_session_summaries(mut hits: Vec<Hit>) -> Vec<Hit> {
    let pulled: Vec<(i64, f64)> = hits
        .iter()
        .take(SUMMARY_PULL)
        .filter(|h| h.row.kind != Kind::Summary)
        .filter_map(|h| Some((h.row.session_id?, h.rank * SUMMARY_SHARE)))
        .collect();
    // Only a summary that is a candidate moves: one that holds nothing of the query is not
    // brought in from nowhere, as a session often holds more than one piece of work.
    for h in hits.iter_mut().filter(|h| h.row.kind == Kind::Summary) {
        if let Some(p) = pulled.iter().find(|p| Some(p.0) == h.row.session_id) {
            h.rank = h.rank.min(p.1);
        }
    }
    hits.sort_by(best_first);
    hits
}

/// How much more a record that answers (a bugfix's cause, a decision, a discovery) counts for a
/// question-shaped query: a question asks for a reason, a choice or a finding, while a summary or
/// a change tells what was done in words a question often shares. The value is the middle of
/// the range where the tuning set's questions did best (docs/search-ranking.md).
const ANSWER_WEIGHT: f64 = 1.15;

/// Whether a query is shaped as a question (asked by its form, not by what it is about): it
/// ends with a question mark or opens with an interrogative or an auxiliary verb (or is a
/// Chinese question, `cjk::asks_a_question`).
pub(crate) fn asks_a_question(text: &str) -> bool {
    const OPENERS: &[&str] = &[
        "why", "how", "what", "when", "where", "which", "who", "whose", "is", "are", "was", "were",
        "do", "does", "did", "can", "could", "should", "would", "will", "has", "have",
    ];
    let first = text
        .split_whitespace()
        .next()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .unwrap_or_default();
    text.trim_end().ends_with('?')
        || OPENERS.contains(&first.as_str())
        || super::cjk::asks_a_question(text)
}

/// A question's ranking: the records that answer count `ANSWER_WEIGHT` times as much.
fn for_a_question(mut hits: Vec<Hit>) -> Vec<Hit> {
    for h in &mut hits {
        let answers = h
            .row
            .obs_type
            .as_deref()
            .and_then(ObsType::parse)
            .is_some_and(|t| matches!(t, ObsType::Bugfix | ObsType::Decision | ObsType::Discovery));
        if answers {
            h.rank *= ANSWER_WEIGHT;
        }
    }
    hits.sort_by(best_first);
    hits
}

/// Ranks fused from this many lexical and this many semantic candidates.
const FUSION_POOL: usize = 50;
/// Reciprocal rank fusion's constant: how fast a candidate's weight falls with its rank. Small:
/// the first few ranks of each list matter most (tuned on tests/fixtures/search-tuning only).
const FUSION_K: f64 = 5.0;
/// The weight of the lexical and of the semantic ranking in the fusion. The multilingual
/// encoder ranks the right record first often enough to lead where the words find only decoys,
/// but a query's exact words still say more than its nearest meaning: its first record counts
/// a little less than the lexical first (the sweep is in docs/search-ranking.md).
const LEXICAL_WEIGHT: f64 = 1.0;
const SEMANTIC_WEIGHT: f64 = 0.8;
/// The semantic weight of a record in another script than the query's: the words cannot find
/// it at all (a Chinese question shares no word with the English record that answers it), so
/// its meaning speaks for it alone.
const OTHER_SCRIPT_WEIGHT: f64 = 1.5;

/// A record's share of the fusion from its place (from 0) in the lexical and the semantic
/// ranking, when it is in them.
fn fused_score(lexical: Option<usize>, semantic: Option<usize>, other_script: bool) -> f64 {
    let share = |weight: f64, rank: Option<usize>| {
        rank.map_or(0.0, |r| weight / (FUSION_K + r as f64 + 1.0))
    };
    let semantic_weight = if other_script {
        OTHER_SCRIPT_WEIGHT
    } else {
        SEMANTIC_WEIGHT
    };
    share(LEXICAL_WEIGHT, lexical) + share(semantic_weight, semantic)
}
/// Records whose centred cosine (`vectors::nearest`) is below this are no semantic candidates:
/// every text has some nearest neighbour, and a query of unknown words must still find
/// nothing. 0 is a record of average likeness to the query.
const MIN_SIMILARITY: f64 = 0.2;

/// Whether this process's first hybrid search ran `embed_missing`'s full pass (every record
/// looked at); later searches of the process look only at newer records. Per process because
/// what it caches is the process's own work: a new process starts with the full pass.
static FULL_EMBED_PASS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The lexical and the semantic ranking fused by reciprocal rank.
fn hybrid(
    conn: &Connection,
    q: &Query,
    plan: &Plan,
    model: &crate::embed::Encoder,
    embedded: Box<dyn FnOnce() -> Option<Vec<f32>> + '_>,
    text: &str,
) -> Result<Vec<Hit>> {
    let pool = q.limit;
    let lexical = run(conn, q, Some(plan))?;
    steps::mark("lexical search");
    // A table-lookup model embeds what is missing here; the multilingual encoder leaves that to
    // `cmem model backfill`, and a record without its vector yet is found by its words.
    let full = model.inline() && !FULL_EMBED_PASS.swap(true, std::sync::atomic::Ordering::Relaxed);
    if model.inline()
        && let Err(e) = super::vectors::embed_missing(conn, model, full)
    {
        // Vectors are derived data: a search that cannot write them (another process holds
        // the write lock past the busy wait) ranks with the vectors there are, and a later
        // search embeds the rest, with the full pass again if this was it.
        crate::logging::error(format!(
            "search: records left without vectors this time: {e:#}"
        ));
        if full {
            FULL_EMBED_PASS.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    }
    steps::mark("embed missing records");
    let kinds: Vec<Kind> = [Kind::Observation, Kind::Summary, Kind::Prompt]
        .into_iter()
        .filter(|k| wants(q, *k))
        .collect();
    let embedded = embedded();
    let query_cjk = super::cjk::mostly_cjk(text);
    steps::mark("query embedding");
    let semantic = match embedded {
        Some(v) => super::vectors::nearest(conn, model, &v, query_cjk, &q.projects, &kinds, pool)?
            .into_iter()
            .filter(|n| f64::from(n.score) >= MIN_SIMILARITY)
            .collect(),
        None => Vec::new(),
    };
    let mut fused: Vec<(Kind, i64, f64)> = Vec::new();
    let mut add =
        |kind: Kind, id: i64, score: f64| match fused.iter_mut().find(|f| (f.0, f.1) == (kind, id))
        {
            Some(f) => f.2 += score,
            None => fused.push((kind, id, score)),
        };
    for (rank, h) in lexical.iter().enumerate() {
        add(h.row.kind, h.row.id, fused_score(Some(rank), None, false));
    }
    for (rank, n) in semantic.iter().enumerate() {
        add(
            n.kind,
            n.id,
            fused_score(None, Some(rank), n.cjk != query_cjk),
        );
    }
    steps::mark("fusion scores");
    let covers: Vec<(Kind, i64, f64)> = lexical
        .iter()
        .map(|h| (h.row.kind, h.row.id, h.cover))
        .collect();
    let mut rows: Vec<IndexRow> = lexical.into_iter().map(|h| h.row).collect();
    for kind in &kinds {
        let missing: Vec<i64> = semantic
            .iter()
            .filter(|s| s.kind == *kind && !rows.iter().any(|r| (r.kind, r.id) == (s.kind, s.id)))
            .map(|s| s.id)
            .collect();
        rows.extend(rows_by_ids(conn, q, *kind, &missing)?);
    }
    steps::mark("semantic candidates' rows");
    let mut hits: Vec<Hit> = fused
        .into_iter()
        .filter_map(|(kind, id, score)| {
            let row = rows.iter().find(|r| (r.kind, r.id) == (kind, id))?;
            let cover = covers
                .iter()
                .find(|c| (c.0, c.1) == (kind, id))
                .map_or(0.0, |c| c.2);
            Some(Hit {
                row: row.clone(),
                rank: -score,
                cover,
            })
        })
        .collect();
    hits.sort_by(best_first);
    steps::mark("fused hits");
    Ok(hits)
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

/// Whether a query is an identifier (`snake_case`, `CamelCase`, a path, an error code), or a
/// few, and nothing else: it names one thing, wherever it is mentioned.
pub(crate) fn names_identifier(text: &str) -> bool {
    let mut chunks = text.split_whitespace().peekable();
    chunks.peek().is_some() && chunks.all(query::is_identifier)
}

/// The terms of a query as a person reads them (stop words gone, identifiers whole).
pub(crate) fn terms(text: &str) -> Vec<String> {
    query::analyse(text).terms.iter().map(Term::text).collect()
}

#[cfg(test)]
mod db_tests {
    use super::*;
    use crate::store::Store;
    use crate::store::observations::{NewObservation, insert};

    #[test]
    fn ranks_filters_and_falls_back_to_any_word() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        let mk = |project: &str, t: &str, title: &str, narrative: &str, file: &str, at: i64| {
            insert(c, &{
                let mut o = NewObservation::sample(project, t, title, at);
                o.body.narrative = Some(narrative.into());
                o.body.files_modified = vec![file.into()];
                o.body.concepts = vec!["gotcha".into()];
                o
            })
            .unwrap()
            .unwrap()
        };
        let pool = mk(
            "api",
            "bugfix",
            "Connection pool leaked on errors",
            "release() was skipped",
            "src/db/pool.rs",
            1,
        );
        let tok = mk(
            "api",
            "change",
            "Token refresh window raised",
            "pooling unrelated",
            "src/auth/token.rs",
            2,
        );
        mk(
            "web",
            "bugfix",
            "Pool of workers in the web app",
            "",
            "src/pool.ts",
            3,
        );
        let q = |text: &str| Query {
            text: Some(text.into()),
            projects: vec!["API".into()],
            limit: 10,
            ..Default::default()
        };
        let ids = |hits: Vec<Hit>| hits.into_iter().map(|h| h.row.id).collect::<Vec<_>>();
        // Every word is not a filter: the record holding both ranks first, the other follows.
        assert_eq!(ids(search(c, &q("pool leak")).unwrap()), vec![pool, tok]);
        // The stemmer matches "pooling"; the title outranks the narrative.
        assert_eq!(ids(search(c, &q("pool")).unwrap()), vec![pool, tok]);
        // A last word typed in part, with no exact match, is a prefix; any other is whole.
        assert_eq!(ids(search(c, &q("refre")).unwrap()), vec![tok]);
        assert_eq!(ids(search(c, &q("refre leak")).unwrap()), vec![pool]);
        assert!(search(c, &q("refre ")).unwrap().is_empty());
        // No row has both words: any word may match.
        assert_eq!(ids(search(c, &q("leaked refresh")).unwrap()).len(), 2);
        // FTS syntax in user text is just text.
        assert!(search(c, &q("\"pool NEAR( title: -leak *")).is_ok());
        assert!(search(c, &q("(((")).unwrap().is_empty());
        let typed = Query {
            obs_types: vec!["change".into()],
            ..q("pool")
        };
        assert_eq!(ids(search(c, &typed).unwrap()), vec![tok]);
        // A type named as `parse` accepts it filters as its stored name does.
        for name in ["change", "Change", " CHANGE "] {
            let typed = q("pool").of_type(name).unwrap();
            assert_eq!(ids(search(c, &typed).unwrap()), vec![tok], "{name:?}");
        }
        let by_file = Query {
            files: vec!["db/pool.rs".into()],
            text: None,
            ..q("")
        };
        assert_eq!(ids(search(c, &by_file).unwrap()), vec![pool]);
    }
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

#[cfg(test)]
mod ranking_rules {
    use super::*;
    use crate::model::SummaryBody;
    use crate::store::Store;
    use crate::store::test_rows;

    fn obs(c: &Connection, title: &str, at: i64) -> i64 {
        test_rows::observation(c, None, "change", title, at)
    }

    fn first(c: &Connection, text: &str) -> (Kind, i64) {
        let hits = search(
            c,
            &Query {
                text: Some(text.into()),
                limit: 5,
                ..Default::default()
            },
        )
        .unwrap();
        (hits[0].row.kind, hits[0].row.id)
    }

    #[test]
    fn the_nearest_record_in_meaning_counts_between_the_second_and_third_by_words() {
        // What the words miss but the meaning finds first outranks the lexical third (partial
        // matches), never the lexical second.
        let meaning_first = fused_score(None, Some(0), false);
        assert!(meaning_first > fused_score(Some(2), None, false));
        assert!(meaning_first < fused_score(Some(1), None, false));
        // Found both ways beats found one way.
        assert!(fused_score(Some(2), Some(2), false) > fused_score(Some(0), None, false));
        // A record in another script than the query's, which no word of it can find, leads
        // when its meaning is nearest.
        assert!(fused_score(None, Some(0), true) > fused_score(Some(0), None, false));
    }

    #[test]
    fn a_rare_word_counts_more_than_a_common_one() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        for i in 0..20 {
            obs(c, &format!("test run number {i} of the suite"), i);
        }
        let rare = obs(c, "flaky checkout", 30);
        let common = obs(c, "test test test test", 31);
        // Both hold one word of the query; the rare word wins over the common one repeated.
        assert_eq!(first(c, "test flaky"), (Kind::Observation, rare));
        assert_ne!(rare, common);
    }

    #[test]
    fn summaries_and_observations_rank_on_one_scale() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        for i in 0..30 {
            obs(c, &format!("pool settings reviewed {i}"), i);
        }
        let summary = test_rows::summary(
            c,
            None,
            SummaryBody {
                request: Some("stop the pool leak".into()),
                completed: Some("the leak is gone".into()),
                ..Default::default()
            },
            40,
        );
        // The small summary table holds both words; thirty observations hold only "pool".
        assert_eq!(first(c, "pool leak"), (Kind::Summary, summary));
    }

    #[test]
    fn a_question_prefers_the_record_that_answers_it() {
        assert!(asks_a_question("why was the reminder sent twice"));
        assert!(asks_a_question("reminder sent twice?"));
        assert!(asks_a_question("How long does a token last"));
        assert!(!asks_a_question("reminder sent twice"));
        assert!(!asks_a_question("whyever not"));
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        // The same words, the change a little shorter (so a little stronger by BM25).
        let change = test_rows::observation(c, None, "change", "reminder sent twice fixed", 1);
        let cause = test_rows::observation(
            c,
            None,
            "bugfix",
            "reminder sent twice: two schedulers ran",
            2,
        );
        let ranked = |text: &str| -> Vec<i64> {
            search_with(
                c,
                &Query {
                    text: Some(text.into()),
                    limit: 5,
                    ..Default::default()
                },
                None,
            )
            .unwrap()
            .iter()
            .map(|h| h.row.id)
            .collect()
        };
        assert_eq!(ranked("reminder sent twice"), vec![change, cause]);
        assert_eq!(
            ranked("why was the reminder sent twice?"),
            vec![cause, change]
        );
    }

    #[test]
    fn a_word_in_the_narrative_outweighs_it_in_two_file_paths() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        let mk = |title: &str, narrative: &str, files: &[&str], at: i64| {
            let mut o =
                crate::store::observations::NewObservation::sample("p", "change", title, at);
            o.body.narrative = Some(narrative.into());
            o.body.files_modified = files.iter().map(|f| f.to_string()).collect();
            crate::store::observations::insert(c, &o).unwrap().unwrap()
        };
        let told = mk("streams rows", "the export", &[], 1);
        let touched = mk("streams rows", "", &["export.rs", "export.ts"], 2);
        let hits = search_with(
            c,
            &Query {
                text: Some("export".into()),
                limit: 5,
                ..Default::default()
            },
            None,
        )
        .unwrap();
        let ids: Vec<i64> = hits.iter().map(|h| h.row.id).collect();
        assert_eq!(ids, vec![told, touched]);
    }

    #[test]
    fn a_query_made_of_identifiers_names_one_thing() {
        assert!(names_identifier("erase_user"));
        assert!(names_identifier("SignatureDoesNotMatch src/api/upload.ts"));
        // Plain words beside an identifier, plain words alone, nothing at all.
        assert!(!names_identifier("S3 lifecycle"));
        assert!(!names_identifier("pool leak"));
        assert!(!names_identifier("  "));
    }

    #[test]
    fn a_turn_is_the_records_a_summary_closes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        let session = test_rows::session(c, "s");
        let other = test_rows::session(c, "o");
        let a = test_rows::observation(c, Some(session), "bugfix", "first turn, first", 1);
        let b = test_rows::observation(c, Some(session), "change", "first turn, second", 2);
        test_rows::observation(c, Some(other), "change", "another session", 2);
        test_rows::summary(c, Some(session), SummaryBody::default(), 3);
        let d = test_rows::observation(c, Some(session), "bugfix", "second turn", 4);
        test_rows::summary(c, Some(session), SummaryBody::default(), 6);
        let e = test_rows::observation(c, Some(session), "change", "after the last summary", 7);
        let turn = |at: i64| -> Vec<i64> {
            turn_records(c, session, "P", at)
                .unwrap()
                .iter()
                .map(|r| r.id)
                .collect()
        };
        // A summary's own turn, a record's turn, and what follows the last summary.
        assert_eq!(turn(3), vec![a, b]);
        assert_eq!(turn(2), vec![a, b]);
        assert_eq!(turn(6), vec![d]);
        assert_eq!(turn(4), vec![d]);
        assert_eq!(turn(7), vec![e]);
        assert!(turn_records(c, session, "elsewhere", 3).unwrap().is_empty());
    }

    #[test]
    fn a_session_summary_follows_its_best_record() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        let session = test_rows::session(c, "s");
        let fix = test_rows::observation(
            c,
            Some(session),
            "bugfix",
            "ECONNRESET on pool reconnect handled",
            2,
        );
        let other = obs(c, "reconnect button styling", 3);
        // Mostly other words: one common term, in a long text, far from a title match.
        let summary = test_rows::summary(
            c,
            Some(session),
            SummaryBody {
                completed: Some(
                    "checkout survives a database restart now; the client waits and tries \
                     to reconnect with a back-off instead of failing the request at once"
                        .into(),
                ),
                ..Default::default()
            },
            4,
        );
        let hits = search(
            c,
            &Query {
                text: Some("ECONNRESET reconnect".into()),
                limit: 5,
                ..Default::default()
            },
        )
        .unwrap();
        let order: Vec<(Kind, i64)> = hits.iter().map(|h| (h.row.kind, h.row.id)).collect();
        assert_eq!(
            order,
            vec![
                (Kind::Observation, fix),
                (Kind::Summary, summary),
                (Kind::Observation, other)
            ]
        );
    }
}

#[cfg(test)]
mod hostile_text {
    use super::*;
    use crate::store::Store;
    use proptest::prelude::*;

    /// One small database for every case (opening it again skips the migration).
    fn shared_db() -> std::path::PathBuf {
        static DB: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
        let dir = DB.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(&dir.path().join("t.db")).unwrap();
            crate::store::observations::insert(
                &store.conn,
                &crate::store::observations::NewObservation::sample(
                    "p",
                    "bugfix",
                    "pool leak fixed",
                    1,
                ),
            )
            .unwrap();
            dir
        });
        dir.path().join("t.db")
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// No user text is FTS5 syntax: whatever is typed (quotes, `*`, `^`, `-`, `:`, brackets,
        /// AND/OR/NOT/NEAR, control characters, any script), the search runs without an FTS5
        /// error.
        #[test]
        fn any_text_searches_without_an_fts_error(
            text in proptest::collection::vec(
                prop_oneof![
                    Just("\"".to_string()), Just("*".to_string()), Just("^".to_string()),
                    Just("-".to_string()), Just(":".to_string()), Just("(".to_string()),
                    Just(")".to_string()), Just("{".to_string()), Just("}".to_string()),
                    Just(" AND ".to_string()), Just(" OR ".to_string()), Just(" NOT ".to_string()),
                    Just("NEAR(".to_string()), Just("title:".to_string()), Just("+".to_string()),
                    Just(" ".to_string()), Just("pool".to_string()), Just("leak".to_string()),
                    "[a-z_./:]{1,8}", "\\PC{1,3}",
                ],
                0..12,
            ).prop_map(|parts| parts.concat())
        ) {
            let store = Store::open(&shared_db()).unwrap();
            let q = Query { text: Some(text.clone()), limit: 5, ..Default::default() };
            prop_assert!(search_with(&store.conn, &q, None).is_ok(), "{:?}", text);
        }
    }
}
