//! Legal move generation: placements, the moves of every bug, the pillbug
//! power, and the pieces pinned by the One Hive rule (all articulation
//! points of the hive in one depth-first search).
//!
//! A moving piece is taken off the board while its paths are computed: the
//! helpers take its origin `o` and treat that cell as empty when the piece
//! was alone there (every ground mover).

use super::Hive;
use super::hex::{CELLS, Cell, CellSet, NOWHERE, ORIGIN, ccw, cw, nb, toward};
use super::mv::Move;
use super::piece::{Bug, NO_PIECE, PER_SIDE, PIECES, Piece, colour};

/// Where generated moves go: a list, or a counter for bulk perft.
pub trait Sink {
    /// Moves of `piece` from `from` ([`NOWHERE`] = placement) to each cell
    /// of `to`.
    fn add_set(&mut self, piece: Piece, from: Cell, to: &CellSet);
    fn add(&mut self, mv: Move);
    /// Placements of each of `pieces` on each cell of `to`.
    fn add_placements(&mut self, pieces: &[Piece], to: &CellSet) {
        for &p in pieces {
            self.add_set(p, NOWHERE, to);
        }
    }
    /// Moves received so far.
    fn count(&self) -> u64;
}

/// Collects moves in a vector.
pub struct VecSink<'a>(pub &'a mut Vec<Move>);

impl Sink for VecSink<'_> {
    fn add_set(&mut self, piece: Piece, from: Cell, to: &CellSet) {
        self.0.extend(to.iter().map(|t| Move { piece, from, to: t }));
    }
    fn add(&mut self, mv: Move) {
        self.0.push(mv)
    }
    fn count(&self) -> u64 {
        self.0.len() as u64
    }
}

/// Only counts moves.
pub struct CountSink(pub u64);

impl Sink for CountSink {
    #[inline]
    fn add_set(&mut self, _piece: Piece, _from: Cell, to: &CellSet) {
        self.0 += to.len() as u64;
    }
    fn add(&mut self, _mv: Move) {
        self.0 += 1;
    }
    #[inline]
    fn add_placements(&mut self, pieces: &[Piece], to: &CellSet) {
        self.0 += pieces.len() as u64 * to.len() as u64;
    }
    fn count(&self) -> u64 {
        self.0
    }
}

/// For each 6-bit mask of a cell's occupied neighbours (bit d =
/// direction d), the directions a lone ground piece there can slide to:
/// the target empty and exactly one of the two cells beside the step
/// occupied (both: a gate; neither: contact lost).
pub const SLIDE_DIRS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut m = 0;
    while m < 64 {
        let mut d = 0;
        while d < 6 {
            let here = m >> d & 1 != 0;
            let left = m >> ((d + 5) % 6) & 1 != 0;
            let right = m >> ((d + 1) % 6) & 1 != 0;
            if !here && left != right {
                t[m] |= 1 << d;
            }
            d += 1;
        }
        m += 1;
    }
    t
};

/// Most throws a position can hold: two power users x six targets x
/// five landing cells.
const MAX_THROWS: usize = 64;

impl Hive {
    /// Generates every legal move (a lone `pass` when there is none; nothing
    /// once the game is over).
    pub fn generate<S: Sink>(&self, sink: &mut S) {
        if self.outcome.is_some() {
            return;
        }
        let before = sink.count();
        let me = self.side();
        let b = &self.board;
        let turn = self.ply / 2 + 1;
        let queen = (me * PER_SIDE) as Piece;
        let queen_in_hand = !b.on_board(queen);
        // Placements: the lowest-numbered piece in hand of each bug (the
        // pieces of a bug are numbered consecutively; the table holds only
        // the bugs in play).
        let mut placeable = [NO_PIECE; 8];
        let mut n_placeable = 0;
        for bg in Bug::ALL {
            if (bg == Bug::Queen && turn == 1) || (bg != Bug::Queen && queen_in_hand && turn == 4) {
                continue;
            }
            if let Some(p) = b.pieces.of_bug(me, bg).find(|&p| !b.on_board(p)) {
                placeable[n_placeable] = p;
                n_placeable += 1;
            }
        }
        if n_placeable > 0 {
            let cells = self.placement_cells(me);
            if !cells.is_empty() {
                sink.add_placements(&placeable[..n_placeable], &cells);
            }
        }
        if !queen_in_hand {
            self.movements(sink);
        }
        if sink.count() == before {
            sink.add(Move::PASS);
        }
    }

    /// Empty cells where `me` may place a piece.
    pub fn placement_cells(&self, me: usize) -> CellSet {
        let b = &self.board;
        let mut s = CellSet::new();
        if self.ply == 0 {
            s.insert(ORIGIN);
            return s;
        }
        if self.ply == 1 {
            let first = b.occupied_cells()[0];
            for d in 0..6 {
                s.insert(nb(first, d));
            }
            return s;
        }
        let opp = 1 - me;
        for p in b.pieces.side(me) {
            if !b.is_top(p) {
                continue;
            }
            let c = b.cell[p as usize];
            for d in 0..6 {
                let n = nb(c, d);
                if !b.occupied(n) && b.adj[opp][n as usize] == 0 {
                    s.insert(n);
                }
            }
        }
        s
    }

    /// Bit `p` set for each top piece `p` whose cell is an articulation
    /// point of the hive (removing it splits the hive).
    ///
    /// Tarjan's low-link on the graph of top pieces, each piece's
    /// neighbours the bit mask the board keeps up to date (`Board::nbr`).
    /// In an undirected depth-first search a visited neighbour of a newly
    /// entered piece (other than its parent) is an ancestor, so its back
    /// edges are read once, on entry.
    pub fn articulation_mask(&self) -> u32 {
        const _: () = assert!(PIECES <= 32);
        let b = &self.board;
        let adj = &b.nbr;
        if b.tops == 0 {
            return 0;
        }
        let start = 31 - b.tops.leading_zeros() as Piece;
        let mut disc = [0u8; PIECES];
        let mut low = [0u8; PIECES];
        // The path: piece per depth.
        let mut path = [0u8; PIECES];
        let mut mask = 0u32;
        let r = start as usize;
        let mut visited = 1u32 << r;
        disc[r] = 1;
        low[r] = 1;
        path[0] = r as u8;
        let mut time = 1u8;
        let mut top = 0usize;
        let mut root_children = 0;
        loop {
            let p = path[top] as usize;
            let next = adj[p] & !visited;
            if next != 0 {
                let q = next.trailing_zeros() as usize;
                time += 1;
                disc[q] = time;
                visited |= 1u32 << q;
                // Back edges to ancestors other than the parent `p`.
                let mut l = time;
                let mut back = adj[q] & visited & !(1u32 << p) & !(1u32 << q);
                while back != 0 {
                    l = l.min(disc[back.trailing_zeros() as usize]);
                    back &= back - 1;
                }
                low[q] = l;
                if top == 0 {
                    root_children += 1;
                }
                top += 1;
                path[top] = q as u8;
                continue;
            }
            if top == 0 {
                break;
            }
            top -= 1;
            let parent = path[top] as usize;
            low[parent] = low[parent].min(low[p]);
            if top > 0 && low[p] >= disc[parent] {
                mask |= 1 << parent;
            }
        }
        if root_children > 1 {
            mask |= 1 << r;
        }
        mask
    }

    /// True if the stack at `c` holds the hive together: the hive of the
    /// other stacks falls apart without it (the cell form of
    /// [`Self::articulation_mask`], for one cell).
    ///
    /// Neighbours of `c` in one unbroken run around it touch each other;
    /// only with two runs or more does a flood of the hive from the first
    /// run, not passing `c`, have to reach the others.
    pub fn splits_hive(&self, c: Cell) -> bool {
        let b = &self.board;
        let ring = b.ring[c as usize];
        // Bit d: a run starts at d (d occupied, the cell before it not).
        let mut starts = ring & !(ring << 1 | ring >> 5) & 63;
        if starts.count_ones() <= 1 {
            return false;
        }
        let first = nb(c, starts.trailing_zeros() as usize);
        starts &= starts - 1;
        let mut seen = CellSet::new();
        seen.insert(c);
        seen.insert(first);
        let mut stack = [0 as Cell; 64];
        stack[0] = first;
        let mut n = 1;
        while n > 0 {
            n -= 1;
            let a = stack[n];
            for d in 0..6 {
                let x = nb(a, d);
                if b.occupied(x) && seen.insert(x) {
                    stack[n] = x;
                    n += 1;
                }
            }
            // Every other run reached: the hive holds without `c`.
            let mut rest = starts;
            let mut all = true;
            while rest != 0 {
                let d = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if !seen.contains(nb(c, d)) {
                    all = false;
                    break;
                }
            }
            if all {
                return false;
            }
        }
        true
    }

    /// True if `mv` is one of the moves [`Self::generate`] lists, found
    /// without listing them all (the moves of one piece). A pass is
    /// answered false: it is legal only when no other move is, which only
    /// the whole list tells.
    pub fn is_legal(&self, mv: Move) -> bool {
        let b = &self.board;
        let p = mv.piece;
        if self.outcome.is_some()
            || mv.is_pass()
            || p as usize >= PIECES
            || p as usize % PER_SIDE >= b.pieces.per_side()
            || mv.to as usize >= CELLS
        {
            return false;
        }
        let me = self.side();
        let queen_in_hand = !b.on_board((me * PER_SIDE) as Piece);
        if mv.from == NOWHERE {
            if colour(p) != me || b.on_board(p) {
                return false;
            }
            let turn = self.ply / 2 + 1;
            let bg = b.bug(p);
            if (bg == Bug::Queen && turn == 1) || (bg != Bug::Queen && queen_in_hand && turn == 4) {
                return false;
            }
            // Only the lowest-numbered piece in hand of a bug is placed.
            if b.pieces.of_bug(me, bg).find(|&q| !b.on_board(q)) != Some(p) {
                return false;
            }
            let t = mv.to;
            return match self.ply {
                0 => t == ORIGIN,
                1 => (0..6).any(|d| b.occupied(nb(t, d))) && !b.occupied(t),
                _ => !b.occupied(t) && b.adj[me][t as usize] > 0 && b.adj[1 - me][t as usize] == 0,
            };
        }
        if queen_in_hand || b.cell[p as usize] != mv.from || !b.is_top(p) || p == self.last_moved {
            return false;
        }
        let ground = b.h(mv.from) == 1;
        if colour(p) == me && (!ground || !self.splits_hive(mv.from)) && self.reaches(p, mv.from, mv.to) {
            return true;
        }
        // A throw (of a piece alone on its cell).
        ground && {
            let (throws, n) = self.throws(|x| self.splits_hive(b.cell[x as usize]));
            throws[..n].contains(&(p, mv.to))
        }
    }

    /// The pillbug throws of the side to move, as (piece, landing cell):
    /// the pillbug's power and a mosquito's beside a pillbug, neither
    /// stunned, on a piece alone on its cell that is neither stunned nor
    /// pinned (`pinned` tells).
    fn throws(&self, pinned: impl Fn(Piece) -> bool) -> ([(Piece, Cell); MAX_THROWS], usize) {
        let b = &self.board;
        let me = self.side();
        let mut throws = [(NO_PIECE, NOWHERE); MAX_THROWS];
        let mut n_throws = 0;
        let mut users = [NOWHERE; 2];
        if let Some(pb) = b.pieces.piece(me, Bug::Pillbug, 1) {
            if b.is_top(pb) && pb != self.last_moved {
                users[0] = b.cell[pb as usize];
            }
            if let Some(mq) = b.pieces.piece(me, Bug::Mosquito, 1)
                && b.is_top(mq)
                && mq != self.last_moved
            {
                let c = b.cell[mq as usize];
                if b.h(c) == 1
                    && (0..6).any(|d| {
                        let n = nb(c, d);
                        b.occupied(n) && b.bug(b.top_at(n)) == Bug::Pillbug
                    })
                {
                    users[1] = c;
                }
            }
        }
        for &s in &users {
            if s == NOWHERE {
                continue;
            }
            for d in 0..6 {
                let n = nb(s, d);
                if b.h(n) != 1 {
                    continue;
                }
                let x = b.top_at(n);
                if x == self.last_moved || pinned(x) {
                    continue;
                }
                // Up onto the user (height 1) from the ground.
                if b.h(nb(s, ccw(d))).min(b.h(nb(s, cw(d)))) > 1 {
                    continue;
                }
                for e in 0..6 {
                    let t = nb(s, e);
                    if t == n || b.occupied(t) {
                        continue;
                    }
                    // Down from the user's top (stack of 1 below) to the
                    // ground; `n` is empty once `x` has left.
                    let hl = if nb(s, ccw(e)) == n { 0 } else { b.h(nb(s, ccw(e))) };
                    let hr = if nb(s, cw(e)) == n { 0 } else { b.h(nb(s, cw(e))) };
                    if hl.min(hr) > 1 {
                        continue;
                    }
                    throws[n_throws] = (x, t);
                    n_throws += 1;
                }
            }
        }
        (throws, n_throws)
    }

    /// The legal moves of pieces on the board (and throws) that end on
    /// the empty cell `to`, appended to `out`: what [`Self::generate`]
    /// lists with that destination, without the placements (a cell next to
    /// an enemy piece) and found piece by piece, with quick tests first (a
    /// queen, pillbug or ground beetle must stand next to `to`).
    pub fn moves_to(&self, to: Cell, out: &mut Vec<Move>) {
        let b = &self.board;
        let me = self.side();
        if self.outcome.is_some() || b.occupied(to) || !b.on_board((me * PER_SIDE) as Piece) {
            return;
        }
        let pinned = self.articulation_mask();
        let is_pinned = |p: Piece| pinned >> p & 1 != 0;
        let adjacent = |c: Cell| (0..6).any(|d| nb(c, d) == to);
        // A crawler comes in by a slide, through a neighbour the slide
        // test allows (symmetric: a slide out of `to` along it); a crawler
        // next to `to` leaves its own cell empty, so it is not judged so.
        let slide_in = SLIDE_DIRS[b.ring[to as usize] as usize] != 0;
        let mut found = 0u32;
        for p in b.pieces.side(me) {
            if !b.is_top(p) || p == self.last_moved {
                continue;
            }
            let from = b.cell[p as usize];
            let ground = b.h(from) == 1;
            if ground && is_pinned(p) {
                continue;
            }
            let near = match self.bug(p) {
                Bug::Queen | Bug::Pillbug => adjacent(from),
                Bug::Spider | Bug::Ant => slide_in || adjacent(from),
                Bug::Beetle => adjacent(from),
                Bug::Mosquito if !ground => adjacent(from),
                _ => true,
            };
            if near && self.reaches(p, from, to) {
                out.push(Move { piece: p, from, to });
                found |= 1 << p;
            }
        }
        let (throws, n) = self.throws(is_pinned);
        for &(x, t) in &throws[..n] {
            if t == to && found >> x & 1 == 0 {
                out.push(Move { piece: x, from: b.cell[x as usize], to });
                found |= 1 << x;
            }
        }
    }

    /// Moves of pieces on the board and pillbug throws.
    fn movements<S: Sink>(&self, sink: &mut S) {
        let b = &self.board;
        let me = self.side();
        let pinned = self.articulation_mask();
        let is_pinned = |p: Piece| pinned >> p & 1 != 0;
        let (throws, n_throws) = self.throws(is_pinned);
        let throws = &throws[..n_throws];
        for p in b.pieces.side(me) {
            if !b.is_top(p) || p == self.last_moved {
                continue;
            }
            let from = b.cell[p as usize];
            let mut set = CellSet::new();
            if b.h(from) > 1 || !is_pinned(p) {
                self.piece_moves(p, from, &mut set);
            }
            for &(x, t) in throws {
                if x == p {
                    set.insert(t);
                }
            }
            if !set.is_empty() {
                sink.add_set(p, from, &set);
            }
        }
        if throws.iter().any(|&(x, _)| colour(x) != me) {
            for x in b.pieces.side(1 - me) {
                let mut set = CellSet::new();
                for &(y, t) in throws {
                    if y == x {
                        set.insert(t);
                    }
                }
                if !set.is_empty() {
                    sink.add_set(x, b.cell[x as usize], &set);
                }
            }
        }
    }

    /// Destinations of `p` (on top of its stack at `from`) by its own
    /// movement, added to `set`.
    pub fn piece_moves(&self, p: Piece, from: Cell, set: &mut CellSet) {
        match self.bug(p) {
            Bug::Queen | Bug::Pillbug => self.slides1(from, set),
            Bug::Beetle => self.beetle(from, set),
            Bug::Grasshopper => self.grasshopper(from, set),
            Bug::Spider => self.spider(from, set),
            Bug::Ant => self.ant(from, set),
            Bug::Ladybug => self.ladybug(from, set),
            Bug::Mosquito => {
                let b = &self.board;
                if b.h(from) > 1 {
                    return self.beetle(from, set);
                }
                let mut bugs = 0u8;
                for d in 0..6 {
                    let n = nb(from, d);
                    if b.occupied(n) {
                        bugs |= b.bug(b.top_at(n)).bit();
                    }
                }
                let has = |x: Bug| bugs & x.bit() != 0;
                if has(Bug::Beetle) {
                    self.beetle(from, set);
                }
                if has(Bug::Ant) {
                    self.ant(from, set);
                } else if !has(Bug::Beetle) && (has(Bug::Queen) || has(Bug::Pillbug)) {
                    self.slides1(from, set);
                }
                if has(Bug::Grasshopper) {
                    self.grasshopper(from, set);
                }
                if has(Bug::Spider) {
                    self.spider(from, set);
                }
                if has(Bug::Ladybug) {
                    self.ladybug(from, set);
                }
            }
        }
    }

    /// The occupied neighbours of `a` (bit d: direction d), with the
    /// moving piece (alone at `o`) taken away.
    #[inline(always)]
    fn ring_x(&self, a: Cell, o: Cell) -> usize {
        (self.board.ring[a as usize] & !toward(a, o)) as usize
    }

    /// Height, with the moving ground piece at `o` taken away.
    #[inline(always)]
    fn h_x(&self, c: Cell, o: Cell) -> u8 {
        if c == o { 0 } else { self.board.h(c) }
    }

    /// A ground slide from `a` in direction `d`, the mover taken from `o`:
    /// the target is empty and exactly one of the two cells beside the
    /// step is occupied (both: a gate; neither: contact lost).
    #[inline(always)]
    fn slide(&self, a: Cell, d: usize, o: Cell) -> Option<Cell> {
        if SLIDE_DIRS[self.ring_x(a, o)] >> d & 1 != 0 { Some(nb(a, d)) } else { None }
    }

    /// One ground slide (queen, pillbug).
    fn slides1(&self, o: Cell, set: &mut CellSet) {
        for d in 0..6 {
            if let Some(t) = self.slide(o, d, o) {
                set.insert(t);
            }
        }
    }

    /// One step, sliding on the ground or climbing, moving on top and
    /// climbing down through no gate at height.
    fn beetle(&self, o: Cell, set: &mut CellSet) {
        let b = &self.board;
        let src = b.h(o) - 1;
        for d in 0..6 {
            let t = nb(o, d);
            let dst = b.h(t);
            let hl = b.h(nb(o, ccw(d)));
            let hr = b.h(nb(o, cw(d)));
            let ok = if src == 0 && dst == 0 { (hl > 0) != (hr > 0) } else { hl.min(hr) <= src.max(dst) };
            if ok {
                set.insert(t);
            }
        }
    }

    fn grasshopper(&self, o: Cell, set: &mut CellSet) {
        let b = &self.board;
        for d in 0..6 {
            let mut t = nb(o, d);
            if !b.occupied(t) {
                continue;
            }
            while b.occupied(t) {
                t = nb(t, d);
            }
            set.insert(t);
        }
    }

    /// Exactly three slides through four distinct cells.
    fn spider(&self, o: Cell, set: &mut CellSet) {
        for d1 in 0..6 {
            let Some(c1) = self.slide(o, d1, o) else { continue };
            for d2 in 0..6 {
                let Some(c2) = self.slide(c1, d2, o) else { continue };
                if c2 == o {
                    continue;
                }
                for d3 in 0..6 {
                    if let Some(c3) = self.slide(c2, d3, o)
                        && c3 != o
                        && c3 != c1
                    {
                        set.insert(c3);
                    }
                }
            }
        }
    }

    /// Every cell reachable by slides. Each visited cell takes its slide
    /// directions from [`SLIDE_DIRS`] of its neighbour mask.
    fn ant(&self, o: Cell, set: &mut CellSet) {
        self.ant_flood(o, set, NOWHERE);
    }

    /// The ant's flood from `o`, adding the cells reached to `set`;
    /// stops, true, as soon as it reaches `target`.
    #[inline(always)]
    fn ant_flood(&self, o: Cell, set: &mut CellSet, target: Cell) -> bool {
        let mut seen = CellSet::new();
        seen.insert(o);
        let mut stack = [0 as Cell; 128];
        let mut n = 1;
        stack[0] = o;
        while n > 0 {
            n -= 1;
            let a = stack[n];
            let mut dirs = SLIDE_DIRS[self.ring_x(a, o)];
            while dirs != 0 {
                let d = dirs.trailing_zeros() as usize;
                dirs &= dirs - 1;
                let t = nb(a, d);
                if seen.insert(t) {
                    set.insert(t);
                    if t == target {
                        return true;
                    }
                    if n < stack.len() {
                        stack[n] = t;
                        n += 1;
                    }
                }
            }
        }
        false
    }

    /// True if `p` (on top at `from`, free to leave it) reaches `to` by
    /// its own movement; an ant's flood stops there.
    fn reaches(&self, p: Piece, from: Cell, to: Cell) -> bool {
        let mut set = CellSet::new();
        if self.bug(p) == Bug::Ant && self.board.h(from) == 1 {
            // An ant lands on an empty cell touching the hive.
            return !self.board.occupied(to)
                && self.ring_x(to, from) != 0
                && self.ant_flood(from, &mut set, to);
        }
        self.piece_moves(p, from, &mut set);
        set.contains(to)
    }

    /// Up onto the hive, one step on top, down to an empty cell.
    fn ladybug(&self, o: Cell, set: &mut CellSet) {
        // A climb or step at height from a stack of `src` (mover excluded)
        // to one of `dst` through the cells beside it.
        let gate_ok = |a: Cell, d: usize, src: u8, dst: u8| {
            self.h_x(nb(a, ccw(d)), o).min(self.h_x(nb(a, cw(d)), o)) <= src.max(dst)
        };
        for d1 in 0..6 {
            let c1 = nb(o, d1);
            let h1 = self.h_x(c1, o);
            if h1 == 0 || !gate_ok(o, d1, 0, h1) {
                continue;
            }
            for d2 in 0..6 {
                let c2 = nb(c1, d2);
                let h2 = self.h_x(c2, o);
                if h2 == 0 || !gate_ok(c1, d2, h1, h2) {
                    continue;
                }
                for d3 in 0..6 {
                    let c3 = nb(c2, d3);
                    if c3 != o && self.h_x(c3, o) == 0 && gate_ok(c2, d3, h2, 0) {
                        set.insert(c3);
                    }
                }
            }
        }
    }
}
