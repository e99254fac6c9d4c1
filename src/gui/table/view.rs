//! The table's state as the browsers see it: the `state` message, the
//! same for everybody (made once per change and shared by every browser's
//! queue), small whatever the game (the move tree's first level only, the
//! page asks for the levels below), and each browser's own part (the `me`
//! message: its role, the sides it may move for, and for the host the
//! invitation's key), sent to it before the state when it changes.

use crate::time::Instant;

use serde_json::{Value, json};

use crate::gui::room::{Role, Room};
use crate::gui::rounds::Rounds;

use super::game::Game;
use super::lineup::Lineup;
use super::turn::Turns;

/// What the state is made of.
pub struct View<'a> {
    pub game_no: u64,
    pub game: Option<&'a Game>,
    pub lineup: &'a Lineup,
    pub room: &'a Room,
    pub turns: &'a Turns,
    pub analysing: bool,
    pub rounds: Option<&'a Rounds>,
    /// Threads and Hash set on the engine.
    pub engine_cfg: (u32, u32),
}

impl View<'_> {
    /// The part of the state that is the same for every browser.
    pub fn common(&self) -> Value {
        let now = Instant::now();
        let g = self.game;
        let (lineup, room) = (self.lineup, self.room);
        let sides: Vec<Value> = (0..2)
            .map(|s| {
                let p = lineup.player(s);
                let holder = match lineup.host_side() {
                    None => Value::Null,
                    Some(h) if h == s => json!("host"),
                    Some(_) => json!("guest"),
                };
                if p.is_engine() {
                    json!({"kind": "engine", "name": p.strategy, "level": p.limit(), "holder": Value::Null})
                } else {
                    json!({"kind": "human", "name": lineup.person_name(s, room), "holder": holder,
                    "connected": match lineup.host_side() {
                        None => true,
                        Some(h) if h == s => room.connected(&room.host_key),
                        Some(_) => room.guest_key.as_deref().is_some_and(|k| room.connected(k)),
                    }})
                }
            })
            .collect();
        let setup = lineup.setup.as_ref().map(|s| {
            json!({"game_type": s.game_type, "family": s.family, "options": s.options, "players": s.players,
                "pause": s.pause.as_millis() as u64, "flag": s.flag, "rounds": s.rounds,
                "threads": self.engine_cfg.0, "hash": self.engine_cfg.1})
        });
        json!({
            "t": "state",
            "game_no": self.game_no,
            "game_string": g.map(|g| g.game_string.clone()),
            "board": g.map_or(Value::Null, |g| g.board.clone()),
            "tree": g.map_or(Value::Null, |g| g.tree.clone()),
            "tree_error": g.and_then(|g| g.tree_error.clone()),
            "history": g.map(Game::history).unwrap_or_default(),
            "reviewable": g.map_or(0, |g| g.boards.len()),
            "sides": sides,
            "players": [lineup.player(0), lineup.player(1)],
            "setup": setup,
            "paused": self.turns.paused,
            "searching": self.turns.to_json(),
            "analysing": self.analysing,
            "clocks": g.map(|g| g.clocks.snapshot(now)),
            "result": g.and_then(|g| g.end.as_ref()).map(|e| json!({"winner": e.winner(), "text": e.text,
                "ending": format!("{:?}", e.ending).to_lowercase()})),
            "recorded": g.and_then(|g| g.recorded.clone()).filter(|r| !r.is_empty()),
            "note": g.and_then(|g| g.note.clone()),
            "match": self.rounds.map(|r| r.to_json(lineup.round)),
            "room": room.guest_key.as_ref().map(|_| room.token.clone()),
            "host_side": lineup.host_side(),
            "watchers": room.len(),
        })
    }

    /// A browser's own part of the state (the `me` message).
    pub fn own(&self, role: Role) -> Value {
        let guest = if role == Role::Host { self.room.guest_key.clone() } else { None };
        json!({"t": "me", "role": role.text(), "you": self.lineup.seats(role), "guest_key": guest})
    }
}
