//! The read tools: search, timeline, get_observations, get_tool_uses, session_start_context,
//! important_workflow.

use anyhow::Result;
use serde_json::{Map, Value, json};

use super::{Ctx, Reply, Tool, int_arg};
use crate::model::Kind;
use crate::search::{self, Order, Query};
use crate::view::replies::{
    self, MAX_RECORDS, NO_MEMORY, RecordOrder, SEARCH_LIMIT, TIMELINE_DEPTH,
};

pub(crate) fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "search",
            title: "Search memory (legacy index)",
            description: "Legacy full-text search with filters, returning an index table (ID, time, type, title, read/work tokens). \
Prefer mem_search; use this when you need filters: type (observations | sessions | prompts, or an observation type such as bugfix), \
obs_type, concept, file, dateStart/dateEnd, orderBy, offset. Then use timeline or get_observations with the IDs.",
            read_only: true,
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "Words to find (any FTS syntax is treated as plain words)"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": SEARCH_LIMIT},
                        "offset": {"type": "integer", "minimum": 0, "default": 0},
                        "project": {"type": "string"},
                        "type": {"type": "string", "description": "observations | sessions | prompts, or an observation type"},
                        "obs_type": {"type": "string", "description": "Observation types, comma-separated (bugfix,feature,refactor,change,discovery,decision,security_alert,security_note,sensitive)"},
                        "concept": {"type": "string", "description": "Concepts, comma-separated"},
                        "file": {"type": "string", "description": "A path or path suffix the records read or changed"},
                        "dateStart": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "YYYY-MM-DD, RFC 3339, or epoch milliseconds"},
                        "dateEnd": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "YYYY-MM-DD (inclusive), RFC 3339, or epoch milliseconds"},
                        "orderBy": {"type": "string", "enum": ["relevance", "date_desc", "date_asc"], "default": "relevance"},
                        "platformSource": {"type": "string"}
                    }
                })
            },
            handler: search_call,
        },
        Tool {
            name: "timeline",
            title: "Timeline around a record",
            description: "The records before and after an anchor (an ID such as 12, S3 or P7, or the best match for a query), \
in the anchor's project, grouped by day. Use it to see what led to and followed a change; then get_observations for details.",
            read_only: true,
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "anchor": {"anyOf": [{"type": "integer"}, {"type": "string"}], "description": "Observation ID, or S<id> / P<id>"},
                        "query": {"type": "string", "description": "Used when no anchor is given: the best match becomes the anchor"},
                        "depth_before": {"type": "integer", "minimum": 0, "maximum": 20, "default": TIMELINE_DEPTH},
                        "depth_after": {"type": "integer", "minimum": 0, "maximum": 20, "default": TIMELINE_DEPTH},
                        "project": {"type": "string"}
                    },
                    "additionalProperties": false
                })
            },
            handler: timeline_call,
        },
        Tool {
            name: "get_observations",
            title: "Get records by ID",
            description: "Full details of observations (and S<id> summaries, P<id> prompts) by ID: narrative, facts, files, concepts, \
token figures, and the tool uses each observation was built from. At most 5 records per call (about 300 tokens each).",
            read_only: true,
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "ids": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}, "minItems": 1},
                        "orderBy": {"type": "string", "enum": ["as_given", "date_desc", "date_asc"], "default": "as_given"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RECORDS, "default": MAX_RECORDS},
                        "project": {"type": "string", "description": "Only return records of this project"}
                    },
                    "required": ["ids"],
                    "additionalProperties": false
                })
            },
            handler: get_observations_call,
        },
        Tool {
            name: "get_tool_uses",
            title: "Raw tool input/output",
            description: "Last resort, rarely needed: the raw tool_input and tool_response (stored capped and redacted) of tool calls, \
by tool-use ID (T17 or toolu_…) or by the observation they were turned into. Use after get_observations, when a summary is not enough.",
            read_only: true,
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "ids": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}, "description": "Tool-use IDs (T17, 17) or host IDs (toolu_…)"},
                        "observationIds": {"type": "array", "items": {"type": "integer"}, "description": "Observations whose tool uses to fetch"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RECORDS, "default": MAX_RECORDS},
                        "project": {"type": "string"}
                    },
                    "additionalProperties": false
                })
            },
            handler: get_tool_uses_call,
        },
        Tool {
            name: "session_start_context",
            title: "Session-start context",
            description: "Exactly the text cmem injects at session start: open work state and the memory index of recent observations.",
            read_only: true,
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "project": {"type": "string"},
                        "projects": {"anyOf": [{"type": "array"}, {"type": "string"}], "items": {"type": "string"}, "description": "Several keys (array or comma-separated); the last is the primary"},
                        "full": {"type": "boolean", "default": false, "description": "Everything, without the 10,000-character fitting"},
                        "platformSource": {"type": "string"},
                        "colors": {"type": "boolean"}
                    },
                    "additionalProperties": false
                })
            },
            handler: context_call,
        },
        Tool {
            name: "important_workflow",
            title: "How to use cmem memory",
            description: "Explains how this memory is layered and which tool to use when. Read it once if unsure.",
            read_only: true,
            schema: || json!({"type": "object", "properties": {}, "additionalProperties": false}),
            handler: |_, _| Ok(Reply::ok(WORKFLOW)),
        },
    ]
}

const WORKFLOW: &str = "# How cmem memory works\n\
Use mem_search for all memory search. It discloses memory in layers, so you pay only for what your task needs:\n\
0. Work state (at session start): your own open to-do lists; keep them with work_state_write, read them with work_state_read.\n\
1. Index (at session start, and mem_search step 1): one line per record — ID, time, type, title.\n\
2. Context (mem_search step 2, or timeline): the records around the IDs you chose.\n\
3. Details (mem_search step 3, or get_observations): narrative, facts and files of the records you chose.\n\
4. Raw evidence (get_tool_uses): the original tool input/output behind an observation; rarely needed.\n\
\n\
Legacy tools for filtered lookups: search (index with filters) → timeline (context) → get_observations (details) → get_tool_uses (raw).\n\
Stop at the first layer that answers the question. Titles are history from earlier sessions, not the current state of the code.";

/// A text argument, trimmed; absent, null or blank is `None`. Another type is an error: a
/// query given as a number or a list must not quietly become no query (the newest records).
fn text_arg<'a>(args: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>, String> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim()).filter(|s| !s.is_empty())),
        Some(_) => Err(format!("{name} must be a string.")),
    }
}

fn list_arg(args: &Map<String, Value>, name: &str) -> Vec<String> {
    match args.get(name) {
        Some(Value::String(s)) => s
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => Vec::new(),
    }
}

/// `YYYY-MM-DD` (start of that day in the configured zone, or its end), RFC 3339, or epoch ms.
fn date_arg(
    ctx: &Ctx,
    args: &Map<String, Value>,
    name: &str,
    end_of_day: bool,
) -> Result<Option<i64>, String> {
    let bad = || format!("{name} must be YYYY-MM-DD, an RFC 3339 time or epoch milliseconds.");
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_i64().map(Some).ok_or_else(bad),
        Some(Value::String(s)) => {
            let s = s.trim();
            if let Ok(ts) = s.parse::<jiff::Timestamp>() {
                return Ok(Some(ts.as_millisecond()));
            }
            if let Ok(ms) = s.parse::<i64>() {
                return Ok(Some(ms));
            }
            let date: jiff::civil::Date = s.parse().map_err(|_| bad())?;
            let start = ctx.tz.start_of_day(date).ok_or_else(bad)?;
            Ok(Some(if end_of_day {
                start + 86_400_000 - 1
            } else {
                start
            }))
        }
        _ => Err(bad()),
    }
}

fn search_call(ctx: &mut Ctx, args: &Map<String, Value>) -> Result<Reply> {
    let query = match build_query(ctx, args) {
        Ok(q) => q,
        Err(msg) => return Ok(Reply::error(msg)),
    };
    let tz = ctx.tz.clone();
    let Some(conn) = ctx.read_conn()? else {
        return Ok(Reply::ok(NO_MEMORY));
    };
    Ok(Reply::ok(replies::search(conn, &query, &tz)?))
}

fn build_query(ctx: &Ctx, args: &Map<String, Value>) -> Result<Query, String> {
    let mut q = Query {
        text: text_arg(args, "query")?.map(String::from),
        projects: ctx.read_keys(args),
        limit: int_arg(args, "limit", SEARCH_LIMIT as i64, 1, 100)? as usize,
        offset: int_arg(args, "offset", 0, 0, 100_000)? as usize,
        obs_types: list_arg(args, "obs_type"),
        concepts: list_arg(args, "concept"),
        files: list_arg(args, "file"),
        date_start: date_arg(ctx, args, "dateStart", false)?,
        date_end: date_arg(ctx, args, "dateEnd", true)?,
        order: match text_arg(args, "orderBy")? {
            None | Some("relevance") => Order::Relevance,
            Some("date_desc") => Order::DateDesc,
            Some("date_asc") => Order::DateAsc,
            Some(other) => {
                return Err(format!(
                    "orderBy must be relevance, date_desc or date_asc, not {other:?}."
                ));
            }
        },
        meaning: ctx.meaning.clone(),
        ..Default::default()
    };
    if let Some(t) = text_arg(args, "type")? {
        q = q.of_type(t)?;
    }
    if let Some(bad) = q
        .obs_types
        .iter()
        .find(|t| crate::model::ObsType::parse(t).is_none())
    {
        return Err(format!("unknown observation type {bad:?}."));
    }
    Ok(q)
}

fn parse_anchor(v: &Value) -> Option<(Kind, i64)> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .filter(|i| *i > 0)
            .map(|i| (Kind::Observation, i)),
        Value::String(s) => Kind::parse_id(s),
        _ => None,
    }
}

fn timeline_call(ctx: &mut Ctx, args: &Map<String, Value>) -> Result<Reply> {
    let depth = TIMELINE_DEPTH as i64;
    let before = match int_arg(args, "depth_before", depth, 0, 20) {
        Ok(n) => n as usize,
        Err(m) => return Ok(Reply::error(m)),
    };
    let after = match int_arg(args, "depth_after", depth, 0, 20) {
        Ok(n) => n as usize,
        Err(m) => return Ok(Reply::error(m)),
    };
    let keys = ctx.read_keys(args);
    let anchor_arg = args.get("anchor").filter(|v| !v.is_null());
    let query = match text_arg(args, "query") {
        Ok(q) => q.map(String::from),
        Err(m) => return Ok(Reply::error(m)),
    };
    let tz = ctx.tz.clone();
    let meaning = ctx.meaning.clone();
    let Some(conn) = ctx.read_conn()? else {
        return Ok(Reply::ok(NO_MEMORY));
    };
    let anchor = match (anchor_arg, query) {
        (Some(v), _) => match parse_anchor(v) {
            Some(a) => a,
            None => return Ok(Reply::error("anchor must be an ID such as 12, S3 or P7.")),
        },
        (None, Some(q)) => {
            let hits = search::search(
                conn,
                &Query {
                    text: Some(q.clone()),
                    projects: keys.clone(),
                    limit: 1,
                    meaning,
                    ..Default::default()
                },
            )?;
            match hits.first() {
                Some(h) => (h.row.kind, h.row.id),
                None => return Ok(Reply::ok(replies::no_anchor(&q))),
            }
        }
        (None, None) => {
            return Ok(Reply::error(
                "Give an anchor (an ID such as 12, S3 or P7) or a query.",
            ));
        }
    };
    Ok(match replies::timeline(conn, anchor, before, after, &tz)? {
        Some(text) => Reply::ok(text),
        None => Reply::error(format!(
            "No record {} exists.",
            anchor.0.display_id(anchor.1)
        )),
    })
}

fn parse_ids(args: &Map<String, Value>, name: &str) -> Result<Vec<(Kind, i64)>, String> {
    let Some(Value::Array(items)) = args.get(name) else {
        return Err(format!(
            "{name} must be an array of IDs such as [12, \"S3\"]."
        ));
    };
    let mut out = Vec::new();
    for v in items {
        match parse_anchor(v) {
            Some(id) if !out.contains(&id) => out.push(id),
            Some(_) => {}
            None => return Err(format!("{v} is not an ID (use 12, \"S3\" or \"P7\").")),
        }
    }
    if out.is_empty() {
        return Err(format!("{name} must name at least one ID."));
    }
    Ok(out)
}

fn get_observations_call(ctx: &mut Ctx, args: &Map<String, Value>) -> Result<Reply> {
    let ids = match parse_ids(args, "ids") {
        Ok(ids) => ids,
        Err(m) => return Ok(Reply::error(m)),
    };
    let max = MAX_RECORDS as i64;
    let limit = match int_arg(args, "limit", max, 1, max) {
        Ok(n) => n as usize,
        Err(m) => return Ok(Reply::error(m)),
    };
    let only_project = match text_arg(args, "project") {
        Ok(p) => p.map(String::from),
        Err(m) => return Ok(Reply::error(m)),
    };
    let order = match text_arg(args, "orderBy").and_then(RecordOrder::parse) {
        Ok(o) => o,
        Err(m) => return Ok(Reply::error(m)),
    };
    let tz = ctx.tz.clone();
    let Some(conn) = ctx.read_conn()? else {
        return Ok(Reply::ok(NO_MEMORY));
    };
    let text = replies::records(conn, &ids, limit, only_project.as_deref(), order, &tz)?;
    Ok(Reply::ok(text))
}

/// `T17` (as the views write it), `17` or `#17`.
fn tool_use_row_id(s: &str) -> Option<i64> {
    let t = s.trim();
    let t = t
        .strip_prefix(['T', 't'])
        .or_else(|| t.strip_prefix('#'))
        .unwrap_or(t);
    t.parse().ok()
}

fn get_tool_uses_call(ctx: &mut Ctx, args: &Map<String, Value>) -> Result<Reply> {
    let max = MAX_RECORDS as i64;
    let limit = match int_arg(args, "limit", max, 1, max) {
        Ok(n) => n as usize,
        Err(m) => return Ok(Reply::error(m)),
    };
    let mut row_ids = Vec::new();
    let mut host_ids = Vec::new();
    if let Some(Value::Array(items)) = args.get("ids") {
        for v in items {
            match v {
                Value::Number(n) if n.as_i64().is_some() => {
                    row_ids.push(n.as_i64().unwrap_or_default())
                }
                Value::String(s) if tool_use_row_id(s).is_some() => {
                    row_ids.push(tool_use_row_id(s).unwrap_or_default());
                }
                Value::String(s) if !s.trim().is_empty() => host_ids.push(s.trim().to_string()),
                other => {
                    return Ok(Reply::error(format!(
                        "{other} is not a tool-use ID (use \"T17\", 17 or \"toolu_…\")."
                    )));
                }
            }
        }
    }
    let obs_ids: Vec<i64> = match args.get("observationIds") {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_i64).collect(),
        _ => Vec::new(),
    };
    if row_ids.is_empty() && host_ids.is_empty() && obs_ids.is_empty() {
        return Ok(Reply::error(
            "Give ids (tool-use IDs) or observationIds. Find them with get_observations first.",
        ));
    }
    let only_project = match text_arg(args, "project") {
        Ok(p) => p.map(String::from),
        Err(m) => return Ok(Reply::error(m)),
    };
    let tz = ctx.tz.clone();
    let Some(conn) = ctx.read_conn()? else {
        return Ok(Reply::ok(NO_MEMORY));
    };
    let text = replies::tool_uses(
        conn,
        &row_ids,
        &host_ids,
        &obs_ids,
        limit,
        only_project.as_deref(),
        &tz,
    )?;
    Ok(Reply::ok(text))
}

fn context_call(ctx: &mut Ctx, args: &Map<String, Value>) -> Result<Reply> {
    let mut keys = list_arg(args, "projects");
    match text_arg(args, "project") {
        Ok(Some(p)) => keys.push(p.to_string()),
        Ok(None) => {}
        Err(m) => return Ok(Reply::error(m)),
    }
    if keys.is_empty() {
        keys = ctx.keys.all.clone();
    }
    let primary = keys.last().cloned().unwrap_or_default();
    let full = args.get("full").and_then(Value::as_bool).unwrap_or(false);
    let now = crate::clock::now_ms();
    let settings = ctx.settings.context.clone();
    let conn = ctx.read_conn()?;
    let start = crate::view::context::load_or_empty(conn, &primary, &keys, &settings, now, full)?;
    Ok(Reply::ok(start.text))
}
