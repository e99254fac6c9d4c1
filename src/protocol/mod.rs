//! The line protocol (see `protocol.md`), in rooms:
//!
//! - `input`: reading lines safely, and the reader thread with its bounded
//!   budget (back-pressure); `terminal`: line editing for a person;
//!   `event_loop`: the engine on stdin/stdout (native; the web worker's
//!   loop is `crate::web`);
//! - `command`: parsing one line into a [`Command`] (nom);
//! - `session`: the one state machine, its queue and its events;
//!   `dispatch`: what each command does; `settings`: the options;
//! - `runner`: a search on its own thread (where there are threads);
//!   `clock`: time limits; `snapshot`: the lines that rebuild a session;
//!   `review`: the `review` command on the search thread;
//! - `dialect`: meeple's own, UCI and UGI framing; `output`: the shared
//!   stdout; `help`: the help texts.

pub mod clock;
pub mod command;
pub mod dialect;
mod dispatch;
#[cfg(not(target_arch = "wasm32"))]
mod event_loop;
pub mod help;
pub mod input;
pub mod output;
mod review;
pub mod runner;
pub mod session;
pub mod settings;
mod snapshot;
#[cfg(not(target_arch = "wasm32"))]
pub mod terminal;

pub use command::{Command, ParseError, parse_command};
#[cfg(not(target_arch = "wasm32"))]
pub use event_loop::run_stdio;
pub use session::{Session, SessionConfig, Signal};
