//! Two revisions of one row, merged field by field against the revision both were based on.
//!
//! Rows are insert-only but for scrubs, session ends and a few counters, so two devices change
//! the same row mostly when both scrub it. Whole documents with the last writer winning let a
//! stale revision bring a scrubbed secret back (device A scrubs S1, B scrubs S2 of the same
//! row before either syncs: B's push carried S1 again). Here:
//! - a field only one side changed takes that side;
//! - a text field both changed is merged by tokens: where this device's text holds one of its
//!   scrub replacements (`[SCRUBBED]`, or a `--replacement` it used) it wins, everywhere else
//!   the server's revision wins — it holds the other device's scrubs, whose replacement text
//!   this device need not know;
//! - any other field both changed takes this device's value (it is the later write).
//!
//! A tombstone is not merged at all: a forget always wins (src/sync/local.rs, mod.rs).

use std::collections::HashMap;

use serde_json::{Map, Value};

/// The hash of each field's value in a document, by the hash of its name: what a later merge
/// compares against. Every synced row keeps one, so it is small and quick to make: FNV-1a
/// (64 bits) of the field's JSON, written straight into the hash.
pub(crate) type FieldHashes = HashMap<u64, u64>;

/// FNV-1a, 64 bits: stable across Rust releases (unlike the standard library's hasher), which
/// stored hashes need.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::io::Write for Fnv {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn hash_key(k: &str) -> u64 {
    let mut h = Fnv::new();
    let _ = std::io::Write::write(&mut h, k.as_bytes());
    h.0
}

fn hash_value(v: &Value) -> u64 {
    let mut h = Fnv::new();
    // Writing into the hash cannot fail.
    let _ = serde_json::to_writer(&mut h, v);
    h.0
}

/// A document's field hashes as stored in `sync_map.fields`: (name hash, value hash) pairs,
/// 16 bytes a field.
pub(crate) fn field_hashes(doc: &Map<String, Value>) -> Vec<u8> {
    let mut out = Vec::with_capacity(doc.len() * 16);
    for (k, v) in doc {
        out.extend_from_slice(&hash_key(k).to_le_bytes());
        out.extend_from_slice(&hash_value(v).to_le_bytes());
    }
    out
}

/// `None` for a mapping made before fields were kept (every field then counts as changed on
/// both sides).
pub(crate) fn decode(stored: Option<&[u8]>) -> FieldHashes {
    let Some(bytes) = stored.filter(|b| b.len() % 16 == 0) else {
        return FieldHashes::new();
    };
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
    bytes
        .chunks_exact(16)
        .map(|c| (word(&c[..8]), word(&c[8..])))
        .collect()
}

/// Whether two documents' fields differ in anything but `key` (a field one has and the other
/// has not counts as a difference).
pub(crate) fn differs_beside(a: &FieldHashes, b: &FieldHashes, key: &str) -> bool {
    let k = hash_key(key);
    let others = |f: &FieldHashes| f.len() - usize::from(f.contains_key(&k));
    others(a) != others(b) || a.iter().any(|(n, v)| *n != k && b.get(n) != Some(v))
}

/// Whether a document has field `key`.
pub(crate) fn has(fields: &FieldHashes, key: &str) -> bool {
    fields.contains_key(&hash_key(key))
}

/// Merges this device's document with the server's, both descended from `base`.
/// `atomic` fields (global references) are never merged as text; `markers` are the scrub
/// replacements this device has used.
pub(crate) fn merge(
    base: &FieldHashes,
    local: &Map<String, Value>,
    remote: &Map<String, Value>,
    atomic: &[&str],
    markers: &[String],
) -> Map<String, Value> {
    let mut out = Map::new();
    let keys: Vec<&String> = local
        .keys()
        .chain(remote.keys().filter(|k| !local.contains_key(*k)))
        .collect();
    for k in keys {
        let (l, r) = (local.get(k), remote.get(k));
        let value = match (l, r) {
            (Some(l), None) => l.clone(),
            (None, Some(r)) => r.clone(),
            (None, None) => continue,
            (Some(l), Some(r)) if l == r => l.clone(),
            (Some(l), Some(r)) => {
                let b = base.get(&hash_key(k));
                if b == Some(&hash_value(l)) {
                    r.clone()
                } else if b == Some(&hash_value(r)) {
                    l.clone()
                } else {
                    match (l, r) {
                        (Value::String(lt), Value::String(rt)) if !atomic.contains(&k.as_str()) => {
                            Value::String(merge_text(lt, rt, markers))
                        }
                        _ => l.clone(),
                    }
                }
            }
        };
        out.insert(k.clone(), value);
    }
    out
}

/// Merges two versions of a text: hunks where `local` holds a scrub replacement take
/// `local`'s text, all others `remote`'s.
pub(crate) fn merge_text(local: &str, remote: &str, markers: &[String]) -> String {
    let (lt, rt) = (tokens(local, markers), tokens(remote, markers));
    let mut out = String::with_capacity(local.len().max(remote.len()));
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &lt, &rt) {
        let (l, r) = (op.old_range(), op.new_range());
        let scrubbed = lt[l.clone()].iter().any(|t| markers.iter().any(|m| t == m));
        let side = if scrubbed || matches!(op.tag(), similar::DiffTag::Equal) {
            &lt[l]
        } else {
            &rt[r]
        };
        for t in side {
            out.push_str(t);
        }
    }
    out
}

/// A text as tokens: each marker whole, runs of letters and digits, and every other
/// character alone, so a scrub inside a word (`key=[SCRUBBED]`) lines up with the word it
/// replaced.
fn tokens<'a>(text: &'a str, markers: &[String]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = text;
    'outer: while !rest.is_empty() {
        for m in markers {
            if !m.is_empty() && rest.starts_with(m.as_str()) {
                out.push(&rest[..m.len()]);
                rest = &rest[m.len()..];
                continue 'outer;
            }
        }
        let mut chars = rest.char_indices();
        let first = chars.next().map_or(' ', |(_, c)| c);
        let end = if first.is_alphanumeric() || first == '_' {
            rest.char_indices()
                .find(|(i, c)| {
                    !(c.is_alphanumeric() || *c == '_')
                        || (*i > 0
                            && markers
                                .iter()
                                .any(|m| !m.is_empty() && rest[*i..].starts_with(m.as_str())))
                })
                .map_or(rest.len(), |(i, _)| i)
        } else {
            first.len_utf8()
        };
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    fn markers() -> Vec<String> {
        vec!["[SCRUBBED]".to_string()]
    }

    #[test]
    fn two_scrubs_of_one_text_both_hold() {
        let base = "deploy with key sk-live-1111 and password hunter2 to staging";
        let a = base.replace("sk-live-1111", "[SCRUBBED]");
        let b = base.replace("hunter2", "[SCRUBBED]");
        let merged = merge_text(&b, &a, &markers());
        assert_eq!(
            merged,
            "deploy with key [SCRUBBED] and password [SCRUBBED] to staging"
        );
        // From the other side, with a replacement this device never used.
        let a2 = base.replace("sk-live-1111", "<gone>");
        assert_eq!(
            merge_text(&b, &a2, &markers()),
            "deploy with key <gone> and password [SCRUBBED] to staging"
        );
    }

    #[test]
    fn a_scrub_inside_a_word_or_in_chinese_text_lines_up() {
        let base = "token=abc123def 连接池密钥是秘密口令不要外传";
        let a = base.replace("c123d", "[SCRUBBED]");
        let b = base.replace("秘密口令", "[SCRUBBED]");
        assert_eq!(
            merge_text(&b, &a, &markers()),
            "token=ab[SCRUBBED]ef 连接池密钥是[SCRUBBED]不要外传"
        );
        // 𠮷 is outside the BMP: kept whole.
        assert_eq!(
            merge_text("𠮷野家 [SCRUBBED]", "𠮷野家 pw", &markers()),
            "𠮷野家 [SCRUBBED]"
        );
    }

    #[test]
    fn fields_only_one_side_changed_take_that_side() {
        let base = map(json!({"title": "t", "narrative": "n S1 S2", "status": "active", "n": 1}));
        let hashes = decode(Some(&field_hashes(&base)));
        let local =
            map(json!({"title": "t", "narrative": "n S1 [SCRUBBED]", "status": "active", "n": 2}));
        let remote = map(
            json!({"title": "t2", "narrative": "n [SCRUBBED] S2", "status": "completed", "n": 3}),
        );
        let merged = merge(&hashes, &local, &remote, &[], &markers());
        assert_eq!(
            Value::Object(merged),
            json!({"title": "t2", "narrative": "n [SCRUBBED] [SCRUBBED]", "status": "completed", "n": 2})
        );
    }

    #[test]
    fn documents_compare_beside_one_field() {
        let hashes = |v: Value| decode(Some(&field_hashes(&map(v))));
        let base = hashes(json!({"title": "t", "_vector": {"model": "a"}}));
        assert!(!differs_beside(
            &base,
            &hashes(json!({"title": "t", "_vector": {"model": "b"}})),
            "_vector"
        ));
        assert!(!differs_beside(
            &base,
            &hashes(json!({"title": "t"})),
            "_vector"
        ));
        assert!(differs_beside(
            &base,
            &hashes(json!({"title": "u", "_vector": {"model": "a"}})),
            "_vector"
        ));
        assert!(differs_beside(
            &base,
            &hashes(json!({"title": "t", "n": 1})),
            "_vector"
        ));
        assert!(has(&base, "_vector") && !has(&hashes(json!({"title": "t"})), "_vector"));
    }

    #[test]
    fn references_are_not_merged_as_text_and_unknown_bases_still_keep_scrubs() {
        let local = map(json!({"session_id": "aa:1", "text": "x [SCRUBBED] y"}));
        let remote = map(json!({"session_id": "bb:7", "text": "x secret y"}));
        let merged = merge(
            &FieldHashes::new(),
            &local,
            &remote,
            &["session_id"],
            &markers(),
        );
        assert_eq!(
            Value::Object(merged),
            json!({"session_id": "aa:1", "text": "x [SCRUBBED] y"})
        );
    }
}
