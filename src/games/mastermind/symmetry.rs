//! Guesses that are equivalent for the codes still possible, so strategies
//! and the solver try one guess per equivalence class.
//!
//! Two reductions (both keep the sizes of the classes a guess splits the
//! possible codes into, and whether the guess is itself possible):
//! - symbols never played so far are interchangeable (the possible set is
//!   invariant under their permutations), and so are symbols that no
//!   possible code holds (they match nothing; with repeats allowed, all of
//!   them act as one symbol);
//! - a permutation of the positions together with a relabelling of the
//!   symbols played that maps every guess played so far onto itself
//!   (before the first guess: every position permutation; after `1234`:
//!   every one, with the matching relabelling; after `1122`: swapping the
//!   halves with 1 <-> 2, among others).
//!
//! The representative kept is the smallest code of its class, so
//! "lowest code" tie-breaks are unchanged.

use super::code::Code;
use super::spec::Spec;

/// The symmetries of one position.
#[derive(Clone, Debug)]
pub struct Symmetry {
    pegs: u8,
    /// Classes of interchangeable symbols, as bit sets.
    classes: Vec<u16>,
    /// Bit set of symbols no possible code holds, when they all act as one
    /// symbol (repeats allowed): only its smallest may be used.
    collapse: u16,
    /// Symmetries other than the identity: a position permutation `pi`
    /// and a symbol map `sigma`, acting on a code as
    /// `c'[i] = sigma[c[pi[i]]]`.
    perms: Vec<([u8; 8], [u8; 16])>,
}

impl Symmetry {
    /// `played`: symbols of every guess played; `present`: symbols of every
    /// possible code; `guesses`: the guesses played.
    pub fn new(spec: &Spec, played: u16, present: u16, guesses: &[Code]) -> Symmetry {
        let all = (1u16 << spec.symbols()) - 1;
        let unused = all & !played;
        let absent = all & !present;
        let mut classes = Vec::new();
        let mut collapse = 0;
        if spec.repeats && absent.count_ones() > 1 {
            collapse = absent;
        } else if absent.count_ones() > 1 {
            classes.push(absent);
        }
        if unused & absent == 0 && unused.count_ones() > 1 {
            classes.push(unused);
        }
        let mut perms = Vec::new();
        if spec.pegs <= 6 {
            let mut p: Vec<u8> = (0..spec.pegs).collect();
            permutations(&mut p, 0, &mut |perm| {
                if perm.iter().enumerate().all(|(i, &j)| i == j as usize) {
                    return;
                }
                if let Some(sigma) = relabelling(spec.pegs, perm, guesses) {
                    let mut a = [0u8; 8];
                    a[..perm.len()].copy_from_slice(perm);
                    perms.push((a, sigma));
                }
            });
        }
        Symmetry { pegs: spec.pegs, classes, collapse, perms }
    }

    /// The symmetries of a position from its history and possible set.
    pub fn of_position(spec: &Spec, guesses: &[Code], possible: &[Code]) -> Symmetry {
        let played = guesses.iter().fold(0, |m, g| m | g.symbol_set(spec.pegs));
        let present = possible.iter().fold(0, |m, c| m | c.symbol_set(spec.pegs));
        Symmetry::new(spec, played, present, guesses)
    }

    /// True if nothing is reduced.
    pub fn is_trivial(&self) -> bool {
        self.classes.is_empty() && self.collapse == 0 && self.perms.is_empty()
    }

    /// Relabels symbols to the smallest equivalent code (positions kept),
    /// packed.
    #[inline]
    fn canon_symbols(&self, pegs: &[u8]) -> u32 {
        let mut out = 0u32;
        let mut map = [u8::MAX; 16];
        // At most two classes (absent, unused): no allocation per call.
        let mut next = [0u16; 2];
        next[..self.classes.len()].copy_from_slice(&self.classes);
        let low = if self.collapse != 0 { self.collapse.trailing_zeros() as u8 } else { 0 };
        for &k in pegs {
            let s = if self.collapse & 1 << k != 0 {
                low
            } else if map[k as usize] != u8::MAX {
                map[k as usize]
            } else if let Some(c) = self.classes.iter().position(|&c| c & 1 << k != 0) {
                let s = next[c].trailing_zeros() as u8;
                next[c] &= !(1 << s);
                map[k as usize] = s;
                s
            } else {
                k
            };
            out = out << 4 | s as u32;
        }
        out
    }

    fn unpack(&self, code: Code) -> [u8; 8] {
        let mut pegs = [0u8; 8];
        for (i, x) in pegs.iter_mut().enumerate().take(self.pegs as usize) {
            *x = code.peg(self.pegs, i as u8);
        }
        pegs
    }

    /// True if `code` is the representative of its class.
    pub fn is_canonical(&self, code: Code) -> bool {
        let p = self.pegs as usize;
        let pegs = self.unpack(code);
        if self.canon_symbols(&pegs[..p]) != code.0 {
            return false;
        }
        self.canonical_under_perms(code, &pegs)
    }

    /// True if no position symmetry (with symbols relabelled) gives a
    /// smaller code than `code`, whose symbols are canonical.
    fn canonical_under_perms(&self, code: Code, pegs: &[u8; 8]) -> bool {
        let p = self.pegs as usize;
        for (perm, sigma) in &self.perms {
            let mut q = [0u8; 8];
            for i in 0..p {
                q[i] = sigma[pegs[perm[i] as usize] as usize];
            }
            if self.canon_symbols(&q[..p]) < code.0 {
                return false;
            }
        }
        true
    }

    /// The representative of the class of `code` (the smallest code
    /// equivalent to it).
    pub fn canonical(&self, code: Code) -> Code {
        let p = self.pegs as usize;
        let pegs = self.unpack(code);
        let mut best = self.canon_symbols(&pegs[..p]);
        for (perm, sigma) in &self.perms {
            let mut q = [0u8; 8];
            for i in 0..p {
                q[i] = sigma[pegs[perm[i] as usize] as usize];
            }
            best = best.min(self.canon_symbols(&q[..p]));
        }
        Code(best)
    }

    /// The representative of every class of guesses of `spec`, in
    /// increasing order: generated peg by peg (a symbol of an
    /// interchangeable class only if already used or the smallest unused
    /// one of its class), then filtered by the position symmetries. Costs
    /// about the number of representatives, not the number of codes.
    pub fn representatives(&self, spec: &Spec) -> Vec<Code> {
        let mut out = Vec::new();
        let mut pegs = [0u8; 8];
        let mut next = [0u16; 2];
        next[..self.classes.len()].copy_from_slice(&self.classes);
        self.generate(spec, 0, 0, &mut pegs, next, &mut out);
        out
    }

    fn generate(
        &self,
        spec: &Spec,
        i: usize,
        used: u16,
        pegs: &mut [u8; 8],
        next: [u16; 2],
        out: &mut Vec<Code>,
    ) {
        let p = self.pegs as usize;
        if i == p {
            let code = Code::from_pegs(&pegs[..p]);
            if self.perms.is_empty() || self.canonical_under_perms(code, pegs) {
                out.push(code);
            }
            return;
        }
        let low = if self.collapse != 0 { self.collapse.trailing_zeros() as u8 } else { u8::MAX };
        for k in 0..spec.symbols() {
            let bit = 1u16 << k;
            if !spec.repeats && used & bit != 0 {
                continue;
            }
            if self.collapse & bit != 0 && k != low {
                continue;
            }
            let mut next2 = next;
            if used & bit == 0
                && let Some(c) = self.classes.iter().position(|&c| c & bit != 0)
            {
                if next[c].trailing_zeros() != k as u32 {
                    continue;
                }
                next2[c] &= !bit;
            }
            pegs[i] = k;
            self.generate(spec, i + 1, used | bit, pegs, next2, out);
        }
    }

    /// The representatives among `codes`.
    #[cfg(test)]
    pub fn filter(&self, codes: &[Code]) -> Vec<Code> {
        if self.is_trivial() {
            return codes.to_vec();
        }
        codes.iter().copied().filter(|&c| self.is_canonical(c)).collect()
    }
}

/// The symbol map `sigma` with `sigma[h[perm[i]]] = h[i]` for every guess
/// `h` and position `i`, if it is a bijection (symbols never played map to
/// themselves).
fn relabelling(pegs: u8, perm: &[u8], guesses: &[Code]) -> Option<[u8; 16]> {
    let mut sigma = [u8::MAX; 16];
    let mut inverse = [u8::MAX; 16];
    for h in guesses {
        for i in 0..pegs {
            let a = h.peg(pegs, perm[i as usize]) as usize;
            let b = h.peg(pegs, i);
            if sigma[a] == u8::MAX && inverse[b as usize] == u8::MAX {
                sigma[a] = b;
                inverse[b as usize] = a as u8;
            } else if sigma[a] != b {
                return None;
            }
        }
    }
    for (k, x) in sigma.iter_mut().enumerate() {
        if *x == u8::MAX {
            *x = k as u8;
        }
    }
    Some(sigma)
}

fn permutations(p: &mut Vec<u8>, k: usize, f: &mut dyn FnMut(&[u8])) {
    if k == p.len() {
        f(p);
        return;
    }
    for i in k..p.len() {
        p.swap(k, i);
        permutations(p, k + 1, f);
        p.swap(k, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(spec: &Spec, codes: &[Code]) -> Vec<String> {
        codes.iter().map(|&c| spec.code_text(c).to_string()).collect()
    }

    #[test]
    fn five_first_guesses_on_4x6() {
        let s = Spec::default();
        let all = s.all_codes();
        let sym = Symmetry::of_position(&s, &[], &all);
        assert_eq!(texts(&s, &sym.filter(&all)), ["1111", "1112", "1122", "1123", "1234"]);
        let s5: Spec = "Mastermind+5x8".parse().unwrap();
        let all5 = s5.all_codes();
        assert_eq!(Symmetry::of_position(&s5, &[], &all5).filter(&all5).len(), 7);
        let bc: Spec = "Mastermind+4x10+norepeat".parse().unwrap();
        let allbc = bc.all_codes();
        assert_eq!(texts(&bc, &Symmetry::of_position(&bc, &[], &allbc).filter(&allbc)), ["1234"]);
    }

    #[test]
    fn after_a_guess() {
        let s = Spec::default();
        let all = s.all_codes();
        let g = s.parse_code("1123").unwrap();
        // Nothing absent: classes {4,5,6}; positions 1 and 2 swap.
        let sym = Symmetry::of_position(&s, &[g], &all);
        let reps = sym.filter(&all);
        assert!(reps.contains(&s.parse_code("1145").unwrap()));
        assert!(!reps.contains(&s.parse_code("1154").unwrap()));
        assert!(!reps.contains(&s.parse_code("1146").unwrap()));
        assert!(!reps.contains(&s.parse_code("2113").unwrap()), "1213 is the same");
        // After 1234 every position permutation is a symmetry (with the
        // matching relabelling, acting as conjugation on 1234..): 2134 ~
        // 1243 (transpositions), 4321 ~ 2143, 5123 ~ 1534 ~ 1254 ~ 1235.
        let h = s.parse_code("1234").unwrap();
        let reps = Symmetry::of_position(&s, &[h], &all).filter(&all);
        for c in ["2134", "1324", "4321", "5123", "1534", "1254"] {
            assert!(!reps.contains(&s.parse_code(c).unwrap()), "{c}");
        }
        for c in ["1234", "1243", "2143", "1111", "1235", "5555"] {
            assert!(reps.contains(&s.parse_code(c).unwrap()), "{c}");
        }
        // Every code is equivalent to exactly one representative: the
        // number of orbits is 1296 / group size at most.
        assert!(reps.len() < 1296 / 4);
        // Possible set without 1 and 2: both act as one absent symbol.
        let possible: Vec<Code> = all.iter().copied().filter(|c| c.symbol_set(4) & 0b11 == 0).collect();
        let sym = Symmetry::of_position(&s, &[g], &possible);
        let reps = sym.filter(&all);
        assert!(reps.contains(&s.parse_code("1134").unwrap()));
        assert!(!reps.contains(&s.parse_code("2134").unwrap()));
        assert!(!reps.contains(&s.parse_code("1234").unwrap()), "2 acts as 1");
    }

    /// Every code splits the possible set like some representative no
    /// larger than itself (same sorted class sizes, same membership).
    #[test]
    fn representatives_cover_every_guess() {
        use std::collections::HashMap;
        let s = Spec::default();
        let all = s.all_codes();
        let secret = s.parse_code("3516").unwrap();
        for history in [vec![], vec!["1234"], vec!["1122"], vec!["1123", "3345"], vec!["1234", "1256"]] {
            let guesses: Vec<Code> = history.iter().map(|t| s.parse_code(t).unwrap()).collect();
            let possible: Vec<Code> = all
                .iter()
                .copied()
                .filter(|&c| guesses.iter().all(|&g| s.score(g, c) == s.score(g, secret)))
                .collect();
            let sig = |g: Code| {
                let mut counts = vec![0u32; s.feedback_slots()];
                for &c in &possible {
                    counts[s.score(g, c).index(s.pegs) as usize] += 1;
                }
                counts.sort_unstable();
                (counts, possible.contains(&g))
            };
            let sym = Symmetry::of_position(&s, &guesses, &possible);
            let mut reps: HashMap<_, Code> = HashMap::new();
            for r in sym.filter(&all) {
                reps.entry(sig(r)).or_insert(r);
            }
            for &c in &all {
                let r = reps.get(&sig(c));
                assert!(r.is_some_and(|&r| r <= c), "{history:?}: {} has no representative", s.code_text(c));
                let k = sym.canonical(c);
                assert!(k <= c && sym.is_canonical(k) && sig(k) == sig(c), "{history:?}: {}", s.code_text(c));
            }
            assert_eq!(sym.representatives(&s), sym.filter(&all), "{history:?}");
        }
    }

    /// The generator lists exactly the canonical codes, on variants with
    /// blanks, without repeats, and with absent symbols.
    #[test]
    fn representatives_are_the_canonical_codes() {
        for (t, history) in [
            ("Mastermind+5x8", vec!["11223"]),
            ("Mastermind+3x5+blanks+norepeat", vec!["12_"]),
            ("Mastermind+4x7+norepeat", vec!["1234", "1567"]),
            ("Mastermind+3x6", vec!["123", "145"]),
        ] {
            let s: Spec = t.parse().unwrap();
            let all = s.all_codes();
            let guesses: Vec<Code> = history.iter().map(|h| s.parse_code(h).unwrap()).collect();
            let secret = all[all.len() / 2];
            let possible: Vec<Code> = all
                .iter()
                .copied()
                .filter(|&c| guesses.iter().all(|&g| s.score(g, c) == s.score(g, secret)))
                .collect();
            for sym in [Symmetry::of_position(&s, &guesses, &possible), Symmetry::of_position(&s, &[], &all)]
            {
                assert_eq!(sym.representatives(&s), sym.filter(&all), "{t}");
            }
        }
    }
}
