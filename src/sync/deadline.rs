//! A bound on every round trip to the server. The server-side timeouts (src/sync/conn.rs) end
//! what the server is waiting on; a server that is frozen, or a network that stops carrying
//! packets after the connection is made, answers nothing at all, and the client library has
//! no per-query timeout. A watchdog thread ends the process then, as `kill -9` would, which
//! sync survives at any point (each batch commits locally with its cursor).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long one round trip (a batch pushed, a batch pulled, a check) may take by default.
pub(crate) const ROUND_TRIP: Duration = Duration::from_secs(20);

pub(crate) struct Watchdog {
    armed: Arc<Mutex<Option<(Instant, String)>>>,
}

impl Watchdog {
    /// `CMEM_SYNC_DEADLINE` (seconds) overrides the limit.
    pub(crate) fn start() -> Watchdog {
        let limit = std::env::var("CMEM_SYNC_DEADLINE")
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| *s > 0.0 && s.is_finite())
            .map_or(ROUND_TRIP, Duration::from_secs_f64);
        let armed: Arc<Mutex<Option<(Instant, String)>>> = Arc::new(Mutex::new(None));
        let watched = Arc::clone(&armed);
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(100));
                let late = match watched.lock() {
                    Ok(g) => g
                        .as_ref()
                        .filter(|(since, _)| since.elapsed() > limit)
                        .map(|(_, what)| what.clone()),
                    Err(_) => None,
                };
                if let Some(what) = late {
                    let message = format!(
                        "the sync server did not answer {what} within {} s: it is stalled or the network stopped carrying packets; nothing is lost, run `cmem sync` again when it answers",
                        limit.as_secs_f32()
                    );
                    crate::logging::warn(format!("sync: {message}"));
                    eprintln!("cmem: {message}");
                    std::process::exit(1);
                }
            }
        });
        Watchdog { armed }
    }

    /// Runs one round trip under the deadline.
    pub(crate) fn within<T>(&self, what: &str, f: impl FnOnce() -> T) -> T {
        if let Ok(mut g) = self.armed.lock() {
            *g = Some((Instant::now(), what.to_string()));
        }
        let out = f();
        if let Ok(mut g) = self.armed.lock() {
            *g = None;
        }
        out
    }
}
