//! A record's vector travels in its row's document, so a team embeds each record once.
//!
//! A synced observation, summary or prompt that has a vector (of any model) carries it under
//! `_vector`: `{"base64": the stored blob, "model": the model id, "text_sha256": the hash of
//! the text it was made from}` (keys in this order, so the same vector always reads the same).
//! `_vector` is not a column: applying a document writes columns only, and merges leave it out.
//! A pulled vector is stored only when its model is the one this device embeds with, the
//! record here holds the very text it was made from (a scrub or a merge here may have changed
//! it) and has no vector yet (one made here of the same text is as good); anything else is
//! left to the local backfill, which embeds what has no vector.
//!
//! Which vector the server keeps: the first one, unless it is of another model than the one
//! built into cmem and a device has the built-in model's (`replaces`). A device that embedded a
//! record which already travels with a vector of its own model (made on another CPU), or of
//! another model while its own is not the built-in one, does not push its own over it
//! (`local::change`): two devices with different models never replace each other's vector on
//! every sync — the built-in model's replaces another once, and nothing replaces it. So after
//! cmem's built-in model changes (potion-base-8M to multilingual-e5), the first device to embed a
//! record again sends the new vector and the others take it, instead of each embedding it.

use std::cell::OnceCell;
use std::path::PathBuf;

use anyhow::Result;
use base64::Engine;
use rusqlite::Connection;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::model::Kind;
use crate::store::vectors;

/// The document key a record's vector travels under.
pub(crate) const KEY: &str = "_vector";

/// Whether a pulled document (its text) may carry a vector: a quick look, not a parse.
pub(crate) fn carried(doc: Option<&str>) -> bool {
    doc.is_some_and(|d| d.contains(KEY))
}

/// Whether a vector of `ours` goes to the server over the one its revision carries, of
/// `carried` (`None`: not known, as for rows synced before cmem kept it): only the built-in
/// model's, and only over another model's.
pub(crate) fn replaces(carried: Option<&str>, ours: Option<&str>) -> bool {
    let built_in = crate::embed::e5::ID;
    ours == Some(built_in) && carried != Some(built_in)
}

/// The longest model id read from a pulled vector (ids are a few dozen characters).
const MAX_MODEL_ID: usize = 200;

/// The record kind a synced table holds, for the three that have vectors.
fn kind_of(table: &str) -> Option<Kind> {
    match table {
        "observations" => Some(Kind::Observation),
        "session_summaries" => Some(Kind::Summary),
        "user_prompts" => Some(Kind::Prompt),
        _ => None,
    }
}

fn sha256_hex(text: &str) -> String {
    crate::store::fingerprint::hex(&Sha256::digest(text.as_bytes()))
}

/// The `_vector` value of row `id` of `table`, when it is a record with a vector.
pub(crate) fn of_row(conn: &Connection, table: &str, id: i64) -> Result<Option<Value>> {
    let Some(kind) = kind_of(table) else {
        return Ok(None);
    };
    Ok(vectors::stored(conn, kind, id)?.map(|s| {
        let mut v = Map::new();
        v.insert(
            "base64".into(),
            base64::engine::general_purpose::STANDARD
                .encode(&s.bytes)
                .into(),
        );
        v.insert("model".into(), s.model.into());
        v.insert(
            "text_sha256".into(),
            sha256_hex(s.text.as_deref().unwrap_or("")).into(),
        );
        Value::Object(v)
    }))
}

/// A pulled `_vector` value as this device compares it with its own documents: an object's
/// keys in byte order (as `of_row` writes them; the server's jsonb orders keys its own way),
/// anything else as it is.
pub(crate) fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(m) => {
            let mut fields: Vec<(&String, &Value)> = m.iter().collect();
            fields.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                fields
                    .into_iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// The model this device embeds with, read on the first pulled vector (loading it takes a
/// moment, and a pull of sessions or tool uses alone needs none): its id and dimensions.
pub(crate) struct Ours {
    data_dir: PathBuf,
    model: OnceCell<Option<(String, usize)>>,
}

impl Ours {
    pub(crate) fn of(data_dir: PathBuf) -> Ours {
        Ours {
            data_dir,
            model: OnceCell::new(),
        }
    }

    /// A device whose model is `id`, of `dims` dimensions (unit tests: no model is loaded).
    #[cfg(test)]
    pub(crate) fn fixed(id: &str, dims: usize) -> Ours {
        Ours {
            data_dir: PathBuf::new(),
            model: OnceCell::from(Some((id.to_string(), dims))),
        }
    }

    /// Loads the model now when `needed` (pulled rows about to be applied carry a vector):
    /// outside the local transaction that applies them, which hooks may be waiting for.
    pub(crate) fn load_if(&self, needed: bool) {
        if needed {
            let _ = self.get();
        }
    }

    fn get(&self) -> Option<&(String, usize)> {
        self.model
            .get_or_init(|| {
                crate::embed::load(&self.data_dir).map(|m| (m.id().to_string(), m.dims()))
            })
            .as_ref()
    }
}

/// A pulled vector that reads right: a blob of this device's length.
#[derive(Debug, PartialEq)]
struct Carried {
    model: String,
    text_sha256: String,
    bytes: Vec<u8>,
}

/// Why a pulled vector is not even looked at further.
#[derive(Debug, PartialEq)]
enum Unusable {
    /// Made by another model: expected in a team whose devices embed with different ones.
    OtherModel,
    /// Not what cmem writes (a teammate's own SQL can write any document).
    Malformed(String),
}

/// Reads a pulled `_vector` value for a device whose model is `model` of `dims` dimensions.
/// The model is compared first: another model's vector need not read right.
fn read(value: &Value, model: &str, dims: usize) -> Result<Carried, Unusable> {
    let bad = |why: &str| Unusable::Malformed(why.to_string());
    let Value::Object(m) = value else {
        return Err(bad("not an object"));
    };
    let field = |k: &str| m.get(k).and_then(Value::as_str);
    let theirs = field("model").ok_or_else(|| bad("no model id"))?;
    if theirs.len() > MAX_MODEL_ID {
        return Err(bad("a model id too long"));
    }
    if theirs != model {
        return Err(Unusable::OtherModel);
    }
    let text_sha256 = field("text_sha256").ok_or_else(|| bad("no text hash"))?;
    if text_sha256.len() != 64 || !text_sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad("a text hash that is not a SHA-256"));
    }
    let encoded = field("base64").ok_or_else(|| bad("no vector"))?;
    // The scale (4 bytes) and one byte a dimension; the length is checked before decoding, so a
    // huge string costs nothing.
    let want = 4 + dims;
    if encoded.len() != want.div_ceil(3) * 4 {
        return Err(Unusable::Malformed(format!(
            "a vector of {} base64 characters, not {} ({dims} dimensions)",
            encoded.len(),
            want.div_ceil(3) * 4
        )));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| Unusable::Malformed(format!("a vector that is not base64: {e}")))?;
    if bytes.len() != want {
        return Err(Unusable::Malformed(format!(
            "a vector of {} bytes, not {want}",
            bytes.len()
        )));
    }
    let scale = bytes
        .first_chunk::<4>()
        .map(|s| f32::from_le_bytes(*s))
        .unwrap_or(f32::NAN);
    if !scale.is_finite() || scale < 0.0 {
        return Err(bad(
            "a vector whose scale is not a finite, non-negative number",
        ));
    }
    Ok(Carried {
        model: theirs.to_string(),
        text_sha256: text_sha256.to_ascii_lowercase(),
        bytes,
    })
}

/// Stores the vector a pulled document carries for the record just written as local row `id`
/// of `table`, when it is of this device's model and made from the text the record holds here.
/// A malformed one is logged and ignored: the row itself is applied all the same. True when
/// it was stored.
///
/// Trusting a teammate's vector: it is stored only for the row it came with, which its writer
/// may write anyway (the server checks every push against the role's grants), and only while
/// that row holds the text the vector claims to be made from. A forged vector can only move
/// that row up or down in searches by meaning, as its writer could by rewriting the row.
pub(crate) fn keep_pulled(
    conn: &Connection,
    ours: &Ours,
    table: &str,
    id: i64,
    doc: &Map<String, Value>,
    from: &str,
) -> Result<bool> {
    let Some(kind) = kind_of(table) else {
        return Ok(false);
    };
    let Some(value) = doc.get(KEY).filter(|v| !v.is_null()) else {
        return Ok(false);
    };
    // No model here (it did not load; the log says why): nothing would use the vector.
    let Some((model, dims)) = ours.get() else {
        return Ok(false);
    };
    let carried = match read(value, model, *dims) {
        Ok(c) => c,
        Err(Unusable::OtherModel) => return Ok(false),
        Err(Unusable::Malformed(why)) => {
            crate::logging::warn(format!(
                "sync: ignored the vector of a pulled {table} row from {from}: {why}; the record is embedded here instead"
            ));
            return Ok(false);
        }
    };
    let Some(text) = vectors::text_of(conn, kind, id)? else {
        return Ok(false);
    };
    if sha256_hex(text.as_deref().unwrap_or("")) != carried.text_sha256 {
        return Ok(false);
    }
    vectors::keep(
        conn,
        kind,
        id,
        &carried.model,
        &carried.bytes,
        text.as_deref(),
    )
}

/// The model of the vector row `id` of `table` has here, if any.
pub(crate) fn model_here(conn: &Connection, table: &str, id: i64) -> Result<Option<String>> {
    let Some(kind) = kind_of(table) else {
        return Ok(None);
    };
    Ok(vectors::stored(conn, kind, id)?.map(|s| s.model))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MODEL: &str = "multilingual-e5-small/q4-enzh/v1";

    fn blob(dims: usize) -> Vec<u8> {
        let mut b = 0.01f32.to_le_bytes().to_vec();
        b.extend((0..dims).map(|i| i as u8));
        b
    }

    fn value(model: &str, bytes: &[u8]) -> Value {
        json!({
            "base64": base64::engine::general_purpose::STANDARD.encode(bytes),
            "model": model,
            "text_sha256": sha256_hex("a text"),
        })
    }

    #[test]
    fn a_vector_of_this_model_reads_back_as_written() {
        let bytes = blob(8);
        let carried = read(&value(MODEL, &bytes), MODEL, 8).unwrap();
        assert_eq!(carried.bytes, bytes);
        assert_eq!(carried.text_sha256, sha256_hex("a text"));
        assert_eq!(
            read(&value("installed/abc", &bytes), MODEL, 8),
            Err(Unusable::OtherModel)
        );
    }

    #[test]
    fn malformed_vectors_are_refused_with_a_reason() {
        let malformed = |v: Value| match read(&v, MODEL, 8) {
            Err(Unusable::Malformed(why)) => why,
            other => panic!("{v}: {other:?}"),
        };
        assert!(malformed(json!("a string")).contains("not an object"));
        assert!(malformed(json!({"model": 7})).contains("no model id"));
        assert!(malformed(json!({"model": "x".repeat(300)})).contains("too long"));
        // The wrong length, long or short, and a string too long to be worth decoding.
        assert!(malformed(value(MODEL, &blob(4))).contains("base64 characters"));
        // 11 bytes read as as many base64 characters as 12.
        assert!(malformed(value(MODEL, &blob(7))).contains("11 bytes, not 12"));
        assert!(malformed(value(MODEL, &blob(80_000))).contains("base64 characters"));
        let mut v = value(MODEL, &blob(8));
        v["base64"] = json!("!".repeat(16));
        assert!(malformed(v).contains("not base64"));
        let mut v = value(MODEL, &blob(8));
        v["text_sha256"] = json!("abc");
        assert!(malformed(v).contains("SHA-256"));
        let mut nan = blob(8);
        nan[..4].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(malformed(value(MODEL, &nan)).contains("scale"));
        let mut v = value(MODEL, &blob(8));
        v.as_object_mut().unwrap().remove("base64");
        assert!(malformed(v).contains("no vector"));
    }

    #[test]
    fn canonical_orders_keys_as_written_here() {
        let written = value(MODEL, &blob(8));
        // As jsonb hands it back: keys by length.
        let from_server: Value =
            serde_json::from_str(r#"{"model": "m", "base64": "AAAA", "text_sha256": "00"}"#)
                .unwrap();
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&canonical(&from_server)), keys(&written));
        assert_eq!(canonical(&written), written);
        assert_eq!(canonical(&json!(3)), json!(3));
    }
}
