//! What an external observer receives on stdin for one turn: the instructions, the request,
//! then every tool event in the reference's `<observed_from_primary_session>` shape, each field
//! cut to 16,000 characters around an `<elided/>` marker (as claude-mem cuts them).

use serde_json::Value;

use crate::clock::format_utc_iso;
use crate::model::mode::Mode;
use crate::store::turns::{ToolRow, TurnRow};

/// Longer fields are cut: 60 % head, 30 % tail.
pub(crate) const FIELD_LIMIT: usize = 16_000;

/// Cuts text longer than `FIELD_LIMIT` characters to its head and tail around a marker.
pub(crate) fn elide(text: &str) -> String {
    let n = text.chars().count();
    if n <= FIELD_LIMIT {
        return text.to_string();
    }
    let head = FIELD_LIMIT * 6 / 10;
    let tail = FIELD_LIMIT * 3 / 10;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(n - tail).collect();
    format!(
        "{start}<elided chars=\"{}\" original_size_chars=\"{n}\" reason=\"oversize\" />{end}",
        n - head - tail
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn pretty(raw: Option<&str>) -> String {
    match raw.and_then(|r| serde_json::from_str::<Value>(r).ok()) {
        Some(v) => serde_json::to_string_pretty(&v).unwrap_or_default(),
        None => raw.unwrap_or("").to_string(),
    }
}

fn instructions(mode: &Mode) -> String {
    // The types, concepts and focus come from the mode (`[context] mode`).
    let focus = mode.recording_focus.clone().unwrap_or_else(|| {
        "Write down what is worth remembering in later sessions (what was built, fixed, changed, \
learned or decided), not what you are doing now."
            .into()
    });
    let skip = mode
        .skip_guidance
        .as_deref()
        .map(|s| format!(" {s}"))
        .unwrap_or_default();
    format!(
        "You are the memory observer of a coding agent. Below is one turn of its session: the \
user's request and every tool call the agent made, with results. {focus}{skip} Answer only with \
XML in this form:

<observation>
  <type>one of: {types}</type>
  <title>short; names the file, symbol, command or outcome</title>
  <subtitle>one sentence, at most 24 words</subtitle>
  <facts><fact>a self-contained fact with specifics, no pronouns</fact></facts>
  <narrative>what happened and why it matters</narrative>
  <concepts><concept>2 to 5 of: {concepts}</concept></concepts>
  <files_read><file>path relative to the project root</file></files_read>
  <files_modified><file>path relative to the project root</file></files_modified>
</observation>

Write one <observation> per distinct finding, or none when nothing is worth keeping. Then \
summarize the turn:

<summary><request/><investigated/><learned/><completed/><next_steps/><notes/></summary>

or <skip_summary reason=\"why\"/> when the turn did nothing.
",
        types = mode.type_ids().join(", "),
        concepts = mode.concept_ids().join(", ")
    )
}

/// The whole stdin text for one turn.
pub(crate) fn turn_text(mode: &Mode, turn: &TurnRow, tools: &[ToolRow]) -> String {
    let mut out = instructions(mode);
    out.push('\n');
    out.push_str(&format!(
        "<user_request>{}</user_request>\n<requested_at>{}</requested_at>\n",
        escape(&elide(&turn.prompt_text)),
        &format_utc_iso(turn.created_at)[..10]
    ));
    for t in tools {
        let outcome = if t.failed {
            format!("failed: {}", t.error.as_deref().unwrap_or(""))
        } else {
            pretty(t.response.as_deref())
        };
        out.push_str(&format!(
            "<observed_from_primary_session>\n  <what_happened>{}</what_happened>\n  <occurred_at>{}</occurred_at>\n  <working_directory>{}</working_directory>\n  <parameters>{}</parameters>\n  <outcome>{}</outcome>\n</observed_from_primary_session>\n",
            escape(&t.tool_name),
            format_utc_iso(t.created_at),
            escape(t.cwd.as_deref().or(turn.cwd.as_deref()).unwrap_or("")),
            escape(&elide(&pretty(t.input.as_deref()))),
            escape(&elide(&outcome)),
        ));
    }
    if let Some(m) = &turn.last_assistant_message {
        out.push_str(&format!(
            "<last_assistant_message>{}</last_assistant_message>\n",
            escape(&elide(m))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_fields_keep_head_and_tail() {
        let text: String = (0..20_000)
            .map(|i| if i % 2 == 0 { 'a' } else { 'b' })
            .collect();
        let cut = elide(&text);
        assert!(cut.contains(
            "<elided chars=\"5600\" original_size_chars=\"20000\" reason=\"oversize\" />"
        ));
        assert!(cut.starts_with(&text[..9_600]));
        assert!(cut.ends_with(&text[20_000 - 4_800..]));
        assert_eq!(elide("short"), "short");
    }
}
