//! Mastermind's engine services: options (the codemaker and its secret),
//! the codebreakers, `analyze` (the codes still possible) and `meeple bench
//! mastermind`.

use rand::rngs::StdRng;

use super::{Mastermind, analyze, bench, breakers};
use crate::engine::{Engine, StrategySpec};
use crate::options::{OptionSpec, OptionValues};
use crate::search::SearchCtx;

impl Engine for Mastermind {
    /// `Secret` (a code) fixes the secret; else `Codemaker` = `random`
    /// draws one from `rng`; `adversarial` and `none` keep no secret.
    fn configure(&mut self, options: &OptionValues, rng: &mut StdRng) {
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
        self.drawn = secret.is_none() && mode.eq_ignore_ascii_case("random");
        let secret = secret.or_else(|| self.drawn.then(|| Mastermind::random_code(&self.spec, rng)));
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
                "random: the game holds a secret drawn from Seed; adversarial/none: no secret (a person or the adversarial engine answers)",
            ),
            OptionSpec::string("Secret", "", "the secret code of new games (overrides Codemaker)"),
        ]
    }

    fn strategies() -> Vec<StrategySpec<Self>> {
        breakers::strategies()
    }

    fn analyze(&self, args: &str, ctx: &mut SearchCtx) -> Result<Vec<String>, String> {
        analyze::analyze(self, args, ctx)
    }

    fn bench(args: &[String], out: &mut dyn std::io::Write) -> Result<(), String> {
        bench::bench(args, out)
    }

    fn bench_cli() -> clap::Command {
        bench::cli()
    }
}
