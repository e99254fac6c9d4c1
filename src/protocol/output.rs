//! The engine's stdout as the session and its search threads share it: a
//! locked writer to which every reply is written as one block (the
//! cleaning that keeps a line one line is `crate::text::clean`).

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
