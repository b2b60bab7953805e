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

use std::fmt;
use std::io::{self, ErrorKind, Write};

/// For the `println!`s of every CLI command: std panics when stdout is gone ("failed printing
/// to stdout: Broken pipe"); that panic, and only that one, becomes a quiet exit.
pub(crate) fn quiet_on_closed_stdout() {
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

/// Standard output for what a command writes with `?` (an export): a write that fails because
/// the reader is gone comes back marked, so `is_closed_stdout` can tell it from any other
/// broken pipe.
pub(crate) struct Stdout<W = io::StdoutLock<'static>>(W);

pub(crate) fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(mark)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(mark)
    }
}

fn mark(error: io::Error) -> io::Error {
    if error.kind() == ErrorKind::BrokenPipe {
        io::Error::new(
            ErrorKind::BrokenPipe,
            Marked {
                error,
                mark: ClosedStdout,
            },
        )
    } else {
        error
    }
}

/// The reader of standard output stopped reading.
#[derive(Debug)]
struct ClosedStdout;

impl fmt::Display for ClosedStdout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the reader of standard output stopped reading")
    }
}

impl std::error::Error for ClosedStdout {}

/// A failed write to standard output: shows as the error it was, and names `ClosedStdout` as
/// its source, because wrappers (an `io::Error` itself, serde_json's error) pass on only
/// `source()`, never the error they hold.
#[derive(Debug)]
struct Marked {
    error: io::Error,
    mark: ClosedStdout,
}

impl fmt::Display for Marked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Marked {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.mark)
    }
}

/// Whether `e` is a write to standard output that failed because its reader stopped reading:
/// not a failure, the command ends quietly. A broken pipe from anything else (the sync
/// server's socket, a child's stdin) is an error like any other.
pub(crate) fn is_closed_stdout(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<ClosedStdout>())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that is gone, as a pipe whose reading end was closed.
    struct Gone;

    impl Write for Gone {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from_raw_os_error(libc::EPIPE))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_to_a_closed_stdout_is_told_from_a_broken_socket() {
        let mut out = Stdout(Gone);
        let e = anyhow::Error::from(writeln!(out, "row").unwrap_err()).context("export");
        assert!(is_closed_stdout(&e));
        // Shown as the error it was.
        assert!(
            format!("{e:#}").starts_with(&format!(
                "export: {}",
                io::Error::from_raw_os_error(libc::EPIPE)
            )),
            "{e:#}"
        );
        // Through serde_json's error too.
        let json = serde_json::to_writer(Stdout(Gone), &[1, 2]).unwrap_err();
        assert!(is_closed_stdout(&anyhow::Error::from(json)));

        // A socket whose peer went away (the sync server crashed): EPIPE, but not stdout.
        let (mut ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        drop(theirs);
        let epipe = ours.write_all(b"query").unwrap_err();
        assert_eq!(epipe.kind(), ErrorKind::BrokenPipe);
        let e = anyhow::Error::from(epipe).context("cannot pull from the sync server");
        assert!(!is_closed_stdout(&e));
        assert!(!is_closed_stdout(&anyhow::Error::from(io::Error::from(
            ErrorKind::BrokenPipe
        ))));
    }
}
