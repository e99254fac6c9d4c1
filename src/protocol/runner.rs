//! The search runner: one search (`go`, `bestmove`, `analyze`) on its own
//! thread, which writes its `info` lines and its final reply itself, a
//! heartbeat that prints progress at least every second, and the handle
//! the session keeps to stop it or join it.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use log::error;
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::dialect::Dialect;
use super::output::Out;
use crate::options::OptionValues;
use crate::registry::{AnyGame, AnyPlayer};
use crate::search::{Limits, Progress, Report, SearchCtx, StopFlag};
use crate::text::clean;

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
    handle: JoinHandle<Option<Box<dyn AnyPlayer>>>,
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

/// True if nothing but `stop` ends the search (`infinite`, no limit at
/// all, pondering). A review always ends by itself: its limits bound each
/// position, and without any each game's own default applies.
pub fn is_unbounded(req: &Request) -> bool {
    req.job != Job::Review && (req.limits.infinite || req.limits.is_unbounded() || req.ponder)
}

/// Starts a search thread (and its heartbeat).
pub fn spawn<W: Write + Send + 'static>(req: Request, out: Out<W>, notify: Option<Notify>) -> Running {
    let stop = StopFlag::new();
    let progress = Progress::new(req.ponder);
    let done = Arc::new(AtomicBool::new(false));
    let unbounded = is_unbounded(&req);
    let beat = Arc::new((Mutex::new(false), Condvar::new()));
    let start = req.arrived;
    // The heartbeat: an `info` line when the player has said nothing for a
    // second (only `go` and `analyze` print progress).
    if req.job != Job::BestMove {
        let (out, done, progress, beat) = (out.clone(), done.clone(), progress.clone(), beat.clone());
        let _ = std::thread::Builder::new().name("heartbeat".into()).spawn(move || {
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
    let handle = std::thread::Builder::new()
        .name("search".into())
        .stack_size(64 << 20)
        .spawn(move || run(req, start, stop2, done2, progress2, out, notify))
        .expect("spawn search thread");
    Running { stop, progress, done, unbounded, handle, beat }
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
    if job == Job::Review {
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
    let mut reporter = move |r: Report| {
        if job == Job::Go || job == Job::Analyze {
            let line = dialect.info_line(&r, game2.as_ref());
            let mut o = out2.lock();
            let _ = writeln!(o, "{line}").and_then(|_| o.flush());
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
            let mut mv = match r {
                Ok(Ok(l)) => l[0].clone(),
                other => {
                    // A strategy failed: still answer with a legal move.
                    error!("strategy {} failed: {:?}", player.strategy(), other.map(|_| ()));
                    keep_player = false;
                    game.valid_moves().into_iter().next().unwrap_or_else(|| "pass".into())
                }
            };
            // `searchmoves`: the answer is one of them (a strategy that does
            // not know the restriction is overruled by the first listed).
            if !searchmoves.is_empty() && !searchmoves.contains(&mv) {
                mv = searchmoves[0].clone();
            }
            let mv = clean(&dialect.move_out(&mv));
            lines.push(if job == Job::Go { format!("bestmove {mv}") } else { mv });
        }
    }
    let mut text = String::new();
    for l in lines {
        text.push_str(&l);
        text.push('\n');
    }
    text.push_str(dialect.terminator());
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
