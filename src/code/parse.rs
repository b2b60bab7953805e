//! Parsing a source text with its language's grammar, within limits: a time budget (error
//! recovery on some inputs takes minutes) and the known limits of the grammars' C scanners.
//!
//! The budget is a value every parse is given: the face that runs the parse decides it (a hook
//! allows a fraction of a second, the CLI and the MCP server `DEFAULT_BUDGET`) and hands it down.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

use super::Lang;

/// How long one parse may take before it is given up (as "cannot parse") where a person or an
/// agent waits for the answer: the CLI, the MCP server, the demo. Hooks pass far less.
pub(crate) const DEFAULT_BUDGET: Duration = Duration::from_secs(5);

/// Whether a text stays inside what `lang`'s grammar can parse without aborting the process.
/// The YAML scanner keeps its indentation stack in tree-sitter's 1 KiB state buffer and
/// overruns it (an assertion, then an abort) past 253 nested blocks; the nesting depth of a
/// block is bounded by the column its content starts at.
pub(crate) fn within_grammar_limits(lang: Lang, source: &str) -> bool {
    match lang {
        Lang::Yaml => source.lines().all(|l| {
            l.bytes()
                .take_while(|b| matches!(b, b' ' | b'\t' | b'-' | b'?' | b':'))
                .count()
                < MAX_YAML_BLOCK_COLUMN
        }),
        _ => true,
    }
}

/// See `within_grammar_limits`: with room to spare below the scanner's 253 levels.
const MAX_YAML_BLOCK_COLUMN: usize = 200;

/// Runs a parse within `budget` and the grammar's limits; `None` when either stops it.
fn run(
    parser: &mut Parser,
    lang: Lang,
    source: &str,
    old: Option<&Tree>,
    budget: Duration,
) -> Option<Tree> {
    if !within_grammar_limits(lang, source) {
        return None;
    }
    let deadline = Instant::now() + budget;
    let mut give_up = |_: &ParseState| {
        if Instant::now() >= deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut give_up);
    let bytes = source.as_bytes();
    parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or_default(),
        old,
        Some(options),
    )
}

/// Parses `source`; `None` when the grammar cannot be loaded or the parse is given up (past
/// `budget`, grammar limits). Syntax errors do not fail: tree-sitter recovers and the outline
/// shows what it found.
pub(crate) fn parse(lang: Lang, source: &str, budget: Duration) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    run(&mut parser, lang, source, None, budget)
}

/// The included range of `span` in `source`, with its rows and columns.
pub(crate) fn range_of(source: &str, span: std::ops::Range<usize>) -> tree_sitter::Range {
    tree_sitter::Range {
        start_byte: span.start,
        end_byte: span.end,
        start_point: point(source.as_bytes(), span.start),
        end_point: point(source.as_bytes(), span.end),
    }
}

/// Parses only `ranges` of `source` (tree-sitter's included ranges; positions stay positions
/// in the whole text).
pub(crate) fn parse_ranges(
    lang: Lang,
    source: &str,
    ranges: &[tree_sitter::Range],
    budget: Duration,
) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.set_included_ranges(ranges).ok()?;
    run(&mut parser, lang, source, None, budget)
}

/// Parses `old`, then `new` incrementally from it (tree-sitter reuses every subtree outside
/// the changed span), so the second parse of an edited file costs a fraction of the first.
/// Each of the two parses may take `budget`.
pub(crate) fn parse_pair(
    lang: Lang,
    old: &str,
    new: &str,
    budget: Duration,
) -> Option<(Tree, Tree)> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    let old_tree = run(&mut parser, lang, old, None, budget)?;
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let (prefix, suffix) = crate::text::common_ends(a, b, |x, y| x == y);
    let mut edited = old_tree.clone();
    edited.edit(&tree_sitter::InputEdit {
        start_byte: prefix,
        old_end_byte: a.len() - suffix,
        new_end_byte: b.len() - suffix,
        start_position: point(a, prefix),
        old_end_position: point(a, a.len() - suffix),
        new_end_position: point(b, b.len() - suffix),
    });
    let new_tree = run(&mut parser, lang, new, Some(&edited), budget)?;
    Some((old_tree, new_tree))
}

/// Row and byte column of a byte offset.
pub(super) fn point(text: &[u8], offset: usize) -> tree_sitter::Point {
    let before = &text[..offset];
    let row = before.iter().filter(|c| **c == b'\n').count();
    let column = offset
        - before
            .iter()
            .rposition(|c| *c == b'\n')
            .map_or(0, |i| i + 1);
    tree_sitter::Point::new(row, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_parse_equals_a_fresh_parse() {
        let old = "fn a() -> u32 {\n    1\n}\n\nstruct S { x: u8 }\n\nimpl S {\n    fn get(&self) -> u8 { self.x }\n}\n";
        let edits = [
            old.replace("    1\n", "    let y = 2;\n    y\n"),
            old.replace("struct S { x: u8 }\n", ""),
            format!("// header\n{old}"),
            format!("{old}fn tail() {{}}\n"),
            old.replace("fn a()", "fn ä()"),
            String::new(),
        ];
        for new in edits {
            let (_, tree) = parse_pair(Lang::Rust, old, &new, DEFAULT_BUDGET).unwrap();
            let fresh = parse(Lang::Rust, &new, DEFAULT_BUDGET).unwrap();
            assert_eq!(
                tree.root_node().to_sexp(),
                fresh.root_node().to_sexp(),
                "{new}"
            );
        }
    }
}
