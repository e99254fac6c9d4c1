//! `meeple gui`: a game-agnostic GUI in the browser.
//!
//! A small web server (axum on tokio) serves one page (HTML, CSS and
//! JavaScript modules embedded in the binary) and a WebSocket. Each table
//! ([`table::Table`], in named parts) has its own engine process (this
//! executable with no subcommand), driven over the line protocol only
//! ([`client`]), so the GUI knows no game.
//!
//! The rooms, from the top: this file (the server: files, the WebSocket,
//! admitting browsers), [`table`] (a table's task and its parts), [`conn`]
//! (one browser's socket), [`config`] (what every table shares),
//! [`record`] (results), and at the ground [`room`] (the people at a
//! table and their outboxes), [`client`] (the engine process),
//! [`clock`] and [`rounds`]. No two of them import each other. A table is reached by its unguessable token; its
//! seats by keys ([`room`]): the host's in the host's own link, the other
//! seat's in the invitation link the host hands on.
//!
//! The server holds under hostile use, its memory bounded whoever
//! connects and however many: at most `--max-engines` engine processes (a
//! new table past it is refused with a message) and `--max-spectators`
//! spectators a table (one past it is told so); tables nobody is connected
//! to or where nothing happens are closed and their engines reaped; every
//! message to browsers is made once and shared, the bytes waiting for
//! browsers are counted server-wide against `--max-queued-mb` (past it a
//! browser that is behind is dropped and a new one refused with a
//! message), each browser's queue keeps only the newest state and is
//! bounded ([`outbox`]: a browser that does not read is dropped); a
//! WebSocket message is limited to 64 KiB as its frame header arrives,
//! before anything is buffered, and each connection's read buffer is
//! small. The results database is worked on off every table's task
//! ([`record::Recorder`]).
//!
//! The same table also runs in the offline page (WebAssembly, `web.rs`):
//! what the web lacks is behind one seam each: the runtime ([`rt`]:
//! spawning, timers), the engine ([`client`]: a process natively, the
//! engine's Web Worker in the page), the results ([`record`]: SQLite
//! natively, the browser's storage in the page); the server, its sockets
//! and its admission are native only.

pub mod client;
pub mod clock;
pub mod config;
#[cfg(not(target_arch = "wasm32"))]
pub mod conn;
pub mod outbox;
pub mod record;
pub mod room;
pub mod rounds;
pub mod rt;
#[cfg(not(target_arch = "wasm32"))]
mod server;
pub mod table;
#[cfg(target_arch = "wasm32")]
pub mod web;

pub use config::{Config, Rooms};
pub use room::token;
#[cfg(not(target_arch = "wasm32"))]
pub use server::*;
