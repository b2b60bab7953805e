//! The observation/summary XML an external observer answers with (claude-mem's observer
//! reply format), parsed the way claude-mem parses it: lenient, field by field, prose around
//! the XML ignored.

use std::sync::LazyLock;

use regex::Regex;

use crate::model::mode::Mode;
use crate::model::{ObservationBody, SummaryBody};

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Reply {
    /// As written: unknown types are kept.
    pub observations: Vec<ObservationBody>,
    /// The reply's summary; its file lists stay empty (the XML has none).
    pub summary: Option<SummaryBody>,
    /// `<skip_summary reason="…"/>` was given.
    pub skip_summary: Option<String>,
}

impl Reply {
    /// Nothing usable in the reply.
    pub(crate) fn is_empty(&self) -> bool {
        self.observations.is_empty() && self.summary.is_none()
    }
}

#[allow(clippy::expect_used, reason = "a pattern fixed at compile time")]
fn block_regex(tag: &str) -> Regex {
    Regex::new(&format!(r"(?s)<{tag}(?:[ \t\r\n][^>]*)?>(.*?)</{tag}>")).expect("block pattern")
}

static OBSERVATION: LazyLock<Regex> = LazyLock::new(|| block_regex("observation"));
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| block_regex("summary"));
#[allow(clippy::expect_used, reason = "a pattern fixed at compile time")]
static SKIP_SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?s)<skip_summary(?:[ \t\r\n]+reason[ \t\r\n]*=[ \t\r\n]*"([^"]*)")?[ \t\r\n]*/?>"#,
    )
    .expect("skip pattern")
});
#[allow(clippy::expect_used, reason = "a pattern fixed at compile time")]
static FENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)^[ \t\r\n]*```[a-zA-Z]*[ \t\r]*\n(.*?)\n?```[ \t\r\n]*$")
        .expect("fence pattern")
});

fn decode(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The trimmed text of `<tag>…</tag>` inside `block`; empty is `None`.
fn field(block: &str, tag: &str) -> Option<String> {
    let re = Regex::new(&format!(r"(?s)<{tag}(?:[ \t\r\n][^>]*)?>(.*?)</{tag}>")).ok()?;
    let text = decode(re.captures(block)?.get(1)?.as_str().trim());
    Some(text).filter(|t| !t.is_empty())
}

/// Every `<item>` inside `<list>`.
fn items(block: &str, list: &str, item: &str) -> Vec<String> {
    let Some(inner) = Regex::new(&format!(r"(?s)<{list}(?:[ \t\r\n][^>]*)?>(.*?)</{list}>"))
        .ok()
        .and_then(|re| {
            re.captures(block)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str().to_string())
        })
    else {
        return Vec::new();
    };
    let Ok(re) = Regex::new(&format!(r"(?s)<{item}(?:[ \t\r\n][^>]*)?>(.*?)</{item}>")) else {
        return Vec::new();
    };
    re.captures_iter(&inner)
        .filter_map(|c| c.get(1))
        .map(|m| decode(m.as_str().trim()))
        .filter(|t| !t.is_empty())
        .collect()
}

fn strip_fence(text: &str) -> &str {
    FENCE
        .captures(text)
        .and_then(|c| c.get(1))
        .map_or(text, |m| m.as_str())
}

fn parse_observation(block: &str, mode: &Mode) -> Option<ObservationBody> {
    let obs_type = field(block, "type").unwrap_or_else(|| mode.default_type().to_string());
    let type_key = obs_type.trim().to_ascii_lowercase();
    let concepts: Vec<String> = items(block, "concepts", "concept")
        .into_iter()
        .map(|c| c.split(':').next().unwrap_or("").trim().to_string())
        .filter(|c| !c.is_empty() && c.to_ascii_lowercase() != type_key)
        .collect();
    let o = ObservationBody {
        title: field(block, "title"),
        subtitle: field(block, "subtitle"),
        narrative: field(block, "narrative"),
        facts: items(block, "facts", "fact"),
        concepts,
        files_read: items(block, "files_read", "file"),
        files_modified: items(block, "files_modified", "file"),
        obs_type,
    };
    let empty =
        o.title.is_none() && o.narrative.is_none() && o.facts.is_empty() && o.concepts.is_empty();
    (!empty).then_some(o)
}

fn parse_summary(block: &str) -> Option<SummaryBody> {
    let s = SummaryBody {
        request: field(block, "request"),
        investigated: field(block, "investigated"),
        learned: field(block, "learned"),
        completed: field(block, "completed"),
        next_steps: field(block, "next_steps"),
        notes: field(block, "notes"),
        ..SummaryBody::default()
    };
    let any = s.request.is_some()
        || s.investigated.is_some()
        || s.learned.is_some()
        || s.completed.is_some()
        || s.next_steps.is_some();
    any.then_some(s)
}

/// Parses an observer's reply; an observation without a type gets `mode`'s default. Anything
/// that is not observation/summary XML is ignored.
pub(crate) fn parse(reply: &str, mode: &Mode) -> Reply {
    let text = strip_fence(reply);
    Reply {
        observations: OBSERVATION
            .captures_iter(text)
            .filter_map(|c| c.get(1))
            .filter_map(|m| parse_observation(m.as_str(), mode))
            .collect(),
        summary: SUMMARY
            .captures(text)
            .and_then(|c| c.get(1))
            .and_then(|m| parse_summary(m.as_str())),
        skip_summary: SKIP_SUMMARY
            .captures(text)
            .map(|c| c.get(1).map_or(String::new(), |m| m.as_str().to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_code(reply: &str) -> Reply {
        parse(reply, &crate::model::mode::code())
    }

    #[test]
    fn parses_observations_and_summary_in_prose_and_fences() {
        let reply = "Sure! Here you go:\n```xml\n<observation>\n  <type>bugfix</type>\n  <title>Fixed &lt;x&gt;</title>\n  <subtitle></subtitle>\n  <facts><fact>a</fact><fact> </fact><fact>b</fact></facts>\n  <narrative>n</narrative>\n  <concepts><concept>gotcha: why</concept><concept>bugfix</concept><concept></concept></concepts>\n  <files_read><file>src/a.rs</file></files_read>\n  <files_modified></files_modified>\n</observation>\n<summary><request>r</request><learned>l</learned><notes></notes></summary>\n```";
        // The fence is not the whole payload (prose before it): blocks are still found.
        let r = parse_code(reply);
        assert_eq!(r.observations.len(), 1);
        let o = &r.observations[0];
        assert_eq!(o.obs_type, "bugfix");
        assert_eq!(o.title.as_deref(), Some("Fixed <x>"));
        assert_eq!(o.subtitle, None);
        assert_eq!(o.facts, vec!["a", "b"]);
        assert_eq!(o.concepts, vec!["gotcha"]);
        assert_eq!(o.files_read, vec!["src/a.rs"]);
        let s = r.summary.unwrap();
        assert_eq!(s.request.as_deref(), Some("r"));
        assert_eq!(s.notes, None);
    }

    #[test]
    fn drops_empty_observations_and_rejects_empty_summaries() {
        let r = parse_code(
            "<observation><type>change</type></observation><summary><notes>x</notes></summary>",
        );
        assert!(r.is_empty());
        let r = parse_code(
            "<observation><title>t</title></observation><skip_summary reason=\"trivial\"/>",
        );
        assert_eq!(
            r.observations[0].obs_type, "bugfix",
            "missing type → first type"
        );
        assert_eq!(r.skip_summary.as_deref(), Some("trivial"));
        let r = parse_code("<observation><type>weird</type><title>t</title></observation>");
        assert_eq!(
            r.observations[0].obs_type, "weird",
            "unknown types are kept"
        );
        assert!(parse_code("no xml at all").is_empty());
    }

    #[test]
    fn whole_payload_fence_is_stripped() {
        let r = parse_code("```\n<observation><title>t</title></observation>\n```");
        assert_eq!(r.observations.len(), 1);
    }
}
