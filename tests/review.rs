//! `review` (protocol.md, "`review`") end to end: what it refuses, `stop`,
//! `isready` and `quit` during it, Connect Four's labels against an
//! independent check from `analyze`'s column scores, Mastermind's values
//! against a recount here, Hive's labels telling a weak level from a
//! strong one, and `meeple review` at a terminal (the pty test, which also
//! draws the README's pictures of the terminal game and of the review).

use std::collections::HashMap;

use meeple::engine::review::{Label, PlyLine};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::common::Engine;

/// The `ply` lines of a reply, checked to be a whole review: `info`
/// lines, then `ply` lines numbered from 1, then exactly two `side` lines
/// whose move counts add up to the plies.
fn whole_review(reply: &[String]) -> Vec<PlyLine> {
    let mut plies = Vec::new();
    let mut sides = Vec::new();
    for l in reply {
        if let Some(p) = PlyLine::parse(l) {
            assert!(sides.is_empty(), "a ply after the side lines: {reply:?}");
            assert_eq!(p.ply, plies.len() + 1, "{l}");
            plies.push(p);
        } else if l.starts_with("side ") {
            sides.push(l.clone());
        } else {
            assert!(l.starts_with("info "), "not a line of review: {l}");
        }
    }
    assert_eq!(sides.len(), 2, "{reply:?}");
    let moves: usize = sides
        .iter()
        .map(|s| s.split(' ').skip_while(|w| *w != "moves").nth(1).unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(moves, plies.len(), "{sides:?}");
    plies
}

/// A finished Hive game of 57 plies (meeple at full strength against
/// `Skill` 4).
const HIVE_GAME: &str = r"Base+MLP;WhiteWins;Black[29];wP;bP wP/;wQ -wP;bQ bP-;wA1 wP\;bG1 \bP;wA1 \bG1;bA1 bQ\;wA1 bA1-;bL bG1/;wB1 wP\;bB1 -bL;wB1 wP;bA2 bL\;wB1 bP;bA2 \wQ;wA2 wP\;bG2 \bL;wB1 bQ;bA3 bL-;wA2 bA3/;bM /bA1;wA1 /bM;bB2 -bG2;wM \wA2;bA2 \wM;wA3 -wA1;bG3 bA1\;wA3 bG3-;bB2 -bB1;wA3 bG3\;bG2 bB2\;wA3 bG3-;bB1 bB2;wA3 bG3\;bS1 -bL;wA3 bG3-;bB1 bG2;wQ /wP;bS2 /bB1;wL -wQ;bA2 wA3-;wM bA1/;bA2 wL\;wL bP\;bA2 wA3-;wM bA1;bB2 bS1;wB2 wM/;bB2 bL;wM wL;bA2 wA2\;wG1 wA2/;bB1 bS1;wG1 bB2\;bB1 bB2;wB1 bA3\";

#[test]
fn review_refuses_what_it_cannot_judge_and_changes_nothing() {
    let mut e = Engine::start("review-refuse");
    assert_eq!(e.cmd("review"), ["err no game in progress"]);
    e.cmd("newgame Connect4");
    assert_eq!(e.cmd("review"), ["err review: no move has been played in this game"]);
    e.cmd("play 4");
    let before = e.snapshot();
    for bad in [
        "review movetime",
        "review movetime x",
        "review depth -1",
        "review nodes 99999999999999999999999",
        "review wtime 1000 btime 1000",
        "review infinite",
        "review ponder",
        "review mate 2",
        "review searchmoves 4",
        "review fast",
    ] {
        let r = e.cmd(bad);
        assert_eq!(r.len(), 1, "{bad}: {r:?}");
        assert!(
            r[0].starts_with("err review: ") || r[0].starts_with("err bad arguments to review"),
            "{bad}: {r:?}"
        );
        assert!(r[0].contains("usage: review [depth N] [nodes N] [movetime MS]"), "{bad}: {r:?}");
    }
    assert_eq!(e.snapshot(), before, "a refused review changes nothing");
    // A review of one move is whole.
    let plies = whole_review(&e.cmd("review"));
    assert_eq!(plies.len(), 1);
    assert_eq!(plies[0].label, Some(Label::Best));
    // UCI has no place for the reply: refused there.
    let out = e.uci(&["uci", "review"]);
    assert!(
        out.iter().any(|l| l.starts_with("info string err review is a command of meeple's own dialect")),
        "{out:?}"
    );
    assert!(!out.iter().any(|l| l.starts_with("ply ") || l.starts_with("side ")), "{out:?}");
}

/// `stop` ends a review that would take hours, at once, with a whole
/// reply (the plies judged so far, the side lines, `ok`), then its own
/// `ok`; `isready` is answered during it; `quit` ends one too. (The
/// driver's one-minute safety net is what would catch a review that does
/// not stop; nothing is timed.)
#[test]
fn stop_isready_and_quit_act_at_once_during_a_review() {
    let mut e = Engine::start("review-stop");
    e.cmd(&format!("newgame {HIVE_GAME}"));
    e.send("review depth 40");
    e.send("isready");
    let mut early = Vec::new();
    loop {
        let l = e.line();
        if l == "readyok" {
            break;
        }
        early.push(l);
    }
    assert_eq!(e.line(), "ok", "isready's own ok");
    e.send("stop");
    let mut reply = early;
    reply.extend(e.read_reply());
    assert_eq!(reply.pop().as_deref(), Some("ok"));
    let plies = whole_review(&reply);
    assert!(plies.len() < 57, "stopped before the end: {}", plies.len());
    assert_eq!(e.read_reply(), ["ok"], "stop's own ok, in its turn");
    // The session goes on: a short review of the same game is whole.
    let plies = whole_review(&e.cmd("review depth 1"));
    assert_eq!(plies.len(), 57);
    assert!(plies.iter().all(|p| p.label.is_some_and(|l| l != Label::None)), "every move judged");
    // Commands sent during a review wait their turn.
    e.send("review depth 40");
    e.send("play wQ_wP-");
    e.send("quit");
    let rest = e.rest();
    let at = rest.iter().position(|l| l == "ok").expect("the review's ok");
    whole_review(&rest[..at]);
    // `play` ran in its turn, after the review: the game is over.
    assert_eq!(&rest[at + 1..], ["err game is over", "ok"]);
    assert_eq!(e.close(), 0);
}

/// Column scores of `analyze` (`None`: a full column).
fn columns(e: &mut Engine) -> Vec<Option<i32>> {
    let r = e.cmd("analyze");
    let line = r.iter().rev().find(|l| !l.starts_with("info")).unwrap_or_else(|| panic!("{r:?}"));
    line.split(' ')
        .map(
            |t| if t == "-" { None } else { Some(t.parse().unwrap_or_else(|_| panic!("not exact: {line}"))) },
        )
        .collect()
}

/// The label of a Connect Four move by protocol.md's rules, from the
/// column scores of the position before it (an independent check of the
/// engine's review): cells `c`, stones `n`, the column played `mv`.
fn expected_label(cols: &[Option<i32>], mv: usize, c: i32, n: i32) -> Label {
    let legal: Vec<i32> = cols.iter().flatten().copied().collect();
    let best = *legal.iter().max().unwrap();
    let played = cols[mv].unwrap();
    let wins_now = legal.contains(&((c + 1 - n) / 2));
    let loses_now = -(c - n) / 2;
    let safe: Vec<usize> = (0..cols.len()).filter(|&k| cols[k].is_some_and(|s| s != loses_now)).collect();
    if legal.len() == 1 || (!wins_now && safe == [mv]) {
        Label::Forced
    } else if played == best {
        Label::Best
    } else if played.signum() < best.signum() {
        Label::Blunder
    } else if best - played >= 4 {
        Label::Mistake
    } else {
        Label::Inaccuracy
    }
}

/// How the two sides of a test game choose: a `Skill` each, and plies
/// where a random column is played instead (blunders on purpose, often).
struct Players {
    skills: [i64; 2],
    random_plies: &'static [usize],
}

/// Plays a game to its end; returns the moves.
fn play_game(e: &mut Engine, ty: &str, p: &Players, rng: &mut StdRng) -> Vec<String> {
    e.cmd(&format!("newgame {ty}"));
    let mut moves = Vec::new();
    loop {
        let gs = e.cmd("validmoves");
        let valid: Vec<String> = gs[0].split(';').map(str::to_string).collect();
        let side = moves.len() % 2;
        let mv = if p.random_plies.contains(&moves.len()) {
            valid[rng.random_range(0..valid.len())].clone()
        } else {
            e.cmd(&format!("setoption name Skill value {}", p.skills[side]));
            e.engine_move()
        };
        let r = e.one(&format!("play {mv}"));
        moves.push(mv);
        if r.contains("Wins;") || r.contains(";Draw;") {
            return moves;
        }
    }
}

/// Twenty finished games (engines of several levels, blunders played on
/// purpose, on three board sizes): every label of `review` is the one
/// protocol.md's rules give from `analyze`'s column scores, and so are
/// the values and the best moves.
#[test]
fn connect_four_labels_agree_with_the_column_scores() {
    let mut e = Engine::start("review-c4");
    e.cmd("setoption name Hash value 16");
    e.cmd("setoption name Variety value true");
    e.cmd("setoption name Seed value 5");
    let mut rng = StdRng::seed_from_u64(42);
    let games: Vec<(&str, Players)> = vec![
        ("Connect4", Players { skills: [20, 20], random_plies: &[9] }),
        ("Connect4", Players { skills: [16, 8], random_plies: &[] }),
        ("Connect4", Players { skills: [4, 20], random_plies: &[12, 20] }),
        ("Connect4+6x5", Players { skills: [20, 12], random_plies: &[3, 7] }),
        ("Connect4+6x5", Players { skills: [0, 20], random_plies: &[] }),
        ("Connect4+6x5", Players { skills: [14, 14], random_plies: &[10, 11, 12] }),
        ("Connect4+6x5", Players { skills: [20, 20], random_plies: &[] }),
        ("Connect4+6x5", Players { skills: [10, 18], random_plies: &[15] }),
        ("Connect4+5x4", Players { skills: [20, 0], random_plies: &[] }),
        ("Connect4+5x4", Players { skills: [6, 6], random_plies: &[2, 5] }),
        ("Connect4+5x4", Players { skills: [20, 20], random_plies: &[0, 1] }),
        ("Connect4+5x4", Players { skills: [12, 16], random_plies: &[] }),
        ("Connect4+5x4", Players { skills: [18, 2], random_plies: &[4] }),
        ("Connect4+6x4", Players { skills: [20, 10], random_plies: &[6] }),
        ("Connect4+6x4", Players { skills: [8, 20], random_plies: &[1, 9] }),
        ("Connect4+6x4", Players { skills: [16, 16], random_plies: &[] }),
        ("Connect4+4x4", Players { skills: [20, 20], random_plies: &[3] }),
        ("Connect4+4x4", Players { skills: [0, 0], random_plies: &[] }),
        ("Connect4+7x4", Players { skills: [14, 6], random_plies: &[5] }),
        ("Connect4+7x4", Players { skills: [20, 12], random_plies: &[8, 14] }),
    ];
    let mut seen: HashMap<Label, usize> = HashMap::new();
    for (ty, players) in &games {
        let moves = play_game(&mut e, ty, players, &mut rng);
        let plies = whole_review(&e.cmd("review"));
        assert_eq!(plies.len(), moves.len(), "{ty} {moves:?}");
        let (w, h) = match ty.split_once('+') {
            Some((_, s)) => {
                let (w, h) = s.split_once('x').unwrap();
                (w.parse::<i32>().unwrap(), h.parse::<i32>().unwrap())
            }
            None => (7, 6),
        };
        for (i, p) in plies.iter().enumerate() {
            e.cmd(&format!("position {ty} moves {}", moves[..i].concat()));
            let cols = columns(&mut e);
            let mv: usize = moves[i].parse::<usize>().unwrap() - 1;
            let want = expected_label(&cols, mv, w * h, i as i32);
            let at = format!("{ty} {} ply {}: {cols:?} {p:?}", moves.concat(), i + 1);
            assert_eq!(p.mv, moves[i], "{at}");
            assert_eq!(p.label, Some(want), "{at}");
            assert_eq!(p.get("value"), Some(cols[mv].unwrap().to_string().as_str()), "{at}");
            let best = cols.iter().flatten().max().unwrap();
            assert_eq!(p.get("bestvalue"), Some(best.to_string().as_str()), "{at}");
            let b: usize = p.get("best").unwrap().parse().unwrap();
            assert_eq!(cols[b - 1], Some(*best), "the best move reaches the value: {at}");
            *seen.entry(want).or_default() += 1;
        }
    }
    // The games hold every label.
    for l in [Label::Best, Label::Inaccuracy, Label::Mistake, Label::Blunder, Label::Forced] {
        assert!(seen.get(&l).copied().unwrap_or(0) > 0, "no {l:?} in {seen:?}");
    }
}

/// Black and white pegs of two codes written in digits, counted here.
fn pegs(a: &str, b: &str) -> (u8, u8) {
    let black = a.chars().zip(b.chars()).filter(|(x, y)| x == y).count();
    let common: usize = ('0'..='9').map(|d| a.matches(d).count().min(b.matches(d).count())).sum();
    (black as u8, (common - black) as u8)
}

/// Mastermind through the protocol: games of `random` and `knuth`
/// against a few secrets; each guess's value, worst class, parts and
/// whether it was possible are recounted here from the codes consistent
/// with the rows, and the best value by trying every code. (Every secret
/// of 4x6 is checked the same way in the unit tests of
/// `games/mastermind/review.rs`.)
#[test]
fn mastermind_values_are_recounted() {
    let mut e = Engine::start("review-mm");
    let all: Vec<String> = (0..1296)
        .map(|n: u32| (0..4).map(|i| char::from(b'1' + (n / 6u32.pow(3 - i) % 6) as u8)).collect())
        .collect();
    for (strategy, secret) in [("knuth", "3632"), ("random", "1111"), ("random", "6543"), ("knuth", "2156")] {
        e.cmd(&format!("setoption name Mastermind.Strategy value {strategy}"));
        e.cmd(&format!("setoption name Secret value {secret}"));
        e.cmd("setoption name Seed value 9");
        e.cmd("newgame Mastermind");
        let mut rows: Vec<(String, (u8, u8))> = Vec::new();
        loop {
            let guess = e.engine_move();
            e.cmd(&format!("play {guess}"));
            let fb = e.engine_move();
            let r = e.one(&format!("play {fb}"));
            rows.push((guess.clone(), pegs(&guess, secret)));
            if r.contains("Wins;") {
                break;
            }
        }
        let plies = whole_review(&e.cmd("review"));
        assert_eq!(plies.len(), 2 * rows.len());
        for (k, (guess, _)) in rows.iter().enumerate() {
            let set: Vec<&String> =
                all.iter().filter(|c| rows[..k].iter().all(|(g, f)| pegs(g, c) == *f)).collect();
            let split = |g: &str| {
                let mut classes: HashMap<(u8, u8), u64> = HashMap::new();
                for c in &set {
                    *classes.entry(pegs(g, c)).or_default() += 1;
                }
                let left: u64 = classes.iter().filter(|(f, _)| **f != (4, 0)).map(|(_, n)| n * n).sum();
                let worst = classes.iter().filter(|(f, _)| **f != (4, 0)).map(|(_, n)| *n).max().unwrap_or(0);
                (left, worst, classes.len())
            };
            let (left, worst, parts) = split(guess);
            let best = all.iter().map(|g| split(g).0).min().unwrap();
            let p = &plies[2 * k];
            let at = format!("{strategy} {secret} row {}: {p:?}", k + 1);
            let n = set.len() as f64;
            assert_eq!(p.get("value"), Some(format!("{:.2}", left as f64 / n).as_str()), "{at}");
            assert_eq!(p.get("bestvalue"), Some(format!("{:.2}", best as f64 / n).as_str()), "{at}");
            assert_eq!(p.get("codes"), Some(set.len().to_string().as_str()), "{at}");
            assert_eq!(p.get("worst"), Some(worst.to_string().as_str()), "{at}");
            assert_eq!(p.get("parts"), Some(parts.to_string().as_str()), "{at}");
            let possible = set.contains(&guess);
            assert_eq!(p.get("possible"), Some(if possible { "yes" } else { "no" }), "{at}");
            assert_eq!(p.label == Some(Label::Best), left == best, "{at}");
            assert_eq!(plies[2 * k + 1].label, Some(Label::None), "the feedback is not judged");
        }
    }
}

/// Hive: meeple at full strength (depth 2) against `Skill` 2 (one ply
/// with noise), four games of at most 40 plies reviewed at depth 2: the
/// weak side's moves drop more winning chance on average, and the strong
/// side's accuracy is higher in each game. (The ten games at `movetime
/// 200` of the issue are measured on a release build: see the report.)
#[test]
fn hive_review_tells_a_weak_level_from_a_strong_one() {
    let mut e = Engine::start("review-hive");
    e.cmd("setoption name Hash value 16");
    for seed in 1..=4u64 {
        e.cmd(&format!("setoption name Seed value {seed}"));
        e.cmd("newgame Base");
        let weak = (seed % 2) as usize;
        let mut ply = 0;
        while ply < 40 {
            let side = ply % 2;
            let skill = if side == weak { 2 } else { 20 };
            e.cmd(&format!("setoption name Skill value {skill}"));
            let r = e.cmd("go depth 2");
            let mv = r.last().unwrap().strip_prefix("bestmove ").unwrap().to_string();
            let gs = e.one(&format!("play {mv}"));
            ply += 1;
            if gs.contains("Wins;") || gs.contains(";Draw;") {
                break;
            }
        }
        let reply = e.cmd("review depth 2");
        let plies = whole_review(&reply);
        let mut drops = [Vec::new(), Vec::new()];
        for p in &plies {
            let side = (p.ply + 1) % 2;
            if let Some(a) = p.get("accuracy") {
                drops[side].push(100.0 - a.parse::<f64>().unwrap());
            }
        }
        let mean = |v: &Vec<f64>| v.iter().sum::<f64>() / v.len().max(1) as f64;
        assert!(mean(&drops[weak]) > mean(&drops[1 - weak]), "game {seed}: {drops:?}");
        let accuracy = |side: usize| -> f64 {
            let line = reply.iter().filter(|l| l.starts_with("side ")).nth(side).unwrap();
            line.split(' ').skip_while(|w| *w != "accuracy").nth(1).unwrap().parse().unwrap()
        };
        assert!(accuracy(1 - weak) > accuracy(weak), "game {seed}: {reply:?}");
    }
}
