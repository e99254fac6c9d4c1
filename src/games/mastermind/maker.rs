//! The engine as codemaker: the true feedback when the game holds a fixed
//! secret; else the feedback of a code drawn uniformly among those
//! consistent with the rows (`random`), or the adversarial answer.

use std::ops::ControlFlow;

use rand::Rng;

use super::code::{Code, Feedback};
use super::consistent::{Row, for_each_consistent};
use super::spec::Spec;
use super::{MakerMode, Mastermind};

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

/// Random codes tried before the consistent ones are listed.
const REJECTION_TRIES: usize = 256;

/// A code drawn uniformly among those consistent with `rows` (`None` if
/// none is). Random codes are tried first (uniform among the consistent
/// ones when one fits: what a variant of millions of codes with few rows
/// needs); if none fits, the consistent codes are walked once with a
/// reservoir of one (uniform too).
pub fn random_consistent(spec: &Spec, rows: &[Row], rng: &mut impl Rng) -> Option<Code> {
    let fits = |c: Code| rows.iter().all(|r| spec.score(r.guess, c) == r.feedback);
    for _ in 0..REJECTION_TRIES {
        let c = Mastermind::random_code(spec, rng);
        if fits(c) {
            return Some(c);
        }
    }
    let (mut chosen, mut seen) = (None, 0u64);
    for_each_consistent(spec, rows, &mut |c| {
        seen += 1;
        if rng.random_range(0..seen) == 0 {
            chosen = Some(c);
        }
        ControlFlow::Continue(())
    });
    chosen
}

/// The codemaker's answer to `guess`: the true feedback for a fixed
/// secret, else by `mode`.
pub fn answer(
    spec: &Spec,
    rows: &[Row],
    guess: Code,
    secret: Option<Code>,
    mode: MakerMode,
    rng: &mut impl Rng,
) -> Feedback {
    match (secret, mode) {
        (Some(s), _) => spec.score(guess, s),
        (None, MakerMode::Random) => match random_consistent(spec, rows, rng) {
            Some(s) => spec.score(guess, s),
            // No code fits the rows (cannot happen in a game whose
            // feedbacks were checked): the adversary never contradicts.
            None => adversarial(spec, rows, guess),
        },
        (None, MakerMode::Adversarial) => adversarial(spec, rows, guess),
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

    /// The random codemaker's code is uniform among the consistent codes:
    /// after two rows on 4x6, each of them is drawn about equally often,
    /// on the rejection path and on the listing path.
    #[test]
    fn random_codemaker_draws_uniformly_among_consistent_codes() {
        use rand::SeedableRng;
        let s = Spec::default();
        let secret = s.parse_code("3456").unwrap();
        let rows = |guesses: &[&str]| -> Vec<Row> {
            guesses
                .iter()
                .map(|t| {
                    let guess = s.parse_code(t).unwrap();
                    Row { guess, feedback: s.score(guess, secret) }
                })
                .collect()
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for history in [vec!["1122"], vec!["1122", "3344", "3546"]] {
            let r = rows(&history);
            let consistent = super::super::consistent::consistent_codes(&s, &r);
            let mut counts = std::collections::HashMap::new();
            let draws = 200 * consistent.len();
            for _ in 0..draws {
                let c = random_consistent(&s, &r, &mut rng).unwrap();
                assert!(consistent.contains(&c));
                *counts.entry(c).or_insert(0usize) += 1;
            }
            assert_eq!(counts.len(), consistent.len(), "{history:?}: every consistent code is drawn");
            // 200 expected per code: a 5-sigma band (sd about 14).
            assert!(counts.values().all(|&n| (130..=270).contains(&n)), "{history:?}: {counts:?}");
        }
        let contradiction = vec![
            Row { guess: s.parse_code("1111").unwrap(), feedback: "0B0W".parse().unwrap() },
            Row { guess: s.parse_code("1234").unwrap(), feedback: "4B0W".parse().unwrap() },
        ];
        assert_eq!(random_consistent(&s, &contradiction, &mut rng), None);
    }
}
