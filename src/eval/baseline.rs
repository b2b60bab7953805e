//! The baselines every figure is compared with: a plain FTS5 table over the same records, any
//! word matching (`OR`), ranked by `bm25()` — what a developer gets from SQLite in ten lines.

use anyhow::Result;
use rusqlite::Connection;

use super::fixture::Doc;
use crate::model::Kind;

/// A baseline index: one FTS5 table in a private in-memory database.
pub(crate) struct Baseline {
    conn: Connection,
    docs: Vec<(Kind, i64, String)>,
}

impl Baseline {
    /// `tokenizer` is an FTS5 tokenize option: `unicode61` (plain) or `porter unicode61`.
    pub(crate) fn build(docs: &[Doc], tokenizer: &str) -> Result<Baseline> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = '{tokenizer}')"
        ))?;
        let mut insert = conn.prepare("INSERT INTO docs (rowid, body) VALUES (?1, ?2)")?;
        for (i, d) in docs.iter().enumerate() {
            insert.execute(rusqlite::params![i as i64 + 1, d.text])?;
        }
        drop(insert);
        Ok(Baseline {
            docs: docs
                .iter()
                .map(|d| (d.kind, d.id, d.project.clone()))
                .collect(),
            conn,
        })
    }

    /// The best `limit` records of `project` for `text`.
    pub(crate) fn search(
        &self,
        project: &str,
        text: &str,
        limit: usize,
    ) -> Result<Vec<(Kind, i64)>> {
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| format!("\"{}\"", w.to_lowercase()))
            .collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY bm25(docs)")?;
        let rows = stmt.query_map([words.join(" OR ")], |r| r.get::<_, i64>(0))?;
        let mut out = Vec::new();
        for row in rows {
            let (kind, id, p) = &self.docs[(row? - 1) as usize];
            if p == project {
                out.push((*kind, *id));
                if out.len() == limit {
                    break;
                }
            }
        }
        Ok(out)
    }
}
