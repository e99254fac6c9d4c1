//! Bugs, pieces, the piece table of a game and the expansions of a game
//! type.
//!
//! Pieces are numbered `colour * 16 + index` (16 slots per side, so the
//! colour is one shift). A game's [`PieceTable`] lays each side's pieces
//! out in the order Q, S1.., B1.., G1.., A1.., M, L, P, leaving out the bugs
//! not in play: the standard game types keep the UHP pieces Q S1 S2 B1 B2
//! G1 G2 G3 A1 A2 A3 (then M L P with their expansions) at indices 0..14.

use std::fmt;
use std::str::FromStr;

/// A piece number, `0..32` (White 0..16, Black 16..32).
pub type Piece = u8;

/// Piece slots per side (the stride of the numbering). A game uses the
/// first [`PieceTable::per_side`] of them.
pub const PER_SIDE: usize = 16;
/// Piece slots in all (bit masks of pieces fit a `u32`).
pub const PIECES: usize = 32;
/// Most pieces a side may have: two sides of 15 keep the hive (at most 30
/// pieces) well inside the 32-cell wrap of the grid (see `hex`).
pub const MAX_PER_SIDE: usize = 15;
/// Most pieces of one bug (one-digit numbers in the notation).
pub const MAX_OF_BUG: usize = 9;
/// "No piece" (empty cell, ground level).
pub const NO_PIECE: Piece = 0xFF;

/// The kinds of bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bug {
    Queen,
    Spider,
    Beetle,
    Grasshopper,
    Ant,
    Mosquito,
    Ladybug,
    Pillbug,
}

impl Bug {
    pub const ALL: [Bug; 8] = [
        Bug::Queen,
        Bug::Spider,
        Bug::Beetle,
        Bug::Grasshopper,
        Bug::Ant,
        Bug::Mosquito,
        Bug::Ladybug,
        Bug::Pillbug,
    ];

    pub fn letter(self) -> char {
        match self {
            Bug::Queen => 'Q',
            Bug::Spider => 'S',
            Bug::Beetle => 'B',
            Bug::Grasshopper => 'G',
            Bug::Ant => 'A',
            Bug::Mosquito => 'M',
            Bug::Ladybug => 'L',
            Bug::Pillbug => 'P',
        }
    }

    pub fn from_letter(c: char) -> Option<Bug> {
        Bug::ALL.into_iter().find(|b| b.letter() == c.to_ascii_uppercase())
    }

    /// How many pieces of this bug a side has in the standard game (with
    /// its expansion, for M L P).
    pub fn standard_count(self) -> usize {
        match self {
            Bug::Spider | Bug::Beetle => 2,
            Bug::Grasshopper | Bug::Ant => 3,
            _ => 1,
        }
    }

    /// True for the bugs whose pieces carry a number in UHP notation
    /// (`wS1`, `bA3`), whatever their count; the queen and the expansion
    /// bugs are written bare (`wQ`, `bM`).
    pub fn numbered(self) -> bool {
        matches!(self, Bug::Spider | Bug::Beetle | Bug::Grasshopper | Bug::Ant)
    }

    /// A bit for bug sets.
    #[inline(always)]
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The colour (side) of a piece: 0 White, 1 Black.
#[inline(always)]
pub fn colour(p: Piece) -> usize {
    (p as usize / PER_SIDE) & 1
}

/// The pieces of a game: how many of each bug a side has and, for every
/// piece number, its bug and UHP number. Both sides have the same pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceTable {
    bug: [Bug; PIECES],
    /// Number written after the bug letter (0: none).
    number: [u8; PIECES],
    /// Index within a side of each bug's first piece, and its count.
    first: [u8; 8],
    count: [u8; 8],
    per_side: u8,
}

impl PieceTable {
    /// The table for `count[bug as usize]` pieces of each bug (the queen's
    /// count must be 1; at most [`MAX_PER_SIDE`] pieces a side).
    pub fn new(count: [u8; 8]) -> PieceTable {
        debug_assert_eq!(count[0], 1);
        debug_assert!(count.iter().map(|&c| c as usize).sum::<usize>() <= MAX_PER_SIDE);
        let mut t =
            PieceTable { bug: [Bug::Queen; PIECES], number: [0; PIECES], first: [0; 8], count, per_side: 0 };
        let mut i = 0;
        for b in Bug::ALL {
            t.first[b as usize] = i as u8;
            for n in 1..=count[b as usize] {
                for side in 0..2 {
                    t.bug[side * PER_SIDE + i] = b;
                    t.number[side * PER_SIDE + i] = if b.numbered() { n } else { 0 };
                }
                i += 1;
            }
        }
        t.per_side = i as u8;
        t
    }

    /// Pieces a side has.
    #[inline(always)]
    pub fn per_side(&self) -> usize {
        self.per_side as usize
    }

    /// Bit `p` set for every piece `p` of the game.
    #[inline(always)]
    pub fn mask(&self) -> u32 {
        let side = (1u32 << self.per_side) - 1;
        side | side << PER_SIDE
    }

    /// The piece numbers of `side`.
    #[inline(always)]
    pub fn side(&self, side: usize) -> std::ops::Range<Piece> {
        let base = (side * PER_SIDE) as Piece;
        base..base + self.per_side
    }

    /// Every piece of the game, White's then Black's.
    pub fn all(&self) -> impl Iterator<Item = Piece> + '_ {
        self.side(0).chain(self.side(1))
    }

    /// The pieces of `b` of `side`, in numeric order (empty if none).
    #[inline(always)]
    pub fn of_bug(&self, side: usize, b: Bug) -> std::ops::Range<Piece> {
        let first = (side * PER_SIDE) as Piece + self.first[b as usize];
        first..first + self.count[b as usize]
    }

    /// The bug of a piece of this game.
    #[inline(always)]
    pub fn bug(&self, p: Piece) -> Bug {
        self.bug[p as usize]
    }

    /// How many pieces of `b` a side has.
    #[inline(always)]
    pub fn count(&self, b: Bug) -> usize {
        self.count[b as usize] as usize
    }

    /// The piece of `side` with `bug` and 1-based `number` (0 or 1 for the
    /// bugs written without a number), if the game has it.
    #[inline]
    pub fn piece(&self, side: usize, b: Bug, number: usize) -> Option<Piece> {
        let n = number.max(1);
        if n > self.count(b) {
            return None;
        }
        Some((side * PER_SIDE + self.first[b as usize] as usize + n - 1) as Piece)
    }

    /// The name of a piece: `wQ`, `bS2`, `wM`, `bA4`.
    pub fn name(&self, p: Piece) -> String {
        let c = if colour(p) == 0 { 'w' } else { 'b' };
        match self.number[p as usize] {
            0 => format!("{c}{}", self.bug(p).letter()),
            n => format!("{c}{}{n}", self.bug(p).letter()),
        }
    }

    /// Parses a piece name leniently (case of the letters); the number may
    /// be left out only when the game has one piece of that bug, and `1`
    /// may be written after a bug that has no number (`wQ1`).
    pub fn parse(&self, s: &str) -> Result<Piece, String> {
        let mut ch = s.chars();
        let side = match ch.next() {
            Some('w' | 'W') => 0,
            Some('b' | 'B') => 1,
            _ => return Err(format!("'{s}' is not a piece: it must start with w or b")),
        };
        let b = ch
            .next()
            .and_then(Bug::from_letter)
            .ok_or_else(|| format!("'{s}' is not a piece: the bug letter must be one of Q S B G A M L P"))?;
        let count = self.count(b);
        if count == 0 {
            return Err(format!("'{s}' is not a piece of this game: it has no {}", b.letter()));
        }
        let rest: String = ch.collect();
        let number = if rest.is_empty() {
            if count > 1 {
                return Err(format!("'{s}' needs a number (1..{count}) after the bug letter"));
            }
            1
        } else {
            match rest.parse::<usize>() {
                Ok(n) if (1..=count).contains(&n) && rest.len() == 1 => n,
                _ if count == 1 => {
                    return Err(format!("'{s}' is not a piece: this game has one {}", b.letter()));
                }
                _ => return Err(format!("'{s}' is not a piece: {} has numbers 1..{count}", b.letter())),
            }
        };
        self.piece(side, b, number).ok_or_else(|| format!("'{s}' is not a piece"))
    }
}

/// The expansions in play (the game type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Expansions {
    pub mosquito: bool,
    pub ladybug: bool,
    pub pillbug: bool,
}

impl Expansions {
    pub const BASE: Expansions = Expansions { mosquito: false, ladybug: false, pillbug: false };
    pub const ALL: Expansions = Expansions { mosquito: true, ladybug: true, pillbug: true };

    /// True if the bug is part of this game.
    pub fn has(self, b: Bug) -> bool {
        match b {
            Bug::Mosquito => self.mosquito,
            Bug::Ladybug => self.ladybug,
            Bug::Pillbug => self.pillbug,
            _ => true,
        }
    }

    /// Every game type string, canonical.
    pub fn all_types() -> Vec<String> {
        (0..8)
            .map(|i| {
                Expansions { mosquito: i & 1 != 0, ladybug: i & 2 != 0, pillbug: i & 4 != 0 }.to_string()
            })
            .collect()
    }
}

impl fmt::Display for Expansions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Base")?;
        if *self != Expansions::BASE {
            f.write_str("+")?;
        }
        for (on, c) in [(self.mosquito, "M"), (self.ladybug, "L"), (self.pillbug, "P")] {
            if on {
                f.write_str(c)?;
            }
        }
        Ok(())
    }
}

impl FromStr for Expansions {
    type Err = String;
    /// `Base`, `Base+M`, ... case-insensitive, expansion letters in any
    /// order.
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let lower = t.to_ascii_lowercase();
        let rest = lower.strip_prefix("base").ok_or_else(|| format!("'{t}' is not a Hive game type"))?;
        let mut e = Expansions::BASE;
        if rest.is_empty() {
            return Ok(e);
        }
        let letters = rest
            .strip_prefix('+')
            .filter(|r| !r.is_empty())
            .ok_or_else(|| format!("bad Hive game type '{t}': expected Base or Base+ followed by M, L, P"))?;
        for c in letters.chars() {
            let flag = match c {
                'm' => &mut e.mosquito,
                'l' => &mut e.ladybug,
                'p' => &mut e.pillbug,
                _ => return Err(format!("bad Hive game type '{t}': unknown expansion '{c}' (M, L or P)")),
            };
            if *flag {
                return Err(format!("bad Hive game type '{t}': expansion '{c}' given twice"));
            }
            *flag = true;
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standard(exp: Expansions) -> PieceTable {
        super::super::gametype::GameType::from(exp).table()
    }

    #[test]
    fn names_round_trip() {
        let t = standard(Expansions::ALL);
        assert_eq!(t.per_side(), 14);
        for p in t.all() {
            assert_eq!(t.parse(&t.name(p)), Ok(p));
        }
        assert_eq!(t.name(0), "wQ");
        assert_eq!(t.name(16 + 2), "bS2");
        assert_eq!(t.name(13), "wP");
        assert_eq!(t.parse("BA3").map(|p| t.name(p)), Ok("bA3".to_string()));
        assert_eq!(t.parse("wq1").map(|p| t.name(p)), Ok("wQ".to_string()));
        assert!(t.parse("wS").is_err());
        assert!(t.parse("wS3").is_err());
        assert!(t.parse("xQ").is_err());
        assert!(t.parse("wX").is_err());
        assert!(t.parse("").is_err());
        assert!(t.parse("wS11").is_err());
        // Base has no mosquito; its pieces keep the standard numbers.
        let b = standard(Expansions::BASE);
        assert_eq!(b.per_side(), 11);
        assert!(b.parse("wM").is_err());
        for p in b.all() {
            assert_eq!(b.name(p), t.name(p));
            assert_eq!(b.bug(p), t.bug(p));
        }
    }

    #[test]
    fn tables_with_other_counts() {
        // One spider, no beetle, four ants, the pillbug.
        let t = PieceTable::new([1, 1, 0, 3, 4, 0, 0, 1]);
        let names: Vec<String> = t.side(1).map(|p| t.name(p)).collect();
        assert_eq!(names, ["bQ", "bS1", "bG1", "bG2", "bG3", "bA1", "bA2", "bA3", "bA4", "bP"]);
        for p in t.all() {
            assert_eq!(t.parse(&t.name(p)), Ok(p));
            assert_eq!(colour(p), (p as usize >= PER_SIDE) as usize);
        }
        // A lone spider may be named without its number; none is a beetle.
        assert_eq!(t.parse("wS"), t.parse("wS1"));
        assert!(t.parse("wS2").is_err());
        assert!(t.parse("wB1").unwrap_err().contains("no B"));
        assert_eq!(t.parse("wA4").map(|p| t.bug(p)), Ok(Bug::Ant));
        assert_eq!(t.piece(0, Bug::Pillbug, 0), Some(9));
        assert_eq!(t.piece(0, Bug::Beetle, 1), None);
    }

    #[test]
    fn game_types() {
        assert_eq!(Expansions::all_types().len(), 8);
        for t in Expansions::all_types() {
            assert_eq!(t.parse::<Expansions>().unwrap().to_string(), t);
        }
        assert_eq!("base+plm".parse::<Expansions>().unwrap().to_string(), "Base+MLP");
        assert_eq!("BASE".parse::<Expansions>().unwrap(), Expansions::BASE);
        assert!("Base+".parse::<Expansions>().is_err());
        assert!("Base+X".parse::<Expansions>().is_err());
        assert!("Base+MM".parse::<Expansions>().is_err());
        assert!("Hive".parse::<Expansions>().is_err());
    }
}
