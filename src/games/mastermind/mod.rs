//! Mastermind and its variants (Bulls and Cows, blanks, any size up to 8
//! pegs x 10 symbols), with both roles.
//!
//! How it fits the [`Game`] trait: two sides alternate, the codebreaker
//! (side 0, `Breaker`) whose moves are guesses (`1123`), and the codemaker
//! (side 1, `Maker`) whose moves are feedbacks (`2B1W`). A row is a guess
//! and its feedback, so TurnString `Breaker[3]` is the third row and
//! `Maker[3]` its answer. The breaker wins (`BreakerWins`) with an all-black
//! feedback; the maker wins (`MakerWins`) when the rows run out.
//!
//! The secret belongs to the codemaker. A game holds a fixed secret only
//! when one is given (the `Secret` option, or a `Secret=` token of a
//! GameString, as the referee's arbiter and a codemaker seat get): then the
//! only legal feedback is the true one. Otherwise every feedback that at
//! least one code consistent with all the rows would give is legal, from
//! whoever plays it (`position`, `play`, a GameString), and any other is
//! refused with the reason. Once the game is over, the GameString ends with
//! `Secret=<code>` when the game held a fixed secret.
//!
//! Every strategy answers as codemaker when asked to move on the maker's
//! turn: the true feedback if the game holds a fixed secret; else, with
//! `Codemaker` = `random` (the default), the feedback of a code drawn
//! uniformly among the codes consistent with the rows so far (drawn afresh
//! at every answer, which is indistinguishable from a secret drawn at the
//! start and kept); with `adversarial`/`none`, the answer that keeps the
//! most codes possible.

mod analyze;
mod bench;
mod breakers;
mod code;
mod consistent;
mod deep;
mod engine;
mod exact;
mod kernel;
mod maker;
mod review;
mod spec;
mod split;
mod symmetry;
mod tree;
mod view;

pub use code::{Code, CodeError, Feedback, FeedbackError};
pub use consistent::Row;
pub use spec::{Spec, SpecError, Style};

use std::hash::{Hash, Hasher};

use rand::Rng;

use crate::game::{Game, MoveError, Outcome, Side};

pub const BREAKER: Side = 0;
pub const MAKER: Side = 1;

/// A move: the breaker's guess or the maker's feedback.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmMove {
    Guess(Code),
    Feedback(Feedback),
}

/// How the engine answers as codemaker in a game without a fixed secret
/// (option `Codemaker`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MakerMode {
    /// The feedback of a code drawn uniformly among those consistent with
    /// the rows so far.
    #[default]
    Random,
    /// The feedback that keeps the most codes possible.
    Adversarial,
}

/// A Mastermind position (the [`Game`] implementation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mastermind {
    spec: Spec,
    rows: Vec<Row>,
    /// The guess of the row being answered.
    pending: Option<Code>,
    /// The fixed secret, if one was given: only its feedback is legal.
    secret: Option<Code>,
    /// How the engine answers without a fixed secret.
    maker: MakerMode,
}

impl Mastermind {
    pub fn new(spec: Spec) -> Mastermind {
        Mastermind { spec, rows: Vec::new(), pending: None, secret: None, maker: MakerMode::Random }
    }

    /// How the engine answers as codemaker when no secret is fixed.
    pub fn maker_mode(&self) -> MakerMode {
        self.maker
    }

    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Finished rows.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The guess waiting for its feedback.
    pub fn pending(&self) -> Option<Code> {
        self.pending
    }

    /// The fixed secret, if the game holds one.
    pub fn secret(&self) -> Option<Code> {
        self.secret
    }

    /// Sets (or clears) the fixed secret; only before the first move.
    pub fn set_secret(&mut self, secret: Option<Code>) {
        debug_assert!(self.rows.is_empty() && self.pending.is_none());
        self.secret = secret.filter(|&c| self.spec.is_code(c));
    }

    /// A uniformly random code.
    pub fn random_code(spec: &Spec, rng: &mut impl Rng) -> Code {
        let mut pegs = Vec::with_capacity(spec.pegs as usize);
        while pegs.len() < spec.pegs as usize {
            let k = rng.random_range(0..spec.symbols());
            if spec.repeats || !pegs.contains(&k) {
                pegs.push(k);
            }
        }
        Code::from_pegs(&pegs)
    }

    fn won(&self) -> bool {
        self.rows.last().is_some_and(|r| r.feedback == self.spec.win())
    }

    fn feedback_error(&self, guess: Code, f: Feedback) -> Option<String> {
        let s = &self.spec;
        if !s.feedback_possible(f) {
            return Some(impossible_feedback(s.pegs, f));
        }
        if let Some(secret) = self.secret {
            let t = s.score(guess, secret);
            return (t != f).then(|| format!("wrong feedback {f}: the secret gives {t}"));
        }
        let last = Row { guess, feedback: f };
        match consistent::first_contradiction(s, &self.rows, last)? {
            0 => Some(format!("no code gives {f} to {}", s.code_text(guess))),
            r => Some(format!(
                "no code fits: {f} contradicts row {r} ({} {})",
                s.code_text(self.rows[r - 1].guess),
                self.rows[r - 1].feedback
            )),
        }
    }
}

/// Why a feedback no code can give is impossible, naming the feedback
/// given and only what is wrong with it.
fn impossible_feedback(pegs: u8, f: Feedback) -> String {
    let (black, white) = (f.black as u32, f.white as u32);
    let p = pegs as u32;
    if black + white > p {
        return format!(
            "impossible feedback {f}: {black} black + {white} white make {} key pegs, more than the {p} pegs of a code",
            black + white
        );
    }
    // The one other impossible feedback: all pegs but one black, the last white.
    if p == 1 {
        return format!("impossible feedback {f}: a one-peg code scores black or nothing, never white");
    }
    format!(
        "impossible feedback {f}: with {black} of the {p} pegs black, the last one cannot be white \
         (the one peg of the secret left is in its place: a match there is black)"
    )
}

impl Game for Mastermind {
    fn board_view(&self) -> crate::boardview::BoardView {
        view::board_view(self)
    }
    fn selections(&self, mv: MmMove) -> Vec<crate::boardview::Select> {
        view::selections(self, mv)
    }
    type Move = MmMove;

    const FAMILY: &'static str = "Mastermind";
    const DEFAULT_TYPE: &'static str = "Mastermind";
    const TYPE_GRAMMAR: &'static str =
        "Mastermind[+PxS][+letters|+colours][+blanks][+norepeat][+rowsN] (P 1..8, S 2..10, N 1..50)";
    const COMMON_TYPES: &'static [&'static str] =
        &["Mastermind", "Mastermind+3x6", "Mastermind+5x8", "Mastermind+4x10+norepeat"];
    const MOVE_NOTATION: &'static str = "a guess is one symbol per peg (play 1123; letters AABC; colours RRGB), a feedback is <black>B<white>W (play 2B1W)";

    fn parse_type(s: &str) -> Option<Result<Self, String>> {
        if !s.trim().to_ascii_lowercase().starts_with("mastermind") {
            return None;
        }
        Some(s.parse::<Spec>().map(Mastermind::new).map_err(|e| e.0))
    }

    /// `Secret=<code>` fixes the secret of a replayed game.
    fn apply_extra(&mut self, token: &str) -> Result<bool, String> {
        let Some((k, v)) = token.split_once('=') else { return Ok(false) };
        if !k.trim().eq_ignore_ascii_case("secret") {
            return Ok(false);
        }
        let code = self.spec.parse_code(v.trim()).map_err(|e| format!("bad Secret '{}': {e}", v.trim()))?;
        self.set_secret(Some(code));
        Ok(true)
    }

    fn private_extra(&self) -> Option<String> {
        self.secret.map(|c| format!("Secret={}", self.spec.code_text(c)))
    }

    fn next_actions(&self, prefix: &[String]) -> Option<Result<Vec<crate::movetree::NextAction>, String>> {
        view::next_actions(self, prefix)
    }

    fn too_many_moves(&self) -> Option<String> {
        const MAX: u64 = 100_000;
        let n = self.spec.code_count();
        (self.pending.is_none() && n > MAX).then(|| {
            format!("too many moves to list: every one of the {n} codes of {} is a valid guess", self.spec)
        })
    }

    fn game_type(&self) -> String {
        self.spec.to_string()
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["Breaker", "Maker"]
    }

    fn side_to_move(&self) -> Side {
        if self.pending.is_some() { MAKER } else { BREAKER }
    }

    fn ply(&self) -> usize {
        2 * self.rows.len() + self.pending.is_some() as usize
    }

    fn legal_moves(&self, out: &mut Vec<MmMove>) {
        if self.outcome().is_some() {
            return;
        }
        match (self.pending, self.secret) {
            (None, _) => out.extend(self.spec.all_codes().into_iter().map(MmMove::Guess)),
            (Some(g), Some(secret)) => out.push(MmMove::Feedback(self.spec.score(g, secret))),
            (Some(g), None) => out.extend(
                consistent::possible_feedbacks(&self.spec, &self.rows, g).into_iter().map(MmMove::Feedback),
            ),
        }
    }

    fn play(&mut self, mv: MmMove) {
        match mv {
            MmMove::Guess(g) => self.pending = Some(g),
            MmMove::Feedback(f) => {
                if let Some(guess) = self.pending.take() {
                    self.rows.push(Row { guess, feedback: f });
                }
            }
        }
    }

    fn undo(&mut self, mv: MmMove) {
        match mv {
            MmMove::Guess(_) => self.pending = None,
            MmMove::Feedback(_) => self.pending = self.rows.pop().map(|r| r.guess),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.won() {
            Some(Outcome::Win(BREAKER))
        } else if self.pending.is_none() && self.rows.len() >= self.spec.rows as usize {
            Some(Outcome::Win(MAKER))
        } else {
            None
        }
    }

    fn hash(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.spec.hash(&mut h);
        self.rows.hash(&mut h);
        self.pending.hash(&mut h);
        h.finish()
    }

    fn parse_move(&self, s: &str) -> Result<MmMove, MoveError> {
        match self.pending {
            None => {
                let c = self.spec.parse_code(s).map_err(|e| MoveError::Parse(e.to_string()))?;
                if self.outcome().is_some() {
                    return Err(MoveError::GameOver);
                }
                Ok(MmMove::Guess(c))
            }
            Some(g) => {
                let f: Feedback = s.parse().map_err(|e: FeedbackError| MoveError::Parse(e.to_string()))?;
                match self.feedback_error(g, f) {
                    Some(reason) => Err(MoveError::Illegal(reason)),
                    None => Ok(MmMove::Feedback(f)),
                }
            }
        }
    }

    fn format_move(&self, mv: MmMove) -> String {
        match mv {
            MmMove::Guess(c) => self.spec.code_text(c).to_string(),
            MmMove::Feedback(f) => f.to_string(),
        }
    }

    /// A guess is one action per peg (its symbol); a feedback is two
    /// actions, `2B` then `1W`.
    fn actions(&self, mv: MmMove) -> Vec<String> {
        match mv {
            MmMove::Guess(c) => (0..self.spec.pegs)
                .map(|i| self.spec.symbol_char(c.peg(self.spec.pegs, i)).to_string())
                .collect(),
            MmMove::Feedback(f) => vec![format!("{}B", f.black), format!("{}W", f.white)],
        }
    }

    /// `Secret=<code>` once the game is over, if the game holds a fixed
    /// secret.
    fn game_string_extra(&self) -> Option<String> {
        let secret = self.secret?;
        self.outcome().map(|_| format!("Secret={}", self.spec.code_text(secret)))
    }

    fn render(&self, color: bool) -> String {
        render(self, color)
    }
}

fn render(g: &Mastermind, color: bool) -> String {
    let s = &g.spec;
    let mut out = String::new();
    let code = |c: Code| -> String {
        if !color || s.style != Style::Colours {
            return s.code_text(c).to_string();
        }
        const ANSI: [&str; 10] = ["31", "32", "34", "33", "38;5;208", "35", "97", "90", "36", "95"];
        (0..s.pegs)
            .map(|i| {
                let k = c.peg(s.pegs, i);
                match ANSI.get(k as usize).filter(|_| k < s.colours) {
                    Some(a) => format!("\x1b[{a}m{}\x1b[0m", s.symbol_char(k)),
                    None => s.symbol_char(k).to_string(),
                }
            })
            .collect()
    };
    for (i, r) in g.rows.iter().enumerate() {
        out.push_str(&format!("{:>2}  {}  {}\n", i + 1, code(r.guess), r.feedback));
    }
    if let Some(p) = g.pending {
        out.push_str(&format!("{:>2}  {}  ?\n", g.rows.len() + 1, code(p)));
    }
    let status = match g.outcome() {
        Some(Outcome::Win(BREAKER)) => format!("Breaker wins in {} guesses", g.rows.len()),
        Some(_) => match g.secret {
            Some(c) => format!("Maker wins; the secret was {}", code(c)),
            None => "Maker wins".to_string(),
        },
        None if g.pending.is_some() => "Maker to answer".to_string(),
        None => format!("Breaker to guess (row {} of {})", g.rows.len() + 1, s.rows),
    };
    out.push_str(&status);
    out
}

#[cfg(test)]
mod tests;
