//! Layer 0: the work-state section at the top of every session start, and the list lines the
//! work-state tools reply with.

use super::doc::{Block, BlockKind, Doc, Line, Role};
use super::time::describe_duration;
use crate::model::utf16_len;
use crate::model::work_state::{self, List};
use crate::text::one_line;

/// The section never takes more than this many UTF-16 units of the context budget.
pub(crate) const SECTION_LIMIT: usize = 3_000;

/// What the agent is told about its to-do lists, in cmem's words.
const RULE: [&str; 6] = [
    "# Work state: your to-do lists and working state",
    "Keep your to-do lists, and anything else you need to keep track of across sessions, with cmem's work_state_write tool: it replaces any built-in to-do tool. Whatever is still open is shown here at the start of every session in this project.",
    "- One list per piece of work or tracked thing: work_state_write with list=\"<name>\" and the fields to set",
    "- A to-do item: fields {\"task\": \"<name>\", \"status\": \"todo\" | \"doing\" | \"done\" | \"dropped\", ...any details}",
    "- List state: fields {\"<key>\": <value>} (the latest value of a key wins, null clears it, \"status\": \"done\" closes the list)",
    "- Everything, closed items included: work_state_read with includeClosed=true",
];

fn fields_text(fields: &[(String, String)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", one_line(k), one_line(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One folded line as a document line (`now` turns times into "updated N minutes ago").
pub(crate) fn line(l: &work_state::Line, now_ms: i64) -> Line {
    match l {
        work_state::Line::Header {
            label,
            fields,
            updated_at,
        } => {
            let mut out = Line::new()
                .push("- ", Role::Muted)
                .push(one_line(label), Role::Label);
            if !fields.is_empty() {
                out = out.push(format!(": {}", fields_text(fields)), Role::Text);
                if let Some(at) = updated_at {
                    out = out.push(
                        format!(", updated {} ago", describe_duration(now_ms - at)),
                        Role::Muted,
                    );
                }
            }
            out
        }
        work_state::Line::Task {
            status,
            task,
            fields,
            updated_at,
            closed,
        } => {
            let mut out = Line::new().push("  - ", Role::Muted);
            if let Some(s) = status {
                out = out.push(
                    format!("[{}] ", one_line(s)),
                    if *closed { Role::Muted } else { Role::Label },
                );
            }
            out = out.push(
                one_line(task),
                if *closed { Role::Muted } else { Role::Text },
            );
            if !fields.is_empty() {
                out = out.push(format!(" ({})", fields_text(fields)), Role::Text);
            }
            out.push(
                format!(", updated {} ago", describe_duration(now_ms - updated_at)),
                Role::Muted,
            )
        }
    }
}

/// Every visible line of the given lists, in list order.
pub(crate) fn list_lines(lists: &[List], include_closed: bool, now_ms: i64) -> Vec<Line> {
    lists
        .iter()
        .flat_map(|l| work_state::lines(l, include_closed))
        .map(|l| line(&l, now_ms))
        .collect()
}

/// A list's history, one line per entry as written (oldest first): when, and the fields it
/// set (`null` shows that a key was cleared). For the TUI's work-state layer.
pub(crate) fn history(entries: &[&work_state::Entry], tz: &super::time::Tz) -> Vec<Line> {
    entries
        .iter()
        .map(|e| {
            let fields: Vec<String> = e
                .fields
                .iter()
                .map(|(k, v)| {
                    let v = work_state::value_text(v).unwrap_or_else(|| v.to_string());
                    format!("{}={}", one_line(k), one_line(&v))
                })
                .collect();
            Line::new()
                .push(tz.month_day_time(e.created_at), Role::Time)
                .push("  ", Role::Text)
                .push(fields.join(", "), Role::Text)
        })
        .collect()
}

fn overflow_line(more: usize) -> Line {
    Line::text(format!(
        "- …{more} more line{}; read them with work_state_read",
        if more == 1 { "" } else { "s" }
    ))
}

/// Adds lines to `lines_so_far` while the text stays within `limit`, keeping room for the
/// overflow line whenever more lines would follow. Returns how many lines were left out.
pub(crate) fn fit_lines(head_len: usize, lines: &[Line], limit: usize) -> (Vec<Line>, usize) {
    let mut kept = Vec::new();
    let mut len = head_len;
    for (i, l) in lines.iter().enumerate() {
        let candidate = len + 1 + utf16_len(&l.plain());
        let more = lines.len() - i - 1;
        let reserve = if more > 0 {
            1 + utf16_len(&overflow_line(more).plain())
        } else {
            0
        };
        if candidate + reserve > limit {
            let left = lines.len() - i;
            kept.push(overflow_line(left));
            return (kept, left);
        }
        len = candidate;
        kept.push(l.clone());
    }
    (kept, 0)
}

/// The work-state section: the rule, then "Nothing open yet." or "Still open:" and the open
/// lines, capped at `SECTION_LIMIT`. Returns the section and how many lines were cut.
pub(crate) fn section(lists: &[List], now_ms: i64) -> (Doc, usize) {
    let mut block = Block::new(BlockKind::WorkState);
    block
        .lines
        .push(Line::new().push(&RULE[0][2..], Role::Heading(1)));
    for r in &RULE[1..] {
        block.lines.push(Line::text(*r));
    }
    block.lines.push(Line::blank());
    let lines = list_lines(lists, false, now_ms);
    let mut cut = 0;
    if lines.is_empty() {
        block.lines.push(Line::text("Nothing open yet."));
    } else {
        block
            .lines
            .push(Line::new().push("Still open:", Role::Label));
        let head_len = utf16_len(
            &Doc {
                blocks: vec![block.clone()],
            }
            .to_plain(),
        );
        let (kept, left) = fit_lines(head_len, &lines, SECTION_LIMIT);
        cut = left;
        block.lines.extend(kept);
    }
    let mut doc = Doc::default();
    doc.push(block);
    (doc, cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::work_state::{Entry, fold};
    use serde_json::json;

    fn entries(n: usize) -> Vec<Entry> {
        (0..n)
            .map(|i| Entry {
                id: i as i64,
                project: "p".into(),
                list_name: "big".into(),
                fields: json!({"task": format!("task number {i} with a fairly long description"), "status": "todo"})
                    .as_object()
                    .unwrap()
                    .clone(),
                created_at: 1_000 * i as i64,
                seq: None,
            })
            .collect()
    }

    #[test]
    fn nothing_open() {
        let (doc, cut) = section(&[], 0);
        let text = doc.to_plain();
        assert!(text.starts_with("# Work state: your to-do lists and working state\n"));
        assert!(text.ends_with("\n\nNothing open yet."));
        assert_eq!(cut, 0);
    }

    #[test]
    fn open_items_with_ages() {
        let lists = fold(&entries(2));
        let (doc, _) = section(&lists, 3 * 60_000);
        let text = doc.to_plain();
        assert!(text.contains("\n\nStill open:\n- big\n  - [todo] task number 0 with a fairly long description, updated 3 minutes ago\n"), "{text}");
    }

    #[test]
    fn long_lists_are_capped_with_an_overflow_line() {
        let lists = fold(&entries(200));
        let (doc, cut) = section(&lists, 0);
        let text = doc.to_plain();
        assert!(utf16_len(&text) <= SECTION_LIMIT, "{}", utf16_len(&text));
        assert!(cut > 100);
        assert!(
            text.ends_with(&format!(
                "- …{cut} more lines; read them with work_state_read"
            )),
            "{}",
            &text[text.len() - 80..]
        );
    }
}
