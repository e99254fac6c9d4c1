//! The engine as codemaker: the true feedback when the game holds a
//! secret, else the adversarial answer.

use std::ops::ControlFlow;

use super::code::{Code, Feedback};
use super::consistent::{Row, for_each_consistent};
use super::spec::Spec;

/// Most codes counted before the adversary decides on what it has seen (a
/// guard for variants with hundreds of millions of codes).
const ADVERSARY_LIMIT: usize = 4_000_000;

/// The feedback to `guess` that keeps the most codes consistent with
/// `rows`; ties go to the smallest (black, white). The result is always
/// consistent (the game never becomes unwinnable by a contradiction).
pub fn adversarial(spec: &Spec, rows: &[Row], guess: Code) -> Feedback {
    let slots = spec.feedback_slots();
    let mut counts = vec![0usize; slots];
    let (m, mg) = (spec.multiset(guess), guess.0);
    let mut seen = 0;
    for_each_consistent(spec, rows, &mut |c| {
        let f = super::code::score_packed(spec.pegs, mg, m, c.0, spec.multiset(c));
        counts[f as usize] += 1;
        seen += 1;
        if seen >= ADVERSARY_LIMIT { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    });
    let win = spec.win().index(spec.pegs) as usize;
    let best = (0..slots)
        .filter(|&i| counts[i] > 0)
        .max_by_key(|&i| (counts[i], i != win, std::cmp::Reverse(i)))
        .unwrap_or(win);
    Feedback::from_index(spec.pegs, best as u8)
}

/// The codemaker's answer to `guess`.
pub fn answer(spec: &Spec, rows: &[Row], guess: Code, secret: Option<Code>) -> Feedback {
    match secret {
        Some(s) => spec.score(guess, s),
        None => adversarial(spec, rows, guess),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adversary_keeps_most_codes() {
        let s = Spec::default();
        let g = s.parse_code("1122").unwrap();
        // 1122 against 1296 codes: 0B0W, 0B1W and 1B0W have 256 codes
        // each, the most; the smallest feedback wins the tie.
        let f = adversarial(&s, &[], g);
        assert_eq!(f.to_string(), "0B0W");
        let all = s.all_codes();
        let size = |f: Feedback| all.iter().filter(|&&c| s.score(g, c) == f).count();
        assert_eq!(size(f), 256);
        assert!(all.iter().all(|&c| size(s.score(g, c)) <= 256));
        // With one code left it must give the win on that code.
        let secret = s.parse_code("3456").unwrap();
        let rows: Vec<Row> = ["1122", "3344", "5566", "3546", "3465"]
            .iter()
            .map(|t| {
                let guess = s.parse_code(t).unwrap();
                Row { guess, feedback: s.score(guess, secret) }
            })
            .collect();
        assert_eq!(adversarial(&s, &rows, secret), s.win());
    }
}
