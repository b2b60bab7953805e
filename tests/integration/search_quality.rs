//! Search quality, measured the way `cmem dev eval-search` reports it.
//!
//! - The tuning set (tests/fixtures/search-tuning: the first 38 queries written beside the
//!   ranking, plus a larger project written for tuning) is what the ranking constants were
//!   chosen on: its first part must stay fully answered.
//! - The held-out set (tests/fixtures/search-heldout: two projects, 154 queries, written by
//!   people who never saw the ranking code, never tuned on) must stay above the plain FTS5
//!   bm25 baselines built from the same records in the same run; so must the second held-out
//!   set (tests/fixtures/search-heldout2: two more projects, 122 queries, written the same way),
//!   and the Chinese/cross-lingual one (tests/fixtures/search-heldout-zh: 74 queries); the
//!   Chinese tuning set's keywords inside unspaced text must all be found.
//! - The development set (tests/fixtures/search-dev: two projects, 121 queries, written apart
//!   from the code and first measured unread at recall@3 0.905) is now tuned on beside the
//!   tuning set: by words alone it must stay at 0.87 (0.883 on 2026-12-05; 0.926 with the
//!   model) and above the baselines.
//!
//! The English sets are scored by words alone here (the multilingual model embeds 1,500
//! records in minutes in a debug build); `cmem dev eval-search` scores them with it, and the
//! README and docs/search-ranking.md give those figures. The Chinese held-out set runs with the
//! model, whose work there (a Chinese query finding an English record) no word can do.

use std::path::Path;

use cmem::eval;

fn set(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[test]
fn the_original_tuning_queries_are_all_answered_in_the_top_three() {
    for project in ["shop.json", "infra.json"] {
        let report = eval::run_with(&set("search-tuning").join(project), None, false).unwrap();
        let auto = report.figures("cmem auto", "all").unwrap();
        assert!(
            auto.recall3 >= 0.95,
            "{project}: recall@3 {:.3}\n{}",
            auto.recall3,
            report.to_text(true)
        );
    }
}

#[test]
fn held_out_search_beats_the_bm25_baselines() {
    for (name, queries) in [
        ("search-heldout", 120),
        ("search-heldout2", 120),
        ("search-heldout-zh", 60),
    ] {
        let chinese = name.ends_with("-zh");
        let report = eval::run_with(&set(name), None, chinese).unwrap();
        let auto = report.figures("cmem auto", "all").unwrap();
        assert!(auto.queries >= queries, "{name}: {} queries", auto.queries);
        // A held-out set's misses are never shown: read, they would be tuned on.
        above_the_baselines(name, &report, false);
        if chinese {
            every_kind_above_the_baselines(name, &report);
        }
    }
}

/// Each of the Chinese set's four kinds, a Chinese query for an English record included, is
/// answered above every bm25 baseline of the same kind.
fn every_kind_above_the_baselines(name: &str, report: &eval::Report) {
    for kind in ["keyword-zh", "paraphrase-zh", "en-to-zh", "zh-to-en"] {
        let auto = report.figures("cmem auto", kind).unwrap();
        for baseline in ["bm25 OR", "bm25 OR porter", "bm25 OR trigram"] {
            let b = report.figures(baseline, kind).unwrap();
            assert!(
                auto.recall3 > b.recall3,
                "{name} {kind}: cmem auto recall@3 {:.3} is not above {baseline} ({:.3})\n{}",
                auto.recall3,
                b.recall3,
                report.to_text(false)
            );
        }
    }
}

#[test]
fn the_development_set_stays_answered_and_above_the_baselines() {
    let report = eval::run_with(&set("search-dev"), None, false).unwrap();
    let auto = report.figures("cmem auto", "all").unwrap();
    assert!(
        auto.recall3 >= 0.87,
        "recall@3 {:.3}\n{}",
        auto.recall3,
        report.to_text(true)
    );
    above_the_baselines("search-dev", &report, true);
}

/// Chinese words inside unspaced text are found: every keyword query of the Chinese tuning set
/// (two-character words inside longer runs) is answered in the top three.
#[test]
fn chinese_words_inside_unspaced_text_are_found() {
    // Words alone: a keyword is found by its words, and the model would only slow the check.
    let report = eval::run_with(&set("search-tuning-zh"), None, false).unwrap();
    let keyword = report.figures("cmem auto", "keyword-zh").unwrap();
    assert!(
        keyword.queries >= 15 && keyword.recall3 >= 0.95,
        "keyword-zh recall@3 {:.3} over {} queries\n{}",
        keyword.recall3,
        keyword.queries,
        report.to_text(true)
    );
}

/// cmem auto's recall@3 and MRR are above the plain bm25 baselines of the same run.
fn above_the_baselines(name: &str, report: &eval::Report, show_misses: bool) {
    let auto = report.figures("cmem auto", "all").unwrap();
    for baseline in ["bm25 OR", "bm25 OR porter", "bm25 OR trigram"] {
        let b = report.figures(baseline, "all").unwrap();
        assert!(
            auto.recall3 > b.recall3 && auto.mrr > b.mrr,
            "{name}: cmem auto (recall@3 {:.3}, MRR {:.3}) is not above {baseline} ({:.3}, {:.3})\n{}",
            auto.recall3,
            auto.mrr,
            b.recall3,
            b.mrr,
            report.to_text(show_misses)
        );
    }
}
