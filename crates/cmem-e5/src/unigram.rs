//! The model's tokenizer: XLM-R's SentencePiece unigram vocabulary. A text is normalised code
//! point by code point (the file's map: NFKC forms, controls removed, spaces unified), runs of
//! spaces collapse, words are marked by `▁`, and the best split into pieces is the one whose
//! piece scores (log-probabilities) sum highest (Viterbi). A character no piece covers is a
//! `<unk>` of its own (a run of them is not fused into one).

use std::collections::HashMap;

use super::file::File;

const WORD_MARK: char = '\u{2581}';
/// What a `<unk>` costs below the lowest piece score (SentencePiece's penalty).
const UNKNOWN_PENALTY: f32 = 10.0;

pub(crate) struct Unigram {
    pieces: HashMap<String, (u32, f32)>,
    /// The longest piece, in characters.
    longest: usize,
    unknown_score: f32,
    normalise: HashMap<u32, Vec<char>>,
    pub bos: u32,
    pub eos: u32,
    pub unk: u32,
}

impl Unigram {
    pub(crate) fn new(file: &File) -> Unigram {
        let mut pieces = HashMap::with_capacity(file.pieces.len());
        let mut longest = 1;
        let mut lowest = 0.0f32;
        let specials = [file.bos, file.eos, file.unk];
        for (id, (piece, score)) in file.pieces.iter().zip(&file.scores).enumerate() {
            let id = id as u32;
            // Special and control pieces (`<s>`, `<pad>`…) never come out of text.
            if specials.contains(&id) || (piece.starts_with('<') && piece.ends_with('>')) {
                continue;
            }
            longest = longest.max(piece.chars().count());
            lowest = lowest.min(*score);
            pieces.insert(piece.to_string(), (id, *score));
        }
        Unigram {
            pieces,
            longest,
            unknown_score: lowest - UNKNOWN_PENALTY,
            normalise: file.normalise.clone(),
            bos: file.bos,
            eos: file.eos,
            unk: file.unk,
        }
    }

    /// The text as the pieces see it: normalised, spaces collapsed, words marked.
    fn prepare(&self, text: &str) -> Vec<char> {
        let mut out: Vec<char> = Vec::with_capacity(text.len() + 1);
        let push = |c: char, out: &mut Vec<char>| {
            if c == ' ' && out.last() == Some(&WORD_MARK) {
                return;
            }
            out.push(if c == ' ' { WORD_MARK } else { c });
        };
        let mut normalised = Vec::with_capacity(text.len());
        for c in text.chars() {
            match self.normalise.get(&(c as u32)) {
                Some(to) => normalised.extend(to.iter().copied()),
                None => normalised.push(c),
            }
        }
        if normalised.first() != Some(&' ') {
            out.push(WORD_MARK);
        }
        for c in normalised {
            push(c, &mut out);
        }
        out
    }

    /// The ids of `text`'s pieces (without `<s>` and `</s>`).
    pub(crate) fn ids(&self, text: &str) -> Vec<u32> {
        let chars = self.prepare(text);
        let n = chars.len();
        // best[i]: the best score of a split of chars[..i], and where its last piece starts.
        let mut best: Vec<(f32, usize, u32)> = vec![(f32::NEG_INFINITY, 0, 0); n + 1];
        best[0] = (0.0, 0, 0);
        let mut piece = String::new();
        for start in 0..n {
            let base = best[start].0;
            if base == f32::NEG_INFINITY {
                continue;
            }
            piece.clear();
            let mut single_known = false;
            for end in start + 1..=(start + self.longest).min(n) {
                piece.push(chars[end - 1]);
                if let Some(&(id, score)) = self.pieces.get(piece.as_str()) {
                    if end == start + 1 {
                        single_known = true;
                    }
                    let total = base + score;
                    if total > best[end].0 {
                        best[end] = (total, start, id);
                    }
                }
            }
            if !single_known {
                let total = base + self.unknown_score;
                if total > best[start + 1].0 {
                    best[start + 1] = (total, start, self.unk);
                }
            }
        }
        let mut ids = Vec::new();
        let mut at = n;
        while at > 0 {
            let (_, start, id) = best[at];
            ids.push(id);
            at = start;
        }
        ids.reverse();
        ids
    }
}

#[cfg(test)]
mod tests {
    /// `OPENING_BYTES` (lib.rs) holds 510 pieces only while no piece is longer than 64 bytes.
    #[test]
    fn no_piece_of_the_built_in_vocabulary_is_longer_than_64_bytes() {
        let file = crate::file::parse(crate::BUILT_IN).unwrap();
        let longest = file.pieces.iter().map(|p| p.len()).max().unwrap();
        assert!(longest <= 64, "{longest}");
    }
}
