//! Whole games at the `Game`-trait level, in each role, and the checking of
//! a person's feedback.

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::*;
use crate::engine::Engine;
use crate::options::OptionValues;
use crate::registry::{AnyGame, Match, new_game};
use crate::search::{Limits, Player, SearchCtx, StopFlag};

fn options(pairs: &[(&str, &str)]) -> OptionValues {
    let mut o = OptionValues::from_specs(&Mastermind::options());
    for (k, v) in pairs {
        let spec = Mastermind::options().into_iter().find(|s| s.name == *k).unwrap();
        o.set(k, spec.parse_value(v).unwrap());
    }
    o
}

fn player(name: &str) -> Box<dyn Player<Mastermind>> {
    let o = options(&[("Strategy", name)]);
    let spec = Mastermind::strategies().into_iter().find(|s| s.name == name).unwrap();
    (spec.make)(&o)
}

fn engine_move(p: &mut dyn Player<Mastermind>, g: &Mastermind, rng: &mut StdRng) -> MmMove {
    let o = options(&[]);
    let mut report = |_r: crate::search::Report| {};
    let mut ctx = SearchCtx::new(Limits::default(), &o, rng, StopFlag::new(), &mut report);
    p.choose(g, &mut ctx)
}

fn text(g: &Mastermind, m: MmMove) -> String {
    g.format_move(m)
}

#[test]
fn person_breaks_the_engines_secret() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut g = Mastermind::parse_type("Mastermind").unwrap().unwrap();
    g.configure(&options(&[("Secret", "3456")]), &mut rng);
    let mut maker = player("knuth");
    for guess in ["1122", "3344", "3456"] {
        assert_eq!(g.side_to_move(), BREAKER);
        let m = g.parse_move(guess).unwrap();
        g.play(m);
        assert_eq!(g.side_to_move(), MAKER);
        // Only the true feedback is legal, and the engine gives it.
        let mut legal = Vec::new();
        g.legal_moves(&mut legal);
        assert_eq!(legal.len(), 1);
        let answer = engine_move(maker.as_mut(), &g, &mut rng);
        assert_eq!(answer, legal[0]);
        let lie = if text(&g, answer) == "0B0W" { "1B0W" } else { "0B0W" };
        let err = g.parse_move(lie).unwrap_err();
        assert!(matches!(&err, MoveError::Illegal(r) if r.contains("wrong feedback")), "{err}");
        g.play(answer);
    }
    assert_eq!(g.outcome(), Some(Outcome::Win(BREAKER)));
    assert_eq!(g.game_string_extra().as_deref(), Some("Secret=3456"));
    assert!(matches!(g.parse_move("1111"), Err(MoveError::GameOver)));
    // The seed's scoring of a round: the codemaker scores the rows used.
    assert_eq!(g.board_view().scores, Some([0, 3]));
}

#[test]
fn engine_breaks_a_persons_secret() {
    let mut rng = StdRng::seed_from_u64(1);
    let mut g = Mastermind::new(Spec::default());
    g.configure(&options(&[("Codemaker", "none")]), &mut rng);
    assert_eq!(g.secret(), None);
    let secret = g.spec().parse_code("6543").unwrap();
    let mut breaker = player("knuth");
    let mut first = true;
    while g.outcome().is_none() {
        let m = engine_move(breaker.as_mut(), &g, &mut rng);
        let MmMove::Guess(c) = m else { panic!("breaker answered {m:?}") };
        if first {
            assert_eq!(text(&g, m), "1122");
            first = false;
        }
        g.play(m);
        // The person answers; an impossible pair and a lie are refused.
        assert!(matches!(g.parse_move("3B1W"), Err(MoveError::Illegal(r)) if r.contains("impossible")));
        assert!(matches!(g.parse_move("5B"), Err(MoveError::Illegal(_))));
        assert!(matches!(g.parse_move("xyz"), Err(MoveError::Parse(_))));
        let truth = g.spec().score(c, secret);
        let mut legal = Vec::new();
        g.legal_moves(&mut legal);
        assert!(legal.contains(&MmMove::Feedback(truth)));
        g.play(g.parse_move(&truth.to_string()).unwrap());
    }
    assert_eq!(g.outcome(), Some(Outcome::Win(BREAKER)));
    assert!(g.rows().len() <= 5);
    assert_eq!(g.game_string_extra(), None, "no secret held");
}

#[test]
fn knuth_beats_the_adversary_in_five() {
    let mut rng = StdRng::seed_from_u64(3);
    let mut g = Mastermind::new(Spec::default());
    g.configure(&options(&[("Codemaker", "adversarial")]), &mut rng);
    let mut breaker = player("knuth");
    let mut maker = player("entropy");
    while g.outcome().is_none() {
        let p = if g.side_to_move() == BREAKER { breaker.as_mut() } else { maker.as_mut() };
        let m = engine_move(p, &g, &mut rng);
        g.play(m);
    }
    assert_eq!(g.outcome(), Some(Outcome::Win(BREAKER)));
    assert_eq!(g.rows().len(), 5);
    // The adversary's first answer keeps 256 codes.
    assert_eq!(g.rows()[0].feedback.to_string(), "0B0W");
}

#[test]
fn every_strategy_wins_a_small_game() {
    for s in Mastermind::strategies() {
        let mut rng = StdRng::seed_from_u64(11);
        let mut g = Mastermind::parse_type("Mastermind+3x4+rows8").unwrap().unwrap();
        g.configure(&options(&[]), &mut rng);
        let mut p = player(s.name);
        while g.outcome().is_none() {
            let m = engine_move(p.as_mut(), &g, &mut rng);
            g.play(m);
        }
        assert_eq!(g.outcome(), Some(Outcome::Win(BREAKER)), "{}", s.name);
    }
}

#[test]
fn rows_run_out() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut g = Mastermind::parse_type("Mastermind+rows2").unwrap().unwrap();
    g.configure(&options(&[("Secret", "1234")]), &mut rng);
    for guess in ["5555", "6666"] {
        g.play(g.parse_move(guess).unwrap());
        let mut legal = Vec::new();
        g.legal_moves(&mut legal);
        g.play(legal[0]);
    }
    assert_eq!(g.outcome(), Some(Outcome::Win(MAKER)));
    assert_eq!(g.game_string_extra().as_deref(), Some("Secret=1234"));
    // The code was not broken: the codemaker scores the rows used plus one.
    assert_eq!(g.board_view().scores, Some([0, 3]));
}

/// Without a fixed secret the random codemaker's answers are drawn from
/// the rng (reproducible with the seed) among the codes still consistent:
/// every game ends with a code that fits every row, and no secret is
/// shown.
#[test]
fn random_codemaker_answers_consistently_and_follows_the_seed() {
    let play = |seed| -> Vec<Row> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut g = Mastermind::new(Spec::default());
        g.configure(&options(&[]), &mut rng);
        assert_eq!(g.secret(), None);
        let mut breaker = player("random");
        let mut maker = player("entropy");
        while g.outcome().is_none() {
            let p = if g.side_to_move() == BREAKER { breaker.as_mut() } else { maker.as_mut() };
            let m = engine_move(p, &g, &mut rng);
            let mut legal = Vec::new();
            g.legal_moves(&mut legal);
            assert!(legal.contains(&m) || g.side_to_move() == BREAKER, "{m:?} not in {legal:?}");
            g.play(m);
        }
        assert_eq!(g.outcome(), Some(Outcome::Win(BREAKER)));
        assert_eq!(g.game_string_extra(), None);
        let secret = g.rows().last().unwrap().guess;
        assert!(g.rows().iter().all(|r| g.spec().score(r.guess, secret) == r.feedback));
        g.rows().to_vec()
    };
    assert_eq!(play(9), play(9));
    let secrets: std::collections::HashSet<Code> = (0..20).map(|s| play(s).last().unwrap().guess).collect();
    assert!(secrets.len() > 10, "{secrets:?}");
}

/// On a small variant, after every history of two rows, a feedback is
/// accepted exactly when some code still possible gives it.
#[test]
fn feedback_accepted_iff_some_code_fits() {
    let spec: Spec = "Mastermind+3x3".parse().unwrap();
    let all = spec.all_codes();
    let mut texts = Vec::new();
    for b in 0..=4u8 {
        for w in 0..=4u8 {
            texts.push(format!("{b}B{w}W"));
        }
    }
    for &g1 in all.iter().step_by(4) {
        for &s1 in all.iter().step_by(5).filter(|&&s1| s1 != g1) {
            let mut g = Mastermind::new(spec);
            g.play(MmMove::Guess(g1));
            g.play(MmMove::Feedback(spec.score(g1, s1)));
            for &g2 in all.iter().step_by(7) {
                g.play(MmMove::Guess(g2));
                for t in &texts {
                    let f: Feedback = t.parse().unwrap();
                    let fits = all
                        .iter()
                        .any(|&c| spec.score(g1, c) == spec.score(g1, s1) && spec.score(g2, c) == f);
                    assert_eq!(g.parse_move(t).is_ok(), fits, "{t} after {:?}", g.rows());
                }
                let mut legal = Vec::new();
                g.legal_moves(&mut legal);
                let n = texts.iter().filter(|t| g.parse_move(t).is_ok()).count();
                assert_eq!(legal.len(), n);
                g.undo(MmMove::Guess(g2));
            }
        }
    }
}

#[test]
fn contradiction_names_the_row() {
    let mut g = Mastermind::new(Spec::default());
    for (guess, fb) in [("1122", "0B0W"), ("3344", "1B0W")] {
        g.play(g.parse_move(guess).unwrap());
        g.play(g.parse_move(fb).unwrap());
    }
    g.play(g.parse_move("3456").unwrap());
    let err = g.parse_move("0B4W").unwrap_err().to_string();
    assert!(err.contains("contradicts row 2 (3344 1B0W)"), "{err}");
    let err = g.parse_move("3B1W").unwrap_err().to_string();
    assert!(err.contains("impossible"), "{err}");
    let mut g = Mastermind::new(Spec::default());
    g.play(g.parse_move("1111").unwrap());
    let err = g.parse_move("0B1W").unwrap_err().to_string();
    assert!(err.contains("no code gives 0B1W to 1111"), "{err}");
}

#[test]
fn through_the_registry() {
    let mut m = new_game("mastermind+5X8").unwrap();
    assert_eq!(m.game_type(), "Mastermind+5x8");
    let mut rng = StdRng::seed_from_u64(2);
    m.configure(&options(&[("Codemaker", "none")]), &mut rng);
    assert_eq!(m.game_string(), "Mastermind+5x8;NotStarted;Breaker[1]");
    assert_eq!(m.play_text("11223").unwrap(), "11223");
    assert_eq!(m.game_string(), "Mastermind+5x8;InProgress;Maker[1];11223");
    assert_eq!(m.valid_moves().len(), 20, "p(p+3)/2 feedbacks for 5 pegs");
    assert_eq!(m.play_text("bbw").unwrap(), "2B1W");
    assert_eq!(m.game_string(), "Mastermind+5x8;InProgress;Breaker[2];11223;2B1W");
    let acts = m.move_actions();
    assert_eq!(acts.len(), 32768);
    assert_eq!(acts[0].1, vec!["1", "1", "1", "1", "1"]);
    m.undo(1).unwrap();
    let acts = m.move_actions();
    assert!(acts.iter().all(|(_, a)| a.len() == 2 && a[0].ends_with('B') && a[1].ends_with('W')));
    let any: &dyn AnyGame = m.as_ref();
    assert!(any.as_any().downcast_ref::<Match<Mastermind>>().is_some());
    let mut m = new_game("Mastermind").unwrap();
    m.configure(&options(&[("Secret", "3456")]), &mut rng);
    for t in ["1122", "0B0W", "3456"] {
        m.play_text(t).unwrap();
    }
    assert_eq!(m.valid_moves(), vec!["4B0W"]);
    assert_eq!(m.game_string(), "Mastermind;InProgress;Maker[2];1122;0B0W;3456");
    m.play_text("4b").unwrap();
    assert_eq!(m.game_string(), "Mastermind;BreakerWins;Breaker[3];1122;0B0W;3456;4B0W;Secret=3456");
    assert!(m.valid_moves().is_empty());
}

#[test]
fn analyze_counts_and_splits() {
    let mut g = Mastermind::new(Spec::default());
    g.play(g.parse_move("1122").unwrap());
    g.play(g.parse_move("2B0W").unwrap());
    let o = OptionValues::default();
    let mut rng = StdRng::seed_from_u64(0);
    let mut report = |_r: crate::search::Report| {};
    let mut ctx = SearchCtx::new(Limits::default(), &o, &mut rng, StopFlag::new(), &mut report);
    let lines = g.analyze("", &mut ctx).unwrap();
    let all = g.spec().all_codes();
    let row = g.rows()[0];
    let n = all.iter().filter(|&&c| g.spec().score(row.guess, c) == row.feedback).count();
    assert_eq!(lines[0], format!("possible {n}"));
    assert_eq!(lines.len(), 1, "too many to list, no guess");
    let lines = g.analyze("1134", &mut ctx).unwrap();
    assert!(lines[1].starts_with("guess 1134 possible "), "{lines:?}");
    let total: usize = lines[2]
        .strip_prefix("split ")
        .unwrap()
        .split(' ')
        .map(|kv| kv.split_once('=').unwrap().1.parse::<usize>().unwrap())
        .sum();
    assert_eq!(total, n);
    assert!(g.analyze("9999", &mut ctx).is_err());
    // With few codes left they are listed.
    g.play(g.parse_move("1134").unwrap());
    let secret = g.spec().parse_code("1135").unwrap();
    let f = g.spec().score(g.spec().parse_code("1134").unwrap(), secret);
    assert_eq!(g.spec().score(row.guess, secret), row.feedback);
    g.play(MmMove::Feedback(f));
    let lines = g.analyze("", &mut ctx).unwrap();
    assert!(lines[1].starts_with("codes ") && lines[1].contains("1135"), "{lines:?}");
}

/// Issue 43 item 9: `analyze movetime 500` on `Mastermind+8x10+blanks`
/// with a guess to split took 0.8 s: the codes were counted under the
/// limit, then the guess split up to 4M of them with no look at it. The
/// split is now made in the one pass that counts and watches the limit,
/// so the codes split are exactly the codes counted before the limit
/// stopped it (no code is scored after the limit is seen).
#[test]
fn analyze_splits_only_what_it_counted_under_the_limit() {
    let mut g = Mastermind::parse_type("Mastermind+8x10+blanks").unwrap().unwrap();
    g.play(g.parse_move("12345678").unwrap());
    let o = OptionValues::default();
    let mut rng = StdRng::seed_from_u64(0);
    let mut report = |_r: crate::search::Report| {};
    // More codes than the old pass kept for the split (1 << 22).
    let limit = 5_000_000;
    let limits = Limits { nodes: Some(limit), ..Limits::default() };
    let mut ctx = SearchCtx::new(limits, &o, &mut rng, StopFlag::new(), &mut report);
    let lines = g.analyze("", &mut ctx).unwrap();
    let counted: u64 = lines[0].strip_prefix("possible at least ").expect(&lines[0]).parse().unwrap();
    assert!(counted >= limit && counted <= limit + 65536, "{}", lines[0]);
    let split: u64 = lines[2]
        .strip_prefix("split ")
        .unwrap()
        .split(' ')
        .map(|kv| kv.split_once('=').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(split, counted, "the split covers the codes counted, no more");
    assert!(lines[1].starts_with("guess 12345678 possible yes "), "{lines:?}");
}

/// Issue 9 item 5 / issue 10 item 1: a search stopped before it starts
/// still gives a legal guess, for every strategy, on small and large
/// variants, with and without a history, and so does a 1 ms deadline.
#[test]
fn every_strategy_answers_a_stopped_search_with_a_legal_guess() {
    let mut rng = StdRng::seed_from_u64(11);
    for ty in ["Mastermind+3x3", "Mastermind", "Mastermind+4x8", "Mastermind+6x9", "Mastermind+8x10"] {
        for spec in Mastermind::strategies() {
            for history in [0, 2] {
                let mut g = Mastermind::parse_type(ty).unwrap().unwrap();
                g.configure(&options(&[]), &mut rng);
                let mut p = (spec.make)(&options(&[("Strategy", spec.name)]));
                for _ in 0..history {
                    let guess = Mastermind::random_code(g.spec(), &mut rng);
                    g.play(MmMove::Guess(guess));
                    let fb = engine_move(p.as_mut(), &g, &mut rng);
                    g.play(fb);
                }
                for limits in [None, Some(std::time::Duration::from_millis(1))] {
                    let o = options(&[]);
                    let mut report = |_r: crate::search::Report| {};
                    let flag = StopFlag::new();
                    if limits.is_none() {
                        flag.stop();
                    }
                    let l = Limits { movetime: limits, ..Limits::default() };
                    let mut ctx = SearchCtx::new(l, &o, &mut rng, flag, &mut report);
                    let m = p.choose(&g, &mut ctx);
                    // The breaker's turn: any code of the variant is legal.
                    assert!(
                        matches!(m, MmMove::Guess(c) if g.spec().is_code(c)),
                        "{ty} {} {history}: {}",
                        spec.name,
                        text(&g, m)
                    );
                }
            }
        }
    }
}

/// Issue 27 item 7: Mastermind counts perft without listing the guesses;
/// its counts are those of the generic perft (which lists them), with and
/// without a fixed secret, and depth 1 of a huge variant is the number of
/// codes at once.
#[test]
fn perft_counts_without_listing_guesses() {
    for (ty, secret) in
        [("Mastermind+2x3", None), ("Mastermind+3x3+blanks", Some("1_2")), ("Mastermind+2x4+norepeat", None)]
    {
        let mut g = Mastermind::parse_type(ty).unwrap().unwrap();
        if let Some(s) = secret {
            g.configure(&options(&[("Secret", s)]), &mut StdRng::seed_from_u64(1));
        }
        for depth in 0..=4 {
            let mut a = g.clone();
            let mut b = g.clone();
            assert_eq!(
                Engine::perft(&mut a, depth),
                crate::search::perft::perft(&mut b, depth),
                "{ty} {depth}"
            );
        }
    }
    let mut huge = Mastermind::parse_type("Mastermind+8x10+blanks").unwrap().unwrap();
    assert_eq!(Engine::perft(&mut huge, 1), 214_358_881);
}
