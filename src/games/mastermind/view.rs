//! Mastermind for `board json` and the GUI: rows of pegs (cells
//! `r<row>s<slot>`, 1-based, row 1 at the top) with their key pegs; a guess
//! selects a symbol at each slot of the next row, a feedback a count of
//! black then of white key pegs.

use super::{Code, Mastermind, MmMove};
use crate::boardview::{BoardView, CellView, Geometry, PALETTE, PieceView, RowMarks, Select};
use crate::game::{Game, Outcome};
use crate::movetree::NextAction;

const BLANK_COLOUR: &str = "#455a64";

fn cell_id(row: usize, slot: u8) -> String {
    format!("r{}s{}", row + 1, slot + 1)
}

fn colour(g: &Mastermind, k: u8) -> String {
    if k >= g.spec.colours {
        BLANK_COLOUR.to_string()
    } else {
        PALETTE[k as usize % PALETTE.len()].to_string()
    }
}

fn peg(g: &Mastermind, row: usize, slot: u8, code: Code) -> PieceView {
    let k = code.peg(g.spec.pegs, slot);
    PieceView {
        id: format!("{}p", cell_id(row, slot)),
        side: Some(super::BREAKER),
        label: g.spec.symbol_char(k).to_string(),
        colour: colour(g, k),
        kind: String::new(),
        name: g.spec.symbol_name(k),
    }
}

pub fn board_view(g: &Mastermind) -> BoardView {
    let s = &g.spec;
    let rows = (s.rows as usize).max(g.rows.len() + 1);
    let mut cells = Vec::new();
    let mut marks = Vec::new();
    for row in 0..rows {
        let code = match g.rows.get(row) {
            Some(r) => Some(r.guess),
            None if row == g.rows.len() => g.pending,
            None => None,
        };
        for slot in 0..s.pegs {
            cells.push(CellView {
                id: cell_id(row, slot),
                x: slot as i32,
                y: row as i32,
                pieces: code.map(|c| peg(g, row, slot, c)).into_iter().collect(),
                marked: false,
            });
        }
        if let Some(r) = g.rows.get(row) {
            let f = r.feedback;
            let mut m = vec!["#111111".to_string(); f.black as usize];
            m.extend(vec!["#fafafa".to_string(); f.white as usize]);
            marks.push(RowMarks { y: row as i32, marks: m, label: f.to_string() });
        }
    }
    let secret = g.secret.filter(|_| g.outcome().is_some()).map(|c| s.code_text(c).to_string());
    let mut caption = match g.outcome() {
        Some(Outcome::Win(w)) if w == super::BREAKER => format!("Breaker wins in {} rows", g.rows.len()),
        Some(Outcome::Win(_)) => "Maker wins: the rows ran out".to_string(),
        Some(Outcome::Draw) => "Draw".to_string(),
        None if g.pending.is_some() => format!("Maker scores row {}", g.rows.len() + 1),
        None => format!("Breaker guesses row {} of {}", g.rows.len() + 1, s.rows),
    };
    if let Some(sec) = secret {
        caption.push_str(&format!("; the secret was {sec}"));
    } else if g.outcome() == Some(Outcome::Win(super::MAKER)) {
        // No secret was fixed (an engine answering for a code consistent
        // so far, or a person keeping it in their head): the codes that
        // fit every row, so the breaker learns what it could have been.
        caption.push_str(&fitting_codes(g));
    }
    // The seed's scoring of a finished game (a round of a match): the
    // codemaker scores the rows used, plus one if the code was not broken.
    let scores = g.outcome().map(|o| {
        let broken = o == Outcome::Win(super::BREAKER);
        let maker = g.rows.len() as i64 + i64::from(!broken);
        let mut by_side = [0; 2];
        by_side[1 - super::BREAKER] = maker;
        by_side
    });
    BoardView {
        geometry: Geometry::Rows { rows: rows as u32, slots: s.pegs as u32 },
        cells,
        hands: [Vec::new(), Vec::new()],
        marks,
        scores,
        forfeit: forfeit_scores(g),
        side_colours: None,
        caption,
        text: String::new(),
    }
}

/// A round that a side forfeits (loses on time, resigns, abandons) before
/// the rules end it, scored by the seed's rule as if it had been played
/// out the way that is worst for the side that forfeits, so that
/// forfeiting never pays: `[by side if the breaker forfeits, by side if
/// the maker forfeits]`; `None` once the game is over (`scores` then).
///
/// - The breaker forfeits: the code counts as not broken after every row,
///   so the maker scores what an unbroken code scores, all the rows plus
///   one (not the rows used plus one: a breaker about to lose would cut
///   the maker's points by running out of time early).
/// - The maker forfeits: the breaker wins the round, and the maker scores
///   only the guesses made so far (the one waiting for its feedback
///   included), what it would have scored had that guess broken the code.
fn forfeit_scores(g: &Mastermind) -> Option<[[i64; 2]; 2]> {
    if g.outcome().is_some() {
        return None;
    }
    let (breaker, maker) = (super::BREAKER, super::MAKER);
    let guesses = g.rows.len() as i64 + i64::from(g.pending.is_some());
    let mut by_side = [[0; 2]; 2];
    by_side[breaker][maker] = i64::from(g.spec.rows) + 1;
    by_side[maker][maker] = guesses;
    Some(by_side)
}

/// Symbol `k` at peg `i` of the next guess.
fn guess_select(g: &Mastermind, i: u8, k: u8) -> Select {
    let s = &g.spec;
    Select::Symbol {
        slot: format!("s{}", i + 1),
        symbol: s.symbol_char(k).to_string(),
        label: s.symbol_name(k),
        cell: Some(cell_id(g.rows.len(), i)),
        colour: Some(colour(g, k)),
    }
}

/// One level of the guess's move tree without listing the codes (any
/// variant, 10^8 codes too): the symbols the next peg may take. `None` on
/// the maker's turn (its few feedbacks are listed).
pub fn next_actions(g: &Mastermind, prefix: &[String]) -> Option<Result<Vec<NextAction>, String>> {
    if g.pending.is_some() {
        return None;
    }
    let s = &g.spec;
    let mut used = Vec::new();
    for (n, a) in prefix.iter().enumerate() {
        let mut chars = a.chars();
        let k = match (chars.next().and_then(|c| s.symbol_of_char(c)), chars.next()) {
            (Some(k), None) if s.repeats || !used.contains(&k) => k,
            _ => return Some(Err(format!("no guess begins with '{}'", prefix[..=n].join(" ")))),
        };
        used.push(k);
    }
    let i = prefix.len() as u8;
    if i >= s.pegs {
        return Some(Ok(Vec::new()));
    }
    let text: String = used.iter().map(|&k| s.symbol_char(k)).collect();
    let last = i + 1 == s.pegs;
    Some(Ok((0..s.symbols())
        .filter(|k| s.repeats || !used.contains(k))
        .map(|k| NextAction {
            action: s.symbol_char(k).to_string(),
            select: guess_select(g, i, k),
            mv: last.then(|| format!("{text}{}", s.symbol_char(k))),
            continues: !last,
        })
        .collect()))
}

pub fn selections(g: &Mastermind, mv: MmMove) -> Vec<Select> {
    let s = &g.spec;
    match mv {
        MmMove::Guess(c) => (0..s.pegs).map(|i| guess_select(g, i, c.peg(s.pegs, i))).collect(),
        MmMove::Feedback(f) => vec![
            Select::Symbol {
                slot: "black".into(),
                symbol: f.black.to_string(),
                label: format!("{} black", f.black),
                cell: None,
                colour: Some("#111111".into()),
            },
            Select::Symbol {
                slot: "white".into(),
                symbol: f.white.to_string(),
                label: format!("{} white", f.white),
                cell: None,
                colour: Some("#fafafa".into()),
            },
        ],
    }
}

/// After a game the maker won without a fixed secret: `; the only code
/// that fits every row: 3456`, or `; codes that fit every row: 3456, 3465`
/// (`and more` after two).
fn fitting_codes(g: &Mastermind) -> String {
    let s = &g.spec;
    let (codes, more) = super::consistent::some_consistent(s, &g.rows, 2);
    let list: Vec<String> = codes.iter().map(|&c| s.code_text(c).to_string()).collect();
    match (list.as_slice(), more) {
        ([], _) => String::new(),
        ([one], false) => format!("; the only code that fits every row: {one}"),
        (_, false) => format!("; codes that fit every row: {}", list.join(", ")),
        (_, true) => format!("; codes that fit every row: {} and more", list.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_show_guesses_and_key_pegs() {
        let mut g = Mastermind::parse_type("Mastermind").unwrap().unwrap();
        g.apply_extra("Secret=1234").unwrap();
        let mv = g.parse_move("1243").unwrap();
        assert_eq!(selections(&g, mv).len(), 4);
        g.play(mv);
        let v = board_view(&g);
        assert_eq!(v.cells[0].pieces[0].label, "1");
        assert_eq!(v.cells[2].pieces[0].label, "4");
        assert!(v.marks.is_empty());
        let fb = g.parse_move("2B2W").unwrap();
        g.play(fb);
        let v = board_view(&g);
        assert_eq!(v.marks[0].marks.len(), 4);
        assert_eq!(v.marks[0].label, "2B2W");
        assert!(v.caption.contains("row 2"), "{}", v.caption);
    }

    /// What each side scores if a side forfeits now, at every point of a
    /// round, against the seed's rule played out: the breaker forfeiting
    /// leaves the code unbroken after all the rows (rows + 1 for the
    /// maker, however few rows were used), the maker forfeiting scores the
    /// guesses made; once the rules end the round, `scores` and no
    /// `forfeit`.
    #[test]
    fn a_forfeited_round_scores_as_the_seed_would_at_worst_for_the_forfeiter() {
        for (ty, rows) in [("Mastermind", 10), ("Mastermind+rows12", 12), ("Mastermind+3x4+rows1", 1)] {
            let mut g = Mastermind::parse_type(ty).unwrap().unwrap();
            let s = g.spec;
            let secret = s.all_codes()[s.all_codes().len() - 1];
            let wrong = s.all_codes()[0];
            assert_ne!(wrong, secret);
            let unbroken = rows + 1;
            assert_eq!(board_view(&g).forfeit, Some([[0, unbroken], [0, 0]]), "{ty}: before any guess");
            let json = serde_json::to_value(board_view(&g)).unwrap();
            assert_eq!(json["forfeit"], serde_json::json!([[0, unbroken], [0, 0]]));
            for row in 1..=rows {
                g.play(MmMove::Guess(wrong));
                assert_eq!(
                    board_view(&g).forfeit,
                    Some([[0, unbroken], [0, row]]),
                    "{ty}: guess {row} unanswered"
                );
                g.play(MmMove::Feedback(s.score(wrong, secret)));
                if row < rows {
                    assert_eq!(
                        board_view(&g).forfeit,
                        Some([[0, unbroken], [0, row]]),
                        "{ty}: row {row} scored"
                    );
                }
            }
            // Played out, the unbroken code scores what the breaker's
            // forfeit gave the maker all along.
            let v = board_view(&g);
            assert_eq!(g.outcome(), Some(Outcome::Win(super::super::MAKER)));
            assert_eq!((v.scores, v.forfeit), (Some([0, unbroken]), None), "{ty}");
            assert!(serde_json::to_value(&v).unwrap().get("forfeit").is_none());
        }
        // Broken in the third row: the maker scores 3, what the maker's
        // forfeit at the third guess gave it.
        let mut g = Mastermind::parse_type("Mastermind").unwrap().unwrap();
        let s = g.spec;
        let secret = s.parse_code("3456").unwrap();
        for guess in ["1122", "3344"] {
            let c = s.parse_code(guess).unwrap();
            g.play(MmMove::Guess(c));
            g.play(MmMove::Feedback(s.score(c, secret)));
        }
        g.play(MmMove::Guess(secret));
        assert_eq!(board_view(&g).forfeit, Some([[0, 11], [0, 3]]));
        g.play(MmMove::Feedback(s.score(secret, secret)));
        let v = board_view(&g);
        assert_eq!((v.scores, v.forfeit), (Some([0, 3]), None));
    }

    /// A game the maker won with no fixed secret: the caption names the
    /// codes that fit every row, checked against every code of the variant.
    #[test]
    fn a_maker_win_without_a_secret_names_the_codes_that_fit() {
        let one = ["1111", "2222", "3333", "4444", "5555", "6666", "3465", "4356", "3546", "6543"];
        let none = ["1122"; 10];
        for (guesses, expected) in [
            (&one[..], "; the only code that fits every row: 3456"),
            (&none[..], "; codes that fit every row: 3333, 3334 and more"),
        ] {
            let mut g = Mastermind::parse_type("Mastermind").unwrap().unwrap();
            let s = g.spec;
            let secret = s.parse_code("3456").unwrap();
            for guess in guesses {
                let code = s.parse_code(guess).unwrap();
                g.play(MmMove::Guess(code));
                g.play(MmMove::Feedback(s.score(code, secret)));
            }
            assert_eq!(g.outcome(), Some(Outcome::Win(super::super::MAKER)));
            // Every code of the variant that answers every row alike.
            let fit: Vec<String> = s
                .all_codes()
                .into_iter()
                .filter(|&c| g.rows.iter().all(|r| s.score(r.guess, c) == r.feedback))
                .map(|c| s.code_text(c).to_string())
                .collect();
            let caption = board_view(&g).caption;
            assert_eq!(caption, format!("Maker wins: the rows ran out{expected}"));
            assert!(fit.len() == 1 || fit.len() > 2);
            for code in fit.iter().take(2) {
                assert!(caption.contains(code.as_str()), "{caption} {fit:?}");
            }
        }
        // With a fixed secret the secret itself is named.
        let mut g = Mastermind::parse_type("Mastermind").unwrap().unwrap();
        g.apply_extra("Secret=3456").unwrap();
        let s = g.spec;
        for guess in none {
            let code = s.parse_code(guess).unwrap();
            g.play(MmMove::Guess(code));
            g.play(MmMove::Feedback(s.score(code, s.parse_code("3456").unwrap())));
        }
        assert_eq!(board_view(&g).caption, "Maker wins: the rows ran out; the secret was 3456");
    }
}
