//! A scrubbed text as a fingerprint: enough to find it again, not to read it back.
//!
//! `cmem scrub` on one device must reach rows it never saw: another device's row that was not
//! synced yet, or a revision pushed by a device that had not heard of the scrub. So a scrub
//! travels to every device as an operation each re-applies — but the operation must not carry
//! the secret it removes. It carries a salted SHA-256 of the text and its length in bytes; a
//! device finds the text by hashing every window of that length. Hashing every window of a
//! whole database with SHA-256 is slow, so a 32-bit polynomial hash with a random base (a
//! Rabin-Karp fingerprint) picks the few windows worth hashing; 32 bits of a salted hash say
//! nothing useful about a secret long enough to need scrubbing.

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// The Mersenne prime 2^61 − 1: products of two residues fit in 128 bits.
const P: u64 = (1 << 61) - 1;

fn mul(a: u64, b: u64) -> u64 {
    let x = (a as u128) * (b as u128);
    let r = ((x >> 61) as u64) + ((x as u64) & P);
    if r >= P { r - P } else { r }
}

fn add(a: u64, b: u64) -> u64 {
    let r = a + b;
    if r >= P { r - P } else { r }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    salt: [u8; 16],
    base: u64,
    rolling: u32,
    digest: [u8; 32],
    len: usize,
}

fn rolling_hash(base: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0, |h, b| add(mul(h, base), u64::from(*b) + 1))
}

fn salted(salt: &[u8; 16], bytes: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(salt);
    h.update(bytes);
    h.finalize().into()
}

/// Bytes as lower-case hex (digests in fingerprints, sync documents and hashes).
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

impl Fingerprint {
    /// A new fingerprint of `secret`, with a fresh salt and base.
    pub(crate) fn of(secret: &str) -> Result<Fingerprint> {
        if secret.is_empty() {
            bail!("nothing to fingerprint");
        }
        let mut salt = [0u8; 16];
        let mut base = [0u8; 8];
        getrandom::fill(&mut salt)
            .and_then(|()| getrandom::fill(&mut base))
            .map_err(|e| anyhow::anyhow!("no random salt for the scrub: {e}"))?;
        // A base of 0 or 1 would make the polynomial blind to order.
        let base = u64::from_le_bytes(base) % (P - 2) + 2;
        let bytes = secret.as_bytes();
        Ok(Fingerprint {
            salt,
            base,
            rolling: rolling_hash(base, bytes) as u32,
            digest: salted(&salt, bytes),
            len: bytes.len(),
        })
    }

    /// Where the text occurs in `text` (byte offsets, not overlapping).
    pub(crate) fn find(&self, text: &[u8]) -> Vec<usize> {
        let n = self.len;
        let mut out = Vec::new();
        if n == 0 || text.len() < n {
            return out;
        }
        // base^(n-1): the weight of the byte leaving the window.
        let mut top = 1;
        for _ in 1..n {
            top = mul(top, self.base);
        }
        let mut h = rolling_hash(self.base, &text[..n]);
        let mut i = 0;
        let mut next_free = 0;
        loop {
            if i >= next_free
                && h as u32 == self.rolling
                && salted(&self.salt, &text[i..i + n]) == self.digest
            {
                out.push(i);
                next_free = i + n;
            }
            if i + n >= text.len() {
                return out;
            }
            let leaving = mul(u64::from(text[i]) + 1, top);
            h = add(
                mul(add(h, P - leaving), self.base),
                u64::from(text[i + n]) + 1,
            );
            i += 1;
        }
    }

    /// `text` with every occurrence replaced; `None` when there is none.
    pub(crate) fn replace(&self, text: &str, with: &str) -> Option<String> {
        let found = self.find(text.as_bytes());
        if found.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut from = 0;
        for start in found {
            // A valid UTF-8 text found in valid UTF-8 starts and ends on character boundaries;
            // checked anyway rather than trusted.
            let (Some(before), Some(_)) =
                (text.get(from..start), text.get(start..start + self.len))
            else {
                continue;
            };
            out.push_str(before);
            out.push_str(with);
            from = start + self.len;
        }
        out.push_str(text.get(from..).unwrap_or_default());
        Some(out)
    }

    /// As stored and sent: `fp1:salt:base:rolling:digest:len`.
    pub(crate) fn encode(&self) -> String {
        format!(
            "fp1:{}:{:x}:{:x}:{}:{}",
            hex(&self.salt),
            self.base,
            self.rolling,
            hex(&self.digest),
            self.len
        )
    }

    pub(crate) fn decode(text: &str) -> Result<Fingerprint> {
        let parts: Vec<&str> = text.split(':').collect();
        let parsed = match parts.as_slice() {
            ["fp1", salt, base, rolling, digest, len] => (|| {
                Some(Fingerprint {
                    salt: unhex(salt)?,
                    base: u64::from_str_radix(base, 16).ok().filter(|b| *b < P)?,
                    rolling: u32::from_str_radix(rolling, 16).ok()?,
                    digest: unhex(digest)?,
                    len: len.parse().ok().filter(|l| *l > 0)?,
                })
            })(),
            _ => None,
        };
        parsed.with_context(|| format!("not a scrub fingerprint: {text:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_replaces_every_occurrence_and_nothing_else() {
        let fp = Fingerprint::of("hunter2-capybara").unwrap();
        let text = "pw hunter2-capybara, again hunter2-capybara; not hunter2-capybar";
        assert_eq!(
            fp.replace(text, "[SCRUBBED]").as_deref(),
            Some("pw [SCRUBBED], again [SCRUBBED]; not hunter2-capybar")
        );
        assert_eq!(fp.replace("nothing here", "x"), None);
        assert_eq!(fp.replace("", "x"), None);
    }

    #[test]
    fn chinese_and_characters_outside_the_bmp_and_edges() {
        let fp = Fingerprint::of("密码𠮷42").unwrap();
        assert_eq!(
            fp.replace("密码𠮷42开头 和 结尾密码𠮷42", "▢").as_deref(),
            Some("▢开头 和 结尾▢")
        );
        let whole = Fingerprint::of("abc").unwrap();
        assert_eq!(whole.replace("abc", "x").as_deref(), Some("x"));
        assert_eq!(whole.replace("aabcabcc", "x").as_deref(), Some("axxc"));
    }

    #[test]
    fn survives_encoding_and_does_not_hold_the_text() {
        let fp = Fingerprint::of("sk-live-0123456789").unwrap();
        let text = fp.encode();
        assert!(!text.contains("sk-live"));
        let back = Fingerprint::decode(&text).unwrap();
        assert_eq!(back, fp);
        assert_eq!(
            back.replace("key=sk-live-0123456789", "*").as_deref(),
            Some("key=*")
        );
        for bad in ["", "fp1:zz", "fp2:00:1:1:00:1", &text.replace(":18", ":0")] {
            assert!(Fingerprint::decode(bad).is_err(), "{bad}");
        }
        // Two fingerprints of one text differ (fresh salt and base).
        assert_ne!(
            Fingerprint::of("same").unwrap(),
            Fingerprint::of("same").unwrap()
        );
    }
}
