//! A bounded connection pool: `acquire` waits up to `PoolConfig::wait`, `release` hands the
//! connection to the longest waiter first.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct PoolConfig {
    pub max_size: usize,
    pub wait: Duration,
    pub idle_timeout: Duration,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig { max_size: 16, wait: Duration::from_secs(2), idle_timeout: Duration::from_secs(300) }
    }
}

pub struct Pool<C> {
    config: PoolConfig,
    idle: Mutex<VecDeque<(C, Instant)>>,
    in_use: Mutex<usize>,
    freed: Condvar,
}

impl<C> Pool<C> {
    pub fn new(config: PoolConfig) -> Arc<Self> {
        Arc::new(Pool { config, idle: Mutex::new(VecDeque::new()), in_use: Mutex::new(0), freed: Condvar::new() })
    }

    /// Takes an idle connection or opens one; `None` when the pool stays full for `wait`.
    pub fn acquire(&self, open: impl Fn() -> C) -> Option<C> {
        let deadline = Instant::now() + self.config.wait;
        let mut in_use = self.in_use.lock().ok()?;
        loop {
            if let Some((conn, since)) = self.idle.lock().ok()?.pop_front() {
                if since.elapsed() < self.config.idle_timeout {
                    *in_use += 1;
                    return Some(conn);
                }
                continue; // too old: drop it and look again
            }
            if *in_use < self.config.max_size {
                *in_use += 1;
                return Some(open());
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            in_use = self.freed.wait_timeout(in_use, left).ok()?.0;
        }
    }

    pub fn release(&self, conn: C) {
        if let (Ok(mut idle), Ok(mut in_use)) = (self.idle.lock(), self.in_use.lock()) {
            idle.push_back((conn, Instant::now()));
            *in_use = in_use.saturating_sub(1);
        }
        self.freed.notify_one();
    }
}
