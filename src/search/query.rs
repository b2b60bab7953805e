//! What a search query asks for: its terms (`store::terms`, which FTS5 matches as quoted
//! strings, so quotes, `*`, `-`, `NEAR`, `column:` and parentheses are only text). Words that
//! carry no meaning in a memory query ("why did we …", "is there a …") are dropped unless
//! nothing else is left; identifiers (`retry_after_ms`, `OrderService::cancel`,
//! `src/api/upload.ts`, `E0502`) are kept whole, as one phrase of their parts in order, never
//! split into independent words or dropped. Chinese, Japanese and Korean runs are asked for as
//! the bigrams the index holds (`store::cjk`), without their filler words (`cjk_query`).

use crate::store::cjk;
use crate::store::terms::{MOST_TERMS, Term, Terms};

use super::cjk_query;

/// Words that carry no meaning in a memory query: function words, the filler of questions,
/// and words about memory itself ("how did we fix the pool" = "fix pool").
pub(crate) const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "during",
    "each",
    "ever",
    "for",
    "from",
    "get",
    "gets",
    "got",
    "had",
    "has",
    "have",
    "having",
    "here",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "just",
    "know",
    "last",
    "let",
    "like",
    "me",
    "memory",
    "might",
    "more",
    "most",
    "much",
    "must",
    "my",
    "no",
    "not",
    "now",
    "of",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "out",
    "over",
    "previous",
    "previously",
    "remember",
    "s",
    "search",
    "session",
    "sessions",
    "should",
    "so",
    "some",
    "still",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "through",
    "to",
    "too",
    "up",
    "us",
    "use",
    "used",
    "using",
    "very",
    "was",
    "wasn",
    "way",
    "we",
    "were",
    "what",
    "whats",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "work",
    "would",
    "you",
    "your",
];

/// The words of a text as the index splits them: runs of letters and digits, lower-cased.
pub(crate) fn parts(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether a whitespace-separated chunk of a query is an identifier: it joins letters or
/// digits with `_`, `::`, `/`, `.`, `-` or `#`, mixes case inside a word, or mixes letters
/// and digits (`E0502`, `v2`, `ECONNRESET` is a plain word).
pub(crate) fn is_identifier(chunk: &str) -> bool {
    let core = chunk.trim_matches(|c: char| !c.is_alphanumeric());
    if parts(core).len() > 1 {
        return true; // joined by punctuation: snake_case, paths, Foo::bar, a.b, kebab-case
    }
    let inner_capital = core
        .char_indices()
        .skip(1)
        .any(|(i, c)| c.is_uppercase() && core[..i].chars().any(char::is_lowercase));
    let letters = core.chars().any(char::is_alphabetic);
    let digits = core.chars().any(|c| c.is_ascii_digit());
    inner_capital || (letters && digits)
}

/// The terms of a chunk of a query written without CJK characters.
fn latin_terms(chunk: &str, all: &mut Vec<(Term, bool)>) {
    let ps = parts(chunk);
    if ps.is_empty() {
        return;
    }
    if is_identifier(chunk) {
        let term = if ps.len() == 1 {
            Term::Word(ps[0].clone())
        } else {
            Term::Phrase(ps)
        };
        all.push((term, false));
    } else {
        for p in ps {
            let stop = STOP_WORDS.contains(&p.as_str());
            all.push((Term::Word(p), stop));
        }
    }
}

/// The terms of a run of CJK characters: the bigrams of its meaningful pieces (the index holds
/// the same, `store::cjk`). A lone character, or a run of filler only, counts like a stop word.
fn cjk_terms(run: &str, all: &mut Vec<(Term, bool)>) {
    let pieces = cjk_query::meaningful_pieces(run);
    let (pieces, weak) = if pieces.is_empty() {
        (vec![run.to_string()], true)
    } else {
        (pieces, false)
    };
    for piece in pieces {
        let grams = cjk::bigrams(&piece);
        let lone = grams.len() == 1 && piece.chars().count() == 1;
        for g in grams {
            if let Some(gram) = piece.get(g) {
                all.push((Term::Word(gram.to_string()), weak || lone));
            }
        }
    }
}

/// Analyses a query. Function words are dropped unless nothing else is left. Runs of Chinese,
/// Japanese or Korean characters are split from the letters and digits beside them
/// (`pgvector做向量搜索` → `pgvector` and the bigrams of `做向量搜索`).
pub(crate) fn analyse(text: &str) -> Terms {
    let mut all: Vec<(Term, bool)> = Vec::new(); // (term, is a stop word)
    for chunk in text.split_whitespace() {
        for (is_cjk, run) in cjk::runs(chunk) {
            let Some(piece) = chunk.get(run) else {
                continue;
            };
            if is_cjk {
                cjk_terms(piece, &mut all);
            } else {
                latin_terms(piece, &mut all);
            }
        }
    }
    let meaningful = all.iter().any(|(_, stop)| !stop);
    let mut terms: Vec<Term> = Vec::new();
    let mut cut = false;
    for (t, stop) in all {
        if (!stop || !meaningful) && !terms.contains(&t) {
            if terms.len() == MOST_TERMS {
                cut = true;
                break;
            }
            terms.push(t);
        }
    }
    let ends_in_word = text.chars().last().is_some_and(|c| c.is_alphanumeric());
    let last_may_be_partial = !cut
        && ends_in_word
        && matches!(terms.last(), Some(Term::Word(w))
            if parts(text).last() == Some(w) && !w.chars().any(cjk::is_cjk));
    Terms {
        terms,
        last_may_be_partial,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(t: &Terms) -> Vec<String> {
        t.terms.iter().map(Term::text).collect()
    }

    #[test]
    fn questions_lose_their_function_words() {
        let t = analyse("why did we stop using redis for sessions?");
        assert_eq!(words(&t), vec!["stop", "redis"]);
        let t = analyse("is there a limit on upload size");
        assert_eq!(words(&t), vec!["limit", "upload", "size"]);
        assert_eq!(
            words(&analyse("what happens after a payment fails")),
            vec!["happens", "payment", "fails"]
        );
        // Only function words: they are the query.
        assert_eq!(words(&analyse("what is this")), vec!["what", "is", "this"]);
    }

    #[test]
    fn identifiers_stay_whole_phrases() {
        let t = analyse("retry_after_ms OrderService::cancel src/api/upload.ts E0502 ECONNRESET");
        assert_eq!(
            t.terms,
            vec![
                Term::Phrase(vec!["retry".into(), "after".into(), "ms".into()]),
                Term::Phrase(vec!["orderservice".into(), "cancel".into()]),
                Term::Phrase(vec![
                    "src".into(),
                    "api".into(),
                    "upload".into(),
                    "ts".into()
                ]),
                Term::Word("e0502".into()),
                Term::Word("econnreset".into()),
            ]
        );
        // A stop word inside an identifier is part of it, never dropped.
        assert_eq!(
            analyse("the_end").terms,
            vec![Term::Phrase(vec!["the".into(), "end".into()])]
        );
        assert!(is_identifier("refreshWindow"));
        assert!(!is_identifier("Refresh"));
        assert!(!is_identifier("pool?"));
    }

    #[test]
    fn cjk_runs_are_asked_for_as_bigrams_without_filler() {
        assert_eq!(
            words(&analyse("连接池为什么会耗尽")),
            vec!["连接", "接池", "会耗", "耗尽"]
        );
        assert_eq!(
            words(&analyse("pgvector做向量搜索")),
            vec!["pgvector", "做向", "向量", "量搜", "搜索"]
        );
        let t = analyse("重跑gen-itgc后");
        assert_eq!(
            t.terms,
            vec![
                Term::Word("重跑".into()),
                Term::Phrase(vec!["gen".into(), "itgc".into()]),
            ]
        );
        assert_eq!(words(&analyse("幂等")), vec!["幂等"]);
        // A lone character is weak, like a stop word: kept when nothing else is left.
        assert_eq!(words(&analyse("池")), vec!["池"]);
        assert_eq!(words(&analyse("什么吗")), vec!["什么", "么吗"]);
        assert!(!analyse("pool 连接").last_may_be_partial);
        // Han outside the BMP (extension B) pairs like any other character.
        assert_eq!(
            words(&analyse("𠮷野家为什么超时")),
            vec!["𠮷野", "野家", "超时"]
        );
    }

    #[test]
    fn only_a_last_word_typed_to_the_end_may_be_partial() {
        assert!(analyse("pool lea").last_may_be_partial);
        assert!(!analyse("pool lea ").last_may_be_partial);
        assert!(!analyse("pool leak?").last_may_be_partial);
        assert!(!analyse("src/db/pool.rs").last_may_be_partial);
        assert!(!analyse("pool the").last_may_be_partial); // `the` was dropped
    }

    #[test]
    fn user_text_is_only_quoted_strings() {
        let t = analyse(r#"pool" OR title:x* -leak NEAR(a b) ((( 连接池 _priv"#);
        for term in &t.terms {
            let f = term.fts(true);
            assert!(f.starts_with('"') && f.ends_with("\"*"), "{f}");
            let inner = &f[1..f.len() - 2];
            assert!(!inner.replace("\"\"", "").contains('"'), "{f}");
        }
        assert!(words(&t).contains(&"连接".to_string()));
    }
}
