//! `cmem install` / `cmem uninstall`: cmem's hooks and MCP server in Claude Code's settings.
//!
//! Idempotent (a second install changes nothing), keeps every other key and hook, writes
//! atomically with a backup (`<file>.cmem-backup`, the file as install found it). Uninstall
//! puts that text back byte for byte, whatever its formatting, when the file is still exactly
//! as cmem left it, and removes the backup; a file changed since has only cmem's entries taken
//! out (the containers `hooks`, an event's array, `mcpServers` that install had to create are
//! recorded in the data dir and removed again only if they are empty by then) and its backup is
//! kept. Files and directories install created go again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::jsonfile::JsonFile;
use crate::hook::{HookEvent, Host};
use crate::names::MCP_SERVER_NAME;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Scope {
    /// ~/.claude/settings.json and ~/.claude.json (every project)
    User,
    /// .claude/settings.json and .mcp.json in the project (shared with your team)
    Project,
    /// .claude/settings.local.json and this project's entry in ~/.claude.json (only you)
    Local,
}

#[derive(Args, Debug)]
pub(crate) struct InstallArgs {
    /// Which Claude Code settings to change
    #[arg(long, value_enum, default_value = "user")]
    pub scope: Scope,
    /// Print the changes as a diff and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// The cmem binary the hooks and MCP server run (default: this one)
    #[arg(long)]
    pub binary: Option<PathBuf>,
    /// The project for --scope project/local (default: the git top level of the current dir)
    #[arg(long)]
    pub project_dir: Option<PathBuf>,
    /// The agent: claude (default), codex, gemini, cursor or copilot (these with --scope user or
    /// project)
    #[arg(long, default_value = "claude", value_parser = parse_host)]
    pub host: Host,
    /// Install only: also turn the past Claude Code and Codex sessions on disk into memory now
    /// (`cmem import claude-code`, `cmem import codex`)
    #[arg(long)]
    pub import_history: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Install,
    Uninstall,
}

/// One hook registration: the event, its matcher and its timeout in seconds.
pub(crate) struct HookSpec {
    pub event: HookEvent,
    pub matcher: Option<&'static str>,
    pub timeout: u64,
}

/// What `cmem install` registers (the plugin's hooks.json under assets/ says the same).
pub(crate) const HOOKS: &[HookSpec] = &[
    HookSpec {
        event: HookEvent::SessionStart,
        matcher: Some("startup|resume|clear|compact"),
        timeout: 5,
    },
    HookSpec {
        event: HookEvent::UserPromptSubmit,
        matcher: None,
        timeout: 5,
    },
    HookSpec {
        event: HookEvent::PreToolUse,
        matcher: Some("Read"),
        timeout: 5,
    },
    HookSpec {
        event: HookEvent::PostToolUse,
        matcher: Some("*"),
        timeout: 5,
    },
    HookSpec {
        event: HookEvent::PostToolUseFailure,
        matcher: Some("*"),
        timeout: 5,
    },
    HookSpec {
        event: HookEvent::Stop,
        matcher: None,
        timeout: 5,
    },
    // Claude Code gives SessionEnd about 1.5 s unless a timeout says otherwise.
    HookSpec {
        event: HookEvent::SessionEnd,
        matcher: None,
        timeout: 10,
    },
];

/// The files a scope touches.
#[derive(Debug, Clone)]
pub(crate) struct Targets {
    pub settings: PathBuf,
    pub mcp_file: PathBuf,
    /// JSON path (object keys) to the object that holds `mcpServers`.
    pub mcp_parent: Vec<String>,
}

pub(crate) fn targets(scope: Scope, project_dir: &Path) -> Targets {
    let claude = crate::paths::claude_config_dir();
    match scope {
        Scope::User => Targets {
            settings: claude.join("settings.json"),
            mcp_file: crate::paths::claude_state_file(),
            mcp_parent: vec![],
        },
        Scope::Project => Targets {
            settings: project_dir.join(".claude/settings.json"),
            mcp_file: project_dir.join(".mcp.json"),
            mcp_parent: vec![],
        },
        Scope::Local => Targets {
            settings: project_dir.join(".claude/settings.local.json"),
            mcp_file: crate::paths::claude_state_file(),
            mcp_parent: vec![
                "projects".into(),
                project_dir.to_string_lossy().into_owned(),
            ],
        },
    }
}

pub(crate) fn default_project_dir() -> Result<PathBuf> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    Ok(crate::project::resolve(&cwd).root)
}

pub(crate) fn current_binary() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find the path of this cmem binary")?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

/// Quotes a path for the `sh -c` Claude Code runs hook commands with.
pub(crate) fn shell_quote(path: &str) -> String {
    if !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c))
    {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

pub(crate) fn hook_command(binary: &Path, event: HookEvent) -> String {
    format!(
        "{} hook {}",
        shell_quote(&binary.to_string_lossy()),
        event.cli_name()
    )
}

/// Splits a command line the way `sh` would for the simple cases install writes.
fn shell_words(cmd: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        _ => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// If `command` is a cmem hook command, its binary and event.
pub(crate) fn parse_cmem_hook_command(command: &str) -> Option<(PathBuf, HookEvent)> {
    parse_cmem_hook(command).map(|(program, _, event)| (program, event))
}

/// If `command` is a cmem hook command (`cmem hook EVENT` or `cmem hook --host H EVENT`), its
/// binary, host and event.
pub(crate) fn parse_cmem_hook(command: &str) -> Option<(PathBuf, Host, HookEvent)> {
    let words = shell_words(command);
    let (program, host, event) = match words.as_slice() {
        [program, hook, event] if hook == "hook" => (program, Host::Claude, event),
        [program, hook, flag, host, event] if hook == "hook" && flag == "--host" => {
            (program, Host::parse(host)?, event)
        }
        _ => return None,
    };
    let name = Path::new(program)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    if !name.starts_with("cmem") {
        return None;
    }
    Some((PathBuf::from(program), host, host.event(event)?))
}

pub(super) fn is_cmem_hook(entry: &Value) -> bool {
    entry
        .get("command")
        .and_then(Value::as_str)
        .and_then(parse_cmem_hook_command)
        .is_some()
}

fn desired_group(spec: &HookSpec, binary: &Path) -> Value {
    let mut group = Map::new();
    if let Some(m) = spec.matcher {
        group.insert("matcher".into(), json!(m));
    }
    group.insert(
        "hooks".into(),
        json!([{
            "type": "command",
            "command": hook_command(binary, spec.event),
            "timeout": spec.timeout,
        }]),
    );
    Value::Object(group)
}

/// Removes cmem's entries from an event's groups; drops groups left empty by that.
fn remove_cmem_entries(groups: &mut Vec<Value>) -> bool {
    let mut removed = false;
    groups.retain_mut(|group| {
        let Some(hooks) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = hooks.len();
        hooks.retain(|h| !is_cmem_hook(h));
        if hooks.len() == before {
            return true;
        }
        removed = true;
        !hooks.is_empty()
    });
    removed
}

pub(super) fn pointer(path: &[&str]) -> String {
    path.iter()
        .map(|p| format!("/{}", p.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// Gets `obj[key]` as an object, creating it (and recording that) when absent.
pub(super) fn child_object<'a>(
    obj: &'a mut Map<String, Value>,
    key: &str,
    here: &str,
    created: &mut Vec<String>,
) -> Result<&'a mut Map<String, Value>> {
    if !obj.contains_key(key) {
        obj.insert(key.to_string(), Value::Object(Map::new()));
        created.push(format!("{here}{}", pointer(&[key])));
    }
    obj.get_mut(key)
        .and_then(Value::as_object_mut)
        .with_context(|| format!("`{here}/{key}` exists but is not a JSON object"))
}

fn install_hooks(root: &mut Value, binary: &Path, created: &mut Vec<String>) -> Result<()> {
    let root = root
        .as_object_mut()
        .context("settings is not a JSON object")?;
    let hooks = child_object(root, "hooks", "", created)?;
    for spec in HOOKS {
        let name = spec.event.host_name();
        if !hooks.contains_key(name) {
            hooks.insert(name.into(), json!([]));
            created.push(pointer(&["hooks", name]));
        }
        let groups = hooks
            .get_mut(name)
            .and_then(Value::as_array_mut)
            .with_context(|| format!("`hooks.{name}` is not a JSON array"))?;
        let want = desired_group(spec, binary);
        let ours: Vec<&Value> = groups
            .iter()
            .filter(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_some_and(|h| h.iter().any(is_cmem_hook))
            })
            .collect();
        if ours.len() == 1 && *ours[0] == want {
            continue;
        }
        remove_cmem_entries(groups);
        groups.push(want);
    }
    Ok(())
}

fn uninstall_hooks(root: &mut Value) {
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return;
    };
    for groups in hooks.values_mut() {
        if let Some(groups) = groups.as_array_mut() {
            remove_cmem_entries(groups);
        }
    }
}

fn desired_server(binary: &Path) -> Value {
    json!({
        "type": "stdio",
        "command": binary.to_string_lossy(),
        "args": ["mcp"],
    })
}

pub(super) fn is_cmem_server(server: &Value) -> bool {
    let command = server.get("command").and_then(Value::as_str).unwrap_or("");
    let args = server.get("args").and_then(Value::as_array);
    Path::new(command)
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("cmem"))
        && args.is_some_and(|a| a.len() == 1 && a[0] == "mcp")
}

fn install_mcp(
    root: &mut Value,
    parent: &[String],
    binary: &Path,
    created: &mut Vec<String>,
) -> Result<()> {
    let mut obj = root.as_object_mut().context("file is not a JSON object")?;
    let mut here = String::new();
    for key in parent {
        obj = child_object(obj, key, &here.clone(), created)?;
        here.push_str(&pointer(&[key]));
    }
    let servers = child_object(obj, "mcpServers", &here, created)?;
    if let Some(existing) = servers.get(MCP_SERVER_NAME)
        && !is_cmem_server(existing)
    {
        bail!(
            "an MCP server named `{MCP_SERVER_NAME}` is already registered and does not run cmem; rename or remove it first"
        );
    }
    servers.insert(MCP_SERVER_NAME.into(), desired_server(binary));
    Ok(())
}

fn uninstall_mcp(root: &mut Value, parent: &[String]) {
    let mut node = Some(&mut *root);
    for key in parent {
        node = node.and_then(|n| n.get_mut(key));
    }
    if let Some(servers) = node
        .and_then(|n| n.get_mut("mcpServers"))
        .and_then(Value::as_object_mut)
        && servers.get(MCP_SERVER_NAME).is_some_and(is_cmem_server)
    {
        servers.shift_remove(MCP_SERVER_NAME);
    }
}

/// Removes the containers install created, deepest first, if they are empty now. Without a
/// record (install ran with another data dir), cmem's own well-known containers are removed
/// when empty.
pub(super) fn prune_created(root: &mut Value, created: Option<&Vec<String>>, fallback: &[String]) {
    let mut pointers: Vec<String> = created.cloned().unwrap_or_else(|| fallback.to_vec());
    pointers.sort_by_key(|p| std::cmp::Reverse(p.matches('/').count()));
    for p in pointers {
        let empty = match root.pointer(&p) {
            Some(Value::Object(m)) => m.is_empty(),
            Some(Value::Array(a)) => a.is_empty(),
            _ => false,
        };
        if !empty {
            continue;
        }
        let (parent, last) = p.rsplit_once('/').unwrap_or(("", &p));
        let key = last.replace("~1", "/").replace("~0", "~");
        let parent = if parent.is_empty() {
            Some(&mut *root)
        } else {
            root.pointer_mut(parent)
        };
        if let Some(Value::Object(m)) = parent {
            m.shift_remove(&key);
        }
    }
}

fn fallback_hook_containers() -> Vec<String> {
    let mut v = vec![pointer(&["hooks"])];
    v.extend(
        HOOKS
            .iter()
            .map(|s| pointer(&["hooks", s.event.host_name()])),
    );
    v
}

/// What install did to one file, so uninstall can undo exactly that.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct FileRecord {
    /// JSON pointers of the containers install created; `""` is the file itself.
    #[serde(default)]
    pub(super) created: Vec<String>,
    /// SHA-256 of the text install last wrote, kept only while the file's text from before cmem
    /// is known (in `<file>.cmem-backup`, or "no file" when install created it): if the file
    /// still reads so at uninstall, that text goes back byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    written: Option<String>,
    /// Directories install created for the file, deepest first; removed again when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    dirs: Vec<String>,
}

impl FileRecord {
    pub(super) fn is_empty(&self) -> bool {
        self.created.is_empty() && self.written.is_none() && self.dirs.is_empty()
    }

    pub(super) fn created_file(&self) -> bool {
        self.created.iter().any(String::is_empty)
    }
}

/// Per absolute file path. Older versions kept only the list of created containers.
pub(super) type Record = BTreeMap<String, FileRecord>;

#[derive(Deserialize)]
#[serde(untagged)]
enum StoredRecord {
    Current(FileRecord),
    Containers(Vec<String>),
}

fn record_path() -> PathBuf {
    let mut noop = |_m: String| {};
    crate::config::load_lenient(&mut noop)
        .data_dir()
        .join("install-state.json")
}

pub(super) fn load_record() -> Record {
    let stored: BTreeMap<String, StoredRecord> = std::fs::read_to_string(record_path())
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    stored
        .into_iter()
        .map(|(k, r)| {
            let r = match r {
                StoredRecord::Current(r) => r,
                StoredRecord::Containers(created) => FileRecord {
                    created,
                    ..FileRecord::default()
                },
            };
            (k, r)
        })
        .collect()
}

fn save_record(record: &Record) -> Result<()> {
    let path = record_path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&path, serde_json::to_string_pretty(record)?)
        .with_context(|| format!("cannot write {}", path.display()))
}

pub(super) fn key(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

pub(super) fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The directories above `path` that do not exist yet, deepest first.
fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    path.ancestors()
        .skip(1)
        .filter(|d| !d.as_os_str().is_empty())
        .take_while(|d| !d.exists())
        .map(Path::to_path_buf)
        .collect()
}

/// What happens to one file.
pub(super) struct Plan {
    pub(super) path: PathBuf,
    /// The text as found (`None`: no file).
    pub(super) original: Option<String>,
    /// The text to leave; `None`: remove the file.
    pub(super) after: Option<String>,
    pub(super) record: FileRecord,
    /// Install: the backup to write first (the file as found).
    pub(super) backup: Option<String>,
    /// Uninstall: the text from before cmem went back exactly, so its backup goes too.
    pub(super) restored: bool,
}

impl Plan {
    fn changes(&self) -> bool {
        self.after.as_deref() != self.original.as_deref()
    }
}

/// Install: the edited file; its backup and record say how to undo it exactly later.
fn plan_install(
    file: &JsonFile,
    before: &Value,
    strip: impl Fn(&mut Value),
    created: Vec<String>,
    old: Option<&FileRecord>,
) -> Plan {
    let mut stripped = before.clone();
    strip(&mut stripped);
    let had_cmem = stripped != *before;
    let after = file.changed().then(|| file.render());
    plan_install_text(
        &file.path,
        file.original.clone(),
        after,
        had_cmem,
        created,
        old,
    )
}

/// Install of any file: `after` is its new text (`None`: unchanged); `had_cmem`, whether the
/// file as found already held cmem's entries.
pub(super) fn plan_install_text(
    path: &Path,
    original: Option<String>,
    after: Option<String>,
    had_cmem: bool,
    created: Vec<String>,
    old: Option<&FileRecord>,
) -> Plan {
    let mut record = old.cloned().unwrap_or_default();
    for c in created {
        if !record.created.contains(&c) {
            record.created.push(c);
        }
    }
    let Some(after) = after.filter(|a| Some(a) != original.as_ref()) else {
        return Plan {
            path: path.to_path_buf(),
            after: original.clone(),
            original,
            record,
            backup: None,
            restored: false,
        };
    };
    let backup_path = super::jsonfile::backup_path(path);
    // Still exactly what cmem wrote last: the text from before cmem is still known.
    let still_ours = record.written.is_some()
        && record.written == original.as_deref().map(sha256)
        && (record.created_file() || backup_path.exists());
    // Nothing of cmem's in it yet: the file as found is the text to go back to.
    let pristine = !still_ours && (original.is_none() || !had_cmem);
    let backup = if still_ours { None } else { original.clone() };
    if original.is_none() && !still_ours {
        record.dirs = missing_dirs(path).iter().map(|d| key(d)).collect();
    }
    record.written = (still_ours || pristine).then(|| sha256(&after));
    Plan {
        path: path.to_path_buf(),
        original,
        after: Some(after),
        record,
        backup,
        restored: false,
    }
}

/// Uninstall: the text from before cmem when the file is still as cmem left it, else `edited`
/// (cmem's entries taken out of what is there now; `None` removes a file install created).
pub(super) fn plan_uninstall(
    path: &Path,
    original: Option<String>,
    edited: Option<String>,
    old: Option<&FileRecord>,
) -> Result<Plan> {
    let record = old.cloned().unwrap_or_default();
    let backup_path = super::jsonfile::backup_path(path);
    let unchanged = record.written.is_some() && record.written == original.as_deref().map(sha256);
    let plan = |after, backup, restored| Plan {
        path: path.to_path_buf(),
        original: original.clone(),
        after,
        record: record.clone(),
        backup,
        restored,
    };
    if unchanged && record.created_file() {
        return Ok(plan(None, None, true));
    }
    if unchanged && backup_path.exists() {
        let text = std::fs::read_to_string(&backup_path)
            .with_context(|| format!("cannot read the backup {}", backup_path.display()))?;
        return Ok(plan(Some(text), None, true));
    }
    // Without a backup from install, the file as found now is kept before it is edited.
    let backup = (!backup_path.exists() && edited.is_some())
        .then(|| original.clone())
        .flatten();
    Ok(plan(edited, backup, false))
}

/// A JSON file after cmem's entries were taken out: `None` when install created it and nothing
/// is left in it (or it never existed).
pub(super) fn uninstalled_json(file: &JsonFile, record: &Record) -> Option<String> {
    let made_it = record
        .get(&key(&file.path))
        .is_some_and(FileRecord::created_file);
    if file.original.is_none() || (made_it && file.value.as_object().is_some_and(Map::is_empty)) {
        None
    } else if file.changed() {
        Some(file.render())
    } else {
        file.original.clone()
    }
}

/// What applying the plans did.
pub(super) struct Applied {
    pub(super) changed: usize,
    pub(super) kept_backups: Vec<PathBuf>,
}

/// Writes the plans (backups first) and the record; on a dry run prints the diffs instead and
/// returns `None`.
pub(super) fn apply(
    plans: &[Plan],
    action: Action,
    dry_run: bool,
    record: &mut Record,
) -> Result<Option<Applied>> {
    if dry_run {
        let mut any = false;
        for plan in plans.iter().filter(|p| p.changes()) {
            any = true;
            match &plan.after {
                Some(text) => print!(
                    "{}",
                    super::jsonfile::unified_diff(
                        plan.original.as_deref().unwrap_or_default(),
                        text,
                        &plan.path.display().to_string()
                    )
                ),
                None => println!(
                    "cmem: would remove {} (install created it)",
                    plan.path.display()
                ),
            }
        }
        if !any {
            println!("cmem: nothing to change");
        }
        return Ok(None);
    }
    let mut changed = 0;
    let mut kept_backups = Vec::new();
    for plan in plans {
        let path = &plan.path;
        let backup = super::jsonfile::backup_path(path);
        if plan.changes() {
            changed += 1;
            if let Some(text) = &plan.backup {
                std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
                std::fs::write(&backup, text)
                    .with_context(|| format!("cannot write the backup {}", backup.display()))?;
            }
            match &plan.after {
                Some(text) => super::jsonfile::write_atomic(path, text)?,
                None => std::fs::remove_file(path)
                    .with_context(|| format!("cannot remove {}", path.display()))?,
            }
        }
        let file_key = key(path);
        match action {
            Action::Install => {
                record.insert(file_key, plan.record.clone());
            }
            Action::Uninstall => {
                let removed_ours = plan.after.is_none() && plan.record.created_file();
                if plan.restored || (removed_ours && plan.changes()) {
                    let _ = std::fs::remove_file(&backup);
                } else if plan.changes() && backup.exists() {
                    kept_backups.push(backup);
                }
                if plan.after.is_none() {
                    // Directories install created for the file, if nothing else is in them.
                    for dir in &plan.record.dirs {
                        let _ = std::fs::remove_dir(dir);
                    }
                }
                record.remove(&file_key);
            }
        }
    }
    record.retain(|_, v| !v.is_empty());
    save_record(record)?;
    Ok(Some(Applied {
        changed,
        kept_backups,
    }))
}

fn parse_host(name: &str) -> std::result::Result<Host, String> {
    Host::parse(name).ok_or_else(|| {
        let known: Vec<&str> = Host::ALL.iter().map(|h| h.name()).collect();
        format!(
            "unknown agent {name:?}; cmem installs into {}",
            known.join(", ")
        )
    })
}

/// The binary the hooks and the MCP server run: `--binary`, else this one.
pub(super) fn binary_of(args: &InstallArgs) -> Result<PathBuf> {
    match &args.binary {
        Some(b) => std::path::absolute(b).context("cannot make --binary absolute"),
        None => current_binary(),
    }
}

pub(crate) fn run(args: &InstallArgs, action: Action) -> Result<ExitCode> {
    if args.host != Host::Claude {
        bail!("install::run is Claude Code's; other agents go through install_hosts::run");
    }
    let binary = binary_of(args)?;
    let project_dir = match &args.project_dir {
        Some(d) => std::path::absolute(d).context("cannot make --project-dir absolute")?,
        None => default_project_dir()?,
    };
    let t = targets(args.scope, &project_dir);
    let mut record = load_record();

    let mut settings = JsonFile::load(&t.settings)?;
    let mut mcp = JsonFile::load(&t.mcp_file)?;
    let settings_before = settings.value.clone();
    let mcp_before = mcp.value.clone();
    let plans = match action {
        Action::Install => {
            let mut created_settings = Vec::new();
            let mut created_mcp = Vec::new();
            install_hooks(&mut settings.value, &binary, &mut created_settings)?;
            install_mcp(&mut mcp.value, &t.mcp_parent, &binary, &mut created_mcp)?;
            if settings.original.is_none() {
                created_settings.push(String::new());
            }
            if mcp.original.is_none() {
                created_mcp.push(String::new());
            }
            let parent = t.mcp_parent.clone();
            [
                plan_install(
                    &settings,
                    &settings_before,
                    uninstall_hooks,
                    created_settings,
                    record.get(&key(&settings.path)),
                ),
                plan_install(
                    &mcp,
                    &mcp_before,
                    move |v| uninstall_mcp(v, &parent),
                    created_mcp,
                    record.get(&key(&mcp.path)),
                ),
            ]
        }
        Action::Uninstall => {
            uninstall_hooks(&mut settings.value);
            prune_created(
                &mut settings.value,
                record.get(&key(&t.settings)).map(|r| &r.created),
                &fallback_hook_containers(),
            );
            uninstall_mcp(&mut mcp.value, &t.mcp_parent);
            let mut parent: Vec<&str> = t.mcp_parent.iter().map(String::as_str).collect();
            parent.push("mcpServers");
            prune_created(
                &mut mcp.value,
                record.get(&key(&t.mcp_file)).map(|r| &r.created),
                &[pointer(&parent)],
            );
            // A file install had to create is removed again once nothing is left in it.
            [
                plan_uninstall(
                    &settings.path,
                    settings.original.clone(),
                    uninstalled_json(&settings, &record),
                    record.get(&key(&settings.path)),
                )?,
                plan_uninstall(
                    &mcp.path,
                    mcp.original.clone(),
                    uninstalled_json(&mcp, &record),
                    record.get(&key(&mcp.path)),
                )?,
            ]
        }
    };

    let Some(Applied {
        changed,
        kept_backups,
    }) = apply(&plans, action, args.dry_run, &mut record)?
    else {
        return Ok(ExitCode::SUCCESS);
    };

    let scope = format!("{:?}", args.scope).to_lowercase();
    match (action, changed) {
        (Action::Install, 0) => {
            println!("cmem: already installed ({scope} scope); nothing changed")
        }
        (Action::Install, _) => {
            println!(
                "cmem: hooks for {} events → {}",
                HOOKS.len(),
                t.settings.display()
            );
            println!(
                "cmem: MCP server `{MCP_SERVER_NAME}` → {}",
                t.mcp_file.display()
            );
            println!("cmem: runs {}", binary.display());
            println!("Restart Claude Code to load them, then check with `cmem doctor`.");
        }
        (Action::Uninstall, 0) => println!("cmem: nothing of cmem's was installed ({scope} scope)"),
        (Action::Uninstall, _) => {
            println!("cmem: removed cmem's hooks from {}", t.settings.display());
            println!(
                "cmem: removed the MCP server `{MCP_SERVER_NAME}` from {}",
                t.mcp_file.display()
            );
            for b in &kept_backups {
                println!(
                    "cmem: kept {}: the file had changed since install, so only cmem's entries were taken out of it (delete the backup when you no longer need it)",
                    b.display()
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What is installed in one scope, for `cmem doctor`.
pub(crate) struct Installed {
    pub hooks: Vec<(HookEvent, PathBuf)>,
    pub mcp_command: Option<PathBuf>,
}

pub(crate) fn inspect(scope: Scope, project_dir: &Path) -> Result<Installed> {
    let t = targets(scope, project_dir);
    let settings = JsonFile::load(&t.settings)?;
    let mut hooks = Vec::new();
    if let Some(map) = settings.value.get("hooks").and_then(Value::as_object) {
        for groups in map.values().filter_map(Value::as_array) {
            for group in groups {
                for h in group
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(found) = h
                        .get("command")
                        .and_then(Value::as_str)
                        .and_then(parse_cmem_hook_command)
                    {
                        hooks.push((found.1, found.0));
                    }
                }
            }
        }
    }
    let mcp = JsonFile::load(&t.mcp_file)?;
    let mut node = Some(&mcp.value);
    for key in &t.mcp_parent {
        node = node.and_then(|n| n.get(key));
    }
    let mcp_command = node
        .and_then(|n| n.get("mcpServers"))
        .and_then(|s| s.get(MCP_SERVER_NAME))
        .filter(|s| is_cmem_server(s))
        .and_then(|s| s.get("command"))
        .and_then(Value::as_str)
        .map(PathBuf::from);
    Ok(Installed { hooks, mcp_command })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_commands_it_writes() {
        for path in ["/usr/bin/cmem", "/home/a b/it's/cmem"] {
            let cmd = hook_command(Path::new(path), HookEvent::PostToolUseFailure);
            let (bin, ev) = parse_cmem_hook_command(&cmd).unwrap();
            assert_eq!(bin, PathBuf::from(path));
            assert_eq!(ev, HookEvent::PostToolUseFailure);
        }
        assert!(parse_cmem_hook_command("npx claude-mem hook stop").is_none());
        assert!(parse_cmem_hook_command("/x/cmem hook stop --verbose").is_none());
    }

    #[test]
    fn install_is_idempotent_and_uninstall_restores() {
        let mut v = json!({"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}});
        let orig = v.clone();
        let mut created = Vec::new();
        install_hooks(&mut v, Path::new("/bin/cmem"), &mut created).unwrap();
        let once = v.clone();
        let mut again = Vec::new();
        install_hooks(&mut v, Path::new("/bin/cmem"), &mut again).unwrap();
        assert_eq!(v, once);
        assert!(again.is_empty());
        assert_eq!(v["hooks"]["Stop"].as_array().unwrap().len(), 2);
        uninstall_hooks(&mut v);
        prune_created(&mut v, Some(&created), &[]);
        assert_eq!(v, orig);
    }

    #[test]
    fn reinstall_with_new_binary_replaces_old_entries() {
        let mut v = json!({});
        let mut created = Vec::new();
        install_hooks(&mut v, Path::new("/old/cmem"), &mut created).unwrap();
        install_hooks(&mut v, Path::new("/new/cmem"), &mut created).unwrap();
        let text = v.to_string();
        assert!(!text.contains("/old/cmem"), "{text}");
        assert_eq!(v["hooks"]["PostToolUse"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn refuses_to_clobber_a_foreign_server_named_cmem() {
        let mut v = json!({"mcpServers": {"cmem": {"command": "node", "args": ["x.js"]}}});
        let err = install_mcp(&mut v, &[], Path::new("/bin/cmem"), &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("already registered"));
    }
}
