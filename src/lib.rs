//! cmem: persistent, budgeted memory for AI coding agents.
//!
//! Dependencies point one way, down these layers (`tests/integration/layers.rs` reads every `crate::` path
//! and fails on one that points up):
//!
//! 1. faces: `cli` (the dispatcher, may call the other faces), then `hook`, `mcp`, `tui`
//!    (which never call each other);
//! 2. tools the faces call: `sync` (PostgreSQL; only `cli` may import it, so no hook reaches
//!    it), `demo` (replays scripted sessions through `hook`, the one import up, allowed in
//!    `tests/integration/layers.rs`) and `eval` (search quality), then `synth` (synthetic data for
//!    benchmarks and property tests);
//! 3. `observe` (the observers), `disclosure` (`mem_search`'s steps);
//! 4. `view` (every text and document), then `code` (tree-sitter; returns data the view renders);
//! 5. `store` (SQLite; knows no rendering and no face);
//! 6. core, which any layer and any core module may use: `model`, `config`, `project`,
//!    `privacy`, `text`, `clock`, `paths`, `logging`, `jsonfix`, `signals`, `names`, `embed`
//!    (the sentence-embedding model), `conninfo` (a PostgreSQL setting read as libpq reads it).
//!
//! Inside a layer only the order written holds (`cli` → `hook`, `view` → `code`): `hook`, `mcp` and `tui` do not import each other, nor do `observe` and `disclosure`.
//! Two files of one module do not import each other either (a `mod.rs` and the files it
//! declares are one unit).
pub mod cli;
pub mod clock;
pub mod code;
pub mod config;
pub mod conninfo;
pub mod demo;
pub mod disclosure;
pub mod embed;
pub mod eval;
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
pub mod sync;
pub mod synth;
pub mod text;
pub mod tui;
pub mod view;
