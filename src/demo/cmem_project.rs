//! cmem (Rust, this tool's own budget code): a session start rejected as too long is traced to
//! counting chars where the host counts UTF-16 units, and fixed; halving is kept over dropping
//! one line at a time after a measurement.

use super::script::{Project, bash, edit, fails, read, session, turn};

pub(crate) fn project() -> Project {
    Project {
        name: "cmem",
        files: vec![(
            "src/view/budget.rs",
            include_str!("../../assets/demo/cmem/src/view/budget.rs"),
        )],
        sessions: vec![
            session(
                4,
                17,
                0,
                vec![
                    turn(
                        "A session start was rejected by Claude Code as longer than 10,000 characters although `cmem context` reported 9,998. Find out why fit_index let it through.",
                        vec![
                            read("src/view/budget.rs"),
                            edit(
                                "src/view/budget.rs",
                                "        steps.push(Step::Halved { section: s.name, from, to });\n    }\n}",
                                "        steps.push(Step::Halved { section: s.name, from, to });\n    }\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn emoji_lines_stay_under_the_host_limit() {\n        let lines = vec![\"\\u{1F680} deploy notes\".repeat(40); 30];\n        let (text, _) = fit_index(vec![Section { name: \"obs\", priority: 1, keep: 0, lines }], HOST_LIMIT);\n        assert!(text.encode_utf16().count() <= HOST_LIMIT);\n    }\n}",
                            ),
                            fails(
                                "cargo test view::budget",
                                "Run the budget tests",
                                "running 4 tests\ntest view::budget::tests::emoji_lines_stay_under_the_host_limit ... FAILED\n\n---- view::budget::tests::emoji_lines_stay_under_the_host_limit stdout ----\nthread panicked at src/view/budget.rs:88:9:\nassertion failed: text.encode_utf16().count() <= HOST_LIMIT\n  left: 10270\n right: 10000\n\ntest result: FAILED. 3 passed; 1 failed; 0 ignored",
                            ),
                        ],
                        "Found the cause: fit_index() in src/view/budget.rs measures the text with `chars().count()`, but the host counts UTF-16 code units, and an emoji outside the Basic Multilingual Plane is one char but two units. The new test with rocket emoji shows 10,270 units passing as under the limit.\n\nNext: measure in UTF-16 units.",
                    ),
                    turn(
                        "Fix it so the limit is measured like the host does.",
                        vec![
                            edit(
                                "src/view/budget.rs",
                                "        let chars = text.chars().count();",
                                "        // The host counts UTF-16 code units: an astral emoji is two, not one.\n        let chars = text.encode_utf16().count();",
                            ),
                            bash(
                                "cargo test view::budget",
                                "Run the budget tests",
                                "running 4 tests\ntest view::budget::tests::emoji_lines_stay_under_the_host_limit ... ok\ntest view::budget::tests::halves_lowest_priority_first ... ok\ntest view::budget::tests::keeps_keep_lines ... ok\ntest view::budget::tests::gives_up_when_nothing_is_left ... ok\n\ntest result: ok. 4 passed; 0 failed; 0 ignored",
                            ),
                        ],
                        "Fixed: fit_index() in src/view/budget.rs now counts UTF-16 code units (`encode_utf16().count()`), the unit Claude Code's 10,000 limit is in, so emoji-heavy indexes are cut until they really fit. All 4 budget tests pass.",
                    ),
                ],
            ),
            session(
                1,
                10,
                0,
                vec![turn(
                    "Would fit_index be better dropping one line at a time instead of halving a section? Measure it on a 400-line index before changing anything.",
                    vec![bash(
                        "cargo bench --bench budget -- fit_index",
                        "Compare halving with one line at a time",
                        "fit_index/halving      time:   [41.2 µs 41.5 µs 41.9 µs]\nfit_index/one_line     time:   [1.9214 ms 1.9402 ms 1.9667 ms]",
                    )],
                    "Decision: keep halving in fit_index(). Dropping one line at a time renders the index again for every line: 1.94 ms against 41.5 µs for halving on a 400-line index, and a hook has a few milliseconds in all. Halving loses at most half a section more than needed, which the drop ladder reports anyway.",
                )],
            ),
        ],
    }
}
