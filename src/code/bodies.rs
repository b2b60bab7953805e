//! Function bodies an outline never looks into. An outline lists declarations; the statements
//! inside a function body are most of a real file and most of its parse (and a Rust outline
//! lists no struct fields or enum variants either). For Rust, the text
//! between a function's braces is left out of the parse with tree-sitter's included ranges:
//! the parser sees `fn f() -> u8 {}`, every position stays a position in the whole file, and
//! the function still ends at its closing brace. If leaving the bodies out gives a syntax error
//! (the scan below was fooled, or the file is broken), the caller parses everything.

use std::ops::Range as Span;

use tree_sitter::{Point, Range};

use super::Lang;

/// The included ranges that cover `span` of `source` except the inside of function bodies;
/// `None` for languages without a body scan or when the scan finds unbalanced braces.
pub fn outline_ranges(lang: Lang, source: &str, span: Span<usize>) -> Option<Vec<Range>> {
    if lang != Lang::Rust {
        return None;
    }
    let bodies = rust_fn_bodies(source)?;
    let mut bounds = Vec::new();
    let mut at = span.start;
    for body in bodies {
        if body.end <= span.start || body.start >= span.end {
            continue;
        }
        bounds.push(at..body.start.max(span.start));
        at = body.end.min(span.end);
    }
    bounds.push(at..span.end);
    bounds.retain(|b| b.start < b.end);
    let offsets: Vec<usize> = bounds.iter().flat_map(|b| [b.start, b.end]).collect();
    let points = points_of(source, &offsets);
    Some(
        bounds
            .iter()
            .zip(points.chunks(2))
            .map(|(b, p)| Range {
                start_byte: b.start,
                end_byte: b.end,
                start_point: p[0],
                end_point: p[1],
            })
            .collect(),
    )
}

/// Rows and byte columns of ascending byte offsets, in one pass over the text.
fn points_of(source: &str, offsets: &[usize]) -> Vec<Point> {
    let bytes = source.as_bytes();
    let (mut row, mut line_start, mut pos) = (0, 0, 0);
    offsets
        .iter()
        .map(|&offset| {
            while pos < offset.min(bytes.len()) {
                if bytes[pos] == b'\n' {
                    row += 1;
                    line_start = pos + 1;
                }
                pos += 1;
            }
            Point::new(row, offset - line_start)
        })
        .collect()
}

/// The spans strictly inside the braces of Rust function bodies (`fn name … { here }`) and
/// of struct, enum and union bodies, outermost only, in order. Strings, raw strings, character literals and comments are
/// skipped so their braces do not count; a lifetime is not a character literal. `None` when
/// the braces do not balance.
fn rust_fn_bodies(source: &str) -> Option<Vec<Span<usize>>> {
    let b = source.as_bytes();
    let mut bodies = Vec::new();
    // For each open brace: whether it opens a function body.
    let mut open: Vec<bool> = Vec::new();
    let mut body_start: Option<(usize, usize)> = None; // (depth, first byte inside)
    // `fn` (or `struct`, `enum`, `union`) followed by a name since the last `;`, `{` or `}`:
    // the next `{` opens its body.
    let (mut after_fn, mut named_fn) = (false, false);
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
                let is_body = named_fn && body_start.is_none();
                open.push(is_body);
                if is_body {
                    body_start = Some((open.len(), i + 1));
                }
                (after_fn, named_fn) = (false, false);
            }
            b'}' => {
                let depth = open.len();
                open.pop()?;
                if let Some((d, start)) = body_start
                    && d == depth
                {
                    bodies.push(start..i);
                    body_start = None;
                }
                (after_fn, named_fn) = (false, false);
            }
            b';' => (after_fn, named_fn) = (false, false),
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
                named_fn |= after_fn;
                // Struct, enum and union bodies too: an outline lists no fields or variants.
                after_fn = matches!(word, b"fn" | b"struct" | b"enum" | b"union");
                i = end;
                continue;
            }
            c if c.is_ascii_whitespace() => {}
            _ => after_fn = false,
        }
        i += 1;
    }
    open.is_empty().then_some(bodies)
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
    use super::*;

    fn bodies(src: &str) -> Vec<&str> {
        rust_fn_bodies(src)
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
    fn unbalanced_braces_give_nothing() {
        assert_eq!(rust_fn_bodies("fn a() { {"), None);
        assert_eq!(rust_fn_bodies("fn a() { } }"), None);
        assert_eq!(outline_ranges(Lang::Rust, "fn a() {", 0..8), None);
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
            let whole = super::super::parse::parse(Lang::Rust, &source).expect("parses");
            let expected = crate::code::symbols::extract(Lang::Rust, &source, &whole);
            let ranges = outline_ranges(Lang::Rust, &source, 0..source.len()).expect("balanced");
            bodies_left_out += ranges.len() - 1;
            let tree =
                super::super::parse::parse_ranges(Lang::Rust, &source, &ranges).expect("parses");
            if tree.root_node().has_error() {
                assert!(whole.root_node().has_error(), "{} refused", path.display());
                continue;
            }
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
    fn ranges_cover_everything_but_the_bodies() {
        let src = "fn a() {\n    1\n}\n\nfn b() { 2 }\n";
        let ranges = outline_ranges(Lang::Rust, src, 0..src.len()).expect("rust");
        let kept: String = ranges
            .iter()
            .map(|r| &src[r.start_byte..r.end_byte])
            .collect();
        assert_eq!(kept, "fn a() {}\n\nfn b() {}\n");
        assert_eq!(ranges[1].start_point, Point::new(2, 0));
        let second_half = outline_ranges(Lang::Rust, src, 17..src.len()).expect("rust");
        assert_eq!(second_half.first().map(|r| r.start_byte), Some(17));
        assert_eq!(outline_ranges(Lang::Python, src, 0..src.len()), None);
    }
}
