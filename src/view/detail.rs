//! Layer 3: every field of an observation or a summary (the TUI detail layer and the
//! `get_observations` tool).

use super::doc::{Block, BlockKind, Doc, Line, Role};
use super::raw::tool_use_id;
use super::raw::{human_bytes, summary_of_input};
use super::time::{Tz, thousands};
use crate::model::since::Since;
use crate::model::{ObsType, Observation, Prompt, Summary, ToolUse, host_name};
use crate::text::{escape_controls, one_line};

fn field(label: &str, value: &str) -> Vec<Line> {
    let mut lines = vec![Line::new().push(label, Role::Label)];
    for l in escape_controls(value).lines() {
        lines.push(Line::text(l));
    }
    lines
}

fn list(label: &str, items: &[String]) -> Option<Vec<Line>> {
    if items.is_empty() {
        return None;
    }
    let mut lines = vec![Line::new().push(label, Role::Label)];
    for i in items {
        lines.push(
            Line::new()
                .push("- ", Role::Muted)
                .push(escape_controls(&one_line(i)), Role::Text),
        );
    }
    Some(lines)
}

/// One line per tool use an observation was built from (what `get_tool_uses` can fetch).
pub(crate) fn tool_use_line(t: &ToolUse, tz: &Tz) -> Line {
    let status = if t.failed { "failed" } else { "ok" };
    Line::new()
        .push(tool_use_id(t.id), Role::Id)
        .push(" ", Role::Text)
        .push(tz.row(t.created_at), Role::Time)
        .push(" ", Role::Text)
        .push(&t.tool_name, Role::Label)
        .push(format!(" {}", one_line(&summary_of_input(t))), Role::Text)
        .push(
            format!(
                " · {status} · {} in / {} out",
                human_bytes(t.input_bytes),
                human_bytes(t.response_bytes)
            ),
            if t.failed { Role::Warning } else { Role::Muted },
        )
}

/// Every field of an observation, then the tool uses it came from.
pub(crate) fn observation(o: &Observation, tool_uses: &[ToolUse], tz: &Tz) -> Doc {
    let t = ObsType::parse(&o.obs_type);
    let mut head = Block::new(BlockKind::Observation(o.id)).line(
        Line::new()
            .push(format!("#{}", o.id), Role::Id)
            .push(" ", Role::Text)
            .push(
                t.map_or('·', ObsType::symbol).to_string(),
                Role::TypeSymbol(t),
            )
            .push(" ", Role::Text)
            .push(
                escape_controls(&one_line(o.title.as_deref().unwrap_or("Untitled"))),
                Role::Heading(2),
            ),
    );
    let mut meta = vec![
        format!("{} · {}", o.obs_type, o.project),
        tz.header(o.created_at),
    ];
    if let Some(p) = o.prompt_number {
        meta.push(format!("prompt {p}"));
    }
    match (o.session_id, o.host.as_deref()) {
        (Some(s), Some(host)) => meta.push(format!("session {s} in {}", host_name(host))),
        (Some(s), None) => meta.push(format!("session {s}")),
        (None, _) => {}
    }
    meta.push(format!("~{}t to read", thousands(o.read_tokens())));
    if o.discovery_tokens > 0 {
        meta.push(format!("{}t of work", thousands(o.discovery_tokens)));
    }
    meta.push(format!("source {}", o.source));
    head.lines
        .push(Line::new().push(meta.join(" · "), Role::Muted));
    let mut body = Block::new(BlockKind::Other);
    let mut section = |lines: Vec<Line>| {
        body.lines.push(Line::blank());
        body.lines.extend(lines);
    };
    if let Some(s) = o.subtitle.as_deref().filter(|s| !s.trim().is_empty()) {
        section(field("Subtitle", s));
    }
    if let Some(n) = o.narrative.as_deref().filter(|s| !s.trim().is_empty()) {
        section(field("Narrative", n));
    }
    for (label, items) in [
        ("Facts", &o.facts),
        ("Files read", &o.files_read),
        ("Files modified", &o.files_modified),
    ] {
        if let Some(lines) = list(label, items) {
            section(lines);
        }
    }
    if !o.concepts.is_empty() {
        section(field("Concepts", &o.concepts.join(", ")));
    }
    let mut doc = Doc::default();
    doc.push(head);
    doc.push(body);
    if !tool_uses.is_empty() {
        doc.push(
            Block::new(BlockKind::Other)
                .line(Line::blank())
                .line(Line::new().push("Built from tool uses", Role::Label)),
        );
        // One block per tool use, so a face can tell which line stands for which call.
        for t in tool_uses {
            doc.push(Block::new(BlockKind::ToolUse(t.id)).line(tool_use_line(t, tz)));
        }
    }
    doc
}

/// Adds, under the heading, who wrote a record `cmem sync` pulled from another device.
pub(crate) fn shared_by(doc: &mut Doc, who: Option<String>) {
    if let (Some(who), Some(head)) = (who, doc.blocks.first_mut()) {
        head.lines.push(Line::new().push(
            format!("shared by {}", escape_controls(&one_line(&who))),
            Role::Muted,
        ));
    }
}

/// Adds, under the heading, what happened since the observation was made: each file of it
/// that changed or is gone, and the decision that replaced it.
pub(crate) fn since(doc: &mut Doc, since: Option<&Since>) {
    if let (Some(since), Some(head)) = (since, doc.blocks.first_mut()) {
        for s in since.sentences() {
            head.lines
                .push(Line::new().push(escape_controls(&one_line(&s)), Role::Warning));
        }
    }
}

/// Every field of a summary.
pub(crate) fn summary(s: &Summary, tz: &Tz) -> Doc {
    let title = s.request.as_deref().map(one_line).filter(|r| !r.is_empty());
    let mut head = Block::new(BlockKind::Summary(s.id)).line(
        Line::new()
            .push(format!("#S{}", s.id), Role::Id)
            .push(" ", Role::Text)
            .push(
                crate::model::SESSION_SYMBOL.to_string(),
                Role::TypeSymbol(None),
            )
            .push(" ", Role::Text)
            .push(
                escape_controls(title.as_deref().unwrap_or("Session summary")),
                Role::Heading(2),
            ),
    );
    let mut meta = vec![format!("summary · {}", s.project), tz.header(s.created_at)];
    if let Some(p) = s.prompt_number {
        meta.push(format!("prompt {p}"));
    }
    if let Some(id) = s.session_id {
        meta.push(format!("session {id}"));
    }
    head.lines
        .push(Line::new().push(meta.join(" · "), Role::Muted));
    let mut body = Block::new(BlockKind::Other);
    for (label, value) in [
        ("Request", &s.request),
        ("Investigated", &s.investigated),
        ("Learned", &s.learned),
        ("Completed", &s.completed),
        ("Next steps", &s.next_steps),
        ("Notes", &s.notes),
    ] {
        if let Some(v) = value.as_deref().filter(|v| !v.trim().is_empty()) {
            body.lines.push(Line::blank());
            body.lines.extend(field(label, v));
        }
    }
    for (label, items) in [
        ("Files read", &s.files_read),
        ("Files edited", &s.files_edited),
    ] {
        if let Some(lines) = list(label, items) {
            body.lines.push(Line::blank());
            body.lines.extend(lines);
        }
    }
    let mut doc = Doc::default();
    doc.push(head);
    doc.push(body);
    doc
}

/// A prompt as the user wrote it (privacy-stripped).
pub(crate) fn prompt(p: &Prompt, tz: &Tz) -> Doc {
    let mut doc = Doc::default();
    doc.push(
        Block::new(BlockKind::Prompt(p.id))
            .line(
                Line::new()
                    .push(format!("#P{}", p.id), Role::Id)
                    .push(" ", Role::Text)
                    .push(super::timeline::PROMPT_SYMBOL.to_string(), Role::Muted)
                    .push(
                        format!(" prompt {} of session {}", p.prompt_number, p.session_id),
                        Role::Heading(2),
                    ),
            )
            .line(Line::new().push(
                format!("{} · {}", p.project, tz.header(p.created_at)),
                Role::Muted,
            ))
            .line(Line::blank()),
    );
    let mut body = Block::new(BlockKind::Other);
    for l in escape_controls(&p.text).lines() {
        body.lines.push(Line::text(l));
    }
    doc.push(body);
    doc
}
