//! Bulk-counting perft: the last ply is counted, not played.

use std::io::Write;

use clap::Parser;

use super::Hive;
use super::movegen::{CountSink, VecSink};
use super::mv::Move;
use super::piece::Expansions;
use crate::game::Game;
use crate::time::Instant;

/// Counts from the empty board (depths 1..5): the published ones of Base
/// and Base+MLP, then game types with other piece counts, as the slow
/// reference generator of the tests counts them (`reference_gen` checks
/// this table against it).
pub(super) const REFERENCE: [(&str, [u64; 5]); 8] = [
    ("Base", [4, 96, 1_440, 21_600, 516_240]),
    ("Base+MLP", [7, 294, 6_678, 151_686, 5_427_108]),
    ("Base+S0", [3, 54, 648, 7_776, 146_448]),
    ("Base+MLP+G1A4", [7, 294, 6_552, 146_016, 5_029_884]),
    ("Base+B6", [4, 96, 1_440, 21_600, 521_640]),
    ("Base+P+S1B4G1A2", [5, 150, 2_430, 39_366, 957_906]),
    ("Base+ML+S4A1", [6, 216, 4_212, 82_134, 2_478_762]),
    ("Base+MP+B4G0A5", [5, 150, 2_520, 42_336, 1_107_324]),
];

/// `meeple bench hive [--depth N] [GameType|GameString...]`.
#[derive(Parser, Debug)]
#[command(
    name = "bench hive",
    about = "Hive perft from the empty board of each game type (all eight by default); \
             with --search, the AI's search of fixed positions to a fixed depth; with --tune, \
             the evaluation's weights fitted to the results of finished games"
)]
struct BenchArgs {
    /// Plies to count (perft) or to search (--search; default 5 for both).
    #[arg(long, short, default_value_t = 5)]
    depth: u32,
    /// Search positions instead of counting them: opening, middle, base-middle and
    /// tactics by default (names or GameStrings); prints nodes, time, nodes/s, the best move and its score.
    #[arg(long)]
    search: bool,
    /// With --search: search threads sharing the table (no more than the cores the process may use).
    #[arg(long, default_value_t = 1, requires = "search")]
    threads: usize,
    /// Game types or GameStrings (default: all eight game types); the counts of Base, Base+MLP and a
    /// few game types with other piece counts (Base+S0, Base+MLP+G1A4, ...) are checked.
    positions: Vec<String>,
    /// Fit the evaluation's weights to the finished games of FILE (one a line: White's score 1, 0.5 or
    /// 0, a space, the GameString with its moves), as scripts/tune_hive.py writes them; prints the old
    /// and new weights.
    #[arg(long, value_name = "FILE")]
    tune: Option<std::path::PathBuf>,
    /// With --tune: plies of each game left out at its start (its random opening).
    #[arg(long, default_value_t = 6, requires = "tune")]
    skip: usize,
    /// With --tune: each position is searched this deep and the end of its principal variation is
    /// what is fitted (0: the position itself).
    #[arg(long, default_value_t = 2, requires = "tune")]
    pv_depth: u32,
    /// With --tune: ridge penalty per position pulling the weights towards the current ones.
    #[arg(long, default_value_t = 1e-5, requires = "tune")]
    l2: f64,
    /// With --tune: write the new weights as Rust source to FILE (src/games/hive/weights.rs).
    #[arg(long, value_name = "FILE", requires = "tune")]
    out: Option<std::path::PathBuf>,
    /// With --tune: how the data was made, written into the weights file (the run's command).
    #[arg(long, requires = "tune")]
    run: Option<String>,
}

/// Perft of each requested position, with time and speed; counts of the
/// published table are checked.
pub fn bench(args: &[String], out: &mut dyn Write) -> Result<(), String> {
    let argv = std::iter::once("bench hive".to_string()).chain(args.iter().cloned());
    let a = BenchArgs::try_parse_from(argv).map_err(|e| e.to_string())?;
    if let Some(data) = a.tune {
        let t = super::tune::TuneArgs {
            data,
            skip: a.skip,
            pv_depth: a.pv_depth.min(8),
            l2: a.l2.max(0.0),
            out: a.out,
            run: a.run,
        };
        return super::tune::tune(&t, out);
    }
    if a.search {
        return super::searchbench::bench(a.depth.clamp(1, 64), a.threads.clamp(1, 64), &a.positions, out);
    }
    let positions = if a.positions.is_empty() { Expansions::all_types() } else { a.positions };
    let mut bad = 0;
    for p in &positions {
        let mut g: Hive = crate::gamestring::parse(p).map_err(|e| e.to_string())?;
        // Only empty boards have known counts.
        let key = if g.ply() == 0 { g.game_type() } else { String::new() };
        let start = Instant::now();
        let n = perft(&mut g, a.depth);
        let t = start.elapsed().as_secs_f64();
        let check = REFERENCE
            .iter()
            .find(|r| r.0 == key && (1..=5).contains(&a.depth))
            .map(|r| if r.1[a.depth as usize - 1] == n { " ok" } else { " MISMATCH" })
            .unwrap_or("");
        if check == " MISMATCH" {
            bad += 1;
        }
        let mnps = if t > 0.0 { n as f64 / t / 1e6 } else { 0.0 };
        writeln!(out, "{p} perft({}) = {n} in {t:.3} s ({mnps:.1} M leaves/s){check}", a.depth)
            .map_err(|e| e.to_string())?;
    }
    if bad > 0 { Err(format!("{bad} perft count(s) differ from the known ones")) } else { Ok(()) }
}

/// Leaf positions after exactly `depth` plies (finished games are not
/// extended; a forced pass is a move).
pub fn perft(g: &mut Hive, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut bufs: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(256)).collect();
    rec(g, depth, &mut bufs)
}

fn rec(g: &mut Hive, depth: u32, bufs: &mut [Vec<Move>]) -> u64 {
    if depth == 1 {
        let mut c = CountSink(0);
        g.generate(&mut c);
        return c.0;
    }
    let Some((buf, rest)) = bufs.split_first_mut() else { return 0 };
    buf.clear();
    g.generate(&mut VecSink(buf));
    let mut total = 0;
    for &m in buf.iter() {
        g.make(m);
        total += rec(g, depth - 1, rest);
        g.unmake(m);
    }
    total
}

/// The clap command [`bench`] parses its arguments with.
pub fn bench_cli() -> clap::Command {
    <BenchArgs as clap::CommandFactory>::command()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hive::Expansions;
    use crate::search::perft::perft as plain_perft;

    #[test]
    fn base_matches_reference() {
        let expected = [4, 96, 1_440, 21_600, 516_240];
        for (d, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&mut Hive::new(Expansions::BASE), d as u32 + 1), n, "depth {}", d + 1);
        }
    }

    #[test]
    fn mlp_matches_reference() {
        let expected = [7, 294, 6_678, 151_686, 5_427_108];
        for (d, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&mut Hive::new(Expansions::ALL), d as u32 + 1), n, "depth {}", d + 1);
        }
    }

    #[test]
    fn bench_prints_and_checks() {
        let mut out = Vec::new();
        bench(&["--depth".into(), "3".into(), "Base".into(), "base+mlp".into()], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Base perft(3) = 1440 in"), "{text}");
        assert!(text.contains("base+mlp perft(3) = 6678"), "{text}");
        assert_eq!(text.matches(" ok").count(), 2, "{text}");
        let mut out = Vec::new();
        bench(&["--depth".into(), "4".into(), "base+a4g1+mlp".into()], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("base+a4g1+mlp perft(4) = 146016 in"), "{text}");
        assert!(text.ends_with(" ok\n"), "{text}");
        assert!(bench(&["--depth".into(), "x".into()], &mut Vec::new()).is_err());
        assert!(bench(&["Chess".into()], &mut Vec::new()).is_err());
    }

    #[test]
    fn bulk_equals_plain_and_restores_position() {
        let mut g = Hive::from_game_string(
            "Base+MLP;InProgress;White[4];wS1;bP wS1-;wQ -wS1;bQ bP-;wM \\wQ;bA1 bQ\\",
        )
        .unwrap();
        let h = crate::game::Game::hash(&g);
        assert_eq!(perft(&mut g, 3), plain_perft(&mut g, 3));
        assert_eq!(crate::game::Game::hash(&g), h);
    }
}
