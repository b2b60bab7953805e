//! Secrets that reached a tool's input or output: cmem stored them redacted, and the turn gets
//! a security note saying where one was seen (so the agent knows a credential is lying around).

use std::sync::LazyLock;

use super::super::ascii::AsciiRegex;
use super::super::draft::{Draft, fit_list};
use super::super::outcome;
use super::TurnInput;
use crate::model::ObsType;

static REDACTED: LazyLock<AsciiRegex> =
    LazyLock::new(|| AsciiRegex::new(r"\[REDACTED:([a-z0-9-]+)\]"));

pub(crate) fn notes(input: &TurnInput) -> Vec<Draft> {
    let mut kinds: Vec<String> = Vec::new();
    let mut places: Vec<String> = Vec::new();
    for (tool, e) in input.tools.iter().zip(input.events) {
        let texts = [&tool.input, &tool.response, &tool.error];
        let mut found = false;
        for t in texts.into_iter().flatten() {
            for c in REDACTED.captures_iter(t) {
                found = true;
                let k = c.get(1).copied().flatten().unwrap_or("secret").to_string();
                if !kinds.contains(&k) {
                    kinds.push(k);
                }
            }
        }
        if !found {
            continue;
        }
        let place = match &e.kind {
            super::super::event::Kind::Shell(s) => {
                format!("`{}`", outcome::show_command(&s.command, 40))
            }
            super::super::event::Kind::Read { path, .. } => path.clone(),
            super::super::event::Kind::Edit(edit) => edit.path.clone(),
            _ => tool.tool_name.clone(),
        };
        if !places.contains(&place) {
            places.push(place);
        }
    }
    if kinds.is_empty() {
        return Vec::new();
    }
    let what = fit_list(&kinds, 30);
    let title = format!("Secret ({what}) seen in {}", fit_list(&places, 40));
    let mut d = Draft::new(ObsType::SecurityNote, title)
        .subtitle(format!(
            "A {what} appeared in tool I/O; cmem stored it redacted"
        ))
        .concepts(&["gotcha"]);
    for p in &places {
        d.fact(format!("A secret ({what}) appeared in the I/O of {p}"));
    }
    d.fact("cmem replaced it with a [REDACTED:…] marker before storing anything");
    let narrative = format!(
        "The turn's tool I/O contained a {what} ({}). It was redacted before storage; the secret itself may still be in the files or output it came from.",
        fit_list(&places, 200)
    );
    vec![d.narrative(narrative)]
}
