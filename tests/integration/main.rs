//! The integration tests: each module drives the real `cmem` binary against a real SQLite file
//! in an isolated home and data dir (`common`). One test binary instead of one per file: the
//! crate and its grammars are linked once. The PostgreSQL sync suite is `tests/sync`.
//!
//! Run one module with `cargo test --test integration -- tui::`.

// Tests and their helpers may unwrap: a panic is a failed test with its reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

mod claude_md;
mod cli_habits;
mod cli_search;
mod cli_sql;
mod code_deep;
mod code_outline;
mod code_tools;
mod context_budget_prop;
mod context_golden;
mod demo;
mod disk_full;
mod forget_scrub;
mod history;
mod hook_capture;
mod hook_concurrency;
mod hook_fail_open;
mod hook_hosts;
mod hook_payload_fuzz;
mod import_export;
mod install;
mod install_hosts;
mod layers;
mod mcp_lines;
mod mcp_transcripts;
mod observe_external;
mod observe_quarantine;
mod observe_rules;
mod observer_quality;
mod privacy_at_rest;
mod privacy_prop;
mod read_gate;
mod search_quality;
mod search_vectors;
mod stale;
mod sync_settings;
mod tui;
