//! Starting a cmem process a hook does not wait for: this executable with `args`, the data dir
//! passed on, no standard streams, in a process group of its own so that the host killing the
//! hook's group does not kill it. It outlives the hook and is reparented when the hook exits.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

/// Starts `cmem <args>` detached for `data_dir`; its pid.
pub(crate) fn spawn(args: &[&str], data_dir: &Path) -> Result<u32> {
    let exe = std::env::current_exe().context("cannot find the cmem executable")?;
    let child = Command::new(exe)
        .args(args)
        .env("CMEM_DATA_DIR", data_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .with_context(|| format!("cannot start `cmem {}`", args.join(" ")))?;
    Ok(child.id())
}
