//! Hive AI players: `random` and `alphabeta` (negamax with the
//! [`HiveEval`] evaluation).

use rand::seq::IndexedRandom;

use super::Hive;
use super::eval::HiveEval;
use super::mv::Move;
use crate::game::StrategySpec;
use crate::options::OptionValues;
use crate::search::negamax;
use crate::search::{Player, SearchCtx, legal_moves};

pub fn strategies() -> Vec<StrategySpec<Hive>> {
    vec![
        StrategySpec {
            name: "alphabeta",
            help: "negamax alpha-beta on queen pressure, pinned pieces and mobility",
            make: |o| Box::new(AlphaBeta::new(o)),
        },
        StrategySpec { name: "random", help: "uniform among legal moves", make: |_| Box::new(Random) },
    ]
}

/// Uniform among legal moves.
pub struct Random;

impl Player<Hive> for Random {
    fn choose(&mut self, pos: &Hive, ctx: &mut SearchCtx) -> Move {
        ctx.nodes += 1;
        *legal_moves(pos).choose(ctx.rng).unwrap_or(&Move::PASS)
    }
}

/// Iterative-deepening alpha-beta to the `Depth` option (or the requested
/// depth; as deep as time allows under a time limit).
pub struct AlphaBeta {
    depth: u32,
}

impl AlphaBeta {
    pub fn new(o: &OptionValues) -> Self {
        AlphaBeta { depth: o.get_int("Depth").unwrap_or(3).clamp(1, 20) as u32 }
    }
}

impl Player<Hive> for AlphaBeta {
    fn choose(&mut self, pos: &Hive, ctx: &mut SearchCtx) -> Move {
        let depth = match (ctx.limits.depth, ctx.limits.movetime.is_some() || ctx.limits.infinite) {
            (Some(d), _) => d,
            (None, true) => 64,
            (None, false) => self.depth,
        };
        negamax::search(pos, &HiveEval, ctx, depth.max(1)).map(|f| f.best).unwrap_or(Move::PASS)
    }
}
