//! The engine's pipe in the offline page: the engine in its Web Worker,
//! reached through the page's `MeepleEngine` (`src/web/engine.js`), which
//! sends protocol lines and hands back reply lines exactly as over a pipe.
//! The page's JavaScript provides `meepleOffline.startEngine(onLine,
//! onExit)`, a promise of an object with `send(text)` and `terminate()`
//! (`src/gui/page/offline.js`).

use std::path::Path;

use js_sys::Promise;
use tokio::sync::mpsc;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::time::Instant;

/// Natively the engine process's priority; nothing here (one engine, one
/// worker).
pub const ENGINE_NICE: i32 = 0;

/// How the engine ended: the status `quit` gave, if any.
pub type Status = Option<i32>;

/// The engine's lines, each with when it was read.
pub type Lines = mpsc::UnboundedReceiver<(String, Instant)>;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = meepleOffline, js_name = startEngine)]
    fn start_engine(on_line: &Closure<dyn FnMut(String)>, on_exit: &Closure<dyn FnMut(JsValue)>) -> Promise;

    /// The page's handle on the engine's worker.
    pub type EngineHandle;
    #[wasm_bindgen(method)]
    fn send(this: &EngineHandle, text: &str);
    #[wasm_bindgen(method)]
    fn terminate(this: &EngineHandle);
}

/// The engine's worker.
pub struct Pipe {
    handle: Option<EngineHandle>,
    /// The worker's status once it ended.
    exit: std::rc::Rc<std::cell::Cell<Option<Status>>>,
    // Kept alive while the worker may call them.
    _on_line: Closure<dyn FnMut(String)>,
    _on_exit: Closure<dyn FnMut(JsValue)>,
}

impl Pipe {
    /// Starts the engine's worker (`exe` and `data_dir` are the native
    /// process's: the page keeps the saves).
    pub async fn start(_exe: &Path, _data_dir: &Path) -> Result<(Pipe, Lines), String> {
        let (tx, lines) = mpsc::unbounded_channel();
        let closer = tx.clone();
        let exit = std::rc::Rc::new(std::cell::Cell::new(None));
        let status = exit.clone();
        let on_line = Closure::<dyn FnMut(String)>::new(move |l: String| {
            let _ = tx.send((l, Instant::now()));
        });
        // The worker ended (`quit`): its lines end, once those sent are read.
        let mut closer = Some(closer);
        let on_exit = Closure::<dyn FnMut(JsValue)>::new(move |s: JsValue| {
            status.set(Some(s.as_f64().map(|x| x as i32)));
            closer.take();
        });
        let handle = JsFuture::from(start_engine(&on_line, &on_exit)).await.map_err(|e| {
            format!("cannot start the engine: {}", e.as_string().unwrap_or_else(|| format!("{e:?}")))
        })?;
        let pipe = Pipe { handle: Some(handle.unchecked_into()), exit, _on_line: on_line, _on_exit: on_exit };
        Ok((pipe, lines))
    }

    /// Writes a line (with its newline).
    pub async fn write(&mut self, line: &str) -> Result<(), String> {
        let h = self.handle.as_ref().ok_or("the engine is closed")?;
        h.send(line.strip_suffix('\n').unwrap_or(line));
        Ok(())
    }

    /// Nothing more is sent (the worker ends at `quit`).
    pub fn close(&mut self) {
        self.handle = None;
    }

    /// Ends the worker at once.
    pub fn kill(&mut self) {
        if let Some(h) = self.handle.take() {
            h.terminate();
        }
    }

    pub fn pid(&self) -> Option<u32> {
        None
    }

    /// How the worker ended (killed: ended now).
    pub async fn reap(&mut self) -> Option<Status> {
        self.kill();
        self.exit.get()
    }
}
