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
use super::{Breaker, Knowledge, StopCheck};
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
    /// Feedback of code i against code j as a dense class number
    /// (`table[i * n + j]`, symmetric).
    table: Vec<u8>,
    /// The same as one bit (`1 << class`), when there are at most 16
    /// classes (4 pegs or fewer): sets are scanned by OR-ing these rows.
    bits: Option<Vec<u16>>,
    win: u8,
    classes: usize,
    /// Largest set taken by the bit scan (where every class bound is
    /// `2m - 1`).
    small: usize,
    lb: Vec<u32>,
    cache: HashMap<Vec<u16>, Entry, BuildHasherDefault<FxHasher>>,
    history: Vec<Code>,
    masks: Vec<u16>,
    /// Bit counts of 16-bit values (the default x86-64 target has no
    /// popcount instruction).
    pop16: Vec<u8>,
    /// Symbols of each code, as a bit set.
    symbols: Vec<u16>,
    /// For a set of forbidden symbols: the codes without them.
    allowed: HashMap<u16, Vec<u16>>,
    /// Class buffers, one set per recursion depth.
    pool: Vec<Vec<Vec<u16>>>,
    /// Search nodes (sets expanded).
    pub nodes: u64,
    aborted: bool,
}

impl Solver {
    /// `None` if the variant has more than [`SOLVER_LIMIT`] codes.
    #[cfg(test)]
    pub fn new(spec: &Spec) -> Option<Solver> {
        Solver::new_until(spec, &mut || false)
    }

    /// [`Solver::new`], or `None` as soon as `stop` says so (polled every
    /// row of the table).
    pub fn new_until(spec: &Spec, stop: &mut dyn FnMut() -> bool) -> Option<Solver> {
        if spec.code_count() > SOLVER_LIMIT {
            return None;
        }
        let codes = spec.all_codes();
        let n = codes.len();
        let ms: Vec<u128> = codes.iter().map(|&c| spec.multiset(c)).collect();
        // Dense class numbers of the feedbacks that occur.
        let slots = spec.feedback_slots();
        let mut raw = vec![0u8; n * n];
        let mut seen = vec![false; slots];
        for i in 0..n {
            if i % 16 == 0 && stop() {
                return None;
            }
            for j in 0..n {
                let f = super::super::code::score_packed(spec.pegs, codes[i].0, ms[i], codes[j].0, ms[j]);
                raw[i * n + j] = f;
                seen[f as usize] = true;
            }
        }
        let mut dense = vec![0u8; slots];
        let mut classes = 0usize;
        for f in 0..slots {
            if seen[f] {
                dense[f] = classes as u8;
                classes += 1;
            }
        }
        // In place, and polled like the loop above (16M entries at most).
        let mut table = raw;
        let mut bits_table: Vec<u16> = if classes <= 16 { vec![0; n * n] } else { Vec::new() };
        for i in 0..n {
            if i % 64 == 0 && stop() {
                return None;
            }
            let row = &mut table[i * n..(i + 1) * n];
            row.iter_mut().for_each(|f| *f = dense[*f as usize]);
            if classes <= 16 {
                for (b, &f) in bits_table[i * n..(i + 1) * n].iter_mut().zip(row.iter()) {
                    *b = 1u16 << f;
                }
            }
        }
        let win = dense[spec.win().index(spec.pegs) as usize];
        let symbols: Vec<u16> = codes.iter().map(|c| c.symbol_set(spec.pegs)).collect();
        let bits = (classes <= 16).then_some(bits_table);
        // K = non-winning feedbacks.
        let k = (classes - 1).max(1) as u64;
        let lb: Vec<u32> = (0..=n)
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
        let small = (1..=n).take_while(|&m| lb[m] == 2 * m as u32 - 1).last().unwrap_or(1).min(32);
        Some(Solver {
            spec: *spec,
            codes,
            n,
            table,
            bits,
            win,
            classes,
            small,
            lb,
            cache: HashMap::default(),
            history: Vec::new(),
            masks: vec![0; n],
            symbols,
            allowed: HashMap::new(),
            pop16: (0..=u16::MAX).map(|x| x.count_ones() as u8).collect(),
            pool: Vec::new(),
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

    fn finish(&mut self, set: &[u16], budget: u32, found: Option<(u32, u16)>) -> Result<u32, u32> {
        match found {
            Some((v, g)) => {
                self.cache.insert(set.to_vec(), Entry::Exact(v, g));
                if v < budget { Ok(v) } else { Err(v) }
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

    /// Candidate guesses of a set with their bounds, by OR-ing bit rows:
    /// the classes a guess makes give the bound `3m - classes - [possible]`
    /// (every class bound is at least `2c - 1`), exact for sets of at most
    /// `small` codes and refined by counting the class sizes otherwise; or
    /// the answer at once when a guess splits the set into singletons.
    #[inline(never)]
    fn scan_bits(
        &mut self,
        set: &[u16],
        budget: u32,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Vec<u64>, Result<u32, u32>> {
        let n = self.n;
        let m = set.len() as u32;
        let bits = self.bits.as_ref().expect("bit table");
        self.masks.iter_mut().for_each(|x| *x = 0);
        for &s in set {
            let col = &bits[s as usize * n..(s as usize + 1) * n];
            for (x, &b) in self.masks.iter_mut().zip(col) {
                *x |= b;
            }
        }
        let winbit = 1u16 << self.win;
        let pop16 = &self.pop16;
        let pop = |x: u16| pop16[x as usize] as u32;
        for &g in set {
            if pop(self.masks[g as usize]) == m {
                return Err(self.finish(set, budget, Some((2 * m - 1, g))));
            }
        }
        if budget <= 2 * m {
            return Err(self.finish(set, 2 * m, None));
        }
        // A possible guess leaving one pair and singletons costs
        // m + (m - 3) + 3 = 2m, as little as any guess left can.
        for &g in set {
            if pop(self.masks[g as usize]) + 1 == m {
                return Err(self.finish(set, budget, Some((2 * m, g))));
            }
        }
        let exact = set.len() <= self.small;
        let mut counts = vec![0u32; self.classes];
        let mut cands = Vec::new();
        // Symbols no code of the set holds all act alike (with repeats):
        // only the smallest of them is tried.
        let present = set.iter().fold(0u16, |a, &c| a | self.symbols[c as usize]);
        let absent = ((1u16 << self.spec.symbols()) - 1) & !present;
        let forbidden = if self.spec.repeats && absent != 0 { absent & (absent - 1) } else { 0 };
        if !self.allowed.contains_key(&forbidden) {
            let list = (0..n as u16).filter(|&g| self.symbols[g as usize] & forbidden == 0).collect();
            self.allowed.insert(forbidden, list);
        }
        let allowed = &self.allowed[&forbidden];
        let mut stopped = false;
        for (k, &g) in allowed.iter().enumerate() {
            if k % 256 == 255 && stop() {
                stopped = true;
                break;
            }
            let g = g as usize;
            let x = self.masks[g];
            let classes = pop(x);
            if classes == 1 {
                continue;
            }
            if classes == m {
                return Err(self.finish(set, budget, Some((2 * m, g as u16))));
            }
            let possible = (x & winbit != 0) as u32;
            let mut bound = 3 * m - classes - possible;
            if bound >= budget {
                continue;
            }
            if !exact {
                counts.iter_mut().for_each(|c| *c = 0);
                let row = &self.table[g * n..(g + 1) * n];
                for &s in set {
                    counts[row[s as usize] as usize] += 1;
                }
                bound = m + counts
                    .iter()
                    .enumerate()
                    .filter(|&(f, _)| f != self.win as usize)
                    .map(|(_, &c)| self.lb[c as usize])
                    .sum::<u32>();
                if bound >= budget {
                    continue;
                }
            }
            cands.push((((bound * 2 + 1 - possible) as u64) << 16) | g as u64);
        }
        if stopped {
            self.aborted = true;
            return Err(Err(budget));
        }
        Ok(cands)
    }

    /// Candidate guesses of any set with their bounds `n + sum of class
    /// bounds`; or the answer at once (singleton splits).
    #[inline(never)]
    fn scan_large(
        &mut self,
        set: &[u16],
        budget: u32,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Vec<u64>, Result<u32, u32>> {
        let n = set.len();
        let n32 = n as u32;
        let mut counts = vec![0u32; self.classes];
        // Singleton split by a possible code: optimal.
        for (k, &g) in set.iter().enumerate() {
            if k % 64 == 63 && stop() {
                self.aborted = true;
                return Err(Err(budget));
            }
            counts.iter_mut().for_each(|c| *c = 0);
            let row = &self.table[g as usize * self.n..(g as usize + 1) * self.n];
            if set.iter().all(|&s| {
                let f = row[s as usize] as usize;
                counts[f] += 1;
                counts[f] == 1
            }) {
                return Err(self.finish(set, budget, Some((2 * n32 - 1, g))));
            }
        }
        if budget <= 2 * n32 {
            return Err(self.finish(set, 2 * n32, None));
        }
        let mut cands = Vec::new();
        for g in 0..self.n {
            if g % 64 == 63 && stop() {
                self.aborted = true;
                return Err(Err(budget));
            }
            counts.iter_mut().for_each(|c| *c = 0);
            let row = &self.table[g * self.n..(g + 1) * self.n];
            for &s in set {
                counts[row[s as usize] as usize] += 1;
            }
            let possible = (counts[self.win as usize] == 1) as u32;
            if counts.iter().all(|&c| c <= 1) {
                return Err(self.finish(set, budget, Some((2 * n32, g as u16))));
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
                cands.push((((bound * 2 + 1 - possible) as u64) << 16) | g as u64);
            }
        }
        Ok(cands)
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
        if self.aborted || stop() {
            self.aborted = true;
            return Err(budget);
        }
        let scanned = if self.bits.is_some() {
            self.scan_bits(set, budget, stop)
        } else {
            self.scan_large(set, budget, stop)
        };
        let mut cands = match scanned {
            Ok(c) => c,
            Err(r) => return r,
        };
        cands.sort_unstable();
        let mut best = budget;
        let mut best_g = None;
        let mut sym: Option<Symmetry> = None;
        let mut classes = self.pool.pop().unwrap_or_default();
        classes.resize(self.classes, Vec::new());
        for &key in &cands {
            let (bound, g) = ((key >> 17) as u32, key as u16);
            if bound >= best {
                break;
            }
            let sym = sym.get_or_insert_with(|| {
                let present: Vec<Code> = set.iter().map(|&i| self.codes[i as usize]).collect();
                Symmetry::of_position(&self.spec, &self.history, &present)
            });
            if !sym.is_trivial() && !sym.is_canonical(self.codes[g as usize]) {
                continue;
            }
            for c in classes.iter_mut() {
                c.clear();
            }
            let row = &self.table[g as usize * self.n..(g as usize + 1) * self.n];
            for &s in set {
                classes[row[s as usize] as usize].push(s);
            }
            let mut order: Vec<usize> =
                (0..self.classes).filter(|&f| f != self.win as usize && classes[f].len() >= 3).collect();
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
                self.pool.push(classes);
                return Err(budget);
            }
            if ok && total < best {
                best = total;
                best_g = Some(g);
            }
        }
        self.pool.push(classes);
        self.finish(set, budget, best_g.map(|g| (best, g)))
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
        let stop = StopCheck::of(ctx);
        if self.solver.as_ref().is_none_or(|s| s.spec() != spec) {
            self.solver = Solver::new_until(spec, &mut || stop.hit());
            if self.solver.is_none() && spec.code_count() > SOLVER_LIMIT {
                log::info!("optimal: {spec} is too large for the exact solver; playing 'expected'");
            }
        }
        let Some(solver) = self.solver.as_mut() else {
            return self.fallback.guess(spec, rows, ctx);
        };
        let set: Vec<u16> = match self.know.possible(spec, rows, &stop) {
            Some(s) => s.iter().filter_map(|&c| solver.index_of(c)).collect(),
            None => Vec::new(),
        };
        let history: Vec<Code> = rows.iter().map(|r| r.guess).collect();
        let before = solver.nodes;
        let found = {
            let mut stop = || stop.hit();
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
