//! One test (at least) per numbered rule of the reference, each on a
//! concrete position written as a GameString and replayed through the
//! parser, asserting the exact set of legal moves of the piece concerned.
//! Expected destinations are written as targets relative to pieces of the
//! position (`wQ-` = east of wQ), worked out by hand from the rules.

use std::collections::BTreeSet;

use super::hex::{Cell, NOWHERE, ORIGIN, nb};
use super::notation::target_cell;
use super::{Hive, Move};
use crate::game::{Game, MoveError, Outcome};

fn pos(gs: &str) -> Hive {
    Hive::from_game_string(gs).unwrap_or_else(|e| panic!("{gs}: {e}"))
}

fn play(g: &mut Hive, m: &str) {
    let mv = g.parse_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    g.play(mv);
}

/// Destinations of `piece`'s legal moves; also checks that no move is
/// listed twice.
fn dests(g: &Hive, piece: &str) -> BTreeSet<Cell> {
    let moves = g.moves();
    let unique: BTreeSet<_> = moves.iter().map(|m| (m.piece, m.to)).collect();
    assert_eq!(unique.len(), moves.len(), "duplicate moves");
    let p = g.parse_piece(piece).unwrap();
    moves.into_iter().filter(|m| m.piece == p).map(|m| m.to).collect()
}

fn assert_moves(g: &Hive, piece: &str, targets: &[&str]) {
    let expected: BTreeSet<Cell> = targets.iter().map(|t| target_cell(g, t).unwrap()).collect();
    assert_eq!(expected.len(), targets.len(), "expected targets repeat a cell");
    let got = dests(g, piece);
    let show = |s: &BTreeSet<Cell>| {
        let p = g.parse_piece(piece).unwrap();
        let from = g.board.cell[p as usize];
        s.iter().map(|&to| g.format_move(Move { piece: p, from, to })).collect::<Vec<_>>()
    };
    assert_eq!(
        got,
        expected,
        "{piece}: got {:?}, expected {:?}\n{}",
        show(&got),
        show(&expected),
        g.render(false)
    );
}

// ----- rule 1: placement ------------------------------------------------

#[test]
fn rule1_first_pieces() {
    let mut g = pos("Base");
    let moves = g.moves();
    assert!(moves.iter().all(|m| m.to == ORIGIN && m.is_placement()));
    let names: BTreeSet<String> = moves.iter().map(|&m| g.format_move(m)).collect();
    // No queen on the first turn; only the first spider/beetle/...
    assert_eq!(names, ["wA1", "wB1", "wG1", "wS1"].iter().map(|s| s.to_string()).collect());
    play(&mut g, "wS1");
    let black: BTreeSet<Cell> = (0..6).map(|d| nb(ORIGIN, d)).collect();
    for p in ["bS1", "bB1", "bG1", "bA1"] {
        assert_eq!(dests(&g, p), black, "{p}");
    }
    assert!(dests(&g, "bQ").is_empty());
    assert!(dests(&g, "bS2").is_empty());
}

#[test]
fn rule1_placement_judged_by_top_pieces() {
    // wB1 sits on bS1: cells next to that stack are White's, not Black's.
    let g = pos(
        "Base;InProgress;Black[5];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wB1 \\wS1;bA1 bQ-;wB1 wS1;bB1 bA1-;wB1 bS1",
    );
    assert_moves(&g, "bS2", &["\\bA1", "\\bB1", "bB1/", "bB1-", "bQ\\", "bA1\\", "bB1\\"]);
}

// ----- rule 2: the queen ---------------------------------------------------

#[test]
fn rule2_queen_by_fourth_turn_and_no_move_before_it() {
    let mut g = pos("Base;wS1;bS1 wS1-;wS2 -wS1;bS2 bS1-");
    // Turn 3 without a queen: placements only, queen included.
    assert!(g.moves().iter().all(|m| m.is_placement()));
    assert!(!dests(&g, "wQ").is_empty());
    play(&mut g, "wB1 -wS2");
    play(&mut g, "bB1 bS2-");
    // Turn 4: only the queen.
    let moves = g.moves();
    assert!(!moves.is_empty());
    assert!(moves.iter().all(|m| g.format_move(*m).starts_with("wQ ")));
    assert!(matches!(g.parse_move("wG1 -wB1"), Err(MoveError::Illegal(_))));
}

#[test]
fn rule2_no_pillbug_power_before_the_queen() {
    // bS1 is a leaf next to bP: thrown only once bQ is placed.
    let mut g = pos("Base+P;wS1;bP wS1-;wQ -wS1;bS1 bP/;wA1 -wQ");
    assert!(g.moves().iter().all(|m| m.is_placement()));
    play(&mut g, "bQ bP\\");
    play(&mut g, "wA2 -wA1");
    // Spider moves plus three throws by bP.
    assert_moves(&g, "bS1", &["\\wQ", "bQ\\", "\\bP", "bQ/", "wS1\\"]);
}

// ----- rule 3: One Hive ----------------------------------------------------

#[test]
fn rule3_pinned_piece_and_free_end() {
    let g = pos("Base;wS1;bS1 wS1-;wQ -wS1;bQ bS1-");
    assert_moves(&g, "wS1", &[]);
    assert_moves(&g, "wQ", &["\\wS1", "/wS1"]);
}

#[test]
fn rule3_ant_cannot_slide_along_itself() {
    // The ant at the west end: cells touching only its own cell are out,
    // and so is its own cell (rule 15).
    let g = pos("Base;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 -wQ;bA1 bQ-");
    let expected = [
        "\\wQ", "\\wS1", "\\bS1", "\\bQ", "\\bA1", "bA1/", "bA1-", "/wQ", "/wS1", "/bS1", "/bQ", "/bA1",
        "bA1\\",
    ];
    assert_moves(&g, "wA1", &expected);
}

// ----- rules 4 and 9: freedom to move, ants and gates ------------------

/// A ring of six white pieces around an empty cell, Black attached north.
const RING: &str =
    "Base;wS1;bG1 \\wS1;wQ wS1-;bQ \\bG1;wG1 wQ\\;bG2 \\bQ;wB1 /wG1;bA1 \\bG2;wA1 -wB1;bA2 \\bA1;wS2 \\wA1";

#[test]
fn rule4_gate_and_contact() {
    let g = pos(&format!("{RING};bB1 \\bA2"));
    // wQ: into the ring is a gate, north-east loses contact.
    assert_moves(&g, "wQ", &["\\wQ", "wQ-"]);
}

#[test]
fn rule9_ant_never_enters_the_enclosed_cell() {
    let g = pos(RING);
    let hole = target_cell(&g, "wS1\\").unwrap();
    let ant = g.board.cell[g.parse_piece("bA2").unwrap() as usize];
    assert!((0..6).all(|d| g.board.occupied(nb(hole, d))));
    // Every other empty cell touching the rest of the hive.
    let mut expected = BTreeSet::new();
    for c in g.board.occupied_cells() {
        for d in 0..6 {
            let n = nb(c, d);
            if c != ant && !g.board.occupied(n) && n != ant && n != hole {
                expected.insert(n);
            }
        }
    }
    assert_eq!(dests(&g, "bA2"), expected);
    assert_eq!(expected.len(), 19);
}

// ----- rules 5 and 6: beetles, stacks, gates at height --------------------

/// Stacks wB1/wS1 and bB1/bQ; wB2 between them next to bS1.
const BEETLES: &str =
    "Base;wS1;bS1 wS1-;wQ -wS1;bQ bS1/;wB1 /wS1;bB1 bQ/;wB1 wS1;bB1 bQ;wB2 \\wS1;bA1 bB1-;wB2 \\bS1;bA2 bA1-";

#[test]
fn rule5_gate_at_height() {
    let g = pos(BEETLES);
    // Climbing onto bS1 passes between two stacks of two: blocked.
    assert_moves(&g, "wB2", &["\\bB1", "\\wB1", "bB1", "wB1"]);
}

#[test]
fn rule6_beetle_on_top_and_the_piece_below() {
    let g = pos(BEETLES);
    assert_moves(&g, "wB1", &["-wB2", "wB2", "wQ", "bS1", "wQ\\", "wS1\\"]);
    assert_moves(&g, "wS1", &[]);
    let mut g = g;
    play(&mut g, "wA1 -wQ");
    // The stack bB1/bQ is Black's: bQ below cannot move.
    assert_moves(&g, "bQ", &[]);
    assert!(!dests(&g, "bB1").is_empty());
}

// ----- rule 7: grasshopper -----------------------------------------------

#[test]
fn rule7_grasshopper_jumps_over_a_stack() {
    let g = pos("Base;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wG1 -wQ;bB1 bQ-;wA1 /wS1;bB1 bQ");
    // Over wQ, wS1, bS1 and the stack bB1/bQ to the first empty cell.
    assert_moves(&g, "wG1", &["bQ-"]);
}

// ----- rule 8: spider ------------------------------------------------------

#[test]
fn rule8_spider_three_steps_around_the_corner() {
    let g = pos("Base;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wS2 -wQ;bA1 bQ-");
    assert_moves(&g, "wS2", &["\\bS1", "/bS1"]);
}

// ----- rule 10: ladybug ------------------------------------------------------

#[test]
fn rule10_ladybug_over_a_stack() {
    let g = pos("Base+L;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wL -wQ;bL bQ-;wB1 /wS1;bA1 bL-;wB1 wS1;bA2 bA1-");
    // Up on wQ, across onto the stack wB1/wS1, down beside it.
    assert_moves(&g, "wL", &["\\wS1", "wS1/", "wS1\\", "/wS1"]);
}

#[test]
fn rule5_ladybug_step_through_a_gate_at_height() {
    // wG1 and wQ sit between the stacks wB2/wA1 and wB1/wS1: the step on
    // top from wG1 to wQ is gated, so the cell south-west of wQ (reached
    // only through wQ) is out.
    let g = pos(concat!(
        "Base+L;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wG1 \\wS1;bA1 bQ-;wA1 \\wQ;bA2 bA1-;wB1 /wS1;bA3 bA2-;",
        "wB1 wS1;bG1 bA3-;wB2 -wA1;bG2 bG1-;wB2 wA1;bG3 bG2-;wL wG1/;bS2 bG3-"
    ));
    assert_moves(&g, "wL", &["\\wB2", "\\wG1", "-wB2", "-wQ", "wG1-", "wB1\\", "/wB1"]);
}

// ----- rule 11: mosquito ----------------------------------------------------

#[test]
fn rule11_mosquito_next_to_a_beetle_stack_and_on_top() {
    let mut g =
        pos("Base+M;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wB1 /wS1;bA1 bQ-;wB1 wS1;bA2 bA1-;wM \\wB1;bA3 bA2-");
    // Beetle (top of the stack; the spider below does not count) and queen.
    assert_moves(&g, "wM", &["\\bS1", "wB1", "wQ", "\\wQ"]);
    play(&mut g, "wM wQ");
    play(&mut g, "bA3 bA2\\");
    // On top of the hive: a beetle.
    assert_moves(&g, "wM", &["\\wQ", "\\wS1", "wB1", "/wS1", "/wQ", "-wQ"]);
}

#[test]
fn rule11_mosquito_next_to_a_mosquito_only() {
    let g = pos(
        "Base+M;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wM \\wQ;bM bQ-;wA1 /wS1;bA1 bQ\\;wG1 /wA1;bM \\wS1;wQ -wA1;bA2 bA1\\",
    );
    assert_moves(&g, "wM", &[]);
}

#[test]
fn rule11_mosquito_uses_the_pillbug_power() {
    let g = pos("Base+MP;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wP \\wS1;bA1 bQ-;wM \\wQ;bA2 bA1-");
    // wQ: its slides, thrown by wM, thrown by wP (one move per cell).
    assert_moves(&g, "wQ", &["/wS1", "-wQ", "\\wM", "\\wP", "-wM", "wP/", "wP-"]);
    // wM: slides (copying wP and wQ) and thrown by wP.
    assert_moves(&g, "wM", &["\\wP", "-wQ", "wP/", "wP-"]);
    // wP: slides and thrown by wM.
    assert_moves(&g, "wP", &["\\wP", "wP-", "\\wM", "-wQ", "-wM"]);
    // wS1 links the two colours: pinned, so neither moved nor thrown.
    assert_moves(&g, "wS1", &[]);
}

#[test]
fn rule11_mosquito_borrows_the_power_of_a_stunned_pillbug() {
    // bP just moved next to wM: bP itself cannot be thrown, but wM (pinned,
    // so it cannot move) still uses bP's power on bM.
    let g = pos("Base+MP;wM;bM wM-;wA1 \\wM;bP bM-;wG1 /wA1;bQ bM\\;wQ -wG1;bP wM\\");
    assert_moves(&g, "bM", &["wM/", "wG1\\"]);
    assert_moves(&g, "bP", &[]);
    assert_moves(&g, "wM", &[]);
    assert_moves(&g, "wG1", &[]);
}

// ----- rule 12: pillbug ------------------------------------------------------

#[test]
fn rule12_throws_pinned_last_moved_and_stun() {
    let mut g = pos("Base+P;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wP \\wS1;bA1 bQ-");
    // wS1 is pinned (not thrown); wQ slides or is thrown.
    assert_moves(&g, "wS1", &[]);
    assert_moves(&g, "wQ", &["\\wP", "wP/", "wP-", "-wP", "/wS1"]);
    assert_moves(&g, "wP", &["wP-", "-wP"]);
    play(&mut g, "wA1 /wQ");
    play(&mut g, "bA1 wP-");
    // bA1 moved last: it cannot be thrown now.
    assert_moves(&g, "bA1", &[]);
    play(&mut g, "wA2 -wA1");
    play(&mut g, "bA2 bQ-");
    assert_moves(&g, "bA1", &["\\wP", "wP/", "-wP"]);
    play(&mut g, "bA1 \\wP");
    // Thrown: bA1 cannot move on Black's next turn.
    assert_moves(&g, "bA1", &[]);
    assert!(!dests(&g, "bA2").is_empty());
}

#[test]
fn rule12_stacked_pieces_and_buried_pillbug() {
    let mut g = pos("Base+P;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wP \\wS1;bA1 bQ-;wB1 /wQ;bA2 bA1-;wB1 wQ;bA3 bA2-");
    // wQ is under wB1; wB1 on top is not thrown (only its own steps).
    assert_moves(&g, "wQ", &[]);
    assert_moves(&g, "wB1", &["\\wQ", "wP", "wS1", "/wS1", "/wQ", "-wQ"]);
    play(&mut g, "wB1 wP");
    play(&mut g, "bA3 bA2\\");
    // wP under wB1: no move, no throw (wQ only slides).
    assert_moves(&g, "wP", &[]);
    assert_moves(&g, "wQ", &["\\wQ", "/wS1"]);
}

/// wP with the stacks wB2/wA1 and wB1/wS1 on either side of wQ.
const PILLBUG_GATES: &str = "Base+P;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wP \\wS1;bA1 bQ-;wA1 \\wQ;bA2 bA1-;wB1 /wS1;bA3 bA2-;wB1 wS1;bG1 bA3-;wB2 -wA1;bG2 bG1-";

#[test]
fn rule12_no_throw_up_through_a_gate_at_height() {
    let g = pos(&format!("{PILLBUG_GATES};wB2 wA1;bG3 bG2-"));
    // Lifting wQ onto wP passes between two stacks of two: only its slides.
    assert_moves(&g, "wQ", &["/wB2", "/wB1"]);
}

#[test]
fn rule12_no_throw_down_through_a_gate_at_height() {
    // wQ thrown east of wP first (no gate yet), then the second stack.
    let g = pos(&format!("{PILLBUG_GATES};wQ wP-;bG3 bG2-;wB2 wA1;bS2 bG3-"));
    // Thrown north-west or north-east of wP, or its own slide; not back
    // down south-west of wP, between the two stacks.
    assert_moves(&g, "wQ", &["\\wP", "wP/", "\\bQ"]);
    assert!(target_cell(&g, "/wP").is_ok_and(|c| !g.board.occupied(c)));
}

// ----- rule 13: pass -------------------------------------------------------

#[test]
fn rule13_forced_pass() {
    // Black's pieces: bB1 under wB1, and bQ pinned with no free cell.
    let mut g = pos("Base;wB1;bB1 wB1/;wQ wB1\\;bQ bB1-;wG1 wQ-;bQ bB1\\;wB1 bB1");
    assert_eq!(g.moves(), vec![Move::PASS]);
    assert_eq!(g.parse_move(" PASS "), Ok(Move::PASS));
    assert_eq!(crate::search::perft::perft(&mut g, 1), 1);
    play(&mut g, "pass");
    assert_eq!(g.side(), 0);
    assert!(matches!(g.parse_move("pass"), Err(MoveError::Illegal(_))));
}

// ----- rule 14: end of the game ----------------------------------------------

#[test]
fn rule14_surrounding_your_own_queen_loses() {
    let mut g =
        pos("Base;wS1;bG1 wS1-;wQ /wS1;bG2 bG1/;wA1 -wS1;bB1 bG1\\;wQ wS1\\;bQ bG2\\;wB1 wA1\\;bG2 wB1\\");
    assert_eq!(g.outcome(), None);
    play(&mut g, "wA1 wQ\\");
    assert_eq!(g.outcome(), Some(Outcome::Win(1)));
    assert!(g.moves().is_empty());
    assert_eq!(g.parse_move("bQ -bG1"), Err(MoveError::GameOver));
}

#[test]
fn rule14_both_queens_at_once_is_a_draw() {
    let mut g = pos(concat!(
        "Base;wS1;bS1 wS1-;wS2 \\wS1;bQ bS1/;wQ wS2/;bQ wQ\\;wG1 -wS2;bG1 bS1/;wB1 -wQ;bG2 bG1\\;",
        "wB2 wQ/;bG2 wG1\\;wA1 \\wB2;bB1 bG1/;wA1 /wG1;bB2 bG1\\;wA2 -wA1;bG3 bB1\\;wG1 -wB2;",
        "bB2 bS1\\;wG2 -wA2;bS2 bG3-;wG3 -wG2;bB1 \\bS2;wA3 -wG3;bA1 bB2\\"
    ));
    assert_eq!(g.outcome(), None);
    play(&mut g, "wA3 wB2\\");
    assert_eq!(g.outcome(), Some(Outcome::Draw));
    assert!(g.moves().is_empty());
}

// ----- invariants over random games -------------------------------------

/// True if the occupied cells form one group.
fn connected(g: &Hive) -> bool {
    let b = &g.board;
    let cells = b.occupied_cells();
    let Some(&start) = cells.first() else { return true };
    let mut seen = BTreeSet::from([start]);
    let mut stack = vec![start];
    while let Some(c) = stack.pop() {
        for d in 0..6 {
            let n = nb(c, d);
            if b.occupied(n) && seen.insert(n) {
                stack.push(n);
            }
        }
    }
    seen.len() == cells.len()
}

#[test]
fn random_games_keep_the_hive_whole_and_undo_exactly() {
    let mut x = 0x1234_5678_u64;
    for game in 0..16 {
        let mut g = Hive::new(if game % 2 == 0 { super::Expansions::ALL } else { super::Expansions::BASE });
        for _ in 0..90 {
            if g.outcome().is_some() {
                break;
            }
            // The mask of pieces on top of their stacks, by its definition.
            let tops = (0..32u8).filter(|&p| g.board.is_top(p)).fold(0u32, |m, p| m | 1 << p);
            assert_eq!(g.board.tops, tops);
            let placed = g.pieces().all().filter(|&p| g.board.on_board(p)).fold(0u32, |m, p| m | 1 << p);
            assert_eq!(g.board.placed, placed);
            assert_eq!(g.pieces().all().fold(0u32, |m, p| m | 1 << p), g.pieces().mask());
            // The occupied neighbours of each cell, by their definition.
            for c in 0..1024u16 {
                let m = (0..6).filter(|&d| g.board.occupied(nb(c, d))).fold(0u8, |m, d| m | 1 << d);
                assert_eq!(g.board.ring[c as usize], m, "ring of {c}");
            }
            // The neighbour masks of the top pieces, by their definition.
            for c in g.board.occupied_cells() {
                let around = (0..6).map(|d| nb(c, d)).filter(|&n| g.board.occupied(n));
                let m = around.fold(0u32, |m, n| m | 1 << g.board.top_at(n));
                assert_eq!(g.board.nbr[g.board.top_at(c) as usize], m);
            }
            // Pinned pieces by brute force equal the articulation points.
            let mask = g.articulation_mask();
            for c in g.board.occupied_cells() {
                if g.board.h(c) != 1 {
                    continue;
                }
                let mut h = g.clone();
                let p = h.board.pop(c);
                assert_eq!(mask >> p & 1 != 0, !connected(&h), "pinned {p}\n{}", g.render(false));
            }
            // The one-cell test agrees with the mask on every stack.
            for c in g.board.occupied_cells() {
                let p = g.board.top_at(c);
                assert_eq!(g.splits_hive(c), mask >> p & 1 != 0, "cell of {p}\n{}", g.render(false));
            }
            // Placement cells by their definition: empty, touching a top
            // piece of the side to move and none of the other side.
            if g.ply() >= 2 {
                let me = g.side();
                let b = &g.board;
                let mut naive = BTreeSet::new();
                for c in b.occupied_cells() {
                    for d in 0..6 {
                        let n = nb(c, d);
                        let tops: Vec<usize> = (0..6)
                            .map(|e| nb(n, e))
                            .filter(|&m| b.occupied(m))
                            .map(|m| b.top_colour(m))
                            .collect();
                        if !b.occupied(n) && tops.contains(&me) && !tops.contains(&(1 - me)) {
                            naive.insert(n);
                        }
                    }
                }
                assert_eq!(g.placement_cells(me).iter().collect::<BTreeSet<_>>(), naive);
            }
            let moves = g.moves();
            // The moves to one cell, found piece by piece, are the listed
            // moves of pieces to that cell (every empty cell next to the
            // hive is asked).
            let mut asked = BTreeSet::new();
            for c in g.board.occupied_cells() {
                for d in 0..6 {
                    let n = nb(c, d);
                    if g.board.occupied(n) || !asked.insert(n) {
                        continue;
                    }
                    let mut to = Vec::new();
                    g.moves_to(n, &mut to);
                    let got: BTreeSet<_> = to.iter().map(|&m| g.format_move(m)).collect();
                    let want: BTreeSet<_> = moves
                        .iter()
                        .filter(|m| m.to == n && m.from != NOWHERE)
                        .map(|&m| g.format_move(m))
                        .collect();
                    assert_eq!(got, want, "moves to {n}\n{}", g.render(false));
                    assert_eq!(got.len(), to.len(), "a move twice");
                }
            }
            let snapshot = |g: &Hive| {
                (
                    g.hash(),
                    g.board.height,
                    g.board.top,
                    g.board.under,
                    g.board.cell,
                    g.board.adj,
                    g.board.tops,
                    g.stunned(),
                )
            };
            let before = snapshot(&g);
            for &m in &moves {
                let text = g.format_move(m);
                g.play(m);
                assert!(connected(&g), "{text} split the hive\n{}", g.render(false));
                assert!(g.board.occupied_cells().iter().all(|&c| g.board.h(c) <= 7));
                g.undo(m);
                assert!(snapshot(&g) == before, "{text} not undone");
            }
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            g.play(moves[(x >> 33) as usize % moves.len()]);
        }
    }
}

// ----- a slow second move generator, compared on random games ------------

/// One step from `a` to its neighbour `b` on a board the mover has left:
/// a ground slide needs exactly one of the two cells beside it occupied;
/// any other step is blocked only by two side stacks higher than both ends.
fn naive_step(b: &super::Board, a: Cell, d: usize) -> bool {
    let t = nb(a, d);
    let (src, dst) = (b.h(a), b.h(t));
    let (l, r) = (b.h(nb(a, (d + 5) % 6)), b.h(nb(a, (d + 1) % 6)));
    if src == 0 && dst == 0 { (l > 0) != (r > 0) } else { l.min(r) <= src.max(dst) }
}

/// Destinations of the bug `kind` from `o` on board `b` (the mover taken
/// off), `mosquito_top` for a mosquito on the hive.
fn naive_bug_moves(b: &super::Board, kind: super::Bug, o: Cell) -> BTreeSet<Cell> {
    use super::Bug::*;
    let mut out = BTreeSet::new();
    let ground_steps = |a: Cell| {
        (0..6).filter(move |&d| !b.occupied(nb(a, d)) && naive_step(b, a, d)).map(move |d| nb(a, d))
    };
    match kind {
        Queen | Pillbug => out.extend(ground_steps(o)),
        Beetle => out.extend((0..6).filter(|&d| naive_step(b, o, d)).map(|d| nb(o, d))),
        Grasshopper => {
            for d in 0..6 {
                let mut t = nb(o, d);
                if b.occupied(t) {
                    while b.occupied(t) {
                        t = nb(t, d);
                    }
                    out.insert(t);
                }
            }
        }
        Spider => {
            for c1 in ground_steps(o) {
                for c2 in ground_steps(c1).filter(|&c| c != o) {
                    out.extend(ground_steps(c2).filter(|&c| c != o && c != c1));
                }
            }
        }
        Ant => {
            let mut todo = vec![o];
            let mut seen = BTreeSet::from([o]);
            while let Some(a) = todo.pop() {
                for t in ground_steps(a) {
                    if seen.insert(t) {
                        todo.push(t);
                    }
                }
            }
            seen.remove(&o);
            out = seen;
        }
        Ladybug => {
            // Heights seen by the ladybug as it climbs: a cell it stands on
            // counts without it, which the board already is.
            for d1 in (0..6).filter(|&d| b.occupied(nb(o, d)) && naive_step(b, o, d)) {
                let c1 = nb(o, d1);
                for d2 in (0..6).filter(|&d| b.occupied(nb(c1, d)) && naive_step(b, c1, d)) {
                    let c2 = nb(c1, d2);
                    for d3 in (0..6).filter(|&d| !b.occupied(nb(c2, d)) && naive_step(b, c2, d)) {
                        if nb(c2, d3) != o {
                            out.insert(nb(c2, d3));
                        }
                    }
                }
            }
        }
        Mosquito => {
            if b.h(o) > 0 {
                return naive_bug_moves(b, Beetle, o);
            }
            for d in 0..6 {
                let n = nb(o, d);
                if b.occupied(n) && b.bug(b.top_at(n)) != Mosquito {
                    out.extend(naive_bug_moves(b, b.bug(b.top_at(n)), o));
                }
            }
        }
    }
    out
}

/// Every legal (piece, destination) by the rules, the slow way.
fn naive_moves(g: &Hive) -> BTreeSet<(u8, Cell)> {
    use super::{Bug, PER_SIDE};
    let b = &g.board;
    let me = g.side();
    let mut out = BTreeSet::new();
    for m in g.moves().into_iter().filter(|m| m.is_placement()) {
        out.insert((m.piece, m.to));
    }
    if !b.on_board((me * PER_SIDE) as u8) {
        return out;
    }
    let lifted = |c: Cell| {
        let mut h = g.board.clone();
        h.pop(c);
        h
    };
    let whole = |h: &super::Board| {
        let mut x = Hive::new(g.exp);
        x.board = h.clone();
        connected(&x)
    };
    for p in b.pieces.all().filter(|&p| b.is_top(p) && p != g.stunned()) {
        let c = b.cell[p as usize];
        let h = lifted(c);
        if super::colour(p) == me && (b.h(c) > 1 || whole(&h)) {
            for t in naive_bug_moves(&h, b.bug(p), c) {
                out.insert((p, t));
            }
        }
    }
    // Throws by a pillbug, or a ground mosquito beside a pillbug.
    for s in b.pieces.all().filter(|&s| b.is_top(s) && s != g.stunned() && super::colour(s) == me) {
        let sc = b.cell[s as usize];
        let power = g.exp.pillbug
            && b.h(sc) == 1
            && (b.bug(s) == Bug::Pillbug
                || (b.bug(s) == Bug::Mosquito
                    && (0..6).any(|d| b.occupied(nb(sc, d)) && b.bug(b.top_at(nb(sc, d))) == Bug::Pillbug)));
        if !power {
            continue;
        }
        for d in 0..6 {
            let n = nb(sc, d);
            if b.h(n) != 1 || b.top_at(n) == g.stunned() {
                continue;
            }
            let h = lifted(n);
            // Up from the ground onto the power user, then down.
            if !whole(&h) || !naive_step(&h, n, (d + 3) % 6) {
                continue;
            }
            // Down from the top of the user (a stack of 1 without the mover).
            for e in 0..6 {
                let t = nb(sc, e);
                if t != n && !h.occupied(t) && naive_step(&h, sc, e) {
                    out.insert((b.top_at(n), t));
                }
            }
        }
    }
    out
}

#[test]
fn fast_and_slow_generators_agree_on_random_games() {
    let mut x = 0x9E37_79B9_u64;
    for game in 0..40 {
        let exp: super::Expansions = super::Expansions::all_types()[game % 8].parse().unwrap();
        let mut g = Hive::new(exp);
        for _ in 0..100 {
            if g.outcome().is_some() {
                break;
            }
            let moves = g.moves();
            let fast: BTreeSet<(u8, Cell)> =
                moves.iter().filter(|m| !m.is_pass()).map(|m| (m.piece, m.to)).collect();
            let slow = naive_moves(&g);
            if fast != slow {
                let show = |s: &BTreeSet<(u8, Cell)>| {
                    s.iter()
                        .map(|&(p, t)| {
                            g.format_move(Move { piece: p, from: g.board.cell[p as usize], to: t })
                        })
                        .collect::<Vec<_>>()
                };
                let only_fast: BTreeSet<_> = fast.difference(&slow).copied().collect();
                let only_slow: BTreeSet<_> = slow.difference(&fast).copied().collect();
                panic!(
                    "only fast {:?}, only slow {:?}\n{}",
                    show(&only_fast),
                    show(&only_slow),
                    g.render(false)
                );
            }
            assert_eq!(moves.len(), fast.len().max(1));
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            g.play(moves[(x >> 33) as usize % moves.len()]);
        }
    }
}

/// `is_legal` answers for one move what the list of all moves says: on
/// random games of several types, for the moves of the position and the
/// moves of the positions around it (as the search's killer and table
/// moves come from other positions).
#[test]
fn is_legal_agrees_with_the_move_list() {
    let mut x = 0x9E37_79B9_u64;
    let mut checked = 0;
    for (game, ty) in
        ["Base+MLP", "Base+P", "Base", "Base+MP", "Base+ML+S1B3"].iter().cycle().take(20).enumerate()
    {
        let mut g: Hive = Hive::new(ty.parse::<super::GameType>().unwrap());
        let mut near: Vec<Move> = Vec::new();
        for _ in 0..70 + game {
            if g.outcome().is_some() {
                break;
            }
            let moves = g.moves();
            // Moves of the positions one move on.
            for &m in moves.iter().step_by(7) {
                g.play(m);
                near.extend(g.moves().into_iter().step_by(3));
                g.undo(m);
            }
            near.extend(moves.iter().copied());
            near.push(Move::PASS);
            for &m in &near {
                let listed = moves.contains(&m) && !m.is_pass();
                assert_eq!(g.is_legal(m), listed, "{:?}\n{}", m, g.render(false));
                checked += 1;
            }
            if near.len() > 600 {
                near.drain(..near.len() - 300);
            }
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            g.play(moves[(x >> 33) as usize % moves.len()]);
        }
    }
    assert!(checked > 100_000, "{checked}");
}
