//! `mem_search`: the progressive search, the preferred way to search memory.

use anyhow::Result;
use serde_json::{Map, Value, json};

use super::{Ctx, Reply, Tool};

pub(crate) fn mem_search() -> Tool {
    Tool {
        name: "mem_search",
        title: "Search memory (progressive)",
        description: "Search this project's memory of past work in three steps, so you read only what your task needs. \
Step 1: call with a query to get an index of matching records (IDs and titles only). \
Step 2: call again with the continuation and up to maxDetails selectedIds from that index to see the records around them. \
Step 3: call again with the new continuation and selectedIds from that context to read their full details. \
Stop as soon as you know enough; selectedIds [] ends a search. mode \"auto\" runs all three steps in one call when you only need the best match. \
IDs: 12 = observation, S3 = session summary, P7 = prompt (prompts are context only).",
        read_only: true,
        schema: || {
            json!({
                "type": "object",
                "properties": {
                    "mode": {"type": "string", "enum": ["guided", "auto"], "default": "guided",
                             "description": "guided: one step per call (default); auto: index → context → details in one call"},
                    "query": {"type": "string", "minLength": 1, "maxLength": 500,
                              "description": "What to look for; needed to start a search"},
                    "project": {"type": "string", "maxLength": 256, "description": "Search this project key instead of the current checkout's"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 20, "description": "Index size"},
                    "maxDetails": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3, "description": "How many IDs may be selected per step"},
                    "depthBefore": {"type": "integer", "minimum": 0, "maximum": 3, "default": 2, "description": "Older records shown around each selected ID"},
                    "depthAfter": {"type": "integer", "minimum": 0, "maximum": 3, "default": 2, "description": "Newer records shown around each selected ID"},
                    "continuation": {"type": "string", "pattern": "^ms_[A-Za-z0-9_-]{24}$",
                                     "description": "The cursor from the previous step's \"Continue with:\" line"},
                    "selectedIds": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                                    "description": "IDs chosen from the previous step (at most maxDetails); [] ends the search"}
                },
                "additionalProperties": false
            })
        },
        handler: call,
    }
}

fn call(ctx: &mut Ctx, args: &Map<String, Value>) -> Result<Reply> {
    let now = crate::clock::now_ms();
    Ok(match ctx.mem_search(&Value::Object(args.clone()), now) {
        Ok(reply) => Reply::ok(crate::view::search::render(&reply).to_plain()),
        Err(e) => Reply::error(crate::view::search::error(e.code, &e.message).to_plain()),
    })
}
