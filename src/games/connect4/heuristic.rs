//! The time-limited search of `perfect` when the solver cannot finish: an
//! iterative-deepening alpha-beta on bitboards, with the solver's rules
//! (a win at once ends the search, a forced block, never a stone under an
//! opponent's winning cell, a double threat is a loss), the threat-parity
//! evaluation ([`ThreatEval`]) at the horizon, a forced reply not
//! counted as a ply, and a table of its own kept between moves.
//!
//! Values: a proven result of exact score `s` (benchmark convention, side
//! to move's view) is `WIN + s` for a win, `-WIN + s` for a loss, 0 for a
//! draw at the end of the board; evaluations stay within
//! `+-EVAL_LIMIT`. A value beyond `+-PROVEN` is therefore proven by the
//! search, whatever its depth.

use super::Board;
#[cfg(test)]
use super::Connect4;
use super::board::Geometry;
use super::eval::ThreatEval;
use super::solver::{Pos, centre_order, insert_by_score};
use crate::search::StopFlag;
use crate::search::alloc::{AllocError, zeroed_slice};
use crate::time::Instant;

/// Base of proven values.
pub const WIN: i32 = 10_000;
/// Values beyond this are proven wins (losses if below its negative).
pub const PROVEN: i32 = WIN / 2;
/// Evaluations are clamped to this.
const EVAL_LIMIT: i32 = 4_000;
const INF: i32 = 2 * WIN;
/// Table of 2^TT_BITS entries of 16 bytes (4 MB).
const TT_BITS: u32 = 18;
const EXACT: u64 = 1;
const LOWER: u64 = 2;
const UPPER: u64 = 3;

/// The result of a search: the move, its value and the depth of the last
/// finished iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    pub best: u32,
    pub value: i32,
    pub depth: u32,
}

/// The exact score of a proven value (`None` for an evaluation).
pub fn proven_score(v: i32) -> Option<i32> {
    if v > PROVEN {
        Some(v - WIN)
    } else if v < -PROVEN {
        Some(v + WIN)
    } else {
        None
    }
}

/// The searcher: board geometry, evaluation, table, counters and limits.
pub struct Heuristic {
    geo: Geometry,
    eval: ThreatEval,
    order: Vec<u32>,
    /// Entries: [key + 1, value (32 bits) | depth << 32 | bound << 40 |
    /// (move + 1) << 48].
    tt: Box<[[u64; 2]]>,
    pub nodes: u64,
    deadline: Option<Instant>,
    /// Node count at which to stop.
    node_limit: Option<u64>,
    stop: Option<StopFlag>,
    aborted: bool,
    /// History of cut-offs: [side to move][cell].
    history: [[u32; 64]; 2],
}

impl Heuristic {
    /// A searcher for boards like `b` (its 4 MB table allocated here).
    pub fn new(b: &Board) -> Result<Heuristic, AllocError> {
        Ok(Heuristic {
            geo: b.geometry(),
            eval: ThreatEval::new(b),
            order: centre_order(b.width()),
            tt: zeroed_slice(1 << TT_BITS)?,
            nodes: 0,
            deadline: None,
            node_limit: None,
            stop: None,
            aborted: false,
            history: [[0; 64]; 2],
        })
    }

    pub fn geometry(&self) -> Geometry {
        self.geo
    }

    /// Forgets every table entry (a new game).
    pub fn clear(&mut self) {
        self.tt.fill([0, 0]);
        self.history = [[0; 64]; 2];
    }

    fn check(&mut self) {
        if self.stop.as_ref().is_some_and(|s| s.is_stopped())
            || self.node_limit.is_some_and(|n| self.nodes >= n)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.aborted = true;
        }
    }

    fn slot(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - TT_BITS)) as usize
    }

    /// Iterative deepening over the columns `cands` of `p` (playable, the
    /// game not over) until `deadline`, `nodes` more nodes or `stop`, at
    /// most `max_depth` plies (the rest of the board at most). `None` if
    /// not even the first iteration finished.
    pub fn search(
        &mut self,
        p: Pos,
        cands: &[u32],
        deadline: Option<Instant>,
        nodes: Option<u64>,
        stop: Option<StopFlag>,
        max_depth: u32,
    ) -> Option<Found> {
        self.deadline = deadline;
        self.node_limit = nodes.map(|n| self.nodes + n);
        self.stop = stop;
        self.aborted = false;
        for h in self.history.iter_mut().flatten() {
            *h /= 4;
        }
        let empty = self.geo.cells() - p.moves;
        let wins = self.geo.winning_cells(p.current, p.mask) & self.geo.playable(p.mask);
        if let Some(&c) =
            self.order.iter().find(|&&c| cands.contains(&c) && wins & self.geo.column_mask(c) != 0)
        {
            let value = WIN + (self.geo.cells() as i32 + 1 - p.moves as i32) / 2;
            return Some(Found { best: c, value, depth: 1 });
        }
        let mut moves: Vec<(u32, i32)> =
            self.order.iter().filter(|c| cands.contains(c)).map(|&c| (c, 0)).collect();
        let mut found = None;
        for depth in 1..=max_depth.min(empty).max(1) {
            let mut alpha = -INF;
            let mut best: Option<(u32, i32)> = None;
            for mv in moves.iter_mut() {
                let c = mv.0;
                let child = self.play(p, c);
                let v = -self.negamax(child, depth - 1, -INF, -alpha);
                if self.aborted {
                    break;
                }
                mv.1 = v;
                if best.is_none_or(|b| v > b.1) {
                    best = Some((c, v));
                }
                alpha = alpha.max(v);
            }
            // A move searched in full that beats the previous best (searched
            // first) is better even in an unfinished iteration.
            if let Some((c, v)) = best {
                found =
                    Some(Found { best: c, value: v, depth: if self.aborted { depth - 1 } else { depth } });
            }
            if self.aborted {
                break;
            }
            // Best first next time (stable: ties keep the centre order).
            moves.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
            let top = moves[0].1;
            // Proven win, or every move proven lost: deeper changes nothing
            // that matters.
            if top > PROVEN || moves.iter().all(|&(_, v)| v < -PROVEN) {
                break;
            }
        }
        found
    }

    fn play(&self, p: Pos, col: u32) -> Pos {
        let cell = self.geo.playable(p.mask) & self.geo.column_mask(col);
        Pos { current: p.current ^ p.mask, mask: p.mask | cell, moves: p.moves + 1 }
    }

    /// Alpha-beta (fail-soft) to `depth` plies; forced replies are not
    /// counted.
    fn negamax(&mut self, p: Pos, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes & 0x3FF == 0 {
            self.check();
        }
        if self.aborted {
            return 0;
        }
        let geo = self.geo;
        let cells = geo.cells() as i32;
        let n = p.moves as i32;
        let possible = geo.playable(p.mask);
        if geo.winning_cells(p.current, p.mask) & possible != 0 {
            return WIN + (cells + 1 - n) / 2;
        }
        let opp_wins = geo.winning_cells(p.current ^ p.mask, p.mask);
        let forced = possible & opp_wins;
        let mut next = possible;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return -WIN - (cells - n) / 2;
            }
            next = forced;
        }
        next &= !(opp_wins >> 1);
        if next == 0 {
            return -WIN - (cells - n) / 2;
        }
        if n + 2 >= cells {
            return 0;
        }
        let single = next & (next - 1) == 0;
        if depth == 0 && !single {
            let v = self.eval.score_bits(p.current, p.mask, (p.moves & 1) as usize);
            return v.clamp(-EVAL_LIMIT, EVAL_LIMIT);
        }
        let key = p.current + p.mask;
        let slot = Self::slot(key);
        let [k, data] = self.tt[slot];
        let mut hint = None;
        if k == key + 1 {
            let v = data as u32 as i32;
            let d = (data >> 32) as u8 as u32;
            let bound = (data >> 40) & 0xFF;
            let mv = (data >> 48) as u8;
            let deep = d >= depth;
            let lower = (bound == EXACT || bound == LOWER) && (deep || v > PROVEN);
            let upper = (bound == EXACT || bound == UPPER) && (deep || v < -PROVEN);
            if (lower && v >= beta) || (upper && v <= alpha) || (lower && upper) {
                return v;
            }
            if mv > 0 {
                hint = Some(mv as u32 - 1);
            }
        }
        // Moves: the table's first, then most winning cells created, then
        // the history of cut-offs, centre first on ties.
        let side = (p.moves & 1) as usize;
        let mut list = [(0u64, 0u32, 0u32); 9];
        let mut len = 0;
        for &c in &self.order {
            let m = next & geo.column_mask(c);
            if m == 0 {
                continue;
            }
            let s = if Some(c) == hint {
                u32::MAX
            } else {
                (geo.winning_cells(p.current | m, p.mask | m).count_ones() << 24)
                    + self.history[side][m.trailing_zeros() as usize].min((1 << 24) - 1)
            };
            insert_by_score(&mut list, &mut len, (m, s, c));
        }
        let child_depth = if single { depth } else { depth - 1 };
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_c = 0;
        for (i, &(m, _, c)) in list[..len].iter().enumerate() {
            let child = Pos { current: p.current ^ p.mask, mask: p.mask | m, moves: p.moves + 1 };
            // Principal variation search: the first move with the full
            // window, the others with a null window, searched again if
            // they beat it.
            let mut v = if i == 0 { -self.negamax(child, child_depth, -beta, -alpha) } else { -INF };
            if i > 0 {
                v = -self.negamax(child, child_depth, -alpha - 1, -alpha);
                if v > alpha && v < beta && !self.aborted {
                    v = -self.negamax(child, child_depth, -beta, -alpha);
                }
            }
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_c = c;
            }
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    let h = &mut self.history[side][m.trailing_zeros() as usize];
                    *h = h.saturating_add(depth * depth + 1);
                    break;
                }
            }
        }
        let bound = if best >= beta {
            LOWER
        } else if best <= alpha0 {
            UPPER
        } else {
            EXACT
        };
        let data = (best as u32 as u64)
            | ((depth.min(255) as u64) << 32)
            | (bound << 40)
            | ((best_c as u64 + 1) << 48);
        self.tt[slot] = [key + 1, data];
        best
    }
}

/// The searcher's choice for a game position (tests and tools).
#[cfg(test)]
pub fn choose(g: &Connect4, max_depth: u32) -> Option<Found> {
    let mut h = Heuristic::new(&g.board).ok()?;
    let cands: Vec<u32> = (0..g.board.width()).filter(|&c| g.board.can_play(c)).collect();
    h.search(Pos::from(&g.board), &cands, None, None, None, max_depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(moves: &str) -> Connect4 {
        let mut g = Connect4::standard();
        g.play_sequence(moves).unwrap();
        g
    }

    #[test]
    fn wins_at_once_and_blocks() {
        // First player wins in column 4 (index 3) at once.
        let f = choose(&game("414141"), 4).unwrap();
        assert_eq!(f.best, 3);
        assert_eq!(proven_score(f.value), Some(18));
        // Second player must block column 4.
        let f = choose(&game("41414"), 4).unwrap();
        assert_eq!(f.best, 3);
    }

    #[test]
    fn a_node_limit_ends_the_search() {
        let g = game("44");
        let mut h = Heuristic::new(&g.board).unwrap();
        let cands: Vec<u32> = (0..7).collect();
        let f = h.search(Pos::from(&g.board), &cands, None, Some(5000), None, 40);
        assert!(h.nodes < 5000 + 1024, "{}", h.nodes);
        assert!(f.is_some_and(|f| f.depth < 40), "{f:?}");
    }

    #[test]
    fn finds_a_double_threat() {
        // `4455`: Red to move wins with a double threat on the bottom row
        // (columns 3 or 6), with its 4th stone: 18.
        let f = choose(&game("4455"), 6).unwrap();
        assert!(f.best == 2 || f.best == 5, "{f:?}");
        assert_eq!(proven_score(f.value), Some(18), "{f:?}");
    }

    #[test]
    fn a_full_depth_search_agrees_with_the_solver() {
        // Near the end the search reaches every leaf: its value has the
        // sign of the solver's exact score.
        for moves in [
            "5554224333234511764415115",
            "7422341735647741166133573473242566",
            "1233722555341451114725221333",
        ] {
            let g = game(moves);
            let mut s = super::super::solver::Solver::new(7, 6, 16).unwrap();
            let exact = s.solve(Pos::from(&g.board), false);
            let empty = 42 - g.board.moves();
            let f = choose(&g, empty).unwrap();
            let sign = proven_score(f.value).map_or(0, i32::signum);
            assert!(f.value == 0 || proven_score(f.value).is_some(), "{moves}: {f:?}");
            assert_eq!(sign, exact.lo.signum(), "{moves}: {f:?} vs {exact:?}");
        }
    }
}
