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

use std::collections::HashSet;

use rand::Rng;
use rand::rngs::StdRng;

use super::super::Mastermind;
use super::super::code::{Code, score_packed};
use super::super::consistent::Row;
use super::super::spec::Spec;
use super::{Breaker, opener};
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

fn tournament(pop: &[Code], fit: &[u32], rng: &mut StdRng) -> Code {
    let i = rng.random_range(0..pop.len());
    let j = rng.random_range(0..pop.len());
    if fit[i] <= fit[j] { pop[i] } else { pop[j] }
}

impl Genetic {
    /// Evolves populations until `want` or more eligible codes (at most
    /// `max_eligible` are kept) are found or the generations run out.
    pub fn eligible(&self, spec: &Spec, rows: &[Row], rng: &mut StdRng, want: usize) -> Vec<Code> {
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
        for generation in 0.. {
            for (f, &c) in fit.iter_mut().zip(&pop) {
                *f = fitness.of(spec, c);
                if *f == 0 && eligible.len() < self.max_eligible && seen.insert(c) {
                    eligible.push(c);
                }
            }
            let enough = eligible.len() >= want.min(self.max_eligible).max(1);
            if eligible.len() >= self.max_eligible
                || (generation + 1 >= self.generations && enough)
                || generation >= HARD_GENERATIONS
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
                    let mut c = Code::from_pegs(&child);
                    while !spec.is_code(c) || in_next.contains(&c) {
                        c = Mastermind::random_code(spec, rng);
                    }
                    if next.len() < pop.len() {
                        in_next.insert(c);
                        next.push(c);
                    }
                }
            }
            pop = next;
        }
        eligible
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
        let eligible = self.eligible(spec, rows, ctx.rng, 1);
        ctx.nodes += eligible.len() as u64;
        Genetic::pick(spec, &eligible)
            .or_else(|| super::super::consistent::first_consistent(spec, rows))
            .unwrap_or_else(|| opener(spec))
    }
}
