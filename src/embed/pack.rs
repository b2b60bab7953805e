//! Packs a Model2Vec model directory (`model.safetensors`, `tokenizer.json`) into cmem's model
//! file, int8 with one scale per row: what `scripts/model/pack.py` does for the built-in model,
//! here for `cmem model install DIR`.

use std::path::Path;

use anyhow::{Context, Result, bail, ensure};
use serde_json::Value;

/// The packed bytes of the model in `dir`.
pub(crate) fn pack_dir(dir: &Path) -> Result<Vec<u8>> {
    let tok_path = dir.join("tokenizer.json");
    let tok: Value = serde_json::from_slice(
        &std::fs::read(&tok_path).with_context(|| format!("cannot read {}", tok_path.display()))?,
    )
    .with_context(|| format!("{} is not JSON", tok_path.display()))?;
    let model = &tok["model"];
    ensure!(
        model["type"] == "WordPiece" && model["continuing_subword_prefix"] == "##",
        "{}: only BERT WordPiece tokenizers are supported",
        tok_path.display()
    );
    ensure!(
        tok["normalizer"]["type"] == "BertNormalizer"
            && tok["pre_tokenizer"]["type"] == "BertPreTokenizer",
        "{}: only the BERT normalizer and pre-tokenizer are supported",
        tok_path.display()
    );
    let vocab = model["vocab"]
        .as_object()
        .context("tokenizer.json has no model.vocab")?;
    let mut tokens = vec![String::new(); vocab.len()];
    for (token, id) in vocab {
        let id = id.as_u64().context("a vocabulary id is not a number")? as usize;
        let slot = tokens
            .get_mut(id)
            .with_context(|| format!("vocabulary id {id} out of range"))?;
        ensure!(!token.contains('\n'), "a token contains a newline");
        *slot = token.clone();
    }
    ensure!(
        tokens.iter().all(|t| !t.is_empty()),
        "vocabulary ids are not 0..n"
    );
    let unk = model["unk_token"]
        .as_str()
        .and_then(|u| vocab.get(u))
        .and_then(Value::as_u64)
        .unwrap_or(0) as u16;
    let lowercase = tok["normalizer"]["lowercase"].as_bool().unwrap_or(true);

    let st_path = dir.join("model.safetensors");
    let raw =
        std::fs::read(&st_path).with_context(|| format!("cannot read {}", st_path.display()))?;
    let header_len = u64::from_le_bytes(
        raw.get(..8)
            .context("model.safetensors is truncated")?
            .try_into()?,
    ) as usize;
    let header: Value = serde_json::from_slice(
        raw.get(8..8 + header_len)
            .context("model.safetensors is truncated")?,
    )
    .context("model.safetensors has no JSON header")?;
    let tensors: Vec<(&String, &Value)> = header
        .as_object()
        .context("model.safetensors header is not an object")?
        .iter()
        .filter(|(k, _)| *k != "__metadata__")
        .collect();
    let [(_, info)] = tensors.as_slice() else {
        bail!(
            "model.safetensors holds {} tensors, expected one",
            tensors.len()
        );
    };
    ensure!(info["dtype"] == "F32", "expected F32 embeddings");
    let shape = numbers(&info["shape"]).context("no shape")?;
    let [rows, dims] = shape[..] else {
        bail!("expected a 2-D embedding table");
    };
    ensure!(
        rows == tokens.len(),
        "{rows} rows for {} tokens",
        tokens.len()
    );
    let offsets = numbers(&info["data_offsets"]).context("no data_offsets")?;
    let [start, end] = offsets[..] else {
        bail!("bad data_offsets");
    };
    let data = raw
        .get(8 + header_len + start..8 + header_len + end)
        .context("model.safetensors is truncated")?;
    ensure!(
        data.len() == rows * dims * 4,
        "embedding table has the wrong size"
    );

    let vocab_bytes = tokens.join("\n").into_bytes();
    let mut out = Vec::with_capacity(24 + vocab_bytes.len() + rows * (dims + 4));
    out.extend_from_slice(b"CMEMM2V1");
    out.extend_from_slice(&(rows as u32).to_le_bytes());
    out.extend_from_slice(&(dims as u32).to_le_bytes());
    out.push(1); // int8
    out.push(u8::from(lowercase));
    out.extend_from_slice(&unk.to_le_bytes());
    out.extend_from_slice(&(vocab_bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&vocab_bytes);
    let floats: Vec<f32> = data
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let mut quantised = Vec::with_capacity(rows * dims);
    for row in floats.chunks_exact(dims) {
        let peak = row.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if peak > 0.0 { peak / 127.0 } else { 1.0 };
        out.extend_from_slice(&scale.to_le_bytes());
        quantised.extend(
            row.iter()
                .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8 as u8),
        );
    }
    out.extend_from_slice(&quantised);
    Ok(out)
}

/// A JSON array of non-negative integers (a tensor's shape or byte offsets).
fn numbers(v: &Value) -> Option<Vec<usize>> {
    v.as_array()?
        .iter()
        .map(|d| d.as_u64().map(|d| d as usize))
        .collect()
}
