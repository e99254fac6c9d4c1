//! Hive's review (protocol.md, "`review`"): each position searched once
//! by the `alphabeta` search at full strength within the review's limits
//! (its `Skill` is not used), the value turned into a winning chance by a
//! logistic law, and each move labelled by the drop in the mover's
//! chance, as lichess does.
//!
//! The value of the position before a move is the best move's value, and
//! minus the value of the position after it is the move's own; so one
//! search per position judges every move. The two are read at matching
//! depths (the position before at depth `d`, the one after at `d - 1`, so
//! both look as far into the game: an evaluation that favours the side to
//! move would otherwise count against every move). A move the search
//! chose at that depth is `best` (with the position's value); another is
//! `good`, an inaccuracy, a mistake or a blunder by its drop (0.1, 0.2,
//! 0.3 on -1..1). A move that was the only one (a pass included) is
//! `forced`, and its position is valued through the position after it.
//! The graph's point after a move is the mean of the chances of the
//! position's last two depths.
//!
//! The winning chance of a value `v` (centipawns of the evaluation, from
//! the side to move) is `2 / (1 + exp(-SCALE v)) - 1`, a proven win or
//! loss 1 or -1. [`SCALE`] was fitted by maximum likelihood to self-play
//! games (see its doc and protocol.md).

use std::sync::Arc;

use super::Hive;
use super::eval::HiveEval;
use super::mv::Move;
use crate::engine::review::{Label, PlyReview, Reviewer, logistic_chance};
use crate::game::{Game, Outcome};
use crate::search::pvs::{self, Settings, WIN, WIN_THRESHOLD};
use crate::search::tt::Tt;
use crate::search::{Report, Score};

/// The logistic scale of the winning chance, per centipawn: fitted by
/// maximum likelihood to 14339 positions of 275 self-play games (Base and
/// Base+MLP, 10000 nodes a move), each valued by `review nodes 30000`:
/// k = 0.007837, cross-entropy 0.61629 (0.69315 with k = 0). Reproduced by
/// `python3 scripts/tune_hive.py --work WORK --games 150 --nodes 10000
/// --seed 42` (the games) then `python3 scripts/fit_review_scale.py
/// WORK/games.txt --review 'nodes 30000'` (protocol.md section 10).
pub const SCALE: f64 = 0.0078;

/// Forced moves in a row valued through the positions after them, at
/// most (then the position is searched as it is).
const FORCED_CHAIN: usize = 8;

/// The side to move's winning chance on -1..1 of a value.
pub fn chance(v: i32) -> f64 {
    if v >= WIN_THRESHOLD {
        1.0
    } else if v <= -WIN_THRESHOLD {
        -1.0
    } else {
        logistic_chance(v as f64, SCALE)
    }
}

/// A value as the reply writes it: centipawns, or `mateN` / `mate-N` (a
/// proven win or loss of the side to move in N of its own moves).
pub fn value_text(v: i32) -> String {
    match pvs::score_of(v) {
        Score::Mate(n) => format!("mate{n}"),
        Score::Cp(c) => c.to_string(),
        other => other.to_string(),
    }
}

/// The value of a position seen from the side that moved into it: minus
/// its value, a proven result one ply further away.
fn from_mover(v: i32) -> i32 {
    if v >= WIN_THRESHOLD {
        -(v - 1)
    } else if v <= -WIN_THRESHOLD {
        -(v + 1)
    } else {
        -v
    }
}

/// What a position is worth to its side to move: each completed depth's
/// value and move (deepest last), or a finished game's value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Valued {
    depths: Vec<(u32, i32, Option<Move>)>,
    terminal: Option<i32>,
}

impl Valued {
    /// The value and move at depth `d`, if searched (any depth for a
    /// finished game).
    fn at(&self, d: u32) -> Option<(i32, Option<Move>)> {
        if let Some(v) = self.terminal {
            return Some((v, None));
        }
        self.depths.iter().rev().find(|e| e.0 == d).map(|e| (e.1, e.2))
    }

    fn deepest(&self) -> Option<u32> {
        self.depths.iter().map(|e| e.0).max()
    }

    /// The side to move's chance, the mean of the last two depths' (which
    /// cancels most of the swing between odd and even depths).
    fn chance(&self) -> Option<f64> {
        if let Some(v) = self.terminal {
            return Some(chance(v));
        }
        let d = self.deepest()?;
        let a = chance(self.at(d)?.0);
        Some(match self.at(d.saturating_sub(1)).filter(|_| d > 1) {
            Some((b, _)) => (a + chance(b)) / 2.0,
            None => a,
        })
    }

    /// The same values one forced move earlier, seen from the side that
    /// has it.
    fn before_forced(&self, mv: Move) -> Valued {
        Valued {
            depths: self.depths.iter().map(|&(d, v, _)| (d + 1, from_mover(v), Some(mv))).collect(),
            terminal: None,
        }
        .or_terminal(self.terminal.map(from_mover))
    }

    fn or_terminal(mut self, t: Option<i32>) -> Valued {
        if let Some(v) = t {
            self.depths = vec![(1, v, None)];
        }
        self
    }
}

/// A search value from a report's score.
fn value_of_score(s: Score) -> Option<i32> {
    match s {
        Score::Cp(v) | Score::CpLower(v) => Some(v),
        Score::Mate(n) if n > 0 => Some(WIN - (2 * n - 1)),
        Score::Mate(n) => Some(-(WIN - 2 * n.abs())),
        _ => None,
    }
}

/// The value of a finished game for its side to move.
fn terminal(pos: &Hive) -> Option<i32> {
    match pos.outcome()? {
        Outcome::Draw => Some(0),
        Outcome::Win(s) if s == pos.side_to_move() => Some(WIN),
        Outcome::Win(_) => Some(-WIN),
    }
}

/// The review of a whole game (see the module).
pub fn review(start: &Hive, moves: &[Move], rv: &mut Reviewer) -> Result<(), String> {
    let o = rv.options();
    let tt = table(o.get_int("Hash").unwrap_or(64).clamp(1, 1 << 20) as usize);
    let threads = o.get_int("Threads").unwrap_or(1).clamp(1, 64) as usize;
    let l = rv.limits();
    let depth = match l.depth {
        Some(d) => d,
        None if l.movetime.is_some() || l.nodes.is_some() => 64,
        None => o.get_int("Depth").unwrap_or(3).clamp(1, 20) as u32,
    };
    let mut positions = vec![start.clone()];
    for &m in moves {
        let mut p = positions.last().expect("one").clone();
        p.play(m);
        positions.push(p);
    }
    let n = moves.len();
    let mut vals: Vec<Option<Valued>> = vec![None; n + 1];
    let mut next = 0;
    for i in 0..=n {
        if rv.stopped() {
            return Ok(());
        }
        let pos = &positions[i];
        let single = pos.outcome().is_none() && pos.moves().len() == 1;
        if !single || i == n {
            let v = value_of(pos, &tt, threads, depth, rv, 0);
            if rv.stopped() {
                return Ok(());
            }
            vals[i] = Some(v);
            // Forced positions before it are valued through it.
            let mut k = i;
            while k > 0 && vals[k - 1].is_none() {
                let after = vals[k].clone().expect("set");
                vals[k - 1] = Some(after.before_forced(moves[k - 1]));
                k -= 1;
            }
        }
        rv.progress(i + 1, n + 1);
        while next < n
            && let (Some(before), Some(after)) = (&vals[next], &vals[next + 1])
        {
            rv.judged(judge(&positions[next], moves[next], before, after, next + 1));
            next += 1;
        }
    }
    Ok(())
}

/// The value of `pos`: a finished game's, through its only move, or the
/// search's (each depth's).
fn value_of(pos: &Hive, tt: &Tt, threads: usize, depth: u32, rv: &mut Reviewer, chain: usize) -> Valued {
    if let Some(v) = terminal(pos) {
        return Valued { depths: Vec::new(), terminal: Some(v) };
    }
    let moves = pos.moves();
    if moves.len() == 1 && chain < FORCED_CHAIN {
        let mut after = pos.clone();
        after.play(moves[0]);
        return value_of(&after, tt, threads, depth, rv, chain + 1).before_forced(moves[0]);
    }
    let mut depths: Vec<(u32, i32, Option<Move>)> = Vec::new();
    let mut reports = |r: Report| {
        let (Some(v), Some(first)) = (r.score.and_then(value_of_score), r.pv.first()) else { return };
        let mv = pos.parse_move(first).ok();
        depths.retain(|e| e.0 != r.depth);
        depths.push((r.depth, v, mv));
    };
    rv.search_reporting(&mut reports, |ctx| {
        let settings = Settings { max_depth: depth, threads, prior: pos.prior_keys().collect(), noise: 0 };
        // The search scores repetitions itself (see `players.rs`).
        let mut root = pos.clone();
        root.set_repetition_draw(false);
        pvs::search(&root, &HiveEval, tt, ctx, &settings);
    });
    depths.sort_by_key(|e| e.0);
    Valued { depths, terminal: None }
}

/// A table of `mb` MB, or as much of it as the machine gives.
fn table(mb: usize) -> Arc<Tt> {
    let mut size = mb.max(1);
    loop {
        match Tt::new(size) {
            Ok(t) => return Arc::new(t),
            Err(e) if size > 1 => {
                log::warn!("review table: {e}; trying {} MB", size / 2);
                size /= 2;
            }
            Err(_) => return Arc::new(Tt::new(0).expect("a one-bucket table")),
        }
    }
}

/// The depths that judge a move: the deepest `d` searched before it
/// whose position after it was searched to `d - 1` (both searches then
/// look to the same ply of the game), with the values there.
fn matched(before: &Valued, after: &Valued) -> Option<(u32, (i32, Option<Move>), i32)> {
    before
        .depths
        .iter()
        .rev()
        .find_map(|&(d, v, m)| after.at(d.saturating_sub(1)).map(|(a, _)| (d, (v, m), a)))
        .or_else(|| {
            // Nothing matches: each one's deepest.
            let d = before.deepest()?;
            let (v, m) = before.at(d)?;
            let a = after.at(after.deepest()?)?.0;
            Some((d, (v, m), a))
        })
}

/// Judges the move `mv` of `pos` (the `ply`-th), the position valued
/// `before`, the one after it `after` (each for its side to move).
fn judge(pos: &Hive, mv: Move, before: &Valued, after: &Valued, ply: usize) -> PlyReview {
    let mut p = PlyReview::new(ply, pos.side_to_move(), pos.format_move(mv));
    let forced = pos.moves().len() == 1;
    match matched(before, after) {
        None => p.label = if forced { Label::Forced } else { Label::Unproven },
        Some((d, (best, best_move), after_value)) => {
            let played = from_mover(after_value);
            p.extra.push(("depth", d.to_string()));
            if forced {
                p.label = Label::Forced;
                p.value = Some(value_text(played));
                p.best = Some(p.mv.clone());
                p.best_value = p.value.clone();
            } else if best_move == Some(mv) {
                p.label = Label::Best;
                p.value = Some(value_text(best));
                p.best = Some(p.mv.clone());
                p.best_value = p.value.clone();
                p.drop = Some(0.0);
            } else {
                p.value = Some(value_text(played));
                p.best = best_move.map(|b| pos.format_move(b));
                p.best_value = Some(value_text(best));
                let drop = (chance(best) - chance(played)).max(0.0);
                p.drop = Some(drop);
                p.label = Label::from_drop(drop);
            }
        }
    }
    if let Some(c) = after.chance() {
        // White's chance after the move.
        p.graph = Some(if pos.side_to_move() == 0 { -c } else { c });
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_seen_from_the_mover() {
        // The side to move lost: the mover won with this move, mate in 1.
        assert_eq!(value_text(from_mover(-WIN)), "mate1");
        // The side to move wins with its next move: the mover loses in 1.
        assert_eq!(value_text(from_mover(WIN - 1)), "mate-1");
        assert_eq!(from_mover(35), -35);
        assert_eq!(chance(WIN - 3), 1.0);
        assert!(chance(100) > 0.0 && chance(100) < 1.0);
        assert_eq!(chance(-100), -chance(100));
        for n in [1, 2, 5, -1, -3] {
            let v = value_of_score(Score::Mate(n)).unwrap();
            assert_eq!(pvs::score_of(v), Score::Mate(n), "{n}");
        }
    }

    /// The values of a move are read at matching depths.
    #[test]
    fn depths_are_matched() {
        let m = Move::PASS;
        let before =
            Valued { depths: vec![(4, 10, Some(m)), (5, 40, Some(m)), (6, 12, Some(m))], terminal: None };
        let after = Valued { depths: vec![(3, -30, None), (4, 5, None)], terminal: None };
        assert_eq!(matched(&before, &after), Some((5, (40, Some(m)), 5)));
        let won = Valued { depths: vec![], terminal: Some(-WIN) };
        assert_eq!(matched(&before, &won), Some((6, (12, Some(m)), -WIN)));
        let shallow = Valued { depths: vec![(1, 7, None)], terminal: None };
        assert_eq!(matched(&before, &shallow), Some((6, (12, Some(m)), 7)));
    }
}
