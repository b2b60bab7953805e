//! Looking ahead in a transcript for what a line lacks (its time, its working directory): the
//! first later line that holds it, within a bound, without disturbing the read in progress.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Map, Value};

/// How far a file is read ahead: a transcript line that names neither is rare, and a file
/// read to its end for each would make an import quadratic.
const SCAN_BYTES: u64 = 64 * 1024 * 1024;

/// The first `found(line)` of a JSON line from byte `from` on, within `SCAN_BYTES`.
pub(super) fn ahead<T>(
    path: &Path,
    from: u64,
    mut found: impl FnMut(&Map<String, Value>) -> Option<T>,
) -> Result<Option<T>> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    file.seek(SeekFrom::Start(from))?;
    let mut lines = BufReader::new(file.take(SCAN_BYTES));
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if lines.read_until(b'\n', &mut buf)? == 0 {
            return Ok(None);
        }
        if let Ok(Value::Object(line)) = crate::jsonfix::parse_lenient(&buf, "transcript line")
            && let Some(value) = found(&line)
        {
            return Ok(Some(value));
        }
    }
}
