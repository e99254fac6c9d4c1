//! The inner loops every codebreaker spends its time in: the feedbacks of
//! one guess against many codes, as a list or as a histogram by feedback.
//!
//! Codes are packed as in [`Code`] (a nibble per peg) beside their symbol
//! multisets in unary ([`Spec::multiset`]): blacks are the zero nibbles of
//! the XOR, black + white the popcount of the multisets' AND. On x86-64
//! the loops are compiled twice, and the copy using the `popcnt`
//! instruction runs when the CPU has it (every x86-64 CPU since 2008; the
//! default target does not assume it).

use super::code::Code;
use super::spec::Spec;

/// Codes ready to be scored fast.
#[derive(Clone, Debug, Default)]
pub struct CodeSet {
    pegs: u8,
    codes: Vec<u32>,
    /// Multisets when pegs x symbols <= 64, else empty.
    narrow: Vec<u64>,
    /// Multisets otherwise.
    wide: Vec<u128>,
    /// The CPU has `popcnt` (looked at on x86-64 only).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pop: bool,
}

/// A guess ready to be scored against a [`CodeSet`].
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    code: u32,
    ms: u128,
}

/// True if multisets of `spec` fit in 64 bits.
fn is_narrow(spec: &Spec) -> bool {
    spec.pegs as u32 * spec.symbols() as u32 <= 64
}

impl CodeSet {
    pub fn new(spec: &Spec, codes: &[Code]) -> CodeSet {
        let narrow = is_narrow(spec);
        CodeSet {
            pegs: spec.pegs,
            codes: codes.iter().map(|c| c.0).collect(),
            narrow: if narrow {
                codes.iter().map(|&c| spec.multiset(c) as u64).collect()
            } else {
                Vec::new()
            },
            wide: if narrow { Vec::new() } else { codes.iter().map(|&c| spec.multiset(c)).collect() },
            pop: has_popcnt(),
        }
    }

    pub fn len(&self) -> usize {
        self.codes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Adds one to `counts[f]` for the feedback index `f` of `g` against
    /// every code (`f` = black times pegs + 1, plus white). `counts` has at
    /// least (pegs + 1) squared entries.
    pub fn histogram(&self, g: Probe, counts: &mut [u32]) {
        assert!(counts.len() > self.pegs as usize * (self.pegs as usize + 2));
        if self.narrow.is_empty() && !self.is_empty() {
            return hist_wide(self.pegs, g, &self.codes, &self.wide, counts);
        }
        #[cfg(target_arch = "x86_64")]
        if self.pop {
            // SAFETY: the CPU has the instruction (checked at run time).
            return unsafe { hist_narrow_popcnt(self.pegs, g, &self.codes, &self.narrow, counts) };
        }
        hist_narrow::<false>(self.pegs, g, &self.codes, &self.narrow, counts)
    }

    /// [`CodeSet::histogram`] that also sums `delta[n]` for every class
    /// count n reached: with `delta[n] = f(n) - f(n - 1)` the sum is the
    /// sum of `f(count)` over the classes. `None` where the multisets are
    /// wide (the caller counts classes then).
    pub fn histogram_sum(&self, g: Probe, delta: &[u64], counts: &mut [u32]) -> Option<u64> {
        assert!(counts.len() > self.pegs as usize * (self.pegs as usize + 2));
        assert!(delta.len() > self.codes.len());
        if self.narrow.is_empty() && !self.is_empty() {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        if self.pop {
            // SAFETY: the CPU has the instruction (checked at run time).
            return Some(unsafe {
                sum_narrow_popcnt(self.pegs, g, &self.codes, &self.narrow, delta, counts)
            });
        }
        Some(sum_narrow::<false>(self.pegs, g, &self.codes, &self.narrow, delta, counts))
    }

    /// [`CodeSet::histogram`] over the codes `start..end` only.
    pub fn histogram_range(&self, g: Probe, start: usize, end: usize, counts: &mut [u32]) {
        assert!(counts.len() > self.pegs as usize * (self.pegs as usize + 2));
        if self.narrow.is_empty() && !self.is_empty() {
            return hist_wide(self.pegs, g, &self.codes[start..end], &self.wide[start..end], counts);
        }
        let (codes, ms) = (&self.codes[start..end], &self.narrow[start..end]);
        #[cfg(target_arch = "x86_64")]
        if self.pop {
            // SAFETY: the CPU has the instruction (checked at run time).
            return unsafe { hist_narrow_popcnt(self.pegs, g, codes, ms, counts) };
        }
        hist_narrow::<false>(self.pegs, g, codes, ms, counts)
    }

    /// The feedback index of `g` against every code, into `out` (same
    /// length as the set).
    pub fn feedbacks(&self, g: Probe, out: &mut [u8]) {
        assert_eq!(out.len(), self.codes.len());
        if self.narrow.is_empty() && !self.is_empty() {
            for ((o, &c), &m) in out.iter_mut().zip(&self.codes).zip(&self.wide) {
                *o = score(self.pegs, g.code, g.ms, c, m);
            }
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.pop {
            // SAFETY: as in `histogram`.
            return unsafe { feedbacks_narrow_popcnt(self.pegs, g, &self.codes, &self.narrow, out) };
        }
        feedbacks_narrow::<false>(self.pegs, g, &self.codes, &self.narrow, out)
    }
}

impl Probe {
    pub fn new(spec: &Spec, g: Code) -> Probe {
        Probe { code: g.0, ms: spec.multiset(g) }
    }
}

/// True if the CPU has `popcnt`.
fn has_popcnt() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("popcnt");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Pegs where two packed codes differ. With `POP` by a popcount of one
/// flag bit per nibble, else by a multiplication that sums them.
#[inline(always)]
fn mismatches<const POP: bool>(a: u32, b: u32) -> u32 {
    let mut x = a ^ b;
    x |= x >> 1;
    x |= x >> 2;
    if POP {
        (x & 0x1111_1111).count_ones()
    } else {
        (((x & 0x1111_1111) as u64).wrapping_mul(0x1111_1111) >> 28) as u32 & 0xF
    }
}

/// Feedback index of two narrow codes: `black * (pegs + 1) + white` =
/// `black * pegs + (black + white)`.
#[inline(always)]
fn score_narrow<const POP: bool>(pegs: u8, a: u32, am: u64, b: u32, bm: u64) -> u8 {
    let black = pegs as u32 - mismatches::<POP>(a, b);
    (black * pegs as u32 + (am & bm).count_ones()) as u8
}

#[inline(always)]
fn score(pegs: u8, a: u32, am: u128, b: u32, bm: u128) -> u8 {
    let black = pegs as u32 - mismatches::<false>(a, b);
    (black * pegs as u32 + (am & bm).count_ones()) as u8
}

#[inline(always)]
fn hist_narrow<const POP: bool>(pegs: u8, g: Probe, codes: &[u32], ms: &[u64], counts: &mut [u32]) {
    let gm = g.ms as u64;
    for (&c, &m) in codes.iter().zip(ms) {
        counts[score_narrow::<POP>(pegs, g.code, gm, c, m) as usize] += 1;
    }
}

#[inline(always)]
fn sum_narrow<const POP: bool>(
    pegs: u8,
    g: Probe,
    codes: &[u32],
    ms: &[u64],
    delta: &[u64],
    counts: &mut [u32],
) -> u64 {
    let gm = g.ms as u64;
    let mut sum = 0u64;
    for (&c, &m) in codes.iter().zip(ms) {
        let f = score_narrow::<POP>(pegs, g.code, gm, c, m) as usize;
        counts[f] += 1;
        sum += delta[counts[f] as usize];
    }
    sum
}

#[inline(always)]
fn feedbacks_narrow<const POP: bool>(pegs: u8, g: Probe, codes: &[u32], ms: &[u64], out: &mut [u8]) {
    let gm = g.ms as u64;
    for ((o, &c), &m) in out.iter_mut().zip(codes).zip(ms) {
        *o = score_narrow::<POP>(pegs, g.code, gm, c, m);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn hist_narrow_popcnt(pegs: u8, g: Probe, codes: &[u32], ms: &[u64], counts: &mut [u32]) {
    hist_narrow::<true>(pegs, g, codes, ms, counts)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn sum_narrow_popcnt(
    pegs: u8,
    g: Probe,
    codes: &[u32],
    ms: &[u64],
    delta: &[u64],
    counts: &mut [u32],
) -> u64 {
    sum_narrow::<true>(pegs, g, codes, ms, delta, counts)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn feedbacks_narrow_popcnt(pegs: u8, g: Probe, codes: &[u32], ms: &[u64], out: &mut [u8]) {
    feedbacks_narrow::<true>(pegs, g, codes, ms, out)
}

fn hist_wide(pegs: u8, g: Probe, codes: &[u32], ms: &[u128], counts: &mut [u32]) {
    for (&c, &m) in codes.iter().zip(ms) {
        counts[score(pegs, g.code, g.ms, c, m) as usize] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_agree_with_the_scorer() {
        for t in ["Mastermind", "Mastermind+5x8", "Mastermind+3x5+blanks+norepeat", "Mastermind+8x10"] {
            let spec: Spec = t.parse().unwrap();
            let mut rng_state = 12345u64;
            let mut next = || {
                rng_state = rng_state.wrapping_mul(6364136223846793005).wrapping_add(1);
                rng_state >> 33
            };
            let codes: Vec<Code> = (0..500)
                .map(|_| {
                    let pegs: Vec<u8> =
                        (0..spec.pegs).map(|_| (next() % spec.symbols() as u64) as u8).collect();
                    Code::from_pegs(&pegs)
                })
                .collect();
            let set = CodeSet::new(&spec, &codes);
            for &g in codes.iter().take(20) {
                let mut out = vec![0u8; codes.len()];
                set.feedbacks(Probe::new(&spec, g), &mut out);
                let mut counts = vec![0u32; spec.feedback_slots()];
                set.histogram(Probe::new(&spec, g), &mut counts);
                let mut want = vec![0u32; spec.feedback_slots()];
                for (i, &c) in codes.iter().enumerate() {
                    let f = spec.score(g, c).index(spec.pegs);
                    assert_eq!(out[i], f, "{t}");
                    want[f as usize] += 1;
                }
                assert_eq!(counts, want, "{t}");
                #[cfg(target_arch = "x86_64")]
                if is_narrow(&spec) {
                    // Both copies of the loop, whatever the CPU picks.
                    let mut plain = vec![0u8; codes.len()];
                    feedbacks_narrow::<false>(
                        spec.pegs,
                        Probe::new(&spec, g),
                        &set.codes,
                        &set.narrow,
                        &mut plain,
                    );
                    assert_eq!(plain, out);
                }
            }
        }
    }
}
