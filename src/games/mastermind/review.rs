//! Mastermind's review (protocol.md, "`review`"): each guess judged
//! exactly by how it splits the codes still possible, against the best
//! guess there was.
//!
//! A guess's value is the expected number of codes left to find after
//! it: the possible codes split by the feedback each would give, a code
//! in a class of n leaving n codes, the guess itself (if possible) none,
//! so `sum of n^2 / codes` over the classes other than the winning one.
//! The best guess is the one of least value among every code of the
//! variant (one per class of equivalent guesses, `symmetry.rs`; ties to a
//! possible code, then the lowest), found by the pruned exact scan of
//! `split.rs`.
//!
//! How much a guess lost is told in guesses: with `E` codes expected to
//! be left, about `G(E) = log_K(1 + (K - 1) E)` guesses are still needed
//! (`K`: the feedbacks of the variant, the most classes a guess can make;
//! `G(0) = 0`, the code found; `G(1) = 1`, one code left to name; one
//! guess more per factor K of codes), so a guess loses `G(value) -
//! G(best)` (key `lost`). Its drop in winning-chance terms is 0.6 per
//! guess, so by lichess's thresholds a guess is an inaccuracy from 1/6 of
//! a guess lost, a mistake from 1/3, a blunder from 1/2 (a last guess
//! that could not be the code loses a whole one). A guess that could not
//! be the code while a possible one was as good is noted `impossible`;
//! one that splits nothing, `nothing-new`. The codemaker's feedback is
//! listed, not judged (label `none`), with the codes it leaves.
//!
//! Variants whose possible codes are too many to list (more than 2^21),
//! or a position whose best guess is not found within the limits, give
//! `unproven` (with the guess's own value when it is known, and the best
//! found so far as an upper bound).

use std::ops::ControlFlow;

use super::breakers::StopCheck;
use super::code::Code;
use super::consistent::{Row, for_each_consistent};
use super::spec::Spec;
use super::split::{Rule, Splitter};
use super::symmetry::Symmetry;
use super::{Mastermind, MmMove};
use crate::engine::review::{Label, PlyReview, Reviewer};
use crate::game::Game;

/// Most possible codes listed to judge a guess.
const SET_LIMIT: usize = 1 << 21;
/// Variants of more codes try only the possible codes as the best guess
/// (the best is then `unproven`).
const CANDIDATE_LIMIT: u64 = 1 << 20;
/// Drop in winning chance per guess lost.
pub const DROP_PER_GUESS: f64 = 0.6;

/// How a guess splits the possible codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// The sum of n^2 over the classes other than the winning one.
    pub left_sum: u64,
    /// The largest class other than the winning one.
    pub worst: u64,
    /// Classes (the winning one included).
    pub parts: usize,
    /// The guess is one of the possible codes.
    pub possible: bool,
}

/// The split of `set` (the possible codes, increasing) by `guess`.
pub fn split(spec: &Spec, set: &[Code], guess: Code) -> Split {
    let mut counts = vec![0u64; spec.feedback_slots()];
    for &c in set {
        counts[spec.score(guess, c).index(spec.pegs) as usize] += 1;
    }
    let win = spec.win().index(spec.pegs) as usize;
    let others = counts.iter().enumerate().filter(|&(i, _)| i != win).map(|(_, &n)| n);
    Split {
        left_sum: others.clone().map(|n| n * n).sum(),
        worst: others.max().unwrap_or(0),
        parts: counts.iter().filter(|&&n| n > 0).count(),
        possible: set.binary_search(&guess).is_ok(),
    }
}

/// The value of a split of `n` codes: the expected number of codes left.
pub fn value(left_sum: u64, n: usize) -> f64 {
    if n == 0 { 0.0 } else { left_sum as f64 / n as f64 }
}

/// The feedbacks a guess of `spec` can get (its most classes).
pub fn feedbacks(spec: &Spec) -> u32 {
    let p = spec.pegs as u32;
    // (black, white) with black + white <= p, less (p - 1, 1).
    (p + 1) * (p + 2) / 2 - 1
}

/// About how many guesses are still needed with `e` codes expected to be
/// left, `k` feedbacks a guess: `log_k(1 + (k - 1) e)`.
pub fn guesses_needed(e: f64, k: u32) -> f64 {
    let k = k.max(2) as f64;
    (1.0 + (k - 1.0) * e).ln() / k.ln()
}

/// The guesses lost by a guess of value `v` where the best was `best`.
pub fn guesses_lost(v: f64, best: f64, k: u32) -> f64 {
    (guesses_needed(v, k) - guesses_needed(best, k)).max(0.0)
}

/// The best guess for `set` after `rows` and its `left_sum`, with the
/// best possible code's when `possible_too`; `exact` is false when the
/// limits cut the scan short (the best is then only the best found) or
/// the variant is too large to try every guess.
struct Best {
    code: Code,
    left_sum: u64,
    possible: Option<(Code, u64)>,
    exact: bool,
}

fn best(
    spec: &Spec,
    rows: &[Row],
    set: &[Code],
    possible_too: bool,
    stop: &StopCheck,
    threads: usize,
) -> Option<Best> {
    let guesses: Vec<Code> = rows.iter().map(|r| r.guess).collect();
    let sym = Symmetry::of_position(spec, &guesses, set);
    let splitter = Splitter::new(spec, Rule::Left, set, set);
    let possible: Vec<Code> = set.iter().copied().filter(|&c| sym.is_canonical(c)).collect();
    let all = spec.code_count() <= CANDIDATE_LIMIT;
    let cut = std::sync::atomic::AtomicBool::new(false);
    let stop = || {
        let h = stop.hit();
        if h {
            cut.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        h
    };
    let mut others = || if all { sym.representatives(spec) } else { Vec::new() };
    let top = splitter.top_lazily(&possible, &mut others, 1, threads, &stop);
    let mut exact = all && !cut.load(std::sync::atomic::Ordering::Relaxed);
    let found = match top.first() {
        Some(c) => (c.code, c.cost.round() as u64),
        // Every guess splits nothing (one code left and none scored):
        // the code itself.
        None if set.len() == 1 => (set[0], 0),
        None => return None,
    };
    let possible = if possible_too {
        match top.first() {
            Some(c) if c.possible => Some(found),
            _ => {
                let t = splitter.top_lazily(&possible, &mut Vec::new, 1, threads, &stop);
                exact &= !cut.load(std::sync::atomic::Ordering::Relaxed);
                t.first().map(|c| (c.code, c.cost.round() as u64))
            }
        }
    } else {
        None
    };
    Some(Best { code: found.0, left_sum: found.1, possible, exact })
}

/// The codes consistent with `rows` (increasing), or `None` past
/// [`SET_LIMIT`] or when `stop` hit while listing them.
fn list(spec: &Spec, rows: &[Row], stop: &StopCheck) -> Option<Vec<Code>> {
    let mut out = Vec::new();
    let mut cut = false;
    for_each_consistent(spec, rows, &mut |c| {
        if out.len() == SET_LIMIT || (out.len() % 4096 == 4095 && stop.hit()) {
            cut = true;
            return ControlFlow::Break(());
        }
        out.push(c);
        ControlFlow::Continue(())
    });
    (!cut).then_some(out)
}

/// The breaker's progress after a ply, -1..1: `1 - 2 ln(1 + left) /
/// ln(1 + codes)`, -1 with every code possible, 1 once the code is found;
/// the first mover (the breaker) leads as it rises.
pub fn graph(left: f64, codes: u64) -> f64 {
    (1.0 - 2.0 * (1.0 + left).ln() / (1.0 + codes as f64).ln()).clamp(-1.0, 1.0)
}

fn fmt_value(v: f64) -> String {
    format!("{v:.2}")
}

/// The review of a whole game (see the module).
pub fn review(start: &Mastermind, moves: &[MmMove], rv: &mut Reviewer) -> Result<(), String> {
    let spec = *start.spec();
    let codes = spec.code_count();
    let threads = rv.options().get_int("Threads").unwrap_or(1).clamp(1, 64) as usize;
    let mut g = start.clone();
    // The codes possible before the current row (`None`: not listed).
    let mut set: Option<Vec<Code>> = None;
    let mut listed_for: Option<usize> = None;
    for (i, &mv) in moves.iter().enumerate() {
        if rv.stopped() {
            return Ok(());
        }
        let mut p = PlyReview::new(i + 1, g.side_to_move(), g.format_move(mv));
        let rows = g.rows().to_vec();
        if listed_for != Some(rows.len()) {
            set = rv.search(|ctx| list(&spec, &rows, &StopCheck::of(ctx)));
            listed_for = Some(rows.len());
        }
        match mv {
            MmMove::Guess(guess) => {
                let judged = rv.search(|ctx| {
                    let stop = StopCheck::of(ctx);
                    let set = set.as_deref()?;
                    let s = split(&spec, set, guess);
                    let b = best(&spec, &rows, set, !s.possible, &stop, threads);
                    ctx.nodes += set.len() as u64;
                    Some((set.len(), s, b))
                });
                if rv.stopped() {
                    return Ok(());
                }
                judge_guess(&mut p, &spec, judged, codes);
            }
            MmMove::Feedback(f) => {
                let guess = g.pending().expect("a feedback answers a guess");
                if let Some(s) = &mut set {
                    s.retain(|&c| spec.score(guess, c) == f);
                    listed_for = Some(rows.len() + 1);
                    p.extra.push(("codes", s.len().to_string()));
                    // The code found leaves nothing to find.
                    let left = if f == spec.win() { 0 } else { s.len() };
                    p.graph = Some(graph(left as f64, codes));
                }
            }
        }
        rv.progress(i + 1, moves.len());
        rv.judged(p);
        g.play(mv);
    }
    Ok(())
}

/// Fills in the judgement of a guess from its split of `n` codes and the
/// best guess (`None`: the codes were not listed).
fn judge_guess(p: &mut PlyReview, spec: &Spec, judged: Option<(usize, Split, Option<Best>)>, codes: u64) {
    let Some((n, s, best)) = judged else {
        p.label = Label::Unproven;
        return;
    };
    let v = value(s.left_sum, n);
    p.value = Some(fmt_value(v));
    p.graph = Some(graph(v, codes));
    p.extra.push(("codes", n.to_string()));
    p.extra.push(("worst", s.worst.to_string()));
    p.extra.push(("parts", s.parts.to_string()));
    p.extra.push(("possible", if s.possible { "yes" } else { "no" }.to_string()));
    let mut notes = Vec::new();
    if s.parts == 1 && !(s.possible && n == 1) {
        notes.push("nothing-new");
    }
    if let Some((_, ps)) = best.as_ref().and_then(|b| b.possible)
        && !s.possible
        && ps <= s.left_sum
    {
        notes.push("impossible");
    }
    if !notes.is_empty() {
        p.extra.push(("note", notes.join(",")));
    }
    let Some(b) = best else {
        p.label = Label::Unproven;
        return;
    };
    let bv = value(b.left_sum, n);
    if s.left_sum <= b.left_sum {
        // As good as the best found: the best, if the scan was whole.
        p.label = if b.exact { Label::Best } else { Label::Unproven };
        p.best = Some(p.mv.clone());
        p.best_value = Some(if b.exact { fmt_value(v) } else { format!("<={}", fmt_value(bv.min(v))) });
        if b.exact {
            p.drop = Some(0.0);
        }
        return;
    }
    p.best = Some(spec.code_text(b.code).to_string());
    if !b.exact {
        p.label = Label::Unproven;
        p.best_value = Some(format!("<={}", fmt_value(bv)));
        return;
    }
    p.best_value = Some(fmt_value(bv));
    let lost = guesses_lost(v, bv, feedbacks(spec));
    p.extra.push(("lost", format!("{lost:.2}")));
    let drop = DROP_PER_GUESS * lost;
    p.drop = Some(drop);
    p.label = Label::from_drop(drop);
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::engine::Engine;
    use crate::engine::review::Event;
    use crate::options::OptionValues;
    use crate::search::{Limits, Progress, Report, SearchCtx, StopFlag};

    /// The review of a game, in this process.
    fn review_of(start: &Mastermind, moves: &[MmMove]) -> Vec<PlyReview> {
        let o = OptionValues::from_specs(&Mastermind::options());
        let mut rng = StdRng::seed_from_u64(1);
        let mut out = Vec::new();
        let mut emit = |e: Event| {
            if let Event::Ply(p) = e {
                out.push(p)
            }
        };
        let mut rv = Reviewer::new(
            Limits::default(),
            &o,
            &mut rng,
            StopFlag::new(),
            Arc::new(Progress::default()),
            &mut emit,
        );
        review(start, moves, &mut rv).unwrap();
        drop(rv);
        out
    }

    /// Black and white of two codes given as their pegs, counted here
    /// from the definition (not by the engine's scorer).
    fn pegs(a: &[u8], b: &[u8]) -> (u8, u8) {
        let black = a.iter().zip(b).filter(|(x, y)| x == y).count();
        let common: usize = (0..10u8)
            .map(|k| a.iter().filter(|&&x| x == k).count().min(b.iter().filter(|&&x| x == k).count()))
            .sum();
        (black as u8, (common - black) as u8)
    }

    /// Every secret of 4x6, broken by `random` and by `knuth` (each playing
    /// against the true feedback): each guess's value, worst class, parts,
    /// whether it could be the code, and the best value any code had, equal
    /// a brute-force recount (the codes written out here, their feedbacks
    /// counted from the definition, every code tried as the best); the
    /// label is `best` exactly when the guess reaches that best value.
    #[test]
    fn every_secret_of_4x6_by_random_and_knuth_is_judged_as_recounted() {
        let spec = Spec::default();
        let codes: Vec<[u8; 4]> =
            (0..1296u32).map(|n| [0, 1, 2, 3].map(|i| (n / 6u32.pow(3 - i) % 6) as u8)).collect();
        let index: HashMap<Code, usize> =
            codes.iter().enumerate().map(|(i, c)| (Code::from_pegs(c), i)).collect();
        let fb: Vec<Vec<(u8, u8)>> =
            codes.iter().map(|g| codes.iter().map(|c| pegs(g, c)).collect()).collect();
        // Sum of n^2 over the non-winning classes, worst class, parts.
        let split_of = |g: usize, set: &[usize]| {
            let mut classes: HashMap<(u8, u8), u64> = HashMap::new();
            for &c in set {
                *classes.entry(fb[g][c]).or_default() += 1;
            }
            let others = classes.iter().filter(|(f, _)| **f != (4, 0)).map(|(_, &n)| n);
            (others.clone().map(|n| n * n).sum::<u64>(), others.max().unwrap_or(0), classes.len())
        };
        // The best value of each position met, by its rows.
        type Rows = Vec<(usize, (u8, u8))>;
        let mut best_of: HashMap<Rows, u64> = HashMap::new();
        let mut judged = 0;
        for strategy in ["random", "knuth"] {
            let o = {
                let mut o = OptionValues::from_specs(&Mastermind::options());
                o.set("Strategy", crate::options::OptionValue::Enum(strategy.into()));
                o
            };
            let make = Mastermind::strategies().into_iter().find(|s| s.name == strategy).unwrap().make;
            let mut player = make(&o);
            let mut rng = StdRng::seed_from_u64(7);
            for (si, secret) in codes.iter().enumerate() {
                let mut g = Mastermind::new(spec);
                g.set_secret(Some(Code::from_pegs(secret)));
                let start = g.clone();
                let mut moves = Vec::new();
                while g.outcome().is_none() {
                    let mut sink = |_r: Report| {};
                    let mut ctx = SearchCtx::new(Limits::default(), &o, &mut rng, StopFlag::new(), &mut sink);
                    let guess = player.choose(&g, &mut ctx);
                    g.play(guess);
                    let mut f = Vec::new();
                    g.legal_moves(&mut f);
                    g.play(f[0]);
                    moves.extend([guess, f[0]]);
                }
                let plies = review_of(&start, &moves);
                assert_eq!(plies.len(), moves.len());
                let mut rows: Vec<(usize, (u8, u8))> = Vec::new();
                for (k, pair) in moves.chunks(2).enumerate() {
                    let MmMove::Guess(guess) = pair[0] else { panic!() };
                    let gi = index[&guess];
                    let set: Vec<usize> =
                        (0..codes.len()).filter(|&c| rows.iter().all(|&(h, f)| fb[h][c] == f)).collect();
                    let (left, worst, parts) = split_of(gi, &set);
                    let best = *best_of
                        .entry(rows.clone())
                        .or_insert_with(|| (0..codes.len()).map(|h| split_of(h, &set).0).min().unwrap());
                    let p = &plies[2 * k];
                    let at = format!("{strategy} secret {si} row {}: {p:?}", k + 1);
                    let n = set.len() as f64;
                    assert_eq!(p.value.as_deref(), Some(format!("{:.2}", left as f64 / n).as_str()), "{at}");
                    assert_eq!(
                        p.best_value.as_deref(),
                        Some(format!("{:.2}", best as f64 / n).as_str()),
                        "{at}"
                    );
                    let get = |key: &str| p.extra.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str());
                    assert_eq!(get("codes"), Some(set.len().to_string().as_str()), "{at}");
                    assert_eq!(get("worst"), Some(worst.to_string().as_str()), "{at}");
                    assert_eq!(get("parts"), Some(parts.to_string().as_str()), "{at}");
                    assert_eq!(get("possible"), Some(if set.contains(&gi) { "yes" } else { "no" }), "{at}");
                    assert_eq!(p.label == Label::Best, left == best, "{at}");
                    assert!(p.label.is_judged(), "{at}");
                    assert_eq!(plies[2 * k + 1].label, Label::None, "{at}");
                    rows.push((gi, fb[gi][index[&Code::from_pegs(secret)]]));
                    judged += 1;
                }
            }
        }
        assert!(judged > 2 * 1296 * 4, "{judged} guesses judged");
    }

    #[test]
    fn values_and_losses() {
        let spec = Spec::default();
        let all = spec.all_codes();
        let s = split(&spec, &all, spec.parse_code("1111").unwrap());
        // 0B: 625, 1B: 500, 2B: 150, 3B: 20, 4B: the guess.
        assert_eq!(s.left_sum, 625 * 625 + 500 * 500 + 150 * 150 + 20 * 20);
        assert_eq!((s.worst, s.parts, s.possible), (625, 5, true));
        assert_eq!(feedbacks(&spec), 14);
        assert_eq!(feedbacks(&"Mastermind+5x8".parse().unwrap()), 20);
        assert_eq!(guesses_needed(0.0, 14), 0.0);
        assert!((guesses_needed(1.0, 14) - 1.0).abs() < 1e-12);
        assert!((guesses_lost(1.0, 0.0, 14) - 1.0).abs() < 1e-12, "a wasted last guess");
        assert_eq!(guesses_lost(0.0, 1.0, 14), 0.0);
        assert_eq!(graph(1296.0, 1296), -1.0);
        assert_eq!(graph(0.0, 1296), 1.0);
    }
}
