//! The exact branch and bound: the strategy with the smallest total number
//! of guesses over a set of possible codes (every code of the variant, or
//! the codes left after some rows), with at most a given number of guesses
//! on any code. Guesses are taken from every code of the variant.
//!
//! What makes it fast (the reductions of the best public solvers):
//!
//! 1. a feedback table, guess x code of the root set, one byte a pair,
//!    built once with the fast kernels;
//! 2. one guess per class of equivalent guesses ([`Symmetry`]: symbols not
//!    played yet, symbols no possible code holds, position permutations
//!    fixing the history), generated directly rather than filtered;
//! 3. a guess that splits the set into singletons is optimal: `2n - 1` if
//!    it is possible, else `2n`; so is a possible guess leaving one pair
//!    and singletons (`2n`);
//! 4. lower bounds: with K non-winning feedbacks at most `K^(d-1)` codes
//!    are found at depth d; a guess is bounded by `n + sum of its classes'
//!    bounds`, the candidates are tried in bound order and the loop stops
//!    once the bound reaches the best total found;
//! 5. the largest class is solved first with the budget left passed down,
//!    and a class that cannot beat its budget ends the candidate;
//! 6. every solved set is remembered (its optimum and best guess, or a
//!    proven lower bound) in a table whose size is bounded.
//!
//! With more than one thread the candidates of the root are shared out
//! among them, with the best total so far shared: the result is the one a
//! single thread finds (ties go to the first candidate in bound order).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::code::{Code, Feedback};
use super::kernel::{CodeSet, Probe};
use super::spec::Spec;
use super::symmetry::Symmetry;
use super::tree::Strategy;

/// A fast hasher for sets of code indices.
#[derive(Default)]
pub struct FxHasher(u64);

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
    fn write_u8(&mut self, v: u8) {
        self.write_usize(v as usize)
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;

#[derive(Clone, Copy, Debug)]
enum Entry {
    /// The optimal total and a best guess (index in the universe).
    Exact(u32, u32),
    /// The optimum is at least this.
    Lower(u32),
}

/// Totals are never this large: "no strategy within the guesses left".
pub const INFEASIBLE: u32 = u32::MAX / 2;

/// Smallest root set solved with several threads (below it the looser
/// budgets of classes solved side by side cost more than the threads
/// give: 4x6's whole game, 1296 codes, takes 0.05 s on one).
const PARALLEL_MIN: usize = 2000;

/// Largest bit table built (bytes).
const BITS_LIMIT: usize = 256 << 20;

/// Every code of a variant, the guesses of the solvers.
#[derive(Clone, Debug)]
pub struct Universe {
    pub spec: Spec,
    pub codes: Vec<Code>,
    /// `dense[f]`: the class number of feedback index `f` (black * (pegs
    /// + 1) + white); the classes are the feedbacks that can occur.
    pub dense: Vec<u8>,
    /// The feedback of each class.
    pub feedbacks: Vec<Feedback>,
    pub win: u8,
}

impl Universe {
    pub fn new(spec: &Spec) -> Universe {
        let codes = spec.all_codes();
        let p = spec.pegs;
        let mut dense = vec![u8::MAX; spec.feedback_slots()];
        let mut feedbacks = Vec::new();
        for black in 0..=p {
            for white in 0..=p - black {
                let f = Feedback { black, white };
                if spec.feedback_possible(f) {
                    dense[f.index(p) as usize] = feedbacks.len() as u8;
                    feedbacks.push(f);
                }
            }
        }
        let win = dense[spec.win().index(p) as usize];
        Universe { spec: *spec, codes, dense, feedbacks, win }
    }

    /// Index of a code of the variant.
    pub fn index_of(&self, c: Code) -> Option<u32> {
        if self.spec.repeats {
            let s = self.spec.symbols() as u32;
            let mut i = 0u32;
            for k in 0..self.spec.pegs {
                let x = c.peg(self.spec.pegs, k) as u32;
                if x >= s {
                    return None;
                }
                i = i * s + x;
            }
            (self.codes.get(i as usize) == Some(&c)).then_some(i)
        } else {
            self.codes.binary_search(&c).ok().map(|i| i as u32)
        }
    }

    pub fn classes(&self) -> usize {
        self.feedbacks.len()
    }
}

/// The solver of one root set.
pub struct Exact {
    u: Arc<Universe>,
    /// The root set (codes), local index j.
    root: Vec<Code>,
    n0: usize,
    /// `table[g * n0 + j]`: class of guess g against root code j.
    table: Arc<Vec<u8>>,
    /// `bits[j * n + g]`: the same as one bit, `1 << class` (empty when
    /// too large): a set's classes for every guess at once are the OR of
    /// its codes' rows.
    bits: Arc<Bits>,
    /// Bit counts of 16-bit values.
    pop16: Arc<Vec<u8>>,
    masks: Bits,
    /// Symbols of each root code, as a bit set.
    symbols: Vec<u16>,
    /// Universe index of each root code.
    root_index: Vec<u32>,
    /// Guesses played before the root, then the path to the node.
    history: Vec<Code>,
    played: u16,
    lb: Vec<u32>,
    /// `cap[l]`: most codes any strategy finds within l guesses.
    cap: Vec<u64>,
    cache: HashMap<(Box<[u16]>, u8), Entry, FxBuild>,
    /// Bytes of the cache keys, and the bound on them.
    cache_bytes: usize,
    cache_limit: usize,
    pool: Vec<Vec<Vec<u16>>>,
    /// Sets expanded.
    pub nodes: u64,
    aborted: bool,
}

impl Exact {
    /// A solver for the codes `root` (increasing, all distinct) after the
    /// guesses `history`; `cache_mb` bounds its table of solved sets.
    /// `None` if `stop` said so while the feedback table was built.
    pub fn new(
        u: Arc<Universe>,
        root: &[Code],
        history: &[Code],
        cache_mb: usize,
        stop: &dyn Fn() -> bool,
    ) -> Option<Exact> {
        let n0 = root.len();
        assert!(n0 <= u16::MAX as usize, "root set too large");
        let n = u.codes.len();
        let set = CodeSet::new(&u.spec, root);
        let mut table = vec![0u8; n * n0];
        let mut raw = vec![0u8; n0];
        for (g, row) in table.chunks_exact_mut(n0.max(1)).enumerate().take(n) {
            if g % 256 == 0 && stop() {
                return None;
            }
            set.feedbacks(Probe::new(&u.spec, u.codes[g]), &mut raw);
            for (t, &f) in row.iter_mut().zip(&raw) {
                *t = u.dense[f as usize];
            }
        }
        let narrow = u.classes() <= 16;
        let bits = if n * n0 * if narrow { 2 } else { 4 } <= BITS_LIMIT {
            let mut b = Bits::new(narrow, n * n0);
            for g in 0..n {
                if g % 256 == 0 && stop() {
                    return None;
                }
                for j in 0..n0 {
                    b.set(j * n + g, 1u32 << table[g * n0 + j]);
                }
            }
            b
        } else {
            Bits::new(narrow, 0)
        };
        let k = (u.classes() as u64 - 1).max(1);
        let lb = lower_bounds(n0, k);
        let mut cap = vec![0u64, 1];
        while cap.len() < 64 {
            let l = *cap.last().expect("cap");
            cap.push(1u64.saturating_add(k.saturating_mul(l)));
        }
        let played = history.iter().fold(0u16, |m, g| m | g.symbol_set(u.spec.pegs));
        Some(Exact {
            symbols: root.iter().map(|c| c.symbol_set(u.spec.pegs)).collect(),
            root_index: root.iter().map(|&c| u.index_of(c).expect("a code of the variant")).collect(),
            u,
            root: root.to_vec(),
            n0,
            table: Arc::new(table),
            bits: Arc::new(bits),
            pop16: Arc::new((0..=u16::MAX).map(|x| x.count_ones() as u8).collect()),
            masks: Bits::new(narrow, n),
            history: history.to_vec(),
            played,
            lb,
            cap,
            cache: HashMap::default(),
            cache_bytes: 0,
            cache_limit: cache_mb.max(1) << 20,
            pool: Vec::new(),
            nodes: 0,
            aborted: false,
        })
    }

    /// A solver sharing this one's table (for another thread).
    fn sibling(&self) -> Exact {
        Exact {
            u: self.u.clone(),
            root: self.root.clone(),
            n0: self.n0,
            table: self.table.clone(),
            bits: self.bits.clone(),
            pop16: self.pop16.clone(),
            masks: Bits::new(self.u.classes() <= 16, self.u.codes.len()),
            symbols: self.symbols.clone(),
            root_index: self.root_index.clone(),
            history: self.history.clone(),
            played: self.played,
            lb: self.lb.clone(),
            cap: self.cap.clone(),
            cache: HashMap::default(),
            cache_bytes: 0,
            cache_limit: self.cache_limit,
            pool: Vec::new(),
            nodes: 0,
            aborted: false,
        }
    }

    /// The optimal total over the whole root set with at most `left`
    /// guesses on any code, and its first guess; `Ok(None)` if no strategy
    /// fits in `left` guesses (or its total would reach `budget`);
    /// `Err(())` if `stop` said so. `threads` share the root's candidates.
    pub fn solve_root(
        &mut self,
        left: u8,
        budget: u32,
        threads: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Option<(u32, Code)>, ()> {
        let all: Vec<u16> = (0..self.n0 as u16).collect();
        self.aborted = false;
        let r = if threads > 1 && self.n0 >= PARALLEL_MIN {
            self.solve_parallel(&all, budget, left, threads, stop)
        } else {
            self.solve(&all, budget, left, &mut || stop())
        };
        if self.aborted {
            return Err(());
        }
        match r {
            Ok(v) => Ok(Some((v, self.u.codes[self.best_guess(&all, left).ok_or(())? as usize]))),
            Err(_) => Ok(None),
        }
    }

    /// The best guess of a solved set (trivial sets are not cached).
    fn best_guess(&self, set: &[u16], left: u8) -> Option<u32> {
        match set.len() {
            0 => None,
            1 | 2 => self.u.index_of(self.root[set[0] as usize]),
            _ => match self.cache.get(&(set.into(), left)) {
                Some(&Entry::Exact(_, g)) => Some(g),
                _ => None,
            },
        }
    }

    /// The optimal strategy over the root set as a tree (solving again
    /// whatever the cache has forgotten); `None` if none fits in `left`
    /// guesses, or `stop` said so.
    pub fn strategy(&mut self, left: u8, stop: &dyn Fn() -> bool) -> Option<Strategy> {
        let all: Vec<u16> = (0..self.n0 as u16).collect();
        self.aborted = false;
        self.tree_of(&all, left, &mut || stop())
    }

    fn tree_of(&mut self, set: &[u16], left: u8, stop: &mut dyn FnMut() -> bool) -> Option<Strategy> {
        if set.len() == 1 {
            return Some(Strategy::leaf(self.root[set[0] as usize]));
        }
        let g = match self.best_guess(set, left) {
            Some(g) => g,
            None => {
                self.solve(set, INFEASIBLE, left, stop).ok()?;
                self.best_guess(set, left)?
            }
        };
        let row = g as usize * self.n0;
        let mut classes: Vec<Vec<u16>> = vec![Vec::new(); self.u.classes()];
        for &s in set {
            classes[self.table[row + s as usize] as usize].push(s);
        }
        let guess = self.u.codes[g as usize];
        self.history.push(guess);
        let mut children = Vec::new();
        for (f, class) in classes.iter().enumerate() {
            if f == self.u.win as usize || class.is_empty() {
                continue;
            }
            let child = self.tree_of(class, left - 1, stop);
            match child {
                Some(c) => children.push((self.u.feedbacks[f], c)),
                None => {
                    self.history.pop();
                    return None;
                }
            }
        }
        self.history.pop();
        Some(Strategy::node(guess, children))
    }

    fn remember(&mut self, set: &[u16], left: u8, e: Entry) {
        if self.cache_bytes > self.cache_limit {
            self.cache.clear();
            self.cache_bytes = 0;
        }
        let key = (set.into(), left);
        match self.cache.get_mut(&key) {
            Some(old) => {
                *old = match (*old, e) {
                    (Entry::Lower(a), Entry::Lower(b)) => Entry::Lower(a.max(b)),
                    (x @ Entry::Exact(..), Entry::Lower(_)) => x,
                    (_, x) => x,
                };
            }
            None => {
                self.cache_bytes += 2 * set.len() + 48;
                self.cache.insert(key, e);
            }
        }
    }

    fn finish(&mut self, set: &[u16], left: u8, budget: u32, found: Option<(u32, u32)>) -> Result<u32, u32> {
        match found {
            Some((v, g)) => {
                self.remember(set, left, Entry::Exact(v, g));
                if v < budget { Ok(v) } else { Err(v) }
            }
            None => {
                self.remember(set, left, Entry::Lower(budget));
                Err(budget)
            }
        }
    }

    /// The symmetries of a node.
    fn symmetry(&self, set: &[u16]) -> Symmetry {
        let present = set.iter().fold(0u16, |m, &s| m | self.symbols[s as usize]);
        Symmetry::new(&self.u.spec, self.played_at(), present, &self.history)
    }

    fn played_at(&self) -> u16 {
        self.history.iter().fold(self.played, |m, g| m | g.symbol_set(self.u.spec.pegs))
    }

    /// The scan of a node: the candidates with their bounds (`bound << 33 |
    /// impossible << 32 | guess`), or the node's answer when a guess is
    /// optimal outright. With the bit table, every guess's classes are
    /// counted at once (OR of the set's rows), which bounds every class
    /// by `2c - 1`: exact while the set has at most K + 1 codes; larger
    /// sets count the class sizes of the guesses that bound leaves in.
    /// The symmetries not applied yet come back with the candidates: the
    /// caller skips the guesses that are not canonical.
    #[allow(clippy::type_complexity)]
    fn scan(
        &mut self,
        set: &[u16],
        budget: u32,
        left: u8,
    ) -> Result<(Vec<u64>, Option<Symmetry>), Result<u32, u32>> {
        let m = set.len() as u32;
        let n = self.u.codes.len();
        let nc = self.u.classes();
        let win = self.u.win as usize;
        let winbit = 1u32 << win;
        let child_cap = self.cap[(left - 1) as usize];
        let k1 = self.cap[2]; // K + 1: every class bound is 2c - 1 up to here
        let pop16 = self.pop16.clone();
        let pop = |x: u32| pop16[(x & 0xFFFF) as usize] as u32 + pop16[(x >> 16) as usize] as u32;
        // The outright answers the possible guesses give, from the set
        // alone: a singleton split (2m - 1), else one pair and singletons
        // (2m, as good as any guess left can do).
        if m as u64 <= k1 + 1 {
            let mut pair = None;
            for &a in set {
                let g = self.root_index[a as usize];
                let row = &self.table[g as usize * self.n0..(g as usize + 1) * self.n0];
                let x = set.iter().fold(0u32, |x, &b| x | 1 << row[b as usize]);
                let parts = pop(x);
                if parts == m {
                    return Err(self.finish(set, left, budget, Some((2 * m - 1, g))));
                }
                if parts + 1 == m && pair.is_none() {
                    pair = Some(g);
                }
            }
            if budget <= 2 * m {
                return Err(self.finish(set, left, budget, None));
            }
            if let Some(g) = pair.filter(|_| child_cap > 1) {
                return Err(self.finish(set, left, budget, Some((2 * m, g))));
            }
        } else if budget <= 2 * m {
            return Err(self.finish(set, left, budget, None));
        }
        let have_bits = !self.bits.is_empty();
        if have_bits {
            self.masks.or_columns(&self.bits, set, n);
            // An impossible guess splitting into singletons: 2m.
            if m as u64 <= k1
                && let Some(g) = (0..n).find(|&g| pop(self.masks.get(g)) == m)
            {
                return Err(self.finish(set, left, budget, Some((2 * m, g as u32))));
            }
        }
        let mut counts = vec![0u32; nc];
        let mut cands = Vec::new();
        // Singleton splits and possible guesses leaving one pair: optimal.
        let mut split_impossible = None;
        let mut pair_possible = None;
        // Small sets bound every guess from the bit masks at once and check
        // the symmetries only for the guesses tried; larger ones count
        // classes for one guess per class of equivalent guesses.
        let (list, lazy): (Vec<u32>, Option<Symmetry>) = if have_bits && m as u64 <= k1 {
            ((0..n as u32).collect(), Some(self.symmetry(set)).filter(|s| !s.is_trivial()))
        } else {
            let sym = self.symmetry(set);
            if sym.is_trivial() {
                ((0..n as u32).collect(), None)
            } else {
                let reps = sym.representatives(&self.u.spec);
                (reps.into_iter().filter_map(|c| self.u.index_of(c)).collect(), None)
            }
        };
        for g in list {
            let row = &self.table[g as usize * self.n0..(g as usize + 1) * self.n0];
            let (parts, possible) = if have_bits {
                let x = self.masks.get(g as usize);
                (pop(x), x & winbit != 0)
            } else {
                let mut x = 0u32;
                for &s in set {
                    x |= 1 << row[s as usize];
                }
                (pop(x), x & winbit != 0)
            };
            if parts == 1 {
                continue; // learns nothing
            }
            if parts == m {
                if possible {
                    return Err(self.finish(set, left, budget, Some((2 * m - 1, g))));
                }
                split_impossible.get_or_insert(g);
                continue;
            }
            if child_cap == 1 {
                continue; // only singleton splits finish in time
            }
            if possible && parts == m - 1 {
                pair_possible.get_or_insert(g);
                continue;
            }
            let mut bound = 3 * m - parts - possible as u32;
            if bound >= budget {
                continue;
            }
            if m as u64 > k1 {
                counts.iter_mut().for_each(|c| *c = 0);
                for &s in set {
                    counts[row[s as usize] as usize] += 1;
                }
                bound = m;
                let mut largest = 0;
                for (f, &c) in counts.iter().enumerate() {
                    if f != win {
                        bound += self.lb[c as usize];
                        largest = largest.max(c);
                    }
                }
                if bound >= budget || largest as u64 > child_cap {
                    continue;
                }
            }
            cands.push((bound as u64) << 33 | ((!possible) as u64) << 32 | g as u64);
        }
        if let Some(g) = pair_possible.or(split_impossible) {
            return Err(self.finish(set, left, budget, Some((2 * m, g))));
        }
        sort_keys(&mut cands);
        Ok((cands, lazy))
    }

    /// `Ok(total)` if the optimum is below `budget`, else `Err(bound)`
    /// with optimum >= bound >= budget.
    fn solve(
        &mut self,
        set: &[u16],
        budget: u32,
        left: u8,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<u32, u32> {
        let n = set.len();
        if left == 0 || n as u64 > self.cap[left as usize] {
            return Err(INFEASIBLE);
        }
        let floor = match n {
            1 => 1,
            2 => 3,
            _ => 2 * n as u32 - 1,
        };
        if n <= 2 || budget <= floor {
            return if floor < budget { Ok(floor) } else { Err(floor) };
        }
        if left == 1 {
            return Err(INFEASIBLE);
        }
        let key = (Box::<[u16]>::from(set), left);
        match self.cache.get(&key) {
            Some(&Entry::Exact(v, _)) => return if v < budget { Ok(v) } else { Err(v) },
            Some(&Entry::Lower(l)) if l >= budget => return Err(l),
            _ => {}
        }
        self.nodes += 1;
        if self.aborted || stop() {
            self.aborted = true;
            return Err(budget);
        }
        let (cands, lazy) = match self.scan(set, budget, left) {
            Ok(c) => c,
            Err(r) => return r,
        };
        let mut best = budget;
        let mut best_g = None;
        for &key in &cands {
            let bound = (key >> 33) as u32;
            if bound >= best {
                break;
            }
            let g = key as u32;
            if lazy.as_ref().is_some_and(|s| !s.is_canonical(self.u.codes[g as usize])) {
                continue;
            }
            if let Some(total) = self.try_guess(set, g, bound, best, left, stop) {
                best = total;
                best_g = Some(g);
            }
            if self.aborted {
                return Err(budget);
            }
        }
        self.finish(set, left, budget, best_g.map(|g| (best, g)))
    }

    /// The total of guess `g` on `set` if below `best` (its classes solved
    /// largest first, each within what is left of the budget).
    fn try_guess(
        &mut self,
        set: &[u16],
        g: u32,
        bound: u32,
        best: u32,
        left: u8,
        stop: &mut dyn FnMut() -> bool,
    ) -> Option<u32> {
        let nc = self.u.classes();
        let mut classes = self.pool.pop().unwrap_or_default();
        classes.resize(nc, Vec::new());
        for c in classes.iter_mut() {
            c.clear();
        }
        let row = g as usize * self.n0;
        for &s in set {
            classes[self.table[row + s as usize] as usize].push(s);
        }
        let win = self.u.win as usize;
        let mut order: Vec<usize> = (0..nc).filter(|&f| f != win && classes[f].len() >= 3).collect();
        order.sort_unstable_by_key(|&f| classes[f].len());
        let mut total = bound;
        let mut ok = true;
        self.history.push(self.u.codes[g as usize]);
        for f in order {
            let class = std::mem::take(&mut classes[f]);
            let lbc = self.lb[class.len()];
            let r = self.solve(&class, best - (total - lbc), left - 1, stop);
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
        self.pool.push(classes);
        (ok && total < best).then_some(total)
    }

    /// The root with `threads` solvers: its candidates in bound order, the
    /// classes of each solved side by side (largest first; each within the
    /// budget the totals known when it starts leave). Ties go to the first
    /// candidate, as with one thread.
    fn solve_parallel(
        &mut self,
        set: &[u16],
        budget: u32,
        left: u8,
        threads: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<u32, u32> {
        self.nodes += 1;
        let (mut cands, lazy) = match self.scan(set, budget, left) {
            Ok(c) => c,
            Err(r) => return r,
        };
        if let Some(sym) = lazy {
            let codes = &self.u.codes;
            cands.retain(|&k| sym.is_canonical(codes[k as u32 as usize]));
        }
        let mut workers: Vec<Exact> = (0..threads).map(|_| self.sibling()).collect();
        let mut best = budget;
        let mut best_g = None;
        let mut aborted = false;
        for &key in &cands {
            let bound = (key >> 33) as u32;
            if bound >= best {
                break;
            }
            let g = key as u32;
            match self.try_guess_parallel(&mut workers, set, g, bound, best, left, stop) {
                Err(()) => {
                    aborted = true;
                    break;
                }
                Ok(Some(total)) => {
                    best = total;
                    best_g = Some(g);
                }
                Ok(None) => {}
            }
        }
        for w in workers {
            self.nodes += w.nodes;
            // The winner's subtrees are read from the cache.
            for (k, e) in w.cache {
                if let Entry::Exact(..) = e {
                    self.cache_bytes += 2 * k.0.len() + 48;
                    self.cache.insert(k, e);
                }
            }
        }
        if aborted {
            self.aborted = true;
            return Err(budget);
        }
        self.finish(set, left, budget, best_g.map(|g| (best, g)))
    }

    /// [`Exact::try_guess`] with the classes shared among `workers`;
    /// `Err` if `stop` said so.
    #[allow(clippy::too_many_arguments)]
    fn try_guess_parallel(
        &self,
        workers: &mut [Exact],
        set: &[u16],
        g: u32,
        bound: u32,
        best: u32,
        left: u8,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Option<u32>, ()> {
        let row = g as usize * self.n0;
        let mut classes: Vec<Vec<u16>> = vec![Vec::new(); self.u.classes()];
        for &s in set {
            classes[self.table[row + s as usize] as usize].push(s);
        }
        let win = self.u.win as usize;
        let mut order: Vec<Vec<u16>> = classes
            .into_iter()
            .enumerate()
            .filter(|(f, c)| *f != win && c.len() >= 3)
            .map(|(_, c)| c)
            .collect();
        order.sort_by_key(|c| c.len());
        let next = AtomicUsize::new(0);
        let excess = AtomicU64::new(0);
        let failed = std::sync::atomic::AtomicBool::new(false);
        let guess = self.u.codes[g as usize];
        crate::threads::scope(|scope| {
            for w in workers.iter_mut() {
                let (next, order, excess, failed) = (&next, &order, &excess, &failed);
                scope.spawn(move || {
                    let mut halt = || stop() || failed.load(Ordering::Relaxed);
                    w.history.push(guess);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(class) = order.get(i) else { break };
                        let lbc = w.lb[class.len()] as u64;
                        let spent = bound as u64 + excess.load(Ordering::Acquire);
                        if spent >= best as u64 || failed.load(Ordering::Relaxed) {
                            failed.store(true, Ordering::Relaxed);
                            break;
                        }
                        let sub = (best as u64 - (spent - lbc)) as u32;
                        match w.solve(class, sub, left - 1, &mut halt) {
                            Ok(v) => {
                                excess.fetch_add(v as u64 - lbc, Ordering::AcqRel);
                            }
                            Err(_) => {
                                failed.store(true, Ordering::Relaxed);
                                break;
                            }
                        }
                    }
                    w.history.pop();
                    // A solve cut short because another class failed is
                    // no stop.
                    if !stop() {
                        w.aborted = false;
                    }
                });
            }
        });
        if stop() {
            return Err(());
        }
        if failed.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let total = bound as u64 + excess.load(Ordering::Acquire);
        Ok((total < best as u64).then_some(total as u32))
    }
}

/// Bit masks of classes, 16 bits wide while there are at most 16 classes
/// (4 pegs or fewer), else 32.
enum Bits {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl Bits {
    fn new(narrow: bool, len: usize) -> Bits {
        if narrow { Bits::Narrow(vec![0; len]) } else { Bits::Wide(vec![0; len]) }
    }

    fn is_empty(&self) -> bool {
        match self {
            Bits::Narrow(v) => v.is_empty(),
            Bits::Wide(v) => v.is_empty(),
        }
    }

    #[inline]
    fn get(&self, i: usize) -> u32 {
        match self {
            Bits::Narrow(v) => v[i] as u32,
            Bits::Wide(v) => v[i],
        }
    }

    fn set(&mut self, i: usize, x: u32) {
        match self {
            Bits::Narrow(v) => v[i] = x as u16,
            Bits::Wide(v) => v[i] = x,
        }
    }

    /// `self[g]` = OR over `set` of `table[s * n + g]`, for every g.
    fn or_columns(&mut self, table: &Bits, set: &[u16], n: usize) {
        fn run<T: Copy + Default + std::ops::BitOrAssign>(out: &mut [T], table: &[T], set: &[u16], n: usize) {
            out.iter_mut().for_each(|x| *x = T::default());
            for &s in set {
                let col = &table[s as usize * n..(s as usize + 1) * n];
                for (x, &b) in out.iter_mut().zip(col) {
                    *x |= b;
                }
            }
        }
        match (self, table) {
            (Bits::Narrow(o), Bits::Narrow(t)) => run(o, t, set, n),
            (Bits::Wide(o), Bits::Wide(t)) => run(o, t, set, n),
            _ => unreachable!("masks and table have one width"),
        }
    }
}

/// Sorts candidate keys (`bound << 33 | impossible << 32 | guess`, made
/// in increasing guess order): by counting when the bounds span a short
/// range, as they do.
fn sort_keys(v: &mut Vec<u64>) {
    if v.len() < 64 {
        v.sort_unstable();
        return;
    }
    let lo = v.iter().map(|&k| k >> 32).min().unwrap_or(0);
    let hi = v.iter().map(|&k| k >> 32).max().unwrap_or(0);
    let span = (hi - lo + 1) as usize;
    if span > 4096 {
        v.sort_unstable();
        return;
    }
    let mut start = vec![0usize; span + 1];
    for &k in v.iter() {
        start[((k >> 32) - lo) as usize + 1] += 1;
    }
    for i in 0..span {
        start[i + 1] += start[i];
    }
    let mut out = vec![0u64; v.len()];
    for &k in v.iter() {
        let b = ((k >> 32) - lo) as usize;
        out[start[b]] = k;
        start[b] += 1;
    }
    *v = out;
}

/// `lb[n]`: the least total of any strategy over n codes when every guess
/// has K non-winning feedbacks: codes are found 1 at depth 1, K at depth
/// 2, K^2 at depth 3, ...
pub fn lower_bounds(n: usize, k: u64) -> Vec<u32> {
    (0..=n)
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
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn optimum(t: &str, left: u8, threads: usize) -> (u32, String) {
        let spec: Spec = t.parse().unwrap();
        let u = Arc::new(Universe::new(&spec));
        let codes = u.codes.clone();
        let mut e = Exact::new(u, &codes, &[], 64, &|| false).unwrap();
        let (v, g) = e.solve_root(left, INFEASIBLE, threads, &|| false).unwrap().unwrap();
        (v, spec.code_text(g).to_string())
    }

    #[test]
    fn known_optima_on_small_sizes() {
        assert_eq!(optimum("Mastermind+3x4", 20, 1).0, 206);
        assert_eq!(optimum("Mastermind+3x5", 20, 1).0, 451);
        assert_eq!(optimum("Mastermind+4x4", 20, 2).0, 905);
        assert_eq!(optimum("Mastermind+2x6", 20, 1).0, 132);
        assert_eq!(optimum("Mastermind+1x3", 20, 1).0, 6);
        // 2 pegs x 2 symbols: 11 leaves {12, 21} together and 12 leaves
        // {11, 22}: 4 + 3 + 1 either way, the lower guess kept.
        assert_eq!(optimum("Mastermind+2x2", 20, 1), (8, "11".to_string()));
    }
}
