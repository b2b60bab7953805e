//! MCP revisions: the legacy handshake (`initialize`, 2024-11-05 … 2025-11-25) and the
//! stateless 2026-07-28 revision (`server/discover`, `_meta` on every request, `resultType`).

use serde_json::{Value, json};

pub(crate) const LEGACY_VERSIONS: &[&str] =
    &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
pub(crate) const NEWEST_LEGACY: &str = "2025-11-25";
pub(crate) const STATELESS_VERSIONS: &[&str] = &["2026-07-28"];
pub(crate) const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const UNSUPPORTED_VERSION: i64 = -32022;

pub(crate) fn server_info() -> Value {
    json!({"name": "cmem", "title": "cmem memory", "version": env!("CARGO_PKG_VERSION")})
}

pub(crate) const INSTRUCTIONS: &str = "cmem is this project's memory of past work. The session-start context already lists recent observations by ID and title. Use mem_search to find more (index → context → selected details), get_observations for full records by ID, get_tool_uses for the raw tool input/output behind an observation (rarely needed), and work_state_write / work_state_read to keep your to-do lists across sessions.";

/// The version to answer an `initialize` with: the client's if we speak it, else our newest.
pub(crate) fn negotiate(requested: Option<&str>) -> &'static str {
    requested
        .and_then(|r| LEGACY_VERSIONS.iter().find(|v| **v == r))
        .copied()
        .unwrap_or(NEWEST_LEGACY)
}

pub(crate) fn initialize_result(requested: Option<&str>) -> Value {
    json!({
        "protocolVersion": negotiate(requested),
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    })
}

pub(crate) fn discover_result() -> Value {
    let mut supported: Vec<&str> = LEGACY_VERSIONS.to_vec();
    supported.extend(STATELESS_VERSIONS);
    json!({
        "supportedVersions": supported,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    })
}

/// On the stateless path: `Ok(true)` when the request carries a protocol version in `_meta`
/// (so the result gets `resultType`), `Ok(false)` for legacy requests, `Err` with the JSON-RPC
/// error for an unsupported version or a missing required `_meta` key.
pub(crate) fn stateless_check(
    params: Option<&Value>,
) -> Result<bool, (i64, String, Option<Value>)> {
    let Some(meta) = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
    else {
        return Ok(false);
    };
    let Some(version) = meta.get(META_VERSION) else {
        return Ok(false);
    };
    let requested = version.as_str().unwrap_or("");
    if !STATELESS_VERSIONS.contains(&requested) {
        let mut supported: Vec<&str> = LEGACY_VERSIONS.to_vec();
        supported.extend(STATELESS_VERSIONS);
        return Err((
            UNSUPPORTED_VERSION,
            format!("Unsupported protocol version {requested:?}"),
            Some(json!({"supported": supported, "requested": version})),
        ));
    }
    if !meta.contains_key(META_CAPABILITIES) {
        return Err((
            INVALID_PARAMS,
            format!("_meta must carry {META_CAPABILITIES} on protocol version {requested}"),
            None,
        ));
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation() {
        assert_eq!(negotiate(Some("2024-11-05")), "2024-11-05");
        assert_eq!(negotiate(Some("2025-06-18")), "2025-06-18");
        assert_eq!(negotiate(Some("1999-01-01")), "2025-11-25");
        assert_eq!(negotiate(None), "2025-11-25");
    }

    #[test]
    fn stateless_meta() {
        assert_eq!(stateless_check(None), Ok(false));
        let ok = json!({"_meta": {META_VERSION: "2026-07-28", META_CAPABILITIES: {}}});
        assert_eq!(stateless_check(Some(&ok)), Ok(true));
        let bad = json!({"_meta": {META_VERSION: "2099-01-01", META_CAPABILITIES: {}}});
        assert_eq!(
            stateless_check(Some(&bad)).unwrap_err().0,
            UNSUPPORTED_VERSION
        );
        let missing = json!({"_meta": {META_VERSION: "2026-07-28"}});
        assert_eq!(
            stateless_check(Some(&missing)).unwrap_err().0,
            INVALID_PARAMS
        );
    }
}
