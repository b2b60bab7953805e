//! Names other programs see and match on: the MCP server's name and the names of cmem's
//! memory tools. Core, so the hook (which skips its own tools' calls) needs no registry and
//! the MCP registry is checked against the same list (`mcp::tools`'s unit test).

/// The server name `cmem install` registers; tools appear to agents as `mcp__cmem__<tool>`.
pub(crate) const MCP_SERVER_NAME: &str = "cmem";

/// cmem's memory tools (every registered tool but the code tools `smart_*`). A call to one
/// is never captured: storing it would make memories of memories.
pub(crate) const MEMORY_TOOLS: [&str; 10] = [
    "mem_search",
    "search",
    "timeline",
    "get_observations",
    "get_tool_uses",
    "session_start_context",
    "important_workflow",
    "save_memory",
    "work_state_write",
    "work_state_read",
];
