//! Plain string helpers every layer may use: one-row text, cuts by bytes or UTF-16 units,
//! counted nouns and visible control characters.
//! Core, not view: the observer and the code outliner cut strings too.

/// The count and its noun: "1 line" / "3 lines".
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", noun(n, one, many))
}

/// The word for `n` things: `one` for 1, `many` otherwise (when the number is written apart).
pub(crate) fn noun<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// Collapses whitespace runs (newlines included) into single spaces and drops control
/// characters: for text that must stay on one row. Inside a Markdown code span (a quoted
/// command) every space is kept and a control character becomes one space, so the quote stays
/// the command that ran.
pub fn one_line(text: &str) -> String {
    if !text.contains('`') {
        return collapse(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut i = 0;
    while let Some(k) = text[i..].find('`') {
        let start = i + k;
        match code_span_len(&text[start..]) {
            Some(len) => {
                let before = &text[at..start];
                let spaced = |c: char| c.is_whitespace() || c.is_control();
                let body = before.trim_matches(spaced);
                let lead = &before[..before.len() - before.trim_start_matches(spaced).len()];
                if !lead.is_empty()
                    && spaces_apart(
                        out.chars().next_back(),
                        lead,
                        body.chars().next().or(Some('`')),
                    )
                {
                    out.push(' ');
                }
                out.push_str(&collapse(body));
                let trail = &before[before.trim_end_matches(spaced).len()..];
                if !body.is_empty()
                    && !trail.is_empty()
                    && spaces_apart(out.chars().next_back(), trail, Some('`'))
                {
                    out.push(' ');
                }
                out.extend(
                    text[start..start + len]
                        .chars()
                        .map(|c| if c.is_control() { ' ' } else { c }),
                );
                at = start + len;
                i = at;
            }
            None => i = start + text[start..].len() - text[start..].trim_start_matches('`').len(),
        }
    }
    let rest = &text[at..];
    let body = rest.trim_start_matches(|c: char| c.is_whitespace() || c.is_control());
    if body.len() < rest.len()
        && spaces_apart(
            out.chars().next_back(),
            &rest[..rest.len() - body.len()],
            body.chars().next(),
        )
    {
        out.push(' ');
    }
    out.push_str(&collapse(body));
    out.trim_end().to_string()
}

/// The length in bytes of the code span `text` opens (a run of backticks up to the next run of
/// the same length, CommonMark), or `None` when `text` opens none.
pub(crate) fn code_span_len(text: &str) -> Option<usize> {
    let run = text.len() - text.trim_start_matches('`').len();
    if run == 0 {
        return None;
    }
    let ticks = &text[..run];
    let mut at = run;
    while let Some(k) = text[at..].find(ticks) {
        let start = at + k;
        let len = text[start..].len() - text[start..].trim_start_matches('`').len();
        if len == run {
            return Some(start + run);
        }
        at = start + len;
    }
    None
}

fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    let mut line_break = false;
    for c in text.chars() {
        if c.is_whitespace() || c.is_control() {
            space = !out.is_empty();
            line_break |= is_line_break(c);
        } else {
            if space
                && spaces_apart(
                    out.chars().next_back(),
                    if line_break { "\n" } else { " " },
                    Some(c),
                )
            {
                out.push(' ');
            }
            space = false;
            line_break = false;
            out.push(c);
        }
    }
    out
}

/// Whether the whitespace `gap` between `last` and `next` stays one space on one row. Chinese
/// and Japanese text joins its lines without one: after a full-width mark (`理由：` and a new
/// line) or between two characters of a wrapped sentence. A space written inline stays.
fn spaces_apart(last: Option<char>, gap: &str, next: Option<char>) -> bool {
    let Some(last) = last else { return false };
    !(gap.chars().any(is_line_break)
        && (full_width_mark(last) || (joins_lines(last) && next.is_some_and(joins_lines))))
}

/// Han and kana: Chinese and Japanese put no space between words, so a wrapped line joins its
/// next without one. Korean (Hangul) spaces its words and is left out.
pub(crate) fn joins_lines(c: char) -> bool {
    is_cjk(c) && !matches!(c as u32, 0x3131..=0x318F | 0xA960..=0xA97F | 0xAC00..=0xD7AF)
}

fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// A punctuation mark of Chinese or Japanese text (`。`, `：`, `）`, `」`), which takes its own
/// space.
fn full_width_mark(c: char) -> bool {
    matches!(c as u32, 0x3000..=0x303F | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65)
}

/// `text` without terminal escape sequences: colours and cursor moves (`ESC [ … m`, CSI),
/// titles and links (`ESC ] … BEL`, OSC) and the short escapes (`ESC (B`, `ESC =`). A command's coloured
/// output keeps its words (`\x1b[32mok\x1b[0m` → `ok`), where replacing ESC alone left
/// `[32mok [0m` in a title.
pub(crate) fn without_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates, then one final byte in @..~.
            Some('[') => {
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            // OSC: up to BEL or ESC \.
            Some(']') => {
                while let Some(d) = chars.next() {
                    if d == '\u{7}' {
                        break;
                    }
                    if d == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            // Any other escape (`ESC (B`, `ESC =`): intermediate bytes, then one final one.
            Some(d) if (' '..='/').contains(&d) => {
                for f in chars.by_ref() {
                    if ('0'..='~').contains(&f) {
                        break;
                    }
                }
            }
            Some(_) | None => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Makes control characters visible (`\x1b`, `\0`, …) so a raw ESC or NUL never reaches a
/// terminal or an agent; tabs and newlines stay.
pub(crate) fn escape_controls(text: &str) -> String {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\0' => out.push_str("\\0"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Cuts `text` to at most `max` bytes at a character boundary; says whether it cut.
pub(crate) fn cut_bytes(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// Cuts `text` to at most `max` UTF-16 units, ending with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    if crate::model::utf16_len(text) <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        if used + c.len_utf16() + 1 > max {
            break;
        }
        used += c.len_utf16();
        out.push(c);
    }
    out.push('…');
    out
}

/// How many items `a` and `b` share at their start and, after that, at their end (never
/// overlapping): what is left between is what changed.
pub(crate) fn common_ends<T>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> (usize, usize) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| same(x, y)).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| same(x, y))
        .count();
    (prefix, suffix)
}

/// The text of a tool result as agents send it: a string, a list of content blocks
/// (`[{"type": "text", "text": …}]`), or `{content: …}` holding either; `None` when blank.
pub(crate) fn content_text(v: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let blocks = match v {
        Value::String(s) => return Some(s.clone()).filter(|s| !s.trim().is_empty()),
        Value::Array(a) => a,
        Value::Object(o) => match o.get("content") {
            Some(Value::Array(a)) => a,
            Some(Value::String(s)) => return Some(s.clone()),
            _ => return None,
        },
        _ => return None,
    };
    let text: Vec<&str> = blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    Some(text.join("\n")).filter(|t| !t.trim().is_empty())
}

/// How many times `needle` stands in `text` as a whole token (not inside a longer name).
pub(crate) fn whole_occurrences(text: &str, needle: &str) -> usize {
    if needle.is_empty() {
        return 0;
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let (starts, ends) = (
        word(needle.chars().next()),
        word(needle.chars().next_back()),
    );
    text.match_indices(needle)
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after = text[at + needle.len()..].chars().next();
            !((starts && word(before)) || (ends && word(after)))
        })
        .count()
}

/// Whether `c` belongs to the scripts search reads by characters rather than by spaced words:
/// Han ideographs (with their extensions and compatibility forms), kana, Hangul, bopomofo, CJK
/// radicals (Korean spaces its words, but a Korean word's syllables are found inside it too).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2FDF      // CJK and Kangxi radicals
        | 0x3040..=0x30FF    // hiragana, katakana
        | 0x3100..=0x312F    // bopomofo
        | 0x3131..=0x318F    // Hangul compatibility jamo
        | 0x31A0..=0x31BF    // bopomofo extended
        | 0x31F0..=0x31FF    // katakana phonetic extensions
        | 0x3400..=0x4DBF    // Han extension A
        | 0x4E00..=0x9FFF    // Han
        | 0xA960..=0xA97F    // Hangul jamo extended A
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // Han compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width katakana
        | 0x20000..=0x3134F  // Han extensions B to G, compatibility supplement
    )
}

/// How many terminal columns `text` takes: a CJK character or an emoji takes two.
pub(crate) fn columns(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` within `max` columns, cut at a space or between characters of an unspaced script
/// (never inside a Latin word), ending with `…`: for index rows of any source.
pub fn clip_columns(text: &str, max: usize) -> String {
    if columns(text) <= max {
        return text.to_string();
    }
    let mut used = 0;
    let mut cut: Option<usize> = None;
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        // A cut before `c` keeps `used` columns and adds `…` (after a space unless the head
        // ends in a CJK character).
        let ellipsis = if prev.is_some_and(is_cjk) { 1 } else { 2 };
        if (c.is_whitespace() || prev.is_some_and(|p| is_cjk(p) || is_cjk(c)))
            && used + ellipsis <= max
        {
            cut = Some(i);
        }
        used += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used > max {
            break;
        }
        prev = Some(c);
    }
    match cut.map(|i| text[..i].trim_end()).filter(|h| !h.is_empty()) {
        Some(head) if head.chars().next_back().is_some_and(is_cjk) => format!("{head}\u{2026}"),
        Some(head) => format!("{head} \u{2026}"),
        None => clip(text, max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn terminal_escapes_go_and_their_words_stay() {
        assert_eq!(
            without_ansi("a \x1b[32mAKIA\x1b[0m b \x1b[2J\x1b[Hc"),
            "a AKIA b c"
        );
        assert_eq!(without_ansi("\x1b]0;title\x07x\x1b]8;;u\x1b\\y"), "xy");
        assert_eq!(without_ansi("\x1b(Bz \x1b=w\x1b"), "z w");
        assert!(matches!(
            without_ansi("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn counts_say_one_thing_and_many_things() {
        assert_eq!(plural(1, "line", "lines"), "1 line");
        assert_eq!(plural(0, "line", "lines"), "0 lines");
        assert_eq!(noun(1, "summary", "summaries"), "summary");
        assert_eq!(noun(2, "summary", "summaries"), "summaries");
    }

    #[test]
    fn one_line_and_clip() {
        assert_eq!(one_line("  a\n\tb \u{0}c  "), "a b c");
        assert_eq!(
            one_line("ran  `grep -q '    300'\tf`\n  then ``a ` b`` `open"),
            "ran `grep -q '    300' f` then ``a ` b`` `open"
        );
        // Chinese lines join without a space; a space written inline stays.
        assert_eq!(
            one_line("建议保留 Redis 锁。理由：\n现在用的是\n Redisson 的锁，\n不会\n丢"),
            "建议保留 Redis 锁。理由：现在用的是 Redisson 的锁，不会丢"
        );
        assert_eq!(one_line("理由： 现在"), "理由： 现在");
        // Korean spaces its words.
        assert_eq!(one_line("이것은\n테스트입니다"), "이것은 테스트입니다");
        // Han outside the basic plane (Extension B) joins as Han does; an emoji is no word of it.
        assert_eq!(one_line("𠮷野\n家の店"), "𠮷野家の店");
        assert_eq!(one_line("完成\n😀 好"), "完成 😀 好");
        assert_eq!(one_line("ok.\nNext"), "ok. Next");
        assert_eq!(
            one_line("页面层；\n`vue-quill-editor` 没有；\n 还有 `a`\n\n说明。\n `b`"),
            "页面层；`vue-quill-editor` 没有；还有 `a` 说明。`b`"
        );
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("ab", 4), "ab");
        assert_eq!(crate::model::utf16_len(&clip("😀😀😀", 4)), 3);
    }

    #[test]
    fn rows_are_cut_by_columns_between_characters_never_inside_a_latin_word() {
        // Han (BMP and Extension B, outside the BMP) takes two columns, an emoji two.
        assert_eq!(columns("连接池"), 6);
        assert_eq!(columns("𠮷野家"), 6);
        assert_eq!(columns("🙂"), 2);
        let row = clip_columns(&"𠮷野家的接口经常502超时".repeat(10), 21);
        assert!(columns(&row) <= 21, "{row}");
        assert!(row.ends_with('\u{2026}'), "{row}");
        // Cut between characters: every character of the row is whole.
        assert!(
            "𠮷野家的接口经常502超时"
                .repeat(10)
                .starts_with(row.trim_end_matches(['\u{2026}', ' ']))
        );
        let latin = clip_columns("pgvector做向量搜索 and then a very long tail of words", 12);
        assert_eq!(latin, "pgvector做\u{2026}");
        assert_eq!(clip_columns("short 🙂", 20), "short 🙂");
    }
}
