//! Bugs, pieces and the expansions of a game type.
//!
//! Pieces are numbered `colour * 14 + index`, index in the order
//! Q S1 S2 B1 B2 G1 G2 G3 A1 A2 A3 M L P.

use std::fmt;
use std::str::FromStr;

/// A piece number, `0..28` (White 0..14, Black 14..28).
pub type Piece = u8;

/// Pieces per side.
pub const PER_SIDE: usize = 14;
/// Pieces in all.
pub const PIECES: usize = 28;
/// "No piece" (empty cell, ground level).
pub const NO_PIECE: Piece = 0xFF;

/// The kinds of bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

    /// Index of the first piece of this bug within a side.
    pub fn first_index(self) -> usize {
        match self {
            Bug::Queen => 0,
            Bug::Spider => 1,
            Bug::Beetle => 3,
            Bug::Grasshopper => 5,
            Bug::Ant => 8,
            Bug::Mosquito => 11,
            Bug::Ladybug => 12,
            Bug::Pillbug => 13,
        }
    }

    /// How many pieces of this bug a side has.
    pub fn count(self) -> usize {
        match self {
            Bug::Spider | Bug::Beetle => 2,
            Bug::Grasshopper | Bug::Ant => 3,
            _ => 1,
        }
    }

    /// A bit for bug sets.
    #[inline(always)]
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

const BUG_OF_INDEX: [Bug; PER_SIDE] = [
    Bug::Queen,
    Bug::Spider,
    Bug::Spider,
    Bug::Beetle,
    Bug::Beetle,
    Bug::Grasshopper,
    Bug::Grasshopper,
    Bug::Grasshopper,
    Bug::Ant,
    Bug::Ant,
    Bug::Ant,
    Bug::Mosquito,
    Bug::Ladybug,
    Bug::Pillbug,
];

const NUMBER_OF_INDEX: [u8; PER_SIDE] = [0, 1, 2, 1, 2, 1, 2, 3, 1, 2, 3, 0, 0, 0];

/// The bug of each piece number (both sides).
const BUG_OF_PIECE: [Bug; PIECES] = {
    let mut t = [Bug::Queen; PIECES];
    let mut i = 0;
    while i < PIECES {
        t[i] = BUG_OF_INDEX[i % PER_SIDE];
        i += 1;
    }
    t
};

/// The bug of a piece.
#[inline(always)]
pub fn bug(p: Piece) -> Bug {
    BUG_OF_PIECE[p as usize]
}

/// The colour (side) of a piece: 0 White, 1 Black.
#[inline(always)]
pub fn colour(p: Piece) -> usize {
    (p as usize >= PER_SIDE) as usize
}

/// The piece of `side` with `bug` and 1-based `number` (0 or 1 for single
/// bugs).
pub fn piece_of(side: usize, b: Bug, number: usize) -> Option<Piece> {
    let n = number.max(1);
    if n > b.count() {
        return None;
    }
    Some((side * PER_SIDE + b.first_index() + n - 1) as Piece)
}

/// The name of a piece: `wQ`, `bS2`, `wM`.
pub fn piece_name(p: Piece) -> String {
    let i = p as usize % PER_SIDE;
    let c = if colour(p) == 0 { 'w' } else { 'b' };
    match NUMBER_OF_INDEX[i] {
        0 => format!("{c}{}", BUG_OF_INDEX[i].letter()),
        n => format!("{c}{}{n}", BUG_OF_INDEX[i].letter()),
    }
}

/// Parses a piece name leniently (case of the letters); a number is
/// required for bugs that come in several, optional (`1`) otherwise.
pub fn parse_piece(s: &str) -> Result<Piece, String> {
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
    let rest: String = ch.collect();
    let number = if rest.is_empty() {
        if b.count() > 1 {
            return Err(format!("'{s}' needs a number (1..{}) after the bug letter", b.count()));
        }
        1
    } else {
        match rest.parse::<usize>() {
            Ok(n) if (1..=b.count()).contains(&n) && rest.len() == 1 => n,
            _ => return Err(format!("'{s}' is not a piece: {} has numbers 1..{}", b.letter(), b.count())),
        }
    };
    piece_of(side, b, number).ok_or_else(|| format!("'{s}' is not a piece"))
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

    #[test]
    fn names_round_trip() {
        for p in 0..PIECES as Piece {
            assert_eq!(parse_piece(&piece_name(p)), Ok(p));
        }
        assert_eq!(piece_name(0), "wQ");
        assert_eq!(piece_name(14 + 2), "bS2");
        assert_eq!(parse_piece("BA3").map(piece_name), Ok("bA3".to_string()));
        assert_eq!(parse_piece("wq1").map(piece_name), Ok("wQ".to_string()));
        assert!(parse_piece("wS").is_err());
        assert!(parse_piece("wS3").is_err());
        assert!(parse_piece("xQ").is_err());
        assert!(parse_piece("wX").is_err());
        assert!(parse_piece("").is_err());
        assert!(parse_piece("wS11").is_err());
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
