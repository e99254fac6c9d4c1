//! The engine as codebreaker: one module per strategy, and the [`Engine`]
//! player that also answers as codemaker on the maker's turn.

mod genetic;
mod heuristic;
pub mod optimal;
mod random;

use std::collections::HashMap;

use super::code::Code;
use super::consistent::{Row, consistent_codes, some_consistent};
use super::maker;
use super::spec::Spec;
use super::{Mastermind, MmMove};
use crate::game::StrategySpec;
use crate::search::{Player, SearchCtx};

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
            Some(g) => MmMove::Feedback(maker::answer(pos.spec(), pos.rows(), g, pos.secret())),
            None => MmMove::Guess(self.breaker.guess(pos.spec(), pos.rows(), ctx)),
        }
    }
}

/// The codes still possible, kept from one move to the next (filtered by
/// the new rows only when the history grows).
#[derive(Default)]
pub struct Knowledge {
    spec: Option<Spec>,
    rows: Vec<Row>,
    set: Option<Vec<Code>>,
}

impl Knowledge {
    /// The possible codes after `rows`, or `None` if there are too many to
    /// list.
    pub fn possible(&mut self, spec: &Spec, rows: &[Row]) -> Option<&[Code]> {
        let same = self.spec == Some(*spec) && rows.starts_with(&self.rows) && self.set.is_some();
        if same {
            if let Some(set) = self.set.as_mut() {
                for r in &rows[self.rows.len()..] {
                    set.retain(|&c| spec.score(r.guess, c) == r.feedback);
                }
            }
        } else if spec.code_count() <= ENUM_LIMIT {
            self.set = Some(consistent_codes(spec, rows));
        } else {
            let (v, more) = some_consistent(spec, rows, ENUM_LIMIT as usize);
            self.set = (!more).then_some(v);
        }
        self.spec = Some(*spec);
        self.rows = rows.to_vec();
        self.set.as_deref()
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

/// Memo of a deterministic strategy's answers, by history.
pub type DecisionCache = HashMap<(Spec, Vec<Row>), Code>;
