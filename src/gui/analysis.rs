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

use super::client::{Failure, Id};
use super::table::{Table, game_moves};

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

impl Analysis {
    fn to_json(&self, running: bool) -> Value {
        json!({"t": "analysis", "ply": self.ply, "running": running, "lines": self.lines,
            "info": self.info, "best": self.best, "error": self.error})
    }
}

impl Table {
    /// Starts analysing the position after `ply` plies (default: now).
    pub(super) async fn analyze(&mut self, ply: Option<usize>) -> Result<(), String> {
        let g = self.game.as_ref().ok_or("no game to analyse")?;
        let current = g.board["ply"].as_u64().unwrap_or(0) as usize;
        let ply = ply.unwrap_or(current);
        let over = g.end.is_some();
        let family = g.family.clone();
        let moves = game_moves(&g.game_string);
        let game_type = g.board["game_type"].as_str().unwrap_or("").to_string();
        let now_state = g.board["state"].clone();
        if ply > current {
            return Err(format!("the game has {current} plies"));
        }
        if ply != current && !over {
            return Err("earlier positions are analysed once the game is over".into());
        }
        if self.host_side().is_some() && !over {
            return Err("a game between people over the network is analysed once it is over".into());
        }
        if let Some(t) = self.turn()
            && self.player(t).is_engine()
            && !self.paused
        {
            return Err("the engine is about to move: stop it first".into());
        }
        self.halt_analysis().await;
        let moved = ply != current;
        if moved {
            let line = match ply {
                0 => format!("position {game_type}"),
                k => format!("position {game_type} moves {}", moves[..k].join(";")),
            };
            self.engine.call(&line).await?;
        }
        let state = if moved { self.board_at(ply)["state"].clone() } else { now_state };
        let done = state.as_str().is_some_and(|s| s.ends_with("Wins") || s == "Draw");
        let strategy = self.default_strategy(&family);
        self.analysis = Some(Analysis {
            id: None,
            phase: Phase::Analyze,
            ply,
            moved,
            over: done,
            lines: Vec::new(),
            info: Vec::new(),
            best: None,
            error: None,
        });
        if let Some(s) = strategy
            && let Err(e) = self.engine.call(&format!("setoption name {family}.Strategy value {s}")).await
        {
            log::warn!("gui: analysis strategy: {e}");
        }
        let id = self.engine.send(&format!("analyze movetime {ANALYZE_MS}"), true).await?;
        if let Some(a) = &mut self.analysis {
            a.id = Some(id);
            let m = a.to_json(true);
            self.broadcast(m);
        }
        self.broadcast_state();
        Ok(())
    }

    fn board_at(&self, ply: usize) -> Value {
        self.game.as_ref().and_then(|g| g.boards.get(ply).cloned()).unwrap_or(Value::Null)
    }

    /// The family's default strategy (`games json`).
    fn default_strategy(&self, family: &str) -> Option<String> {
        let fam = self.games["games"].as_array()?.iter().find(|g| g["family"] == family)?;
        let opt = fam["options"].as_array()?.iter().find(|o| o["name"] == "Strategy")?;
        opt["default"].as_str().map(str::to_string)
    }

    pub(super) fn on_analysis_line(&mut self, line: String) {
        let Some(a) = &mut self.analysis else { return };
        match a.phase {
            Phase::Analyze => a.lines.push(line),
            Phase::Search => {
                if let Some(m) = line.strip_prefix("bestmove ") {
                    a.best = Some(m.trim().to_string());
                } else {
                    a.info.push(line);
                    if a.info.len() > 20 {
                        a.info.remove(0);
                    }
                }
            }
        }
        let m = a.to_json(true);
        self.broadcast(m);
    }

    pub(super) async fn on_analysis_done(&mut self, reply: Result<Vec<String>, Failure>) {
        let Some(a) = &mut self.analysis else { return };
        if let Err(e) = reply {
            match a.phase {
                // Hive has no `analyze`: its search is the analysis.
                Phase::Analyze if e.to_string().contains("not available") => {}
                _ => a.error = Some(e.to_string()),
            }
        }
        if a.phase == Phase::Analyze && !a.over {
            a.phase = Phase::Search;
            a.id = None;
            match self.engine.send(&format!("go movetime {SEARCH_MS}"), true).await {
                Ok(id) => {
                    if let Some(a) = &mut self.analysis {
                        a.id = Some(id);
                    }
                }
                Err(e) => {
                    if let Some(a) = &mut self.analysis {
                        a.error = Some(e.to_string());
                    }
                    self.finish_analysis().await;
                }
            }
            return;
        }
        self.finish_analysis().await;
    }

    /// The analysis is complete: the game's position is put back.
    async fn finish_analysis(&mut self) {
        let Some(a) = self.analysis.take() else { return };
        self.restore(a.moved).await;
        self.broadcast(a.to_json(false));
        self.broadcast_state();
    }

    async fn restore(&mut self, moved: bool) {
        if !moved {
            return;
        }
        if let Some(gs) = self.game.as_ref().map(|g| g.game_string.clone())
            && let Err(e) = self.engine.call(&format!("position {gs}")).await
        {
            log::warn!("gui: putting the game back after an analysis: {e}");
        }
    }

    /// Stops an analysis (what it found so far stays on the page) and
    /// puts the game's position back.
    pub(super) async fn halt_analysis(&mut self) {
        let Some(a) = self.analysis.take() else { return };
        if a.id.is_some() {
            let _ = self.engine.send("stop", false).await;
        }
        self.restore(a.moved).await;
        self.broadcast(a.to_json(false));
    }

    pub(super) async fn stop_analysis(&mut self) {
        self.halt_analysis().await;
    }

    /// The board after `ply` plies, for one browser reviewing the game.
    pub(super) fn review(&mut self, id: u64, ply: usize) -> Result<(), String> {
        let g = self.game.as_ref().ok_or("no game to review")?;
        let board = g.boards.get(ply).cloned().ok_or("that position is not kept")?;
        let moves = game_moves(&g.game_string);
        let mv = ply.checked_sub(1).and_then(|i| moves.get(i).cloned());
        self.send_to(id, json!({"t": "review", "ply": ply, "board": board, "move": mv}));
        Ok(())
    }
}
