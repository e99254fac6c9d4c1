//! Heuristic evaluation of Connect Four positions (for `attack`): open
//! four-cell windows weighted by how many stones they hold, plus a small
//! bonus for central stones.

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

impl Evaluator<Connect4> for WindowEval {
    fn evaluate(&self, pos: &Connect4) -> i32 {
        let me = pos.board.current();
        let opp = pos.board.opponent();
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
    fn mate_score_convention() {
        let mut g = Connect4::standard();
        g.play_sequence("445566").unwrap();
        // First player to move, wins now with its 4th stone: 22 - 4 = 18.
        let e = WindowEval::new(&g.board);
        assert_eq!(e.mate_score(&g, 1, true), Score::Exact(18));
    }
}
