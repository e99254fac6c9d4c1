//! The tables' results: every finished game with a person in it, and every
//! match, recorded, and the leaderboard read back for the page. Natively
//! they go to the data directory's results database (`meeple::results`),
//! opened for each record or query (cheap) on a blocking thread
//! ([`Recorder`] in `record/database.rs`), so no table's task ever waits on
//! the disk, on a long query or on a database another process has locked.
//! In the offline page (WebAssembly) they are kept in the browser's storage
//! (`record/local.rs`, [`crate::results::local`]) with the same checks, and
//! the leaderboard has the same shape. This file is what both share.

use serde_json::{Value, json};

use crate::results::{Board, Ending, Filter, GameRecord, Opponent, Outcome, Place, Player, Seat};

#[cfg(not(target_arch = "wasm32"))]
mod database;
#[cfg(target_arch = "wasm32")]
mod local;

#[cfg(not(target_arch = "wasm32"))]
pub use database::*;
#[cfg(target_arch = "wasm32")]
pub use local::*;

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

/// The record of a finished game played at a GUI table, at `when`.
pub fn game_record(
    kind: [&str; 3],
    seats: [(String, Player); 2],
    end: &End,
    when: std::time::SystemTime,
) -> GameRecord {
    let [family, game_type, game_string] = kind;
    let [(s0, p0), (s1, p1)] = seats;
    GameRecord {
        when,
        family: family.to_string(),
        game_type: game_type.to_string(),
        game_string: game_string.to_string(),
        seats: [Seat::new(&s0, p0), Seat::new(&s1, p1)],
        result: end.outcome,
        ending: end.ending,
        place: Place::Gui,
    }
}

/// The leaderboard's filter from the page's choice (blank is none).
pub fn filter_of(family: Option<String>, vs: Option<String>) -> Result<Filter, String> {
    let family = family.map(|f| f.trim().to_string()).filter(|f| !f.is_empty());
    let opponent = match vs.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(v) => Some(Opponent::parse(v)?),
    };
    Ok(Filter { family, opponent })
}

/// The `leaderboard` message: `b`, the board of the filter, and `all`,
/// the family's board against anyone (its people and engine levels are the
/// opponents to choose from); `None` when nothing was ever recorded.
pub fn leaderboard_json(filter: &Filter, vs: Option<String>, boards: Option<(Board, Board)>) -> Value {
    let family = filter.family.clone();
    let Some((b, all)) = boards else {
        return json!({"t": "leaderboard", "what": filter.describe(), "empty": true,
            "people": [], "engines": [], "opponents": [], "family": family, "vs": vs});
    };
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
    json!({"t": "leaderboard", "what": filter.describe(), "empty": false, "family": family, "vs": vs,
        "people": b.people, "engines": b.engines, "opponents": opponents})
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
}
