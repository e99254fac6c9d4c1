//! What the engine offers for a game beyond its rules: options, the AI
//! players (strategies), analysis, benchmarks, opening books, solvers,
//! perft, and how a proven score reads as UCI's `mate N`.
//!
//! [`Game`] holds the rules and knows nothing of the search; [`Engine`] is
//! the second trait each game implements in its own module (for example
//! `games/connect4/engine.rs`). The registry builds a family from both.
//! What a game review shares between the games is in [`review`].

pub mod review;

use std::io::{BufRead, Write};

use rand::rngs::StdRng;

use crate::game::Game;
use crate::options::{OptionSpec, OptionValues};
use crate::search::{Player, SearchCtx};

/// A factory of strategies (AI players) for one game, keyed by the
/// `Strategy` option value.
pub struct StrategySpec<G: Game> {
    pub name: &'static str,
    pub help: &'static str,
    pub make: fn(&OptionValues) -> Box<dyn Player<G>>,
}

/// The engine services of a game.
pub trait Engine: Game {
    /// Options of this game family (besides the engine-wide ones). Must
    /// include an enum option `Strategy` whose choices are `strategies()`.
    fn options() -> Vec<OptionSpec>;
    /// The AI players of this game.
    fn strategies() -> Vec<StrategySpec<Self>>;

    /// Applies the options to a freshly created game, before any move is
    /// played (called by `newgame`, `position` and `load`). Mastermind uses
    /// it to draw or take the secret code, Hive to turn the repetition
    /// draw on. Default: nothing.
    fn configure(&mut self, _options: &OptionValues, _rng: &mut StdRng) {}

    /// A proven score in the game's own convention (`Score::Exact`) as
    /// UCI's `mate N`: the side to move wins (N > 0) or loses (N < 0) in N
    /// of its own moves. `None` for a draw or where the game has no such
    /// reading.
    fn mate_in(&self, _exact: i32) -> Option<i32> {
        None
    }

    /// `analyze [ARGS]` in the protocol: a game-specific analysis of the
    /// current position (Connect Four: the score of every column;
    /// Mastermind: the codes still possible). Runs on the search thread, so
    /// it must honour `ctx` (stop flag, time). Returns the reply lines.
    fn analyze(&self, _args: &str, _ctx: &mut SearchCtx) -> Result<Vec<String>, String> {
        Err(format!("analyze is not available for {}", Self::FAMILY))
    }

    /// `review`: judges every move of the game that starts at `start` and
    /// goes on with `moves` (protocol.md, "`review`"): one
    /// [`review::PlyReview`] per ply, in order, through
    /// [`review::Reviewer::judged`], each position searched within the
    /// reviewer's limits ([`review::Reviewer::search`]); returns early,
    /// judging no more, once [`review::Reviewer::stopped`]. Runs on the
    /// search thread.
    fn review(_start: &Self, _moves: &[Self::Move], _rv: &mut review::Reviewer) -> Result<(), String> {
        Err(format!("review is not available for {}", Self::FAMILY))
    }

    /// `meeple bench <family> ARGS...` on the command line: the family's
    /// benchmark, printing to `out`.
    fn bench(_args: &[String], _out: &mut dyn Write) -> Result<(), String> {
        Err(format!("no benchmark for {}", Self::FAMILY))
    }

    /// The command-line arguments of `meeple bench <family>`, for `--help`
    /// and argument checking (the same clap command [`Engine::bench`]
    /// parses with). Default: none.
    fn bench_cli() -> clap::Command {
        clap::Command::new(Self::FAMILY)
    }

    /// `meeple book <family> ARGS...`: builds or checks the family's
    /// opening book. Default: the family has none.
    fn book(_args: &[String], _out: &mut dyn Write) -> Result<(), String> {
        Err(format!("no opening book for {}", Self::FAMILY))
    }

    /// The command-line arguments of `meeple book <family>` (see
    /// [`Engine::bench_cli`]).
    fn book_cli() -> Option<clap::Command> {
        None
    }

    /// `meeple solve <GameType> ARGS...`: reads positions from `input` and
    /// prints their solutions to `out`; `self` is the empty position of the
    /// requested type.
    fn solve(&self, _args: &[String], _input: &mut dyn BufRead, _out: &mut dyn Write) -> Result<(), String> {
        Err(format!("solve is not available for {}", Self::FAMILY))
    }

    /// Perft: number of leaf positions after exactly `depth` plies
    /// (finished games are not extended). Games may override with a faster
    /// bulk-counting version.
    fn perft(&mut self, depth: u32) -> u64 {
        crate::search::perft::perft(self, depth)
    }
}
