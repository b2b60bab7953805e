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

/// The included range of `span` in `source`, with its rows and columns.
pub fn range_of(source: &str, span: std::ops::Range<usize>) -> tree_sitter::Range {
    tree_sitter::Range {
        start_byte: span.start,
        end_byte: span.end,
        start_point: point(source.as_bytes(), span.start),
        end_point: point(source.as_bytes(), span.end),
    }
}

/// Parses only `ranges` of `source` (tree-sitter's included ranges; positions stay positions
/// in the whole text).
pub fn parse_ranges(lang: Lang, source: &str, ranges: &[tree_sitter::Range]) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.set_included_ranges(ranges).ok()?;
    parser.parse(source, None)
}

/// Parses `old`, then `new` incrementally from it (tree-sitter reuses every subtree outside
/// the changed span), so the second parse of an edited file costs a fraction of the first.
pub fn parse_pair(lang: Lang, old: &str, new: &str) -> Option<(Tree, Tree)> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    let old_tree = parser.parse(old, None)?;
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    let mut edited = old_tree.clone();
    edited.edit(&tree_sitter::InputEdit {
        start_byte: prefix,
        old_end_byte: a.len() - suffix,
        new_end_byte: b.len() - suffix,
        start_position: point(a, prefix),
        old_end_position: point(a, a.len() - suffix),
        new_end_position: point(b, b.len() - suffix),
    });
    let new_tree = parser.parse(new, Some(&edited))?;
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
            let (_, tree) = parse_pair(Lang::Rust, old, &new).unwrap();
            let fresh = parse(Lang::Rust, &new).unwrap();
            assert_eq!(
                tree.root_node().to_sexp(),
                fresh.root_node().to_sexp(),
                "{new}"
            );
        }
    }
}
