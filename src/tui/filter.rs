//! The live `/` filter: which rows match a query, and where. A row matches on its words (titles,
//! text, labels, paths), never on its id, time or type symbol: a `p` of a `3:36p` is no reason
//! to keep a row. Each word of the query must match either as one contiguous run (`pool` in
//! "pooling") or as runs of two or more letters that each start a word (`tokref` in "token
//! refresh"); letters scattered through a line do not count. Rows that match far worse than the best one go too.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::data::{Row, RowText};
use crate::view::Role;

/// A row is kept when its score is at least this share of the best row's.
const KEEP_SHARE: f64 = 0.5;

/// The characters a row is matched on, and where each sits in the row's display text.
struct Haystack {
    text: Vec<char>,
    /// `at[i]`: the char index in `Row::display()` of `text[i]`.
    at: Vec<usize>,
}

fn haystack(row: &Row) -> Haystack {
    let mut h = Haystack {
        text: Vec::new(),
        at: Vec::new(),
    };
    let mut index = 0usize;
    match &row.text {
        RowText::View(l) => {
            for s in &l.spans {
                let n = s.text.chars().count();
                if matches!(s.role, Role::Id | Role::Time | Role::TypeSymbol(_)) {
                    // A gap where the skipped text was, so words either side stay apart.
                    h.text.push(' ');
                    h.at.push(index);
                } else {
                    h.text.extend(s.text.chars());
                    h.at.extend(index..index + n);
                }
                index += n;
            }
        }
        RowText::Code { indent, pieces } => {
            for c in indent
                .chars()
                .chain(pieces.iter().flat_map(|(t, _)| t.chars()))
            {
                h.text.push(c);
                h.at.push(index);
                index += 1;
            }
        }
    }
    h
}

/// Whether `text[i]` begins a word: after a non-alphanumeric, at a lower→upper case change
/// (`camelCase`) or a letter↔digit change.
fn word_start(text: &[char], i: usize) -> bool {
    let Some(&c) = text.get(i) else { return false };
    let Some(&p) = i.checked_sub(1).and_then(|j| text.get(j)) else {
        return true;
    };
    !p.is_alphanumeric()
        || (p.is_lowercase() && c.is_uppercase())
        || (p.is_alphabetic() != c.is_alphabetic())
}

/// A good alignment is one contiguous run, or runs of two or more characters that each start
/// a word (`tok`+`ref` in "token refresh", not `to`+`k`+`ref` in "to keep … refresh").
fn well_formed(text: &[char], positions: &[usize]) -> bool {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &p in positions {
        match runs.last_mut() {
            Some((start, len)) if *start + *len == p => *len += 1,
            _ => runs.push((p, 1)),
        }
    }
    runs.len() == 1
        || runs
            .iter()
            .all(|&(start, len)| len >= 2 && word_start(text, start))
}

/// The first occurrence of `term`, preferring one that starts a word; case-insensitive unless
/// the term has a capital (smart case, as the fuzzy matcher does).
fn substring(text: &[char], term: &[char]) -> Option<Vec<usize>> {
    if term.is_empty() || term.len() > text.len() {
        return None;
    }
    let exact = term.iter().any(|c| c.is_uppercase());
    let lower = |c: char| {
        if exact {
            c
        } else {
            c.to_lowercase().next().unwrap_or(c)
        }
    };
    let hits = (0..=text.len() - term.len())
        .filter(|&s| (0..term.len()).all(|k| lower(text[s + k]) == lower(term[k])));
    let mut first = None;
    for s in hits {
        if word_start(text, s) {
            return Some((s..s + term.len()).collect());
        }
        first.get_or_insert(s);
    }
    first.map(|s| (s..s + term.len()).collect())
}

/// The score and the matched display positions of a row, if every word of `query` matches.
pub(crate) fn score(matcher: &SkimMatcherV2, query: &str, row: &Row) -> Option<(i64, Vec<usize>)> {
    let h = haystack(row);
    let text: String = h.text.iter().collect();
    let mut total = 0;
    let mut matched: Vec<usize> = Vec::new();
    for term in query.split_whitespace() {
        let found = matcher
            .fuzzy_indices(&text, term)
            .filter(|(_, idx)| well_formed(&h.text, idx))
            .or_else(|| {
                let idx = substring(&h.text, &term.chars().collect::<Vec<_>>())?;
                // Scored as skim scores the run on its own, so both paths share a scale.
                let run: String = idx.iter().map(|&i| h.text[i]).collect();
                let s = matcher.fuzzy_match(&run, term).unwrap_or(1);
                Some((s, idx))
            })?;
        total += found.0;
        matched.extend(found.1.iter().filter_map(|&i| h.at.get(i).copied()));
    }
    matched.sort_unstable();
    matched.dedup();
    Some((total, matched))
}

/// Which of `scores` (one per candidate row, `None` = no match) are good enough to show.
pub(crate) fn keep(scores: &[Option<i64>]) -> Vec<bool> {
    let best = scores.iter().flatten().copied().max().unwrap_or(0);
    let bar = (best as f64 * KEEP_SHARE).ceil() as i64;
    scores.iter().map(|s| s.is_some_and(|s| s >= bar)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Line;

    fn row(time: &str, title: &str) -> Row {
        Row::view(
            Line::new()
                .push("266", Role::Id)
                .push(" ", Role::Text)
                .push(time, Role::Time)
                .push(" ", Role::Text)
                .push("●", Role::TypeSymbol(None))
                .push(" ", Role::Text)
                .push(title, Role::Title),
        )
    }

    fn hit(query: &str, r: &Row) -> Option<Vec<usize>> {
        score(&SkimMatcherV2::default(), query, r).map(|x| x.1)
    }

    #[test]
    fn words_match_times_and_scattered_letters_do_not() {
        let r = row("3:36p", "Read src/db/pool.rs");
        assert_eq!(hit("pool", &r), Some(vec![24, 25, 26, 27]));
        assert_eq!(hit("p", &row("3:36p", "Fix login")), None);
        assert_eq!(hit("pool", &row("9:01a", "Plan of order lookups")), None);
        assert!(hit("tokref", &row("9:01a", "Token refresh window")).is_some());
        assert!(hit("poolcon", &row("9:01a", "PoolConfig")).is_some());
        assert!(hit("tokref", &row("9:01a", "Chose to keep refresh_window")).is_none());
        assert!(hit("pool fix", &row("9:01a", "Fix the pooling bug")).is_some());
        assert!(hit("pool fix", &row("9:01a", "Pooling bug")).is_none());
        assert!(hit("266", &r).is_none(), "ids are jumped to with `:`");
    }

    #[test]
    fn far_worse_matches_are_cut() {
        assert_eq!(
            keep(&[Some(100), None, Some(49), Some(50)]),
            vec![true, false, false, true]
        );
    }
}
