//! `cmem mcp`: a synchronous MCP server on stdio (JSON-RPC 2.0, one message per line).
//!
//! stdout carries protocol only; diagnostics go to the log file. Every request gets exactly one
//! answer, notifications none; bad input is a JSON-RPC error, never a crash.

mod lifecycle;
pub mod protocol;
pub mod tools;

use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::Result;
use serde_json::{Value, json};

use protocol::*;
use tools::{Ctx, Tool};

pub struct Server {
    ctx: Ctx,
    tools: Vec<Tool>,
}

fn error_response(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(d) = data {
        error["data"] = d;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

impl Server {
    pub fn new(ctx: Ctx) -> Server {
        Server {
            ctx,
            tools: tools::registry(),
        }
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Handles one line from the client; `None` when nothing must be answered.
    pub fn handle_line(&mut self, line: &str) -> Option<Value> {
        if line.trim().is_empty() {
            return None;
        }
        let msg: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                return Some(error_response(
                    Value::Null,
                    PARSE_ERROR,
                    &format!("Parse error: {e}"),
                    None,
                ));
            }
        };
        let Some(obj) = msg.as_object() else {
            return Some(error_response(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: expected one JSON-RPC object per line (batches are not supported)",
                None,
            ));
        };
        let id = obj.get("id").cloned();
        let Some(method) = obj.get("method").and_then(Value::as_str) else {
            // A response to a request we never sent, or garbage with an id.
            return match id {
                Some(id) if !obj.contains_key("result") && !obj.contains_key("error") => Some(
                    error_response(id, INVALID_REQUEST, "Invalid request: no method", None),
                ),
                _ => None,
            };
        };
        let Some(id) = id else {
            self.notification(method);
            return None;
        };
        if !(id.is_string() || id.is_number() || id.is_null()) {
            return Some(error_response(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: id must be a string or a number",
                None,
            ));
        }
        let params = obj.get("params");
        let stateless = match stateless_check(params) {
            Ok(s) => s,
            Err((code, message, data)) => return Some(error_response(id, code, &message, data)),
        };
        let result = match self.request(method, params, stateless) {
            Ok(mut result) => {
                if stateless && let Some(map) = result.as_object_mut() {
                    map.insert("resultType".into(), json!("complete"));
                }
                return Some(json!({"jsonrpc": "2.0", "id": id, "result": result}));
            }
            Err(e) => e,
        };
        let (code, message, data) = result;
        Some(error_response(id, code, &message, data))
    }

    fn notification(&mut self, method: &str) {
        crate::logging::debug(format!("notification {method}"));
    }

    fn request(
        &mut self,
        method: &str,
        params: Option<&Value>,
        stateless: bool,
    ) -> Result<Value, (i64, String, Option<Value>)> {
        match method {
            "initialize" => {
                let requested = params
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(Value::as_str);
                Ok(initialize_result(requested))
            }
            "server/discover" => Ok(discover_result()),
            "ping" => Ok(json!({})),
            "tools/list" => {
                let mut result = json!({"tools": tools::list_json(&self.tools)});
                if stateless {
                    result["ttlMs"] = json!(3_600_000);
                    result["cacheScope"] = json!("private");
                }
                Ok(result)
            }
            "tools/call" => self.call_tool(params),
            _ => Err((
                METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
                None,
            )),
        }
    }

    fn call_tool(&mut self, params: Option<&Value>) -> Result<Value, (i64, String, Option<Value>)> {
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Err((INVALID_PARAMS, "tools/call needs params.name".into(), None));
        };
        let Some(tool) = self.tools.iter().find(|t| t.name == name) else {
            let known: Vec<&str> = self.tools.iter().map(|t| t.name).collect();
            return Err((
                INVALID_PARAMS,
                format!("Unknown tool: {name} (tools: {})", known.join(", ")),
                None,
            ));
        };
        let empty = serde_json::Map::new();
        let args = match params.and_then(|p| p.get("arguments")) {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(map)) => map,
            Some(_) => {
                return Ok(tool_result(
                    "Tool arguments must be a JSON object.".into(),
                    true,
                ));
            }
        };
        let handler = tool.handler;
        let started = std::time::Instant::now();
        let reply = handler(&mut self.ctx, args);
        crate::logging::debug(format!("tools/call {name} in {:?}", started.elapsed()));
        Ok(match reply {
            Ok(r) => tool_result(tools::cap(r.text), r.is_error),
            Err(e) => {
                crate::logging::error(format!("tool {name}: {e:#}"));
                tool_result(format!("Tool execution failed: {e:#}"), true)
            }
        })
    }
}

fn tool_result(text: String, is_error: bool) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": is_error})
}

/// Runs the server until stdin closes or the process is told to stop.
pub fn serve() -> Result<ExitCode> {
    lifecycle::install_signal_handlers();
    lifecycle::watch_parent();
    let mut problems = Vec::new();
    let settings = crate::config::load_lenient(&mut |m| problems.push(m));
    crate::logging::init(
        &settings.data_dir(),
        crate::logging::Level::parse(&settings.log_level),
        "mcp",
    );
    for p in problems {
        crate::logging::error(format!("config: {p}"));
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let keys = match std::env::var("CMEM_PROJECT")
        .ok()
        .filter(|p| !p.trim().is_empty())
    {
        Some(p) => crate::project::ProjectKeys::named(p.trim()),
        None => crate::project::resolve(&cwd),
    };
    crate::logging::info(format!(
        "serving {} from {}",
        keys.all.join(","),
        cwd.display()
    ));
    let mut server = Server::new(Ctx::new(settings, keys, cwd)?);
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut buf = Vec::new();
    let mut input = stdin.lock();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                crate::logging::error(format!("cannot read stdin: {e}"));
                break;
            }
        }
        let line = String::from_utf8_lossy(&buf);
        if let Some(answer) = server.handle_line(&line) {
            let mut text = answer.to_string();
            text.push('\n');
            if stdout
                .write_all(text.as_bytes())
                .and_then(|_| stdout.flush())
                .is_err()
            {
                break;
            }
        }
    }
    crate::logging::info("stdin closed; exiting");
    Ok(ExitCode::SUCCESS)
}
