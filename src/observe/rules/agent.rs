//! Subagents and plans: what a subagent was sent to do and what it reported; a plan the agent
//! settled on is a decision. Tools nothing else knows are remembered by name and argument.

use super::super::draft::{Draft, clip_words, first_line};
use super::super::event::Kind;
use super::{Claims, TurnInput, one_per_event};
use crate::model::ObsType;
use crate::text::{clip, one_line};

pub(crate) fn calls(input: &TurnInput, claims: &mut Claims) -> Vec<Draft> {
    one_per_event(input, claims, |e| {
        Some(match &e.kind {
            Kind::Agent {
                agent_type,
                description,
                result,
                error,
            } => {
                let who = agent_type.as_deref().unwrap_or("subagent");
                let task = clip_words(&one_line(description), 40);
                let title = match (error, result.as_deref().and_then(|r| first_line(r, 50))) {
                    (Some(err), _) => format!(
                        "Subagent ({who}) failed on {task}: {}",
                        first_line(err, 40).unwrap_or_default()
                    ),
                    (None, Some(line)) => format!("Subagent ({who}) on {task}: {line}"),
                    (None, None) => format!("Sent a {who} subagent to {task}"),
                };
                let mut d = Draft::new(ObsType::Discovery, title)
                    .subtitle(format!("Delegated to a {who} subagent: {task}"))
                    .concepts(&["how-it-works"]);
                d.fact(format!("Subagent type: {who}"));
                d.fact(format!("Task: {}", clip(&one_line(description), 280)));
                if let Some(r) = result {
                    d.fact(format!("Report: {}", clip(&one_line(r), 280)));
                }
                if let Some(err) = error {
                    d.error_fact(err);
                }
                d
            }
            Kind::Plan { text } => {
                let head = first_line(text, 70).unwrap_or_else(|| "a plan".into());
                let mut d = Draft::new(ObsType::Decision, format!("Plan: {head}"))
                    .subtitle(format!("Settled on a plan: {head}"))
                    .concepts(&["why-it-exists", "trade-off"]);
                for step in text
                    .lines()
                    .map(str::trim)
                    .filter(|l| {
                        l.starts_with(['-', '*'])
                            || l.chars().next().is_some_and(|c| c.is_ascii_digit())
                    })
                    .take(8)
                {
                    d.fact(step.trim_start_matches(['-', '*', ' ']));
                }
                d
            }
            Kind::Other { tool, arg, error } => {
                let what = arg
                    .as_deref()
                    .map(|a| format!(" {}", clip_words(&one_line(a), 50)))
                    .unwrap_or_default();
                let title = match error {
                    Some(err) => format!(
                        "{tool}{what} failed: {}",
                        first_line(err, 40).unwrap_or_default()
                    ),
                    None => format!("{tool}{what}"),
                };
                let mut d = Draft::new(ObsType::Discovery, title)
                    .subtitle(format!("Used {tool}{what}"))
                    .concepts(&["how-it-works"]);
                d.fact(format!("Tool {tool}{what}"));
                if let Some(err) = error {
                    d.error_fact(err);
                }
                d
            }
            _ => return None,
        })
    })
}
