//! A search-evaluation set: records of one or more projects and queries with the records a good
//! search returns, loaded from JSON and written into a store in the order they happened.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use rusqlite::params;
use serde::Deserialize;

use crate::model::{Kind, ObservationBody, SummaryBody};
use crate::store::observations::{self, NewObservation};
use crate::store::summaries::{self, NewSummary};

#[derive(Debug, Deserialize)]
pub(crate) struct Project {
    pub project: String,
    pub sessions: Vec<Session>,
    pub queries: Vec<Query>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Session {
    pub key: String,
    pub day: i64,
    #[serde(default)]
    pub prompts: Vec<String>,
    #[serde(default)]
    pub observations: Vec<Observation>,
    pub summary: Option<Summary>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Observation {
    pub key: String,
    #[serde(flatten)]
    pub body: ObservationBody,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Summary {
    pub key: String,
    pub request: Option<String>,
    pub investigated: Option<String>,
    pub learned: Option<String>,
    pub completed: Option<String>,
    pub next_steps: Option<String>,
}

/// The kinds of query a set may hold, in the order reports list them: the five of the English
/// sets, then the four of the Chinese and cross-lingual ones (a Chinese keyword inside unspaced
/// text, a Chinese paraphrase, an English query for a Chinese record, a Chinese query for an
/// English one).
pub(crate) const QUERY_KINDS: [&str; 9] = [
    "keyword",
    "paraphrase",
    "question",
    "multi-word",
    "identifier",
    "keyword-zh",
    "paraphrase-zh",
    "en-to-zh",
    "zh-to-en",
];

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Query {
    pub kind: String,
    pub query: String,
    pub expect: Vec<String>,
}

/// A query of a loaded set: its project and the records it expects, as stored ids.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    pub project: String,
    pub kind: String,
    pub query: String,
    pub expect: Vec<(Kind, i64)>,
}

/// Every record's text, by stored id, for the baselines (which index the same data).
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    pub kind: Kind,
    pub id: i64,
    pub project: String,
    pub text: String,
}

pub(crate) struct Loaded {
    pub cases: Vec<Case>,
    pub docs: Vec<Doc>,
}

/// Reads every `*.json` set in `dir` (or the one file `dir` names), in name order.
pub(crate) fn read(path: &Path) -> Result<Vec<Project>> {
    let files: Vec<std::path::PathBuf> = if path.is_dir() {
        let mut f: Vec<_> = std::fs::read_dir(path)
            .with_context(|| format!("cannot list {}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        f.sort();
        f
    } else {
        vec![path.to_path_buf()]
    };
    if files.is_empty() {
        bail!("no .json evaluation sets in {}", path.display());
    }
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f)
                .with_context(|| format!("cannot read {}", f.display()))?;
            serde_json::from_str(&text)
                .with_context(|| format!("{} is not an evaluation set", f.display()))
        })
        .collect()
}

const DAY_MS: i64 = 86_400_000;
/// Day 0 of every set: 2026-01-01 (a fixed clock keeps runs comparable).
pub(crate) const EPOCH_MS: i64 = 1_767_225_600_000;

/// Writes the sets into `conn` (projects interleaved by day, as a person working on both would
/// leave them) and resolves every query's expected keys to stored ids.
pub(crate) fn load(conn: &rusqlite::Connection, sets: &[Project]) -> Result<Loaded> {
    let mut sessions: Vec<(&Project, &Session)> = sets
        .iter()
        .flat_map(|p| p.sessions.iter().map(move |s| (p, s)))
        .collect();
    sessions.sort_by_key(|(_, s)| s.day);
    let mut ids: HashMap<(String, String), (Kind, i64)> = HashMap::new();
    let mut docs = Vec::new();
    let mut clock = EPOCH_MS;
    for (p, s) in &sessions {
        clock = clock.max(EPOCH_MS + s.day * DAY_MS) + 60_000;
        let csid = format!("eval-{}-{}", p.project, s.key);
        conn.execute(
            "INSERT INTO sessions (content_session_id, project, cwd, started_at_epoch, completed_at_epoch, status, prompt_counter)
             VALUES (?1, ?2, ?3, ?4, ?4, 'completed', ?5)",
            params![csid, p.project, format!("/home/dev/{}", p.project), clock, s.prompts.len() as i64],
        )?;
        let session_id = conn.last_insert_rowid();
        let mut key = |k: String, kind: Kind, id: i64, text: String| -> Result<()> {
            if ids
                .insert((p.project.clone(), k.clone()), (kind, id))
                .is_some()
            {
                bail!("{}: key {k} appears twice", p.project);
            }
            docs.push(Doc {
                kind,
                id,
                project: p.project.clone(),
                text,
            });
            Ok(())
        };
        for (i, prompt) in s.prompts.iter().enumerate() {
            clock += 60_000;
            conn.execute(
                "INSERT INTO user_prompts (session_id, content_session_id, prompt_number, prompt_text, created_at_epoch, ended_at_epoch, observed_at_epoch)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?5)",
                params![session_id, csid, i as i64 + 1, prompt, clock],
            )?;
            let id = conn.last_insert_rowid();
            key(
                format!("{}.p{}", s.key, i + 1),
                Kind::Prompt,
                id,
                prompt.clone(),
            )?;
        }
        for o in &s.observations {
            clock += 60_000;
            let new = NewObservation {
                session_id: Some(session_id),
                project: p.project.clone(),
                body: o.body.clone(),
                prompt_number: Some(1),
                created_at: clock,
                source: "eval".into(),
                ..Default::default()
            };
            let id = observations::insert(conn, &new)?
                .with_context(|| format!("{}: observation {} was not stored", p.project, o.key))?;
            let b = &o.body;
            let text = [
                b.title.clone(),
                b.subtitle.clone(),
                b.narrative.clone(),
                Some(b.facts.join(" ")),
                Some(b.concepts.join(" ")),
                Some(b.files_read.join(" ")),
                Some(b.files_modified.join(" ")),
            ];
            key(o.key.clone(), Kind::Observation, id, join(&text))?;
        }
        if let Some(sm) = &s.summary {
            clock += 60_000;
            let files = |f: fn(&ObservationBody) -> &Vec<String>| -> Vec<String> {
                let mut all: Vec<String> = Vec::new();
                for o in &s.observations {
                    for x in f(&o.body) {
                        if !all.contains(x) {
                            all.push(x.clone());
                        }
                    }
                }
                all
            };
            let id = summaries::insert(
                conn,
                &NewSummary {
                    session_id: Some(session_id),
                    project: p.project.clone(),
                    body: SummaryBody {
                        request: sm.request.clone(),
                        investigated: sm.investigated.clone(),
                        learned: sm.learned.clone(),
                        completed: sm.completed.clone(),
                        next_steps: sm.next_steps.clone(),
                        notes: None,
                        files_read: files(|o| &o.files_read),
                        files_edited: files(|o| &o.files_modified),
                    },
                    created_at: clock,
                    source: "eval".into(),
                    ..Default::default()
                },
            )?;
            let text = [
                sm.request.clone(),
                sm.investigated.clone(),
                sm.learned.clone(),
                sm.completed.clone(),
                sm.next_steps.clone(),
            ];
            key(sm.key.clone(), Kind::Summary, id, join(&text))?;
        }
    }
    let mut cases = Vec::new();
    for p in sets {
        for q in &p.queries {
            anyhow::ensure!(
                QUERY_KINDS.contains(&q.kind.as_str()),
                "{}: query {:?} is of an unknown kind {:?} (one of {})",
                p.project,
                q.query,
                q.kind,
                QUERY_KINDS.join(", ")
            );
            let expect = q
                .expect
                .iter()
                .map(|k| {
                    ids.get(&(p.project.clone(), k.clone()))
                        .copied()
                        .with_context(|| {
                            format!("{}: query {:?} expects unknown key {k}", p.project, q.query)
                        })
                })
                .collect::<Result<Vec<_>>>()?;
            cases.push(Case {
                project: p.project.clone(),
                kind: q.kind.clone(),
                query: q.query.clone(),
                expect,
            });
        }
    }
    Ok(Loaded { cases, docs })
}

fn join(parts: &[Option<String>]) -> String {
    parts
        .iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join("\n")
}
