//! The neutral document every face renders: blocks of lines of spans with semantic roles.
//!
//! `to_plain` is the one place where a `Doc` becomes the bytes an agent sees (hooks, MCP, CLI);
//! the TUI maps the same roles to theme styles. Markdown markers that belong to the agent's
//! text (`### ` headings, `**bold**`) are added by the plain renderer, so the TUI can show the
//! same document styled instead of with asterisks.

use crate::model::ObsType;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Text,
    /// A heading of the given markdown level.
    Heading(u8),
    /// Emphasised text (`**…**` in plain text).
    Strong,
    Id,
    Time,
    /// An observation type's symbol; `None` for the session marker or an unknown type.
    TypeSymbol(Option<ObsType>),
    Title,
    Label,
    Muted,
    Number,
    Warning,
    Code,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub text: String,
    pub role: Role,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Line {
    pub spans: Vec<Span>,
}

impl Line {
    pub fn new() -> Line {
        Line::default()
    }

    pub fn blank() -> Line {
        Line::default()
    }

    pub fn text(text: impl Into<String>) -> Line {
        Line::new().push(text, Role::Text)
    }

    pub fn push(mut self, text: impl Into<String>, role: Role) -> Line {
        self.spans.push(Span {
            text: text.into(),
            role,
        });
        self
    }

    pub fn plain(&self) -> String {
        let mut out = String::new();
        self.write_plain(&mut out);
        out
    }

    fn write_plain(&self, out: &mut String) {
        // A markdown heading is a whole line: its `#`s open the line even when the heading
        // span follows others (an id, a type symbol), never in the middle of it.
        let heading = self.spans.iter().find_map(|s| match s.role {
            Role::Heading(level) => Some(level),
            _ => None,
        });
        if let Some(level) = heading {
            out.extend(std::iter::repeat_n('#', level as usize));
            out.push(' ');
        }
        for span in &self.spans {
            match span.role {
                Role::Heading(_) => out.push_str(&span.text),
                Role::Strong => {
                    out.push_str("**");
                    out.push_str(&span.text);
                    out.push_str("**");
                }
                _ => out.push_str(&span.text),
            }
        }
    }
}

/// What a block stands for, so the budget and the TUI know what they are looking at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    Header,
    WorkState,
    DayHeading,
    Observation(i64),
    FullObservation(i64),
    Summary(i64),
    Prompt(i64),
    ToolUse(i64),
    /// A block of source text (file contents, a diff) the TUI may syntax-highlight.
    Code,
    LastSummary(i64),
    Footer,
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub kind: BlockKind,
    pub lines: Vec<Line>,
    /// For `BlockKind::Code`: the file name or extension that tells the language (`x.rs`, `diff`).
    pub lang_hint: Option<String>,
}

impl Block {
    pub fn new(kind: BlockKind) -> Block {
        Block {
            kind,
            lines: Vec::new(),
            lang_hint: None,
        }
    }

    pub fn line(mut self, line: Line) -> Block {
        self.lines.push(line);
        self
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Doc {
    pub blocks: Vec<Block>,
}

impl Doc {
    pub fn push(&mut self, block: Block) {
        self.blocks.push(block);
    }

    pub fn extend(&mut self, other: Doc) {
        self.blocks.extend(other.blocks);
    }

    /// The agent's text: lines joined with `\n`, trailing whitespace trimmed at the end, and
    /// every character in the Basic Multilingual Plane.
    pub fn to_plain(&self) -> String {
        // One buffer for the whole text: an outline of a big file has thousands of lines.
        let mut out = String::new();
        for (i, line) in self.blocks.iter().flat_map(|b| b.lines.iter()).enumerate() {
            if i > 0 {
                out.push('\n');
            }
            line.write_plain(&mut out);
        }
        out.truncate(out.trim_end().len());
        bmp_safe(out)
    }
}

/// Keeps text inside the Basic Multilingual Plane: a host that cuts a string in the middle of a
/// UTF-16 surrogate pair produces an invalid request (reference §3, #2787). Known emoji get
/// their BMP look-alikes, other astral characters become `•`.
pub fn bmp_safe(text: impl Into<String>) -> String {
    let text = text.into();
    if text.chars().all(|c| (c as u32) < 0x10000) {
        return text;
    }
    text.chars()
        .map(|c| {
            if (c as u32) < 0x10000 {
                return c;
            }
            match c {
                '🎯' => '◎',
                '💬' => '”',
                '🧠' => '◈',
                '🛠' => '⚒',
                '🔍' => '⌕',
                '🔴' => '●',
                '🟣' => '◆',
                '🔄' => '↻',
                '🔵' => '○',
                '🚨' => '⚠',
                '🔐' => '⚷',
                '🤫' => '⊘',
                '📝' => '✎',
                '📁' => '▸',
                '📄' => '▹',
                '📦' => '▪',
                '📍' => '⌖',
                _ => '•',
            }
        })
        .collect()
}

/// Collapses whitespace runs (newlines included) into single spaces and drops control
/// "1 line" / "3 lines".
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", noun(n, one, many))
}

/// The word for `n` things: `one` for 1, `many` otherwise (when the number is written apart).
pub fn noun<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// characters: for text that must stay on one row.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() || c.is_control() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

/// Makes control characters visible (`\x1b`, `\0`, …) so a raw ESC or NUL never reaches a
/// terminal or an agent; tabs and newlines stay.
pub fn escape_controls(text: &str) -> String {
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
pub fn cut_bytes(text: &str, max: usize) -> (&str, bool) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_say_one_thing_and_many_things() {
        assert_eq!(plural(1, "line", "lines"), "1 line");
        assert_eq!(plural(0, "line", "lines"), "0 lines");
        assert_eq!(noun(1, "summary", "summaries"), "summary");
        assert_eq!(noun(2, "summary", "summaries"), "summaries");
    }

    #[test]
    fn plain_rendering_adds_markdown_markers() {
        let mut d = Doc::default();
        d.push(
            Block::new(BlockKind::Other).line(Line::new().push("Oct 10, 2026", Role::Heading(3))),
        );
        d.push(
            Block::new(BlockKind::Other)
                .line(
                    Line::new()
                        .push("514", Role::Strong)
                        .push(" 3:05p ", Role::Time),
                )
                .line(Line::blank()),
        );
        assert_eq!(d.to_plain(), "### Oct 10, 2026\n**514** 3:05p");
    }

    #[test]
    fn a_heading_after_other_spans_still_opens_its_line() {
        let line = Line::new()
            .push("#12", Role::Id)
            .push(" ", Role::Text)
            .push("Read pool.rs", Role::Heading(2));
        assert_eq!(line.plain(), "## #12 Read pool.rs");
    }

    #[test]
    fn bmp_and_one_line_and_clip() {
        assert_eq!(bmp_safe("🎯 a 🦀"), "◎ a •");
        assert_eq!(one_line("  a\n\tb \u{0}c  "), "a b c");
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("ab", 4), "ab");
        assert_eq!(crate::model::utf16_len(&clip("😀😀😀", 4)), 3);
    }
}
