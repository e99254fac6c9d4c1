//! The static evaluation of Hive positions and the move-ordering hints of
//! the `alphabeta` player's search.
//!
//! The evaluation is a sum of terms, each a weight times a count, computed
//! for both colours alike (so swapping the colours of a position negates
//! its score): pressure on each queen (occupied neighbours, an enemy
//! neighbour or a pinned friend counting double a friend that can leave),
//! how many enemy pieces able to travel far (ants, and mosquitoes or
//! ladybugs) threaten the queen's free cells, a beetle on a queen, a
//! pillbug (or a mosquito beside it) guarding its own queen, the mobility
//! of each piece by bug (pinned, covered or boxed-in crawlers count for
//! nothing), the pieces still in hand, how few cells a side with pieces
//! in hand has to place them, and the move. The weights are [`W`]
//! (`weights.rs`, written by the tuner: `meeple bench hive --tune`, see
//! `tune.rs`); [`terms`] walks the terms once, for the score
//! ([`evaluate_white`]) and for the tuner's counts alike.

use super::Hive;
use super::hex::{Cell, NOWHERE, nb};
use super::movegen::SLIDE_DIRS;
use super::mv::Move;
use super::piece::{Bug, NO_PIECE, PER_SIDE, PIECES, Piece, colour};
pub use super::weights::W;
use crate::search::pvs::Heuristics;

/// Where each term's weight sits in a [`Weights`] vector.
pub mod term {
    /// A movable piece of each bug (`+ Bug as usize`), twice for a piece on
    /// top of the hive; a mosquito counts as the best bug it touches (by
    /// the weights of this table).
    pub const MOBILE: usize = 0;
    /// A piece of each bug still in hand (`+ Bug as usize`).
    pub const HAND: usize = 8;
    /// Queen pressure in half-neighbours, 0..=12 (`+ halves`), counted
    /// against the queen's side.
    pub const PRESSURE: usize = 16;
    /// Per free queen cell an enemy far-traveller could fill (when the
    /// queen has at least three neighbours), against the queen's side.
    pub const THREAT: usize = 29;
    /// An enemy beetle on top of the queen, against the queen's side.
    pub const BEETLE_ON_QUEEN: usize = 30;
    /// An enemy beetle (or mosquito on top) next to the queen, for the
    /// beetle's side.
    pub const BEETLE_NEAR_QUEEN: usize = 31;
    /// An own pillbug power next to the queen.
    pub const PILLBUG_GUARD: usize = 32;
    /// The queen itself can move.
    pub const QUEEN_FREE: usize = 33;
    /// A side with pieces in hand and 0, 1 or 2 cells to place them
    /// (`+ cells`).
    pub const PLACES: usize = 34;
    /// The side to move.
    pub const TEMPO: usize = 37;
    /// Number of weights.
    pub const COUNT: usize = 38;

    /// A short name of each weight, for the tuner's output.
    pub fn name(i: usize) -> String {
        const BUGS: [&str; 8] = ["Q", "S", "B", "G", "A", "M", "L", "P"];
        match i {
            MOBILE..HAND => format!("mobile {}", BUGS[i - MOBILE]),
            HAND..PRESSURE => format!("hand {}", BUGS[i - HAND]),
            PRESSURE..THREAT => format!("pressure {}", i - PRESSURE),
            THREAT => "threat".into(),
            BEETLE_ON_QUEEN => "beetle on queen".into(),
            BEETLE_NEAR_QUEEN => "beetle near queen".into(),
            PILLBUG_GUARD => "pillbug guard".into(),
            QUEEN_FREE => "queen free".into(),
            PLACES..TEMPO => format!("places {}", i - PLACES),
            TEMPO => "tempo".into(),
            _ => format!("weight {i}"),
        }
    }
}

/// The weights of the evaluation, indexed by [`term`].
pub type Weights = [i32; term::COUNT];

/// What [`terms`] reports each term to: `n` times the weight of `term`
/// for side `side`.
pub trait Terms {
    /// True to be told every term; false to skip costly ones whose
    /// weights are 0.
    const ALL: bool;
    fn add(&mut self, side: usize, term: usize, n: i32);
}

/// Sums the weighted terms per side.
struct Score<'a> {
    w: &'a Weights,
    s: [i32; 2],
}

impl Terms for Score<'_> {
    const ALL: bool = false;
    #[inline(always)]
    fn add(&mut self, side: usize, term: usize, n: i32) {
        self.s[side] += self.w[term] * n;
    }
}

/// The table code of a pass (pieces are below 32, so moves code below
/// `32 << 10`).
const PASS_CODE: u16 = 0xFFFE;

/// The evaluator and move-ordering hints of the `alphabeta` player.
pub struct HiveEval;

/// True if a lone ground piece at `c` can slide to some neighbour
/// (freedom to move, keeping contact).
#[inline]
fn can_slide(g: &Hive, c: Cell) -> bool {
    SLIDE_DIRS[g.board.ring[c as usize] as usize] != 0
}

/// The number of empty cells where side `s` may place a piece, up to 3
/// (past the first two plies): the first three distinct ones found.
#[inline]
fn places_up_to_3(g: &Hive, s: usize) -> usize {
    let b = &g.board;
    let mut found = [NOWHERE; 3];
    let mut n = 0;
    let mut tops = b.tops & (0xFFFFu32 << (s * PER_SIDE));
    while tops != 0 {
        let p = tops.trailing_zeros() as usize;
        tops &= tops - 1;
        let c = b.cell[p];
        for d in 0..6 {
            let x = nb(c, d);
            if !b.occupied(x) && b.adj[1 - s][x as usize] == 0 && !found[..n].contains(&x) {
                found[n] = x;
                n += 1;
                if n == 3 {
                    return 3;
                }
            }
        }
    }
    n
}

/// The score from White's point of view.
pub fn evaluate_white(g: &Hive) -> i32 {
    evaluate_white_with(g, &W)
}

/// The score from White's point of view with the weights `w`.
pub fn evaluate_white_with(g: &Hive, w: &Weights) -> i32 {
    let mut sc = Score { w, s: [0; 2] };
    terms(g, w, &mut sc);
    sc.s[0] - sc.s[1]
}

/// Reports every term of the evaluation of `g` to `out` (`w`: the weights
/// that choose what a mosquito counts as).
#[inline(always)]
pub fn terms<T: Terms>(g: &Hive, w: &Weights, out: &mut T) {
    use term::*;
    let b = &g.board;
    let pinned = g.articulation_mask();
    let queen_cell = [b.cell[0], b.cell[PER_SIDE]];
    // Movable flags and far-travellers per colour.
    let mut movable = 0u32;
    let mut far = [0i32; 2];
    let mut in_hand = [false; 2];
    let mut hand = b.pieces.mask() & !b.placed;
    while hand != 0 {
        let p = hand.trailing_zeros() as Piece;
        hand &= hand - 1;
        in_hand[colour(p)] = true;
        out.add(colour(p), HAND + g.bug(p) as usize, 1);
    }
    out.add(g.side(), TEMPO, 1);
    // Few cells to place the pieces in hand (the first two plies always
    // have some); costly (12% of the search's time), so only with a
    // weight.
    if (T::ALL || w[PLACES] | w[PLACES + 1] | w[PLACES + 2] != 0) && g.ply >= 2 {
        for (s, &has) in in_hand.iter().enumerate() {
            if has {
                let n = places_up_to_3(g, s);
                if n < 3 {
                    out.add(s, PLACES + n, 1);
                }
            }
        }
    }
    // The top pieces of the sides with their queen down (the others
    // cannot move).
    let side = |s: usize| if queen_cell[s] != NOWHERE { 0xFFFFu32 << (s * PER_SIDE) } else { 0 };
    let mut tops = b.tops & (side(0) | side(1));
    while tops != 0 {
        let p = tops.trailing_zeros() as Piece;
        tops &= tops - 1;
        let s = colour(p);
        let c = b.cell[p as usize];
        let h = b.h(c);
        let mut kind = g.bug(p);
        if kind == Bug::Mosquito {
            kind = if h > 1 {
                Bug::Beetle
            } else {
                // The best bug it can copy.
                let mut best = Bug::Queen;
                for d in 0..6 {
                    let n = nb(c, d);
                    if b.occupied(n) {
                        let k = g.bug(b.top_at(n));
                        if k != Bug::Mosquito && w[MOBILE + k as usize] > w[MOBILE + best as usize] {
                            best = k;
                        }
                    }
                }
                best
            }
        }
        let free = h > 1
            || (pinned >> p & 1 == 0
                && match kind {
                    Bug::Queen | Bug::Spider | Bug::Ant | Bug::Pillbug => can_slide(g, c),
                    _ => true,
                });
        if !free {
            continue;
        }
        movable |= 1 << p;
        out.add(s, MOBILE + kind as usize, if h > 1 { 2 } else { 1 });
        if matches!(kind, Bug::Ant | Bug::Ladybug) || (kind == Bug::Beetle && h > 1) {
            far[s] += 1;
        }
    }
    for (s, &q) in queen_cell.iter().enumerate() {
        if q == NOWHERE {
            continue;
        }
        let e = 1 - s;
        let mut halves = 0;
        let mut occupied = 0;
        let mut guard = false;
        for d in 0..6 {
            let n = nb(q, d);
            if !b.occupied(n) {
                continue;
            }
            occupied += 1;
            let t = b.top_at(n);
            let tb = g.bug(t);
            if colour(t) == e {
                halves += 2;
                if b.h(n) > 1 || tb == Bug::Beetle {
                    out.add(e, BEETLE_NEAR_QUEEN, 1);
                }
            } else {
                halves += if movable >> t & 1 != 0 { 1 } else { 2 };
                if b.h(q) == 1
                    && b.h(n) == 1
                    && (tb == Bug::Pillbug
                        || (tb == Bug::Mosquito
                            && (0..6).any(|k| {
                                let m = nb(n, k);
                                b.occupied(m) && g.bug(b.top_at(m)) == Bug::Pillbug
                            })))
                    && t != g.stunned()
                {
                    guard = true;
                }
            }
        }
        out.add(s, PRESSURE + halves.min(12), -1);
        if b.h(q) > 1 {
            out.add(s, BEETLE_ON_QUEEN, -1);
        }
        if guard {
            out.add(s, PILLBUG_GUARD, 1);
        }
        if occupied >= 3 {
            out.add(s, THREAT, -far[e].min(6 - occupied));
        }
        if movable & 1 << (s * PER_SIDE) != 0 {
            out.add(s, QUEEN_FREE, 1);
        }
    }
}

/// True if `c` is next to `q` (q may be [`NOWHERE`]): their index
/// difference is one of the six direction offsets.
#[inline]
fn next_to(q: Cell, c: Cell) -> bool {
    q != NOWHERE && c != NOWHERE && matches!(c.wrapping_sub(q) & 1023, 1 | 31 | 32 | 992 | 993 | 1023)
}

impl Heuristics<Hive> for HiveEval {
    fn evaluate(&self, g: &Hive) -> i32 {
        let v = evaluate_white(g);
        if g.side() == 0 { v } else { -v }
    }

    /// Moves onto the enemy queen's ring first, then moves of a piece off
    /// our own queen's ring, other moves, placements; moves that leave the
    /// enemy queen or crowd our own last.
    fn order(&self, g: &Hive, moves: &[Move], out: &mut Vec<i32>) {
        let me = g.side();
        let own_q = g.board.cell[me * PER_SIDE];
        let opp_q = g.board.cell[(1 - me) * PER_SIDE];
        out.extend(moves.iter().map(|m| {
            if m.is_pass() {
                return 0;
            }
            let mut s = 0;
            if next_to(opp_q, m.to) {
                s += 3000;
                if g.bug(m.piece) == Bug::Beetle {
                    s += 200;
                }
            }
            if m.to == opp_q {
                s += 3500;
            }
            if m.from != NOWHERE {
                s += 100;
                if next_to(own_q, m.from) && !next_to(own_q, m.to) {
                    s += 1500;
                }
                if next_to(opp_q, m.from) {
                    s -= 1000;
                }
                if colour(m.piece) != me {
                    // A throw of an enemy piece.
                    s += if next_to(own_q, m.from) { 1200 } else { -200 };
                }
            }
            if next_to(own_q, m.to) {
                s -= 600;
            }
            s
        }));
    }

    /// The piece and the destination (the origin is the piece's cell):
    /// `piece << 10 | to`, a pass [`PASS_CODE`].
    fn move_code(&self, m: Move) -> u16 {
        if m.is_pass() { PASS_CODE } else { (m.piece as u16) << 10 | m.to & 1023 }
    }

    fn code_move(&self, g: &Hive, code: u16) -> Option<Move> {
        if code == PASS_CODE {
            return None;
        }
        let piece = (code >> 10) as Piece;
        let from = g.board.cell[piece as usize % PIECES];
        let m = Move { piece, from, to: code & 1023 };
        g.is_legal(m).then_some(m)
    }

    fn legal(&self, g: &Hive, m: Move) -> bool {
        g.is_legal(m)
    }

    fn history_slot(&self, m: Move) -> usize {
        if m.piece == NO_PIECE { 0 } else { (m.piece as usize) << 10 | m.to as usize & 1023 }
    }

    /// Moves that touch a queen's ring are never reduced.
    fn reducible(&self, g: &Hive, m: Move) -> bool {
        let qs = [g.board.cell[0], g.board.cell[PER_SIDE]];
        !qs.iter().any(|&q| next_to(q, m.to) || next_to(q, m.from) || m.from == q)
    }

    /// The moves that fill the last free cell of the enemy queen, when it
    /// has one (else nothing, told from its neighbour mask).
    fn finishing(&self, g: &Hive, out: &mut Vec<Move>) {
        let q = g.board.cell[(1 - g.side()) * PER_SIDE];
        if q == NOWHERE || g.board.occupied_neighbours(q) != 5 {
            return;
        }
        let ring = g.board.ring[q as usize];
        let Some(d) = (0..6).find(|&d| ring >> d & 1 == 0) else { return };
        g.moves_to(nb(q, d), out);
    }

    /// A move that leaves a queen one cell from surrounded (its fifth
    /// neighbour arrives).
    fn extend(&self, g: &Hive, m: Move) -> bool {
        let b = &g.board;
        !m.is_pass()
            && !b.occupied(m.to)
            && [b.cell[0], b.cell[PER_SIDE]]
                .iter()
                .any(|&q| next_to(q, m.to) && !next_to(q, m.from) && b.occupied_neighbours(q) == 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::hive::hex::{ccw, cw};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// The same position with the colours (and the side to move) swapped.
    fn swapped(g: &Hive) -> Hive {
        let mut h = Hive::new(g.expansions());
        let flip = |p: Piece| if colour(p) == 0 { p + PER_SIDE as Piece } else { p - PER_SIDE as Piece };
        for c in g.board.occupied_cells() {
            for &p in g.board.stack(c).iter().rev() {
                h.board.push(flip(p), c);
            }
        }
        h.set_position_meta(g.ply() + 1, if g.stunned() == NO_PIECE { NO_PIECE } else { flip(g.stunned()) });
        h
    }

    #[test]
    fn swapping_colours_negates_the_score() {
        let mut rng = StdRng::seed_from_u64(11);
        let mut checked = 0;
        for game in 0..30 {
            let t = if game % 2 == 0 { "Base+MLP" } else { "Base" };
            let mut g = Hive::from_game_string(t).unwrap();
            for _ in 0..rng.random_range(2..60) {
                let v = g.moves();
                if v.is_empty() || g.outcome().is_some() {
                    break;
                }
                g.play(v[rng.random_range(0..v.len())]);
            }
            if g.outcome().is_some() {
                continue;
            }
            let s = swapped(&g);
            assert_eq!(evaluate_white(&s), -evaluate_white(&g));
            assert_eq!(HiveEval.evaluate(&s), HiveEval.evaluate(&g));
            checked += 1;
        }
        assert!(checked > 10);
    }

    #[test]
    fn fast_neighbour_tests_match_the_definitions() {
        for q in (0..1024u16).step_by(7).chain([0, 31, 32, 1023, NOWHERE]) {
            for c in (0..1024u16).chain([NOWHERE]) {
                let slow = q != NOWHERE && (0..6).any(|d| nb(q, d) == c);
                assert_eq!(next_to(q, c), slow, "{q} {c}");
            }
        }
        for (m, &dirs) in SLIDE_DIRS.iter().enumerate() {
            let occ = |k: usize| m >> k & 1 != 0;
            let slow = (0..6).any(|d| !occ(d) && occ(ccw(d)) != occ(cw(d)));
            assert_eq!(dirs != 0, slow, "{m:06b}");
            for d in 0..6 {
                let one = !occ(d) && occ(ccw(d)) != occ(cw(d));
                assert_eq!(dirs >> d & 1 != 0, one, "{m:06b} {d}");
            }
        }
    }

    #[test]
    fn pressure_on_a_queen_is_bad_for_its_side() {
        use crate::games::hive::hex::ORIGIN;
        // White's queen at the origin, Black's to its east with three
        // more white ants around it.
        let mut g = Hive::from_game_string("Base").unwrap();
        let bq = nb(ORIGIN, 2);
        g.board.push(0, ORIGIN);
        g.board.push(PER_SIDE as Piece, bq);
        for (i, d) in [1usize, 3, 2].into_iter().enumerate() {
            g.board.push(8 + i as Piece, nb(bq, d));
        }
        g.set_position_meta(10, NO_PIECE);
        let v = evaluate_white(&g);
        assert!(v > 0, "{v}");
        assert_eq!(evaluate_white(&swapped(&g)), -v);
    }
}
