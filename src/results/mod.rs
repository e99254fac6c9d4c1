//! The results database: every finished game with a person in it, and
//! every match, kept in SQLite at `<data-dir>/results.sqlite`, and the
//! leaderboard computed from them (people by wins, each engine level's
//! record against people).
//!
//! It knows no game by name: a record names its family, type, sides and
//! final GameString as text. The browser GUI and `meeple play` record
//! through [`Results::record_game`] and [`Results::record_match`];
//! `meeple leaderboard` reads through [`Results::open_existing`].
//!
//! The file is treated as hostile, as the saves folder is: the database and
//! its journal must be regular files (a symbolic link, FIFO, device or
//! folder there is refused, and SQLite itself is told never to follow a
//! link to the database); a file that is not SQLite, is corrupt, belongs to
//! another program or was written by a newer meeple is an error message
//! (the referee's tables, `scripts/referee.py`, whose default `--db` is the
//! same file, live beside ours);
//! every text read back is made printable. The schema (`schema_v1.sql`) is
//! created and migrated by the program (`PRAGMA user_version`), in a
//! rollback journal with a busy timeout, so that the GUI server and a
//! `meeple play` may write at once; every write is one transaction.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};

use crate::text::{clip, printable};

#[cfg(test)]
mod tests;

/// The database's file name in the data directory.
pub const FILE_NAME: &str = "results.sqlite";
/// `PRAGMA application_id` of a meeple results database ("MEEP").
pub const APPLICATION_ID: i64 = 0x4D45_4550;
/// The migrations, in order: `MIGRATIONS[v]` takes a database of schema
/// version `v` to `v + 1` (version 0 is an empty database).
const MIGRATIONS: &[&str] = &[include_str!("schema_v1.sql")];
/// The schema version this program writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;
/// How long a write waits for another writer (the GUI server, a `meeple
/// play`) before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// The leaderboard's length when none is asked (the seed showed ten).
pub const DEFAULT_TOP: usize = 10;
/// Longest name of a person, strategy, level or side, in characters.
pub const MAX_NAME_CHARS: usize = 40;
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
/// `Breaker`, ...) and who played it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub side: String,
    pub player: Player,
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonRow {
    pub name: String,
    #[serde(flatten)]
    pub record: Record,
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
            .map(|(i, p)| [vec![(i + 1).to_string(), p.name.clone()], numbers(&p.record)].concat())
            .collect();
        out.push_str(&columns(&["#", "Name", "Won", "Lost", "Drawn", "Games"], 2, &people));
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

/// Checks a person's name and gives it trimmed: 1-40 characters, none a
/// control character, a line or paragraph separator or an invisible
/// formatting character (a zero-width space, a bidirectional override).
/// Names are unique regardless of case.
pub fn check_person_name(name: &str) -> Result<String, String> {
    let t = name.trim();
    let n = t.chars().count();
    if n == 0 {
        return Err("a name needs at least one character".to_string());
    }
    if n > MAX_NAME_CHARS {
        return Err(format!("name '{}' is too long ({n} characters, at most {MAX_NAME_CHARS})", clip(t)));
    }
    if let Some(c) = t.chars().find(|&c| !is_printable(c)) {
        return Err(format!(
            "name '{}' holds a character that cannot be shown (U+{:04X})",
            clip(t),
            c as u32
        ));
    }
    Ok(t.to_string())
}

/// The key that makes names unique regardless of case.
fn fold(name: &str) -> String {
    name.to_lowercase()
}

/// Not a control character, a line or paragraph separator, nor an
/// invisible formatting character.
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

/// A player checked and normalized (a person's name trimmed).
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
        && fold(x) == fold(y)
    {
        return Err(format!("'{x}' cannot hold both seats"));
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

fn outcome_text(o: Outcome) -> &'static str {
    match o {
        Outcome::First => "first",
        Outcome::Second => "second",
        Outcome::Draw => "draw",
    }
}

fn ending_text(e: Ending) -> &'static str {
    match e {
        Ending::Normal => "normal",
        Ending::Resignation => "resignation",
        Ending::Time => "time",
        Ending::Abandoned => "abandoned",
        Ending::Adjudicated => "adjudicated",
    }
}

fn place_text(p: Place) -> &'static str {
    match p {
        Place::Gui => "gui",
        Place::Play => "play",
        Place::Other => "other",
    }
}

fn unix_seconds(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    }
}

/// The UTC text of a time, as stored (`2026-11-25T19:33:52Z`).
const TIME_SQL: &str = "strftime('%Y-%m-%dT%H:%M:%SZ', ?, 'unixepoch')";

/// What is at the database's path (or a journal's).
fn check_entry(path: &Path) -> Result<bool, String> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => Ok(true),
        Ok(m) => {
            let what = if m.file_type().is_symlink() {
                "a symbolic link"
            } else if m.is_dir() {
                "a folder"
            } else {
                "not a regular file (a FIFO, socket or device)"
            };
            Err(format!("{} is {what}: refused", path.display()))
        }
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("cannot use {}: {e}", path.display())),
    }
}

/// The database's path in `data_dir`, and whether it exists; the database
/// and its journals must be regular files if they exist.
fn checked_path(data_dir: &Path) -> Result<(PathBuf, bool), String> {
    let path = data_dir.join(FILE_NAME);
    let exists = check_entry(&path)?;
    for suffix in ["-journal", "-wal", "-shm"] {
        let mut side = path.clone().into_os_string();
        side.push(suffix);
        check_entry(Path::new(&side))?;
    }
    Ok((path, exists))
}

/// The results database of a data directory, open.
pub struct Results {
    conn: Connection,
    path: PathBuf,
}

impl Results {
    /// Opens the results database of `data_dir` for recording, creating
    /// the folder, the file and the schema if needed and migrating an older
    /// schema.
    pub fn open(data_dir: &Path) -> Result<Results, String> {
        fs::create_dir_all(data_dir).map_err(|e| format!("cannot create {}: {e}", data_dir.display()))?;
        let (path, _) = checked_path(data_dir)?;
        let r = Results::connect(path, true)?;
        r.migrate()?;
        Ok(r)
    }

    /// Opens the results database of `data_dir` for reading: `Ok(None)`
    /// when there is none yet (no file, or an empty one), and nothing is
    /// created. An older meeple schema is migrated.
    pub fn open_existing(data_dir: &Path) -> Result<Option<Results>, String> {
        let (path, exists) = checked_path(data_dir)?;
        if !exists {
            return Ok(None);
        }
        let r = Results::connect(path, false)?;
        let (app, version, foreign) = r.header()?;
        if app == 0 && version == 0 && foreign == 0 {
            return Ok(None);
        }
        r.migrate()?;
        Ok(Some(r))
    }

    /// The database's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn connect(path: PathBuf, create: bool) -> Result<Results, String> {
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NOFOLLOW
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let conn = Connection::open_with_flags(&path, flags)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let r = Results { conn, path };
        r.configure().map_err(|e| r.fail(e))?;
        Ok(r)
    }

    /// Per-connection settings: wait for other writers, a rollback journal
    /// (no files left beside the database, works on any file system),
    /// foreign keys, and no trust in what a planted schema could run.
    fn configure(&self) -> Result<(), Fail> {
        let c = &self.conn;
        c.busy_timeout(BUSY_TIMEOUT)?;
        c.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
        c.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
        c.pragma_update(None, "foreign_keys", true)?;
        c.pragma_update(None, "synchronous", "FULL")?;
        // Reads the header: a file that is not SQLite fails here.
        let mode: String = c.pragma_update_and_check(None, "journal_mode", "DELETE", |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("delete") {
            return Err(Fail::Refused(format!(
                "{}: cannot use a rollback journal (journal mode {})",
                self.path.display(),
                printable(&mode)
            )));
        }
        Ok(())
    }

    /// A database error as a message naming the file.
    fn error(&self, e: rusqlite::Error) -> String {
        format!("results database {}: {}", self.path.display(), printable(&e.to_string()))
    }

    fn fail(&self, f: Fail) -> String {
        match f {
            Fail::Db(e) => self.error(e),
            Fail::Refused(m) => m,
        }
    }

    /// `application_id`, `user_version` and the number of other programs'
    /// schema entries.
    fn header(&self) -> Result<(i64, i64, i64), String> {
        header(&self.conn).map_err(|e| self.error(e))
    }

    /// Whether a database of this header needs migrating; an error for a
    /// newer version or a database of another program.
    fn needs_migration(&self, (app, version, foreign): (i64, i64, i64)) -> Result<bool, String> {
        if app != 0 && app != APPLICATION_ID {
            return Err(format!(
                "{} is not a meeple results database (application id {app:#x})",
                self.path.display()
            ));
        }
        if version > SCHEMA_VERSION {
            return Err(format!(
                "{} has schema version {version}, newer than this meeple knows ({SCHEMA_VERSION}): \
                 use a newer meeple (the file is left as it is)",
                self.path.display()
            ));
        }
        if version < 0 || (version == 0 && (app != 0 || foreign != 0)) {
            return Err(format!(
                "{} is not a meeple results database (it holds other tables)",
                self.path.display()
            ));
        }
        Ok(version < SCHEMA_VERSION)
    }

    /// Brings the schema to [`SCHEMA_VERSION`] in one transaction; refuses
    /// a newer version and a database of another program.
    fn migrate(&self) -> Result<(), String> {
        if !self.needs_migration(self.header()?)? {
            return Ok(());
        }
        self.write(|c| {
            // Another process may have migrated meanwhile: look again
            // inside the write transaction.
            let h = header(c)?;
            if !self.needs_migration(h).map_err(Fail::Refused)? {
                return Ok(());
            }
            for m in &MIGRATIONS[h.1 as usize..] {
                c.execute_batch(m)?;
            }
            c.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            c.pragma_update(None, "application_id", APPLICATION_ID)?;
            Ok(())
        })
    }

    /// Runs `f` in one write transaction, begun at once (so that a second
    /// writer waits for the busy timeout instead of failing midway).
    fn write<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Fail>) -> Result<T, String> {
        let run = || -> Result<T, Fail> {
            let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
            let v = f(&tx)?;
            tx.commit()?;
            Ok(v)
        };
        run().map_err(|e| self.fail(e))
    }

    /// Records a finished game, in one transaction. `Ok(None)` (nothing
    /// kept) when no person played in it; otherwise the game's id.
    pub fn record_game(&mut self, g: &GameRecord) -> Result<Option<i64>, String> {
        check_kind(&g.family, &g.game_type)?;
        check_game_string(&g.game_string)?;
        for s in &g.seats {
            check_text("side", &s.side, 1, MAX_NAME_CHARS)?;
        }
        let players = check_players(&g.seats[0].player, &g.seats[1].player)?;
        if !players.iter().any(Player::is_person) {
            return Ok(None);
        }
        let sides = [g.seats[0].side.as_str(), g.seats[1].side.as_str()];
        self.write(|c| {
            let id = insert_game(
                c,
                g.when,
                &g.family,
                &g.game_type,
                &g.game_string,
                g.result,
                g.ending,
                g.place,
                None,
            )?;
            for (i, p) in players.iter().enumerate() {
                insert_game_seat(c, id, i, sides[i], p, None)?;
            }
            Ok(Some(id))
        })
    }

    /// Records a finished match with its rounds, in one transaction.
    /// `Ok(None)` (nothing kept) when no person played in it; otherwise the
    /// match's id. Checked: at least one round, no more than planned, all
    /// of them if it ended normally, and then the winner is the player with
    /// more points.
    pub fn record_match(&mut self, m: &MatchRecord) -> Result<Option<i64>, String> {
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
        if !players.iter().any(Player::is_person) {
            return Ok(None);
        }
        self.write(|c| {
            c.execute(
                &format!(
                    "INSERT INTO matches (finished, family, game_type, rounds, result, ending, place) \
                     VALUES ({TIME_SQL}, ?, ?, ?, ?, ?, ?)"
                ),
                params![
                    unix_seconds(m.when),
                    m.family,
                    m.game_type,
                    i64::from(m.rounds_planned),
                    outcome_text(m.result),
                    ending_text(m.ending),
                    place_text(m.place)
                ],
            )?;
            let id = c.last_insert_rowid();
            for (i, p) in players.iter().enumerate() {
                let (person, engine) = player_ids(c, p)?;
                c.execute(
                    "INSERT INTO match_seat (match_id, seat, person_id, engine_id, points) VALUES (?, ?, ?, ?, ?)",
                    params![id, i as i64 + 1, person, engine, points[i] as i64],
                )?;
            }
            for (k, r) in m.rounds.iter().enumerate() {
                let g = insert_game(
                    c,
                    m.when,
                    &m.family,
                    &m.game_type,
                    &r.game_string,
                    r.result,
                    r.ending,
                    m.place,
                    Some((id, k as i64 + 1)),
                )?;
                for (i, p) in players.iter().enumerate() {
                    insert_game_seat(c, g, i, &r.sides[i], p, Some(r.points[i]))?;
                }
            }
            Ok(Some(id))
        })
    }

    /// People by wins (then fewer losses, more draws, name), at most `top`,
    /// over the games and matches `filter` selects. A person with no game
    /// counted is not listed.
    pub fn leaderboard(&self, filter: &Filter, top: usize) -> Result<Vec<PersonRow>, String> {
        let sql = format!(
            "SELECT p.name, {TALLY} FROM standing st JOIN person p ON p.id = st.person_id \
             WHERE {FAMILY} AND {OPP_PERSON} AND {OPP_ENGINE} \
             GROUP BY p.id ORDER BY 2 DESC, 3 ASC, 4 DESC, p.fold ASC LIMIT ?5"
        );
        let (family, person, strategy, level) = filter_params(filter);
        let top = i64::try_from(top).unwrap_or(i64::MAX);
        self.rows(&sql, params![family, person, strategy, level, top], |r| {
            Ok(PersonRow { name: printable(&r.get::<_, String>(0)?), record: tally(r, 1)? })
        })
    }

    /// The leaderboard of the games `filter` selects: the top `top` people
    /// and every engine level's record against people.
    pub fn board(&self, filter: &Filter, top: usize) -> Result<Board, String> {
        Ok(Board { people: self.leaderboard(filter, top)?, engines: self.engine_records(filter)? })
    }

    /// Each engine strategy and level's record against people (from the
    /// engine's side), by strategy then level, over the games and matches
    /// `filter` selects: an engine opponent keeps that engine's rows, a
    /// person opponent the games against that person.
    pub fn engine_records(&self, filter: &Filter) -> Result<Vec<EngineRow>, String> {
        let sql = format!(
            "SELECT e.strategy, e.level, {TALLY} FROM standing st JOIN engine e ON e.id = st.engine_id \
             WHERE st.opp_person_id IS NOT NULL AND {FAMILY} AND {OPP_PERSON} AND {SELF_ENGINE} \
             GROUP BY e.id ORDER BY e.strategy, length(e.level), e.level"
        );
        let (family, person, strategy, level) = filter_params(filter);
        self.rows(&sql, params![family, person, strategy, level], |r| {
            Ok(EngineRow {
                strategy: printable(&r.get::<_, String>(0)?),
                level: printable(&r.get::<_, String>(1)?),
                record: tally(r, 2)?,
            })
        })
    }

    /// One person's record (any case of their name) over the games and
    /// matches `filter` selects: `None` if nobody of that name ever played.
    pub fn person_record(&self, name: &str, filter: &Filter) -> Result<Option<PersonRow>, String> {
        let name = check_person_name(name)?;
        let c = &self.conn;
        let found: Option<(i64, String)> = c
            .query_row("SELECT id, name FROM person WHERE fold = ?", [fold(&name)], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
            .map_err(|e| self.error(e))?;
        let Some((id, shown)) = found else { return Ok(None) };
        let sql = format!(
            "SELECT {TALLY} FROM standing st \
             WHERE st.person_id = ?5 AND {FAMILY} AND {OPP_PERSON} AND {OPP_ENGINE}"
        );
        let (family, person, strategy, level) = filter_params(filter);
        let record = c
            .query_row(&sql, params![family, person, strategy, level, id], |r| tally(r, 0))
            .map_err(|e| self.error(e))?;
        Ok(Some(PersonRow { name: printable(&shown), record }))
    }

    fn rows<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, String> {
        let mut st = self.conn.prepare(sql).map_err(|e| self.error(e))?;
        let rows = st.query_map(params, f).map_err(|e| self.error(e))?;
        rows.collect::<rusqlite::Result<Vec<T>>>().map_err(|e| self.error(e))
    }
}

/// A failure inside a transaction: SQLite's, or a refusal of ours.
enum Fail {
    Db(rusqlite::Error),
    Refused(String),
}

impl From<rusqlite::Error> for Fail {
    fn from(e: rusqlite::Error) -> Fail {
        Fail::Db(e)
    }
}

/// The tables the referee (`scripts/referee.py`) keeps in the same file
/// (its default `--db` is `meeple-data/results.sqlite`): they live beside
/// ours.
const NEIGHBOURS: [&str; 3] = ["tournaments", "games", "moves"];

/// `application_id`, `user_version` and the number of schema entries that
/// are neither SQLite's own nor a neighbour's (the referee's).
fn header(c: &Connection) -> rusqlite::Result<(i64, i64, i64)> {
    let app = c.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version = c.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let foreign = c.query_row(
        &format!(
            "SELECT count(*) FROM sqlite_schema WHERE tbl_name NOT IN ({}) \
             AND tbl_name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
            NEIGHBOURS.iter().map(|t| format!("'{t}'")).collect::<Vec<_>>().join(", ")
        ),
        [],
        |r| r.get(0),
    )?;
    Ok((app, version, foreign))
}

/// Wins, losses, draws and games of the rows of `standing` selected.
const TALLY: &str = "coalesce(sum(st.outcome = 'win'), 0), coalesce(sum(st.outcome = 'loss'), 0), \
                     coalesce(sum(st.outcome = 'draw'), 0), count(*)";
/// The filters, on parameters ?1 family, ?2 a person opponent's folded
/// name, ?3 an engine's strategy, ?4 its level (NULL: not filtered).
const FAMILY: &str = "(?1 IS NULL OR st.family = ?1 COLLATE NOCASE)";
const OPP_PERSON: &str = "(?2 IS NULL OR st.opp_person_id IN (SELECT id FROM person WHERE fold = ?2))";
const OPP_ENGINE: &str = "(?3 IS NULL OR st.opp_engine_id IN (SELECT id FROM engine \
                          WHERE strategy = ?3 COLLATE NOCASE AND (?4 IS NULL OR level = ?4 COLLATE NOCASE)))";
const SELF_ENGINE: &str = "(?3 IS NULL OR st.engine_id IN (SELECT id FROM engine \
                           WHERE strategy = ?3 COLLATE NOCASE AND (?4 IS NULL OR level = ?4 COLLATE NOCASE)))";

fn filter_params(f: &Filter) -> (Option<String>, Option<String>, Option<String>, Option<String>) {
    let family = f.family.clone();
    match &f.opponent {
        None => (family, None, None, None),
        Some(Opponent::Person { name }) => (family, Some(fold(name.trim())), None, None),
        Some(Opponent::Engine { strategy, level }) => {
            (family, None, Some(strategy.trim().to_string()), level.as_ref().map(|l| l.trim().to_string()))
        }
    }
}

fn tally(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Record> {
    let n = |i: usize| -> rusqlite::Result<u64> { Ok(r.get::<_, i64>(at + i)?.max(0) as u64) };
    Ok(Record { wins: n(0)?, losses: n(1)?, draws: n(2)?, games: n(3)? })
}

#[allow(clippy::too_many_arguments)]
fn insert_game(
    c: &Connection,
    when: SystemTime,
    family: &str,
    game_type: &str,
    game_string: &str,
    result: Outcome,
    ending: Ending,
    place: Place,
    round: Option<(i64, i64)>,
) -> rusqlite::Result<i64> {
    c.execute(
        &format!(
            "INSERT INTO game (finished, family, game_type, game_string, result, ending, place, match_id, round) \
             VALUES ({TIME_SQL}, ?, ?, ?, ?, ?, ?, ?, ?)"
        ),
        params![
            unix_seconds(when),
            family,
            game_type,
            game_string,
            outcome_text(result),
            ending_text(ending),
            place_text(place),
            round.map(|r| r.0),
            round.map(|r| r.1)
        ],
    )?;
    Ok(c.last_insert_rowid())
}

fn insert_game_seat(
    c: &Connection,
    game: i64,
    i: usize,
    side: &str,
    player: &Player,
    points: Option<u32>,
) -> rusqlite::Result<()> {
    let (person, engine) = player_ids(c, player)?;
    c.execute(
        "INSERT INTO game_seat (game_id, seat, side, person_id, engine_id, points) VALUES (?, ?, ?, ?, ?, ?)",
        params![game, i as i64 + 1, side, person, engine, points.map(i64::from)],
    )?;
    Ok(())
}

/// The row of a person or engine, added if new: `(person_id, engine_id)`.
fn player_ids(c: &Connection, p: &Player) -> rusqlite::Result<(Option<i64>, Option<i64>)> {
    match p {
        Player::Person { name } => {
            let key = fold(name);
            c.execute(
                "INSERT INTO person (name, fold) VALUES (?, ?) ON CONFLICT (fold) DO NOTHING",
                params![name, key],
            )?;
            let id = c.query_row("SELECT id FROM person WHERE fold = ?", [key], |r| r.get(0))?;
            Ok((Some(id), None))
        }
        Player::Engine { strategy, level } => {
            c.execute(
                "INSERT INTO engine (strategy, level) VALUES (?, ?) ON CONFLICT (strategy, level) DO NOTHING",
                params![strategy, level],
            )?;
            let id = c.query_row(
                "SELECT id FROM engine WHERE strategy = ? AND level = ?",
                params![strategy, level],
                |r| r.get(0),
            )?;
            Ok((None, Some(id)))
        }
    }
}
