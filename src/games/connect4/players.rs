//! Connect Four AI players: `perfect` (the solver, see `perfect.rs`) and
//! the strategies of the "Forza 4 (IA)" seed: `random`, `defense`,
//! `attack`, `neutral`. Every seed player wins at once when it can and
//! blocks an immediate loss.

use rand::Rng;
use rand::seq::IndexedRandom;

use super::Connect4;
use super::eval::{WindowEval, windows};
use super::perfect::Perfect;
use crate::engine::StrategySpec;
use crate::options::OptionValues;
use crate::search::negamax;
use crate::search::{Player, SearchCtx, legal_moves};

pub fn strategies() -> Vec<StrategySpec<Connect4>> {
    vec![
        StrategySpec {
            name: "perfect",
            help: "solver: game-theoretically best move (options Weak, Variety, Skill)",
            make: |o| Box::new(Perfect::new(o)),
        },
        StrategySpec {
            name: "attack",
            help: "negamax alpha-beta to a depth",
            make: |o| Box::new(Attack::new(o)),
        },
        StrategySpec { name: "random", help: "uniform among legal moves", make: |_| Box::new(Random) },
        StrategySpec {
            name: "defense",
            help: "block the opponent's longest open line",
            make: |_| Box::new(Defense),
        },
        StrategySpec {
            name: "neutral",
            help: "attack or defense, chosen at random each move",
            make: |o| Box::new(Neutral { attack: Attack::new(o) }),
        },
    ]
}

/// The move forced by the position: a win at once, else the block of the
/// opponent's immediate win.
pub fn forced_move(g: &Connect4) -> Option<u8> {
    if let Some(&c) = g.board.winning_columns().first() {
        return Some(c as u8);
    }
    g.board.threatened_columns().first().map(|&c| c as u8)
}

/// Uniform among legal moves.
pub struct Random;

impl Player<Connect4> for Random {
    fn choose(&mut self, pos: &Connect4, ctx: &mut SearchCtx) -> u8 {
        ctx.nodes += 1;
        if let Some(m) = forced_move(pos) {
            return m;
        }
        *legal_moves(pos).choose(ctx.rng).expect("game not over")
    }
}

/// Blocks the opponent's longest open line; else a random least-filled
/// column.
pub struct Defense;

impl Defense {
    /// For each legal column: the most opponent stones in a line of four
    /// through the landing cell that holds none of ours (an open line of
    /// the opponent that a stone there blocks).
    fn block_values(pos: &Connect4) -> Vec<(u8, u32)> {
        let b = &pos.board;
        let me = b.current();
        let opp = b.opponent();
        let wins = windows(b);
        let playable = b.playable_cells();
        legal_moves(pos)
            .into_iter()
            .map(|c| {
                let cell = playable & b.column_mask(c as u32);
                let v = wins
                    .iter()
                    .filter(|&&w| w & cell != 0 && w & me == 0)
                    .map(|&w| (w & opp).count_ones())
                    .max()
                    .unwrap_or(0);
                (c, v)
            })
            .collect()
    }

    fn pick(pos: &Connect4, rng: &mut impl Rng) -> u8 {
        if let Some(m) = forced_move(pos) {
            return m;
        }
        let vals = Self::block_values(pos);
        let best = vals.iter().map(|v| v.1).max().unwrap_or(0);
        let candidates: Vec<u8> = if best > 0 {
            vals.iter().filter(|v| v.1 == best).map(|v| v.0).collect()
        } else {
            let least = vals.iter().map(|v| pos.board.column_height(v.0 as u32)).min().unwrap_or(0);
            vals.iter().filter(|v| pos.board.column_height(v.0 as u32) == least).map(|v| v.0).collect()
        };
        *candidates.choose(rng).expect("game not over")
    }
}

impl Player<Connect4> for Defense {
    fn choose(&mut self, pos: &Connect4, ctx: &mut SearchCtx) -> u8 {
        ctx.nodes += 1;
        Self::pick(pos, ctx.rng)
    }
}

/// Negamax with alpha-beta to a fixed depth (from `go depth` or the
/// `Depth` option), centre-first ordering, window evaluation.
pub struct Attack {
    depth: u32,
}

impl Attack {
    pub fn new(o: &OptionValues) -> Self {
        Attack { depth: o.get_int("Depth").unwrap_or(8).clamp(1, 64) as u32 }
    }
}

impl Player<Connect4> for Attack {
    fn choose(&mut self, pos: &Connect4, ctx: &mut SearchCtx) -> u8 {
        if let Some(m) = forced_move(pos) {
            ctx.nodes += 1;
            return m;
        }
        let eval = WindowEval::new(&pos.board);
        let remaining = pos.board.width() * pos.board.height() - pos.board.moves();
        let depth = match (ctx.limits.depth, ctx.limits.movetime.is_some() || ctx.limits.infinite) {
            (Some(d), _) => d,
            (None, true) => remaining,
            (None, false) => ctx.options.get_int("Depth").map_or(self.depth, |d| d.clamp(1, 64) as u32),
        };
        let found = negamax::search(pos, &eval, ctx, depth.min(remaining).max(1));
        found.map(|f| f.best).expect("game not over")
    }
}

/// Each move: attack or defense, at random.
pub struct Neutral {
    attack: Attack,
}

impl Player<Connect4> for Neutral {
    fn choose(&mut self, pos: &Connect4, ctx: &mut SearchCtx) -> u8 {
        if ctx.rng.random_bool(0.5) {
            ctx.report_text("neutral plays attack");
            self.attack.choose(pos, ctx)
        } else {
            ctx.report_text("neutral plays defense");
            ctx.nodes += 1;
            Defense::pick(pos, ctx.rng)
        }
    }
}
