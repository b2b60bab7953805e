//! The one line of a command's output worth remembering: what went wrong (a failing test, a
//! diagnostic, an error) or how it went (a query plan, a test summary), picked by walking an
//! ordered table of recognisers, each with an example it must recognise.

use std::sync::LazyLock;

use super::ascii::AsciiRegex;

use crate::text::{clip, one_line};

/// One way of reading a command's output: a name (for tests and a reader), what it looks for,
/// and an output it must recognise — the tests run every recogniser on its example, so a
/// pattern that stops matching, or an earlier entry that starts taking its cases, is caught.
pub(crate) struct Recogniser {
    pub name: &'static str,
    finds: Finds,
    /// Whether what is found is kept as it is (a sentence composed from the output) rather
    /// than made one line of at most 160 characters (a line of the output).
    whole: bool,
    // Read by the tests only: the table's own check.
    #[cfg_attr(not(test), allow(dead_code))]
    example: &'static str,
}

/// What a recogniser looks for.
enum Finds {
    /// The first line the pattern matches, trimmed.
    FirstLine(&'static LazyLock<AsciiRegex>),
    /// The pattern's last match, trimmed.
    LastMatch(&'static LazyLock<AsciiRegex>),
    /// What a function reads from the whole output.
    Read(fn(&str) -> Option<String>),
}

impl Recogniser {
    /// What this recogniser finds in `output`, as it will be said.
    fn find(&self, output: &str) -> Option<String> {
        let found = match &self.finds {
            Finds::FirstLine(re) => output
                .lines()
                .find(|l| re.is_match(l))
                .map(|l| l.trim().to_string()),
            Finds::LastMatch(re) => re.find_iter(output).last().map(|m| m.trim().to_string()),
            Finds::Read(read) => read(output),
        }?;
        Some(match self.whole {
            true => found,
            false => clip(&one_line(&found), 160),
        })
    }
}

/// The first recogniser of `table` that finds something in `output`: its name and what it
/// found. The order is the policy: the most specific reading first, the last line last.
pub(crate) fn recognise(table: &[Recogniser], output: &str) -> Option<(&'static str, String)> {
    table
        .iter()
        .find_map(|r| r.find(output).map(|found| (r.name, found)))
}

/// What went wrong, most telling first: a failing test says what is broken better than the
/// compiler's codes, which say more than an error line, which says more than the last line.
pub(crate) static ERROR_LINES: &[Recogniser] = &[
    Recogniser {
        name: "failing test",
        finds: Finds::FirstLine(&FAILING_TEST),
        whole: false,
        example: "running 2 tests\ntest auth::refresh_window ... FAILED\n\ntest result: FAILED. 1 passed; 1 failed",
    },
    Recogniser {
        name: "python exception",
        finds: Finds::Read(traceback),
        whole: false,
        example: "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'user_id'",
    },
    Recogniser {
        name: "diagnostics",
        finds: Finds::Read(diagnosed),
        whole: false,
        example: "src/hooks/useOrders.ts(12,5): error TS2322: Type 'string' is not assignable to type 'OrderStatus'.",
    },
    Recogniser {
        name: "npm error code",
        finds: Finds::Read(npm_code),
        whole: false,
        example: "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE could not resolve",
    },
    Recogniser {
        name: "error line",
        finds: Finds::Read(|o| own_error(o).map(str::to_string)),
        whole: false,
        example: "make: *** [Makefile:9: build] Error 2\ncc: fatal error: no input files",
    },
    Recogniser {
        name: "build driver's error line",
        finds: Finds::Read(|o| any_error(o).map(str::to_string)),
        whole: false,
        example: "> Task :compileKotlin FAILED",
    },
    Recogniser {
        name: "last line",
        finds: Finds::Read(|o| last_line(o).map(str::to_string)),
        whole: false,
        example: "Exit code 1\nsegmentation violation at 0x0",
    },
];

/// How a command that passed went, most telling first: what a query plan or a bisection was
/// run to learn, a test runner's summary, else the last line.
pub(crate) static RESULT_LINES: &[Recogniser] = &[
    Recogniser {
        name: "query plan",
        finds: Finds::Read(plan_line),
        whole: true,
        example: "  ->  Seq Scan on orders  (cost=0.00..147851.55 rows=10884)\nPlanning Time: 0.142 ms\nExecution Time: 912.087 ms",
    },
    Recogniser {
        name: "first bad commit",
        finds: Finds::Read(bisected),
        whole: true,
        example: "9c41e7a3f0d2b8e15c7a46d9e0b1f2c3d4e5f6a7 is the first bad commit\ncommit 9c41e7a3f0d2\nDate:   Tue Nov 17 14:02:55 2026 +0100\n\n    Switch CSV export to streaming writer\n\n lib/export/csv_stream.rb | 48 ++++----",
    },
    Recogniser {
        name: "test summary",
        finds: Finds::LastMatch(&SUMMARY_LINE),
        whole: false,
        example: "running 2 tests\n\ntest result: ok. 2 passed; 0 failed; 0 ignored\n",
    },
    Recogniser {
        name: "last line",
        finds: Finds::Read(|o| last_line(o).map(str::to_string)),
        whole: false,
        example: "Compiling cmem\nFinished release in 41s",
    },
];

/// `Exit code 1\n…` (Claude Code's failure text) → 1.
pub(crate) fn exit_code(error: &str) -> Option<i64> {
    let first = error.lines().next()?.trim();
    first.strip_prefix("Exit code ")?.trim().parse().ok()
}

static FAILING_TEST: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(
        r"(?m)^(?:test ([^ \t\r\n]+) \.\.\. FAILED|--- FAIL: ([^ \t\r\n]+)|FAILED ([^ \t\r\n]+?)(?: - |$)|[ \t]+(?:✕|×) (.+)$|[ \t]*FAIL[ \t]+([^ \t\r\n]+\.(?:test|spec)\.[^ \t\r\n]+(?: > [^\r\n]+)?)|([A-Za-z_][A-Za-z0-9_.$]* > [^\r\n]+?) FAILED[ \t]*$|[ \t]+[0-9]+\) test ([^\r\n]+?) \([A-Za-z0-9_.]+\)[ \t]*$|[ \t]+[0-9]+\) ([^\r\n]+?)[ \t]*\r?\n[ \t]+Failure/Error:|\[ERROR\] +([A-Z][A-Za-z0-9_$]*\.[a-z][A-Za-z0-9_$]*):[0-9]+ |\[ERROR\] ([A-Za-z0-9_.$]+) -- Time elapsed:[^\r\n]*<<< (?:FAILURE|ERROR)!)",
    )
});

static TEST_TIME: LazyLock<AsciiRegex> = LazyLock::new(|| AsciiRegex::new(r" \([0-9.]+ ?m?s\)$"));

static ERROR_LINE: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(
        r"(?i)(\berror\b|\bpanicked\b|\bexception\b|traceback|\bfailed\b|\bfailure\b|\bfatal\b|cannot |can't |not found|no such file|permission denied|assert|undefined|unexpected|refused|timed out)",
    )
});

static SUMMARY_LINE: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(
        r"(?m)^[ \t]*(test result: .*|=+ .*(?:passed|failed).* =+|(?i-u:tests?):[ \t]+.*(?:passed|failed).*|Tests[ \t]+[0-9]+ (?:passed|failed).*|ok[ \t]+[^ \t\r\n]+[ \t]+[0-9.]+s|[0-9]+ (?:passing|passed|tests? passed).*|Ran [0-9]+ tests? in .*|OK(?: \(.*\))?|FAILED \(.*\))[ \t]*$",
    )
});

/// The last line of a Python traceback: the exception and its message.
static PY_EXCEPTION: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(
        r"(?m)^[A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception|Exit|Interrupt|Failure)(?::[^\r\n]*)?$",
    )
});

/// Names of failing tests in a test runner's output.
pub(crate) fn failing_tests(output: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in FAILING_TEST.captures_iter(output) {
        if let Some(name) = (1..c.len()).find_map(|i| c.get(i).copied().flatten()) {
            // Jest's and Vitest's `✕ parses dates (3 ms)`: the time is not the test's name.
            let name = name.trim();
            let name = match TEST_TIME.find(name) {
                Some((time, end)) => name[..end - time.len()].trim(),
                None => name,
            }
            .to_string();
            // Surefire names a test twice: `com.acme.FooTest.bar` as it ran, `FooTest.bar` in
            // its summary. The fuller name stands for both.
            let within = |long: &str, short: &str| {
                long.strip_suffix(short).is_some_and(|p| p.ends_with('.'))
            };
            if let Some(shorter) = out.iter_mut().find(|e| within(&name, e)) {
                *shorter = name;
            } else if !out.iter().any(|e| *e == name || within(e, &name)) {
                out.push(name);
            }
        }
    }
    out
}

fn meaningful_lines(output: &str) -> impl Iterator<Item = &str> {
    output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && exit_code(l).is_none())
}

/// Lines a build driver prints when a step under it failed (`make: *** [lint] Error 1`,
/// `> Task :test FAILED`): they say that something failed, not what.
static WRAPPER_LINE: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(
        r"(?i)^(?:make(?:\[[0-9]+\])?: \*\*\*|> Task :|FAILURE: Build failed|BUILD FAILED|npm ERR! (?:code|errno|A complete log|Lifecycle|Failed at)|error: could not compile|error: Recipe .* failed|Error: Process completed with exit code|error Command failed with exit code|ELIFECYCLE|\* What went wrong|[0-9]+ tests? completed, [0-9]+ failed)",
    )
});

/// A diagnostic's code: a linter's or compiler's rule id (`SC2086`, `TS2322`, `E0308`, `F401`).
static DIAGNOSTIC_CODE: LazyLock<AsciiRegex> =
    LazyLock::new(|| AsciiRegex::new(r"\b[A-Z]{1,3}[0-9]{3,5}\b"));

/// A Clippy lint, named by the link Clippy prints under it
/// (`…/rust-clippy/master/index.html#needless_range_loop`),
/// or by the note that says which setting made it an error (`-D clippy::needless-range-loop`).
static CLIPPY_LINT: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(
        r"rust-clippy/[a-z0-9._/-]*index\.html#([a-z][a-z0-9_]+)|-D clippy::([a-z][a-z0-9_-]+)",
    )
});

/// A source file named in tool output (`src/a.ts(12,5)`, ` --> src/main.rs:4:5`,
/// `In scripts/deploy.sh line 42:`), without its line and column.
static SOURCE_PATH: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(r"[A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.-]+)*\.[A-Za-z][A-Za-z0-9]{0,4}\b")
});

/// A line of the source a compiler quotes under its diagnostic (`3 |     for i in 0..buf.len()`,
/// `  |`, `3 -     old`): code, whose `buf.len` is no file.
static SNIPPET_LINE: LazyLock<AsciiRegex> =
    LazyLock::new(|| AsciiRegex::new(r"^[ \t]*(?:[0-9]+[ \t]+[|+-]|\|)(?:[ \t]|$)"));

/// How many lines above its link a Clippy lint's place (`--> src/frame.rs:3:14`) may be: the
/// code quoted between them is a few lines, rarely more.
const CLIPPY_REACH: usize = 24;

/// The line that places the Clippy lint whose link is on line `at`: Clippy names the lint at
/// the end of its diagnostic, below the code it quotes, so the place is the `-->` line above,
/// within the same diagnostic (not past its `error:`/`warning:` line).
fn clippy_place(lines: &[&str], at: usize) -> Option<usize> {
    (at.saturating_sub(CLIPPY_REACH)..at)
        .rev()
        .take_while(|&k| !lines[k].starts_with("error") && !lines[k].starts_with("warning"))
        .find(|&k| lines[k].trim_start().starts_with("--> "))
}

/// One diagnostic of a linter or compiler: its code and the source file it names, if any.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Diagnostic<'a> {
    pub code: &'a str,
    pub path: Option<&'a str>,
}

/// The diagnostics of a linter's or compiler's output (the path named on the diagnostic's line
/// or the two lines before or after it), in order, each once, at most four.
pub(crate) fn diagnostic_list(output: &str) -> Vec<Diagnostic<'_>> {
    let lines: Vec<&str> = output.lines().collect();
    let mut out: Vec<Diagnostic> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let clippy = || {
            let c = CLIPPY_LINT.captures(line)?;
            c.get(1).copied().flatten().or(c.get(2).copied().flatten())
        };
        let (code, near) = match DIAGNOSTIC_CODE.find(line) {
            Some((code, _)) => (
                code,
                vec![i, i.wrapping_sub(1), i + 1, i.wrapping_sub(2), i + 2],
            ),
            None => match clippy() {
                Some(lint) => (lint, clippy_place(&lines, i).into_iter().collect()),
                None => continue,
            },
        };
        let path = near
            .iter()
            .filter_map(|&k| lines.get(k))
            .filter(|l| !SNIPPET_LINE.is_match(l))
            // A link's path is no source file (Clippy's help names the lint's page).
            .flat_map(|l| l.split_whitespace().filter(|w| !w.contains("://")))
            .flat_map(|w| SOURCE_PATH.find_iter(w))
            .find(|p| p.contains('/') || p.matches('.').count() == 1 && !p.starts_with('.'));
        let item = Diagnostic { code, path };
        // Clippy names one lint twice, by its link and by its note (`_` and `-`).
        let same = |d: &Diagnostic| {
            d.path == item.path && d.code.replace('-', "_") == item.code.replace('-', "_")
        };
        if !out.iter().any(same) {
            out.push(item);
        }
        if out.len() == 4 {
            break;
        }
    }
    out
}

pub(crate) fn one_line_list(found: &[Diagnostic]) -> Option<String> {
    let list: Vec<String> = found
        .iter()
        .map(|d| match d.path {
            Some(p) => format!("{} in {p}", d.code),
            None => d.code.to_string(),
        })
        .collect();
    (!list.is_empty()).then(|| list.join(", "))
}

/// The line that says what went wrong: the first recogniser of `ERROR_LINES` that finds
/// something in `output`, one line of at most 160 characters.
pub(crate) fn error_line(output: &str) -> Option<String> {
    recognise(ERROR_LINES, output).map(|(_, line)| line)
}

/// A Python traceback's last line: the exception and its message.
fn traceback(output: &str) -> Option<String> {
    output
        .contains("Traceback (most recent call last)")
        .then(|| PY_EXCEPTION.find_iter(output).last())
        .flatten()
        .map(str::to_string)
}

/// One diagnostic is best told by its own line (code, place and message); several, or one
/// whose line says no more than its code, by the list.
fn diagnosed(output: &str) -> Option<String> {
    let found = diagnostic_list(output);
    let first = found.first()?;
    match first_error(output) {
        Some(l) if found.len() == 1 && l.contains(first.code) => Some(l.to_string()),
        _ => one_line_list(&found),
    }
}

/// npm names its error by a code (`npm ERR! code ERESOLVE`); a lifecycle script's failure
/// (`ELIFECYCLE`) only wraps the script's own error, printed above it.
fn npm_code(output: &str) -> Option<String> {
    output
        .lines()
        .map(str::trim)
        .find(|l| {
            (l.starts_with("npm ERR! code ") || l.starts_with("npm error code "))
                && !l.ends_with("ELIFECYCLE")
        })
        .map(|l| match l.ends_with("ERESOLVE") {
            true => format!("{l}{}", eresolve(output)),
            false => l.to_string(),
        })
}

fn error_looking(line: &&str) -> bool {
    ERROR_LINE.is_match(line)
}

/// The first error-looking line that is not a build driver's wrapper.
fn own_error(output: &str) -> Option<&str> {
    meaningful_lines(output)
        .filter(|l| !WRAPPER_LINE.is_match(l))
        .find(error_looking)
}

/// The first error-looking line, a wrapper's too: it says at least that something failed.
fn any_error(output: &str) -> Option<&str> {
    meaningful_lines(output).find(error_looking)
}

fn last_line(output: &str) -> Option<&str> {
    meaningful_lines(output).last()
}

/// The last three recognisers of `ERROR_LINES` in their order: the line a diagnostic's own
/// line is looked for in.
fn first_error(output: &str) -> Option<&str> {
    own_error(output)
        .or_else(|| any_error(output))
        .or_else(|| last_line(output))
}

/// What an npm dependency conflict was between: `: found react@17.0.2, peer
/// react@"^18.2.0" from react-datepicker@7.5.0`.
fn eresolve(output: &str) -> String {
    let after = |prefix: &str| {
        output.lines().find_map(|l| {
            let l = l.trim();
            let l = l
                .strip_prefix("npm ERR! ")
                .or_else(|| l.strip_prefix("npm error "))?;
            l.strip_prefix(prefix).map(str::trim)
        })
    };
    let parts: Vec<String> = [("Found: ", "found "), ("peer ", "peer ")]
        .iter()
        .filter_map(|(p, say)| after(p).map(|v| format!("{say}{v}")))
        .collect();
    match parts.is_empty() {
        true => String::new(),
        false => format!(": {}", parts.join(", ")),
    }
}

/// The commit a `git bisect run` ended on, with its subject and files: `first bad commit
/// 9c41e7a "Switch CSV export to streaming writer" (lib/export/csv_stream.rb)`.
fn bisected(output: &str) -> Option<String> {
    let line = output
        .lines()
        .find(|l| l.ends_with(" is the first bad commit"))?;
    let hash: String = line.chars().take(7).collect();
    let mut lines = output.lines().skip_while(|l| !l.starts_with("Date:"));
    let subject = lines.find(|l| l.starts_with("    "))?.trim();
    // The commit's stat follows its subject; a table the test printed earlier is no file list.
    let files: Vec<&str> = lines
        .filter_map(|l| {
            l.strip_prefix(' ')?
                .split_once(" | ")
                .map(|(f, _)| f.trim())
        })
        .collect();
    let files = match files.is_empty() {
        true => String::new(),
        false => format!(" ({})", files.join(", ")),
    };
    Some(format!("first bad commit {hash} \"{subject}\"{files}"))
}

/// A query plan's access path (`Seq Scan on orders`, `Index Scan using orders_idx on orders`)
/// and how long the query ran: what an `EXPLAIN ANALYZE` is run to learn.
static PLAN_SCAN: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(
        r"(?:Seq Scan|Parallel Seq Scan|Index Only Scan|Index Scan|Bitmap Heap Scan)(?: Backward)?(?: using [^ \t\r\n]+)? on [^ \t\r\n]+",
    )
});
static PLAN_TIME: LazyLock<AsciiRegex> =
    LazyLock::new(|| AsciiRegex::new(r"Execution Time: [0-9.]+ ms"));

fn plan_line(output: &str) -> Option<String> {
    let time = PLAN_TIME.find_iter(output).last()?;
    Some(match PLAN_SCAN.find_iter(output).next() {
        Some(scan) => format!("{scan} ({time})"),
        None => time.to_string(),
    })
}

/// The line that says how a passing command went: the first recogniser of `RESULT_LINES` that
/// finds something in `output`.
pub(crate) fn result_line(output: &str) -> Option<String> {
    recognise(RESULT_LINES, output).map(|(_, line)| line)
}

/// A test summary line only (never an arbitrary last line).
pub(crate) fn summary_line(output: &str) -> Option<String> {
    SUMMARY_LINE
        .find_iter(output)
        .last()
        .map(|m| clip(&one_line(m.trim()), 160))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_surefire_names_twice_is_one_test() {
        let out = "[ERROR] com.acme.uc.UserTest.legacyUser -- Time elapsed: 0.004 s <<< ERROR!\n\
                   java.lang.NullPointerException\n\
                   [ERROR] Errors: \n\
                   [ERROR]   UserTest.legacyUser:34 \u{bb} NullPointer Cannot invoke\n";
        assert_eq!(failing_tests(out), vec!["com.acme.uc.UserTest.legacyUser"]);
    }

    #[test]
    fn every_recogniser_is_the_first_to_recognise_its_example() {
        for table in [ERROR_LINES, RESULT_LINES] {
            for (i, r) in table.iter().enumerate() {
                assert!(
                    r.find(r.example).is_some(),
                    "{} does not recognise its example {:?}",
                    r.name,
                    r.example
                );
                assert_eq!(
                    recognise(table, r.example).map(|(name, _)| name),
                    Some(r.name),
                    "an earlier recogniser takes the example of {}",
                    r.name
                );
                assert!(
                    table[..i].iter().all(|earlier| earlier.name != r.name),
                    "two recognisers are named {}",
                    r.name
                );
            }
        }
    }

    #[test]
    fn a_test_runners_summary_is_its_last_count_line() {
        let vitest = " \u{2713} src/schemas/auth.test.ts (3 tests) 5ms\n\n Test Files  1 passed (1)\n      Tests  3 passed (3)\n   Start at  10:42:17";
        assert_eq!(summary_line(vitest).as_deref(), Some("Tests 3 passed (3)"));
        let jest = "Tests:       1 failed, 5 passed, 6 total\nTime: 2.1 s";
        assert_eq!(
            summary_line(jest).as_deref(),
            Some("Tests: 1 failed, 5 passed, 6 total")
        );
        assert_eq!(summary_line("Tests are flaky today"), None);
    }
}
