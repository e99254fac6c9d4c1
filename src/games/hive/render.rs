//! The hive as a text hex map: one text row per hex row, each row shifted
//! by half a cell (pointy-top hexes), stacks marked `*` and listed below,
//! empty cells next to the hive drawn as `.`.

use std::collections::{HashMap, VecDeque};

use super::Hive;
use super::hex::{Cell, DELTA, nb};
use super::piece::colour;
use crate::game::Outcome;

/// Axial coordinates of every occupied cell and every empty neighbour,
/// relative to the first occupied cell (found by walking the hive, so the
/// grid's wrap never shows).
fn coordinates(g: &Hive) -> Vec<(Cell, i32, i32)> {
    match g.board.occupied_cells().first() {
        Some(&start) => layout(g, start, (0, 0)),
        None => Vec::new(),
    }
}

/// Walks the hive from `start`, placed at axial `at`: every occupied cell
/// and every empty neighbour with its axial coordinates (the text map and
/// the GUI's board view both draw from this).
pub(super) fn layout(g: &Hive, start: Cell, at: (i32, i32)) -> Vec<(Cell, i32, i32)> {
    let b = &g.board;
    let mut pos: HashMap<Cell, (i32, i32)> = HashMap::new();
    let mut order = vec![(start, at.0, at.1)];
    pos.insert(start, at);
    let mut queue = VecDeque::from([start]);
    while let Some(c) = queue.pop_front() {
        let (q, r) = pos[&c];
        for (d, &(dq, dr)) in DELTA.iter().enumerate() {
            let n = nb(c, d);
            if pos.contains_key(&n) {
                continue;
            }
            let p = (q + dq, r + dr);
            pos.insert(n, p);
            order.push((n, p.0, p.1));
            if b.occupied(n) {
                queue.push_back(n);
            }
        }
    }
    order
}

pub fn render(g: &Hive, color: bool) -> String {
    let b = &g.board;
    let paint = |text: &str, side: usize| -> String {
        if color {
            let code = if side == 0 { "1;37" } else { "1;34" };
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    };
    let mut out = String::new();
    let cells = coordinates(g);
    if cells.is_empty() {
        out.push_str("(empty board)\n");
    } else {
        let min_x = cells.iter().map(|&(_, q, r)| 2 * q + r).min().unwrap_or(0);
        let min_r = cells.iter().map(|c| c.2).min().unwrap_or(0);
        let max_r = cells.iter().map(|c| c.2).max().unwrap_or(0);
        for row in min_r..=max_r {
            let mut items: Vec<(i32, &(Cell, i32, i32))> =
                cells.iter().filter(|c| c.2 == row).map(|c| (2 * c.1 + c.2 - min_x, c)).collect();
            items.sort_by_key(|i| i.0);
            let mut line = String::new();
            let mut col = 0usize;
            for (x, &(c, _, _)) in items {
                let at = x as usize * 3;
                if at > col {
                    line.push_str(&" ".repeat(at - col));
                    col = at;
                }
                if b.occupied(c) {
                    let top = b.top_at(c);
                    let mut t = g.piece_name(top);
                    if b.h(c) > 1 {
                        t.push('*');
                    }
                    let w = t.len();
                    line.push_str(&paint(&t, colour(top)));
                    col += w;
                } else {
                    line.push_str(" .");
                    col += 2;
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        let mut stacks: Vec<String> = cells
            .iter()
            .filter(|&&(c, _, _)| b.h(c) > 1)
            .map(|&(c, _, _)| {
                let names: Vec<String> = b.stack(c).into_iter().map(|p| g.piece_name(p)).collect();
                format!("{}* = {}", names[0], names.join(" on "))
            })
            .collect();
        stacks.sort();
        for s in stacks {
            out.push_str(&format!("stack {s}\n"));
        }
    }
    for side in 0..2 {
        let hand: Vec<String> = g
            .pieces()
            .side(side)
            .filter(|&p| !b.on_board(p))
            .map(|p| g.piece_name(p)[1..].to_string())
            .collect();
        let name = ["White", "Black"][side];
        let list = if hand.is_empty() { "-".to_string() } else { hand.join(" ") };
        out.push_str(&format!("{name} in hand: {list}\n"));
    }
    let names = ["White", "Black"];
    let status = match g.outcome {
        Some(Outcome::Win(s)) => format!("{} wins", names[s]),
        Some(Outcome::Draw) => "Draw".to_string(),
        None => format!("{} to move (turn {})", names[g.side()], g.ply / 2 + 1),
    };
    out.push_str(&status);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::hive::Expansions;

    #[test]
    fn draws_rows_stacks_and_hand() {
        let mut g = Hive::new(Expansions::BASE);
        assert!(g.render(false).starts_with("(empty board)"));
        g.play_all(["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wB1 \\wS1", "bA1 bQ-", "wB1 wS1"]).unwrap();
        let r = g.render(false);
        // wQ, the white stack and bS1 bQ bA1 on one row, in that order.
        let row = r.lines().find(|l| l.contains("wQ")).unwrap();
        let (a, s, q) = (row.find("wQ").unwrap(), row.find("wB1*").unwrap(), row.find("bA1").unwrap());
        assert!(a < s && s < q, "{r}");
        assert_eq!(s - a, 6, "{r}");
        assert!(r.contains("stack wB1* = wB1 on wS1"), "{r}");
        assert!(r.contains("White in hand: S2 B2 G1 G2 G3 A1 A2 A3"), "{r}");
        assert!(r.ends_with("Black to move (turn 4)"), "{r}");
        assert!(g.render(true).contains("\x1b["));
        let g = Hive::from_game_string("Base+L+B4G0;wB1").unwrap();
        let r = g.render(false);
        assert!(r.contains("White in hand: Q S1 S2 B2 B3 B4 A1 A2 A3 L\n"), "{r}");
        assert!(r.contains("Black in hand: Q S1 S2 B1 B2 B3 B4 A1 A2 A3 L\n"), "{r}");
    }
}
