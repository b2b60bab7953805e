//! Regular expressions over ASCII structure (test-runner output, headings, markers), compiled
//! without Unicode tables: a hook compiles each once per process, and the Unicode-aware form
//! of the same patterns costs milliseconds to build. Matches are returned as slices of the
//! searched text (a match that does not fall on character boundaries is skipped).

use regex::bytes::{Regex, RegexBuilder};

pub(crate) struct AsciiRegex(Regex);

impl AsciiRegex {
    /// Compiles a built-in pattern (a bad one is a bug, caught by the tests).
    pub(crate) fn new(pattern: &str) -> AsciiRegex {
        AsciiRegex(
            RegexBuilder::new(pattern)
                .unicode(false)
                .build()
                .unwrap_or_else(|e| panic!("built-in pattern {pattern:?}: {e}")),
        )
    }

    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text.as_bytes())
    }

    /// The first match: its text and where it ends.
    pub(crate) fn find<'t>(&self, text: &'t str) -> Option<(&'t str, usize)> {
        let m = self.0.find(text.as_bytes())?;
        Some((text.get(m.range())?, m.end()))
    }

    pub(crate) fn find_iter<'t>(&'t self, text: &'t str) -> impl Iterator<Item = &'t str> + 't {
        self.0
            .find_iter(text.as_bytes())
            .filter_map(move |m| text.get(m.range()))
    }

    /// Every match's capture groups (index 0 is the whole match).
    pub(crate) fn captures_iter<'t>(
        &'t self,
        text: &'t str,
    ) -> impl Iterator<Item = Vec<Option<&'t str>>> + 't {
        self.0.captures_iter(text.as_bytes()).map(move |c| {
            (0..c.len())
                .map(|i| c.get(i).and_then(|m| text.get(m.range())))
                .collect()
        })
    }

    pub(crate) fn captures<'t>(&'t self, text: &'t str) -> Option<Vec<Option<&'t str>>> {
        self.captures_iter(text).next()
    }
}
