//! Symbol search over a directory tree: parse every source file (≤ 512 KiB, build and vendor
//! directories skipped) and rank the symbols whose names match the query.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Lang;
use super::outline::{Outline, outline};
use super::symbols::{Kind, Symbol};

/// Files larger than this are not parsed (claude-mem's `smart_search` limit).
pub(crate) const MAX_FILE_BYTES: u64 = 512 * 1024;
/// At most this many files are scanned, so a search in a huge tree still answers.
pub(crate) const MAX_FILES: usize = 5_000;

/// Directories never searched: dependencies, build output, caches.
const SKIP_DIRS: &[&str] = &[
    "node_modules",
    "target",
    "dist",
    "build",
    "out",
    "vendor",
    "venv",
    "__pycache__",
    "coverage",
    "bower_components",
    "Pods",
    "DerivedData",
];

#[derive(Debug, Clone)]
pub(crate) struct Query {
    pub text: String,
    pub max_results: usize,
    /// A glob (`*.rs`, `src/**/*.ts`) or plain text matched against each file's path.
    pub file_pattern: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Match {
    pub path: String,
    pub kind: Kind,
    pub name: String,
    pub qualified: String,
    pub start_line: usize,
    pub end_line: usize,
    pub signature: String,
    pub doc: Option<String>,
    pub score: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SearchResult {
    pub query: String,
    /// The searched path as shown.
    pub root: String,
    pub scanned: usize,
    pub total_matches: usize,
    pub matches: Vec<Match>,
    /// Outlines of the files with shown matches, in order of their best match.
    pub files: Vec<Outline>,
    /// More files than `MAX_FILES` were there.
    pub truncated: bool,
}

/// Searches `dir` (a real, confined path; `display` is how it is shown) for `query`; each file's
/// parse may take `budget`.
pub(crate) fn search(dir: &Path, display: &str, query: &Query, budget: Duration) -> SearchResult {
    let terms: Vec<String> = query
        .text
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    let mut files = Vec::new();
    let mut truncated = false;
    if dir.is_file() {
        files.push(dir.to_path_buf());
    } else {
        collect_files(dir, &mut files, &mut truncated);
    }
    files.sort();
    let base = if dir.is_file() {
        dir.parent().unwrap_or(dir)
    } else {
        dir
    };
    let mut scanned = 0;
    let mut matches = Vec::new();
    let mut outlines = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(base)
            .unwrap_or(&file)
            .to_string_lossy()
            .into_owned();
        if let Some(pattern) = &query.file_pattern
            && !pattern_matches(pattern, &rel)
        {
            continue;
        }
        let Some(lang) = Lang::from_path(&file) else {
            continue;
        };
        let Ok(source) = std::fs::read_to_string(&file) else {
            continue;
        };
        scanned += 1;
        let shown = join_display(display, &rel, dir.is_file());
        let Some(o) = outline(&shown, lang, &source, budget) else {
            continue;
        };
        let before = matches.len();
        for s in o.file.all() {
            if let Some(score) = score(s, lang, &terms) {
                matches.push(Match {
                    path: shown.clone(),
                    kind: s.kind,
                    name: s.name.clone(),
                    qualified: s.qualified(lang),
                    start_line: s.start_line,
                    end_line: s.end_line,
                    signature: s.signature.clone(),
                    doc: s.doc.clone(),
                    score,
                });
            }
        }
        if matches.len() > before {
            outlines.push(o);
        }
    }
    matches.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.start_line.cmp(&b.start_line))
    });
    let total_matches = matches.len();
    matches.truncate(query.max_results);
    let mut order: Vec<&str> = Vec::new();
    for m in &matches {
        if !order.contains(&m.path.as_str()) {
            order.push(&m.path);
        }
    }
    let files = order
        .iter()
        .filter_map(|p| outlines.iter().find(|o| o.path == *p).cloned())
        .collect();
    SearchResult {
        query: query.text.clone(),
        root: display.to_string(),
        scanned,
        total_matches,
        matches,
        files,
        truncated,
    }
}

fn join_display(display: &str, rel: &str, is_file: bool) -> String {
    if is_file {
        return display.to_string();
    }
    if display == "." || display.is_empty() {
        rel.to_string()
    } else {
        format!("{}/{rel}", display.trim_end_matches('/'))
    }
}

fn pattern_matches(pattern: &str, rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if pattern.contains(['*', '?']) {
        crate::project::glob_match(pattern, rel) || crate::project::glob_match(pattern, name)
    } else {
        rel.contains(pattern)
    }
}

/// How well a symbol matches: every term must occur in its name, qualified name, signature or
/// doc line; names score higher than signatures, exact and prefix matches highest.
fn score(s: &Symbol, lang: Lang, terms: &[String]) -> Option<u32> {
    if terms.is_empty() {
        return None;
    }
    let name = s.name.to_lowercase();
    let qualified = s.qualified(lang).to_lowercase();
    let sig = s.signature.to_lowercase();
    let doc = s.doc.as_deref().unwrap_or("").to_lowercase();
    let mut total = 0;
    for t in terms {
        total += if name == *t {
            100
        } else if name.starts_with(t.as_str()) {
            60
        } else if name.contains(t.as_str()) {
            40
        } else if qualified.contains(t.as_str()) {
            25
        } else if sig.contains(t.as_str()) {
            10
        } else if doc.contains(t.as_str()) {
            5
        } else {
            return None;
        };
    }
    // Definitions of types and functions before fields and variables.
    total += match s.kind {
        Kind::Variable | Kind::Property | Kind::Const | Kind::Other => 0,
        _ => 2,
    };
    Some(total)
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>, truncated: &mut bool) {
    // Depth-first in name order, with a stack of the directories being listed: a workspace
    // can nest as deep as paths allow, so no recursion.
    let sorted = |dir: &Path| {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map(|e| e.flatten().collect())
            .unwrap_or_default();
        entries.sort_by_key(|e: &std::fs::DirEntry| e.file_name());
        entries.into_iter()
    };
    let mut stack = vec![sorted(dir)];
    while let Some(listing) = stack.last_mut() {
        let Some(e) = listing.next() else {
            stack.pop();
            continue;
        };
        if out.len() >= MAX_FILES {
            *truncated = true;
            return;
        }
        let name = e.file_name();
        let name = name.to_string_lossy();
        // Symlinks are not followed: they could lead out of the workspace.
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if meta.is_dir() {
            if name.starts_with('.') || SKIP_DIRS.contains(&name.as_ref()) {
                continue;
            }
            let inner = sorted(&e.path());
            stack.push(inner);
        } else if meta.is_file()
            && meta.len() <= MAX_FILE_BYTES
            && Lang::from_path(&e.path()).is_some()
        {
            out.push(e.path());
        }
    }
}
