//! `meeple bench hive --search`: fixed positions searched to a fixed depth
//! by the `alphabeta` player's search, one thread, a fresh table each.

use std::io::Write;

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::Hive;
use super::eval::HiveEval;
use crate::game::Game;
use crate::options::OptionValues;
use crate::search::pvs::{self, Settings};
use crate::search::tt::Tt;
use crate::search::{Limits, SearchCtx, StopFlag};
use crate::time::Instant;

/// The standard middle game of the Hive issue (Base+MLP, 30 plies).
pub const MIDDLE_GAME: &str = "Base+MLP;InProgress;White[16];wM;bM \\wM;wP wM-;bP -bM;wA1 wM\\;bQ bM/;wQ wP\\;bA1 /bP;wS1 wP/;bA1 wQ\\;wS1 bQ/;bA2 bA1-;wA1 -bQ;bA2 /wQ;wL \\wA1;bA2 -wL;wA2 /wM;bP bQ\\;wA2 /bM;bP wS1\\;wA3 wS1/;bA2 -wA2;wB1 -wA3;bA1 \\wB1;wQ bP\\;bQ wQ/;wA3 -bA1;bA3 bA1/;wA3 bA3-;bA2 wA3\\";

/// The bench positions: (name, GameString). None is decided by a search
/// of depth 4, and `tactics`, a lost position, takes depth 6 to prove (a
/// test checks both).
pub const POSITIONS: [(&str, &str); 4] = [
    ("opening", "Base+MLP;InProgress;White[3];wL;bL wL/;wQ -wL;bQ bL/"),
    ("middle", MIDDLE_GAME),
    // Base, 30 plies of a referee game against nokamute, about even.
    (
        "base-middle",
        r"Base;InProgress;White[16];wB1;bB1 /wB1;wB2 wB1/;bQ /bB1;wQ -wB2;bA1 -bB1;wB2 wB1;bA2 /bA1;wB2 bB1;bA3 bQ\;wA1 wB1\;bA3 \wQ;wB2 bQ;bA2 wA1-;wA2 wB2\;bA1 bB1\;wA3 -wB2;bB1 wB2;wG1 \wA3;bG1 bA3/;wG1 wA3\;bG1 /bA3;wG2 /wA3;bG2 -bA3;wG2 \bB1;bG2 wQ/;wG3 -wG2;bA2 -wG3;wS1 /wA3;bB2 bG2-",
    ),
    // Base+MLP, six plies before White lost a referee game: White to
    // move is lost in 4 of its moves, which a search proves at depth 6.
    (
        "tactics",
        r"Base+MLP;InProgress;White[19];wS1;bM /wS1;wM wS1-;bG1 bM\;wP \wM;bQ -bM;wQ wM/;bA1 -bQ;wM -wP;bA1 wQ/;wM -bQ;bA2 \bA1;wS2 /wM;bP bQ\;wB1 wP\;bA2 bA1\;wS2 \bQ;bG1 -wS1;wA1 -wS2;bP wS1\;wB1 bP;bQ wM\;wA1 bQ\;bM wS1;wB1 bM;bL bA2/;wA2 wA1\;bA3 /bP;wA2 bA3\;bB1 bA2\;wG1 \wS2;bB1 wQ\;wG1 wS2\;bB1 wQ;wS2 /wM;bB2 bB1\",
    ),
];

/// Searches each position (name or GameString; all of [`POSITIONS`] by
/// default) to `depth` with `threads` threads, printing nodes, time and
/// nodes/s, then the total.
pub fn bench(depth: u32, threads: usize, positions: &[String], out: &mut dyn Write) -> Result<(), String> {
    let list: Vec<(String, String)> = if positions.is_empty() {
        POSITIONS.iter().map(|(n, g)| (n.to_string(), g.to_string())).collect()
    } else {
        positions
            .iter()
            .map(|p| {
                let known = POSITIONS.iter().find(|(n, _)| n.eq_ignore_ascii_case(p));
                known.map_or((p.clone(), p.clone()), |(n, g)| (n.to_string(), g.to_string()))
            })
            .collect()
    };
    let opts = OptionValues::default();
    let (mut nodes, mut secs) = (0u64, 0f64);
    for (name, gs) in &list {
        let g = load(gs)?;
        if g.outcome().is_some() {
            return Err(format!("{name}: the game is over"));
        }
        let tt = Tt::new(64).map_err(|e| e.to_string())?;
        let mut rng = StdRng::seed_from_u64(1);
        let mut sink = |_r| {};
        let limits = Limits { depth: Some(depth), ..Limits::default() };
        let mut ctx = SearchCtx::new(limits, &opts, &mut rng, StopFlag::new(), &mut sink);
        let settings = Settings { max_depth: depth, threads, prior: g.prior_keys().collect(), noise: 0 };
        let start = Instant::now();
        let found = pvs::search(&g, &HiveEval, &tt, &mut ctx, &settings);
        let t = start.elapsed().as_secs_f64();
        let (best, score) =
            found.map(|f| (g.format_move(f.best), pvs::score_of(f.value).to_string())).unwrap_or_default();
        let nps = if t > 0.0 { ctx.nodes as f64 / t } else { 0.0 };
        writeln!(
            out,
            "{name}: depth {depth} nodes {} time {t:.3} s nps {nps:.0} best {best} score {score}",
            ctx.nodes
        )
        .map_err(|e| e.to_string())?;
        nodes += ctx.nodes;
        secs += t;
    }
    let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
    writeln!(out, "total: nodes {nodes} time {secs:.3} s nps {nps:.0}").map_err(|e| e.to_string())
}

/// A Hive position from a GameString (the rules of the game type, no
/// options).
fn load(gs: &str) -> Result<Hive, String> {
    crate::gamestring::parse(gs).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_load_and_search() {
        let mut out = Vec::new();
        bench(2, 1, &[], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for (n, _) in POSITIONS {
            assert!(text.contains(&format!("{n}: depth 2 nodes ")), "{text}");
        }
        assert!(text.contains("total: nodes "), "{text}");
        assert!(bench(2, 1, &["Chess".to_string()], &mut Vec::new()).is_err());
    }

    /// The score a bench line ends with.
    fn score_at(name: &str, depth: u32) -> String {
        let mut out = Vec::new();
        bench(depth, 1, &[name.to_string()], &mut out).unwrap();
        let t = String::from_utf8(out).unwrap();
        let line = t.lines().next().unwrap().to_string();
        line.split(" score ").nth(1).unwrap_or_else(|| panic!("no score: {line}")).to_string()
    }

    /// A bench of positions decided in two plies measures nothing: each
    /// position is still open at depth 4, and `tactics` is proven lost
    /// only at depth 6.
    #[test]
    fn bench_positions_are_not_decided_early() {
        for (n, _) in POSITIONS {
            let s = score_at(n, 4);
            assert!(s.starts_with("cp "), "{n} at depth 4: {s}");
        }
        assert!(score_at("tactics", 5).starts_with("cp "));
        assert_eq!(score_at("tactics", 6), "mate -4");
    }

    #[test]
    fn fixed_depth_node_counts_are_deterministic() {
        let count = || {
            let mut out = Vec::new();
            bench(3, 1, &["middle".to_string()], &mut out).unwrap();
            let t = String::from_utf8(out).unwrap();
            t.split_whitespace().skip_while(|w| *w != "nodes").nth(1).unwrap().to_string()
        };
        assert_eq!(count(), count());
    }
}
