//! Layer 2: records around an anchor (or any list of index rows), grouped by day.

use super::doc::{Block, BlockKind, Doc, Line, Role};
use super::time::{Days, Tz};
use crate::model::{IndexRow, Kind, ObsType, SESSION_SYMBOL};
use crate::text::{clip, escape_controls, one_line};

/// The symbol of a prompt row: a shell prompt's `❯`, unlike any quote mark (rows repeat their
/// time as a ditto `"`, and the reference's `”` sat right beside it).
pub const PROMPT_SYMBOL: char = '❯';

pub(crate) fn symbol(row: &IndexRow) -> (char, Role) {
    match row.kind {
        Kind::Observation => {
            let t = row.obs_type.as_deref().and_then(ObsType::parse);
            (t.map_or('·', ObsType::symbol), Role::TypeSymbol(t))
        }
        Kind::Summary => (SESSION_SYMBOL, Role::TypeSymbol(None)),
        Kind::Prompt => (PROMPT_SYMBOL, Role::Muted),
    }
}

/// `ID TIME SYMBOL TITLE`, the anchor marked with `→`.
pub(crate) fn row_line(row: &IndexRow, time: &str, anchor: bool) -> Line {
    let (sym, role) = symbol(row);
    let title = clip(&escape_controls(&one_line(&row.title)), 300);
    let mut line = Line::new();
    if anchor {
        line = line.push("→ ", Role::Warning);
    }
    line = line
        .push(row.kind.display_id(row.id), Role::Id)
        .push(" ", Role::Text)
        .push(time, Role::Time)
        .push(" ", Role::Text)
        .push(sym.to_string(), role)
        .push(" ", Role::Text)
        .push(title, Role::Title);
    with_since(line, row)
}

/// `line` with the row's `since_suffix`, when it has one.
pub(crate) fn with_since(line: Line, row: &IndexRow) -> Line {
    match since_suffix(row) {
        s if s.is_empty() => line,
        s => line.push(s, Role::Warning),
    }
}

/// What a row says after its title when something happened since (`△ file changed since`,
/// `(superseded by #N)`); empty otherwise.
pub(crate) fn since_suffix(row: &IndexRow) -> String {
    row.since
        .as_ref()
        .map(|s| s.row_suffix(true))
        .unwrap_or_default()
}

fn block_kind(row: &IndexRow) -> BlockKind {
    match row.kind {
        Kind::Observation => BlockKind::Observation(row.id),
        Kind::Summary => BlockKind::Summary(row.id),
        Kind::Prompt => BlockKind::Prompt(row.id),
    }
}

/// Day-grouped rows, oldest first as given; `anchor` (kind, id) is marked.
pub(crate) fn render(
    heading: &str,
    rows: &[IndexRow],
    anchor: Option<(Kind, i64)>,
    tz: &Tz,
) -> Doc {
    let mut doc = Doc::default();
    doc.push(Block::new(BlockKind::Header).line(Line::new().push(heading, Role::Heading(2))));
    let mut days = Days::default();
    let mut last_time: Option<String> = None;
    for row in rows {
        if let Some(day) = days.heading(tz, row.created_at) {
            doc.push(
                Block::new(BlockKind::DayHeading)
                    .line(Line::blank())
                    .line(day.line),
            );
            last_time = None;
        }
        let time = tz.row(row.created_at);
        let shown = if last_time.as_deref() == Some(&time) {
            "\"".to_string()
        } else {
            time.clone()
        };
        last_time = Some(time);
        let is_anchor = anchor == Some((row.kind, row.id));
        doc.push(Block::new(block_kind(row)).line(row_line(row, &shown, is_anchor)));
    }
    doc
}
