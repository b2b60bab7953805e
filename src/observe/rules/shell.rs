//! Shell commands: a check that failed and later passed is a bugfix that takes in the edits
//! made in between; other commands are remembered by what they did and how they ended.

use super::super::draft::{Draft, LONG_TITLE, Role, Titles, code, fit_list};
use super::super::event::{Event, Kind, Shell};
use super::super::outcome::{self, CommandClass};
use super::files::{self, FileChange, edit_of, file_change, group_edits};
use super::{Claims, TurnInput, asked};
use crate::model::ObsType;
use crate::text::plural;

fn shell(e: &Event) -> Option<&Shell> {
    match &e.kind {
        Kind::Shell(s) => Some(s),
        _ => None,
    }
}

fn failure_fact(sh: &Shell) -> String {
    let exit = sh
        .exit_code
        .map(|c| format!(" (exit {c})"))
        .unwrap_or_default();
    match outcome::error_line(&sh.output) {
        Some(line) => format!("{} failed{exit}: {line}", code(&sh.command, 200)),
        None => format!("{} failed{exit}", code(&sh.command, 200)),
    }
}

fn success_fact(sh: &Shell) -> String {
    match outcome::result_line(&sh.output).or(sh.interpretation.clone()) {
        Some(line) => format!("{} passed: {line}", code(&sh.command, 200)),
        None => format!("{} passed", code(&sh.command, 200)),
    }
}

/// `src/a.rs (f, g)` for a title; with no room for symbols (`max_symbols` 0), the path; with
/// `short`, the file by its name alone (`OrdersFragment.kt (onViewCreated)`), for a path too
/// long to leave room for anything else, which would otherwise be cut out of the title whole.
fn file_label(c: &FileChange, max_symbols: usize, short: bool) -> String {
    let path = match short {
        true => c.path.rsplit('/').next().unwrap_or(&c.path),
        false => &c.path,
    };
    if c.symbols.is_empty() || max_symbols == 0 {
        path.to_string()
    } else {
        format!("{path} ({})", fit_list(&c.symbols, max_symbols))
    }
}

/// The longest title form that fits: the command shrinks by whole words, then the symbol
/// list, then the command goes (`None`), then the file is named without its directories
/// (`true`), before the title is shortened at a word boundary.
fn fit_title(make: impl Fn(Option<usize>, usize, bool) -> String) -> String {
    const LADDER: [(Option<usize>, usize, bool); 11] = [
        (Some(30), 40, false),
        (Some(30), 24, false),
        (Some(24), 24, false),
        (Some(18), 24, false),
        (Some(18), 16, false),
        (Some(0), 16, false),
        (None, 24, false),
        (None, 12, false),
        (None, 0, false),
        (None, 24, true),
        (None, 0, true),
    ];
    Titles::new()
        .over(LADDER, |(cmd, symbols, short)| make(cmd, symbols, short))
        .fit()
}

/// A check's title forms, fullest first: the command shrinks by whole words, then only its
/// program is left, then it goes.
fn check_titles(command: &str, with: impl Fn(Option<&str>) -> String) -> Titles {
    Titles::new()
        .over(outcome::command_forms(command), |c| with(Some(&c)))
        .form(with(None))
}

/// Failed → (edits) → passed runs of the same check become bugfix observations.
pub(crate) fn fixes(input: &TurnInput, claims: &mut Claims) -> Vec<Draft> {
    let events = input.events;
    let mut out = Vec::new();
    for i in 0..events.len() {
        let Some(fail) = shell(&events[i]) else {
            continue;
        };
        if fail.ok || fail.interrupted || !claims.is_free(i) {
            continue;
        }
        // A look-around command (`grep -q …`) used as a check counts only when files changed
        // between its failing and its passing run, and only as the same command.
        let inspect = outcome::classify(&fail.command) == CommandClass::Inspect;
        let key_of = |c: &str| {
            if inspect {
                outcome::first_segment(c)
            } else {
                outcome::command_key(c)
            }
        };
        let key = key_of(&fail.command);
        let pass = (i + 1..events.len()).find(|&j| {
            claims.is_free(j)
                && shell(&events[j]).is_some_and(|s| s.ok && key_of(&s.command) == key)
        });
        let Some(j) = pass else { continue };
        let Some(passed) = shell(&events[j]) else {
            continue;
        };
        let between = &events[i + 1..j];
        let groups = group_edits(between, &|k| claims.is_free(k));
        if inspect && groups.is_empty() {
            continue;
        }
        let changes: Vec<FileChange> = groups
            .iter()
            .map(|(_, evs)| {
                let edits: Vec<_> = evs.iter().filter_map(|e| edit_of(e)).collect();
                file_change(&edits, input.parse_budget)
            })
            .collect();
        let fixers: Vec<&Event> = between
            .iter()
            .filter(|e| {
                claims.is_free(e.idx)
                    && shell(e).is_some_and(|s| {
                        s.ok && outcome::classify(&s.command) == CommandClass::Mutate
                    })
            })
            .collect();
        let retries: Vec<&Event> = between
            .iter()
            .filter(|e| {
                claims.is_free(e.idx)
                    && shell(e).is_some_and(|s| !s.ok && key_of(&s.command) == key)
            })
            .collect();
        let cmd = outcome::show_command(&fail.command, 30);
        // The tests that failed say what was broken better than the command that ran them.
        let failing = outcome::failing_tests(&fail.output);
        // Else the linter's or compiler's codes it reported (`TS2322`), when it had any.
        let mut codes: Vec<String> = Vec::new();
        for d in outcome::diagnostic_list(&fail.output) {
            if !codes.iter().any(|c| c == d.code) {
                codes.push(d.code.to_string());
            }
        }
        // A test named by its path, else by its own name (`tests/a.py::test_x` → `test_x`).
        let short_failing: Vec<String> = failing.iter().map(|t| test_name(t).to_string()).collect();
        // Last, a class's test by its method alone (`FooTest.legacyUser` → `legacyUser`); a
        // name with spaces or parameters (`renders 1.5 price`, `test_v[1.2]`) stays whole.
        let mut bare_failing: Vec<String> = Vec::new();
        for t in &short_failing {
            // Two classes' `save` are two tests: their methods alone would read as one.
            let bare = method_of(t).unwrap_or(t).to_string();
            if bare_failing.contains(&bare) {
                bare_failing = short_failing.clone();
                break;
            }
            bare_failing.push(bare);
        }
        let tests_named = |max: usize, short: u8| {
            if !failing.is_empty() {
                let verb = if failing.len() == 1 { "passes" } else { "pass" };
                let names = match short {
                    0 => &failing,
                    1 => &short_failing,
                    _ => &bare_failing,
                };
                Some((fit_list(names, max), verb))
            } else if !codes.is_empty() {
                Some((fit_list(&codes, max), "resolved"))
            } else {
                None
            }
        };
        let mut d = if let Some(first) = changes.first() {
            let more = match changes.len() {
                1 => String::new(),
                2 => " +1 file".to_string(),
                n => format!(" +{} files", n - 1),
            };
            // The tests that now pass say more than the directories of the file edited: a
            // deep path is named by its file before the tests are left out.
            let by_tests: Vec<String> = Titles::new()
                .forms(
                    [false, true]
                        .into_iter()
                        .flat_map(|short_file| {
                            [(40, 30), (40, 16), (24, 16), (24, 0)]
                                .into_iter()
                                .flat_map(move |(t, m)| {
                                    (0..3).map(move |short| (t, m, short, short_file))
                                })
                        })
                        .filter_map(|(t, m, short, short_file)| {
                            let file = file_label(first, m, short_file);
                            tests_named(t, short).map(|(t, verb)| match verb {
                                // A linter's or compiler's codes were in the code edited.
                                "resolved" => format!("Fixed {t} in {file}{more}"),
                                _ => format!("Fixed failing {t} after editing {file}{more}"),
                            })
                        }),
                )
                .list();
            let by_edit = fit_title(|c, m, short| match c {
                Some(c) => format!(
                    "Fixed failing `{}` after editing {}{more}",
                    outcome::show_command(&fail.command, c),
                    file_label(first, m, short)
                ),
                None => format!(
                    "Fixed a failing check after editing {}{more}",
                    file_label(first, m, short)
                ),
            });
            // What now passes, by name (the tests, the linter's codes), fullest first.
            let named_checks: Vec<String> = [(40, 0), (40, 1), (24, 0), (24, 1)]
                .into_iter()
                .filter_map(|(n, short)| tests_named(n, short).map(|(t, v)| format!("{t} {v}")))
                .collect();
            // What changed first, then how it was checked: `Fixed refresh_window in
            // src/auth.rs: 30 → 300; `cargo test` passes`.
            let (title, checks) = match (first.phrase(), changes.len()) {
                (Some(arrow), 1) => {
                    // `Fixed refresh_window in src/auth.rs: 30 → 300`, or for a rename
                    // `Fixed by renaming parse_all → parse_every in src/event.rs`.
                    let what: Vec<String> = match files::renamed(first) {
                        Some(forms) => forms
                            .into_iter()
                            .map(|f| format!("Fixed by renaming {f}"))
                            .collect(),
                        None => first
                            .names()
                            .iter()
                            .map(|what| format!("Fixed {what}: {arrow}"))
                            .collect(),
                    };
                    let checks = Titles::new()
                        .forms(named_checks)
                        .over(outcome::command_forms(&passed.command), |c| {
                            format!("`{c}` passes")
                        })
                        .list();
                    let title = Titles::new()
                        .over(&checks, |c| format!("{}; {c}", what[0]))
                        .forms(what)
                        .forms(by_tests.iter().cloned())
                        .form(by_edit)
                        .fit();
                    (title, checks)
                }
                // A title naming the tests needs no check after it; one naming only the
                // file gets the tests that now pass, after the turn's why.
                _ => match Titles::new().forms(by_tests).first_fit() {
                    Some(t) => (t, Vec::new()),
                    None => (by_edit, named_checks),
                },
            };
            Draft::new(ObsType::Bugfix, title)
                .role(Role::Work)
                .checked(checks)
                .subtitle(format!(
                    "`{cmd}` failed, then passed after {} changed",
                    fit_list(&changes.iter().map(|c| c.what(40)).collect::<Vec<_>>(), 120)
                ))
                .concepts(&["problem-solution", "what-changed"])
        } else if let Some(fixer) = fixers.first().and_then(|e| shell(e)) {
            let by = outcome::show_command(&fixer.command, 30);
            let title = fit_title(|c, m, _| {
                let by = outcome::show_command(&fixer.command, m.max(12));
                match c {
                    Some(c) => format!(
                        "Fixed failing `{}` by running `{by}`",
                        outcome::show_command(&fail.command, c)
                    ),
                    None => format!("Fixed a failing check by running `{by}`"),
                }
            });
            Draft::new(ObsType::Bugfix, title)
                .subtitle(format!("`{cmd}` failed until `{by}` ran"))
                .concepts(&["problem-solution"])
        } else {
            let title = check_titles(&fail.command, |c| match c {
                Some(c) => format!("`{c}` failed, then passed on a rerun"),
                None => "A check failed, then passed on a rerun".to_string(),
            })
            .fit();
            Draft::new(ObsType::Discovery, title)
                .subtitle(format!(
                    "`{cmd}` failed once and passed when run again with nothing changed in between"
                ))
                .concepts(&["gotcha"])
        };
        d.fact(failure_fact(fail));
        if !failing.is_empty() {
            d.fact(format!("Failing tests: {}", fit_list(&failing, 200)));
        }
        for c in &changes {
            d.fact(c.fact());
            d.modified(&c.path);
        }
        for e in &fixers {
            if let Some(s) = shell(e) {
                d.fact(format!("{} ran in between", code(&s.command, 200)));
            }
        }
        d.fact(success_fact(passed));
        let error = outcome::error_line(&fail.output).unwrap_or_else(|| "an error".into());
        let fixed_by = if changes.is_empty() {
            String::new()
        } else {
            format!(
                " After {} changed",
                fit_list(&changes.iter().map(|c| c.what(60)).collect::<Vec<_>>(), 200)
            )
        };
        let narrative = format!(
            "{} failed with \u{201c}{error}\u{201d}.{fixed_by}{}{} passed{}.{}",
            code(&fail.command, 120),
            if fixed_by.is_empty() { " " } else { ", " },
            code(&passed.command, 120),
            outcome::result_line(&passed.output)
                .map(|l| format!(": {l}"))
                .unwrap_or_default(),
            asked(input.prompt)
        );
        for idx in [i, j]
            .into_iter()
            .chain(groups.iter().flat_map(|(_, evs)| evs.iter().map(|e| e.idx)))
            .chain(fixers.iter().map(|e| e.idx))
            .chain(retries.iter().map(|e| e.idx))
        {
            d.tool(idx);
            claims.take(idx);
        }
        // Reads of the fixed files were part of the fix.
        files::claim_reads_of(events, claims, &mut d, |p| {
            changes.iter().any(|c| c.path == p)
        });
        out.push(d.narrative(narrative));
    }
    out
}

/// Every other command (look-around commands go with the reads).
pub(crate) fn commands(input: &TurnInput, claims: &mut Claims) -> Vec<Draft> {
    let mut groups: Vec<(String, bool, Vec<&Event>)> = Vec::new();
    for e in input.events {
        let Some(sh) = shell(e) else { continue };
        if !claims.is_free(e.idx) || outcome::classify(&sh.command) == CommandClass::Inspect {
            continue;
        }
        let shown = outcome::show_command(&sh.command, 40);
        match groups
            .iter_mut()
            .find(|(c, ok, _)| *c == shown && *ok == sh.ok)
        {
            Some((_, _, list)) => list.push(e),
            None => groups.push((shown, sh.ok, vec![e])),
        }
    }
    let mut out = Vec::new();
    for (shown, ok, events) in groups {
        let Some(sh) = events.last().and_then(|e| shell(e)) else {
            continue;
        };
        let class = outcome::classify(&sh.command);
        // Each title form is tried with the command whole, shortened and dropped: the
        // outcome after it is worth more than the command's arguments. `first` are fuller
        // forms to try before those.
        let titled_first = |first: Vec<String>, with: &dyn Fn(&str) -> String, without: String| {
            // When nothing fits whole, the program's name stays and the outcome is shortened.
            let program = outcome::show_command(&sh.command, 0);
            Titles::new()
                .forms(first)
                .form(with(&shown))
                .over(outcome::command_forms(&sh.command), |c| with(&c))
                .form(without)
                .form((crate::model::utf16_len(&program) <= 24).then(|| with(&program)))
                .fit()
        };
        let titled = |with: &dyn Fn(&str) -> String, without: String| {
            titled_first(Vec::new(), with, without)
        };
        let mut d = if sh.interrupted {
            let title = titled(
                &|c| format!("`{c}` was interrupted"),
                "A command was interrupted".into(),
            );
            Draft::new(ObsType::Discovery, title).concepts(&["gotcha"])
        } else if !ok {
            // A check that failed more than once in the turn failed again after whatever was
            // tried between: the reader needs to know it is still broken.
            let fails = if events.len() > 1 {
                "still fails"
            } else {
                "fails"
            };
            let fails = match outcome::failed_count(&sh.output) {
                Some(n) => format!("{fails} ({n})"),
                None => fails.to_string(),
            };
            let line = outcome::error_line(&sh.output);
            let failing = outcome::failing_tests(&sh.output);
            let title = match (&line, class) {
                (Some(l), CommandClass::Check) if !failing.is_empty() => {
                    // A test named by its path, else by its own name (`tests::x` → `x`); which
                    // test fails and how it fails, the error line, when both fit.
                    let short: Vec<String> =
                        failing.iter().map(|t| test_name(t).to_string()).collect();
                    let tests = fit_list(&short, 60);
                    let unsaid: Vec<String> = short
                        .iter()
                        .filter(|t| !l.contains(t.as_str()))
                        .cloned()
                        .collect();
                    let named = !unsaid.is_empty();
                    let tests_and_line = format!("{} \u{2014} {l}", fit_list(&unsaid, 60));
                    let mut forms = Vec::new();
                    for c in [shown.clone(), outcome::show_command(&sh.command, 0)] {
                        if named {
                            forms.push(format!("`{c}` {fails}: {tests_and_line}"));
                        }
                        forms.push(format!("`{c}` {fails}: {l}"));
                    }
                    forms.push(format!("`{shown}` {fails}: {}", fit_list(&failing, 40)));
                    titled_first(
                        forms,
                        &|c| format!("`{c}` {fails}: {tests}"),
                        format!("A check {fails}: {tests}"),
                    )
                }
                (Some(l), CommandClass::Check) => titled(
                    &|c| format!("`{c}` {fails}: {l}"),
                    format!("A check {fails}: {l}"),
                ),
                (Some(l), _) => titled(
                    &|c| format!("`{c}` failed: {l}"),
                    format!("A command failed: {l}"),
                ),
                (None, _) => titled(&|c| format!("`{c}` failed"), "A command failed".into()),
            };
            let d = Draft::new(ObsType::Discovery, title).concepts(&["problem-solution", "gotcha"]);
            if class == CommandClass::Check {
                // Short forms for a new test's first, failing run (`rules::fold`).
                let short: Vec<String> = failing.iter().map(|t| test_name(t).to_string()).collect();
                let checks = [40, 24, 0]
                    .iter()
                    .flat_map(|&n| {
                        let c = outcome::show_command(&sh.command, n);
                        let mut forms = Vec::new();
                        if !short.is_empty() {
                            forms.push(format!("`{c}` {fails}: {}", fit_list(&short, 40)));
                        }
                        forms.push(format!("`{c}` {fails}"));
                        forms
                    })
                    .collect();
                d.checked(checks).role(Role::Failure)
            } else {
                d
            }
        } else {
            let result = outcome::result_line(&sh.output).or(sh.interpretation.clone());
            // A chain that made a commit (`git cherry-pick --continue && go test … && git
            // push`) is known by the commit, whatever else it ran.
            let class = if commit_of(&sh.output).is_some() && sh.command.contains("git ") {
                CommandClass::Mutate
            } else {
                class
            };
            // A benchmark that measured a change says what changed, not that it ran.
            let bench = (class == CommandClass::Check)
                .then(|| outcome::bench_changes(&sh.output))
                .flatten();
            match class {
                _ if let Some(found) = &bench => {
                    let title = titled(&|c| format!("`{c}`: {found}"), found.clone());
                    Draft::new(ObsType::Discovery, title).concepts(&["how-it-works"])
                }
                CommandClass::Check => {
                    // The counts say what the summary line says, without its noise
                    // (`0 failed; 0 ignored; finished in 0.00s`).
                    let title = match outcome::summary_line(&sh.output) {
                        Some(s) => match outcome::counts(&s) {
                            Some(n) => titled(
                                &|c| format!("`{c}` passes ({n})"),
                                format!("A check passes ({n})"),
                            ),
                            None => titled(
                                &|c| format!("`{c}` passes: {s}"),
                                format!("A check passes: {s}"),
                            ),
                        },
                        None => titled(&|c| format!("`{c}` passes"), "A check passes".into()),
                    };
                    // Short forms for folding into the change it verified (`rules::fold`).
                    let counts = outcome::summary_line(&sh.output)
                        .and_then(|s| outcome::counts(&s))
                        .map(|n| format!(" ({n})"))
                        .unwrap_or_default();
                    let checks = outcome::command_forms(&sh.command)
                        .into_iter()
                        .flat_map(|c| [format!("`{c}` passes{counts}"), format!("`{c}` passes")])
                        .collect();
                    Draft::new(ObsType::Discovery, title)
                        .concepts(&["how-it-works"])
                        .checked(checks)
                        .role(Role::Check)
                }
                CommandClass::Mutate => {
                    // The message as given on the command line, else as git printed it (a
                    // revert, a cherry-pick, a commit whose message came from an editor).
                    let made = commit_of(&sh.output);
                    let message =
                        commit_message(&sh.command).or_else(|| made.map(|c| c.2.to_string()));
                    let commit = message.map(|msg| {
                        let mut files = files_changed(&sh.output)
                            .map(|n| format!(" ({})", plural(n, "file", "files")))
                            .unwrap_or_default();
                        if pushed(&sh.command, &sh.output) {
                            files.push_str(", pushed");
                        }
                        let picked = sh.command.contains("cherry-pick");
                        match (made, reverted(&sh.command, &msg)) {
                            // A revert is known by what it undid, not by git's "Revert …".
                            (Some((branch, hash, _)), Some((target, subject))) => format!(
                                "Reverted {target} \"{subject}\" as {hash} on {branch}{files}"
                            ),
                            (Some((branch, hash, _)), None) if picked => {
                                format!("Cherry-picked onto {branch} as {hash}{files}: {msg}")
                            }
                            (Some((branch, hash, _)), None) => {
                                format!("Committed {hash} on {branch}{files}: {msg}")
                            }
                            (None, _) => format!("Committed{files}: {msg}"),
                        }
                    });
                    match commit {
                        // The commit message is the author's own title for the work: kept
                        // whole as far as a why-long title allows.
                        Some(title) => Draft::titled(ObsType::Change, title, LONG_TITLE)
                            .concepts(&["what-changed"]),
                        None => Draft::new(
                            ObsType::Change,
                            titled(&|c| format!("Ran `{c}`"), "Ran a command".into()),
                        )
                        .concepts(&["what-changed"]),
                    }
                }
                _ => {
                    let title = match &result {
                        Some(r) => titled(&|c| format!("Ran `{c}`: {r}"), format!("Ran: {r}")),
                        None => titled(&|c| format!("Ran `{c}`"), "Ran a command".into()),
                    };
                    Draft::new(ObsType::Discovery, title).concepts(&["how-it-works"])
                }
            }
        };
        let subtitle = match &sh.description {
            Some(desc) => format!("{} ({})", desc, code(&sh.command, 60)),
            None => format!("Ran {}", code(&sh.command, 80)),
        };
        d = d.subtitle(subtitle);
        if ok {
            d.fact(success_fact(sh).replacen(" passed", " succeeded", 1));
        } else {
            d.fact(failure_fact(sh));
            let failing = outcome::failing_tests(&sh.output);
            if !failing.is_empty() {
                d.fact(format!("Failing tests: {}", fit_list(&failing, 200)));
            }
        }
        if events.len() > 1 {
            d.fact(format!("Ran {} times in this turn", events.len()));
        }
        let narrative = format!("{}.{}", d.facts.join(". "), asked(input.prompt));
        for e in &events {
            d.tool(e.idx);
            claims.take(e.idx);
        }
        out.push(d.narrative(narrative));
    }
    out
}

/// The message of `git commit -m "…"`.
fn commit_message(command: &str) -> Option<String> {
    let cmd = &command[command.find("git commit")?..];
    let at = cmd.find(" -m ").or_else(|| cmd.find(" -am "))?;
    let rest = cmd[at..].trim_start().split_once(' ')?.1.trim_start();
    let msg = match rest.chars().next()? {
        q @ ('"' | '\'') => rest[1..].split(q).next()?.to_string(),
        _ => rest.split_whitespace().next()?.to_string(),
    };
    super::super::draft::first_line(&msg, LONG_TITLE)
}

/// The method of a `Class.method` test name, when the name is just that.
fn method_of(name: &str) -> Option<&str> {
    let (class, method) = name.rsplit_once('.')?;
    let ident = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    (ident(class) && ident(method) && class.starts_with(|c: char| c.is_ascii_uppercase()))
        .then_some(method)
}

/// A test's own name, without the path to it (`tests/a.py::TestX::test_y` → `test_y`); a
/// parametrised test keeps its parameters whole (`test_split[a::b]`).
fn test_name(path: &str) -> &str {
    let before_params = path.find('[').unwrap_or(path.len());
    // `tests/x.py::test_y`, or Vitest's and Gradle's `file > suite > test`.
    match ["::", " > "]
        .iter()
        .filter_map(|sep| path[..before_params].rfind(sep).map(|at| at + sep.len()))
        .max()
    {
        Some(at) => &path[at..],
        // Surefire's `com.acme.reports.OrderReportTest.sumsRepeatedSku`: class and method. Dots
        // in parameters (`bar(java.lang.String)`, `parses[1.2.3]`) are not the name's.
        None => {
            let name = &path[..path.find(['[', '(']).unwrap_or(path.len())];
            if path.contains(['/', ' ']) || name.matches('.').count() < 2 {
                return path;
            }
            let mut dots = name.rmatch_indices('.').map(|(i, _)| i);
            dots.nth(1).map_or(path, |at| &path[at + 1..])
        }
    }
}

/// Whether a `git push` of the command sent a ref: git's `91c2e4a..b77d0f3  main -> main`
/// says the commit left the machine; its ` ! [rejected]  main -> main (fetch first)` and a
/// dry run's lines say it did not.
fn pushed(command: &str, output: &str) -> bool {
    command.contains("git push")
        && !command.contains("--dry-run")
        && !output.contains("failed to push")
        && output
            .lines()
            .any(|l| l.contains(" -> ") && !l.trim_start().starts_with('!'))
}

/// The commit a `git revert <commit>` undid and that commit's subject, from git's message for
/// the new commit (`Revert "config: raise the pool size"`).
fn reverted<'a>(command: &'a str, message: &'a str) -> Option<(&'a str, &'a str)> {
    // Options whose value is the next word (`-m 1`: the parent of a merge, not a commit).
    const TAKES_VALUE: &[&str] = &["-m", "--mainline", "-X", "--strategy-option", "--strategy"];
    let args = &command[command.find("git revert")? + "git revert".len()..];
    let mut words = args
        .split_whitespace()
        .take_while(|w| !matches!(*w, "&&" | "||" | ";" | "|"));
    let target = loop {
        let w = words.next()?;
        if TAKES_VALUE.contains(&w) {
            words.next();
        } else if !w.starts_with('-') {
            break w.trim_end_matches(';').trim_matches(['"', '\'']);
        }
    };
    if target.is_empty() {
        return None;
    }
    let subject = message.strip_prefix("Revert \"")?.strip_suffix('"')?;
    (!subject.is_empty()).then_some((target, subject))
}

/// How many files a commit changed, from git's `3 files changed, …` line.
fn files_changed(output: &str) -> Option<usize> {
    output.lines().find_map(|l| {
        let l = l.trim();
        let (n, rest) = l.split_once(' ')?;
        (rest.starts_with("file changed") || rest.starts_with("files changed"))
            .then(|| n.parse().ok())
            .flatten()
    })
}

/// The branch, short hash and message git prints for a new commit (`[main 7c41e9a] fix: …`),
/// which find the commit again later.
fn commit_of(output: &str) -> Option<(&str, &str, &str)> {
    let line = output.lines().find(|l| l.starts_with('['))?;
    let close = line.find(']')?;
    let (branch, hash) = line[1..close].rsplit_once(' ')?;
    let branch = branch.trim_end_matches(" (root-commit)").trim();
    let message = line[close + 1..].trim();
    let hex = hash.len() >= 7 && hash.chars().all(|c| c.is_ascii_hexdigit());
    (hex && !branch.is_empty() && !branch.contains(' ') && !message.is_empty())
        .then_some((branch, hash, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Any output: no panic; a commit found has a hex hash and a message.
        #[test]
        fn any_output_is_read_without_panic(out in "(?s)(\\[|\\]| |[0-9a-f]{7}|main|\u{e9}|\n|.){0,40}") {
            if let Some((_, hash, message)) = commit_of(&out) {
                proptest::prop_assert!(hash.chars().all(|c| c.is_ascii_hexdigit()));
                proptest::prop_assert!(!message.is_empty());
            }
            let _ = files_changed(&out);
        }
    }

    #[test]
    fn a_fix_names_the_test_that_now_passes_before_the_directories_of_its_file() {
        use crate::observe::event::{Event, FileEdit, Kind, Shell};
        let run = |idx: usize, ok: bool, output: &str| Event {
            idx,
            at: idx as i64,
            failed: !ok,
            kind: Kind::Shell(Shell {
                command: "./gradlew :app:testDebugUnitTest --tests '*OrdersFragmentTest*'".into(),
                ok,
                exit_code: Some(if ok { 0 } else { 1 }),
                output: output.into(),
                ..Shell::default()
            }),
        };
        let path = "app/src/main/java/com/acme/shop/orders/OrdersFragment.kt";
        let events = vec![
            run(
                0,
                false,
                "> Task :app:testDebugUnitTest\n\nOrdersFragmentTest > opensWithCachedOrders FAILED\n    kotlin.UninitializedPropertyAccessException: lateinit property adapter has not been initialized\n\n1 test completed, 1 failed",
            ),
            Event {
                idx: 1,
                at: 1,
                failed: false,
                kind: Kind::Edit(FileEdit {
                    path: path.into(),
                    old_snippet: "        lifecycleScope.launch {\n            collect()\n        }".into(),
                    new_snippet: "        viewLifecycleOwner.lifecycleScope.launch {\n            collect()\n        }\n        bind()".into(),
                    added: 2,
                    removed: 1,
                    ..FileEdit::default()
                }),
            },
            run(
                2,
                true,
                "OrdersFragmentTest > opensWithCachedOrders PASSED\n\nBUILD SUCCESSFUL in 38s",
            ),
        ];
        let input = TurnInput {
            prompt: "fix the crash",
            events: &events,
            tools: &[],
            parse_budget: std::time::Duration::from_millis(5),
        };
        let drafts = fixes(&input, &mut Claims::new(events.len()));
        assert_eq!(
            drafts.first().map(|d| d.title.as_str()),
            Some(
                "Fixed failing OrdersFragmentTest > opensWithCachedOrders after editing OrdersFragment.kt"
            ),
            "{drafts:#?}"
        );
    }

    #[test]
    fn a_test_is_named_by_its_method_only_when_it_is_a_class_and_a_method() {
        assert_eq!(method_of("UserTest.legacyUser"), Some("legacyUser"));
        for name in [
            "renders the 1.5 price",
            "test_v[1.2]",
            "pkg.sub",
            "UserTest",
        ] {
            assert_eq!(method_of(name), None, "{name}");
        }
    }

    #[test]
    fn commits_are_found_by_branch_and_hash() {
        assert_eq!(
            commit_of("[main 7c41e9a] fix: x\n 3 files changed"),
            Some(("main", "7c41e9a", "fix: x"))
        );
        assert_eq!(
            commit_of("[feat/a (root-commit) 0123abc] first"),
            Some(("feat/a", "0123abc", "first"))
        );
        assert_eq!(
            commit_of("[main 3f2e1d0] Revert \"feat: strict cookies\"\n 2 files changed")
                .map(|c| c.2),
            Some("Revert \"feat: strict cookies\""),
            "a revert's message comes from git's output"
        );
        assert_eq!(commit_of("nothing to commit, working tree clean"), None);
        assert_eq!(
            files_changed("[main 1a] x\n 3 files changed, 41 insertions(+)"),
            Some(3)
        );
        assert_eq!(files_changed("[main 1a] x\n 1 file changed"), Some(1));
        assert_eq!(commit_of("[warn] not a commit"), None);
    }

    #[test]
    fn commit_messages() {
        assert_eq!(
            commit_message("git commit -m \"Fix the window\" && git push").as_deref(),
            Some("Fix the window")
        );
        assert_eq!(commit_message("git status"), None);
    }

    #[test]
    fn a_test_is_named_without_its_path() {
        assert_eq!(test_name("tests/a.py::TestX::test_y"), "test_y");
        assert_eq!(test_name("auth::tests::refresh"), "refresh");
        assert_eq!(
            test_name("tests/t.py::test_split[a::b]"),
            "test_split[a::b]",
            "a parameter is no path"
        );
        assert_eq!(test_name("test_plain"), "test_plain");
        assert_eq!(
            test_name("com.acme.reports.OrderReportTest.sumsRepeatedSku"),
            "OrderReportTest.sumsRepeatedSku"
        );
        assert_eq!(
            test_name("com.acme.FooTest.bar(java.lang.String)"),
            "FooTest.bar(java.lang.String)"
        );
        assert_eq!(test_name("parses_version[1.2.3]"), "parses_version[1.2.3]");
        assert_eq!(
            test_name("ReportSchedulerTest.nextRunAcrossNewYear"),
            "ReportSchedulerTest.nextRunAcrossNewYear"
        );
        assert_eq!(
            test_name("src/lib/money.test.ts > formatPrice > formats negative amounts"),
            "formats negative amounts"
        );
    }

    #[test]
    fn a_revert_names_the_commit_it_undid() {
        assert_eq!(
            reverted(
                "git revert --no-edit a3f91c2 && git push",
                "Revert \"raise pool\""
            ),
            Some(("a3f91c2", "raise pool"))
        );
        assert_eq!(
            reverted("git revert -m 1 9f8e7d6; git log -1", "Revert \"Merge x\""),
            Some(("9f8e7d6", "Merge x")),
            "a merge's parent number is no commit"
        );
        assert_eq!(
            reverted("git revert --mainline 2 -X ours 'HEAD~1'", "Revert \"y\""),
            Some(("HEAD~1", "y"))
        );
        assert_eq!(reverted("git revert --continue", "Revert \"x\""), None);
        assert_eq!(reverted("git commit -m x", "Revert \"x\""), None);
    }
}
