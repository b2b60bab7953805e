//! `cmem observe`: run the observers by hand (the hooks run them automatically).

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::observe::{self, external};
use crate::store::Store;

#[derive(Args)]
pub struct ObserveArgs {
    /// Run the external observer (`observer.command`) over the turns waiting for it, in the
    /// foreground. The hooks start this in the background after each turn.
    #[arg(long)]
    external: bool,
}

pub fn run(args: &ObserveArgs) -> Result<ExitCode> {
    let settings = crate::config::load()?.settings;
    crate::logging::init(
        &settings.data_dir(),
        crate::logging::Level::parse(&settings.log_level),
        if args.external { "observer" } else { "observe" },
    );
    if args.external {
        let report = external::run_worker(&settings)?;
        if report.busy {
            println!("another external observer is running for this data dir; nothing to do");
        }
        for (turn, outcome) in &report.outcomes {
            println!("turn {turn}: {outcome:?}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut store = Store::open(&settings.db_path())?;
    let r = observe::observe_pending(
        &mut store,
        observe::Limits::unlimited(),
        crate::clock::now_ms(),
    )?;
    store.checkpoint()?;
    println!(
        "observed {} turn(s): {} observation(s), {} summary(ies)",
        r.turns, r.observations, r.summaries
    );
    Ok(ExitCode::SUCCESS)
}
