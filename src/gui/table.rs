//! A table: one game on one engine process, the players of its two sides
//! (people or engine strategies), and the browsers watching it (the host,
//! a guest holding the other seat of a networked game, spectators).
//!
//! The table is one task: browsers send it [`ClientMsg`]s, it drives the
//! engine with protocol commands only (`newgame`, `setoption`, `play`,
//! `undo`, `go`, `stop`, `board json`, `movetree json`, `save`, `load`)
//! and sends every browser the state as JSON. It knows no game.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::engine::Engine;
use super::{Rooms, token};

/// A side's player.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
pub struct PlayerCfg {
    /// `human` or `engine`.
    pub kind: String,
    #[serde(default)]
    pub strategy: String,
    /// Engine: `go movetime` in ms (used when `depth` is not given).
    #[serde(default)]
    pub movetime: Option<u64>,
    /// Engine: `go depth`.
    #[serde(default)]
    pub depth: Option<u32>,
}

impl PlayerCfg {
    fn human() -> Self {
        PlayerCfg { kind: "human".into(), strategy: String::new(), movetime: None, depth: None }
    }
    fn is_engine(&self) -> bool {
        self.kind == "engine"
    }
}

/// What a browser asks.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "t", rename_all = "lowercase")]
pub enum ClientMsg {
    New {
        game_type: String,
        #[serde(default)]
        options: BTreeMap<String, String>,
        players: [PlayerCfg; 2],
        #[serde(default)]
        pause: u64,
    },
    Play {
        #[serde(rename = "move")]
        mv: String,
    },
    Undo,
    Stop,
    Resume,
    Abandon,
    Save {
        name: String,
    },
    Load {
        name: String,
    },
    Saves,
    Invite {
        side: usize,
    },
    Chat {
        text: String,
    },
}

/// An event for the table task.
pub enum Event {
    /// A browser connected; `me` is the key it had (to rejoin its seat).
    Join {
        id: u64,
        tx: mpsc::UnboundedSender<String>,
        me: Option<String>,
    },
    Leave {
        id: u64,
    },
    Msg {
        id: u64,
        text: String,
    },
}

/// Who a browser is at this table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Host,
    Guest,
    Spectator,
}

struct Client {
    tx: mpsc::UnboundedSender<String>,
    key: String,
    name: String,
}

struct Search {
    side: usize,
    started: Instant,
    stop_requested: bool,
    bestmove: Option<String>,
    limit: Value,
}

/// The table's state; [`Table::run`] is its task.
pub struct Table {
    engine: Engine,
    games: Value,
    rooms: Arc<Rooms>,
    self_tx: mpsc::UnboundedSender<Event>,
    clients: HashMap<u64, Client>,
    host_key: String,
    guest_key: Option<String>,
    /// The side the host plays in a networked game (the guest the other).
    host_side: Option<usize>,
    room: Option<String>,
    spectators: usize,
    players: [PlayerCfg; 2],
    family: String,
    pause: Duration,
    game_string: Option<String>,
    board: Value,
    tree: Value,
    tree_error: Option<String>,
    paused: bool,
    search: Option<Search>,
    next_engine_at: Option<Instant>,
    last_move_at: Instant,
    chat: Vec<Value>,
    idle_since: Option<Instant>,
}

/// How long a networked table with nobody connected waits for a rejoin.
const ROOM_IDLE: Duration = Duration::from_secs(600);

impl Table {
    pub fn new(engine: Engine, rooms: Arc<Rooms>, self_tx: mpsc::UnboundedSender<Event>) -> Table {
        Table {
            engine,
            games: Value::Null,
            rooms,
            self_tx,
            clients: HashMap::new(),
            host_key: token(),
            guest_key: None,
            host_side: None,
            room: None,
            spectators: 0,
            players: [PlayerCfg::human(), PlayerCfg::human()],
            family: String::new(),
            pause: Duration::from_millis(500),
            game_string: None,
            board: Value::Null,
            tree: Value::Null,
            tree_error: None,
            paused: false,
            search: None,
            next_engine_at: None,
            last_move_at: Instant::now(),
            chat: Vec::new(),
            idle_since: None,
        }
    }

    /// The table's task: until nobody is left (a networked table waits a
    /// while for rejoins) or the engine dies.
    pub async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Event>) {
        match self.engine.one("games json").await {
            Ok(l) => self.games = serde_json::from_str(&l).unwrap_or(Value::Null),
            Err(e) => log::error!("games json: {e}"),
        }
        enum Wake {
            Ev(Option<Event>),
            Line(Option<String>),
            Timer,
        }
        loop {
            let deadline = self.next_engine_at.map(tokio::time::Instant::from_std);
            let idle = self.idle_since.map(|t| tokio::time::Instant::from_std(t + ROOM_IDLE));
            let searching = self.search.is_some();
            let wake = tokio::select! {
                e = rx.recv() => Wake::Ev(e),
                l = self.engine.next_line(), if searching => Wake::Line(l),
                _ = tokio::time::sleep_until(deadline.unwrap_or_else(tokio::time::Instant::now)), if deadline.is_some() => Wake::Timer,
                _ = tokio::time::sleep_until(idle.unwrap_or_else(tokio::time::Instant::now)), if idle.is_some() => break,
            };
            match wake {
                Wake::Ev(None) => break,
                Wake::Ev(Some(ev)) => self.on_event(ev).await,
                Wake::Line(None) => {
                    self.broadcast_error("the engine has exited");
                    break;
                }
                Wake::Line(Some(l)) => self.on_search_line(l).await,
                Wake::Timer => {
                    self.next_engine_at = None;
                    self.start_search().await;
                }
            }
            if self.clients.is_empty() {
                if self.room.is_none() {
                    break;
                }
                self.idle_since.get_or_insert_with(Instant::now);
            } else {
                self.idle_since = None;
            }
        }
        if let Some(r) = &self.room {
            self.rooms.lock().unwrap_or_else(|p| p.into_inner()).remove(r);
        }
    }

    fn role(&self, key: &str) -> Role {
        if key == self.host_key {
            Role::Host
        } else if self.guest_key.as_deref() == Some(key) {
            Role::Guest
        } else {
            Role::Spectator
        }
    }

    /// The sides a browser may move for.
    fn seats(&self, key: &str) -> Vec<usize> {
        let mine = |s: usize| match (self.role(key), self.host_side) {
            (Role::Host, None) => true,
            (Role::Host, Some(h)) => h == s,
            (Role::Guest, Some(h)) => h != s,
            _ => false,
        };
        (0..2).filter(|&s| mine(s) && !self.players[s].is_engine()).collect()
    }

    async fn on_event(&mut self, ev: Event) {
        match ev {
            Event::Join { id, tx, me } => {
                let key = match me {
                    Some(k) if k == self.host_key || self.guest_key.as_deref() == Some(k.as_str()) => k,
                    // The first browser of a local table is its host.
                    _ if self.clients.is_empty() && self.room.is_none() => self.host_key.clone(),
                    _ if self.room.is_some() && self.guest_key.is_none() => {
                        let k = token();
                        self.guest_key = Some(k.clone());
                        k
                    }
                    _ => token(),
                };
                let name = match self.role(&key) {
                    Role::Host | Role::Guest => self.seat_name(&key),
                    Role::Spectator => {
                        self.spectators += 1;
                        format!("Spectator {}", self.spectators)
                    }
                };
                let role = match self.role(&key) {
                    Role::Host => "host",
                    Role::Guest => "player",
                    Role::Spectator => "spectator",
                };
                let welcome = json!({"t": "welcome", "me": key, "role": role, "name": name,
                    "games": self.games, "chat": self.chat});
                let _ = tx.send(welcome.to_string());
                self.clients.insert(id, Client { tx, key, name: name.clone() });
                self.send_state_to(id);
                if self.room.is_some() {
                    self.system_chat(&format!("{name} joined"));
                }
            }
            Event::Leave { id } => {
                if let Some(c) = self.clients.remove(&id)
                    && self.room.is_some()
                {
                    self.system_chat(&format!("{} left", c.name));
                }
            }
            Event::Msg { id, text } => match serde_json::from_str::<ClientMsg>(&text) {
                Ok(m) => {
                    if let Err(e) = self.on_msg(id, m).await {
                        self.send_to(id, json!({"t": "error", "text": e}));
                    }
                }
                Err(e) => self.send_to(id, json!({"t": "error", "text": format!("bad message: {e}")})),
            },
        }
    }

    fn seat_name(&self, key: &str) -> String {
        let sides = self.board["sides"].as_array().cloned().unwrap_or_default();
        let seats = self.seats(key);
        match (self.role(key), seats.as_slice()) {
            (Role::Host, _) if self.host_side.is_none() => "Host".into(),
            (_, [s]) => sides.get(*s).and_then(Value::as_str).unwrap_or("Player").to_string(),
            (Role::Guest, _) => "Guest".into(),
            _ => "Host".into(),
        }
    }

    async fn on_msg(&mut self, id: u64, m: ClientMsg) -> Result<(), String> {
        let key = self.clients.get(&id).map(|c| c.key.clone()).ok_or("unknown client")?;
        let role = self.role(&key);
        let host_only =
            || if role == Role::Host { Ok(()) } else { Err("only the host may do that".to_string()) };
        match m {
            ClientMsg::Chat { text } => {
                let name = self.clients[&id].name.clone();
                let text: String = text.chars().filter(|c| !c.is_control()).take(500).collect();
                if !text.trim().is_empty() {
                    self.push_chat(json!({"from": name, "text": text}));
                }
            }
            ClientMsg::Play { mv } => {
                let turn = self.turn().ok_or("no game in progress")?;
                if self.search.is_some() {
                    return Err("the engine is thinking".into());
                }
                if !self.seats(&key).contains(&turn) {
                    return Err("it is not your move".into());
                }
                let gs = self.engine.one(&format!("play {mv}")).await?;
                self.after_move(gs, &mv, turn, false).await;
            }
            ClientMsg::New { game_type, options, players, pause } => {
                host_only()?;
                self.halt().await;
                for p in &players {
                    if !matches!(p.kind.as_str(), "human" | "engine") {
                        return Err(format!("unknown player kind '{}'", p.kind));
                    }
                }
                let gs = self.engine.one(&format!("newgame {game_type}")).await?;
                let fam = self.engine.one("board json").await.ok();
                let family = fam
                    .and_then(|b| serde_json::from_str::<Value>(&b).ok())
                    .and_then(|b| b["family"].as_str().map(str::to_string))
                    .unwrap_or_default();
                // Options apply to the new game: set them, then start it again.
                let mut again = false;
                for (name, value) in &options {
                    if value.is_empty() {
                        continue;
                    }
                    self.engine.command(&format!("setoption name {family}.{name} value {value}")).await?;
                    again = true;
                }
                let gs = if again { self.engine.one(&format!("newgame {game_type}")).await? } else { gs };
                self.family = family;
                self.players = players;
                self.pause = Duration::from_millis(pause.min(10_000));
                self.paused = false;
                self.set_game(gs).await;
                self.broadcast_state();
                self.advance();
            }
            ClientMsg::Undo => {
                host_only()?;
                self.halt().await;
                let plies = self.history().len();
                if plies == 0 {
                    return Err("nothing to undo".into());
                }
                // Back to a person's turn when the side before is an engine.
                let mover = (plies - 1) % 2;
                let n = if self.players[mover].is_engine() && plies >= 2 { 2 } else { 1 };
                let gs = self.engine.one(&format!("undo {n}")).await?;
                self.set_game(gs).await;
                self.paused = self.turn().is_some_and(|t| self.players[t].is_engine());
                self.broadcast_state();
                self.advance();
            }
            ClientMsg::Stop => {
                host_only()?;
                self.paused = true;
                self.next_engine_at = None;
                if let Some(s) = &mut self.search {
                    s.stop_requested = true;
                    self.engine.send("stop").await?;
                }
                self.broadcast_state();
            }
            ClientMsg::Resume => {
                host_only()?;
                self.paused = false;
                self.broadcast_state();
                self.advance();
            }
            ClientMsg::Abandon => {
                host_only()?;
                self.halt().await;
                self.game_string = None;
                self.board = Value::Null;
                self.tree = Value::Null;
                self.broadcast_state();
            }
            ClientMsg::Save { .. } | ClientMsg::Saves if self.search.is_some() => {
                return Err("the engine is thinking: wait for its move or stop it".into());
            }
            ClientMsg::Save { name } => {
                host_only()?;
                let line = self.engine.one(&format!("save {}", one_word(&name)?)).await?;
                self.send_to(id, json!({"t": "notice", "text": line}));
            }
            ClientMsg::Load { name } => {
                host_only()?;
                self.halt().await;
                let gs = self.engine.one(&format!("load {}", one_word(&name)?)).await?;
                self.set_game(gs).await;
                self.family = self.board["family"].as_str().unwrap_or("").to_string();
                self.paused = true;
                self.broadcast_state();
            }
            ClientMsg::Saves => {
                let list = self.engine.command("saves").await?;
                self.send_to(id, json!({"t": "saves", "list": list}));
            }
            ClientMsg::Invite { side } => {
                host_only()?;
                if side > 1 {
                    return Err("side is 0 or 1".into());
                }
                self.host_side = Some(side);
                if self.room.is_none() {
                    let r = token();
                    self.rooms
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(r.clone(), self.self_tx.clone());
                    self.room = Some(r);
                }
                for c in self.clients.values_mut() {
                    if c.key == self.host_key {
                        c.name = String::new();
                    }
                }
                let host_name = self.seat_name(&self.host_key.clone());
                for c in self.clients.values_mut() {
                    if c.key == self.host_key {
                        c.name = host_name.clone();
                    }
                }
                self.broadcast_state();
            }
        }
        Ok(())
    }

    /// Stops a running search and waits for its end (its move is dropped).
    async fn halt(&mut self) {
        self.next_engine_at = None;
        if self.search.take().is_some() {
            let _ = self.engine.send("stop").await;
            while let Some(l) = self.engine.next_line().await {
                if l == "ok" {
                    break;
                }
            }
        }
    }

    async fn set_game(&mut self, gs: String) {
        self.game_string = Some(gs);
        self.last_move_at = Instant::now();
        self.refresh().await;
    }

    /// Reads the board and the move tree from the engine.
    async fn refresh(&mut self) {
        self.board = match self.engine.one("board json").await {
            Ok(l) => serde_json::from_str(&l).unwrap_or(Value::Null),
            Err(_) => Value::Null,
        };
        self.tree = Value::Null;
        self.tree_error = None;
        if self.turn().is_some() {
            match self.engine.one("movetree json").await {
                Ok(l) => self.tree = serde_json::from_str(&l).unwrap_or(Value::Null),
                Err(e) => self.tree_error = Some(e),
            }
        }
    }

    /// The side to move, `None` without a game or once it is over.
    fn turn(&self) -> Option<usize> {
        let state = self.board["state"].as_str()?;
        if state.ends_with("Wins") || state == "Draw" {
            return None;
        }
        self.board["turn"].as_u64().map(|t| t as usize)
    }

    fn history(&self) -> Vec<String> {
        let Some(gs) = &self.game_string else { return Vec::new() };
        gs.split(';').skip(3).filter(|m| !m.contains('=')).map(str::to_string).collect()
    }

    async fn after_move(&mut self, gs: String, mv: &str, side: usize, by_engine: bool) {
        let before = self.tree.clone();
        self.set_game(gs).await;
        self.broadcast(json!({"t": "moved", "move": mv, "side": side, "engine": by_engine, "tree": before}));
        self.broadcast_state();
        self.advance();
    }

    /// Schedules the engine's move if an engine is to move.
    fn advance(&mut self) {
        if self.paused || self.search.is_some() {
            return;
        }
        if let Some(t) = self.turn()
            && self.players[t].is_engine()
        {
            self.next_engine_at = Some((self.last_move_at + self.pause).max(Instant::now()));
        }
    }

    async fn start_search(&mut self) {
        let Some(side) = self.turn() else { return };
        let p = self.players[side].clone();
        if !p.is_engine() || self.paused {
            return;
        }
        if !p.strategy.is_empty()
            && let Err(e) = self
                .engine
                .command(&format!("setoption name {}.Strategy value {}", self.family, p.strategy))
                .await
        {
            self.broadcast_error(&e);
        }
        let (cmd, limit) = match (p.depth, p.movetime) {
            (Some(d), _) => (format!("go depth {d}"), json!({"depth": d})),
            (None, t) => {
                let t = t.unwrap_or(1000).clamp(1, 3_600_000);
                (format!("go movetime {t}"), json!({"movetime": t}))
            }
        };
        if let Err(e) = self.engine.send(&cmd).await {
            return self.broadcast_error(&e);
        }
        self.search =
            Some(Search { side, started: Instant::now(), stop_requested: false, bestmove: None, limit });
        self.broadcast_state();
    }

    async fn on_search_line(&mut self, l: String) {
        let Some(s) = &mut self.search else { return };
        if let Some(m) = l.strip_prefix("bestmove ") {
            s.bestmove = Some(m.trim().to_string());
        } else if l.starts_with("info") {
            let side = s.side;
            self.broadcast(json!({"t": "info", "side": side, "line": l}));
        } else if let Some(e) = l.strip_prefix("err ") {
            self.broadcast_error(e);
        } else if l == "ok" {
            let s = self.search.take().expect("checked");
            match s.bestmove {
                Some(mv) if !s.stop_requested => match self.engine.one(&format!("play {mv}")).await {
                    Ok(gs) => self.after_move(gs, &mv, s.side, true).await,
                    Err(e) => self.broadcast_error(&e),
                },
                _ => {
                    self.paused = true;
                    self.broadcast_state();
                }
            }
        }
    }

    fn state_for(&self, key: &str) -> Value {
        let searching = self.search.as_ref().map(
            |s| json!({"side": s.side, "elapsed": s.started.elapsed().as_millis() as u64, "limit": s.limit}),
        );
        json!({
            "t": "state",
            "role": match self.role(key) { Role::Host => "host", Role::Guest => "player", Role::Spectator => "spectator" },
            "you": self.seats(key),
            "game_string": self.game_string,
            "board": self.board,
            "tree": self.tree,
            "tree_error": self.tree_error,
            "history": self.history(),
            "players": self.players,
            "paused": self.paused,
            "searching": searching,
            "pause": self.pause.as_millis() as u64,
            "room": self.room,
            "host_side": self.host_side,
            "guest": self.guest_key.is_some(),
            "watchers": self.clients.len(),
        })
    }

    fn send_to(&self, id: u64, v: Value) {
        if let Some(c) = self.clients.get(&id) {
            let _ = c.tx.send(v.to_string());
        }
    }

    fn send_state_to(&self, id: u64) {
        if let Some(c) = self.clients.get(&id) {
            let _ = c.tx.send(self.state_for(&c.key).to_string());
        }
    }

    fn broadcast_state(&self) {
        for c in self.clients.values() {
            let _ = c.tx.send(self.state_for(&c.key).to_string());
        }
    }

    fn broadcast(&self, v: Value) {
        let text = v.to_string();
        for c in self.clients.values() {
            let _ = c.tx.send(text.clone());
        }
    }

    fn broadcast_error(&self, e: &str) {
        self.broadcast(json!({"t": "error", "text": e}));
    }

    fn push_chat(&mut self, msg: Value) {
        self.chat.push(msg.clone());
        if self.chat.len() > 200 {
            self.chat.remove(0);
        }
        let mut m = msg;
        m["t"] = json!("chat");
        self.broadcast(m);
    }

    fn system_chat(&mut self, text: &str) {
        self.push_chat(json!({"from": "", "text": text}));
    }
}

/// A save name: one word of letters, digits, `-` and `_`.
fn one_word(name: &str) -> Result<&str, String> {
    let n = name.trim();
    if n.is_empty() || n.len() > 64 || !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err("a save name is one word of letters, digits, - and _".into());
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_parse() {
        let m: ClientMsg = serde_json::from_str(r#"{"t":"play","move":"wA1 -bQ"}"#).unwrap();
        assert_eq!(m, ClientMsg::Play { mv: "wA1 -bQ".into() });
        let m: ClientMsg = serde_json::from_str(
            r#"{"t":"new","game_type":"Connect4","players":[{"kind":"human"},{"kind":"engine","strategy":"perfect","movetime":300}]}"#,
        )
        .unwrap();
        match m {
            ClientMsg::New { players, pause, .. } => {
                assert!(players[1].is_engine() && players[1].movetime == Some(300));
                assert_eq!(pause, 0);
            }
            _ => panic!("{m:?}"),
        }
        assert!(serde_json::from_str::<ClientMsg>(r#"{"t":"rm -rf"}"#).is_err());
    }

    #[test]
    fn save_names_are_one_plain_word() {
        assert_eq!(one_word(" game_1 "), Ok("game_1"));
        assert!(one_word("../x").is_err());
        assert!(one_word("a b").is_err());
        assert!(one_word("").is_err());
    }
}
