//! One outcome, one memory: what the other rules made of a turn is folded so the index gets a
//! row per outcome. A verification run that passed after a change goes into that change's
//! observation (`… ; `cargo test db::pool` passes (9 passed)`); reads, searches and look-ups
//! beside real work are not rows of their own, their facts and files go to the turn's first
//! observation; a turn that only looked around keeps one row for all of it.
//!
//! A failed run, an interrupted one or a check with no change before it keeps its own row:
//! a failure nothing fixed is an outcome, and a check that verified nothing is the turn's. One
//! failure folds: the first run of tests the turn just wrote or changed, which fails because
//! they reproduce the bug (`Changed tests::x in src/a.rs; `cargo test a` fails (1 failed)`).

use super::super::draft::{Draft, Role, fitting_title, push_unique};

pub(crate) fn fold(drafts: Vec<Draft>) -> Vec<Draft> {
    let drafts = fold_red_runs(drafts);
    let drafts = fold_checks(drafts);
    fold_look_arounds(drafts)
}

/// Whether a change only wrote tests: every file it changed is a test file, or every symbol
/// it names is a test (`tests::x`, `test_y`).
fn only_tests(d: &Draft) -> bool {
    let test = |s: &str| {
        let l = s.to_ascii_lowercase();
        l.contains("test") || l.contains("spec")
    };
    if !d.files_modified.is_empty() && d.files_modified.iter().all(|p| test(p)) {
        return true;
    }
    let named: Vec<&str> = d
        .facts
        .iter()
        .filter_map(|f| {
            f.split_once("; changed ")
                .or_else(|| f.split_once("; defines "))
        })
        .flat_map(|(_, list)| list.split(", "))
        .collect();
    !named.is_empty() && named.iter().all(|s| test(s))
}

/// The first failing run after a change that only wrote tests joins that change.
fn fold_red_runs(drafts: Vec<Draft>) -> Vec<Draft> {
    let mut out: Vec<Draft> = Vec::new();
    for d in drafts {
        if d.role == Role::Failure {
            let first = d.tools.iter().copied().min().unwrap_or(0);
            let target = out
                .iter_mut()
                .filter(|w| w.role == Role::Work && w.tools.iter().all(|&t| t < first))
                .max_by_key(|w| w.tools.iter().copied().max().unwrap_or(0))
                .filter(|w| only_tests(w) && w.checks.is_empty());
            if let Some(work) = target {
                absorb_check(work, d);
                // Its checks say what failed; no passing run may claim the title after it.
                continue;
            }
        }
        out.push(d);
    }
    out
}

/// Each passing check into the latest change whose tool uses all came before it.
fn fold_checks(drafts: Vec<Draft>) -> Vec<Draft> {
    let mut out: Vec<Draft> = Vec::new();
    let mut checks: Vec<Draft> = Vec::new();
    for d in drafts {
        match d.role {
            Role::Check => checks.push(d),
            _ => out.push(d),
        }
    }
    for check in checks {
        let first = check.tools.iter().copied().min().unwrap_or(0);
        let target = out
            .iter_mut()
            .filter(|d| d.role == Role::Work && d.tools.iter().all(|&t| t < first))
            .max_by_key(|d| d.tools.iter().copied().max().unwrap_or(0));
        match target {
            Some(work) if !work.checks.iter().any(|c| c.contains(" fail")) => {
                absorb_check(work, check)
            }
            _ => out.push(check),
        }
    }
    out
}

fn absorb_check(work: &mut Draft, check: Draft) {
    // A title that already says what now passes (a fix naming its tests) keeps its own.
    if work.checks.is_empty() {
        let forms = check
            .checks
            .iter()
            .map(|c| format!("{}; {c}", work.title))
            .chain([work.title.clone()]);
        work.title = fitting_title(forms);
        work.checks = check.checks.clone();
    }
    merge(work, check);
}

/// Look-arounds beside other outcomes leave the index; alone, they become one row.
fn fold_look_arounds(drafts: Vec<Draft>) -> Vec<Draft> {
    let (looks, mut rest): (Vec<Draft>, Vec<Draft>) =
        drafts.into_iter().partition(|d| d.role == Role::LookAround);
    let mut looks = looks.into_iter();
    let Some(first_look) = looks.next() else {
        return rest;
    };
    match rest.first_mut() {
        Some(primary) => {
            for look in std::iter::once(first_look).chain(looks) {
                take_facts(primary, look);
            }
            rest
        }
        None => {
            let mut one = first_look;
            for look in looks {
                merge(&mut one, look);
            }
            rest.push(one);
            rest
        }
    }
}

/// Everything `from` knew goes into `into`, which now stands for its tool uses too.
fn merge(into: &mut Draft, from: Draft) {
    for t in &from.tools {
        into.tool(*t);
    }
    take_facts(into, from);
}

/// `from`'s facts and files, without its tool uses: they stay the turn's, linked to no row.
fn take_facts(into: &mut Draft, from: Draft) {
    for f in &from.facts {
        into.fact(f);
    }
    for p in &from.files_read {
        into.read(p);
    }
    for p in &from.files_modified {
        push_unique(&mut into.files_modified, p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObsType;

    fn draft(role: Role, title: &str, tools: &[usize]) -> Draft {
        let mut d = Draft::new(ObsType::Change, title).role(role);
        for &t in tools {
            d.tool(t);
        }
        d.fact(format!("fact of {title}"));
        d
    }

    #[test]
    fn a_passing_check_after_a_change_joins_it() {
        let mut check = draft(Role::Check, "`cargo test db::pool` passes (9 passed)", &[3]);
        check.checks = vec!["`cargo test db::pool` passes (9 passed)".into()];
        let out = fold(vec![
            draft(
                Role::Work,
                "Pool::release in src/db/pool.rs: 1 \u{2192} 2",
                &[1, 2],
            ),
            check,
            draft(Role::LookAround, "Searched `release` (2 lines)", &[0]),
        ]);
        assert_eq!(out.len(), 1, "{out:#?}");
        assert_eq!(
            out[0].title,
            "Pool::release in src/db/pool.rs: 1 \u{2192} 2; `cargo test db::pool` passes (9 passed)"
        );
        assert_eq!(
            out[0].tools,
            vec![1, 2, 3],
            "the search's tool use is no row's"
        );
        assert!(out[0].facts.iter().any(|f| f.contains("Searched")));
    }

    #[test]
    fn a_check_before_any_change_and_a_failure_keep_their_rows() {
        let mut before = draft(Role::Check, "`pytest` passes", &[0]);
        before.checks = vec!["`pytest` passes".into()];
        let out = fold(vec![
            before,
            draft(Role::Work, "a.py: 1 \u{2192} 2", &[1]),
            draft(Role::Other, "`pytest` fails (1 failed)", &[2]),
        ]);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].title, "a.py: 1 \u{2192} 2");
    }

    #[test]
    fn a_new_tests_first_failing_run_joins_it() {
        let mut work = draft(
            Role::Work,
            "Changed tests::x in src/a.rs (+9 \u{2212}0)",
            &[0],
        );
        work.fact("src/a.rs: 9 lines added, 0 removed in 1 edit; changed tests::x");
        let mut red = draft(Role::Failure, "`cargo test a` fails (1 failed): x", &[1]);
        red.checks = vec!["`cargo test a` fails (1 failed): x".into()];
        let out = fold(vec![work, red.clone()]);
        assert_eq!(out.len(), 1, "{out:#?}");
        assert!(
            out[0]
                .title
                .ends_with("; `cargo test a` fails (1 failed): x")
        );
        let mut code = draft(Role::Work, "Changed run in src/a.rs (+2 \u{2212}1)", &[0]);
        code.fact("src/a.rs: 2 lines added, 1 removed in 1 edit; changed run");
        assert_eq!(
            fold(vec![code, red]).len(),
            2,
            "a change of code that fails stays two"
        );
    }

    #[test]
    fn a_turn_that_only_looked_around_is_one_row() {
        let out = fold(vec![
            draft(Role::LookAround, "Read src/a.rs", &[0]),
            draft(Role::LookAround, "Searched `x` (1 line)", &[1]),
        ]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].title, "Read src/a.rs");
        assert_eq!(out[0].tools, vec![0, 1]);
    }
}
