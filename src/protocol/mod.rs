//! The line protocol (see `protocol.md`): command parsing, the session
//! state machine, input reading and the engine loop.

pub mod command;
pub mod input;
pub mod session;

pub use command::{Command, ParseError, parse_command};
pub use session::Session;
