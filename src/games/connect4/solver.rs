//! The Connect Four solver: exact scores in the benchmark convention for
//! any allowed board size.
//!
//! Ideas (all from public descriptions): negamax with alpha-beta whose
//! window is clamped to the score bounds of the position; only moves that
//! do not let the opponent win at once are searched (a forced block when
//! the opponent threatens, a loss when it threatens twice, never a stone
//! under an opponent's winning cell); moves ordered by the number of
//! winning cells they create, centre columns first on ties; a
//! transposition table of upper and lower bounds, mirror positions sharing
//! entries; the exact score found by a sequence of null-window searches
//! that narrow the score interval, trying scores near 0 first.
//!
//! Score of a position with `n` stones on a board of `C` cells, side to
//! move's view: `(C + 1 - n) / 2` if it wins at once; a win with one's
//! k-th stone scores `C/2 + 1 - k`; 0 draw; the opponent's wins are
//! negative.

use std::sync::Arc;

use super::board::{Board, Geometry};
use super::tt::{Bound, Table};
use crate::search::alloc::AllocError;
use crate::search::{Progress, StopFlag};
use crate::time::Instant;

/// A position as the solver sees it: the stones of the side to move, all
/// stones, and their number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub current: u64,
    pub mask: u64,
    pub moves: u32,
}

impl From<&Board> for Pos {
    fn from(b: &Board) -> Pos {
        Pos { current: b.current(), mask: b.mask(), moves: b.moves() }
    }
}

/// Proven bounds of a score: `lo <= score <= hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub lo: i32,
    pub hi: i32,
}

impl Range {
    pub fn exact(v: i32) -> Range {
        Range { lo: v, hi: v }
    }
    pub fn is_exact(&self) -> bool {
        self.lo >= self.hi
    }
    /// True once win/draw/loss is known.
    pub fn sign_known(&self) -> bool {
        self.lo > 0 || self.hi < 0 || (self.lo >= 0 && self.hi <= 0)
    }
    /// Done for an exact (`weak` = false) or a win/draw/loss search.
    pub fn done(&self, weak: bool) -> bool {
        self.is_exact() || (weak && self.sign_known())
    }
    /// The win/draw/loss value (-1, 0, 1), if known.
    pub fn sign(&self) -> Option<i32> {
        if self.lo > 0 {
            Some(1)
        } else if self.hi < 0 {
            Some(-1)
        } else if self.lo >= 0 && self.hi <= 0 {
            Some(0)
        } else {
            None
        }
    }
    /// The same bounds seen from the other side.
    pub fn flip(self) -> Range {
        Range { lo: -self.hi, hi: -self.lo }
    }
}

/// When a search must give up: a deadline, a node budget, a stop flag.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    pub deadline: Option<Instant>,
    /// Total node count (of [`Solver::nodes`]) at which to stop.
    pub nodes: Option<u64>,
    pub stop: Option<StopFlag>,
    /// A second stop flag (the main thread's "done" for helper threads).
    pub done: Option<StopFlag>,
    /// Where the nodes searched are counted for a watcher (the protocol's
    /// heartbeat), 1024 at a time.
    pub progress: Option<Arc<Progress>>,
}

/// What a root search found: the bounds of every column's score (`None`:
/// full column) and of the position's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootInfo {
    pub columns: Vec<Option<Range>>,
    pub value: Range,
}

impl RootInfo {
    /// Columns whose proven lower bound is the best one (the moves that
    /// reach the value once it is exact), in column order.
    pub fn best_columns(&self, weak: bool) -> Vec<u32> {
        let best = self.columns.iter().flatten().map(|r| r.lo).max().unwrap_or(0);
        // In weak mode any proven win (draw) is as good as another.
        let target = if weak && best > 0 {
            1
        } else if weak && best == 0 {
            0
        } else {
            best
        };
        let mut cols: Vec<u32> = (0..self.columns.len() as u32)
            .filter(|&c| self.columns[c as usize].is_some_and(|r| r.lo >= target))
            .collect();
        // Not proven: keep those with the best upper bound.
        if !self.value.done(weak) {
            let top = cols.iter().map(|&c| self.columns[c as usize].map_or(0, |r| r.hi)).max();
            cols.retain(|&c| self.columns[c as usize].map(|r| r.hi) == top);
        }
        cols
    }
}

const MAX_COLS: usize = 9;
/// Mirror positions share entries up to this many stones: deeper, a
/// position and its mirror image rarely both occur in one search, and the
/// mirror costs time at every node (measured: 0% fewer nodes, 4% more
/// instructions on Begin-Medium positions).
const SYMMETRY_PLIES: u32 = 14;
/// Children's table entries are probed for a cut-off (enhanced
/// transposition cut-off) while more than this many cells are empty: near
/// the leaves the probes cost more than they save (measured on random
/// 8-12 stone positions: 20 stones on 7x6 best, -4% nodes and time).
const ETC_EMPTY: u32 = 22;
/// [`centre_order`] of the standard board.
const STANDARD_ORDER: [u32; 7] = [3, 2, 4, 1, 5, 0, 6];

/// The solver: a board size, a transposition table and a node counter.
///
/// With [`Solver::threads`] above 1, every search runs on that many
/// threads sharing the table (lazy SMP): helper threads search the same
/// root with a slightly perturbed move order (and, for [`Solver::columns`],
/// the columns in another order), filling the table with bounds the main
/// thread then finds; the main thread's result is the answer, and the
/// helpers stop when it has it.
pub struct Solver {
    geo: Geometry,
    tt: Arc<Table>,
    /// Columns, centre first.
    order: Vec<u32>,
    /// Nodes searched since the solver was made (every negamax call).
    pub nodes: u64,
    budget: Budget,
    aborted: bool,
    /// Mirror positions share table entries (positions of fewer than
    /// `SYMMETRY_PLIES` stones).
    pub symmetry: bool,
    /// Prefetch the children's table slots.
    pub prefetch: bool,
    /// Search threads (1: no helpers).
    pub threads: usize,
    /// [`Solver::best`] decides win, draw or loss before the exact score
    /// (for a search that may be cut short: what is proven then is what
    /// matters most for the move).
    pub wdl_first: bool,
    /// A parallel [`Solver::solve`] runs plain lazy SMP instead of the
    /// threshold split: every thread runs the same sequence of tests, the
    /// helpers with a perturbed move order (kept for comparison: `meeple
    /// solve --lazy-smp`).
    pub lazy_smp: bool,
    /// The node cap of each column's first test in [`Solver::reach`].
    pub reach_cap: u64,
    /// Non-zero in helper threads: seeds the perturbation of move order.
    perturb: u64,
    /// While several threads search: the positions some thread is
    /// searching now (ABDADA), so the others take a sibling first.
    busy: Option<Arc<Busy>>,
    /// Set when the null-window test this thread runs in a parallel
    /// [`Solver::solve`] is no longer needed.
    moot: Option<StopFlag>,
}

/// The node cap of each column's first test in [`Solver::reach`].
const REACH_FIRST_NODES: u64 = 1 << 14;

/// Plies below which a parallel search defers children another thread is
/// searching (deeper subtrees are too small to be worth the check).
const DEFER_PLIES: u32 = 24;

/// Keys of positions being searched, one slot per hash (a collision only
/// makes a thread defer a child it need not, or not defer one).
struct Busy(Box<[std::sync::atomic::AtomicU64]>);

impl Busy {
    const SLOTS: usize = 1 << 14;

    fn new() -> Busy {
        Busy((0..Self::SLOTS).map(|_| std::sync::atomic::AtomicU64::new(0)).collect())
    }

    fn slot(&self, key: u64) -> &std::sync::atomic::AtomicU64 {
        &self.0[(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 50) as usize & (Self::SLOTS - 1)]
    }

    fn is_busy(&self, key: u64) -> bool {
        self.slot(key).load(std::sync::atomic::Ordering::Relaxed) == key
    }

    fn enter(&self, key: u64) {
        self.slot(key).store(key, std::sync::atomic::Ordering::Relaxed);
    }

    fn leave(&self, key: u64) {
        let _ = self.slot(key).compare_exchange(
            key,
            0,
            std::sync::atomic::Ordering::Relaxed,
            std::sync::atomic::Ordering::Relaxed,
        );
    }
}

impl Solver {
    /// A solver for W x H boards with a table of `hash_mb` MB (at least
    /// 16), or an error if that memory cannot be had. The table's pages
    /// are mapped as the search writes them.
    pub fn new(width: u32, height: u32, hash_mb: usize) -> Result<Solver, AllocError> {
        Solver::new_huge(width, height, hash_mb, false)
    }

    /// [`Solver::new`]; with `huge`, a table backed by transparent huge
    /// pages (for the command-line solvers: faster, but a page fault may
    /// stall a search while the kernel compacts memory).
    pub fn new_huge(width: u32, height: u32, hash_mb: usize, huge: bool) -> Result<Solver, AllocError> {
        let geo = Geometry::new(width, height);
        Ok(Solver {
            geo,
            tt: Arc::new(if huge { Table::with_mb_huge(hash_mb, true)? } else { Table::with_mb(hash_mb)? }),
            order: centre_order(width),
            nodes: 0,
            budget: Budget::default(),
            aborted: false,
            symmetry: true,
            prefetch: true,
            threads: 1,
            wdl_first: false,
            lazy_smp: false,
            reach_cap: REACH_FIRST_NODES,
            perturb: 0,
            busy: None,
            moot: None,
        })
    }

    /// Another solver on the same table (for another thread): what either
    /// proves, both find; its own node count, budget and threads (1).
    pub fn sharing(&self) -> Solver {
        Solver {
            geo: self.geo,
            tt: Arc::clone(&self.tt),
            order: self.order.clone(),
            nodes: 0,
            budget: Budget::default(),
            aborted: false,
            symmetry: self.symmetry,
            prefetch: self.prefetch,
            threads: 1,
            wdl_first: self.wdl_first,
            lazy_smp: self.lazy_smp,
            reach_cap: self.reach_cap,
            perturb: 0,
            busy: None,
            moot: None,
        }
    }

    /// A helper of this solver for thread `id` (1, 2, ...): the same
    /// table and budget, plus the `done` flag.
    fn helper(&self, id: usize, done: &StopFlag) -> Solver {
        let mut helper = self.sharing();
        helper.budget = self.budget.clone();
        helper.budget.done = Some(done.clone());
        helper.perturb = (id as u64).wrapping_mul(0xD1B5_4A32_D192_ED03) | 1;
        helper.busy = self.busy.clone();
        helper
    }

    /// Runs `main` on this thread while `threads - 1` helpers run `help`
    /// (each with its own id) on the same table; returns `main`'s result
    /// once the helpers have stopped, their nodes counted in
    /// [`Solver::nodes`].
    fn parallel<R>(
        &mut self,
        main: impl FnOnce(&mut Solver) -> R,
        help: impl Fn(&mut Solver, usize) + Sync,
    ) -> R {
        if self.threads <= 1 {
            return main(self);
        }
        let done = StopFlag::new();
        self.busy = Some(Arc::new(Busy::new()));
        let mut helpers: Vec<Solver> = (1..self.threads).map(|id| self.helper(id, &done)).collect();
        let help = &help;
        let r = crate::threads::scope(|s| {
            let handles: Vec<_> = helpers
                .iter_mut()
                .enumerate()
                .map(|(i, h)| s.spawn_named(&format!("c4-helper-{}", i + 1), move || help(h, i + 1)))
                .collect();
            let r = main(self);
            done.stop();
            for h in handles {
                if h.join().is_err() {
                    log::error!("a Connect Four helper thread panicked");
                }
            }
            r
        });
        self.busy = None;
        self.nodes += helpers.iter().map(|h| h.nodes).sum::<u64>();
        r
    }

    pub fn geometry(&self) -> Geometry {
        self.geo
    }

    /// Maps the table's pages on another thread (see
    /// [`Table::prefault_in_background`]); only while no other solver
    /// shares the table.
    pub fn prefault_table(&mut self) {
        if let Some(t) = Arc::get_mut(&mut self.tt) {
            t.prefault_in_background();
        }
    }

    /// Maps the table's pages now (for a small table).
    pub fn prefault_table_now(&self) {
        self.tt.prefault_now();
    }

    /// False while [`Solver::prefault_table`]'s thread is still mapping
    /// the table's pages.
    pub fn table_mapped(&self) -> bool {
        self.tt.mapped()
    }

    /// Size of the table in bytes.
    pub fn table_bytes(&self) -> usize {
        self.tt.bytes()
    }

    /// True if the next [`Solver::clear`] wipes the table's memory.
    pub fn clear_wipes(&self) -> bool {
        self.tt.clear_wipes()
    }

    /// Empties the transposition table.
    pub fn clear(&mut self) {
        match Arc::get_mut(&mut self.tt) {
            Some(t) => t.clear(),
            // Helpers hold the table only during a search.
            None => log::error!("Connect Four table still shared: not cleared"),
        }
    }

    /// Limits the following searches; a search that hits them stops and
    /// returns the bounds proven so far ([`Solver::aborted`] then says so).
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
        self.aborted = false;
    }

    /// True if the last search was cut short by the budget.
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    fn check_budget(&mut self) {
        if let Some(p) = &self.budget.progress {
            p.add_nodes(1024);
        }
        if self.over_budget() {
            self.aborted = true;
        }
    }

    /// True if a limit of the budget is reached.
    fn over_budget(&self) -> bool {
        let b = &self.budget;
        b.stop.as_ref().is_some_and(|s| s.is_stopped())
            || b.done.as_ref().is_some_and(|s| s.is_stopped())
            || b.nodes.is_some_and(|n| self.nodes >= n)
            || b.deadline.is_some_and(|d| Instant::now() >= d)
            || self.moot.as_ref().is_some_and(|s| s.is_stopped())
    }

    /// True if the side to move can win with its next stone.
    pub fn can_win_next(&self, p: Pos) -> bool {
        self.geo.winning_cells(p.current, p.mask) & self.geo.playable(p.mask) != 0
    }

    /// The position after the side to move drops a stone in `col`
    /// (playable).
    pub fn play(&self, p: Pos, col: u32) -> Pos {
        let cell = self.geo.playable(p.mask) & self.geo.column_mask(col);
        Pos { current: p.current ^ p.mask, mask: p.mask | cell, moves: p.moves + 1 }
    }

    fn cells(&self) -> i32 {
        self.geo.cells() as i32
    }

    /// The exact score (or, with `weak`, bounds that decide win/draw/loss)
    /// of a position whose game is not over.
    pub fn solve(&mut self, p: Pos, weak: bool) -> Range {
        let n = p.moves as i32;
        if self.can_win_next(p) {
            return Range::exact((self.cells() + 1 - n) / 2);
        }
        let start = Range { lo: -(self.cells() - n) / 2, hi: (self.cells() - 1 - n) / 2 };
        if self.threads <= 1 {
            return self.refine(p, start, weak);
        }
        if self.lazy_smp {
            return self.parallel(
                |s| s.refine(p, start, weak),
                |h, _| {
                    h.refine(p, start, weak);
                },
            );
        }
        // The threads test different thresholds over one shared range,
        // nearest 0 first (the values of most positions, and the costly
        // tests); a test the range no longer needs is stopped.
        let probes = Probes::new(start, self.threads);
        self.parallel(
            |s| s.refine_shared(p, &probes, weak, 0),
            |h, id| {
                h.refine_shared(p, &probes, weak, id);
            },
        )
    }

    /// One thread's part of a parallel [`Solver::solve`]: tests a
    /// threshold near 0 (0, 1, -1, 2, ...) that the range needs, and
    /// narrows the shared range, until the range is done or the budget
    /// runs out.
    fn refine_shared(&mut self, p: Pos, probes: &Probes, weak: bool, id: usize) -> Range {
        loop {
            let (t, flag) = {
                let mut g = probes.state.lock().unwrap_or_else(|e| e.into_inner());
                if g.range.done(weak) || self.aborted {
                    return g.range;
                }
                let r = g.range;
                let taken: Vec<i32> = g.testing.iter().flatten().map(|(t, _)| *t).collect();
                // The needed tests nearest 0: as many as there are threads
                // may run at once; past them a thread joins a test in
                // progress (the table is shared, so two threads on one
                // test still divide its work).
                let near: Vec<i32> = (0..=r.hi.max(-r.lo))
                    .flat_map(|k| [k, -k])
                    .skip(1)
                    .filter(|x| needed(r, weak, *x))
                    .take(g.testing.len())
                    .collect();
                // A test whose answer either way may finish the range
                // (its threshold next to a bound) is helped first.
                let last = taken.iter().find(|&&x| x + 1 == r.hi || x == r.lo);
                let t = last
                    .or_else(|| near.iter().find(|x| !taken.contains(x)))
                    .or_else(|| near.iter().find(|x| taken.contains(x)))
                    .copied()
                    .unwrap_or_else(|| threshold(r, weak));
                let flag = StopFlag::new();
                g.testing[id] = Some((t, flag.clone()));
                (t, flag)
            };
            // Threads on one test divide it by deferring busy children
            // (ABDADA); a perturbed order there measured slower.
            let perturb = std::mem::take(&mut self.perturb);
            self.moot = Some(flag.clone());
            let t0 = Instant::now();
            let v = self.negamax(p, t, t + 1);
            log::debug!("solve thread {id}: test > {t}: {v} in {:.1} s", t0.elapsed().as_secs_f64());
            self.moot = None;
            self.perturb = perturb;
            let mut g = probes.state.lock().unwrap_or_else(|e| e.into_inner());
            g.testing[id] = None;
            if self.aborted {
                if flag.is_stopped() {
                    // Moot, unless the budget ran out too.
                    self.aborted = false;
                    self.check_budget();
                    if !self.aborted {
                        continue;
                    }
                }
                return g.range;
            }
            if v > t {
                g.range.lo = g.range.lo.max(v);
            } else {
                g.range.hi = g.range.hi.min(v);
            }
            let r = g.range;
            for (t, f) in g.testing.iter().flatten() {
                if !needed(r, weak, *t) {
                    f.stop();
                }
            }
        }
    }

    /// One null-window test: `Some(true)` if `p`'s score is above `t`,
    /// `Some(false)` if it is at most `t`, `None` if the budget ran out.
    pub fn test(&mut self, p: Pos, t: i32) -> Option<bool> {
        if self.can_win_next(p) {
            return Some((self.cells() + 1 - p.moves as i32) / 2 > t);
        }
        let v = self.parallel(
            |s| s.negamax(p, t, t + 1),
            |h, _| {
                h.negamax(p, t, t + 1);
            },
        );
        if self.aborted { None } else { Some(v > t) }
    }

    /// Narrows `r` (bounds of `p`'s score; `p`'s side to move cannot win at
    /// once) by null-window searches until exact (or the sign is known
    /// with `weak`), or until the budget runs out.
    fn refine(&mut self, p: Pos, mut r: Range, weak: bool) -> Range {
        while !r.done(weak) && !self.aborted {
            let t = threshold(r, weak);
            let t0 = Instant::now();
            let v = self.negamax(p, t, t + 1);
            log::debug!("solve: test > {t}: {v} in {:.1} s", t0.elapsed().as_secs_f64());
            if self.aborted {
                break;
            }
            if v > t {
                r.lo = r.lo.max(v);
            } else {
                r.hi = r.hi.min(v);
            }
        }
        r
    }

    /// Bounds of the score of every column before any search: exact for a
    /// full column (`None`), a win at once and a move that lets the
    /// opponent win at once.
    pub fn column_starts(&self, p: Pos) -> Vec<Option<Range>> {
        let cells = self.cells();
        let n = p.moves as i32;
        let playable = self.geo.playable(p.mask);
        let wins = self.geo.winning_cells(p.current, p.mask) & playable;
        (0..self.geo.width)
            .map(|c| {
                let m = playable & self.geo.column_mask(c);
                if m == 0 {
                    None
                } else if wins & m != 0 {
                    Some(Range::exact((cells + 1 - n) / 2))
                } else if self.can_win_next(self.play(p, c)) {
                    Some(Range::exact(-(cells - n) / 2))
                } else {
                    Some(Range { lo: -(cells - 2 - n) / 2, hi: (cells - 1 - n) / 2 })
                }
            })
            .collect()
    }

    /// The score of every column (`None`: full), each solved in turn,
    /// centre first. Columns left unsolved when the budget runs out keep
    /// the bounds proven so far.
    pub fn columns(&mut self, p: Pos, weak: bool) -> Vec<Option<Range>> {
        // Helper k starts k columns further along the order.
        self.parallel(
            |s| s.columns_from(p, weak, 0),
            |h, id| {
                h.columns_from(p, weak, id);
            },
        )
    }

    /// [`Solver::columns`] on this thread, starting `skip` columns along
    /// the centre-first order (and wrapping around).
    fn columns_from(&mut self, p: Pos, weak: bool, skip: usize) -> Vec<Option<Range>> {
        let mut out = self.column_starts(p);
        let w = self.order.len();
        for i in 0..w {
            let c = self.order[(i + skip) % w] as usize;
            if let Some(r) = out[c]
                && !r.done(weak)
                && !self.aborted
            {
                let child = self.play(p, c as u32);
                out[c] = Some(self.refine(child, r.flip(), weak).flip());
            }
        }
        out
    }

    /// The value of `p` and a best move: null-window tests "is some column
    /// better than t?" narrow the value as in [`Solver::solve`], each test
    /// trying the columns in move-ordering order and keeping what it
    /// proves about each. With `all`, every column as good as the value is
    /// found (for a random choice among them). With
    /// [`Solver::wdl_first`], the tests that decide win, draw or loss come
    /// first.
    pub fn best(&mut self, p: Pos, weak: bool, all: bool) -> RootInfo {
        self.best_reporting(p, weak, all, &mut |_| {})
    }

    /// [`Solver::best`], calling `report` with what is proven each time
    /// the value's bounds narrow (on this thread).
    pub fn best_reporting(
        &mut self,
        p: Pos,
        weak: bool,
        all: bool,
        report: &mut dyn FnMut(&RootInfo),
    ) -> RootInfo {
        let starts = self.column_starts(p);
        self.best_from(p, weak, all, &starts, report)
    }

    /// [`Solver::best_reporting`] from the columns' bounds `starts`
    /// (proven before, such as by [`Solver::reach`]).
    pub fn best_from(
        &mut self,
        p: Pos,
        weak: bool,
        all: bool,
        starts: &[Option<Range>],
        report: &mut dyn FnMut(&RootInfo),
    ) -> RootInfo {
        self.parallel(
            |s| s.best_here(p, weak, all, starts, report),
            |h, _| {
                h.best_here(p, weak, all, starts, &mut |_| {});
            },
        )
    }

    /// [`Solver::best_from`] on this thread.
    fn best_here(
        &mut self,
        p: Pos,
        weak: bool,
        all: bool,
        starts: &[Option<Range>],
        report: &mut dyn FnMut(&RootInfo),
    ) -> RootInfo {
        let mut cols = starts.to_vec();
        let order = self.root_order(p);
        let value = loop {
            let v = Range {
                lo: cols.iter().flatten().map(|r| r.lo).max().unwrap_or(0),
                hi: cols.iter().flatten().map(|r| r.hi).max().unwrap_or(0),
            };
            if v.done(weak) || self.aborted {
                break v;
            }
            let t = threshold(v, weak || (self.wdl_first && !v.sign_known()));
            for &c in &order {
                let Some(mut r) = cols[c as usize] else { continue };
                if r.hi <= t {
                    continue;
                }
                let x = self.test_column(p, c, t, &mut r);
                if self.aborted {
                    break;
                }
                cols[c as usize] = Some(r);
                if x > t {
                    break;
                }
            }
            if !self.aborted {
                report(&RootInfo { columns: cols.clone(), value: v });
            }
        };
        if all && value.done(weak) {
            let target = if weak { value.lo.min(1) } else { value.lo };
            for &c in &order {
                let Some(mut r) = cols[c as usize] else { continue };
                if r.lo >= target || r.hi < target || self.aborted {
                    continue;
                }
                self.test_column(p, c, target - 1, &mut r);
                if self.aborted {
                    break;
                }
                cols[c as usize] = Some(r);
            }
        }
        RootInfo { columns: cols, value }
    }

    /// The null-window test "is column `c` of `p` better than `t`?": its
    /// result, with what it proves put into `r` (the column's bounds),
    /// unless the search was aborted.
    fn test_column(&mut self, p: Pos, c: u32, t: i32, r: &mut Range) -> i32 {
        let x = -self.negamax(self.play(p, c), -(t + 1), -t);
        if !self.aborted {
            if x > t {
                r.lo = r.lo.max(x);
            } else {
                r.hi = r.hi.min(x);
            }
        }
        x
    }

    /// A column of `p` whose score reaches `v`, the known value of `p`
    /// or a lower bound of it (from the opening book): null-window tests
    /// of the columns, in move-ordering order, racing (rounds of node caps
    /// growing fourfold) until one reaches it. Returns every column's
    /// proven bounds (the found column's lower bound is `v`; a column
    /// proven not to reach it has its upper bound below `v`); if `v` is the
    /// value, no column reaches it only if the budget ran out.
    pub fn reach(&mut self, p: Pos, v: i32) -> Vec<Option<Range>> {
        self.parallel(
            |s| s.reach_here(p, v),
            |h, _| {
                h.reach_here(p, v);
            },
        )
    }

    fn reach_here(&mut self, p: Pos, v: i32) -> Vec<Option<Range>> {
        let mut cols = self.column_starts(p);
        if cols.iter().flatten().any(|r| r.lo >= v) {
            return cols;
        }
        let order = self.root_order(p);
        // The columns race: each test gets a node cap, four times larger
        // each round (the table keeps what a capped test proved), so a
        // column that reaches `v` cheaply is found even if the ordering
        // puts before it a column whose refutation is long.
        let outer = self.budget.nodes;
        let mut cap = self.reach_cap.max(1);
        loop {
            let mut open = false;
            for &c in &order {
                let Some(mut r) = cols[c as usize] else { continue };
                if r.hi < v || r.lo >= v {
                    continue;
                }
                let limit = self.nodes.saturating_add(cap);
                self.budget.nodes = Some(outer.map_or(limit, |n| n.min(limit)));
                let x = self.test_column(p, c, v - 1, &mut r);
                self.budget.nodes = outer;
                if self.aborted {
                    if self.over_budget() {
                        return cols;
                    }
                    self.aborted = false; // only this round's cap
                    open = true;
                    continue;
                }
                cols[c as usize] = Some(r);
                if x >= v {
                    return cols;
                }
            }
            if !open {
                return cols;
            }
            cap = cap.saturating_mul(4);
        }
    }

    /// Playable columns sorted as the search orders moves.
    fn root_order(&self, p: Pos) -> Vec<u32> {
        let playable = self.geo.playable(p.mask);
        let mut v: Vec<(u32, u32)> = self
            .order
            .iter()
            .filter(|&&c| playable & self.geo.column_mask(c) != 0)
            .map(|&c| {
                let m = playable & self.geo.column_mask(c);
                (c, self.geo.winning_cells(p.current | m, p.mask | m).count_ones())
            })
            .collect();
        v.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        v.into_iter().map(|(c, _)| c).collect()
    }

    /// Negamax with alpha-beta (fail-soft) of a position whose side to move
    /// cannot win at once. The result `v` satisfies: `v <= alpha` => score
    /// <= v; `v >= beta` => score >= v; else score = v.
    fn negamax(&mut self, p: Pos, alpha: i32, beta: i32) -> i32 {
        if self.geo == Geometry::STANDARD {
            self.search::<true>(p, alpha, beta)
        } else {
            self.search::<false>(p, alpha, beta)
        }
    }

    /// [`Solver::negamax`]; `STD`: the board is 7 x 6, so every mask and
    /// shift is a constant the compiler folds.
    fn search<const STD: bool>(&mut self, p: Pos, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        let nodes0 = self.nodes;
        if self.nodes & 0x3FF == 0 {
            self.check_budget();
        }
        if self.aborted {
            return 0;
        }
        let geo = if STD { Geometry::STANDARD } else { self.geo };
        let cells = geo.cells() as i32;
        let n = p.moves as i32;
        let possible = geo.playable(p.mask);
        let opp_wins = geo.winning_cells(p.current ^ p.mask, p.mask);
        let forced = possible & opp_wins;
        let mut next = possible;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                // Two threats: lost on the opponent's next stone.
                return -(cells - n) / 2;
            }
            next = forced;
        }
        next &= !(opp_wins >> 1);
        if next == 0 {
            return -(cells - n) / 2;
        }
        if n + 2 >= cells {
            return 0;
        }
        // Neither side wins at its next stone.
        let min = -(cells - 2 - n) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        let max = (cells - 1 - n) / 2;
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }
        // The second player's follow-up strategy may cap the first player.
        if n & 1 == 0
            && beta > -1
            && let Some(cap) = geo.claimeven_bound(p.current, p.mask)
            && beta > cap
        {
            beta = cap;
            if alpha >= beta {
                return beta;
            }
        }
        let (key, flipped) = {
            let k = p.current + p.mask;
            let mk = if self.symmetry && p.moves < SYMMETRY_PLIES { geo.mirror(k) } else { k };
            if mk < k { (mk, true) } else { (k, false) }
        };
        // The table's move is stored for the mirror image when `flipped`.
        let orient = |c: u32| if flipped { geo.width - 1 - c } else { c };
        let mut hint = None;
        match self.tt.get(key) {
            Some((Bound::Lower(v), mv)) => {
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        return alpha;
                    }
                }
                hint = mv.map(orient);
            }
            Some((Bound::Upper(v), _)) if v < beta => {
                beta = v;
                if alpha >= beta {
                    return beta;
                }
            }
            _ => {}
        }
        // Enhanced transposition cut-off: a child whose stored upper bound
        // already refutes the window.
        if p.moves + ETC_EMPTY < cells as u32 {
            let mut rest = next;
            while rest != 0 {
                let m = rest & rest.wrapping_neg();
                rest ^= m;
                let k = (p.current ^ p.mask) + (p.mask | m);
                let mk = if self.symmetry && p.moves + 1 < SYMMETRY_PLIES { geo.mirror(k) } else { k };
                if let Some((Bound::Upper(u), _)) = self.tt.get(k.min(mk))
                    && -u >= beta
                {
                    let c = m.trailing_zeros() / geo.h1;
                    self.tt.put(key, Bound::Lower(-u), Some(orient(c)), 1);
                    return -u;
                }
            }
        }
        // First the move that proved a lower bound here before.
        if let Some(c) = hint {
            let m = next & geo.column_mask(c);
            if m != 0 {
                let child = Pos { current: p.current ^ p.mask, mask: p.mask | m, moves: p.moves + 1 };
                let v = -self.search::<STD>(child, -beta, -alpha);
                if self.aborted {
                    return 0;
                }
                if v >= beta {
                    self.tt.put(key, Bound::Lower(v), Some(orient(c)), self.nodes - nodes0);
                    return v;
                }
                if v > alpha {
                    alpha = v;
                }
                next &= !m;
            }
        }
        // Children's table slots are loaded while the moves are sorted.
        if self.prefetch {
            let mut rest = next;
            while rest != 0 {
                let m = rest & rest.wrapping_neg();
                rest ^= m;
                let k = (p.current ^ p.mask) + (p.mask | m);
                let mk = if self.symmetry && p.moves + 1 < SYMMETRY_PLIES { geo.mirror(k) } else { k };
                self.tt.prefetch(k.min(mk));
            }
        }
        // Order: most useful winning cells created first (see
        // `move_score`), centre first on ties.
        let mut list = [(0u64, 0u32, 0u32); MAX_COLS];
        let mut len = 0;
        let order: &[u32] = if STD { &STANDARD_ORDER } else { &self.order };
        for &c in order {
            let m = next & geo.column_mask(c);
            if m == 0 {
                continue;
            }
            let s = move_score(&geo, p, m, opp_wins);
            insert_by_score(&mut list, &mut len, (m, s, c));
        }
        // Helper threads swap the first two moves at a quarter of the
        // nodes (chosen by position), so they reach other subtrees first.
        if self.perturb != 0 && len > 1 && (key ^ self.perturb).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62 == 0
        {
            list.swap(0, 1);
        }
        // With several threads, near the root: a child another thread is
        // searching waits for a second pass (after the first child, which
        // is always searched at once).
        let busy = if p.moves < DEFER_PLIES { self.busy.clone() } else { None };
        let mut deferred = 0usize;
        for pass in 0..2 {
            for (i, &(m, _, c)) in list[..len].iter().enumerate() {
                if pass == 1 && deferred >> i & 1 == 0 {
                    continue;
                }
                let child = Pos { current: p.current ^ p.mask, mask: p.mask | m, moves: p.moves + 1 };
                let ck = child.current + child.mask;
                let mark = if pass == 0 { busy.as_deref() } else { None };
                if let Some(b) = mark {
                    if i > 0 && b.is_busy(ck) {
                        deferred |= 1 << i;
                        continue;
                    }
                    b.enter(ck);
                }
                let v = -self.search::<STD>(child, -beta, -alpha);
                if let Some(b) = mark {
                    b.leave(ck);
                }
                if self.aborted {
                    return 0;
                }
                if v >= beta {
                    self.tt.put(key, Bound::Lower(v), Some(orient(c)), self.nodes - nodes0);
                    return v;
                }
                if v > alpha {
                    alpha = v;
                }
            }
            if deferred == 0 {
                break;
            }
        }
        self.tt.put(key, Bound::Upper(alpha), None, self.nodes - nodes0);
        alpha
    }
}

/// The shared state of a parallel [`Solver::solve`]: the range proven so
/// far, and the test each thread runs (with its stop flag).
struct Probes {
    state: std::sync::Mutex<ProbeState>,
}

struct ProbeState {
    range: Range,
    testing: Vec<Option<(i32, StopFlag)>>,
}

impl Probes {
    fn new(range: Range, threads: usize) -> Probes {
        Probes { state: std::sync::Mutex::new(ProbeState { range, testing: vec![None; threads] }) }
    }
}

/// True if the test "score > t" can narrow `r` (with `weak`, only the
/// tests that decide win, draw or loss).
fn needed(r: Range, weak: bool, t: i32) -> bool {
    r.lo <= t && t < r.hi && (!weak || t == 0 || t == -1)
}

/// The next null-window test "score > t?" while the score lies in `r`:
/// near the middle, but pulled halfway to 0 from the far side, so that the
/// first tests (on the outer scores) are cheap and the interval closes on
/// scores near 0, the common ones. Weak: the win test (t = 0), then the
/// draw test (t = -1).
fn threshold(r: Range, weak: bool) -> i32 {
    if weak {
        return if r.hi > 0 && r.lo <= 0 { 0 } else { -1 };
    }
    let mid = r.lo + (r.hi - r.lo) / 2;
    if mid <= 0 && r.lo / 2 < mid {
        r.lo / 2
    } else if mid >= 0 && r.hi / 2 > mid {
        r.hi / 2
    } else {
        mid
    }
}

/// The ordering score of the move `m` (a stone mask) of `p`: the cells
/// where it leaves the mover a four to complete, but for those right above
/// an opponent's such cell (the opponent completes its four first there).
#[inline(always)]
fn move_score(geo: &Geometry, p: Pos, m: u64, opp_wins: u64) -> u32 {
    let threats = geo.winning_cells(p.current | m, p.mask | m);
    (threats & !(opp_wins << 1)).count_ones()
}

/// Inserts a move `(stone mask, score, column)` into the first `len`
/// entries of `list`, kept best score first (earlier entries first on
/// ties), and counts it.
#[inline(always)]
pub(super) fn insert_by_score(list: &mut [(u64, u32, u32)], len: &mut usize, item: (u64, u32, u32)) {
    let mut i = *len;
    while i > 0 && list[i - 1].1 < item.1 {
        list[i] = list[i - 1];
        i -= 1;
    }
    list[i] = item;
    *len += 1;
}

/// Columns from the centre outwards (left first on ties).
pub fn centre_order(width: u32) -> Vec<u32> {
    let mut v: Vec<u32> = (0..width).collect();
    v.sort_by_key(|&c| ((2 * c as i32) - (width as i32 - 1)).abs());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders() {
        assert_eq!(centre_order(7), STANDARD_ORDER.to_vec());
        assert_eq!(centre_order(4), vec![1, 2, 0, 3]);
        assert_eq!(Geometry::STANDARD, Geometry::new(7, 6));
    }
}
