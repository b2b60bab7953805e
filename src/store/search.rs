//! Full-text search over observations, summaries and prompts (FTS5, bm25), with filters.
//!
//! User text never reaches FTS5 syntax: it is split into words, each searched as a quoted
//! prefix term, so quotes, `*`, `-`, `NEAR`, `column:` and unbalanced parentheses are just
//! text. All words must match; when that finds nothing, any word may.

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

/// A search result: the row plus its relevance (bm25, lower is better; 0 without text).
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub row: IndexRow,
    pub rank: f64,
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

/// An FTS5 expression that only ever means "these words" (each a quoted prefix term).
pub fn fts_expression(words: &[String], all: bool) -> Option<String> {
    if words.is_empty() {
        return None;
    }
    let terms: Vec<String> = words
        .iter()
        .map(|w| format!("\"{}\"*", w.replace('"', "\"\"")))
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

fn order_sql(q: &Query, has_text: bool, time_col: &str) -> String {
    match (q.order, has_text) {
        (Order::Relevance, true) => "rank".into(),
        (Order::DateAsc, _) => format!("{time_col} ASC"),
        _ => format!("{time_col} DESC"),
    }
}

fn search_kind(conn: &Connection, q: &Query, kind: Kind, expr: Option<&str>) -> Result<Vec<Hit>> {
    let want = (q.limit + q.offset) as i64;
    let mut sql = Sql::new();
    let (select, from, project_col, time_col, fts) = match kind {
        Kind::Observation => (
            format!("SELECT o.{}", observations::COLUMNS.replace(", ", ", o.")),
            "observations o",
            "o.project",
            "o.created_at_epoch",
            (
                "observations_fts",
                "o.id",
                "10.0, 4.0, 2.0, 2.0, 1.0, 1.5, 1.5",
            ),
        ),
        Kind::Summary => (
            format!("SELECT s.{}", summaries::COLUMNS.replace(", ", ", s.")),
            "session_summaries s",
            "s.project",
            "s.created_at_epoch",
            (
                "session_summaries_fts",
                "s.id",
                "8.0, 2.0, 2.0, 2.0, 2.0, 1.0",
            ),
        ),
        Kind::Prompt => (
            format!("SELECT {}", prompts::COLUMNS),
            prompts::FROM,
            "s.project",
            "up.created_at_epoch",
            ("user_prompts_fts", "up.id", "1.0"),
        ),
    };
    let (fts_table, rowid_col, weights) = fts;
    let from = match expr {
        Some(e) => {
            sql.add(
                format!("{fts_table} MATCH ?"),
                [SqlValue::Text(e.to_string())],
            );
            // `from` may carry a join of its own (prompts → sessions): join the FTS table to
            // the first table only.
            let (first, rest) = from
                .split_once(" JOIN ")
                .map_or((from, ""), |(f, r)| (f, r));
            let rest = if rest.is_empty() {
                String::new()
            } else {
                format!(" JOIN {rest}")
            };
            format!("{fts_table} JOIN {first} ON {rowid_col} = {fts_table}.rowid{rest}")
        }
        None => from.to_string(),
    };
    let rank = if expr.is_some() {
        format!(", bm25({fts_table}, {weights}) AS rank")
    } else {
        ", 0.0 AS rank".to_string()
    };
    common_filters(&mut sql, q, project_col, time_col);
    if kind == Kind::Observation {
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
        file_filter(&mut sql, q, &["o.files_read", "o.files_modified"]);
    } else if kind == Kind::Summary {
        file_filter(&mut sql, q, &["s.files_read", "s.files_edited"]);
    }
    let order = order_sql(q, expr.is_some(), time_col);
    let statement = format!(
        "{select}{rank} FROM {from} {} ORDER BY {order} LIMIT {want}",
        sql.where_sql()
    );
    let mut stmt = conn.prepare(&statement)?;
    let rank_col = match kind {
        Kind::Observation => 15,
        Kind::Summary => 14,
        Kind::Prompt => 8,
    };
    let rows = stmt.query_map(params_from_iter(sql.args.iter()), |r| {
        let row = match kind {
            Kind::Observation => observation_row(&observations::from_row(r)?),
            Kind::Summary => summary_row(&summaries::from_row(r)?),
            Kind::Prompt => prompt_row(&prompts::from_row(r)?),
        };
        Ok(Hit {
            row,
            rank: r.get(rank_col)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn run(conn: &Connection, q: &Query, expr: Option<&str>) -> Result<Vec<Hit>> {
    let mut hits = Vec::new();
    for kind in [Kind::Observation, Kind::Summary, Kind::Prompt] {
        if wants(q, kind) {
            hits.extend(search_kind(conn, q, kind, expr)?);
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
    let ws = q.text.as_deref().map(words).unwrap_or_default();
    if q.text.as_deref().is_some_and(|t| !t.trim().is_empty()) && ws.is_empty() {
        return Ok(Vec::new()); // only punctuation: nothing can match
    }
    let all = fts_expression(&ws, true);
    let hits = run(conn, q, all.as_deref())?;
    if !hits.is_empty() || ws.len() < 2 {
        return Ok(hits);
    }
    run(conn, q, fts_expression(&ws, false).as_deref())
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
        assert!(e.starts_with("\"pool\"* AND \"or\"*"), "{e}");
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
            insert(
                c,
                &NewObservation {
                    project: project.into(),
                    obs_type: t.into(),
                    title: title.into(),
                    narrative: Some(narrative.into()),
                    files_modified: vec![file.into()],
                    concepts: vec!["gotcha".into()],
                    created_at: at,
                    source: "t".into(),
                    ..Default::default()
                },
            )
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
