//! Code views: a file's outline, an unfolded symbol, a missing symbol, and symbol search
//! (layouts: reference §6.4, with BMP glyphs instead of its emoji).

use super::doc::{Block, BlockKind, Doc, Line, Role, clip};
use crate::code::Lang;
use crate::code::outline::{Outline, Unfold, Unfolded};
use crate::code::search::SearchResult;
use crate::code::symbols::Symbol;

/// 📁 → a file header.
pub const FILE_GLYPH: char = '▸';
/// 📄 → a document header (markdown).
pub const DOC_GLYPH: char = '▹';
/// 📦 → the imports line.
pub const IMPORTS_GLYPH: char = '▪';
/// 💬 → a doc comment's first line.
pub const DOC_LINE_GLYPH: char = '”';
/// 📍 → where an unfolded symbol comes from.
pub const PIN_GLYPH: char = '⌖';
/// 🔍 → a search header.
pub const SEARCH_GLYPH: char = '⌕';

const MAX_IMPORT_LINES: usize = 10;
/// Markdown headings are padded to this column before their line number.
const HEADING_COLUMN: usize = 56;

fn range(start: usize, end: usize) -> String {
    if end > start {
        format!("L{start}-{end}")
    } else {
        format!("L{start}")
    }
}

/// `▸ src/lib.rs (rust, 187 lines)` (`▹` for documents).
fn file_line(o: &Outline) -> Line {
    let glyph = if o.lang == Lang::Markdown {
        DOC_GLYPH
    } else {
        FILE_GLYPH
    };
    Line::new()
        .push(format!("{glyph} "), Role::Muted)
        .push(&o.path, Role::Title)
        .push(
            format!(" ({}, {} lines)", o.lang.name(), o.line_count),
            Role::Muted,
        )
}

/// `▸ src/lib.rs (rust, 187 lines)`, then the imports and every symbol with its signature and
/// first doc line, children indented two more.
pub fn outline(o: &Outline) -> Doc {
    if o.lang == Lang::Markdown {
        return markdown_outline(o);
    }
    let mut doc = Doc::default();
    doc.push(
        Block::new(BlockKind::Header)
            .line(file_line(o))
            .line(Line::blank()),
    );
    let imports = &o.file.imports;
    if !imports.is_empty() {
        let mut block = Block::new(BlockKind::Other).line(
            Line::new()
                .push(format!("  {IMPORTS_GLYPH} "), Role::Muted)
                .push("Imports: ", Role::Label)
                .push(
                    format!(
                        "{} statement{}",
                        imports.len(),
                        if imports.len() == 1 { "" } else { "s" }
                    ),
                    Role::Number,
                ),
        );
        for (_, text) in imports.iter().take(MAX_IMPORT_LINES) {
            block.lines.push(
                Line::new()
                    .push("    ", Role::Text)
                    .push(clip(text, crate::code::symbols::MAX_SIGNATURE), Role::Code),
            );
        }
        if imports.len() > MAX_IMPORT_LINES {
            block.lines.push(Line::new().push(
                format!("    ... +{} more", imports.len() - MAX_IMPORT_LINES),
                Role::Muted,
            ));
        }
        block.lines.push(Line::blank());
        doc.push(block);
    }
    if o.file.symbols.is_empty() {
        doc.push(Block::new(BlockKind::Other).line(Line::text("  (no symbols found)")));
    }
    for s in &o.file.symbols {
        symbol_block(&mut doc, s, 1);
    }
    doc
}

fn symbol_block(doc: &mut Doc, s: &Symbol, depth: usize) {
    let indent = "  ".repeat(depth);
    let mut head = Line::new()
        .push(indent.clone(), Role::Text)
        .push(s.kind.icon().to_string(), Role::Label)
        .push(" ", Role::Text)
        .push(&s.name, Role::Title);
    if s.exported {
        head = head.push(" [exported]", Role::Muted);
    }
    head = head.push(
        format!(" ({})", range(s.start_line, s.end_line)),
        Role::Muted,
    );
    let mut block = Block::new(BlockKind::Other).line(head);
    if !s.signature.is_empty() && s.signature != s.name {
        block.lines.push(
            Line::new()
                .push(format!("{indent}  "), Role::Text)
                .push(&s.signature, Role::Code),
        );
    }
    if let Some(d) = &s.doc {
        block.lines.push(
            Line::new()
                .push(format!("{indent}  {DOC_LINE_GLYPH} "), Role::Muted)
                .push(clip(d, crate::code::symbols::MAX_SIGNATURE), Role::Muted),
        );
    }
    doc.push(block);
    for c in &s.children {
        symbol_block(doc, c, depth + 1);
    }
}

/// `▹ README.md (markdown, 120 lines)`, then one line per heading, indented by level.
fn markdown_outline(o: &Outline) -> Doc {
    let mut doc = Doc::default();
    doc.push(
        Block::new(BlockKind::Header)
            .line(file_line(o))
            .line(Line::blank()),
    );
    fn heading(doc: &mut Doc, s: &Symbol) {
        let level = heading_level(s);
        let text = format!("{}{} {}", "  ".repeat(level), "#".repeat(level), s.name);
        let width = text.chars().count();
        let pad = HEADING_COLUMN.saturating_sub(width).max(1);
        doc.push(
            Block::new(BlockKind::Other).line(
                Line::new()
                    .push(text, Role::Title)
                    .push(" ".repeat(pad), Role::Text)
                    .push(format!("L{}", s.start_line), Role::Muted),
            ),
        );
        for c in &s.children {
            heading(doc, c);
        }
    }
    if o.file.symbols.is_empty() {
        doc.push(Block::new(BlockKind::Other).line(Line::text("  (no headings)")));
    }
    for s in &o.file.symbols {
        heading(&mut doc, s);
    }
    doc
}

/// A markdown section's heading level, kept in its signature (`## Title` → 2).
fn heading_level(s: &Symbol) -> usize {
    s.signature
        .chars()
        .take_while(|c| *c == '#')
        .count()
        .clamp(1, 6)
}

/// `// ⌖ src/lib.rs L10-24` and the source, for each found symbol; or the missing-symbol text.
pub fn unfold(u: &Unfold) -> Doc {
    let mut doc = Doc::default();
    match u {
        Unfold::Found(found) => {
            for (i, f) in found.iter().enumerate() {
                if i > 0 {
                    doc.push(Block::new(BlockKind::Other).line(Line::blank()));
                }
                doc.push(unfolded_block(f));
            }
        }
        Unfold::NotFound {
            path,
            symbol,
            available,
        } => {
            doc.push(
                Block::new(BlockKind::Header).line(
                    Line::new()
                        .push(format!("Symbol \"{symbol}\" not found in "), Role::Warning)
                        .push(path, Role::Title)
                        .push(".", Role::Warning),
                ),
            );
            if available.is_empty() {
                doc.push(
                    Block::new(BlockKind::Other)
                        .line(Line::text("The file defines no symbols cmem can list.")),
                );
            } else {
                let mut block = Block::new(BlockKind::Other)
                    .line(Line::new().push("Available symbols:", Role::Label));
                for a in available {
                    block.lines.push(
                        Line::new()
                            .push(format!("  {} ", a.kind.icon()), Role::Label)
                            .push(&a.name, Role::Title)
                            .push(
                                format!(" ({})", range(a.start_line, a.end_line)),
                                Role::Muted,
                            ),
                    );
                }
                doc.push(block);
            }
        }
    }
    doc
}

fn unfolded_block(f: &Unfolded) -> Block {
    let header = f.lang.comment(&format!(
        "{PIN_GLYPH} {} {}",
        f.path,
        range_always(f.start_line, f.end_line)
    ));
    let mut block = Block::new(BlockKind::Other).line(Line::new().push(header, Role::Muted));
    for l in f.source.lines() {
        block.lines.push(Line::new().push(l, Role::Code));
    }
    block
}

fn range_always(start: usize, end: usize) -> String {
    format!("L{start}-{end}")
}

/// The text when a file cannot be parsed.
pub fn parse_failure(path: &str) -> Doc {
    let mut doc = Doc::default();
    doc.push(Block::new(BlockKind::Other).line(Line::text(format!(
        "Could not parse {path}: its grammar gave up on it (a text it cannot read, nesting deeper than it handles, or more than {} s of parsing). Read it with offset and limit instead.",
        crate::code::parse::budget().as_secs()
    ))));
    doc
}

/// Search results: header, matching symbols, the folded views of their files, next steps.
pub fn search(r: &SearchResult) -> Doc {
    let mut doc = Doc::default();
    let folded = folded_views(r);
    let folded_text = folded.to_plain();
    let tokens = folded_text.chars().count().div_ceil(4);
    let files_with = r.files.len();
    let mut header = Block::new(BlockKind::Header)
        .line(
            Line::new()
                .push(format!("{SEARCH_GLYPH} Smart Search: "), Role::Label)
                .push(format!("\"{}\"", r.query), Role::Title),
        )
        .line(Line::new().push(
            format!(
                "Scanned {} file{} in {}{}; found {} matching symbol{}{}.",
                r.scanned,
                if r.scanned == 1 { "" } else { "s" },
                r.root,
                if r.truncated {
                    " (stopped at the file limit)"
                } else {
                    ""
                },
                r.total_matches,
                if r.total_matches == 1 { "" } else { "s" },
                if r.total_matches > r.matches.len() {
                    format!(", showing the best {}", r.matches.len())
                } else {
                    String::new()
                }
            ),
            Role::Muted,
        ));
    if !r.matches.is_empty() {
        header.lines.push(Line::new().push(
            format!(
                "{} match{} in {files_with} file{}; folded view ~{tokens} tokens.",
                r.matches.len(),
                if r.matches.len() == 1 { "" } else { "es" },
                if files_with == 1 { "" } else { "s" }
            ),
            Role::Muted,
        ));
    }
    header.lines.push(Line::blank());
    doc.push(header);
    if r.matches.is_empty() {
        doc.push(Block::new(BlockKind::Other).line(Line::text(
            "No symbol matches. Try a shorter or different part of the name, or another path.",
        )));
        return doc;
    }
    let mut block =
        Block::new(BlockKind::Other).line(Line::new().push("── Matching Symbols ──", Role::Label));
    for m in &r.matches {
        block.lines.push(
            Line::new()
                .push(format!("  {} ", m.kind.label()), Role::Label)
                .push(&m.qualified, Role::Title)
                .push(format!(" ({}:{})", m.path, m.start_line), Role::Muted),
        );
        if !m.signature.is_empty() && m.signature != m.name {
            block.lines.push(
                Line::new()
                    .push("    ", Role::Text)
                    .push(&m.signature, Role::Code),
            );
        }
        if let Some(d) = &m.doc {
            block.lines.push(Line::new().push(
                format!(
                    "    {DOC_LINE_GLYPH} {}",
                    clip(d, crate::code::symbols::MAX_SIGNATURE)
                ),
                Role::Muted,
            ));
        }
    }
    block.lines.push(Line::blank());
    doc.push(block);
    doc.push(
        Block::new(BlockKind::Other).line(Line::new().push("── Folded File Views ──", Role::Label)),
    );
    doc.extend(folded);
    let first = &r.matches[0];
    doc.push(
        Block::new(BlockKind::Other)
            .line(Line::blank())
            .line(Line::new().push("── Actions ──", Role::Label))
            .line(Line::text(format!(
                "  Source of one symbol: smart_unfold(file_path=\"{}\", symbol_name=\"{}\")",
                first.path, first.qualified
            )))
            .line(Line::text(format!(
                "  Whole structure of a file: smart_outline(file_path=\"{}\")",
                first.path
            ))),
    );
    doc
}

/// Per file with matches: its header and the matching symbols inside their parents.
fn folded_views(r: &SearchResult) -> Doc {
    let mut doc = Doc::default();
    for o in &r.files {
        let lines: Vec<usize> = r
            .matches
            .iter()
            .filter(|m| m.path == o.path)
            .map(|m| m.start_line)
            .collect();
        let mut block = Block::new(BlockKind::Other).line(file_line(o));
        fn walk(block: &mut Block, s: &Symbol, depth: usize, hits: &[usize]) {
            let inside = |l: usize| s.start_line <= l && l <= s.end_line;
            if !hits.iter().any(|l| inside(*l)) {
                return;
            }
            block.lines.push(
                Line::new()
                    .push(
                        format!("{}{} ", "  ".repeat(depth), s.kind.icon()),
                        Role::Label,
                    )
                    .push(&s.name, Role::Title)
                    .push(
                        format!(" ({})", range(s.start_line, s.end_line)),
                        Role::Muted,
                    ),
            );
            for c in &s.children {
                walk(block, c, depth + 1, hits);
            }
        }
        for s in &o.file.symbols {
            walk(&mut block, s, 1, &lines);
        }
        doc.push(block);
    }
    doc
}
