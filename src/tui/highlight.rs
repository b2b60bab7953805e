//! Syntax highlighting of raw tool I/O (file contents, edits, commands) with
//! tree-sitter-highlight. A language's `HighlightConfiguration` compiles its queries, which
//! is slow, so each is built on first use (`OnceLock`) and only ever by the TUI: the hook path
//! never reaches this module. Output is capture scopes, not colours: the theme maps them (with
//! dotted fallback) when drawing, so switching theme needs no re-highlighting.

use std::sync::OnceLock;

use tree_sitter_highlight::{HighlightConfiguration, HighlightEvent, Highlighter};

/// The capture scopes cmem asks grammars for; `configure` maps every capture of a query to
/// the longest matching prefix here, the theme then falls back along the dots.
pub const SCOPES: &[&str] = &[
    "attribute",
    "comment",
    "constant",
    "constant.builtin",
    "constructor",
    "embedded",
    "escape",
    "function",
    "function.builtin",
    "function.macro",
    "function.method",
    "keyword",
    "keyword.control",
    "keyword.operator",
    "label",
    "module",
    "number",
    "operator",
    "property",
    "punctuation",
    "punctuation.bracket",
    "punctuation.delimiter",
    "string",
    "string.escape",
    "string.special",
    "tag",
    "type",
    "type.builtin",
    "variable",
    "variable.builtin",
    "variable.parameter",
];

/// A line of highlighted source: text pieces with their scope (`None`: plain).
pub type HlLine = Vec<(String, Option<&'static str>)>;

struct Lang {
    name: &'static str,
    extensions: &'static [&'static str],
    build: fn() -> Option<HighlightConfiguration>,
    config: OnceLock<Option<HighlightConfiguration>>,
}

fn make(
    language: tree_sitter::Language,
    name: &str,
    highlights: &str,
    injections: &str,
    locals: &str,
) -> Option<HighlightConfiguration> {
    let mut c = HighlightConfiguration::new(language, name, highlights, injections, locals).ok()?;
    c.configure(SCOPES);
    Some(c)
}

// TypeScript's query only adds to JavaScript's: the base goes first (rust-ecosystem §1.3).
fn typescript_query() -> String {
    format!(
        "{}\n{}",
        tree_sitter_javascript::HIGHLIGHT_QUERY,
        tree_sitter_typescript::HIGHLIGHTS_QUERY
    )
}

static LANGS: [Lang; 9] = [
    Lang {
        name: "rust",
        extensions: &["rs"],
        build: || {
            make(
                tree_sitter_rust::LANGUAGE.into(),
                "rust",
                tree_sitter_rust::HIGHLIGHTS_QUERY,
                tree_sitter_rust::INJECTIONS_QUERY,
                "",
            )
        },
        config: OnceLock::new(),
    },
    Lang {
        name: "typescript",
        extensions: &["ts", "mts", "cts"],
        build: || {
            make(
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
                "typescript",
                &typescript_query(),
                "",
                tree_sitter_typescript::LOCALS_QUERY,
            )
        },
        config: OnceLock::new(),
    },
    Lang {
        name: "tsx",
        extensions: &["tsx"],
        build: || {
            make(
                tree_sitter_typescript::LANGUAGE_TSX.into(),
                "tsx",
                &format!(
                    "{}\n{}",
                    typescript_query(),
                    tree_sitter_javascript::JSX_HIGHLIGHT_QUERY
                ),
                "",
                tree_sitter_typescript::LOCALS_QUERY,
            )
        },
        config: OnceLock::new(),
    },
    Lang {
        name: "javascript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        build: || {
            make(
                tree_sitter_javascript::LANGUAGE.into(),
                "javascript",
                &format!(
                    "{}\n{}",
                    tree_sitter_javascript::HIGHLIGHT_QUERY,
                    tree_sitter_javascript::JSX_HIGHLIGHT_QUERY
                ),
                "",
                tree_sitter_javascript::LOCALS_QUERY,
            )
        },
        config: OnceLock::new(),
    },
    Lang {
        name: "python",
        extensions: &["py", "pyi"],
        build: || {
            make(
                tree_sitter_python::LANGUAGE.into(),
                "python",
                tree_sitter_python::HIGHLIGHTS_QUERY,
                "",
                "",
            )
        },
        config: OnceLock::new(),
    },
    Lang {
        name: "go",
        extensions: &["go"],
        build: || {
            make(
                tree_sitter_go::LANGUAGE.into(),
                "go",
                tree_sitter_go::HIGHLIGHTS_QUERY,
                "",
                "",
            )
        },
        config: OnceLock::new(),
    },
    Lang {
        name: "c",
        extensions: &["c", "h"],
        build: || {
            make(
                tree_sitter_c::LANGUAGE.into(),
                "c",
                tree_sitter_c::HIGHLIGHT_QUERY,
                "",
                "",
            )
        },
        config: OnceLock::new(),
    },
    Lang {
        name: "json",
        extensions: &["json"],
        build: || {
            make(
                tree_sitter_json::LANGUAGE.into(),
                "json",
                tree_sitter_json::HIGHLIGHTS_QUERY,
                "",
                "",
            )
        },
        config: OnceLock::new(),
    },
    Lang {
        name: "bash",
        extensions: &["sh", "bash", "zsh"],
        build: || {
            make(
                tree_sitter_bash::LANGUAGE.into(),
                "bash",
                tree_sitter_bash::HIGHLIGHT_QUERY,
                "",
                "",
            )
        },
        config: OnceLock::new(),
    },
];

/// The language of a view's hint (a file name, an extension, or `diff`).
pub fn language_of(hint: &str) -> Option<&'static str> {
    if hint == "diff" || hint.ends_with(".diff") || hint.ends_with(".patch") {
        return Some("diff");
    }
    let ext = hint
        .rsplit_once('.')
        .map_or(hint, |(_, e)| e)
        .to_ascii_lowercase();
    LANGS
        .iter()
        .find(|l| l.extensions.contains(&ext.as_str()))
        .map(|l| l.name)
}

fn config(name: &str) -> Option<&'static HighlightConfiguration> {
    let lang = LANGS.iter().find(|l| l.name == name)?;
    lang.config.get_or_init(lang.build).as_ref()
}

/// Highlights `source` as `language` (a name from `language_of`). `None` when the language is
/// unknown or the parser gives up; the caller then shows the text plain.
pub fn highlight(language: &str, source: &str) -> Option<Vec<HlLine>> {
    if language == "diff" {
        return Some(diff(source));
    }
    let config = config(language)?;
    let mut highlighter = Highlighter::new();
    let events = highlighter
        .highlight(config, source.as_bytes(), None, None, |_| None)
        .ok()?;
    let mut lines: Vec<HlLine> = vec![Vec::new()];
    let mut stack: Vec<&'static str> = Vec::new();
    for event in events {
        match event.ok()? {
            HighlightEvent::HighlightStart(h) => stack.push(SCOPES.get(h.0).copied()?),
            HighlightEvent::HighlightEnd => {
                stack.pop();
            }
            HighlightEvent::Source { start, end } => {
                let scope = stack.last().copied();
                let text = source.get(start..end)?;
                for (i, piece) in text.split('\n').enumerate() {
                    if i > 0 {
                        lines.push(Vec::new());
                    }
                    if !piece.is_empty()
                        && let Some(line) = lines.last_mut()
                    {
                        line.push((piece.to_string(), scope));
                    }
                }
            }
        }
    }
    if source.ends_with('\n') {
        lines.pop();
    }
    Some(lines)
}

fn diff(source: &str) -> Vec<HlLine> {
    source
        .lines()
        .map(|l| {
            let scope = if l.starts_with("+++") || l.starts_with("---") || l.starts_with("@@") {
                Some("diff.delta")
            } else if l.starts_with('+') {
                Some("diff.plus")
            } else if l.starts_with('-') {
                Some("diff.minus")
            } else {
                None
            };
            vec![(l.to_string(), scope)]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_builds_and_highlights() {
        let samples = [
            ("x.rs", "fn main() { let x = \"hi\"; } // done"),
            ("x.ts", "const x: number = 1; function f() { return 'a'; }"),
            (
                "x.tsx",
                "export const A = () => <div className=\"a\">{1}</div>;",
            ),
            ("x.js", "function f() { return 42; }"),
            ("x.py", "def f(x):\n    return 'a'  # c"),
            ("x.go", "package main\nfunc main() { x := \"a\" }"),
            ("x.c", "int main(void) { return 0; }"),
            ("x.json", "{\"a\": [1, true, null]}"),
            ("x.sh", "echo \"$HOME\" | grep -v x"),
        ];
        for (file, src) in samples {
            let lang = language_of(file).unwrap_or_else(|| panic!("{file}"));
            let lines = highlight(lang, src).unwrap_or_else(|| panic!("{lang}"));
            let text: Vec<String> = lines
                .iter()
                .map(|l| l.iter().map(|(t, _)| t.as_str()).collect())
                .collect();
            assert_eq!(text.join("\n"), src, "{lang} loses text");
            let scoped = lines.iter().flatten().filter(|(_, s)| s.is_some()).count();
            assert!(scoped >= 2, "{lang}: only {scoped} highlighted pieces");
        }
        assert_eq!(language_of("notes.txt"), None);
    }

    #[test]
    fn diffs_by_line() {
        let l = highlight("diff", "@@ -1 +1 @@\n-a\n+b\n c").unwrap();
        let scopes: Vec<_> = l.iter().map(|l| l[0].1).collect();
        assert_eq!(
            scopes,
            vec![
                Some("diff.delta"),
                Some("diff.minus"),
                Some("diff.plus"),
                None
            ]
        );
    }
}
