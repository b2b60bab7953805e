//! Word wrapping of styled lines for the document layers (detail, preview, raw, agent view).
//! Lines break at spaces; a word wider than a whole line is the only thing ever cut, where
//! the line ends. Widths are terminal columns (`unicode-width`: a CJK character takes two, a
//! combining mark none), never bytes or UTF-16 units.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// One character with the style of the span it came from and its width in columns.
#[derive(Clone, Copy)]
struct Cell {
    c: char,
    style: Style,
    width: usize,
}

/// Wraps `line` to rows at most `width` columns wide. The spaces where a row breaks are
/// dropped; leading spaces (indentation) stay on the first row.
pub(crate) fn wrap_line(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    if width == 0 || line.width() <= width {
        return vec![line];
    }
    let line_style = line.style;
    let cells: Vec<Cell> = line
        .spans
        .iter()
        .flat_map(|s| {
            s.content.chars().map(|c| Cell {
                c,
                style: s.style,
                width: c.width().unwrap_or(0),
            })
        })
        .collect();
    let mut rows: Vec<Vec<Cell>> = vec![Vec::new()];
    let mut used = 0usize;
    let mut i = 0;
    while i < cells.len() {
        let space = cells[i].c == ' ';
        let end = cells[i..]
            .iter()
            .position(|x| (x.c == ' ') != space)
            .map_or(cells.len(), |n| i + n);
        let run = &cells[i..end];
        let run_width: usize = run.iter().map(|x| x.width).sum();
        if used + run_width <= width {
            last(&mut rows).extend_from_slice(run);
            used += run_width;
        } else if space {
            // The break falls in these spaces: they go, the next word starts a row.
            new_row(&mut rows);
            used = 0;
        } else if run_width <= width {
            new_row(&mut rows);
            last(&mut rows).extend_from_slice(run);
            used = run_width;
        } else {
            // A word no row can hold: cut it where each row is full.
            for cell in run {
                if used + cell.width > width && used > 0 {
                    new_row(&mut rows);
                    used = 0;
                }
                last(&mut rows).push(*cell);
                used += cell.width;
            }
        }
        i = end;
    }
    if rows.len() > 1 && rows.last().is_some_and(Vec::is_empty) {
        rows.pop();
    }
    rows.into_iter()
        .map(|row| Line::from(spans_of(&row)).style(line_style))
        .collect()
}

fn last(rows: &mut Vec<Vec<Cell>>) -> &mut Vec<Cell> {
    if rows.is_empty() {
        rows.push(Vec::new());
    }
    let n = rows.len();
    &mut rows[n - 1]
}

/// Ends the current row without its trailing spaces; a row of nothing but spaces (an indent
/// before a word that does not fit after it) is reused instead of left blank.
fn new_row(rows: &mut Vec<Vec<Cell>>) {
    let row = last(rows);
    while row.last().is_some_and(|x| x.c == ' ') {
        row.pop();
    }
    if !row.is_empty() {
        rows.push(Vec::new());
    }
}

/// Joins neighbouring cells of one style back into spans.
fn spans_of(row: &[Cell]) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for cell in row {
        if style.is_some_and(|s| s != cell.style) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(cell.style);
        text.push(cell.c);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, style.unwrap_or_default()));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use ratatui::style::{Color, Style};
    use unicode_width::UnicodeWidthStr;

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn breaks_between_words() {
        let l = Line::from("the pool hands out connections until it runs dry");
        assert_eq!(
            texts(&wrap_line(l, 20)),
            vec!["the pool hands out", "connections until it", "runs dry"]
        );
    }

    #[test]
    fn cuts_only_a_word_wider_than_a_row() {
        let l = Line::from("see /a/very/long/path/to/some/file.rs now");
        assert_eq!(
            texts(&wrap_line(l, 12)),
            vec!["see /a/very/", "long/path/to", "/some/file.r", "s now"]
        );
    }

    #[test]
    fn keeps_styles_indentation_and_wide_characters() {
        let red = Style::default().fg(Color::Red);
        let l = Line::from(vec![
            Span::raw("  - "),
            Span::styled("接続プール", red),
            Span::raw(" is full"),
        ]);
        let out = wrap_line(l, 14);
        assert_eq!(texts(&out), vec!["  - 接続プール", "is full"]);
        assert_eq!(out[0].spans[1].style, red);
        assert_eq!(out[0].width(), 14);
        // A two-column character never straddles the edge.
        let out = wrap_line(Line::from("接続プール"), 5);
        assert_eq!(texts(&out), vec!["接続", "プー", "ル"]);
    }

    fn word() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec!['a', 'b', 'é', '接', '\u{301}', '-', '/']),
            1..30,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn rows_fit_and_only_long_words_are_cut(
            words in prop::collection::vec(word(), 1..20),
            gaps in prop::collection::vec(1usize..3, 20),
            width in 2usize..40,
        ) {
            let mut text = String::new();
            for (i, w) in words.iter().enumerate() {
                if i > 0 {
                    text.push_str(&" ".repeat(gaps[i]));
                }
                text.push_str(w);
            }
            let out = texts(&wrap_line(Line::from(text.clone()), width));
            for row in &out {
                prop_assert!(row.width() <= width, "{row:?} wider than {width}");
            }
            // Nothing lost but the spaces at the breaks.
            let strip = |s: &str| s.chars().filter(|c| *c != ' ').collect::<String>();
            prop_assert_eq!(strip(&out.concat()), strip(&text));
            // A word that fits a row is never split across rows.
            for w in words.iter().filter(|w| w.width() <= width) {
                prop_assert!(
                    out.iter().any(|row| row.split(' ').any(|x| x == w.as_str())),
                    "{w:?} split in {out:?}"
                );
            }
        }
    }
}
