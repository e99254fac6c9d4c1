//! `meeple play`: a game in the terminal against the engine, between two
//! people at one terminal (`--hotseat`), or the engine against itself
//! (`--watch`); Mastermind also as a match of rounds with the roles
//! alternating (`--rounds N`).
//!
//! It is built on the protocol's own session, in this process
//! (`client.rs`): a move typed is the session's `play`, checked by the
//! same rules with the same messages; the engine thinks through the
//! session's `go` on its search thread with the same options and
//! strategies as for any client; `undo`, `save`, `load` are the session's
//! (the saves are the engine's). The board is drawn from `board json`
//! (`board.rs`), so this room knows no game by name, except the one place
//! that holds Mastermind's codemaker and match scoring (`record.rs`).
//! Every finished game with a person in it, and every match, goes to the
//! results database that `meeple leaderboard` reads. A finished game is
//! offered a review (`review.rs`, also `meeple review`).

mod board;
mod client;
mod record;
pub mod review;
mod table;
mod term;

use std::path::Path;
use std::time::Duration;

use client::Client;
use record::MatchScore;
use table::{EngineSeat, Finish, Seat, Table};
use term::{ColorChoice, Input, Term};

use crate::results::{self, Player};

/// The arguments of `meeple play`.
#[derive(clap::Args, Debug, Clone)]
pub struct PlayArgs {
    /// The game: a game type (Connect4, Connect4+8x7, Mastermind,
    /// Mastermind+5x8+colours, Base, Base+MLP, ...) or a GameString to go
    /// on from.
    #[arg(value_name = "GAME_TYPE", default_value = "Connect4")]
    pub game: String,
    /// The engine's strategy (the game's `Strategy` option; default the
    /// game's own: Connect4 perfect, Hive alphabeta, Mastermind entropy).
    #[arg(long, value_name = "STRATEGY")]
    pub vs: Option<String>,
    /// The engine's strength, 0 (random moves) to 20 (full), where the game
    /// has levels (its `Skill` option: Connect Four, Hive).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=20))]
    pub level: Option<u8>,
    /// The engine's time per move, in seconds [default: 1].
    #[arg(long, value_name = "SECONDS", conflicts_with = "depth")]
    pub time: Option<f64>,
    /// The engine searches this many plies ahead instead of for a time.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: Option<u32>,
    /// You move first (the default; in Mastermind you break the code).
    #[arg(long, conflicts_with = "second")]
    pub first: bool,
    /// You move second (in Mastermind you keep the code and score each
    /// guess).
    #[arg(long)]
    pub second: bool,
    /// Two people at this terminal, taking turns (`--vs` is then the
    /// engine of `hint`).
    #[arg(long, conflicts_with_all = ["watch", "first", "second"])]
    pub hotseat: bool,
    /// Watch the engine play itself; Ctrl-C pauses.
    #[arg(long, conflicts_with_all = ["first", "second"])]
    pub watch: bool,
    /// Seconds between the moves watched.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0, requires = "watch")]
    pub pause: f64,
    /// A Mastermind match of N rounds (an even number), the roles
    /// alternating; the codemaker scores the rows used, plus one if the
    /// code is not broken.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=50))]
    pub rounds: Option<u32>,
    /// Your name in the results (asked at the start if not given; the
    /// default is $USER). With --hotseat give it twice, first mover first.
    #[arg(long, value_name = "NAME")]
    pub name: Vec<String>,
    /// Keep no result (nothing is written to the results database).
    #[arg(long)]
    pub no_record: bool,
    /// Resume a saved game (see `saves` in the game, or the data folder's
    /// saves/).
    #[arg(long, value_name = "NAME", conflicts_with = "rounds")]
    pub load: Option<String>,
    /// Set an engine option first, as `setoption` does (repeatable):
    /// --set Threads=2 --set Hash=64 --set Seed=7.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Colours: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Longest time per move accepted, in seconds.
const MAX_TIME: f64 = 3600.0;

/// `meeple play`.
pub fn run(args: PlayArgs, data_dir: &Path) -> Result<(), String> {
    check(&args)?;
    let mut term = Term::new(term::want_color(args.color));
    let mut client = Client::new(data_dir, "Connect4", term.color);
    // The game to start: the type given, or the saved game's.
    let spec = match &args.load {
        Some(name) => saved_game(&mut client, name)?,
        None => args.game.clone(),
    };
    let first = client.line(&format!("newgame {spec}")).map_err(|e| format!("cannot start '{spec}': {e}"))?;
    let game_type = first.split(';').next().unwrap_or(&spec).to_string();
    let start_board = board_of(&mut client)?;
    let family = start_board.family.clone();
    // The engine's options, applied again after every `load`.
    // (what the person wrote, the command)
    let mut asked: Vec<(String, String)> = Vec::new();
    for s in &args.set {
        let (name, value) = s.split_once('=').ok_or_else(|| format!("--set {s}: write NAME=VALUE"))?;
        asked.push((format!("--set {s}"), format!("setoption name {} value {}", name.trim(), value.trim())));
    }
    if let Some(s) = &args.vs {
        asked.push((format!("--vs {s}"), format!("setoption name Strategy value {s}")));
    }
    if let Some(l) = args.level {
        if client.option("Skill").is_none() {
            return Err(format!(
                "--level: {family} has no levels (no Skill option); pick a weaker or stronger strategy with --vs"
            ));
        }
        asked.push((format!("--level {l}"), format!("setoption name Skill value {l}")));
    }
    for (what, o) in &asked {
        client.command(o).map_err(|e| format!("{what}: {e}"))?;
    }
    let options: Vec<String> = asked.into_iter().map(|(_, o)| o).collect();
    let strategy = client.option("Strategy").unwrap_or_default();
    let limits = match (args.depth, args.time) {
        (Some(d), _) => format!("depth {d}"),
        (None, t) => format!("movetime {}", (t.unwrap_or(1.0) * 1000.0).round().max(1.0) as u64),
    };
    let engine = EngineSeat { strategy, limits, skill: args.level };
    if args.rounds.is_some() && !record::plays_matches(&family) {
        return Err(format!(
            "--rounds: matches of rounds are Mastermind's; {family} is played one game at a time"
        ));
    }
    let names = names(&args, &mut term, &start_board.sides)?;
    // A codemaker's option the person set keeps for the rounds the engine
    // keeps the code.
    let keep = args.set.iter().find_map(|s| {
        let (n, v) = s.split_once('=')?;
        let n = n.trim().to_ascii_lowercase();
        (n == "codemaker" || n.ends_with(".codemaker")).then(|| v.trim().to_string())
    });
    let person_side = usize::from(args.second);
    let seats = |person_side: usize| -> [Seat; 2] {
        if args.watch {
            [Seat::Engine, Seat::Engine]
        } else if args.hotseat {
            [Seat::Person(names[0].clone()), Seat::Person(names[1].clone())]
        } else {
            let mut s = [Seat::Engine, Seat::Engine];
            s[person_side] = Seat::Person(names[0].clone());
            s
        }
    };
    intro(&mut client, &mut term, &args, &engine, &game_type);
    let record = !args.no_record;
    match args.rounds {
        Some(n) => play_match(
            &mut client,
            &mut term,
            &engine,
            &options,
            n,
            &family,
            &spec,
            person_side,
            seats,
            keep,
            record,
            data_dir,
        ),
        None => {
            let seats = seats(person_side);
            if let Some(side) = record::secret_side(&family) {
                let person_keeps = seats[side] != Seat::Engine;
                let _ = client.command(&record::codemaker_option(person_keeps, keep.as_deref()));
            }
            let start = match &args.load {
                Some(name) => {
                    let gs = client
                        .line(&format!("load {name}"))
                        .map_err(|e| format!("cannot load {name}: {e}"))?;
                    for o in &options {
                        let _ = client.command(o);
                    }
                    gs
                }
                None => client.line(&format!("newgame {spec}")).map_err(|e| e.to_string())?,
            };
            let _ = client.command("isready");
            let mut t = Table::new(&mut client, &mut term, engine.clone(), seats.clone());
            t.reapply = options.clone();
            t.game_string = start;
            t.pause = args.watch.then(|| Duration::from_secs_f64(args.pause));
            let finish = t.play()?;
            let (b, gs, here) = (t.board.clone(), t.game_string.clone(), t.moves_here);
            let Finish::Over { ending, resigned } = finish else { return Ok(()) };
            term.say(&result_words(&b, ending, resigned, &seats, &engine));
            // A game that ended before it came to this table (a finished
            // save) is not recorded again; one resigned here is.
            let mut stored = None;
            if record && (here > 0 || resigned.is_some()) {
                let players = players(&seats, &engine);
                let how =
                    if resigned.is_some() { results::Ending::Resignation } else { results::Ending::Normal };
                let g = record::game_record(&b, &gs, players, ending, how);
                let (said, id) = record::store_with_id(data_dir, Some(&g), None);
                if !said.is_empty() {
                    term.say(&said);
                }
                stored = id;
            }
            // A reviewed game keeps each side's accuracy on the leaderboard.
            if let (Some(acc), Some(id)) = (review::offer(&mut client, &mut term), stored) {
                match results::Results::open(data_dir).and_then(|mut r| r.set_accuracy(id, acc)) {
                    Ok(()) => term.say("Each side's accuracy is on the leaderboard (meeple leaderboard)."),
                    Err(e) => term.say(&format!("The accuracy could not be stored: {e}")),
                }
            }
            Ok(())
        }
    }
}

/// Arguments clap cannot check alone.
fn check(args: &PlayArgs) -> Result<(), String> {
    if let Some(t) = args.time
        && !(t > 0.0 && t <= MAX_TIME)
    {
        return Err(format!("--time {t}: give seconds above 0 and at most {MAX_TIME}"));
    }
    if !(args.pause >= 0.0 && args.pause <= 60.0) {
        return Err(format!("--pause {}: give 0 to 60 seconds", args.pause));
    }
    if let Some(n) = args.rounds
        && n % 2 == 1
    {
        return Err(format!(
            "--rounds {n}: a match has an even number of rounds, so each side keeps the code as often"
        ));
    }
    let most = if args.hotseat { 2 } else { 1 };
    if args.name.len() > most {
        return Err(format!("--name is given {} times; {most} expected", args.name.len()));
    }
    Ok(())
}

/// The game type of a saved game (it starts the table): the session
/// loads it, so a save too large to list is found too.
fn saved_game(client: &mut Client, name: &str) -> Result<String, String> {
    match client.line(&format!("load {name}")) {
        Ok(gs) => Ok(gs.split(';').next().unwrap_or(&gs).to_string()),
        Err(e) => {
            let names: Vec<String> = client.saves().into_iter().map(|(n, _)| n).collect();
            Err(format!(
                "cannot load '{name}': {e} (saved: {})",
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ))
        }
    }
}

fn board_of(client: &mut Client) -> Result<board::Board, String> {
    let json = client.line("board json").map_err(|e| e.to_string())?;
    board::Board::parse(&json)
}

/// The people's names: `--name`, else asked once at a terminal (the
/// default is $USER), else $USER.
fn names(args: &PlayArgs, term: &mut Term, sides: &[String; 2]) -> Result<Vec<String>, String> {
    if args.watch {
        return Ok(Vec::new());
    }
    let user = ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find_map(|u| results::check_person_name(&u).ok())
        .unwrap_or_else(|| "player".to_string());
    let wanted = if args.hotseat { 2 } else { 1 };
    let mut names: Vec<String> = Vec::new();
    for (i, given) in args.name.iter().enumerate() {
        let n = results::check_person_name(given).map_err(|e| format!("--name: {e}"))?;
        if i == 1 && n.to_lowercase() == names[0].to_lowercase() {
            return Err("--name: the two players need different names".to_string());
        }
        names.push(n);
    }
    while names.len() < wanted {
        let i = names.len();
        let default = match i {
            0 => user.clone(),
            _ if names[0].to_lowercase() != user.to_lowercase() => user.clone(),
            _ => "guest".to_string(),
        };
        if !term.interactive() || args.no_record && args.name.is_empty() {
            names.push(default);
            continue;
        }
        let question = match (args.hotseat, i) {
            (false, _) => format!("Your name for the results [{default}]: "),
            (true, _) => format!("Name of the player of {} [{default}]: ", sides[i]),
        };
        let typed = match term.read(&question) {
            Input::Line(l) => l,
            Input::Interrupt | Input::Eof => return Err("no name given: nothing played".to_string()),
        };
        let typed = if typed.trim().is_empty() { default } else { typed };
        match results::check_person_name(&typed) {
            Ok(n) if i == 1 && n.to_lowercase() == names[0].to_lowercase() => {
                term.say("The two players need different names.")
            }
            Ok(n) => names.push(n),
            Err(e) => term.say(&format!("{e}; try again.")),
        }
    }
    Ok(names)
}

/// The lines before the first move: the game, the engine, the saves.
fn intro(client: &mut Client, term: &mut Term, args: &PlayArgs, engine: &EngineSeat, game_type: &str) {
    let mode = if args.watch {
        "the engine plays itself (Ctrl-C pauses)"
    } else if args.hotseat {
        "two people at this terminal"
    } else {
        "you against the engine"
    };
    term.say(&format!(
        "meeple play {game_type}: {mode}; engine {} ({}). Type help for the commands.",
        engine.strategy,
        engine.level()
    ));
    let saves: Vec<String> = client.saves().into_iter().map(|(n, _)| n).collect();
    if !saves.is_empty() && args.load.is_none() {
        term.say(&format!("Saved games (load NAME): {}", saves.join(", ")));
    }
}

/// The seats as the results name them.
fn players(seats: &[Seat; 2], engine: &EngineSeat) -> [Player; 2] {
    let p = |s: &Seat| match s {
        Seat::Person(n) => Player::person(n),
        Seat::Engine => Player::engine(&engine.strategy, &engine.level()),
    };
    [p(&seats[0]), p(&seats[1])]
}

/// The result in words.
fn result_words(
    b: &board::Board,
    ending: board::Ending,
    resigned: Option<usize>,
    seats: &[Seat; 2],
    engine: &EngineSeat,
) -> String {
    let who = |s: usize| match &seats[s] {
        Seat::Person(n) => n.clone(),
        Seat::Engine => format!("meeple ({})", engine.strategy),
    };
    let how = match resigned {
        Some(s) => format!("{} resigned", b.sides[s]),
        None if b.caption.is_empty() => b.state.clone(),
        None => b.caption.clone(),
    };
    let moves = match b.ply {
        1 => "1 move".to_string(),
        n => format!("{n} moves"),
    };
    if seats.iter().all(|s| *s == Seat::Engine) {
        return format!("Game over: {how} after {moves}.");
    }
    match ending {
        board::Ending::Win(w) => {
            format!("Game over: {how}. {} ({}) beat {} after {moves}.", who(w), b.sides[w], who(1 - w))
        }
        board::Ending::Draw => format!("Game over: {how}. {} and {} drew after {moves}.", who(0), who(1)),
    }
}

/// A Mastermind match: `n` rounds, the person breaking the code in the
/// first round unless `--second`, the roles alternating; the score after
/// every round.
#[allow(clippy::too_many_arguments)]
fn play_match(
    client: &mut Client,
    term: &mut Term,
    engine: &EngineSeat,
    options: &[String],
    n: u32,
    family: &str,
    spec: &str,
    person_side: usize,
    seats: impl Fn(usize) -> [Seat; 2],
    keep: Option<String>,
    record: bool,
    data_dir: &Path,
) -> Result<(), String> {
    let first_seats = seats(person_side);
    // Match player 0 holds side `person_side` in round 1.
    let players_by_side = players(&first_seats, engine);
    let mut score = MatchScore {
        family: family.to_string(),
        game_type: String::new(),
        players: [players_by_side[person_side].clone(), players_by_side[1 - person_side].clone()],
        planned: n,
        rounds: Vec::new(),
    };
    let name = |p: &Player| match p {
        Player::Person { name } => name.clone(),
        Player::Engine { strategy, .. } => format!("meeple ({strategy})"),
    };
    let names = [name(&score.players[0]), name(&score.players[1])];
    let mut resigned_by = None;
    for round in 1..=n {
        // Player 0's side this round.
        let side0 = if round % 2 == 1 { person_side } else { 1 - person_side };
        let seats = seats(side0);
        let person_keeps = seats[record::secret_side(&score.family).unwrap_or(1)] != Seat::Engine;
        let _ = client.command(&record::codemaker_option(person_keeps, keep.as_deref()));
        let start = client.line(&format!("newgame {spec}")).map_err(|e| e.to_string())?;
        let roles = if side0 == 0 {
            format!("{} breaks the code, {} keeps it", names[0], names[1])
        } else {
            format!("{} breaks the code, {} keeps it", names[1], names[0])
        };
        let think =
            if person_keeps { " (think of a code and score each guess: 2B1W, or 0 for none)" } else { "" };
        term.say(&format!("\nRound {round} of {n}: {roles}{think}."));
        let mut t = Table::new(client, term, engine.clone(), seats);
        t.reapply = options.to_vec();
        t.same_type = true;
        t.game_string = start;
        let finish = t.play()?;
        let (b, gs) = (t.board.clone(), t.game_string.clone());
        let Finish::Over { ending, resigned } = finish else {
            term.say("The match is left unfinished (not recorded).");
            return Ok(());
        };
        score.game_type = b.game_type.clone();
        // A resigned round is scored by the game's rule for a forfeit.
        score.add(&b, &gs, [side0, 1 - side0], ending, resigned);
        let pts = score.points();
        let this = score.rounds.last().map(|r| r.points).unwrap_or_default();
        let how = match resigned {
            Some(s) => format!("{} resigned", b.sides[s]),
            None if b.caption.is_empty() => b.state.clone(),
            None => b.caption.clone(),
        };
        term.say(&format!(
            "Round {round}: {how}. Points this round: {} {}, {} {}. Score: {} {}, {} {}.",
            names[0], this[0], names[1], this[1], names[0], pts[0], names[1], pts[1]
        ));
        if let Some(side) = resigned {
            resigned_by = Some(if side == side0 { 0 } else { 1 });
            break;
        }
    }
    let rec = score.record(resigned_by);
    let [p0, p1] = score.points();
    let verdict = match (rec.result, resigned_by) {
        (_, Some(r)) => format!("{} resigned the match: {} wins it", names[r], names[1 - r]),
        (results::Outcome::First, _) => format!("{} wins the match", names[0]),
        (results::Outcome::Second, _) => format!("{} wins the match", names[1]),
        (results::Outcome::Draw, _) => "The match is drawn".to_string(),
    };
    term.say(&format!("\nMatch over: {verdict}. Points: {} {p0}, {} {p1}.", names[0], names[1]));
    if record {
        let said = record::store(data_dir, None, Some(&rec));
        if !said.is_empty() {
            term.say(&said);
        }
    }
    Ok(())
}
