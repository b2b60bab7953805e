//! An observation as the rules build it, before it is stored, and the small text helpers every
//! rule shares: titles of at most 80 characters that name what happened, lists that fit.

use crate::model::{ObsType, ObservationBody, utf16_len};
use crate::text::{clip, one_line};

/// Titles never exceed this (UTF-16 units).
pub const TITLE_MAX: usize = 80;
/// Subtitles are one sentence of at most this many words (reference §9).
pub const SUBTITLE_WORDS: usize = 24;

#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub obs_type: ObsType,
    pub title: String,
    pub subtitle: String,
    pub narrative: String,
    pub facts: Vec<String>,
    pub concepts: Vec<&'static str>,
    pub files_read: Vec<String>,
    pub files_modified: Vec<String>,
    /// Indices (into the turn's tool uses) of the tool uses this observation stands for.
    pub tools: Vec<usize>,
}

impl Draft {
    pub fn new(obs_type: ObsType, title: impl AsRef<str>) -> Draft {
        Draft {
            obs_type,
            title: title_text(title.as_ref()),
            subtitle: String::new(),
            narrative: String::new(),
            facts: Vec::new(),
            concepts: Vec::new(),
            files_read: Vec::new(),
            files_modified: Vec::new(),
            tools: Vec::new(),
        }
    }

    pub fn subtitle(mut self, text: impl AsRef<str>) -> Draft {
        self.subtitle = sentence(text.as_ref());
        self
    }

    pub fn narrative(mut self, text: impl Into<String>) -> Draft {
        self.narrative = text.into();
        self
    }

    pub fn concepts(mut self, concepts: &[&'static str]) -> Draft {
        self.concepts = concepts.to_vec();
        self
    }

    pub fn fact(&mut self, text: impl AsRef<str>) {
        let f = one_line(text.as_ref());
        if !f.is_empty() && !self.facts.contains(&f) {
            self.facts.push(clip(&f, 300));
        }
    }

    /// The first line of a tool's error, as a fact.
    pub fn error_fact(&mut self, err: &str) {
        self.fact(format!(
            "Error: {}",
            first_line(err, 200).unwrap_or_default()
        ));
    }

    pub fn tool(&mut self, idx: usize) {
        if !self.tools.contains(&idx) {
            self.tools.push(idx);
        }
    }

    pub fn read(&mut self, path: &str) {
        push_unique(&mut self.files_read, path);
    }

    pub fn modified(&mut self, path: &str) {
        push_unique(&mut self.files_modified, path);
    }

    /// What the draft says, as stored: empty subtitle and narrative are none.
    pub fn body(&self) -> ObservationBody {
        ObservationBody {
            obs_type: self.obs_type.id().to_string(),
            title: Some(self.title.clone()),
            subtitle: Some(self.subtitle.clone()).filter(|s| !s.is_empty()),
            narrative: Some(self.narrative.clone()).filter(|s| !s.is_empty()),
            facts: self.facts.clone(),
            concepts: self.concepts.iter().map(|c| c.to_string()).collect(),
            files_read: self.files_read.clone(),
            files_modified: self.files_modified.clone(),
        }
    }
}

pub fn push_unique(list: &mut Vec<String>, item: &str) {
    if !item.is_empty() && !list.iter().any(|x| x == item) {
        list.push(item.to_string());
    }
}

/// One line, at most `TITLE_MAX` units.
pub fn title_text(text: &str) -> String {
    clip(&one_line(text), TITLE_MAX)
}

/// One line, at most `SUBTITLE_WORDS` words, ending with a full stop.
pub fn sentence(text: &str) -> String {
    let line = one_line(text);
    let words: Vec<&str> = line.split(' ').collect();
    let mut out = if words.len() > SUBTITLE_WORDS {
        format!("{}…", words[..SUBTITLE_WORDS].join(" "))
    } else {
        line
    };
    if !out.is_empty() && !out.ends_with(['.', '!', '?', '…']) {
        out.push('.');
    }
    out
}

/// `` `text` `` clipped to `max` units inside the backticks.
pub fn code(text: &str, max: usize) -> String {
    format!("`{}`", clip(&one_line(text), max))
}

/// `` `text` `` for search patterns: whitespace is kept (a trailing space matters), only
/// line breaks and tabs become spaces.
pub fn code_raw(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("`{}`", clip(&flat, max))
}

/// Items joined with ", " for as long as they fit in `max` units, then "and N more".
pub fn fit_list(items: &[String], max: usize) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let rest = items.len() - i - 1;
        let tail = if rest > 0 {
            format!(" and {rest} more")
        } else {
            String::new()
        };
        let candidate = format!("{out}{sep}{item}");
        if i > 0 && utf16_len(&candidate) + utf16_len(&tail) > max {
            return format!("{out} and {} more", items.len() - i);
        }
        out = candidate;
    }
    if utf16_len(&out) > max {
        return clip(&out, max);
    }
    out
}

/// `+3 −1`, the size of a change.
pub fn delta(added: usize, removed: usize) -> String {
    format!("+{added} \u{2212}{removed}")
}

/// The first line worth quoting from a block of text (skips blank lines and markdown rules).
pub fn first_line(text: &str, max: usize) -> Option<String> {
    text.lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty() && !l.chars().all(|c| c == '-' || c == '=' || c == '*'))
        .map(|l| clip(&one_line(l), max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_fit_with_a_count_of_the_rest() {
        let items: Vec<String> = ["src/a.rs", "src/b.rs", "src/c.rs", "src/d.rs"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            fit_list(&items, 100),
            "src/a.rs, src/b.rs, src/c.rs, src/d.rs"
        );
        assert_eq!(fit_list(&items, 30), "src/a.rs, src/b.rs and 2 more");
        assert_eq!(fit_list(&items[..1], 4), "src…");
    }

    #[test]
    fn subtitles_are_one_short_sentence() {
        assert_eq!(sentence("a\nb"), "a b.");
        let long = "w ".repeat(40);
        assert!(sentence(&long).split(' ').count() <= SUBTITLE_WORDS);
    }
}
