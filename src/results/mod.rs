//! The results database: every finished game with a person in it, and
//! every match, kept in SQLite at `<data-dir>/results.sqlite`, and the
//! leaderboard computed from them (people by wins, each engine level's
//! record against people, each person's mean accuracy in reviewed games).
//!
//! It knows no game by name: a record names its family, type, sides and
//! final GameString as text. The browser GUI and `meeple play` record
//! through [`store`], which never loses a result: when the database cannot
//! be written it keeps the result in the data directory's pending folder
//! (`pending.rs`) and stores it at the next result or the next start of a
//! writer ([`flush_at_start`]). `meeple leaderboard` reads through
//! [`Results::open_existing`].
//!
//! The file is treated as hostile, as the saves folder is: the database and
//! its journal must be regular files (a symbolic link, FIFO, device or
//! folder there is refused, and SQLite itself is told never to follow a
//! link to the database); a file that is not SQLite, is damaged (`PRAGMA
//! quick_check` at open), belongs to another program, was written by a
//! newer meeple, or holds a trigger, view, table or index that meeple did
//! not make (`schema.rs`; the referee's tables, `scripts/referee.py`, whose
//! default `--db` is the same file, live beside ours) is an error message
//! naming what is wrong; every query's time is bounded ([`QUERY_LIMIT`],
//! through SQLite's progress handler), waits for another writer excepted;
//! every text read back is typed, clipped and made printable. The schema
//! (`schema_v1.sql`, `schema_v2.sql`) is created and migrated by the
//! program (`PRAGMA user_version`), in a rollback journal with a busy
//! timeout, so that the GUI server and a `meeple play` may write at once;
//! every write is one transaction.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::text::{clip, printable};

#[cfg(not(target_arch = "wasm32"))]
mod db;
pub mod local;
mod names;
#[cfg(not(target_arch = "wasm32"))]
mod pending;
#[cfg(not(target_arch = "wasm32"))]
mod schema;

#[cfg(not(target_arch = "wasm32"))]
pub use db::*;
pub use names::{BLANK, MAX_MARKS_IN_A_ROW, MAX_NAME_CHARS, check_person_name, fold, same_person};
#[cfg(not(target_arch = "wasm32"))]
pub use pending::{Contest, MAX_PENDING_BYTES, PENDING_DIR};

/// The database's file name in the data directory.
pub const FILE_NAME: &str = "results.sqlite";
/// `PRAGMA application_id` of a meeple results database ("MEEP").
pub const APPLICATION_ID: i64 = 0x4D45_4550;
/// The schema version this program writes (`PRAGMA user_version`).
#[cfg(not(target_arch = "wasm32"))]
pub const SCHEMA_VERSION: i64 = schema::MIGRATIONS.len() as i64;
/// How long a write waits for another writer (the GUI server, a `meeple
/// play`) before giving up, and the result is kept for later.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest any query (or the queries of one read or write) may
/// compute, in CPU time of the thread that runs it (waits for a lock, the
/// disk or a busy machine excepted): a planted recursive view or a damaged
/// file cannot hang a reader or a writer. Each of the two queries of the
/// leaderboard of 300 000 games computes for about 1.5 s.
pub const QUERY_LIMIT: Duration = Duration::from_secs(10);
/// The longest `PRAGMA quick_check` may compute at open, and a migration of
/// the schema (as [`QUERY_LIMIT`]). A file too large to be checked in that
/// time is used unchecked, with a warning in the log.
pub const CHECK_LIMIT: Duration = Duration::from_secs(20);
/// How long the flush at the start of a writer waits for the lock: a
/// locked database does not delay `meeple play` or `meeple gui` longer.
pub const START_BUSY_TIMEOUT: Duration = Duration::from_secs(2);
/// The leaderboard's length when none is asked (the seed showed ten).
pub const DEFAULT_TOP: usize = 10;
/// Longest family or game type, in characters.
pub const MAX_TYPE_CHARS: usize = 100;
/// Longest GameString kept, in bytes (a Hive game of 100 000 plies fits).
pub const MAX_GAME_STRING: usize = 4 << 20;

/// Who holds a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Player {
    /// A person, by the name they gave (see [`check_person_name`]).
    Person { name: String },
    /// An engine: its strategy and its level as a short text, for example
    /// `depth 6`, `movetime 500` or `skill 3` (empty for none). The same
    /// text must be used each time for the records to add up.
    Engine { strategy: String, level: String },
}

impl Player {
    pub fn person(name: &str) -> Player {
        Player::Person { name: name.to_string() }
    }

    pub fn engine(strategy: &str, level: &str) -> Player {
        Player::Engine { strategy: strategy.to_string(), level: level.to_string() }
    }

    pub fn is_person(&self) -> bool {
        matches!(self, Player::Person { .. })
    }
}

/// One seat of a game: the game's name of the side (`Yellow`, `White`,
/// `Breaker`, ...), who played it, and its accuracy (0 to 100) if the game
/// was reviewed before it was recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    pub side: String,
    pub player: Player,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
}

impl Seat {
    /// A seat with no accuracy known.
    pub fn new(side: &str, player: Player) -> Seat {
        Seat { side: side.to_string(), player, accuracy: None }
    }
}

/// Which seat won: the first (seat 1), the second (seat 2), or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    First,
    Second,
    Draw,
}

/// How a game or match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    /// By the rules (a win, a draw, the code broken or the rows used up).
    Normal,
    /// A side resigned.
    Resignation,
    /// A side lost on time.
    Time,
    /// A side left; the result is the one the table gave.
    Abandoned,
    /// Stopped and decided by someone (a referee, a move limit).
    Adjudicated,
}

/// Where a game was played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    /// The browser GUI (`meeple gui`).
    Gui,
    /// The terminal (`meeple play`).
    Play,
    Other,
}

/// A finished game, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// When it finished.
    pub when: SystemTime,
    /// The game family, e.g. `Connect4`.
    pub family: String,
    /// The game type, e.g. `Hive+MLP`.
    pub game_type: String,
    /// The final GameString.
    pub game_string: String,
    /// Seat 1 then seat 2; by convention side 0 of the game then side 1
    /// (the order of the game's side names).
    pub seats: [Seat; 2],
    pub result: Outcome,
    pub ending: Ending,
    pub place: Place,
}

/// One round of a match, seats in the match's player order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// The round's final GameString.
    pub game_string: String,
    /// Each match player's side in this round, e.g. `["Maker", "Breaker"]`
    /// then `["Breaker", "Maker"]`.
    pub sides: [String; 2],
    /// Who won the round (`First`: the match's first player).
    pub result: Outcome,
    pub ending: Ending,
    /// Each match player's points in this round.
    pub points: [u32; 2],
}

/// A finished match of rounds (a Mastermind match: roles alternate, the
/// codemaker scores the rows used, plus one if the code is not broken).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchRecord {
    pub when: SystemTime,
    pub family: String,
    /// The game type of its rounds.
    pub game_type: String,
    /// The two players; a round's `sides` and `points` follow this order.
    pub players: [Player; 2],
    /// The number of rounds planned.
    pub rounds_planned: u32,
    /// The rounds played, in order (fewer than planned only if the match
    /// did not end normally).
    pub rounds: Vec<Round>,
    /// Who won the match. With a normal ending it must be the player with
    /// more points (a draw if equal).
    pub result: Outcome,
    pub ending: Ending,
    pub place: Place,
}

impl MatchRecord {
    /// Each player's total points over the rounds.
    pub fn points(&self) -> [u64; 2] {
        let sum = |i: usize| self.rounds.iter().map(|r| u64::from(r.points[i])).sum();
        [sum(0), sum(1)]
    }
}

/// A person's record on the leaderboard (from their side) or an engine
/// level's record against people (from the engine's side).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Games and matches counted (a match counts once, its rounds not).
    pub games: u64,
}

/// A row of the people's leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PersonRow {
    pub name: String,
    #[serde(flatten)]
    pub record: Record,
    /// The mean accuracy (0 to 100) over the reviewed games counted (a
    /// match's reviewed rounds each count), `None` if none was reviewed.
    pub accuracy: Option<f64>,
    /// How many reviewed games that mean is over.
    pub reviewed: u64,
}

/// An engine level's record against people.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineRow {
    pub strategy: String,
    pub level: String,
    #[serde(flatten)]
    pub record: Record,
}

/// Whom the games counted were played against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Opponent {
    Person {
        name: String,
    },
    /// An engine strategy, at one level or (`None`) at any.
    Engine {
        strategy: String,
        level: Option<String>,
    },
}

impl Opponent {
    /// Reads `person:NAME`, `engine:STRATEGY`, `engine:STRATEGY:LEVEL` or a
    /// bare `NAME` (a person).
    pub fn parse(s: &str) -> Result<Opponent, String> {
        if let Some(rest) = s.strip_prefix("engine:") {
            let (strategy, level) = match rest.split_once(':') {
                Some((s, l)) => (s.trim(), Some(l.trim().to_string())),
                None => (rest.trim(), None),
            };
            if strategy.is_empty() {
                return Err(format!("no strategy in opponent '{}': write engine:STRATEGY[:LEVEL]", clip(s)));
            }
            return Ok(Opponent::Engine { strategy: strategy.to_string(), level });
        }
        let name = s.strip_prefix("person:").unwrap_or(s);
        Ok(Opponent::Person { name: check_person_name(name)? })
    }
}

/// What the games counted are: all, or those of a family, or against an
/// opponent, or both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// A game family (any case), e.g. `Connect4`.
    pub family: Option<String>,
    pub opponent: Option<Opponent>,
}

impl Filter {
    /// The games counted, in words: `all games`, `Hive games against Ann`,
    /// `games against engine perfect (depth 6)`.
    pub fn describe(&self) -> String {
        let mut s = match &self.family {
            Some(f) => format!("{} games", printable(f)),
            None => "all games".to_string(),
        };
        if let Some(o) = &self.opponent {
            if self.family.is_none() {
                s = "games".to_string();
            }
            match o {
                Opponent::Person { name } => s.push_str(&format!(" against {}", printable(name))),
                Opponent::Engine { strategy, level: None } => {
                    s.push_str(&format!(" against engine {} (any level)", printable(strategy)))
                }
                Opponent::Engine { strategy, level: Some(l) } if l.is_empty() => {
                    s.push_str(&format!(" against engine {} (no level)", printable(strategy)))
                }
                Opponent::Engine { strategy, level: Some(l) } => {
                    s.push_str(&format!(" against engine {} ({})", printable(strategy), printable(l)))
                }
            }
        }
        s
    }
}

/// The leaderboard: the top people by wins and every engine level's
/// record against people, over the same games.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Board {
    pub people: Vec<PersonRow>,
    pub engines: Vec<EngineRow>,
}

impl Board {
    /// The two tables as text, one line each row, headed by `what` (for
    /// example [`Filter::describe`]); an empty table says so.
    pub fn to_table(&self, what: &str, top: usize) -> String {
        let mut out = format!("People by wins ({what}, top {top}):\n");
        let people: Vec<Vec<String>> = self
            .people
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let acc = p.accuracy.map_or("-".to_string(), |a| format!("{a:.1}"));
                [vec![(i + 1).to_string(), p.name.clone()], numbers(&p.record), vec![acc]].concat()
            })
            .collect();
        out.push_str(&columns(&["#", "Name", "Won", "Lost", "Drawn", "Games", "Acc"], 2, &people));
        out.push_str(&format!("\nEngines against people ({what}; won, lost, drawn by the engine):\n"));
        let engines: Vec<Vec<String>> = self
            .engines
            .iter()
            .map(|e| [vec![e.strategy.clone(), e.level.clone()], numbers(&e.record)].concat())
            .collect();
        out.push_str(&columns(&["Strategy", "Level", "Won", "Lost", "Drawn", "Games"], 2, &engines));
        out
    }
}

fn numbers(r: &Record) -> Vec<String> {
    [r.wins, r.losses, r.draws, r.games].iter().map(u64::to_string).collect()
}

/// A table: the first `left` columns aligned left, the others right; no
/// row: `(none)` under the heading.
fn columns(heads: &[&str], left: usize, rows: &[Vec<String>]) -> String {
    let width = |i: usize| {
        rows.iter().map(|r| r[i].chars().count()).chain([heads[i].chars().count()]).max().unwrap_or(0)
    };
    let widths: Vec<usize> = (0..heads.len()).map(width).collect();
    let line = |cells: Vec<&str>| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = widths[i] - c.chars().count();
            l.push_str("  ");
            if i < left {
                l.push_str(c);
                l.push_str(&" ".repeat(pad));
            } else {
                l.push_str(&" ".repeat(pad));
                l.push_str(c);
            }
        }
        l.truncate(l.trim_end().len());
        l + "\n"
    };
    let mut out = line(heads.to_vec());
    if rows.is_empty() {
        out.push_str("  (none)\n");
    }
    for r in rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    out
}

/// Not a control character, a line or paragraph separator, nor an
/// invisible formatting character: for the texts the program gives (sides,
/// strategies, levels, game types, GameStrings), not for people's names.
fn is_printable(c: char) -> bool {
    !(c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}')
        || matches!(c, '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}'))
}

/// Checks a short text field (a side, strategy, level, family, type).
fn check_text(what: &str, s: &str, min: usize, max: usize) -> Result<(), String> {
    let n = s.chars().count();
    if n < min || n > max {
        return Err(format!("{what} '{}' must have {min} to {max} characters", clip(s)));
    }
    if s.chars().any(|c| !is_printable(c)) {
        return Err(format!("{what} '{}' holds a control character", clip(s)));
    }
    Ok(())
}

/// A player checked and normalized (a person's name as [`check_person_name`]
/// keeps it).
fn check_player(p: &Player) -> Result<Player, String> {
    match p {
        Player::Person { name } => Ok(Player::Person { name: check_person_name(name)? }),
        Player::Engine { strategy, level } => {
            let (strategy, level) = (strategy.trim(), level.trim());
            check_text("strategy", strategy, 1, MAX_NAME_CHARS)?;
            check_text("level", level, 0, MAX_NAME_CHARS)?;
            Ok(Player::engine(strategy, level))
        }
    }
}

/// The two players checked; the same person on both seats is refused.
fn check_players(a: &Player, b: &Player) -> Result<[Player; 2], String> {
    let (a, b) = (check_player(a)?, check_player(b)?);
    if let (Player::Person { name: x }, Player::Person { name: y }) = (&a, &b)
        && same_person(x, y)
    {
        return Err(format!("'{x}' and '{y}' are one person, who cannot hold both seats"));
    }
    Ok([a, b])
}

fn check_kind(family: &str, game_type: &str) -> Result<(), String> {
    check_text("game family", family, 1, MAX_TYPE_CHARS)?;
    check_text("game type", game_type, 1, MAX_TYPE_CHARS)
}

fn check_game_string(gs: &str) -> Result<(), String> {
    if gs.len() > MAX_GAME_STRING {
        return Err(format!("GameString too long ({} bytes, at most {MAX_GAME_STRING})", gs.len()));
    }
    if gs.chars().any(|c| !is_printable(c)) {
        return Err(format!("GameString '{}' holds a control character", clip(gs)));
    }
    Ok(())
}

/// An accuracy is a number from 0 to 100.
fn check_accuracy(a: f64) -> Result<(), String> {
    if a.is_finite() && (0.0..=100.0).contains(&a) {
        Ok(())
    } else {
        Err(format!("an accuracy is from 0 to 100, not {a}"))
    }
}

/// A game checked: its players as kept.
fn check_game(g: &GameRecord) -> Result<[Player; 2], String> {
    check_kind(&g.family, &g.game_type)?;
    check_game_string(&g.game_string)?;
    for s in &g.seats {
        check_text("side", &s.side, 1, MAX_NAME_CHARS)?;
        if let Some(a) = s.accuracy {
            check_accuracy(a)?;
        }
    }
    check_players(&g.seats[0].player, &g.seats[1].player)
}

/// A match checked: at least one round, no more than planned, all of them
/// if it ended normally, and then the winner is the player with more
/// points. Its players as kept.
fn check_match(m: &MatchRecord) -> Result<[Player; 2], String> {
    check_kind(&m.family, &m.game_type)?;
    let players = check_players(&m.players[0], &m.players[1])?;
    let (n, planned) = (m.rounds.len(), m.rounds_planned as usize);
    if n == 0 || planned == 0 || n > planned {
        return Err(format!("a match of {planned} rounds cannot have {n} rounds played"));
    }
    for r in &m.rounds {
        check_game_string(&r.game_string)?;
        for s in &r.sides {
            check_text("side", s, 1, MAX_NAME_CHARS)?;
        }
    }
    let points = m.points();
    if m.ending == Ending::Normal {
        if n != planned {
            return Err(format!(
                "a match of {planned} rounds that ended normally cannot have {n} rounds played"
            ));
        }
        let by_points = match points[0].cmp(&points[1]) {
            std::cmp::Ordering::Greater => Outcome::First,
            std::cmp::Ordering::Less => Outcome::Second,
            std::cmp::Ordering::Equal => Outcome::Draw,
        };
        if by_points != m.result {
            return Err(format!(
                "the match ended normally {}-{} but its result says {}",
                points[0],
                points[1],
                outcome_text(m.result)
            ));
        }
    }
    Ok(players)
}

fn outcome_text(o: Outcome) -> &'static str {
    match o {
        Outcome::First => "first",
        Outcome::Second => "second",
        Outcome::Draw => "draw",
    }
}
