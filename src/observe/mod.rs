//! Observers: turning the raw tool I/O of a prompt turn into observations and a summary.
//!
//! The rule-based observer runs in the hooks that close a turn (Stop, SessionEnd, and the next
//! UserPromptSubmit for a turn left open), right after the capture is written: deterministic,
//! no model calls, a few milliseconds a turn. An optional external command (`observer.command`)
//! can then rewrite a turn's observations in the background (`external`).

pub mod ascii;
pub mod attempt;
pub mod draft;
pub mod event;
pub mod external;
pub mod literal;
pub mod outcome;
pub mod place;
pub mod prompt;
pub mod recognise;
pub mod rules;
pub mod sight;
pub mod summary;
pub mod symbols;
pub mod todo;
pub mod words;
pub mod xml;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use rusqlite::Connection;

use crate::model::mode::Mode;
use crate::model::{ObservationBody, SummaryBody, work_state};
use crate::store::observations::{self, NewObservation};
use crate::store::quarantine::Observer;
use crate::store::summaries::{self, NewSummary};
use crate::store::turns::{self, ToolRow, TurnRow};
use crate::store::{Store, todos};
use draft::Draft;
use event::Place;

/// The `source` of what the rule-based observer writes.
pub(crate) const SOURCE_RULES: &str = "rules";

/// How much one run may do.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_turns: usize,
    /// Stop starting new turns after this instant (hooks answer within their deadline).
    pub until: Option<Instant>,
    /// How long one parse of an edited or read file may take (`code::parse`); past it, the
    /// file's observation names no symbols.
    pub parse_budget: Duration,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Report {
    pub turns: usize,
    pub observations: usize,
    pub summaries: usize,
    /// Prompt row ids of the turns observed.
    pub turn_ids: Vec<i64>,
    /// Prompt row ids of the turns quarantined in this run.
    pub quarantined: Vec<i64>,
}

/// A turn read back and run through the rules (not stored yet).
pub(crate) struct Analysis {
    pub place: Place,
    pub events: Vec<event::Event>,
    pub tools: Vec<ToolRow>,
    pub drafts: Vec<Draft>,
    pub summary: SummaryBody,
}

/// Where a turn ran: the first tool use's cwd, else the prompt's; no cwd is no project root.
fn place_of(turn: &TurnRow, tools: &[ToolRow]) -> Place {
    let cwd = tools
        .iter()
        .find_map(|t| t.cwd.clone())
        .or_else(|| turn.cwd.clone())
        .map(PathBuf::from)
        .unwrap_or_default();
    let root = if cwd.as_os_str().is_empty() {
        PathBuf::new()
    } else {
        crate::project::resolve(&cwd).root
    };
    Place { root, cwd }
}

/// Open items of the session's to-do list, as `task (status)`, and the tasks of those the turn
/// itself wrote or changed.
fn open_items(conn: &Connection, turn: &TurnRow) -> Result<(Vec<String>, Vec<String>)> {
    let list = todos::list_name(turn.session_request.as_deref(), &turn.content_session_id);
    let entries: Vec<_> =
        crate::store::work_state::entries(conn, std::slice::from_ref(&turn.project))?
            .into_iter()
            .filter(|e| e.list_name == list)
            .collect();
    let lists = work_state::fold(&entries);
    let open: Vec<_> = lists
        .iter()
        .flat_map(|l| l.tasks.iter())
        .filter(|t| !t.is_closed())
        .collect();
    let described = open
        .iter()
        .map(|t| match t.status() {
            Some(s) if !s.is_empty() => format!("{} ({s})", t.key),
            _ => t.key.clone(),
        })
        .collect();
    let this_turn = open
        .iter()
        .filter(|t| t.updated_at >= turn.created_at)
        .map(|t| t.key.clone())
        .collect();
    Ok((described, this_turn))
}

/// Reads a turn's tool uses and runs the rules over them, each parse of a file within
/// `parse_budget`.
pub(crate) fn analyze(
    conn: &Connection,
    turn: &TurnRow,
    parse_budget: Duration,
) -> Result<Analysis> {
    let tools = turns::tool_uses(conn, turn)?;
    let place = place_of(turn, &tools);
    let events = event::parse_all(&tools, &place);
    let mut drafts = rules::observe(&rules::TurnInput {
        prompt: &turn.prompt_text,
        events: &events,
        tools: &tools,
        parse_budget,
    });
    let (open, planned) = open_items(conn, turn)?;
    if let Some(plan) = rules::plan::plan(&turn.prompt_text, &drafts, &planned) {
        drafts.insert(0, plan);
    }
    words::give_voice(
        &mut drafts,
        &turn.prompt_text,
        turn.last_assistant_message.as_deref(),
    );
    for d in &mut drafts {
        d.cap_title();
    }
    let summary = summary::build(turn, &events, &drafts, &open);
    Ok(Analysis {
        place,
        events,
        tools,
        drafts,
        summary,
    })
}

/// The stored form of an observation `body` that stands for the tool uses at `linked` (indices
/// into `tools`): its cost is theirs, its time the newest of theirs (else the turn's end).
pub(crate) fn new_observation(
    body: ObservationBody,
    linked: &[usize],
    turn: &TurnRow,
    tools: &[ToolRow],
    source: &str,
) -> NewObservation {
    let linked: Vec<&ToolRow> = linked.iter().filter_map(|&i| tools.get(i)).collect();
    NewObservation {
        session_id: Some(turn.session_id),
        project: turn.project.clone(),
        body,
        prompt_number: Some(turn.prompt_number),
        discovery_tokens: linked.iter().map(|t| t.raw_tokens()).sum(),
        created_at: linked
            .iter()
            .map(|t| t.created_at)
            .max()
            .or(turn.ended_at)
            .unwrap_or(turn.created_at),
        source: source.to_string(),
    }
}

/// Inserts an observation (or finds the same one already in the session) and links its tool
/// uses to it.
pub(crate) fn store_observation(
    conn: &Connection,
    o: &NewObservation,
    tool_row_ids: &[i64],
) -> Result<i64> {
    let id = match observations::insert(conn, o)? {
        Some(id) => id,
        None => observations::id_by_content(conn, o)?
            .ok_or_else(|| anyhow::anyhow!("observation deduplicated but not found"))?,
    };
    turns::link(conn, tool_row_ids, id)?;
    Ok(id)
}

/// The stored form of a turn's summary `body`: the cost of all the turn's tool uses.
pub(crate) fn new_summary(
    body: SummaryBody,
    turn: &TurnRow,
    tools: &[ToolRow],
    source: &str,
) -> NewSummary {
    NewSummary {
        session_id: Some(turn.session_id),
        project: turn.project.clone(),
        body,
        prompt_number: Some(turn.prompt_number),
        discovery_tokens: tools.iter().map(ToolRow::raw_tokens).sum(),
        created_at: turn.ended_at.unwrap_or(turn.created_at),
        source: source.to_string(),
    }
}

/// Observes one turn: stores its observations and summary and marks it observed.
/// `mode` decides the stored types (the rules decide in `code` types; see `Mode::rule_type`).
pub(crate) fn observe_turn(
    conn: &Connection,
    turn: &TurnRow,
    mode: &Mode,
    parse_budget: Duration,
    now_ms: i64,
) -> Result<(usize, usize)> {
    test_fault(turn);
    let a = analyze(conn, turn, parse_budget)?;
    let mut sight = sight::Sight::new(&a.place, &a.events, turn, now_ms);
    let mut stored = 0;
    for d in &a.drafts {
        let mut body = d.body();
        body.obs_type = mode.rule_type(&body.obs_type).to_string();
        let o = new_observation(body, &d.tools, turn, &a.tools, SOURCE_RULES);
        let ids: Vec<i64> = d
            .tools
            .iter()
            .filter_map(|&i| a.tools.get(i))
            .map(|t| t.id)
            .collect();
        let id = store_observation(conn, &o, &ids)?;
        sight.record(conn, id, &o.body)?;
        stored += 1;
    }
    let summary = new_summary(a.summary, turn, &a.tools, SOURCE_RULES);
    summaries::insert(conn, &summary)?;
    turns::mark_observed(conn, turn.id, now_ms)?;
    Ok((stored, 1))
}

/// Observes the closed turns that wait for it, oldest first, within `limits`. Each turn is its
/// own write transaction, re-checked inside it, so concurrent hooks never observe a turn twice.
///
/// A turn that killed an earlier attempt (see `attempt`) or panics now is quarantined and the
/// run goes on with the next one: one bad turn never stops the observing of later ones.
pub(crate) fn observe_pending(
    store: &mut Store,
    limits: Limits,
    mode: &Mode,
    now_ms: i64,
) -> Result<Report> {
    let mut report = Report::default();
    let pending = turns::unobserved(&store.conn, limits.max_turns.min(10_000))?;
    for turn in pending {
        if limits.until.is_some_and(|u| Instant::now() >= u) {
            break;
        }
        let attempt = match attempt::start(store, Observer::Rules, turn.id, now_ms)? {
            attempt::Start::Go(a) => a,
            attempt::Start::Busy => continue,
            attempt::Start::Quarantined => {
                report.quarantined.push(turn.id);
                continue;
            }
        };
        // A panic is caught where unwinding is on (tests, debug builds); a release build aborts
        // and the attempt's mark quarantines the turn in the next run instead.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            store.write(|tx| {
                if !turns::is_unobserved(tx, turn.id)? {
                    return Ok(None);
                }
                observe_turn(tx, &turn, mode, limits.parse_budget, now_ms).map(Some)
            })
        }));
        let done = match result {
            Ok(done) => done,
            Err(panic) => {
                let reason = format!(
                    "the rules observer panicked: {}",
                    crate::logging::panic_text(&*panic)
                );
                let stored =
                    attempt::quarantine_turn(store, Observer::Rules, turn.id, now_ms, &reason);
                attempt.end();
                stored?;
                report.quarantined.push(turn.id);
                continue;
            }
        };
        // An error here is the database's (locked, full), not the turn's: it stays waiting.
        attempt.end();
        if let Some((observations, summaries)) = done? {
            report.turns += 1;
            report.observations += observations;
            report.summaries += summaries;
            report.turn_ids.push(turn.id);
        }
    }
    Ok(report)
}

/// Lets the tests make the observer die on a turn the way a real bug would (the quarantine
/// must hold for deaths no code can catch): with `CMEM_TEST_OBSERVER_FAULT=KIND:MARKER`, a turn
/// whose prompt holds MARKER makes the observer overflow its stack, abort, panic or hang. Only
/// in builds the tests use (`test-faults` in Cargo.toml).
#[cfg(any(debug_assertions, feature = "test-faults"))]
fn test_fault(turn: &TurnRow) {
    let Ok(spec) = std::env::var("CMEM_TEST_OBSERVER_FAULT") else {
        return;
    };
    let Some((kind, marker)) = spec.split_once(':') else {
        return;
    };
    if marker.is_empty() || !turn.prompt_text.contains(marker) {
        return;
    }
    match kind {
        "overflow" => {
            fn deeper(n: u64) -> u64 {
                let frame = std::hint::black_box([n; 64]);
                if frame[0] == u64::MAX {
                    return 0;
                }
                deeper(frame[0] + 1) + frame[1]
            }
            std::hint::black_box(deeper(0));
        }
        "abort" => std::process::abort(),
        "panic" => panic!("test fault on turn {}", turn.id),
        "hang" => loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
        },
        _ => {}
    }
}

#[cfg(not(any(debug_assertions, feature = "test-faults")))]
fn test_fault(_turn: &TurnRow) {}
