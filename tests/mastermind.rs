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
        // A wrong feedback is refused: only the true one is legal.
        let valid = e.one("validmoves");
        assert!(!valid.contains(';'), "one true feedback: {valid}");
        let wrong = if valid == "0B0W" { "1B0W" } else { "0B0W" };
        assert!(e.one(&format!("play {wrong}")).starts_with("invalidmove "));
        let fb = e.engine_move();
        assert_eq!(fb, valid);
        last = e.one(&format!("play {fb}"));
        if !last.contains(";InProgress;") {
            break;
        }
    }
    assert!(last.starts_with("Mastermind;BreakerWins;"), "{last}");
    let secret = last.rsplit(';').next().unwrap().strip_prefix("Secret=").unwrap().to_string();
    // The finished GameString round-trips, secret included.
    assert_eq!(e.one(&format!("newgame {last}")), last);
    assert_eq!(secret.len(), 4);
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
    e.cmd("setoption name Seed value 9");
    e.one("newgame Mastermind");
    e.one("play 1122");
    let fb = e.engine_move();
    let gs = e.one(&format!("play {fb}"));
    assert!(!gs.contains("Secret="), "hidden while the game goes on");
    assert_eq!(e.one("save mm"), "saved mm");
    e.one("newgame Connect4");
    assert_eq!(e.one("load mm"), gs);
    // The same secret answers the next guess as before.
    e.one("play 3456");
    let valid = e.one("validmoves");
    assert!(!valid.contains(';'), "{valid}");
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
    for strategy in ["entropy", "random", "knuth", "genetic", "mostparts", "expected", "optimal"] {
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
