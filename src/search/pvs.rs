//! Principal-variation search for any game with make/unmake and a
//! position key: iterative deepening, aspiration windows, a shared
//! transposition table ([`Tt`]), killer and history move ordering, late
//! move reductions, extensions chosen by the game's [`Heuristics`], and
//! several threads over the shared table when asked for: the same
//! iterative deepening on each, each putting off the moves another thread
//! is searching at that moment (ABDADA, see [`Busy`]), so that they split
//! the tree instead of searching it twice in the same order; what any of
//! them proves at the root is kept in one record ([`RootBest`]), which
//! decides the move.
//!
//! Moves are searched in stages: the table's move and the two killers,
//! each checked for legality alone, before the whole list is generated
//! and ordered; a cut-off among them (most cut-offs) saves the
//! generation. They are the moves the ordered list puts first, in the
//! same order, so staging changes only what the history heuristic knows
//! when the rest is ordered.
//!
//! A position repeated on the path from the game's start is scored as a
//! draw (0): going round in circles is never progress. With one thread
//! the search is deterministic: the same table contents, position and
//! limits give the same node counts.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use rand::Rng;

use crate::game::{Game, Outcome};
use crate::search::tt::{Bound, Entry, Tt};
use crate::search::{Score, SearchCtx, StopFlag, format_pv, usable_threads};
use crate::time::Instant;

/// Scores at or beyond `WIN - MAX_PLY` are forced wins (`WIN - plies`).
pub const WIN: i32 = 1_000_000;
/// Deepest path the search follows.
pub const MAX_PLY: usize = 128;
/// Values at or beyond it (either sign) are proven wins or losses.
pub const WIN_THRESHOLD: i32 = WIN - 1_000;
/// Slots of the history table (see [`Heuristics::history_slot`]).
pub const HISTORY_SLOTS: usize = 1 << 15;
/// Largest order score of [`Heuristics::order`]; with the history bonus
/// (at most `1 << 20`) it stays below the second killer's `1 << 23`.
pub const ORDER_LIMIT: i32 = 1 << 21;

/// What a game tells the search about its positions and moves.
pub trait Heuristics<G: Game>: Sync {
    /// Static evaluation of a position that is not over, from the side to
    /// move's view, well inside +-`WIN / 2`.
    fn evaluate(&self, pos: &G) -> i32;
    /// An ordering score for each move (higher first), appended to `out`.
    /// Cheap: it is called at every interior node. Scores beyond
    /// +-[`ORDER_LIMIT`] are clamped (the killers rank above them all).
    fn order(&self, pos: &G, moves: &[G::Move], out: &mut Vec<i32>);
    /// A code of `m` below `0xFFFF`, kept in the transposition table.
    fn move_code(&self, m: G::Move) -> u16;
    /// The move `code` stands for in `pos`, if it is legal there (as
    /// [`Self::legal`] tells).
    fn code_move(&self, pos: &G, code: u16) -> Option<G::Move>;
    /// True if `m` (from another position: a killer or the table's move)
    /// is legal in `pos`, told without generating every move. False for
    /// a legal move only when it is the position's one legal move (a
    /// pass), so that staging never reorders moves.
    fn legal(&self, pos: &G, m: G::Move) -> bool;
    /// A slot below [`HISTORY_SLOTS`] for the history heuristic.
    fn history_slot(&self, m: G::Move) -> usize;
    /// True if `m` may be searched with a reduced depth when late in the
    /// list (`pos` is before the move).
    fn reducible(&self, _pos: &G, _m: G::Move) -> bool {
        true
    }
    /// True if `m` (not yet played in `pos`) creates a forcing situation
    /// that deserves one more ply.
    fn extend(&self, _pos: &G, _m: G::Move) -> bool {
        false
    }
    /// Appends to `out` moves of `pos` that may end the game at once (a
    /// quiescence search plays them at the leaves), or nothing where the
    /// game can tell cheaply that there are none: it is asked at every
    /// leaf.
    fn finishing(&self, _pos: &G, _out: &mut Vec<G::Move>) {}
}

/// Settings of one search.
#[derive(Clone, Debug)]
pub struct Settings {
    pub max_depth: u32,
    pub threads: usize,
    /// Keys of the positions before the root, earlier first (for
    /// repetitions).
    pub prior: Vec<u64>,
    /// Random noise added to each root move's score (weaker play; 0 for
    /// full strength).
    pub noise: i32,
}

/// Result of a search.
#[derive(Clone, Debug)]
pub struct Found<M> {
    pub best: M,
    pub value: i32,
    pub depth: u32,
    pub pv: Vec<M>,
    /// Moves the threads put off because another thread was searching
    /// them (ABDADA; 0 with one thread).
    pub deferred: u64,
}

/// The score of a search value for `info`: centipawns or mate in N of
/// the side to move's own moves.
pub fn score_of(v: i32) -> Score {
    if v >= WIN_THRESHOLD {
        Score::Mate((WIN - v + 1) / 2)
    } else if v <= -WIN_THRESHOLD {
        Score::Mate(-((WIN + v) / 2).max(1))
    } else {
        Score::Cp(v)
    }
}

/// The `info` score of a value known only as a lower bound: a proven
/// win stays a win (a bound on how soon), anything else (a loss too,
/// since the move may do better) is `cp N lowerbound`.
pub fn bound_score(v: i32) -> Score {
    if v >= WIN_THRESHOLD { score_of(v) } else { Score::CpLower(v) }
}

/// Hashes a position key (already uniformly random) as itself: the
/// repetition set is probed at every node, SipHash there cost ~2 % of the
/// search.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k;
    }
}

/// A set of position keys.
type KeySet = HashSet<u64, BuildHasherDefault<KeyHasher>>;

/// Shared between the threads of one search.
struct Shared<'a> {
    tt: &'a Tt,
    abort: AtomicBool,
    /// Nodes of the helper threads so far (each adds its own as it goes).
    helper_nodes: AtomicU64,
    /// The moves being searched now, when several threads search
    /// (ABDADA); `None` with one thread.
    busy: Option<Busy>,
    /// Moves put off by the threads that have finished (ABDADA).
    deferred: AtomicU64,
    /// The search's `stop` and deadline, which every thread watches
    /// itself (the deadline as known at the start: after a `ponderhit`
    /// only the main thread knows it, and sets `abort`).
    stop: StopFlag,
    deadline: Option<Instant>,
    /// The best root move any thread has proven so far.
    root_best: Mutex<Option<RootBest>>,
}

impl Shared<'_> {
    /// Keeps `rb` if it says more than the record so far.
    fn offer(&self, rb: RootBest) {
        let mut best = self.root_best.lock().unwrap_or_else(|p| p.into_inner());
        if best.is_none_or(|old| rb.beats(&old)) {
            *best = Some(rb);
        }
    }

    fn root_best(&self) -> Option<RootBest> {
        *self.root_best.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What a thread has proven about a root move: the best move of a
/// completed iteration, or in an iteration still going, a move whose
/// value there is known (exactly for the first move searched, as a
/// lower bound for a later one that beat it). The threads' records make
/// one: the deepest wins, at the same depth a completed iteration beats
/// a partial one, and of two partial ones the higher value wins. So when
/// the clock stops an iteration halfway, a move another thread proved
/// better counts as much as one the main thread proved itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RootBest {
    depth: i32,
    complete: bool,
    value: i32,
    /// True when `value` is only a lower bound (a later move that failed
    /// high on the root's window).
    lower: bool,
    code: u16,
}

/// The record's move if it should replace the main thread's result
/// (its move's code and depth; `None` if it has none): when the record
/// is as deep and names another move.
fn overrides(record: Option<RootBest>, result: Option<(u16, u32)>) -> Option<RootBest> {
    let rb = record?;
    result.is_none_or(|(code, depth)| rb.depth >= depth as i32 && code != rb.code).then_some(rb)
}

impl RootBest {
    fn beats(&self, old: &RootBest) -> bool {
        (self.depth, self.complete) > (old.depth, old.complete)
            || self.depth == old.depth && !self.complete && !old.complete && self.value > old.value
    }
}

/// Nodes at least this deep defer a move another thread is searching.
const DEFER_DEPTH: i32 = 3;

/// The moves the threads of one search are searching now, for the
/// simplified ABDADA of Tom Kerrigan: at a node below the root, a move
/// (other than the first) that another thread is searching is put off to
/// the end of the list; by the time it comes back, the other thread's
/// result is usually in the table. So the threads split the tree's work between them
/// instead of searching the same moves in the same order, as plain lazy
/// SMP does. Each entry is a hash of (position, move), set while the
/// move is searched and cleared after; sets of four, written with relaxed
/// atomics (a lost or stale entry only costs a duplicated or deferred
/// search, never a wrong result).
struct Busy {
    slots: Box<[AtomicU64]>,
}

const BUSY_SETS: usize = 1 << 15;
const BUSY_WAYS: usize = 4;

impl Busy {
    fn new() -> Busy {
        Busy { slots: (0..BUSY_SETS * BUSY_WAYS).map(|_| AtomicU64::new(0)).collect() }
    }

    /// The hash of a move (coded `code`) at the position of key `key`;
    /// never 0, the mark of an empty slot.
    #[inline]
    fn move_key(key: u64, code: u16) -> u64 {
        (key ^ (code as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)).max(1)
    }

    #[inline]
    fn set(&self, mk: u64) -> &[AtomicU64] {
        let i = (mk >> 40) as usize & (BUSY_SETS - 1);
        &self.slots[i * BUSY_WAYS..(i + 1) * BUSY_WAYS]
    }

    /// True if another thread is searching this move now.
    #[inline]
    fn is_busy(&self, mk: u64) -> bool {
        self.set(mk).iter().any(|w| w.load(Relaxed) == mk)
    }

    /// Marks the move as being searched.
    #[inline]
    fn start(&self, mk: u64) {
        let set = self.set(mk);
        for w in set {
            let v = w.load(Relaxed);
            if v == mk {
                return;
            }
            if v == 0 {
                w.store(mk, Relaxed);
                return;
            }
        }
        set[0].store(mk, Relaxed);
    }

    /// Clears the mark of a move whose search is over.
    #[inline]
    fn finish(&self, mk: u64) {
        for w in self.set(mk) {
            if w.load(Relaxed) == mk {
                w.store(0, Relaxed);
            }
        }
    }
}

/// Nodes between two looks at the stop flag and the clock: about 0.2 ms
/// of search.
const POLL_NODES: u64 = 256;
const _: () = assert!(POLL_NODES.is_power_of_two());

/// One thread's searcher.
struct Searcher<'a, G: Game, H> {
    heur: &'a H,
    shared: &'a Shared<'a>,
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<i32>,
    /// Keys along the current path (root first), plus the game before.
    path: Vec<u64>,
    prior: &'a KeySet,
    /// Bit `key >> 54` set for each key of `prior`: most keys are not
    /// there, and one bit tells.
    prior_filter: [u64; 16],
    nodes: u64,
    stopped: bool,
    /// Main thread: polls the context's stop conditions.
    main: bool,
    /// Depth of the current iteration.
    root_depth: i32,
    /// Scratch buffers per ply.
    moves: Vec<Vec<G::Move>>,
    scores: Vec<Vec<i32>>,
    /// Scratch of [`Self::pick`]'s sort.
    sort_buf: Vec<u64>,
    tmp_moves: Vec<G::Move>,
    tmp_scores: Vec<i32>,
    /// Scratch of [`Self::leaf`].
    fin: Vec<G::Move>,
    /// Moves put off per ply (ABDADA).
    deferred: Vec<Vec<G::Move>>,
    /// Nodes already added to `Shared::helper_nodes` (helpers).
    nodes_told: u64,
    /// Moves this thread put off (ABDADA).
    deferrals: u64,
}

impl<'a, G: Game, H: Heuristics<G>> Searcher<'a, G, H> {
    fn new(heur: &'a H, shared: &'a Shared<'a>, prior: &'a KeySet, main: bool) -> Self {
        Searcher {
            heur,
            shared,
            killers: vec![[None, None]; MAX_PLY + 2],
            history: vec![0; HISTORY_SLOTS],
            path: Vec::with_capacity(MAX_PLY + 2),
            prior,
            prior_filter: {
                let mut f = [0u64; 16];
                for &k in prior {
                    f[(k >> 60) as usize] |= 1 << (k >> 54 & 63);
                }
                f
            },
            nodes: 0,
            stopped: false,
            main,
            root_depth: 0,
            moves: (0..MAX_PLY + 2).map(|_| Vec::new()).collect(),
            scores: (0..MAX_PLY + 2).map(|_| Vec::new()).collect(),
            sort_buf: Vec::new(),
            tmp_moves: Vec::new(),
            tmp_scores: Vec::new(),
            fin: Vec::new(),
            deferred: (0..MAX_PLY + 2).map(|_| Vec::new()).collect(),
            nodes_told: 0,
            deferrals: 0,
        }
    }

    fn repeated(&self, key: u64) -> bool {
        // Same side to move: every second position back on the path.
        let n = self.path.len();
        let mut i = n as isize - 3;
        while i >= 0 {
            if self.path[i as usize] == key {
                return true;
            }
            i -= 2;
        }
        self.prior_filter[(key >> 60) as usize] >> (key >> 54 & 63) & 1 != 0 && self.prior.contains(&key)
    }

    /// Moves of `pos` into `self.moves[ply]`, best-first order scores into
    /// `self.scores[ply]`.
    fn gen_ordered(&mut self, pos: &G, ply: usize, tt_move: Option<G::Move>) {
        let mut moves = std::mem::take(&mut self.moves[ply]);
        let mut scores = std::mem::take(&mut self.scores[ply]);
        moves.clear();
        scores.clear();
        pos.legal_moves(&mut moves);
        self.heur.order(pos, &moves, &mut scores);
        for (i, m) in moves.iter().enumerate() {
            let mut s = scores[i].clamp(-ORDER_LIMIT, ORDER_LIMIT)
                + self.history[self.heur.history_slot(*m)].min(1 << 20);
            if Some(*m) == self.killers[ply][0] {
                s += 1 << 24;
            } else if Some(*m) == self.killers[ply][1] {
                s += 1 << 23;
            }
            if tt_move == Some(*m) {
                s = i32::MAX;
            }
            scores[i] = s;
        }
        self.moves[ply] = moves;
        self.scores[ply] = scores;
    }

    /// Swaps the best remaining move of ply into place `i`: a selection
    /// for the first few (a cut-off usually comes early), then one sort
    /// of the rest (selecting through a long list of an all-node is
    /// quadratic).
    fn pick(&mut self, ply: usize, i: usize) -> G::Move {
        const SELECT: usize = 6;
        let n = self.scores[ply].len();
        if i == SELECT && n > SELECT + 1 {
            let mut keyed = std::mem::take(&mut self.sort_buf);
            keyed.clear();
            // Best score first, ties in list order (as the selection).
            let sc = &self.scores[ply];
            keyed
                .extend((SELECT..n).map(|j| ((u32::MAX - (sc[j] as u32 ^ 1 << 31)) as u64) << 32 | j as u64));
            keyed.sort_unstable();
            let moves = &mut self.moves[ply];
            let scores = &mut self.scores[ply];
            self.tmp_moves.clear();
            self.tmp_scores.clear();
            for &k in &keyed {
                let j = (k & 0xFFFF_FFFF) as usize;
                self.tmp_moves.push(moves[j]);
                self.tmp_scores.push(scores[j]);
            }
            moves[SELECT..].copy_from_slice(&self.tmp_moves);
            scores[SELECT..].copy_from_slice(&self.tmp_scores);
            self.sort_buf = keyed;
        }
        if i >= SELECT {
            return self.moves[ply][i];
        }
        let sc = &mut self.scores[ply];
        let mut best = i;
        for j in i + 1..sc.len() {
            if sc[j] > sc[best] {
                best = j;
            }
        }
        sc.swap(i, best);
        self.moves[ply].swap(i, best);
        self.moves[ply][i]
    }

    /// Looks at the stop conditions: every thread sees `stop` and the
    /// deadline itself (a helper does not wait for the main thread to be
    /// scheduled), and any thread that sees one stops them all.
    fn poll(&mut self, ctx: &SearchCtx) {
        let sh = self.shared;
        if self.main {
            if ctx.should_stop() {
                sh.abort.store(true, Relaxed);
            }
        } else {
            sh.helper_nodes.fetch_add(self.nodes - self.nodes_told, Relaxed);
            self.nodes_told = self.nodes;
            if sh.stop.is_stopped()
                || ctx.limits.nodes.is_some_and(|n| self.nodes >= n)
                || sh.deadline.is_some_and(|d| Instant::now() >= d)
            {
                sh.abort.store(true, Relaxed);
            }
        }
        if sh.abort.load(Relaxed) {
            self.stopped = true;
        }
    }

    fn pvs(
        &mut self,
        pos: &mut G,
        ctx: &mut SearchCtx,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes & (POLL_NODES - 1) == 0 {
            if self.main {
                ctx.nodes = self.nodes + self.shared.helper_nodes.load(Relaxed);
            }
            self.poll(ctx);
        }
        if self.stopped {
            return 0;
        }
        match pos.outcome() {
            Some(Outcome::Draw) => return 0,
            Some(Outcome::Win(s)) => {
                let v = WIN - ply as i32;
                return if s == pos.side_to_move() { v } else { -v };
            }
            None => {}
        }
        let key = pos.hash();
        if ply > 0 && self.repeated(key) {
            return 0;
        }
        // Mate distance pruning.
        let alpha0 = alpha.max(-WIN + ply as i32);
        let beta0 = beta.min(WIN - ply as i32 - 1);
        if alpha0 >= beta0 {
            return alpha0;
        }
        if depth <= 0 || ply >= MAX_PLY {
            return self.leaf(pos, ply);
        }
        let is_pv = beta - alpha > 1;
        let entry = self.shared.tt.probe(key);
        let mut tt_code = None;
        if let Some(e) = entry {
            tt_code = e.mv;
            if !is_pv && e.depth as i32 >= depth {
                let s = from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }
        self.path.push(key);
        let tt_move = tt_code.and_then(|c| self.heur.code_move(pos, c));
        let alpha_orig = alpha;
        let mut best = -WIN - 1;
        let mut best_move: Option<G::Move> = None;
        // With several threads, a move another thread is searching now
        // waits for the end of the list (ABDADA, see [`Busy`]).
        let sh = self.shared;
        let busy = sh.busy.as_ref().filter(|_| depth >= DEFER_DEPTH);
        let mut deferred = if busy.is_some() { std::mem::take(&mut self.deferred[ply]) } else { Vec::new() };
        deferred.clear();
        let mut staged: [Option<G::Move>; 3] = [None; 3];
        let mut n_staged = 0;
        let mut searched = 0;
        let mut cut = false;
        // One move's search and its bookkeeping; `break`s out of the loop
        // it is in at a cut-off, returns when the search is stopped.
        macro_rules! search_move {
            ($m:expr, $may_defer:expr) => {{
                let m = $m;
                let mk = if busy.is_some() { Busy::move_key(key, self.heur.move_code(m)) } else { 0 };
                if $may_defer && searched > 0 && busy.is_some_and(|b| b.is_busy(mk)) {
                    self.deferrals += 1;
                    deferred.push(m);
                    continue;
                }
                if let Some(b) = busy {
                    b.start(mk);
                }
                let v = self.child(pos, ctx, m, searched, depth, ply, alpha, beta, is_pv);
                if let Some(b) = busy {
                    b.finish(mk);
                }
                searched += 1;
                if self.stopped {
                    self.path.pop();
                    return 0;
                }
                if v > best {
                    best = v;
                    best_move = Some(m);
                }
                alpha = alpha.max(v);
                if alpha >= beta {
                    self.cut_off(ply, m, depth);
                    cut = true;
                    break;
                }
            }};
        }
        // The staged moves: the table's move, then the killers that are
        // legal here (the order `gen_ordered` gives them).
        let candidates = [tt_move, self.killers[ply][0], self.killers[ply][1]];
        for (c, &m) in candidates.iter().enumerate() {
            let Some(m) = m else { continue };
            if staged[..n_staged].contains(&Some(m)) || (c > 0 && !self.heur.legal(pos, m)) {
                continue;
            }
            staged[n_staged] = Some(m);
            n_staged += 1;
            search_move!(m, true);
        }
        // The generated moves: the same body as above, in a loop of its
        // own (one loop over both measured 10% slower).
        if !cut {
            self.gen_ordered(pos, ply, tt_move);
            let n = self.moves[ply].len();
            for i in 0..n {
                let m = self.pick(ply, i);
                if staged[..n_staged].contains(&Some(m)) {
                    continue;
                }
                search_move!(m, true);
            }
        }
        // The deferred moves, whoever is searching them now.
        if !cut {
            for j in 0..deferred.len() {
                search_move!(deferred[j], false);
            }
        }
        debug_assert!(!cut || alpha >= beta);
        if busy.is_some() {
            self.deferred[ply] = deferred;
        }
        self.path.pop();
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let mv = best_move.map(|m| self.heur.move_code(m));
        self.shared
            .tt
            .store(key, Entry { score: to_tt(best, ply), depth: depth.clamp(0, 255) as u8, bound, mv });
        best
    }

    /// Searches `m`, the `i`-th move searched at a node of `depth`
    /// (`pos` before the move): the first with the whole window, the
    /// others with a null window (late quiet ones reduced first), again
    /// with the whole window when they raise alpha in a PV node.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn child(
        &mut self,
        pos: &mut G,
        ctx: &mut SearchCtx,
        m: G::Move,
        i: usize,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        is_pv: bool,
    ) -> i32 {
        // Extensions only in the first `root_depth` plies, so a path
        // is at most twice as long as the iteration's depth.
        let ext = (ply < self.root_depth as usize && self.heur.extend(pos, m)) as i32;
        let r = if depth >= 3 && i >= 3 && ext == 0 && self.heur.reducible(pos, m) {
            1 + (depth >= 5 && i >= 10) as i32
        } else {
            0
        };
        pos.play(m);
        let nd = depth - 1 + ext;
        let v = if i == 0 {
            -self.pvs(pos, ctx, nd, ply + 1, -beta, -alpha)
        } else {
            let mut v = -self.pvs(pos, ctx, nd - r, ply + 1, -alpha - 1, -alpha);
            if v > alpha && r > 0 {
                v = -self.pvs(pos, ctx, nd, ply + 1, -alpha - 1, -alpha);
            }
            if v > alpha && v < beta && is_pv {
                v = -self.pvs(pos, ctx, nd, ply + 1, -beta, -alpha);
            }
            v
        };
        pos.undo(m);
        v
    }

    /// The value of a leaf: the evaluation, unless a move that ends the
    /// game at once ([`Heuristics::finishing`]) wins or draws better.
    fn leaf(&mut self, pos: &mut G, ply: usize) -> i32 {
        let mut best = self.heur.evaluate(pos);
        let mut fin = std::mem::take(&mut self.fin);
        fin.clear();
        self.heur.finishing(pos, &mut fin);
        let me = pos.side_to_move();
        for &m in &fin {
            pos.play(m);
            let v = match pos.outcome() {
                Some(Outcome::Win(s)) if s == me => Some(WIN - ply as i32 - 1),
                Some(Outcome::Draw) => Some(0),
                _ => None,
            };
            pos.undo(m);
            if let Some(v) = v {
                best = best.max(v);
                if v > 0 {
                    break;
                }
            }
        }
        self.fin = fin;
        best
    }

    /// Killer and history updates for a move that caused a cut-off.
    fn cut_off(&mut self, ply: usize, m: G::Move, depth: i32) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        let slot = self.heur.history_slot(m);
        self.history[slot] += depth * depth;
    }

    /// One iteration at the root over `root_moves` (reordered in place:
    /// best first). Returns the best value, or None if stopped before the
    /// first move was searched.
    fn root(
        &mut self,
        pos: &mut G,
        ctx: &mut SearchCtx,
        root_moves: &mut [(G::Move, i32)],
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let key = pos.hash();
        self.root_depth = depth;
        self.path.clear();
        self.path.push(key);
        let mut best: Option<i32> = None;
        let mut best_i = 0;
        // With several threads the root moves are split as the moves
        // below it are (ABDADA): a move another thread is searching now
        // waits for the end of the list. What any thread proves at the
        // root goes to the shared record ([`RootBest`]), which decides
        // the move when the search stops in the middle of an iteration.
        let busy = self.shared.busy.as_ref().filter(|_| depth >= DEFER_DEPTH);
        let mut deferred: Vec<usize> = Vec::new();
        let mut searched = 0;
        'passes: for pass in 0..2 {
            let list: Vec<usize> =
                if pass == 0 { (0..root_moves.len()).collect() } else { std::mem::take(&mut deferred) };
            for i in list {
                let (m, noise) = root_moves[i];
                let code = self.heur.move_code(m);
                let mk = Busy::move_key(key, code);
                if pass == 0 && searched > 0 && busy.is_some_and(|b| b.is_busy(mk)) {
                    self.deferrals += 1;
                    deferred.push(i);
                    continue;
                }
                if let Some(b) = busy {
                    b.start(mk);
                }
                pos.play(m);
                // Noise shifts this move's window (0 at full strength).
                let (a, b) = (alpha.saturating_sub(noise), beta.saturating_sub(noise));
                let v = if searched == 0 {
                    -self.pvs(pos, ctx, depth - 1, 1, -b, -a)
                } else {
                    let mut v = -self.pvs(pos, ctx, depth - 1, 1, -a - 1, -a);
                    if v > a && v < b {
                        v = -self.pvs(pos, ctx, depth - 1, 1, -b, -a);
                    }
                    v
                } + noise;
                pos.undo(m);
                if let Some(b) = busy {
                    b.finish(mk);
                }
                if self.stopped {
                    break 'passes;
                }
                // To the record: the first move's value when exact, and
                // a later move that raises alpha (proven better, at this
                // depth, than the first: the last iteration's best).
                if searched > 0 && v > alpha || searched == 0 && v > alpha && v < beta {
                    let lower = v >= beta;
                    self.shared.offer(RootBest { depth, complete: false, value: v, lower, code });
                }
                searched += 1;
                if best.is_none_or(|b| v > b) {
                    best = Some(v);
                    best_i = i;
                }
                if v > alpha {
                    alpha = v;
                }
                if alpha >= beta {
                    break 'passes;
                }
            }
        }
        if best.is_some() {
            root_moves[..=best_i].rotate_right(1);
            let mv = Some(self.heur.move_code(root_moves[0].0));
            let b = best.unwrap_or(0);
            if !self.stopped && b > -WIN {
                let bound = if b >= beta { Bound::Lower } else { Bound::Exact };
                self.shared.tt.store(key, Entry { score: to_tt(b, 0), depth: depth as u8, bound, mv });
            }
        }
        best
    }

    /// One iteration of depth `d` at the root, in aspiration windows
    /// around `prev` (the last iteration's value) widened until the value
    /// falls inside; a completed one goes to the record ([`RootBest`]).
    /// Returns its value, or when stopped: any value it found if
    /// `have_result` is false (nothing better to play), else None (a
    /// move it proved better is in the record, which `search` consults).
    fn iterate(
        &mut self,
        pos: &mut G,
        ctx: &mut SearchCtx,
        root_moves: &mut [(G::Move, i32)],
        d: i32,
        prev: Option<i32>,
        have_result: bool,
    ) -> Option<i32> {
        // Start from the best move any thread has proven (with one
        // thread, this thread's own best).
        if let Some(rb) = self.shared.root_best()
            && rb.depth >= d - 1
            && let Some(i) = root_moves.iter().position(|&(m, _)| self.heur.move_code(m) == rb.code)
        {
            root_moves[..=i].rotate_right(1);
        }
        let mut delta = 40;
        let (mut lo, mut hi) = match prev {
            Some(p) if d >= 4 && p.abs() < WIN_THRESHOLD => (p - delta, p + delta),
            _ => (-WIN - 1, WIN + 1),
        };
        loop {
            let v = self.root(pos, ctx, root_moves, d, lo, hi)?;
            if self.stopped {
                return if have_result { None } else { Some(v) };
            }
            if v <= lo && lo > -WIN - 1 {
                lo = (v - delta).max(-WIN - 1);
                delta *= 3;
            } else if v >= hi && hi < WIN + 1 {
                hi = (v + delta).min(WIN + 1);
                delta *= 3;
            } else {
                let code = self.heur.move_code(root_moves[0].0);
                self.shared.offer(RootBest { depth: d, complete: true, value: v, lower: false, code });
                return Some(v);
            }
        }
    }
}

fn to_tt(v: i32, ply: usize) -> i32 {
    if v >= WIN_THRESHOLD {
        v + ply as i32
    } else if v <= -WIN_THRESHOLD {
        v - ply as i32
    } else {
        v
    }
}

fn from_tt(v: i32, ply: usize) -> i32 {
    if v >= WIN_THRESHOLD {
        v - ply as i32
    } else if v <= -WIN_THRESHOLD {
        v + ply as i32
    } else {
        v
    }
}

/// The principal variation read from the table, starting with `first`.
fn pv_from_tt<G: Game, H: Heuristics<G>>(
    root: &G,
    heur: &H,
    tt: &Tt,
    first: G::Move,
    max: usize,
) -> Vec<G::Move> {
    let mut pos = root.clone();
    let mut pv = vec![first];
    let mut seen = HashSet::new();
    seen.insert(pos.hash());
    pos.play(first);
    let mut moves = Vec::new();
    while pv.len() < max && pos.outcome().is_none() && seen.insert(pos.hash()) {
        let Some(Entry { mv: Some(code), .. }) = tt.probe(pos.hash()) else { break };
        moves.clear();
        pos.legal_moves(&mut moves);
        let Some(&m) = moves.iter().find(|&&m| heur.move_code(m) == code) else { break };
        pv.push(m);
        pos.play(m);
    }
    pv
}

/// Iterative-deepening PVS from `root` (not over), reporting one `info`
/// line per completed depth. Returns `None` only if `root` has no move.
pub fn search<G: Game, H: Heuristics<G>>(
    root: &G,
    heur: &H,
    tt: &Tt,
    ctx: &mut SearchCtx,
    settings: &Settings,
) -> Option<Found<G::Move>> {
    let mut moves = Vec::new();
    root.legal_moves(&mut moves);
    if moves.is_empty() {
        return None;
    }
    tt.new_search();
    let threads = usable_threads(settings.threads);
    let prior: KeySet = settings.prior.iter().copied().collect();
    let shared = Shared {
        tt,
        abort: AtomicBool::new(false),
        helper_nodes: AtomicU64::new(0),
        busy: (threads > 1).then(Busy::new),
        deferred: AtomicU64::new(0),
        stop: ctx.stop_flag().clone(),
        deadline: ctx.deadline(),
        root_best: Mutex::new(None),
    };
    let max_depth = settings.max_depth.clamp(1, MAX_PLY as u32 - 8);
    // Root order: the table's move, then the game's order.
    let mut scores = Vec::new();
    heur.order(root, &moves, &mut scores);
    if let Some(Entry { mv: Some(code), .. }) = tt.probe(root.hash())
        && let Some(i) = moves.iter().position(|&m| heur.move_code(m) == code)
        && let Some(s) = scores.get_mut(i)
    {
        *s = i32::MAX;
    }
    let mut root_moves: Vec<(G::Move, i32)> = moves
        .iter()
        .zip(&scores)
        .map(|(&m, _)| (m, if settings.noise > 0 { ctx.rng.random_range(0..=settings.noise) } else { 0 }))
        .collect();
    let mut order: Vec<usize> = (0..moves.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(scores[i]));
    root_moves = order.iter().map(|&i| root_moves[i]).collect();
    if root_moves.len() == 1 {
        let m = root_moves[0].0;
        ctx.nodes += 1;
        ctx.report(1, None, format_pv(root, &[m]));
        return Some(Found { best: m, value: 0, depth: 0, pv: vec![m], deferred: 0 });
    }
    let start_nodes = ctx.nodes;
    let mut result: Option<Found<G::Move>> = None;
    let mut main_nodes = 0;
    crate::threads::scope(|scope| {
        // Helpers: the same iterative deepening, filling the shared table
        // until the main thread is done; at each node they take the moves
        // no other thread is searching first (ABDADA, see [`Busy`]).
        for t in 1..threads {
            let shared = &shared;
            let prior = &prior;
            let mut rm = root_moves.clone();
            let mut pos = root.clone();
            let lim = ctx.limits.clone();
            scope.spawn(move || {
                let opts = crate::options::OptionValues::default();
                let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(t as u64);
                let mut sink = |_r| {};
                let mut hctx =
                    SearchCtx::new(lim, &opts, &mut rng, crate::search::StopFlag::new(), &mut sink);
                let mut s = Searcher::new(heur, shared, prior, false);
                let mut prev = None;
                for d in 1..=max_depth {
                    let v = s.iterate(&mut pos, &mut hctx, &mut rm, d as i32, prev, true);
                    if s.stopped || v.is_none() {
                        break;
                    }
                    prev = v;
                }
                shared.helper_nodes.fetch_add(s.nodes - s.nodes_told, Relaxed);
                shared.deferred.fetch_add(s.deferrals, Relaxed);
            });
        }
        let mut s = Searcher::new(heur, &shared, &prior, true);
        let mut pos = root.clone();
        let mut prev: Option<i32> = None;
        for depth in 1..=max_depth {
            let d = depth as i32;
            // Room for the next iteration: a few times the nodes so far
            // (each iteration costs several times all before it; only
            // interior nodes store an entry).
            tt.reserve(4 * (s.nodes + shared.helper_nodes.load(Relaxed)), ctx.deadline());
            let value = s.iterate(&mut pos, ctx, &mut root_moves, d, prev, result.is_some());
            ctx.nodes = start_nodes + s.nodes + shared.helper_nodes.load(Relaxed);
            let Some(v) = value else { break };
            let best = root_moves[0].0;
            let pv = pv_from_tt(root, heur, tt, best, depth as usize + 4);
            if !s.stopped {
                ctx.report(depth, Some(score_of(v)), format_pv(root, &pv));
            }
            result = Some(Found { best, value: v, depth, pv, deferred: 0 });
            prev = Some(v);
            if s.stopped || v.abs() >= WIN_THRESHOLD && depth >= 2 {
                break;
            }
            // A clock's budget: not enough time left for a deeper
            // iteration to matter, and what is left stays on the clock. A
            // fixed time per move is lost if unused, and an unfinished
            // iteration can still prove a better move (see [`RootBest`]).
            if ctx.limits.from_clock
                && let (Some(t), Some(rem)) = (ctx.limits.movetime, ctx.remaining())
                && rem.as_secs_f64() < 0.3 * t.as_secs_f64()
            {
                break;
            }
            if ctx.should_stop() {
                break;
            }
        }
        shared.abort.store(true, Relaxed);
        main_nodes = s.nodes;
        shared.deferred.fetch_add(s.deferrals, Relaxed);
    });
    ctx.nodes = start_nodes + main_nodes + shared.helper_nodes.load(Relaxed);
    let deferred = shared.deferred.load(Relaxed);
    if threads > 1 {
        log::debug!("{threads} threads put off {deferred} moves another thread was searching");
    }
    // A move some thread proved better, deeper or at the same depth,
    // than the main thread's last completed iteration (with one thread:
    // a move its own unfinished iteration proved better; see [`RootBest`]).
    if let Some(rb) =
        overrides(shared.root_best(), result.as_ref().map(|f| (heur.move_code(f.best), f.depth)))
        && let Some(&(m, _)) = root_moves.iter().find(|&&(m, _)| heur.move_code(m) == rb.code)
    {
        log::debug!(
            "playing {}, the best move proven at depth {} ({} iteration), not the main thread's last result",
            format_pv(root, &[m]).concat(),
            rb.depth,
            if rb.complete { "a completed" } else { "an unfinished" }
        );
        let depth = rb.depth as u32;
        let pv = pv_from_tt(root, heur, tt, m, depth as usize + 4);
        // The last `info` line names the move played, as clients expect.
        let score = if rb.lower { bound_score(rb.value) } else { score_of(rb.value) };
        ctx.report(depth, Some(score), format_pv(root, &pv));
        result = Some(Found { best: m, value: rb.value, depth, pv, deferred: 0 });
    }
    result.map(|f| Found { deferred, ..f }).or_else(|| {
        let m = root_moves[0].0;
        Some(Found { best: m, value: 0, depth: 0, pv: vec![m], deferred: 0 })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_marks_a_move_until_its_search_is_over() {
        let b = Busy::new();
        let k = 0x1234_5678_9ABC_DEF0;
        let (m1, m2) = (Busy::move_key(k, 1), Busy::move_key(k, 2));
        assert_ne!(m1, m2);
        assert_ne!(Busy::move_key(k ^ 1, 1), m1);
        assert!(!b.is_busy(m1));
        b.start(m1);
        assert!(b.is_busy(m1) && !b.is_busy(m2));
        b.start(m1);
        b.finish(m1);
        assert!(!b.is_busy(m1), "a move marked twice is cleared once");
        // A full set: the newest mark replaces the first, none is lost
        // but that one.
        let same_set: Vec<u64> = (0..BUSY_WAYS as u64 + 1).map(|i| (i + 1) << 60 | 0x77 << 40 | 1).collect();
        for &m in &same_set {
            b.start(m);
        }
        assert!(same_set[1..].iter().all(|&m| b.is_busy(m)));
        assert!(!b.is_busy(same_set[0]));
        for &m in &same_set {
            b.finish(m);
        }
        assert!(b.slots.iter().all(|w| w.load(Relaxed) == 0));
    }

    #[test]
    fn the_root_record_keeps_the_deepest_then_complete_then_highest() {
        let rb = |depth, complete, value, code| RootBest { depth, complete, value, lower: false, code };
        let cases = [
            // (old, new, new replaces old)
            (rb(5, true, 10, 1), rb(6, false, -50, 2), true),
            (rb(6, false, 10, 1), rb(5, true, 90, 2), false),
            (rb(6, false, 10, 1), rb(6, true, -5, 1), true),
            (rb(6, true, 10, 1), rb(6, false, 80, 2), false),
            (rb(6, true, 10, 1), rb(6, true, 80, 2), false),
            (rb(6, false, 10, 1), rb(6, false, 11, 2), true),
            (rb(6, false, 10, 1), rb(6, false, 10, 2), false),
        ];
        for (old, new, replaces) in cases {
            assert_eq!(new.beats(&old), replaces, "{new:?} over {old:?}");
            let tt = Tt::new(1).unwrap();
            let shared = Shared {
                tt: &tt,
                abort: AtomicBool::new(false),
                helper_nodes: AtomicU64::new(0),
                busy: None,
                deferred: AtomicU64::new(0),
                stop: StopFlag::new(),
                deadline: None,
                root_best: Mutex::new(None),
            };
            shared.offer(old);
            shared.offer(new);
            assert_eq!(shared.root_best(), Some(if replaces { new } else { old }));
        }
        // What decides the move at the end.
        let partial7 = rb(7, false, 30, 4);
        assert_eq!(overrides(Some(partial7), Some((9, 6))), Some(partial7), "a deeper proof wins");
        assert_eq!(overrides(Some(partial7), Some((4, 7))), None, "the same move");
        assert_eq!(overrides(Some(partial7), Some((9, 8))), None, "the main thread went deeper");
        assert_eq!(overrides(Some(partial7), None), Some(partial7));
        assert_eq!(overrides(None, Some((9, 6))), None);
    }

    #[test]
    fn a_lower_bound_reads_as_one() {
        assert_eq!(bound_score(35).to_string(), "cp 35 lowerbound");
        assert_eq!(bound_score(-20).to_string(), "cp -20 lowerbound");
        assert_eq!(bound_score(WIN - 3), score_of(WIN - 3), "a proven win stays a win");
        assert_eq!(bound_score(3 - WIN), Score::CpLower(3 - WIN), "a bound on a loss is no proven loss");
        assert_eq!(score_of(35).to_string(), "cp 35");
    }

    #[test]
    fn move_keys_are_never_zero() {
        assert_ne!(Busy::move_key(0, 0), 0);
        assert_ne!(Busy::move_key((1u64).wrapping_mul(0x9E37_79B9_7F4A_7C15), 0), 0);
    }
}
