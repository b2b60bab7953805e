//! Ranking quality figures: recall at 3 and 10 and the mean reciprocal rank.

use crate::model::Kind;

/// The figures of one system over a group of queries.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    pub queries: usize,
    /// Mean over queries of |expected ∩ top 3| / min(|expected|, 3).
    pub recall3: f64,
    /// Mean over queries of |expected ∩ top 10| / |expected|.
    pub recall10: f64,
    /// Mean over queries of 1 / the rank of the first expected record (0 when none is found).
    pub mrr: f64,
}

/// One query's ranking scored against what it expects.
pub(crate) fn score(expect: &[(Kind, i64)], ranked: &[(Kind, i64)]) -> Figures {
    if expect.is_empty() {
        return Figures::default();
    }
    let found_in = |k: usize| {
        expect
            .iter()
            .filter(|e| ranked.iter().take(k).any(|r| r == *e))
            .count() as f64
    };
    let first = ranked.iter().position(|r| expect.contains(r));
    Figures {
        queries: 1,
        recall3: found_in(3) / expect.len().min(3) as f64,
        recall10: found_in(10) / expect.len() as f64,
        mrr: first.map_or(0.0, |p| 1.0 / (p + 1) as f64),
    }
}

/// The mean of several queries' figures.
pub(crate) fn mean(all: &[Figures]) -> Figures {
    let n = all.iter().map(|f| f.queries).sum::<usize>();
    if n == 0 {
        return Figures::default();
    }
    let sum = |f: fn(&Figures) -> f64| all.iter().map(f).sum::<f64>() / n as f64;
    Figures {
        queries: n,
        recall3: sum(|f| f.recall3),
        recall10: sum(|f| f.recall10),
        mrr: sum(|f| f.mrr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recall_counts_the_expected_records_found_and_mrr_the_first() {
        let o = |id| (Kind::Observation, id);
        let f = score(&[o(1), o(2)], &[o(5), o(2), o(9), o(1)]);
        assert_eq!(f.recall3, 0.5);
        assert_eq!(f.recall10, 1.0);
        assert_eq!(f.mrr, 0.5);
        let none = score(&[o(1)], &[o(2)]);
        assert_eq!((none.recall3, none.mrr), (0.0, 0.0));
        let m = mean(&[f, none]);
        assert_eq!((m.queries, m.recall10), (2, 0.5));
    }
}
