//! A search query's terms as FTS5 matches them. What they are is the search's analysis
//! (`search::query`); how they are written into a MATCH is the store's: every term a quoted
//! string, so user text never reaches FTS5 syntax.

/// One thing a record must contain to match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Term {
    /// A whole word (the index's stemmer matches its other forms).
    Word(String),
    /// An identifier's parts, adjacent and in order.
    Phrase(Vec<String>),
}

impl Term {
    /// The term as an FTS5 string; `prefix` lets its last part be unfinished.
    pub(crate) fn fts(&self, prefix: bool) -> String {
        let quoted = match self {
            Term::Word(w) => quote(w),
            Term::Phrase(parts) => quote(&parts.join(" ")),
        };
        if prefix { format!("{quoted}*") } else { quoted }
    }

    /// The term as a person reads it.
    pub(crate) fn text(&self) -> String {
        match self {
            Term::Word(w) => w.clone(),
            Term::Phrase(parts) => parts.join(" "),
        }
    }
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// The most terms a query is searched by, its first ones. A query is a few words or a
/// sentence; text past this is a pasted document, whose every word would be one more argument
/// to the ranking function (SQLite refuses a call of about a thousand) and one more list to
/// merge, for no better ranking. A Chinese sentence of about 60 characters fills it.
pub(crate) const MOST_TERMS: usize = 64;

/// A query's terms, in order, without duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Terms {
    pub terms: Vec<Term>,
    /// The last term is a plain word typed without anything after it: it may be unfinished.
    pub last_may_be_partial: bool,
}
