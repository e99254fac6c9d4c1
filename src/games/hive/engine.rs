//! Hive's engine services: options, players, `review`, the bulk-counting perft and
//! `meeple bench hive` (perft, or the search of fixed positions).

use super::{Hive, perft, players, review};
use crate::engine::{Engine, StrategySpec};
use crate::options::{OptionSpec, OptionValues};

impl Engine for Hive {
    fn options() -> Vec<OptionSpec> {
        let names: Vec<&'static str> = Self::strategies().iter().map(|s| s.name).collect();
        vec![
            OptionSpec::choice("Strategy", names[0], &names, "Hive AI player"),
            OptionSpec::int("Depth", 3, 1, 20, "search depth of alphabeta when bestmove/go gives none"),
            OptionSpec::int("Skill", 20, 0, 20, "strength of alphabeta: 20 full, 0 random moves"),
            OptionSpec::bool(
                "RepetitionDraw",
                false,
                "a position repeated three times is a draw (applies from the next newgame)",
            ),
        ]
    }

    fn configure(&mut self, options: &OptionValues, _rng: &mut rand::rngs::StdRng) {
        self.set_repetition_draw(options.get_bool("RepetitionDraw").unwrap_or(false));
    }

    fn strategies() -> Vec<StrategySpec<Self>> {
        players::strategies()
    }

    /// `review`: every move judged by the search's winning chance (see
    /// `review.rs`).
    fn review(
        start: &Self,
        moves: &[super::mv::Move],
        rv: &mut crate::engine::review::Reviewer,
    ) -> Result<(), String> {
        review::review(start, moves, rv)
    }

    fn perft(&mut self, depth: u32) -> u64 {
        perft::perft(self, depth)
    }

    /// `meeple bench hive [--depth N] [GameType|GameString...]`: perft of
    /// every game type (or of the given positions), timed; with
    /// `--search`, the AI's search of fixed positions to a fixed depth.
    fn bench(args: &[String], out: &mut dyn std::io::Write) -> Result<(), String> {
        perft::bench(args, out)
    }

    fn bench_cli() -> clap::Command {
        perft::bench_cli()
    }
}
