//! `cmem hook <event>`: Claude Code hooks under a fail-open contract.
//!
//! Whatever happens, a hook exits 0 and prints exactly one JSON object on stdout: its answer,
//! or the event's no-op. Reasons go to the log. A hook answers before its deadline even when the
//! database stays locked: the busy handler gives up at `hook.deadline_ms`, the capture goes to
//! the spool, and a timer signal answers no-op (spooling whatever is pending) if anything else
//! hangs past the hard deadline (`deadline`).

mod auto_sync;
pub mod capture;
pub(crate) mod deadline;
mod detached;
pub(crate) mod embed_worker;
pub mod event;
pub mod fields;
pub(crate) mod host;
mod kept;
pub mod payload;
pub mod read_gate;
mod session_start;

use std::io::{IsTerminal, Read};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::clock;
use crate::config::{self, Settings};
use crate::logging::{self, Level};
use crate::store::ingest::{self, Capture};
use crate::store::{self, Store, Wait, spool};
use deadline::{answer, answer_noop};
pub(crate) use event::HookEvent;
pub(crate) use host::Host;
use payload::Payload;

/// Past this, nothing more is read from stdin (the payload is rejected as too large).
pub(crate) const MAX_PAYLOAD_BYTES: u64 = 256 * 1024 * 1024;
/// The deadline signal answers no later than this after start, well inside the 2 s promise.
const HARD_DEADLINE: Duration = Duration::from_millis(1850);
/// The busy handler gives up at least this long before the hard deadline, so a write that
/// could not get the lock is spooled by the main thread, not raced by the signal.
const BUSY_MARGIN: Duration = Duration::from_millis(150);
/// How long one parse may take in a hook (the CLI and the MCP server allow seconds): a file
/// whose parse takes longer must not take the hook's deadline with it; the observer then names
/// no symbols for it.
const HOOK_PARSE_BUDGET: Duration = Duration::from_millis(250);
/// How long a hook may spend starting to observe closed turns.
const OBSERVE_BUDGET: Duration = Duration::from_millis(200);

/// How a capture that missed the database ended, in the log (also the deadline handler's).
const SPOOLED: &str = "; the event was spooled and will be stored by a later hook";
const LOST: &str = "; the event could not be spooled either, it is lost: ";

fn spool_or_log(capture: &Capture, data_dir: &std::path::Path, why: &str) {
    match spool::append(data_dir, capture, clock::now_ms()) {
        Ok(()) => logging::warn(format!("{why}{SPOOLED}")),
        Err(e) => dropped(data_dir, &format!("{why}{LOST}{e:#}")),
    }
}

/// Counts an event that is lost and logs it, once per `dropped::LOG_EVERY_MS` when the count
/// can be kept (a full disk would otherwise try for a log line per event).
fn dropped(data_dir: &std::path::Path, why: &str) {
    match store::dropped::record(data_dir, clock::now_ms(), why) {
        Ok((_, false)) => {}
        Ok((d, true)) => {
            let free = store::dropped::free_bytes(data_dir)
                .map_or_else(|| "unknown".into(), |b| format!("{} KiB", b / 1024));
            logging::error(format!(
                "{why} ({} event(s) dropped so far, {free} free in the data dir; `cmem doctor` counts them, this is logged at most every {} minutes)",
                d.count,
                store::dropped::LOG_EVERY_MS / 60_000
            ));
        }
        Err(e) => logging::error(format!("{why} (not counted either: {e:#})")),
    }
}

/// Tests move the hard deadline before the busy handler's to exercise the signal's path; only
/// builds the tests use can be told to (`test-faults` in Cargo.toml).
#[cfg(any(debug_assertions, feature = "test-faults"))]
fn hard_deadline() -> Duration {
    std::env::var("CMEM_TEST_HARD_DEADLINE_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(HARD_DEADLINE, Duration::from_millis)
}

#[cfg(not(any(debug_assertions, feature = "test-faults")))]
fn hard_deadline() -> Duration {
    HARD_DEADLINE
}

/// A hook configured with a host cmem does not know: its answer's shape is unknown, so the
/// emptiest JSON object, and the reason in the log.
pub(crate) fn run_unknown_host(name: &str) -> ! {
    let known: Vec<&str> = Host::ALL.iter().map(|h| h.name()).collect();
    refuse(format!(
        "unknown hook host {name:?} (cmem knows {}); answered {{}} and stored nothing: fix the hook's --host",
        known.join(", ")
    ))
}

/// A hook command line the parser refuses (`cmem hook --host=vim X`, an extra word, no event):
/// fail-open as every hook is, with the parser's words in the log.
pub(crate) fn run_bad_arguments(why: &str) -> ! {
    let said: Vec<&str> = why
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| !l.is_empty())
        .collect();
    let first = said.join(" ");
    let first = first.trim_start_matches("error: ");
    refuse(format!(
        "hook command line not understood ({first}); answered {{}} and stored nothing: fix the hook's command in the agent's settings (`cmem hook --help`)"
    ))
}

fn refuse(why: String) -> ! {
    let settings = config::load_lenient(&mut |_| {});
    logging::init(
        &settings.data_dir(),
        Level::parse(&settings.log_level),
        "hook",
    );
    logging::error(why);
    answer("{}");
    std::process::exit(0);
}

/// Runs one hook of `host` and exits the process with status 0.
pub(crate) fn run(host: Host, event_arg: &str) -> ! {
    let started = Instant::now();
    let event = host.event(event_arg);
    let hard = hard_deadline();
    deadline::arm(hard, event.map_or("{}", |e| host.noop(e)));
    deadline::guard_fatal_signals();
    crate::store::configure_for_one_shot_process();
    std::panic::set_hook(Box::new(|info| {
        logging::error(format!("internal error (panic): {info}"));
        answer_noop();
        std::process::exit(0);
    }));

    let mut problems = Vec::new();
    let settings = config::load_lenient(&mut |m| problems.push(m));
    let component = match host {
        Host::Claude => format!(
            "hook {}",
            event.map(HookEvent::cli_name).unwrap_or(event_arg)
        ),
        _ => format!(
            "hook --host {} {}",
            host.name(),
            event.map(HookEvent::cli_name).unwrap_or(event_arg)
        ),
    };
    let data_dir = settings.data_dir();
    logging::init(&data_dir, Level::parse(&settings.log_level), &component);
    deadline::set_targets(&data_dir);
    for p in problems {
        logging::error(format!("config: {p}"));
    }

    let busy_deadline = (started + Duration::from_millis(settings.hook.deadline_ms))
        .min(started + HARD_DEADLINE - BUSY_MARGIN);

    let out = match event {
        None => {
            logging::error(format!(
                "unknown hook event {event_arg:?}; cmem handles session-start, user-prompt-submit, pre-tool-use, post-tool-use, post-tool-use-failure, stop, session-end"
            ));
            None
        }
        Some(event) => match read_stdin().and_then(|bytes| {
            let call = Call {
                now_ms: clock::now_ms(),
                deadline: busy_deadline,
                observe_budget: OBSERVE_BUDGET,
                parse_budget: HOOK_PARSE_BUDGET,
            };
            handle_for(host, event, &bytes, &settings, &call)
                .map(|out| out.map(|json| host.answer(event, &json)))
        }) {
            Ok(out) => out,
            Err(e) => {
                logging::error(format!("{e:#}"));
                None
            }
        },
    };
    match out {
        Some(json) => answer(&json),
        None => answer_noop(),
    }
    logging::debug(format!("done in {:?}", started.elapsed()));
    std::process::exit(0);
}

fn read_stdin() -> Result<Vec<u8>> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        bail!("stdin is a terminal: hooks read Claude Code's JSON payload from stdin");
    }
    let mut bytes = Vec::new();
    stdin
        .lock()
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("cannot read the payload from stdin")?;
    if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
        bail!("payload is larger than {MAX_PAYLOAD_BYTES} bytes; ignored");
    }
    Ok(bytes)
}

/// The time of one hook call and how long it may take: a real hook's are the clock and its
/// deadline; the demo builder replays scripted sessions at their own times, without a hurry.
pub(crate) struct Call {
    pub now_ms: i64,
    /// Database waits give up here.
    pub deadline: Instant,
    /// How long observing the turns this event closes may take.
    pub observe_budget: Duration,
    /// How long one parse of a file may take while observing them (`code::parse`).
    pub parse_budget: Duration,
}

/// Handles one event's payload (the bytes a hook reads from stdin) as `cmem hook <event>`
/// does; `Ok(None)` means "answer no-op". Fails only where the hook logs and answers no-op.
pub(crate) fn handle(
    event: HookEvent,
    bytes: &[u8],
    settings: &Settings,
    call: &Call,
) -> Result<Option<String>> {
    handle_for(Host::Claude, event, bytes, settings, call)
}

/// `handle` for a host's payload; the answer is in Claude Code's shape (`Host::answer` turns
/// it into the host's).
pub(crate) fn handle_for(
    host: Host,
    event: HookEvent,
    bytes: &[u8],
    settings: &Settings,
    call: &Call,
) -> Result<Option<String>> {
    let deadline = call.deadline;
    let (event, payloads) = host.normalize(
        event,
        Payload::parse(bytes).context("invalid hook payload")?,
    );
    let mut payloads = payloads.into_iter();
    let Some(payload) = payloads.next() else {
        return Ok(None);
    };
    match event {
        HookEvent::SessionStart if host.injects_once() => {
            let data_dir = settings.data_dir();
            let session = payload.session_id()?.to_string();
            if host::started(&data_dir, host, &session) {
                logging::debug("this session's memory was injected at its first start");
                return Ok(None);
            }
            let answer = session_start::answer(
                &payload,
                settings,
                deadline,
                call.now_ms,
                host.context_bytes(),
            )
            .context("session-start")?;
            // Marked only once the memory is on its way: a start that failed gets it next time.
            if answer.is_some() {
                host::mark_started(&data_dir, host, &session);
            }
            Ok(answer)
        }
        HookEvent::SessionStart => session_start::answer(
            &payload,
            settings,
            deadline,
            call.now_ms,
            host.context_bytes(),
        )
        .context("session-start"),
        HookEvent::PreToolUse => {
            read_gate::answer(&payload, settings, deadline).context("pre-tool-use (read gate)")
        }
        _ => {
            let end_cwd = (event == HookEvent::SessionEnd).then(|| capture::event_cwd(&payload));
            // One event may carry many (a Codex patch of 5,000 files): stored in one
            // transaction, so none is lost to the deadline between them.
            let mut captures = Vec::new();
            for payload in std::iter::once(payload).chain(payloads) {
                match capture::build(event, payload, settings, call.now_ms, host.name())
                    .context("invalid hook payload")?
                {
                    Ok(capture) => captures.push(capture),
                    Err(skip) => logging::debug(format!("not stored: {skip:?}")),
                }
            }
            let closes_turn = captures.iter().any(Capture::closes_a_turn);
            if !captures.is_empty() {
                let store = persist(&captures, settings, deadline, call.now_ms);
                if let Some(store) = store.filter(|_| closes_turn) {
                    observe_closed_turns(store, settings, call);
                }
            }
            if let Some(cwd) = end_cwd {
                kept::refresh(&cwd, settings);
                if host == Host::Cursor {
                    host::refresh_cursor_rule(&cwd, &settings.data_dir());
                }
            }
            if matches!(event, HookEvent::SessionEnd) {
                auto_sync::maybe_spawn(settings);
            }
            Ok(None)
        }
    }
}

/// Runs the rule-based observer over the turns that just closed (and any left waiting), then
/// starts the external observer in the background when one is configured. Never fails the hook.
fn observe_closed_turns(mut store: Store, settings: &Settings, call: &Call) {
    if !settings.observer.rules {
        return;
    }
    // Usually one turn, a few milliseconds. A backlog (turns captured before an upgrade, or
    // while observing was off) is worked off a slice at a time, never at the hook's expense.
    let limits = crate::observe::Limits {
        max_turns: 8,
        until: Some(call.deadline.min(Instant::now() + call.observe_budget)),
        parse_budget: call.parse_budget,
    };
    let mode = crate::view::context::active_mode(&settings.context);
    match crate::observe::observe_pending(&mut store, limits, &mode, call.now_ms) {
        Ok(r) if r.turns > 0 => {
            logging::debug(format!(
                "observed {} turn(s): {} observation(s), {} summary(ies)",
                r.turns, r.observations, r.summaries
            ));
            let external = settings
                .observer
                .command
                .as_deref()
                .is_some_and(|c| !c.trim().is_empty());
            if external && let Err(e) = crate::observe::external::spawn_worker(settings) {
                logging::warn(format!("{e:#}"));
            }
            embed_worker::maybe_spawn(settings);
        }
        Ok(_) => {}
        Err(e) => logging::warn(format!(
            "observer: {e:#}; the turn stays waiting for the next run"
        )),
    }
}

/// Writes a capture (after any spooled ones), or spools it when the database is unavailable.
/// Returns the open store when the capture was written.
fn persist(
    captures: &[Capture],
    settings: &Settings,
    deadline: Instant,
    now_ms: i64,
) -> Option<Store> {
    let data_dir = settings.data_dir();
    let mut pending = Vec::new();
    for capture in captures {
        match spool::line(capture, now_ms) {
            Ok(line) => pending.extend(line),
            Err(e) => logging::warn(format!("cannot prepare the spool line: {e:#}")),
        }
    }
    deadline::set_pending(pending);
    let result = (|| -> Result<(Vec<ingest::Outcome>, Store)> {
        let mut store = Store::open_with(&settings.db_path(), Wait::Until(deadline))?;
        match spool::ingest(&mut store, &data_dir) {
            Ok(r) if r.applied + r.rejected > 0 => logging::info(format!(
                "stored {} spooled event(s), rejected {}",
                r.applied, r.rejected
            )),
            Ok(_) => {}
            Err(e) => logging::warn(format!("spool not ingested yet: {e:#}")),
        }
        let outcome = store.write(|tx| {
            captures
                .iter()
                .map(|capture| ingest::apply(tx, capture))
                .collect::<Result<Vec<_>>>()
        })?;
        Ok((outcome, store))
    })();
    match result {
        Ok((outcome, store)) => {
            deadline::clear_pending();
            // Made while there is room, so a full disk later can still count what it drops.
            if let Err(e) = store::dropped::ensure(&data_dir) {
                logging::warn(format!("{e:#}"));
            }
            logging::debug(format!("{outcome:?}"));
            Some(store)
        }
        Err(e) => {
            // The pending line stays armed until the spool has the capture: a deadline in
            // between spools it from the signal instead (twice is harmless, never is not).
            for capture in captures {
                spool_or_log(capture, &data_dir, &format!("database unavailable ({e:#})"));
            }
            deadline::clear_pending();
            None
        }
    }
}
