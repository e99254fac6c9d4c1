//! Game-independent search plumbing: limits, the context a player thinks
//! in (stop flag, clock, node count, progress reports), the [`Player`]
//! trait every AI implements, and generic algorithms (perft, negamax).

pub mod alloc;
pub mod negamax;
pub mod perft;
pub mod pvs;
pub mod tt;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;

use crate::game::Game;
use crate::options::OptionValues;

/// A score as reported in `info` lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Heuristic evaluation from the side to move's view, not proven
    /// (`score cp N`).
    Cp(i32),
    /// Proven value in the game's own convention (`score exact N`; for
    /// Connect Four the benchmark convention: + side to move wins, larger
    /// = sooner).
    Exact(i32),
    /// Proven bounds in the game's convention (`score lowerbound N` /
    /// `score upperbound N`).
    Lower(i32),
    Upper(i32),
    /// A proven win (N > 0) or loss (N < 0) of the side to move in N of
    /// its own moves (UCI's `score mate N`).
    Mate(i32),
    /// Proven result only (`score win`, `score draw`, `score loss`).
    Win,
    Draw,
    Loss,
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(v) => write!(f, "cp {v}"),
            Score::Exact(v) => write!(f, "exact {v}"),
            Score::Lower(v) => write!(f, "lowerbound {v}"),
            Score::Upper(v) => write!(f, "upperbound {v}"),
            Score::Mate(n) => write!(f, "mate {n}"),
            Score::Win => f.write_str("win"),
            Score::Draw => f.write_str("draw"),
            Score::Loss => f.write_str("loss"),
        }
    }
}

/// What limits one search. Unset fields do not limit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Time for this move (from `movetime`, `bestmove time`, or the
    /// clock), with `Move Overhead` already taken off: a player may use all
    /// of it.
    pub movetime: Option<Duration>,
    /// Search until `stop`.
    pub infinite: bool,
}

impl Limits {
    /// True if nothing but the player's own defaults bounds the search.
    pub fn is_unbounded(&self) -> bool {
        self.depth.is_none() && self.nodes.is_none() && self.movetime.is_none() && !self.infinite
    }
}

/// One progress report of a search, printed as an `info` line.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub depth: u32,
    pub score: Option<Score>,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<String>,
    /// Free text, printed as `info string ...` when the other fields are
    /// empty.
    pub text: Option<String>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(t) = &self.text {
            return write!(f, "info string {t}");
        }
        let ms = self.time.as_millis() as u64;
        let nps = if self.time.as_secs_f64() > 0.0 {
            (self.nodes as f64 / self.time.as_secs_f64()) as u64
        } else {
            0
        };
        write!(f, "info depth {}", self.depth)?;
        if let Some(s) = self.score {
            write!(f, " score {s}")?;
        }
        write!(f, " nodes {} nps {nps} time {ms}", self.nodes)?;
        if !self.pv.is_empty() {
            write!(f, " pv {}", self.pv.join(";"))?;
        }
        Ok(())
    }
}

/// Shared stop signal of a running search.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed)
    }
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Everything a player needs while it thinks.
pub struct SearchCtx<'a> {
    pub limits: Limits,
    pub options: &'a OptionValues,
    pub rng: &'a mut StdRng,
    stop: StopFlag,
    start: Instant,
    deadline: Option<Instant>,
    /// Nodes visited so far; players add to it.
    pub nodes: u64,
    reporter: &'a mut dyn FnMut(Report),
}

impl<'a> SearchCtx<'a> {
    pub fn new(
        limits: Limits,
        options: &'a OptionValues,
        rng: &'a mut StdRng,
        stop: StopFlag,
        reporter: &'a mut dyn FnMut(Report),
    ) -> Self {
        let start = Instant::now();
        let deadline = limits.movetime.map(|t| start + t);
        SearchCtx { limits, options, rng, stop, start, deadline, nodes: 0, reporter }
    }

    /// True once the search must end: `stop` was received, the time or the
    /// node budget ran out. Cheap enough to call every few thousand nodes.
    pub fn should_stop(&self) -> bool {
        if self.stop.is_stopped() {
            return true;
        }
        if let Some(n) = self.limits.nodes
            && self.nodes >= n
        {
            return true;
        }
        if let Some(d) = self.deadline
            && Instant::now() >= d
        {
            return true;
        }
        false
    }

    /// True if `stop` was received (ignores the clock).
    pub fn stop_requested(&self) -> bool {
        self.stop.is_stopped()
    }

    pub fn stop_flag(&self) -> &StopFlag {
        &self.stop
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Time left before the deadline, if there is one.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Sends a progress line.
    pub fn report(&mut self, depth: u32, score: Option<Score>, pv: Vec<String>) {
        let r = Report { depth, score, nodes: self.nodes, time: self.elapsed(), pv, text: None };
        (self.reporter)(r);
    }

    /// Sends an `info string` line.
    pub fn report_text(&mut self, text: impl Into<String>) {
        let r = Report {
            depth: 0,
            score: None,
            nodes: self.nodes,
            time: self.elapsed(),
            pv: vec![],
            text: Some(text.into()),
        };
        (self.reporter)(r);
    }
}

/// Formats a principal variation from position `pos`.
pub fn format_pv<G: Game>(pos: &G, pv: &[G::Move]) -> Vec<String> {
    let mut p = pos.clone();
    let mut out = Vec::with_capacity(pv.len());
    for &m in pv {
        out.push(p.format_move(m));
        p.play(m);
    }
    out
}

/// An AI player of game `G`. Players are kept between moves (so they can
/// keep tables) and moved to the search thread for each search.
pub trait Player<G: Game>: Send {
    /// Chooses a move for the side to move of `pos` (which is not over).
    /// Must return a legal move even when stopped at once.
    fn choose(&mut self, pos: &G, ctx: &mut SearchCtx) -> G::Move;

    /// Forgets what was learnt (called on `newgame`).
    fn reset(&mut self) {}

    /// Called outside any search when a game starts (or the strategy
    /// changes), so slow set-up such as allocating a large table does not
    /// eat into the first move's time.
    fn prepare(&mut self, _pos: &G, _options: &OptionValues) {}
}

/// Legal moves of `pos` as a fresh vector.
pub fn legal_moves<G: Game>(pos: &G) -> Vec<G::Move> {
    let mut v = Vec::new();
    pos.legal_moves(&mut v);
    v
}
