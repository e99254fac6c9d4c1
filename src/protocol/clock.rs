//! From `go`'s tokens to the limits of one search: the clock budget, the
//! `Move Overhead` margin, and absurd figures made harmless.

use std::time::Duration;

use super::command::GoParams;
use crate::search::Limits;

/// The time a player may use of a hard limit: the limit less the
/// overhead, at least 1 ms.
pub fn budget(limit: Duration, overhead: Duration) -> Duration {
    limit.saturating_sub(overhead).max(Duration::from_millis(1))
}

/// The limits of `go` for the side to move (`side` 0 = first mover).
pub fn go_limits(p: &GoParams, side: usize, overhead: Duration) -> Limits {
    let (time, inc) = if side == 0 { (p.wtime, p.winc) } else { (p.btime, p.binc) };
    let clock = time.map(|t| {
        let t = Duration::from_millis(t);
        let inc = Duration::from_millis(inc.unwrap_or(0));
        // Moves left in this period: `movestogo`, else plan for 20 more.
        let moves = p.movestogo.unwrap_or(20).clamp(1, 1000) as u32;
        let spend = (t / moves).saturating_add(inc.saturating_mul(3) / 4);
        // Never more than the clock holds, less the overhead.
        budget(spend.min(t), overhead).min(budget(t, overhead))
    });
    let movetime = p.movetime.map(|t| budget(Duration::from_millis(t), overhead));
    // The clock's budget binds when it is no more than `movetime`.
    let from_clock = clock.is_some_and(|c| movetime.is_none_or(|m| c <= m));
    let movetime = match (movetime, clock) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    // `mate N`: a win in N own moves lies within 2N - 1 plies.
    let mate_depth = p.mate.map(|n| n.saturating_mul(2).saturating_sub(1).max(1));
    let depth = match (p.depth, mate_depth) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    Limits { depth, nodes: p.nodes, movetime, from_clock, infinite: p.infinite }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OH: Duration = Duration::from_millis(30);

    #[test]
    fn movetime_keeps_the_margin() {
        let p = GoParams { movetime: Some(100), ..Default::default() };
        assert_eq!(go_limits(&p, 0, OH).movetime, Some(Duration::from_millis(70)));
        let p = GoParams { movetime: Some(10), ..Default::default() };
        assert_eq!(go_limits(&p, 0, OH).movetime, Some(Duration::from_millis(1)));
        assert!(!go_limits(&p, 0, OH).from_clock);
    }

    #[test]
    fn from_clock_says_which_limit_binds() {
        let clock = GoParams { wtime: Some(10_000), movestogo: Some(10), ..Default::default() };
        assert!(go_limits(&clock, 0, OH).from_clock);
        // White's clock does not bind Black, who has none.
        assert!(!go_limits(&clock, 1, OH).from_clock);
        let tighter = GoParams { movetime: Some(500), ..clock.clone() };
        assert_eq!(go_limits(&tighter, 0, OH).movetime, Some(Duration::from_millis(470)));
        assert!(!go_limits(&tighter, 0, OH).from_clock);
        let looser = GoParams { movetime: Some(5_000), ..clock };
        assert_eq!(go_limits(&looser, 0, OH).movetime, Some(Duration::from_millis(970)));
        assert!(go_limits(&looser, 0, OH).from_clock);
    }

    #[test]
    fn clock_budget() {
        let p =
            GoParams { wtime: Some(10_000), btime: Some(2_000), movestogo: Some(4), ..Default::default() };
        assert_eq!(go_limits(&p, 0, OH).movetime, Some(Duration::from_millis(2_470)));
        assert_eq!(go_limits(&p, 1, OH).movetime, Some(Duration::from_millis(470)));
        let last = GoParams { wtime: Some(100), movestogo: Some(1), ..Default::default() };
        assert_eq!(go_limits(&last, 0, OH).movetime, Some(Duration::from_millis(70)));
        let inc = GoParams { wtime: Some(1_000), winc: Some(2_000), ..Default::default() };
        assert_eq!(go_limits(&inc, 0, OH).movetime, Some(Duration::from_millis(970)));
    }

    #[test]
    fn absurd_figures_do_not_overflow() {
        let p = GoParams {
            movetime: Some(u64::MAX),
            wtime: Some(u64::MAX),
            winc: Some(u64::MAX),
            mate: Some(u32::MAX),
            ..Default::default()
        };
        let l = go_limits(&p, 0, OH);
        assert!(l.movetime.is_some());
        assert_eq!(l.depth, Some(u32::MAX - 1));
    }
}
