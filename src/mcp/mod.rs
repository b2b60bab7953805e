//! `cmem mcp`: a synchronous MCP server on stdio (JSON-RPC 2.0, one message per line).
//!
//! stdout carries protocol only; diagnostics go to the log file. Every request gets exactly one
//! answer, notifications none; bad input is a JSON-RPC error, never a crash. Lines are read
//! with a cap (`line`), a line the strict parse refuses still yields its id (`recover`), and
//! replies become bytes in one place only (`wire`).

mod lifecycle;
pub mod line;
pub mod protocol;
mod recover;
pub mod tools;
pub mod wire;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::{Value, json};

use protocol::*;
use tools::{Ctx, Tool};
use wire::{Answer, Id};

pub(crate) struct Server {
    ctx: Ctx,
    tools: Vec<Tool>,
}

fn error(code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(d) = data {
        error["data"] = d;
    }
    error
}

/// serde_json's message, and what the client can do about the two limits it may hit.
fn parse_error_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let hint = if text.starts_with("recursion limit exceeded") {
        " (cmem reads JSON nested up to 128 levels deep)"
    } else if text.starts_with("number out of range") {
        " (numbers must fit a 64-bit float)"
    } else {
        ""
    };
    format!("Parse error: {text}{hint}")
}

fn error_answer(id: Id, code: i64, message: &str, data: Option<Value>) -> Answer {
    Answer {
        id,
        outcome: Err(error(code, message, data)),
    }
}

impl Server {
    pub(crate) fn new(ctx: Ctx) -> Server {
        Server {
            ctx,
            tools: tools::registry(),
        }
    }

    /// Handles one line from the client; `None` when nothing must be answered.
    pub(crate) fn handle_line(&mut self, line: &str) -> Option<Answer> {
        if line.trim().is_empty() {
            return None;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(msg) => {
                // A number id that is not a whole 64-bit integer (1.5e3, -0, 40 digits) was
                // read as a float; it goes back as the exact text sent, for the client to match.
                let raw_id = msg
                    .get("id")
                    .filter(|id| id.is_f64())
                    .and_then(|_| recover::find_id(line))
                    .map(|r| Id::Raw(line[r].to_string()));
                self.handle_message(msg, raw_id)
            }
            Err(_) => self.handle_broken(line),
        }
    }

    /// A line the strict parse refused. Served all the same when a lone surrogate escape was
    /// its only fault (the surrogate becomes U+FFFD); otherwise a parse error, for the request's
    /// id whenever the line holds one (found by a scan that survives any depth and number).
    fn handle_broken(&mut self, line: &str) -> Option<Answer> {
        let id_range = recover::find_id(line);
        let raw_id = id_range.clone().map(|r| Id::Raw(line[r].to_string()));
        let mut repaired = line.as_bytes().to_vec();
        crate::jsonfix::fix_lone_surrogates(&mut repaired);
        if let Some(r) = id_range {
            // The id goes back as it was sent; a stand-in of the same length lets the rest be
            // parsed and keeps the error's column right.
            repaired[r.start] = b'0';
            repaired[r.start + 1..r.end].fill(b' ');
        }
        match serde_json::from_slice(&repaired) {
            Ok(msg) => self.handle_message(msg, raw_id),
            Err(e) => Some(error_answer(
                raw_id.unwrap_or(Id::NULL),
                PARSE_ERROR,
                &parse_error_message(&e),
                None,
            )),
        }
    }

    /// A line longer than [`line::MAX_LINE_BYTES`]: refused, for its id if the kept start
    /// of the line shows one.
    pub(crate) fn too_long(&mut self, prefix: &str, bytes: u64) -> Answer {
        let id = recover::find_id(prefix).map_or(Id::NULL, |r| Id::Raw(prefix[r].to_string()));
        crate::logging::error(format!("refused a request line of {bytes} bytes"));
        error_answer(
            id,
            INVALID_REQUEST,
            &format!(
                "Request too large: the line has {bytes} bytes and cmem reads lines of up to {} bytes (8 MiB)",
                line::MAX_LINE_BYTES
            ),
            None,
        )
    }

    /// One parsed message; `raw_id` is the id as sent when the line needed repair to parse.
    fn handle_message(&mut self, msg: Value, raw_id: Option<Id>) -> Option<Answer> {
        let Some(obj) = msg.as_object() else {
            return Some(error_answer(
                Id::NULL,
                INVALID_REQUEST,
                "Invalid request: expected one JSON-RPC object per line (batches are not supported)",
                None,
            ));
        };
        let id = obj.get("id").cloned();
        let Some(method) = obj.get("method").and_then(Value::as_str) else {
            // A response (to a request we never sent) gets no answer; anything else without a
            // method is an invalid request, answered with id null when it has none (JSON-RPC 2.0).
            if obj.contains_key("result") || obj.contains_key("error") {
                return None;
            }
            let id = match id {
                Some(id) => raw_id.unwrap_or(Id::Value(id)),
                None => Id::NULL,
            };
            return Some(error_answer(
                id,
                INVALID_REQUEST,
                "Invalid request: no method",
                None,
            ));
        };
        let Some(id) = id else {
            self.notification(method);
            return None;
        };
        if !(id.is_string() || id.is_number() || id.is_null()) {
            return Some(error_answer(
                Id::NULL,
                INVALID_REQUEST,
                "Invalid request: id must be a string or a number",
                None,
            ));
        }
        let id = raw_id.unwrap_or(Id::Value(id));
        let params = obj.get("params");
        let stateless = match stateless_check(params) {
            Ok(s) => s,
            Err((code, message, data)) => return Some(error_answer(id, code, &message, data)),
        };
        let outcome = match self.request(method, params, stateless) {
            Ok(mut result) => {
                if stateless && let Some(map) = result.as_object_mut() {
                    map.insert("resultType".into(), json!("complete"));
                }
                Ok(result)
            }
            Err((code, message, data)) => Err(error(code, &message, data)),
        };
        Some(Answer { id, outcome })
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
            Ok(r) => tool_result(crate::view::replies::cap(r.text), r.is_error),
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
pub(crate) fn serve() -> Result<ExitCode> {
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
        let answer = match line::read_line(&mut input, &mut buf, line::MAX_LINE_BYTES) {
            Ok(line::Read::Eof) => break,
            Ok(line::Read::Line) => server.handle_line(&String::from_utf8_lossy(&buf)),
            Ok(line::Read::TooLong { bytes }) => {
                Some(server.too_long(&String::from_utf8_lossy(&buf), bytes))
            }
            Err(e) => {
                crate::logging::error(format!("cannot read stdin: {e}"));
                break;
            }
        };
        if let Some(answer) = answer {
            let text = wire::encode(&answer);
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
