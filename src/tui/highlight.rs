//! Syntax highlighting of raw tool I/O (file contents, edits, commands) with
//! tree-sitter-highlight. A language's `HighlightConfiguration` compiles its queries, which
//! is slow, so each is built on first use (`OnceLock`) and only ever by the TUI: the hook path
//! never reaches this module. Output is capture scopes, not colours: the theme maps them (with
//! dotted fallback) when drawing, so switching theme needs no re-highlighting.

use std::sync::OnceLock;

use tree_sitter_highlight::{HighlightConfiguration, HighlightEvent, Highlighter};

use crate::code::lang::Lang;

/// The capture scopes cmem asks grammars for; `configure` maps every capture of a query to
/// the longest matching prefix here, the theme then falls back along the dots.
pub(crate) const SCOPES: &[&str] = &[
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
pub(crate) type HlLine = Vec<(String, Option<&'static str>)>;

/// The highlight queries of a language, from its grammar crate. TypeScript's and C++'s
/// queries only add to JavaScript's and C's: the base goes first, then the additions.
/// Kotlin's crate ships no query and Markdown's is split over two grammars: those stay plain.
fn queries(lang: Lang) -> Option<(String, &'static str, &'static str)> {
    let js = tree_sitter_javascript::HIGHLIGHT_QUERY;
    Some(match lang {
        Lang::Rust => (
            tree_sitter_rust::HIGHLIGHTS_QUERY.into(),
            tree_sitter_rust::INJECTIONS_QUERY,
            "",
        ),
        Lang::Python => (tree_sitter_python::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::JavaScript => (
            format!("{js}\n{}", tree_sitter_javascript::JSX_HIGHLIGHT_QUERY),
            "",
            tree_sitter_javascript::LOCALS_QUERY,
        ),
        Lang::TypeScript => (
            format!("{js}\n{}", tree_sitter_typescript::HIGHLIGHTS_QUERY),
            "",
            tree_sitter_typescript::LOCALS_QUERY,
        ),
        Lang::Tsx => (
            format!(
                "{js}\n{}\n{}",
                tree_sitter_javascript::JSX_HIGHLIGHT_QUERY,
                tree_sitter_typescript::HIGHLIGHTS_QUERY
            ),
            "",
            tree_sitter_typescript::LOCALS_QUERY,
        ),
        Lang::Go => (tree_sitter_go::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::Java => (tree_sitter_java::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::Scala => (
            tree_sitter_scala::HIGHLIGHTS_QUERY.into(),
            "",
            tree_sitter_scala::LOCALS_QUERY,
        ),
        Lang::Swift => (
            tree_sitter_swift::HIGHLIGHTS_QUERY.into(),
            "",
            tree_sitter_swift::LOCALS_QUERY,
        ),
        Lang::C => (tree_sitter_c::HIGHLIGHT_QUERY.into(), "", ""),
        Lang::Cpp => (
            format!(
                "{}\n{}",
                tree_sitter_c::HIGHLIGHT_QUERY,
                tree_sitter_cpp::HIGHLIGHT_QUERY
            ),
            "",
            "",
        ),
        Lang::Php => (tree_sitter_php::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::Lua => (
            tree_sitter_lua::HIGHLIGHTS_QUERY.into(),
            "",
            tree_sitter_lua::LOCALS_QUERY,
        ),
        Lang::Haskell => (
            tree_sitter_haskell::HIGHLIGHTS_QUERY.into(),
            "",
            tree_sitter_haskell::LOCALS_QUERY,
        ),
        Lang::Zig => (tree_sitter_zig::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::Ruby => (
            tree_sitter_ruby::HIGHLIGHTS_QUERY.into(),
            "",
            tree_sitter_ruby::LOCALS_QUERY,
        ),
        Lang::Bash => (tree_sitter_bash::HIGHLIGHT_QUERY.into(), "", ""),
        Lang::Css => (tree_sitter_css::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::Scss => (tree_sitter_scss::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::Sql => (tree_sitter_sequel::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::Json => (tree_sitter_json::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::Yaml => (tree_sitter_yaml::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::Toml => (tree_sitter_toml_ng::HIGHLIGHTS_QUERY.into(), "", ""),
        Lang::Kotlin | Lang::Markdown => return None,
    })
}

fn build(lang: Lang) -> Option<HighlightConfiguration> {
    let (highlights, injections, locals) = queries(lang)?;
    let mut c =
        HighlightConfiguration::new(lang.grammar(), lang.name(), &highlights, injections, locals)
            .ok()?;
    c.configure(SCOPES);
    Some(c)
}

/// One lazily built configuration per language (compiling the queries is the slow part).
static CONFIGS: [OnceLock<Option<HighlightConfiguration>>; Lang::ALL.len()] =
    [const { OnceLock::new() }; Lang::ALL.len()];

/// The language of a view's hint (a file name, an extension, or `diff`), by the same table
/// the code tools use.
pub(crate) fn language_of(hint: &str) -> Option<&'static str> {
    if hint == "diff" || hint.ends_with(".diff") || hint.ends_with(".patch") {
        return Some("diff");
    }
    let ext = hint.rsplit_once('.').map_or(hint, |(_, e)| e);
    Lang::from_extension(ext).map(Lang::name)
}

fn config(name: &str) -> Option<&'static HighlightConfiguration> {
    let i = Lang::ALL.iter().position(|l| l.name() == name)?;
    CONFIGS[i].get_or_init(|| build(Lang::ALL[i])).as_ref()
}

/// Highlights `source` as `language` (a name from `language_of`). `None` when the language is
/// unknown or the parser gives up; the caller then shows the text plain.
pub(crate) fn highlight(language: &str, source: &str) -> Option<Vec<HlLine>> {
    if language == "diff" {
        return Some(diff(source));
    }
    let lang = Lang::ALL.into_iter().find(|l| l.name() == language)?;
    // The same guard as every parse: past it a grammar's scanner aborts the whole process.
    if !crate::code::parse::within_grammar_limits(lang, source) {
        return None;
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
    fn yaml_nested_past_its_scanner_is_shown_plain_not_aborted() {
        let deep: String = (0..400)
            .map(|i| format!("{}k:\n", "  ".repeat(i)))
            .collect();
        assert!(highlight("yaml", &deep).is_none());
        assert!(highlight("yaml", "a:\n  b: 1\n").is_some());
    }

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
            ("X.java", "class X { int f() { return 1; } }"),
            ("x.rb", "def f(x)\n  \"a\" # c\nend"),
            ("x.cpp", "int main() { auto x = 1; return x; }"),
            ("x.css", ".a { color: red; }"),
            ("x.yaml", "a: [1, \"b\"]"),
            ("x.toml", "[a]\nb = \"c\""),
            ("x.sql", "select a from t where b = 'c';"),
            ("x.lua", "local x = 'a' -- c"),
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
