//! A Model2Vec static embedding model: a token table, read from cmem's packed model file
//! (`scripts/model/pack.py`). A text's vector is the mean of its tokens' rows, L2-normalised.

use anyhow::{Context, Result, bail, ensure};

use super::wordpiece::WordPiece;

/// Tokens read per text: Model2Vec's default; longer texts are cut.
const MAX_TOKENS: usize = 512;

enum Table {
    F32(Vec<f32>),
    /// One scale per row, then the rows as int8.
    Int8 {
        scales: Vec<f32>,
        rows: &'static [u8],
    },
}

pub(crate) struct Model {
    /// Stored beside every vector: a different model re-embeds.
    id: String,
    tokenizer: WordPiece,
    dims: usize,
    table: Table,
}

fn u32_at(bytes: &[u8], at: usize) -> Result<u32> {
    let b = bytes.get(at..at + 4).context("model file is truncated")?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

impl Model {
    /// Reads a packed model. The int8 table is used in place (no copy of the 7.5 MB).
    pub(crate) fn from_packed(id: &str, bytes: &'static [u8]) -> Result<Model> {
        ensure!(
            bytes.starts_with(b"CMEMM2V1"),
            "not a cmem model file (bad magic)"
        );
        let rows = u32_at(bytes, 8)? as usize;
        let dims = u32_at(bytes, 12)? as usize;
        let dtype = *bytes.get(16).context("model file is truncated")?;
        let lowercase = *bytes.get(17).context("model file is truncated")? == 1;
        let vocab_len = u32_at(bytes, 20)? as usize;
        let vocab_at = 24;
        let vocab = std::str::from_utf8(
            bytes
                .get(vocab_at..vocab_at + vocab_len)
                .context("model file is truncated")?,
        )
        .context("model vocabulary is not UTF-8")?;
        let tokenizer = WordPiece::new(vocab, lowercase);
        ensure!(
            tokenizer.len() == rows,
            "{} tokens for {rows} rows",
            tokenizer.len()
        );
        ensure!(dims > 0 && dims <= 4096, "implausible model width {dims}");
        let data = &bytes[vocab_at + vocab_len..];
        let table = match dtype {
            0 => {
                ensure!(
                    data.len() == rows * dims * 4,
                    "model table has the wrong size"
                );
                Table::F32(
                    data.chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect(),
                )
            }
            1 => {
                ensure!(
                    data.len() == rows * 4 + rows * dims,
                    "model table has the wrong size"
                );
                let (scales, q) = data.split_at(rows * 4);
                Table::Int8 {
                    scales: scales
                        .chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect(),
                    rows: q,
                }
            }
            other => bail!("unknown model table type {other}"),
        };
        Ok(Model {
            id: id.to_string(),
            tokenizer,
            dims,
            table,
        })
    }

    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    pub(crate) fn vocabulary(&self) -> usize {
        self.tokenizer.len()
    }

    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// The unit vector of `text`; `None` when no word of it is in the vocabulary.
    pub(crate) fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let ids = self.tokenizer.encode(text, MAX_TOKENS);
        if ids.is_empty() {
            return None;
        }
        let mut sum = vec![0f32; self.dims];
        for id in &ids {
            let id = *id as usize;
            match &self.table {
                Table::F32(t) => {
                    for (s, x) in sum.iter_mut().zip(&t[id * self.dims..(id + 1) * self.dims]) {
                        *s += x;
                    }
                }
                Table::Int8 { scales, rows } => {
                    let scale = scales[id];
                    for (s, x) in sum
                        .iter_mut()
                        .zip(&rows[id * self.dims..(id + 1) * self.dims])
                    {
                        *s += f32::from(*x as i8) * scale;
                    }
                }
            }
        }
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 {
            return None;
        }
        sum.iter_mut().for_each(|x| *x /= norm);
        Some(sum)
    }
}
