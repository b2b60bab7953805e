//! mem_search: the server-enforced progressive search (claude-mem's protocol; README "The MCP
//! server").
//!
//! Step 1 discloses an index (ids and titles), step 2 the timeline around ids the caller chose
//! from step 1, step 3 the details of ids chosen from step 2. What was disclosed is kept
//! server-side behind an opaque cursor, so a caller cannot skip a step, select an id it was
//! never shown, or change the query halfway. `mode: "auto"` runs the same steps in one call,
//! with the shared ranking, and details the piece of work the best hit belongs to (`search::work`).

pub mod cursors;

use anyhow::Result;
use rusqlite::Connection;
use serde_json::{Map, Value};

use crate::model::{IndexRow, Kind};
use crate::search::{self, work};
use crate::store::{observations, summaries, timeline};
use crate::view::MAX_REPLY_BYTES;
use crate::view::search::{Detail, Reason, Reply, project_observation, project_summary, row_title};
use cursors::{CursorStore, Lookup, is_cursor};

const MAX_QUERY_CHARS: usize = 500;
const MAX_QUERY_BYTES: usize = 1024;
const MAX_PROJECT_BYTES: usize = 256;
const MAX_CONTEXT_PER_ANCHOR: usize = 7;
const MAX_CONTEXT: usize = 35;
const MAX_DETAIL_BYTES: usize = 8 * 1024;
const MAX_STATE_BYTES: usize = 48 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub(crate) enum Mode {
    Guided,
    Auto,
}

/// The options a search started with; a continuation may repeat them but not change them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct Options {
    pub query: String,
    pub project: Option<String>,
    pub limit: usize,
    pub max_details: usize,
    pub depth_before: usize,
    pub depth_after: usize,
}

/// A record disclosed by a step, with the project it was disclosed under.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct Disclosed {
    pub kind: Kind,
    pub id: i64,
    pub project: String,
}

impl Disclosed {
    fn display(&self) -> String {
        self.kind.display_id(self.id)
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct State {
    /// The step the cursor leads to (2 or 3).
    step: u8,
    options: Options,
    eligible: Vec<Disclosed>,
}

/// A failed call: one of claude-mem's error codes (`invalid_input`, …) and a one-sentence
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SearchError {
    pub code: &'static str,
    pub message: String,
}

fn err(code: &'static str, message: impl Into<String>) -> SearchError {
    SearchError {
        code,
        message: message.into(),
    }
}

fn invalid(message: impl Into<String>) -> SearchError {
    err("invalid_input", message)
}

/// The engine lives as long as the MCP server: its cursors die with the process.
pub(crate) struct Engine {
    cursors: CursorStore<State>,
    scope: String,
    /// The checkout's project keys (searched when the caller names no project).
    keys: Vec<String>,
    /// Whether searches rank by meaning too (the face's setting).
    meaning: crate::store::meaning::Meaning,
}

/// An optional whole number in `min..=max`; absent stays `None`.
fn int_field(
    args: &Map<String, Value>,
    name: &str,
    min: usize,
    max: usize,
) -> Result<Option<usize>, SearchError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (min as u64..=max as u64).contains(&n) => Ok(Some(n as usize)),
            _ => Err(invalid(format!(
                "{name} must be an integer from {min} to {max}."
            ))),
        },
    }
}

/// The caller's input, validated against claude-mem's limits. Absent numbers stay `None` so a
/// continuation can tell "not given" from "given".
struct Input {
    mode: Mode,
    query: Option<String>,
    project: Option<String>,
    limit: Option<usize>,
    max_details: Option<usize>,
    depth_before: Option<usize>,
    depth_after: Option<usize>,
    continuation: Option<String>,
    selected: Option<Vec<String>>,
}

const FIELDS: &[&str] = &[
    "mode",
    "query",
    "project",
    "limit",
    "maxDetails",
    "depthBefore",
    "depthAfter",
    "continuation",
    "selectedIds",
];

fn parse_input(args: &Value) -> Result<Input, SearchError> {
    let Some(args) = args.as_object() else {
        return Err(invalid("Arguments must be a JSON object."));
    };
    if let Some(unknown) = args.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(invalid(format!(
            "Unknown field {unknown:?}; allowed: {}.",
            FIELDS.join(", ")
        )));
    }
    let mode = match args.get("mode") {
        None | Some(Value::Null) => Mode::Guided,
        Some(Value::String(m)) if m == "guided" => Mode::Guided,
        Some(Value::String(m)) if m == "auto" => Mode::Auto,
        _ => return Err(invalid("mode must be \"guided\" or \"auto\".")),
    };
    let query = match args.get("query") {
        None | Some(Value::Null) => None,
        Some(Value::String(q)) => {
            let q = q.trim().to_string();
            let chars = q.chars().count();
            if chars == 0 || chars > MAX_QUERY_CHARS || q.len() > MAX_QUERY_BYTES {
                return Err(invalid(format!(
                    "query must be 1 to {MAX_QUERY_CHARS} characters and at most {MAX_QUERY_BYTES} bytes."
                )));
            }
            Some(q)
        }
        _ => return Err(invalid("query must be a string.")),
    };
    let project = match args.get("project") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if !p.trim().is_empty() && p.len() <= MAX_PROJECT_BYTES => {
            Some(p.trim().to_string())
        }
        _ => {
            return Err(invalid(format!(
                "project must be a non-empty string of at most {MAX_PROJECT_BYTES} bytes."
            )));
        }
    };
    let continuation = match args.get("continuation") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(c.clone()),
        _ => {
            return Err(err(
                "invalid_continuation",
                "continuation must be the string from \"Continue with:\".",
            ));
        }
    };
    let selected = match args.get("selectedIds") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => {
            let mut ids = Vec::new();
            for item in items {
                let id = match item {
                    Value::String(s) => s.trim().to_string(),
                    Value::Number(n)
                        if n.as_i64().is_some_and(|i| i.unsigned_abs() < (1 << 53)) =>
                    {
                        n.to_string()
                    }
                    _ => {
                        return Err(err(
                            "invalid_selection",
                            "selectedIds must hold IDs as strings or whole numbers.",
                        ));
                    }
                };
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            Some(ids)
        }
        _ => {
            return Err(err(
                "invalid_selection",
                "selectedIds must be an array of IDs.",
            ));
        }
    };
    Ok(Input {
        mode,
        query,
        project,
        limit: int_field(args, "limit", 1, 20)?,
        max_details: int_field(args, "maxDetails", 1, 5)?,
        depth_before: int_field(args, "depthBefore", 0, 3)?,
        depth_after: int_field(args, "depthAfter", 0, 3)?,
        continuation,
        selected,
    })
}

/// What `call` returns: the reply (rendered by the view) or an error.
pub(crate) type Outcome = Result<Reply, SearchError>;

impl Engine {
    pub(crate) fn new(
        checkout_keys: Vec<String>,
        meaning: crate::store::meaning::Meaning,
    ) -> Result<Engine> {
        Ok(Engine {
            cursors: CursorStore::new()?,
            scope: format!("mcp/{}", checkout_keys.join(",")),
            keys: checkout_keys,
            meaning,
        })
    }

    /// One mem_search call. `conn` is `None` when no database exists yet.
    pub(crate) fn call(&mut self, conn: Option<&Connection>, args: &Value, now: i64) -> Outcome {
        let input = parse_input(args)?;
        match &input.continuation {
            Some(c) => self.continue_search(conn, &input, c, now),
            None => self.start(conn, &input, now),
        }
    }

    fn projects(&self, options: &Options) -> Vec<String> {
        match &options.project {
            Some(p) => vec![p.clone()],
            None => self.keys.clone(),
        }
    }

    fn store(&mut self, state: State, now: i64) -> Result<String, SearchError> {
        let bytes = serde_json::to_vec(&state).map(|v| v.len()).unwrap_or(0);
        self.cursors
            .put(&self.scope, state, bytes, now)
            .map_err(|_| err("retrieval_failed", "Memory retrieval failed; retry."))?
            .ok_or_else(|| {
                err(
                    "response_too_large",
                    "The search state does not fit the cursor budget; narrow the query.",
                )
            })
    }

    fn start(&mut self, conn: Option<&Connection>, input: &Input, now: i64) -> Outcome {
        if input.selected.is_some() {
            return Err(invalid(
                "selectedIds need a continuation from the previous step.",
            ));
        }
        let Some(query) = input.query.clone() else {
            return Err(invalid("Start a search with a query."));
        };
        let options = Options {
            query,
            project: input.project.clone(),
            limit: input.limit.unwrap_or(20),
            max_details: input.max_details.unwrap_or(3),
            depth_before: input.depth_before.unwrap_or(2),
            depth_after: input.depth_after.unwrap_or(2),
        };
        let rows = match conn {
            Some(c) => self.index(c, &options, &options.query).map_err(retrieval)?,
            None => Vec::new(),
        };
        match input.mode {
            Mode::Guided => self.step1(rows, options, now),
            Mode::Auto => self.auto(conn, rows, options, now),
        }
    }

    /// Step 1's rows: the search hits as disclosable index rows.
    fn index(&self, conn: &Connection, options: &Options, text: &str) -> Result<Vec<IndexRow>> {
        let q = search::Query {
            text: Some(text.to_string()),
            projects: self.projects(options),
            limit: options.limit,
            meaning: self.meaning.clone(),
            ..Default::default()
        };
        let mut seen = Vec::new();
        let mut rows: Vec<IndexRow> = search::search(conn, &q)?
            .into_iter()
            .map(|h| h.row)
            .filter(|r| r.project.len() <= MAX_PROJECT_BYTES)
            .filter(|r| {
                let key = (r.kind, r.id);
                let fresh = !seen.contains(&key);
                seen.push(key);
                fresh
            })
            .map(|mut r| {
                r.title = row_title(&r.title);
                r.obs_type = r
                    .obs_type
                    .map(|t| crate::text::cut_bytes(&t, 64).0.to_string());
                r
            })
            .collect();
        crate::view::since::fill_rows(conn, &mut rows)?;
        Ok(rows)
    }

    fn step1(&mut self, mut rows: Vec<IndexRow>, options: Options, now: i64) -> Outcome {
        if rows.is_empty() {
            return Ok(Reply {
                step: 1,
                reason: Some(Reason::NoResults),
                ..Default::default()
            });
        }
        let mut reason = None;
        // The disclosed list must fit the state budget: drop the last rows until it does.
        let state = loop {
            let state = State {
                step: 2,
                options: options.clone(),
                eligible: rows.iter().map(disclosed).collect(),
            };
            let bytes = serde_json::to_vec(&state)
                .map(|v| v.len())
                .unwrap_or(usize::MAX);
            if bytes <= MAX_STATE_BYTES {
                break state;
            }
            if rows.len() <= 1 {
                return Err(err(
                    "response_too_large",
                    "The index does not fit the search budget; narrow the query.",
                ));
            }
            rows.pop();
            reason = Some(Reason::IndexTruncated);
        };
        let max = options.max_details;
        let cursor = self.store(state, now)?;
        Ok(Reply {
            step: 1,
            reason,
            rows,
            continuation: Some(cursor),
            next: Some(format!(
                "Next: mem-search step 2 of 3: choose up to {max} relevant IDs from this index and call mem_search again with continuation and selectedIds (mode=\"guided\") to see the records around them. Stop here if these titles already answer the question."
            )),
            ..Default::default()
        })
    }

    fn continue_search(
        &mut self,
        conn: Option<&Connection>,
        input: &Input,
        cursor: &str,
        now: i64,
    ) -> Outcome {
        if input.mode != Mode::Guided {
            return Err(invalid("Continuations use mode \"guided\"."));
        }
        if !is_cursor(cursor) {
            return Err(err(
                "invalid_continuation",
                "The continuation is not a cursor from \"Continue with:\".",
            ));
        }
        let state = match self.cursors.get(&self.scope, cursor, now) {
            Ok(s) => s.clone(),
            Err(Lookup::Expired) => {
                return Err(err(
                    "expired_continuation",
                    "The continuation has expired (15 minutes); start a new search.",
                ));
            }
            Err(Lookup::Unknown) => {
                return Err(err(
                    "invalid_continuation",
                    "The continuation is expired, unknown to this server, or from another checkout.",
                ));
            }
        };
        let o = &state.options;
        let changed = input.query.as_ref().is_some_and(|q| q != &o.query)
            || input
                .project
                .as_ref()
                .is_some_and(|p| Some(p) != o.project.as_ref())
            || input.limit.is_some_and(|v| v != o.limit)
            || input.max_details.is_some_and(|v| v != o.max_details)
            || input.depth_before.is_some_and(|v| v != o.depth_before)
            || input.depth_after.is_some_and(|v| v != o.depth_after);
        if changed {
            return Err(err(
                "scope_changed",
                "Options cannot change on a continuation; start a new search to change them.",
            ));
        }
        let Some(selected) = &input.selected else {
            return Err(err(
                "selection_required",
                format!(
                    "Choose selectedIds from the last step (at most {}); [] ends the search.",
                    o.max_details
                ),
            ));
        };
        if selected.is_empty() {
            return Ok(Reply {
                step: state.step - 1,
                reason: Some(Reason::CallerStopped),
                ..Default::default()
            });
        }
        if selected.len() > o.max_details {
            return Err(err(
                "selection_required",
                format!(
                    "Choose at most {} IDs from the last step; [] ends the search.",
                    o.max_details
                ),
            ));
        }
        let mut chosen = Vec::new();
        for id in selected {
            match state.eligible.iter().find(|d| d.display() == *id) {
                Some(d) => chosen.push(d.clone()),
                None => {
                    return Err(err(
                        "invalid_selection",
                        format!("ID {id:?} was not disclosed by the preceding mem-search step."),
                    ));
                }
            }
        }
        let Some(conn) = conn else {
            return Err(err("retrieval_failed", "Memory retrieval failed; retry."));
        };
        match state.step {
            2 => self.step2(conn, &chosen, state.options.clone(), now),
            _ => {
                if chosen.iter().any(|d| d.kind == Kind::Prompt) {
                    return Err(err(
                        "invalid_selection",
                        "Prompts are context only; select observations or summaries.",
                    ));
                }
                Ok(details_reply(conn, &chosen, &state.options, None).map_err(retrieval)?)
            }
        }
    }

    /// The context rows around each anchor, same project only, capped.
    fn context(conn: &Connection, anchors: &[Disclosed], o: &Options) -> Result<Vec<IndexRow>> {
        let mut rows: Vec<IndexRow> = Vec::new();
        for a in anchors {
            let Some(around) = timeline::around(conn, a.kind, a.id, o.depth_before, o.depth_after)?
            else {
                continue;
            };
            let own: Vec<IndexRow> = around
                .into_iter()
                .filter(|r| r.project.eq_ignore_ascii_case(&a.project))
                .take(MAX_CONTEXT_PER_ANCHOR)
                .collect();
            for r in own {
                if !rows.iter().any(|x| (x.kind, x.id) == (r.kind, r.id)) {
                    rows.push(r);
                }
            }
        }
        rows.sort_by_key(|r| (r.created_at, r.kind, r.id));
        rows.truncate(MAX_CONTEXT);
        for r in &mut rows {
            r.title = row_title(&r.title);
        }
        crate::view::since::fill_rows(conn, &mut rows)?;
        Ok(rows)
    }

    fn step2(
        &mut self,
        conn: &Connection,
        anchors: &[Disclosed],
        options: Options,
        now: i64,
    ) -> Outcome {
        let rows = Self::context(conn, anchors, &options).map_err(retrieval)?;
        if rows.is_empty() {
            return Ok(Reply {
                step: 2,
                reason: Some(Reason::ContextNotFound),
                ..Default::default()
            });
        }
        let max = options.max_details;
        let state = State {
            step: 3,
            options,
            eligible: rows.iter().map(disclosed).collect(),
        };
        let cursor = self.store(state, now)?;
        Ok(Reply {
            step: 2,
            rows,
            continuation: Some(cursor),
            next: Some(format!(
                "Next: mem-search step 3 of 3: choose up to {max} observation or summary IDs from this context (prompts are context only) and call mem_search again with continuation and selectedIds (mode=\"guided\") to read their details. Stop here if you already know enough."
            )),
            ..Default::default()
        })
    }

    fn auto(
        &mut self,
        conn: Option<&Connection>,
        mut rows: Vec<IndexRow>,
        options: Options,
        now: i64,
    ) -> Outcome {
        let mut phases = vec!["index"];
        let ranked = |rows: &[IndexRow]| -> Vec<Disclosed> {
            rows.iter()
                .filter(|r| r.kind != Kind::Prompt)
                .take(options.max_details)
                .map(disclosed)
                .collect()
        };
        let mut anchors = ranked(&rows);
        // Nothing ranked: retry once without stop words (the reference's refinement).
        let refined = search::terms(&options.query).join(" ");
        if anchors.is_empty()
            && !refined.is_empty()
            && refined != options.query.to_lowercase()
            && let Some(c) = conn
        {
            let extra = self.index(c, &options, &refined).map_err(retrieval)?;
            anchors = ranked(&extra);
            let mut merged = extra;
            merged.extend(
                rows.into_iter()
                    .filter(|r| !anchors.iter().any(|a| (a.kind, a.id) == (r.kind, r.id))),
            );
            merged.truncate(options.limit);
            rows = merged;
        }
        let Some(conn) = conn.filter(|_| !anchors.is_empty()) else {
            // Let the caller pick from whatever the index had.
            let mut reply = if rows.is_empty() {
                Reply {
                    step: 1,
                    reason: Some(Reason::NoResults),
                    ..Default::default()
                }
            } else {
                let mut r = self.step1(rows, options, now)?;
                r.reason = Some(Reason::NoRelevantCandidates);
                r
            };
            reply.auto_phases = Some(phases);
            return Ok(reply);
        };
        phases.push("context");
        let context = Self::context(conn, &anchors, &options).map_err(retrieval)?;
        // Rank the context by the same relevance: records the query matches, best first.
        let hits = search::search(
            conn,
            &search::Query {
                text: Some(options.query.clone()),
                projects: self.projects(&options),
                limit: 200,
                meaning: self.meaning.clone(),
                ..Default::default()
            },
        )
        .map_err(retrieval)?;
        // The details cover the piece of work the best hit belongs to (see `search::work`).
        let asked = work::Asked::of(&options.query);
        let top = work::best(&hits, asked);
        let summary = closing_summary(conn, top).map_err(retrieval)?;
        let turn = best_turn(conn, top).map_err(retrieval)?;
        let mut chosen: Vec<Disclosed> =
            work::details(&hits, summary.as_ref(), &turn, asked, options.max_details)
                .into_iter()
                .map(disclosed)
                .collect();
        if chosen.is_empty() {
            chosen = anchors
                .iter()
                .filter(|a| context.iter().any(|c| (c.kind, c.id) == (a.kind, a.id)))
                .cloned()
                .collect();
        }
        if chosen.is_empty() {
            return Ok(Reply {
                step: 2,
                auto_phases: Some(phases),
                reason: Some(Reason::NoRelevantContext),
                rows: context,
                ..Default::default()
            });
        }
        phases.push("selected details");
        details_reply(conn, &chosen, &options, Some(phases)).map_err(retrieval)
    }
}

/// The summary of the best hit's turn, when the best hit is an observation of a session.
fn closing_summary(conn: &Connection, top: Option<&search::Hit>) -> Result<Option<IndexRow>> {
    let Some(top) = top else {
        return Ok(None);
    };
    let (Kind::Observation, Some(session)) = (top.row.kind, top.row.session_id) else {
        return Ok(None);
    };
    Ok(summaries::closing(conn, session, top.row.created_at)?
        .filter(|s| s.project.eq_ignore_ascii_case(&top.row.project))
        .map(|s| {
            let mut row = timeline::summary_row(&s);
            row.title = row_title(&row.title);
            row
        }))
}

/// The observations of the best hit's turn, in the order they were made.
fn best_turn(conn: &Connection, top: Option<&search::Hit>) -> Result<Vec<IndexRow>> {
    let Some(top) = top else {
        return Ok(Vec::new());
    };
    let Some(session) = top.row.session_id else {
        return Ok(Vec::new());
    };
    let mut rows =
        crate::store::search::turn_records(conn, session, &top.row.project, top.row.created_at)?;
    for r in &mut rows {
        r.title = row_title(&r.title);
    }
    Ok(rows)
}

fn disclosed(r: &IndexRow) -> Disclosed {
    Disclosed {
        kind: r.kind,
        id: r.id,
        project: r.project.clone(),
    }
}

fn retrieval(e: anyhow::Error) -> SearchError {
    crate::logging::error(format!("mem_search: {e:#}"));
    err("retrieval_failed", "Memory retrieval failed; retry.")
}

/// Step 3: the details, each re-checked against the project its id was disclosed under.
fn details_reply(
    conn: &Connection,
    chosen: &[Disclosed],
    o: &Options,
    auto: Option<Vec<&'static str>>,
) -> Result<Reply> {
    let obs_ids: Vec<i64> = chosen
        .iter()
        .filter(|d| d.kind == Kind::Observation)
        .map(|d| d.id)
        .collect();
    let sum_ids: Vec<i64> = chosen
        .iter()
        .filter(|d| d.kind == Kind::Summary)
        .map(|d| d.id)
        .collect();
    let obs = observations::by_ids(conn, &obs_ids)?;
    let sums = summaries::by_ids(conn, &sum_ids)?;
    let mut details = Vec::new();
    for d in chosen {
        let found = match d.kind {
            Kind::Observation => obs
                .iter()
                .find(|x| x.id == d.id)
                .filter(|x| x.project == d.project)
                .map(|x| {
                    let (content, truncated) = project_observation(x, MAX_DETAIL_BYTES);
                    (
                        x.title.clone().unwrap_or_default(),
                        x.project.clone(),
                        content,
                        truncated,
                    )
                }),
            Kind::Summary => sums
                .iter()
                .find(|x| x.id == d.id)
                .filter(|x| x.project == d.project)
                .map(|x| {
                    let (content, truncated) = project_summary(x, MAX_DETAIL_BYTES);
                    (
                        x.request.clone().unwrap_or_default(),
                        x.project.clone(),
                        content,
                        truncated,
                    )
                }),
            Kind::Prompt => None,
        };
        if let Some((title, project, content, truncated)) = found {
            let title = row_title(&title);
            details.push(Detail {
                id: d.display(),
                title: if title.is_empty() {
                    "Untitled".into()
                } else {
                    title
                },
                project: (o.project.as_deref() != Some(project.as_str())).then_some(project),
                content,
                truncated,
            });
        }
    }
    let mut reply = Reply {
        step: 3,
        auto_phases: auto,
        reason: details.is_empty().then_some(Reason::DetailsNotFound),
        details,
        ..Default::default()
    };
    fit_reply(&mut reply);
    Ok(reply)
}

/// Keeps the rendered reply within `MAX_REPLY_BYTES`: halve the largest detail until it fits.
fn fit_reply(reply: &mut Reply) {
    loop {
        let len = crate::view::search::render(reply).to_plain().len();
        if len <= MAX_REPLY_BYTES {
            return;
        }
        let Some(largest) = reply.details.iter_mut().max_by_key(|d| d.content.len()) else {
            return;
        };
        if largest.content.len() < 64 {
            reply.details.pop();
            continue;
        }
        let half = crate::text::cut_bytes(&largest.content, largest.content.len() / 2)
            .0
            .to_string();
        largest.content = half;
        largest.truncated = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_larger_than_the_cursor_budget_is_response_too_large() {
        let mut engine =
            Engine::new(vec!["p".into()], crate::store::meaning::Meaning::Off).unwrap();
        let eligible = (0..200_000)
            .map(|i| Disclosed {
                kind: Kind::Observation,
                id: i,
                project: "a-long-project-name-for-bytes".into(),
            })
            .collect();
        let state = State {
            step: 2,
            options: Options {
                query: "q".into(),
                project: None,
                limit: 20,
                max_details: 3,
                depth_before: 2,
                depth_after: 2,
            },
            eligible,
        };
        let e = engine.store(state, 0).unwrap_err();
        assert_eq!(e.code, "response_too_large");
    }

    #[test]
    fn without_a_database_a_search_finds_nothing_and_continuations_fail_cleanly() {
        let mut engine =
            Engine::new(vec!["p".into()], crate::store::meaning::Meaning::Off).unwrap();
        let reply = engine
            .call(None, &serde_json::json!({"query": "pool"}), 0)
            .unwrap();
        assert_eq!(reply.reason, Some(Reason::NoResults));
        assert!(reply.continuation.is_none());
    }

    #[test]
    fn auto_details_hold_the_best_hits_summary_before_partial_matches_elsewhere() {
        use crate::model::SummaryBody;
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        use crate::store::test_rows;
        let session = |key: &str| test_rows::session(c, key);
        let obs = |session: i64, title: &str, at: i64| {
            test_rows::observation(c, Some(session), "bugfix", title, at)
        };
        let (work, other) = (session("work"), session("other"));
        let fix = obs(work, "ECONNRESET on pool reconnect handled", 10);
        // The summary tells the same work in other words: no term of the query.
        let summary = test_rows::summary(
            c,
            Some(work),
            SummaryBody {
                request: Some("checkout fails after a database restart".into()),
                completed: Some("the client now waits and tries again".into()),
                ..Default::default()
            },
            20,
        );
        // Near-duplicates of another session that hold one word of the query.
        obs(other, "reconnect button styling", 30);
        obs(other, "reconnect banner copy", 31);
        let mut engine =
            Engine::new(vec!["p".into()], crate::store::meaning::Meaning::Off).unwrap();
        let reply = engine
            .call(
                Some(c),
                &serde_json::json!({"mode": "auto", "query": "ECONNRESET reconnect", "maxDetails": 2}),
                100,
            )
            .unwrap();
        let ids: Vec<&str> = reply.details.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(
            ids,
            vec![
                Kind::Observation.display_id(fix).as_str(),
                Kind::Summary.display_id(summary).as_str()
            ]
        );
    }
}
