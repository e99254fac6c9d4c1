//! The search runner: one search (`go`, `bestmove`, `analyze`) on its own
//! thread, which writes its `info` lines and its final reply itself, a
//! heartbeat that prints progress at least every second, and the handle
//! the session keeps to stop it or join it.
//!
//! Where there are no threads (the engine in a Web Worker, see
//! [`crate::threads`]) the search runs in the caller, within the command
//! that starts it, with no heartbeat; `stop` then reaches it through the
//! outside signals of [`crate::search::OutsideSignals`], and a [`Watch`]
//! learns at every step what reply a stop would give (the worker's
//! fallback when the page cannot share a stop flag with it).

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use log::error;
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::dialect::Dialect;
use super::output::Out;
use crate::options::OptionValues;
use crate::registry::{AnyGame, AnyPlayer};
use crate::search::{Limits, Progress, Report, SearchCtx, StopFlag};
use crate::text::clean;
use crate::threads::{self, Task};
use crate::time::Instant;

/// What a search thread is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// UCI's `go`: `info` lines, then `bestmove <move>`.
    Go,
    /// UHP's `bestmove`: the move alone.
    BestMove,
    /// `analyze`: the game's analysis lines.
    Analyze,
    /// `review`: the game's moves judged (`review.rs`).
    Review,
}

/// Everything one search needs.
pub struct Request {
    pub job: Job,
    pub game: Box<dyn AnyGame>,
    pub player: Box<dyn AnyPlayer>,
    pub options: OptionValues,
    pub limits: Limits,
    /// `analyze`'s own arguments.
    pub args: String,
    pub seed: u64,
    pub dialect: Dialect,
    /// UCI's `searchmoves`, as moves of the game (empty = all).
    pub searchmoves: Vec<String>,
    pub ponder: bool,
    /// When the command arrived: the search's clock runs from then, so a
    /// search thread that a busy machine runs late still answers in time.
    pub arrived: Instant,
}

/// Called by the search thread once its reply is written (the event loop
/// then runs the commands that waited).
pub type Notify = Arc<dyn Fn() + Send + Sync>;

/// A running search, as the session holds it.
pub struct Running {
    pub stop: StopFlag,
    pub progress: Arc<Progress>,
    done: Arc<AtomicBool>,
    /// True if nothing but `stop` ends it (`infinite`, or no limit at
    /// all): such a search is stopped at end of input.
    pub unbounded: bool,
    handle: Task<Option<Box<dyn AnyPlayer>>>,
    beat: Arc<(Mutex<bool>, Condvar)>,
}

impl Running {
    /// True once the reply has been written.
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Waits for the thread; returns the player to keep, if it is sound.
    pub fn join(self) -> Option<Box<dyn AnyPlayer>> {
        let (lock, cv) = &*self.beat;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) = true;
        cv.notify_all();
        match self.handle.join() {
            Ok(p) => p,
            Err(_) => {
                error!("search thread panicked");
                None
            }
        }
    }
}

/// Told, while a search runs, the reply it would give if it were stopped
/// now (its framing, and the best move reported so far, else a legal
/// move; `None` where no move is at hand): the web worker's fallback
/// stop, which ends the worker and answers with this (see `protocol.md`).
pub type Watch = fn(Option<&str>);

static WATCH: OnceLock<Watch> = OnceLock::new();

/// Registers the [`Watch`] (once; later calls are ignored).
pub fn set_watch(w: Watch) {
    let _ = WATCH.set(w);
}

/// True if nothing but `stop` ends the search (`infinite`, no limit at
/// all, pondering). A review always ends by itself: its limits bound each
/// position, and without any each game's own default applies.
pub fn is_unbounded(req: &Request) -> bool {
    req.job != Job::Review && (req.limits.infinite || req.limits.is_unbounded() || req.ponder)
}

/// Starts a search thread (and its heartbeat); where there are no threads,
/// runs the search here and returns it done.
pub fn spawn<W: Write + Send + 'static>(req: Request, out: Out<W>, notify: Option<Notify>) -> Running {
    let stop = StopFlag::for_search();
    let progress = Progress::for_search(req.ponder);
    let done = Arc::new(AtomicBool::new(false));
    let unbounded = is_unbounded(&req);
    let beat = Arc::new((Mutex::new(false), Condvar::new()));
    let start = req.arrived;
    // The heartbeat: an `info` line when the player has said nothing for a
    // second (only `go` and `analyze` print progress).
    if req.job != Job::BestMove {
        let (out, done, progress, beat) = (out.clone(), done.clone(), progress.clone(), beat.clone());
        let _ = threads::background("heartbeat", move || {
            let (lock, cv) = &*beat;
            let mut finished = lock.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                let (g, _) =
                    cv.wait_timeout(finished, Duration::from_millis(250)).unwrap_or_else(|p| p.into_inner());
                finished = g;
                if *finished {
                    return;
                }
                let now = start.elapsed().as_millis() as u64;
                if now.saturating_sub(progress.last_report_ms()) < 1000 {
                    continue;
                }
                let mut o = out.lock();
                if done.load(Ordering::Acquire) {
                    return;
                }
                let nodes = progress.nodes();
                let nps = nodes.saturating_mul(1000).checked_div(now).unwrap_or(0);
                // The same line in every dialect: UCI's `info` fields.
                let line = format!("info time {now} nodes {nodes} nps {nps}\n");
                let _ = o.write_all(line.as_bytes()).and_then(|_| o.flush());
                progress.note_heartbeat(now);
            }
        });
    }
    let (stop2, done2, progress2) = (stop.clone(), done.clone(), progress.clone());
    let handle =
        threads::run("search", Some(64 << 20), move || run(req, start, stop2, done2, progress2, out, notify));
    Running { stop, progress, done, unbounded, handle, beat }
}

/// A search's move as its reply says it: `bestmove <move>` for `go`, the
/// move alone for UHP's `bestmove`, in the dialect's notation. With
/// `searchmoves` the answer is one of them (a strategy that does not know
/// the restriction is overruled by the first listed).
fn move_line(job: Job, dialect: Dialect, searchmoves: &[String], mv: &str) -> String {
    let mv =
        if !searchmoves.is_empty() && !searchmoves.iter().any(|m| m == mv) { &searchmoves[0] } else { mv };
    let mv = clean(&dialect.move_out(mv));
    if job == Job::Go { format!("bestmove {mv}") } else { mv }
}

/// Reply lines with the dialect's terminator.
fn framed(dialect: Dialect, lines: &[String]) -> String {
    let mut text = String::new();
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    text.push_str(dialect.terminator());
    text
}

/// The reply of a search stopped now with `best` as its move (see
/// [`Watch`]): an analysis stopped so has no lines; a move search without
/// a move at hand has no reply.
fn stopped_reply(job: Job, dialect: Dialect, searchmoves: &[String], best: Option<&str>) -> Option<String> {
    match (job, best) {
        (Job::Analyze, _) => Some(framed(dialect, &[])),
        (_, Some(mv)) => Some(framed(dialect, &[move_line(job, dialect, searchmoves, mv)])),
        (_, None) => None,
    }
}

/// A legal move of `game`, if the game can list its moves (a Mastermind of
/// millions of codes does not).
fn any_move(game: &dyn AnyGame) -> Option<String> {
    if game.too_many_moves().is_some() {
        return None;
    }
    game.valid_moves().into_iter().next()
}

/// The body of a search thread.
fn run<W: Write + Send + 'static>(
    req: Request,
    start: Instant,
    stop: StopFlag,
    done: Arc<AtomicBool>,
    progress: Arc<Progress>,
    out: Out<W>,
    notify: Option<Notify>,
) -> Option<Box<dyn AnyPlayer>> {
    let Request { job, game, mut player, options, limits, args, seed, dialect, searchmoves, .. } = req;
    let movetime = limits.movetime;
    let watch = WATCH.get().copied();
    if job == Job::Review {
        // A review stopped now has no reply at hand for the web worker's
        // fallback: `stop` waits for it there (the shared flag ends it).
        if let Some(w) = watch {
            w(None);
        }
        let r = catch_unwind(AssertUnwindSafe(|| {
            super::review::run(game.as_ref(), limits, &options, seed, stop, progress, &out, start)
        }));
        let mut text = match r {
            Ok(Ok(t)) => t,
            Ok(Err(e)) => dialect.failure_line(&super::dialect::Failure::Err(e)) + "\n",
            Err(_) => {
                dialect.failure_line(&super::dialect::Failure::Err("internal error during review".into()))
                    + "\n"
            }
        };
        text.push_str(dialect.terminator());
        finish(&out, &done, &text, job, start, movetime, notify);
        return Some(player);
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let out2 = out.clone();
    let game2 = game.clone_box();
    let mut said_best: Option<String> = None;
    if let Some(w) = watch {
        let mv = searchmoves.first().cloned().or_else(|| any_move(game.as_ref()));
        w(stopped_reply(job, dialect, &searchmoves, mv.as_deref()).as_deref());
    }
    let searchmoves2 = searchmoves.clone();
    let mut reporter = move |r: Report| {
        if job == Job::Go || job == Job::Analyze {
            let line = dialect.info_line(&r, game2.as_ref());
            let mut o = out2.lock();
            let _ = writeln!(o, "{line}").and_then(|_| o.flush());
        }
        if let (Some(w), Some(best)) = (watch, r.pv.first())
            && said_best.as_ref() != Some(best)
        {
            w(stopped_reply(job, dialect, &searchmoves2, Some(best)).as_deref());
            said_best = Some(best.clone());
        }
    };
    let mut ctx =
        SearchCtx::with_progress(limits, &options, &mut rng, stop, &mut reporter, progress).started_at(start);
    let result = catch_unwind(AssertUnwindSafe(|| match job {
        Job::Analyze => game.analyze(&args, &mut ctx),
        _ => player.choose(game.as_ref(), &mut ctx).ok_or_else(|| "no move".to_string()).map(|m| vec![m]),
    }));
    let mut lines: Vec<String> = Vec::new();
    let mut keep_player = true;
    match (job, result) {
        (Job::Analyze, Ok(Ok(l))) => lines.extend(l.iter().map(|l| clean(l))),
        (Job::Analyze, Ok(Err(e))) => lines.push(dialect.failure_line(&super::dialect::Failure::Err(e))),
        (Job::Analyze, Err(_)) => lines.push(
            dialect.failure_line(&super::dialect::Failure::Err("internal error during analyze".into())),
        ),
        (_, r) => {
            let mv = match r {
                Ok(Ok(l)) => l[0].clone(),
                other => {
                    // A strategy failed: still answer with a legal move.
                    error!("strategy {} failed: {:?}", player.strategy(), other.map(|_| ()));
                    keep_player = false;
                    game.valid_moves().into_iter().next().unwrap_or_else(|| "pass".into())
                }
            };
            lines.push(move_line(job, dialect, &searchmoves, &mv));
        }
    }
    let text = framed(dialect, &lines);
    finish(&out, &done, &text, job, start, movetime, notify);
    keep_player.then_some(player)
}

/// Writes the end of a search's reply, marks it done and tells the
/// session.
fn finish<W: Write + Send + 'static>(
    out: &Out<W>,
    done: &AtomicBool,
    text: &str,
    job: Job,
    start: Instant,
    movetime: Option<Duration>,
    notify: Option<Notify>,
) {
    {
        let mut o = out.lock();
        done.store(true, Ordering::Release);
        let _ = o.write_all(text.as_bytes()).and_then(|_| o.flush());
    }
    // What the engine's own clock says, to tell a late move's delay in the
    // engine from one on the way (a runner's measure includes the pipes).
    log::debug!(
        "{job:?} answered {} ms after the command arrived (its time: {})",
        start.elapsed().as_millis(),
        movetime.map_or("none".to_string(), |t| format!("{} ms", t.as_millis()))
    );
    if let Some(n) = notify {
        n();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a stop would answer now, in each job and dialect (the web
    /// worker's fallback prints it for the search).
    #[test]
    fn the_reply_of_a_search_stopped_now() {
        let m = Dialect::Meeple;
        assert_eq!(stopped_reply(Job::Go, m, &[], Some("4")).as_deref(), Some("bestmove 4\nok\n"));
        assert_eq!(stopped_reply(Job::BestMove, m, &[], Some("wQ -wS1")).as_deref(), Some("wQ -wS1\nok\n"));
        assert_eq!(stopped_reply(Job::Analyze, m, &[], None).as_deref(), Some("ok\n"));
        assert_eq!(stopped_reply(Job::Go, m, &[], None), None);
        assert_eq!(
            stopped_reply(Job::Go, Dialect::Uci, &[], Some("wQ -wS1")).as_deref(),
            Some("bestmove wQ_-wS1\n")
        );
        let only = ["3".to_string(), "5".to_string()];
        assert_eq!(stopped_reply(Job::Go, m, &only, Some("4")).as_deref(), Some("bestmove 3\nok\n"));
        assert_eq!(stopped_reply(Job::Go, m, &only, Some("5")).as_deref(), Some("bestmove 5\nok\n"));
    }
}
