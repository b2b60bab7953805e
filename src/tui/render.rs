//! The TUI's renderer of the shared views: a `view::Line` of role-tagged spans becomes a
//! ratatui line styled by the theme. Text is only ever styled here, never reworded: what the
//! words are is decided in `src/view/`. Control bytes are shown escaped (`^@`, `^[`), so a raw
//! NUL or ESC in stored tool output never reaches the terminal.

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::theme::Theme;
use crate::view;

/// Replaces control characters with visible escapes: C0 as caret notation (`^@`, `^[`), DEL as
/// `^?`, C1 as `\u{85}`, and a tab as four spaces.
pub(crate) fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.push_str("    "),
            '\u{7f}' => out.push_str("^?"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The text a row shows (what the fuzzy filter matches against): the spans' words without the
/// plain renderer's markdown markers.
pub(crate) fn display_text(line: &view::Line) -> String {
    line.spans.iter().map(|s| s.text.as_str()).collect()
}

/// One view line, styled.
pub(crate) fn line(l: &view::Line, theme: &Theme) -> Line<'static> {
    Line::from(
        l.spans
            .iter()
            .map(|s| Span::styled(escape_controls(&s.text).into_owned(), theme.role(s.role)))
            .collect::<Vec<_>>(),
    )
}

/// One view line with the characters at `matched` (char indices into `display_text`) in the
/// match style, for the live fuzzy filter.
pub(crate) fn line_with_matches(l: &view::Line, theme: &Theme, matched: &[usize]) -> Line<'static> {
    if matched.is_empty() {
        return line(l, theme);
    }
    let hit = theme.get("ui.match");
    let mut spans = Vec::new();
    let mut index = 0usize;
    let mut next = matched.iter().copied().peekable();
    for s in &l.spans {
        let base = theme.role(s.role);
        let mut run = String::new();
        let mut run_is_hit = false;
        for c in s.text.chars() {
            while next.peek().is_some_and(|&m| m < index) {
                next.next();
            }
            let is_hit = next.peek() == Some(&index);
            if is_hit != run_is_hit && !run.is_empty() {
                spans.push(piece(&run, base, run_is_hit.then_some(hit)));
                run.clear();
            }
            run_is_hit = is_hit;
            run.push(c);
            index += 1;
        }
        if !run.is_empty() {
            spans.push(piece(&run, base, run_is_hit.then_some(hit)));
        }
    }
    Line::from(spans)
}

fn piece(text: &str, base: Style, hit: Option<Style>) -> Span<'static> {
    let style = match hit {
        Some(h) => base.patch(h),
        None => base,
    };
    Span::styled(escape_controls(text).into_owned(), style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Role;

    #[test]
    fn control_bytes_never_reach_the_terminal() {
        assert_eq!(
            escape_controls("a\0b\x1b[31mc\x7f\td"),
            "a^@b^[[31mc^?    d"
        );
        assert_eq!(escape_controls("x\u{85}y"), "x\\u{85}y");
        assert!(matches!(escape_controls("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn matches_split_spans_and_keep_roles() {
        let theme = super::super::theme::load("default").unwrap();
        let l = view::Line::new()
            .push("12", Role::Id)
            .push(" fix pool", Role::Title);
        let out = line_with_matches(&l, &theme, &[1, 4, 5]);
        let texts: Vec<&str> = out.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(texts, vec!["1", "2", " f", "ix", " pool"]);
        assert_eq!(
            out.spans[1].style,
            theme.role(Role::Id).patch(theme.get("ui.match"))
        );
        assert_eq!(
            out.spans[3].style,
            theme.role(Role::Title).patch(theme.get("ui.match"))
        );
        assert_eq!(out.spans[4].style, theme.role(Role::Title));
    }
}
