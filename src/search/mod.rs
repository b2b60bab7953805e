//! Search policy: how a query's words and meaning become one ranking. A query's terms are
//! analysed here (`query`, `cjk_query`); the SQL that finds and scores candidates by their
//! words stays in the store (`store::search`: filters, FTS5 windows, BM25 on one scale;
//! `store::terms`: terms as FTS5 matches them; `store::rank`: the ranking functions), and so
//! does the vector cache (`store::vectors`, `store::vector_cache`). Here the two rankings are
//! fused, a question is ranked for answers, a hit brings its session's summary, and auto mode
//! picks the piece of work it details (`work`). The weights tuned for this live in
//! `weights.rs`, with the reason for each value.

mod cjk_query;
mod query;
mod weights;
pub(crate) mod work;

use anyhow::Result;
use rusqlite::Connection;

use crate::model::{IndexRow, Kind, ObsType};
use crate::store::meaning::Semantic;
pub(crate) use crate::store::search::{Hit, Order, Query};
use crate::store::search::{Plan, best_first, rows_by_ids, run, wants};
use crate::store::terms::{Term, Terms};
use weights::WEIGHTS as W;

/// Searches: with text, every record holding any of its terms, best first (fused with the
/// records nearest in meaning when the query's `meaning` is on); without, by date.
pub(crate) fn search(conn: &Connection, q: &Query) -> Result<Vec<Hit>> {
    search_with(conn, q, q.meaning.semantic())
}

/// `search` by meaning too with `semantic` (its model and vectors), or lexical only.
pub(crate) fn search_with(
    conn: &Connection,
    q: &Query,
    semantic: Option<&Semantic>,
) -> Result<Vec<Hit>> {
    let Some(text) = q.text.as_deref().filter(|t| !t.trim().is_empty()) else {
        return run(conn, q, None);
    };
    let terms = query::analyse(text);
    if terms.terms.is_empty() {
        return Ok(Vec::new()); // only punctuation: nothing can match
    }
    let by_meaning = semantic
        .and_then(|s| Some((s, s.model()?)))
        .filter(|_| q.order == Order::Relevance);
    match by_meaning {
        // The query's embedding is most of a hybrid search's time: it is made on another core
        // while the words are searched. Without a single vector to compare it with (before the
        // first background embedding of this memory) it would only be waited for, so it is
        // not made, and the ranking is the one a search finding nothing by meaning gives; a
        // table-lookup model makes the vectors inside the search, so it always embeds.
        Some((semantic, model)) => std::thread::scope(|scope| {
            let comparable = model.inline() || crate::store::vectors::any(conn, model.id())?;
            let embedding = comparable.then(|| scope.spawn(|| model.query(text)));
            let embedded = || {
                embedding?.join().unwrap_or_else(|_| {
                    crate::logging::error("search: embedding the query failed; words only");
                    None
                })
            };
            ranked(
                conn,
                q,
                &terms,
                text,
                Some((semantic, model, Box::new(embedded))),
            )
        }),
        _ => ranked(conn, q, &terms, text, None),
    }
}

/// The search's semantic state, its model, and the query's embedding when the search asks
/// for it.
type Embedding<'a> = (
    &'a Semantic,
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
    crate::store::steps::mark("query plan");
    if q.order != Order::Relevance {
        return run(conn, q, Some(&plan));
    }
    let wide = Query {
        limit: (q.limit + q.offset).max(W.fusion_pool),
        offset: 0,
        ..q.clone()
    };
    let ranked = match model {
        Some((semantic, model, embedded)) => {
            hybrid(conn, &wide, &plan, semantic, model, embedded, text)?
        }
        None => {
            let lexical = run(conn, &wide, Some(&plan))?;
            crate::store::steps::mark("lexical search");
            lexical
        }
    };
    let ranked = with_session_summaries(ranked);
    let ranked = if asks_a_question(text) {
        for_a_question(ranked)
    } else {
        ranked
    };
    // Last, so no later re-weighting scales the shift it gives.
    let ranked = if names_identifier(text) {
        with_literal_identifiers_first(conn, ranked, text)?
    } else {
        ranked
    };
    crate::store::steps::mark("summaries and questions");
    Ok(ranked.into_iter().skip(q.offset).take(q.limit).collect())
}

/// A query made of identifiers names one thing: among the first `fusion_pool` hits, the
/// records that hold each joined identifier as written (`refresh_token_ttl`, `X-Api-Key`, any
/// case) come first, most identifiers held first, each group in its order. The index splits
/// an identifier into its words, so a record saying `refresh token` and `ttl` often enough
/// otherwise outranks the one record that names it.
fn with_literal_identifiers_first(
    conn: &Connection,
    hits: Vec<Hit>,
    text: &str,
) -> Result<Vec<Hit>> {
    let needles: Vec<String> = text
        .split_whitespace()
        .map(|c| c.trim_matches(|ch: char| !ch.is_alphanumeric() && ch != '_'))
        .filter(|c| query::parts(c).len() > 1)
        .map(str::to_lowercase)
        .collect();
    if needles.is_empty() {
        return Ok(hits);
    }
    let pool = hits.len().min(W.fusion_pool);
    let mut texts = std::collections::HashMap::new();
    for kind in [Kind::Observation, Kind::Summary, Kind::Prompt] {
        let ids: Vec<i64> = hits[..pool]
            .iter()
            .filter(|h| h.row.kind == kind)
            .map(|h| h.row.id)
            .collect();
        for (id, t) in crate::store::search::indexed_texts(conn, kind, &ids)? {
            texts.insert((kind, id), t.to_lowercase());
        }
    }
    let held = |h: &Hit| {
        texts.get(&(h.row.kind, h.row.id)).map_or(0, |t| {
            needles
                .iter()
                .filter(|n| crate::text::whole_occurrences(t, n) > 0)
                .count()
        })
    };
    let counts: Vec<usize> = hits[..pool].iter().map(&held).collect();
    if counts.iter().all(|&n| n == 0) {
        return Ok(hits);
    }
    // Ranks are lower-is-better: each identifier held moves a record past the whole span of
    // the pool's ranks, so the order within one count stands.
    let (lo, hi) = hits[..pool]
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), h| {
            (lo.min(h.rank), hi.max(h.rank))
        });
    let span = (hi - lo).max(0.0) + 1.0;
    let mut hits = hits;
    for (h, n) in hits.iter_mut().zip(counts) {
        h.rank -= n as f64 * span;
    }
    hits.sort_by(best_first);
    Ok(hits)
}

/// A session's summary tells the piece of work a matching record belongs to: when the best
/// hit's session summary is a candidate too, it ranks right after that hit (auto mode's
/// details then hold the fix and its summary, not two near-duplicates).
fn with_session_summaries(mut hits: Vec<Hit>) -> Vec<Hit> {
    let pulled: Vec<(i64, f64)> = hits
        .iter()
        .take(W.summary_pull)
        .filter(|h| h.row.kind != Kind::Summary)
        .filter_map(|h| Some((h.row.session_id?, h.rank * W.summary_share)))
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

/// Whether a query is shaped as a question (asked by its form, not by what it is about): it
/// ends with a question mark or opens with an interrogative or an auxiliary verb (or is a
/// Chinese question, `cjk_query::asks_a_question`).
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
        || cjk_query::asks_a_question(text)
}

/// A question's ranking: the records that answer count `W.answer_weight` times as much.
fn for_a_question(mut hits: Vec<Hit>) -> Vec<Hit> {
    for h in &mut hits {
        let answers = h
            .row
            .obs_type
            .as_deref()
            .and_then(ObsType::parse)
            .is_some_and(|t| matches!(t, ObsType::Bugfix | ObsType::Decision | ObsType::Discovery));
        if answers {
            h.rank *= W.answer_weight;
        }
    }
    hits.sort_by(best_first);
    hits
}

/// A record's share of the fusion from its place (from 0) in the lexical and the semantic
/// ranking, when it is in them.
fn fused_score(lexical: Option<usize>, semantic: Option<usize>, other_script: bool) -> f64 {
    let share = |weight: f64, rank: Option<usize>| {
        rank.map_or(0.0, |r| weight / (W.fusion_k + r as f64 + 1.0))
    };
    let semantic_weight = if other_script {
        W.other_script_weight
    } else {
        W.semantic_weight
    };
    share(W.lexical_weight, lexical) + share(semantic_weight, semantic)
}

/// The least centred cosine of a semantic candidate. Every text has some nearest record; when
/// no word of the query is in memory, meaning alone speaks for a record of the query's script
/// (a typo'd identifier, an abbreviation the notes spell out), and it must speak clearly. A
/// record in another script shares no word with the query by nature (a Chinese question asked
/// of English notes), so the words' silence says nothing about it; a language's text lies
/// farther from another language's, so such a record may be a candidate a little below the
/// floor, counting less (`other_script_trust`). Not a prompt: a question of a line lies near
/// every other question in meaning, more so across languages.
fn floor(kind: Kind, other_script: bool, query_knows_a_word: bool) -> f64 {
    if other_script && kind != Kind::Prompt {
        W.other_script_floor
    } else if query_knows_a_word {
        W.min_similarity
    } else {
        W.min_similarity_alone
    }
}

/// How much of its semantic share a record in another script than the query's keeps: all of it
/// from `min_similarity` up, less the nearer its cosine is to `other_script_floor`, so a record
/// found only there leads where nothing else answers, and gives way to a record of the query's
/// own language that does.
fn other_script_trust(score: f64) -> f64 {
    ((score - W.other_script_floor) / (W.min_similarity - W.other_script_floor)).clamp(0.0, 1.0)
}

/// Adds to each fused record `W.session_meaning` of the semantic shares (`by_meaning`) of the
/// best `W.session_witnesses` other records of its session: a piece of work whose summary and
/// observations are near the query in meaning is the one it describes, more than a record of
/// another session that shares some of its words. Only meaning counts here: a session repeats
/// its own words in every record, so lexical evidence summed over it would only count the
/// same words again. Only the best few count: a long session about the same subsystem holds
/// many records near any query about it, and would otherwise outweigh the one that answers.
fn with_session_meaning(
    fused: &mut [(Kind, i64, f64)],
    by_meaning: &[(Kind, i64, f64)],
    rows: &[IndexRow],
) {
    use std::collections::HashMap;
    let sessions: HashMap<(Kind, i64), i64> = rows
        .iter()
        .filter_map(|r| Some(((r.kind, r.id), r.session_id?)))
        .collect();
    let session_of = |kind: Kind, id: i64| sessions.get(&(kind, id)).copied();
    let mut members: HashMap<i64, Vec<(Kind, i64, f64)>> = HashMap::new();
    for &(kind, id, share) in by_meaning {
        if let Some(session) = session_of(kind, id) {
            members.entry(session).or_default().push((kind, id, share));
        }
    }
    // Largest shares first: a record in another script than the query's weighs more than its
    // rank alone says (`fused_score`).
    for list in members.values_mut() {
        list.sort_by(|a, b| b.2.partial_cmp(&a.2).unwrap_or(std::cmp::Ordering::Equal));
    }
    for f in fused.iter_mut() {
        let Some(members) = session_of(f.0, f.1).and_then(|s| members.get(&s)) else {
            continue;
        };
        let witnesses: f64 = members
            .iter()
            .filter(|m| (m.0, m.1) != (f.0, f.1))
            .take(W.session_witnesses)
            .map(|m| m.2)
            .sum();
        f.2 += W.session_meaning * witnesses;
    }
}

/// The lexical and the semantic ranking fused by reciprocal rank.
fn hybrid(
    conn: &Connection,
    q: &Query,
    plan: &Plan,
    semantic: &Semantic,
    model: &crate::embed::Encoder,
    embedded: Box<dyn FnOnce() -> Option<Vec<f32>> + '_>,
    text: &str,
) -> Result<Vec<Hit>> {
    let pool = q.limit;
    let lexical = run(conn, q, Some(plan))?;
    crate::store::steps::mark("lexical search");
    // A table-lookup model embeds what is missing here; the multilingual encoder leaves that to
    // `cmem model backfill`, and a record without its vector yet is found by its words.
    let full = model.inline()
        && !semantic
            .full_pass
            .swap(true, std::sync::atomic::Ordering::Relaxed);
    if model.inline()
        && let Err(e) = crate::store::vectors::embed_missing(conn, model, full)
    {
        // Vectors are derived data: a search that cannot write them (another process holds
        // the write lock past the busy wait) ranks with the vectors there are, and a later
        // search embeds the rest, with the full pass again if this was it.
        crate::logging::error(format!(
            "search: records left without vectors this time: {e:#}"
        ));
        if full {
            semantic
                .full_pass
                .store(false, std::sync::atomic::Ordering::Relaxed);
        }
    }
    crate::store::steps::mark("embed missing records");
    let kinds: Vec<Kind> = [Kind::Observation, Kind::Summary, Kind::Prompt]
        .into_iter()
        .filter(|k| wants(q, *k))
        .collect();
    let embedded = embedded();
    let query_cjk = crate::store::cjk::mostly_cjk(text);
    crate::store::steps::mark("query embedding");
    let semantic = match embedded {
        Some(v) => crate::store::vectors::nearest(
            conn,
            model,
            &semantic.vectors,
            &v,
            query_cjk,
            &q.projects,
            &kinds,
            pool,
            None,
        )?
        .into_iter()
        .filter(|n| f64::from(n.score) >= floor(n.kind, n.cjk != query_cjk, plan.knows_a_word()))
        .collect(),
        None => Vec::new(),
    };
    let mut rows: Vec<IndexRow> = lexical.iter().map(|h| h.row.clone()).collect();
    for kind in &kinds {
        let missing: Vec<i64> = semantic
            .iter()
            .filter(|s| s.kind == *kind && !rows.iter().any(|r| (r.kind, r.id) == (s.kind, s.id)))
            .map(|s| s.id)
            .collect();
        rows.extend(rows_by_ids(conn, q, *kind, &missing)?);
    }
    crate::store::steps::mark("semantic candidates' rows");
    // A prompt of a word or two ("Fix it.", "Implement that.") says nothing a meaning could
    // match, and so lies near every query: it is found by its words or through its session.
    let semantic: Vec<_> = semantic
        .into_iter()
        .filter(|n| {
            n.kind != Kind::Prompt
                || lexical
                    .iter()
                    .any(|h| (h.row.kind, h.row.id) == (n.kind, n.id))
                || rows
                    .iter()
                    .find(|r| (r.kind, r.id) == (n.kind, n.id))
                    .is_some_and(|r| query::analyse(&r.title).terms.len() >= 2)
        })
        .collect();
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
    let mut by_meaning: Vec<(Kind, i64, f64)> = Vec::with_capacity(semantic.len());
    for (rank, n) in semantic.iter().enumerate() {
        let other_script = n.cjk != query_cjk;
        let mut share = fused_score(None, Some(rank), other_script);
        if other_script {
            share *= other_script_trust(f64::from(n.score));
        }
        add(n.kind, n.id, share);
        by_meaning.push((n.kind, n.id, share));
    }
    with_session_meaning(&mut fused, &by_meaning, &rows);
    crate::store::steps::mark("fusion scores");
    let covers: Vec<(Kind, i64, f64)> = lexical
        .iter()
        .map(|h| (h.row.kind, h.row.id, h.cover))
        .collect();
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
    crate::store::steps::mark("fused hits");
    Ok(hits)
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
mod ranking_rules {
    use super::*;
    use crate::model::SummaryBody;
    use crate::store::Store;
    use crate::store::search::turn_records;
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
    fn a_record_in_another_script_counts_less_the_nearer_it_lies_to_its_floor() {
        assert!(floor(Kind::Observation, true, true) < floor(Kind::Observation, false, true));
        assert_eq!(
            floor(Kind::Prompt, true, true),
            floor(Kind::Prompt, false, true)
        );
        assert_eq!(other_script_trust(W.other_script_floor), 0.0);
        assert_eq!(other_script_trust(W.min_similarity), 1.0);
        assert_eq!(other_script_trust(0.6), 1.0);
        let halfway = other_script_trust((W.other_script_floor + W.min_similarity) / 2.0);
        assert!((halfway - 0.5).abs() < 1e-9, "{halfway}");
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
    fn the_record_naming_an_identifier_outranks_records_full_of_its_words() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        for i in 0..12 {
            obs(
                c,
                &format!("refresh token ttl: token refresh ttl token ({i})"),
                i,
            );
        }
        let named = obs(c, "set refresh_token_ttl where it mattered", 20);
        for i in 0..12 {
            obs(
                c,
                &format!("the refresh token and its ttl again ({i})"),
                30 + i,
            );
        }
        assert_eq!(first(c, "refresh_token_ttl"), (Kind::Observation, named));
        assert_eq!(
            first(c, "REFRESH_TOKEN_TTL"),
            (Kind::Observation, named),
            "any case"
        );
        // Glued to more (`refresh_token_ttl_ms`) is another name; plain words are no identifier.
        let longer = obs(c, "set refresh_token_ttl_ms everywhere", 50);
        assert_eq!(first(c, "refresh_token_ttl"), (Kind::Observation, named));
        assert_ne!(first(c, "refresh token ttl"), (Kind::Observation, named));
        assert_ne!(longer, named);
        // An identifier opening with `_` is held as written too.
        let private = obs(c, "self._compute_total() rounds half up", 60);
        for i in 0..6 {
            obs(c, &format!("compute the total again ({i})"), 70 + i);
        }
        assert_eq!(first(c, "_compute_total"), (Kind::Observation, private));
    }

    #[test]
    fn an_identifier_no_record_holds_as_written_is_found_by_its_parts() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        for i in 0..6 {
            obs(c, &format!("orders page renders late ({i})"), i);
        }
        let apart = obs(c, "the customer_id column of orders gets an index", 10);
        assert_eq!(first(c, "orders.customer_id"), (Kind::Observation, apart));
        // Held as written, the identifier still outranks its parts apart.
        let whole = obs(c, "orders.customer_id is nullable", 11);
        assert_eq!(first(c, "orders.customer_id"), (Kind::Observation, whole));
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

#[cfg(test)]
mod session_meaning {
    use super::*;

    fn row(kind: Kind, id: i64, session: Option<i64>) -> IndexRow {
        IndexRow {
            kind,
            id,
            project: "p".into(),
            title: String::new(),
            obs_type: None,
            created_at: id,
            session_id: session,
            read_tokens: 0,
            work_tokens: 0,
            since: None,
        }
    }

    #[test]
    fn a_record_gains_the_meaning_of_the_best_other_records_of_its_session() {
        let o = Kind::Observation;
        // Record 1 leads by its words alone (session 10); record 2 (session 20) is the
        // nearest in meaning, then its session's summary 3 and records 5 and 6; record 4 has
        // no session.
        let rows = vec![
            row(o, 1, Some(10)),
            row(o, 2, Some(20)),
            row(Kind::Summary, 3, Some(20)),
            row(o, 4, None),
            row(o, 5, Some(20)),
            row(o, 6, Some(20)),
        ];
        let by_meaning = vec![
            (o, 2, 0.2),
            (Kind::Summary, 3, 0.15),
            (o, 4, 0.1),
            (o, 5, 0.05),
            (o, 6, 0.01),
        ];
        let mut fused = vec![
            (o, 1, 0.3),
            (o, 2, 0.2),
            (Kind::Summary, 3, 0.15),
            (o, 4, 0.1),
        ];
        with_session_meaning(&mut fused, &by_meaning, &rows);
        let score = |id: i64| fused.iter().find(|f| f.1 == id).map(|f| f.2).unwrap();
        let w = W.session_meaning;
        assert_eq!(W.session_witnesses, 2);
        // Only the best two other records of the same session count, never a record's own
        // share, and nothing for a record without a session or alone in its session.
        assert!((score(1) - 0.3).abs() < 1e-12);
        assert!((score(2) - (0.2 + w * (0.15 + 0.05))).abs() < 1e-12);
        assert!((score(3) - (0.15 + w * (0.2 + 0.05))).abs() < 1e-12);
        assert!((score(4) - 0.1).abs() < 1e-12);
    }
}
