//! Reading protocol lines safely: bounded length, UTF-8 checked, never
//! buffering more than the limit whatever the input.

use std::io::{self, BufRead};

/// Longest line executed, in bytes (without the newline).
pub const MAX_LINE: usize = 65536;

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputLine {
    Line(String),
    /// A line longer than the limit (its length in bytes); it was skipped.
    TooLong(usize),
    /// A line that is not valid UTF-8; it was skipped.
    NotUtf8,
}

/// Splits a byte stream into [`InputLine`]s.
pub struct LineReader<R> {
    inner: R,
    max: usize,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_LINE)
    }

    pub fn with_limit(inner: R, max: usize) -> Self {
        LineReader { inner, max }
    }

    /// The next line, or `None` at end of input.
    pub fn next_line(&mut self) -> io::Result<Option<InputLine>> {
        let mut buf: Vec<u8> = Vec::new();
        let mut len = 0usize;
        let mut any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(p) => (&chunk[..p], Some(p + 1)),
                None => (chunk, None),
            };
            len += part.len();
            if len <= self.max {
                buf.extend_from_slice(part);
            }
            let consumed = done.unwrap_or(chunk.len());
            self.inner.consume(consumed);
            if done.is_some() {
                break;
            }
        }
        if len > self.max {
            return Ok(Some(InputLine::TooLong(len)));
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Ok(Some(match String::from_utf8(buf) {
            Ok(s) => InputLine::Line(s),
            Err(_) => InputLine::NotUtf8,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<InputLine> {
        let mut r = LineReader::with_limit(io::BufReader::with_capacity(7, input), max);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push(l);
        }
        out
    }

    #[test]
    fn splits_lines() {
        assert_eq!(
            lines(b"a\r\nbc\n\nd", 100),
            vec![
                InputLine::Line("a".into()),
                InputLine::Line("bc".into()),
                InputLine::Line("".into()),
                InputLine::Line("d".into())
            ]
        );
        assert_eq!(lines(b"", 100), vec![]);
    }

    #[test]
    fn long_and_binary_lines() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\nok\n\xff\xfe\nend\n");
        assert_eq!(
            lines(&input, 20),
            vec![
                InputLine::TooLong(50),
                InputLine::Line("ok".into()),
                InputLine::NotUtf8,
                InputLine::Line("end".into())
            ]
        );
    }
}
