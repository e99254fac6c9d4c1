//! Hive for `board json` and the GUI: a hex grid in axial coordinates
//! (cells `q,r`: every stack and every empty cell next to the hive),
//! stacks bottom first, the pieces in hand of each side, the last moved
//! piece's cell marked; a move selects a piece, then its destination cell;
//! a pass is a button.

use super::hex::{Cell, ORIGIN};
use super::piece::{Bug, Piece, colour};
use super::{Hive, Move, NO_PIECE};
use crate::boardview::{BoardView, CellView, Geometry, PieceView, Select};
use crate::game::{Game, Outcome};

const COLOURS: [&str; 2] = ["#f3ead7", "#2b2f36"];

/// Axial coordinates of a cell index, near the origin (used for one
/// anchor so the coordinates stay put from move to move).
fn absolute(c: Cell) -> (i32, i32) {
    let d = (c as i32 - ORIGIN as i32).rem_euclid(1024);
    let d = if d >= 512 { d - 1024 } else { d };
    let r = (d + 16).div_euclid(32);
    (d - 32 * r, r)
}

/// Coordinates of every occupied cell and every empty neighbour, walked
/// from one stack so the grid's wrap never shows.
fn coordinates(g: &Hive) -> Vec<(Cell, i32, i32)> {
    match g.board.occupied_cells().into_iter().min() {
        Some(start) => super::render::layout(g, start, absolute(start)),
        None => vec![(ORIGIN, 0, 0)],
    }
}

fn cell_id(q: i32, r: i32) -> String {
    format!("{q},{r}")
}

/// A bug's picture name and its name for people.
fn bug_words(b: Bug) -> (&'static str, &'static str) {
    match b {
        Bug::Queen => ("queen", "Queen Bee"),
        Bug::Spider => ("spider", "Spider"),
        Bug::Beetle => ("beetle", "Beetle"),
        Bug::Grasshopper => ("grasshopper", "Grasshopper"),
        Bug::Ant => ("ant", "Soldier Ant"),
        Bug::Mosquito => ("mosquito", "Mosquito"),
        Bug::Ladybug => ("ladybug", "Ladybug"),
        Bug::Pillbug => ("pillbug", "Pillbug"),
    }
}

fn piece_view(g: &Hive, p: Piece) -> PieceView {
    let id = g.piece_name(p);
    let (kind, word) = bug_words(g.pieces().bug(p));
    let number: String = id.chars().skip(2).collect();
    let side = ["White", "Black"][colour(p)];
    PieceView {
        id: id.clone(),
        side: Some(colour(p)),
        label: id[1..].to_string(),
        colour: COLOURS[colour(p)].into(),
        kind: kind.into(),
        name: if number.is_empty() { format!("{side} {word}") } else { format!("{side} {word} {number}") },
    }
}

pub fn board_view(g: &Hive) -> BoardView {
    let b = &g.board;
    let last = (g.last_moved != NO_PIECE).then(|| b.cell[g.last_moved as usize]);
    let cells = coordinates(g)
        .into_iter()
        .map(|(c, q, r)| {
            let mut stack = b.stack(c);
            stack.reverse();
            CellView {
                id: cell_id(q, r),
                x: q,
                y: r,
                pieces: stack.into_iter().map(|p| piece_view(g, p)).collect(),
                marked: last == Some(c) && b.occupied(c),
            }
        })
        .collect();
    let hand = |side: usize| -> Vec<PieceView> {
        g.pieces().side(side).filter(|&p| !b.on_board(p)).map(|p| piece_view(g, p)).collect()
    };
    let names = g.side_names();
    let caption = match g.outcome() {
        Some(Outcome::Win(s)) => format!("{} wins", names[s]),
        Some(Outcome::Draw) => "Draw: both queens surrounded".to_string(),
        None => format!("{} to move", names[g.side_to_move()]),
    };
    BoardView {
        geometry: Geometry::Hex,
        cells,
        hands: [hand(0), hand(1)],
        marks: Vec::new(),
        scores: None,
        forfeit: None,
        side_colours: Some(COLOURS.map(String::from)),
        caption,
        text: String::new(),
    }
}

pub fn selections(g: &Hive, mv: Move) -> Vec<Select> {
    if mv.is_pass() {
        return vec![Select::choice("pass")];
    }
    let mut v = vec![Select::Piece { piece: g.piece_name(mv.piece) }];
    if g.actions(mv).len() > 1 {
        let (q, r) = coordinates(g)
            .into_iter()
            .find(|&(c, _, _)| c == mv.to)
            .map(|(_, q, r)| (q, r))
            .unwrap_or_else(|| absolute(mv.to));
        v.push(Select::Cell { cell: cell_id(q, r) });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_stack_and_destinations() {
        let mut g = Hive::new(super::super::Expansions::BASE);
        let v = board_view(&g);
        assert_eq!(v.hands[0].len(), 11);
        assert_eq!(v.cells.len(), 1);
        g.play_all(["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"]).unwrap();
        let v = board_view(&g);
        assert_eq!(v.hands[0].len(), 9);
        assert_eq!(v.cells.iter().filter(|c| !c.pieces.is_empty()).count(), 4);
        // The first piece sits at the origin and stays there.
        let origin = v.cells.iter().find(|c| c.id == "0,0").unwrap();
        assert_eq!(origin.pieces[0].id, "wS1");
        assert_eq!(
            (origin.pieces[0].kind.as_str(), origin.pieces[0].name.as_str()),
            ("spider", "White Spider 1")
        );
        let q = v.hands[1].iter().find(|p| p.id == "bA1").unwrap();
        assert_eq!((q.kind.as_str(), q.name.as_str()), ("ant", "Black Soldier Ant 1"));
        for mv in g.moves() {
            for s in selections(&g, mv) {
                if let Some((is_cell, id)) = s.target() {
                    assert!(if is_cell { v.has_cell(id) } else { v.has_piece(id) }, "{id}");
                }
            }
        }
    }

    #[test]
    fn hand_follows_the_piece_counts() {
        let mut g = Hive::from_game_string("Base+P+S0A5").unwrap();
        let ids = |v: &BoardView, side: usize| v.hands[side].iter().map(|p| p.id.clone()).collect::<Vec<_>>();
        let v = board_view(&g);
        assert_eq!(
            ids(&v, 1),
            ["bQ", "bB1", "bB2", "bG1", "bG2", "bG3", "bA1", "bA2", "bA3", "bA4", "bA5", "bP"]
        );
        g.play_all(["wA1", "bA1 wA1-"]).unwrap();
        let v = board_view(&g);
        assert_eq!(v.hands[0].len(), 11);
        assert!(!ids(&v, 1).contains(&"bA1".to_string()) && ids(&v, 1).contains(&"bA5".to_string()));
        assert!(v.has_piece("bA1") && !v.has_piece("wS1"));
        for mv in g.moves() {
            for s in selections(&g, mv) {
                if let Some((is_cell, id)) = s.target() {
                    assert!(if is_cell { v.has_cell(id) } else { v.has_piece(id) }, "{id}");
                }
            }
        }
    }
}
