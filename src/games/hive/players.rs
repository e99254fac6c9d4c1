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
            (None, false) => ctx.options.get_int("Depth").map_or(self.depth, |d| d.clamp(1, 20) as u32),
        };
        negamax::search(pos, &HiveEval, ctx, depth.max(1)).map(|f| f.best).unwrap_or(Move::PASS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, Outcome};
    use crate::search::{Limits, StopFlag};
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    /// Black can surround the white queen at once (bA1 to its west).
    const MATE_IN_ONE: &str =
        "Base+MLP;wP;bM \\wP;wQ wP\\;bS1 \\bM;wL wQ/;bL \\bS1;wG1 wQ\\;bQ \\bL;wA1 /wQ;bA1 \\bQ;wB1 wL\\";

    fn choose(p: &mut dyn Player<Hive>, g: &Hive, depth: Option<u32>) -> Move {
        let opts = OptionValues::from_specs(&<Hive as Game>::options());
        let mut rng = StdRng::seed_from_u64(7);
        let mut sink = |_r| {};
        let limits = Limits { depth, ..Limits::default() };
        let mut ctx = SearchCtx::new(limits, &opts, &mut rng, StopFlag::new(), &mut sink);
        p.choose(g, &mut ctx)
    }

    #[test]
    fn alphabeta_takes_the_win() {
        let g = Hive::from_game_string(MATE_IN_ONE).unwrap();
        for depth in [1, 2] {
            let opts = OptionValues::from_specs(&<Hive as Game>::options());
            let m = choose(&mut AlphaBeta::new(&opts), &g, Some(depth));
            let mut h = g.clone();
            h.play(m);
            assert_eq!(h.outcome(), Some(Outcome::Win(1)), "depth {depth}: {}", g.format_move(m));
        }
    }

    #[test]
    fn alphabeta_stopped_at_once_still_moves() {
        let g = Hive::from_game_string("Base+MLP;wS1;bP wS1-;wQ -wS1;bQ bP/").unwrap();
        let opts = OptionValues::from_specs(&<Hive as Game>::options());
        let mut rng = StdRng::seed_from_u64(7);
        let mut sink = |_r| {};
        let stop = StopFlag::new();
        stop.stop();
        let limits = Limits { depth: Some(20), ..Limits::default() };
        let mut ctx = SearchCtx::new(limits, &opts, &mut rng, stop, &mut sink);
        let m = AlphaBeta::new(&opts).choose(&g, &mut ctx);
        assert!(g.moves().contains(&m));
        assert!(ctx.nodes < 10_000, "searched {} nodes after stop", ctx.nodes);
    }

    #[test]
    fn random_plays_legal_moves() {
        let g = Hive::from_game_string(MATE_IN_ONE).unwrap();
        let m = choose(&mut Random, &g, None);
        assert!(g.moves().contains(&m));
    }
}
