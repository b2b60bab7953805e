//! Auto mode's details: the piece of work the query is about, not its best few near-duplicates.
//!
//! The best hit names the piece of work (its session). Measured on the tuning set, what auto
//! mode missed were the other records of that work (the follow-up, the session's summary), while
//! records of other sessions that hold only some of the query's words took their places. So the
//! details are, in this order:
//! 1. the best hit;
//! 2. records holding every term of the query, best first, whatever their session: an exact
//!    match elsewhere (an identifier used in two places) is an answer, not a decoy;
//! 3. the summary that closes the best hit's turn, which tells the work in other words and so is
//!    rarely a lexical match itself;
//! 4. the best hit's session's other candidates, best first;
//! 5. the rest of the ranking.
//!
//! Prompts are context only and never details.

use crate::model::{IndexRow, Kind};
use crate::store::search::Hit;

/// A hit holds every term when its share of the query's term weight is (within rounding) 1.
const EVERY_TERM: f64 = 1.0 - 1e-9;

/// The records auto mode details, best first: at most `max`, from `hits` (best first) and the
/// summary of the best hit's turn (`summary`, when the best hit is not itself a summary).
pub fn details<'a>(
    hits: &'a [Hit],
    summary: Option<&'a IndexRow>,
    max: usize,
) -> Vec<&'a IndexRow> {
    let records: Vec<&Hit> = hits.iter().filter(|h| h.row.kind != Kind::Prompt).collect();
    let Some(top) = records.first() else {
        return Vec::new();
    };
    let session = top.row.session_id;
    let same_work = |h: &&&Hit| session.is_some() && h.row.session_id == session;
    let order = std::iter::once(&top.row)
        .chain(
            records
                .iter()
                .filter(|h| h.cover >= EVERY_TERM)
                .map(|h| &h.row),
        )
        .chain(summary.filter(|s| s.kind == Kind::Summary))
        .chain(records.iter().filter(same_work).map(|h| &h.row))
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
            ids(&details(&hits, Some(&summary), 3)),
            vec![(O, 1), (S, 9), (O, 4)]
        );
        // Without a summary the session's other record still comes before other sessions'.
        assert_eq!(ids(&details(&hits, None, 3)), vec![(O, 1), (O, 4), (O, 2)]);
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
            ids(&details(&hits, Some(&summary), 3)),
            vec![(O, 1), (O, 2), (S, 9)]
        );
        // Prompts are never details; nothing is repeated; fewer hits, fewer details.
        assert_eq!(
            ids(&details(&hits[..1], Some(&summary), 3)),
            vec![(O, 1), (S, 9)]
        );
        assert!(details(&hits[3..], Some(&summary), 3).is_empty());
    }

    #[test]
    fn records_without_a_session_are_no_piece_of_work() {
        let mut hits = vec![hit(O, 1, 1, 0.5), hit(O, 2, 2, 0.5), hit(O, 3, 1, 0.5)];
        for h in &mut hits {
            h.row.session_id = None;
        }
        assert_eq!(ids(&details(&hits, None, 2)), vec![(O, 1), (O, 2)]);
    }
}
