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
    pub(crate) fn new() -> Line {
        Line::default()
    }

    pub(crate) fn blank() -> Line {
        Line::default()
    }

    pub(crate) fn text(text: impl Into<String>) -> Line {
        Line::new().push(text, Role::Text)
    }

    pub(crate) fn push(mut self, text: impl Into<String>, role: Role) -> Line {
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
    pub(crate) fn new(kind: BlockKind) -> Block {
        Block {
            kind,
            lines: Vec::new(),
            lang_hint: None,
        }
    }

    pub(crate) fn line(mut self, line: Line) -> Block {
        self.lines.push(line);
        self
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Doc {
    pub blocks: Vec<Block>,
}

impl Doc {
    pub(crate) fn push(&mut self, block: Block) {
        self.blocks.push(block);
    }

    pub(crate) fn extend(&mut self, other: Doc) {
        self.blocks.extend(other.blocks);
    }

    /// The agent's text: lines joined with `\n`, trailing whitespace trimmed at the end. What
    /// was stored comes out as stored, characters beyond the Basic Multilingual Plane included
    /// (`𠮷`, emoji): they are valid JSON, and the budget counts each as the two UTF-16 units
    /// the host counts.
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
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
