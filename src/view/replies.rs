//! The memory tools' replies as the agent gets them: `search`'s table, `timeline`'s records
//! around an anchor, `get_observations`' records, `get_tool_uses`' raw I/O and
//! `work_state_read`'s lists, with their defaults, cuts and closing notes, and the cap over every reply. The MCP tools parse their
//! arguments and call these; the TUI's agent view calls the same ones, so what a human reads
//! there is the agent's text byte for byte.

use anyhow::Result;
use rusqlite::Connection;

use super::time::Tz;
use super::{Block, BlockKind, Doc, MAX_REPLY_BYTES, detail, raw};
use super::{search as search_view, timeline as timeline_view, work_state as ws_view};
use crate::model::{IndexRow, Kind, work_state};
use crate::search;
use crate::search::Query;
use crate::store::work_state as ws_store;
use crate::store::{observations, prompts, summaries, sync_origin, timeline, tool_uses};

/// Any memory tool's reply when there is no database yet.
pub(crate) const NO_MEMORY: &str = "No memory has been recorded yet: cmem starts remembering with the hooks of your next sessions.";

/// `timeline`'s records before and after the anchor when the agent names no depth.
pub(crate) const TIMELINE_DEPTH: usize = 3;

/// `search`'s rows when the agent names no limit.
pub(crate) const SEARCH_LIMIT: usize = 20;

/// `get_observations` and `get_tool_uses` send at most this many records per call.
pub(crate) const MAX_RECORDS: usize = 5;

/// One record of `get_observations` is cut at this many bytes (a note says so).
pub(crate) const MAX_DETAIL_BYTES: usize = 6_000;

/// Cuts an over-long reply (more than `MAX_REPLY_BYTES`) at a line boundary and says so. The
/// MCP server passes every tool's reply through it.
pub(crate) fn cap(text: String) -> String {
    if text.len() <= MAX_REPLY_BYTES {
        return text;
    }
    let note = format!(
        "\n\n[Reply shortened to fit {} KB; ask for fewer records (a smaller limit or fewer ids).]",
        MAX_REPLY_BYTES / 1024
    );
    let (head, _) = crate::text::cut_bytes(&text, MAX_REPLY_BYTES - note.len());
    let head = head.rfind('\n').map_or(head, |i| &head[..i]);
    format!("{head}{note}")
}

/// The query `search(query=…)` runs when the agent gives nothing else but its projects.
pub(crate) fn search_query(text: &str, projects: &[String]) -> Query {
    Query {
        text: Some(text.to_string()),
        projects: projects.to_vec(),
        limit: SEARCH_LIMIT,
        ..Default::default()
    }
}

/// `search`: the index table of what `q` finds, with the next step to take.
pub(crate) fn search(conn: &Connection, q: &Query, tz: &Tz) -> Result<String> {
    let hits = search::search(conn, q)?;
    let mut rows: Vec<_> = hits.into_iter().map(|h| h.row).collect();
    super::since::fill_rows(conn, &mut rows)?;
    let mut text = search_view::table(&search_heading(q, rows.len()), &rows, tz).to_plain();
    if rows.is_empty() {
        text.push_str("\n\nNothing found. Try fewer or other words, or mem_search.");
    } else {
        text.push_str("\n\nDetails: get_observations(ids=[…]) · context: timeline(anchor=…)");
    }
    Ok(text)
}

/// `cmem search`'s text: the `search` tool's table under a heading that says how it searched
/// (`semantic`: words and meaning), then where to read on; or why nothing was found.
pub(crate) fn search_for_a_person(q: &Query, rows: &[IndexRow], semantic: bool, tz: &Tz) -> String {
    let mode = if semantic {
        "words and meaning"
    } else {
        "words only"
    };
    let Some(first) = rows.first() else {
        let wider = if q.projects.is_empty() {
            ""
        } else {
            ", or --all-projects"
        };
        return format!(
            "Nothing in {} matches \"{}\" ({mode}). Try fewer or other words{wider}.",
            scope(q),
            echoed(q.text.as_deref().unwrap_or_default())
        );
    };
    let heading = format!("{} ({mode})", search_heading(q, rows.len()));
    format!(
        "{}\n\nRead one: cmem show {} · browse: cmem tui (its `s` searches the same way)",
        search_view::table(&heading, rows, tz).to_plain(),
        first.kind.display_id(first.id)
    )
}

/// Search rows as a script reads them (`cmem search --json`): display id, kind, project, type,
/// title, time.
pub(crate) fn rows_json(rows: &[IndexRow]) -> serde_json::Value {
    rows.iter()
        .map(|r| {
            serde_json::json!({
                "id": r.kind.display_id(r.id),
                "kind": r.kind.label(),
                "project": r.project,
                "type": r.obs_type,
                "title": r.title,
                "created_at": jiff::Timestamp::from_millisecond(r.created_at)
                    .map(|t| t.to_string())
                    .ok(),
                "created_at_epoch_ms": r.created_at,
                "session_id": r.session_id,
                "since": r.since,
            })
        })
        .collect()
}

/// The projects a search looks in, as its heading names them (none: the TUI's and `cmem
/// search --all-projects`' scope; an MCP call always names some).
pub(crate) fn scope(q: &Query) -> String {
    if q.projects.is_empty() {
        "all projects".to_string()
    } else {
        q.projects.join(", ")
    }
}

/// A query as a reply repeats it: its opening, so a pasted page does not come back whole
/// into the agent's context or fill a terminal.
pub(crate) fn echoed(query: &str) -> String {
    crate::text::clip_columns(query, 120)
}

/// The timeline's answer when no record matches the query it was to be anchored on.
pub(crate) fn no_anchor(query: &str) -> String {
    format!("Nothing in memory matches \"{}\".", echoed(query))
}

/// `N result(s) for "text" in scope`, or `N record(s) in scope` without text.
pub(crate) fn search_heading(q: &Query, found: usize) -> String {
    let scope = scope(q);
    match &q.text {
        Some(t) => format!("{found} result(s) for \"{}\" in {scope}", echoed(t)),
        None => format!("{found} record(s) in {scope}"),
    }
}

/// `timeline`: the records around `anchor` in its project; `None` when there is no such record.
pub(crate) fn timeline(
    conn: &Connection,
    anchor: (Kind, i64),
    before: usize,
    after: usize,
    tz: &Tz,
) -> Result<Option<String>> {
    let Some(mut rows) = timeline::around(conn, anchor.0, anchor.1, before, after)? else {
        return Ok(None);
    };
    super::since::fill_rows(conn, &mut rows)?;
    let project = rows
        .iter()
        .find(|r| (r.kind, r.id) == anchor)
        .map(|r| r.project.clone())
        .unwrap_or_default();
    let heading = format!(
        "Timeline around {} in {project}: {before} before, {after} after",
        anchor.0.display_id(anchor.1)
    );
    let mut text = timeline_view::render(&heading, &rows, Some(anchor), tz).to_plain();
    text.push_str("\n\nDetails: get_observations(ids=[…])");
    Ok(Some(text))
}

/// The order `get_observations` sends its records in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecordOrder {
    AsGiven,
    DateDesc,
    DateAsc,
}

impl RecordOrder {
    /// `as_given` (or nothing), `date_desc` or `date_asc`.
    pub(crate) fn parse(s: Option<&str>) -> Result<RecordOrder, String> {
        match s {
            None | Some("as_given") => Ok(RecordOrder::AsGiven),
            Some("date_desc") => Ok(RecordOrder::DateDesc),
            Some("date_asc") => Ok(RecordOrder::DateAsc),
            Some(other) => Err(format!(
                "orderBy must be as_given, date_desc or date_asc, not {other:?}."
            )),
        }
    }
}

/// A record found for `get_observations`: (kind, id, time, project, document).
type Found = (Kind, i64, i64, String, Doc);

/// `get_observations`: every field of each record (at most `limit`, each cut at
/// `MAX_DETAIL_BYTES`), then which IDs were left out or not found. `only_project` keeps the
/// records of that project (case-insensitive).
pub(crate) fn records(
    conn: &Connection,
    ids: &[(Kind, i64)],
    limit: usize,
    only_project: Option<&str>,
    order: RecordOrder,
    tz: &Tz,
) -> Result<String> {
    Ok(records_and_missing(conn, ids, limit, only_project, order, tz)?.0)
}

/// `records`, and the IDs it did not find (as displayed), for callers that act on them.
pub(crate) fn records_and_missing(
    conn: &Connection,
    ids: &[(Kind, i64)],
    limit: usize,
    only_project: Option<&str>,
    order: RecordOrder,
    tz: &Tz,
) -> Result<(String, Vec<String>)> {
    let only_project = only_project.map(str::to_lowercase);
    let of = |k: Kind| {
        ids.iter()
            .filter(|(kind, _)| *kind == k)
            .map(|(_, i)| *i)
            .collect::<Vec<_>>()
    };
    let obs = observations::by_ids(conn, &of(Kind::Observation))?;
    let marks = super::since::look(conn, &obs)?;
    let sums = summaries::by_ids(conn, &of(Kind::Summary))?;
    let proms = prompts::by_ids(conn, &of(Kind::Prompt))?;
    let mut found: Vec<Found> = Vec::new();
    let mut missing = Vec::new();
    for (kind, id) in ids {
        let doc = match kind {
            Kind::Observation => match obs.iter().find(|o| o.id == *id) {
                Some(o) => {
                    let mut d = detail::observation(o, &tool_uses::by_observation(conn, o.id)?, tz);
                    detail::since(&mut d, marks.of(o.id));
                    Some((o.created_at, o.project.clone(), d))
                }
                None => None,
            },
            Kind::Summary => sums
                .iter()
                .find(|s| s.id == *id)
                .map(|s| (s.created_at, s.project.clone(), detail::summary(s, tz))),
            Kind::Prompt => proms
                .iter()
                .find(|p| p.id == *id)
                .map(|p| (p.created_at, p.project.clone(), detail::prompt(p, tz))),
        };
        let doc = match doc {
            Some((at, project, mut d)) => {
                let table = crate::store::records_table(*kind);
                detail::shared_by(&mut d, sync_origin::written_by(conn, table, *id)?);
                Some((at, project, d))
            }
            None => None,
        };
        match doc {
            Some((at, project, doc))
                if only_project
                    .as_deref()
                    .is_none_or(|p| p == project.to_lowercase()) =>
            {
                found.push((*kind, *id, at, project, doc));
            }
            _ => missing.push(kind.display_id(*id)),
        }
    }
    match order {
        RecordOrder::DateDesc => found.sort_by_key(|f| std::cmp::Reverse(f.2)),
        RecordOrder::DateAsc => found.sort_by_key(|f| f.2),
        RecordOrder::AsGiven => {}
    }
    let extra: Vec<String> = found
        .iter()
        .skip(limit)
        .map(|f| f.0.display_id(f.1))
        .collect();
    let parts: Vec<String> = found
        .iter()
        .take(limit)
        .map(|(_, _, _, _, doc)| record_text(doc))
        .collect();
    let mut text = if parts.is_empty() {
        "No records found.".to_string()
    } else {
        parts.join("\n\n---\n\n")
    };
    if !extra.is_empty() {
        text.push_str(&format!(
            "\n\nNot shown (at most {limit} per call): {}",
            extra.join(", ")
        ));
    }
    if !missing.is_empty() {
        text.push_str(&format!(
            "\n\nNot found{}: {}",
            if only_project.is_some() {
                " in that project"
            } else {
                ""
            },
            missing.join(", ")
        ));
    }
    Ok((text, missing))
}

/// One record's text, cut at `MAX_DETAIL_BYTES` with a note when it is longer.
fn record_text(doc: &Doc) -> String {
    let text = doc.to_plain();
    let (kept, cut) = crate::text::cut_bytes(&text, MAX_DETAIL_BYTES);
    if cut {
        format!("{kept}\n[Record shortened to {MAX_DETAIL_BYTES} bytes.]")
    } else {
        kept.to_string()
    }
}

/// `get_tool_uses`: the bounded raw I/O (`Bounds::AGENT`) of the tool uses named by row ID,
/// by host ID or by the observation they were turned into, at most `limit`, each once.
pub(crate) fn tool_uses(
    conn: &Connection,
    row_ids: &[i64],
    host_ids: &[String],
    observation_ids: &[i64],
    limit: usize,
    only_project: Option<&str>,
    tz: &Tz,
) -> Result<String> {
    let only_project = only_project.map(str::to_lowercase);
    let mut uses = tool_uses::by_ids(conn, row_ids)?;
    uses.extend(tool_uses::by_tool_use_ids(conn, host_ids)?);
    for o in observation_ids {
        uses.extend(tool_uses::by_observation(conn, *o)?);
    }
    uses.retain(|t| {
        only_project
            .as_deref()
            .is_none_or(|p| t.project.to_lowercase() == p)
    });
    let mut seen = Vec::new();
    uses.retain(|t| {
        let fresh = !seen.contains(&t.id);
        seen.push(t.id);
        fresh
    });
    if uses.is_empty() {
        return Ok("No tool uses found for those IDs.".to_string());
    }
    let more: Vec<String> = uses
        .iter()
        .skip(limit)
        .map(|t| raw::tool_use_id(t.id))
        .collect();
    let mut parts: Vec<String> = uses
        .iter()
        .take(limit)
        .map(|t| raw::tool_use(t, tz, raw::Bounds::AGENT).to_plain())
        .collect();
    if !more.is_empty() {
        parts.push(format!(
            "Not shown (at most {limit} per call): {}",
            more.join(", ")
        ));
    }
    Ok(parts.join("\n\n---\n\n"))
}

/// `work_state_read`: the lists of `keys` (only `list` when given), open items only unless
/// `include_closed`; `conn` is `None` while nothing has been recorded.
pub(crate) fn work_state(
    conn: Option<&Connection>,
    keys: &[String],
    list: Option<&str>,
    include_closed: bool,
    now_ms: i64,
) -> Result<String> {
    let project = keys.last().cloned().unwrap_or_default();
    let in_list = list.map(|l| format!(" in \"{l}\"")).unwrap_or_default();
    let nothing = if include_closed {
        format!("Nothing recorded{in_list} for {project}.")
    } else {
        format!("Nothing open{in_list} for {project}. Pass includeClosed to see closed items.")
    };
    let Some(conn) = conn else {
        return Ok(nothing);
    };
    let lists: Vec<_> = work_state::fold(&ws_store::entries(conn, keys)?)
        .into_iter()
        .filter(|l| list.is_none_or(|o| l.name == o))
        .collect();
    let lines = ws_view::list_lines(&lists, include_closed, now_ms);
    if lines.is_empty() {
        return Ok(nothing);
    }
    let mut doc = Doc::default();
    doc.push(Block {
        kind: BlockKind::WorkState,
        lines,
        lang_hint: None,
    });
    Ok(doc.to_plain())
}
