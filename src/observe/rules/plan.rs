//! A turn that planned work instead of doing it ("plan it out first, don't start coding"):
//! the steps it wrote to its to-do list are what a later session needs, with the goal from the
//! request. Turns that also changed files are told by their changes.

use super::super::draft::{Draft, LONG_TITLE, TITLE_MAX, clip_words, fit_list};
use super::super::words::request;
use super::asked;
use crate::model::ObsType;

/// Fewest open steps that make a plan (one is a reminder, not a plan).
const MIN_STEPS: usize = 2;

/// Fewest columns left after the goal that are worth the first words of the steps.
const MIN_STEP_COLUMNS: usize = 20;

/// Fewest words of the first step worth showing (`1. Move …` says nothing).
const MIN_STEP_WORDS: usize = 3;

/// Longest list of steps in a subtitle (units).
const STEPS_MAX: usize = 400;

/// The plan a turn left in its to-do list (`steps`: the open items it wrote), when it changed
/// nothing else.
pub(crate) fn plan(prompt: &str, drafts: &[Draft], steps: &[String]) -> Option<Draft> {
    let changed = drafts.iter().any(|d| d.obs_type.changes_code());
    if changed || steps.len() < MIN_STEPS {
        return None;
    }
    let numbered: Vec<String> = steps
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{}. {s}", i + 1))
        .collect();
    let list = crate::text::one_line(&numbered.join("; "));
    // Like an answer, a plan is the memory itself: its row holds the goal, then as many of
    // the steps as fit.
    let goal = request(prompt).unwrap_or_else(|| fit_list(steps, 60));
    let head = format!("Plan ({} steps): {goal}", steps.len());
    let gap = if head.ends_with(['.', '!', '?']) {
        " "
    } else {
        " \u{2014} "
    };
    // Whole steps, as many as fit after the goal, the rest said by the subtitle; when not
    // even the first fits whole, its first words: the steps name what the plan touches (a
    // config file, a tool), which the goal seldom does.
    let fits = |t: &String| crate::text::columns(t) <= TITLE_MAX;
    let room = TITLE_MAX.saturating_sub(crate::text::columns(&format!("{head}{gap}")));
    let step_words = |clipped: &str| {
        clipped
            .split_whitespace()
            .filter(|w| *w != "\u{2026}" && *w != "1.")
            .count()
    };
    let first_words = Some(clip_words(&list, room))
        .filter(|words| room >= MIN_STEP_COLUMNS && step_words(words) >= MIN_STEP_WORDS)
        .map(|words| format!("{head}{gap}{words}"));
    let title = (1..=numbered.len())
        .rev()
        .map(|n| {
            let more = if n < numbered.len() { "; \u{2026}" } else { "" };
            format!("{head}{gap}{}{more}", numbered[..n].join("; "))
        })
        .find(fits)
        .or(first_words)
        .unwrap_or_else(|| head.clone());
    let mut d = Draft::titled(ObsType::Decision, title, LONG_TITLE);
    d.subtitle = clip_words(&list, STEPS_MAX);
    for s in steps {
        d.fact(format!("Planned: {s}"));
    }
    let narrative = format!("Planned {} steps: {list}.{}", steps.len(), asked(prompt));
    Some(d.narrative(narrative))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_that_only_planned_is_a_plan_with_its_goal_and_steps() {
        let steps = vec![
            "Set the cookie on /auth/login".to_string(),
            "Add a CSRF check".to_string(),
        ];
        let d = plan(
            "We're moving the token into an httpOnly cookie (XSS audit). Plan it first.",
            &[Draft::new(ObsType::Discovery, "Read src/auth.ts")],
            &steps,
        )
        .expect("a plan");
        assert_eq!(d.obs_type, ObsType::Decision);
        assert_eq!(
            d.title,
            "Plan (2 steps): We're moving the token into an httpOnly cookie (XSS audit). 1. Set the cookie on \u{2026}",
            "no step fits whole: the first words of the first"
        );
        let goal = "We're moving the SPA's auth token into an httpOnly cookie after the XSS audit.";
        let d = plan(goal, &[], &steps).expect("a plan");
        assert_eq!(
            d.title,
            format!("Plan (2 steps): {goal}"),
            "a word or two of a step says nothing: the subtitle has them"
        );
        // Room for two words of the first step (`1. Provision orders-db-pg16 …`): they stay
        // out.
        let long = vec![
            "Provision orders-db-pg16 from the latest snapshot with logical replication"
                .to_string(),
            "Cut over".to_string(),
        ];
        let goal = "RDS is forcing us off postgres 12 by feb, orders too.";
        let d = plan(goal, &[], &long).expect("a plan");
        assert_eq!(d.title, format!("Plan (2 steps): {goal}"));
        // Three fit: they name what the plan touches.
        let goal = "RDS is forcing us off postgres 12 by feb, orders.";
        let d = plan(goal, &[], &long).expect("a plan");
        assert_eq!(
            d.title,
            format!("Plan (2 steps): {goal} 1. Provision orders-db-pg16 from \u{2026}")
        );
        let d = plan("Move the token to a cookie.", &[], &steps).expect("a plan");
        assert_eq!(
            d.title,
            "Plan (2 steps): Move the token to a cookie. 1. Set the cookie on /auth/login; 2. Add a CSRF check"
        );
        assert_eq!(
            d.subtitle,
            "1. Set the cookie on /auth/login; 2. Add a CSRF check"
        );
        assert!(
            plan(
                "x",
                &[Draft::new(ObsType::Change, "a.rs: 1 \u{2192} 2")],
                &steps
            )
            .is_none()
        );
        assert!(plan("x", &[], &steps[..1]).is_none(), "one step is no plan");
    }
}
