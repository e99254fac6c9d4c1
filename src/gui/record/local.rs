//! The results in the offline page: kept in the browser's storage
//! ([`crate::results::local`], whose text the page's
//! `meepleOffline.readResults()` / `writeResults(text)` keep in
//! localStorage), checked as the database checks them; the leaderboard as
//! the server's.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use wasm_bindgen::prelude::*;

use crate::results::local::{Kept, Local};
use crate::results::{DEFAULT_TOP, Ending, Filter, MatchRecord, Outcome, Place, Player, Round};

use super::{End, filter_of, game_record, leaderboard_json};
use crate::gui::rounds::RoundDone;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = meepleOffline, js_name = readResults)]
    fn read_results() -> Option<String>;
    /// True if the text was kept.
    #[wasm_bindgen(js_namespace = meepleOffline, js_name = writeResults)]
    fn write_results(text: &str) -> bool;
}

/// The kept results (one page, one thread).
pub struct Recorder {
    kept: Mutex<Local>,
    /// Why the kept results could not be read, said with every record.
    damaged: Option<String>,
}

/// Now, from the browser's clock (std's panics on the web).
fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(js_sys::Date::now() as u64)
}

impl Recorder {
    /// The results kept in the browser. A damaged text is not overwritten
    /// (the leaderboard starts empty and the page says why).
    pub fn new() -> Arc<Recorder> {
        let (kept, damaged) = match read_results() {
            None => (Local::new(), None),
            Some(t) => match Local::from_json(&t) {
                Ok(l) => (l, None),
                Err(e) => {
                    log::error!("gui: {e}");
                    (Local::new(), Some(e))
                }
            },
        };
        Arc::new(Recorder { kept: Mutex::new(kept), damaged })
    }

    fn results(&self) -> MutexGuard<'_, Local> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The leaderboard, at once.
    pub fn kept(&self, family: Option<String>, vs: Option<String>) -> Option<Arc<str>> {
        Some(
            self.board(family, vs)
                .unwrap_or_else(|e| Arc::from(serde_json::json!({"t": "error", "text": e}).to_string())),
        )
    }

    pub async fn leaderboard(&self, family: Option<String>, vs: Option<String>) -> Result<Arc<str>, String> {
        self.board(family, vs)
    }

    fn board(&self, family: Option<String>, vs: Option<String>) -> Result<Arc<str>, String> {
        let filter = filter_of(family, vs.clone())?;
        let kept = self.results();
        let boards = (!kept.is_empty()).then(|| {
            let all = kept.board(&Filter { family: filter.family.clone(), opponent: None }, 1000);
            (kept.board(&filter, DEFAULT_TOP), all)
        });
        Ok(Arc::from(leaderboard_json(&filter, vs, boards).to_string()))
    }

    fn keep(&self, c: Kept, what: &str) -> String {
        if let Some(e) = &self.damaged {
            return format!("{what} was not recorded: {e}");
        }
        let mut kept = self.results();
        let before = kept.clone();
        if let Err(e) = kept.add(c) {
            return format!("{what} was not recorded: {e}");
        }
        if write_results(&kept.to_json()) {
            format!("{what} is on the leaderboard")
        } else {
            *kept = before;
            format!("{what} was not recorded: the browser's storage is full or refused")
        }
    }

    /// Keeps a finished game; what became of it in words, and the game's
    /// id among the kept results if it was kept.
    pub async fn game(
        &self,
        kind: [&str; 3],
        seats: [(String, Player); 2],
        end: &End,
    ) -> (String, Option<i64>) {
        let before = self.results().added();
        let said = self.keep(Kept::Game(game_record(kind, seats, end, now())), "the game");
        let after = self.results().added();
        (said, (after != before).then_some(after as i64))
    }

    /// Sets each seat's accuracy (a review's) on the game kept as
    /// `game_id`; what became of it in words.
    pub async fn accuracy(&self, game_id: i64, accuracy: [Option<f64>; 2]) -> String {
        if let Some(e) = &self.damaged {
            return format!("the accuracy was not stored: {e}");
        }
        let mut kept = self.results();
        let before = kept.clone();
        if let Err(e) = kept.set_accuracy(game_id as u64, accuracy) {
            return format!("the accuracy was not stored: {e}");
        }
        if write_results(&kept.to_json()) {
            "each side's accuracy is stored with the game's result".to_string()
        } else {
            *kept = before;
            "the accuracy was not stored: the browser's storage is full or refused".to_string()
        }
    }

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
            when: now(),
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
        self.keep(Kept::Match(rec), "the match")
    }
}
