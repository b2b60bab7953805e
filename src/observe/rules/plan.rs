//! A turn that planned work instead of doing it ("plan it out first, don't start coding"):
//! the steps it wrote to its to-do list are what a later session needs, with the goal from the
//! request. Turns that also changed files are told by their changes.

use super::super::draft::{Draft, LONG_TITLE, SENTENCE_ENDS, TITLE_MAX, clip_words, fit_list};
use super::super::words::{request, word_count};
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
    let gap = if head.ends_with(SENTENCE_ENDS) {
        " "
    } else {
        " \u{2014} "
    };
    // Whole steps, as many as fit after the goal, the rest said by the subtitle; when not
    // even the first fits whole, its first words: the steps name what the plan touches (a
    // config file, a tool), which the goal seldom does.
    let fits = |t: &String| crate::text::columns(t) <= TITLE_MAX;
    let room = TITLE_MAX.saturating_sub(crate::text::columns(&format!("{head}{gap}")));
    // Words as `word_count` counts them (two Chinese characters a word), without the step's
    // number and the ellipsis.
    let step_words = |clipped: &str| {
        let step = clipped.strip_prefix("1. ").unwrap_or(clipped);
        word_count(step.trim_end_matches('\u{2026}').trim_end())
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
        // Chinese steps have no spaces: their words are counted as `word_count` does.
        let zh = vec![
            "把连接池调大到二十并确保每个错误分支都会归还连接，再补上对应的回归测试".to_string(),
            "压测下单接口".to_string(),
        ];
        let goal = "高峰期下单接口经常 502，日志里是连接池耗尽。";
        let d = plan(goal, &[], &zh).expect("a plan");
        assert!(
            d.title
                .starts_with(&format!("Plan (2 steps): {goal} 1. 把连接池调大"))
                && d.title.ends_with('\u{2026}')
                && crate::text::columns(&d.title) <= TITLE_MAX,
            "{}",
            d.title
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
