//! The rules interface every game implements.
//!
//! [`Game`] holds the rules, the notation and what a position shows (board
//! view, move-tree selections, text); it names nothing of the search. It is
//! static and fast: search, perft and the players work on a concrete
//! `G: Game` with make/unmake. The engine services (options, strategies,
//! analysis, benchmarks, books) are the second trait, `crate::engine::Engine`.
//! The protocol layer sees neither directly: it talks to the registry's
//! type-erased game, built generically on top of both.

use std::fmt;
use std::hash::Hash;

/// Index of a side: 0 moves first, 1 second.
pub type Side = usize;

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Side),
    Draw,
}

/// Why a move string was refused (printed after `invalidmove`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a move of this game at all.
    Parse(String),
    /// A well-formed move that the rules forbid here.
    Illegal(String),
    /// The game has ended.
    GameOver,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Parse(m) => write!(f, "cannot parse move: {m}"),
            MoveError::Illegal(m) => write!(f, "illegal move: {m}"),
            MoveError::GameOver => write!(f, "the game is over"),
        }
    }
}

impl std::error::Error for MoveError {}

/// The rules of one game. Implementations hold a position plus whatever
/// they need to undo moves; `play`/`undo` are the fast make/unmake pair used
/// by search, and are only ever called with legal moves.
pub trait Game: Clone + Send + Sync + 'static {
    type Move: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static;

    // ----- identity ------------------------------------------------------
    /// Name of the game family in the registry and in qualified option
    /// names (`Connect4`, `Mastermind`, `Hive`).
    const FAMILY: &'static str;
    /// The game type string that `newgame` uses when none is given.
    const DEFAULT_TYPE: &'static str;
    /// One-line description of the type grammar, for `info` and `--help`.
    const TYPE_GRAMMAR: &'static str;
    /// The game types a client is offered in a list (UCI's `UCI_Variant`
    /// combo); any other valid type is accepted too.
    const COMMON_TYPES: &'static [&'static str] = &[Self::DEFAULT_TYPE];
    /// How a move of this game is written, with an example (for `help`).
    const MOVE_NOTATION: &'static str = "";
    /// Tokens this family adds to the capability list (last line of
    /// `info`); Hive adds its expansions.
    const CAPABILITIES: &'static [&'static str] = &[];
    /// True if a move's text may contain a space (Hive's `wQ wS1/`). Where
    /// a move must be one token (UCI/UGI, `play`), such a game's space is
    /// written `_` and a `_` is read back as a space; any other game's
    /// moves are read as they are printed (Mastermind's blank is `_`).
    const MOVES_HAVE_SPACES: bool = false;

    /// Parses a game type string (case-insensitive). `None` if the string is
    /// not of this family at all; `Some(Err)` if it is but is invalid
    /// (e.g. `Connect4+10x10`).
    fn parse_type(s: &str) -> Option<Result<Self, String>>;
    /// The canonical game type string of this position's game.
    fn game_type(&self) -> String;
    /// Names of the sides as used in TurnString and GameStateString
    /// (`White`/`Black` for Hive; `WhiteWins`, `Black[3]` ...).
    fn side_names(&self) -> [&'static str; 2];

    // ----- rules ---------------------------------------------------------
    fn side_to_move(&self) -> Side;
    /// Number of plies played from the start position.
    fn ply(&self) -> usize;
    /// Appends every legal move to `out` (nothing once the game is over).
    fn legal_moves(&self, out: &mut Vec<Self::Move>);
    /// Plays a legal move.
    fn play(&mut self, mv: Self::Move);
    /// Takes back `mv`, which must be the last move played.
    fn undo(&mut self, mv: Self::Move);
    /// `None` while the game goes on.
    fn outcome(&self) -> Option<Outcome>;
    /// A hash of the position (for transposition tables).
    fn hash(&self) -> u64;

    // ----- notation ------------------------------------------------------
    /// Parses a move in the current position, leniently, and checks it is
    /// legal.
    fn parse_move(&self, s: &str) -> Result<Self::Move, MoveError>;
    /// Canonical text of a legal move in the current position.
    fn format_move(&self, mv: Self::Move) -> String;
    /// Splits a move list written in one string (after `moves` in
    /// `position`, or a compact notation such as Connect Four's `4453`)
    /// into move strings. Default: split on `;`, or on whitespace if there
    /// is no `;`.
    fn split_move_list(s: &str) -> Vec<String> {
        if s.contains(';') {
            s.split(';').map(|m| m.trim().to_string()).filter(|m| !m.is_empty()).collect()
        } else {
            s.split_whitespace().map(str::to_string).collect()
        }
    }
    /// The decisions a person makes to enter `mv`, in order (the move tree
    /// is built from these). A one-action game returns the move's text.
    fn actions(&self, mv: Self::Move) -> Vec<String> {
        vec![self.format_move(mv)]
    }
    /// What a person selects for each of `actions(mv)` (same length), for
    /// `movetree json` and the GUI. Default: a button per action.
    fn selections(&self, mv: Self::Move) -> Vec<crate::boardview::Select> {
        self.actions(mv).iter().map(|a| crate::boardview::Select::choice(a)).collect()
    }
    /// `board json`: the position drawn generically (see
    /// [`crate::boardview`]); every cell and piece that `selections` names
    /// must be in it. Default: the `show` text only.
    fn board_view(&self) -> crate::boardview::BoardView {
        crate::boardview::BoardView::text_only(self.render(false))
    }
    /// Text after the move list in the GameString (e.g. Mastermind's secret
    /// once known). Default: nothing.
    fn game_string_extra(&self) -> Option<String> {
        None
    }

    /// A GameString token that is not a move (Mastermind's
    /// `Secret=1234`): applied to the fresh game before its moves are
    /// replayed. `Ok(false)`: not an extra of this game.
    fn apply_extra(&mut self, _token: &str) -> Result<bool, String> {
        Ok(false)
    }
    /// Called on a fresh, configured game before the moves of a GameString
    /// are replayed: hidden state drawn by `configure` that the string does
    /// not carry (a random secret) must be dropped. Default: nothing.
    fn before_replay(&mut self) {}
    /// Hidden state a save file keeps as an extra token, even mid-game
    /// (Mastermind: `Secret=1234`). Default: none.
    fn private_extra(&self) -> Option<String> {
        None
    }
    /// True if `legal_moves` would be too many to list (`validmoves`,
    /// `movetree` then answer `err`); the message says why.
    fn too_many_moves(&self) -> Option<String> {
        None
    }
    /// The continuations of a move begun (`prefix`: its first actions),
    /// for one level of the move tree (`movetree json level`) without
    /// listing the legal moves: a game whose moves may be too many to list
    /// answers here. `None` (the default): the legal moves are listed.
    fn next_actions(&self, _prefix: &[String]) -> Option<Result<Vec<crate::movetree::NextAction>, String>> {
        None
    }

    // ----- presentation --------------------------------------------------
    /// The board drawn as text for a person; `color` enables ANSI colours.
    fn render(&self, color: bool) -> String;
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
