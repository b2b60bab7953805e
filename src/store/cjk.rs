//! Words in scripts written without spaces: Chinese, Japanese and Korean runs are cut into
//! overlapping two-character pieces (bigrams), which the index stores and the queries ask for.
//!
//! A two-character word (幂等, 限流) is one bigram; a longer one (连接池) the bigrams it is made
//! of, adjacent. No dictionary decides where words end: a query's bigrams match wherever the
//! same characters stand side by side, and BM25 weighs rare pairs over common ones. Latin letters
//! and digits next to CJK characters (`pgvector做向量搜索`) are a run of their own, so an
//! identifier stays whole.

use std::ops::Range;

pub(crate) use crate::text::is_cjk;

/// Whether `text` is mostly written in a CJK script: a CJK character carries about as much as
/// three Latin letters (a word of two characters against an English word of six), so a Chinese
/// sentence with English identifiers in it is Chinese, and an English one quoting a Chinese
/// word is not.
pub(crate) fn mostly_cjk(text: &str) -> bool {
    let (mut cjk, mut letters) = (0usize, 0usize);
    for c in text.chars() {
        if is_cjk(c) {
            cjk += 1;
        } else if c.is_alphabetic() {
            letters += 1;
        }
    }
    cjk > 0 && cjk * 3 >= letters
}

/// The byte ranges of `text` split where it changes between CJK and anything else, each with
/// whether it is CJK.
pub(crate) fn runs(text: &str) -> Vec<(bool, Range<usize>)> {
    let mut out: Vec<(bool, Range<usize>)> = Vec::new();
    for (i, c) in text.char_indices() {
        let cjk = is_cjk(c);
        let end = i + c.len_utf8();
        match out.last_mut() {
            Some((was, range)) if *was == cjk => range.end = end,
            _ => out.push((cjk, i..end)),
        }
    }
    out
}

/// The byte ranges of the overlapping character pairs of a CJK run (one range for a run of one
/// character).
pub(crate) fn bigrams(run: &str) -> Vec<Range<usize>> {
    let starts: Vec<usize> = run.char_indices().map(|(i, _)| i).collect();
    match starts.len() {
        0 => Vec::new(),
        1 => std::iter::once(0..run.len()).collect(),
        n => (0..n - 1)
            .map(|k| starts[k]..starts.get(k + 2).copied().unwrap_or(run.len()))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_mostly_cjk_by_weight_of_what_it_says() {
        assert!(mostly_cjk("修复连接池泄漏导致的 5xx in src/pool.py"));
        assert!(mostly_cjk("选用 pgvector 做向量搜索"));
        assert!(!mostly_cjk(
            "Fixed the pool leak (连接池) in src/db/pool.rs by returning connections"
        ));
        assert!(!mostly_cjk("cargo test passes"));
        assert!(!mostly_cjk("12 34 -- !!"));
        // Han extension B, outside the BMP, counts; emoji count as nothing.
        assert!(mostly_cjk("𠀀𠀁 fix"));
        assert!(!mostly_cjk("🎉🎉🎉 shipped the release"));
    }

    fn pieces<'a>(text: &'a str, ranges: &[Range<usize>]) -> Vec<&'a str> {
        ranges.iter().map(|r| &text[r.clone()]).collect()
    }

    #[test]
    fn runs_split_at_the_script_boundary() {
        let t = "pgvector做向量搜索, 重跑gen-itgc后";
        let got: Vec<(bool, &str)> = runs(t).into_iter().map(|(c, r)| (c, &t[r])).collect();
        assert_eq!(
            got,
            vec![
                (false, "pgvector"),
                (true, "做向量搜索"),
                (false, ", "),
                (true, "重跑"),
                (false, "gen-itgc"),
                (true, "后"),
            ]
        );
        assert!(is_cjk('幂') && is_cjk('か') && is_cjk('カ') && is_cjk('한'));
        assert!(!is_cjk('，') && !is_cjk('a') && !is_cjk('5') && !is_cjk('é'));
    }

    #[test]
    fn a_run_becomes_its_overlapping_pairs() {
        assert_eq!(pieces("连接池", &bigrams("连接池")), vec!["连接", "接池"]);
        assert_eq!(pieces("幂等", &bigrams("幂等")), vec!["幂等"]);
        assert_eq!(pieces("池", &bigrams("池")), vec!["池"]);
        assert!(bigrams("").is_empty());
    }
}
