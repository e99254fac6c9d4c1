//! One-step look-ahead codebreakers: every candidate guess splits the
//! possible codes into classes by feedback, and a rule scores the split.
//! Ties go to a guess that is still possible, then to the lowest code.
//! Candidates are all codes, one per class of equivalent guesses (see
//! `symmetry.rs`).

use super::super::code::Code;
use super::super::consistent::Row;
use super::super::consistent::first_consistent;
use super::super::spec::Spec;
pub use super::super::split::Rule;
use super::super::split::Splitter;
use super::super::symmetry::Symmetry;
use super::genetic::Genetic;
use super::{Breaker, DecisionCache, Knowledge, StopCheck, opener, threads};
use crate::search::SearchCtx;

/// Candidate guesses are all codes while there are at most this many.
const ALL_GUESSES_LIMIT: u64 = 1 << 16;
/// Entropy opens with the fixed opener on variants of more codes.
const OPENER_ABOVE: u64 = 10_000;
/// Above this many possible codes a split is estimated on a sample.
const SAMPLE_LIMIT: usize = 20_000;

/// The best guess by `rule` for the possible codes `set` (increasing)
/// after `rows`: candidates are every code when the variant is small
/// enough (`all`: true), one per class of equivalent guesses; else a
/// sample of the possible codes. `stop` is polled before each candidate:
/// once it hits, the best candidate scored so far is returned (the first
/// possible code if none was). `threads` share the candidates.
pub fn best_guess(
    spec: &Spec,
    rule: Rule,
    rows: &[Row],
    set: &[Code],
    all: bool,
    threads: usize,
    stop: &StopCheck,
) -> Code {
    if set.len() <= 2 || stop.hit() {
        return set[0];
    }
    let guesses: Vec<Code> = rows.iter().map(|r| r.guess).collect();
    let sym = Symmetry::of_position(spec, &guesses, set);
    let step = set.len().div_ceil(SAMPLE_LIMIT);
    let sample: Vec<Code> = set.iter().copied().step_by(step).collect();
    let splitter = Splitter::new(spec, rule, set, &sample);
    // The possible codes first (often one of them is unbeatable), the
    // other candidates made only if needed.
    let possible: Vec<Code> = if all || set.len() <= 2000 {
        set.iter().copied().filter(|&c| sym.is_canonical(c)).collect()
    } else {
        Vec::new()
    };
    let mut others = || {
        if all {
            sym.representatives(spec)
        } else {
            // Too many codes to try them all: a sample of the possible
            // codes, each replaced by the representative of its class.
            let step = (set.len() / 2000).max(1);
            let mut v: Vec<Code> = set
                .iter()
                .step_by(step)
                .enumerate()
                .take_while(|&(i, _)| i % 64 != 63 || !stop.hit())
                .map(|(_, &c)| sym.canonical(c))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        }
    };
    let stop = || stop.hit();
    let best = splitter.top_lazily(&possible, &mut others, 1, threads, &stop);
    best.first().map_or(set[0], |c| c.code)
}

/// A breaker playing by one [`Rule`], remembering its decisions.
pub struct Heuristic {
    rule: Rule,
    know: Knowledge,
    cache: DecisionCache,
    /// Use the cache of decisions (off to time every move afresh).
    pub use_cache: bool,
}

impl Heuristic {
    pub fn new(rule: Rule) -> Self {
        Heuristic { rule, know: Knowledge::default(), cache: Default::default(), use_cache: true }
    }
}

impl Breaker for Heuristic {
    fn guess(&mut self, spec: &Spec, rows: &[Row], ctx: &mut SearchCtx) -> Code {
        let key = (*spec, rows.to_vec());
        let stop = StopCheck::of(ctx);
        if self.use_cache
            && let Some(&c) = self.cache.get(&key)
        {
            return c;
        }
        let all = spec.code_count() <= ALL_GUESSES_LIMIT;
        let threads = threads(ctx);
        // On large variants entropy opens with the classic opener (11223 on
        // 5 pegs): its own first choice, all symbols different, averages
        // 5.54 guesses on 5x8 against 5.48 with 11223.
        let fixed_opener = rows.is_empty() && self.rule == Rule::Entropy && spec.code_count() > OPENER_ABOVE;
        let g = if fixed_opener {
            opener(spec)
        } else {
            match self.know.possible(spec, rows, &stop) {
                Some([]) => opener(spec),
                Some(set) => best_guess(spec, self.rule, rows, set, all, threads, &stop),
                None if rows.is_empty() => opener(spec),
                // Too many possible codes to list: the rule chooses among
                // consistent codes found by the genetic search.
                None => {
                    let (mut found, fittest) = Genetic::default().eligible(spec, rows, ctx.rng, 1, &stop);
                    found.sort_unstable();
                    match (found.is_empty(), stop.hit()) {
                        (true, true) => fittest,
                        (true, false) => first_consistent(spec, rows).unwrap_or(fittest),
                        (false, _) => best_guess(spec, self.rule, rows, &found, false, threads, &stop),
                    }
                }
            }
        };
        // A guess cut short by `stop` is not the rule's choice: not kept.
        if self.use_cache && !stop.hit() {
            self.cache.insert(key, g);
        }
        g
    }
}
