//! A slow reference move generator, written straight from the rules of
//! `reference/hive.md` and sharing nothing with `movegen` but the hex
//! geometry (`nb`), the piece table (which piece number is which bug) and,
//! to build positions, the board of a [`Hive`].
//!
//! Its own position keeps each stack as a vector in a map; every test is
//! done the obvious way: the one-hive rule by a flood fill after lifting
//! the piece, freedom of movement by looking at the two cells next to both
//! ends of a step, each bug's movement from its definition, the pillbug
//! power and the mosquito's copies by enumeration. Its perft is checked
//! against the published counts, then against the fast generator's for
//! game types with other piece counts, and so are the sets of moves at
//! random positions.

use std::collections::{BTreeMap, BTreeSet};

use super::hex::{Cell, ORIGIN, nb};
use super::piece::{Bug, Piece, PieceTable, colour};
use super::{GameType, Hive};
use crate::engine::Engine;
use crate::game::Game;

/// A position of the reference generator.
#[derive(Clone)]
pub struct RefPos {
    pieces: PieceTable,
    /// Every stack, bottom first.
    stacks: BTreeMap<Cell, Vec<Piece>>,
    ply: usize,
    /// The piece placed, moved or thrown by the last ply.
    stunned: Option<Piece>,
    over: bool,
}

/// A reference move: a piece to a cell (placements and moves alike), or
/// a pass.
pub type RefMove = Option<(Piece, Cell)>;

fn neighbours(c: Cell) -> [Cell; 6] {
    std::array::from_fn(|d| nb(c, d))
}

/// The two cells next to both `a` and `b` (which are neighbours).
fn beside(a: Cell, b: Cell) -> Vec<Cell> {
    let nb_b = neighbours(b);
    neighbours(a).into_iter().filter(|x| nb_b.contains(x)).collect()
}

/// Stacks as a map, with the lifting of one piece.
type Stacks = BTreeMap<Cell, Vec<Piece>>;

fn height(s: &Stacks, c: Cell) -> usize {
    s.get(&c).map_or(0, |v| v.len())
}

fn top(s: &Stacks, c: Cell) -> Option<Piece> {
    s.get(&c).and_then(|v| v.last().copied())
}

fn lift(s: &Stacks, c: Cell) -> Stacks {
    let mut s = s.clone();
    let v = s.get_mut(&c).expect("a stack");
    v.pop();
    if v.is_empty() {
        s.remove(&c);
    }
    s
}

/// True if the occupied cells form one group.
fn connected(s: &Stacks) -> bool {
    let Some(&start) = s.keys().next() else { return true };
    let mut seen = BTreeSet::from([start]);
    let mut todo = vec![start];
    while let Some(c) = todo.pop() {
        for n in neighbours(c) {
            if s.contains_key(&n) && seen.insert(n) {
                todo.push(n);
            }
        }
    }
    seen.len() == s.len()
}

/// A step from `a` to its neighbour `b` with the mover off the board: on
/// the ground (both ends empty) exactly one of the two cells beside the
/// step is occupied (both: a gate; neither: contact lost); any other step
/// (climbing, on top, down) is blocked when both cells beside it are higher
/// than both ends.
fn step_ok(s: &Stacks, a: Cell, b: Cell) -> bool {
    let (ha, hb) = (height(s, a), height(s, b));
    let sides: Vec<usize> = beside(a, b).into_iter().map(|c| height(s, c)).collect();
    if ha == 0 && hb == 0 {
        sides.iter().filter(|&&h| h > 0).count() == 1
    } else {
        sides.iter().min().copied().unwrap_or(0) <= ha.max(hb)
    }
}

/// Empty neighbours of `a` reachable by one ground slide.
fn slides(s: &Stacks, a: Cell) -> Vec<Cell> {
    neighbours(a).into_iter().filter(|&b| height(s, b) == 0 && step_ok(s, a, b)).collect()
}

/// Destinations of a bug moving from `o` (the board `s` without it; `o`
/// was the mover's cell).
fn bug_moves(s: &Stacks, bug: Bug, o: Cell, out: &mut BTreeSet<Cell>) {
    match bug {
        Bug::Queen | Bug::Pillbug => out.extend(slides(s, o)),
        Bug::Beetle => out.extend(neighbours(o).into_iter().filter(|&b| step_ok(s, o, b))),
        Bug::Grasshopper => {
            for d in 0..6 {
                let mut t = nb(o, d);
                if height(s, t) == 0 {
                    continue;
                }
                while height(s, t) > 0 {
                    t = nb(t, d);
                }
                out.insert(t);
            }
        }
        Bug::Spider => {
            // Every path of exactly three slides through four distinct cells.
            for c1 in slides(s, o) {
                for c2 in slides(s, c1).into_iter().filter(|&c| c != o) {
                    out.extend(slides(s, c2).into_iter().filter(|&c| c != o && c != c1));
                }
            }
        }
        Bug::Ant => {
            let mut seen = BTreeSet::from([o]);
            let mut todo = vec![o];
            while let Some(a) = todo.pop() {
                for b in slides(s, a) {
                    if seen.insert(b) {
                        todo.push(b);
                        out.insert(b);
                    }
                }
            }
        }
        Bug::Ladybug => {
            let occupied_steps =
                |a: Cell| neighbours(a).into_iter().filter(move |&b| height(s, b) > 0 && step_ok(s, a, b));
            for c1 in occupied_steps(o) {
                for c2 in occupied_steps(c1) {
                    for c3 in neighbours(c2) {
                        if c3 != o && height(s, c3) == 0 && step_ok(s, c2, c3) {
                            out.insert(c3);
                        }
                    }
                }
            }
        }
        Bug::Mosquito => unreachable!("a mosquito moves as the bugs it touches"),
    }
}

impl RefPos {
    /// The empty board of a game type.
    pub fn new(ty: GameType) -> RefPos {
        RefPos { pieces: ty.table(), stacks: BTreeMap::new(), ply: 0, stunned: None, over: false }
    }

    /// The position of a fast-generator game (pieces, side to move,
    /// stunned piece, end of the game).
    pub fn from_hive(g: &Hive) -> RefPos {
        let mut stacks = BTreeMap::new();
        for c in g.board.occupied_cells() {
            let mut v = g.board.stack(c);
            v.reverse();
            stacks.insert(c, v);
        }
        let st = g.stunned();
        RefPos {
            pieces: *g.pieces(),
            stacks,
            ply: g.ply(),
            stunned: (st != super::NO_PIECE).then_some(st),
            over: g.outcome().is_some(),
        }
    }

    fn on_board(&self, p: Piece) -> bool {
        self.stacks.values().any(|v| v.contains(&p))
    }

    fn cell_of(&self, p: Piece) -> Option<Cell> {
        self.stacks.iter().find(|(_, v)| v.contains(&p)).map(|(&c, _)| c)
    }

    fn bug(&self, p: Piece) -> Bug {
        self.pieces.bug(p)
    }

    /// Every legal move; a lone pass when there is none; nothing once the
    /// game is over.
    pub fn moves(&self) -> Vec<RefMove> {
        if self.over {
            return Vec::new();
        }
        let mut set: BTreeSet<(Piece, Cell)> = BTreeSet::new();
        let me = self.ply % 2;
        let turn = self.ply / 2 + 1;
        let queen = self.pieces.piece(me, Bug::Queen, 1).expect("a queen");
        let queen_down = self.on_board(queen);
        let s = &self.stacks;
        // Placements: the first piece in hand of each bug.
        let mut in_hand: Vec<Piece> = Vec::new();
        for b in Bug::ALL {
            let first = (1..=self.pieces.count(b))
                .filter_map(|n| self.pieces.piece(me, b, n))
                .find(|&p| !self.on_board(p));
            if let Some(p) = first {
                let allowed = if b == Bug::Queen { turn != 1 } else { queen_down || turn != 4 };
                if allowed {
                    in_hand.push(p);
                }
            }
        }
        let mine_down = s.values().any(|v| v.iter().any(|&p| colour(p) == me));
        let cells: BTreeSet<Cell> = if s.is_empty() {
            BTreeSet::from([ORIGIN])
        } else if !mine_down {
            // A side's first piece touches the hive (Black's first piece).
            s.keys().flat_map(|&c| neighbours(c)).filter(|&c| height(s, c) == 0).collect()
        } else {
            s.keys()
                .flat_map(|&c| neighbours(c))
                .filter(|&c| height(s, c) == 0)
                .filter(|&c| {
                    let tops: Vec<usize> =
                        neighbours(c).into_iter().filter_map(|n| top(s, n)).map(colour).collect();
                    tops.contains(&me) && !tops.contains(&(1 - me))
                })
                .collect()
        };
        for &p in &in_hand {
            for &c in &cells {
                set.insert((p, c));
            }
        }
        if queen_down {
            for (&o, stack) in s {
                let p = *stack.last().expect("a stack");
                if colour(p) != me || Some(p) == self.stunned {
                    continue;
                }
                let lifted = lift(s, o);
                if stack.len() == 1 && !connected(&lifted) {
                    continue; // pinned
                }
                let mut dests = BTreeSet::new();
                match self.bug(p) {
                    Bug::Mosquito if stack.len() > 1 => bug_moves(&lifted, Bug::Beetle, o, &mut dests),
                    Bug::Mosquito => {
                        for n in neighbours(o) {
                            match top(s, n).map(|q| self.bug(q)) {
                                Some(Bug::Mosquito) | None => {}
                                Some(b) => bug_moves(&lifted, b, o, &mut dests),
                            }
                        }
                    }
                    b => bug_moves(&lifted, b, o, &mut dests),
                }
                dests.remove(&o);
                for t in dests {
                    set.insert((p, t));
                }
            }
            self.throws(&mut set);
        }
        if set.is_empty() {
            return vec![None];
        }
        set.into_iter().map(Some).collect()
    }

    /// The pillbug power of the side to move: its pillbug, or its mosquito
    /// beside a pillbug, on the ground and not stunned, lifts a lone
    /// neighbour (not the stunned piece, not pinned) over itself to an empty
    /// neighbour, through no gate at height.
    fn throws(&self, set: &mut BTreeSet<(Piece, Cell)>) {
        let me = self.ply % 2;
        let s = &self.stacks;
        for (&u, stack) in s {
            let user = *stack.last().expect("a stack");
            if colour(user) != me || stack.len() != 1 || Some(user) == self.stunned {
                continue;
            }
            let power = match self.bug(user) {
                Bug::Pillbug => true,
                Bug::Mosquito => {
                    neighbours(u).into_iter().any(|n| top(s, n).map(|q| self.bug(q)) == Some(Bug::Pillbug))
                }
                _ => false,
            };
            if !power {
                continue;
            }
            for n in neighbours(u) {
                if height(s, n) != 1 {
                    continue;
                }
                let x = top(s, n).expect("a piece");
                if Some(x) == self.stunned {
                    continue;
                }
                let lifted = lift(s, n);
                if !connected(&lifted) || !step_ok(&lifted, n, u) {
                    continue;
                }
                for t in neighbours(u) {
                    if t != n && height(&lifted, t) == 0 && step_ok(&lifted, u, t) {
                        set.insert((x, t));
                    }
                }
            }
        }
    }

    /// Plays a move given by [`RefPos::moves`].
    pub fn play(&mut self, m: RefMove) {
        self.ply += 1;
        let Some((p, t)) = m else {
            self.stunned = None;
            return;
        };
        if let Some(o) = self.cell_of(p) {
            self.stacks = lift(&self.stacks, o);
        }
        self.stacks.entry(t).or_default().push(p);
        self.stunned = Some(p);
        self.over = (0..2).any(|side| {
            let q = self.pieces.piece(side, Bug::Queen, 1).expect("a queen");
            self.cell_of(q).is_some_and(|c| neighbours(c).into_iter().all(|n| height(&self.stacks, n) > 0))
        });
    }

    /// Leaf positions after exactly `depth` plies.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|m| {
                let mut next = self.clone();
                next.play(m);
                next.perft(depth - 1)
            })
            .sum()
    }
}

/// The fast generator's moves as (piece, destination), passes left out.
fn fast_moves(g: &Hive) -> BTreeSet<(Piece, Cell)> {
    g.moves().into_iter().filter(|m| !m.is_pass()).map(|m| (m.piece, m.to)).collect()
}

/// Plays random games of `ty` and compares both generators' moves at every
/// position, and their perft to `depth` at every `every`-th ply. Returns
/// the number of positions compared.
pub fn compare_random_games(
    ty: GameType,
    games: usize,
    plies: usize,
    seed: u64,
    depth: u32,
    every: usize,
) -> usize {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let mut positions = 0;
    for _ in 0..games {
        let mut g = Hive::new(ty);
        for ply in 0..plies {
            let r = RefPos::from_hive(&g);
            let slow: BTreeSet<(Piece, Cell)> = r.moves().into_iter().flatten().collect();
            let fast = fast_moves(&g);
            if slow != fast {
                let show = |s: &BTreeSet<(Piece, Cell)>| {
                    s.iter()
                        .map(|&(p, t)| {
                            g.format_move(super::Move { piece: p, from: g.board.cell[p as usize], to: t })
                        })
                        .collect::<Vec<_>>()
                };
                panic!(
                    "{ty}: only fast {:?}, only reference {:?}\n{}",
                    show(&fast.difference(&slow).copied().collect()),
                    show(&slow.difference(&fast).copied().collect()),
                    g.render(false)
                );
            }
            positions += 1;
            if depth > 0 && ply % every == every - 1 {
                assert_eq!(r.perft(depth), g.perft(depth), "{ty} perft({depth}) at\n{}", g.render(false));
            }
            let v = g.moves();
            if v.is_empty() {
                break;
            }
            g.play(v[rng.random_range(0..v.len())]);
        }
    }
    positions
}

/// The variants the tests compare on.
pub const VARIANTS: [&str; 6] =
    ["Base+S0", "Base+MLP+G1A4", "Base+B6", "Base+P+S1B4G1A2", "Base+ML+S4A1", "Base+MP+B4G0A5"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hive::Expansions;

    /// The reference reproduces the published counts (placement rules and
    /// the queen rules, from the empty board).
    #[test]
    fn reference_matches_published_counts() {
        let base = RefPos::new(GameType::BASE);
        assert_eq!((1..=4).map(|d| base.perft(d)).collect::<Vec<_>>(), [4, 96, 1_440, 21_600]);
        let mlp = RefPos::new(Expansions::ALL.into());
        assert_eq!((1..=3).map(|d| mlp.perft(d)).collect::<Vec<_>>(), [7, 294, 6_678]);
        let p = RefPos::new("Base+P".parse().unwrap());
        assert_eq!(p.perft(3), 2_610);
    }

    /// The reference agrees with the fast generator on the standard types,
    /// where the fast one is validated by the published counts: move sets
    /// at every position of random games, perft(2) at some.
    #[test]
    fn reference_agrees_on_standard_types() {
        let mut n = 0;
        for (i, t) in Expansions::all_types().iter().enumerate() {
            n += compare_random_games(t.parse().unwrap(), 2, 70, 100 + i as u64, 2, 23);
        }
        assert!(n > 600, "{n}");
    }

    /// Other piece counts: the same sets of moves at random positions and
    /// the same perft from the empty board and from positions of random
    /// games.
    #[test]
    fn reference_agrees_on_other_counts() {
        for (i, t) in VARIANTS.iter().enumerate() {
            let ty: GameType = t.parse().unwrap();
            assert!(!ty.is_standard());
            let r = RefPos::new(ty);
            let mut g = Hive::new(ty);
            assert_eq!(r.perft(3), g.perft(3), "{t}");
            let n = compare_random_games(ty, 3, 80, 7 + i as u64, 2, 19);
            assert!(n > 100, "{t}: {n}");
        }
    }

    /// The counts `meeple bench hive` checks are the reference's (to depth
    /// 3 here, 5 in `reference_deep`).
    #[test]
    fn bench_table_is_the_references() {
        let table = &crate::games::hive::perft::REFERENCE;
        for t in VARIANTS {
            let (_, counts) =
                table.iter().find(|r| r.0 == t).unwrap_or_else(|| panic!("{t} not in the table"));
            let r = RefPos::new(t.parse().unwrap());
            for d in 1..=3 {
                assert_eq!(r.perft(d), counts[d as usize - 1], "{t} perft({d})");
            }
        }
    }

    /// Deeper comparisons (minutes even in a release build): `cargo test
    /// --release --lib reference_deep -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn reference_deep() {
        let table = &crate::games::hive::perft::REFERENCE;
        for (t, counts) in table {
            let ty: GameType = t.parse().unwrap();
            let r = RefPos::new(ty);
            let n = r.perft(5);
            assert_eq!(n, counts[4], "{t}");
            assert_eq!(Hive::new(ty).perft(5), n, "{t}");
            eprintln!("{t}: perft(5) = {n}, reference and fast alike");
        }
        for t in VARIANTS {
            let ty: GameType = t.parse().unwrap();
            let n = compare_random_games(ty, 20, 150, 99, 3, 37);
            eprintln!("{t}: {n} positions of 20 random games: same moves; perft(3) alike at every 37th ply");
        }
    }
}
