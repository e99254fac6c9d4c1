//! The results database's work for the tables (native): see the parent.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::time::Instant;

use serde_json::Value;
use tokio::sync::{Semaphore, watch};

use crate::results::{
    self, Contest, DEFAULT_TOP, Ending, Filter, MatchRecord, Outcome, Place, Player, Results, Round, Stored,
};

use super::{End, filter_of, game_record, leaderboard_json};
use crate::gui::rounds::RoundDone;

/// Leaderboards kept (one per filter asked for), the least used forgotten
/// first.
pub const BOARDS_KEPT: usize = 64;
/// Database reads (leaderboards) at once, server-wide; others wait their
/// turn (outside every table's task).
pub const READS: usize = 1;
/// Database writes (results) at once, server-wide.
pub const WRITES: usize = 2;
/// Longest a browser waits for its leaderboard before it is told to try
/// again (the query goes on and its answer is kept for the next ask).
pub const LEADERBOARD_WAIT: Duration = Duration::from_secs(15);

/// The leaderboard's filter: a family (or all) and an opponent (or all).
type Key = (Option<String>, Option<String>);
type Answer = Option<Result<Arc<str>, String>>;

/// A filter's leaderboard: the last read (with the count of results
/// written when it was read) and the query running, if any.
struct Slot {
    kept: Option<(u64, Arc<str>)>,
    running: Option<watch::Receiver<Answer>>,
    used: Instant,
}

/// The results database's work for all the tables of a server: every
/// write and query runs on a blocking thread (at a lower CPU priority than
/// the tables and engines, a few at once), never in a table's task, and its
/// answer comes back to whoever asked; leaderboards are kept per filter
/// until a result is written, and one query per filter runs at a time
/// however many browsers ask.
pub struct Recorder {
    data_dir: PathBuf,
    /// Results written so far (a leaderboard read before the last one is
    /// out of date).
    written: AtomicU64,
    boards: Mutex<HashMap<Key, Slot>>,
    reads: Arc<Semaphore>,
    writes: Arc<Semaphore>,
}

impl Recorder {
    pub fn new(data_dir: PathBuf) -> Arc<Recorder> {
        Arc::new(Recorder {
            data_dir,
            written: AtomicU64::new(0),
            boards: Mutex::new(HashMap::new()),
            reads: Arc::new(Semaphore::new(READS)),
            writes: Arc::new(Semaphore::new(WRITES)),
        })
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Slot>> {
        self.boards.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The leaderboard of a filter, kept if it is up to date; `None` if
    /// it must be read (with [`Recorder::leaderboard`]). Never waits on the
    /// database.
    pub fn kept(&self, family: Option<String>, vs: Option<String>) -> Option<Arc<str>> {
        let key = key(family, vs);
        let written = self.written.load(Ordering::Acquire);
        let mut slots = self.slots();
        let slot = slots.get_mut(&key)?;
        let (at, text) = slot.kept.as_ref()?;
        if *at != written {
            return None;
        }
        slot.used = Instant::now();
        Some(text.clone())
    }

    /// The leaderboard for the page (the `leaderboard` message's text):
    /// kept, or read once for everybody asking the same filter meanwhile.
    /// Waits at most [`LEADERBOARD_WAIT`]; to be awaited outside a table's
    /// task.
    pub async fn leaderboard(
        self: &Arc<Self>,
        family: Option<String>,
        vs: Option<String>,
    ) -> Result<Arc<str>, String> {
        let key = key(family, vs);
        let mut rx = {
            let written = self.written.load(Ordering::Acquire);
            let mut slots = self.slots();
            if !slots.contains_key(&key) && slots.len() >= BOARDS_KEPT {
                // Forget the least used leaderboard no query is reading.
                let old = slots.iter().filter(|(_, s)| s.running.is_none()).min_by_key(|(_, s)| s.used);
                if let Some(k) = old.map(|(k, _)| k.clone()) {
                    slots.remove(&k);
                }
            }
            let slot = slots.entry(key.clone()).or_insert_with(|| Slot {
                kept: None,
                running: None,
                used: Instant::now(),
            });
            slot.used = Instant::now();
            match (&slot.kept, &slot.running) {
                (Some((at, text)), _) if *at == written => return Ok(text.clone()),
                (_, Some(rx)) => rx.clone(),
                _ => {
                    let (tx, rx) = watch::channel(None);
                    slot.running = Some(rx.clone());
                    tokio::spawn(self.clone().read_board(key, written, tx));
                    rx
                }
            }
        };
        match tokio::time::timeout(LEADERBOARD_WAIT, rx.wait_for(Option::is_some)).await {
            Ok(Ok(a)) => a.clone().unwrap_or_else(|| Err("no leaderboard".into())),
            Ok(Err(_)) => Err("the leaderboard could not be read".into()),
            Err(_) => Err("the leaderboard is taking long to read: try again in a moment".into()),
        }
    }

    /// Reads a filter's leaderboard (one read at a time, server-wide) and
    /// keeps it, as of `written` results.
    async fn read_board(self: Arc<Self>, key: Key, written: u64, tx: watch::Sender<Answer>) {
        let r = match self.reads.clone().acquire_owned().await {
            Ok(permit) => {
                let (dir, (family, vs)) = (self.data_dir.clone(), key.clone());
                let job = tokio::task::spawn_blocking(move || {
                    let _permit = permit;
                    lower_priority();
                    board(&dir, family, vs).map(|v| Arc::<str>::from(v.to_string()))
                });
                job.await.map_err(|e| e.to_string()).and_then(|x| x)
            }
            Err(e) => Err(e.to_string()),
        };
        if let Some(slot) = self.slots().get_mut(&key) {
            slot.running = None;
            if let Ok(text) = &r {
                slot.kept = Some((written, text.clone()));
            }
        }
        let _ = tx.send(Some(r));
    }

    /// Runs a write on a blocking thread; a leaderboard read before it is
    /// out of date once it is done.
    async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Path) -> T + Send + 'static,
    ) -> Result<T, String> {
        let permit = self.writes.clone().acquire_owned().await.map_err(|e| e.to_string())?;
        let dir = self.data_dir.clone();
        let r = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            lower_priority();
            f(&dir)
        })
        .await
        .map_err(|e| e.to_string());
        self.written.fetch_add(1, Ordering::AcqRel);
        r
    }

    /// Writes a finished game; what became of it in words, and the game's
    /// id in the database if it is there now (not when it is only kept for
    /// later, or not recorded). To be awaited outside a table's task.
    pub async fn game(
        &self,
        kind: [&str; 3],
        seats: [(String, Player); 2],
        end: &End,
    ) -> (String, Option<i64>) {
        let rec = game_record(kind, seats, end, SystemTime::now());
        let r = self.write(move |dir| results::store(dir, &Contest::Game(rec))).await;
        let id = r.as_ref().ok().and_then(Stored::id);
        (said(r, "the game"), id)
    }

    /// Sets each seat's accuracy (a review's) on the game recorded as
    /// `game_id`; what became of it in words. To be awaited outside a
    /// table's task.
    pub async fn accuracy(&self, game_id: i64, accuracy: [Option<f64>; 2]) -> String {
        let r = self
            .write(move |dir| Results::open(dir).and_then(|mut db| db.set_accuracy(game_id, accuracy)))
            .await
            .and_then(|x| x);
        match r {
            Ok(()) => "each side's accuracy is stored with the game's result".to_string(),
            Err(e) => {
                log::warn!("gui: results: accuracy of game {game_id}: {e}");
                format!("the accuracy was not stored: {e}")
            }
        }
    }

    /// Writes a finished match with its rounds; what became of it in
    /// words. To be awaited outside a table's task.
    #[allow(clippy::too_many_arguments)]
    pub async fn matched(
        &self,
        family: &str,
        game_type: &str,
        players: [Player; 2],
        planned: u32,
        rounds: &[RoundDone],
        result: Outcome,
        ending: Ending,
    ) -> String {
        let rec = MatchRecord {
            when: SystemTime::now(),
            family: family.to_string(),
            game_type: game_type.to_string(),
            players,
            rounds_planned: planned,
            rounds: rounds
                .iter()
                .map(|r| Round {
                    game_string: r.game_string.clone(),
                    sides: r.sides.clone(),
                    result: r.result,
                    ending: r.ending,
                    points: r.points,
                })
                .collect(),
            result,
            ending,
            place: Place::Gui,
        };
        said(self.write(move |dir| results::store(dir, &Contest::Match(rec))).await, "the match")
    }
}

/// A filter as a key: blank is none.
fn key(family: Option<String>, vs: Option<String>) -> Key {
    let f = |s: Option<String>| s.map(|x| x.trim().to_string()).filter(|x| !x.is_empty());
    (f(family), f(vs))
}

/// The database's work yields to the tables and engines: the thread
/// running it gets a lower CPU priority (Linux sets it per thread).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its arguments; `who` 0 is the
    // calling thread on Linux.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS as _, 0, 10);
    }
}

/// What became of the result, in words (kept for later when the database
/// cannot be written: `results::store`).
fn said(r: Result<Stored, String>, what: &str) -> String {
    match r {
        Ok(stored) => stored.words(what),
        Err(e) => {
            log::warn!("gui: results: {e}");
            format!("{what} was not recorded: {e}")
        }
    }
}

fn board(dir: &Path, family: Option<String>, vs: Option<String>) -> Result<Value, String> {
    let filter = filter_of(family, vs.clone())?;
    let Some(db) = Results::open_existing(dir)? else {
        return Ok(leaderboard_json(&filter, vs, None));
    };
    let b = db.board(&filter, DEFAULT_TOP)?;
    let all = db.board(&Filter { family: filter.family.clone(), opponent: None }, 1000)?;
    Ok(leaderboard_json(&filter, vs, Some((b, all))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(t: Result<Arc<str>, String>) -> Value {
        serde_json::from_str(&t.unwrap()).unwrap()
    }

    #[tokio::test]
    async fn games_and_the_leaderboard_through_the_database() {
        let dir = std::env::temp_dir().join(format!("meeple-gui-record-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let r = Recorder::new(dir.clone());
        let b = parse(r.leaderboard(None, None).await);
        assert_eq!(b["empty"], true);
        let end = End::of_board(&json!({"state": "RedWins", "sides": ["Red", "Yellow"]})).unwrap();
        let seats = |a: &str| {
            [
                ("Red".to_string(), Player::person(a)),
                ("Yellow".to_string(), Player::engine("perfect", "movetime 100")),
            ]
        };
        // Kept until a result is written.
        assert!(r.kept(None, Some(" ".into())).is_some());
        let (said, id) = r
            .game(["Connect4", "Connect4", "Connect4;RedWins;Yellow[4];4;4;4;4;4;4;4"], seats("Ann"), &end)
            .await;
        assert_eq!(said, "the game is on the leaderboard");
        assert!(id.is_some(), "a game in the database has its id");
        assert!(r.kept(None, None).is_none());
        r.game(["Connect4", "Connect4", "Connect4;RedWins;Yellow[4]"], seats("Bob"), &end).await;
        let b = parse(r.leaderboard(Some("Connect4".into()), None).await);
        assert_eq!(b["people"][0]["name"], "Ann");
        assert_eq!(b["people"][0]["wins"], 1);
        // Each person's mean accuracy in reviewed games: none yet.
        assert!(b["people"][0]["accuracy"].is_null() && b["people"][0]["reviewed"] == 0, "{b}");
        assert_eq!(b["engines"][0]["losses"], 2);
        assert!(b["opponents"].as_array().unwrap().iter().any(|o| o["vs"] == "engine:perfect:movetime 100"));
        assert_eq!(
            r.kept(Some("Connect4".into()), None)
                .as_deref()
                .map(|t| serde_json::from_str::<Value>(t).unwrap()),
            Some(b)
        );
        let b = parse(r.leaderboard(None, Some("person:Nobody".into())).await);
        assert_eq!(b["people"].as_array().unwrap().len(), 0);
        assert!(r.leaderboard(None, Some("engine:".into())).await.is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Many browsers asking the same leaderboard at once: one query.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_query_for_everybody_asking_at_once() {
        let dir = std::env::temp_dir().join(format!("meeple-gui-record-many-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let r = Recorder::new(dir.clone());
        let end = End::of_board(&json!({"state": "RedWins", "sides": ["Red", "Yellow"]})).unwrap();
        let seats =
            [("Red".to_string(), Player::person("Ann")), ("Yellow".to_string(), Player::person("Bob"))];
        r.game(["Connect4", "Connect4", "Connect4;RedWins;Yellow[4]"], seats, &end).await;
        let asks: Vec<_> = (0..20)
            .map(|_| {
                let r = r.clone();
                tokio::spawn(async move { r.leaderboard(Some("Connect4".into()), None).await })
            })
            .collect();
        let mut texts = Vec::new();
        for a in asks {
            texts.push(a.await.unwrap().unwrap());
        }
        // The same text, shared: read once.
        assert!(texts.iter().all(|t| Arc::ptr_eq(t, &texts[0])));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
