//! `cmem dev eval-search`: how often search puts the records a query is about first, per kind
//! of query, for cmem's rankings and for plain-SQLite baselines built from the same records in
//! the same run — so every figure is read beside the baseline it must beat. (`observer` does
//! the same for the rule-based observer: `cmem dev eval-observer`.)

pub mod baseline;
pub mod fixture;
pub mod metrics;
pub mod observer;

use std::path::Path;

use std::io::Write as _;

use anyhow::{Context, Result};
use serde_json::json;

use crate::disclosure::Engine;
use crate::model::Kind;
use crate::search;
use crate::store::Store;
use baseline::Baseline;
use fixture::{Case, QUERY_KINDS};
use metrics::Figures;

/// How many records of each ranking `--dump` writes, enough for another ranking to fuse with.
const DUMP_DEPTH: usize = 50;

/// A way of ranking records for a query, best first.
pub(crate) const SYSTEMS: [&str; 6] = [
    "cmem auto",
    "cmem lexical",
    "cmem semantic",
    "bm25 OR",
    "bm25 OR porter",
    "bm25 OR trigram",
];

/// The figures of every system, overall and per kind of query.
pub struct Report {
    pub set: String,
    pub records: usize,
    pub rows: Vec<(String, Vec<(String, Figures)>)>,
    pub misses: Vec<String>,
}

/// Loads the set(s) at `path` into a throw-away store and scores every system on them.
/// With `dump`, every record and every query's rankings are also written there as JSON lines.
pub fn run(path: &Path, dump: Option<&mut dyn std::io::Write>) -> Result<Report> {
    run_with(path, dump, true)
}

/// `run` by words alone (`by_meaning` false): `cmem auto` as with `search.semantic = false`, and
/// `cmem semantic` ranks nothing. For quick checks of the lexical ranking, which need no model.
pub fn run_with(
    path: &Path,
    mut dump: Option<&mut dyn std::io::Write>,
    by_meaning: bool,
) -> Result<Report> {
    let sets = fixture::read(path)?;
    let dir = ScratchDir::new()?;
    // mem_search as the MCP server runs it, with the model compiled in (the scratch data dir
    // has none installed): figures do not depend on what this machine installed.
    let meaning = crate::store::meaning::Meaning::when(by_meaning, dir.0.clone());
    let store = Store::open(&dir.0.join("eval.db"))?;
    let loaded = fixture::load(&store.conn, &sets)?;
    // Every record with its vector, as after `cmem model backfill`: the figures are those of a
    // store whose background embedding has caught up.
    if let Some(model) = meaning.model() {
        crate::store::vectors::backfill(&store.conn, model, crate::embed::threads(), &mut |_| {
            true
        })?;
    }
    let plain = Baseline::build(&loaded.docs, "unicode61")?;
    let porter = Baseline::build(&loaded.docs, "porter unicode61")?;
    // Substrings of three characters: what SQLite offers for text without spaces.
    let trigram = Baseline::build(&loaded.docs, "trigram")?;
    let mut per_system: Vec<Vec<(String, Figures)>> = vec![Vec::new(); SYSTEMS.len()];
    let mut misses = Vec::new();
    let depth = if dump.is_some() { DUMP_DEPTH } else { 10 };
    if let Some(out) = dump.as_mut() {
        for d in &loaded.docs {
            let line = json!({"set": path.display().to_string(), "record": d.kind.display_id(d.id),
                "project": d.project, "text": d.text});
            writeln!(out, "{line}").context("cannot write the dump")?;
        }
    }
    for case in &loaded.cases {
        let mut rankings = [
            auto(&store, &meaning, case, depth)?,
            lexical(&store, case, depth)?,
            semantic(&store, &meaning, case, depth)?,
            plain.search(&case.project, &case.query, depth)?,
            porter.search(&case.project, &case.query, depth)?,
            trigram.search(&case.project, &case.query, depth)?,
        ];
        if let Some(out) = dump.as_mut() {
            let by_system: serde_json::Map<String, serde_json::Value> = SYSTEMS
                .iter()
                .zip(&rankings)
                .map(|(name, ranked)| {
                    (
                        name.to_string(),
                        json!(
                            ranked
                                .iter()
                                .map(|(k, id)| k.display_id(*id))
                                .collect::<Vec<_>>()
                        ),
                    )
                })
                .collect();
            let line = json!({"set": path.display().to_string(), "query": case.query, "kind": case.kind,
                "project": case.project, "expect": case.expect.iter().map(|(k, id)| k.display_id(*id)).collect::<Vec<_>>(),
                "rankings": by_system});
            writeln!(out, "{line}").context("cannot write the dump")?;
        }
        for ranked in rankings.iter_mut() {
            ranked.truncate(10);
        }
        for (i, ranked) in rankings.iter().enumerate() {
            let f = metrics::score(&case.expect, ranked);
            if i == 0 && f.recall3 < 1.0 {
                misses.push(format!(
                    "{:<10} {:?}: expected {}, got {}",
                    case.kind,
                    case.query,
                    ids(&case.expect),
                    ids(&ranked[..ranked.len().min(3)])
                ));
            }
            per_system[i].push((case.kind.clone(), f));
        }
    }
    let mut rows = Vec::new();
    for (name, scored) in SYSTEMS.iter().zip(&per_system) {
        let mut groups = vec![(
            "all".to_string(),
            metrics::mean(&scored.iter().map(|s| s.1).collect::<Vec<_>>()),
        )];
        for kind in QUERY_KINDS {
            let of_kind: Vec<Figures> =
                scored.iter().filter(|s| s.0 == kind).map(|s| s.1).collect();
            if !of_kind.is_empty() {
                groups.push((kind.to_string(), metrics::mean(&of_kind)));
            }
        }
        rows.push((name.to_string(), groups));
    }
    Ok(Report {
        set: path.display().to_string(),
        records: loaded.docs.len(),
        rows,
        misses,
    })
}

/// A private directory for a throw-away store, removed when the run ends.
pub(crate) struct ScratchDir(pub(crate) std::path::PathBuf);

impl ScratchDir {
    pub(crate) fn new() -> Result<ScratchDir> {
        // One run makes many in a millisecond (a home per observer turn): a counter tells them
        // apart.
        static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "cmem-eval-{}-{}-{}",
            std::process::id(),
            crate::clock::now_ms(),
            MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        Ok(ScratchDir(path))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn ids(list: &[(Kind, i64)]) -> String {
    let shown: Vec<String> = list.iter().map(|(k, id)| k.display_id(*id)).collect();
    format!("[{}]", shown.join(", "))
}

fn parse_display_id(id: &str) -> Option<(Kind, i64)> {
    let (kind, digits) = match id.as_bytes().first()? {
        b'S' => (Kind::Summary, &id[1..]),
        b'P' => (Kind::Prompt, &id[1..]),
        _ => (Kind::Observation, id),
    };
    digits.parse().ok().map(|n| (kind, n))
}

/// mem_search in auto mode: its details first, then the rest of the ranking.
fn auto(
    store: &Store,
    meaning: &crate::store::meaning::Meaning,
    case: &Case,
    depth: usize,
) -> Result<Vec<(Kind, i64)>> {
    let mut engine = Engine::new(vec![case.project.clone()], meaning.clone())?;
    let reply = engine
        .call(
            Some(&store.conn),
            &json!({"mode": "auto", "query": case.query, "maxDetails": 3}),
            fixture::EPOCH_MS + 400 * 86_400_000,
        )
        .map_err(|e| anyhow::anyhow!("mem_search {:?}: {} {}", case.query, e.code, e.message))?;
    let mut ranked: Vec<(Kind, i64)> = reply
        .details
        .iter()
        .filter_map(|d| parse_display_id(&d.id))
        .collect();
    for r in lexical(store, case, depth)? {
        if !ranked.contains(&r) {
            ranked.push(r);
        }
    }
    ranked.truncate(depth);
    Ok(ranked)
}

/// The records nearest in meaning, alone.
fn semantic(
    store: &Store,
    meaning: &crate::store::meaning::Meaning,
    case: &Case,
    depth: usize,
) -> Result<Vec<(Kind, i64)>> {
    let Some(semantic) = meaning.semantic() else {
        return Ok(Vec::new());
    };
    let model = semantic
        .model()
        .context("the embedding model did not load")?;
    let Some(v) = model.query(&case.query) else {
        return Ok(Vec::new());
    };
    let near = crate::store::vectors::nearest(
        &store.conn,
        model,
        &semantic.vectors,
        &v,
        crate::store::cjk::mostly_cjk(&case.query),
        std::slice::from_ref(&case.project),
        &[Kind::Observation, Kind::Summary, Kind::Prompt],
        depth,
        None,
    )?;
    Ok(near.into_iter().map(|n| (n.kind, n.id)).collect())
}

/// `search::search`, the ranking the legacy tool, the TUI and step 1 share.
fn lexical(store: &Store, case: &Case, depth: usize) -> Result<Vec<(Kind, i64)>> {
    let hits = search::search_with(
        &store.conn,
        &search::Query {
            text: Some(case.query.clone()),
            projects: vec![case.project.clone()],
            limit: depth,
            ..Default::default()
        },
        None,
    )?;
    Ok(hits.iter().map(|h| (h.row.kind, h.row.id)).collect())
}

impl Report {
    /// The report as a table: one block per kind, one line per system.
    pub fn to_text(&self, show_misses: bool) -> String {
        let mut out = format!(
            "{}: {} records, {} queries\n",
            self.set,
            self.records,
            self.rows.first().map_or(0, |r| r.1[0].1.queries)
        );
        out.push_str(&format!(
            "{:<12} {:<16} {:>8} {:>9} {:>6}\n",
            "queries", "system", "recall@3", "recall@10", "MRR"
        ));
        let groups = self.rows.first().map_or(0, |r| r.1.len());
        for g in 0..groups {
            for (name, figures) in &self.rows {
                let (group, f) = &figures[g];
                out.push_str(&format!(
                    "{:<12} {:<16} {:>8.3} {:>9.3} {:>6.3}\n",
                    format!("{group} ({})", f.queries),
                    name,
                    f.recall3,
                    f.recall10,
                    f.mrr
                ));
            }
        }
        if show_misses && !self.misses.is_empty() {
            out.push_str(&format!(
                "\ncmem auto below full recall@3 ({}):\n",
                self.misses.len()
            ));
            for m in &self.misses {
                out.push_str(&format!("  {m}\n"));
            }
        }
        out
    }

    /// The figures of one system for one group (`all` or a kind).
    pub fn figures(&self, system: &str, group: &str) -> Option<Figures> {
        self.rows
            .iter()
            .find(|r| r.0 == system)?
            .1
            .iter()
            .find(|g| g.0 == group)
            .map(|g| g.1)
    }
}
