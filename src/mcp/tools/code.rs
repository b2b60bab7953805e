//! The code tools (`smart_outline`, `smart_unfold`, `smart_search`) as the MCP server serves
//! them: name, description, input schema, and a call that asks `code::request` (confined to the
//! server's working directory) and renders the answer with `view::code`, the same functions
//! `cmem outline`, `cmem unfold` and `cmem symbols` use.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use serde_json::{Map, Value, json};

use super::{Ctx, Reply, Tool};
pub use crate::code::request::ToolError;
use crate::code::request::{
    DEFAULT_MAX_RESULTS, MAX_MAX_RESULTS, Reach, outline_file, search_symbols, unfold_symbol,
};
use crate::view;

/// How long one parse may take in the code tools: the agent waits for the answer, and a file
/// that takes longer is better read in parts.
const PARSE_BUDGET: Duration = crate::code::parse::DEFAULT_BUDGET;

/// One code tool: what `tools/list` shows and the call behind it (`Ok(text)` is the tool
/// result, `Err(e)` a tool error, `isError: true`, whose message says what to fix).
pub struct CodeTool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: fn() -> Value,
    /// Every code tool only reads (`annotations.readOnlyHint: true`).
    pub read_only: bool,
    pub call: fn(&Path, &Value) -> Result<String, ToolError>,
}

pub const TOOLS: [CodeTool; 3] = [
    CodeTool {
        name: "smart_outline",
        title: "Outline a source file",
        description: "Folded structural view of one source file, parsed with tree-sitter: imports, then every function, class, struct, method, constant… with its line range, signature and first doc line, nested as in the file. Much cheaper than reading the file; use it before smart_unfold or a Read with offset/limit. Paths are relative to the workspace (absolute paths must lie inside it).",
        input_schema: smart_outline_schema,
        read_only: true,
        call: smart_outline,
    },
    CodeTool {
        name: "smart_unfold",
        title: "Source of one symbol",
        description: "The source of one symbol (function, method, class, …) of a file, with its doc comments and decorators, headed by its line range. symbol_name may be qualified (Store::open, Store.open). When the symbol is not there, the reply lists the symbols that are.",
        input_schema: smart_unfold_schema,
        read_only: true,
        call: smart_unfold,
    },
    CodeTool {
        name: "smart_search",
        title: "Search symbols",
        description: "Finds functions, classes, methods and other symbols whose names match the query across the source files under a path (default: the whole workspace; files up to 512 KiB; dependency and build directories skipped). Shows each match with file:line, signature and doc line, plus folded views of the files.",
        input_schema: smart_search_schema,
        read_only: true,
        call: smart_search,
    },
];

pub(crate) fn smart_outline_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1, "description": "The source file, relative to the workspace or absolute inside it"}
        },
        "required": ["file_path"],
        "additionalProperties": false
    })
}

pub(crate) fn smart_unfold_schema() -> Value {
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

pub(crate) fn smart_search_schema() -> Value {
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

pub fn smart_outline(root: &Path, args: &Value) -> Result<String, ToolError> {
    let outlined = outline_file(root, args, Reach::Workspace, PARSE_BUDGET)?;
    Ok(match outlined {
        (_, Some(o)) => view::code::outline_reply(&o),
        (display, None) => view::code::parse_failure(&display, PARSE_BUDGET).to_plain(),
    })
}

pub fn smart_unfold(root: &Path, args: &Value) -> Result<String, ToolError> {
    let unfolded = unfold_symbol(root, args, Reach::Workspace, PARSE_BUDGET)?;
    Ok(match unfolded {
        (_, Some(u)) => view::code::unfold_reply(&u),
        (display, None) => view::code::parse_failure(&display, PARSE_BUDGET).to_plain(),
    })
}

pub(crate) fn smart_search(root: &Path, args: &Value) -> Result<String, ToolError> {
    search_symbols(root, args, Reach::Workspace, PARSE_BUDGET).map(|r| view::code::search_reply(&r))
}

/// The registry handler of `TOOLS[I]`: the tool runs in the server's working directory.
fn handler<const I: usize>(ctx: &mut Ctx, args: &Map<String, Value>) -> Result<Reply> {
    Ok(
        match (TOOLS[I].call)(&ctx.cwd, &Value::Object(args.clone())) {
            Ok(text) => Reply::ok(text),
            Err(e) => Reply::error(e.0),
        },
    )
}

/// The registry's entries, one per `TOOLS` entry.
pub(crate) fn tools() -> Vec<Tool> {
    let handlers: [super::Handler; TOOLS.len()] = [handler::<0>, handler::<1>, handler::<2>];
    TOOLS
        .iter()
        .zip(handlers)
        .map(|(t, handler)| Tool {
            name: t.name,
            title: t.title,
            description: t.description,
            read_only: t.read_only,
            schema: t.input_schema,
            handler,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_require_what_the_handlers_require() {
        for t in TOOLS {
            let schema = (t.input_schema)();
            assert_eq!(schema["additionalProperties"], json!(false), "{}", t.name);
            assert!(schema["required"].as_array().is_some_and(|r| !r.is_empty()));
        }
    }

    #[test]
    fn each_entry_calls_its_own_tool() {
        let root = tempfile::tempdir().unwrap();
        for t in TOOLS {
            let err = (t.call)(root.path(), &json!({"nope": 1})).unwrap_err();
            let schema = (t.input_schema)();
            let first = schema["required"][0].as_str().unwrap();
            assert!(err.0.contains(first), "{}: {err}", t.name);
        }
    }
}
