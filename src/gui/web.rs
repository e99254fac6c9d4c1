//! The table in the offline page (WebAssembly only): the same table as
//! the server's ([`crate::gui::table::Table`]), on the page's event loop,
//! its engine in a Web Worker ([`crate::gui::client`]), its results in the
//! browser's storage ([`crate::gui::record`]); the page is its one browser,
//! the host. The page's `net.js` talks to it with the messages it sends
//! over the WebSocket natively (`src/gui/page/offline.js`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Semaphore, mpsc};
use wasm_bindgen::prelude::*;

use crate::gui::client::Engine;
use crate::gui::config::Config;
use crate::gui::outbox::{Budget, outbox};
use crate::gui::record::Recorder;
use crate::gui::room::Event;
use crate::gui::rt;
use crate::gui::table::Table;
use crate::time::Instant;

/// Events waiting for the table.
const TABLE_QUEUE: usize = 64;
/// Largest Hash (MB) the page may give its engine (a worker's memory is
/// the browser tab's, a phone's among them), and the one it gets unless
/// asked.
pub const MAX_HASH: u32 = 128;
pub const DEFAULT_HASH: u32 = 64;
/// The page's one browser id at its table.
const PAGE: u64 = 1;

/// The settings of the offline page's table: one engine of one thread,
/// nobody else (no invitation, no spectators), never closed for being idle.
fn config() -> Config {
    let forever = Duration::from_secs(100 * 365 * 24 * 3600);
    Config {
        exe: PathBuf::new(),
        data_dir: PathBuf::new(),
        max_hash: MAX_HASH,
        default_hash: DEFAULT_HASH,
        max_threads: 1,
        rejoin: forever,
        idle: forever,
        engines: Arc::new(Semaphore::new(1)),
        max_engines: 1,
        max_spectators: 0,
        budget: Budget::unlimited(),
        results: Recorder::new(),
        networked: false,
    }
}

/// The offline page's table.
#[wasm_bindgen]
pub struct OfflineTable {
    tx: mpsc::Sender<Event>,
}

#[wasm_bindgen]
impl OfflineTable {
    /// Starts the engine and the table and joins the page as its host;
    /// every message of the table to the page is given to `on_message` (a
    /// JSON text, as over the WebSocket).
    pub async fn open(on_message: js_sys::Function, log_level: String) -> Result<OfflineTable, String> {
        crate::web::console_log(&log_level);
        let cfg = Arc::new(config());
        let engine = Engine::spawn(&cfg.exe, &cfg.data_dir, None).await?;
        let rooms = Arc::new(Mutex::new(HashMap::new()));
        let table = Table::new(cfg, engine, rooms);
        let host = table.host_key();
        let (tx, rx) = mpsc::channel(TABLE_QUEUE);
        rt::spawn(table.run(rx));
        let (outbox, out) = outbox();
        tx.send(Event::Join { id: PAGE, outbox, me: Some(host) })
            .await
            .map_err(|_| "the table has closed")?;
        rt::spawn(async move {
            while let Some(m) = out.recv().await {
                if let Err(e) = on_message.call1(&JsValue::NULL, &JsValue::from_str(m.text())) {
                    log::error!("gui: the page's handler failed: {e:?}");
                }
            }
        });
        Ok(OfflineTable { tx })
    }

    /// A message of the page (JSON, as over the WebSocket), timed now.
    pub fn send(&self, text: String) {
        let ev = Event::Msg { id: PAGE, text, at: Instant::now() };
        let tx = self.tx.clone();
        // In order: each waits its turn for room in the table's queue.
        rt::spawn(async move {
            let _ = tx.send(ev).await;
        });
    }
}
