//! The `meeple` binary: the protocol loop (the main job) and the
//! subcommands `perft`, `solve` and `bench`. Games are reached only through
//! the registry.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Instant;

use clap::{Parser, Subcommand};
use log::error;

use meeple::protocol::Session;
use meeple::protocol::input::{InputLine, LineReader};
use meeple::protocol::session::SessionConfig;
use meeple::registry;

/// meeple: a game engine for Mastermind, Connect Four and Hive.
///
/// With no subcommand it runs the line protocol on stdin/stdout (see
/// protocol.md): type `help` once it has started.
#[derive(Parser, Debug)]
#[command(version, about, long_about = None)]
struct Cli {
    /// Game type used by `newgame` without argument and `position startpos`.
    #[arg(long, global = true, default_value = "Connect4")]
    game: String,
    /// Folder for saved games.
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
    /// Run a game family's benchmark (`connect4`, `mastermind`, ...); the
    /// remaining arguments go to it (`meeple bench connect4 --help`).
    Bench {
        /// Game family.
        family: String,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Play in the browser: serves the GUI on localhost (see README).
    Gui(meeple::gui::GuiArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    env_logger::Builder::new()
        .parse_filters(&cli.log_level)
        .parse_env("RUST_LOG")
        .target(env_logger::Target::Stderr)
        .init();
    let result = match cli.command {
        None => {
            run_protocol(&cli.game, cli.data_dir);
            Ok(())
        }
        Some(Sub::Perft { game, depth, time }) => perft(&game, depth, time),
        Some(Sub::Solve { game, args }) => solve(&game, &args),
        Some(Sub::Bench { family, args }) => bench(&family, &args),
        Some(Sub::Gui(args)) => meeple::gui::run(args, cli.data_dir),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("meeple: {e}");
            ExitCode::FAILURE
        }
    }
}

enum Event {
    Input(InputLine),
    Eof,
    Sigint,
}

/// The protocol loop: a reader thread feeds lines, SIGINT arrives as an
/// event, the session answers.
fn run_protocol(default_type: &str, data_dir: PathBuf) {
    let config = SessionConfig {
        default_type: default_type.to_string(),
        data_dir,
        is_tty: io::stdout().is_terminal(),
    };
    let mut session = Session::new(io::stdout(), config);
    let (tx, rx) = mpsc::channel::<Event>();
    let tx_sig = tx.clone();
    if let Err(e) = ctrlc::set_handler(move || {
        let _ = tx_sig.send(Event::Sigint);
    }) {
        error!("cannot handle SIGINT: {e}");
    }
    std::thread::spawn(move || {
        let stdin = io::stdin();
        let mut reader = LineReader::new(stdin.lock());
        loop {
            match reader.next_line() {
                Ok(Some(l)) => {
                    if tx.send(Event::Input(l)).is_err() {
                        return;
                    }
                }
                Ok(None) | Err(_) => {
                    let _ = tx.send(Event::Eof);
                    return;
                }
            }
        }
    });
    session.greet();
    for ev in rx {
        match ev {
            Event::Input(l) => session.handle_input(l),
            Event::Eof => session.handle_eof(),
            Event::Sigint => session.handle_sigint(),
        }
        if session.should_quit() {
            break;
        }
    }
    session.wait_search();
    let _ = io::stdout().flush();
}

fn perft(spec: &str, depth: u32, time: bool) -> Result<(), String> {
    let g = meeple::gamestring::load_with_defaults(spec).map_err(|e| e.to_string())?;
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

fn solve(spec: &str, args: &[String]) -> Result<(), String> {
    let g = registry::new_game(spec)?;
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = BufWriter::new(io::stdout().lock());
    g.solve(args, &mut input, &mut out)?;
    out.flush().map_err(|e| e.to_string())
}

fn bench(family: &str, args: &[String]) -> Result<(), String> {
    let f = registry::family_by_name(family).ok_or_else(|| {
        let names: Vec<_> = registry::families().iter().map(|f| f.name.to_ascii_lowercase()).collect();
        format!("unknown game family '{family}' (known: {})", names.join(", "))
    })?;
    let mut out = BufWriter::new(io::stdout().lock());
    f.bench(args, &mut out)?;
    out.flush().map_err(|e| e.to_string())
}
