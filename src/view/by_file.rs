//! The per-file index (claude-mem v12's layout, which it still uses for a directory's
//! `CLAUDE.md`): one Markdown table per file, `ID | Time | T | Title | Tokens`, files with the
//! most recent work first, rows newest first, `~N` the tokens it costs to read a row's details,
//! and one token-economics line for the whole. It holds no render time, so writing it twice
//! gives the same bytes (`cmem claude-md` relies on that).

use std::collections::BTreeMap;

use super::doc::{Block, BlockKind, Doc, Line, Role};
use super::index::{Economics, MAX_TITLE};
use super::time::{Tz, thousands};
use crate::model::Observation;
use crate::model::mode::Mode;
use crate::text::{clip, one_line};

/// The group of observations that touch no file (whole-project tables only).
pub(crate) const GENERAL: &str = "General";

pub(crate) struct ByFileInput<'a> {
    pub project: &'a str,
    /// The directory the table is about, relative to the project root (`""`: the whole project).
    pub dir: &'a str,
    /// The project root, to show absolute paths under it relative to it.
    pub root: &'a str,
    pub tz: &'a Tz,
    pub mode: &'a Mode,
    /// Newest first.
    pub observations: &'a [Observation],
}

/// A stored path as the table shows it: relative to the project root when it lies under it.
pub(crate) fn relative(path: &str, root: &str) -> String {
    let root = root.trim_end_matches('/');
    let p = if !root.is_empty() {
        path.strip_prefix(root)
            .and_then(|r| r.strip_prefix('/'))
            .unwrap_or(path)
    } else {
        path
    };
    p.trim_start_matches("./").to_string()
}

fn under(path: &str, dir: &str) -> bool {
    dir.is_empty() || path.starts_with(&format!("{}/", dir.trim_end_matches('/')))
}

fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

/// The files of an observation under `dir`, each once, in the order it lists them.
fn files_of(o: &Observation, dir: &str, root: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in o.files_modified.iter().chain(&o.files_read) {
        let rel = relative(f, root);
        if !rel.is_empty() && under(&rel, dir) && !out.contains(&rel) {
            out.push(rel);
        }
    }
    out
}

pub(crate) fn render(input: &ByFileInput) -> Doc {
    let mut doc = Doc::default();
    let title = if input.dir.is_empty() {
        format!("[{}] memory by file", one_line(input.project))
    } else {
        format!(
            "[{}] memory by file: {}/",
            one_line(input.project),
            input.dir.trim_end_matches('/')
        )
    };
    let mut header = Block::new(BlockKind::Header)
        .line(Line::new().push(title, Role::Heading(1)))
        .line(Line::new().push("Mode: ", Role::Label).push(
            format!("{} ({})", input.mode.name, input.mode.id),
            Role::Text,
        ));
    // Group: path → row indexes, remembering each group's newest row (the input is newest first).
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut shown: Vec<usize> = Vec::new();
    for (i, o) in input.observations.iter().enumerate() {
        let files = files_of(o, input.dir, input.root);
        if files.is_empty() {
            if !input.dir.is_empty() {
                continue;
            }
            groups.entry(GENERAL.to_string()).or_default().push(i);
        }
        for f in files {
            groups.entry(f).or_default().push(i);
        }
        shown.push(i);
    }
    if shown.is_empty() {
        doc.push(header.line(Line::blank()));
        let what = if input.dir.is_empty() {
            "this project".to_string()
        } else {
            format!("files under {}/", input.dir.trim_end_matches('/'))
        };
        doc.push(
            Block::new(BlockKind::Other).line(Line::text(format!("No memory of {what} yet."))),
        );
        return doc;
    }
    let used: Vec<Observation> = shown
        .iter()
        .map(|&i| input.observations[i].clone())
        .collect();
    let e = Economics::of(&used);
    let mut stats = format!(
        "{} obs ({}t read) | {}t work",
        thousands(e.count as i64),
        thousands(e.read),
        thousands(e.work)
    );
    if e.work > 0 {
        stats.push_str(&format!(" | {}% savings", e.savings_percent()));
    }
    header = header
        .line(
            Line::new()
                .push("Stats: ", Role::Label)
                .push(stats, Role::Number),
        )
        .line(super::index::fetch_line());
    doc.push(header);

    let mut order: Vec<(&String, &Vec<usize>)> = groups.iter().collect();
    // Most recent work first (the smallest index is the newest row); General last.
    order.sort_by_key(|(path, rows)| (path.as_str() == GENERAL, rows[0], path.to_string()));
    for (path, rows) in order {
        let mut block = Block::new(BlockKind::Other)
            .line(Line::blank())
            .line(Line::new().push(path.as_str(), Role::Strong))
            .line(Line::new().push("| ID | Time | T | Title | Tokens |", Role::Muted))
            .line(Line::new().push("|----|------|---|-------|--------|", Role::Muted));
        for &i in rows {
            let o = &input.observations[i];
            let title = o.title.as_deref().map(cell).unwrap_or_default();
            let title = clip(
                if title.is_empty() { "Untitled" } else { &title },
                MAX_TITLE,
            );
            block = block.line(
                Line::new()
                    .push("| ", Role::Muted)
                    .push(format!("#{}", o.id), Role::Id)
                    .push(" | ", Role::Muted)
                    .push(input.tz.month_day_time(o.created_at), Role::Time)
                    .push(" | ", Role::Muted)
                    .push(
                        input.mode.symbol(&o.obs_type).to_string(),
                        Role::TypeSymbol(crate::model::ObsType::parse(&o.obs_type)),
                    )
                    .push(" | ", Role::Muted)
                    .push(title, Role::Title)
                    .push(" | ", Role::Muted)
                    .push(format!("~{}", thousands(o.read_tokens())), Role::Number)
                    .push(" |", Role::Muted),
            );
        }
        doc.push(block);
    }
    doc
}

/// The per-file index of `dir` (relative to the project root; `""`: the whole project) from the
/// store, at most `limit` observations, filtered like the session-start index.
pub(crate) fn load(
    conn: Option<&rusqlite::Connection>,
    keys: &crate::project::ProjectKeys,
    dir: &str,
    settings: &crate::config::ContextSettings,
    limit: usize,
) -> anyhow::Result<String> {
    let tz = Tz::from_setting(&settings.timezone)?;
    let mode = super::context::active_mode(settings);
    let dir = dir.trim_matches('/');
    let root = keys
        .root
        .to_string_lossy()
        .trim_end_matches('/')
        .to_string();
    let prefixes: Vec<String> = if dir.is_empty() {
        Vec::new()
    } else {
        let mut p = vec![format!("{dir}/"), format!("./{dir}/")];
        if !root.is_empty() {
            p.push(format!("{root}/{dir}/"));
        }
        p
    };
    let obs = match conn {
        Some(conn) => crate::store::observations::filtered(
            conn,
            &keys.all,
            limit,
            &settings.types,
            &settings.concepts,
            &prefixes,
        )?,
        None => Vec::new(),
    };
    let input = ByFileInput {
        project: &keys.primary,
        dir,
        root: &root,
        tz: &tz,
        mode: &mode,
        observations: &obs,
    };
    Ok(render(&input).to_plain())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_and_prefixes() {
        assert_eq!(
            relative("/home/me/app/src/a.rs", "/home/me/app"),
            "src/a.rs"
        );
        assert_eq!(relative("./src/a.rs", "/home/me/app"), "src/a.rs");
        assert_eq!(
            relative("/elsewhere/a.rs", "/home/me/app"),
            "/elsewhere/a.rs"
        );
        assert!(under("src/db/pool.rs", "src/db"));
        assert!(!under("src/dbx/pool.rs", "src/db"));
        assert!(under("anything", ""));
        assert_eq!(cell("a | b\nc"), "a \\| b c");
    }
}
