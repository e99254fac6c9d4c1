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
//! ([`crate::gui::rounds`]).
//!
//! Every page action may come during a search: the search is stopped
//! (`stop`; its move is dropped) before anything else is sent, and a
//! search's reply that comes after its game changed is recognised by its
//! command's id and dropped.
//!
//! The table's parts, each with its own state: [`msg`] (what browsers
//! ask), [`lineup`] (who plays each side), [`game`] (the game as the engine
//! shows it; [`boards`] its boards for reviewing), [`turn`] (the engines'
//! moves), [`analysis`] (the analysis board and reviewing), [`review`]
//! (the engine's judgement of every move), [`waiting`]
//! (replies awaited for one browser), [`errands`] (the database's work,
//! off this task) and [`view`] (the state message); the clocks, the match
//! of rounds, the results and the room are the GUI's own rooms
//! ([`crate::gui::clock`], [`crate::gui::rounds`], [`crate::gui::record`],
//! [`crate::gui::room`]). This file is the task that joins them: it routes
//! every event to the parts and delivers what they have to say once the
//! event is handled.
//!
//! Nobody at the table can stall it: what may be slow (the results
//! database) runs in tasks of its own and comes back as an event; a move
//! is timed from when its connection read it (a person's) or when its
//! `bestmove` was read (an engine's), not from when the table got to it,
//! and the time a person waits on the table for the choices of a move is
//! given back to the person's clock.

pub mod analysis;
pub mod boards;
pub mod errands;
pub mod game;
pub mod lineup;
pub mod msg;
pub mod review;
pub mod turn;
pub mod view;
pub mod waiting;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use crate::time::Instant;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::gui::client::{Engine, Event as EngineEvent, Failure, Id};
use crate::gui::clock::Clocks;
use crate::gui::config::{Config, Rooms};
use crate::gui::record::End;
use crate::gui::room::{Kind, Role, Room};
use crate::gui::rounds::{self, Rounds};
use crate::gui::rt;
use crate::results::Ending;

pub use crate::gui::room::Event;
pub use game::game_moves;
pub use msg::{ClientMsg, EngineCfg, PlayerCfg};

use analysis::{Allowed, Analysis};
use errands::{Asked, Done, Errands, MatchDone};
use game::{Game, Played};
use lineup::{Lineup, Setup};
use review::Review;
use turn::{Search, Turns};
use view::View;
use waiting::{Waiting, check_prefix, one_word};

/// A new game as the host's form sets it up (see [`ClientMsg::New`]).
struct NewGame {
    game_type: String,
    family: Option<String>,
    options: BTreeMap<String, String>,
    players: [PlayerCfg; 2],
    pause: u64,
    rounds: u32,
    flag: bool,
}

/// A message for the browsers, delivered once the event is handled.
enum Out {
    To(u64, Value),
    All(Value),
    /// A line of the chat from the table itself.
    Announce(String),
    /// A search's progress, to every browser (skipped for one behind).
    Info(Value),
    /// The state, to every browser (only the last of an event is sent:
    /// the state is read when it is delivered).
    State,
    /// The state, to one browser.
    StateTo(u64),
    /// A message made already (a kept leaderboard), to one browser.
    Text(u64, Arc<str>),
}

/// The table's state; [`Table::run`] is its task.
pub struct Table {
    cfg: Arc<Config>,
    engine: Engine,
    /// The engine's `games json`.
    games: Value,
    room: Room,
    rooms: Arc<Rooms>,
    lineup: Lineup,
    game: Option<Game>,
    rounds: Option<Rounds>,
    turns: Turns,
    analysis: Option<Analysis>,
    /// The review of the game (running, or done and shown).
    review: Option<Review>,
    /// The last game recorded: its number at this table and its id in
    /// the database (none if it is not there now), for its review's
    /// accuracy.
    recorded_id: Option<(u64, Option<i64>, String)>,
    waiting: HashMap<Id, Waiting>,
    /// Move-tree levels asked for by a person, and when (the wait is
    /// given back to the person's clock).
    levels_asked: HashMap<Id, Instant>,
    errands: Errands,
    next_round_at: Option<Instant>,
    last_activity: Instant,
    empty_since: Option<Instant>,
    /// Threads and Hash set on the engine.
    engine_cfg: (u32, u32),
    /// Games started or loaded at this table so far.
    game_no: u64,
    out: Vec<Out>,
}

impl Table {
    pub fn new(cfg: Arc<Config>, engine: Engine, rooms: Arc<Rooms>) -> Table {
        Table {
            engine,
            games: Value::Null,
            room: Room::bounded(cfg.budget.clone(), cfg.max_spectators),
            rooms,
            lineup: Lineup::default(),
            game: None,
            rounds: None,
            turns: Turns::default(),
            analysis: None,
            review: None,
            recorded_id: None,
            waiting: HashMap::new(),
            levels_asked: HashMap::new(),
            errands: Errands::default(),
            next_round_at: None,
            last_activity: Instant::now(),
            empty_since: None,
            engine_cfg: (1, 0),
            game_no: 0,
            out: Vec::new(),
            cfg,
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
            Done(Done),
            EngineMove,
            NextRound,
            Flag,
            Close(&'static str),
        }
        let at = |t: Option<Instant>| rt::sleep_until(t.unwrap_or_else(Instant::now));
        loop {
            let engine_at = self.turns.next_at;
            let round_at = self.next_round_at;
            let flag_at = self.flag_deadline();
            let empty_at = self.empty_since.map(|t| t + self.cfg.rejoin);
            let idle_at = self.last_activity + self.cfg.idle;
            let wake = tokio::select! {
                biased;
                e = self.engine.next() => Wake::Engine(e),
                e = rx.recv() => Wake::Ev(e),
                d = self.errands.next() => Wake::Done(d),
                _ = at(engine_at), if engine_at.is_some() => Wake::EngineMove,
                _ = at(round_at), if round_at.is_some() => Wake::NextRound,
                _ = at(flag_at), if flag_at.is_some() => Wake::Flag,
                _ = at(empty_at), if empty_at.is_some() => Wake::Close("nobody came back"),
                _ = at(Some(idle_at)) => Wake::Close("nothing happened for too long"),
            };
            match wake {
                Wake::Ev(None) => break,
                Wake::Ev(Some(ev)) => self.on_event(ev).await,
                Wake::Engine(EngineEvent::Exited) => {
                    if !self.restart_engine().await {
                        self.flush();
                        break;
                    }
                }
                Wake::Engine(ev) => self.on_engine(ev).await,
                Wake::EngineMove => {
                    self.turns.next_at = None;
                    self.start_search().await;
                }
                Wake::NextRound => {
                    self.next_round_at = None;
                    if let Err(e) = self.next_round().await {
                        self.error(&e);
                    }
                }
                Wake::Done(d) => self.on_done(d),
                Wake::Flag => {
                    // A move read before the time ran out is handled first.
                    while let Ok(ev) = rx.try_recv() {
                        self.on_event(ev).await;
                    }
                    self.check_flag().await;
                }
                Wake::Close(why) => {
                    log::info!("gui: table {} closed: {why}", &self.room.token[..8]);
                    let text = format!("This table was closed: {why}. Start a new one.");
                    self.out.push(Out::All(json!({"t": "fatal", "text": text})));
                    self.flush();
                    break;
                }
            }
            self.flush();
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
            Event::Join { id, outbox, me } => {
                let Some(joined) = self.room.join(id, outbox, me.as_deref()) else { return };
                let (key, role) = (joined.key, joined.role);
                let name = self.room.member(id).map(|m| m.shown()).unwrap_or_default();
                let welcome = json!({"t": "welcome", "me": key, "role": role.text(), "name": name,
                    "table": self.room.token, "games": self.games, "chat": self.room.chat(),
                    "limits": {"threads": self.cfg.max_threads, "hash": self.cfg.max_hash},
                    "networked": self.cfg.networked});
                self.out.push(Out::To(id, welcome));
                self.out.push(Out::StateTo(id));
                if let Some(r) = &self.review {
                    self.out.push(Out::To(id, r.to_json()));
                }
                // The guest's link opened in another browser: that one has
                // the seat, the ones before watch, and each is told.
                if !joined.demoted.is_empty() {
                    let text = "This seat was taken by the same invitation link opened in another browser: \
                                this page watches from now on (open the link again here to take the seat back).";
                    self.tell_demoted(&joined.demoted, text);
                    let text = "You took your seat here: the browser that held it watches from now on.";
                    self.out.push(Out::To(id, json!({"t": "notice", "text": text})));
                    self.out.push(Out::State);
                }
                if self.room.guest_key.is_some() {
                    self.out.push(Out::Announce(format!("{name} joined")));
                }
            }
            Event::Leave { id } => {
                if let Some(m) = self.room.leave(id)
                    && self.room.guest_key.is_some()
                {
                    self.out.push(Out::Announce(format!("{} left", m.shown())));
                }
            }
            Event::Msg { id, text, at } => {
                let m = match serde_json::from_str::<ClientMsg>(&text) {
                    Ok(m) => m,
                    Err(e) => {
                        let e = format!("bad message: {}", crate::text::clip(&e.to_string()));
                        return self.out.push(Out::To(id, json!({"t": "error", "text": e})));
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
                        | ClientMsg::Better { .. }
                        | ClientMsg::Leaderboard { .. }
                        | ClientMsg::Saves
                );
                match self.on_msg(id, m, at).await {
                    Ok(()) if !quiet => self.out.push(Out::To(id, json!({"t": "ok"}))),
                    Ok(()) => {}
                    Err(e) => self.out.push(Out::To(id, json!({"t": "error", "text": e}))),
                }
            }
        }
    }

    async fn on_msg(&mut self, id: u64, m: ClientMsg, at: Instant) -> Result<(), String> {
        let key = self.room.member(id).map(|m| m.key.clone()).ok_or("unknown browser")?;
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
                // Refused now, not when a result is written: one person
                // cannot hold both seats.
                self.lineup.check_rename(role, &name, &self.room)?;
                self.room.set_name(id, name);
                for b in self.room.ids_with_key(&key) {
                    if let Some(you) = self.room.you(b) {
                        self.out.push(Out::To(b, you));
                    }
                }
                self.out.push(Out::State);
            }
            ClientMsg::Leaderboard { game, vs } => {
                match self.errands.leaderboard(&self.cfg.results, id, game, vs)? {
                    Asked::Now(text) => self.out.push(Out::Text(id, text)),
                    Asked::Later => {}
                }
            }
            ClientMsg::Tree { ply, prefix } => self.ask_tree(id, role, ply, prefix, at).await?,
            ClientMsg::Review { ply } => {
                let g = self.game.as_ref().ok_or("no game to review")?;
                let m = analysis::review(g, ply)?;
                self.out.push(Out::To(id, m));
            }
            ClientMsg::Analyze { ply } => {
                host_only()?;
                if self.review.as_ref().is_some_and(Review::running) {
                    return Err("the game is being reviewed: stop the review first".into());
                }
                self.analyze(ply).await?;
            }
            ClientMsg::Judge { limit } => {
                if role == Role::Spectator {
                    return Err("spectators watch a review: the players start it".into());
                }
                self.start_review(&limit).await?;
            }
            ClientMsg::JudgeStop => {
                if role == Role::Spectator {
                    return Err("spectators watch a review: the players stop it".into());
                }
                let r = self.review.as_mut().filter(|r| r.running()).ok_or("no review is running")?;
                r.stop(&mut self.engine).await?;
            }
            ClientMsg::Better { ply } => self.better(id, ply).await?,
            ClientMsg::Play { mv } => {
                let turn = self.turn().ok_or("no game in progress")?;
                if self.turns.search.is_some() {
                    return Err("the engine is thinking".into());
                }
                if !self.lineup.seats(role).contains(&turn) {
                    return Err("it is not your move".into());
                }
                self.halt().await;
                let played = game::play(&mut self.engine, &mv, &[]).await?;
                self.after_move(played, &mv, turn, None, at).await;
            }
            ClientMsg::Resign => {
                let turn = self.turn().ok_or("no game in progress")?;
                if self.rounds.is_some() {
                    return Err("a match's rounds are played to the end (abandon the match instead)".into());
                }
                let mine = self.lineup.seats(role);
                let side =
                    if mine.contains(&turn) { turn } else { *mine.first().ok_or("you hold no seat")? };
                self.halt().await;
                let sides = self.side_names();
                self.finish(End::lost(&sides, side, Ending::Resignation)).await;
            }
            ClientMsg::New { game_type, family, options, players, pause, rounds, flag, engine } => {
                host_only()?;
                let setup =
                    NewGame { game_type, family, options, players, pause, rounds: rounds.unwrap_or(1), flag };
                self.new_game(setup, engine).await?;
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
                self.turns.pause(&mut self.engine).await?;
                self.halt_analysis().await;
                if let Some(r) = &mut self.review {
                    r.stop(&mut self.engine).await?;
                }
                if let Some(g) = &mut self.game {
                    g.clocks.stop(Instant::now());
                }
                self.out.push(Out::State);
            }
            ClientMsg::Resume => {
                host_only()?;
                // The engine moves after the review, which ends now.
                if let Some(r) = &mut self.review {
                    r.stop(&mut self.engine).await?;
                }
                self.turns.paused = false;
                if let Some(g) = &mut self.game {
                    g.note = None;
                }
                self.start_clock();
                self.out.push(Out::State);
                self.turns.schedule(self.game.as_ref(), &self.lineup);
            }
            ClientMsg::Abandon => {
                host_only()?;
                self.halt().await;
                self.game = None;
                self.rounds = None;
                self.next_round_at = None;
                self.out.push(Out::State);
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
                if !self.cfg.networked {
                    return Err("nobody else can join here: this page plays offline".into());
                }
                if side > 1 {
                    return Err("side is 0 or 1".into());
                }
                self.lineup.host_seat = Some(rounds::side_of(side, self.lineup.round));
                if self.room.guest_key.is_none() {
                    self.room.new_guest_key();
                }
                self.out.push(Out::State);
            }
            ClientMsg::Free => {
                host_only()?;
                if self.room.guest_key.is_none() {
                    return Err("nobody is invited".into());
                }
                let (_, demoted) = self.room.new_guest_key();
                self.tell_demoted(&demoted, "The host freed your seat: this page watches from now on.");
                self.out.push(Out::Announce("the host freed the guest's seat: a new invitation link".into()));
                self.out.push(Out::State);
            }
        }
        Ok(())
    }

    // ----- the game ------------------------------------------------------

    /// Tells browsers that lost a seat that they watch now (their label
    /// and their page follow).
    fn tell_demoted(&mut self, ids: &[u64], text: &str) {
        for &b in ids {
            if let Some(you) = self.room.you(b) {
                self.out.push(Out::To(b, you));
            }
            self.out.push(Out::To(b, json!({"t": "notice", "text": text})));
        }
    }

    async fn new_game(&mut self, n: NewGame, engine: EngineCfg) -> Result<(), String> {
        let NewGame { game_type, family: form, mut options, mut players, pause, mut rounds, flag } = n;
        lineup::check_players(&players)?;
        // Two people with one name are refused before anything changes.
        Lineup::of_players(&players, self.lineup.host_seat)
            .check_names(self.room.host_name.as_deref(), self.room.guest_name.as_deref())?;
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
        // From here the engine has the new game: a failure puts the
        // table's game back on it.
        let r: Result<Option<String>, String> = async {
            let family =
                game::read_board(&mut self.engine).await["family"].as_str().unwrap_or_default().to_string();
            // A GameString of another game than the form's: that game's
            // defaults, not the form's options and strategies.
            let mut note = None;
            if let Some(form) = form.filter(|f| !f.is_empty() && *f != family) {
                let strategy = analysis::default_strategy(&self.games, &family);
                let (p, n) = lineup::for_pasted_family(&form, &family, players.clone(), strategy.as_deref());
                (players, note, rounds) = (p, Some(n), 1);
                options.clear();
            }
            rounds::check(&family, rounds)?;
            lineup::check_strategies(&players, &family, &lineup::strategies(&self.games, &family))?;
            for (name, value) in &options {
                if value.is_empty() || name.eq_ignore_ascii_case("Strategy") {
                    continue;
                }
                self.engine.call(&format!("setoption name {family}.{name} value {value}")).await?;
            }
            let players = players.clone().map(|mut p| {
                p.time = p.time.clamped();
                p
            });
            self.lineup.setup = Some(Setup {
                game_type: game_type.clone(),
                family,
                options: options.clone(),
                players,
                pause: Duration::from_millis(pause.min(10_000)),
                flag,
                rounds,
            });
            Ok(note)
        }
        .await;
        let note = match r {
            Ok(note) => note,
            Err(e) => {
                self.put_back().await;
                return Err(e);
            }
        };
        self.lineup.round = 0;
        self.rounds = (rounds > 1).then(|| Rounds::new(rounds));
        self.start_round().await?;
        if let Some(n) = note {
            self.note(&n);
        }
        Ok(())
    }

    /// A new game was refused after the engine took it: the table's game
    /// goes back on the engine, and goes on.
    async fn put_back(&mut self) {
        if let Some(g) = &self.game
            && let Err(e) = self.engine.call(&format!("newgame {}", g.game_string)).await
        {
            log::warn!("gui: putting the game back after a refused new game: {e}");
        }
        self.start_clock();
        self.out.push(Out::State);
        self.turns.schedule(self.game.as_ref(), &self.lineup);
    }

    /// Starts the game of the current round.
    async fn start_round(&mut self) -> Result<(), String> {
        let s = self.lineup.setup.clone().ok_or("no game set up")?;
        self.drop_review().await;
        if s.family == rounds::FAMILY {
            let maker_is_person = !self.lineup.player(1).is_engine();
            let chosen =
                s.options.iter().find(|(k, _)| k.eq_ignore_ascii_case("Codemaker")).map(|(_, v)| v.as_str());
            let value = rounds::codemaker(maker_is_person, chosen);
            self.engine.call(&format!("setoption name {}.Codemaker value {value}", s.family)).await?;
        }
        let gs = self.engine.one(&format!("newgame {}", s.game_type)).await?;
        self.game_no += 1;
        let clocks = Clocks::new([self.lineup.player(0).time, self.lineup.player(1).time], s.flag);
        let mut g = Game::new(s.family.clone(), gs, Value::Null, clocks);
        g.refresh(&mut self.engine).await;
        g.fill_boards(&mut self.engine).await;
        self.game = Some(g);
        self.turns.paused = false;
        self.check_end().await;
        self.start_clock();
        self.out.push(Out::State);
        self.turns.schedule(self.game.as_ref(), &self.lineup);
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
        self.lineup.round += 1;
        self.start_round().await
    }

    async fn undo(&mut self) -> Result<(), String> {
        self.halt().await;
        let plies = self.game.as_ref().map_or(0, |g| g.history().len());
        if plies == 0 {
            return Err("nothing to undo".into());
        }
        if self.rounds.is_some() && self.game.as_ref().is_some_and(|g| g.end.is_some()) {
            return Err("this round is over and counted".into());
        }
        // Back to a person's turn when the side before is an engine.
        let mover = self.board()["turn"].as_u64().map(|t| 1 - t as usize).unwrap_or(0);
        let n = if self.lineup.player(mover).is_engine() && plies >= 2 { 2 } else { 1 };
        let gs = self.engine.one(&format!("undo {n}")).await?;
        if let Some(g) = &mut self.game {
            g.game_string = gs;
            g.end = None;
            g.note = None;
            g.refresh(&mut self.engine).await;
            let ply = g.ply();
            g.boards.truncate(ply + 1);
        }
        self.turns.paused = self.turn().is_some_and(|t| self.lineup.player(t).is_engine());
        if self.turns.paused {
            self.note("Undone to the engine's move: press Resume to let it play");
        }
        self.start_clock();
        self.out.push(Out::State);
        self.turns.schedule(self.game.as_ref(), &self.lineup);
        Ok(())
    }

    async fn load(&mut self, name: &str) -> Result<(), String> {
        self.halt().await;
        self.next_round_at = None;
        let gs = self.engine.one(&format!("load {name}")).await?;
        self.game_no += 1;
        let board = game::read_board(&mut self.engine).await;
        let family = board["family"].as_str().unwrap_or("").to_string();
        let strategies = lineup::strategies(&self.games, &family);
        let setup = Setup::loaded(self.lineup.setup.as_ref(), &board, &strategies);
        let flag = setup.flag;
        self.lineup.setup = Some(setup);
        self.lineup.round = 0;
        self.rounds = None;
        let clocks = Clocks::new([self.lineup.player(0).time, self.lineup.player(1).time], flag);
        let mut g = Game::new(family, gs, board, clocks);
        g.refresh(&mut self.engine).await;
        g.fill_boards(&mut self.engine).await;
        self.game = Some(g);
        self.check_end().await;
        // A loaded game waits for Resume if an engine is to move.
        self.turns.paused = self.turn().is_some_and(|t| self.lineup.player(t).is_engine());
        let what = if self.turns.paused { "paused: press Resume to go on" } else { "your move" };
        self.note(&format!("Loaded {name}: {what}"));
        self.out.push(Out::All(json!({"t": "thinking", "clear": true})));
        self.start_clock();
        self.out.push(Out::State);
        self.turns.schedule(self.game.as_ref(), &self.lineup);
        Ok(())
    }

    fn note(&mut self, text: &str) {
        if let Some(g) = &mut self.game {
            g.note = Some(text.to_string());
        }
    }

    /// Stops a running search (its move is dropped), any analysis, and
    /// the game's review (the game is about to change).
    async fn halt(&mut self) {
        self.turns.halt(&mut self.engine, self.game.as_mut()).await;
        self.halt_analysis().await;
        self.drop_review().await;
    }

    /// The side to move, `None` without a game or once it is over.
    fn turn(&self) -> Option<usize> {
        self.game.as_ref()?.turn()
    }

    fn board(&self) -> Value {
        self.game.as_ref().map(|g| g.board.clone()).unwrap_or(Value::Null)
    }

    fn side_names(&self) -> [String; 2] {
        match &self.game {
            Some(g) => g.side_names(),
            None => ["first".to_string(), "second".to_string()],
        }
    }

    /// A move was played by `side`, read at `at`; an engine's with the
    /// selections along its path, for the page to show it one selection at
    /// a time.
    async fn after_move(
        &mut self,
        played: Played,
        mv: &str,
        side: usize,
        select: Option<Option<Vec<Value>>>,
        at: Instant,
    ) {
        let Some(g) = &mut self.game else { return };
        g.moved(played, side, at);
        g.keep_board();
        let ply = g.ply();
        let by_engine = select.is_some();
        self.out.push(Out::All(json!({"t": "moved", "move": mv, "side": side, "engine": by_engine,
            "select": select.flatten(), "ply": ply, "game_no": self.game_no, "at": unix_ms(at)})));
        self.check_end().await;
        self.start_clock();
        self.out.push(Out::State);
        self.turns.schedule(self.game.as_ref(), &self.lineup);
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
        self.turns.next_at = None;
        let game_no = self.game_no;
        let Some(g) = &mut self.game else { return };
        g.clocks.stop(now);
        g.end = Some(end.clone());
        let board = g.board.clone();
        let gs = g.game_string.clone();
        let family = g.family.clone();
        let game_type = board["game_type"].as_str().unwrap_or("").to_string();
        let first_record = g.recorded.is_none();
        g.recorded.get_or_insert_with(String::new);
        self.out.push(Out::Announce(format!("Game over: {}", end.text)));
        let round = self.lineup.round;
        if let Some(r) = self.rounds.as_mut() {
            // A round lost on time is scored by the game's rule for a
            // forfeit, and won by the other side, as announced.
            let forfeited = match end.ending {
                Ending::Time | Ending::Resignation => end.winner().map(|w| 1 - w),
                _ => None,
            };
            r.add(round, &board, &gs, end.ending, forfeited);
            let r = r.clone();
            if r.over() {
                let players =
                    [self.lineup.match_player(0, &self.room), self.lineup.match_player(1, &self.room)];
                let m = MatchDone {
                    family,
                    game_type,
                    players,
                    planned: r.planned,
                    rounds: r.done.clone(),
                    result: r.result(),
                };
                self.errands.record_match(&self.cfg.results, game_no, m);
                let [a, b] = r.points();
                self.out.push(Out::Announce(format!("Match over: {a} to {b}")));
            } else if (0..2).all(|s| self.lineup.player(s).is_engine()) {
                self.next_round_at = Some(now + Duration::from_secs(3));
            }
            return;
        }
        if !first_record {
            return;
        }
        let sides = self.side_names();
        let seats = [0, 1].map(|s| (sides[s].clone(), self.lineup.side_player(s, &self.room)));
        self.errands.record_game(&self.cfg.results, game_no, [family, game_type, gs], seats, end);
    }

    /// An errand is done: a leaderboard for a browser, or a record.
    fn on_done(&mut self, d: Done) {
        match d {
            Done::Leaderboard { client, reply: Ok(text) } => self.out.push(Out::Text(client, text)),
            Done::Leaderboard { client, reply: Err(e) } => {
                self.out.push(Out::To(client, json!({"t": "error", "text": e})));
            }
            Done::Recorded { game_no, said, id } => {
                self.recorded_id = Some((game_no, id, said.clone()));
                if let Some(g) = self.game.as_mut().filter(|_| self.game_no == game_no) {
                    g.recorded = Some(said);
                    self.out.push(Out::State);
                }
                self.store_accuracy();
            }
            Done::Accuracy { game_no, said } => {
                if let Some(r) = self.review.as_mut().filter(|r| r.game_no == game_no) {
                    r.stored = Some(said);
                    self.out.push(Out::All(r.to_json()));
                }
            }
        }
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
        self.out.push(Out::State);
    }

    /// The side to move's time runs (unless paused or over). An engine's
    /// time starts with its search (after the pause people get to see the
    /// last move).
    fn start_clock(&mut self) {
        let turn = self.turn();
        let paused = self.turns.paused;
        let engine = turn.is_some_and(|t| self.lineup.is_engine(t));
        let Some(g) = &mut self.game else { return };
        let now = Instant::now();
        match turn {
            Some(t) if !paused && !engine => g.clocks.start(t, now),
            _ => g.clocks.stop(now),
        }
    }

    // ----- the engine's moves -------------------------------------------

    async fn start_search(&mut self) {
        if self.turns.engine_to_move(self.game.as_ref(), &self.lineup) && self.turns.search.is_none() {
            self.halt_analysis().await;
        }
        let Some(g) = self.game.as_mut() else { return };
        match self.turns.start(&mut self.engine, g, &self.lineup).await {
            Ok(true) => self.out.push(Out::State),
            Ok(false) => {}
            Err(e) => self.error(&e),
        }
    }

    async fn on_engine(&mut self, ev: EngineEvent) {
        match ev {
            EngineEvent::Line { id, line, at } => {
                if let Some(shown) = self.turns.on_line(id, &line, at) {
                    if let Some(m) = shown {
                        self.out.push(Out::Info(m));
                    }
                } else if let Some(a) = self.analysis.as_mut().filter(|a| a.id == Some(id)) {
                    let m = a.on_line(line);
                    self.out.push(Out::All(m));
                } else if let Some(r) = self.review.as_mut().filter(|r| r.id == Some(id)) {
                    r.on_line(&line);
                    // Each message has the whole review: one a browser
                    // behind skips loses nothing.
                    self.out.push(Out::Info(r.to_json()));
                }
            }
            EngineEvent::Done { id, reply } => {
                if let Some(s) = self.turns.take(id) {
                    self.search_done(s, reply).await;
                } else if self.analysis.as_ref().is_some_and(|a| a.id == Some(id)) {
                    let a = self.analysis.as_mut().expect("checked");
                    if a.on_done(&mut self.engine, reply).await {
                        self.finish_analysis().await;
                    }
                } else if let Some(r) = self.review.as_mut().filter(|r| r.id == Some(id)) {
                    r.on_done(reply);
                    self.store_accuracy();
                    if let Some(r) = &self.review {
                        self.out.push(Out::All(r.to_json()));
                    }
                } else if let Some(w) = self.waiting.remove(&id) {
                    let client = w.client();
                    if let Some(asked) = self.levels_asked.remove(&id) {
                        self.give_back(client, asked);
                    }
                    self.out.push(Out::To(client, w.answer(reply)));
                }
            }
            EngineEvent::Exited => {}
        }
    }

    async fn search_done(&mut self, s: Search, reply: Result<Vec<String>, Failure>) {
        match (reply, s.bestmove) {
            (Err(e), _) => {
                self.turns.paused = true;
                self.error(&format!("the engine could not move: {e}"));
                self.out.push(Out::State);
            }
            (Ok(_), Some(mv)) if !s.stopped && !self.turns.paused && self.turn() == Some(s.side) => {
                let at = s.bestmove_at.unwrap_or_else(Instant::now);
                let root = self.game.as_ref().map(|g| g.tree.clone()).unwrap_or(Value::Null);
                // The levels on the move's path are asked for with the move.
                let levels = turn::path_levels(&root, &mv);
                match game::play(&mut self.engine, &mv, &levels).await {
                    Ok(played) => {
                        let select = turn::path_selections(&root, &mv, &levels, &played.levels);
                        self.after_move(played, &mv, s.side, Some(select), at).await
                    }
                    Err(e) => {
                        self.turns.paused = true;
                        self.error(&e.to_string());
                        self.out.push(Out::State);
                    }
                }
            }
            _ => {
                self.turns.paused = true;
                if let Some(g) = &mut self.game {
                    g.clocks.stop(Instant::now());
                }
                self.out.push(Out::State);
            }
        }
    }

    /// The engine has gone (killed, crashed): it is reaped, a new one takes
    /// the table's engine slot and the game's position, paused. False if
    /// none can start.
    async fn restart_engine(&mut self) -> bool {
        let status = self.engine.reap().await;
        log::warn!("gui: the engine has exited ({status:?}); starting another");
        self.turns.search = None;
        self.turns.next_at = None;
        self.analysis = None;
        if self.review.take().is_some() {
            self.out.push(Out::All(review::cleared()));
        }
        self.levels_asked.clear();
        for (_, w) in std::mem::take(&mut self.waiting) {
            let client = w.client();
            self.out.push(Out::To(client, w.answer(Err(Failure::Gone("the engine has exited".into())))));
        }
        let permit = self.engine.take_permit();
        let engine = match Engine::spawn(&self.cfg.exe, &self.cfg.data_dir, permit).await {
            Ok(e) => e,
            Err(e) => {
                log::error!("gui: {e}");
                let text = format!("The engine stopped and no other could start: {e}");
                self.out.push(Out::All(json!({"t": "fatal", "text": text})));
                return false;
            }
        };
        let old = std::mem::replace(&mut self.engine, engine);
        drop(old);
        self.engine_cfg = (1, 0);
        let r: Result<(), Failure> = async {
            if let Some(s) = self.lineup.setup.clone() {
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
            if let Some(g) = &mut self.game {
                g.game_string = self.engine.one(&format!("newgame {}", g.game_string)).await?;
            }
            Ok(())
        }
        .await;
        if let Err(e) = r {
            log::warn!("gui: restoring the game on a new engine: {e}");
        }
        self.turns.paused = true;
        if let Some(g) = &mut self.game {
            g.refresh(&mut self.engine).await;
            g.clocks.stop(Instant::now());
        }
        self.note("The engine stopped unexpectedly; a new one took over at this position: press Resume");
        self.out.push(Out::State);
        true
    }

    // ----- analysis and the move tree -------------------------------------

    async fn analyze(&mut self, ply: Option<usize>) -> Result<(), String> {
        let g = self.game.as_ref().ok_or("no game to analyse")?;
        let allowed = Allowed {
            networked: self.lineup.host_side().is_some(),
            engine_to_move: self.turns.engine_to_move(Some(g), &self.lineup),
        };
        let strategy = analysis::default_strategy(&self.games, &g.family);
        // Checked before the analysis running is halted.
        Analysis::check(g, ply, &allowed)?;
        self.halt_analysis().await;
        let g = self.game.as_ref().ok_or("no game to analyse")?;
        let a = Analysis::start(&mut self.engine, g, ply, allowed, strategy).await?;
        self.out.push(Out::All(a.to_json(true)));
        self.analysis = Some(a);
        self.out.push(Out::State);
        Ok(())
    }

    /// The analysis is complete: the game's position is put back.
    async fn finish_analysis(&mut self) {
        let Some(a) = self.analysis.take() else { return };
        let gs = self.game.as_ref().map(|g| g.game_string.clone()).unwrap_or_default();
        let m = a.finish(&mut self.engine, &gs).await;
        self.out.push(Out::All(m));
        self.out.push(Out::State);
    }

    /// Stops an analysis (what it found so far stays on the page) and
    /// puts the game's position back.
    async fn halt_analysis(&mut self) {
        let Some(a) = self.analysis.take() else { return };
        let gs = self.game.as_ref().map(|g| g.game_string.clone()).unwrap_or_default();
        let m = a.halt(&mut self.engine, &gs).await;
        self.out.push(Out::All(m));
    }

    /// A player's Review: the engine judges every move of the game so
    /// far. An engine about to move waits for it (its turn is paused).
    async fn start_review(&mut self, limit: &str) -> Result<(), String> {
        review::parse_limit(limit)?;
        let g = self.game.as_ref().ok_or("no game to review")?;
        if g.ply() == 0 {
            return Err("no move to review yet".into());
        }
        if self.review.as_ref().is_some_and(Review::running) {
            return Err("a review is running: stop it first".into());
        }
        if self.lineup.host_side().is_some() && g.end.is_none() {
            return Err("a game between people over the network is reviewed once it is over".into());
        }
        if self.turns.search.is_some() || self.turns.engine_to_move(Some(g), &self.lineup) {
            self.turns.pause(&mut self.engine).await?;
            if let Some(g) = &mut self.game {
                g.clocks.stop(Instant::now());
            }
            self.note("Paused for the review: press Resume to let the engine move");
        }
        self.halt_analysis().await;
        let g = self.game.as_ref().ok_or("no game to review")?;
        let r = Review::start(&mut self.engine, self.game_no, g, limit).await?;
        self.out.push(Out::All(r.to_json()));
        self.review = Some(r);
        self.out.push(Out::State);
        Ok(())
    }

    /// Cancels the review (its reply is dropped) and clears it from the
    /// browsers: the game is about to change.
    async fn drop_review(&mut self) {
        let Some(r) = self.review.take() else { return };
        if r.running() {
            let _ = self.engine.send("stop", false).await;
        }
        self.out.push(Out::All(review::cleared()));
    }

    /// A complete review of a finished game: each side's accuracy is
    /// stored with the game's record, once both are known (the record is
    /// written off the table's task), and never with another game's.
    fn store_accuracy(&mut self) {
        let Some(r) = self.review.as_mut().filter(|r| !r.storing) else { return };
        let Some(acc) = r.accuracy() else { return };
        let Some((game_no, id, said)) = self.recorded_id.clone().filter(|(n, ..)| *n == r.game_no) else {
            return;
        };
        r.storing = true;
        match id {
            Some(id) if self.rounds.is_none() => {
                self.errands.store_accuracy(&self.cfg.results, game_no, id, acc)
            }
            Some(_) => r.stored = Some("a round of a match: its accuracy is not stored".into()),
            None => r.stored = Some(format!("the accuracy is not stored: {said}")),
        }
    }

    /// The board before ply `ply` with the review's better move played,
    /// for one browser (the engine sets it up and puts the game back).
    async fn better(&mut self, client: u64, ply: usize) -> Result<(), String> {
        let r = self.review.as_ref().filter(|r| r.game_no == self.game_no).ok_or("no review of this game")?;
        if r.running() {
            return Err("the better moves are shown once the review is done".into());
        }
        if self.turns.search.is_some() || self.analysis.is_some() {
            return Err("the engine is busy: try again once it has moved".into());
        }
        let best = r.better_move(ply).ok_or("that move was the best")?;
        let g = self.game.as_ref().ok_or("no game")?;
        let line = review::better_position(g, ply, &best)?;
        let gs = g.game_string.clone();
        let before = g.board_at(ply - 1);
        let board = match self.engine.call(&line).await {
            Ok(_) => Ok(game::read_board(&mut self.engine).await),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = self.engine.call(&format!("position {gs}")).await {
            log::warn!("gui: putting the game back after a better move: {e}");
        }
        let board = board?;
        self.out.push(Out::To(
            client,
            json!({"t": "better", "ply": ply, "move": best, "board": board,
            "before": before, "game_no": self.game_no}),
        ));
        Ok(())
    }

    async fn ask_tree(
        &mut self,
        id: u64,
        role: Role,
        ply: usize,
        prefix: Vec<String>,
        at: Instant,
    ) -> Result<(), String> {
        let current = self.game.as_ref().map(Game::ply);
        let turn = self.turn();
        if current != Some(ply) || !turn.is_some_and(|t| self.lineup.seats(role).contains(&t)) {
            return Err("not your move".into());
        }
        check_prefix(&prefix)?;
        // Its reply would wait for the review's.
        if self.review.as_ref().is_some_and(Review::running) {
            return Err("the game is being reviewed: stop the review to move".into());
        }
        let eid = self.engine.send(&format!("movetree json level {}", prefix.join(" ")), false).await?;
        self.waiting.insert(eid, Waiting::Tree { client: id, ply, prefix });
        self.levels_asked.insert(eid, at);
        Ok(())
    }

    /// A person waited on the table from `asked` for the choices of a
    /// move: the wait is given back to the person's clock if it runs.
    fn give_back(&mut self, client: u64, asked: Instant) {
        let Some(key) = self.room.member(client).map(|m| m.key.clone()) else { return };
        let seats = self.lineup.seats(self.room.role(&key));
        if let Some(g) = &mut self.game
            && g.clocks.running().is_some_and(|s| seats.contains(&s))
        {
            g.clocks.credit(asked, Instant::now());
        }
    }

    // ----- sending ---------------------------------------------------------

    fn error(&mut self, e: &str) {
        self.out.push(Out::All(json!({"t": "error", "text": e})));
    }

    /// Delivers what the event's handling has to say, in order; the state
    /// once (read now), made once and shared by every browser, each
    /// browser's own part before it when that changed.
    fn flush(&mut self) {
        let out = std::mem::take(&mut self.out);
        let last_state = out.iter().rposition(|o| matches!(o, Out::State));
        let mut state = None;
        for (i, o) in out.into_iter().enumerate() {
            match o {
                Out::To(id, v) => {
                    let m = self.room.msg(Kind::Other, v.to_string());
                    self.room.send(id, &m);
                }
                Out::Text(id, text) => {
                    let m = self.room.msg(Kind::Other, text.to_string());
                    self.room.send(id, &m);
                }
                Out::All(v) => {
                    let m = self.room.msg(Kind::Other, v.to_string());
                    self.room.broadcast(&m);
                }
                Out::Info(v) => {
                    let m = self.room.msg(Kind::Info, v.to_string());
                    self.room.broadcast(&m);
                }
                Out::Announce(text) => self.room.announce(&text),
                Out::State if Some(i) != last_state => {}
                Out::State => {
                    let m = state
                        .get_or_insert_with(|| self.room.msg(Kind::State, self.view().common().to_string()))
                        .clone();
                    for id in self.room.ids() {
                        self.send_own(id);
                    }
                    self.room.broadcast(&m);
                }
                Out::StateTo(id) => {
                    let m = state
                        .get_or_insert_with(|| self.room.msg(Kind::State, self.view().common().to_string()))
                        .clone();
                    self.send_own(id);
                    self.room.send(id, &m);
                }
            }
        }
    }

    /// A browser's own part of the state, if it changed.
    fn send_own(&mut self, id: u64) {
        let Some(m) = self.room.member(id) else { return };
        let own = self.view().own(self.room.role(&m.key)).to_string();
        self.room.send_own(id, own);
    }

    fn view(&self) -> View<'_> {
        View {
            game_no: self.game_no,
            game: self.game.as_ref(),
            lineup: &self.lineup,
            room: &self.room,
            turns: &self.turns,
            analysing: self.analysis.is_some(),
            rounds: self.rounds.as_ref(),
            engine_cfg: self.engine_cfg,
        }
    }
}

/// An instant as milliseconds since the Unix epoch (for the page and
/// tests, on the same machine's clock).
fn unix_ms(at: Instant) -> u64 {
    let ago = Instant::now().saturating_duration_since(at);
    web_time::SystemTime::now()
        .checked_sub(ago)
        .and_then(|t| t.duration_since(web_time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as u64)
}
