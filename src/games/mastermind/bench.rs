//! `meeple bench mastermind --strategy S [--game T] [--secrets all|N]
//! [--seed N] [--no-cache]`: plays strategy S as codebreaker against every
//! secret (or N random ones) with a truthful codemaker and prints one line:
//!
//! ```text
//! total=5801 average=4.4761 max=5 distribution=1/6/62/533/694 failed=0 seconds=0.41 ms_per_game=0.32 max_move_ms=35.1
//! ```
//!
//! `total`/`average`/`max`/`distribution` are over the games won
//! (`distribution` = games won in 1, 2, 3, ... guesses); `failed` counts
//! games not won within the rows. One player serves every game, so its
//! caches (decisions of deterministic strategies, the optimal solver's
//! table of solved sets) carry over from game to game as they would in a
//! session; `--no-cache` makes a fresh player for each game instead.
//! `max_move_ms` is the slowest single guess.

use std::io::Write;
use std::time::{Duration, Instant};

use clap::Parser;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use super::{Game, Mastermind, MmMove, Spec};
use crate::engine::Engine;
use crate::options::OptionValues;
use crate::search::{Limits, SearchCtx, StopFlag};

#[derive(Parser, Debug)]
#[command(name = "meeple bench mastermind", about = "codebreaker benchmark")]
struct Args {
    /// Codebreaker strategy.
    #[arg(long, default_value = "entropy")]
    strategy: String,
    /// Game type.
    #[arg(long, default_value = "Mastermind")]
    game: String,
    /// `all` or a number of random secrets.
    #[arg(long, default_value = "all")]
    secrets: String,
    /// Seed of the random secrets and of the strategy's rng.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A fresh player (no cache) for every game.
    #[arg(long)]
    no_cache: bool,
}

pub fn bench(args: &[String], out: &mut dyn Write) -> Result<(), String> {
    let argv = std::iter::once("bench".to_string()).chain(args.iter().cloned());
    let a = Args::try_parse_from(argv).map_err(|e| e.to_string())?;
    let spec: Spec = a.game.parse().map_err(|e: super::SpecError| e.0)?;
    let specs = Mastermind::strategies();
    let strat = specs.iter().find(|s| s.name.eq_ignore_ascii_case(&a.strategy)).ok_or_else(|| {
        let names: Vec<_> = specs.iter().map(|s| s.name).collect();
        format!("unknown strategy '{}' (known: {})", a.strategy, names.join(", "))
    })?;
    let mut rng = StdRng::seed_from_u64(a.seed);
    let secrets = if a.secrets.eq_ignore_ascii_case("all") {
        if spec.code_count() > super::breakers::ENUM_LIMIT {
            return Err(format!("{spec} has too many codes for --secrets all"));
        }
        spec.all_codes()
    } else {
        let n: usize = a
            .secrets
            .parse()
            .map_err(|_| format!("--secrets takes 'all' or a number, not '{}'", a.secrets))?;
        let mut v: Vec<_> = (0..n).map(|_| Mastermind::random_code(&spec, &mut rng)).collect();
        v.shuffle(&mut rng);
        v
    };
    let mut options = OptionValues::from_specs(&Mastermind::options());
    options.set("Strategy", crate::options::OptionValue::Enum(strat.name.to_string()));
    let mut player = (strat.make)(&options);
    let mut distribution: Vec<u64> = Vec::new();
    let (mut total, mut failed, mut max_move) = (0u64, 0u64, Duration::ZERO);
    let start = Instant::now();
    let mut report = |_r: crate::search::Report| {};
    for &secret in &secrets {
        if a.no_cache {
            player = (strat.make)(&options);
        }
        let mut g = Mastermind::new(spec);
        g.set_secret(Some(secret));
        while g.outcome().is_none() {
            let t = Instant::now();
            let mut ctx = SearchCtx::new(Limits::default(), &options, &mut rng, StopFlag::new(), &mut report);
            let mv = player.choose(&g, &mut ctx);
            max_move = max_move.max(t.elapsed());
            if !matches!(mv, MmMove::Guess(c) if spec.is_code(c)) {
                return Err(format!("strategy {} returned {mv:?} as a guess", strat.name));
            }
            g.play(mv);
            let MmMove::Guess(c) = mv else { unreachable!() };
            g.play(MmMove::Feedback(spec.score(c, secret)));
        }
        if g.outcome() == Some(crate::game::Outcome::Win(super::BREAKER)) {
            let k = g.rows().len();
            total += k as u64;
            if distribution.len() < k {
                distribution.resize(k, 0);
            }
            distribution[k - 1] += 1;
        } else {
            failed += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let won: u64 = distribution.iter().sum();
    let dist: Vec<String> = distribution.iter().map(|d| d.to_string()).collect();
    writeln!(
        out,
        "total={total} average={:.4} max={} distribution={} failed={failed} seconds={secs:.2} ms_per_game={:.2} max_move_ms={:.1}",
        if won > 0 { total as f64 / won as f64 } else { 0.0 },
        distribution.len(),
        dist.join("/"),
        1000.0 * secs / secrets.len().max(1) as f64,
        max_move.as_secs_f64() * 1000.0,
    )
    .map_err(|e| e.to_string())
}

/// The clap command [`bench`] parses its arguments with.
pub fn cli() -> clap::Command {
    <Args as clap::CommandFactory>::command()
}
