//! Bulk-counting perft: the last ply is counted, not played.

use super::Hive;
use super::movegen::{CountSink, VecSink};
use super::mv::Move;

/// Leaf positions after exactly `depth` plies (finished games are not
/// extended; a forced pass is a move).
pub fn perft(g: &mut Hive, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut bufs: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(256)).collect();
    rec(g, depth, &mut bufs)
}

fn rec(g: &mut Hive, depth: u32, bufs: &mut [Vec<Move>]) -> u64 {
    if depth == 1 {
        let mut c = CountSink(0);
        g.generate(&mut c);
        return c.0;
    }
    let Some((buf, rest)) = bufs.split_first_mut() else { return 0 };
    buf.clear();
    g.generate(&mut VecSink(buf));
    let mut total = 0;
    for &m in buf.iter() {
        g.make(m);
        total += rec(g, depth - 1, rest);
        g.unmake(m);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::hive::Expansions;
    use crate::search::perft::perft as plain_perft;

    #[test]
    fn base_matches_reference() {
        let expected = [4, 96, 1_440, 21_600, 516_240];
        for (d, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&mut Hive::new(Expansions::BASE), d as u32 + 1), n, "depth {}", d + 1);
        }
    }

    #[test]
    fn mlp_matches_reference() {
        let expected = [7, 294, 6_678, 151_686, 5_427_108];
        for (d, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&mut Hive::new(Expansions::ALL), d as u32 + 1), n, "depth {}", d + 1);
        }
    }

    #[test]
    fn bulk_equals_plain_and_restores_position() {
        let mut g = Hive::from_game_string(
            "Base+MLP;InProgress;White[4];wS1;bP wS1-;wQ -wS1;bQ bP-;wM \\wQ;bA1 bQ\\",
        )
        .unwrap();
        let h = crate::game::Game::hash(&g);
        assert_eq!(perft(&mut g, 3), plain_perft(&mut g, 3));
        assert_eq!(crate::game::Game::hash(&g), h);
    }
}
