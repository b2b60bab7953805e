//! Reading one message line from the client without letting the client decide how much memory
//! the server uses: at most `cap` bytes of a line are kept, the rest is read and dropped.

use std::io::{BufRead, ErrorKind, Result};

/// The longest line the server reads whole. A `save_memory` text is at most 20,000 characters
/// and every other request is small: 8 MiB leaves room for any honest request.
pub(crate) const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// stdin is closed and nothing was left.
    Eof,
    /// A whole line is in the buffer (without its newline).
    Line,
    /// The line had `bytes` bytes; only its first `cap` are in the buffer.
    TooLong { bytes: u64 },
}

/// Reads the next line into `buf`, keeping at most `cap` bytes of it.
pub(crate) fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> Result<Read> {
    buf.clear();
    let mut total: u64 = 0;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if total == 0 {
                Read::Eof
            } else {
                finished(total, cap)
            });
        }
        let newline = chunk.iter().position(|&c| c == b'\n');
        let content = newline.unwrap_or(chunk.len());
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..content.min(room)]);
        total += content as u64;
        input.consume(newline.map_or(content, |n| n + 1));
        if newline.is_some() {
            return Ok(finished(total, cap));
        }
    }
}

fn finished(total: u64, cap: usize) -> Read {
    if total > cap as u64 {
        Read::TooLong { bytes: total }
    } else {
        Read::Line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    #[test]
    fn keeps_at_most_the_cap_and_resumes_at_the_next_line() {
        let input = b"short\n0123456789abcdef\n\nlast".to_vec();
        // A tiny internal buffer, so lines span several reads.
        let mut r = BufReader::with_capacity(3, &input[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf, 8).unwrap(), Read::Line);
        assert_eq!(buf, b"short");
        assert_eq!(
            read_line(&mut r, &mut buf, 8).unwrap(),
            Read::TooLong { bytes: 16 }
        );
        assert_eq!(buf, b"01234567");
        assert_eq!(read_line(&mut r, &mut buf, 8).unwrap(), Read::Line);
        assert_eq!(buf, b"");
        assert_eq!(read_line(&mut r, &mut buf, 8).unwrap(), Read::Line);
        assert_eq!(buf, b"last");
        assert_eq!(read_line(&mut r, &mut buf, 8).unwrap(), Read::Eof);
    }

    #[test]
    fn a_line_of_exactly_the_cap_is_whole() {
        let mut r = BufReader::new(&b"12345678\n"[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf, 8).unwrap(), Read::Line);
        assert_eq!(buf, b"12345678");
    }
}
