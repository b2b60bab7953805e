//! The worker thread's side: answers each `Request` from the database. The queries are the
//! store's (`store::browse` for the index and the projects, paged or bounded); all text comes
//! from `src/view/`; this module only decides which view to call and marks which rows lead
//! somewhere.

use std::path::PathBuf;

use anyhow::Result;
use rusqlite::Connection;

use super::data::{
    ContextText, Cursor, IndexQuery, PAGE, Page, Reply, Request, Row, RowText, SCRUBBED, Target,
};
use super::highlight;
use crate::config::ContextSettings;
use crate::model::{IndexRow, Kind};
use crate::store::{
    Store, browse, forget, observations, prompts, search, summaries, timeline, tool_uses,
    work_state,
};
use crate::view::{self, Doc, Role, replies, time::Tz};

/// Everything the worker needs besides the connection.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    pub tz: Tz,
    pub now_ms: i64,
    pub context: ContextSettings,
    /// The data dir: a scrub also rewrites its spool and log.
    pub data_dir: PathBuf,
    /// Whether `s` searches by meaning too; the model loads on the first search.
    pub meaning: crate::embed::Meaning,
}

pub(crate) fn serve(store: &mut Store, ctx: &Ctx, req: &Request) -> Reply {
    match serve_inner(store, ctx, req) {
        Ok(r) => r,
        Err(e) => Reply::Error(format!("{e:#}")),
    }
}

fn forget_record(store: &mut Store, kind: Kind, id: i64) -> Result<Reply> {
    let mut sel = forget::Selection::default();
    sel.add(kind, id);
    let counts = forget::forget(store, &sel, false)?;
    let removed: Vec<String> = counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(t, n)| format!("{n} {t}"))
        .collect();
    // Nothing removed (already deleted elsewhere): still a `Forgotten`, so the row goes.
    Ok(Reply::Forgotten {
        kind,
        id,
        removed: removed.join(", "),
    })
}

fn scrub(store: &mut Store, ctx: &Ctx, pattern: &str, dry_run: bool) -> Result<Reply> {
    let report = forget::scrub_everywhere(
        store,
        &ctx.data_dir,
        &forget::Pattern::Literal(pattern.to_string()),
        SCRUBBED,
        dry_run,
    )?;
    let mut places: Vec<String> = report
        .rows
        .iter()
        .map(|(table, col, n)| format!("{table}.{col} {n}"))
        .collect();
    places.extend(
        report
            .files
            .iter()
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned())),
    );
    Ok(Reply::Scrubbed {
        pattern: pattern.to_string(),
        dry_run,
        rows: report.rows.iter().map(|(_, _, n)| n).sum(),
        files: report.files.len(),
        places: places.join(", "),
    })
}

fn serve_inner(store: &mut Store, ctx: &Ctx, req: &Request) -> Result<Reply> {
    let conn = &store.conn;
    Ok(match req {
        Request::IndexPage {
            query,
            after,
            count,
        } => Reply::Page(index_page(conn, ctx, query, *after, *count)?),
        Request::Projects => Reply::Projects(browse::projects(conn)?),
        Request::Context { label, keys } => {
            let s = view::context::load(conn, label, keys, &ctx.context, ctx.now_ms, false)?;
            Reply::Context(ContextText {
                chars: s.chars(),
                limit: s.limit,
                steps: s.steps.iter().map(|s| s.describe()).collect(),
                text: s.text,
            })
        }
        Request::WorkState { keys } => Reply::Page(work_lists(conn, ctx, keys)?),
        Request::WorkHistory { project, list } => {
            Reply::Page(work_history(conn, ctx, project, list)?)
        }
        Request::Timeline { kind, id } => match timeline::around(conn, *kind, *id, 30, 30)? {
            Some(rows) => {
                let heading = format!("Timeline around {}", kind.display_id(*id));
                let doc = view::timeline::render(&heading, &rows, Some((*kind, *id)), &ctx.tz);
                let mut page = doc_page(&doc);
                page.focus = page
                    .rows
                    .iter()
                    .position(|r| r.target == Some(Target::Record(*kind, *id)));
                // A human scrolls 30 records each way; the agent's `timeline(anchor=…)` gets
                // the tool's default depth.
                let depth = replies::TIMELINE_DEPTH;
                page.agent_text =
                    replies::timeline(conn, (*kind, *id), depth, depth, &ctx.tz)?.map(replies::cap);
                Reply::Page(page)
            }
            None => Reply::Missing(format!("no {} {}", kind.label(), kind.display_id(*id))),
        },
        Request::Detail { kind, id } => match detail(conn, ctx, *kind, *id)? {
            Some(mut page) => {
                // What `get_observations(ids=[…])` sends: the record cut to its byte limit.
                let ids = [(*kind, *id)];
                let text = replies::records(
                    conn,
                    &ids,
                    replies::MAX_RECORDS,
                    None,
                    replies::RecordOrder::AsGiven,
                    &ctx.tz,
                )?;
                page.agent_text = Some(replies::cap(text));
                Reply::Page(page)
            }
            None => Reply::Missing(format!("no {} {}", kind.label(), kind.display_id(*id))),
        },
        // A preview has no agent view of its own.
        Request::Preview { kind, id } => match detail(conn, ctx, *kind, *id)? {
            Some(page) => Reply::Page(page),
            None => Reply::Missing(format!("no {} {}", kind.label(), kind.display_id(*id))),
        },
        Request::Raw { id } => match tool_uses::by_ids(conn, &[*id])?.first() {
            Some(t) => {
                let doc = view::raw::tool_use(t, &ctx.tz, view::raw::Bounds::HUMAN);
                let mut page = doc_page(&doc);
                page.rows = highlight_code(&doc);
                // A human pages through everything; the agent view shows the bounded copy
                // `get_tool_uses(ids=[…])` sends.
                let text = replies::tool_uses(
                    conn,
                    &[*id],
                    &[],
                    &[],
                    replies::MAX_RECORDS,
                    None,
                    &ctx.tz,
                )?;
                page.agent_text = Some(replies::cap(text));
                Reply::Page(page)
            }
            None => Reply::Missing(format!("no tool use {}", view::raw::tool_use_id(*id))),
        },
        Request::Search { text, keys } => Reply::Page(search_page(conn, ctx, text, keys)?),
        Request::Forget { kind, id } => forget_record(store, *kind, *id)?,
        Request::Scrub { pattern, dry_run } => scrub(store, ctx, pattern, *dry_run)?,
    })
}

/// Rows of a document: records lead to their detail, the rest is text.
pub(crate) fn doc_page(doc: &Doc) -> Page {
    let mut rows = Vec::new();
    for b in &doc.blocks {
        let target = match b.kind {
            view::BlockKind::Observation(id) | view::BlockKind::FullObservation(id) => {
                Some(Target::Record(Kind::Observation, id))
            }
            view::BlockKind::Summary(id) => Some(Target::Record(Kind::Summary, id)),
            view::BlockKind::Prompt(id) => Some(Target::Record(Kind::Prompt, id)),
            view::BlockKind::ToolUse(id) => Some(Target::ToolUse(id)),
            _ => None,
        };
        for l in &b.lines {
            let mut row = Row::view(l.clone());
            if !l.spans.is_empty() {
                row.target = target.clone();
            }
            rows.push(row);
        }
    }
    Page {
        rows,
        next: None,
        total: None,
        agent_text: Some(doc.to_plain()),
        focus: None,
        times: Vec::new(),
        files: Vec::new(),
    }
}

/// The rows of a raw tool use, with code blocks highlighted by their language hint.
fn highlight_code(doc: &Doc) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut indent = String::new();
    for b in &doc.blocks {
        let lang = b.lang_hint.as_deref().and_then(highlight::language_of);
        if b.kind == view::BlockKind::Code
            && let Some(lang) = lang
        {
            let plain: Vec<String> = b.lines.iter().map(|l| l.plain()).collect();
            if plain.iter().all(|l| l.starts_with(&indent)) {
                let source: Vec<&str> = plain.iter().map(|l| &l[indent.len()..]).collect();
                if let Some(lines) = highlight::highlight(lang, &source.join("\n"))
                    && lines.len() == source.len()
                {
                    for pieces in lines {
                        rows.push(Row {
                            text: RowText::Code {
                                indent: indent.clone(),
                                pieces,
                            },
                            target: None,
                        });
                    }
                    continue;
                }
            }
        }
        for l in &b.lines {
            // A `key: |` label opens a code block indented two more than the key.
            let text = l.plain();
            if text.ends_with(": |") {
                let lead = text.len() - text.trim_start().len();
                indent = " ".repeat(lead + 2);
            }
            rows.push(Row::view(l.clone()));
        }
    }
    rows
}

fn detail(conn: &Connection, ctx: &Ctx, kind: Kind, id: i64) -> Result<Option<Page>> {
    Ok(match kind {
        Kind::Observation => match observations::by_ids(conn, &[id])?.first() {
            Some(o) => {
                let uses = tool_uses::by_observation(conn, id)?;
                let mut doc = view::detail::observation(o, &uses, &ctx.tz);
                view::detail::shared_by(
                    &mut doc,
                    crate::store::sync_origin::written_by(conn, "observations", id)?,
                );
                let mut page = doc_page(&doc);
                // Only the tool-use lines lead somewhere (to the raw layer).
                for r in page.rows.iter_mut() {
                    if !matches!(r.target, Some(Target::ToolUse(_))) {
                        r.target = None;
                    }
                }
                page.focus = page
                    .rows
                    .iter()
                    .position(|r| matches!(r.target, Some(Target::ToolUse(_))));
                let cwd = uses.iter().find_map(|t| t.cwd.clone());
                page.files = o
                    .files_modified
                    .iter()
                    .chain(&o.files_read)
                    .map(|f| match &cwd {
                        Some(dir) if !f.starts_with('/') => std::path::Path::new(dir).join(f),
                        _ => std::path::PathBuf::from(f),
                    })
                    .collect();
                Some(page)
            }
            None => None,
        },
        Kind::Summary => summaries::by_ids(conn, &[id])?
            .first()
            .map(|s| untargeted(doc_page(&view::detail::summary(s, &ctx.tz)))),
        Kind::Prompt => prompts::by_ids(conn, &[id])?
            .first()
            .map(|p| untargeted(doc_page(&view::detail::prompt(p, &ctx.tz)))),
    })
}

fn untargeted(mut page: Page) -> Page {
    for r in page.rows.iter_mut() {
        r.target = None;
    }
    page
}

fn search_page(conn: &Connection, ctx: &Ctx, text: &str, keys: &[String]) -> Result<Page> {
    let hits = search::search(
        conn,
        &search::Query {
            text: Some(text.to_string()),
            projects: keys.to_vec(),
            limit: PAGE,
            meaning: ctx.meaning.clone(),
            ..Default::default()
        },
    )?;
    let rows: Vec<IndexRow> = hits.into_iter().map(|h| h.row).collect();
    let heading = format!("Search: {text} ({} found)", rows.len());
    let mut doc = Doc::default();
    doc.push(
        view::Block::new(view::BlockKind::Header)
            .line(view::Line::new().push(heading, Role::Heading(2))),
    );
    for r in &rows {
        let when = ctx.tz.month_day_time(r.created_at);
        let kind = match r.kind {
            Kind::Observation => view::BlockKind::Observation(r.id),
            Kind::Summary => view::BlockKind::Summary(r.id),
            Kind::Prompt => view::BlockKind::Prompt(r.id),
        };
        let mut line = view::timeline::row_line(r, &when, false);
        if keys.len() != 1 {
            line = line.push(format!("  [{}]", r.project), Role::Muted);
        }
        doc.push(view::Block::new(kind).line(line));
    }
    let mut page = doc_page(&doc);
    // The agent's `search(query=…)` over the same projects: its table, its default limit.
    let mut query = replies::search_query(text, keys);
    query.meaning = ctx.meaning.clone();
    let agent = replies::search(conn, &query, &ctx.tz)?;
    page.agent_text = Some(replies::cap(agent));
    Ok(page)
}

/// One page of the index (the store's keyset walk), as rows that lead to their records.
fn index_page(
    conn: &Connection,
    ctx: &Ctx,
    q: &IndexQuery,
    after: Option<Cursor>,
    count: bool,
) -> Result<Page> {
    let page = browse::index_page(conn, q, after, PAGE)?;
    let total = if count {
        Some(browse::counts(conn, q)?)
    } else {
        None
    };
    let all = q.keys.len() != 1;
    let rows = page
        .rows
        .iter()
        .map(|r| {
            let mut line = view::timeline::row_line(r, &ctx.tz.row(r.created_at), false);
            if all {
                line = line.push(format!("  [{}]", r.project), Role::Muted);
            }
            Row::view(line).to(Target::Record(r.kind, r.id))
        })
        .collect();
    Ok(Page {
        rows,
        next: page.next,
        total,
        agent_text: None,
        focus: None,
        times: page.rows.iter().map(|r| r.created_at).collect(),
        files: Vec::new(),
    })
}

fn work_lists(conn: &Connection, ctx: &Ctx, keys: &[String]) -> Result<Page> {
    use crate::model::work_state as ws;
    let lists = ws::fold(&work_state::entries(conn, keys)?);
    let (open, closed): (Vec<&ws::List>, Vec<&ws::List>) =
        lists.iter().partition(|l| !l.is_closed());
    let mut rows = Vec::new();
    for (title, group) in [("Open lists", open), ("Closed lists", closed)] {
        if group.is_empty() {
            continue;
        }
        if !rows.is_empty() {
            rows.push(Row::view(view::Line::blank()));
        }
        rows.push(Row::view(view::Line::new().push(title, Role::Heading(2))));
        for list in group {
            let target = Target::WorkList(list.project.clone(), list.name.clone());
            for l in ws::lines(list, true) {
                rows.push(Row::view(view::work_state::line(&l, ctx.now_ms)).to(target.clone()));
            }
        }
    }
    if rows.is_empty() {
        rows.push(Row::view(view::Line::text(
            "No work state yet: the agent keeps its to-do lists here with work_state_write.",
        )));
    }
    let (section, _) = view::work_state::section(&lists, ctx.now_ms);
    Ok(Page {
        rows,
        next: None,
        total: None,
        agent_text: Some(section.to_plain()),
        focus: None,
        times: Vec::new(),
        files: Vec::new(),
    })
}

fn work_history(conn: &Connection, ctx: &Ctx, project: &str, list: &str) -> Result<Page> {
    let entries = work_state::entries(conn, &[project.to_string()])?;
    let mine: Vec<&crate::model::work_state::Entry> =
        entries.iter().filter(|e| e.list_name == list).collect();
    let mut rows = vec![
        Row::view(view::Line::new().push(format!("{list} · history"), Role::Heading(2))),
        Row::view(view::Line::new().push(
            format!("{} entries in {project}, oldest first", mine.len()),
            Role::Muted,
        )),
        Row::view(view::Line::blank()),
    ];
    rows.extend(
        view::work_state::history(&mine, &ctx.tz)
            .into_iter()
            .map(Row::view),
    );
    // The agent has no history: it reads the list, closed items included.
    let keys = [project.to_string()];
    let agent_text = replies::work_state(Some(conn), &keys, Some(list), true, ctx.now_ms)?;
    Ok(Page {
        rows,
        next: None,
        total: None,
        agent_text: Some(replies::cap(agent_text)),
        focus: None,
        times: Vec::new(),
        files: Vec::new(),
    })
}
