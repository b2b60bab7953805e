//! cmem: persistent, budgeted memory for AI coding agents.
//!
//! Dependencies point one way, down layers: the faces (`cli`, then `hook`, `mcp`, `tui`), the
//! tools they call, the observers, the view, the store, and the core any layer may use. The
//! layers and their modules are written in one place, the `layers` block of
//! docs/ARCHITECTURE.md, which `tests/integration/layers.rs` reads to fail any import that
//! points up.
pub mod cli;
pub mod clock;
pub mod code;
pub mod codex_patch;
pub mod config;
pub mod conninfo;
pub mod demo;
pub mod disclosure;
pub mod embed;
pub mod eval;
pub mod file_state;
pub mod history;
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
pub mod search;
pub mod signals;
pub mod store;
pub mod sync;
pub mod synth;
pub mod text;
pub mod tui;
pub mod view;
