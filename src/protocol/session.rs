//! The session: the engine's state (game, options, saves) and the handling
//! of every command. It writes to any `W: Write` (stdout in the binary, a
//! buffer in tests) and knows no game by name: games come from the
//! registry.
//!
//! Searches (`go`, `bestmove`, `analyze`) run on their own thread, which
//! writes its `info` lines and its final reply itself; the output is a
//! shared, locked writer and every reply is written as one block.

use std::collections::BTreeMap;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use log::{error, warn};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::command::{BestMoveLimit, Command, GoParams, PositionBase, parse_command};
use super::input::{InputLine, MAX_LINE};
use crate::game::MoveError;
use crate::gamestring::{self, LoadError, clip};
use crate::movetree;
use crate::options::{OptionKind, OptionSpec, OptionValue, OptionValues};
use crate::registry::{self, AnyGame, AnyPlayer, Family};
use crate::saves::{self, SaveFile, Saves};
use crate::search::{Limits, Report, SearchCtx, StopFlag};

/// How the session was started.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// Game type of `newgame` with no argument and `position startpos`.
    pub default_type: String,
    pub data_dir: PathBuf,
    /// True if stdout is a terminal (for `Color auto`).
    pub is_tty: bool,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            default_type: "Connect4".into(),
            data_dir: PathBuf::from("meeple-data"),
            is_tty: false,
        }
    }
}

/// A reply that failed.
enum Failure {
    Err(String),
    InvalidMove(String),
}

type Reply = Result<Vec<String>, Failure>;

fn err<T>(msg: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::Err(msg.into()))
}

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

/// What a search thread is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Job {
    Go,
    BestMove,
    Analyze,
}

struct RunningSearch {
    stop: StopFlag,
    done: Arc<AtomicBool>,
    infinite: bool,
    handle: JoinHandle<Option<Box<dyn AnyPlayer>>>,
}

/// Engine-wide options.
pub fn engine_options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::int("Hash", 256, 1, 16384, "transposition table size in MB"),
        OptionSpec::int("Threads", 1, 1, 64, "search threads"),
        OptionSpec::int("Move Overhead", 30, 0, 5000, "ms taken off every time limit"),
        OptionSpec::int("Seed", 0, 0, 1 << 53, "seed of all randomness; 0 = fresh at start"),
        OptionSpec::choice("Color", "auto", &["auto", "always", "never"], "ANSI colours in show"),
    ]
}

/// The protocol state machine.
pub struct Session<W: Write + Send + 'static> {
    out: Arc<Mutex<W>>,
    config: SessionConfig,
    game: Option<Box<dyn AnyGame>>,
    /// The family whose options `options` shows (the current game's).
    family: Family,
    engine_specs: Vec<OptionSpec>,
    engine_values: OptionValues,
    family_values: BTreeMap<&'static str, OptionValues>,
    rng: StdRng,
    player: Option<(&'static str, Box<dyn AnyPlayer>)>,
    search: Option<RunningSearch>,
    saves: Saves,
    last_sigint: Option<Instant>,
    quit: bool,
}

impl<W: Write + Send + 'static> Session<W> {
    pub fn new(out: W, config: SessionConfig) -> Self {
        let family = registry::new_game(&config.default_type)
            .map(|g| g.family())
            .unwrap_or_else(|_| registry::families()[0]);
        let engine_specs = engine_options();
        let engine_values = OptionValues::from_specs(&engine_specs);
        let family_values =
            registry::families().iter().map(|f| (f.name, OptionValues::from_specs(&f.options()))).collect();
        Session {
            out: Arc::new(Mutex::new(out)),
            saves: Saves::new(&config.data_dir),
            config,
            game: None,
            family,
            engine_specs,
            engine_values,
            family_values,
            rng: StdRng::from_os_rng(),
            player: None,
            search: None,
            last_sigint: None,
            quit: false,
        }
    }

    /// The shared output (tests read what was written).
    pub fn output(&self) -> Arc<Mutex<W>> {
        self.out.clone()
    }

    /// True once the engine must exit.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// True while a search thread runs.
    pub fn is_searching(&mut self) -> bool {
        self.reap();
        self.search.is_some()
    }

    /// The startup banner: `info`'s output and `ok`.
    pub fn greet(&mut self) {
        let lines = self.info_lines();
        self.write_reply(Ok(lines));
    }

    // ----- output ---------------------------------------------------------

    fn write_block(&self, text: &str) {
        let mut o = self.out.lock().unwrap_or_else(|p| p.into_inner());
        if o.write_all(text.as_bytes()).and_then(|_| o.flush()).is_err() {
            // stdout is gone: nobody is listening, so stop.
            error!("cannot write to stdout");
        }
    }

    fn write_reply(&self, reply: Reply) {
        let mut text = String::new();
        match reply {
            Ok(lines) => {
                for l in lines {
                    text.push_str(&l);
                    text.push('\n');
                }
            }
            Err(Failure::Err(m)) => text.push_str(&format!("err {}\n", one_line(&m))),
            Err(Failure::InvalidMove(m)) => text.push_str(&format!("invalidmove {}\n", one_line(&m))),
        }
        text.push_str("ok\n");
        self.write_block(&text);
    }

    // ----- events ---------------------------------------------------------

    /// Handles one line of input.
    pub fn handle_input(&mut self, input: InputLine) {
        self.reap();
        match input {
            InputLine::TooLong(n) => {
                self.write_reply(err(format!("line too long ({n} bytes; the limit is {MAX_LINE})")))
            }
            InputLine::NotUtf8 => self.write_reply(err("input is not valid UTF-8")),
            InputLine::Line(l) => self.handle_line(&l),
        }
    }

    /// Handles one line of text.
    pub fn handle_line(&mut self, line: &str) {
        self.reap();
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return;
        }
        let cmd = match parse_command(line) {
            Ok(c) => c,
            Err(e) => return self.write_reply(err(e.to_string())),
        };
        match cmd {
            Command::Quit => {
                self.stop_search();
                self.quit = true;
            }
            Command::Stop => {
                self.stop_search();
                self.write_reply(Ok(vec![]));
            }
            Command::IsReady => self.write_reply(Ok(vec!["readyok".into()])),
            c if self.search.is_some() && !c.is_read_only() => {
                self.write_reply(err("search in progress (send stop first)"))
            }
            Command::Go(p) => self.start_go(p),
            Command::BestMove(l) => self.start_bestmove(l),
            Command::Analyze(a) => self.start_analyze(a),
            c => {
                // A bug in a game must not take the engine down.
                let r = catch_unwind(AssertUnwindSafe(|| self.execute(c)))
                    .unwrap_or_else(|_| err("internal error (see stderr)"));
                self.write_reply(r);
            }
        }
    }

    /// SIGINT: stops a running search (its reply is printed); otherwise a
    /// second SIGINT within two seconds quits.
    pub fn handle_sigint(&mut self) {
        self.reap();
        if self.search.is_some() {
            self.stop_search();
            return;
        }
        let now = Instant::now();
        if self.last_sigint.is_some_and(|t| now.duration_since(t) < Duration::from_secs(2)) {
            self.quit = true;
        } else {
            warn!("SIGINT ignored while idle; send quit, close input, or press Ctrl-C again to exit");
            self.last_sigint = Some(now);
        }
    }

    /// End of input: a limited search finishes, an infinite one is stopped.
    pub fn handle_eof(&mut self) {
        self.reap();
        if let Some(s) = &self.search
            && s.infinite
        {
            s.stop.stop();
        }
        self.wait_search();
        self.quit = true;
    }

    /// Blocks until the running search (if any) has finished.
    pub fn wait_search(&mut self) {
        if let Some(s) = self.search.take() {
            self.join(s);
        }
    }

    fn stop_search(&mut self) {
        if let Some(s) = self.search.take() {
            s.stop.stop();
            self.join(s);
        }
    }

    fn join(&mut self, s: RunningSearch) {
        match s.handle.join() {
            Ok(Some(p)) => {
                if let Some(g) = &self.game {
                    self.player = Some((g.family().name, p));
                }
            }
            Ok(None) => {}
            Err(_) => error!("search thread panicked"),
        }
    }

    /// Joins a search that finished by itself.
    fn reap(&mut self) {
        if self.search.as_ref().is_some_and(|s| s.done.load(Ordering::Acquire)) {
            let s = self.search.take().expect("checked");
            self.join(s);
        }
    }

    // ----- commands -------------------------------------------------------

    fn execute(&mut self, cmd: Command) -> Reply {
        match cmd {
            Command::Info => Ok(self.info_lines()),
            Command::Help => Ok(help_lines()),
            Command::NewGame(arg) => {
                let spec = arg.unwrap_or_else(|| self.config.default_type.clone());
                let g = self.build_game(&spec)?;
                Ok(vec![self.install_game(g)])
            }
            Command::Position { base, moves } => {
                let spec = match base {
                    PositionBase::StartPos => match &self.game {
                        Some(g) => g.game_type(),
                        None => self.config.default_type.clone(),
                    },
                    PositionBase::Game(s) => s,
                };
                let mut g = self.build_game(&spec)?;
                if let Some(m) = moves {
                    let list = g.split_move_list(&m);
                    g = gamestring::replay(g, &list)?;
                }
                Ok(vec![self.install_game(g)])
            }
            Command::Play(m) => self.play(&m),
            Command::Pass => self.play("pass"),
            Command::Undo(n) => {
                let g = self.game_mut()?;
                g.undo(n).map_err(Failure::Err)?;
                Ok(vec![g.game_string()])
            }
            Command::ValidMoves => {
                let g = self.live_game()?;
                if let Some(why) = g.too_many_moves() {
                    return err(why);
                }
                Ok(vec![g.valid_moves().join(";")])
            }
            Command::SetOption { name, value } => {
                let value = match value {
                    Some(v) => v,
                    None => match self.find_option(&name) {
                        Some((_, spec)) if matches!(spec.kind, OptionKind::Bool { .. }) => "True".into(),
                        Some(_) => return err(format!("setoption name {name} needs a value")),
                        None => return err(format!("unknown option '{name}'")),
                    },
                };
                self.set_option(&name, &value).map(|_| vec![])
            }
            Command::Options => Ok(self.option_lines()),
            Command::OptionsGet(name) => {
                let (scope, spec) = self.find_option(&name).ok_or_else(|| unknown_option(&name))?;
                Ok(vec![spec.uhp_line(&self.value_of(scope, &spec))])
            }
            Command::OptionsSet { name, value } => {
                let line = self.set_option(&name, &value)?;
                Ok(vec![line])
            }
            Command::MoveTree { json } => movetree::for_game(self.live_game()?, json).map_err(Failure::Err),
            Command::Board => Ok(vec![
                serde_json::to_string(&self.game_ref()?.board_view())
                    .map_err(|e| Failure::Err(e.to_string()))?,
            ]),
            Command::Games => Ok(vec![crate::gamelist::games_json(&self.engine_specs)]),
            Command::Show => {
                let color = match self.engine_values.get_str("Color") {
                    Some("always") => true,
                    Some("never") => false,
                    _ => self.config.is_tty,
                };
                let g = self.game_ref()?;
                Ok(g.render(color).lines().map(str::to_string).collect())
            }
            Command::Save(name) => {
                let g = self.game_ref()?;
                let fam = g.family();
                let values = &self.family_values[fam.name];
                let options = fam
                    .options()
                    .iter()
                    .filter_map(|s| values.get(s.name).map(|v| (s.name.to_string(), v.to_string())))
                    .collect();
                // The save keeps hidden state too (a secret mid-game).
                let mut game = g.game_string();
                if let Some(extra) = g.private_extra()
                    && !game.ends_with(&format!(";{extra}"))
                {
                    game.push(';');
                    game.push_str(&extra);
                }
                let file = SaveFile { format: saves::FORMAT.into(), version: saves::VERSION, game, options };
                self.saves.save(&name, &file).map_err(Failure::Err)?;
                Ok(vec![format!("saved {name}")])
            }
            Command::Load(name) => {
                let file = self.saves.load(&name).map_err(Failure::Err)?;
                let g = self.build_game(&file.game).map_err(|f| match f {
                    Failure::Err(m) | Failure::InvalidMove(m) => Failure::Err(format!("save '{name}': {m}")),
                })?;
                let fam = g.family();
                let mut values = self.family_values[fam.name].clone();
                for spec in fam.options() {
                    if let Some(text) = file.options.get(spec.name) {
                        match spec.parse_value(text) {
                            Ok(v) => values.set(spec.name, v),
                            Err(e) => warn!("save '{name}': option ignored: {e}"),
                        }
                    }
                }
                self.family_values.insert(fam.name, values);
                self.player = None;
                Ok(vec![self.install_game(g)])
            }
            Command::Saves => Ok(self
                .saves
                .list()
                .into_iter()
                .map(|n| match self.saves.load(&n) {
                    Ok(f) => format!("{n} {}", f.game),
                    Err(e) => format!("{n} unreadable: {}", one_line(&e)),
                })
                .collect()),
            Command::Go(_)
            | Command::BestMove(_)
            | Command::Analyze(_)
            | Command::Stop
            | Command::IsReady
            | Command::Quit => unreachable!("handled by handle_line"),
        }
    }

    fn info_lines(&self) -> Vec<String> {
        let fams = registry::families();
        let names: Vec<&str> = fams.iter().map(|f| f.name).collect();
        let mut caps: Vec<&str> = Vec::new();
        for f in &fams {
            caps.extend(f.capabilities.iter());
        }
        vec![format!("id meeple v{}", crate::VERSION), format!("games {}", names.join(";")), caps.join(";")]
    }

    fn game_ref(&self) -> Result<&dyn AnyGame, Failure> {
        self.game.as_deref().ok_or(Failure::Err("no game in progress".into()))
    }

    fn game_mut(&mut self) -> Result<&mut Box<dyn AnyGame>, Failure> {
        self.game.as_mut().ok_or(Failure::Err("no game in progress".into()))
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
        let g = self.game_mut()?;
        g.play_text(text)?;
        Ok(vec![g.game_string()])
    }

    /// Makes a game from a GameType or a GameString (replayed, validated).
    fn build_game(&mut self, spec: &str) -> Result<Box<dyn AnyGame>, Failure> {
        let (engine, families) = (&self.engine_values, &self.family_values);
        let options = |fam: Family| merged(engine, families.get(fam.name));
        gamestring::load(spec, options, &mut self.rng).map_err(Failure::from)
    }

    /// Makes `g` the current game; returns its GameString.
    fn install_game(&mut self, g: Box<dyn AnyGame>) -> String {
        let fam = g.family();
        if fam.name != self.family.name {
            self.player = None;
        }
        if let Some((_, p)) = &mut self.player {
            p.reset();
        }
        self.family = fam;
        let s = g.game_string();
        self.game = Some(g);
        self.prepare_player();
        s
    }

    /// The player of the current game and strategy, made if needed.
    fn take_player(&mut self) -> Result<Box<dyn AnyPlayer>, String> {
        let g = self.game.as_ref().ok_or("no game in progress")?;
        let options = self.options_for(g.family());
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
        let options = self.options_for(g.family());
        p.prepare(g.as_ref(), &options);
        self.player = Some((g.family().name, p));
    }

    // ----- options --------------------------------------------------------

    /// Engine values merged with a family's.
    fn options_for(&self, fam: Family) -> OptionValues {
        merged(&self.engine_values, self.family_values.get(fam.name))
    }

    /// Finds an option: engine-wide, the current family's, or qualified
    /// `Family.Name`.
    fn find_option(&self, name: &str) -> Option<(Option<&'static str>, OptionSpec)> {
        let name = name.trim();
        if let Some(s) = self.engine_specs.iter().find(|s| s.name.eq_ignore_ascii_case(name)) {
            return Some((None, s.clone()));
        }
        let find = |fam: Family, short: &str| {
            fam.options()
                .into_iter()
                .find(|s| s.name.eq_ignore_ascii_case(short))
                .map(|s| (Some(fam.name), s))
        };
        if let Some((f, n)) = name.split_once('.') {
            return find(registry::family_by_name(f)?, n);
        }
        // The current family first; else the one other family that has it.
        find(self.family, name).or_else(|| {
            let mut found = registry::families().into_iter().filter_map(|f| find(f, name));
            let first = found.next()?;
            found.next().is_none().then_some(first)
        })
    }

    fn value_of(&self, scope: Option<&'static str>, spec: &OptionSpec) -> OptionValue {
        let v = match scope {
            None => self.engine_values.get(spec.name),
            Some(f) => self.family_values.get(f).and_then(|v| v.get(spec.name)),
        };
        v.cloned().unwrap_or_else(|| spec.default_value())
    }

    /// Sets an option; returns its UHP line.
    fn set_option(&mut self, name: &str, text: &str) -> Result<String, Failure> {
        let (scope, spec) = self.find_option(name).ok_or_else(|| unknown_option(name))?;
        let value = spec.parse_value(text).map_err(Failure::Err)?;
        match scope {
            None => {
                if spec.name == "Seed"
                    && let OptionValue::Int(seed) = value
                {
                    self.rng =
                        if seed == 0 { StdRng::from_os_rng() } else { StdRng::seed_from_u64(seed as u64) };
                }
                self.engine_values.set(spec.name, value.clone());
            }
            Some(f) => self.family_values.entry(f).or_default().set(spec.name, value.clone()),
        }
        // Players read their options at every move; a new strategy (or
        // table size) is made ready now, outside any search.
        if spec.name == "Strategy" || spec.name == "Hash" {
            self.prepare_player();
        }
        Ok(spec.uhp_line(&value))
    }

    fn option_lines(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.engine_specs.iter().map(|s| s.uhp_line(&self.value_of(None, s))).collect();
        for s in self.family.options() {
            out.push(s.uhp_line(&self.value_of(Some(self.family.name), &s)));
        }
        out
    }

    // ----- searches -------------------------------------------------------

    fn start_go(&mut self, p: GoParams) {
        let side = match self.live_game() {
            Ok(g) => g.side_to_move(),
            Err(f) => return self.write_reply(Err(f)),
        };
        let (time, inc) = if side == 0 { (p.wtime, p.winc) } else { (p.btime, p.binc) };
        let clock = time.map(|t| {
            let inc = inc.unwrap_or(0);
            let spend = t / 20 + inc * 3 / 4;
            spend.min(t.saturating_sub(50)).max(1)
        });
        let movetime = match (p.movetime, clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let limits = Limits {
            depth: p.depth,
            nodes: p.nodes,
            movetime: movetime.map(|t| self.time_budget(Duration::from_millis(t))),
            infinite: p.infinite,
        };
        self.spawn_search(Job::Go, limits, String::new());
    }

    /// The time a player may use of a limit: the limit less `Move
    /// Overhead`, at least 1 ms.
    fn time_budget(&self, limit: Duration) -> Duration {
        let overhead = self.engine_values.get_int("Move Overhead").unwrap_or(0).max(0) as u64;
        limit.saturating_sub(Duration::from_millis(overhead)).max(Duration::from_millis(1))
    }

    fn start_bestmove(&mut self, l: BestMoveLimit) {
        if let Err(f) = self.live_game() {
            return self.write_reply(Err(f));
        }
        let limits = match l {
            BestMoveLimit::None => Limits::default(),
            BestMoveLimit::Depth(d) => Limits { depth: Some(d), ..Default::default() },
            BestMoveLimit::Time(t) => Limits { movetime: Some(self.time_budget(t)), ..Default::default() },
        };
        self.spawn_search(Job::BestMove, limits, String::new());
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
                ("movetime", Some(n)) => limits.movetime = Some(Duration::from_millis(n)),
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
        self.spawn_search(Job::Analyze, limits, rest.join(" "));
    }

    fn spawn_search(&mut self, job: Job, limits: Limits, args: String) {
        let game = match &self.game {
            Some(g) => g.clone_box(),
            None => return self.write_reply(err("no game in progress")),
        };
        let options = self.options_for(game.family());
        let player = match self.take_player() {
            Ok(p) => p,
            Err(e) => return self.write_reply(err(e)),
        };
        let seed: u64 = self.rng.random();
        let stop = StopFlag::new();
        let done = Arc::new(AtomicBool::new(false));
        let out = self.out.clone();
        let infinite = limits.infinite;
        let (stop2, done2) = (stop.clone(), done.clone());
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || run_search(job, game, player, options, limits, args, seed, stop2, done2, out))
            .expect("spawn search thread");
        self.search = Some(RunningSearch { stop, done, infinite, handle });
    }
}

/// Engine-wide values with a family's on top.
fn merged(engine: &OptionValues, family: Option<&OptionValues>) -> OptionValues {
    let mut v = engine.clone();
    if let Some(f) = family {
        v.merge(f);
    }
    v
}

/// The body of a search thread.
#[allow(clippy::too_many_arguments)]
fn run_search<W: Write + Send + 'static>(
    job: Job,
    game: Box<dyn AnyGame>,
    mut player: Box<dyn AnyPlayer>,
    options: OptionValues,
    limits: Limits,
    args: String,
    seed: u64,
    stop: StopFlag,
    done: Arc<AtomicBool>,
    out: Arc<Mutex<W>>,
) -> Option<Box<dyn AnyPlayer>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let out2 = out.clone();
    let mut reporter = move |r: Report| {
        if job == Job::Go || job == Job::Analyze {
            let mut o = out2.lock().unwrap_or_else(|p| p.into_inner());
            let _ = writeln!(o, "{r}").and_then(|_| o.flush());
        }
    };
    let mut ctx = SearchCtx::new(limits, &options, &mut rng, stop, &mut reporter);
    let result = catch_unwind(AssertUnwindSafe(|| match job {
        Job::Analyze => game.analyze(&args, &mut ctx),
        _ => player.choose(game.as_ref(), &mut ctx).ok_or_else(|| "no move".to_string()).map(|m| vec![m]),
    }));
    let mut text = String::new();
    let mut keep_player = true;
    match (job, result) {
        (Job::Analyze, Ok(Ok(lines))) => lines.iter().for_each(|l| text.push_str(&format!("{l}\n"))),
        (Job::Analyze, Ok(Err(e))) => text.push_str(&format!("err {}\n", one_line(&e))),
        (Job::Analyze, Err(_)) => text.push_str("err internal error during analyze\n"),
        (_, r) => {
            let mv = match r {
                Ok(Ok(lines)) => lines[0].clone(),
                other => {
                    // A strategy failed: still answer with a legal move.
                    error!("strategy {} failed: {:?}", player.strategy(), other.map(|_| ()));
                    keep_player = false;
                    game.valid_moves().into_iter().next().unwrap_or_else(|| "pass".into())
                }
            };
            if job == Job::Go {
                text.push_str(&format!("bestmove {mv}\n"));
            } else {
                text.push_str(&format!("{mv}\n"));
            }
        }
    }
    text.push_str("ok\n");
    let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
    done.store(true, Ordering::Release);
    let _ = o.write_all(text.as_bytes()).and_then(|_| o.flush());
    drop(o);
    keep_player.then_some(player)
}

fn unknown_option(name: &str) -> Failure {
    Failure::Err(format!("unknown option '{}'", clip(name)))
}

/// Messages are one line.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn help_lines() -> Vec<String> {
    [
        "info                      engine id, games, capabilities",
        "newgame [GameType|GameString]",
        "position <startpos|GameType|GameString> [moves m1;m2...]",
        "play <move> | pass | undo [N]",
        "validmoves                legal moves joined by ;",
        "bestmove [depth N | time hh:mm:ss]",
        "go [depth N] [movetime MS] [nodes N] [wtime MS btime MS winc MS binc MS] [infinite]",
        "stop | isready",
        "analyze [limits] [args]   game-specific analysis",
        "setoption name <Name> value <Value> | options [get <Name> | set <Name> <Value>]",
        "movetree [json]           the legal moves as a tree of decisions",
        "board json                the position drawn generically (for a GUI)",
        "games json                the games, their options and strategies",
        "show                      the board",
        "save <name> | load <name> | saves",
        "quit | exit",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives a session in-process and returns everything it wrote.
    fn run(lines: &[&str]) -> String {
        let mut s = Session::new(Vec::<u8>::new(), SessionConfig::default());
        for l in lines {
            s.handle_line(l);
            s.wait_search();
        }
        let out = s.output();
        let bytes = out.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn every_reply_ends_with_ok() {
        let cmds = [
            "newgame",
            "play 4",
            "play 44",
            "undo 9",
            "validmoves",
            "bogus",
            "options",
            "movetree json",
            "go depth 2",
            "bestmove depth 1",
            "stop",
            "isready",
        ];
        let text = run(&cmds);
        assert_eq!(text.lines().filter(|l| *l == "ok").count(), cmds.len());
        assert!(text.ends_with("ok\n"));
    }

    #[test]
    fn errors_change_nothing() {
        let text = run(&["newgame", "play 4", "play 9", "undo 5", "validmoves"]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            vec![
                "Connect4;NotStarted;Red[1]",
                "ok",
                "Connect4;InProgress;Yellow[1];4",
                "ok",
                "invalidmove cannot parse move: '9' is not a column 1..7",
                "ok",
                "err cannot undo 5 plies: only 1 played",
                "ok",
                "1;2;3;4;5;6;7",
                "ok",
            ]
        );
    }

    #[test]
    fn comments_and_blank_lines_are_silent() {
        assert_eq!(run(&["", "   ", "# newgame", "\t"]), "");
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use rand::seq::IndexedRandom;

    /// Thousands of random lines built from real command words, arguments
    /// of every game and junk: the session never panics, and every line
    /// gets exactly one reply ending in `ok`.
    #[test]
    fn random_command_soup() {
        let words = [
            "newgame",
            "play",
            "pass",
            "undo",
            "validmoves",
            "bestmove depth 1",
            "go depth 1",
            "go nodes 200",
            "go movetime 5",
            "analyze movetime 5",
            "options",
            "options get",
            "options set",
            "setoption name",
            "value",
            "movetree",
            "movetree json",
            "show",
            "info",
            "help",
            "position",
            "startpos",
            "moves",
            "isready",
            "stop",
            "Connect4",
            "Connect4+5x4",
            "Mastermind",
            "Mastermind+3x4",
            "Base",
            "Base+MLP",
            "Connect4;InProgress;Red[1]",
            "Base;InProgress;White[2];wS1",
            "4",
            "9",
            "0",
            "1122",
            "2B1W",
            "wS1",
            "bG1 -wS1",
            "wQ wS1/",
            "Strategy",
            "random",
            "Depth",
            "3",
            "Hash",
            "16",
            "-1",
            ";",
            "[",
            "\u{0}",
            "é",
            "saves",
            "load",
            "x/y",
            "..",
        ];
        let mut rng = StdRng::seed_from_u64(99);
        let dir = std::env::temp_dir().join(format!("meeple-fuzz-{}", std::process::id()));
        let config = SessionConfig { data_dir: dir.clone(), ..SessionConfig::default() };
        let mut s = Session::new(Vec::<u8>::new(), config);
        // Keep every search short: the fuzzer never sends an unlimited one.
        s.handle_line("setoption name Connect4.Strategy value attack");
        s.handle_line("setoption name Hash value 16");
        let mut sent = 2;
        for _ in 0..3000 {
            let n = rng.random_range(1..5);
            let line: Vec<&str> = (0..n).map(|_| *words.choose(&mut rng).unwrap()).collect();
            let line = line.join(" ");
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let first = line.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
            if first == "quit" || first == "exit" {
                continue;
            }
            s.handle_line(&line);
            s.wait_search();
            sent += 1;
        }
        let out = String::from_utf8(s.output().lock().unwrap().clone()).unwrap();
        assert_eq!(out.lines().filter(|l| *l == "ok").count(), sent);
        assert!(out.ends_with("ok\n"));
        let _ = std::fs::remove_dir_all(dir);
    }
}
