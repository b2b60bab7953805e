//! Modes: the observation types (id, label, description, symbol, work symbol)
//! and concepts of one kind of work, as data.
//!
//! A mode is a JSON file in claude-mem's mode format, so its mode files load here too when
//! their symbols are in the Basic Multilingual Plane. Built-in modes are embedded from
//! `assets/modes/`; a user mode is `<config dir>/modes/<id>.json` and wins over a built-in of
//! the same id. An id of the form `parent--override` (`code--de`, `code--chill`) deep-merges
//! the override file onto the parent: objects merge key by key, and an `observation_types` /
//! `observation_concepts` entry merges onto the parent's entry with the same `id` (new ids are
//! appended), so an override names only what it changes.
//!
//! Schema (unknown keys are errors, except inside `prompts`):
//! ```json
//! { "name": "Code Development",            // the index's `Mode:` line
//!   "description": "…", "version": "1",
//!   "observation_types": [                 // at least one; the first is the default type
//!     { "id": "bugfix",                    // [a-z0-9_-], unique; stored, so never renamed
//!       "label": "Bug Fix", "description": "…",
//!       "emoji": "●",                      // one character of the Basic Multilingual Plane
//!       "work_emoji": "⚒" } ],             // ditto: marks the per-row work-token figure
//!   "observation_concepts": [ { "id": "gotcha", "label": "Gotcha", "description": "…" } ],
//!   "rule_types": { "change": "finding" },   // the rule-based observer's type → this mode's
//!   "prompts": { "recording_focus": "…", "skip_guidance": "…" } }   // for an external observer
//! ```
//!
//! The session-start hook renders the index once per process: the built-in `code` mode is
//! parsed lazily, once, straight into its types (JSON, about 10 µs), and only a mode other than
//! `code` or a user file costs a file read.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use serde_json::Value;

/// The symbol of a stored type the active mode does not define.
pub(crate) const FALLBACK_SYMBOL: char = '·';
/// The work symbol of such a type.
pub(crate) const FALLBACK_WORK_SYMBOL: char = '⚒';
/// The mode used when none is set.
pub(crate) const DEFAULT_MODE: &str = "code";

/// The modes compiled into cmem: (id, JSON text).
pub(crate) const BUILTIN: &[(&str, &str)] = &[
    ("code", include_str!("../../assets/modes/code.json")),
    (
        "code--chill",
        include_str!("../../assets/modes/code--chill.json"),
    ),
    ("code--de", include_str!("../../assets/modes/code--de.json")),
    ("research", include_str!("../../assets/modes/research.json")),
];

#[derive(Debug, Clone, PartialEq)]
pub struct TypeDef {
    pub id: String,
    pub label: String,
    pub description: String,
    pub symbol: char,
    pub work_symbol: char,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConceptDef {
    pub id: String,
    pub label: String,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mode {
    pub id: String,
    pub name: String,
    pub description: String,
    pub version: String,
    pub types: Vec<TypeDef>,
    pub concepts: Vec<ConceptDef>,
    pub recording_focus: Option<String>,
    pub skip_guidance: Option<String>,
    /// What the rule-based observer's types (the `code` ids) are in this mode.
    pub rule_types: std::collections::BTreeMap<String, String>,
    /// Where it came from: `built-in`, or the user files that made it.
    pub source: String,
}

impl Mode {
    pub(crate) fn type_def(&self, type_id: &str) -> Option<&TypeDef> {
        let t = type_id.trim();
        self.types.iter().find(|d| {
            d.id.eq_ignore_ascii_case(t) || d.id == t.to_ascii_lowercase().replace('-', "_")
        })
    }

    /// The row symbol of a stored type; a type this mode does not define keeps a neutral dot.
    pub(crate) fn symbol(&self, type_id: &str) -> char {
        self.type_def(type_id).map_or(FALLBACK_SYMBOL, |d| d.symbol)
    }

    pub(crate) fn work_symbol(&self, type_id: &str) -> char {
        self.type_def(type_id)
            .map_or(FALLBACK_WORK_SYMBOL, |d| d.work_symbol)
    }

    pub(crate) fn type_ids(&self) -> Vec<&str> {
        self.types.iter().map(|t| t.id.as_str()).collect()
    }

    pub(crate) fn concept_ids(&self) -> Vec<&str> {
        self.concepts.iter().map(|c| c.id.as_str()).collect()
    }

    /// The type the rule-based observer writes for its `rule_type` (a `code` type id) in this
    /// mode: the mode's `rule_types` entry, else the same id when the mode defines it, else
    /// the mode's default type.
    pub(crate) fn rule_type<'a>(&'a self, rule_type: &'a str) -> &'a str {
        match self.rule_types.get(rule_type) {
            Some(t) => t,
            None if self.types.is_empty() || self.type_def(rule_type).is_some() => rule_type,
            None => self.default_type(),
        }
    }

    /// The type an observer's reply gets when it names none.
    pub(crate) fn default_type(&self) -> &str {
        self.types.first().map_or("discovery", |t| t.id.as_str())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModeFile {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    version: String,
    observation_types: Vec<TypeFile>,
    #[serde(default)]
    observation_concepts: Vec<ConceptFile>,
    /// claude-mem's prompt fragments; cmem's external observer uses `recording_focus` and
    /// `skip_guidance`, the others are kept unchecked (but BMP-checked).
    #[serde(default)]
    prompts: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    rule_types: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TypeFile {
    id: String,
    label: String,
    #[serde(default)]
    description: String,
    emoji: String,
    work_emoji: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConceptFile {
    id: String,
    label: String,
    #[serde(default)]
    description: String,
}

/// The built-in `code` mode, parsed once per process.
pub fn code() -> Arc<Mode> {
    static CODE: OnceLock<Arc<Mode>> = OnceLock::new();
    CODE.get_or_init(|| {
        // The embedded file is checked by the tests; a broken one cannot ship.
        let mode = serde_json::from_str::<ModeFile>(BUILTIN[0].1)
            .map_err(anyhow::Error::from)
            .and_then(|f| validate(DEFAULT_MODE, f, "built-in".into()));
        Arc::new(mode.unwrap_or_else(|_| empty_code()))
    })
    .clone()
}

fn empty_code() -> Mode {
    Mode {
        id: DEFAULT_MODE.into(),
        name: "Code Development".into(),
        description: String::new(),
        version: String::new(),
        types: Vec::new(),
        concepts: Vec::new(),
        recording_focus: None,
        skip_guidance: None,
        rule_types: Default::default(),
        source: "built-in".into(),
    }
}

/// Where user modes live: `<config dir>/modes/` (files `<id>.json`).
pub(crate) fn user_dir() -> PathBuf {
    crate::paths::config_dir().join("modes")
}

/// The mode `id`, from the user's modes dir or the built-ins.
pub(crate) fn resolve(id: &str) -> Result<Arc<Mode>> {
    resolve_in(id, &user_dir())
}

/// `resolve`, or the built-in `code` mode when `id` cannot be loaded (`report` gets the reason):
/// for hooks, which must not lose the context over a typo.
pub(crate) fn resolve_or_code(id: &str, report: &mut dyn FnMut(String)) -> Arc<Mode> {
    resolve(id).unwrap_or_else(|e| {
        report(format!("{e:#}; using the code mode"));
        code()
    })
}

pub(crate) fn resolve_in(id: &str, dir: &Path) -> Result<Arc<Mode>> {
    let id = id.trim();
    check_id(id)?;
    let (parent, has_override) = match id.split_once("--") {
        Some((p, o)) if !p.is_empty() && !o.is_empty() && !o.contains("--") => (p, true),
        Some(_) => bail!("mode id {id:?}: use `name` or `parent--override`"),
        None => (id, false),
    };
    if !has_override && id == DEFAULT_MODE && !dir.join("code.json").exists() {
        return Ok(code());
    }
    let (mut value, mut source) = raw(parent, dir)?;
    if has_override {
        let (over, over_source) = raw(id, dir)?;
        merge(&mut value, over);
        if over_source != "built-in" || source != "built-in" {
            source = format!("{source} + {over_source}");
        }
    }
    build(id, value, source).map(Arc::new)
}

/// Checks the spelling of a mode id (no file access: settings validation uses it).
pub(crate) fn check_id(id: &str) -> Result<()> {
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        bail!("mode id {id:?}: use lower-case letters, digits, `-` and `_` (e.g. code, code--de)");
    }
    Ok(())
}

/// The names of every mode a user can pick: built-ins and files in the user dir.
pub(crate) fn available(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = BUILTIN.iter().map(|(id, _)| id.to_string()).collect();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json")
                && let Some(stem) = p.file_stem().and_then(|s| s.to_str())
            {
                out.push(stem.to_string());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn raw(name: &str, dir: &Path) -> Result<(Value, String)> {
    let file = dir.join(format!("{name}.json"));
    match std::fs::read_to_string(&file) {
        Ok(text) => {
            let value: Value = serde_json::from_str(&text)
                .with_context(|| format!("invalid mode file {} (not JSON)", file.display()))?;
            Ok((value, file.display().to_string()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let (_, text) = BUILTIN.iter().find(|(id, _)| *id == name).ok_or_else(|| {
                anyhow!(
                    "no mode {name:?}: not built in and no file {} (modes: {})",
                    file.display(),
                    available(dir).join(", ")
                )
            })?;
            let value: Value =
                serde_json::from_str(text).with_context(|| format!("built-in mode {name}"))?;
            Ok((value, "built-in".into()))
        }
        Err(e) => Err(e).with_context(|| format!("cannot read mode file {}", file.display())),
    }
}

/// Deep merge: objects key by key; arrays of objects with `id`s entry by entry; anything else
/// replaced.
fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (key, value) in o {
                match b.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        b.insert(key, value);
                    }
                }
            }
        }
        (Value::Array(b), Value::Array(o)) if by_id(b) && by_id(&o) => {
            for item in o {
                let id = item.get("id").cloned();
                match b.iter_mut().find(|x| x.get("id") == id.as_ref()) {
                    Some(existing) => merge(existing, item),
                    None => b.push(item),
                }
            }
        }
        (base, over) => *base = over,
    }
}

fn by_id(items: &[Value]) -> bool {
    items
        .iter()
        .all(|v| v.as_object().is_some_and(|t| t.contains_key("id")))
}

fn build(id: &str, value: Value, source: String) -> Result<Mode> {
    let file: ModeFile =
        serde_json::from_value(value).with_context(|| format!("mode {id} ({source})"))?;
    validate(id, file, source)
}

fn one_bmp_char(what: &str, text: &str) -> Result<char> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if (c as u32) <= 0xFFFF && !c.is_control() => Ok(c),
        (Some(c), None) => bail!(
            "{what} {text:?} (U+{:04X}) is outside the Basic Multilingual Plane; pick a symbol ≤ U+FFFF such as ● or ◆",
            c as u32
        ),
        _ => bail!("{what} must be exactly one character, not {text:?}"),
    }
}

fn bmp_text(what: &str, text: &str) -> Result<()> {
    if let Some(c) = text.chars().find(|&c| (c as u32) > 0xFFFF) {
        bail!(
            "{what} holds {c:?} (U+{:04X}), outside the Basic Multilingual Plane; cmem emits BMP characters only",
            c as u32
        );
    }
    Ok(())
}

fn check_entry_id(what: &str, id: &str, seen: &mut Vec<String>) -> Result<()> {
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        bail!("{what} id {id:?}: use lower-case letters, digits, `-` and `_`");
    }
    if seen.iter().any(|s| s == id) {
        bail!("{what} id {id:?} is defined twice");
    }
    seen.push(id.to_string());
    Ok(())
}

fn validate(id: &str, f: ModeFile, source: String) -> Result<Mode> {
    let ctx = || format!("mode {id} ({source})");
    let run = || -> Result<Mode> {
        bmp_text("name", &f.name)?;
        bmp_text("description", &f.description)?;
        if f.name.trim().is_empty() {
            bail!("`name` is empty");
        }
        if f.observation_types.is_empty() {
            bail!("a mode needs at least one entry in `observation_types`");
        }
        let mut seen = Vec::new();
        let mut types = Vec::new();
        for t in &f.observation_types {
            check_entry_id("type", &t.id, &mut seen)?;
            let what = format!("type {}", t.id);
            bmp_text(&format!("{what}: label"), &t.label)?;
            bmp_text(&format!("{what}: description"), &t.description)?;
            types.push(TypeDef {
                id: t.id.clone(),
                label: t.label.clone(),
                description: t.description.clone(),
                symbol: one_bmp_char(&format!("{what}: emoji"), &t.emoji)?,
                work_symbol: one_bmp_char(&format!("{what}: work_emoji"), &t.work_emoji)?,
            });
        }
        let seen_types = seen;
        let mut seen = Vec::new();
        let mut concepts = Vec::new();
        for c in &f.observation_concepts {
            check_entry_id("concept", &c.id, &mut seen)?;
            bmp_text(&format!("concept {}: label", c.id), &c.label)?;
            bmp_text(&format!("concept {}: description", c.id), &c.description)?;
            concepts.push(ConceptDef {
                id: c.id.clone(),
                label: c.label.clone(),
                description: c.description.clone(),
            });
        }
        for (k, v) in &f.prompts {
            bmp_text(&format!("prompts.{k}"), v)?;
        }
        for (rule, to) in &f.rule_types {
            if crate::model::ObsType::parse(rule).is_none() {
                bail!(
                    "rule_types: `{rule}` is not a type the rule-based observer writes (one of {})",
                    crate::model::ObsType::ALL.map(|t| t.id()).join(", ")
                );
            }
            if !seen_types.iter().any(|t| t == to) {
                bail!("rule_types: `{rule}` maps to `{to}`, which this mode does not define");
            }
        }
        Ok(Mode {
            id: id.to_string(),
            name: f.name.trim().to_string(),
            description: f.description.clone(),
            version: f.version.clone(),
            types,
            concepts,
            recording_focus: f.prompts.get("recording_focus").cloned(),
            skip_guidance: f.prompts.get("skip_guidance").cloned(),
            rule_types: f.rule_types.clone(),
            source: source.clone(),
        })
    };
    run().with_context(ctx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CONCEPTS, ObsType};

    fn none() -> PathBuf {
        PathBuf::from("/nonexistent/cmem-modes")
    }

    #[test]
    fn every_builtin_loads() {
        for (id, _) in BUILTIN {
            let m = resolve_in(id, &none()).unwrap_or_else(|e| panic!("{id}: {e:#}"));
            assert!(!m.types.is_empty(), "{id}");
        }
    }

    #[test]
    fn code_mode_is_todays_types_symbols_and_concepts() {
        let m = code();
        assert_eq!(m.name, "Code Development");
        let ids: Vec<&str> = ObsType::ALL.iter().map(|t| t.id()).collect();
        assert_eq!(m.type_ids(), ids);
        for t in ObsType::ALL {
            assert_eq!(m.symbol(t.id()), t.symbol(), "{t:?}");
            assert_eq!(m.work_symbol(t.id()), t.work_symbol(), "{t:?}");
        }
        assert_eq!(m.concept_ids(), CONCEPTS.to_vec());
        assert_eq!(m.symbol("made-up"), FALLBACK_SYMBOL);
    }

    #[test]
    fn the_rule_observers_types_map_into_a_mode() {
        let code = resolve_in("code", &none()).unwrap();
        assert_eq!(code.rule_type("bugfix"), "bugfix");
        let research = resolve_in("research", &none()).unwrap();
        assert_eq!(research.rule_type("change"), "finding");
        assert_eq!(research.rule_type("discovery"), "source");
        assert_eq!(research.rule_type("decision"), "decision");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("bad.json"),
            r#"{"name": "Bad", "observation_types": [{"id": "a", "label": "A", "emoji": "a", "work_emoji": "b"}],
                "rule_types": {"change": "nope"}}"#,
        )
        .unwrap();
        let err = format!("{:#}", resolve_in("bad", dir.path()).unwrap_err());
        assert!(err.contains("`change` maps to `nope`"), "{err}");
    }

    #[test]
    fn override_merges_by_id() {
        let de = resolve_in("code--de", &none()).unwrap();
        assert_eq!(de.name, "Code-Entwicklung");
        assert_eq!(de.types.len(), 9);
        assert_eq!(de.type_def("bugfix").unwrap().label, "Fehlerbehebung");
        assert_eq!(de.symbol("bugfix"), '●', "symbols come from the parent");
        let chill = resolve_in("code--chill", &none()).unwrap();
        assert_eq!(chill.types, code().types);
        assert!(chill.skip_guidance.is_some());
    }

    #[test]
    fn user_override_adds_a_type_and_rejects_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("code--mine.json"),
            r#"{"name": "Mine", "observation_types": [
                {"id": "discovery", "emoji": "◇"},
                {"id": "experiment", "label": "Experiment", "emoji": "▲", "work_emoji": "⚒"}]}"#,
        )
        .unwrap();
        let m = resolve_in("code--mine", dir.path()).unwrap();
        assert_eq!(m.symbol("discovery"), '◇');
        assert_eq!(m.symbol("experiment"), '▲');
        assert_eq!(m.types.len(), 10);
        assert!(m.source.contains("code--mine.json"), "{}", m.source);

        std::fs::write(
            dir.path().join("code--astral.json"),
            r#"{"observation_types": [{"id": "bugfix", "emoji": "🔴"}]}"#,
        )
        .unwrap();
        let err = format!("{:#}", resolve_in("code--astral", dir.path()).unwrap_err());
        assert!(
            err.contains("Basic Multilingual Plane") && err.contains("bugfix"),
            "{err}"
        );

        std::fs::write(dir.path().join("code--typo.json"), r#"{"nmae": "x"}"#).unwrap();
        let err = format!("{:#}", resolve_in("code--typo", dir.path()).unwrap_err());
        assert!(err.contains("nmae"), "{err}");

        let err = format!("{:#}", resolve_in("nope", dir.path()).unwrap_err());
        assert!(err.contains("no mode") && err.contains("research"), "{err}");
    }
}
