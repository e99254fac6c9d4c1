//! Perft: counts move sequences, the standard test of move generation.

use crate::game::Game;

/// Number of leaf positions after exactly `depth` plies from `pos`.
/// A finished game is not extended (it counts as a leaf only at depth 0).
pub fn perft<G: Game>(pos: &mut G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for m in moves {
        pos.play(m);
        total += perft(pos, depth - 1);
        pos.undo(m);
    }
    total
}
