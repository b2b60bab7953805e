//! Code intelligence: tree-sitter outlines, unfolding one symbol, symbol search, and which
//! symbols an edit touched. Grammars are compiled in; nothing here runs on a hook path that
//! does not need it (the read gate only asks `Lang::from_path`, an extension check).

mod bodies;
mod changes;
pub mod confine;
mod halves;
pub mod lang;
pub mod outline;
pub mod parse;
pub mod request;
pub mod search;
pub mod symbols;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};

pub(crate) use lang::Lang;
pub(crate) use symbols::{FileSymbols, Kind};

/// Names of the symbols (functions, methods, classes, structs, …) whose source text differs between
/// `old` and `new` versions of the file at `path` (language from the extension), innermost-most-specific
/// names first in source order, deduplicated; symbols added or removed count as changed. Empty when the
/// language is unknown or either side fails to parse (within `budget` each: see `parse`). Must be
/// fast (a few ms for a 2,000-line file).
pub(crate) fn changed_symbols(path: &Path, old: &str, new: &str, budget: Duration) -> Vec<String> {
    changes::changed_symbols(path, old, new, budget)
}

/// Top-level symbol names defined in `source` (for a newly written file).
pub(crate) fn defined_symbols(path: &Path, source: &str, budget: Duration) -> Vec<String> {
    changes::defined_symbols(path, source, budget)
}

/// The symbols of a source text in a language; `None` when it cannot be parsed within `budget`.
pub(crate) fn file_symbols(lang: Lang, source: &str, budget: Duration) -> Option<FileSymbols> {
    if let Some(cut) = halves::cut_point(lang, source)
        && let Some(symbols) = halves::symbols_in_halves(lang, source, cut, budget)
    {
        return Some(symbols);
    }
    let range = parse::range_of(source, 0..source.len());
    let tree = outline_tree(lang, source, range, budget)?;
    let symbols = symbols::extract(lang, source, &tree);
    if source.len() >= halves::MIN_BYTES {
        drop_in_background(tree);
    }
    Some(symbols)
}

/// The tree an outline reads of `range`: declarations only (bodies blanked) where that can be
/// trusted, otherwise everything.
fn outline_tree(
    lang: Lang,
    source: &str,
    range: tree_sitter::Range,
    budget: Duration,
) -> Option<tree_sitter::Tree> {
    bodies::parse_declarations(lang, source, range, budget)
        .or_else(|| parse::parse_ranges(lang, source, &[range], budget))
}

static TREES_LEFT_TO_EXIT: AtomicBool = AtomicBool::new(false);

/// For a command that outlines one file and exits: big syntax trees are then left to the
/// operating system instead of being freed node by node (compilers do the same with their
/// syntax trees). Never for anything that runs on (the MCP server, the TUI, symbol search).
pub(crate) fn leave_big_trees_to_exit() {
    TREES_LEFT_TO_EXIT.store(true, Ordering::Relaxed);
}

/// Frees a big syntax tree on a thread of its own, or not at all before exit (see above):
/// freeing the nodes of a big file takes milliseconds nobody needs to wait for.
fn drop_in_background(tree: tree_sitter::Tree) {
    if TREES_LEFT_TO_EXIT.load(Ordering::Relaxed) {
        std::mem::forget(tree);
        return;
    }
    // Without a thread to be had, the closure (and the tree in it) is simply dropped here.
    let _ = std::thread::Builder::new()
        .name("cmem-tree-drop".into())
        .spawn(move || drop(tree));
}

/// The named-node tree of a file, one node per line with its field name and line range
/// (`cmem dev syntax-tree`).
pub(crate) fn syntax_tree(path: &Path, budget: Duration) -> Result<String> {
    let lang = Lang::from_path(path)
        .with_context(|| format!("{}: no grammar for this file extension", path.display()))?;
    let source =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let tree = parse::parse(lang, &source, budget)
        .with_context(|| format!("cannot parse {}", path.display()))?;
    let mut out = String::new();
    let mut cursor = tree.walk();
    let mut depth = 0usize;
    loop {
        let node = cursor.node();
        if node.is_named() {
            let field = cursor
                .field_name()
                .map(|f| format!("{f}: "))
                .unwrap_or_default();
            let text = &source[node.byte_range()];
            let preview: String = if node.child_count() == 0 {
                format!(" {:?}", text.chars().take(40).collect::<String>())
            } else {
                String::new()
            };
            out.push_str(&format!(
                "{}{field}{} L{}-{}{preview}\n",
                "  ".repeat(depth),
                node.kind(),
                node.start_position().row + 1,
                node.end_position().row + 1
            ));
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Ok(out);
            }
            depth -= 1;
        }
    }
}
