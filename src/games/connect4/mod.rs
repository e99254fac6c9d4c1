//! Connect Four on any board of W x H with W*(H+1) <= 64 and W <= 9.
//!
//! Game type strings: `Connect4` (7 x 6) and `Connect4+WxH`. Moves are
//! column digits `1`..`W`, the notation of the standard benchmark sets; a
//! position is its string of columns (`4453`).

mod analysis;
mod bench;
mod board;
pub mod book;
mod engine;
mod eval;
mod heuristic;
mod perfect;
mod players;
mod review;
mod solve_cmd;
pub mod solver;
#[cfg(test)]
mod solver_tests;
mod tt;
mod view;

pub use board::Board;

use std::fmt;

use crate::game::{Game, MoveError, Outcome, Side};

/// A Connect Four position (the [`Game`] implementation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Connect4 {
    pub board: Board,
}

/// Why a Connect Four game type string is invalid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeError(pub String);

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Connect4 {
    /// An empty board of the given size.
    pub fn new(width: u32, height: u32) -> Result<Connect4, SizeError> {
        Board::new(width, height).map(|board| Connect4 { board }).ok_or_else(|| {
            SizeError(format!(
                "Connect4+{width}x{height} is not allowed: need 1 <= W <= 9, H >= 1 and W*(H+1) <= 64"
            ))
        })
    }

    /// The standard 7 x 6 board.
    pub fn standard() -> Connect4 {
        Connect4::new(7, 6).expect("7x6 fits")
    }

    /// Plays a string of column digits (benchmark notation); stops with an
    /// error at the first invalid move, naming it.
    pub fn play_sequence(&mut self, seq: &str) -> Result<(), MoveError> {
        for (i, ch) in seq.trim().chars().enumerate() {
            let mv = self.parse_move(&ch.to_string()).map_err(|e| match e {
                MoveError::Parse(m) => MoveError::Parse(format!("move {}: {m}", i + 1)),
                MoveError::Illegal(m) => MoveError::Illegal(format!("move {}: {m}", i + 1)),
                MoveError::GameOver => MoveError::Illegal(format!("move {}: the game is over", i + 1)),
            })?;
            self.play(mv);
        }
        Ok(())
    }
}

/// Parses `WxH` (the part after `Connect4+`).
fn parse_size(s: &str) -> Option<(u32, u32)> {
    let (w, h) = s.split_once(['x', 'X'])?;
    if w.is_empty()
        || h.is_empty()
        || !w.bytes().all(|b| b.is_ascii_digit())
        || !h.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some((w.parse().ok()?, h.parse().ok()?))
}

impl Game for Connect4 {
    fn board_view(&self) -> crate::boardview::BoardView {
        view::board_view(self)
    }
    fn selections(&self, mv: u8) -> Vec<crate::boardview::Select> {
        view::selections(self, mv)
    }
    /// A column, 0-based.
    type Move = u8;

    const FAMILY: &'static str = "Connect4";
    const DEFAULT_TYPE: &'static str = "Connect4";
    const TYPE_GRAMMAR: &'static str = "Connect4 | Connect4+WxH (W<=9, W*(H+1)<=64)";
    const COMMON_TYPES: &'static [&'static str] =
        &["Connect4", "Connect4+6x5", "Connect4+8x7", "Connect4+9x7"];
    const MOVE_NOTATION: &'static str = "the column, 1 = leftmost (play 4); a move list may be written as digits (position startpos moves 4453)";

    fn parse_type(s: &str) -> Option<Result<Self, String>> {
        let lower = s.trim().to_ascii_lowercase();
        let rest = lower.strip_prefix("connect4")?;
        if rest.is_empty() {
            return Some(Ok(Connect4::standard()));
        }
        let size = rest.strip_prefix('+')?;
        Some(match parse_size(size) {
            Some((w, h)) => Connect4::new(w, h).map_err(|e| e.0),
            None => Err(format!("bad Connect4 size '{size}': expected WxH such as 7x6")),
        })
    }

    fn game_type(&self) -> String {
        let (w, h) = (self.board.width(), self.board.height());
        if (w, h) == (7, 6) { "Connect4".to_string() } else { format!("Connect4+{w}x{h}") }
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["Red", "Yellow"]
    }

    fn side_to_move(&self) -> Side {
        self.board.side_to_move()
    }

    fn ply(&self) -> usize {
        self.board.moves() as usize
    }

    fn legal_moves(&self, out: &mut Vec<u8>) {
        if self.board.outcome().is_some() {
            return;
        }
        out.extend((0..self.board.width()).filter(|&c| self.board.can_play(c)).map(|c| c as u8));
    }

    fn play(&mut self, mv: u8) {
        self.board.play(mv as u32)
    }

    fn undo(&mut self, mv: u8) {
        self.board.undo(mv as u32)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.board.outcome()
    }

    fn hash(&self) -> u64 {
        // Fibonacci hashing of the unique key.
        self.board.key().wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (self.board.width() as u64) << 59
    }

    fn parse_move(&self, s: &str) -> Result<u8, MoveError> {
        let t = s.trim();
        let w = self.board.width();
        let col = match t.parse::<u32>() {
            Ok(c) if t.len() == 1 && (1..=w).contains(&c) => c - 1,
            _ => return Err(MoveError::Parse(format!("'{t}' is not a column 1..{w}"))),
        };
        if self.board.outcome().is_some() {
            return Err(MoveError::GameOver);
        }
        if !self.board.can_play(col) {
            return Err(MoveError::Illegal(format!("column {} is full", col + 1)));
        }
        Ok(col as u8)
    }

    fn format_move(&self, mv: u8) -> String {
        (mv + 1).to_string()
    }

    /// Besides `;` and whitespace, a run of digits is one move per digit
    /// (`4453` = `4;4;5;3`), since a column is always one digit.
    fn split_move_list(s: &str) -> Vec<String> {
        s.split(|c: char| c == ';' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .flat_map(|t| {
                if t.len() > 1 && t.bytes().all(|b| b.is_ascii_digit()) {
                    t.chars().map(|c| c.to_string()).collect()
                } else {
                    vec![t.to_string()]
                }
            })
            .collect()
    }

    fn render(&self, color: bool) -> String {
        let b = &self.board;
        let (w, h) = (b.width(), b.height());
        let mut out = String::new();
        for row in (0..h).rev() {
            for col in 0..w {
                out.push(' ');
                out.push_str(match (b.cell(col, row), color) {
                    (None, _) => ".",
                    (Some(0), false) => "X",
                    (Some(_), false) => "O",
                    (Some(0), true) => "\x1b[1;31mX\x1b[0m",
                    (Some(_), true) => "\x1b[1;33mO\x1b[0m",
                });
            }
            out.push('\n');
        }
        for col in 1..=w {
            out.push(' ');
            out.push_str(&col.to_string());
        }
        out.push('\n');
        let names = self.side_names();
        let status = match b.outcome() {
            Some(Outcome::Win(s)) => format!("{} wins", names[s]),
            Some(Outcome::Draw) => "Draw".to_string(),
            None => format!("{} ({}) to move", names[b.side_to_move()], ["X", "O"][b.side_to_move()]),
        };
        out.push_str(&status);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::search::SearchCtx;
    use crate::search::perft::perft;

    #[test]
    fn type_strings() {
        assert_eq!(Connect4::parse_type("connect4").unwrap().unwrap().game_type(), "Connect4");
        assert_eq!(Connect4::parse_type("CONNECT4+7x6").unwrap().unwrap().game_type(), "Connect4");
        assert_eq!(Connect4::parse_type("Connect4+5X4").unwrap().unwrap().game_type(), "Connect4+5x4");
        assert!(Connect4::parse_type("Connect4+10x5").unwrap().is_err());
        assert!(Connect4::parse_type("Connect4+9x7").unwrap().is_err());
        assert!(Connect4::parse_type("Connect4+axb").unwrap().is_err());
        assert!(Connect4::parse_type("Connect4x").is_none());
        assert!(Connect4::parse_type("Base").is_none());
    }

    #[test]
    fn move_parsing() {
        let mut g = Connect4::standard();
        assert_eq!(g.parse_move(" 4 "), Ok(3));
        assert!(matches!(g.parse_move("0"), Err(MoveError::Parse(_))));
        assert!(matches!(g.parse_move("8"), Err(MoveError::Parse(_))));
        assert!(matches!(g.parse_move("44"), Err(MoveError::Parse(_))));
        assert!(matches!(g.parse_move("x"), Err(MoveError::Parse(_))));
        g.play_sequence("444444").unwrap();
        assert!(matches!(g.parse_move("4"), Err(MoveError::Illegal(_))));
        assert!(g.play_sequence("1").is_ok());
    }

    #[test]
    fn move_lists() {
        assert_eq!(Connect4::split_move_list("4453"), vec!["4", "4", "5", "3"]);
        assert_eq!(Connect4::split_move_list("4;4 5;3"), vec!["4", "4", "5", "3"]);
    }

    #[test]
    fn perft_7x6() {
        let expected = [7, 49, 343, 2401, 16807, 117649, 823536];
        for (d, &n) in expected.iter().enumerate() {
            let mut g = Connect4::standard();
            assert_eq!(perft(&mut g, d as u32 + 1), n, "depth {}", d + 1);
        }
    }

    fn analyze_with(g: &Connect4, args: &str, limits: crate::search::Limits) -> Result<Vec<String>, String> {
        analyze_book(g, args, limits, true)
    }

    /// [`analyze_with`], the opening book on or off.
    fn analyze_book(
        g: &Connect4,
        args: &str,
        limits: crate::search::Limits,
        own_book: bool,
    ) -> Result<Vec<String>, String> {
        use rand::SeedableRng;
        let mut o = crate::options::OptionValues::from_specs(&Connect4::options());
        o.set("OwnBook", crate::options::OptionValue::Bool(own_book));
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let mut sink = |_r: crate::search::Report| {};
        let mut ctx = SearchCtx::new(limits, &o, &mut rng, crate::search::StopFlag::new(), &mut sink);
        g.analyze(args, &mut ctx)
    }

    #[test]
    fn analyze_prints_every_column() {
        // From the End-Easy set: "2252576253462244111563365343671351441 -1".
        let mut g = Connect4::standard();
        g.play_sequence("2252576253462244111563365343671351441").unwrap();
        let line = analyze_with(&g, "", Default::default()).unwrap();
        assert_eq!(line.len(), 1);
        let cols: Vec<&str> = line[0].split(' ').collect();
        assert_eq!(cols.len(), 7);
        let b = g.board;
        let mut best = i32::MIN;
        for (c, t) in cols.iter().enumerate() {
            if b.can_play(c as u32) {
                let v: i32 = t.parse().unwrap();
                best = best.max(v);
            } else {
                assert_eq!(*t, "-");
            }
        }
        assert_eq!(best, -1, "{line:?}");
        let weak = analyze_with(&g, "weak", Default::default()).unwrap();
        for (a, w) in cols.iter().zip(weak[0].split(' ')) {
            assert_eq!(a.parse::<i32>().map(i32::signum).ok(), w.parse().ok(), "{weak:?}");
        }
        assert!(analyze_with(&g, "fast", Default::default()).is_err());
    }

    #[test]
    fn analyze_with_a_limit_marks_unproven_columns() {
        // Three stones, the book turned off: the solver runs.
        let mut g = Connect4::standard();
        g.play_sequence("444").unwrap();
        let limits = crate::search::Limits { nodes: Some(1), ..Default::default() };
        let line = analyze_book(&g, "", limits.clone(), false).unwrap();
        assert_eq!(line[0], "? ? ? ? ? ? ?");
        let mut full = Connect4::new(4, 4).unwrap();
        full.play_sequence("1111").unwrap();
        assert_eq!(analyze_with(&full, "", Default::default()).unwrap()[0], "- 0 0 0");
        // The empty board comes from the book, whatever the limit.
        let empty = analyze_with(&Connect4::standard(), "", limits).unwrap();
        assert_eq!(empty[0], "-2 -1 0 1 0 -1 -2");
    }

    #[test]
    fn mate_in_counts_own_moves() {
        let mut g = Connect4::standard();
        g.play_sequence("4455").unwrap();
        // 18 = win with the 4th stone; Red has 2 and plays the 3rd, 4th.
        assert_eq!(g.mate_in(18), Some(2));
        let mut g = Connect4::standard();
        g.play_sequence("445566").unwrap();
        assert_eq!(g.mate_in(18), Some(1));
        // Yellow to move after "4455667"? The game is over; use "44455554221"
        // (11 stones, Yellow to move, -15: Red wins with its 7th stone; Red
        // has 6, so Yellow makes 1 move before it).
        let mut g = Connect4::standard();
        g.play_sequence("44455554221").unwrap();
        assert_eq!(g.mate_in(-15), Some(-1));
        assert_eq!(g.mate_in(0), None);
        // The empty board: 1 = Red wins with its 21st stone.
        assert_eq!(Connect4::standard().mate_in(1), Some(21));
        assert_eq!(Connect4::standard().mate_in(-1), Some(-21));
    }

    #[test]
    fn render_marks_stones() {
        let mut g = Connect4::standard();
        g.play_sequence("45").unwrap();
        let r = g.render(false);
        assert!(r.contains(" . . . X O . ."), "{r}");
        assert!(r.contains(" 1 2 3 4 5 6 7"));
        assert!(r.ends_with("Red (X) to move"));
    }
}
