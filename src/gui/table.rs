//! A table: one game (or a match of rounds) on one engine process, the
//! players of its two sides (people or engine strategies), and the browsers
//! at it ([`Room`]).
//!
//! The table is one task. Browsers send it [`ClientMsg`]s; it drives the
//! engine with protocol commands only (`newgame`, `setoption`, `play`,
//! `undo`, `go`, `stop`, `analyze`, `position`, `board json`, `movetree
//! json`, `save`, `load`, `saves`) through the engine client, which matches
//! every reply to its command, and sends every browser the state as JSON.
//! It knows no game, except what a match of rounds is worth
//! ([`super::rounds`]).
//!
//! Every page action may come during a search: the search is stopped
//! (`stop`; its move is dropped) before anything else is sent, and a
//! search's reply that comes after its game changed is recognised by its
//! command's id and dropped.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::client::{Engine, Event as EngineEvent, Failure, Id};
use super::clock::{Clocks, TimeControl};
use super::record::{self, End};
use super::room::{Outbox, Role, Room};
use super::rounds::{self, Rounds};
use super::{Config, Rooms};
use crate::results::{Ending, Player};

/// A side's player, as the page sets it up.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct PlayerCfg {
    /// `human` or `engine`.
    pub kind: String,
    /// Engine: its strategy.
    #[serde(default)]
    pub strategy: String,
    /// A person's name (a local game; a networked seat's holder names it).
    #[serde(default)]
    pub name: String,
    /// Engine: `go movetime` in ms (when neither `depth` nor a clock).
    #[serde(default)]
    pub movetime: Option<u64>,
    /// Engine: `go depth`.
    #[serde(default)]
    pub depth: Option<u32>,
    /// The side's time control (an engine with a clock plays by it).
    #[serde(default)]
    pub time: TimeControl,
}

impl PlayerCfg {
    fn human() -> Self {
        PlayerCfg {
            kind: "human".into(),
            strategy: String::new(),
            name: String::new(),
            movetime: None,
            depth: None,
            time: TimeControl::None,
        }
    }

    pub fn is_engine(&self) -> bool {
        self.kind == "engine"
    }

    /// An engine's `go` limit, also its level in the results (`depth 6`,
    /// `movetime 300`, `clock 5+3`).
    fn limit(&self) -> String {
        match (self.time, self.depth) {
            (TimeControl::Clock { .. }, _) => format!("clock {}", self.time.text()),
            (TimeControl::Move { ms }, _) => format!("movetime {ms}"),
            (_, Some(d)) => format!("depth {d}"),
            _ => format!("movetime {}", self.movetime.unwrap_or(1000).clamp(1, 3_600_000)),
        }
    }
}

/// Engine-wide settings of a new game.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct EngineCfg {
    #[serde(default)]
    pub threads: Option<u32>,
    #[serde(default)]
    pub hash: Option<u32>,
}

/// What a browser asks (parsed and handled at once, so the size of `New`
/// costs nothing).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "t", rename_all = "lowercase")]
pub enum ClientMsg {
    /// A new game (or a match of `rounds`); `game_type` may be a GameString
    /// (a position to set up).
    New {
        game_type: String,
        #[serde(default)]
        options: BTreeMap<String, String>,
        players: [PlayerCfg; 2],
        #[serde(default)]
        pause: u64,
        #[serde(default)]
        rounds: Option<u32>,
        /// Loss on time.
        #[serde(default)]
        flag: bool,
        #[serde(default)]
        engine: EngineCfg,
    },
    Play {
        #[serde(rename = "move")]
        mv: String,
    },
    Undo,
    Stop,
    Resume,
    Abandon,
    Resign,
    /// The next round of a match.
    Next,
    Save {
        name: String,
    },
    Load {
        name: String,
    },
    Saves,
    /// Share the table: the host plays `side` (in the first round).
    Invite {
        side: usize,
    },
    /// The guest seat gets a new link; whoever held it watches.
    Free,
    Chat {
        text: String,
    },
    Name {
        name: String,
    },
    /// One level of the move tree below `prefix` (actions), at `ply`.
    Tree {
        ply: usize,
        #[serde(default)]
        prefix: Vec<String>,
    },
    /// Analyse the position after `ply` plies (default: the current one).
    Analyze {
        #[serde(default)]
        ply: Option<usize>,
    },
    /// The board after `ply` plies of this game (reviewing it).
    Review {
        ply: usize,
    },
    Leaderboard {
        #[serde(default)]
        game: Option<String>,
        #[serde(default)]
        vs: Option<String>,
    },
}

/// An event for the table task.
pub enum Event {
    /// A browser connected; `me` is the key it had (to take its seat).
    Join {
        id: u64,
        outbox: Outbox,
        kick: oneshot::Sender<()>,
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

/// The settings of the game or match being played.
#[derive(Clone, Debug)]
pub(super) struct Setup {
    pub game_type: String,
    pub family: String,
    pub options: BTreeMap<String, String>,
    /// In match order: match player `p` plays side `p` in the first round.
    pub players: [PlayerCfg; 2],
    pub pause: Duration,
    pub flag: bool,
    pub rounds: u32,
}

/// The game on the table.
pub(super) struct Game {
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
    fn new(family: String, game_string: String, board: Value, clocks: Clocks) -> Game {
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
}

/// Boards kept for reviewing a game; past it the review starts later.
const MAX_BOARDS: usize = 3000;

struct Search {
    id: Id,
    side: usize,
    started: Instant,
    stopped: bool,
    bestmove: Option<String>,
    limit: String,
}

/// A reply awaited for a browser.
enum Waiting {
    Tree {
        client: u64,
        ply: usize,
        prefix: Vec<String>,
    },
    /// `save`, sent when the table showed `game_string`.
    Save {
        client: u64,
        game_string: String,
    },
    Saves {
        client: u64,
    },
}

/// The table's state; [`Table::run`] is its task.
pub struct Table {
    pub(super) cfg: Arc<Config>,
    pub(super) engine: Engine,
    pub(super) games: Value,
    pub(super) room: Room,
    rooms: Arc<Rooms>,
    pub(super) setup: Option<Setup>,
    pub(super) game: Option<Game>,
    rounds: Option<Rounds>,
    pub(super) round: usize,
    /// The match seat the host plays in a networked game (`None`: local,
    /// the host plays every person's side).
    host_seat: Option<usize>,
    pub(super) paused: bool,
    search: Option<Search>,
    pub(super) analysis: Option<super::analysis::Analysis>,
    waiting: HashMap<Id, Waiting>,
    next_engine_at: Option<Instant>,
    next_round_at: Option<Instant>,
    last_activity: Instant,
    empty_since: Option<Instant>,
    /// Threads and Hash set on the engine.
    engine_cfg: (u32, u32),
    /// Games started or loaded at this table so far.
    game_no: u64,
}

impl Table {
    pub fn new(cfg: Arc<Config>, engine: Engine, rooms: Arc<Rooms>) -> Table {
        Table {
            cfg,
            engine,
            games: Value::Null,
            room: Room::new(),
            rooms,
            setup: None,
            game: None,
            rounds: None,
            round: 0,
            host_seat: None,
            paused: false,
            search: None,
            analysis: None,
            waiting: HashMap::new(),
            next_engine_at: None,
            next_round_at: None,
            last_activity: Instant::now(),
            empty_since: None,
            engine_cfg: (1, 0),
            game_no: 0,
        }
    }

    /// The table's token (its links).
    pub fn token(&self) -> String {
        self.room.token.clone()
    }

    /// The host's key (the browser that opened the table joins with it).
    pub fn host_key(&self) -> String {
        self.room.host_key.clone()
    }

    /// The table's task: until nobody has been connected for a while, or
    /// nothing has happened for long, or the engine cannot be restarted.
    pub async fn run(mut self, mut rx: mpsc::Receiver<Event>) {
        match self.engine.one("games json").await {
            Ok(l) => self.games = serde_json::from_str(&l).unwrap_or(Value::Null),
            Err(e) => log::error!("gui: games json: {e}"),
        }
        enum Wake {
            Ev(Option<Event>),
            Engine(EngineEvent),
            EngineMove,
            NextRound,
            Flag,
            Close(&'static str),
        }
        let at = |t: Option<Instant>| tokio::time::Instant::from_std(t.unwrap_or_else(Instant::now));
        loop {
            let engine_at = self.next_engine_at;
            let round_at = self.next_round_at;
            let flag_at = self.flag_deadline();
            let empty_at = self.empty_since.map(|t| t + self.cfg.rejoin);
            let idle_at = self.last_activity + self.cfg.idle;
            let wake = tokio::select! {
                biased;
                e = self.engine.next() => Wake::Engine(e),
                e = rx.recv() => Wake::Ev(e),
                _ = tokio::time::sleep_until(at(engine_at)), if engine_at.is_some() => Wake::EngineMove,
                _ = tokio::time::sleep_until(at(round_at)), if round_at.is_some() => Wake::NextRound,
                _ = tokio::time::sleep_until(at(flag_at)), if flag_at.is_some() => Wake::Flag,
                _ = tokio::time::sleep_until(at(empty_at)), if empty_at.is_some() => Wake::Close("nobody came back"),
                _ = tokio::time::sleep_until(at(Some(idle_at))) => Wake::Close("nothing happened for too long"),
            };
            match wake {
                Wake::Ev(None) => break,
                Wake::Ev(Some(ev)) => self.on_event(ev).await,
                Wake::Engine(EngineEvent::Exited) => {
                    if !self.restart_engine().await {
                        break;
                    }
                }
                Wake::Engine(ev) => self.on_engine(ev).await,
                Wake::EngineMove => {
                    self.next_engine_at = None;
                    self.start_search().await;
                }
                Wake::NextRound => {
                    self.next_round_at = None;
                    if let Err(e) = self.next_round().await {
                        self.broadcast_error(&e);
                    }
                }
                Wake::Flag => self.check_flag().await,
                Wake::Close(why) => {
                    log::info!("gui: table {} closed: {why}", &self.room.token[..8]);
                    let m = json!({"t": "fatal", "text": format!("This table was closed: {why}. Start a new one.")});
                    self.room.broadcast(&m.to_string().into());
                    break;
                }
            }
            if self.room.is_empty() {
                self.empty_since.get_or_insert_with(Instant::now);
            } else {
                self.empty_since = None;
            }
        }
        self.rooms.lock().unwrap_or_else(|p| p.into_inner()).remove(&self.room.token);
        self.engine.shutdown().await;
    }

    // ----- browsers ----------------------------------------------------

    async fn on_event(&mut self, ev: Event) {
        match ev {
            Event::Join { id, outbox, kick, me } => {
                let (key, role) = self.room.join(id, outbox, kick, me.as_deref());
                let name = self.room.member(id).map(|m| m.shown()).unwrap_or_default();
                let welcome = json!({"t": "welcome", "me": key, "role": role.text(), "name": name,
                    "table": self.room.token, "games": self.games, "chat": self.room.chat(),
                    "limits": {"threads": self.cfg.max_threads, "hash": self.cfg.max_hash}});
                self.room.send(id, &welcome.to_string().into());
                self.send_state_to(id);
                if self.room.guest_key.is_some() {
                    self.room.announce(&format!("{name} joined"));
                }
            }
            Event::Leave { id } => {
                if let Some(m) = self.room.leave(id)
                    && self.room.guest_key.is_some()
                {
                    self.room.announce(&format!("{} left", m.shown()));
                }
            }
            Event::Msg { id, text } => {
                let m = match serde_json::from_str::<ClientMsg>(&text) {
                    Ok(m) => m,
                    Err(e) => {
                        let e = format!("bad message: {}", crate::text::clip(&e.to_string()));
                        return self.send_to(id, json!({"t": "error", "text": e}));
                    }
                };
                if !matches!(
                    m,
                    ClientMsg::Chat { .. } | ClientMsg::Leaderboard { .. } | ClientMsg::Review { .. }
                ) {
                    self.last_activity = Instant::now();
                }
                // Asked by the page on its own (no person's action): answered
                // by their reply or an error only.
                let quiet = matches!(
                    m,
                    ClientMsg::Tree { .. }
                        | ClientMsg::Review { .. }
                        | ClientMsg::Leaderboard { .. }
                        | ClientMsg::Saves
                );
                match self.on_msg(id, m).await {
                    Ok(()) if !quiet => self.send_to(id, json!({"t": "ok"})),
                    Ok(()) => {}
                    Err(e) => self.send_to(id, json!({"t": "error", "text": e})),
                }
            }
        }
    }

    fn key_of(&self, id: u64) -> Result<String, String> {
        self.room.member(id).map(|m| m.key.clone()).ok_or_else(|| "unknown browser".to_string())
    }

    /// The side the host plays now in a networked game.
    pub(super) fn host_side(&self) -> Option<usize> {
        self.host_seat.map(|p| rounds::side_of(p, self.round))
    }

    /// The player of `side` in the current round.
    pub(super) fn player(&self, side: usize) -> PlayerCfg {
        match &self.setup {
            Some(s) => s.players[rounds::side_of(side, self.round)].clone(),
            None => PlayerCfg::human(),
        }
    }

    /// The sides a browser may move for.
    fn seats(&self, key: &str) -> Vec<usize> {
        let role = self.room.role(key);
        (0..2)
            .filter(|&s| match (role, self.host_side()) {
                (Role::Host, None) => true,
                (Role::Host, Some(h)) => h == s,
                (Role::Guest, Some(h)) => h != s,
                _ => false,
            })
            .filter(|&s| !self.player(s).is_engine())
            .collect()
    }

    /// A person's name on `side` (for the page and the results).
    pub(super) fn person_name(&self, side: usize) -> String {
        let p = rounds::side_of(side, self.round);
        let cfg = self.player(side);
        if let Some(h) = self.host_seat {
            return if p == h {
                self.room.host_name.clone().unwrap_or_else(|| "Host".into())
            } else {
                self.room.guest_name.clone().unwrap_or_else(|| "Guest".into())
            };
        }
        if !cfg.name.trim().is_empty() {
            return cfg.name.trim().to_string();
        }
        let first_person =
            self.setup.as_ref().and_then(|s| s.players.iter().position(|x| !x.is_engine())).unwrap_or(0);
        match (p == first_person, &self.room.host_name) {
            (true, Some(n)) => n.clone(),
            (true, None) => "Anonymous".into(),
            (false, _) => "Anonymous 2".into(),
        }
    }

    async fn on_msg(&mut self, id: u64, m: ClientMsg) -> Result<(), String> {
        let key = self.key_of(id)?;
        let role = self.room.role(&key);
        let host_only =
            || if role == Role::Host { Ok(()) } else { Err("only the host may do that".to_string()) };
        match m {
            ClientMsg::Chat { text } => {
                if !self.room.say(id, &text) && !text.trim().is_empty() {
                    return Err("slow down: too many chat lines".into());
                }
            }
            ClientMsg::Name { name } => {
                let name = crate::results::check_person_name(&name)?;
                self.room.set_name(id, name);
                self.broadcast_state();
            }
            ClientMsg::Leaderboard { game, vs } => {
                let b = record::leaderboard(&self.cfg.data_dir, game, vs).await?;
                self.send_to(id, b);
            }
            ClientMsg::Tree { ply, prefix } => self.ask_tree(id, &key, ply, prefix).await?,
            ClientMsg::Review { ply } => self.review(id, ply)?,
            ClientMsg::Analyze { ply } => {
                host_only()?;
                self.analyze(ply).await?;
            }
            ClientMsg::Play { mv } => {
                let turn = self.turn().ok_or("no game in progress")?;
                if self.search.is_some() {
                    return Err("the engine is thinking".into());
                }
                if !self.seats(&key).contains(&turn) {
                    return Err("it is not your move".into());
                }
                self.halt().await;
                let gs = self.engine.one(&format!("play {mv}")).await?;
                self.after_move(gs, &mv, turn, false).await;
            }
            ClientMsg::Resign => {
                let turn = self.turn().ok_or("no game in progress")?;
                if self.rounds.is_some() {
                    return Err("a match's rounds are played to the end (abandon the match instead)".into());
                }
                let mine = self.seats(&key);
                let side =
                    if mine.contains(&turn) { turn } else { *mine.first().ok_or("you hold no seat")? };
                self.halt().await;
                let sides = self.side_names();
                self.finish(End::lost(&sides, side, Ending::Resignation)).await;
            }
            ClientMsg::New { game_type, options, players, pause, rounds, flag, engine } => {
                host_only()?;
                self.new_game(game_type, options, players, pause, rounds.unwrap_or(1), flag, engine).await?;
            }
            ClientMsg::Next => {
                if role == Role::Spectator {
                    return Err("spectators cannot start the next round".into());
                }
                self.next_round().await?;
            }
            ClientMsg::Undo => {
                host_only()?;
                self.undo().await?;
            }
            ClientMsg::Stop => {
                host_only()?;
                self.paused = true;
                self.next_engine_at = None;
                if let Some(s) = &mut self.search {
                    s.stopped = true;
                    self.engine.send("stop", false).await?;
                }
                self.stop_analysis().await;
                if let Some(g) = &mut self.game {
                    g.clocks.stop(Instant::now());
                }
                self.broadcast_state();
            }
            ClientMsg::Resume => {
                host_only()?;
                self.paused = false;
                if let Some(g) = &mut self.game {
                    g.note = None;
                }
                self.start_clock();
                self.broadcast_state();
                self.advance();
            }
            ClientMsg::Abandon => {
                host_only()?;
                self.halt().await;
                self.game = None;
                self.rounds = None;
                self.next_round_at = None;
                self.broadcast_state();
            }
            ClientMsg::Save { name } => {
                host_only()?;
                let gs = self.game.as_ref().map(|g| g.game_string.clone()).ok_or("no game to save")?;
                // Answered in its turn, after a search that is running:
                // the engine saves the position the table shows now.
                let eid = self.engine.send(&format!("save {}", one_word(&name)?), false).await?;
                self.waiting.insert(eid, Waiting::Save { client: id, game_string: gs });
            }
            ClientMsg::Load { name } => {
                host_only()?;
                self.load(one_word(&name)?).await?;
            }
            ClientMsg::Saves => {
                host_only()?;
                let eid = self.engine.send("saves", false).await?;
                self.waiting.insert(eid, Waiting::Saves { client: id });
            }
            ClientMsg::Invite { side } => {
                host_only()?;
                if side > 1 {
                    return Err("side is 0 or 1".into());
                }
                self.host_seat = Some(rounds::side_of(side, self.round));
                if self.room.guest_key.is_none() {
                    self.room.new_guest_key();
                }
                self.broadcast_state();
            }
            ClientMsg::Free => {
                host_only()?;
                if self.room.guest_key.is_none() {
                    return Err("nobody is invited".into());
                }
                self.room.new_guest_key();
                self.room.announce("the host freed the guest's seat: a new invitation link");
                self.broadcast_state();
            }
        }
        Ok(())
    }

    // ----- the game ------------------------------------------------------

    #[allow(clippy::too_many_arguments)]
    async fn new_game(
        &mut self,
        game_type: String,
        options: BTreeMap<String, String>,
        players: [PlayerCfg; 2],
        pause: u64,
        rounds: u32,
        flag: bool,
        engine: EngineCfg,
    ) -> Result<(), String> {
        for p in &players {
            if !matches!(p.kind.as_str(), "human" | "engine") {
                return Err(format!("unknown player kind '{}'", crate::text::clip(&p.kind)));
            }
            if !p.name.trim().is_empty() {
                crate::results::check_person_name(&p.name)?;
            }
        }
        self.halt().await;
        self.next_round_at = None;
        let threads = engine.threads.unwrap_or(1).clamp(1, self.cfg.max_threads);
        let hash = engine.hash.unwrap_or(self.cfg.default_hash).clamp(1, self.cfg.max_hash);
        if self.engine_cfg != (threads, hash) {
            self.engine.call(&format!("setoption name Threads value {threads}")).await?;
            self.engine.call(&format!("setoption name Hash value {hash}")).await?;
            self.engine_cfg = (threads, hash);
        }
        let game_type = game_type.trim().to_string();
        self.engine.one(&format!("newgame {game_type}")).await?;
        let family = serde_json::from_str::<Value>(&self.engine.one("board json").await?)
            .ok()
            .and_then(|b| b["family"].as_str().map(str::to_string))
            .unwrap_or_default();
        rounds::check(&family, rounds)?;
        let strategies = self.strategies(&family);
        for p in players.iter().filter(|p| p.is_engine()) {
            if !strategies.contains(&p.strategy) {
                return Err(format!(
                    "'{}' is not a strategy of {family} (one of {})",
                    crate::text::clip(&p.strategy),
                    strategies.join(", ")
                ));
            }
        }
        for (name, value) in &options {
            if value.is_empty() || name.eq_ignore_ascii_case("Strategy") {
                continue;
            }
            self.engine.call(&format!("setoption name {family}.{name} value {value}")).await?;
        }
        let players = players.map(|mut p| {
            p.time = p.time.clamped();
            p
        });
        self.setup = Some(Setup {
            game_type,
            family,
            options,
            players,
            pause: Duration::from_millis(pause.min(10_000)),
            flag,
            rounds,
        });
        self.round = 0;
        self.rounds = (rounds > 1).then(|| Rounds::new(rounds));
        self.start_round().await
    }

    fn strategies(&self, family: &str) -> Vec<String> {
        self.games["games"]
            .as_array()
            .and_then(|g| g.iter().find(|x| x["family"] == family))
            .and_then(|g| g["strategies"].as_array())
            .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    }

    /// Starts the game of the current round.
    async fn start_round(&mut self) -> Result<(), String> {
        let s = self.setup.clone().ok_or("no game set up")?;
        if s.family == rounds::FAMILY {
            let maker_is_person = !self.player(1).is_engine();
            let chosen =
                s.options.iter().find(|(k, _)| k.eq_ignore_ascii_case("Codemaker")).map(|(_, v)| v.as_str());
            let value = rounds::codemaker(maker_is_person, chosen);
            self.engine.call(&format!("setoption name {}.Codemaker value {value}", s.family)).await?;
        }
        let gs = self.engine.one(&format!("newgame {}", s.game_type)).await?;
        self.game_no += 1;
        let clocks = Clocks::new([self.player(0).time, self.player(1).time], s.flag);
        self.game = Some(Game::new(s.family.clone(), gs, Value::Null, clocks));
        self.refresh().await;
        self.fill_boards().await;
        self.paused = false;
        self.check_end().await;
        self.start_clock();
        self.broadcast_state();
        self.advance();
        Ok(())
    }

    /// The next round of a match, once the last one is over.
    async fn next_round(&mut self) -> Result<(), String> {
        let r = self.rounds.as_ref().ok_or("no match in progress")?;
        if r.over() {
            return Err("the match is over".into());
        }
        if self.game.as_ref().is_some_and(|g| g.end.is_none()) {
            return Err("this round is not over".into());
        }
        self.next_round_at = None;
        self.round += 1;
        self.start_round().await
    }

    async fn undo(&mut self) -> Result<(), String> {
        self.halt().await;
        let plies = self.history().len();
        if plies == 0 {
            return Err("nothing to undo".into());
        }
        if self.rounds.is_some() && self.game.as_ref().is_some_and(|g| g.end.is_some()) {
            return Err("this round is over and counted".into());
        }
        // Back to a person's turn when the side before is an engine.
        let mover = self.board()["turn"].as_u64().map(|t| 1 - t as usize).unwrap_or(0);
        let n = if self.player(mover).is_engine() && plies >= 2 { 2 } else { 1 };
        let gs = self.engine.one(&format!("undo {n}")).await?;
        if let Some(g) = &mut self.game {
            g.game_string = gs;
            g.end = None;
            g.note = None;
        }
        self.refresh().await;
        if let Some(g) = &mut self.game {
            let ply = g.board["ply"].as_u64().unwrap_or(0) as usize;
            g.boards.truncate(ply + 1);
        }
        self.paused = self.turn().is_some_and(|t| self.player(t).is_engine());
        if self.paused {
            self.note("Undone to the engine's move: press Resume to let it play");
        }
        self.start_clock();
        self.broadcast_state();
        self.advance();
        Ok(())
    }

    async fn load(&mut self, name: &str) -> Result<(), String> {
        self.halt().await;
        self.next_round_at = None;
        let gs = self.engine.one(&format!("load {name}")).await?;
        self.game_no += 1;
        let board: Value = serde_json::from_str(&self.engine.one("board json").await?).unwrap_or(Value::Null);
        let family = board["family"].as_str().unwrap_or("").to_string();
        // Players: the setup's if it is of this family, else two people.
        let strategies = self.strategies(&family);
        let players = match &self.setup {
            Some(s)
                if s.family == family
                    && s.players.iter().all(|p| !p.is_engine() || strategies.contains(&p.strategy)) =>
            {
                s.players.clone()
            }
            _ => [PlayerCfg::human(), PlayerCfg::human()],
        };
        let flag = self.setup.as_ref().is_some_and(|s| s.flag);
        let pause = self.setup.as_ref().map_or(Duration::from_millis(500), |s| s.pause);
        let game_type = board["game_type"].as_str().unwrap_or("").to_string();
        self.setup = Some(Setup {
            game_type,
            family: family.clone(),
            options: BTreeMap::new(),
            players,
            pause,
            flag,
            rounds: 1,
        });
        self.round = 0;
        self.rounds = None;
        let clocks = Clocks::new([self.player(0).time, self.player(1).time], flag);
        self.game = Some(Game::new(family, gs, board, clocks));
        self.refresh().await;
        self.fill_boards().await;
        self.check_end().await;
        // A loaded game waits for Resume if an engine is to move.
        self.paused = self.turn().is_some_and(|t| self.player(t).is_engine());
        let what = if self.paused { "paused: press Resume to go on" } else { "your move" };
        self.note(&format!("Loaded {name}: {what}"));
        self.room.broadcast(&json!({"t": "thinking", "clear": true}).to_string().into());
        self.start_clock();
        self.broadcast_state();
        self.advance();
        Ok(())
    }

    fn note(&mut self, text: &str) {
        if let Some(g) = &mut self.game {
            g.note = Some(text.to_string());
        }
    }

    /// Stops a running search (its move is dropped) and any analysis.
    pub(super) async fn halt(&mut self) {
        self.next_engine_at = None;
        if let Some(s) = self.search.take() {
            let _ = self.engine.send("stop", false).await;
            if let Some(g) = &mut self.game {
                g.clocks.stop(Instant::now());
            }
            log::debug!("gui: search {} stopped", s.id);
        }
        self.halt_analysis().await;
    }

    /// Reads the board and the move tree from the engine.
    pub(super) async fn refresh(&mut self) {
        let board = match self.engine.one("board json").await {
            Ok(l) => serde_json::from_str(&l).unwrap_or(Value::Null),
            Err(_) => Value::Null,
        };
        let live = board["state"].as_str().is_some_and(|s| !(s.ends_with("Wins") || s == "Draw"));
        let (mut tree, mut level, mut error) = (Value::Null, false, None);
        if live {
            match self.engine.one("movetree json").await {
                Ok(l) => tree = serde_json::from_str(&l).unwrap_or(Value::Null),
                Err(Failure::Refused(_)) => match self.engine.one("movetree json level").await {
                    Ok(l) => {
                        tree = serde_json::from_str(&l).unwrap_or(Value::Null);
                        level = true;
                    }
                    Err(e) => error = Some(e.to_string()),
                },
                Err(e) => error = Some(e.to_string()),
            }
        }
        if let Some(g) = &mut self.game {
            g.board = board;
            g.tree = tree;
            g.tree_level = level;
            g.tree_error = error;
        }
    }

    /// The boards of a game set up from a GameString or loaded: taken
    /// back to its start and played again (the engine keeps what the
    /// string does not say, such as a secret).
    async fn fill_boards(&mut self) {
        let Some(g) = &self.game else { return };
        let moves = self.history();
        let n = moves.len();
        let board = g.board.clone();
        if n == 0 || n > MAX_BOARDS {
            if let Some(g) = &mut self.game {
                g.boards = if n == 0 { vec![board] } else { Vec::new() };
            }
            return;
        }
        let mut boards = Vec::with_capacity(n + 1);
        let r: Result<(), Failure> = async {
            self.engine.call(&format!("undo {n}")).await?;
            boards.push(serde_json::from_str(&self.engine.one("board json").await?).unwrap_or(Value::Null));
            for m in &moves {
                self.engine.call(&format!("play {m}")).await?;
                boards
                    .push(serde_json::from_str(&self.engine.one("board json").await?).unwrap_or(Value::Null));
            }
            Ok(())
        }
        .await;
        if let Err(e) = r {
            log::warn!("gui: replaying the game for its review: {e}");
            boards.clear();
        }
        if let Some(g) = &mut self.game {
            g.boards = boards;
        }
    }

    /// The side to move, `None` without a game or once it is over.
    pub(super) fn turn(&self) -> Option<usize> {
        let g = self.game.as_ref()?;
        if g.end.is_some() {
            return None;
        }
        let state = g.board["state"].as_str()?;
        if state.ends_with("Wins") || state == "Draw" {
            return None;
        }
        g.board["turn"].as_u64().map(|t| t as usize)
    }

    pub(super) fn board(&self) -> Value {
        self.game.as_ref().map(|g| g.board.clone()).unwrap_or(Value::Null)
    }

    pub(super) fn history(&self) -> Vec<String> {
        let Some(g) = &self.game else { return Vec::new() };
        game_moves(&g.game_string)
    }

    fn side_names(&self) -> [String; 2] {
        let b = self.board();
        let n = |i: usize| b["sides"][i].as_str().unwrap_or(["first", "second"][i]).to_string();
        [n(0), n(1)]
    }

    async fn after_move(&mut self, gs: String, mv: &str, side: usize, by_engine: bool) {
        let before = self.game.as_ref().map(|g| (g.tree.clone(), g.tree_level));
        let now = Instant::now();
        if let Some(g) = &mut self.game {
            g.game_string = gs;
            g.last_move_at = now;
            g.clocks.moved(side, now);
            g.note = None;
        }
        self.refresh().await;
        if let Some(g) = &mut self.game
            && g.boards.len() < MAX_BOARDS
        {
            g.boards.push(g.board.clone());
        }
        let (tree, level) = before.unwrap_or((Value::Null, false));
        // The tree the move was chosen from, so the page can show an
        // engine's move one selection at a time (not for one level only).
        let tree = if by_engine && !level { tree } else { Value::Null };
        self.broadcast(json!({"t": "moved", "move": mv, "side": side, "engine": by_engine, "tree": tree}));
        self.check_end().await;
        self.start_clock();
        self.broadcast_state();
        self.advance();
    }

    /// Ends the game if its position is over.
    async fn check_end(&mut self) {
        if self.game.as_ref().is_some_and(|g| g.end.is_none())
            && let Some(end) = End::of_board(&self.board())
        {
            self.finish(end).await;
        }
    }

    /// The game is over: clocks stop, the result is recorded once, a
    /// match counts the round.
    async fn finish(&mut self, end: End) {
        let now = Instant::now();
        self.next_engine_at = None;
        let Some(g) = &mut self.game else { return };
        g.clocks.stop(now);
        g.end = Some(end.clone());
        let board = g.board.clone();
        let gs = g.game_string.clone();
        let family = g.family.clone();
        let game_type = board["game_type"].as_str().unwrap_or("").to_string();
        let first_record = g.recorded.is_none();
        g.recorded.get_or_insert_with(String::new);
        self.room.announce(&format!("Game over: {}", end.text));
        let round = self.round;
        if let Some(r) = self.rounds.as_mut() {
            r.add(round, &board, &gs, end.ending);
            let r = r.clone();
            if r.over() {
                let players = [self.match_player(0), self.match_player(1)];
                let said = record::matched(
                    self.cfg.data_dir.clone(),
                    &family,
                    &game_type,
                    players,
                    r.planned,
                    &r.done,
                    r.result(),
                    Ending::Normal,
                )
                .await;
                let [a, b] = r.points();
                self.room.announce(&format!("Match over: {a} to {b}; {said}"));
                if let Some(g) = &mut self.game {
                    g.recorded = Some(said);
                }
            } else if (0..2).all(|s| self.player(s).is_engine()) {
                self.next_round_at = Some(now + Duration::from_secs(3));
            }
            return;
        }
        if !first_record {
            return;
        }
        let sides = self.side_names();
        let seats = [0, 1].map(|s| (sides[s].clone(), self.side_player(s)));
        let said = record::game(self.cfg.data_dir.clone(), &family, &game_type, &gs, seats, &end).await;
        if let Some(g) = &mut self.game {
            g.recorded = Some(said);
        }
    }

    /// Who played `side` this round, for the results.
    fn side_player(&self, side: usize) -> Player {
        let p = self.player(side);
        let name = (!p.is_engine()).then(|| self.person_name(side));
        record::player(name.as_deref(), &p.strategy, &p.limit())
    }

    /// Match player `p`, for the results.
    fn match_player(&self, p: usize) -> Player {
        self.side_player(rounds::side_of(p, self.round))
    }

    fn flag_deadline(&self) -> Option<Instant> {
        let g = self.game.as_ref()?;
        if !g.clocks.flag || g.end.is_some() {
            return None;
        }
        g.clocks.deadline()
    }

    /// The running side's time has run out (loss on time).
    async fn check_flag(&mut self) {
        let Some(side) = self.game.as_ref().and_then(|g| g.clocks.flagged(Instant::now())) else { return };
        self.halt().await;
        let sides = self.side_names();
        self.finish(End::lost(&sides, side, Ending::Time)).await;
        self.broadcast_state();
    }

    /// The side to move's time runs (unless paused or over).
    fn start_clock(&mut self) {
        let turn = self.turn();
        let paused = self.paused;
        let Some(g) = &mut self.game else { return };
        let now = Instant::now();
        match turn {
            Some(t) if !paused => {
                // An engine's time starts with its search (after the pause
                // people get to see the last move).
                if !self.setup.as_ref().is_some_and(|s| s.players[rounds::side_of(t, self.round)].is_engine())
                {
                    g.clocks.start(t, now);
                } else {
                    g.clocks.stop(now);
                }
            }
            _ => g.clocks.stop(now),
        }
    }

    /// Schedules the engine's move if an engine is to move.
    pub(super) fn advance(&mut self) {
        if self.paused || self.search.is_some() {
            return;
        }
        let Some(t) = self.turn() else { return };
        if !self.player(t).is_engine() {
            return;
        }
        let pause = self.setup.as_ref().map_or(Duration::ZERO, |s| s.pause);
        let last = self.game.as_ref().map_or_else(Instant::now, |g| g.last_move_at);
        self.next_engine_at = Some((last + pause).max(Instant::now()));
    }

    async fn start_search(&mut self) {
        let Some(side) = self.turn() else { return };
        let p = self.player(side);
        if !p.is_engine() || self.paused || self.search.is_some() {
            return;
        }
        self.halt_analysis().await;
        let family = self.game.as_ref().map(|g| g.family.clone()).unwrap_or_default();
        if let Err(e) =
            self.engine.call(&format!("setoption name {family}.Strategy value {}", p.strategy)).await
        {
            return self.broadcast_error(&e.to_string());
        }
        let now = Instant::now();
        let cmd = match p.time {
            TimeControl::Clock { .. } => {
                let args = self.game.as_ref().and_then(|g| g.clocks.go_args(side, now)).unwrap_or_default();
                format!("go {args}")
            }
            _ => format!("go {}", p.limit()),
        };
        let id = match self.engine.send(&cmd, true).await {
            Ok(id) => id,
            Err(e) => return self.broadcast_error(&e.to_string()),
        };
        if let Some(g) = &mut self.game {
            g.clocks.start(side, now);
        }
        self.search =
            Some(Search { id, side, started: now, stopped: false, bestmove: None, limit: p.limit() });
        self.broadcast_state();
    }

    async fn on_engine(&mut self, ev: EngineEvent) {
        match ev {
            EngineEvent::Line { id, line } => {
                if let Some(s) = self.search.as_mut().filter(|s| s.id == id) {
                    if let Some(m) = line.strip_prefix("bestmove ") {
                        s.bestmove = Some(m.trim().to_string());
                    } else if line.starts_with("info") {
                        let side = s.side;
                        self.broadcast(json!({"t": "info", "side": side, "line": line}));
                    }
                } else if self.analysis.as_ref().is_some_and(|a| a.id == Some(id)) {
                    self.on_analysis_line(line);
                }
            }
            EngineEvent::Done { id, reply } => {
                if self.search.as_ref().is_some_and(|s| s.id == id) {
                    let s = self.search.take().expect("checked");
                    self.search_done(s, reply).await;
                } else if self.analysis.as_ref().is_some_and(|a| a.id == Some(id)) {
                    self.on_analysis_done(reply).await;
                } else if let Some(w) = self.waiting.remove(&id) {
                    self.answer(w, reply);
                }
            }
            EngineEvent::Exited => {}
        }
    }

    async fn search_done(&mut self, s: Search, reply: Result<Vec<String>, Failure>) {
        match (reply, s.bestmove) {
            (Err(e), _) => {
                self.paused = true;
                self.broadcast_error(&format!("the engine could not move: {e}"));
                self.broadcast_state();
            }
            (Ok(_), Some(mv)) if !s.stopped && !self.paused && self.turn() == Some(s.side) => {
                match self.engine.one(&format!("play {mv}")).await {
                    Ok(gs) => self.after_move(gs, &mv, s.side, true).await,
                    Err(e) => {
                        self.paused = true;
                        self.broadcast_error(&e.to_string());
                        self.broadcast_state();
                    }
                }
            }
            _ => {
                self.paused = true;
                if let Some(g) = &mut self.game {
                    g.clocks.stop(Instant::now());
                }
                self.broadcast_state();
            }
        }
    }

    /// The engine has gone (killed, crashed): it is reaped, a new one takes
    /// the table's engine slot and the game's position, paused. False if
    /// none can start.
    async fn restart_engine(&mut self) -> bool {
        let status = self.engine.reap().await;
        log::warn!("gui: the engine has exited ({status:?}); starting another");
        self.search = None;
        self.analysis = None;
        self.next_engine_at = None;
        let failed: Vec<Waiting> = self.waiting.drain().map(|(_, w)| w).collect();
        for w in failed {
            self.answer(w, Err(Failure::Gone("the engine has exited".into())));
        }
        let permit = self.engine.take_permit();
        let engine = match super::client::Engine::spawn(&self.cfg.exe, &self.cfg.data_dir, permit).await {
            Ok(e) => e,
            Err(e) => {
                log::error!("gui: {e}");
                let m = json!({"t": "fatal", "text": format!("The engine stopped and no other could start: {e}")});
                self.room.broadcast(&m.to_string().into());
                return false;
            }
        };
        let old = std::mem::replace(&mut self.engine, engine);
        drop(old);
        self.engine_cfg = (1, 0);
        let r: Result<(), Failure> = async {
            if let Some(s) = self.setup.clone() {
                let (t, h) = (1, self.cfg.default_hash);
                self.engine.call(&format!("setoption name Threads value {t}")).await?;
                self.engine.call(&format!("setoption name Hash value {h}")).await?;
                self.engine_cfg = (t, h);
                for (name, value) in
                    s.options.iter().filter(|(n, v)| !v.is_empty() && !n.eq_ignore_ascii_case("Strategy"))
                {
                    self.engine.call(&format!("setoption name {}.{name} value {value}", s.family)).await?;
                }
            }
            if let Some(gs) = self.game.as_ref().map(|g| g.game_string.clone()) {
                let gs = self.engine.one(&format!("newgame {gs}")).await?;
                if let Some(g) = &mut self.game {
                    g.game_string = gs;
                }
            }
            Ok(())
        }
        .await;
        if let Err(e) = r {
            log::warn!("gui: restoring the game on a new engine: {e}");
        }
        self.refresh().await;
        self.paused = true;
        if let Some(g) = &mut self.game {
            g.clocks.stop(Instant::now());
        }
        self.note("The engine stopped unexpectedly; a new one took over at this position: press Resume");
        self.broadcast_state();
        true
    }

    // ----- the move tree, one level at a time ----------------------------

    async fn ask_tree(&mut self, id: u64, key: &str, ply: usize, prefix: Vec<String>) -> Result<(), String> {
        let current = self.board()["ply"].as_u64().map(|p| p as usize);
        let turn = self.turn();
        if current != Some(ply) || turn.is_none() || !self.seats(key).contains(&turn.unwrap_or(2)) {
            return Err("not your move".into());
        }
        if prefix.len() > 64
            || prefix.iter().any(|a| a.is_empty() || a.len() > 64 || a.contains(char::is_whitespace))
        {
            return Err("bad move tree prefix".into());
        }
        let eid = self.engine.send(&format!("movetree json level {}", prefix.join(" ")), false).await?;
        self.waiting.insert(eid, Waiting::Tree { client: id, ply, prefix });
        Ok(())
    }

    fn answer(&mut self, w: Waiting, reply: Result<Vec<String>, Failure>) {
        match w {
            Waiting::Tree { client, ply, prefix } => match reply {
                Ok(mut l) => {
                    let node: Value =
                        l.pop().and_then(|l| serde_json::from_str(&l).ok()).unwrap_or(Value::Null);
                    self.send_to(client, json!({"t": "tree", "ply": ply, "prefix": prefix, "node": node}));
                }
                Err(e) => self.send_to(client, json!({"t": "error", "text": e.to_string()})),
            },
            Waiting::Save { client, game_string } => match reply {
                Ok(l) => {
                    let text = l.join(" ");
                    self.send_to(client, json!({"t": "notice", "text": text, "game_string": game_string}));
                }
                Err(e) => self.send_to(client, json!({"t": "error", "text": e.to_string()})),
            },
            Waiting::Saves { client } => match reply {
                Ok(list) => self.send_to(client, json!({"t": "saves", "list": list})),
                Err(e) => self.send_to(client, json!({"t": "error", "text": e.to_string()})),
            },
        }
    }

    // ----- sending ---------------------------------------------------------

    fn state_common(&self) -> Value {
        let now = Instant::now();
        let g = self.game.as_ref();
        let searching = self.search.as_ref().map(
            |s| json!({"side": s.side, "elapsed": s.started.elapsed().as_millis() as u64, "limit": s.limit}),
        );
        let sides: Vec<Value> = (0..2)
            .map(|s| {
                let p = self.player(s);
                let holder = match self.host_side() {
                    None => Value::Null,
                    Some(h) if h == s => json!("host"),
                    Some(_) => json!("guest"),
                };
                if p.is_engine() {
                    json!({"kind": "engine", "name": p.strategy, "level": p.limit(), "holder": Value::Null})
                } else {
                    json!({"kind": "human", "name": self.person_name(s), "holder": holder,
                    "connected": match self.host_side() {
                        None => true,
                        Some(h) if h == s => self.room.connected(&self.room.host_key),
                        Some(_) => self.room.guest_key.as_deref().is_some_and(|k| self.room.connected(k)),
                    }})
                }
            })
            .collect();
        let setup = self.setup.as_ref().map(|s| {
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
            "tree_level": g.is_some_and(|g| g.tree_level),
            "tree_error": g.and_then(|g| g.tree_error.clone()),
            "history": self.history(),
            "reviewable": g.map_or(0, |g| g.boards.len()),
            "sides": sides,
            "players": [self.player(0), self.player(1)],
            "setup": setup,
            "paused": self.paused,
            "searching": searching,
            "analysing": self.analysis.is_some(),
            "clocks": g.map(|g| g.clocks.snapshot(now)),
            "result": g.and_then(|g| g.end.as_ref()).map(|e| json!({"winner": e.winner(), "text": e.text,
                "ending": format!("{:?}", e.ending).to_lowercase()})),
            "recorded": g.and_then(|g| g.recorded.clone()).filter(|r| !r.is_empty()),
            "note": g.and_then(|g| g.note.clone()),
            "match": self.rounds.as_ref().map(|r| r.to_json(self.round)),
            "room": self.room.guest_key.as_ref().map(|_| self.room.token.clone()),
            "host_side": self.host_side(),
            "watchers": self.room.len(),
        })
    }

    /// One browser's state: the common part and what is its own (its
    /// seats; the host's the invitation link's key).
    fn state_for(&self, common: &str, key: &str, role: Role) -> String {
        let guest = if role == Role::Host { self.room.guest_key.clone() } else { None };
        let me = json!({"role": role.text(), "you": self.seats(key), "guest_key": guest});
        // Spliced: the common part is serialized once for every browser.
        format!("{{\"me\":{me},{}", &common[1..])
    }

    pub(super) fn broadcast_state(&mut self) {
        let common = self.state_common().to_string();
        let parts: Vec<(u64, String)> = self
            .room
            .ids()
            .into_iter()
            .filter_map(|id| {
                let m = self.room.member(id)?;
                Some((id, self.state_for(&common, &m.key, self.room.role(&m.key))))
            })
            .collect();
        for (id, text) in parts {
            self.room.send(id, &text.into());
        }
    }

    fn send_state_to(&mut self, id: u64) {
        let Some(m) = self.room.member(id) else { return };
        let text = self.state_for(&self.state_common().to_string(), &m.key.clone(), self.room.role(&m.key));
        self.room.send(id, &text.into());
    }

    pub(super) fn send_to(&mut self, id: u64, v: Value) {
        self.room.send(id, &v.to_string().into());
    }

    pub(super) fn broadcast(&mut self, v: Value) {
        self.room.broadcast(&v.to_string().into());
    }

    pub(super) fn broadcast_error(&mut self, e: &str) {
        self.broadcast(json!({"t": "error", "text": e}));
    }
}

/// The moves of a GameString (its fields after the third that are not
/// `Name=value` extras).
pub fn game_moves(gs: &str) -> Vec<String> {
    gs.split(';').skip(3).filter(|m| !m.contains('=')).map(str::to_string).collect()
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
            r#"{"t":"new","game_type":"Connect4","players":[{"kind":"human","name":"Ann","time":{"kind":"clock","base":60000,"inc":1000}},{"kind":"engine","strategy":"perfect","movetime":300}],"flag":true}"#,
        )
        .unwrap();
        match m {
            ClientMsg::New { players, pause, flag, rounds, .. } => {
                assert!(players[1].is_engine() && players[1].movetime == Some(300));
                assert_eq!(players[1].limit(), "movetime 300");
                assert_eq!(players[0].time, TimeControl::Clock { base: 60_000, inc: 1000 });
                assert_eq!(pause, 0);
                assert!(flag);
                assert_eq!(rounds, None);
            }
            _ => panic!("{m:?}"),
        }
        assert!(serde_json::from_str::<ClientMsg>(r#"{"t":"rm -rf"}"#).is_err());
        let m: ClientMsg = serde_json::from_str(r#"{"t":"tree","ply":3,"prefix":["1","2"]}"#).unwrap();
        assert_eq!(m, ClientMsg::Tree { ply: 3, prefix: vec!["1".into(), "2".into()] });
    }

    #[test]
    fn engine_levels_are_their_go_limits() {
        let mut p = PlayerCfg::human();
        p.kind = "engine".into();
        assert_eq!(p.limit(), "movetime 1000");
        p.depth = Some(6);
        assert_eq!(p.limit(), "depth 6");
        p.time = TimeControl::Clock { base: 300_000, inc: 3000 };
        assert_eq!(p.limit(), "clock 5+3");
        p.time = TimeControl::Move { ms: 2000 };
        assert_eq!(p.limit(), "movetime 2000");
    }

    #[test]
    fn save_names_are_one_plain_word() {
        assert_eq!(one_word(" game_1 "), Ok("game_1"));
        assert!(one_word("../x").is_err());
        assert!(one_word("a b").is_err());
        assert!(one_word("").is_err());
        assert_eq!(
            game_moves("Mastermind;BreakerWins;Breaker[2];1234;4B0W;Secret=1234"),
            vec!["1234", "4B0W"]
        );
    }
}
