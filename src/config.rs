//! Settings: defaults < config file < `CMEM_*` environment variables.
//!
//! The file is TOML (`$CMEM_CONFIG` or `$XDG_CONFIG_HOME/cmem/config.toml`). Unknown keys and
//! wrong types are errors that name the file, line and key; hooks log such errors and carry on
//! with defaults (see `load_lenient`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use crate::paths;

/// Tools whose events carry no memory worth keeping (claude-mem's default skip list).
pub(crate) const DEFAULT_SKIP_TOOLS: &[&str] = &[
    "ListMcpResourcesTool",
    "SlashCommand",
    "Skill",
    "TodoWrite",
    "AskUserQuestion",
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Settings {
    /// Where the database, logs and spool live. `CMEM_DATA_DIR` wins over this.
    pub data_dir: Option<String>,
    /// Glob patterns (`*`, `**`, `?`, leading `~`) matched against a project's path and its
    /// basename; matching projects get no capture, no context and no read gate.
    pub excluded_projects: Vec<String>,
    /// `error`, `warn`, `info` or `debug`.
    pub log_level: String,
    pub capture: CaptureSettings,
    pub hook: HookSettings,
    pub context: ContextSettings,
    pub observer: ObserverSettings,
    pub tui: TuiSettings,
    pub gate: GateSettings,
    pub search: SearchSettings,
    pub sync: SyncSettings,
}

/// `cmem sync`: sharing memory through a PostgreSQL server (src/sync). Never used by hooks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct SyncSettings {
    /// The server: a `postgres://` URL or a libpq `key=value` string (`sslmode` disable, prefer,
    /// require, verify-ca or verify-full; password from the URL, `PGPASSFILE` or `~/.pgpass`).
    /// Shown (`cmem config`) without its password: such output gets pasted into bug reports.
    #[serde(serialize_with = "serialize_redacted")]
    pub url: Option<String>,
    /// Glob patterns of the project keys to share (`*` for all); default none: opt-in.
    pub projects: Vec<String>,
    /// Also share raw tool input/output (layer 4): large and the most sensitive.
    pub raw_tool_io: bool,
    /// Sync in the background after each session ends (at most once a minute).
    pub auto: bool,
}

fn serialize_redacted<S: serde::Serializer>(url: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match url {
        Some(u) => s.serialize_some(&crate::conninfo::redact(u)),
        None => s.serialize_none(),
    }
}

impl Default for SyncSettings {
    fn default() -> Self {
        SyncSettings {
            url: None,
            projects: Vec::new(),
            raw_tool_io: false,
            auto: true,
        }
    }
}

/// How `mem_search`, the `search` tool and the browser's `s` find records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct SearchSettings {
    /// Rank by meaning too (the embedding model compiled into cmem), not by words alone.
    pub semantic: bool,
    /// Embed new records in a background process started after each turn (lowest priority,
    /// one core); off, records wait for `cmem model backfill`.
    pub background_embedding: bool,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            semantic: true,
            background_embedding: true,
        }
    }
}

/// Turning captured tool I/O into observations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct ObserverSettings {
    /// The rule-based observer runs when a turn ends (no model calls).
    pub rules: bool,
    /// An external command that rewrites each turn's observations in the background: it gets
    /// the turn on stdin and answers with observation/summary XML. Unset: off.
    pub command: Option<String>,
    /// The command is killed after this many seconds (the rule-based result stays).
    pub timeout_secs: u64,
}

impl Default for ObserverSettings {
    fn default() -> Self {
        ObserverSettings {
            rules: true,
            command: None,
            timeout_secs: 120,
        }
    }
}

/// The terminal browser (`cmem tui`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct TuiSettings {
    /// A built-in theme (`cmem tui --list-themes` names them) or the name of a file
    /// `<config dir>/themes/<name>.toml`.
    pub theme: String,
    /// Extra key bindings: key (`j`, `ctrl-d`, `shift-tab`, `g g`) → action name (`cmem tui
    /// --keys` lists them; `none` unbinds a key).
    pub keys: std::collections::BTreeMap<String, String>,
}

impl Default for TuiSettings {
    fn default() -> Self {
        TuiSettings {
            theme: "default".into(),
            keys: std::collections::BTreeMap::new(),
        }
    }
}

/// The File Read Gate on `Read` (claude-mem's deny conditions and sizes): deny a whole-file
/// Read of a big source file the memory already knows, and add the file's history as context
/// to smaller Reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct GateSettings {
    /// `false` turns the gate off entirely: no deny, no context.
    pub enabled: bool,
    /// Whole-file Reads of source files at least this big are denied when the memory knows the
    /// file; `0` never denies (context only).
    pub deny_min_bytes: u64,
    /// Files smaller than this get nothing; between this and `deny_min_bytes` the file's
    /// history is added as context, once per session.
    pub context_min_bytes: u64,
}

impl Default for GateSettings {
    fn default() -> Self {
        GateSettings {
            enabled: true,
            deny_min_bytes: 32 * 1024,
            context_min_bytes: 1536,
        }
    }
}

/// What the session-start context shows (claude-mem's context settings, as typed keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContextSettings {
    /// How many of the newest observations the index lists.
    pub observations: usize,
    /// How many session summaries the index lists.
    pub sessions: usize,
    /// How many of the newest observations come with their full text.
    pub full_count: usize,
    /// What the full text is: `narrative` or `facts`.
    pub full_field: String,
    pub show_read_tokens: bool,
    pub show_work_tokens: bool,
    pub show_savings_amount: bool,
    pub show_savings_percent: bool,
    /// Show the newest summary's investigated/learned/completed/next steps.
    pub show_last_summary: bool,
    /// Show the newest turn's last assistant message as **Previously** (with the last summary).
    pub show_last_message: bool,
    /// Characters (UTF-16 units) the whole context may take; never above 10,000.
    pub limit: usize,
    /// `local`, or an IANA zone name such as `Europe/Berlin`.
    pub timezone: String,
    /// The mode (observation types, symbols, concepts): `code`, `research`, an override such
    /// as `code--de` or `code--chill`, or a file `<config dir>/modes/<id>.toml`.
    pub mode: String,
    /// Only these observation types are listed (empty: all).
    pub types: Vec<String>,
    /// Only observations with at least one of these concepts are listed (empty: all).
    pub concepts: Vec<String>,
    /// Show the person a short summary of what was injected (Claude Code's `systemMessage`).
    pub show_user: bool,
}

impl Default for ContextSettings {
    fn default() -> Self {
        ContextSettings {
            observations: 50,
            sessions: 10,
            full_count: 0,
            full_field: "narrative".into(),
            show_read_tokens: false,
            show_work_tokens: false,
            show_savings_amount: false,
            show_savings_percent: true,
            show_last_summary: true,
            show_last_message: true,
            limit: 10_000,
            timezone: "local".into(),
            mode: crate::model::mode::DEFAULT_MODE.into(),
            types: Vec::new(),
            concepts: Vec::new(),
            show_user: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct CaptureSettings {
    /// Tool names whose events are not stored.
    pub skip_tools: Vec<String>,
    /// Cap for each stored tool input and tool response, in bytes.
    pub max_field_bytes: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct HookSettings {
    /// The busy handler gives up on a locked database this many milliseconds after the hook
    /// started (at most 1700: the hard deadline is 1850, the promise 2 s).
    pub deadline_ms: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            data_dir: None,
            excluded_projects: Vec::new(),
            log_level: "info".into(),
            capture: CaptureSettings::default(),
            hook: HookSettings::default(),
            context: ContextSettings::default(),
            observer: ObserverSettings::default(),
            tui: TuiSettings::default(),
            gate: GateSettings::default(),
            search: SearchSettings::default(),
            sync: SyncSettings::default(),
        }
    }
}

impl Default for CaptureSettings {
    fn default() -> Self {
        CaptureSettings {
            skip_tools: DEFAULT_SKIP_TOOLS.iter().map(|s| s.to_string()).collect(),
            max_field_bytes: 64 * 1024,
        }
    }
}

impl Default for HookSettings {
    fn default() -> Self {
        HookSettings { deadline_ms: 1500 }
    }
}

/// Parses an environment variable's text into a setting's type.
trait FromEnv: Sized {
    fn from_env(text: &str) -> Result<Self, String>;
}

impl FromEnv for String {
    fn from_env(text: &str) -> Result<Self, String> {
        Ok(text.to_string())
    }
}

impl FromEnv for Option<String> {
    fn from_env(text: &str) -> Result<Self, String> {
        Ok(Some(text.to_string()).filter(|t| !t.trim().is_empty()))
    }
}

impl FromEnv for Vec<String> {
    fn from_env(text: &str) -> Result<Self, String> {
        Ok(text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect())
    }
}

impl FromEnv for u64 {
    fn from_env(text: &str) -> Result<Self, String> {
        text.trim()
            .parse()
            .map_err(|_| format!("expected a whole number, got {text:?}"))
    }
}

impl FromEnv for usize {
    fn from_env(text: &str) -> Result<Self, String> {
        text.trim()
            .parse()
            .map_err(|_| format!("expected a whole number, got {text:?}"))
    }
}

impl FromEnv for bool {
    fn from_env(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err(format!("expected true or false, got {text:?}")),
        }
    }
}

/// One environment variable that overrides one setting.
pub(crate) struct EnvKey {
    pub env: &'static str,
    pub key: &'static str,
    apply: fn(&mut Settings, &str) -> Result<(), String>,
}

macro_rules! env_keys {
    ($($env:literal => $key:literal => $($field:ident).+;)*) => {
        /// Every `CMEM_*` variable that overrides a setting, with the file key it overrides.
        pub(crate) const ENV_KEYS: &[EnvKey] = &[$(EnvKey {
            env: $env,
            key: $key,
            apply: |s, v| {
                s.$($field).+ = FromEnv::from_env(v)?;
                Ok(())
            },
        }),*];
    };
}

env_keys! {
    "CMEM_DATA_DIR" => "data_dir" => data_dir;
    "CMEM_EXCLUDED_PROJECTS" => "excluded_projects" => excluded_projects;
    "CMEM_LOG_LEVEL" => "log_level" => log_level;
    "CMEM_SKIP_TOOLS" => "capture.skip_tools" => capture.skip_tools;
    "CMEM_MAX_FIELD_BYTES" => "capture.max_field_bytes" => capture.max_field_bytes;
    "CMEM_HOOK_DEADLINE_MS" => "hook.deadline_ms" => hook.deadline_ms;
    "CMEM_CONTEXT_OBSERVATIONS" => "context.observations" => context.observations;
    "CMEM_CONTEXT_SESSIONS" => "context.sessions" => context.sessions;
    "CMEM_CONTEXT_FULL_COUNT" => "context.full_count" => context.full_count;
    "CMEM_CONTEXT_FULL_FIELD" => "context.full_field" => context.full_field;
    "CMEM_CONTEXT_SHOW_READ_TOKENS" => "context.show_read_tokens" => context.show_read_tokens;
    "CMEM_CONTEXT_SHOW_WORK_TOKENS" => "context.show_work_tokens" => context.show_work_tokens;
    "CMEM_CONTEXT_SHOW_SAVINGS_AMOUNT" => "context.show_savings_amount" => context.show_savings_amount;
    "CMEM_CONTEXT_SHOW_SAVINGS_PERCENT" => "context.show_savings_percent" => context.show_savings_percent;
    "CMEM_CONTEXT_SHOW_LAST_SUMMARY" => "context.show_last_summary" => context.show_last_summary;
    "CMEM_CONTEXT_SHOW_LAST_MESSAGE" => "context.show_last_message" => context.show_last_message;
    "CMEM_CONTEXT_LIMIT" => "context.limit" => context.limit;
    "CMEM_CONTEXT_TIMEZONE" => "context.timezone" => context.timezone;
    "CMEM_MODE" => "context.mode" => context.mode;
    "CMEM_CONTEXT_TYPES" => "context.types" => context.types;
    "CMEM_CONTEXT_CONCEPTS" => "context.concepts" => context.concepts;
    "CMEM_CONTEXT_SHOW_USER" => "context.show_user" => context.show_user;
    "CMEM_OBSERVER_RULES" => "observer.rules" => observer.rules;
    "CMEM_OBSERVER_COMMAND" => "observer.command" => observer.command;
    "CMEM_OBSERVER_TIMEOUT_SECS" => "observer.timeout_secs" => observer.timeout_secs;
    "CMEM_TUI_THEME" => "tui.theme" => tui.theme;
    "CMEM_GATE_ENABLED" => "gate.enabled" => gate.enabled;
    "CMEM_GATE_DENY_MIN_BYTES" => "gate.deny_min_bytes" => gate.deny_min_bytes;
    "CMEM_GATE_CONTEXT_MIN_BYTES" => "gate.context_min_bytes" => gate.context_min_bytes;
    "CMEM_SEARCH_SEMANTIC" => "search.semantic" => search.semantic;
    "CMEM_SEARCH_BACKGROUND_EMBEDDING" => "search.background_embedding" => search.background_embedding;
    "CMEM_SYNC_URL" => "sync.url" => sync.url;
    "CMEM_SYNC_PROJECTS" => "sync.projects" => sync.projects;
    "CMEM_SYNC_RAW_TOOL_IO" => "sync.raw_tool_io" => sync.raw_tool_io;
    "CMEM_SYNC_AUTO" => "sync.auto" => sync.auto;
}

impl Settings {
    /// The resolved data dir (absolute when the user gave an absolute path).
    pub(crate) fn data_dir(&self) -> PathBuf {
        match &self.data_dir {
            Some(d) => paths::expand_tilde(d),
            None => paths::default_data_dir(),
        }
    }

    pub(crate) fn db_path(&self) -> PathBuf {
        paths::db_path(&self.data_dir())
    }

    fn apply_env(&mut self, get: &dyn Fn(&str) -> Option<String>) -> Result<()> {
        for key in ENV_KEYS {
            if let Some(value) = get(key.env) {
                (key.apply)(self, &value).map_err(|e| {
                    anyhow!(
                        "environment variable {} (setting `{}`): {e}",
                        key.env,
                        key.key
                    )
                })?;
            }
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), (String, String)> {
        if !matches!(self.log_level.as_str(), "error" | "warn" | "info" | "debug") {
            return Err((
                "log_level".into(),
                format!(
                    "must be error, warn, info or debug, not {:?}",
                    self.log_level
                ),
            ));
        }
        if self.capture.max_field_bytes < 1024 {
            return Err((
                "capture.max_field_bytes".into(),
                "must be at least 1024".into(),
            ));
        }
        if !matches!(self.context.full_field.as_str(), "narrative" | "facts") {
            return Err((
                "context.full_field".into(),
                format!(
                    "must be narrative or facts, not {:?}",
                    self.context.full_field
                ),
            ));
        }
        if !(5_000..=10_000).contains(&self.context.limit) {
            return Err((
                "context.limit".into(),
                "must be between 5000 and 10000 (Claude Code replaces longer context with a preview; the work state alone may take 3000)".into(),
            ));
        }
        // Only a named zone can be wrong, so only that is read here: hooks that never show a
        // time skip reading the local zone's file.
        let zone = &self.context.timezone;
        if !crate::clock::zone_always_loads(zone)
            && let Err(why) = crate::clock::load_zone(zone)
        {
            return Err(("context.timezone".into(), why));
        }
        if let Err(e) = crate::model::mode::check_id(self.context.mode.trim()) {
            return Err(("context.mode".into(), e.to_string()));
        }
        if self.observer.timeout_secs == 0 {
            return Err(("observer.timeout_secs".into(), "must be at least 1".into()));
        }
        if self.hook.deadline_ms == 0 || self.hook.deadline_ms > 1700 {
            return Err((
                "hook.deadline_ms".into(),
                "must be between 1 and 1700 (hooks answer within 2 s, and spooling takes time)"
                    .into(),
            ));
        }
        if let Some(url) = &self.sync.url
            && let Err(why) = check_sync_url(url)
        {
            return Err(("sync.url".into(), why));
        }
        Ok(())
    }
}

/// A cheap shape check of `sync.url` (the sync command parses it fully): hooks load settings
/// too and must not pay for more.
fn check_sync_url(url: &str) -> Result<(), String> {
    let url = url.trim();
    if url.is_empty() {
        return Err("is empty: remove it or give a postgres:// URL".into());
    }
    if url.contains("://") {
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(format!(
                "must start with postgres:// or postgresql://, not {:?}",
                url.split("://").next().unwrap_or_default()
            ));
        }
    } else if !url.contains('=') {
        return Err(
            "must be a postgres:// URL or a key=value string such as \"host=db.example.com dbname=cmem\""
                .into(),
        );
    }
    Ok(())
}

/// Where the settings came from, for `cmem config` and `cmem doctor`.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub settings: Settings,
    pub file: PathBuf,
    pub file_exists: bool,
}

/// Strict load for interactive commands: any problem is an error that says what to fix.
pub(crate) fn load() -> Result<Loaded> {
    let (file, explicit) = paths::config_file();
    let text = read_config_text(&file, explicit)?;
    let mut settings = match &text {
        Some(t) => parse_file(&file, t)?,
        None => Settings::default(),
    };
    settings.apply_env(&|k| std::env::var(k).ok())?;
    settings
        .validate()
        .map_err(|(key, msg)| anyhow!("setting `{key}`: {msg}"))
        .with_context(|| {
            format!(
                "in the settings from {} and CMEM_* variables",
                file.display()
            )
        })?;
    Ok(Loaded {
        settings,
        file_exists: text.is_some(),
        file,
    })
}

/// Lenient load for hooks: a broken file or variable is reported through `report` and the
/// defaults (plus every variable that still parses) are used instead.
pub(crate) fn load_lenient(report: &mut dyn FnMut(String)) -> Settings {
    let (file, explicit) = paths::config_file();
    let mut settings = match read_config_text(&file, explicit) {
        Ok(Some(t)) => parse_file(&file, &t).unwrap_or_else(|e| {
            report(format!("{e:#}; using defaults"));
            Settings::default()
        }),
        Ok(None) => Settings::default(),
        Err(e) => {
            report(format!("{e:#}; using defaults"));
            Settings::default()
        }
    };
    for key in ENV_KEYS {
        if let Ok(value) = std::env::var(key.env)
            && let Err(e) = (key.apply)(&mut settings, &value)
        {
            report(format!("ignoring {}: {e}", key.env));
        }
    }
    if let Err((key, msg)) = settings.validate() {
        report(format!("setting `{key}`: {msg}; using defaults"));
        let data_dir = settings.data_dir.take();
        settings = Settings {
            data_dir,
            ..Settings::default()
        };
    }
    settings
}

fn read_config_text(file: &Path, explicit: bool) -> Result<Option<String>> {
    match std::fs::read(file) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| anyhow!("config file {} is not valid UTF-8", file.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => Ok(None),
        Err(e) => Err(e).with_context(|| {
            format!(
                "cannot read config file {}{}",
                file.display(),
                if explicit {
                    " (named by CMEM_CONFIG; unset it or create the file)"
                } else {
                    ""
                }
            )
        }),
    }
}

/// Parses the config file text; errors name the file, line, column and dotted key.
pub(crate) fn parse_file(file: &Path, text: &str) -> Result<Settings> {
    let settings: Settings = toml::from_str(text).map_err(|e| {
        let (line, col, key) = match e.span() {
            Some(span) => locate(text, span.start),
            None => (0, 0, None),
        };
        let mut msg = format!("invalid config file {}", file.display());
        if line > 0 {
            let _ = write!(msg, ", line {line}, column {col}");
        }
        if let Some(key) = key {
            let _ = write!(msg, ", key `{key}`");
        }
        let _ = write!(
            msg,
            ": {}\nFix or remove that line; `cmem config --defaults` prints every key with its default.",
            e.message().trim()
        );
        anyhow!(msg)
    })?;
    if let Err((key, why)) = settings.validate() {
        let line = find_key_line(text, &key);
        bail!(
            "invalid config file {}{}, key `{key}`: {why}",
            file.display(),
            line.map(|l| format!(", line {l}")).unwrap_or_default()
        );
    }
    Ok(settings)
}

/// 1-based line and column of a byte offset, and the dotted key written on that line.
fn locate(text: &str, offset: usize) -> (usize, usize, Option<String>) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = before[line_start..].chars().count() + 1;
    let mut table = String::new();
    for l in text[..line_start].lines() {
        let t = l.trim();
        if t.starts_with('[') && t.ends_with(']') {
            table = t.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        }
    }
    let this_line = text[line_start..].lines().next().unwrap_or("");
    let key = this_line
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_string())
        .filter(|k| !k.is_empty() && !k.starts_with('['))
        .map(|k| {
            if table.is_empty() {
                k
            } else {
                format!("{table}.{k}")
            }
        });
    (line, col, key)
}

fn find_key_line(text: &str, dotted: &str) -> Option<usize> {
    let (table, key) = match dotted.rsplit_once('.') {
        Some((t, k)) => (t, k),
        None => ("", dotted),
    };
    let mut current = String::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if t.starts_with('[') && t.ends_with(']') {
            current = t.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        } else if current == table
            && t.split_once('=').map(|(k, _)| k.trim().trim_matches('"')) == Some(key)
        {
            return Some(i + 1);
        }
    }
    None
}

/// The defaults as a commented TOML document, for `cmem config --defaults`.
pub(crate) fn defaults_toml() -> String {
    let body = toml::to_string_pretty(&Settings::default()).unwrap_or_default();
    let mut out = String::from(
        "# cmem settings: defaults. Precedence: CMEM_* environment > this file > defaults.\n",
    );
    out.push_str("# Environment variables:\n");
    for key in ENV_KEYS {
        let _ = writeln!(out, "#   {:<24} {}", key.env, key.key);
    }
    out.push('\n');
    out.push_str(&body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Settings> {
        parse_file(Path::new("/tmp/config.toml"), text)
    }

    #[test]
    fn empty_file_gives_defaults() {
        assert_eq!(parse("").unwrap(), Settings::default());
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let err = parse("log_level = \"info\"\n[capture]\nskip_toolz = []\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("/tmp/config.toml"), "{err}");
        assert!(err.contains("line 3"), "{err}");
        assert!(err.contains("capture.skip_toolz"), "{err}");
    }

    #[test]
    fn wrong_type_names_line_and_key() {
        let err = parse("[capture]\nmax_field_bytes = \"lots\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("capture.max_field_bytes"), "{err}");
    }

    #[test]
    fn invalid_value_names_key() {
        let err = parse("[hook]\ndeadline_ms = 5000\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("hook.deadline_ms") && err.contains("line 2"),
            "{err}"
        );
    }

    #[test]
    fn env_beats_file() {
        let mut s =
            parse("excluded_projects = [\"a\"]\n[capture]\nmax_field_bytes = 2048\n").unwrap();
        let env = |k: &str| match k {
            "CMEM_EXCLUDED_PROJECTS" => Some("x, y".to_string()),
            _ => None,
        };
        s.apply_env(&env).unwrap();
        assert_eq!(s.excluded_projects, vec!["x", "y"]);
        assert_eq!(s.capture.max_field_bytes, 2048);
    }

    #[test]
    fn bad_env_value_names_variable() {
        let mut s = Settings::default();
        let env = |k: &str| (k == "CMEM_MAX_FIELD_BYTES").then(|| "big".to_string());
        let err = s.apply_env(&env).unwrap_err().to_string();
        assert!(err.contains("CMEM_MAX_FIELD_BYTES"), "{err}");
    }

    #[test]
    fn sync_settings_default_off_and_validated() {
        let s = parse("").unwrap();
        assert_eq!(s.sync.url, None);
        assert!(s.sync.projects.is_empty() && !s.sync.raw_tool_io);
        let ok = parse("[sync]\nurl = \"postgres://u@db/cmem\"\nprojects = [\"*\"]\n").unwrap();
        assert_eq!(ok.sync.projects, vec!["*"]);
        let err = parse("[sync]\nurl = \"mysql://db\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("sync.url") && err.contains("line 2"), "{err}");
        let mut s = Settings::default();
        let env = |k: &str| (k == "CMEM_SYNC_URL").then(|| "host=/tmp port=5433".to_string());
        s.apply_env(&env).unwrap();
        assert_eq!(s.sync.url.as_deref(), Some("host=/tmp port=5433"));
    }

    #[test]
    fn defaults_document_parses_back() {
        let text = defaults_toml();
        assert_eq!(parse(&text).unwrap(), Settings::default());
    }
}
