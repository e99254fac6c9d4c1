//! `meeple bench connect4 [FILE...] [--limit N]`: runs the solver on
//! benchmark files (`<moves> <score>` per line, the public test sets) and
//! prints per file the positions, the share solved correctly, the mean
//! time and nodes per position and the node rate. The transposition table
//! is cleared before each position (not timed), as the standard harness
//! does; clearing bumps a generation number and wipes the table every 7th
//! time.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;

use super::Connect4;
use super::solver::{Pos, Solver};
use crate::game::Game;

#[derive(Parser, Debug)]
#[command(name = "meeple bench connect4", about = "Connect Four solver benchmark")]
struct Args {
    /// Benchmark files: one `<moves> <score>` per line.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Only the first N positions of each file.
    #[arg(long)]
    limit: Option<usize>,
    /// Win/draw/loss only (a position is correct if the sign matches).
    #[arg(long)]
    weak: bool,
    /// Transposition table size in MB.
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Board size WxH of the positions.
    #[arg(long, default_value = "7x6")]
    size: String,
    /// Do not share table entries between mirror positions.
    #[arg(long)]
    no_symmetry: bool,
    /// Do not prefetch table slots.
    #[arg(long)]
    no_prefetch: bool,
    /// Also print one line per position: moves, expected, found, nodes,
    /// microseconds.
    #[arg(long)]
    verbose: bool,
}

/// Totals of one file.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FileStats {
    pub positions: usize,
    pub correct: usize,
    pub invalid: usize,
    pub time: Duration,
    /// CPU time of the whole file but the table wipes (Linux only):
    /// steadier than wall time on a busy machine.
    pub cpu: Option<Duration>,
    pub nodes: u64,
}

impl FileStats {
    /// One report line.
    pub fn line(&self, name: &str) -> String {
        let n = self.positions.max(1) as f64;
        let secs = self.time.as_secs_f64();
        let mut s = format!(
            "{name}: positions {} correct {:.2}% mean_time {} mean_nodes {:.1} nps {:.2}M",
            self.positions,
            100.0 * self.correct as f64 / n,
            human_time(secs / n),
            self.nodes as f64 / n,
            if secs > 0.0 { self.nodes as f64 / secs / 1e6 } else { 0.0 },
        );
        if let Some(c) = self.cpu {
            s.push_str(&format!(" mean_cpu {}", human_time(c.as_secs_f64() / n)));
        }
        if self.invalid > 0 {
            s.push_str(&format!(" invalid_lines {}", self.invalid));
        }
        s
    }
}

fn human_time(secs: f64) -> String {
    if secs < 1e-3 {
        format!("{:.2}us", secs * 1e6)
    } else if secs < 1.0 {
        format!("{:.3}ms", secs * 1e3)
    } else {
        format!("{:.3}s", secs)
    }
}

/// Runs the benchmark on `text` (a whole file).
pub fn bench_text(
    empty: &Connect4,
    solver: &mut Solver,
    text: &str,
    limit: Option<usize>,
    weak: bool,
    mut each: impl FnMut(&dyn Fn() -> String),
) -> FileStats {
    let mut st = FileStats::default();
    // Parse first, so that the CPU time covers clearing and solving only.
    let mut work = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(limit.unwrap_or(usize::MAX)) {
        st.positions += 1;
        let mut it = line.split_whitespace();
        let (Some(moves), Some(Ok(expected))) = (it.next(), it.next().map(str::parse::<i32>)) else {
            st.invalid += 1;
            continue;
        };
        let mut g = *empty;
        if g.play_sequence(moves).is_err() || g.board.outcome().is_some() {
            st.invalid += 1;
            continue;
        }
        work.push((moves, expected, Pos::from(&g.board)));
    }
    let cpu0 = thread_cpu_time();
    let mut wiping = Duration::ZERO;
    for (moves, expected, pos) in work {
        if solver.clear_wipes() {
            // The rare real wipe of the table is not part of the solving.
            let a = thread_cpu_time();
            solver.clear();
            wiping += thread_cpu_time().zip(a).map_or(Duration::ZERO, |(b, a)| b.saturating_sub(a));
        } else {
            solver.clear();
        }
        let nodes = solver.nodes;
        let t = Instant::now();
        let r = solver.solve(pos, weak);
        let dt = t.elapsed();
        st.time += dt;
        st.nodes += solver.nodes - nodes;
        let n = solver.nodes - nodes;
        each(&|| format!("{moves} {expected} {} {n} {}", r.lo, dt.as_micros()));
        let ok = if weak { r.sign() == Some(expected.signum()) } else { r.is_exact() && r.lo == expected };
        if ok {
            st.correct += 1;
        } else {
            log::warn!("{moves}: expected {expected}, got {r:?}");
        }
    }
    st.cpu = thread_cpu_time().zip(cpu0).map(|(b, a)| b.saturating_sub(a).saturating_sub(wiping));
    st
}

/// CPU time of the current thread, from `/proc/thread-self/schedstat`
/// (its first field is nanoseconds on the CPU); `None` elsewhere.
fn thread_cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok().map(Duration::from_nanos)
}

/// `Game::bench` of Connect Four.
pub fn run(args: &[String], out: &mut dyn Write) -> Result<(), String> {
    let argv = std::iter::once("connect4".to_string()).chain(args.iter().cloned());
    let a = Args::try_parse_from(argv).map_err(|e| e.to_string())?;
    let empty = match Connect4::parse_type(&format!("Connect4+{}", a.size)) {
        Some(Ok(g)) => g,
        Some(Err(e)) => return Err(e),
        None => return Err(format!("bad size '{}'", a.size)),
    };
    let mut solver = Solver::new(empty.board.width(), empty.board.height(), a.hash);
    solver.symmetry = !a.no_symmetry;
    solver.prefetch = !a.no_prefetch;
    for f in &a.files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let mut failed = None;
        let st = bench_text(&empty, &mut solver, &text, a.limit, a.weak, |l| {
            if a.verbose && failed.is_none() {
                failed = writeln!(out, "{}", l()).and_then(|_| out.flush()).err();
            }
        });
        if let Some(e) = failed {
            return Err(e.to_string());
        }
        let name = f.file_name().map_or_else(|| f.display().to_string(), |n| n.to_string_lossy().to_string());
        writeln!(out, "{}", st.line(&name)).map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The clap command [`run`] parses its arguments with.
pub fn cli() -> clap::Command {
    <Args as clap::CommandFactory>::command()
}
