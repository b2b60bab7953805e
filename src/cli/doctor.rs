//! `cmem doctor`: is cmem healthy, and if not, what to do about it.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::install::{self, HOOKS, Scope};
use crate::config;
use crate::history::Source;
use crate::logging;
use crate::store::{self, Store, spool};

#[derive(Args)]
pub(crate) struct DoctorArgs {
    /// Also create the data dir and an empty database if they do not exist yet
    #[arg(long)]
    init: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    Ok,
    Warn,
    Fail,
}

struct Report {
    worst: Status,
}

impl Report {
    fn line(&mut self, status: Status, what: &str, detail: impl AsRef<str>) {
        self.worst = self.worst.max(status);
        let mark = match status {
            Status::Ok => "✓",
            Status::Warn => "!",
            Status::Fail => "✗",
        };
        println!("{mark} {what:<14} {}", detail.as_ref());
    }

    fn hint(&self, text: &str) {
        println!("  → {text}");
    }
}

pub(crate) fn run(args: &DoctorArgs, face: &super::face::Face) -> Result<ExitCode> {
    let mut r = Report { worst: Status::Ok };
    let loaded = match face.loaded() {
        Ok(l) => {
            let state = if l.file_exists {
                "valid"
            } else {
                "absent, using defaults"
            };
            r.line(
                Status::Ok,
                "config",
                format!("{} ({state})", l.file.display()),
            );
            l.settings.clone()
        }
        Err(e) => {
            r.line(Status::Fail, "config", format!("{e:#}"));
            r.hint("hooks ignore a broken config and use the defaults; fix the file named above");
            let mut noop = |_m: String| {};
            config::load_lenient(&mut noop)
        }
    };
    let data_dir = loaded.data_dir();
    check_data_dir(&mut r, &data_dir, args.init);
    check_database(&mut r, &loaded, args.init);
    check_history(&mut r, &loaded);
    check_sync(&mut r, &loaded);
    check_spool(&mut r, &data_dir);
    check_disk(&mut r, &data_dir);
    check_install(&mut r)?;
    check_hosts(&mut r);
    check_log(&mut r, &data_dir);
    println!();
    Ok(match r.worst {
        Status::Fail => {
            println!("Something needs attention (see → hints above).");
            ExitCode::FAILURE
        }
        Status::Warn => {
            println!("cmem works; the warnings above are worth a look.");
            ExitCode::SUCCESS
        }
        Status::Ok => {
            println!("All good.");
            ExitCode::SUCCESS
        }
    })
}

fn check_data_dir(r: &mut Report, dir: &Path, init: bool) {
    if init {
        let _ = std::fs::create_dir_all(dir);
    }
    if !dir.exists() {
        r.line(
            Status::Warn,
            "data dir",
            format!("{} (not created yet)", dir.display()),
        );
        r.hint("it is created by the first hook; `cmem doctor --init` creates it now");
        return;
    }
    let probe = dir.join(format!(".doctor-{}", std::process::id()));
    match std::fs::write(&probe, b"") {
        Ok(()) => {
            let _ = std::fs::remove_file(&probe);
            r.line(Status::Ok, "data dir", dir.display().to_string());
        }
        Err(e) => {
            r.line(
                Status::Fail,
                "data dir",
                format!("{} is not writable: {e}", dir.display()),
            );
            r.hint("fix its permissions or point CMEM_DATA_DIR elsewhere");
        }
    }
}

fn check_database(r: &mut Report, settings: &config::Settings, init: bool) {
    let path = &settings.db_path();
    let opened = if init {
        Store::open(path)
    } else {
        Store::open_existing(path)
    };
    let store = match opened {
        Ok(s) => s,
        Err(e) if !path.exists() => {
            r.line(Status::Warn, "database", format!("{e:#}"));
            return;
        }
        Err(e) => {
            r.line(Status::Fail, "database", format!("{e:#}"));
            r.hint(
                "move the file aside (hooks keep spooling meanwhile) and run `cmem doctor --init`",
            );
            return;
        }
    };
    let version = store.schema_version().unwrap_or(-1);
    let integrity: String = store
        .conn
        .query_row("PRAGMA quick_check", [], |row| row.get(0))
        .unwrap_or_else(|e| e.to_string());
    if integrity != "ok" {
        r.line(
            Status::Fail,
            "database",
            format!("{}: integrity check says {integrity}", path.display()),
        );
        r.hint("restore from a backup or move the file aside and run `cmem doctor --init`");
        return;
    }
    let status = match version {
        v if v == store::SCHEMA_VERSION => Status::Ok,
        v if v < store::SCHEMA_VERSION => Status::Warn,
        _ => Status::Fail,
    };
    r.line(
        status,
        "database",
        format!(
            "{} (schema v{version}, cmem expects v{})",
            path.display(),
            store::SCHEMA_VERSION
        ),
    );
    if status == Status::Warn {
        r.hint("it is migrated automatically by the next hook or `cmem doctor --init`");
    } else if status == Status::Fail {
        r.hint("the database was written by a newer cmem; upgrade this binary");
    }
    match store.table_counts() {
        Ok(counts) => {
            let text: Vec<String> = counts.iter().map(|(t, n)| format!("{t} {n}")).collect();
            r.line(Status::Ok, "rows", text.join(", "));
        }
        Err(e) => r.line(Status::Warn, "rows", format!("{e:#}")),
    }
    check_quarantine(r, &store);
    check_search(r, &store, settings.search.semantic, &settings.data_dir());
}

/// The other agents found on this machine: whether cmem's hooks and MCP server are in their
/// files, and for Codex whether it trusts the hooks (it skips untrusted ones silently).
fn check_hosts(r: &mut Report) {
    use crate::hook::Host;
    for host in [Host::Codex, Host::Gemini, Host::Cursor, Host::Copilot] {
        let found = super::install_hosts::inspect(host);
        if !found.present {
            continue;
        }
        let what = format!("{} hooks", host.name());
        if found.events.is_empty() {
            r.line(
                Status::Ok,
                &what,
                format!(
                    "{} is here, cmem is not installed for it (`cmem install --host {}`)",
                    crate::model::host_name(host.name()),
                    host.name()
                ),
            );
            continue;
        }
        let mcp = if found.mcp {
            "and the MCP server"
        } else {
            "(no MCP server)"
        };
        if found.events.len() < found.expected {
            r.line(
                Status::Warn,
                &what,
                format!("{} of {} events {mcp}", found.events.len(), found.expected),
            );
            r.hint(&format!("run `cmem install --host {}` again", host.name()));
        } else if !found.untrusted.is_empty() {
            r.line(
                Status::Warn,
                &what,
                format!(
                    "installed {mcp}, but Codex does not trust {} yet: it skips them without a word",
                    found.untrusted.join(", ")
                ),
            );
            r.hint("start `codex`, type /hooks and trust cmem's hooks");
        } else {
            let trusted = if host == Host::Codex {
                " (trusted)"
            } else {
                ""
            };
            r.line(
                Status::Ok,
                &what,
                format!("{} events{trusted} {mcp}", found.events.len()),
            );
        }
    }
}

/// Past sessions on disk that could become memory: named while the memory is empty (the
/// import is never run without being asked).
fn check_history(r: &mut Report, settings: &config::Settings) {
    let empty = match Store::open_existing(&settings.db_path()) {
        Ok(store) => store
            .conn
            .query_row(
                "SELECT NOT EXISTS (SELECT 1 FROM user_prompts) AND NOT EXISTS (SELECT 1 FROM observations)",
                [],
                |row| row.get::<_, bool>(0),
            )
            .unwrap_or(false),
        Err(_) => !settings.db_path().exists(),
    };
    if !empty {
        return;
    }
    for source in [Source::ClaudeCode, Source::Codex] {
        if let Some(found) = super::history::found_sentence(source) {
            r.line(Status::Ok, "history", format!("memory is empty; {found}"));
        }
    }
}

/// Whether this data dir shares memory, from local state only: the doctor never waits for a
/// server (`cmem sync status` asks it).
fn check_sync(r: &mut Report, settings: &config::Settings) {
    if settings.sync.url.is_none() {
        return r.line(
            Status::Ok,
            "sync",
            "off: memory stays on this machine ([sync] url or CMEM_SYNC_URL shares it, see `cmem sync`)",
        );
    }
    if !settings.db_path().exists() {
        return r.line(Status::Ok, "sync", "on, nothing recorded yet");
    }
    match crate::sync::status(settings, false) {
        Ok(st) => {
            let shared = if settings.sync.projects.is_empty() {
                "no project shared yet ([sync] projects)".to_string()
            } else {
                format!("sharing {}", settings.sync.projects.join(", "))
            };
            let pushed = match st.last_push {
                Some(ms) => format!("last push {}", crate::clock::format_utc_iso(ms)),
                None => "never pushed".to_string(),
            };
            r.line(
                Status::Ok,
                "sync",
                format!(
                    "{} ({shared}); {pushed}, {} changed since; `cmem sync status` asks the server",
                    st.server.unwrap_or_default(),
                    crate::text::plural(st.waiting as usize, "row", "rows")
                ),
            );
            if settings.sync.projects.is_empty() {
                r.hint("list the projects to share in [sync] projects (globs); nothing is shared by default");
            }
            if let Some((at, why)) = &st.last_error {
                r.line(
                    Status::Warn,
                    "sync",
                    format!(
                        "the last sync failed ({}): {why}",
                        crate::clock::format_utc_iso(*at)
                    ),
                );
                r.hint("run `cmem sync` to see it again; the next sync that works clears this");
            }
            if let Some((table, id, why)) = &st.refusal {
                r.line(
                    Status::Warn,
                    "sync",
                    format!(
                        "the server refused {} (newest: {table} {id}: {why})",
                        crate::text::plural(st.refused as usize, "row", "rows")
                    ),
                );
                r.hint("those rows stay on this machine; they are sent again when [sync] projects changes");
            }
        }
        Err(e) => r.line(Status::Warn, "sync", format!("{e:#}")),
    }
}

/// Which search cmem runs: by meaning and words, or words only, and why.
fn check_search(r: &mut Report, store: &Store, semantic: bool, data_dir: &std::path::Path) {
    if !semantic {
        return r.line(
            Status::Ok,
            "search",
            "lexical only (search.semantic = false in the config or CMEM_SEARCH_SEMANTIC)",
        );
    }
    let Some(model) = crate::embed::load(data_dir) else {
        r.line(
            Status::Warn,
            "search",
            "lexical only: the embedding model compiled into this binary did not load",
        );
        return r.hint("the log says why; reinstall cmem (scripts/install.sh)");
    };
    let (with, all) = match store::vectors::coverage(&store.conn, model.id()) {
        Ok(c) => c,
        Err(e) => {
            return r.line(
                Status::Warn,
                "search",
                format!("cannot count vectors: {e:#}"),
            );
        }
    };
    let thousands = crate::view::time::thousands;
    let vectors = if with >= all {
        format!("every record has its vector ({})", thousands(all))
    } else if model.inline() {
        format!(
            "{} of {} records have vectors; the MCP server and `cmem tui` embed the rest at their next search",
            thousands(with),
            thousands(all)
        )
    } else {
        format!(
            "{} of {} records wait for their vector (found by their words until then)",
            thousands(all - with),
            thousands(all)
        )
    };
    r.line(
        Status::Ok,
        "search",
        format!(
            "{}semantic + lexical: {}, {} dimensions, offline; {vectors}",
            if model.inline() { "" } else { "multilingual " },
            model.describe(),
            model.dims(),
        ),
    );
    if with < all && !model.inline() {
        r.hint("`cmem model backfill` embeds them now, with a progress line; the hooks start it in the background after each turn");
    }
}

/// Turns an observer died on: they are skipped until the user asks for another try.
fn check_quarantine(r: &mut Report, store: &Store) {
    const SHOWN: usize = 10;
    let turns = match store::quarantine::list(&store.conn) {
        Ok(t) => t,
        Err(e) => return r.line(Status::Warn, "observer", format!("{e:#}")),
    };
    if turns.is_empty() {
        return r.line(Status::Ok, "observer", "no quarantined turns");
    }
    r.line(
        Status::Warn,
        "observer",
        format!(
            "{} turn(s) quarantined: the observer failed on them and skips them",
            turns.len()
        ),
    );
    for q in turns.iter().take(SHOWN) {
        let session: String = q.content_session_id.chars().take(8).collect();
        let when = jiff::Timestamp::from_millisecond(q.at_ms).map_or_else(
            |_| q.at_ms.to_string(),
            |t| t.strftime("%Y-%m-%d %H:%M").to_string(),
        );
        println!(
            "    turn {} ({}, session {session}…, prompt {}) {} UTC, {}: {}",
            q.turn_id, q.project, q.prompt_number, when, q.observer, q.reason
        );
    }
    if turns.len() > SHOWN {
        println!("    … and {} more", turns.len() - SHOWN);
    }
    r.hint("`cmem observe --retry-quarantined` tries them again (after upgrading cmem, or to see the failure in the terminal); the log has what happened");
}

fn check_spool(r: &mut Report, data_dir: &Path) {
    match spool::backlog(data_dir) {
        0 => r.line(Status::Ok, "spool", "empty"),
        n => {
            r.line(
                Status::Warn,
                "spool",
                format!("{n} event(s) wait for the database"),
            );
            r.hint("the next hook that gets the database stores them; if this stays, the database is locked or broken");
        }
    }
}

/// Free space where the data dir is, and the events hooks had to drop (a full disk).
fn check_disk(r: &mut Report, data_dir: &Path) {
    const LOW: u64 = 64 * 1024 * 1024;
    let at = std::iter::successors(Some(data_dir), |p| p.parent()).find(|p| p.exists());
    let free = at.and_then(store::dropped::free_bytes);
    let free_text = free.map_or_else(
        || "free space unknown".to_string(),
        |b| match b as f64 / (1024.0 * 1024.0) {
            mib if mib >= 10.0 * 1024.0 => format!("{:.1} GiB free", mib / 1024.0),
            mib => format!("{mib:.1} MiB free"),
        },
    );
    let drops = store::dropped::read(data_dir).filter(|d| d.count > 0);
    let Some(d) = drops else {
        let low = free.is_some_and(|b| b < LOW);
        r.line(
            if low { Status::Warn } else { Status::Ok },
            "disk",
            format!("{free_text}, no event dropped"),
        );
        if low {
            r.hint("free some space: once the disk is full, new events are dropped");
        }
        return;
    };
    let low = free.is_some_and(|b| b < LOW);
    r.line(
        if low { Status::Fail } else { Status::Warn },
        "disk",
        format!(
            "{free_text}; {} event(s) dropped between {} and {}",
            d.count,
            crate::clock::format_utc_iso(d.first_ms),
            crate::clock::format_utc_iso(d.last_ms)
        ),
    );
    println!("    last reason: {}", d.reason);
    r.hint(&format!(
        "they are lost; free disk space so new events are kept (delete {} to reset the count)",
        store::dropped::path(data_dir).display()
    ));
}

fn check_install(r: &mut Report) -> Result<()> {
    let me = install::current_binary()?;
    let (cmem, path_hint) = invocation(&me);
    let mut hinted = false;
    let project_dir = install::default_project_dir()?;
    let mut any_hooks = false;
    let mut any_mcp = false;
    for scope in [Scope::User, Scope::Project, Scope::Local] {
        let label = format!("{scope:?}").to_lowercase();
        let found = match install::inspect(scope, &project_dir) {
            Ok(f) => f,
            Err(e) => {
                r.line(Status::Warn, "settings", format!("{label} scope: {e:#}"));
                continue;
            }
        };
        if !found.hooks.is_empty() {
            any_hooks = true;
            let missing: Vec<&str> = HOOKS
                .iter()
                .filter(|s| !found.hooks.iter().any(|(e, _)| *e == s.event))
                .map(|s| s.event.host_name())
                .collect();
            let foreign: Vec<String> = found
                .hooks
                .iter()
                .filter(|(_, bin)| !same_binary(bin, &me))
                .map(|(_, bin)| bin.display().to_string())
                .collect();
            if !missing.is_empty() {
                r.line(
                    Status::Fail,
                    "hooks",
                    format!("{label} scope lacks {}", missing.join(", ")),
                );
                r.hint(&format!("run `{cmem} install --scope {label}`"));
                hinted = true;
            } else if !foreign.is_empty() {
                r.line(
                    Status::Warn,
                    "hooks",
                    format!("{label} scope runs {} (not this binary)", foreign[0]),
                );
                r.hint(&format!(
                    "run `{cmem} install --scope {label}` to point them here"
                ));
                hinted = true;
            } else {
                r.line(
                    Status::Ok,
                    "hooks",
                    format!("{label} scope: all {} events", HOOKS.len()),
                );
            }
        }
        if let Some(cmd) = found.mcp_command {
            any_mcp = true;
            if !cmd.exists() {
                r.line(
                    Status::Fail,
                    "mcp server",
                    format!("{label} scope runs {}, which does not exist", cmd.display()),
                );
                r.hint(&format!("run `{cmem} install --scope {label}`"));
                hinted = true;
            } else if !same_binary(&cmd, &me) {
                r.line(
                    Status::Warn,
                    "mcp server",
                    format!("{label} scope runs {} (not this binary)", cmd.display()),
                );
            } else {
                r.line(
                    Status::Ok,
                    "mcp server",
                    format!("{label} scope: `cmem mcp`"),
                );
            }
        }
    }
    let other_agent = || {
        use crate::hook::Host;
        [Host::Codex, Host::Gemini, Host::Cursor, Host::Copilot]
            .into_iter()
            .any(|h| !super::install_hosts::inspect(h).events.is_empty())
    };
    if !any_hooks && other_agent() {
        // Memory for another agent only: Claude Code without cmem is a choice, not a fault.
        r.line(
            Status::Ok,
            "hooks",
            format!("not installed for Claude Code (`{cmem} install` adds them)"),
        );
        hinted = true;
    } else if !any_hooks {
        r.line(
            Status::Fail,
            "hooks",
            "not installed in any Claude Code settings",
        );
        r.hint(&format!(
            "run `{cmem} install` (user scope) or `{cmem} install --scope project`"
        ));
        hinted = true;
    }
    if !any_mcp && !any_hooks && other_agent() {
        r.line(Status::Ok, "mcp server", "not registered with Claude Code");
    } else if !any_mcp {
        r.line(
            Status::Fail,
            "mcp server",
            "not registered with Claude Code",
        );
        r.hint(&format!("run `{cmem} install`"));
        hinted = true;
    }
    if hinted && let Some(h) = path_hint {
        r.hint(&h);
    }
    Ok(())
}

/// How to run this binary in a hint: `cmem` when that is what the PATH finds, else its full
/// path, with a hint on putting it on the PATH (`cargo run -- doctor` before any install).
fn invocation(me: &Path) -> (String, Option<String>) {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("cmem"))
            .find(|c| c.is_file())
    });
    let get_there = "to have `cmem` on your PATH, run scripts/install.sh (or `cargo install --path .`) in cmem's source tree";
    match on_path {
        Some(found) if same_binary(&found, me) => ("cmem".into(), None),
        Some(found) => (
            "cmem".into(),
            Some(format!(
                "`cmem` on your PATH is {}, not this binary ({}); {get_there} to replace it",
                found.display(),
                me.display()
            )),
        ),
        None => (
            install::shell_quote(&me.to_string_lossy()),
            Some(format!(
                "`cmem` is not on your PATH yet, so this is the binary's full path; {get_there}"
            )),
        ),
    }
}

fn same_binary(a: &Path, b: &Path) -> bool {
    let ca = a.canonicalize().unwrap_or_else(|_| a.to_path_buf());
    let cb = b.canonicalize().unwrap_or_else(|_| b.to_path_buf());
    ca == cb
}

fn check_log(r: &mut Report, data_dir: &Path) {
    let problems = logging::recent_problems(data_dir, 5);
    if problems.is_empty() {
        r.line(
            Status::Ok,
            "log",
            format!("{} (no errors)", logging::log_file(data_dir).display()),
        );
        return;
    }
    r.line(
        Status::Warn,
        "log",
        format!(
            "last problems in {}:",
            logging::log_file(data_dir).display()
        ),
    );
    for e in problems {
        let first_line = e.message.lines().next().unwrap_or("");
        println!(
            "    {} {} [{}] {}",
            e.time, e.level, e.component, first_line
        );
    }
}
