//! Which symbols an edit touched: the observer names them in its titles ("Edited
//! store.rs: Store::open, migrate").

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use super::symbols::{FileSymbols, Kind, Symbol};
use super::{Lang, file_symbols};

/// One symbol with what identifies it across versions: its qualified name and how many
/// symbols of that name came before it (overloads, several `impl` blocks).
struct Entry<'a> {
    key: (String, usize),
    sym: &'a Symbol,
    depth: usize,
    /// Index of the enclosing entry.
    parent: Option<usize>,
}

fn entries<'a>(lang: Lang, file: &'a FileSymbols) -> Vec<Entry<'a>> {
    fn walk<'a>(
        lang: Lang,
        syms: &'a [Symbol],
        depth: usize,
        parent: Option<usize>,
        seen: &mut HashMap<String, usize>,
        out: &mut Vec<Entry<'a>>,
    ) {
        for s in syms {
            let name = s.qualified(lang);
            let n = seen.entry(name.clone()).or_insert(0);
            let key = (name, *n);
            *n += 1;
            let index = out.len();
            out.push(Entry {
                key,
                sym: s,
                depth,
                parent,
            });
            walk(lang, &s.children, depth + 1, Some(index), seen, out);
        }
    }
    let mut out = Vec::new();
    walk(lang, &file.symbols, 0, None, &mut HashMap::new(), &mut out);
    out
}

/// The symbol's text with its children cut out: what changed in the container itself.
/// Whitespace between children does not count, so adding a child changes only the child.
fn own_text<'s>(src: &'s str, sym: &Symbol) -> Vec<&'s str> {
    let mut parts = Vec::new();
    let mut at = sym.start_byte;
    for c in &sym.children {
        parts.push(src.get(at..c.start_byte).unwrap_or("").trim());
        at = c.end_byte;
    }
    parts.push(src.get(at..sym.end_byte).unwrap_or("").trim());
    parts.retain(|p| !p.is_empty());
    parts
}

fn text<'s>(src: &'s str, sym: &Symbol) -> &'s str {
    src.get(sym.start_byte..sym.end_byte).unwrap_or("")
}

pub(crate) fn changed_symbols(path: &Path, old: &str, new: &str, budget: Duration) -> Vec<String> {
    let Some(lang) = Lang::from_path(path) else {
        return Vec::new();
    };
    if old == new {
        return Vec::new();
    }
    let Some((old_tree, new_tree)) = super::parse::parse_pair(lang, old, new, budget) else {
        return Vec::new();
    };
    let old_file = super::symbols::extract(lang, old, &old_tree);
    let new_file = super::symbols::extract(lang, new, &new_tree);
    let olds = entries(lang, &old_file);
    let news = entries(lang, &new_file);
    let old_by_key: HashMap<&(String, usize), &Entry> = olds.iter().map(|e| (&e.key, e)).collect();
    let new_keys: std::collections::HashSet<&(String, usize)> =
        news.iter().map(|e| &e.key).collect();

    // Which new entries differ from their old version (or are new).
    let changed: Vec<bool> = news
        .iter()
        .map(|e| match old_by_key.get(&e.key) {
            None => true,
            Some(o) => text(old, o.sym) != text(new, e.sym),
        })
        .collect();
    let mut has_changed_child = vec![false; news.len()];
    for (i, e) in news.iter().enumerate() {
        if changed[i] {
            let mut p = e.parent;
            while let Some(pi) = p {
                has_changed_child[pi] = true;
                p = news[pi].parent;
            }
        }
    }
    let mut innermost = Vec::new();
    let mut containers = Vec::new();
    for (i, e) in news.iter().enumerate() {
        if !changed[i] {
            continue;
        }
        if !has_changed_child[i] {
            innermost.push(e);
        } else {
            // A container counts only for changes outside its changed children.
            let own_changed = match old_by_key.get(&e.key) {
                None => true,
                Some(o) => own_text(old, o.sym) != own_text(new, e.sym),
            };
            if own_changed {
                containers.push(e);
            }
        }
    }
    containers.sort_by_key(|e| std::cmp::Reverse(e.depth));
    let removed = olds.iter().filter(|o| {
        !new_keys.contains(&o.key)
            // A removed container's children are removed with it: name the container only.
            && o.parent.is_none_or(|p| new_keys.contains(&olds[p].key))
    });

    let mut out: Vec<String> = Vec::new();
    for e in innermost.into_iter().chain(containers).chain(removed) {
        let name = e.key.0.clone();
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

pub(crate) fn defined_symbols(path: &Path, source: &str, budget: Duration) -> Vec<String> {
    let Some(lang) = Lang::from_path(path) else {
        return Vec::new();
    };
    let Some(file) = file_symbols(lang, source, budget) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for s in &file.symbols {
        if s.kind == Kind::Impl || s.name == "extern" {
            continue;
        }
        if !out.contains(&s.name) {
            out.push(s.name.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::parse::DEFAULT_BUDGET;
    use super::*;

    fn changed(path: &str, old: &str, new: &str) -> Vec<String> {
        changed_symbols(Path::new(path), old, new, DEFAULT_BUDGET)
    }

    fn defined(path: &str, source: &str) -> Vec<String> {
        defined_symbols(Path::new(path), source, DEFAULT_BUDGET)
    }

    const RUST: &str = r#"use std::fmt;

/// A store.
pub struct Store {
    path: String,
}

impl Store {
    /// Opens it.
    pub fn open(path: &str) -> Store {
        Store { path: path.into() }
    }

    fn migrate(&self) -> bool {
        true
    }
}

pub fn helper() -> u32 {
    1
}
"#;

    #[test]
    fn rust_edit_inside_a_method_names_the_method() {
        let new = RUST.replace("true\n", "false\n");
        assert_eq!(changed("src/store.rs", RUST, &new), vec!["Store::migrate"]);
        let new = RUST.replace(
            "Store { path: path.into() }",
            "Store { path: path.to_string() }",
        );
        assert_eq!(changed("src/store.rs", RUST, &new), vec!["Store::open"]);
    }

    #[test]
    fn rust_edit_outside_any_symbol_names_nothing() {
        let new = RUST.replace("use std::fmt;", "use std::fmt::{self, Write};");
        assert!(changed("src/store.rs", RUST, &new).is_empty());
        // Moving a function down by a blank line changes no symbol's text.
        let new = RUST.replace("pub fn helper", "\npub fn helper");
        assert!(changed("src/store.rs", RUST, &new).is_empty());
    }

    #[test]
    fn rust_added_removed_and_container_changes() {
        let added = RUST.replace(
            "    fn migrate",
            "    pub fn close(self) {}\n\n    fn migrate",
        );
        assert_eq!(changed("a.rs", RUST, &added), vec!["Store::close"]);
        let removed = RUST.replace("pub fn helper() -> u32 {\n    1\n}\n", "");
        assert_eq!(changed("a.rs", RUST, &removed), vec!["helper"]);
        let field = RUST.replace("    path: String,", "    path: String,\n    size: u64,");
        assert_eq!(changed("a.rs", RUST, &field), vec!["Store"]);
        // Two edits: inside the method, and in the impl block itself (a comment between
        // methods): the method first, then the container.
        let both = RUST
            .replace("true\n", "false\n")
            .replace("    fn migrate", "    // migrations\n    fn migrate");
        assert_eq!(
            changed("a.rs", RUST, &both),
            vec!["Store::migrate", "Store"]
        );
    }

    const PYTHON: &str = r#"import os

LIMIT = 10


class Cache:
    """A cache."""

    def get(self, key):
        return self.data.get(key)

    def put(self, key, value):
        self.data[key] = value


def main():
    print(Cache())
"#;

    #[test]
    fn python_method_and_outside() {
        let new = PYTHON.replace("self.data[key] = value", "self.data[key] = value or None");
        assert_eq!(changed("app/cache.py", PYTHON, &new), vec!["Cache.put"]);
        let new = PYTHON.replace("import os", "import os\nimport sys");
        assert!(changed("app/cache.py", PYTHON, &new).is_empty());
        let new = PYTHON.replace("LIMIT = 10", "LIMIT = 20");
        assert_eq!(changed("app/cache.py", PYTHON, &new), vec!["LIMIT"]);
    }

    const TYPESCRIPT: &str = r#"import { z } from "zod";

export interface User {
  id: string;
}

export class UserService {
  private users = new Map<string, User>();

  find(id: string): User | undefined {
    return this.users.get(id);
  }

  save(user: User): void {
    this.users.set(user.id, user);
  }
}

export const toId = (u: User) => u.id;
"#;

    #[test]
    fn typescript_method_and_outside() {
        let new = TYPESCRIPT.replace("this.users.get(id)", "this.users.get(id.trim())");
        assert_eq!(
            changed("src/users.ts", TYPESCRIPT, &new),
            vec!["UserService.find"]
        );
        let new = TYPESCRIPT.replace("\"zod\"", "\"zod/v4\"");
        assert!(changed("src/users.ts", TYPESCRIPT, &new).is_empty());
        let new = TYPESCRIPT
            .replace("u => u.id", "")
            .replace("u.id;", "u.id.trim();");
        assert_eq!(changed("src/users.ts", TYPESCRIPT, &new), vec!["toId"]);
    }

    const GO: &str = r#"package server

import "net/http"

// Server serves.
type Server struct {
	addr string
}

// Start starts it.
func (s *Server) Start() error {
	return http.ListenAndServe(s.addr, nil)
}

func helper() int {
	return 1
}
"#;

    #[test]
    fn go_method_and_outside() {
        let new = GO.replace("s.addr, nil", "s.addr, mux");
        assert_eq!(changed("server.go", GO, &new), vec!["Server.Start"]);
        let new = GO.replace(
            "import \"net/http\"",
            "import (\n\t\"net/http\"\n\t\"log\"\n)",
        );
        assert!(changed("server.go", GO, &new).is_empty());
        let new = GO.replace("return 1", "return 2");
        assert_eq!(changed("server.go", GO, &new), vec!["helper"]);
    }

    #[test]
    fn unknown_language_and_defined_symbols() {
        assert!(changed("notes.txt", "a", "b").is_empty());
        assert_eq!(defined("src/store.rs", RUST), vec!["Store", "helper"]);
        assert_eq!(defined("cache.py", PYTHON), vec!["LIMIT", "Cache", "main"]);
        assert_eq!(
            defined("users.ts", TYPESCRIPT),
            vec!["User", "UserService", "toId"]
        );
        assert_eq!(defined("server.go", GO), vec!["Server", "Start", "helper"]);
    }
}
