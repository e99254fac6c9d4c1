//! Tests of the solver: samples of the six public benchmark sets (exact
//! scores), and brute force against the solver on small boards.

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::Connect4;
use super::analysis::final_score;
use super::solver::{Pos, Range, Solver};

/// Checks every `<moves> <score>` line of a sample.
fn check_sample(text: &str, weak: bool) {
    check_sample_threads(text, weak, 1);
}

/// [`check_sample`] with the solver on `threads` threads.
fn check_sample_threads(text: &str, weak: bool, threads: usize) {
    check_sample_parallel(text, weak, threads, false);
}

/// [`check_sample_threads`], the parallel search chosen by `lazy_smp`.
fn check_sample_parallel(text: &str, weak: bool, threads: usize, lazy_smp: bool) {
    let mut solver = Solver::new(7, 6, 16).unwrap();
    solver.threads = threads;
    solver.lazy_smp = lazy_smp;
    let mut n = 0;
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (moves, expected) = (it.next().unwrap(), it.next().unwrap().parse::<i32>().unwrap());
        let mut g = Connect4::standard();
        g.play_sequence(moves).unwrap();
        solver.clear();
        let r = solver.solve(Pos::from(&g.board), weak);
        if weak {
            assert_eq!(r.sign(), Some(expected.signum()), "{moves}");
        } else {
            assert_eq!(r, Range::exact(expected), "{moves}");
        }
        n += 1;
    }
    assert!(n >= 3);
}

macro_rules! sample {
    ($file:literal) => {
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4/", $file))
    };
}

#[test]
fn end_easy_sample() {
    check_sample(sample!("end_easy.txt"), false);
    check_sample(sample!("end_easy.txt"), true);
}

#[test]
fn middle_easy_sample() {
    check_sample(sample!("middle_easy.txt"), false);
    check_sample(sample!("middle_easy.txt"), true);
}

#[test]
fn middle_medium_sample() {
    check_sample(sample!("middle_medium.txt"), false);
}

#[test]
fn begin_easy_sample() {
    check_sample(sample!("begin_easy.txt"), false);
    check_sample(sample!("begin_easy.txt"), true);
}

#[test]
fn begin_medium_sample() {
    check_sample(sample!("begin_medium.txt"), false);
}

#[test]
fn parallel_solves_give_the_same_scores() {
    // Two and three threads testing thresholds side by side, joining and
    // stopping each other's tests: the same exact scores and signs.
    for threads in [2, 3] {
        check_sample_threads(sample!("middle_medium.txt"), false, threads);
        check_sample_threads(sample!("begin_easy.txt"), false, threads);
        check_sample_threads(sample!("begin_easy.txt"), true, threads);
    }
    // Plain lazy SMP, kept for comparison, is exact too.
    check_sample_parallel(sample!("middle_medium.txt"), false, 2, true);
    check_sample_parallel(sample!("begin_easy.txt"), true, 2, true);
    let mut rng = StdRng::seed_from_u64(21);
    let mut brute = Brute { memo: HashMap::new() };
    let mut solver = Solver::new(5, 4, 4).unwrap();
    solver.threads = 2;
    for stones in [0, 2, 5, 8] {
        for _ in 0..4 {
            let g = random_position(5, 4, stones, &mut rng);
            let exact = brute.score(&mut g.clone());
            solver.clear();
            assert_eq!(solver.solve(Pos::from(&g.board), false), Range::exact(exact), "{:?}", g.board);
            assert!(!solver.aborted());
        }
    }
}

#[test]
fn a_parallel_solve_out_of_budget_keeps_what_it_proved() {
    let mut g = Connect4::standard();
    g.play_sequence("4").unwrap();
    let mut solver = Solver::new(7, 6, 16).unwrap();
    solver.threads = 2;
    solver.set_budget(super::solver::Budget { nodes: Some(20_000), ..Default::default() });
    let r = solver.solve(Pos::from(&g.board), false);
    assert!(solver.aborted());
    assert!(!r.is_exact());
    // Bounds, not guesses: the value after a centre stone is -1.
    assert!(r.lo <= -1 && -1 <= r.hi, "{r:?}");
}

#[test]
fn begin_hard_sample() {
    check_sample(sample!("begin_hard.txt"), false);
}

/// Plain minimax over the whole game tree with the rules' own move and
/// outcome code, memoised by position: the reference the solver is checked
/// against.
struct Brute {
    memo: HashMap<u64, i32>,
}

impl Brute {
    fn score(&mut self, g: &mut Connect4) -> i32 {
        if let Some(v) = final_score(g) {
            return v;
        }
        let key = g.board.key();
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let mut best = i32::MIN;
        for c in 0..g.board.width() {
            if g.board.can_play(c) {
                g.board.play(c);
                best = best.max(-self.score(g));
                g.board.undo(c);
            }
        }
        self.memo.insert(key, best);
        best
    }

    fn column(&mut self, g: &Connect4, c: u32) -> Option<i32> {
        if !g.board.can_play(c) {
            return None;
        }
        let mut child = *g;
        child.board.play(c);
        Some(-self.score(&mut child))
    }
}

/// A random position with `stones` stones whose game is not over.
fn random_position(w: u32, h: u32, stones: u32, rng: &mut StdRng) -> Connect4 {
    'again: loop {
        let mut g = Connect4::new(w, h).unwrap();
        for _ in 0..stones {
            let legal: Vec<u32> = (0..w).filter(|&c| g.board.can_play(c)).collect();
            g.board.play(legal[rng.random_range(0..legal.len())]);
            if g.board.outcome().is_some() {
                continue 'again;
            }
        }
        return g;
    }
}

/// Solver (strong and weak, whole position and every column) against brute
/// force on `count` random positions.
fn compare(w: u32, h: u32, stones: u32, count: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut brute = Brute { memo: HashMap::new() };
    let mut solver = Solver::new(w, h, 4).unwrap();
    for _ in 0..count {
        let g = random_position(w, h, stones, &mut rng);
        let p = Pos::from(&g.board);
        let exact = brute.score(&mut g.clone());
        assert_eq!(solver.solve(p, false), Range::exact(exact), "{w}x{h} {:?}", g.board);
        assert_eq!(solver.solve(p, true).sign(), Some(exact.signum()));
        let cols = solver.columns(p, false);
        for c in 0..w {
            assert_eq!(cols[c as usize].map(|r| r.lo), brute.column(&g, c), "{w}x{h} col {c}");
            assert!(cols[c as usize].is_none_or(|r| r.is_exact()));
        }
        let best = solver.best(p, false, true);
        assert_eq!(best.value, Range::exact(exact));
        for c in best.best_columns(false) {
            assert_eq!(brute.column(&g, c), Some(exact));
        }
        // Win/draw/loss first, reporting each narrowing: the same value.
        solver.wdl_first = true;
        let mut seen = Vec::new();
        let first = solver.best_reporting(p, false, false, &mut |i| seen.push(i.value));
        solver.wdl_first = false;
        assert_eq!(first.value, Range::exact(exact));
        assert!(seen.windows(2).all(|w| w[1].lo >= w[0].lo && w[1].hi <= w[0].hi), "{seen:?}");
        // Given the value, a column reaching it.
        let reach = solver.reach(p, exact);
        let found: Vec<u32> = (0..w).filter(|&c| reach[c as usize].is_some_and(|r| r.lo >= exact)).collect();
        assert!(!found.is_empty(), "{reach:?}");
        for c in found {
            assert_eq!(brute.column(&g, c), Some(exact));
        }
        for c in 0..w {
            if let (Some(r), Some(v)) = (reach[c as usize], brute.column(&g, c)) {
                assert!(r.lo <= v && v <= r.hi, "{w}x{h} col {c}: {v} outside {r:?}");
            }
        }
        // Given a lower bound, with tiny node caps (many racing rounds): a
        // column keeping it, and from there the exact value.
        solver.clear();
        solver.reach_cap = 8;
        let lo = exact - 2;
        let secured = solver.reach(p, lo);
        assert!(secured.iter().flatten().any(|r| r.lo >= lo), "{secured:?}");
        for c in 0..w {
            if let (Some(r), Some(v)) = (secured[c as usize], brute.column(&g, c)) {
                assert!(r.lo <= v && v <= r.hi, "{w}x{h} col {c}: {v} outside {r:?}");
            }
        }
        solver.wdl_first = true;
        let from = solver.best_from(p, false, false, &secured, &mut |_| {});
        solver.wdl_first = false;
        solver.reach_cap = 1 << 14;
        assert_eq!(from.value, Range::exact(exact));
        for c in from.best_columns(false) {
            assert_eq!(brute.column(&g, c), Some(exact));
        }
    }
}

#[test]
fn brute_force_4x4_from_empty() {
    let g = Connect4::new(4, 4).unwrap();
    let mut brute = Brute { memo: HashMap::new() };
    let exact = brute.score(&mut g.clone());
    assert_eq!(exact, 0, "4x4 is a draw");
    let mut solver = Solver::new(4, 4, 1).unwrap();
    assert_eq!(solver.solve(Pos::from(&g.board), false), Range::exact(0));
    let cols = solver.columns(Pos::from(&g.board), false);
    for c in 0..4 {
        assert_eq!(cols[c as usize].map(|r| r.lo), brute.column(&g, c));
    }
    compare(4, 4, 2, 10, 1);
}

#[test]
fn brute_force_5x4() {
    compare(5, 4, 4, 20, 2);
}

#[test]
fn brute_force_6x5() {
    compare(6, 5, 16, 20, 3);
}

#[test]
fn brute_force_odd_and_widest_boards() {
    compare(5, 5, 11, 10, 4); // odd number of cells
    compare(8, 7, 42, 10, 5); // all 64 bits
    compare(9, 6, 40, 10, 6);
    compare(1, 4, 1, 1, 7);
    compare(4, 1, 1, 3, 8);
}

#[test]
fn immediate_win_and_known_scores() {
    let mut solver = Solver::new(7, 6, 1).unwrap();
    for (moves, score) in [("4455", 18), ("44455554221", -15)] {
        let mut g = Connect4::standard();
        g.play_sequence(moves).unwrap();
        assert_eq!(solver.solve(Pos::from(&g.board), false), Range::exact(score), "{moves}");
    }
}

#[test]
fn claimeven_bounds_hold_against_brute_force() {
    // Every bound the second player's follow-up strategy gives is at least
    // the exact score, on boards of even height, and some bounds are found.
    let (mut found, mut losses) = (0, 0);
    for (w, h, stones, seed) in [(4, 4, 4, 31), (5, 4, 6, 32), (6, 4, 8, 33), (7, 6, 28, 34), (7, 6, 30, 35)]
    {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut brute = Brute { memo: HashMap::new() };
        for _ in 0..200 {
            let g = random_position(w, h, stones, &mut rng);
            let geo = g.board.geometry();
            // The bound is for the first player to move, who cannot win at once.
            if geo.winning_cells(g.board.current(), g.board.mask()) & geo.playable(g.board.mask()) != 0 {
                continue;
            }
            if let Some(cap) = geo.claimeven_bound(g.board.current(), g.board.mask()) {
                let exact = brute.score(&mut g.clone());
                assert!(exact <= cap, "{w}x{h} {:?}: score {exact} above the bound {cap}", g.board);
                found += 1;
                losses += (cap < 0) as usize;
            }
        }
    }
    assert!(found >= 40 && losses >= 5, "only {found} bounds, {losses} of them losses");
    // Odd heights have no such strategy.
    let g = Connect4::new(6, 5).unwrap();
    assert_eq!(g.board.geometry().claimeven_bound(0, 0), None);
}
