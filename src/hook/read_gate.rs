//! PreToolUse on `Read`: the File Read Gate (README "The File Read Gate").
//!
//! A whole-file Read of a big source file that the memory already knows is denied, with a
//! reason that points to `smart_outline`/`smart_unfold` and lists the file's history. A Read
//! that goes through (smaller file, partial Read) gets that history as context, once per
//! session. Conditions are checked cheapest first; the database is asked last. Whenever
//! anything is in doubt the answer is the no-op. No tree-sitter runs here: "can cmem outline
//! this file?" is an extension check.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::capture;
use super::payload::Payload;
use crate::clock;
use crate::code::Lang;
use crate::config::Settings;
use crate::project;
use crate::store::{Store, Wait, observations};
use crate::view::file_history::{self, FileHistory};
use crate::view::time::Tz;

/// At most this many observations are fetched for a file, and this many shown.
/// Dedupe records of sessions older than this are deleted.
const SEEN_TTL_MS: i64 = 7 * 24 * 3_600_000;

/// Why the gate stayed out of the way (logged at debug level; tests read it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    NotRead,
    Subagent,
    Disabled,
    NoSinglePath,
    Excluded,
    Unverified,
    TooSmall,
    NoDatabase,
    NoHistory,
    ChangedSinceObserved,
    AlreadyInjected,
}

/// What the gate answers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decision {
    Pass(Pass),
    Deny(String),
    Context(String),
}

/// The hook's answer: the deny or context JSON, or `None` for the no-op.
pub(crate) fn answer(
    payload: &Payload,
    settings: &Settings,
    deadline: Instant,
) -> Result<Option<String>> {
    let decision = decide(payload, settings, deadline, clock::now_ms())?;
    crate::logging::debug(format!("read gate: {decision:?}"));
    Ok(match decision {
        Decision::Pass(_) => None,
        Decision::Deny(reason) => Some(
            json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }})
            .to_string(),
        ),
        // Never an explicit `allow`: that would skip the user's own permission prompt.
        Decision::Context(text) => Some(
            json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "additionalContext": text,
            }})
            .to_string(),
        ),
    })
}

/// A number or a numeric string (hosts send both); `Err` for anything else.
fn read_number(v: Option<&Value>) -> std::result::Result<Option<f64>, ()> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_f64().map(Some).ok_or(()),
        Some(Value::String(s)) => s.trim().parse::<f64>().map(Some).map_err(|_| ()),
        Some(_) => Err(()),
    }
}

pub(crate) fn decide(
    payload: &Payload,
    settings: &Settings,
    deadline: Instant,
    now_ms: i64,
) -> Result<Decision> {
    use Decision::Pass as P;
    if payload.str("tool_name") != Some("Read") {
        return Ok(P(Pass::NotRead));
    }
    if payload.agent_field("agent_id").is_some() {
        return Ok(P(Pass::Subagent));
    }
    let gate = &settings.gate;
    if !gate.enabled {
        return Ok(P(Pass::Disabled));
    }
    let session = payload.session_id()?.to_string();
    let Some(input) = payload.0.get("tool_input").and_then(Value::as_object) else {
        return Ok(P(Pass::NoSinglePath));
    };
    let file_path = match input.get("file_path") {
        Some(Value::String(p)) if !p.trim().is_empty() => p.as_str(),
        _ => return Ok(P(Pass::NoSinglePath)),
    };
    if input.get("filePaths").is_some_and(Value::is_array) {
        return Ok(P(Pass::NoSinglePath));
    }
    let cwd = match payload.str("cwd") {
        Some(c) => PathBuf::from(c),
        None => return Ok(P(Pass::Unverified)),
    };
    if capture::capture_disabled(&cwd, settings).is_some() {
        return Ok(P(Pass::Excluded));
    }
    let (Ok(offset), Ok(limit)) = (
        read_number(input.get("offset")),
        read_number(input.get("limit")),
    ) else {
        return Ok(P(Pass::Unverified));
    };
    let path = if Path::new(file_path).is_absolute() {
        PathBuf::from(file_path)
    } else {
        cwd.join(file_path)
    };
    let Ok(meta) = std::fs::metadata(&path) else {
        return Ok(P(Pass::Unverified));
    };
    if !meta.is_file() {
        return Ok(P(Pass::Unverified));
    }
    let size = meta.len();
    if size < gate.context_min_bytes {
        return Ok(P(Pass::TooSmall));
    }
    let Ok(mtime_ms) = meta.modified().map(epoch_ms) else {
        return Ok(P(Pass::Unverified));
    };

    // The deny conditions, cheapest first; each failing one leaves context only.
    let code = Lang::from_path(&path).is_some_and(Lang::is_code);
    let from_start = offset.is_none_or(|o| o <= 1.0);
    let real = path.canonicalize().ok();
    let real_cwd = cwd.canonicalize().ok();
    let inside = matches!((&real, &real_cwd), (Some(f), Some(c)) if f.starts_with(c));
    let mut deny =
        gate.deny_min_bytes > 0 && size >= gate.deny_min_bytes && code && from_start && inside;
    if deny && let Some(limit) = limit {
        // Deny only when the Read would return the whole file anyway.
        deny = match count_lines(&path, limit.max(0.0) as u64) {
            Some(lines) => lines as f64 <= limit,
            None => false,
        };
    }

    let keys = project::resolve(&cwd);
    let candidates = path_spellings(
        file_path,
        &path,
        real.as_deref(),
        &cwd,
        real_cwd.as_deref(),
        &keys.root,
    );
    let db = settings.db_path();
    if !db.is_file() {
        return Ok(P(Pass::NoDatabase));
    }
    let store = Store::open_with(&db, Wait::Until(deadline))?;
    let found = observations::mentioning_file(
        &store.conn,
        &keys.all,
        &candidates,
        file_history::CANDIDATES,
    )
    .context("cannot look up the file's observations")?;
    drop(store);
    let Some(newest) = found.first().map(|o| o.created_at) else {
        return Ok(P(Pass::NoHistory));
    };
    if mtime_ms >= newest {
        return Ok(P(Pass::ChangedSinceObserved));
    }
    let shown = file_history::shown(found, &candidates);
    let tz = Tz::from_setting(&settings.context.timezone).unwrap_or_else(|_| Tz::utc());
    let display = display_path(real.as_deref(), real_cwd.as_deref(), file_path);
    let history = FileHistory {
        file_path,
        display: &display,
        observations: &shown,
        now_ms,
        tz: &tz,
    };
    let key = real
        .as_deref()
        .unwrap_or(&path)
        .to_string_lossy()
        .into_owned();
    let claimed = claim(&settings.data_dir(), &session, &key, newest, now_ms);
    if deny {
        return Ok(Decision::Deny(
            file_history::deny_reason(&history).to_plain(),
        ));
    }
    if !claimed {
        return Ok(P(Pass::AlreadyInjected));
    }
    Ok(Decision::Context(
        file_history::context(&history).to_plain(),
    ))
}

fn epoch_ms(t: SystemTime) -> i64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Lines of a file, counted in 64 KiB chunks (a final line without newline counts). Counting
/// stops once it passes `stop_after`: the caller only asks "more lines than the limit?".
fn count_lines(path: &Path, stop_after: u64) -> Option<u64> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut lines = 0u64;
    let mut last = b'\n';
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        lines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
        last = buf[n - 1];
        if lines > stop_after {
            return Some(lines);
        }
    }
    if last != b'\n' {
        lines += 1;
    }
    Some(lines)
}

/// Every way an observation may have written this path: as given, absolute (real or not),
/// and relative to the cwd and to the project root.
fn path_spellings(
    given: &str,
    path: &Path,
    real: Option<&Path>,
    cwd: &Path,
    real_cwd: Option<&Path>,
    root: &Path,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |p: String| {
        if !p.is_empty() && !out.contains(&p) {
            out.push(p.clone());
            if !p.starts_with('/') && !p.starts_with("./") {
                out.push(format!("./{p}"));
            }
        }
    };
    add(given.to_string());
    add(path.to_string_lossy().into_owned());
    if let Some(r) = real {
        add(r.to_string_lossy().into_owned());
    }
    for base in [Some(cwd), real_cwd, Some(root)].into_iter().flatten() {
        for p in [Some(path), real].into_iter().flatten() {
            if let Ok(rel) = p.strip_prefix(base) {
                add(rel.to_string_lossy().into_owned());
            }
        }
    }
    out
}

fn display_path(real: Option<&Path>, real_cwd: Option<&Path>, given: &str) -> String {
    match (real, real_cwd) {
        (Some(f), Some(c)) => f
            .strip_prefix(c)
            .map(|r| r.to_string_lossy().into_owned())
            .unwrap_or_else(|_| given.to_string()),
        _ => given.to_string(),
    }
}

/// Records that this session was shown the file's history up to `newest`; `true` when that is
/// news (never shown, or a newer observation since). Fails open: trouble means "inject".
fn claim(data_dir: &Path, session: &str, file: &str, newest: i64, now_ms: i64) -> bool {
    let dir = data_dir.join("read-gate-seen");
    let digest = Sha256::digest(session.as_bytes());
    let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    let path = dir.join(format!("{name}.json"));
    let mut seen: BTreeMap<String, i64> = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
        Err(_) => {
            prune(&dir, now_ms);
            BTreeMap::new()
        }
    };
    if seen.get(file).is_some_and(|shown| *shown >= newest) {
        return false;
    }
    seen.insert(file.to_string(), newest);
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        let tmp = dir.join(format!("{name}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, serde_json::to_vec(&seen).unwrap_or_default())?;
        std::fs::rename(&tmp, &path)
    };
    if let Err(e) = write() {
        crate::logging::warn(format!(
            "read gate: cannot record what this session was shown in {}: {e}",
            dir.display()
        ));
    }
    true
}

/// Deletes the dedupe records of sessions last written more than 7 days ago.
fn prune(dir: &Path, now_ms: i64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now_ms - epoch_ms(t) > SEEN_TTL_MS);
        if old {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_like_an_editor() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.rs");
        std::fs::write(&f, "a\nb\nc").unwrap();
        assert_eq!(count_lines(&f, u64::MAX), Some(3));
        std::fs::write(&f, "a\nb\n").unwrap();
        assert_eq!(count_lines(&f, u64::MAX), Some(2));
        std::fs::write(&f, "x\n".repeat(70_000)).unwrap();
        assert_eq!(count_lines(&f, u64::MAX), Some(70_000));
        // Past the limit it stops at a chunk boundary: more than the limit, not all lines.
        let partial = count_lines(&f, 100).unwrap();
        assert!(partial > 100 && partial < 70_000, "{partial}");
    }

    #[test]
    fn claim_once_per_newest_observation_and_prune() {
        let dir = tempfile::tempdir().unwrap();
        assert!(claim(dir.path(), "s1", "/w/a.rs", 10, 100));
        assert!(!claim(dir.path(), "s1", "/w/a.rs", 10, 100));
        assert!(
            claim(dir.path(), "s1", "/w/a.rs", 11, 100),
            "a newer observation"
        );
        assert!(
            claim(dir.path(), "s2", "/w/a.rs", 11, 100),
            "another session"
        );
        let seen = dir.path().join("read-gate-seen");
        assert_eq!(std::fs::read_dir(&seen).unwrap().count(), 2);
        // A new session's first write prunes records older than 7 days.
        let later = clock::now_ms() + SEEN_TTL_MS + 60_000;
        assert!(claim(dir.path(), "s3", "/w/a.rs", 11, later));
        assert_eq!(std::fs::read_dir(&seen).unwrap().count(), 1);
    }

    #[test]
    fn numbers_and_numeric_strings() {
        assert_eq!(read_number(None), Ok(None));
        assert_eq!(read_number(Some(&json!(5))), Ok(Some(5.0)));
        assert_eq!(read_number(Some(&json!("12"))), Ok(Some(12.0)));
        assert_eq!(read_number(Some(&json!("x"))), Err(()));
        assert_eq!(read_number(Some(&json!([1]))), Err(()));
    }
}
