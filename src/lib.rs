//! cmem: persistent, budgeted memory for AI coding agents.
//!
//! Dependencies point one way: faces (`cli`, `hook`) → `store` → `model`/`config`/`project`/`privacy`.
pub mod cli;
pub mod clock;
pub mod code;
pub mod config;
pub mod demo;
pub mod disclosure;
pub mod hook;
pub mod jsonfix;
pub mod logging;
pub mod mcp;
pub mod model;
pub mod names;
pub mod observe;
pub mod paths;
pub mod privacy;
pub mod project;
pub mod signals;
pub mod store;
pub mod synth;
pub mod text;
pub mod tui;
pub mod view;
