//! Scores of whole positions and of every column, as text: what
//! `meeple solve` and the protocol's `analyze` print.
//!
//! A column's score is printed as a number once exact (with `weak`: `1`,
//! `0` or `-1` once win/draw/loss is known), `-` for a full column, and,
//! when a limit stopped the search first, what is proven: `>=a`, `<=b`,
//! `a..b`, or `?` for nothing beyond the bounds every position has.

use super::Connect4;
use super::solver::{Pos, Range, Solver};
use crate::game::Outcome;

/// Score of a position whose game is over, for the side to move: 0 for a
/// draw; a loss to the opponent's four made with the last stone.
pub fn final_score(g: &Connect4) -> Option<i32> {
    let b = &g.board;
    match b.outcome()? {
        Outcome::Draw => Some(0),
        Outcome::Win(_) => Some(-(((b.width() * b.height()) as i32 + 2 - b.moves() as i32) / 2)),
    }
}

/// Score of any position (bounds if the budget stopped the search).
pub fn position_score(solver: &mut Solver, g: &Connect4, weak: bool) -> Range {
    match final_score(g) {
        Some(v) => Range::exact(v),
        None => solver.solve(Pos::from(&g.board), weak),
    }
}

/// Text of one score (see the module doc).
pub fn format_range(r: Range, start: Range, weak: bool) -> String {
    if r.is_exact() {
        return if weak { r.lo.signum().to_string() } else { r.lo.to_string() };
    }
    if weak && let Some(s) = r.sign() {
        return s.to_string();
    }
    match (r.lo > start.lo, r.hi < start.hi) {
        (false, false) => "?".to_string(),
        (true, false) => format!(">={}", r.lo),
        (false, true) => format!("<={}", r.hi),
        (true, true) => format!("{}..{}", r.lo, r.hi),
    }
}

/// The scores of every column, space-separated, `-` for full columns (all
/// `-` once the game is over).
pub fn column_line(solver: &mut Solver, g: &Connect4, weak: bool) -> String {
    let w = g.board.width() as usize;
    if g.board.outcome().is_some() {
        return vec!["-"; w].join(" ");
    }
    let p = Pos::from(&g.board);
    let starts = solver.column_starts(p);
    let cols = solver.columns(p, weak);
    cols.iter()
        .zip(&starts)
        .map(|(r, s)| match (r, s) {
            (Some(r), Some(s)) => format_range(*r, *s, weak),
            _ => "-".to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let s = Range { lo: -10, hi: 10 };
        assert_eq!(format_range(Range::exact(3), s, false), "3");
        assert_eq!(format_range(Range::exact(3), s, true), "1");
        assert_eq!(format_range(Range { lo: 2, hi: 10 }, s, true), "1");
        assert_eq!(format_range(Range { lo: 2, hi: 10 }, s, false), ">=2");
        assert_eq!(format_range(Range { lo: -10, hi: 1 }, s, false), "<=1");
        assert_eq!(format_range(Range { lo: -1, hi: 1 }, s, false), "-1..1");
        assert_eq!(format_range(s, s, false), "?");
    }

    #[test]
    fn final_scores() {
        let mut g = Connect4::standard();
        g.play_sequence("4455667").unwrap();
        // First player won with its 4th stone: 22 - 4 = 18 for the winner.
        assert_eq!(final_score(&g), Some(-18));
        let mut d = Connect4::new(4, 4).unwrap();
        d.play_sequence("1213243413423124").unwrap();
        assert_eq!(final_score(&d), Some(0));
        assert_eq!(final_score(&Connect4::standard()), None);
    }
}
