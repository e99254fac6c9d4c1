//! Strategy trees: a whole codebreaking strategy, its text form, and an
//! evaluator that shares no code with the searches that build trees.
//!
//! The text grammar is the one of the public "Mastermind strategy" code
//! challenge:
//!
//! ```text
//! strategy = guess | '{' guess ':' '{' reply ':' strategy (',' reply ':' strategy)* '}' '}'
//! ```
//!
//! A guess is written with letters, `A` for the first symbol (on a variant
//! with blanks the blank is the letter after the last colour); a reply is
//! two digits, black then white (`10`); the winning reply is implied (a
//! guess alone wins, and a guess that may be the secret wins on it).
//! Example for 2 pegs x 3 colours, total 21:
//! `{AB:{10:{AC:{10:AA,01:CB,00:BB}},02:BA,01:{BC:{01:CA}},00:CC}}`.

use std::fmt::Write as _;

use super::code::{Code, Feedback};

/// A strategy: the guess to play, and what to do after each feedback
/// other than the win (none: the guess is the secret).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strategy {
    pub guess: Code,
    pub children: Vec<(Feedback, Strategy)>,
}

impl Strategy {
    /// The guess that is the secret.
    pub fn leaf(guess: Code) -> Strategy {
        Strategy { guess, children: Vec::new() }
    }

    pub fn node(guess: Code, children: Vec<(Feedback, Strategy)>) -> Strategy {
        Strategy { guess, children }
    }

    /// The branch for `feedback`, if any.
    pub fn child(&self, feedback: Feedback) -> Option<&Strategy> {
        self.children.iter().find(|(f, _)| *f == feedback).map(|(_, s)| s)
    }

    /// The text form, codes of `pegs` pegs in letters; replies in
    /// decreasing (black, white) order.
    pub fn to_text(&self, pegs: u8) -> String {
        let mut out = String::new();
        self.write(pegs, &mut out);
        out
    }

    fn write(&self, pegs: u8, out: &mut String) {
        let code = |out: &mut String, c: Code| {
            for i in 0..pegs {
                out.push((b'A' + c.peg(pegs, i)) as char);
            }
        };
        if self.children.is_empty() {
            code(out, self.guess);
            return;
        }
        out.push('{');
        code(out, self.guess);
        out.push_str(":{");
        let mut kids: Vec<&(Feedback, Strategy)> = self.children.iter().collect();
        kids.sort_by_key(|k| std::cmp::Reverse(k.0));
        for (i, (f, s)) in kids.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{}{}:", f.black, f.white);
            s.write(pegs, out);
        }
        out.push_str("}}");
    }

    /// Parses the text form (whitespace ignored) for codes of `pegs` pegs
    /// over `symbols` symbols.
    pub fn parse(text: &str, pegs: u8, symbols: u8) -> Result<Strategy, String> {
        let bytes: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        let mut p = Parser { s: &bytes, i: 0, pegs, symbols, depth: 0 };
        let t = p.strategy()?;
        if p.i != bytes.len() {
            return Err(format!("unexpected '{}' at {}", bytes[p.i] as char, p.i));
        }
        Ok(t)
    }

    /// Number of nodes (guesses) in the tree.
    pub fn size(&self) -> usize {
        1 + self.children.iter().map(|(_, s)| s.size()).sum::<usize>()
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    pegs: u8,
    symbols: u8,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        match self.peek() {
            Some(x) if x == b => {
                self.i += 1;
                Ok(())
            }
            Some(x) => Err(format!("expected '{}' at {}, found '{}'", b as char, self.i, x as char)),
            None => Err(format!("expected '{}' at the end", b as char)),
        }
    }

    fn code(&mut self) -> Result<Code, String> {
        let mut pegs = Vec::with_capacity(self.pegs as usize);
        for _ in 0..self.pegs {
            match self.peek() {
                Some(b) if b.is_ascii_uppercase() && b - b'A' < self.symbols => {
                    pegs.push(b - b'A');
                    self.i += 1;
                }
                _ => return Err(format!("expected a code of {} letters at {}", self.pegs, self.i)),
            }
        }
        Ok(Code::from_pegs(&pegs))
    }

    fn strategy(&mut self) -> Result<Strategy, String> {
        if self.peek() != Some(b'{') {
            return Ok(Strategy::leaf(self.code()?));
        }
        self.depth += 1;
        if self.depth > 64 {
            return Err("strategy nested too deep".to_string());
        }
        self.expect(b'{')?;
        let guess = self.code()?;
        self.expect(b':')?;
        self.expect(b'{')?;
        let mut children = Vec::new();
        loop {
            let mut digit = || match self.peek() {
                Some(d @ b'0'..=b'9') => {
                    self.i += 1;
                    Ok(d - b'0')
                }
                _ => Err(format!("expected a reply digit at {}", self.i)),
            };
            let f = Feedback { black: digit()?, white: digit()? };
            self.expect(b':')?;
            let s = self.strategy()?;
            children.push((f, s));
            match self.peek() {
                Some(b',') => self.i += 1,
                _ => break,
            }
        }
        self.expect(b'}')?;
        self.expect(b'}')?;
        self.depth -= 1;
        Ok(Strategy::node(guess, children))
    }
}

/// The score of a strategy over every secret, by [`evaluate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// Sum over the secrets of the guesses used (the winning one counted).
    pub total: u64,
    /// Most guesses on any secret.
    pub max: usize,
    /// `distribution[k]`: secrets found with k + 1 guesses.
    pub distribution: Vec<u64>,
    pub secrets: u64,
}

impl Evaluation {
    pub fn average(&self) -> f64 {
        self.total as f64 / self.secrets.max(1) as f64
    }

    /// `total=... average=... max=... distribution=a/b/c`.
    pub fn line(&self) -> String {
        let d: Vec<String> = self.distribution.iter().map(|x| x.to_string()).collect();
        format!(
            "secrets={} total={} average={:.4} max={} distribution={}",
            self.secrets,
            self.total,
            self.average(),
            self.max,
            d.join("/")
        )
    }
}

/// Plays `strategy` against every secret of `pegs` pegs over `symbols`
/// symbols (with or without repeats) and scores it, checking it on the
/// way: every guess a code of the variant, each reply a feedback that
/// some secret gives, no reply twice at a node, every secret found within
/// `max_guesses`. Independent of the searches: its own enumeration of the
/// codes and its own scoring, from the definition of black and white.
pub fn evaluate(
    strategy: &Strategy,
    pegs: u8,
    symbols: u8,
    repeats: bool,
    max_guesses: usize,
) -> Result<Evaluation, String> {
    check(strategy, pegs, symbols, repeats)?;
    let mut e = Evaluation { total: 0, max: 0, distribution: Vec::new(), secrets: 0 };
    let mut secret = vec![0u8; pegs as usize];
    loop {
        let distinct = (0..secret.len()).all(|i| !secret[..i].contains(&secret[i]));
        if repeats || distinct {
            let n = play(strategy, &secret, max_guesses)?;
            e.secrets += 1;
            e.total += n as u64;
            e.max = e.max.max(n);
            if e.distribution.len() < n {
                e.distribution.resize(n, 0);
            }
            e.distribution[n - 1] += 1;
        }
        // The next secret, last peg fastest.
        let mut i = secret.len();
        loop {
            if i == 0 {
                return Ok(e);
            }
            i -= 1;
            secret[i] += 1;
            if secret[i] < symbols {
                break;
            }
            secret[i] = 0;
        }
    }
}

fn pegs_of(c: Code, pegs: u8) -> Vec<u8> {
    (0..pegs).map(|i| ((c.0 >> (4 * (pegs - 1 - i) as u32)) & 15) as u8).collect()
}

/// Black and white by the definition: blacks are equal positions; whites
/// the common symbols, each counted min(times in a, times in b), minus the
/// blacks.
fn feedback(a: &[u8], b: &[u8]) -> (u8, u8) {
    let black = a.iter().zip(b).filter(|(x, y)| x == y).count();
    let mut common = 0;
    for k in 0..16u8 {
        let ca = a.iter().filter(|&&x| x == k).count();
        let cb = b.iter().filter(|&&x| x == k).count();
        common += ca.min(cb);
    }
    (black as u8, (common - black) as u8)
}

fn check(s: &Strategy, pegs: u8, symbols: u8, repeats: bool) -> Result<(), String> {
    let g = pegs_of(s.guess, pegs);
    if s.guess.0 >> (4 * pegs as u32) != 0 || g.iter().any(|&k| k >= symbols) {
        return Err(format!("guess {:?} is not a code of the variant", g));
    }
    if !repeats && (0..g.len()).any(|i| g[..i].contains(&g[i])) {
        return Err(format!("guess {:?} repeats a symbol", g));
    }
    for (i, (f, child)) in s.children.iter().enumerate() {
        if f.black as usize + f.white as usize > pegs as usize || f.black == pegs {
            return Err(format!("reply {}{} cannot follow a guess of {pegs} pegs", f.black, f.white));
        }
        if s.children[..i].iter().any(|(h, _)| h == f) {
            return Err(format!("reply {}{} twice after one guess", f.black, f.white));
        }
        check(child, pegs, symbols, repeats)?;
    }
    Ok(())
}

/// The number of guesses `s` uses on `secret`.
fn play(s: &Strategy, secret: &[u8], max_guesses: usize) -> Result<usize, String> {
    let mut node = s;
    let mut n = 0;
    loop {
        n += 1;
        if n > max_guesses {
            return Err(format!("secret {secret:?} not found within {max_guesses} guesses"));
        }
        let g = pegs_of(node.guess, secret.len() as u8);
        let (black, white) = feedback(&g, secret);
        if black as usize == secret.len() {
            return Ok(n);
        }
        match node.children.iter().find(|(f, _)| f.black == black && f.white == white) {
            Some((_, next)) => node = next,
            None => {
                return Err(format!(
                    "secret {secret:?}: no branch for reply {black}{white} after guess {g:?}"
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "{AB:{10:{AC:{10:AA,01:CB,00:BB}},02:BA,01:{BC:{01:CA}},00:CC}}";

    #[test]
    fn the_challenge_example_scores_21() {
        let t = Strategy::parse(EXAMPLE, 2, 3).unwrap();
        assert_eq!(t.to_text(2), EXAMPLE);
        let e = evaluate(&t, 2, 3, true, 10).unwrap();
        assert_eq!((e.total, e.max, e.secrets), (21, 3, 9));
        assert_eq!(e.distribution, vec![1, 4, 4]);
    }

    #[test]
    fn bad_trees_are_refused() {
        // A secret without a branch.
        let t = Strategy::parse("{AB:{10:{AC:{10:AA,01:CB,00:BB}},02:BA,00:CC}}", 2, 3).unwrap();
        assert!(evaluate(&t, 2, 3, true, 10).unwrap_err().contains("no branch"));
        // Too deep for the limit.
        let t = Strategy::parse(EXAMPLE, 2, 3).unwrap();
        assert!(evaluate(&t, 2, 3, true, 2).is_err());
        // A symbol past the variant's, a duplicate reply, bad syntax.
        assert!(Strategy::parse("{AD:{10:AA}}", 2, 3).is_err());
        let t = Strategy::parse("{AB:{10:AA,10:AC}}", 2, 3).unwrap();
        assert!(evaluate(&t, 2, 3, true, 10).unwrap_err().contains("twice"));
        for bad in ["", "{AB:{10:AA}", "{AB:{1:AA}}", "{AB:{10:AA}}x", "{A:{10:AA}}", "AB,"] {
            assert!(Strategy::parse(bad, 2, 3).is_err(), "{bad}");
        }
        let deep = "{AA:{00:".repeat(100);
        assert!(Strategy::parse(&deep, 2, 3).is_err());
    }

    #[test]
    fn definition_feedback() {
        assert_eq!(feedback(&[0, 1, 2, 3], &[0, 0, 1, 2]), (1, 2));
        assert_eq!(feedback(&[0, 1, 2, 3], &[4, 4, 0, 0]), (0, 1));
        assert_eq!(feedback(&[5, 5, 5, 5], &[5, 5, 5, 5]), (4, 0));
    }
}
