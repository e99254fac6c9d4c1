//! The game on the table as the engine shows it: its GameString, the
//! board (`board json`) and the first level of its move tree (`movetree
//! json level`: the page asks for the levels below as a person selects),
//! the board after every ply for reviewing ([`Boards`], compact), its
//! clocks and how it ended. The engine holds the position; this is what
//! the table last read of it.

use crate::time::Instant;

use serde_json::Value;

use crate::gui::client::{Engine, Failure};
use crate::gui::clock::Clocks;
use crate::gui::record::End;

use super::boards::{Boards, MAX_PLIES};

/// The game on the table.
pub struct Game {
    pub family: String,
    pub game_string: String,
    pub board: Value,
    /// The first level of the move tree (children with more below are
    /// marked `more`), whatever the game's number of moves.
    pub tree: Value,
    pub tree_error: Option<String>,
    /// The board after each ply, for reviewing (index: plies played).
    pub boards: Boards,
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
            tree_error: None,
            boards: Boards::default(),
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
        self.boards.get(ply).unwrap_or(Value::Null)
    }

    /// The two sides' names (`Red`, `Yellow`).
    pub fn side_names(&self) -> [String; 2] {
        let n = |i: usize| self.board["sides"][i].as_str().unwrap_or(["first", "second"][i]).to_string();
        [n(0), n(1)]
    }

    /// Reads the board and the first level of the move tree from the
    /// engine (both sent at once, answered in turn).
    pub async fn refresh(&mut self, engine: &mut Engine) {
        let (board, tree) = read_board_and_level(engine).await;
        self.set_position(board, tree);
    }

    fn set_position(&mut self, board: Value, tree: Result<String, Failure>) {
        let (mut t, mut error) = (Value::Null, None);
        if !is_over(&board) && board["state"].is_string() {
            match tree {
                Ok(l) => t = serde_json::from_str(&l).unwrap_or(Value::Null),
                Err(e) => error = Some(e.to_string()),
            }
        }
        self.board = board;
        self.tree = t;
        self.tree_error = error;
    }

    /// The boards of a game set up from a GameString or loaded: taken
    /// back to its start and played again (the engine keeps what the
    /// string does not say, such as a secret).
    pub async fn fill_boards(&mut self, engine: &mut Engine) {
        let moves = self.history();
        let n = moves.len();
        self.boards.clear();
        if n == 0 {
            self.boards.push(&self.board);
            return;
        }
        if n >= MAX_PLIES {
            return;
        }
        let r: Result<(), Failure> = async {
            engine.call(&format!("undo {n}")).await?;
            self.boards.push(&read_board_strict(engine).await?);
            for m in &moves {
                // The move and the board after it, sent at once.
                let played = engine.send(&format!("play {m}"), false).await?;
                let board = read_board_strict(engine).await;
                engine.reply(played).await?;
                self.boards.push(&board?);
            }
            Ok(())
        }
        .await;
        if let Err(e) = r {
            log::warn!("gui: replaying the game for its review: {e}");
            self.boards.clear();
        }
    }

    /// A move was played (read at `at`): the position after it, the
    /// mover's clock.
    pub fn moved(&mut self, played: Played, side: usize, at: Instant) {
        self.game_string = played.game_string;
        self.set_position(played.board, played.tree);
        self.last_move_at = at;
        self.clocks.moved(side, at);
        self.note = None;
    }

    /// Keeps the board just read for reviewing (the board of the ply
    /// before must be kept).
    pub fn keep_board(&mut self) {
        if self.boards.len() == self.ply() {
            self.boards.push(&self.board);
        }
    }
}

/// A move played and the position after it, read back.
pub struct Played {
    pub game_string: String,
    pub board: Value,
    pub tree: Result<String, Failure>,
    /// The levels of the move tree asked for at the position before the
    /// move, in order (null where refused).
    pub levels: Vec<Value>,
}

/// Plays `mv`, asking first for the levels below the prefixes `before`
/// (at the position before the move), then reads the board and the first
/// level of the tree after it: all written at once, so the table waits
/// once for the engine (which answers in order), however busy the machine.
pub async fn play(engine: &mut Engine, mv: &str, before: &[Vec<String>]) -> Result<Played, Failure> {
    let mut asked = Vec::with_capacity(before.len());
    for p in before {
        asked.push(engine.send(&format!("movetree json level {}", p.join(" ")), false).await?);
    }
    let play = engine.send(&format!("play {mv}"), false).await?;
    let tree = engine.send("movetree json level", false).await?;
    let board = engine.send("board json", false).await?;
    let mut levels = Vec::with_capacity(asked.len());
    for id in asked {
        let line = engine.reply(id).await.ok().and_then(|mut v| v.pop());
        levels.push(line.and_then(|l| serde_json::from_str(&l).ok()).unwrap_or(Value::Null));
    }
    // Every reply is taken, also when the move is refused.
    let played = engine.reply(play).await;
    let tree = engine.reply(tree).await.and_then(|mut v| v.pop().ok_or(Failure::Refused("no tree".into())));
    let board = engine.reply(board).await;
    let game_string = played?.pop().ok_or_else(|| Failure::Refused(format!("no reply to play {mv}")))?;
    let board = board?.pop().and_then(|l| serde_json::from_str(&l).ok()).unwrap_or(Value::Null);
    Ok(Played { game_string, board, tree, levels })
}

/// The engine's `board json` (null if unreadable).
pub async fn read_board(engine: &mut Engine) -> Value {
    read_board_strict(engine).await.unwrap_or(Value::Null)
}

async fn read_board_strict(engine: &mut Engine) -> Result<Value, Failure> {
    Ok(serde_json::from_str(&engine.one("board json").await?).unwrap_or(Value::Null))
}

/// `board json` and `movetree json level`, written together (one wait).
async fn read_board_and_level(engine: &mut Engine) -> (Value, Result<String, Failure>) {
    let level = match engine.send("movetree json level", false).await {
        Ok(id) => id,
        Err(e) => return (Value::Null, Err(e)),
    };
    let board = read_board(engine).await;
    let tree = engine.reply(level).await.and_then(|mut v| v.pop().ok_or(Failure::Refused("no tree".into())));
    (board, tree)
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
