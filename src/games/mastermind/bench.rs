//! `meeple bench mastermind --strategy S [--game T] [--secrets all|N]
//! [--seed N] [--no-cache] [--threads N]`: plays strategy S as codebreaker against every
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
//!
//! `--search` runs the strategy search of `deep.rs` instead (look-ahead
//! over the entropy rule, exact on small sets), prints a line per class of
//! the first guess, checks the tree found with the independent evaluator
//! of `tree.rs` and writes it (`--out`) in the strategy-tree grammar.
//! `--check-tree FILE` (or `builtin`, the tree the `tree` strategy plays)
//! scores a tree with that evaluator only.

use std::io::Write;
use std::time::Duration;

use clap::Parser;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use std::sync::Mutex;

use super::tree::{self, Strategy};
use super::{Game, Mastermind, MmMove, Spec, deep};
use crate::engine::Engine;
use crate::options::OptionValues;
use crate::search::{Limits, SearchCtx, StopFlag};
use crate::time::Instant;

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
    /// The strategy's `Threads` option (and the search's threads).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    threads: u32,
    /// Search a strategy tree (see the module) instead of playing games.
    #[arg(long)]
    search: bool,
    /// Search: guesses scored by look-ahead at each large set.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    candidates: u32,
    /// Search: sets of at most this many codes are solved exactly.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(2..=4096))]
    exact: u32,
    /// Search: sets of at least this many codes look two levels ahead
    /// (0: never).
    #[arg(long, default_value_t = 0)]
    nest: usize,
    /// Search: guesses scored two levels ahead on those sets.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    candidates2: u32,
    /// Search: the first guess (default: the classic opener, 11223 on 5
    /// pegs; `search` tries every first guess).
    #[arg(long)]
    opener: Option<String>,
    /// Search and --check-tree: most guesses on any secret.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(1..=50))]
    max_guesses: u8,
    /// Search: where to write the tree found.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Search: a checkpoint file (each finished class of the first guess;
    /// read back when the same search is run again).
    #[arg(long)]
    checkpoint: Option<std::path::PathBuf>,
    /// Scores the strategy tree in FILE (`builtin`: the `tree` strategy's
    /// own) over every secret of --game with the independent evaluator.
    #[arg(long, value_name = "FILE")]
    check_tree: Option<String>,
}

pub fn bench(args: &[String], out: &mut dyn Write) -> Result<(), String> {
    let argv = std::iter::once("bench".to_string()).chain(args.iter().cloned());
    let a = Args::try_parse_from(argv).map_err(|e| e.to_string())?;
    let spec: Spec = a.game.parse().map_err(|e: super::SpecError| e.0)?;
    if let Some(file) = &a.check_tree {
        return check_tree(&spec, file, a.max_guesses, out);
    }
    if a.search {
        return search(&spec, &a, out);
    }
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
    options.set("Threads", crate::options::OptionValue::Int(a.threads as i64));
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

/// `--check-tree`: the independent evaluator's line for a tree.
fn check_tree(spec: &Spec, file: &str, max: u8, out: &mut dyn Write) -> Result<(), String> {
    let t = Instant::now();
    let tree = if file == "builtin" {
        super::breakers::stored::builtin(spec)
            .ok_or_else(|| format!("no built-in strategy tree for {spec}"))?
            .as_ref()
            .clone()
    } else {
        let text = read_tree_file(std::path::Path::new(file))?;
        Strategy::parse(&text, spec.pegs, spec.symbols())?
    };
    let e = tree::evaluate(&tree, spec.pegs, spec.symbols(), spec.repeats, max as usize)?;
    if file == "builtin" {
        writeln!(out, "# built by: {}", super::breakers::stored::BUILD_5X8).map_err(|e| e.to_string())?;
    }
    writeln!(out, "{} guesses={} seconds={:.2}", e.line(), tree.size(), t.elapsed().as_secs_f64())
        .map_err(|e| e.to_string())
}

/// `--search`: the strategy search, checked and written.
fn search(spec: &Spec, a: &Args, out: &mut dyn Write) -> Result<(), String> {
    let opener = match &a.opener {
        Some(t) if t.eq_ignore_ascii_case("search") => None,
        Some(t) => Some(spec.parse_code(t).map_err(|e| format!("--opener: {e}"))?),
        None => Some(super::breakers::opener(spec)),
    };
    let cfg = deep::Config {
        opener,
        k: a.candidates as usize,
        exact_max: a.exact as usize,
        max_guesses: a.max_guesses,
        threads: a.threads as usize,
        cache_mb: 256,
        nest_min: a.nest,
        k2: a.candidates2 as usize,
    };
    let t = Instant::now();
    let cpu = process_cpu_seconds();
    // The search runs on its own thread; its lines come back here.
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let found = crate::threads::scope(|scope| {
        let h = scope.spawn(move || {
            let tx = Mutex::new(tx);
            let log = |line: String| {
                let _ = tx.lock().unwrap_or_else(|e| e.into_inner()).send(line);
            };
            deep::search(spec, &cfg, a.checkpoint.as_deref(), &log, &|| false)
        });
        for line in rx {
            writeln!(out, "{line}").and_then(|_| out.flush()).map_err(|e| e.to_string())?;
        }
        h.join().map_err(|_| "the search panicked".to_string())?
    })?;
    let e = tree::evaluate(&found.tree, spec.pegs, spec.symbols(), spec.repeats, a.max_guesses as usize)?;
    if e.total != found.total {
        return Err(format!("the evaluator's total {} is not the search's {}", e.total, found.total));
    }
    if let Some(p) = &a.out {
        let text = found.tree.to_text(spec.pegs) + "\n";
        write_atomic(p, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    writeln!(
        out,
        "{} guesses={} wall_seconds={:.1} cpu_seconds={:.1}",
        e.line(),
        found.tree.size(),
        t.elapsed().as_secs_f64(),
        process_cpu_seconds() - cpu
    )
    .map_err(|e| e.to_string())
}

/// A strategy tree's text (at most 64 MB).
fn read_tree_file(path: &std::path::Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() || meta.len() > 64 << 20 {
        return Err(format!("{}: not a file of at most 64 MB", path.display()));
    }
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `bytes` to `path` through a temporary file and a rename.
fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// CPU time of the whole process so far (user + system, every thread),
/// from `/proc/self/stat`; 0 where there is none.
fn process_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // The fields after the command name (which is in parentheses).
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return 0.0 };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line (11 and 12 here).
    let ticks: f64 = [11, 12].iter().filter_map(|&i| f.get(i)?.parse::<f64>().ok()).sum();
    #[cfg(unix)]
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    #[cfg(not(unix))]
    let hz = 100.0;
    if hz > 0.0 { ticks / hz } else { 0.0 }
}

/// The clap command [`bench`] parses its arguments with.
pub fn cli() -> clap::Command {
    <Args as clap::CommandFactory>::command()
}
