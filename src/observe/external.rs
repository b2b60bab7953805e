//! The external observer (`observer.command`): after the rule-based observer has done a turn,
//! a detached background process pipes the turn to the command and, when the command answers
//! with valid observation/summary XML in time, replaces the rule-based result with it.
//!
//! The hook only spawns `cmem observe --external` and returns; it never waits. At most one
//! worker runs per data dir (a lock file); it handles every waiting turn, one at a time, then
//! exits. Anything that goes wrong (the command fails, times out, prints nothing valid) leaves
//! the rule-based observations in place.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, params};

use super::event::{self, Kind};
use super::xml::{self, Reply};
use super::{attempt, new_observation, new_summary, prompt};
use crate::config::Settings;
use crate::logging;
use crate::model::mode::Mode;
use crate::model::{ObservationBody, SummaryBody};
use crate::store::Store;
use crate::store::quarantine::Observer;
use crate::store::summaries;
use crate::store::turns::{self, ToolRow, TurnRow};

/// The `source` of what the external observer writes.
pub(crate) const SOURCE_OBSERVER: &str = "observer";
pub(crate) const LOCK_FILE: &str = "observer.lock";
/// Turns observed longer ago than this are not sent (turning the command on later does not
/// replay the whole history).
const LOOKBACK_MS: i64 = 24 * 3600 * 1000;
/// More output than this from the command is not read.
const MAX_REPLY_BYTES: u64 = 4 * 1024 * 1024;

pub(crate) fn lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join(LOCK_FILE)
}

/// Hook side: starts the background worker in its own process group and returns at once.
pub(crate) fn spawn_worker(settings: &Settings) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find the cmem executable")?;
    let mut cmd = Command::new(exe);
    cmd.args(["observe", "--external"])
        .env("CMEM_DATA_DIR", settings.data_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own process group: the host killing the hook's group does not kill it.
        .process_group(0);
    // Not waited for: it outlives this hook and is reparented when the hook exits.
    let child = cmd.spawn().context("cannot start the external observer")?;
    logging::debug(format!("external observer started (pid {})", child.id()));
    Ok(())
}

/// How one turn went with the external command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TurnOutcome {
    Replaced { observations: usize, summary: bool },
    KeptRules(String),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WorkerReport {
    pub busy: bool,
    pub outcomes: Vec<(i64, TurnOutcome)>,
}

/// Worker side: handles every turn waiting for the external observer, unless another worker
/// holds the lock.
pub(crate) fn run_worker(settings: &Settings) -> Result<WorkerReport> {
    let mut report = WorkerReport::default();
    let Some(command) = settings
        .observer
        .command
        .clone()
        .filter(|c| !c.trim().is_empty())
    else {
        return Ok(report);
    };
    let data_dir = settings.data_dir();
    std::fs::create_dir_all(&data_dir)?;
    let timeout = Duration::from_secs(settings.observer.timeout_secs);
    loop {
        let lock = File::create(lock_path(&data_dir))
            .with_context(|| format!("cannot create {}", lock_path(&data_dir).display()))?;
        if lock.try_lock().is_err() {
            report.busy = report.outcomes.is_empty();
            return Ok(report);
        }
        let mut store = Store::open(&settings.db_path())?;
        // The mode names the types and concepts the observer is asked for and read back in.
        let mode =
            crate::model::mode::resolve_or_code(&settings.context.mode, &mut |e| logging::warn(e));
        while let Some(turn) = next_turn(&store.conn)? {
            let now = crate::clock::now_ms();
            let attempt = match attempt::start(&mut store, Observer::External, turn.id, now)? {
                attempt::Start::Go(a) => a,
                attempt::Start::Busy => return Ok(report),
                attempt::Start::Quarantined => continue,
            };
            let outcome = observe_turn(&mut store, &mode, &turn, &command, timeout);
            attempt.end();
            let outcome = outcome?;
            match &outcome {
                TurnOutcome::Replaced {
                    observations,
                    summary,
                } => logging::info(format!(
                    "external observer: turn {} → {observations} observation(s){}",
                    turn.id,
                    if *summary { " and a summary" } else { "" }
                )),
                TurnOutcome::KeptRules(why) => logging::warn(format!(
                    "external observer: kept the rule-based result for turn {}: {why}",
                    turn.id
                )),
            }
            report.outcomes.push((turn.id, outcome));
        }
        drop(store);
        drop(lock);
        // A hook may have found the lock held just before it was released: look once more.
        let store = Store::open(&settings.db_path())?;
        if next_turn(&store.conn)?.is_none() {
            return Ok(report);
        }
    }
}

fn next_turn(conn: &Connection) -> Result<Option<TurnRow>> {
    let since = crate::clock::now_ms() - LOOKBACK_MS;
    Ok(turns::awaiting_external(conn, since, 1)?.pop())
}

fn observe_turn(
    store: &mut Store,
    mode: &Mode,
    turn: &TurnRow,
    command: &str,
    timeout: Duration,
) -> Result<TurnOutcome> {
    let tools = turns::tool_uses(&store.conn, turn)?;
    let input = prompt::turn_text(mode, turn, &tools);
    let outcome = match run_command(command, &input, timeout) {
        Err(e) => TurnOutcome::KeptRules(format!("{e:#}")),
        Ok(stdout) => {
            let reply = xml::parse(&stdout, mode);
            if reply.is_empty() {
                TurnOutcome::KeptRules(if stdout.trim().is_empty() {
                    "the command printed nothing".into()
                } else {
                    "the command's reply held no valid observation or summary XML".into()
                })
            } else {
                store.write(|tx| apply_reply(tx, turn, &tools, &reply))?
            }
        }
    };
    let now = crate::clock::now_ms();
    store.write(|tx| turns::mark_external_observed(tx, turn.id, now))?;
    Ok(outcome)
}

/// Runs `sh -c command` with `input` on stdin; its stdout, or an error on failure or timeout
/// (then its whole process group is killed).
pub(crate) fn run_command(command: &str, input: &str, timeout: Duration) -> Result<String> {
    let deadline = Instant::now() + timeout;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        // The command may be an agent CLI with cmem's own hooks: they must not record it.
        .env("CMEM_INTERNAL", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .with_context(|| format!("cannot run the observer command {command:?}"))?;
    let pgid = child.id();
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.to_string();
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
    }
    let (tx, rx) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = stdout.take(MAX_REPLY_BYTES).read_to_end(&mut out);
            let _ = tx.send(out);
        });
    }
    let kill_group = |child: &mut std::process::Child| {
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{pgid}")])
            .stderr(Stdio::null())
            .status();
        let _ = child.kill();
        let _ = child.wait();
    };
    let status = loop {
        match child.try_wait()? {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                kill_group(&mut child);
                bail!(
                    "the observer command timed out after {} s",
                    timeout.as_secs()
                );
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let remaining = deadline.saturating_duration_since(Instant::now());
    let out = match rx.recv_timeout(remaining.max(Duration::from_millis(100))) {
        Ok(out) => out,
        Err(_) => {
            // Something the command started still holds its output open.
            kill_group(&mut child);
            bail!("the observer command's output stayed open past the timeout");
        }
    };
    if !status.success() {
        bail!("the observer command exited with {status}");
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn title_of(o: &ObservationBody) -> String {
    o.title
        .clone()
        .or_else(|| {
            o.narrative
                .as_deref()
                .and_then(|n| super::draft::first_line(n, 80))
        })
        .or_else(|| o.facts.first().cloned())
        .unwrap_or_else(|| "Untitled".into())
}

/// Which parsed observation a tool use belongs to: the one naming its file, else the first.
fn owner(tool: &ToolRow, place: &event::Place, parsed: &[ObservationBody]) -> usize {
    let ev = &event::parse_all(std::slice::from_ref(tool), place)[0];
    let path = match &ev.kind {
        Kind::Read { path, .. } => Some(path.clone()),
        Kind::Edit(e) => Some(e.path.clone()),
        _ => None,
    };
    path.and_then(|p| {
        parsed
            .iter()
            .position(|o| o.files_read.contains(&p) || o.files_modified.contains(&p))
    })
    .unwrap_or(0)
}

/// Replaces the rule-based observations and/or summary of a turn with the reply's.
fn apply_reply(
    conn: &Connection,
    turn: &TurnRow,
    tools: &[ToolRow],
    reply: &Reply,
) -> Result<TurnOutcome> {
    let mut stored = 0;
    if !reply.observations.is_empty() {
        let old: Vec<i64> = {
            let mut stmt = conn.prepare(
                "SELECT id FROM observations WHERE session_id = ?1 AND prompt_number = ?2 AND source = ?3",
            )?;
            stmt.query_map(
                params![turn.session_id, turn.prompt_number, super::SOURCE_RULES],
                |r| r.get(0),
            )?
            .collect::<rusqlite::Result<_>>()?
        };
        for id in &old {
            conn.execute(
                "UPDATE tool_uses SET observation_id = NULL WHERE observation_id = ?1",
                params![id],
            )?;
            conn.execute("DELETE FROM observations WHERE id = ?1", params![id])?;
        }
        let place = super::place_of(turn, tools);
        let events = event::parse_all(tools, &place);
        let mut sight = super::sight::Sight::new(&place, &events, turn, crate::clock::now_ms());
        let owners: Vec<usize> = tools
            .iter()
            .map(|t| owner(t, &place, &reply.observations))
            .collect();
        for (i, o) in reply.observations.iter().enumerate() {
            let mine: Vec<usize> = (0..tools.len()).filter(|&t| owners[t] == i).collect();
            let body = ObservationBody {
                title: Some(title_of(o)),
                ..o.clone()
            };
            let new = new_observation(body, &mine, turn, tools, SOURCE_OBSERVER);
            let ids: Vec<i64> = mine.iter().map(|&t| tools[t].id).collect();
            let id = super::store_observation(conn, &new, &ids)?;
            sight.record(conn, id, &new.body)?;
            stored += 1;
        }
    }
    let summary = match &reply.summary {
        Some(s) => {
            conn.execute(
                "DELETE FROM session_summaries WHERE session_id = ?1 AND prompt_number = ?2 AND source = ?3",
                params![turn.session_id, turn.prompt_number, super::SOURCE_RULES],
            )?;
            let mut files_read = Vec::new();
            let mut files_edited = Vec::new();
            for o in &reply.observations {
                for f in &o.files_read {
                    super::draft::push_unique(&mut files_read, f);
                }
                for f in &o.files_modified {
                    super::draft::push_unique(&mut files_edited, f);
                }
            }
            let body = SummaryBody {
                request: s.request.clone().or(Some(turn.prompt_text.clone())),
                files_read,
                files_edited,
                ..s.clone()
            };
            summaries::insert(conn, &new_summary(body, turn, tools, SOURCE_OBSERVER))?;
            true
        }
        None => false,
    };
    Ok(TurnOutcome::Replaced {
        observations: stored,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_time_out_and_their_children_die() {
        let started = Instant::now();
        let err = run_command("sleep 30 & sleep 30", "", Duration::from_millis(300)).unwrap_err();
        assert!(err.to_string().contains("timed out"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(
            run_command("cat", "hello", Duration::from_secs(5)).unwrap(),
            "hello"
        );
        assert!(run_command("exit 3", "", Duration::from_secs(5)).is_err());
    }
}
