//! `meeple bench hive --tune DATA`: fits the evaluation's weights to the
//! results of finished games (Texel's method, as a logistic regression).
//!
//! DATA holds one finished game a line: White's score (`1`, `0.5`, `0`),
//! a space, and the game as a GameString with its moves
//! (`Base+MLP;WhiteWins;Black[25];wM;bG1 \wM;...`; the state and turn
//! fields are not read). `scripts/tune_hive.py` writes it from the
//! referee's records of self-play games.
//!
//! Every position of a game past its first `--skip` plies (the random
//! opening) is searched `--pv-depth` plies deep, and the position at the
//! end of the principal variation (a quiet one: a capture of the queen's
//! last cell is played out, not evaluated) is labelled by the game's
//! result; positions whose search proves a result are left out (the
//! evaluation does not decide them). The evaluation is linear in its
//! weights ([`eval::terms`] gives each position's counts), so the fit is
//! a logistic regression: P(White wins) = 1 / (1 + exp(-e / S)), e the
//! evaluation from White's view; S is chosen first so that the current
//! weights fit best (the weights keep their scale, which the search's
//! margins are set in), then the weights minimise the cross-entropy by
//! Newton's method, with a ridge penalty pulling towards the current
//! weights (a term seldom seen keeps its value). `pressure 0` stays 0:
//! each queen has exactly one pressure term, so one of them is free.
//! A tenth of the games (every tenth) is held out, and its loss is
//! reported beside the training loss.
//!
//! With `--out FILE` the weights are written as a Rust source file
//! (`src/games/hive/weights.rs`) that names the run that produced them.

use std::io::Write;
use std::path::PathBuf;

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::Hive;
use super::eval::{self, HiveEval, Terms, W, Weights, term};
use crate::game::Game;
use crate::options::OptionValues;
use crate::search::pvs::{self, Settings, WIN};
use crate::search::tt::Tt;
use crate::search::{Limits, SearchCtx, StopFlag};

/// What `--tune` was given.
#[derive(Clone, Debug)]
pub struct TuneArgs {
    pub data: PathBuf,
    pub skip: usize,
    pub pv_depth: u32,
    pub l2: f64,
    pub out: Option<PathBuf>,
    pub run: Option<String>,
}

/// One labelled position: its counts (White's minus Black's) and White's
/// score in the game.
struct Sample {
    x: [f32; term::COUNT],
    y: f32,
}

/// The counts of [`eval::terms`], White's positive.
struct Counts([f32; term::COUNT]);

impl Terms for Counts {
    const ALL: bool = true;
    fn add(&mut self, side: usize, t: usize, n: i32) {
        self.0[t] += if side == 0 { n as f32 } else { -(n as f32) };
    }
}

/// The counts of a position with the weights `w`.
fn counts(g: &Hive, w: &Weights) -> [f32; term::COUNT] {
    let mut c = Counts([0.0; term::COUNT]);
    eval::terms(g, w, &mut c);
    c.0
}

/// One game of the data: White's score and its moves.
struct GameRecord {
    y: f32,
    game: Hive,
    moves: Vec<super::Move>,
}

/// Reads the data file: one game a line.
fn read_games(path: &PathBuf) -> Result<Vec<GameRecord>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut games = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |e: String| format!("{}:{}: {e}", path.display(), i + 1);
        let (score, gs) = line.split_once(' ').ok_or_else(|| bad("expected: SCORE GAMESTRING".into()))?;
        let y: f32 = score.parse().map_err(|_| bad(format!("bad score '{score}'")))?;
        if !(0.0..=1.0).contains(&y) {
            return Err(bad(format!("score {y} is not within 0..1")));
        }
        let mut fields = gs.split(';');
        let ty = fields.next().unwrap_or("");
        let start: Hive = crate::gamestring::parse(ty).map_err(|e| bad(e.to_string()))?;
        let mut g = start.clone();
        let mut moves = Vec::new();
        for m in fields.skip(2).map(str::trim).filter(|m| !m.is_empty()) {
            let mv = g.parse_move(m).map_err(|e| bad(format!("move {} '{m}': {e:?}", moves.len() + 1)))?;
            g.play(mv);
            moves.push(mv);
        }
        games.push(GameRecord { y, game: start, moves });
    }
    Ok(games)
}

/// The quiet positions of one game (see the module's text).
fn positions(rec: &GameRecord, a: &TuneArgs, tt: &Tt) -> Vec<Hive> {
    let mut out = Vec::new();
    let mut g = rec.game.clone();
    let opts = OptionValues::default();
    for (ply, &m) in rec.moves.iter().enumerate() {
        if ply >= a.skip && g.outcome().is_none() {
            if a.pv_depth == 0 {
                out.push(g.clone());
            } else {
                tt.clear();
                let mut rng = StdRng::seed_from_u64(1);
                let mut sink = |_r| {};
                let limits = Limits { depth: Some(a.pv_depth), ..Limits::default() };
                let mut ctx = SearchCtx::new(limits, &opts, &mut rng, StopFlag::new(), &mut sink);
                let settings =
                    Settings { max_depth: a.pv_depth, threads: 1, prior: g.prior_keys().collect(), noise: 0 };
                if let Some(f) = pvs::search(&g, &HiveEval, tt, &mut ctx, &settings)
                    && f.value.abs() < WIN / 2
                {
                    let mut leaf = g.clone();
                    for &pm in &f.pv {
                        leaf.play(pm);
                    }
                    if leaf.outcome().is_none() {
                        out.push(leaf);
                    }
                }
            }
        }
        g.play(m);
    }
    out
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Mean cross-entropy of the samples under weights `w` and scale `s`.
fn loss(samples: &[&Sample], w: &[f64], s: f64) -> f64 {
    let mut total = 0.0;
    for smp in samples {
        let e: f64 = smp.x.iter().zip(w).map(|(&x, &w)| x as f64 * w).sum();
        let p = sigmoid(e / s).clamp(1e-12, 1.0 - 1e-12);
        let y = smp.y as f64;
        total -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    total / samples.len().max(1) as f64
}

/// The scale that fits `w` best (golden-section search on log S).
fn fit_scale(samples: &[&Sample], w: &[f64]) -> f64 {
    let (mut lo, mut hi) = (10f64.ln(), 5000f64.ln());
    let r = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - r * (hi - lo);
        let b = lo + r * (hi - lo);
        if loss(samples, w, a.exp()) < loss(samples, w, b.exp()) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// Solves `h x = g` (symmetric, positive definite by the ridge) by
/// Gaussian elimination with partial pivoting.
fn solve(mut h: Vec<Vec<f64>>, mut g: Vec<f64>) -> Vec<f64> {
    let n = g.len();
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| h[i][c].abs().total_cmp(&h[j][c].abs())).unwrap_or(c);
        h.swap(c, p);
        g.swap(c, p);
        let d = h[c][c];
        if d.abs() < 1e-300 {
            continue;
        }
        for r in c + 1..n {
            let f = h[r][c] / d;
            if f != 0.0 {
                let (top, bottom) = h.split_at_mut(r);
                for (a, b) in bottom[0][c..n].iter_mut().zip(&top[c][c..n]) {
                    *a -= f * b;
                }
                g[r] -= f * g[c];
            }
        }
    }
    let mut x = vec![0.0; n];
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|k| h[c][k] * x[k]).sum();
        x[c] = if h[c][c].abs() < 1e-300 { 0.0 } else { (g[c] - s) / h[c][c] };
    }
    x
}

/// Weights minimising the mean cross-entropy plus `l2 * |(w - w0) / s|^2`
/// at scale `s` (Newton's method; the penalty in units of the scale, as
/// the loss sees the weights); `fixed` weights keep their value.
fn fit(samples: &[&Sample], w0: &[f64], s: f64, l2: f64, fixed: &[usize]) -> Vec<f64> {
    let n = term::COUNT;
    let lambda = l2 * samples.len() as f64 / (s * s);
    let mut w = w0.to_vec();
    for _ in 0..30 {
        let mut g = vec![0.0; n];
        let mut h = vec![vec![0.0; n]; n];
        for smp in samples {
            let x: Vec<f64> = smp.x.iter().map(|&v| v as f64).collect();
            let e: f64 = x.iter().zip(&w).map(|(a, b)| a * b).sum();
            let p = sigmoid(e / s);
            let r = (p - smp.y as f64) / s;
            let q = p * (1.0 - p) / (s * s);
            for i in 0..n {
                if x[i] == 0.0 {
                    continue;
                }
                g[i] += r * x[i];
                let qi = q * x[i];
                for j in 0..n {
                    if x[j] != 0.0 {
                        h[i][j] += qi * x[j];
                    }
                }
            }
        }
        for i in 0..n {
            g[i] += 2.0 * lambda * (w[i] - w0[i]);
            h[i][i] += 2.0 * lambda;
        }
        for &f in fixed {
            g[f] = 0.0;
            h[f].fill(0.0);
            for row in h.iter_mut() {
                row[f] = 0.0;
            }
            h[f][f] = 1.0;
        }
        let step = solve(h, g);
        let mut moved = 0f64;
        for i in 0..n {
            w[i] -= step[i];
            moved = moved.max(step[i].abs());
        }
        if moved < 1e-3 {
            break;
        }
    }
    w
}

/// Runs the tuning (see the module's text), printing its progress and the
/// weights to `out`.
pub fn tune(a: &TuneArgs, out: &mut dyn Write) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let start = crate::time::Instant::now();
    let games = read_games(&a.data)?;
    if games.is_empty() {
        return Err(format!("{}: no games", a.data.display()));
    }
    let tt = Tt::new(16).map_err(|e| e.to_string())?;
    // Positions of each game, training games and held-out games apart.
    let mut leaves: Vec<(Hive, f32, bool)> = Vec::new();
    for (i, rec) in games.iter().enumerate() {
        for p in positions(rec, a, &tt) {
            leaves.push((p, rec.y, i % 10 == 9));
        }
    }
    let n_hold = leaves.iter().filter(|l| l.2).count();
    writeln!(
        out,
        "{} games, {} positions ({} held out), read and searched in {:.1} s",
        games.len(),
        leaves.len(),
        n_hold,
        start.elapsed().as_secs_f64()
    )
    .map_err(io)?;
    if leaves.len() < 100 {
        return Err(format!("only {} positions: too few to fit {} weights", leaves.len(), term::COUNT));
    }
    let fixed = [term::PRESSURE];
    let w0: Vec<f64> = W.iter().map(|&v| v as f64).collect();
    let mut w = w0.clone();
    let mut s = 0.0;
    let mut before = (0.0, 0.0);
    let mut after = (0.0, 0.0);
    let mut rounded: Weights = W;
    // The counts depend on the weights a little (what a mosquito counts
    // as): a second round recounts with the first round's weights.
    for round in 0..2 {
        let wi: Weights = rounded;
        let samples: Vec<Sample> =
            leaves.iter().map(|(g, y, _)| Sample { x: counts(g, &wi), y: *y }).collect();
        let train: Vec<&Sample> = samples.iter().zip(&leaves).filter(|(_, l)| !l.2).map(|(s, _)| s).collect();
        let hold: Vec<&Sample> = samples.iter().zip(&leaves).filter(|(_, l)| l.2).map(|(s, _)| s).collect();
        if round == 0 {
            s = fit_scale(&train, &w0);
            before = (loss(&train, &w0, s), loss(&hold, &w0, s));
            writeln!(
                out,
                "scale {s:.1}; cross-entropy of the current weights {:.5} (held out {:.5})",
                before.0, before.1
            )
            .map_err(io)?;
        }
        w = fit(&train, &w, s, a.l2, &fixed);
        for (r, v) in rounded.iter_mut().zip(&w) {
            *r = v.round() as i32;
        }
        let wr: Vec<f64> = rounded.iter().map(|&v| v as f64).collect();
        after = (loss(&train, &wr, s), loss(&hold, &wr, s));
        writeln!(out, "round {}: cross-entropy {:.5} (held out {:.5})", round + 1, after.0, after.1)
            .map_err(io)?;
    }
    writeln!(out, "{:<20} {:>6} {:>6}", "weight", "before", "after").map_err(io)?;
    for i in 0..term::COUNT {
        writeln!(out, "{:<20} {:>6} {:>6}", term::name(i), W[i], rounded[i]).map_err(io)?;
    }
    writeln!(out, "time {:.1} s", start.elapsed().as_secs_f64()).map_err(io)?;
    if let Some(path) = &a.out {
        let summary = format!(
            "{} positions of {} games ({} held out), past ply {}, PV leaves of depth {}; scale {s:.1}; \
             cross-entropy {:.5} -> {:.5}, held out {:.5} -> {:.5}",
            leaves.len() - n_hold,
            games.len() - games.len() / 10,
            n_hold,
            a.skip,
            a.pv_depth,
            before.0,
            after.0,
            before.1,
            after.1
        );
        let text = weights_source(&rounded, a.run.as_deref().unwrap_or("(not told)"), &summary);
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        writeln!(out, "weights written to {}", path.display()).map_err(io)?;
    }
    Ok(())
}

/// `weights.rs` for the weights `w`, naming the run and the fit.
pub fn weights_source(w: &Weights, run: &str, summary: &str) -> String {
    let row = |r: std::ops::Range<usize>| r.map(|i| w[i].to_string()).collect::<Vec<_>>().join(", ");
    let wrap = |text: &str| {
        let mut lines = vec![String::new()];
        for word in text.split_whitespace() {
            let l = lines.last_mut().expect("one line at least");
            if !l.is_empty() && l.len() + word.len() > 90 {
                lines.push(word.to_string());
            } else {
                if !l.is_empty() {
                    l.push(' ');
                }
                l.push_str(word);
            }
        }
        lines.iter().map(|l| format!("//! {l}\n")).collect::<String>()
    };
    use term::*;
    format!(
        "//! The evaluation's weights (see `eval::term` for what each one counts).\n//!\n//! Written by \
         `meeple bench hive --tune` (src/games/hive/tune.rs). Run:\n{}//!\n//! Fit:\n{}\n\
         use super::eval::Weights;\n\n/// The weights, indexed by `eval::term`.\n#[rustfmt::skip]\npub const W: \
         Weights = [\n    // mobile: Q S B G A M L P\n    {},\n    // hand: Q S B G A M L P\n    {},\n    \
         // pressure by half-neighbours 0..=12\n    {},\n    // threat, beetle on queen, beetle near queen, \
         pillbug guard, queen free\n    {},\n    // places 0 1 2\n    {},\n    // tempo\n    {},\n];\n",
        wrap(run),
        wrap(summary),
        row(MOBILE..HAND),
        row(HAND..PRESSURE),
        row(PRESSURE..THREAT),
        row(THREAT..PLACES),
        row(PLACES..TEMPO),
        row(TEMPO..COUNT),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts times weights is the evaluation.
    #[test]
    fn counts_times_weights_is_the_evaluation() {
        use rand::Rng;
        let mut rng = StdRng::seed_from_u64(5);
        // Weights of every term, also those the committed ones leave at 0.
        let mut w = W;
        for (i, v) in w.iter_mut().enumerate() {
            *v += 3 + i as i32;
        }
        let mut checked = 0;
        for game in 0..40 {
            let t = if game % 2 == 0 { "Base+MLP" } else { "Base" };
            let mut g: Hive = crate::gamestring::parse(t).unwrap();
            for _ in 0..rng.random_range(0..70) {
                let v = g.moves();
                if v.is_empty() || g.outcome().is_some() {
                    break;
                }
                g.play(v[rng.random_range(0..v.len())]);
            }
            let x = counts(&g, &w);
            let dot: f32 = x.iter().zip(&w).map(|(a, b)| a * *b as f32).sum();
            assert_eq!(dot as i32, eval::evaluate_white_with(&g, &w));
            let dot: f32 = counts(&g, &W).iter().zip(&W).map(|(a, b)| a * *b as f32).sum();
            assert_eq!(dot as i32, eval::evaluate_white(&g));
            checked += 1;
        }
        assert_eq!(checked, 40);
    }

    /// Games whose winner is told by one term: the fit gives that term
    /// the weight, and the loss falls.
    #[test]
    fn the_fit_finds_a_planted_term() {
        // Samples whose result follows the tempo count (a term the
        // committed weights give 0) through a logistic law of scale 100:
        // the fit must find its weight near 50.
        let mut rng = StdRng::seed_from_u64(9);
        let mut samples = Vec::new();
        for _ in 0..4000 {
            use rand::Rng;
            let mut x = [0f32; term::COUNT];
            x[term::TEMPO] = rng.random_range(-3..=3) as f32;
            x[term::MOBILE + 4] = rng.random_range(-2..=2) as f32;
            let p = sigmoid((50.0 * x[term::TEMPO] as f64 + 16.0 * x[term::MOBILE + 4] as f64) / 100.0);
            let y = if rng.random_bool(p) { 1.0 } else { 0.0 };
            samples.push(Sample { x, y });
        }
        let refs: Vec<&Sample> = samples.iter().collect();
        let w0: Vec<f64> = W.iter().map(|&v| v as f64).collect();
        let w = fit(&refs, &w0, 100.0, 1e-6, &[term::PRESSURE]);
        assert!((w[term::TEMPO] - 50.0).abs() < 10.0, "{}", w[term::TEMPO]);
        assert!(loss(&refs, &w, 100.0) < loss(&refs, &w0, 100.0));
        assert_eq!(w[term::PRESSURE], w0[term::PRESSURE]);
        // The scale that fits the planted weights is near 100.
        let mut planted = vec![0.0; term::COUNT];
        planted[term::TEMPO] = 50.0;
        planted[term::MOBILE + 4] = 16.0;
        let s = fit_scale(&refs, &planted);
        assert!((60.0..160.0).contains(&s), "{s}");
    }

    #[test]
    fn tunes_a_small_file_and_writes_weights() {
        let dir = std::env::temp_dir().join(format!("meeple-tune-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("games.txt");
        // Random games, each scored by who won (or 0.5).
        let mut rng = StdRng::seed_from_u64(3);
        let mut text = String::from("# test games\n");
        let mut n = 0;
        while n < 30 {
            use rand::Rng;
            let mut g: Hive = crate::gamestring::parse("Base").unwrap();
            let mut moves = Vec::new();
            for _ in 0..60 {
                let v = g.moves();
                if v.is_empty() || g.outcome().is_some() {
                    break;
                }
                let m = v[rng.random_range(0..v.len())];
                moves.push(g.format_move(m));
                g.play(m);
            }
            let y = match g.outcome() {
                Some(crate::game::Outcome::Win(0)) => "1",
                Some(crate::game::Outcome::Win(_)) => "0",
                _ => "0.5",
            };
            text.push_str(&format!("{y} Base;InProgress;White[1];{}\n", moves.join(";")));
            n += 1;
        }
        std::fs::write(&data, text).unwrap();
        let out_file = dir.join("weights.rs");
        let a = TuneArgs {
            data: data.clone(),
            skip: 4,
            pv_depth: 1,
            l2: 1e-3,
            out: Some(out_file.clone()),
            run: Some("a test".into()),
        };
        let mut out = Vec::new();
        tune(&a, &mut out).unwrap();
        let report = String::from_utf8(out).unwrap();
        assert!(report.contains("30 games"), "{report}");
        let src = std::fs::read_to_string(&out_file).unwrap();
        assert!(src.contains("pub const W: Weights = [") && src.contains("a test"), "{src}");
        assert!(src.matches(',').count() >= term::COUNT);
        // A bad line is an error naming it.
        std::fs::write(&data, "2 Base;InProgress;White[1];wS1\n").unwrap();
        let e = tune(&a, &mut Vec::new()).unwrap_err();
        assert!(e.contains(":1:"), "{e}");
        std::fs::write(&data, "1 Base;InProgress;White[1];wS1;xx\n").unwrap();
        assert!(tune(&a, &mut Vec::new()).unwrap_err().contains("move 2"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
