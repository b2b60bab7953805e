//! `cmem export --format markdown --keep`: keeps one project's memory current in a Claude Code
//! auto-memory folder (`~/.claude/projects/<project>/memory/`), next to what Claude writes
//! there itself. cmem owns only its section of MEMORY.md (between `<cmem-context>` markers,
//! sized so the whole file stays within Claude Code's 200 lines / 25 KB) and its `cmem-*.md`
//! topic files (listed in `.cmem-files`, so a topic that went away is removed and nothing else
//! ever is). The SessionEnd hook refreshes every kept folder in the background.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::claude_md::{END, START, splice};
use super::jsonfile::write_atomic;
use crate::view::memory_md::{self, INDEX_MAX_BYTES, INDEX_MAX_LINES, Layout};

/// cmem's topic files start with this.
pub(crate) const PREFIX: &str = "cmem-";
/// The names of the files cmem wrote last time.
pub(crate) const MANIFEST: &str = ".cmem-files";
const NOTE: &str = "<!-- Kept current by cmem (`cmem export --format markdown --keep`); edits between these markers are replaced. -->";

/// Claude Code's auto-memory folder of the project at `root`:
/// `<claude config dir>/projects/<root with '/' and '.' as '-'>/memory`.
pub(crate) fn default_folder(root: &Path) -> PathBuf {
    let name: String = root
        .to_string_lossy()
        .chars()
        .map(|c| if c == '/' || c == '.' { '-' } else { c })
        .collect();
    crate::paths::claude_config_dir()
        .join("projects")
        .join(name)
        .join("memory")
}

/// What a refresh did, for the command's one-line report.
pub(crate) struct Kept {
    pub topics: usize,
    pub removed: usize,
    pub changed: usize,
}

/// Writes cmem's part of the folder for these rows (newest first).
pub(crate) fn write(
    folder: &Path,
    project: &str,
    observations: &[crate::model::Observation],
    summaries: &[crate::model::Summary],
    tz: &crate::view::time::Tz,
) -> Result<Kept> {
    std::fs::create_dir_all(folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let index_file = folder.join("MEMORY.md");
    let existing = match std::fs::read_to_string(&index_file) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", index_file.display())),
    };
    // What is not cmem's: the whole file, or the file without cmem's section.
    let others =
        existing
            .as_deref()
            .map_or(String::new(), |t| match (t.find(START), t.find(END)) {
                (Some(s), Some(e)) if e > s => format!("{}{}", &t[..s], &t[e + END.len()..]),
                _ => t.to_string(),
            });
    // The section's markers, note and separating blank line take 4 lines and ~200 bytes.
    let layout = Layout {
        prefix: PREFIX.into(),
        max_lines: INDEX_MAX_LINES
            .saturating_sub(others.lines().count() + 4)
            .max(4),
        max_bytes: INDEX_MAX_BYTES
            .saturating_sub(others.len() + NOTE.len() + 64)
            .max(512),
    };
    let files = memory_md::render_with(project, observations, summaries, tz, &layout);
    let mut changed = 0;
    let mut written = Vec::new();
    for f in &files {
        if f.name == "MEMORY.md" {
            let section = format!("{START}\n{NOTE}\n{}{END}", f.text);
            let new = splice(existing.as_deref(), &section)
                .with_context(|| index_file.display().to_string())?;
            if existing.as_deref() != Some(new.as_str()) {
                write_atomic(&index_file, &new)?;
                changed += 1;
            }
            continue;
        }
        let path = folder.join(&f.name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(f.text.as_str()) {
            write_atomic(&path, &f.text)?;
            changed += 1;
        }
        written.push(f.name.clone());
    }
    let manifest = folder.join(MANIFEST);
    let before = std::fs::read_to_string(&manifest).unwrap_or_default();
    let mut removed = 0;
    for old in before.lines().map(str::trim) {
        // Only a plain `cmem-*.md` name cmem wrote itself: never a path, never another file.
        let ours = old.starts_with(PREFIX) && old.ends_with(".md") && !old.contains(['/', '\\']);
        if ours && !written.iter().any(|w| w == old) && folder.join(old).is_file() {
            std::fs::remove_file(folder.join(old))
                .with_context(|| format!("cannot remove {}", folder.join(old).display()))?;
            removed += 1;
        }
    }
    let list = written.join("\n") + "\n";
    if before != list {
        write_atomic(&manifest, &list)?;
    }
    Ok(Kept {
        topics: written.len(),
        removed,
        changed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_folder_follows_claude_codes_naming() {
        let f = default_folder(Path::new("/home/me/my.app"));
        assert!(
            f.ends_with("projects/-home-me-my-app/memory"),
            "{}",
            f.display()
        );
    }
}
