//! Command-line dispatch. Each subcommand family lives in its own file.

mod claude_md;
mod code;
mod config_cmd;
mod context;
mod dev;
mod doctor;
mod face;
mod forget;
mod history;
pub mod install;
mod install_hosts;
mod jsonedit;
pub mod jsonfile;
mod keep_memory;
mod model;
mod observe;
mod pipe;
mod search;
mod sql;
mod sync;
mod transfer;
mod tui;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

/// How long one tree-sitter parse may take in a command (`cmem outline`, `cmem observe`, …):
/// a person waits for the answer, so the default; only hooks allow less.
const PARSE_BUDGET: Duration = crate::code::parse::DEFAULT_BUDGET;

/// The version, and whether this build obeys the test knobs (`test-faults` in Cargo.toml): the
/// hook suites, run against any binary, skip what needs them where it does not.
const VERSION: &str = if cfg!(any(debug_assertions, feature = "test-faults")) {
    concat!(env!("CARGO_PKG_VERSION"), " (with test knobs)")
} else {
    env!("CARGO_PKG_VERSION")
};

#[derive(Parser)]
#[command(
    name = "cmem",
    version = VERSION,
    about = "Persistent, budgeted memory for AI coding agents",
    long_about = "cmem remembers what your coding agent did across sessions: Claude Code hooks capture \
prompts and tool I/O into one SQLite file, and the agent gets a small, budgeted index of past work \
at every session start.\n\nSet-up: `cmem install` (hooks + MCP server into Claude Code), then `cmem doctor`."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a Claude Code hook: reads the event JSON on stdin, prints one JSON answer, always exits 0
    Hook {
        /// session-start, user-prompt-submit, pre-tool-use, post-tool-use, post-tool-use-failure,
        /// stop or session-end (the host's own names such as PostToolUse work too)
        event: String,
        /// The agent that runs the hook: claude (default), codex, gemini, cursor or copilot
        #[arg(long, default_value = "claude", value_parser = parse_host)]
        host: crate::hook::Host,
    },
    /// Run the MCP server on stdio (Claude Code starts it; see `cmem install`)
    Mcp,
    /// Add cmem's hooks and MCP server to Claude Code's settings
    Install(install::InstallArgs),
    /// Remove exactly what `cmem install` added
    Uninstall(install::InstallArgs),
    /// Check the data dir, database, hooks and MCP registration; exits 1 when something is wrong
    Doctor(doctor::DoctorArgs),
    /// Print the context a new session in this project would start with
    Context(context::ContextArgs),
    /// Write each directory's per-file memory table into DIR/CLAUDE.md (between <cmem-context> markers)
    ClaudeMd(claude_md::ClaudeMdArgs),
    /// Search the memory as the agent's mem_search does (words and meaning, one ranking)
    Search(search::SearchArgs),
    /// Print records in full, as the agent's get_observations does: 123, S12 (summary), P7 (prompt)
    Show(search::ShowArgs),
    /// The sentence-embedding model of semantic search: status, install one from a directory
    Model(model::ModelArgs),
    /// Show the effective settings, the config file path, or the defaults
    Config(config_cmd::ConfigArgs),
    /// Browse the memory in the terminal, layer by layer (index → timeline → detail → raw)
    Tui(tui::TuiArgs),
    /// Open the browser on a demo memory: scripted sessions on 3 projects, as the hooks and the observer record them (your memory is untouched)
    Demo(tui::DemoArgs),
    /// Folded structure of a source file: symbols, line ranges, signatures (tree-sitter)
    Outline(code::OutlineArgs),
    /// Print the source of one symbol of a file, with its doc comments
    Unfold(code::UnfoldArgs),
    /// Search the symbols of the source files under a path
    Symbols(code::SymbolsArgs),
    /// Turn closed prompt turns into observations and summaries now (the hooks do this after
    /// every turn)
    Observe(observe::ObserveArgs),
    /// Import memory: past Claude Code or Codex sessions, a claude-mem database, a cmem export
    Import(transfer::ImportArgs),
    /// Export memory: lossless JSONL, or a Claude-Code-auto-memory markdown folder
    Export(transfer::ExportArgs),
    /// Remove memory by id, project, full-text query or age, leaving no trace in the files
    Forget(forget::ForgetArgs),
    /// Replace a string (or regex) everywhere cmem stored it, leaving no trace in the files
    Scrub(forget::ScrubArgs),
    /// Run your own SQL on the memory database (a `sqlite3` shell cannot write the indexed tables)
    Sql(sql::SqlArgs),
    /// Share memory with other machines and teammates through PostgreSQL: push, then pull
    Sync(sync::SyncArgs),
    /// Developer tools (synthetic data for tests and benchmarks)
    #[command(hide = true)]
    Dev(dev::DevArgs),
}

fn parse_host(name: &str) -> Result<crate::hook::Host, String> {
    crate::hook::Host::parse(name).ok_or_else(|| {
        let known: Vec<&str> = crate::hook::Host::ALL.iter().map(|h| h.name()).collect();
        format!("unknown host {name:?}; cmem knows {}", known.join(", "))
    })
}

pub fn main() -> ExitCode {
    // Hooks run on every prompt and tool call, so `cmem hook EVENT` skips building the whole
    // command-line parser (`cmem hook --help` still gets clap's help).
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).take(5).collect();
    let text: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
    if text.len() == args.len() {
        match text.as_slice() {
            ["hook", event] if !event.starts_with('-') => {
                crate::hook::run(crate::hook::Host::Claude, event)
            }
            ["hook", "--host", host, event] if !event.starts_with('-') => {
                match crate::hook::Host::parse(host) {
                    Some(host) => crate::hook::run(host, event),
                    None => crate::hook::run_unknown_host(host),
                }
            }
            _ => {}
        }
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // A hook's command line is written once in a settings file and then runs on every
        // prompt: a spelling clap refuses (`--host=vim`, an extra word) must not exit 2, which
        // Claude Code, Cursor and Gemini read as "block".
        Err(e)
            if args.first().is_some_and(|a| a == "hook")
                && !matches!(
                    e.kind(),
                    clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
                ) =>
        {
            crate::hook::run_bad_arguments(&e.to_string())
        }
        Err(e) => e.exit(),
    };
    if !matches!(cli.command, Command::Hook { .. } | Command::Mcp) {
        pipe::quiet_on_closed_stdout();
    }
    let face = face::Face::default();
    let result = match cli.command {
        Command::Hook { event, host } => crate::hook::run(host, &event),
        Command::Mcp => crate::mcp::serve(),
        Command::Install(args) if args.host != crate::hook::Host::Claude => {
            install_hosts::run_args(&args, install::Action::Install).and_then(|code| {
                if !args.dry_run {
                    history::after_install(args.import_history, &face)?;
                }
                Ok(code)
            })
        }
        Command::Uninstall(args) if args.host != crate::hook::Host::Claude => {
            install_hosts::run_args(&args, install::Action::Uninstall)
        }
        Command::Install(args) => install::run(&args, install::Action::Install).and_then(|code| {
            if !args.dry_run {
                history::after_install(args.import_history, &face)?;
            }
            Ok(code)
        }),
        Command::Uninstall(args) if args.import_history => Err(anyhow::anyhow!(
            "--import-history belongs to `cmem install`; `cmem forget` removes memory"
        )),
        Command::Uninstall(args) => install::run(&args, install::Action::Uninstall),
        Command::Doctor(args) => doctor::run(&args, &face),
        Command::Context(args) => context::run(&args, &face),
        Command::ClaudeMd(args) => claude_md::run(&args, &face),
        Command::Search(args) => search::run(&args, &face),
        Command::Show(args) => search::show(&args, &face),
        Command::Model(args) => model::run(&args, &face),
        Command::Config(args) => config_cmd::run(&args, &face),
        Command::Observe(args) => observe::run(&args, &face),
        Command::Import(args) => transfer::import(&args, &face),
        Command::Export(args) => transfer::export(&args, &face),
        Command::Forget(args) => forget::run_forget(&args, &face),
        Command::Scrub(args) => forget::run_scrub(&args, &face),
        Command::Tui(args) => tui::run(&args, &face),
        Command::Demo(args) => tui::demo(&args, &face),
        Command::Sql(args) => sql::run(&args, &face),
        Command::Sync(args) => sync::run(&args, &face),
        Command::Dev(args) => dev::run(&args, &face),
        Command::Outline(args) => code::outline(&args),
        Command::Unfold(args) => code::unfold(&args),
        Command::Symbols(args) => code::symbols(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) if pipe::is_closed_stdout(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cmem: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
