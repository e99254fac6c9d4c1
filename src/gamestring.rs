//! The GameString (`GameType;GameState;Turn[;move...]`) as text: its
//! fields, the form of its state and turn, the numbering of a move that does
//! not replay, and the loading of one into a concrete game. The type-erased
//! loader behind `newgame`, `position`, `load` and `meeple perft`, which
//! asks every family and applies the options, is `crate::registry::load`;
//! a game's own tools (Hive's benches) use [`parse`] and never reach up to
//! the registry.

use crate::game::{Game, MoveError};
use crate::text::clip;

/// Why a GameType or GameString was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// The type, the form, or an extra token is bad (`err`).
    Invalid(String),
    /// A move does not replay (`invalidmove`).
    Move(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Invalid(m) | LoadError::Move(m) => f.write_str(m),
        }
    }
}

/// A GameType or GameString split into its fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fields<'a> {
    /// The GameType (trimmed).
    pub game_type: &'a str,
    /// GameState and Turn; `None` for a bare GameType.
    pub header: Option<(&'a str, &'a str)>,
    /// The tokens after the turn: moves and extras (`Secret=1234`).
    pub tokens: Vec<&'a str>,
}

impl<'a> Fields<'a> {
    /// Splits `spec` on `;`: a bare GameType, or at least
    /// `GameType;GameState;Turn` (a trailing `;` is allowed).
    pub fn split(spec: &'a str) -> Result<Fields<'a>, LoadError> {
        let spec = spec.trim();
        let mut fields: Vec<&str> = spec.split(';').collect();
        let game_type = fields[0].trim();
        if fields.len() == 1 {
            return Ok(Fields { game_type, header: None, tokens: Vec::new() });
        }
        if fields.len() < 3 {
            return Err(LoadError::Invalid(format!(
                "bad GameString '{}': expected GameType;GameState;Turn[;moves]",
                clip(spec)
            )));
        }
        if fields.len() > 3 && fields.last() == Some(&"") {
            fields.pop();
        }
        Ok(Fields { game_type, header: Some((fields[1], fields[2])), tokens: fields[3..].to_vec() })
    }
}

/// Checks the GameState and Turn fields of a GameString for form only
/// (`sides`: the game's side names, first mover first).
pub fn check_state_and_turn(sides: [&str; 2], state: &str, turn: &str) -> Result<(), LoadError> {
    let state_ok = ["NotStarted", "InProgress", "Draw"].iter().any(|s| s.eq_ignore_ascii_case(state))
        || sides.iter().any(|s| state.eq_ignore_ascii_case(&format!("{s}Wins")));
    if !state_ok {
        return Err(LoadError::Invalid(format!("bad GameState '{}'", clip(state))));
    }
    let turn_ok = sides.iter().any(|s| turn_number(turn, s).is_some_and(|n| n >= 1));
    if !turn_ok {
        return Err(LoadError::Invalid(format!("bad Turn '{}': expected like {}[1]", clip(turn), sides[0])));
    }
    Ok(())
}

/// The number of a Turn field `Side[n]` for side `side` (case-insensitive),
/// if the field has that form. Char-safe: `turn` is user text and may hold
/// any character anywhere.
fn turn_number(turn: &str, side: &str) -> Option<u32> {
    let head = turn.get(..side.len())?;
    if !head.eq_ignore_ascii_case(side) {
        return None;
    }
    let digits = turn.get(side.len()..)?.strip_prefix('[')?.strip_suffix(']')?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The error of move number `n` (in the whole game), text `m`, that did not
/// replay.
pub fn move_error(n: usize, m: &str, e: MoveError) -> LoadError {
    match e {
        MoveError::GameOver => LoadError::Move(format!("move {n} '{}': the game is already over", clip(m))),
        other => LoadError::Move(format!("move {n} '{}': {other}", clip(m))),
    }
}

/// A game of type `G` from a GameType or GameString, with the rules of its
/// type and no options: extras the game recognises are applied, then the
/// moves are replayed and validated.
pub fn parse<G: Game>(spec: &str) -> Result<G, LoadError> {
    let f = Fields::split(spec)?;
    let mut g = match G::parse_type(f.game_type) {
        Some(r) => r.map_err(LoadError::Invalid)?,
        None => {
            return Err(LoadError::Invalid(format!(
                "'{}' is not a {} game type",
                clip(f.game_type),
                G::FAMILY
            )));
        }
    };
    if let Some((state, turn)) = f.header {
        check_state_and_turn(g.side_names(), state, turn)?;
        g.before_replay();
    }
    let mut n = 0;
    for t in f.tokens {
        if g.apply_extra(t).map_err(LoadError::Invalid)? {
            continue;
        }
        n += 1;
        let mv = g.parse_move(t).map_err(|e| move_error(n, t, e))?;
        g.play(mv);
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connect4::Connect4;

    #[test]
    fn state_and_turn_are_checked_for_form() {
        let sides = ["Red", "Yellow"];
        assert!(check_state_and_turn(sides, "InProgress", "Red[1]").is_ok());
        assert!(check_state_and_turn(sides, "yellowwins", "yellow[12]").is_ok());
        assert!(check_state_and_turn(sides, "WhiteWins", "Red[1]").is_err());
        assert!(check_state_and_turn(sides, "Draw", "Red[0]").is_err());
        assert!(check_state_and_turn(sides, "Draw", "Red[").is_err());
        assert!(check_state_and_turn(sides, "Draw", "Red").is_err());
        assert!(check_state_and_turn(sides, "Draw", "Red[+1]").is_err());
    }

    #[test]
    fn fields_of_types_and_strings() {
        assert_eq!(
            Fields::split(" Connect4 ").unwrap(),
            Fields { game_type: "Connect4", header: None, tokens: vec![] }
        );
        let f = Fields::split("Connect4;InProgress;Red[2];4;4;").unwrap();
        assert_eq!(f.header, Some(("InProgress", "Red[2]")));
        assert_eq!(f.tokens, vec!["4", "4"]);
        assert!(Fields::split("Connect4;InProgress").is_err());
    }

    #[test]
    fn parse_replays_and_numbers_bad_moves() {
        let g: Connect4 = parse("connect4;InProgress;Red[7];4;4").unwrap();
        assert_eq!(g.ply(), 2);
        let e = parse::<Connect4>("Connect4;InProgress;Red[1];4;x").unwrap_err();
        assert_eq!(e, LoadError::Move("move 2 'x': cannot parse move: 'x' is not a column 1..7".into()));
        assert!(matches!(parse::<Connect4>("Base"), Err(LoadError::Invalid(_))));
        assert!(matches!(parse::<Connect4>("Connect4;Nope;Red[1]"), Err(LoadError::Invalid(_))));
    }
}
