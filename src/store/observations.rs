//! Reading and writing observations.

use anyhow::Result;
use rusqlite::{Connection, Row, params};
use serde_json::json;

use crate::model::{Observation, ObservationBody, json_list};

pub(crate) const COLUMNS: &str = "id, project, type, title, subtitle, narrative, facts, concepts, files_read, \
     files_modified, prompt_number, discovery_tokens, created_at_epoch, session_id, source";

pub(crate) fn from_row(r: &Row) -> rusqlite::Result<Observation> {
    let facts_json: Option<String> = r.get("facts")?;
    Ok(Observation {
        id: r.get("id")?,
        project: r.get("project")?,
        body: ObservationBody {
            obs_type: r.get("type")?,
            title: r.get("title")?,
            subtitle: r.get("subtitle")?,
            narrative: r.get("narrative")?,
            facts: json_list(facts_json.as_deref()),
            concepts: json_list(r.get::<_, Option<String>>("concepts")?.as_deref()),
            files_read: json_list(r.get::<_, Option<String>>("files_read")?.as_deref()),
            files_modified: json_list(r.get::<_, Option<String>>("files_modified")?.as_deref()),
        },
        facts_json: facts_json.unwrap_or_else(|| "[]".into()),
        prompt_number: r.get("prompt_number")?,
        discovery_tokens: r.get("discovery_tokens")?,
        created_at: r.get("created_at_epoch")?,
        session_id: r.get("session_id")?,
        source: r.get("source")?,
        // Only the queries for a record's details ask for it (`by_ids`).
        host: r.get::<_, Option<String>>("host").ok().flatten(),
    })
}

/// The newest `limit` observations of any of `projects` (case-insensitive), newest first.
pub(crate) fn recent(
    conn: &Connection,
    projects: &[String],
    limit: usize,
) -> Result<Vec<Observation>> {
    super::newest_per_project(
        conn,
        &format!("SELECT {COLUMNS} FROM observations"),
        projects,
        limit,
        from_row,
        |o| (o.created_at, o.id),
    )
}

/// `recent`, keeping only observations of one of `types` and with at least one of `concepts`
/// (an empty list keeps everything), so the limit counts what is kept.
pub(crate) fn recent_filtered(
    conn: &Connection,
    projects: &[String],
    limit: usize,
    types: &[String],
    concepts: &[String],
) -> Result<Vec<Observation>> {
    if types.is_empty() && concepts.is_empty() {
        return recent(conn, projects, limit);
    }
    filtered(conn, projects, limit, types, concepts, &[])
}

/// The newest observations of `projects` that pass the type/concept filters (empty: all) and,
/// when `prefixes` is not empty, read or modified a file whose path starts with one of them.
pub(crate) fn filtered(
    conn: &Connection,
    projects: &[String],
    limit: usize,
    types: &[String],
    concepts: &[String],
    prefixes: &[String],
) -> Result<Vec<Observation>> {
    let keys: Vec<String> = projects.iter().map(|p| p.to_lowercase()).collect();
    let types: Vec<String> = types.iter().map(|t| t.trim().to_lowercase()).collect();
    let under = |column: &str| {
        format!(
            "EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid({column}) THEN {column} ELSE '[]' END) f,
                            json_each(?4) p
                     WHERE substr(f.value, 1, length(p.value)) = p.value)"
        )
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM observations
         WHERE lower(project) IN (SELECT value FROM json_each(?1))
           AND (json_array_length(?2) = 0 OR lower(type) IN (SELECT value FROM json_each(?2)))
           AND (json_array_length(?3) = 0
                OR EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(concepts) THEN concepts ELSE '[]' END)
                           WHERE value IN (SELECT value FROM json_each(?3))))
           AND (json_array_length(?4) = 0 OR {} OR {})
         ORDER BY created_at_epoch DESC, id DESC LIMIT ?5",
        under("files_read"),
        under("files_modified")
    ))?;
    let rows = stmt.query_map(
        params![
            json!(keys).to_string(),
            json!(types).to_string(),
            json!(concepts).to_string(),
            json!(prefixes).to_string(),
            limit as i64
        ],
        from_row,
    )?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Observations by id, in the order asked (unknown ids are skipped).
pub(crate) fn by_ids(conn: &Connection, ids: &[i64]) -> Result<Vec<Observation>> {
    super::by_ids(
        conn,
        &format!(
            "SELECT {COLUMNS}, (SELECT s.platform_source FROM sessions s WHERE s.id = observations.session_id) AS host
             FROM observations WHERE id"
        ),
        ids,
        from_row,
        |o| o.id,
    )
}

/// Most candidates the file query looks at (its full-text match is a superset).
const FILE_CANDIDATES: i64 = 2_000;

/// Observations of `projects` (case-insensitive) whose `files_read` or `files_modified` list
/// one of `paths` exactly (callers pass the absolute and the project-relative spellings),
/// newest first, at most `limit`.
///
/// The full-text index finds candidates (the path's tokens as a phrase, so `src/big.rs` also
/// finds `/home/me/app/src/big.rs`), then `json_each` keeps exact matches: indexed, and
/// bounded by the number of observations that mention the file, not the table size.
pub(crate) fn mentioning_file(
    conn: &Connection,
    projects: &[String],
    paths: &[String],
    limit: usize,
) -> Result<Vec<Observation>> {
    let Some(shortest) = paths.iter().min_by_key(|p| p.len()) else {
        return Ok(Vec::new());
    };
    if !shortest.chars().any(char::is_alphanumeric) {
        return Ok(Vec::new());
    }
    let phrase = format!(
        "{{files_read files_modified}} : \"{}\"",
        shortest.replace('"', "\"\"")
    );
    let keys: Vec<String> = projects.iter().map(|p| p.to_lowercase()).collect();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM observations
         WHERE id IN (SELECT rowid FROM observations_fts WHERE observations_fts MATCH ?1
                      ORDER BY rowid DESC LIMIT ?5)
           AND lower(project) IN (SELECT value FROM json_each(?2))
           AND (EXISTS (SELECT 1 FROM json_each(files_read) WHERE value IN (SELECT value FROM json_each(?3)))
             OR EXISTS (SELECT 1 FROM json_each(files_modified) WHERE value IN (SELECT value FROM json_each(?3))))
         ORDER BY created_at_epoch DESC, id DESC LIMIT ?4"
    ))?;
    let rows = stmt.query_map(
        params![
            phrase,
            json!(keys).to_string(),
            json!(paths).to_string(),
            limit as i64,
            FILE_CANDIDATES
        ],
        from_row,
    )?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// What a new observation is made of (observers, `save_memory`, imports, the generator).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewObservation {
    pub session_id: Option<i64>,
    pub project: String,
    pub body: ObservationBody,
    pub prompt_number: Option<i64>,
    pub discovery_tokens: i64,
    pub created_at: i64,
    pub source: String,
}

#[cfg(test)]
impl NewObservation {
    /// A bare observation for the store's own tests.
    pub(crate) fn sample(project: &str, obs_type: &str, title: &str, at: i64) -> NewObservation {
        NewObservation {
            project: project.into(),
            body: ObservationBody {
                obs_type: obs_type.into(),
                title: Some(title.into()),
                ..Default::default()
            },
            created_at: at,
            source: "test".into(),
            ..Default::default()
        }
    }
}

/// 16 hex characters of SHA-256 over `session \0 title \0 narrative` (claude-mem's recipe).
pub(crate) fn content_hash(session: Option<i64>, title: &str, narrative: Option<&str>) -> String {
    let session = session.map(|s| s.to_string()).unwrap_or_default();
    super::content_hash::of_parts(&[
        session.as_bytes(),
        title.as_bytes(),
        narrative.unwrap_or("").as_bytes(),
    ])
}

impl NewObservation {
    /// Its content hash: the identity `insert` deduplicates on.
    fn hash(&self) -> String {
        let b = &self.body;
        content_hash(
            self.session_id,
            b.title.as_deref().unwrap_or(""),
            b.narrative.as_deref(),
        )
    }
}

/// Inserts an observation; `None` when the same one already exists in that session.
pub fn insert(conn: &Connection, o: &NewObservation) -> Result<Option<i64>> {
    let hash = o.hash();
    let b = &o.body;
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO observations (session_id, project, type, title, subtitle, narrative, facts,
             concepts, files_read, files_modified, prompt_number, discovery_tokens, created_at_epoch,
             content_hash, source)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?;
    let n = stmt.execute(params![
        o.session_id,
        o.project,
        b.obs_type,
        b.title,
        b.subtitle,
        b.narrative,
        json!(b.facts).to_string(),
        json!(b.concepts).to_string(),
        json!(b.files_read).to_string(),
        json!(b.files_modified).to_string(),
        o.prompt_number,
        o.discovery_tokens,
        o.created_at,
        hash,
        o.source,
    ])?;
    Ok((n > 0).then(|| conn.last_insert_rowid()))
}

/// The observation a session already has with this content (what `insert` deduplicated to).
pub(crate) fn id_by_content(conn: &Connection, o: &NewObservation) -> Result<Option<i64>> {
    use rusqlite::OptionalExtension;
    let hash = o.hash();
    Ok(conn
        .query_row(
            "SELECT id FROM observations WHERE IFNULL(session_id, -1) = IFNULL(?1, -1) AND content_hash = ?2",
            params![o.session_id, hash],
            |r| r.get(0),
        )
        .optional()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_walks_the_project_index_instead_of_scanning() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(&dir.path().join("t.db")).unwrap();
        let plan: Vec<String> = store
            .conn
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT {COLUMNS} FROM observations WHERE project = ?1 COLLATE NOCASE
                 ORDER BY created_at_epoch DESC, id DESC LIMIT ?2"
            ))
            .unwrap()
            .query_map(params!["p", 50], |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let plan = plan.join(" | ");
        assert!(
            plan.contains("USING INDEX idx_observations_project"),
            "{plan}"
        );
        assert!(
            !plan.contains("TEMP B-TREE"),
            "sorts instead of walking the index: {plan}"
        );
    }

    #[test]
    fn mentioning_file_matches_exact_paths_of_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(&dir.path().join("t.db")).unwrap();
        let o = |project: &str, title: &str, read: &[&str], modified: &[&str], at: i64| {
            NewObservation {
                project: project.into(),
                body: ObservationBody {
                    obs_type: "change".into(),
                    title: Some(title.into()),
                    files_read: read.iter().map(|s| s.to_string()).collect(),
                    files_modified: modified.iter().map(|s| s.to_string()).collect(),
                    ..Default::default()
                },
                created_at: at,
                source: "test".into(),
                ..Default::default()
            }
        };
        insert(
            &store.conn,
            &o("app", "relative read", &["src/big.rs"], &[], 1),
        )
        .unwrap();
        insert(
            &store.conn,
            &o("App", "absolute modified", &[], &["/w/app/src/big.rs"], 2),
        )
        .unwrap();
        insert(
            &store.conn,
            &o(
                "app",
                "other file, same tokens",
                &["lib/src/big.rs"],
                &[],
                3,
            ),
        )
        .unwrap();
        insert(
            &store.conn,
            &o("app", "longer name", &["src/big.rs.orig"], &[], 4),
        )
        .unwrap();
        insert(
            &store.conn,
            &o("other", "other project", &["src/big.rs"], &[], 5),
        )
        .unwrap();
        insert(
            &store.conn,
            &o("app", "unrelated", &["src/small.rs"], &[], 6),
        )
        .unwrap();
        let paths = vec!["/w/app/src/big.rs".to_string(), "src/big.rs".to_string()];
        let got = mentioning_file(&store.conn, &["app".into()], &paths, 40).unwrap();
        let titles: Vec<_> = got.iter().map(|o| o.title.clone().unwrap()).collect();
        assert_eq!(titles, vec!["absolute modified", "relative read"]);
        let got = mentioning_file(&store.conn, &["app".into()], &paths, 1).unwrap();
        assert_eq!(got.len(), 1);
        assert!(
            mentioning_file(&store.conn, &["app".into()], &["/".into()], 40)
                .unwrap()
                .is_empty()
        );
        let quote = vec!["src/we\"ird.rs".to_string()];
        assert!(
            mentioning_file(&store.conn, &["app".into()], &quote, 40)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn mentioning_file_uses_the_full_text_index() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(&dir.path().join("t.db")).unwrap();
        let plan: Vec<String> = store
            .conn
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT {COLUMNS} FROM observations
                 WHERE id IN (SELECT rowid FROM observations_fts WHERE observations_fts MATCH ?1
                              ORDER BY rowid DESC LIMIT ?5)
                   AND lower(project) IN (SELECT value FROM json_each(?2))
                 ORDER BY created_at_epoch DESC, id DESC LIMIT ?4"
            ))
            .unwrap()
            .query_map(params!["x", "[]", "[]", 40, 100], |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let plan = plan.join(" | ");
        assert!(plan.contains("VIRTUAL TABLE INDEX"), "{plan}");
        assert!(plan.contains("USING INTEGER PRIMARY KEY"), "{plan}");
    }

    #[test]
    fn insert_deduplicates_within_a_session_and_recent_merges_keys() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(&dir.path().join("t.db")).unwrap();
        let o = |project: &str, title: &str, at: i64| {
            NewObservation::sample(project, "change", title, at)
        };
        assert!(insert(&store.conn, &o("a", "one", 1)).unwrap().is_some());
        assert!(
            insert(&store.conn, &o("a", "one", 2)).unwrap().is_none(),
            "same title, same (no) session"
        );
        insert(&store.conn, &o("A/wt", "two", 3)).unwrap();
        insert(&store.conn, &o("b", "three", 4)).unwrap();
        let got = recent(&store.conn, &["a".into(), "a/WT".into()], 10).unwrap();
        let titles: Vec<_> = got.iter().map(|o| o.title.clone().unwrap()).collect();
        assert_eq!(titles, vec!["two", "one"]);
    }
}
