//! The review of a game: the engine's `review` over the moves played so
//! far (protocol section 3), streamed to every browser as it judges, like
//! the analysis: a progress line after each position, one `ply` line per
//! move (its label, value, the better move), then each side's summary.
//!
//! One review runs at a time per table, on the game's own position (the
//! engine's position does not change), so everything else the table does
//! meanwhile that needs no engine is answered at once; whatever changes the
//! game (a move, Undo, New, Load) cancels the review first (`stop`: its
//! reply is dropped), and Stop ends it with what was judged. A complete
//! review of a finished game gives each side's accuracy, which the table
//! stores with the game's record.
//!
//! The better move of a judged move is shown on the board the engine draws
//! for it: the position before the move with the better one played
//! ([`better_position`]), asked for once the engine is free.

use serde_json::{Map, Value, json};

use crate::gui::client::{Engine, Failure, Id};

use super::game::{Game, game_moves};

/// The largest `movetime` a person may give each position, ms.
pub const MAX_MOVETIME: u64 = 60_000;
/// The largest `depth`.
pub const MAX_DEPTH: u64 = 64;
/// The largest `nodes`.
pub const MAX_NODES: u64 = 1_000_000_000;

/// A review on its way, or done.
pub struct Review {
    /// The `review` command running (`None` once it is done).
    pub id: Option<Id>,
    /// The table's game it reviews, and how many plies of it.
    pub game_no: u64,
    pub plies: usize,
    /// The game was over when the review started.
    pub finished: bool,
    limit: String,
    stopped: bool,
    done: usize,
    total: usize,
    moves: Vec<Value>,
    sides: Vec<Value>,
    error: Option<String>,
    /// What became of the accuracy (stored with the record, or why not).
    pub stored: Option<String>,
    /// The game's moves as the table shows them (a `ply` line's move is
    /// shown as the game's own text).
    played: Vec<String>,
    /// Whether the game writes its moves with spaces (`_` in the reply's
    /// one-token form) or with `_` of its own (Mastermind's blank), once
    /// a move played tells.
    spaces: Option<bool>,
    /// The accuracy is being stored, or was.
    pub storing: bool,
}

/// Checks a person's budget for each position: empty (the game's own
/// default), `movetime MS`, `depth N` or `nodes N`; the limit as the
/// engine is given it.
pub fn parse_limit(text: &str) -> Result<String, String> {
    let w: Vec<&str> = text.split_whitespace().collect();
    let (key, max) = match w.first().copied() {
        None => return Ok(String::new()),
        Some("movetime") => ("movetime", MAX_MOVETIME),
        Some("depth") => ("depth", MAX_DEPTH),
        Some("nodes") => ("nodes", MAX_NODES),
        Some(k) => return Err(format!("a review's budget is movetime, depth or nodes, not {}", clip(k))),
    };
    let n = match w.as_slice() {
        [_, n] => n.parse::<u64>().ok().filter(|n| (1..=max).contains(n)),
        _ => None,
    };
    let n = n.ok_or_else(|| format!("{key} takes a number from 1 to {max}"))?;
    Ok(format!("{key} {n}"))
}

fn clip(s: &str) -> String {
    s.chars().take(20).collect()
}

impl Review {
    /// Starts `review` on the engine for game `game_no`, `g` as the
    /// engine has it now (at least one move played).
    pub async fn start(engine: &mut Engine, game_no: u64, g: &Game, limit: &str) -> Result<Review, String> {
        let limit = parse_limit(limit)?;
        let plies = g.ply();
        if plies == 0 {
            return Err("no move to review yet".into());
        }
        let line = if limit.is_empty() { "review".to_string() } else { format!("review {limit}") };
        let id = engine.send(&line, true).await?;
        Ok(Review {
            id: Some(id),
            game_no,
            plies,
            finished: g.end.is_some(),
            limit,
            stopped: false,
            done: 0,
            total: 0,
            moves: Vec::new(),
            sides: Vec::new(),
            error: None,
            stored: None,
            storing: false,
            played: game_moves(&g.game_string),
            spaces: None,
        })
    }

    /// True while the engine judges.
    pub fn running(&self) -> bool {
        self.id.is_some()
    }

    /// A line of the reply: progress, a ply judged or a side's summary.
    pub fn on_line(&mut self, line: &str) {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("info") => {
                let kv = pairs(words.skip(1));
                if let (Some(d), Some(t)) = (num(&kv, "positions"), num(&kv, "of")) {
                    self.done = d as usize;
                    self.total = t as usize;
                }
            }
            Some("ply") => {
                let mut kv = pairs(std::iter::once("ply").chain(words));
                numbers(&mut kv, &["ply", "accuracy", "graph", "lost", "codes"]);
                // The move as the game writes it; the better move in the
                // same form (a space is `_` in the reply, unless `_` is
                // the game's own, as a blank of Mastermind).
                let ply = kv.get("ply").and_then(Value::as_u64).unwrap_or(0) as usize;
                if let Some(mv) = ply.checked_sub(1).and_then(|i| self.played.get(i)) {
                    if mv.contains(' ') {
                        self.spaces = Some(true);
                    } else if mv.contains('_') {
                        self.spaces = Some(false);
                    }
                    kv.insert("move".into(), Value::String(mv.clone()));
                }
                if self.spaces == Some(true)
                    && let Some(Value::String(b)) = kv.get_mut("best")
                {
                    *b = b.replace('_', " ");
                }
                self.moves.push(Value::Object(kv));
            }
            Some("side") => {
                let mut kv = pairs(std::iter::once("side").chain(words));
                numbers(
                    &mut kv,
                    &[
                        "moves",
                        "best",
                        "good",
                        "inaccuracy",
                        "mistake",
                        "blunder",
                        "forced",
                        "unproven",
                        "none",
                        "accuracy",
                    ],
                );
                self.sides.push(Value::Object(kv));
            }
            _ => log::debug!("gui: review: {line}"),
        }
    }

    /// The reply is complete (or failed).
    pub fn on_done(&mut self, reply: Result<Vec<String>, Failure>) {
        self.id = None;
        if let Err(e) = reply {
            self.error = Some(e.to_string());
        }
    }

    /// Stop: the engine ends the review with what it judged.
    pub async fn stop(&mut self, engine: &mut Engine) -> Result<(), String> {
        if self.id.is_some() && !self.stopped {
            self.stopped = true;
            engine.send("stop", false).await?;
        }
        Ok(())
    }

    /// Each side's accuracy, once a review of a whole finished game is
    /// complete (every ply judged: a Stop that came too late to cut it
    /// changes nothing); `None` otherwise.
    pub fn accuracy(&self) -> Option<[Option<f64>; 2]> {
        if self.running() || self.error.is_some() || !self.finished {
            return None;
        }
        if self.moves.len() != self.plies || self.sides.len() != 2 {
            return None;
        }
        Some([0, 1].map(|s| self.sides[s]["accuracy"].as_f64()))
    }

    /// The better move of ply `ply` (1 for the first), if it was judged
    /// worse than the best.
    pub fn better_move(&self, ply: usize) -> Option<String> {
        let m = self.moves.iter().find(|m| m["ply"].as_u64() == Some(ply as u64))?;
        let best = m["best"].as_str()?;
        (best != m["move"].as_str()?).then(|| best.to_string())
    }

    /// The message that shows the review to the browsers.
    pub fn to_json(&self) -> Value {
        json!({"t": "gamereview", "game_no": self.game_no, "plies": self.plies, "finished": self.finished,
            "limit": self.limit, "running": self.running(), "stopped": self.stopped,
            "progress": {"done": self.done, "total": self.total},
            "moves": self.moves, "sides": self.sides, "error": self.error, "stored": self.stored})
    }
}

/// The message that clears the review from the browsers.
pub fn cleared() -> Value {
    json!({"t": "gamereview", "none": true})
}

/// The `position` command of the position before ply `ply` of `g` (1 for
/// the first) with `best` played instead.
pub fn better_position(g: &Game, ply: usize, best: &str) -> Result<String, String> {
    let moves = game_moves(&g.game_string);
    if ply == 0 || ply > moves.len() {
        return Err(format!("the game has {} plies", moves.len()));
    }
    let game_type = g.board["game_type"].as_str().unwrap_or("");
    let mut line: Vec<&str> = moves[..ply - 1].iter().map(String::as_str).collect();
    line.push(best);
    Ok(format!("position {game_type} moves {}", line.join(";")))
}

/// Key-value tokens as a JSON object (a key without a value is left out).
fn pairs<'a>(mut words: impl Iterator<Item = &'a str>) -> Map<String, Value> {
    let mut kv = Map::new();
    while let (Some(k), Some(v)) = (words.next(), words.next()) {
        kv.insert(k.to_string(), Value::String(v.to_string()));
    }
    kv
}

fn num(kv: &Map<String, Value>, k: &str) -> Option<u64> {
    kv.get(k)?.as_str()?.parse().ok()
}

/// The values of `keys` that are numbers, as numbers.
fn numbers(kv: &mut Map<String, Value>, keys: &[&str]) {
    for k in keys {
        let Some(s) = kv.get(*k).and_then(Value::as_str) else { continue };
        let n = match (s.parse::<i64>(), s.parse::<f64>()) {
            (Ok(i), _) => json!(i),
            (_, Ok(f)) if f.is_finite() => json!(f),
            _ => continue,
        };
        kv.insert(k.to_string(), n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_are_checked() {
        assert_eq!(parse_limit("").unwrap(), "");
        assert_eq!(parse_limit(" movetime  200 ").unwrap(), "movetime 200");
        assert_eq!(parse_limit("depth 4").unwrap(), "depth 4");
        assert!(parse_limit("movetime 0").is_err());
        assert!(parse_limit("movetime 200 depth 3").is_err());
        assert!(parse_limit("infinite").is_err());
        assert!(parse_limit("depth 65").is_err());
        assert!(parse_limit("nodes x").is_err());
    }

    fn review() -> Review {
        Review {
            id: Some(1),
            game_no: 1,
            plies: 2,
            finished: true,
            limit: String::new(),
            stopped: false,
            done: 0,
            total: 0,
            moves: Vec::new(),
            sides: Vec::new(),
            error: None,
            stored: None,
            storing: false,
            played: vec!["wS1".into(), "bQ -wS1".into()],
            spaces: None,
        }
    }

    #[test]
    fn a_blank_of_mastermind_is_not_a_space() {
        let mut r = review();
        r.played = vec!["_41".into(), "0B1W".into()];
        r.on_line("ply 1 side Breaker move _41 label blunder value 2.00 best 4_3 bestvalue 0.5");
        assert_eq!(r.to_json()["moves"][0]["move"], "_41");
        assert_eq!(r.to_json()["moves"][0]["best"], "4_3");
    }

    #[test]
    fn lines_are_read_into_the_message() {
        let mut r = review();
        r.on_line("info review positions 1 of 3 time 5 nodes 10");
        r.on_line("ply 1 side White move wS1 label best value 0 best wS1 bestvalue 0 accuracy 100 graph 0");
        r.on_line(
            "ply 2 side Black move bQ_-wS1 label blunder value -300 best bS1_-wS1 bestvalue 10 accuracy 12.5",
        );
        assert_eq!(r.accuracy(), None, "still running");
        r.on_line("side White moves 1 best 1 good 0 inaccuracy 0 mistake 0 blunder 0 forced 0 unproven 0 none 0 accuracy 100");
        r.on_line("side Black moves 1 best 0 good 0 inaccuracy 0 mistake 0 blunder 1 forced 0 unproven 0 none 0 accuracy none");
        r.on_done(Ok(vec![]));
        let m = r.to_json();
        assert_eq!(m["progress"], json!({"done": 1, "total": 3}));
        assert_eq!(m["moves"][1]["move"], "bQ -wS1");
        assert_eq!(m["moves"][1]["best"], "bS1 -wS1");
        assert_eq!(m["moves"][1]["accuracy"], 12.5);
        assert_eq!(m["moves"][0]["graph"], 0);
        assert!(m["moves"][1].get("graph").is_none());
        assert_eq!(m["sides"][0]["accuracy"], 100);
        assert_eq!(m["running"], false);
        assert_eq!(r.accuracy(), Some([Some(100.0), None]));
        assert_eq!(r.better_move(2).as_deref(), Some("bS1 -wS1"));
        assert_eq!(r.better_move(1), None);
        // A review stopped before its end, or of a game in progress, gives
        // no accuracy.
        r.stopped = true;
        assert_eq!(r.accuracy(), Some([Some(100.0), None]), "stopped too late: complete");
        let last = r.moves.pop();
        assert_eq!(r.accuracy(), None);
        r.moves.extend(last);
        r.finished = false;
        assert_eq!(r.accuracy(), None);
    }
}
