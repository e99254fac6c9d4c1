//! Work the table hands off so that its task never waits on it: the
//! results database (a finished game's or match's record, a leaderboard a
//! browser asks for), each in a task of its own through the server's
//! [`Recorder`], its answer coming back to the table as a [`Done`] event.
//! A kept leaderboard is answered at once; a browser has at most one
//! leaderboard on its way at a time.

use std::collections::HashSet;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::gui::record::{End, Recorder};
use crate::gui::rounds::RoundDone;
use crate::gui::rt;
use crate::results::{Ending, Outcome, Player};

/// Answers waiting for the table before the tasks sending them wait.
const DONE_QUEUE: usize = 64;

/// An errand's answer.
pub enum Done {
    /// The leaderboard a browser asked for: the message's text, or why not.
    Leaderboard { client: u64, reply: Result<Arc<str>, String> },
    /// What became of game `game_no`'s record (or its match's), in words,
    /// and the game's id in the database if it is there now (a match's
    /// record has none).
    Recorded { game_no: u64, said: String, id: Option<i64> },
    /// What became of the accuracy of game `game_no` (its review's).
    Accuracy { game_no: u64, said: String },
}

/// What a leaderboard request comes to at once.
pub enum Asked {
    /// Kept: here it is.
    Now(Arc<str>),
    /// On its way (a [`Done::Leaderboard`]).
    Later,
}

/// A match to record: its players, rounds and result.
pub struct MatchDone {
    pub family: String,
    pub game_type: String,
    pub players: [Player; 2],
    pub planned: u32,
    pub rounds: Vec<RoundDone>,
    pub result: Outcome,
}

/// The errands of a table.
pub struct Errands {
    tx: mpsc::Sender<Done>,
    rx: mpsc::Receiver<Done>,
    /// Browsers with a leaderboard on its way.
    asking: HashSet<u64>,
}

impl Default for Errands {
    fn default() -> Self {
        let (tx, rx) = mpsc::channel(DONE_QUEUE);
        Errands { tx, rx, asking: HashSet::new() }
    }
}

impl Errands {
    /// The next answer (cancel-safe; never ends: the table holds a sender).
    pub async fn next(&mut self) -> Done {
        loop {
            if let Some(d) = self.rx.recv().await {
                if let Done::Leaderboard { client, .. } = &d {
                    self.asking.remove(client);
                }
                return d;
            }
        }
    }

    /// A browser asks for a leaderboard: kept, or read in a task of its
    /// own. Refused while the browser's last one is on its way.
    pub fn leaderboard(
        &mut self,
        results: &Arc<Recorder>,
        client: u64,
        family: Option<String>,
        vs: Option<String>,
    ) -> Result<Asked, String> {
        if let Some(text) = results.kept(family.clone(), vs.clone()) {
            return Ok(Asked::Now(text));
        }
        if !self.asking.insert(client) {
            return Err("the leaderboard you asked for is on its way".into());
        }
        let (results, tx) = (results.clone(), self.tx.clone());
        rt::spawn(async move {
            let reply = results.leaderboard(family, vs).await;
            let _ = tx.send(Done::Leaderboard { client, reply }).await;
        });
        Ok(Asked::Later)
    }

    /// Records a finished game in a task of its own.
    pub fn record_game(
        &self,
        results: &Arc<Recorder>,
        game_no: u64,
        kind: [String; 3],
        seats: [(String, Player); 2],
        end: End,
    ) {
        let (results, tx) = (results.clone(), self.tx.clone());
        rt::spawn(async move {
            let [family, game_type, game_string] = kind;
            let (said, id) = results.game([&family, &game_type, &game_string], seats, &end).await;
            let _ = tx.send(Done::Recorded { game_no, said, id }).await;
        });
    }

    /// Records a finished match in a task of its own.
    pub fn record_match(&self, results: &Arc<Recorder>, game_no: u64, m: MatchDone) {
        let (results, tx) = (results.clone(), self.tx.clone());
        rt::spawn(async move {
            let said = results
                .matched(&m.family, &m.game_type, m.players, m.planned, &m.rounds, m.result, Ending::Normal)
                .await;
            let _ = tx.send(Done::Recorded { game_no, said, id: None }).await;
        });
    }

    /// Stores the accuracy of game `game_no`, recorded as `id`, in a task
    /// of its own.
    pub fn store_accuracy(&self, results: &Arc<Recorder>, game_no: u64, id: i64, accuracy: [Option<f64>; 2]) {
        let (results, tx) = (results.clone(), self.tx.clone());
        rt::spawn(async move {
            let said = results.accuracy(id, accuracy).await;
            let _ = tx.send(Done::Accuracy { game_no, said }).await;
        });
    }
}
