//! Connect Four rules on a bitboard.
//!
//! Column `c` occupies bits `c*(H+1) .. c*(H+1)+H`; the top bit of each
//! column is a sentinel that is always empty, so shifts never wrap between
//! columns. `current` holds the stones of the side to move, `mask` all
//! stones. Any W x H with W*(H+1) <= 64 fits.

use crate::game::Outcome;

/// A Connect Four position of any allowed size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    width: u8,
    height: u8,
    current: u64,
    mask: u64,
    moves: u8,
    outcome: Option<Outcome>,
}

/// Largest width: a column is written as one digit.
pub const MAX_WIDTH: u32 = 9;

impl Board {
    /// An empty board; `None` unless 1 <= W <= 9, H >= 1 and W*(H+1) <= 64.
    pub fn new(width: u32, height: u32) -> Option<Board> {
        if !(1..=MAX_WIDTH).contains(&width) || height < 1 || width * (height + 1) > 64 {
            return None;
        }
        Some(Board { width: width as u8, height: height as u8, current: 0, mask: 0, moves: 0, outcome: None })
    }

    pub fn width(&self) -> u32 {
        self.width as u32
    }
    pub fn height(&self) -> u32 {
        self.height as u32
    }
    /// Stones on the board.
    pub fn moves(&self) -> u32 {
        self.moves as u32
    }
    /// Stones of the side to move.
    pub fn current(&self) -> u64 {
        self.current
    }
    /// All stones.
    pub fn mask(&self) -> u64 {
        self.mask
    }
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    /// 0 if the first player is to move, else 1.
    pub fn side_to_move(&self) -> usize {
        (self.moves & 1) as usize
    }

    fn h1(&self) -> u32 {
        self.height as u32 + 1
    }
    /// Bit of the bottom cell of column `col`.
    pub fn bottom_mask_col(&self, col: u32) -> u64 {
        1u64 << (col * self.h1())
    }
    /// Bit of the top (playable) cell of column `col`.
    pub fn top_mask_col(&self, col: u32) -> u64 {
        1u64 << (self.height as u32 - 1 + col * self.h1())
    }
    /// All playable cells of column `col`.
    pub fn column_mask(&self, col: u32) -> u64 {
        ((1u64 << self.height) - 1) << (col * self.h1())
    }
    /// Bottom cell of every column.
    pub fn bottom_mask(&self) -> u64 {
        (0..self.width()).fold(0, |m, c| m | self.bottom_mask_col(c))
    }
    /// Every playable cell.
    pub fn board_mask(&self) -> u64 {
        self.bottom_mask() * ((1u64 << self.height) - 1)
    }

    /// True if a stone can be dropped in `col` (ignores whether the game
    /// ended).
    pub fn can_play(&self, col: u32) -> bool {
        col < self.width() && self.mask & self.top_mask_col(col) == 0
    }

    /// Rows filled in column `col`.
    pub fn column_height(&self, col: u32) -> u32 {
        (self.mask & self.column_mask(col)).count_ones()
    }

    /// Drops a stone of the side to move in `col` (must be playable and the
    /// game not over).
    pub fn play(&mut self, col: u32) {
        debug_assert!(self.can_play(col) && self.outcome.is_none());
        self.current ^= self.mask;
        self.mask |= self.mask + self.bottom_mask_col(col);
        self.moves += 1;
        let mover = self.current ^ self.mask;
        if self.has_four(mover) {
            self.outcome = Some(Outcome::Win(((self.moves - 1) & 1) as usize));
        } else if self.moves as u32 == self.width() * self.height() {
            self.outcome = Some(Outcome::Draw);
        }
    }

    /// Takes back the top stone of `col`, which must be the last move.
    pub fn undo(&mut self, col: u32) {
        let col_stones = self.mask & self.column_mask(col);
        debug_assert!(col_stones != 0);
        let top = 1u64 << (63 - col_stones.leading_zeros());
        self.mask ^= top;
        self.current ^= self.mask;
        self.moves -= 1;
        self.outcome = None;
    }

    /// True if the stones `pos` contain four in a row.
    pub fn has_four(&self, pos: u64) -> bool {
        let h = self.height as u32;
        for shift in [1, h, h + 1, h + 2] {
            let m = pos & (pos >> shift);
            if m & (m >> (2 * shift)) != 0 {
                return true;
            }
        }
        false
    }

    /// Empty cells (anywhere on the board) that would complete a four for
    /// the stones `pos`.
    pub fn winning_cells(&self, pos: u64) -> u64 {
        self.geometry().winning_cells(pos, self.mask)
    }

    /// The precomputed masks of this board's size (for the solver).
    pub fn geometry(&self) -> Geometry {
        Geometry::new(self.width(), self.height())
    }

    /// Cells where a stone can be dropped now.
    pub fn playable_cells(&self) -> u64 {
        (self.mask + self.bottom_mask()) & self.board_mask()
    }

    /// Stones of the side that is not to move.
    pub fn opponent(&self) -> u64 {
        self.current ^ self.mask
    }

    /// Columns where the side to move wins at once.
    pub fn winning_columns(&self) -> Vec<u32> {
        let w = self.winning_cells(self.current) & self.playable_cells();
        (0..self.width()).filter(|&c| w & self.column_mask(c) != 0).collect()
    }

    /// Columns where the opponent would win if it were to move.
    pub fn threatened_columns(&self) -> Vec<u32> {
        let w = self.winning_cells(self.opponent()) & self.playable_cells();
        (0..self.width()).filter(|&c| w & self.column_mask(c) != 0).collect()
    }

    /// A key unique to the position (for a given size).
    pub fn key(&self) -> u64 {
        self.current.wrapping_add(self.mask)
    }

    /// Owner of a cell: `Some(0)` first player, `Some(1)` second.
    pub fn cell(&self, col: u32, row: u32) -> Option<usize> {
        let bit = 1u64 << (col * self.h1() + row);
        if self.mask & bit == 0 {
            return None;
        }
        let is_current = self.current & bit != 0;
        let current_side = self.side_to_move();
        Some(if is_current { current_side } else { 1 - current_side })
    }
}

/// The masks of one board size, computed once: what the solver's hot loop
/// needs besides the two bitboards `current` and `mask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub width: u32,
    pub height: u32,
    /// Bits per column (height + the sentinel).
    pub h1: u32,
    /// Bottom cell of every column.
    pub bottom: u64,
    /// Every playable cell.
    pub board: u64,
    /// The playable cells of one column.
    pub column: u64,
}

impl Geometry {
    /// The masks of a W x H board (sizes as accepted by [`Board::new`]).
    pub const fn new(width: u32, height: u32) -> Geometry {
        let h1 = height + 1;
        let column = (1u64 << height) - 1;
        let mut bottom = 0u64;
        let mut c = 0;
        while c < width {
            bottom |= 1u64 << (c * h1);
            c += 1;
        }
        Geometry { width, height, h1, bottom, board: bottom * column, column }
    }

    /// The standard 7 x 6 board (the solver has a version of its search
    /// compiled for it).
    pub const STANDARD: Geometry = Geometry::new(7, 6);

    /// Number of cells.
    pub fn cells(&self) -> u32 {
        self.width * self.height
    }

    /// Playable cells of column `col`.
    #[inline]
    pub fn column_mask(&self, col: u32) -> u64 {
        self.column << (col * self.h1)
    }

    /// Empty cells (of `mask`'s board) that would complete a four for the
    /// stones `pos`: the alignment test by shifts, in all four directions.
    #[inline]
    pub fn winning_cells(&self, pos: u64, mask: u64) -> u64 {
        let h = self.height;
        let mut r = (pos << 1) & (pos << 2) & (pos << 3); // vertical
        for shift in [h + 1, h, h + 2] {
            let p = (pos << shift) & (pos << (2 * shift));
            r |= p & (pos << (3 * shift));
            r |= p & (pos >> shift);
            let p = (pos >> shift) & (pos >> (2 * shift));
            r |= p & (pos << shift);
            r |= p & (pos >> (3 * shift));
        }
        r & (self.board ^ mask)
    }

    /// Cells where a stone can be dropped in the position `mask`.
    #[inline]
    pub fn playable(&self, mask: u64) -> u64 {
        (mask + self.bottom) & self.board
    }

    /// True if the stones `pos` (cells of this board) hold four in a row.
    #[inline]
    pub fn has_four(&self, pos: u64) -> bool {
        let h = self.height;
        let mut any = 0;
        for shift in [1, h, h + 1, h + 2] {
            let m = pos & (pos >> shift);
            any |= m & (m >> (2 * shift));
        }
        any != 0
    }

    /// Cells of the even rows (the 2nd, 4th, ... from the bottom).
    #[inline]
    pub fn even_rows(&self) -> u64 {
        let mut col = 0u64;
        let mut r = 1;
        while r < self.height {
            col |= 1 << r;
            r += 2;
        }
        self.bottom * col
    }

    /// An upper bound of the score of a position whose side to move is the
    /// first player (an even number of stones; `current` its stones) on a
    /// board of even height, from the second player's follow-up strategy
    /// (Allis's claimeven): answer every stone played on an odd row in the
    /// same column, and a stone played on an even row (the playable cell
    /// of a column of odd height) with the playable even cell of another
    /// column of odd height (there is always one: the number of such
    /// columns is even). Played so, the second player gets every empty
    /// even-row cell that is not playable now, and the first player's
    /// stones stay within the rest. If no four fits in that rest, the first
    /// player cannot win (bound 0); if moreover a four of the second player
    /// fits in its cells, the first player loses (bound -1). `None`: no
    /// bound (odd height, or a four fits).
    #[inline]
    pub fn claimeven_bound(&self, current: u64, mask: u64) -> Option<i32> {
        if !self.height.is_multiple_of(2) {
            return None;
        }
        let second = (current ^ mask) | (self.even_rows() & !mask & !self.playable(mask));
        let first_max = self.board & !second;
        if self.has_four(first_max) {
            None
        } else if self.has_four(second) {
            Some(-1)
        } else {
            Some(0)
        }
    }

    /// The left-right mirror image of a bitboard (any of current, mask or
    /// key: each column is moved as a whole).
    #[inline]
    pub fn mirror(&self, x: u64) -> u64 {
        let colbits = (1u64 << self.h1) - 1;
        let mut r = 0;
        for c in 0..self.width {
            let col = (x >> (c * self.h1)) & colbits;
            r |= col << ((self.width - 1 - c) * self.h1);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_all(b: &mut Board, s: &str) {
        for ch in s.chars() {
            b.play(ch.to_digit(10).unwrap() - 1);
        }
    }

    #[test]
    fn sizes() {
        assert!(Board::new(7, 6).is_some());
        assert!(Board::new(9, 6).is_some()); // 63 bits
        assert!(Board::new(8, 7).is_some()); // 64 bits
        assert!(Board::new(9, 7).is_none());
        assert!(Board::new(10, 4).is_none());
        assert!(Board::new(0, 4).is_none());
        assert!(Board::new(4, 0).is_none());
    }

    #[test]
    fn wins_in_every_direction() {
        for (s, who) in [
            ("1212121", 0),     // vertical
            ("1122334", 0),     // horizontal
            ("12234334454", 0), // diagonal /
            ("76654554434", 0), // diagonal \
        ] {
            let mut b = Board::new(7, 6).unwrap();
            play_all(&mut b, s);
            assert_eq!(b.outcome(), Some(Outcome::Win(who)), "{s}");
        }
        let mut b = Board::new(7, 6).unwrap();
        play_all(&mut b, "1212126");
        assert_eq!(b.outcome(), None);
        b.play(1);
        assert_eq!(b.outcome(), Some(Outcome::Win(1)));
    }

    #[test]
    fn undo_restores() {
        let mut b = Board::new(7, 6).unwrap();
        play_all(&mut b, "4453");
        let saved = b;
        b.play(2);
        b.undo(2);
        assert_eq!(b, saved);
        play_all(&mut b, "121212");
        let before_win = b;
        b.play(0);
        assert!(b.outcome().is_some());
        b.undo(0);
        assert_eq!(b, before_win);
    }

    #[test]
    fn draw_on_full_board() {
        // 4x4 filled column pairs without any four.
        let mut b = Board::new(4, 4).unwrap();
        play_all(&mut b, "1213243413423124");
        assert_eq!(b.moves(), 16);
        assert_eq!(b.outcome(), Some(Outcome::Draw));
    }

    #[test]
    fn mirror_of_a_position() {
        let mut a = Board::new(7, 6).unwrap();
        play_all(&mut a, "1123");
        let mut b = Board::new(7, 6).unwrap();
        play_all(&mut b, "7765");
        let g = a.geometry();
        assert_eq!(g.mirror(a.key()), b.key());
        assert_eq!(g.mirror(g.mirror(a.mask())), a.mask());
        assert_eq!(g.cells(), 42);
    }

    #[test]
    fn threats() {
        let mut b = Board::new(7, 6).unwrap();
        play_all(&mut b, "11223");
        // second player to move; first threatens column 4 (and 4 is playable).
        assert_eq!(b.threatened_columns(), vec![3]);
        assert!(b.winning_columns().is_empty());
    }
}
