//! Which functions, types and classes an edit touched, for edit titles. The finding is done by
//! the code-intelligence module (tree-sitter, `src/code/`); this is the observer's one door to
//! it, so the rules never depend on how symbols are found.
//!
//! Parsing is what costs time on the hook path (a 20 KB Rust file takes about 10 ms to parse
//! here), so only the part of a file an edit is in gets parsed: the lines that differ, widened
//! to whole top-level items (from the unindented line that opens the item to the unindented
//! line that closes it, or to the next item). Everything outside that span is the same text in
//! both versions, so no symbol outside it can have changed.

use std::path::Path;
use std::time::Duration;

/// Past this many bytes a file's definitions are read from its start only.
pub(crate) const MAX_DEFINED_BYTES: usize = 12 * 1024;

/// Symbols whose text differs between `old` and `new` (both whole files), in file order; none
/// when a parse takes longer than `budget`.
pub(crate) fn changed(path: &str, old: &str, new: &str, budget: Duration) -> Vec<String> {
    match changed_span(old, new) {
        Some((o, n)) => crate::code::changed_symbols(Path::new(path), o, n, budget),
        None => Vec::new(),
    }
}

/// Symbols a file defines, in file order (the first `MAX_DEFINED_BYTES` of it); none when its
/// parse takes longer than `budget`.
pub(crate) fn defined(path: &str, source: &str, budget: Duration) -> Vec<String> {
    crate::code::defined_symbols(Path::new(path), head(source, MAX_DEFINED_BYTES), budget)
}

/// The start of `text`, at most `max` bytes, ending at a line end.
fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind('\n') {
        Some(i) => &text[..=i],
        None => &text[..end],
    }
}

/// Lines with their byte offsets (the offset of line `i` and of the end of the text).
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        text.match_indices('\n')
            .map(|(i, _)| i + 1)
            .filter(|&i| i < text.len()),
    );
    starts
}

fn line<'a>(text: &'a str, starts: &[usize], i: usize) -> &'a str {
    let end = starts.get(i + 1).copied().unwrap_or(text.len());
    text[starts[i]..end].trim_end_matches(['\n', '\r'])
}

/// An unindented line that closes a block (`}`, `end`, `)`, …).
fn closes(l: &str) -> bool {
    let t = l.trim_end();
    t.starts_with(['}', ')', ']']) || t == "end" || t.starts_with("end ") || t == "*/"
}

/// An unindented, non-blank line that is not a closer: where a top-level item can start.
fn opens(l: &str) -> bool {
    !l.is_empty() && !l.starts_with([' ', '\t']) && !closes(l)
}

/// The spans of `old` and `new` that hold every difference, widened to whole top-level items.
/// `None` when the texts are equal.
pub(crate) fn changed_span<'a>(old: &'a str, new: &'a str) -> Option<(&'a str, &'a str)> {
    if old == new {
        return None;
    }
    let (os, ns) = (line_starts(old), line_starts(new));
    let (on, nn) = (os.len(), ns.len());
    let prefix = (0..on.min(nn))
        .take_while(|&i| line(old, &os, i) == line(new, &ns, i))
        .count();
    let suffix = (0..(on - prefix).min(nn - prefix))
        .take_while(|&k| line(old, &os, on - 1 - k) == line(new, &ns, nn - 1 - k))
        .count();
    // Start: the nearest line at or above the first difference that opens an item (the same
    // line in both texts: it lies in the common prefix, or is the first differing line).
    let mut start = prefix.min(on.saturating_sub(1)).min(nn.saturating_sub(1));
    while start > 0 && !(opens(line(old, &os, start)) && opens(line(new, &ns, start))) {
        start -= 1;
    }
    // End: walk down the common suffix to the first unindented line; a closer belongs to the
    // span, an opener starts the next item.
    let mut k = suffix;
    let mut end_old = on;
    let mut end_new = nn;
    while k > 0 {
        let (i, j) = (on - k, nn - k);
        let l = line(old, &os, i);
        if closes(l) {
            end_old = i + 1;
            end_new = j + 1;
            break;
        }
        if opens(l) {
            end_old = i;
            end_new = j;
            break;
        }
        k -= 1;
    }
    let slice = |text: &'a str, starts: &[usize], from: usize, to: usize| -> &'a str {
        let a = starts.get(from).copied().unwrap_or(text.len());
        let b = starts.get(to).copied().unwrap_or(text.len());
        &text[a..b.max(a)]
    };
    Some((
        slice(old, &os, start, end_old),
        slice(new, &ns, start, end_new),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: Duration = crate::code::parse::DEFAULT_BUDGET;

    const OLD: &str = "//! Demo.\n\nuse std::fmt;\n\npub fn a() -> u32 {\n    1\n}\n\nimpl S {\n    fn b(&self) {\n        let x = 2;\n    }\n\n    fn c(&self) {}\n}\n\nfn d() {}\n";

    #[test]
    fn the_span_is_the_items_the_change_is_in() {
        let new = OLD.replace("let x = 2;", "let x = 3;");
        let (o, n) = changed_span(OLD, &new).unwrap();
        assert_eq!(
            o,
            "impl S {\n    fn b(&self) {\n        let x = 2;\n    }\n\n    fn c(&self) {}\n}\n"
        );
        assert_eq!(n, o.replace("2;", "3;"));
        let new = OLD.replace("    1\n", "    10\n");
        assert_eq!(
            changed_span(OLD, &new).unwrap().0,
            "pub fn a() -> u32 {\n    1\n}\n"
        );
        // A new item between two others.
        let new = OLD.replace("fn d() {}", "fn e() {}\n\nfn d() {}");
        let (o, n) = changed_span(OLD, &new).unwrap();
        assert_eq!((o, n), ("", "fn e() {}\n\n"), "only the new item");
        assert_eq!(changed_span(OLD, OLD), None);
    }

    #[test]
    fn symbols_found_in_the_span_match_the_whole_file() {
        for (from, to) in [
            ("let x = 2;", "let x = 3;"),
            ("    1\n", "    10\n"),
            ("fn d() {}", "fn d() { d() }"),
            ("fn d() {}", "fn e() {}\n\nfn d() {}"),
            ("\nfn d() {}\n", "\n"),
        ] {
            let new = OLD.replace(from, to);
            assert_eq!(
                changed("lib.rs", OLD, &new, BUDGET),
                crate::code::changed_symbols(Path::new("lib.rs"), OLD, &new, BUDGET),
                "{from} → {to}"
            );
        }
        let new = OLD.replace("let x = 2;", "let x = 3;");
        assert!(!changed("lib.rs", OLD, &new, BUDGET).is_empty());
    }

    #[test]
    fn defined_reads_from_the_start_of_big_files() {
        let big = format!("fn first() {{}}\n{}", "// filler line\n".repeat(2000));
        assert_eq!(defined("big.rs", &big, BUDGET), vec!["first"]);
        assert!(head(&big, MAX_DEFINED_BYTES).len() <= MAX_DEFINED_BYTES);
    }
}
