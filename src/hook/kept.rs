//! SessionEnd: refresh the auto-memory folder `cmem export --format markdown --keep` keeps for
//! this project, in a detached process (the hook never waits for it).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::config::Settings;
use crate::logging;
use std::os::unix::process::CommandExt;

pub(crate) fn refresh(cwd: &Path, settings: &Settings) {
    let data_dir = settings.data_dir();
    // One small file read, only at session end; no file means nothing is kept.
    if !crate::store::kept::path(&data_dir).exists() {
        return;
    }
    let keys = crate::project::resolve(cwd);
    let Some(folder) = crate::store::kept::folder_for(&data_dir, &keys.primary) else {
        return;
    };
    let spawned = std::env::current_exe().and_then(|exe| {
        Command::new(exe)
            .args(["export", "--format", "markdown", "--keep", "--out"])
            .arg(&folder)
            .current_dir(cwd)
            .env("CMEM_DATA_DIR", &data_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
    });
    match spawned {
        Ok(child) => logging::debug(format!(
            "refreshing {} (pid {})",
            folder.display(),
            child.id()
        )),
        Err(e) => logging::warn(format!(
            "cannot refresh the kept memory folder {}: {e}",
            folder.display()
        )),
    }
}
