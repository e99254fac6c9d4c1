//! The static evaluation of Hive positions and the move-ordering hints of
//! the `alphabeta` player's search.
//!
//! Terms, each computed for both colours alike (so swapping the colours
//! of a position negates its score): pressure on each queen (occupied
//! neighbours, an enemy neighbour or a pinned friend counting double a
//! friend that can leave), how many enemy pieces able to travel far (ants,
//! and mosquitoes or ladybugs) threaten the queen's free cells, a beetle
//! on a queen, a pillbug (or a mosquito beside it) guarding its own queen,
//! the mobility of each piece by bug (pinned, covered or boxed-in crawlers
//! count for nothing), and the pieces still in hand. All weights are in
//! [`W`].

use super::Hive;
use super::hex::{Cell, NOWHERE, nb};
use super::movegen::SLIDE_DIRS;
use super::mv::Move;
use super::piece::{Bug, NO_PIECE, PER_SIDE, PIECES, Piece, colour};
use crate::search::pvs::Heuristics;

/// The weights of the evaluation, in one place.
pub struct Weights {
    /// Value of a movable piece of each bug (index `Bug as usize`); a
    /// mosquito takes the best value of its neighbours.
    pub mobile: [i32; 8],
    /// Value of a piece of each bug still in hand.
    pub hand: [i32; 8],
    /// Penalty by queen pressure in half-neighbours (0..=12).
    pub pressure: [i32; 13],
    /// Per free queen cell an enemy far-traveller could fill (only when
    /// the queen has at least three neighbours).
    pub threat: i32,
    /// Enemy beetle on top of the queen.
    pub beetle_on_queen: i32,
    /// Enemy beetle (or mosquito on top) next to the queen.
    pub beetle_near_queen: i32,
    /// Own pillbug power next to the queen.
    pub pillbug_guard: i32,
    /// The queen itself can move.
    pub queen_free: i32,
}

pub const W: Weights = Weights {
    //       Q   S   B   G   A   M   L   P
    mobile: [8, 5, 12, 6, 16, 14, 11, 8],
    hand: [0, 2, 4, 2, 5, 5, 4, 3],
    pressure: [0, 6, 14, 24, 38, 56, 80, 110, 150, 200, 260, 330, 420],
    threat: 10,
    beetle_on_queen: 70,
    beetle_near_queen: 24,
    pillbug_guard: 40,
    queen_free: 10,
};

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

/// The score from White's point of view.
pub fn evaluate_white(g: &Hive) -> i32 {
    // A reference: `W.x[i]` of the constant copies the array each time.
    let w = &W;
    let b = &g.board;
    let pinned = g.articulation_mask();
    let queen_cell = [b.cell[0], b.cell[PER_SIDE]];
    let mut score = [0i32; 2];
    // Movable flags and far-travellers per colour.
    let mut movable = 0u32;
    let mut far = [0i32; 2];
    let mut hand = b.pieces.mask() & !b.placed;
    while hand != 0 {
        let p = hand.trailing_zeros() as Piece;
        hand &= hand - 1;
        score[colour(p)] += w.hand[g.bug(p) as usize];
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
                        if k != Bug::Mosquito && w.mobile[k as usize] > w.mobile[best as usize] {
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
        let mut v = w.mobile[kind as usize];
        if h > 1 {
            v *= 2;
        }
        score[s] += v;
        if matches!(kind, Bug::Ant | Bug::Ladybug) || (kind == Bug::Beetle && h > 1) {
            far[s] += 1;
        }
    }
    for s in 0..2 {
        let q = queen_cell[s];
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
                    score[e] += w.beetle_near_queen;
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
        score[s] -= w.pressure[halves.min(12)];
        if b.h(q) > 1 {
            score[s] -= w.beetle_on_queen;
        }
        if guard {
            score[s] += w.pillbug_guard;
        }
        if occupied >= 3 {
            score[s] -= w.threat * far[e].min(6 - occupied);
        }
        if movable & 1 << (s * PER_SIDE) != 0 {
            score[s] += w.queen_free;
        }
    }
    score[0] - score[1]
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
