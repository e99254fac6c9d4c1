//! Codes and feedbacks: the two kinds of move, their notation and the fast
//! scorer.
//!
//! A [`Code`] packs one symbol (0-based, the blank being the last symbol)
//! per 4-bit nibble, the first peg in the most significant used nibble, so
//! that numeric order is the lexicographic order of the written codes. Its
//! text depends on the variant (digits, letters or colours), so codes are
//! parsed and printed through [`Spec::parse_code`] and [`Spec::code_text`]
//! rather than `FromStr`/`Display`. A [`Feedback`] is written `2B1W`
//! (black = right symbol in the right place, white = right symbol in the
//! wrong place) and implements `FromStr`/`Display`.

use std::fmt;
use std::str::FromStr;

use super::spec::{COLOUR_NAMES, Spec};

/// A code of up to 8 pegs, packed in nibbles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Code(pub u32);

impl Code {
    /// Packs `pegs` (symbols, first peg first).
    pub fn from_pegs(pegs: &[u8]) -> Code {
        Code(pegs.iter().fold(0u32, |acc, &s| (acc << 4) | s as u32))
    }

    /// Symbol of peg `i` of a code of `len` pegs.
    #[inline]
    pub fn peg(self, len: u8, i: u8) -> u8 {
        ((self.0 >> (4 * (len - 1 - i) as u32)) & 15) as u8
    }

    /// The symbols, first peg first.
    pub fn pegs(self, len: u8) -> Vec<u8> {
        (0..len).map(|i| self.peg(len, i)).collect()
    }

    /// Bit set of the symbols the code holds.
    pub fn symbol_set(self, len: u8) -> u16 {
        (0..len).fold(0u16, |m, i| m | 1 << self.peg(len, i))
    }
}

/// Why a code text is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeError {
    /// Not the right number of pegs.
    Length { expected: u8, found: usize },
    /// A character or name that is no symbol of this variant.
    Symbol(String),
    /// The variant forbids repeats and the code repeats a symbol.
    Repeat(String),
}

impl fmt::Display for CodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodeError::Length { expected, found } => {
                write!(f, "a code has {expected} pegs, not {found}")
            }
            CodeError::Symbol(s) => write!(f, "'{s}' is not a symbol of this game"),
            CodeError::Repeat(s) => write!(f, "symbol '{s}' repeated, and this game has no repeats"),
        }
    }
}

impl std::error::Error for CodeError {}

/// A code written in a variant's notation (see [`Spec::code_text`]).
pub struct CodeText<'a>(&'a Spec, Code);

impl fmt::Display for CodeText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in 0..self.0.pegs {
            write!(f, "{}", self.0.symbol_char(self.1.peg(self.0.pegs, i)))?;
        }
        Ok(())
    }
}

impl Spec {
    /// The canonical text of `code` (one character per peg).
    pub fn code_text(&self, code: Code) -> CodeText<'_> {
        CodeText(self, code)
    }

    /// Parses a code: one character per peg (`1123`, `AABC`, `RRGB`,
    /// `12_4` with blanks, where `.` and `-` also mean a blank), or pegs
    /// separated by `,`, colours then by name too (`red,red,green,blue`).
    /// Case-insensitive.
    pub fn parse_code(&self, s: &str) -> Result<Code, CodeError> {
        let t = s.trim();
        let mut pegs = Vec::with_capacity(8);
        if t.contains(',') {
            for name in t.split(',').map(str::trim) {
                let k = (0..self.colours)
                    .find(|&k| COLOUR_NAMES[k as usize].eq_ignore_ascii_case(name))
                    .filter(|_| self.style == super::spec::Style::Colours)
                    .or_else(|| (self.blanks && name.eq_ignore_ascii_case("blank")).then_some(self.colours))
                    .or_else(|| {
                        let mut cs = name.chars();
                        match (cs.next(), cs.next()) {
                            (Some(c), None) => self.symbol_of_char(c),
                            _ => None,
                        }
                    })
                    .ok_or_else(|| CodeError::Symbol(name.to_string()))?;
                pegs.push(k);
            }
        } else {
            for c in t.chars() {
                pegs.push(self.symbol_of_char(c).ok_or_else(|| CodeError::Symbol(c.to_string()))?);
            }
        }
        if pegs.len() != self.pegs as usize {
            return Err(CodeError::Length { expected: self.pegs, found: pegs.len() });
        }
        if !self.repeats {
            for (i, &a) in pegs.iter().enumerate() {
                if pegs[..i].contains(&a) {
                    return Err(CodeError::Repeat(self.symbol_char(a).to_string()));
                }
            }
        }
        Ok(Code::from_pegs(&pegs))
    }

    /// True if `code` is a code of this variant (range, repeats).
    pub fn is_code(&self, code: Code) -> bool {
        if self.pegs < 8 && code.0 >> (4 * self.pegs as u32) != 0 {
            return false;
        }
        let mut seen = 0u16;
        for i in 0..self.pegs {
            let k = code.peg(self.pegs, i);
            if k >= self.symbols() || (!self.repeats && seen & 1 << k != 0) {
                return false;
            }
            seen |= 1 << k;
        }
        true
    }

    /// Every code, in increasing order.
    pub fn all_codes(&self) -> Vec<Code> {
        let mut out = Vec::with_capacity(self.code_count().min(1 << 24) as usize);
        let mut pegs = vec![0u8; self.pegs as usize];
        self.all_codes_rec(0, 0, &mut pegs, &mut out);
        out
    }

    fn all_codes_rec(&self, i: usize, used: u16, pegs: &mut [u8], out: &mut Vec<Code>) {
        if i == pegs.len() {
            out.push(Code::from_pegs(pegs));
            return;
        }
        for k in 0..self.symbols() {
            if !self.repeats && used & 1 << k != 0 {
                continue;
            }
            pegs[i] = k;
            self.all_codes_rec(i + 1, used | 1 << k, pegs, out);
        }
    }

    /// The multiset of symbols of `code` in unary: symbol `k` owns bits
    /// `k*pegs ..`, of which the first `count(k)` are set; so the number of
    /// symbols two codes share (black + white) is the popcount of the AND.
    #[inline]
    pub fn multiset(&self, code: Code) -> u128 {
        let p = self.pegs as u32;
        let mut m = 0u128;
        for i in 0..self.pegs {
            let k = code.peg(self.pegs, i) as u32;
            let mut bit = k * p;
            while m & 1 << bit != 0 {
                bit += 1;
            }
            m |= 1 << bit;
        }
        m
    }

    /// The feedback of `guess` against `secret` (symmetric).
    pub fn score(&self, guess: Code, secret: Code) -> Feedback {
        let s = score_packed(self.pegs, guess.0, self.multiset(guess), secret.0, self.multiset(secret));
        Feedback::from_index(self.pegs, s)
    }

    /// The feedback of the winning guess.
    pub fn win(&self) -> Feedback {
        Feedback { black: self.pegs, white: 0 }
    }

    /// True if some pair of codes of this variant can give `f` at all
    /// (without looking at a particular guess).
    pub fn feedback_possible(&self, f: Feedback) -> bool {
        let p = self.pegs;
        f.black as u16 + f.white as u16 <= p as u16 && !(f.black == p - 1 && f.white == 1)
    }
}

/// Fast scorer: `(black * (pegs + 1) + white)` of two packed codes with
/// their multisets. Blacks are the zero nibbles of the XOR, black + white
/// the popcount of the multisets' AND.
#[inline(always)]
pub fn score_packed(pegs: u8, a: u32, am: u128, b: u32, bm: u128) -> u8 {
    let black = pegs - mismatches(a, b);
    let total = (am & bm).count_ones() as u8;
    black * (pegs + 1) + total - black
}

/// Pegs where two packed codes differ: one flag bit per nibble, summed
/// by a multiplication (no popcount instruction needed).
#[inline(always)]
pub fn mismatches(a: u32, b: u32) -> u8 {
    let mut x = a ^ b;
    x |= x >> 1;
    x |= x >> 2;
    ((((x & 0x1111_1111) as u64).wrapping_mul(0x1111_1111) >> 28) & 0xF) as u8
}

/// Black and white counts of a guess.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Feedback {
    pub black: u8,
    pub white: u8,
}

impl Feedback {
    /// The dense index `black * (pegs + 1) + white`.
    pub fn index(self, pegs: u8) -> u8 {
        self.black * (pegs + 1) + self.white
    }

    pub fn from_index(pegs: u8, i: u8) -> Feedback {
        Feedback { black: i / (pegs + 1), white: i % (pegs + 1) }
    }
}

/// Why a feedback text is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedbackError {
    Syntax(String),
}

impl fmt::Display for FeedbackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FeedbackError::Syntax(s) => {
                write!(f, "'{s}' is not a feedback (write black and white counts as 2B1W, 4B, 1W or 0B0W)")
            }
        }
    }
}

impl std::error::Error for FeedbackError {}

impl fmt::Display for Feedback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B{}W", self.black, self.white)
    }
}

impl FromStr for Feedback {
    type Err = FeedbackError;

    /// Accepts `2B1W` (canonical), `2b1w`, `2B`, `1W`, `0`, `-`, `none`,
    /// and peg strings `BBW` (one letter per key peg).
    fn from_str(s: &str) -> Result<Feedback, FeedbackError> {
        let t = s.trim().to_ascii_uppercase();
        let err = || FeedbackError::Syntax(s.trim().to_string());
        if t == "0" || t == "-" || t == "NONE" {
            return Ok(Feedback { black: 0, white: 0 });
        }
        if t.is_empty() || t.len() > 12 {
            return Err(err());
        }
        if t.bytes().all(|b| b == b'B' || b == b'W') {
            let black = t.bytes().filter(|&b| b == b'B').count() as u8;
            return Ok(Feedback { black, white: t.len() as u8 - black });
        }
        let (mut black, mut white) = (None, None);
        let mut num = String::new();
        for c in t.chars() {
            match c {
                '0'..='9' => num.push(c),
                'B' | 'W' => {
                    let n: u8 = num.parse().map_err(|_| err())?;
                    num.clear();
                    // Black before white, each at most once.
                    if white.is_some() || (c == 'B' && black.is_some()) {
                        return Err(err());
                    }
                    if c == 'B' {
                        black = Some(n);
                    } else {
                        white = Some(n);
                    }
                }
                _ => return Err(err()),
            }
        }
        if !num.is_empty() || (black.is_none() && white.is_none()) {
            return Err(err());
        }
        Ok(Feedback { black: black.unwrap_or(0), white: white.unwrap_or(0) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> Spec {
        s.parse().unwrap()
    }

    fn fb(s: &Spec, g: &str, c: &str) -> String {
        s.score(s.parse_code(g).unwrap(), s.parse_code(c).unwrap()).to_string()
    }

    #[test]
    fn feedback_hand_checked() {
        let d = spec("Mastermind");
        assert_eq!(fb(&d, "1123", "1234"), "1B2W");
        assert_eq!(fb(&d, "1234", "1123"), "1B2W");
        assert_eq!(fb(&d, "1122", "2211"), "0B4W");
        assert_eq!(fb(&d, "1111", "1234"), "1B0W");
        assert_eq!(fb(&d, "1234", "1111"), "1B0W");
        assert_eq!(fb(&d, "6543", "3456"), "0B4W");
        assert_eq!(fb(&d, "1122", "1212"), "2B2W");
        assert_eq!(fb(&d, "5566", "1234"), "0B0W");
        assert_eq!(fb(&d, "3632", "2336"), "1B3W");
        assert_eq!(fb(&d, "1213", "3111"), "1B2W");
        assert_eq!(fb(&d, "4444", "4444"), "4B0W");
        let l = spec("Mastermind+letters");
        assert_eq!(fb(&l, "EEAA", "ABCD"), "0B1W");
        let b = spec("Mastermind+blanks");
        assert_eq!(fb(&b, "1__2", "_1_2"), "2B2W");
        assert_eq!(fb(&b, "____", "1__3"), "2B0W");
        assert_eq!(fb(&b, "12_4", "1234"), "3B0W");
        let bc = spec("Mastermind+4x10+norepeat");
        assert_eq!(fb(&bc, "1234", "4321"), "0B4W");
        assert_eq!(fb(&bc, "0123", "1290"), "0B3W");
        assert_eq!(fb(&bc, "5678", "5679"), "3B0W");
        let big = spec("Mastermind+8x10");
        assert_eq!(fb(&big, "11223344", "12345678"), "1B3W");
        assert_eq!(fb(&big, "00000000", "00000000"), "8B0W");
        assert_eq!(fb(&big, "90000000", "00000009"), "6B2W");
    }

    #[test]
    fn scorer_matches_definition() {
        // Brute-force definition on a few variants.
        for s in [spec("Mastermind+3x4"), spec("Mastermind+5x3+blanks"), spec("Mastermind+4x5+norepeat")] {
            let codes = s.all_codes();
            assert_eq!(codes.len() as u64, s.code_count());
            for &a in &codes {
                for &b in codes.iter().step_by(7) {
                    let (pa, pb) = (a.pegs(s.pegs), b.pegs(s.pegs));
                    let black = pa.iter().zip(&pb).filter(|(x, y)| x == y).count() as u8;
                    let total: u8 = (0..s.symbols())
                        .map(|k| {
                            let ca = pa.iter().filter(|&&x| x == k).count();
                            let cb = pb.iter().filter(|&&x| x == k).count();
                            ca.min(cb) as u8
                        })
                        .sum();
                    assert_eq!(s.score(a, b), Feedback { black, white: total - black });
                }
            }
        }
    }

    #[test]
    fn code_notation() {
        let d = spec("Mastermind");
        let c = d.parse_code(" 1123 ").unwrap();
        assert_eq!(d.code_text(c).to_string(), "1123");
        assert_eq!(d.parse_code("112"), Err(CodeError::Length { expected: 4, found: 3 }));
        assert_eq!(d.parse_code("1127"), Err(CodeError::Symbol("7".into())));
        assert!(d.parse_code("").is_err());
        let n = spec("Mastermind+norepeat");
        assert_eq!(n.parse_code("1231"), Err(CodeError::Repeat("1".into())));
        let c = spec("Mastermind+colours");
        let x = c.parse_code("red,Red,green,BLUE").unwrap();
        assert_eq!(c.code_text(x).to_string(), "RRGB");
        assert_eq!(c.parse_code("rrgb").unwrap(), x);
        assert!(c.parse_code("red,red,green,black").is_err());
        assert!(d.is_code(Code(0x0123)) && !d.is_code(Code(0x0126)) && !d.is_code(Code(0x10000)));
    }

    #[test]
    fn feedback_notation() {
        let f: Feedback = "2B1W".parse().unwrap();
        assert_eq!(f, Feedback { black: 2, white: 1 });
        assert_eq!("2b1w".parse::<Feedback>().unwrap(), f);
        assert_eq!("BBW".parse::<Feedback>().unwrap(), f);
        assert_eq!("4B".parse::<Feedback>().unwrap().to_string(), "4B0W");
        assert_eq!("3w".parse::<Feedback>().unwrap().to_string(), "0B3W");
        assert_eq!("-".parse::<Feedback>().unwrap().to_string(), "0B0W");
        for bad in ["", "2", "1W2B", "2B2B", "B1", "x", "2B1", "99999B", "2B 1W"] {
            assert!(bad.parse::<Feedback>().is_err(), "{bad}");
        }
    }

    #[test]
    fn structurally_possible_feedbacks() {
        let d = spec("Mastermind");
        let n = (0..=4u8)
            .flat_map(|b| (0..=4u8).map(move |w| Feedback { black: b, white: w }))
            .filter(|&f| d.feedback_possible(f))
            .count();
        assert_eq!(n, 14);
        assert!(!d.feedback_possible(Feedback { black: 3, white: 1 }));
        assert!(!d.feedback_possible("200B200W".parse().unwrap()));
    }
}
