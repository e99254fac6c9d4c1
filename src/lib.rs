//! meeple: a game engine for Mastermind, Connect Four and Hive that speaks a
//! line protocol on stdin/stdout (see `protocol.md`).
//!
//! The rooms, from the ground up (a room uses only rooms below it; the
//! end-to-end test `house` checks that the `crate::` references between
//! them form no cycle):
//! - [`time`]: the clock; [`threads`]: where threads are started (the
//!   two seams between the engine and the platform: see "WebAssembly").
//! - [`text`]: protocol-safe text (printable, clipped, one line);
//!   [`options`]: typed engine options; [`boardview`]: a game-agnostic
//!   picture of a position; [`movetree`]: the tree of a move's decisions.
//! - [`game`]: the rules trait (rules, notation, what a position shows);
//!   [`gamestring`]: the GameString's fields and loading one into a game.
//! - [`search`]: the game-agnostic search (limits, context, players, pvs,
//!   negamax, perft); [`engine`]: the engine services trait.
//! - [`games`]: one module per game, each implementing both traits.
//! - [`registry`]: the list of games, the GameString loader and the
//!   type-erased game the protocol drives; [`gamelist`], [`saves`].
//! - [`results`]: the results database (finished games, matches, the
//!   leaderboard); it knows no game and uses only [`text`].
//! - [`protocol`]: the command parser and session; [`gui`]: the browser
//!   GUI, which talks to engines only through the protocol; [`play`]: a
//!   game at the terminal (`meeple play`), on an in-process session.
//! - `web` (WebAssembly only): the engine in a Web Worker (the offline
//!   page's table, `gui::web`, logs through it).
//!
//! # WebAssembly
//!
//! The games, the search and the protocol session also build for
//! `wasm32-unknown-unknown` (`scripts/build-web.sh`), from these sources.
//! What the web lacks is behind one seam each: the clock ([`time`]),
//! threads ([`threads`]: one, the worker's), files (the saves' storage,
//! [`saves`]), and the protocol's input loop (`web` answers one line per
//! call). The browser GUI's table also builds there, for the offline page
//! ([`gui`]: its runtime, engine and results behind seams of their own);
//! the GUI's server, the terminal game and the results database (SQLite;
//! [`results`]' records, checks and names build for both) are native only.

pub mod boardview;
pub mod engine;
pub mod game;
pub mod gamelist;
pub mod games;
pub mod gamestring;
pub mod gui;
pub mod movetree;
pub mod options;
#[cfg(not(target_arch = "wasm32"))]
pub mod play;
pub mod protocol;
pub mod registry;
pub mod results;
pub mod saves;
pub mod search;
pub mod text;
pub mod threads;
pub mod time;
#[cfg(target_arch = "wasm32")]
pub mod web;

/// The engine's version, as printed by `info`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
