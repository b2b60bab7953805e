//! Views: every layer is built here once, as a neutral `Doc`, and rendered to the agent's plain
//! text (`Doc::to_plain`) or, by the TUI, to styled terminal text. No other module formats
//! memory text.

pub mod budget;
pub mod by_file;
pub mod code;
pub mod context;
pub mod detail;
pub mod doc;
pub mod file_history;
pub mod index;
pub mod memory_md;
pub mod raw;
pub mod replies;
pub mod search;
pub mod since;
pub mod time;
pub mod timeline;
pub mod work_state;

pub(crate) use doc::{Block, BlockKind, Doc, Line, Role};

/// What one tool reply may take (claude-mem's 32 KiB): the MCP server cuts longer ones, the smart
/// tools fold or cut theirs to fit, `mem_search` halves its largest details.
pub const MAX_REPLY_BYTES: usize = 32 * 1024;
