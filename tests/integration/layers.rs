//! The layering rule of docs/ARCHITECTURE.md, enforced: every `crate::…` path in a file under `src/`
//! (in `use` lines, `use crate::{a, b}` groups and paths inside code) is mapped to its top-level
//! module and that module to a layer. A module may import only lower layers; core modules may
//! import each other; faces may not import each other, except `cli`, the dispatcher, which is a
//! layer of its own above them. Also, two files of one module must not import each other (a
//! module's `mod.rs` and the files it declares are one unit and may). Comments and string
//! literals are ignored; `#[cfg(test)]` code is held to the same rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, top first, each with its top-level modules: read from the one place they are
/// written, the `layers` block of docs/ARCHITECTURE.md (`name: module, module, …` a line).
fn layers() -> Vec<(String, Vec<String>)> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    let block = text
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/ARCHITECTURE.md has a ```layers block");
    let layers: Vec<(String, Vec<String>)> = block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, modules) = l
                .split_once(':')
                .unwrap_or_else(|| panic!("a layer line is `name: module, …`, not {l:?}"));
            let modules = modules.split(',').map(|m| m.trim().to_string()).collect();
            (name.trim().to_string(), modules)
        })
        .collect();
    assert!(
        layers.len() >= 3,
        "too few layers in docs/ARCHITECTURE.md: {layers:?}"
    );
    layers
}

/// Imports that break the rule on purpose: (importing file, imported module, why).
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "src/demo/mod.rs",
        "hook",
        "the demo memory is made by replaying scripted sessions through `cmem hook`'s own handler",
    ),
    (
        "src/history/replay.rs",
        "hook",
        "imported transcripts go through the hooks' own capture path (privacy, redaction, project names)",
    ),
    (
        "src/eval/observer.rs",
        "demo",
        "the observer's fixture edits get Claude Code's patch from the demo's own diff, so both are made alike",
    ),
];

/// Pairs of files that import each other, for now: (file, file, why).
const ALLOWED_CYCLES: &[(&str, &str, &str)] = &[];

/// A circle among the top-level modules `edges` join (`a → b` when a file of `a` imports
/// `b`), as the modules along it, or `None`.
fn module_circle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    fn walk(
        at: &str,
        edges: &BTreeSet<(String, String)>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == at) {
            let mut circle = path[start..].to_vec();
            circle.push(at.to_string());
            return Some(circle);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_string());
        for (_, to) in edges.iter().filter(|(from, to)| from == at && to != at) {
            if let Some(circle) = walk(to, edges, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(at.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .iter()
        .find_map(|(from, _)| walk(from, edges, &mut Vec::new(), &mut done))
}

/// One `crate::…`, `super::…` or `self::…` path found in a file, resolved to module segments.
struct Import {
    line: usize,
    /// The path as written, up to its first module (`crate::view`, `super::raw`).
    written: String,
    /// The absolute path in the crate (`["view", "raw", "summary_of_input"]`).
    path: Vec<String>,
}

#[test]
fn modules_import_only_lower_layers_and_files_of_a_module_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = rust_files(&src);
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .filter_map(|f| module_path(&src, f).map(|m| (m, f.clone())))
        .collect();
    let layers = layers();
    let layer_of = |module: &str| {
        layers
            .iter()
            .position(|(_, ms)| ms.iter().any(|m| m == module))
    };
    let mut violations = Vec::new();
    let mut unknown: BTreeSet<String> = BTreeSet::new();
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    // File-level edges inside one top-level module: (from, to) → first line.
    let mut edges: BTreeMap<(PathBuf, PathBuf), (usize, String)> = BTreeMap::new();

    for (module, file) in &modules {
        let Some(top) = module.first() else {
            continue; // lib.rs only declares the modules
        };
        let rel = file
            .strip_prefix(src.parent().unwrap())
            .unwrap()
            .display()
            .to_string();
        let text = std::fs::read_to_string(file).unwrap();
        for import in imports(&text, module) {
            let Some(target) = import.path.first() else {
                continue;
            };
            if !modules.contains_key(&vec![target.clone()]) {
                continue; // an item of the crate root, not a module
            }
            seen.insert((top.clone(), target.clone()));
            // Sync opens network connections: only the dispatcher may reach it, never a hook.
            if target == "sync" && top != "cli" && top != "sync" {
                violations.push(format!(
                    "{rel}:{} imports crate::sync (only cli may: hooks must never reach the network)",
                    import.line
                ));
            }
            if target != top {
                let (Some(from), Some(to)) = (layer_of(top), layer_of(target)) else {
                    unknown.extend(
                        [top, target]
                            .into_iter()
                            .filter(|m| layer_of(m).is_none())
                            .cloned(),
                    );
                    continue;
                };
                let core = layers.len() - 1;
                let allowed = ALLOWED.iter().any(|(f, m, _)| *f == rel && m == target);
                if !(from < to || (from == core && to == core) || allowed) {
                    violations.push(format!(
                        "{rel}:{} imports crate::{target} (layer {} → layer {})",
                        import.line, layers[from].0, layers[to].0
                    ));
                }
                continue;
            }
            let Some(to_file) = file_of(&modules, &import.path) else {
                continue;
            };
            let to_module = module_path(&src, &to_file).unwrap();
            // A parent and the files it declares are one unit.
            if module.starts_with(&to_module) || to_module.starts_with(module) {
                continue;
            }
            edges
                .entry((file.clone(), to_file))
                .or_insert((import.line, import.written));
        }
    }

    let show = |p: &Path| {
        p.strip_prefix(src.parent().unwrap())
            .unwrap()
            .display()
            .to_string()
    };
    let mut cycles = BTreeSet::new();
    for ((a, b), (line, written)) in &edges {
        if a < b
            && let Some((back_line, back_written)) = edges.get(&(b.clone(), a.clone()))
        {
            let (a, b) = (show(a), show(b));
            cycles.insert((a.clone(), b.clone()));
            if ALLOWED_CYCLES
                .iter()
                .any(|(x, y, _)| (*x, *y) == (&a, &b) || (*y, *x) == (&a, &b))
            {
                continue;
            }
            violations.push(format!(
                "{a} ↔ {b}: {a}:{line} imports {written}, {b}:{back_line} imports {back_written}"
            ));
        }
    }
    for (x, y, why) in ALLOWED_CYCLES {
        let (x, y) = (x.to_string(), y.to_string());
        assert!(
            cycles.contains(&(x.clone(), y.clone())) || cycles.contains(&(y.clone(), x.clone())),
            "{x} and {y} no longer import each other: drop their ALLOWED_CYCLES entry ({why})"
        );
    }

    // Every module src/lib.rs declares has a layer, and every module a layer names exists.
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let declared: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect();
    let layered: BTreeSet<String> = layers.iter().flat_map(|(_, ms)| ms.clone()).collect();
    assert_eq!(
        declared, layered,
        "src/lib.rs's modules and the layers of docs/ARCHITECTURE.md differ"
    );
    // Core modules may import each other, but not in a circle (config → model → config was the
    // last one: the domain must not read the configuration itself).
    let circle = module_circle(&seen);
    assert!(
        circle.is_none(),
        "top-level modules import in a circle: {circle:?}"
    );
    // The scan sees imports at all (a parser that finds nothing would pass).
    for (from, to) in [
        ("view", "code"),
        ("hook", "store"),
        ("cli", "mcp"),
        ("code", "text"),
    ] {
        assert!(
            seen.contains(&(from.to_string(), to.to_string())),
            "the scan missed {from} → {to}"
        );
    }
    assert!(
        unknown.is_empty(),
        "modules without a layer (add them to the layers block of docs/ARCHITECTURE.md): {unknown:?}"
    );
    assert!(
        violations.is_empty(),
        "{} import(s) against the layers of docs/ARCHITECTURE.md:\n{}",
        violations.len(),
        violations.join("\n")
    );
    // Every allow-list entry still names an import that exists.
    for (file, module, why) in ALLOWED {
        let text = std::fs::read_to_string(src.parent().unwrap().join(file)).unwrap();
        assert!(
            text.contains(&format!("crate::{module}")),
            "{file} no longer imports crate::{module}: drop its allow-list entry ({why})"
        );
    }
}

/// The parser finds the paths in every form the tree uses, and only those.
#[test]
fn the_parser_reads_groups_nested_modules_and_skips_comments_and_strings() {
    let text = r##"
use crate::{model::Kind, store::{self, Store}};
use super::doc::Doc;
// use crate::hook::x;
/* crate::tui::y */
const S: &str = "crate::mcp::z";
const R: &str = r#"crate::cli::w "quoted""#;
const C: char = '{';
fn f<'a>(x: &'a str) -> usize { crate::text::clip(x, 1).len() }
pub(crate) fn g() {}
macro_rules! m { () => { $crate::paths::x() } }
#[cfg(test)]
mod tests {
    use super::*;
    use super::super::raw::thing;
}
"##;
    let found: Vec<(usize, String, String)> = imports(text, &["view".into(), "detail".into()])
        .into_iter()
        .map(|i| (i.line, i.written, i.path.join("::")))
        .collect();
    let expect = [
        (2, "crate::model", "model::Kind"),
        (2, "crate::store", "store"),
        (2, "crate::store", "store::Store"),
        (3, "super::doc", "view::doc::Doc"),
        (9, "crate::text", "text::clip"),
        (14, "super", "view::detail"),
        (15, "super::super::raw", "view::raw::thing"),
    ];
    let expect: Vec<(usize, String, String)> = expect
        .iter()
        .map(|(l, w, p)| (*l, w.to_string(), p.to_string()))
        .collect();
    assert_eq!(found, expect);
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `src/view/raw.rs` → `["view", "raw"]`, `src/view/mod.rs` → `["view"]`, `src/lib.rs` → `[]`;
/// `None` for the binary's `main.rs`.
fn module_path(src: &Path, file: &Path) -> Option<Vec<String>> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    match last.as_str() {
        "main.rs" if parts.is_empty() => return None,
        "lib.rs" if parts.is_empty() => {}
        "mod.rs" => {}
        name => parts.push(name.strip_suffix(".rs")?.to_string()),
    }
    Some(parts)
}

/// The file that defines the longest module prefix of `path`.
fn file_of(modules: &BTreeMap<Vec<String>, PathBuf>, path: &[String]) -> Option<PathBuf> {
    (1..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]))
        .cloned()
}

/// The text with comments and the insides of string and char literals blanked (newlines
/// kept, so line numbers hold).
fn code_only(text: &str) -> Vec<char> {
    let s: Vec<char> = text.chars().collect();
    let mut out = s.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut out[from..to.min(s.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < s.len() {
        let at = |k: usize| s.get(k).copied().unwrap_or('\0');
        if at(i) == '/' && at(i + 1) == '/' {
            let end = (i..s.len()).find(|&k| s[k] == '\n').unwrap_or(s.len());
            blank(&mut out, i, end);
            i = end;
        } else if at(i) == '/' && at(i + 1) == '*' {
            let (mut depth, mut k) = (1, i + 2);
            while k < s.len() && depth > 0 {
                if at(k) == '/' && at(k + 1) == '*' {
                    depth += 1;
                    k += 2;
                } else if at(k) == '*' && at(k + 1) == '/' {
                    depth -= 1;
                    k += 2;
                } else {
                    k += 1;
                }
            }
            blank(&mut out, i, k);
            i = k;
        } else if at(i) == 'r'
            && (at(i + 1) == '"' || at(i + 1) == '#')
            && (i == 0 || !ident(at(i - 1)) || at(i - 1) == 'b')
        {
            let hashes = (i + 1..s.len()).take_while(|&k| s[k] == '#').count();
            if at(i + 1 + hashes) != '"' {
                i += 1;
                continue;
            }
            let body = i + 2 + hashes;
            let close: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            let close: Vec<char> = close.chars().collect();
            let end = (body..s.len())
                .find(|&k| s[k..].starts_with(&close))
                .map_or(s.len(), |k| k + close.len());
            blank(&mut out, body, end - 1);
            i = end;
        } else if at(i) == '"' {
            let mut k = i + 1;
            while k < s.len() && s[k] != '"' {
                k += if s[k] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, k);
            i = k + 1;
        } else if at(i) == '\'' {
            // A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                let end = (i + 2..s.len()).find(|&k| s[k] == '\'').unwrap_or(s.len());
                blank(&mut out, i + 1, end);
                i = end + 1;
            } else if at(i + 2) == '\'' {
                blank(&mut out, i + 1, i + 2);
                i += 3;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Every `crate::`, `super::` and `self::` path in `text`, a file of module `module`.
fn imports(text: &str, module: &[String]) -> Vec<Import> {
    let s = code_only(text);
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let line_of = |pos: usize| 1 + s[..pos].iter().filter(|&&c| c == '\n').count();
    let mut found = Vec::new();
    // Inline modules (`mod tests { … }`) the scan is in, with the brace depth each opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut pending_mod: Option<String> = None;
    let mut depth = 0;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c == '{' {
            depth += 1;
            if let Some(name) = pending_mod.take() {
                inline.push((name, depth));
            }
            i += 1;
            continue;
        }
        if c == '}' {
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
            depth -= 1;
            i += 1;
            continue;
        }
        if c == ';' {
            pending_mod = None;
        }
        let starts_word = ident(c) && (i == 0 || !(ident(s[i - 1]) || s[i - 1] == '$'));
        if !starts_word {
            i += 1;
            continue;
        }
        let (word, after) = read_ident(&s, i);
        if word == "mod" {
            let (name, _) = read_ident(&s, skip_ws(&s, after));
            pending_mod = Some(name);
            i = after;
            continue;
        }
        if !matches!(word.as_str(), "crate" | "super" | "self") || !is_path_sep(&s, after) {
            i = after;
            continue;
        }
        // The module the path is relative to, and how far a `super` chain reaches.
        let mut base: Vec<String> = match word.as_str() {
            "crate" => Vec::new(),
            _ => module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(n, _)| n.clone()))
                .collect(),
        };
        let mut written = word.clone();
        let mut j = after;
        if word == "super" {
            base.pop();
            while is_path_sep(&s, j) {
                let (next, end) = read_ident(&s, skip_ws(&s, skip_ws(&s, j) + 2));
                if next != "super" {
                    break;
                }
                base.pop();
                written.push_str("::super");
                j = end;
            }
        }
        let line = line_of(i);
        let reached = base.len();
        let mut paths = Vec::new();
        j = skip_ws(&s, j) + 2;
        use_tree(&s, &mut j, base, &mut paths);
        for path in paths {
            // As written, up to the first segment past the keywords (the module it reaches).
            let written = match path.get(reached) {
                Some(next) => format!("{written}::{next}"),
                None => written.clone(),
            };
            found.push(Import {
                line,
                written,
                path,
            });
        }
        i = j.max(after);
    }
    found
}

fn read_ident(s: &[char], from: usize) -> (String, usize) {
    let end = (from..s.len())
        .find(|&k| !(s[k].is_alphanumeric() || s[k] == '_'))
        .unwrap_or(s.len());
    (s[from..end].iter().collect(), end)
}

fn skip_ws(s: &[char], mut i: usize) -> usize {
    while i < s.len() && s[i].is_whitespace() {
        i += 1;
    }
    i
}

fn is_path_sep(s: &[char], i: usize) -> bool {
    let k = skip_ws(s, i);
    s.get(k) == Some(&':') && s.get(k + 1) == Some(&':')
}

/// Reads a path or use tree (`a::b`, `{a, b::{c, self}}`, `*`) after a `::`, adding each
/// full path to `out`. A path in code stops where it stops being a path (`(`, `<`, `;`, …).
fn use_tree(s: &[char], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    *i = skip_ws(s, *i);
    match s.get(*i) {
        Some('{') => {
            *i += 1;
            loop {
                *i = skip_ws(s, *i);
                match s.get(*i) {
                    Some('}') => {
                        *i += 1;
                        return;
                    }
                    Some(',') => *i += 1,
                    None => return,
                    Some(_) => {
                        let before = *i;
                        use_tree(s, i, prefix.clone(), out);
                        if *i == before {
                            *i += 1; // something the grammar here does not know: step over it
                        }
                    }
                }
            }
        }
        Some('*') => {
            *i += 1;
            out.push(prefix);
        }
        _ => {
            let (name, end) = read_ident(s, *i);
            if name.is_empty() {
                out.push(prefix);
                return;
            }
            *i = end;
            let mut path = prefix;
            if name != "self" {
                path.push(name);
            }
            if is_path_sep(s, *i) {
                *i = skip_ws(s, *i) + 2;
                use_tree(s, i, path, out);
            } else {
                // `as alias` is not part of the path.
                let k = skip_ws(s, *i);
                let (next, end) = read_ident(s, k);
                if next == "as" {
                    *i = read_ident(s, skip_ws(s, end)).1;
                }
                out.push(path);
            }
        }
    }
}
