//! What the smart tools and their command-line twins ask of code intelligence: the arguments
//! checked, a path confined to what the caller may read (`Reach`), a source file read and
//! parsed, one symbol unfolded, a symbol search. It returns data: `view::code` renders it, and
//! `mcp::tools::code` (the agent's tools) and `cli::code` (`cmem outline`, …) serve it.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use super::Lang;
pub(crate) use super::confine::Reach;
use super::confine::{resolve, resolve_file};
use super::outline::{Outline, Unfold, outline, unfold};
use super::search::{Query, SearchResult, search};

/// Files larger than this are not outlined (tree-sitter handles them, but the reply would not
/// fit and the agent should narrow down instead).
pub(crate) const MAX_OUTLINE_FILE_BYTES: u64 = 8 * 1024 * 1024;
pub(crate) const DEFAULT_MAX_RESULTS: usize = 20;
pub(crate) const MAX_MAX_RESULTS: usize = 100;

/// A failure the caller can act on (bad arguments, a path outside the workspace, …): the
/// agent's tool error, or the CLI's message.
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

/// The file `args.file_path` names, parsed: its display path and its outline (`None` when it
/// cannot be parsed within `budget`).
pub(crate) fn outline_file(
    root: &Path,
    args: &Value,
    reach: Reach,
    budget: Duration,
) -> Result<(String, Option<Outline>), ToolError> {
    let map = object(args, &["file_path"])?;
    let (display, lang, source) = read_source(root, required_str(map, "file_path")?, reach)?;
    let parsed = outline(&display, lang, &source, budget);
    Ok((display, parsed))
}

/// The symbol `args.symbol_name` of the file `args.file_path`: its display path and the
/// unfolded source or the symbols there are (`None` when the file cannot be parsed within
/// `budget`).
pub(crate) fn unfold_symbol(
    root: &Path,
    args: &Value,
    reach: Reach,
    budget: Duration,
) -> Result<(String, Option<Unfold>), ToolError> {
    let map = object(args, &["file_path", "symbol_name"])?;
    let file_path = required_str(map, "file_path")?;
    let symbol = required_str(map, "symbol_name")?;
    let (display, lang, source) = read_source(root, file_path, reach)?;
    let parsed = outline(&display, lang, &source, budget).map(|o| unfold(&o, &source, symbol));
    Ok((display, parsed))
}

/// The symbols matching `args.query` under `args.path` (default: `root`), each file's parse
/// within `budget`.
pub(crate) fn search_symbols(
    root: &Path,
    args: &Value,
    reach: Reach,
    budget: Duration,
) -> Result<SearchResult, ToolError> {
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
    Ok(search(
        &dir.real,
        &dir.display,
        &Query {
            text: query.to_string(),
            max_results,
            file_pattern: optional_str(map, "file_pattern")?.map(String::from),
        },
        budget,
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::parse::DEFAULT_BUDGET;
    use super::*;

    #[test]
    fn validation_messages() {
        let root = tempfile::tempdir().unwrap();
        let ws = Reach::Workspace;
        let outline = |args| outline_file(root.path(), &args, ws, DEFAULT_BUDGET).unwrap_err();
        let err = outline(json!({}));
        assert_eq!(err.0, "Missing required argument \"file_path\".");
        let err = outline(json!({"file_path": 3}));
        assert!(err.0.contains("must be a string"), "{err}");
        let err = outline(json!({"file_path": "a.rs", "x": 1}));
        assert!(err.0.contains("Unknown argument \"x\""), "{err}");
        let args = json!({"query": "a", "max_results": 0});
        let err = search_symbols(root.path(), &args, ws, DEFAULT_BUDGET).unwrap_err();
        assert!(err.0.contains("max_results"), "{err}");
        let err = outline(json!("a.rs"));
        assert!(err.0.contains("JSON object"), "{err}");
    }
}
