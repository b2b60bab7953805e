//! The BERT WordPiece tokenizer a Model2Vec model was distilled with: clean the text, lower-case
//! and strip accents, split on whitespace and punctuation, then cut each word into the longest
//! pieces the vocabulary holds (`##` marks a piece inside a word).

use std::collections::HashMap;

use finl_unicode::categories::CharacterCategories;
use unicode_normalization::UnicodeNormalization;

/// Words longer than this are unknown as a whole (BERT's limit).
const MAX_WORD_CHARS: usize = 100;

pub(crate) struct WordPiece {
    ids: HashMap<String, u32>,
    lowercase: bool,
}

impl WordPiece {
    pub(crate) fn new(vocab: &str, lowercase: bool) -> WordPiece {
        let ids = vocab
            .split('\n')
            .enumerate()
            .map(|(i, t)| (t.to_string(), i as u32))
            .collect();
        WordPiece { ids, lowercase }
    }

    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The token ids of `text`, without special tokens; unknown words are left out (a
    /// Model2Vec model gives `[UNK]` no meaning). At most `max` ids.
    pub(crate) fn encode(&self, text: &str, max: usize) -> Vec<u32> {
        let mut out = Vec::new();
        for word in pre_tokenize(&normalize(text, self.lowercase)) {
            if out.len() >= max {
                break;
            }
            self.pieces(&word, &mut out);
        }
        out.truncate(max);
        out
    }

    fn pieces(&self, word: &str, out: &mut Vec<u32>) {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_WORD_CHARS {
            return;
        }
        let mut found = Vec::new();
        let mut start = 0;
        let mut key = String::new();
        while start < chars.len() {
            let from = chars[start].0;
            let mut end = chars.len();
            let mut piece = None;
            while end > start {
                let to = chars.get(end).map_or(word.len(), |c| c.0);
                key.clear();
                if start > 0 {
                    key.push_str("##");
                }
                key.push_str(&word[from..to]);
                if let Some(id) = self.ids.get(&key) {
                    piece = Some(*id);
                    break;
                }
                end -= 1;
            }
            let Some(id) = piece else {
                return; // the whole word is unknown
            };
            found.push(id);
            start = end;
        }
        out.extend(found);
    }
}

/// BERT's normalizer: drop control characters, whitespace to spaces, space around CJK
/// ideographs, then lower-case and strip accents.
fn normalize(text: &str, lowercase: bool) -> String {
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            cleaned.push(' ');
        } else if is_cjk(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    if !lowercase {
        return cleaned;
    }
    cleaned
        .nfd()
        .filter(|c| !c.is_mark_nonspacing())
        .flat_map(char::to_lowercase)
        .collect()
}

/// BERT's pre-tokenizer: words split on whitespace, each punctuation character its own word.
fn pre_tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else if is_punctuation(c) {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            words.push(c.to_string());
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r') || c.is_separator_space()
}

fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r')
        && (c.is_control()
            || CharacterCategories::is_format(c)
            || c.is_private_use()
            || c.is_unassigned())
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wp() -> WordPiece {
        WordPiece::new(
            "[PAD]\n[UNK]\nthe\npool\n##ing\nleak\n.\nca\n##fe\nun\n##believ\n##able",
            true,
        )
    }

    #[test]
    fn splits_words_punctuation_and_pieces() {
        let w = wp();
        assert_eq!(w.encode("The pool.", 10), vec![2, 3, 6]);
        assert_eq!(w.encode("pooling", 10), vec![3, 4]);
        assert_eq!(w.encode("Café", 10), vec![7, 8]); // accent stripped, lower-cased
        assert_eq!(w.encode("unbelievable leak", 10), vec![9, 10, 11, 5]);
        // An unknown word is left out whole, never half-pieced.
        assert_eq!(w.encode("poolx leak", 10), vec![5]);
        assert_eq!(w.encode("pool pool pool", 2), vec![3, 3]);
        assert!(w.encode("\u{0}\u{200b}", 10).is_empty());
    }
}
