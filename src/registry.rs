//! The game registry and the type-erased game the protocol layer drives.
//!
//! The protocol, the search thread and the CLI reach games only through
//! [`families`] and the [`AnyGame`] / [`AnyPlayer`] trait objects. Adding a
//! game = one module implementing [`Game`] + one line in [`families`].

use std::any::Any;
use std::io::{BufRead, Write};

use rand::rngs::StdRng;

use crate::game::{Game, MoveError, Outcome};
use crate::options::{OptionSpec, OptionValues};
use crate::search::{Player, SearchCtx};

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
    parse: TypeParser,
    options: fn() -> Vec<OptionSpec>,
    bench: fn(&[String], &mut dyn Write) -> Result<(), String>,
    bench_cli: fn() -> clap::Command,
    book: fn(&[String], &mut dyn Write) -> Result<(), String>,
    book_cli: fn() -> Option<clap::Command>,
}

impl Family {
    pub fn of<G: Game>() -> Family {
        Family {
            name: G::FAMILY,
            default_type: G::DEFAULT_TYPE,
            type_grammar: G::TYPE_GRAMMAR,
            capabilities: G::CAPABILITIES,
            common_types: G::COMMON_TYPES,
            move_notation: G::MOVE_NOTATION,
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

/// A game as the protocol layer sees it: a position plus its history, all
/// moves as text.
pub trait AnyGame: Send {
    fn family(&self) -> Family;
    fn game_type(&self) -> String;
    /// Names of the two sides, first mover first.
    fn side_names(&self) -> [&'static str; 2];
    /// The side to move (0 = the first mover).
    fn side_to_move(&self) -> usize;
    /// `GameType;GameState;Turn[;move...]`.
    fn game_string(&self) -> String;
    fn is_over(&self) -> bool;
    /// How the game ended (`None` while it goes on).
    fn outcome(&self) -> Option<Outcome>;
    /// Legal moves as canonical text, in generation order.
    fn valid_moves(&self) -> Vec<String>;
    /// Plays one move given as text; on error nothing changes.
    fn play_text(&mut self, text: &str) -> Result<String, MoveError>;
    /// Takes back `n` plies; on error nothing changes.
    fn undo(&mut self, n: usize) -> Result<(), String>;
    /// Moves played so far, as canonical text.
    fn history(&self) -> &[String];
    fn render(&self, color: bool) -> String;
    /// For each legal move: its text and its actions (for the move tree).
    fn move_actions(&self) -> Vec<(String, Vec<String>)>;
    fn split_move_list(&self, s: &str) -> Vec<String>;
    fn perft(&self, depth: u32) -> u64;
    /// `analyze [ARGS]` (see [`Game::analyze`]).
    fn analyze(&self, args: &str, ctx: &mut SearchCtx) -> Result<Vec<String>, String>;
    /// `meeple solve` (see [`Game::solve`]).
    fn solve(&self, args: &[String], input: &mut dyn BufRead, out: &mut dyn Write) -> Result<(), String>;
    fn clone_box(&self) -> Box<dyn AnyGame>;
    /// Makes the AI named by `options`' `Strategy`.
    fn new_player(&self, options: &OptionValues) -> Result<Box<dyn AnyPlayer>, String>;
    /// See [`Game::apply_extra`]; only on a game with no move played.
    fn apply_extra(&mut self, token: &str) -> Result<bool, String>;
    /// See [`Game::before_replay`].
    fn before_replay(&mut self);
    /// See [`Game::private_extra`].
    fn private_extra(&self) -> Option<String>;
    /// See [`Game::too_many_moves`].
    fn too_many_moves(&self) -> Option<String>;
    /// See [`Game::configure`]; only on a game with no move played.
    fn configure(&mut self, options: &OptionValues, rng: &mut StdRng);
    /// See [`Game::mate_in`].
    fn mate_in(&self, exact: i32) -> Option<i32>;
    /// `board json` (see [`Game::board_view`]).
    fn board_view(&self) -> crate::boardview::BoardJson;
    /// For each legal move: its text, its action texts and their
    /// selections (see [`Game::selections`]); `Err` past `max` moves.
    fn move_selections(&self, max: usize) -> Result<Vec<crate::movetree::SelectedMove>, String>;
    fn as_any(&self) -> &dyn Any;
}

impl Clone for Box<dyn AnyGame> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// An AI player as the protocol layer sees it.
pub trait AnyPlayer: Send {
    /// The strategy's name.
    fn strategy(&self) -> &'static str;
    /// Chooses a move for `game` (not over); `None` only if `game` is not of
    /// this player's family.
    fn choose(&mut self, game: &dyn AnyGame, ctx: &mut SearchCtx) -> Option<String>;
    fn reset(&mut self);
    /// See [`Player::prepare`].
    fn prepare(&mut self, game: &dyn AnyGame, options: &OptionValues);
    /// See [`Player::ready`].
    fn ready(&mut self);
}

/// A game of type `G` with its move history: the generic [`AnyGame`].
#[derive(Clone)]
pub struct Match<G: Game> {
    pub pos: G,
    moves: Vec<G::Move>,
    texts: Vec<String>,
}

impl<G: Game> Match<G> {
    pub fn new(pos: G) -> Self {
        Match { pos, moves: Vec::new(), texts: Vec::new() }
    }
}

/// GameStateString of a position.
pub fn state_string<G: Game>(pos: &G) -> String {
    match pos.outcome() {
        Some(Outcome::Draw) => "Draw".to_string(),
        Some(Outcome::Win(s)) => format!("{}Wins", pos.side_names()[s]),
        None if pos.ply() == 0 => "NotStarted".to_string(),
        None => "InProgress".to_string(),
    }
}

/// TurnString of a position: `Side[n]`, n = 1 + plies / 2.
pub fn turn_string<G: Game>(pos: &G) -> String {
    format!("{}[{}]", pos.side_names()[pos.side_to_move()], 1 + pos.ply() / 2)
}

impl<G: Game> AnyGame for Match<G> {
    fn family(&self) -> Family {
        Family::of::<G>()
    }
    fn game_type(&self) -> String {
        self.pos.game_type()
    }
    fn side_names(&self) -> [&'static str; 2] {
        self.pos.side_names()
    }
    fn side_to_move(&self) -> usize {
        self.pos.side_to_move()
    }
    fn game_string(&self) -> String {
        let mut s =
            format!("{};{};{}", self.pos.game_type(), state_string(&self.pos), turn_string(&self.pos));
        for t in &self.texts {
            s.push(';');
            s.push_str(t);
        }
        if let Some(extra) = self.pos.game_string_extra() {
            s.push(';');
            s.push_str(&extra);
        }
        s
    }
    fn is_over(&self) -> bool {
        self.pos.outcome().is_some()
    }
    fn outcome(&self) -> Option<Outcome> {
        self.pos.outcome()
    }
    fn valid_moves(&self) -> Vec<String> {
        let mut v = Vec::new();
        self.pos.legal_moves(&mut v);
        v.into_iter().map(|m| self.pos.format_move(m)).collect()
    }
    fn play_text(&mut self, text: &str) -> Result<String, MoveError> {
        if self.pos.outcome().is_some() {
            return Err(MoveError::GameOver);
        }
        let mv = self.pos.parse_move(text)?;
        let t = self.pos.format_move(mv);
        self.pos.play(mv);
        self.moves.push(mv);
        self.texts.push(t.clone());
        Ok(t)
    }
    fn undo(&mut self, n: usize) -> Result<(), String> {
        if n < 1 {
            return Err("undo takes a number of plies of at least 1".to_string());
        }
        if n > self.moves.len() {
            return Err(format!("cannot undo {n} plies: only {} played", self.moves.len()));
        }
        for _ in 0..n {
            let mv = self.moves.pop().expect("checked length");
            self.texts.pop();
            self.pos.undo(mv);
        }
        Ok(())
    }
    fn history(&self) -> &[String] {
        &self.texts
    }
    fn render(&self, color: bool) -> String {
        self.pos.render(color)
    }
    fn move_actions(&self) -> Vec<(String, Vec<String>)> {
        let mut v = Vec::new();
        self.pos.legal_moves(&mut v);
        v.into_iter().map(|m| (self.pos.format_move(m), self.pos.actions(m))).collect()
    }
    fn split_move_list(&self, s: &str) -> Vec<String> {
        G::split_move_list(s)
    }
    fn perft(&self, depth: u32) -> u64 {
        let mut p = self.pos.clone();
        p.perft(depth)
    }
    fn analyze(&self, args: &str, ctx: &mut SearchCtx) -> Result<Vec<String>, String> {
        self.pos.analyze(args, ctx)
    }
    fn solve(&self, args: &[String], input: &mut dyn BufRead, out: &mut dyn Write) -> Result<(), String> {
        self.pos.solve(args, input, out)
    }
    fn clone_box(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }
    fn new_player(&self, options: &OptionValues) -> Result<Box<dyn AnyPlayer>, String> {
        let name = options.get_str("Strategy").unwrap_or("");
        let specs = G::strategies();
        let spec = specs
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
            .or_else(|| specs.first())
            .ok_or_else(|| format!("{} has no strategies", G::FAMILY))?;
        Ok(Box::new(PlayerBox::<G> { name: spec.name, inner: (spec.make)(options) }))
    }
    fn apply_extra(&mut self, token: &str) -> Result<bool, String> {
        debug_assert!(self.moves.is_empty());
        self.pos.apply_extra(token)
    }
    fn before_replay(&mut self) {
        self.pos.before_replay()
    }
    fn private_extra(&self) -> Option<String> {
        self.pos.private_extra()
    }
    fn too_many_moves(&self) -> Option<String> {
        self.pos.too_many_moves()
    }
    fn configure(&mut self, options: &OptionValues, rng: &mut StdRng) {
        debug_assert!(self.moves.is_empty());
        self.pos.configure(options, rng)
    }
    fn mate_in(&self, exact: i32) -> Option<i32> {
        self.pos.mate_in(exact)
    }
    fn board_view(&self) -> crate::boardview::BoardJson {
        crate::boardview::BoardJson {
            family: G::FAMILY,
            game_type: self.pos.game_type(),
            sides: self.pos.side_names(),
            turn: self.pos.side_to_move(),
            state: state_string(&self.pos),
            ply: self.texts.len(),
            view: self.pos.board_view(),
        }
    }
    fn move_selections(&self, max: usize) -> Result<Vec<crate::movetree::SelectedMove>, String> {
        let mut v = Vec::new();
        self.pos.legal_moves(&mut v);
        if v.len() > max {
            return Err(format!(
                "too many moves for a tree: {} (the limit is {max}); use validmoves",
                v.len()
            ));
        }
        Ok(v.into_iter()
            .map(|m| (self.pos.format_move(m), self.pos.actions(m), self.pos.selections(m)))
            .collect())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The generic [`AnyPlayer`] around a `Player<G>`.
struct PlayerBox<G: Game> {
    name: &'static str,
    inner: Box<dyn Player<G>>,
}

impl<G: Game> AnyPlayer for PlayerBox<G> {
    fn strategy(&self) -> &'static str {
        self.name
    }
    fn choose(&mut self, game: &dyn AnyGame, ctx: &mut SearchCtx) -> Option<String> {
        let m = game.as_any().downcast_ref::<Match<G>>()?;
        let mv = self.inner.choose(&m.pos, ctx);
        Some(m.pos.format_move(mv))
    }
    fn reset(&mut self) {
        self.inner.reset()
    }
    fn prepare(&mut self, game: &dyn AnyGame, options: &OptionValues) {
        if let Some(m) = game.as_any().downcast_ref::<Match<G>>() {
            self.inner.prepare(&m.pos, options)
        }
    }
    fn ready(&mut self) {
        self.inner.ready()
    }
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
                let h = crate::gamestring::load_with_defaults(&s).unwrap();
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
