//! The engine's stdout as the session and its search threads share it: a
//! locked writer to which every reply is written as one block, and the
//! cleaning that keeps a line one line.

use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};

use log::error;

/// A shared, locked output.
pub struct Out<W>(Arc<Mutex<W>>);

impl<W> Clone for Out<W> {
    fn clone(&self) -> Self {
        Out(self.0.clone())
    }
}

impl<W: Write> Out<W> {
    pub fn new(w: W) -> Self {
        Out(Arc::new(Mutex::new(w)))
    }

    /// The writer itself (tests read what was written).
    pub fn shared(&self) -> Arc<Mutex<W>> {
        self.0.clone()
    }

    /// Holds the output: nothing else is written until the guard drops.
    pub fn lock(&self) -> MutexGuard<'_, W> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes `text` (whole lines) at once.
    pub fn write_block(&self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut o = self.lock();
        if o.write_all(text.as_bytes()).and_then(|_| o.flush()).is_err() {
            error!("cannot write to stdout");
        }
    }
}

/// Makes `s` safe to print as (part of) one protocol line: line breaks and
/// other control characters become spaces or `?`, so no text from input or
/// a file can start a line of its own.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => ' ',
            c if c.is_control() => '?',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_keeps_one_line() {
        assert_eq!(clean("a\nok\rb\u{1b}[31m\u{0}é"), "a ok b?[31m?é");
    }
}
