//! Files: edits and writes become one observation per file (which symbols changed, how many
//! lines); reads of a turn, with the look-around shell commands, become one discovery.

use std::collections::HashSet;
use std::sync::LazyLock;
use std::time::Duration;

use super::super::ascii::AsciiRegex;

use super::super::draft::{
    Draft, Role, Titles, capitalize, code, delta, first_line, fit_list, fitting_title, push_unique,
};
use super::super::event::{Event, FileEdit, Kind};
use super::super::literal;
use super::super::outcome::{self, CommandClass};
use super::super::place;
use super::super::symbols;
use super::{Claims, TurnInput, asked, edited_paths};
use crate::model::{ObsType, utf16_len};
use crate::text::{one_line, plural};

/// How much read text one turn parses for what it defines (parsing costs the hook about
/// half a millisecond a kilobyte; files past the budget are listed without their symbols).
const READ_PARSE_BUDGET: usize = 24 * 1024;

static REFACTOR: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(
        r"(?i)\b(refactor|rename|restructur|reorganiz|clean ?up|extract|simplif|tidy|deduplicat|split (?:up|out))",
    )
});

/// What the edits of one file in a turn amount to.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct FileChange {
    pub path: String,
    pub created: bool,
    pub symbols: Vec<String>,
    pub added: usize,
    pub removed: usize,
    pub edits: usize,
    /// The one small thing every edit of the file replaced, as (old, new): a literal, an
    /// operator, a name (see `literal`).
    pub quote: Option<(String, String)>,
    /// With no such small thing, the one or two short lines the edits added, removed or put
    /// in place of others, quoted (`added `|> unique_constraint(:email)``).
    pub lines: Option<String>,
    /// Settings given new values beside the file's other edits (`Settings::beside`), as
    /// (`KEY`, `old → new`).
    pub settings: Vec<(String, String)>,
    pub lines_total: Option<usize>,
}

impl FileChange {
    /// `refresh_window in src/auth.rs`, or just the path.
    pub(crate) fn what(&self, max_symbols: usize) -> String {
        if self.symbols.is_empty() {
            self.path.clone()
        } else {
            format!("{} in {}", fit_list(&self.symbols, max_symbols), self.path)
        }
    }

    /// What changed for a title, fullest first: with more symbols, fewer, the symbols with the
    /// file's name for a deep path (the symbol says more than the directories), then the path.
    pub(crate) fn names(&self) -> Vec<String> {
        let mut out = vec![self.what(30), self.what(16)];
        let file = self.path.rsplit('/').next().unwrap_or(&self.path);
        if !self.symbols.is_empty() && file != self.path {
            out.push(format!("{} in {file}", fit_list(&self.symbols, 16)));
        }
        out.push(self.path.clone());
        out
    }

    /// The change itself, when it is small enough to say: `30 → 300`, `added `…``.
    pub(crate) fn phrase(&self) -> Option<String> {
        match &self.quote {
            Some((old, new)) => Some(literal::arrow(old, new)),
            None => self.lines.clone(),
        }
    }

    pub(crate) fn fact(&self) -> String {
        let mut f = if self.created {
            format!(
                "{} created ({})",
                self.path,
                plural(self.lines_total.unwrap_or(self.added), "line", "lines")
            )
        } else {
            format!(
                "{}: {} added, {} removed in {}",
                self.path,
                plural(self.added, "line", "lines"),
                self.removed,
                plural(self.edits, "edit", "edits")
            )
        };
        if !self.symbols.is_empty() {
            let verb = if self.created { "defines" } else { "changed" };
            f.push_str(&format!("; {verb} {}", self.symbols.join(", ")));
        }
        f
    }
}

/// Summarises the edits of one file (in the order they happened); each parse that finds the
/// symbols they touched may take `parse_budget`.
pub(crate) fn file_change(edits: &[&FileEdit], parse_budget: Duration) -> FileChange {
    let Some(first) = edits.first() else {
        return FileChange::default();
    };
    let last = edits[edits.len() - 1];
    let path = first.path.clone();
    let created = first.created;
    let symbols = if created {
        let text = last.after.as_deref().unwrap_or(&last.new_snippet);
        symbols::defined(&path, text, parse_budget)
    } else if let (Some(before), Some(after)) = (first.before.as_deref(), last.after.as_deref())
        && edits
            .iter()
            .all(|e| e.before.is_some() && e.after.is_some())
    {
        symbols::changed(&path, before, after, parse_budget)
    } else {
        let mut out: Vec<String> = Vec::new();
        for e in edits {
            let found = match (e.before.as_deref(), e.after.as_deref()) {
                (Some(b), Some(a)) => symbols::changed(&path, b, a, parse_budget),
                _ => symbols::defined(&path, &e.new_snippet, parse_budget),
            };
            for s in found {
                push_unique(&mut out, &s);
            }
        }
        out
    };
    let quote = if created { None } else { literal_of(edits) };
    // Two or three settings each given a new value (`POOL_SIZE 10 → 30, MAX_OVERFLOW 5 →
    // 20`) say the change better than their names and the size of the edit.
    let found = if created || quote.is_some() {
        Settings::default()
    } else {
        Settings::of(edits)
    };
    let settings = found.only();
    let lines = if created || quote.is_some() || settings.is_some() {
        settings.clone()
    } else {
        lines_of(edits)
    };
    let beside = if lines.is_some() {
        Vec::new()
    } else {
        found.beside()
    };
    // A config value is known by its own key: the outline of a YAML list item stops at its
    // container (`spec.template`), while `timeoutSeconds: 1` → `5` is the change.
    let key = config_key(&path, edits);
    let symbols = match (&quote, key.clone()) {
        (Some(_), Some(key))
            if key.chars().count() <= 24 && !symbols.iter().any(|s| names(s, &key)) =>
        {
            vec![key]
        }
        _ => symbols,
    };
    // A YAML or Terraform change is known by where it sits (`CreateCustomer.required`,
    // `var.worker_instance_type`) when the outline stops above it or has no name for it.
    let symbols = match edits.iter().find_map(|e| place::of_edit(e)) {
        Some(place)
            if !created && key.is_none() && !symbols.iter().any(|s| s.ends_with(&place)) =>
        {
            vec![place]
        }
        _ => symbols,
    };
    // The settings name themselves in the change.
    let symbols = if settings.is_some() {
        Vec::new()
    } else {
        symbols
    };
    FileChange {
        path,
        created,
        symbols,
        added: edits.iter().map(|e| e.added).sum(),
        removed: edits.iter().map(|e| e.removed).sum(),
        edits: edits.len(),
        quote,
        lines,
        settings: beside,
        lines_total: last.after.as_deref().map(|a| a.lines().count()),
    }
}

/// A rename names itself (`verify → verify_signature in src/auth.rs`, fullest form first)
/// when the edits replaced one name by another and the changed symbols are those names.
pub(crate) fn renamed(change: &FileChange) -> Option<Vec<String>> {
    let (old, new) = change.quote.as_ref()?;
    let name = |s: &str| s.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !(name(old) && name(new) && change.symbols.iter().any(|s| s == new || s == old)) {
        return None;
    }
    let arrow = literal::arrow(old, new);
    let rest: Vec<String> = change
        .symbols
        .iter()
        .filter(|s| *s != new && *s != old)
        .cloned()
        .collect();
    let mut forms = Vec::new();
    if !rest.is_empty() {
        forms.push(format!(
            "{arrow} in {} in {}",
            fit_list(&rest, 30),
            change.path
        ));
    }
    forms.push(format!("{arrow} in {}", change.path));
    Some(forms)
}

/// Title forms for a change to one file, fullest first: what changed and its before → after
/// (`DEFAULT_TIMEOUT_MS in src/http/client.rs: 5_000 → 15_000`), else `verb` and the size.
pub(crate) fn change_titles(change: &FileChange, verb: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(forms) = renamed(change) {
        out.extend(forms.into_iter().map(|f| format!("Renamed {f}")));
    }
    if let Some(phrase) = change.phrase() {
        out.extend(
            change
                .names()
                .iter()
                .map(|what| format!("{what}: {phrase}")),
        );
    }
    let size = delta(change.added, change.removed);
    // Settings beside other edits (a file with a phrase has none):
    // `src/pool.py: POOL_SIZE 5 → 20; changed run_query (+5 −4)`.
    if !change.settings.is_empty() {
        let said = settings_text(&change.settings);
        let others: Vec<String> = change
            .symbols
            .iter()
            .filter(|s| !change.settings.iter().any(|(key, _)| names(s, key)))
            .cloned()
            .collect();
        if !others.is_empty() {
            for max in [30, 16] {
                out.push(format!(
                    "{}: {said}; {} {} ({size})",
                    change.path,
                    verb.to_lowercase(),
                    fit_list(&others, max)
                ));
            }
        }
        out.push(format!("{}: {said} ({size})", change.path));
    }
    out.extend(
        change
            .names()
            .iter()
            .map(|what| format!("{verb} {what} ({size})")),
    );
    // A path too long for any row (one 120-character file name) still leaves the change
    // itself to say; the path is in the subtitle and the facts.
    if !change.symbols.is_empty() {
        let symbols = fit_list(&change.symbols, 16);
        if let Some(phrase) = change.phrase() {
            out.push(format!("{symbols}: {phrase}"));
        }
        out.push(format!("{verb} {symbols} ({size})"));
    }
    out
}

/// Whether an edit only adds or removes imports: the consequence of a change made in
/// another edit of the file, not a change of its own.
fn only_imports(e: &FileEdit) -> bool {
    let is_import = |l: &str| {
        let l = l.trim();
        ["import ", "use ", "from ", "#include", "require ", "using "]
            .iter()
            .any(|k| l.starts_with(k))
            || l == "import ("
            || l == ")"
            // A Go import block's line is a quoted path, maybe with an alias.
            || (l.ends_with('"') && l.split_whitespace().count() <= 2 && l.contains('"'))
    };
    let (gone, came) = changed_lines(e);
    let mut any = false;
    for l in came.into_iter().chain(gone) {
        if !is_import(l) {
            return false;
        }
        any = true;
    }
    any
}

/// The lines an edit took out and the lines it put in (lines in both, moved or not, left out).
fn changed_lines(e: &FileEdit) -> (Vec<&str>, Vec<&str>) {
    // Sets, not scans: an edit of thousands of lines would cost the hook their square.
    let old: Vec<&str> = e.old_snippet.lines().collect();
    let new: Vec<&str> = e.new_snippet.lines().collect();
    let (old_set, new_set): (HashSet<&str>, HashSet<&str>) =
        (old.iter().copied().collect(), new.iter().copied().collect());
    let gone = old
        .iter()
        .filter(|l| !new_set.contains(*l))
        .copied()
        .collect();
    let came = new
        .iter()
        .filter(|l| !old_set.contains(*l))
        .copied()
        .collect();
    (gone, came)
}

/// Most settings one turn's edits of a file may name with their values in a title.
const MAX_SETTINGS: usize = 3;

/// Whether symbol `symbol` is the one named `key` (`POOL_SIZE`, `Config.POOL_SIZE`).
fn names(symbol: &str, key: &str) -> bool {
    symbol
        .strip_suffix(key)
        .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
}

/// The settings a file's edits gave new values (`edit_settings`), each once, and whether some
/// edit changed anything else.
#[derive(Default)]
struct Settings {
    given: Vec<(String, String)>,
    other: bool,
}

impl Settings {
    fn of(edits: &[&FileEdit]) -> Settings {
        let mut found = Settings::default();
        for e in edits {
            match edit_settings(e) {
                Some(given) => {
                    for said in given {
                        if !found.given.contains(&said) {
                            found.given.push(said);
                        }
                    }
                }
                None => found.other = true,
            }
        }
        found
    }

    /// `KEY old → new, …` when every line the edits changed is a setting (`POOL_SIZE = 10` →
    /// `POOL_SIZE = 30`, `memory: 512Mi` → `memory: 1Gi`, `const BASE_DELAY_MS: u64 = 100;`)
    /// and there are two or three of them (one is `literal_of`'s).
    fn only(&self) -> Option<String> {
        (!self.other && (2..=MAX_SETTINGS).contains(&self.given.len()))
            .then(|| settings_text(&self.given))
    }

    /// The settings given new values beside other edits of the file (`POOL_SIZE 5 → 20` while
    /// `run_query` changed too): the value says more than the setting's name among the
    /// symbols. At most `MAX_SETTINGS`.
    fn beside(self) -> Vec<(String, String)> {
        if self.other && self.given.len() <= MAX_SETTINGS {
            self.given
        } else {
            Vec::new()
        }
    }
}

/// `KEY old → new, …`.
fn settings_text(settings: &[(String, String)]) -> String {
    settings
        .iter()
        .map(|(key, change)| format!("{key} {change}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The settings one edit gave new values, each as (`KEY`, `old → new`), when every line it
/// changed is one.
fn edit_settings(e: &FileEdit) -> Option<Vec<(String, String)>> {
    let (gone, came) = changed_lines(e);
    if gone.is_empty() || gone.len() != came.len() {
        return None;
    }
    let mut out = Vec::new();
    for (old, new) in gone.iter().zip(&came) {
        let key = setting_key(old)?;
        if setting_key(new)? != key {
            return None;
        }
        let (a, b) = literal::changed(old, new)?;
        if a.contains(key) || b.contains(key) {
            return None;
        }
        out.push((key.to_string(), literal::arrow(&a, &b)));
    }
    Some(out)
}

/// The name a line gives a value (`POOL_SIZE` of `POOL_SIZE = 10`, `memory` of `memory: 1Gi`,
/// `MAX` of `private static final int MAX = 5;`).
fn setting_key(line: &str) -> Option<&str> {
    let l = line.trim().trim_start_matches("- ");
    let first = l.split_whitespace().next().unwrap_or("");
    if matches!(
        first,
        "if" | "elif" | "else" | "while" | "for" | "return" | "case" | "assert" | "when"
    ) {
        return None;
    }
    // `=` alone (not `==`, `!=`, `<=`, `>=`, `=>`), or `: ` (not `::`, not a URL's `://`).
    let bytes = l.as_bytes();
    let at = l.char_indices().find_map(|(i, c)| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + 1).copied();
        match c {
            '=' if !matches!(before, Some(b'=' | b'!' | b'<' | b'>'))
                && !matches!(after, Some(b'=' | b'>')) =>
            {
                Some(i)
            }
            ':' if matches!(after, None | Some(b' ')) && before != Some(b':') => Some(i),
            _ => None,
        }
    })?;
    let key = l[..at]
        .split_whitespace()
        .last()?
        .trim_matches(|c: char| c == '"' || c == '\'');
    let ok = !key.is_empty()
        && key.chars().any(char::is_alphabetic)
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    ok.then_some(key)
}

/// What all `edits` replaced, when they replaced the same small thing (edits that only
/// touch imports aside).
fn literal_of(edits: &[&FileEdit]) -> Option<(String, String)> {
    let mut found: Option<(String, String)> = None;
    let own: Vec<&&FileEdit> = edits.iter().filter(|e| !only_imports(e)).collect();
    let edits: Vec<&&FileEdit> = if own.is_empty() {
        edits.iter().collect()
    } else {
        own
    };
    for e in edits {
        let change = match &e.line_swap {
            Some((o, n)) if e.old_snippet.is_empty() => literal::changed(o, n),
            _ => literal::changed(&e.old_snippet, &e.new_snippet),
        }?;
        match &found {
            Some(f) if *f != change => return None,
            _ => found = Some(change),
        }
    }
    found
}

/// Longest line quoted whole in a title, and the most two quoted lines may hold together.
const LINE_QUOTE_MAX: usize = 72;
const LINES_QUOTE_MAX: usize = 100;

/// The lines the edits added, removed or replaced, said in a few words when there are one or
/// two short ones: `added `GRANT CREATE ON SCHEMA public TO app;``, `removed `…``, or
/// `now `type Status = "paid" | "open"``  for several lines replaced by one. Closing braces,
/// blank lines and comments are the shape of the code or words about it, not the change.
fn lines_of(edits: &[&FileEdit]) -> Option<String> {
    let own: Vec<&&FileEdit> = edits.iter().filter(|e| !only_imports(e)).collect();
    let shape = |l: &str| {
        l.is_empty()
            || l.chars().all(|c| "{}()[];,".contains(c))
            || l == "end"
            || literal::is_comment(l)
    };
    // A line that only gained or lost its trailing comma (the list around it changed) is
    // the same line.
    fn same(l: &str) -> &str {
        l.trim_end_matches(',')
    }
    let (mut gone, mut came): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    // What the edited places hold now: the line left, re-indented, when a branch around it
    // was taken out. Only changed lines count: a context line the edit kept as it was is
    // not what the edit did.
    let mut now: Vec<&str> = Vec::new();
    for e in &own {
        let (g, c) = changed_lines(e);
        let g: Vec<&str> = g.iter().map(|l| l.trim()).filter(|l| !shape(l)).collect();
        let c: Vec<&str> = c.iter().map(|l| l.trim()).filter(|l| !shape(l)).collect();
        now.extend(&c);
        let (g_set, c_set): (HashSet<&str>, HashSet<&str>) = (
            g.iter().map(|l| same(l)).collect(),
            c.iter().map(|l| same(l)).collect(),
        );
        gone.extend(g.iter().filter(|l| !c_set.contains(same(l))));
        came.extend(c.iter().filter(|l| !g_set.contains(same(l))));
    }
    // A redacted secret replaced by another says nothing quotable.
    if gone.iter().chain(&came).any(|l| l.contains("[REDACTED")) {
        return None;
    }
    let short = |ls: &[&str]| {
        ls.iter().all(|l| utf16_len(l) <= LINE_QUOTE_MAX)
            && ls.iter().map(|l| utf16_len(l)).sum::<usize>() <= LINES_QUOTE_MAX
    };
    let quoted = |ls: &[&str]| {
        ls.iter()
            .map(|l| code(l, LINE_QUOTE_MAX))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (gone.len(), came.len()) {
        // A long line: the piece it gained or lost, when that is all that changed.
        (1, 1) if !short(&came) => inserted(gone[0], came[0]),
        (0, 1..=2) if short(&came) => Some(format!("added {}", quoted(&came))),
        (1..=2, 0) if short(&gone) => Some(format!("removed {}", quoted(&gone))),
        // Several lines became one: the one, shortened at a word if it must be.
        (1.., 1) => Some(format!("now {}", quoted(&came))),
        (1.., 0) if now.len() == 1 && short(&now) => Some(format!("now {}", quoted(&now))),
        _ => None,
    }
}

/// What a long line gained or lost, when it only gained or lost one piece
/// (`….toMap(OrderLine::sku, OrderLine::quantity, Long::sum));` → `added `Long::sum``).
fn inserted(old: &str, new: &str) -> Option<String> {
    let prefix = old
        .char_indices()
        .zip(new.chars())
        .find(|((_, a), b)| a != b)
        .map_or(old.len().min(new.len()), |((i, _), _)| i);
    let suffix = old[prefix..]
        .chars()
        .rev()
        .zip(new[prefix..].chars().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum::<usize>();
    let (gone, came) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let (verb, piece) = match (gone.is_empty(), came.is_empty()) {
        (true, false) => ("added", came),
        (false, true) => ("removed", gone),
        _ => return None,
    };
    // Cut between tokens only: a piece that starts or ends inside a word is no piece. What
    // follows the piece is what `old` has after the common suffix begins (for a removal,
    // `old[prefix..]` starts with the piece itself).
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let (left, right) = (
        old[..prefix].chars().last(),
        old[old.len() - suffix..].chars().next(),
    );
    if (word(left) && word(piece.chars().next())) || (word(right) && word(piece.chars().last())) {
        return None;
    }
    let piece = piece.trim_matches(|c: char| c == ',' || c.is_whitespace());
    (!piece.is_empty() && utf16_len(piece) <= 40).then(|| format!("{verb} {}", code(piece, 40)))
}

/// The key of the one line the edits changed in a config file (`timeoutSeconds: 1` →
/// `timeoutSeconds: 5`, `pool_size = 5`, `"retries": 3`), when every edit changed that line.
fn config_key(path: &str, edits: &[&FileEdit]) -> Option<String> {
    const CONFIG: &[&str] = &[
        ".yaml",
        ".yml",
        ".toml",
        ".json",
        ".ini",
        ".env",
        ".properties",
        ".conf",
        ".cfg",
    ];
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let config = CONFIG.iter().any(|e| name.ends_with(e)) || name.starts_with(".env");
    let key_of = |line: &str| -> Option<String> {
        let l = line.trim().trim_start_matches("- ").trim_start();
        // A module attribute (`@backoff_factor 1.2` in Elixir) is code's own setting.
        if let Some(attr) = l.strip_prefix('@') {
            let name = attr.split_whitespace().next()?;
            let ok = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            return (ok && attr.len() > name.len()).then(|| format!("@{name}"));
        }
        if !config {
            return None;
        }
        // `client_max_body_size 25m;`: nginx and its kin name a setting by its first word.
        let at = l.find([':', '=']).or_else(|| {
            l.ends_with(';')
                .then(|| l.find(char::is_whitespace))
                .flatten()
        })?;
        let key = l[..at].trim().trim_matches(['"', '\'']);
        let ok = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        ok.then(|| key.to_string())
    };
    let mut found: Option<String> = None;
    for e in edits {
        let (gone, came) = changed_lines(e);
        let [a] = gone.as_slice() else { return None };
        let [b] = came.as_slice() else { return None };
        let key = key_of(a).filter(|k| key_of(b).as_ref() == Some(k))?;
        match &found {
            Some(f) if *f != key => return None,
            _ => found = Some(key),
        }
    }
    found
}

/// Groups unclaimed edit events by file, in first-seen order.
pub(crate) fn group_edits<'a>(
    events: &'a [Event],
    take: &dyn Fn(usize) -> bool,
) -> Vec<(String, Vec<&'a Event>)> {
    let mut groups: Vec<(String, Vec<&Event>)> = Vec::new();
    for e in events {
        let Kind::Edit(edit) = &e.kind else { continue };
        if e.failed || !take(e.idx) {
            continue;
        }
        match groups.iter_mut().find(|(p, _)| *p == edit.path) {
            Some((_, list)) => list.push(e),
            None => groups.push((edit.path.clone(), vec![e])),
        }
    }
    groups
}

pub(crate) fn edit_of(e: &Event) -> Option<&FileEdit> {
    match &e.kind {
        Kind::Edit(edit) => Some(edit),
        _ => None,
    }
}

pub(crate) fn edits(input: &TurnInput, claims: &mut Claims) -> Vec<Draft> {
    let groups = group_edits(input.events, &|i| claims.is_free(i));
    let refactor = REFACTOR.is_match(input.prompt);
    let changes: Vec<(FileChange, Vec<&Event>)> = groups
        .into_iter()
        .map(|(_, events)| {
            let file_edits: Vec<&FileEdit> = events.iter().filter_map(|e| edit_of(e)).collect();
            (file_change(&file_edits, input.parse_budget), events)
        })
        .collect();
    let mut out = Vec::new();
    let mut swept: Vec<bool> = vec![false; changes.len()];
    for (i, (change, _)) in changes.iter().enumerate() {
        let Some(key) = sweep_key(change).filter(|_| !swept[i]) else {
            continue;
        };
        let same: Vec<usize> = (i..changes.len())
            .filter(|&j| !swept[j] && sweep_key(&changes[j].0).as_ref() == Some(&key))
            .collect();
        if same.len() < 2 {
            continue;
        }
        for &j in &same {
            swept[j] = true;
        }
        let members: Vec<&(FileChange, Vec<&Event>)> = same.iter().map(|&j| &changes[j]).collect();
        out.push(sweep(input, claims, &members, refactor));
    }
    for ((change, events), swept) in changes.into_iter().zip(swept) {
        if swept {
            continue;
        }
        let path = change.path.clone();
        let mut d = if change.created {
            let lines = plural(change.lines_total.unwrap_or(change.added), "line", "lines");
            // Fewer symbols before none: a list is never cut open inside its parentheses.
            let forms = if change.symbols.is_empty() {
                Titles::new().form(format!("Created {path} ({lines})"))
            } else {
                Titles::new()
                    .over([40, 16], |n| {
                        format!("Created {path} ({})", fit_list(&change.symbols, n))
                    })
                    .form(format!("Created {path}"))
            };
            Draft::new(ObsType::Feature, forms.fit())
                .subtitle(format!(
                    "Created {path} with {}",
                    plural(change.lines_total.unwrap_or(change.added), "line", "lines")
                ))
                .concepts(&["what-changed"])
        } else {
            let kind = if refactor {
                ObsType::Refactor
            } else {
                ObsType::Change
            };
            let verb = if refactor { "Refactored" } else { "Changed" };
            let title = fitting_title(change_titles(&change, verb));
            Draft::new(kind, title)
                .subtitle(format!(
                    "Edited {}: {} added, {} removed",
                    change.what(60),
                    plural(change.added, "line", "lines"),
                    change.removed
                ))
                .concepts(if refactor {
                    &["what-changed", "pattern"]
                } else {
                    &["what-changed"]
                })
        };
        d.role = Role::Work;
        d.fact(change.fact());
        if let Some((old, new)) = &change.quote {
            d.fact(format!("{} became {}", code(old, 60), code(new, 60)));
        }
        d.modified(&path);
        for e in &events {
            d.tool(e.idx);
            claims.take(e.idx);
        }
        claim_reads_of(input.events, claims, &mut d, |p| p == path);
        let narrative = format!("{}.{}", change.fact(), asked(input.prompt));
        out.push(d.narrative(narrative));
    }
    out
}

/// Reads of an edited file in the same turn were part of making the change: the draft stands
/// for them too.
pub(crate) fn claim_reads_of(
    events: &[Event],
    claims: &mut Claims,
    d: &mut Draft,
    edited: impl Fn(&str) -> bool,
) {
    for e in events {
        if let Kind::Read {
            path, error: None, ..
        } = &e.kind
            && edited(path)
            && claims.is_free(e.idx)
        {
            d.read(path);
            d.tool(e.idx);
            claims.take(e.idx);
        }
    }
}

/// What makes edits of several files one change: the same small thing replaced (a literal, a
/// name, an operator) or the same short lines added or removed, in files that existed.
fn sweep_key(change: &FileChange) -> Option<String> {
    if change.created {
        return None;
    }
    change.phrase()
}

/// How many places `old` was replaced in a file: occurrences as a whole token before the
/// edits less those left after, when the whole file is known; else one per edit.
fn sites(change: &FileChange, events: &[&Event]) -> usize {
    let Some((old, _)) = &change.quote else {
        return change.edits;
    };
    let edits: Vec<&FileEdit> = events.iter().filter_map(|e| edit_of(e)).collect();
    match (
        edits.first().and_then(|e| e.before.as_deref()),
        edits.last().and_then(|e| e.after.as_deref()),
    ) {
        (Some(before), Some(after)) => {
            let gone = crate::text::whole_occurrences(before, old)
                .saturating_sub(crate::text::whole_occurrences(after, old));
            gone.max(change.edits)
        }
        _ => change.edits,
    }
}

/// One observation for the same change applied across files: a sweep or a rename names the
/// change, how many files and sites, and the first files (all of them in the facts and
/// `files_modified`).
fn sweep(
    input: &TurnInput,
    claims: &mut Claims,
    members: &[&(FileChange, Vec<&Event>)],
    refactor: bool,
) -> Draft {
    let first = &members[0].0;
    let paths: Vec<String> = members.iter().map(|(c, _)| c.path.clone()).collect();
    let files = plural(paths.len(), "file", "files");
    let sites: usize = members.iter().map(|(c, evs)| sites(c, evs)).sum();
    let counted = if sites > paths.len() {
        format!("{files}, {sites} sites")
    } else {
        files.clone()
    };
    // A name starts with a letter or `_` (`18 → 22` in `.nvmrc` and a Dockerfile is a bump).
    let renamed = first.quote.as_ref().is_some_and(|(old, new)| {
        let name = |s: &str| {
            s.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        };
        name(old) && name(new)
    });
    let phrase = first.phrase().unwrap_or_default();
    let what = if renamed {
        format!("Renamed {phrase}")
    } else {
        phrase.clone()
    };
    let forms = Titles::new().over([60, 40, 24, 0], |n| {
        if n == 0 {
            format!("{what} in {counted}")
        } else {
            format!("{what} in {counted}: {}", fit_list(&paths, n))
        }
    });
    let kind = if refactor || renamed {
        ObsType::Refactor
    } else {
        ObsType::Change
    };
    let added: usize = members.iter().map(|(c, _)| c.added).sum();
    let removed: usize = members.iter().map(|(c, _)| c.removed).sum();
    let mut d = Draft::new(kind, forms.fit())
        .subtitle(format!(
            "{phrase} in {counted}: {} ({} added, {removed} removed)",
            fit_list(&paths, 120),
            plural(added, "line", "lines")
        ))
        .concepts(if refactor || renamed {
            &["what-changed", "pattern"]
        } else {
            &["what-changed"]
        })
        .role(Role::Work);
    d.fact(format!("{phrase} in {counted}: {}", paths.join(", ")));
    for (change, events) in members {
        d.fact(change.fact());
        d.modified(&change.path);
        for e in events {
            d.tool(e.idx);
            claims.take(e.idx);
        }
        claim_reads_of(input.events, claims, &mut d, |p| p == change.path);
    }
    let narrative = format!(
        "{phrase} in {counted}: {}.{}",
        paths.join(", "),
        asked(input.prompt)
    );
    d.narrative(narrative)
}

/// One discovery for the files read and the look-around commands of a turn.
pub(crate) fn reads(input: &TurnInput, claims: &mut Claims) -> Vec<Draft> {
    let edited = edited_paths(input.events);
    let mut read_ok: Vec<String> = Vec::new();
    let mut first_defines: Option<Vec<String>> = None;
    let mut first_lines: Option<u64> = None;
    let mut read_failed: Vec<(String, String)> = Vec::new();
    let mut looked: Vec<(String, Option<String>)> = Vec::new();
    let mut facts: Vec<String> = Vec::new();
    let mut tools = Vec::new();
    let mut bytes_to_parse = READ_PARSE_BUDGET;
    for e in input.events {
        if !claims.is_free(e.idx) {
            continue;
        }
        match &e.kind {
            Kind::Read {
                path,
                content,
                lines,
                error,
            } => {
                if edited.contains(&path.as_str()) && error.is_none() {
                    continue;
                }
                tools.push(e.idx);
                if let Some(err) = error {
                    let why = first_line(err, 100).unwrap_or_else(|| "failed".into());
                    if !read_failed.iter().any(|(p, _)| p == path) {
                        read_failed.push((path.clone(), why));
                    }
                    continue;
                }
                if read_ok.contains(path) {
                    continue;
                }
                read_ok.push(path.clone());
                let lines = lines.or_else(|| content.as_ref().map(|c| c.lines().count() as u64));
                let cost = content
                    .as_deref()
                    .map_or(0, |c| c.len().min(symbols::MAX_DEFINED_BYTES));
                let defines = match content.as_deref() {
                    Some(c) if cost <= bytes_to_parse => {
                        bytes_to_parse -= cost;
                        symbols::defined(path, c, input.parse_budget)
                    }
                    _ => Vec::new(),
                };
                let mut f = match lines {
                    Some(n) => format!("{path}: {}", plural(n as usize, "line", "lines")),
                    None => path.clone(),
                };
                if !defines.is_empty() {
                    f.push_str(&format!("; defines {}", fit_list(&defines, 200)));
                }
                if read_ok.len() == 1 {
                    first_defines = Some(defines);
                    first_lines = lines;
                }
                facts.push(f);
            }
            Kind::Shell(sh) if outcome::classify(&sh.command) == CommandClass::Inspect => {
                tools.push(e.idx);
                let result = if sh.ok {
                    outcome::result_line(&sh.output).or(sh.interpretation.clone())
                } else {
                    outcome::error_line(&sh.output).map(|l| format!("failed: {l}"))
                };
                let shown = outcome::show_command(&sh.command, 60);
                if !looked.iter().any(|(c, _)| *c == shown) {
                    facts.push(match &result {
                        Some(r) => format!("`{shown}`: {r}"),
                        None => format!("`{shown}` printed nothing"),
                    });
                    looked.push((shown, result));
                }
            }
            _ => {}
        }
    }
    if tools.is_empty() {
        return Vec::new();
    }
    for (path, why) in &read_failed {
        facts.push(format!("{path} could not be read: {why}"));
    }
    let commands: Vec<String> = looked.iter().map(|(c, _)| format!("`{c}`")).collect();
    let title = if read_ok.len() == 1 {
        let path = &read_ok[0];
        match (first_defines.filter(|d| !d.is_empty()), first_lines) {
            (Some(defs), _) => format!("Read {path}: defines {}", fit_list(&defs, 60)),
            (None, Some(n)) => format!("Read {path} ({})", plural(n as usize, "line", "lines")),
            (None, None) => format!("Read {path}"),
        }
    } else if !read_ok.is_empty() {
        format!("Read {}", fit_list(&read_ok, 70))
    } else if let Some((path, why)) = read_failed.first() {
        if why.contains("does not exist") || why.contains("No such file") {
            format!("{path} does not exist")
        } else {
            format!("Could not read {path}: {why}")
        }
    } else if looked.len() == 1 {
        match &looked[0].1 {
            Some(r) => format!("`{}`: {r}", looked[0].0),
            None => format!("Ran `{}`", looked[0].0),
        }
    } else {
        format!("Looked around with {}", fit_list(&commands, 60))
    };
    let title = match read_failed.first() {
        Some((path, why)) if !read_ok.is_empty() => {
            let missing = why.contains("does not exist") || why.contains("No such file");
            let with = format!(
                "{title}; {path} {}",
                if missing {
                    "does not exist"
                } else {
                    "unreadable"
                }
            );
            if crate::text::columns(&with) <= super::super::draft::TITLE_MAX {
                with
            } else {
                title
            }
        }
        _ => title,
    };
    let mut subtitle_parts = Vec::new();
    if !read_ok.is_empty() {
        subtitle_parts.push(format!("read {}", plural(read_ok.len(), "file", "files")));
    }
    if !read_failed.is_empty() {
        subtitle_parts.push(format!(
            "{} could not be read",
            plural(read_failed.len(), "file", "files")
        ));
    }
    if !looked.is_empty() {
        subtitle_parts.push(format!(
            "ran {}",
            plural(looked.len(), "look-around command", "look-around commands")
        ));
    }
    let subtitle = capitalize(&subtitle_parts.join(", "));
    let mut d = Draft::new(ObsType::Discovery, title)
        .role(Role::LookAround)
        .subtitle(&subtitle)
        .concepts(&["how-it-works"]);
    for f in facts {
        d.fact(f);
    }
    for p in &read_ok {
        d.read(p);
    }
    for i in tools {
        d.tool(i);
        claims.take(i);
    }
    let narrative = format!(
        "{}: {}.{}",
        subtitle,
        one_line(&d.facts.join("; ")),
        asked(input.prompt)
    );
    vec![d.narrative(narrative)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> FileEdit {
        FileEdit {
            path: "internal/billing/invoice.go".into(),
            old_snippet: old.into(),
            new_snippet: new.into(),
            ..Default::default()
        }
    }

    #[test]
    fn an_import_added_for_a_change_does_not_hide_it() {
        let import = edit(
            "import (\n\t\"encoding/json\"",
            "import (\n\t\"context\"\n\t\"encoding/json\"",
        );
        let signature = edit(
            "func (c *Client) FetchInvoice(id string) (*Invoice, error) {",
            "func (c *Client) FetchInvoice(ctx context.Context, id string) (*Invoice, error) {",
        );
        assert!(only_imports(&import));
        assert!(!only_imports(&signature));
        assert_eq!(
            literal_of(&[&import, &signature]),
            Some((
                "FetchInvoice(id string)".to_string(),
                "FetchInvoice(ctx context.Context, id string)".to_string()
            ))
        );
        let other = edit("x := 1", "x := 2");
        assert_eq!(
            literal_of(&[&other, &signature]),
            None,
            "two changes of their own"
        );
    }

    #[test]
    fn one_or_two_short_lines_are_quoted() {
        let added = edit(
            "    |> validate_format(:email, ~r/@/)\n",
            "    |> validate_format(:email, ~r/@/)\n    |> unique_constraint(:email)\n",
        );
        assert_eq!(
            lines_of(&[&added]).as_deref(),
            Some("added `|> unique_constraint(:email)`")
        );
        let removed = edit("a()\n// why\nb()\nc()", "a()");
        assert_eq!(
            lines_of(&[&removed]).as_deref(),
            Some("removed `b()`, `c()`")
        );
        // A branch taken out around the line that stays.
        let unwrapped = edit(
            "    if flag?\n      render :one_page\n    else\n      render :show_v2\n    end",
            "    render :show_v2",
        );
        assert_eq!(
            lines_of(&[&unwrapped]).as_deref(),
            Some("now `render :show_v2`")
        );
        // Several lines for one.
        let union = edit(
            "enum S {\n  A = \"a\",\n  B = \"b\",\n}",
            "type S = \"a\" | \"b\";",
        );
        assert_eq!(
            lines_of(&[&union]).as_deref(),
            Some("now `type S = \"a\" | \"b\";`")
        );
        // A line that only lost its comma is the same line; a comment is no change.
        let secret = edit(
            "  \"Key\": \"pk\",\n  \"Secret\": \"sk\"",
            "  // the secret comes from the environment\n  \"Key\": \"pk\"",
        );
        assert_eq!(
            lines_of(&[&secret]).as_deref(),
            Some("removed `\"Secret\": \"sk\"`")
        );
        let long = edit("", &"x".repeat(LINE_QUOTE_MAX + 1));
        assert_eq!(lines_of(&[&long]), None, "too long to quote");
        let matches = edit(
            "    match state {\n        JobState::Done | JobState::Failed(_) | JobState::Cancelled => true,\n        _ => false,\n    }",
            "    matches!(state, JobState::Done | JobState::Failed(_) | JobState::Cancelled | JobState::Skipped)",
        );
        assert_eq!(
            lines_of(&[&matches]).as_deref(),
            Some("now `matches!(state, JobState::Done | JobState::Failed(_) | \u{2026}`"),
            "several lines for one: the one, shortened between words"
        );
        let long = ".collect(Collectors.toMap(OrderLine::sku, OrderLine::quantity, Stock::max));";
        let longer = ".collect(Collectors.toMap(OrderLine::sku, OrderLine::quantity, Stock::max, Long::sum));";
        assert_eq!(
            lines_of(&[&edit(long, longer)]).as_deref(),
            Some("added `Long::sum`")
        );
        assert_eq!(
            lines_of(&[&edit(longer, long)]).as_deref(),
            Some("removed `Long::sum`")
        );
        // A whole token taken out from between punctuation is a piece too.
        let call =
            ".collect(Collectors.toMap(OrderLine::sku, OrderLine::quantity, merged(Long::sum)));";
        assert_eq!(
            lines_of(&[&edit(call, &call.replace("(Long::sum)", "()"))]).as_deref(),
            Some("removed `Long::sum`")
        );
        let renamed = longer.replace("sum", "min");
        assert_eq!(
            lines_of(&[&edit(longer, &renamed)]),
            None,
            "a change, not a piece"
        );
        // A long line taken out under an untouched one: the untouched line is not the change.
        let context = edit(&format!("a()\n{}", "b(1); ".repeat(14)), "a()");
        assert_eq!(lines_of(&[&context]), None, "a kept line is no `now`");
        // A rewrite of thousands of lines is no phrase (read with sets, not line against line:
        // the hook waits on it; its cost is measured by `scripts/bench.py stop`, not here).
        let big = |tag: &str| {
            (0..30_000)
                .map(|i| format!("{tag}({i});"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let rewrite = edit(&big("old"), &big("new"));
        assert_eq!(lines_of(&[&rewrite]), None);
        let three = edit("", "a()\nb()\nc()");
        assert_eq!(
            lines_of(&[&three]),
            None,
            "three lines are a diff, not a phrase"
        );
    }
}

#[cfg(test)]
mod config_keys {
    use super::*;

    fn edit(path: &str, old: &str, new: &str) -> FileEdit {
        FileEdit {
            path: path.into(),
            old_snippet: old.into(),
            new_snippet: new.into(),
            ..FileEdit::default()
        }
    }

    #[test]
    fn a_setting_given_a_new_value_beside_other_edits_leads_the_title() {
        let size = edit("src/pool.py", "POOL_SIZE = 5", "POOL_SIZE = 20");
        let branch = edit(
            "src/pool.py",
            "    conn = pool.get()\n    rows = conn.run(sql)\n    pool.put(conn)",
            "    conn = pool.get()\n    try:\n        rows = conn.run(sql)\n    finally:\n        pool.put(conn)",
        );
        let settings = Settings::of(&[&size, &branch]).beside();
        assert_eq!(
            settings,
            vec![("POOL_SIZE".to_string(), "5 \u{2192} 20".to_string())]
        );
        let change = FileChange {
            path: "src/pool.py".into(),
            symbols: vec!["POOL_SIZE".into(), "run_query".into()],
            added: 5,
            removed: 4,
            edits: 2,
            settings,
            ..FileChange::default()
        };
        assert_eq!(
            change_titles(&change, "Changed")
                .first()
                .map(String::as_str),
            Some("src/pool.py: POOL_SIZE 5 \u{2192} 20; changed run_query (+5 \u{2212}4)")
        );
        // A file name too long for any row leaves the change itself to say.
        let long = FileChange {
            path: format!("config/{}settings.py", "order_service_pool_".repeat(6)),
            symbols: vec!["POOL_SIZE".into()],
            added: 1,
            removed: 1,
            edits: 1,
            quote: Some(("5".into(), "20".into())),
            ..FileChange::default()
        };
        assert_eq!(
            crate::observe::draft::fitting_title(change_titles(&long, "Changed")),
            "POOL_SIZE: 5 \u{2192} 20"
        );
        // A value outside the basic plane, beside a Chinese comment's edit, is cut on its bounds.
        let label = edit(
            "a.py",
            "LABEL = \"\u{20bb7}\"",
            "LABEL = \"\u{20bb7}\u{20bb7}\"",
        );
        let note = edit(
            "a.py",
            "# \u{65e7}\u{6ce8}\u{91ca}",
            "# \u{65b0}\u{6ce8}\u{91ca}\nrun()",
        );
        assert_eq!(
            Settings::of(&[&label, &note]).beside(),
            vec![(
                "LABEL".to_string(),
                "\"\u{20bb7}\" \u{2192} \"\u{20bb7}\u{20bb7}\"".to_string()
            )]
        );
        // Only settings: `Settings::only`'s; no setting at all: nothing beside.
        assert_eq!(Settings::of(&[&size]).beside(), Vec::new());
        assert_eq!(Settings::of(&[&branch]).beside(), Vec::new());
    }

    #[test]
    fn two_or_three_settings_given_new_values_name_themselves() {
        let pool = edit(
            "src/db/session.py",
            "POOL_SIZE = 10\nMAX_OVERFLOW = 5\nECHO = False",
            "POOL_SIZE = 30\nMAX_OVERFLOW = 20\nECHO = False",
        );
        assert_eq!(
            Settings::of(&[&pool]).only().as_deref(),
            Some("POOL_SIZE 10 \u{2192} 30, MAX_OVERFLOW 5 \u{2192} 20")
        );
        let rust = edit(
            "src/sync/retry.rs",
            "const BASE_DELAY_MS: u64 = 100;\nconst MAX_RETRIES: u32 = 3;",
            "const BASE_DELAY_MS: u64 = 1000;\nconst MAX_RETRIES: u32 = 5;",
        );
        assert_eq!(
            Settings::of(&[&rust]).only().as_deref(),
            Some("BASE_DELAY_MS 100 \u{2192} 1000, MAX_RETRIES 3 \u{2192} 5")
        );
        // One setting is `literal_of`'s; a line that is no setting, or a renamed key, is code.
        let one = edit("a.py", "A = 1\nB = 2", "A = 3\nB = 2");
        let code = edit("a.py", "A = 1\nrun(a)", "A = 3\nrun(b)");
        let renamed = edit("a.py", "A = 1\nB = 2", "A = 3\nC = 4");
        let compared = edit(
            "a.rs",
            "if count == 3 {\nif retries == 5 {",
            "if count == 4 {\nif retries == 6 {",
        );
        let paths = edit(
            "a.rs",
            "tokio::time::sleep(a(100));\nstd::thread::sleep(b(1));",
            "tokio::time::sleep(a(500));\nstd::thread::sleep(b(2));",
        );
        let urls = edit(
            "a.yaml",
            "- https://api.x/v1/orders\n- https://api.x/v1/users",
            "- https://api.x/v2/orders\n- https://api.x/v2/users",
        );
        for e in [one, code, renamed, compared, paths, urls] {
            assert_eq!(Settings::of(&[&e]).only(), None, "{e:?}");
        }
    }

    #[test]
    fn a_config_value_is_named_by_its_own_key() {
        let e = edit(
            "deploy/app.yaml",
            "        livenessProbe:\n          timeoutSeconds: 1",
            "        livenessProbe:\n          timeoutSeconds: 5",
        );
        assert_eq!(
            config_key(&e.path, &[&e]).as_deref(),
            Some("timeoutSeconds")
        );
        let toml = edit("Cargo.toml", "pool_size = 5", "pool_size = 8");
        assert_eq!(
            config_key(&toml.path, &[&toml]).as_deref(),
            Some("pool_size")
        );
        let nginx = edit(
            "deploy/nginx/docs.conf",
            "    client_max_body_size 1m;",
            "    client_max_body_size 25m;",
        );
        assert_eq!(
            config_key(&nginx.path, &[&nginx]).as_deref(),
            Some("client_max_body_size")
        );
        let attr = edit(
            "lib/courier/retry.ex",
            "  @backoff_factor 1.2",
            "  @backoff_factor 2.0",
        );
        assert_eq!(
            config_key(&attr.path, &[&attr]).as_deref(),
            Some("@backoff_factor")
        );
        let code = edit("src/a.rs", "let x: u32 = 1;", "let x: u32 = 2;");
        assert_eq!(config_key(&code.path, &[&code]), None, "only config files");
        let two = edit("a.yml", "a: 1\nb: 2", "a: 3\nb: 4");
        assert_eq!(
            config_key(&two.path, &[&two]),
            None,
            "one line changed, not two"
        );
    }
}
