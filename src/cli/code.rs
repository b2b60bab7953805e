//! `cmem outline`, `cmem unfold`, `cmem symbols`: the smart tools on the command line. They
//! print exactly the text the MCP tools reply with, paths shown relative to the current
//! directory; unlike the agent's tools they read any file the user can, and a missing symbol
//! or an unparsable file is an error (exit 1).

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;

use crate::code::outline::{Available, Unfold, near_names};
use crate::code::request::{self, Reach, ToolError};
use crate::view;

use super::PARSE_BUDGET;

#[derive(Args)]
pub(crate) struct OutlineArgs {
    /// A source file
    pub file: String,
}

#[derive(Args)]
pub(crate) struct UnfoldArgs {
    /// A source file
    pub file: String,
    /// The symbol's name as `cmem outline` shows it, optionally qualified (Store::open)
    pub symbol: String,
}

#[derive(Args)]
pub(crate) struct SymbolsArgs {
    /// Part of a symbol name; several words must all match
    pub query: String,
    /// Directory or file to search (default: the current directory)
    pub path: Option<String>,
    /// How many matches to show (1–100)
    #[arg(long, default_value_t = request::DEFAULT_MAX_RESULTS)]
    pub max_results: usize,
    /// Only files whose path matches this glob (*.rs, src/**/*.ts) or contains this text
    #[arg(long)]
    pub file_pattern: Option<String>,
}

fn print(result: Result<String, ToolError>) -> Result<ExitCode> {
    match result {
        Ok(text) => {
            println!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("cmem: error: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

fn workspace() -> Result<std::path::PathBuf> {
    std::env::current_dir().context("cannot read the current directory")
}

pub(crate) fn outline(args: &OutlineArgs) -> Result<ExitCode> {
    crate::code::leave_big_trees_to_exit();
    let args = json!({"file_path": args.file});
    print(
        match request::outline_file(&workspace()?, &args, Reach::Anywhere, PARSE_BUDGET) {
            Ok((_, Some(o))) => Ok(view::code::outline_reply(&o)),
            Ok((display, None)) => Err(parse_failure(&display)),
            Err(e) => Err(e),
        },
    )
}

/// Unlike the agent's tool, which answers with the whole list, a missing symbol is an error
/// that names the nearest ones.
pub(crate) fn unfold(args: &UnfoldArgs) -> Result<ExitCode> {
    crate::code::leave_big_trees_to_exit();
    let args = json!({"file_path": args.file, "symbol_name": args.symbol});
    print(
        match request::unfold_symbol(&workspace()?, &args, Reach::Anywhere, PARSE_BUDGET) {
            Err(e) => Err(e),
            Ok((display, None)) => Err(parse_failure(&display)),
            Ok((
                _,
                Some(Unfold::NotFound {
                    path,
                    symbol,
                    available,
                }),
            )) => Err(ToolError(not_found(&path, &symbol, &available))),
            Ok((_, Some(u))) => Ok(view::code::unfold_reply(&u)),
        },
    )
}

fn parse_failure(display: &str) -> ToolError {
    ToolError(view::code::parse_failure(display, PARSE_BUDGET).to_plain())
}

fn not_found(path: &str, symbol: &str, available: &[Available]) -> String {
    let near: Vec<String> = near_names(available, symbol, 5)
        .iter()
        .map(|a| format!("{} (L{})", a.name, a.start_line))
        .collect();
    let count = available.len();
    let all = format!(
        "`cmem outline {path}` lists all {count} symbol{}",
        if count == 1 { "" } else { "s" }
    );
    match (count, near.is_empty()) {
        (0, _) => {
            format!("no symbol \"{symbol}\" in {path}: the file defines no symbols cmem can list.")
        }
        (_, true) => format!("no symbol \"{symbol}\" in {path}; {all}."),
        (_, false) => format!(
            "no symbol \"{symbol}\" in {path}. Near names: {}; {all}.",
            near.join(", ")
        ),
    }
}

pub(crate) fn symbols(args: &SymbolsArgs) -> Result<ExitCode> {
    let mut call = json!({"query": args.query, "max_results": args.max_results});
    if let Some(p) = &args.path {
        call["path"] = json!(p);
    }
    if let Some(p) = &args.file_pattern {
        call["file_pattern"] = json!(p);
    }
    print(
        request::search_symbols(&workspace()?, &call, Reach::Anywhere, PARSE_BUDGET)
            .map(|r| view::code::search_reply(&r)),
    )
}
