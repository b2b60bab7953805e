//! MCP tool calls: which server and tool, with which arguments, and what came back.

use super::super::draft::{Draft, clip_words, first_line};
use super::super::event::Kind;
use super::{Claims, TurnInput, one_per_event};
use crate::model::ObsType;
use crate::text::{clip, one_line};

/// Tool names that change something on the other side.
const MUTATING: &[&str] = &[
    "create", "update", "delete", "remove", "write", "set", "add", "insert", "edit", "put", "post",
    "send", "push", "merge", "upload", "publish", "close", "apply", "rename", "move",
];

fn mutates(tool: &str) -> bool {
    let t = tool.to_ascii_lowercase();
    MUTATING
        .iter()
        .any(|v| t == *v || t.starts_with(&format!("{v}_")) || t.starts_with(&format!("{v}-")))
}

pub(crate) fn calls(input: &TurnInput, claims: &mut Claims) -> Vec<Draft> {
    one_per_event(input, claims, |e| {
        let Kind::Mcp {
            server,
            tool,
            args,
            result,
            error,
        } = &e.kind
        else {
            return None;
        };
        let call = format!("{server}.{tool}({})", clip_words(args, 30));
        let obs_type = if mutates(tool) && error.is_none() {
            ObsType::Change
        } else {
            ObsType::Discovery
        };
        let title = match (error, result.as_deref().and_then(|r| first_line(r, 60))) {
            (Some(err), _) => format!("{call} failed: {}", first_line(err, 50).unwrap_or_default()),
            (None, Some(line)) => format!("{call} \u{2192} {line}"),
            (None, None) => format!("{call} returned nothing"),
        };
        let mut d = Draft::new(obs_type, title)
            .subtitle(format!("Called {tool} on the {server} MCP server"))
            .concepts(if obs_type == ObsType::Change {
                &["what-changed"]
            } else {
                &["how-it-works"]
            });
        d.fact(format!("MCP server {server}, tool {tool}"));
        if !args.is_empty() {
            d.fact(format!("Arguments: {}", clip(args, 280)));
        }
        if let Some(r) = result {
            d.fact(format!("Result: {}", clip(&one_line(r), 280)));
        }
        if let Some(err) = error {
            d.error_fact(err);
        }
        Some(d)
    })
}
