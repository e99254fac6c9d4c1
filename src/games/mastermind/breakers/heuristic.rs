//! One-step look-ahead codebreakers: every candidate guess splits the
//! possible codes into classes by feedback, and a rule scores the split.
//! Ties go to a guess that is still possible, then to the lowest code.
//! Candidates are all codes, one per class of equivalent guesses (see
//! `symmetry.rs`).

use super::super::code::{Code, score_narrow, score_packed};
use super::super::consistent::Row;
use super::super::consistent::first_consistent;
use super::super::spec::Spec;
use super::super::symmetry::Symmetry;
use super::genetic::Genetic;
use super::{Breaker, DecisionCache, Knowledge, StopCheck, opener};
use crate::search::SearchCtx;

/// How a split is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Knuth: smallest largest class.
    Knuth,
    /// Kooi: most classes.
    MostParts,
    /// Most information: smallest sum of n ln n.
    Entropy,
    /// Irving: smallest expected class size (sum of n squared).
    Expected,
}

impl Rule {
    /// Lower is better.
    fn cost(self, counts: &[u32]) -> f64 {
        match self {
            Rule::Knuth => counts.iter().copied().max().unwrap_or(0) as f64,
            Rule::MostParts => -(counts.iter().filter(|&&n| n > 0).count() as f64),
            Rule::Entropy => counts.iter().filter(|&&n| n > 1).map(|&n| n as f64 * (n as f64).ln()).sum(),
            Rule::Expected => counts.iter().map(|&n| (n as u64 * n as u64) as f64).sum(),
        }
    }
}

/// Candidate guesses are all codes while there are at most this many.
const ALL_GUESSES_LIMIT: u64 = 1 << 16;
/// Entropy opens with the fixed opener on variants of more codes.
const OPENER_ABOVE: u64 = 10_000;
/// Above this many possible codes a split is estimated on a sample.
const SAMPLE_LIMIT: usize = 20_000;

/// The best guess by `rule` for the possible codes `set` after `rows`,
/// with `universe` = every code when small enough. `stop` is polled before
/// each candidate: once it hits, the best candidate scored so far is
/// returned (the first possible code if none was).
pub fn best_guess(
    spec: &Spec,
    rule: Rule,
    rows: &[Row],
    set: &[Code],
    universe: Option<&[Code]>,
    stop: &StopCheck,
) -> Code {
    if set.len() <= 2 || stop.hit() {
        return set[0];
    }
    let guesses: Vec<Code> = rows.iter().map(|r| r.guess).collect();
    let sym = Symmetry::of_position(spec, &guesses, set);
    // Listing the candidates can take a while too: `stop` is polled.
    let going = |i: usize| i % 64 != 63 || !stop.hit();
    let candidates = match universe {
        Some(u) if sym.is_trivial() => u.to_vec(),
        Some(u) => u
            .iter()
            .enumerate()
            .take_while(|&(i, _)| going(i))
            .map(|(_, &c)| c)
            .filter(|&c| sym.is_canonical(c))
            .collect(),
        None => {
            // Too many codes to try them all: a sample of the possible
            // codes, each replaced by the representative of its class.
            let step = (set.len() / 2000).max(1);
            let mut v: Vec<Code> = set
                .iter()
                .step_by(step)
                .enumerate()
                .take_while(|&(i, _)| going(i))
                .map(|(_, &c)| sym.canonical(c))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        }
    };
    let step = set.len().div_ceil(SAMPLE_LIMIT);
    let sample: Vec<Code> = set.iter().copied().step_by(step).collect();
    let codes: Vec<u32> = sample.iter().map(|c| c.0).collect();
    let narrow = spec.pegs as u32 * spec.symbols() as u32 <= 64;
    let wide: Vec<u128> =
        if narrow { Vec::new() } else { sample.iter().map(|&c| spec.multiset(c)).collect() };
    let ms: Vec<u64> =
        if narrow { sample.iter().map(|&c| spec.multiset(c) as u64).collect() } else { Vec::new() };
    // `set` is in increasing order.
    let in_set = |c: Code| set.binary_search(&c).is_ok();
    let p = spec.pegs;
    let evaluate = |cands: &[Code]| -> Option<Choice> {
        let mut counts = vec![0u32; spec.feedback_slots()];
        let mut best: Option<Choice> = None;
        for &g in cands {
            if stop.hit() {
                break;
            }
            counts.iter_mut().for_each(|c| *c = 0);
            let gm = spec.multiset(g);
            if narrow {
                let gm = gm as u64;
                for (&c, &cm) in codes.iter().zip(&ms) {
                    counts[score_narrow(p, g.0, gm, c, cm) as usize] += 1;
                }
            } else {
                for (&c, &cm) in codes.iter().zip(&wide) {
                    counts[score_packed(p, g.0, gm, c, cm) as usize] += 1;
                }
            }
            let choice = Choice { cost: rule.cost(&counts), possible: in_set(g), code: g };
            if best.as_ref().is_none_or(|b| choice.better_than(b)) {
                best = Some(choice);
            }
        }
        best
    };
    // Large splits are shared between two threads.
    let best = if candidates.len() * codes.len() >= PARALLEL_WORK && candidates.len() >= 2 {
        let (a, b) = candidates.split_at(candidates.len() / 2);
        let (ra, rb) = std::thread::scope(|scope| {
            let h = scope.spawn(|| evaluate(b));
            let ra = evaluate(a);
            (ra, h.join().ok().flatten())
        });
        match (ra, rb) {
            (Some(x), Some(y)) => Some(if y.better_than(&x) { y } else { x }),
            (x, y) => x.or(y),
        }
    } else {
        evaluate(&candidates)
    };
    best.map(|b| b.code).unwrap_or(set[0])
}

/// Splits of at least this many scores use two threads.
const PARALLEL_WORK: usize = 2_000_000;

/// A scored candidate guess.
struct Choice {
    cost: f64,
    possible: bool,
    code: Code,
}

impl Choice {
    /// Lower cost; on a tie a possible code, then the lower code.
    fn better_than(&self, other: &Choice) -> bool {
        if self.cost < other.cost - 1e-9 {
            return true;
        }
        if self.cost > other.cost + 1e-9 {
            return false;
        }
        (self.possible, std::cmp::Reverse(self.code)) > (other.possible, std::cmp::Reverse(other.code))
    }
}

/// A breaker playing by one [`Rule`], remembering its decisions.
pub struct Heuristic {
    rule: Rule,
    know: Knowledge,
    universe: Option<(Spec, Vec<Code>)>,
    cache: DecisionCache,
    /// Use the cache of decisions (off to time every move afresh).
    pub use_cache: bool,
}

impl Heuristic {
    pub fn new(rule: Rule) -> Self {
        Heuristic {
            rule,
            know: Knowledge::default(),
            universe: None,
            cache: Default::default(),
            use_cache: true,
        }
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
        if spec.code_count() <= ALL_GUESSES_LIMIT && self.universe.as_ref().is_none_or(|u| u.0 != *spec) {
            self.universe = Some((*spec, spec.all_codes()));
        }
        let universe = self.universe.as_ref().filter(|u| u.0 == *spec).map(|u| u.1.as_slice());
        // On large variants entropy opens with the classic opener (11223 on
        // 5 pegs): its own first choice, all symbols different, averages
        // 5.54 guesses on 5x8 against 5.48 with 11223.
        let fixed_opener = rows.is_empty() && self.rule == Rule::Entropy && spec.code_count() > OPENER_ABOVE;
        let g = if fixed_opener {
            opener(spec)
        } else {
            match self.know.possible(spec, rows, &stop) {
                Some([]) => opener(spec),
                Some(set) => best_guess(spec, self.rule, rows, set, universe, &stop),
                None if rows.is_empty() => opener(spec),
                // Too many possible codes to list: the rule chooses among
                // consistent codes found by the genetic search.
                None => {
                    let (mut found, fittest) = Genetic::default().eligible(spec, rows, ctx.rng, 1, &stop);
                    found.sort_unstable();
                    match (found.is_empty(), stop.hit()) {
                        (true, true) => fittest,
                        (true, false) => first_consistent(spec, rows).unwrap_or(fittest),
                        (false, _) => best_guess(spec, self.rule, rows, &found, None, &stop),
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
