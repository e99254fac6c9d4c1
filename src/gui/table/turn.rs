//! An engine's move: when it is scheduled (after the pause people get to
//! see the last move), the `go` that searches it with the side's limit or
//! clock, the search's lines until its `bestmove` (the engine's time ends
//! when that line is read), and the selections along the move's path in
//! the move tree, for the page to show it one selection at a time. Stop
//! and Resume pause the engines of the table.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::gui::client::{Engine, Id};
use crate::gui::clock::TimeControl;

use super::game::Game;
use super::lineup::Lineup;

/// A search running for an engine's move.
pub struct Search {
    pub id: Id,
    pub side: usize,
    pub started: Instant,
    /// Stopped by the host: its move is not played.
    pub stopped: bool,
    pub bestmove: Option<String>,
    /// When the `bestmove` line was read.
    pub bestmove_at: Option<Instant>,
    pub limit: String,
}

/// The engines' turns at a table.
#[derive(Default)]
pub struct Turns {
    pub search: Option<Search>,
    /// When the engine to move starts its search.
    pub next_at: Option<Instant>,
    /// Stopped by the host (or by an engine's failure): no engine moves
    /// until Resume.
    pub paused: bool,
}

impl Turns {
    /// True if an engine is to move and may (not paused).
    pub fn engine_to_move(&self, game: Option<&Game>, lineup: &Lineup) -> bool {
        game.and_then(Game::turn).is_some_and(|t| lineup.is_engine(t)) && !self.paused
    }

    /// Schedules the engine's move if an engine is to move.
    pub fn schedule(&mut self, game: Option<&Game>, lineup: &Lineup) {
        if self.paused || self.search.is_some() {
            return;
        }
        let Some(g) = game else { return };
        let Some(t) = g.turn() else { return };
        if !lineup.player(t).is_engine() {
            return;
        }
        let pause = lineup.setup.as_ref().map_or(Duration::ZERO, |s| s.pause);
        self.next_at = Some((g.last_move_at + pause).max(Instant::now()));
    }

    /// Starts the search of the engine to move. False if there is none
    /// to start (no engine to move, paused, already searching).
    pub async fn start(
        &mut self,
        engine: &mut Engine,
        g: &mut Game,
        lineup: &Lineup,
    ) -> Result<bool, String> {
        let Some(side) = g.turn() else { return Ok(false) };
        let p = lineup.player(side);
        if !p.is_engine() || self.paused || self.search.is_some() {
            return Ok(false);
        }
        engine.call(&format!("setoption name {}.Strategy value {}", g.family, p.strategy)).await?;
        let now = Instant::now();
        let cmd = match p.time {
            TimeControl::Clock { .. } => format!("go {}", g.clocks.go_args(side, now).unwrap_or_default()),
            _ => format!("go {}", p.limit()),
        };
        let id = engine.send(&cmd, true).await?;
        g.clocks.start(side, now);
        self.search = Some(Search {
            id,
            side,
            started: now,
            stopped: false,
            bestmove: None,
            bestmove_at: None,
            limit: p.limit(),
        });
        Ok(true)
    }

    /// A line of command `id`'s reply if it is the search's: the message
    /// to show it (`info`), or `None` (its `bestmove` is kept).
    pub fn on_line(&mut self, id: Id, line: &str, at: Instant) -> Option<Option<Value>> {
        let s = self.search.as_mut().filter(|s| s.id == id)?;
        if let Some(m) = line.strip_prefix("bestmove ") {
            s.bestmove = Some(m.trim().to_string());
            s.bestmove_at = Some(at);
            Some(None)
        } else if line.starts_with("info") {
            Some(Some(json!({"t": "info", "side": s.side, "line": line})))
        } else {
            Some(None)
        }
    }

    /// The search, if command `id` is it (its reply is complete).
    pub fn take(&mut self, id: Id) -> Option<Search> {
        if self.search.as_ref().is_some_and(|s| s.id == id) { self.search.take() } else { None }
    }

    /// Stops a running search (its move is dropped) and what is
    /// scheduled; the game's clock stops.
    pub async fn halt(&mut self, engine: &mut Engine, game: Option<&mut Game>) {
        self.next_at = None;
        if let Some(s) = self.search.take() {
            let _ = engine.send("stop", false).await;
            if let Some(g) = game {
                g.clocks.stop(Instant::now());
            }
            log::debug!("gui: search {} stopped", s.id);
        }
    }

    /// The host's Stop: the search ends (its move is not played) and no
    /// engine moves until Resume.
    pub async fn pause(&mut self, engine: &mut Engine) -> Result<(), String> {
        self.paused = true;
        self.next_at = None;
        if let Some(s) = &mut self.search {
            s.stopped = true;
            engine.send("stop", false).await?;
        }
        Ok(())
    }

    /// The search for the page: its side, time so far and limit.
    pub fn to_json(&self) -> Value {
        match &self.search {
            Some(s) => {
                json!({"side": s.side, "elapsed": s.started.elapsed().as_millis() as u64, "limit": s.limit})
            }
            None => Value::Null,
        }
    }
}

/// Levels asked at most to find a move's path.
const PATH_LEVELS: usize = 8;

/// A move's text without blanks (a move is its actions written in order,
/// with or without a blank between them).
fn squash<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    parts.into_iter().flat_map(|p| p.chars()).filter(|c| !c.is_whitespace()).collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(|a| a.as_str().map(str::to_string)).collect()
}

/// The selections along move `mv`'s path in the move tree whose first
/// level is `root` (the tree of the position before the move), asking
/// the engine for the levels below as needed: what the page needs to show
/// an engine's move one selection at a time. The table does not know a
/// move's actions: at each level it follows the child whose actions, one
/// after another, begin the move's text. `None` if the path is not found
/// within a few levels.
pub async fn path_selections(engine: &mut Engine, root: &Value, mv: &str) -> Option<Vec<Value>> {
    let target = squash([mv]);
    let mut node = root.clone();
    let mut prefix = strings(&node["actions"]);
    let mut sels: Vec<Value> = node["select"].as_array().cloned().unwrap_or_default();
    for _ in 0..PATH_LEVELS {
        if node["final"] == true && node["move"] == mv {
            return Some(sels);
        }
        let children = node["children"].as_array()?;
        let whole = children.iter().find(|c| c["final"] == true && c["move"] == mv);
        let next = whole.or_else(|| {
            children.iter().find(|c| {
                let below = c["more"] == true || c["children"].as_array().is_some_and(|k| !k.is_empty());
                let acts = c["actions"].as_array().into_iter().flatten().filter_map(Value::as_str);
                let p = squash(prefix.iter().map(String::as_str).chain(acts));
                below && !p.is_empty() && target.starts_with(&p)
            })
        })?;
        sels.extend(next["select"].as_array().cloned().unwrap_or_default());
        prefix.extend(strings(&next["actions"]));
        if next["final"] == true && next["move"] == mv {
            return Some(sels);
        }
        node = if next["more"] == true {
            let line = engine.one(&format!("movetree json level {}", prefix.join(" "))).await.ok()?;
            let level: Value = serde_json::from_str(&line).ok()?;
            // The level's own actions (a single continuation) are on the path too.
            prefix.extend(strings(&level["actions"]));
            sels.extend(level["select"].as_array().cloned().unwrap_or_default());
            Value::Object(
                level
                    .as_object()?
                    .iter()
                    .filter(|(k, _)| *k != "actions" && *k != "select")
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )
        } else {
            next.clone()
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moves_text_is_its_actions_with_or_without_blanks() {
        assert_eq!(squash(["wA1", "-bQ"]), "wA1-bQ");
        assert_eq!(squash(["wA1 -bQ"]), "wA1-bQ");
        assert_eq!(squash(["1", "2", "3", "4"]), "1234");
        assert_eq!(strings(&json!(["a", 1, "b"])), ["a", "b"]);
    }
}
