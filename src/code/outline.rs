//! A file's outline and the source of one symbol (unfold).

use std::time::Duration;

use super::symbols::{FileSymbols, Kind, Symbol};
use super::{Lang, file_symbols};

/// The folded structure of one file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outline {
    /// The path as shown (relative to the workspace).
    pub path: String,
    pub lang: Lang,
    pub line_count: usize,
    pub file: FileSymbols,
}

/// The outline of `source`; `None` when it cannot be parsed within `budget`.
pub(crate) fn outline(path: &str, lang: Lang, source: &str, budget: Duration) -> Option<Outline> {
    Some(Outline {
        path: path.to_string(),
        lang,
        line_count: line_count(source),
        file: file_symbols(lang, source, budget)?,
    })
}

pub(crate) fn line_count(source: &str) -> usize {
    source.lines().count()
}

/// The source of one symbol, from its doc comment and decorators to its end.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unfolded {
    pub path: String,
    pub lang: Lang,
    pub kind: Kind,
    pub name: String,
    pub start_line: usize,
    pub end_line: usize,
    pub source: String,
}

/// A symbol a missing name could have meant: kind, qualified name, lines.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Available {
    pub kind: Kind,
    pub name: String,
    pub start_line: usize,
    pub end_line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unfold {
    /// Every symbol of that name (overloads, several impl blocks), in source order.
    Found(Vec<Unfolded>),
    NotFound {
        path: String,
        symbol: String,
        available: Vec<Available>,
    },
}

/// Finds `symbol` (a name, or a qualified name such as `Store::open` or `Store.open`).
/// Exact matches win; otherwise a case-insensitive match is taken.
pub(crate) fn unfold(outline: &Outline, source: &str, symbol: &str) -> Unfold {
    let lang = outline.lang;
    let all = outline.file.all();
    let wanted = normalize_qualified(symbol.trim());
    let matches = |exact: bool| -> Vec<&Symbol> {
        let eq = |a: &str, b: &str| {
            if exact {
                a == b
            } else {
                a.eq_ignore_ascii_case(b)
            }
        };
        all.iter()
            .copied()
            .filter(|s| {
                let q = normalize_qualified(&s.qualified(lang));
                eq(&s.name, &wanted)
                    || eq(&q, &wanted)
                    // `Release.roll_out` names `Deploy.Release.roll_out`.
                    || (wanted.contains('.')
                        && q.len() > wanted.len()
                        && q.is_char_boundary(q.len() - wanted.len() - 1)
                        && q[q.len() - wanted.len() - 1..].starts_with('.')
                        && eq(&q[q.len() - wanted.len()..], &wanted))
            })
            .collect()
    };
    let mut found = matches(true);
    if found.is_empty() {
        found = matches(false);
    }
    if found.is_empty() {
        return Unfold::NotFound {
            path: outline.path.clone(),
            symbol: symbol.to_string(),
            available: all
                .iter()
                .map(|s| Available {
                    kind: s.kind,
                    name: s.qualified(lang),
                    start_line: s.start_line,
                    end_line: s.end_line,
                })
                .collect(),
        };
    }
    // A match nested in another match is already shown by it.
    let outer: Vec<&Symbol> = found
        .iter()
        .copied()
        .filter(|s| {
            !found.iter().any(|o| {
                !std::ptr::eq(*o, *s) && o.start_byte <= s.start_byte && s.end_byte <= o.end_byte
            })
        })
        .collect();
    let lines: Vec<&str> = source.lines().collect();
    Unfold::Found(
        outer
            .into_iter()
            .map(|s| {
                let start = extend_upward(lang, &lines, s.start_line);
                let end = s.end_line.min(lines.len()).max(start);
                Unfolded {
                    path: outline.path.clone(),
                    lang,
                    kind: s.kind,
                    name: s.qualified(lang),
                    start_line: start,
                    end_line: end,
                    source: lines
                        .get(start - 1..end)
                        .map(|l| l.join("\n"))
                        .unwrap_or_default(),
                }
            })
            .collect(),
    )
}

/// Up to `n` of `available` whose names are closest to `wanted`: the ones containing it
/// first, then those a few edits away (whole name or last part); none when nothing is near.
pub(crate) fn near_names<'a>(
    available: &'a [Available],
    wanted: &str,
    n: usize,
) -> Vec<&'a Available> {
    let wanted = normalize_qualified(&wanted.trim().to_lowercase());
    let wanted_last = wanted.rsplit('.').next().unwrap_or(&wanted);
    let near = (wanted_last.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &Available)> = available
        .iter()
        .filter_map(|a| {
            let full = normalize_qualified(&a.name.to_lowercase());
            let last = full.rsplit('.').next().unwrap_or(&full);
            if full.contains(&wanted) {
                return Some((0, a));
            }
            let d = edit_distance(&full, &wanted).min(edit_distance(last, wanted_last));
            (d <= near).then_some((d, a))
        })
        .collect();
    scored.sort_by_key(|(score, a)| (*score, a.start_line));
    let mut out: Vec<&Available> = Vec::new();
    for (_, a) in scored {
        if out.len() < n && !out.iter().any(|o| o.name == a.name) {
            out.push(a);
        }
    }
    out
}

/// Levenshtein distance over characters (names are short).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diag + usize::from(ca != *cb));
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// `Store::open` and `Store.open` name the same thing.
fn normalize_qualified(name: &str) -> String {
    name.replace("::", ".").replace(['#', ':'], ".")
}

/// Moves a symbol's first line up over the doc comments, attributes and decorators above it
/// (and the blank lines between them), never starting on a blank line.
pub(crate) fn extend_upward(lang: Lang, lines: &[&str], start: usize) -> usize {
    let mut s = start.clamp(1, lines.len().max(1));
    while s > 1 {
        let above = lines[s - 2].trim_start();
        if above.is_empty() || is_annotation_line(lang, above) {
            s -= 1;
        } else {
            break;
        }
    }
    while s < start && lines.get(s - 1).is_some_and(|l| l.trim().is_empty()) {
        s += 1;
    }
    s
}

fn is_annotation_line(lang: Lang, line: &str) -> bool {
    let c_like = ["//", "/*", "*", "*/"];
    let hash = ["#"];
    let at = ["@"];
    let dash = ["--", "{-"];
    let prefixes: Vec<&str> = match lang {
        Lang::Rust => [&c_like[..], &["#[", "#!["]].concat(),
        Lang::Python => [&hash[..], &at[..]].concat(),
        Lang::Ruby | Lang::Bash | Lang::Yaml | Lang::Toml => hash.to_vec(),
        Lang::Lua | Lang::Sql => dash.to_vec(),
        Lang::Haskell => [&dash[..], &["-}"]].concat(),
        Lang::JavaScript
        | Lang::TypeScript
        | Lang::Tsx
        | Lang::Java
        | Lang::Kotlin
        | Lang::Scala
        | Lang::Swift => [&c_like[..], &at[..]].concat(),
        Lang::Php => [&c_like[..], &["#[", "#"]].concat(),
        _ => c_like.to_vec(),
    };
    prefixes.iter().any(|p| line.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_prefer_containing_then_close_spellings() {
        let a = |name: &str, line| Available {
            kind: Kind::Function,
            name: name.into(),
            start_line: line,
            end_line: line,
        };
        let all = [
            a("open", 1),
            a("Store::open_at", 5),
            a("close", 9),
            a("parse_header", 12),
        ];
        let names = |w: &str| -> Vec<String> {
            near_names(&all, w, 5)
                .iter()
                .map(|a| a.name.clone())
                .collect()
        };
        assert_eq!(names("open"), ["open", "Store::open_at"]);
        assert_eq!(names("parse_heder"), ["parse_header"]);
        assert_eq!(names("opne"), ["open"]);
        assert!(names("zzzzzz").is_empty());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn extends_over_docs_and_attributes_but_not_code() {
        let src = "use a;\n\nfn x() {}\n\n/// Doc.\n#[inline]\n\nfn y() {}\n";
        let lines: Vec<&str> = src.lines().collect();
        assert_eq!(extend_upward(Lang::Rust, &lines, 8), 5);
        assert_eq!(extend_upward(Lang::Rust, &lines, 3), 3);
        let py = "import os\n\n\n@dataclass\n# note\nclass A:\n    pass\n";
        let lines: Vec<&str> = py.lines().collect();
        assert_eq!(extend_upward(Lang::Python, &lines, 6), 4);
    }
}
