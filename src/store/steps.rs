//! How long each step of a search took, for `cmem dev search-timing`: recorded only on a
//! thread that started a recording, so a search otherwise pays one thread-local check per step.
//! Its own module below both the lexical search and the vector scan, which mark their steps.

use std::cell::RefCell;
use std::time::{Duration, Instant};

type Recording = (Instant, Vec<(&'static str, Duration)>);

thread_local! {
    static STEPS: RefCell<Option<Recording>> = const { RefCell::new(None) };
}

/// Starts recording this thread's steps.
pub(crate) fn start() {
    STEPS.with(|s| *s.borrow_mut() = Some((Instant::now(), Vec::new())));
}

/// Ends the step `name`, begun at the previous mark (or the start).
pub(crate) fn mark(name: &'static str) {
    STEPS.with(|s| {
        if let Some((last, done)) = s.borrow_mut().as_mut() {
            let now = Instant::now();
            done.push((name, now - *last));
            *last = now;
        }
    });
}

/// Stops recording and gives the steps, in order.
pub(crate) fn take() -> Vec<(&'static str, Duration)> {
    STEPS.with(|s| s.borrow_mut().take().map(|r| r.1).unwrap_or_default())
}
