//! Time controls and the clocks of a table's two sides: a clock that
//! counts down with an increment after each own move (minutes +
//! increment), or a time per move; the running side's time runs out at a
//! deadline the table waits for when loss on time is on.
//!
//! A side is charged only for its own time: its clock runs from when its
//! move could be made (the table starts it as it shows the position) to
//! when the move was read (the table passes that instant, however late it
//! gets to the move), and time the side spent waiting on the server is
//! given back ([`Clocks::credit`]).

use std::time::Duration;

use crate::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Longest time control accepted: a day.
pub const MAX_MS: u64 = 24 * 3600 * 1000;

/// A side's time control.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TimeControl {
    /// No limit (the clock counts up).
    #[default]
    None,
    /// `base` ms at the start, `inc` ms added after each own move.
    Clock { base: u64, inc: u64 },
    /// `ms` for every move.
    Move { ms: u64 },
}

impl TimeControl {
    /// The control with its numbers brought into range.
    pub fn clamped(self) -> TimeControl {
        match self {
            TimeControl::None => TimeControl::None,
            TimeControl::Clock { base, inc } => {
                TimeControl::Clock { base: base.clamp(1000, MAX_MS), inc: inc.min(MAX_MS / 10) }
            }
            TimeControl::Move { ms } => TimeControl::Move { ms: ms.clamp(100, MAX_MS) },
        }
    }

    fn start(self) -> Option<i64> {
        match self {
            TimeControl::None => None,
            TimeControl::Clock { base, .. } => Some(base as i64),
            TimeControl::Move { ms } => Some(ms as i64),
        }
    }

    /// In words for a person and the results database: `5+3` (whole
    /// minutes + seconds of increment), `0:10+0` or `1:30+2` (minutes and
    /// seconds when the base is not whole minutes), `30 s/move`, or empty.
    pub fn text(self) -> String {
        match self {
            TimeControl::None => String::new(),
            TimeControl::Clock { base, inc } if base % 60_000 == 0 => {
                format!("{}+{}", base / 60_000, seconds(inc))
            }
            TimeControl::Clock { base, inc } => {
                let s = seconds(base % 60_000);
                let pad = if base % 60_000 < 10_000 { "0" } else { "" };
                format!("{}:{pad}{s}+{}", base / 60_000, seconds(inc))
            }
            TimeControl::Move { ms } => format!("{} s/move", seconds(ms)),
        }
    }
}

/// Milliseconds as seconds, with the decimals they need: `3`, `0.5`,
/// `1.25` (exact: no binary fraction shows).
fn seconds(ms: u64) -> String {
    let (s, frac) = (ms / 1000, ms % 1000);
    if frac == 0 {
        return s.to_string();
    }
    let f = format!("{frac:03}");
    format!("{s}.{}", f.trim_end_matches('0'))
}

/// The two sides' clocks.
#[derive(Clone, Debug)]
pub struct Clocks {
    tc: [TimeControl; 2],
    /// Time left, ms (negative once run out without loss on time); `None`
    /// without a limit, where the time used this turn is counted instead.
    left: [Option<i64>; 2],
    /// Time used by each side this turn, ms (for sides without a limit).
    used: [i64; 2],
    running: Option<(usize, Instant)>,
    /// Loss on time.
    pub flag: bool,
}

impl Clocks {
    pub fn new(tc: [TimeControl; 2], flag: bool) -> Clocks {
        Clocks { tc, left: [tc[0].start(), tc[1].start()], used: [0, 0], running: None, flag }
    }

    pub fn control(&self, side: usize) -> TimeControl {
        self.tc[side]
    }

    /// The side whose time runs, if any.
    pub fn running(&self) -> Option<usize> {
        self.running.map(|(s, _)| s)
    }

    /// `side`'s time runs from `now` (nothing if it already runs).
    pub fn start(&mut self, side: usize, now: Instant) {
        match self.running {
            Some((s, _)) if s == side => {}
            Some(_) => {
                self.stop(now);
                self.running = Some((side, now));
            }
            None => self.running = Some((side, now)),
        }
    }

    /// Stops the running time (a pause): what was used is taken off.
    pub fn stop(&mut self, now: Instant) {
        if let Some((s, t)) = self.running.take() {
            let ms = now.saturating_duration_since(t).as_millis() as i64;
            if let Some(l) = &mut self.left[s] {
                *l -= ms;
            }
            self.used[s] += ms;
        }
    }

    /// The running side waited on the server from `since` to `now`: that
    /// time is given back (its clock runs as if it had started that much
    /// later, never later than `now`).
    pub fn credit(&mut self, since: Instant, now: Instant) {
        if let Some((_, t)) = &mut self.running {
            let waited = now.saturating_duration_since(since.max(*t));
            *t = (*t + waited).min(now);
        }
    }

    /// `side` has moved at `now`: its time stops, then its increment is
    /// added (a clock) or its time per move comes back.
    pub fn moved(&mut self, side: usize, now: Instant) {
        if self.running() == Some(side) {
            self.stop(now);
        }
        self.used[side] = 0;
        match self.tc[side] {
            TimeControl::Clock { inc, .. } => {
                if let Some(l) = &mut self.left[side] {
                    *l += inc as i64;
                }
            }
            TimeControl::Move { ms } => self.left[side] = Some(ms as i64),
            TimeControl::None => {}
        }
    }

    /// `side`'s time left at `now` (`None`: no limit).
    pub fn left(&self, side: usize, now: Instant) -> Option<i64> {
        let l = self.left[side]?;
        Some(match self.running {
            Some((s, t)) if s == side => l - now.saturating_duration_since(t).as_millis() as i64,
            _ => l,
        })
    }

    /// When the running side's time runs out, if it has a limit (and it
    /// has not run out already: then now).
    pub fn deadline(&self) -> Option<Instant> {
        let (s, t) = self.running?;
        let l = self.left[s]?;
        Some(t + Duration::from_millis(l.max(0) as u64))
    }

    /// The side whose time has run out at `now`, with loss on time.
    pub fn flagged(&self, now: Instant) -> Option<usize> {
        let s = self.running()?;
        (self.flag && self.left(s, now).is_some_and(|l| l <= 0)).then_some(s)
    }

    /// `go`'s clock arguments for an engine on `side` with a clock:
    /// `wtime`/`winc` for side 0, `btime`/`binc` for side 1 (never below
    /// 1 ms).
    pub fn go_args(&self, side: usize, now: Instant) -> Option<String> {
        let TimeControl::Clock { inc, .. } = self.tc[side] else { return None };
        let left = self.left(side, now)?.max(1);
        let (t, i) = if side == 0 { ("wtime", "winc") } else { ("btime", "binc") };
        Some(format!("{t} {left} {i} {inc}"))
    }

    /// For the page: each side's control and time left (or used this
    /// turn, without a limit), which runs, and loss on time.
    pub fn snapshot(&self, now: Instant) -> Value {
        let used = |s: usize| match self.running {
            Some((r, t)) if r == s => self.used[s] + now.saturating_duration_since(t).as_millis() as i64,
            _ => self.used[s],
        };
        json!({
            "tc": self.tc,
            "text": [self.tc[0].text(), self.tc[1].text()],
            "left": [self.left(0, now), self.left(1, now)],
            "used": [used(0), used(1)],
            "running": self.running(),
            "flag": self.flag,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    #[test]
    fn a_clock_counts_down_and_gets_its_increment() {
        let t0 = Instant::now();
        let mut c = Clocks::new([TimeControl::Clock { base: 60_000, inc: 2000 }, TimeControl::None], true);
        c.start(0, t0);
        assert_eq!(c.left(0, at(t0, 1500)), Some(58_500));
        assert_eq!(c.deadline(), Some(at(t0, 60_000)));
        c.moved(0, at(t0, 5000));
        assert_eq!(c.left(0, at(t0, 9000)), Some(57_000));
        assert_eq!(c.running(), None);
        c.start(1, at(t0, 5000));
        assert_eq!(c.left(1, at(t0, 9000)), None);
        assert_eq!(c.deadline(), None);
        assert_eq!(c.snapshot(at(t0, 9000))["used"][1], 4000);
        c.moved(1, at(t0, 9000));
        // A pause takes off what was used and stops the time.
        c.start(0, at(t0, 9000));
        c.stop(at(t0, 10_000));
        assert_eq!(c.left(0, at(t0, 99_000)), Some(56_000));
        assert_eq!(c.go_args(0, at(t0, 99_000)).unwrap(), "wtime 56000 winc 2000");
        assert_eq!(c.go_args(1, at(t0, 99_000)), None);
    }

    #[test]
    fn time_per_move_comes_back_and_running_out_loses_with_flag() {
        let t0 = Instant::now();
        let mut c =
            Clocks::new([TimeControl::Move { ms: 3000 }, TimeControl::Clock { base: 1000, inc: 0 }], true);
        c.start(0, t0);
        c.moved(0, at(t0, 2500));
        assert_eq!(c.left(0, at(t0, 2500)), Some(3000));
        c.start(1, at(t0, 2500));
        assert_eq!(c.flagged(at(t0, 3000)), None);
        assert_eq!(c.flagged(at(t0, 3500)), Some(1));
        assert_eq!(c.deadline(), Some(at(t0, 3500)));
        c.flag = false;
        assert_eq!(c.flagged(at(t0, 3500)), None);
        assert_eq!(c.left(1, at(t0, 4500)), Some(-1000));
        assert_eq!(c.go_args(1, at(t0, 4500)).unwrap(), "btime 1 binc 0");
    }

    #[test]
    fn a_wait_on_the_server_is_given_back() {
        let t0 = Instant::now();
        let mut c = Clocks::new([TimeControl::Clock { base: 10_000, inc: 0 }, TimeControl::None], true);
        c.start(0, t0);
        // The side waited 3 s (from 1 s to 4 s) for the server.
        c.credit(at(t0, 1000), at(t0, 4000));
        assert_eq!(c.left(0, at(t0, 5000)), Some(8000));
        assert_eq!(c.deadline(), Some(at(t0, 13_000)));
        // A wait that began before the clock ran counts from its start.
        let mut c = Clocks::new([TimeControl::Clock { base: 10_000, inc: 0 }, TimeControl::None], true);
        c.start(0, at(t0, 2000));
        c.credit(t0, at(t0, 3000));
        assert_eq!(c.left(0, at(t0, 3000)), Some(10_000));
        // A move read before the table got to it is timed when read.
        c.moved(0, at(t0, 4000));
        assert_eq!(c.left(0, at(t0, 9000)), Some(9000));
        // Nothing runs: nothing to give back.
        c.credit(t0, at(t0, 9000));
        assert_eq!(c.left(0, at(t0, 9000)), Some(9000));
    }

    #[test]
    fn controls_in_words_and_in_range() {
        assert_eq!(TimeControl::Clock { base: 300_000, inc: 3000 }.text(), "5+3");
        // Issue 43, item 9: a base that is not whole minutes is in
        // minutes and seconds (it was "0.16666666666666666+0").
        assert_eq!(TimeControl::Clock { base: 10_000, inc: 0 }.text(), "0:10+0");
        assert_eq!(TimeControl::Clock { base: 30_000, inc: 500 }.text(), "0:30+0.5");
        assert_eq!(TimeControl::Clock { base: 90_000, inc: 2000 }.text(), "1:30+2");
        assert_eq!(TimeControl::Clock { base: 6_000, inc: 0 }.text(), "0:06+0");
        assert_eq!(TimeControl::Clock { base: 61_500, inc: 1 }.text(), "1:01.5+0.001");
        assert_eq!(TimeControl::Clock { base: 3_600_000, inc: 0 }.text(), "60+0");
        assert_eq!(TimeControl::Move { ms: 1500 }.text(), "1.5 s/move");
        assert_eq!(TimeControl::Move { ms: 30_000 }.text(), "30 s/move");
        assert_eq!(TimeControl::None.text(), "");
        assert_eq!(TimeControl::Move { ms: 1 }.clamped(), TimeControl::Move { ms: 100 });
        let t: TimeControl = serde_json::from_str(r#"{"kind":"clock","base":60000,"inc":0}"#).unwrap();
        assert_eq!(t, TimeControl::Clock { base: 60_000, inc: 0 });
    }
}
