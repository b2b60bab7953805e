//! The write tools: save_memory, work_state_write, and work_state_read (its reader).

use anyhow::Result;
use serde_json::{Map, Value, json};

use super::{Ctx, Reply, Tool};
use crate::model::work_state::fold;
use crate::store::observations::{self, NewObservation};
use crate::store::work_state;
use crate::text::{clip, one_line};
use crate::view::doc::Doc;
use crate::view::work_state as ws_view;

const MAX_LIST_CHARS: usize = 200;
const MAX_FIELDS_JSON: usize = 2000;
const MAX_MEMORY_CHARS: usize = 20_000;

pub(crate) fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "save_memory",
            title: "Save a memory",
            description: "Store something worth remembering in future sessions (a decision, a gotcha, how something works) as an observation of this project. \
Secrets and <private> parts are removed before it is stored.",
            read_only: false,
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "minLength": 1, "maxLength": MAX_MEMORY_CHARS, "description": "What to remember"},
                        "title": {"type": "string", "maxLength": 200, "description": "A short, specific title (default: the first line of text)"},
                        "type": {"type": "string", "enum": ["bugfix", "feature", "refactor", "change", "discovery", "decision", "security_alert", "security_note", "sensitive"], "default": "discovery"},
                        "concepts": {"type": "array", "items": {"type": "string"}},
                        "files": {"type": "array", "items": {"type": "string"}, "description": "Files this is about"},
                        "project": {"type": "string", "description": "Default: the current checkout's project"},
                        "metadata": {"type": "object"}
                    },
                    "required": ["text"],
                    "additionalProperties": false
                })
            },
            handler: save_memory,
        },
        Tool {
            name: "work_state_write",
            title: "Update a to-do list or tracked state",
            description: "Your to-do lists across sessions (use it instead of a built-in to-do tool). Appends one entry to a list: \
a to-do item is fields {\"task\": \"<name>\", \"status\": \"todo\" | \"doing\" | \"done\" | \"dropped\", ...details}; \
any other fields are the list's state (latest value wins, null clears, \"status\": \"done\" closes the list). \
What is still open is shown at the start of every session in this project.",
            read_only: false,
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "list": {"type": "string", "minLength": 1, "maxLength": MAX_LIST_CHARS},
                        "fields": {"type": "object", "minProperties": 1,
                                   "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]}},
                        "project": {"type": "string"}
                    },
                    "required": ["list", "fields"],
                    "additionalProperties": false
                })
            },
            handler: work_state_write,
        },
        Tool {
            name: "work_state_read",
            title: "Read to-do lists and tracked state",
            description: "What is open in your to-do lists (all lists, or one), with how long ago each item changed; includeClosed shows done and dropped items too.",
            read_only: true,
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "list": {"type": "string"},
                        "includeClosed": {"type": "boolean", "default": false},
                        "project": {"type": "string"}
                    },
                    "additionalProperties": false
                })
            },
            handler: work_state_read,
        },
    ]
}

/// The project a write goes to: the explicit one, else the checkout's primary key; `None`
/// when cmem is switched off for it.
fn write_project(ctx: &Ctx, args: &Map<String, Value>) -> Option<String> {
    let explicit = args
        .get("project")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|p| !p.is_empty());
    let excluded = match explicit {
        Some(p) => ctx
            .settings
            .excluded_projects
            .iter()
            .any(|g| crate::project::glob_match(g.trim(), p)),
        None => crate::project::is_excluded(&ctx.cwd, &ctx.settings.excluded_projects),
    };
    (!excluded).then(|| {
        explicit
            .map(String::from)
            .unwrap_or_else(|| ctx.keys.primary.clone())
    })
}

fn save_memory(ctx: &mut Ctx, args: &Map<String, Value>) -> Result<Reply> {
    let Some(text) = args
        .get("text")
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
    else {
        return Ok(Reply::error("text is required: what should be remembered?"));
    };
    if text.chars().count() > MAX_MEMORY_CHARS {
        return Ok(Reply::error(format!(
            "text is longer than {MAX_MEMORY_CHARS} characters; save the essentials."
        )));
    }
    let obs_type = args
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("discovery");
    if crate::model::ObsType::parse(obs_type).is_none() {
        return Ok(Reply::error(format!("unknown type {obs_type:?}.")));
    }
    let Some(project) = write_project(ctx, args) else {
        return Ok(Reply::ok(
            "Not saved: cmem is switched off for this project (it matches excluded_projects).",
        ));
    };
    let narrative = crate::privacy::clean_text(text);
    if narrative.is_empty() {
        return Ok(Reply::ok("Not saved: everything in it was private."));
    }
    let title = args
        .get("title")
        .and_then(Value::as_str)
        .map(crate::privacy::clean_text)
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| clip(&one_line(narrative.lines().next().unwrap_or("")), 80));
    let strings = |name: &str| -> Vec<String> {
        match args.get(name) {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .map(crate::privacy::clean_text)
                .collect(),
            _ => Vec::new(),
        }
    };
    let new = NewObservation {
        project: project.clone(),
        body: crate::model::ObservationBody {
            obs_type: crate::model::ObsType::parse(obs_type)
                .map_or("discovery", |t| t.id())
                .into(),
            title: Some(title.clone()),
            narrative: Some(narrative),
            concepts: strings("concepts"),
            files_read: strings("files"),
            ..Default::default()
        },
        discovery_tokens: 0,
        created_at: crate::clock::now_ms(),
        source: "agent".into(),
        ..Default::default()
    };
    let conn = ctx.write_conn()?;
    Ok(match observations::insert(conn, &new)? {
        Some(id) => Reply::ok(format!("Saved memory #{id}: {title}.")),
        None => Reply::ok(format!("Already saved: {title}.")),
    })
}

fn work_state_write(ctx: &mut Ctx, args: &Map<String, Value>) -> Result<Reply> {
    let Some(list) = args
        .get("list")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|l| !l.is_empty())
    else {
        return Ok(Reply::error(
            "list is required: the name of the to-do list or tracked thing.",
        ));
    };
    if list.chars().count() > MAX_LIST_CHARS {
        return Ok(Reply::error(format!(
            "list names are at most {MAX_LIST_CHARS} characters."
        )));
    }
    let Some(fields) = args.get("fields").and_then(Value::as_object) else {
        return Ok(Reply::error(
            "fields must be an object such as {\"task\": \"write tests\", \"status\": \"todo\"}.",
        ));
    };
    if fields.is_empty() {
        return Ok(Reply::error("fields must set at least one key."));
    }
    if let Some((k, _)) = fields
        .iter()
        .find(|(_, v)| matches!(v, Value::Array(_) | Value::Object(_)))
    {
        return Ok(Reply::error(format!(
            "field {k:?} must be a string, number, boolean or null."
        )));
    }
    let mut clean = Value::Object(fields.clone());
    crate::privacy::clean_json(&mut clean);
    let clean = clean.as_object().cloned().unwrap_or_default();
    if Value::Object(clean.clone()).to_string().len() > MAX_FIELDS_JSON {
        return Ok(Reply::error(format!(
            "fields are at most {MAX_FIELDS_JSON} characters of JSON; keep details short."
        )));
    }
    let Some(project) = write_project(ctx, args) else {
        return Ok(Reply::ok(
            "Not saved: cmem is switched off for this project (it matches excluded_projects).",
        ));
    };
    let list = crate::privacy::clean_text(list);
    let now = crate::clock::now_ms();
    let conn = ctx.write_conn()?;
    work_state::append(conn, &project, &list, &clean, now, "agent")?;
    let entries = work_state::entries(conn, std::slice::from_ref(&project))?;
    let lists: Vec<_> = fold(&entries)
        .into_iter()
        .filter(|l| l.name == list)
        .collect();
    let lines = ws_view::list_lines(&lists, false, now);
    let head = format!("Saved to \"{list}\" in {project}.");
    if lines.is_empty() {
        return Ok(Reply::ok(format!("{head} Nothing in it is open now.")));
    }
    let (kept, _) = ws_view::fit_lines(head.len() + 15, &lines, ws_view::SECTION_LIMIT);
    let doc_text = Doc {
        blocks: vec![crate::view::Block {
            kind: crate::view::BlockKind::WorkState,
            lines: kept,
            lang_hint: None,
        }],
    }
    .to_plain();
    Ok(Reply::ok(format!("{head} Still open in it:\n{doc_text}")))
}

fn work_state_read(ctx: &mut Ctx, args: &Map<String, Value>) -> Result<Reply> {
    let only = args
        .get("list")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from);
    let include_closed = args
        .get("includeClosed")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let keys = ctx.read_keys(args);
    let now = crate::clock::now_ms();
    let conn = ctx.read_conn()?;
    let text = crate::view::replies::work_state(conn, &keys, only.as_deref(), include_closed, now)?;
    Ok(Reply::ok(text))
}
