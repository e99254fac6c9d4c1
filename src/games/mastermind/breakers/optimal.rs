//! The optimal codebreaker: the strategy with the smallest expected number
//! of guesses (= smallest total over all secrets), found by an exact branch
//! and bound of our own, with these reductions:
//!
//! 1. a precomputed feedback table (codes x codes bytes);
//! 2. one guess per class of equivalent guesses (`symmetry.rs`: unused
//!    symbols, absent symbols, position permutations fixing the history);
//! 3. the singleton-split shortcut: a possible guess that splits the set
//!    into singletons costs `2n - 1`, the least any guess can;
//! 4. lower bounds: with K non-winning feedbacks at most `K^(d-1)` codes are
//!    found at depth d; a guess is bounded by `n + sum of its classes'
//!    bounds`, candidates are tried in bound order and the loop stops when
//!    the bound reaches the best cost found;
//! 5. the largest class is solved first, with the remaining budget passed
//!    down; a class that cannot beat its budget ends the candidate.
//!
//! Every solved set is cached (its cost and best guess, or a proven lower
//! bound), so once the first move is computed the later ones are instant.
//! The row limit is ignored (the optimum of the classic game needs 6).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::super::code::Code;
use super::super::consistent::Row;
use super::super::spec::Spec;
use super::super::symmetry::Symmetry;
use super::heuristic::{Heuristic, Rule};
use super::{Breaker, Knowledge};
use crate::search::SearchCtx;

/// Largest variant the solver takes on (the table has n^2 bytes).
pub const SOLVER_LIMIT: u64 = 4096;

/// A fast hasher for the cache keys (sets of code indices).
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_usize(&mut self, v: usize) {
        self.0 = (self.0.rotate_left(5) ^ v as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Clone, Copy, Debug)]
enum Entry {
    /// Optimal total and a best guess (index).
    Exact(u32, u16),
    /// The total is at least this.
    Lower(u32),
}

/// Branch and bound over one variant.
pub struct Solver {
    spec: Spec,
    codes: Vec<Code>,
    n: usize,
    table: Vec<u8>,
    win: u8,
    slots: usize,
    lb: Vec<u32>,
    cache: HashMap<Vec<u16>, Entry, BuildHasherDefault<FxHasher>>,
    history: Vec<Code>,
    /// Search nodes (sets expanded).
    pub nodes: u64,
    aborted: bool,
}

impl Solver {
    /// `None` if the variant has more than [`SOLVER_LIMIT`] codes.
    pub fn new(spec: &Spec) -> Option<Solver> {
        if spec.code_count() > SOLVER_LIMIT {
            return None;
        }
        let codes = spec.all_codes();
        let n = codes.len();
        let ms: Vec<u128> = codes.iter().map(|&c| spec.multiset(c)).collect();
        let mut table = vec![0u8; n * n];
        for i in 0..n {
            for j in 0..n {
                table[i * n + j] =
                    super::super::code::score_packed(spec.pegs, codes[i].0, ms[i], codes[j].0, ms[j]);
            }
        }
        let slots = spec.feedback_slots();
        let win = spec.win().index(spec.pegs);
        // K = non-winning feedbacks that occur at all.
        let mut seen = vec![false; slots];
        for &f in &table {
            seen[f as usize] = true;
        }
        let k = seen.iter().filter(|&&s| s).count().saturating_sub(1).max(1) as u64;
        let lb = (0..=n)
            .map(|m| {
                let (mut rem, mut cost, mut level, mut cap) = (m as u64, 0u64, 1u64, 1u64);
                while rem > 0 {
                    let t = rem.min(cap);
                    cost += t * level;
                    rem -= t;
                    level += 1;
                    cap = cap.saturating_mul(k);
                }
                cost as u32
            })
            .collect();
        Some(Solver {
            spec: *spec,
            codes,
            n,
            table,
            win,
            slots,
            lb,
            cache: HashMap::default(),
            history: Vec::new(),
            nodes: 0,
            aborted: false,
        })
    }

    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Index of a code of the variant.
    pub fn index_of(&self, c: Code) -> Option<u16> {
        self.codes.binary_search(&c).ok().map(|i| i as u16)
    }

    pub fn code(&self, i: u16) -> Code {
        self.codes[i as usize]
    }

    /// Optimal total for the possible set `set` (indices, increasing) after
    /// the guesses `history`, and a best guess; `None` if `stop` said so.
    pub fn solve_set(
        &mut self,
        set: &[u16],
        history: &[Code],
        stop: &mut dyn FnMut() -> bool,
    ) -> Option<(u32, u16)> {
        match set.len() {
            0 => return None,
            1 => return Some((1, set[0])),
            2 => return Some((3, set[0])),
            _ => {}
        }
        self.history = history.to_vec();
        self.aborted = false;
        let r = self.solve(set, u32::MAX, stop);
        if self.aborted {
            return None;
        }
        match (r, self.cache.get(set)) {
            (Ok(v), Some(Entry::Exact(_, g))) => Some((v, *g)),
            _ => None,
        }
    }

    /// Optimal total of the whole game.
    #[cfg(test)]
    pub fn solve_all(&mut self, stop: &mut dyn FnMut() -> bool) -> Option<(u32, Code)> {
        let all: Vec<u16> = (0..self.n as u16).collect();
        self.solve_set(&all, &[], stop).map(|(v, g)| (v, self.code(g)))
    }

    /// `Ok(total)` if the optimum is below `budget`, else `Err(bound)` with
    /// the optimum >= bound >= budget.
    fn solve(&mut self, set: &[u16], budget: u32, stop: &mut dyn FnMut() -> bool) -> Result<u32, u32> {
        let n = set.len();
        let floor = match n {
            1 => 1,
            2 => 3,
            _ => 2 * n as u32 - 1,
        };
        if n <= 2 || budget <= floor {
            return if floor < budget { Ok(floor) } else { Err(floor) };
        }
        match self.cache.get(set) {
            Some(&Entry::Exact(v, _)) => return if v < budget { Ok(v) } else { Err(v) },
            Some(&Entry::Lower(l)) if l >= budget => return Err(l),
            _ => {}
        }
        self.nodes += 1;
        if self.nodes.is_multiple_of(1024) && stop() {
            self.aborted = true;
        }
        if self.aborted {
            return Err(budget);
        }
        let slots = self.slots;
        let mut counts = vec![0u32; slots];
        // Singleton split by a possible code: optimal.
        for &g in set {
            counts.iter_mut().for_each(|c| *c = 0);
            let row = &self.table[g as usize * self.n..(g as usize + 1) * self.n];
            if set.iter().all(|&s| {
                let f = row[s as usize] as usize;
                counts[f] += 1;
                counts[f] == 1
            }) {
                self.cache.insert(set.to_vec(), Entry::Exact(floor, g));
                return Ok(floor);
            }
        }
        // Candidates with their bounds.
        let present: Vec<Code> = set.iter().map(|&i| self.codes[i as usize]).collect();
        let sym = Symmetry::of_position(&self.spec, &self.history, &present);
        let mut cands: Vec<(u32, u16)> = Vec::new();
        let n32 = n as u32;
        for g in 0..self.n {
            if !sym.is_trivial() && !sym.is_canonical(self.codes[g]) {
                continue;
            }
            counts.iter_mut().for_each(|c| *c = 0);
            let row = &self.table[g * self.n..(g + 1) * self.n];
            for &s in set {
                counts[row[s as usize] as usize] += 1;
            }
            let in_set = counts[self.win as usize] == 1;
            if counts.iter().all(|&c| c <= 1) {
                // Singletons by an impossible code: 2n, the least left.
                let v = 2 * n32;
                let r = if v < budget { Ok(v) } else { Err(v) };
                self.cache.insert(set.to_vec(), Entry::Exact(v, g as u16));
                return r;
            }
            if counts.iter().any(|&c| c as usize == n) {
                continue; // learns nothing
            }
            let bound: u32 = n32
                + counts
                    .iter()
                    .enumerate()
                    .filter(|&(f, _)| f != self.win as usize)
                    .map(|(_, &c)| self.lb[c as usize])
                    .sum::<u32>();
            if bound < budget {
                cands.push((bound * 2 + !in_set as u32, g as u16));
            }
        }
        cands.sort_unstable();
        let mut best = budget;
        let mut best_g = None;
        let mut classes: Vec<Vec<u16>> = vec![Vec::new(); slots];
        for &(key, g) in &cands {
            let bound = key / 2;
            if bound >= best {
                break;
            }
            for c in classes.iter_mut() {
                c.clear();
            }
            let row = &self.table[g as usize * self.n..(g as usize + 1) * self.n];
            for &s in set {
                classes[row[s as usize] as usize].push(s);
            }
            let mut order: Vec<usize> =
                (0..slots).filter(|&f| f != self.win as usize && classes[f].len() >= 3).collect();
            order.sort_unstable_by_key(|&f| std::cmp::Reverse(classes[f].len()));
            let mut total = bound;
            let mut ok = true;
            self.history.push(self.codes[g as usize]);
            for f in order {
                let class = std::mem::take(&mut classes[f]);
                let lbc = self.lb[class.len()];
                let sub = best - (total - lbc);
                let r = self.solve(&class, sub, stop);
                classes[f] = class;
                match r {
                    Ok(v) => total = total - lbc + v,
                    Err(_) => {
                        ok = false;
                        break;
                    }
                }
            }
            self.history.pop();
            if self.aborted {
                return Err(budget);
            }
            if ok && total < best {
                best = total;
                best_g = Some(g);
            }
        }
        match best_g {
            Some(g) => {
                self.cache.insert(set.to_vec(), Entry::Exact(best, g));
                Ok(best)
            }
            None => {
                let e = self.cache.entry(set.to_vec()).or_insert(Entry::Lower(budget));
                if let Entry::Lower(l) = e {
                    *l = (*l).max(budget);
                }
                Err(budget)
            }
        }
    }
}

/// The `optimal` strategy: the solver's guesses, or the `expected`
/// heuristic on variants too large for it (or when stopped).
pub struct Optimal {
    solver: Option<Solver>,
    know: Knowledge,
    fallback: Heuristic,
}

impl Default for Optimal {
    fn default() -> Self {
        Optimal { solver: None, know: Knowledge::default(), fallback: Heuristic::new(Rule::Expected) }
    }
}

impl Breaker for Optimal {
    fn guess(&mut self, spec: &Spec, rows: &[Row], ctx: &mut SearchCtx) -> Code {
        if self.solver.as_ref().is_none_or(|s| s.spec() != spec) {
            self.solver = Solver::new(spec);
            if self.solver.is_none() {
                log::info!("optimal: {spec} is too large for the exact solver; playing 'expected'");
            }
        }
        let Some(solver) = self.solver.as_mut() else {
            return self.fallback.guess(spec, rows, ctx);
        };
        let set: Vec<u16> = match self.know.possible(spec, rows) {
            Some(s) => s.iter().filter_map(|&c| solver.index_of(c)).collect(),
            None => Vec::new(),
        };
        let history: Vec<Code> = rows.iter().map(|r| r.guess).collect();
        let before = solver.nodes;
        let found = {
            let mut stop = || ctx.should_stop();
            solver.solve_set(&set, &history, &mut stop)
        };
        ctx.nodes += solver.nodes - before;
        match found {
            Some((total, g)) => {
                let text = format!(
                    "optimal: {} codes possible, {} guesses in total from here (average {:.4})",
                    set.len(),
                    total,
                    total as f64 / set.len() as f64
                );
                ctx.report_text(text);
                solver.code(g)
            }
            None => {
                log::info!("optimal: stopped or no code fits; playing 'expected'");
                self.fallback.guess(spec, rows, ctx)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn optimum(t: &str) -> (u32, String) {
        let spec: Spec = t.parse().unwrap();
        let mut s = Solver::new(&spec).unwrap();
        let (v, g) = s.solve_all(&mut || false).unwrap();
        (v, spec.code_text(g).to_string())
    }

    #[test]
    fn known_optima_on_small_sizes() {
        assert_eq!(optimum("Mastermind+3x4").0, 206);
        assert_eq!(optimum("Mastermind+3x5").0, 451);
        assert_eq!(optimum("Mastermind+4x4").0, 905);
        assert_eq!(optimum("Mastermind+2x6").0, 132);
        // Tiny cases checkable by hand: 1 peg x 3 symbols = 1 + 2 + 3.
        assert_eq!(optimum("Mastermind+1x3").0, 6);
        // 2 pegs x 2 symbols: 11 leaves {12, 21} together and 12 leaves
        // {11, 22}: 4 + 3 + 1 either way, the lower guess kept.
        assert_eq!(optimum("Mastermind+2x2"), (8, "11".to_string()));
    }

    #[test]
    fn lower_bounds_are_below_optima() {
        let spec: Spec = "Mastermind+3x4".parse().unwrap();
        let mut s = Solver::new(&spec).unwrap();
        let (v, _) = s.solve_all(&mut || false).unwrap();
        assert!(s.lb[64] <= v);
        assert_eq!(s.lb[1], 1);
        assert_eq!(s.lb[2], 3);
    }
}
