//! The mem_search cursor store (claude-mem's cursor format and limits): opaque `ms_` + 24
//! base64url characters from a CSPRNG; state kept in memory under HMAC-SHA256(per-process
//! secret, domain + scope + cursor), so a cursor is useless in another process or for another
//! checkout. 15-minute TTL, at most 1,024 cursors and 8 MiB, oldest evicted first.

use std::collections::VecDeque;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

pub(crate) const TTL_MS: i64 = 15 * 60 * 1000;
pub(crate) const MAX_CURSORS: usize = 1024;
pub(crate) const MAX_BYTES: usize = 8 * 1024 * 1024;
const DOMAIN: &str = "cmem:mem-search:v2\0";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Never issued here, evicted, or issued for another scope.
    Unknown,
    Expired,
}

struct Entry<S> {
    key: String,
    scope: String,
    expires_at: i64,
    bytes: usize,
    state: S,
}

pub(crate) struct CursorStore<S> {
    secret: [u8; 32],
    entries: VecDeque<Entry<S>>,
    total_bytes: usize,
}

fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n =
            chunk.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Whether `text` has the shape of a cursor: `ms_` and 24 base64url characters.
pub(crate) fn is_cursor(text: &str) -> bool {
    text.len() == 27
        && text.starts_with("ms_")
        && text[3..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl<S> CursorStore<S> {
    /// A store with a fresh random secret.
    pub(crate) fn new() -> anyhow::Result<CursorStore<S>> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| anyhow::anyhow!("no system randomness: {e}"))?;
        Ok(CursorStore {
            secret,
            entries: VecDeque::new(),
            total_bytes: 0,
        })
    }

    #[allow(clippy::expect_used, reason = "HMAC-SHA256 takes a key of any length")]
    fn key(&self, scope: &str, cursor: &str) -> String {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.secret)
            .expect("HMAC takes any key length");
        mac.update(DOMAIN.as_bytes());
        mac.update(scope.as_bytes());
        mac.update(b"\0");
        mac.update(cursor.as_bytes());
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn purge_expired(&mut self, now: i64) {
        let before = self.entries.len();
        self.entries.retain(|e| e.expires_at > now);
        if self.entries.len() != before {
            self.total_bytes = self.entries.iter().map(|e| e.bytes).sum();
        }
    }

    /// Stores `state` (of about `bytes` bytes) and returns its new cursor. `None` when a single
    /// state is larger than the whole store.
    pub(crate) fn put(
        &mut self,
        scope: &str,
        state: S,
        bytes: usize,
        now: i64,
    ) -> anyhow::Result<Option<String>> {
        if bytes > MAX_BYTES {
            return Ok(None);
        }
        self.purge_expired(now);
        while self.entries.len() >= MAX_CURSORS || self.total_bytes + bytes > MAX_BYTES {
            match self.entries.pop_front() {
                Some(old) => self.total_bytes -= old.bytes,
                None => break,
            }
        }
        let mut random = [0u8; 18];
        getrandom::fill(&mut random).map_err(|e| anyhow::anyhow!("no system randomness: {e}"))?;
        let cursor = format!("ms_{}", base64url(&random));
        let key = self.key(scope, &cursor);
        self.entries.push_back(Entry {
            key,
            scope: scope.to_string(),
            expires_at: now + TTL_MS,
            bytes,
            state,
        });
        self.total_bytes += bytes;
        Ok(Some(cursor))
    }

    /// The state behind a cursor for this scope.
    pub(crate) fn get(&self, scope: &str, cursor: &str, now: i64) -> Result<&S, Lookup> {
        let key = self.key(scope, cursor);
        let entry = self
            .entries
            .iter()
            .find(|e| e.key == key)
            .ok_or(Lookup::Unknown)?;
        if entry.scope != scope {
            return Err(Lookup::Unknown);
        }
        if entry.expires_at <= now {
            return Err(Lookup::Expired);
        }
        Ok(&entry.state)
    }

    #[cfg(test)] // only the tests here ask
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_have_the_documented_shape_and_are_unique() {
        let mut s: CursorStore<u32> = CursorStore::new().unwrap();
        let a = s.put("scope", 1, 10, 0).unwrap().unwrap();
        let b = s.put("scope", 2, 10, 0).unwrap().unwrap();
        assert!(is_cursor(&a) && is_cursor(&b), "{a} {b}");
        assert_ne!(a, b);
        assert_eq!(*s.get("scope", &a, 1).unwrap(), 1);
        assert_eq!(base64url(&[0xff, 0xff, 0xff]), "____");
        assert_eq!(base64url(&[0, 0, 0]), "AAAA");
    }

    #[test]
    fn tampering_scope_ttl_and_eviction() {
        let mut s: CursorStore<u32> = CursorStore::new().unwrap();
        let c = s.put("mcp/a", 7, 10, 1_000).unwrap().unwrap();
        let mut tampered = c.clone().into_bytes();
        tampered[10] = if tampered[10] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(s.get("mcp/a", &tampered, 1_001), Err(Lookup::Unknown));
        assert_eq!(s.get("mcp/b", &c, 1_001), Err(Lookup::Unknown));
        assert_eq!(s.get("mcp/a", &c, 1_000 + TTL_MS), Err(Lookup::Expired));
        // Another process has another secret: the same cursor means nothing there.
        let other: CursorStore<u32> = CursorStore::new().unwrap();
        assert_eq!(other.get("mcp/a", &c, 1_001), Err(Lookup::Unknown));

        let mut s: CursorStore<u32> = CursorStore::new().unwrap();
        let first = s.put("x", 0, 1, 0).unwrap().unwrap();
        for i in 1..=MAX_CURSORS {
            s.put("x", i as u32, 1, 0).unwrap();
        }
        assert_eq!(s.len(), MAX_CURSORS);
        assert_eq!(
            s.get("x", &first, 1),
            Err(Lookup::Unknown),
            "the oldest is evicted"
        );
        let big = s.put("x", 9, MAX_BYTES / 2 + 1, 0).unwrap();
        assert!(big.is_some());
        assert!(s.put("x", 9, MAX_BYTES + 1, 0).unwrap().is_none());
    }
}
