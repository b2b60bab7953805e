//! The before → after of a small edit: the literal, operator, name or type that an edit
//! replaced, found by comparing the two sides token by token (`5_000` → `15_000`, `>` → `>=`,
//! `Math.floor` → `Math.round`, `verify` → `verify_signature`). This is what a reader of a
//! title wants from a one-token change, where a line count says nothing.

use crate::text::common_ends;

/// Longest side (characters) worth quoting in a title.
const MAX_SIDE: usize = 30;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Class {
    Word,
    Number,
    Text,
    Operator,
    Punct,
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    class: Class,
    /// Byte range in the line.
    start: usize,
    end: usize,
}

const OPERATOR_CHARS: &[char] = &[
    '<', '>', '=', '!', '&', '|', '+', '-', '*', '/', '%', '^', '~',
];

fn tokens(line: &str) -> Vec<Token<'_>> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        let c = line[i..].chars().next().unwrap_or(' ');
        let len = c.len_utf8();
        if c.is_whitespace() {
            i += len;
            continue;
        }
        let start = i;
        let class = if c.is_alphabetic() || c == '_' {
            i = scan(line, i, |ch| ch.is_alphanumeric() || ch == '_');
            Class::Word
        } else if c.is_ascii_digit() {
            i = scan(line, i, |ch| ch.is_alphanumeric() || ch == '_' || ch == '.');
            // `1.` before a method call is the number, not its dot.
            if line[start..i].ends_with('.') {
                i -= 1;
            }
            Class::Number
        } else if c == '"' || c == '\'' || c == '`' {
            let close = line[i + 1..]
                .char_indices()
                .find(|&(k, ch)| ch == c && bytes.get(i + k) != Some(&b'\\'))
                .map(|(k, _)| i + 1 + k + 1);
            match close {
                Some(e) => {
                    i = e;
                    Class::Text
                }
                None => {
                    i += len;
                    Class::Punct
                }
            }
        } else if c == ':' && line[i..].starts_with("::") {
            i += 2;
            Class::Punct
        } else if OPERATOR_CHARS.contains(&c) {
            i = scan(line, i, |ch| OPERATOR_CHARS.contains(&ch));
            Class::Operator
        } else {
            i += len;
            Class::Punct
        };
        out.push(Token {
            text: &line[start..i],
            class,
            start,
            end: i,
        });
    }
    out
}

fn scan(line: &str, from: usize, keep: impl Fn(char) -> bool) -> usize {
    line[from..]
        .char_indices()
        .find(|&(_, ch)| !keep(ch))
        .map_or(line.len(), |(k, _)| from + k)
}

/// The changed part of one line pair, as (old, new) text from the lines themselves.
fn line_change(old: &str, new: &str) -> Option<(String, String)> {
    let (a, b) = (tokens(old), tokens(new));
    let (prefix, suffix) = common_ends(&a, &b, |x, y| x.text == y.text);
    let (mut a0, a1) = (prefix, a.len() - suffix);
    let (mut b0, b1) = (prefix, b.len() - suffix);
    // An insertion or a deletion has no before → after to show.
    if a0 >= a1 || b0 >= b1 {
        return None;
    }
    // `Math.floor` → `Math.round`, `Ordering::Less` → `Ordering::Greater`: a changed name is
    // shown with its type or module qualifier (a capitalised name before `.` or `::`), not
    // with a variable it is called on (`rfind` → `find`, not `line.rfind` → `line.find`).
    while a0 >= 2
        && b0 >= 2
        && matches!(a[a0 - 1].text, "." | "::")
        && a[a0 - 2].class == Class::Word
        && a[a0 - 2].text.starts_with(char::is_uppercase)
    {
        a0 -= 2;
        b0 -= 2;
    }
    let side = |t: &[Token], line: &str, from: usize, to: usize| {
        line[t[from].start..t[to - 1].end].to_string()
    };
    let (o, n) = (side(&a, old, a0, a1), side(&b, new, b0, b1));
    let short = |s: &str| s.chars().count() <= MAX_SIDE;
    // A redacted secret replaced by another says nothing quotable (`[REDACTED:…]` markers).
    let redacted = |s: &str| s.contains("[REDACTED");
    (short(&o) && short(&n) && !redacted(old) && !redacted(new)).then_some((o, n))
}

/// What one edit replaced, when it is one small change: the differing lines of `old` and
/// `new` (common lines dropped) pair up one to one and each pair changes the same thing.
pub fn changed(old: &str, new: &str) -> Option<(String, String)> {
    let a: Vec<&str> = old.lines().map(str::trim).collect();
    let b: Vec<&str> = new.lines().map(str::trim).collect();
    let (prefix, suffix) = common_ends(&a, &b, |x, y| x == y);
    let (a, b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    if a.is_empty() || a.len() != b.len() || a.len() > 4 {
        return None;
    }
    let mut found: Option<(String, String)> = None;
    for (x, y) in a.iter().zip(b).filter(|(x, y)| x != y) {
        let change = line_change(x, y)?;
        match &found {
            Some(f) if *f != change => return None,
            _ => found = Some(change),
        }
    }
    found
}

/// `old → new` for a title: plain when both sides are one word or number, else each side in
/// a code span (an operator or a quoted string reads better fenced).
pub fn arrow(old: &str, new: &str) -> String {
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '"' | '\'' | '-'))
            && !s.starts_with('-')
    };
    if plain(old) && plain(new) {
        format!("{old} \u{2192} {new}")
    } else {
        format!(
            "{} \u{2192} {}",
            super::draft::code(old, MAX_SIDE),
            super::draft::code(new, MAX_SIDE)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(old: &str, new: &str) -> Option<(String, String)> {
        changed(old, new)
    }

    fn p(a: &str, b: &str) -> Option<(String, String)> {
        Some((a.to_string(), b.to_string()))
    }

    #[test]
    fn finds_the_changed_literal() {
        assert_eq!(
            pair(
                "pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;",
                "pub const DEFAULT_TIMEOUT_MS: u64 = 15_000;"
            ),
            p("5_000", "15_000")
        );
        assert_eq!(
            pair(
                "pub const DEFAULT_LEVEL: &str = \"warn\";",
                "pub const DEFAULT_LEVEL: &str = \"info\";"
            ),
            p("\"warn\"", "\"info\"")
        );
        assert_eq!(pair("    30\n}", "    300\n}"), p("30", "300"));
        assert_eq!(pair("if n > limit {", "if n >= limit {"), p(">", ">="));
        assert_eq!(
            pair(
                "return Math.floor(x * 100) / 100;",
                "return Math.round(x * 100) / 100;"
            ),
            p("Math.floor", "Math.round")
        );
        assert_eq!(
            pair("let i = line.rfind(':')?;", "let i = line.find(':')?;"),
            p("rfind", "find")
        );
        assert_eq!(
            pair("let port: u32 = s.parse()?;", "let port: u16 = s.parse()?;"),
            p("u32", "u16")
        );
    }

    #[test]
    fn one_rename_over_several_lines_is_one_change() {
        assert_eq!(
            pair(
                "use api::auth::verify;\n\nfn t() {\n    assert!(!verify(\"\"));",
                "use api::auth::verify_signature;\n\nfn t() {\n    assert!(!verify_signature(\"\"));"
            ),
            p("verify", "verify_signature")
        );
    }

    #[test]
    fn no_arrow_for_insertions_or_unrelated_changes() {
        assert_eq!(pair("f(a, b)", "f(a, b, c)"), None);
        assert_eq!(
            pair("let a = 1;\nlet b = 2;", "let a = 3;\nlet b = 4;"),
            None
        );
        assert_eq!(pair("a\nb", "a\nb\nc"), None);
        assert_eq!(
            pair("KEY=[REDACTED:stripe-key]", "KEY=[REDACTED:api-key]"),
            None,
            "redaction markers are no literal"
        );
        assert_eq!(
            pair("x = 1", &format!("x = {}", "9".repeat(40))),
            None,
            "too long to quote"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Any two texts: no panic, and an arrow's sides are short and come from the texts.
        #[test]
        fn any_edit_gives_a_short_arrow_or_none(
            old in "(?s)[a-z0-9_ .:\"'`<>=!(){};\n\u{e9}\u{4e2d}-]{0,80}",
            new in "(?s)[a-z0-9_ .:\"'`<>=!(){};\n\u{e9}\u{4e2d}-]{0,80}",
        ) {
            if let Some((o, n)) = changed(&old, &new) {
                proptest::prop_assert!(o.chars().count() <= MAX_SIDE && n.chars().count() <= MAX_SIDE);
                proptest::prop_assert!(old.contains(&o) && new.contains(&n));
                proptest::prop_assert!(o != n);
            }
        }
    }

    #[test]
    fn arrows_fence_what_is_not_a_word() {
        assert_eq!(arrow("30", "300"), "30 \u{2192} 300");
        assert_eq!(arrow(">", ">="), "`>` \u{2192} `>=`");
        assert_eq!(
            arrow("Math.floor", "Math.round"),
            "Math.floor \u{2192} Math.round"
        );
    }
}
