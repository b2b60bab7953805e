//! The worker thread's side: answers each `Request` from the database. A layer's own load
//! (`layers/*`) fills it; this module serves what is no layer's: the project list, the
//! preview, deletes and scrubs. The queries are the store's; all text comes from `src/view/`.

use anyhow::Result;

use super::data::{Reply, Request, SCRUBBED};
use super::layers::{Ctx, detail};
use crate::model::Kind;
use crate::store::{Store, browse, forget};

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
        Request::Load(component) => component.behaviour().load(conn, ctx)?,
        Request::Projects => Reply::Projects(browse::projects(conn)?),
        // A preview has no agent view of its own.
        Request::Preview { kind, id } => match detail::page(conn, ctx, *kind, *id)? {
            Some(page) => Reply::Page(page),
            None => detail::missing(*kind, *id),
        },
        Request::Forget { kind, id } => forget_record(store, *kind, *id)?,
        Request::Scrub { pattern, dry_run } => scrub(store, ctx, pattern, *dry_run)?,
    })
}
