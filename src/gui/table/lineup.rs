//! Who plays each side: the game's settings ([`Setup`]), the round of a
//! match (players swap sides every round), and in a networked game the
//! seat the host holds (the guest holds the other). Names come from the
//! room: a seat's holder names it.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::gui::record;
use crate::gui::room::{Role, Room};
use crate::gui::rounds;
use crate::results::Player;

use super::msg::PlayerCfg;

/// The settings of the game or match being played.
#[derive(Clone, Debug)]
pub struct Setup {
    pub game_type: String,
    pub family: String,
    pub options: BTreeMap<String, String>,
    /// In match order: match player `p` plays side `p` in the first round.
    pub players: [PlayerCfg; 2],
    pub pause: Duration,
    pub flag: bool,
    pub rounds: u32,
}

impl Setup {
    /// The setup of a loaded game: the players of the setup before if it
    /// was of the same family (and its engines play it), else two people;
    /// no options, a single game.
    pub fn loaded(before: Option<&Setup>, board: &Value, strategies: &[String]) -> Setup {
        let family = board["family"].as_str().unwrap_or("").to_string();
        let players = match before {
            Some(s)
                if s.family == family
                    && s.players.iter().all(|p| !p.is_engine() || strategies.contains(&p.strategy)) =>
            {
                s.players.clone()
            }
            _ => [PlayerCfg::human(), PlayerCfg::human()],
        };
        Setup {
            game_type: board["game_type"].as_str().unwrap_or("").to_string(),
            family,
            options: BTreeMap::new(),
            players,
            pause: before.map_or(Duration::from_millis(500), |s| s.pause),
            flag: before.is_some_and(|s| s.flag),
            rounds: 1,
        }
    }
}

/// The players of a position set up from a GameString of another family
/// than the one the form was filled in for (`form`): the pasted game
/// decides. Its engines play `family`'s default `strategy` (the form's
/// strategies are another game's), people stay people, limits and clocks
/// stay; the form's options are another game's and are left out, and a
/// match of rounds is a single game. A note says so.
pub fn for_pasted_family(
    form: &str,
    family: &str,
    players: [PlayerCfg; 2],
    strategy: Option<&str>,
) -> ([PlayerCfg; 2], String) {
    let mut engines = false;
    let players = players.map(|mut p| {
        if p.is_engine() {
            engines = true;
            p.strategy = strategy.unwrap_or_default().to_string();
        }
        p
    });
    let form = crate::text::clip(form);
    let mut note =
        format!("A {family} position set up from the {form} form: the {form} options are left out");
    if engines {
        note.push_str(&format!(
            ", and the engine plays {family}'s default strategy ({})",
            strategy.unwrap_or("?")
        ));
    }
    note.push_str(&format!(". Choose {family} in the form to set its options."));
    (players, note)
}

/// True if two names are the same person in the results database (its
/// Unicode normalisation and case folding), so a name that would void a
/// result is refused when it is given.
pub fn same_person(a: &str, b: &str) -> bool {
    crate::results::same_person(a, b)
}

/// A name refused because the other player has it.
fn clash(name: &str, other: &str) -> String {
    let (name, other) = (crate::text::clip(name), crate::text::clip(other));
    if name == other {
        format!("the other player is already called '{other}': choose another name")
    } else {
        format!(
            "'{name}' is the same name as the other player's, '{other}' (names that differ only in case or in invisible \
             characters are one person): choose another name"
        )
    }
}

/// Checks the players the page sets up: their kinds and people's names.
pub fn check_players(players: &[PlayerCfg; 2]) -> Result<(), String> {
    for p in players {
        if !matches!(p.kind.as_str(), "human" | "engine") {
            return Err(format!("unknown player kind '{}'", crate::text::clip(&p.kind)));
        }
        if !p.name.trim().is_empty() {
            crate::results::check_person_name(&p.name)?;
        }
    }
    Ok(())
}

/// Checks that every engine player's strategy is one of the family's.
pub fn check_strategies(players: &[PlayerCfg; 2], family: &str, strategies: &[String]) -> Result<(), String> {
    for p in players.iter().filter(|p| p.is_engine()) {
        if !strategies.contains(&p.strategy) {
            return Err(format!(
                "'{}' is not a strategy of {family} (one of {})",
                crate::text::clip(&p.strategy),
                strategies.join(", ")
            ));
        }
    }
    Ok(())
}

/// A family's strategies, from the engine's `games json`.
pub fn strategies(games: &Value, family: &str) -> Vec<String> {
    games["games"]
        .as_array()
        .and_then(|g| g.iter().find(|x| x["family"] == family))
        .and_then(|g| g["strategies"].as_array())
        .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// The players of the table's two sides.
#[derive(Default)]
pub struct Lineup {
    pub setup: Option<Setup>,
    /// The round of a match (0 for a single game).
    pub round: usize,
    /// The match seat the host plays in a networked game (`None`: local,
    /// the host plays every person's side).
    pub host_seat: Option<usize>,
}

impl Lineup {
    /// The side the host plays now in a networked game.
    pub fn host_side(&self) -> Option<usize> {
        self.host_seat.map(|p| rounds::side_of(p, self.round))
    }

    /// The player of `side` in the current round.
    pub fn player(&self, side: usize) -> PlayerCfg {
        match &self.setup {
            Some(s) => s.players[rounds::side_of(side, self.round)].clone(),
            None => PlayerCfg::human(),
        }
    }

    /// True if an engine plays `side` this round.
    pub fn is_engine(&self, side: usize) -> bool {
        self.setup.as_ref().is_some_and(|s| s.players[rounds::side_of(side, self.round)].is_engine())
    }

    /// The family of the game set up (empty without one).
    pub fn family(&self) -> &str {
        self.setup.as_ref().map_or("", |s| s.family.as_str())
    }

    /// The sides a browser of `role` may move for.
    pub fn seats(&self, role: Role) -> Vec<usize> {
        (0..2)
            .filter(|&s| match (role, self.host_side()) {
                (Role::Host, None) => true,
                (Role::Host, Some(h)) => h == s,
                (Role::Guest, Some(h)) => h != s,
                _ => false,
            })
            .filter(|&s| !self.player(s).is_engine())
            .collect()
    }

    /// The lineup of a new game of `players` at a table whose host holds
    /// `host_seat` (before it starts: for checking names).
    pub fn of_players(players: &[PlayerCfg; 2], host_seat: Option<usize>) -> Lineup {
        let setup = Setup {
            game_type: String::new(),
            family: String::new(),
            options: BTreeMap::new(),
            players: players.clone(),
            pause: Duration::ZERO,
            flag: false,
            rounds: 1,
        };
        Lineup { setup: Some(setup), round: 0, host_seat }
    }

    /// A person's name on `side` (for the page and the results).
    pub fn person_name(&self, side: usize, room: &Room) -> String {
        self.name_with(side, room.host_name.as_deref(), room.guest_name.as_deref())
    }

    /// A person's name on `side` if the host and the guest were named
    /// `host` and `guest`.
    fn name_with(&self, side: usize, host: Option<&str>, guest: Option<&str>) -> String {
        let p = rounds::side_of(side, self.round);
        let cfg = self.player(side);
        if let Some(h) = self.host_seat {
            return if p == h { host.unwrap_or("Host") } else { guest.unwrap_or("Guest") }.to_string();
        }
        if !cfg.name.trim().is_empty() {
            return cfg.name.trim().to_string();
        }
        let first_person =
            self.setup.as_ref().and_then(|s| s.players.iter().position(|x| !x.is_engine())).unwrap_or(0);
        match (p == first_person, host) {
            (true, Some(n)) => n.to_string(),
            (true, None) => "Anonymous".into(),
            (false, _) => "Anonymous 2".into(),
        }
    }

    /// Refuses two people of this lineup with the same name (one person
    /// cannot hold both seats of a result), the host and the guest named
    /// `host` and `guest`.
    pub fn check_names(&self, host: Option<&str>, guest: Option<&str>) -> Result<(), String> {
        let people: Vec<String> =
            (0..2).filter(|&s| !self.player(s).is_engine()).map(|s| self.name_with(s, host, guest)).collect();
        match people.as_slice() {
            [a, b] if same_person(a, b) => Err(clash(b, a)),
            _ => Ok(()),
        }
    }

    /// Checks the name `name` a browser of `role` gives itself: a seat's
    /// holder may not take the other player's name, that of the other seat
    /// of a networked table (whatever is played; `Host` or `Guest` while
    /// unnamed) or of the other person of the game on the table.
    pub fn check_rename(&self, role: Role, name: &str, room: &Room) -> Result<(), String> {
        let (host, guest) = match role {
            Role::Host => (Some(name), room.guest_name.as_deref()),
            Role::Guest => (room.host_name.as_deref(), Some(name)),
            Role::Spectator => return Ok(()),
        };
        if room.guest_key.is_some() {
            let other = if role == Role::Host { guest.unwrap_or("Guest") } else { host.unwrap_or("Host") };
            if same_person(name, other) {
                return Err(clash(name, other));
            }
        }
        self.check_names(host, guest).map_err(|_| {
            let other = (0..2)
                .filter(|&s| !self.player(s).is_engine())
                .map(|s| self.name_with(s, host, guest))
                .find(|n| n != name)
                .unwrap_or_else(|| name.to_string());
            clash(name, &other)
        })
    }

    /// Who played `side` this round, for the results.
    pub fn side_player(&self, side: usize, room: &Room) -> Player {
        let p = self.player(side);
        let name = (!p.is_engine()).then(|| self.person_name(side, room));
        record::player(name.as_deref(), &p.strategy, &p.limit())
    }

    /// Match player `p`, for the results.
    pub fn match_player(&self, p: usize, room: &Room) -> Player {
        self.side_player(rounds::side_of(p, self.round), room)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> PlayerCfg {
        let mut p = PlayerCfg::human();
        p.kind = "engine".into();
        p.strategy = "perfect".into();
        p
    }

    /// Issue 43 item 2: the table compares names as the results do, so a
    /// guest cannot void a result by a spelling the database folds to the
    /// host's (case, composed or decomposed accents).
    #[test]
    fn names_are_one_person_as_the_results_fold_them() {
        assert!(same_person("Ann", "ANN"));
        assert!(same_person("Ren\u{e9}e", "RENE\u{301}E"));
        assert!(!same_person("Ann", "Anna"));
        let mut room = Room::new();
        room.new_guest_key();
        room.host_name = Some("Ren\u{e9}e".into());
        let l = Lineup::default();
        assert!(l.check_rename(Role::Guest, "rene\u{301}e", &room).is_err());
        assert!(l.check_rename(Role::Guest, "Bob", &room).is_ok());
    }

    #[test]
    fn players_are_checked_and_a_loaded_game_keeps_them_within_its_family() {
        let mut bad = PlayerCfg::human();
        bad.kind = "robot".into();
        assert!(check_players(&[bad, PlayerCfg::human()]).is_err());
        assert!(check_players(&[PlayerCfg::human(), engine()]).is_ok());
        let games =
            serde_json::json!({"games": [{"family": "Connect4", "strategies": ["perfect", "random"]}]});
        let st = strategies(&games, "Connect4");
        assert!(check_strategies(&[PlayerCfg::human(), engine()], "Connect4", &st).is_ok());
        assert!(
            check_strategies(&[PlayerCfg::human(), engine()], "Hive", &strategies(&games, "Hive")).is_err()
        );
        let before = Setup {
            game_type: "Connect4".into(),
            family: "Connect4".into(),
            options: BTreeMap::new(),
            players: [PlayerCfg::human(), engine()],
            pause: Duration::from_millis(300),
            flag: true,
            rounds: 1,
        };
        let board = serde_json::json!({"family": "Connect4", "game_type": "Connect4+8x7"});
        let s = Setup::loaded(Some(&before), &board, &st);
        assert_eq!((s.players[1].is_engine(), s.game_type.as_str(), s.flag), (true, "Connect4+8x7", true));
        let board = serde_json::json!({"family": "Hive", "game_type": "Base"});
        let s = Setup::loaded(Some(&before), &board, &[]);
        assert!(!s.players[1].is_engine());
    }

    #[test]
    fn sides_follow_the_round_and_the_host_seat() {
        let mut l = Lineup {
            setup: Some(Setup {
                game_type: "Mastermind".into(),
                family: "Mastermind".into(),
                options: BTreeMap::new(),
                players: [PlayerCfg::human(), engine()],
                pause: Duration::ZERO,
                flag: false,
                rounds: 2,
            }),
            ..Lineup::default()
        };
        assert_eq!(l.seats(Role::Host), vec![0]);
        assert!(l.is_engine(1) && !l.is_engine(0));
        l.round = 1;
        assert_eq!(l.seats(Role::Host), vec![1]);
        assert!(l.is_engine(0));
        assert_eq!(l.seats(Role::Guest), Vec::<usize>::new());
        l.setup.as_mut().unwrap().players[1] = PlayerCfg::human();
        l.host_seat = Some(0);
        assert_eq!((l.host_side(), l.seats(Role::Host), l.seats(Role::Guest)), (Some(1), vec![1], vec![0]));
        assert_eq!(l.seats(Role::Spectator), Vec::<usize>::new());
        let room = Room::new();
        assert_eq!(l.person_name(1, &room), "Host");
        assert_eq!(l.person_name(0, &room), "Guest");
    }
}
