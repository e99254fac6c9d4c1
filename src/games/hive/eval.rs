//! A static evaluation of Hive positions for the `alphabeta` player:
//! pressure on each queen, pieces pinned by the One Hive rule, beetles on
//! top, and the mobility of the side to move.

use super::Hive;
use super::hex::{NOWHERE, nb};
use super::movegen::CountSink;
use super::mv::Move;
use super::piece::{Bug, PER_SIDE, Piece, bug, colour};
use crate::search::negamax::Evaluator;

/// The evaluator of `alphabeta`.
pub struct HiveEval;

/// Occupied neighbours of `side`'s queen (0 while in hand).
fn queen_pressure(g: &Hive, side: usize) -> i32 {
    let c = g.board.cell[side * PER_SIDE];
    if c == NOWHERE {
        return 0;
    }
    (0..6).filter(|&d| g.board.occupied(nb(c, d))).count() as i32
}

impl Evaluator<Hive> for HiveEval {
    fn evaluate(&self, g: &Hive) -> i32 {
        let b = &g.board;
        let me = g.side();
        let opp = 1 - me;
        let mut v = 0;
        // Pressure on the queens grows faster near the end.
        let press = |n: i32| n * n * 12 + n * 20;
        v += press(queen_pressure(g, opp)) - press(queen_pressure(g, me));
        // Pinned pieces cannot help; beetles on top are strong.
        let pinned = g.articulation_mask();
        for p in 0..(2 * PER_SIDE) as Piece {
            if !b.on_board(p) {
                continue;
            }
            let sign = if colour(p) == me { 1 } else { -1 };
            let c = b.cell[p as usize];
            if b.top_at(c) != p {
                v -= sign * 15; // buried
                continue;
            }
            if b.h(c) == 1 && pinned >> p & 1 != 0 {
                v -= sign
                    * match bug(p) {
                        Bug::Ant => 25,
                        Bug::Queen => 10,
                        _ => 12,
                    };
            }
            if b.h(c) > 1 {
                v += sign * 20;
            }
        }
        // Mobility of the side to move.
        let mut count = CountSink(0);
        g.generate(&mut count);
        v + (count.0 as i32).min(60)
    }

    /// Moves next to the opponent's queen first, then other moves, then
    /// placements.
    fn order_moves(&self, g: &Hive, moves: &mut [Move]) {
        let opp_q = g.board.cell[(1 - g.side()) * PER_SIDE];
        let near = |m: &Move| opp_q != NOWHERE && (0..6).any(|d| nb(opp_q, d) == m.to);
        moves.sort_by_key(|m| {
            if m.is_pass() {
                3
            } else if near(m) {
                0
            } else if m.is_placement() {
                2
            } else {
                1
            }
        });
    }
}
