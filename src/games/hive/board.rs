//! The board: stacks of pieces on hex cells, with make/unmake of single
//! piece moves.

use super::hex::{CELLS, Cell, NOWHERE, nb, opposite};
use super::piece::{Bug, MAX_PER_SIDE, NO_PIECE, PER_SIDE, PIECES, Piece, PieceTable, colour};

/// The piece slot no game uses (the last of Black's), where the neighbour
/// masks' updates of empty cells go.
const SPARE: Piece = (PIECES - 1) as Piece;

/// Where every piece is. A cell holds a stack (height up to 7 with the
/// standard pieces, more with extra beetles); `top` is its top piece and
/// `under` links each piece to the one below it. `pieces` says which piece
/// numbers the game has and their bugs.
#[derive(Clone)]
pub struct Board {
    pub height: [u8; CELLS],
    pub top: [Piece; CELLS],
    pub under: [Piece; PIECES],
    /// Cell of each piece, [`NOWHERE`] while in hand.
    pub cell: [Cell; PIECES],
    /// For each colour and cell: how many neighbouring stacks have a top
    /// piece of that colour (placement tests in two look-ups).
    pub adj: [[u8; CELLS]; 2],
    /// The pieces of the game.
    pub pieces: PieceTable,
    /// Bit `p` set if piece `p` is on the board on top of its stack.
    pub tops: u32,
    /// For each cell, bit d set if its neighbour in direction d is
    /// occupied.
    pub ring: [u8; CELLS],
    /// Bit `p` set if piece `p` is on the board (the others are in hand).
    pub placed: u32,
    /// For each piece on top of its stack: bit `q` set for each top piece
    /// `q` of a neighbouring cell (the graph of the hive's stacks). Stale
    /// for the other pieces.
    pub nbr: [u32; PIECES],
}

impl Board {
    /// The empty board of a game with these pieces.
    pub fn new(pieces: PieceTable) -> Self {
        Board {
            height: [0; CELLS],
            top: [NO_PIECE; CELLS],
            under: [NO_PIECE; PIECES],
            cell: [NOWHERE; PIECES],
            adj: [[0; CELLS]; 2],
            pieces,
            tops: 0,
            ring: [0; CELLS],
            placed: 0,
            nbr: [0; PIECES],
        }
    }

    /// The bug of a piece.
    #[inline(always)]
    pub fn bug(&self, p: Piece) -> Bug {
        self.pieces.bug(p)
    }

    #[inline(always)]
    pub fn occupied(&self, c: Cell) -> bool {
        self.height[c as usize] != 0
    }

    #[inline(always)]
    pub fn h(&self, c: Cell) -> u8 {
        self.height[c as usize]
    }

    #[inline(always)]
    pub fn top_at(&self, c: Cell) -> Piece {
        self.top[c as usize]
    }

    #[inline(always)]
    pub fn on_board(&self, p: Piece) -> bool {
        self.cell[p as usize] != NOWHERE
    }

    /// True if `p` is on the board and on top of its stack.
    #[inline(always)]
    pub fn is_top(&self, p: Piece) -> bool {
        let c = self.cell[p as usize];
        c != NOWHERE && self.top[c as usize] == p
    }

    /// Updates `adj`, `ring` and `nbr` when the top of `c` changes from `old` to
    /// `new` (either may be [`NO_PIECE`], not both).
    ///
    /// Without branches on the neighbours: [`NO_PIECE`] lands on the slot
    /// and bit [`SPARE`], which no piece uses and no mask keeps.
    #[inline(always)]
    fn retop(&mut self, c: Cell, old: Piece, new: Piece) {
        const _: () = assert!(MAX_PER_SIDE < PER_SIDE && SPARE as usize == PIECES - 1);
        let bit = |p: Piece| (1u32 << (p as u32 & 31)) & !(1 << SPARE);
        let (old_bit, new_bit) = (bit(old), bit(new));
        if old == NO_PIECE || new == NO_PIECE || colour(old) != colour(new) {
            for d in 0..6 {
                let n = nb(c, d) as usize;
                if old != NO_PIECE {
                    self.adj[colour(old)][n] -= 1;
                } else {
                    self.ring[n] |= 1 << opposite(d);
                }
                if new != NO_PIECE {
                    self.adj[colour(new)][n] += 1;
                } else {
                    self.ring[n] &= !(1 << opposite(d));
                }
            }
        }
        let mut m = 0;
        for d in 0..6 {
            let t = self.top[nb(c, d) as usize] & 31;
            m |= 1u32 << t;
            let x = &mut self.nbr[t as usize];
            *x = *x & !old_bit | new_bit;
        }
        self.nbr[(new & 31) as usize] = m & !(1 << SPARE);
    }

    /// Puts `p` on top of the stack at `c`.
    #[inline(always)]
    pub fn push(&mut self, p: Piece, c: Cell) {
        let old = self.top[c as usize];
        self.retop(c, old, p);
        if old != NO_PIECE {
            self.tops &= !(1 << old);
        }
        self.tops |= 1 << p;
        self.placed |= 1 << p;
        self.under[p as usize] = old;
        self.top[c as usize] = p;
        self.height[c as usize] += 1;
        self.cell[p as usize] = c;
    }

    /// Takes the top piece off the stack at `c` (which is not empty).
    #[inline(always)]
    pub fn pop(&mut self, c: Cell) -> Piece {
        let p = self.top[c as usize];
        let below = self.under[p as usize];
        self.retop(c, p, below);
        self.tops &= !(1 << p);
        self.placed &= !(1 << p);
        if below != NO_PIECE {
            self.tops |= 1 << below;
        }
        self.top[c as usize] = below;
        self.under[p as usize] = NO_PIECE;
        self.height[c as usize] -= 1;
        self.cell[p as usize] = NOWHERE;
        p
    }

    /// The pieces of the stack at `c`, top first.
    pub fn stack(&self, c: Cell) -> Vec<Piece> {
        let mut v = Vec::new();
        let mut p = self.top[c as usize];
        while p != NO_PIECE {
            v.push(p);
            p = self.under[p as usize];
        }
        v
    }

    /// Number of occupied neighbours of `c` (from its ring mask).
    #[inline]
    pub fn occupied_neighbours(&self, c: Cell) -> u32 {
        self.ring[c as usize].count_ones()
    }

    /// True if every neighbour of `c` is occupied.
    #[inline]
    pub fn surrounded(&self, c: Cell) -> bool {
        self.ring[c as usize] == 63
    }

    /// Colour of the top piece at an occupied cell.
    #[inline(always)]
    pub fn top_colour(&self, c: Cell) -> usize {
        colour(self.top[c as usize])
    }

    /// The cells holding at least one piece, each once.
    pub fn occupied_cells(&self) -> Vec<Cell> {
        self.pieces.all().filter(|&p| self.is_top(p)).map(|p| self.cell[p as usize]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hive::Expansions;
    use crate::games::hive::gametype::GameType;
    use crate::games::hive::hex::ORIGIN;

    #[test]
    fn stacks_push_and_pop() {
        let mut b = Board::new(GameType::from(Expansions::BASE).table());
        b.push(0, ORIGIN);
        b.push(3, ORIGIN);
        b.push(19, ORIGIN);
        assert_eq!(b.h(ORIGIN), 3);
        assert_eq!(b.stack(ORIGIN), vec![19, 3, 0]);
        assert_eq!(b.pieces.name(19), "bB1");
        assert!(b.is_top(19) && !b.is_top(3));
        assert_eq!(b.pop(ORIGIN), 19);
        assert_eq!(b.top_at(ORIGIN), 3);
        assert_eq!(b.cell[19], NOWHERE);
        assert_eq!(b.occupied_cells(), vec![ORIGIN]);
        let n = nb(ORIGIN, 2) as usize;
        assert_eq!((b.adj[0][n], b.adj[1][n]), (1, 0)); // wB1 on top
        b.pop(ORIGIN);
        b.pop(ORIGIN);
        assert_eq!((b.adj[0][n], b.adj[1][n]), (0, 0));
    }
}
