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
    #[arg(required_unless_present = "play")]
    files: Vec<PathBuf>,
    /// Move quality instead: N random positions of 0..=--max-plies plies
    /// (seeded), `perfect` asked for a move at each --movetime, the move
    /// checked against exact scores (from the book or the solver).
    #[arg(long, value_name = "N")]
    play: Option<usize>,
    /// Milliseconds per move for --play (several: comma-separated).
    #[arg(long, default_value = "100,1000", value_delimiter = ',')]
    movetime: Vec<u64>,
    /// Largest number of plies of the --play positions.
    #[arg(long, default_value_t = 14)]
    max_plies: u32,
    /// Seed of the --play positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cache of exact scores for --play (`<moves> <column>=<score>...`
    /// lines; read, then appended), so that a rerun solves nothing twice.
    #[arg(long)]
    refs: Option<PathBuf>,
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
    /// Search threads sharing the table (lazy SMP).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: u16,
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
    let mut solver = Solver::new_huge(empty.board.width(), empty.board.height(), a.hash, true)
        .map_err(|e| e.to_string())?;
    solver.threads = a.threads as usize;
    solver.symmetry = !a.no_symmetry;
    solver.prefetch = !a.no_prefetch;
    if let Some(n) = a.play {
        return play_bench(&a, n, &empty, &mut solver, out);
    }
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

/// `--play`: the share of optimal moves of `perfect` at each movetime.
fn play_bench(
    a: &Args,
    n: usize,
    empty: &Connect4,
    solver: &mut Solver,
    out: &mut dyn Write,
) -> Result<(), String> {
    use super::book;
    use super::perfect::Perfect;
    use crate::options::{OptionValue, OptionValues};
    use crate::search::{Limits, Player, SearchCtx, StopFlag};
    use rand::{Rng, SeedableRng};
    use std::collections::HashMap;

    let (w, h) = (empty.board.width(), empty.board.height());
    let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed);
    let positions: Vec<Connect4> = (0..n)
        .map(|_| {
            let plies = rng.random_range(0..=a.max_plies);
            Connect4 { board: book::random_position(w, h, plies, &mut rng) }
        })
        .collect();
    // Exact column scores known so far: moves -> column -> score.
    let mut refs: HashMap<(u64, u64), HashMap<u32, i32>> = HashMap::new();
    let key = |g: &Connect4| (g.board.current(), g.board.mask());
    if let Some(p) = &a.refs
        && let Ok(text) = std::fs::read_to_string(p)
    {
        for line in text.lines() {
            let mut it = line.split_whitespace();
            let mut g = *empty;
            if g.play_sequence(it.next().unwrap_or("")).is_err() {
                continue;
            }
            let e = refs.entry(key(&g)).or_default();
            for t in it {
                if let Some((c, v)) = t.split_once('=')
                    && let (Ok(c), Ok(v)) = (c.parse::<u32>(), v.parse::<i32>())
                {
                    e.insert(c, v);
                }
            }
        }
    }
    let mut cache = match &a.refs {
        Some(p) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| format!("{}: {e}", p.display()))?,
        ),
        None => None,
    };
    let mut o = OptionValues::from_specs(&Connect4::options());
    o.set("Hash", OptionValue::Int(a.hash as i64));
    o.set("Threads", OptionValue::Int(a.threads as i64));
    let moves_of = |g: &Connect4| -> String {
        // The position's move string is not kept: rebuild one from the
        // board (column by column, bottom up, alternating is not always
        // possible), so the cache is keyed by the board's bitboards.
        format!("{:x}:{:x}", g.board.current(), g.board.mask())
    };
    // Exact score of column `c` of `g`.
    let mut column_score = |g: &Connect4, c: u32, solver: &mut Solver| -> i32 {
        if let Some(v) = refs.get(&key(g)).and_then(|m| m.get(&c)) {
            return *v;
        }
        let mut child = *g;
        child.board.play(c);
        let v = match super::analysis::final_score(&child).or_else(|| book::score(&child)) {
            Some(v) => -v,
            None => {
                solver.set_budget(Default::default());
                -solver.solve(Pos::from(&child.board), false).lo
            }
        };
        refs.entry(key(g)).or_default().insert(c, v);
        if let Some(f) = &mut cache {
            let _ = writeln!(f, "{} {c}={v}", moves_of(g));
        }
        v
    };
    for &ms in &a.movetime {
        let (mut optimal, mut total, mut lost_value) = (0, 0, 0);
        for g in &positions {
            let mut player = Perfect::new(&o);
            let mut prng = rand::rngs::StdRng::seed_from_u64(a.seed);
            let mut sink = |_r: crate::search::Report| {};
            let limits = Limits { movetime: Some(Duration::from_millis(ms)), ..Limits::default() };
            let mut ctx = SearchCtx::new(limits, &o, &mut prng, StopFlag::new(), &mut sink);
            let c = player.choose(g, &mut ctx) as u32;
            drop(ctx);
            let legal: Vec<u32> = (0..w).filter(|&c| g.board.can_play(c)).collect();
            let best = legal.iter().map(|&x| column_score(g, x, solver)).max().expect("not over");
            let got = column_score(g, c, solver);
            total += 1;
            if got == best {
                optimal += 1;
            } else if got.signum() < best.signum() {
                lost_value += 1;
            }
            if a.verbose {
                writeln!(
                    out,
                    "{ms}ms ply {} played {} score {got} best {best} (so far {optimal}/{total} optimal)",
                    g.board.moves(),
                    c + 1
                )
                .and_then(|_| out.flush())
                .map_err(|e| e.to_string())?;
            }
        }
        writeln!(
            out,
            "play movetime {ms}ms: positions {total} optimal {optimal} ({:.1}%) worse_result {lost_value}",
            100.0 * optimal as f64 / total.max(1) as f64
        )
        .map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The clap command [`run`] parses its arguments with.
pub fn cli() -> clap::Command {
    <Args as clap::CommandFactory>::command()
}
