//! Which codes agree with the feedback given so far: a depth-first search
//! over the pegs that prunes on the black count and on the number of shared
//! symbols of every row, so it stays fast even on variants with millions of
//! codes.

use std::ops::ControlFlow;

use super::code::{Code, Feedback};
use super::spec::Spec;

/// One finished row of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Row {
    pub guess: Code,
    pub feedback: Feedback,
}

struct Dfs<'a> {
    spec: &'a Spec,
    /// Per row: guess pegs, symbol counts of the guess, target black and
    /// target black + white.
    pegs: Vec<[u8; 8]>,
    counts: Vec<[u8; 16]>,
    target_black: Vec<u8>,
    target_total: Vec<u8>,
    black: Vec<u8>,
    total: Vec<u8>,
    secret_counts: [u8; 16],
    code: [u8; 8],
}

impl Dfs<'_> {
    fn run(&mut self, i: u8, f: &mut dyn FnMut(Code) -> ControlFlow<()>) -> ControlFlow<()> {
        let p = self.spec.pegs;
        if i == p {
            return f(Code::from_pegs(&self.code[..p as usize]));
        }
        let rem = p - i - 1;
        'sym: for k in 0..self.spec.symbols() {
            if !self.spec.repeats && self.secret_counts[k as usize] > 0 {
                continue;
            }
            let mut ok = true;
            for r in 0..self.pegs.len() {
                let b = self.black[r] + (self.pegs[r][i as usize] == k) as u8;
                let t = self.total[r] + (self.secret_counts[k as usize] < self.counts[r][k as usize]) as u8;
                if b > self.target_black[r]
                    || b + rem < self.target_black[r]
                    || t > self.target_total[r]
                    || t + rem < self.target_total[r]
                {
                    ok = false;
                    break;
                }
            }
            if !ok {
                continue 'sym;
            }
            for r in 0..self.pegs.len() {
                self.black[r] += (self.pegs[r][i as usize] == k) as u8;
                self.total[r] += (self.secret_counts[k as usize] < self.counts[r][k as usize]) as u8;
            }
            self.secret_counts[k as usize] += 1;
            self.code[i as usize] = k;
            let flow = self.run(i + 1, f);
            self.secret_counts[k as usize] -= 1;
            for r in 0..self.pegs.len() {
                self.black[r] -= (self.pegs[r][i as usize] == k) as u8;
                self.total[r] -= (self.secret_counts[k as usize] < self.counts[r][k as usize]) as u8;
            }
            flow?;
        }
        ControlFlow::Continue(())
    }
}

/// Calls `f` on every code consistent with `rows`, in increasing order,
/// until it breaks.
pub fn for_each_consistent(spec: &Spec, rows: &[Row], f: &mut dyn FnMut(Code) -> ControlFlow<()>) {
    let p = spec.pegs;
    let mut dfs = Dfs {
        spec,
        pegs: Vec::with_capacity(rows.len()),
        counts: Vec::with_capacity(rows.len()),
        target_black: rows.iter().map(|r| r.feedback.black).collect(),
        target_total: rows.iter().map(|r| r.feedback.black + r.feedback.white).collect(),
        black: vec![0; rows.len()],
        total: vec![0; rows.len()],
        secret_counts: [0; 16],
        code: [0; 8],
    };
    for r in rows {
        let mut pegs = [0u8; 8];
        let mut counts = [0u8; 16];
        for i in 0..p {
            let k = r.guess.peg(p, i);
            pegs[i as usize] = k;
            counts[k as usize] += 1;
        }
        dfs.pegs.push(pegs);
        dfs.counts.push(counts);
    }
    let _ = dfs.run(0, f);
}

/// Every code consistent with `rows`.
#[cfg(test)]
pub fn consistent_codes(spec: &Spec, rows: &[Row]) -> Vec<Code> {
    some_consistent(spec, rows, usize::MAX).0
}

/// Up to `limit` consistent codes, and whether there are more.
pub fn some_consistent(spec: &Spec, rows: &[Row], limit: usize) -> (Vec<Code>, bool) {
    let mut out = Vec::new();
    let mut more = false;
    for_each_consistent(spec, rows, &mut |c| {
        if out.len() == limit {
            more = true;
            return ControlFlow::Break(());
        }
        out.push(c);
        ControlFlow::Continue(())
    });
    (out, more)
}

/// Some code consistent with `rows`, if any.
pub fn first_consistent(spec: &Spec, rows: &[Row]) -> Option<Code> {
    some_consistent(spec, rows, 1).0.first().copied()
}

/// The feedbacks to `guess` that keep at least one code consistent with
/// `rows`, in increasing (black, white) order.
pub fn possible_feedbacks(spec: &Spec, rows: &[Row], guess: Code) -> Vec<Feedback> {
    let p = spec.pegs;
    let mut out = Vec::new();
    let mut with = rows.to_vec();
    for black in 0..=p {
        for white in 0..=p - black {
            let feedback = Feedback { black, white };
            if !spec.feedback_possible(feedback) {
                continue;
            }
            with.push(Row { guess, feedback });
            if first_consistent(spec, &with).is_some() {
                out.push(feedback);
            }
            with.pop();
        }
    }
    out
}

/// When `rows` + `last` admit no code: the smallest `r` such that rows
/// `1..=r` together with `last` already admit none (0: `last` alone is
/// impossible for this guess). `None` if some code fits them all.
pub fn first_contradiction(spec: &Spec, rows: &[Row], last: Row) -> Option<usize> {
    let mut with = Vec::with_capacity(rows.len() + 1);
    with.push(last);
    if first_consistent(spec, &with).is_none() {
        return Some(0);
    }
    for (r, row) in rows.iter().enumerate() {
        with.push(*row);
        if first_consistent(spec, &with).is_none() {
            return Some(r + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(s: &Spec, g: &str, f: &str) -> Row {
        Row { guess: s.parse_code(g).unwrap(), feedback: f.parse().unwrap() }
    }

    #[test]
    fn dfs_agrees_with_filtering() {
        for (t, g1, g2) in [
            ("Mastermind", "1123", "3456"),
            ("Mastermind+5x3+blanks", "11_23", "_2_1_"),
            ("Mastermind+4x6+norepeat", "1234", "2456"),
        ] {
            let s: Spec = t.parse().unwrap();
            let all = s.all_codes();
            let secret = all[all.len() / 3];
            let rows = [g1, g2].map(|g| {
                let guess = s.parse_code(g).unwrap();
                Row { guess, feedback: s.score(guess, secret) }
            });
            let want: Vec<Code> = all
                .iter()
                .copied()
                .filter(|&c| rows.iter().all(|r| s.score(r.guess, c) == r.feedback))
                .collect();
            assert_eq!(consistent_codes(&s, &rows), want, "{t}");
            assert!(want.contains(&secret));
            let fbs = possible_feedbacks(&s, &rows[..1], rows[1].guess);
            let mut want_fbs: Vec<Feedback> = all
                .iter()
                .filter(|&&c| s.score(rows[0].guess, c) == rows[0].feedback)
                .map(|&c| s.score(rows[1].guess, c))
                .collect();
            want_fbs.sort();
            want_fbs.dedup();
            assert_eq!(fbs, want_fbs, "{t}");
        }
    }

    #[test]
    fn contradictions() {
        let s = Spec::default();
        let rows = [row(&s, "1122", "0B0W"), row(&s, "3344", "1B0W")];
        // 1111 can only get black pegs.
        assert_eq!(first_contradiction(&s, &rows, row(&s, "1111", "0B1W")), Some(0));
        // Row 1 says there is no 1 or 2.
        assert_eq!(first_contradiction(&s, &rows, row(&s, "1234", "3B0W")), Some(1));
        // xx34 fits row 1 but gets 1B1W from 3344.
        assert_eq!(first_contradiction(&s, &rows, row(&s, "1234", "2B0W")), Some(2));
        // Row 2 allows only one 3 or 4; 5365 fits 0B3W.
        assert_eq!(first_contradiction(&s, &rows, row(&s, "3456", "0B4W")), Some(2));
        assert_eq!(first_contradiction(&s, &rows, row(&s, "3456", "0B3W")), None);
        assert_eq!(possible_feedbacks(&s, &[], s.parse_code("1111").unwrap()).len(), 5);
    }

    #[test]
    fn huge_variant_stays_fast() {
        let s: Spec = "Mastermind+8x10".parse().unwrap();
        let g = s.parse_code("12345678").unwrap();
        let fbs = possible_feedbacks(&s, &[], g);
        assert_eq!(fbs.len(), 44, "p(p+3)/2 for 8 pegs");
        let rows = [row(&s, "12345678", "2B3W"), row(&s, "11223344", "1B2W")];
        let (few, _) = some_consistent(&s, &rows, 10);
        assert_eq!(few.len(), 10);
        assert!(few.iter().all(|&c| rows.iter().all(|r| s.score(r.guess, c) == r.feedback)));
    }
}
