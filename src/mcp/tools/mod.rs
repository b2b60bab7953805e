//! The tool registry: one table of (name, description, schema, annotations, handler) that
//! drives both `tools/list` and `tools/call`.

pub mod code;
mod memory;
mod search_tool;
mod writes;

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use rusqlite::Connection;
use serde_json::{Map, Value, json};

use crate::config::Settings;
use crate::disclosure::Engine;
use crate::project::ProjectKeys;
use crate::store::Store;
use crate::view::time::Tz;

/// What tool handlers share for the life of the server.
pub(crate) struct Ctx {
    pub settings: Settings,
    pub keys: ProjectKeys,
    pub cwd: PathBuf,
    pub tz: Tz,
    pub engine: Engine,
    /// Whether searches rank by meaning too (`[search] semantic`); the model loads on the
    /// first search that needs it.
    pub meaning: crate::store::meaning::Meaning,
    store: Option<Store>,
}

impl Ctx {
    pub(crate) fn new(settings: Settings, keys: ProjectKeys, cwd: PathBuf) -> Result<Ctx> {
        let tz = Tz::from_setting(&settings.context.timezone)?;
        let meaning =
            crate::store::meaning::Meaning::when(settings.search.semantic, settings.data_dir());
        let engine = Engine::new(keys.all.clone(), meaning.clone())?;
        Ok(Ctx {
            settings,
            keys,
            cwd,
            tz,
            engine,
            meaning,
            store: None,
        })
    }

    /// The database for reading, or `None` when nothing has been recorded yet.
    pub(crate) fn read_conn(&mut self) -> Result<Option<&Connection>> {
        if self.store.is_none() {
            let path = self.settings.db_path();
            if !path.exists() {
                return Ok(None);
            }
            self.store = Some(Store::open(&path)?);
        }
        Ok(self.store.as_ref().map(|s| &s.conn))
    }

    /// The database for writing (created on first use).
    pub(crate) fn write_conn(&mut self) -> Result<&Connection> {
        if self.store.is_none() {
            self.store = Some(Store::open(&self.settings.db_path())?);
        }
        self.store
            .as_ref()
            .map(|s| &s.conn)
            .context("the database is not open")
    }

    /// Runs one mem_search call against the database (if any). A database that cannot be
    /// opened is a retrieval failure of the search, not a crash of the tool.
    pub(crate) fn mem_search(&mut self, args: &Value, now: i64) -> crate::disclosure::Outcome {
        if let Err(e) = self.read_conn() {
            crate::logging::error(format!("mem_search: {e:#}"));
            return Err(crate::disclosure::SearchError {
                code: "retrieval_failed",
                message: "Memory retrieval failed; retry.".into(),
            });
        }
        let conn = self.store.as_ref().map(|s| &s.conn);
        self.engine.call(conn, args, now)
    }

    /// The projects a call reads: the explicit `project` argument, else the checkout's keys.
    pub(crate) fn read_keys(&self, args: &Map<String, Value>) -> Vec<String> {
        match args
            .get("project")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            Some(p) => vec![p.to_string()],
            None => self.keys.all.clone(),
        }
    }
}

/// A tool's reply: the text, and whether it reports a failure.
pub(crate) struct Reply {
    pub text: String,
    pub is_error: bool,
}

impl Reply {
    pub(crate) fn ok(text: impl Into<String>) -> Reply {
        Reply {
            text: text.into(),
            is_error: false,
        }
    }

    pub(crate) fn error(text: impl Into<String>) -> Reply {
        Reply {
            text: text.into(),
            is_error: true,
        }
    }
}

pub(super) type Handler = fn(&mut Ctx, &Map<String, Value>) -> Result<Reply>;

pub(crate) struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub read_only: bool,
    pub schema: fn() -> Value,
    pub handler: Handler,
}

pub(crate) fn registry() -> Vec<Tool> {
    let mut tools = vec![search_tool::mem_search()];
    tools.extend(memory::tools());
    tools.extend(writes::tools());
    tools.extend(code::tools());
    tools
}

pub(crate) fn list_json(tools: &[Tool]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "title": t.title,
                    "description": t.description,
                    "inputSchema": (t.schema)(),
                    "annotations": {
                        "title": t.title,
                        "readOnlyHint": t.read_only,
                        "destructiveHint": false,
                        "openWorldHint": false,
                    },
                })
            })
            .collect(),
    )
}

/// Reads an optional integer argument within bounds (a clear error otherwise).
pub(crate) fn int_arg(
    args: &Map<String, Value>,
    name: &str,
    default: i64,
    min: i64,
    max: i64,
) -> Result<i64, String> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => match v
            .as_i64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        {
            Some(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(format!(
                "{name} must be a whole number from {min} to {max}."
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The hook skips calls to cmem's memory tools by `names::MEMORY_TOOLS`; a tool registered
    /// here and missing there would be captured as if it were work.
    #[test]
    fn every_memory_tool_is_in_the_list_the_hook_skips() {
        let code: BTreeSet<&str> = code::TOOLS.iter().map(|t| t.name).collect();
        let registered: BTreeSet<&str> = registry()
            .iter()
            .map(|t| t.name)
            .filter(|n| !code.contains(n))
            .collect();
        let listed: BTreeSet<&str> = crate::names::MEMORY_TOOLS.into_iter().collect();
        assert_eq!(registered, listed, "update names::MEMORY_TOOLS");
        assert!(code.iter().all(|n| !listed.contains(n)));
    }
}
