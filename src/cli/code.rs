//! `cmem outline`, `cmem unfold`, `cmem symbols`: the smart tools on the command line. They
//! print exactly the text the MCP tools reply with, paths shown relative to the current
//! directory; unlike the agent's tools they read any file the user can, and a missing symbol
//! or an unparsable file is an error (exit 1).

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;

use crate::code::tools::{self, ToolError};

#[derive(Args)]
pub struct OutlineArgs {
    /// A source file
    pub file: String,
}

#[derive(Args)]
pub struct UnfoldArgs {
    /// A source file
    pub file: String,
    /// The symbol's name as `cmem outline` shows it, optionally qualified (Store::open)
    pub symbol: String,
}

#[derive(Args)]
pub struct SymbolsArgs {
    /// Part of a symbol name; several words must all match
    pub query: String,
    /// Directory or file to search (default: the current directory)
    pub path: Option<String>,
    /// How many matches to show (1–100)
    #[arg(long, default_value_t = tools::DEFAULT_MAX_RESULTS)]
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

pub fn outline(args: &OutlineArgs) -> Result<ExitCode> {
    crate::code::leave_big_trees_to_exit();
    print(tools::cli_outline(
        &workspace()?,
        &json!({"file_path": args.file}),
    ))
}

pub fn unfold(args: &UnfoldArgs) -> Result<ExitCode> {
    crate::code::leave_big_trees_to_exit();
    print(tools::cli_unfold(
        &workspace()?,
        &json!({"file_path": args.file, "symbol_name": args.symbol}),
    ))
}

pub fn symbols(args: &SymbolsArgs) -> Result<ExitCode> {
    let mut call = json!({"query": args.query, "max_results": args.max_results});
    if let Some(p) = &args.path {
        call["path"] = json!(p);
    }
    if let Some(p) = &args.file_pattern {
        call["file_pattern"] = json!(p);
    }
    print(tools::cli_search(&workspace()?, &call))
}
