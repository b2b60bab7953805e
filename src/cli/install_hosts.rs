//! `cmem install --host <codex|gemini|cursor|copilot>` and `cmem uninstall --host …`: cmem's
//! hooks and MCP server in another agent's files, with Claude Code's guarantees — only cmem's
//! entries written, every other byte kept (TOML comments and key order too), uninstall puts
//! the file from before install back byte for byte when it has not changed since, `--dry-run`
//! prints the diff.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};

use super::install::{
    Action, Plan, Record, apply, child_object, is_cmem_server, key, load_record, plan_install_text,
    plan_uninstall, pointer, prune_created, shell_quote, uninstalled_json,
};
use super::jsonfile::JsonFile;
use crate::hook::Host;
use crate::names::MCP_SERVER_NAME;

/// One hook cmem registers with a host: the host's event name and its timeout in the host's
/// unit (Gemini counts milliseconds, the others seconds).
struct HookEntry {
    event: &'static str,
    timeout: u64,
}

const CODEX_HOOKS: &[HookEntry] = &[
    HookEntry {
        event: "SessionStart",
        timeout: 5,
    },
    HookEntry {
        event: "UserPromptSubmit",
        timeout: 5,
    },
    HookEntry {
        event: "PostToolUse",
        timeout: 5,
    },
    HookEntry {
        event: "Stop",
        timeout: 5,
    },
    // Codex clamps a SessionEnd hook to 3 s and warns on every load when asked for more.
    HookEntry {
        event: "SessionEnd",
        timeout: 3,
    },
];
const GEMINI_HOOKS: &[HookEntry] = &[
    HookEntry {
        event: "SessionStart",
        timeout: 5_000,
    },
    HookEntry {
        event: "BeforeAgent",
        timeout: 5_000,
    },
    HookEntry {
        event: "AfterTool",
        timeout: 5_000,
    },
    HookEntry {
        event: "AfterAgent",
        timeout: 5_000,
    },
    HookEntry {
        event: "SessionEnd",
        timeout: 5_000,
    },
];
const CURSOR_HOOKS: &[HookEntry] = &[
    HookEntry {
        event: "sessionStart",
        timeout: 5,
    },
    HookEntry {
        event: "beforeSubmitPrompt",
        timeout: 5,
    },
    HookEntry {
        event: "postToolUse",
        timeout: 5,
    },
    HookEntry {
        event: "postToolUseFailure",
        timeout: 5,
    },
    HookEntry {
        event: "afterAgentResponse",
        timeout: 5,
    },
    HookEntry {
        event: "stop",
        timeout: 5,
    },
    HookEntry {
        event: "sessionEnd",
        timeout: 5,
    },
];
const COPILOT_HOOKS: &[HookEntry] = &[
    HookEntry {
        event: "sessionStart",
        timeout: 5,
    },
    HookEntry {
        event: "userPromptSubmitted",
        timeout: 5,
    },
    HookEntry {
        event: "postToolUse",
        timeout: 5,
    },
    HookEntry {
        event: "postToolUseFailure",
        timeout: 5,
    },
    HookEntry {
        event: "agentStop",
        timeout: 5,
    },
    HookEntry {
        event: "sessionEnd",
        timeout: 5,
    },
];

fn hooks_of(host: Host) -> &'static [HookEntry] {
    match host {
        Host::Codex => CODEX_HOOKS,
        Host::Gemini => GEMINI_HOOKS,
        Host::Cursor => CURSOR_HOOKS,
        Host::Copilot => COPILOT_HOOKS,
        Host::Claude => &[],
    }
}

/// Where a host keeps its files.
pub(crate) struct HostFiles {
    /// The JSON file the hooks go into.
    pub hooks: PathBuf,
    /// The file the MCP server goes into (Gemini: the same as the hooks'; Codex: TOML).
    pub mcp: PathBuf,
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The user's files of `host` (`cmem doctor` looks at these).
pub(crate) fn files(host: Host) -> HostFiles {
    files_for(host, None)
}

/// The host's files for the user, or (`project`) for one project: `.codex/`, `.gemini/`,
/// `.cursor/` in it, and for Copilot `.github/hooks/cmem.json` and `.github/mcp.json`.
fn files_for(host: Host, project: Option<&Path>) -> HostFiles {
    let home = crate::paths::home_dir();
    match (host, project) {
        (Host::Codex, Some(p)) => HostFiles {
            hooks: p.join(".codex").join("hooks.json"),
            mcp: p.join(".codex").join("config.toml"),
        },
        (Host::Codex, None) => {
            let dir = env_dir("CODEX_HOME").unwrap_or_else(|| home.join(".codex"));
            HostFiles {
                hooks: dir.join("hooks.json"),
                mcp: dir.join("config.toml"),
            }
        }
        (Host::Gemini, _) => {
            let base = project
                .map(Path::to_path_buf)
                .or_else(|| env_dir("GEMINI_CLI_HOME"))
                .unwrap_or(home);
            let settings = base.join(".gemini").join("settings.json");
            HostFiles {
                hooks: settings.clone(),
                mcp: settings,
            }
        }
        (Host::Cursor, _) => {
            let base = project.map_or(home, Path::to_path_buf).join(".cursor");
            HostFiles {
                hooks: base.join("hooks.json"),
                mcp: base.join("mcp.json"),
            }
        }
        (Host::Copilot, Some(p)) => HostFiles {
            hooks: p.join(".github").join("hooks").join("cmem.json"),
            mcp: p.join(".github").join("mcp.json"),
        },
        (Host::Copilot, None) => {
            let dir = env_dir("COPILOT_HOME").unwrap_or_else(|| home.join(".copilot"));
            HostFiles {
                hooks: dir.join("hooks").join("cmem.json"),
                mcp: dir.join("mcp-config.json"),
            }
        }
        (Host::Claude, _) => HostFiles {
            hooks: PathBuf::new(),
            mcp: PathBuf::new(),
        },
    }
}

fn command(binary: &Path, host: Host, event: &str) -> String {
    format!(
        "{} hook --host {} {event}",
        shell_quote(&binary.to_string_lossy()),
        host.name()
    )
}

/// A hook entry as the host writes it: Claude Code's nested group (Codex, Gemini) or a flat
/// entry (Cursor's `command`, Copilot's `bash`).
fn entry(host: Host, binary: &Path, hook: &HookEntry) -> Value {
    let cmd = command(binary, host, hook.event);
    match host {
        Host::Cursor => json!({"command": cmd, "timeout": hook.timeout}),
        Host::Copilot => json!({"type": "command", "bash": cmd, "timeoutSec": hook.timeout}),
        _ => json!({"hooks": [{"type": "command", "command": cmd, "timeout": hook.timeout}]}),
    }
}

fn is_cmem_command(v: Option<&Value>) -> bool {
    v.and_then(Value::as_str)
        .and_then(super::install::parse_cmem_hook)
        .is_some()
}

/// Whether a flat entry runs cmem, or a nested group holds a handler that does.
fn is_ours(entry: &Value) -> bool {
    is_cmem_command(entry.get("command"))
        || is_cmem_command(entry.get("bash"))
        || entry
            .get("hooks")
            .and_then(Value::as_array)
            .is_some_and(|h| h.iter().any(|x| is_cmem_command(x.get("command"))))
}

/// Takes cmem's entries out of one event's array: a nested group loses cmem's handlers and
/// goes when none is left; a flat entry of cmem's goes.
fn remove_ours(entries: &mut Vec<Value>) {
    entries.retain_mut(|e| {
        if let Some(handlers) = e.get_mut("hooks").and_then(Value::as_array_mut) {
            let before = handlers.len();
            handlers.retain(|h| !is_cmem_command(h.get("command")));
            return handlers.len() == before || !handlers.is_empty();
        }
        !is_ours(e)
    });
}

/// The keys a new hooks file starts with besides `hooks` (Codex refuses any other root key).
fn root_extras(host: Host) -> Map<String, Value> {
    let mut m = Map::new();
    match host {
        Host::Codex => {
            m.insert(
                "description".into(),
                json!("cmem: memory across sessions and agents"),
            );
        }
        Host::Cursor | Host::Copilot => {
            m.insert("version".into(), json!(1));
        }
        Host::Gemini | Host::Claude => {}
    }
    m
}

fn install_hooks(
    host: Host,
    file: &mut JsonFile,
    binary: &Path,
    created: &mut Vec<String>,
) -> Result<()> {
    let new = file.original.is_none();
    let root = file
        .value
        .as_object_mut()
        .with_context(|| format!("{} is not a JSON object", file.path.display()))?;
    if new {
        for (k, v) in root_extras(host) {
            root.insert(k, v);
        }
    }
    let hooks = child_object(root, "hooks", "", created)?;
    for hook in hooks_of(host) {
        if !hooks.contains_key(hook.event) {
            hooks.insert(hook.event.into(), json!([]));
            created.push(pointer(&["hooks", hook.event]));
        }
        let entries = hooks
            .get_mut(hook.event)
            .and_then(Value::as_array_mut)
            .with_context(|| format!("`hooks.{}` is not a JSON array", hook.event))?;
        let want = entry(host, binary, hook);
        let ours: Vec<&Value> = entries.iter().filter(|e| is_ours(e)).collect();
        if ours.len() == 1 && *ours[0] == want {
            continue;
        }
        remove_ours(entries);
        entries.push(want);
    }
    Ok(())
}

fn uninstall_hooks(root: &mut Value) {
    if let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) {
        for entries in hooks.values_mut() {
            if let Some(entries) = entries.as_array_mut() {
                remove_ours(entries);
            }
        }
    }
}

fn server(host: Host, binary: &Path) -> Value {
    let bin = binary.to_string_lossy();
    match host {
        Host::Copilot => {
            json!({"type": "local", "command": bin, "args": ["mcp"], "tools": ["*"]})
        }
        _ => json!({"command": bin, "args": ["mcp"]}),
    }
}

fn install_server(
    host: Host,
    root: &mut Value,
    binary: &Path,
    created: &mut Vec<String>,
) -> Result<()> {
    let obj = root.as_object_mut().context("file is not a JSON object")?;
    let servers = child_object(obj, "mcpServers", "", created)?;
    if let Some(existing) = servers.get(MCP_SERVER_NAME)
        && !is_cmem_server(existing)
    {
        bail!(
            "an MCP server named `{MCP_SERVER_NAME}` is already registered and does not run cmem; rename or remove it first"
        );
    }
    // cmem's own entry is updated in place: keys the person added to it (env, timeouts) stay.
    match servers
        .get_mut(MCP_SERVER_NAME)
        .and_then(Value::as_object_mut)
    {
        Some(existing) => {
            if let Value::Object(want) = server(host, binary) {
                for (k, v) in want {
                    existing.insert(k, v);
                }
            }
        }
        None => {
            servers.insert(MCP_SERVER_NAME.into(), server(host, binary));
        }
    }
    Ok(())
}

fn uninstall_server(root: &mut Value) {
    if let Some(servers) = root.get_mut("mcpServers").and_then(Value::as_object_mut)
        && servers.get(MCP_SERVER_NAME).is_some_and(is_cmem_server)
    {
        servers.shift_remove(MCP_SERVER_NAME);
    }
}

/// Containers cmem may have created in a hooks file, for uninstall without a record.
fn fallback_containers(host: Host) -> Vec<String> {
    let mut v = vec![pointer(&["hooks"]), pointer(&["mcpServers"])];
    v.extend(hooks_of(host).iter().map(|h| pointer(&["hooks", h.event])));
    v
}

/// A JSON file's plan: `edit` applies cmem's entries on install; `strip` takes them out.
fn json_plan(
    host: Host,
    path: &Path,
    action: Action,
    record: &Record,
    edit: &dyn Fn(&mut JsonFile, &mut Vec<String>) -> Result<()>,
    strip: &dyn Fn(&mut Value),
) -> Result<Plan> {
    let mut file = JsonFile::load(path)?;
    match action {
        Action::Install => {
            let before = file.value.clone();
            let mut created = Vec::new();
            edit(&mut file, &mut created)?;
            if file.original.is_none() {
                created.push(String::new());
            }
            let mut stripped = before.clone();
            strip(&mut stripped);
            let after = file.changed().then(|| file.render());
            Ok(plan_install_text(
                path,
                file.original.clone(),
                after,
                stripped != before,
                created,
                record.get(&key(path)),
            ))
        }
        Action::Uninstall => {
            strip(&mut file.value);
            prune_created(
                &mut file.value,
                record.get(&key(path)).map(|r| &r.created),
                &fallback_containers(host),
            );
            // A file install created holds nothing of the user's once only its starting
            // keys are left.
            let made_it = record.get(&key(path)).is_some_and(|r| r.created_file());
            if made_it
                && let Some(obj) = file.value.as_object_mut()
                && obj.iter().all(|(k, v)| root_extras(host).get(k) == Some(v))
            {
                obj.clear();
            }
            plan_uninstall(
                path,
                file.original.clone(),
                uninstalled_json(&file, record),
                record.get(&key(path)),
            )
        }
    }
}

/// Codex's `config.toml`: `[mcp_servers.cmem]`, edited with every comment and key order kept.
fn codex_toml_plan(path: &Path, binary: &Path, action: Action, record: &Record) -> Result<Plan> {
    let original = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut doc: toml_edit::DocumentMut =
        original.as_deref().unwrap_or("").parse().with_context(|| {
            format!(
                "{} is not valid TOML; fix it (cmem will not overwrite a file it cannot read)",
                path.display()
            )
        })?;
    let ours = |doc: &toml_edit::DocumentMut| {
        doc.get("mcp_servers")
            .and_then(|s| s.get(MCP_SERVER_NAME))
            .and_then(|t| t.get("command"))
            .and_then(|c| c.as_str())
            .is_some_and(|c| {
                Path::new(c)
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("cmem"))
            })
    };
    let had_cmem = ours(&doc);
    match action {
        Action::Install => {
            let servers = doc
                .entry("mcp_servers")
                .or_insert_with(|| {
                    let mut t = toml_edit::Table::new();
                    t.set_implicit(true);
                    toml_edit::Item::Table(t)
                })
                .as_table_mut()
                .with_context(|| format!("`mcp_servers` in {} is not a table", path.display()))?;
            if servers.contains_key(MCP_SERVER_NAME) && !had_cmem {
                bail!(
                    "an MCP server named `{MCP_SERVER_NAME}` is already in {} and does not run cmem; rename or remove it first",
                    path.display()
                );
            }
            let command = binary.to_string_lossy().into_owned();
            match servers
                .get_mut(MCP_SERVER_NAME)
                .and_then(|t| t.as_table_mut())
            {
                // cmem's own table is updated in place: keys the person added to it stay.
                Some(table) => {
                    if table.get("command").and_then(|c| c.as_str()) != Some(command.as_str()) {
                        table["command"] = toml_edit::value(command);
                    }
                    let args_ok = table
                        .get("args")
                        .and_then(|a| a.as_array())
                        .is_some_and(|a| {
                            a.len() == 1 && a.get(0).and_then(|v| v.as_str()) == Some("mcp")
                        });
                    if !args_ok {
                        let mut args = toml_edit::Array::new();
                        args.push("mcp");
                        table["args"] = toml_edit::value(args);
                    }
                }
                None => {
                    let mut table = toml_edit::Table::new();
                    table["command"] = toml_edit::value(command);
                    let mut args = toml_edit::Array::new();
                    args.push("mcp");
                    table["args"] = toml_edit::value(args);
                    servers.insert(MCP_SERVER_NAME, toml_edit::Item::Table(table));
                }
            }
            let after = doc.to_string();
            let created = if original.is_none() {
                vec![String::new()]
            } else {
                Vec::new()
            };
            Ok(plan_install_text(
                path,
                original,
                Some(after),
                had_cmem,
                created,
                record.get(&key(path)),
            ))
        }
        Action::Uninstall => {
            if had_cmem
                && let Some(servers) = doc.get_mut("mcp_servers").and_then(|s| s.as_table_mut())
            {
                servers.remove(MCP_SERVER_NAME);
                if servers.is_empty() && servers.is_implicit() {
                    doc.remove("mcp_servers");
                }
            }
            let made_it = record.get(&key(path)).is_some_and(|r| r.created_file());
            let after = doc.to_string();
            let edited = if original.is_none() || (made_it && after.trim().is_empty()) {
                None
            } else {
                Some(after)
            };
            plan_uninstall(path, original, edited, record.get(&key(path)))
        }
    }
}

/// What `cmem doctor` finds of cmem in a host's files.
pub(crate) struct Inspected {
    /// The host's own directory exists (the agent is used on this machine).
    pub present: bool,
    /// Host event names cmem's hooks are registered for.
    pub events: Vec<String>,
    pub expected: usize,
    pub mcp: bool,
    /// Codex: events whose cmem hook Codex does not trust yet (it skips them silently).
    pub untrusted: Vec<String>,
}

pub(crate) fn inspect(host: Host) -> Inspected {
    let f = files(host);
    let dir = match host {
        Host::Copilot => f.mcp.parent().map(Path::to_path_buf),
        _ => f.hooks.parent().map(Path::to_path_buf),
    };
    let read_json = |p: &Path| -> Value {
        std::fs::read_to_string(p)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    };
    let hooks_doc = read_json(&f.hooks);
    let mut events = Vec::new();
    let mut untrusted = Vec::new();
    let trust = (host == Host::Codex).then(|| {
        std::fs::read_to_string(&f.mcp)
            .ok()
            .and_then(|t| t.parse::<toml::Table>().ok())
            .unwrap_or_default()
    });
    if let Some(map) = hooks_doc.get("hooks").and_then(Value::as_object) {
        for (event, entries) in map {
            let Some(entries) = entries.as_array() else {
                continue;
            };
            if !entries.iter().any(is_ours) {
                continue;
            }
            events.push(event.clone());
            if let Some(config) = &trust {
                let trusted = entries.iter().enumerate().all(|(g, group)| {
                    group
                        .get("hooks")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .filter(|(_, h)| is_cmem_command(h.get("command")))
                        .all(|(i, h)| codex_trusted(config, &f.hooks, event, g, i, group, h))
                });
                if !trusted {
                    untrusted.push(event.clone());
                }
            }
        }
    }
    let mcp = match host {
        Host::Codex => trust.as_ref().is_some_and(|t| {
            t.get("mcp_servers")
                .and_then(|s| s.get(MCP_SERVER_NAME))
                .is_some()
        }),
        _ => read_json(&f.mcp)
            .pointer(&format!("/mcpServers/{MCP_SERVER_NAME}"))
            .is_some_and(is_cmem_server),
    };
    Inspected {
        present: dir.is_some_and(|d| d.is_dir()),
        events,
        expected: hooks_of(host).len(),
        mcp,
        untrusted,
    }
}

/// Whether Codex trusts handler `i` of group `g` of `event`: its `hooks.state` entry in
/// config.toml holds the hash Codex computes over the handler (sha256 of the compact JSON,
/// keys sorted, of the event label, the matcher and the normalised handler).
fn codex_trusted(
    config: &toml::Table,
    hooks_file: &Path,
    event: &str,
    g: usize,
    i: usize,
    group: &Value,
    handler: &Value,
) -> bool {
    use sha2::{Digest, Sha256};
    let label = snake(event);
    let key = format!("{}:{label}:{g}:{i}", hooks_file.display());
    let Some(stored) = config
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(|s| s.get(&key))
        .and_then(|e| e.get("trusted_hash"))
        .and_then(|h| h.as_str())
    else {
        return false;
    };
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(if event == "SessionEnd" { 1 } else { 600 });
    let timeout = if event == "SessionEnd" {
        timeout.clamp(1, 3)
    } else {
        timeout.max(1)
    };
    // Keys in sorted order, as Codex serialises them for the hash.
    let mut h = Map::new();
    h.insert("async".into(), json!(false));
    h.insert(
        "command".into(),
        handler.get("command").cloned().unwrap_or(Value::Null),
    );
    h.insert("timeout".into(), json!(timeout));
    h.insert("type".into(), json!("command"));
    let mut v = Map::new();
    v.insert("event_name".into(), json!(label));
    v.insert("hooks".into(), json!([Value::Object(h)]));
    if let Some(m) = group.get("matcher") {
        v.insert("matcher".into(), m.clone());
    }
    let digest = Sha256::digest(Value::Object(v).to_string().as_bytes());
    stored == format!("sha256:{}", crate::store::fingerprint::hex(&digest))
}

/// `SessionStart` → `session_start`.
fn snake(event: &str) -> String {
    let mut out = String::new();
    for (n, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if n > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `cmem install --host H` / `cmem uninstall --host H` (H not Claude Code).
pub(super) fn run_args(args: &super::install::InstallArgs, action: Action) -> Result<ExitCode> {
    let project = match args.scope {
        super::install::Scope::User => None,
        super::install::Scope::Project => Some(match &args.project_dir {
            Some(d) => std::path::absolute(d).context("cannot make --project-dir absolute")?,
            None => super::install::default_project_dir()?,
        }),
        super::install::Scope::Local => bail!(
            "--scope local is Claude Code's; for other agents use --scope user or --scope project"
        ),
    };
    let binary = super::install::binary_of(args)?;
    run(args.host, &binary, action, args.dry_run, project.as_deref())
}

fn run(
    host: Host,
    binary: &Path,
    action: Action,
    dry_run: bool,
    project: Option<&Path>,
) -> Result<ExitCode> {
    let f = files_for(host, project);
    let mut record = load_record();
    let mut plans = Vec::new();
    let hooks_edit = |file: &mut JsonFile, created: &mut Vec<String>| -> Result<()> {
        install_hooks(host, file, binary, created)?;
        if host == Host::Gemini {
            install_server(host, &mut file.value, binary, created)?;
        }
        Ok(())
    };
    let hooks_strip = |v: &mut Value| {
        uninstall_hooks(v);
        if host == Host::Gemini {
            uninstall_server(v);
        }
    };
    plans.push(json_plan(
        host,
        &f.hooks,
        action,
        &record,
        &hooks_edit,
        &hooks_strip,
    )?);
    match host {
        Host::Codex => plans.push(codex_toml_plan(&f.mcp, binary, action, &record)?),
        Host::Cursor | Host::Copilot => {
            let edit = |file: &mut JsonFile, created: &mut Vec<String>| {
                install_server(host, &mut file.value, binary, created)
            };
            plans.push(json_plan(
                host,
                &f.mcp,
                action,
                &record,
                &edit,
                &uninstall_server,
            )?);
        }
        Host::Gemini | Host::Claude => {}
    }
    let Some(applied) = apply(&plans, action, dry_run, &mut record)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let agent = crate::model::host_name(host.name());
    match (action, applied.changed) {
        (Action::Install, 0) => println!("cmem: already installed for {agent}; nothing changed"),
        (Action::Install, _) => {
            println!(
                "cmem: hooks for {} events → {}",
                hooks_of(host).len(),
                f.hooks.display()
            );
            println!("cmem: MCP server `{MCP_SERVER_NAME}` → {}", f.mcp.display());
            println!("cmem: runs {}", binary.display());
            match host {
                Host::Codex => println!(
                    "Codex runs new hooks only once you trust them: start `codex`, type /hooks and trust cmem's five (`cmem doctor` checks). Then every session starts with this project's memory."
                ),
                Host::Gemini => println!(
                    "Gemini CLI runs hooks only in trusted folders. Restart it to load them, then check with `cmem doctor`."
                ),
                _ => println!("Restart {agent} to load them, then check with `cmem doctor`."),
            }
        }
        (Action::Uninstall, 0) => println!("cmem: nothing of cmem's was installed for {agent}"),
        (Action::Uninstall, _) => {
            println!("cmem: removed cmem's hooks and MCP server for {agent}");
            for b in &applied.kept_backups {
                println!(
                    "cmem: kept {}: the file had changed since install, so only cmem's entries were taken out of it",
                    b.display()
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_trust_hash_is_codexs() {
        // The hash Codex 0.171's app-server reported for this handler (hooks/list).
        let handler = json!({"type": "command", "command": "echo hi", "timeout": 5});
        let group = json!({"hooks": [handler.clone()]});
        let mut config = toml::Table::new();
        let key = "/h/hooks.json:session_start:0:0";
        let text = format!(
            "[hooks.state.\"{key}\"]\ntrusted_hash = \"sha256:9e87c3ad0f08b294d080bebd23a4971ebf5c8d908f22a10ac0a01510508c7917\"\n"
        );
        config.extend(text.parse::<toml::Table>().unwrap());
        assert!(codex_trusted(
            &config,
            Path::new("/h/hooks.json"),
            "SessionStart",
            0,
            0,
            &group,
            &handler
        ));
        assert!(!codex_trusted(
            &config,
            Path::new("/h/hooks.json"),
            "SessionStart",
            0,
            1,
            &group,
            &handler
        ));
        assert_eq!(snake("UserPromptSubmit"), "user_prompt_submit");
    }

    #[test]
    fn entries_are_recognised_in_every_layout() {
        let bin = Path::new("/opt/cmem");
        for host in [Host::Codex, Host::Gemini, Host::Cursor, Host::Copilot] {
            for hook in hooks_of(host) {
                let e = entry(host, bin, hook);
                assert!(is_ours(&e), "{host:?} {}", hook.event);
                let mut list = vec![json!({"command": "other"}), e];
                remove_ours(&mut list);
                assert_eq!(list, [json!({"command": "other"})]);
            }
        }
        assert!(!is_ours(&json!({"bash": "npx other-tool hook"})));
    }
}
