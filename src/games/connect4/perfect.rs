//! The `perfect` strategy: plays a game-theoretically best move found by
//! the solver (fastest win, slowest loss; draw otherwise).
//!
//! Options (read from the engine's current values at each move):
//! - `Weak` (bool): only win/draw/loss matters (faster; among winning
//!   moves any one, not the fastest).
//! - `Variety` (bool): among equally good moves a random one instead of
//!   the most central.
//! - `Skill` (0..=20, default 20): 20 plays perfectly. 0 plays a uniformly
//!   random legal move. In between, the exact score `s` of every column is
//!   computed and a column is drawn with probability proportional to
//!   `exp((s - best) / T)`, `T = ((20 - Skill) / 4)^2` score points (Skill
//!   16: T = 1, a move one point worse is e times less likely; Skill 8:
//!   T = 9; Skill 1: T = 22.6, nearly uniform).
//! - `Hash` (MB, engine-wide): size of the solver's table, kept between
//!   moves and cleared on `newgame`. It is allocated at `perfect`'s first
//!   move (never at `newgame`) and mapped by another thread; until that is
//!   done, and for searches with less than 400 ms, a 16 MB table is used
//!   (see [`Perfect::solver`]). A size the machine cannot give is halved
//!   until it can (down to 16 MB), with an `info string` saying so.
//! - `Threads` (engine-wide): search threads sharing the table (lazy SMP,
//!   see [`Solver`]), no more than the machine's cores
//!   ([`crate::search::usable_threads`]).
//!
//! Depth: `go depth N` with fewer than the plies left is an N-ply
//! alpha-beta search with the `attack` evaluation (not a solve).
//!
//! Book: positions with fewer stones than the opening book's depth are
//! answered from it (every column's score); at its depth the book gives
//! the value, and the solver only looks for a column keeping its class,
//! then one reaching it (see [`secure`]); one stone past it, the book's
//! scores of the possible parents bound the value below, and with a limit
//! a column keeping that bound is found first. The book is read on
//! another thread when a game starts ([`Player::prepare`]; `isready`
//! waits for it); a move with a time limit waits for it at most 90% of
//! its time.
//!
//! Time: without a limit the solve always completes (an `info string`
//! says what is proven each time it narrows, once the search is a second
//! old). With a limit (time, nodes, `stop`), the solver decides win, draw
//! or loss first, then the exact score, in 85% of the time (80% at the
//! book's depth); if it has not finished, the columns no other column is
//! proven better than go to
//! the time-limited search of `heuristic.rs` (iterative-deepening
//! alpha-beta with the threat-parity evaluation, its own table) for the
//! rest of the time; a proven win (or draw) is kept unless that search
//! proves better or hopes for more than a draw. It never plays into a loss
//! at once. The score is then reported as `lowerbound` (what that move is
//! proven to reach) instead of `exact`, the search's depth and value in
//! the `info string`.

use rand::Rng;
use rand::seq::IndexedRandom;

use super::Connect4;
use super::board::Geometry;
use super::eval::WindowEval;
use super::heuristic::{Found, Heuristic, PROVEN, proven_score};
use super::solver::{Budget, Pos, Range, RootInfo, Solver, centre_order};
use crate::options::OptionValues;
use crate::search::{Player, Score, SearchCtx, negamax};

/// The highest `Skill`: perfect play.
pub const MAX_SKILL: i64 = 20;
/// Table size when the engine has no `Hash` option.
pub const DEFAULT_HASH_MB: usize = 64;

/// `Hash` in MB from the options (default 64).
pub fn hash_mb(o: &OptionValues) -> usize {
    o.get_int("Hash").filter(|&v| v > 0).map_or(DEFAULT_HASH_MB, |v| v as usize)
}

/// The solver's budget from a search context: all its limits, with only
/// `share` of the time left.
pub fn budget_of(ctx: &SearchCtx, solver_nodes: u64, share: f64) -> Budget {
    Budget {
        deadline: ctx.remaining().map(|r| crate::time::Instant::now() + r.mul_f64(share)),
        nodes: ctx.limits.nodes.map(|n| solver_nodes + n.saturating_sub(ctx.nodes)),
        stop: Some(ctx.stop_flag().clone()),
        done: None,
        progress: None,
    }
}

/// `OwnBook` from the options (default true): answer from the opening
/// book where it knows the position.
pub fn own_book(o: &OptionValues) -> bool {
    o.get_bool("OwnBook").unwrap_or(true)
}

/// `Threads` from the options (default 1), no more than the cores the
/// process may use: threads beyond them take turns, and each must be
/// scheduled before it sees a stop.
pub fn threads(o: &OptionValues) -> usize {
    crate::search::usable_threads(o.get_int("Threads").map_or(1, |t| t.clamp(1, 64) as usize))
}

/// A solver with a table of `mb` MB, or the largest power-of-two size
/// below it that the machine can give (at least 16 MB), with a note
/// saying what was used; `Err` if not even 16 MB can be had.
pub fn make_solver(geo: Geometry, mb: usize) -> Result<(Solver, Option<String>), String> {
    let mut size = mb.max(1);
    loop {
        match Solver::new(geo.width, geo.height, size) {
            Ok(s) if size == mb.max(1) => return Ok((s, None)),
            Ok(s) => return Ok((s, Some(format!("cannot allocate {mb} MB for the table, using {size} MB")))),
            Err(e) if size <= 16 => return Err(e.to_string()),
            Err(_) => size = (size / 2).max(16),
        }
    }
}

/// The perfect player; keeps its solver (and table) between moves. The
/// table is made at the first move that needs it.
pub struct Perfect {
    /// Board geometry, `Hash` asked for, the solver.
    solver: Option<(Geometry, usize, Solver)>,
    /// The time-limited search (its own small table), made when first
    /// needed.
    heuristic: Option<Heuristic>,
    /// A small table used while the big one's pages are being mapped and
    /// by short searches (see [`Perfect::solver`]).
    starter: Option<Solver>,
}

/// The starter table's size (MB): small enough to be mapped at once.
const STARTER_MB: usize = 16;

/// Time left below which a move searches the starter table, not the big
/// one.
const SHORT_SEARCH: std::time::Duration = std::time::Duration::from_millis(400);

/// Time left below which a move from the book does not make the table
/// (which maps the starter table at once: about 10 ms).
const TABLE_MAKING_TIME: std::time::Duration = std::time::Duration::from_millis(25);

impl Perfect {
    pub fn new(_o: &OptionValues) -> Self {
        Perfect { solver: None, heuristic: None, starter: None }
    }

    /// The solver for `g`'s board with a table of `mb` MB, made now if the
    /// size or board changed; `None` if no table can be had.
    fn solver(&mut self, g: &Connect4, mb: usize, ctx: &mut SearchCtx) -> Option<&mut Solver> {
        let geo = g.board.geometry();
        if !matches!(&self.solver, Some((g0, m0, _)) if *g0 == geo && *m0 == mb) {
            self.solver = None; // free the old table first
            // Normal pages: with transparent huge pages, the kernel's
            // compaction while the mapping thread ran stalled the engine's
            // other threads (moves of 0.1 s took 0.13-0.28 s).
            match make_solver(geo, mb) {
                Ok((mut s, note)) => {
                    if let Some(n) = note {
                        log::warn!("{n}");
                        ctx.report_text(format!("perfect: {n}"));
                    }
                    // The starter is mapped first, here (about 10 ms): done
                    // beside the big table's mapping, or during a search,
                    // it was measured many times slower.
                    if s.table_bytes() > 2 * (STARTER_MB << 20)
                        && self.starter.as_ref().is_none_or(|s| s.geometry() != geo)
                    {
                        self.starter = Solver::new(geo.width, geo.height, STARTER_MB).ok();
                        if let Some(st) = &self.starter {
                            st.prefault_table_now();
                        }
                    }
                    s.prefault_table();
                    self.solver = Some((geo, mb, s));
                    self.make_heuristic(&g.board);
                }
                Err(e) => {
                    log::error!("{e}");
                    ctx.report_text(format!("perfect: {e}, playing the heuristic move"));
                    return None;
                }
            }
        }
        let big = &self.solver.as_ref()?.2;
        // A big table is mapped on another thread for a while (256 MB:
        // about 0.15 s); the searches meanwhile use a small table, mapped
        // at once and kept (cleared) for the next time. So do short ones:
        // a table that fits the processor's cache is faster until it fills
        // (at movetime 100: 16 MB 680-820k nodes, 256 MB 510-540k).
        let short = ctx.remaining().is_some_and(|r| r < SHORT_SEARCH);
        if (big.table_mapped() && !short) || big.table_bytes() <= 2 * (STARTER_MB << 20) {
            return self.solver.as_mut().map(|s| &mut s.2);
        }
        log::debug!("perfect: the {STARTER_MB} MB table (a short search, or the big one is being mapped)");
        match &mut self.starter {
            Some(s) if s.geometry() == geo => Some(s),
            _ => self.solver.as_mut().map(|s| &mut s.2),
        }
    }
}

/// A column of `p` reaching `v` (its value or a lower bound of it):
/// first one keeping its class (a win, else a draw), then, unless `weak`,
/// one reaching `v` itself; every column's proven bounds. Proving a win
/// is much cheaper than proving the fastest one, and with little time the
/// class is what decides the game.
fn secure(solver: &mut Solver, p: Pos, v: i32, weak: bool) -> Vec<Option<Range>> {
    let class = v.min(1);
    let mut cols = solver.reach(p, class);
    if v > class && !weak && !solver.aborted() {
        for (c, r) in cols.iter_mut().zip(solver.reach(p, v)) {
            if let (Some(c), Some(r)) = (c.as_mut(), r) {
                *c = Range { lo: c.lo.max(r.lo), hi: c.hi.min(r.hi) };
            }
        }
    }
    cols
}

/// Score to report for a root result.
fn report_score(value: Range, weak: bool) -> Score {
    if weak {
        match value.sign() {
            Some(1) => return Score::Win,
            Some(0) => return Score::Draw,
            Some(_) => return Score::Loss,
            None => {}
        }
    }
    if value.is_exact() { Score::Exact(value.lo) } else { Score::Lower(value.lo) }
}

/// Draws a column with the `Skill` temperature rule (see the module doc).
pub fn skill_pick(cols: &[Option<Range>], skill: i64, rng: &mut impl Rng) -> Option<u32> {
    let scored: Vec<(u32, f64)> = cols
        .iter()
        .enumerate()
        .filter_map(|(c, r)| r.map(|r| (c as u32, (r.lo + r.hi) as f64 / 2.0)))
        .collect();
    let best = scored.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
    let t = ((MAX_SKILL - skill.clamp(0, MAX_SKILL)) as f64 / 4.0).powi(2).max(1e-9);
    let weights: Vec<f64> = scored.iter().map(|&(_, s)| ((s - best) / t).exp()).collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.random::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return Some(scored[i].0);
        }
        x -= w;
    }
    scored.last().map(|s| s.0)
}

impl Player<Connect4> for Perfect {
    fn choose(&mut self, pos: &Connect4, ctx: &mut SearchCtx) -> u8 {
        let b = pos.board;
        let width = b.width();
        let legal: Vec<u32> = (0..width).filter(|&c| b.can_play(c)).collect();
        let skill = ctx.options.get_int("Skill").unwrap_or(MAX_SKILL).clamp(0, MAX_SKILL);
        if skill == 0 {
            ctx.nodes += 1;
            return *legal.choose(ctx.rng).expect("game not over") as u8;
        }
        // `go depth N` is a lookahead horizon: when the game can last longer
        // than N plies, the move comes from an N-ply alpha-beta search with
        // the `attack` evaluation (wins and losses within N plies are still
        // exact); otherwise the solver proves the result.
        let empty = width * b.height() - b.moves();
        if let Some(d) = ctx.limits.depth
            && d < empty
        {
            ctx.report_text(format!("perfect: depth {d} < {empty} plies left: {d}-ply search, not a solve"));
            let eval = WindowEval::new(&b);
            return negamax::search(pos, &eval, ctx, d.max(1)).map(|f| f.best).expect("game not over");
        }
        let weak = ctx.options.get_bool("Weak").unwrap_or(false);
        let variety = ctx.options.get_bool("Variety").unwrap_or(false);
        let book = book_for(pos, ctx, BOOK_WAIT_SHARE);
        if let Some(cols) = book.and_then(|bk| super::book::columns_in(bk, pos)) {
            let columns: Vec<Option<Range>> = cols.iter().map(|c| c.map(Range::exact)).collect();
            let value = Range::exact(cols.iter().flatten().copied().max().expect("game not over"));
            let info = RootInfo { columns, value };
            let chosen = if skill < MAX_SKILL {
                skill_pick(&info.columns, skill, ctx.rng).expect("game not over")
            } else {
                let cands = info.best_columns(weak);
                if variety {
                    *cands.choose(ctx.rng).expect("not empty")
                } else {
                    centre_order(width).into_iter().find(|c| cands.contains(c)).unwrap_or(legal[0])
                }
            };
            let chosen_score = report_score(info.columns[chosen as usize].expect("legal"), weak);
            ctx.nodes += 1;
            // The table is made now (and mapped on another thread while
            // the opponent moves), so that the first search past the book
            // does not spend its time on page faults; not if the move's
            // time is nearly gone (the book was being read).
            if ctx.remaining().is_none_or(|r| r >= TABLE_MAKING_TIME) {
                let _ = self.solver(pos, hash_mb(ctx.options), ctx);
            }
            ctx.report_text("perfect: from the opening book");
            ctx.report(empty, Some(chosen_score), vec![(chosen + 1).to_string()]);
            return chosen as u8;
        }
        let limited = !ctx.limits.is_unbounded();
        let nthreads = threads(ctx.options);
        let Some(solver) = self.solver(pos, hash_mb(ctx.options), ctx) else {
            let cands: Vec<u32> = legal.clone();
            return self.heuristic_choice(pos, ctx, &cands).0 as u8;
        };
        solver.threads = nthreads;
        // With a limit, win/draw/loss first: if the time runs out, the
        // move at least keeps what is proven.
        solver.wdl_first = limited;
        let nodes0 = solver.nodes;
        let ctx_nodes0 = ctx.nodes;
        // The value of a position at the book's depth is in the book: only
        // a column reaching it is searched for.
        let book_value = if skill == MAX_SKILL { book.and_then(|bk| bk.score_of(&b)) } else { None };
        // One stone past the book's depth, the book's scores of the
        // positions this one may come from bound its score below: with a
        // limit, a column keeping that bound is found first ([`secure`]),
        // then the search goes on from it.
        let parent_bound = if skill == MAX_SKILL && limited && book_value.is_none() {
            book.and_then(|bk| bk.parents_bound(&b))
        } else {
            None
        };
        let share = if !limited {
            1.0
        } else if book_value.is_some() {
            BOOK_VALUE_SHARE
        } else {
            SOLVER_SHARE
        };
        let mut budget = budget_of(ctx, nodes0, share);
        budget.progress = Some(ctx.progress().clone());
        solver.set_budget(budget);
        let p = Pos::from(&b);
        let info = if skill < MAX_SKILL {
            let columns = solver.columns(p, false);
            let value = Range {
                lo: columns.iter().flatten().map(|r| r.lo).max().unwrap_or(0),
                hi: columns.iter().flatten().map(|r| r.hi).max().unwrap_or(0),
            };
            RootInfo { columns, value }
        } else if let Some(v) = book_value {
            RootInfo { columns: secure(solver, p, v, weak), value: Range::exact(v) }
        } else {
            // A long solve says what it has proven as it goes.
            let mut report = |i: &RootInfo| {
                if ctx.elapsed().as_secs() >= 1 {
                    ctx.nodes = ctx.progress().nodes().max(ctx.nodes);
                    let best = i.best_columns(weak).first().map_or(String::new(), |c| (c + 1).to_string());
                    ctx.report_text(format!(
                        "perfect: proven so far: score {}..{}, best column {best}",
                        i.value.lo, i.value.hi
                    ));
                }
            };
            match parent_bound {
                None => solver.best_reporting(p, weak, variety, &mut report),
                Some(lo) => {
                    let secured = secure(solver, p, lo, weak);
                    let mut info = solver.best_from(p, weak, variety, &secured, &mut report);
                    // The value is at least the bound even if no column is
                    // proven to keep it yet.
                    info.value.lo = info.value.lo.max(lo).min(info.value.hi);
                    info
                }
            }
        };
        let aborted = solver.aborted();
        ctx.nodes = ctx_nodes0 + (solver.nodes - nodes0);
        // Proven: the value is known and a column reaches it.
        let target = if weak { info.value.lo.min(1) } else { info.value.lo };
        let proven = info.value.done(weak) && info.columns.iter().flatten().any(|r| r.lo >= target);
        let mut searched = None;
        let chosen = if skill < MAX_SKILL {
            skill_pick(&info.columns, skill, ctx.rng).expect("game not over")
        } else if proven {
            let cands = info.best_columns(weak);
            if cands.len() > 1 && variety {
                *cands.choose(ctx.rng).expect("not empty")
            } else {
                centre_order(width).into_iter().find(|c| cands.contains(c)).unwrap_or(legal[0])
            }
        } else {
            let (c, found) = self.unsolved_choice(pos, ctx, &info);
            searched = found;
            c
        };
        let score = report_score(info.value, weak);
        // The text and the score line report the same thing: what the
        // chosen move is proven to reach (with Skill below 20 it may be
        // worse than the position's value, which the text adds).
        let chosen_score = info.columns[chosen as usize].map_or(score, |r| report_score(r, weak));
        if aborted && !proven {
            let search = searched.map_or(String::new(), |f| match proven_score(f.value) {
                Some(v) => format!("; search depth {} proves {v}", f.depth),
                None => format!("; search depth {} evaluation {}", f.depth, f.value),
            });
            let value = match book_value {
                Some(v) => format!(" (the book's value: {v})"),
                None => String::new(),
            };
            ctx.report_text(format!(
                "perfect: not solved within the limits, proven {chosen_score}{value}{search}"
            ));
        } else if skill < MAX_SKILL && chosen_score != score {
            ctx.report_text(format!(
                "perfect: Skill {skill} plays column {} ({chosen_score}; best {score})",
                chosen + 1
            ));
        } else if book_value.is_some() {
            ctx.report_text("perfect: the book's value, a column reaching it found by the solver");
        }
        ctx.report(if proven { empty } else { 0 }, Some(chosen_score), vec![(chosen + 1).to_string()]);
        chosen as u8
    }

    /// A new game: the opening book is read now (on another thread) if it
    /// will be used, so that the first move does not wait for it.
    fn prepare(&mut self, pos: &Connect4, options: &OptionValues) {
        if own_book(options) && pos.board.geometry() == super::board::Geometry::STANDARD {
            super::book::preload();
        }
    }

    /// Waits for the book being read (`isready` after `newgame`).
    fn ready(&mut self) {
        if super::book::preloading() {
            super::book::committed();
        }
    }

    fn reset(&mut self) {
        if let Some((_, _, s)) = &mut self.solver {
            s.clear();
        }
        if let Some(h) = &mut self.heuristic {
            h.clear();
        }
        if let Some(s) = &mut self.starter {
            s.clear();
        }
    }
}

/// The committed opening book if `OwnBook` is on and the book may know
/// `pos` (7x6, no more stones than its depth). It is read on another
/// thread when a game starts; a search with a time limit waits for it at
/// most `share` of its time left, then searches without it (with an `info
/// string` saying so).
pub fn book_for(pos: &Connect4, ctx: &mut SearchCtx, share: f64) -> Option<&'static super::book::Book> {
    let b = &pos.board;
    // One stone past the book's depth, it still bounds the score.
    if !own_book(ctx.options)
        || b.geometry() != Geometry::STANDARD
        || b.moves() > super::book::committed_plies() + 1
    {
        return None;
    }
    let deadline = ctx.remaining().map(|r| crate::time::Instant::now() + r.mul_f64(share));
    match super::book::committed_by(deadline) {
        Ok(book) => book,
        Err(e) => {
            ctx.report_text(format!("perfect: {e}: searching without it"));
            None
        }
    }
}

/// The share of a limited move's time spent waiting for the opening book
/// to be read (only when a move is asked for at once after the first
/// `newgame` of a process, without `isready`): it answers at once when
/// read, and without it the heuristic's move is poor anyway.
const BOOK_WAIT_SHARE: f64 = 0.9;

/// The solver's share of a limited move's time past the opening book;
/// if it has not finished, the heuristic search gets the rest. At 0.1 s a
/// move (85 ms after `Move Overhead`) the positions one or two stones past
/// the book need 0.7 to 1 million nodes: 0.85 solved the referee's hardest
/// ones where 0.7 did not, and no less often chose an optimal move
/// (`meeple bench connect4 --play`).
const SOLVER_SHARE: f64 = 0.85;
/// The share at the book's depth, where only a column reaching the book's
/// value is searched for.
const BOOK_VALUE_SHARE: f64 = 0.8;

impl Perfect {
    /// The move after an unfinished solve whose proven bounds are `info`:
    /// the heuristic search's choice among the columns no other column is
    /// proven better than; a proven win (or draw) is kept unless the
    /// search finds better.
    fn unsolved_choice(
        &mut self,
        pos: &Connect4,
        ctx: &mut SearchCtx,
        info: &RootInfo,
    ) -> (u32, Option<Found>) {
        let best_lo = info.columns.iter().flatten().map(|r| r.lo).max().unwrap_or(0);
        // A column that cannot reach the value's lower bound is not a
        // candidate (the book's value may be above every column's proof).
        let need = best_lo.max(info.value.lo);
        let mut cands: Vec<u32> = (0..info.columns.len() as u32)
            .filter(|&c| info.columns[c as usize].is_some_and(|r| r.hi >= need))
            .collect();
        if cands.is_empty() {
            cands = (0..info.columns.len() as u32).filter(|&c| info.columns[c as usize].is_some()).collect();
        }
        let (c, found) = self.heuristic_choice(pos, ctx, &cands);
        let r = info.columns[c as usize].expect("playable");
        // A proven win or draw beats a hope the search did not prove.
        let hoped = found.map_or(0, |f| f.value);
        if r.lo < best_lo && best_lo >= 0 && (best_lo > 0 || hoped <= 0) && hoped <= PROVEN {
            let proven: Vec<u32> = info.best_columns(false);
            if let Some(p) = centre_order(pos.board.width()).into_iter().find(|x| proven.contains(x)) {
                return (p, found);
            }
        }
        (c, found)
    }

    /// The heuristic search's move among `cands` in the time left (the
    /// most central one if it has no time at all).
    /// Makes the heuristic search for `b`'s board if it is not made, its
    /// table mapped now (4 MB: a millisecond or two): on fresh pages its
    /// first search overran its deadline by 4-8 ms (a page fault at
    /// nearly every node between two looks at the clock).
    fn make_heuristic(&mut self, b: &super::board::Board) {
        if !matches!(&self.heuristic, Some(h) if h.geometry() == b.geometry()) {
            self.heuristic = Heuristic::new(b).ok();
            if let Some(h) = &mut self.heuristic {
                h.clear();
            }
        }
    }

    fn heuristic_choice(
        &mut self,
        pos: &Connect4,
        ctx: &mut SearchCtx,
        cands: &[u32],
    ) -> (u32, Option<Found>) {
        let centre = centre_order(pos.board.width()).into_iter().find(|c| cands.contains(c));
        self.make_heuristic(&pos.board);
        let Some(h) = self.heuristic.as_mut() else {
            return (centre.unwrap_or(cands[0]), None);
        };
        let deadline = ctx.remaining().map(|r| crate::time::Instant::now() + r.mul_f64(0.9));
        let max_depth = ctx.limits.depth.unwrap_or(u32::MAX);
        let nodes0 = h.nodes;
        let nodes = ctx.limits.nodes.map(|n| n.saturating_sub(ctx.nodes));
        let found =
            h.search(Pos::from(&pos.board), cands, deadline, nodes, Some(ctx.stop_flag().clone()), max_depth);
        ctx.nodes += h.nodes - nodes0;
        (found.map_or(centre.unwrap_or(cands[0]), |f| f.best), found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::game::{Game, Outcome};
    use crate::options::OptionValue;
    use crate::search::{Limits, Report, StopFlag};
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use std::time::Duration;

    #[test]
    fn secure_finds_a_column_of_the_class_then_of_the_value() {
        // 5x4 positions of 6 stones: with the value (or a bound below it)
        // given, a column keeping its class is found, and unless weak one
        // reaching it; no column's bounds exclude its exact score.
        let mut rng = StdRng::seed_from_u64(11);
        let mut exact = Solver::new(5, 4, 16).unwrap();
        let mut solver = Solver::new(5, 4, 16).unwrap();
        solver.reach_cap = 64; // many racing rounds
        for _ in 0..40 {
            let b = crate::games::connect4::book::random_position(5, 4, 6, &mut rng);
            let p = Pos::from(&b);
            let v = exact.solve(p, false).lo;
            let truth = exact.columns(p, false);
            for (bound, weak) in [(v, false), (v, true), (v - 3, false)] {
                solver.clear();
                let cols = secure(&mut solver, p, bound, weak);
                let need = if weak { bound.min(1) } else { bound };
                assert!(cols.iter().flatten().any(|r| r.lo >= need), "{cols:?} need {need}");
                for (r, t) in cols.iter().zip(&truth) {
                    if let (Some(r), Some(t)) = (r, t) {
                        assert!(r.lo <= t.lo && t.lo <= r.hi, "{r:?} excludes {t:?}");
                    }
                }
            }
        }
    }

    fn options(pairs: &[(&str, OptionValue)]) -> OptionValues {
        let mut o = OptionValues::from_specs(&Connect4::options());
        o.set("Hash", OptionValue::Int(8));
        for (k, v) in pairs {
            o.set(k, v.clone());
        }
        o
    }

    /// One move of `player` with `limits`; returns it and the reports.
    fn think(
        player: &mut Perfect,
        g: &Connect4,
        o: &OptionValues,
        limits: Limits,
        seed: u64,
    ) -> (u8, Vec<Report>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut reports = Vec::new();
        let mut rep = |r: Report| reports.push(r);
        let mut ctx = SearchCtx::new(limits, o, &mut rng, StopFlag::new(), &mut rep);
        let m = player.choose(g, &mut ctx);
        drop(ctx);
        (m, reports)
    }

    fn game(ty: &str, moves: &str) -> Connect4 {
        let mut g = Connect4::parse_type(ty).unwrap().unwrap();
        g.play_sequence(moves).unwrap();
        g
    }

    /// Plays a whole game with `o` for both sides.
    fn self_play(ty: &str, o: &OptionValues) -> Option<Outcome> {
        let mut g = game(ty, "");
        let mut p = Perfect::new(o);
        while g.outcome().is_none() {
            let (m, _) = think(&mut p, &g, o, Limits::default(), 1);
            g.play(m);
        }
        g.outcome()
    }

    #[test]
    fn wins_at_once_centre_first_with_exact_score() {
        let o = options(&[]);
        let g = game("Connect4", "445566");
        let (m, reports) = think(&mut Perfect::new(&o), &g, &o, Limits::default(), 1);
        assert_eq!(m, 2, "columns 3 and 7 win; 3 is more central");
        let last = reports.last().unwrap();
        assert_eq!(last.score, Some(Score::Exact(18)));
        assert_eq!(last.pv, vec!["3".to_string()]);
    }

    #[test]
    fn perfect_play_reaches_the_solved_results() {
        let o = options(&[]);
        assert_eq!(self_play("Connect4+4x4", &o), Some(Outcome::Draw));
        assert_eq!(self_play("Connect4+6x4", &o), Some(Outcome::Win(1)));
        let weak = options(&[("Weak", OptionValue::Bool(true))]);
        assert_eq!(self_play("Connect4+6x4", &weak), Some(Outcome::Win(1)));
        assert_eq!(self_play("Connect4+5x4", &weak), Some(Outcome::Draw));
    }

    #[test]
    fn weak_reports_win_draw_loss() {
        // The solver (book off) takes one of the immediate threats.
        let o = options(&[("Weak", OptionValue::Bool(true)), ("OwnBook", OptionValue::Bool(false))]);
        let g = game("Connect4", "4455");
        let (m, reports) = think(&mut Perfect::new(&o), &g, &o, Limits::default(), 1);
        assert!(m == 2 || m == 5, "{m}");
        assert_eq!(reports.last().unwrap().score, Some(Score::Win));
        // From the book, any column the solver proves winning.
        let o = options(&[("Weak", OptionValue::Bool(true))]);
        let (m, reports) = think(&mut Perfect::new(&o), &g, &o, Limits::default(), 1);
        let exact = Solver::new(7, 6, 16).unwrap().columns(Pos::from(&g.board), false);
        assert!(exact[m as usize].is_some_and(|r| r.lo > 0), "{m}: {exact:?}");
        assert_eq!(reports.last().unwrap().score, Some(Score::Win));
    }

    #[test]
    fn variety_picks_among_equal_moves() {
        // The empty 4x4 board: every column draws (checked by the solver).
        let g = game("Connect4+4x4", "");
        let mut s = Solver::new(4, 4, 8).unwrap();
        let cols = s.columns(Pos::from(&g.board), false);
        assert!(cols.iter().all(|r| *r == Some(Range::exact(0))), "{cols:?}");
        let plain = options(&[]);
        let var = options(&[("Variety", OptionValue::Bool(true))]);
        let mut p = Perfect::new(&plain);
        let mut seen_plain = std::collections::BTreeSet::new();
        let mut seen_var = std::collections::BTreeSet::new();
        for seed in 0..20 {
            seen_plain.insert(think(&mut p, &g, &plain, Limits::default(), seed).0);
            seen_var.insert(think(&mut p, &g, &var, Limits::default(), seed).0);
        }
        assert_eq!(seen_plain.into_iter().collect::<Vec<_>>(), vec![1]);
        assert!(seen_var.len() > 1, "{seen_var:?}");
    }

    #[test]
    fn skill_zero_is_random_and_mid_skill_stays_legal() {
        let g = game("Connect4+5x4", "3333");
        let zero = options(&[("Skill", OptionValue::Int(0))]);
        let mid = options(&[("Skill", OptionValue::Int(10))]);
        let mut p = Perfect::new(&zero);
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..30 {
            seen.insert(think(&mut p, &g, &zero, Limits::default(), seed).0);
            let (m, _) = think(&mut p, &g, &mid, Limits::default(), seed);
            assert!(g.board.can_play(m as u32));
        }
        assert!(!seen.contains(&2), "column 3 is full");
        assert!(seen.len() >= 3, "{seen:?}");
    }

    #[test]
    fn time_limit_gives_a_move_with_an_unproven_score() {
        let o = options(&[]);
        // Three stones, the book turned off: far from solved in 30 ms.
        let nb = options(&[("OwnBook", OptionValue::Bool(false))]);
        let g = game("Connect4", "444");
        let limits = Limits { movetime: Some(Duration::from_millis(30)), ..Limits::default() };
        let (m, reports) = think(&mut Perfect::new(&nb), &g, &nb, limits.clone(), 1);
        assert!(m < 7);
        let last = reports.last().unwrap();
        assert!(matches!(last.score, Some(Score::Lower(_))), "{last:?}");
        let stopped = Limits { nodes: Some(1000), ..Limits::default() };
        let (m, _) = think(&mut Perfect::new(&nb), &g, &nb, stopped, 1);
        assert!(m < 7);
        // The empty board is in the book: an exact score at once.
        let (m, reports) = think(&mut Perfect::new(&o), &game("Connect4", ""), &o, limits, 1);
        assert_eq!(m, 3);
        assert_eq!(reports.last().unwrap().score, Some(Score::Exact(1)));
    }

    #[test]
    fn skill_temperature() {
        let cols = vec![Some(Range::exact(5)), None, Some(Range::exact(-3)), Some(Range::exact(4))];
        let mut rng = StdRng::seed_from_u64(7);
        // Near-perfect skill: always the best column.
        for _ in 0..50 {
            assert_eq!(skill_pick(&cols, MAX_SKILL - 1, &mut rng), Some(0));
        }
        // Low skill: every playable column is drawn sometimes, never a full one.
        let mut seen = [0; 4];
        for _ in 0..2000 {
            seen[skill_pick(&cols, 1, &mut rng).unwrap() as usize] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(seen[0] > seen[3] && seen[3] > seen[2] && seen[2] > 0, "{seen:?}");
    }
}
