//! The load test of `meeple gui` and its other figures (scripts/README.md,
//! "The GUI server under load"): `scripts/loadtest.sh` builds meeple and
//! runs this with the release binary.
//!
//! ```text
//! gui_load --meeple target/release/meeple load --tables 16 --spectators 25 --non-readers 50 --seconds 60
//! gui_load --meeple ... crowd [--variant Mastermind+4x10+blanks] [--crowd 50] [--rounds 12]
//! gui_load --meeple ... waves
//! gui_load --meeple ... gen-results --games 300000 --dir DIR
//! gui_load --meeple ... stall --dir DIR [--spectators 20] [--engine-ms 10000] [--moves 6] [--lock]
//! gui_load --meeple ... paste [--plies 3000] [--tables 2]
//! ```

mod load;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser)]
struct Args {
    /// The meeple binary to serve (`meeple gui`) and to play with.
    #[arg(long, default_value = "target/release/meeple")]
    meeple: PathBuf,
    /// A folder for the server's data (a fresh one under the system's
    /// temporary folder by default).
    #[arg(long)]
    data: Option<PathBuf>,
    /// More arguments for `meeple gui` (repeat: --server-arg=--max-spectators --server-arg=50).
    #[arg(long = "server-arg", allow_hyphen_values = true)]
    server_args: Vec<String>,
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand)]
enum What {
    /// T tables of engines playing each other, S reading spectators each,
    /// N spectators who never read.
    Load {
        #[arg(long, default_value_t = 16)]
        tables: usize,
        #[arg(long, default_value_t = 25)]
        spectators: usize,
        #[arg(long, default_value_t = 50)]
        non_readers: usize,
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// The engines' time a move, ms.
        #[arg(long, default_value_t = 100)]
        movetime: u64,
    },
    /// A big Mastermind variant; the host plays and takes back, alone then
    /// with spectators who never read.
    Crowd {
        #[arg(long, default_value = "Mastermind+4x10+blanks")]
        variant: String,
        #[arg(long, default_value_t = 50)]
        crowd: usize,
        #[arg(long, default_value_t = 12)]
        rounds: usize,
    },
    /// Memory after tables close: three tables of the host alone, then
    /// three with spectators who never read.
    Waves {
        #[arg(long, default_value = "Mastermind+4x10+blanks")]
        variant: String,
        #[arg(long, default_value_t = 50)]
        crowd: usize,
        #[arg(long, default_value_t = 12)]
        rounds: usize,
    },
    /// A results database of many games (for `stall`).
    GenResults {
        #[arg(long, default_value_t = 300_000)]
        games: usize,
        #[arg(long)]
        dir: PathBuf,
    },
    /// Leaderboards asked by spectators during a clocked game.
    Stall {
        /// The data folder holding the results database.
        #[arg(long)]
        dir: PathBuf,
        #[arg(long, default_value_t = 20)]
        spectators: usize,
        #[arg(long, default_value_t = 10_000)]
        engine_ms: u64,
        /// The person's moves.
        #[arg(long, default_value_t = 6)]
        moves: usize,
        /// The person's time a move, ms.
        #[arg(long, default_value_t = 1500)]
        think_ms: u64,
        /// Another process holds the database locked throughout.
        #[arg(long)]
        lock: bool,
    },
    /// A long Hive game set up from its GameString.
    Paste {
        #[arg(long, default_value_t = 3000)]
        plies: usize,
        #[arg(long, default_value_t = 2)]
        tables: usize,
    },
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let a = Args::parse();
    let data = a
        .data
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("meeple-gui-load-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data).expect("the data folder");
    let meeple = a.meeple.canonicalize().expect("the meeple binary (build it: cargo build --release)");
    match a.what {
        What::Load { tables, spectators, non_readers, seconds, movetime } => {
            let cfg = load::LoadCfg {
                tables,
                spectators,
                non_readers,
                seconds,
                movetime,
                rejoin: 2,
                server_args: a.server_args.clone(),
            };
            let r = load::load(&meeple, &data, &cfg).await;
            println!("{}", r.text(&cfg));
        }
        What::Crowd { variant, crowd, rounds } => {
            let r = load::crowd(&meeple, &data, &variant, crowd, rounds, &a.server_args).await;
            println!("{}", r.text(&variant, crowd, rounds));
        }
        What::Waves { variant, crowd, rounds } => {
            for (what, kb) in load::waves(&meeple, &data, &variant, crowd, rounds, 5, &a.server_args).await {
                println!("server RSS {what}: {:.1} MB", kb as f64 / 1024.0);
            }
        }
        What::GenResults { games, dir } => {
            let t = std::time::Instant::now();
            load::gen_results(&dir, games).expect("the results database");
            println!("{games} games written to {} in {:.0} s", dir.display(), t.elapsed().as_secs_f64());
        }
        What::Stall { dir, spectators, engine_ms, moves, think_ms, lock } => {
            let r = load::stall(&meeple, &dir, spectators, engine_ms, moves, think_ms, lock).await;
            println!("{}", r.text());
        }
        What::Paste { plies, tables } => {
            let gs = load::long_hive_game(&meeple, &data, plies, 41);
            let r = load::paste(&meeple, &data, &gs, tables).await;
            println!(
                "paste: a Hive game of {} plies ({} bytes) set up at {} tables: server RSS {:.1} MB before, after each: {:?} MB; set up in {:?} ms; review of ply 1: {}",
                r.plies,
                r.bytes,
                tables,
                r.rss_before_kb as f64 / 1024.0,
                r.rss_after_kb.iter().map(|k| format!("{:.1}", *k as f64 / 1024.0)).collect::<Vec<_>>(),
                r.setup_ms.iter().map(|m| format!("{m:.0}")).collect::<Vec<_>>(),
                if r.reviewed { "ok" } else { "failed" },
            );
        }
    }
    let _ = std::fs::remove_dir_all(&data);
}
