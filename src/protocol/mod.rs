//! The line protocol (see `protocol.md`), in rooms:
//!
//! - `input`: reading lines safely, and the reader thread with its bounded
//!   budget (back-pressure); `terminal`: line editing for a person;
//! - `command`: parsing one line into a [`Command`] (nom);
//! - `session`: the one state machine, its queue and its events;
//!   `dispatch`: what each command does; `settings`: the options;
//! - `runner`: a search on its own thread; `clock`: time limits;
//!   `review`: the `review` command on the search thread;
//! - `dialect`: meeple's own, UCI and UGI framing; `output`: the shared
//!   stdout; `help`: the help texts.

pub mod clock;
pub mod command;
pub mod dialect;
mod dispatch;
mod event_loop;
pub mod help;
pub mod input;
pub mod output;
mod review;
pub mod runner;
pub mod session;
pub mod settings;
pub mod terminal;

pub use command::{Command, ParseError, parse_command};
pub use event_loop::run_stdio;
pub use session::{Session, SessionConfig, Signal};
