//! UHP move strings: canonical output and lenient parsing.

use super::Hive;
use super::hex::{E, NE, NOWHERE, NW, ORIGIN, SE, SW, W, nb, opposite};
use super::mv::Move;
use super::piece::{NO_PIECE, PER_SIDE, colour};
use crate::game::MoveError;

/// The canonical text of a legal move: `pass`; the bare piece on the
/// first move; `Piece Top` onto a stack; otherwise the top piece of the
/// destination's first occupied neighbour in the order NW, NE, E, SE, SW,
/// W (the moving piece taken away), with the separator that puts the
/// destination in place.
pub fn format_move(g: &Hive, mv: Move) -> String {
    if mv.is_pass() {
        return "pass".to_string();
    }
    let b = &g.board;
    let name = g.piece_name(mv.piece);
    if b.occupied(mv.to) {
        return format!("{name} {}", g.piece_name(b.top_at(mv.to)));
    }
    for d in 0..6 {
        let n = nb(mv.to, d);
        let mut top = b.top_at(n);
        if n == mv.from && top == mv.piece {
            top = b.under[mv.piece as usize];
        }
        if top == NO_PIECE {
            continue;
        }
        let r = g.piece_name(top);
        // Where the destination lies as seen from the reference.
        return match opposite(d) {
            E => format!("{name} {r}-"),
            NE => format!("{name} {r}/"),
            SE => format!("{name} {r}\\"),
            W => format!("{name} -{r}"),
            SW => format!("{name} /{r}"),
            _ => format!("{name} \\{r}"),
        };
    }
    name
}

/// Parses a move leniently (any reference piece, also one inside a stack;
/// several spaces; letter case) and checks that it is legal.
pub fn parse_move(g: &Hive, s: &str) -> Result<Move, MoveError> {
    let toks: Vec<&str> = s.split_whitespace().collect();
    if toks.is_empty() {
        return Err(MoveError::Parse("empty move".to_string()));
    }
    if g.outcome.is_some() {
        return Err(MoveError::GameOver);
    }
    let legal = g.moves();
    if toks.len() == 1 && toks[0].eq_ignore_ascii_case("pass") {
        return if legal == [Move::PASS] {
            Ok(Move::PASS)
        } else {
            Err(MoveError::Illegal("pass is only legal when no other move exists".to_string()))
        };
    }
    if toks.len() > 2 {
        return Err(MoveError::Parse(format!(
            "'{}' has too many parts: expected a piece and a target such as 'wS1 -bG1'",
            s.trim()
        )));
    }
    let piece = g.parse_piece(toks[0]).map_err(MoveError::Parse)?;
    let to = if toks.len() == 1 {
        if g.ply != 0 {
            return Err(MoveError::Parse(format!(
                "'{}' needs a target (only the first move of a game is a bare piece)",
                toks[0]
            )));
        }
        ORIGIN
    } else {
        target_cell(g, toks[1])?
    };
    if let Some(&m) = legal.iter().find(|m| m.piece == piece && m.to == to) {
        return Ok(m);
    }
    Err(MoveError::Illegal(why_illegal(g, piece, &legal, s.trim())))
}

/// The cell a target (`wS1-`, `/bQ`, `wB1` on top) names, in the current
/// position; the reference may be any piece on the board.
pub(crate) fn target_cell(g: &Hive, t: &str) -> Result<super::hex::Cell, MoveError> {
    let b = &g.board;
    let seps = ['-', '/', '\\'];
    let pre = t.chars().next().filter(|c| seps.contains(c));
    let post = t.chars().last().filter(|c| seps.contains(c));
    if pre.is_some() && post.is_some() {
        return Err(MoveError::Parse(format!(
            "target '{t}' has a separator on both sides of the reference piece"
        )));
    }
    let start = pre.map_or(0, |_| 1);
    let end = t.len() - post.map_or(0, |_| 1);
    let body = t.get(start..end).unwrap_or("");
    let r = g.parse_piece(body).map_err(|e| MoveError::Parse(format!("bad reference piece: {e}")))?;
    let rc = b.cell[r as usize];
    if rc == NOWHERE {
        return Err(MoveError::Illegal(format!(
            "the reference piece {} is not on the board",
            g.piece_name(r)
        )));
    }
    Ok(match (pre, post) {
        (None, None) => {
            if b.top_at(rc) != r {
                return Err(MoveError::Illegal(format!(
                    "{} is not on top of its stack ({} is)",
                    g.piece_name(r),
                    g.piece_name(b.top_at(rc))
                )));
            }
            rc
        }
        (None, Some('-')) => nb(rc, E),
        (None, Some('/')) => nb(rc, NE),
        (None, Some(_)) => nb(rc, SE),
        (Some('-'), _) => nb(rc, W),
        (Some('/'), _) => nb(rc, SW),
        (Some(_), _) => nb(rc, NW),
    })
}

/// A helpful reason why `piece` cannot go where the text says.
fn why_illegal(g: &Hive, piece: u8, legal: &[Move], text: &str) -> String {
    let b = &g.board;
    let name = g.piece_name(piece);
    let me = g.side();
    let side = ["White", "Black"][me];
    if legal == [Move::PASS] {
        return format!("{side} has no legal move and must pass");
    }
    let queen_placed = b.on_board((me * PER_SIDE) as u8);
    if !b.on_board(piece) {
        if colour(piece) != me {
            return format!("it is {side}'s turn: {name} cannot be placed");
        }
        if legal.iter().all(|m| m.piece != piece) {
            let turn = g.ply / 2 + 1;
            if turn == 1 && g.bug(piece) == super::Bug::Queen {
                return "the queen may not be placed on a side's first turn".to_string();
            }
            if !queen_placed && turn == 4 {
                return format!("{side} must place the queen on its fourth turn");
            }
            return format!("{name} cannot be placed now (pieces of a kind go in numeric order)");
        }
        return format!("{name} cannot be placed there: '{text}' (a new piece touches only its own colour)");
    }
    if !queen_placed {
        return format!("{side} may not move pieces before placing the queen");
    }
    if legal.iter().any(|m| m.piece == piece) {
        format!("{name} cannot move there: '{text}'")
    } else {
        format!("{name} has no legal move now")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::hive::Expansions;

    fn game(moves: &[&str]) -> Hive {
        let mut g = Hive::new(Expansions::ALL);
        g.play_all(moves.iter().copied()).unwrap();
        g
    }

    #[test]
    fn transcript_moves_are_canonical() {
        let mut g = Hive::new(Expansions::BASE);
        let m = g.parse_move("wS1").unwrap();
        assert_eq!(g.format_move(m), "wS1");
        g.play(m);
        let m = g.parse_move("bG1 -wS1").unwrap();
        assert_eq!(g.format_move(m), "bG1 -wS1");
        g.play(m);
        let m = g.parse_move("wQ wS1/").unwrap();
        assert_eq!(g.format_move(m), "wQ wS1/");
    }

    #[test]
    fn lenient_parsing() {
        let g = game(&["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"]);
        // The same move from other references, spaces and case.
        let canon = g.parse_move("wA1 \\wQ").unwrap();
        for s in ["wA1   \\wQ", "WA1 \\WQ", "wa1 \\wq", " wA1  \\wQ "] {
            assert_eq!(g.parse_move(s), Ok(canon), "{s}");
        }
        assert_eq!(g.format_move(canon), "wA1 \\wQ");
        assert!(matches!(g.parse_move(""), Err(MoveError::Parse(_))));
        assert!(matches!(g.parse_move("wA1 -wQ-"), Err(MoveError::Parse(_))));
        assert!(matches!(g.parse_move("wX1 wQ-"), Err(MoveError::Parse(_))));
        assert!(matches!(g.parse_move("wA1 wQ- x"), Err(MoveError::Parse(_))));
        assert!(matches!(g.parse_move("wA1"), Err(MoveError::Parse(_))));
        assert!(matches!(g.parse_move("wA1 wG1-"), Err(MoveError::Illegal(_))));
        assert!(matches!(g.parse_move("bA1 wQ-"), Err(MoveError::Illegal(_))));
        assert!(matches!(g.parse_move("pass"), Err(MoveError::Illegal(_))));
        assert!(matches!(g.parse_move("wS2 bQ-"), Err(MoveError::Illegal(_))));
    }

    #[test]
    fn buried_reference_and_on_top() {
        // wB1 climbs on wS1; then wS1 (buried) can still be a side
        // reference, but not an "on top" one.
        let mut g = game(&["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wB1 \\wS1", "bA1 bQ-", "wB1 wS1"]);
        assert_eq!(g.board.stack(ORIGIN).len(), 2);
        let m = g.parse_move("bA1 wS1\\").unwrap();
        assert_eq!(g.parse_move("bA1 wB1\\"), Ok(m));
        assert!(matches!(g.parse_move("bB1 wS1"), Err(MoveError::Illegal(_))));
        g.play(g.parse_move("bB1 bQ/").unwrap());
        let up = g.parse_move("wB1 bS1").unwrap();
        assert_eq!(g.format_move(up), "wB1 bS1");
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let g = game(&["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"]);
        let alphabet: Vec<char> = "wbWBQSGAMLPq0123-/\\ é;\t".chars().collect();
        let mut x = 99u64;
        for _ in 0..3000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = (x >> 60) as usize;
            let s: String =
                (0..len).map(|i| alphabet[((x >> (i * 5 % 50)) as usize + i) % alphabet.len()]).collect();
            if let Ok(m) = g.parse_move(&s) {
                assert!(g.moves().contains(&m), "{s}");
            }
            let _ = Hive::from_game_string(&format!("Base+MLP;{s}"));
        }
    }

    #[test]
    fn move_lists() {
        let v = |s: &str| Hive::split_move_list(s);
        assert_eq!(v("wS1; bS1 wS1- ;wQ -wS1"), vec!["wS1", "bS1 wS1-", "wQ -wS1"]);
        assert_eq!(v("wS1 bS1 wS1- wQ -wS1"), vec!["wS1", "bS1 wS1-", "wQ -wS1"]);
        assert_eq!(v("wQ -wS1  pass bB1 wS1"), vec!["wQ -wS1", "pass", "bB1 wS1"]);
        assert_eq!(v("pass wS1 pass"), vec!["pass", "wS1", "pass"]);
        assert!(v("  ").is_empty());
    }

    #[test]
    fn every_legal_move_round_trips() {
        // A few random-ish games: every legal move's canonical text parses
        // back to the same move.
        for seed in 0..6u64 {
            let mut g = Hive::new(Expansions::ALL);
            let mut x = seed;
            for _ in 0..60 {
                if g.outcome().is_some() {
                    break;
                }
                let moves = g.moves();
                for &m in &moves {
                    let t = g.format_move(m);
                    assert_eq!(g.parse_move(&t), Ok(m), "{t}");
                }
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let m = moves[(x >> 33) as usize % moves.len()];
                g.play(m);
            }
        }
    }
}
