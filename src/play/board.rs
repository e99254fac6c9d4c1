//! The position as `board json` describes it (protocol.md section 12),
//! drawn for a terminal without knowing the game: a square grid (columns
//! numbered from 1), a hex grid (pointy-top, one text row per hex row, as
//! `show` draws Hive, each piece by its id, the name moves use), rows of pegs with their key pegs, or the game's own
//! `show` text. The cells whose pieces changed with the last move are drawn
//! in brackets (`[X]`), cells the game marks (a winning four) in
//! parentheses; with colours each piece is painted with its colour.

use std::collections::HashMap;

use serde::Deserialize;

/// How cells are laid out (see `crate::boardview::Geometry`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Geometry {
    Square {
        cols: u32,
        rows: u32,
    },
    Hex,
    Rows {
        rows: u32,
        slots: u32,
    },
    #[default]
    #[serde(other)]
    Text,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Piece {
    pub id: String,
    #[serde(default)]
    pub side: Option<usize>,
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub colour: String,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Cell {
    pub id: String,
    pub x: i32,
    pub y: i32,
    #[serde(default)]
    pub pieces: Vec<Piece>,
    #[serde(default)]
    pub marked: bool,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Marks {
    pub y: i32,
    #[serde(default)]
    pub label: String,
}

/// `board json`: the position and what every game has (sides, turn,
/// state, plies).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Board {
    pub family: String,
    pub game_type: String,
    pub sides: [String; 2],
    pub turn: usize,
    pub state: String,
    pub ply: usize,
    #[serde(default)]
    pub geometry: Geometry,
    #[serde(default)]
    pub cells: Vec<Cell>,
    #[serde(default)]
    pub hands: [Vec<Piece>; 2],
    #[serde(default)]
    pub marks: Vec<Marks>,
    /// The game's score by side, where it keeps one (Mastermind: a
    /// finished round's points).
    #[serde(default)]
    pub scores: Option<[i64; 2]>,
    /// While the game goes on, where it keeps a score: the scores by side
    /// if side 0 or side 1 forfeits now (resigns).
    #[serde(default)]
    pub forfeit: Option<[[i64; 2]; 2]>,
    #[serde(default)]
    pub caption: String,
    #[serde(default)]
    pub text: String,
}

/// How a finished game ended, by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Win(usize),
    Draw,
}

impl Board {
    pub fn parse(json: &str) -> Result<Board, String> {
        serde_json::from_str(json).map_err(|e| format!("cannot read the engine's board: {e}"))
    }

    /// `Some` once the game is over (GameState `Draw` or `<Side>Wins`).
    pub fn ending(&self) -> Option<Ending> {
        if self.state == "Draw" {
            return Some(Ending::Draw);
        }
        let winner = self.state.strip_suffix("Wins")?;
        self.sides.iter().position(|s| s == winner).map(Ending::Win)
    }

    /// The ids of the cells whose pieces differ from `before`'s (the last
    /// move's cells).
    pub fn changed_since(&self, before: &Board) -> Vec<String> {
        let old: HashMap<&str, &Vec<Piece>> =
            before.cells.iter().map(|c| (c.id.as_str(), &c.pieces)).collect();
        let mut v: Vec<String> = self
            .cells
            .iter()
            .filter(|c| old.get(c.id.as_str()).is_none_or(|p| **p != c.pieces))
            .filter(|c| !c.pieces.is_empty() || old.get(c.id.as_str()).is_some_and(|p| !p.is_empty()))
            .map(|c| c.id.clone())
            .collect();
        // A row of key pegs that changed (Mastermind's feedback) marks
        // its row's cells.
        for m in &self.marks {
            if !before.marks.iter().any(|b| b == m) {
                v.extend(self.cells.iter().filter(|c| c.y == m.y).map(|c| c.id.clone()));
            }
        }
        v.sort();
        v.dedup();
        v
    }
}

/// Terminal colours (256-colour ANSI codes) or none.
#[derive(Clone, Copy, Debug)]
pub struct Paint {
    pub color: bool,
}

impl Paint {
    /// `text` on the piece's colour, in black or white for contrast.
    pub fn piece(&self, text: &str, colour: &str) -> String {
        match (self.color, rgb(colour)) {
            (true, Some((r, g, b))) => {
                let fg = if luminance(r, g, b) > 0.5 { 16 } else { 231 };
                format!("\x1b[48;5;{};38;5;{fg}m{text}\x1b[0m", ansi256(r, g, b))
            }
            _ => text.to_string(),
        }
    }

    /// Bold (the last move's brackets, headings).
    pub fn bold(&self, text: &str) -> String {
        if self.color { format!("\x1b[1m{text}\x1b[0m") } else { text.to_string() }
    }

    /// Dim (empty cells, hints).
    pub fn dim(&self, text: &str) -> String {
        if self.color { format!("\x1b[2m{text}\x1b[0m") } else { text.to_string() }
    }
}

/// `#rrggbb` as numbers.
pub(super) fn rgb(css: &str) -> Option<(u8, u8, u8)> {
    let h = css.strip_prefix('#')?;
    if h.len() != 6 || !h.is_ascii() {
        return None;
    }
    let n = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).ok();
    Some((n(0)?, n(2)?, n(4)?))
}

fn luminance(r: u8, g: u8, b: u8) -> f64 {
    (0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b)) / 255.0
}

/// The nearest colour of the xterm 256-colour cube.
pub(super) fn ansi256(r: u8, g: u8, b: u8) -> u8 {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    let near = |v: u8| (0..6).min_by_key(|&i| (i16::from(LEVELS[i]) - i16::from(v)).abs()).unwrap_or(0) as u8;
    16 + 36 * near(r) + 6 * near(g) + near(b)
}

/// What a piece shows: its label, or its side's letter for a piece with
/// none (Connect Four's discs: `X` for the first side, `O` for the other).
fn piece_text(p: &Piece) -> String {
    if !p.label.is_empty() {
        return p.label.clone();
    }
    match p.side {
        Some(0) => "X".into(),
        Some(_) => "O".into(),
        None => "#".into(),
    }
}

/// The letter of a side's pieces where they have none (for the status
/// line: `Red (X) to move`), if the game draws pieces without labels.
pub fn side_letter(b: &Board, side: usize) -> Option<&'static str> {
    let unlabelled = b.cells.iter().flat_map(|c| &c.pieces).all(|p| p.label.is_empty());
    match (&b.geometry, unlabelled) {
        (Geometry::Square { .. }, true) => Some(if side == 0 { "X" } else { "O" }),
        _ => None,
    }
}

/// A cell's text in a field of `width` characters: the top piece painted,
/// in brackets if it changed with the last move, in parentheses if the
/// game marks it; an empty cell is a dim `.`. `by_id`: the piece's id
/// (on a hex board, the name moves use: Hive's `wS1`) and `*` on a stack.
fn field(cell: &Cell, last: &[String], paint: Paint, width: usize, by_id: bool) -> String {
    let is_last = last.contains(&cell.id);
    let (open, close) = if is_last {
        ("[", "]")
    } else if cell.marked {
        ("(", ")")
    } else {
        (" ", " ")
    };
    let (inner, painted) = match cell.pieces.last() {
        Some(p) => {
            let mut t = if by_id { p.id.clone() } else { piece_text(p) };
            if by_id && cell.pieces.len() > 1 {
                t.push('*');
            }
            let painted = paint.piece(&t, &p.colour);
            (t, painted)
        }
        None => (".".to_string(), paint.dim(".")),
    };
    let used = inner.chars().count() + 2;
    let pad = width.saturating_sub(used);
    let (l, r) = (pad / 2, pad - pad / 2);
    let (open, close) =
        if is_last { (paint.bold(open), paint.bold(close)) } else { (open.into(), close.into()) };
    format!("{}{open}{painted}{close}{}", " ".repeat(l), " ".repeat(r))
}

/// The board as text lines for a terminal. `last`: the cells of the last
/// move; `show`: the game's own text, for a board with no geometry.
pub fn draw(b: &Board, last: &[String], paint: Paint, show: &str) -> String {
    let mut out = String::new();
    match &b.geometry {
        Geometry::Square { cols, rows } => draw_square(b, *cols, *rows, last, paint, &mut out),
        Geometry::Hex => draw_hex(b, last, paint, &mut out),
        Geometry::Rows { .. } => draw_rows(b, last, paint, &mut out),
        Geometry::Text => {
            let text = if show.is_empty() { &b.text } else { show };
            out.push_str(text.trim_end());
            out.push('\n');
            return out;
        }
    }
    out
}

fn draw_square(b: &Board, cols: u32, rows: u32, last: &[String], paint: Paint, out: &mut String) {
    let at: HashMap<(i32, i32), &Cell> = b.cells.iter().map(|c| ((c.x, c.y), c)).collect();
    for y in 0..rows as i32 {
        let mut line = String::new();
        for x in 0..cols as i32 {
            match at.get(&(x, y)) {
                Some(c) => line.push_str(&field(c, last, paint, 3, false)),
                None => line.push_str("   "),
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let numbers: String = (1..=cols).map(|c| format!("{c:^3}")).collect();
    out.push_str(&paint.dim(numbers.trim_end()));
    out.push('\n');
}

/// Pointy-top hexes at axial (q, r): row r is shifted half a cell per
/// row, so the six neighbours of a cell are left, right and the two
/// nearest above and below (as Hive's `show` draws them).
fn draw_hex(b: &Board, last: &[String], paint: Paint, out: &mut String) {
    const W: usize = 6;
    if b.cells.iter().all(|c| c.pieces.is_empty()) {
        out.push_str("(the board is empty)\n");
    } else {
        let min_x = b.cells.iter().map(|c| 2 * c.x + c.y).min().unwrap_or(0);
        let (min_r, max_r) =
            (b.cells.iter().map(|c| c.y).min().unwrap_or(0), b.cells.iter().map(|c| c.y).max().unwrap_or(0));
        for r in min_r..=max_r {
            let mut row: Vec<&Cell> = b.cells.iter().filter(|c| c.y == r).collect();
            row.sort_by_key(|c| c.x);
            let mut line = String::new();
            let mut col = 0usize;
            for c in row {
                let at = (2 * c.x + c.y - min_x) as usize * W / 2;
                if at > col {
                    line.push_str(&" ".repeat(at - col));
                    col = at;
                }
                line.push_str(&field(c, last, paint, W, true));
                col += W;
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        let mut stacks: Vec<String> = b
            .cells
            .iter()
            .filter(|c| c.pieces.len() > 1)
            .map(|c| {
                let names: Vec<&str> = c.pieces.iter().rev().map(|p| p.id.as_str()).collect();
                format!("stack {}* = {}", names[0], names.join(" on "))
            })
            .collect();
        stacks.sort();
        for s in stacks {
            out.push_str(&s);
            out.push('\n');
        }
    }
    for side in 0..2 {
        let hand: Vec<String> = b.hands[side].iter().map(|p| paint.piece(&p.label, &p.colour)).collect();
        let list = if hand.is_empty() { "-".to_string() } else { hand.join(" ") };
        out.push_str(&format!("{} in hand: {list}\n", b.sides[side]));
    }
}

/// Rows of pegs, numbered, each with its key pegs' text; only the rows
/// played so far.
fn draw_rows(b: &Board, last: &[String], paint: Paint, out: &mut String) {
    let mut ys: Vec<i32> = b.cells.iter().filter(|c| !c.pieces.is_empty()).map(|c| c.y).collect();
    ys.sort();
    ys.dedup();
    for y in ys {
        let mut cells: Vec<&Cell> = b.cells.iter().filter(|c| c.y == y).collect();
        cells.sort_by_key(|c| c.x);
        let is_last = cells.iter().any(|c| last.contains(&c.id));
        let pegs: Vec<String> = cells
            .iter()
            .map(|c| match c.pieces.last() {
                Some(p) => paint.piece(&format!(" {} ", piece_text(p)), &p.colour),
                None => " . ".to_string(),
            })
            .collect();
        let key = b.marks.iter().find(|m| m.y == y).map_or("?".to_string(), |m| m.label.clone());
        let key = if is_last { paint.bold(&key) } else { key };
        let number = format!("{:>2}", y + 1);
        let lead = if is_last { paint.bold(&format!(">{number}")) } else { format!(" {number}") };
        out.push_str(&format!("{lead}  {}  {key}\n", pegs.join("")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Session, SessionConfig};

    /// The session's `board json` after `commands`.
    fn board(commands: &[&str]) -> Board {
        let mut s = Session::new(Vec::<u8>::new(), SessionConfig::default());
        for c in commands {
            s.handle_line(c);
            s.wait_idle();
        }
        s.handle_line("board json");
        let out = s.output();
        let text = String::from_utf8(out.lock().unwrap().clone()).unwrap();
        let json = text.lines().rev().nth(1).unwrap();
        Board::parse(json).unwrap()
    }

    const PLAIN: Paint = Paint { color: false };

    #[test]
    fn connect_four_draws_with_the_last_move_in_brackets() {
        let before = board(&["newgame Connect4", "play 4"]);
        let after = board(&["newgame Connect4", "play 4", "play 5"]);
        let last = after.changed_since(&before);
        assert_eq!(last, vec!["c5r1".to_string()]);
        let text = draw(&after, &last, PLAIN, "");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 7, "{text}");
        assert_eq!(lines[5], " .  .  .  X [O] .  .", "{text}");
        assert_eq!(lines[6], " 1  2  3  4  5  6  7");
        assert_eq!(side_letter(&after, 1), Some("O"));
        assert_eq!(after.ending(), None);
        // A win: the four in parentheses, the last stone in brackets.
        let before = board(&["position startpos moves 121212"]);
        let won = board(&["position startpos moves 1212121"]);
        assert_eq!(won.ending(), Some(Ending::Win(0)));
        let text = draw(&won, &won.changed_since(&before), PLAIN, "");
        assert!(text.contains("[X]") && text.matches("(X)").count() == 3, "{text}");
    }

    #[test]
    fn hive_draws_pieces_stacks_and_hands() {
        let before = board(&["newgame Base", "play wS1", "play bS1 wS1-", "play wQ -wS1"]);
        let after = board(&["newgame Base", "play wS1", "play bS1 wS1-", "play wQ -wS1", "play bQ bS1-"]);
        let last = after.changed_since(&before);
        let text = draw(&after, &last, PLAIN, "");
        assert!(text.contains(" wQ   wS1   bS1   [bQ] "), "{text}");
        assert!(text.contains("White in hand: S2 B1 B2 G1 G2 G3 A1 A2 A3"), "{text}");
        assert!(text.contains("Black in hand: S2 B1"), "{text}");
        // Each text row is a hex row: the empty cells around the hive too.
        assert!(text.lines().next().unwrap().trim_start().starts_with('.'), "{text}");
        let empty = board(&["newgame Base"]);
        assert!(draw(&empty, &[], PLAIN, "").starts_with("(the board is empty)"));
    }

    #[test]
    fn mastermind_draws_played_rows_with_their_key_pegs() {
        let moves = ["setoption name Mastermind.Secret value 1234", "newgame Mastermind", "play 1122"];
        let before = board(&moves);
        let after = board(&[&moves[..], &["play 1B1W"]].concat());
        let last = after.changed_since(&before);
        assert_eq!(last.len(), 4, "{last:?}");
        let text = draw(&after, &last, PLAIN, "");
        assert_eq!(text, "> 1   1  1  2  2   1B1W\n");
        let pending = draw(&before, &[], PLAIN, "");
        assert_eq!(pending, "  1   1  1  2  2   ?\n");
        // Colours: each peg on its colour.
        let coloured = draw(&after, &last, Paint { color: true }, "");
        assert!(coloured.contains("\x1b[48;5;"), "{coloured:?}");
    }

    #[test]
    fn colours_map_to_the_cube() {
        assert_eq!(ansi256(0, 0, 0), 16);
        assert_eq!(ansi256(255, 255, 255), 231);
        // #e53935: red 229 is nearest 215, green 57 and blue 53 nearest 95.
        assert_eq!(ansi256(0xe5, 0x39, 0x35), 16 + 36 * 4 + 6 + 1);
        assert_eq!(rgb("#fdd835"), Some((0xfd, 0xd8, 0x35)));
        assert_eq!(rgb("red"), None);
        assert_eq!(Paint { color: true }.piece("X", "nonsense"), "X");
    }
}
