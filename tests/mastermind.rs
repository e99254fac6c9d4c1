//! Mastermind through the binary: a whole game in each role, lies refused,
//! GameStrings and saves keeping the secret.

use crate::common::Engine;

/// Black and white pegs of `guess` against `secret` (digits).
fn score(guess: &str, secret: &str) -> (usize, usize) {
    let black = guess.chars().zip(secret.chars()).filter(|(a, b)| a == b).count();
    let common: usize = ('0'..='9')
        .map(|d| guess.chars().filter(|&c| c == d).count().min(secret.chars().filter(|&c| c == d).count()))
        .sum();
    (black, common - black)
}

#[test]
fn a_person_breaks_the_engines_secret() {
    let mut e = Engine::start("breaker");
    e.cmd("setoption name Seed value 42");
    assert_eq!(e.one("newgame Mastermind"), "Mastermind;NotStarted;Breaker[1]");
    let mut last = String::new();
    for _ in 0..10 {
        // The person guesses a code still possible (from analyze's hints,
        // or the engine's suggestion while many remain).
        let hints = e.cmd("analyze");
        let guess = match hints.iter().find_map(|l| l.strip_prefix("codes ")) {
            Some(codes) => codes.split(' ').next().unwrap().to_string(),
            None => e.engine_move(),
        };
        e.one(&format!("play {guess}"));
        // No secret is fixed: every feedback some consistent code gives is
        // valid, and the engine's answer is one of them.
        let valid = e.one("validmoves");
        assert!(e.one("play 3B1W").starts_with("invalidmove "));
        let fb = e.engine_move();
        assert!(valid.split(';').any(|v| v == fb), "{fb} not in {valid}");
        last = e.one(&format!("play {fb}"));
        if !last.contains(";InProgress;") {
            break;
        }
    }
    assert!(last.starts_with("Mastermind;BreakerWins;"), "{last}");
    assert!(!last.contains("Secret="), "no fixed secret: {last}");
    // The finished GameString round-trips.
    assert_eq!(e.one(&format!("newgame {last}")), last);
}

#[test]
fn a_fixed_secret_allows_only_its_feedback() {
    let mut e = Engine::start("fixed");
    e.cmd("setoption name Secret value 3456");
    e.one("newgame Mastermind");
    let mut last = String::new();
    for guess in ["1122", "3344", "3546", "3456"] {
        e.one(&format!("play {guess}"));
        let valid = e.one("validmoves");
        let (b, w) = score(guess, "3456");
        assert_eq!(valid, format!("{b}B{w}W"));
        let wrong = if valid == "0B0W" { "1B0W" } else { "0B0W" };
        let r = e.one(&format!("play {wrong}"));
        assert!(r.starts_with("invalidmove ") && r.contains("wrong feedback"), "{r}");
        assert_eq!(e.engine_move(), valid);
        last = e.one(&format!("play {valid}"));
    }
    assert!(last.starts_with("Mastermind;BreakerWins;") && last.ends_with(";Secret=3456"), "{last}");
    assert_eq!(e.one(&format!("newgame {last}")), last);
    // Emptied again (UCI's `<empty>`, or no value), the secret is no
    // longer fixed: any feedback that fits is legal.
    for empty in ["setoption name Secret value <empty>", "setoption name Secret"] {
        e.cmd("setoption name Secret value 3456");
        assert!(e.cmd(empty).is_empty(), "{empty}");
        assert_eq!(e.one("options get Secret"), "Secret;string;;");
        e.one("newgame Mastermind");
        e.one("play 1122");
        assert_eq!(e.one("validmoves").split(';').count(), 13, "{empty}");
    }
}

#[test]
fn the_engine_breaks_a_persons_secret_and_lies_are_refused() {
    let mut e = Engine::start("maker");
    assert!(e.cmd("setoption name Codemaker value none").is_empty());
    e.one("newgame Mastermind");
    assert!(e.cmd("setoption name Strategy value knuth").is_empty());
    let secret = "3612";
    let mut last = String::new();
    for row in 1..=10 {
        let guess = e.engine_move();
        e.one(&format!("play {guess}"));
        let (b, w) = score(&guess, secret);
        // An impossible pair is refused at once.
        assert!(e.one("play 3B1W").starts_with("invalidmove "));
        // The true feedback is among the valid ones.
        let valid = e.one("validmoves");
        assert!(valid.split(';').any(|f| f == format!("{b}B{w}W")), "{valid}");
        last = e.one(&format!("play {b}B{w}W"));
        if !last.contains(";InProgress;") {
            assert!(row <= 5, "knuth breaks any code in 5");
            break;
        }
    }
    assert!(last.starts_with("Mastermind;BreakerWins;"), "{last}");
    // No secret was held, so none is shown.
    assert!(!last.contains("Secret="));
}

#[test]
fn an_inconsistent_feedback_names_the_row_it_contradicts() {
    let mut e = Engine::start("lie");
    assert!(e.cmd("setoption name Codemaker value none").is_empty());
    e.one("newgame Mastermind");
    e.one("play 1122");
    e.one("play 0B0W");
    e.one("play 3344");
    e.one("play 1B0W");
    e.one("play 1234");
    // 1234 scored 4B0W would need 1 and 2 in the secret: row 1 said none.
    let r = e.one("play 4B0W");
    assert!(r.starts_with("invalidmove ") && r.contains("row 1"), "{r}");
    // Consistent feedbacks are still accepted.
    assert!(e.one("validmoves").split(';').any(|f| f == "1B0W"));
}

#[test]
fn a_save_keeps_the_secret_mid_game() {
    let mut e = Engine::start("save");
    e.cmd("setoption name Secret value 3456");
    e.one("newgame Mastermind");
    e.one("play 1122");
    let fb = e.engine_move();
    let gs = e.one(&format!("play {fb}"));
    assert!(!gs.contains("Secret="), "hidden while the game goes on");
    assert_eq!(e.one("save mm"), "saved mm");
    e.cmd("setoption name Secret value");
    e.one("newgame Connect4");
    assert_eq!(e.one("load mm"), gs);
    // The same secret answers the next guess as before.
    e.one("play 3465");
    assert_eq!(e.one("validmoves"), "2B2W");
}

#[test]
fn huge_variants_do_not_list_every_code() {
    let mut e = Engine::start("huge");
    e.one("newgame Mastermind+8x10");
    assert!(e.one("validmoves").starts_with("err too many moves to list"));
    let m = e.engine_move();
    assert_eq!(m.len(), 8);
}

/// Issue 9 item 5 for Mastermind: `stop` ends every strategy's search
/// (`optimal` ran on for up to 1.1 s), with a legal guess.
#[test]
fn stop_ends_every_strategy() {
    let mut e = Engine::start("mm-stop");
    for strategy in ["entropy", "random", "knuth", "genetic", "mostparts", "expected", "optimal", "tree"] {
        e.cmd(&format!("setoption name Mastermind.Strategy value {strategy}"));
        for ty in ["Mastermind+4x8", "Mastermind+6x9"] {
            e.one(&format!("newgame {ty}"));
            e.send("go infinite");
            e.send("stop");
            let r = e.read_reply();
            let m = r
                .last()
                .and_then(|l| l.strip_prefix("bestmove "))
                .or_else(|| r.iter().rev().find_map(|l| l.strip_prefix("bestmove ")));
            let m = m.unwrap_or_else(|| panic!("{strategy} {ty}: {r:?}")).to_string();
            // stop's own ok
            assert_eq!(e.read_reply(), vec!["ok".to_string()]);
            let gs = e.one(&format!("play {m}"));
            assert!(gs.contains(";InProgress;"), "{strategy} {ty}: {gs}");
        }
    }
}

/// Issue 28: two engines with default options play whole games through a
/// runner that sends the whole move list with every `position` (what
/// Cute Games and other UGI/UCI runners do), on every kind of variant:
/// each engine accepts the other's feedback (no `invalidmove`), both see
/// the same game end and result.
#[test]
fn two_default_engines_through_a_whole_list_runner() {
    // An opening guess makes sure the blank is sent both ways.
    for (dialect, ty, opening) in [
        ("ugi", "Mastermind", None),
        ("uci", "Mastermind+blanks", Some("1__2")),
        ("ugi", "Mastermind+3x6+norepeat", None),
        ("uci", "Mastermind+letters", None),
        ("ugi", "Mastermind+3x5+colours+blanks+norepeat", Some("R_G")),
    ] {
        let mut engines = [Engine::start("runner-a"), Engine::start("runner-b")];
        for e in engines.iter_mut() {
            e.send(dialect);
            while e.line() != format!("{dialect}ok") {}
            e.send(&format!("setoption name UCI_Variant value {ty}"));
            e.send(&format!("{dialect}newgame"));
        }
        for game in 0..2 {
            let mut moves: Vec<String> = opening.iter().map(|m| m.to_string()).collect();
            let mut over = false;
            while !over {
                // Player 1 (the breaker) is engine `game % 2`.
                let mover = (game + moves.len()) % 2;
                let position = match moves.is_empty() {
                    true => "position startpos".to_string(),
                    false => format!("position startpos moves {}", moves.join(" ")),
                };
                let mut ends = Vec::new();
                for (i, e) in engines.iter_mut().enumerate() {
                    let lines = e.uci(&[position.as_str(), "query gameover"]);
                    assert!(
                        !lines.iter().any(|l| l.contains("invalidmove") || l.contains("err")),
                        "{ty} {i}: {lines:?}"
                    );
                    ends.push(lines.last().cloned().unwrap_or_default());
                }
                assert_eq!(ends[0], ends[1], "{ty}: {moves:?}");
                over = ends[0] == "response true";
                if over {
                    let results: Vec<String> =
                        engines.iter_mut().map(|e| e.uci(&["query result"]).pop().unwrap()).collect();
                    assert_eq!(results[0], results[1], "{ty}: {moves:?}");
                    assert!(results[0] == "response p1win" || results[0] == "response p2win", "{results:?}");
                    break;
                }
                let e = &mut engines[mover];
                e.uci(&[&position]);
                e.send("go movetime 200");
                let m = loop {
                    let l = e.line();
                    if let Some(m) = l.strip_prefix("bestmove ") {
                        break m.to_string();
                    }
                };
                assert!(!m.contains(' '), "one token: {m}");
                moves.push(m);
                assert!(moves.len() <= 20, "{ty}: {moves:?}");
            }
        }
    }
}

/// Issue 41, D8: an impossible feedback is refused naming the feedback
/// typed and only what is wrong with it (the message used to name 3B1W
/// whatever was typed); nothing changes.
#[test]
fn an_impossible_feedback_is_refused_naming_what_was_typed() {
    let mut e = Engine::start("impossible");
    e.one("newgame Mastermind");
    let gs = e.one("play 1234");
    for (typed, shown, why) in [
        ("5B0W", "5B0W", "5 black + 0 white make 5 key pegs, more than the 4 pegs of a code"),
        ("0B5W", "0B5W", "0 black + 5 white make 5 key pegs, more than the 4 pegs of a code"),
        ("2b3w", "2B3W", "2 black + 3 white make 5 key pegs, more than the 4 pegs of a code"),
        ("3B1W", "3B1W", "with 3 of the 4 pegs black, the last one cannot be white"),
    ] {
        let r = e.one(&format!("play {typed}"));
        assert!(r.starts_with("invalidmove "), "{typed}: {r}");
        assert!(r.contains(&format!("impossible feedback {shown}: {why}")), "{typed}: {r}");
        let other = ["5B0W", "0B5W", "2B3W", "3B1W"].into_iter().filter(|f| *f != shown);
        for f in other {
            assert!(!r.contains(f), "{typed}: {r} names {f}");
        }
        if typed != "3B1W" {
            assert!(!r.contains("cannot be white"), "{typed}: {r}");
        } else {
            assert!(!r.contains("key pegs"), "{typed}: {r}");
        }
        assert_eq!(e.one("validmoves").split(';').next(), Some("0B0W"));
    }
    // The state is exactly as it was.
    assert_eq!(e.one("play 1B0W"), gs.replace("Maker[1];1234", "Breaker[2];1234;1B0W"));
    // Three pegs: 2B1W is the one that cannot happen.
    e.one("newgame Mastermind+3x6");
    e.one("play 123");
    let r = e.one("play 2B1W");
    assert!(r.contains("impossible feedback 2B1W: with 2 of the 3 pegs black"), "{r}");
    assert_eq!(e.close(), 0);
}
