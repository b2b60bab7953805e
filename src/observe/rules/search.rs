//! Searches (Grep, Glob): one discovery per turn with each pattern and what it found.

use super::super::draft::{Draft, Role, code_raw, fit_list, fitting_title};
use super::super::event::Kind;
use super::{Claims, TurnInput, asked};
use crate::model::ObsType;
use crate::text::plural;

pub(crate) fn searches(input: &TurnInput, claims: &mut Claims) -> Vec<Draft> {
    let mut parts: Vec<String> = Vec::new();
    let mut facts: Vec<String> = Vec::new();
    let mut tools = Vec::new();
    let mut found: Vec<String> = Vec::new();
    for e in input.events {
        let Kind::Search(s) = &e.kind else { continue };
        if !claims.is_free(e.idx) {
            continue;
        }
        tools.push(e.idx);
        let pattern = code_raw(&s.pattern);
        let scope = s
            .scope
            .as_ref()
            .map(|p| format!(" in {p}"))
            .unwrap_or_default();
        let hits = match (e.failed, s.hits) {
            (true, _) => "failed".to_string(),
            (false, Some(n)) => plural(n as usize, s.hit_unit, &format!("{}s", s.hit_unit)),
            (false, None) => "no result".to_string(),
        };
        parts.push(format!("{pattern} ({hits})"));
        let mut fact = format!("{} {pattern}{scope}: {hits}", s.tool);
        if !s.files.is_empty() {
            fact.push_str(&format!(" ({})", fit_list(&s.files, 200)));
        }
        facts.push(fact);
        for f in &s.files {
            if !found.contains(f) {
                found.push(f.clone());
            }
        }
    }
    if tools.is_empty() {
        return Vec::new();
    }
    // A pattern is quoted whole or not at all: the fullest form that fits.
    let title = if parts.len() == 1 {
        let files = if found.is_empty() {
            String::new()
        } else {
            format!(": {}", fit_list(&found, 30))
        };
        fitting_title([
            format!("Searched {}{files}", parts[0]),
            format!("Searched {}", parts[0]),
            format!("Searched the project{files}"),
        ])
    } else {
        fitting_title([
            format!("Searched {}", fit_list(&parts, 70)),
            format!("Searched {}", plural(parts.len(), "pattern", "patterns")),
        ])
    };
    let mut d = Draft::new(ObsType::Discovery, title)
        .role(Role::LookAround)
        .subtitle(format!(
            "Searched the project for {}",
            plural(parts.len(), "pattern", "patterns")
        ))
        .concepts(&["how-it-works"]);
    for f in &facts {
        d.fact(f);
    }
    for i in tools {
        d.tool(i);
        claims.take(i);
    }
    let narrative = format!("{}.{}", facts.join("; "), asked(input.prompt));
    vec![d.narrative(narrative)]
}
