//! The engine in a Web Worker (WebAssembly only; built by
//! `scripts/build-web.sh`): the protocol session of the native binary,
//! fed one message of lines per call, its replies handed to JavaScript as
//! they are written. `src/web/engine-worker.js` is the worker around it and
//! `src/web/engine.js` the page's side (see `protocol.md`, "The engine in a
//! browser").
//!
//! What the worker's JavaScript provides, as the global object
//! `meepleHost` (set before the first [`Engine`] is made):
//!
//! - `output(text)`: reply lines, as written (whole lines);
//! - `stopPending()`, `ponderhitPending()`: true while a `stop` (or
//!   `quit`) / `ponderhit` sent by the page has not been answered yet (the
//!   page counts them in a `SharedArrayBuffer`; always false without one):
//!   a search, which runs within one call, polls them as the native one
//!   polls its stop flag;
//! - `searching(reply)`: a search runs; `reply` is what a stop would
//!   answer now (the best move so far) or null: the page's fallback when it
//!   cannot share a stop flag ends the worker and answers this;
//! - `saved(name, text)`: a save was written (the page keeps it).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};

use wasm_bindgen::prelude::*;

use crate::protocol::input::LineReader;
use crate::protocol::{Session, SessionConfig};
use crate::saves::{MemoryStore, OnWrite, Saves};
use crate::search::OutsideSignals;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = meepleHost, js_name = output)]
    fn host_output(text: &str);
    #[wasm_bindgen(js_namespace = meepleHost, js_name = stopPending)]
    fn host_stop_pending() -> bool;
    #[wasm_bindgen(js_namespace = meepleHost, js_name = ponderhitPending)]
    fn host_ponderhit_pending() -> bool;
    #[wasm_bindgen(js_namespace = meepleHost, js_name = searching)]
    fn host_searching(reply: Option<String>);
    #[wasm_bindgen(js_namespace = meepleHost, js_name = saved)]
    fn host_saved(name: &str, text: &str);

    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(text: &str);
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(text: &str);
    #[wasm_bindgen(js_namespace = console, js_name = info)]
    fn console_info(text: &str);
    #[wasm_bindgen(js_namespace = console, js_name = debug)]
    fn console_debug(text: &str);
}

/// The session's output: bytes gathered until a flush (every reply and
/// every `info` line is flushed), then handed to the page; nothing while
/// muted (a restart replaying the lines of the state it takes over).
struct HostOut {
    buf: Vec<u8>,
    mute: Arc<AtomicBool>,
}

impl Write for HostOut {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            if !self.mute.load(Ordering::Relaxed) {
                host_output(&String::from_utf8_lossy(&self.buf));
            }
            self.buf.clear();
        }
        Ok(())
    }
}

/// `log` to the browser's console.
struct ConsoleLog;

impl log::Log for ConsoleLog {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= log::max_level()
    }

    fn log(&self, r: &log::Record) {
        if !self.enabled(r.metadata()) {
            return;
        }
        let text = format!("meeple: {}", r.args());
        match r.level() {
            log::Level::Error => console_error(&text),
            log::Level::Warn => console_warn(&text),
            log::Level::Info => console_info(&text),
            log::Level::Debug | log::Level::Trace => console_debug(&text),
        }
    }

    fn flush(&self) {}
}

/// What is set up once per worker: the log, the panic message, the
/// outside signals and the search watch.
fn set_up(log_level: &str) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        console_log(log_level);
        crate::search::set_outside_signals(OutsideSignals {
            stop: host_stop_pending,
            ponderhit: host_ponderhit_pending,
        });
        crate::protocol::runner::set_watch(|reply| host_searching(reply.map(str::to_string)));
    });
    log::set_max_level(log_level.parse().unwrap_or(log::LevelFilter::Warn));
}

/// `log` and panics to the browser's console, at `log_level` (`error`,
/// `warn`, `info`, `debug`, `trace` or `off`): the engine's worker and the
/// offline page's table.
pub fn console_log(log_level: &str) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        static LOGGER: ConsoleLog = ConsoleLog;
        let _ = log::set_logger(&LOGGER);
        std::panic::set_hook(Box::new(|info| console_error(&format!("meeple panicked: {info}"))));
    });
    log::set_max_level(log_level.parse().unwrap_or(log::LevelFilter::Warn));
}

/// One engine: the protocol session of the native binary.
#[wasm_bindgen]
pub struct Engine {
    session: Session<HostOut>,
}

#[wasm_bindgen]
impl Engine {
    /// An engine whose default game type is `default_type`, holding the
    /// saves of `saves_json` (an object: name → text of the save, as the
    /// page keeps them). The `restore` lines (see
    /// [`Engine::restore_lines`]) are run first, their replies discarded;
    /// then, if `greet`, the banner is written (a restarted engine
    /// continues a conversation and does not greet again). `log_level`:
    /// `error`, `warn`, `info`, `debug`, `trace` or `off`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        default_type: &str,
        saves_json: &str,
        restore: Vec<String>,
        greet: bool,
        log_level: &str,
    ) -> Result<Engine, String> {
        set_up(log_level);
        crate::registry::new_game(default_type).map_err(|e| format!("default game type: {e}"))?;
        let files: BTreeMap<String, String> = if saves_json.trim().is_empty() {
            BTreeMap::new()
        } else {
            serde_json::from_str(saves_json).map_err(|e| format!("saves: {e}"))?
        };
        let mute = Arc::new(AtomicBool::new(true));
        let out = HostOut { buf: Vec::new(), mute: mute.clone() };
        let config = SessionConfig { default_type: default_type.to_string(), ..SessionConfig::default() };
        let mut session = Session::new(out, config);
        let on_write: OnWrite = Arc::new(|name: &str, text: &str| host_saved(name, text));
        session.set_saves(Saves::in_memory(MemoryStore::new(files, Some(on_write))));
        let mut engine = Engine { session };
        for l in &restore {
            engine.line(l);
        }
        mute.store(false, Ordering::Relaxed);
        if greet {
            engine.session.greet();
        }
        Ok(engine)
    }

    /// Runs the lines of `text` (one or more, `\n`-separated; a line over
    /// the protocol's limit or not valid text is answered with `err` as
    /// natively). A search runs within this call, to its end. Returns the
    /// exit status once the engine must end (`quit`), else nothing.
    pub fn line(&mut self, text: &str) -> Option<u8> {
        let mut reader = LineReader::new(text.as_bytes());
        while let Ok(Some(l)) = reader.next_line() {
            if self.session.should_quit() {
                break;
            }
            self.session.handle_input(l);
        }
        self.session.pump();
        self.session.exit_status()
    }

    /// The lines that bring a fresh engine to this one's state (options,
    /// game with its history and hidden secret, dialect): what the page
    /// gives [`Engine::new`] when it restarts the worker.
    pub fn restore_lines(&self) -> Vec<String> {
        self.session.restore_lines()
    }

    /// The engine's version.
    pub fn version() -> String {
        crate::VERSION.to_string()
    }
}
