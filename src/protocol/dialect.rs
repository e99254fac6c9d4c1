//! How a reply is framed and how scores and moves are written, in each of
//! the three dialects over the one session: meeple's own (UHP framing:
//! every reply ends with `ok`), UCI and UGI (no `ok`; problems are
//! `info string` lines; a move is one token).

use crate::registry::AnyGame;
use crate::search::{Report, Score};

use crate::text::clean;

/// The protocol dialect of a session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// meeple's own protocol, a superset of UHP: every reply ends with `ok`.
    #[default]
    Meeple,
    /// Entered by `uci`.
    Uci,
    /// Entered by `ugi`.
    Ugi,
}

/// A reply that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    Err(String),
    InvalidMove(String),
}

/// What a command answers: its lines, or why it failed (then nothing
/// changed).
pub type Reply = Result<Vec<String>, Failure>;

/// Shorthand for a failed reply.
pub fn err<T>(msg: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::Err(msg.into()))
}

impl Dialect {
    /// True in UCI and UGI modes.
    pub fn is_uci_like(self) -> bool {
        self != Dialect::Meeple
    }

    /// The text of a whole reply, ready to write.
    pub fn frame(self, reply: &Reply) -> String {
        let mut text = String::new();
        match reply {
            Ok(lines) => {
                for l in lines {
                    text.push_str(l);
                    text.push('\n');
                }
            }
            Err(f) => {
                text.push_str(&self.failure_line(f));
                text.push('\n');
            }
        }
        text.push_str(self.terminator());
        text
    }

    /// `ok\n` after every reply in meeple's dialect; nothing in UCI/UGI.
    pub fn terminator(self) -> &'static str {
        match self {
            Dialect::Meeple => "ok\n",
            _ => "",
        }
    }

    /// One line telling a failure.
    pub fn failure_line(self, f: &Failure) -> String {
        let (kind, msg) = match f {
            Failure::Err(m) => ("err", m),
            Failure::InvalidMove(m) => ("invalidmove", m),
        };
        match self {
            Dialect::Meeple => format!("{kind} {}", clean(msg)),
            _ => format!("info string {kind} {}", clean(msg)),
        }
    }

    /// A move as this dialect writes it: one token in UCI/UGI (a space,
    /// as in Hive's `wQ wS1/`, becomes `_`).
    pub fn move_out(self, mv: &str) -> String {
        match self {
            Dialect::Meeple => mv.to_string(),
            _ => mv.replace(' ', "_"),
        }
    }

    /// An `info` line of a search report.
    pub fn info_line(self, r: &Report, game: &dyn AnyGame) -> String {
        if let Some(t) = &r.text {
            return format!("info string {}", clean(t));
        }
        let ms = r.time.as_millis() as u64;
        let secs = r.time.as_secs_f64();
        let nps = if secs > 0.0 { (r.nodes as f64 / secs) as u64 } else { 0 };
        let mut s = format!("info depth {}", r.depth);
        if let Some(score) = r.score {
            s.push_str(" score ");
            match self {
                Dialect::Meeple => s.push_str(&score.to_string()),
                _ => s.push_str(&uci_score(score, game)),
            }
        }
        s.push_str(&format!(" nodes {} nps {nps} time {ms}", r.nodes));
        if !r.pv.is_empty() {
            let pv: Vec<String> = r.pv.iter().map(|m| clean(&self.move_out(m))).collect();
            s.push_str(" pv ");
            s.push_str(&pv.join(if self == Dialect::Meeple { ";" } else { " " }));
        }
        s
    }
}

/// A score in UCI's syntax: `cp N` or `mate N`, bounds marked.
pub fn uci_score(score: Score, game: &dyn AnyGame) -> String {
    const PROVEN: i32 = 10_000;
    match score {
        Score::Cp(v) => format!("cp {v}"),
        Score::CpLower(v) => format!("cp {v} lowerbound"),
        Score::Mate(n) => format!("mate {n}"),
        Score::Exact(v) => match game.mate_in(v) {
            Some(n) => format!("mate {n}"),
            None => format!("cp {v}"),
        },
        Score::Lower(v) => format!("cp {v} lowerbound"),
        Score::Upper(v) => format!("cp {v} upperbound"),
        Score::Win => format!("cp {PROVEN}"),
        Score::Draw => "cp 0".to_string(),
        Score::Loss => format!("cp -{PROVEN}"),
    }
}

/// A move given in any dialect, as the game reads it: for a game whose
/// moves contain spaces (`spaces`), the one-token form (`_` for a space)
/// is accepted everywhere; any other game's moves are read as printed.
pub fn move_in(token: &str, spaces: bool) -> String {
    if spaces { token.replace('_', " ") } else { token.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_per_dialect() {
        let ok: Reply = Ok(vec!["a".into()]);
        assert_eq!(Dialect::Meeple.frame(&ok), "a\nok\n");
        assert_eq!(Dialect::Uci.frame(&ok), "a\n");
        let bad: Reply = Err(Failure::InvalidMove("x\ny".into()));
        assert_eq!(Dialect::Meeple.frame(&bad), "invalidmove x y\nok\n");
        assert_eq!(Dialect::Ugi.frame(&bad), "info string invalidmove x y\n");
        assert_eq!(Dialect::Uci.move_out("wQ wS1/"), "wQ_wS1/");
        assert_eq!(move_in("wQ_wS1/", true), "wQ wS1/");
        assert_eq!(move_in("1_23", false), "1_23");
    }
}
