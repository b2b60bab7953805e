//! Function bodies an outline never looks into. An outline lists declarations; the statements
//! inside a function body are most of a real file and most of its parse (and a Rust outline
//! lists no struct fields or enum variants either). For Rust, the text between a function's
//! braces is blanked in a copy of the source (spaces, newlines kept): the parser sees
//! `fn f() -> u8 {   }`, every byte and line stays where it was, and the symbols are read
//! from the real text. (Leaving the bodies out with tree-sitter's included ranges instead cost
//! more than it saved on big files: the lexer searches the list of ranges from the start for
//! every token.) If the blanked parse has a syntax error (the scan below was fooled, or the
//! file is broken), the caller parses the real text.

use std::ops::Range as Span;
use std::time::Duration;

use tree_sitter::{Range, Tree};

use super::Lang;

/// Parses `range` of `source` with the bodies an outline never looks into blanked; `None` when
/// the language has no body scan or the result is not to be trusted: a syntax error, or a
/// blanked body that does not follow the brace of a function block, a field or variant list
/// or a macro's token tree (an attribute saying `fn x` before an `impl` would otherwise hide
/// the impl's methods, and that parses without error). The parse may take `budget`.
pub(crate) fn parse_declarations(
    lang: Lang,
    source: &str,
    range: Range,
    budget: Duration,
) -> Option<Tree> {
    if lang != Lang::Rust {
        return None;
    }
    let bodies: Vec<Span<usize>> = rust_bodies(source)?
        .into_iter()
        .filter(|b| b.start >= range.start_byte && b.end <= range.end_byte)
        .collect();
    let blanked = blank(source, &bodies);
    let tree = super::parse::parse_ranges(lang, &blanked, &[range], budget)?;
    let trusted = !tree.root_node().has_error() && blanked_after_bodies(&tree, &bodies);
    trusted.then_some(tree)
}

/// `source` with every byte inside `bodies` but newlines turned into a space. Bodies start
/// after and end before an ASCII brace, so whole characters are replaced.
fn blank(source: &str, bodies: &[Span<usize>]) -> String {
    let mut bytes = source.as_bytes().to_vec();
    for body in bodies {
        for b in &mut bytes[body.clone()] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| source.to_string())
}

fn blanked_after_bodies(tree: &Tree, bodies: &[Span<usize>]) -> bool {
    let root = tree.root_node();
    bodies.iter().all(|body| {
        let brace = body.start - 1;
        root.descendant_for_byte_range(brace, brace + 1)
            .and_then(|node| node.parent())
            .is_some_and(|list| {
                matches!(
                    list.kind(),
                    "block" | "field_declaration_list" | "enum_variant_list" | "token_tree"
                )
            })
    })
}

/// The spans strictly inside the braces of Rust function bodies (`fn name … { here }`) and
/// of struct, enum and union bodies, outermost only, in order. Strings, raw strings,
/// character literals and comments are skipped so their braces do not count; a lifetime is
/// not a character literal. `None` when the braces do not balance.
fn rust_bodies(source: &str) -> Option<Vec<Span<usize>>> {
    let b = source.as_bytes();
    let mut bodies = Vec::new();
    // How many braces are open.
    let mut depth = 0usize;
    let mut body: Option<OpenBody> = None;
    // `fn` (or `struct`, `enum`, `union`) followed by a name since the last `;`, `{` or `}`:
    // the next `{` opens its body.
    // Only at bracket depth 0 of a header: `#[attr(fn x)]` and `[u8; 4]` are not its parts.
    let (mut after_fn, mut named_fn) = (false, false);
    let mut brackets = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr(b'\n', b, i).unwrap_or(b.len());
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = block_comment_end(b, i)?;
                continue;
            }
            b'"' => {
                i = string_end(b, i + 1)?;
                after_fn = false;
                continue;
            }
            b'\'' => {
                i = char_literal_end(source, i).unwrap_or(i + 1);
                after_fn = false;
                continue;
            }
            b'{' => {
                depth += 1;
                if named_fn && body.is_none() {
                    body = Some(OpenBody {
                        depth,
                        start: i + 1,
                        indent: line_indent(b, i).0,
                        suspect: false,
                    });
                }
                (after_fn, named_fn, brackets) = (false, false, 0);
            }
            b'}' => {
                if let Some(open_body) = body.take_if(|o| o.depth == depth)
                    && !open_body.suspect
                {
                    bodies.push(open_body.start..i);
                }
                depth = depth.checked_sub(1)?;
                (after_fn, named_fn, brackets) = (false, false, 0);
            }
            b';' if brackets == 0 => (after_fn, named_fn) = (false, false),
            b'(' | b'[' => {
                brackets += 1;
                after_fn = false;
            }
            b')' | b']' => {
                brackets = brackets.saturating_sub(1);
                after_fn = false;
            }
            c if is_ident(c) && !c.is_ascii_digit() => {
                let end = (i..b.len()).find(|&j| !is_ident(b[j])).unwrap_or(b.len());
                let word = &b[i..end];
                let raw =
                    matches!(word, b"r" | b"br" | b"cr") && matches!(b.get(end), Some(b'"' | b'#'));
                // `r#name` is a raw identifier, not a string: no quote after the `#`s.
                if raw && let Some(after) = raw_string_end(b, end) {
                    i = after;
                    after_fn = false;
                    continue;
                }
                if let Some(open_body) = body.as_mut()
                    && is_item_keyword(word)
                {
                    // An item keyword starting a line no deeper than the body's own header:
                    // rustfmt never writes that, a missing `}` above does. Such a body is
                    // parsed, so the error shows and the whole file is parsed instead.
                    let (indent, starts_line) = line_indent(b, i);
                    if starts_line && indent <= open_body.indent {
                        open_body.suspect = true;
                    }
                }
                named_fn |= after_fn;
                // Struct, enum and union bodies too: an outline lists no fields or variants.
                after_fn = brackets == 0 && matches!(word, b"fn" | b"struct" | b"enum" | b"union");
                i = end;
                continue;
            }
            c if c.is_ascii_whitespace() => {}
            _ => after_fn = false,
        }
        i += 1;
    }
    (depth == 0).then_some(bodies)
}

struct OpenBody {
    /// How many braces are open, this one included.
    depth: usize,
    /// The first byte inside.
    start: usize,
    /// The indentation of the line the body opens on.
    indent: usize,
    suspect: bool,
}

/// The indentation of the line `at` is on, and whether only that indentation comes before it.
/// Looks back at most `LOOK_BACK` bytes, so a minified one-line file costs nothing; a line
/// longer than that counts as not indented.
fn line_indent(b: &[u8], at: usize) -> (usize, bool) {
    const LOOK_BACK: usize = 512;
    let from = at.saturating_sub(LOOK_BACK);
    let line_start = match b[from..at].iter().rposition(|c| *c == b'\n') {
        Some(p) => from + p + 1,
        None if from == 0 => 0,
        None => return (0, false),
    };
    let indent = b[line_start..at]
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count();
    (indent, line_start + indent == at)
}

fn is_item_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"fn"
            | b"pub"
            | b"struct"
            | b"enum"
            | b"union"
            | b"impl"
            | b"trait"
            | b"mod"
            | b"use"
            | b"static"
            | b"type"
            | b"extern"
    )
}

fn memchr(needle: u8, hay: &[u8], from: usize) -> Option<usize> {
    hay[from..]
        .iter()
        .position(|c| *c == needle)
        .map(|p| from + p)
}

/// The byte after a (nested) block comment starting at `start`.
fn block_comment_end(b: &[u8], start: usize) -> Option<usize> {
    let (mut depth, mut i) = (0usize, start);
    while i + 1 < b.len() {
        match (b[i], b[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The byte after the closing quote of a string whose contents start at `from`.
fn string_end(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn is_ident(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80
}

/// The byte after a raw string (`r#"…"#`) whose `#`s start at `from`.
fn raw_string_end(b: &[u8], from: usize) -> Option<usize> {
    let hashes = b[from..].iter().take_while(|c| **c == b'#').count();
    if b.get(from + hashes) != Some(&b'"') {
        return None;
    }
    let mut i = from + hashes + 1;
    while i < b.len() {
        if b[i] == b'"'
            && b[i + 1..]
                .iter()
                .take(hashes)
                .filter(|c| **c == b'#')
                .count()
                == hashes
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    None
}

/// The byte after a character literal at `start` (`'a'`, `'\n'`, `'\u{1F600}'`, `'é'`);
/// `None` for a lifetime or label (`'a`, `'static`).
fn char_literal_end(source: &str, start: usize) -> Option<usize> {
    let rest = source.get(start + 1..)?;
    let mut chars = rest.char_indices();
    let (_, first) = chars.next()?;
    if first == '\\' {
        // Escapes are ASCII: skip the backslash and the escaped character, then find the quote.
        let close = rest.get(2..)?.find('\'')?;
        return (close < 10).then_some(start + 1 + 2 + close + 1);
    }
    let (at, next) = chars.next()?;
    (next == '\'').then_some(start + 1 + at + 1)
}

#[cfg(test)]
mod tests {
    use super::super::parse::DEFAULT_BUDGET;
    use super::*;

    fn bodies(src: &str) -> Vec<&str> {
        rust_bodies(src)
            .expect("balanced")
            .into_iter()
            .map(|s| &src[s])
            .collect()
    }

    #[test]
    fn function_bodies_and_only_those() {
        let src = "struct S { a: fn(u8) -> u8 }\nimpl S {\n    fn get(&self) -> u8 { (self.a)(1) }\n}\ntrait T { fn m(&self); fn d(&self) { let x = { 1 }; } }\nfn top<T>() -> T where T: Default { T::default() }\nstruct U(u8);\nenum E { A { x: u8 }, B }\nmod m { fn f() {} }\n";
        assert_eq!(
            bodies(src),
            [
                " a: fn(u8) -> u8 ",
                " (self.a)(1) ",
                " let x = { 1 }; ",
                " T::default() ",
                " A { x: u8 }, B ",
                "",
            ]
        );
    }

    #[test]
    fn braces_in_strings_chars_and_comments_do_not_count() {
        let src = "fn a() { let s = \"}{\"; let c = '}'; let r = r#\"}\"#; /* } /* { */ } */ // }\n }\nfn b<'a>(x: &'a str) -> char { '{' }\n";
        let got = bodies(src);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].ends_with("// }\n "));
        assert_eq!(got[1], " '{' ");
    }

    #[test]
    fn a_comment_or_a_function_type_does_not_make_a_body() {
        let src = "// fn helper is below\nimpl Tr for fn(u8) {\n    fn x(&self) {}\n}\n/* struct Old */ impl Old {}\n";
        assert_eq!(bodies(src), [""]);
    }

    #[test]
    fn tricky_literals_and_raw_identifiers() {
        let src = "fn a() -> [char; 3] { ['\\'', '\\u{7b}', b'{' as char] }\nfn b() { let r = r##\"a\"#{b\"##; }\nfn r#fn() { 'outer: loop { break 'outer; } }\n";
        assert_eq!(
            bodies(src),
            [
                " ['\\'', '\\u{7b}', b'{' as char] ",
                " let r = r##\"a\"#{b\"##; ",
                " 'outer: loop { break 'outer; } "
            ]
        );
    }

    #[test]
    fn an_attribute_saying_fn_does_not_hide_an_impl() {
        let src = "#[my_attr(fn hook)]\nimpl S {\n    pub fn a() {}\n}\n";
        assert_eq!(bodies(src), [""]);
        let symbols = super::super::file_symbols(Lang::Rust, src, DEFAULT_BUDGET).expect("symbols");
        assert_eq!(
            symbols
                .all()
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>(),
            ["S", "a"]
        );
        // Should the scan be fooled all the same, the blanked impl body is noticed.
        let impl_body = src.find("{\n").unwrap() + 1..src.rfind('}').unwrap();
        let blanked = blank(src, std::slice::from_ref(&impl_body));
        let tree =
            super::super::parse::parse(Lang::Rust, &blanked, DEFAULT_BUDGET).expect("parses");
        assert!(!tree.root_node().has_error());
        assert!(!blanked_after_bodies(&tree, &[impl_body]));
    }

    #[test]
    fn a_broken_body_with_balancing_braces_is_not_left_out() {
        // `if` lost its `}`; a stray `}` at the end balances the count.
        let src = "fn a() {\n    if x {\n        1\n}\n\nfn b() {}\n\npub struct C;\n}\n";
        assert_eq!(bodies(src), Vec::<&str>::new());
        let whole = super::super::parse::parse(Lang::Rust, src, DEFAULT_BUDGET).expect("parses");
        let expected = crate::code::symbols::extract(Lang::Rust, src, &whole);
        assert_eq!(
            super::super::file_symbols(Lang::Rust, src, DEFAULT_BUDGET),
            Some(expected)
        );
    }

    #[test]
    fn unbalanced_braces_give_nothing() {
        assert_eq!(rust_bodies("fn a() { {"), None);
        assert_eq!(rust_bodies("fn a() { } }"), None);
    }

    /// Every Rust file of cmem itself and the fixtures: leaving function bodies out gives the
    /// symbols of the whole parse, and is refused (syntax error) for almost none.
    #[test]
    fn leaving_bodies_out_changes_no_symbol() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        let mut dirs = vec![root.join("src"), root.join("tests")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("readable dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        let (mut accepted, mut bodies_left_out) = (0, 0);
        for path in &files {
            let source = std::fs::read_to_string(path).expect("utf-8");
            let whole =
                super::super::parse::parse(Lang::Rust, &source, DEFAULT_BUDGET).expect("parses");
            let expected = crate::code::symbols::extract(Lang::Rust, &source, &whole);
            bodies_left_out += rust_bodies(&source).expect("balanced").len();
            let range = super::super::parse::range_of(&source, 0..source.len());
            let Some(tree) = parse_declarations(Lang::Rust, &source, range, DEFAULT_BUDGET) else {
                assert!(whole.root_node().has_error(), "{} refused", path.display());
                continue;
            };
            let got = crate::code::symbols::extract(Lang::Rust, &source, &tree);
            assert_eq!(got, expected, "{}", path.display());
            accepted += 1;
        }
        assert!(
            files.len() > 100 && accepted == files.len(),
            "{accepted} of {}",
            files.len()
        );
        assert!(bodies_left_out > 1000, "{bodies_left_out}");
    }

    #[test]
    fn blanking_keeps_every_byte_and_line_in_place() {
        let src = "fn a() {\n    \"é\"\n}\n\nfn b() { 2 }\n";
        let bodies = rust_bodies(src).expect("balanced");
        let blanked = blank(src, &bodies);
        assert_eq!(blanked.len(), src.len());
        // Four spaces of indent, two quotes and the two bytes of `é`.
        assert_eq!(blanked, "fn a() {\n        \n}\n\nfn b() {   }\n");
    }
}
