//! The rule variant of a Mastermind game and its game type grammar.
//!
//! Grammar (case-insensitive, parts after `Mastermind` in any order, each
//! introduced by `+`):
//!
//! ```text
//! Mastermind[+PxS][+digits|+letters|+colours][+blanks][+norepeat][+rowsN]
//! ```
//!
//! `P` = code length 1..8 (default 4), `S` = number of symbols 2..10
//! (default 6, not counting the blank), `rowsN` = number of rows 1..50
//! (default 10). `blanks` adds the empty hole as one more symbol;
//! `norepeat` forbids a symbol twice in a code (Bulls and Cows:
//! `Mastermind+4x10+norepeat`). The canonical form prints only what differs
//! from the default, in the order above (`Mastermind+5x8`,
//! `Mastermind+letters+blanks+rows12`).

use std::fmt;
use std::str::FromStr;

/// How symbols are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// `1`..`9`, and `0` for the tenth symbol.
    Digits,
    /// `A`..`J`.
    Letters,
    /// Colour initials `R G B Y O P W K C M` (Red, Green, Blue, Yellow,
    /// Orange, Purple, White, blacK, Cyan, Magenta).
    Colours,
}

/// Colour names in symbol order; the canonical letter is given separately
/// because Black is written `K`.
pub const COLOUR_NAMES: [&str; 10] =
    ["Red", "Green", "Blue", "Yellow", "Orange", "Purple", "White", "Black", "Cyan", "Magenta"];
const COLOUR_LETTERS: [u8; 10] = *b"RGBYOPWKCM";

/// The blank (empty hole) as written in codes.
pub const BLANK_CHAR: char = '_';

/// The parameters of one Mastermind variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    /// Code length (pegs per row), 1..=8.
    pub pegs: u8,
    /// Symbols (colours), 2..=10, not counting the blank.
    pub colours: u8,
    pub style: Style,
    /// The empty hole is one more symbol (the last one).
    pub blanks: bool,
    /// A symbol may occur more than once in a code.
    pub repeats: bool,
    /// Number of rows (guesses) the codebreaker has, 1..=50.
    pub rows: u8,
}

/// Why a game type string is not a valid Mastermind variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

impl Default for Spec {
    fn default() -> Self {
        Spec { pegs: 4, colours: 6, style: Style::Digits, blanks: false, repeats: true, rows: 10 }
    }
}

impl Spec {
    /// A variant with default style and rows.
    pub fn new(pegs: u8, colours: u8) -> Result<Spec, SpecError> {
        Spec { pegs, colours, ..Spec::default() }.checked()
    }

    /// Checks the ranges.
    pub fn checked(self) -> Result<Spec, SpecError> {
        if !(1..=8).contains(&self.pegs) {
            return Err(SpecError(format!("code length {} is not within 1..8", self.pegs)));
        }
        if !(2..=10).contains(&self.colours) {
            return Err(SpecError(format!("{} symbols is not within 2..10", self.colours)));
        }
        if !(1..=50).contains(&self.rows) {
            return Err(SpecError(format!("{} rows is not within 1..50", self.rows)));
        }
        if !self.repeats && self.pegs > self.symbols() {
            return Err(SpecError(format!(
                "no code of {} pegs without repeats over {} symbols",
                self.pegs,
                self.symbols()
            )));
        }
        Ok(self)
    }

    /// Number of symbols a peg can take, the blank included.
    pub fn symbols(&self) -> u8 {
        self.colours + self.blanks as u8
    }

    /// Number of codes.
    pub fn code_count(&self) -> u64 {
        let (p, n) = (self.pegs as u64, self.symbols() as u64);
        if self.repeats { n.pow(p as u32) } else { (n - p + 1..=n).product() }
    }

    /// The text of symbol `k` (0-based).
    pub fn symbol_char(&self, k: u8) -> char {
        if self.blanks && k == self.colours {
            return BLANK_CHAR;
        }
        match self.style {
            Style::Digits => {
                if k == 9 {
                    '0'
                } else {
                    (b'1' + k) as char
                }
            }
            Style::Letters => (b'A' + k) as char,
            Style::Colours => COLOUR_LETTERS[k as usize] as char,
        }
    }

    /// The symbol written as `c`, if any.
    pub fn symbol_of_char(&self, c: char) -> Option<u8> {
        if self.blanks && matches!(c, '_' | '.' | '-') {
            return Some(self.colours);
        }
        let c = c.to_ascii_uppercase();
        let k = match self.style {
            Style::Digits => match c {
                '1'..='9' => c as u8 - b'1',
                '0' => 9,
                _ => return None,
            },
            Style::Letters if c.is_ascii_uppercase() => c as u8 - b'A',
            Style::Letters => return None,
            Style::Colours => COLOUR_LETTERS.iter().position(|&l| l as char == c)? as u8,
        };
        (k < self.colours).then_some(k)
    }

    /// A name of symbol `k` for people (colour name, or its character).
    pub fn symbol_name(&self, k: u8) -> String {
        if self.blanks && k == self.colours {
            return "blank".to_string();
        }
        match self.style {
            Style::Colours => COLOUR_NAMES[k as usize].to_string(),
            _ => self.symbol_char(k).to_string(),
        }
    }

    /// Number of feedback values `black * (pegs + 1) + white` (some unused).
    pub fn feedback_slots(&self) -> usize {
        (self.pegs as usize + 1) * (self.pegs as usize + 1)
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Mastermind")?;
        if (self.pegs, self.colours) != (4, 6) {
            write!(f, "+{}x{}", self.pegs, self.colours)?;
        }
        match self.style {
            Style::Digits => {}
            Style::Letters => f.write_str("+letters")?,
            Style::Colours => f.write_str("+colours")?,
        }
        if self.blanks {
            f.write_str("+blanks")?;
        }
        if !self.repeats {
            f.write_str("+norepeat")?;
        }
        if self.rows != 10 {
            write!(f, "+rows{}", self.rows)?;
        }
        Ok(())
    }
}

fn small_number(s: &str, what: &str) -> Result<u8, SpecError> {
    if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SpecError(format!("bad {what} '{s}'")));
    }
    s.parse().map_err(|_| SpecError(format!("bad {what} '{s}'")))
}

impl FromStr for Spec {
    type Err = SpecError;

    /// Parses the whole game type string, `Mastermind` included.
    fn from_str(s: &str) -> Result<Spec, SpecError> {
        let lower = s.trim().to_ascii_lowercase();
        let rest = lower
            .strip_prefix("mastermind")
            .ok_or_else(|| SpecError(format!("'{s}' is not a Mastermind game type")))?;
        let mut spec = Spec::default();
        if rest.is_empty() {
            return Ok(spec);
        }
        let rest = rest
            .strip_prefix('+')
            .ok_or_else(|| SpecError(format!("expected '+' after Mastermind in '{s}'")))?;
        for part in rest.split('+') {
            match part {
                "digits" => spec.style = Style::Digits,
                "letters" => spec.style = Style::Letters,
                "colours" | "colors" => spec.style = Style::Colours,
                "blanks" | "blank" => spec.blanks = true,
                "norepeat" | "norepeats" => spec.repeats = false,
                "repeat" | "repeats" => spec.repeats = true,
                _ => {
                    if let Some(n) = part.strip_prefix("rows") {
                        spec.rows = small_number(n, "number of rows")?;
                    } else if let Some((p, c)) = part.split_once('x') {
                        spec.pegs = small_number(p, "code length")?;
                        spec.colours = small_number(c, "number of symbols")?;
                    } else {
                        return Err(SpecError(format!(
                            "unknown Mastermind part '{part}' (expected PxS, digits, letters, colours, blanks, norepeat or rowsN)"
                        )));
                    }
                }
            }
        }
        spec.checked()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Spec, SpecError> {
        s.parse()
    }

    #[test]
    fn defaults_and_canonical_printing() {
        let d = parse("mastermind").unwrap();
        assert_eq!(d, Spec::default());
        assert_eq!(d.to_string(), "Mastermind");
        assert_eq!(d.code_count(), 1296);
        let s = parse("Mastermind+5x8").unwrap();
        assert_eq!((s.pegs, s.colours, s.rows), (5, 8, 10));
        assert_eq!(s.to_string(), "Mastermind+5x8");
        let t = parse("MASTERMIND+rows12+NoRepeat+4x10+blanks+letters").unwrap();
        assert_eq!(t.to_string(), "Mastermind+4x10+letters+blanks+norepeat+rows12");
        assert_eq!(parse(&t.to_string()).unwrap(), t);
        assert_eq!(parse("Mastermind+4x6+digits+rows10").unwrap().to_string(), "Mastermind");
        assert_eq!(parse("Mastermind+4x10+norepeat").unwrap().code_count(), 5040);
        assert_eq!(parse("Mastermind+blanks").unwrap().code_count(), 2401);
    }

    #[test]
    fn rejects_bad_types() {
        for bad in [
            "Mastermind+9x6",
            "Mastermind+0x6",
            "Mastermind+4x11",
            "Mastermind+4x1",
            "Mastermind+rows0",
            "Mastermind+rows51",
            "Mastermind+5x4+norepeat",
            "Mastermind+4xx",
            "Mastermind+x",
            "Mastermind+purple",
            "Mastermind5x8",
            "Mastermind+",
            "Mastermind+4x99999999999",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse("Connect4").is_err());
    }

    #[test]
    fn symbols() {
        let d = Spec::default();
        assert_eq!(d.symbol_char(0), '1');
        assert_eq!(d.symbol_of_char('6'), Some(5));
        assert_eq!(d.symbol_of_char('7'), None);
        let ten = parse("Mastermind+4x10").unwrap();
        assert_eq!(ten.symbol_char(9), '0');
        assert_eq!(ten.symbol_of_char('0'), Some(9));
        let c = parse("Mastermind+colours+blanks").unwrap();
        assert_eq!(c.symbol_char(2), 'B');
        assert_eq!(c.symbol_of_char('y'), Some(3));
        assert_eq!(c.symbol_of_char('_'), Some(6));
        assert_eq!(c.symbol_name(0), "Red");
        assert_eq!(c.symbol_of_char('K'), None, "black is the 8th colour, not in 6");
    }
}
