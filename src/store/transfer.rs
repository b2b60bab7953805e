//! What imports report: per table, how many rows the source held and what became of them.

use std::collections::BTreeMap;

use anyhow::{Context, Result};

/// cmem's tables, in dependency order (the order of imports and exports).
pub(crate) const TABLES: [&str; 6] = [
    "sessions",
    "user_prompts",
    "observations",
    "session_summaries",
    "tool_uses",
    "work_state_entries",
];

/// What one table of the source holds and what became of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TableReport {
    pub source: usize,
    pub imported: usize,
    pub already: usize,
    /// Rows that cannot be stored (a prompt whose session is missing, …).
    pub skipped: usize,
    /// Newly imported rows per project.
    pub by_project: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Report {
    pub schema_version: Option<i64>,
    pub tables: BTreeMap<&'static str, TableReport>,
}

impl Report {
    pub(crate) fn table(&mut self, name: &'static str) -> &mut TableReport {
        self.tables.entry(name).or_default()
    }

    /// Ends an import: every table gets a line (0 when the source had none), and the
    /// transaction is committed, or rolled back for a dry run.
    pub(crate) fn finish(mut self, tx: rusqlite::Transaction, dry_run: bool) -> Result<Report> {
        for t in TABLES {
            self.table(t);
        }
        if dry_run {
            tx.rollback()?;
        } else {
            tx.commit().context("cannot commit the import")?;
        }
        Ok(self)
    }

    /// The tables in dependency order, then any other.
    pub(crate) fn ordered(&self) -> Vec<(&'static str, &TableReport)> {
        let mut out: Vec<(&'static str, &TableReport)> = TABLES
            .iter()
            .filter_map(|t| self.tables.get_key_value(t).map(|(k, v)| (*k, v)))
            .collect();
        for (k, v) in &self.tables {
            if !TABLES.contains(k) {
                out.push((k, v));
            }
        }
        out
    }
}
