//! The Hive game type: the expansions in play and, as an extension off the
//! eight UHP types, how many pieces of each base bug a side has.
//!
//! Grammar (case-insensitive, no spaces): `Base[+<expansions>][+<counts>]`,
//! where `<expansions>` is some of the letters `M L P` and `<counts>` is a
//! bug letter of `S B G A` followed by its count `0..9`, repeated
//! (`Base+MLP+G1A4`: one grasshopper and four ants a side). The queen is
//! always one (`Q1` may be written, nothing else); mosquito, ladybug and
//! pillbug come one each with their expansion letter. A side has at most
//! [`MAX_PER_SIDE`] pieces and at least one besides the queen. Printed
//! canonically: expansions first, then only the counts that differ from
//! the standard ones, in the order S B G A (`Base+A4G2` prints as
//! `Base+G2A4`, `Base+S2` as `Base`).

use std::fmt;
use std::str::FromStr;

use super::piece::{Bug, Expansions, MAX_OF_BUG, MAX_PER_SIDE, PieceTable};

/// A game type: expansions and piece counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameType {
    pub exp: Expansions,
    /// Pieces of each bug a side has, indexed by `Bug as usize` (the queen
    /// 1; M L P 0 or 1 by the expansions).
    count: [u8; 8],
}

/// Why a text is not a Hive game type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameTypeError {
    /// It does not start with `Base`.
    NotHive(String),
    /// `Base` followed by something other than `+` parts, or an empty part.
    Malformed(String),
    /// A letter that is neither an expansion nor a bug.
    UnknownLetter(char),
    /// An expansion letter given twice.
    RepeatedExpansion(char),
    /// A bug's count given twice.
    RepeatedBug(char),
    /// A bug letter with no count after it.
    MissingCount(char),
    /// A count other than 1 for the queen.
    QueenNotOne(String),
    /// A count for the mosquito, ladybug or pillbug.
    ExpansionCount(char),
    /// A count above [`MAX_OF_BUG`].
    CountOutOfRange(char, String),
    /// More than [`MAX_PER_SIDE`] pieces a side.
    TooManyPieces(usize),
    /// Nothing but the queen.
    OnlyQueen,
}

impl fmt::Display for GameTypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const GRAMMAR: &str = "Base[+MLP][+counts such as S3A4]";
        match self {
            GameTypeError::NotHive(t) => write!(f, "'{t}' is not a Hive game type ({GRAMMAR})"),
            GameTypeError::Malformed(t) => {
                write!(f, "bad Hive game type '{t}': expected {GRAMMAR}, each part after a + and not empty")
            }
            GameTypeError::UnknownLetter(c) => {
                write!(f, "bad Hive game type: unknown letter '{c}' (expansions M L P; counts for S B G A)")
            }
            GameTypeError::RepeatedExpansion(c) => {
                write!(f, "bad Hive game type: expansion '{c}' given twice")
            }
            GameTypeError::RepeatedBug(c) => write!(f, "bad Hive game type: the count of '{c}' given twice"),
            GameTypeError::MissingCount(c) => {
                write!(f, "bad Hive game type: '{c}' needs a count 0..{MAX_OF_BUG} after it (such as {c}3)")
            }
            GameTypeError::QueenNotOne(n) => {
                write!(f, "bad Hive game type: Q{n}: a side always has exactly one queen")
            }
            GameTypeError::ExpansionCount(c) => write!(
                f,
                "bad Hive game type: {c} takes no count: mosquito, ladybug and pillbug come one each with \
                 their expansion letter (Base+{c})"
            ),
            GameTypeError::CountOutOfRange(c, n) => {
                write!(f, "bad Hive game type: {c}{n}: a side has 0..{MAX_OF_BUG} pieces of a bug")
            }
            GameTypeError::TooManyPieces(n) => {
                write!(f, "bad Hive game type: {n} pieces a side, at most {MAX_PER_SIDE} (queen included)")
            }
            GameTypeError::OnlyQueen => write!(
                f,
                "bad Hive game type: a side needs a piece besides the queen (the queen may not be placed on \
                 the first turn)"
            ),
        }
    }
}

impl std::error::Error for GameTypeError {}

impl From<Expansions> for GameType {
    fn from(exp: Expansions) -> GameType {
        let mut count = [0u8; 8];
        for b in Bug::ALL {
            if exp.has(b) {
                count[b as usize] = b.standard_count() as u8;
            }
        }
        GameType { exp, count }
    }
}

impl GameType {
    pub const BASE: GameType = GameType { exp: Expansions::BASE, count: [1, 2, 2, 3, 3, 0, 0, 0] };

    /// The game type with `count` pieces of a base bug (S B G A), checked.
    pub fn with_count(self, b: Bug, count: usize) -> Result<GameType, GameTypeError> {
        let c = b.letter();
        match b {
            Bug::Queen if count != 1 => return Err(GameTypeError::QueenNotOne(count.to_string())),
            Bug::Mosquito | Bug::Ladybug | Bug::Pillbug => return Err(GameTypeError::ExpansionCount(c)),
            _ if count > MAX_OF_BUG => return Err(GameTypeError::CountOutOfRange(c, count.to_string())),
            _ => {}
        }
        let mut t = self;
        t.count[b as usize] = count as u8;
        t.check()?;
        Ok(t)
    }

    /// Pieces of `b` a side has.
    pub fn count(&self, b: Bug) -> usize {
        self.count[b as usize] as usize
    }

    /// Pieces a side has.
    pub fn per_side(&self) -> usize {
        self.count.iter().map(|&c| c as usize).sum()
    }

    /// True for the eight UHP game types (standard counts).
    pub fn is_standard(&self) -> bool {
        *self == GameType::from(self.exp)
    }

    /// The piece table of this game type.
    pub fn table(&self) -> PieceTable {
        PieceTable::new(self.count)
    }

    fn check(&self) -> Result<(), GameTypeError> {
        let n = self.per_side();
        if n > MAX_PER_SIDE {
            return Err(GameTypeError::TooManyPieces(n));
        }
        if n < 2 {
            return Err(GameTypeError::OnlyQueen);
        }
        Ok(())
    }
}

impl fmt::Display for GameType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.exp)?;
        let standard = GameType::from(self.exp);
        let mut first = true;
        for b in [Bug::Spider, Bug::Beetle, Bug::Grasshopper, Bug::Ant] {
            if self.count(b) != standard.count(b) {
                if first {
                    f.write_str("+")?;
                    first = false;
                }
                write!(f, "{}{}", b.letter(), self.count(b))?;
            }
        }
        Ok(())
    }
}

impl FromStr for GameType {
    type Err = GameTypeError;

    fn from_str(s: &str) -> Result<Self, GameTypeError> {
        let t = s.trim();
        let rest = match t.get(..4) {
            Some(p) if p.eq_ignore_ascii_case("base") => &t[4..],
            _ => return Err(GameTypeError::NotHive(t.to_string())),
        };
        if rest.is_empty() {
            return Ok(GameType::BASE);
        }
        let malformed = || GameTypeError::Malformed(t.to_string());
        let parts = rest.strip_prefix('+').ok_or_else(malformed)?;
        let mut exp = Expansions::BASE;
        let mut counts: Vec<(Bug, usize)> = Vec::new();
        for part in parts.split('+') {
            if part.is_empty() {
                return Err(malformed());
            }
            if !part.chars().any(|c| c.is_ascii_digit()) {
                for c in part.chars() {
                    let flag = match c.to_ascii_uppercase() {
                        'M' => &mut exp.mosquito,
                        'L' => &mut exp.ladybug,
                        'P' => &mut exp.pillbug,
                        // A bug letter without digits: a count is missing.
                        u if Bug::from_letter(u).is_some() => return Err(GameTypeError::MissingCount(u)),
                        _ => return Err(GameTypeError::UnknownLetter(c)),
                    };
                    if *flag {
                        return Err(GameTypeError::RepeatedExpansion(c.to_ascii_uppercase()));
                    }
                    *flag = true;
                }
                continue;
            }
            // Counts: letter, digits, letter, digits...
            let mut chars = part.chars().peekable();
            while let Some(c) = chars.next() {
                let u = c.to_ascii_uppercase();
                let b = Bug::from_letter(u).ok_or(GameTypeError::UnknownLetter(c))?;
                if matches!(b, Bug::Mosquito | Bug::Ladybug | Bug::Pillbug) {
                    return Err(GameTypeError::ExpansionCount(u));
                }
                let mut digits = String::new();
                while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(d);
                    chars.next();
                }
                if digits.is_empty() {
                    return Err(GameTypeError::MissingCount(u));
                }
                if counts.iter().any(|&(x, _)| x == b) {
                    return Err(GameTypeError::RepeatedBug(u));
                }
                let n: usize = match digits.parse() {
                    Ok(n) if digits.len() <= 2 => n,
                    _ => usize::MAX,
                };
                match b {
                    Bug::Queen if n != 1 => return Err(GameTypeError::QueenNotOne(digits)),
                    _ if n > MAX_OF_BUG => return Err(GameTypeError::CountOutOfRange(u, digits)),
                    _ => {}
                }
                counts.push((b, n));
            }
        }
        let mut g = GameType::from(exp);
        for (b, n) in counts {
            g.count[b as usize] = n as u8;
        }
        g.check()?;
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<String, GameTypeError> {
        s.parse::<GameType>().map(|t| t.to_string())
    }

    #[test]
    fn standard_types_are_unchanged() {
        for t in Expansions::all_types() {
            let g: GameType = t.parse().unwrap();
            assert!(g.is_standard());
            assert_eq!(g.to_string(), t);
            assert_eq!(g, GameType::from(g.exp));
        }
        assert_eq!(parse("base+plm"), Ok("Base+MLP".into()));
        assert_eq!(parse("BASE"), Ok("Base".into()));
        assert_eq!(GameType::BASE, GameType::from(Expansions::BASE));
    }

    #[test]
    fn counts_round_trip_canonically() {
        assert_eq!(parse("Base+MLP+A4G1"), Ok("Base+MLP+G1A4".into()));
        assert_eq!(parse("base+a4+g1+mlp"), Ok("Base+MLP+G1A4".into()));
        assert_eq!(parse("Base+S0"), Ok("Base+S0".into()));
        assert_eq!(parse("Base+S2B2G3A3Q1"), Ok("Base".into()));
        assert_eq!(parse("Base+b5"), Ok("Base+B5".into()));
        assert_eq!(parse(" Base+M+S1 "), Ok("Base+M+S1".into()));
        for t in ["Base+S0", "Base+MLP+G1A4", "Base+B5", "Base+P+S1B3G0A9", "Base+L+A0"] {
            let g: GameType = t.parse().unwrap();
            assert_eq!(g.to_string(), t);
            assert!(!g.is_standard());
            assert_eq!(g.to_string().parse::<GameType>(), Ok(g));
        }
        let g: GameType = "Base+MLP+G1A4".parse().unwrap();
        assert_eq!((g.count(Bug::Ant), g.count(Bug::Grasshopper), g.count(Bug::Pillbug)), (4, 1, 1));
        assert_eq!(g.per_side(), 13);
        assert_eq!(g.table().per_side(), 13);
    }

    #[test]
    fn bad_types_are_refused_with_the_reason() {
        use GameTypeError::*;
        let err = |s: &str| s.parse::<GameType>().unwrap_err();
        assert_eq!(err("Hive"), NotHive("Hive".into()));
        assert_eq!(err("Bas"), NotHive("Bas".into()));
        assert_eq!(err("Base+"), Malformed("Base+".into()));
        assert_eq!(err("Base+M+"), Malformed("Base+M+".into()));
        assert_eq!(err("Base++M"), Malformed("Base++M".into()));
        assert_eq!(err("BaseM"), Malformed("BaseM".into()));
        assert_eq!(err("Base+X"), UnknownLetter('X'));
        assert_eq!(err("Base+A3x1"), UnknownLetter('x'));
        assert_eq!(err("Base+MM"), RepeatedExpansion('M'));
        assert_eq!(err("Base+M+m"), RepeatedExpansion('M'));
        assert_eq!(err("Base+A2a3"), RepeatedBug('A'));
        assert_eq!(err("Base+A2+A3"), RepeatedBug('A'));
        assert_eq!(err("Base+A"), MissingCount('A'));
        assert_eq!(err("Base+A3G"), MissingCount('G'));
        assert_eq!(err("Base+Q2"), QueenNotOne("2".into()));
        assert_eq!(err("Base+Q0"), QueenNotOne("0".into()));
        assert_eq!(err("Base+M1"), ExpansionCount('M'));
        assert_eq!(err("Base+P0"), ExpansionCount('P'));
        assert_eq!(err("Base+ML1"), ExpansionCount('M'));
        assert_eq!(err("Base+A3L"), ExpansionCount('L'));
        assert_eq!(err("Base+A10"), CountOutOfRange('A', "10".into()));
        assert_eq!(err("Base+A99999999999999999999"), CountOutOfRange('A', "99999999999999999999".into()));
        assert_eq!(err("Base+MLP+A4G4"), TooManyPieces(16));
        assert_eq!(err("Base+A9B9"), TooManyPieces(1 + 2 + 9 + 3 + 9));
        assert_eq!(err("Base+S0B0G0A0"), OnlyQueen);
        assert!("Base+L+S0B0G0A0".parse::<GameType>().is_ok());
        for e in [err("Base+Q2"), err("Base+M1"), err("Base+A")] {
            assert!(e.to_string().starts_with("bad Hive game type"), "{e}");
        }
        assert_eq!(GameType::BASE.with_count(Bug::Ant, 12), Err(CountOutOfRange('A', "12".into())));
        assert_eq!(GameType::BASE.with_count(Bug::Ant, 4).map(|t| t.to_string()), Ok("Base+A4".into()));
    }
}
