//! Process lifecycle of the MCP server: Claude Code stops stdio servers with SIGINT and never
//! closes stdin, so SIGINT/SIGTERM exit cleanly, and so does losing the parent process.

use std::os::raw::c_int;
use std::time::Duration;

const SIGINT: c_int = 2;
const SIGTERM: c_int = 15;

unsafe extern "C" {
    fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
    fn _exit(status: c_int) -> !;
}

/// Only async-signal-safe work here: every reply is flushed when written and SQLite's WAL is
/// durable at commit, so there is nothing left to save.
extern "C" fn exit_now(_signum: c_int) {
    unsafe { _exit(0) }
}

pub(crate) fn install_signal_handlers() {
    unsafe {
        signal(SIGINT, exit_now);
        signal(SIGTERM, exit_now);
    }
}

/// Exits when the process that started the server is gone (we were re-parented).
pub(crate) fn watch_parent() {
    let parent = std::os::unix::process::parent_id();
    if parent <= 1 {
        return;
    }
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_secs(2));
            if std::os::unix::process::parent_id() != parent {
                crate::logging::info("parent process is gone; exiting");
                std::process::exit(0);
            }
        }
    });
}
