//! A person's command ends quietly when whoever reads its output stops reading
//! (`cmem outline big.rs | head`), as filters do.
//!
//! Why not simply restore SIGPIPE's default action: the signal is process-wide, not per file.
//! `cmem observe` writes a turn to the external observer's stdin, and a command that exits
//! without reading it would kill the worker with it instead of letting it fall back to the
//! rules; the TUI runs other programs too. So the signal stays ignored (Rust's default) and
//! only a write to *stdout* that fails with a broken pipe ends the process, with status 0 and
//! nothing on stderr. `cmem hook` and `cmem mcp` do not come here: a hook answers and exits 0
//! through its own panic handler, and the MCP server stops on a failed write of its own.

use std::io::{self, ErrorKind};

/// For the `println!`s of every CLI command: std panics when stdout is gone ("failed printing
/// to stdout: Broken pipe"); that panic, and only that one, becomes a quiet exit.
pub fn quiet_on_closed_stdout() {
    let closed = format!(
        "failed printing to stdout: {}",
        io::Error::from(ErrorKind::BrokenPipe)
    );
    let os_closed = format!(
        "failed printing to stdout: {}",
        io::Error::from_raw_os_error(libc::EPIPE)
    );
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = crate::logging::panic_text(info.payload());
        if message == closed || message == os_closed {
            std::process::exit(0);
        }
        previous(info);
    }));
}

/// For output written with `?` (an export to stdout): a broken pipe anywhere in the error's
/// chain is the reader having stopped, not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(ErrorKind::BrokenPipe))
    })
}
