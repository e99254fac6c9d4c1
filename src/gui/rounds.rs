//! A match of rounds, as the Mastermind seed played it: an even number of
//! rounds, the two players swapping roles every round (codebreaker, then
//! codemaker), the codemaker scoring the rows the breaker used, plus one if
//! the code was not broken, a running score, and the player with more
//! points winning the match.
//!
//! The table is otherwise game-agnostic; what a round is worth and who
//! keeps the secret are Mastermind's, and live here.

use serde_json::{Value, json};

use crate::results::{Ending, Outcome};

/// The family whose matches of rounds the table plays.
pub const FAMILY: &str = "Mastermind";
/// Most rounds in a match.
pub const MAX_ROUNDS: u32 = 20;

/// The side match player `p` plays in round `r` (0-based): its own side in
/// even rounds, the other in odd ones. Its own inverse: the match player on
/// side `s` in round `r` is `side_of(s, r)`.
pub fn side_of(p: usize, r: usize) -> usize {
    (p + r) % 2
}

/// Checks a number of rounds for a family: 1 (a single game) or an even
/// number up to [`MAX_ROUNDS`] of Mastermind.
pub fn check(family: &str, rounds: u32) -> Result<(), String> {
    if rounds == 1 {
        return Ok(());
    }
    if family != FAMILY {
        return Err(format!("a match of rounds is played in {FAMILY} only"));
    }
    if rounds == 0 || rounds % 2 == 1 || rounds > MAX_ROUNDS {
        return Err(format!("a match has an even number of rounds, 2 to {MAX_ROUNDS}"));
    }
    Ok(())
}

/// Each side's points for a finished round, as the game scores them in its
/// `board json` (`scores`; the seed's rule lives with Mastermind's rules).
pub fn points_by_side(board: &Value) -> [u32; 2] {
    let side = |s: usize| board["scores"][s].as_u64().unwrap_or(0).min(u64::from(u32::MAX)) as u32;
    [side(0), side(1)]
}

/// The `Codemaker` value for a round of a Mastermind game: a person as
/// codemaker gives the feedback (`none`: the engine checks it is
/// possible); an engine keeps a secret (`random`) or answers adversarially
/// if so chosen.
pub fn codemaker(maker_is_person: bool, chosen: Option<&str>) -> &'static str {
    match (maker_is_person, chosen) {
        (true, _) => "none",
        (false, Some(c)) if c.eq_ignore_ascii_case("adversarial") => "adversarial",
        _ => "random",
    }
}

/// One finished round, in the match's player order.
#[derive(Clone, Debug)]
pub struct RoundDone {
    pub game_string: String,
    /// Each match player's side (`Breaker`, `Maker`).
    pub sides: [String; 2],
    pub result: Outcome,
    pub ending: Ending,
    pub points: [u32; 2],
}

/// A match in progress.
#[derive(Clone, Debug)]
pub struct Rounds {
    pub planned: u32,
    pub done: Vec<RoundDone>,
}

impl Rounds {
    pub fn new(planned: u32) -> Rounds {
        Rounds { planned, done: Vec::new() }
    }

    /// Each match player's points so far.
    pub fn points(&self) -> [u32; 2] {
        self.done.iter().fold([0, 0], |a, r| [a[0] + r.points[0], a[1] + r.points[1]])
    }

    pub fn over(&self) -> bool {
        self.done.len() as u32 >= self.planned
    }

    /// Adds a finished round: `board` is its final position, `round` its
    /// index, `forfeited` the side that lost it on time (or by
    /// resignation) before the rules ended it: that round is scored by the
    /// game's rule for a forfeit (`board json`'s `forfeit`) and won by the
    /// other side, as announced.
    pub fn add(
        &mut self,
        round: usize,
        board: &Value,
        game_string: &str,
        ending: Ending,
        forfeited: Option<usize>,
    ) {
        let by_side = match forfeited {
            Some(f) if board["forfeit"][f].is_array() => {
                points_by_side(&json!({"scores": board["forfeit"][f]}))
            }
            _ => points_by_side(board),
        };
        let names: Vec<String> = board["sides"]
            .as_array()
            .map(|a| a.iter().map(|s| s.as_str().unwrap_or("").to_string()).collect())
            .unwrap_or_default();
        let side = |p: usize| side_of(p, round);
        let points = [by_side[side(0)], by_side[side(1)]];
        let result = match forfeited {
            // Match player `p` plays side `side(p)`: the other one wins.
            Some(f) if side(0) == f => Outcome::Second,
            Some(_) => Outcome::First,
            None => match points[0].cmp(&points[1]) {
                std::cmp::Ordering::Greater => Outcome::First,
                std::cmp::Ordering::Less => Outcome::Second,
                std::cmp::Ordering::Equal => Outcome::Draw,
            },
        };
        let name = |s: usize| names.get(s).cloned().unwrap_or_default();
        self.done.push(RoundDone {
            game_string: game_string.to_string(),
            sides: [name(side(0)), name(side(1))],
            result,
            ending,
            points,
        });
    }

    /// The match's result by points.
    pub fn result(&self) -> Outcome {
        let [a, b] = self.points();
        match a.cmp(&b) {
            std::cmp::Ordering::Greater => Outcome::First,
            std::cmp::Ordering::Less => Outcome::Second,
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }

    /// For the page: rounds planned and played, each round's roles and
    /// points, the running score.
    pub fn to_json(&self, current: usize) -> Value {
        json!({
            "planned": self.planned,
            "round": current + 1,
            "points": self.points(),
            "over": self.over(),
            "done": self.done.iter().map(|r| json!({"sides": r.sides, "points": r.points})).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished round whose maker scored `maker` points.
    fn board(maker: u32) -> Value {
        json!({"scores": [0, maker], "sides": ["Breaker", "Maker"]})
    }

    /// The seed's scoring over four rounds: the maker scores the rows used,
    /// plus one if the code is not broken; roles alternate.
    #[test]
    fn four_rounds_scored_as_the_seed_did() {
        let mut m = Rounds::new(4);
        // Round 1: player 0 breaks in 4 rows: player 1 (maker) scores 4.
        m.add(0, &board(4), "gs1", Ending::Normal, None);
        // Round 2: player 1 breaks in 6 rows: player 0 scores 6.
        m.add(1, &board(6), "gs2", Ending::Normal, None);
        // Round 3: player 0 fails to break in 10 rows: player 1 scores 11.
        m.add(2, &board(11), "gs3", Ending::Normal, None);
        assert!(!m.over());
        // Round 4: player 1 breaks at once: player 0 scores 1.
        m.add(3, &board(1), "gs4", Ending::Normal, None);
        assert!(m.over());
        assert_eq!(m.points(), [7, 15]);
        assert_eq!(m.result(), Outcome::Second);
        assert_eq!(m.done[1].sides, ["Maker".to_string(), "Breaker".to_string()]);
        assert_eq!(m.done[1].points, [6, 0]);
        assert_eq!(m.done[1].result, Outcome::First);
        assert_eq!(m.to_json(3)["points"], json!([7, 15]));
    }

    /// Issue 43 item 1: a round the breaker loses on time after 3 rows
    /// scores for the maker what an unbroken code scores (the game's
    /// `forfeit`), and is won by the maker, as announced; a round the
    /// maker loses on time is the breaker's.
    #[test]
    fn a_round_lost_on_time_scores_the_forfeit_and_goes_to_the_other_side() {
        let in_progress = json!({"scores": [0, 3], "sides": ["Breaker", "Maker"],
            "forfeit": [[0, 11], [0, 4]]});
        let mut m = Rounds::new(2);
        // Round 1: match player 0 breaks and runs out of time.
        m.add(0, &in_progress, "gs1", Ending::Time, Some(0));
        assert_eq!((m.done[0].points, m.done[0].result), ([0, 11], Outcome::Second));
        // Round 2: match player 0 keeps the code (side 1) and runs out of time.
        m.add(1, &in_progress, "gs2", Ending::Time, Some(1));
        assert_eq!((m.done[1].points, m.done[1].result), ([4, 0], Outcome::Second));
        assert_eq!(m.points(), [4, 11]);
        assert_eq!(m.result(), Outcome::Second);
        // Without the field (another game), the board's scores count.
        let mut m = Rounds::new(2);
        m.add(0, &json!({"scores": [0, 3], "sides": ["A", "B"]}), "g", Ending::Time, Some(0));
        assert_eq!((m.done[0].points, m.done[0].result), ([0, 3], Outcome::Second));
    }

    #[test]
    fn rounds_are_even_and_mastermind_only() {
        assert!(check("Connect4", 1).is_ok());
        assert!(check("Connect4", 2).is_err());
        assert!(check(FAMILY, 3).is_err());
        assert!(check(FAMILY, 4).is_ok());
        assert!(check(FAMILY, 22).is_err());
        assert_eq!(side_of(0, 1), 1);
        assert_eq!(side_of(side_of(1, 3), 3), 1);
        assert_eq!(codemaker(true, Some("random")), "none");
        assert_eq!(codemaker(false, Some("none")), "random");
        assert_eq!(codemaker(false, Some("adversarial")), "adversarial");
    }
}
