//! Which auto-memory folders `cmem export --format markdown --keep` keeps current: a small JSON
//! file in the data dir, project key (lower case) → folder. The SessionEnd hook reads it (one
//! file read, only at session end) and refreshes the folder in the background.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub(crate) const FILE: &str = "kept-memory.json";

pub(crate) fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// Every kept folder; a missing or unreadable file is an empty registry.
pub(crate) fn load(data_dir: &Path) -> BTreeMap<String, PathBuf> {
    std::fs::read(path(data_dir))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// The folder kept for `project`, if any.
pub(crate) fn folder_for(data_dir: &Path, project: &str) -> Option<PathBuf> {
    load(data_dir).remove(&project.to_lowercase())
}

/// Records that `folder` is kept current for `project`.
pub(crate) fn register(data_dir: &Path, project: &str, folder: &Path) -> Result<()> {
    let mut all = load(data_dir);
    all.insert(project.to_lowercase(), folder.to_path_buf());
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create {}", data_dir.display()))?;
    let text = serde_json::to_string_pretty(&all)?;
    let file = path(data_dir);
    let tmp = data_dir.join(format!(".{FILE}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &file).with_context(|| format!("cannot replace {}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_and_find() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(folder_for(dir.path(), "App"), None);
        register(dir.path(), "App", Path::new("/m/app")).unwrap();
        register(dir.path(), "other", Path::new("/m/o")).unwrap();
        assert_eq!(folder_for(dir.path(), "app"), Some(PathBuf::from("/m/app")));
        assert_eq!(load(dir.path()).len(), 2);
    }
}
