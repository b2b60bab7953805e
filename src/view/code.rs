//! Code views: a file's outline, an unfolded symbol, a missing symbol, and symbol search
//! (claude-mem's layouts, with BMP glyphs instead of its emoji).

use std::time::Duration;

use super::MAX_REPLY_BYTES;
use super::doc::{Block, BlockKind, Doc, Line, Role};
use crate::code::Lang;
use crate::code::outline::{Outline, Unfold, Unfolded};
use crate::code::search::SearchResult;
use crate::code::symbols::Symbol;
use crate::text::clip;

/// 📁 → a file header.
pub(crate) const FILE_GLYPH: char = '▸';
/// 📄 → a document header (markdown).
pub(crate) const DOC_GLYPH: char = '▹';
/// 📦 → the imports line.
pub(crate) const IMPORTS_GLYPH: char = '▪';
/// 💬 → a doc comment's first line.
pub(crate) const DOC_LINE_GLYPH: char = '”';
/// 📍 → where an unfolded symbol comes from.
pub(crate) const PIN_GLYPH: char = '⌖';
/// 🔍 → a search header.
pub(crate) const SEARCH_GLYPH: char = '⌕';

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
            format!(
                " ({}, {} line{})",
                o.lang.name(),
                o.line_count,
                if o.line_count == 1 { "" } else { "s" }
            ),
            Role::Muted,
        )
}

/// How far a big file's outline is folded to fit a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fold {
    /// One line per symbol, nested as in the file: signatures, doc lines and import
    /// statements left out.
    Lines,
    /// Several symbols a line: top-level ones grouped by kind, nested ones under their
    /// container; `ends: false` keeps only each symbol's first line.
    Packed { ends: bool },
}

/// Items of a packed line are wrapped at about this width.
const PACKED_WIDTH: usize = 100;

/// The outline of `o` in the fullest form that fits `max_bytes`: the full outline, else one
/// line per symbol, else packed lists (with ranges, then first lines only). Names stay exact
/// and every symbol keeps its line, so the agent can still unfold or Read any of them; a note
/// under the file line says what was folded. The last form is returned even if it is too long
/// (the caller cuts it).
pub(crate) fn outline_fitting(o: &Outline, max_bytes: usize) -> Doc {
    let full = outline(o);
    if full.to_plain().len() <= max_bytes {
        return full;
    }
    let forms: &[Fold] = if o.lang == Lang::Markdown {
        &[Fold::Lines]
    } else {
        &[
            Fold::Lines,
            Fold::Packed { ends: true },
            Fold::Packed { ends: false },
        ]
    };
    let mut last = full;
    for form in forms {
        last = folded_outline(o, *form, max_bytes);
        if last.to_plain().len() <= max_bytes {
            break;
        }
    }
    last
}

fn folded_outline(o: &Outline, form: Fold, max_bytes: usize) -> Doc {
    let count = o.file.all().len();
    let kib = max_bytes / 1024;
    let note = match form {
        Fold::Lines if o.lang == Lang::Markdown => format!(
            "  Folded to fit {kib} KiB: headings without padding. Names are exact: unfold any of them for its section."
        ),
        Fold::Lines => format!(
            "  Folded to fit {kib} KiB: one line per symbol; signatures, doc lines, export marks and import statements left out. Names are exact: unfold any of them for its source."
        ),
        Fold::Packed { ends } => format!(
            "  Folded to fit {kib} KiB: {count} symbols, several a line as `name L{}`: top-level ones by kind, nested ones after `Container (kind, lines):`. Signatures, doc lines and import statements left out. Names are exact: unfold any of them for its source.",
            if ends {
                "<first>-<last>"
            } else {
                "<first line>"
            }
        ),
    };
    let mut doc = Doc::default();
    doc.push(
        Block::new(BlockKind::Header)
            .line(file_line(o))
            .line(Line::new().push(note, Role::Muted))
            .line(Line::blank()),
    );
    let imports = o.file.imports.len();
    if imports > 0 {
        doc.push(
            Block::new(BlockKind::Other).line(
                Line::new()
                    .push(format!("  {IMPORTS_GLYPH} "), Role::Muted)
                    .push("Imports: ", Role::Label)
                    .push(
                        format!("{imports} statement{}", if imports == 1 { "" } else { "s" }),
                        Role::Number,
                    ),
            ),
        );
    }
    match form {
        Fold::Lines if o.lang == Lang::Markdown => {
            for s in o.file.all() {
                let level = heading_level(s);
                doc.push(
                    Block::new(BlockKind::Other).line(
                        Line::new()
                            .push(
                                format!("{}{} {}", "  ".repeat(level), "#".repeat(level), s.name),
                                Role::Title,
                            )
                            .push(format!(" L{}", s.start_line), Role::Muted),
                    ),
                );
            }
        }
        Fold::Lines => {
            fn walk(doc: &mut Doc, s: &Symbol, depth: usize) {
                doc.push(Block::new(BlockKind::Other).line(symbol_head(s, depth, false)));
                for c in &s.children {
                    walk(doc, c, depth + 1);
                }
            }
            for s in &o.file.symbols {
                walk(&mut doc, s, 1);
            }
        }
        Fold::Packed { ends } => packed(&mut doc, o, ends),
    }
    doc
}

/// Top-level symbols by kind (in order of first appearance), then one list per container.
fn packed(doc: &mut Doc, o: &Outline, ends: bool) {
    let item = |s: &Symbol| {
        if ends {
            format!("{} {}", s.name, range(s.start_line, s.end_line))
        } else {
            format!("{} L{}", s.name, s.start_line)
        }
    };
    let mut kinds: Vec<(crate::code::Kind, Vec<&Symbol>)> = Vec::new();
    // A container is listed once, on its own line below.
    for s in o.file.symbols.iter().filter(|s| s.children.is_empty()) {
        match kinds.iter_mut().find(|(k, _)| *k == s.kind) {
            Some((_, list)) => list.push(s),
            None => kinds.push((s.kind, vec![s])),
        }
    }
    for (kind, list) in &kinds {
        let head = format!(
            "  {} {} {}: ",
            kind.icon(),
            list.len(),
            kinds_word(*kind, list.len())
        );
        doc.push(packed_block(head, list.iter().map(|s| item(s))));
    }
    for s in o.file.all() {
        if s.children.is_empty() {
            continue;
        }
        let head = format!(
            "  {} {} ({}, {}): ",
            s.kind.icon(),
            s.qualified(o.lang),
            s.kind.label(),
            range(s.start_line, s.end_line)
        );
        doc.push(packed_block(head, s.children.iter().map(&item)));
    }
}

/// `head` and the items after it, wrapped at `PACKED_WIDTH` with a deeper indent.
fn packed_block(head: String, items: impl Iterator<Item = String>) -> Block {
    let mut block = Block::new(BlockKind::Other);
    let mut line = head;
    let mut first = true;
    for it in items {
        if !first && line.chars().count() + it.chars().count() + 3 > PACKED_WIDTH {
            line.push(',');
            block
                .lines
                .push(Line::text(std::mem::replace(&mut line, "    ".into())));
        } else if !first {
            line.push_str(", ");
        }
        line.push_str(&it);
        first = false;
    }
    block.lines.push(Line::text(line));
    block
}

/// "function" / "functions", "class" / "classes", "property" / "properties".
fn kinds_word(kind: crate::code::Kind, n: usize) -> String {
    let one = kind.label();
    if n == 1 {
        one.to_string()
    } else if let Some(stem) = one.strip_suffix('y') {
        format!("{stem}ies")
    } else if one.ends_with('s') {
        format!("{one}es")
    } else {
        format!("{one}s")
    }
}

/// `▸ src/lib.rs (rust, 187 lines)`, then the imports and every symbol with its signature and
/// first doc line, children indented two more.
pub(crate) fn outline(o: &Outline) -> Doc {
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

/// `  ƒ name [exported] (L3-9)`: a symbol's line in the outline (`marks: false` leaves out
/// `[exported]`).
fn symbol_head(s: &Symbol, depth: usize, marks: bool) -> Line {
    let mut head = Line::new()
        .push("  ".repeat(depth), Role::Text)
        .push(s.kind.icon().to_string(), Role::Label)
        .push(" ", Role::Text)
        .push(&s.name, Role::Title);
    if marks && s.exported {
        head = head.push(" [exported]", Role::Muted);
    }
    head.push(
        format!(" ({})", range(s.start_line, s.end_line)),
        Role::Muted,
    )
}

fn symbol_block(doc: &mut Doc, s: &Symbol, depth: usize) {
    let indent = "  ".repeat(depth);
    let head = symbol_head(s, depth, true);
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
pub(crate) fn unfold(u: &Unfold) -> Doc {
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

/// The text when a file cannot be parsed; `budget` is the time its parse was given.
pub(crate) fn parse_failure(path: &str, budget: Duration) -> Doc {
    let mut doc = Doc::default();
    doc.push(Block::new(BlockKind::Other).line(Line::text(format!(
        "Could not parse {path}: its grammar gave up on it (a text it cannot read, nesting deeper than it handles, or more than {} s of parsing). Read it with offset and limit instead.",
        budget.as_secs()
    ))));
    doc
}

/// Search results: header, matching symbols, the folded views of their files, next steps.
pub(crate) fn search(r: &SearchResult) -> Doc {
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

/// The smart tools' reply with a file's outline, in the densest form it needs to fit one reply
/// (a big file's symbols fold to one line each, then to a packed list); cut only if even that
/// does not fit.
pub(crate) fn outline_reply(o: &Outline) -> String {
    fit(outline_fitting(o, MAX_REPLY_BYTES).to_plain(), "outline")
}

/// The smart tools' reply with an unfolded symbol (or the symbols there are).
pub(crate) fn unfold_reply(u: &Unfold) -> String {
    fit(unfold(u).to_plain(), "source")
}

/// The smart tools' reply with a symbol search's results.
pub(crate) fn search_reply(r: &SearchResult) -> String {
    fit(search(r).to_plain(), "search result")
}

/// Cuts a reply longer than `MAX_REPLY_BYTES` at a line boundary, with a note.
fn fit(text: String, what: &str) -> String {
    if text.len() <= MAX_REPLY_BYTES {
        return text;
    }
    let note = format!(
        "\n… (this {what} was shortened to fit {} KiB; narrow it down: a smaller path, a more specific name, or Read with offset and limit)",
        MAX_REPLY_BYTES / 1024
    );
    let budget = MAX_REPLY_BYTES - note.len();
    let mut cut = budget;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = text[..cut].rfind('\n').unwrap_or(cut);
    format!("{}{note}", &text[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline_of(source: &str) -> Outline {
        let budget = crate::code::parse::DEFAULT_BUDGET;
        crate::code::outline::outline("s.rs", Lang::Rust, source, budget).unwrap()
    }

    #[test]
    fn folds_step_by_step_as_the_budget_shrinks() {
        let src = "use std::fmt;\n\n/// A store.\npub struct Store;\n\nimpl Store {\n    /// Opens it.\n    pub fn open() -> Store {\n        Store\n    }\n\n    fn close(&self) {}\n}\n\nfn main() {}\n\nfn helper() {}\n";
        let o = outline_of(src);
        let full = outline(&o).to_plain();
        assert_eq!(outline_fitting(&o, full.len()).to_plain(), full);

        let lines = outline_fitting(&o, full.len() - 1).to_plain();
        assert_eq!(lines, folded_outline(&o, Fold::Lines, 100).to_plain());
        assert!(lines.contains("one line per symbol"), "{lines}");
        assert!(
            lines.ends_with(
                "\n  ▪ Imports: 1 statement\n  ◆ Store (L4)\n  ◈ Store (L6-13)\n    ƒ open (L8-10)\n    ƒ close (L12)\n  ƒ main (L15)\n  ƒ helper (L17)"
            ),
            "{lines}"
        );

        let packed = folded_outline(&o, Fold::Packed { ends: true }, 100).to_plain();
        assert!(
            packed.contains("several a line as `name L<first>-<last>`"),
            "{packed}"
        );
        assert!(
            packed.ends_with(
                "\n  ▪ Imports: 1 statement\n  ◆ 1 struct: Store L4\n  ƒ 2 functions: main L15, helper L17\n  ◈ Store (impl, L6-13): open L8-10, close L12"
            ),
            "{packed}"
        );
        let starts = folded_outline(&o, Fold::Packed { ends: false }, 100).to_plain();
        assert!(starts.contains("`name L<first line>`"), "{starts}");
        assert!(
            starts.ends_with("◈ Store (impl, L6-13): open L8, close L12"),
            "{starts}"
        );
        // The first form that fits is taken; with none, the last comes back for the caller
        // to cut.
        let smallest = packed.len().min(lines.len()).min(starts.len());
        assert!(starts.len() < packed.len());
        let fitting = outline_fitting(&o, smallest).to_plain();
        assert!(
            fitting.len() <= smallest && !fitting.contains(&full),
            "{fitting}"
        );
        assert_eq!(
            outline_fitting(&o, 10).to_plain(),
            folded_outline(&o, Fold::Packed { ends: false }, 10).to_plain()
        );
    }

    #[test]
    fn packed_lines_wrap_between_items() {
        let items = (0..40).map(|i| format!("name_{i} L{i}"));
        let block = packed_block("  ƒ 40 functions: ".into(), items);
        let text: Vec<String> = block.lines.iter().map(Line::plain).collect();
        assert!(text.len() > 3, "{text:?}");
        for l in &text {
            assert!(l.chars().count() <= PACKED_WIDTH, "{l}");
        }
        assert!(text[1].starts_with("    name_"), "{text:?}");
        assert!(text[0].ends_with(','), "{text:?}");
        assert_eq!(text.join(" ").matches("name_").count(), 40);
    }

    #[test]
    fn long_replies_are_cut_at_a_line() {
        let text = "line of text\n".repeat(5000);
        let out = fit(text, "outline");
        assert!(out.len() <= MAX_REPLY_BYTES);
        assert!(out.contains("\nline of text\n… (this outline was shortened"));
    }
}
