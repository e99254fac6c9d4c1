//! Reading protocol lines safely: bounded length, UTF-8 checked, never
//! buffering more than the limit whatever the input (a longer line is
//! dropped as it streams in, only counted); and the input budget that gives
//! back-pressure: the reader thread takes a share of a fixed budget for
//! every line and waits while the lines not yet run hold it all, so a
//! client that writes without reading stops being read and the engine's
//! memory stays flat. A line's share is reckoned from the text it holds:
//! a refused line holds none, so no single line can take the whole budget
//! and leave a `stop` behind it unread.

use std::io::{self, BufRead};
use std::sync::{Arc, Condvar, Mutex};

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
            len = len.saturating_add(part.len());
            if len <= self.max {
                buf.extend_from_slice(part);
            } else if buf.capacity() > 0 {
                // Over the limit: what was kept goes at once, and the rest
                // of the line is only counted as it streams past.
                buf = Vec::new();
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

/// Bytes of input that may wait to run (lines count their length plus a
/// fixed cost, so many short lines are bounded too).
pub const INPUT_BUDGET: usize = 4 << 20;
/// What every line costs besides its text.
const LINE_COST: usize = 1024;

/// The shared input budget.
#[derive(Debug)]
pub struct Budget {
    used: Mutex<usize>,
    freed: Condvar,
    cap: usize,
}

impl Budget {
    pub fn new(cap: usize) -> Arc<Budget> {
        Arc::new(Budget { used: Mutex::new(0), freed: Condvar::new(), cap })
    }

    /// Takes the share of a line of `len` bytes, waiting while the budget
    /// is spent (a line alone always fits).
    pub fn acquire(self: &Arc<Self>, len: usize) -> Permit {
        let bytes = len.saturating_add(LINE_COST).min(self.cap);
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        while *used > 0 && *used + bytes > self.cap {
            used = self.freed.wait(used).unwrap_or_else(|p| p.into_inner());
        }
        *used += bytes;
        Permit { budget: self.clone(), bytes }
    }

    /// Bytes held now.
    pub fn used(&self) -> usize {
        *self.used.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A line's share of the budget, given back when dropped (when the line's
/// command has run).
#[derive(Debug)]
pub struct Permit {
    budget: Arc<Budget>,
    bytes: usize,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut used = self.budget.used.lock().unwrap_or_else(|p| p.into_inner());
        *used -= self.bytes;
        self.budget.freed.notify_all();
    }
}

impl InputLine {
    /// Bytes of text the line holds while it waits for its turn: what its
    /// share of the input budget is reckoned from. A refused line (too
    /// long, not UTF-8) holds none: its bytes were dropped as they were
    /// read, and only its error message waits.
    pub fn held(&self) -> usize {
        match self {
            InputLine::Line(l) => l.len(),
            InputLine::TooLong(_) | InputLine::NotUtf8 => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_blocks_and_frees() {
        let b = Budget::new(3000);
        let p1 = b.acquire(100);
        let p2 = b.acquire(100);
        assert_eq!(b.used(), 2248);
        let b2 = b.clone();
        let t = std::thread::spawn(move || {
            let _p3 = b2.acquire(100);
        });
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!t.is_finished(), "a third line waits");
        drop(p1);
        t.join().unwrap();
        drop(p2);
        assert_eq!(b.used(), 0);
        // A line larger than the whole budget still gets through alone.
        let big = b.acquire(1 << 20);
        drop(big);
        assert_eq!(b.used(), 0);
    }

    /// Issue 27 item 1: a refused line longer than the whole budget took
    /// it all, so the `stop` behind it waited for a share forever (the
    /// engine went deaf). Its share is now the fixed cost of its message.
    #[test]
    fn a_refused_line_takes_no_share_of_its_length() {
        let b = Budget::new(INPUT_BUDGET);
        let mut input = vec![b'x'; INPUT_BUDGET + 1000];
        input.extend_from_slice(b"\nstop\n");
        let mut r = LineReader::new(io::BufReader::new(&input[..]));
        let long = r.next_line().unwrap().unwrap();
        assert_eq!(long, InputLine::TooLong(INPUT_BUDGET + 1000));
        // Held by the queue (a search runs): the line's permit.
        let _queued = b.acquire(long.held());
        assert!(b.used() <= LINE_COST, "{}", b.used());
        let stop = r.next_line().unwrap().unwrap();
        assert_eq!(stop, InputLine::Line("stop".into()));
        // Taken at once, not after the search.
        let (tx, rx) = std::sync::mpsc::channel();
        let b2 = b.clone();
        std::thread::spawn(move || {
            let p = b2.acquire(stop.held());
            let _ = tx.send(());
            drop(p);
        });
        rx.recv_timeout(std::time::Duration::from_secs(30)).expect("stop gets its share at once");
    }

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
