//! Full-text search over observations, summaries and prompts (FTS5), with filters.
//!
//! User text never reaches FTS5 syntax: it is split into words, each searched as a quoted
//! term, so quotes, `*`, `-`, `NEAR`, `column:` and unbalanced parentheses are just text. All
//! words must match (ranked by `cmem_rank`); when that finds nothing, any word may, as a
//! prefix (ranked by bm25).

use anyhow::Result;
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, params_from_iter};

use super::timeline::{observation_row, prompt_row, summary_row};
use super::{observations, prompts, summaries};
use crate::model::{IndexRow, Kind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    #[default]
    Relevance,
    DateDesc,
    DateAsc,
}

#[derive(Debug, Clone, Default)]
pub struct Query {
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
}

/// A search result: the row plus its relevance (`cmem_rank` or bm25, lower is better; 0
/// without text).
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub row: IndexRow,
    pub rank: f64,
}

/// Words that carry no meaning in a memory query ("how did we fix the pool" = "fix pool").
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "by", "can", "did", "do", "for", "from",
    "had", "has", "have", "how", "i", "in", "is", "it", "last", "me", "memory", "my", "of", "on",
    "or", "our", "previous", "search", "session", "sessions", "that", "the", "their", "this", "to",
    "was", "we", "were", "what", "when", "where", "which", "who", "why", "with", "work", "you",
    "your",
];

/// The words that matter: stop words are dropped unless nothing else is left.
pub fn meaningful(words: Vec<String>) -> Vec<String> {
    let kept: Vec<String> = words
        .iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    if kept.is_empty() { words } else { kept }
}

/// The words of a query, lower-cased, in order, without duplicates.
pub fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
    {
        let w = w.to_lowercase();
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// An FTS5 expression that only ever means "these words", each a quoted term. With `all`,
/// every word must match exactly (the porter stemmer already matches `failing` to `fail`;
/// agents send whole words, and a prefix term costs a merge of every doclist it covers).
/// Otherwise any word may match, each as a prefix: the broad second try, which also catches
/// a word typed only in part.
pub fn fts_expression(words: &[String], all: bool) -> Option<String> {
    if words.is_empty() {
        return None;
    }
    let star = if all { "" } else { "*" };
    let terms: Vec<String> = words
        .iter()
        .map(|w| format!("\"{}\"{star}", w.replace('"', "\"\"")))
        .collect();
    Some(terms.join(if all { " AND " } else { " OR " }))
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
/// a size record and the positions of every match, so relevance work stays bounded (500
/// keeps mem_search step 1 at 100,000 records near 5 ms; 1,000 took 10), and recent memory
/// is the more likely answer anyway. (Column filters in the MATCH would cost more.)
pub const RANK_WINDOW: usize = 500;
/// At most this many windows are read before giving up on finding `limit` rows of the
/// requested projects.
const MAX_WINDOWS: usize = 10;

struct Table {
    fts: &'static str,
    weights: &'static str,
}

fn table(kind: Kind) -> Table {
    match kind {
        Kind::Observation => Table {
            fts: "observations_fts",
            weights: "10.0, 4.0, 2.0, 2.0, 1.0, 1.5, 1.5",
        },
        Kind::Summary => Table {
            fts: "session_summaries_fts",
            weights: "8.0, 2.0, 2.0, 2.0, 2.0, 1.0",
        },
        Kind::Prompt => Table {
            fts: "user_prompts_fts",
            weights: "1.0",
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
                sql.add(
                    format!("o.type IN ({})", Sql::marks(q.obs_types.len())),
                    text_values(&q.obs_types),
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

/// Text search of one kind: rank a window of the newest matches in FTS5, then read the full
/// rows of the best ones (with the project and other filters) until `limit + offset` are found.
fn search_text(
    conn: &Connection,
    q: &Query,
    kind: Kind,
    terms: &str,
    ranking: &str,
) -> Result<Vec<Hit>> {
    let t = table(kind);
    let mut window = conn.prepare_cached(&format!(
        "SELECT rowid, {ranking}({fts}, {w}) FROM {fts} WHERE {fts} MATCH ?1 AND rowid < ?2
         ORDER BY rowid DESC LIMIT {RANK_WINDOW}",
        fts = t.fts,
        w = t.weights
    ))?;
    let want = q.limit + q.offset;
    let (select, id_col, project_col, time_col) = select_rows(kind);
    let mut hits = Vec::new();
    let mut before = i64::MAX;
    for _ in 0..MAX_WINDOWS {
        let mut candidates: Vec<(i64, f64)> = window
            .query_map(rusqlite::params![terms, before], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let Some(oldest) = candidates.last().map(|c| c.0) else {
            break;
        };
        let full_window = candidates.len() == RANK_WINDOW;
        before = oldest;
        candidates.sort_by(|a, b| {
            a.1.partial_cmp(&b.1)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(b.0.cmp(&a.0))
        });
        for chunk in candidates.chunks(want.max(50)) {
            let mut sql = Sql::new();
            sql.add(
                format!("{id_col} IN ({})", Sql::marks(chunk.len())),
                chunk.iter().map(|(id, _)| SqlValue::Integer(*id)),
            );
            // The rows are already chosen by id: `+` keeps SQLite from walking the project or
            // time index instead of looking up these few ids.
            row_filters(
                &mut sql,
                q,
                kind,
                &format!("+{project_col}"),
                &format!("+{time_col}"),
            );
            let mut stmt = conn.prepare(&format!("{select} {}", sql.where_sql()))?;
            let rows: Vec<IndexRow> = stmt
                .query_map(params_from_iter(sql.args.iter()), |r| row_of(kind, r))?
                .collect::<rusqlite::Result<_>>()?;
            for (id, rank) in chunk {
                if let Some(row) = rows.iter().find(|r| r.id == *id) {
                    hits.push(Hit {
                        row: row.clone(),
                        rank: *rank,
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
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How a text search ranks its matches: an FTS5 ranking function by name.
#[derive(Clone, Copy)]
enum Ranking {
    /// Every word matched: term frequencies without bm25's IDF pass (see `rank`).
    AllWords,
    /// Any word matched: bm25, so the rare words count for more.
    AnyWord,
}

impl Ranking {
    fn function(self) -> &'static str {
        match self {
            Ranking::AllWords => super::rank::FUNCTION,
            Ranking::AnyWord => "bm25",
        }
    }
}

fn run(conn: &Connection, q: &Query, expr: Option<&str>, ranking: Ranking) -> Result<Vec<Hit>> {
    let mut hits = Vec::new();
    for kind in [Kind::Observation, Kind::Summary, Kind::Prompt] {
        if wants(q, kind) {
            hits.extend(match expr {
                Some(t) => search_text(conn, q, kind, t, ranking.function())?,
                None => search_rows(conn, q, kind)?,
            });
        }
    }
    match (q.order, expr.is_some()) {
        (Order::Relevance, true) => hits.sort_by(|a, b| {
            a.rank
                .partial_cmp(&b.rank)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(b.row.created_at.cmp(&a.row.created_at))
        }),
        (Order::DateAsc, _) => hits.sort_by_key(|h| (h.row.created_at, h.row.kind, h.row.id)),
        _ => hits.sort_by_key(|h| std::cmp::Reverse((h.row.created_at, h.row.kind, h.row.id))),
    }
    Ok(hits.into_iter().skip(q.offset).take(q.limit).collect())
}

/// Searches with every word required, then (if that finds nothing) with any word.
pub fn search(conn: &Connection, q: &Query) -> Result<Vec<Hit>> {
    let ws = meaningful(q.text.as_deref().map(words).unwrap_or_default());
    if q.text.as_deref().is_some_and(|t| !t.trim().is_empty()) && ws.is_empty() {
        return Ok(Vec::new()); // only punctuation: nothing can match
    }
    let all = fts_expression(&ws, true);
    let hits = run(conn, q, all.as_deref(), Ranking::AllWords)?;
    if !hits.is_empty() {
        return Ok(hits);
    }
    run(
        conn,
        q,
        fts_expression(&ws, false).as_deref(),
        Ranking::AnyWord,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_is_only_words() {
        let ws = words(r#"pool" OR title:x* -leak NEAR(a b) ((( 连接池 _priv"#);
        assert_eq!(
            ws,
            vec![
                "pool",
                "or",
                "title",
                "x",
                "leak",
                "near",
                "a",
                "b",
                "连接池",
                "_priv"
            ]
        );
        let e = fts_expression(&ws, true).unwrap();
        assert!(e.starts_with("\"pool\" AND \"or\" AND"), "{e}");
        assert!(e.ends_with("\"_priv\""), "{e}");
        assert!(
            fts_expression(&ws, false)
                .unwrap()
                .starts_with("\"pool\"* OR \"or\"*")
        );
    }
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
        assert_eq!(ids(search(c, &q("pool leak")).unwrap()), vec![pool]);
        // Prefix match on a partial word, and the title outranks the narrative.
        assert_eq!(ids(search(c, &q("pool")).unwrap()), vec![pool, tok]);
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
        let by_file = Query {
            files: vec!["db/pool.rs".into()],
            text: None,
            ..q("")
        };
        assert_eq!(ids(search(c, &by_file).unwrap()), vec![pool]);
    }
}
