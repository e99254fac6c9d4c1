//! Hive with the Mosquito, Ladybug and Pillbug expansions, as the Universal
//! Hive Protocol plays it.
//!
//! Game types `Base`, `Base+M`, `Base+L`, `Base+P`, `Base+ML`, `Base+MP`,
//! `Base+LP`, `Base+MLP`, and as an extension other piece counts
//! (`Base+MLP+G1A4`, see `gametype`); moves in UHP notation (`wS1`, `bG1 -wS1`,
//! `wB1 bQ`, `pass`). Rules in `movegen`, notation in `notation`, the text
//! map in `render`, the AI in `eval` and `players`.

mod board;
mod engine;
mod eval;
mod gametype;
mod hex;
mod movegen;
mod mv;
mod notation;
mod perft;
mod piece;
mod players;
#[cfg(test)]
mod reference_gen;
mod render;
mod review;
#[cfg(test)]
mod rules_tests;
mod searchbench;
mod tune;
mod view;
mod weights;

pub use board::Board;
pub use gametype::{GameType, GameTypeError};
pub use hex::{Cell, CellSet, NOWHERE, ORIGIN, nb};
pub use mv::Move;
pub use piece::{Bug, Expansions, NO_PIECE, PER_SIDE, PIECES, Piece, PieceTable, colour};

use crate::game::{Game, MoveError, Outcome, Side};
use movegen::VecSink;

/// A Hive position with what is needed to take moves back.
#[derive(Clone)]
pub struct Hive {
    pub(crate) board: Board,
    /// The game type (its piece table is `board.pieces`).
    ty: GameType,
    exp: Expansions,
    ply: usize,
    /// The piece moved (or placed, or thrown) by the last ply: it may not
    /// move, be thrown or use the pillbug power now.
    last_moved: Piece,
    /// `last_moved` and the key before each ply played.
    history: Vec<(Piece, u64)>,
    outcome: Option<Outcome>,
    /// Zobrist key of the position, updated by `make`/`unmake`.
    key: u64,
    /// With the `RepetitionDraw` rule: how many times each position
    /// occurred in this game (a third occurrence is a draw).
    repetitions: Option<std::collections::HashMap<u64, u8>>,
}

/// A 64-bit mix (SplitMix64's finaliser) for the Zobrist keys.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Key of piece `p` at `c`, `level` pieces above the ground (one key per
/// piece slot, cell and level).
#[inline]
fn key(p: Piece, c: Cell, level: u8) -> u64 {
    mix(((p as u64) << 24 | (c as u64) << 8 | level as u64) + 1)
}

/// Key of the stunned piece.
#[inline]
fn stun_key(p: Piece) -> u64 {
    if p == NO_PIECE { 0 } else { mix(0xABCD_0000 + p as u64) }
}

const SIDE_KEY: u64 = 0x5DEE_CE66_D1CE_4E5B;

impl Hive {
    /// The empty board of a game type (an [`Expansions`] is the standard
    /// game type with those expansions).
    pub fn new(ty: impl Into<GameType>) -> Hive {
        let ty = ty.into();
        Hive {
            board: Board::new(ty.table()),
            ty,
            exp: ty.exp,
            ply: 0,
            last_moved: NO_PIECE,
            history: Vec::new(),
            outcome: None,
            key: 0,
            repetitions: None,
        }
    }

    /// Turns the `RepetitionDraw` rule on (before any move) or off (at any
    /// time: the positions counted are forgotten).
    pub fn set_repetition_draw(&mut self, on: bool) {
        self.repetitions = on.then(|| {
            let mut m = std::collections::HashMap::new();
            m.insert(self.key ^ stun_key(self.last_moved), 1);
            m
        });
    }

    /// Keys of the positions before this one, earliest first.
    pub fn prior_keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.history.iter().map(|h| h.1)
    }

    /// Sets the ply count and the stunned piece of a position built piece
    /// by piece (tests).
    #[cfg(test)]
    pub(crate) fn set_position_meta(&mut self, ply: usize, stunned: Piece) {
        self.ply = ply;
        self.last_moved = stunned;
        self.key = self.scratch_key();
        self.outcome = self.compute_outcome();
    }

    /// True if a position repeated three times ends the game in a draw.
    pub fn repetition_draw(&self) -> bool {
        self.repetitions.is_some()
    }

    /// The Zobrist key computed from scratch (the incremental one must
    /// equal it).
    #[cfg(test)]
    fn scratch_key(&self) -> u64 {
        let b = &self.board;
        let mut h = stun_key(self.last_moved) ^ if self.side() == 1 { SIDE_KEY } else { 0 };
        for c in b.occupied_cells() {
            let stack = b.stack(c);
            for (i, &p) in stack.iter().rev().enumerate() {
                h ^= key(p, c, i as u8);
            }
        }
        h
    }

    pub fn expansions(&self) -> Expansions {
        self.exp
    }

    /// The game type: expansions and piece counts.
    pub fn type_spec(&self) -> GameType {
        self.ty
    }

    /// The pieces of this game.
    #[inline(always)]
    pub fn pieces(&self) -> &PieceTable {
        &self.board.pieces
    }

    /// The bug of a piece of this game.
    #[inline(always)]
    pub fn bug(&self, p: Piece) -> Bug {
        self.board.pieces.bug(p)
    }

    /// The UHP name of a piece of this game (`wQ`, `bA4`).
    pub fn piece_name(&self, p: Piece) -> String {
        self.board.pieces.name(p)
    }

    /// A piece of this game by its name (lenient, see [`PieceTable::parse`]).
    pub fn parse_piece(&self, s: &str) -> Result<Piece, String> {
        self.board.pieces.parse(s)
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[inline(always)]
    pub fn side(&self) -> usize {
        self.ply & 1
    }

    /// The piece that may not move, be thrown or throw this ply.
    pub fn stunned(&self) -> Piece {
        self.last_moved
    }

    /// Legal moves as a fresh vector.
    pub fn moves(&self) -> Vec<Move> {
        let mut v = Vec::new();
        self.generate(&mut VecSink(&mut v));
        v
    }

    /// Plays moves given as text, one after the other, naming the first
    /// one refused.
    pub fn play_all<'a>(&mut self, moves: impl IntoIterator<Item = &'a str>) -> Result<(), MoveError> {
        for (i, m) in moves.into_iter().enumerate() {
            let mv = self.parse_move(m).map_err(|e| match e {
                MoveError::Parse(t) => MoveError::Parse(format!("move {} '{m}': {t}", i + 1)),
                MoveError::Illegal(t) => MoveError::Illegal(format!("move {} '{m}': {t}", i + 1)),
                MoveError::GameOver => MoveError::Illegal(format!("move {} '{m}': the game is over", i + 1)),
            })?;
            self.play(mv);
        }
        Ok(())
    }

    /// A position from a GameString, for tests (the engine loads games
    /// through `crate::gamestring`). The state and turn fields may be left
    /// out: `Base;wS1;bS1 wS1-`.
    #[cfg(test)]
    pub fn from_game_string(s: &str) -> Result<Hive, String> {
        let mut parts = s.split(';');
        let ty: GameType = parts.next().unwrap_or("").parse().map_err(|e: GameTypeError| e.to_string())?;
        let mut g = Hive::new(ty);
        let rest: Vec<&str> = parts.collect();
        // Skip the state and turn fields when present.
        let skip = rest
            .iter()
            .take(2)
            .take_while(|t| {
                let l = t.trim().to_ascii_lowercase();
                ["notstarted", "inprogress", "draw", "whitewins", "blackwins"].contains(&l.as_str())
                    || l.starts_with("white[")
                    || l.starts_with("black[")
            })
            .count();
        g.play_all(rest[skip..].iter().map(|m| m.trim()).filter(|m| !m.is_empty()))
            .map_err(|e| e.to_string())?;
        Ok(g)
    }

    fn compute_outcome(&self) -> Option<Outcome> {
        let b = &self.board;
        let lost = |side: usize| {
            let c = b.cell[side * PER_SIDE];
            c != NOWHERE && b.surrounded(c)
        };
        match (lost(0), lost(1)) {
            (true, true) => Some(Outcome::Draw),
            (true, false) => Some(Outcome::Win(1)),
            (false, true) => Some(Outcome::Win(0)),
            (false, false) => None,
        }
    }

    /// Makes a move (legal, not checked).
    #[inline]
    pub fn make(&mut self, mv: Move) {
        self.history.push((self.last_moved, self.key));
        let mut k = self.key ^ SIDE_KEY ^ stun_key(self.last_moved);
        if mv.is_pass() {
            self.last_moved = NO_PIECE;
        } else {
            let p = mv.piece;
            if mv.from != NOWHERE {
                let q = self.board.pop(mv.from);
                debug_assert_eq!(p, q);
                k ^= key(p, mv.from, self.board.h(mv.from));
            }
            k ^= key(p, mv.to, self.board.h(mv.to));
            self.board.push(p, mv.to);
            self.last_moved = p;
            k ^= stun_key(p);
        }
        self.key = k;
        self.ply += 1;
        self.outcome = if mv.is_pass() { None } else { self.compute_outcome() };
        if let Some(r) = &mut self.repetitions {
            // The stunned piece is not part of a repeated position (as
            // nokamute counts them).
            let n = r.entry(k ^ stun_key(self.last_moved)).or_insert(0);
            *n = n.saturating_add(1);
            if *n >= 3 && self.outcome.is_none() {
                self.outcome = Some(Outcome::Draw);
            }
        }
    }

    /// Takes back the last move.
    #[inline]
    pub fn unmake(&mut self, mv: Move) {
        let rk = self.key ^ stun_key(self.last_moved);
        if let Some(r) = &mut self.repetitions
            && let Some(n) = r.get_mut(&rk)
        {
            *n -= 1;
            if *n == 0 {
                r.remove(&rk);
            }
        }
        let mut k = self.key ^ SIDE_KEY ^ stun_key(self.last_moved);
        if !mv.is_pass() {
            let _p = self.board.pop(mv.to);
            debug_assert_eq!(_p, mv.piece);
            k ^= key(mv.piece, mv.to, self.board.h(mv.to));
            if mv.from != NOWHERE {
                k ^= key(mv.piece, mv.from, self.board.h(mv.from));
                self.board.push(mv.piece, mv.from);
            }
        }
        let (last, before) = self.history.pop().unwrap_or((NO_PIECE, 0));
        self.last_moved = last;
        self.key = k ^ stun_key(self.last_moved);
        debug_assert_eq!(self.key, before);
        self.ply -= 1;
        // The position before a move was never over (or it was a draw by
        // repetition that the rules recorded: play stops there).
        self.outcome = None;
    }
}

impl Game for Hive {
    fn board_view(&self) -> crate::boardview::BoardView {
        view::board_view(self)
    }
    fn selections(&self, mv: Move) -> Vec<crate::boardview::Select> {
        view::selections(self, mv)
    }
    type Move = Move;

    const FAMILY: &'static str = "Hive";
    const DEFAULT_TYPE: &'static str = "Base";
    const TYPE_GRAMMAR: &'static str = "Base | Base+M | Base+L | Base+P | Base+ML | Base+MP | Base+LP | Base+MLP, \
         optionally +<counts> (S B G A each with 0..9, at most 15 pieces a side: Base+MLP+G1A4)";
    const CAPABILITIES: &'static [&'static str] = &["Mosquito", "Ladybug", "Pillbug"];
    const MOVES_HAVE_SPACES: bool = true;
    const COMMON_TYPES: &'static [&'static str] =
        &["Base", "Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP", "Base+LP", "Base+MLP"];
    const MOVE_NOTATION: &'static str = "UHP MoveStrings: a piece, then a reference piece with -, / or \\ on the side of the destination (play bG1 -wS1; play wQ wS1/), the first move a piece alone (play wS1), pass; in UCI/UGI modes a space is written _ (wQ_wS1/)";

    fn parse_type(s: &str) -> Option<Result<Self, String>> {
        let t = s.trim();
        if !t.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("base")) {
            return None;
        }
        Some(t.parse::<GameType>().map(Hive::new).map_err(|e| e.to_string()))
    }

    fn game_type(&self) -> String {
        self.ty.to_string()
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["White", "Black"]
    }

    fn side_to_move(&self) -> Side {
        self.side()
    }

    fn ply(&self) -> usize {
        self.ply
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        self.generate(&mut VecSink(out));
    }

    fn play(&mut self, mv: Move) {
        self.make(mv)
    }

    fn undo(&mut self, mv: Move) {
        self.unmake(mv)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Zobrist key of every piece at its cell and level, the side to
    /// move and the stunned piece, kept up to date by `play`/`undo`.
    #[inline]
    fn hash(&self) -> u64 {
        self.key
    }

    fn parse_move(&self, s: &str) -> Result<Move, MoveError> {
        notation::parse_move(self, s)
    }

    fn format_move(&self, mv: Move) -> String {
        notation::format_move(self, mv)
    }

    /// Moves are separated by `;` (they contain spaces). Without any `;`,
    /// whitespace-separated tokens are paired as `Piece Target`, `pass`
    /// standing alone and, when the other tokens are odd in number, the
    /// first piece alone (the first move of a game).
    fn split_move_list(s: &str) -> Vec<String> {
        if s.contains(';') {
            return s.split(';').map(|m| m.trim().to_string()).filter(|m| !m.is_empty()).collect();
        }
        let toks: Vec<&str> = s.split_whitespace().collect();
        let pieces = toks.iter().filter(|t| !t.eq_ignore_ascii_case("pass")).count();
        let mut bare_first = pieces % 2 == 1;
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            if toks[i].eq_ignore_ascii_case("pass") || bare_first || i + 1 == toks.len() {
                bare_first &= toks[i].eq_ignore_ascii_case("pass");
                out.push(toks[i].to_string());
                i += 1;
            } else {
                out.push(format!("{} {}", toks[i], toks[i + 1]));
                i += 2;
            }
        }
        out
    }

    /// The piece, then its destination.
    fn actions(&self, mv: Move) -> Vec<String> {
        let text = self.format_move(mv);
        match text.split_once(' ') {
            Some((p, t)) => vec![p.to_string(), t.to_string()],
            None => vec![text],
        }
    }

    fn render(&self, color: bool) -> String {
        render::render(self, color)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash_of(moves: &str) -> u64 {
        Game::hash(&Hive::from_game_string(moves).unwrap())
    }

    #[test]
    fn hash_sees_transpositions_and_differences() {
        let a = hash_of("Base;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 -wQ;bA1 bQ-;wG1 \\wQ;bG1 bA1-");
        let b = hash_of("Base;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wG1 \\wQ;bA1 bQ-;wA1 -wQ;bG1 bA1-");
        let c = hash_of("Base;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wG1 \\wQ;bG1 bQ-;wA1 -wQ;bA1 bG1-");
        // a and b transpose; c swaps bA1 and bG1.
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(hash_of("Base;wS1"), hash_of("Base;wG1"));
    }

    /// The incremental key equals the key computed from scratch along
    /// random games, through moves and take-backs.
    #[test]
    fn incremental_key_matches_scratch_key() {
        use rand::rngs::StdRng;
        use rand::{Rng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(5);
        for t in ["Base", "Base+MLP", "Base+P", "Base+M", "Base+M+B5", "Base+MLP+S0G1A4"] {
            for _ in 0..8 {
                let mut g = Hive::from_game_string(t).unwrap();
                let mut played = Vec::new();
                for _ in 0..150 {
                    if g.outcome().is_some() {
                        break;
                    }
                    let v = g.moves();
                    let m = v[rng.random_range(0..v.len())];
                    g.play(m);
                    played.push(m);
                    assert_eq!(g.hash(), g.scratch_key());
                    if rng.random_range(0..4) == 0 {
                        let m = played.pop().unwrap();
                        g.undo(m);
                        assert_eq!(g.hash(), g.scratch_key());
                    }
                }
                while let Some(m) = played.pop() {
                    g.undo(m);
                    assert_eq!(g.hash(), g.scratch_key());
                }
                assert_eq!(g.hash(), 0);
            }
        }
    }

    /// Moves both queens out and back `rounds` times from `start` (or
    /// until the game ends); returns the game and the moves played.
    fn shuttle(start: &str, repetition_draw: bool, rounds: usize) -> (Hive, Vec<Move>) {
        let mut g = Hive::from_game_string(start).unwrap();
        g.set_repetition_draw(repetition_draw);
        let mut played = Vec::new();
        let queen_move = |g: &Hive, q: Piece| g.moves().into_iter().find(|m| m.piece == q).unwrap();
        let back = |g: &Hive, m: Move| {
            g.moves().into_iter().find(|x| x.piece == m.piece && x.from == m.to && x.to == m.from).unwrap()
        };
        'outer: for _ in 0..rounds {
            let a = queen_move(&g, 0);
            let b = {
                g.play(a);
                let b = queen_move(&g, PER_SIDE as Piece);
                g.undo(a);
                b
            };
            let mut step = |g: &mut Hive, m: Move| {
                g.play(m);
                played.push(m);
                g.outcome().is_some()
            };
            if step(&mut g, a) || step(&mut g, b) {
                break 'outer;
            }
            let a2 = back(&g, a);
            if step(&mut g, a2) {
                break 'outer;
            }
            let b2 = back(&g, b);
            if step(&mut g, b2) {
                break 'outer;
            }
        }
        (g, played)
    }

    #[test]
    fn threefold_repetition_is_a_draw_only_with_the_option() {
        let start = "Base;wS1;bS1 wS1-;wQ -wS1;bQ bS1-";
        let (mut g, played) = shuttle(start, true, 5);
        // The start position is seen after 0, 4 and 8 moves of shuttling.
        assert_eq!(g.outcome(), Some(Outcome::Draw));
        assert_eq!(played.len(), 8);
        assert_eq!(crate::game::state_string(&g), "Draw");
        assert!(g.moves().is_empty());
        // Taking the drawing move back resumes the game.
        g.undo(*played.last().unwrap());
        assert_eq!(g.outcome(), None);
        assert!(!g.moves().is_empty());
        // Without the option the shuttle goes on.
        let (g2, played2) = shuttle(start, false, 5);
        assert_eq!(g2.outcome(), None);
        assert_eq!(played2.len(), 20);
    }

    #[test]
    fn game_strings_are_replayed_and_checked() {
        let g = Hive::from_game_string("base+mlp;InProgress;White[2];wS1;bP wS1-").unwrap();
        assert_eq!((g.game_type(), g.ply()), ("Base+MLP".to_string(), 2));
        // State and turn fields are not trusted (and may be left out).
        assert_eq!(Hive::from_game_string("Base;Draw;Black[9];wS1").unwrap().ply(), 1);
        assert!(Hive::from_game_string("Base;wS1;bS1 wS1-;wQ wS1").is_err());
        assert!(Hive::from_game_string("Chess").is_err());
        assert!(Hive::parse_type("Base+MLP").unwrap().is_ok());
        assert!(Hive::parse_type("Base+Q").unwrap().is_err());
        assert!(Hive::parse_type("Connect4").is_none());
    }

    #[test]
    fn game_types_with_other_counts() {
        let g = Hive::from_game_string("base+a4+mlp+g1;InProgress;Black[5];wA1;bA1 wA1-;wA2 -wA1;bA2 bA1-;wA3 -wA2;bA3 bA2-;wQ -wA3;bQ bA3-;wA4 -wQ").unwrap();
        assert_eq!(g.game_type(), "Base+MLP+G1A4");
        assert_eq!(g.type_spec().count(Bug::Ant), 4);
        assert_eq!(g.pieces().per_side(), 13);
        // Every piece of a side has a distinct UHP name.
        let names: std::collections::BTreeSet<String> = g.pieces().all().map(|p| g.piece_name(p)).collect();
        assert_eq!(names.len(), 26);
        assert!(names.contains("wA4") && names.contains("bG1") && !names.contains("bG2"));
        let err = |t: &str| Hive::parse_type(t).unwrap().err().unwrap();
        assert!(err("Base+Q2").contains("exactly one queen"));
        assert!(err("Base+A10").contains("0..9"));
        assert!(err("Base+MLP+A9").contains("at most 15"));
        // With six beetles a side, a stack may be taller than 7; its keys
        // stay distinct (level bits do not spill into the cell bits).
        let mut g = Hive::new("Base+B6".parse::<GameType>().unwrap());
        let mut keys = std::collections::HashSet::new();
        for level in 0..16u8 {
            for c in [ORIGIN, ORIGIN + 1] {
                assert!(keys.insert(key(3, c, level)));
            }
        }
        g.play_all(["wB1", "bB1 wB1-", "wQ -wB1", "bQ bB1-"]).unwrap();
        assert_eq!(g.hash(), g.scratch_key());
    }

    /// A side with every piece placed only moves.
    #[test]
    fn a_side_out_of_pieces_only_moves() {
        // One spider and the queen a side, nothing else.
        let mut g = Hive::from_game_string("Base+S1B0G0A0").unwrap();
        assert_eq!(g.moves().len(), 1); // wS1 at the origin: the queen waits
        g.play_all(["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"]).unwrap();
        // Only White's queen can move: both spiders are pinned.
        let v = g.moves();
        assert!(!v.is_empty() && v.iter().all(|m| m.piece == 0 && !m.is_placement()));
        assert_eq!(g.render(false).lines().filter(|l| l.ends_with("in hand: -")).count(), 2);
    }
}
