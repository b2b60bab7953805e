//! The smart tools as the MCP server and the CLI serve them: argument validation, workspace
//! confinement, and the exact reply text (rendered through `view::code`).
//!
//! The MCP registry registers each entry of `TOOLS` (name, description, input schema,
//! read-only) and calls `call(workspace_root, arguments)`: `Ok(text)` is the tool result,
//! `Err(e)` a tool error (`isError: true`) whose message says what to fix.

use std::fmt;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::Lang;
use super::confine::{Reach, resolve, resolve_file};
use super::outline::{Outline, Unfold, near_names, outline, unfold};
use super::search::{Query, search};
use crate::view;

/// A reply is at most this long (reference §5); longer ones are cut at a line and say so.
pub const MAX_REPLY_BYTES: usize = 32 * 1024;
/// Files larger than this are not outlined (tree-sitter handles them, but the reply would not
/// fit and the agent should narrow down instead).
pub const MAX_OUTLINE_FILE_BYTES: u64 = 8 * 1024 * 1024;
pub const DEFAULT_MAX_RESULTS: usize = 20;
pub const MAX_MAX_RESULTS: usize = 100;

/// A tool failure the agent can act on (bad arguments, path outside the workspace, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError(pub String);

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolError {}

impl From<super::confine::PathError> for ToolError {
    fn from(e: super::confine::PathError) -> Self {
        ToolError(e.to_string())
    }
}

/// One tool, as the MCP registry needs it.
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: fn() -> Value,
    /// Every smart tool only reads (`annotations.readOnlyHint: true`).
    pub read_only: bool,
    pub call: fn(&Path, &Value) -> Result<String, ToolError>,
}

pub const TOOLS: [Tool; 3] = [
    Tool {
        name: "smart_outline",
        title: "Outline a source file",
        description: "Folded structural view of one source file, parsed with tree-sitter: imports, then every function, class, struct, method, constant… with its line range, signature and first doc line, nested as in the file. Much cheaper than reading the file; use it before smart_unfold or a Read with offset/limit. Paths are relative to the workspace (absolute paths must lie inside it).",
        input_schema: smart_outline_schema,
        read_only: true,
        call: smart_outline,
    },
    Tool {
        name: "smart_unfold",
        title: "Source of one symbol",
        description: "The source of one symbol (function, method, class, …) of a file, with its doc comments and decorators, headed by its line range. symbol_name may be qualified (Store::open, Store.open). When the symbol is not there, the reply lists the symbols that are.",
        input_schema: smart_unfold_schema,
        read_only: true,
        call: smart_unfold,
    },
    Tool {
        name: "smart_search",
        title: "Search symbols",
        description: "Finds functions, classes, methods and other symbols whose names match the query across the source files under a path (default: the whole workspace; files up to 512 KiB; dependency and build directories skipped). Shows each match with file:line, signature and doc line, plus folded views of the files.",
        input_schema: smart_search_schema,
        read_only: true,
        call: smart_search,
    },
];

pub fn smart_outline_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1, "description": "The source file, relative to the workspace or absolute inside it"}
        },
        "required": ["file_path"],
        "additionalProperties": false
    })
}

pub fn smart_unfold_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1, "description": "The source file, relative to the workspace or absolute inside it"},
            "symbol_name": {"type": "string", "minLength": 1, "description": "The symbol's name as smart_outline shows it, optionally qualified (Store::open or Store.open)"}
        },
        "required": ["file_path", "symbol_name"],
        "additionalProperties": false
    })
}

pub fn smart_search_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "Part of a symbol name; several words must all match"},
            "path": {"type": "string", "description": "Directory or file to search, inside the workspace (default: the workspace)"},
            "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_MAX_RESULTS, "default": DEFAULT_MAX_RESULTS, "description": "How many matches to show"},
            "file_pattern": {"type": "string", "description": "Only files whose path matches this glob (*.rs, src/**/*.ts) or contains this text"}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

/// Checks the arguments against the tool's properties: an object, no unknown keys.
fn object<'a>(args: &'a Value, allowed: &[&str]) -> Result<&'a Map<String, Value>, ToolError> {
    let Some(map) = args.as_object() else {
        return Err(ToolError(format!(
            "Arguments must be a JSON object with {}.",
            allowed.join(", ")
        )));
    };
    if let Some(unknown) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(ToolError(format!(
            "Unknown argument \"{unknown}\"; this tool takes {}.",
            allowed.join(", ")
        )));
    }
    Ok(map)
}

fn required_str<'a>(map: &'a Map<String, Value>, key: &str) -> Result<&'a str, ToolError> {
    match map.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
        Some(Value::String(_)) => Err(ToolError(format!("\"{key}\" must not be empty."))),
        Some(_) => Err(ToolError(format!("\"{key}\" must be a string."))),
        None => Err(ToolError(format!("Missing required argument \"{key}\"."))),
    }
}

fn optional_str<'a>(map: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, ToolError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ToolError(format!("\"{key}\" must be a string."))),
    }
}

/// Reads a source file of a known language that `reach` allows.
fn read_source(
    root: &Path,
    file_path: &str,
    reach: Reach,
) -> Result<(String, Lang, String), ToolError> {
    let file = resolve_file(root, file_path, reach)?;
    let Some(lang) = Lang::from_path(&file.real) else {
        return Err(ToolError(format!(
            "Could not parse {}. The file may use an unsupported language or be empty (cmem knows: {}).",
            file.display,
            Lang::ALL.map(Lang::name).join(", ")
        )));
    };
    let size = std::fs::metadata(&file.real).map(|m| m.len()).unwrap_or(0);
    if size > MAX_OUTLINE_FILE_BYTES {
        return Err(ToolError(format!(
            "{} is {size} bytes, more than cmem outlines ({MAX_OUTLINE_FILE_BYTES}); Read it with offset and limit instead.",
            file.display
        )));
    }
    let bytes = std::fs::read(&file.real)
        .map_err(|e| ToolError(format!("Cannot read {}: {e}.", file.display)))?;
    let source = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok((file.display, lang, source))
}

pub fn smart_outline(root: &Path, args: &Value) -> Result<String, ToolError> {
    let (display, parsed) = outline_call(root, args, Reach::Workspace)?;
    Ok(match parsed {
        Some(o) => outline_text(&o),
        None => view::code::parse_failure(&display).to_plain(),
    })
}

/// `cmem outline`: any file the user can read; a file that cannot be parsed is an error.
pub fn cli_outline(root: &Path, args: &Value) -> Result<String, ToolError> {
    match outline_call(root, args, Reach::Anywhere)? {
        (_, Some(o)) => Ok(outline_text(&o)),
        (display, None) => Err(ToolError(view::code::parse_failure(&display).to_plain())),
    }
}

fn outline_call(
    root: &Path,
    args: &Value,
    reach: Reach,
) -> Result<(String, Option<Outline>), ToolError> {
    let map = object(args, &["file_path"])?;
    let (display, lang, source) = read_source(root, required_str(map, "file_path")?, reach)?;
    let parsed = outline(&display, lang, &source);
    Ok((display, parsed))
}

/// The outline in the densest form it needs to fit one reply (a big file's symbols fold to
/// one line each, then to a packed list); cut only if even that does not fit.
fn outline_text(o: &Outline) -> String {
    fit(
        view::code::outline_fitting(o, MAX_REPLY_BYTES).to_plain(),
        "outline",
    )
}

pub fn smart_unfold(root: &Path, args: &Value) -> Result<String, ToolError> {
    let (display, parsed) = unfold_call(root, args, Reach::Workspace)?;
    Ok(match parsed {
        Some(u) => fit(view::code::unfold(&u).to_plain(), "source"),
        None => view::code::parse_failure(&display).to_plain(),
    })
}

/// `cmem unfold`: any file the user can read; a missing symbol is an error that names the
/// nearest ones (the agent's tool answers with the whole list instead).
pub fn cli_unfold(root: &Path, args: &Value) -> Result<String, ToolError> {
    match unfold_call(root, args, Reach::Anywhere)? {
        (display, None) => Err(ToolError(view::code::parse_failure(&display).to_plain())),
        (
            _,
            Some(Unfold::NotFound {
                path,
                symbol,
                available,
            }),
        ) => {
            let near: Vec<String> = near_names(&available, &symbol, 5)
                .iter()
                .map(|a| format!("{} (L{})", a.name, a.start_line))
                .collect();
            let count = available.len();
            let all = format!(
                "`cmem outline {path}` lists all {count} symbol{}",
                if count == 1 { "" } else { "s" }
            );
            Err(ToolError(match (count, near.is_empty()) {
                (0, _) => format!(
                    "no symbol \"{symbol}\" in {path}: the file defines no symbols cmem can list."
                ),
                (_, true) => format!("no symbol \"{symbol}\" in {path}; {all}."),
                (_, false) => format!(
                    "no symbol \"{symbol}\" in {path}. Near names: {}; {all}.",
                    near.join(", ")
                ),
            }))
        }
        (_, Some(u)) => Ok(fit(view::code::unfold(&u).to_plain(), "source")),
    }
}

fn unfold_call(
    root: &Path,
    args: &Value,
    reach: Reach,
) -> Result<(String, Option<Unfold>), ToolError> {
    let map = object(args, &["file_path", "symbol_name"])?;
    let file_path = required_str(map, "file_path")?;
    let symbol = required_str(map, "symbol_name")?;
    let (display, lang, source) = read_source(root, file_path, reach)?;
    let parsed = outline(&display, lang, &source).map(|o| unfold(&o, &source, symbol));
    Ok((display, parsed))
}

/// `cmem symbols`: under any directory the user can read.
pub fn cli_search(root: &Path, args: &Value) -> Result<String, ToolError> {
    search_call(root, args, Reach::Anywhere)
}

pub fn smart_search(root: &Path, args: &Value) -> Result<String, ToolError> {
    search_call(root, args, Reach::Workspace)
}

fn search_call(root: &Path, args: &Value, reach: Reach) -> Result<String, ToolError> {
    let map = object(args, &["query", "path", "max_results", "file_pattern"])?;
    let query = required_str(map, "query")?;
    let max_results = match map.get("max_results") {
        None | Some(Value::Null) => DEFAULT_MAX_RESULTS,
        Some(v) => match v.as_u64() {
            Some(n) if (1..=MAX_MAX_RESULTS as u64).contains(&n) => n as usize,
            _ => {
                return Err(ToolError(format!(
                    "\"max_results\" must be a whole number from 1 to {MAX_MAX_RESULTS}."
                )));
            }
        },
    };
    let path = optional_str(map, "path")?.unwrap_or(".");
    let dir = resolve(root, path, reach)?;
    let result = search(
        &dir.real,
        &dir.display,
        &Query {
            text: query.to_string(),
            max_results,
            file_pattern: optional_str(map, "file_pattern")?.map(String::from),
        },
    );
    Ok(fit(view::code::search(&result).to_plain(), "search result"))
}

/// Cuts a reply longer than `MAX_REPLY_BYTES` at a line boundary, with a note.
fn fit(text: String, what: &str) -> String {
    if text.len() <= MAX_REPLY_BYTES {
        return text;
    }
    let note = format!(
        "\n… (this {what} was shortened to fit {} KiB; narrow it down: a smaller path, a more specific name, or Read with offset and limit)",
        MAX_REPLY_BYTES / 1024
    );
    let budget = MAX_REPLY_BYTES - note.len();
    let mut cut = budget;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = text[..cut].rfind('\n').unwrap_or(cut);
    format!("{}{note}", &text[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_messages() {
        let root = tempfile::tempdir().unwrap();
        let err = smart_outline(root.path(), &json!({})).unwrap_err();
        assert_eq!(err.0, "Missing required argument \"file_path\".");
        let err = smart_outline(root.path(), &json!({"file_path": 3})).unwrap_err();
        assert!(err.0.contains("must be a string"), "{err}");
        let err = smart_outline(root.path(), &json!({"file_path": "a.rs", "x": 1})).unwrap_err();
        assert!(err.0.contains("Unknown argument \"x\""), "{err}");
        let err = smart_search(root.path(), &json!({"query": "a", "max_results": 0})).unwrap_err();
        assert!(err.0.contains("max_results"), "{err}");
        let err = smart_outline(root.path(), &json!("a.rs")).unwrap_err();
        assert!(err.0.contains("JSON object"), "{err}");
    }

    #[test]
    fn long_replies_are_cut_at_a_line() {
        let text = "line of text\n".repeat(5000);
        let out = fit(text, "outline");
        assert!(out.len() <= MAX_REPLY_BYTES);
        assert!(out.contains("\nline of text\n… (this outline was shortened"));
    }

    #[test]
    fn schemas_require_what_the_handlers_require() {
        for t in TOOLS {
            let schema = (t.input_schema)();
            assert_eq!(schema["additionalProperties"], json!(false), "{}", t.name);
            assert!(schema["required"].as_array().is_some_and(|r| !r.is_empty()));
        }
    }
}
