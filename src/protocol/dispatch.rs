//! What each command does, in its turn (no search is running when these
//! run). Replies go out framed by the session's dialect.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use log::warn;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::clock;
use super::command::{BestMoveLimit, Command, GoParams, PositionBase, Query};
use super::dialect::{Dialect, Failure, Reply, err, move_in};
use super::help;
use super::runner::{self, Job, Request};
use super::session::Session;
use super::settings::Scope;
use crate::game::{MoveError, Outcome};
use crate::gamestring::LoadError;
use crate::options::{OptionKind, OptionSpec, OptionValue};
use crate::registry::{self, AnyGame, AnyPlayer, Family};
use crate::saves::{self, SaveFile};
use crate::search::Limits;
use crate::search::alloc;
use crate::text::clean;
use crate::text::clip;

impl From<LoadError> for Failure {
    fn from(e: LoadError) -> Self {
        match e {
            LoadError::Invalid(m) => Failure::Err(m),
            LoadError::Move(m) => Failure::InvalidMove(m),
        }
    }
}

impl From<MoveError> for Failure {
    fn from(e: MoveError) -> Self {
        match e {
            MoveError::GameOver => Failure::Err("game is over".into()),
            other => Failure::InvalidMove(other.to_string()),
        }
    }
}

impl<W: Write + Send + 'static> Session<W> {
    /// Runs one command in its turn.
    pub(super) fn run_command(&mut self, c: Command) {
        match c {
            Command::Go(p) => self.start_go(p),
            Command::BestMove(l) => self.start_bestmove(l),
            Command::Analyze(a) => self.start_analyze(a),
            Command::Review(p) => self.start_review(p),
            Command::Quit => self.set_exit(0),
            c => {
                // `show` may carry the colour codes of `Color`; every other
                // reply is cleaned line by line, so no text from input or a
                // file reaches stdout with a control character in it.
                let raw = c == Command::Show;
                // A bug in a game must not take the engine down.
                let r = catch_unwind(AssertUnwindSafe(|| self.execute(c)))
                    .unwrap_or_else(|_| err("internal error (see stderr)"));
                let r = if raw { r } else { r.map(|lines| lines.iter().map(|l| clean(l)).collect()) };
                self.write_reply(r);
            }
        }
    }

    fn execute(&mut self, cmd: Command) -> Reply {
        let uci = self.dialect.is_uci_like();
        match cmd {
            Command::Info => Ok(self.info_lines()),
            Command::Help(topic) => help::lines(topic.as_deref()).map_err(Failure::Err),
            Command::NewGame(arg) => {
                let spec = arg.unwrap_or_else(|| self.default_type());
                let g = self.build_game(&spec)?;
                Ok(vec![self.install_game(g)])
            }
            Command::UciNewGame => {
                let g = self.build_game(&self.default_type())?;
                if let Some((_, p)) = &mut self.player {
                    p.reset();
                }
                let s = self.install_game(g);
                Ok(if uci { vec![] } else { vec![s] })
            }
            Command::Position { base, moves } => {
                let start = matches!(base, PositionBase::StartPos);
                let spec = match base {
                    PositionBase::StartPos => match (&self.game, uci) {
                        (Some(g), false) => g.game_type(),
                        _ => self.default_type(),
                    },
                    PositionBase::Game(s) => s,
                };
                let g = self.build_game(&spec)?;
                // In UCI/UGI a move is one token; meeple's own dialect
                // also takes a game's compact lists (`4453`, `;`).
                let spaces = g.family().moves_have_spaces;
                let list: Vec<String> = match &moves {
                    None => vec![],
                    Some(m) if uci => m.split_whitespace().map(|t| move_in(t, spaces)).collect(),
                    Some(m) => g.split_move_list(m).iter().map(|t| move_in(t, spaces)).collect(),
                };
                let g = match self.continued(start, g.as_ref(), &list) {
                    Some(cur) => cur,
                    None => registry::replay(g, &list)?,
                };
                let s = self.install_game(g);
                Ok(if uci { vec![] } else { vec![s] })
            }
            Command::Play(m) => {
                let spaces = self.game.as_ref().is_some_and(|g| g.family().moves_have_spaces);
                self.play(&move_in(&m, spaces))
            }
            Command::Pass => self.play("pass"),
            Command::Undo(n) => {
                let g = self.game.as_mut().ok_or(Failure::Err("no game in progress".into()))?;
                g.undo(n).map_err(Failure::Err)?;
                Ok(vec![g.game_string()])
            }
            Command::ValidMoves => {
                let g = self.live_game()?;
                if let Some(why) = g.too_many_moves() {
                    return err(why);
                }
                let d = self.dialect;
                let moves: Vec<String> = g.valid_moves().iter().map(|m| d.move_out(m)).collect();
                Ok(vec![moves.join(if uci { " " } else { ";" })])
            }
            Command::SetOption { name, value } => {
                let value = match value {
                    Some(v) => v,
                    None => match self.settings.find(&name) {
                        Some((_, spec)) if matches!(spec.kind, OptionKind::Bool { .. }) => "True".into(),
                        // `setoption name Secret value` (or no `value`): the empty string.
                        Some((_, spec)) if matches!(spec.kind, OptionKind::Str { .. }) => String::new(),
                        Some(_) => return err(format!("setoption name {} needs a value", clip(&name))),
                        None => return Err(unknown_option(&name)),
                    },
                };
                self.set_option(&name, &value).map(|_| vec![])
            }
            Command::Options => Ok(self.settings.uhp_lines()),
            Command::OptionsGet(name) => {
                let (scope, spec) = self.settings.find(&name).ok_or_else(|| unknown_option(&name))?;
                Ok(vec![spec.uhp_line(&self.settings.value_of(scope, &spec))])
            }
            Command::OptionsSet { name, value } => Ok(vec![self.set_option(&name, &value)?]),
            Command::MoveTree { json } => self.live_game()?.move_tree(json).map_err(Failure::Err),
            Command::MoveTreeLevel(prefix) => {
                Ok(vec![self.live_game()?.move_tree_level(&prefix).map_err(Failure::Err)?])
            }
            Command::Board => Ok(vec![
                serde_json::to_string(&self.game_ref()?.board_view())
                    .map_err(|e| Failure::Err(e.to_string()))?,
            ]),
            Command::Games => Ok(vec![crate::gamelist::games_json(self.settings.engine_specs())]),
            Command::Show => {
                let color = match self.settings.engine().get_str("Color") {
                    Some("always") => true,
                    Some("never") => false,
                    _ => self.config.color,
                };
                let g = self.game_ref()?;
                Ok(g.render(color).lines().map(str::to_string).collect())
            }
            Command::Save(name) => self.save(&name),
            Command::Load(name) => self.load(&name),
            // Each save's public GameString: a secret of a game in progress
            // is not shown; unreadable files say why, on one clean line.
            Command::Saves => Ok(self.saves.listing().iter().map(|l| clean(l)).collect()),
            Command::Query(q) => {
                let g = self.game_ref()?;
                let answer = match q {
                    Query::P1Turn => (g.side_to_move() == 0 && !g.is_over()).to_string(),
                    Query::GameOver => g.is_over().to_string(),
                    Query::Result => match g.outcome() {
                        None => "none".into(),
                        Some(Outcome::Draw) => "draw".into(),
                        Some(Outcome::Win(0)) => "p1win".into(),
                        Some(Outcome::Win(_)) => "p2win".into(),
                    },
                };
                Ok(vec![format!("response {answer}")])
            }
            Command::Uci | Command::Ugi => {
                let ugi = cmd == Command::Ugi;
                self.dialect = if ugi { Dialect::Ugi } else { Dialect::Uci };
                if self.game.is_none() {
                    let g = self.build_game(&self.default_type())?;
                    self.install_game(g);
                }
                let mut v = vec![
                    format!("id name meeple {}", crate::VERSION),
                    "id author the meeple developers".to_string(),
                ];
                v.extend(self.settings.uci_lines());
                v.push(if ugi { "ugiok" } else { "uciok" }.to_string());
                Ok(v)
            }
            // Outside a search `isready` waits for the player's set-up
            // (a book being read) to finish.
            Command::IsReady => {
                if let Some((_, p)) = &mut self.player {
                    p.ready();
                }
                Ok(vec!["readyok".into()])
            }
            // Outside a search these have nothing to act on.
            Command::Stop | Command::PonderHit => Ok(vec![]),
            Command::Go(_)
            | Command::BestMove(_)
            | Command::Analyze(_)
            | Command::Review(_)
            | Command::Quit => {
                unreachable!("handled by run_command")
            }
        }
    }

    /// `position startpos moves ...` that goes on from the current game
    /// (a runner sends the whole list every move): the current game, taken
    /// back to where the lists part and played on, keeping its hidden state
    /// (a Mastermind secret) and costing only the moves that differ. `None`
    /// when the lists share nothing (a new game) or a move is refused.
    fn continued(&self, start: bool, fresh: &dyn AnyGame, list: &[String]) -> Option<Box<dyn AnyGame>> {
        let cur = self.game.as_ref()?;
        if !start || cur.game_type() != fresh.game_type() {
            return None;
        }
        let played = cur.history();
        let common = played.iter().zip(list).take_while(|(a, b)| a == b).count();
        if common == 0 && !played.is_empty() {
            return None;
        }
        let mut g = cur.clone_box();
        if common < played.len() {
            g.undo(played.len() - common).ok()?;
        }
        for m in &list[common..] {
            g.play_text(m).ok()?;
        }
        Some(g)
    }

    pub(super) fn info_lines(&self) -> Vec<String> {
        let mut caps: Vec<&str> = Vec::new();
        for f in crate::registry::families() {
            caps.extend(f.capabilities.iter());
        }
        vec![format!("id meeple v{}", crate::VERSION), caps.join(";")]
    }

    /// The game type of `newgame` with no argument (the `UCI_Variant`).
    fn default_type(&self) -> String {
        self.settings.engine().get_str("UCI_Variant").unwrap_or(&self.config.default_type).to_string()
    }

    fn game_ref(&self) -> Result<&dyn AnyGame, Failure> {
        self.game.as_deref().ok_or(Failure::Err("no game in progress".into()))
    }

    /// The game, which must not be over.
    fn live_game(&self) -> Result<&dyn AnyGame, Failure> {
        let g = self.game_ref()?;
        if g.is_over() {
            return err("game is over");
        }
        Ok(g)
    }

    fn play(&mut self, text: &str) -> Reply {
        let g = self.game.as_mut().ok_or(Failure::Err("no game in progress".into()))?;
        g.play_text(text)?;
        Ok(vec![g.game_string()])
    }

    /// Makes a game from a GameType or a GameString (replayed, validated).
    fn build_game(&mut self, spec: &str) -> Result<Box<dyn AnyGame>, Failure> {
        let settings = &self.settings;
        let options = |fam: Family| settings.for_family(fam);
        registry::load(spec, options, &mut self.rng).map_err(Failure::from)
    }

    /// Makes `g` the current game; returns its GameString.
    fn install_game(&mut self, g: Box<dyn AnyGame>) -> String {
        let fam = g.family();
        if fam.name != self.settings.family.name {
            self.player = None;
        }
        if let Some((_, p)) = &mut self.player {
            p.reset();
        }
        self.settings.family = fam;
        let s = g.game_string();
        self.game = Some(g);
        self.prepare_player();
        s
    }

    /// The player of the current game and strategy, made if needed.
    fn take_player(&mut self) -> Result<Box<dyn AnyPlayer>, String> {
        let g = self.game.as_ref().ok_or("no game in progress")?;
        let options = self.settings.for_family(g.family());
        let wanted = options.get_str("Strategy").unwrap_or("").to_string();
        match self.player.take() {
            Some((f, p)) if f == g.family().name && p.strategy().eq_ignore_ascii_case(&wanted) => Ok(p),
            _ => g.new_player(&options),
        }
    }

    /// Makes the player ready for the current game (see
    /// [`crate::search::Player::prepare`]).
    fn prepare_player(&mut self) {
        let Ok(mut p) = self.take_player() else { return };
        let g = self.game.as_ref().expect("take_player checked");
        let options = self.settings.for_family(g.family());
        p.prepare(g.as_ref(), &options);
        self.player = Some((g.family().name, p));
    }

    /// Sets an option; returns its UHP line. Nothing changes on error.
    fn set_option(&mut self, name: &str, text: &str) -> Result<String, Failure> {
        let (scope, spec) = self.settings.find(name).ok_or_else(|| unknown_option(name))?;
        let value = spec.parse_value(text).map_err(Failure::Err)?;
        self.check_option(scope, &spec, &value)?;
        if spec.name == "Seed"
            && let OptionValue::Int(seed) = value
        {
            self.rng = if seed == 0 { StdRng::from_os_rng() } else { StdRng::seed_from_u64(seed as u64) };
        }
        self.settings.store(scope, &spec, value.clone());
        // Players read their options at every move; a new strategy is made
        // ready now (tables are allocated by the first search).
        if spec.name == "Strategy" || spec.name == "Hash" {
            self.prepare_player();
        }
        Ok(spec.uhp_line(&value))
    }

    /// Refuses values the machine or the registry cannot honour.
    fn check_option(&self, scope: Scope, spec: &OptionSpec, value: &OptionValue) -> Result<(), Failure> {
        match (scope, spec.name, value) {
            (None, "Hash", OptionValue::Int(mb)) => {
                let bytes = (*mb as usize).saturating_mul(1 << 20);
                if !alloc::can_allocate(bytes) {
                    return err(format!("cannot allocate {mb} MB for Hash; nothing changed"));
                }
            }
            (None, "UCI_Variant", OptionValue::Str(t)) => {
                crate::registry::new_game(t).map_err(|e| Failure::Err(clean(&e)))?;
            }
            _ => {}
        }
        Ok(())
    }

    fn save(&mut self, name: &str) -> Reply {
        let g = self.game_ref()?;
        let fam = g.family();
        let values = self.settings.family_values(fam);
        let options = fam
            .options()
            .iter()
            .filter_map(|s| values.get(s.name).map(|v| (s.name.to_string(), v.to_string())))
            .collect();
        // The save keeps hidden state too (a secret mid-game).
        let game = self.game_with_secret().expect("a game: checked above");
        let file = SaveFile { format: saves::FORMAT.into(), version: saves::VERSION, game, options };
        self.saves.save(name, &file).map_err(Failure::Err)?;
        Ok(vec![format!("saved {name}")])
    }

    fn load(&mut self, name: &str) -> Reply {
        let file = self.saves.load(name).map_err(Failure::Err)?;
        let g = self.build_game(&file.game).map_err(|f| match f {
            Failure::Err(m) | Failure::InvalidMove(m) => Failure::Err(format!("save '{name}': {m}")),
        })?;
        let fam = g.family();
        let mut values = self.settings.family_values(fam);
        for spec in fam.options() {
            if let Some(text) = file.options.get(spec.name) {
                match spec.parse_value(text) {
                    Ok(v) => values.set(spec.name, v),
                    Err(e) => warn!("save '{name}': option ignored: {e}"),
                }
            }
        }
        self.settings.set_family_values(fam, values);
        self.player = None;
        Ok(vec![self.install_game(g)])
    }

    // ----- searches -----------------------------------------------------------

    fn overhead(&self) -> Duration {
        Duration::from_millis(self.settings.engine().get_int("Move Overhead").unwrap_or(0).max(0) as u64)
    }

    fn start_go(&mut self, p: GoParams) {
        let side = match self.live_game() {
            Ok(g) => g.side_to_move(),
            Err(f) => return self.write_reply(Err(f)),
        };
        if !p.unknown.is_empty() {
            let words = clean(&p.unknown.join(" "));
            if self.dialect == Dialect::Meeple {
                return self
                    .write_reply(err(format!("go: unknown or incomplete tokens '{words}' (help go)")));
            }
            // UCI: unknown tokens are ignored.
            self.out.write_block(&format!("info string ignored go tokens: {words}\n"));
        }
        let mut searchmoves = Vec::new();
        for m in &p.searchmoves {
            let mut g = self.game.as_ref().expect("live game").clone_box();
            let spaces = g.family().moves_have_spaces;
            match g.play_text(&move_in(m, spaces)) {
                Ok(t) => searchmoves.push(t),
                Err(e) if self.dialect == Dialect::Meeple => return self.write_reply(Err(e.into())),
                Err(_) => self.out.write_block(&format!("info string searchmoves: ignored {}\n", clean(m))),
            }
        }
        let limits = clock::go_limits(&p, side, self.overhead());
        self.spawn_search(Job::Go, limits, String::new(), searchmoves, p.ponder);
    }

    fn start_bestmove(&mut self, l: BestMoveLimit) {
        if let Err(f) = self.live_game() {
            return self.write_reply(Err(f));
        }
        let limits = match l {
            BestMoveLimit::None => Limits::default(),
            BestMoveLimit::Depth(d) => Limits { depth: Some(d), ..Default::default() },
            BestMoveLimit::Time(t) => {
                Limits { movetime: Some(clock::budget(t, self.overhead())), ..Default::default() }
            }
        };
        self.spawn_search(Job::BestMove, limits, String::new(), vec![], false);
    }

    fn start_analyze(&mut self, args: String) {
        if let Err(f) = self.game_ref() {
            return self.write_reply(Err(f));
        }
        // `analyze` takes `go`'s limits first, then the game's own arguments.
        let mut limits = Limits::default();
        let mut rest: Vec<&str> = Vec::new();
        let toks: Vec<&str> = args.split_whitespace().collect();
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i].to_ascii_lowercase();
            let num = toks.get(i + 1).and_then(|n| n.parse::<u64>().ok());
            match (t.as_str(), num) {
                ("depth", Some(n)) => limits.depth = Some(n.min(u32::MAX as u64) as u32),
                ("nodes", Some(n)) => limits.nodes = Some(n),
                ("movetime", Some(n)) => {
                    limits.movetime = Some(clock::budget(Duration::from_millis(n), self.overhead()))
                }
                ("infinite", _) => {
                    limits.infinite = true;
                    i += 1;
                    continue;
                }
                _ => {
                    rest.push(toks[i]);
                    i += 1;
                    continue;
                }
            }
            i += 2;
        }
        self.spawn_search(Job::Analyze, limits, rest.join(" "), vec![], false);
    }

    /// `review [depth N] [nodes N] [movetime MS]`: meeple's dialect only
    /// (its reply has no place in UCI's), on a game with a move played.
    fn start_review(&mut self, p: GoParams) {
        if self.dialect.is_uci_like() {
            return self.write_reply(err(
                "review is a command of meeple's own dialect, not of UCI or UGI: start a new session without uci/ugi",
            ));
        }
        match self.game_ref() {
            Err(f) => return self.write_reply(Err(f)),
            Ok(g) if g.history().is_empty() => {
                return self.write_reply(err("review: no move has been played in this game"));
            }
            Ok(_) => {}
        }
        match super::review::limits(&p, self.overhead()) {
            Ok(limits) => self.spawn_search(Job::Review, limits, String::new(), vec![], false),
            Err(e) => self.write_reply(err(clean(&e))),
        }
    }

    fn spawn_search(
        &mut self,
        job: Job,
        limits: Limits,
        args: String,
        searchmoves: Vec<String>,
        ponder: bool,
    ) {
        let game = match &self.game {
            Some(g) => g.clone_box(),
            None => return self.write_reply(self.no_game()),
        };
        let options = self.settings.for_family(game.family());
        let player = match self.take_player() {
            Ok(p) => p,
            Err(e) => return self.write_reply(err(e)),
        };
        let seed: u64 = self.rng.random();
        let req = Request {
            job,
            game,
            player,
            options,
            limits,
            args,
            seed,
            dialect: self.dialect,
            searchmoves,
            ponder,
            arrived: self.arrived,
        };
        let unbounded = runner::is_unbounded(&req);
        let running = runner::spawn(req, self.out.clone(), self.notifier());
        if self.must_stop_at_once(unbounded) {
            running.stop.stop();
        }
        self.search = Some(running);
    }
}

fn unknown_option(name: &str) -> Failure {
    Failure::Err(format!("unknown option '{}'", clip(name)))
}
