//! The game on the table as the engine shows it: its GameString, the
//! board and move tree (`board json`, `movetree json`), the board after
//! every ply for reviewing, its clocks and how it ended. The engine holds
//! the position; this is what the table last read of it.

use std::time::Instant;

use serde_json::Value;

use crate::gui::client::{Engine, Failure};
use crate::gui::clock::Clocks;
use crate::gui::record::End;

/// Boards kept for reviewing a game; past it the review starts later.
pub const MAX_BOARDS: usize = 3000;

/// The game on the table.
pub struct Game {
    pub family: String,
    pub game_string: String,
    pub board: Value,
    pub tree: Value,
    /// The tree is one level (children marked `more` are asked for).
    pub tree_level: bool,
    pub tree_error: Option<String>,
    /// The board after each ply, for reviewing (index: plies played).
    pub boards: Vec<Value>,
    pub end: Option<End>,
    /// What became of its record, once finished.
    pub recorded: Option<String>,
    pub clocks: Clocks,
    pub last_move_at: Instant,
    /// A line for people about the game (loaded, paused, restarted).
    pub note: Option<String>,
}

impl Game {
    /// A game just started or loaded: nothing asked of the engine yet.
    pub fn new(family: String, game_string: String, board: Value, clocks: Clocks) -> Game {
        Game {
            family,
            game_string,
            board,
            tree: Value::Null,
            tree_level: false,
            tree_error: None,
            boards: Vec::new(),
            end: None,
            recorded: None,
            clocks,
            last_move_at: Instant::now(),
            note: None,
        }
    }

    /// The side to move, `None` once it is over.
    pub fn turn(&self) -> Option<usize> {
        if self.end.is_some() || is_over(&self.board) {
            return None;
        }
        self.board["turn"].as_u64().map(|t| t as usize)
    }

    /// Plies played.
    pub fn ply(&self) -> usize {
        self.board["ply"].as_u64().unwrap_or(0) as usize
    }

    /// The moves played.
    pub fn history(&self) -> Vec<String> {
        game_moves(&self.game_string)
    }

    /// The board after `ply` plies, if kept.
    pub fn board_at(&self, ply: usize) -> Value {
        self.boards.get(ply).cloned().unwrap_or(Value::Null)
    }

    /// The two sides' names (`Red`, `Yellow`).
    pub fn side_names(&self) -> [String; 2] {
        let n = |i: usize| self.board["sides"][i].as_str().unwrap_or(["first", "second"][i]).to_string();
        [n(0), n(1)]
    }

    /// Reads the board and the move tree from the engine.
    pub async fn refresh(&mut self, engine: &mut Engine) {
        let board = read_board(engine).await;
        let (mut tree, mut level, mut error) = (Value::Null, false, None);
        if !is_over(&board) && board["state"].is_string() {
            match engine.one("movetree json").await {
                Ok(l) => tree = serde_json::from_str(&l).unwrap_or(Value::Null),
                Err(Failure::Refused(_)) => match engine.one("movetree json level").await {
                    Ok(l) => {
                        tree = serde_json::from_str(&l).unwrap_or(Value::Null);
                        level = true;
                    }
                    Err(e) => error = Some(e.to_string()),
                },
                Err(e) => error = Some(e.to_string()),
            }
        }
        self.board = board;
        self.tree = tree;
        self.tree_level = level;
        self.tree_error = error;
    }

    /// The boards of a game set up from a GameString or loaded: taken
    /// back to its start and played again (the engine keeps what the
    /// string does not say, such as a secret).
    pub async fn fill_boards(&mut self, engine: &mut Engine) {
        let moves = self.history();
        let n = moves.len();
        if n == 0 || n > MAX_BOARDS {
            self.boards = if n == 0 { vec![self.board.clone()] } else { Vec::new() };
            return;
        }
        let mut boards = Vec::with_capacity(n + 1);
        let r: Result<(), Failure> = async {
            engine.call(&format!("undo {n}")).await?;
            boards.push(serde_json::from_str(&engine.one("board json").await?).unwrap_or(Value::Null));
            for m in &moves {
                engine.call(&format!("play {m}")).await?;
                boards.push(serde_json::from_str(&engine.one("board json").await?).unwrap_or(Value::Null));
            }
            Ok(())
        }
        .await;
        if let Err(e) = r {
            log::warn!("gui: replaying the game for its review: {e}");
            boards.clear();
        }
        self.boards = boards;
    }

    /// A move was played at `now`: the new GameString, the mover's clock.
    pub fn moved(&mut self, game_string: String, side: usize, now: Instant) {
        self.game_string = game_string;
        self.last_move_at = now;
        self.clocks.moved(side, now);
        self.note = None;
    }

    /// Keeps the board just read for reviewing.
    pub fn keep_board(&mut self) {
        if self.boards.len() < MAX_BOARDS {
            self.boards.push(self.board.clone());
        }
    }
}

/// The engine's `board json` (null if unreadable).
pub async fn read_board(engine: &mut Engine) -> Value {
    match engine.one("board json").await {
        Ok(l) => serde_json::from_str(&l).unwrap_or(Value::Null),
        Err(_) => Value::Null,
    }
}

/// True if a board shows a finished game.
pub fn is_over(board: &Value) -> bool {
    board["state"].as_str().is_some_and(|s| s.ends_with("Wins") || s == "Draw")
}

/// The moves of a GameString (its fields after the third that are not
/// `Name=value` extras).
pub fn game_moves(gs: &str) -> Vec<String> {
    gs.split(';').skip(3).filter(|m| !m.contains('=')).map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gui::clock::TimeControl;
    use serde_json::json;

    #[test]
    fn moves_turns_and_sides_of_a_game() {
        assert_eq!(
            game_moves("Mastermind;BreakerWins;Breaker[2];1234;4B0W;Secret=1234"),
            vec!["1234", "4B0W"]
        );
        let clocks = Clocks::new([TimeControl::None; 2], false);
        let mut g =
            Game::new("Connect4".into(), "Connect4;InProgress;Red[2];4;4".into(), Value::Null, clocks);
        g.board = json!({"state": "InProgress", "turn": 0, "ply": 2, "sides": ["Red", "Yellow"]});
        assert_eq!((g.turn(), g.ply(), g.history().len()), (Some(0), 2, 2));
        assert_eq!(g.side_names(), ["Red".to_string(), "Yellow".to_string()]);
        g.board["state"] = json!("RedWins");
        assert_eq!(g.turn(), None);
    }
}
