//! `meeple bench hive --search`: fixed positions searched to a fixed depth
//! by the `alphabeta` player's search, one thread, a fresh table each.

use std::io::Write;
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::Hive;
use super::eval::HiveEval;
use crate::game::Game;
use crate::options::OptionValues;
use crate::search::pvs::{self, Settings};
use crate::search::tt::Tt;
use crate::search::{Limits, SearchCtx, StopFlag};

/// The standard middle game of the Hive issue (Base+MLP, 30 plies).
pub const MIDDLE_GAME: &str = "Base+MLP;InProgress;White[16];wM;bM \\wM;wP wM-;bP -bM;wA1 wM\\;bQ bM/;wQ wP\\;bA1 /bP;wS1 wP/;bA1 wQ\\;wS1 bQ/;bA2 bA1-;wA1 -bQ;bA2 /wQ;wL \\wA1;bA2 -wL;wA2 /wM;bP bQ\\;wA2 /bM;bP wS1\\;wA3 wS1/;bA2 -wA2;wB1 -wA3;bA1 \\wB1;wQ bP\\;bQ wQ/;wA3 -bA1;bA3 bA1/;wA3 bA3-;bA2 wA3\\";

/// The bench positions: (name, GameString).
pub const POSITIONS: [(&str, &str); 4] = [
    ("opening", "Base+MLP;InProgress;White[3];wL;bL wL/;wQ -wL;bQ bL/"),
    ("middle", MIDDLE_GAME),
    (
        "base-middle",
        "Base;InProgress;White[13];wB1;bA1 \\wB1;wB2 wB1\\;bQ -bA1;wQ wB2/;bA2 bA1/;wB2 wB1;bA2 wQ/;wA1 /wB2;bA2 /wA1;wB2 bA1;bA2 wQ/;wB2 bQ;bA3 bA1/;wA1 \\bA3;bA2 wQ-;wA2 \\wB2;bB1 bA3-;wA3 /wA2;bB1 bA3;wG1 wA3\\;bB1 bA1;wB2 bB1;bB2 bA2/",
    ),
    (
        "tactics",
        "Base+MLP;InProgress;Black[6];wP;bM \\wP;wQ wP\\;bS1 \\bM;wL wQ/;bL \\bS1;wG1 wQ\\;bQ \\bL;wA1 /wQ;bA1 \\bQ;wB1 wL\\",
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
        let best = found.map(|f| g.format_move(f.best)).unwrap_or_default();
        let nps = if t > 0.0 { ctx.nodes as f64 / t } else { 0.0 };
        writeln!(out, "{name}: depth {depth} nodes {} time {t:.3} s nps {nps:.0} best {best}", ctx.nodes)
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
