//! Generic negamax with alpha-beta and iterative deepening, for any game
//! with an [`Evaluator`].

use crate::game::{Game, Outcome};
use crate::search::{Score, SearchCtx, format_pv};

/// Scores at or beyond this are forced wins (`WIN - plies`).
pub const WIN: i32 = 1_000_000;
const WIN_THRESHOLD: i32 = WIN - 10_000;

/// A static evaluation for a game: engine knowledge, not rules.
pub trait Evaluator<G: Game>: Send {
    /// Evaluation of a position that is not over, from the side to move's
    /// view; must stay well inside +-`WIN / 2`.
    fn evaluate(&self, pos: &G) -> i32;

    /// Reorders `moves` best-first (default: unchanged).
    fn order_moves(&self, _pos: &G, _moves: &mut [G::Move]) {}

    /// Converts a proven result found by search into the game's score
    /// convention: the side to move at `root` ends the game after `plies`
    /// more plies, winning if `win`. Default: plain win/loss.
    fn mate_score(&self, _root: &G, _plies: u32, win: bool) -> Score {
        if win { Score::Win } else { Score::Loss }
    }
}

/// Result of a completed iteration.
#[derive(Clone, Debug)]
pub struct Found<M> {
    pub best: M,
    pub value: i32,
    pub depth: u32,
    pub pv: Vec<M>,
}

/// Iterative-deepening alpha-beta search from `root` up to `max_depth`
/// plies, honouring `ctx` (stop flag, time, nodes). Reports one `info`
/// line per completed depth. Returns `None` only if `root` has no move.
pub fn search<G: Game, E: Evaluator<G>>(
    root: &G,
    eval: &E,
    ctx: &mut SearchCtx,
    max_depth: u32,
) -> Option<Found<G::Move>> {
    let mut moves = Vec::new();
    root.legal_moves(&mut moves);
    if moves.is_empty() {
        return None;
    }
    eval.order_moves(root, &mut moves);
    let mut best: Option<Found<G::Move>> = None;
    let mut pos = root.clone();
    let mut s = Searcher { eval, ctx, stopped: false, horizon: false, pv: vec![Vec::new(); 130] };
    for depth in 1..=max_depth.clamp(1, 128) {
        // Previous best first.
        if let Some(b) = &best
            && let Some(i) = moves.iter().position(|&m| m == b.best)
        {
            moves[..=i].rotate_right(1);
        }
        s.horizon = false;
        let mut alpha = -WIN - 1;
        let beta = WIN + 1;
        let mut iter_best: Option<(G::Move, i32, Vec<G::Move>)> = None;
        for &m in &moves {
            pos.play(m);
            s.ctx.nodes += 1;
            let v = -s.negamax(&mut pos, depth - 1, 1, -beta, -alpha);
            pos.undo(m);
            if s.stopped {
                break;
            }
            if iter_best.is_none() || v > alpha {
                alpha = alpha.max(v);
                let mut pv = vec![m];
                pv.extend_from_slice(&s.pv[1]);
                iter_best = Some((m, v, pv));
            }
        }
        if s.stopped && best.is_some() {
            break;
        }
        if let Some((m, v, pv)) = iter_best {
            let score = if v.abs() >= WIN_THRESHOLD {
                eval.mate_score(root, (WIN - v.abs()) as u32, v > 0)
            } else {
                Score::Cp(v)
            };
            let pv_text = format_pv(root, &pv);
            s.ctx.report(depth, Some(score), pv_text);
            let proven = v.abs() >= WIN_THRESHOLD;
            best = Some(Found { best: m, value: v, depth, pv });
            if proven || s.stopped {
                break;
            }
        }
        // No line was cut by the depth: the whole tree was searched, so
        // deeper adds nothing.
        if !s.horizon {
            break;
        }
        if s.ctx.should_stop() {
            break;
        }
    }
    best.or_else(|| Some(Found { best: moves[0], value: 0, depth: 0, pv: vec![moves[0]] }))
}

struct Searcher<'a, 'b, G: Game, E> {
    eval: &'a E,
    ctx: &'a mut SearchCtx<'b>,
    stopped: bool,
    /// True once a line of the current iteration was cut by the depth.
    horizon: bool,
    /// Triangular principal-variation table: `pv[ply]` is the best line
    /// found from `ply` on.
    pv: Vec<Vec<G::Move>>,
}

impl<G: Game, E: Evaluator<G>> Searcher<'_, '_, G, E> {
    fn negamax(&mut self, pos: &mut G, depth: u32, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.pv[ply].clear();
        if self.ctx.nodes & 1023 == 0 && self.ctx.should_stop() {
            self.stopped = true;
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
        if depth == 0 || ply + 1 >= self.pv.len() {
            self.horizon = true;
            return self.eval.evaluate(pos);
        }
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return self.eval.evaluate(pos);
        }
        self.eval.order_moves(pos, &mut moves);
        let mut best = -WIN - 1;
        for m in moves {
            pos.play(m);
            self.ctx.nodes += 1;
            let v = -self.negamax(pos, depth - 1, ply + 1, -beta, -alpha);
            pos.undo(m);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
                if ply + 1 < self.pv.len() {
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(m);
                    head[ply].extend_from_slice(&tail[0]);
                }
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connect4::Connect4;
    use crate::options::OptionValues;
    use crate::search::{Limits, StopFlag};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// A simple evaluator: stones in the centre column.
    struct Centre;
    impl Evaluator<Connect4> for Centre {
        fn evaluate(&self, pos: &Connect4) -> i32 {
            let b = &pos.board;
            let c = b.column_mask(b.width() / 2);
            (b.current() & c).count_ones() as i32 - (b.opponent() & c).count_ones() as i32
        }
    }

    /// Plain minimax, no pruning: the reference value.
    fn minimax(pos: &mut Connect4, depth: u32, ply: i32) -> i32 {
        match pos.outcome() {
            Some(Outcome::Draw) => return 0,
            Some(Outcome::Win(s)) => {
                let v = WIN - ply;
                return if s == pos.side_to_move() { v } else { -v };
            }
            None => {}
        }
        if depth == 0 {
            return Centre.evaluate(pos);
        }
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let mut best = -WIN - 1;
        for m in moves {
            pos.play(m);
            best = best.max(-minimax(pos, depth - 1, ply + 1));
            pos.undo(m);
        }
        best
    }

    /// Differential test: alpha-beta finds the same root value as plain
    /// minimax on random positions.
    #[test]
    fn alpha_beta_agrees_with_minimax() {
        let mut rng = StdRng::seed_from_u64(3);
        let opts = OptionValues::default();
        for _ in 0..40 {
            let mut g = Connect4::new(5, 4).unwrap();
            for _ in 0..rng.random_range(0..10) {
                let mut v = Vec::new();
                g.legal_moves(&mut v);
                if v.is_empty() {
                    break;
                }
                g.play(v[rng.random_range(0..v.len())]);
            }
            if g.outcome().is_some() {
                continue;
            }
            let depth = rng.random_range(1..5);
            let mut srng = StdRng::seed_from_u64(0);
            let mut sink = |_r: crate::search::Report| {};
            let mut ctx = SearchCtx::new(
                Limits { depth: Some(depth), ..Default::default() },
                &opts,
                &mut srng,
                StopFlag::new(),
                &mut sink,
            );
            let found = search(&g, &Centre, &mut ctx, depth).unwrap();
            let expected = minimax(&mut g.clone(), depth, 0);
            assert_eq!(found.value, expected, "depth {depth}");
            // The best move really has that value.
            let mut after = g;
            after.play(found.best);
            assert_eq!(-minimax(&mut after, depth - 1, 1), expected);
        }
    }
}
