//! Editing a user's JSON settings file without disturbing it: only the values that changed are
//! written (`jsonedit`), everything else keeps its bytes, writes are atomic (temp file + rename, permissions kept), and
//! `--dry-run` shows a unified diff. (What exactly goes back on uninstall, and the backup that
//! makes it possible, is `install`'s business.)

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;

/// How the original file was laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    /// `None`: one-line compact JSON.
    indent: Option<String>,
    trailing_newline: bool,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            indent: Some("  ".into()),
            trailing_newline: true,
        }
    }
}

pub(crate) struct JsonFile {
    pub path: PathBuf,
    /// The text as found (`None`: the file does not exist).
    pub original: Option<String>,
    /// The value as found; `value` is what it becomes.
    before: Value,
    pub value: Value,
    layout: Layout,
}

impl JsonFile {
    pub(crate) fn load(path: &Path) -> Result<JsonFile> {
        let original = match std::fs::read_to_string(path) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let (value, layout) = match &original {
            Some(text) if !text.trim().is_empty() => {
                let value: Value = serde_json::from_str(text).with_context(|| {
                    format!(
                        "{} is not valid JSON; fix it (cmem will not overwrite a file it cannot read)",
                        path.display()
                    )
                })?;
                if !value.is_object() {
                    bail!("{} does not hold a JSON object", path.display());
                }
                (value, detect_layout(text))
            }
            _ => (Value::Object(Default::default()), Layout::default()),
        };
        Ok(JsonFile {
            path: path.to_path_buf(),
            original,
            before: value.clone(),
            value,
            layout,
        })
    }

    /// The file's text as it would be written now: the text as found with only the changed
    /// values rewritten (a new or unreadable file is printed whole).
    pub(crate) fn render(&self) -> String {
        self.original
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .and_then(|text| {
                super::jsonedit::edit(
                    text,
                    &self.before,
                    &self.value,
                    self.layout.indent.as_deref(),
                )
            })
            .unwrap_or_else(|| render(&self.value, &self.layout))
    }

    pub(crate) fn changed(&self) -> bool {
        self.original.as_deref() != Some(self.render().as_str())
    }
}

/// Replaces `path` with `text` atomically (a temporary file beside it, then a rename), keeping
/// the old file's permissions; creates the directory if needed.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings.json".into());
    let tmp = dir.join(format!(".{name}.cmem-tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    std::fs::rename(&tmp, path).with_context(|| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot replace {}", path.display())
    })
}

pub(crate) fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".cmem-backup");
    path.with_file_name(name)
}

fn detect_layout(text: &str) -> Layout {
    let trailing_newline = text.ends_with('\n');
    let indent = text
        .lines()
        .skip(1)
        .find(|l| !l.trim().is_empty())
        .map(|l| {
            l.chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect::<String>()
        });
    let indent = match indent {
        Some(i) if !i.is_empty() => Some(i),
        // `{}` alone or one compact line.
        _ if text.trim().lines().count() <= 1 && text.trim().len() > 2 => None,
        _ => Some("  ".into()),
    };
    Layout {
        indent,
        trailing_newline,
    }
}

fn render(value: &Value, layout: &Layout) -> String {
    let mut out = match &layout.indent {
        Some(indent) => {
            let mut buf = Vec::new();
            let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
            let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
            let _ = value.serialize(&mut ser);
            String::from_utf8(buf).unwrap_or_default()
        }
        None => value.to_string(),
    };
    if layout.trailing_newline {
        out.push('\n');
    }
    out
}

/// A small line diff (common prefix/suffix trimmed, LCS in between) with 3 lines of context.
pub fn unified_diff(before: &str, after: &str, label: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    if a == b {
        return String::new();
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    // LCS table over the changed middle only.
    let mut lcs = vec![vec![0u32; mb.len() + 1]; ma.len() + 1];
    for i in (0..ma.len()).rev() {
        for j in (0..mb.len()).rev() {
            lcs[i][j] = if ma[i] == mb[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < ma.len() || j < mb.len() {
        if i < ma.len() && j < mb.len() && ma[i] == mb[j] {
            ops.push((' ', ma[i]));
            i += 1;
            j += 1;
        } else if j < mb.len() && (i == ma.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(('+', mb[j]));
            j += 1;
        } else {
            ops.push(('-', ma[i]));
            i += 1;
        }
    }
    let ctx = 3;
    let start = prefix.saturating_sub(ctx);
    let mut out = format!("--- {label}\n+++ {label} (after cmem)\n");
    let old_count = (prefix - start) + ma.len() + suffix.min(ctx);
    let new_count = (prefix - start) + mb.len() + suffix.min(ctx);
    out.push_str(&format!(
        "@@ -{},{old_count} +{},{new_count} @@\n",
        start + 1,
        start + 1
    ));
    for line in &a[start..prefix] {
        out.push_str(&format!(" {line}\n"));
    }
    for (op, line) in ops {
        out.push_str(&format!("{op}{line}\n"));
    }
    for line in a[a.len() - suffix..].iter().take(ctx) {
        out.push_str(&format!(" {line}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_layouts_byte_for_byte() {
        for text in [
            "{\n  \"a\": 1,\n  \"b\": [\n    \"x\"\n  ],\n  \"c\": {}\n}\n",
            "{\n    \"z\": true,\n    \"a\": null\n}",
            "{\n\t\"k\": \"v\"\n}\n",
            "{\"compact\":[1,2]}",
        ] {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("s.json");
            std::fs::write(&p, text).unwrap();
            let f = JsonFile::load(&p).unwrap();
            assert_eq!(f.render(), text);
            assert!(!f.changed());
        }
    }

    #[test]
    fn diff_shows_changes_with_context() {
        let d = unified_diff("{\n  \"a\": 1\n}\n", "{\n  \"a\": 1,\n  \"b\": 2\n}\n", "f");
        assert!(d.contains("-  \"a\": 1\n"), "{d}");
        assert!(d.contains("+  \"b\": 2\n"), "{d}");
        assert!(d.starts_with("--- f\n"), "{d}");
    }
}
