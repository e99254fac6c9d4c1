//! How well a guess splits the possible codes, by a rule (entropy, Knuth's
//! largest class, Irving's expected size, Kooi's most parts), and the
//! search for the best guesses among many candidates.
//!
//! The best candidate is found exactly (the one a full scan of every
//! candidate would pick: lowest cost, then a possible code, then the lowest
//! code), but faster:
//!
//! - the possible codes are scored first; if the best of them reaches the
//!   least cost any guess can have (the most even split into as many
//!   classes as there are feedbacks), no other guess can beat it;
//! - a candidate's classes are counted block by block, the possible codes
//!   in a fixed shuffled order, and it is dropped as soon as a lower bound
//!   on its final cost (the codes not counted yet spread as evenly as the
//!   convex rule allows, "water-filling") is above the best cost so far;
//! - with more than one thread the candidates are shared out, the best
//!   cost so far shared among them (the result does not depend on it).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::code::Code;
use super::kernel::{CodeSet, Probe};
use super::spec::Spec;

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
    /// The review's value: the expected number of codes left to find after
    /// the guess, the winning class counting none (the sum of n squared
    /// over the other classes).
    Left,
}

/// A scored candidate guess.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    pub cost: f64,
    pub possible: bool,
    pub code: Code,
}

const EPS: f64 = 1e-9;

impl Choice {
    /// Lower cost; on a tie a possible code, then the lower code.
    pub fn better_than(&self, other: &Choice) -> bool {
        if self.cost < other.cost - EPS {
            return true;
        }
        if self.cost > other.cost + EPS {
            return false;
        }
        (self.possible, std::cmp::Reverse(self.code)) > (other.possible, std::cmp::Reverse(other.code))
    }
}

/// Codes counted between two looks at a candidate's bound (at least).
const BLOCK: usize = 1024;

/// The possible codes (or a sample of them) ready to score guesses by a
/// rule.
pub struct Splitter<'a> {
    spec: &'a Spec,
    rule: Rule,
    /// The codes scored, in a fixed shuffled order.
    codes: CodeSet,
    /// The possible codes, increasing (a guess among them may win).
    sorted: &'a [Code],
    /// The feedback indices other than the win that can occur.
    slots: Vec<usize>,
    /// The same and the win.
    valid: Vec<usize>,
    win: usize,
    /// Entropy: `n ln n` in units of 2^-32; Expected: `n^2` (both exact
    /// integer sums, so equal splits tie exactly).
    table: Vec<u64>,
    /// `table[n] - table[n - 1]` (the cost of one more code in a class
    /// of n - 1), summed while counting small sets.
    delta: Vec<u64>,
    scale: f64,
}

/// Sets of fewer codes sum their cost while counting (no look at the
/// classes afterwards: that look costs more than the counting).
const SMALL: usize = 64;

/// Scale of the fixed-point `n ln n`.
const FIXED: f64 = (1u64 << 32) as f64;

impl<'a> Splitter<'a> {
    /// `set`: the possible codes, increasing; `sample`: the codes to score
    /// against (the set itself, or a sample of it when it is very large).
    pub fn new(spec: &'a Spec, rule: Rule, set: &'a [Code], sample: &[Code]) -> Splitter<'a> {
        let mut order: Vec<Code> = sample.to_vec();
        // A fixed shuffle: the classes counted so far then look like the
        // final ones, which is what makes the bound bite early.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in (1..order.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(i, (x % (i as u64 + 1)) as usize);
        }
        let p = spec.pegs;
        let mut slots = Vec::new();
        for black in 0..p {
            for white in 0..=p - black {
                if !(black == p - 1 && white == 1) {
                    slots.push((black * (p + 1) + white) as usize);
                }
            }
        }
        let win = spec.win().index(p) as usize;
        let mut valid = slots.clone();
        valid.push(win);
        let m = order.len();
        let (table, scale) = match rule {
            Rule::Entropy => (
                (0..=m as u64)
                    .map(|n| if n < 2 { 0 } else { (n as f64 * (n as f64).ln() * FIXED).round() as u64 })
                    .collect(),
                1.0 / FIXED,
            ),
            Rule::Expected | Rule::Left => ((0..=m as u64).map(|n| n * n).collect(), 1.0),
            _ => (Vec::new(), 1.0),
        };
        let delta = (0..table.len()).map(|n| if n == 0 { 0 } else { table[n] - table[n - 1] }).collect();
        Splitter {
            spec,
            rule,
            codes: CodeSet::new(spec, &order),
            sorted: set,
            slots,
            valid,
            win,
            table,
            delta,
            scale,
        }
    }

    fn cost(&self, counts: &[u32]) -> f64 {
        match self.rule {
            Rule::Knuth => self.valid.iter().map(|&i| counts[i]).max().unwrap_or(0) as f64,
            Rule::MostParts => -(self.valid.iter().filter(|&&i| counts[i] > 0).count() as f64),
            Rule::Entropy | Rule::Expected => {
                self.valid.iter().map(|&i| self.table[counts[i] as usize]).sum::<u64>() as f64 * self.scale
            }
            Rule::Left => self.slots.iter().map(|&i| self.table[counts[i] as usize]).sum::<u64>() as f64,
        }
    }

    /// What the winning class adds to a sum over every class (the
    /// review's rule counts it as nothing).
    fn win_term(&self, counts: &[u32]) -> u64 {
        if self.rule == Rule::Left { self.table[counts[self.win] as usize] } else { 0 }
    }

    /// The convex function a rule sums, on real numbers.
    fn f(&self, x: f64) -> f64 {
        match self.rule {
            Rule::Entropy if x > 1.0 => x * x.ln(),
            Rule::Entropy => 0.0,
            _ => x * x,
        }
    }

    /// A lower bound on the final cost when `rest` codes are still to be
    /// counted (`win_open`: one of them may fall in the win class).
    fn bound(&self, counts: &[u32], rest: usize, win_open: bool) -> f64 {
        let rest = rest as f64 - if win_open { 1.0 } else { 0.0 };
        // The non-winning classes' counts, increasing (at most 43).
        let mut v = [0u32; 48];
        let n = self.slots.len().min(48);
        for (x, &s) in v.iter_mut().zip(&self.slots) {
            *x = counts[s];
        }
        let v = &mut v[..n];
        v.sort_unstable();
        // Water-filling: raise the k smallest to a common level.
        let (mut k, mut sum) = (0usize, 0.0);
        let mut level = 0.0;
        while k < v.len() {
            sum += v[k] as f64;
            k += 1;
            level = (rest.max(0.0) + sum) / k as f64;
            if k == v.len() || level <= v[k] as f64 {
                break;
            }
        }
        let fixed = counts[self.win];
        match self.rule {
            Rule::Knuth => (v.last().copied().unwrap_or(0).max(fixed) as f64).max(level),
            Rule::MostParts => f64::NEG_INFINITY,
            _ => {
                // Whole counts from the table, the level by the formula.
                let whole: u64 = v[k..].iter().map(|&x| self.table[x as usize]).sum::<u64>()
                    + self.table[fixed as usize]
                    - self.win_term(counts);
                whole as f64 * self.scale + k as f64 * self.f(level)
            }
        }
    }

    /// The least cost any guess can have: the most even split into as
    /// many classes as there are feedbacks.
    fn least_cost(&self) -> f64 {
        let m = self.codes.len();
        let mut counts = vec![0u32; self.spec.feedback_slots()];
        if self.rule == Rule::Left {
            // At best one code wins (it costs nothing) and the others
            // spread evenly over the other classes.
            let rest = m.saturating_sub(1);
            let parts = self.slots.len().min(rest).max(1);
            let (q, r) = (rest / parts, rest % parts);
            for (k, &i) in self.slots.iter().take(parts).enumerate() {
                counts[i] = q as u32 + (k < r) as u32;
            }
            return self.cost(&counts);
        }
        let parts = (self.slots.len() + 1).min(m).max(1);
        let (q, r) = (m / parts, m % parts);
        for (k, &i) in self.valid.iter().take(parts).enumerate() {
            counts[i] = q as u32 + (k < r) as u32;
        }
        self.cost(&counts)
    }

    /// The cost of `g` (`possible`: one of the possible codes), or `None`
    /// once it is certainly above `limit`, or if it learns nothing (one
    /// class).
    fn eval(&self, g: Code, possible: bool, limit: f64, counts: &mut [u32]) -> Option<Choice> {
        counts.iter_mut().for_each(|c| *c = 0);
        let probe = Probe::new(self.spec, g);
        let m = self.codes.len();
        if m < SMALL
            && !self.delta.is_empty()
            && let Some(sum) = self.codes.histogram_sum(probe, &self.delta, counts)
        {
            // One class holding every code is the largest sum there is.
            if sum == self.table[m] && m > 1 {
                return None;
            }
            let sum = sum - self.win_term(counts);
            return Some(Choice { cost: sum as f64 * self.scale, possible, code: g });
        }
        if self.rule == Rule::MostParts || !limit.is_finite() || m < 2 * BLOCK {
            self.codes.histogram(probe, counts);
        } else {
            let mut done = 0;
            while done < m {
                let end = (done + BLOCK.max(m / 4)).min(m);
                self.codes.histogram_range(probe, done, end, counts);
                done = end;
                if done < m && self.bound(counts, m - done, possible && counts[self.win] == 0) > limit + EPS {
                    return None;
                }
            }
        }
        if self.valid.iter().any(|&i| counts[i] as usize == m) && m > 1 {
            return None;
        }
        Some(Choice { cost: self.cost(counts), possible, code: g })
    }

    /// The best of `candidates` (see the module), or `None` if there are
    /// none or `stop` said so before any was scored. Guesses that learn
    /// nothing (one class) are never chosen.
    #[cfg(test)]
    pub fn best(
        &self,
        candidates: &[Code],
        threads: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Option<Choice> {
        self.top(candidates, 1, threads, stop).into_iter().next()
    }

    /// The `k` best of `candidates`, best first.
    #[cfg(test)]
    pub fn top(
        &self,
        candidates: &[Code],
        k: usize,
        threads: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Vec<Choice> {
        let (possible, other): (Vec<Code>, Vec<Code>) =
            candidates.iter().partition(|&&g| self.sorted.binary_search(&g).is_ok());
        self.top_lazily(&possible, &mut || other.clone(), k, threads, stop)
    }

    /// [`Splitter::top`] with the possible candidates given and the others
    /// made only if needed (`others` may list possible codes too: they are
    /// skipped).
    pub fn top_lazily(
        &self,
        possible: &[Code],
        others: &mut dyn FnMut() -> Vec<Code>,
        k: usize,
        threads: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Vec<Choice> {
        let k = k.max(1);
        let kept = Mutex::new(Vec::<Choice>::with_capacity(k + 1));
        // The k-th best cost so far, as the bits of an f64.
        let limit = AtomicU64::new(f64::INFINITY.to_bits());
        let least = self.least_cost();
        let offer = |c: Choice| {
            let mut v = kept.lock().unwrap_or_else(|p| p.into_inner());
            let at = v.iter().position(|x| c.better_than(x)).unwrap_or(v.len());
            if at < k {
                v.insert(at, c);
                v.truncate(k);
                if v.len() == k {
                    limit.store(v[k - 1].cost.to_bits(), Ordering::Relaxed);
                }
            }
        };
        let run = |list: &[Code], possible: bool| {
            // A thread for every 64k scores at least (a thread costs tens
            // of microseconds to start; 64k scores take a few hundred).
            let work = list.len() * self.codes.len();
            let threads = threads.clamp(1, 64).min(work.div_ceil(1 << 16).max(1));
            let next = AtomicUsize::new(0);
            // With one guess wanted, the first (lowest) one reaching the
            // least cost ends the scan: only lower ones can still tie.
            let cutoff = AtomicUsize::new(usize::MAX);
            let work = || {
                let mut counts = vec![0u32; self.spec.feedback_slots()];
                loop {
                    // Candidates are taken 16 at a time.
                    let i = next.fetch_add(16, Ordering::Relaxed);
                    if i >= list.len() || i > cutoff.load(Ordering::Relaxed) || stop() {
                        break;
                    }
                    for (j, &g) in list.iter().enumerate().take((i + 16).min(list.len())).skip(i) {
                        let lim = f64::from_bits(limit.load(Ordering::Relaxed));
                        if let Some(c) = self.eval(g, possible, lim, &mut counts)
                            && c.cost <= lim + EPS
                        {
                            if k == 1 && c.cost <= least + EPS {
                                cutoff.fetch_min(j, Ordering::Relaxed);
                            }
                            offer(c);
                        }
                    }
                }
            };
            if threads == 1 {
                work();
            } else {
                crate::threads::scope(|s| {
                    for _ in 1..threads {
                        s.spawn(work);
                    }
                    work();
                });
            }
        };
        run(possible, true);
        let done = {
            let v = kept.lock().unwrap_or_else(|p| p.into_inner());
            // The best possible guess reaches the least cost: unbeatable
            // (only the single best is wanted).
            k == 1 && v.first().is_some_and(|c| c.possible && c.cost <= least + EPS)
        };
        if !done {
            let mut rest = others();
            rest.retain(|g| self.sorted.binary_search(g).is_err());
            run(&rest, false);
        }
        kept.into_inner().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pruned search picks what a full scan picks, for every rule, on
    /// sets large enough to be pruned, with one and two threads.
    #[test]
    fn pruning_keeps_the_full_scans_choice() {
        let spec: Spec = "Mastermind+4x10".parse().unwrap();
        // Every third code as a candidate (the full scan is the slow part).
        let all: Vec<Code> = spec.all_codes().into_iter().step_by(3).collect();
        let g1 = spec.parse_code("1123").unwrap();
        let secret = spec.parse_code("4567").unwrap();
        let set: Vec<Code> =
            spec.all_codes().into_iter().filter(|&c| spec.score(g1, c) == spec.score(g1, secret)).collect();
        assert!(set.len() > 2 * BLOCK, "{}", set.len());
        for rule in [Rule::Entropy, Rule::Expected, Rule::Knuth, Rule::MostParts, Rule::Left] {
            let sp = Splitter::new(&spec, rule, &set, &set);
            let mut full: Vec<Choice> = all
                .iter()
                .map(|&g| {
                    let mut counts = vec![0u32; spec.feedback_slots()];
                    for &c in &set {
                        counts[spec.score(g, c).index(spec.pegs) as usize] += 1;
                    }
                    Choice { cost: sp.cost(&counts), possible: set.contains(&g), code: g }
                })
                .collect();
            full.sort_by(|a, b| {
                if a.better_than(b) { std::cmp::Ordering::Less } else { std::cmp::Ordering::Greater }
            });
            for threads in [1, 2] {
                let top = sp.top(&all, 5, threads, &|| false);
                let want: Vec<Code> = full[..5].iter().map(|c| c.code).collect();
                assert_eq!(top.iter().map(|c| c.code).collect::<Vec<_>>(), want, "{rule:?} {threads}");
                assert_eq!(sp.best(&all, threads, &|| false).unwrap().code, want[0], "{rule:?}");
            }
        }
    }

    #[test]
    fn water_filling_bounds_the_final_cost() {
        let spec = Spec::default();
        let set = spec.all_codes();
        let sp = Splitter::new(&spec, Rule::Entropy, &set, &set);
        let mut counts = vec![0u32; spec.feedback_slots()];
        counts[0] = 10;
        counts[1] = 5;
        let b = sp.bound(&counts, 30, false);
        // The 30 codes go to the 11 empty classes, level 30/11 < 5.
        let level: f64 = 30.0 / 11.0;
        let want = 10.0 * 10f64.ln() + 5.0 * 5f64.ln() + 11.0 * level * level.ln();
        assert!((b - want).abs() < 1e-6, "{b} {want}");
        // Never above any actual completion.
        for extra in 0..=30u32 {
            let mut c = counts.clone();
            c[2] += extra;
            c[5] += 30 - extra;
            assert!(b <= sp.cost(&c) + 1e-9);
        }
    }
}
