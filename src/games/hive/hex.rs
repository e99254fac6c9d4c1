//! Hex cells on a 32 x 32 wrapped grid, directions and a 1024-bit cell set.
//!
//! Cells are axial coordinates (q, r) packed as `((r mod 32) * 32 + q) mod
//! 1024`. The packing wraps; two cells map to the same index only if they
//! are at least 32 steps apart. The rules look at the hive's cells, their
//! neighbours and the neighbours of those: with at most 30 pieces (15 a
//! side, `piece::MAX_PER_SIDE`) the hive spans at most 29 steps, so any two
//! of those cells are at most 31 apart and the wrap is invisible to the
//! rules.

/// A cell index, `0..1024`.
pub type Cell = u16;

/// Number of cells of the grid.
pub const CELLS: usize = 1024;

/// Where White's first piece goes.
pub const ORIGIN: Cell = 16 * 32 + 16;

/// "Not on the board" (a piece in hand).
pub const NOWHERE: Cell = u16::MAX;

/// Directions in clockwise order, which is also the order the canonical
/// notation scans a destination's neighbours: NW, NE, E, SE, SW, W.
pub const NW: usize = 0;
pub const NE: usize = 1;
pub const E: usize = 2;
pub const SE: usize = 3;
pub const SW: usize = 4;
pub const W: usize = 5;

/// Axial (dq, dr) of each direction.
pub const DELTA: [(i32, i32); 6] = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)];

/// Index offset of each direction, modulo 1024.
const OFFSET: [u16; 6] = [1024 - 32, 1024 - 31, 1, 32, 31, 1023];

/// The neighbour of `c` in direction `d` (0..6).
#[inline(always)]
pub fn nb(c: Cell, d: usize) -> Cell {
    (c + OFFSET[d]) & 1023
}

/// Bit d set, for the direction d with `nb(a, d) == o`, in the entry
/// `(o - a) mod 1024` (0 for the cells not next to `a`).
const TOWARD: [u8; 1024] = {
    let mut t = [0u8; 1024];
    let mut d = 0;
    while d < 6 {
        t[OFFSET[d] as usize] = 1 << d;
        d += 1;
    }
    t
};

/// The bit of the direction from `a` to its neighbour `o` (0 if `o` is
/// not a neighbour of `a`), for masks of neighbours such as
/// `Board::ring`.
#[inline(always)]
pub fn toward(a: Cell, o: Cell) -> u8 {
    TOWARD[(o.wrapping_sub(a) & 1023) as usize]
}

/// The direction after `d`, clockwise.
#[inline(always)]
pub fn cw(d: usize) -> usize {
    if d == 5 { 0 } else { d + 1 }
}

/// The direction before `d`, clockwise.
#[inline(always)]
pub fn ccw(d: usize) -> usize {
    if d == 0 { 5 } else { d - 1 }
}

/// The opposite direction.
#[inline(always)]
pub fn opposite(d: usize) -> usize {
    (d + 3) % 6
}

/// A set of cells as 1024 bits, with its size kept up to date.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CellSet {
    bits: [u64; 16],
    len: u32,
}

impl Default for CellSet {
    fn default() -> Self {
        Self::new()
    }
}

impl CellSet {
    #[inline(always)]
    pub const fn new() -> Self {
        CellSet { bits: [0; 16], len: 0 }
    }
    /// Adds `c`; true if it was not there.
    #[inline(always)]
    pub fn insert(&mut self, c: Cell) -> bool {
        let (w, b) = ((c >> 6) as usize, c & 63);
        let had = self.bits[w] >> b & 1;
        self.bits[w] |= 1 << b;
        self.len += 1 - had as u32;
        had == 0
    }
    #[inline(always)]
    pub fn remove(&mut self, c: Cell) {
        let had = self.contains(c) as u32;
        self.bits[(c >> 6) as usize] &= !(1u64 << (c & 63));
        self.len -= had;
    }
    #[inline(always)]
    pub fn contains(&self, c: Cell) -> bool {
        self.bits[(c >> 6) as usize] >> (c & 63) & 1 != 0
    }
    #[inline(always)]
    pub fn len(&self) -> u32 {
        self.len
    }
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The cells in increasing index order.
    pub fn iter(&self) -> impl Iterator<Item = Cell> + '_ {
        self.bits.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some((i as u32 * 64 + b) as Cell)
            })
        })
    }
}

impl std::fmt::Debug for CellSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_are_mutual_and_ring() {
        for c in [0u16, 31, 32, 500, ORIGIN, 1023] {
            for d in 0..6 {
                let n = nb(c, d);
                assert_eq!(nb(n, opposite(d)), c);
                // The two cells next to both c and n are c's neighbours on
                // either side of d.
                let (l, r) = (nb(c, ccw(d)), nb(c, cw(d)));
                assert!((0..6).any(|e| nb(n, e) == l));
                assert!((0..6).any(|e| nb(n, e) == r));
            }
        }
    }

    #[test]
    fn toward_names_the_direction_of_a_neighbour() {
        for a in [0u16, 31, 32, 500, ORIGIN, 1023] {
            for o in 0..1024u16 {
                let want = (0..6).filter(|&d| nb(a, d) == o).fold(0u8, |m, d| m | 1 << d);
                assert_eq!(toward(a, o), want, "{a} {o}");
            }
        }
    }

    #[test]
    fn cell_set_basics() {
        let mut s = CellSet::new();
        assert!(s.insert(5));
        assert!(!s.insert(5));
        assert!(s.insert(1000));
        assert_eq!(s.len(), 2);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![5, 1000]);
        s.remove(5);
        s.remove(5);
        assert_eq!(s.len(), 1);
        assert!(!s.contains(5) && s.contains(1000));
    }
}
