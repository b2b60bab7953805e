//! The content hashes cmem stores to recognise the same record twice (claude-mem's columns
//! and recipe): SHA-256 over the record's parts, each followed by a NUL but the last, cut to
//! 16 hex characters.

use sha2::{Digest, Sha256};

/// The hash of `parts` (NUL-separated).
pub(crate) fn of_parts(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            h.update([0u8]);
        }
        h.update(part);
    }
    finish(h)
}

/// The stored form of a hash the caller fed itself (the hook streams JSON into it).
pub(crate) fn finish(h: Sha256) -> String {
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_nul_separated_and_cut_to_16_hex() {
        // Computed independently: sha256(b'Bash\0{"command":"ls"}\0')[:16] in Python.
        let parts: [&[u8]; 3] = [b"Bash", br#"{"command":"ls"}"#, b""];
        assert_eq!(of_parts(&parts), "4ee223773504b973");
        let mut h = Sha256::new();
        h.update(b"Bash\0{\"command\":\"ls\"}\0");
        assert_eq!(finish(h), "4ee223773504b973");
    }
}
