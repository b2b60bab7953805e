//! Big files are outlined in two halves at once: tree-sitter parses one thread at a time, and
//! parsing is most of an outline's cost (a 10,000-line Rust file: ~60 ms of ~90 ms).
//!
//! The file is cut at a line that looks like the start of a top-level item, each half is parsed
//! on its own thread with tree-sitter's included ranges (so every position stays a position in
//! the whole file), and the two symbol lists are joined. A cut in the wrong place (inside a
//! string, a block comment, a function body, between a doc comment and its item) leaves an
//! unfinished construct in the first half or an orphan in the second; both show up as syntax
//! errors, or as a comment or attribute ending the first half, and then the whole file is
//! parsed the ordinary way. `tests` checks, for every cut each fixture allows, that the halves
//! give exactly the symbols of one whole parse.

use tree_sitter::{Parser, Point, Range, Tree};

use super::Lang;
use super::symbols::{self, FileSymbols};

/// Below this a second thread costs more than it saves.
pub const MIN_BYTES: usize = 64 * 1024;
/// How far from the middle a cut may move, as a share of the file.
const SEARCH_SHARE: usize = 4;

/// The byte offset to cut `source` at: the start of a line near the middle that begins at
/// column 0 with something other than a closing bracket, after a blank line that follows
/// neither a comment nor an attribute. `None` when the file is small, has no such line, or is
/// in a language whose halves cannot stand alone: a JSON document is one value, PHP code
/// starts only after `<?php`, and Markdown is parsed in two passes.
pub fn cut_point(lang: Lang, source: &str) -> Option<usize> {
    if source.len() < MIN_BYTES || !halvable(lang) {
        return None;
    }
    let mid = source.len() / 2;
    let reach = source.len() / SEARCH_SHARE;
    let after = candidates(source, mid)
        .take_while(|c| c - mid <= reach)
        .next();
    let before = candidates_before(source, mid)
        .take_while(|c| mid - c <= reach)
        .next();
    match (before, after) {
        (Some(b), Some(a)) => Some(if mid - b <= a - mid { b } else { a }),
        (b, a) => b.or(a),
    }
}

fn halvable(lang: Lang) -> bool {
    !matches!(lang, Lang::Json | Lang::Php | Lang::Markdown)
}

/// Line starts at or after `from` that qualify as cuts, in order.
fn candidates(source: &str, from: usize) -> impl Iterator<Item = usize> + '_ {
    line_starts(source, from).filter(|&at| is_cut(source, at))
}

/// Line starts before `from` that qualify as cuts, nearest first.
fn candidates_before(source: &str, from: usize) -> impl Iterator<Item = usize> + '_ {
    let bytes = source.as_bytes();
    (1..from.min(bytes.len()))
        .rev()
        .filter(move |&i| bytes[i - 1] == b'\n')
        .filter(move |&at| is_cut(source, at))
}

fn line_starts(source: &str, from: usize) -> impl Iterator<Item = usize> + '_ {
    let bytes = source.as_bytes();
    (from.max(1)..bytes.len()).filter(move |&i| bytes[i - 1] == b'\n')
}

fn is_cut(source: &str, at: usize) -> bool {
    let rest = &source[at..];
    let Some(first) = rest.chars().next() else {
        return false;
    };
    if first.is_whitespace() || matches!(first, '}' | ')' | ']') {
        return false;
    }
    // The line before must be blank, and the last non-blank line before that must not be a
    // comment or an attribute/decorator that belongs to what follows.
    let mut lines = source[..at].lines().rev();
    if !lines.next().is_some_and(|l| l.trim().is_empty()) {
        return false;
    }
    let Some(previous) = lines.find(|l| !l.trim().is_empty()) else {
        return false;
    };
    let previous = previous.trim_start();
    !["//", "/*", "*", "#", "@", "--", ";", "%", "\"\"\"", "'''"]
        .iter()
        .any(|p| previous.starts_with(p))
        && !previous
            .trim_end()
            .ends_with(['\\', ',', '(', '[', '{', '=', ':'])
}

/// The symbols of `source` from two halves cut at `cut`, parsed at the same time; `None` when
/// either half does not parse cleanly on its own (the caller then parses the whole file).
pub fn symbols_in_halves(lang: Lang, source: &str, cut: usize) -> Option<FileSymbols> {
    let cut_point = point_at(source, cut);
    let end_point = point_at(source, source.len());
    let first = Range {
        start_byte: 0,
        end_byte: cut,
        start_point: Point::new(0, 0),
        end_point: cut_point,
    };
    let second = Range {
        start_byte: cut,
        end_byte: source.len(),
        start_point: cut_point,
        end_point,
    };
    let (a, b) = std::thread::scope(|scope| {
        let later = std::thread::Builder::new()
            .name("cmem-parse".into())
            .spawn_scoped(scope, || half(lang, source, second, false));
        let a = half(lang, source, first, true);
        let b = match later {
            Ok(handle) => handle.join().ok().flatten(),
            // No second thread to be had: parse the second half here.
            Err(_) => half(lang, source, second, false),
        };
        (a, b)
    });
    let (mut a, b) = (a?, b?);
    a.symbols.extend(b.symbols);
    a.imports.extend(b.imports);
    Some(a)
}

fn half(lang: Lang, source: &str, range: Range, is_first: bool) -> Option<FileSymbols> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.set_included_ranges(&[range]).ok()?;
    let tree = parser.parse(source, None)?;
    let clean = !tree.root_node().has_error() && (!is_first || ends_cleanly(&tree, source, range));
    let symbols = clean.then(|| symbols::extract(lang, source, &tree));
    super::drop_in_background(tree);
    symbols
}

/// Whether the first half ends with something complete that ends where it would in the whole
/// file: a comment, attribute or decorator at its end would belong to the item after the cut,
/// and a node reaching into the blank lines before the cut (indentation-based grammars close
/// blocks at the end of input) would not end there in a whole parse.
fn ends_cleanly(tree: &Tree, source: &str, range: Range) -> bool {
    let root = tree.root_node();
    let last = root
        .named_child_count()
        .checked_sub(1)
        .and_then(|i| u32::try_from(i).ok());
    let Some(last) = last.and_then(|i| root.named_child(i)) else {
        return true;
    };
    let kind = last.kind();
    let text_end = source[..range.end_byte].trim_end().len();
    last.end_byte() <= text_end
        && !["comment", "attribute", "decorator", "annotation"]
            .iter()
            .any(|k| kind.contains(k))
}

/// Row and byte column of a byte offset.
fn point_at(source: &str, offset: usize) -> Point {
    let before = &source.as_bytes()[..offset];
    let row = before.iter().filter(|c| **c == b'\n').count();
    let column = offset
        - before
            .iter()
            .rposition(|c| *c == b'\n')
            .map_or(0, |i| i + 1);
    Point::new(row, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(lang: Lang, source: &str) -> FileSymbols {
        let tree = super::super::parse::parse(lang, source).expect("parses");
        symbols::extract(lang, source, &tree)
    }

    #[test]
    fn small_files_are_not_cut() {
        assert_eq!(cut_point(Lang::Rust, "fn a() {}\n\nfn b() {}\n"), None);
    }

    #[test]
    fn the_cut_is_a_blank_line_then_an_item_near_the_middle() {
        let item = "/// Doc.\nfn f() {\n    let x = 1;\n}\n\n";
        let source = item.repeat(MIN_BYTES / item.len() + 10);
        let cut = cut_point(Lang::Rust, &source).expect("a cut");
        assert_eq!(cut_point(Lang::Php, &source), None);
        assert!(source[cut..].starts_with("/// Doc.\nfn f()"));
        assert!(cut.abs_diff(source.len() / 2) < item.len());
    }

    #[test]
    fn a_big_file_is_outlined_in_halves_exactly_as_a_whole() {
        let item = |i: usize| {
            format!(
                "/// Settings of component {i}.\n#[derive(Debug)]\npub struct C{i} {{\n    pub name: String,\n}}\n\nimpl C{i} {{\n    /// Creates it.\n    pub fn new() -> Self {{\n        Self {{ name: String::new() }}\n    }}\n}}\n\n"
            )
        };
        let source: String = (0..1200).map(item).collect();
        assert!(source.len() > 2 * MIN_BYTES);
        let cut = cut_point(Lang::Rust, &source).expect("a cut");
        let halves = symbols_in_halves(Lang::Rust, &source, cut).expect("both halves parse");
        assert_eq!(halves, whole(Lang::Rust, &source));
        assert_eq!(
            super::super::file_symbols(Lang::Rust, &source),
            Some(halves)
        );
    }

    #[test]
    fn no_cut_after_a_comment_or_attribute_or_inside_a_body() {
        let src =
            "fn a() {\n    f();\n\nlet x = 1;\n}\n// note\n\nfn b() {}\n#[test]\n\nfn c() {}\n";
        for at in line_starts(src, 0) {
            let rest = &src[at..];
            let allowed = is_cut(src, at);
            if rest.starts_with("fn b") || rest.starts_with("fn c") {
                assert!(!allowed, "{rest:?}");
            }
        }
        // Only the shape of the text decides; a cut inside a body is caught by the parse.
        assert!(is_cut(src, src.find("let x").unwrap()));
        let tree_cut = src.find("let x").unwrap();
        assert_eq!(symbols_in_halves(Lang::Rust, src, tree_cut), None);
    }

    /// Every cut a fixture allows gives the symbols of one whole parse, or is refused.
    #[test]
    fn halves_give_the_symbols_of_the_whole_file_or_refuse() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/code");
        let mut accepted = 0;
        for entry in std::fs::read_dir(&dir).expect("fixtures") {
            let path = entry.expect("entry").path();
            let Some(lang) = Lang::from_path(&path) else {
                continue;
            };
            if !halvable(lang) {
                continue;
            }
            let source = std::fs::read_to_string(&path).expect("utf-8 fixture");
            let expected = whole(lang, &source);
            for cut in candidates(&source, 1) {
                if let Some(got) = symbols_in_halves(lang, &source, cut) {
                    assert_eq!(got, expected, "{} cut at byte {cut}", path.display());
                    accepted += 1;
                }
            }
        }
        assert!(accepted > 100, "only {accepted} cuts accepted");
    }

    #[test]
    fn a_cut_inside_a_string_or_comment_is_refused() {
        let body = "fn f() {}\n\n".repeat(10);
        for (open, close) in [
            ("const S: &str = \"", "\";\n"),
            ("/*", "*/\n"),
            ("const R: &str = r#\"", "\"#;\n"),
        ] {
            let src = format!("{body}{open}\ntext\n\nfn hidden() {{}}\n\ntext\n{close}\n{body}");
            let cut = src.find("fn hidden").unwrap();
            assert!(is_cut(&src, cut));
            let got = symbols_in_halves(Lang::Rust, &src, cut);
            assert!(got.is_none(), "{open}: {got:?}");
        }
    }
}
