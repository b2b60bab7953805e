//! The process's deadline signal and the guard that holds it back. Core, so the store can
//! protect its spool lock without knowing which face arms the deadline (the hook does, in
//! `hook::deadline`).

/// The signal a one-shot deadline timer delivers (`setitimer(ITIMER_REAL)`).
pub(crate) const DEADLINE: libc::c_int = libc::SIGALRM;

/// Holds the deadline signal back while alive. A section that holds the spool's lock takes
/// one first (so it is dropped last): the deadline's handler takes that lock too, and a lock
/// held by the code it interrupted would never be released.
pub(crate) struct Deferred {
    old: libc::sigset_t,
}

pub(crate) fn defer() -> Deferred {
    // SAFETY: the sets are initialised by sigemptyset before use; blocking a signal in this
    // thread is always allowed.
    unsafe {
        let mut alarm: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut alarm);
        libc::sigaddset(&mut alarm, DEADLINE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &alarm, &mut old);
        Deferred { old }
    }
}

impl Drop for Deferred {
    fn drop(&mut self) {
        // SAFETY: restores the mask saved by `defer`; a signal that came meanwhile is delivered
        // now.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut());
        }
    }
}
