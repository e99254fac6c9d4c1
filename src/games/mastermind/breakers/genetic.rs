//! The genetic codebreaker of Berghman, Goossens and Leus (2009).
//!
//! Each turn a population of 150 codes evolves for at most 100 generations
//! (stopping early once 60 distinct eligible codes, i.e. consistent with
//! every row, have been seen). Fitness of a code (lower is better):
//! `a * sum |black' - black| + sum |white' - white|` over the rows, with
//! a = 1 (the paper's constant term `b * p * (turn - 1)` is the same for
//! every code of a turn and is left out). Children come from 1-point or
//! 2-point crossover (probability 0.5 each) of two parents picked by binary
//! tournament, then mutation (0.03, one peg to a random symbol),
//! permutation (0.03, two pegs swapped) and inversion (0.02, a substring
//! reversed); duplicates (and codes with repeats when the variant has none)
//! are replaced by random codes. The guess played is the eligible code
//! that, with the eligible set taken as the possible secrets, leaves the
//! fewest eligible codes on average (ties to the lowest). First guess: the
//! fixed opener (`1123` on 4 pegs).
//!
//! With `Threads` N > 1 the search runs as N islands at once, each with its
//! own population, a 1/N share of the generations and of the eligible codes
//! kept; the guess is picked from the union. The same work in about 1/N of
//! the wall time.

use std::collections::HashSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::super::Mastermind;
use super::super::code::{Code, score_packed};
use super::super::consistent::Row;
use super::super::spec::Spec;
use super::{Breaker, StopCheck, opener, threads};
use crate::search::SearchCtx;

pub struct Genetic {
    pub population: usize,
    pub generations: usize,
    pub max_eligible: usize,
}

impl Default for Genetic {
    fn default() -> Self {
        Genetic { population: 150, generations: 100, max_eligible: 60 }
    }
}

/// When no eligible code has turned up after this many generations, the
/// search goes on only this far before giving up.
const HARD_GENERATIONS: usize = 2000;

struct Fitness {
    pegs: u8,
    rows: Vec<(u32, u128, u8, u8)>,
}

impl Fitness {
    fn of(&self, spec: &Spec, c: Code) -> u32 {
        let cm = spec.multiset(c);
        let p1 = self.pegs + 1;
        self.rows
            .iter()
            .map(|&(g, gm, b, w)| {
                let f = score_packed(self.pegs, g, gm, c.0, cm);
                let (fb, fw) = (f / p1, f % p1);
                (fb.abs_diff(b) + fw.abs_diff(w)) as u32
            })
            .sum()
    }
}

/// A random code not in `taken` when one turns up in a bounded number of
/// draws, else any random code (a duplicate only costs diversity). The
/// population never exceeds the number of codes, so on tiny variants a free
/// code is usually found; the bound is what makes the loop finish.
fn fresh_code(spec: &Spec, taken: &HashSet<Code>, rng: &mut StdRng) -> Code {
    let mut c = Mastermind::random_code(spec, rng);
    for _ in 0..64 {
        if !taken.contains(&c) {
            break;
        }
        c = Mastermind::random_code(spec, rng);
    }
    c
}

fn tournament(pop: &[Code], fit: &[u32], rng: &mut StdRng) -> Code {
    let i = rng.random_range(0..pop.len());
    let j = rng.random_range(0..pop.len());
    if fit[i] <= fit[j] { pop[i] } else { pop[j] }
}

impl Genetic {
    /// Evolves populations until `want` or more eligible codes (at most
    /// `max_eligible` are kept) are found, the generations run out or
    /// `stop` says so (checked every generation). Also returns the fittest
    /// code seen, a sound guess when no eligible one turned up.
    pub fn eligible(
        &self,
        spec: &Spec,
        rows: &[Row],
        rng: &mut StdRng,
        want: usize,
        stop: &StopCheck,
    ) -> (Vec<Code>, Code) {
        let p = spec.pegs as usize;
        let fitness = Fitness {
            pegs: spec.pegs,
            rows: rows
                .iter()
                .map(|r| (r.guess.0, spec.multiset(r.guess), r.feedback.black, r.feedback.white))
                .collect(),
        };
        // Tiny variants have fewer codes than the population.
        let size = self.population.min(spec.code_count().min(1 << 20) as usize);
        let mut pop: Vec<Code> = (0..size).map(|_| Mastermind::random_code(spec, rng)).collect();
        let mut eligible: Vec<Code> = Vec::new();
        let mut seen: HashSet<Code> = HashSet::new();
        let mut fit = vec![0u32; pop.len()];
        let mut fittest = (u32::MAX, pop[0]);
        for generation in 0.. {
            for (f, &c) in fit.iter_mut().zip(&pop) {
                *f = fitness.of(spec, c);
                if *f < fittest.0 {
                    fittest = (*f, c);
                }
                if *f == 0 && eligible.len() < self.max_eligible && seen.insert(c) {
                    eligible.push(c);
                }
            }
            let enough = eligible.len() >= want.min(self.max_eligible).max(1);
            if eligible.len() >= self.max_eligible
                || (generation + 1 >= self.generations && enough)
                || generation >= HARD_GENERATIONS
                || stop.hit()
            {
                break;
            }
            let mut next: Vec<Code> = Vec::with_capacity(pop.len());
            let mut in_next: HashSet<Code> = HashSet::with_capacity(pop.len());
            while next.len() < pop.len() {
                let a = tournament(&pop, &fit, rng).pegs(spec.pegs);
                let b = tournament(&pop, &fit, rng).pegs(spec.pegs);
                let (mut x, mut y) = (a.clone(), b.clone());
                if p > 1 {
                    let (lo, hi) = if rng.random_bool(0.5) {
                        (rng.random_range(1..p), p)
                    } else {
                        let i = rng.random_range(1..p);
                        let j = rng.random_range(1..p);
                        (i.min(j), i.max(j))
                    };
                    x[lo..hi].copy_from_slice(&b[lo..hi]);
                    y[lo..hi].copy_from_slice(&a[lo..hi]);
                }
                for mut child in [x, y] {
                    // Children come in pairs: the second of the last pair
                    // may find the population full (and, when the variant
                    // has no more codes than the population, no code left
                    // to replace a duplicate with).
                    if next.len() >= pop.len() {
                        break;
                    }
                    if rng.random_bool(0.03) {
                        let i = rng.random_range(0..p);
                        child[i] = rng.random_range(0..spec.symbols());
                    }
                    if rng.random_bool(0.03) {
                        let i = rng.random_range(0..p);
                        let j = rng.random_range(0..p);
                        child.swap(i, j);
                    }
                    if rng.random_bool(0.02) {
                        let i = rng.random_range(0..p);
                        let j = rng.random_range(0..p);
                        child[i.min(j)..=i.max(j)].reverse();
                    }
                    let c = Code::from_pegs(&child);
                    let c = if spec.is_code(c) && !in_next.contains(&c) {
                        c
                    } else {
                        fresh_code(spec, &in_next, rng)
                    };
                    in_next.insert(c);
                    next.push(c);
                }
            }
            pop = next;
        }
        (eligible, fittest.1)
    }

    /// `eligible` on `islands` threads at once, each island with its own
    /// population seeded from `rng`, a share of the generations and of the
    /// codes kept: the union, at most `max_eligible` codes, in island order.
    pub fn eligible_on_islands(
        &self,
        spec: &Spec,
        rows: &[Row],
        rng: &mut StdRng,
        islands: usize,
        stop: &StopCheck,
    ) -> (Vec<Code>, Code) {
        let islands = islands.clamp(1, self.max_eligible.max(1));
        if islands == 1 {
            return self.eligible(spec, rows, rng, 1, stop);
        }
        let island = Genetic {
            population: self.population,
            generations: self.generations.div_ceil(islands),
            max_eligible: self.max_eligible.div_ceil(islands),
        };
        let seeds: Vec<u64> = (0..islands).map(|_| rng.random()).collect();
        let found: Vec<(Vec<Code>, Code)> = crate::threads::scope(|scope| {
            let island = &island;
            let runs: Vec<_> = seeds
                .iter()
                .map(|&seed| {
                    scope
                        .spawn(move || island.eligible(spec, rows, &mut StdRng::seed_from_u64(seed), 1, stop))
                })
                .collect();
            runs.into_iter().map(|r| r.join().expect("a genetic island panicked")).collect()
        });
        let fittest = found[0].1;
        let mut seen: HashSet<Code> = HashSet::new();
        let eligible =
            found.into_iter().flat_map(|f| f.0).filter(|c| seen.insert(*c)).take(self.max_eligible).collect();
        (eligible, fittest)
    }

    /// The eligible code leaving the fewest eligible codes on average.
    pub fn pick(spec: &Spec, eligible: &[Code]) -> Option<Code> {
        let ms: Vec<u128> = eligible.iter().map(|&c| spec.multiset(c)).collect();
        let mut counts = vec![0u32; spec.feedback_slots()];
        let mut best: Option<(u64, Code)> = None;
        for (i, &g) in eligible.iter().enumerate() {
            counts.iter_mut().for_each(|c| *c = 0);
            for (j, &c) in eligible.iter().enumerate() {
                counts[score_packed(spec.pegs, g.0, ms[i], c.0, ms[j]) as usize] += 1;
            }
            let cost: u64 = counts.iter().map(|&n| n as u64 * n as u64).sum();
            if best.is_none_or(|(b, bc)| cost < b || (cost == b && g < bc)) {
                best = Some((cost, g));
            }
        }
        best.map(|b| b.1)
    }
}

impl Breaker for Genetic {
    fn guess(&mut self, spec: &Spec, rows: &[Row], ctx: &mut SearchCtx) -> Code {
        if rows.is_empty() {
            return opener(spec);
        }
        let stop = StopCheck::of(ctx);
        let (eligible, fittest) = self.eligible_on_islands(spec, rows, ctx.rng, threads(ctx), &stop);
        ctx.nodes += eligible.len() as u64;
        Genetic::pick(spec, &eligible).unwrap_or_else(|| {
            // Stopped before any code fitted every row: the fittest code
            // seen; otherwise the search gave up and the first consistent
            // code is found by enumeration.
            match stop.hit() {
                true => fittest,
                false => super::super::consistent::first_consistent(spec, rows).unwrap_or(fittest),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::options::OptionValues;
    use crate::search::{Limits, StopFlag};

    /// Random rows answered truthfully for a random secret.
    fn position(spec: &Spec, rng: &mut StdRng, rows: usize) -> Vec<Row> {
        let secret = Mastermind::random_code(spec, rng);
        (0..rows)
            .map(|_| {
                let g = Mastermind::random_code(spec, rng);
                Row { guess: g, feedback: spec.score(g, secret) }
            })
            .collect()
    }

    /// Issue 10 item 1: the refill of the population never finished when
    /// the variant had an odd number of codes, no more than the population.
    #[test]
    fn finishes_on_every_small_variant() {
        let variants = [
            "Mastermind+4x3",
            "Mastermind+3x3",
            "Mastermind+2x5",
            "Mastermind+3x5",
            "Mastermind+2x9",
            "Mastermind+2x4+blanks",
            "Mastermind+1x2",
            "Mastermind+1x3",
            "Mastermind+2x2",
            "Mastermind+3x4+norepeat",
            "Mastermind+2x3+norepeat",
            "Mastermind+5x5",
        ];
        let mut rng = StdRng::seed_from_u64(10);
        for v in variants {
            let spec: Spec = v.parse().unwrap();
            for _ in 0..20 {
                let n = rng.random_range(0..4);
                let rows = position(&spec, &mut rng, n);
                let (found, fittest) =
                    Genetic::default().eligible(&spec, &rows, &mut rng, 1, &StopCheck::never());
                assert!(spec.is_code(fittest), "{v}");
                for c in &found {
                    assert!(rows.iter().all(|r| spec.score(r.guess, *c) == r.feedback), "{v}: {c:?}");
                }
                // A consistent code always exists (the secret): found.
                assert!(!found.is_empty(), "{v} {rows:?}");
            }
        }
    }

    /// Islands (Threads 2 and 3) find only consistent codes, at most
    /// `max_eligible` of them, distinct, and always at least one.
    #[test]
    fn islands_find_consistent_codes() {
        let mut rng = StdRng::seed_from_u64(12);
        for v in ["Mastermind", "Mastermind+5x8", "Mastermind+3x4+norepeat", "Mastermind+2x2"] {
            let spec: Spec = v.parse().unwrap();
            for islands in [2, 3] {
                for _ in 0..5 {
                    let n = rng.random_range(1..4);
                    let rows = position(&spec, &mut rng, n);
                    let g = Genetic::default();
                    let (found, fittest) =
                        g.eligible_on_islands(&spec, &rows, &mut rng, islands, &StopCheck::never());
                    assert!(spec.is_code(fittest), "{v}");
                    assert!(!found.is_empty() && found.len() <= g.max_eligible, "{v}: {}", found.len());
                    let distinct: HashSet<Code> = found.iter().copied().collect();
                    assert_eq!(distinct.len(), found.len(), "{v}");
                    for c in &found {
                        assert!(rows.iter().all(|r| spec.score(r.guess, *c) == r.feedback), "{v}: {c:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_stopped_search_still_gives_a_code() {
        let spec: Spec = "Mastermind+8x10".parse().unwrap();
        let mut rng = StdRng::seed_from_u64(3);
        let rows = position(&spec, &mut rng, 3);
        let flag = StopFlag::new();
        flag.stop();
        let options = OptionValues::default();
        let mut report = |_| {};
        let mut ctx = SearchCtx::new(Limits::default(), &options, &mut rng, flag, &mut report);
        let g = Genetic::default().guess(&spec, &rows, &mut ctx);
        assert!(spec.is_code(g));
    }
}
