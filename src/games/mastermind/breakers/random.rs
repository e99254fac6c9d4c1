//! A random code consistent with all the feedback.

use rand::seq::IndexedRandom;

use super::super::code::Code;
use super::super::consistent::Row;
use super::super::spec::Spec;
use super::genetic::Genetic;
use super::{Breaker, Knowledge, StopCheck};
use crate::search::SearchCtx;

#[derive(Default)]
pub struct RandomConsistent {
    know: Knowledge,
}

impl Breaker for RandomConsistent {
    fn guess(&mut self, spec: &Spec, rows: &[Row], ctx: &mut SearchCtx) -> Code {
        let stop = StopCheck::of(ctx);
        match self.know.possible(spec, rows, &stop) {
            Some(set) if !set.is_empty() => *set.choose(ctx.rng).expect("not empty"),
            // Too many codes to list: the genetic search finds consistent
            // ones without listing them.
            _ => {
                let (eligible, fittest) = Genetic::default().eligible(spec, rows, ctx.rng, 1, &stop);
                eligible.choose(ctx.rng).copied().unwrap_or(fittest)
            }
        }
    }
}
