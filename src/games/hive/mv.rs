//! A Hive move: a piece from a cell (or from hand) to a cell, or a pass.

use super::hex::{Cell, NOWHERE};
use super::piece::{NO_PIECE, Piece};

/// A move. `from` is [`NOWHERE`] for a placement; `piece` is
/// [`NO_PIECE`] for a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub piece: Piece,
    pub from: Cell,
    pub to: Cell,
}

impl Move {
    pub const PASS: Move = Move { piece: NO_PIECE, from: NOWHERE, to: NOWHERE };

    pub fn is_pass(self) -> bool {
        self.piece == NO_PIECE
    }

    pub fn is_placement(self) -> bool {
        !self.is_pass() && self.from == NOWHERE
    }
}
