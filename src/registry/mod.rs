//! The game registry, the loader of GameStrings, and the type-erased game
//! the protocol layer drives (`anygame.rs`).
//!
//! The protocol, the search thread and the CLI reach games only through
//! [`families`] and the [`AnyGame`] / [`AnyPlayer`] trait objects. Adding a
//! game = one module implementing `Game` (its rules) and `Engine` (its
//! engine services) + one line in [`families`].

mod anygame;

pub use anygame::{AnyGame, AnyPlayer, Match};

use std::io::Write;

use rand::rngs::StdRng;

use crate::engine::Engine;
use crate::gamestring::{Fields, LoadError, check_state_and_turn, move_error};
use crate::options::{OptionSpec, OptionValues};

/// Every registered game family. **The one place games are registered.**
pub fn families() -> Vec<Family> {
    vec![
        Family::of::<crate::games::connect4::Connect4>(),
        Family::of::<crate::games::mastermind::Mastermind>(),
        Family::of::<crate::games::hive::Hive>(),
    ]
}

/// Parses a game type string of one family (`None`: not this family).
type TypeParser = fn(&str) -> Option<Result<Box<dyn AnyGame>, String>>;

/// A registry entry: how to make games of one family and what options it
/// has.
#[derive(Clone, Copy)]
pub struct Family {
    pub name: &'static str,
    pub default_type: &'static str,
    pub type_grammar: &'static str,
    pub capabilities: &'static [&'static str],
    pub common_types: &'static [&'static str],
    pub move_notation: &'static str,
    /// See [`crate::game::Game::MOVES_HAVE_SPACES`].
    pub moves_have_spaces: bool,
    parse: TypeParser,
    options: fn() -> Vec<OptionSpec>,
    bench: fn(&[String], &mut dyn Write) -> Result<(), String>,
    bench_cli: fn() -> clap::Command,
    book: fn(&[String], &mut dyn Write) -> Result<(), String>,
    book_cli: fn() -> Option<clap::Command>,
}

impl Family {
    pub fn of<G: Engine>() -> Family {
        Family {
            name: G::FAMILY,
            default_type: G::DEFAULT_TYPE,
            type_grammar: G::TYPE_GRAMMAR,
            capabilities: G::CAPABILITIES,
            common_types: G::COMMON_TYPES,
            move_notation: G::MOVE_NOTATION,
            moves_have_spaces: G::MOVES_HAVE_SPACES,
            parse: |s| G::parse_type(s).map(|r| r.map(|g| Box::new(Match::new(g)) as Box<dyn AnyGame>)),
            options: G::options,
            bench: G::bench,
            bench_cli: G::bench_cli,
            book: G::book,
            book_cli: G::book_cli,
        }
    }

    /// Parses a game type string of this family.
    pub fn parse_type(&self, s: &str) -> Option<Result<Box<dyn AnyGame>, String>> {
        (self.parse)(s)
    }

    /// `meeple bench <family> ARGS...`.
    pub fn bench(&self, args: &[String], out: &mut dyn Write) -> Result<(), String> {
        (self.bench)(args, out)
    }

    /// The arguments of `meeple bench <family>`.
    pub fn bench_cli(&self) -> clap::Command {
        (self.bench_cli)()
    }

    /// `meeple book <family> ARGS...`.
    pub fn book(&self, args: &[String], out: &mut dyn Write) -> Result<(), String> {
        (self.book)(args, out)
    }

    /// The arguments of `meeple book <family>`, if it has a book.
    pub fn book_cli(&self) -> Option<clap::Command> {
        (self.book_cli)()
    }

    /// The family's own options (Strategy, ...).
    pub fn options(&self) -> Vec<OptionSpec> {
        (self.options)()
    }
}

/// Finds a family by name (case-insensitive).
pub fn family_by_name(name: &str) -> Option<Family> {
    families().into_iter().find(|f| f.name.eq_ignore_ascii_case(name))
}

/// Makes a new game from a game type string, asking every family.
pub fn new_game(game_type: &str) -> Result<Box<dyn AnyGame>, String> {
    let t = game_type.trim();
    for f in families() {
        if let Some(r) = f.parse_type(t) {
            return r;
        }
    }
    let known: Vec<_> = families().iter().map(|f| f.type_grammar).collect();
    Err(format!("unknown game type '{t}' (known: {})", known.join("; ")))
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
    let f = Fields::split(spec)?;
    let mut g = new_game(f.game_type).map_err(LoadError::Invalid)?;
    g.configure(&options(g.family()), rng);
    let Some((state, turn)) = f.header else {
        return Ok(g);
    };
    check_state_and_turn(g.side_names(), state, turn)?;
    g.before_replay();
    let mut moves: Vec<String> = Vec::new();
    for t in &f.tokens {
        if !g.apply_extra(t).map_err(LoadError::Invalid)? {
            moves.push(t.to_string());
        }
    }
    replay(g, &moves)
}

/// [`load`] with each family's default options and a fixed seed (for the
/// command line's `perft` and the saves' listing).
pub fn load_with_defaults(spec: &str) -> Result<Box<dyn AnyGame>, LoadError> {
    use rand::SeedableRng;
    load(spec, |f| OptionValues::from_specs(&f.options()), &mut StdRng::seed_from_u64(0))
}

/// Plays move texts on `g`; the first bad one is reported with its number
/// in the whole game (the game is then dropped).
pub fn replay(mut g: Box<dyn AnyGame>, moves: &[String]) -> Result<Box<dyn AnyGame>, LoadError> {
    let before = g.history().len();
    for (i, m) in moves.iter().enumerate() {
        g.play_text(m).map_err(|e| move_error(before + i + 1, m, e))?;
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movetree;
    use rand::{Rng, SeedableRng};

    /// For every registered game, on random positions: the final nodes of
    /// the move tree are exactly the legal moves, and every leaf is final.
    #[test]
    fn movetree_leaves_are_the_valid_moves_for_every_game() {
        let mut rng = StdRng::seed_from_u64(11);
        for fam in families() {
            for _ in 0..20 {
                let mut g = new_game(fam.default_type).unwrap();
                let plies = rng.random_range(0..12);
                for _ in 0..plies {
                    let moves = g.valid_moves();
                    if g.is_over() || moves.is_empty() {
                        break;
                    }
                    let m = moves[rng.random_range(0..moves.len())].clone();
                    g.play_text(&m).unwrap();
                }
                if g.is_over() {
                    continue;
                }
                let tree = movetree::build(&g.move_actions());
                let mut finals = tree.final_moves();
                let mut valid = g.valid_moves();
                finals.sort();
                valid.sort();
                assert_eq!(finals, valid, "{}", g.game_string());
                assert!(tree.leaves_are_final(), "{}", g.game_string());
            }
        }
    }

    /// `movetree json level`: for every registered game (and Mastermind
    /// variants with blanks and without repeats), on random positions,
    /// growing the tree one level at a time from the root gives the whole
    /// tree; where a game answers continuations itself, its levels are
    /// those of its listed moves.
    #[test]
    fn move_tree_levels_rebuild_the_whole_tree_for_every_game() {
        use movetree::MoveNode;
        fn grow(g: &dyn AnyGame, prefix: Vec<String>, node: &mut MoveNode) {
            for c in &mut node.children {
                let mut p = prefix.clone();
                p.extend(c.actions.iter().cloned());
                if c.more {
                    let l: MoveNode = level_of(g, &p);
                    assert!(l.actions.is_empty(), "{p:?}");
                    c.children = l.children;
                    c.more = false;
                    grow(g, p, c);
                }
            }
        }
        fn level_of(g: &dyn AnyGame, p: &[String]) -> MoveNode {
            let moves = g.move_selections(usize::MAX).unwrap();
            let listed = movetree::level(&moves, p).unwrap();
            if g.next_actions(p).is_some() {
                let next = |q: &[String]| g.next_actions(q).unwrap();
                assert_eq!(movetree::level_from(&next, p).unwrap(), listed, "{} {p:?}", g.game_string());
            }
            assert_eq!(g.move_tree_level(p).unwrap(), listed.to_json());
            listed
        }
        let mut rng = StdRng::seed_from_u64(12);
        let mut types: Vec<&str> = families().iter().map(|f| f.default_type).collect();
        types.extend(["Mastermind+3x4+norepeat+letters", "Mastermind+2x3+blanks", "Mastermind+3x3+norepeat"]);
        let mut hooked = 0;
        for ty in types {
            for _ in 0..8 {
                let mut g = new_game(ty).unwrap();
                for _ in 0..rng.random_range(0..10) {
                    let moves = g.valid_moves();
                    if g.is_over() || moves.is_empty() {
                        break;
                    }
                    g.play_text(&moves[rng.random_range(0..moves.len())]).unwrap();
                }
                if g.is_over() {
                    continue;
                }
                hooked += g.next_actions(&[]).is_some() as usize;
                let mut t = level_of(g.as_ref(), &[]);
                grow(g.as_ref(), Vec::new(), &mut t);
                let full = movetree::build_selected(&g.move_selections(usize::MAX).unwrap());
                assert_eq!(t, full, "{}", g.game_string());
            }
        }
        assert!(hooked > 0, "no game answered its continuations");
        // A huge variant: one level without listing 10^8 codes.
        let g = new_game("Mastermind+8x10").unwrap();
        assert!(g.move_tree(true).is_err());
        let root: serde_json::Value = serde_json::from_str(&g.move_tree_level(&[]).unwrap()).unwrap();
        assert_eq!(root["children"].as_array().unwrap().len(), 10);
        assert_eq!(root["children"][0]["more"], true);
        let p: Vec<String> = "1234567".chars().map(|c| c.to_string()).collect();
        let last: serde_json::Value = serde_json::from_str(&g.move_tree_level(&p).unwrap()).unwrap();
        assert_eq!(last["children"][7]["move"], "12345678");
        assert!(g.move_tree_level(&["x".to_string()]).unwrap_err().contains("begins with 'x'"));
    }

    /// GameStrings round-trip through the loader: replaying one gives the
    /// same string.
    #[test]
    fn game_strings_round_trip_for_every_game() {
        let mut rng = StdRng::seed_from_u64(5);
        for fam in families() {
            let mut g = new_game(fam.default_type).unwrap();
            for _ in 0..10 {
                let moves = g.valid_moves();
                if g.is_over() || moves.is_empty() {
                    break;
                }
                g.play_text(&moves[rng.random_range(0..moves.len())]).unwrap();
                let s = g.game_string();
                let h = load_with_defaults(&s).unwrap();
                assert_eq!(h.game_string(), s);
            }
        }
    }

    #[test]
    fn undo_restores_the_game_string() {
        for fam in families() {
            let mut g = new_game(fam.default_type).unwrap();
            let start = g.game_string();
            let m = g.valid_moves()[0].clone();
            g.play_text(&m).unwrap();
            assert!(g.undo(2).is_err());
            assert!(g.undo(0).is_err());
            g.undo(1).unwrap();
            assert_eq!(g.game_string(), start);
        }
    }
}

#[cfg(test)]
mod load_tests {
    use super::*;
    use rand::SeedableRng;

    fn defaults(f: Family) -> OptionValues {
        OptionValues::from_specs(&f.options())
    }

    /// Issue 10 item 4: a multi-byte character where a side name or the
    /// turn number is expected was sliced through and panicked.
    #[test]
    fn multi_byte_text_is_refused_not_sliced() {
        let mut rng = StdRng::seed_from_u64(1);
        for turn in ["Reé[1]", "Red[1٤]", "Yelloé[1]", "Yellow[é]", "é", "Ré", "Red[1]é", "R\u{301}ed[1]"]
        {
            for fam in ["Connect4", "Mastermind", "Base"] {
                let g = new_game(fam).unwrap();
                assert!(check_state_and_turn(g.side_names(), "InProgress", turn).is_err(), "{fam} {turn}");
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
