//! Web fetches and web searches: what was looked up and what came back.

use super::super::draft::{Draft, Role, code, first_line};
use super::super::event::Kind;
use super::{Claims, TurnInput, one_per_event};
use crate::model::ObsType;

/// `https://docs.rs/rusqlite/latest/x.html` → `docs.rs/rusqlite/latest/x.html`.
fn short_url(url: &str) -> String {
    let u = url
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_start_matches("www.");
    u.trim_end_matches('/').to_string()
}

pub(crate) fn fetches(input: &TurnInput, claims: &mut Claims) -> Vec<Draft> {
    one_per_event(input, claims, |e| {
        Some(match &e.kind {
            Kind::Fetch {
                url,
                prompt,
                status,
                result,
                error,
            } => {
                // A long address is shown as its host: a title never ends in a cut path.
                let site = Some(short_url(url))
                    .filter(|u| crate::model::utf16_len(u) <= 40)
                    .unwrap_or_else(|| short_url(url).split('/').next().unwrap_or("").into());
                let mut d = match (error, result.as_deref().and_then(|r| first_line(r, 80))) {
                    (Some(err), _) => Draft::new(
                        ObsType::Discovery,
                        format!(
                            "Could not fetch {site}: {}",
                            first_line(err, 60).unwrap_or_default()
                        ),
                    )
                    .concepts(&["gotcha"]),
                    (None, Some(line)) => {
                        Draft::new(ObsType::Discovery, format!("Fetched {site}: {line}"))
                            .concepts(&["how-it-works"])
                    }
                    (None, None) => Draft::new(ObsType::Discovery, format!("Fetched {site}"))
                        .concepts(&["how-it-works"]),
                };
                d = d.subtitle(match prompt {
                    Some(p) => format!("Fetched {url} to answer: {p}"),
                    None => format!("Fetched {url}"),
                });
                d.fact(format!("URL: {url}"));
                if let Some(s) = status {
                    d.fact(format!("HTTP status {s}"));
                }
                if let Some(p) = prompt {
                    d.fact(format!("Question asked of the page: {p}"));
                }
                if let Some(r) = result {
                    d.fact(format!(
                        "Answer: {}",
                        crate::text::clip(&crate::text::one_line(r), 280)
                    ));
                }
                if let Some(err) = error {
                    d.error_fact(err);
                }
                d.role(Role::LookAround)
            }
            Kind::WebSearch {
                query,
                results,
                error,
            } => {
                let q = code(query, 50);
                let mut d = match (error, results) {
                    (Some(err), _) => Draft::new(
                        ObsType::Discovery,
                        format!(
                            "Web search {q} failed: {}",
                            first_line(err, 40).unwrap_or_default()
                        ),
                    ),
                    (None, Some(n)) => {
                        Draft::new(ObsType::Discovery, format!("Web search {q}: {n} results"))
                    }
                    (None, None) => Draft::new(ObsType::Discovery, format!("Web search {q}")),
                }
                .subtitle(format!("Searched the web for {q}"))
                .concepts(&["how-it-works"]);
                d.fact(format!("Web search for {q}"));
                if let Some(n) = results {
                    d.fact(format!("{n} results"));
                }
                d.role(Role::LookAround)
            }
            _ => return None,
        })
    })
}
