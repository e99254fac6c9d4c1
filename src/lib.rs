//! meeple: a game engine for Mastermind, Connect Four and Hive that speaks a
//! line protocol on stdin/stdout (see `protocol.md`).
//!
//! Layout: [`game`] is the rules trait, [`registry`] the list of games and
//! the type-erased game the protocol drives, [`search`] the game-agnostic
//! search plumbing, [`protocol`] the command parser and session,
//! [`games`] one module per game.

pub mod boardview;
pub mod game;
pub mod gamelist;
pub mod games;
pub mod gamestring;
pub mod gui;
pub mod movetree;
pub mod options;
pub mod protocol;
pub mod registry;
pub mod saves;
pub mod search;

/// The engine's version, as printed by `info`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
