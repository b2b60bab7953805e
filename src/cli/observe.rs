//! `cmem observe`: run the observers by hand (the hooks run them automatically).

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::observe::{self, external};
use crate::store::quarantine;

#[derive(Args)]
pub(crate) struct ObserveArgs {
    /// Run the external observer (`observer.command`) over the turns waiting for it, in the
    /// foreground. The hooks start this in the background after each turn.
    #[arg(long)]
    external: bool,
    /// Lift the quarantine of the turns an observer failed on (`cmem doctor` lists them) and
    /// try them again now. With turn ids (`--retry-quarantined 17,18`), only those.
    #[arg(long, value_name = "TURNS", num_args = 0..=1, value_delimiter = ',', require_equals = false)]
    retry_quarantined: Option<Vec<i64>>,
}

pub(crate) fn run(args: &ObserveArgs, face: &super::face::Face) -> Result<ExitCode> {
    let settings = face.settings()?;
    crate::logging::init(
        &settings.data_dir(),
        crate::logging::Level::parse(&settings.log_level),
        if args.external { "observer" } else { "observe" },
    );
    if args.external {
        let report = external::run_worker(settings)?;
        if report.busy {
            println!("another external observer is running for this data dir; nothing to do");
        }
        for (turn, outcome) in &report.outcomes {
            println!("turn {turn}: {outcome:?}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut store = face.store()?;
    if let Some(ids) = &args.retry_quarantined {
        let only = (!ids.is_empty()).then_some(ids.as_slice());
        let released = store.write(|tx| quarantine::release(tx, only))?;
        println!("released {released} quarantined turn(s); trying them again");
    }
    let limits = observe::Limits {
        max_turns: usize::MAX,
        until: None,
        parse_budget: super::PARSE_BUDGET,
    };
    let r = observe::observe_pending(
        &mut store,
        limits,
        &crate::view::context::active_mode(&settings.context),
        face.now_ms(),
    )?;
    store.checkpoint()?;
    println!(
        "observed {} turn(s): {} observation(s), {} summary(ies)",
        r.turns, r.observations, r.summaries
    );
    if !r.quarantined.is_empty() {
        println!(
            "quarantined {} turn(s) the observer failed on: {} (see `cmem doctor`)",
            r.quarantined.len(),
            r.quarantined
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}
