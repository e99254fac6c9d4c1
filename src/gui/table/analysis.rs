//! The analysis board and the review of a game.
//!
//! On request the table analyses a position with the engine: first the
//! game's own `analyze` (Connect Four: the exact score of every column;
//! Mastermind: the codes still possible), then a short search with the
//! family's default strategy (the best move, its evaluation and line; for
//! Hive, whose `analyze` there is none of, the whole analysis). A position
//! other than the game's is set with `position` and the game's is put back
//! after, so this is offered for past positions once a game is over.
//!
//! Reviewing needs no engine: the table keeps the board after every ply.

use serde_json::{Value, json};

use crate::gui::client::{Engine, Failure, Id};

use super::game::{Game, game_moves, is_over};

/// How long `analyze` may take, ms.
pub const ANALYZE_MS: u64 = 3000;
/// How long the search for the best move takes, ms.
pub const SEARCH_MS: u64 = 1500;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Analyze,
    Search,
}

/// An analysis in progress.
pub struct Analysis {
    /// The command running (`analyze` or `go`).
    pub id: Option<Id>,
    phase: Phase,
    ply: usize,
    /// The engine is on another position than the game's.
    moved: bool,
    over: bool,
    lines: Vec<String>,
    info: Vec<String>,
    best: Option<String>,
    error: Option<String>,
}

/// Why the table may not analyse now, if it may not.
pub struct Allowed {
    /// A game between people over the network.
    pub networked: bool,
    /// An engine is to move and the table is not paused.
    pub engine_to_move: bool,
}

impl Analysis {
    /// The message that shows the analysis to the browsers.
    pub fn to_json(&self, running: bool) -> Value {
        json!({"t": "analysis", "ply": self.ply, "running": running, "lines": self.lines,
            "info": self.info, "best": self.best, "error": self.error})
    }

    /// Checks that the position after `ply` plies (default: now) may be
    /// analysed; the ply.
    pub fn check(g: &Game, ply: Option<usize>, allowed: &Allowed) -> Result<usize, String> {
        let current = g.ply();
        let ply = ply.unwrap_or(current);
        let over = g.end.is_some();
        if ply > current {
            return Err(format!("the game has {current} plies"));
        }
        if ply != current && !over {
            return Err("earlier positions are analysed once the game is over".into());
        }
        if allowed.networked && !over {
            return Err("a game between people over the network is analysed once it is over".into());
        }
        if allowed.engine_to_move {
            return Err("the engine is about to move: stop it first".into());
        }
        Ok(ply)
    }

    /// Sets the position after `ply` plies (default: now) on the engine
    /// and starts `analyze` with the family's default `strategy`, once
    /// [`Analysis::check`] allows it. Any earlier analysis must be halted
    /// first.
    pub async fn start(
        engine: &mut Engine,
        g: &Game,
        ply: Option<usize>,
        allowed: Allowed,
        strategy: Option<String>,
    ) -> Result<Analysis, String> {
        let ply = Analysis::check(g, ply, &allowed)?;
        let moved = ply != g.ply();
        if moved {
            let game_type = g.board["game_type"].as_str().unwrap_or("");
            let moves = game_moves(&g.game_string);
            let line = match ply {
                0 => format!("position {game_type}"),
                k => format!("position {game_type} moves {}", moves[..k].join(";")),
            };
            engine.call(&line).await?;
        }
        let state = if moved { g.board_at(ply) } else { g.board.clone() };
        let mut a = Analysis {
            id: None,
            phase: Phase::Analyze,
            ply,
            moved,
            over: is_over(&state),
            lines: Vec::new(),
            info: Vec::new(),
            best: None,
            error: None,
        };
        if let Some(s) = strategy
            && let Err(e) = engine.call(&format!("setoption name {}.Strategy value {s}", g.family)).await
        {
            log::warn!("gui: analysis strategy: {e}");
        }
        match engine.send(&format!("analyze movetime {ANALYZE_MS}"), true).await {
            Ok(id) => a.id = Some(id),
            Err(e) => {
                a.restore(engine, &g.game_string).await;
                return Err(e.into());
            }
        }
        Ok(a)
    }

    /// A line of the running command; the message showing it.
    pub fn on_line(&mut self, line: String) -> Value {
        match self.phase {
            Phase::Analyze => self.lines.push(line),
            Phase::Search => {
                if let Some(m) = line.strip_prefix("bestmove ") {
                    self.best = Some(m.trim().to_string());
                } else {
                    self.info.push(line);
                    if self.info.len() > 20 {
                        self.info.remove(0);
                    }
                }
            }
        }
        self.to_json(true)
    }

    /// The running command is over: `analyze` is followed by the search
    /// (unless the position is over). True once the analysis is complete
    /// (then [`Analysis::finish`] it).
    pub async fn on_done(&mut self, engine: &mut Engine, reply: Result<Vec<String>, Failure>) -> bool {
        if let Err(e) = reply {
            match self.phase {
                // Hive has no `analyze`: its search is the analysis.
                Phase::Analyze if e.to_string().contains("not available") => {}
                _ => self.error = Some(e.to_string()),
            }
        }
        if self.phase == Phase::Analyze && !self.over {
            self.phase = Phase::Search;
            self.id = None;
            match engine.send(&format!("go movetime {SEARCH_MS}"), true).await {
                Ok(id) => {
                    self.id = Some(id);
                    return false;
                }
                Err(e) => self.error = Some(e.to_string()),
            }
        }
        true
    }

    /// The analysis is complete: the game's position (`game_string`) is
    /// put back. The message with what it found.
    pub async fn finish(self, engine: &mut Engine, game_string: &str) -> Value {
        self.restore(engine, game_string).await;
        self.to_json(false)
    }

    /// Stops the analysis (what it found so far stays on the page) and
    /// puts the game's position back. The message with what it found.
    pub async fn halt(self, engine: &mut Engine, game_string: &str) -> Value {
        if self.id.is_some() {
            let _ = engine.send("stop", false).await;
        }
        self.restore(engine, game_string).await;
        self.to_json(false)
    }

    async fn restore(&self, engine: &mut Engine, game_string: &str) {
        if !self.moved || game_string.is_empty() {
            return;
        }
        if let Err(e) = engine.call(&format!("position {game_string}")).await {
            log::warn!("gui: putting the game back after an analysis: {e}");
        }
    }
}

/// The family's default strategy, from the engine's `games json`.
pub fn default_strategy(games: &Value, family: &str) -> Option<String> {
    let fam = games["games"].as_array()?.iter().find(|g| g["family"] == family)?;
    let opt = fam["options"].as_array()?.iter().find(|o| o["name"] == "Strategy")?;
    opt["default"].as_str().map(str::to_string)
}

/// The board after `ply` plies, for one browser reviewing the game.
pub fn review(g: &Game, ply: usize) -> Result<Value, String> {
    let board = g.boards.get(ply).ok_or("that position is not kept")?;
    let moves = game_moves(&g.game_string);
    let mv = ply.checked_sub(1).and_then(|i| moves.get(i).cloned());
    Ok(json!({"t": "review", "ply": ply, "board": board, "move": mv}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_strategy_is_read_from_games_json() {
        let games = json!({"games": [{"family": "Hive", "options": [
            {"name": "Depth"}, {"name": "Strategy", "default": "alphabeta"}]}]});
        assert_eq!(default_strategy(&games, "Hive").as_deref(), Some("alphabeta"));
        assert_eq!(default_strategy(&games, "Connect4"), None);
    }
}
