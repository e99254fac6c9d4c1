//! An engine's move: when it is scheduled (after the pause people get to
//! see the last move), the `go` that searches it with the side's limit or
//! clock, and the search's lines until its `bestmove`. Stop and Resume
//! pause the engines of the table.

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
        self.search =
            Some(Search { id, side, started: now, stopped: false, bestmove: None, limit: p.limit() });
        Ok(true)
    }

    /// A line of command `id`'s reply if it is the search's: the message
    /// to show it (`info`), or `None` (its `bestmove` is kept).
    pub fn on_line(&mut self, id: Id, line: &str) -> Option<Option<Value>> {
        let s = self.search.as_mut().filter(|s| s.id == id)?;
        if let Some(m) = line.strip_prefix("bestmove ") {
            s.bestmove = Some(m.trim().to_string());
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
