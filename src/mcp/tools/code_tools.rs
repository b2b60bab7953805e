//! The code tools (`smart_outline`, `smart_unfold`, `smart_search`): `src/code/` answers,
//! confined to the server's working directory.

use anyhow::Result;
use serde_json::{Map, Value};

use super::{Ctx, Reply, Tool};
use crate::code::tools::TOOLS;

fn call(ctx: &mut Ctx, name: &str, args: &Map<String, Value>) -> Result<Reply> {
    let Some(tool) = TOOLS.iter().find(|t| t.name == name) else {
        return Ok(Reply::error(format!(
            "{name} is not available in this build."
        )));
    };
    Ok(match (tool.call)(&ctx.cwd, &Value::Object(args.clone())) {
        Ok(text) => Reply::ok(text),
        Err(e) => Reply::error(e.0),
    })
}

fn tool(name: &'static str, handler: super::Handler) -> Option<Tool> {
    TOOLS.iter().find(|t| t.name == name).map(|t| Tool {
        name: t.name,
        title: t.title,
        description: t.description,
        read_only: t.read_only,
        schema: t.input_schema,
        handler,
    })
}

pub fn tools() -> Vec<Tool> {
    [
        tool("smart_outline", |c, a| call(c, "smart_outline", a)),
        tool("smart_unfold", |c, a| call(c, "smart_unfold", a)),
        tool("smart_search", |c, a| call(c, "smart_search", a)),
    ]
    .into_iter()
    .flatten()
    .collect()
}
