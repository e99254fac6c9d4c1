//! The line protocol: command parsing and the session state machine.
