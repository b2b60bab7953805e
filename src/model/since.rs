//! What happened after an observation was made that its reader should know before trusting
//! it: files it names that changed or are gone, a later decision that replaced it.

use serde::{Deserialize, Serialize};

/// The glyph that marks a row whose file changed since (the index's legend names it).
pub(crate) const CHANGED_SYMBOL: char = '\u{25B3}'; // △

/// One file an observation names, as it is now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileNow {
    pub path: String,
    /// Gone from the disk, not only changed.
    pub deleted: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Since {
    /// Files that no longer hold what the observation saw, in the observation's order.
    pub files: Vec<FileNow>,
    /// The later decision on the same file or symbol that replaced this one.
    pub superseded_by: Option<i64>,
}

impl Since {
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty() && self.superseded_by.is_none()
    }

    /// What a row says after its title: `△` when a file changed (`with_words`: `△ file
    /// changed since`, for lists without a legend), then `(superseded by #N)`.
    pub(crate) fn row_suffix(&self, with_words: bool) -> String {
        let mut out = String::new();
        if !self.files.is_empty() {
            out.push(' ');
            out.push(CHANGED_SYMBOL);
            if with_words {
                out.push_str(if self.files.iter().all(|f| f.deleted) {
                    " file deleted since"
                } else {
                    " file changed since"
                });
            }
        }
        if let Some(n) = self.superseded_by {
            out.push_str(&format!(" (superseded by #{n})"));
        }
        out
    }

    /// One sentence a line: `src/db/pool.rs changed since this was observed`, `superseded by #N`.
    pub(crate) fn sentences(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .files
            .iter()
            .map(|f| {
                let what = if f.deleted { "deleted" } else { "changed" };
                format!("{} {what} since this was observed", f.path)
            })
            .collect();
        if let Some(n) = self.superseded_by {
            out.push(format!("superseded by #{n}"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_details_say_it() {
        let s = Since {
            files: vec![
                FileNow {
                    path: "src/db/pool.rs".into(),
                    deleted: false,
                },
                FileNow {
                    path: "old.rs".into(),
                    deleted: true,
                },
            ],
            superseded_by: Some(31),
        };
        assert_eq!(s.row_suffix(false), " \u{25B3} (superseded by #31)");
        assert_eq!(
            s.row_suffix(true),
            " \u{25B3} file changed since (superseded by #31)"
        );
        assert_eq!(
            s.sentences(),
            vec![
                "src/db/pool.rs changed since this was observed",
                "old.rs deleted since this was observed",
                "superseded by #31"
            ]
        );
        assert!(Since::default().is_empty());
        assert_eq!(Since::default().row_suffix(true), "");
    }
}
