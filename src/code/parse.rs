//! Parsing a source text with its language's grammar.

use tree_sitter::{Parser, Tree};

use super::Lang;

/// Parses `source`; `None` when the grammar cannot be loaded or the parser gives up.
/// Syntax errors do not fail: tree-sitter recovers and the outline shows what it found.
pub fn parse(lang: Lang, source: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.parse(source, None)
}
