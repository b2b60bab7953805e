//! Auto mode's details: the piece of work the query is about, not its best few near-duplicates.
//!
//! The best hit names the piece of work (its session, and the turn in it that a summary closes).
//! Measured on the tuning set, what auto mode missed were the other records of that work (the
//! follow-up, the session's summary), while records of other sessions that hold only some of the
//! query's words took their places. So the details are, in this order:
//! 1. the best hit (see `best`: a prompt that ranks first names its session's best record, and
//!    for a question or a few words a summary that ranks first names its session's best
//!    observation);
//! 2. records holding every term of the query, best first: of the best hit's session only, unless
//!    the query is an identifier (an identifier used in two places names one thing; plain words
//!    recur across pieces of work);
//! 3. the ranking's runner-up (`Weights::ranked_first`), if it is of the same session;
//! 4. the summary that closes the best hit's turn, which tells the work in other words;
//! 5. the other records holding every term;
//! 6. the best hit's session's other candidates, best first;
//! 7. the observations of the best hit's turn that the query does not match, in the order they
//!    were made (a paraphrase often matches only the summary, which tells the work they did);
//! 8. the rest of the ranking.
//!
//! Prompts are context only and never details.

use super::weights::WEIGHTS as W;
use crate::model::{IndexRow, Kind};
use crate::search::{self, Hit};

/// A hit holds every term when its share of the query's term weight is (within rounding) 1.
const EVERY_TERM: f64 = 1.0 - 1e-9;

/// What a query asks, read from its form: it decides how the details cover the work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Asked {
    /// It names an identifier: every record holding it is about the same thing, whatever its
    /// work.
    pub identifier: bool,
    /// It asks for something specific — a question, or a few words naming a thing — which one
    /// of the work's observations holds, where a summary tells a whole session's work.
    pub specific: bool,
}

impl Asked {
    pub(crate) fn of(query: &str) -> Asked {
        Asked {
            identifier: search::names_identifier(query),
            specific: search::asks_a_question(query) || search::terms(query).len() <= W.few_words,
        }
    }
}

/// The hit that names the piece of work: the best record, unless a prompt ranks above every
/// record. A prompt is the user's own words for what the session was to do, so when it matches
/// best it names its session, and that session's best record stands for it (prompts themselves
/// are never details). For a specific query, a summary that ranks best names its session too,
/// and that session's best observation leads: the summary tells the whole work, the observation
/// the answer asked for (the summary stays among the details). This raised the MRR of questions
/// and keyword queries and left recall and paraphrases (long, describing the work) as they were
/// (docs/search-ranking.md).
pub(crate) fn best(hits: &[Hit], asked: Asked) -> Option<&Hit> {
    let first_record = hits.iter().find(|h| h.row.kind != Kind::Prompt);
    let best_of_session = |lead: &Hit, kinds: &[Kind]| {
        let session = lead.row.session_id?;
        hits.iter()
            .find(|h| kinds.contains(&h.row.kind) && h.row.session_id == Some(session))
    };
    let named = hits
        .first()
        .filter(|h| h.row.kind == Kind::Prompt)
        .and_then(|p| best_of_session(p, &[Kind::Observation, Kind::Summary]));
    let chosen = named.or(first_record)?;
    if asked.specific && chosen.row.kind == Kind::Summary {
        return best_of_session(chosen, &[Kind::Observation]).or(Some(chosen));
    }
    Some(chosen)
}

/// The records auto mode details, best first: at most `max`, from `hits` (best first), the
/// summary of the best hit's turn (`summary`, when the best hit is not itself a summary) and the
/// observations of that turn (`turn`, in the order they were made), as the query `asked`.
pub(crate) fn details<'a>(
    hits: &'a [Hit],
    summary: Option<&'a IndexRow>,
    turn: &'a [IndexRow],
    asked: Asked,
    max: usize,
) -> Vec<&'a IndexRow> {
    let records: Vec<&Hit> = hits.iter().filter(|h| h.row.kind != Kind::Prompt).collect();
    let Some(top) = best(hits, asked) else {
        return Vec::new();
    };
    let identifier = asked.identifier;
    let session = top.row.session_id;
    let same_work = |h: &&Hit| session.is_some() && h.row.session_id == session;
    let complete = |h: &&&Hit| h.cover >= EVERY_TERM;
    // Plain words recur across pieces of work: the best hit's own complete matches and its
    // summary come before complete matches elsewhere. An identifier's matches are all answers.
    let first_complete: Vec<&IndexRow> = records
        .iter()
        .filter(complete)
        .filter(|h| identifier || same_work(h))
        .map(|h| &h.row)
        .collect();
    let leaders = records.iter().take(W.ranked_first);
    let order = std::iter::once(&top.row)
        .chain(first_complete)
        .chain(leaders.filter(|h| same_work(h)).map(|h| &h.row))
        .chain(summary.filter(|s| s.kind == Kind::Summary))
        .chain(records.iter().filter(complete).map(|h| &h.row))
        .chain(records.iter().filter(|h| same_work(h)).map(|h| &h.row))
        .chain(
            turn.iter()
                .filter(|r| session.is_some() && r.session_id == session),
        )
        .chain(records.iter().map(|h| &h.row));
    let mut chosen: Vec<&IndexRow> = Vec::new();
    for row in order {
        if chosen.len() >= max {
            break;
        }
        if !chosen.iter().any(|c| (c.kind, c.id) == (row.kind, row.id)) {
            chosen.push(row);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(kind: Kind, id: i64, session: i64, cover: f64) -> Hit {
        Hit {
            row: IndexRow {
                kind,
                id,
                project: "p".into(),
                title: format!("{id}"),
                obs_type: None,
                created_at: id,
                session_id: Some(session),
                read_tokens: 0,
                work_tokens: 0,
                since: None,
            },
            rank: -(100 - id) as f64,
            cover,
        }
    }

    fn ids(rows: &[&IndexRow]) -> Vec<(Kind, i64)> {
        rows.iter().map(|r| (r.kind, r.id)).collect()
    }

    const O: Kind = Kind::Observation;
    const S: Kind = Kind::Summary;
    const WORDS: Asked = Asked {
        identifier: false,
        specific: false,
    };
    const IDENTIFIER: Asked = Asked {
        identifier: true,
        specific: true,
    };
    const QUESTION: Asked = Asked {
        identifier: false,
        specific: true,
    };

    #[test]
    fn a_specific_query_is_answered_by_an_observation_before_its_summary() {
        // The summary of session 1 ranks best; its observation 3 ranks below a record of
        // session 2.
        let hits = vec![hit(S, 1, 1, 0.8), hit(O, 2, 2, 0.6), hit(O, 3, 1, 0.5)];
        assert_eq!(best(&hits, QUESTION).map(|h| h.row.id), Some(3));
        assert_eq!(
            ids(&details(&hits, None, &[], QUESTION, 3)),
            vec![(O, 3), (S, 1), (O, 2)]
        );
        // Words describing the work: the summary leads.
        assert_eq!(
            ids(&details(&hits, None, &[], WORDS, 3)),
            vec![(S, 1), (O, 3), (O, 2)]
        );
        // A summary with no observation among the hits stays the answer.
        let alone = vec![hit(S, 1, 1, 0.8), hit(O, 2, 2, 0.6)];
        assert_eq!(best(&alone, QUESTION).map(|h| h.row.id), Some(1));
        assert_eq!(Asked::of("why did checkout fail?"), QUESTION);
        assert_eq!(Asked::of("checkout failure"), QUESTION); // a few words name a thing
        assert_eq!(Asked::of("checkout_total"), IDENTIFIER);
        assert_eq!(
            Asked::of("the checkout page hangs for a minute after paying"),
            WORDS
        );
    }

    #[test]
    fn the_best_hits_summary_and_session_outrank_partial_matches_elsewhere() {
        // The fix (session 1) matches best; two records of other sessions hold some of the
        // words; the fix's follow-up in session 1 ranks below them.
        let hits = vec![
            hit(O, 1, 1, 0.7),
            hit(O, 2, 2, 0.4),
            hit(O, 3, 3, 0.4),
            hit(O, 4, 1, 0.3),
        ];
        let summary = hit(S, 9, 1, 0.0).row;
        assert_eq!(
            ids(&details(&hits, Some(&summary), &[], WORDS, 3)),
            vec![(O, 1), (S, 9), (O, 4)]
        );
        // Without a summary the session's other record still comes before other sessions'.
        assert_eq!(
            ids(&details(&hits, None, &[], WORDS, 3)),
            vec![(O, 1), (O, 4), (O, 2)]
        );
    }

    #[test]
    fn records_holding_every_term_keep_their_place_before_the_summary() {
        // An identifier used in two sessions: both records hold it; the summary follows them.
        let hits = vec![
            hit(O, 1, 1, 1.0),
            hit(O, 2, 2, 1.0),
            hit(O, 3, 1, 0.5),
            hit(Kind::Prompt, 4, 1, 1.0),
        ];
        let summary = hit(S, 9, 1, 0.0).row;
        assert_eq!(
            ids(&details(&hits, Some(&summary), &[], IDENTIFIER, 3)),
            vec![(O, 1), (O, 2), (S, 9)]
        );
        // Plain words recur across pieces of work: the best hit's summary comes first.
        assert_eq!(
            ids(&details(&hits, Some(&summary), &[], WORDS, 3)),
            vec![(O, 1), (S, 9), (O, 2)]
        );
        // Prompts are never details; nothing is repeated; fewer hits, fewer details.
        assert_eq!(
            ids(&details(&hits[..1], Some(&summary), &[], IDENTIFIER, 3)),
            vec![(O, 1), (S, 9)]
        );
        assert!(details(&hits[3..], Some(&summary), &[], IDENTIFIER, 3).is_empty());
    }

    #[test]
    fn records_without_a_session_are_no_piece_of_work() {
        let mut hits = vec![hit(O, 1, 1, 0.5), hit(O, 2, 2, 0.5), hit(O, 3, 1, 0.5)];
        for h in &mut hits {
            h.row.session_id = None;
        }
        assert_eq!(
            ids(&details(&hits, None, &[], WORDS, 2)),
            vec![(O, 1), (O, 2)]
        );
    }

    #[test]
    fn plain_words_put_the_best_hits_own_complete_matches_and_summary_first() {
        // "S3 lifecycle": the best hit's session holds another complete match (3), so does
        // another session (2), ranked above it.
        let hits = vec![hit(O, 1, 1, 1.0), hit(O, 2, 2, 1.0), hit(O, 3, 1, 1.0)];
        let summary = hit(S, 9, 1, 0.0).row;
        assert_eq!(
            ids(&details(&hits, Some(&summary), &[], WORDS, 3)),
            vec![(O, 1), (O, 3), (S, 9)]
        );
        assert_eq!(
            ids(&details(&hits, Some(&summary), &[], IDENTIFIER, 3)),
            vec![(O, 1), (O, 2), (O, 3)]
        );
    }

    #[test]
    fn a_prompt_that_ranks_first_names_the_piece_of_work() {
        // The user's words for session 2's work match best; session 1's record holds more of
        // the query's words than session 2's records.
        let hits = vec![
            hit(Kind::Prompt, 1, 2, 0.8),
            hit(O, 2, 1, 0.6),
            hit(O, 3, 2, 0.3),
            hit(O, 4, 2, 0.2),
        ];
        assert_eq!(best(&hits, WORDS).map(|h| h.row.id), Some(3));
        assert_eq!(
            ids(&details(&hits, None, &[], WORDS, 2)),
            vec![(O, 3), (O, 4)]
        );
        // A prompt whose session has no candidate record names nothing: the best record leads.
        let lone = vec![hit(Kind::Prompt, 1, 3, 0.8), hit(O, 2, 1, 0.6)];
        assert_eq!(best(&lone, WORDS).map(|h| h.row.id), Some(2));
        // A prompt below a record changes nothing.
        let below = vec![hit(O, 2, 1, 0.6), hit(Kind::Prompt, 1, 2, 0.8)];
        assert_eq!(best(&below, WORDS).map(|h| h.row.id), Some(2));
    }

    #[test]
    fn the_turn_of_a_summary_fills_before_weak_matches_elsewhere() {
        // A paraphrase matched only the summary of session 1 well; records of other sessions
        // follow with a few of its words. The turn's observations (5, 6, not candidates) come
        // before them.
        let hits = vec![
            hit(S, 1, 1, 0.5),
            hit(O, 2, 2, 0.4),
            hit(O, 3, 3, 0.3),
            hit(O, 4, 4, 0.2),
        ];
        let turn = vec![
            hit(O, 5, 1, 0.0).row,
            hit(O, 6, 1, 0.0).row,
            hit(O, 7, 9, 0.0).row,
        ];
        assert_eq!(
            ids(&details(&hits, None, &turn, WORDS, 4)),
            vec![(S, 1), (O, 5), (O, 6), (O, 2)]
        );
        // Records of another session never come in as the turn's.
        assert_eq!(
            ids(&details(&hits, None, &turn[2..], WORDS, 4)),
            vec![(S, 1), (O, 2), (O, 3), (O, 4)]
        );
        // The session's candidates come first, best first, then the rest of its turn.
        let mut with_candidate = hits.clone();
        with_candidate.push(hit(O, 6, 1, 0.1));
        assert_eq!(
            ids(&details(&with_candidate, None, &turn, WORDS, 4)),
            vec![(S, 1), (O, 6), (O, 5), (O, 2)]
        );
    }

    #[test]
    fn the_runner_up_of_the_same_session_comes_before_its_summary() {
        // "logout revoke": the second record of the ranking is of the best hit's session but
        // holds one word only; the summary is there by its session alone.
        let hits = vec![hit(O, 1, 1, 1.0), hit(O, 2, 1, 0.5), hit(O, 3, 2, 1.0)];
        let summary = hit(S, 9, 1, 0.0).row;
        assert_eq!(
            ids(&details(&hits, Some(&summary), &[], WORDS, 3)),
            vec![(O, 1), (O, 2), (S, 9)]
        );
        // Further down the ranking, a record of the session does not pass the summary.
        let hits = vec![
            hit(O, 1, 1, 1.0),
            hit(O, 3, 2, 0.6),
            hit(O, 4, 3, 0.6),
            hit(O, 2, 1, 0.5),
        ];
        assert_eq!(
            ids(&details(&hits, Some(&summary), &[], WORDS, 3)),
            vec![(O, 1), (S, 9), (O, 2)]
        );
    }
}
