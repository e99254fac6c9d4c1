//! Connect Four's review (protocol.md, "`review`"): every move judged
//! exactly, by the solver, in the benchmark convention of `analyze`.
//!
//! One solve per position: the value of the position before a move is
//! the best move's value, and minus the value of the position after it is
//! the move's own. The positions the opening book knows are read from it;
//! one solver and its table serve the whole game, each position within
//! the review's limits (a position not solved in them gives bounds, and
//! its moves are `unproven` unless the bounds already prove a blunder).
//! The best move, when another was played, is a column reaching the
//! value: from the book, or found by the solver's racing tests.
//!
//! Labels: `best` (the value kept), `blunder` (the outcome changed: a win
//! to a draw or a loss, a draw to a loss), `inaccuracy` (the outcome kept,
//! but the win comes later or the loss sooner by fewer than
//! [`MISTAKE_DISTANCE`] of the mover's moves), `mistake` (by that many or
//! more), `forced` (the only column, or the only one that does not let
//! the opponent make four at once).

use super::board::Geometry;
use super::solver::{Pos, Range, Solver, centre_order};
use super::{Connect4, analysis, book, perfect};
use crate::engine::review::{Label, PlyReview, Reviewer};
use crate::game::Game;

/// A win delayed (or a loss hastened) by this many of the mover's moves
/// or more is a mistake; by fewer, an inaccuracy.
pub const MISTAKE_DISTANCE: i32 = 4;

/// The side to move's winning chance on -1..1 of an exact score on a
/// board of `cells` cells: 0 for a draw, and a win from 0.5 (won with the
/// last stone) up towards 1 the sooner it comes (`0.5 + 0.5 |s| / (C/2)`),
/// a loss the same negated. The review's accuracy and graph read scores
/// through it: changing the outcome drops the chance by at least 0.5, a
/// win one move later by `1 / C`.
pub fn chance(score: i32, cells: u32) -> f64 {
    if score == 0 {
        return 0.0;
    }
    let s = score as f64;
    s.signum() * (0.5 + 0.5 * s.abs() / (cells as f64 / 2.0))
}

/// -1 loss, 0 draw, 1 win.
fn class(score: i32) -> i32 {
    score.signum()
}

/// The bounds of any position of `n` stones on a board of `cells`.
fn trivial(cells: u32, n: u32) -> Range {
    let (c, n) = (cells as i32, n as i32);
    Range { lo: -(c - n) / 2, hi: (c + 1 - n) / 2 }
}

/// The review of a whole game (see the module).
pub fn review(start: &Connect4, moves: &[u8], rv: &mut Reviewer) -> Result<(), String> {
    let geo = start.board.geometry();
    let (mut solver, note) = perfect::make_solver(geo, perfect::hash_mb(rv.options()))?;
    if let Some(n) = note {
        log::warn!("review: {n}");
    }
    solver.threads = perfect::threads(rv.options());
    let book =
        if perfect::own_book(rv.options()) && geo == Geometry::STANDARD { book::committed() } else { None };
    let total = moves.len() + 1;
    let mut g = *start;
    let mut before = value(&mut solver, book, &g, rv);
    rv.progress(1, total);
    for (i, &mv) in moves.iter().enumerate() {
        if rv.stopped() {
            return Ok(());
        }
        let prev = g;
        g.play(mv);
        let after = value(&mut solver, book, &g, rv);
        if rv.stopped() {
            return Ok(());
        }
        rv.progress(i + 2, total);
        let p = judge(&mut solver, book, &prev, mv, before, after, i + 1, rv);
        if rv.stopped() {
            return Ok(());
        }
        rv.judged(p);
        before = after;
    }
    Ok(())
}

/// The value of `g` for its side to move: exact once the game is over or
/// the book knows it, else what the solver proves within the limits.
fn value(solver: &mut Solver, book: Option<&book::Book>, g: &Connect4, rv: &mut Reviewer) -> Range {
    if let Some(v) = analysis::final_score(g) {
        return Range::exact(v);
    }
    if let Some(v) = book.and_then(|b| b.score_of(&g.board)) {
        return Range::exact(v);
    }
    rv.search(|ctx| {
        let n0 = solver.nodes;
        solver.set_budget(perfect::budget_of(ctx, n0, 1.0));
        let r = solver.solve(Pos::from(&g.board), false);
        ctx.nodes += solver.nodes - n0;
        r
    })
}

/// Judges the move `mv` of `prev` (the `ply`-th of the game), whose
/// value was `before` and whose result's value is `after` (each for its
/// side to move).
#[allow(clippy::too_many_arguments)]
fn judge(
    solver: &mut Solver,
    book: Option<&book::Book>,
    prev: &Connect4,
    mv: u8,
    before: Range,
    after: Range,
    ply: usize,
    rv: &mut Reviewer,
) -> PlyReview {
    let b = &prev.board;
    let cells = b.width() * b.height();
    let mut p = PlyReview::new(ply, prev.side_to_move(), prev.format_move(mv));
    let pos = Pos::from(b);
    let starts = solver.column_starts(pos);
    let played = after.flip();
    let best = before;
    let column_start = starts[mv as usize].unwrap_or(trivial(cells, b.moves()));
    p.value = Some(analysis::format_range(played, column_start, false));
    p.best_value = Some(analysis::format_range(best, trivial(cells, b.moves()), false));
    let exact = played.is_exact() && best.is_exact();
    p.label = if forced(b.winning_columns().is_empty(), &starts, mv, cells, b.moves()) {
        Label::Forced
    } else if exact {
        let d = best.lo - played.lo;
        if d <= 0 {
            Label::Best
        } else if class(played.lo) < class(best.lo) {
            Label::Blunder
        } else if d >= MISTAKE_DISTANCE {
            Label::Mistake
        } else {
            Label::Inaccuracy
        }
    } else if class(played.hi) < class(best.lo) {
        // The bounds already prove the outcome changed.
        Label::Blunder
    } else {
        Label::Unproven
    };
    p.best = match p.label {
        Label::Best | Label::Forced => Some(p.mv.clone()),
        _ if best.is_exact() => best_column(solver, book, prev, best.lo, rv).map(|c| prev.format_move(c)),
        _ => None,
    };
    if exact && p.label.is_judged() {
        p.drop = Some(chance(best.lo, cells) - chance(played.lo, cells));
    }
    // The first mover's chance after the move.
    if after.is_exact() {
        let c = chance(after.lo, cells);
        p.graph = Some(if prev.side_to_move() == 0 { -c } else { c });
    }
    p
}

/// True if `mv` was the only choice: the only column, or (no column
/// winning at once) the only one that does not let the opponent make four
/// at once.
fn forced(no_win_now: bool, starts: &[Option<Range>], mv: u8, cells: u32, n: u32) -> bool {
    let legal: Vec<usize> = (0..starts.len()).filter(|&c| starts[c].is_some()).collect();
    if legal.len() == 1 {
        return true;
    }
    let loses_now = Range::exact(-(cells as i32 - n as i32) / 2);
    let safe: Vec<usize> = legal.into_iter().filter(|&c| starts[c] != Some(loses_now)).collect();
    no_win_now && safe == [mv as usize]
}

/// A column of `g` reaching `v` (its exact value), the most central of
/// those found: from the book, or by the solver within the limits.
fn best_column(
    solver: &mut Solver,
    book: Option<&book::Book>,
    g: &Connect4,
    v: i32,
    rv: &mut Reviewer,
) -> Option<u8> {
    let w = g.board.width();
    let cols: Vec<Option<i32>> = match book.and_then(|b| book::columns_in(b, g)) {
        Some(c) => c,
        None => rv.search(|ctx| {
            let n0 = solver.nodes;
            solver.set_budget(perfect::budget_of(ctx, n0, 1.0));
            let cols = solver.reach(Pos::from(&g.board), v);
            ctx.nodes += solver.nodes - n0;
            cols.iter().map(|r| r.map(|r| if r.lo >= v { v } else { r.hi.min(v - 1) })).collect()
        }),
    };
    centre_order(w)
        .into_iter()
        .find(|&c| cols.get(c as usize).copied().flatten().is_some_and(|s| s >= v))
        .map(|c| c as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_order_the_scores() {
        assert_eq!(chance(0, 42), 0.0);
        assert!((chance(1, 42) - (0.5 + 0.5 / 21.0)).abs() < 1e-12);
        assert_eq!(chance(-3, 42), -chance(3, 42));
        for s in -20..20 {
            assert!(chance(s, 42) < chance(s + 1, 42));
        }
        assert!(chance(1, 42) - chance(0, 42) >= 0.5);
    }

    #[test]
    fn a_forced_block_and_a_free_choice() {
        let loses = Range::exact(-(42 - 6) / 2);
        let open = Some(Range { lo: -17, hi: 18 });
        let starts = vec![Some(loses), Some(loses), open, Some(loses), Some(loses), Some(loses), Some(loses)];
        assert!(forced(true, &starts, 2, 42, 6));
        assert!(!forced(true, &starts, 3, 42, 6));
        assert!(!forced(false, &starts, 2, 42, 6), "a win at once was there");
        let free = vec![open; 7];
        assert!(!forced(true, &free, 2, 42, 6));
        let one = vec![None, None, None, open, None, None, None];
        assert!(forced(false, &one, 3, 42, 6));
    }
}
