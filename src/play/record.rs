//! What a terminal game keeps: its result in the results database
//! (`crate::results`, the database the leaderboard reads), and the two
//! things of Mastermind that no other game has, kept here in one place:
//! the codemaker's secret, which a person keeps in their head (so the
//! engine must hold none and accepts any feedback that fits the rows), and
//! the match of rounds with the seed's scoring (the codemaker scores the
//! rows used, plus one if the code is not broken).

use std::path::Path;
use std::time::SystemTime;

use super::board::{Board, Ending};
use crate::results::{self, Filter, GameRecord, MatchRecord, Outcome, Place, Player, Results, Round, Seat};

/// The family whose games are played in matches of rounds.
const MATCH_FAMILY: &str = "Mastermind";

/// True if this family plays matches of rounds (`--rounds`).
pub fn plays_matches(family: &str) -> bool {
    family.eq_ignore_ascii_case(MATCH_FAMILY)
}

/// The side that keeps a secret a person holds in their head (the
/// codemaker), if the family has one.
pub fn secret_side(family: &str) -> Option<usize> {
    plays_matches(family).then_some(1)
}

/// The codemaker's option for a new game: no secret in the engine when a
/// person keeps the code, else `keep` (what `--set` asked, or the
/// default, a secret drawn at random).
pub fn codemaker_option(person_keeps: bool, keep: Option<&str>) -> String {
    let value = if person_keeps { "none" } else { keep.unwrap_or("random") };
    format!("setoption name {MATCH_FAMILY}.Codemaker value {value}")
}

/// A round's points by side (breaker, maker), as the game scores them in
/// its `board json` (the seed's rule lives with Mastermind's rules): a
/// round the rules ended by its `scores`; one that side `forfeited`
/// (resigned) before by its `forfeit` entry for that side (the code not
/// broken if the breaker gave up).
pub fn round_points(b: &Board, forfeited: Option<usize>) -> [u32; 2] {
    let by_side = match (forfeited, b.forfeit) {
        (Some(side), Some(f)) => Some(f[side.min(1)]),
        _ => b.scores,
    };
    by_side.map(|s| s.map(|p| p.clamp(0, i64::from(u32::MAX)) as u32)).unwrap_or_default()
}

/// The result of a game by seat (seat 1 = side 0).
pub fn outcome(ending: Ending) -> Outcome {
    match ending {
        Ending::Win(0) => Outcome::First,
        Ending::Win(_) => Outcome::Second,
        Ending::Draw => Outcome::Draw,
    }
}

/// The record of a finished game.
pub fn game_record(
    b: &Board,
    game_string: &str,
    players: [Player; 2],
    ending: Ending,
    how: results::Ending,
) -> GameRecord {
    let [p0, p1] = players;
    GameRecord {
        when: SystemTime::now(),
        family: b.family.clone(),
        game_type: b.game_type.clone(),
        game_string: game_string.to_string(),
        seats: [Seat::new(&b.sides[0], p0), Seat::new(&b.sides[1], p1)],
        result: outcome(ending),
        ending: how,
        place: Place::Play,
    }
}

/// A match in progress: the players (the first is the person who started
/// it) and the rounds so far.
pub struct MatchScore {
    pub family: String,
    pub game_type: String,
    pub players: [Player; 2],
    pub planned: u32,
    pub rounds: Vec<Round>,
}

impl MatchScore {
    /// Adds a finished round in which match player `p` held side
    /// `sides_of[p]`; `resigned`: the side that resigned it, if one did.
    pub fn add(
        &mut self,
        b: &Board,
        game_string: &str,
        sides_of: [usize; 2],
        ending: Ending,
        resigned: Option<usize>,
    ) {
        let by_side = round_points(b, resigned);
        let how = if resigned.is_some() { results::Ending::Resignation } else { results::Ending::Normal };
        let winner_side = match ending {
            Ending::Win(s) => Some(s),
            Ending::Draw => None,
        };
        let result = match winner_side {
            Some(s) if s == sides_of[0] => Outcome::First,
            Some(_) => Outcome::Second,
            None => Outcome::Draw,
        };
        self.rounds.push(Round {
            game_string: game_string.to_string(),
            sides: [b.sides[sides_of[0]].clone(), b.sides[sides_of[1]].clone()],
            result,
            ending: how,
            points: [by_side[sides_of[0]], by_side[sides_of[1]]],
        });
    }

    /// Each player's points so far.
    pub fn points(&self) -> [u64; 2] {
        let sum = |i: usize| self.rounds.iter().map(|r| u64::from(r.points[i])).sum();
        [sum(0), sum(1)]
    }

    /// The match as recorded: ended normally (the player with more points
    /// wins), or by `loser`'s resignation.
    pub fn record(&self, resigned_by: Option<usize>) -> MatchRecord {
        let p = self.points();
        let (result, ending) = match resigned_by {
            Some(0) => (Outcome::Second, results::Ending::Resignation),
            Some(_) => (Outcome::First, results::Ending::Resignation),
            None => (
                match p[0].cmp(&p[1]) {
                    std::cmp::Ordering::Greater => Outcome::First,
                    std::cmp::Ordering::Less => Outcome::Second,
                    std::cmp::Ordering::Equal => Outcome::Draw,
                },
                results::Ending::Normal,
            ),
        };
        MatchRecord {
            when: SystemTime::now(),
            family: self.family.clone(),
            game_type: self.game_type.clone(),
            players: self.players.clone(),
            rounds_planned: self.planned,
            rounds: self.rounds.clone(),
            result,
            ending,
            place: Place::Play,
        }
    }
}

/// What recording said, for the person: where it went and the people's
/// records now, or why it failed.
pub fn store(data_dir: &Path, game: Option<&GameRecord>, m: Option<&MatchRecord>) -> String {
    store_with_id(data_dir, game, m).0
}

/// [`store`], with the id of the game or match in the database once it
/// is there (for its review's accuracy).
pub fn store_with_id(
    data_dir: &Path,
    game: Option<&GameRecord>,
    m: Option<&MatchRecord>,
) -> (String, Option<i64>) {
    store_words(data_dir, game, m)
}

fn store_words(data_dir: &Path, game: Option<&GameRecord>, m: Option<&MatchRecord>) -> (String, Option<i64>) {
    let people: Vec<String> = match (game, m) {
        (Some(g), _) => g.seats.iter().filter_map(|s| person_name(&s.player)).collect(),
        (None, Some(m)) => m.players.iter().filter_map(person_name).collect(),
        (None, None) => Vec::new(),
    };
    if people.is_empty() {
        return (String::new(), None);
    }
    let contest = match (game, m) {
        (Some(g), _) => results::Contest::Game(g.clone()),
        (None, Some(m)) => results::Contest::Match(m.clone()),
        (None, None) => return (String::new(), None),
    };
    // Kept for later when the database cannot be written.
    let stored = results::store(data_dir, &contest);
    let results::Stored::Recorded { id, path, flushed } = &stored else {
        return (format!("{}.", stored.words("The result")), None);
    };
    let Ok(Some(r)) = Results::open_existing(data_dir) else {
        return (format!("{}.", stored.words("The result")), Some(*id));
    };
    let mut text = format!("Recorded in {} (meeple leaderboard shows it).", path.display());
    if *flushed > 0 {
        text.push_str(&format!(" With it, {flushed} kept earlier."));
    }
    for name in people {
        if let Ok(Some(row)) = r.person_record(&name, &Filter::default()) {
            let c = &row.record;
            text.push_str(&format!(
                "\n{}: {} won, {} lost, {} drawn in {} game{}.",
                row.name,
                c.wins,
                c.losses,
                c.draws,
                c.games,
                if c.games == 1 { "" } else { "s" }
            ));
        }
    }
    (text, Some(*id))
}

fn person_name(p: &Player) -> Option<String> {
    match p {
        Player::Person { name } => Some(name.clone()),
        Player::Engine { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished round whose codemaker scored `maker` points.
    fn board(family: &str, maker: i64) -> Board {
        Board {
            family: family.into(),
            game_type: family.into(),
            sides: ["Breaker".into(), "Maker".into()],
            scores: Some([0, maker]),
            ..Board::default()
        }
    }

    /// The seed's rule itself is tested with Mastermind's rules
    /// (games::mastermind::tests); here, the points are read from the board.
    #[test]
    fn a_rounds_points_are_the_boards_and_mastermind_plays_matches() {
        assert_eq!(round_points(&board("Mastermind", 4), None), [0, 4]);
        assert_eq!(round_points(&board("Mastermind", 11), None), [0, 11]);
        assert_eq!(round_points(&Board::default(), None), [0, 0]);
        assert!(plays_matches("mastermind") && !plays_matches("Connect4"));
        assert_eq!(secret_side("Mastermind"), Some(1));
        assert_eq!(secret_side("Hive"), None);
        assert_eq!(
            codemaker_option(true, Some("adversarial")),
            "setoption name Mastermind.Codemaker value none"
        );
        assert_eq!(codemaker_option(false, None), "setoption name Mastermind.Codemaker value random");
    }

    /// A round resigned before the rules ended it is scored by the board's
    /// `forfeit` entry of the side that resigned (the rule itself is
    /// Mastermind's: games::mastermind::view), and recorded as a
    /// resignation won by the other side.
    #[test]
    fn a_resigned_round_scores_the_boards_forfeit_for_that_side() {
        let b = Board {
            family: "Mastermind".into(),
            game_type: "Mastermind".into(),
            sides: ["Breaker".into(), "Maker".into()],
            state: "InProgress".into(),
            forfeit: Some([[0, 11], [0, 3]]),
            ..Board::default()
        };
        assert_eq!(round_points(&b, Some(0)), [0, 11]);
        assert_eq!(round_points(&b, Some(1)), [0, 3]);
        assert_eq!(round_points(&b, None), [0, 0], "not over, not forfeited: no points");
        let mut m = MatchScore {
            family: "Mastermind".into(),
            game_type: "Mastermind".into(),
            players: [Player::person("Ann"), Player::engine("entropy", "movetime 1000")],
            planned: 2,
            rounds: Vec::new(),
        };
        // Ann breaks and resigns after three rows: the engine, keeping the
        // code, scores it as not broken.
        m.add(&b, "g1", [0, 1], Ending::Win(1), Some(0));
        assert_eq!(m.rounds[0].points, [0, 11]);
        assert_eq!((m.rounds[0].result, m.rounds[0].ending), (Outcome::Second, results::Ending::Resignation));
        // Ann keeps the code (side 1) and resigns at the third guess.
        m.add(&b, "g2", [1, 0], Ending::Win(0), Some(1));
        assert_eq!(m.rounds[1].points, [3, 0]);
        assert_eq!(m.rounds[1].result, Outcome::Second);
        assert_eq!(m.points(), [3, 11]);
    }

    #[test]
    fn a_match_adds_rounds_by_player_and_is_recorded() {
        let ann = Player::person("Ann");
        let eng = Player::engine("entropy", "movetime 1000");
        let mut m = MatchScore {
            family: "Mastermind".into(),
            game_type: "Mastermind".into(),
            players: [ann.clone(), eng.clone()],
            planned: 2,
            rounds: Vec::new(),
        };
        // Round 1: Ann breaks in 5 rows (the engine scores 5); round 2:
        // the engine breaks Ann's code in 4 rows (Ann scores 4).
        m.add(&board("Mastermind", 5), "g1", [0, 1], Ending::Win(0), None);
        m.add(&board("Mastermind", 4), "g2", [1, 0], Ending::Win(0), None);
        assert_eq!(m.points(), [4, 5]);
        assert_eq!(m.rounds[0].sides, ["Breaker".to_string(), "Maker".to_string()]);
        assert_eq!(m.rounds[0].result, Outcome::First);
        assert_eq!(m.rounds[1].sides, ["Maker".to_string(), "Breaker".to_string()]);
        assert_eq!(m.rounds[1].result, Outcome::Second);
        let rec = m.record(None);
        assert_eq!((rec.result, rec.ending), (Outcome::Second, results::Ending::Normal));
        assert_eq!(m.record(Some(1)).result, Outcome::First);
        let dir = std::env::temp_dir().join(format!("meeple-play-record-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let said = store(&dir, None, Some(&rec));
        assert!(said.contains("Ann: 0 won, 1 lost, 0 drawn in 1 game."), "{said}");
        let g =
            game_record(&board("Mastermind", 3), "g3", [ann, eng], Ending::Win(1), results::Ending::Normal);
        let said = store(&dir, Some(&g), None);
        assert!(said.contains("Ann: 0 won, 2 lost"), "{said}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
