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
    // The same token replaced at several places in the line (`min(8, "at least 8 chars")`):
    // one change, shown once.
    let mut replaced_everywhere = None;
    // A redacted secret replaced by another is nothing to name (`quotable` says the same).
    let redacted = [old, new].iter().any(|l| l.contains(REDACTION_MARK));
    if a.len() == b.len() && !redacted {
        let mut pairs = a.iter().zip(&b).filter(|(x, y)| x.text != y.text);
        if let Some((x, y)) = pairs.next()
            && pairs.clone().count() > 0
            && matches!(x.class, Class::Number | Class::Word)
        {
            let same = |p: &Token, q: &Token| p.text == x.text && q.text == y.text;
            if pairs.clone().all(|(p, q)| same(p, q)) {
                return Some((x.text.to_string(), y.text.to_string()));
            }
            // Also as a word inside a string (`"Password must be at least 8 characters"`):
            // shown whole when it fits, else as the token replaced.
            if pairs.all(|(p, q)| same(p, q) || replaced_words(p.text, x.text, y.text) == q.text) {
                replaced_everywhere = Some((x.text.to_string(), y.text.to_string()));
            }
        }
    }
    let (prefix, suffix) = common_ends(&a, &b, |x, y| x.text == y.text);
    let (mut a0, mut a1) = (prefix, a.len() - suffix);
    let (mut b0, mut b1) = (prefix, b.len() - suffix);
    // An argument added or removed shows as the call before and after
    // (`GetUser(id)` → `GetUser(r.Context(), id)`); other insertions have no before → after.
    if a0 >= a1 || b0 >= b1 {
        let (x, y) = (enclosing_call(&a, a0)?, enclosing_call(&b, b0)?);
        let (o, n) = (
            old[a[x.0].start..a[x.1].end].to_string(),
            new[b[y.0].start..b[y.1].end].to_string(),
        );
        return quotable(o, n, MAX_SIGNATURE_SIDE, &[old, new]);
    }
    // An operator alone says little: `subtotal > 50` → `subtotal >= 50`, not `>` → `>=`, when
    // its operands are one name or number each (a longer expression stays out of a title).
    let simple = |t: &[Token], i: usize| {
        matches!(t[i].class, Class::Word | Class::Number)
            && !(i > 0 && matches!(t[i - 1].text, "." | "::"))
            && !t
                .get(i + 1)
                .is_some_and(|k| matches!(k.text, "." | "::" | "("))
    };
    if a1 - a0 == 1
        && b1 - b0 == 1
        && a[a0].class == Class::Operator
        && b[b0].class == Class::Operator
        && a0 > 0
        && a1 < a.len()
        && simple(&a, a0 - 1)
        && simple(&a, a1)
    {
        a0 -= 1;
        b0 -= 1;
        a1 += 1;
        b1 += 1;
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
    // A list whose items changed is shown as the list (`[16, 18]` → `[18, 20, 22]`): items
    // without their brackets read as a different value.
    let bracketed = |t: &[Token], from: usize, to: usize| {
        from > 0 && to < t.len() && t[from - 1].text == "[" && t[to].text == "]"
    };
    if bracketed(&a, a0, a1) && bracketed(&b, b0, b1) && (a1 - a0 > 1 || b1 - b0 > 1) {
        a0 -= 1;
        b0 -= 1;
        a1 += 1;
        b1 += 1;
    }
    // A number is shown with the word that follows it when that word says what it counts
    // (`7 preceding` → `6 preceding`, `30 days` → `90 days`): a bare `7 → 6` says nothing.
    let unit = |t: &[Token], i: usize| {
        t.get(i).is_some_and(|k| {
            k.class == Class::Word
                && k.text.len() > 2
                && k.text.chars().all(|c| c.is_ascii_lowercase())
                && !matches!(
                    k.text,
                    "and" | "for" | "then" | "else" | "not" | "end" | "while"
                )
        })
    };
    if a1 - a0 == 1
        && b1 - b0 == 1
        && a[a0].class == Class::Number
        && b[b0].class == Class::Number
        && unit(&a, a1)
        && b.get(b1).map(|k| k.text) == a.get(a1).map(|k| k.text)
    {
        a1 += 1;
        b1 += 1;
    }
    // A Go duration is its number and its unit (`2 * time.Second` → `5 * time.Second`).
    let scaled = |t: &[Token], i: usize| {
        t.get(i).is_some_and(|k| k.text == "*")
            && t.get(i + 1).is_some_and(|k| k.class == Class::Word)
            && t.get(i + 2).is_some_and(|k| k.text == ".")
            && t.get(i + 3).is_some_and(|k| k.class == Class::Word)
    };
    if a1 - a0 == 1
        && b1 - b0 == 1
        && a[a0].class == Class::Number
        && b[b0].class == Class::Number
        && scaled(&a, a1)
        && a[a1..a1 + 4]
            .iter()
            .map(|k| k.text)
            .eq(b[b1..].iter().take(4).map(|k| k.text))
    {
        a1 += 4;
        b1 += 4;
    }
    // A change inside a call's parentheses that reaches past them on one side is shown with
    // the parentheses whole (`Duration.ofHours(1)` → `Duration.ofMinutes(5)`, never
    // `Duration.ofHours(1` → …): the tokens added are common to both lines.
    let depth = |k: &Token| match k.text {
        "(" | "[" | "{" => 1i32,
        ")" | "]" | "}" => -1,
        _ => 0,
    };
    let open = |t: &[Token], from: usize, to: usize| t[from..to].iter().map(depth).sum::<i32>();
    // Depths kept step by step (a long line is walked once), and no further than a side
    // `quotable` could still show.
    let (mut da, mut db) = (open(&a, a0, a1), open(&b, b0, b1));
    let short = |t: &[Token], from: usize, to: usize| t[to - 1].end - t[from].start <= MAX_SIDE;
    while da > 0
        && db > 0
        && a1 < a.len()
        && b1 < b.len()
        && a[a1].text == b[b1].text
        && short(&a, a0, a1)
    {
        da += depth(&a[a1]);
        db += depth(&b[b1]);
        a1 += 1;
        b1 += 1;
    }
    while da < 0
        && db < 0
        && a0 > 0
        && b0 > 0
        && a[a0 - 1].text == b[b0 - 1].text
        && short(&a, a0, a1)
    {
        da += depth(&a[a0 - 1]);
        db += depth(&b[b0 - 1]);
        a0 -= 1;
        b0 -= 1;
    }
    let side = |t: &[Token], line: &str, from: usize, to: usize| {
        line[t[from].start..t[to - 1].end].to_string()
    };
    let (o, n) = (side(&a, old, a0, a1), side(&b, new, b0, b1));
    quotable(o, n, MAX_SIDE, &[old, new]).or(replaced_everywhere)
}

/// `text` with every whole-word `from` (not inside a longer word or number: `88`, `0.8`)
/// made `to`.
fn replaced_words(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(found) = text[at..].find(from).map(|i| at + i) {
        let end = found + from.len();
        let mut before = text[..found].chars().rev();
        let glued_before = before.next().is_some_and(|c| {
            is_word_char(c) || (c == '.' && before.next().is_some_and(|d| d.is_ascii_digit()))
        });
        let mut after = text[end..].chars();
        let glued_after = after.next().is_some_and(|c| {
            is_word_char(c) || (c == '.' && after.next().is_some_and(|d| d.is_ascii_digit()))
        });
        out.push_str(&text[at..found]);
        out.push_str(if glued_before || glued_after {
            from
        } else {
            to
        });
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// How a redacted secret begins in stored text (`privacy::redact`).
const REDACTION_MARK: &str = "[REDACTED";

/// `(old, new)` when the sides differ, are short enough to quote, and neither they nor the
/// `lines` they come from hold a redaction marker (a redacted secret replaced by another says
/// nothing quotable).
fn quotable(o: String, n: String, max: usize, lines: &[&str]) -> Option<(String, String)> {
    let short = |s: &str| s.chars().count() <= max;
    let redacted = [o.as_str(), n.as_str()]
        .iter()
        .chain(lines)
        .any(|s| s.contains(REDACTION_MARK));
    (o != n && short(&o) && short(&n) && !redacted).then_some((o, n))
}

/// The call around token `at` (its name through its closing parenthesis), as token indices.
fn enclosing_call(t: &[Token], at: usize) -> Option<(usize, usize)> {
    let mut depth = 0;
    let open = (0..at.min(t.len())).rev().find(|&i| match t[i].text {
        ")" => {
            depth += 1;
            false
        }
        "(" if depth == 0 => true,
        "(" => {
            depth -= 1;
            false
        }
        _ => false,
    })?;
    let name = open.checked_sub(1).filter(|&i| t[i].class == Class::Word)?;
    Some((name, param_close(t, open)?))
}

/// What one edit replaced, when it is one small change: the differing lines of `old` and
/// `new` (common lines and comments dropped) pair up one to one and each pair changes the same
/// thing; else the change to a function's signature, when the edit made one.
pub(crate) fn changed(old: &str, new: &str) -> Option<(String, String)> {
    let differing = |code_only: bool| {
        let lines = |text: &str| -> Vec<String> {
            text.lines()
                .map(str::trim)
                .filter(|l| !(code_only && is_comment(l)))
                .map(|l| match code_only {
                    true => without_trailing_comment(l),
                    false => l,
                })
                .map(str::to_string)
                .collect()
        };
        let (a, b) = (lines(old), lines(new));
        let (prefix, suffix) = common_ends(&a, &b, |x, y| x == y);
        (
            a[prefix..a.len() - suffix].to_vec(),
            b[prefix..b.len() - suffix].to_vec(),
        )
    };
    let (a, b) = differing(true);
    same_change_on_every_line(&a, &b)
        .or_else(|| signature_change(&a, &b))
        .or_else(|| lines_replaced(&a, &b))
        // Lines that only look like comments (a Markdown heading or list item).
        .or_else(|| {
            let (a, b) = differing(false);
            same_change_on_every_line(&a, &b)
        })
}

fn same_change_on_every_line(a: &[String], b: &[String]) -> Option<(String, String)> {
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

/// A line or two replaced by a different number of lines (`white-space: nowrap;` →
/// `overflow-wrap: anywhere; min-width: 0;`): short enough, the lines themselves are the
/// before → after, joined into one line each.
fn lines_replaced(a: &[String], b: &[String]) -> Option<(String, String)> {
    let small = |l: &[String]| (1..=2).contains(&l.len());
    if !small(a) || !small(b) || a.len() == b.len() {
        return None;
    }
    quotable(a.join(" "), b.join(" "), MAX_SIGNATURE_SIDE, &[])
}

/// `line` without a comment at its end (`httpx = "~0.27.2"  # pinned: …` → `httpx =
/// "~0.27.2"`): the comment says why, the code before it is what changed. A `#` or `//` counts
/// when it follows a space outside quotes and a space follows it (not `#fff`, not `http://`),
/// and a `//` only when it is no floor division (see `opens_comment`).
fn without_trailing_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, '"' | '\'' | '`') => quote = Some(c),
            None if i > 0 && prev.is_whitespace() => {
                let (code, rest) = line.split_at(i);
                let code = code.trim_end();
                if rest.starts_with("# ") || rest.starts_with("// ") && opens_comment(code, rest) {
                    return code;
                }
            }
            None => {}
        }
        prev = c;
    }
    line
}

/// Whether the ` // ` between `code` and `rest` opens a comment rather than being Python's floor
/// division (`half = n // 2`, whose `2` is the change): it does after a statement's end (`;`,
/// a brace, a comma) or a string (nothing divides one), or when prose follows (two words in a
/// row: `// raised for slow CI`).
fn opens_comment(code: &str, rest: &str) -> bool {
    let word = |w: &str| w.chars().all(char::is_alphabetic);
    let mut after_word = false;
    code.ends_with([';', '{', '}', ',', '"', '\'', '`'])
        || rest[2..].split_whitespace().any(|w| {
            let two = after_word && word(w);
            after_word = word(w);
            two
        })
}

/// A whole-line comment: its wording says why, not what changed, so an edit that also
/// rewords the comment above a constant still has one before → after.
/// Whether a trimmed line is a comment (or a docstring's quotes): what a change says, not
/// what it changes.
pub(crate) fn is_comment(line: &str) -> bool {
    [
        "//", "/*", "*/", "-- ", "<!--", ";;", "\"\"\"", "'''", "* ", "# ",
    ]
    .iter()
    .any(|p| line.starts_with(p))
        || matches!(line, "*" | "#" | "--")
}

/// Words that open a function definition, before its name (`pub async fn`, `func (s *Store)`,
/// `export function`, `def`, `fun`); Java and C# methods open with a modifier instead.
const DEFINES: &[&str] = &["fn", "func", "def", "fun", "function"];
const MODIFIERS: &[&str] = &["public", "private", "protected", "internal", "static"];

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The name a line defines as a function, when it is a definition's first line.
fn defined_name(line: &str) -> Option<&str> {
    let open = line.find('(')?;
    let first = line.split(|c| !is_word_char(c)).find(|w| !w.is_empty())?;
    let head = line[..open].trim_end();
    let keyword = head
        .split(|c| !is_word_char(c))
        .any(|w| DEFINES.contains(&w));
    if !keyword && !MODIFIERS.contains(&first) {
        return None;
    }
    let start = head.rfind(|c| !is_word_char(c)).map_or(0, |i| i + 1);
    let name = &head[start..];
    (!name.is_empty() && !DEFINES.contains(&name)).then_some(name)
}

/// Longest side of a signature change worth quoting (a parameter list is longer than a literal).
const MAX_SIGNATURE_SIDE: usize = 45;

/// The change an edit made to a function's signature line: a parameter or return type
/// replaced (`status: string` → `status: OrderStatus`, `Invoice?` → `Result<Invoice>`), or a
/// parameter added or removed (the whole parameter lists, `(id int64)` →
/// `(ctx context.Context, id int64)`). The body's changes do not count against it: the
/// signature is what callers see.
fn signature_change(a: &[String], b: &[String]) -> Option<(String, String)> {
    let (x, y) = a.iter().find_map(|x| {
        let name = signature_name(x)?;
        b.iter()
            .find(|y| *y != x && signature_name(y) == Some(name))
            .map(|y| (x.as_str(), y.as_str()))
    })?;
    let (ta, tb) = (tokens(x), tokens(y));
    let (prefix, suffix) = common_ends(&ta, &tb, |p, q| p.text == q.text);
    let (a1, b1) = (ta.len() - suffix, tb.len() - suffix);
    let open = param_open(&ta)?;
    let in_params = prefix > open && param_close(&ta, open).is_some_and(|c| a1 <= c + 1);
    let inserted = prefix >= a1 || prefix >= b1;
    let (o, n) = if in_params {
        // The parameter that changed, or the whole list when one was added or removed.
        (
            params_span(x, &ta, prefix, a1, inserted)?,
            params_span(y, &tb, prefix, b1, inserted)?,
        )
    } else if inserted {
        return None;
    } else {
        (
            x[ta[prefix].start..ta[a1 - 1].end].to_string(),
            y[tb[prefix].start..tb[b1 - 1].end].to_string(),
        )
    };
    quotable(o, n, MAX_SIGNATURE_SIDE, &[])
}

/// The function a signature line defines, skipping a Go receiver (`func (s *Store) Get(`).
fn signature_name(line: &str) -> Option<&str> {
    match line.strip_prefix("func (") {
        Some(rest) => {
            let after = &rest[rest.find(')')? + 1..];
            defined_name(&format!("func {}", after.trim_start()))
                .and_then(|n| after.find(n).map(|i| &after[i..i + n.len()]))
        }
        None => defined_name(line),
    }
}

/// The token index of the parameter list's `(` (after a Go receiver's).
fn param_open(t: &[Token]) -> Option<usize> {
    let first = t.iter().position(|k| k.text == "(")?;
    if t.first().is_some_and(|k| k.text == "func") && first == 1 {
        let close = param_close(t, first)?;
        return t[close..]
            .iter()
            .position(|k| k.text == "(")
            .map(|i| close + i);
    }
    Some(first)
}

/// The token index of the `)` that closes the `(` at `open`.
fn param_close(t: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, k) in t.iter().enumerate().skip(open) {
        match k.text {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// In a signature line's tokens, the text of the parameter holding tokens `from..to` (between
/// the commas or parentheses around it), or with `whole` the parameter list with its
/// parentheses.
fn params_span(line: &str, t: &[Token], from: usize, to: usize, whole: bool) -> Option<String> {
    let open = param_open(t)?;
    let close = param_close(t, open)?;
    if whole {
        return Some(line[t[open].start..t[close].end].to_string());
    }
    let mut depth = 0;
    let mut commas = Vec::new();
    for (i, k) in t.iter().enumerate().take(close).skip(open + 1) {
        match k.text {
            "(" | "[" | "{" | "<" => depth += 1,
            ")" | "]" | "}" | ">" => depth -= 1,
            "," if depth == 0 => commas.push(i),
            _ => {}
        }
    }
    let start = commas
        .iter()
        .rev()
        .find(|&&c| c < from)
        .map_or(open, |&c| c)
        + 1;
    let end = commas.iter().find(|&&c| c >= to).map_or(close, |&c| c);
    (start < end).then(|| line[t[start].start..t[end - 1].end].to_string())
}

/// `old → new` for a title: plain when both sides are one word or number, else each side in
/// a code span (an operator or a quoted string reads better fenced).
pub(crate) fn arrow(old: &str, new: &str) -> String {
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
            super::draft::code(old, MAX_SIGNATURE_SIDE),
            super::draft::code(new, MAX_SIGNATURE_SIDE)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(old: &str, new: &str) -> Option<(String, String)> {
        changed(old, new)
    }

    #[test]
    fn a_change_inside_parentheses_keeps_them_whole_and_a_duration_its_unit() {
        let p = |a: &str, b: &str| pair(a, b).map(|(x, y)| format!("{x} | {y}"));
        assert_eq!(
            p(
                "    .entryTtl(Duration.ofHours(1))",
                "    .entryTtl(Duration.ofMinutes(5))"
            )
            .as_deref(),
            Some("Duration.ofHours(1) | Duration.ofMinutes(5)")
        );
        assert_eq!(
            p(
                "const defaultTimeout = 2 * time.Second",
                "const defaultTimeout = 5 * time.Second"
            )
            .as_deref(),
            Some("2 * time.Second | 5 * time.Second")
        );
        // A number alone stays alone.
        assert_eq!(
            p("retries = 3 * factor", "retries = 5 * factor").as_deref(),
            Some("3 | 5")
        );
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
        assert_eq!(
            pair("if n > limit {", "if n >= limit {"),
            p("n > limit", "n >= limit")
        );
        assert_eq!(pair("x = a > (b)", "x = a >= (b)"), p(">", ">="));
        assert_eq!(
            pair(
                "password: z.string().min(8, \"at least 8 characters\"),",
                "password: z.string().min(12, \"at least 12 characters\"),"
            ),
            p(
                "8, \"at least 8 characters\"",
                "12, \"at least 12 characters\""
            ),
            "a number inside a string is part of the string token"
        );
        assert_eq!(
            pair("retry(3, 3)", "retry(5, 5)"),
            p("3", "5"),
            "the same replacement twice is one change"
        );
        assert_eq!(
            pair("self.used > self.max {", "self.used >= self.max {"),
            p(">", ">="),
            "a qualified operand keeps the operator alone"
        );
        assert_eq!(
            pair(
                "u, err := h.store.GetUser(id)",
                "u, err := h.store.GetUser(r.Context(), id)"
            ),
            p("GetUser(id)", "GetUser(r.Context(), id)")
        );
        assert_eq!(pair("f(a, b)", "f(a, b, c)"), p("f(a, b)", "f(a, b, c)"));
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
    fn a_token_replaced_in_code_and_in_its_message_is_one_change() {
        assert_eq!(
            pair(
                r#"  password: z.string().min(8, "Password must be at least 8 characters"),"#,
                r#"  password: z.string().min(12, "Password must be at least 12 characters"),"#
            ),
            p("8", "12")
        );
        // A message reworded beyond the number is another change.
        assert_ne!(
            pair(
                r#"  min(8, "at least 8 characters"),"#,
                r#"  min(12, "needs 12 characters or more"),"#
            ),
            p("8", "12")
        );
        assert_eq!(replaced_words("18 or 8 (8)", "8", "12"), "18 or 12 (12)");
        assert_eq!(replaced_words("88 8", "8", "12"), "88 12");
        // Nothing to name beside a redacted secret.
        assert_eq!(
            pair(
                r#"connect(8, "[REDACTED:password]", "at least 8 characters of a very long message here")"#,
                r#"connect(12, "[REDACTED:password]", "at least 12 characters of a very long message here")"#
            ),
            None
        );
        assert_eq!(
            replaced_words("0.8 or 8.5 or 8.", "8", "12"),
            "0.8 or 8.5 or 12."
        );
    }

    #[test]
    fn a_changed_list_keeps_its_brackets() {
        assert_eq!(
            pair("node-version: [16, 18]", "node-version: [18, 20, 22]"),
            p("[16, 18]", "[18, 20, 22]")
        );
        // One item changed is the item.
        assert_eq!(pair("xs = [1, 2]", "xs = [1, 3]"), p("2", "3"));
    }

    #[test]
    fn a_number_keeps_the_word_that_says_what_it_counts() {
        assert_eq!(
            pair(
                "rows between 7 preceding and current row",
                "rows between 6 preceding and current row"
            ),
            p("7 preceding", "6 preceding")
        );
        assert_eq!(
            pair("retain 30 days", "retain 90 days"),
            p("30 days", "90 days")
        );
        assert_eq!(pair("x = 30 if y", "x = 300 if y"), p("30", "300"));
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
        assert_eq!(pair("a b", "a x b"), None);
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
        /// Any two texts: no panic, and an arrow's sides are short and come from the texts, word
        /// by word (lines are joined, comment lines and trailing comments left out: `a`, `'''`,
        /// `-` on three lines gives `a -`).
        #[test]
        fn any_edit_gives_a_short_arrow_or_none(
            old in "(?s)[a-z0-9_ .:\"'`<>=!(){};\n\u{e9}\u{4e2d}#/\\\\-]{0,80}",
            new in "(?s)[a-z0-9_ .:\"'`<>=!(){};\n\u{e9}\u{4e2d}#/\\\\-]{0,80}",
        ) {
            if let Some((o, n)) = changed(&old, &new) {
                proptest::prop_assert!(o.chars().count() <= MAX_SIGNATURE_SIDE && n.chars().count() <= MAX_SIGNATURE_SIDE);
                let from = |side: &str, text: &str| side.split_whitespace().all(|w| text.contains(w));
                proptest::prop_assert!(from(&o, &old) && from(&n, &new), "{o:?} {n:?}");
                proptest::prop_assert!(o != n);
            }
        }
    }

    #[test]
    fn a_line_replaced_by_two_shows_both_sides() {
        assert_eq!(
            pair(
                ".c {\n  font: mono;\n  white-space: nowrap;\n}",
                ".c {\n  font: mono;\n  overflow-wrap: anywhere;\n  min-width: 0;\n}"
            ),
            p(
                "white-space: nowrap;",
                "overflow-wrap: anywhere; min-width: 0;"
            )
        );
        assert_eq!(
            pair("a();\nb();", &format!("{};", "c".repeat(50))),
            None,
            "too long to quote"
        );
        assert_eq!(
            pair("a\nb\nc", "x"),
            None,
            "three lines are no small change"
        );
    }

    #[test]
    fn a_comment_at_the_end_of_a_line_is_not_the_change() {
        assert_eq!(
            pair(
                "httpx = \"^0.28.0\"",
                "httpx = \"~0.27.2\"  # 0.28 removed proxies=, unpin later"
            ),
            p("\"^0.28.0\"", "\"~0.27.2\"")
        );
        assert_eq!(without_trailing_comment("color: #fff;"), "color: #fff;");
        assert_eq!(
            without_trailing_comment("half = n // 2"),
            "half = n // 2",
            "Python's floor division is no comment"
        );
        assert_eq!(
            pair("a = 1\nhalf = n // 2", "a = 2\nhalf = n // 4"),
            None,
            "two different changes, the second not hidden as a comment"
        );
        assert_eq!(
            without_trailing_comment("limit = total // size + 1  # pages"),
            "limit = total // size + 1"
        );
        assert_eq!(
            without_trailing_comment("timeout: 300, // TODO"),
            "timeout: 300,"
        );
        assert_eq!(
            without_trailing_comment("let t = 300 // raised for slow CI"),
            "let t = 300"
        );
        assert_eq!(
            without_trailing_comment(r#"dir = "C:\\" # Windows"#),
            r#"dir = "C:\\""#,
            "an escaped backslash does not escape the closing quote"
        );
        assert_eq!(
            without_trailing_comment(r#"s = "say \" # hi" # why"#),
            r#"s = "say \" # hi""#,
            "an escaped quote does not close the string"
        );
        assert_eq!(
            without_trailing_comment("url = \"http://x # y\" // z"),
            "url = \"http://x # y\""
        );
    }

    #[test]
    fn a_reworded_comment_does_not_hide_the_change() {
        assert_eq!(
            pair(
                "# Two weeks, Django's default.\nSESSION_COOKIE_AGE = 1209600",
                "# Eight hours (security review).\nSESSION_COOKIE_AGE = 28800"
            ),
            p("1209600", "28800")
        );
        assert_eq!(
            pair(
                "// old\nconst N: u32 = 3;",
                "// new words\nconst N: u32 = 8;"
            ),
            p("3", "8")
        );
        assert_eq!(
            pair("* Timeout: 30 s", "* Timeout: 300 s"),
            p("30", "300"),
            "a Markdown list item is no comment when nothing else changed"
        );
    }

    #[test]
    fn a_signature_change_is_shown_whatever_the_body_did() {
        assert_eq!(
            pair(
                "func (s *Store) GetUser(id int64) (*User, error) {\n\trow := s.db.QueryRow(q, id)",
                "func (s *Store) GetUser(ctx context.Context, id int64) (*User, error) {\n\trow := s.db.QueryRowContext(ctx, q, id)"
            ),
            p("(id int64)", "(ctx context.Context, id int64)")
        );
        assert_eq!(
            pair(
                "fun findInvoice(id: String): Invoice? =\n    try {\n        repo.byId(id)",
                "fun findInvoice(id: String): Result<Invoice> =\n    try {\n        repo.byId(id)?.let { ok(it) }\n            ?: fail(id)"
            ),
            p("Invoice?", "Result<Invoice>")
        );
        assert_eq!(
            pair(
                "import { a, OrderFilter } from \"x\";\nexport function useOrders(status: string) {",
                "import { a, OrderStatus } from \"x\";\nexport function useOrders(status: OrderStatus) {"
            ),
            p("status: string", "status: OrderStatus")
        );
        assert_eq!(
            pair(
                "pub fn open(path: &Path, mode: u32) -> File {\n    a()\n    b()",
                "pub fn open(path: &Path, mode: Mode) -> File {\n    c()"
            ),
            p("mode: u32", "mode: Mode")
        );
        assert_eq!(
            pair("let x = f(a);\nlet y = 2;", "let x = f(a, b);\nlet y = 3;"),
            None,
            "a call is no signature"
        );
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
