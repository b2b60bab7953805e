//! The hook's one answer and its hard deadline, kept without a thread: a one-shot `SIGALRM`
//! (`signals::DEADLINE`; the store holds it back with `signals::defer` while it locks the spool).
//!
//! Whatever hangs (a stdin that never closes, a slow disk, a write still waiting for a lock),
//! the signal handler spools the capture being written, logs why, prints the event's no-op and
//! exits 0. A watchdog thread did the same, but starting it and running glibc's allocator in
//! its multi-threaded mode cost every hook about 0.3 ms. (A thread blocked in the kernel on a
//! dead disk or NFS mount cannot take a signal; the busy handler's own deadline covers the
//! common case, a lock held by another process.)
//!
//! The handler may interrupt anything, so it only makes async-signal-safe calls: atomics,
//! `open`/`flock`/`fstat`/`write`/`close`/`nanosleep`, and `_exit`. Everything it writes is
//! prepared before the timer can fire (`Targets`) or by the main thread (`set_pending`).

use std::ffi::{CStr, CString};
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::time::Duration;

use crate::logging::{self, Level};
use crate::signals;
use crate::store::spool;

static ANSWERED: AtomicBool = AtomicBool::new(false);
/// Set once the handler has granted the main thread its grace period.
static GRACE_GIVEN: AtomicBool = AtomicBool::new(false);
static NOOP: OnceLock<&'static str> = OnceLock::new();
static TARGETS: OnceLock<Targets> = OnceLock::new();
/// The spool line of the capture being written (a leaked `Box<Vec<u8>>`), or null.
static PENDING: AtomicPtr<Vec<u8>> = AtomicPtr::new(std::ptr::null_mut());

/// How long a main thread that is already printing its answer gets before the process exits.
const GRACE: Duration = Duration::from_millis(100);
/// How long (in 1 ms tries) the handler waits for another process's lock on the spool: the
/// answer must still come before 2 s.
const SPOOL_LOCK_TRIES: u32 = 30;

/// Where the handler writes: the data dir, the spool and the log, as C strings.
struct Targets {
    data_dir: CString,
    spool: CString,
    log_dir: CString,
    log: CString,
}

/// Installs the handler and starts the timer. `noop` is printed when the deadline is reached.
pub(crate) fn arm(after: Duration, noop: &'static str) {
    let _ = NOOP.set(noop);
    // SAFETY: a zeroed `sigaction` is a valid "no flags, empty mask" value; the handler is an
    // `extern "C" fn(c_int)` that only makes async-signal-safe calls.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_deadline as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signals::DEADLINE, &action, std::ptr::null_mut());
    }
    start_timer(after);
}

fn start_timer(after: Duration) {
    let value = libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: libc::timeval {
            tv_sec: after.as_secs() as libc::time_t,
            tv_usec: after.subsec_micros().max(1) as libc::suseconds_t,
        },
    };
    // SAFETY: plain system call on a valid `itimerval`.
    unsafe {
        libc::setitimer(libc::ITIMER_REAL, &value, std::ptr::null_mut());
    }
}

/// Tells the handler where to spool and log (the log's component is `logging`'s). Until then
/// it only answers.
pub(crate) fn set_targets(data_dir: &Path) {
    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).ok();
    let log_file = logging::log_file(data_dir);
    let (Some(data), Some(spool), Some(log_dir), Some(log)) = (
        c(data_dir),
        c(&crate::paths::spool_path(data_dir)),
        c(log_file.parent().unwrap_or(data_dir)),
        c(&log_file),
    ) else {
        return; // a path with a NUL byte: the handler answers without spooling or logging
    };
    let _ = TARGETS.set(Targets {
        data_dir: data,
        spool,
        log_dir,
        log,
    });
}

/// Prints the hook's one answer; later calls (and the deadline) are ignored.
pub(crate) fn answer(json: &str) {
    if ANSWERED.swap(true, Ordering::SeqCst) {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(json.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

pub(crate) fn answer_noop() {
    answer(NOOP.get().copied().unwrap_or("{}"));
}

/// The spool line the handler writes if the deadline comes while this capture is written.
pub(crate) fn set_pending(line: Vec<u8>) {
    replace_pending(Box::into_raw(Box::new(line)));
}

/// The write finished (or failed and is handled by the caller): nothing for the handler to do.
pub(crate) fn clear_pending() {
    replace_pending(std::ptr::null_mut());
}

fn replace_pending(new: *mut Vec<u8>) {
    let old = PENDING.swap(new, Ordering::SeqCst);
    if !old.is_null() {
        // SAFETY: every non-null value in PENDING came from `Box::into_raw` in `set_pending`
        // and is taken out exactly once (by a swap).
        drop(unsafe { Box::from_raw(old) });
    }
}

extern "C" fn on_deadline(_signal: libc::c_int) {
    if ANSWERED.swap(true, Ordering::SeqCst) {
        // The main thread is printing its answer: let it finish, but not forever.
        if !GRACE_GIVEN.swap(true, Ordering::SeqCst) {
            start_timer(GRACE);
            return;
        }
        // SAFETY: `_exit` is async-signal-safe.
        unsafe { libc::_exit(0) }
    }
    spool_log_answer_exit(Level::Warn, "hook deadline reached");
}

/// Also answers for a hook that crashes: a stack overflow or an abort in a grammar's C code
/// would otherwise end the hook with a signal and no answer. The handler runs on a stack of its
/// own (the overflowed one has no room left), logs, spools what was being written, answers
/// no-op and exits 0; what caused it is handled by the next run (the observer's quarantine).
pub(crate) fn guard_fatal_signals() {
    const ALT_STACK_BYTES: usize = 64 * 1024;
    let stack: &'static mut [u8] = Box::leak(vec![0u8; ALT_STACK_BYTES].into_boxed_slice());
    // SAFETY: the alternate stack is leaked, so it lives as long as the process; a zeroed
    // `sigaction` is a valid "no flags, empty mask" value and the handler only makes
    // async-signal-safe calls.
    unsafe {
        let alt = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: stack.len(),
        };
        libc::sigaltstack(&alt, std::ptr::null_mut());
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_fatal as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_ONSTACK | libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        for signal in [
            libc::SIGSEGV,
            libc::SIGBUS,
            libc::SIGABRT,
            libc::SIGILL,
            libc::SIGFPE,
        ] {
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

extern "C" fn on_fatal(signal: libc::c_int) {
    if ANSWERED.swap(true, Ordering::SeqCst) {
        // SAFETY: `_exit` is async-signal-safe.
        unsafe { libc::_exit(0) }
    }
    let what = match signal {
        libc::SIGSEGV | libc::SIGBUS => {
            "hook crashed (a stack overflow or memory fault, signal SIGSEGV/SIGBUS)"
        }
        libc::SIGABRT => "hook crashed (an abort, signal SIGABRT)",
        _ => "hook crashed (signal SIGILL/SIGFPE)",
    };
    spool_log_answer_exit(Level::Error, what);
}

/// The end of a hook interrupted by a signal: spools the capture being written (if any), logs
/// `why`, prints the event's no-op and exits 0. Async-signal-safe calls only.
fn spool_log_answer_exit(level: Level, why: &str) -> ! {
    let pending = PENDING.swap(std::ptr::null_mut(), Ordering::SeqCst);
    if let Some(targets) = TARGETS.get() {
        if pending.is_null() {
            log(targets, level, &[why, "; answering no-op"]);
        } else {
            // SAFETY: a non-null PENDING is a live leaked Box; the main thread can no longer
            // take it (the swap above did), and the process exits before anyone frees it.
            let line = unsafe { &*pending };
            match append_to_spool(targets, line) {
                Ok(()) => log(targets, level, &[why, " while writing", super::SPOOLED]),
                Err(lost) => log(
                    targets,
                    Level::Error,
                    &[why, " while writing", super::LOST, lost],
                ),
            }
        }
    }
    let noop = NOOP.get().copied().unwrap_or("{}");
    write_all(1, noop.as_bytes());
    write_all(1, b"\n");
    // SAFETY: `_exit` is async-signal-safe; nothing needs flushing (stdout was never written).
    unsafe { libc::_exit(0) }
}

fn write_all(fd: libc::c_int, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a live slice.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return false;
        }
        bytes = &bytes[n as usize..];
    }
    true
}

fn open_append(path: &CStr) -> libc::c_int {
    // SAFETY: `path` is NUL-terminated.
    unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        )
    }
}

/// `spool::append` in async-signal-safe calls: the same lock, size cap and line.
fn append_to_spool(targets: &Targets, line: &[u8]) -> Result<(), &'static str> {
    // SAFETY: NUL-terminated path; an existing directory is fine.
    unsafe { libc::mkdir(targets.data_dir.as_ptr(), 0o755) };
    let fd = open_append(&targets.spool);
    if fd < 0 {
        return Err("cannot open the spool");
    }
    let result = (|| {
        let mut tries = 0;
        // SAFETY (all calls below): `fd` is open; the structs are valid and on our stack.
        while unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            tries += 1;
            if tries == SPOOL_LOCK_TRIES {
                return Err("the spool stayed locked by another process");
            }
            let pause = libc::timespec {
                tv_sec: 0,
                tv_nsec: 1_000_000,
            };
            unsafe { libc::nanosleep(&pause, std::ptr::null_mut()) };
        }
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        let len = if unsafe { libc::fstat(fd, &mut stat) } == 0 {
            stat.st_size as u64
        } else {
            0
        };
        if len + line.len() as u64 > spool::MAX_SPOOL_BYTES {
            return Err(
                "the spool is full; the database has been unreachable for long: run `cmem doctor`",
            );
        }
        if !write_all(fd, line) {
            return Err("cannot write the spool");
        }
        Ok(())
    })();
    // SAFETY: closing our own descriptor (this also releases the lock).
    unsafe { libc::close(fd) };
    result
}

/// One log line through `logging::write_entry`, built in a stack buffer (long ones are cut).
fn log(targets: &Targets, level: Level, message: &[&str]) {
    if !logging::enabled(level) {
        return;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let mut line = StackLine::default();
    let _ = logging::write_entry(&mut line, now, level, message);
    line.end_line();
    // SAFETY: NUL-terminated paths; existing directories are fine.
    unsafe {
        libc::mkdir(targets.data_dir.as_ptr(), 0o755);
        libc::mkdir(targets.log_dir.as_ptr(), 0o755);
    }
    let fd = open_append(&targets.log);
    if fd >= 0 {
        write_all(fd, line.bytes());
        // SAFETY: our own descriptor.
        unsafe { libc::close(fd) };
    }
}

/// A fixed buffer that `write!` fills without allocating; what does not fit is dropped.
struct StackLine {
    buf: [u8; 512],
    len: usize,
}

impl Default for StackLine {
    fn default() -> Self {
        StackLine {
            buf: [0; 512],
            len: 0,
        }
    }
}

impl StackLine {
    fn end_line(&mut self) {
        let at = self.len.min(self.buf.len() - 1);
        self.buf[at] = b'\n';
        self.len = at + 1;
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl std::fmt::Write for StackLine {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        // Keep one byte for the newline.
        let room = (self.buf.len() - 1).saturating_sub(self.len);
        let take = s.len().min(room);
        self.buf[self.len..self.len + take].copy_from_slice(&s.as_bytes()[..take]);
        self.len += take;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;

    #[test]
    fn stack_line_cuts_long_text_and_always_ends_with_a_newline() {
        let mut line = StackLine::default();
        write!(line, "{}", "x".repeat(2000)).unwrap();
        line.end_line();
        assert_eq!(line.bytes().len(), 512);
        assert_eq!(line.bytes().last(), Some(&b'\n'));

        let mut short = StackLine::default();
        write!(short, "a {}", 1).unwrap();
        short.end_line();
        assert_eq!(short.bytes(), b"a 1\n");
    }
}
