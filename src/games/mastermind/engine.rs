//! Mastermind's engine services: options (the codemaker and its secret),
//! the codebreakers, `analyze` (the codes still possible), `review` and
//! `meeple bench mastermind`.

use rand::rngs::StdRng;

use super::{MakerMode, Mastermind, MmMove, analyze, bench, breakers, review};
use crate::engine::{Engine, StrategySpec};
use crate::options::{OptionSpec, OptionValues};
use crate::search::SearchCtx;

impl Engine for Mastermind {
    /// `Secret` (a code) fixes the secret; else no secret is fixed, and
    /// `Codemaker` says how the engine answers (`random`: for a code drawn
    /// among those still consistent when it answers; `adversarial`,
    /// `none`: adversarially).
    fn configure(&mut self, options: &OptionValues, _rng: &mut StdRng) {
        let given = options.get_str("Secret").unwrap_or("").trim();
        let secret = if !given.is_empty() {
            match self.spec.parse_code(given) {
                Ok(c) => Some(c),
                Err(e) => {
                    log::warn!("option Secret '{given}' ignored: {e}");
                    None
                }
            }
        } else {
            None
        };
        let mode = options.get_str("Codemaker").unwrap_or("random");
        self.maker =
            if mode.eq_ignore_ascii_case("random") { MakerMode::Random } else { MakerMode::Adversarial };
        self.set_secret(secret);
    }

    fn options() -> Vec<OptionSpec> {
        let names: Vec<&'static str> = Self::strategies().iter().map(|s| s.name).collect();
        vec![
            OptionSpec::choice("Strategy", "entropy", &names, "Mastermind codebreaker strategy"),
            OptionSpec::choice(
                "Codemaker",
                "random",
                &["random", "adversarial", "none"],
                "how the engine answers as codemaker when no Secret is set: random (for a code drawn among those consistent so far, from Seed), adversarial/none (keeps the most codes); any consistent feedback is accepted from others",
            ),
            OptionSpec::string(
                "Secret",
                "",
                "a fixed secret for new games: only its feedback is legal (overrides Codemaker)",
            ),
        ]
    }

    fn strategies() -> Vec<StrategySpec<Self>> {
        breakers::strategies()
    }

    fn analyze(&self, args: &str, ctx: &mut SearchCtx) -> Result<Vec<String>, String> {
        analyze::analyze(self, args, ctx)
    }

    /// `review`: each guess judged by the codes it leaves (see `review.rs`).
    fn review(
        start: &Self,
        moves: &[MmMove],
        rv: &mut crate::engine::review::Reviewer,
    ) -> Result<(), String> {
        review::review(start, moves, rv)
    }

    fn bench(args: &[String], out: &mut dyn std::io::Write) -> Result<(), String> {
        bench::bench(args, out)
    }

    fn bench_cli() -> clap::Command {
        bench::cli()
    }

    /// Counts without listing the guesses (`Mastermind+8x10+blanks` has
    /// 11^8 of them): depth 1 on the breaker's turn is the number of codes,
    /// and deeper counts walk the codes one at a time.
    fn perft(&mut self, depth: u32) -> u64 {
        perft(self, depth)
    }
}

fn perft(g: &mut Mastermind, depth: u32) -> u64 {
    use crate::game::Game;
    if depth == 0 {
        return 1;
    }
    if g.outcome().is_some() {
        return 0;
    }
    if g.pending.is_none() {
        if depth == 1 {
            return g.spec.code_count();
        }
        let spec = g.spec;
        let mut total = 0;
        super::consistent::for_each_consistent(&spec, &[], &mut |c| {
            let mv = super::MmMove::Guess(c);
            g.play(mv);
            total += perft(g, depth - 1);
            g.undo(mv);
            std::ops::ControlFlow::Continue(())
        });
        return total;
    }
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for m in moves {
        g.play(m);
        total += perft(g, depth - 1);
        g.undo(m);
    }
    total
}
