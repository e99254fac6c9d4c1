//! One symbol, one token, everywhere (issue 28 item 2). For every game
//! type the engine offers (the `UCI_Variant` list, which every family fills
//! with its common types) and every kind of Mastermind variant (blanks,
//! letters, colours, no repeats), along a game played from `validmoves`:
//! each move is read back as it is printed by `play`, by `position ...
//! moves` in meeple's dialect and in UCI and UGI modes, through the
//! GameString (`newgame`) and a save; the moves of `bestmove` and `go` are
//! among the valid ones and are played back; UCI/UGI `validmoves` lists the
//! same moves in their one-token form (a space written `_` only for games
//! whose moves contain spaces).

use crate::common::Engine;

/// The variants a Mastermind player meets besides the offered types.
const MASTERMIND_KINDS: [&str; 5] = [
    "Mastermind+blanks",
    "Mastermind+letters+blanks",
    "Mastermind+colours+blanks",
    "Mastermind+3x5+colours+norepeat",
    "Mastermind+3x8+letters+blanks+norepeat",
];

/// The game types of the `UCI_Variant` combo.
fn offered_types() -> Vec<String> {
    let mut e = Engine::start("rt-types");
    e.send("uci");
    let mut types = Vec::new();
    loop {
        let l = e.line();
        if l == "uciok" {
            break;
        }
        if let Some(rest) = l.strip_prefix("option name UCI_Variant type combo default ") {
            types.extend(rest.split(" var ").skip(1).map(str::to_string));
        }
    }
    assert!(types.len() >= 3, "{types:?}");
    types
}

/// A move in the one-token form of UCI/UGI.
fn token(mv: &str) -> String {
    mv.replace(' ', "_")
}

/// `go depth 1` in UCI/UGI mode: the move of `bestmove`.
fn uci_go(e: &mut Engine) -> String {
    e.send("go depth 1");
    loop {
        let l = e.line();
        if let Some(m) = l.strip_prefix("bestmove ") {
            return m.split(' ').next().unwrap().to_string();
        }
    }
}

fn no_failure(lines: &[String], what: &str) {
    assert!(
        !lines.iter().any(|l| l.contains("invalidmove") || l.starts_with("info string err")),
        "{what}: {lines:?}"
    );
}

#[test]
fn every_game_type_reads_its_moves_back_as_printed() {
    let mut types = offered_types();
    types.extend(MASTERMIND_KINDS.iter().map(|t| t.to_string()));
    let mut m = Engine::start("rt-meeple");
    let mut u = Engine::start("rt-uci");
    let mut g = Engine::start("rt-ugi");
    u.uci(&["uci"]);
    g.uci(&["ugi"]);
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut tested = 0;
    for ty in &types {
        let start = m.one(&format!("newgame {ty}"));
        if start.starts_with("err ") {
            // A type the family offers but cannot set up is another issue's
            // (issue 27 item 6: Connect4+9x7); it has no moves to check.
            eprintln!("skipped {ty}: {start}");
            continue;
        }
        tested += 1;
        for e in [&mut u, &mut g] {
            no_failure(&e.uci(&[format!("setoption name UCI_Variant value {ty}")]), ty);
        }
        let mut moves: Vec<String> = Vec::new();
        for ply in 0..8 {
            let valid_line = m.one("validmoves");
            if valid_line.starts_with("err ") {
                break;
            }
            let valid: Vec<String> = valid_line.split(';').map(str::to_string).collect();
            let tokens: Vec<String> = valid.iter().map(|v| token(v)).collect();
            // UCI/UGI at the same position, from the whole move list.
            let list: Vec<String> = moves.iter().map(|v| token(v)).collect();
            let position = match list.is_empty() {
                true => "position startpos".to_string(),
                false => format!("position startpos moves {}", list.join(" ")),
            };
            for e in [&mut u, &mut g] {
                let lines = e.uci(&[position.clone(), "validmoves".into()]);
                no_failure(&lines, &position);
                assert_eq!(lines.last().unwrap().split(' ').collect::<Vec<_>>(), tokens, "{ty}: {position}");
            }
            // bestmove (meeple) and go (UCI) give valid moves.
            let best = m.one("bestmove depth 1");
            assert!(valid.contains(&best), "{ty}: bestmove {best} not valid");
            let go = uci_go(&mut u);
            assert!(tokens.contains(&go), "{ty}: go {go} not in {tokens:?}");
            // Every other ply plays the engine's move, the others a move
            // drawn from the list.
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let mv = if ply % 2 == 0 { best } else { valid[(seed >> 33) as usize % valid.len()].clone() };
            let gs = m.one(&format!("play {}", token(&mv)));
            assert_eq!(gs.rsplit(';').next(), Some(mv.as_str()), "{ty}: play {mv}");
            moves.push(mv);
            // The GameString and a save give the game back.
            assert_eq!(m.one(&format!("newgame {gs}")), gs, "{ty}");
            assert_eq!(m.one("save roundtrip"), "saved roundtrip");
            assert_eq!(m.one("load roundtrip"), gs, "{ty}");
            // meeple's own `position ... moves` with `;`, from the start.
            let listed = moves.join(";");
            assert_eq!(m.one(&format!("position startpos moves {listed}")), gs, "{ty}");
            // UCI/UGI: the GameString as `fen`, and the whole list again.
            let tokens: Vec<String> = moves.iter().map(|v| token(v)).collect();
            for e in [&mut u, &mut g] {
                let lines = e.uci(&[format!("position fen {gs}"), "query gameover".into()]);
                no_failure(&lines, &gs);
                let lines = e
                    .uci(&[format!("position startpos moves {}", tokens.join(" ")), "query gameover".into()]);
                no_failure(&lines, &gs);
            }
            if !gs.contains(";InProgress;") {
                break;
            }
        }
        assert!(!moves.is_empty(), "{ty}: no move played");
    }
    assert!(tested >= types.len() - 1, "{tested} of {types:?}");
}
