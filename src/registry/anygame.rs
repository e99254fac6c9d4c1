//! The type-erased game the protocol layer drives: [`AnyGame`] (a position
//! and its history, every move as text), [`AnyPlayer`], and [`Match`], the
//! generic implementation over a game's `Game` and `Engine`.

use std::any::Any;
use std::io::{BufRead, Write};

use rand::rngs::StdRng;

use super::Family;
use crate::engine::Engine;
use crate::engine::review::Reviewer;
use crate::game::{MoveError, Outcome, state_string, turn_string};
use crate::movetree::{self, MAX_TREE_MOVES, SelectedMove};
use crate::options::OptionValues;
use crate::search::{Player, SearchCtx};

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
    /// `analyze [ARGS]` (see [`crate::engine::Engine::analyze`]).
    fn analyze(&self, args: &str, ctx: &mut SearchCtx) -> Result<Vec<String>, String>;
    /// `review` of the whole game (see [`crate::engine::Engine::review`]).
    fn review(&self, rv: &mut Reviewer) -> Result<(), String>;
    /// `meeple solve` (see [`crate::engine::Engine::solve`]).
    fn solve(&self, args: &[String], input: &mut dyn BufRead, out: &mut dyn Write) -> Result<(), String>;
    fn clone_box(&self) -> Box<dyn AnyGame>;
    /// Makes the AI named by `options`' `Strategy`.
    fn new_player(&self, options: &OptionValues) -> Result<Box<dyn AnyPlayer>, String>;
    /// See [`crate::game::Game::apply_extra`]; only on a game with no move played.
    fn apply_extra(&mut self, token: &str) -> Result<bool, String>;
    /// See [`crate::game::Game::before_replay`].
    fn before_replay(&mut self);
    /// See [`crate::game::Game::private_extra`].
    fn private_extra(&self) -> Option<String>;
    /// See [`crate::game::Game::too_many_moves`].
    fn too_many_moves(&self) -> Option<String>;
    /// See [`crate::engine::Engine::configure`]; only on a game with no move played.
    fn configure(&mut self, options: &OptionValues, rng: &mut StdRng);
    /// See [`crate::engine::Engine::mate_in`].
    fn mate_in(&self, exact: i32) -> Option<i32>;
    /// `board json` (see [`crate::game::Game::board_view`]).
    fn board_view(&self) -> crate::boardview::BoardJson;
    /// For each legal move: its text, its action texts and their
    /// selections (see [`crate::game::Game::selections`]); `Err` past `max` moves.
    fn move_selections(&self, max: usize) -> Result<Vec<SelectedMove>, String>;
    /// See [`crate::game::Game::next_actions`].
    fn next_actions(&self, prefix: &[String]) -> Option<Result<Vec<movetree::NextAction>, String>>;
    fn as_any(&self) -> &dyn Any;

    /// `movetree json level [ACTION ...]`: one level of the tree below a
    /// prefix, from the game's own continuations when it gives them, else
    /// from the legal moves (an error past [`movetree::MAX_LEVEL_MOVES`]).
    fn move_tree_level(&self, prefix: &[String]) -> Result<String, String> {
        if self.next_actions(prefix).is_some() {
            let next = |p: &[String]| self.next_actions(p).unwrap_or_else(|| Ok(Vec::new()));
            return Ok(movetree::level_from(&next, prefix)?.to_json());
        }
        if let Some(why) = self.too_many_moves() {
            return Err(why);
        }
        let moves = self.move_selections(movetree::MAX_LEVEL_MOVES)?;
        Ok(movetree::level(&moves, prefix)?.to_json())
    }

    /// `movetree [json]`: the text lines, or one line of JSON with
    /// selections; an error past [`MAX_TREE_MOVES`] moves.
    fn move_tree(&self, json: bool) -> Result<Vec<String>, String> {
        if let Some(why) = self.too_many_moves() {
            return Err(why);
        }
        let moves = self.move_selections(MAX_TREE_MOVES)?;
        if json {
            Ok(vec![movetree::build_selected(&moves).to_json()])
        } else {
            let plain: Vec<(String, Vec<String>)> = moves.into_iter().map(|(t, a, _)| (t, a)).collect();
            Ok(movetree::build(&plain).to_text())
        }
    }
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
pub struct Match<G: Engine> {
    pub pos: G,
    moves: Vec<G::Move>,
    texts: Vec<String>,
}

impl<G: Engine> Match<G> {
    pub fn new(pos: G) -> Self {
        Match { pos, moves: Vec::new(), texts: Vec::new() }
    }
}

impl<G: Engine> AnyGame for Match<G> {
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
    fn review(&self, rv: &mut Reviewer) -> Result<(), String> {
        // The start of the game: every move taken back.
        let mut start = self.pos.clone();
        for &mv in self.moves.iter().rev() {
            start.undo(mv);
        }
        G::review(&start, &self.moves, rv)
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
    fn move_selections(&self, max: usize) -> Result<Vec<SelectedMove>, String> {
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
    fn next_actions(&self, prefix: &[String]) -> Option<Result<Vec<movetree::NextAction>, String>> {
        if self.pos.outcome().is_some() {
            return None;
        }
        self.pos.next_actions(prefix)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The generic [`AnyPlayer`] around a `Player<G>`.
struct PlayerBox<G: Engine> {
    name: &'static str,
    inner: Box<dyn Player<G>>,
}

impl<G: Engine> AnyPlayer for PlayerBox<G> {
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
