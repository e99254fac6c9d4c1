//! The `meeple` binary: the protocol loop (the main job) and the
//! subcommands `perft`, `solve`, `gui`, `play`, `review`, `leaderboard`, `bench` and `book`. Games are reached only
//! through the registry; each family's `bench` and `book` arguments are its
//! own clap commands, so `--help` shows them.

use std::fs;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

use meeple::protocol::{SessionConfig, run_stdio};
use meeple::registry::{self, Family};

/// meeple: a game engine for Mastermind, Connect Four and Hive.
///
/// With no subcommand it runs the line protocol on stdin/stdout (see
/// protocol.md): type `help` once it has started.
#[derive(Parser, Debug)]
#[command(version, about, long_about = None)]
struct Cli {
    /// Game type of `newgame` without argument, `position startpos` and
    /// `ucinewgame` (the default of the option UCI_Variant).
    #[arg(long, default_value = "Connect4", value_parser = game_type)]
    game: String,
    /// Folder for saved games and the results database (results.sqlite).
    #[arg(long, global = true, default_value = "meeple-data")]
    data_dir: PathBuf,
    /// Diagnostics on stderr: error, warn, info, debug, trace (RUST_LOG
    /// overrides it).
    #[arg(long, global = true, default_value = "warn")]
    log_level: String,
    #[command(subcommand)]
    command: Option<Sub>,
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Count move sequences: one line `<depth> <count>` per depth 1..N.
    Perft {
        /// GameType or GameString to start from.
        game: String,
        /// Deepest depth.
        #[arg(long, short)]
        depth: u32,
        /// Also print the time per depth on stderr.
        #[arg(long)]
        time: bool,
    },
    /// Solve positions read from stdin (one per line), e.g.
    /// `meeple solve Connect4 < Test_L2_R1`. The remaining arguments go to
    /// the game's solver (Connect Four: --weak, --analyze).
    Solve {
        /// Game type.
        game: String,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Play in the browser: serves the GUI on localhost (see README).
    Gui(meeple::gui::GuiArgs),
    /// Play in the terminal: against the engine, two people (--hotseat), or
    /// watch the engine play itself (--watch); results go to the
    /// leaderboard.
    Play(meeple::play::PlayArgs),
    /// Review a finished game: every move judged by the engine, the
    /// mistakes with better moves, an evaluation graph, each side's
    /// accuracy (a saved game's NAME, or a GameString).
    Review(meeple::play::review::ReviewArgs),
    /// Show the leaderboard kept in the data folder (results.sqlite): the
    /// people with the most wins (Acc: their mean accuracy in reviewed
    /// games), each engine level's record against people, and how many
    /// results wait to be stored.
    Leaderboard {
        /// Count only the games of this family (Connect4, Hive, Mastermind).
        #[arg(long = "game", value_name = "FAMILY")]
        family: Option<String>,
        /// Count only the games against this opponent: a person's NAME (or
        /// person:NAME), engine:STRATEGY (any level) or
        /// engine:STRATEGY:LEVEL (e.g. 'engine:perfect:movetime 300').
        #[arg(long, value_name = "OPPONENT")]
        vs: Option<String>,
        /// How many people to show.
        #[arg(long, value_name = "N", default_value_t = meeple::results::DEFAULT_TOP as u64,
              value_parser = clap::value_parser!(u64).range(1..=100_000))]
        top: u64,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// A game type the registry knows (`--game`): a bad one is refused at
/// start-up like any bad argument (exit status 2), not by every `newgame`.
fn game_type(text: &str) -> Result<String, String> {
    registry::new_game(text).map(|_| text.to_string())
}

/// The whole command line: the derived part plus `bench <family>` and
/// `book <family>`, one subcommand per registered family.
fn command() -> clap::Command {
    let mut bench = clap::Command::new("bench")
        .about("Run a game family's benchmark (meeple bench <family> --help for its arguments)")
        .subcommand_required(true)
        .arg_required_else_help(true);
    let mut book = clap::Command::new("book")
        .about("Build or check a game family's opening book (meeple book <family> --help)")
        .subcommand_required(true)
        .arg_required_else_help(true);
    for f in registry::families() {
        bench = bench.subcommand(family_command(f, f.bench_cli()));
        if let Some(c) = f.book_cli() {
            book = book.subcommand(family_command(f, c));
        }
    }
    let mut cli = Cli::command().subcommand(bench);
    if book.get_subcommands().next().is_some() {
        cli = cli.subcommand(book);
    }
    cli
}

/// A family's own command, named by the family in lower case (its proper
/// name is an alias).
fn family_command(f: Family, c: clap::Command) -> clap::Command {
    c.name(f.name.to_ascii_lowercase())
        .alias(f.name)
        .bin_name(format!("meeple {}", f.name.to_ascii_lowercase()))
}

fn main() -> ExitCode {
    let matches = command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    env_logger::Builder::new()
        .parse_filters(&cli.log_level)
        .parse_env("RUST_LOG")
        .target(env_logger::Target::Stderr)
        .init();
    let result = match matches.subcommand() {
        None => {
            let color =
                io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            let config =
                SessionConfig { default_type: cli.game, data_dir: cli.data_dir, color, interactive: false };
            return ExitCode::from(run_stdio(config));
        }
        Some(("bench", m)) => family_tool(m, "bench", |f, a, o| f.bench(a, o)),
        Some(("book", m)) => family_tool(m, "book", |f, a, o| f.book(a, o)),
        Some(_) => match cli.command {
            Some(Sub::Perft { game, depth, time }) => perft(&game, depth, time),
            Some(Sub::Solve { game, args }) => solve(&game, &args),
            Some(Sub::Gui(args)) => {
                kept_results_at_start(&cli.data_dir);
                meeple::gui::run(args, cli.data_dir)
            }
            Some(Sub::Play(args)) => {
                kept_results_at_start(&cli.data_dir);
                meeple::play::run(args, &cli.data_dir)
            }
            Some(Sub::Review(args)) => meeple::play::review::run(args, &cli.data_dir),
            Some(Sub::Leaderboard { family, vs, top, json }) => {
                leaderboard(&cli.data_dir, family.as_deref(), vs.as_deref(), top as usize, json)
            }
            None => Ok(()),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("meeple: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `meeple bench|book <family> ARGS...`: clap has checked the arguments
/// with the family's command; the family parses the same words again.
fn family_tool(
    m: &ArgMatches,
    tool: &str,
    run: fn(Family, &[String], &mut dyn Write) -> Result<(), String>,
) -> Result<(), String> {
    let (name, _) = m.subcommand().ok_or("no game family given")?;
    let f = registry::family_by_name(name).ok_or_else(|| format!("unknown game family '{name}'"))?;
    let args = raw_args_after(tool, name);
    let mut out = BufWriter::new(io::stdout().lock());
    run(f, &args, &mut out)?;
    out.flush().map_err(|e| e.to_string())
}

/// The words of the command line after `<tool> <family>`.
fn raw_args_after(tool: &str, family: &str) -> Vec<String> {
    let args: Vec<String> = std::env::args().collect();
    let at = args
        .windows(2)
        .position(|w| w[0] == tool && w[1].eq_ignore_ascii_case(family))
        .map_or(args.len(), |i| i + 2);
    without_global_options(&args[at..])
}

/// The words minus the options every subcommand takes (`--log-level`,
/// `--data-dir`, already read by `main`), which the family's own parser
/// does not know.
fn without_global_options(words: &[String]) -> Vec<String> {
    const GLOBAL: [&str; 2] = ["--log-level", "--data-dir"];
    let mut kept = Vec::with_capacity(words.len());
    let mut skip_value = false;
    for w in words {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if GLOBAL.contains(&w.as_str()) {
            skip_value = true;
        } else if !GLOBAL.iter().any(|g| w.strip_prefix(g).is_some_and(|rest| rest.starts_with('='))) {
            kept.push(w.clone());
        }
    }
    kept
}

fn perft(spec: &str, depth: u32, time: bool) -> Result<(), String> {
    let g = registry::load_with_defaults(spec).map_err(|e| e.to_string())?;
    let mut out = BufWriter::new(io::stdout().lock());
    for d in 1..=depth {
        let t = Instant::now();
        let n = g.perft(d);
        let secs = t.elapsed().as_secs_f64();
        writeln!(out, "{d} {n}").map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
        if time {
            let rate = if secs > 0.0 { n as f64 / secs } else { 0.0 };
            eprintln!("depth {d}: {n} in {secs:.3} s ({:.1} M/s)", rate / 1e6);
        }
    }
    Ok(())
}

/// A writer starts (`meeple gui`, `meeple play`): the results kept while
/// the database could not be written are stored now; said on stderr.
fn kept_results_at_start(data_dir: &Path) {
    if let Some(said) = meeple::results::flush_at_start(data_dir) {
        eprintln!("meeple: {said}");
    }
}

/// `meeple leaderboard`: the tables (or JSON) of the results database;
/// none yet is an empty table, not an error, and creates nothing.
fn leaderboard(
    data_dir: &Path,
    family: Option<&str>,
    vs: Option<&str>,
    top: usize,
    json: bool,
) -> Result<(), String> {
    use meeple::results::{Board, Filter, Opponent, Results};
    let family = match family {
        None => None,
        Some(f) => Some(
            registry::family_by_name(f.trim())
                .ok_or_else(|| {
                    let known: Vec<&str> = registry::families().iter().map(|f| f.name).collect();
                    format!("unknown game family '{}' (known: {})", meeple::text::clip(f), known.join(", "))
                })?
                .name
                .to_string(),
        ),
    };
    let opponent = vs.map(Opponent::parse).transpose()?;
    let filter = Filter { family, opponent };
    let pending = meeple::results::pending_count(data_dir)?;
    let kept = |e: String| match pending {
        0 => e,
        n => format!(
            "{e} ({n} more result{} kept in {})",
            if n == 1 { "" } else { "s" },
            meeple::results::pending_folder(data_dir).display()
        ),
    };
    let db = Results::open_existing(data_dir).map_err(kept)?;
    let board = match &db {
        Some(r) => r.board(&filter, top).map_err(kept)?,
        None => Board::default(),
    };
    let path = data_dir.join(meeple::results::FILE_NAME);
    let mut out = BufWriter::new(io::stdout().lock());
    if json {
        let v = serde_json::json!({
            "database": path.display().to_string(),
            "exists": db.is_some(),
            "pending": pending,
            "games": filter.describe(),
            "family": filter.family,
            "vs": filter.opponent,
            "top": top,
            "people": board.people,
            "engines": board.engines,
        });
        writeln!(out, "{v}").map_err(|e| e.to_string())?;
    } else {
        if db.is_none() && fs::symlink_metadata(&path).is_err() {
            writeln!(
                out,
                "No results yet: {} does not exist (games with a person in them are kept there).",
                path.display()
            )
            .map_err(|e| e.to_string())?;
        } else if db.is_none() {
            writeln!(out, "No games recorded yet in {}.", path.display()).map_err(|e| e.to_string())?;
        } else if board.people.is_empty() && board.engines.is_empty() {
            writeln!(out, "No games recorded for {}.", filter.describe()).map_err(|e| e.to_string())?;
        }
        write!(out, "{}", board.to_table(&filter.describe(), top)).map_err(|e| e.to_string())?;
        if pending > 0 {
            writeln!(
                out,
                "\n{} kept in {} while the database could not be written: not counted yet (stored \
                 at the next game, or when meeple play or meeple gui starts).",
                if pending == 1 { "1 result is".to_string() } else { format!("{pending} results are") },
                meeple::results::pending_folder(data_dir).display()
            )
            .map_err(|e| e.to_string())?;
        }
    }
    out.flush().map_err(|e| e.to_string())
}

fn solve(spec: &str, args: &[String]) -> Result<(), String> {
    let g = registry::new_game(spec)?;
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = BufWriter::new(io::stdout().lock());
    g.solve(args, &mut input, &mut out)?;
    out.flush().map_err(|e| e.to_string())
}
