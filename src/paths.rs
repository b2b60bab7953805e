//! Where cmem keeps things: data dir, database, logs, config file.
//!
//! XDG variables are resolved by hand (an empty variable counts as unset) so the layout is the
//! same on every OS, like atuin does.

use std::path::{Path, PathBuf};

pub(crate) const DB_FILE: &str = "cmem.db";
pub(crate) const LOG_DIR: &str = "logs";
pub(crate) const SPOOL_FILE: &str = "spool.jsonl";

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

pub(crate) fn home_dir() -> PathBuf {
    non_empty_env("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// A path as a person writes it: under the home directory as `~/…`.
pub(crate) fn tilde(path: &Path) -> String {
    let home = home_dir();
    match path.strip_prefix(&home) {
        Ok(rest) if home != Path::new("/") => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}

/// Expands a leading `~` or `~/`.
pub(crate) fn expand_tilde(path: &str) -> PathBuf {
    if path == "~" {
        home_dir()
    } else if let Some(rest) = path.strip_prefix("~/") {
        home_dir().join(rest)
    } else {
        PathBuf::from(path)
    }
}

fn xdg_dir(var: &str, fallback: &str) -> PathBuf {
    non_empty_env(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| home_dir().join(fallback))
}

pub(crate) fn default_data_dir() -> PathBuf {
    xdg_dir("XDG_DATA_HOME", ".local/share").join("cmem")
}

/// `CMEM_CONFIG`, else `$XDG_CONFIG_HOME/cmem/config.toml`. The bool says whether the user named
/// the file explicitly (then a missing file is an error, not "use defaults").
pub(crate) fn config_file() -> (PathBuf, bool) {
    match non_empty_env("CMEM_CONFIG") {
        Some(p) => (expand_tilde(&p), true),
        None => (config_dir().join("config.toml"), false),
    }
}

pub(crate) fn config_dir() -> PathBuf {
    xdg_dir("XDG_CONFIG_HOME", ".config").join("cmem")
}

pub(crate) fn db_path(data_dir: &Path) -> PathBuf {
    data_dir.join(DB_FILE)
}

pub(crate) fn log_dir(data_dir: &Path) -> PathBuf {
    data_dir.join(LOG_DIR)
}

pub(crate) fn spool_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SPOOL_FILE)
}

/// Claude Code's own config dir (`CLAUDE_CONFIG_DIR`, default `~/.claude`).
pub(crate) fn claude_config_dir() -> PathBuf {
    non_empty_env("CLAUDE_CONFIG_DIR")
        .map(|p| expand_tilde(&p))
        .unwrap_or_else(|| home_dir().join(".claude"))
}

/// The file where Claude Code keeps user- and local-scope MCP servers: `~/.claude.json`, or
/// `.claude.json` inside `CLAUDE_CONFIG_DIR` when that is set.
pub(crate) fn claude_state_file() -> PathBuf {
    match non_empty_env("CLAUDE_CONFIG_DIR") {
        Some(p) => expand_tilde(&p).join(".claude.json"),
        None => home_dir().join(".claude.json"),
    }
}
