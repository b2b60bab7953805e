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

use std::time::Duration;

use tree_sitter::{Range, Tree};

use super::Lang;
use super::parse::range_of;
use super::symbols::{self, FileSymbols};

/// Below this a second thread costs more than it saves.
pub(crate) const MIN_BYTES: usize = 64 * 1024;
/// How far from the middle a cut may move, as a share of the file.
const SEARCH_SHARE: usize = 4;

/// The byte offset to cut `source` at: the start of a line near the middle that begins at
/// column 0 with something other than a closing bracket, after a blank line that follows
/// neither a comment nor an attribute. `None` when the file is small, has no such line, or is
/// in a language that is not cut (see `halvable`).
pub(crate) fn cut_point(lang: Lang, source: &str) -> Option<usize> {
    if source.len() < MIN_BYTES || !halvable(lang) {
        return None;
    }
    let mid = source.len() / 2;
    let reach = source.len() / SEARCH_SHARE;
    let starts = outside_brackets(source);
    let split = starts.partition_point(|&at| at < mid);
    let after = starts[split..]
        .iter()
        .copied()
        .take_while(|c| c - mid <= reach)
        .find(|&at| is_cut(lang, source, at));
    let before = starts[..split]
        .iter()
        .rev()
        .copied()
        .take_while(|c| mid - c <= reach)
        .find(|&at| is_cut(lang, source, at));
    match (before, after) {
        (Some(b), Some(a)) => Some(if mid - b <= a - mid { b } else { a }),
        (b, a) => b.or(a),
    }
}

/// Languages whose pieces cannot stand alone, or whose outline looks across what a cut would
/// separate: a JSON document is one value, PHP code starts only after `<?php`, Markdown is
/// parsed in two passes, a Haskell function's equations are joined across sibling nodes, and
/// TOML tables and YAML blocks take in the blank lines after them (so a cut there would always
/// be refused, costing a wasted parse).
fn halvable(lang: Lang) -> bool {
    !matches!(
        lang,
        Lang::Json | Lang::Php | Lang::Markdown | Lang::Haskell | Lang::Toml | Lang::Yaml
    )
}

/// Every line start that qualifies as a cut, in order (for tests).
#[cfg(test)]
fn candidates(lang: Lang, source: &str) -> Vec<usize> {
    outside_brackets(source)
        .into_iter()
        .filter(|&at| is_cut(lang, source, at))
        .collect()
}

/// Starts of lines where no bracket is open, counted naively: brackets in strings and
/// comments count too, which can only cost a cut, never make a wrong one (the parse checks).
/// A C++ file wrapped in `namespace x {` has none, so it is not cut only to be refused.
fn outside_brackets(source: &str) -> Vec<usize> {
    let mut depth = 0i64;
    let mut starts = Vec::new();
    for (i, b) in source.bytes().enumerate() {
        match b {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => depth -= 1,
            b'\n' if depth == 0 && i + 1 < source.len() => starts.push(i + 1),
            _ => {}
        }
    }
    starts
}

/// A line that can start a piece: it begins at column 0 with a word, `_`, `$`, `#` or `@`
/// (CSS also `.`, `:`, `*`, `[`), after a blank line that follows neither a comment nor an
/// attribute nor an unfinished line. Not a bracket or operator: in JavaScript, Lua, Ruby,
/// Kotlin or Swift a line starting with `(`, `[` or `.` can continue the statement before it,
/// even across blank lines.
fn is_cut(lang: Lang, source: &str, at: usize) -> bool {
    let Some(first) = source[at..].chars().next() else {
        return false;
    };
    let css = matches!(lang, Lang::Css | Lang::Scss) && matches!(first, '.' | ':' | '*' | '[');
    if !(first.is_alphabetic() || matches!(first, '_' | '$' | '#' | '@') || css) {
        return false;
    }
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
/// either half does not parse cleanly on its own within `budget` (the caller then parses the
/// whole file).
pub(crate) fn symbols_in_halves(
    lang: Lang,
    source: &str,
    cut: usize,
    budget: Duration,
) -> Option<FileSymbols> {
    let first = range_of(source, 0..cut);
    let second = range_of(source, cut..source.len());
    let (a, b) = std::thread::scope(|scope| {
        let later = std::thread::Builder::new()
            .name("cmem-parse".into())
            .spawn_scoped(scope, || half(lang, source, second, false, budget));
        let a = half(lang, source, first, true, budget);
        let b = match later {
            Ok(handle) => handle.join().ok().flatten(),
            // No second thread to be had: parse the second half here.
            Err(_) => half(lang, source, second, false, budget),
        };
        (a, b)
    });
    let (mut a, b) = (a?, b?);
    a.symbols.extend(b.symbols);
    a.imports.extend(b.imports);
    Some(a)
}

fn half(
    lang: Lang,
    source: &str,
    range: Range,
    is_first: bool,
    budget: Duration,
) -> Option<FileSymbols> {
    let tree = super::outline_tree(lang, source, range, budget)?;
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

#[cfg(test)]
mod tests {
    use super::super::parse::DEFAULT_BUDGET;
    use super::*;

    /// Languages whose fixtures hold declarations at the top level (`cargo test halves --
    /// --nocapture` prints how many cuts each fixture gives).
    const EXPECTED_CUT: [Lang; 14] = [
        Lang::Bash,
        Lang::Css,
        Lang::Go,
        Lang::JavaScript,
        Lang::Kotlin,
        Lang::Lua,
        Lang::Python,
        Lang::Ruby,
        Lang::Rust,
        Lang::Sql,
        Lang::Swift,
        Lang::Tsx,
        Lang::TypeScript,
        Lang::Zig,
    ];

    fn whole(lang: Lang, source: &str) -> FileSymbols {
        let tree = super::super::parse::parse(lang, source, DEFAULT_BUDGET).expect("parses");
        symbols::extract(lang, source, &tree)
    }

    #[test]
    fn small_files_are_not_cut() {
        assert_eq!(cut_point(Lang::Rust, "fn a() {}\n\nfn b() {}\n"), None);
    }

    #[test]
    fn the_cut_is_a_blank_line_then_an_item_near_the_middle() {
        let item = "/// Doc.\nfn f() {\n    let x = 1;\n}\n\nfn g() {}\n\n";
        let source = item.repeat(MIN_BYTES / item.len() + 10);
        let cut = cut_point(Lang::Rust, &source).expect("a cut");
        assert_eq!(cut_point(Lang::Php, &source), None);
        assert!(source[cut..].starts_with("fn g()"), "{:?}", &source[cut..]);
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
        let halves =
            symbols_in_halves(Lang::Rust, &source, cut, DEFAULT_BUDGET).expect("both halves parse");
        assert_eq!(halves, whole(Lang::Rust, &source));
        assert_eq!(
            super::super::file_symbols(Lang::Rust, &source, DEFAULT_BUDGET),
            Some(halves)
        );
    }

    #[test]
    fn no_cut_after_a_comment_or_attribute_or_inside_brackets() {
        let src = "fn a() {\n    f();\n\nlet x = 1;\n}\n// note\n\nfn b() {}\n#[test]\n\nfn c() {}\n\nfn d() {}\n";
        let cuts: Vec<&str> = candidates(Lang::Rust, src)
            .into_iter()
            .map(|at| &src[at..])
            .collect();
        assert_eq!(cuts.len(), 1, "{cuts:?}");
        assert!(cuts[0].starts_with("fn d"));
        // Whatever the shape of the text says, a cut inside a body is refused by the parse.
        assert_eq!(
            symbols_in_halves(Lang::Rust, src, src.find("let x").unwrap(), DEFAULT_BUDGET),
            None
        );
    }

    #[test]
    fn no_cut_before_a_line_that_may_continue_the_statement_above() {
        // Without semicolons, JavaScript reads these as one call across the blank line.
        let js = "const client = makeClient(opts)\n\n(async () => { await run() })()\n\n[1, 2].forEach(f)\n";
        assert_eq!(candidates(Lang::JavaScript, js), Vec::<usize>::new());
        let ruby = "items = load\n\n.select { |i| i.ok }\n";
        assert_eq!(candidates(Lang::Ruby, ruby), Vec::<usize>::new());
    }

    #[test]
    fn no_cut_inside_a_wrapping_namespace() {
        let cpp =
            "namespace shop {\n\nint total() { return 1; }\n\nint count() { return 2; }\n\n}\n";
        assert_eq!(candidates(Lang::Cpp, cpp), Vec::<usize>::new());
        let c = "extern \"C\" {\n\nint f(void);\n\nint g(void);\n\n}\n";
        assert_eq!(candidates(Lang::C, c), Vec::<usize>::new());
    }

    /// Every cut a fixture allows gives the symbols of one whole parse, or is refused.
    #[test]
    fn halves_give_the_symbols_of_the_whole_file_or_refuse() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/code");
        let mut accepted = std::collections::BTreeMap::new();
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
            for cut in candidates(lang, &source) {
                if let Some(got) = symbols_in_halves(lang, &source, cut, DEFAULT_BUDGET) {
                    assert_eq!(got, expected, "{} cut at byte {cut}", path.display());
                    *accepted.entry(lang.name()).or_insert(0) += 1;
                }
            }
        }
        eprintln!("accepted cuts per language: {accepted:?}");
        // Languages whose fixtures are declarations at the top level must actually be cut
        // (a file that is one class or one namespace has no cut outside brackets).
        for lang in EXPECTED_CUT {
            assert!(
                accepted.get(lang.name()).is_some_and(|n| *n >= 3),
                "{}: {accepted:?}",
                lang.name()
            );
        }
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
            assert!(is_cut(Lang::Rust, &src, cut));
            let got = symbols_in_halves(Lang::Rust, &src, cut, DEFAULT_BUDGET);
            assert!(got.is_none(), "{open}: {got:?}");
        }
    }
}
