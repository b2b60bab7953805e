//! `cmem sql`: a person's own SQL against the memory database, on a connection that knows
//! cmem's tokenizer and ranking functions. A plain `sqlite3` shell can read every table, but a
//! write to observations, summaries or prompts fails there ("no such tokenizer: cmem"): their
//! triggers keep the full-text index in step, and the index needs the tokenizer.

use std::io::{Read, Write};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use fallible_iterator::FallibleIterator;
use rusqlite::types::ValueRef;

#[derive(Args)]
pub(crate) struct SqlArgs {
    /// The statements, separated by `;` (read from standard input when left out)
    sql: Option<String>,
    /// One JSON object a row (column name → value) instead of `|`-separated values
    #[arg(long)]
    json: bool,
    /// Print each statement's column names before its rows (`|`-separated output)
    #[arg(long)]
    header: bool,
}

pub(crate) fn run(args: &SqlArgs, face: &super::face::Face) -> Result<ExitCode> {
    let sql = match &args.sql {
        Some(sql) => sql.clone(),
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the SQL from standard input (it must be UTF-8)")?;
            text
        }
    };
    if sql.trim().is_empty() {
        bail!("no SQL given: `cmem sql \"SELECT COUNT(*) FROM observations\"`, or pipe it in");
    }
    let store = face.existing_store()?;
    let mut out = super::pipe::stdout();
    let format = if args.json {
        Format::Json
    } else {
        Format::List {
            header: args.header,
        }
    };
    // Each statement commits on its own, as in `sqlite3`; the first that fails ends the run,
    // and the error says how many before it took effect (wrap them in BEGIN … COMMIT for all
    // or nothing).
    let mut batch = rusqlite::Batch::new(&store.conn, &sql);
    let mut number = 0;
    loop {
        number += 1;
        let conn = &store.conn;
        let done = || match number - 1 {
            _ if !conn.is_autocommit() => {
                "the open transaction is rolled back: nothing in it took effect".to_string()
            }
            0 => "nothing was changed".to_string(),
            1 => "statement 1 before it took effect".to_string(),
            n => format!("statements 1 to {n} before it took effect"),
        };
        let next = batch
            .next()
            .with_context(|| format!("statement {number} is not valid SQL ({})", done()))?;
        let Some(mut stmt) = next else { break };
        print_rows(&mut stmt, format, &mut out)
            .with_context(|| format!("statement {number} failed ({})", done()))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Clone, Copy)]
enum Format {
    List { header: bool },
    Json,
}

fn print_rows(
    stmt: &mut rusqlite::Statement<'_>,
    format: Format,
    out: &mut impl Write,
) -> Result<()> {
    let names: Vec<String> = stmt.column_names().map(str::to_string).collect();
    if let Format::List { header: true } = format
        && !names.is_empty()
    {
        writeln!(out, "{}", names.join("|"))?;
    }
    let mut rows = stmt.raw_query();
    while let Some(row) = rows.next()? {
        match format {
            Format::List { .. } => {
                let cells = (0..names.len())
                    .map(|i| row.get_ref(i).map(list_cell))
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                writeln!(out, "{}", cells.join("|"))?;
            }
            Format::Json => {
                let mut object = serde_json::Map::new();
                for (i, name) in names.iter().enumerate() {
                    object.insert(name.clone(), json_cell(row.get_ref(i)?));
                }
                writeln!(out, "{}", serde_json::Value::Object(object))?;
            }
        }
    }
    Ok(())
}

/// As `sqlite3`'s list mode prints a value: NULL as nothing, a blob as its bytes read as text.
fn list_cell(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Null => String::new(),
        ValueRef::Integer(n) => n.to_string(),
        ValueRef::Real(x) => x.to_string(),
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
    }
}

/// A blob becomes its bytes in hex (JSON has no bytes).
fn json_cell(value: ValueRef<'_>) -> serde_json::Value {
    match value {
        ValueRef::Null => serde_json::Value::Null,
        ValueRef::Integer(n) => n.into(),
        ValueRef::Real(x) => x.into(),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
        ValueRef::Blob(b) => b
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect::<String>()
            .into(),
    }
}
