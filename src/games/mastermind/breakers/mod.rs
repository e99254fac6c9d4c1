//! The engine as codebreaker: one module per strategy, and the [`Engine`]
//! player that also answers as codemaker on the maker's turn.

mod genetic;
mod heuristic;
pub mod optimal;
mod random;
pub mod stored;

use std::collections::HashMap;

use super::code::Code;
use std::ops::ControlFlow;

use super::consistent::{Row, for_each_consistent};
use super::maker;
use super::spec::Spec;
use super::{Mastermind, MmMove};
use crate::engine::StrategySpec;
use crate::search::{Player, SearchCtx, StopFlag};

pub use heuristic::{Heuristic, Rule};

/// Variants with more codes than this are never enumerated whole.
pub const ENUM_LIMIT: u64 = 1 << 21;

/// A codebreaking strategy: the next guess after `rows`.
pub trait Breaker: Send {
    fn guess(&mut self, spec: &Spec, rows: &[Row], ctx: &mut SearchCtx) -> Code;
}

/// Every strategy, as the `Strategy` option lists them.
pub fn strategies() -> Vec<StrategySpec<Mastermind>> {
    fn engine(b: Box<dyn Breaker>) -> Box<dyn Player<Mastermind>> {
        Box::new(Engine { breaker: b })
    }
    vec![
        StrategySpec {
            name: "entropy",
            help: "guess that maximises the information (entropy) of the feedback",
            make: |_| engine(Box::new(Heuristic::new(Rule::Entropy))),
        },
        StrategySpec {
            name: "random",
            help: "a random code consistent with all feedback",
            make: |_| engine(Box::new(random::RandomConsistent::default())),
        },
        StrategySpec {
            name: "knuth",
            help: "Knuth's minimax: smallest worst-case class",
            make: |_| engine(Box::new(Heuristic::new(Rule::Knuth))),
        },
        StrategySpec {
            name: "genetic",
            help: "Berghman, Goossens and Leus (2009) genetic algorithm",
            make: |_| engine(Box::new(genetic::Genetic::default())),
        },
        StrategySpec {
            name: "mostparts",
            help: "guess that splits the possible codes into the most classes",
            make: |_| engine(Box::new(Heuristic::new(Rule::MostParts))),
        },
        StrategySpec {
            name: "expected",
            help: "smallest expected number of codes left",
            make: |_| engine(Box::new(Heuristic::new(Rule::Expected))),
        },
        StrategySpec {
            name: "optimal",
            help: "smallest expected number of guesses (exact branch and bound, cached)",
            make: |_| engine(Box::new(optimal::Optimal::default())),
        },
        StrategySpec {
            name: "tree",
            help: "a kept strategy tree found by meeple's search (Mastermind+5x8), played instantly; else optimal",
            make: |_| engine(Box::new(stored::Stored::default())),
        },
    ]
}

/// A strategy as a [`Player`]: guesses on the breaker's turn, answers on
/// the maker's turn.
pub struct Engine {
    breaker: Box<dyn Breaker>,
}

impl Player<Mastermind> for Engine {
    fn choose(&mut self, pos: &Mastermind, ctx: &mut SearchCtx) -> MmMove {
        ctx.nodes += 1;
        match pos.pending() {
            Some(g) => MmMove::Feedback(maker::answer(
                pos.spec(),
                pos.rows(),
                g,
                pos.secret(),
                pos.maker_mode(),
                ctx.rng,
            )),
            None => MmMove::Guess(self.breaker.guess(pos.spec(), pos.rows(), ctx)),
        }
    }
}

/// The codes still possible, kept from one move to the next: the set after
/// each history asked about (up to [`KNOWLEDGE_LIMIT`] codes in all), so a
/// new history is filtered from its longest known prefix (the last move of
/// a game, or a position a benchmark's earlier game passed through).
#[derive(Default)]
pub struct Knowledge {
    spec: Option<Spec>,
    sets: HashMap<Vec<Row>, Vec<Code>>,
    stored: usize,
}

/// Most codes [`Knowledge`] keeps.
pub const KNOWLEDGE_LIMIT: usize = 1 << 22;

impl Knowledge {
    /// The possible codes after `rows`, or `None` if there are too many to
    /// list (or `stop` hit while they were listed afresh).
    pub fn possible(&mut self, spec: &Spec, rows: &[Row], stop: &StopCheck) -> Option<&[Code]> {
        if spec.code_count() > ENUM_LIMIT {
            // Never listed whole: the codes consistent with the rows, if
            // few enough.
            let mut out = Vec::new();
            let mut cut = false;
            for_each_consistent(spec, rows, &mut |c| {
                if out.len() == ENUM_LIMIT as usize || (out.len() % 4096 == 4095 && stop.hit()) {
                    cut = true;
                    return ControlFlow::Break(());
                }
                out.push(c);
                ControlFlow::Continue(())
            });
            self.spec = None;
            self.sets.clear();
            if cut {
                return None;
            }
            self.sets.insert(rows.to_vec(), out);
            return self.sets.get(rows).map(|s| s.as_slice());
        }
        if self.spec != Some(*spec) || self.stored > KNOWLEDGE_LIMIT {
            self.spec = Some(*spec);
            self.sets.clear();
            self.stored = 0;
        }
        if !self.sets.contains_key(rows) {
            let known = (0..rows.len()).rev().find(|&k| self.sets.contains_key(&rows[..k]));
            let (mut k, mut set) = match known {
                Some(k) => (k, self.sets[&rows[..k]].clone()),
                None => (0, spec.all_codes()),
            };
            while k < rows.len() {
                let r = rows[k];
                set.retain(|&c| spec.score(r.guess, c) == r.feedback);
                k += 1;
                self.stored += set.len();
                self.sets.insert(rows[..k].to_vec(), set.clone());
            }
            if rows.is_empty() {
                self.stored += set.len();
                self.sets.insert(Vec::new(), set);
            }
        }
        self.sets.get(rows).map(|s| s.as_slice())
    }
}

/// A fixed first guess of the classic shape: `1123` for 4 pegs, else pairs
/// `11223...`; distinct symbols when repeats are not allowed.
pub fn opener(spec: &Spec) -> Code {
    let p = spec.pegs as usize;
    let n = spec.symbols();
    let pegs: Vec<u8> = if !spec.repeats {
        (0..p as u8).collect()
    } else if p == 4 {
        [0, 0, 1, 2].iter().map(|&k: &u8| k.min(n - 1)).collect()
    } else {
        (0..p).map(|i| ((i / 2) as u8).min(n - 1)).collect()
    };
    Code::from_pegs(&pegs)
}

/// The `Threads` option of a search (1..64).
pub fn threads(ctx: &SearchCtx) -> usize {
    ctx.options.get_int("Threads").unwrap_or(1).clamp(1, 64) as usize
}

/// A `Send + Sync` copy of a search's stop conditions, for inner loops
/// (also on helper threads): true once `stop` arrived, the deadline
/// passed, or (fixed when made) the node budget was already spent.
#[derive(Clone, Debug)]
pub struct StopCheck {
    flag: StopFlag,
    deadline: Option<crate::time::Instant>,
    spent: bool,
}

impl StopCheck {
    pub fn of(ctx: &SearchCtx) -> StopCheck {
        StopCheck {
            flag: ctx.stop_flag().clone(),
            deadline: ctx.remaining().map(|r| crate::time::Instant::now() + r),
            spent: ctx.limits.nodes.is_some_and(|n| ctx.nodes >= n),
        }
    }

    /// Never stops.
    #[cfg(test)]
    pub fn never() -> StopCheck {
        StopCheck { flag: StopFlag::new(), deadline: None, spent: false }
    }

    pub fn hit(&self) -> bool {
        self.spent
            || self.flag.is_stopped()
            || self.deadline.is_some_and(|d| crate::time::Instant::now() >= d)
    }
}

/// Memo of a deterministic strategy's answers, by history.
pub type DecisionCache = HashMap<(Spec, Vec<Row>), Code>;
