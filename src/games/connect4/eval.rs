//! Heuristic evaluation of Connect Four positions (for `attack`): open
//! four-cell windows weighted by how many stones they hold, plus a small
//! bonus for central stones.

use super::board::Geometry;
use super::{Board, Connect4};
use crate::search::Score;
use crate::search::negamax::Evaluator;

/// Every four-cell line of a board, as bit masks.
pub fn windows(b: &Board) -> Vec<u64> {
    let (w, h) = (b.width() as i32, b.height() as i32);
    let bit = |c: i32, r: i32| 1u64 << (c * (h + 1) + r);
    let mut out = Vec::new();
    for c in 0..w {
        for r in 0..h {
            for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                let (ec, er) = (c + 3 * dc, r + 3 * dr);
                if ec < 0 || ec >= w || er < 0 || er >= h {
                    continue;
                }
                out.push((0..4).fold(0, |m, i| m | bit(c + i * dc, r + i * dr)));
            }
        }
    }
    out
}

/// The evaluator of `attack`.
pub struct WindowEval {
    windows: Vec<u64>,
    centre: u64,
}

const WEIGHTS: [i32; 4] = [0, 1, 8, 40];

impl WindowEval {
    pub fn new(b: &Board) -> Self {
        let mid = b.width() / 2;
        let mut centre = b.column_mask(mid);
        if b.width().is_multiple_of(2) && mid > 0 {
            centre |= b.column_mask(mid - 1);
        }
        WindowEval { windows: windows(b), centre }
    }
}

impl WindowEval {
    /// [`Evaluator::evaluate`] on bitboards: `me` the side to move's
    /// stones, `opp` the opponent's.
    pub fn score_bits(&self, me: u64, opp: u64) -> i32 {
        let mut v = 0;
        for &w in &self.windows {
            let (m, o) = (w & me, w & opp);
            if o == 0 {
                v += WEIGHTS[m.count_ones().min(3) as usize];
            } else if m == 0 {
                v -= WEIGHTS[o.count_ones().min(3) as usize];
            }
        }
        v + 3 * ((me & self.centre).count_ones() as i32 - (opp & self.centre).count_ones() as i32)
    }
}

impl Evaluator<Connect4> for WindowEval {
    fn evaluate(&self, pos: &Connect4) -> i32 {
        self.score_bits(pos.board.current(), pos.board.opponent())
    }

    /// Centre columns first.
    fn order_moves(&self, pos: &Connect4, moves: &mut [u8]) {
        let mid = (pos.board.width() as i32 - 1) * 2; // twice the centre
        moves.sort_by_key(|&c| ((c as i32) * 4 - mid).abs());
    }

    /// The benchmark convention: the winner's k-th stone scores
    /// `W*H/2 + 1 - k` (22 - k on 7 x 6), positive for the side to move.
    fn mate_score(&self, root: &Connect4, plies: u32, win: bool) -> Score {
        let b = &root.board;
        let n = b.moves() + plies; // stones when the game ends
        let winner_stones = n.div_ceil(2) as i32;
        let v = (b.width() * b.height()) as i32 / 2 + 1 - winner_stones;
        Score::Exact(if win { v } else { -v })
    }
}

/// The evaluation of `perfect` when the solver runs out of time: the
/// windows of [`WindowEval`] plus the parity of threats (empty cells that
/// would complete a four). With both sides filling columns alternately,
/// the first player tends to get the cells of odd rows (1st, 3rd, 5th from
/// the bottom) and the second player those of even rows (zugzwang), so a
/// threat counts fully on its owner's parity and little on the other; a
/// threat of the first player on an odd row with no threat of the second
/// player below it in its column wins most endgames, and so does, for the
/// second player, an even threat the first player cannot undercut.
pub struct ThreatEval {
    base: WindowEval,
    geo: Geometry,
    /// Cells of odd rows counted from the bottom (1st, 3rd, ...).
    odd_rows: u64,
    good: i32,
    other: i32,
    clear: i32,
    zugzwang: i32,
}

/// Weight of a threat on its owner's parity, and on the other.
const GOOD_THREAT: i32 = 24;
const OTHER_THREAT: i32 = 6;
/// A good threat with no opposing threat below it in its column.
const CLEAR_THREAT: i32 = 40;
/// Only one side has clear good threats: the filling of the board in
/// zugzwang tends to give it the game.
const ZUGZWANG: i32 = 150;

impl ThreatEval {
    pub fn new(b: &Board) -> Self {
        let geo = b.geometry();
        let odd_rows = (0..b.height()).step_by(2).fold(0u64, |m, r| m | geo.bottom << r);
        ThreatEval {
            base: WindowEval::new(b),
            geo,
            odd_rows,
            good: GOOD_THREAT,
            other: OTHER_THREAT,
            clear: CLEAR_THREAT,
            zugzwang: ZUGZWANG,
        }
    }

    /// The threat score of `stones` (the side `side`) against the
    /// opponent's threat cells `theirs`.
    #[cfg(test)]
    fn threats(&self, side: usize, mine: u64, theirs: u64) -> i32 {
        self.threats_clear(side, mine, theirs).0
    }

    /// [`ThreatEval::threats`] and the number of clear good threats.
    fn threats_clear(&self, side: usize, mine: u64, theirs: u64) -> (i32, u32) {
        let good_rows = if side == 0 { self.odd_rows } else { self.geo.board & !self.odd_rows };
        let good = mine & good_rows;
        let mut v =
            self.good * good.count_ones() as i32 + self.other * (mine & !good_rows).count_ones() as i32;
        // Clear: no opposing threat lower in the same column.
        let mut clear = 0;
        let mut rest = good;
        while rest != 0 {
            let cell = rest & rest.wrapping_neg();
            rest ^= cell;
            let col = cell.trailing_zeros() / self.geo.h1;
            let below = self.geo.column_mask(col) & (cell - 1);
            if theirs & below == 0 {
                v += self.clear;
                clear += 1;
            }
        }
        (v, clear)
    }
}

impl ThreatEval {
    /// [`Evaluator::evaluate`] on bitboards: `me` the stones of the side
    /// to move, `mask` all stones, `side` 0 if the first player is to
    /// move.
    pub fn score_bits(&self, me: u64, mask: u64, side: usize) -> i32 {
        let opp = me ^ mask;
        let mine = self.geo.winning_cells(me, mask);
        let theirs = self.geo.winning_cells(opp, mask);
        let (a, ca) = self.threats_clear(side, mine, theirs);
        let (b, cb) = self.threats_clear(1 - side, theirs, mine);
        let zug = match (ca > 0, cb > 0) {
            (true, false) => self.zugzwang,
            (false, true) => -self.zugzwang,
            _ => 0,
        };
        self.base.score_bits(me, opp) + a - b + zug
    }
}

impl Evaluator<Connect4> for ThreatEval {
    fn evaluate(&self, pos: &Connect4) -> i32 {
        let b = &pos.board;
        self.score_bits(b.current(), b.mask(), b.side_to_move())
    }

    fn order_moves(&self, pos: &Connect4, moves: &mut [u8]) {
        self.base.order_moves(pos, moves)
    }

    fn mate_score(&self, root: &Connect4, plies: u32, win: bool) -> Score {
        self.base.mate_score(root, plies, win)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_count() {
        // 7x6 has 69 lines of four.
        assert_eq!(windows(&Board::new(7, 6).unwrap()).len(), 69);
        assert_eq!(windows(&Board::new(4, 4).unwrap()).len(), 10);
    }

    #[test]
    fn threat_parity_counts() {
        // Red (first player) with three in a row on the 3rd row from the
        // bottom (an odd row): its threats there outweigh the same shape
        // for Yellow, whose good rows are the even ones.
        let mut g = Connect4::standard();
        // Columns 1..3 filled to 2 stones, then Red stones on row 3 of
        // columns 1, 2, 3 (Yellow plays elsewhere in between).
        g.play_sequence("1122337").unwrap();
        let e = ThreatEval::new(&g.board);
        let geo = g.board.geometry();
        let red_row3 = (0..3).fold(0u64, |m, c| m | 1 << (c * 7 + 2));
        let mask = g.board.mask() | red_row3;
        let cells = geo.winning_cells(red_row3, mask);
        assert_eq!(cells.count_ones(), 1, "the cell of column 4, row 3");
        let as_red = e.threats(0, cells, 0);
        let as_yellow = e.threats(1, cells, 0);
        assert_eq!(as_red, GOOD_THREAT + CLEAR_THREAT);
        assert_eq!(as_yellow, OTHER_THREAT);
        // An opposing threat below it makes it not clear.
        let below = 1u64 << (3 * 7);
        assert_eq!(e.threats(0, cells, below), GOOD_THREAT);
    }

    #[test]
    fn mate_score_convention() {
        let mut g = Connect4::standard();
        g.play_sequence("445566").unwrap();
        // First player to move, wins now with its 4th stone: 22 - 4 = 18.
        let e = WindowEval::new(&g.board);
        assert_eq!(e.mate_score(&g, 1, true), Score::Exact(18));
    }
}
