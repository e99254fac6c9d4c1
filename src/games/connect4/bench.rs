//! `meeple bench connect4 [FILE...] [--limit N]`: runs the solver on
//! benchmark files (`<moves> <score>` per line, the public test sets) and
//! prints per file the positions, the share solved correctly, the mean
//! time and nodes per position and the node rate. The transposition table
//! is cleared before each position (not timed), as the standard harness
//! does; clearing bumps a generation number and wipes the table every 7th
//! time.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

use super::Connect4;
use super::solver::{Pos, Solver};
use crate::engine::Engine;
use crate::game::Game;
use crate::time::Instant;

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
    /// Smallest number of plies of the --play positions.
    #[arg(long, default_value_t = 0)]
    min_plies: u32,
    /// Seed of the --play positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cache of exact scores for --play (`<moves> <column>=<score>...`
    /// lines; read, then appended), so that a rerun solves nothing twice.
    #[arg(long)]
    refs: Option<PathBuf>,
    /// --play: only compute (and cache) the positions' values.
    #[arg(long)]
    values_only: bool,
    /// --play: give up a reference proof after this many seconds (0: no
    /// limit); such positions are counted as unmeasured.
    #[arg(long, default_value_t = 0.0)]
    ref_seconds: f64,
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

/// `Engine::bench` of Connect Four.
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

/// What is known of the exact scores of a position for `--play`: its
/// value and bounds of its columns' scores (side to move's view).
#[derive(Debug, Default, Clone)]
struct Known {
    value: Option<i32>,
    /// Column -> (lowest, highest) proven score.
    cols: std::collections::HashMap<u32, (i32, i32)>,
}

impl Known {
    fn bound(&mut self, c: u32, lo: i32, hi: i32) {
        let e = self.cols.entry(c).or_insert((i32::MIN, i32::MAX));
        e.0 = e.0.max(lo);
        e.1 = e.1.min(hi);
    }
}

/// One fact of a `--refs` line: a column (`None`: the position's value)
/// and the bounds proven for its score.
type Fact = (Option<u32>, i32, i32);

/// Parses one `--refs` line: `<current hex>:<mask hex>` then tokens
/// `v=V` (the position's value), `c=S` (column c's exact score), `c>=S`,
/// `c<=S` (bounds).
fn parse_ref_line(line: &str) -> Option<((u64, u64), Vec<Fact>)> {
    let mut it = line.split_whitespace();
    let (cur, mask) = it.next()?.split_once(':')?;
    let key = (u64::from_str_radix(cur, 16).ok()?, u64::from_str_radix(mask, 16).ok()?);
    let mut facts = Vec::new();
    for t in it {
        if let Some(v) = t.strip_prefix("v=") {
            let v = v.parse().ok()?;
            facts.push((None, v, v));
        } else if let Some((c, v)) = t.split_once(">=") {
            facts.push((Some(c.parse().ok()?), v.parse().ok()?, i32::MAX));
        } else if let Some((c, v)) = t.split_once("<=") {
            facts.push((Some(c.parse().ok()?), i32::MIN, v.parse().ok()?));
        } else if let Some((c, v)) = t.split_once('=') {
            let v = v.parse().ok()?;
            facts.push((Some(c.parse().ok()?), v, v));
        }
    }
    Some((key, facts))
}

/// `--play`: the share of optimal moves of `perfect` at each movetime.
///
/// A move is optimal when its exact score equals the position's value
/// (the strict reading); the win/draw/loss class agreement is reported
/// too. The references are proven cheaply: the position's value (book or
/// one exact solve), then one null-window test of the played column
/// ("does it reach the value?") and, for a won position, one more ("does
/// it still win?"). Positions whose reference takes more than
/// `--ref-seconds` are left out and counted as unmeasured.
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
            let plies = rng.random_range(a.min_plies.min(a.max_plies)..=a.max_plies);
            Connect4 { board: book::random_position(w, h, plies, &mut rng) }
        })
        .collect();
    let key = |g: &Connect4| (g.board.current(), g.board.mask());
    let mut refs: HashMap<(u64, u64), Known> = HashMap::new();
    if let Some(p) = &a.refs
        && let Ok(text) = std::fs::read_to_string(p)
    {
        for (k, facts) in text.lines().filter_map(parse_ref_line) {
            let e = refs.entry(k).or_default();
            for (c, lo, hi) in facts {
                match c {
                    None => e.value = Some(lo),
                    Some(c) => e.bound(c, lo, hi),
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
    let mut note = |g: &Connect4, token: String| {
        if let Some(f) = &mut cache {
            let _ = writeln!(f, "{:x}:{:x} {token}", g.board.current(), g.board.mask());
            let _ = f.flush();
        }
    };
    let budget = |solver: &mut Solver| {
        solver.set_budget(super::solver::Budget {
            deadline: (a.ref_seconds > 0.0).then(|| Instant::now() + Duration::from_secs_f64(a.ref_seconds)),
            ..Default::default()
        })
    };
    // Phase 1: the value of every position, fewest empty cells first.
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(positions[i].board.moves()));
    for &i in &order {
        let g = &positions[i];
        if refs.get(&key(g)).is_some_and(|k| k.value.is_some()) {
            continue;
        }
        let value = match book::score(g) {
            Some(v) => Some(v),
            None => {
                budget(solver);
                let t = Instant::now();
                let r = solver.solve(Pos::from(&g.board), false);
                let v = r.is_exact().then_some(r.lo);
                if a.verbose {
                    writeln!(
                        out,
                        "value ply {} {:?} in {:.1}s",
                        g.board.moves(),
                        v,
                        t.elapsed().as_secs_f64()
                    )
                    .and_then(|_| out.flush())
                    .map_err(|e| e.to_string())?;
                }
                v
            }
        };
        if let Some(v) = value {
            refs.entry(key(g)).or_default().value = Some(v);
            note(g, format!("v={v}"));
        }
    }
    if a.values_only {
        let known = positions.iter().filter(|g| refs.get(&key(g)).is_some_and(|k| k.value.is_some())).count();
        writeln!(out, "values known: {known} of {}", positions.len()).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let mut o = OptionValues::from_specs(&Connect4::options());
    o.set("Hash", OptionValue::Int(a.hash as i64));
    o.set("Threads", OptionValue::Int(a.threads as i64));
    // Is column `c` of `g` (value `v`) optimal, and does it keep the
    // win/draw/loss class? `None`: not proven within the budget.
    let mut judge = |refs: &mut HashMap<(u64, u64), Known>,
                     g: &Connect4,
                     c: u32,
                     v: i32,
                     solver: &mut Solver|
     -> Option<(bool, bool)> {
        let k = refs.entry(key(g)).or_default();
        let (mut lo, mut hi) = k.cols.get(&c).copied().unwrap_or((i32::MIN, i32::MAX));
        let mut child = *g;
        child.board.play(c);
        if let Some(s) = super::analysis::final_score(&child).or_else(|| book::score(&child)) {
            (lo, hi) = (-s, -s);
        }
        // Column score >= v (optimal)?  Child's score <= -v, i.e. not > -v.
        if lo < v && hi >= v {
            budget(solver);
            match solver.test(Pos::from(&child.board), -v)? {
                false => lo = v,
                true => hi = v - 1,
            }
            k.bound(c, lo, hi);
            note(g, if lo >= v { format!("{c}>={v}") } else { format!("{c}<={}", v - 1) });
        }
        if lo >= v {
            return Some((true, true));
        }
        let class_kept = if v > 0 {
            // Still a win? Column score >= 1: child's score <= -1.
            if lo < 1 && hi >= 1 {
                budget(solver);
                match solver.test(Pos::from(&child.board), -1)? {
                    false => lo = 1,
                    true => hi = 0,
                }
                k.bound(c, lo, hi);
                note(g, if lo >= 1 { format!("{c}>=1") } else { format!("{c}<=0") });
            }
            lo >= 1
        } else {
            // A draw: any worse move loses. A loss: any move still loses.
            v < 0
        };
        Some((false, class_kept))
    };
    let mut player = Perfect::new(&o);
    for &ms in &a.movetime {
        let (mut optimal, mut class, mut total, mut unmeasured) = (0, 0, 0, 0);
        let mut by_ply: std::collections::BTreeMap<u32, (u32, u32)> = Default::default();
        for g in &positions {
            let Some(v) = refs.get(&key(g)).and_then(|k| k.value) else {
                unmeasured += 1;
                continue;
            };
            // One engine asked about one position after another: its
            // table is cleared (as `newgame` does) but stays mapped, so
            // page faults of a fresh table do not eat the move's time.
            player.reset();
            let mut prng = rand::rngs::StdRng::seed_from_u64(a.seed);
            let mut sink = |_r: crate::search::Report| {};
            let limits = Limits { movetime: Some(Duration::from_millis(ms)), ..Limits::default() };
            let mut ctx = SearchCtx::new(limits, &o, &mut prng, StopFlag::new(), &mut sink);
            let c = player.choose(g, &mut ctx) as u32;
            drop(ctx);
            let Some((opt, kept)) = judge(&mut refs, g, c, v, solver) else {
                unmeasured += 1;
                continue;
            };
            total += 1;
            optimal += opt as usize;
            class += kept as usize;
            let e = by_ply.entry(g.board.moves()).or_default();
            e.0 += opt as u32;
            e.1 += 1;
            if a.verbose {
                writeln!(
                    out,
                    "{ms}ms ply {} played {} optimal {opt} class_kept {kept} value {v} (so far {optimal}/{total})",
                    g.board.moves(),
                    c + 1
                )
                .and_then(|_| out.flush())
                .map_err(|e| e.to_string())?;
            }
        }
        let plies: Vec<String> = by_ply.iter().map(|(p, (o, t))| format!("{p}:{o}/{t}")).collect();
        writeln!(
            out,
            "play movetime {ms}ms: positions {total} optimal {optimal} ({:.1}%) same_class {class} ({:.1}%) unmeasured {unmeasured} by_ply {}",
            100.0 * optimal as f64 / total.max(1) as f64,
            100.0 * class as f64 / total.max(1) as f64,
            plies.join(" ")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_lines_parse_values_scores_and_bounds() {
        let (k, facts) = parse_ref_line("c0010004600:c3810204780 v=3 0=-15 4>=3 5<=2").unwrap();
        assert_eq!(k, (0xc0010004600, 0xc3810204780));
        assert_eq!(
            facts,
            vec![(None, 3, 3), (Some(0), -15, -15), (Some(4), 3, i32::MAX), (Some(5), i32::MIN, 2)]
        );
        assert!(parse_ref_line("4453 0=1").is_none(), "a move string is not a key");
        let mut k = Known::default();
        k.bound(4, 3, i32::MAX);
        k.bound(4, i32::MIN, 5);
        assert_eq!(k.cols[&4], (3, 5));
    }
}
