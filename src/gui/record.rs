//! The table's results: every finished game with a person in it, and every
//! match, written to the data directory's results database
//! (`meeple::results`), and the leaderboard read back for the page. The
//! database is opened for each record (cheap) on a blocking thread, so
//! the table's task never waits on the disk.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::results::{
    self, Contest, DEFAULT_TOP, Ending, Filter, GameRecord, MatchRecord, Opponent, Outcome, Place, Player,
    Results, Round, Seat,
};

use super::rounds::RoundDone;

/// How a game ended, as the table saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct End {
    pub outcome: Outcome,
    pub ending: Ending,
    /// The result in words (`Yellow wins on time`).
    pub text: String,
}

impl End {
    /// The end a finished position's `board json` shows (`RedWins`,
    /// `Draw`), if it is over.
    pub fn of_board(board: &Value) -> Option<End> {
        let state = board["state"].as_str()?;
        let sides: Vec<&str> = board["sides"].as_array()?.iter().filter_map(Value::as_str).collect();
        let caption = board["caption"].as_str().unwrap_or("");
        let outcome = if state == "Draw" {
            Outcome::Draw
        } else if let Some(w) = state.strip_suffix("Wins") {
            if sides.first() == Some(&w) { Outcome::First } else { Outcome::Second }
        } else {
            return None;
        };
        let text = match outcome {
            Outcome::Draw if caption.is_empty() => "Draw".to_string(),
            _ if !caption.is_empty() => caption.to_string(),
            Outcome::First => format!("{} wins", sides.first().unwrap_or(&"")),
            _ => format!("{} wins", sides.get(1).unwrap_or(&"")),
        };
        Some(End { outcome, ending: Ending::Normal, text })
    }

    /// `side` lost by `ending` (time, resignation): the other side wins.
    pub fn lost(sides: &[String; 2], side: usize, ending: Ending) -> End {
        let winner = 1 - side;
        let how = match ending {
            Ending::Time => format!("{} ran out of time", sides[side]),
            Ending::Resignation => format!("{} resigned", sides[side]),
            _ => format!("{} lost", sides[side]),
        };
        End {
            outcome: if winner == 0 { Outcome::First } else { Outcome::Second },
            ending,
            text: format!("{} wins: {how}", sides[winner]),
        }
    }

    /// The winning side, if any.
    pub fn winner(&self) -> Option<usize> {
        match self.outcome {
            Outcome::First => Some(0),
            Outcome::Second => Some(1),
            Outcome::Draw => None,
        }
    }
}

/// Who played a side, for the database: a person by name, or an engine by
/// strategy and level.
pub fn player(person: Option<&str>, strategy: &str, level: &str) -> Player {
    match person {
        Some(n) => Player::person(n),
        None => Player::engine(strategy, level),
    }
}

/// Writes a finished game; what became of it in words.
pub async fn game(
    data_dir: PathBuf,
    family: &str,
    game_type: &str,
    game_string: &str,
    seats: [(String, Player); 2],
    end: &End,
) -> String {
    let [(s0, p0), (s1, p1)] = seats;
    let rec = GameRecord {
        when: SystemTime::now(),
        family: family.to_string(),
        game_type: game_type.to_string(),
        game_string: game_string.to_string(),
        seats: [Seat { side: s0, player: p0, accuracy: None }, Seat { side: s1, player: p1, accuracy: None }],
        result: end.outcome,
        ending: end.ending,
        place: Place::Gui,
    };
    let r = tokio::task::spawn_blocking(move || results::store(&data_dir, &Contest::Game(rec))).await;
    said(r, "the game")
}

/// Writes a finished match with its rounds; what became of it in words.
#[allow(clippy::too_many_arguments)]
pub async fn matched(
    data_dir: PathBuf,
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
    let r = tokio::task::spawn_blocking(move || results::store(&data_dir, &Contest::Match(rec))).await;
    said(r, "the match")
}

/// What became of the result, in words (kept for later when the database
/// cannot be written: `results::store`).
fn said(r: Result<results::Stored, tokio::task::JoinError>, what: &str) -> String {
    match r {
        Ok(stored) => stored.words(what),
        Err(e) => {
            log::warn!("gui: results: {e}");
            format!("{what} was not recorded: {e}")
        }
    }
}

/// The leaderboard for the page: the top people by wins and each engine
/// level's record against people, over one family's games (or all) and
/// one opponent's (or all); with the opponents there are to choose from.
pub async fn leaderboard(
    data_dir: &Path,
    family: Option<String>,
    vs: Option<String>,
) -> Result<Value, String> {
    let dir = data_dir.to_path_buf();
    tokio::task::spawn_blocking(move || board(&dir, family, vs)).await.map_err(|e| e.to_string())?
}

fn board(dir: &Path, family: Option<String>, vs: Option<String>) -> Result<Value, String> {
    let family = family.filter(|f| !f.trim().is_empty());
    let opponent = match vs.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(v) => Some(Opponent::parse(v)?),
    };
    let filter = Filter { family: family.clone(), opponent };
    let Some(db) = Results::open_existing(dir)? else {
        return Ok(json!({"t": "leaderboard", "what": filter.describe(), "empty": true,
            "people": [], "engines": [], "opponents": [], "family": family, "vs": vs}));
    };
    let b = db.board(&filter, DEFAULT_TOP)?;
    // Opponents to choose from: every engine level and person of the family.
    let all = db.board(&Filter { family: family.clone(), opponent: None }, 1000)?;
    let mut opponents: Vec<Value> = all
        .engines
        .iter()
        .map(|e| {
            let label =
                if e.level.is_empty() { e.strategy.clone() } else { format!("{} ({})", e.strategy, e.level) };
            json!({"vs": format!("engine:{}:{}", e.strategy, e.level), "label": format!("engine {label}")})
        })
        .collect();
    opponents.extend(all.people.iter().map(|p| json!({"vs": format!("person:{}", p.name), "label": p.name})));
    Ok(json!({"t": "leaderboard", "what": filter.describe(), "empty": false, "family": family, "vs": vs,
        "people": b.people, "engines": b.engines, "opponents": opponents}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_in_words() {
        let b = json!({"state": "YellowWins", "sides": ["Red", "Yellow"], "caption": ""});
        let e = End::of_board(&b).unwrap();
        assert_eq!((e.outcome, e.text.as_str(), e.winner()), (Outcome::Second, "Yellow wins", Some(1)));
        let b = json!({"state": "InProgress", "sides": ["Red", "Yellow"]});
        assert_eq!(End::of_board(&b), None);
        let b = json!({"state": "BreakerWins", "sides": ["Breaker", "Maker"],
            "caption": "Breaker wins in 5 rows; the secret was 1533"});
        assert_eq!(End::of_board(&b).unwrap().text, "Breaker wins in 5 rows; the secret was 1533");
        let sides = ["Red".to_string(), "Yellow".to_string()];
        let e = End::lost(&sides, 0, Ending::Time);
        assert_eq!((e.outcome, e.text.as_str()), (Outcome::Second, "Yellow wins: Red ran out of time"));
    }

    #[tokio::test]
    async fn games_and_the_leaderboard_through_the_database() {
        let dir = std::env::temp_dir().join(format!("meeple-gui-record-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let b = leaderboard(&dir, None, None).await.unwrap();
        assert_eq!(b["empty"], true);
        let end = End::of_board(&json!({"state": "RedWins", "sides": ["Red", "Yellow"]})).unwrap();
        let seats = |a: &str| {
            [
                ("Red".to_string(), Player::person(a)),
                ("Yellow".to_string(), Player::engine("perfect", "movetime 100")),
            ]
        };
        let said = game(
            dir.clone(),
            "Connect4",
            "Connect4",
            "Connect4;RedWins;Yellow[4];4;4;4;4;4;4;4",
            seats("Ann"),
            &end,
        )
        .await;
        assert_eq!(said, "the game is on the leaderboard");
        game(dir.clone(), "Connect4", "Connect4", "Connect4;RedWins;Yellow[4]", seats("Bob"), &end).await;
        let b = leaderboard(&dir, Some("Connect4".into()), None).await.unwrap();
        assert_eq!(b["people"][0]["name"], "Ann");
        assert_eq!(b["people"][0]["wins"], 1);
        // Each person's mean accuracy in reviewed games: none yet.
        assert!(b["people"][0]["accuracy"].is_null() && b["people"][0]["reviewed"] == 0, "{b}");
        assert_eq!(b["engines"][0]["losses"], 2);
        assert!(b["opponents"].as_array().unwrap().iter().any(|o| o["vs"] == "engine:perfect:movetime 100"));
        let b = leaderboard(&dir, None, Some("person:Nobody".into())).await.unwrap();
        assert_eq!(b["people"].as_array().unwrap().len(), 0);
        assert!(leaderboard(&dir, None, Some("engine:".into())).await.is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
