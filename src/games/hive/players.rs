//! Hive AI players: `random` and `alphabeta` (principal-variation search
//! with the [`HiveEval`] evaluation).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use rand::seq::IndexedRandom;

use super::Hive;
use super::eval::HiveEval;
use super::mv::Move;
use crate::engine::StrategySpec;
use crate::options::OptionValues;
use crate::search::pvs::{self, Settings};
use crate::search::tt::Tt;
use crate::search::{Player, SearchCtx, legal_moves};

pub fn strategies() -> Vec<StrategySpec<Hive>> {
    vec![
        StrategySpec {
            name: "alphabeta",
            help: "principal-variation search with a transposition table on queen pressure and mobility by bug",
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

/// Iterative-deepening principal-variation search ([`pvs`]) with a
/// transposition table of `Hash` MB, `Threads` threads (splitting the
/// tree by ABDADA, no more than the machine's cores) and the strength set
/// by `Skill`.
///
/// The table is made when a game starts ([`Player::prepare`]) and kept
/// from game to game (cleared, in constant time, when a game starts). Its
/// pages are written ahead of the searches on a thread of its own: the
/// first [`POPULATE_FIRST`] when it is made (`isready` waits for them),
/// and after each move up to four times the part the searches use, while
/// the opponent thinks. So a move's time goes into neither allocating nor
/// (but for a first search that grows past what was written) faulting in
/// memory.
pub struct AlphaBeta {
    depth: u32,
    tt: Option<Arc<Tt>>,
    /// The thread writing the table's pages, and its cancel flag.
    populating: Option<(JoinHandle<()>, Arc<AtomicBool>)>,
}

/// Bytes of a new table written before its first search.
pub const POPULATE_FIRST: usize = 64 << 20;

impl AlphaBeta {
    pub fn new(o: &OptionValues) -> Self {
        AlphaBeta { depth: o.get_int("Depth").unwrap_or(3).clamp(1, 20) as u32, tt: None, populating: None }
    }

    /// `Hash` of the options, in MB.
    fn hash_mb(o: &OptionValues) -> usize {
        o.get_int("Hash").unwrap_or(64).clamp(1, 1 << 20) as usize
    }

    /// The table of `mb` MB, made now if needed (halving the size until
    /// the machine can give it); a new table's pages are written on a
    /// thread of its own.
    fn table(&mut self, mb: usize) -> Arc<Tt> {
        if let Some(t) = &self.tt
            && t.megabytes() == mb
        {
            return t.clone();
        }
        self.stop_populating();
        self.tt = None;
        let mut size = mb.max(1);
        let tt = loop {
            match Tt::new(size) {
                Ok(t) => break Arc::new(t),
                Err(e) if size > 1 => {
                    log::warn!("hive table: {e}; trying {} MB", size / 2);
                    size /= 2;
                }
                Err(e) => {
                    log::warn!("hive table: {e}");
                    break Arc::new(Tt::new(0).expect("a one-bucket table"));
                }
            }
        };
        self.tt = Some(tt.clone());
        self.populate(POPULATE_FIRST);
        tt
    }

    /// Starts writing the table's first `bytes` on a thread of its own,
    /// unless they are written or being written.
    fn populate(&mut self, bytes: usize) {
        let Some(tt) = self.tt.clone() else { return };
        let bytes = bytes.min(tt.bytes());
        if tt.populated_bytes() >= bytes || self.populating.as_ref().is_some_and(|(h, _)| !h.is_finished()) {
            return;
        }
        self.stop_populating();
        let cancel = Arc::new(AtomicBool::new(false));
        let (t, c) = (tt, cancel.clone());
        // Where there are no threads the pages are left to the search.
        let spawned = crate::threads::background("hive-table", move || t.populate(bytes, &c));
        if let Some(h) = spawned {
            self.populating = Some((h, cancel));
        }
    }

    /// Stops writing the table's pages (a table being replaced).
    fn stop_populating(&mut self) {
        if let Some((h, cancel)) = self.populating.take() {
            cancel.store(true, Ordering::Relaxed);
            let _ = h.join();
        }
    }
}

impl Drop for AlphaBeta {
    fn drop(&mut self) {
        self.stop_populating();
    }
}

/// How deep and how noisy a `Skill` level plays: 20 is full strength;
/// below, the depth is capped at 1 + skill / 4 and each root move's score
/// gets up to (20 - skill) x 12 of random noise; 0 plays a random move.
pub fn skill_limits(skill: i64) -> (Option<u32>, i32) {
    let s = skill.clamp(0, 20);
    if s >= 20 { (None, 0) } else { (Some(1 + s as u32 / 4), (20 - s as i32) * 12) }
}

impl Player<Hive> for AlphaBeta {
    fn choose(&mut self, pos: &Hive, ctx: &mut SearchCtx) -> Move {
        let skill = ctx.options.get_int("Skill").unwrap_or(20);
        if skill <= 0 {
            ctx.nodes += 1;
            return *legal_moves(pos).choose(ctx.rng).unwrap_or(&Move::PASS);
        }
        let (cap, noise) = skill_limits(skill);
        let depth = match (ctx.limits.depth, ctx.limits.movetime.is_some() || ctx.limits.infinite) {
            (Some(d), _) => d,
            (None, true) => 64,
            (None, false) if ctx.limits.nodes.is_some() => 64,
            (None, false) => ctx.options.get_int("Depth").map_or(self.depth, |d| d.clamp(1, 20) as u32),
        };
        let depth = cap.map_or(depth, |c| depth.min(c)).max(1);
        let threads = ctx.options.get_int("Threads").unwrap_or(1).clamp(1, 64) as usize;
        let settings = Settings { max_depth: depth, threads, prior: pos.prior_keys().collect(), noise };
        let tt = self.table(Self::hash_mb(ctx.options));
        // The search scores every repetition as a draw itself: the rule's
        // count of positions (a hash map updated at every move) would only
        // slow it (by a fifth to a third).
        let mut root = pos.clone();
        root.set_repetition_draw(false);
        let found = pvs::search(&root, &HiveEval, &tt, ctx, &settings);
        // The next searches may grow the part in use fourfold.
        self.populate(tt.bytes_in_use().saturating_mul(4));
        found.map(|f| f.best).unwrap_or(Move::PASS)
    }

    /// A new game: the table forgets the last one.
    fn reset(&mut self) {
        if let Some(t) = &self.tt {
            t.clear();
        }
    }

    /// Makes the table of `Hash` MB (if it is not there yet) and starts
    /// writing its pages.
    fn prepare(&mut self, _pos: &Hive, options: &OptionValues) {
        self.table(Self::hash_mb(options));
    }

    /// Waits until the table's pages are written.
    fn ready(&mut self) {
        if let Some((h, _)) = self.populating.take() {
            let _ = h.join();
        }
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
        let opts = OptionValues::from_specs(&<Hive as crate::engine::Engine>::options());
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
            let opts = OptionValues::from_specs(&<Hive as crate::engine::Engine>::options());
            let m = choose(&mut AlphaBeta::new(&opts), &g, Some(depth));
            let mut h = g.clone();
            h.play(m);
            assert_eq!(h.outcome(), Some(Outcome::Win(1)), "depth {depth}: {}", g.format_move(m));
        }
    }

    /// Wins in one move (found by `go depth 3` on random games).
    const WIN_IN_ONE: [&str; 2] = [
        r"Base+MLP;InProgress;Black[20];wB1;bP \wB1;wQ wB1\;bB1 -bP;wB2 wQ-;bL \bP;wL \wB2;bQ bP/;wL bQ\;bM \bL;wL \wB2;bB2 bQ/;wS1 wB2\;bA1 -bB1;wS2 wB2/;bA1 /bM;wM wS1-;bM /bB1;wL wS2\;bS1 \bB2;wM wL-;bA1 bB1\;wA1 wM-;bM -wS2;wP /wQ;bM wB1;wA1 wS1\;bG1 \bS1;wA1 bB2-;bS2 bS1/;wG1 wA1\;bG2 -bG1;wM wQ\;bM bA1;wG2 wG1/;bA2 -bL;wA2 wP\;bA2 wG2\;wG3 -wS2",
        r"Base+MLP;InProgress;Black[21];wB1;bP \wB1;wQ wB1\;bB1 -bP;wB2 wQ-;bL \bP;wL \wB2;bQ bP/;wL bQ\;bM \bL;wL \wB2;bB2 bQ/;wS1 wB2\;bA1 -bB1;wS2 wB2/;bA1 /bM;wM wS1-;bM /bB1;wL wS2\;bS1 \bB2;wM wL-;bA1 bB1\;wA1 wM-;bM -wS2;wP /wQ;bM wB1;wA1 wS1\;bG1 \bS1;wA1 bB2-;bS2 bS1/;wG1 wA1\;bG2 -bG1;wM wQ\;bM bA1;wG2 wG1/;bA2 -bL;wA2 wP\;bA2 wG2\;wG3 -wS2;bA2 wS1\;wG1 wG2/",
    ];

    /// Wins in two moves of the side to move.
    const WIN_IN_TWO: [&str; 3] = [
        r"Base+MLP;InProgress;White[13];wS1;bA1 \wS1;wQ wS1-;bL bA1/;wS2 wQ/;bQ -bL;wL wS2\;bB1 bL/;wB1 wL-;bB2 -bQ;wG1 wQ\;bB2 /bQ;wM wB1\;bM \bQ;wB2 /wM;bS1 /bM;wP wB1/;bG1 \bM;wA1 wS2/;bS2 /bB2;wG2 /wB2;bP bG1/;wA1 -bS1;bA2 bP\",
        r"Base+MLP;InProgress;White[46];wP;bS1 -wP;wL wP\;bP -bS1;wA1 wL-;bQ \bP;wQ wA1\;bS2 -bQ;wS1 /wQ;bL \bQ;wS2 wQ\;bM bQ/;wA2 wS2-;bL -bS2;wM wQ/;bA1 bL\;wA3 wM-;bM \bS1;wA3 wA2/;bA1 bS2\;wA3 wA2\;bA2 bA1\;wM /bA2;bQ \wP;wB1 wS1\;bQ -bM;wB1 wS2\;bA3 \bQ;wG1 wM\;bL -bA3;wB2 /wL;bA3 wA3\;wA2 \wA1;bA1 wA3/;wA2 /wB1;bA3 /wM;wB2 wL\;bA1 -bL;wG2 -wA2;bA3 wA1/;wA3 /wL;bA1 wG1-;wG2 wB1\;bA1 bS1\;wA2 \wP;bA3 wB1/;wA3 wQ/;bA1 wG2-;wA3 /wB1;bA1 -bL;wG3 -wA3;bA3 bA2\;wA2 wG2\;bG1 \bL;wA1 -wG3;bA1 wA2\;wM wA3\;bM bP\;wM -bA2;bA1 wQ/;wM bA1/;bM -bA1;wA1 /bA2;bM bQ/;wA1 \bG1;bG2 bM/;wA2 bG1/;bB1 bP\;wA1 wG2/;bA2 /bL;wA2 -bG2;bB2 /bP;wA2 wP/;bA2 /bG1;wA2 bA3\;bG1 /bA2;wM bS2\;bA1 -wG1;wA1 /wG3;bA1 wB1/;wA2 /wS1;bB1 bA3-;wA3 /wM;bA1 -wA2;wA3 -bG2;bB1 bP\;wA3 bA3\;bA1 wB1/;wA1 wA3-;bG3 bA1-",
        r"Base+MLP;InProgress;Black[20];wL;bG1 wL/;wQ wL\;bA1 bG1-;wG1 wQ-;bM \bA1;wB1 wQ\;bQ bA1-;wB1 /wQ;bM wG1-;wS1 /wL;bB1 bQ\;wA1 /wS1;bA1 bB1/;wS2 /wA1;bS1 bA1-;wA2 wA1\;bP \bA1;wA1 bB1\;bG2 \bG1;wG2 wQ\;bQ -bP;wB2 wG2\;bQ \bP;wM /wB2;bL /bP;wP /wS2;bG3 bS1-;wM wB2;bS2 bG3/;wA1 bM\;bA2 \bG2;wA1 -wL;bB2 bS2/;wA1 bA2/;bA3 -bA2;wM /wB2;bA3 wB2-;wA1 -bQ",
    ];

    /// Positions where some move loses at once: the moves before the wins in
    /// one above, and one where a random game lost that way.
    const LOSS_TO_PREVENT: [&str; 7] = [
        r"Base+MLP;InProgress;Black[20];wB1;bP \wB1;wQ wB1\;bB1 -bP;wB2 wQ-;bL \bP;wL \wB2;bQ bP/;wL bQ\;bM \bL;wL \wB2;bB2 bQ/;wS1 wB2\;bA1 -bB1;wS2 wB2/;bA1 /bM;wM wS1-;bM /bB1;wL wS2\;bS1 \bB2;wM wL-;bA1 bB1\;wA1 wM-;bM -wS2;wP /wQ;bM wB1;wA1 wS1\;bG1 \bS1;wA1 bB2-;bS2 bS1/;wG1 wA1\;bG2 -bG1;wM wQ\;bM bA1;wG2 wG1/;bA2 -bL;wA2 wP\;bA2 wG2\",
        r"Base+MLP;InProgress;Black[21];wB1;bP \wB1;wQ wB1\;bB1 -bP;wB2 wQ-;bL \bP;wL \wB2;bQ bP/;wL bQ\;bM \bL;wL \wB2;bB2 bQ/;wS1 wB2\;bA1 -bB1;wS2 wB2/;bA1 /bM;wM wS1-;bM /bB1;wL wS2\;bS1 \bB2;wM wL-;bA1 bB1\;wA1 wM-;bM -wS2;wP /wQ;bM wB1;wA1 wS1\;bG1 \bS1;wA1 bB2-;bS2 bS1/;wG1 wA1\;bG2 -bG1;wM wQ\;bM bA1;wG2 wG1/;bA2 -bL;wA2 wP\;bA2 wG2\;wG3 -wS2;bA2 wS1\",
        r"Base+MLP;InProgress;Black[22];wB1;bP \wB1;wQ wB1\;bB1 -bP;wB2 wQ-;bL \bP;wL \wB2;bQ bP/;wL bQ\;bM \bL;wL \wB2;bB2 bQ/;wS1 wB2\;bA1 -bB1;wS2 wB2/;bA1 /bM;wM wS1-;bM /bB1;wL wS2\;bS1 \bB2;wM wL-;bA1 bB1\;wA1 wM-;bM -wS2;wP /wQ;bM wB1;wA1 wS1\;bG1 \bS1;wA1 bB2-;bS2 bS1/;wG1 wA1\;bG2 -bG1;wM wQ\;bM bA1;wG2 wG1/;bA2 -bL;wA2 wP\;bA2 wG2\;wG3 -wS2;bA2 wS1\;wG1 wG2/;bA2 \bL",
        r"Base+MLP;InProgress;Black[23];wB1;bP \wB1;wQ wB1\;bB1 -bP;wB2 wQ-;bL \bP;wL \wB2;bQ bP/;wL bQ\;bM \bL;wL \wB2;bB2 bQ/;wS1 wB2\;bA1 -bB1;wS2 wB2/;bA1 /bM;wM wS1-;bM /bB1;wL wS2\;bS1 \bB2;wM wL-;bA1 bB1\;wA1 wM-;bM -wS2;wP /wQ;bM wB1;wA1 wS1\;bG1 \bS1;wA1 bB2-;bS2 bS1/;wG1 wA1\;bG2 -bG1;wM wQ\;bM bA1;wG2 wG1/;bA2 -bL;wA2 wP\;bA2 wG2\;wG3 -wS2;bA2 wS1\;wG1 wG2/;bA2 \bL;wA2 /bM;bM wB1",
        r"Base+MLP;InProgress;Black[52];wB1;bP \wB1;wQ wB1\;bB1 -bP;wB2 wQ-;bL \bP;wL \wB2;bQ bP/;wL bQ\;bM \bL;wL \wB2;bB2 bQ/;wS1 wB2\;bA1 -bB1;wS2 wB2/;bA1 /bM;wM wS1-;bM /bB1;wL wS2\;bS1 \bB2;wM wL-;bA1 bB1\;wA1 wM-;bM -wS2;wP /wQ;bM wB1;wA1 wS1\;bG1 \bS1;wA1 bB2-;bS2 bS1/;wG1 wA1\;bG2 -bG1;wM wQ\;bM bA1;wG2 wG1/;bA2 -bL;wA2 wP\;bA2 wG2\;wG3 -wS2;bA2 wS1\;wG1 wG2/;bA2 \bL;wA2 /bM;bM wB1;wS2 wL\;bA2 -wG1;wB2 wG3;bB1 bP;wA2 -wP;bA1 \bS2;wA3 wG1\;bA1 wG2\;wA3 bA1\;bL -bB1;wA2 \bG2;bS2 \wG1;wA3 wL/;bA2 \bL;wA2 /wP;bA3 bA2/;wA3 bS2/;bA3 /bL;wA3 wM\;bA3 bG2\;wA3 bS1/;bA3 bB2\;wA3 wA2\;bA1 -bA2;wA3 \wA1;bA1 bS2/;wA3 -wP;bA3 wA1\;wA3 /bS2;bA2 wM\;wA3 bQ\;bG3 bS1/;wA3 /bS1;bA2 /bS2;wL wS2\;bA3 bG2\;wA3 \bG1;bA1 wS2/;wA2 wP\;bA3 wL\;wA3 bA3/;bA2 /bA3;wA2 bS2/;bA2 wA2/;wA3 bA1-;bA3 bA2\;wA3 \bA2;bA3 wL-;wA3 \bG1;bA3 wB2-;wL bA1-;bA2 wS1\;wA3 \wA2;bA3 -bG2;wA3 /wP;bB1 bQ\;wA3 -bA3;bB1 bL\",
        r"Base+MLP;InProgress;Black[54];wB1;bP \wB1;wQ wB1\;bB1 -bP;wB2 wQ-;bL \bP;wL \wB2;bQ bP/;wL bQ\;bM \bL;wL \wB2;bB2 bQ/;wS1 wB2\;bA1 -bB1;wS2 wB2/;bA1 /bM;wM wS1-;bM /bB1;wL wS2\;bS1 \bB2;wM wL-;bA1 bB1\;wA1 wM-;bM -wS2;wP /wQ;bM wB1;wA1 wS1\;bG1 \bS1;wA1 bB2-;bS2 bS1/;wG1 wA1\;bG2 -bG1;wM wQ\;bM bA1;wG2 wG1/;bA2 -bL;wA2 wP\;bA2 wG2\;wG3 -wS2;bA2 wS1\;wG1 wG2/;bA2 \bL;wA2 /bM;bM wB1;wS2 wL\;bA2 -wG1;wB2 wG3;bB1 bP;wA2 -wP;bA1 \bS2;wA3 wG1\;bA1 wG2\;wA3 bA1\;bL -bB1;wA2 \bG2;bS2 \wG1;wA3 wL/;bA2 \bL;wA2 /wP;bA3 bA2/;wA3 bS2/;bA3 /bL;wA3 wM\;bA3 bG2\;wA3 bS1/;bA3 bB2\;wA3 wA2\;bA1 -bA2;wA3 \wA1;bA1 bS2/;wA3 -wP;bA3 wA1\;wA3 /bS2;bA2 wM\;wA3 bQ\;bG3 bS1/;wA3 /bS1;bA2 /bS2;wL wS2\;bA3 bG2\;wA3 \bG1;bA1 wS2/;wA2 wP\;bA3 wL\;wA3 bA3/;bA2 /bA3;wA2 bS2/;bA2 wA2/;wA3 bA1-;bA3 bA2\;wA3 \bA2;bA3 wL-;wA3 \bG1;bA3 wB2-;wL bA1-;bA2 wS1\;wA3 \wA2;bA3 -bG2;wA3 /wP;bB1 bQ\;wA3 -bA3;bB1 bL\;wA2 bB1\;bA2 bA1\;wA3 wB2-;bA1 /bB1",
        r"Base+MLP;InProgress;White[47];wS1;bA1 \wS1;wQ wS1-;bL bA1/;wS2 wQ/;bQ -bL;wL wS2\;bB1 bL/;wB1 wL-;bB2 -bQ;wG1 wQ\;bB2 /bQ;wM wB1\;bM \bQ;wB2 /wM;bS1 /bM;wP wB1/;bG1 \bM;wA1 wS2/;bS2 /bB2;wG2 /wB2;bP bG1/;wA1 -bS1;bA2 bP\;wA1 wG1\;bS2 /bG1;wL wM\;bA2 -wP;wB2 wA1;bG2 \bB1;wG3 /wG2;bM /bG2;wA2 /wB2;bG3 -bG1;wA3 /wS1;bA3 \bP;wA2 wA3\;bL wS1\;wA2 wG2\;bA3 wP/;wA3 -bG3;bA3 /wA3;wA2 \bA2;bB2 bS1;wB2 /wA1;bA3 bB1/;wA3 wG3\;bA3 /bB2;wA2 -bG3;bA3 -bP;wA2 /bA1;bL /wG1;wA3 \wP;bA3 /wA2;wA3 -bP;bA3 \bP;wA3 wP\;bG3 bB2\;wA2 /bB2;bG3 bG2/;wA2 -bG1;bA3 /bS2;wB2 wA1;bL /wB2;wA2 wP/;bB2 bG1\;wA3 bG3/;bB1 bG3\;wA3 /bL;bA3 /wG1;wA2 /bS1;bA3 wA3\;wA2 /wG1;bB1 bG3-;wA2 wL-;bA3 -bS2;wA2 wS1\;bL /wM;wA3 \wS2;bA2 bS1\;wA2 /wG3;bA2 \bG3;wA3 wP\;bA3 wA3\;wA3 -wS2;bA3 /wS1;wA2 -bA2;bA2 -bS2;wA2 wP/;bB1 bG3/;wA2 -wP;bA3 -bB1",
    ];

    /// True if the side to move can win at once.
    fn wins_in_one(g: &Hive) -> bool {
        let side = g.side();
        g.moves().into_iter().any(|m| {
            let mut h = g.clone();
            h.play(m);
            h.outcome() == Some(Outcome::Win(side))
        })
    }

    /// The tactics suite: each position searched to depth 3 (a second or
    /// less on a release build; the test does not time it).
    #[test]
    fn tactics_suite() {
        let opts = OptionValues::from_specs(&<Hive as crate::engine::Engine>::options());
        for gs in WIN_IN_ONE {
            let g = Hive::from_game_string(gs).unwrap();
            let m = choose(&mut AlphaBeta::new(&opts), &g, Some(3));
            let mut h = g.clone();
            h.play(m);
            assert_eq!(h.outcome(), Some(Outcome::Win(g.side())), "{gs}: {}", g.format_move(m));
        }
        for gs in WIN_IN_TWO {
            let g = Hive::from_game_string(gs).unwrap();
            let m = choose(&mut AlphaBeta::new(&opts), &g, Some(3));
            let mut h = g.clone();
            h.play(m);
            let won = h.outcome() == Some(Outcome::Win(g.side()));
            let forced = h.outcome().is_none()
                && h.moves().into_iter().all(|r| {
                    let mut k = h.clone();
                    k.play(r);
                    k.outcome() == Some(Outcome::Win(g.side())) || (k.outcome().is_none() && wins_in_one(&k))
                });
            assert!(won || forced, "{gs}: {}", g.format_move(m));
        }
        for gs in LOSS_TO_PREVENT {
            let g = Hive::from_game_string(gs).unwrap();
            // Some move loses at once.
            let losing = g.moves().into_iter().any(|m| {
                let mut h = g.clone();
                h.play(m);
                h.outcome().is_none() && wins_in_one(&h)
            });
            assert!(losing, "{gs}");
            let m = choose(&mut AlphaBeta::new(&opts), &g, Some(3));
            let mut h = g.clone();
            h.play(m);
            assert!(h.outcome().is_some() || !wins_in_one(&h), "{gs}: {} loses", g.format_move(m));
        }
    }

    #[test]
    fn skill_zero_plays_legal_moves_and_levels_cap_depth() {
        let g = Hive::from_game_string(MATE_IN_ONE).unwrap();
        let mut opts = OptionValues::from_specs(&<Hive as crate::engine::Engine>::options());
        opts.set("Skill", crate::options::OptionValue::Int(0));
        let m = choose_with(&mut AlphaBeta::new(&opts), &g, Some(4), &opts);
        assert!(g.moves().contains(&m));
        assert_eq!(skill_limits(20), (None, 0));
        assert_eq!(skill_limits(0).0, Some(1));
        assert!(skill_limits(10).1 > skill_limits(15).1);
    }

    fn choose_with(p: &mut dyn Player<Hive>, g: &Hive, depth: Option<u32>, opts: &OptionValues) -> Move {
        let mut rng = StdRng::seed_from_u64(7);
        let mut sink = |_r| {};
        let limits = Limits { depth, ..Limits::default() };
        let mut ctx = SearchCtx::new(limits, opts, &mut rng, StopFlag::new(), &mut sink);
        p.choose(g, &mut ctx)
    }

    #[test]
    fn threads_search_and_agree_on_a_win() {
        let g = Hive::from_game_string(MATE_IN_ONE).unwrap();
        let mut opts = OptionValues::from_specs(&<Hive as crate::engine::Engine>::options());
        opts.set("Threads", crate::options::OptionValue::Int(3));
        opts.set("Hash", crate::options::OptionValue::Int(4));
        let m = choose_with(&mut AlphaBeta::new(&opts), &g, Some(4), &opts);
        let mut h = g.clone();
        h.play(m);
        assert_eq!(h.outcome(), Some(Outcome::Win(1)));
    }

    #[test]
    fn alphabeta_stopped_at_once_still_moves() {
        let g = Hive::from_game_string("Base+MLP;wS1;bP wS1-;wQ -wS1;bQ bP/").unwrap();
        let opts = OptionValues::from_specs(&<Hive as crate::engine::Engine>::options());
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

    /// Two threads split the tree (ABDADA): each puts off moves the
    /// other is searching (a mark stays while its thread is descheduled,
    /// so this holds on a busy machine too), both threads' nodes are
    /// counted, and the search completes its depth with a legal move.
    #[test]
    fn two_threads_put_off_each_others_moves() {
        let g = Hive::from_game_string(crate::games::hive::searchbench::MIDDLE_GAME).unwrap();
        let tt = crate::search::tt::Tt::new(16).unwrap();
        let opts = OptionValues::default();
        let run = |threads: usize| {
            tt.clear();
            let mut rng = StdRng::seed_from_u64(3);
            let mut sink = |_r| {};
            let limits = Limits { depth: Some(6), ..Limits::default() };
            let mut ctx = SearchCtx::new(limits, &opts, &mut rng, StopFlag::new(), &mut sink);
            let settings = Settings { max_depth: 6, threads, prior: g.prior_keys().collect(), noise: 0 };
            let found = pvs::search(&g, &HiveEval, &tt, &mut ctx, &settings).unwrap();
            (found, ctx.nodes)
        };
        let (one, _) = run(1);
        assert_eq!(one.deferred, 0);
        assert_eq!(one.depth, 6);
        let (two, nodes) = run(2);
        assert_eq!(two.depth, 6);
        assert!(g.moves().contains(&two.best));
        if crate::search::usable_threads(2) == 2 {
            assert!(two.deferred > 0, "no move was put off");
            assert!(nodes > 0);
        } else {
            assert_eq!(two.deferred, 0);
        }
    }

    /// When an unfinished iteration proves a later move better than the
    /// last completed one's (one thread, stopped by a node limit, so the
    /// same every run), that move is played, and the last `info` line
    /// names it at the unfinished depth, as a client expects.
    #[test]
    fn a_move_proven_in_an_unfinished_iteration_is_played_and_reported() {
        let g = Hive::from_game_string(r"Base+MLP;InProgress;White[13];wG1;bL -wG1;wL wG1-;bQ \bL;wP \wL;bP /bQ;wQ wL/;bA1 bP\;wA1 wG1\;bA1 wA1\;wA2 \wP;bA2 bP\;wM \wQ;bA2 wM/;wA3 wQ\;bA1 \wA2;wA3 \bQ;bM \bA2;wA1 \bM;bA3 bA2/;wS1 wG1\;bA3 wQ-;wL bA2\;bS1 bA2/").unwrap();
        let tt = crate::search::tt::Tt::new(16).unwrap();
        let opts = OptionValues::default();
        let mut rng = StdRng::seed_from_u64(3);
        let mut reports = Vec::new();
        let mut sink = |r: crate::search::Report| reports.push((r.depth, r.pv, r.score));
        let limits = Limits { nodes: Some(100_000), ..Limits::default() };
        let mut ctx = SearchCtx::new(limits, &opts, &mut rng, StopFlag::new(), &mut sink);
        let settings = Settings { max_depth: 64, threads: 1, prior: g.prior_keys().collect(), noise: 0 };
        let found = pvs::search(&g, &HiveEval, &tt, &mut ctx, &settings).unwrap();
        drop(ctx);
        let [.., (done, done_pv, _), (last, last_pv, score)] = &reports[..] else {
            panic!("too few reports: {reports:?}")
        };
        let played = g.format_move(found.best);
        assert_eq!(*last, done + 1, "the last line is the unfinished depth's");
        assert_ne!(done_pv[0], played, "the completed depth chose another move");
        assert_eq!((last_pv[0].as_str(), *last), (played.as_str(), found.depth));
        // Its value: exact, or a lower bound said as one.
        let v = found.value;
        let said =
            matches!(score, Some(crate::search::Score::Cp(x) | crate::search::Score::CpLower(x)) if *x == v);
        assert!(said, "{score:?} for {v}");
    }

    /// A search of many threads ends on `stop` (each thread watches it)
    /// and starts no more threads than the machine's cores.
    #[test]
    fn many_threads_stop_on_stop() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(crate::search::usable_threads(1000), cores);
        assert_eq!(crate::search::usable_threads(0), 1);
        let g = Hive::from_game_string("Base+MLP;wS1;bP wS1-;wQ -wS1;bQ bP/").unwrap();
        let mut opts = OptionValues::from_specs(&<Hive as crate::engine::Engine>::options());
        opts.set("Threads", crate::options::OptionValue::Int(64));
        opts.set("Hash", crate::options::OptionValue::Int(8));
        let mut rng = StdRng::seed_from_u64(7);
        let mut sink = |_r| {};
        let stop = StopFlag::new();
        let limits = Limits { infinite: true, ..Limits::default() };
        let mut ctx = SearchCtx::new(limits, &opts, &mut rng, stop.clone(), &mut sink);
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stop.stop();
        });
        let m = AlphaBeta::new(&opts).choose(&g, &mut ctx);
        stopper.join().unwrap();
        assert!(g.moves().contains(&m));
    }

    /// The table is kept from game to game and cleared: a new game's
    /// search sees none of the last game's entries.
    #[test]
    fn the_table_is_kept_and_cleared() {
        let g = Hive::from_game_string(MATE_IN_ONE).unwrap();
        let mut opts = OptionValues::from_specs(&<Hive as crate::engine::Engine>::options());
        opts.set("Hash", crate::options::OptionValue::Int(4));
        let mut p = AlphaBeta::new(&opts);
        p.prepare(&g, &opts);
        p.ready();
        let t = p.tt.clone().unwrap();
        assert_eq!(t.megabytes(), 4);
        assert_eq!(t.populated_bytes(), 4 << 20);
        choose_with(&mut p, &g, Some(2), &opts);
        let key = crate::game::Game::hash(&g);
        assert!(t.probe(key).is_some());
        p.reset();
        p.prepare(&g, &opts);
        assert!(Arc::ptr_eq(&t, p.tt.as_ref().unwrap()));
        assert!(t.probe(key).is_none());
    }

    #[test]
    fn random_plays_legal_moves() {
        let g = Hive::from_game_string(MATE_IN_ONE).unwrap();
        let m = choose(&mut Random, &g, None);
        assert!(g.moves().contains(&m));
    }
}
