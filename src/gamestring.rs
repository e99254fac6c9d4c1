//! Loading a game from a GameType or a whole GameString
//! (`GameType;GameState;Turn[;move...]`): the one loader behind `newgame`,
//! `position`, `load`, `meeple perft` and the benches.

use rand::rngs::StdRng;

use crate::game::MoveError;
use crate::options::OptionValues;
use crate::registry::{self, AnyGame, Family};

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

/// Makes a game from a GameType or a GameString. The new game is
/// configured with `options(family)`; a GameString's state and turn must be
/// well-formed but are recomputed; hidden state the string does not carry is
/// dropped, extras the game recognises (Mastermind's `Secret=...`) are
/// applied, then the moves are replayed and validated.
pub fn load(
    spec: &str,
    options: impl FnOnce(Family) -> OptionValues,
    rng: &mut StdRng,
) -> Result<Box<dyn AnyGame>, LoadError> {
    let spec = spec.trim();
    let mut fields: Vec<&str> = spec.split(';').collect();
    let mut g = registry::new_game(fields[0]).map_err(LoadError::Invalid)?;
    g.configure(&options(g.family()), rng);
    if fields.len() == 1 {
        return Ok(g);
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
    check_state_and_turn(g.as_ref(), fields[1], fields[2])?;
    g.before_replay();
    let mut moves: Vec<String> = Vec::new();
    for t in &fields[3..] {
        if !g.apply_extra(t).map_err(LoadError::Invalid)? {
            moves.push(t.to_string());
        }
    }
    replay(g, &moves)
}

/// [`load`] with each family's default options and a fixed seed (for the
/// command line's `perft` and the benches).
pub fn load_with_defaults(spec: &str) -> Result<Box<dyn AnyGame>, LoadError> {
    use rand::SeedableRng;
    load(spec, |f| OptionValues::from_specs(&f.options()), &mut StdRng::seed_from_u64(0))
}

/// Plays move texts on `g`; the first bad one is reported with its number
/// in the whole game (the game is then dropped).
pub fn replay(mut g: Box<dyn AnyGame>, moves: &[String]) -> Result<Box<dyn AnyGame>, LoadError> {
    let before = g.history().len();
    for (i, m) in moves.iter().enumerate() {
        let n = before + i + 1;
        g.play_text(m).map_err(|e| match e {
            MoveError::GameOver => {
                LoadError::Move(format!("move {n} '{}': the game is already over", clip(m)))
            }
            other => LoadError::Move(format!("move {n} '{}': {other}", clip(m))),
        })?;
    }
    Ok(g)
}

/// Checks the GameState and Turn fields of a GameString for form only.
fn check_state_and_turn(g: &dyn AnyGame, state: &str, turn: &str) -> Result<(), LoadError> {
    let sides = g.side_names();
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

/// At most 100 characters of user text in a message, control characters
/// shown as `?` (a message is one protocol line).
pub fn clip(s: &str) -> String {
    let mut c: String = s.chars().take(100).map(|c| if c.is_control() { '?' } else { c }).collect();
    if c.len() < s.len() {
        c.push_str("...");
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn defaults(f: Family) -> OptionValues {
        OptionValues::from_specs(&f.options())
    }

    #[test]
    fn state_and_turn_are_checked_for_form() {
        let g = registry::new_game("Connect4").unwrap();
        assert!(check_state_and_turn(g.as_ref(), "InProgress", "Red[1]").is_ok());
        assert!(check_state_and_turn(g.as_ref(), "yellowwins", "yellow[12]").is_ok());
        assert!(check_state_and_turn(g.as_ref(), "WhiteWins", "Red[1]").is_err());
        assert!(check_state_and_turn(g.as_ref(), "Draw", "Red[0]").is_err());
        assert!(check_state_and_turn(g.as_ref(), "Draw", "Red[").is_err());
        assert!(check_state_and_turn(g.as_ref(), "Draw", "Red").is_err());
        assert!(check_state_and_turn(g.as_ref(), "Draw", "Red[+1]").is_err());
    }

    /// Issue 10 item 4: a multi-byte character where a side name or the
    /// turn number is expected was sliced through and panicked.
    #[test]
    fn multi_byte_text_is_refused_not_sliced() {
        let mut rng = StdRng::seed_from_u64(1);
        for turn in ["Reé[1]", "Red[1٤]", "Yelloé[1]", "Yellow[é]", "é", "Ré", "Red[1]é", "R\u{301}ed[1]"]
        {
            for fam in ["Connect4", "Mastermind", "Base"] {
                let g = registry::new_game(fam).unwrap();
                assert!(check_state_and_turn(g.as_ref(), "InProgress", turn).is_err(), "{fam} {turn}");
            }
            let r = load(&format!("Connect4;InProgress;{turn}"), defaults, &mut rng);
            assert!(matches!(r, Err(LoadError::Invalid(_))), "{turn}");
        }
        for state in ["Reé", "ReéWins", "é", "Blaé"] {
            let r = load(&format!("Base;{state};White[1]"), defaults, &mut rng);
            assert!(matches!(r, Err(LoadError::Invalid(_))), "{state}");
        }
        // Every valid GameString with a multi-byte character put at any
        // place loads or is refused, never panics.
        for valid in [
            "Connect4;InProgress;Yellow[1];4",
            "Base+MLP;InProgress;White[2];wS1;bG1 -wS1",
            "Mastermind+4x6;InProgress;Maker[1];1122",
            "Mastermind;InProgress;Breaker[2];1122;1B1W;Secret=1234",
        ] {
            let cuts: Vec<usize> = valid.char_indices().map(|(i, _)| i).chain([valid.len()]).collect();
            for &i in &cuts {
                for ch in ["é", "٤", "\u{1F600}", "\u{301}"] {
                    let text = format!("{}{ch}{}", &valid[..i], &valid[i..]);
                    let _ = load(&text, defaults, &mut rng);
                    let mut replaced = text.clone();
                    if let Some((j, c)) = valid[i..].char_indices().next() {
                        replaced = format!("{}{ch}{}", &valid[..i], &valid[i + j + c.len_utf8()..]);
                    }
                    let _ = load(&replaced, defaults, &mut rng);
                }
            }
        }
        for ty in ["Connect4+é", "Connect4+7x٤", "Mastermind+4xé", "Mastermind+é", "Base+é", "Baé", "é;é;é"]
        {
            assert!(load(ty, defaults, &mut rng).is_err(), "{ty}");
        }
    }

    #[test]
    fn loads_and_numbers_bad_moves() {
        let mut rng = StdRng::seed_from_u64(1);
        let g = load("connect4;InProgress;Red[7];4;4", defaults, &mut rng).unwrap();
        assert_eq!(g.game_string(), "Connect4;InProgress;Red[2];4;4");
        let g = replay(g, &["5".into(), "x".into()]);
        assert_eq!(
            g.err(),
            Some(LoadError::Move("move 4 'x': cannot parse move: 'x' is not a column 1..7".into()))
        );
        assert!(matches!(load("Connect4;InProgress", defaults, &mut rng), Err(LoadError::Invalid(_))));
        assert!(matches!(load("Nope", defaults, &mut rng), Err(LoadError::Invalid(_))));
        let e = load("Connect4;InProgress;Red[1];\u{1b}[2J", defaults, &mut rng).err().unwrap();
        // The clipped echo is printable (the game's own message is the
        // session's to clean).
        assert!(e.to_string().starts_with("move 1 '?[2J': "), "{e}");
    }
}
