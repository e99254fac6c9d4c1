//! Results kept without a database: the offline page's local leaderboard
//! (the browser's storage holds the text of [`Local::to_json`]). Every
//! record is checked as the database checks it, names are compared as the
//! database compares them ([`same_person`]), and the leaderboard has the
//! database's shape and order ([`Board`]: people by wins, then fewer
//! losses, then more draws; every engine level's record against people).

use serde::{Deserialize, Serialize};

use super::{
    Board, EngineRow, Filter, GameRecord, MatchRecord, Opponent, Outcome, PersonRow, Player, Record,
    check_game, check_match, fold, same_person,
};

/// Most contests kept: the oldest are forgotten past it, so that the text
/// stays within what a browser's localStorage holds (5 M characters an
/// origin; a long Hive game's record is about 1.5 k).
pub const MAX_KEPT: usize = 2000;

/// A finished game or match, as kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "contest", rename_all = "lowercase")]
pub enum Kept {
    Game(GameRecord),
    Match(MatchRecord),
}

/// The kept results.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Local {
    /// What the text is (a check that it is ours).
    format: String,
    contests: Vec<Kept>,
    /// Contests added ever (the id of the newest; older ones are
    /// forgotten past the limit, their ids never reused).
    #[serde(default)]
    added: u64,
}

const FORMAT: &str = "meeple-results-1";

impl Local {
    pub fn new() -> Local {
        Local { format: FORMAT.to_string(), contests: Vec::new(), added: 0 }
    }

    /// Reads kept results; a text that is not ours, or a record in it that
    /// fails the database's checks, is an error naming what is wrong.
    pub fn from_json(text: &str) -> Result<Local, String> {
        let l: Local =
            serde_json::from_str(text).map_err(|e| format!("the kept results are damaged: {e}"))?;
        if l.format != FORMAT {
            return Err(format!(
                "the kept results are not meeple's (format '{}')",
                crate::text::clip(&l.format)
            ));
        }
        for (i, c) in l.contests.iter().enumerate() {
            check(c).map_err(|e| format!("the kept results' record {}: {e}", i + 1))?;
        }
        Ok(l)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results serialize")
    }

    pub fn len(&self) -> usize {
        self.contests.len()
    }

    pub fn is_empty(&self) -> bool {
        self.contests.is_empty()
    }

    /// Contests added ever: the id of the newest.
    pub fn added(&self) -> u64 {
        self.added
    }

    /// Sets each seat's accuracy on the game added as `id` (see
    /// [`Local::add`]); an error if it is forgotten or not a game.
    pub fn set_accuracy(&mut self, id: u64, accuracy: [Option<f64>; 2]) -> Result<(), String> {
        let back = self.added.checked_sub(id).filter(|&b| (b as usize) < self.contests.len());
        let at = back.map(|b| self.contests.len() - 1 - b as usize);
        match at.map(|i| &mut self.contests[i]) {
            Some(Kept::Game(g)) => {
                for (seat, a) in g.seats.iter_mut().zip(accuracy) {
                    seat.accuracy = a.filter(|a| a.is_finite()).map(|a| a.clamp(0.0, 100.0));
                }
                Ok(())
            }
            _ => Err(format!("no kept game {id}")),
        }
    }

    /// Adds a contest, checked (its players as the database keeps them);
    /// its id is then the count of contests added ([`Local::added`]).
    pub fn add(&mut self, mut c: Kept) -> Result<(), String> {
        let players = check(&c)?;
        match &mut c {
            Kept::Game(g) => {
                g.seats[0].player = players[0].clone();
                g.seats[1].player = players[1].clone();
            }
            Kept::Match(m) => m.players = players,
        }
        self.contests.push(c);
        self.added += 1;
        if self.contests.len() > MAX_KEPT {
            let extra = self.contests.len() - MAX_KEPT;
            self.contests.drain(..extra);
        }
        Ok(())
    }

    /// The leaderboard of the contests `filter` counts: the `top` people
    /// by wins, and every engine level's record against people.
    pub fn board(&self, filter: &Filter, top: usize) -> Board {
        // One standing per player of a contest: (player, opponent, outcome
        // for the player, accuracy).
        let mut people: Vec<(String, String, Record, f64, u64)> = Vec::new();
        let mut engines: Vec<EngineRow> = Vec::new();
        for c in &self.contests {
            let (family, players, result, acc) = match c {
                Kept::Game(g) => (
                    &g.family,
                    [g.seats[0].player.clone(), g.seats[1].player.clone()],
                    g.result,
                    [g.seats[0].accuracy, g.seats[1].accuracy],
                ),
                Kept::Match(m) => (&m.family, m.players.clone(), m.result, [None, None]),
            };
            if filter.family.as_ref().is_some_and(|f| !f.eq_ignore_ascii_case(family)) {
                continue;
            }
            for me in 0..2 {
                let (p, opp) = (&players[me], &players[1 - me]);
                let mut r = Record { wins: 0, losses: 0, draws: 0, games: 1 };
                match (result, me) {
                    (Outcome::Draw, _) => r.draws = 1,
                    (Outcome::First, 0) | (Outcome::Second, 1) => r.wins = 1,
                    _ => r.losses = 1,
                }
                match p {
                    Player::Person { name } if opponent_matches(filter, opp) => {
                        let f = fold(name);
                        let (a, n) = acc[me].map_or((0.0, 0), |a| (a, 1));
                        match people.iter_mut().find(|row| row.0 == f) {
                            Some(row) => {
                                add(&mut row.2, &r);
                                row.3 += a;
                                row.4 += n;
                            }
                            None => people.push((f, name.clone(), r, a, n)),
                        }
                    }
                    Player::Engine { strategy, level }
                        if opp.is_person() && opponent_matches(filter, opp) && engine_matches(filter, p) =>
                    {
                        match engines.iter_mut().find(|e| &e.strategy == strategy && &e.level == level) {
                            Some(e) => add(&mut e.record, &r),
                            None => engines.push(EngineRow {
                                strategy: strategy.clone(),
                                level: level.clone(),
                                record: r,
                            }),
                        }
                    }
                    _ => {}
                }
            }
        }
        people.sort_by(|a, b| {
            (b.2.wins, a.2.losses, b.2.draws, &a.0).cmp(&(a.2.wins, b.2.losses, a.2.draws, &b.0))
        });
        engines.sort_by(|a, b| {
            (&a.strategy, a.level.len(), &a.level).cmp(&(&b.strategy, b.level.len(), &b.level))
        });
        let people = people
            .into_iter()
            .take(top)
            .map(|(_, name, record, sum, n)| PersonRow {
                name,
                record,
                accuracy: (n > 0).then(|| sum / n as f64),
                reviewed: n,
            })
            .collect();
        Board { people, engines }
    }
}

fn check(c: &Kept) -> Result<[Player; 2], String> {
    match c {
        Kept::Game(g) => check_game(g),
        Kept::Match(m) => check_match(m),
    }
}

fn add(to: &mut Record, r: &Record) {
    to.wins += r.wins;
    to.losses += r.losses;
    to.draws += r.draws;
    to.games += r.games;
}

/// True if the filter's opponent (if any) is `opp`.
fn opponent_matches(filter: &Filter, opp: &Player) -> bool {
    match (&filter.opponent, opp) {
        (None, _) => true,
        (Some(Opponent::Person { name: a }), Player::Person { name: b }) => same_person(a, b),
        (Some(Opponent::Engine { strategy: s, level: l }), Player::Engine { strategy, level }) => {
            s.eq_ignore_ascii_case(strategy) && l.as_ref().is_none_or(|l| l == level)
        }
        _ => false,
    }
}

/// The engines' table against an engine opponent shows that engine only.
fn engine_matches(filter: &Filter, me: &Player) -> bool {
    match &filter.opponent {
        Some(Opponent::Engine { .. }) => true,
        _ => matches!(me, Player::Engine { .. }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Ending, Place, Seat};
    use std::time::{Duration, UNIX_EPOCH};

    fn game(a: Player, b: Player, result: Outcome) -> Kept {
        Kept::Game(GameRecord {
            when: UNIX_EPOCH + Duration::from_secs(1_795_000_000),
            family: "Connect4".into(),
            game_type: "Connect4".into(),
            game_string: "Connect4;RedWins;Yellow[4];4;4;4;4;4;4;4".into(),
            seats: [Seat::new("Red", a), Seat::new("Yellow", b)],
            result,
            ending: Ending::Normal,
            place: Place::Gui,
        })
    }

    #[test]
    fn people_by_wins_and_engines_against_people() {
        let mut l = Local::new();
        let e = || Player::engine("perfect", "movetime 100");
        l.add(game(Player::person("Ann"), e(), Outcome::First)).unwrap();
        l.add(game(Player::person("ANN"), e(), Outcome::Second)).unwrap();
        l.add(game(e(), Player::person("Bob"), Outcome::Second)).unwrap();
        l.add(game(Player::person("Bob"), Player::person("Cy"), Outcome::First)).unwrap();
        let b = l.board(&Filter::default(), 10);
        let names: Vec<_> =
            b.people.iter().map(|p| (p.name.as_str(), p.record.wins, p.record.games)).collect();
        assert_eq!(names, [("Bob", 2, 2), ("Ann", 1, 2), ("Cy", 0, 1)]);
        assert_eq!(b.engines.len(), 1);
        assert_eq!((b.engines[0].record.wins, b.engines[0].record.losses), (1, 2));
        // Against one person only; another family counts nothing.
        let f = Filter { family: None, opponent: Some(Opponent::parse("person:cy").unwrap()) };
        assert_eq!(l.board(&f, 10).people.len(), 1);
        let f = Filter { family: Some("Hive".into()), opponent: None };
        assert!(l.board(&f, 10).people.is_empty());
    }

    #[test]
    fn kept_text_round_trips_and_damage_is_named() {
        let mut l = Local::new();
        l.add(game(Player::person("Ann"), Player::engine("perfect", ""), Outcome::Draw)).unwrap();
        let back = Local::from_json(&l.to_json()).unwrap();
        assert_eq!(back, l);
        assert!(Local::from_json("{").unwrap_err().contains("damaged"));
        let other = l.to_json().replace(FORMAT, "x");
        assert!(Local::from_json(&other).unwrap_err().contains("not meeple's"));
        let bad = l.to_json().replace("Ann", "\\u0007");
        assert!(
            Local::from_json(&bad).unwrap_err().contains("record 1"),
            "{}",
            Local::from_json(&bad).unwrap_err()
        );
        // One person cannot hold both seats.
        assert!(l.add(game(Player::person("Ann"), Player::person("ann"), Outcome::Draw)).is_err());
    }

    #[test]
    fn a_reviews_accuracy_lands_on_its_own_game_only() {
        let mut l = Local::new();
        let e = || Player::engine("perfect", "");
        l.add(game(Player::person("Ann"), e(), Outcome::First)).unwrap();
        let first = l.added();
        l.add(game(Player::person("Bob"), e(), Outcome::Second)).unwrap();
        l.set_accuracy(first, [Some(80.0), None]).unwrap();
        let b = l.board(&Filter::default(), 10);
        let acc: Vec<_> = b.people.iter().map(|p| (p.name.as_str(), p.accuracy)).collect();
        assert!(acc.contains(&("Ann", Some(80.0))) && acc.contains(&("Bob", None)), "{acc:?}");
        // Kept across the text; unknown ids refused.
        let back = Local::from_json(&l.to_json()).unwrap();
        assert_eq!(back.added(), 2);
        assert!(l.set_accuracy(0, [None, None]).is_err());
        assert!(l.set_accuracy(3, [None, None]).is_err());
        // Past the limit the oldest are forgotten; ids are never reused.
        for _ in 0..MAX_KEPT {
            l.add(game(Player::person("Cy"), e(), Outcome::Draw)).unwrap();
        }
        assert!(l.set_accuracy(first, [Some(1.0), None]).is_err(), "forgotten");
        let newest = l.added();
        l.set_accuracy(newest, [Some(50.0), None]).unwrap();
    }
}
