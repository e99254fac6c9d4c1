//! Game-independent search plumbing: limits, the context a player thinks
//! in (stop flag, clock, node count, progress reports), the [`Player`]
//! trait every AI implements, and generic algorithms (perft, negamax).

pub mod alloc;
pub mod negamax;
pub mod perft;
pub mod pvs;
pub mod tt;

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rand::rngs::StdRng;

use crate::game::Game;
use crate::options::OptionValues;
use crate::time::Instant;

/// A score as reported in `info` lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Heuristic evaluation from the side to move's view, not proven
    /// (`score cp N`).
    Cp(i32),
    /// A heuristic lower bound, not proven: a search whose window cut the
    /// value off from above (`score cp N lowerbound`, as UCI writes it).
    CpLower(i32),
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
            Score::CpLower(v) => write!(f, "cp {v} lowerbound"),
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
    /// `movetime` is a budget taken from the clock: what the move leaves
    /// unused stays on the clock for later moves. False for a fixed time
    /// per move (`go movetime`, `bestmove time`), which is lost if unused.
    pub from_clock: bool,
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

/// Threads a search of `asked` threads starts (see
/// [`crate::threads::usable`]: at most the machine's cores, one where
/// there are no threads).
pub fn usable_threads(asked: usize) -> usize {
    crate::threads::usable(asked)
}

/// Signals that reach a search from outside the engine's own threads: the
/// Web Worker's shared stop flag, which the page writes while the search
/// runs in the worker's one call (see `protocol.md`, "The engine in a
/// browser"). Each returns true while its signal is pending; an embedding
/// that has them registers them once, with [`set_outside_signals`].
#[derive(Clone, Copy, Debug)]
pub struct OutsideSignals {
    /// `stop` (or `quit`) was sent.
    pub stop: fn() -> bool,
    /// `ponderhit` was sent.
    pub ponderhit: fn() -> bool,
}

static OUTSIDE: OnceLock<OutsideSignals> = OnceLock::new();

/// Registers the outside signals (once; later calls are ignored). A
/// protocol search ([`StopFlag::for_search`], [`Progress::for_search`])
/// then sees them as it sees its own `stop` and `ponderhit`.
pub fn set_outside_signals(s: OutsideSignals) {
    let _ = OUTSIDE.set(s);
}

/// Shared stop signal of a running search.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>, Option<fn() -> bool>);

impl StopFlag {
    pub fn new() -> Self {
        Self::default()
    }
    /// The stop flag of a protocol search: also stopped by the outside
    /// `stop` signal, if one is registered (see [`OutsideSignals`]).
    pub fn for_search() -> Self {
        StopFlag(Arc::default(), OUTSIDE.get().map(|o| o.stop))
    }
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed)
    }
    pub fn is_stopped(&self) -> bool {
        if self.0.load(Ordering::Relaxed) {
            return true;
        }
        // The outside signal, once seen, stays seen.
        let outside = self.1.is_some_and(|pending| pending());
        if outside {
            self.stop();
        }
        outside
    }
}

/// What a search shares with the thread that watches it: the nodes
/// counted so far and the time of the last report (for the progress
/// heartbeat), and the pondering state.
#[derive(Debug, Default)]
pub struct Progress {
    nodes: AtomicU64,
    /// Milliseconds since the start at the last report.
    last_report_ms: AtomicU64,
    /// True while the search ponders (its deadline does not run yet).
    pondering: AtomicBool,
    /// The outside `ponderhit` signal (see [`OutsideSignals`]).
    outside_ponderhit: Option<fn() -> bool>,
}

impl Progress {
    pub fn new(pondering: bool) -> Arc<Self> {
        let p = Progress::default();
        p.pondering.store(pondering, Ordering::Relaxed);
        Arc::new(p)
    }
    /// The progress of a protocol search: pondering ends on the outside
    /// `ponderhit` signal too, if one is registered.
    pub fn for_search(pondering: bool) -> Arc<Self> {
        let p = Progress { outside_ponderhit: OUTSIDE.get().map(|o| o.ponderhit), ..Progress::default() };
        p.pondering.store(pondering, Ordering::Relaxed);
        Arc::new(p)
    }
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }
    pub fn last_report_ms(&self) -> u64 {
        self.last_report_ms.load(Ordering::Relaxed)
    }
    /// Counts `n` more nodes (a search that keeps its own counter, such as
    /// the Connect Four solver, reports through this).
    pub fn add_nodes(&self, n: u64) {
        self.nodes.fetch_add(n, Ordering::Relaxed);
    }
    /// The heartbeat printed a line at `ms`: the next one is due a second
    /// later.
    pub fn note_heartbeat(&self, ms: u64) {
        self.last_report_ms.store(ms, Ordering::Relaxed)
    }
    /// `ponderhit`: the move's time starts running now.
    pub fn ponder_hit(&self) {
        self.pondering.store(false, Ordering::Release)
    }
    pub fn is_pondering(&self) -> bool {
        if !self.pondering.load(Ordering::Acquire) {
            return false;
        }
        if self.outside_ponderhit.is_some_and(|pending| pending()) {
            self.ponder_hit();
            return false;
        }
        true
    }
}

/// Everything a player needs while it thinks.
pub struct SearchCtx<'a> {
    pub limits: Limits,
    pub options: &'a OptionValues,
    pub rng: &'a mut StdRng,
    stop: StopFlag,
    start: Instant,
    /// When the time runs out; `None` = no time limit (or a limit too far
    /// away to be told), or not yet known while pondering.
    deadline: Cell<Option<Instant>>,
    /// Nodes visited so far; players add to it.
    pub nodes: u64,
    reporter: &'a mut dyn FnMut(Report),
    progress: Arc<Progress>,
}

impl<'a> SearchCtx<'a> {
    pub fn new(
        limits: Limits,
        options: &'a OptionValues,
        rng: &'a mut StdRng,
        stop: StopFlag,
        reporter: &'a mut dyn FnMut(Report),
    ) -> Self {
        Self::with_progress(limits, options, rng, stop, reporter, Arc::default())
    }

    /// A context that shares its progress with a watcher (see
    /// [`Progress`]).
    pub fn with_progress(
        limits: Limits,
        options: &'a OptionValues,
        rng: &'a mut StdRng,
        stop: StopFlag,
        reporter: &'a mut dyn FnMut(Report),
        progress: Arc<Progress>,
    ) -> Self {
        let now = Instant::now();
        let ctx = SearchCtx {
            limits,
            options,
            rng,
            stop,
            start: now,
            deadline: Cell::new(None),
            nodes: 0,
            reporter,
            progress,
        };
        ctx.started_at(now)
    }

    /// The same context with its clock started at `start` (a new context
    /// starts it now; the protocol passes when the command arrived): the
    /// time limit and `elapsed` count from then. A pondering search's
    /// clock starts at `ponderhit`.
    pub fn started_at(mut self, start: Instant) -> Self {
        self.start = start;
        if !self.progress.is_pondering() {
            self.deadline.set(self.limits.movetime.and_then(|t| start.checked_add(t)));
        }
        self
    }

    /// The deadline, once pondering is over.
    pub fn deadline(&self) -> Option<Instant> {
        if self.deadline.get().is_none() && self.limits.movetime.is_some() && !self.progress.is_pondering() {
            // After `ponderhit` the move's time runs from now (a limit too
            // far away to be told stays `None`).
            self.deadline.set(self.limits.movetime.and_then(|t| Instant::now().checked_add(t)));
        }
        self.deadline.get()
    }

    /// True once the search must end: `stop` was received, the time or the
    /// node budget ran out. Cheap enough to call every few thousand nodes.
    pub fn should_stop(&self) -> bool {
        self.progress.nodes.store(self.nodes, Ordering::Relaxed);
        if self.stop.is_stopped() {
            return true;
        }
        if let Some(n) = self.limits.nodes
            && self.nodes >= n
        {
            return true;
        }
        if let Some(d) = self.deadline()
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

    /// What this search shares with its watcher.
    pub fn progress(&self) -> &Arc<Progress> {
        &self.progress
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Time left before the deadline, if there is one (none while
    /// pondering).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline().map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Sends a progress line.
    pub fn report(&mut self, depth: u32, score: Option<Score>, pv: Vec<String>) {
        let r = Report { depth, score, nodes: self.nodes, time: self.elapsed(), pv, text: None };
        self.send(r);
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
        self.send(r);
    }

    fn send(&mut self, r: Report) {
        self.progress.nodes.store(self.nodes, Ordering::Relaxed);
        self.progress.last_report_ms.store(r.time.as_millis() as u64, Ordering::Relaxed);
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

    /// Waits until what [`Player::prepare`] started in the background is
    /// done (`isready` outside a search: a runner sends it after a new
    /// game and starts the clock at `readyok`).
    fn ready(&mut self) {}
}

/// Legal moves of `pos` as a fresh vector.
pub fn legal_moves<G: Game>(pos: &G) -> Vec<G::Move> {
    let mut v = Vec::new();
    pos.legal_moves(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// A protocol search's stop flag polls the outside signal (the web
    /// worker's shared flag) and keeps it once seen; other flags do not.
    #[test]
    fn the_outside_stop_reaches_a_search_flag() {
        static PENDING: AtomicBool = AtomicBool::new(false);
        fn pending() -> bool {
            PENDING.load(Ordering::Relaxed)
        }
        let f = StopFlag(Arc::default(), Some(pending));
        let helper = f.clone();
        assert!(!f.is_stopped());
        PENDING.store(true, Ordering::Relaxed);
        assert!(helper.is_stopped(), "a clone (a helper's) sees it too");
        PENDING.store(false, Ordering::Relaxed);
        assert!(f.is_stopped(), "once seen, kept");
        assert!(!StopFlag::new().is_stopped());

        static HIT: AtomicBool = AtomicBool::new(false);
        fn hit() -> bool {
            HIT.load(Ordering::Relaxed)
        }
        let p = Progress { outside_ponderhit: Some(hit), ..Progress::default() };
        p.pondering.store(true, Ordering::Relaxed);
        assert!(p.is_pondering());
        HIT.store(true, Ordering::Relaxed);
        assert!(!p.is_pondering());
        HIT.store(false, Ordering::Relaxed);
        assert!(!p.is_pondering(), "ponderhit is kept");
    }

    /// A clock started before the context was made (the command's
    /// arrival) sets the deadline and `elapsed` from then; a pondering
    /// search still has no deadline until `ponderhit`.
    #[test]
    fn the_clock_runs_from_the_given_start() {
        let opts = OptionValues::default();
        let mut rng = StdRng::seed_from_u64(1);
        let mut sink = |_r: Report| {};
        let limits = Limits { movetime: Some(Duration::from_millis(1500)), ..Limits::default() };
        let start = Instant::now().checked_sub(Duration::from_secs(2)).expect("the machine is up for 2 s");
        let ctx = SearchCtx::with_progress(
            limits.clone(),
            &opts,
            &mut rng,
            StopFlag::new(),
            &mut sink,
            Progress::new(false),
        )
        .started_at(start);
        assert_eq!(ctx.deadline(), Some(start + Duration::from_millis(1500)));
        assert_eq!(ctx.remaining(), Some(Duration::ZERO));
        assert!(ctx.elapsed() >= Duration::from_secs(2));
        assert!(ctx.should_stop(), "the time ran out before the search began");

        let mut rng = StdRng::seed_from_u64(1);
        let mut sink = |_r: Report| {};
        let progress = Progress::new(true);
        let ctx =
            SearchCtx::with_progress(limits, &opts, &mut rng, StopFlag::new(), &mut sink, progress.clone())
                .started_at(start);
        assert_eq!(ctx.deadline(), None, "pondering: no deadline yet");
        progress.ponder_hit();
        let d = ctx.deadline().expect("a deadline after ponderhit");
        assert!(d > start + Duration::from_millis(1500), "after ponderhit the time runs from then");
    }
}
