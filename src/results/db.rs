//! The results database proper (native only: SQLite is not compiled for
//! the web): opening and checking the file, writing a game or a match,
//! reading the leaderboard back, and the pending folder's flush.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::config::DbConfig;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior, params};

use super::pending::Contest;
use super::*;
use crate::text::{clean, clip, printable};

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
fn check_contest(c: &Contest) -> Result<[Player; 2], String> {
    match c {
        Contest::Game(g) => check_game(g),
        Contest::Match(m) => check_match(m),
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

/// How long an open database waits and runs: [`BUSY_TIMEOUT`],
/// [`QUERY_LIMIT`] and [`CHECK_LIMIT`] unless a caller (a test) says
/// otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How long to wait for another process's lock.
    pub busy: Duration,
    /// The longest a query (or a transaction's queries) may run.
    pub query: Duration,
    /// The longest the integrity check at open, or a migration, may run.
    pub check: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { busy: BUSY_TIMEOUT, query: QUERY_LIMIT, check: CHECK_LIMIT }
    }
}

/// The budget of the queries running now, which SQLite's progress handler
/// looks at every [`PROGRESS_OPS`] steps. It is counted in the CPU time of
/// the thread that runs them (where the system has a clock for that; else
/// in wall time, and the busy handler's waits are added to the budget): a
/// wait for another process's lock, for the disk, or for a machine busy
/// with other programs is not the query's, so a large file on a loaded
/// machine is not cut short, while a query that computes forever is.
struct Clock {
    /// Milliseconds on [`Clock::now`]'s scale; `u64::MAX`: none.
    deadline: AtomicU64,
    /// Set when the progress handler stopped a query.
    tripped: AtomicBool,
    /// The wall clock's origin, where there is no thread CPU clock.
    #[cfg(not(unix))]
    epoch: Instant,
}

/// How many virtual machine steps between two looks at the clock.
const PROGRESS_OPS: i32 = 1000;
/// The busy handler's sleeps, as SQLite's own busy timeout takes them (ms).
const BUSY_DELAYS: [u64; 12] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

impl Clock {
    fn new() -> Clock {
        Clock {
            deadline: AtomicU64::new(u64::MAX),
            tripped: AtomicBool::new(false),
            #[cfg(not(unix))]
            epoch: Instant::now(),
        }
    }

    /// The CPU time of the calling thread, in milliseconds.
    #[cfg(unix)]
    fn now(&self) -> u64 {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes the timespec it is given.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        (ts.tv_sec.max(0) as u64).saturating_mul(1000).saturating_add(ts.tv_nsec.max(0) as u64 / 1_000_000)
    }

    /// The wall time since the clock was made, in milliseconds.
    #[cfg(not(unix))]
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn arm(&self, d: Duration) {
        self.tripped.store(false, Ordering::Relaxed);
        self.deadline.store(self.now().saturating_add(d.as_millis() as u64), Ordering::Relaxed);
    }

    fn disarm(&self) {
        self.deadline.store(u64::MAX, Ordering::Relaxed);
    }

    /// The progress handler: true (stop the query) past the deadline.
    fn expired(&self) -> bool {
        let d = self.deadline.load(Ordering::Relaxed);
        let late = d != u64::MAX && self.now() > d;
        if late {
            self.tripped.store(true, Ordering::Relaxed);
        }
        late
    }

    /// The busy handler's `count`-th call: waits its turn; false (give up)
    /// once `busy` has been waited. On a wall clock the wait is added to
    /// the budget.
    fn wait_for_lock(&self, count: i32, busy: Duration) -> bool {
        let count = count.max(0) as usize;
        let last = BUSY_DELAYS[BUSY_DELAYS.len() - 1];
        let waited: u64 = BUSY_DELAYS.iter().take(count).sum::<u64>()
            + count.saturating_sub(BUSY_DELAYS.len()) as u64 * last;
        let limit = busy.as_millis() as u64;
        if waited >= limit {
            return false;
        }
        let delay = BUSY_DELAYS.get(count).copied().unwrap_or(last).min(limit - waited);
        std::thread::sleep(Duration::from_millis(delay));
        if cfg!(not(unix)) {
            let _ = self.deadline.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |d| {
                (d != u64::MAX).then(|| d.saturating_add(delay))
            });
        }
        true
    }
}

/// The results database of a data directory, open.
pub struct Results {
    conn: Connection,
    path: PathBuf,
    data_dir: PathBuf,
    limits: Limits,
    clock: Arc<Clock>,
}

/// A failure inside a transaction: SQLite's, or a refusal of ours.
#[derive(Debug)]
enum Fail {
    Db(rusqlite::Error),
    Refused(String),
}

impl From<rusqlite::Error> for Fail {
    fn from(e: rusqlite::Error) -> Fail {
        Fail::Db(e)
    }
}

/// What the file's header says: its `user_version`.
#[derive(Clone, Copy)]
struct Header {
    version: i64,
}

impl Results {
    /// Opens the results database of `data_dir` for recording, creating
    /// the folder, the file and the schema if needed and migrating an older
    /// schema; refuses a damaged file, a planted schema, a newer version.
    pub fn open(data_dir: &Path) -> Result<Results, String> {
        Results::open_with(data_dir, Limits::default())
    }

    /// [`Results::open`] with other limits.
    pub fn open_with(data_dir: &Path, limits: Limits) -> Result<Results, String> {
        fs::create_dir_all(data_dir).map_err(|e| format!("cannot create {}: {e}", data_dir.display()))?;
        let (path, _) = checked_path(data_dir)?;
        let r = Results::connect(data_dir, path, true, limits)?;
        let h = r.look()?;
        if h.version > 0 {
            r.check_integrity()?;
        }
        r.migrate(h)?;
        Ok(r)
    }

    /// Opens the results database of `data_dir` for reading: `Ok(None)`
    /// when there is none yet (no file, or one with no meeple table yet),
    /// and nothing is created. An older meeple schema is migrated.
    pub fn open_existing(data_dir: &Path) -> Result<Option<Results>, String> {
        Results::open_existing_with(data_dir, Limits::default())
    }

    /// [`Results::open_existing`] with other limits.
    pub fn open_existing_with(data_dir: &Path, limits: Limits) -> Result<Option<Results>, String> {
        let (path, exists) = checked_path(data_dir)?;
        if !exists {
            return Ok(None);
        }
        let r = Results::connect(data_dir, path, false, limits)?;
        let h = r.look()?;
        if h.version == 0 {
            return Ok(None);
        }
        r.check_integrity()?;
        r.migrate(h)?;
        Ok(Some(r))
    }

    /// The database's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn connect(data_dir: &Path, path: PathBuf, create: bool, limits: Limits) -> Result<Results, String> {
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NOFOLLOW
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let conn = Connection::open_with_flags(&path, flags)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let mut r =
            Results { conn, path, data_dir: data_dir.to_path_buf(), limits, clock: Arc::new(Clock::new()) };
        r.configure().map_err(|e| r.fail(e))?;
        Ok(r)
    }

    /// Per-connection settings: wait for other writers (a busy handler that
    /// keeps the wait out of the query bound), bound every query's time (a
    /// progress handler), a rollback journal (no files left beside the
    /// database, works on any file system), foreign keys, and no trust in
    /// what a planted schema could run.
    fn configure(&mut self) -> Result<(), Fail> {
        let (clock, busy) = (Arc::clone(&self.clock), self.limits.busy);
        self.conn.busy_handler(Some(move |count: i32| clock.wait_for_lock(count, busy)))?;
        let clock = Arc::clone(&self.clock);
        self.conn.progress_handler(PROGRESS_OPS, Some(move || clock.expired()))?;
        let c = &self.conn;
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
        let code = e.sqlite_error_code();
        let what = match code {
            Some(ErrorCode::OperationInterrupted) if self.clock.tripped.load(Ordering::Relaxed) => format!(
                "a query computed for more than {} s and was stopped (a planted or damaged database?)",
                self.limits.query.as_secs_f64()
            ),
            Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => format!(
                "locked by another process for more than {} s ({})",
                self.limits.busy.as_secs_f64(),
                printable(&e.to_string())
            ),
            _ => printable(&e.to_string()),
        };
        format!("results database {}: {what}", self.path.display())
    }

    fn fail(&self, f: Fail) -> String {
        match f {
            Fail::Db(e) => self.error(e),
            Fail::Refused(m) => m,
        }
    }

    /// The header and schema, checked: an error for another program's
    /// database, a newer version, or a schema that holds what meeple did not
    /// make (issue 43 item 3). Run at the start of every transaction, under
    /// its lock, so that nothing planted meanwhile is ever run.
    fn inspect(&self, c: &Connection) -> Result<Header, Fail> {
        let app: i64 = c.pragma_query_value(None, "application_id", |r| r.get(0))?;
        let version: i64 = c.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let path = self.path.display().to_string();
        if app != 0 && app != APPLICATION_ID {
            return Err(Fail::Refused(format!(
                "{path} is not a meeple results database (application id {app:#x})"
            )));
        }
        if version > SCHEMA_VERSION {
            return Err(Fail::Refused(format!(
                "{path} has schema version {version}, newer than this meeple knows ({SCHEMA_VERSION}): \
                 use a newer meeple (the file is left as it is)"
            )));
        }
        if version < 0 || (version == 0 && app != 0) {
            return Err(Fail::Refused(format!("{path} is not a meeple results database")));
        }
        let found = schema::entries(c)?;
        schema::check(&found, version).map_err(|p| Fail::Refused(p.message(&path)))?;
        Ok(Header { version })
    }

    /// The header and schema, checked in a read transaction.
    fn look(&self) -> Result<Header, String> {
        self.read(|_| Ok(())).map(|(h, ())| h)
    }

    /// `PRAGMA quick_check`, bounded by [`Limits::check`]: a damaged file
    /// is refused (nothing more is written into it; a result goes to the
    /// pending folder). A file too large to be checked in time is used, with
    /// a warning.
    fn check_integrity(&self) -> Result<(), String> {
        let started = Instant::now();
        let run = || -> Result<String, Fail> {
            self.clock.disarm();
            let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Deferred)?;
            self.inspect(&tx)?;
            self.clock.arm(self.limits.check);
            let first: rusqlite::Result<String> =
                tx.query_row("PRAGMA quick_check(1)", [], |r| Ok(clip(&clean(&any_text(r.get_ref(0)?)))));
            self.clock.disarm();
            Ok(first?)
        };
        let found = run();
        log::debug!(
            "results database {}: quick_check in {:.3} s",
            self.path.display(),
            started.elapsed().as_secs_f64()
        );
        match found {
            Ok(s) if s == "ok" => Ok(()),
            Ok(s) => Err(format!(
                "results database {} is damaged (PRAGMA quick_check: {s}): refused, nothing more is written \
                 into it (results are kept in {} until it is repaired or moved away)",
                self.path.display(),
                pending::folder(&self.data_dir).display()
            )),
            Err(Fail::Db(e))
                if e.sqlite_error_code() == Some(ErrorCode::OperationInterrupted)
                    && self.clock.tripped.load(Ordering::Relaxed) =>
            {
                log::warn!(
                    "results database {}: not checked for damage (PRAGMA quick_check took over {} s)",
                    self.path.display(),
                    self.limits.check.as_secs_f64()
                );
                Ok(())
            }
            Err(Fail::Db(e)) if matches!(e.sqlite_error_code(), Some(ErrorCode::DatabaseCorrupt)) => {
                Err(format!(
                    "results database {} is damaged ({}): refused, nothing more is written into it",
                    self.path.display(),
                    printable(&e.to_string())
                ))
            }
            Err(f) => Err(self.fail(f)),
        }
    }

    /// Brings the schema to [`SCHEMA_VERSION`] in one transaction (the
    /// header `h` was read before it); refuses a newer version and a
    /// database of another program.
    fn migrate(&self, h: Header) -> Result<(), String> {
        if h.version == SCHEMA_VERSION {
            return Ok(());
        }
        let started = Instant::now();
        // A migration rewrites whole tables: bounded as the check at open is.
        let done = self.transaction(TransactionBehavior::Immediate, self.limits.check, |c, h| {
            // Another process may have migrated meanwhile: the header as
            // read inside the write transaction.
            if h.version == SCHEMA_VERSION {
                return Ok(());
            }
            for m in &schema::MIGRATIONS[h.version as usize..] {
                c.execute_batch(m.sql)?;
                if let Some(then) = m.then {
                    then(c)?;
                }
            }
            c.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            c.pragma_update(None, "application_id", APPLICATION_ID)?;
            Ok(())
        });
        if done.is_ok() && h.version > 0 {
            log::info!(
                "results database {}: migrated from schema version {} to {SCHEMA_VERSION} in {:.3} s",
                self.path.display(),
                h.version,
                started.elapsed().as_secs_f64()
            );
        }
        done
    }

    /// Runs `f` in one transaction begun at once (`Immediate`, a write: a
    /// second writer waits for the busy timeout instead of failing midway;
    /// or `Deferred`, a read), after the header and schema are checked
    /// under its lock; `f`'s queries are bounded by [`Limits::query`].
    fn transaction<T>(
        &self,
        how: TransactionBehavior,
        bound: Duration,
        f: impl FnOnce(&Connection, Header) -> Result<T, Fail>,
    ) -> Result<T, String> {
        let run = || -> Result<T, Fail> {
            self.clock.disarm();
            let tx = rusqlite::Transaction::new_unchecked(&self.conn, how)?;
            let h = self.inspect(&tx)?;
            self.clock.arm(bound);
            let v = f(&tx, h);
            // A commit is never stopped halfway.
            self.clock.disarm();
            let v = v?;
            tx.commit()?;
            Ok(v)
        };
        run().map_err(|e| self.fail(e))
    }

    /// A write transaction on a database of this program's schema version.
    fn write<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Fail>) -> Result<T, String> {
        self.transaction(TransactionBehavior::Immediate, self.limits.query, |c, h| {
            if h.version != SCHEMA_VERSION {
                return Err(Fail::Refused(format!(
                    "{}: schema version {} changed under this meeple (it expected {SCHEMA_VERSION})",
                    self.path.display(),
                    h.version
                )));
            }
            f(c)
        })
    }

    /// A read transaction: the header and schema checked, then `f`.
    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Fail>) -> Result<(Header, T), String> {
        self.transaction(TransactionBehavior::Deferred, self.limits.query, |c, h| Ok((h, f(c)?)))
    }

    /// A read transaction on a database of this program's schema version.
    fn query<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Fail>) -> Result<T, String> {
        let (h, v) = self.read(f)?;
        if h.version != SCHEMA_VERSION {
            return Err(format!("{}: not migrated (schema version {})", self.path.display(), h.version));
        }
        Ok(v)
    }

    /// Records a finished game, in one transaction. `Ok(None)` (nothing
    /// kept) when no person played in it; otherwise the game's id.
    pub fn record_game(&mut self, g: &GameRecord) -> Result<Option<i64>, String> {
        let players = check_game(g)?;
        if !players.iter().any(Player::is_person) {
            return Ok(None);
        }
        self.write(|c| insert_game_record(c, g, &players, &pending::new_key())).map(Some)
    }

    /// Records a finished match with its rounds, in one transaction.
    /// `Ok(None)` (nothing kept) when no person played in it; otherwise the
    /// match's id. Checked: at least one round, no more than planned, all
    /// of them if it ended normally, and then the winner is the player with
    /// more points.
    pub fn record_match(&mut self, m: &MatchRecord) -> Result<Option<i64>, String> {
        let players = check_match(m)?;
        if !players.iter().any(Player::is_person) {
            return Ok(None);
        }
        self.write(|c| insert_match_record(c, m, &players, &pending::new_key())).map(Some)
    }

    /// Stores a contest already checked under `key`, once: if a result of
    /// that key is there already (stored by another process, or by this
    /// one before it was killed), its id, and nothing is written.
    fn store_keyed(&mut self, contest: &Contest, players: &[Player; 2], key: &str) -> Result<i64, String> {
        self.write(|c| {
            let known: Option<(Option<i64>, Option<i64>)> = c
                .query_row("SELECT game_id, match_id FROM result_key WHERE key = ?", [key], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .optional()?;
            if let Some((g, m)) = known {
                return Ok(g.or(m).unwrap_or(0));
            }
            match contest {
                Contest::Game(g) => insert_game_record(c, g, players, key),
                Contest::Match(m) => insert_match_record(c, m, players, key),
            }
        })
    }

    /// Stores the results kept in the pending folder, oldest first, each
    /// once; stops at the first that cannot be written (the database is
    /// still unwritable: they wait on).
    pub fn flush_pending(&mut self) -> Flushed {
        let mut out = Flushed::default();
        let files = match pending::list(&self.data_dir) {
            Ok(f) => f,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        };
        for (i, f) in files.iter().enumerate() {
            let (key, contest) = match pending::read(f) {
                Ok(x) => x,
                Err(e) => {
                    log::warn!("results: a kept result cannot be read: {e}");
                    out.unreadable += 1;
                    continue;
                }
            };
            let players = match check_contest(&contest) {
                Ok(p) => p,
                Err(e) => {
                    log::warn!("results: a kept result is refused ({}): {e}", f.display());
                    out.unreadable += 1;
                    continue;
                }
            };
            match self.store_keyed(&contest, &players, &key) {
                Ok(_) => {
                    out.stored += 1;
                    if let Err(e) = pending::remove(f) {
                        log::warn!("results: {e}");
                    }
                }
                Err(e) => {
                    out.left = files.len() - i;
                    out.error = Some(e);
                    break;
                }
            }
        }
        out.left += out.unreadable;
        out
    }

    /// Sets each seat's accuracy (0 to 100, `None`: not reviewed) in a
    /// recorded game: the id [`Results::record_game`] or [`store`] gave, or
    /// a round's (`SELECT id FROM game WHERE match_id = ? AND round = ?`).
    pub fn set_accuracy(&mut self, game_id: i64, accuracy: [Option<f64>; 2]) -> Result<(), String> {
        for a in accuracy.iter().flatten() {
            check_accuracy(*a)?;
        }
        let path = self.path.display().to_string();
        self.write(|c| {
            let mut n = 0;
            for (i, a) in accuracy.iter().enumerate() {
                n += c.execute(
                    "UPDATE game_seat SET accuracy = ?1 WHERE game_id = ?2 AND seat = ?3",
                    params![a, game_id, i as i64 + 1],
                )?;
            }
            if n == 0 {
                return Err(Fail::Refused(format!("{path} has no game {game_id}")));
            }
            Ok(())
        })
    }

    /// People by wins (then fewer losses, more draws, name), at most `top`,
    /// over the games and matches `filter` selects. A person with no game
    /// counted is not listed.
    pub fn leaderboard(&self, filter: &Filter, top: usize) -> Result<Vec<PersonRow>, String> {
        let top = i64::try_from(top).unwrap_or(i64::MAX);
        self.query(|c| leaderboard(c, filter, top))
    }

    /// The leaderboard of the games `filter` selects: the top `top` people
    /// and every engine level's record against people.
    pub fn board(&self, filter: &Filter, top: usize) -> Result<Board, String> {
        let top = i64::try_from(top).unwrap_or(i64::MAX);
        self.query(|c| {
            Ok(Board { people: leaderboard(c, filter, top)?, engines: engine_records(c, filter)? })
        })
    }

    /// Each engine strategy and level's record against people (from the
    /// engine's side), by strategy then level, over the games and matches
    /// `filter` selects: an engine opponent keeps that engine's rows, a
    /// person opponent the games against that person.
    pub fn engine_records(&self, filter: &Filter) -> Result<Vec<EngineRow>, String> {
        self.query(|c| engine_records(c, filter))
    }

    /// One person's record (any spelling of their name that is the same
    /// person) over the games and matches `filter` selects: `None` if
    /// nobody of that name ever played.
    pub fn person_record(&self, name: &str, filter: &Filter) -> Result<Option<PersonRow>, String> {
        let name = check_person_name(name)?;
        self.query(|c| {
            let found: Option<(i64, String)> = c
                .query_row(
                    &format!("SELECT id, {NAME_SQL} FROM person p WHERE fold = ?"),
                    [fold(&name)],
                    |r| Ok((r.get(0)?, text_of(r.get_ref(1)?, MAX_NAME_CHARS))),
                )
                .optional()?;
            let Some((id, shown)) = found else { return Ok(None) };
            let sql = format!(
                "SELECT {TALLY}, {ACCURACY} FROM standing st \
                 WHERE st.person_id = ?5 AND {FAMILY} AND {OPP_PERSON} AND {OPP_ENGINE}"
            );
            let (family, person, strategy, level) = filter_params(filter);
            let row = c.query_row(&sql, params![family, person, strategy, level, id], |r| {
                Ok(PersonRow {
                    name: shown,
                    record: tally(r, 0)?,
                    accuracy: r.get(4)?,
                    reviewed: count_at(r, 5)?,
                })
            })?;
            Ok(Some(row))
        })
    }
}

/// What a flush of the pending folder did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flushed {
    /// Results stored now (or found stored already: each once).
    pub stored: usize,
    /// Results still waiting (those that cannot be read included).
    pub left: usize,
    /// Files that cannot be read or are refused: left where they are.
    pub unreadable: usize,
    /// Why the rest could not be stored.
    pub error: Option<String>,
}

impl Flushed {
    /// In words, for a person: empty if nothing was waiting.
    pub fn words(&self) -> String {
        let n = |k: usize| if k == 1 { "1 result".to_string() } else { format!("{k} results") };
        let mut s = String::new();
        if self.stored > 0 {
            s.push_str(&format!("{} kept earlier now stored on the leaderboard.", n(self.stored)));
        }
        if self.left > 0 {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&format!("{} still kept, to be stored later", n(self.left)));
            match &self.error {
                Some(e) => s.push_str(&format!(": {e}")),
                None if self.unreadable > 0 => {
                    s.push_str(&format!(" ({} cannot be read: see the log)", self.unreadable))
                }
                None => {}
            }
            s.push('.');
        }
        s
    }
}

/// What became of a result given to [`store`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stored {
    /// In the database: the game's or match's id, and the results kept
    /// earlier that were stored with it.
    Recorded { id: i64, path: PathBuf, flushed: usize },
    /// No person played: nothing is kept (the leaderboard is of people).
    NoPerson,
    /// Not a valid record (a name refused, one person on both seats...):
    /// it never will be, so it is not kept either.
    Refused(String),
    /// The database could not be written (`why`): the result is kept in
    /// `file` and will be stored at the next result or the next start of
    /// `meeple play` or `meeple gui`.
    Kept { file: PathBuf, why: String },
    /// Neither the database nor the pending folder could be written: the
    /// record is in the log (stderr), and nowhere else.
    Lost { why: String },
}

impl Stored {
    /// The id of the game or match, if it is in the database.
    pub fn id(&self) -> Option<i64> {
        match self {
            Stored::Recorded { id, .. } => Some(*id),
            _ => None,
        }
    }

    /// What became of `what` (`the game`, `The result`) in words.
    pub fn words(&self, what: &str) -> String {
        match self {
            Stored::Recorded { flushed: 0, .. } => format!("{what} is on the leaderboard"),
            Stored::Recorded { flushed, .. } => format!(
                "{what} is on the leaderboard, with {} kept earlier",
                if *flushed == 1 { "1 result".to_string() } else { format!("{flushed} results") }
            ),
            Stored::NoPerson => format!("{what} had no person in it: not recorded"),
            Stored::Refused(e) => format!("{what} was not recorded: {e}"),
            Stored::Kept { why, .. } => {
                format!("{what} could not be written now ({why}): kept; it will be stored later")
            }
            Stored::Lost { why } => format!("{what} was not recorded and could not be kept: {why}"),
        }
    }
}

/// Records a finished game or match of `data_dir`: the one entry point of
/// the GUI and `meeple play`. The results kept earlier are stored first;
/// if the database cannot be written (locked past [`BUSY_TIMEOUT`],
/// read-only, damaged, refused), the result is kept in the pending folder
/// and stored later, exactly once.
pub fn store(data_dir: &Path, contest: &Contest) -> Stored {
    store_with(data_dir, contest, Limits::default())
}

/// [`store`] with other limits.
pub fn store_with(data_dir: &Path, contest: &Contest, limits: Limits) -> Stored {
    let players = match check_contest(contest) {
        Ok(p) => p,
        Err(e) => return Stored::Refused(e),
    };
    if !players.iter().any(Player::is_person) {
        return Stored::NoPerson;
    }
    let key = pending::new_key();
    let attempt = || -> Result<(i64, PathBuf, usize), String> {
        let mut r = Results::open_with(data_dir, limits)?;
        let flushed = r.flush_pending();
        if let Some(e) = &flushed.error {
            log::warn!("results: kept results not stored yet: {e}");
        }
        let id = r.store_keyed(contest, &players, &key)?;
        Ok((id, r.path.clone(), flushed.stored))
    };
    match attempt() {
        Ok((id, path, flushed)) => Stored::Recorded { id, path, flushed },
        Err(why) => match pending::keep(data_dir, &key, contest) {
            Ok(file) => {
                log::warn!("results: {why}; the result is kept in {}", file.display());
                Stored::Kept { file, why }
            }
            Err(e) => {
                let record = serde_json::to_string(contest).unwrap_or_default();
                log::error!("results: a result could not be stored ({why}) nor kept ({e}): {record}");
                Stored::Lost { why: format!("{why}; {e}") }
            }
        },
    }
}

/// At the start of a writer (`meeple play`, `meeple gui`): stores the
/// results kept in `data_dir`'s pending folder, waiting at most
/// [`START_BUSY_TIMEOUT`] for the lock. What happened in words, if anything
/// was waiting.
pub fn flush_at_start(data_dir: &Path) -> Option<String> {
    flush_at_start_with(data_dir, Limits { busy: START_BUSY_TIMEOUT, ..Limits::default() })
}

/// [`flush_at_start`] with other limits.
pub fn flush_at_start_with(data_dir: &Path, limits: Limits) -> Option<String> {
    let n = match pending::count(data_dir) {
        Ok(0) => return None,
        Ok(n) => n,
        Err(e) => return Some(format!("kept results cannot be read: {e}")),
    };
    match Results::open_with(data_dir, limits) {
        Ok(mut r) => Some(r.flush_pending().words()),
        Err(e) => Some(format!(
            "{} kept in {}, to be stored later: {e}",
            if n == 1 { "1 result is".to_string() } else { format!("{n} results are") },
            pending::folder(data_dir).display()
        )),
    }
}

/// How many results wait in `data_dir`'s pending folder (`meeple
/// leaderboard` says so).
pub fn pending_count(data_dir: &Path) -> Result<usize, String> {
    pending::count(data_dir)
}

/// The pending folder of `data_dir`.
pub fn pending_folder(data_dir: &Path) -> PathBuf {
    pending::folder(data_dir)
}

/// A value as text, whatever its type.
fn any_text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Null => String::new(),
    }
}

/// A text column as shown (issue 43 item 9): whatever its type (a blob or a
/// number planted there is read as text), at most `max` characters (the
/// last one `…` if it was longer), made printable.
fn text_of(v: ValueRef<'_>, max: usize) -> String {
    let s = any_text(v);
    let mut out: String = s.chars().take(max).collect();
    if s.chars().nth(max).is_some() {
        out.pop();
        out.push('…');
    }
    printable(&out)
}

/// A name column read at most one character past the limit (a planted
/// megabyte is not read whole): `p.name`, as text.
const NAME_SQL: &str = "substr(CAST(p.name AS TEXT), 1, 41)";

/// Wins, losses, draws and games of the rows of `standing` selected.
const TALLY: &str = "coalesce(sum(st.outcome = 'win'), 0), coalesce(sum(st.outcome = 'loss'), 0), \
                     coalesce(sum(st.outcome = 'draw'), 0), count(*)";
/// The mean accuracy and the number of reviewed games it is over.
const ACCURACY: &str = "sum(st.acc_sum) / sum(st.acc_n), coalesce(sum(st.acc_n), 0)";
/// The filters, on parameters ?1 family, ?2 a person opponent's key,
/// ?3 an engine's strategy, ?4 its level (NULL: not filtered).
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
        Some(Opponent::Person { name }) => (family, Some(fold(name)), None, None),
        Some(Opponent::Engine { strategy, level }) => {
            (family, None, Some(strategy.trim().to_string()), level.as_ref().map(|l| l.trim().to_string()))
        }
    }
}

fn count_at(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<u64> {
    Ok(r.get::<_, i64>(i)?.max(0) as u64)
}

fn tally(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Record> {
    let n = |i: usize| count_at(r, at + i);
    Ok(Record { wins: n(0)?, losses: n(1)?, draws: n(2)?, games: n(3)? })
}

fn rows<T>(
    c: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>, Fail> {
    let mut st = c.prepare(sql)?;
    let rows = st.query_map(params, f)?;
    Ok(rows.collect::<rusqlite::Result<Vec<T>>>()?)
}

fn leaderboard(c: &Connection, filter: &Filter, top: i64) -> Result<Vec<PersonRow>, Fail> {
    let sql = format!(
        "SELECT {NAME_SQL}, {TALLY}, {ACCURACY} FROM standing st JOIN person p ON p.id = st.person_id \
         WHERE {FAMILY} AND {OPP_PERSON} AND {OPP_ENGINE} \
         GROUP BY p.id ORDER BY 2 DESC, 3 ASC, 4 DESC, p.fold ASC LIMIT ?5"
    );
    let (family, person, strategy, level) = filter_params(filter);
    rows(c, &sql, params![family, person, strategy, level, top], |r| {
        Ok(PersonRow {
            name: text_of(r.get_ref(0)?, MAX_NAME_CHARS),
            record: tally(r, 1)?,
            accuracy: r.get(5)?,
            reviewed: count_at(r, 6)?,
        })
    })
}

fn engine_records(c: &Connection, filter: &Filter) -> Result<Vec<EngineRow>, Fail> {
    let sql = format!(
        "SELECT substr(CAST(e.strategy AS TEXT), 1, 41), substr(CAST(e.level AS TEXT), 1, 41), {TALLY} \
         FROM standing st JOIN engine e ON e.id = st.engine_id \
         WHERE st.opp_person_id IS NOT NULL AND {FAMILY} AND {OPP_PERSON} AND {SELF_ENGINE} \
         GROUP BY e.id ORDER BY e.strategy, length(e.level), e.level"
    );
    let (family, person, strategy, level) = filter_params(filter);
    rows(c, &sql, params![family, person, strategy, level], |r| {
        Ok(EngineRow {
            strategy: text_of(r.get_ref(0)?, MAX_NAME_CHARS),
            level: text_of(r.get_ref(1)?, MAX_NAME_CHARS),
            record: tally(r, 2)?,
        })
    })
}

/// Inserts a game checked (`players` as kept) and its key; its id.
fn insert_game_record(c: &Connection, g: &GameRecord, players: &[Player; 2], key: &str) -> Result<i64, Fail> {
    let id =
        insert_game(c, g.when, &g.family, &g.game_type, &g.game_string, g.result, g.ending, g.place, None)?;
    for (i, p) in players.iter().enumerate() {
        insert_game_seat(c, id, i, &g.seats[i].side, p, None, g.seats[i].accuracy)?;
    }
    c.execute("INSERT INTO result_key (key, game_id) VALUES (?, ?)", params![key, id])?;
    Ok(id)
}

/// Inserts a match checked, its rounds and its key; its id.
fn insert_match_record(
    c: &Connection,
    m: &MatchRecord,
    players: &[Player; 2],
    key: &str,
) -> Result<i64, Fail> {
    let points = m.points();
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
            insert_game_seat(c, g, i, &r.sides[i], p, Some(r.points[i]), None)?;
        }
    }
    c.execute("INSERT INTO result_key (key, match_id) VALUES (?, ?)", params![key, id])?;
    Ok(id)
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
    accuracy: Option<f64>,
) -> rusqlite::Result<()> {
    let (person, engine) = player_ids(c, player)?;
    c.execute(
        "INSERT INTO game_seat (game_id, seat, side, person_id, engine_id, points, accuracy) \
         VALUES (?, ?, ?, ?, ?, ?, ?)",
        params![game, i as i64 + 1, side, person, engine, points.map(i64::from), accuracy],
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
