//! A game-agnostic picture of a position (`board json`) and of what a
//! person selects to enter a move (the `select` of `movetree json`).
//!
//! A GUI draws a [`BoardView`] without knowing the game: the geometry says
//! how cells are laid out (a square grid, a hex grid in axial
//! coordinates, or rows of pegs), each cell holds a stack of pieces, the
//! pieces in hand are listed per side. A [`Select`] says what a click
//! means: a piece (on the board or in hand, by its id), a cell (by its
//! id), a symbol at a slot (a palette), or a plain choice (a button such as
//! `pass`). Every cell and piece a `Select` names exists in the
//! [`BoardView`] of the same position (tested for every game).

use serde::Serialize;

/// How cells are laid out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Geometry {
    /// Cells at (x, y), x = 0..cols from the left, y = 0..rows from the
    /// top.
    Square { cols: u32, rows: u32 },
    /// Pointy-top hexes at axial (x = q, y = r); unbounded.
    Hex,
    /// Rows of `slots` pegs (x = slot, y = row from the top), each row
    /// with its key pegs in `marks`.
    Rows { rows: u32, slots: u32 },
    /// No drawing: the GUI shows `text`.
    Text,
}

/// A piece: on a cell or in a hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PieceView {
    /// Unique in the position (`wA1`); selections name it.
    pub id: String,
    /// The side owning it (0 or 1), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<usize>,
    /// What to write on it (`A1`, `3`).
    pub label: String,
    /// A CSS colour.
    pub colour: String,
    /// What the piece is, as a picture's name a GUI may draw (Hive:
    /// `queen`, `spider`, `beetle`, `grasshopper`, `ant`, `mosquito`,
    /// `ladybug`, `pillbug`); empty: a plain piece.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// The piece in words, for people (`White Spider 1`); empty: none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
}

/// A cell and its stack of pieces, bottom first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CellView {
    pub id: String,
    pub x: i32,
    pub y: i32,
    pub pieces: Vec<PieceView>,
    /// Drawn highlighted (Connect Four's winning four, the last move).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub marked: bool,
}

/// Key pegs of one row (Mastermind's feedback): CSS colours.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RowMarks {
    pub y: i32,
    pub marks: Vec<String>,
    /// Text beside the row (`2B1W`).
    pub label: String,
}

/// The whole picture (`board json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoardView {
    pub geometry: Geometry,
    pub cells: Vec<CellView>,
    /// Pieces in hand per side.
    pub hands: [Vec<PieceView>; 2],
    /// Key pegs of rows (geometry `rows`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<RowMarks>,
    /// Scores per side where the game has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<[i64; 2]>,
    /// Where the game keeps a score, while it is not over: the scores per
    /// side if a side forfeits now (loses on time, resigns, abandons):
    /// `forfeit[s]` if side `s` forfeits. The one place the rule for a
    /// game that the rules did not end lives, so that every client scores
    /// it alike.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<[[i64; 2]; 2]>,
    /// Each side's CSS colour where the sides have one (the colour of
    /// their pieces: Connect Four's red and yellow, Hive's white and
    /// black); `None` where they do not (Mastermind's Breaker and Maker).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side_colours: Option<[String; 2]>,
    /// A line for people (`Breaker to guess`, the secret once known).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub caption: String,
    /// The `show` text (always there, for geometry `text`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
}

impl BoardView {
    /// A view with no drawing: the GUI shows `text`.
    pub fn text_only(text: String) -> BoardView {
        BoardView {
            geometry: Geometry::Text,
            cells: Vec::new(),
            hands: [Vec::new(), Vec::new()],
            marks: Vec::new(),
            scores: None,
            forfeit: None,
            side_colours: None,
            caption: String::new(),
            text,
        }
    }

    /// True if a cell with this id exists.
    pub fn has_cell(&self, id: &str) -> bool {
        self.cells.iter().any(|c| c.id == id)
    }

    /// True if a piece with this id is on a cell or in a hand.
    pub fn has_piece(&self, id: &str) -> bool {
        self.cells.iter().flat_map(|c| &c.pieces).chain(self.hands.iter().flatten()).any(|p| p.id == id)
    }
}

/// What a person selects for one action of a move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Select {
    /// A piece on the board or in hand.
    Piece { piece: String },
    /// A cell.
    Cell { cell: String },
    /// A symbol put at a slot; `cell` is the cell the slot shows in, if
    /// any; `colour` paints the palette.
    Symbol {
        slot: String,
        symbol: String,
        label: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        cell: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        colour: Option<String>,
    },
    /// A button with this label.
    Choice { label: String },
}

impl Select {
    /// A button labelled with the action's text (the default).
    pub fn choice(text: &str) -> Select {
        Select::Choice { label: text.to_string() }
    }

    /// The cell or piece this selection names in the board, if any:
    /// `(is_cell, id)`.
    pub fn target(&self) -> Option<(bool, &str)> {
        match self {
            Select::Piece { piece } => Some((false, piece)),
            Select::Cell { cell } => Some((true, cell)),
            Select::Symbol { cell: Some(c), .. } => Some((true, c)),
            _ => None,
        }
    }
}

/// A move's actions: the text of each (as in `movetree`) with its
/// selection.
pub type Actions = Vec<(String, Select)>;

/// Distinct, readable colours for symbols 0..: red, green, blue, yellow,
/// orange, purple, white, black, cyan, magenta (Mastermind's colours).
pub const PALETTE: [&str; 10] = [
    "#e53935", "#43a047", "#1e88e5", "#fdd835", "#fb8c00", "#8e24aa", "#f5f5f5", "#212121", "#00acc1",
    "#ec407a",
];

/// `board json`: the game's [`BoardView`] with what every game has: its
/// family and type, the side names, whose turn it is, the
/// GameStateString and the plies played.
#[derive(Clone, Debug, Serialize)]
pub struct BoardJson {
    pub family: &'static str,
    pub game_type: String,
    pub sides: [&'static str; 2],
    pub turn: usize,
    pub state: String,
    pub ply: usize,
    #[serde(flatten)]
    pub view: BoardView,
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use crate::movetree::{self, MoveNode};
    use crate::registry;

    /// Checks every node of `t` against the board: as many selections as
    /// actions, and every cell or piece a selection names exists.
    fn check(t: &MoveNode, b: &super::BoardView, ctx: &str) {
        assert_eq!(t.select.len(), t.actions.len(), "{ctx}: {:?}", t.actions);
        for s in &t.select {
            if let Some((is_cell, id)) = s.target() {
                assert!(
                    if is_cell { b.has_cell(id) } else { b.has_piece(id) },
                    "{ctx}: {s:?} not on the board"
                );
            }
        }
        for c in &t.children {
            check(c, b, ctx);
        }
    }

    /// For every registered game, along random games: `board json`
    /// describes the position (turn, state, unique ids), and every action
    /// of the structured move tree selects a cell or piece of that board;
    /// the tree's final moves are exactly the valid moves.
    #[test]
    fn every_selection_names_a_cell_or_piece_of_the_board() {
        let mut rng = StdRng::seed_from_u64(14);
        for fam in registry::families() {
            for game in 0..6 {
                let mut g = registry::new_game(fam.default_type).unwrap();
                for _ply in 0..60 {
                    let bj = g.board_view();
                    let ctx = g.game_string();
                    assert_eq!(bj.turn, g.side_to_move(), "{ctx}");
                    assert_eq!(bj.ply, g.history().len(), "{ctx}");
                    assert_eq!(bj.family, fam.name);
                    let v = &bj.view;
                    let mut ids: Vec<&str> = v.cells.iter().map(|c| c.id.as_str()).collect();
                    ids.sort();
                    ids.dedup();
                    assert_eq!(ids.len(), v.cells.len(), "{ctx}: duplicate cell ids");
                    let json = serde_json::to_value(&bj).unwrap();
                    assert!(json["geometry"]["kind"].is_string(), "{ctx}");
                    if g.is_over() {
                        break;
                    }
                    let moves = g.move_selections(movetree::MAX_TREE_MOVES).unwrap();
                    let tree = movetree::build_selected(&moves);
                    check(&tree, v, &ctx);
                    let mut finals = tree.final_moves();
                    let mut valid = g.valid_moves();
                    finals.sort();
                    valid.sort();
                    assert_eq!(finals, valid, "{ctx}");
                    // Vary the games: the first one plays the first moves.
                    let i = if game == 0 { 0 } else { rng.random_range(0..moves.len()) };
                    g.play_text(&moves[i].0).unwrap();
                }
            }
        }
    }
}
