//! Connect Four for `board json` and the GUI: a square grid of cells
//! `c<col>r<row>` (1-based, row 1 at the bottom), discs red and yellow,
//! the winning four marked; a move selects the cell its disc lands on.

use super::Connect4;
use crate::boardview::{BoardView, CellView, Geometry, PieceView, Select};
use crate::game::{Game, Outcome};

const COLOURS: [&str; 2] = ["#e53935", "#fdd835"];

fn cell_id(col: u32, row: u32) -> String {
    format!("c{}r{}", col + 1, row + 1)
}

/// Cells of every four in a row of `side`.
fn fours(g: &Connect4, side: usize) -> Vec<(u32, u32)> {
    let b = &g.board;
    let (w, h) = (b.width() as i32, b.height() as i32);
    let owns =
        |c: i32, r: i32| c >= 0 && r >= 0 && c < w && r < h && b.cell(c as u32, r as u32) == Some(side);
    let mut out = Vec::new();
    for c in 0..w {
        for r in 0..h {
            for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                if (0..4).all(|k| owns(c + k * dc, r + k * dr)) {
                    out.extend((0..4).map(|k| ((c + k * dc) as u32, (r + k * dr) as u32)));
                }
            }
        }
    }
    out
}

pub fn board_view(g: &Connect4) -> BoardView {
    let b = &g.board;
    let (w, h) = (b.width(), b.height());
    let won = match g.outcome() {
        Some(Outcome::Win(s)) => fours(g, s),
        _ => Vec::new(),
    };
    let names = g.side_names();
    let mut cells = Vec::new();
    for row in (0..h).rev() {
        for col in 0..w {
            let pieces = b
                .cell(col, row)
                .map(|s| PieceView {
                    id: format!("{}d", cell_id(col, row)),
                    side: Some(s),
                    label: String::new(),
                    colour: COLOURS[s].to_string(),
                    kind: String::new(),
                    name: String::new(),
                })
                .into_iter()
                .collect();
            cells.push(CellView {
                id: cell_id(col, row),
                x: col as i32,
                y: (h - 1 - row) as i32,
                pieces,
                marked: won.contains(&(col, row)),
            });
        }
    }
    let caption = match g.outcome() {
        Some(Outcome::Win(s)) => format!("{} wins", names[s]),
        Some(Outcome::Draw) => "Draw".to_string(),
        None => format!("{} to move", names[g.side_to_move()]),
    };
    BoardView {
        geometry: Geometry::Square { cols: w, rows: h },
        cells,
        hands: [Vec::new(), Vec::new()],
        marks: Vec::new(),
        scores: None,
        forfeit: None,
        side_colours: Some(COLOURS.map(String::from)),
        caption,
        text: String::new(),
    }
}

/// The landing cell of a drop in column `mv`.
pub fn selections(g: &Connect4, mv: u8) -> Vec<Select> {
    let row = g.board.column_height(mv as u32);
    vec![Select::Cell { cell: cell_id(mv as u32, row) }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winning_four_is_marked_and_drops_land_on_free_cells() {
        let mut g = Connect4::standard();
        g.play_sequence("4455667").unwrap();
        let v = board_view(&g);
        let marked: Vec<&str> = v.cells.iter().filter(|c| c.marked).map(|c| c.id.as_str()).collect();
        assert_eq!(marked, vec!["c4r1", "c5r1", "c6r1", "c7r1"]);
        let g = Connect4::standard();
        assert_eq!(selections(&g, 2), vec![Select::Cell { cell: "c3r1".into() }]);
        let j = serde_json::to_string(&board_view(&g)).unwrap();
        assert!(j.starts_with(r#"{"geometry":{"kind":"square","cols":7,"rows":6},"cells":[{"id":"c1r6","x":0,"y":0,"pieces":[]}"#), "{j}");
    }
}
