//! The optimal codebreaker: the strategy with the smallest expected number
//! of guesses (= smallest total over all secrets) within the rows left,
//! found by the exact branch and bound of `exact.rs`.
//!
//! The first guess of a game computes the whole optimal strategy from the
//! start (a tree); every later guess that follows it is read from the tree
//! at once. A position off the tree (a person's own guesses) is solved
//! from its possible codes and remembered the same way. Variants of more
//! than [`SOLVER_LIMIT`] codes, and searches stopped before the solver is
//! done, play the `expected` heuristic instead.

use std::collections::HashMap;
use std::sync::Arc;

use super::super::code::Code;
use super::super::consistent::Row;
use super::super::exact::{Exact, Universe};
use super::super::spec::Spec;
use super::super::tree::Strategy;
use super::heuristic::{Heuristic, Rule};
use super::{Breaker, Knowledge, StopCheck, threads};
use crate::search::SearchCtx;

/// Largest variant the solver takes on (its table has n^2 bytes).
pub const SOLVER_LIMIT: u64 = 4096;

/// The `optimal` strategy.
pub struct Optimal {
    universe: Option<Arc<Universe>>,
    /// Strategies computed so far, by the rows they start after.
    trees: HashMap<Vec<Row>, Strategy>,
    know: Knowledge,
    fallback: Heuristic,
}

impl Default for Optimal {
    fn default() -> Self {
        Optimal {
            universe: None,
            trees: HashMap::new(),
            know: Knowledge::default(),
            fallback: Heuristic::new(Rule::Expected),
        }
    }
}

/// The guess `tree` makes after `rows` (played from its root), if they
/// follow it.
pub fn follow(tree: &Strategy, rows: &[Row]) -> Option<Code> {
    let mut node = tree;
    for r in rows {
        if r.guess != node.guess {
            return None;
        }
        node = node.child(r.feedback)?;
    }
    Some(node.guess)
}

impl Optimal {
    /// The guess of a remembered strategy whose rows start `rows`.
    fn remembered(&self, rows: &[Row]) -> Option<Code> {
        (0..=rows.len()).rev().find_map(|k| self.trees.get(&rows[..k]).and_then(|t| follow(t, &rows[k..])))
    }
}

impl Breaker for Optimal {
    fn guess(&mut self, spec: &Spec, rows: &[Row], ctx: &mut SearchCtx) -> Code {
        if spec.code_count() > SOLVER_LIMIT {
            log::info!("optimal: {spec} is too large for the exact solver; playing 'expected'");
            return self.fallback.guess(spec, rows, ctx);
        }
        if self.universe.as_ref().is_none_or(|u| u.spec != *spec) {
            self.universe = Some(Arc::new(Universe::new(spec)));
            self.trees.clear();
        }
        if let Some(g) = self.remembered(rows) {
            return g;
        }
        let stop = StopCheck::of(ctx);
        let u = self.universe.clone().expect("made above");
        let set: Vec<Code> = match self.know.possible(spec, rows, &stop) {
            Some(s) if !s.is_empty() => s.to_vec(),
            _ => return self.fallback.guess(spec, rows, ctx),
        };
        let history: Vec<Code> = rows.iter().map(|r| r.guess).collect();
        let hash_mb = ctx.options.get_int("Hash").unwrap_or(256).clamp(1, 16384) as usize;
        let left = (spec.rows as usize).saturating_sub(rows.len()).clamp(1, 60) as u8;
        let threads = threads(ctx);
        let stop_fn = || stop.hit();
        let found = Exact::new(u, &set, &history, hash_mb, &stop_fn).and_then(|mut e| {
            let r = e.solve_root(left, super::super::exact::INFEASIBLE, threads, &stop_fn).ok()?;
            let tree = e.strategy(left, &stop_fn)?;
            ctx.nodes += e.nodes;
            Some((r?.0, tree))
        });
        match found {
            Some((total, tree)) => {
                ctx.report_text(format!(
                    "optimal: {} codes possible, {} guesses in total from here (average {:.4})",
                    set.len(),
                    total,
                    total as f64 / set.len() as f64
                ));
                let g = tree.guess;
                self.trees.insert(rows.to_vec(), tree);
                g
            }
            None => {
                log::info!("optimal: stopped, or no strategy fits in the rows left; playing 'expected'");
                self.fallback.guess(spec, rows, ctx)
            }
        }
    }
}
