//! `cmem claude-md DIR…`: writes the per-file index of each directory into `DIR/CLAUDE.md`,
//! between `<cmem-context>` markers, so Claude Code loads it when it works in that directory.
//! Every byte outside the markers stays as it was; a file without markers gets the section
//! appended; a missing file is created only with `--create`. Running it twice changes nothing
//! (the section holds no render time). No hook runs it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::context::dir_keys;
use super::jsonfile::{unified_diff, write_atomic};

pub(crate) const START: &str = "<cmem-context>";
pub(crate) const END: &str = "</cmem-context>";
const NOTE: &str = "<!-- Written by `cmem claude-md`; run it again to refresh. Edits between these markers are replaced. -->";

#[derive(Args)]
pub(crate) struct ClaudeMdArgs {
    /// Directories whose CLAUDE.md gets the table of the files under them
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Create CLAUDE.md where there is none (otherwise such a directory is skipped)
    #[arg(long)]
    create: bool,
    /// Print what would change as a diff, and write nothing
    #[arg(long)]
    dry_run: bool,
    /// At most this many observations per directory (default: [context] observations)
    #[arg(long)]
    limit: Option<usize>,
    /// Read the memory of this project key instead of the directory's own
    #[arg(long, short)]
    project: Option<String>,
}

/// The section as written: markers, a note, the table.
pub(crate) fn section(table: &str) -> String {
    format!("{START}\n{NOTE}\n\n{}\n{END}", table.trim_end())
}

/// `existing` (or nothing) with its cmem section replaced by `section`, or the section
/// appended after a blank line.
pub(crate) fn splice(existing: Option<&str>, section: &str) -> Result<String> {
    let Some(text) = existing else {
        return Ok(format!("{section}\n"));
    };
    match (text.find(START), text.find(END)) {
        (Some(s), Some(e)) if e > s => {
            Ok(format!("{}{section}{}", &text[..s], &text[e + END.len()..]))
        }
        (None, None) => {
            let mut out = text.to_string();
            if !out.is_empty() {
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push('\n');
            }
            out.push_str(section);
            out.push('\n');
            Ok(out)
        }
        _ => bail!(
            "its {START} … {END} markers are unpaired or out of order; fix or remove them by hand"
        ),
    }
}

pub(crate) fn run(args: &ClaudeMdArgs, face: &super::face::Face) -> Result<ExitCode> {
    let settings = face.settings()?;
    crate::model::mode::resolve(&settings.context.mode)?;
    let store = face.store_if_any()?;
    let limit = args.limit.unwrap_or(settings.context.observations);
    for dir in &args.dirs {
        let (keys, rel) = dir_keys(dir, args.project.as_deref())?;
        let file = dir.join("CLAUDE.md");
        let existing = match std::fs::read_to_string(&file) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", file.display())),
        };
        if existing.is_none() && !args.create {
            println!(
                "{}: skipped, no such file (--create makes it)",
                file.display()
            );
            continue;
        }
        let table = crate::view::by_file::load(
            store.as_ref().map(|s| &s.conn),
            &keys,
            &rel,
            &settings.context,
            limit,
        )?;
        let new = splice(existing.as_deref(), &section(&table))
            .with_context(|| format!("{}", file.display()))?;
        if existing.as_deref() == Some(new.as_str()) {
            println!("{}: unchanged", file.display());
            continue;
        }
        if args.dry_run {
            print!(
                "{}",
                unified_diff(
                    existing.as_deref().unwrap_or(""),
                    &new,
                    &file.display().to_string()
                )
            );
            continue;
        }
        write_atomic(&file, &new)?;
        println!(
            "{}: {}",
            file.display(),
            if existing.is_some() {
                "updated"
            } else {
                "created"
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_keeps_every_byte_outside_the_markers() {
        let s = section("T1");
        let before = "# Mine\r\nkeep  this\n\n";
        let after = "\ntrailing <b>text</b> without newline";
        let first = splice(Some(&format!("{before}{s}{after}")), &section("T2")).unwrap();
        assert_eq!(first, format!("{before}{}{after}", section("T2")));
        // No markers: appended after a blank line, the old bytes untouched.
        let appended = splice(Some("notes"), &s).unwrap();
        assert_eq!(appended, format!("notes\n\n{s}\n"));
        assert_eq!(splice(Some(&appended), &s).unwrap(), appended, "idempotent");
        assert_eq!(splice(None, &s).unwrap(), format!("{s}\n"));
        assert!(splice(Some(&format!("{END} x {START}")), &s).is_err());
        assert!(splice(Some(START), &s).is_err());
    }
}
