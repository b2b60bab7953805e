//! Typed access to a hook's stdin JSON, tolerant of the field spellings hosts use.

use anyhow::{Result, bail};
use serde_json::{Map, Value};

pub(crate) struct Payload(pub Map<String, Value>);

const MAX_ID_LEN: usize = 256;
/// The fields Claude Code sends as strings, in every event that has them.
const STRING_FIELDS: [&str; 7] = [
    "cwd",
    "transcript_path",
    "prompt_id",
    "tool_name",
    "tool_use_id",
    "source",
    "hook_event_name",
];

impl Payload {
    pub(crate) fn parse(bytes: &[u8]) -> Result<Payload> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            bail!("empty payload on stdin");
        }
        let value = crate::jsonfix::parse_lenient(bytes, "payload")?;
        match value {
            Value::Object(map) => Ok(Payload(map)),
            other => bail!("payload is a JSON {}, not an object", kind(&other)),
        }
    }

    /// The checks every event makes: a usable session id, and the fields Claude Code sends as
    /// strings are strings. A payload failing them is malformed, whatever the event.
    pub(crate) fn validate(&self) -> Result<()> {
        self.session_id()?;
        for key in STRING_FIELDS {
            self.expect_string_or_absent(key)?;
        }
        Ok(())
    }

    /// Fails when `key` is present with a type other than string (a malformed payload).
    fn expect_string_or_absent(&self, key: &str) -> Result<()> {
        match self.0.get(key) {
            None | Some(Value::Null) | Some(Value::String(_)) => Ok(()),
            Some(other) => bail!("{key} is a JSON {}, not a string", kind(other)),
        }
    }

    /// A non-empty string field.
    pub(crate) fn str(&self, key: &str) -> Option<&str> {
        self.0
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    }

    pub(crate) fn bool(&self, key: &str) -> Option<bool> {
        self.0.get(key).and_then(Value::as_bool)
    }

    pub(crate) fn i64(&self, key: &str) -> Option<i64> {
        self.0.get(key).and_then(Value::as_i64)
    }

    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        self.0.remove(key)
    }

    /// `session_id`, falling back to `id` and `sessionId` (spellings other hosts use).
    pub(crate) fn session_id(&self) -> Result<&str> {
        let id = ["session_id", "sessionId", "id"]
            .iter()
            .find_map(|k| self.str(k));
        match id {
            Some(id) if id.len() <= MAX_ID_LEN && !id.chars().any(char::is_control) => Ok(id),
            Some(_) => {
                bail!("session_id is longer than {MAX_ID_LEN} bytes or has control characters")
            }
            None => bail!("payload has no session_id"),
        }
    }

    /// An identifier field that must be present (tool_use_id, tool_name).
    pub(crate) fn required_id(&self, key: &str) -> Result<&str> {
        match self.str(key) {
            Some(v) if v.len() <= MAX_ID_LEN => Ok(v),
            Some(_) => bail!("{key} is longer than {MAX_ID_LEN} bytes"),
            None => bail!("payload has no {key}"),
        }
    }

    /// Subagent attribution: strings of 1–128 characters.
    pub(crate) fn agent_field(&self, key: &str) -> Option<String> {
        self.str(key)
            .filter(|s| s.chars().count() <= 128)
            .map(String::from)
    }
}

/// What a JSON value is, for an error or a log line (`a JSON number`).
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
