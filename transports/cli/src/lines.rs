//! Reading stdin one line at a time with a cap on a line's length: a line over the cap is
//! skipped to its newline without being buffered and reported as [`Line::TooLong`], so no
//! input can make the sidecar hold more than [`MAX_LINE`] bytes of a line. Bytes, not
//! text: a line that is not UTF-8 is still a line (the parser answers it).

use std::io::{self, BufRead};

/// The longest stdin line `watch` reads (1 MiB, without its newline); a longer line is
/// answered with a `bad_request` error naming this limit.
pub const MAX_LINE: usize = 1 << 20;

/// One line of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A line within the cap, without its `\n` (nor a `\r` before it).
    Bytes(Vec<u8>),
    /// A line over the cap: its length in bytes; its content was skipped.
    TooLong {
        /// How many bytes it had.
        len: usize,
    },
}

/// Reads [`Line`]s from `input` with lines capped at `cap` bytes.
///
/// ```
/// use cdp_supervise::lines::{Line, LineReader};
/// let mut r = LineReader::new(&b"{\"cmd\":\"stop\"}\r\nxxxxxxxx\n\xff"[..], 4);
/// assert_eq!(r.next_line()?, Some(Line::TooLong { len: 14 }));
/// assert_eq!(r.next_line()?, Some(Line::TooLong { len: 8 }));
/// assert_eq!(r.next_line()?, Some(Line::Bytes(vec![0xff])));
/// assert_eq!(r.next_line()?, None);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct LineReader<R> {
    input: R,
    cap: usize,
}

impl<R: BufRead> LineReader<R> {
    /// A reader of `input` capping lines at `cap` bytes.
    pub fn new(input: R, cap: usize) -> Self {
        LineReader { input, cap }
    }

    /// The next line, or `None` at end of input (a last line without a newline counts).
    /// An interrupted read is retried; any other read error is returned.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut line = Vec::new();
        let mut len: usize = 0;
        let mut any = false;
        let mut ends_cr = false;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(any.then(|| self.finish(line, len, ends_cr)));
            }
            any = true;
            let (chunk, used, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (buf.get(..i).unwrap_or_default(), i.saturating_add(1), true),
                None => (buf, buf.len(), false),
            };
            len = len.saturating_add(chunk.len());
            if let Some(&last) = chunk.last() {
                ends_cr = last == b'\r';
            }
            if len <= self.cap.saturating_add(1) {
                // One byte over the cap is kept: it may be the `\r` of a `\r\n`.
                line.extend_from_slice(chunk);
            } else {
                line = Vec::new();
            }
            self.input.consume(used);
            if done {
                return Ok(Some(self.finish(line, len, ends_cr)));
            }
        }
    }

    fn finish(&self, mut line: Vec<u8>, mut len: usize, ends_cr: bool) -> Line {
        if ends_cr {
            len = len.saturating_sub(1);
            line.truncate(len);
        }
        if len > self.cap {
            Line::TooLong { len }
        } else {
            Line::Bytes(line)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], cap: usize) -> Vec<Line> {
        let mut r = LineReader::new(io::BufReader::with_capacity(3, input), cap);
        std::iter::from_fn(|| r.next_line().unwrap()).collect()
    }

    #[test]
    fn lines_at_and_over_the_cap() {
        assert_eq!(
            all(b"abcd\nabcde\nab\r\n\n", 4),
            vec![
                Line::Bytes(b"abcd".to_vec()),
                Line::TooLong { len: 5 },
                Line::Bytes(b"ab".to_vec()),
                Line::Bytes(Vec::new()),
            ]
        );
        assert_eq!(all(b"abcd\r\n", 4), vec![Line::Bytes(b"abcd".to_vec())]);
        assert_eq!(all(b"abcde\r\n", 4), vec![Line::TooLong { len: 5 }]);
        assert_eq!(all(b"", 4), vec![]);
        assert_eq!(all(b"xyz", 4), vec![Line::Bytes(b"xyz".to_vec())]);
        let huge = vec![b'y'; 100_000];
        assert_eq!(all(&huge, 10), vec![Line::TooLong { len: 100_000 }]);
    }
}
